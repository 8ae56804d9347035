//! Ranking for known-item search: what a query asks for, how its hits are gathered per document,
//! and the score shown for them.
//!
//! - A query that is an identifier (a DOI or arXiv id, bare, as `doi:…`/`arXiv:…` or a resolver
//!   URL) is looked up exactly in the papers' identifier fields, then as printed text.
//! - A plain query (no operators) also asks for its words as a phrase (a small slop), and a word
//!   the index does not hold is widened to the words it does hold one edit away.
//! - Tiers: a paper that owns the identifier is first; then papers whose title, authors and year
//!   hold every word of the query (its function words aside), so a title or author query finds
//!   the paper above notes and papers that only mention it, and papers that print an identifier
//!   above notes that do; then everything else by BM25.
//!   The score shown is `tier + s / (s + 10)` for BM25 score `s`: ordered like (tier, s), in
//!   [0, 3).
//! - Hits are gathered per document ([`Collapse`]): the best pages of each, for paper-level
//!   results and for page-level cards where one document must not crowd out the rest.

use std::cmp::Ordering;
use std::collections::HashMap;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::query::{BooleanQuery, BoostQuery, Occur, PhraseQuery, Query, TermQuery, Weight};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::tokenizer::TextAnalyzer;
use tantivy::{
    DocAddress, DocId, Score, Searcher, SegmentOrdinal, SegmentReader, TERMINATED, Term,
};

use super::ids;
use super::index::schema::Fields;

/// Field boosts of the words of a query (BM25 over each field, summed).
pub const TITLE_BOOST: Score = 3.0;
pub const AUTHORS_BOOST: Score = 3.0;
pub const ABSTRACT_BOOST: Score = 1.5;
pub const ID_BOOST: Score = 4.0;
/// The query's words as a phrase on a page, on top of the words themselves.
const PHRASE_BOOST: Score = 2.0;
/// Positions a phrase's words may be apart (an inserted word, a hyphenated line break).
const PHRASE_SLOP: u32 = 2;
/// A misspelt word widened to the words of the index one edit away counts this much of itself.
const FUZZY_BOOST: Score = 0.8;
/// The nearest words a misspelt word is widened to, per field.
const MAX_EXPANSIONS: usize = 3;
/// Longer queries are searched for their words only (a pasted paragraph is no title).
const MAX_PHRASE_WORDS: usize = 16;
/// Longer queries name no paper by its metadata.
const MAX_NAMED_WORDS: usize = 12;
/// Misspelt words widened per query at most.
const MAX_WIDENED: usize = 4;

/// Tiers, best first (see the module's documentation): the paper whose identifier the query
/// is; papers the query names (by their metadata, or by printing the identifier asked for).
pub const TIER_OWNER: u8 = 2;
pub const TIER_PAPER: u8 = 1;

/// The score shown for BM25 score `raw` in `tier`, rounded to three decimals (ordering uses the
/// same rounding, so two results that look equal are ordered by path and page).
pub fn shown_score(tier: u8, raw: Score) -> Score {
    let raw = raw.max(0.0);
    let s = tier as Score + raw / (raw + 10.0);
    (s * 1000.0).round() / 1000.0
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identifier {
    Doi(String),
    Arxiv(String),
}

/// The identifier a whole query is, if it is one: `10.1145/…`, `doi:10.1145/…`,
/// `https://doi.org/10.1145/…`, `2101.00001`, `arXiv:2101.00001v2`, `hep-th/0106109`,
/// `https://arxiv.org/abs/…`. Lower-cased, without version.
pub fn identifier(query: &str) -> Option<Identifier> {
    let q = query.trim().trim_matches(['"', '<', '>']).trim();
    if q.is_empty() || q.contains(char::is_whitespace) {
        return None;
    }
    if let Some(doi) = ids::normalize_doi(q) {
        // arXiv's own DOIs (10.48550/arXiv.2101.00001) name an arXiv id.
        return Some(match doi.strip_prefix("10.48550/arxiv.") {
            Some(a) => Identifier::Arxiv(a.to_string()),
            None => Identifier::Doi(doi),
        });
    }
    let id = ids::normalize_arxiv(q)?;
    // The id must be the whole query (with its prefix, version or `.pdf`), not a number in it.
    let lower = q.to_ascii_lowercase();
    let at = lower.find(&id)?;
    let (before, after) = (&lower[..at], &lower[at + id.len()..]);
    let prefix_ok = matches!(
        before
            .trim_start_matches("https://")
            .trim_start_matches("http://"),
        "" | "arxiv:" | "arxiv.org/abs/" | "arxiv.org/pdf/" | "www.arxiv.org/abs/"
    );
    let after = after.trim_end_matches(".pdf");
    let version_ok = after.is_empty()
        || after
            .strip_prefix('v')
            .is_some_and(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit()));
    (prefix_ok && version_ok).then_some(Identifier::Arxiv(id))
}

