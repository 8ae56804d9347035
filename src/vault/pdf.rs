//! Page text of a PDF: the workspace crate `agentero-pdf`, under the vault's name for it.

pub use agentero_pdf::*;
