//! The layers of `src/` import one way only (DESIGN.md): `vault` knows nothing above it,
//! `context` uses only `vault`, `mcp`/`acp`/`agent` use `context` and `vault` but not each
//! other's internals or the UI, and only `tui` touches the terminal crates.

use std::path::{Path, PathBuf};

const UI_CRATES: &[&str] = &["ratatui", "crossterm", "ratatui_textarea"];

/// (layer, crate-internal modules it must not name, external crates it must not name)
const RULES: &[(&str, &[&str], &[&str])] = &[
    (
        "vault",
        &[
            "context", "mcp", "acp", "agent", "tui", "cli", "paths", "config",
        ],
        &["rmcp", "agent_client_protocol", "tokio"],
    ),
    (
        "context",
        &["mcp", "acp", "agent", "tui", "cli", "paths"],
        &["rmcp", "agent_client_protocol"],
    ),
    (
        "mcp",
        &["acp", "agent", "tui", "cli"],
        &["agent_client_protocol"],
    ),
    ("acp", &["mcp", "agent", "tui", "cli"], &["rmcp"]),
    ("agent", &["acp", "mcp", "tui", "cli"], &[]),
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Code lines only: comments are allowed to talk about other layers.
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn names_module(code: &str, module: &str) -> bool {
    [
        format!("crate::{module}::"),
        format!("crate::{module};"),
        format!("crate::{module}}}"),
        format!("agentero::{module}::"),
        format!("crate::{{{module}"),
    ]
    .iter()
    .any(|p| code.contains(p.as_str()))
        || code.contains("crate::{") && code.contains(&format!(" {module}::"))
}

fn names_crate(code: &str, krate: &str) -> bool {
    code.contains(&format!("{krate}::")) || code.contains(&format!("use {krate}"))
}

#[test]
fn layers_import_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut violations = Vec::new();
    for (layer, modules, crates) in RULES {
        let mut files = Vec::new();
        rust_files(&src.join(layer), &mut files);
        assert!(!files.is_empty(), "layer src/{layer}/ is missing");
        for f in files {
            let code = code_of(&std::fs::read_to_string(&f).unwrap());
            for m in *modules {
                if names_module(&code, m) {
                    violations.push(format!("{} names crate::{m}", f.display()));
                }
            }
            for c in crates.iter().chain(UI_CRATES) {
                if names_crate(&code, c) {
                    violations.push(format!("{} uses the crate {c}", f.display()));
                }
            }
            if code.contains("super::super::super") {
                violations.push(format!(
                    "{} climbs out of its layer with super::",
                    f.display()
                ));
            }
        }
    }
    assert!(
        violations.is_empty(),
        "layer violations:\n{}",
        violations.join("\n")
    );
}

#[test]
fn only_tui_touches_the_terminal() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let tui = src.join("tui");
    let offenders: Vec<String> = files
        .iter()
        .filter(|f| !f.starts_with(&tui))
        .filter(|f| {
            let code = code_of(&std::fs::read_to_string(f).unwrap());
            UI_CRATES.iter().any(|c| names_crate(&code, c))
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        offenders.is_empty(),
        "terminal crates outside src/tui: {offenders:?}"
    );
}

#[test]
fn the_checker_catches_violations() {
    assert!(names_module("use crate::tui::App;", "tui"));
    assert!(names_module("let x = crate::acp::Turn::new();", "acp"));
    assert!(!names_module("use crate::vault::Vault;", "tui"));
    assert!(names_crate("use ratatui::Frame;", "ratatui"));
    assert!(!names_crate(
        &code_of("// ratatui::Frame is not used here"),
        "ratatui"
    ));
}
