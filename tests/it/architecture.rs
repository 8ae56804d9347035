//! The layers of `src/` import one way only: `vault` knows nothing above it,
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

/// The modules of `src/` by file: `tui::app::view` → `src/tui/app/view.rs`.
fn modules(src: &Path) -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files
        .into_iter()
        .filter_map(|f| {
            let rel = f.strip_prefix(src).ok()?.with_extension("");
            let mut parts: Vec<String> = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if parts
                .last()
                .is_some_and(|p| p == "mod" || p == "lib" || p == "main")
            {
                parts.pop();
            }
            Some((parts.join("::"), f))
        })
        .collect()
}

/// The `::`-paths a piece of code names from `prefix` on, with `{a, b::c}` groups expanded.
fn paths_after(code: &str, prefix: &str) -> Vec<Vec<String>> {
    fn ident(s: &str) -> (&str, &str) {
        let end = s
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(s.len());
        (&s[..end], &s[end..])
    }
    /// One path (or group) at the start of `s`, after `base`.
    fn walk(s: &str, base: Vec<String>, out: &mut Vec<Vec<String>>) {
        let s = s.trim_start();
        if let Some(group) = s.strip_prefix('{') {
            let mut depth = 0;
            let mut start = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        walk(&group[start..i], base.clone(), out);
                        return;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        walk(&group[start..i], base.clone(), out);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            return;
        }
        let (name, rest) = ident(s);
        if name.is_empty() || name == "self" {
            out.push(base);
            return;
        }
        let mut path = base;
        path.push(name.to_string());
        match rest.strip_prefix("::") {
            Some(rest) => walk(rest, path, out),
            None => out.push(path),
        }
    }
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find(prefix) {
        let start = from + at;
        from = start + prefix.len();
        let before = code[..start].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        walk(&code[from..], Vec::new(), &mut out);
    }
    out
}

/// The `pub use` statements of a piece of code (any visibility), each up to its `;`, and the
/// code without them.
fn split_reexports(code: &str) -> (Vec<String>, String) {
    let mut uses = Vec::new();
    let mut rest = String::with_capacity(code.len());
    let mut from = 0;
    while let Some(at) = code[from..].find("pub") {
        let start = from + at;
        let after = &code[start + 3..];
        let vis_end = if after.starts_with('(') {
            after.find(')').map_or(0, |i| i + 1)
        } else {
            0
        };
        let is_use = after[vis_end..].trim_start().starts_with("use ")
            && !code[..start]
                .chars()
                .next_back()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
        if !is_use {
            rest.push_str(&code[from..start + 3]);
            from = start + 3;
            continue;
        }
        let end = code[start..]
            .find(';')
            .map_or(code.len(), |i| start + i + 1);
        rest.push_str(&code[from..start]);
        uses.push(code[start..end].to_string());
        from = end;
    }
    rest.push_str(&code[from..]);
    (uses, rest)
}

