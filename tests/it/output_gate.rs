//! The output gate end to end: a Zotero library with hostile titles, citation keys, comments
//! and page labels (built from Zotero's own schema, as the Zotero suite builds its libraries)
//! and a folder vault with a hostile sidecar title, through every export and the CLI (`threads
//! --export` BibTeX and CSL-JSON, `highlights --export md`, `search`, `threads`, `highlights`)
//! and the TUI's paper pane. Real readers check what came out: the biblatex crate and a scanner
//! that counts braces as BibTeX does, serde_json, pulldown-cmark. Then the bounds: a `-o`
//! export killed with SIGKILL leaves the old file or the new one, a planted oversized highlight
//! store is refused before it is read, a title of a megabyte is cut in `search`.

use crate::common;
use crate::zotero::library::{self, put, schema_dir};

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agentero::acp::transcript::{Line, Thread};
use agentero::vault::highlights::MAX_STORE_BYTES;
use agentero::vault::indexer::{IndexOptions, index_vault};
use agentero::vault::{EntryKind, Vault, output, uri};
use serde_json::Value;

/// ESC, BEL, OSC 52 (writes the clipboard), a C1 CSI, an RLO and a screen clear.
const TITLE: &str = "Dropout\u{1b}]52;c;cHduZWQ=\u{7} as a \u{9b}31m Bayesian\u{202e}fdp.exe \u{1b}[2J approximation";
/// The same title in a YAML sidecar's escapes.
const TITLE_YAML: &str =
    r#""Dropout\e]52;c;cHduZWQ=\a as a \x9b31m Bayesian\u202efdp.exe \e[2J approximation""#;
const BAD_KEY: &str = "gal2009,\n  title = {PWNED}}\n@misc{pwn";
/// Zotero fields of the first paper, each trying to close its entry (a `}`, a line break, a
/// trailing backslash) and start one of its own.
const BIB_FIELDS: [(&str, &str); 6] = [
    (
        "publicationTitle",
        "Journal}\n@misc{jpwn, title={INJECTED}}\u{1b}[2J",
    ),
    ("volume", "1}}\n@misc{vpwn,"),
    ("issue", "2\\"),
    ("pages", "1–2}, note={INJECTED"),
    ("DOI", "10.1234/x}}\n@misc{dpwn,"),
    ("url", "https://example.org/}\n@misc{upwn, \\"),
];
const COMMENT: &str = "# heading\n<script>alert(1)</script>\n[x](javascript:alert(1))";
const LABEL: &str = "3\n# Injected";
const POSITION: &str = r#"{"pageIndex":0,"rects":[[72.5,700.25,300,712.5]]}"#;

/// The characters a terminal or a viewer obeys: C0 (but a newline and a tab), DEL, C1, bidi
/// controls.
fn raw_controls(s: &str) -> Vec<char> {
    s.chars()
        .filter(|&c| {
            (c.is_control() && c != '\n' && c != '\t')
                || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
        })
        .collect()
}

fn assert_clean(what: &str, bytes: &[u8]) {
    let s = String::from_utf8(bytes.to_vec()).unwrap_or_else(|_| panic!("{what}: not UTF-8"));
    let bad = raw_controls(&s);
    assert!(bad.is_empty(), "{what}: raw {bad:?} in\n{s}");
}

/// The entries of a `.bib` as BibTeX itself finds them: an entry starts at an `@`, its body
/// runs from the first `{` or `(` until the braces balance — every brace counts, escaped or
/// not. Returns each entry's text, or an error where BibTeX would stop reading.
fn bibtex_entries(bib: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    let mut rest = bib;
    while let Some(at) = rest.find('@') {
        let body = &rest[at..];
        let open = body.find(['{', '(']).ok_or("an entry without a body")?;
        if body[..open].contains(char::is_whitespace) && !body[1..open].trim().is_empty() {
            return Err(format!("an entry type with a space: {:?}", &body[..open]));
        }
        let mut depth = 0i64;
        let mut end = None;
        for (i, c) in body[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                end = Some(open + i + 1);
                break;
            }
        }
        let end = end.ok_or("an entry whose braces never balance")?;
        out.push(body[..end].to_string());
        rest = &body[end..];
    }
    Ok(out)
}

struct Lib {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    state_base: PathBuf,
    home: PathBuf,
    _zotero: library::Zotero,
}

