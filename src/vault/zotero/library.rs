//! Zotero's rows mapped onto a vault: every regular, non-trashed item with a PDF attachment is
//! a paper at its real path `storage/<KEY>/<file>.pdf` (a linked file at `linked/<KEY>/<file>`),
//! collections are folders `collections/<name>/<sub>/…`, notes are text files
//! `notes/<title> <KEY>.md`, and annotations belong to the PDF they were made on.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use super::fields::{arxiv_of, doi_of, field, key_in_extra, publication_of, split_date};
use super::read::{Creator, Rows};
use crate::vault::annotations::{Annotation, AnnotationKind, AnnotationOrigin};
use crate::vault::paths::{self, Segment, VaultRel};
use crate::vault::publication::{NameParts, Publication};

/// A paper of the library: one PDF attachment and the metadata of its item.
#[derive(Debug, Clone, PartialEq)]
pub struct ZoteroItem {
    /// The parent item's key (the attachment's own for a standalone PDF).
    pub key: String,
    pub attachment_key: String,
    pub library_id: i64,
    /// Zotero's item type (`journalArticle`, `conferencePaper`, …).
    pub item_type: String,
    pub title: String,
    pub creators: Vec<Creator>,
    /// The date as entered (`2009`, `March 2009`, …).
    pub date: Option<String>,
    pub year: Option<i32>,
    pub doi: Option<String>,
    pub abstract_text: Option<String>,
    /// The kind of work and where it appeared (journal, proceedings or book, volume, pages…).
    pub publication: Publication,
    /// A preprint's archive id (`archiveID`, `arXiv:2101.00001`), when it is an arXiv id.
    pub arxiv: Option<String>,
    pub citation_key: Option<String>,
    /// Its vault path.
    pub paper: String,
    /// Where the PDF is on disk.
    pub abs: PathBuf,
}

impl ZoteroItem {
    /// The authors (the other creators when there are no authors).
    fn authors(&self) -> Vec<&Creator> {
        let authors: Vec<&Creator> = self
            .creators
            .iter()
            .filter(|c| c.kind == "author")
            .collect();
        if authors.is_empty() {
            self.creators.iter().collect()
        } else {
            authors
        }
    }

    /// The authors' names in order (the other creators when there are no authors).
    pub fn author_names(&self) -> Vec<String> {
        self.authors().into_iter().map(Creator::full_name).collect()
    }

    /// The same names in parts (a one-field creator's name is its family name).
    pub fn author_parts(&self) -> Vec<NameParts> {
        self.authors()
            .into_iter()
            .filter_map(|c| match c.last.trim() {
                "" => NameParts::new(&c.first, ""),
                last => NameParts::new(last, &c.first),
            })
            .collect()
    }
}

#[derive(Debug, Default)]
pub struct Library {
    pub papers: BTreeMap<String, ZoteroItem>,
    /// Collection folder → the papers directly in it.
    pub collections: BTreeMap<String, Vec<String>>,
    /// Note file → its text.
    pub notes: BTreeMap<String, String>,
    /// Paper → its annotations, in Zotero's reading order.
    pub annotations: HashMap<String, Vec<Annotation>>,
    /// What was left out, and why.
    pub skipped: Skipped,
    /// What to tell the user about the library (from [`Skipped::lines`] and the rest).
    pub warnings: Vec<String>,
}

pub use super::db::is_key;

/// Longest title or collection name kept in a file name, in characters and in bytes.
const NAME_CHARS: usize = 80;
const NAME_BYTES: usize = 200;

/// A name usable as one path segment: no slashes, control or look-alike characters, not
/// hidden, at most [`NAME_CHARS`] characters and [`NAME_BYTES`] bytes (so a note's
/// `<title> <KEY>.md` stays under the file systems' 255 bytes).
pub fn segment(name: &str, fallback: &str) -> Segment {
    let short: String = name.trim().chars().take(NAME_CHARS).collect();
    Segment::fit(&short, NAME_BYTES, fallback)
}

