//! The derived search index (tantivy, `{vault}/.agentero/index/`): one document per PDF page and
//! per chunk of a text file; a paper's first page also carries its title, authors, year, DOI,
//! arXiv id and abstract. Queries return page-level [`Card`]s or paper-level [`PaperHit`]s in a
//! fixed order (ranking: [`super::ranking`]).

use std::path::Path;

use serde::{Deserialize, Serialize};
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, QueryParser, TermQuery};
use tantivy::query_grammar::{self, UserInputAst, UserInputLeaf, UserInputLiteral};
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing,
    TextOptions, Value,
};
use tantivy::snippet::SnippetGenerator;
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use super::ranking::{self, Collapse, Group, Hit, Plan};
use super::scan::EntryKind;
use super::tokenizer;
use super::uri;

/// Bumped whenever the schema or what goes into it changes; an index of another version is
/// rebuilt from scratch.
pub const SCHEMA_VERSION: u32 = 6;

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
}

/// A search result (SPEC Appendix A field names in JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Card {
    pub path: String,
    pub kind: EntryKind,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_label: Option<String>,
    /// First and last line (1-based, inclusive) for text files.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<[u32; 2]>,
    /// A short passage around the best match; matched words are wrapped in `**`.
    pub excerpt: String,
    pub citation_uri: String,
    #[serde(serialize_with = "three_decimals")]
    pub score: f32,
}

/// Scores are rounded to three decimals; written as the decimal they are (`0.456`), not as the
/// nearest `f32` widened (`0.4560000002384186`).
fn three_decimals<S: serde::Serializer>(score: &f32, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64((f64::from(*score) * 1000.0).round() / 1000.0)
}

/// Pages listed with a paper-level result.
pub const PAGES_LISTED: usize = 5;

/// A paper-level result: the best page as a card (its excerpt, URI and score are the paper's),
/// and the paper's best pages, best first (the first is the card's).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PaperHit {
    #[serde(flatten)]
    pub card: Card,
    pub pages: Vec<PageRef>,
}

impl PaperHit {
    /// The best pages in page order, as a reader scans them: `p. 3, 7, 12`, or a text file's
    /// chunks, `lines 1–40, 81–120`; empty when there are none.
    pub fn places(&self) -> String {
        let mut pages: Vec<u32> = self.pages.iter().filter_map(|p| p.page).collect();
        let mut lines: Vec<[u32; 2]> = self.pages.iter().filter_map(|p| p.lines).collect();
        pages.sort_unstable();
        lines.sort_unstable();
        if !pages.is_empty() {
            let list: Vec<String> = pages.iter().map(|p| p.to_string()).collect();
            format!("p. {}", list.join(", "))
        } else if !lines.is_empty() {
            let list: Vec<String> = lines.iter().map(|[a, b]| format!("{a}–{b}")).collect();
            format!("lines {}", list.join(", "))
        } else {
            String::new()
        }
    }
}

/// A page (or chunk of a text file) of a paper-level result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageRef {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<[u32; 2]>,
    pub citation_uri: String,
    #[serde(serialize_with = "three_decimals")]
    pub score: f32,
}

/// Restricts a search to some paths: exact files or papers, and folders (with everything inside).
#[derive(Debug, Clone, Default)]
pub struct Scope {
    pub files: Vec<String>,
    pub dirs: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// Cards (page-level) or papers (paper-level) at most.
    pub limit: usize,
    pub excerpt_chars: usize,
    /// Accept any text (operators that fail to parse become plain words) instead of failing.
    pub lenient: bool,
    pub scope: Option<Scope>,
    /// Page-level: at most this many cards of one document while other documents have matches
    /// (slots nobody else can fill still go to it).
    pub per_document: Option<usize>,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            limit: 10,
            excerpt_chars: 240,
            lenient: false,
            scope: None,
            per_document: None,
        }
    }
}

pub struct SearchIndex {
    index: Index,
    reader: IndexReader,
    pub fields: Fields,
}

