//! Opening, creating and writing the index, and reading its stored documents back.

use std::path::Path;

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::{Index, IndexReader, IndexWriter, ReloadPolicy, TantivyDocument, Term};

use super::contain::{contain, damaged, unchecked_damage};
use super::error::IndexError;
use super::schema::{Fields, IndexDoc, register, schema};
use crate::vault::tokenizer;

pub struct SearchIndex {
    pub(super) index: Index,
    pub(super) reader: IndexReader,
    pub fields: Fields,
    /// The passage vectors a plain query is fused with ([`super::hybrid`]).
    pub(super) vectors: Option<std::sync::Arc<crate::vault::embed::Vectors>>,
}

impl SearchIndex {
    /// Opens an existing index for reading. Fails with `Missing` when there is none and with a
    /// schema error when it is of another version (the indexer rebuilds such an index).
    ///
    /// Every file's checksum is verified first (a read of the whole file): tantivy trusts its
    /// files and panics or misreads on damaged ones. Files that passed before and are unchanged
    /// since are not read again (see [`crate::vault::checked`]).
    pub fn open(dir: &Path) -> Result<SearchIndex, IndexError> {
        // tantivy opens its own files; the folder they are in must be ours.
        match crate::vault::statefs::check_dir(dir) {
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
            vectors: None,
        })
    }

    /// This index with passage vectors to fuse with its BM25 hits.
    pub fn with_vectors(mut self, vectors: crate::vault::embed::Vectors) -> SearchIndex {
        self.vectors = Some(std::sync::Arc::new(vectors));
        self
    }

    /// The model whose vectors are fused with this index's hits, if any.
    pub fn embedding_model(&self) -> Option<&str> {
        self.vectors.as_deref().map(|v| v.model.name.as_str())
    }

    /// Creates an empty index in `dir` (which must be empty or missing).
    pub fn create(dir: &Path) -> Result<SearchIndex, IndexError> {
        crate::vault::statefs::ensure_dir(dir).map_err(std::io::Error::from)?;
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
        if let Some(k) = d.identity.citation_key.filter(|k| !k.is_empty()) {
            doc.add_text(f.citekey, k);
        }
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
