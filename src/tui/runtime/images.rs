//! Page images for the paper pane: the window of the page on screen, rendered at the pixels
//! the terminal shows in that many cells (one per column and two per row for half-blocks, the
//! font's cell for graphics), from the page cache or a bounded render child, the page's
//! annotations drawn in their colours and the quote highlighted over them where the text layer
//! places it, encoded for the terminal.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};

use ratatui_image::picker::{Picker, ProtocolType};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use super::work::{Busy, Held};
use crate::tui::app::Msg;
use crate::tui::shot::Shape;
use crate::tui::shot::{PageProto, ShotKey};
use crate::vault::Vault;
use crate::vault::render::{Bounds, PageCache, PageImage, Region, Renderer, locate_paper};

/// Quote boxes found before, by (content hash, page, quote, which occurrence): panning a highlighted page does
/// not read its text layer again. Bounded: cleared when full.
type Boxes = HashMap<(String, u32, String, usize), Option<Vec<[f32; 4]>>>;
static QUOTE_BOXES: OnceLock<Mutex<Boxes>> = OnceLock::new();
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
}

/// The door to the page images service. It owns how images reach the terminal (half-blocks
/// until the terminal was asked), the executable whose render child draws them, and the pages
/// refused for a bound this session: `I` on them again says why at once instead of starting
/// the child again.
pub(super) struct Images {
    tx: UnboundedSender<Cmd>,
    busy: Busy,
}

impl Images {
    pub(super) fn start(vault: Vault, ui: UnboundedSender<Msg>, busy: Busy) -> Images {
        let (tx, rx) = unbounded_channel();
        let service = Service {
            vault,
            ui,
            me: tx.downgrade(),
            picker: super::termquery::halfblocks(),
            exe: std::env::current_exe().unwrap_or_default(),
            refused: Arc::default(),
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
    ui: UnboundedSender<Msg>,
    me: tokio::sync::mpsc::WeakUnboundedSender<Cmd>,
    picker: Picker,
    exe: PathBuf,
    /// Shared with the render jobs as they start (a snapshot each; changed only here).
    refused: Arc<Refused>,
}

/// What a render job needs from the service.
struct Render {
    vault: Vault,
    picker: Picker,
    exe: PathBuf,
    refused: Arc<Refused>,
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
                Cmd::Render { key, path, held } => {
                    let job = Render {
                        vault: self.vault.clone(),
                        picker: self.picker.clone(),
                        exe: self.exe.clone(),
                        refused: Arc::clone(&self.refused),
                    };
                    let (ui, me) = (self.ui.clone(), self.me.clone());
                    tokio::task::spawn_blocking(move || {
                        let result = job.page_image(&path, &key, &mut |slot, why| {
                            if let Some(me) = me.upgrade() {
                                let _ = me.send(Cmd::Refused(slot, why));
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
    /// The error is the status line's reason; a refusal for a bound is also told to
    /// `refused`.
    fn page_image(
        &self,
        path: &str,
        key: &ShotKey,
        refused: &mut dyn FnMut(PageSlot, String),
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
            Bounds::from_env().map_err(|e| cannot(&e))?,
        );
        let (mut shot, _) = PageCache::new(&self.vault)
            .get_or_render_region(&renderer, &pdf, &sha, key.page, region)
            .map_err(|e| {
                if !e.is_refusal() {
                    return cannot(&e);
                }
                let why = e.to_string();
                refused(slot, why.clone());
                why
            })?;
        for mark in &key.marks {
            shot.image.mark(mark);
        }
        let mut quote_at = None;
        if let Some(q) = &key.quote
            && let Some(rects) = quote_boxes(&self.vault, &pdf, &sha, key.page, q, key.quote_nth)
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

/// Where `quote` is on the page (user-space boxes), from the cache of quote boxes or the text
/// layer; `None` when it has no place (a scan, a quote the layout cannot find).
fn quote_boxes(
    vault: &crate::vault::Vault,
    pdf: &std::path::Path,
    sha: &str,
    page: u32,
    quote: &str,
    nth: usize,
) -> Option<Vec<[f32; 4]>> {
    let cache = QUOTE_BOXES.get_or_init(Mutex::default);
    let k = (sha.to_string(), page, quote.to_string(), nth);
    if let Some(hit) = cache.lock().ok().and_then(|c| c.get(&k).cloned()) {
        return hit;
    }
    let found = std::fs::read(pdf)
        .ok()
        .and_then(|bytes| crate::context::quote::page_boxes_nth(&bytes, page, quote, nth).ok())
        // A scanned page: where its OCR placed the words.
        .or_else(|| {
            crate::vault::ocr::OcrCache::new(vault)
                .get(sha, page)
                .and_then(|o| crate::context::quote::ocr_boxes(&o, quote, nth))
        });
    if let Ok(mut c) = cache.lock() {
        if c.len() >= QUOTE_BOXES_MAX {
            c.clear();
        }
        c.insert(k, found.clone());
    }
    found
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
