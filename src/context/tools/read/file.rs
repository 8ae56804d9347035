//! `context_read` (and the vault MCP's `file_read`) on a text file: metadata, lines (region
//! and full) and excerpt; the page and section modes are for papers.

use serde_json::json;

use super::{Args, Mode, Piece, Target, take, window};
use crate::context::quote;
use crate::context::tools::ToolError;
use crate::vault::uri;

/// The piece `mode` reads from the file's `text`, at most `limit` characters of it.
pub(super) fn read_file(
    t: &Target,
    text: &str,
    mode: Mode,
    a: &Args,
    limit: usize,
) -> Result<Piece, ToolError> {
    let rel = &t.rel;
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len().max(1) as u32;
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
        Mode::Region | Mode::Full => read_lines(t, &lines, mode, a, limit),
        Mode::Excerpt => excerpt(rel, text, a, limit),
    }
}

/// Lines `from..=to` (1-based) of `lines`, cut at `limit` characters; the last line taken, the
/// next line to read when cut, and the line that had to be cut itself (longer than the limit)
/// when one was.
fn take_lines(
    lines: &[&str],
    from: u32,
    to: u32,
    limit: usize,
) -> (String, u32, Option<u32>, Option<u32>) {
    let total = lines.len().max(1) as u32;
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
}

/// The lines `region` (`start..=end`, or the target's `#line=` range) or `full` (from `start`
/// to the end) reads.
fn line_range(t: &Target, mode: Mode, a: &Args, total: u32) -> Result<(u32, u32), ToolError> {
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
    Ok((from, to))
}

/// `region` and `full`: whole lines, with the continuation at the next line.
fn read_lines(
    t: &Target,
    lines: &[&str],
    mode: Mode,
    a: &Args,
    limit: usize,
) -> Result<Piece, ToolError> {
    let rel = &t.rel;
    let total = lines.len().max(1) as u32;
    let (from, to) = line_range(t, mode, a, total)?;
    let (body, last, next, cut) = take_lines(lines, from, to, limit);
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

/// The passage around `quote`, cited by the lines it touches.
fn excerpt(rel: &str, text: &str, a: &Args, limit: usize) -> Result<Piece, ToolError> {
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
