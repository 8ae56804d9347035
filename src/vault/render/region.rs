//! A window of a page rendered at the pixel size it is shown at: the image view's zoom and pan
//! ask for what is on screen only, so a zoomed page costs the pixels of the pane, not of the
//! whole page at that scale, and stays sharp. Cached per page, window and pixel size beside
//! the whole pages.

use serde::{Deserialize, Serialize};

use super::{
    MAX_DPI, PageCache, PageImage, RenderError, Renderer, cache_read, check_size, declared,
    rasterize, with_page,
};
use hayro::hayro_interpret::util::TransformExt;

/// The whole page's side in the units of [`Region::frac`].
pub const WHOLE: u16 = 10_000;

/// A window of a page and the pixel size it is drawn at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Region {
    /// Left, top, right and bottom as parts of the page's width and height, in 1/10000.
    pub frac: [u16; 4],
    /// Width and height in pixels.
    pub px: (u32, u32),
}

impl Region {
    /// The whole page at `px`.
    pub fn whole(px: (u32, u32)) -> Region {
        Region {
            frac: [0, 0, WHOLE, WHOLE],
            px,
        }
    }

    /// A window with its corners in order, inside the page, and some pixels.
    pub fn is_valid(&self) -> bool {
        let [l, t, r, b] = self.frac;
        l < r && t < b && r <= WHOLE && b <= WHOLE && self.px.0 > 0 && self.px.1 > 0
    }

    /// The render child's argument: `LEFT,TOP,RIGHT,BOTTOM,WIDTH,HEIGHT`.
    pub fn arg(&self) -> String {
        let [l, t, r, b] = self.frac;
        format!("{l},{t},{r},{b},{},{}", self.px.0, self.px.1)
    }

    pub fn parse(s: &str) -> Option<Region> {
        let n: Vec<u32> = s
            .split(',')
            .map(|v| v.trim().parse().ok())
            .collect::<Option<_>>()?;
        let [l, t, r, b, w, h] = n[..] else {
            return None;
        };
        let f = |v: u32| u16::try_from(v).ok();
        let region = Region {
            frac: [f(l)?, f(t)?, f(r)?, f(b)?],
            px: (w, h),
        };
        region.is_valid().then_some(region)
    }

    fn name(&self, page: u32) -> String {
        let [l, t, r, b] = self.frac;
        format!("{page}-w{l}-{t}-{r}-{b}-{}x{}", self.px.0, self.px.1)
    }
}

/// A rendered window and the page's size in points (width, height), which says its shape.
#[derive(Debug, Clone)]
pub struct RegionImage {
    /// The pixels; its transform maps PDF user space to them, so highlights land.
    pub image: PageImage,
    pub page_pt: (f32, f32),
}

/// Renders `region` of physical page `page` in this process (no bounds but the refusal of
/// declared sizes past the default memory bound); callers go through [`Renderer`].
pub fn render_region(bytes: &[u8], page: u32, region: Region) -> Result<RegionImage, RenderError> {
    render_region_within(bytes, page, region, super::Bounds::default().memory)
}