/// Which modules each module names: through `crate::` and `super::` paths and its own child
/// modules' names (`view::layout`). A name a module only re-exports from a child (`pub use
/// access::folder_seal`) is that child's: the edge goes to the child, never through the parent,
/// and the re-export itself is no edge — so a circle cannot hide behind a parent's `mod.rs`.
fn module_graph(src: &Path) -> Vec<(String, Vec<String>)> {
    let mods = modules(src);
    let known: std::collections::BTreeSet<&str> = mods.iter().map(|(m, _)| m.as_str()).collect();
    let deepest = |path: &[String]| -> Option<(usize, String)> {
        (1..=path.len())
            .rev()
            .map(|n| (n, path[..n].join("::")))
            .find(|(_, m)| known.contains(m.as_str()))
    };
    // (module, item) → the child module it re-exports the item from.
    let mut reexported: std::collections::HashMap<(String, String), String> =
        std::collections::HashMap::new();
    let codes: Vec<String> = mods
        .iter()
        .map(|(_, f)| {
            let code = code_of(&std::fs::read_to_string(f).unwrap());
            // Unit tests (at the end of a file, by custom) are not part of the structure, and
            // their `super` is the file's own module.
            code.split("#[cfg(test)]").next().unwrap_or("").to_string()
        })
        .collect();
    for ((m, f), code) in mods.iter().zip(&codes) {
        let is_dir = f
            .file_stem()
            .is_some_and(|s| s == "mod" || s == "lib" || s == "main");
        if !is_dir {
            continue;
        }
        let here: Vec<String> = m
            .split("::")
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        for stmt in split_reexports(code).0 {
            let body = stmt[stmt.find("use ").unwrap_or(0) + 4..].to_string();
            let body = body.trim_start_matches("self::");
            for p in paths_after(&format!("use::{body}"), "use::") {
                let full = [here.clone(), p.clone()].concat();
                if let (Some(item), Some((n, target))) = (p.last(), deepest(&full))
                    && n > here.len()
                    && n < full.len()
                {
                    reexported.insert((m.clone(), item.clone()), target);
                }
            }
        }
    }
    let resolve = |path: Vec<String>| -> Option<String> {
        let (n, m) = deepest(&path)?;
        Some(match path.get(n) {
            Some(item) => reexported
                .get(&(m.clone(), item.clone()))
                .cloned()
                .unwrap_or(m),
            None => m,
        })
    };
    let mut graph = Vec::new();
    for ((m, f), code) in mods.iter().zip(&codes) {
        let code = split_reexports(code).1;
        let is_dir = f
            .file_stem()
            .is_some_and(|s| s == "mod" || s == "lib" || s == "main");
        let here: Vec<String> = m.split("::").map(str::to_string).collect();
        let parent = here[..here.len().saturating_sub(1)].to_vec();
        let own_dir = if is_dir { here.clone() } else { parent.clone() };
        let mut named = std::collections::BTreeSet::new();
        for p in paths_after(&code, "crate::") {
            named.extend(resolve(p));
        }
        for mut p in paths_after(&code, "super::") {
            let mut base = parent.clone();
            while p.first().is_some_and(|s| s == "super") {
                p.remove(0);
                base.pop();
            }
            named.extend(resolve([base, p].concat()));
        }
        // Children named directly (`mod view;` … `view::Areas`).
        for (child, _) in &mods {
            if let Some(name) = child
                .strip_prefix(&format!("{}::", own_dir.join("::")))
                .filter(|n| !n.contains("::"))
                && is_dir
                && !paths_after(&code, &format!("{name}::")).is_empty()
            {
                named.insert(child.clone());
            }
        }
        named.remove(m);
        graph.push((m.clone(), named.into_iter().collect()));
    }
    graph
}

/// Modules that import each other, directly or around a circle (strongly connected parts of
/// the graph with more than one module).
fn circles(graph: &[(String, Vec<String>)]) -> Vec<Vec<String>> {
    let index: std::collections::HashMap<&str, usize> = graph
        .iter()
        .enumerate()
        .map(|(i, (m, _))| (m.as_str(), i))
        .collect();
    let edges: Vec<Vec<usize>> = graph
        .iter()
        .map(|(_, to)| {
            to.iter()
                .filter_map(|t| index.get(t.as_str()).copied())
                .collect()
        })
        .collect();
    // Which modules each one reaches.
    let reach: Vec<std::collections::BTreeSet<usize>> = (0..graph.len())
        .map(|s| {
            let mut seen = std::collections::BTreeSet::new();
            let mut stack = vec![s];
            while let Some(n) = stack.pop() {
                for &t in &edges[n] {
                    if seen.insert(t) {
                        stack.push(t);
                    }
                }
            }
            seen
        })
        .collect();
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut placed = std::collections::BTreeSet::new();
    for a in 0..graph.len() {
        if placed.contains(&a) || !reach[a].contains(&a) {
            continue;
        }
        let part: Vec<usize> = (0..graph.len())
            .filter(|&b| reach[a].contains(&b) && reach[b].contains(&a))
            .collect();
        placed.extend(part.iter().copied());
        let mut names: Vec<String> = part.iter().map(|&i| graph[i].0.clone()).collect();
        names.sort();
        out.push(names);
    }
    out.sort();
    out
}

/// The terminal UI's components (one per pane or surface): a component never names
/// another, nor the app that composes them, nor the runtime.
const COMPONENTS: &[&str] = &["browser", "paper", "chat", "quick", "overlay", "input"];

