//! `context_read`: metadata (default), excerpt, section, page, region and full reads of a granted
//! source, each cut at the call's and the turn's budget with `truncated` and `next` (the
//! arguments that continue where the text stopped). A directory returns one level of names.

use serde::Deserialize;
use serde_json::{Map, Value, json};

mod annotations;

use super::access::Target;
use super::{
    Ctx, PaperData, ToolError, ToolOutput, VaultReader, byte_of_char, floor_boundary, parse_args,
};
use crate::context::{mention, quote};
use crate::vault::pdf::PageText;
use crate::vault::scan::EntryKind;
use crate::vault::{textfile, uri};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(super) enum Mode {
    Metadata,
    Excerpt,
    Section,
    Page,
    Region,
    Full,
    /// Pages `page..=endPage` (the vault MCP's `paper_read`; not a `context_read` mode).
    Pages,
    /// The paper's highlights and annotations (see `read_annotations.rs`).
    Annotations,
}

impl Mode {
    fn as_str(self) -> &'static str {
        match self {
            Mode::Metadata => "metadata",
            Mode::Excerpt => "excerpt",
            Mode::Section => "section",
            Mode::Page => "page",
            Mode::Region => "region",
            Mode::Full => "full",
            Mode::Pages => "pages",
            Mode::Annotations => "annotations",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct Args {
    pub path: String,
    #[serde(default)]
    pub mode: Option<Mode>,
    #[serde(default)]
    quote: Option<String>,
    /// One type (a string) so every client's function-calling subset accepts the schema; a
    /// bare number is taken as its string (models send `2` for "2").
    #[serde(default, deserialize_with = "string_or_number")]
    section: Option<String>,
    #[serde(default)]
    page: Option<u32>,
    /// The last page of `pages` mode (vault MCP only).
    #[serde(default)]
    end_page: Option<u32>,
    #[serde(default)]
    start: Option<u64>,
    #[serde(default)]
    end: Option<u64>,
    #[serde(default)]
    pub max_chars: Option<u64>,
}

fn string_or_number<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(_) => {
            return Err(serde::de::Error::custom(
                "`section` is a string: a section title or number such as \"2.1\"",
            ));
        }
    })
}

/// Text read from a source, before rendering (`text` absent for metadata and listings).
struct Piece {
    text: Option<String>,
    truncated: bool,
    next: Option<Value>,
    page: Option<u32>,
    lines: Option<[u32; 2]>,
    citation_uri: Option<String>,
    extra: Map<String, Value>,
}

impl Piece {
    /// A piece without text: its data is all in `extra`.
    fn data(citation_uri: Option<String>) -> Piece {
        Piece {
            text: None,
            truncated: false,
            next: None,
            page: None,
            lines: None,
            citation_uri,
            extra: Map::new(),
        }
    }

    fn new(text: String, citation_uri: Option<String>) -> Piece {
        Piece {
            text: Some(text),
            truncated: false,
            next: None,
            page: None,
            lines: None,
            citation_uri,
            extra: Map::new(),
        }
    }
}

/// The longest `quote` (excerpt mode) or `section` accepted: locating a passage needs a
/// distinctive sentence, and the search for it grows with its length.
pub const MAX_QUOTE_CHARS: usize = 2000;

/// The smallest `maxChars`: a smaller value is raised to it. Below a few hundred characters a
/// result is mostly its envelope, and every continuation must still move forward.
pub const MIN_MAX_CHARS: usize = 200;

pub(super) fn run(s: &VaultReader, ctx: &Ctx, args: Value) -> Result<ToolOutput, ToolError> {
    let a: Args = parse_args(args)?;
    if a.mode == Some(Mode::Pages) || a.end_page.is_some() {
        return Err(ToolError::bad_args(
            "invalid arguments: context_read has no `pages` mode or `endPage`; use `full` from a `page`",
        ));
    }
    read(s, ctx, a, "context_read", &|_| Ok(()))
}