/// Whether a query is words only: no quotes, operators, fields, groups, boosts or ranges. Such a
/// query is what a reader types or pastes; the others say exactly what they want.
pub fn is_plain(query: &str) -> bool {
    !query.contains(['"', '(', ')', '[', ']', '{', '}', '^', '*', '\\'])
        && query.split_whitespace().all(|w| {
            !w.starts_with(['+', '-'])
                && !matches!(w, "AND" | "OR" | "NOT" | "IN")
                && !w.trim_end_matches(':').contains(':')
        })
}

/// What a search runs: the query that finds and scores pages, and the queries that mark the
/// pages of the tiers above the rest.
pub struct Plan {
    pub main: Box<dyn Query>,
    pub tiers: Vec<(u8, Box<dyn Query>)>,
}

/// A word of a query: its position, its term as the index has it, and its text as typed
/// (lower-cased, not stemmed).
#[derive(Debug, Clone)]
pub struct Word {
    pub position: usize,
    pub term: String,
    pub typed: String,
}

/// The words of `text` as the index has them.
pub fn words(analyzer: &mut TextAnalyzer, text: &str) -> Vec<Word> {
    let mut stream = analyzer.token_stream(text);
    let mut out: Vec<Word> = Vec::new();
    while stream.advance() {
        let t = stream.token();
        out.push(Word {
            position: t.position,
            term: t.text.clone(),
            typed: text
                .get(t.offset_from..t.offset_to)
                .unwrap_or(&t.text)
                .to_lowercase(),
        });
    }
    // Positions relative to the first word.
    if let Some(first) = out.first().map(|w| w.position) {
        for w in &mut out {
            w.position -= first;
        }
    }
    out
}

/// The terms of `words` in `field` as one query: a term, or a phrase of them.
fn phrase_or_term(field: Field, words: &[Word], slop: u32) -> Option<Box<dyn Query>> {
    match words {
        [] => None,
        [w] => Some(term(field, &w.term)),
        _ => Some(Box::new(PhraseQuery::new_with_offset_and_slop(
            words
                .iter()
                .map(|w| (w.position, Term::from_field_text(field, &w.term)))
                .collect(),
            slop,
        ))),
    }
}

fn term(field: Field, text: &str) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(field, text),
        IndexRecordOption::WithFreqs,
    ))
}

fn boosted(q: Box<dyn Query>, boost: Score) -> Box<dyn Query> {
    Box::new(BoostQuery::new(q, boost))
}

