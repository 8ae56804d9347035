//! The built-in agent's reading of the prompt the host sends (context block, prior
//! conversation, handoff, the user's words) and its slash commands. Choosing what to quote is
//! [`super::choose`]'s job.

/// A prompt split into its parts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prompt {
    /// The `<agentero-context>` block, if any.
    pub context: Option<String>,
    /// The host said the context cannot be expanded (`prompt_only`).
    pub prompt_only: bool,
    pub evidence: Vec<EvidenceItem>,
    /// The allowed sources listed in the context block: (kind, path).
    pub sources: Vec<(String, String)>,
    /// The prior conversation a new session was seeded with (empty when none).
    pub prior: String,
    /// The handoff a new session was seeded with (empty when none).
    pub handoff: String,
    /// The user's own text.
    pub question: String,
}

/// Where an evidence item comes from (the note under its header says).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// Text the user selected.
    Selection,
    /// The page the user is reading (no quote).
    Current,
    /// The start of a mentioned source (prompt-only turns).
    Mention,
    Other,
}

/// An evidence item the host inlined, with its citation URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceItem {
    pub uri: String,
    pub title: String,
    pub origin: Origin,
    /// The quote (empty for the page being read).
    pub text: String,
}

impl Prompt {
    pub fn selection(&self) -> Option<&EvidenceItem> {
        self.evidence
            .iter()
            .find(|e| e.origin == Origin::Selection && !e.text.is_empty())
    }

    /// The page the user reads or selected on.
    pub fn anchor_uri(&self) -> Option<&str> {
        self.selection()
            .or_else(|| self.evidence.iter().find(|e| e.origin == Origin::Current))
            .map(|e| e.uri.as_str())
    }
}

fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<(usize, &'a str, usize)> {
    let start = text.find(open)?;
    let inner_start = start + open.len();
    let end = inner_start + text[inner_start..].find(close)?;
    Some((start, &text[inner_start..end], end + close.len()))
}

pub fn parse_prompt(text: &str) -> Prompt {
    let mut rest = text.to_string();
    let mut p = Prompt::default();
    if let Some((s, inner, e)) = between(&rest, "<agentero-context>", "</agentero-context>") {
        p.context = Some(inner.to_string());
        p.prompt_only = inner.contains("cannot be expanded");
        p.evidence = parse_evidence(inner);
        p.sources = parse_sources(inner);
        rest.replace_range(s..e, "");
    }
    if let Some((s, inner, e)) = between(&rest, "<prior-conversation>", "</prior-conversation>") {
        p.prior = inner.trim().to_string();
        rest.replace_range(s..e, "");
    }
    if let Some((s, inner, e)) = between(&rest, "<handoff>", "</handoff>") {
        p.handoff = inner.trim().to_string();
        rest.replace_range(s..e, "");
    }
    p.question = rest.trim().to_string();
    p
}

/// `- paper papers/x/paper.pdf`, `- directory notes/ (…)` lines of "Allowed sources:".
fn parse_sources(block: &str) -> Vec<(String, String)> {
    let Some(at) = block.find("Allowed sources:") else {
        return Vec::new();
    };
    block[at..]
        .lines()
        .skip(1)
        .take_while(|l| l.starts_with("- "))
        .filter_map(|l| {
            let mut parts = l[2..].splitn(3, ' ');
            let kind = parts.next()?.to_string();
            let path = parts.next()?.trim_end_matches('/').to_string();
            Some((kind, path))
        })
        .collect()
}

fn origin_of(note: &str) -> Origin {
    let n = note.to_lowercase();
    if n.contains("selected") || n.contains("selection") {
        Origin::Selection
    } else if n.contains("reading") {
        Origin::Current
    } else if n.contains("mentioned") {
        Origin::Mention
    } else {
        Origin::Other
    }
}

/// Evidence items: a header line `[n] "title" — … <uri>`, an optional `(note)` line saying
/// where it comes from, then `> quote` lines.
fn parse_evidence(block: &str) -> Vec<EvidenceItem> {
    let Some(at) = block.find("\nEvidence:") else {
        return Vec::new();
    };
    let mut out: Vec<EvidenceItem> = Vec::new();
    for line in block[at..].lines().skip(2) {
        let t = line.trim_end();
        if t.starts_with('[')
            && t.ends_with('>')
            && let Some(open) = t.rfind('<')
        {
            let title = t
                .split_once('"')
                .and_then(|(_, r)| r.rsplit_once("\" —"))
                .map(|(title, _)| title.to_string())
                .unwrap_or_default();
            out.push(EvidenceItem {
                uri: t[open + 1..t.len() - 1].to_string(),
                title,
                origin: Origin::Other,
                text: String::new(),
            });
        } else if let Some(c) = out.last_mut() {
            if let Some(q) = t.strip_prefix("> ").or_else(|| (t == ">").then_some("")) {
                if !c.text.is_empty() {
                    c.text.push('\n');
                }
                c.text.push_str(q);
            } else if t.starts_with('(') && c.text.is_empty() && c.origin == Origin::Other {
                c.origin = origin_of(t);
            } else if t.is_empty() || !t.starts_with('(') {
                // The end of the evidence list.
                if !t.is_empty() {
                    break;
                }
            }
        }
    }
    out
}