/// Reads the source `a.path` names, after `accept` agreed to its kind; `tool` names the tool
/// that continues a cut read.
pub(super) fn read(
    s: &VaultReader,
    ctx: &Ctx,
    a: Args,
    tool: &str,
    accept: &dyn Fn(&Target) -> Result<(), ToolError>,
) -> Result<ToolOutput, ToolError> {
    let section_len = a.section.as_deref().map_or(0, |t| t.chars().count());
    if a.quote
        .as_deref()
        .map_or(0, |q| q.chars().count())
        .max(section_len)
        > MAX_QUOTE_CHARS
    {
        return Err(ToolError::bad_args(format!(
            "`quote` and `section` take at most {MAX_QUOTE_CHARS} characters; quote a shorter, distinctive passage"
        )));
    }
    let target = s.authorize(ctx, &a.path)?;
    accept(&target)?;
    let mode = a.mode.unwrap_or(match (target.page, target.lines) {
        (Some(_), _) => Mode::Page,
        (None, Some(_)) => Mode::Region,
        _ => Mode::Metadata,
    });
    let per_call = a.max_chars.map_or(ctx.budget.read_chars, |m| {
        (m as usize).max(MIN_MAX_CHARS).min(ctx.budget.read_chars)
    });
    // The continuation carries the cap actually applied (a `maxChars` below the floor is
    // raised to it).
    let a = Args {
        max_chars: a.max_chars.map(|m| m.max(MIN_MAX_CHARS as u64)),
        ..a
    };
    // The call's cap is on the text read; the whole result (the JSON the model receives,
    // envelope and escaping included) must fit what is left of the turn's budget, so the text
    // is cut further when it would not.
    let mut limit = per_call.min(ctx.remaining);
    for _ in 0..8 {
        if limit == 0 {
            break;
        }
        let out = read_once(s, ctx, &a, &target, mode, limit, tool)?;
        let chars = out.chars();
        if chars <= ctx.remaining {
            return Ok(out);
        }
        limit = limit.saturating_sub((chars - ctx.remaining).max(limit / 8).max(16));
    }
    Err(ctx.budget_exhausted())
}

fn read_once(
    s: &VaultReader,
    ctx: &Ctx,
    a: &Args,
    target: &Target,
    mode: Mode,
    limit: usize,
    tool: &str,
) -> Result<ToolOutput, ToolError> {
    let (title, piece) = match target.kind {
        EntryKind::Directory => (
            target.rel.clone(),
            directory(target, a.start.unwrap_or(0) as usize, limit)?,
        ),
        EntryKind::Paper if mode == Mode::Annotations => {
            let paper = s.paper(&ctx.vault, target)?;
            let title = paper.record.meta.title.clone();
            (
                title,
                annotations::piece(&ctx.vault, target, a.page, a.start, limit),
            )
        }
        EntryKind::Paper => {
            let paper = s.paper(&ctx.vault, target)?;
            let title = paper.record.meta.title.clone();
            (title, read_paper(target, &paper, mode, a, limit)?)
        }
        EntryKind::File => {
            let text = s.read_text(target)?;
            (
                textfile::title(&target.rel, &text),
                read_file(target, &text, mode, a, limit)?,
            )
        }
    };
    let mut piece = piece;
    // The continuation keeps the caller's own cap.
    if let (Some(m), Some(Value::Object(next))) = (a.max_chars, piece.next.as_mut()) {
        next.insert("maxChars".into(), json!(m));
    }
    Ok(render(target, mode, &title, piece, tool))
}

fn render(t: &Target, mode: Mode, title: &str, p: Piece, tool: &str) -> ToolOutput {
    let mut v = Map::new();
    v.insert("path".into(), json!(t.rel));
    v.insert("kind".into(), json!(t.kind.as_str()));
    let shown_mode = if t.kind == EntryKind::Directory {
        "metadata"
    } else {
        mode.as_str()
    };
    v.insert("mode".into(), json!(shown_mode));
    v.insert("title".into(), json!(title));
    if let Some(page) = p.page {
        v.insert("page".into(), json!(page));
    }
    if let Some(lines) = p.lines {
        v.insert("lines".into(), json!(lines));
    }
    if let Some(text) = p.text {
        v.insert("text".into(), json!(text));
    }
    for (k, val) in p.extra {
        v.insert(k, val);
    }
    if let Some(u) = &p.citation_uri {
        v.insert("citationUri".into(), json!(u));
    }
    v.insert("truncated".into(), json!(p.truncated));
    if let Some(n) = &p.next {
        v.insert("next".into(), n.clone());
        v.insert(
            "note".into(),
            json!(format!(
                "cut at the budget; continue with {tool} {}",
                serde_json::to_string(n).unwrap_or_default()
            )),
        );
    } else if p.truncated {
        v.insert("note".into(), json!("cut at the budget"));
    }
    ToolOutput::new(Value::Object(v), p.citation_uri.into_iter().collect())
}

