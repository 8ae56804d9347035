//! Page labels from the catalog's `/PageLabels` number tree.

use std::collections::HashSet;

use lopdf::{Dictionary, Document, Object, ObjectId};

use super::encodings::decode_text_string;
use super::util::{as_dict, deref, get, get_array, get_dict, get_name, get_num};

const MAX_NODES: usize = 10_000;

struct Range {
    start: u32,
    style: Option<u8>,
    prefix: String,
    first: u32,
}

/// Labels for pages `0..count`, or `None` when the document defines none.
pub fn page_labels(doc: &Document, count: usize) -> Option<Vec<Option<String>>> {
    let catalog = doc.catalog().ok()?;
    let root = get_dict(doc, catalog, b"PageLabels")?;
    let mut ranges = Vec::new();
    let mut seen = HashSet::new();
    collect(doc, root, &mut ranges, &mut seen, 0);
    if ranges.is_empty() {
        return None;
    }
    ranges.sort_by_key(|r| r.start);
    let mut out = Vec::with_capacity(count);
    let mut k = 0;
    for page in 0..count as u32 {
        while k + 1 < ranges.len() && ranges[k + 1].start <= page {
            k += 1;
        }
        let r = &ranges[k];
        if r.start > page {
            out.push(None);
            continue;
        }
        let n = r.first.saturating_add(page - r.start);
        let mut label = r.prefix.clone();
        match r.style {
            Some(b'D') => label.push_str(&n.to_string()),
            Some(b'R') => label.push_str(&roman(n).to_uppercase()),
            Some(b'r') => label.push_str(&roman(n)),
            Some(b'A') => label.push_str(&letters(n).to_uppercase()),
            Some(b'a') => label.push_str(&letters(n)),
            _ => {}
        }
        out.push((!label.is_empty()).then_some(label));
    }
    Some(out)
}

fn collect(
    doc: &Document,
    node: &Dictionary,
    out: &mut Vec<Range>,
    seen: &mut HashSet<ObjectId>,
    depth: usize,
) {
    if depth > 32 || seen.len() > MAX_NODES {
        return;
    }
    if let Some(nums) = get_array(doc, node, b"Nums") {
        for pair in nums.chunks_exact(2).take(MAX_NODES) {
            let Some(Object::Integer(start)) = deref(doc, &pair[0]) else {
                continue;
            };
            let Ok(start) = u32::try_from(*start) else {
                continue;
            };
            let Some(d) = as_dict(doc, &pair[1]) else {
                continue;
            };
            let style = get_name(doc, d, b"S").and_then(|s| s.first().copied());
            let prefix = get(doc, d, b"P")
                .and_then(|p| p.as_str().ok())
                .map(decode_text_string)
                .unwrap_or_default();
            let first = get_num(doc, d, b"St")
                .map(|v| v.max(1.0) as u32)
                .unwrap_or(1);
            out.push(Range {
                start,
                style,
                prefix,
                first,
            });
        }
    }
    if let Some(kids) = get_array(doc, node, b"Kids") {
        for kid in kids.iter().take(MAX_NODES) {
            if let Object::Reference(id) = kid
                && !seen.insert(*id)
            {
                continue;
            }
            if let Some(d) = as_dict(doc, kid) {
                collect(doc, d, out, seen, depth + 1);
            }
        }
    }
}

fn roman(n: u32) -> String {
    if n == 0 || n >= 5000 {
        return n.to_string();
    }
    const PARTS: [(u32, &str); 13] = [
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ];
    let mut n = n;
    let mut out = String::new();
    for (v, s) in PARTS {
        while n >= v {
            out.push_str(s);
            n -= v;
        }
    }
    out
}

/// a..z, then aa..zz, aaa.. (the letter repeated), as the PDF spec defines.
fn letters(n: u32) -> String {
    if n == 0 {
        return String::new();
    }
    let letter = char::from(b'a' + ((n - 1) % 26) as u8);
    let times = ((n - 1) / 26 + 1).min(100) as usize;
    std::iter::repeat_n(letter, times).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbering_styles() {
        assert_eq!(roman(4), "iv");
        assert_eq!(roman(1994), "mcmxciv");
        assert_eq!(letters(1), "a");
        assert_eq!(letters(27), "aa");
        assert_eq!(letters(53), "aaa");
    }
}
