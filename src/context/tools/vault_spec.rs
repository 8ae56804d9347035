//! The vault MCP's tool names, titles, descriptions and output schemas. Plain JSON, like
//! [`super::spec`]; the input schemas are the tools' argument types' (see
//! [`super::vault::specs`]). Every result's `structuredContent` follows its output schema and
//! the text content carries the same data.

use serde_json::{Value, json};

/// The vault MCP's tools, in `tools/list` order.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    strum::EnumIter,
    strum::EnumString,
    strum::IntoStaticStr,
    strum::Display,
)]
#[strum(serialize_all = "snake_case")]
pub enum VaultTool {
    VaultSearch,
    PaperList,
    PaperRead,
    PaperRelations,
    FileRead,
    LocateQuote,
}

impl VaultTool {
    /// Every tool, in `tools/list` order.
    pub fn all() -> impl Iterator<Item = VaultTool> {
        <VaultTool as strum::IntoEnumIterator>::iter()
    }

    /// The tool's MCP name (`vault_search`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The tool of an MCP name, if it is one of the vault MCP's.
    pub fn of(name: &str) -> Option<VaultTool> {
        name.parse().ok()
    }
}

#[derive(Debug, Clone)]
pub struct VaultToolSpec {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub input_schema: Value,
    pub output_schema: Value,
}

/// The tools in `tools/list` order, each with the input schema `input_schema` gives for it.
pub fn specs(input_schema: impl Fn(VaultTool) -> Value) -> Vec<VaultToolSpec> {
    VaultTool::all()
        .map(|tool| {
            let mut spec = match tool {
                VaultTool::VaultSearch => vault_search(),
                VaultTool::PaperList => paper_list(),
                VaultTool::PaperRead => paper_read(),
                VaultTool::PaperRelations => paper_relations(),
                VaultTool::FileRead => file_read(),
                VaultTool::LocateQuote => locate_quote(),
            };
            spec.input_schema = input_schema(tool);
            spec
        })
        .collect()
}

/// A field that may be `null` (as `anyOf`, which single-`type` schema dialects accept).
fn nullable(t: &str) -> Value {
    json!({"anyOf": [{"type": t}, {"type": "null"}]})
}

/// `next`: the arguments of the call that continues where this result stopped.
fn next_schema() -> Value {
    json!({"type": "object", "description": "Arguments to call the same tool with to continue."})
}

fn card_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "kind": {"type": "string", "enum": ["paper", "file"]},
            "title": {"type": "string"},
            "page": {"type": "integer"},
            "pageLabel": {"type": "string"},
            "lines": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2},
            "excerpt": {"type": "string"},
            "citationUri": {"type": "string"},
            "citationKey": {"type": "string", "description": "A paper's citation key, to cite it in a manuscript: [@key, p. N]."},
            "score": {"type": "number"}
        },
        "required": ["path", "kind", "title", "excerpt", "citationUri", "score"]
    })
}

fn vault_search() -> VaultToolSpec {
    VaultToolSpec {
        name: VaultTool::VaultSearch.as_str(),
        title: "Search the vault",
        description: "Full-text search over every paper (page by page) and text file of the vault. Returns short \
evidence cards: path, title, physical page and printed page label (papers) or line range (files), an excerpt with \
the matched words in **bold**, a citation URI, a paper's citation key and a score — never whole texts. Filter by `folder`, `kind` (paper or \
file) and publication `year` (or `yearFrom`/`yearTo`). Read more with paper_read or file_read on a card's \
citationUri; cite with the citationUri.",
        input_schema: Value::Null,
        output_schema: json!({
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "cards": {"type": "array", "items": card_schema()},
                "truncated": {"type": "boolean"},
                "note": {"type": "string"},
                "indexIncomplete": {"type": "string", "description": "Present when the index does not cover the vault (being built, or its last build was interrupted): the results may be incomplete."}
            },
            "required": ["cards", "truncated"]
        }),
    }
}

fn paper_list() -> VaultToolSpec {
    VaultToolSpec {
        name: VaultTool::PaperList.as_str(),
        title: "List the vault's papers",
        description: "The vault's papers, sorted by path, a page at a time: path, title, authors, year, DOI, \
arXiv id, page count, status (indexed, no_text for a scan without a text layer, failed) and a citation URI. \
Filter by `folder`, `year` (or `yearFrom`/`yearTo`) and `query` (words of the title, an author or the path). \
When more papers follow, `next` holds the arguments for the next page.",
        input_schema: Value::Null,
        output_schema: json!({
            "type": "object",
            "properties": {
                "papers": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "title": {"type": "string"},
                        "authors": {"type": "array", "items": {"type": "string"}},
                        "year": nullable("integer"),
                        "doi": nullable("string"),
                        "arxiv": nullable("string"),
                        "pages": {"type": "integer"},
                        "status": {"type": "string", "enum": ["indexed", "no_text", "failed"]},
                        "citationUri": {"type": "string"}
                    },
                    "required": ["path", "title", "authors", "pages", "status"]
                }},
                "total": {"type": "integer"},
                "offset": {"type": "integer"},
                "truncated": {"type": "boolean"},
                "next": next_schema(),
                "note": {"type": "string"}
            },
            "required": ["papers", "total", "offset", "truncated"]
        }),
    }
}