/// An identifier query: the paper that owns it (tier 2, and a strong match), then the pages of
/// papers that print it (tier 1: they cite it), then other files that print it.
pub fn identifier_plan(f: &Fields, analyzer: &mut TextAnalyzer, id: &Identifier) -> Plan {
    let (field, value) = match id {
        Identifier::Doi(d) => (f.doi, d.as_str()),
        Identifier::Arxiv(a) => (f.arxiv, a.as_str()),
    };
    let owner = term(field, value);
    let mut main: Vec<(Occur, Box<dyn Query>)> =
        vec![(Occur::Should, boosted(owner.box_clone(), ID_BOOST))];
    let mut tiers = vec![(TIER_OWNER, owner)];
    if let Some(printed) = phrase_or_term(f.text, &words(analyzer, value), 0) {
        tiers.push((
            TIER_PAPER,
            Box::new(BooleanQuery::new(vec![
                (Occur::Must, printed.box_clone()),
                (Occur::Must, paper_kind(f)),
            ])),
        ));
        main.push((Occur::Should, printed));
    }
    Plan {
        main: Box::new(BooleanQuery::new(main)),
        tiers,
    }
}

fn paper_kind(f: &Fields) -> Box<dyn Query> {
    Box::new(TermQuery::new(
        Term::from_field_text(f.kind, "paper"),
        IndexRecordOption::Basic,
    ))
}

/// Function words a title query may carry that the title need not (`logic and philosophy` for
/// "Logic & Philosophy"), as the analyzer leaves them.
const FUNCTION_WORDS: &[&str] = &[
    "a", "an", "and", "as", "at", "by", "for", "from", "in", "is", "of", "on", "or", "the", "to",
    "with",
];

/// A plain query: the parsed words, the words as a phrase, the nearest words of the index for
/// words it does not hold, and the tier of papers whose metadata names every word.
pub fn plain_plan(
    searcher: &Searcher,
    f: &Fields,
    analyzer: &mut TextAnalyzer,
    parsed: Box<dyn Query>,
    query: &str,
) -> Plan {
    let words = words(analyzer, query);
    let mut should: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Should, parsed)];
    let mut widened: HashMap<&str, Vec<(Field, String)>> = HashMap::new();
    for word in &words {
        let w = word.term.as_str();
        if widened.len() >= MAX_WIDENED || widened.contains_key(w) || !may_be_misspelt(w) {
            continue;
        }
        let fields = [
            (f.text, 1.0),
            (f.title, TITLE_BOOST),
            (f.authors, AUTHORS_BOOST),
        ];
        let known = fields.iter().any(|(field, _)| {
            searcher
                .doc_freq(&Term::from_field_text(*field, w))
                .is_ok_and(|n| n > 0)
        });
        if known {
            continue;
        }
        let meant = corrections(analyzer, word);
        let mut near = Vec::new();
        for (field, boost) in fields {
            for e in terms_in(searcher, field, &meant) {
                should.push((Occur::Should, boosted(term(field, &e), FUZZY_BOOST * boost)));
                near.push((field, e));
            }
        }
        widened.insert(w, near);
    }
    // The phrase of the words the index holds, each at its place (a misspelt word leaves a gap).
    let held: Vec<Word> = words
        .iter()
        .filter(|w| !widened.contains_key(w.term.as_str()))
        .cloned()
        .collect();
    if (2..=MAX_PHRASE_WORDS).contains(&held.len())
        && let Some(p) = phrase_or_term(f.text, &held, PHRASE_SLOP)
    {
        should.push((Occur::Should, boosted(p, PHRASE_BOOST)));
    }
    let mut tiers = Vec::new();
    if let Some(named) = named_query(f, &words, &widened) {
        tiers.push((TIER_PAPER, named));
    }
    Plan {
        main: Box::new(BooleanQuery::new(should)),
        tiers,
    }
}