/// Values from `items[from..]` while their JSON fits `room` characters; the index to continue
/// from when some were left out. The first value is always taken, so a continuation moves on
/// (a result that is then too large for the budget is refused as a whole, never repeated).
fn fit(items: Vec<Value>, from: usize, room: usize) -> (Vec<Value>, Option<usize>) {
    let mut used = 0usize;
    let mut out = Vec::new();
    for (i, v) in items.into_iter().enumerate().skip(from) {
        let n = serde_json::to_string(&v).map_or(0, |t| t.chars().count()) + 1;
        if used + n > room && !out.is_empty() {
            return (out, Some(i));
        }
        used += n;
        out.push(v);
    }
    (out, None)
}

fn directory(t: &Target, from: usize, limit: usize) -> Result<Piece, ToolError> {
    let listing = mention::listing(&t.abs)
        .map_err(|_| ToolError::new("unreadable", "the directory cannot be listed"))?;
    let all: Vec<Value> = listing
        .iter()
        .map(|e| json!({"name": e.name, "kind": e.kind.as_str(), "path": format!("{}/{}", t.rel, e.name)}))
        .collect();
    let total = all.len();
    let (entries, more) = fit(all, from, limit.saturating_sub(200));
    let mut p = Piece::data(None);
    p.extra.insert("entryCount".into(), json!(total));
    p.extra.insert("entries".into(), Value::Array(entries));
    p.extra.insert(
        "hint".into(),
        json!("name a paper or file inside this directory to read it"),
    );
    if let Some(k) = more {
        p.truncated = true;
        p.next = Some(json!({"path": t.rel, "start": k}));
    }
    Ok(p)
}

/// Up to `limit` characters of `text` from character `from`; the continuation char if cut.
fn take(text: &str, from: usize, limit: usize) -> (String, Option<usize>) {
    let start = byte_of_char(text, from);
    let rest = &text[start..];
    let cut = byte_of_char(rest, limit);
    let taken = rest[..cut].to_string();
    let more = cut < rest.len();
    (taken, more.then_some(from + limit))
}

fn page_of(paper: &PaperData, n: Option<u32>) -> Result<&PageText, ToolError> {
    let n = n.ok_or_else(|| ToolError::bad_args("`page` is required for this mode"))?;
    paper.pages.iter().find(|p| p.number == n).ok_or_else(|| {
        ToolError::bad_args(format!(
            "page {n} does not exist; the paper has {} pages",
            paper.pages.len()
        ))
    })
}

fn no_text(s: &str) -> String {
    if s.trim().is_empty() {
        "(no text layer on this page)".to_string()
    } else {
        s.to_string()
    }
}

