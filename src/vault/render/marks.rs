//! Annotations drawn on a page image, each as its source draws it: a highlight tints the text
//! under it in its colour as a marker pen would, an underline is a line under each rectangle,
//! a note or text box is a filled square of its colour, an image or ink annotation is framed.
//! The cited quote's box ([`PageImage::highlight`]) is drawn over them, so evidence stays on
//! top of a reader's own marks.

use image::Rgb;

use super::PageImage;
use crate::vault::annotations::{Annotation, AnnotationKind};

/// Zotero's default highlight colour, for a mark that names none (agentero's own highlights).
const DEFAULT_RGB: [u8; 3] = [0xff, 0xd4, 0x00];
/// How much of a highlight's colour reaches the page: Zotero draws them at 40-50% opacity.
const TINT: f32 = 0.55;

/// How a mark is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkStyle {
    /// The text under it multiplied by a light version of the colour.
    Tint,
    /// A line of the colour under each rectangle.
    Underline,
    /// The rectangle filled with the colour, outlined darker (a note's icon).
    Filled,
    /// An outline of the colour (an image area, the bounding box of an ink stroke).
    Frame,
}

/// One annotation to draw: its rectangles in PDF user space, its colour and style. Equal when
/// drawn the same, bit for bit (a page image is asked for again only when its marks changed).
#[derive(Debug, Clone)]
pub struct PageMark {
    pub rects: Vec<[f32; 4]>,
    pub rgb: [u8; 3],
    pub style: MarkStyle,
}

impl PartialEq for PageMark {
    fn eq(&self, other: &PageMark) -> bool {
        let bits = |r: &[f32; 4]| r.map(f32::to_bits);
        self.rgb == other.rgb
            && self.style == other.style
            && self.rects.len() == other.rects.len()
            && self
                .rects
                .iter()
                .zip(&other.rects)
                .all(|(a, b)| bits(a) == bits(b))
    }
}

impl Eq for PageMark {}

impl PageMark {
    /// The mark of `a`, when it has a place on its page.
    pub fn of(a: &Annotation) -> Option<PageMark> {
        if a.rects.is_empty() {
            return None;
        }
        let style = match a.kind {
            AnnotationKind::Highlight => MarkStyle::Tint,
            AnnotationKind::Underline => MarkStyle::Underline,
            AnnotationKind::Note | AnnotationKind::Text => MarkStyle::Filled,
            AnnotationKind::Image | AnnotationKind::Ink => MarkStyle::Frame,
        };
        Some(PageMark {
            rects: a.rects.clone(),
            rgb: a
                .color
                .as_deref()
                .and_then(parse_rgb)
                .unwrap_or(DEFAULT_RGB),
            style,
        })
    }

    /// The marks of page `page` among `annotations`, in their order.
    pub fn on_page(annotations: &[Annotation], page: u32) -> Vec<PageMark> {
        annotations
            .iter()
            .filter(|a| a.page == page)
            .filter_map(PageMark::of)
            .collect()
    }
}

/// `#rrggbb` (or `rrggbb`) as bytes; `None` for anything else.
fn parse_rgb(s: &str) -> Option<[u8; 3]> {
    let hex = s.trim().trim_start_matches('#');
    if hex.len() != 6 || !hex.is_ascii() {
        return None;
    }
    let byte = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).ok();
    Some([byte(0)?, byte(2)?, byte(4)?])
}

fn lighten(rgb: [u8; 3], keep: f32) -> Rgb<u8> {
    Rgb(rgb.map(|c| (255.0 - (255.0 - f32::from(c)) * keep).round() as u8))
}

fn darken(rgb: [u8; 3]) -> Rgb<u8> {
    Rgb(rgb.map(|c| (f32::from(c) * 0.6) as u8))
}

