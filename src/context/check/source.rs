//! Where a manuscript comes from and the bibliographies it names. A manuscript is a file of the
//! vault (read through the vault's rules, as every vault read is) or a file the user named on
//! the command line (anywhere). Its keys resolve through the vault's citation keys and through
//! its bibliographies: the ones given (`--bib`), else the ones it declares itself — pandoc's
//! `bibliography:` in the YAML front matter, LaTeX's `\bibliography{…}` and biblatex's
//! `\addbibresource{…}` — read as BibTeX or CSL-JSON. A bibliography a vault manuscript
//! declares is read from the vault only: a path that leaves it is refused and said.

use std::path::{Path, PathBuf};

use super::draft::Format;
use super::library::Library;
use super::{MAX_DRAFT_BYTES, Report, check};
use crate::vault::Vault;
use crate::vault::index::SearchIndex;

/// Where a manuscript is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DraftAt {
    /// A file of the vault, by its vault path.
    Vault(String),
    /// A file the user named (absolute, or relative to where agentero was started).
    File(PathBuf),
}

impl DraftAt {
    /// The name a report and the checklist show.
    pub fn name(&self) -> String {
        match self {
            DraftAt::Vault(rel) => rel.clone(),
            DraftAt::File(p) => p.display().to_string(),
        }
    }

    /// The file on disk, when it may be read (a vault path through the vault's rules).
    pub fn file(&self, vault: &Vault) -> Result<PathBuf, String> {
        match self {
            DraftAt::Vault(rel) => crate::context::tools::Access::WholeVault
                .authorize(vault, rel)
                .map(|t| t.abs)
                .map_err(|e| format!("{rel}: {e}")),
            DraftAt::File(p) => Ok(p.clone()),
        }
    }
}

/// A manuscript read, with the library its keys resolve through.
pub struct Prepared {
    pub name: String,
    pub text: String,
    pub library: Library,
    /// What is worth saying about its bibliographies (one could not be read, entries that
    /// match no paper).
    pub notes: Vec<String>,
}

/// Reads the manuscript at `at` and builds its library: the vault's papers and the
/// bibliographies `bibs` (paths as the user gave them), else the ones the manuscript declares.
pub fn prepare(vault: &Vault, at: &DraftAt, bibs: &[PathBuf]) -> Result<Prepared, String> {
    let (file, text) = read(vault, at)?;
    let (library, notes) = library(vault, at, &file, &text, bibs);
    Ok(Prepared {
        name: at.name(),
        text,
        library,
        notes,
    })
}

/// The manuscript's file and text.
pub fn read(vault: &Vault, at: &DraftAt) -> Result<(PathBuf, String), String> {
    let file = at.file(vault)?;
    let text = read_text(&file, &at.name(), "manuscript")?;
    Ok((file, text))
}

/// The library the keys of the manuscript `text` (at `at`, read from `file`) resolve through,
/// and the notes about its bibliographies.
pub fn library(
    vault: &Vault,
    at: &DraftAt,
    file: &Path,
    text: &str,
    bibs: &[PathBuf],
) -> (Library, Vec<String>) {
    let mut library = Library::load(vault);
    let mut notes = Vec::new();
    let sources: Vec<(String, Result<PathBuf, String>)> = if bibs.is_empty() {
        declared(text, Format::of(&at.name(), text))
            .into_iter()
            .map(|raw| {
                let found = locate(vault, at, file, &raw);
                (raw, found)
            })
            .collect()
    } else {
        bibs.iter()
            .map(|b| (b.display().to_string(), Ok(b.clone())))
            .collect()
    };
    for (shown, found) in sources {
        // (A read error names the file itself; the others get its name in front.)
        let read = found.map_err(|e| format!("{shown}: {e}")).and_then(|path| {
            let text = read_text(&path, &shown, "bibliography")?;
            add(&mut library, &path, &text).map_err(|e| format!("{shown}: {e}"))
        });
        match read {
            Ok(0) => {}
            Ok(n) => notes.push(format!(
                "{shown}: {n} {} no paper of the vault",
                if n == 1 {
                    "entry matches"
                } else {
                    "entries match"
                }
            )),
            Err(e) => notes.push(e),
        }
    }
    (library, notes)
}

/// A manuscript's report, what its bibliographies gave to say, and the file as it was read.
#[derive(Debug, Clone)]
pub struct DraftReport {
    pub report: Report,
    pub notes: Vec<String>,
    pub stamp: Option<Stamp>,
}

/// [`check`] of the manuscript at `at` with its bibliographies ([`prepare`]).
pub fn check_draft(
    vault: &Vault,
    index: Option<&SearchIndex>,
    at: &DraftAt,
    bibs: &[PathBuf],
    progress: &mut dyn FnMut(usize, usize),
) -> Result<DraftReport, String> {
    // Stamped before it is read: a save while it is checked is a change still to check.
    let stamp = at.file(vault).ok().and_then(|f| Stamp::of(&f));
    let p = prepare(vault, at, bibs)?;
    let report = check(vault, index, &p.library, &p.name, &p.text, progress);
    Ok(DraftReport {
        report,
        notes: p.notes,
        stamp,
    })
}

