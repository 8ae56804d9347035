//! `context_read` (and the vault MCP's `paper_read`) on a paper: one function per mode —
//! metadata, page, region, full and pages, excerpt, section — over the extracted pages.

use serde_json::{Value, json};

use super::{Args, Mode, Piece, Target, fit, take, window};
use crate::context::quote;
use crate::context::tools::{PaperData, ToolError};
use crate::vault::Section;
use crate::vault::citekeys;
use crate::vault::furniture;
use crate::vault::pdf::PageText;
use crate::vault::uri;

/// The piece `mode` reads from `paper`, at most `limit` characters of text.
pub(super) fn read_paper(
    t: &Target,
    paper: &PaperData,
    mode: Mode,
    a: &Args,
    limit: usize,
) -> Result<Piece, ToolError> {
    let rel = &t.rel;
    let page_arg = a.page.or(t.page);
    match mode {
        // Read in `read_once`, with the vault's annotations.
        Mode::Annotations => Ok(Piece::data(Some(uri::page_uri(rel, 1)))),
        Mode::Metadata => Ok(metadata(rel, paper, a, limit)),
        Mode::Page => {
            let at = page_of(paper, page_arg)?;
            let k = paper.pages.iter().position(|p| p.number == at.number);
            let p = match (without_furniture(paper, a), k) {
                (Some(texts), Some(k)) => page(rel, at, &texts[k], a, limit),
                _ => page(rel, at, &at.text, a, limit),
            };
            p.map(|p| said_ocr(p, paper, at.number))
        }
        Mode::Region => {
            let at = page_of(paper, page_arg)?;
            region(rel, at, a, limit).map(|p| said_ocr(p, paper, at.number))
        }
        Mode::Full | Mode::Pages => {
            let (first, last) = page_range(paper, mode, a, page_arg)?;
            Ok(pages(rel, paper, mode, a, first, last, limit))
        }
        Mode::Excerpt => excerpt(rel, paper, a, limit),
        Mode::Section => section(rel, paper, a, limit),
    }
}

/// The page numbered `n` (required).
fn page_of(paper: &PaperData, n: Option<u32>) -> Result<&PageText, ToolError> {
    let n = n.ok_or_else(|| ToolError::bad_args("`page` is required for this mode"))?;
    paper.pages.iter().find(|p| p.number == n).ok_or_else(|| {
        ToolError::bad_args(format!(
            "page {n} does not exist; the paper has {} pages",
            paper.pages.len()
        ))
    })
}

/// The first and last page numbers `full` (from `page` to the end) or `pages` (`page` to
/// `endPage`) reads.
fn page_range(
    paper: &PaperData,
    mode: Mode,
    a: &Args,
    page_arg: Option<u32>,
) -> Result<(u32, u32), ToolError> {
    let first = page_arg.unwrap_or(1);
    if first == 0 || first as usize > paper.pages.len() {
        return Err(ToolError::bad_args(format!(
            "page {first} does not exist; the paper has {} pages",
            paper.pages.len()
        )));
    }
    let last = match mode {
        Mode::Pages => {
            let last = a.end_page.unwrap_or(first);
            if last < first {
                return Err(ToolError::bad_args("`endPage` is before `page`"));
            }
            last
        }
        _ => u32::MAX,
    };
    Ok((first, last))
}

/// A piece of page `n`, with `ocr` saying what read it when its text is OCR: `OCR (tesseract
/// 5.3.0, eng) · confidence 0.91`, the words' confidence as tesseract gave it.
fn said_ocr(mut p: Piece, paper: &PaperData, n: u32) -> Piece {
    if let Some(note) = paper.record.ocr_note(n) {
        p.extra.insert("ocr".into(), json!(note.says()));
    }
    p
}

fn no_text(s: &str) -> String {
    if s.trim().is_empty() {
        "(no text layer on this page)".to_string()
    } else {
        s.to_string()
    }
}

