//! The document outline (bookmarks), flattened in document order, with destinations resolved
//! to 1-based page numbers.

use std::collections::{HashMap, HashSet};

use lopdf::{Document, Object, ObjectId};

use super::OutlineItem;
use super::dest::Resolver;
use super::encodings::decode_text_string;
use super::util::{as_dict, get, get_dict};

const MAX_ITEMS: usize = 20_000;
const MAX_DEPTH: u32 = 64;

struct Ctx<'a> {
    doc: &'a Document,
    dests: Resolver<'a>,
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
        dests: Resolver::new(doc, pages),
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
        let page = ctx.dests.of_item(item).map(|d| d.page);
        ctx.out.push(OutlineItem { title, level, page });
        if let Ok(child) = item.get(b"First") {
            walk(ctx, child, level + 1);
        }
        cur = item.get(b"Next").ok();
    }
}
