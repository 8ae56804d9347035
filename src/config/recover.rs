//! Reading a config file with mistakes in it: a line the TOML parser cannot read is dropped
//! (not its section, not the file), and a key of `[budget]`, `[local]` or `[agents.NAME]` with
//! a wrong type or an unknown value falls back to its default alone. Each mistake is one
//! problem with its line (1-based, within the text given).

use std::collections::BTreeMap;

use toml::{Spanned, Value};

use super::{Adapter, Config, DEFAULT_WARM_POOL, LocalModel, line_of, spans_of};
use crate::context::budget::Budget;

pub(super) type Keys = BTreeMap<String, Spanned<Value>>;

/// What one section read to: its parsed text and keys (`None` when its header is unreadable),
/// and the problems found (line, message).
pub(super) type Parsed = (Option<(String, Keys)>, Vec<(usize, String)>);

/// At most this many unreadable lines are dropped from one section before it is given up.
const MAX_DROPPED_LINES: usize = 24;

/// Parses one section (or a whole document), blanking each line the parser stops at until the
/// rest reads. Returns the text actually parsed (same line numbers) with its keys, or `None`
/// when the section's own header is unreadable, plus the problems found.
pub(super) fn parse_section(section: &str) -> Parsed {
    let mut lines: Vec<String> = section.lines().map(str::to_string).collect();
    let mut problems = Vec::new();
    for _ in 0..=MAX_DROPPED_LINES {
        let text = lines.join("\n") + "\n";
        let e = match toml::from_str::<Keys>(&text) {
            Ok(keys) => return (Some((text, keys)), problems),
            Err(e) => e,
        };
        let message = e.message().trim().to_string();
        let header = lines
            .first()
            .is_some_and(|l| l.trim_start().starts_with('['));
        // The line the parser stopped at, or (at the end of the section or a blank line: an
        // unclosed array or string) the last line with something on it before that.
        let at = e.span().map(|s| line_of(&text, s.start)).and_then(|l| {
            (0..l.min(lines.len()))
                .rev()
                .find(|&i| !lines[i].trim().is_empty())
        });
        match at {
            Some(i) if i > 0 || !header => {
                problems.push((i + 1, format!("{message}; this line is skipped")));
                lines[i].clear();
            }
            // An unreadable header: its keys would land in the wrong table.
            _ => {
                let what = match lines.first() {
                    Some(h) if header => format!("the section {} is skipped", h.trim()),
                    _ => "the settings before the first [section] are skipped".to_string(),
                };
                problems.push((1, format!("{message}; {what}")));
                return (None, problems);
            }
        }
    }
    let what = lines
        .first()
        .map(|l| l.trim().to_string())
        .unwrap_or_default();
    problems.push((
        1,
        format!("too many unreadable lines; the section {what} is skipped"),
    ));
    (None, problems)
}

/// A whole number of at least 0 from a TOML value.
fn count(v: &Value) -> Option<usize> {
    v.as_integer().and_then(|i| usize::try_from(i).ok())
}

/// The key's line (the value's position), `fallback` when the key is not found.
fn key_line(spans: &Keys, key: &str, text: &str, offset: usize, fallback: usize) -> usize {
    spans
        .get(key)
        .map_or(fallback, |v| offset + line_of(text, v.span().start))
}

impl Config {
    /// `[budget]` key by key: a bad key keeps its default, the others apply.
    pub(super) fn apply_budget(
        &mut self,
        text: &str,
        offset: usize,
        header: usize,
        value: Value,
        problem: &mut dyn FnMut(usize, String),
    ) {
        let Value::Table(table) = value else {
            problem(
                header,
                "`budget` must be a [budget] table; the default budget is used".into(),
            );
            return;
        };
        let spans = spans_of(text, "budget", None);
        let mut b = self.budget;
        let defaults = Budget::default();
        for (key, v) in table {
            let line = key_line(&spans, &key, text, offset, header);
            let (field, default) = match key.as_str() {
                "search_cards" => (&mut b.search_cards, defaults.search_cards),
                "excerpt_chars" => (&mut b.excerpt_chars, defaults.excerpt_chars),
                "read_chars" => (&mut b.read_chars, defaults.read_chars),
                "turn_chars" => (&mut b.turn_chars, defaults.turn_chars),
                "quote_cap" => (&mut b.quote_cap, defaults.quote_cap),
                other => {
                    problem(
                        line,
                        format!(
                            "[budget]: unknown key `{other}` (known: search_cards, \
                             excerpt_chars, read_chars, turn_chars, quote_cap); ignored"
                        ),
                    );
                    continue;
                }
            };
            match count(&v) {
                Some(n) => *field = n,
                None => problem(
                    line,
                    format!(
                        "[budget]: `{key}` must be a whole number, not {}; the default \
                         ({default}) is used",
                        shown(&v)
                    ),
                ),
            }
        }
        self.budget = b.sanitized();
    }

