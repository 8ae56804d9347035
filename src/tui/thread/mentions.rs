//! A question as the thread shows it: the mentions stay where they were written and are drawn
//! as chips there (`compare @papers/a/paper.pdf and @papers/b/paper.pdf`), instead of being
//! cut out of the sentence; the chips the text does not name (the paper being read, a
//! selection, or mentions of a thread written before) are listed above it.

use ratatui::style::Style;
use ratatui::text::Line;

use crate::context::mention::syntax;
use crate::tui::markdown;
use crate::tui::theme::Theme;
use crate::tui::widgets::truncate;

/// The mentions among a question's chips (`@path` labels) that its text names whole
/// ([`syntax::find`]).
fn inline<'a>(text: &str, chips: &'a [String]) -> Vec<&'a str> {
    chips
        .iter()
        .map(String::as_str)
        .filter(|c| syntax::strip(c).is_some_and(|p| !syntax::find(text, p).is_empty()))
        .collect()
}

/// One line of the text cut into plain and chip segments.
fn segments(line: &str, mentions: &[&str], plain: Style, chip: Style) -> Vec<(String, Style)> {
    // Where each mention is written; at one place the longest (a path with spaces may start
    // with another mention's path), and never two over each other.
    let mut at: Vec<std::ops::Range<usize>> = mentions
        .iter()
        .filter_map(|m| syntax::strip(m))
        .flat_map(|p| syntax::find(line, p))
        .collect();
    at.sort_by_key(|r| (r.start, std::cmp::Reverse(r.end)));
    let mut out = Vec::new();
    let mut pos = 0;
    for r in at {
        if r.start < pos {
            continue;
        }
        if r.start > pos {
            out.push((line[pos..r.start].to_string(), plain));
        }
        out.push((line[r.clone()].to_string(), chip));
        pos = r.end;
    }
    if pos < line.len() {
        out.push((line[pos..].to_string(), plain));
    }
    out
}

/// The rows of a question: `you`, the chips its text does not name, then the text with its
/// mentions drawn as chips.
pub fn user_lines(text: &str, chips: &[String], theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let mut l = vec![Line::styled("you", theme.style("chat.user"))];
    let named = inline(text, chips);
    let others: Vec<&String> = chips
        .iter()
        .filter(|c| !named.contains(&c.as_str()))
        .collect();
    if !others.is_empty() {
        let list: Vec<&str> = others.iter().map(|c| c.as_str()).collect();
        l.push(Line::styled(
            truncate(&format!("  [{}]", list.join("] [")), width),
            theme.style("ui.dim"),
        ));
    }
    let chip = theme.style("ui.chip");
    for line in text.lines() {
        l.extend(markdown::wrap_segments(
            &segments(line, &named, Style::default(), chip),
            width,
            "  ",
            "  ",
            Style::default(),
        ));
    }
    l
}

/// A thread's title from its first question: each mention by its short name (`@x` for
/// `@papers/x/paper.pdf`, the file name for a file), at most 40 characters.
pub fn title(text: &str) -> String {
    let first = text.lines().next().unwrap_or("");
    let words: Vec<String> = first
        .split_whitespace()
        .map(|w| match syntax::mentions(w).first() {
            Some(m) if m.path.contains('/') => {
                let path = m.path.trim_end_matches('/');
                let short = match path.rsplit_once('/') {
                    Some((dir, "paper.pdf")) => dir.rsplit('/').next().unwrap_or(dir),
                    Some((_, name)) => name,
                    None => path,
                };
                // The sentence's punctuation after the mention stays.
                format!("{}{}", syntax::format(short), &w[m.range.end..])
            }
            _ => w.to_string(),
        })
        .collect();
    words.join(" ").chars().take(40).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str, chips: &[&str], width: usize) -> Vec<Vec<(String, bool)>> {
        let chips: Vec<String> = chips.iter().map(|c| c.to_string()).collect();
        let theme = Theme::load("default", &crate::tui::theme::shipped, false);
        let chip = theme.style("ui.chip");
        assert_ne!(chip, Style::default());
        user_lines(text, &chips, &theme, width)
            .iter()
            .map(|l| {
                l.spans
                    .iter()
                    .map(|s| (s.content.to_string(), s.style == chip))
                    .collect()
            })
            .collect()
    }

    fn plain(r: &[(String, bool)]) -> String {
        r.iter().map(|(s, _)| s.as_str()).collect()
    }

    /// The mentions stay in the sentence, drawn as chips; no double spaces where they were;
    /// chips the text does not name are listed above it.
    #[test]
    fn mentions_stay_in_the_text_as_chips() {
        let r = rows(
            "Compare @papers/dense/paper.pdf and @papers/ — which is better?",
            &[
                "@papers/dense/paper.pdf",
                "@papers/",
                "reading papers/x/paper.pdf p.2",
            ],
            80,
        );
        assert_eq!(plain(&r[0]), "you");
        assert_eq!(plain(&r[1]), "  [reading papers/x/paper.pdf p.2]");
        assert_eq!(
            plain(&r[2]).trim_end(),
            "  Compare @papers/dense/paper.pdf and @papers/ — which is better?"
        );
        let chips: Vec<&str> = r[2]
            .iter()
            .filter(|(_, c)| *c)
            .map(|(s, _)| s.trim())
            .collect();
        assert_eq!(chips, ["@papers/dense/paper.pdf", "@papers/"]);
        // A thread written before: the text without its mentions, the chips above it.
        let r = rows("Compare and", &["@papers/dense/paper.pdf"], 80);
        assert_eq!(plain(&r[1]), "  [@papers/dense/paper.pdf]");
        // A folder's mention is not the start of a paper's under it.
        let r = rows("Read @papers/x/paper.pdf.", &["@papers/"], 80);
        assert_eq!(plain(&r[1]), "  [@papers/]");
        assert!(r[2].iter().all(|(_, c)| !c));
    }

    #[test]
    fn titles_name_mentions_briefly() {
        assert_eq!(
            title("Compare @papers/dense-vs-sparse/paper.pdf and @notes/ideas.md now\nmore"),
            "Compare @dense-vs-sparse and @ideas.md n"
        );
        assert_eq!(title("What about @papers/nlp/ ?"), "What about @nlp ?");
        // The sentence's punctuation is not the path's.
        assert_eq!(title("Is @papers/x/paper.pdf, or not?"), "Is @x, or not?");
    }
}