/// What paper_read and file_read return (the context tools' read result).
fn read_output() -> Value {
    json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "kind": {"type": "string", "enum": ["paper", "file", "directory"]},
            "mode": {"type": "string"},
            "title": {"type": "string"},
            "page": {"type": "integer"},
            "lines": {"type": "array", "items": {"type": "integer"}},
            "text": {"type": "string"},
            "entries": {"type": "array", "items": {"type": "object"}},
            "authors": {"type": "array", "items": {"type": "string"}},
            "year": nullable("integer"),
            "doi": nullable("string"),
            "arxiv": nullable("string"),
            "citationKey": {"type": "string", "description": "The citation key to cite the paper with in a manuscript: [@key, p. N]."},
            "type": {"type": "string", "description": "The kind of work, as a CSL type (article-journal, paper-conference, book, chapter, thesis, report, article for a preprint, document)."},
            "containerTitle": {"type": "string", "description": "The journal, proceedings or book it appeared in."},
            "abstract": nullable("string"),
            "pages": {"type": "integer"},
            "sections": {"type": "array", "items": {"type": "object"}},
            "citationUri": {"type": "string"},
            "truncated": {"type": "boolean"},
            "next": next_schema(),
            "note": {"type": "string"},
            "lineCut": {"type": "string", "description": "A line longer than the call's cap was cut; the rest of it is in no continuation."}
        },
        "required": ["path", "kind", "mode", "title", "truncated"]
    })
}

fn paper_read() -> VaultToolSpec {
    VaultToolSpec {
        name: VaultTool::PaperRead.as_str(),
        title: "Read a paper",
        description: "Read one paper (PDF) of the vault. `mode`: `metadata` (default: title, authors, year, DOI/arXiv, \
citation key for a manuscript's [@key, p. N], abstract, page count, sections), `page` (one physical page; `next` points to the following page, so a whole book \
can be read page by page), `pages` (pages `page`..`endPage`), `section` (by title or number), `excerpt` (the text \
around `quote`; whitespace, hyphenation and ligatures may differ), `region` (characters `start`..`end` of a page), \
`full` (the whole text from `page` on), `annotations` (the reader's highlights and notes: page, type, text, \
comment, colour, citation URI). Every result is cut at a per-call budget of characters (`maxChars` lowers \
it); when cut it says `truncated: true`, and `next` holds the exact arguments to continue.",
        input_schema: Value::Null,
        output_schema: read_output(),
    }
}

fn paper_relations() -> VaultToolSpec {
    VaultToolSpec {
        name: VaultTool::PaperRelations.as_str(),
        title: "Citations of a paper",
        description: "Slim cards of papers related to a paper of the vault: `cites` (its reference list, from its \
citation sidecar or extracted from the PDF), `cited_by` (papers of the vault whose references name it by DOI or \
arXiv id) and `related` (vault papers sharing references or cited together with it). A card has `paperPath` when \
the paper is in the vault (then readable with paper_read) and `citationUri` only when it can be opened (a vault \
path, https://doi.org/… or https://arxiv.org/abs/…).",
        input_schema: Value::Null,
        output_schema: json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "title": {"type": "string"},
                "cards": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "relation": {"type": "string", "enum": ["cites", "cited_by", "related"]},
                        "title": {"type": "string"},
                        "authors": {"type": "array", "items": {"type": "string"}},
                        "year": {"type": "integer"},
                        "doi": {"type": "string"},
                        "arxiv": {"type": "string"},
                        "paperPath": {"type": "string"},
                        "inGrant": {"type": "boolean"},
                        "citationUri": {"type": "string"}
                    },
                    "required": ["relation", "title", "authors", "inGrant"]
                }},
                "truncated": {"type": "boolean"}
            },
            "required": ["path", "title", "cards"]
        }),
    }
}

fn file_read() -> VaultToolSpec {
    VaultToolSpec {
        name: VaultTool::FileRead.as_str(),
        title: "Read a text file or list a folder",
        description: "Read one text file of the vault (notes, .md, .txt, .tex, .bib, …) or list a folder (one level: \
names and kinds). `mode`: `full` (default: the text from line `start` on), `region` (lines `start`..`end`, \
1-based inclusive; a #line= URI selects them too), `excerpt` (the lines around `quote`), `metadata` (line count \
and size). Cut at a per-call budget of characters; when cut, `next` holds the arguments to continue. Hidden files \
and the app's state folder are never readable.",
        input_schema: Value::Null,
        output_schema: read_output(),
    }
}

fn locate_quote() -> VaultToolSpec {
    VaultToolSpec {
        name: VaultTool::LocateQuote.as_str(),
        title: "Find where a quote comes from",
        description: "Given a quoted passage (a sentence or more, as copied from a paper, a chat or a PDF viewer), \
find the paper and the page it occurs on: physical page, printed page label and a citation URI. Tolerant of \
different whitespace and line breaks, hyphenation at line ends, ligatures (ﬁ/fi) and typographic quotes and \
dashes. Searches the whole vault, or only `paper` when given. `found: false` when it occurs nowhere.",
        input_schema: Value::Null,
        output_schema: json!({
            "type": "object",
            "properties": {
                "quote": {"type": "string"},
                "found": {"type": "boolean"},
                "matches": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "path": {"type": "string"},
                        "title": {"type": "string"},
                        "page": {"type": "integer"},
                        "pageLabel": {"type": "string"},
                        "match": {"type": "string", "enum": ["exact", "approximate"]},
                        "text": {"type": "string"},
                        "citationUri": {"type": "string"}
                    },
                    "required": ["path", "title", "page", "match", "text", "citationUri"]
                }},
                "note": {"type": "string"}
            },
            "required": ["quote", "found", "matches"]
        }),
    }
}
