//! Destinations (`/Dest`, a GoTo action's `/D`): explicit arrays, named destinations through
//! the catalog's `/Dests` or the `/Names` tree, resolved to a 1-based page and, for `/XYZ`,
//! `/FitH` and `/FitBH`, the height on that page the view is scrolled to. The outline and the
//! link annotations both resolve through here.

use std::collections::{HashMap, HashSet};

use lopdf::{Dictionary, Document, Object, ObjectId};

use super::util::{as_dict, deref, get, get_array, get_dict, get_name, num};

/// Named destinations read, at most.
const MAX_NAMES: usize = 200_000;
/// Indirections followed (a name naming a dictionary naming a name …) before giving up: a
/// destination that refers to itself ends here.
const MAX_HOPS: u32 = 4;

/// Where a destination goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dest {
    /// 1-based physical page.
    pub page: u32,
    /// The top of the view on that page in PDF user space (y up), when the destination says.
    pub top: Option<f32>,
}

/// Resolves destinations of one document; the name tree is read once, on first need.
pub struct Resolver<'a> {
    doc: &'a Document,
    pages: &'a HashMap<ObjectId, u32>,
    named: Option<HashMap<Vec<u8>, &'a Object>>,
}

impl<'a> Resolver<'a> {
    pub fn new(doc: &'a Document, pages: &'a HashMap<ObjectId, u32>) -> Resolver<'a> {
        Resolver {
            doc,
            pages,
            named: None,
        }
    }

    /// The destination of an outline item or a link annotation: its `/Dest`, else its action
    /// when that is a GoTo.
    pub fn of_item(&mut self, item: &'a Dictionary) -> Option<Dest> {
        let doc = self.doc;
        if let Some(dest) = get(doc, item, b"Dest") {
            return self.resolve(dest);
        }
        let action = get_dict(doc, item, b"A")?;
        self.of_action(action)
    }

    /// The destination of a GoTo action; `None` for any other.
    pub fn of_action(&mut self, action: &'a Dictionary) -> Option<Dest> {
        let doc = self.doc;
        if get_name(doc, action, b"S") != Some(b"GoTo") {
            return None;
        }
        self.resolve(get(doc, action, b"D")?)
    }

    /// A destination object (an array, a name or string naming one, or a dictionary with `/D`).
    pub fn resolve(&mut self, dest: &'a Object) -> Option<Dest> {
        self.hop(dest, 0)
    }

    fn hop(&mut self, dest: &'a Object, depth: u32) -> Option<Dest> {
        if depth > MAX_HOPS {
            return None;
        }
        let doc = self.doc;
        match deref(doc, dest)? {
            Object::Array(a) => {
                let page = match a.first()? {
                    Object::Reference(id) => self.pages.get(id).copied()?,
                    // Remote-style destinations give a 0-based page index.
                    Object::Integer(i) => u32::try_from(*i).ok()?.checked_add(1)?,
                    _ => return None,
                };
                Some(Dest {
                    page,
                    top: top(doc, a),
                })
            }
            Object::Dictionary(d) => self.hop(d.get(b"D").ok()?, depth + 1),
            Object::Name(n) | Object::String(n, _) => {
                let target = self.named().get(n.as_slice()).copied()?;
                self.hop(target, depth + 1)
            }
            _ => None,
        }
    }

    fn named(&mut self) -> &HashMap<Vec<u8>, &'a Object> {
        let doc = self.doc;
        self.named.get_or_insert_with(|| {
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
}

/// The view's top of an explicit destination: `[page /XYZ left top zoom]`, `[page /FitH top]`,
/// `[page /FitBH top]` (a `null` top keeps the current one: none).
fn top(doc: &Document, a: &[Object]) -> Option<f32> {
    let at = match a.get(1)?.as_name().ok()? {
        b"XYZ" => 3,
        b"FitH" | b"FitBH" => 2,
        _ => return None,
    };
    num(deref(doc, a.get(at)?)?)
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
