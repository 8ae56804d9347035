//! What a page image is of and what comes back: the shapes, the window of the page on screen,
//! the key a render is asked for and the encoded image. Shared by the paper pane (which asks),
//! the effects (which carry the key) and the runtime's image service (which renders).

/// The page's and the cells' shapes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    /// The page's height over its width.
    pub page: f32,
    /// A cell's height over its width, in the image's pixels.
    pub cell: f32,
}

impl Default for Shape {
    /// US Letter in half-blocks, until an image says otherwise.
    fn default() -> Shape {
        Shape {
            page: 792.0 / 612.0,
            cell: 2.0,
        }
    }
}

/// What is on screen: the window of the page (parts of its width and height in 1/10000),
/// its size in cells and where it goes in the pane.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub frac: [u16; 4],
    pub cells: (u16, u16),
    /// Columns and rows from the pane's top-left corner.
    pub offset: (u16, u16),
}

/// A window of a page encoded for the terminal at one size in cells, and what it says about
/// the page's shape and the quote's place.
pub struct PageProto {
    pub proto: ratatui_image::protocol::Protocol,
    /// The page's and a cell's shapes, for the next window.
    pub shape: Shape,
    /// The highlighted quote's box: left, top, right, bottom as parts of the page.
    pub quote_at: Option<[f32; 4]>,
}

impl std::fmt::Debug for PageProto {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PageProto")
    }
}

/// What an image is of: the document request, the page, the text area's size in cells, the
/// window of the page on screen (and its size in cells), the quote highlighted on it and the
/// page's annotations drawn under the quote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShotKey {
    pub req: u64,
    pub page: u32,
    pub cells: (u16, u16),
    pub window: Window,
    pub quote: Option<String>,
    /// Which occurrence of the quote on the page it is (0: the first): a phrase the page has
    /// twice is highlighted where it was found.
    pub quote_nth: usize,
    /// Drawn dark (lightness turned over, colours kept).
    pub dark: bool,
    pub marks: Vec<crate::vault::render::PageMark>,
}
