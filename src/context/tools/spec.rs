//! The tools' names, titles and descriptions, and their input schemas, derived from the
//! argument types the tools parse ([`input_schema`]). Plain JSON so that any adapter (the MCP
//! server, the built-in agent's docs) can hand them out unchanged.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

use super::{read, relations, search};
use crate::context::server::ContextTool;

#[derive(Debug, Clone)]
pub struct ToolSpec {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub input_schema: Value,
}

/// Every context tool's spec: search, read, relations (the order a client lists them in).
pub fn specs() -> Vec<ToolSpec> {
    // The order a client lists them in; a test checks that it holds every tool.
    [
        ContextTool::ContextSearch,
        ContextTool::ContextRead,
        ContextTool::PaperRelations,
    ]
    .into_iter()
    .map(spec)
    .collect()
}

/// One tool's spec.
pub fn spec(tool: ContextTool) -> ToolSpec {
    match tool {
        ContextTool::ContextSearch => search(),
        ContextTool::ContextRead => read(),
        ContextTool::PaperRelations => relations(),
    }
}

fn search() -> ToolSpec {
    ToolSpec {
        name: ContextTool::ContextSearch.as_str(),
        title: "Search the granted sources",
        description: "Full-text search over the sources granted for this turn only: the pages of granted papers, \
granted text files, and the papers and text files inside granted directories (at any depth). Returns a few short \
evidence cards (path, title, page or line range, a short excerpt with matches in **bold**, a citation URI, a \
paper's citation key and a score), never whole texts, with no one document taking every card while others match. Card count and excerpt \
length are capped by the turn's budget. Use context_read on a card's path or citation URI \
to read more, and cite with the citationUri.",
        input_schema: input_schema::<search::Args>(),
    }
}