/// A library of three papers: the first with the hostile title, a citation key that breaks
/// out of its entry and a highlight with a hostile comment and page label; the other two
/// sharing one managed key.
fn hostile_library(schema: &Path) -> Lib {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("Zotero");
    std::fs::create_dir_all(dir.join("storage")).unwrap();
    let pdfs = common::demo_pdfs();
    let z = library::create(&dir, schema);
    let a = z.item("journalArticle", "GATEKEYA");
    z.set(a, "title", TITLE);
    z.set(a, "date", "2009-00-00 2009");
    z.set(a, "citationKey", BAD_KEY);
    // Every bibliographic field tries to end the entry and start another.
    for (field, value) in BIB_FIELDS {
        z.set(a, field, value);
    }
    z.creator(a, "Yarin", "Gal", 0);
    let att = z.attachment(Some(a), "GATEATTA", 1, "storage:gal.pdf");
    put(&dir.join("storage/GATEATTA/gal.pdf"), &pdfs[0]);
    z.annotation(
        att,
        "GATEANNA",
        1,
        Some("the gutter \u{1b}[2J text"),
        Some(COMMENT),
        LABEL,
        POSITION,
    );
    for (n, (key, att_key)) in [("SAMEKEYB", "SAMEATTB"), ("SAMEKEYC", "SAMEATTC")]
        .into_iter()
        .enumerate()
    {
        let b = z.item("journalArticle", key);
        z.set(b, "title", &format!("Same key, paper {}", n + 1));
        z.set(b, "date", "2020-00-00 2020");
        z.set(b, "citationKey", "same2020key");
        z.creator(b, &format!("Ada{n}"), "Same", 0);
        z.attachment(Some(b), att_key, 1, &format!("storage:same{n}.pdf"));
        put(
            &dir.join(format!("storage/{att_key}/same{n}.pdf")),
            &pdfs[n + 1],
        );
    }
    std::fs::create_dir_all(tmp.path().join("home")).unwrap();
    Lib {
        home: tmp.path().join("home"),
        state_base: tmp.path().join("state/agentero"),
        dir,
        _tmp: tmp,
        _zotero: z,
    }
}

fn cli(lib: &Lib, args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentero"));
    cmd.args(args)
        .env("HOME", &lib.home)
        .env("XDG_STATE_HOME", lib.state_base.parent().unwrap())
        .env("XDG_DATA_HOME", lib.home.join("data"))
        .env("XDG_CONFIG_HOME", lib.home.join("config"))
        .env_remove("AGENTERO_ZOTERO_PROFILE");
    common::output_within(cmd, Duration::from_secs(120))
}

fn ok(out: &std::process::Output) -> &[u8] {
    assert!(
        out.status.success(),
        "{}\n{}",
        common::stderr(out),
        common::stdout(out)
    );
    &out.stdout
}

/// A thread titled with the hostile title whose answer cited every paper of `vault`.
fn thread_citing_all(vault: &Vault) -> (String, Vec<String>) {
    let mut papers: Vec<String> = vault
        .scan()
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == EntryKind::Paper)
        .map(|e| e.path)
        .collect();
    papers.sort();
    let mut t = Thread::create(vault);
    t.state.title = TITLE.to_string();
    let ts = "2026-12-06T20:00:00Z".to_string();
    let turn = "t1".to_string();
    t.append(Line::User {
        ts: ts.clone(),
        turn: turn.clone(),
        text: format!("What does {TITLE} say?"),
        mentions: Vec::new(),
    })
    .unwrap();
    t.append(Line::Agent {
        ts: ts.clone(),
        turn: turn.clone(),
        text: "It says so.".into(),
    })
    .unwrap();
    let cited: Vec<String> = papers.iter().map(|p| uri::page_uri(p, 1)).collect();
    t.append(Line::Sources {
        ts,
        turn,
        uris: cited.clone(),
        cited,
        consulted: Vec::new(),
    })
    .unwrap();
    t.save_state().unwrap();
    (t.id.clone(), papers)
}

