//! Page images: a PDF page rasterized with hayro (pure Rust, no C library), a cache of the
//! results per page and resolution under `{vault}/.agentero/cache/pages/`, and highlight boxes
//! drawn over the places the text layer gives for a quote.
//!
//! Callers render through [`Renderer`]: a child process of this executable with an address-space
//! and CPU limit of its own and a wall-clock limit kept by the parent, so a hostile page costs a
//! refusal, not the app. [`render`] is what that child runs (and what unit tests call).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use hayro::hayro_interpret::InterpreterSettings;
use hayro::hayro_interpret::util::TransformExt;
use hayro::hayro_syntax::Pdf;
use hayro::vello_cpu::color::palette::css::WHITE;
use hayro::{RenderCache, RenderSettings};
use image::{Rgb, RgbImage};
use serde::{Deserialize, Serialize};

use super::statefs;

mod declared;
mod isolated;
mod marks;
mod region;

pub use isolated::{Bounds, RENDER_FLAG, Renderer, child_main};
pub(in crate::vault) use isolated::{Reaped, confine, cpu_limit_signal, read_capped, read_pdf};
pub use marks::{MarkStyle, PageMark};
pub use region::{Region, RegionImage, render_region};

/// The resolution of `agentero page` when none is given.
pub const DEFAULT_DPI: u32 = 150;
pub const MIN_DPI: u32 = 10;
pub const MAX_DPI: u32 = 1200;
/// Past this a page is refused rather than allocated: a hostile MediaBox can ask for gigabytes.
const MAX_PIXELS: u64 = 60_000_000;
/// hayro's pixmaps are addressed with u16.
const MAX_SIDE: f64 = 16_000.0;
/// The page cache is trimmed back under this size (oldest files first).
const CACHE_BYTES: u64 = 512 * 1024 * 1024;
/// Stores between two looks at the cache's size.
const TRIM_EVERY: usize = 32;

#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize, Deserialize)]
pub enum RenderError {
    #[error("not a readable PDF (the renderer cannot open it)")]
    Unreadable,
    #[error("encrypted PDF: the renderer cannot open it without its password")]
    Encrypted,
    #[error("the document has no page {page} (it has {count})")]
    NoSuchPage { page: u32, count: usize },
    #[error("the resolution must be between {MIN_DPI} and {MAX_DPI} dpi")]
    BadDpi,
    #[error("page {page} is too large to render at {dpi} dpi ({width}x{height} pixels)")]
    TooLarge {
        page: u32,
        dpi: u32,
        width: u64,
        height: u64,
    },
    #[error("the renderer failed on page {0}")]
    Crashed(u32),
    #[error("page {page} was not rendered: it needs more than {} of memory", isolated::amount(*.limit))]
    TooMuchMemory { page: u32, limit: u64 },
    #[error(
        "page {page} was not rendered: it has an image of {width}x{height} pixels, more than {} of memory",
        isolated::amount(*.limit)
    )]
    ImageTooLarge {
        page: u32,
        width: u64,
        height: u64,
        limit: u64,
    },
    #[error("page {page} was not rendered: it took longer than {secs} s")]
    TookTooLong { page: u32, secs: u64 },
    #[error("cannot start the page renderer {exe}: {reason}")]
    NoRenderer { exe: String, reason: String },
    #[error("{0}")]
    BadBounds(String),
    #[error("cannot read {path}: {reason}")]
    Io { path: String, reason: String },
    #[error("{path}: {reason}")]
    NotAPaper { path: String, reason: String },
}

impl RenderError {
    /// A refusal of the page itself (too large, too slow, crashing the renderer): the same
    /// page at the same resolution is refused again, so it is not worth retrying.
    pub fn is_refusal(&self) -> bool {
        matches!(
            self,
            RenderError::TooLarge { .. }
                | RenderError::TooMuchMemory { .. }
                | RenderError::ImageTooLarge { .. }
                | RenderError::TookTooLong { .. }
                | RenderError::Crashed(_)
        )
    }
}

/// A rendered page and where PDF user space lands on it.
#[derive(Debug, Clone)]
pub struct PageImage {
    pub image: RgbImage,
    /// The affine map `[a, b, c, d, e, f]` from PDF user space (y up) to pixels (y down):
    /// `px = a·x + c·y + e`, `py = b·x + d·y + f`.
    pub transform: [f64; 6],
    pub dpi: u32,
}