/// The rows and files left out of the library, by reason: said once where the library is
/// opened from the command line, and in the log.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Items whose key is not of Zotero's shape.
    pub bad_keys: usize,
    /// Attachments whose stored file name cannot be a file name.
    pub bad_names: usize,
    /// Attachments whose file resolves outside the library (or a linked file outside its
    /// base folder).
    pub outside: usize,
    /// Linked files relative to a base folder no `prefs.js` names.
    pub no_base: usize,
    /// Notes or folders that could not be written to the state folder.
    pub unwritable: usize,
}

impl Skipped {
    /// What to tell the user, one line each; empty when nothing was left out.
    pub fn lines(&self) -> Vec<String> {
        let mut parts = Vec::new();
        for (n, what) in [
            (self.bad_keys, "with a key that is not Zotero's"),
            (
                self.bad_names,
                "with a file name that cannot be a file name",
            ),
            (self.outside, "whose file resolves outside the library"),
            (
                self.unwritable,
                "that could not be written to the state folder",
            ),
        ] {
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        }
        let total = self.bad_keys + self.bad_names + self.outside + self.unwritable;
        let mut out = Vec::new();
        if total > 0 {
            out.push(format!("{total} Zotero rows skipped: {}", parts.join(", ")));
        }
        if self.no_base > 0 {
            out.push(format!(
                "{} linked files relative to Zotero's base folder left out: no prefs.js names that folder \
                 (set AGENTERO_ZOTERO_PROFILE to the Zotero profile folder that holds prefs.js)",
                self.no_base
            ));
        }
        out
    }
}

fn is_regular(type_name: &str) -> bool {
    !matches!(type_name, "attachment" | "note" | "annotation")
}

/// The text of a Zotero note's HTML: tags dropped, blocks on lines, entities decoded.
pub fn note_text(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let Some(j) = rest[i..].find('>') else {
            rest = "";
            break;
        };
        let tag = rest[i + 1..i + j]
            .trim_start_matches('/')
            .to_ascii_lowercase();
        let name = tag
            .split(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or("");
        if matches!(
            name,
            "p" | "br"
                | "div"
                | "li"
                | "h1"
                | "h2"
                | "h3"
                | "h4"
                | "h5"
                | "h6"
                | "tr"
                | "blockquote"
        ) && !out.ends_with('\n')
        {
            out.push('\n');
        }
        rest = &rest[i + j + 1..];
    }
    out.push_str(rest);
    let text = out
        .replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&");
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let mut joined = lines.join("\n");
    while joined.contains("\n\n\n") {
        joined = joined.replace("\n\n\n", "\n\n");
    }
    joined.trim().to_string()
}

fn annotation_kind(t: i64) -> Option<AnnotationKind> {
    Some(match t {
        1 => AnnotationKind::Highlight,
        2 => AnnotationKind::Note,
        3 => AnnotationKind::Image,
        4 => AnnotationKind::Ink,
        5 => AnnotationKind::Underline,
        6 => AnnotationKind::Text,
        _ => return None,
    })
}

/// Page index and rectangles of a `position` JSON (`rects`, or the bounding box of each ink
/// path).
fn position(json: &str) -> Option<(u32, Vec<[f32; 4]>)> {
    let v: serde_json::Value = serde_json::from_str(json).ok()?;
    let page = v.get("pageIndex")?.as_u64()? as u32;
    let num = |x: &serde_json::Value| x.as_f64().map(|f| f as f32);
    let mut rects = Vec::new();
    if let Some(rs) = v.get("rects").and_then(|r| r.as_array()) {
        for r in rs {
            if let Some(a) = r.as_array()
                && a.len() == 4
                && let (Some(x0), Some(y0), Some(x1), Some(y1)) =
                    (num(&a[0]), num(&a[1]), num(&a[2]), num(&a[3]))
            {
                rects.push([x0, y0, x1, y1]);
            }
        }
    }
    if let Some(paths) = v.get("paths").and_then(|p| p.as_array()) {
        for p in paths {
            let pts: Vec<f32> = p
                .as_array()
                .map(|a| a.iter().filter_map(num).collect())
                .unwrap_or_default();
            let xs = pts.iter().step_by(2);
            let ys = pts.iter().skip(1).step_by(2);
            let (x0, x1) = xs.fold((f32::MAX, f32::MIN), |(a, b), &x| (a.min(x), b.max(x)));
            let (y0, y1) = ys.fold((f32::MAX, f32::MIN), |(a, b), &y| (a.min(y), b.max(y)));
            if x0 <= x1 && y0 <= y1 {
                rects.push([x0, y0, x1, y1]);
            }
        }
    }
    Some((page + 1, rects))
}

