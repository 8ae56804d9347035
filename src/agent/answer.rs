//! The built-in agent's extractive answering, as pure functions over text: reading the prompt
//! the host sends (context block, prior conversation, the user's words), picking key words and
//! choosing the sentences that best match them. No model: every word of an answer's quotes is
//! copied from a source, so a quote is always really on the page it cites.

/// A prompt split into its parts.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prompt {
    /// The `<agentero-context>` block, if any.
    pub context: Option<String>,
    /// The host said the context cannot be expanded (`prompt_only`).
    pub prompt_only: bool,
    pub evidence: Vec<EvidenceQuote>,
    /// The user's own text.
    pub question: String,
}

/// A quote the host inlined as evidence, with its citation URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceQuote {
    pub uri: String,
    pub text: String,
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
        rest.replace_range(s..e, "");
    }
    if let Some((s, _, e)) = between(&rest, "<prior-conversation>", "</prior-conversation>") {
        rest.replace_range(s..e, "");
    }
    p.question = rest.trim().to_string();
    p
}

/// Evidence items: a header line ending in `<uri>` followed by `> quote` lines.
fn parse_evidence(block: &str) -> Vec<EvidenceQuote> {
    let mut out: Vec<EvidenceQuote> = Vec::new();
    let mut current: Option<EvidenceQuote> = None;
    for line in block.lines() {
        let t = line.trim_end();
        if t.starts_with('[')
            && t.ends_with('>')
            && let Some(open) = t.rfind('<')
        {
            out.extend(current.take().filter(|e| !e.text.is_empty()));
            current = Some(EvidenceQuote {
                uri: t[open + 1..t.len() - 1].to_string(),
                text: String::new(),
            });
        } else if let Some(q) = t.strip_prefix("> ").or_else(|| (t == ">").then_some(""))
            && let Some(c) = current.as_mut()
        {
            if !c.text.is_empty() {
                c.text.push('\n');
            }
            c.text.push_str(q);
        } else if !t.starts_with("> ") {
            out.extend(current.take().filter(|e| !e.text.is_empty()));
        }
    }
    out.extend(current.filter(|e| !e.text.is_empty()));
    out
}

const STOP_WORDS: &[&str] = &[
    "a", "about", "above", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as",
    "at", "be", "because", "been", "before", "being", "between", "both", "but", "by", "can",
    "could", "did", "do", "does", "doing", "during", "each", "explain", "few", "for", "from",
    "further", "give", "had", "has", "have", "having", "he", "her", "here", "hers", "him", "his",
    "how", "i", "if", "in", "into", "is", "it", "its", "just", "me", "more", "most", "my", "no",
    "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "our", "out", "over",
    "own", "paper", "papers", "please", "same", "say", "says", "she", "should", "show", "so",
    "some", "such", "tell", "than", "that", "the", "their", "them", "then", "there", "these",
    "they", "this", "those", "through", "to", "too", "under", "until", "up", "use", "used", "uses",
    "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why",
    "will", "with", "would", "you", "your",
];

/// The question's key words: lowercase, stop words and `@mentions` dropped, first occurrence
/// order, at most 8.
pub fn keywords(question: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for token in question.split_whitespace() {
        if token.starts_with('@') || token.starts_with('/') && out.is_empty() && token.len() > 1 {
            continue;
        }
        for w in token.split(|c: char| !c.is_alphanumeric()) {
            let w = w.to_lowercase();
            if w.chars().count() >= 3 && !STOP_WORDS.contains(&w.as_str()) && !out.contains(&w) {
                out.push(w);
            }
        }
    }
    out.truncate(8);
    out
}

/// Sentences of `text` with whitespace collapsed (so a quote is a substring of the text with
/// its whitespace collapsed). A sentence ends at `.`, `?` or `!` followed by a space, and at a
/// paragraph break: a title, an author block or a heading is never glued to the next sentence.
pub fn sentences(text: &str) -> Vec<String> {
    text.split("\n\n")
        .flat_map(split_headings)
        .flat_map(|b| block_sentences(&b))
        .collect()
}

/// Cuts a block after each heading-like line ("Abstract", "2.1 Scoring"): a short line without
/// closing punctuation followed by a line that starts a new sentence.
fn split_headings(block: &str) -> Vec<String> {
    let lines: Vec<&str> = block.lines().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, line) in lines.iter().enumerate() {
        cur.push_str(line);
        cur.push('\n');
        let t = line.trim();
        let next_starts = lines
            .get(i + 1)
            .and_then(|n| n.trim().chars().next())
            .is_some_and(|c| c.is_uppercase() || c.is_ascii_digit());
        let heading = !t.is_empty()
            && t.split_whitespace().count() <= 6
            && !t.ends_with(['.', ',', ';', ':', '-', '?', '!'])
            && next_starts;
        if heading {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur);
    }
    out
}

