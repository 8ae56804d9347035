//! A highlight waiting for its comment (`H` asked for it; the prompt's answer saves it).

use crate::vault::highlights::NewHighlight;

#[derive(Debug, Clone, PartialEq)]
pub(super) struct Pending {
    pub(super) path: String,
    pub(super) new: NewHighlight,
}
