//! `agentero man` and `agentero completions SHELL`: the man page and the shell completion
//! scripts, both made from the command-line parser itself, so they list every command and flag
//! there is and nothing that is gone. The man page also carries the reference in `docs/`,
//! converted from Markdown to roff here.

use std::io::Write;

use clap::CommandFactory;
use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::Cli;

/// The reference in `docs/`, in the order the man page gives it (embedded: the installed binary
/// has no repository beside it).
const DOCS: &[(&str, &str)] = &[
    ("vault.md", include_str!("../../docs/vault.md")),
    ("app.md", include_str!("../../docs/app.md")),
    ("commands.md", include_str!("../../docs/commands.md")),
    ("mcp.md", include_str!("../../docs/mcp.md")),
    ("pdf.md", include_str!("../../docs/pdf.md")),
    (
        "configuration.md",
        include_str!("../../docs/configuration.md"),
    ),
    ("development.md", include_str!("../../docs/development.md")),
];

/// The man page (roff): the main page with the reference in `docs/` as its further sections,
/// then every subcommand's page.
pub fn print_man(out: &mut dyn Write) -> anyhow::Result<()> {
    let cmd = Cli::command();
    clap_mangen::Man::new(cmd.clone()).render(out)?;
    out.write_all(docs_roff().as_bytes())?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = format!("agentero-{}", sub.get_name());
        let sub = sub.clone().name(name);
        writeln!(out)?;
        clap_mangen::Man::new(sub).render(out)?;
    }
    Ok(())
}

/// Every file of `docs/` as man sections.
fn docs_roff() -> String {
    DOCS.iter().map(|(_, md)| markdown_to_roff(md)).collect()
}

/// Markdown to man(7) roff: a level-1 heading is a section (`.SH`, upper case), deeper ones
/// subsections (`.SS`); paragraphs `.PP`; code blocks indented, unfilled, in a constant-width
/// font; list items `.IP` with a bullet or their number (nested lists indented with `.RS`);
/// a table one `.PP` line per row, its cells separated by `|` (the header row bold); inline
/// code (never hyphenated) and strong text bold, emphasis italic, an external link's address
/// after its text. Text is escaped: a backslash is `\e`, a hyphen `\-` (so options copy as
/// ASCII), and a line that would start with `.` or `'` starts with `\&` instead, so text never
/// reads as a request.
fn markdown_to_roff(md: &str) -> String {
    let mut r = Roff::default();
    for event in Parser::new_ext(md, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH) {
        match event {
            Event::Start(Tag::Heading { .. }) => r.heading = Some(String::new()),
            Event::End(TagEnd::Heading(level)) => {
                let text = r.heading.take().unwrap_or_default();
                let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                if level == HeadingLevel::H1 {
                    r.request(&format!(".SH \"{}\"", escape_arg(&text.to_uppercase())));
                } else {
                    r.request(&format!(".SS \"{}\"", escape_arg(&text)));
                }
            }
            Event::Start(Tag::Paragraph) => r.paragraph(),
            Event::End(TagEnd::Paragraph) => r.end_line(),
            Event::Start(Tag::CodeBlock(_)) => {
                r.paragraph();
                r.request(".RS 4");
                r.request(".nf");
                r.request(".ft CW");
                r.code = true;
            }
            Event::End(TagEnd::CodeBlock) => {
                r.code = false;
                r.request(".ft R");
                r.request(".fi");
                r.request(".RE");
            }
            Event::Start(Tag::List(start)) => {
                if !r.lists.is_empty() {
                    r.request(".RS 2");
                }
                r.lists.push(start);
            }
            Event::End(TagEnd::List(_)) => {
                r.lists.pop();
                if !r.lists.is_empty() {
                    r.request(".RE");
                }
            }
            Event::Start(Tag::Item) => {
                let tag = match r.lists.last_mut() {
                    Some(Some(n)) => {
                        *n += 1;
                        format!("{}.", *n - 1)
                    }
                    _ => "\\(bu".to_string(),
                };
                r.request(&format!(".IP {tag} 4"));
                r.item_fresh = true;
            }
            Event::End(TagEnd::Item) => r.end_line(),
            Event::Start(Tag::BlockQuote(_)) => r.request(".RS 4"),
            Event::End(TagEnd::BlockQuote(_)) => r.request(".RE"),
            Event::Start(Tag::TableHead) => {
                r.request(".PP");
                r.row_cells = 0;
                r.font_push("B");
            }
            Event::End(TagEnd::TableHead) => {
                r.font_pop();
                r.end_line();
            }
            Event::Start(Tag::TableRow) => {
                r.request(".PP");
                r.row_cells = 0;
            }
            Event::End(TagEnd::TableRow) => r.end_line(),
            Event::Start(Tag::TableCell) => {
                if r.row_cells > 0 {
                    r.text(" | ");
                }
                r.row_cells += 1;
            }
            Event::Start(Tag::Strong) => r.font_push("B"),
            Event::Start(Tag::Emphasis) => r.font_push("I"),
            Event::End(TagEnd::Strong | TagEnd::Emphasis) => r.font_pop(),
            Event::Start(Tag::Link { dest_url, .. }) => r.links.push(dest_url.into_string()),
            Event::End(TagEnd::Link) => {
                if let Some(url) = r.links.pop().filter(|u| u.contains("://")) {
                    r.text(&format!(" <{url}>"));
                }
            }
            Event::Text(t) if r.code => {
                for line in t.lines() {
                    r.code_line(line);
                }
            }
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => r.text(&t),
            Event::Code(t) => r.code_span(&t),
            Event::SoftBreak => r.end_line(),
            Event::HardBreak => r.request(".br"),
            Event::Rule => r.request(".PP"),
            _ => {}
        }
    }
    r.out
}