/// A file as it is on disk (its modification time and length): a save changes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    modified: Option<std::time::SystemTime>,
    len: u64,
}

impl Stamp {
    pub fn of(path: &Path) -> Option<Stamp> {
        let m = std::fs::metadata(path).ok()?;
        Some(Stamp {
            modified: m.modified().ok(),
            len: m.len(),
        })
    }
}

/// A bibliography into the library, by its extension: `.json` is CSL-JSON, `.yaml` / `.yml`
/// (CSL YAML) is not read, anything else is BibTeX. How many entries match no paper.
fn add(library: &mut Library, path: &Path, text: &str) -> Result<usize, String> {
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "json" => library.add_csl_json(text),
        "yaml" | "yml" => Err(
            "a CSL YAML bibliography is not read; give its BibTeX or CSL-JSON (pandoc writes both)"
                .into(),
        ),
        _ => Ok(library.add_bib(text)),
    }
}

/// The text of a file, refused with the reason when it is not a file, is over
/// [`MAX_DRAFT_BYTES`] or is not UTF-8.
pub fn read_text(path: &Path, shown: &str, what: &str) -> Result<String, String> {
    let meta =
        std::fs::metadata(path).map_err(|e| format!("cannot read the {what} {shown}: {e}"))?;
    if !meta.is_file() {
        return Err(format!("the {what} {shown} is not a file"));
    }
    if meta.len() > MAX_DRAFT_BYTES {
        return Err(format!(
            "the {what} {shown} is {} MB; at most {} MB is read",
            meta.len() / (1024 * 1024),
            MAX_DRAFT_BYTES / (1024 * 1024)
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read the {what} {shown}: {e}"))?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "the {what} {shown} is not UTF-8 text (byte {} is not); save it as UTF-8",
            e.utf8_error().valid_up_to()
        )
    })
}

/// The bibliographies a manuscript names, as written: pandoc's `bibliography:` (a path or a
/// list) in a YAML front matter that opens the file; LaTeX's `\bibliography{a,b}` (`.bib`
/// added when there is no extension) and `\addbibresource[…]{a.bib}` outside comments.
pub fn declared(text: &str, format: Format) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    match format {
        Format::Markdown | Format::Plain => {
            if let Some(yaml) = front_matter(text)
                && let Ok(v) = serde_norway::from_str::<serde_norway::Value>(yaml)
            {
                match v.get("bibliography") {
                    Some(serde_norway::Value::String(s)) => out.push(s.clone()),
                    Some(serde_norway::Value::Sequence(list)) => {
                        out.extend(list.iter().filter_map(|x| x.as_str()).map(str::to_string))
                    }
                    _ => {}
                }
            }
        }
        Format::Latex => {
            for line in text.lines() {
                let line = strip_tex_comment(line);
                for (cmd, add_ext) in [("\\bibliography{", true), ("\\addbibresource", false)] {
                    let mut rest = line;
                    while let Some(at) = rest.find(cmd) {
                        rest = &rest[at + cmd.len()..];
                        let arg = if add_ext {
                            rest
                        } else {
                            // `\addbibresource[label=x]{refs.bib}`: the braces' argument.
                            let skip = if rest.starts_with('[') {
                                rest.find(']').map_or(rest.len(), |e| e + 1)
                            } else {
                                0
                            };
                            match rest[skip..].strip_prefix('{') {
                                Some(a) => a,
                                None => continue,
                            }
                        };
                        let Some(end) = arg.find('}') else { break };
                        for name in arg[..end].split(',').map(str::trim) {
                            if name.is_empty() {
                                continue;
                            }
                            let has_ext = Path::new(name).extension().is_some();
                            out.push(if add_ext && !has_ext {
                                format!("{name}.bib")
                            } else {
                                name.to_string()
                            });
                        }
                    }
                }
            }
        }
    }
    out.retain(|s| !s.trim().is_empty());
    out.dedup();
    out
}

/// The YAML between a `---` line that opens the file and the next `---` or `...` line.
fn front_matter(text: &str) -> Option<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let body = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut at = 0;
    for line in body.split_inclusive('\n') {
        let bare = line.trim_end();
        if bare == "---" || bare == "..." {
            return Some(&body[..at]);
        }
        at += line.len();
    }
    None
}

/// A LaTeX line up to its first `%` that is not escaped.
fn strip_tex_comment(line: &str) -> &str {
    let bytes = line.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'%' && (i == 0 || bytes[i - 1] != b'\\') {
            return &line[..i];
        }
    }
    line
}