    /// `[local]`: the `local` preset's model and Ollama address, key by key.
    pub(super) fn apply_local(
        &mut self,
        text: &str,
        offset: usize,
        header: usize,
        value: Value,
        problem: &mut dyn FnMut(usize, String),
    ) {
        let Value::Table(table) = value else {
            problem(header, "`local` must be a [local] table; ignored".into());
            return;
        };
        self.set_up.insert(super::LOCAL_AGENT.to_string());
        let spans = spans_of(text, "local", None);
        for (key, v) in table {
            let line = key_line(&spans, &key, text, offset, header);
            match (key.as_str(), v.as_str()) {
                ("model", Some(m)) if !m.trim().is_empty() => {
                    self.local_model.model = m.trim().to_string();
                }
                ("ollama_url", Some(u)) => match super::local::normalize_url(u) {
                    Ok(url) => self.local_model.ollama_url = url,
                    Err(e) => problem(
                        line,
                        format!(
                            "[local]: `ollama_url`: {e}; using {}",
                            self.local_model.ollama_url
                        ),
                    ),
                },
                ("model" | "ollama_url", _) => problem(
                    line,
                    format!(
                        "[local]: `{key}` must be a non-empty string, not {}; the default is used",
                        shown(&v)
                    ),
                ),
                (other, _) => problem(
                    line,
                    format!("[local]: unknown key `{other}` (known: model, ollama_url); ignored"),
                ),
            }
        }
    }

    /// The `local` agent, pointed at `[local]`'s model unless the file defines
    /// `[agents.local]` itself.
    pub(super) fn refresh_local(&mut self, before: &LocalModel) {
        let untouched = super::AgentDef::local(before);
        let name = super::LOCAL_AGENT;
        if self.agents.get(name).is_none_or(|d| *d == untouched) {
            self.agents
                .insert(name.to_string(), super::AgentDef::local(&self.local_model));
        }
    }
}

/// An `[agents.NAME]` table read key by key. `None` (with the problem said) when it has no
/// usable `command`; any other bad key falls back to its default.
pub(super) fn raw_agent(
    name: &str,
    table: toml::Table,
    spans: &Keys,
    text: &str,
    offset: usize,
    header: usize,
    problem: &mut dyn FnMut(usize, String),
) -> Option<super::RawAgent> {
    let mut a = super::RawAgent {
        command: String::new(),
        args: Vec::new(),
        env: BTreeMap::new(),
        remote: false,
        warm_pool: None,
        native_reads: false,
        adapter: None,
    };
    let mut command_problem = None;
    for (key, v) in table {
        let line = key_line(spans, &key, text, offset, header);
        let mut bad = |expected: &str, fallback: &str| {
            problem(
                line,
                format!(
                    "[agents.{name}]: `{key}` must be {expected}, not {}; {fallback}",
                    shown(&v)
                ),
            )
        };
        match key.as_str() {
            "command" => match v.as_str() {
                Some(c) if !c.trim().is_empty() => a.command = c.to_string(),
                Some(_) => command_problem = Some((line, "an empty `command`".to_string())),
                None => command_problem = Some((line, format!("`command` = {}", shown(&v)))),
            },
            "args" => match strings(&v) {
                Some(s) => a.args = s,
                None => bad("a list of strings", "no arguments are used"),
            },
            "env" => match v.as_table() {
                Some(t) => {
                    for (k, x) in t {
                        match x.as_str() {
                            Some(s) => {
                                a.env.insert(k.clone(), s.to_string());
                            }
                            None => problem(
                                line,
                                format!(
                                    "[agents.{name}]: env `{k}` must be a string, not {}; \
                                     that variable is not set",
                                    shown(x)
                                ),
                            ),
                        }
                    }
                }
                None => bad("a table of strings", "no variables are added"),
            },
            "remote" => match v.as_bool() {
                Some(b) => a.remote = b,
                None => bad("true or false", "false is used"),
            },
            "native_reads" => match v.as_bool() {
                Some(b) => a.native_reads = b,
                None => bad("true or false", "false is used"),
            },
            "warm_pool" => match count(&v) {
                Some(n) => a.warm_pool = Some(n),
                None => bad(
                    "a whole number",
                    &format!("the default ({DEFAULT_WARM_POOL}) is used"),
                ),
            },
            "adapter" => match Adapter::deserialize_str(v.as_str()) {
                Some(ad) => a.adapter = Some(ad),
                None => bad(
                    "one of \"claude\", \"gemini\", \"codex\", \"other\", \"builtin\"",
                    "it is detected from the command",
                ),
            },
            other => problem(
                line,
                format!(
                    "[agents.{name}]: unknown key `{other}` (known: command, args, env, remote, \
                     warm_pool, native_reads, adapter); ignored"
                ),
            ),
        }
    }
    if a.command.is_empty() {
        let (line, what) = command_problem.unwrap_or((header, "no `command`".to_string()));
        problem(
            line,
            format!("[agents.{name}] has {what}; this agent is skipped"),
        );
        return None;
    }
    Some(a)
}

fn strings(v: &Value) -> Option<Vec<String>> {
    v.as_array()?
        .iter()
        .map(|x| x.as_str().map(str::to_string))
        .collect()
}

/// A value as the message shows it: its type, and short values themselves.
fn shown(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 40 && !matches!(v, Value::Table(_) | Value::Array(_)) {
        format!("{} {text}", v.type_str())
    } else {
        match v {
            Value::Array(_) => "a list".to_string(),
            Value::Table(_) => "a table".to_string(),
            _ => format!("a long {}", v.type_str()),
        }
    }
}

impl Adapter {
    /// The adapter a config value names (`builtin` is not one a file may pick).
    fn deserialize_str(s: Option<&str>) -> Option<Adapter> {
        s?.parse().ok()
    }
}