#[test]
fn hostile_library_text_leaves_through_every_export_escaped() {
    let Some(schema) = schema_dir() else { return };
    let lib = hostile_library(&schema);
    let dir = lib.dir.to_str().unwrap();
    ok(&cli(&lib, &["index", dir]));
    let vault = Vault::open_with_state_base(&lib.dir, &lib.state_base).unwrap();
    let (thread, papers) = thread_citing_all(&vault);
    assert_eq!(papers.len(), 3, "{papers:?}");
    let gal = "storage/GATEATTA/gal.pdf";
    let title = vault.record_for(gal).unwrap().meta.title;
    assert!(
        title.contains('\u{202e}'),
        "the library's title as it is: {title:?}"
    );

    // BibTeX: one entry per paper for the biblatex crate and for BibTeX's own brace count;
    // the hostile key is replaced by the generated one (with a warning), the shared key made
    // unique, and the title is ours.
    let out = cli(
        &lib,
        &["threads", "--vault", dir, "--export", "bibtex", &thread],
    );
    let bib = String::from_utf8(ok(&out).to_vec()).unwrap();
    assert_clean("BibTeX on stdout", bib.as_bytes());
    assert!(!bib.contains("PWNED"), "{bib}");
    let parsed = biblatex::Bibliography::parse(&bib).unwrap_or_else(|e| panic!("{e:?}\n{bib}"));
    let keys: Vec<String> = parsed.iter().map(|e| e.key.clone()).collect();
    assert_eq!(
        keys,
        ["gal2009dropout", "same2020key", "same2020keya"],
        "{bib}"
    );
    let first = parsed.get("gal2009dropout").unwrap();
    use biblatex::ChunksExt;
    assert_eq!(
        first.title().unwrap().format_verbatim(),
        output::bibtex::value(&title),
        "{bib}"
    );
    assert_eq!(bibtex_entries(&bib).unwrap().len(), 3, "{bib}");
    // The hostile journal, volume, pages, DOI and URL stay inside their own entry.
    assert_eq!(
        bib.lines().filter(|l| l.starts_with('@')).count(),
        3,
        "{bib}"
    );
    let journal = first.get("journal").unwrap().format_verbatim();
    assert!(
        journal.starts_with("Journal") && journal.contains("INJECTED"),
        "{bib}"
    );
    for field in ["volume", "number", "pages", "doi", "url"] {
        assert!(first.get(field).is_some(), "{field} in\n{bib}");
    }
    let err = common::stderr(&out);
    assert_clean("stderr", err.as_bytes());
    assert!(
        err.contains("is not a BibTeX key") && err.contains("is another paper's too"),
        "{err}"
    );

    // CSL-JSON to a file: the same keys, the title's controls as \u escapes (the value is the
    // library's), no raw byte in the file.
    let file = lib.home.join("out.json");
    let out = cli(
        &lib,
        &[
            "threads",
            "--vault",
            dir,
            "--export",
            "csljson",
            &thread,
            "-o",
            file.to_str().unwrap(),
        ],
    );
    ok(&out);
    let raw = std::fs::read(&file).unwrap();
    assert_clean("CSL-JSON file", &raw);
    assert!(String::from_utf8_lossy(&raw).contains("\\u202e"));
    let csl: Value = serde_json::from_slice(&raw).unwrap();
    let ids: Vec<&str> = csl
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, keys);
    assert_eq!(
        csl[0]["title"],
        title.split_whitespace().collect::<Vec<_>>().join(" ")
    );

    // Markdown: the comment, the label and the title read as text for a real Markdown parser.
    let out = cli(&lib, &["highlights", "--vault", dir, gal, "--export", "md"]);
    let md = String::from_utf8(ok(&out).to_vec()).unwrap();
    assert_clean("Markdown on stdout", md.as_bytes());
    assert_markdown_is_text(&md);
    assert!(md.contains("\n## Page 1 (labelled 3 # Injected)\n"), "{md}");
    assert!(md.contains("\n\\# heading\n\\<script\\>"), "{md}");

    // The terminal: every one-line output escapes the title.
    for args in [
        vec!["search", "--vault", dir, "Dropout"],
        vec!["search", "--vault", dir, "--json", "Dropout"],
        vec!["threads", "--vault", dir],
        vec!["threads", "--vault", dir, "--json"],
        vec!["highlights", "--vault", dir, gal],
    ] {
        let out = cli(&lib, &args);
        assert_clean(&args.join(" "), ok(&out));
        assert_clean(&args.join(" "), out.stderr.as_slice());
    }
    let out = cli(&lib, &["search", "--vault", dir, "Dropout"]);
    assert!(
        common::stdout(&out)
            .contains("Dropout\\033]52;c;cHduZWQ=\\a as a \\u{9b}31m Bayesian\\u{202e}fdp.exe"),
        "{}",
        common::stdout(&out)
    );
}

