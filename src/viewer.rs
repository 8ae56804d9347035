//! Opening a paper at a page in the user's own PDF viewer: `$AGENTERO_PDF_VIEWER` when set
//! (a program, with arguments, or a template with `{file}` and `{page}`), else the desktop's
//! default PDF application when it is one we know how to give a page to, else `xdg-open`
//! (`open` on macOS), which opens the file at its first page.

use std::path::Path;
use std::process::{Command, Stdio};

/// What to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewerCommand {
    pub program: String,
    pub args: Vec<String>,
    /// Whether the page reaches the viewer (the fallback openers cannot pass one).
    pub with_page: bool,
}

/// The command for a viewer named by `spec` (a program and its arguments, or a template).
/// Known programs get the page in their own syntax; a template gets `{file}` and `{page}`
/// replaced; any other program gets the file alone.
pub fn command_for(spec: &str, file: &Path, page: u32) -> Option<ViewerCommand> {
    let words = split_words(spec);
    let (program, extra) = words.split_first()?;
    let file_s = file.display().to_string();
    let page_s = page.max(1).to_string();
    if words
        .iter()
        .any(|w| w.contains("{file}") || w.contains("{page}"))
    {
        let fill = |w: &String| w.replace("{file}", &file_s).replace("{page}", &page_s);
        let mut args: Vec<String> = extra.iter().map(fill).collect();
        let program = fill(program);
        if !spec.contains("{file}") {
            args.push(file_s);
        }
        return Some(ViewerCommand {
            program,
            args,
            with_page: spec.contains("{page}"),
        });
    }
    let name = Path::new(program)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(program);
    let mut args: Vec<String> = extra.to_vec();
    let with_page = match name {
        "zathura" => {
            args.extend(["--page".into(), page_s, file_s]);
            true
        }
        "evince" | "atril" | "xreader" => {
            args.extend([format!("--page-index={page_s}"), file_s]);
            true
        }
        "okular" => {
            args.extend(["--page".into(), page_s, file_s]);
            true
        }
        "sioyek" => {
            args.extend(["--page".into(), page_s, file_s]);
            true
        }
        // The page follows the file.
        "mupdf" | "mupdf-gl" | "mupdf-x11" | "xpdf" => {
            args.extend([file_s, page_s]);
            true
        }
        "qpdfview" => {
            args.push(format!("{file_s}#{page_s}"));
            true
        }
        _ => {
            args.push(file_s);
            false
        }
    };
    Some(ViewerCommand {
        program: program.clone(),
        args,
        with_page,
    })
}

/// The viewer to use: `$AGENTERO_PDF_VIEWER`, else the desktop's default PDF application when
/// we know its page argument and it is installed, else the system opener.
pub fn choose(env: Option<&str>, file: &Path, page: u32) -> ViewerCommand {
    if let Some(cmd) = env
        .filter(|s| !s.trim().is_empty())
        .and_then(|s| command_for(s, file, page))
    {
        return cmd;
    }
    if cfg!(target_os = "macos") {
        return ViewerCommand {
            program: "open".into(),
            args: vec![file.display().to_string()],
            with_page: false,
        };
    }
    if let Some(cmd) = desktop_default()
        .and_then(|p| command_for(&p, file, page))
        .filter(|c| c.with_page)
    {
        return cmd;
    }
    ViewerCommand {
        program: "xdg-open".into(),
        args: vec![file.display().to_string()],
        with_page: false,
    }
}

