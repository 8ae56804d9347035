//! The page image view (`I`): the paper's page rendered by the runtime in a task (through the
//! page cache, the cited quote highlighted) and drawn with ratatui-image — kitty, sixel or
//! iTerm2 graphics where the terminal has them, unicode half-blocks everywhere else. The text
//! view stays the default, and the fallback when a page cannot be rendered.

use std::sync::Arc;

/// A page image encoded for the terminal at one size in cells.
pub struct PageProto(pub ratatui_image::protocol::Protocol);

impl std::fmt::Debug for PageProto {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PageProto")
    }
}

/// What an image is of: the document request, the page, the text area's size in cells and
/// the quote highlighted on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShotKey {
    pub req: u64,
    pub page: u32,
    pub cells: (u16, u16),
    pub quote: Option<String>,
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
