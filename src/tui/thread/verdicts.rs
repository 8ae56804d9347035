//! The verdicts of a turn's citations in the chat (issue 14): under the answer, one line per
//! citation — `✓` the quote is on the cited page, `⚠` it is not (with the page where it does
//! occur, or the token that differs, or why it cannot be checked), `·` a citation without a
//! quote — after a header that counts them. Each line
//! is selectable: `enter` opens the page where the quote is (the cited page when it is
//! nowhere), with the quote highlighted ([`opens`]). Kept apart from the source cards so either can change.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::context::citations::{CitationCheck, Verdict};
use crate::tui::markdown;
use crate::tui::text::str_width;
use crate::tui::theme::Theme;
use crate::tui::widgets::truncate;
use crate::vault::uri::{self, Target};

/// The header above a turn's verdicts: how many of each (and the source, when only one is
/// cited).
pub fn summary(checks: &[CitationCheck]) -> String {
    let count = |f: &dyn Fn(Verdict) -> bool| checks.iter().filter(|c| f(c.verdict)).count();
    let ok = count(&|v| v.is_verified());
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

/// Whether the checks cite more than one source (each line then names its own).
pub fn several_sources(checks: &[CitationCheck]) -> bool {
    sources(checks).len() > 1
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

/// A short name of a source: the paper's folder (`papers/x/paper.pdf` → `x`), a short path
/// as it is (`notes/a.md`), else the file's name without the folders (a Zotero file is named
/// `Author et al. - 2015 - Title.pdf`), the extension of a PDF dropped, at most 40 characters.
pub fn name(path: &str) -> String {
    let base = match path.rsplit_once('/') {
        Some((dir, "paper.pdf")) => dir.rsplit('/').next().unwrap_or(dir),
        _ if path.chars().count() <= 40 => return path.to_string(),
        Some((_, file)) => file,
        None => path,
    };
    let base = base
        .strip_suffix(".pdf")
        .or_else(|| base.strip_suffix(".PDF"))
        .unwrap_or(base);
    truncate(base, 40)
}

/// A vault citation URI in an answer's text, shown briefly when it is long or percent-encoded
/// (a Zotero file's): `storage/ABCD2345/%C3%96ster%20et%20al.…pdf#page=3` reads
/// `‹Öster et al. - 2015 - Footnotes… p. 3›`. Short URIs (`papers/x/paper.pdf#page=3`) stay
/// as written; the transcript keeps every URI as the agent wrote it.
pub fn compact_uris(text: &str) -> std::borrow::Cow<'_, str> {
    static URI: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"[^\s()<>\[\]`'\x22]+#(?:page=\d+|line=\d+(?:,\d+)?)").expect("valid")
    });
    URI.replace_all(text, |c: &regex::Captures| {
        let raw = &c[0];
        let long = raw.contains('%') || raw.chars().count() > 48;
        match uri::parse(raw) {
            Some(Target::Vault { path, page, lines }) if long => {
                let at = match (page, lines) {
                    (Some(p), _) => format!(" p. {p}"),
                    (None, Some((a, b))) if a == b => format!(" line {a}"),
                    (None, Some((a, b))) => format!(" lines {a}–{b}"),
                    (None, None) => String::new(),
                };
                format!("‹{}{at}›", name(&path))
            }
            _ => raw.to_string(),
        }
    })
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

/// What the mark means, in the words the chat (and `agentero ask`) shows.
pub fn state(c: &CitationCheck) -> String {
    c.meaning()
}

fn style_key(v: Verdict) -> &'static str {
    match v {
        Verdict::Verified | Verdict::VerifiedOcr => "chat.citation.verified",
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
/// page (the quote is highlighted there).
pub fn opens(c: &CitationCheck) -> &str {
    c.found_at.as_deref().unwrap_or(&c.uri)
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
            detail: None,
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

    /// The header counts each kind and names the one source cited; enter goes where the quote
    /// is.
    #[test]
    fn the_header_counts_and_enter_goes_where_the_quote_is() {
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
        assert_eq!(
            summary(&checks),
            "citations of x: ✓ 1 verified, ⚠ 1 not found, · 1 no quote"
        );
        assert!(!several_sources(&checks));
        let two = vec![
            checks[0].clone(),
            check("notes/n.md#line=2,2", None, Verdict::NoQuote, None),
        ];
        assert_eq!(summary(&two), "citations: ✓ 1 verified, · 1 no quote");
        assert!(several_sources(&two));
        // Enter goes where the quote is.
        let moved = check(
            "papers/x/paper.pdf#page=2",
            Some("q"),
            Verdict::OtherPage,
            Some("papers/x/paper.pdf#page=5"),
        );
        assert_eq!(opens(&moved), "papers/x/paper.pdf#page=5");
        assert_eq!(opens(&checks[1]), "papers/x/paper.pdf#page=2");
    }

    /// What differs is said in the chat too, and kept within the width.
    #[test]
    fn the_differing_token_is_shown_within_the_width() {
        let mut c = check(
            "papers/x/paper.pdf#page=3",
            Some("The error rate fell to 45.6% with fusion"),
            Verdict::NotFound,
            None,
        );
        c.detail = Some("\"45.6%\" — the page has \"4.56%\"".into());
        let r = rows(&c, false, 100);
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(
            r[0].ends_with(" · not verified: \"45.6%\" — the page has \"4.56%\""),
            "{r:?}"
        );
        for width in [60, 40, 24] {
            let r = rows(&c, false, width);
            assert!(r.iter().all(|l| str_width(l.trim_end()) <= width), "{r:?}");
            let all = r.join(" ");
            assert!(all.contains("\"4.56%\"") && all.contains("45.6%"), "{r:?}");
        }
        c.verdict = Verdict::Unverifiable;
        c.detail = Some("page 3 has no text to check against".into());
        assert!(
            rows(&c, false, 100)[0]
                .ends_with(" · cannot be checked: page 3 has no text to check against")
        );
    }

    #[test]
    fn long_and_encoded_uris_read_briefly() {
        let zot = "storage/ABCD2345/%C3%96ster%20et%20al.%20-%202015%20-%20Footnotes%20and%20furniture.pdf#page=3";
        let text = format!("It says so — {zot}. And (papers/x/paper.pdf#page=2).");
        let shown = compact_uris(&text);
        assert_eq!(
            shown,
            "It says so — ‹Öster et al. - 2015 - Footnotes and fur… p. 3›. And (papers/x/paper.pdf#page=2)."
        );
        let lines = "notes/a-very-long-folder-name/and-a-long-note-name.md#line=3,9";
        assert_eq!(compact_uris(lines), "‹and-a-long-note-name.md lines 3–9›");
        assert_eq!(name("notes/a.md"), "notes/a.md");
        // Not a citation URI: unchanged.
        for t in ["see #page=3", "a%20b", "https://x.org/a%20b.pdf#page=2"] {
            assert_eq!(compact_uris(t), t);
        }
        assert_eq!(
            name("storage/ABCD2345/Öster et al. - 2015 - A title that goes on and on and on.pdf"),
            "Öster et al. - 2015 - A title that goes…"
        );
        assert_eq!(name("papers/dense-vs-sparse/paper.pdf"), "dense-vs-sparse");
    }
}
