//! Widget-level snapshots: one pane or overlay cut out of the frame, its text and then its
//! styled runs (colours and modifiers from the default theme), so a change to a pane's look —
//! a highlight's colour, the selection, a dim line — shows in that pane's own snapshot rather
//! than in a whole screen's text.

use agentero::tui::headless::Headless;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};

const W: u16 = 160;
const H: u16 = 40;

fn demo() -> (tempfile::TempDir, Headless) {
    crate::tui_snapshots::demo(W, H)
}

fn select(h: &mut Headless, path: &str) {
    h.keys("space f g g");
    let pos = h
        .app
        .browser()
        .visible()
        .position(|e| e.path == path)
        .unwrap();
    for _ in 0..pos {
        h.keys("j");
    }
}

/// A style as the snapshot writes it: `fg/bg` and the modifiers (`-` for the default).
fn style_name(s: Style) -> String {
    let c = |c: Option<Color>| match c {
        None | Some(Color::Reset) => "-".to_string(),
        Some(c) => format!("{c:?}").to_lowercase(),
    };
    let mut out = format!("{}/{}", c(s.fg), c(s.bg));
    let mods = s.add_modifier - s.sub_modifier;
    for (m, name) in [
        (Modifier::BOLD, "bold"),
        (Modifier::DIM, "dim"),
        (Modifier::ITALIC, "italic"),
        (Modifier::UNDERLINED, "underlined"),
        (Modifier::REVERSED, "reversed"),
    ] {
        if mods.contains(m) {
            out.push(' ');
            out.push_str(name);
        }
    }
    out
}

/// The cells of `area`: its rows of text, then each row's runs of one style other than the
/// default inside its border (`row col..col style`, counted from the area's corner).
fn cells(buf: &Buffer, area: Rect) -> String {
    let mut text = String::new();
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            text.push_str(buf[(x, y)].symbol());
        }
        text.push('\n');
    }
    let inner = Rect::new(
        area.x + 1,
        area.y + 1,
        area.width.saturating_sub(2),
        area.height.saturating_sub(2),
    );
    let mut runs = String::new();
    for y in inner.top()..inner.bottom() {
        let mut run: Option<(u16, String)> = None;
        let mut flush = |run: &mut Option<(u16, String)>, end: u16| {
            if let Some((start, name)) = run.take()
                && name != "-/-"
            {
                runs.push_str(&format!(
                    "{:>3} {:>3}..{:<3} {name}\n",
                    y - area.top(),
                    start - area.left(),
                    end - area.left()
                ));
            }
        };
        for x in inner.left()..inner.right() {
            let name = style_name(buf[(x, y)].style());
            if run.as_ref().is_none_or(|(_, n)| *n != name) {
                flush(&mut run, x);
                run = Some((x, name));
            }
        }
        flush(&mut run, inner.right());
    }
    format!("{text}--- styled runs (row col..col fg/bg modifiers)\n{runs}")
}

/// The smallest rectangle holding every cell whose text differs between two frames: what an
/// overlay drew over the screen.
fn drawn_over(before: &Buffer, after: &Buffer) -> Rect {
    let (mut x0, mut y0, mut x1, mut y1) = (u16::MAX, u16::MAX, 0, 0);
    for y in 0..after.area.height {
        for x in 0..after.area.width {
            // What the overlay wrote, not what it dimmed or unfocused around it.
            if before[(x, y)].symbol() != after[(x, y)].symbol() {
                (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x + 1), y1.max(y + 1));
            }
        }
    }
    assert!(x0 < x1, "nothing was drawn over the screen");
    Rect::new(x0, y0, x1 - x0, y1 - y0)
}

/// The browser pane alone: the selected row's style, a cut title, the selected paper's details.
#[test]
fn the_browser_pane() {
    let (_d, mut h) = demo();
    select(&mut h, "papers/layoutflow/paper.pdf");
    h.render();
    let area = h.app.areas().vault;
    insta::assert_snapshot!("browser_pane", cells(h.buffer(), area));
}

/// The paper pane alone, text view, with a search's matches highlighted.
#[test]
fn the_paper_pane_with_search_matches() {
    let (_d, mut h) = demo();
    select(&mut h, "papers/layoutflow/paper.pdf");
    h.keys("enter");
    h.keys("/");
    h.type_text("reading order");
    h.keys("enter");
    h.render();
    let area = h.app.areas().paper;
    let snap = cells(h.buffer(), area);
    assert!(snap.contains("reading order"), "{snap}");
    insta::assert_snapshot!("paper_pane_search", snap);
}

/// The bordered box whose top border starts with `title` (`┌ Help`): its rectangle.
fn framed(buf: &Buffer, title: &str) -> Rect {
    let w = buf.area.width;
    let row = |y: u16| -> String { (0..w).map(|x| buf[(x, y)].symbol().to_string()).collect() };
    for y in 0..buf.area.height {
        let line = row(y);
        let Some(at) = line.find(title) else { continue };
        let x0 = line[..at].chars().count() as u16;
        let x1 = (x0..w)
            .find(|&x| buf[(x, y)].symbol() == "┐")
            .expect("the box's corner");
        let y1 = (y..buf.area.height)
            .find(|&yy| buf[(x0, yy)].symbol() == "└")
            .expect("the box's foot");
        return Rect::new(x0, y, x1 - x0 + 1, y1 - y + 1);
    }
    panic!("no box titled {title:?}");
}

/// Overlays alone: help and which-key, cut out of the frame they cover.
#[test]
fn overlays_alone() {
    let (_d, mut h) = demo();
    h.keys("?");
    h.render();
    let area = framed(h.buffer(), "┌ Help");
    insta::assert_snapshot!("help_overlay", cells(h.buffer(), area));
    let (_d, mut h) = demo();
    h.render();
    let before = h.buffer().clone();
    h.keys("space");
    h.render();
    let area = drawn_over(&before, h.buffer());
    insta::assert_snapshot!("which_key_overlay", cells(h.buffer(), area));
}
