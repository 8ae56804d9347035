//! `view(&AppState, &Theme, &mut Frame)`: a pure function of the state.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::action::Action;
use super::app::{AgentState, AppState, Overlay, Pane, PromptKind};
use super::chat::{Item, ItemKind};
use super::keymap::Mode;
use super::paper::{PaperView, Slot};
use super::text::{Row, str_width};
use super::theme::Theme;
use crate::vault::EntryKind;

#[derive(Debug, Clone, Copy, Default)]
pub struct Areas {
    pub vault: Rect,
    pub paper: Rect,
    pub paper_text: Rect,
    pub chat: Rect,
    pub status: Rect,
}

/// Three panes when wide; two (the focused one and its neighbour) below 140 columns.
pub fn layout(area: Rect, st: &AppState) -> Areas {
    let [main, status] = Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(area);
    let mut a = Areas {
        status,
        ..Areas::default()
    };
    if area.width >= 140 {
        let [v, p, c] = Layout::horizontal([
            Constraint::Percentage(24),
            Constraint::Fill(1),
            Constraint::Percentage(36),
        ])
        .areas(main);
        (a.vault, a.paper, a.chat) = (v, p, c);
    } else if st.focus == Pane::Vault {
        let [v, p] =
            Layout::horizontal([Constraint::Percentage(42), Constraint::Fill(1)]).areas(main);
        (a.vault, a.paper) = (v, p);
    } else {
        let [p, c] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Fill(1)]).areas(main);
        (a.paper, a.chat) = (p, c);
    }
    let inner = Block::bordered().inner(a.paper);
    a.paper_text = Rect {
        y: inner.y + 1,
        height: inner.height.saturating_sub(1),
        ..inner
    };
    a
}

pub fn view(st: &AppState, theme: &Theme, f: &mut Frame) {
    let a = layout(f.area(), st);
    f.render_widget(Block::default().style(theme.style("ui.text")), f.area());
    if a.vault.width > 0 {
        vault(st, theme, f, a.vault);
    }
    if a.paper.width > 0 {
        paper(st, theme, f, a.paper, a.paper_text);
    }
    if a.chat.width > 0 {
        chat(st, theme, f, a.chat);
    }
    status(st, theme, f, a.status);
    if !st.pending.is_empty() {
        which_key(st, theme, f, a.status);
    }
    match &st.overlay {
        Some(Overlay::Help { scroll }) => help(st, theme, f, *scroll),
        Some(Overlay::Outline { selected }) => outline(st, theme, f, *selected),
        Some(Overlay::Metadata) => metadata(st, theme, f),
        Some(Overlay::Threads { selected }) => threads(st, theme, f, *selected),
        Some(Overlay::Permission { request, .. }) => {
            // A Quick Chat's question is asked over its popup.
            if let Some(q) = &st.quick {
                quick_chat(st, q, theme, f);
            }
            permission(theme, f, request)
        }
        None => {
            if let Some(q) = &st.quick {
                quick_chat(st, q, theme, f);
            }
        }
    }
}

/// The Quick Chat popup: its chips, the question and streamed answer with its sources, and
/// the input while the question is typed (else the keys that apply).
fn quick_chat(st: &AppState, q: &super::app::QuickChat, theme: &Theme, f: &mut Frame) {
    let full = f.area();
    let area = centered(
        full,
        full.width.saturating_sub(4).min(100),
        full.height.saturating_sub(3).min(30),
    );
    f.render_widget(Clear, area);
    let mut title = " Quick Chat ".to_string();
    if q.turn.is_some() {
        title = " Quick Chat · answering… ".into();
    } else if let Some(info) = &q.thread.session {
        title = format!(
            " Quick Chat · {} · {} · grant {} · fp {} ",
            info.agent,
            info.mode,
            info.grant_sources,
            &info.fingerprint[..info.fingerprint.len().min(8)]
        );
    }
    let block = Block::bordered()
        .title(Span::styled(
            truncate(&title, area.width.saturating_sub(2) as usize),
            theme.style("ui.title"),
        ))
        .border_style(theme.style("ui.border.focus"));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let bottom_h = if q.composing() {
        (q.input.lines().len() as u16 + 2).clamp(3, 6)
    } else {
        1
    };
    let [chips_a, msgs_a, bottom_a] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(bottom_h),
    ])
    .areas(inner);
    let mut spans = chip_spans(&q.chips, theme, "");
    if q.chips.is_empty() {
        spans.push(Span::styled(
            "no context: the question goes alone",
            theme.style("ui.dim"),
        ));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), chips_a);
    let (w, h) = (msgs_a.width as usize, msgs_a.height as usize);
    let lines = if q.thread.items.is_empty() {
        super::markdown::wrap_segments(
            &[(
                "Ask about this page or the selection; the answer and its sources show here."
                    .to_string(),
                theme.style("ui.dim"),
            )],
            w,
            "",
            "",
            Style::default(),
        )
    } else {
        thread_lines(&q.thread, q.selected, 0, w, h, theme)
    };
    f.render_widget(Paragraph::new(lines), msgs_a);
    link_sources(f.buffer_mut(), msgs_a, &q.thread);
    let chain = st.mode_chain();
    let key = |a: Action| st.keymap.hint(&chain, a);
    if q.composing() {
        let mut input = q.input.clone();
        input.set_block(
            Block::bordered()
                .border_style(theme.style("ui.border.focus"))
                .title(Span::styled(
                    format!(
                        " question · {} sends · {} removes a chip · {} closes ",
                        key(Action::Send),
                        key(Action::RemoveChip),
                        key(Action::Cancel)
                    ),
                    theme.style("ui.dim"),
                )),
        );
        f.render_widget(&input, bottom_a);
    } else {
        let hint = if q.turn.is_some() {
            format!(
                "{} cancels · {} closes",
                key(Action::CancelTurn),
                key(Action::Cancel)
            )
        } else {
            format!(
                "j/k sources · {} opens · {} promotes to a chat thread · {} closes",
                key(Action::Open),
                key(Action::Promote),
                key(Action::Cancel)
            )
        };
        f.render_widget(
            Paragraph::new(truncate(&hint, bottom_a.width as usize)).style(theme.style("ui.dim")),
            bottom_a,
        );
    }
}