fn block_sentences(block: &str) -> Vec<String> {
    let flat = block.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = flat.as_bytes();
    for i in 0..bytes.len() {
        let end = matches!(bytes[i], b'.' | b'?' | b'!')
            && (i + 1 == bytes.len() || bytes[i + 1] == b' ');
        if end {
            let s = flat[start..=i].trim();
            if !s.is_empty() {
                out.push(s.to_string());
            }
            start = i + 1;
        }
    }
    let tail = flat[start..].trim();
    if !tail.is_empty() {
        out.push(tail.to_string());
    }
    out
}

/// How many distinct key words a sentence contains (as word prefixes, so "attention" matches
/// "attentional").
pub fn score(sentence: &str, keys: &[String]) -> usize {
    let words: Vec<String> = sentence
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    keys.iter()
        .filter(|k| words.iter().any(|w| w.starts_with(k.as_str())))
        .count()
}

/// Longest quote the answer carries; longer sentences are cut at a word boundary (the cut is
/// still a verbatim substring of the source).
pub const MAX_QUOTE: usize = 280;

fn cut(sentence: &str) -> String {
    if sentence.chars().count() <= MAX_QUOTE {
        return sentence.to_string();
    }
    let mut out = String::new();
    for w in sentence.split(' ') {
        if out.chars().count() + w.chars().count() + 1 > MAX_QUOTE {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// A sentence shorter than this is a heading or a title more often than a statement.
const STATEMENT_CHARS: usize = 60;

/// The best sentence of `text` for `keys` and its score: most key words first; among equals a
/// full statement over a heading or title, then the longer (more informative) one, then the
/// earlier.
pub fn best_sentence(text: &str, keys: &[String]) -> Option<(String, usize)> {
    let mut best: Option<((usize, bool, usize), String)> = None;
    for s in sentences(text) {
        let chars = s.chars().count();
        if chars < 20 {
            continue;
        }
        let sc = score(&s, keys);
        if sc == 0 {
            continue;
        }
        let rank = (sc, chars >= STATEMENT_CHARS, chars.min(MAX_QUOTE));
        if best.as_ref().is_none_or(|(b, _)| rank > *b) {
            best = Some((rank, s));
        }
    }
    best.map(|((sc, _, _), s)| (cut(&s), sc))
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
    let arg = arg.trim().trim_start_matches('@');
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
        let text = "<agentero-context>\nThis context cannot be expanded: nothing.\n\nEvidence:\n[1] \"T\" — papers/a/paper.pdf, page 2 <papers/a/paper.pdf#page=2>\n> First line of the quote.\n> Second line.\n[2] \"U\" — notes/n.md, lines 1-3 <notes/n.md#line=1,3>\n> Note text here.\n</agentero-context>\n<prior-conversation>\n[user]\nold\n</prior-conversation>\nWhat about reading order? @papers/a/paper.pdf\n";
        let p = parse_prompt(text);
        assert!(p.prompt_only);
        assert_eq!(p.question, "What about reading order? @papers/a/paper.pdf");
        assert_eq!(p.evidence.len(), 2);
        assert_eq!(p.evidence[0].uri, "papers/a/paper.pdf#page=2");
        assert_eq!(p.evidence[0].text, "First line of the quote.\nSecond line.");
        assert_eq!(p.evidence[1].uri, "notes/n.md#line=1,3");
    }

    #[test]
    fn keywords_drop_stop_words_and_mentions() {
        assert_eq!(
            keywords("What does the paper say about the reading order? @papers/x/paper.pdf"),
            vec!["reading".to_string(), "order".to_string()]
        );
    }

    #[test]
    fn best_sentence_is_a_verbatim_substring() {
        let text = "Intro words here.  The reading\norder of columns matters a lot. Unrelated closing sentence.";
        let keys = keywords("reading order");
        let (s, sc) = best_sentence(text, &keys).unwrap();
        assert_eq!(sc, 2);
        assert_eq!(s, "The reading order of columns matters a lot.");
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(&s));
        assert!(best_sentence(text, &keywords("zebra")).is_none());
        let long = "word ".repeat(200) + "reading.";
        let (s, _) = best_sentence(&long, &keys).unwrap_or_else(|| (String::new(), 0));
        assert!(s.is_empty() || s.chars().count() <= MAX_QUOTE);
    }

    #[test]
    fn a_statement_beats_the_title_block_it_shares_words_with() {
        let page = "Passage-Level Retrieval over Scholarly Full Text\n\nMargit Halvorsen and Tobias \
                    Renner\n\nAbstract\nOn SciPassage-1K, passage retrieval raises mean average \
                    precision from 0.212 to 0.297. We conclude.";
        let keys = keywords("What did passage retrieval improve?");
        let (best, score) = best_sentence(page, &keys).unwrap();
        assert_eq!(score, 2);
        assert!(
            best.starts_with("On SciPassage-1K, passage retrieval raises"),
            "{best}"
        );
        assert_eq!(
            sentences(page)[0],
            "Passage-Level Retrieval over Scholarly Full Text"
        );
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
