//! Page images for the paper pane: the window of the page on screen, rendered at the pixels
//! the terminal shows in that many cells (one per column and two per row for half-blocks, the
//! font's cell for graphics), from the page cache or a bounded render child, the page's
//! annotations drawn in their colours and the quote highlighted over them where the text layer
//! places it, encoded for the terminal.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use ratatui_image::picker::{Picker, ProtocolType};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::work::{Busy, Held};
use crate::tui::app::Msg;
use crate::tui::shot::Shape;
use crate::tui::shot::{PageProto, ShotKey};
use crate::vault::Vault;
use crate::vault::render::{Bounds, PageCache, PageImage, Region, Renderer, locate_paper};

/// A quote on a page: (content hash, page, quote, which occurrence).
type QuoteAt = (String, u32, String, usize);

/// Quote boxes found before (`None`: the quote has no place on its page): panning a
/// highlighted page does not read its text layer again. Bounded: cleared when full.
type Boxes = HashMap<QuoteAt, Option<Vec<[f32; 4]>>>;
const QUOTE_BOXES_MAX: usize = 64;

/// A page image: the paper's content hash, the page, the resolution.
type PageSlot = (String, u32, Region);

/// Pages refused for a bound this session, with the reason.
type Refused = HashMap<PageSlot, String>;

/// The pixels of one cell for `picker`: a half-block cell is one pixel wide and two high.
pub fn cell_pixels(picker: &Picker) -> (u32, u32) {
    if picker.protocol_type() == ProtocolType::Halfblocks {
        (1, 2)
    } else {
        let f = picker.font_size();
        (u32::from(f.width.max(1)), u32::from(f.height.max(1)))
    }
}

enum Cmd {
    Picker(Box<Picker>),
    RenderExe(PathBuf),
    Render {
        key: ShotKey,
        path: String,
        held: Held,
    },
    /// A page the render child refused for a bound.
    Refused(PageSlot, String),
    /// Where a quote is on its page, as a render job found it.
    Boxes(QuoteAt, Option<Vec<[f32; 4]>>),
}

/// The door to the page images service. It owns how images reach the terminal (half-blocks
/// until the terminal was asked), the executable whose render child draws them, the pages
/// refused for a bound this session (`I` on them again says why at once instead of starting
/// the child again), and where the quotes it highlighted are on their pages.
pub(super) struct Images {
    tx: UnboundedSender<Cmd>,
    busy: Busy,
}

impl Images {
    /// `bounds`: the render child's, or why they are refused (said for every image asked for).
    pub(super) fn start(
        vault: Vault,
        ui: UnboundedSender<Msg>,
        busy: Busy,
        bounds: Result<Bounds, String>,
    ) -> Images {
        let (tx, rx) = unbounded_channel();
        let service = Service {
            vault,
            bounds,
            ui,
            me: tx.downgrade(),
            picker: super::termquery::halfblocks(),
            exe: std::env::current_exe().unwrap_or_default(),
            refused: Arc::default(),
            boxes: Arc::default(),
        };
        tokio::spawn(service.serve(rx));
        Images { tx, busy }
    }

    /// How page images are drawn: what the terminal answered when asked (kitty, sixel,
    /// iTerm2 or half-blocks) and its font size.
    pub(super) fn set_picker(&self, picker: Picker) {
        let _ = self.tx.send(Cmd::Picker(Box::new(picker)));
    }

    /// The agentero executable page images are rendered by (`--render-page`).
    pub(super) fn set_render_exe(&self, exe: PathBuf) {
        let _ = self.tx.send(Cmd::RenderExe(exe));
    }

    pub(super) fn render(&self, key: ShotKey, path: String) {
        let held = self.busy.hold();
        let _ = self.tx.send(Cmd::Render { key, path, held });
    }
}

struct Service {
    vault: Vault,
    bounds: Result<Bounds, String>,
    ui: UnboundedSender<Msg>,
    me: tokio::sync::mpsc::WeakUnboundedSender<Cmd>,
    picker: Picker,
    exe: PathBuf,
    /// Shared with the render jobs as they start (a snapshot each; changed only here).
    refused: Arc<Refused>,
    /// The same.
    boxes: Arc<Boxes>,
}

/// What a render job needs from the service.
struct Render {
    vault: Vault,
    bounds: Result<Bounds, String>,
    picker: Picker,
    exe: PathBuf,
    refused: Arc<Refused>,
    boxes: Arc<Boxes>,
}

