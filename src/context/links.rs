//! What a reader can follow from one page of a paper: the PDF's link annotations (to a page of
//! the paper, with what stands there, or to a URI) and the numbered citations of the page, each
//! resolved to its entry of the paper's reference list and, when the library holds the cited
//! paper, to that paper.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use regex::Regex;

use super::check::library::{Library as Matcher, Paper, Resolved};
use super::library::Library;
use crate::vault::links::{ReferenceList, citation_markers, reference_list};
use crate::vault::meta::PaperMeta;
use crate::vault::pdf::{self, Limits, LinkTarget, PageText};
use crate::vault::{Vault, refs};

/// How long reading one page's links may take.
const LIMIT: Duration = Duration::from_secs(20);
/// Pages whose layout is read to tell what a link's destination shows.
const MAX_TARGET_PAGES: usize = 8;
/// Characters of a destination's line kept.
const LABEL_CHARS: usize = 90;

/// The links of one page.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PageLinks {
    pub page: u32,
    pub items: Vec<Item>,
    /// What could not be read (the PDF's annotations), when something could not.
    pub note: Option<String>,
}

/// One thing to follow: the words it is anchored on and where it goes.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// The link's text on the page (`Figure 3`, `[12]`, a URL); empty when it has none.
    pub anchor: String,
    pub to: Target,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    /// A page of the paper, and the line its destination shows (a caption, a heading).
    Page {
        page: u32,
        label: Option<String>,
    },
    Uri(String),
    /// An entry of the reference list.
    Reference(Cited),
}

/// An entry of the paper's reference list.
#[derive(Debug, Clone, PartialEq)]
pub struct Cited {
    pub number: u32,
    /// Where the entry starts.
    pub page: u32,
    /// The entry on one line.
    pub text: String,
    /// Its words on its own page (what a jump there can highlight).
    pub on_page: String,
    /// The paper of the library it names: its path and title.
    pub paper: Option<(String, String)>,
}

/// The links of page `page` of the paper at `path`, whose page texts are `texts` (page 1
/// first): its link annotations read from the PDF (isolated from the parser), its numbered
/// citations resolved through the reference list, matched against the library's papers.
pub fn page_links(vault: &Vault, path: &str, page: u32, texts: &[String]) -> PageLinks {
    let pages: Vec<&str> = texts.iter().map(String::as_str).collect();
    let list = reference_list(&pages);
    let (annotations, note) = match read_pdf(vault, path, page) {
        Ok(read) => (read, None),
        Err(e) => (
            None,
            Some(format!("the PDF's links could not be read: {e}")),
        ),
    };
    let mut items = annotations
        .map(|(links, layouts)| annotation_items(&links, &layouts, page, &pages, &list))
        .unwrap_or_default();
    if let Some(text) = pages.get(page as usize - 1) {
        for m in citation_markers(text, page, &list) {
            for e in m.numbers.iter().filter_map(|n| list.get(*n)) {
                items.push(Item {
                    anchor: text[m.range.clone()].to_string(),
                    to: Target::Reference(cited(e)),
                });
            }
        }
    }
    dedup_references(&mut items);
    let matcher = matcher(vault);
    for item in &mut items {
        if let Target::Reference(c) = &mut item.to {
            c.paper = in_library(&matcher, &c.text, path);
        }
    }
    PageLinks { page, items, note }
}

/// A page's link annotations and the layouts of its page and of the pages they go to.
type Read = (Vec<pdf::Link>, HashMap<u32, PageText>);

fn read_pdf(vault: &Vault, path: &str, page: u32) -> Result<Option<Read>, String> {
    let file = vault.read_path(path).map_err(|e| e.to_string())?;
    let bytes = std::fs::read(&file).map_err(|e| e.to_string())?;
    crate::vault::extract::isolated(LIMIT, move || {
        let limits = Limits {
            deadline: Instant::now() + LIMIT,
        };
        let links = pdf::page_links(&bytes, page, limits).map_err(|e| e.to_string())?;
        if links.is_empty() {
            return Ok(None);
        }
        let mut wanted = vec![page];
        for l in &links {
            if let LinkTarget::Page {
                page: p,
                top: Some(_),
            } = l.target
                && !wanted.contains(&p)
                && wanted.len() <= MAX_TARGET_PAGES
            {
                wanted.push(p);
            }
        }
        let mut layouts = HashMap::new();
        for p in wanted {
            if let Ok(l) = pdf::page_layout(&bytes, p, limits) {
                layouts.insert(p, l);
            }
        }
        Ok(Some((links, layouts)))
    })
    .map_err(|e| e.to_string())?
}

/// What each link annotation of `page` is: a reference entry when it goes to one (a cited
/// number on the reference list's page), else a page with the line it shows, or a URI.
fn annotation_items(
    links: &[pdf::Link],
    layouts: &HashMap<u32, PageText>,
    page: u32,
    pages: &[&str],
    list: &ReferenceList,
) -> Vec<Item> {
    let Some(here) = layouts.get(&page) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for link in links {
        let mut anchor = here
            .text_in(link.rect)
            .map(|r| with_kind(&here.text, r))
            .unwrap_or_default();
        let to = match &link.target {
            LinkTarget::Uri(u) => Target::Uri(u.clone()),
            LinkTarget::Page { page: p, top } => {
                let entry = cited_number(&anchor)
                    .and_then(|n| list.get(n))
                    .filter(|e| e.page == *p);
                match entry {
                    Some(e) => {
                        // hyperref links the number of "[12]": shown as the marker.
                        anchor = format!("[{}]", e.number);
                        Target::Reference(cited(e))
                    }
                    None => Target::Page {
                        page: *p,
                        label: label(&anchor, pages.get(*p as usize - 1).copied())
                            .or_else(|| line_at(layouts.get(p)?, (*top)?)),
                    },
                }
            }
        };
        out.push(Item { anchor, to });
    }
    out
}