/// A quote line of an answer: `> "text" — uri`.
pub fn quote_line(text: &str, uri: &str) -> String {
    format!("> \"{text}\" — {uri}\n\n")
}

/// A slash command typed as the whole question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Slash {
    Search(String),
    Read { path: String, page: Option<u32> },
    Relations(String),
}

pub fn slash(question: &str) -> Option<Result<Slash, String>> {
    let q = question.trim();
    let rest = q.strip_prefix('/')?;
    let (name, arg) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    let arg = crate::context::mention::syntax::clean(arg);
    let need = |what: &str| Err(format!("/{name} needs {what}"));
    Some(match name {
        "search" if arg.is_empty() => need("a query"),
        "search" => Ok(Slash::Search(arg.to_string())),
        "read" if arg.is_empty() => need("a granted path (and optionally a page)"),
        "read" => {
            let mut parts = arg.split_whitespace();
            let path = parts.next().unwrap_or_default().to_string();
            let page = parts
                .next()
                .and_then(|p| p.trim_start_matches("p.").parse().ok());
            Ok(Slash::Read { path, page })
        }
        "relations" if arg.is_empty() => need("a granted paper path"),
        "relations" => Ok(Slash::Relations(arg.to_string())),
        _ => return None,
    })
}

/// The commands announced with `available_commands_update`: (name, description, input hint).
pub const COMMANDS: [(&str, &str, &str); 3] = [
    (
        "search",
        "Search the granted sources (context_search)",
        "query",
    ),
    (
        "read",
        "Read a granted source (context_read), optionally one page",
        "path [page]",
    ),
    (
        "relations",
        "Citations of a granted paper (paper_relations)",
        "path",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_the_prompt() {
        let text = "<agentero-context>\nThis context cannot be expanded: nothing.\n\nAllowed sources:\n- paper papers/a/paper.pdf\n- directory notes/ (covers 2 text files)\n\nEvidence:\n[1] \"T\" — papers/a/paper.pdf, page 2 <papers/a/paper.pdf#page=2>\n(selected by the user)\n> First line of the quote.\n> Second line.\n[2] \"T\" — papers/a/paper.pdf, page 1 <papers/a/paper.pdf#page=1>\n(the page the user is reading)\n[3] \"U\" — notes/n.md, lines 1-3 <notes/n.md#line=1,3>\n(the first lines of a mentioned file)\n> Note text here.\n</agentero-context>\n<prior-conversation>\n[user]\nold\n</prior-conversation>\nWhat about reading order? @papers/a/paper.pdf\n";
        let p = parse_prompt(text);
        assert!(p.prompt_only);
        assert_eq!(p.question, "What about reading order? @papers/a/paper.pdf");
        assert_eq!(p.prior, "[user]\nold");
        assert_eq!(
            p.sources,
            vec![
                ("paper".to_string(), "papers/a/paper.pdf".to_string()),
                ("directory".to_string(), "notes".to_string())
            ]
        );
        assert_eq!(p.evidence.len(), 3);
        assert_eq!(p.evidence[0].uri, "papers/a/paper.pdf#page=2");
        assert_eq!(p.evidence[0].title, "T");
        assert_eq!(p.evidence[0].origin, Origin::Selection);
        assert_eq!(p.evidence[0].text, "First line of the quote.\nSecond line.");
        assert_eq!(p.evidence[1].origin, Origin::Current);
        assert!(p.evidence[1].text.is_empty());
        assert_eq!(p.anchor_uri(), Some("papers/a/paper.pdf#page=2"));
        assert_eq!(p.evidence[2].uri, "notes/n.md#line=1,3");
        assert_eq!(p.evidence[2].origin, Origin::Mention);
    }

    #[test]
    fn slash_commands_parse() {
        assert_eq!(
            slash("/search reading order"),
            Some(Ok(Slash::Search("reading order".into())))
        );
        assert_eq!(
            slash("/read @papers/a/paper.pdf 3"),
            Some(Ok(Slash::Read {
                path: "papers/a/paper.pdf".into(),
                page: Some(3)
            }))
        );
        assert!(matches!(slash("/relations"), Some(Err(_))));
        assert_eq!(slash("/unknown x"), None);
        assert_eq!(slash("plain question"), None);
    }
}
