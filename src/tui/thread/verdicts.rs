//! The verdicts of a turn's citations in the chat (issue 14): under the answer, one line per
//! citation — `✓` the quote is on the cited page, `⚠` it is not (with the page where it does
//! occur, if any), `·` a citation without a quote — after a header that counts them. Each line
//! is selectable: `enter` opens the page where the quote is (the cited page when it is
//! nowhere), with the quote highlighted. Kept apart from the source cards so either can change.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::{Item, ItemKind};
use crate::context::citations::{CitationCheck, Verdict};
use crate::tui::effect::{Jump, Location};
use crate::tui::markdown;
use crate::tui::text::str_width;
use crate::tui::theme::Theme;
use crate::tui::widgets::truncate;
use crate::vault::uri::{self, Target};

/// The header above a turn's verdicts: how many of each (and the source, when only one is
/// cited).
pub fn summary(checks: &[CitationCheck]) -> String {
    let count = |f: &dyn Fn(Verdict) -> bool| checks.iter().filter(|c| f(c.verdict)).count();
    let ok = count(&|v| v == Verdict::Verified);
    let warn = count(&|v| {
        matches!(
            v,
            Verdict::OtherPage | Verdict::NotFound | Verdict::Unverifiable
        )
    });
    let bare = count(&|v| v == Verdict::NoQuote);
    let mut parts = Vec::new();
    if ok > 0 {
        parts.push(format!("✓ {ok} verified"));
    }
    if warn > 0 {
        parts.push(format!("⚠ {warn} not found"));
    }
    if bare > 0 {
        parts.push(format!("· {bare} no quote"));
    }
    let of = match sources(checks).as_slice() {
        [one] => format!(" of {}", name(one)),
        _ => String::new(),
    };
    format!("citations{of}: {}", parts.join(", "))
}

/// Puts a turn's verdicts right under its answer (before its source cards, whichever arrived
/// first): after the turn's last message, else at the end.
pub fn insert(items: &mut Vec<Item>, checks: Vec<CitationCheck>) {
    if checks.is_empty() {
        return;
    }
    let last_user = items
        .iter()
        .rposition(|i| matches!(i.kind, ItemKind::User { .. }));
    let last_agent = items
        .iter()
        .rposition(|i| matches!(i.kind, ItemKind::Agent { .. }));
    let at = match (last_user, last_agent) {
        (u, Some(a)) if u.is_none_or(|u| u < a) => a + 1,
        _ => items.len(),
    };
    let named = sources(&checks).len() > 1;
    let block = std::iter::once(Item::new(ItemKind::Notice(summary(&checks)))).chain(
        checks
            .into_iter()
            .map(|check| Item::new(ItemKind::Citation { check, named })),
    );
    items.splice(at..at, block);
}

/// The sources (vault paths) the checks cite, each once.
fn sources(checks: &[CitationCheck]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in checks {
        let path = match uri::parse(&c.uri) {
            Some(Target::Vault { path, .. }) => path,
            _ => c.uri.clone(),
        };
        if !out.contains(&path) {
            out.push(path);
        }
    }
    out
}

/// A short name of a source: the paper's folder (`papers/x/paper.pdf` → `x`) or the file's
/// path.
fn name(path: &str) -> String {
    match path.rsplit_once('/') {
        Some((dir, "paper.pdf")) => dir.rsplit('/').next().unwrap_or(dir).to_string(),
        _ => path.to_string(),
    }
}

/// A cited place, briefly: `p.N` or `l.A-B`, after the source's name when `named`.
fn place(u: &str, named: bool) -> String {
    match uri::parse(u) {
        Some(Target::Vault { path, page, lines }) => {
            let at = match (page, lines) {
                (Some(p), _) => format!("p.{p}"),
                (None, Some((a, b))) if a == b => format!("l.{a}"),
                (None, Some((a, b))) => format!("l.{a}-{b}"),
                (None, None) => String::new(),
            };
            match (named, at.is_empty()) {
                (_, true) => name(&path),
                (true, false) => format!("{} {at}", name(&path)),
                (false, false) => at,
            }
        }
        _ => u.to_string(),
    }
}