impl PageImage {
    /// Draws `mark` in its style; rectangles off the image are skipped.
    pub fn mark(&mut self, mark: &PageMark) {
        let line = (self.dpi / 72).max(1);
        let (w, h) = (self.image.width(), self.image.height());
        for r in &mark.rects {
            let Some([l, t, rt, b]) = self.to_pixels(*r) else {
                continue;
            };
            match mark.style {
                MarkStyle::Tint => {
                    let tint = lighten(mark.rgb, TINT);
                    for y in t..b {
                        for x in l..rt {
                            let px = self.image.get_pixel_mut(x, y);
                            *px = super::multiply(*px, tint);
                        }
                    }
                }
                MarkStyle::Underline => {
                    let colour = Rgb(mark.rgb);
                    for y in b.min(h).saturating_sub(line)..(b + line).min(h) {
                        for x in l..rt {
                            self.image.put_pixel(x, y, colour);
                        }
                    }
                }
                MarkStyle::Filled | MarkStyle::Frame => {
                    let (fill, edge) = (Rgb(mark.rgb), darken(mark.rgb));
                    let filled = mark.style == MarkStyle::Filled;
                    let (r, bt) = ((rt + line).min(w), (b + line).min(h));
                    let (l, t) = (l.saturating_sub(line), t.saturating_sub(line));
                    for y in t..bt {
                        for x in l..r {
                            let on_edge =
                                y < t + line || y + line >= bt || x < l + line || x + line >= r;
                            if on_edge {
                                self.image.put_pixel(x, y, if filled { edge } else { fill });
                            } else if filled {
                                self.image.put_pixel(x, y, fill);
                            }
                        }
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vault::annotations::AnnotationOrigin;
    use image::RgbImage;

    fn page() -> PageImage {
        // 72 dpi, a 100×100 pt page: user space (x, y up) → pixels (x, 100 - y).
        PageImage {
            image: RgbImage::from_pixel(100, 100, Rgb([255, 255, 255])),
            transform: [1.0, 0.0, 0.0, -1.0, 0.0, 100.0],
            dpi: 72,
        }
    }

    fn annotation(kind: AnnotationKind, color: Option<&str>, page: u32) -> Annotation {
        Annotation {
            paper: "papers/a.pdf".into(),
            page,
            page_label: None,
            kind,
            text: None,
            comment: None,
            color: color.map(str::to_string),
            rects: vec![[10.0, 10.0, 50.0, 30.0]],
            origin: AnnotationOrigin::Zotero {
                key: "ABCD2345".into(),
            },
            created: None,
        }
    }

    #[test]
    fn a_highlight_tints_in_its_own_colour_and_nothing_outside() {
        let mut img = page();
        let a = annotation(AnnotationKind::Highlight, Some("#5fb236"), 1);
        img.mark(&PageMark::of(&a).unwrap());
        // Inside (x 30, y 80 in pixels): green-ish, lighter than the colour itself.
        let inside = img.image.get_pixel(30, 80).0;
        assert!(inside[1] > inside[0] && inside[1] > inside[2], "{inside:?}");
        assert!(inside[0] > 0x5f, "a tint, not the colour: {inside:?}");
        assert_eq!(img.image.get_pixel(5, 5).0, [255, 255, 255]);
        assert_eq!(img.image.get_pixel(60, 80).0, [255, 255, 255]);
    }

    #[test]
    fn an_underline_marks_only_the_bottom_edge() {
        let mut img = page();
        let a = annotation(AnnotationKind::Underline, Some("#ff6666"), 1);
        img.mark(&PageMark::of(&a).unwrap());
        // The rectangle's bottom (y = 10 pt) is pixel row 90.
        assert_eq!(img.image.get_pixel(30, 90).0, [0xff, 0x66, 0x66]);
        assert_eq!(img.image.get_pixel(30, 80).0, [255, 255, 255]);
    }

    #[test]
    fn a_note_is_filled_and_an_image_area_framed() {
        let mut img = page();
        img.mark(&PageMark::of(&annotation(AnnotationKind::Note, Some("#2ea8e5"), 1)).unwrap());
        assert_eq!(img.image.get_pixel(30, 80).0, [0x2e, 0xa8, 0xe5]);
        let mut img = page();
        img.mark(&PageMark::of(&annotation(AnnotationKind::Image, Some("#a28ae5"), 1)).unwrap());
        assert_eq!(
            img.image.get_pixel(30, 80).0,
            [255, 255, 255],
            "inside stays"
        );
        // The frame is drawn just outside the area (row 70 is its top), not over it.
        assert_eq!(
            img.image.get_pixel(30, 69).0,
            [0xa2, 0x8a, 0xe5],
            "the top edge"
        );
    }

    #[test]
    fn marks_are_those_of_the_page_with_a_place_and_a_default_colour() {
        let mut none = annotation(AnnotationKind::Highlight, None, 2);
        let mut placeless = annotation(AnnotationKind::Highlight, Some("#000000"), 2);
        placeless.rects.clear();
        let other = annotation(AnnotationKind::Highlight, Some("#000000"), 3);
        none.color = Some("not a colour".into());
        let marks = PageMark::on_page(&[none, placeless, other], 2);
        assert_eq!(marks.len(), 1);
        assert_eq!(marks[0].rgb, DEFAULT_RGB);
        assert_eq!(parse_rgb("#FFd400"), Some([0xff, 0xd4, 0x00]));
        assert_eq!(parse_rgb("#ffd40"), None);
        assert_eq!(parse_rgb("#ffd4é"), None);
    }
}
