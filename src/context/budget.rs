//! What one turn may read. The keys are snake_case so the plan output shows exactly the names of
//! the `[budget]` table of the config file.

use serde::{Deserialize, Serialize};

/// Quotes in the prompt are cut at this many characters.
pub const QUOTE_CAP: usize = 1200;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Budget {
    /// Maximum cards one `context_search` returns.
    pub search_cards: usize,
    /// Maximum characters of one card's excerpt.
    pub excerpt_chars: usize,
    /// Maximum characters one `context_read` returns.
    pub read_chars: usize,
    /// Maximum characters all tool output of one turn may return together.
    pub turn_chars: usize,
    /// Maximum characters of one quote in the prompt.
    pub quote_cap: usize,
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            search_cards: 8,
            excerpt_chars: 400,
            read_chars: 8000,
            turn_chars: 40_000,
            quote_cap: QUOTE_CAP,
        }
    }
}

impl Budget {
    /// The budget with every field at least 1 (a zero would make every call fail oddly) and the
    /// quote cap never above the contract's 1,200.
    pub fn sanitized(self) -> Budget {
        Budget {
            search_cards: self.search_cards.max(1),
            excerpt_chars: self.excerpt_chars.max(40),
            read_chars: self.read_chars.max(1),
            turn_chars: self.turn_chars.max(1),
            quote_cap: self.quote_cap.clamp(1, QUOTE_CAP),
        }
    }
}
