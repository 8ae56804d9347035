//! The page image view (`I`): the window of the page on screen (fit page, fit width, zoomed
//! and panned: `zoom.rs`) rendered by the runtime in a task at the pixels the pane shows
//! (through the page cache, its annotations drawn in their colours, the cited quote highlighted
//! over them) and drawn with ratatui-image — kitty, sixel or iTerm2 graphics where the terminal
//! has them, unicode half-blocks everywhere else.
//! The text view stays the default, and the fallback when a page cannot be rendered.

use std::sync::Arc;

pub use crate::tui::shot::{PageProto, ShotKey};

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