fn register(index: &Index) {
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

impl SearchIndex {
    /// Opens an existing index for reading. Fails with `Missing` when there is none and with a
    /// schema error when it is of another version (the indexer rebuilds such an index).
    ///
    /// Every file's checksum is verified first (a read of the whole file): tantivy trusts its
    /// files and panics or misreads on damaged ones. Files that passed before and are unchanged
    /// since are not read again (see [`super::checked`]).
    pub fn open(dir: &Path) -> Result<SearchIndex, IndexError> {
        // tantivy opens its own files; the folder they are in must be ours.
        match super::statefs::check_dir(dir) {
            Err(e) if e.is_not_found() => return Err(IndexError::Missing),
            Err(e) => return Err(IndexError::Io(e.into())),
            Ok(_) => {}
        }
        if !dir.join("meta.json").exists() {
            return Err(IndexError::Missing);
        }
        contain(|| {
            let index = Index::open_in_dir(dir).map_err(damaged)?;
            let bad = unchecked_damage(&index, dir)?;
            if !bad.is_empty() {
                let mut names: Vec<String> = bad.iter().map(|p| p.display().to_string()).collect();
                names.sort();
                let verb = if names.len() == 1 {
                    "fails its checksum"
                } else {
                    "fail their checksums"
                };
                return Err(IndexError::Corrupt(format!("{} {verb}", names.join(", "))));
            }
            Self::from_index(index)
        })
    }

    fn from_index(index: Index) -> Result<SearchIndex, IndexError> {
        let (expected, fields) = schema();
        if index.schema() != expected {
            return Err(IndexError::Tantivy(tantivy::TantivyError::SchemaError(
                "the index was written by another version of agentero".into(),
            )));
        }
        register(&index);
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()?;
        Ok(SearchIndex {
            index,
            reader,
            fields,
        })
    }

    /// Creates an empty index in `dir` (which must be empty or missing).
    pub fn create(dir: &Path) -> Result<SearchIndex, IndexError> {
        super::statefs::ensure_dir(dir).map_err(std::io::Error::from)?;
        let (schema, _) = schema();
        let index = Index::create_in_dir(dir, schema)?;
        Self::from_index(index)
    }

    pub fn writer(&self) -> Result<IndexWriter, IndexError> {
        match self.index.writer_with_num_threads(1, 48_000_000) {
            Ok(w) => Ok(w),
            Err(tantivy::TantivyError::LockFailure(..)) => Err(IndexError::Busy),
            Err(e) => Err(e.into()),
        }
    }

    pub fn reload(&self) -> Result<(), IndexError> {
        Ok(self.reader.reload()?)
    }

    pub fn num_docs(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    pub fn delete_path(&self, writer: &IndexWriter, path: &str) {
        writer.delete_term(Term::from_field_text(self.fields.path, path));
    }

    pub fn add(&self, writer: &IndexWriter, d: &IndexDoc) -> Result<(), IndexError> {
        let f = &self.fields;
        let mut doc = TantivyDocument::default();
        doc.add_text(f.path, d.path);
        let mut acc = String::new();
        for part in d
            .path
            .split('/')
            .collect::<Vec<_>>()
            .iter()
            .rev()
            .skip(1)
            .rev()
        {
            if !acc.is_empty() {
                acc.push('/');
            }
            acc.push_str(part);
            doc.add_text(f.dir, &acc);
        }
        doc.add_text(f.kind, d.kind.as_str());
        doc.add_text(f.title_stored, d.title);
        doc.add_text(f.authors_stored, d.authors);
        if d.carries_title {
            doc.add_text(f.title, d.title);
            doc.add_text(f.authors, d.authors);
            let id = &d.identity;
            if let Some(y) = id.year {
                doc.add_text(f.year, y.to_string());
            }
            for (field, value) in [
                (f.doi, id.doi),
                (f.arxiv, id.arxiv),
                (f.abstract_text, id.abstract_text),
            ] {
                if let Some(v) = value.filter(|v| !v.trim().is_empty()) {
                    doc.add_text(field, v);
                }
            }
        }
        if let Some(p) = d.page {
            doc.add_u64(f.page, p as u64);
        }
        if let Some(l) = d.page_label {
            doc.add_text(f.page_label, l);
        }
        if let Some((a, b)) = d.lines {
            doc.add_u64(f.line_start, a as u64);
            doc.add_u64(f.line_end, b as u64);
        }
        doc.add_text(f.text, d.text);
        if d.text.chars().any(tokenizer::is_cjk) {
            doc.add_text(f.cjk, d.text);
        }
        if d.carries_title && d.title.chars().any(tokenizer::is_cjk) {
            doc.add_text(f.cjk, d.title);
        }
        doc.add_text(f.sha256, d.sha256);
        writer.add_document(doc)?;
        Ok(())
    }

    fn parse(&self, query: &str, lenient: bool) -> Result<Box<dyn Query>, IndexError> {
        let f = &self.fields;
        let query = &*as_typed(query);
        // The grammar and every pass over the parsed query recurse once per parenthesis: bound
        // the nesting before tantivy sees it, so no query can overflow a thread's stack.
        let depth = nesting_depth(query);
        let flattened;
        let query = if depth <= MAX_QUERY_NESTING {
            query
        } else if lenient {
            flattened = query.replace(['(', ')'], " ");
            flattened.as_str()
        } else {
            return Err(IndexError::BadQuery(format!(
                "parentheses are nested {depth} deep; at most {MAX_QUERY_NESTING} levels are accepted"
            )));
        };
        let mut parser = QueryParser::for_index(
            &self.index,
            vec![
                f.title,
                f.authors,
                f.text,
                f.abstract_text,
                f.year,
                f.doi,
                f.arxiv,
            ],
        );
        parser.set_field_boost(f.title, ranking::TITLE_BOOST);
        parser.set_field_boost(f.authors, ranking::AUTHORS_BOOST);
        parser.set_field_boost(f.abstract_text, ranking::ABSTRACT_BOOST);
        parser.set_field_boost(f.doi, ranking::ID_BOOST);
        parser.set_field_boost(f.arxiv, ranking::ID_BOOST);
        let parsed = if lenient {
            let (ast, _) = query_grammar::parse_query_lenient(query);
            let ast = searchable_fields_only(ast, true).map_err(IndexError::BadQuery)?;
            parser.build_query_from_user_input_ast_lenient(ast).0
        } else {
            let ast = query_grammar::parse_query(query)
                .map_err(|_| IndexError::BadQuery(format!("syntax error in {query:?}")))?;
            let ast = searchable_fields_only(ast, false).map_err(IndexError::BadQuery)?;
            parser
                .build_query_from_user_input_ast(ast)
                .map_err(|e| IndexError::BadQuery(e.to_string()))?
        };
        Ok(self.with_cjk_pairs(query, parsed))
    }

    /// A run of CJK characters in a query parses as one phrase, which a question written without
    /// spaces never matches. Its character pairs are added as optional terms, so pages rank by
    /// the words they share with it; the phrase still lifts the pages holding it verbatim. With
    /// operators or quotes the parsed query stays required and the pairs only rank.
    fn with_cjk_pairs(&self, query: &str, parsed: Box<dyn Query>) -> Box<dyn Query> {
        let pairs = tokenizer::cjk_pairs(query);
        if pairs.is_empty() {
            return parsed;
        }
        let bag: Vec<(Occur, Box<dyn Query>)> = pairs
            .iter()
            .map(|p| {
                let term = Term::from_field_text(self.fields.cjk, p);
                let q: Box<dyn Query> =
                    Box::new(TermQuery::new(term, IndexRecordOption::WithFreqs));
                (Occur::Should, q)
            })
            .collect();
        let parsed_occur = if ranking::is_plain(query) {
            Occur::Should
        } else {
            Occur::Must
        };
        Box::new(BooleanQuery::new(vec![
            (parsed_occur, parsed),
            (Occur::Should, Box::new(BooleanQuery::new(bag))),
        ]))
    }

    /// Page-level results: the best pages and chunks, best first (with
    /// [`SearchOptions::per_document`], no document crowds out the others).
    pub fn search(&self, query: &str, opts: &SearchOptions) -> Result<Vec<Card>, IndexError> {
        self.guarded(query, opts, |q| self.search_pages(q, opts))
    }

    /// Paper-level results: one per paper or file, best first, with its best pages.
    pub fn search_papers(
        &self,
        query: &str,
        opts: &SearchOptions,
    ) -> Result<Vec<PaperHit>, IndexError> {
        self.guarded(query, opts, |q| self.search_documents(q, opts))
    }

    fn guarded<T>(
        &self,
        query: &str,
        opts: &SearchOptions,
        run: impl Fn(&str) -> Result<T, IndexError>,
    ) -> Result<T, IndexError> {
        match contain(|| run(query)) {
            // Intact files and still a failure: the query trips a bug in tantivy (a
            // `-:1-1-1…` phrase, say). Lenient: search its plain words; strict: say so.
            Err(IndexError::Corrupt(why)) if self.intact() => {
                tracing::warn!(%why, "a query made tantivy fail on an intact index");
                let words = plain_words(query);
                if opts.lenient && !words.is_empty() && words != query {
                    match contain(|| run(&words)) {
                        Err(IndexError::Corrupt(_)) => {}
                        other => return other,
                    }
                }
                Err(IndexError::BadQuery(format!(
                    "this query cannot be run ({why}); search for plain words"
                )))
            }
            other => other,
        }
    }

    /// Whether every file of the index passes its checksum.
    fn intact(&self) -> bool {
        contain(|| Ok(self.index.validate_checksum().map_err(damaged)?.is_empty())).unwrap_or(false)
    }

    /// What `query` runs (see [`ranking`]), restricted to the scope; `None` when the scope
    /// allows nothing.
    fn plan(
        &self,
        searcher: &tantivy::Searcher,
        query: &str,
        opts: &SearchOptions,
    ) -> Result<Option<Plan>, IndexError> {
        if query.trim().is_empty() {
            return Err(IndexError::BadQuery("the query is empty".into()));
        }
        let f = &self.fields;
        let mut analyzer = self
            .index
            .tokenizers()
            .get(tokenizer::NAME)
            .unwrap_or_else(tokenizer::analyzer);
        let mut plan = match ranking::identifier(query) {
            Some(id) => ranking::identifier_plan(f, &mut analyzer, &id),
            None => {
                let parsed = self.parse(query, opts.lenient)?;
                if ranking::is_plain(query) {
                    ranking::plain_plan(searcher, f, &mut analyzer, parsed, query)
                } else {
                    Plan {
                        main: parsed,
                        tiers: Vec::new(),
                    }
                }
            }
        };
        if let Some(scope) = &opts.scope {
            let Some(allowed) = self.scope_query(scope) else {
                return Ok(None);
            };
            plan.main = Box::new(BooleanQuery::new(vec![
                (Occur::Must, plan.main),
                (Occur::Must, allowed),
            ]));
        }
        Ok(Some(plan))
    }

    /// Documents of the scope's files and folders; `None` when it names nothing.
    fn scope_query(&self, scope: &Scope) -> Option<Box<dyn Query>> {
        let f = &self.fields;
        let mut allowed: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for p in &scope.files {
            allowed.push((
                Occur::Should,
                Box::new(TermQuery::new(
                    Term::from_field_text(f.path, p),
                    IndexRecordOption::Basic,
                )),
            ));
        }
        for d in &scope.dirs {
            let field = if d.is_empty() { f.kind } else { f.dir };
            let terms: Vec<Term> = if d.is_empty() {
                // The vault root: everything.
                ["paper", "file"]
                    .iter()
                    .map(|k| Term::from_field_text(field, k))
                    .collect()
            } else {
                vec![Term::from_field_text(field, d)]
            };
            for t in terms {
                allowed.push((
                    Occur::Should,
                    Box::new(TermQuery::new(t, IndexRecordOption::Basic)),
                ));
            }
        }
        (!allowed.is_empty()).then(|| Box::new(BooleanQuery::new(allowed)) as Box<dyn Query>)
    }

    /// The matching documents, best first, each with its `per_path` best hits. Every match is
    /// visited once, reading only fast fields; documents are loaded later for what is shown.
    fn collect(
        &self,
        searcher: &tantivy::Searcher,
        plan: &Plan,
        per_path: usize,
    ) -> Result<Vec<Group>, IndexError> {
        let scoring = tantivy::query::EnableScoring::disabled_from_searcher(searcher);
        let tiers = plan
            .tiers
            .iter()
            .map(|(tier, q)| Ok((*tier, q.weight(scoring)?)))
            .collect::<Result<Vec<_>, tantivy::TantivyError>>()?;
        Ok(searcher.search(&*plan.main, &Collapse { tiers, per_path })?)
    }

    fn search_pages(&self, query: &str, opts: &SearchOptions) -> Result<Vec<Card>, IndexError> {
        let searcher = self.reader.searcher();
        let Some(plan) = self.plan(&searcher, query, opts)? else {
            return Ok(Vec::new());
        };
        let mut groups = self.collect(&searcher, &plan, opts.limit)?;
        // The best `limit` hits (spread or not) all come from the best `limit` documents.
        groups.truncate(opts.limit);
        let mut hits: Vec<(String, Hit)> = groups
            .into_iter()
            .flat_map(|g| {
                let path = g.path;
                g.hits.into_iter().map(move |h| (path.clone(), h))
            })
            .collect();
        hits.sort_by(|a, b| ranking::hit_order((&a.0, &a.1), (&b.0, &b.1)));
        let hits = match opts.per_document {
            Some(cap) => ranking::spread(hits, opts.limit, cap, |h| h.0.as_str()),
            None => {
                hits.truncate(opts.limit);
                hits
            }
        };
        let (snippets, terms) = self.excerpts(&searcher, &*plan.main, opts.excerpt_chars)?;
        let cjk_runs = tokenizer::cjk_runs(query);
        let mut cards = Vec::with_capacity(hits.len());
        for (_, hit) in hits {
            let doc: TantivyDocument = searcher.doc(hit.address)?;
            cards.push(self.card(
                &doc,
                hit.score,
                &snippets,
                &terms,
                &cjk_runs,
                opts.excerpt_chars,
            ));
        }
        Ok(cards)
    }

    fn search_documents(
        &self,
        query: &str,
        opts: &SearchOptions,
    ) -> Result<Vec<PaperHit>, IndexError> {
        let searcher = self.reader.searcher();
        let Some(plan) = self.plan(&searcher, query, opts)? else {
            return Ok(Vec::new());
        };
        let mut groups = self.collect(&searcher, &plan, PAGES_LISTED)?;
        groups.truncate(opts.limit);
        let (snippets, terms) = self.excerpts(&searcher, &*plan.main, opts.excerpt_chars)?;
        let cjk_runs = tokenizer::cjk_runs(query);
        let mut out = Vec::with_capacity(groups.len());
        for g in groups {
            let best = &g.hits[0];
            let doc: TantivyDocument = searcher.doc(best.address)?;
            let card = self.card(
                &doc,
                best.score,
                &snippets,
                &terms,
                &cjk_runs,
                opts.excerpt_chars,
            );
            let pages = g
                .hits
                .iter()
                .map(|h| {
                    let page = h.page.map(|p| p as u32);
                    let lines = h.lines.map(|(a, b)| [a as u32, b as u32]);
                    PageRef {
                        citation_uri: match (page, lines) {
                            (Some(p), _) => uri::page_uri(&g.path, p),
                            (None, Some([a, b])) => uri::lines_uri(&g.path, a, b),
                            _ => uri::encode_path(&g.path),
                        },
                        page,
                        lines,
                        score: h.score,
                    }
                })
                .collect();
            out.push(PaperHit { card, pages });
        }
        Ok(out)
    }

    /// The excerpt generator of a query and its terms in the text (where excerpts are cut).
    fn excerpts(
        &self,
        searcher: &tantivy::Searcher,
        q: &dyn Query,
        max: usize,
    ) -> Result<(SnippetGenerator, Vec<String>), IndexError> {
        let f = &self.fields;
        let mut snippets = SnippetGenerator::create(searcher, q, f.text)?;
        snippets.set_max_num_chars(max.max(40));
        let mut terms = Vec::new();
        q.query_terms(&mut |term, _| {
            if term.field() == f.text
                && let Some(s) = term.value().as_str()
            {
                terms.push(s.to_string());
            }
        });
        Ok((snippets, terms))
    }

    fn card(
        &self,
        doc: &TantivyDocument,
        score: f32,
        snippets: &SnippetGenerator,
        terms: &[String],
        cjk_runs: &[String],
        max: usize,
    ) -> Card {
        let f = &self.fields;
        let text_of = |field: Field| {
            doc.get_first(field)
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string()
        };
        let num = |field: Field| {
            doc.get_first(field)
                .and_then(|v| v.as_u64())
                .map(|n| n as u32)
        };
        let path = text_of(f.path);
        let kind = if text_of(f.kind) == "paper" {
            EntryKind::Paper
        } else {
            EntryKind::File
        };
        let page = num(f.page);
        let lines = num(f.line_start).zip(num(f.line_end)).map(|(a, b)| [a, b]);
        let text = text_of(f.text);
        let snippet = snippets.snippet(match_window(&text, terms, cjk_runs, max));
        let highlights = word_highlights(
            snippet.fragment(),
            snippet.highlighted(),
            !cjk_runs.is_empty(),
        );
        let excerpt = if highlights.is_empty() {
            if text.trim().is_empty() {
                "(no text layer on this page)".to_string()
            } else {
                shorten(&text, max)
            }
        } else {
            mark(snippet.fragment(), &highlights)
        };
        let citation_uri = match (page, lines) {
            (Some(p), _) => uri::page_uri(&path, p),
            (None, Some([a, b])) => uri::lines_uri(&path, a, b),
            _ => uri::encode_path(&path),
        };
        let label = text_of(f.page_label);
        Card {
            kind,
            title: text_of(f.title_stored),
            page,
            page_label: (!label.is_empty()).then_some(label),
            lines,
            excerpt,
            citation_uri,
            score,
            path,
        }
    }

    /// The stored documents of one path, ordered by page or first line.
    pub fn docs_of(&self, path: &str) -> Result<Vec<StoredDoc>, IndexError> {
        contain(|| self.docs_of_unguarded(path))
    }

    fn docs_of_unguarded(&self, path: &str) -> Result<Vec<StoredDoc>, IndexError> {
        let f = self.fields;
        let searcher = self.reader.searcher();
        let q = TermQuery::new(
            Term::from_field_text(f.path, path),
            IndexRecordOption::Basic,
        );
        let hits = searcher.search(&q, &TopDocs::with_limit(100_000).order_by_score())?;
        let mut out = Vec::with_capacity(hits.len());
        for (_, addr) in hits {
            let doc: TantivyDocument = searcher.doc(addr)?;
            out.push(self.stored(&doc));
        }
        out.sort_by_key(|d| (d.page, d.lines.map(|l| l.0)));
        Ok(out)
    }

    /// The text of one page of a paper, when indexed.
    pub fn page(&self, path: &str, page: u32) -> Result<Option<StoredDoc>, IndexError> {
        contain(|| self.page_unguarded(path, page))
    }

    fn page_unguarded(&self, path: &str, page: u32) -> Result<Option<StoredDoc>, IndexError> {
        let f = self.fields;
        let searcher = self.reader.searcher();
        let q = BooleanQuery::new(vec![
            (
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_text(f.path, path),
                    IndexRecordOption::Basic,
                )) as Box<dyn Query>,
            ),
            (
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_u64(f.page, page as u64),
                    IndexRecordOption::Basic,
                )),
            ),
        ]);
        let hits = searcher.search(&q, &TopDocs::with_limit(1).order_by_score())?;
        match hits.first() {
            Some((_, addr)) => Ok(Some(self.stored(&searcher.doc(*addr)?))),
            None => Ok(None),
        }
    }

    fn stored(&self, doc: &TantivyDocument) -> StoredDoc {
        let f = &self.fields;
        let s = |field: Field| {
            doc.get_first(field)
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string()
        };
        let n = |field: Field| {
            doc.get_first(field)
                .and_then(|v| v.as_u64())
                .map(|v| v as u32)
        };
        StoredDoc {
            path: s(f.path),
            title: s(f.title_stored),
            page: n(f.page),
            page_label: Some(s(f.page_label)).filter(|l| !l.is_empty()),
            lines: n(f.line_start).zip(n(f.line_end)),
            text: s(f.text),
            sha256: s(f.sha256),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct StoredDoc {
    pub path: String,
    pub title: String,
    pub page: Option<u32>,
    pub page_label: Option<String>,
    pub lines: Option<(u32, u32)>,
    pub text: String,
    pub sha256: String,
}

thread_local! {
    static CONTAINED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the current thread is inside [`contain`]: a panic there is an expected symptom of a
/// damaged index (logged, turned into [`IndexError::Corrupt`]), not a crash to report.
pub fn panic_is_contained() -> bool {
    CONTAINED.with(|c| c.get())
}

/// Runs `work` on the index with its panics caught and its I/O and decoding errors reported as
/// damage: tantivy assumes intact files.
fn contain<T>(work: impl FnOnce() -> Result<T, IndexError>) -> Result<T, IndexError> {
    let outer = CONTAINED.with(|c| c.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
    CONTAINED.with(|c| c.set(outer));
    match result {
        Ok(Err(IndexError::Tantivy(e))) => Err(damaged(e)),
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(IndexError::Corrupt(format!("reading it failed: {msg}")))
        }
    }
}

/// Tantivy errors that mean the files are bad, as [`IndexError::Corrupt`]; the rest as they are.
/// The searchable files of `index` that fail their checksum, reading only those not known to
/// have passed unchanged (and recording the ones that pass now).
fn unchecked_damage(index: &Index, dir: &Path) -> Result<Vec<std::path::PathBuf>, IndexError> {
    use super::checked::{Checked, Stamp};
    let managed = index.directory().list_managed_files();
    let mut files: Vec<std::path::PathBuf> = index
        .load_metas()
        .map_err(damaged)?
        .list_segment_files()
        .into_iter()
        .filter(|f| managed.contains(f))
        .collect();
    files.sort();
    files.dedup();
    let record = Checked::load(dir);
    let mut bad = Vec::new();
    let mut passed = Vec::new();
    let mut read = false;
    for f in files {
        let name = f.to_string_lossy().into_owned();
        let stamp = Stamp::of(&dir.join(&f));
        if record.passed(&name, stamp) {
            passed.push((name, stamp.expect("passed implies a stamp")));
            continue;
        }
        read = true;
        match index.directory().validate_checksum(&f) {
            Ok(true) => {
                if let Some(s) = stamp {
                    passed.push((name, s));
                }
            }
            Ok(false) => bad.push(f),
            // A listed file that cannot be opened: damage (it was deleted, say).
            Err(e) => return Err(damaged(e.into())),
        }
    }
    if read {
        Checked::save(dir, &passed, std::time::SystemTime::now());
    }
    Ok(bad)
}

fn damaged(e: tantivy::TantivyError) -> IndexError {
    use tantivy::TantivyError as T;
    match e {
        T::DataCorruption(_)
        | T::IoError(_)
        | T::OpenReadError(_)
        | T::OpenDirectoryError(_)
        | T::InternalError(_)
        | T::DeserializeError(_)
        | T::IncompatibleIndex(_) => {
            let text = e.to_string();
            // tantivy repeats its message a few times over; the first is enough.
            let first = text.split("': ").next().unwrap_or(&text).to_string();
            IndexError::Corrupt(first.chars().take(300).collect())
        }
        other => IndexError::Tantivy(other),
    }
}

/// The words of `query` (letters and digits), without any operator.
fn plain_words(query: &str) -> String {
    query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The fields a query may name (`author:` is accepted for `authors:`, `arXiv:` and `DOI:` for
/// `arxiv:` and `doi:`). The others (path, dir, kind, sha256, …) are bookkeeping: naming them
/// either fails inside tantivy or reaches past what a reader means to search.
const QUERY_FIELDS: &[&str] = &[
    "title", "authors", "text", "abstract", "year", "doi", "arxiv",
];

fn query_field(name: &str) -> Option<&'static str> {
    let name = match name {
        "author" => "authors",
        // As identifiers are written in citations: `arXiv:2101.00001`, `DOI:10.1145/…`.
        "arXiv" | "ArXiv" | "ARXIV" => "arxiv",
        "DOI" => "doi",
        other => other,
    };
    QUERY_FIELDS.iter().copied().find(|f| *f == name)
}

/// Punctuation a reader types as text, not as query syntax: a colon that ends a word
/// ("Manuscript Title: with Forced Linebreak") unless the word is a searchable field (`title:
/// hope` still names one), and an apostrophe inside a word ("Poorman's", which would open a
/// quote); both become spaces, as the tokenizer treats them.
fn as_typed(query: &str) -> std::borrow::Cow<'_, str> {
    let loose_colon = |w: &str| {
        w.len() > 1
            && w.ends_with(':')
            && !w.contains('"')
            && query_field(w.trim_end_matches(':').trim_start_matches(['+', '-', '('])).is_none()
    };
    let chars: Vec<char> = query.chars().collect();
    let inner_apostrophe = |i: usize| {
        chars[i] == '\''
            && i > 0
            && chars[i - 1].is_alphanumeric()
            && chars.get(i + 1).is_some_and(|c| c.is_alphanumeric())
    };
    let apostrophes = (0..chars.len()).any(inner_apostrophe);
    if !apostrophes && !query.split_whitespace().any(loose_colon) {
        return std::borrow::Cow::Borrowed(query);
    }
    let mut out = String::with_capacity(query.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(if loose_colon(word) {
            word.trim_end_matches(':')
        } else {
            word
        });
        word.clear();
    };
    for (i, &c) in chars.iter().enumerate() {
        if c.is_whitespace() {
            flush(&mut word, &mut out);
            out.push(c);
        } else if inner_apostrophe(i) {
            flush(&mut word, &mut out);
            out.push(' ');
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    std::borrow::Cow::Owned(out)
}

/// Checks every field a parsed query names. Strict: an unknown field is an error that lists
/// the searchable ones. Lenient: a literal on an unknown field searches the default fields,
/// anything else on one becomes the field's name as a word.
fn searchable_fields_only(ast: UserInputAst, lenient: bool) -> Result<UserInputAst, String> {
    let unknown = |f: &str| {
        format!(
            "cannot search the field {f:?}; the searchable fields are {}",
            QUERY_FIELDS.join(", ")
        )
    };
    let word = |f: String| {
        UserInputAst::Leaf(Box::new(UserInputLeaf::Literal(UserInputLiteral {
            field_name: None,
            phrase: f,
            delimiter: query_grammar::Delimiter::None,
            slop: 0,
            prefix: false,
        })))
    };
    Ok(match ast {
        UserInputAst::Clause(clauses) => UserInputAst::Clause(
            clauses
                .into_iter()
                .map(|(o, a)| searchable_fields_only(a, lenient).map(|a| (o, a)))
                .collect::<Result<_, _>>()?,
        ),
        UserInputAst::Boost(a, b) => {
            UserInputAst::Boost(Box::new(searchable_fields_only(*a, lenient)?), b)
        }
        UserInputAst::Leaf(leaf) => {
            let named = match &*leaf {
                UserInputLeaf::Literal(l) => l.field_name.clone(),
                UserInputLeaf::Range { field, .. }
                | UserInputLeaf::Set { field, .. }
                | UserInputLeaf::Regex { field, .. } => field.clone(),
                // `field:*` needs a fast field, and no searchable field is one.
                UserInputLeaf::Exists { field } if !lenient => {
                    return Err(format!(
                        "`{field}:*` (any value) cannot be searched; search for words instead"
                    ));
                }
                UserInputLeaf::Exists { field } => return Ok(word(field.clone())),
                UserInputLeaf::All => None,
            };
            match named {
                None => UserInputAst::Leaf(leaf),
                Some(f) => match (query_field(&f), *leaf) {
                    (Some(known), UserInputLeaf::Literal(mut l)) => {
                        l.field_name = Some(known.to_string());
                        UserInputAst::Leaf(Box::new(UserInputLeaf::Literal(l)))
                    }
                    (Some(_), other) => UserInputAst::Leaf(Box::new(other)),
                    (None, _) if !lenient => return Err(unknown(&f)),
                    (None, UserInputLeaf::Literal(mut l)) => {
                        l.field_name = None;
                        UserInputAst::Leaf(Box::new(UserInputLeaf::Literal(l)))
                    }
                    (None, _) => word(f),
                },
            }
        }
    })
}

/// Deepest parenthesis nesting a query may have (see [`nesting_depth`]).
pub const MAX_QUERY_NESTING: usize = 24;

/// How deep `(` nest in `query`, counted without regard to quotes or escapes (an unclosed
/// quote or a `\(` must not hide a nesting from the bound): an over-estimate, never less.
pub fn nesting_depth(query: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for c in query.chars() {
        match c {
            '(' => {
                depth += 1;
                max = max.max(depth);
            }
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The part of `text` around the first place the query's longest term appears: the excerpt is
/// cut from it, and tokenizing a window instead of a 40,000-character page keeps search fast. A
/// CJK word of the query found verbatim (`phrases`, longest first) is the place: the window is
/// then one excerpt wide around it (in bytes, as the snippet generator counts), so the excerpt
/// shows it.
fn match_window<'t>(text: &'t str, terms: &[String], phrases: &[String], max: usize) -> &'t str {
    const SLACK: usize = 600;
    if let Some((at, len)) = phrases
        .iter()
        .find_map(|p| text.find(p.as_str()).map(|at| (at, p.len())))
    {
        let half = max.saturating_sub(len) / 2;
        let mut start = at.saturating_sub(half);
        while !text.is_char_boundary(start) {
            start += 1;
        }
        let mut end = (at + len + half).min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        return &text[start..end];
    }
    if text.len() <= max * 2 + SLACK * 2 {
        return text;
    }
    let lower = text.to_lowercase();
    // Lower-casing can change byte lengths outside ASCII; then fall back to the whole text.
    if lower.len() != text.len() {
        return text;
    }
    // The longest term that occurs marks the place: a short one ("th" of `hep-th/0106109`)
    // occurs inside common words long before the match.
    let Some((_, at)) = terms
        .iter()
        .filter_map(|t| Some((std::cmp::Reverse(t.len()), lower.find(t.as_str())?)))
        .min()
    else {
        return text;
    };
    let mut start = at.saturating_sub(SLACK);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (at + max + SLACK).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    &text[start..end]
}

/// Score descending, then path, page and first line ascending: equal scores never reorder.
pub fn sort_cards(cards: &mut [Card]) {
    cards.sort_by(|a, b| {
        b.score
            .total_cmp(&a.score)
            .then_with(|| a.path.cmp(&b.path))
            .then_with(|| a.page.cmp(&b.page))
            .then_with(|| a.lines.cmp(&b.lines))
    });
}

/// Highlights as a reader sees words: CJK characters are matched one by one, so adjacent ranges
/// merge into the word they spell, and when the query has CJK words a lone character matched
/// on its own (a particle, say) is not highlighted.
fn word_highlights(
    fragment: &str,
    ranges: &[std::ops::Range<usize>],
    cjk_words: bool,
) -> Vec<std::ops::Range<usize>> {
    let mut merged: Vec<std::ops::Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match merged.last_mut() {
            Some(last) if last.end == r.start => last.end = r.end,
            _ => merged.push(r.clone()),
        }
    }
    let single_cjk = |s: &str| {
        let mut it = s.chars();
        matches!((it.next(), it.next()), (Some(c), None) if tokenizer::is_cjk(c))
    };
    if cjk_words {
        merged.retain(|r| fragment.get(r.clone()).is_none_or(|s| !single_cjk(s)));
    }
    merged
}

/// Wraps the highlighted ranges of `fragment` in `**` and folds whitespace.
fn mark(fragment: &str, ranges: &[std::ops::Range<usize>]) -> String {
    let mut out = String::with_capacity(fragment.len() + ranges.len() * 4);
    let mut pos = 0;
    for r in ranges {
        if r.start < pos || r.end > fragment.len() {
            continue;
        }
        out.push_str(&fragment[pos..r.start]);
        out.push_str("**");
        out.push_str(&fragment[r.start..r.end]);
        out.push_str("**");
        pos = r.end;
    }
    out.push_str(&fragment[pos..]);
    let folded = out.split_whitespace().collect::<Vec<_>>().join(" ");
    format!("…{folded}…")
}

/// The first `max` characters of `text`, whitespace folded, cut at a word boundary.
pub fn shorten(text: &str, max: usize) -> String {
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if folded.chars().count() <= max {
        return folded;
    }
    let cut: String = folded.chars().take(max).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > max / 2 => cut[..i].to_string(),
        _ => cut,
    };
    format!("{cut}…")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny_index(dir: &Path) -> SearchIndex {
        let index = SearchIndex::create(dir).unwrap();
        let mut w = index.writer().unwrap();
        index
            .add(
                &w,
                &IndexDoc {
                    path: "notes/a.md",
                    kind: EntryKind::File,
                    title: "A",
                    authors: "",
                    carries_title: true,
                    identity: Identity::default(),
                    page: None,
                    page_label: None,
                    lines: Some((1, 1)),
                    text: "nested parentheses everywhere",
                    sha256: "0",
                },
            )
            .unwrap();
        w.commit().unwrap();
        index.reload().unwrap();
        index
    }

    #[test]
    fn only_the_searchable_fields_can_be_named() {
        let dir = tempfile::tempdir().unwrap();
        let index = tiny_index(dir.path());
        let strict = SearchOptions::default();
        let lenient = SearchOptions {
            lenient: true,
            ..SearchOptions::default()
        };
        for q in [
            "sha256:*",
            "path:notes",
            "kind:file",
            "text:*",
            "dir:notes AND nested",
        ] {
            match index.search(q, &strict) {
                Err(IndexError::BadQuery(m)) => assert!(!m.is_empty()),
                other => panic!("{q}: {other:?}"),
            }
            assert!(index.search(q, &lenient).is_ok(), "{q}");
        }
        // Lenient: a literal on a bookkeeping field is a plain word.
        assert_eq!(index.search("path:nested", &lenient).unwrap().len(), 1);
        assert_eq!(index.search("text:nested", &strict).unwrap().len(), 1);
        assert_eq!(index.search("title:a", &strict).unwrap().len(), 1);
    }

    #[test]
    fn deeply_nested_queries_are_bounded_not_recursed() {
        let dir = tempfile::tempdir().unwrap();
        let index = tiny_index(dir.path());
        let deep = format!("{}parentheses{}", "(".repeat(5000), ")".repeat(5000));
        let unclosed = format!("{}parentheses", "(-".repeat(3000));
        // A small stack: without the bound, these overflow it and abort the process.
        let found = std::thread::scope(|s| {
            std::thread::Builder::new()
                .stack_size(256 << 10)
                .spawn_scoped(s, || {
                    let lenient = SearchOptions {
                        lenient: true,
                        ..SearchOptions::default()
                    };
                    let a = index.search(&deep, &lenient).unwrap();
                    let b = index.search(&unclosed, &lenient).unwrap();
                    let strict = index.search(&deep, &SearchOptions::default());
                    (a.len(), b.len(), strict.err().map(|e| e.to_string()))
                })
                .unwrap()
                .join()
                .unwrap()
        });
        assert_eq!(found.0, 1, "the lenient search still finds the word");
        assert!(found.2.unwrap().contains("nested 5000 deep"));
        let shallow = format!("{}parentheses{}", "(".repeat(5), ")".repeat(5));
        assert_eq!(
            index
                .search(&shallow, &SearchOptions::default())
                .unwrap()
                .len(),
            1
        );
        assert_eq!(nesting_depth("a (b (c) d) (e)"), 2);
        assert_eq!(nesting_depth(")))((("), 3);
    }

    #[test]
    fn typed_punctuation_is_text() {
        assert_eq!(
            as_typed("Manuscript Title: with Forced Linebreak"),
            "Manuscript Title with Forced Linebreak"
        );
        assert_eq!(as_typed("Poorman's Hangul"), "Poorman s Hangul");
        assert_eq!(as_typed("title: hope 'a b' x:y"), "title: hope 'a b' x:y");
        let dir = tempfile::tempdir().unwrap();
        let index = tiny_index(dir.path());
        let strict = SearchOptions::default();
        for q in ["Nested: parentheses", "everywhere's nested", "title: a"] {
            assert_eq!(index.search(q, &strict).unwrap().len(), 1, "{q}");
        }
        assert!(index.search("nosuchfield:nested", &strict).is_err());
        // Identifier fields as citations write them, inside a longer query.
        for q in [
            "arXiv:2101.00001 nested",
            "DOI:10.1/x OR nested",
            "year:2020 OR nested",
        ] {
            assert_eq!(index.search(q, &strict).unwrap().len(), 1, "{q}");
        }
    }

    #[test]
    fn cjk_highlights_cover_words() {
        let fragment = "在中文排版中的问题";
        let byte = |i: usize| {
            fragment
                .char_indices()
                .nth(i)
                .map_or(fragment.len(), |c| c.0)
        };
        let char_ranges: Vec<std::ops::Range<usize>> = [1, 2, 3, 4, 5]
            .iter()
            .map(|&i| byte(i)..byte(i + 1))
            .collect();
        // 中 文 排 版 adjacent, then 中 alone after them.
        let merged = word_highlights(fragment, &char_ranges[..4], true);
        assert_eq!(mark(fragment, &merged), "…在**中文排版**中的问题…");
        let lone = vec![byte(1)..byte(3), byte(5)..byte(6)];
        assert_eq!(
            mark(fragment, &word_highlights(fragment, &lone, true)),
            "…在**中文**排版中的问题…"
        );
        assert_eq!(
            mark(fragment, &word_highlights(fragment, &lone, false)),
            "…在**中文**排版**中**的问题…"
        );
    }

    #[test]
    fn marks_and_orders() {
        assert_eq!(
            mark("a  reading\norder", &[3..10, 11..16]),
            "…a **reading** **order**…"
        );
        let card = |path: &str, page, score| Card {
            path: path.into(),
            kind: EntryKind::Paper,
            title: String::new(),
            page: Some(page),
            page_label: None,
            lines: None,
            excerpt: String::new(),
            citation_uri: String::new(),
            score,
        };
        let mut cards = vec![
            card("b", 1, 1.0),
            card("a", 2, 1.0),
            card("a", 1, 1.0),
            card("z", 9, 2.0),
        ];
        sort_cards(&mut cards);
        let order: Vec<(String, Option<u32>)> =
            cards.into_iter().map(|c| (c.path, c.page)).collect();
        assert_eq!(
            order,
            vec![
                ("z".into(), Some(9)),
                ("a".into(), Some(1)),
                ("a".into(), Some(2)),
                ("b".into(), Some(1))
            ]
        );
        assert_eq!(shorten("one two three four", 9), "one two…");
        let long = format!("{}needle{}", "hay ".repeat(2000), " straw".repeat(2000));
        let w = match_window(&long, &["needl".to_string()], &[], 200);
        assert!(w.contains("needle") && w.len() < 2000);
        assert_eq!(
            match_window("short needle", &["needl".to_string()], &[], 200),
            "short needle"
        );
    }
}
