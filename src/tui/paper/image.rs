//! The page image view (`I`): the window of the page on screen (fit page, fit width, zoomed
//! and panned: `zoom.rs`) rendered by the runtime in a task at the pixels the pane shows
//! (through the page cache, its annotations drawn in their colours, the cited quote highlighted
//! over them) and drawn with ratatui-image — kitty, sixel or iTerm2 graphics where the terminal
//! has them, unicode half-blocks everywhere else.
//! The text view stays the default, and the fallback when a page cannot be rendered.

use std::sync::Arc;

use super::zoom::{Shape, Window};

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
    pub marks: Vec<crate::vault::render::PageMark>,
}

#[derive(Debug, Clone)]
pub enum ShotState {
    Rendering,
    Ready(Arc<PageProto>),
    /// The text is shown instead; the reason went to the status bar.
    Failed(String),
}

/// The image asked for last, and how far it got.
#[derive(Debug, Clone)]
pub struct Shot {
    pub key: ShotKey,
    pub state: ShotState,
}