/// The component (`browser`, `chat`, …) a `tui` module belongs to.
fn component(m: &str) -> Option<&str> {
    let first = m.strip_prefix("tui::")?.split("::").next()?;
    COMPONENTS.iter().find(|c| **c == first).copied()
}

/// Imports a component must not have: another component, the app, the runtime.
fn component_violations(graph: &[(String, Vec<String>)]) -> Vec<String> {
    let mut violations = Vec::new();
    for (m, named) in graph {
        let Some(mine) = component(m) else { continue };
        for n in named {
            let foreign = component(n).is_some_and(|o| o != mine);
            let composer = ["tui", "tui::headless"].contains(&n.as_str())
                || n.starts_with("tui::app")
                || n.starts_with("tui::runtime");
            if foreign || composer {
                violations.push(format!("{m} names {n}"));
            }
        }
    }
    violations
}

#[test]
fn a_tui_component_never_imports_another_and_only_the_app_composes() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = module_graph(&src);
    let violations = component_violations(&graph);
    assert!(
        violations.is_empty(),
        "component imports:\n{}",
        violations.join("\n")
    );
    // And the app does compose them: it names every component.
    let app: Vec<&String> = graph
        .iter()
        .filter(|(m, _)| m.starts_with("tui::app"))
        .flat_map(|(_, n)| n)
        .collect();
    for c in COMPONENTS {
        assert!(
            app.iter().any(|n| component(n) == Some(*c)),
            "the app does not compose tui::{c}"
        );
    }
}

#[test]
fn tui_modules_import_in_no_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = module_graph(&src);
    let tui: Vec<(String, Vec<String>)> = graph
        .into_iter()
        .filter(|(m, _)| m.starts_with("tui"))
        .collect();
    let found = circles(&tui);
    let into = |c: &Vec<String>| -> Vec<String> {
        tui.iter()
            .filter(|(m, _)| c.contains(m))
            .map(|(m, n)| {
                format!(
                    "{m} -> {:?}",
                    n.iter().filter(|x| c.contains(x)).collect::<Vec<_>>()
                )
            })
            .collect()
    };
    let shown: Vec<Vec<String>> = found.iter().map(into).collect();
    assert!(found.is_empty(), "import circles in src/tui: {shown:#?}");
}

#[test]
fn the_graph_sees_groups_children_and_circles() {
    let paths = paths_after("use crate::tui::{browser, chat::{Chat, view}};", "crate::");
    assert_eq!(
        paths,
        vec![
            vec!["tui", "browser"],
            vec!["tui", "chat", "Chat"],
            vec!["tui", "chat", "view"]
        ]
    );
    let g = |edges: &[(&str, &[&str])]| -> Vec<(String, Vec<String>)> {
        edges
            .iter()
            .map(|(m, to)| (m.to_string(), to.iter().map(|t| t.to_string()).collect()))
            .collect()
    };
    assert_eq!(
        circles(&g(&[
            ("a", &["b"]),
            ("b", &["c"]),
            ("c", &["a"]),
            ("d", &["a"])
        ])),
        vec![vec!["a".to_string(), "b".into(), "c".into()]]
    );
    assert!(circles(&g(&[("a", &["b"]), ("b", &[])])).is_empty());

    // On files: a parent naming its child and the child its parent is a circle; a pane
    // naming another pane is a violation, a shared module is not.
    let dir = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write(
        "tui/mod.rs",
        "pub mod app; pub mod chat; pub mod paper; pub mod text;",
    );
    write("tui/app/mod.rs", "pub mod view;\nfn f() { view::draw() }");
    write("tui/app/view.rs", "use super::AppState;");
    write("tui/chat/mod.rs", "use crate::tui::{paper::Paper, text};");
    write(
        "tui/paper/mod.rs",
        "use super::text::wrap;\n#[cfg(test)]\nmod tests { use super::*; }",
    );
    write("tui/text.rs", "");
    // Siblings in a circle through their parent's re-export: seen as the siblings'.
    write(
        "ctx/mod.rs",
        "pub mod grant;\npub mod tools;\npub use grant::Grant;\npub(crate) use tools::{seal, Other};",
    );
    write("ctx/grant.rs", "fn g() { crate::ctx::seal() }");
    write("ctx/tools.rs", "use super::Grant;");
    let graph = module_graph(dir.path());
    let found = circles(&graph);
    assert_eq!(
        found,
        vec![
            vec!["ctx::grant".to_string(), "ctx::tools".into()],
            vec!["tui::app".to_string(), "tui::app::view".into()]
        ]
    );
    assert!(!is_family(&found[0]));
    assert_eq!(
        component_violations(&graph),
        vec!["tui::chat names tui::paper".to_string()]
    );
}

