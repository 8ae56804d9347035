//! The index's schema: its fields, their tokenizers, and what one document carries.

use tantivy::Index;
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};

use crate::vault::scan::EntryKind;
use crate::vault::tokenizer;

/// Bumped whenever the schema or what goes into it changes; an index of another version is
/// rebuilt from scratch.
/// 7: an index of a Zotero library may hold papers from outside it (a symlink under `storage/`, a
/// `..` key), which the resolved-path rule no longer admits: rebuilt, not trusted.
/// 8: an empty XMP title (hyperref's `<rdf:li …></rdf:li>`) was taken as its markup: papers'
/// titles read again.
/// 9: papers' metadata carries the kind of work, journal or book, volume, issue, pages,
/// publisher and the managed citation key (papis `ref`), and cards carry the citation key:
/// papers read again.
/// 10: running heads, contents lines and table rows are no section headings; names in one
/// metadata field are split, "AND" in capitals joins authors, and a cited work's year is not the
/// paper's: papers read again.
pub const SCHEMA_VERSION: u32 = 10;

#[derive(Clone, Copy)]
pub struct Fields {
    pub path: Field,
    /// Every ancestor folder of `path` ("papers", "papers/x"): restricts a search to a folder.
    pub dir: Field,
    pub kind: Field,
    /// Title and authors are indexed on a paper's first page (a file's first chunk) only, so a
    /// title match yields one card, not one per page; they are stored on every document.
    pub title: Field,
    pub title_stored: Field,
    pub authors: Field,
    pub authors_stored: Field,
    pub page: Field,
    pub page_label: Field,
    pub line_start: Field,
    pub line_end: Field,
    pub text: Field,
    /// The paper's own abstract, year, DOI and arXiv id (first page only, like the title).
    pub abstract_text: Field,
    pub year: Field,
    pub doi: Field,
    pub arxiv: Field,
    /// The paper's citation key (stored on every page, for its cards).
    pub citekey: Field,
    /// CJK character pairs of `text` (and of the title on a first page), for ranking CJK queries.
    pub cjk: Field,
    pub sha256: Field,
}

/// Identifiers are matched whole, lower-cased.
const ID_TOKENIZER: &str = "agentero_id";

pub fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let words = TextFieldIndexing::default()
        .set_tokenizer(tokenizer::NAME)
        .set_index_option(IndexRecordOption::WithFreqsAndPositions);
    let indexed_text = TextOptions::default().set_indexing_options(words.clone());
    let stored_text = TextOptions::default()
        .set_indexing_options(words)
        .set_stored();
    let id = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(ID_TOKENIZER)
            .set_index_option(IndexRecordOption::Basic),
    );
    let fields = Fields {
        path: b.add_text_field("path", STRING | STORED | FAST),
        dir: b.add_text_field("dir", STRING),
        kind: b.add_text_field("kind", STRING | STORED),
        title: b.add_text_field("title", indexed_text.clone()),
        title_stored: b.add_text_field("title_stored", STORED),
        authors: b.add_text_field("authors", indexed_text.clone()),
        authors_stored: b.add_text_field("authors_stored", STORED),
        page: b.add_u64_field("page", INDEXED | STORED | FAST),
        page_label: b.add_text_field("page_label", STORED),
        line_start: b.add_u64_field("line_start", STORED | FAST),
        line_end: b.add_u64_field("line_end", STORED | FAST),
        text: b.add_text_field("text", stored_text),
        abstract_text: b.add_text_field("abstract", indexed_text.clone()),
        year: b.add_text_field("year", STRING),
        doi: b.add_text_field("doi", id.clone()),
        arxiv: b.add_text_field("arxiv", id),
        citekey: b.add_text_field("citekey", STORED),
        cjk: b.add_text_field(
            "cjk",
            TextOptions::default().set_indexing_options(
                TextFieldIndexing::default()
                    .set_tokenizer(tokenizer::BIGRAMS)
                    .set_index_option(IndexRecordOption::WithFreqs),
            ),
        ),
        sha256: b.add_text_field("sha256", STRING | STORED),
    };
    (b.build(), fields)
}

pub(super) fn register(index: &Index) {
    index
        .tokenizers()
        .register(tokenizer::NAME, tokenizer::analyzer());
    index.tokenizers().register(
        ID_TOKENIZER,
        tantivy::tokenizer::TextAnalyzer::builder(tantivy::tokenizer::RawTokenizer::default())
            .filter(tantivy::tokenizer::LowerCaser)
            .build(),
    );
    index
        .tokenizers()
        .register(tokenizer::BIGRAMS, tokenizer::bigram_analyzer());
}

/// One document to add: a page of a paper or a chunk of a text file.
#[derive(Debug, Clone)]
pub struct IndexDoc<'a> {
    pub path: &'a str,
    pub kind: EntryKind,
    pub title: &'a str,
    pub authors: &'a str,
    /// Index title, authors and `identity` for search on this document (first page / first
    /// chunk).
    pub carries_title: bool,
    pub identity: Identity<'a>,
    pub page: Option<u32>,
    pub page_label: Option<&'a str>,
    pub lines: Option<(u32, u32)>,
    pub text: &'a str,
    pub sha256: &'a str,
}

/// What identifies a paper besides its title and authors (all optional; empty for files).
#[derive(Debug, Clone, Copy, Default)]
pub struct Identity<'a> {
    pub year: Option<i32>,
    pub doi: Option<&'a str>,
    pub arxiv: Option<&'a str>,
    pub abstract_text: Option<&'a str>,
    /// The key to cite it with ([`crate::vault::citekeys::key_of`]), shown on every card.
    pub citation_key: Option<&'a str>,
}
