//! The bundled demo vault generator.
//!
//! [`write_demo_vault`] writes a small but realistic vault: eight invented research papers on
//! reading and retrieval over scientific PDFs (real text layout with standard-14 fonts, two
//! columns, ligatures, hyphenation, outlines, page labels, with and without metadata), their
//! sidecars, notes that quote them, and a few plain text files. The output is deterministic,
//! byte for byte, so tests and content fingerprints built on it are stable.

mod compose;
mod files;
pub mod fixtures;
mod papers;
mod pdfwriter;
mod sidecars;

use std::fs;
use std::io;
use std::path::Path;

use papers::{PAPERS, Paper, RefSidecar};

/// Version of the demo content; bump whenever anything [`write_demo_vault`] writes changes.
pub const DEMO_VAULT_VERSION: u32 = 3;

/// Name of the marker file holding [`DEMO_VAULT_VERSION`]; hidden, so the vault scan skips it.
pub const VERSION_MARKER: &str = ".agentero-demo-version";

/// Writes the demo vault into `dir`, creating it as needed. Files the demo owns are
/// overwritten; nothing else in `dir` is touched or removed.
pub fn write_demo_vault(dir: &Path) -> io::Result<()> {
    let mut outputs = demo_files()?;
    // Sorted so that the order of writes (and any error) is the same on every run.
    outputs.sort_by(|a, b| a.0.cmp(&b.0));
    for (path, bytes) in outputs {
        let target = dir.join(&path);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent)?;
        }
        fs::write(target, bytes)?;
    }
    // The marker goes last: a run interrupted half-way leaves no marker, so the next start
    // writes the vault again instead of trusting an incomplete one.
    fs::write(dir.join(VERSION_MARKER), format!("{DEMO_VAULT_VERSION}\n"))
}

/// Every file of the demo vault as (vault-relative path with `/` separators, bytes).
fn demo_files() -> io::Result<Vec<(String, Vec<u8>)>> {
    let invalid = |e: String| io::Error::new(io::ErrorKind::InvalidData, e);
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for paper in &PAPERS {
        let spec = compose::pdf_spec(paper).map_err(invalid)?;
        let rendered = pdfwriter::render(&spec)?;
        out.push((paper.path.to_string(), rendered.bytes));
        let dir = sidecar_dir(paper);
        if paper.features.info_yaml {
            // The first info.yaml paper carries `author_list`, the other only `author`.
            let with_list =
                PAPERS.iter().find(|p| p.features.info_yaml).map(|p| p.slug) == Some(paper.slug);
            let yaml = compose::info_yaml(paper, with_list).map_err(|e| invalid(e.to_string()))?;
            out.push((format!("{dir}/info.yaml"), yaml.into_bytes()));
        }
        match paper.features.references_sidecar {
            Some(RefSidecar::Json) => {
                let json = compose::references_json(paper).map_err(|e| invalid(e.to_string()))?;
                out.push((format!("{dir}/references.json"), json.into_bytes()));
            }
            Some(RefSidecar::Bib) => {
                out.push((
                    format!("{dir}/references.bib"),
                    compose::references_bib(paper).into_bytes(),
                ));
            }
            None => {}
        }
    }
    for (path, content) in files::FILES {
        out.push((path.to_string(), content.as_bytes().to_vec()));
    }
    out.push(("references.bib".to_string(), library_bib().into_bytes()));
    Ok(out)
}

/// Folder that holds a paper's sidecars: the PDF's own folder.
fn sidecar_dir(paper: &Paper) -> &'static str {
    paper.path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// The vault-level bibliography: every demo paper, as a reference manager would export it.
fn library_bib() -> String {
    let header = "% Library export of the demo vault (fictional papers).\n\n";
    let entries: Vec<String> = PAPERS.iter().map(compose::paper_bib).collect();
    format!("{header}{}", entries.join("\n"))
}

#[cfg(test)]
mod tests;
