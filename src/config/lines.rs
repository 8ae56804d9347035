//! Finding things by line in a config text: its sections, a key's line, a table's keys with
//! where their values are — for `file:line:` messages that point at the mistake.

use std::collections::BTreeMap;

/// The document cut at its `[header]` lines: (lines before the section, section text).
pub(super) fn split_sections(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = vec![(0, String::new())];
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with('[') && n > 0 {
            out.push((n, String::new()));
        }
        let last = out.last_mut().expect("one section at least");
        last.1.push_str(line);
        last.1.push('\n');
    }
    out
}

/// The keys of table `table` (or of `table.sub`) in `text` with where their values are.
pub(super) fn spans_of(
    text: &str,
    table: &str,
    sub: Option<&str>,
) -> BTreeMap<String, toml::Spanned<toml::Value>> {
    type Keys = BTreeMap<String, toml::Spanned<toml::Value>>;
    let found = match sub {
        None => toml::from_str::<BTreeMap<String, Keys>>(&only_table(text, table))
            .ok()
            .and_then(|mut m| m.remove(table)),
        Some(sub) => {
            toml::from_str::<BTreeMap<String, BTreeMap<String, Keys>>>(&only_table(text, table))
                .ok()
                .and_then(|mut m| m.remove(table))
                .and_then(|mut m| m.remove(sub))
        }
    };
    found.unwrap_or_default()
}

/// `text` with every line outside `[table…]` sections blanked (line numbers and byte offsets
/// unchanged), so that it parses as tables of tables.
fn only_table(text: &str, table: &str) -> String {
    let mut inside = false;
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let t = line.trim_start();
        if t.starts_with('[') {
            let name: String = t
                .chars()
                .filter(|c| !c.is_whitespace() && *c != '[')
                .collect();
            inside =
                name.starts_with(&format!("{table}]")) || name.starts_with(&format!("{table}."));
        }
        if inside {
            out.push_str(line);
        } else {
            out.extend(line.chars().map(|c| if c == '\n' { c } else { ' ' }));
        }
    }
    out
}

/// The 1-based line of the first `key =` at the start of a line.
pub(super) fn find_key_line(text: &str, key: &str) -> Option<usize> {
    text.lines().enumerate().find_map(|(n, l)| {
        let rest = l.trim_start().strip_prefix(key)?;
        rest.trim_start().starts_with('=').then_some(n + 1)
    })
}

/// The 1-based line of `[agents.NAME]` (or of the first `NAME = …` under `[agents]`).
pub(super) fn find_agent_line(text: &str, name: &str) -> Option<usize> {
    let headers = [format!("[agents.{name}]"), format!("[agents.\"{name}\"]")];
    text.lines()
        .position(|l| {
            let l: String = l.chars().filter(|c| !c.is_whitespace()).collect();
            headers.iter().any(|h| l.starts_with(h.as_str()))
        })
        .map(|n| n + 1)
        .or_else(|| find_key_line(text, &format!("agents.{name}")))
        .or_else(|| find_key_line(text, name))
}

/// The 1-based line a TOML parse error points at (for `file:line:` messages of the user's
/// keymap and theme files too).
pub fn toml_error_line(text: &str, e: &toml::de::Error) -> usize {
    e.span().map_or(1, |s| line_of(text, s.start))
}

/// The 1-based line of `key = …` (bare, "quoted" or 'quoted') inside `[table]` (or at the top
/// when `table` is `None`) of a TOML text.
pub fn toml_key_line(text: &str, table: Option<&str>, key: &str) -> Option<usize> {
    let mut inside = table.is_none();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            let name = t.trim_start_matches('[').trim_end_matches(']').trim();
            inside = table.is_some_and(|want| name == want || name == format!("\"{want}\""));
            continue;
        }
        if !inside {
            continue;
        }
        for quoted in [key.to_string(), format!("\"{key}\""), format!("'{key}'")] {
            if let Some(rest) = t.strip_prefix(&quoted)
                && rest.trim_start().starts_with('=')
            {
                return Some(n + 1);
            }
        }
    }
    None
}

pub(super) fn line_of(text: &str, byte: usize) -> usize {
    text.as_bytes()[..byte.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}