/// Papers whose title, authors or year hold each content word of the query (or a nearest word
/// it was widened to). Only for short queries with at least one word that is not a number.
fn named_query(
    f: &Fields,
    words: &[Word],
    widened: &HashMap<&str, Vec<(Field, String)>>,
) -> Option<Box<dyn Query>> {
    let mut content: Vec<&str> = words
        .iter()
        .map(|w| w.term.as_str())
        .filter(|w| !FUNCTION_WORDS.contains(w))
        .collect();
    content.sort_unstable();
    content.dedup();
    if content.is_empty()
        || content.len() > MAX_NAMED_WORDS
        || content
            .iter()
            .all(|w| w.chars().all(|c| c.is_ascii_digit()))
    {
        return None;
    }
    let mut must: Vec<(Occur, Box<dyn Query>)> = vec![(Occur::Must, paper_kind(f))];
    for w in content {
        let mut any: Vec<(Occur, Box<dyn Query>)> = [f.title, f.authors, f.year]
            .into_iter()
            .map(|field| (Occur::Should, term(field, w)))
            .collect();
        for (field, e) in widened.get(w).into_iter().flatten() {
            if *field != f.text {
                any.push((Occur::Should, term(*field, e)));
            }
        }
        must.push((Occur::Must, Box::new(BooleanQuery::new(any))));
    }
    Some(Box::new(BooleanQuery::new(must)))
}

/// Words worth widening: four letters or more (a CJK character is a word of its own), not
/// numbers.
fn may_be_misspelt(w: &str) -> bool {
    w.chars().count() >= 4 && w.chars().any(|c| c.is_alphabetic())
}

/// What a misspelt word may mean: the stems of its corrections one edit away (a letter
/// substituted, dropped, added, or two neighbours swapped), as the index would hold them
/// ("empyt" → "empty" → "empti", "scholraly" → "scholarly" → "scholar").
fn corrections(analyzer: &mut TextAnalyzer, word: &Word) -> TermSet {
    let mut meant: Vec<String> = Vec::new();
    for candidate in one_edit(&word.typed) {
        let mut stream = analyzer.token_stream(&candidate);
        if stream.advance() {
            let stem = stream.token().text.clone();
            if !stream.advance() && stem != word.term {
                meant.push(stem);
            }
        }
    }
    meant.sort_unstable();
    meant.dedup();
    TermSet::new(&meant)
}

/// The terms of `set` that `field` holds, most frequent first, at most [`MAX_EXPANSIONS`]. A
/// misspelt word with no correction in the index (a new name) is widened to nothing.
fn terms_in(searcher: &Searcher, field: Field, set: &TermSet) -> Vec<String> {
    let mut found: HashMap<String, u64> = HashMap::new();
    for segment in searcher.segment_readers() {
        let Ok(inverted) = segment.inverted_index(field) else {
            continue;
        };
        let Ok(mut stream) = inverted.terms().search(set).into_stream() else {
            continue;
        };
        while stream.advance() {
            if let Ok(t) = std::str::from_utf8(stream.key()) {
                *found.entry(t.to_string()).or_default() += u64::from(stream.value().doc_freq);
            }
        }
    }
    let mut near: Vec<(u64, String)> = found.into_iter().map(|(t, n)| (n, t)).collect();
    near.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    near.into_iter()
        .take(MAX_EXPANSIONS)
        .map(|(_, t)| t)
        .collect()
}

/// Every string one edit from `word` (Norvig's spelling corrector): deletions, swaps of
/// neighbours, substitutions and insertions of a letter or digit.
fn one_edit(word: &str) -> Vec<String> {
    const ALPHABET: &str = "abcdefghijklmnopqrstuvwxyz0123456789";
    let chars: Vec<char> = word.chars().collect();
    let mut out = Vec::with_capacity(chars.len() * 74 + 36);
    let join = |parts: &[&[char]]| parts.iter().flat_map(|p| p.iter()).collect::<String>();
    for i in 0..=chars.len() {
        let (left, right) = chars.split_at(i);
        if let Some((first, rest)) = right.split_first() {
            out.push(join(&[left, rest]));
            if let Some((second, rest2)) = rest.split_first() {
                out.push(join(&[left, &[*second, *first], rest2]));
            }
            for c in ALPHABET.chars().filter(|c| c != first) {
                out.push(join(&[left, &[c], rest]));
            }
        }
        for c in ALPHABET.chars() {
            out.push(join(&[left, &[c], right]));
        }
    }
    out
}

/// A set of terms as an automaton over a term dictionary: a trie, walked byte by byte alongside
/// the dictionary's FST, so the dictionary is read once for all the terms.
struct TermSet {
    /// Nodes: children by byte, and whether a term ends here.
    nodes: Vec<(Vec<(u8, usize)>, bool)>,
}