/// Title, authors, identifiers and the abstract (on the first call), and the section list
/// from `start`, fitted to `limit`.
fn metadata(rel: &str, paper: &PaperData, a: &Args, limit: usize) -> Piece {
    let m = &paper.record.meta;
    // `start` continues the section list of an earlier call (the rest is repeated only on
    // the first one).
    let from = a.start.unwrap_or(0) as usize;
    let mut p = Piece::data(Some(uri::page_uri(rel, 1)));
    let mut room = limit.saturating_sub(400 + rel.len() * 2);
    if from == 0 {
        p.extra.insert("authors".into(), json!(m.authors));
        p.extra.insert("year".into(), json!(m.year));
        p.extra.insert("doi".into(), json!(m.doi));
        p.extra.insert("arxiv".into(), json!(m.arxiv));
        // What a manuscript cites it with (`[@key, p. 3]`), and where it appeared.
        p.extra
            .insert("citationKey".into(), json!(citekeys::key_of(m)));
        let kind = m
            .publication
            .kind_or_guess(m.doi.is_some(), m.arxiv.is_some());
        p.extra.insert("type".into(), json!(kind.csl()));
        if let Some(c) = &m.publication.container {
            p.extra.insert("containerTitle".into(), json!(c));
        }
        p.extra.insert("pages".into(), json!(paper.record.pages));
        if let Some(ab) = &m.abstract_text {
            let (x, more) = take(ab, 0, (room / 2).max(200).min(room));
            room = room.saturating_sub(x.chars().count() + 32);
            p.truncated |= more.is_some();
            p.extra.insert("abstract".into(), json!(x));
        } else {
            p.extra.insert("abstract".into(), Value::Null);
        }
    }
    let sections: Vec<Value> = paper
        .record
        .sections
        .iter()
        .map(|s| json!({"number": s.number, "title": s.title, "level": s.level, "page": s.page}))
        .collect();
    p.extra.insert("sectionCount".into(), json!(sections.len()));
    let (shown, more) = fit(sections, from, room);
    if from > 0 {
        p.extra.insert("sectionsFrom".into(), json!(from));
    }
    p.extra.insert("sections".into(), Value::Array(shown));
    if let Some(k) = more {
        p.truncated = true;
        p.next = Some(json!({"path": rel, "mode": "metadata", "start": k}));
    }
    p
}

/// The pages' texts without their furniture, when the read asks for that (`furniture: false`).
fn without_furniture(paper: &PaperData, a: &Args) -> Option<Vec<String>> {
    if a.furniture != Some(false) {
        return None;
    }
    let pages: Vec<&str> = paper.pages.iter().map(|p| p.text.as_str()).collect();
    Some(furniture::strip(&pages))
}

/// One page's text (`text`: as printed, or without its furniture) from `start`.
fn page(
    rel: &str,
    page: &PageText,
    text: &str,
    a: &Args,
    limit: usize,
) -> Result<Piece, ToolError> {
    let from = a.start.unwrap_or(0) as usize;
    let (text, more) = take(text, from, limit);
    let mut p = Piece::new(no_text(&text), Some(uri::page_uri(rel, page.number)));
    p.page = Some(page.number);
    if let Some(next) = more {
        p.truncated = true;
        // Still `page` mode, so that the page's end leads on to the next page.
        let mut n = json!({"path": rel, "mode": "page", "page": page.number, "start": next});
        if let Some(f) = a.furniture {
            n["furniture"] = json!(f);
        }
        p.next = Some(n);
    }
    Ok(p)
}

/// Characters `start..end` of one page.
fn region(rel: &str, page: &PageText, a: &Args, limit: usize) -> Result<Piece, ToolError> {
    let from = a.start.unwrap_or(0) as usize;
    let total = page.text.chars().count();
    let end = a.end.map_or(total, |e| (e as usize).min(total));
    if end < from {
        return Err(ToolError::bad_args("`end` is before `start`"));
    }
    let want = end - from;
    let (text, _) = take(&page.text, from, want.min(limit));
    let mut p = Piece::new(no_text(&text), Some(uri::page_uri(rel, page.number)));
    p.page = Some(page.number);
    if want > limit {
        p.truncated = true;
        p.next = Some(
            json!({"path": rel, "mode": "region", "page": page.number, "start": from + limit, "end": end}),
        );
    }
    Ok(p)
}

/// Pages `first..=last` from character `start` of the first, each after a `[page N]` marker.
fn pages(
    rel: &str,
    paper: &PaperData,
    mode: Mode,
    a: &Args,
    first: u32,
    last: u32,
    limit: usize,
) -> Piece {
    let mut from = a.start.unwrap_or(0) as usize;
    let mut text = String::new();
    let mut used = 0usize;
    let mut next = None;
    let stripped = without_furniture(paper, a);
    for (k, page) in paper
        .pages
        .iter()
        .enumerate()
        .filter(|(_, p)| p.number >= first && p.number <= last)
    {
        let page_text = stripped
            .as_ref()
            .map_or(page.text.as_str(), |t| t[k].as_str());
        let marker = match paper.record.ocr_note(page.number) {
            Some(note) => format!("[page {} · {}]\n", page.number, note.says()),
            None => format!("[page {}]\n", page.number),
        };
        // Room for the marker, one character of text and the closing newline; the first page
        // always gives at least one character, so `next` moves on.
        if !text.is_empty() && used + marker.len() + 2 > limit {
            next = Some((page.number, from));
            break;
        }
        text.push_str(&marker);
        used += marker.len();
        let (chunk, more) = take(page_text, from, limit.saturating_sub(used + 1).max(1));
        used += chunk.chars().count();
        text.push_str(&chunk);
        text.push('\n');
        used += 1;
        if let Some(c) = more {
            next = Some((page.number, c));
            break;
        }
        from = 0;
    }
    let mut p = Piece::new(text, Some(uri::page_uri(rel, first)));
    p.page = Some(first);
    if let Some((pg, c)) = next {
        p.truncated = true;
        let mut next = json!({"path": rel, "mode": mode.as_str(), "page": pg, "start": c});
        if mode == Mode::Pages {
            next["endPage"] = json!(last);
        }
        if let Some(f) = a.furniture {
            next["furniture"] = json!(f);
        }
        p.next = Some(next);
    }
    p
}

