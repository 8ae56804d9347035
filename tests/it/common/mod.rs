//! Helpers shared by the integration tests.
#![allow(dead_code)]

pub mod csl;
pub mod embedding_model;
pub mod hostile_pdf;
pub mod known_items;
pub mod skip;
pub mod tmux;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// poppler's `pdftotext` text of a whole file (pages end with a form feed), the reference the
/// extraction tests compare with.
pub fn pdftotext(path: &Path) -> String {
    let out = Command::new("pdftotext")
        .args(["-enc", "UTF-8"])
        .arg(path)
        .arg("-")
        .output()
        .expect("pdftotext is missing: install poppler-utils and poppler-data");
    assert!(
        out.status.success(),
        "pdftotext failed on {}",
        path.display()
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The corpus of real PDFs named by `AGENTERO_CORPUS`: `None` (with a message) when unset,
/// a failing test when it names a folder that does not exist.
pub fn corpus() -> Option<PathBuf> {
    let Some(dir) = std::env::var_os("AGENTERO_CORPUS") else {
        skip::missing(skip::Peer::Corpus, "");
        return None;
    };
    let dir = PathBuf::from(dir);
    let dir = dir
        .canonicalize()
        .unwrap_or_else(|e| panic!("AGENTERO_CORPUS={} cannot be opened: {e}", dir.display()));
    assert!(
        dir.join("papers").is_dir(),
        "AGENTERO_CORPUS={} has no papers/ folder",
        dir.display()
    );
    Some(dir)
}

/// Copies a folder tree (the corpus is read-only and must not get a `.agentero/` of ours).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        let ft = entry.file_type().unwrap();
        if ft.is_dir() {
            copy_tree(&entry.path(), &target);
        } else if ft.is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
            let mut perm = std::fs::metadata(&target).unwrap().permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perm.set_readonly(false);
            std::fs::set_permissions(&target, perm).unwrap();
        }
    }
}

/// A fresh demo vault in a temporary folder.
pub fn demo_vault() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    agentero::vault::demo::write_demo_vault(dir.path()).unwrap();
    dir
}

/// A temp folder with the demo vault in `vault/` beside room for a HOME, indexed; the folder
/// and the vault's path.
pub fn indexed_demo_vault() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    let v = agentero::vault::Vault::open(&vault).unwrap();
    agentero::vault::indexer::index_vault(&v, &Default::default(), &mut |_| {}).unwrap();
    (dir, vault)
}

/// The grant file of a turn that mentions `mentions` (each must be granted) with a budget no
/// test reaches, written in the vault's state folder.
pub fn grant_for(
    vault: &agentero::vault::Vault,
    mentions: &[&str],
    locality: agentero::context::Locality,
) -> PathBuf {
    use agentero::context::{Budget, ContextRequest, grant, plan};
    let req = ContextRequest {
        mentions: mentions.iter().map(|m| m.to_string()).collect(),
        locality,
        budget: Budget {
            turn_chars: 10_000_000,
            ..Budget::default()
        },
        ..ContextRequest::default()
    };
    let p = plan(vault, &req);
    assert!(p.omitted.is_empty(), "{:?}", p.omitted);
    grant::write(vault, &grant::new_id("rt"), &p)
        .unwrap()
        .0
        .grant()
}

/// The context servers running for the vault under `tmp` (their command line names a grant
/// in its state folder).
pub fn context_servers(tmp: &Path) -> usize {
    let needle = tmp.display().to_string();
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains("--agentero-context-mcp") && c.contains(&needle))
        .count()
}

/// Runs the real binary with a private HOME so it never touches the user's files.
pub fn agentero(args: &[&str], cwd: &Path) -> Output {
    command(cwd)
        .args(args)
        .output()
        .expect("the agentero binary runs")
}

/// The real binary, run in `cwd` with a private HOME (under `cwd`) so it never touches the
/// user's files.
pub fn command(cwd: &Path) -> Command {
    command_of(Path::new(env!("CARGO_BIN_EXE_agentero")), cwd)
}