impl TermSet {
    fn new(terms: &[String]) -> TermSet {
        let mut nodes: Vec<(Vec<(u8, usize)>, bool)> = vec![(Vec::new(), false)];
        for t in terms {
            let mut at = 0;
            for &b in t.as_bytes() {
                at = match nodes[at].0.iter().find(|(c, _)| *c == b) {
                    Some(&(_, next)) => next,
                    None => {
                        nodes.push((Vec::new(), false));
                        let next = nodes.len() - 1;
                        nodes[at].0.push((b, next));
                        next
                    }
                };
            }
            nodes[at].1 = true;
        }
        TermSet { nodes }
    }
}

impl tantivy_fst::Automaton for TermSet {
    type State = Option<usize>;

    fn start(&self) -> Option<usize> {
        Some(0)
    }

    fn is_match(&self, state: &Option<usize>) -> bool {
        state.is_some_and(|n| self.nodes[n].1)
    }

    fn can_match(&self, state: &Option<usize>) -> bool {
        state.is_some()
    }

    fn accept(&self, state: &Option<usize>, byte: u8) -> Option<usize> {
        let n = (*state)?;
        self.nodes[n]
            .0
            .iter()
            .find(|(c, _)| *c == byte)
            .map(|&(_, next)| next)
    }
}

/// One matching page (or chunk) of a document.
#[derive(Debug, Clone)]
pub struct Hit {
    pub tier: u8,
    /// [`shown_score`] of the page.
    pub score: Score,
    pub address: DocAddress,
    pub page: Option<u64>,
    /// First and last line of a chunk of a text file.
    pub lines: Option<(u64, u64)>,
}

/// A document's best hits, best first.
#[derive(Debug, Clone)]
pub struct Group {
    pub path: String,
    pub hits: Vec<Hit>,
}

/// Best first: tier, score, then page and first line (within a document).
fn better(a: &Hit, b: &Hit) -> Ordering {
    b.tier
        .cmp(&a.tier)
        .then_with(|| b.score.total_cmp(&a.score))
        .then_with(|| a.page.cmp(&b.page))
        .then_with(|| a.lines.cmp(&b.lines))
}

/// Best first across documents: tier, score, then path, page and first line.
pub fn hit_order(a: (&str, &Hit), b: (&str, &Hit)) -> Ordering {
    b.1.tier
        .cmp(&a.1.tier)
        .then_with(|| b.1.score.total_cmp(&a.1.score))
        .then_with(|| a.0.cmp(b.0))
        .then_with(|| better(a.1, b.1))
}

/// Gathers the hits of a query per document (path): the `per_path` best of each, with the tier
/// each page is in.
pub struct Collapse {
    pub tiers: Vec<(u8, Box<dyn Weight>)>,
    pub per_path: usize,
}

pub struct SegmentCollapse {
    segment: SegmentOrdinal,
    paths: Option<tantivy::columnar::StrColumn>,
    page: tantivy::columnar::Column<u64>,
    line_start: tantivy::columnar::Column<u64>,
    line_end: tantivy::columnar::Column<u64>,
    tiered: HashMap<DocId, u8>,
    groups: Vec<Vec<Hit>>,
    per_path: usize,
}

impl Collector for Collapse {
    type Fruit = Vec<Group>;
    type Child = SegmentCollapse;

