//! The derived search index (tantivy, `{vault}/.agentero/index/`): one document per PDF page and
//! per chunk of a text file; a paper's first page also carries its title, authors, year, DOI,
//! arXiv id and abstract. Queries return page-level [`Card`]s or paper-level [`PaperHit`]s in a
//! fixed order (ranking: [`super::ranking`]).

mod cards;
mod contain;
mod error;
mod excerpt;
mod hybrid;
mod query;
pub mod schema;
mod search;
mod store;

pub use cards::{Card, PAGES_LISTED, PageRef, PaperHit, Scope, SearchOptions, sort_cards};
pub use contain::panic_is_contained;
pub use error::IndexError;
pub use excerpt::shorten;
pub use query::{MAX_QUERY_NESTING, nesting_depth};
pub use schema::{Fields, Identity, IndexDoc, SCHEMA_VERSION, schema};
pub use store::{SearchIndex, StoredDoc};

#[cfg(test)]
mod tests;