impl Service {
    async fn serve(mut self, mut rx: UnboundedReceiver<Cmd>) {
        while let Some(cmd) = rx.recv().await {
            match cmd {
                Cmd::Picker(p) => self.picker = *p,
                Cmd::RenderExe(exe) => self.exe = exe,
                Cmd::Refused(slot, why) => {
                    Arc::make_mut(&mut self.refused).insert(slot, why);
                }
                Cmd::Boxes(at, found) => remember(&mut self.boxes, at, found),
                Cmd::Render { key, path, held } => {
                    let job = Render {
                        vault: self.vault.clone(),
                        bounds: self.bounds.clone(),
                        picker: self.picker.clone(),
                        exe: self.exe.clone(),
                        refused: Arc::clone(&self.refused),
                        boxes: Arc::clone(&self.boxes),
                    };
                    let (ui, me) = (self.ui.clone(), self.me.clone());
                    tokio::task::spawn_blocking(move || {
                        let result = job.page_image(&path, &key, &mut |learned| {
                            if let Some(me) = me.upgrade() {
                                let _ = me.send(learned);
                            }
                        });
                        let _ = ui.send(Msg::PageImage { key, result });
                        drop(held);
                    });
                }
            }
        }
    }
}

impl Render {
    /// The window `key.window` of page `key.page` of the paper at `path`, for the terminal.
    /// The error is the status line's reason; what the service keeps (a refusal for a bound,
    /// where a quote is) is also told to `learned`.
    fn page_image(
        &self,
        path: &str,
        key: &ShotKey,
        learned: &mut dyn FnMut(Cmd),
    ) -> Result<PageProto, String> {
        let cannot =
            |e: &dyn std::fmt::Display| format!("cannot show page {} as an image ({e})", key.page);
        let picker = &self.picker;
        let (cw, ch) = cell_pixels(picker);
        let cells = key.window.cells;
        let region = Region {
            frac: key.window.frac,
            px: (u32::from(cells.0) * cw, u32::from(cells.1) * ch),
        };
        let (pdf, sha) = locate_paper(&self.vault, path).map_err(|e| cannot(&e))?;
        let slot = (sha.clone(), key.page, region);
        if let Some(why) = self.refused.get(&slot) {
            return Err(why.clone());
        }
        let renderer = Renderer::new(
            self.exe.clone(),
            self.bounds.clone().map_err(|e| cannot(&e))?,
        );
        let (mut shot, _) = PageCache::new(&self.vault)
            .get_or_render_region(&renderer, &pdf, &sha, key.page, region)
            .map_err(|e| {
                if !e.is_refusal() {
                    return cannot(&e);
                }
                let why = e.to_string();
                learned(Cmd::Refused(slot, why.clone()));
                why
            })?;
        for mark in &key.marks {
            shot.image.mark(mark);
        }
        let mut quote_at = None;
        if let Some(q) = &key.quote
            && let Some(rects) = quote_boxes(
                &self.boxes,
                &self.vault,
                &pdf,
                (sha.clone(), key.page, q.clone(), key.quote_nth),
                learned,
            )
        {
            quote_at = box_of(&shot.image, &region, &rects);
            shot.image.highlight(&rects);
        }
        if key.dark {
            shot.image.darken();
        }
        let (w, h) = shot.page_pt;
        let shape = Shape {
            page: if w > 0.0 { h / w } else { 792.0 / 612.0 },
            cell: ch as f32 / cw as f32,
        };
        let size = ratatui::layout::Size::new(cells.0, cells.1);
        let image = image::DynamicImage::ImageRgb8(shot.image.image);
        let proto = if picker.protocol_type() == ProtocolType::Halfblocks {
            // Exactly two pixels a cell: drawn as rendered, not resampled.
            ratatui_image::protocol::halfblocks::Halfblocks::new(image, size)
                .map(ratatui_image::protocol::Protocol::Halfblocks)
        } else {
            picker.new_protocol(image, size, ratatui_image::Resize::Fit(None))
        }
        .map_err(|e| cannot(&e))?;
        Ok(PageProto {
            proto,
            shape,
            quote_at,
        })
    }
}