/// The context chips of a question; `mark` follows each label (removable chips show `✕`).
fn chip_spans(chips: &[super::app::Chip], theme: &Theme, mark: &str) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    for chip in chips {
        let key = if matches!(chip, super::app::Chip::Selection { .. }) {
            "ui.chip.selection"
        } else {
            "ui.chip"
        };
        spans.push(Span::styled(
            format!(" {} {mark}", chip.label()),
            theme.style(key),
        ));
        spans.push(Span::raw(" "));
    }
    spans
}

fn pane_block<'a>(title: String, focused: bool, theme: &Theme) -> Block<'a> {
    Block::bordered()
        .title(Span::styled(title, theme.style("ui.title")))
        .border_style(theme.style(if focused {
            "ui.border.focus"
        } else {
            "ui.border"
        }))
}

fn truncate(s: &str, width: usize) -> String {
    if str_width(s) <= width {
        return s.to_string();
    }
    let mut out = String::new();
    let mut w = 0;
    for c in s.chars() {
        let cw = super::text::char_width(c);
        if w + cw + 1 > width {
            break;
        }
        out.push(c);
        w += cw;
    }
    out.push('…');
    out
}

fn vault(st: &AppState, theme: &Theme, f: &mut Frame, area: Rect) {
    let b = &st.browser;
    let mut title = format!(" Vault · {} ", st.vault_name);
    if !b.filter.is_empty() {
        title = format!(" Vault · filter: {} ({}) ", b.filter, b.visible.len());
    }
    let block = pane_block(title, st.focus == Pane::Vault, theme);
    let inner = block.inner(area);
    f.render_widget(block, area);
    if b.visible.is_empty() {
        let msg = if !b.scanned {
            "scanning…"
        } else if b.entries.is_empty() {
            "This vault is empty. Put PDFs under papers/ and notes anywhere."
        } else {
            "Nothing matches the filter."
        };
        f.render_widget(
            Paragraph::new(msg)
                .style(theme.style("ui.dim"))
                .wrap(Wrap { trim: true }),
            inner,
        );
        return;
    }
    let h = inner.height as usize;
    let start = vault_start(b, h);
    let w = inner.width as usize;
    let lines: Vec<Line> = b.visible[start..]
        .iter()
        .take(h)
        .enumerate()
        .map(|(i, &ix)| {
            let e = &b.entries[ix];
            let indent = "  ".repeat(e.depth.min(4));
            let (icon, style) = match e.kind {
                EntryKind::Paper => ("▤ ", theme.style("browser.paper")),
                EntryKind::File => ("≡ ", theme.style("browser.file")),
                EntryKind::Directory => ("▸ ", theme.style("browser.directory")),
            };
            let name = if b.show_paths || e.kind != EntryKind::Paper {
                e.path.rsplit('/').next().unwrap_or(&e.path).to_string()
            } else {
                e.title.clone()
            };
            let name = if b.show_paths { e.path.clone() } else { name };
            let meta = match (e.authors.is_empty(), e.year) {
                (false, Some(y)) => format!(" {} {y}", e.authors),
                (false, None) => format!(" {}", e.authors),
                (true, Some(y)) => format!(" {y}"),
                _ => String::new(),
            };
            let head = format!("{indent}{icon}");
            let room = w.saturating_sub(str_width(&head));
            let name = truncate(&name, room);
            let meta = truncate(&meta, room.saturating_sub(str_width(&name)));
            let mut line = Line::from(vec![
                Span::raw(head),
                Span::styled(name, style),
                Span::styled(meta, theme.style("browser.meta")),
            ]);
            if start + i == b.selected {
                line = line.style(theme.style("ui.selection"));
            }
            line
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}

/// The first visible entry of the vault list `h` rows high: the selection stays in view.
pub fn vault_start(b: &super::browser::Browser, h: usize) -> usize {
    b.selected
        .saturating_sub(h.saturating_sub(1).min(h / 2))
        .min(b.visible.len().saturating_sub(h))
}

fn paper(st: &AppState, theme: &Theme, f: &mut Frame, area: Rect, text_area: Rect) {
    let focused = st.focus == Pane::Paper;
    let Some(p) = &st.paper else {
        let block = pane_block(" Paper ".into(), focused, theme);
        let inner = block.inner(area);
        f.render_widget(block, area);
        f.render_widget(
            Paragraph::new("No paper open. Choose one in the vault browser (space f, then enter).")
                .style(theme.style("ui.dim"))
                .wrap(Wrap { trim: true }),
            inner,
        );
        return;
    };
    let title = if p.info.title.is_empty() {
        p.path.clone()
    } else {
        p.info.title.clone()
    };
    let block = pane_block(
        format!(
            " {} ",
            truncate(&title, area.width.saturating_sub(4) as usize)
        ),
        focused,
        theme,
    );
    let inner = block.inner(area);
    f.render_widget(block, area);
    // Header line: page, label, section, visual mode.
    let mut header = p.page_header();
    let at = p.cursor_offset(&p.rows(text_area.width as usize));
    if let Some(s) = p
        .section_at(p.page, at)
        .filter(|_| p.kind == EntryKind::Paper)
    {
        let num = s
            .number
            .as_deref()
            .map(|n| format!("{n} "))
            .unwrap_or_default();
        header.push_str(&format!(" · {num}{}", s.title));
    }
    if let Some(v) = p.visual {
        header.push_str(if v.lines {
            " · VISUAL LINE"
        } else {
            " · VISUAL"
        });
    }
    let header_area = Rect { height: 1, ..inner };
    f.render_widget(
        Paragraph::new(truncate(&header, inner.width as usize)).style(theme.style("paper.header")),
        header_area,
    );
    let msg = match p.slot() {
        _ if !p.loaded => Some(("opening…".to_string(), "ui.dim")),
        Some(Slot::Loading) | Some(Slot::Missing) => {
            Some((format!("loading page {}…", p.page), "ui.dim"))
        }
        Some(Slot::Failed(e)) => Some((e.clone(), "chat.error")),
        Some(Slot::Text(t)) if t.trim().is_empty() => Some((
            format!(
                "Page {} has no text layer (a scanned image without OCR): nothing to show or search here.",
                p.page
            ),
            "paper.notext",
        )),
        _ => None,
    };
    if let Some((m, style)) = msg {
        f.render_widget(
            Paragraph::new(m)
                .style(theme.style(style))
                .wrap(Wrap { trim: true }),
            text_area,
        );
        return;
    }
    let lines = page_lines(
        p,
        theme,
        text_area.width as usize,
        text_area.height as usize,
        focused,
    );
    f.render_widget(Paragraph::new(lines), text_area);
}

/// The visible rows of the page with search hits, the cited quote or lines, the visual
/// selection and the cursor styled.
pub fn page_lines(
    p: &PaperView,
    theme: &Theme,
    width: usize,
    height: usize,
    focused: bool,
) -> Vec<Line<'static>> {
    let Some(text) = p.text(p.page) else {
        return Vec::new();
    };
    let rows: Vec<Row> = p.rows(width);
    let mut marks: Vec<(usize, usize, Style)> = Vec::new();
    for (i, h) in p.search.hits.iter().enumerate() {
        if h.page == p.page {
            let key = if p.search.current == Some(i) {
                "paper.match.current"
            } else {
                "paper.match"
            };
            marks.push((h.start, h.end, theme.style(key)));
        }
    }
    if let Some((page, s, e)) = p.quote
        && page == p.page
    {
        marks.push((s, e, theme.style("paper.quote")));
    }
    if let Some((s, e)) = p.selection(&rows) {
        marks.push((s, e, theme.style("paper.visual")));
    }
    let cursor = focused.then(|| {
        let c = p.cursor_offset(&rows);
        (c, c + text[c..].chars().next().map_or(0, char::len_utf8))
    });
    let gutter = (p.kind == EntryKind::File).then(|| p.gutter());
    let mut out = Vec::with_capacity(height);
    for (ri, r) in rows.iter().enumerate().skip(p.scroll).take(height) {
        let mut spans: Vec<Span<'static>> = Vec::new();
        let in_lines = p
            .lines
            .is_some_and(|(a, b)| (r.line + 1) as u32 >= a && (r.line + 1) as u32 <= b);
        if let Some(g) = gutter {
            let first = ri == 0 || rows[ri - 1].line != r.line;
            let num = if first {
                format!("{:>g$} ", r.line + 1)
            } else {
                " ".repeat(g + 1)
            };
            spans.push(Span::styled(num, theme.style("paper.lineno")));
        }
        let base = if in_lines {
            theme.style("paper.quote")
        } else {
            Style::default()
        };
        // Split the row at every mark boundary.
        let mut cuts = vec![r.start, r.end];
        for (s, e, _) in &marks {
            for x in [*s, *e] {
                if x > r.start && x < r.end {
                    cuts.push(x);
                }
            }
        }
        if let Some((s, e)) = cursor
            && ri == p.cursor_row
        {
            for x in [s, e] {
                if x > r.start && x < r.end {
                    cuts.push(x);
                }
            }
        }
        cuts.sort_unstable();
        cuts.dedup();
        for w in cuts.windows(2) {
            let (a, b) = (w[0], w[1]);
            let mut style = base;
            for (s, e, st) in &marks {
                if a >= *s && b <= *e && a < b {
                    style = style.patch(*st);
                }
            }
            if let Some((s, e)) = cursor
                && ri == p.cursor_row
                && a >= s
                && b <= e
            {
                style = style.patch(theme.style("ui.cursor"));
            }
            spans.push(Span::styled(text[a..b].replace('\t', "    "), style));
        }
        if r.start == r.end && ri == p.cursor_row && cursor.is_some() {
            spans.push(Span::styled(" ", theme.style("ui.cursor")));
        }
        out.push(Line::from(spans));
    }
    out
}

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
fn link_sources(buf: &mut ratatui::buffer::Buffer, area: Rect, t: &super::chat::Thread) {
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

/// The visible lines of a thread: rendered from the end upwards until the area is full (a
/// 500-message thread costs only what is visible), keeping the selection in view.
fn thread_lines(
    t: &super::chat::Thread,
    selected: Option<usize>,
    scroll_from_end: usize,
    w: usize,
    h: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    thread_rows(t, selected, scroll_from_end, h, &mut |i, item| {
        let mut l = item_lines(item, theme, w);
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

/// Which item each visible line of the thread belongs to (`None`: a separator), the same
/// walk as the view's: the mouse's hit-testing.
pub fn thread_line_items(
    t: &super::chat::Thread,
    selected: Option<usize>,
    scroll_from_end: usize,
    w: usize,
    h: usize,
) -> Vec<Option<usize>> {
    // Line counts do not depend on the styles: without the view's cache, a plain theme.
    let plain = Theme::default();
    thread_rows(t, selected, scroll_from_end, h, &mut |_, item| {
        if let Some((cw, exp, lines)) = item.cache.borrow().as_ref()
            && *cw == w
            && *exp == item.expanded
        {
            return lines.clone();
        }
        render_item(item, &plain, w)
    })
    .into_iter()
    .map(|(_, i)| i)
    .collect()
}

fn thread_rows(
    t: &super::chat::Thread,
    selected: Option<usize>,
    scroll_from_end: usize,
    h: usize,
    lines_of: &mut dyn FnMut(usize, &Item) -> Vec<Line<'static>>,
) -> Vec<(Line<'static>, Option<usize>)> {
    let mut lines: Vec<(Line<'static>, Option<usize>)> = Vec::new();
    if t.items.is_empty() {
        return lines;
    }
    // Which item must be visible: the selection, else the end.
    let anchor = selected.unwrap_or(t.items.len() - 1);
    let mut budget = h + scroll_from_end;
    let mut blocks: Vec<Vec<(Line<'static>, Option<usize>)>> = Vec::new();
    let last = if selected.is_some() {
        (anchor + 3).min(t.items.len() - 1)
    } else {
        t.items.len() - 1
    };
    for i in (0..=last).rev() {
        let item = &t.items[i];
        let mut l: Vec<(Line<'static>, Option<usize>)> = lines_of(i, item)
            .into_iter()
            .map(|l| (l, Some(i)))
            .collect();
        let separate = matches!(item.kind, ItemKind::User { .. } | ItemKind::Agent { .. });
        if separate {
            l.insert(0, (Line::default(), None));
        }
        let n = l.len();
        blocks.push(l);
        if n >= budget {
            break;
        }
        budget -= n;
    }
    for b in blocks.into_iter().rev() {
        lines.extend(b);
    }
    while lines.first().is_some_and(|(l, _)| l.width() == 0) {
        lines.remove(0);
    }
    let skip = lines.len().saturating_sub(h + scroll_from_end);
    lines.into_iter().skip(skip).take(h).collect()
}

/// Rendered lines of one chat item (cached per width).
fn item_lines(item: &Item, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    if let Some((w, exp, lines)) = item.cache.borrow().as_ref()
        && *w == width
        && *exp == item.expanded
    {
        return lines.clone();
    }
    let lines = render_item(item, theme, width);
    *item.cache.borrow_mut() = Some((width, item.expanded, lines.clone()));
    lines
}

fn render_item(item: &Item, theme: &Theme, width: usize) -> Vec<Line<'static>> {
    match &item.kind {
        ItemKind::User { text, chips } => {
            let mut l = vec![Line::styled("you", theme.style("chat.user"))];
            if !chips.is_empty() {
                l.push(Line::styled(
                    truncate(&format!("  [{}]", chips.join("] [")), width),
                    theme.style("ui.dim"),
                ));
            }
            for line in text.lines() {
                l.extend(super::markdown::wrap_segments(
                    &[(line.to_string(), Style::default())],
                    width,
                    "  ",
                    "  ",
                    Style::default(),
                ));
            }
            l
        }
        ItemKind::Agent { text } => {
            let mut l = vec![Line::styled("agent", theme.style("chat.user"))];
            for line in super::markdown::render(
                text,
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
                    l.extend(super::markdown::wrap_segments(
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
            let mut l = vec![Line::from(vec![
                Span::styled(format!("{} ", super::chat::status_glyph(*status)), style),
                Span::styled(
                    truncate(title, width.saturating_sub(14)),
                    theme.style("chat.tool"),
                ),
                Span::styled(format!(" · {}", status.key().replace('_', " ")), style),
            ])];
            if item.expanded && !detail.is_empty() {
                for line in detail.lines() {
                    l.extend(super::markdown::wrap_segments(
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
        ItemKind::Source(s) => {
            let mut text = format!("  → {}", s.uri);
            if let Some(q) = &s.quote {
                text.push_str(&format!(
                    "  \"{}\"",
                    q.split_whitespace().collect::<Vec<_>>().join(" ")
                ));
            }
            vec![Line::styled(
                truncate(&text, width),
                theme.style("chat.source"),
            )]
        }
        ItemKind::Error(e) => super::markdown::wrap_segments(
            &[(format!("error: {e}"), theme.style("chat.error"))],
            width,
            "",
            "  ",
            Style::default(),
        ),
        ItemKind::Notice(n) => vec![Line::styled(truncate(n, width), theme.style("chat.notice"))],
    }
}

/// The chat pane's inside: status line, messages, chips and the input.
pub fn chat_areas(c: &super::app::ChatState, inner: Rect) -> [Rect; 4] {
    let input_h = (c.input.lines().len() as u16 + 2).clamp(3, 6);
    let chips_h = if c.chips.is_empty() { 0 } else { 1 };
    Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(chips_h),
        Constraint::Length(input_h),
    ])
    .areas(inner)
}

fn chat(st: &AppState, theme: &Theme, f: &mut Frame, area: Rect) {
    let c = &st.chat;
    let thread = c.thread();
    let title = format!(
        " Chat · {} ({}/{}) ",
        thread.map_or("", |t| t.title.as_str()),
        c.current + 1,
        c.threads.len()
    );
    let block = pane_block(
        truncate(&title, area.width.saturating_sub(2) as usize),
        st.focus == Pane::Chat,
        theme,
    );
    let inner = block.inner(area);
    f.render_widget(block, area);
    let chips_h = if c.chips.is_empty() { 0 } else { 1 };
    let [status_a, msgs_a, chips_a, input_a] = chat_areas(c, inner);
    // Status line: agent · mode · grant · fingerprint · tools · session.
    let status = match (
        &c.agent,
        thread.and_then(|t| t.session.as_ref()),
        &c.preview,
    ) {
        (AgentState::Unavailable(why), _, _) => format!("agent unavailable: {why}"),
        (AgentState::Starting { name }, _, _) => format!("{name} · starting…"),
        (AgentState::Ready { name, .. }, session, preview) => {
            let mut s = name.clone();
            if let Some(p) = preview {
                s.push_str(&format!(
                    " · {} · grant {} source{}",
                    p.mode,
                    p.sources,
                    if p.sources == 1 { "" } else { "s" }
                ));
                if p.omitted > 0 {
                    s.push_str(&format!(" ({} omitted)", p.omitted));
                }
                s.push_str(&format!(
                    " · fp {}",
                    &p.fingerprint[..p.fingerprint.len().min(8)]
                ));
            }
            if let Some(info) = session {
                s.push_str(&format!(
                    " · tools {} · session {}",
                    if info.tools_attached {
                        "attached"
                    } else {
                        "not attached"
                    },
                    info.session
                ));
            }
            if c.turn.is_some() {
                s.push_str(" · answering…");
            }
            s
        }
    };
    f.render_widget(
        Paragraph::new(truncate(&status, status_a.width as usize)).style(theme.style("ui.dim")),
        status_a,
    );
    // Messages: render from the end upwards until the pane is full (500-message threads
    // cost only what is visible).
    let w = msgs_a.width as usize;
    let h = msgs_a.height as usize;
    let mut lines: Vec<Line<'static>> = Vec::new();
    if let Some(t) = thread {
        if t.items.is_empty() {
            lines.extend(super::markdown::wrap_segments(
                &[(
                    "No messages yet. i to write, @ to mention papers, notes or folders."
                        .to_string(),
                    theme.style("ui.dim"),
                )],
                w,
                "",
                "",
                Style::default(),
            ));
        } else {
            lines = thread_lines(t, c.selected, c.scroll_from_end, w, h, theme);
        }
    }
    f.render_widget(Paragraph::new(lines), msgs_a);
    if let Some(t) = thread {
        link_sources(f.buffer_mut(), msgs_a, t);
    }
    if chips_h > 0 {
        let spans = chip_spans(&c.chips, theme, "✕ ");
        f.render_widget(Paragraph::new(Line::from(spans)), chips_a);
    }
    let mut input = c.input.clone();
    let hint = st.keymap.hint(&[Mode::Input], Action::RemoveChip);
    input.set_block(
        Block::bordered()
            .border_style(theme.style(if c.composing && st.focus == Pane::Chat {
                "ui.border.focus"
            } else {
                "ui.border"
            }))
            .title(Span::styled(
                if c.chips.is_empty() {
                    " message ".to_string()
                } else {
                    format!(" message · {hint} removes a chip ")
                },
                theme.style("ui.dim"),
            )),
    );
    if !(c.composing && st.focus == Pane::Chat) {
        input.set_cursor_style(Style::default());
    }
    f.render_widget(&input, input_a);
    if let Some(m) = &c.mention {
        let hgt = (m.items.len().clamp(1, 8) + 2) as u16;
        let popup = Rect {
            x: input_a.x,
            y: input_a.y.saturating_sub(hgt),
            width: input_a.width,
            height: hgt.min(input_a.y),
        };
        f.render_widget(Clear, popup);
        let lines: Vec<Line> = if m.items.is_empty() {
            vec![Line::styled("no match", theme.style("ui.dim"))]
        } else {
            let start = m.selected.saturating_sub(7);
            m.items
                .iter()
                .enumerate()
                .skip(start)
                .take(8)
                .map(|(i, (_, d))| {
                    let l = Line::raw(truncate(d, popup.width.saturating_sub(2) as usize));
                    if i == m.selected {
                        l.style(theme.style("ui.selection"))
                    } else {
                        l
                    }
                })
                .collect()
        };
        f.render_widget(
            Paragraph::new(lines).block(
                Block::bordered()
                    .border_style(theme.style("ui.border.focus"))
                    .title(format!(" @{} ", m.query)),
            ),
            popup,
        );
    }
}

fn status(st: &AppState, theme: &Theme, f: &mut Frame, area: Rect) {
    let mode = match (&st.overlay, st.focus_mode()) {
        (Some(_), _) => "OVERLAY",
        (None, Mode::Vault) => "VAULT",
        (None, Mode::Paper) => "PAPER",
        (None, Mode::Visual) => "VISUAL",
        (None, Mode::Chat) => "CHAT",
        (None, Mode::Input) => "INSERT",
        (None, Mode::Mention) => "MENTION",
        _ => "",
    };
    let mut left = format!(" {mode} ");
    if let Some(c) = st.count {
        left.push_str(&format!("{c} "));
    }
    if !st.pending.is_empty() {
        left.push_str(&format!("{} ", super::keymap::chord_text(&st.pending)));
    }
    let (msg, style) = if let Some(p) = &st.prompt {
        let lead = if p.kind == PromptKind::Search {
            "/"
        } else {
            "filter: "
        };
        (format!("{lead}{}█", p.text), theme.style("ui.status"))
    } else if let Some((done, total)) = st.index {
        (
            format!("indexing {done}/{total}…"),
            theme.style("ui.status.progress"),
        )
    } else if !st.status.is_empty() {
        let err = st.status.starts_with("agent unavailable")
            || st.status.contains("cannot")
            || st.status.contains("failed");
        (
            st.status.clone(),
            theme.style(if err { "ui.status.error" } else { "ui.status" }),
        )
    } else if let Some(e) = st.errors.first() {
        (
            format!("{e} (+{} more, see ?)", st.errors.len() - 1),
            theme.style("ui.status.error"),
        )
    } else {
        (
            "? help · space f vault · space c chat · q quit".to_string(),
            theme.style("ui.status"),
        )
    };
    let right = format!(" {} ", st.vault_name);
    let room = (area.width as usize).saturating_sub(str_width(&left) + str_width(&right));
    let line = Line::from(vec![
        Span::styled(
            left,
            theme
                .style("ui.status")
                .patch(Style::default().add_modifier(ratatui::style::Modifier::BOLD)),
        ),
        Span::styled(format!("{:<room$}", truncate(&msg, room)), style),
        Span::styled(right, theme.style("ui.status")),
    ]);
    f.render_widget(Paragraph::new(line).style(theme.style("ui.status")), area);
}

fn which_key(st: &AppState, theme: &Theme, f: &mut Frame, status: Rect) {
    let conts = st.keymap.continuations(&st.mode_chain(), &st.pending);
    if conts.is_empty() {
        return;
    }
    let mut spans = Vec::new();
    for (k, a) in &conts {
        spans.push(Span::styled(
            format!(" {k} "),
            theme.style("ui.whichkey.key"),
        ));
        spans.push(Span::styled(
            format!("{}  ", a.name()),
            theme.style("ui.whichkey"),
        ));
    }
    let width = status.width.max(1) as usize;
    let total: usize = spans.iter().map(|s| s.width()).sum();
    let h = total.div_ceil(width).clamp(1, 4) as u16;
    let area = Rect {
        x: status.x,
        y: status.y.saturating_sub(h),
        width: status.width,
        height: h,
    };
    f.render_widget(Clear, area);
    f.render_widget(
        Paragraph::new(Line::from(spans))
            .style(theme.style("ui.whichkey"))
            .wrap(Wrap { trim: false }),
        area,
    );
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height.saturating_sub(1));
    Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height.saturating_sub(1) - h) / 2,
        width: w,
        height: h,
    }
}

/// The help text: every action bound in the live keymap, by mode (from the registry).
pub fn help_lines(st: &AppState) -> Vec<(String, String, Action)> {
    let mut out = Vec::new();
    for mode in Mode::ALL {
        for a in Action::ALL {
            let keys = st.keymap.keys_for(mode, *a);
            if !keys.is_empty() {
                out.push((mode.name().to_string(), keys.join(", "), *a));
            }
        }
    }
    out
}

fn help(st: &AppState, theme: &Theme, f: &mut Frame, scroll: usize) {
    let area = centered(
        f.area(),
        f.area().width.saturating_sub(6).min(100),
        f.area().height.saturating_sub(2),
    );
    f.render_widget(Clear, area);
    let block = Block::bordered()
        .title(Span::styled(
            " Help · j/k scroll · esc closes ",
            theme.style("ui.title"),
        ))
        .border_style(theme.style("ui.border.focus"));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let mut lines: Vec<Line> = Vec::new();
    for e in &st.errors {
        lines.push(Line::styled(
            truncate(e, inner.width as usize),
            theme.style("chat.error"),
        ));
    }
    let rows = help_lines(st);
    let kw = 16usize;
    let mut last_mode = String::new();
    for (mode, keys, a) in rows.iter().skip(scroll) {
        if *mode != last_mode {
            lines.push(Line::styled(
                format!("[{mode}]"),
                theme.style("ui.help.mode"),
            ));
            last_mode = mode.clone();
        }
        let desc = truncate(
            a.description(),
            (inner.width as usize).saturating_sub(kw + 2),
        );
        lines.push(Line::from(vec![
            Span::styled(
                format!("  {:<kw$}", truncate(keys, kw - 1)),
                theme.style("ui.help.key"),
            ),
            Span::raw(desc),
        ]));
    }
    f.render_widget(Paragraph::new(lines), inner);
}

fn list_popup(theme: &Theme, f: &mut Frame, title: &str, items: Vec<String>, selected: usize) {
    let area = centered(
        f.area(),
        f.area().width.saturating_sub(8).min(90),
        (items.len() as u16 + 2).min(f.area().height.saturating_sub(2)),
    );
    f.render_widget(Clear, area);
    let block = Block::bordered()
        .title(Span::styled(format!(" {title} "), theme.style("ui.title")))
        .border_style(theme.style("ui.border.focus"));
    let inner = block.inner(area);
    f.render_widget(block, area);
    let h = inner.height as usize;
    let start = selected.saturating_sub(h.saturating_sub(1));
    let lines: Vec<Line> = items
        .into_iter()
        .enumerate()
        .skip(start)
        .take(h)
        .map(|(i, s)| {
            let l = Line::raw(truncate(&s, inner.width as usize));
            if i == selected {
                l.style(theme.style("ui.selection"))
            } else {
                l
            }
        })
        .collect();
    f.render_widget(Paragraph::new(lines), inner);
}

fn outline(st: &AppState, theme: &Theme, f: &mut Frame, selected: usize) {
    let Some(p) = &st.paper else { return };
    let items = p
        .info
        .sections
        .iter()
        .map(|s| {
            let ind = "  ".repeat(s.level.saturating_sub(1).min(4) as usize);
            let num = s
                .number
                .as_deref()
                .map(|n| format!("{n} "))
                .unwrap_or_default();
            format!("{ind}{num}{}  · p. {}", s.title, s.page)
        })
        .collect();
    list_popup(theme, f, "Outline · enter jumps", items, selected);
}

fn threads(st: &AppState, theme: &Theme, f: &mut Frame, selected: usize) {
    let items = st
        .chat
        .threads
        .iter()
        .map(|t| format!("{} · {} items", t.title, t.items.len()))
        .collect();
    list_popup(theme, f, "Threads · enter switches", items, selected);
}

fn metadata(st: &AppState, theme: &Theme, f: &mut Frame) {
    let Some(p) = &st.paper else { return };
    let i = &p.info;
    let mut lines = vec![
        Line::styled(i.title.clone(), theme.style("ui.title")),
        Line::raw(format!("path     {}", p.path)),
    ];
    if !i.authors.is_empty() {
        lines.push(Line::raw(format!("authors  {}", i.authors.join(", "))));
    }
    if let Some(y) = i.year {
        lines.push(Line::raw(format!("year     {y}")));
    }
    if let Some(d) = &i.doi {
        lines.push(Line::raw(format!("doi      {d}")));
    }
    if let Some(a) = &i.arxiv {
        lines.push(Line::raw(format!("arXiv    {a}")));
    }
    lines.push(Line::raw(format!("pages    {}", p.page_count())));
    if !i.pages_without_text.is_empty() {
        lines.push(Line::raw(format!(
            "no text  pages {:?}",
            i.pages_without_text
        )));
    }
    if let Some(n) = &i.note {
        lines.push(Line::styled(n.clone(), theme.style("ui.dim")));
    }
    if let Some(a) = &i.abstract_text {
        lines.push(Line::default());
        lines.push(Line::raw(a.clone()));
    }
    let area = centered(
        f.area(),
        f.area().width.saturating_sub(8).min(90),
        f.area().height.saturating_sub(4).min(20),
    );
    modal(f, theme, area, " Metadata · esc closes ", "ui.title", lines);
}

/// A bordered text box drawn over whatever is below it.
fn modal(
    f: &mut Frame,
    theme: &Theme,
    area: Rect,
    title: &str,
    title_style: &str,
    lines: Vec<Line<'static>>,
) {
    f.render_widget(Clear, area);
    f.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(
            Block::bordered()
                .title(Span::styled(title.to_string(), theme.style(title_style)))
                .border_style(theme.style("ui.border.focus")),
        ),
        area,
    );
}

fn permission(theme: &Theme, f: &mut Frame, req: &super::chat::PermissionRequest) {
    use super::chat::PermissionKind as K;
    let mut lines = vec![
        Line::styled(
            "The agent asks for permission:",
            theme.style("permission.title"),
        ),
        Line::raw(req.title.clone()),
    ];
    for d in &req.details {
        lines.push(Line::styled(d.clone(), theme.style("ui.dim")));
    }
    lines.push(Line::default());
    for o in &req.options {
        let key = match o.kind {
            K::AllowOnce => "a",
            K::AllowAlways => "A",
            K::RejectOnce => "r",
            K::RejectAlways => "R",
        };
        lines.push(Line::from(vec![
            Span::styled(format!("  {key}  "), theme.style("ui.help.key")),
            Span::raw(o.name.clone()),
        ]));
    }
    lines.push(Line::default());
    lines.push(Line::styled("esc rejects once", theme.style("ui.dim")));
    // Room for the wrapped lines (the modal wraps long arguments).
    let width = 60u16.min(f.area().width);
    let inner = width.saturating_sub(2).max(1) as usize;
    let rows: usize = lines.iter().map(|l| l.width().max(1).div_ceil(inner)).sum();
    let area = centered(f.area(), width, rows as u16 + 2);
    modal(f, theme, area, " Permission ", "permission.title", lines);
}
