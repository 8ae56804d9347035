//! The document outline (bookmarks), flattened in document order, with destinations resolved
//! to 1-based page numbers.

use std::collections::{HashMap, HashSet};

use lopdf::{Dictionary, Document, Object, ObjectId};

use super::OutlineItem;
use super::encodings::decode_text_string;
use super::util::{as_dict, deref, get, get_array, get_dict, get_name};

const MAX_ITEMS: usize = 20_000;
const MAX_DEPTH: u32 = 64;
const MAX_NAMES: usize = 200_000;

struct Ctx<'a> {
    doc: &'a Document,
    pages: &'a HashMap<ObjectId, u32>,
    named: Option<HashMap<Vec<u8>, &'a Object>>,
    seen: HashSet<ObjectId>,
    out: Vec<OutlineItem>,
}

pub fn outline(doc: &Document, pages: &HashMap<ObjectId, u32>) -> Vec<OutlineItem> {
    let Ok(catalog) = doc.catalog() else {
        return Vec::new();
    };
    let Some(root) = get_dict(doc, catalog, b"Outlines") else {
        return Vec::new();
    };
    let mut ctx = Ctx {
        doc,
        pages,
        named: None,
        seen: HashSet::new(),
        out: Vec::new(),
    };
    if let Ok(first) = root.get(b"First") {
        walk(&mut ctx, first, 0);
    }
    ctx.out
}

fn walk<'a>(ctx: &mut Ctx<'a>, first: &'a Object, level: u32) {
    if level > MAX_DEPTH {
        return;
    }
    let doc = ctx.doc;
    let mut cur = Some(first);
    while let Some(obj) = cur {
        if ctx.out.len() >= MAX_ITEMS {
            return;
        }
        // Outline items are indirect objects; revisiting one means the file has a loop.
        if let Object::Reference(id) = obj
            && !ctx.seen.insert(*id)
        {
            return;
        }
        let Some(item) = as_dict(doc, obj) else {
            return;
        };
        let title = get(doc, item, b"Title")
            .and_then(|t| t.as_str().ok())
            .map(decode_text_string)
            .unwrap_or_default();
        let page = destination_page(ctx, item);
        ctx.out.push(OutlineItem { title, level, page });
        if let Ok(child) = item.get(b"First") {
            walk(ctx, child, level + 1);
        }
        cur = item.get(b"Next").ok();
    }
}

fn destination_page<'a>(ctx: &mut Ctx<'a>, item: &'a Dictionary) -> Option<u32> {
    let doc = ctx.doc;
    if let Some(dest) = get(doc, item, b"Dest") {
        return resolve(ctx, dest, 0);
    }
    let action = get_dict(doc, item, b"A")?;
    if get_name(doc, action, b"S") != Some(b"GoTo") {
        return None;
    }
    resolve(ctx, get(doc, action, b"D")?, 0)
}

fn resolve<'a>(ctx: &mut Ctx<'a>, dest: &'a Object, depth: u32) -> Option<u32> {
    if depth > 4 {
        return None;
    }
    let doc = ctx.doc;
    match deref(doc, dest)? {
        Object::Array(a) => match a.first()? {
            Object::Reference(id) => ctx.pages.get(id).copied(),
            // Remote-style destinations give a 0-based page index.
            Object::Integer(i) => u32::try_from(*i).ok().map(|i| i + 1),
            _ => None,
        },
        Object::Dictionary(d) => resolve(ctx, d.get(b"D").ok()?, depth + 1),
        Object::Name(n) | Object::String(n, _) => {
            let target = named(ctx).get(n.as_slice()).copied()?;
            resolve(ctx, target, depth + 1)
        }
        _ => None,
    }
}

fn named<'a, 'b>(ctx: &'b mut Ctx<'a>) -> &'b HashMap<Vec<u8>, &'a Object> {
    let doc = ctx.doc;
    ctx.named.get_or_insert_with(|| {
        let mut map = HashMap::new();
        if let Ok(catalog) = doc.catalog() {
            if let Some(dests) = get_dict(doc, catalog, b"Dests") {
                for (k, v) in dests.iter().take(MAX_NAMES) {
                    map.insert(k.clone(), v);
                }
            }
            if let Some(tree) =
                get_dict(doc, catalog, b"Names").and_then(|n| get_dict(doc, n, b"Dests"))
            {
                let mut seen = HashSet::new();
                name_tree(doc, tree, &mut map, &mut seen, 0);
            }
        }
        map
    })
}

fn name_tree<'a>(
    doc: &'a Document,
    node: &'a Dictionary,
    map: &mut HashMap<Vec<u8>, &'a Object>,
    seen: &mut HashSet<ObjectId>,
    depth: u32,
) {
    if depth > 32 || map.len() >= MAX_NAMES {
        return;
    }
    if let Some(names) = get_array(doc, node, b"Names") {
        for pair in names.chunks_exact(2) {
            if let Some(Object::String(k, _)) = deref(doc, &pair[0]) {
                map.insert(k.clone(), &pair[1]);
            }
        }
    }
    if let Some(kids) = get_array(doc, node, b"Kids") {
        for kid in kids {
            if let Object::Reference(id) = kid
                && !seen.insert(*id)
            {
                continue;
            }
            if let Some(d) = as_dict(doc, kid) {
                name_tree(doc, d, map, seen, depth + 1);
            }
        }
    }
}