/// Why an attachment is not a paper.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Skip {
    /// No file there (not downloaded, moved): not worth a warning.
    Missing,
    BadName,
    Outside,
    NoBase,
}

/// Where an attachment's file is: its vault path and its real place on disk. The one rule for
/// a file of the library: a stored file (`storage:`) must resolve, links followed, inside the
/// library's `storage/` (what [`paths::resolve`] accepts); a linked file relative to the base
/// folder (`attachments:`) must resolve inside that folder; an absolute linked path is
/// allowed, as in Zotero.
fn attachment_place(
    root: &Path,
    base: Option<&Path>,
    key: &str,
    link_mode: i64,
    path: &str,
) -> Result<(VaultRel, PathBuf), Skip> {
    match link_mode {
        0 | 1 => {
            let name = path.strip_prefix("storage:").ok_or(Skip::BadName)?;
            let rel = VaultRel::of(&["storage", key, name]).map_err(|_| Skip::BadName)?;
            let real = match paths::resolve(root, &rel.to_string()) {
                Ok(r) => r,
                Err(paths::Refusal::NotFound | paths::Refusal::Unreadable) => {
                    return Err(Skip::Missing);
                }
                Err(_) => return Err(Skip::Outside),
            };
            if real.is_dir || !real.abs.starts_with(root.join("storage")) {
                return Err(Skip::Outside);
            }
            Ok((rel, real.abs))
        }
        2 => {
            let abs = match path.strip_prefix("attachments:") {
                Some(r) => {
                    let base = base.ok_or(Skip::NoBase)?;
                    let base = base.canonicalize().map_err(|_| Skip::Missing)?;
                    let parts: Vec<&str> = r
                        .split(['/', '\\'])
                        .filter(|p| !p.is_empty() && *p != ".")
                        .collect();
                    if parts.iter().any(|p| *p == ".." || p.contains('\0')) || parts.is_empty() {
                        return Err(Skip::Outside);
                    }
                    let real = parts
                        .iter()
                        .fold(base.clone(), |p, c| p.join(c))
                        .canonicalize()
                        .map_err(|_| Skip::Missing)?;
                    if !real.starts_with(&base) {
                        return Err(Skip::Outside);
                    }
                    real
                }
                None if Path::new(path).is_absolute() && !path.contains('\0') => {
                    Path::new(path).canonicalize().map_err(|_| Skip::Missing)?
                }
                None => return Err(Skip::BadName),
            };
            if !abs.is_file() {
                return Err(Skip::Missing);
            }
            let name = segment(
                &abs.file_name().unwrap_or_default().to_string_lossy(),
                "file.pdf",
            );
            let rel = VaultRel::of(&["linked", key])
                .and_then(|r| r.join(name))
                .map_err(|_| Skip::BadName)?;
            Ok((rel, abs))
        }
        _ => Err(Skip::Missing),
    }
}