/// The words a cross-reference names the kind of its target by.
static KIND: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?:^|\s)((?:fig(?:ure)?s?|tab(?:le)?s?|eq(?:uation)?s?|sec(?:tion)?s?|§|alg(?:orithm)?s?|theorem|lemma|appendix|chapter|definition|listing)\.?\s*)$")
        .expect("valid regex")
});

/// A link's anchor, on one line, with the word before it when that names what it points to
/// (`Figure` before a linked `3`).
fn with_kind(text: &str, range: std::ops::Range<usize>) -> String {
    let anchor = one_line(&text[range.clone()]);
    if anchor.starts_with(|c: char| c.is_ascii_digit() || c == '(') {
        let mut from = range.start.saturating_sub(24);
        while !text.is_char_boundary(from) {
            from += 1;
        }
        if let Some(c) = KIND.captures(&text[from..range.start]) {
            return format!("{} {anchor}", one_line(&c[1]));
        }
    }
    anchor
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The number an anchor cites (`12`, `[12]`), if that is all it is.
fn cited_number(anchor: &str) -> Option<u32> {
    anchor
        .trim()
        .trim_start_matches('[')
        .trim_end_matches([']', ',', ';'])
        .parse()
        .ok()
}

/// The caption or numbered line a `Figure 3` / `Table 2` / `Eq. 4` anchor names on its
/// target page.
fn label(anchor: &str, target: Option<&str>) -> Option<String> {
    let (kind, number) = anchor.rsplit_once(' ')?;
    let spaced = format!(" {kind}");
    let c = KIND.captures(&spaced)?;
    let kind = c[1].trim().trim_end_matches('.').to_lowercase();
    let number = number.trim_matches(['(', ')', '.']);
    if !number.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let names = |line: &&str| {
        let l = line.trim_start().to_lowercase();
        l.starts_with(&kind[..kind.len().min(3)])
            && l.split_whitespace()
                .nth(1)
                .is_some_and(|w| w.trim_end_matches([':', '.']) == number)
    };
    let equation = format!("({number})");
    let line = match kind.starts_with("eq") {
        true => target?.lines().find(|l| l.trim_end().ends_with(&equation)),
        false => target?.lines().find(names),
    }?;
    Some(cut(&one_line(line)))
}

/// The line of `layout` at the height `top` (the first below it, nearest the left).
fn line_at(layout: &PageText, top: f32) -> Option<String> {
    let b = layout
        .boxes
        .iter()
        .filter(|b| b.rect()[3] <= top + 2.0)
        .max_by(|a, b| {
            let (ra, rb) = (a.rect(), b.rect());
            ra[3].total_cmp(&rb[3]).then(rb[0].total_cmp(&ra[0]))
        })?;
    let at = (b.at as usize).min(layout.text.len());
    let start = layout.text[..at].rfind('\n').map_or(0, |i| i + 1);
    let end = layout.text[at..]
        .find('\n')
        .map_or(layout.text.len(), |i| at + i);
    let line = one_line(&layout.text[start..end]);
    (!line.is_empty()).then(|| cut(&line))
}

fn cut(s: &str) -> String {
    match s.char_indices().nth(LABEL_CHARS) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

fn cited(e: &crate::vault::links::RefEntry) -> Cited {
    Cited {
        number: e.number,
        page: e.page,
        text: e.text.clone(),
        on_page: e.text[..e.on_page].to_string(),
        paper: None,
    }
}

/// Each reference once, where it is first named.
fn dedup_references(items: &mut Vec<Item>) {
    let mut seen = HashSet::new();
    items.retain(|i| match &i.to {
        Target::Reference(c) => seen.insert(c.number),
        _ => true,
    });
}

/// The library's papers by DOI, arXiv id and title, from its scan (cached on disk, brought up
/// to date here: the host's side), `None` when it cannot be had.
fn matcher(vault: &Vault) -> Option<Matcher> {
    let lib = super::library::ensure_cache(vault, &vault.catalog()).ok()?;
    Some(matcher_of(&lib))
}

fn matcher_of(lib: &Library) -> Matcher {
    let papers = lib
        .papers
        .iter()
        .map(|p| {
            let meta = PaperMeta {
                title: p.title.clone(),
                authors: p.authors.clone(),
                year: p.year,
                doi: p.doi.clone(),
                arxiv: p.arxiv.clone(),
                ..PaperMeta::default()
            };
            let paper = Paper {
                path: p.path.clone(),
                meta,
                key: p.path.clone(),
                record: None,
            };
            (None, paper)
        })
        .collect();
    Matcher::from_papers(papers)
}

/// The library's paper a reference entry names (not the citing paper itself).
fn in_library(matcher: &Option<Matcher>, entry: &str, citing: &str) -> Option<(String, String)> {
    let m = matcher.as_ref()?;
    let Resolved::Paper(i, _) = m.match_reference(&refs::parse_entry(entry)) else {
        return None;
    };
    let p = &m.papers[i];
    (p.path != citing).then(|| (p.path.clone(), p.meta.title.clone()))
}

#[cfg(test)]
mod tests;
