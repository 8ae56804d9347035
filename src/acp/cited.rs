//! Cited sources out: the bibliography of a thread, every paper its answers cited as BibTeX or
//! CSL-JSON, keyed by citation key (`agentero threads --export bibtex|csljson THREAD`, the thread
//! list's export key). Files and notes a thread cited have no bibliography entry; they are
//! counted apart.

use std::path::PathBuf;

use super::threads::ThreadIndex;
use crate::vault::scan::classify_file;
use crate::vault::{EntryKind, Vault, citekeys, output, statefs};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Bibtex,
    Csljson,
}

impl Format {
    pub fn extension(self) -> &'static str {
        match self {
            Format::Bibtex => "bib",
            Format::Csljson => "json",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Format::Bibtex => "BibTeX",
            Format::Csljson => "CSL-JSON",
        }
    }
}

/// A thread's bibliography.
#[derive(Debug, Clone, PartialEq)]
pub struct Export {
    /// The thread's full id.
    pub thread: String,
    pub text: String,
    /// The papers in it, with their keys, in the order first cited.
    pub sources: Vec<citekeys::Source>,
    /// Cited places that are not papers (notes, files): no entry.
    pub not_papers: Vec<String>,
    /// Managed citation keys that could not be written as they are (see [`citekeys::bibliography`]).
    pub warnings: Vec<String>,
}

/// The bibliography of thread `id` (its id or a prefix only it has) in `format`.
pub fn export(
    vault: &Vault,
    index: &ThreadIndex,
    id: &str,
    format: Format,
) -> Result<Export, String> {
    let (thread, cited) = index.cited_in(id)?;
    let (papers, not_papers): (Vec<String>, Vec<String>) = cited
        .into_iter()
        .map(|(p, _)| p)
        .partition(|p| classify_file(std::path::Path::new(p)) == Some(EntryKind::Paper));
    let citekeys::Bibliography { sources, warnings } = citekeys::bibliography(vault, &papers);
    let text = match format {
        Format::Bibtex => citekeys::bibtex(&sources),
        Format::Csljson => {
            // C1 and bidi controls as `\uXXXX`: the same values, no raw byte in the file.
            let mut s = output::to_json_pretty(&citekeys::csl_json(&sources))
                .unwrap_or_else(|_| "[]".into());
            s.push('\n');
            s
        }
    };
    Ok(Export {
        thread,
        text,
        sources,
        not_papers,
        warnings,
    })
}

/// Writes `e` to `{state}/exports/thread-<id>.<ext>` (atomically) and returns the path; the
/// temporary files of a killed earlier export there are swept first.
pub fn write_to_state(vault: &Vault, e: &Export, format: Format) -> Result<PathBuf, String> {
    vault.ensure_state_dir().map_err(|e| e.to_string())?;
    let dir = vault.state_dir().join("exports");
    statefs::ensure_dir(&dir).map_err(|e| e.to_string())?;
    output::file::sweep_state(&dir);
    let path = dir.join(format!("thread-{}.{}", e.thread, format.extension()));
    statefs::atomic_write(&path, e.text.as_bytes()).map_err(|e| e.to_string())?;
    Ok(path)
}
