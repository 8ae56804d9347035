//! `context_read`: metadata (default), excerpt, section, page, region and full reads of a granted
//! source, each cut at the call's and the turn's budget with `truncated` and `next` (the
//! arguments that continue where the text stopped). A directory returns one level of names.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Map, Value, json};

mod annotations;
mod file;
mod paper;

use super::access::Target;
use super::fit::fit;
use super::{
    Ctx, MAX_PATH_CHARS, ToolError, ToolOutput, VaultReader, byte_of_char, floor_boundary,
    parse_args,
};
use crate::context::mention;
use crate::vault::scan::EntryKind;
use crate::vault::textfile;

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::EnumIter,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub(super) enum Mode {
    Metadata,
    Excerpt,
    Section,
    Page,
    Region,
    Full,
    // Pages `page..=endPage` (the vault MCP's `paper_read`; not a `context_read` mode).
    Pages,
    // The paper's highlights and annotations (see `read/annotations.rs`).
    Annotations,
}

impl Mode {
    pub(super) fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The modes `context_read` reads: all but `pages`.
const CONTEXT_MODES: [Mode; 7] = [
    Mode::Metadata,
    Mode::Excerpt,
    Mode::Section,
    Mode::Page,
    Mode::Region,
    Mode::Full,
    Mode::Annotations,
];

/// A transform of a `mode` argument's schema that lists only `modes`: for a tool that parses
/// every [`Mode`] and refuses the others with a pointer to what to use instead.
pub(super) fn only_modes(modes: &'static [Mode]) -> impl Fn(&mut schemars::Schema) {
    move |schema| {
        if let Some(Value::Array(values)) = schema.get_mut("enum") {
            values.retain(|v| {
                v.as_str()
                    .is_none_or(|v| modes.iter().any(|m| m.as_str() == v))
            });
        }
    }
}

/// `context_read`'s arguments (they are its input schema too, see [`super::spec`]), and what
/// every read runs: `paper_read`'s and `file_read`'s arguments become these.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub(super) struct Args {
    /// A granted vault path or a citation URI pointing into the vault.
    #[schemars(length(max = MAX_PATH_CHARS))]
    pub path: String,
    /// What to read (default metadata).
    #[serde(default)]
    #[schemars(transform = only_modes(&CONTEXT_MODES))]
    pub mode: Option<Mode>,
    /// excerpt: the passage to locate (at least a few words).
    #[serde(default)]
    #[schemars(length(max = MAX_QUOTE_CHARS))]
    pub quote: Option<String>,
    /// section: the section's title or number, e.g. "2.1" or "Method".
    // One type (a string) so every client's function-calling subset accepts the schema; a
    // bare number is taken as its string (models send `2` for "2").
    #[serde(default, deserialize_with = "string_or_number")]
    #[schemars(length(max = MAX_QUOTE_CHARS))]
    pub section: Option<String>,
    /// page/region: the 1-based physical page; full: the page to start from; annotations: only
    /// this page's.
    #[serde(default)]
    pub page: Option<u32>,
    // The last page of `pages` mode (`paper_read`'s); `context_read` parses it to refuse it
    // with a pointer to `full`, and its schema leaves it out.
    #[serde(default)]
    #[schemars(skip)]
    pub end_page: Option<u32>,
    /// region: first character of the page (0-based) or first line of a file (1-based);
    /// page/full/section/metadata/directory listings: where to continue (from `next`).
    #[serde(default)]
    pub start: Option<u64>,
    /// region: end character of the page (exclusive) or last line of a file (inclusive).
    #[serde(default)]
    pub end: Option<u64>,
    /// Return at most this many characters (capped by the budget's read_chars; a value below
    /// 200 is raised to 200).
    #[serde(default)]
    pub max_chars: Option<u64>,
    /// page/full: false leaves out the pages' furniture — running headers and footers, page
    /// numbers — which is never evidence (default true: the page as printed).
    #[serde(default)]
    pub furniture: Option<bool>,
}

pub(super) fn string_or_number<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<String>, D::Error> {
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
    check_lengths(&a)?;
    let target = s.authorize(ctx, &a.path)?;
    accept(&target)?;
    let mode = a.mode.unwrap_or(default_mode(&target));
    let per_call = a.max_chars.map_or(ctx.budget.read_chars, |m| {
        (m as usize).max(MIN_MAX_CHARS).min(ctx.budget.read_chars)
    });
    // The continuation carries the cap actually applied (a `maxChars` below the floor is
    // raised to it).
    let a = Args {
        max_chars: a.max_chars.map(|m| m.max(MIN_MAX_CHARS as u64)),
        ..a
    };
    fit_to_budget(ctx, per_call, |limit| {
        read_once(s, ctx, &a, &target, mode, limit, tool)
    })
}

/// `quote` and `section` within [`MAX_QUOTE_CHARS`].
fn check_lengths(a: &Args) -> Result<(), ToolError> {
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
    Ok(())
}

/// The mode of a read that names none: the page or lines its URI names, else the metadata.
fn default_mode(target: &Target) -> Mode {
    match (target.page, target.lines) {
        (Some(_), _) => Mode::Page,
        (None, Some(_)) => Mode::Region,
        _ => Mode::Metadata,
    }
}

/// The first `read_at(limit)` whose whole result fits what is left of the turn's budget, the
/// text limit starting at `per_call` and shrinking by at least an eighth each try (eight tries
/// at most). The call's cap is on the text read; the whole result (the JSON the model
/// receives, envelope and escaping included) must fit the budget, so the text is cut further
/// when it would not.
fn fit_to_budget(
    ctx: &Ctx,
    per_call: usize,
    read_at: impl Fn(usize) -> Result<ToolOutput, ToolError>,
) -> Result<ToolOutput, ToolError> {
    let mut limit = per_call.min(ctx.remaining);
    for _ in 0..8 {
        if limit == 0 {
            break;
        }
        let out = read_at(limit)?;
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
            (title, paper::read_paper(target, &paper, mode, a, limit)?)
        }
        EntryKind::File => {
            let text = s.read_text(target)?;
            (
                textfile::title(&target.rel, &text),
                file::read_file(target, &text, mode, a, limit)?,
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