/// The roff being written: what is open (lists, fonts, links, a heading, a code block).
#[derive(Default)]
struct Roff {
    out: String,
    /// The heading being collected (its plain text), while inside one.
    heading: Option<String>,
    code: bool,
    /// The open lists, innermost last: the next number of an ordered one.
    lists: Vec<Option<u64>>,
    /// The current item has had no paragraph yet (its first one continues the `.IP` line).
    item_fresh: bool,
    fonts: Vec<&'static str>,
    links: Vec<String>,
    row_cells: usize,
}

impl Roff {
    /// A request on a line of its own.
    fn request(&mut self, line: &str) {
        self.end_line();
        self.out.push_str(line);
        self.out.push('\n');
    }

    /// Ends the text line being written, if any.
    fn end_line(&mut self) {
        if !self.out.is_empty() && !self.out.ends_with('\n') {
            self.out.push('\n');
        }
    }

    /// A paragraph: a new `.PP`, or inside a list item the item's own indented text.
    fn paragraph(&mut self) {
        if self.lists.is_empty() {
            self.request(".PP");
        } else if self.item_fresh {
            self.item_fresh = false;
            self.end_line();
        } else {
            self.request(".IP \"\" 4");
        }
    }

    /// Running text, escaped; a heading's text is collected as it is.
    fn text(&mut self, t: &str) {
        if let Some(h) = self.heading.as_mut() {
            h.push_str(t);
            return;
        }
        for (i, part) in t.split('\n').enumerate() {
            if i > 0 {
                self.end_line();
            }
            let at_line_start = self.out.is_empty() || self.out.ends_with('\n');
            let part = if at_line_start {
                part.trim_start()
            } else {
                part
            };
            if part.is_empty() {
                continue;
            }
            if at_line_start && (part.starts_with('.') || part.starts_with('\'')) {
                self.out.push_str("\\&");
            }
            self.out.push_str(&escape(part));
        }
    }