impl PageImage {
    /// A user-space rectangle `[x0, y0, x1, y1]` in pixels `[left, top, right, bottom]`
    /// (exclusive right and bottom), clipped to the image; `None` when nothing is left.
    pub fn to_pixels(&self, rect: [f32; 4]) -> Option<[u32; 4]> {
        let [a, b, c, d, e, f] = self.transform;
        let corners = [
            (rect[0], rect[1]),
            (rect[2], rect[1]),
            (rect[0], rect[3]),
            (rect[2], rect[3]),
        ]
        .map(|(x, y)| {
            let (x, y) = (f64::from(x), f64::from(y));
            (a * x + c * y + e, b * x + d * y + f)
        });
        let xs = corners.map(|p| p.0);
        let ys = corners.map(|p| p.1);
        let (w, h) = (
            f64::from(self.image.width()),
            f64::from(self.image.height()),
        );
        let left = xs
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
            .floor()
            .max(0.0);
        let top = ys
            .iter()
            .copied()
            .fold(f64::INFINITY, f64::min)
            .floor()
            .max(0.0);
        let right = xs
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max)
            .ceil()
            .min(w);
        let bottom = ys
            .iter()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max)
            .ceil()
            .min(h);
        (right > left && bottom > top && left.is_finite() && top.is_finite()).then_some([
            left as u32,
            top as u32,
            right as u32,
            bottom as u32,
        ])
    }

    /// Dark pages: each pixel's lightness turned over and its hue kept (white paper becomes
    /// black, black ink white, a yellow highlight dark yellow, a blue figure line still blue):
    /// `c + 255 − (max + min)` per channel, the inverse followed by a half turn of hue.
    pub fn darken(&mut self) {
        for px in self.image.pixels_mut() {
            let [r, g, b] = px.0;
            let (hi, lo) = (r.max(g).max(b), r.min(g).min(b));
            let shift = 255 - i32::from(hi) - i32::from(lo);
            px.0 = [r, g, b].map(|c| (i32::from(c) + shift).clamp(0, 255) as u8);
        }
    }

    /// Paints highlight boxes (user-space rectangles, as [`super::pdf::PageText::rects`]
    /// gives them): the text under them tinted as a marker pen would, an outline around each.
    pub fn highlight(&mut self, rects: &[[f32; 4]]) {
        let pad = (self.dpi / 72).max(1);
        for r in rects {
            let Some([l, t, rt, b]) = self.to_pixels(*r) else {
                continue;
            };
            let (w, h) = (self.image.width(), self.image.height());
            let (l, t) = (l.saturating_sub(pad), t.saturating_sub(pad));
            let (rt, b) = ((rt + pad).min(w), (b + pad).min(h));
            for y in t..b {
                for x in l..rt {
                    let edge = y == t || y + 1 == b || x == l || x + 1 == rt;
                    let px = self.image.get_pixel_mut(x, y);
                    *px = if edge { OUTLINE } else { multiply(*px, MARKER) };
                }
            }
        }
    }
}

const MARKER: Rgb<u8> = Rgb([255, 226, 80]);
const OUTLINE: Rgb<u8> = Rgb([214, 120, 0]);

fn multiply(a: Rgb<u8>, b: Rgb<u8>) -> Rgb<u8> {
    Rgb([0, 1, 2].map(|i| ((u16::from(a[i]) * u16::from(b[i])) / 255) as u8))
}

/// Renders physical page `page` (1-based) of a PDF held in memory at `dpi`, on white, in this
/// process: no memory or time bound but the refusal of declared sizes past the default memory
/// bound. Callers other than the render child go through [`Renderer`].
pub fn render(bytes: &[u8], page: u32, dpi: u32) -> Result<PageImage, RenderError> {
    render_within(bytes, page, dpi, Bounds::default().memory)
}

/// [`render`], refusing a page whose declared image sizes already need more than `memory` bytes.
pub(in crate::vault) fn render_within(
    bytes: &[u8],
    page: u32,
    dpi: u32,
    memory: u64,
) -> Result<PageImage, RenderError> {
    if !(MIN_DPI..=MAX_DPI).contains(&dpi) {
        return Err(RenderError::BadDpi);
    }
    with_page(bytes, page, |p| {
        let scale = f64::from(dpi) / 72.0;
        let (w, h) = p.render_dimensions();
        let (pw, ph) = (f64::from(w) * scale, f64::from(h) * scale);
        check_size(page, dpi, pw, ph)?;
        declared::check_images(p, page, memory)?;
        let base = p.initial_transform(true).to_kurbo();
        let transform = hayro::kurbo::Affine::scale(scale) * base;
        let image = rasterize(p, page, pw as u16, ph as u16, transform)?;
        Ok(PageImage {
            image,
            transform: transform.as_coeffs(),
            dpi,
        })
    })
}

