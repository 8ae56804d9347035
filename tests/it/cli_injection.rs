//! Terminal injection: vault content full of control sequences (OSC 52 to the clipboard, OSC 0
//! to the window title, `ESC[2J`, a one-byte C1 CSI, a bare `\r`, a file name with an escape in
//! it) printed by the real binary to a real pseudo-terminal. The bytes that reach the terminal
//! hold no escape from the content, and the content is still shown, visibly escaped.

use crate::common;

use std::path::Path;
use std::process::Command;

const PTY_RUNNER: &str = r#"
import os, pty, select, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
out = b""
while True:
    ready, _, _ = select.select([fd], [], [], 120)
    if not ready:
        os.kill(pid, 9)
        break
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
sys.stderr.write("exit %d\n" % os.waitstatus_to_exitcode(status))
"#;

/// Runs the binary with `args` on a pseudo-terminal (stdin, stdout and stderr all on it) and
/// returns every byte it wrote there and whether it succeeded.
fn on_a_pty_status(args: &[&str], cwd: &Path) -> (Vec<u8>, bool) {
    let home = cwd.join(".agentero-test-home");
    let py = std::env::var("AGENTERO_PYTHON").unwrap_or_else(|_| "python3".into());
    let out = Command::new(&py)
        .arg("-c")
        .arg(PTY_RUNNER)
        .arg(env!("CARGO_BIN_EXE_agentero"))
        .args(args)
        .current_dir(cwd)
        .env("HOME", &home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("TERM", "xterm-256color")
        .env_remove("AGENTERO_LOG")
        .output()
        .expect("python3 runs (it provides the pseudo-terminal)");
    let status = String::from_utf8_lossy(&out.stderr);
    assert!(
        status.contains("exit "),
        "the pseudo-terminal runner failed: {status}"
    );
    (out.stdout, status.contains("exit 0\n"))
}

fn on_a_pty(args: &[&str], cwd: &Path) -> Vec<u8> {
    let (bytes, ok) = on_a_pty_status(args, cwd);
    assert!(ok, "{args:?} failed: {}", String::from_utf8_lossy(&bytes));
    bytes
}

fn assert_clean(bytes: &[u8], what: &str) {
    let shown = String::from_utf8_lossy(bytes);
    assert!(
        !bytes.contains(&0x1b),
        "{what}: an ESC reached the terminal:\n{shown:?}"
    );
    assert!(
        !shown.contains('\u{9b}') && !shown.contains('\u{7}'),
        "{what}: a C1 CSI or BEL reached the terminal:\n{shown:?}"
    );
    // The terminal turns each "\n" into "\r\n"; any other "\r" came from the content.
    assert!(
        !bytes.windows(2).any(|w| w[0] == b'\r' && w[1] != b'\n'),
        "{what}: a bare carriage return reached the terminal:\n{shown:?}"
    );
}

#[test]
fn content_never_drives_the_terminal() {
    let py = std::env::var("AGENTERO_PYTHON").unwrap_or_else(|_| "python3".into());
    if Command::new(&py).arg("-V").output().is_err() {
        common::skip::missing(
            common::skip::Peer::Python,
            "it provides the pseudo-terminal",
        );
        return;
    }
    let dir = common::demo_vault();
    let root = dir.path();
    std::fs::write(
        root.join("notes/evil.md"),
        "# Evil \u{1b}]0;pwned-title\u{7} note\n\
         The quokka clipboard \u{1b}]52;c;cHduZWQ=\u{7} and \u{1b}[2J cleared \
         and \u{9b}31m red and\rfake line, all about the quokka.\n",
    )
    .unwrap();
    std::fs::write(
        root.join("notes/named\u{1b}[31mred.md"),
        "# Named\nAnother quokka sighting.\n",
    )
    .unwrap();
    let v = root.to_str().unwrap();
    // A file whose name holds controls is no paper or file the tools could read (the one
    // resolved-path rule refuses it), so the index reports it as failed — its name escaped.
    // (Not on a pty: there the progress bar draws itself with its own escapes.)
    let indexed = common::agentero(&["index", v], root);
    assert!(indexed.status.success(), "{}", common::stderr(&indexed));
    assert_clean(&indexed.stdout, "index");
    assert_clean(&indexed.stderr, "index");
    let shown = common::stdout(&indexed);
    assert!(shown.contains("named\\033[31mred.md"), "{shown}");

    let search = on_a_pty(&["search", "--vault", v, "quokka"], root);
    assert_clean(&search, "search");
    let shown = String::from_utf8_lossy(&search);
    assert!(shown.contains("\\033]52;c;cHduZWQ=\\a"), "{shown}");
    assert!(
        shown.contains("\\033[2J") && shown.contains("\\u{9b}31m"),
        "{shown}"
    );
    assert!(
        !shown.contains("sighting"),
        "the refused file is not found: {shown}"
    );

    let ask = on_a_pty(
        &[
            "ask",
            "--vault",
            v,
            "What does @notes/evil.md say about the quokka clipboard?",
        ],
        root,
    );
    assert_clean(&ask, "ask");
    let shown = String::from_utf8_lossy(&ask);
    assert!(shown.contains("quokka"), "{shown}");
    assert!(
        shown.contains("\\033"),
        "the answer quotes the note: {shown}"
    );

    // An error that names a file: the name is shown escaped too.
    let (missing, ok) = on_a_pty_status(
        &[
            "search",
            "--vault",
            &format!("{v}/no\u{1b}]0;x\u{7}such"),
            "q",
        ],
        root,
    );
    assert!(!ok);
    assert_clean(&missing, "error");
    assert!(String::from_utf8_lossy(&missing).contains("no\\033]0;x\\asuch"));
}

/// The terminal app on a pseudo-terminal that answers nothing (no graphics query answer, no
/// device attributes, no cursor position), its screen kept by a terminal emulator (pyte): the
/// first key, typed before the app has drawn,
/// counts; a key typed after the query's deadline counts; a stop (ctrl-z) and a continue
/// bring the app back drawn whole, without asking the terminal anything, and it still takes
/// keys; `q` quits with exit 0.
const SILENT_PTY: &str = r#"
import fcntl, os, pty, select, signal, struct, sys, termios, time
import pyte
pid, fd = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    os.execv(sys.argv[1], sys.argv[1:])
screen = pyte.Screen(120, 40)
stream = pyte.ByteStream(screen)
raw = b""
def pump(secs, until=None):
    global raw
    deadline = time.time() + secs
    while time.time() < deadline:
        if until is not None and until():
            return True
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return False
            if not chunk:
                return False
            raw += chunk
            stream.feed(chunk)
    return until is not None and until()
def shows(text):
    return any(text in line for line in screen.display)
def step(name, ok):
    sys.stderr.write("%s %s\n" % (name, "ok" if ok else "FAILED"))
    if not ok:
        sys.stderr.write("\n".join(screen.display) + "\n")
os.write(fd, b"?")
step("first-key", pump(20, lambda: shows("Quit agentero")))
os.write(fd, b"\x1b")
pump(5, lambda: not shows("Quit agentero"))
pump(1.5)
os.write(fd, b"?")
step("later-key", pump(10, lambda: shows("Quit agentero")))
os.write(fd, b"\x1b")
pump(5, lambda: not shows("Quit agentero"))
os.write(fd, b"\x1a")
stopped = False
for _ in range(100):
    wpid, status = os.waitpid(pid, os.WUNTRACED | os.WNOHANG)
    if wpid == pid and os.WIFSTOPPED(status):
        stopped = True
        break
    pump(0.05)
step("stopped", stopped)
pump(0.3)
# What the terminal shows now is forgotten: only a full redraw brings the panes back.
screen.reset()
before = len(raw)
os.kill(pid, signal.SIGCONT)
step("redrawn", pump(5, lambda: shows("Vault")))
step("no-cursor-query", b"\x1b[6n" not in raw[before:])
os.write(fd, b"?")
step("key-after-continue", pump(10, lambda: shows("Quit agentero")))
os.write(fd, b"\x1b")
pump(5, lambda: not shows("Quit agentero"))
os.write(fd, b"q")
deadline = time.time() + 10
code = None
while time.time() < deadline:
    pump(0.1)
    wpid, status = os.waitpid(pid, os.WNOHANG)
    if wpid == pid:
        code = os.waitstatus_to_exitcode(status)
        break
if code is None:
    os.kill(pid, 9)
step("quit", code == 0)
"#;

#[test]
fn a_silent_terminal_loses_no_key_and_survives_a_stop() {
    let py = std::env::var("AGENTERO_PYTHON").unwrap_or_else(|_| "python3".into());
    let has_pyte = Command::new(&py)
        .args(["-c", "import pyte"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_pyte {
        common::skip::missing(common::skip::Peer::Pyte, &format!("AGENTERO_PYTHON={py}"));
        return;
    }
    let dir = common::demo_vault();
    let root = dir.path();
    let home = root.join(".agentero-test-home");
    let out = Command::new(&py)
        .arg("-c")
        .arg(SILENT_PTY)
        .arg(env!("CARGO_BIN_EXE_agentero"))
        .arg(root)
        .current_dir(root)
        .env("HOME", &home)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("TERM", "xterm-256color")
        .env_remove("TMUX")
        .env_remove("AGENTERO_IMAGES")
        .output()
        .expect("python3 runs (it provides the pseudo-terminal)");
    let steps = String::from_utf8_lossy(&out.stderr);
    for step in [
        "first-key",
        "later-key",
        "stopped",
        "redrawn",
        "no-cursor-query",
        "key-after-continue",
        "quit",
    ] {
        assert!(
            steps.contains(&format!("{step} ok")),
            "{step} failed on a silent terminal:\n{steps}"
        );
    }
}

/// The characters that must never reach machine-readable output raw.
fn assert_no_raw_controls(text: &str, what: &str) {
    let raw: Vec<char> = text
        .chars()
        .filter(|&c| {
            ('\u{7f}'..='\u{9f}').contains(&c)
                || ('\u{202a}'..='\u{202e}').contains(&c)
                || ('\u{2066}'..='\u{2069}').contains(&c)
                || matches!(c, '\u{200e}' | '\u{200f}' | '\u{61c}' | '\u{1b}')
        })
        .collect();
    assert!(raw.is_empty(), "{what}: raw {raw:?} in\n{text}");
}

#[test]
fn machine_readable_outputs_escape_c1_and_bidi_controls() {
    use std::io::{BufRead, Write};
    use std::process::Stdio;
    const EVIL: &str = "\u{9b}31m\u{202e}";
    let top = tempfile::tempdir().unwrap();
    // The vault's own path, a file's name (refused as a path: it is only named), a note's
    // title and text, and a client's name all carry them.
    let root = top.path().join(format!("vault{EVIL}x"));
    agentero::vault::demo::write_demo_vault(&root).unwrap();
    let name = "notes/evil.md";
    std::fs::write(
        root.join(name),
        format!("# Title {EVIL} of the quokka\nThe quokka {EVIL} hides here.\n"),
    )
    .unwrap();
    let hostile_name = format!("notes/x{EVIL}gpj.md");
    std::fs::write(root.join(&hostile_name), "# X\nquokka\n").unwrap();
    let v = root.to_str().unwrap();
    let indexed = common::agentero(&["index", v], &root);
    assert!(indexed.status.success(), "{}", common::stderr(&indexed));

    let search = common::agentero(&["search", "--vault", v, "--json", "quokka"], &root);
    assert!(search.status.success(), "{}", common::stderr(&search));
    let text = common::stdout(&search);
    assert_no_raw_controls(&text, "search --json");
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(
        doc["vault"]
            .as_str()
            .unwrap()
            .ends_with(&format!("vault{EVIL}x")),
        "the JSON parses back to the original text: {doc}"
    );
    assert_eq!(doc["cards"][0]["path"], name);
    assert!(doc["cards"][0]["title"].as_str().unwrap().contains(EVIL));

    let mention = format!("@{name}");
    let hostile_mention = format!("@{hostile_name}");
    let plan = common::agentero(&["plan", "--vault", v, &mention, &hostile_mention], &root);
    assert!(plan.status.success(), "{}", common::stderr(&plan));
    let text = common::stdout(&plan);
    assert_no_raw_controls(&text, "plan");
    assert!(text.contains("\\u009b31m\\u202e"), "{text}");
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(doc.to_string().contains(&hostile_name), "{doc}");

    let question = format!("What does {mention} say about the quokka?");
    let ask = common::agentero(&["ask", "--vault", v, "--json", &question], &root);
    assert!(ask.status.success(), "{}", common::stderr(&ask));
    let text = common::stdout(&ask);
    assert_no_raw_controls(&text, "ask --json");
    let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert!(doc["sources"].to_string().contains("notes/evil"), "{doc}");
    // The answer quotes the note: its controls come back from the JSON as they were.
    assert!(doc["answer"].as_str().unwrap().contains(EVIL), "{doc}");

    // The vault MCP over stdio: a client name and a tool argument with the controls.
    let mut child = common::command(&root)
        .args(["serve", "--stdio", v])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
    let client = format!("client{EVIL}");
    let init = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": client, "version": "1"}}});
    let read = serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "file_read", "arguments": {"path": name}}});
    let refused = serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "file_read", "arguments": {"path": hostile_name}}});
    let mut answers = Vec::new();
    for msg in [
        init,
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        read,
        refused,
    ] {
        writeln!(stdin, "{msg}").unwrap();
        stdin.flush().unwrap();
        if msg.get("id").is_some() {
            let mut line = String::new();
            stdout.read_line(&mut line).unwrap();
            answers.push(line);
        }
    }
    drop(stdin);
    let _ = child.wait();
    assert_no_raw_controls(&answers[1], "a tool result on the wire");
    assert_no_raw_controls(&answers[2], "a refusal on the wire");
    let result: serde_json::Value = serde_json::from_str(&answers[1]).unwrap();
    assert!(
        result["result"]["structuredContent"]["text"]
            .as_str()
            .is_some_and(|t| t.contains(EVIL)),
        "{result}"
    );
    let state = root.join(".agentero");
    let usage = std::fs::read_to_string(state.join("serve/usage.jsonl")).unwrap();
    assert_no_raw_controls(&usage, "usage.jsonl");
    let line: serde_json::Value = serde_json::from_str(usage.lines().last().unwrap()).unwrap();
    assert_eq!(line["client"], client.as_str(), "{line}");
    assert_eq!(line["paths"][0], hostile_name.as_str(), "{line}");
    let log = std::fs::read_to_string(state.join("logs/agentero.log")).unwrap();
    assert_no_raw_controls(&log, "agentero.log");
    assert!(log.contains("vault\\u{9b}31m\\u{202e}x"), "{log}");
}
