//! Sizes a page declares before anything is decoded: an image XObject says its width and
//! height, and one whose pixels alone would not fit in the memory bound is refused before the
//! renderer inflates its stream (hayro decodes whole streams and has no limit of its own).

use hayro::hayro_syntax::object::dict::keys::{RESOURCES, SMASK, SUBTYPE, XOBJECT};
use hayro::hayro_syntax::object::{Dict, Name, Stream};
use hayro::hayro_syntax::page::Page;

use super::RenderError;

/// Bytes per pixel the rasterizer keeps for a decoded image (RGBA, 8 bits a channel): the least
/// a decoded image costs, whatever its colour space.
const BYTES_PER_PIXEL: u64 = 4;
/// Form XObjects nest; deeper ones are left to the address-space limit.
const MAX_DEPTH: usize = 8;
/// Objects looked at per page at most (a page can reference the same form many times).
const MAX_VISITS: usize = 4_096;

/// Refuses page `page` when an image among its resources (in forms and soft masks too) declares
/// more pixels than `memory` bytes hold.
pub(super) fn check_images(p: &Page<'_>, page: u32, memory: u64) -> Result<(), RenderError> {
    let mut walk = Walk {
        page,
        memory,
        visits: 0,
    };
    walk.xobjects(&p.resources().x_objects, 0)
}

struct Walk {
    page: u32,
    memory: u64,
    visits: usize,
}

impl Walk {
    fn xobjects(&mut self, xobjects: &Dict<'_>, depth: usize) -> Result<(), RenderError> {
        if depth > MAX_DEPTH {
            return Ok(());
        }
        for name in xobjects.keys() {
            self.visits += 1;
            if self.visits > MAX_VISITS {
                return Ok(());
            }
            if let Some(stream) = xobjects.get::<Stream<'_>>(&name) {
                self.xobject(&stream, depth)?;
            }
        }
        Ok(())
    }

    fn xobject(&mut self, stream: &Stream<'_>, depth: usize) -> Result<(), RenderError> {
        let dict = stream.dict();
        let subtype = dict.get::<Name<'_>>(SUBTYPE);
        match subtype.as_ref().map(|n| n.as_ref()) {
            Some(b"Image") => {
                self.image(dict)?;
                if let Some(mask) = dict.get::<Stream<'_>>(SMASK) {
                    self.image(mask.dict())?;
                }
                Ok(())
            }
            Some(b"Form") => match dict
                .get::<Dict<'_>>(RESOURCES)
                .and_then(|r| r.get::<Dict<'_>>(XOBJECT))
            {
                Some(inner) => self.xobjects(&inner, depth + 1),
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }

    fn image(&self, dict: &Dict<'_>) -> Result<(), RenderError> {
        let side = |key: &[u8]| {
            dict.get::<f64>(key)
                .filter(|v| v.is_finite())
                .unwrap_or(0.0)
        };
        let (w, h) = (side(b"Width"), side(b"Height"));
        if w <= 0.0 || h <= 0.0 {
            return Ok(());
        }
        let (w, h) = (w as u64, h as u64);
        let bytes = w.saturating_mul(h).saturating_mul(BYTES_PER_PIXEL);
        if bytes > self.memory {
            return Err(RenderError::ImageTooLarge {
                page: self.page,
                width: w,
                height: h,
                limit: self.memory,
            });
        }
        Ok(())
    }
}
