//! The conversation drawn as history cells: each item of a thread renders to lines (cached
//! per width), and a thread is drawn from its end upwards until the area is full. Shared by
//! the chat pane and the Quick Chat.

use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::scroll::{Scroll, window};
use super::{Item, ItemKind, SourceRef, Thread};
use crate::tui::action::Action;
use crate::tui::markdown;
use crate::tui::text::str_width;
use crate::tui::theme::Theme;
use crate::tui::widgets::truncate;

/// The OSC 8 sequences that open and close a hyperlink.
pub fn osc8_open(url: &str) -> String {
    format!("\x1b]8;;{url}\x1b\\")
}
pub const OSC8_CLOSE: &str = "\x1b]8;;\x1b\\";

/// Makes the external sources (DOI, arXiv, any http(s) URI) shown in `area` OSC 8
/// hyperlinks. The text is rendered as usual; then the opening sequence goes into the
/// symbol of the link's first cell and the closing one into its last, each cell forced to
/// width 1 so that ratatui's diff (which would otherwise measure the escape's printable
/// bytes) keeps every following cell where it is. Terminals without OSC 8 ignore it.
pub fn link_sources(buf: &mut ratatui::buffer::Buffer, area: Rect, t: &Thread) {
    let urls: Vec<&str> = t
        .items
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::Source(s) => Some(s.uri.as_str()),
            _ => None,
        })
        .filter(|u| {
            matches!(
                crate::vault::uri::parse(u),
                Some(crate::vault::uri::Target::External(_))
            )
        })
        .collect();
    if urls.is_empty() {
        return;
    }
    for y in area.top()..area.bottom() {
        // A source line is drawn as "  → uri  \"quote\"": find the arrow, then the uri.
        let Some(arrow) = (area.left()..area.right()).find(|&x| buf[(x, y)].symbol() == "→")
        else {
            continue;
        };
        let start = arrow + 2;
        for url in &urls {
            let mut end = start;
            for c in url.chars() {
                if end >= area.right() || buf[(end, y)].symbol() != c.encode_utf8(&mut [0; 4]) {
                    break;
                }
                end += 1;
            }
            let matched = end - start;
            let whole = matched as usize == url.chars().count();
            // Cut short by the pane ("https://doi.org/10.1…"): the visible part links to
            // the whole URI.
            let cut = end < area.right() && buf[(end, y)].symbol() == "…" && matched >= 8;
            if whole || cut {
                set_link(buf, y, start, end - 1, url);
                break;
            }
        }
    }
}

fn set_link(buf: &mut ratatui::buffer::Buffer, y: u16, first: u16, last: u16, url: &str) {
    use ratatui::buffer::CellDiffOption;
    let one = CellDiffOption::ForcedWidth(std::num::NonZeroU16::MIN);
    let open = format!("{}{}", osc8_open(url), buf[(first, y)].symbol());
    buf[(first, y)].set_symbol(&open).set_diff_option(one);
    let close = format!("{}{OSC8_CLOSE}", buf[(last, y)].symbol());
    buf[(last, y)].set_symbol(&close).set_diff_option(one);
}

/// A document's title by its vault path, as the listing knows it (sources show titles).
pub type Titles<'a> = &'a dyn Fn(&str) -> Option<String>;

/// No titles known: sources show their paths.
pub fn no_titles(_: &str) -> Option<String> {
    None
}

/// The visible lines of a thread at the window `scroll` describes ([`scroll::window`]),
/// resolving what the keys asked for (this is the draw).
pub fn thread_lines(
    t: &Thread,
    selected: Option<usize>,
    scroll: &Scroll,
    (w, h): (usize, usize),
    theme: &Theme,
    titles: Titles<'_>,
) -> Vec<Line<'static>> {
    window(t, selected, scroll, true, (w, h), &mut |i, item| {
        let mut l = item_lines(item, theme, w, titles);
        if Some(i) == selected {
            let sel = theme.style(match item.kind {
                ItemKind::Source(_) => "chat.source.selected",
                _ => "chat.selected",
            });
            if let Some(first) = l.first_mut() {
                *first = first.clone().patch_style(sel);
            }
        }
        l
    })
    .into_iter()
    .map(|(l, _)| l)
    .collect()
}

/// A dim line of advice where a thread has nothing to show yet, wrapped to `width`.
pub fn empty_hint(text: &str, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    markdown::wrap_segments(
        &[(text.to_string(), theme.style("ui.dim"))],
        width,
        "",
        "",
        Style::default(),
    )
}

