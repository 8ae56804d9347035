//! The tools' names, descriptions and input schemas. Plain JSON so that any
//! adapter (the MCP server, the built-in agent's docs) can hand them out unchanged.

use serde_json::{Value, json};

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
        input_schema: json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "Words or a \"quoted phrase\" to look for; title:word and -word work too."
                },
                "limit": {
                    "type": "integer", "minimum": 1,
                    "description": "Maximum number of cards (capped by the budget's search_cards)."
                },
                "paths": {
                    "type": "array", "items": {"type": "string"},
                    "description": "Restrict the search to these granted vault paths (papers, files or directories). A path that is not granted is an error."
                }
            },
            "required": ["query"],
            "additionalProperties": false
        }),
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
        input_schema: json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "A granted vault path or a citation URI pointing into the vault."},
                "mode": {
                    "type": "string",
                    "enum": ["metadata", "excerpt", "section", "page", "region", "full", "annotations"],
                    "description": "What to read (default metadata)."
                },
                "quote": {"type": "string", "description": "excerpt: the passage to locate (at least a few words)."},
                "section": {"type": "string", "description": "section: the section's title or number, e.g. \"2.1\" or \"Method\"."},
                "page": {"type": "integer", "minimum": 1, "description": "page/region: the 1-based physical page; full: the page to start from; annotations: only this page's."},
                "start": {"type": "integer", "minimum": 0, "description": "region: first character of the page (0-based) or first line of a file (1-based); page/full/section/metadata/directory listings: where to continue (from `next`)."},
                "end": {"type": "integer", "minimum": 0, "description": "region: end character of the page (exclusive) or last line of a file (inclusive)."},
                "maxChars": {"type": "integer", "minimum": 1, "description": "Return at most this many characters (capped by the budget's read_chars; a value below 200 is raised to 200)."}
            },
            "required": ["path"],
            "additionalProperties": false
        }),
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
        input_schema: json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "A granted paper's vault path."},
                "kinds": {
                    "type": "array",
                    "items": {"type": "string", "enum": ["cites", "cited_by", "related"]},
                    "description": "Which relations to list (default all three)."
                },
                "limit": {"type": "integer", "minimum": 1, "description": "Maximum cards per relation (default 20, at most 50)."}
            },
            "required": ["path"],
            "additionalProperties": false
        }),
    }
}
