//! Annotations on a paper's pages: Zotero's (read from its database) and agentero's own
//! highlights (kept in the state folder, keyed by the PDF's sha256 so they survive renames).
//! One shape for both, so the paper pane draws them, `context_read` mode `annotations` lists
//! them, and the index finds the words of their comments alike.

use serde::{Deserialize, Serialize};

/// What kind of mark it is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumIter,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum AnnotationKind {
    Highlight,
    Underline,
    Note,
    Image,
    Ink,
    Text,
}

impl AnnotationKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// Where an annotation comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "lowercase")]
pub enum AnnotationOrigin {
    /// A Zotero annotation item (its 8-character item key).
    Zotero { key: String },
    /// One of agentero's own highlights (its id in the highlight store).
    Agentero { id: String },
}

/// One annotation on one page of one PDF.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Annotation {
    /// The PDF's vault-relative path (as in citation URIs).
    pub paper: String,
    /// 1-based page index in the PDF.
    pub page: u32,
    /// The page's label as the source gives it ("iv", "12"), when it differs from the index.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_label: Option<String>,
    pub kind: AnnotationKind,
    /// The marked text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The reader's comment on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comment: Option<String>,
    /// `#rrggbb`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// Rectangles in PDF user space on that page: `[x0, y0, x1, y1]`, origin bottom left.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rects: Vec<[f32; 4]>,
    #[serde(flatten)]
    pub origin: AnnotationOrigin,
    /// When it was made (RFC 3339 or Zotero's `YYYY-MM-DD HH:MM:SS`, UTC), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
}