    /// One line of a code block, its indentation kept (an empty one stays a line).
    fn code_line(&mut self, line: &str) {
        self.end_line();
        if line.is_empty() || line.starts_with('.') || line.starts_with('\'') {
            self.out.push_str("\\&");
        }
        self.out.push_str(&escape(line));
        self.out.push('\n');
    }

    /// Inline code: bold, and never hyphenated (`\%` before each word: a path or an option
    /// breaks only where it has a space).
    fn code_span(&mut self, t: &str) {
        if let Some(h) = self.heading.as_mut() {
            h.push_str(t);
            return;
        }
        self.font_push("B");
        let words: Vec<String> = t.split(' ').map(|w| format!("\\%{}", escape(w))).collect();
        self.out.push_str(&words.join(" "));
        self.font_pop();
    }

    fn font_push(&mut self, font: &'static str) {
        self.fonts.push(font);
        self.out.push_str("\\f");
        self.out.push_str(font);
    }

    /// Back to the font outside the one that ends.
    fn font_pop(&mut self) {
        self.fonts.pop();
        self.out.push_str("\\f");
        self.out.push_str(self.fonts.last().copied().unwrap_or("R"));
    }
}

/// Text for roff: backslashes as `\e`, hyphens as `\-`.
fn escape(t: &str) -> String {
    t.replace('\\', "\\e").replace('-', "\\-")
}

/// A request's quoted argument: escaped, its double quotes as `\(dq`.
fn escape_arg(t: &str) -> String {
    escape(t).replace('"', "\\(dq")
}