    fn for_segment(
        &self,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentCollapse> {
        // The tiers' pages are few (first pages of papers): listed up front.
        let mut tiered: HashMap<DocId, u8> = HashMap::new();
        for (tier, weight) in &self.tiers {
            let mut scorer = weight.scorer(reader, 1.0)?;
            let mut doc = scorer.doc();
            while doc != TERMINATED {
                let t = tiered.entry(doc).or_insert(0);
                *t = (*t).max(*tier);
                doc = scorer.advance();
            }
        }
        let ff = reader.fast_fields();
        let paths = ff.str("path")?;
        let terms = paths.as_ref().map_or(0, |c| c.dictionary().num_terms());
        Ok(SegmentCollapse {
            segment,
            paths,
            page: ff.u64("page")?,
            line_start: ff.u64("line_start")?,
            line_end: ff.u64("line_end")?,
            tiered,
            groups: vec![Vec::new(); terms],
            per_path: self.per_path.max(1),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(&self, fruits: Vec<Vec<Group>>) -> tantivy::Result<Vec<Group>> {
        let mut by_path: HashMap<String, Vec<Hit>> = HashMap::new();
        for g in fruits.into_iter().flatten() {
            by_path.entry(g.path).or_default().extend(g.hits);
        }
        let mut groups: Vec<Group> = by_path
            .into_iter()
            .map(|(path, mut hits)| {
                hits.sort_by(better);
                hits.truncate(self.per_path.max(1));
                Group { path, hits }
            })
            .collect();
        groups.sort_by(|a, b| hit_order((&a.path, &a.hits[0]), (&b.path, &b.hits[0])));
        Ok(groups)
    }
}

impl SegmentCollector for SegmentCollapse {
    type Fruit = Vec<Group>;

    fn collect(&mut self, doc: DocId, score: Score) {
        let Some(ord) = self.paths.as_ref().and_then(|c| c.term_ords(doc).next()) else {
            return;
        };
        let Some(group) = self.groups.get_mut(ord as usize) else {
            return;
        };
        let tier = self.tiered.get(&doc).copied().unwrap_or(0);
        let hit = Hit {
            tier,
            score: shown_score(tier, score),
            address: DocAddress::new(self.segment, doc),
            page: self.page.first(doc),
            lines: self.line_start.first(doc).zip(self.line_end.first(doc)),
        };
        if group.len() < self.per_path {
            group.push(hit);
        } else if let Some((worst, _)) = group
            .iter()
            .enumerate()
            .max_by(|a, b| better(a.1, b.1))
            .filter(|(_, w)| better(&hit, w) == Ordering::Less)
        {
            group[worst] = hit;
        }
    }

    fn harvest(self) -> Vec<Group> {
        let Some(col) = self.paths else {
            return Vec::new();
        };
        let (ords, hits): (Vec<u64>, Vec<Vec<Hit>>) = self
            .groups
            .into_iter()
            .enumerate()
            .filter(|(_, hits)| !hits.is_empty())
            .map(|(ord, hits)| (ord as u64, hits))
            .unzip();
        // One pass over the path dictionary for all the groups (its blocks are compressed: a
        // lookup per group would decompress a block per group, thousands for a common word).
        let mut paths = Vec::with_capacity(ords.len());
        let read = col.dictionary().sorted_ords_to_term_cb(&ords, |bytes| {
            paths.push(String::from_utf8_lossy(bytes).into_owned())
        });
        if read.is_err() || paths.len() != hits.len() {
            return Vec::new();
        }
        paths
            .into_iter()
            .zip(hits)
            .map(|(path, hits)| Group { path, hits })
            .collect()
    }
}

/// The first `limit` of `ranked` (best first), no document taking more than `cap` of them while
/// another document has results left; slots no other document can fill go to the best of the
/// rest. Returned best first.
pub fn spread<T>(ranked: Vec<T>, limit: usize, cap: usize, path: impl Fn(&T) -> &str) -> Vec<T> {
    let cap = cap.max(1);
    let mut taken: HashMap<String, usize> = HashMap::new();
    let mut chosen: Vec<(usize, T)> = Vec::new();
    let mut rest: Vec<(usize, T)> = Vec::new();
    for (i, item) in ranked.into_iter().enumerate() {
        if chosen.len() >= limit {
            rest.push((i, item));
            continue;
        }
        let n = taken.entry(path(&item).to_string()).or_default();
        if *n < cap {
            *n += 1;
            chosen.push((i, item));
        } else {
            rest.push((i, item));
        }
    }
    let missing = limit.saturating_sub(chosen.len());
    chosen.extend(rest.into_iter().take(missing));
    chosen.sort_by_key(|(i, _)| *i);
    chosen.into_iter().map(|(_, item)| item).collect()
}

/// Cards one document may take of a page-level result of `limit` while others have some.
pub fn per_document_cap(limit: usize) -> usize {
    limit.div_ceil(3).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_are_whole_queries() {
        let doi = |s: &str| Some(Identifier::Doi(s.to_string()));
        let arxiv = |s: &str| Some(Identifier::Arxiv(s.to_string()));
        assert_eq!(
            identifier("10.1145/3290605.3300233"),
            doi("10.1145/3290605.3300233")
        );
        assert_eq!(
            identifier(" doi:10.1103/PhysRevB.39.207 "),
            doi("10.1103/physrevb.39.207")
        );
        assert_eq!(
            identifier("https://doi.org/10.1016/0022-4049(74)90029-2"),
            doi("10.1016/0022-4049(74)90029-2")
        );
        assert_eq!(identifier("arXiv:1403.1349"), arxiv("1403.1349"));
        assert_eq!(identifier("1905.12410v2"), arxiv("1905.12410"));
        assert_eq!(
            identifier("https://arxiv.org/abs/1905.12410"),
            arxiv("1905.12410")
        );
        assert_eq!(
            identifier("https://arxiv.org/pdf/1905.12410v1.pdf"),
            arxiv("1905.12410")
        );
        assert_eq!(identifier("hep-th/0106109"), arxiv("hep-th/0106109"));
        assert_eq!(identifier("10.48550/arXiv.2101.00001"), arxiv("2101.00001"));
        for not in [
            "",
            "attention",
            "2101.00001 attention",
            "x2101.00001",
            "1905.12410xyz",
            "3.14159",
            "10.1145",
        ] {
            assert_eq!(identifier(not), None, "{not:?}");
        }
    }

    #[test]
    fn plain_queries_are_words_only() {
        for q in [
            "reading order",
            "Manuscript Title: with Forced Linebreak",
            "ASCE-like documents",
            "一份（不太）简短的",
        ] {
            assert!(is_plain(q), "{q}");
        }
        for q in [
            "\"reading order\"",
            "+latex -quantum",
            "a AND b",
            "title:hope",
            "(a b)",
            "hope^2",
        ] {
            assert!(!is_plain(q), "{q}");
        }
    }

    #[test]
    fn edits_and_spreading() {
        let edits = one_edit("vyetsman");
        assert!(edits.contains(&"veytsman".to_string()));
        assert!(edits.contains(&"vyetman".to_string()) && edits.contains(&"vyetsmans".to_string()));
        assert!(!edits.contains(&"vyetsman".to_string()));
        let set = TermSet::new(&["empti".to_string(), "emptiness".to_string()]);
        let walk = |t: &str| {
            use tantivy_fst::Automaton;
            let end = t.bytes().fold(set.start(), |s, b| set.accept(&s, b));
            set.is_match(&end)
        };
        assert!(walk("empti") && walk("emptiness") && !walk("empt") && !walk("emptie"));
        let ranked = vec!["a", "a", "a", "a", "b", "a", "c"];
        assert_eq!(
            spread(ranked.clone(), 4, 2, |s| s),
            vec!["a", "a", "b", "c"]
        );
        // Nobody else to fill the slots: the best document takes them.
        assert_eq!(
            spread(vec!["a", "a", "a"], 3, 1, |s| s),
            vec!["a", "a", "a"]
        );
        assert_eq!(spread(ranked, 2, 1, |s| s), vec!["a", "b"]);
        assert_eq!(per_document_cap(8), 3);
        assert_eq!(per_document_cap(1), 1);
        assert!(shown_score(1, 0.0) > shown_score(0, 1e3));
        assert!(shown_score(0, 5.0) < shown_score(0, 6.0));
    }
}
