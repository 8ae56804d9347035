//! Query parsing and its guard: which fields a query may name, punctuation typed as text,
//! the nesting bound, and CJK runs as optional character pairs.

use tantivy::Term;
use tantivy::query::{BooleanQuery, Occur, Query, QueryParser, TermQuery};
use tantivy::query_grammar::{self, UserInputAst, UserInputLeaf, UserInputLiteral};
use tantivy::schema::IndexRecordOption;

use super::error::IndexError;
use super::store::SearchIndex;
use crate::vault::{ranking, tokenizer};

impl SearchIndex {
    pub(super) fn parse(&self, query: &str, lenient: bool) -> Result<Box<dyn Query>, IndexError> {
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
        // Text that is not the query syntax (a model formula `y ~ x | g`, a shell pipe, an
        // unbalanced parenthesis, pasted code) is searched as the words it holds: every query
        // is a query.
        let strict_ast = (!lenient)
            .then(|| query_grammar::parse_query(query).ok())
            .flatten();
        let parsed = match strict_ast {
            Some(ast) => {
                let ast = searchable_fields_only(ast, false).map_err(IndexError::BadQuery)?;
                parser
                    .build_query_from_user_input_ast(ast)
                    .map_err(|e| IndexError::BadQuery(e.to_string()))?
            }
            None => {
                let literal;
                let text = if lenient {
                    query
                } else {
                    literal = plain_words(query);
                    literal.as_str()
                };
                let (ast, _) = query_grammar::parse_query_lenient(text);
                let ast = searchable_fields_only(ast, true).map_err(IndexError::BadQuery)?;
                parser.build_query_from_user_input_ast_lenient(ast).0
            }
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
}

/// The words of `query` (letters and digits), without any operator.
pub(super) fn plain_words(query: &str) -> String {
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
pub(super) fn as_typed(query: &str) -> std::borrow::Cow<'_, str> {
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