/// Where a quote really is, said briefly: `p.4`, `l.10-12`.
fn at(found: &str) -> String {
    match uri::parse(found) {
        Some(Target::Vault { page: Some(p), .. }) => format!("p.{p}"),
        Some(Target::Vault {
            lines: Some((a, b)),
            ..
        }) => {
            if a == b {
                format!("l.{a}")
            } else {
                format!("l.{a}-{b}")
            }
        }
        _ => found.to_string(),
    }
}

/// What the mark means, in the words the chat shows.
pub fn state(c: &CitationCheck) -> String {
    match c.verdict {
        Verdict::Verified => "verified".into(),
        Verdict::OtherPage => match &c.found_at {
            Some(f) => format!("not found on that page; on {}", at(f)),
            None => "not found on that page".into(),
        },
        Verdict::NotFound => "not found on that page or any other".into(),
        Verdict::NoQuote => "no quote".into(),
        Verdict::Unverifiable => "the cited source cannot be read".into(),
    }
}

fn style_key(v: Verdict) -> &'static str {
    match v {
        Verdict::Verified => "chat.citation.verified",
        Verdict::OtherPage | Verdict::NotFound | Verdict::Unverifiable => "chat.citation.warning",
        Verdict::NoQuote => "chat.citation.none",
    }
}

/// The rows of one verdict: `⚠ p.2 "quote…" · not found on that page; on p.4` (the source's
/// name before the page when `named`). The mark and what it means are never cut: the quote
/// gives way, and when too little room is left for it, the meaning goes on its own rows.
pub fn lines(c: &CitationCheck, named: bool, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    let mark = theme.style(style_key(c.verdict));
    let text = theme.style("chat.citation");
    let head = format!("  {} ", c.verdict.glyph());
    let mut body = place(&c.uri, named);
    if let Some(q) = &c.quote {
        body.push_str(&format!(
            " \"{}\"",
            q.split_whitespace().collect::<Vec<_>>().join(" ")
        ));
    }
    let tail = format!(" · {}", state(c));
    let room = width.saturating_sub(str_width(&head) + str_width(&tail));
    if room >= 16 || room >= str_width(&body) {
        return vec![Line::from(vec![
            Span::styled(head, mark),
            Span::styled(truncate(&body, room), text),
            Span::styled(tail, mark),
        ])];
    }
    let room = width.saturating_sub(str_width(&head));
    let mut out = vec![Line::from(vec![
        Span::styled(head, mark),
        Span::styled(truncate(&body, room), text),
    ])];
    out.extend(markdown::wrap_segments(
        &[(state(c), mark)],
        width,
        "    ",
        "    ",
        Style::default(),
    ));
    out
}