/// Runs `f` on physical page `page` (1-based) of the PDF in `bytes`.
fn with_page<T>(
    bytes: &[u8],
    page: u32,
    f: impl FnOnce(&hayro::hayro_syntax::page::Page<'_>) -> Result<T, RenderError>,
) -> Result<T, RenderError> {
    let pdf = match Pdf::new(bytes.to_vec()) {
        Ok(p) => p,
        Err(hayro::hayro_syntax::LoadPdfError::Decryption(_)) => {
            return Err(RenderError::Encrypted);
        }
        Err(_) => return Err(RenderError::Unreadable),
    };
    let pages = pdf.pages();
    let count = pages.len();
    let Some(p) = page.checked_sub(1).and_then(|i| pages.get(i as usize)) else {
        return Err(RenderError::NoSuchPage { page, count });
    };
    f(p)
}

/// A pixmap of `pw`x`ph` pixels refused past hayro's and our limits.
fn check_size(page: u32, dpi: u32, pw: f64, ph: f64) -> Result<(), RenderError> {
    if !(pw.is_finite() && ph.is_finite())
        || pw > MAX_SIDE
        || ph > MAX_SIDE
        || (pw as u64) * (ph as u64) > MAX_PIXELS
    {
        return Err(RenderError::TooLarge {
            page,
            dpi,
            width: pw as u64,
            height: ph as u64,
        });
    }
    Ok(())
}

/// The page drawn through `transform` (PDF user space to pixels) into `width`x`height`
/// pixels on white.
fn rasterize(
    p: &hayro::hayro_syntax::page::Page<'_>,
    page: u32,
    width: u16,
    height: u16,
    transform: hayro::kurbo::Affine,
) -> Result<RgbImage, RenderError> {
    // hayro forbids unsafe code but may still panic on a file it does not expect.
    let pixmap = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let cache = RenderCache::new();
        let mut ctx = hayro::vello_cpu::RenderContext::new(width.max(1), height.max(1));
        hayro::render_into(
            p,
            &cache,
            &InterpreterSettings::default(),
            &RenderSettings::default(),
            &mut ctx,
            transform,
        );
        ctx.flush();
        let mut pixmap = hayro::vello_cpu::Pixmap::new(ctx.width(), ctx.height());
        ctx.render_with(
            &mut pixmap,
            &mut hayro::vello_cpu::Resources::default(),
            hayro::vello_cpu::RasterizerSettings {
                target_init: hayro::vello_cpu::TargetInit::Clear(WHITE),
                ..Default::default()
            },
        );
        pixmap
    }))
    .map_err(|_| RenderError::Crashed(page))?;
    let (width, height) = (u32::from(pixmap.width()), u32::from(pixmap.height()));
    // Painted on opaque white: premultiplied and straight alpha are the same.
    let rgb: Vec<u8> = pixmap
        .data_as_u8_slice()
        .chunks_exact(4)
        .flat_map(|px| [px[0], px[1], px[2]])
        .collect();
    RgbImage::from_raw(width, height, rgb).ok_or(RenderError::Crashed(page))
}

/// Pages rendered before, by content hash, page and resolution: a PNG and a small JSON with
/// its transform, beside each other.
#[derive(Debug, Clone)]
pub struct PageCache {
    dir: PathBuf,
}

#[derive(Serialize, Deserialize)]
struct Geometry {
    width: u32,
    height: u32,
    transform: [f64; 6],
}

static STORES: AtomicUsize = AtomicUsize::new(0);

impl PageCache {
    pub fn new(vault: &super::Vault) -> PageCache {
        PageCache {
            dir: vault.state_dir().join("cache").join("pages"),
        }
    }

    fn files(&self, sha256: &str, page: u32, dpi: u32) -> Option<(PathBuf, PathBuf)> {
        self.named(sha256, &format!("{page}-{dpi}"))
    }

    /// The PNG and the JSON of the cached image `name` of the document `sha256`.
    fn named(&self, sha256: &str, name: &str) -> Option<(PathBuf, PathBuf)> {
        // The hash names a folder: it must be one.
        if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        let base = self.dir.join(sha256).join(name);
        Some((base.with_extension("png"), base.with_extension("json")))
    }

    /// The cached image of a page, when there is a whole one.
    pub fn get(&self, sha256: &str, page: u32, dpi: u32) -> Option<PageImage> {
        let (png, json) = self.files(sha256, page, dpi)?;
        let geometry: Geometry = serde_json::from_slice(&cache_read(&json)?).ok()?;
        let image =
            image::load_from_memory_with_format(&cache_read(&png)?, image::ImageFormat::Png)
                .ok()?
                .into_rgb8();
        (image.width() == geometry.width && image.height() == geometry.height).then_some(
            PageImage {
                image,
                transform: geometry.transform,
                dpi,
            },
        )
    }