/// As [`command`], with another build of agentero (`bin`).
pub fn command_of(bin: &Path, cwd: &Path) -> Command {
    let home = cwd.join(".agentero-test-home");
    let mut cmd = Command::new(bin);
    cmd.current_dir(cwd)
        .env("HOME", &home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env_remove("HF_HOME")
        .env_remove("HF_HUB_CACHE")
        .env_remove("AGENTERO_EMBEDDINGS")
        .env_remove("AGENTERO_LOG");
    cmd
}

/// The indexed papers of `vault` with at least `pages` pages, by path, with their page count.
pub fn indexed_papers(vault: &agentero::vault::Vault, pages: u32) -> Vec<(String, u32)> {
    let mut papers: Vec<(String, u32)> = vault
        .catalog()
        .entries
        .iter()
        .filter(|(_, e)| {
            e.kind == agentero::vault::EntryKind::Paper
                && e.status == agentero::vault::Status::Indexed
                && e.units >= pages
        })
        .map(|(p, e)| (p.clone(), e.units))
        .collect();
    papers.sort();
    papers
}

/// An rmcp client connected to the real binary serving `agentero-context` for `grant`
/// (stderr piped, so the server's logs never reach the test output; killed on drop).
pub async fn mcp_client(
    grant: &Path,
) -> rmcp::service::RunningService<rmcp::service::RoleClient, ()> {
    use rmcp::ServiceExt;
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_agentero"));
    // No embedding model: the user's Hugging Face cache does not change what tests find.
    cmd.arg("--agentero-context-mcp")
        .arg(grant)
        .env("AGENTERO_EMBEDDINGS", "off")
        .kill_on_drop(true);
    let (transport, _stderr) = rmcp::transport::TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the server starts");
    ().serve(transport)
        .await
        .expect("the MCP handshake succeeds")
}

/// Runs a command with a time limit (killing it when it overruns) and returns its output.
pub fn output_within(mut cmd: Command, limit: std::time::Duration) -> Output {
    use std::process::Stdio;
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command starts");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.unwrap(),
        Err(_) => {
            // SAFETY: signalling our own child, which may have exited (then ESRCH).
            unsafe { libc::kill(pid as i32, libc::SIGKILL) };
            panic!("{cmd:?} did not finish within {limit:?}");
        }
    }
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Text of a whole PDF per `pdftotext`, reduced to lower-case letters and digits (memoized: a
/// long manual takes seconds).
pub fn pdftotext_reduced(pdf: &Path) -> Option<String> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static CACHE: Mutex<Option<HashMap<PathBuf, String>>> = Mutex::new(None);
    let mut cache = CACHE.lock().unwrap_or_else(|e| e.into_inner());
    let cache = cache.get_or_insert_with(HashMap::new);
    if let Some(t) = cache.get(pdf) {
        return Some(t.clone());
    }
    let whole = Command::new("pdftotext")
        .args(["-enc", "UTF-8"])
        .arg(pdf)
        .arg("-")
        .output()
        .ok()?;
    let text = reduce(&String::from_utf8_lossy(&whole.stdout));
    cache.insert(pdf.to_path_buf(), text.clone());
    Some(text)
}

/// A line of pdftotext output for page `n` that makes a good quote: long, mostly words.
pub fn pdftotext_quote(pdf: &Path, n: u32) -> Option<String> {
    let out = Command::new("pdftotext")
        .args(["-enc", "UTF-8", "-f", &n.to_string(), "-l", &n.to_string()])
        .arg(pdf)
        .arg("-")
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    // Two consecutive prose lines, so the quote crosses a line break as quotes do.
    let whole = pdftotext_reduced(pdf)?;
    lines
        .windows(2)
        .map(|w| format!("{}\n{}", w[0], w[1]))
        .find(|q| {
            let letters = q.chars().filter(|c| c.is_alphabetic()).count();
            let r = reduce(q);
            // Unique in the paper (template papers repeat filler text on every page).
            q.len() > 90
                && q.len() < 240
                && letters * 10 > q.len() * 7
                && q.split_whitespace().count() > 12
                && whole.matches(&r).count() == 1
        })
}

/// Lower-case letters and digits only: how quotes compare across extractors.
pub fn reduce(s: &str) -> String {
    s.chars()
        .filter(|c| c.is_alphanumeric())
        .flat_map(char::to_lowercase)
        .collect()
}

/// A client of the real context server (see [`mcp_client`]).
pub type McpClient = rmcp::service::RunningService<rmcp::service::RoleClient, ()>;

/// A client of the MCP server `cmd` starts on stdio, with HOME and the XDG folders under `home`
/// (killed when the client drops); a failed start or handshake fails the test.
pub async fn stdio_client(mut cmd: tokio::process::Command, home: &Path) -> McpClient {
    use rmcp::ServiceExt;
    cmd.env("HOME", home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env_remove("HF_HOME")
        .env_remove("HF_HUB_CACHE")
        .kill_on_drop(true);
    let (transport, _stderr) = rmcp::transport::TokioChildProcess::builder(cmd)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the server starts");
    tokio::time::timeout(std::time::Duration::from_secs(60), ().serve(transport))
        .await
        .unwrap()
        .expect("the MCP handshake succeeds")
}

/// Calls `tool` with the JSON object `args`; a protocol error fails the test.
pub async fn call_tool(
    client: &McpClient,
    tool: &str,
    args: serde_json::Value,
) -> rmcp::model::CallToolResult {
    client
        .call_tool(
            rmcp::model::CallToolRequestParams::new(tool.to_string())
                .with_arguments(args.as_object().cloned().unwrap()),
        )
        .await
        .expect("a tool result")
}

/// A tool result's text blocks, then its structured content as JSON.
pub fn tool_text(r: &rmcp::model::CallToolResult) -> String {
    let mut t: String = r
        .content
        .iter()
        .filter_map(|c| c.as_text())
        .map(|t| t.text.clone())
        .collect();
    if let Some(s) = &r.structured_content {
        t.push_str(&s.to_string());
    }
    t
}

/// Highlights the word "gutter" on page 2 of the demo vault's LayoutFlow paper (the vault
/// indexed), with `comment`.
pub fn highlight_gutter(
    vault: &agentero::vault::Vault,
    comment: Option<String>,
) -> agentero::vault::highlights::Highlight {
    use agentero::vault::highlights::{NewHighlight, add};
    const LAYOUTFLOW: &str = "papers/layoutflow/paper.pdf";
    let text = vault
        .open_index()
        .unwrap()
        .page(LAYOUTFLOW, 2)
        .unwrap()
        .unwrap()
        .text;
    let start = text.find("gutter").unwrap();
    add(
        vault,
        LAYOUTFLOW,
        NewHighlight {
            page: 2,
            start,
            end: start + 6,
            text: "gutter".into(),
            comment,
        },
    )
    .unwrap()
}

/// The bytes of every PDF of a fresh demo vault, in path order.
pub fn demo_pdfs() -> Vec<Vec<u8>> {
    let demo = demo_vault();
    let mut paths = Vec::new();
    let mut stack = vec![demo.path().to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() && !e.file_name().to_string_lossy().starts_with('.') {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "pdf") {
                paths.push(p);
            }
        }
    }
    paths.sort();
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
}