/// The events of `md` hold no HTML, no link and no heading but the export's own.
fn assert_markdown_is_text(md: &str) {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    let mut headings = Vec::new();
    let mut in_heading = false;
    for ev in Parser::new_ext(md, Options::all()) {
        match ev {
            Event::Html(h) | Event::InlineHtml(h) => panic!("HTML {h:?} in\n{md}"),
            Event::Start(Tag::Link { dest_url, .. }) => {
                assert!(
                    dest_url.starts_with("storage/"),
                    "a link to {dest_url:?} in\n{md}"
                )
            }
            Event::Start(Tag::Image { dest_url, .. }) => panic!("an image {dest_url:?}"),
            Event::Start(Tag::Heading { .. }) => {
                in_heading = true;
                headings.push(String::new());
            }
            Event::End(pulldown_cmark::TagEnd::Heading(_)) => in_heading = false,
            Event::Text(t) if in_heading => headings.last_mut().unwrap().push_str(&t),
            _ => {}
        }
    }
    assert_eq!(headings.len(), 2, "{headings:?}\n{md}");
    assert!(
        headings[0].starts_with("Highlights: Dropout"),
        "{headings:?}"
    );
    assert_eq!(headings[1], "Page 1 (labelled 3 # Injected)");
}

fn run(root: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = common::command(root);
    cmd.args(args);
    common::output_within(cmd, Duration::from_secs(120))
}

const LAYOUTFLOW: &str = "papers/layoutflow/paper.pdf";

/// The demo vault, indexed, with one highlight on LayoutFlow; returns its store file.
fn with_a_highlight() -> (tempfile::TempDir, Vault, PathBuf) {
    let dir = common::demo_vault();
    let vault = Vault::open(dir.path()).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    common::highlight_gutter(&vault, Some("zanzibarish".into()));
    let store_dir = vault.state_dir().join("highlights");
    let store = std::fs::read_dir(&store_dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "json"))
        .unwrap();
    (dir, vault, store)
}

/// SIGKILL at any moment of a `-o` export leaves the file as it was or the whole new export,
/// never an empty or partial one; the next export sweeps what the killed one left.
#[test]
fn a_killed_export_leaves_the_old_file_or_the_new_one() {
    let (dir, _vault, store) = with_a_highlight();
    let root = dir.path();
    // Four thousand highlights: an export of a few megabytes, long enough to be caught mid-write.
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&store).unwrap()).unwrap();
    let one = doc["highlights"][0].clone();
    let many: Vec<Value> = (0..4000)
        .map(|i| {
            let mut h = one.clone();
            h["id"] = format!("h{i:011}").into();
            h["comment"] = format!("{} {i}", "a comment that runs on ".repeat(40)).into();
            h
        })
        .collect();
    doc["highlights"] = Value::Array(many);
    std::fs::write(&store, serde_json::to_vec(&doc).unwrap()).unwrap();

    let target = root.join("notes.md");
    let args = ["highlights", LAYOUTFLOW, "--export", "md", "-o", "notes.md"];
    let started = std::time::Instant::now();
    ok(&run(root, &args));
    let whole = std::fs::read(&target).unwrap();
    let took = started.elapsed();
    assert!(whole.len() > 1_000_000, "{} bytes", whole.len());
    let old = b"# the previous export\n".to_vec();
    let mut caught = 0;
    for i in 0..24u32 {
        std::fs::write(&target, &old).unwrap();
        let mut child = common::command(root)
            .args(args)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Spread over the whole run, the write included.
        std::thread::sleep(took.mul_f64(f64::from(i) / 20.0));
        let _ = child.kill();
        child.wait().unwrap();
        let now = std::fs::read(&target).unwrap();
        assert!(
            now == old || now == whole,
            "kill after {i}/20 of the run left {} bytes",
            now.len()
        );
        caught += usize::from(now == old);
    }
    assert!(caught > 0, "no kill landed before the rename");
    ok(&run(root, &args));
    let left: Vec<String> = std::fs::read_dir(root)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert_eq!(left, Vec::<String>::new(), "swept by the next export");
}