/// Builds the library from its rows.
pub fn build(
    rows: &Rows,
    root: &Path,
    base: Option<&Path>,
    bbt: &HashMap<(i64, String), String>,
) -> Library {
    let mut lib = Library {
        skipped: Skipped {
            bad_keys: rows.bad_keys,
            ..Skipped::default()
        },
        ..Library::default()
    };
    let live = |id: &i64| !rows.deleted.contains(id);
    // Attachment id → paper path, and item id → its papers.
    let mut paper_of_attachment: HashMap<i64, String> = HashMap::new();
    let mut papers_of_item: HashMap<i64, Vec<String>> = HashMap::new();
    for a in &rows.attachments {
        let Some(att) = rows.items.get(&a.id).filter(|_| live(&a.id)) else {
            continue;
        };
        let pdf =
            a.content_type == "application/pdf" || a.path.to_ascii_lowercase().ends_with(".pdf");
        if !pdf {
            continue;
        }
        let owner = match a.parent {
            Some(p) => match rows.items.get(&p) {
                Some(item) if live(&p) && is_regular(&item.type_name) => item,
                _ => continue,
            },
            None => att,
        };
        let (rel, abs) = match attachment_place(root, base, &att.key, a.link_mode, &a.path) {
            Ok((rel, abs)) => (rel.to_string(), abs),
            Err(why) => {
                let n = match why {
                    Skip::Missing => continue,
                    Skip::BadName => &mut lib.skipped.bad_names,
                    Skip::Outside => &mut lib.skipped.outside,
                    Skip::NoBase => &mut lib.skipped.no_base,
                };
                *n += 1;
                tracing::warn!(key = %att.key, reason = ?why, "a Zotero attachment is not a paper");
                continue;
            }
        };
        let (date, year) = field(owner, &["date"]).map_or((None, None), split_date);
        let citation_key = field(owner, &["citationKey"])
            .map(str::to_string)
            .or_else(|| bbt.get(&(owner.library, owner.key.clone())).cloned())
            .or_else(|| field(owner, &["extra"]).and_then(key_in_extra));
        let title = field(owner, &["title"])
            .map(str::to_string)
            .unwrap_or_else(|| crate::vault::meta::file_title(&rel));
        lib.papers.insert(
            rel.clone(),
            ZoteroItem {
                key: owner.key.clone(),
                attachment_key: att.key.clone(),
                library_id: owner.library,
                item_type: owner.type_name.clone(),
                title,
                creators: owner.creators.clone(),
                date,
                year,
                doi: doi_of(owner),
                abstract_text: field(owner, &["abstractNote"]).map(str::to_string),
                publication: publication_of(owner),
                arxiv: arxiv_of(owner),
                citation_key,
                paper: rel.clone(),
                abs,
            },
        );
        paper_of_attachment.insert(a.id, rel.clone());
        papers_of_item.entry(owner.id).or_default().push(rel);
    }
    collections(rows, &papers_of_item, &mut lib);
    notes(rows, &lib.papers.clone(), &papers_of_item, &mut lib);
    for a in &rows.annotations {
        let (Some(paper), Some(kind)) =
            (paper_of_attachment.get(&a.parent), annotation_kind(a.kind))
        else {
            continue;
        };
        let Some(item) = rows.items.get(&a.id).filter(|_| live(&a.id)) else {
            continue;
        };
        let Some((page, rects)) = position(&a.position) else {
            continue;
        };
        let nonempty = |s: &Option<String>| {
            s.as_ref()
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
        };
        lib.annotations
            .entry(paper.clone())
            .or_default()
            .push(Annotation {
                paper: paper.clone(),
                page,
                page_label: nonempty(&a.page_label).filter(|l| *l != page.to_string()),
                kind,
                text: nonempty(&a.text),
                comment: nonempty(&a.comment),
                color: nonempty(&a.color),
                rects,
                origin: AnnotationOrigin::Zotero {
                    key: item.key.clone(),
                },
                created: (!item.date_added.is_empty()).then(|| item.date_added.clone()),
            });
    }
    let order: HashMap<String, &str> = rows
        .annotations
        .iter()
        .filter_map(|a| Some((rows.items.get(&a.id)?.key.clone(), a.sort_index.as_str())))
        .collect();
    for list in lib.annotations.values_mut() {
        list.sort_by(|a, b| {
            let k = |x: &Annotation| match &x.origin {
                AnnotationOrigin::Zotero { key } => order.get(key).copied().unwrap_or(""),
                AnnotationOrigin::Agentero { .. } => "",
            };
            (a.page, k(a)).cmp(&(b.page, k(b)))
        });
    }
    lib
}

