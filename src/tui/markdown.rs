//! Agent messages as Markdown (pulldown-cmark): headings, lists, code, emphasis and links,
//! wrapped to the pane by display width.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Parser, Tag, TagEnd};
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::text::char_width;
use super::theme::Theme;

/// Renders Markdown into wrapped lines of at most `width` cells.
pub fn render(src: &str, width: usize, theme: &Theme, base: Style) -> Vec<Line<'static>> {
    let width = width.max(8);
    let mut out: Vec<Line<'static>> = Vec::new();
    let mut segs: Vec<(String, Style)> = Vec::new();
    let mut styles: Vec<Style> = vec![base];
    let mut lists: Vec<Option<u64>> = Vec::new();
    let mut item_prefix: Option<String> = None;
    let mut in_code = false;
    let mut quote_depth = 0usize;
    let indent = |lists: &Vec<Option<u64>>| "  ".repeat(lists.len().saturating_sub(1));

    let flush =
        |segs: &mut Vec<(String, Style)>, out: &mut Vec<Line<'static>>, first: &str, rest: &str| {
            if segs.is_empty() {
                return;
            }
            out.extend(wrap_segments(segs, width, first, rest, base));
            segs.clear();
        };

    for ev in Parser::new(src) {
        match ev {
            Event::Start(Tag::Heading { level, .. }) => {
                let marks = match level {
                    HeadingLevel::H1 => "# ",
                    HeadingLevel::H2 => "## ",
                    _ => "### ",
                };
                styles.push(theme.style("chat.heading"));
                segs.push((marks.to_string(), theme.style("chat.heading")));
            }
            Event::End(TagEnd::Heading(_)) => {
                styles.pop();
                flush(&mut segs, &mut out, "", "");
            }
            Event::Start(Tag::Paragraph) => {}
            Event::End(TagEnd::Paragraph) => {
                let q = "│ ".repeat(quote_depth);
                match item_prefix.take() {
                    Some(p) => {
                        let rest = format!("{q}{}", " ".repeat(p.chars().count()));
                        flush(&mut segs, &mut out, &format!("{q}{p}"), &rest);
                    }
                    None => {
                        let pad = format!(
                            "{q}{}",
                            if lists.is_empty() {
                                String::new()
                            } else {
                                indent(&lists) + "  "
                            }
                        );
                        flush(&mut segs, &mut out, &pad, &pad);
                    }
                }
                if lists.is_empty() {
                    out.push(Line::default());
                }
            }
            Event::Start(Tag::BlockQuote(_)) => quote_depth += 1,
            Event::End(TagEnd::BlockQuote(_)) => quote_depth = quote_depth.saturating_sub(1),
            Event::Start(Tag::List(start)) => {
                if let Some(p) = item_prefix.take() {
                    let rest = " ".repeat(p.chars().count());
                    flush(&mut segs, &mut out, &p, &rest);
                }
                lists.push(start);
            }
            Event::End(TagEnd::List(_)) => {
                lists.pop();
                if lists.is_empty() {
                    out.push(Line::default());
                }
            }
            Event::Start(Tag::Item) => {
                let ind = indent(&lists);
                let bullet = match lists.last_mut() {
                    Some(Some(n)) => {
                        let b = format!("{n}. ");
                        *n += 1;
                        b
                    }
                    _ => "• ".to_string(),
                };
                item_prefix = Some(format!("{ind}{bullet}"));
            }
            Event::End(TagEnd::Item) => {
                // Tight list items have no paragraph: their text is still pending here.
                if let Some(p) = item_prefix.take() {
                    let rest = " ".repeat(p.chars().count());
                    flush(&mut segs, &mut out, &p, &rest);
                } else {
                    let pad = indent(&lists) + "  ";
                    flush(&mut segs, &mut out, &pad, &pad);
                }
            }
            Event::Start(Tag::CodeBlock(kind)) => {
                in_code = true;
                if let CodeBlockKind::Fenced(lang) = kind
                    && !lang.is_empty()
                {
                    out.push(Line::styled(format!("  ┌ {lang}"), theme.style("ui.dim")));
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                in_code = false;
                out.push(Line::default());
            }
            Event::Start(Tag::Emphasis) => {
                styles.push(cur(&styles).patch(theme.style("chat.emphasis")))
            }
            Event::Start(Tag::Strong) => {
                styles.push(cur(&styles).patch(theme.style("chat.strong")))
            }
            Event::Start(Tag::Link { .. }) => {
                styles.push(cur(&styles).patch(theme.style("chat.link")))
            }
            Event::End(TagEnd::Emphasis | TagEnd::Strong | TagEnd::Link) => {
                styles.pop();
            }
            Event::Text(t) if in_code => {
                let code = theme.style("chat.code");
                for l in t.trim_end_matches('\n').split('\n') {
                    // Code is not re-flowed: long lines are cut into rows as they are.
                    let segs_line = vec![(l.to_string(), code)];
                    out.extend(wrap_segments(&segs_line, width, "  │ ", "  │ ", base));
                }
            }
            Event::Text(t) => segs.push((t.into_string(), cur(&styles))),
            Event::Code(t) => segs.push((t.into_string(), theme.style("chat.code"))),
            Event::SoftBreak => segs.push((" ".to_string(), cur(&styles))),
            Event::HardBreak => {
                let p = item_prefix.take().unwrap_or_default();
                let rest = " ".repeat(p.chars().count());
                flush(&mut segs, &mut out, &p, &rest);
                item_prefix = None;
            }
            Event::Rule => out.push(Line::styled(
                "─".repeat(width.min(40)),
                theme.style("ui.dim"),
            )),
            _ => {}
        }
    }
    flush(&mut segs, &mut out, "", "");
    while out.last().is_some_and(|l| l.width() == 0) {
        out.pop();
    }
    out
}