/// Which item each visible line of the thread belongs to (`None`: a separator), in the
/// window last drawn: the mouse's hit-testing.
pub fn thread_line_items(
    t: &Thread,
    selected: Option<usize>,
    scroll_from_end: usize,
    w: usize,
    h: usize,
) -> Vec<Option<usize>> {
    // Line counts do not depend on the styles: without the view's cache, a plain theme.
    let plain = Theme::default();
    let scroll = Scroll::at(scroll_from_end);
    window(t, selected, &scroll, false, (w, h), &mut |_, item| {
        if let Some((cw, exp, lines)) = item.cache.borrow().as_ref()
            && *cw == w
            && *exp == item.expanded
        {
            return lines.clone();
        }
        // A source is one line whatever its title: no titles needed to count.
        render_item(item, &plain, w, &no_titles)
    })
    .into_iter()
    .map(|(_, i)| i)
    .collect()
}

/// Rendered lines of one chat item (cached per width).
fn item_lines(item: &Item, theme: &Theme, width: usize, titles: Titles<'_>) -> Vec<Line<'static>> {
    if let Some((w, exp, lines)) = item.cache.borrow().as_ref()
        && *w == width
        && *exp == item.expanded
    {
        return lines.clone();
    }
    let lines = render_item(item, theme, width, titles);
    *item.cache.borrow_mut() = Some((width, item.expanded, lines.clone()));
    lines
}

fn render_item(item: &Item, theme: &Theme, width: usize, titles: Titles<'_>) -> Vec<Line<'static>> {
    match &item.kind {
        ItemKind::User { text, chips } => super::mentions::user_lines(text, chips, theme, width),
        ItemKind::Citation { check, named } => super::verdicts::lines(check, *named, theme, width),
        ItemKind::Agent { text } => {
            let mut l = vec![Line::styled("agent", theme.style("chat.user"))];
            for line in markdown::render(
                &super::verdicts::compact_uris(text),
                width.saturating_sub(2),
                theme,
                theme.style("chat.agent"),
            ) {
                let mut spans = vec![Span::raw("  ")];
                spans.extend(line.spans);
                l.push(Line::from(spans));
            }
            l
        }
        ItemKind::Thought { text } => {
            let style = theme.style("chat.thought");
            if item.expanded {
                let mut l = vec![Line::styled("▾ thought", style)];
                for line in text.lines() {
                    l.extend(markdown::wrap_segments(
                        &[(line.to_string(), style)],
                        width,
                        "  ",
                        "  ",
                        style,
                    ));
                }
                l
            } else {
                let first = text.lines().next().unwrap_or("");
                vec![Line::styled(
                    truncate(&format!("▸ thought: {first}"), width),
                    style,
                )]
            }
        }
        ItemKind::Tool {
            title,
            status,
            detail,
            ..
        } => {
            let style = theme.style(&format!("chat.tool.{}", status.key()));
            // The title gets what the glyph and the status leave: the status is never cut.
            let glyph = format!("{} ", super::status_glyph(*status));
            let state = format!(" · {}", status.key().replace('_', " "));
            let room = width.saturating_sub(str_width(&glyph) + str_width(&state));
            let mut l = vec![Line::from(vec![
                Span::styled(glyph, style),
                Span::styled(truncate(title, room), theme.style("chat.tool")),
                Span::styled(state, style),
            ])];
            if item.expanded && detail.is_empty() {
                l.push(Line::styled(
                    "    (the agent sent no details for this call)",
                    theme.style("ui.dim"),
                ));
            } else if item.expanded {
                for line in detail.lines() {
                    l.extend(markdown::wrap_segments(
                        &[(line.to_string(), theme.style("ui.dim"))],
                        width,
                        "    ",
                        "    ",
                        Style::default(),
                    ));
                }
            }
            l
        }
        // A consulted source is listed under its line, indented.
        ItemKind::Source(s) if item.listed.is_some() => vec![Line::styled(
            format!("  {}", source_line(s, width.saturating_sub(2), titles)),
            theme.style("chat.source"),
        )],
        ItemKind::Source(s) => vec![Line::styled(
            source_line(s, width, titles),
            theme.style("chat.source"),
        )],
        ItemKind::Consulted(n) => {
            let head = if item.expanded {
                format!("consulted: {n} (read by tools, not cited)")
            } else {
                format!("consulted: {n} (not cited; z lists)")
            };
            vec![Line::styled(
                truncate(&head, width),
                theme.style("chat.notice"),
            )]
        }
        ItemKind::Error(e) => paragraphs(&format!("error: {e}"), width, theme.style("chat.error")),
        ItemKind::Notice(n) => paragraphs(n, width, theme.style("chat.notice")),
    }
}

/// A source on one line of `width`: `→ title · p. N · "quote…"` for a vault document (its
/// path when the listing has no title), the URI itself for an external one (it becomes a
/// hyperlink). When the line is too long the quote is cut first, then the title; the page
/// stays.
pub fn source_line(s: &SourceRef, width: usize, titles: Titles<'_>) -> String {
    use crate::vault::uri::{Target, parse};
    let quote = s
        .quote
        .as_ref()
        .map(|q| q.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|q| !q.is_empty());
    let (name, place) = match parse(&s.uri) {
        Some(Target::Vault { path, page, lines }) => {
            let name = titles(&path)
                .filter(|t| !t.trim().is_empty())
                .unwrap_or(path);
            let place = match (page, lines) {
                (Some(p), _) => format!(" · p. {p}"),
                (None, Some((a, b))) if a == b => format!(" · line {a}"),
                (None, Some((a, b))) => format!(" · lines {a}–{b}"),
                (None, None) => String::new(),
            };
            (name, place)
        }
        // External sources keep their URI (the hyperlink is found by it), the quote after.
        _ => (s.uri.clone(), String::new()),
    };
    let head = "  → ";
    let quoted = quote.map(|q| format!(" · \"{q}\""));
    let full = format!("{head}{name}{place}{}", quoted.as_deref().unwrap_or(""));
    if str_width(&full) <= width {
        return full;
    }
    // The quote gets what is left after the name (at most half the line) and the place.
    let fixed = str_width(head) + str_width(&place);
    let name_room = width.saturating_sub(fixed).min(width / 2).max(8);
    let name_cut = if str_width(&name) > name_room && quoted.is_some() {
        truncate(&name, name_room)
    } else {
        name.clone()
    };
    let line = format!("{head}{name_cut}{place}");
    let room = width.saturating_sub(str_width(&line));
    match quoted {
        Some(q) if room >= 8 => format!("{line}{}", truncate(&q, room)),
        _ if str_width(&line) <= width => line,
        _ => {
            // Even without the quote too long: the name is cut, the place kept.
            let room = width.saturating_sub(fixed);
            format!("{head}{}{place}", truncate(&name, room))
        }
    }
}

/// Text with its own line breaks kept (a login message lists its methods one per line), each
/// line wrapped to the width; continuation rows indented.
fn paragraphs(text: &str, width: usize, style: Style) -> Vec<Line<'static>> {
    text.lines()
        .enumerate()
        .flat_map(|(i, line)| {
            let first = if i == 0 { "" } else { "  " };
            markdown::wrap_segments(
                &[(line.trim_end().to_string(), style)],
                width,
                first,
                "  ",
                Style::default(),
            )
        })
        .collect()
}

/// Moves a selection over a thread's selectable items (sources, tool cards, thoughts);
/// `None` follows the end.
pub fn step_selection(
    t: &Thread,
    current: Option<usize>,
    action: Action,
    n: usize,
) -> Option<usize> {
    let sel: Vec<usize> = t
        .items
        .iter()
        .enumerate()
        .filter(|(_, i)| i.selectable())
        .map(|(i, _)| i)
        .collect();
    if sel.is_empty() {
        return current;
    }
    let pos = current.and_then(|s| sel.iter().position(|&i| i == s));
    // Down from the end starts at the last answer's first source or tool card.
    let last_question = t
        .items
        .iter()
        .rposition(|i| matches!(i.kind, ItemKind::User { .. }))
        .unwrap_or(0);
    let new = match (action, pos) {
        (Action::GotoTop, _) => Some(0),
        (Action::GotoPage, _) => None,
        (Action::MoveUp, None) => Some(sel.len() - 1),
        (Action::MoveDown, None) => Some(sel.iter().position(|&i| i > last_question).unwrap_or(0)),
        (Action::MoveUp, Some(p)) => Some(p.saturating_sub(n)),
        (Action::MoveDown, Some(p)) if p + n < sel.len() => Some(p + n),
        (Action::MoveDown, _) => None,
        _ => pos,
    };
    new.map(|p| sel[p])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::thread::ToolStatus;

    /// The status of a tool card is never cut: the title gives way, glyph included.
    #[test]
    fn a_tool_card_keeps_its_status_whole() {
        for status in [
            ToolStatus::Pending,
            ToolStatus::InProgress,
            ToolStatus::Completed,
            ToolStatus::Failed,
        ] {
            let item = Item::new(ItemKind::Tool {
                id: "t".into(),
                title: "context_read papers/dense-vs-sparse/paper.pdf p.2".into(),
                status,
                detail: String::new(),
            });
            for width in [24, 34, 56] {
                let lines = render_item(&item, &Theme::default(), width, &no_titles);
                let text: String = lines[0].spans.iter().map(|s| s.content.as_ref()).collect();
                let want = format!(" · {}", status.key().replace('_', " "));
                assert!(text.ends_with(&want), "{width}: {text:?}");
                assert!(str_width(&text) <= width, "{width}: {text:?}");
                assert!(text.contains('…'), "{width}: {text:?}");
            }
        }
    }

    /// A vault source reads `→ title · p. N · "quote…"`; when cut, the quote goes first, then
    /// the title, never the page; without a title the path shows; an external one keeps its URI.
    #[test]
    fn sources_show_title_page_and_quote() {
        let titles = |p: &str| {
            (p == "papers/dense-vs-sparse/paper.pdf")
                .then(|| "Dense or Sparse? Retrieving Passages from Scientific Papers".to_string())
        };
        let s = SourceRef {
            uri: "papers/dense-vs-sparse/paper.pdf#page=3".into(),
            quote: Some("BM25 wins on exact   identifiers\nand numbers".into()),
        };
        assert_eq!(
            source_line(&s, 200, &titles),
            "  → Dense or Sparse? Retrieving Passages from Scientific Papers · p. 3 · \"BM25 wins on exact identifiers and numbers\""
        );
        for w in [40, 60, 80] {
            let line = source_line(&s, w, &titles);
            assert!(str_width(&line) <= w, "{w}: {line}");
            assert!(line.contains(" · p. 3"), "{w}: {line}");
            assert!(line.starts_with("  → Dense or"), "{w}: {line}");
        }
        let narrow = source_line(&s, 60, &titles);
        assert!(narrow.contains("· \"BM25"), "{narrow}");
        // No title: the path.
        let other = SourceRef {
            uri: "notes/retrieval-comparison.md#line=3,9".into(),
            quote: None,
        };
        assert_eq!(
            source_line(&other, 80, &titles),
            "  → notes/retrieval-comparison.md · lines 3–9"
        );
        let ext = SourceRef {
            uri: "https://doi.org/10.1000/dense.2021".into(),
            quote: None,
        };
        assert_eq!(
            source_line(&ext, 80, &titles),
            "  → https://doi.org/10.1000/dense.2021"
        );
    }

    fn rows(item: &Item, width: usize) -> Vec<String> {
        render_item(item, &Theme::default(), width, &no_titles)
            .iter()
            .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect())
            .collect()
    }

    /// A login error keeps its line breaks (its methods one per line) and wraps within the
    /// width; a long notice wraps instead of being cut.
    #[test]
    fn errors_and_notices_keep_their_lines_and_wrap() {
        let e = Item::new(ItemKind::Error(
            "agent codex needs a login: Authentication required\nTo log in: set CODEX_API_KEY.\nThe agent offers:\n- Use CODEX_API_KEY (codex-api-key)".into(),
        ));
        let r = rows(&e, 40);
        assert!(
            r[0].starts_with("error: agent codex needs a login"),
            "{r:?}"
        );
        assert!(
            r.iter()
                .any(|l| l.trim_start() == "To log in: set CODEX_API_KEY."),
            "{r:?}"
        );
        assert!(
            r.iter()
                .any(|l| l.trim_start().starts_with("- Use CODEX_API_KEY")),
            "{r:?}"
        );
        assert!(r.iter().all(|l| str_width(l) <= 40), "{r:?}");
        let n = Item::new(ItemKind::Notice(
            "gemini started the agentero-context server but never listed its tools this turn. Gemini CLI skips MCP servers of folders it does not trust".into(),
        ));
        let r = rows(&n, 40);
        assert!(r.len() > 2, "{r:?}");
        assert!(r.concat().contains("does not trust"), "{r:?}");
    }
}