/// The completion script for `shell`.
pub fn print_completions(shell: clap_complete::Shell, out: &mut dyn Write) -> anyhow::Result<()> {
    clap_complete::generate(shell, &mut Cli::command(), "agentero", out);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_man_page_names_every_visible_command() {
        let mut out = Vec::new();
        print_man(&mut out).unwrap();
        let page = String::from_utf8(out).unwrap();
        assert!(page.starts_with(".ie \\n(.g .ds Aq"), "{}", &page[..80]);
        for sub in Cli::command().get_subcommands() {
            let name = format!("agentero\\-{}", sub.get_name());
            assert_eq!(
                page.contains(&name),
                !sub.is_hide_set(),
                "{name} in the man page"
            );
        }
    }

    /// The headings of a Markdown file (outside code blocks): level and text.
    fn headings(md: &str) -> Vec<(usize, String)> {
        let mut fenced = false;
        let mut out = Vec::new();
        for line in md.lines() {
            if line.starts_with("```") {
                fenced = !fenced;
            } else if !fenced && line.starts_with('#') {
                let level = line.chars().take_while(|&c| c == '#').count();
                out.push((level, line[level..].trim().replace('`', "")));
            }
        }
        out
    }

    #[test]
    fn every_docs_file_is_in_the_man_page_with_its_headings() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
        let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".md"))
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = DOCS.iter().map(|(n, _)| n.to_string()).collect();
        embedded.sort();
        assert_eq!(embedded, on_disk, "every file of docs/ is embedded");

        let mut out = Vec::new();
        print_man(&mut out).unwrap();
        let page = String::from_utf8(out).unwrap();
        let mut sections = 0;
        for (name, md) in DOCS {
            let heads = headings(md);
            assert_eq!(
                heads.first().map(|h| h.0),
                Some(1),
                "{name} starts with a title"
            );
            for (level, text) in heads {
                let want = if level == 1 {
                    sections += 1;
                    format!(".SH \"{}\"", escape_arg(&text.to_uppercase()))
                } else {
                    format!(".SS \"{}\"", escape_arg(&text))
                };
                assert!(page.contains(&format!("\n{want}\n")), "{name}: {want}");
            }
        }
        assert_eq!(sections, DOCS.len());
        // The reference belongs to agentero(1): before the first subcommand's page.
        let first_sub = page.find("\n.TH agentero-").expect("a subcommand page");
        assert!(page.find("\n.SH \"WHAT A VAULT IS\"").unwrap() < first_sub);
    }

    /// The requests the converter writes; every other line is text.
    const REQUESTS: &[&str] = &[
        ".SH \"", ".SS \"", ".PP", ".IP ", ".RS ", ".RE", ".nf", ".fi", ".ft ", ".br",
    ];

    #[test]
    fn text_never_reads_as_a_roff_request() {
        let md = "# Title\n\nA line\n.agentero/ starts the next one, 'and a quote\n'twice.\n\n\
                  ```\n.agentero/state\n'quoted\n\n  indented \\ back\\slash -n\n```\n\n\
                  - one\n- `.hidden` two\n\n| a | b |\n|---|---|\n| .x | 'y |\n";
        let roff = markdown_to_roff(md);
        for line in roff.lines() {
            if line.starts_with('.') || line.starts_with('\'') {
                assert!(
                    REQUESTS.iter().any(|r| line.starts_with(r)),
                    "{line:?} in\n{roff}"
                );
            }
        }
        for want in [
            "\\&.agentero/ starts the next one, 'and a quote",
            "\\&'twice.",
            "\\&.agentero/state",
            "\\&'quoted",
            "\n\\&\n",
            "  indented \\e back\\eslash \\-n",
            "\\fB\\%.hidden\\fR two",
            "\\&.x | 'y",
        ] {
            assert!(roff.contains(want), "{want:?} in\n{roff}");
        }
        for line in docs_roff().lines() {
            if line.starts_with('.') || line.starts_with('\'') {
                assert!(REQUESTS.iter().any(|r| line.starts_with(r)), "{line:?}");
            }
        }
    }

    /// groff (through preconv, `-k`, as man does) with every warning on reports none; man
    /// itself (which hides groff's warnings) renders the reference's headings. Each is run when
    /// installed (under `CI` both must be).
    #[test]
    fn the_man_page_renders_without_warnings() {
        let installed = |p: &str| {
            std::process::Command::new("which")
                .arg(p)
                .output()
                .is_ok_and(|o| o.status.success())
        };
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("agentero.1");
        let mut out = Vec::new();
        print_man(&mut out).unwrap();
        std::fs::write(&file, out).unwrap();
        let (groff, man) = (installed("groff"), installed("man"));
        // `.ci/run` installs both (groff-base, man-db): under CI a missing one fails.
        let under_ci = std::env::var_os("CI").is_some();
        assert!(
            !under_ci || (groff && man),
            "groff or man is missing (groff-base, man-db: .ci/run installs them)"
        );
        if !groff && !man {
            eprintln!("skipped: neither groff nor man is installed to render the man page");
            return;
        }
        if groff {
            let o = std::process::Command::new("groff")
                .args(["-k", "-man", "-Tutf8", "-ww", "-z"])
                .arg(&file)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert!(
                o.status.success() && stderr.trim().is_empty(),
                "groff: {stderr}"
            );
        } else {
            eprintln!("groff is not installed: its warnings are not checked");
        }
        if man {
            let o = std::process::Command::new("man")
                .args(["-P", "cat", "-l"])
                .arg(&file)
                .env("MANWIDTH", "80")
                .output()
                .unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let text = String::from_utf8_lossy(&o.stdout);
            for heading in ["WHAT A VAULT IS", "Read-only vaults", "Local models"] {
                assert!(text.contains(heading), "{heading} in the rendered page");
            }
        } else {
            eprintln!("man is not installed: the rendered page is not read back");
        }
    }

    #[test]
    fn completions_complete_the_subcommands() {
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
        ] {
            let mut out = Vec::new();
            print_completions(shell, &mut out).unwrap();
            let script = String::from_utf8(out).unwrap();
            for sub in ["index", "search", "ask", "serve", "completions"] {
                assert!(script.contains(sub), "{shell:?} lacks {sub}");
            }
        }
    }
}