    /// Stores a rendered page. A cache that cannot be written only costs a render next time.
    pub fn put(&self, sha256: &str, page: u32, img: &PageImage) {
        let Some((png, json)) = self.files(sha256, page, img.dpi) else {
            return;
        };
        let geometry = Geometry {
            width: img.image.width(),
            height: img.image.height(),
            transform: img.transform,
        };
        match serde_json::to_vec(&geometry) {
            Ok(g) => self.store(&png, &json, img, &g),
            Err(e) => tracing::warn!(page, %e, "cannot write the page cache"),
        }
    }

    /// Writes an image as `png` and its geometry as `json`, and trims the cache now and then.
    fn store(&self, png: &Path, json: &Path, img: &PageImage, geometry: &[u8]) {
        let mut bytes = Vec::new();
        // Fast compression: a cached page is read back far more often than it is written, and
        // the default level costs several times the render.
        let encoder = image::codecs::png::PngEncoder::new_with_quality(
            &mut bytes,
            image::codecs::png::CompressionType::Fast,
            image::codecs::png::FilterType::Adaptive,
        );
        let encoded = image::ImageEncoder::write_image(
            encoder,
            img.image.as_raw(),
            img.image.width(),
            img.image.height(),
            image::ExtendedColorType::Rgb8,
        );
        let stored = encoded
            .map_err(|e| e.to_string())
            .and_then(|()| statefs::atomic_write(png, &bytes).map_err(|e| e.to_string()))
            .and_then(|()| statefs::atomic_write(json, geometry).map_err(|e| e.to_string()));
        if let Err(e) = stored {
            tracing::warn!(%e, "cannot write the page cache");
            return;
        }
        if STORES
            .fetch_add(1, Ordering::Relaxed)
            .is_multiple_of(TRIM_EVERY)
        {
            trim(&self.dir, CACHE_BYTES);
        }
    }

    /// The page from the cache, else rendered by `renderer` from the file at `pdf` and stored.
    /// The flag says whether it came from the cache.
    pub fn get_or_render(
        &self,
        renderer: &Renderer,
        pdf: &Path,
        sha256: &str,
        page: u32,
        dpi: u32,
    ) -> Result<(PageImage, bool), RenderError> {
        if let Some(img) = self.get(sha256, page, dpi) {
            return Ok((img, true));
        }
        let img = renderer.render_file(pdf, page, dpi)?;
        self.put(sha256, page, &img);
        Ok((img, false))
    }
}

/// A paper of the vault (a vault-relative path): its PDF on disk and its content hash, taken
/// from the catalog when the file is unchanged since the last index run.
pub fn locate_paper(vault: &super::Vault, rel: &str) -> Result<(PathBuf, String), RenderError> {
    let not_a_paper = |reason: String| RenderError::NotAPaper {
        path: rel.to_string(),
        reason,
    };
    let r = vault.resolve(rel).map_err(|e| not_a_paper(e.to_string()))?;
    if r.is_dir || super::scan::classify_file(&r.abs) != Some(super::EntryKind::Paper) {
        return Err(not_a_paper("not a PDF".into()));
    }
    let meta = std::fs::metadata(&r.abs).map_err(|e| not_a_paper(e.to_string()))?;
    let known = vault.catalog().entries.get(&r.rel).and_then(|e| {
        (e.size == meta.len() && e.mtime_ns == super::scan::mtime_ns(&meta))
            .then(|| e.sha256.clone())
    });
    let sha = match known {
        Some(s) => s,
        None => super::fsutil::sha256_file(&r.abs).map_err(|e| not_a_paper(e.to_string()))?,
    };
    Ok((r.abs, sha))
}

/// A cached file's bytes; a missing one is a miss, a refused one (a planted link) is logged.
fn cache_read(path: &Path) -> Option<Vec<u8>> {
    match statefs::read(path) {
        Ok(b) => Some(b),
        Err(e) => {
            if !e.is_not_found() {
                tracing::warn!(%e, "a cached page was not used");
            }
            None
        }
    }
}