/// Collection folders with the papers directly in them (trashed collections left out).
fn collections(rows: &Rows, papers_of_item: &HashMap<i64, Vec<String>>, lib: &mut Library) {
    let by_id: HashMap<i64, &super::read::CollectionRow> =
        rows.collections.iter().map(|c| (c.id, c)).collect();
    // Sibling names made unique in id order, so a name keeps its folder across runs.
    let mut sorted: Vec<_> = rows.collections.iter().collect();
    sorted.sort_by_key(|c| c.id);
    let mut seg: HashMap<i64, String> = HashMap::new();
    let mut taken: HashMap<(Option<i64>, String), usize> = HashMap::new();
    for c in &sorted {
        let base = segment(&c.name, "untitled");
        let n = taken
            .entry((c.parent, base.as_str().to_lowercase()))
            .or_insert(0);
        *n += 1;
        seg.insert(
            c.id,
            if *n == 1 {
                base.to_string()
            } else {
                format!("{base} ({n})")
            },
        );
    }
    let mut path_of: HashMap<i64, String> = HashMap::new();
    for c in &sorted {
        let mut parts = Vec::new();
        let mut here = Some(c.id);
        let mut ok = true;
        while let Some(id) = here {
            if parts.len() > 64 {
                ok = false;
                break;
            }
            let Some(row) = by_id.get(&id) else {
                ok = false; // the parent is trashed: so is this one
                break;
            };
            parts.push(seg[&id].clone());
            here = row.parent;
        }
        if ok {
            parts.push("collections".into());
            parts.reverse();
            let names: Vec<&str> = parts.iter().map(String::as_str).collect();
            match VaultRel::of(&names) {
                Ok(rel) => {
                    path_of.insert(c.id, rel.to_string());
                }
                Err(e) => {
                    tracing::warn!(collection = c.id, error = %e, "a Zotero collection is left out");
                    lib.skipped.bad_names += 1;
                }
            }
        }
    }
    for p in path_of.values() {
        lib.collections.entry(p.clone()).or_default();
    }
    for (cid, iid) in &rows.collection_items {
        if let (Some(p), Some(papers)) = (path_of.get(cid), papers_of_item.get(iid)) {
            let list = lib.collections.entry(p.clone()).or_default();
            list.extend(papers.iter().cloned());
        }
    }
    for list in lib.collections.values_mut() {
        list.sort();
        list.dedup();
    }
}

/// Standalone and child notes as text files.
fn notes(
    rows: &Rows,
    papers: &BTreeMap<String, ZoteroItem>,
    papers_of_item: &HashMap<i64, Vec<String>>,
    lib: &mut Library,
) {
    for n in &rows.notes {
        let Some(item) = rows.items.get(&n.id) else {
            continue;
        };
        if rows.deleted.contains(&n.id) || n.parent.is_some_and(|p| rows.deleted.contains(&p)) {
            continue;
        }
        let body = note_text(&n.html);
        let title = if n.title.trim().is_empty() {
            body.lines().next().unwrap_or("").to_string()
        } else {
            n.title.clone()
        };
        let mut text = String::new();
        if let Some(paper) = n.parent.and_then(|p| papers_of_item.get(&p)?.first()) {
            let t = papers.get(paper).map_or("", |i| i.title.as_str());
            text.push_str(&format!("Note on {t} — {paper}\n\n"));
        }
        text.push_str(&body);
        text.push('\n');
        let name = format!("{} {}.md", segment(&title, "note"), item.key);
        match Segment::new(&name).and_then(|n| VaultRel::of(&["notes"])?.join(n)) {
            Ok(rel) => {
                lib.notes.insert(rel.to_string(), text);
            }
            Err(e) => {
                tracing::warn!(key = %item.key, error = %e, "a Zotero note is left out");
                lib.skipped.bad_names += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests;