/// Where a bibliography the manuscript names is: beside the manuscript. For a vault
/// manuscript, within the vault and through its rules (an absolute path, or one that climbs
/// out, is refused); for a file the user named, anywhere (`~/` is the home folder).
fn locate(vault: &Vault, at: &DraftAt, file: &Path, raw: &str) -> Result<PathBuf, String> {
    match at {
        DraftAt::Vault(rel) => {
            if raw.starts_with('/') || raw.starts_with('~') || raw.contains('\\') {
                return Err("a vault manuscript's bibliography is read from the vault only".into());
            }
            let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
            let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
            for part in raw.split('/') {
                match part {
                    "" | "." => {}
                    ".." => {
                        if parts.pop().is_none() {
                            return Err("the path leaves the vault".into());
                        }
                    }
                    p => parts.push(p),
                }
            }
            let joined = parts.join("/");
            crate::context::tools::Access::WholeVault
                .authorize(vault, &joined)
                .map(|t| t.abs)
                .map_err(|e| e.to_string())
        }
        DraftAt::File(_) => {
            let home = std::env::var_os("HOME").map(PathBuf::from);
            let path = match (raw.strip_prefix("~/"), home) {
                (Some(rest), Some(h)) => h.join(rest),
                _ => PathBuf::from(raw),
            };
            Ok(if path.is_absolute() {
                path
            } else {
                file.parent().unwrap_or(Path::new(".")).join(path)
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pandoc_front_matter_names_one_or_several() {
        let one = "---\ntitle: Draft\nbibliography: refs.bib\n---\n\nText [@a].\n";
        assert_eq!(declared(one, Format::Markdown), vec!["refs.bib"]);
        let list = "---\nbibliography:\n  - \"a.bib\"\n  - lib/b.json\n...\nText.\n";
        assert_eq!(
            declared(list, Format::Markdown),
            vec!["a.bib", "lib/b.json"]
        );
        let flow = "---\nbibliography: [a.bib, b.bib]\n---\n";
        assert_eq!(declared(flow, Format::Markdown), vec!["a.bib", "b.bib"]);
    }

    #[test]
    fn front_matter_only_at_the_top_and_closed() {
        // A `---` rule later in the text is not front matter, nor an unclosed block.
        let later = "Text.\n\n---\nbibliography: refs.bib\n---\n";
        assert!(declared(later, Format::Markdown).is_empty());
        let open = "---\nbibliography: refs.bib\n";
        assert!(declared(open, Format::Markdown).is_empty());
        let broken = "---\nbibliography: [a.bib\n---\n";
        assert!(declared(broken, Format::Markdown).is_empty());
        let not_text = "---\nbibliography: {a: 1}\n---\n";
        assert!(declared(not_text, Format::Markdown).is_empty());
    }

    #[test]
    fn latex_bibliographies_outside_comments() {
        let tex = "\\documentclass{article}\n\\addbibresource[label=main]{refs.bib}\n\
                   % \\bibliography{old}\n\\bibliography{a, sub/b,c.bib} 100\\% done\n";
        assert_eq!(
            declared(tex, Format::Latex),
            vec!["refs.bib", "a.bib", "sub/b.bib", "c.bib"]
        );
        assert!(declared("\\bibliography{", Format::Latex).is_empty());
        assert!(declared("\\addbibresource x", Format::Latex).is_empty());
    }

    #[test]
    fn a_vault_manuscript_reads_bibliographies_in_the_vault_only() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path().join("vault");
        std::fs::create_dir_all(root.join("notes")).unwrap();
        std::fs::write(root.join("notes/refs.bib"), "@misc{a, title={A}}").unwrap();
        std::fs::write(d.path().join("outside.bib"), "@misc{b, title={B}}").unwrap();
        let vault = Vault::open(&root).unwrap();
        let at = DraftAt::Vault("notes/draft.md".into());
        let file = root.join("notes/draft.md");
        assert!(locate(&vault, &at, &file, "refs.bib").is_ok());
        assert!(locate(&vault, &at, &file, "./refs.bib").is_ok());
        assert!(locate(&vault, &at, &file, "../notes/refs.bib").is_ok());
        for hostile in [
            "../../outside.bib",
            "/etc/passwd",
            "~/.ssh/id_rsa",
            "..\\outside.bib",
            "../.agentero/x.bib",
        ] {
            assert!(
                locate(&vault, &at, &file, hostile).is_err(),
                "{hostile} was let through"
            );
        }
        // A symlink in the vault that points out of it is refused too.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(d.path().join("outside.bib"), root.join("notes/link.bib"))
                .unwrap();
            assert!(locate(&vault, &at, &file, "link.bib").is_err());
        }
    }

    #[test]
    fn a_named_manuscript_reads_beside_itself() {
        let at = DraftAt::File("/tmp/thesis/ch2.tex".into());
        let d = tempfile::tempdir().unwrap();
        let vault = Vault::open(d.path()).unwrap();
        let file = Path::new("/tmp/thesis/ch2.tex");
        assert_eq!(
            locate(&vault, &at, file, "refs.bib").unwrap(),
            Path::new("/tmp/thesis/refs.bib")
        );
        assert_eq!(
            locate(&vault, &at, file, "/srv/refs.bib").unwrap(),
            Path::new("/srv/refs.bib")
        );
    }
}