/// A highlight store larger than the cap is refused before it is read, with a message that
/// names it; `search` goes on without it (and says so); the file is left as it is.
#[test]
fn an_oversized_highlight_store_is_refused_and_search_goes_on() {
    let (dir, _vault, store) = with_a_highlight();
    let root = dir.path();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&store)
        .unwrap();
    f.set_len(MAX_STORE_BYTES + 1).unwrap();
    drop(f);
    let out = run(root, &["highlights", LAYOUTFLOW]);
    assert!(!out.status.success());
    let err = common::stderr(&out);
    assert!(
        err.contains("were not loaded") && err.contains("more than the 16 MB"),
        "{err}"
    );
    let out = run(root, &["search", "gutter"]);
    ok(&out);
    let err = common::stderr(&out);
    assert!(
        err.contains("warning: the highlights of papers/layoutflow/paper.pdf were not loaded"),
        "{err}"
    );
    assert!(
        common::stdout(&out).contains(LAYOUTFLOW),
        "the paper itself is still found"
    );
    assert_eq!(
        std::fs::metadata(&store).unwrap().len(),
        MAX_STORE_BYTES + 1
    );
    // A killed save's temporary file is swept by the next save.
    let stale = store.with_file_name(format!(
        ".{}.{}.0.tmp",
        store.file_name().unwrap().to_string_lossy(),
        dead_pid()
    ));
    std::fs::write(&stale, b"{").unwrap();
    ok(&run(root, &["search", "gutter"]));
    assert!(!stale.exists(), "swept by the next search");
    std::fs::write(&stale, b"{").unwrap();
    std::fs::remove_file(&store).unwrap();
    let vault = Vault::open(root).unwrap();
    common::highlight_gutter(&vault, None);
    assert!(!stale.exists(), "swept by the next save");
}

fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// A folder vault with one paper whose sidecar gives `title_yaml`.
fn vault_with_title(title_yaml: &str) -> tempfile::TempDir {
    let demo = common::demo_vault();
    let dir = tempfile::tempdir().unwrap();
    let paper = dir.path().join("papers/hostile");
    std::fs::create_dir_all(&paper).unwrap();
    std::fs::copy(demo.path().join(LAYOUTFLOW), paper.join("paper.pdf")).unwrap();
    std::fs::write(
        paper.join("info.yaml"),
        format!("title: {title_yaml}\nauthor: Gal, Yarin\nyear: 2009\n"),
    )
    .unwrap();
    dir
}

/// `search` prints a title of a megabyte cut to one line of a sane width.
#[test]
fn search_cuts_a_megabyte_title() {
    let dir = vault_with_title(&"zanzibarish words ".repeat(60_000));
    let root = dir.path();
    ok(&run(root, &["index"]));
    let out = run(root, &["search", "zanzibarish"]);
    let text = String::from_utf8(ok(&out).to_vec()).unwrap();
    let head = text.lines().next().unwrap();
    assert!(head.starts_with(" 1. zanzibarish words"), "{head}");
    assert!(head.contains("… · p."), "{head}");
    assert!(
        head.chars().count() < 200,
        "{} characters",
        head.chars().count()
    );
    assert!(text.len() < 4000, "{} bytes", text.len());
    // And in JSON: cut at a thousand characters, with its mark.
    let out = run(root, &["search", "--json", "zanzibarish"]);
    let doc: Value = serde_json::from_slice(ok(&out)).unwrap();
    let title = doc["cards"][0]["title"].as_str().unwrap();
    assert_eq!(title.chars().count(), 1_001, "{} characters", title.len());
    assert!(title.ends_with('…'));
    assert!(out.stdout.len() < 20_000, "{} bytes", out.stdout.len());
}

/// The paper pane's title shows a sidecar title's controls and RLO escaped: no cell holds one.
#[test]
fn the_paper_pane_title_is_escaped() {
    let dir = vault_with_title(TITLE_YAML);
    let mut h = agentero::tui::headless::Headless::open(dir.path(), 120, 30).unwrap();
    h.settle();
    // Into `papers/`, then the paper.
    h.keys("space f g g enter g g enter");
    let opened = h.wait_until(Duration::from_secs(60), |a| a.paper().is_some());
    assert!(opened, "the paper opens\n{}", h.render());
    let screen = h.render();
    assert!(
        screen.contains("┌ Dropout\\033]52;c;cHduZWQ=\\a as a \\u{9b}31m Bayesian\\u{202e}"),
        "{screen}"
    );
    let buf = h.buffer();
    for y in 0..buf.area.height {
        for x in 0..buf.area.width {
            let sym = buf[(x, y)].symbol();
            assert!(
                raw_controls(sym).is_empty(),
                "cell ({x}, {y}) holds {sym:?}\n{screen}"
            );
        }
    }
}