fn cur(styles: &[Style]) -> Style {
    styles.last().copied().unwrap_or_default()
}

/// Word-wraps styled segments; `first`/`rest` prefix the first and following rows.
pub fn wrap_segments(
    segs: &[(String, Style)],
    width: usize,
    first: &str,
    rest: &str,
    prefix_style: Style,
) -> Vec<Line<'static>> {
    // Split into words (keeping trailing spaces with the word) so a break never splits a word
    // unless the word alone is wider than the row.
    let mut words: Vec<(String, Style)> = Vec::new();
    for (text, style) in segs {
        let mut cur = String::new();
        for c in text.chars() {
            cur.push(c);
            if c == ' ' {
                words.push((std::mem::take(&mut cur), *style));
            }
        }
        if !cur.is_empty() {
            words.push((cur, *style));
        }
    }
    let mut lines = Vec::new();
    let mut spans: Vec<Span<'static>> = vec![Span::styled(first.to_string(), prefix_style)];
    let mut used = super::text::str_width(first);
    let rest_w = super::text::str_width(rest);
    for (word, style) in words {
        let w = super::text::str_width(word.trim_end());
        if used + w > width && used > rest_w.max(super::text::str_width(first)) {
            lines.push(Line::from(std::mem::take(&mut spans)));
            spans.push(Span::styled(rest.to_string(), prefix_style));
            used = rest_w;
            if word.trim().is_empty() {
                continue;
            }
        }
        if used + w > width {
            // A word wider than the row: cut it by characters.
            let mut piece = String::new();
            for c in word.chars() {
                let cw = char_width(c);
                if used + cw > width && !piece.is_empty() {
                    spans.push(Span::styled(std::mem::take(&mut piece), style));
                    lines.push(Line::from(std::mem::take(&mut spans)));
                    spans.push(Span::styled(rest.to_string(), prefix_style));
                    used = rest_w;
                }
                piece.push(c);
                used += cw;
            }
            spans.push(Span::styled(piece, style));
            continue;
        }
        used += super::text::str_width(&word);
        spans.push(Span::styled(word, style));
    }
    lines.push(Line::from(spans));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .map(|l| {
                l.spans
                    .iter()
                    .map(|s| s.content.as_ref())
                    .collect::<String>()
            })
            .collect()
    }

    #[test]
    fn headings_lists_code() {
        let t = Theme::try_load("default", &super::super::theme::shipped, false).unwrap();
        let md =
            "# Title\n\nSome *emphasis* and `code`.\n\n- one\n- two\n\n```rust\nfn x() {}\n```\n";
        let lines = plain(&render(md, 40, &t, Style::default()));
        assert_eq!(lines[0], "# Title");
        assert!(lines.contains(&"• one".to_string()), "{lines:?}");
        assert!(lines.iter().any(|l| l.contains("│ fn x() {}")), "{lines:?}");
    }

    #[test]
    fn wraps_within_width() {
        let t = Theme::default();
        let md = "word ".repeat(40);
        for l in render(&md, 20, &t, Style::default()) {
            assert!(l.width() <= 20, "{l:?}");
        }
    }
}
