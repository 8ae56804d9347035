//! Running a search: the plan (ranking and scope), collecting hits, and the cards shown.

use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{Field, IndexRecordOption, Value};
use tantivy::snippet::SnippetGenerator;
use tantivy::{TantivyDocument, Term};

use super::cards::{Card, PAGES_LISTED, PageRef, PaperHit, Scope, SearchOptions};
use super::contain::{contain, damaged};
use super::error::IndexError;
use super::excerpt::{mark, match_window, shorten, word_highlights};
use super::query::plain_words;
use super::store::SearchIndex;
use crate::vault::ranking::{self, Collapse, Group, Hit, Plan};
use crate::vault::scan::EntryKind;
use crate::vault::{tokenizer, uri};

impl SearchIndex {
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
        // The best `limit` hits (spread or not) all come from the best `limit` documents;
        // fused with the vectors, from more of them.
        groups.truncate(self.fused_docs(opts.limit));
        let hits = ranked_hits(groups);
        let keep = opts.limit.saturating_mul(opts.limit).max(opts.limit);
        let mut hits = self.fuse(&searcher, query, opts.scope.as_ref(), hits, keep)?;
        let hits = match opts.per_document {
            Some(cap) => ranking::spread(hits, opts.limit, cap, |h| h.0.as_str()),
            None => {
                hits.truncate(opts.limit);
                hits
            }
        };
        let (snippets, terms) = self.excerpts(&searcher, &*plan.main, opts.excerpt_chars)?;
        let cjk_runs = tokenizer::cjk_runs(query);
        let near = self.query_vector(query);
        let mut cards = Vec::with_capacity(hits.len());
        for (_, hit) in hits {
            let doc: TantivyDocument = searcher.doc(hit.address)?;
            cards.push(self.card(
                &doc,
                hit.score,
                (&snippets, &terms, &cjk_runs, near.as_deref()),
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
        groups.truncate(self.fused_docs(opts.limit));
        let groups = self.fuse_groups(&searcher, query, opts, groups)?;
        let (snippets, terms) = self.excerpts(&searcher, &*plan.main, opts.excerpt_chars)?;
        let cjk_runs = tokenizer::cjk_runs(query);
        let near = self.query_vector(query);
        let mut out = Vec::with_capacity(groups.len());
        for g in groups {
            let best = &g.hits[0];
            let doc: TantivyDocument = searcher.doc(best.address)?;
            let card = self.card(
                &doc,
                best.score,
                (&snippets, &terms, &cjk_runs, near.as_deref()),
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

    /// Documents of the BM25 list a search keeps: `limit`, or more when they are fused.
    fn fused_docs(&self, limit: usize) -> usize {
        if self.vectors.is_some() {
            limit.max(super::hybrid::BM25_DOCS)
        } else {
            limit
        }
    }

    /// Paper-level groups in fused order (their pages too), at most `opts.limit` of them.
    fn fuse_groups(
        &self,
        searcher: &tantivy::Searcher,
        query: &str,
        opts: &SearchOptions,
        mut groups: Vec<Group>,
    ) -> Result<Vec<Group>, IndexError> {
        if self.vectors.is_none() {
            groups.truncate(opts.limit);
            return Ok(groups);
        }
        let hits = ranked_hits(groups);
        let keep = opts.limit.saturating_mul(PAGES_LISTED);
        let fused = self.fuse(searcher, query, opts.scope.as_ref(), hits, keep)?;
        let mut out: Vec<Group> = Vec::new();
        for (path, hit) in fused {
            match out.iter().position(|g| g.path == path) {
                Some(i) if out[i].hits.len() < PAGES_LISTED => out[i].hits.push(hit),
                Some(_) => {}
                None if out.len() < opts.limit => out.push(Group {
                    path,
                    hits: vec![hit],
                }),
                None => {}
            }
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

    /// `marks`: the excerpt generator, the query's terms in the text, its CJK runs, and its
    /// vector (a page no term of the query is on is excerpted where it is nearest in meaning).
    fn card(
        &self,
        doc: &TantivyDocument,
        score: f32,
        marks: (&SnippetGenerator, &[String], &[String], Option<&[f32]>),
        max: usize,
    ) -> Card {
        let (snippets, terms, cjk_runs, near) = marks;
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
                near.and_then(|q| self.nearest_window(&text, q, max))
                    .unwrap_or_else(|| shorten(&text, max))
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
        let key = text_of(f.citekey);
        Card {
            citation_key: (!key.is_empty()).then_some(key),
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
}

/// The hits of `groups`, each with its document's path, best first (the order every search
/// ranks pages in).
fn ranked_hits(groups: Vec<Group>) -> Vec<(String, Hit)> {
    let mut hits: Vec<(String, Hit)> = groups
        .into_iter()
        .flat_map(|g| {
            let path = g.path;
            g.hits.into_iter().map(move |h| (path.clone(), h))
        })
        .collect();
    hits.sort_by(|a, b| ranking::hit_order((&a.0, &a.1), (&b.0, &b.1)));
    hits
}
