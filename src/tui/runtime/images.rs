//! Page images for the paper pane: the window of the page on screen, rendered at the pixels
//! the terminal shows in that many cells (one per column and two per row for half-blocks, the
//! font's cell for graphics), from the page cache or a bounded render child, the quote
//! highlighted where the text layer places it, encoded for the terminal.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use ratatui_image::picker::{Picker, ProtocolType};

use super::Runner;
use crate::tui::paper::image::{PageProto, ShotKey};
use crate::tui::paper::zoom::Shape;
use crate::vault::render::{Bounds, PageCache, PageImage, Region, Renderer, locate_paper};

/// Quote boxes found before, by (content hash, page, quote): panning a highlighted page does
/// not read its text layer again. Bounded: cleared when full.
type Boxes = HashMap<(String, u32, String), Option<Vec<[f32; 4]>>>;
static QUOTE_BOXES: OnceLock<Mutex<Boxes>> = OnceLock::new();
const QUOTE_BOXES_MAX: usize = 64;

/// The pixels of one cell for `picker`: a half-block cell is one pixel wide and two high.
pub fn cell_pixels(picker: &Picker) -> (u32, u32) {
    if picker.protocol_type() == ProtocolType::Halfblocks {
        (1, 2)
    } else {
        let f = picker.font_size();
        (u32::from(f.width.max(1)), u32::from(f.height.max(1)))
    }
}

impl Runner {
    /// The window `key.window` of page `key.page` of the paper at `path`, for the terminal.
    /// The error is the status line's reason.
    pub(super) fn page_image(&self, path: &str, key: &ShotKey) -> Result<PageProto, String> {
        let cannot =
            |e: &dyn std::fmt::Display| format!("cannot show page {} as an image ({e})", key.page);
        let picker = self
            .picker
            .lock()
            .map(|p| p.clone())
            .unwrap_or_else(|_| super::termquery::halfblocks());
        let (cw, ch) = cell_pixels(&picker);
        let cells = key.window.cells;
        let region = Region {
            frac: key.window.frac,
            px: (u32::from(cells.0) * cw, u32::from(cells.1) * ch),
        };
        let (pdf, sha) = locate_paper(&self.vault, path).map_err(|e| cannot(&e))?;
        let slot = (sha.clone(), key.page, region);
        if let Some(why) = self.refused.lock().ok().and_then(|r| r.get(&slot).cloned()) {
            return Err(why);
        }
        let exe = self
            .render_exe
            .lock()
            .map(|e| e.clone())
            .unwrap_or_default();
        let renderer = Renderer::new(exe, Bounds::from_env().map_err(|e| cannot(&e))?);
        let (mut shot, _) = PageCache::new(&self.vault)
            .get_or_render_region(&renderer, &pdf, &sha, key.page, region)
            .map_err(|e| {
                if !e.is_refusal() {
                    return cannot(&e);
                }
                let why = e.to_string();
                if let Ok(mut r) = self.refused.lock() {
                    r.insert(slot, why.clone());
                }
                why
            })?;
        let mut quote_at = None;
        if let Some(q) = &key.quote
            && let Some(rects) = quote_boxes(&pdf, &sha, key.page, q)
        {
            quote_at = box_of(&shot.image, &region, &rects);
            shot.image.highlight(&rects);
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
fn quote_boxes(pdf: &std::path::Path, sha: &str, page: u32, quote: &str) -> Option<Vec<[f32; 4]>> {
    let cache = QUOTE_BOXES.get_or_init(Mutex::default);
    let k = (sha.to_string(), page, quote.to_string());
    if let Some(hit) = cache.lock().ok().and_then(|c| c.get(&k).cloned()) {
        return hit;
    }
    let found = std::fs::read(pdf)
        .ok()
        .and_then(|bytes| crate::context::quote::page_boxes(&bytes, page, quote).ok());
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