/// Where `enter` on a verdict goes: the page where the quote is (`foundAt`), else the cited
/// page, with the quote to highlight.
pub fn jump(c: &CitationCheck) -> Option<Jump> {
    let to = c.found_at.as_deref().unwrap_or(&c.uri);
    match uri::parse(to) {
        Some(Target::Vault { path, page, lines }) => Some(Jump {
            to: Location {
                path,
                page: page.unwrap_or(1),
                row: 0,
            },
            quote: c.quote.clone(),
            lines,
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(
        uri: &str,
        quote: Option<&str>,
        verdict: Verdict,
        found: Option<&str>,
    ) -> CitationCheck {
        CitationCheck {
            uri: uri.into(),
            quote: quote.map(String::from),
            verdict,
            found_at: found.map(String::from),
        }
    }

    fn rows(c: &CitationCheck, named: bool, width: usize) -> Vec<String> {
        lines(c, named, &Theme::default(), width)
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    /// The mark and its meaning (with the page where the quote is) are never cut; the quote
    /// gives way, and in a narrow pane the meaning wraps on its own rows.
    #[test]
    fn a_verdict_keeps_its_mark_and_meaning_whole() {
        let wrong = check(
            "papers/layoutflow/paper.pdf#page=2",
            Some("Gutters are found from the   whitespace density of each column band."),
            Verdict::OtherPage,
            Some("papers/layoutflow/paper.pdf#page=4"),
        );
        let r = rows(&wrong, true, 80);
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(
            r[0].starts_with("  ⚠ layoutflow p.2 \"Gutters are found from the"),
            "{r:?}"
        );
        assert!(r[0].ends_with(" · not found on that page; on p.4"), "{r:?}");
        assert!(r[0].contains('…') && str_width(&r[0]) <= 80, "{r:?}");
        let r = rows(&wrong, false, 30);
        assert!(r.len() >= 2, "{r:?}");
        assert!(r[0].starts_with("  ⚠ p.2 \"Gutters"), "{r:?}");
        assert!(r.iter().all(|l| str_width(l.trim_end()) <= 30), "{r:?}");
        let meaning: Vec<&str> = r[1..].iter().map(|l| l.trim()).collect();
        assert_eq!(meaning.join(" "), "not found on that page; on p.4", "{r:?}");
        let ok = check(
            "notes/a.md#line=3,5",
            Some("a quote"),
            Verdict::Verified,
            None,
        );
        assert_eq!(
            rows(&ok, true, 60),
            ["  ✓ notes/a.md l.3-5 \"a quote\" · verified"]
        );
        let bare = check("papers/x/paper.pdf#page=1", None, Verdict::NoQuote, None);
        assert_eq!(rows(&bare, false, 60), ["  · p.1 · no quote"]);
        let gone = check(
            "papers/x/paper.pdf#page=1",
            Some("made up words here"),
            Verdict::NotFound,
            None,
        );
        assert!(rows(&gone, false, 60)[0].ends_with("· not found on that page or any other"));
    }

    /// The block goes under the turn's answer, before sources that came first, and counts;
    /// a turn citing one source names it once, in the header.
    #[test]
    fn verdicts_go_under_the_answer_with_a_count() {
        let mut items = vec![
            Item::new(ItemKind::User {
                text: "q".into(),
                chips: vec![],
            }),
            Item::new(ItemKind::Agent { text: "a".into() }),
            Item::new(ItemKind::Notice("sources (1)".into())),
        ];
        let checks = vec![
            check(
                "papers/x/paper.pdf#page=1",
                Some("one two three four"),
                Verdict::Verified,
                None,
            ),
            check(
                "papers/x/paper.pdf#page=2",
                Some("five six seven eight"),
                Verdict::NotFound,
                None,
            ),
            check("papers/x/paper.pdf#page=3", None, Verdict::NoQuote, None),
        ];
        insert(&mut items, checks.clone());
        let kinds: Vec<String> = items
            .iter()
            .map(|i| match &i.kind {
                ItemKind::Notice(n) => n.clone(),
                ItemKind::Citation { check, named } => format!("{} {named}", check.verdict.glyph()),
                other => format!("{other:?}").chars().take(5).collect(),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "User ",
                "Agent",
                "citations of x: ✓ 1 verified, ⚠ 1 not found, · 1 no quote",
                "✓ false",
                "⚠ false",
                "· false",
                "sources (1)"
            ]
        );
        // Two sources: each line names its own; a turn without an answer yet: at the end.
        items.push(Item::new(ItemKind::User {
            text: "q2".into(),
            chips: vec![],
        }));
        let two = vec![
            checks[0].clone(),
            check("notes/n.md#line=2,2", None, Verdict::NoQuote, None),
        ];
        insert(&mut items, two);
        assert!(matches!(
            &items[items.len() - 3].kind,
            ItemKind::Notice(n) if n == "citations: ✓ 1 verified, · 1 no quote"
        ));
        assert!(matches!(
            items.last().unwrap().kind,
            ItemKind::Citation { named: true, .. }
        ));
        // Enter goes where the quote is.
        let j = jump(&check(
            "papers/x/paper.pdf#page=2",
            Some("q"),
            Verdict::OtherPage,
            Some("papers/x/paper.pdf#page=5"),
        ))
        .unwrap();
        assert_eq!(
            (j.to.path.as_str(), j.to.page, j.quote.as_deref()),
            ("papers/x/paper.pdf", 5, Some("q"))
        );
    }
}