fn read() -> ToolSpec {
    ToolSpec {
        name: ContextTool::ContextRead.as_str(),
        title: "Read a granted source",
        description: "Read one granted source. `path` is a granted vault path (a citation URI such as \
papers/x/paper.pdf#page=3 or notes/a.md#line=10,20 is accepted too). Modes: `metadata` (default: title, authors, \
year, DOI/arXiv, citation key for a manuscript's [@key, p. N], abstract, page count and sections of a paper; title and line count of a file), `excerpt` (find \
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
        name: ContextTool::PaperRelations.as_str(),
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

#[cfg(test)]
pub(super) mod tests {
    use serde_json::{Map, Value, json};

    use super::super::{parse_args, read, relations, search};
    use crate::context::server::ContextTool;

    /// A tool's parser, as the server runs it: `Ok` when the arguments parse, else the message.
    pub(in crate::context::tools) type Parse = fn(Value) -> Result<(), String>;

    pub(in crate::context::tools) fn parses<T: serde::de::DeserializeOwned>(
        v: Value,
    ) -> Result<(), String> {
        parse_args::<T>(v).map(drop).map_err(|e| e.message)
    }

    /// A value the schema `p` of one property accepts.
    fn sample(p: &Value) -> Value {
        if let Some(first) = p["enum"].as_array().and_then(|e| e.first()) {
            return first.clone();
        }
        match p["type"].as_str() {
            Some("string") => json!("x"),
            Some("integer") => p.get("minimum").cloned().unwrap_or(json!(1)),
            Some("boolean") => json!(false),
            Some("array") => json!([sample(&p["items"])]),
            other => panic!("no sample for type {other:?} in {p}"),
        }
    }

    /// The field names a parser accepts, from its error on an unknown one ("unknown field
    /// `…`, expected one of `a`, `b`").
    fn accepted_fields(parse: Parse, required: &Map<String, Value>) -> Vec<String> {
        let mut args = required.clone();
        args.insert("notAnArgument".into(), json!(1));
        let e = parse(Value::Object(args)).expect_err("an unknown field is refused");
        let expected = e.split_once("expected").expect("serde names the fields").1;
        let mut names: Vec<String> = expected
            .split('`')
            .skip(1)
            .step_by(2)
            .map(String::from)
            .collect();
        names.sort();
        names
    }

    /// The schema derived for `tool` says what its parser takes: the same argument names
    /// (but `refused`, which the parser takes only to refuse them with a pointer to what to use
    /// instead), the same required ones, every listed enum value, and the length caps.
    pub(in crate::context::tools) fn schema_matches_parser(
        tool: &str,
        schema: &Value,
        parse: Parse,
        refused: &[&str],
    ) {
        assert_eq!(schema["type"], "object", "{tool}");
        assert_eq!(schema["additionalProperties"], false, "{tool}");
        assert!(schema.get("$schema").is_none() && schema.get("title").is_none());
        let props = schema["properties"].as_object().expect("properties");
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map_or(Vec::new(), |r| r.iter().filter_map(Value::as_str).collect());
        let minimal: Map<String, Value> = required
            .iter()
            .map(|r| (r.to_string(), sample(&props[*r])))
            .collect();
        // Names.
        let mut names: Vec<String> = props.keys().cloned().collect();
        names.extend(refused.iter().map(|r| r.to_string()));
        names.sort();
        assert_eq!(
            accepted_fields(parse, &minimal),
            names,
            "{tool}: argument names"
        );
        // Required: these alone parse; without any one of them, the parser names it.
        parse(Value::Object(minimal.clone())).unwrap_or_else(|e| panic!("{tool}: {e}"));
        for r in &required {
            let mut without = minimal.clone();
            without.remove(*r);
            let e = parse(Value::Object(without)).expect_err(r);
            assert!(e.contains(&format!("missing field `{r}`")), "{tool}: {e}");
        }
        for (name, p) in props {
            let with = |v: Value| {
                let mut args = minimal.clone();
                args.insert(name.clone(), v);
                parse(Value::Object(args))
            };
            assert!(p["description"].as_str().is_some_and(|d| !d.contains('\n')));
            assert!(
                p.get("format").is_none() && p["type"].is_string(),
                "{tool}.{name}"
            );
            with(sample(p)).unwrap_or_else(|e| panic!("{tool}.{name}: {e}"));
            for v in p["enum"].as_array().into_iter().flatten() {
                with(v.clone()).unwrap_or_else(|e| panic!("{tool}.{name}={v}: {e}"));
            }
            let (string, cap) = match (p.get("maxLength"), p.get("maxItems")) {
                (Some(n), _) => (true, n.as_u64().unwrap() as usize),
                (None, Some(n)) => (false, n.as_u64().unwrap() as usize),
                (None, None) => continue,
            };
            let of = |n: usize| match string {
                true => json!("é".repeat(n)),
                false => Value::Array(vec![sample(&p["items"]); n]),
            };
            with(of(cap)).unwrap_or_else(|e| panic!("{tool}.{name} at its cap: {e}"));
            with(of(cap + 1)).expect_err(&format!("{tool}.{name} over its cap"));
            if let Some(n) = p["items"].get("maxLength").and_then(Value::as_u64) {
                with(json!(["é".repeat(n as usize + 1)])).expect_err(name);
            }
        }
    }

    #[test]
    fn read_modes_are_named_as_parsed() {
        use strum::IntoEnumIterator;
        for m in read::Mode::iter() {
            let parsed: read::Mode = serde_json::from_value(json!(m.as_str())).unwrap();
            assert_eq!(parsed, m);
        }
        for m in crate::context::Mode::iter() {
            assert_eq!(serde_json::to_value(m).unwrap(), m.as_str());
        }
    }

    #[test]
    fn every_tool_has_its_spec_once() {
        let mut listed: Vec<&str> = super::specs().iter().map(|s| s.name).collect();
        listed.sort_unstable();
        let all: Vec<&str> = ContextTool::all().map(ContextTool::as_str).collect();
        assert_eq!(listed, all);
        for t in ContextTool::all() {
            assert_eq!(super::spec(t).name, t.as_str());
        }
    }

    #[test]
    fn every_schema_is_its_argument_types() {
        let specs = super::specs();
        let parsers: [(&str, Parse, &[&str]); 3] = [
            ("context_search", parses::<search::Args>, &[]),
            // Refused after parsing: context_read has no `pages` mode.
            ("context_read", parses::<read::Args>, &["endPage"]),
            ("paper_relations", parses::<relations::Args>, &[]),
        ];
        assert_eq!(specs.len(), parsers.len());
        for (spec, (name, parse, refused)) in specs.iter().zip(parsers) {
            assert_eq!(spec.name, name);
            schema_matches_parser(name, &spec.input_schema, parse, refused);
        }
        // context_read's schema leaves out the mode it refuses.
        let read = &specs[1].input_schema["properties"]["mode"]["enum"];
        assert!(
            !read.as_array().unwrap().contains(&json!("pages")),
            "{read}"
        );
    }
}