/// The program behind the desktop's default PDF application (`xdg-mime`), when it is on PATH.
fn desktop_default() -> Option<String> {
    let out = Command::new("xdg-mime")
        .args(["query", "default", "application/pdf"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let desktop = String::from_utf8(out.stdout).ok()?;
    let program = program_of_desktop_file(desktop.trim())?;
    on_path(program).then(|| program.to_string())
}

/// `org.pwmt.zathura.desktop` → `zathura`, `okularApplication_pdf.desktop` → `okular`.
fn program_of_desktop_file(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    [
        "zathura", "evince", "atril", "xreader", "okular", "sioyek", "qpdfview", "mupdf", "xpdf",
    ]
    .into_iter()
    .find(|p| lower.contains(p))
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
}

/// Starts the viewer detached from the terminal (its own process group, no stdio), and reaps
/// it in the background when it exits.
pub fn spawn(cmd: &ViewerCommand) -> Result<(), String> {
    use std::os::unix::process::CommandExt;
    let mut c = Command::new(&cmd.program);
    c.args(&cmd.args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    match c.spawn() {
        Ok(mut child) => {
            std::thread::spawn(move || {
                let _ = child.wait();
            });
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(format!(
            "cannot start {}: not found (set AGENTERO_PDF_VIEWER to your PDF viewer)",
            cmd.program
        )),
        Err(e) => Err(format!("cannot start {}: {e}", cmd.program)),
    }
}

/// Words of a command line: split at whitespace, with single or double quotes grouping.
fn split_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    for c in s.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => cur.push(c),
            (None, '"' | '\'') => {
                quote = Some(c);
                started = true;
            }
            (None, c) if c.is_whitespace() => {
                if started || !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                started = false;
            }
            (None, c) => cur.push(c),
        }
    }
    if started || !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(spec: &str) -> ViewerCommand {
        command_for(spec, Path::new("/v/papers/a b/paper.pdf"), 7).unwrap()
    }

    #[test]
    fn known_viewers_get_the_page_their_way() {
        let f = "/v/papers/a b/paper.pdf";
        assert_eq!(cmd("zathura").args, ["--page", "7", f]);
        assert_eq!(cmd("/usr/bin/evince").args, ["--page-index=7", f]);
        assert_eq!(cmd("okular").args, ["--page", "7", f]);
        assert_eq!(cmd("mupdf").args, [f, "7"]);
        assert_eq!(
            cmd("qpdfview --unique").args,
            ["--unique", &format!("{f}#7")]
        );
        assert!(
            cmd("zathura --fork")
                .args
                .starts_with(&["--fork".to_string()])
        );
        let other = cmd("firefox");
        assert_eq!(
            (other.args.as_slice(), other.with_page),
            (&[f.to_string()][..], false)
        );
    }

    #[test]
    fn a_template_gets_file_and_page() {
        let c = cmd("'my viewer' -p {page} --file={file}");
        assert_eq!(c.program, "my viewer");
        assert_eq!(c.args, ["-p", "7", "--file=/v/papers/a b/paper.pdf"]);
        assert!(c.with_page);
        // Without {file} the file goes last.
        assert_eq!(cmd("view +{page}").args, ["+7", "/v/papers/a b/paper.pdf"]);
        assert!(command_for("  ", Path::new("x.pdf"), 1).is_none());
    }

    #[test]
    fn the_environment_wins_and_the_fallback_opens_the_file() {
        let c = choose(Some("zathura"), Path::new("x.pdf"), 3);
        assert_eq!(c.program, "zathura");
        let c = choose(Some(""), Path::new("x.pdf"), 3);
        assert!(
            c.program == "xdg-open" || c.program == "open" || c.with_page,
            "{c:?}"
        );
    }

    #[test]
    fn desktop_files_name_their_program() {
        assert_eq!(
            program_of_desktop_file("org.pwmt.zathura.desktop"),
            Some("zathura")
        );
        assert_eq!(
            program_of_desktop_file("okularApplication_pdf.desktop"),
            Some("okular")
        );
        assert_eq!(program_of_desktop_file("firefox.desktop"), None);
    }

    #[test]
    fn a_missing_viewer_is_a_clear_error() {
        let c = ViewerCommand {
            program: "agentero-no-such-viewer".into(),
            args: vec![],
            with_page: false,
        };
        let e = spawn(&c).unwrap_err();
        assert!(
            e.contains("not found") && e.contains("AGENTERO_PDF_VIEWER"),
            "{e}"
        );
    }
}