fn read_paper(
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
        Mode::Metadata => {
            let m = &paper.record.meta;
            // `start` continues the section list of an earlier call (the rest is repeated
            // only on the first one).
            let from = a.start.unwrap_or(0) as usize;
            let mut p = Piece::data(Some(uri::page_uri(rel, 1)));
            let mut room = limit.saturating_sub(400 + rel.len() * 2);
            if from == 0 {
                p.extra.insert("authors".into(), json!(m.authors));
                p.extra.insert("year".into(), json!(m.year));
                p.extra.insert("doi".into(), json!(m.doi));
                p.extra.insert("arxiv".into(), json!(m.arxiv));
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
            Ok(p)
        }
        Mode::Page => {
            let page = page_of(paper, page_arg)?;
            let from = a.start.unwrap_or(0) as usize;
            let (text, more) = take(&page.text, from, limit);
            let mut p = Piece::new(no_text(&text), Some(uri::page_uri(rel, page.number)));
            p.page = Some(page.number);
            if let Some(next) = more {
                p.truncated = true;
                // Still `page` mode, so that the page's end leads on to the next page.
                p.next =
                    Some(json!({"path": rel, "mode": "page", "page": page.number, "start": next}));
            }
            Ok(p)
        }
        Mode::Region => {
            let page = page_of(paper, page_arg)?;
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
        Mode::Full | Mode::Pages => {
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
            let mut from = a.start.unwrap_or(0) as usize;
            let mut text = String::new();
            let mut used = 0usize;
            let mut next = None;
            for page in paper
                .pages
                .iter()
                .filter(|p| p.number >= first && p.number <= last)
            {
                let marker = format!("[page {}]\n", page.number);
                // Room for the marker, one character of text and the closing newline; the
                // first page always gives at least one character, so `next` moves on.
                if !text.is_empty() && used + marker.len() + 2 > limit {
                    next = Some((page.number, from));
                    break;
                }
                text.push_str(&marker);
                used += marker.len();
                let (chunk, more) = take(&page.text, from, limit.saturating_sub(used + 1).max(1));
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
                p.next = Some(next);
            }
            Ok(p)
        }
        Mode::Excerpt => {
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
        Mode::Section => {
            let wanted = match &a.section {
                Some(s) if !s.trim().is_empty() => s.trim().to_string(),
                _ => {
                    return Err(ToolError::bad_args(
                        "`section` (a title or number) is required for section mode",
                    ));
                }
            };
            let sections = &paper.record.sections;
            let norm = |s: &str| quote::reduce(s).text;
            let key = norm(&wanted);
            let pos = sections
                .iter()
                .position(|s| s.number.as_deref().map(|n| n.trim_end_matches('.')) == Some(wanted.trim_end_matches('.')))
                .or_else(|| sections.iter().position(|s| norm(&s.title) == key))
                .or_else(|| sections.iter().position(|s| !key.is_empty() && norm(&s.title).contains(&key)))
                .ok_or_else(|| {
                    ToolError::new(
                        "section_not_found",
                        format!("no section {wanted:?}; read the metadata for the list of sections ({} known)", sections.len()),
                    )
                })?;
            let sec = &sections[pos];
            let next_sec = sections.get(pos + 1);
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
            let body = &joined[begin..end.max(begin)];
            let from = a.start.unwrap_or(0) as usize;
            let (text, more) = take(body, from, limit);
            let mut p = Piece::new(text, Some(uri::page_uri(rel, sec.page)));
            p.page = Some(sec.page);
            p.extra.insert(
                "section".into(),
                json!({"number": sec.number, "title": sec.title, "page": sec.page}),
            );
            if let Some(c) = more {
                p.truncated = true;
                p.next =
                    Some(json!({"path": rel, "mode": "section", "section": wanted, "start": c}));
            }
            Ok(p)
        }
    }
}

/// The byte span around `found` within `lo..hi`, at most `limit` characters, the match
/// centred; and whether the match itself had to be cut.
fn window(
    text: &str,
    lo: usize,
    hi: usize,
    found: std::ops::Range<usize>,
    limit: usize,
) -> (usize, usize, bool) {
    let match_chars = text[found.clone()].chars().count();
    if match_chars >= limit {
        let end = found.start + byte_of_char(&text[found.start..], limit);
        return (found.start, end, true);
    }
    let pad = ((limit - match_chars) / 2).min(800);
    let mut start = found.start;
    for _ in 0..pad {
        if start <= lo {
            break;
        }
        start = floor_boundary(text, start - 1);
    }
    let room = limit - match_chars - text[start..found.start].chars().count();
    let after = &text[found.end..hi.max(found.end)];
    let end = found.end + byte_of_char(after, room.min(pad.max(room / 2)));
    (start, end, false)
}

fn read_file(
    t: &Target,
    text: &str,
    mode: Mode,
    a: &Args,
    limit: usize,
) -> Result<Piece, ToolError> {
    let rel = &t.rel;
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len().max(1) as u32;
    // Lines `from..=to` (1-based), cut at the limit; the next line to read when cut, and the
    // line that had to be cut itself (longer than the limit) when one was.
    let take_lines = |from: u32, to: u32| -> (String, u32, Option<u32>, Option<u32>) {
        let mut out = String::new();
        let mut last = from.saturating_sub(1);
        for n in from..=to.min(total) {
            let line = lines.get(n as usize - 1).copied().unwrap_or("");
            if out.chars().count() + line.chars().count() + 1 > limit {
                if out.is_empty() {
                    let (part, _) = take(line, 0, limit);
                    out.push_str(&part);
                    return (out, n, (n < to.min(total)).then_some(n + 1), Some(n));
                }
                return (out, last, Some(n), None);
            }
            out.push_str(line);
            out.push('\n');
            last = n;
        }
        (out, last, None, None)
    };
    match mode {
        Mode::Metadata => {
            let mut p = Piece::data(Some(uri::encode_path(rel)));
            p.extra.insert("lineCount".into(), json!(total));
            p.extra.insert("size".into(), json!(text.len()));
            Ok(p)
        }
        Mode::Page | Mode::Pages => Err(ToolError::bad_args(
            "page modes read papers; for a file use region with line numbers (start, end) or full",
        )),
        Mode::Section | Mode::Annotations => Err(ToolError::bad_args(format!(
            "{} mode reads papers; for a file use excerpt, region or full",
            mode.as_str()
        ))),
        Mode::Region | Mode::Full => {
            if let Some(s) = a.start.filter(|&s| s > total as u64) {
                return Err(ToolError::bad_args(format!(
                    "line {s} does not exist; the file has {total} lines"
                )));
            }
            let (from, to) = match mode {
                Mode::Region => {
                    let from = a
                        .start
                        .map(|s| s as u32)
                        .or(t.lines.map(|l| l.0))
                        .unwrap_or(1)
                        .max(1);
                    let to = a
                        .end
                        .map(|e| e.min(u32::MAX as u64) as u32)
                        .or(t.lines.map(|l| l.1))
                        .unwrap_or(total);
                    (from, to)
                }
                _ => (a.start.map(|s| s as u32).unwrap_or(1).max(1), total),
            };
            if from > total {
                return Err(ToolError::bad_args(format!(
                    "line {from} does not exist; the file has {total} lines"
                )));
            }
            if to < from {
                return Err(ToolError::bad_args("`end` is before `start`"));
            }
            let (body, last, next, cut) = take_lines(from, to);
            let mut p = Piece::new(body, Some(uri::lines_uri(rel, from, last.max(from))));
            p.lines = Some([from, last.max(from)]);
            // Never silently: the rest of that line is not in any continuation.
            if let Some(n) = cut {
                p.truncated = true;
                p.extra.insert(
                    "lineCut".into(),
                    json!(format!(
                        "line {n} is longer than this call's cap of {limit} characters and was cut; read it with a larger maxChars"
                    )),
                );
            }
            if let Some(n) = next {
                p.truncated = true;
                let mut nx = json!({"path": rel, "mode": mode.as_str(), "start": n});
                if mode == Mode::Region {
                    nx["end"] = json!(to);
                }
                p.next = Some(nx);
            }
            Ok(p)
        }
        Mode::Excerpt => {
            let q = a.quote.as_deref().map(str::trim).filter(|q| !q.is_empty());
            let q = q.ok_or_else(|| ToolError::bad_args("`quote` is required for excerpt mode"))?;
            let found = quote::find(text, q).ok_or_else(|| {
                ToolError::new(
                    "quote_not_found",
                    "the quote was not found in this file; check the wording or search for it",
                )
            })?;
            let (ws, we, cut) = window(text, 0, text.len(), found.range.clone(), limit);
            let w = text[ws..we].to_string();
            // Cite the lines the returned text touches.
            let first = text[..ws].matches('\n').count() as u32 + 1;
            let last = first + w.trim_end_matches('\n').matches('\n').count() as u32;
            let mut p = Piece::new(w, Some(uri::lines_uri(rel, first, last)));
            p.lines = Some([first, last]);
            p.truncated = cut;
            p.extra.insert(
                "match".into(),
                json!(if found.exact { "exact" } else { "approximate" }),
            );
            Ok(p)
        }
    }
}