/// The passage around `quote`, found across page breaks.
fn excerpt(rel: &str, paper: &PaperData, a: &Args, limit: usize) -> Result<Piece, ToolError> {
    let q = a.quote.as_deref().map(str::trim).filter(|q| !q.is_empty());
    let q = q.ok_or_else(|| ToolError::bad_args("`quote` is required for excerpt mode"))?;
    let joined = quote::Joined::new(paper.pages.iter().map(|p| p.text.as_str()));
    let m = quote::find_in_pages(&joined, q).ok_or_else(|| {
        ToolError::new(
            "quote_not_found",
            "the quote was not found in this paper; check the wording or search for it",
        )
    })?;
    let found = m.found;
    let span = joined.span(m.first, m.last);
    let joined = joined.text;
    let (ws, we, cut) = window(&joined, span.start, span.end, found.range.clone(), limit);
    let text = joined[ws..we].trim().to_string();
    let page = paper.pages[m.first].number;
    let mut p = Piece::new(text, Some(uri::page_uri(rel, page)));
    p.page = Some(page);
    p.truncated = cut;
    p.extra.insert(
        "match".into(),
        json!(if found.exact { "exact" } else { "approximate" }),
    );
    Ok(p)
}

/// The text of the section `section` names (by number or title), from `start`.
fn section(rel: &str, paper: &PaperData, a: &Args, limit: usize) -> Result<Piece, ToolError> {
    let wanted = match &a.section {
        Some(s) if !s.trim().is_empty() => s.trim().to_string(),
        _ => {
            return Err(ToolError::bad_args(
                "`section` (a title or number) is required for section mode",
            ));
        }
    };
    let sections = &paper.record.sections;
    let pos = find_section(sections, &wanted)?;
    let sec = &sections[pos];
    let joined = section_text(paper, sec, sections.get(pos + 1));
    let from = a.start.unwrap_or(0) as usize;
    let (text, more) = take(&joined, from, limit);
    let mut p = Piece::new(text, Some(uri::page_uri(rel, sec.page)));
    p.page = Some(sec.page);
    p.extra.insert(
        "section".into(),
        json!({"number": sec.number, "title": sec.title, "page": sec.page}),
    );
    if let Some(c) = more {
        p.truncated = true;
        p.next = Some(json!({"path": rel, "mode": "section", "section": wanted, "start": c}));
    }
    Ok(p)
}

/// The index of the section `wanted` names: its number, else its whole title, else a part of
/// its title.
fn find_section(sections: &[Section], wanted: &str) -> Result<usize, ToolError> {
    let norm = |s: &str| quote::reduce(s).text;
    let key = norm(wanted);
    sections
        .iter()
        .position(|s| {
            s.number.as_deref().map(|n| n.trim_end_matches('.'))
                == Some(wanted.trim_end_matches('.'))
        })
        .or_else(|| sections.iter().position(|s| norm(&s.title) == key))
        .or_else(|| {
            sections
                .iter()
                .position(|s| !key.is_empty() && norm(&s.title).contains(&key))
        })
        .ok_or_else(|| {
            ToolError::new(
                "section_not_found",
                format!(
                    "no section {wanted:?}; read the metadata for the list of sections ({} known)",
                    sections.len()
                ),
            )
        })
}

/// The body of `sec`: from the line of its heading on its first page to the line of
/// `next_sec`'s heading (or the paper's end).
fn section_text(paper: &PaperData, sec: &Section, next_sec: Option<&Section>) -> String {
    let mut joined = String::new();
    let mut starts = Vec::new();
    let last_page = next_sec.map_or(u32::MAX, |n| n.page.max(sec.page));
    for page in paper
        .pages
        .iter()
        .filter(|p| p.number >= sec.page && p.number <= last_page)
    {
        starts.push(joined.len());
        joined.push_str(&page.text);
        joined.push('\n');
    }
    let first_len = starts.get(1).copied().unwrap_or(joined.len());
    let begin = quote::find(&joined[..first_len], &sec.title).map_or(0, |f| {
        // Start at the line holding the heading (with its number).
        joined[..f.range.start].rfind('\n').map_or(0, |i| i + 1)
    });
    let end = next_sec
        .and_then(|n| {
            let from = starts.last().copied().unwrap_or(0).max(begin);
            quote::find(&joined[from..], &n.title).map(|f| {
                let at = from + f.range.start;
                joined[..at].rfind('\n').map_or(at, |i| i + 1).max(begin)
            })
        })
        .unwrap_or(joined.len());
    joined[begin..end.max(begin)].to_string()
}
