//! Where a thread's window is, in one unit: rendered rows counted from the thread's end (the
//! rows the view draws, separators included, at the width it draws them). 0 follows the end
//! while an answer streams; scrolled back, the window stays on what it shows while rows are
//! added under it. The view resolves the requests of the keys (top, a selection to bring
//! into view, half a page) when it draws, at its width, and keeps what it resolved, so that
//! `g g`, `G`, ctrl-d/u, the wheel and the mouse's hit-testing agree.

use std::cell::Cell;

use ratatui::text::Line;

use super::{Item, ItemKind, Thread};

/// A window's rows, each with the item it belongs to (`None`: a separator).
pub type Rows = Vec<(Line<'static>, Option<usize>)>;

/// How an item renders at the view's width.
pub type LinesOf<'a> = &'a mut dyn FnMut(usize, &Item) -> Vec<Line<'static>>;

/// The scroll state of a thread's window (the view writes what it resolved back).
#[derive(Debug, Default)]
pub struct Scroll {
    /// Rows from the thread's last row to the window's last row.
    from_end: Cell<usize>,
    /// The selection moved: the next draw brings it into view (as little movement as can).
    reveal: Cell<bool>,
    /// The window's height at the last draw (half a page is half of it).
    height: Cell<usize>,
    /// The thread's end at the last draw: what streamed in since is added to `from_end`.
    mark: Cell<Option<Mark>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Mark {
    width: usize,
    items: usize,
    last_rows: usize,
}

impl Scroll {
    /// A window `from_end` rows back from the end (as drawn last).
    pub fn at(from_end: usize) -> Scroll {
        let s = Scroll::default();
        s.from_end.set(from_end);
        s
    }

    /// Follow the end (`G`, a message sent).
    pub fn follow(&self) {
        self.from_end.set(0);
        self.reveal.set(false);
    }

    /// The top of the thread (`g g`); the selection, when it is further down, is kept in view.
    pub fn top(&self) {
        self.from_end.set(usize::MAX / 4);
        self.reveal.set(true);
    }

    /// The selection moved: bring it into view at the next draw.
    pub fn reveal(&self) {
        self.reveal.set(true);
    }

    /// Scroll back (`rows` > 0) or forward by that many rows.
    pub fn by(&self, rows: isize) {
        let now = self.from_end.get();
        self.from_end.set(if rows >= 0 {
            now.saturating_add(rows as usize)
        } else {
            now.saturating_sub(rows.unsigned_abs())
        });
        self.reveal.set(false);
    }

    /// Half the window as last drawn (10 before the first draw).
    pub fn half_page(&self) -> usize {
        match self.height.get() {
            0 => 10,
            h => (h / 2).max(1),
        }
    }

    /// Rows scrolled back from the end.
    pub fn from_end(&self) -> usize {
        self.from_end.get()
    }
}

/// The items' rendered blocks, each made once per draw: an item's lines with a separator
/// before a question or an answer (not before the thread's first row); a folded consulted
/// source has none.
struct Blocks<'a, 'b> {
    t: &'a Thread,
    lines_of: LinesOf<'b>,
    made: Vec<Option<Rows>>,
}

impl Blocks<'_, '_> {
    fn get(&mut self, i: usize) -> &Rows {
        if self.made[i].is_none() {
            let item = &self.t.items[i];
            let mut rows: Rows = if item.hidden() {
                Vec::new()
            } else {
                (self.lines_of)(i, item)
                    .into_iter()
                    .map(|l| (l, Some(i)))
                    .collect()
            };
            if i > 0
                && !rows.is_empty()
                && matches!(item.kind, ItemKind::User { .. } | ItemKind::Agent { .. })
            {
                rows.insert(0, (Line::default(), None));
            }
            self.made[i] = Some(rows);
        }
        self.made[i].as_ref().expect("made above")
    }

    fn rows(&mut self, i: usize) -> usize {
        self.get(i).len()
    }
}

/// From the end upwards until the window `from_end` rows back is covered, or the top is
/// reached (then the window is the thread's first rows): the window's `from_end` within
/// the thread, the first item it needs and the rows from that item to the end.
fn cover(b: &mut Blocks<'_, '_>, from_end: usize, h: usize) -> (usize, usize, usize) {
    let want = from_end.saturating_add(h);
    let (mut got, mut first) = (0usize, b.made.len());
    while first > 0 && got < want {
        first -= 1;
        got += b.rows(first);
    }
    (from_end.min(got.saturating_sub(h)), first, got)
}

/// The window of `h` rows of `t` that `scroll` describes. `draw`: this is the view's draw, so
/// the requests are resolved (what streamed in, the selection to reveal, the bounds) and
/// kept; otherwise (hit-testing) the window is the one last drawn. Costs what lies between
/// the window and the end (a long thread followed at its end renders only its last rows).
pub fn window(
    t: &Thread,
    selected: Option<usize>,
    scroll: &Scroll,
    draw: bool,
    (w, h): (usize, usize),
    lines_of: LinesOf<'_>,
) -> Rows {
    let n = t.items.len();
    if n == 0 || h == 0 {
        return Vec::new();
    }
    let mut b = Blocks {
        t,
        lines_of,
        made: vec![None; n],
    };
    let mut from_end = scroll.from_end.get();
    if draw {
        // Scrolled back while rows came in under the window: it stays where it was.
        if from_end > 0
            && let Some(m) = scroll.mark.get()
            && m.width == w
            && m.items <= n
            && m.items > 0
        {
            let grown = b.rows(m.items - 1).saturating_sub(m.last_rows)
                + (m.items..n).map(|i| b.rows(i)).sum::<usize>();
            from_end = from_end.saturating_add(grown);
        }
        // Past the top: the window is the thread's first rows.
        from_end = cover(&mut b, from_end, h).0;
        if scroll.reveal.take()
            && let Some(s) = selected.filter(|&s| s < n)
        {
            let below: usize = (s + 1..n).map(|i| b.rows(i)).sum();
            let own = b.rows(s);
            if below < from_end {
                // Under the window: its last row becomes the window's last.
                from_end = below;
            } else if below + own > from_end + h {
                // Above it: its first row becomes the window's first.
                from_end = (below + own).saturating_sub(h);
            }
        }
    }
    let (from_end, first, got) = cover(&mut b, from_end, h);
    if draw {
        scroll.from_end.set(from_end);
        scroll.height.set(h);
        let last_rows = b.rows(n - 1);
        scroll.mark.set(Some(Mark {
            width: w,
            items: n,
            last_rows,
        }));
    }
    let mut rows: Rows = Vec::with_capacity(got);
    for made in &mut b.made[first..] {
        rows.extend(made.take().unwrap_or_default());
    }
    let skip = rows.len().saturating_sub(from_end + h);
    rows.into_iter().skip(skip).take(h).collect()
}