/// Files whose length is their data, not their logic: the demo vault's paper texts, the
/// PDF engine's encoding tables.
const LONG_FILES: &[&str] = &[
    "src/vault/demo/papers.rs",
    "crates/agentero-pdf/src/encodings.rs",
];
const MAX_FN_LINES: usize = 150;
/// Debt: what is over the limits, at its size when it was listed (none today). A listed one
/// may only shrink; one that fits the limits must leave the list; nothing new may join it.
const OVER_FN: &[(&str, &str, usize)] = &[];
const OVER_FILE: &[(&str, usize)] = &[];
/// Shared tui modules that may name a component: none (the shot key an effect carries lives in
/// `tui::shot`). An entry here is debt, listed with the module it names.
const KNOWN_SHARED: &[(&str, &str)] = &[];
/// Debt: import circles still to open, each as its sorted modules (none today).
const KNOWN_CIRCLES: &[&[&str]] = &[];
const MAX_FILE_LINES: usize = 700;

/// Strings, characters and comments blanked out (each keeps its lines), so braces and `fn`
/// inside them do not count.
fn blank_literals(text: &str) -> String {
    let b: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let keep_newlines = |s: &[char], out: &mut String| {
        for c in s {
            out.push(if *c == '\n' { '\n' } else { ' ' });
        }
    };
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            let end = (i..b.len()).find(|&j| b[j] == '\n').unwrap_or(b.len());
            keep_newlines(&b[i..end], &mut out);
            i = end;
        } else if c == '/' && next == Some('*') {
            let mut j = i + 2;
            while j + 1 < b.len() && !(b[j] == '*' && b[j + 1] == '/') {
                j += 1;
            }
            let end = (j + 2).min(b.len());
            keep_newlines(&b[i..end], &mut out);
            i = end;
        } else if c == 'r'
            && (next == Some('"') || next == Some('#'))
            && (i == 0 || !(b[i - 1].is_alphanumeric() || b[i - 1] == '_'))
        {
            // A raw string r"…" or r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|h| b.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            keep_newlines(&b[i..j.min(b.len())], &mut out);
            i = j.min(b.len());
        } else if c == '"' {
            let mut j = i + 1;
            while j < b.len() && b[j] != '"' {
                if b[j] == '\\' {
                    j += 1;
                }
                j += 1;
            }
            let end = (j + 1).min(b.len());
            keep_newlines(&b[i..end], &mut out);
            i = end;
        } else if c == '\'' {
            // A character literal ('x', '\n', '\u{..}', '{'); a lifetime has no closing quote.
            let close = if next == Some('\\') {
                (i + 2..b.len().min(i + 12)).find(|&j| b[j] == '\'')
            } else if b.get(i + 2) == Some(&'\'') {
                Some(i + 2)
            } else {
                None
            };
            match close {
                Some(end) => {
                    keep_newlines(&b[i..=end], &mut out);
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The lines that count for a file's size: everything before its unit tests (a top-level
/// `#[cfg(test)]`); a file named `tests.rs` is all tests.
fn non_test_lines(path: &Path, text: &str) -> usize {
    if path.file_name().is_some_and(|n| n == "tests.rs") {
        return 0;
    }
    text.lines()
        .position(|l| l.starts_with("#[cfg(test)]"))
        .unwrap_or_else(|| text.lines().count())
}

/// Every function longer than `max` lines (signature to closing brace): (name, first line, lines).
fn long_functions(text: &str, max: usize) -> Vec<(String, usize, usize)> {
    let code = blank_literals(text);
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let Some(name) = fn_name(line) else { continue };
        let mut depth = 0i32;
        let mut opened = false;
        let mut end = None;
        'scan: for (j, l) in lines.iter().enumerate().skip(at) {
            for ch in l.chars() {
                match ch {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    ';' if !opened && depth == 0 => break 'scan,
                    _ => {}
                }
                if opened && depth == 0 {
                    end = Some(j);
                    break 'scan;
                }
            }
        }
        if let Some(end) = end
            && end - at + 1 > max
        {
            out.push((name, at + 1, end - at + 1));
        }
    }
    out
}

/// The name of the function a line declares, if it does.
fn fn_name(line: &str) -> Option<String> {
    let mut words = line.split_whitespace().peekable();
    while let Some(w) = words.peek() {
        let w = *w;
        let qualifier = w == "pub"
            || w.starts_with("pub(")
            || ["async", "const", "unsafe", "extern", "\"C\"", "default"].contains(&w);
        if !qualifier {
            break;
        }
        words.next();
    }
    if words.next()? != "fn" {
        return None;
    }
    let rest = words.next()?;
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(name)
}

/// Every Rust file of the app and of the workspace's crates (not their tests or benches).
fn sources() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    for entry in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        rust_files(&entry.path().join("src"), &mut files);
    }
    files.sort();
    files
}

