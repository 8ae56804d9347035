//! What can go wrong with the index.

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("the search index is missing; run `agentero index` first")]
    Missing,
    #[error("another agentero process is updating this vault's index; try again when it is done")]
    Busy,
    /// Another process is building the index and has committed nothing yet.
    #[error("{0}")]
    Building(String),
    #[error("cannot understand the query: {0}")]
    BadQuery(String),
    /// A file of the index fails its checksum, cannot be decoded, or made tantivy panic. The
    /// index is derived: rebuild it (or read the sources directly).
    #[error("the search index is damaged ({0})")]
    Corrupt(String),
    #[error("search index error: {0}")]
    Tantivy(#[from] tantivy::TantivyError),
    #[error("search index I/O error: {0}")]
    Io(#[from] std::io::Error),
}
