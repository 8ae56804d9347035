//! The attack suite (issue 10, items 1, 5 and 6): `tests/peers/mcp_attacks.py` drives the real
//! `agentero-context` server with an independent client — the MCP Python SDK for the tool calls,
//! raw JSON-RPC lines for the wire — over a vault with secrets inside and outside it, links
//! into them, and granted sources it swaps for links after the grant was written.
//!
//! The Python peer comes from `.ci/run` (`mcp`, pinned); `AGENTERO_PYTHON` names its
//! interpreter (default `python3`). Without it the suite is skipped, except under CI, where
//! that is a failure.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use agentero::context::Locality;
use agentero::vault::Vault;
use agentero::vault::indexer::{IndexOptions, index_vault};
use serde_json::{Value, json};

const SECRET_IN: &str = "TOPSECRET-INSIDE-a1b2";
const SECRET_OUT: &str = "TOPSECRET-OUTSIDE-c3d4";
const SECRET_HIDDEN: &str = "TOPSECRET-HIDDEN-e5f6";
const DENSE: &str = "papers/dense-vs-sparse/paper.pdf";
const LAYOUT: &str = "papers/layoutflow/paper.pdf";

fn python() -> Option<String> {
    let py = std::env::var("AGENTERO_PYTHON").unwrap_or_else(|_| "python3".into());
    let ok = Command::new(&py)
        .args(["-c", "import mcp"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some(py);
    }
    common::skip::missing(
        common::skip::Peer::PythonMcp,
        &format!("{py} cannot import it"),
    );
    None
}

#[test]
fn attack_suite_with_the_python_sdk() {
    let Some(py) = python() else { return };
    let outside = tempfile::tempdir().unwrap();
    let out = outside.path().canonicalize().unwrap();
    std::fs::write(out.join("secret.md"), format!("# Out\n{SECRET_OUT}\n")).unwrap();
    let dir = common::demo_vault();
    let root = dir.path().canonicalize().unwrap();
    let write = |rel: &str, text: &str| {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "private/secret.md",
        &format!("# Private\npassage retrieval {SECRET_IN}\n"),
    );
    write("notes/.secret.md", &format!("{SECRET_HIDDEN}\n"));
    write(".hidden/secret.md", &format!("{SECRET_HIDDEN}\n"));
    for n in ["a", "b", "c"] {
        write(
            &format!("notes/{n}.md"),
            &format!("# {n}\npassage retrieval, granted\n"),
        );
    }
    write("notes/target.md", "# T\npassage retrieval\n");
    let link = |from: &Path, to: &str| std::os::unix::fs::symlink(from, root.join(to)).unwrap();
    link(&root.join("notes/target.md"), "notes/link.md");
    link(&out.join("secret.md"), "notes/link-out.md");
    link(&root.join("private/secret.md"), "notes/link-in.md");
    link(&root.join("private"), "notes/private-dir");
    let other_pdf = root.join("papers/other.pdf");
    std::fs::copy(root.join(DENSE), &other_pdf).unwrap();
    let vault = Vault::open(&root).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    link(&root.join(".agentero"), "notes/state");

    let swappable = ["notes/a.md", "notes/b.md", "notes/c.md", "notes/link.md"];
    let mut mentions = vec!["notes/", DENSE, LAYOUT];
    mentions.extend(swappable);
    let grant_path = common::grant_for(&vault, &mentions, Locality::Local);
    let prompt_only = common::grant_for(&vault, &["notes/"], Locality::Remote);
    let abs: BTreeMap<&str, String> = swappable
        .iter()
        .chain([LAYOUT].iter())
        .map(|p| (*p, root.join(p).display().to_string()))
        .collect();
    let home = root.join(".agentero-test-home");
    let mut env: BTreeMap<String, String> = std::env::vars().collect();
    env.insert("HOME".into(), home.display().to_string());
    env.remove("AGENTERO_LOG");
    let fixture = json!({
        "binary": env!("CARGO_BIN_EXE_agentero"),
        "root": root,
        "outside": out,
        "outside_secret": out.join("secret.md"),
        "secret_in": root.join("private/secret.md"),
        "secrets": [SECRET_IN, SECRET_OUT, SECRET_HIDDEN],
        "grant": grant_path,
        "prompt_only_grant": prompt_only,
        "swappable": swappable,
        "abs": abs,
        "dense": DENSE,
        "layout": LAYOUT,
        "other_pdf": other_pdf,
        "env": env,
    });
    let fixture_path = outside.path().join("fixture.json");
    std::fs::write(&fixture_path, fixture.to_string()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/mcp_attacks.py");
    let mut child = Command::new(&py)
        .arg(&script)
        .arg(&fixture_path)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Bounded: the suite itself answers in well under a minute.
    let deadline = std::time::Instant::now() + Duration::from_secs(300);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("the attack suite did not finish in 300 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let summary: Value = stdout
        .lines()
        .last()
        .and_then(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no summary from the suite:\n{stdout}\n{stderr}"));
    let list = |k: &str| summary[k].as_array().cloned().unwrap_or_default();
    let attacks = summary["attacks"].as_u64().unwrap_or(0);
    eprintln!(
        "attack suite: {attacks} attacks, {} leaks, {} crashes, {} other failures",
        list("leaks").len(),
        list("crashes").len(),
        list("failures").len()
    );
    assert!(attacks >= 150, "only {attacks} attacks ran");
    assert!(list("leaks").is_empty(), "leaks: {:#?}", list("leaks"));
    assert!(
        list("crashes").is_empty(),
        "crashes: {:#?}",
        list("crashes")
    );
    assert!(
        list("failures").is_empty(),
        "failures: {:#?}",
        list("failures")
    );
    assert!(output.status.success(), "{stderr}");
}