fn relative(p: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    p.strip_prefix(root).unwrap_or(p).display().to_string()
}

#[test]
fn no_function_is_over_150_lines() {
    let mut long = Vec::new();
    for f in sources() {
        let text = std::fs::read_to_string(&f).unwrap();
        let counted = non_test_lines(&f, &text);
        let head: String = text.lines().take(counted).collect::<Vec<_>>().join("\n");
        let rel = relative(&f);
        let found = long_functions(&head, MAX_FN_LINES);
        for (name, at, n) in &found {
            let listed = OVER_FN.iter().find(|(p, f, _)| *p == rel && f == name);
            if listed.is_none_or(|(_, _, was)| n > was) {
                long.push(format!("{rel}:{at} fn {name}: {n} lines"));
            }
        }
        for (p, name, _) in OVER_FN.iter().filter(|(p, ..)| *p == rel) {
            if !found.iter().any(|(n, ..)| n == name) {
                long.push(format!("{p} fn {name} fits now: take it off OVER_FN"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FN_LINES} lines (split them by step):\n{}",
        long.join("\n")
    );
}

#[test]
fn no_file_is_over_700_lines() {
    let mut long = Vec::new();
    for f in sources() {
        let rel = relative(&f);
        if LONG_FILES.contains(&rel.as_str()) {
            continue;
        }
        let n = non_test_lines(&f, &std::fs::read_to_string(&f).unwrap());
        let listed = OVER_FILE.iter().find(|(p, _)| *p == rel);
        if n > MAX_FILE_LINES && listed.is_none_or(|(_, was)| n > *was) {
            long.push(format!("{rel}: {n} lines"));
        }
        if n <= MAX_FILE_LINES && listed.is_some() {
            long.push(format!("{rel} fits now ({n} lines): take it off OVER_FILE"));
        }
    }
    assert!(
        long.is_empty(),
        "files over {MAX_FILE_LINES} non-test lines (split them by job, or list data in LONG_FILES):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_size_checks_see_functions_and_tests() {
    let body = "    let x = 1;\n".repeat(160);
    let text = format!(
        "pub(crate) async fn long() {{\n{body}}}\nfn short() {{ let s = \"}}\"; let c = '{{'; }}\n\
         fn decl();\nimpl X {{\n    const fn inner<'a>(x: &'a str) {{\n{body}    }}\n}}\n"
    );
    let found = long_functions(&text, 150);
    assert_eq!(
        found,
        vec![
            ("long".to_string(), 1, 162),
            ("inner".to_string(), 166, 162)
        ]
    );
    assert!(long_functions("fn f() { r#\"{\"# ; /* } */ }\n", 0).len() == 1);
    let file = "fn a() {}\n#[cfg(test)]\nmod tests {}\n";
    assert_eq!(non_test_lines(Path::new("x.rs"), file), 1);
    assert_eq!(non_test_lines(Path::new("src/tests.rs"), file), 0);
}

/// No module imports another that imports it back, across the whole crate: sibling modules
/// (`vault::index` ↔ `vault::ranking`) and modules of different folders alike. A folder's
/// `mod.rs` and its own children are one unit here (a child reading its parent's types is
/// how Rust modules work); `tui` keeps the stricter rule of `tui_modules_import_in_no_circle`.
#[test]
fn no_modules_import_in_a_circle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The app's modules as they are named (`context::grant`), each workspace crate's after its
    // folder (`agentero-pdf: content`).
    let mut all: Vec<Vec<String>> = Vec::new();
    let mut srcs = vec![(String::new(), root.join("src"))];
    for c in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        let name = c.file_name().to_string_lossy().into_owned();
        srcs.push((format!("{name}: "), c.path().join("src")));
    }
    for (label, src) in srcs {
        let graph = module_graph(&src);
        all.extend(
            circles(&graph)
                .into_iter()
                .filter(|c| !is_family(c))
                .map(|c| c.into_iter().map(|m| format!("{label}{m}")).collect()),
        );
    }
    let known = |c: &Vec<String>| KNOWN_CIRCLES.iter().any(|k| k.iter().eq(c.iter()));
    let found: Vec<&Vec<String>> = all.iter().filter(|c| !known(c)).collect();
    assert!(found.is_empty(), "import circles: {found:#?}");
    let opened: Vec<&&[&str]> = KNOWN_CIRCLES
        .iter()
        .filter(|k| !all.iter().any(|c| k.iter().eq(c.iter())))
        .collect();
    assert!(
        opened.is_empty(),
        "circles opened since: take them off KNOWN_CIRCLES: {opened:?}"
    );
}

/// A circle made only of a module and its own descendants (`acp` and `acp::turn`): a child
/// reading its parent's own items. (Names the parent only re-exports from a child are that
/// child's in [`module_graph`], so two siblings cannot hide behind their parent.)
fn is_family(circle: &[String]) -> bool {
    let top = circle.iter().min_by_key(|m| m.len()).unwrap();
    circle
        .iter()
        .all(|m| m == top || m.starts_with(&format!("{top}::")))
}

/// The shared modules of the terminal UI (text, widgets, theme, keymap …) serve every
/// component and never name one.
#[test]
fn shared_tui_modules_name_no_component() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = module_graph(&src);
    let mut violations = Vec::new();
    for (m, named) in &graph {
        let shared = m.starts_with("tui::")
            && component(m).is_none()
            && !m.starts_with("tui::app")
            && !m.starts_with("tui::runtime")
            && m != "tui::headless";
        if !shared {
            continue;
        }
        for n in named.iter().filter(|n| component(n).is_some()) {
            if !KNOWN_SHARED.contains(&(m.as_str(), n.as_str())) {
                violations.push(format!("{m} names {n}"));
            }
        }
    }
    for (m, n) in KNOWN_SHARED {
        if !graph
            .iter()
            .any(|(g, named)| g == m && named.iter().any(|x| x == n))
        {
            violations.push(format!("{m} no longer names {n}: take it off KNOWN_SHARED"));
        }
    }
    assert!(
        violations.is_empty(),
        "shared tui modules naming a component:\n{}",
        violations.join("\n")
    );
}

/// The code cites only what the repository holds: no planning documents that live elsewhere.
#[test]
fn the_code_cites_no_document_outside_the_repository() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = sources();
    for dir in ["tests", "benches"] {
        rust_files(&root.join(dir), &mut files);
    }
    let mut offenders = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            if [
                concat!("SPEC", ".md"),
                concat!("DESIGN", ".md"),
                concat!("shared", "/notes"),
                concat!("(", "SPEC"),
                concat!("SPEC", " §"),
                concat!("the ", "SPEC"),
            ]
            .iter()
            .any(|d| line.contains(d))
            {
                offenders.push(format!("{}:{}: {}", relative(&f), i + 1, line.trim()));
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "citations of documents not in the repository:\n{}",
        offenders.join("\n")
    );
}

