//! The tools' names, titles and descriptions, and their input schemas, derived from the
//! argument types the tools parse ([`input_schema`]). Plain JSON so that any adapter (the MCP
//! server, the built-in agent's docs) can hand them out unchanged.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

use super::{read, relations, search};

#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub input_schema: Value,
}

pub fn specs() -> Vec<ToolSpec> {
    vec![search(), read(), relations()]
}

fn search() -> ToolSpec {
    ToolSpec {
        name: "context_search",
        title: "Search the granted sources",
        description: "Full-text search over the sources granted for this turn only: the pages of granted papers, \
granted text files, and the papers and text files inside granted directories (at any depth). Returns a few short \
evidence cards (path, title, page or line range, a short excerpt with matches in **bold**, a citation URI and a \
score), never whole texts, with no one document taking every card while others match. Card count and excerpt \
length are capped by the turn's budget. Use context_read on a card's path or citation URI \
to read more, and cite with the citationUri.",
        input_schema: input_schema::<search::Args>(),
    }
}

fn read() -> ToolSpec {
    ToolSpec {
        name: "context_read",
        title: "Read a granted source",
        description: "Read one granted source. `path` is a granted vault path (a citation URI such as \
papers/x/paper.pdf#page=3 or notes/a.md#line=10,20 is accepted too). Modes: `metadata` (default: title, authors, \
year, DOI/arXiv, abstract, page count and sections of a paper; title and line count of a file), `excerpt` (find \
`quote` in the source — whitespace, hyphenation and ligatures may differ — and return the text around it), \
`section` (a paper's section by title or number), `page` (one page of a paper), `region` (characters `start`..`end` \
of one page of a paper, or lines `start`..`end` of a file), `full` (the whole text from `page`/`start` on, only \
when you need it; cut at the budget), `annotations` (the reader's highlights and notes on a paper: page, type, \
text, comment, colour and the page's citation URI; `page` keeps one page's). Long results come back with `truncated: true` and `next`, the arguments \
to continue. A directory returns its entry names (one level); to read a paper or file in it (at any depth), name it. \
Papers that are only known from relation cards are not readable.",
        input_schema: input_schema::<read::Args>(),
    }
}

fn relations() -> ToolSpec {
    ToolSpec {
        name: "paper_relations",
        title: "Citations of a granted paper",
        description: "Slim cards of papers related to a granted paper: `cites` (its reference list, from its citation \
sidecar or extracted from the PDF), `cited_by` (papers in the library whose references name it by DOI or arXiv id) \
and `related` (library papers sharing references or cited together with it). A card has `paperPath` only when the \
paper is in the library, `inGrant` tells whether context_read may open it, and `citationUri` is present only when \
it can be opened (a vault path, https://doi.org/… or https://arxiv.org/abs/…).",
        input_schema: input_schema::<relations::Args>(),
    }
}

/// The input schema of a tool whose arguments are `T`: the JSON Schema derived from the type
/// (field doc comments are the descriptions; `#[serde(deny_unknown_fields)]` is
/// `additionalProperties: false`), inlined, without `$schema` and the type's title, and in the
/// portable subset every client's function calling takes ([`portable`]).
pub(super) fn input_schema<T: JsonSchema>() -> Value {
    let schema = SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.meta_schema = None;
        })
        .into_generator()
        .into_root_schema_for::<T>();
    let mut v = schema.to_value();
    if let Value::Object(root) = &mut v {
        // The type's name and its doc comment are the code's, not the tool's.
        root.remove("title");
        root.remove("description");
    }
    portable(&mut v);
    v
}

/// One `type` per schema and no `format`: an optional argument's `null` (which the parser
/// takes as the argument left out) is dropped from its `type`, `enum`, `anyOf` and `default`,
/// and integer formats (`uint64`, `int32`: no standard format) are dropped. A description's
/// lines (a doc comment wrapped at the code's width) are joined into one.
fn portable(v: &mut Value) {
    let Value::Object(m) = v else { return };
    m.remove("format");
    if m.get("default").is_some_and(Value::is_null) {
        m.remove("default");
    }
    if let Some(Value::String(d)) = m.get_mut("description") {
        *d = d.split('\n').map(str::trim).collect::<Vec<_>>().join(" ");
    }
    if let Some(Value::Array(types)) = m.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let t = types.remove(0);
            m.insert("type".into(), t);
        }
    }
    if let Some(Value::Array(values)) = m.get_mut("enum") {
        values.retain(|x| !x.is_null());
    }
    if let Some(Value::Array(branches)) = m.get_mut("anyOf") {
        branches.retain(|b| b.get("type") != Some(&Value::from("null")));
        if branches.len() == 1
            && let Value::Object(only) = branches.remove(0)
        {
            m.remove("anyOf");
            for (k, x) in only {
                m.entry(k).or_insert(x);
            }
        }
    }
    for (k, x) in m.iter_mut() {
        match (k.as_str(), x) {
            ("properties", Value::Object(props)) => props.values_mut().for_each(portable),
            ("items" | "additionalProperties", x) => portable(x),
            ("anyOf" | "oneOf" | "allOf", Value::Array(branches)) => {
                branches.iter_mut().for_each(portable)
            }
            _ => {}
        }
    }
}