pub(super) fn render_region_within(
    bytes: &[u8],
    page: u32,
    region: Region,
    memory: u64,
) -> Result<RegionImage, RenderError> {
    if !region.is_valid() {
        return Err(RenderError::BadBounds(format!(
            "not a window of the page: {}",
            region.arg()
        )));
    }
    with_page(bytes, page, |p| {
        let (w, h) = p.render_dimensions();
        let (w, h) = (f64::from(w), f64::from(h));
        let [l, t, r, b] = region.frac.map(|v| f64::from(v) / f64::from(WHOLE));
        let (px_w, px_h) = (f64::from(region.px.0), f64::from(region.px.1));
        let sx = px_w / ((r - l) * w);
        let sy = px_h / ((b - t) * h);
        let dpi = (sx.max(sy) * 72.0).round();
        if !dpi.is_finite() || dpi > f64::from(MAX_DPI) {
            return Err(RenderError::TooLarge {
                page,
                dpi: dpi.min(f64::from(u32::MAX)) as u32,
                width: (w * sx) as u64,
                height: (h * sy) as u64,
            });
        }
        let dpi = dpi.max(1.0) as u32;
        check_size(page, dpi, px_w, px_h)?;
        declared::check_images(p, page, memory)?;
        let base = p.initial_transform(true).to_kurbo();
        let transform = hayro::kurbo::Affine::translate((-l * w * sx, -t * h * sy))
            * hayro::kurbo::Affine::scale_non_uniform(sx, sy)
            * base;
        let image = rasterize(p, page, px_w as u16, px_h as u16, transform)?;
        Ok(RegionImage {
            image: PageImage {
                image,
                transform: transform.as_coeffs(),
                dpi,
            },
            page_pt: (w as f32, h as f32),
        })
    })
}

#[derive(Serialize, Deserialize)]
struct Geometry {
    width: u32,
    height: u32,
    transform: [f64; 6],
    dpi: u32,
    page_pt: (f32, f32),
}

impl PageCache {
    /// The cached window, when there is a whole one.
    pub fn get_region(&self, sha256: &str, page: u32, region: Region) -> Option<RegionImage> {
        let (png, json) = self.named(sha256, &region.name(page))?;
        let g: Geometry = serde_json::from_slice(&cache_read(&json)?).ok()?;
        let image =
            image::load_from_memory_with_format(&cache_read(&png)?, image::ImageFormat::Png)
                .ok()?
                .into_rgb8();
        (image.width() == g.width && image.height() == g.height).then_some(RegionImage {
            image: PageImage {
                image,
                transform: g.transform,
                dpi: g.dpi,
            },
            page_pt: g.page_pt,
        })
    }

    /// Stores a rendered window (a cache that cannot be written costs a render next time).
    pub fn put_region(&self, sha256: &str, page: u32, region: Region, img: &RegionImage) {
        let Some((png, json)) = self.named(sha256, &region.name(page)) else {
            return;
        };
        let g = Geometry {
            width: img.image.image.width(),
            height: img.image.image.height(),
            transform: img.image.transform,
            dpi: img.image.dpi,
            page_pt: img.page_pt,
        };
        match serde_json::to_vec(&g) {
            Ok(g) => self.store(&png, &json, &img.image, &g),
            Err(e) => tracing::warn!(page, %e, "cannot write the page cache"),
        }
    }

    /// The window from the cache, else rendered by `renderer` and stored; the flag says
    /// whether it came from the cache.
    pub fn get_or_render_region(
        &self,
        renderer: &Renderer,
        pdf: &std::path::Path,
        sha256: &str,
        page: u32,
        region: Region,
    ) -> Result<(RegionImage, bool), RenderError> {
        if let Some(img) = self.get_region(sha256, page, region) {
            return Ok((img, true));
        }
        let img = renderer.render_region_file(pdf, page, region)?;
        self.put_region(sha256, page, region, &img);
        Ok((img, false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_region_reads_back_from_its_argument_and_bad_ones_are_refused() {
        let r = Region {
            frac: [0, 2500, 10_000, 5000],
            px: (160, 96),
        };
        assert_eq!(Region::parse(&r.arg()), Some(r));
        for bad in [
            "",
            "1,2,3",
            "5000,0,4000,100,10,10",
            "0,0,10001,100,10,10",
            "0,0,100,100,0,10",
            "0,0,70000,100,10,10",
            "a,b,c,d,e,f",
        ] {
            assert_eq!(Region::parse(bad), None, "{bad}");
        }
        assert!(
            render_region(
                b"%PDF-1.4",
                1,
                Region {
                    frac: [5, 5, 5, 5],
                    px: (1, 1)
                }
            )
            .is_err()
        );
    }
}