/// Where `needle` occurs in the code (not comments, not unit tests) of `src/`, outside `owner`.
fn code_outside(needle: &str, owner: &str, skip: &[&str]) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &mut files,
    );
    let mut found = Vec::new();
    for f in files {
        let rel = relative(&f);
        if rel == owner {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        let counted = non_test_lines(&f, &text);
        let head: String = text.lines().take(counted).collect::<Vec<_>>().join("\n");
        for (n, line) in code_of(&head).lines().enumerate() {
            let mut rest = line;
            while let Some(at) = rest.find(needle) {
                let before = rest[..at].trim_end();
                if !skip.iter().any(|s| before.ends_with(s)) {
                    found.push(format!("{rel}:{}: {}", n + 1, line.trim()));
                }
                rest = &rest[at + needle.len()..];
            }
        }
    }
    found
}

/// A paper's record is built in one place (`vault::extract::record`: the indexer, the paper
/// pane before indexing, the context tools), and the boxes of a text on a page are found in
/// one place (`vault::boxes::text_boxes`: a quote on a page image, a highlight's rectangles).
#[test]
fn a_paper_record_and_a_text_s_boxes_each_have_one_owner() {
    let mut twice = code_outside("PaperRecord {", "src/vault/extract.rs", &["struct", "impl"]);
    twice.extend(code_outside("pdf::extract(", "src/vault/extract.rs", &[]));
    twice.extend(code_outside(".rects(", "src/vault/boxes.rs", &[]));
    assert!(
        twice.is_empty(),
        "built outside their owner:\n{}",
        twice.join("\n")
    );
    let seen = code_outside(".rects(", "src/vault/extract.rs", &[]);
    assert!(
        seen.iter().any(|s| s.starts_with("src/vault/boxes.rs")),
        "the checker sees the owner's own call: {seen:?}"
    );
}