/// Removes the oldest cached pages until the folder holds at most `max` bytes. Only folders
/// that pass the state checks are looked into, and removing a name never follows it.
fn trim(dir: &Path, max: u64) {
    let mut files: Vec<(std::time::SystemTime, u64, PathBuf)> = Vec::new();
    if statefs::check_dir(dir).is_err() {
        return;
    }
    for sub in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if statefs::check_dir(&sub.path()).is_err() {
            continue;
        }
        for f in std::fs::read_dir(sub.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            if let Ok(m) = f.metadata()
                && m.is_file()
            {
                let t = m.modified().unwrap_or(std::time::UNIX_EPOCH);
                files.push((t, m.len(), f.path()));
            }
        }
    }
    let mut total: u64 = files.iter().map(|f| f.1).sum();
    if total <= max {
        return;
    }
    files.sort();
    for (_, len, path) in files {
        if total <= max {
            break;
        }
        if statefs::remove_file(&path).is_ok() {
            total -= len;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blank(w: u32, h: u32, dpi: u32) -> PageImage {
        let s = f64::from(dpi) / 72.0;
        PageImage {
            image: RgbImage::from_pixel(w, h, Rgb([255, 255, 255])),
            // A US Letter page: y flipped around its height.
            transform: [s, 0.0, 0.0, -s, 0.0, 792.0 * s],
            dpi,
        }
    }

    #[test]
    fn user_space_maps_to_pixels_with_y_down() {
        let img = blank(850, 1100, 100);
        // One inch square one inch from the top-left corner.
        let r = img.to_pixels([72.0, 648.0, 144.0, 720.0]).unwrap();
        assert_eq!(r, [100, 100, 200, 200]);
        // Clipped to the image; nothing left outside it.
        assert_eq!(
            img.to_pixels([-72.0, 0.0, 36.0, 36.0]).unwrap(),
            [0, 1050, 50, 1100]
        );
        assert_eq!(img.to_pixels([700.0, 900.0, 800.0, 1000.0]), None);
    }

    #[test]
    fn highlight_tints_inside_and_outlines_the_box() {
        let mut img = blank(850, 1100, 100);
        img.highlight(&[[72.0, 648.0, 144.0, 720.0]]);
        assert_eq!(*img.image.get_pixel(150, 150), MARKER);
        assert_eq!(*img.image.get_pixel(99, 150), OUTLINE);
        assert_eq!(*img.image.get_pixel(50, 50), Rgb([255, 255, 255]));
    }

    #[test]
    fn cache_round_trip_and_trim() {
        let dir = tempfile::tempdir().unwrap();
        let vault = super::super::Vault::open(dir.path()).unwrap();
        let cache = PageCache::new(&vault);
        let sha = "a".repeat(64);
        assert!(cache.get(&sha, 1, 100).is_none());
        let img = blank(20, 30, 100);
        cache.put(&sha, 1, &img);
        let back = cache.get(&sha, 1, 100).unwrap();
        assert_eq!(back.image, img.image);
        assert_eq!(back.transform, img.transform);
        assert!(cache.get(&sha, 1, 101).is_none());
        // Not a hash: never a path.
        cache.put("../../x", 1, &img);
        assert!(cache.get("../../x", 1, 100).is_none());
        trim(&cache.dir, 0);
        assert!(cache.get(&sha, 1, 100).is_none());
    }

    #[test]
    fn bad_input_is_an_error_not_a_panic() {
        assert_eq!(
            render(b"%PDF-1.4 garbage", 1, 100).unwrap_err(),
            RenderError::Unreadable
        );
        assert_eq!(render(b"", 1, 100).unwrap_err(), RenderError::Unreadable);
        assert_eq!(render(b"%PDF-1.4", 1, 5).unwrap_err(), RenderError::BadDpi);
    }

    #[test]
    fn dark_pages_turn_lightness_over_and_keep_hue() {
        let mut img = PageImage {
            image: RgbImage::from_vec(
                5,
                1,
                vec![
                    255, 255, 255, // paper
                    0, 0, 0, // ink
                    255, 230, 100, // a yellow highlight
                    30, 60, 200, // a blue line
                    128, 128, 128, // grey
                ],
            )
            .unwrap(),
            transform: [1.0, 0.0, 0.0, -1.0, 0.0, 1.0],
            dpi: 72,
        };
        img.darken();
        let px: Vec<[u8; 3]> = img.image.pixels().map(|p| p.0).collect();
        assert_eq!(px[0], [0, 0, 0]);
        assert_eq!(px[1], [255, 255, 255]);
        assert_eq!(px[2], [155, 130, 0], "still yellow, now dark");
        // The blue stays the strongest channel, lighter than before.
        let [r, g, b] = px[3];
        assert!(b > g && g > r && u32::from(r) + u32::from(g) + u32::from(b) > 290);
        assert_eq!(px[4], [127, 127, 127]);
        // Twice is as printed.
        img.darken();
        assert_eq!(
            img.image.pixels().next().map(|p| p.0),
            Some([255, 255, 255])
        );
    }
}