/// Where a quote is on its page (user-space boxes), from what the service knows, the text
/// layer or a scanned page's OCR (then told to `learned`); `None` when it has no place (a
/// quote neither finds).
fn quote_boxes(
    known: &Boxes,
    vault: &crate::vault::Vault,
    pdf: &std::path::Path,
    at: QuoteAt,
    learned: &mut dyn FnMut(Cmd),
) -> Option<Vec<[f32; 4]>> {
    if let Some(hit) = known.get(&at) {
        return hit.clone();
    }
    let (sha, page, quote, nth) = &at;
    let found = crate::context::quote::page_boxes(pdf, *page, quote, *nth)
        .ok()
        // A scanned page: where its OCR placed the words.
        .or_else(|| {
            crate::vault::ocr::OcrCache::new(vault)
                .get(sha, *page)
                .and_then(|o| crate::context::quote::ocr_boxes(&o, quote, *nth))
        });
    learned(Cmd::Boxes(at, found.clone()));
    found
}

/// Keeps where a quote is, within the bound.
fn remember(boxes: &mut Arc<Boxes>, at: QuoteAt, found: Option<Vec<[f32; 4]>>) {
    let boxes = Arc::make_mut(boxes);
    if boxes.len() >= QUOTE_BOXES_MAX && !boxes.contains_key(&at) {
        boxes.clear();
    }
    boxes.insert(at, found);
}

/// The box around `rects` (user space) as parts of the page (left, top, right, bottom),
/// whether or not it is inside the window.
fn box_of(img: &PageImage, region: &Region, rects: &[[f32; 4]]) -> Option<[f32; 4]> {
    let [a, b, c, d, e, f] = img.transform;
    let corners = rects.iter().flat_map(|r| {
        [(r[0], r[1]), (r[2], r[1]), (r[0], r[3]), (r[2], r[3])].map(|(x, y)| {
            let (x, y) = (f64::from(x), f64::from(y));
            (a * x + c * y + e, b * x + d * y + f)
        })
    });
    let inf = f64::INFINITY;
    let (l, t, r, bt) = corners.fold((inf, inf, -inf, -inf), |(l, t, r, b), (x, y)| {
        (l.min(x), t.min(y), r.max(x), b.max(y))
    });
    if ![l, t, r, bt].iter().all(|v| v.is_finite()) || region.px.0 == 0 || region.px.1 == 0 {
        return None;
    }
    let [fl, ft, fr, fb] = region.frac.map(|v| f64::from(v) / 10_000.0);
    let across = |px: f64| (fl + px / f64::from(region.px.0) * (fr - fl)).clamp(0.0, 1.0) as f32;
    let down = |py: f64| (ft + py / f64::from(region.px.1) * (fb - ft)).clamp(0.0, 1.0) as f32;
    Some([across(l), down(t), across(r), down(bt)])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(n: usize) -> QuoteAt {
        ("sha".into(), 1, format!("quote {n}"), 0)
    }

    #[test]
    fn a_quote_placed_before_is_not_looked_up_again_and_a_new_one_is_told_to_the_service() {
        let gone = std::path::Path::new("/nonexistent/paper.pdf");
        let mut known = Boxes::default();
        known.insert(at(1), Some(vec![[1.0, 2.0, 3.0, 4.0]]));
        let mut told = Vec::new();
        let dir = tempfile::tempdir().unwrap();
        let vault = crate::vault::Vault::open(dir.path()).unwrap();
        let hit = quote_boxes(&known, &vault, gone, at(1), &mut |c| told.push(c));
        assert_eq!(
            hit,
            Some(vec![[1.0, 2.0, 3.0, 4.0]]),
            "from what the service knows"
        );
        assert!(told.is_empty());
        // Not known: looked up (the file is gone, so it has no place), and the service told.
        let miss = quote_boxes(&known, &vault, gone, at(2), &mut |c| told.push(c));
        assert_eq!(miss, None);
        assert!(matches!(&told[..], [Cmd::Boxes(a, None)] if *a == at(2)));
    }

    #[test]
    fn the_service_keeps_a_bounded_number_of_quotes() {
        let mut boxes = Arc::<Boxes>::default();
        let snapshot = Arc::clone(&boxes);
        for n in 0..QUOTE_BOXES_MAX {
            remember(&mut boxes, at(n), None);
        }
        assert_eq!(boxes.len(), QUOTE_BOXES_MAX);
        assert!(snapshot.is_empty(), "a job's snapshot does not change");
        remember(&mut boxes, at(0), Some(Vec::new()));
        assert_eq!(
            boxes.len(),
            QUOTE_BOXES_MAX,
            "a known quote is replaced in place"
        );
        remember(&mut boxes, at(QUOTE_BOXES_MAX), None);
        assert_eq!(boxes.len(), 1, "cleared when full");
    }
}