/// The names a Markdown text gives in code (inline spans and fenced blocks), split into words:
/// `vault/boxes.rs` gives `vault`, `boxes` and `rs`.
fn code_words(markdown: &str) -> std::collections::BTreeSet<String> {
    let mut words = std::collections::BTreeSet::new();
    let mut in_code = false;
    let mut word = String::new();
    for c in markdown.chars() {
        if c == '`' {
            in_code = !in_code;
        }
        if in_code && (c.is_alphanumeric() || c == '_') {
            word.push(c);
        } else if !word.is_empty() {
            words.insert(std::mem::take(&mut word));
        }
    }
    words
}

/// The modules of `src/` and of each folder directly under it (files and folders; `mod.rs`
/// and `tests.rs` are their folder's) that `named` does not hold, as paths under `src/`.
fn unnamed_modules(
    src: &Path,
    named: &std::collections::BTreeSet<String>,
    depth: usize,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(src)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        let name = p.file_name().unwrap().to_string_lossy().to_string();
        let module = if p.is_dir() {
            name.clone()
        } else if let Some(stem) = name.strip_suffix(".rs") {
            stem.to_string()
        } else {
            continue;
        };
        if module == "mod" || module == "tests" {
            continue;
        }
        if !named.contains(&module) {
            out.push(relative(&p).trim_start_matches("src/").to_string());
        }
        if p.is_dir() && depth > 1 {
            out.extend(unnamed_modules(&p, named, depth - 1));
        }
    }
    out
}

/// `ARCHITECTURE.md` names every module of `src/`, at any depth, in its code spans: a module
/// added without its line there fails here.
#[test]
fn architecture_md_names_every_module() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("ARCHITECTURE.md")).unwrap();
    let named = code_words(&doc);
    let src = root.join("src");
    let missing = unnamed_modules(&src, &named, 8);
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md does not name these modules (say on which floor they are and what \
         they own):\n{}",
        missing.join("\n")
    );
    // The check sees a module the document leaves out, on each level, and only in code.
    for (gone, path) in [
        ("viewer", "viewer.rs"),
        ("boxes", "vault/boxes.rs"),
        ("thread", "tui/thread"),
    ] {
        let mut less = named.clone();
        assert!(less.remove(gone), "{gone}");
        assert_eq!(unnamed_modules(&src, &less, 2), vec![path.to_string()]);
    }
    let prose = code_words("the viewer, and `vault/boxes.rs`");
    assert!(
        prose.contains("boxes") && !prose.contains("viewer"),
        "{prose:?}"
    );
}
