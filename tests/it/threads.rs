//! `agentero threads` over threads written by real `agentero ask` turns of the built-in agent on
//! the demo vault: found by the paper or page their answers cited, by words of their questions
//! and answers, listed most recent first, with the matching turn; the agents' and users' text
//! never reaches the terminal raw.

use crate::common;

use std::path::Path;
use std::time::Duration;

use agentero::vault::Vault;
use agentero::vault::indexer::{IndexOptions, index_vault};
use serde_json::Value;

fn ask(root: &Path, args: &[&str]) -> Value {
    let mut cmd = common::command(root);
    cmd.args(["ask", "--json"]).args(args);
    let out = common::output_within(cmd, Duration::from_secs(120));
    assert!(out.status.success(), "{}", common::stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn threads(root: &Path, args: &[&str]) -> std::process::Output {
    let mut cmd = common::command(root);
    cmd.arg("threads").args(args);
    common::output_within(cmd, Duration::from_secs(60))
}

fn threads_json(root: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = threads(root, &all);
    assert!(out.status.success(), "{}", common::stderr(&out));
    serde_json::from_slice::<Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn ids(hits: &[Value]) -> Vec<String> {
    hits.iter()
        .map(|h| h["threadId"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn threads_are_found_by_cited_paper_and_page_and_by_their_words() {
    let dir = common::demo_vault();
    let root = dir.path();
    let vault = Vault::open(root).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let halvorsen = "papers/halvorsen2009-passages/paper.pdf";
    let layout = "papers/layoutflow/paper.pdf";
    let a = ask(root, &[&format!("What window size is used? @{halvorsen}")]);
    let a_id = a["threadId"].as_str().unwrap().to_string();
    // A second turn in the same thread, about something else.
    ask(
        root,
        &[
            "--thread",
            &a_id,
            &format!("How are gutters detected? @{layout}"),
        ],
    );
    let b = ask(
        root,
        &[&format!("How is the reading order recovered? @{layout}")],
    );
    let b_id = b["threadId"].as_str().unwrap().to_string();

    // By paper: the thread whose answer cited it, at the turn that cited it.
    let by_paper = threads_json(root, &["--cites", halvorsen]);
    assert_eq!(ids(&by_paper), vec![a_id.clone()]);
    assert_eq!(by_paper[0]["turns"][0]["number"], 1);
    // By page: exactly the page an answer cited.
    let cited: Vec<String> = a["cited"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap().to_string())
        .collect();
    let page = cited.first().expect("the answer cites a page");
    assert_eq!(
        ids(&threads_json(root, &["--cites", page])),
        vec![a_id.clone()]
    );
    assert!(threads_json(root, &["--cites", &format!("{halvorsen}#page=99")]).is_empty());
    // Both threads cited the layout paper: most recent first, each at its turn.
    let by_layout = threads_json(root, &["--cites", layout]);
    assert_eq!(ids(&by_layout), vec![b_id.clone(), a_id.clone()]);
    assert_eq!(by_layout[1]["turns"][0]["number"], 2);
    // A folder covers every paper under it.
    assert_eq!(threads_json(root, &["--cites", "papers/"]).len(), 2);

    // Full text: words of the questions and the answers, all of them, any case.
    let by_words = threads_json(root, &["--search", "WINDOW size"]);
    assert_eq!(ids(&by_words), vec![a_id.clone()]);
    // The snippet shows the answer where the words are (the question is listed apart).
    let snippet = by_words[0]["turns"][0]["snippet"]
        .as_str()
        .unwrap()
        .to_lowercase();
    assert!(
        snippet.contains("window") || snippet.contains("size"),
        "{snippet}"
    );
    assert!(!snippet.contains("what window size is used"), "{snippet}");
    assert_eq!(
        ids(&threads_json(root, &["--search", "reading order"])),
        vec![b_id.clone()]
    );
    assert!(threads_json(root, &["--search", "window", "--cites", layout]).is_empty());

    // Text mode, and a listing of everything.
    let out = threads(root, &["--cites", page]);
    let text = common::stdout(&out);
    assert!(
        text.contains(&a_id) && text.contains("turn 1:") && text.contains(page),
        "{text}"
    );
    assert_eq!(threads_json(root, &[]).len(), 2);
    // A bad argument is an error that says what is expected.
    let bad = threads(root, &["--cites", "https://doi.org/10.1/x"]);
    assert!(!bad.status.success());
    assert!(
        common::stderr(&bad).contains("citation URI"),
        "{}",
        common::stderr(&bad)
    );
}

#[test]
fn control_characters_of_threads_never_reach_the_terminal() {
    let dir = common::demo_vault();
    let root = dir.path();
    let vault = Vault::open(root).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    ask(
        root,
        &["What is the reading order\u{1b}[2J\u{7}? @papers/layoutflow/paper.pdf"],
    );
    for args in [&[][..], &["--search", "reading"][..]] {
        let out = threads(root, args);
        assert!(out.status.success());
        let text = common::stdout(&out);
        assert!(text.contains("reading order"), "{text}");
        assert!(
            !text.chars().any(|c| c.is_control() && c != '\n'),
            "raw control characters in {text:?}"
        );
    }
}

/// Every file under `dir`, at any depth.
fn files_under(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if e.file_type().is_ok_and(|t| t.is_dir()) {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Each line of a JSONL file, parsed (a line that is not JSON fails the test).
fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("{}: {e}: {l:?}", path.display()))
        })
        .collect()
}

/// Text that reaches a file is data: paper folders named like shell code (`$(touch PWNED)x`),
/// with quotes, and with a newline and backticks, mentioned in a real turn and read through the
/// vault MCP, end up as JSON strings in the transcript and the usage logs — nothing runs and
/// nothing is written outside the vault.
#[test]
fn shell_metacharacters_in_mentioned_names_stay_data() {
    let demo = common::demo_vault();
    let scratch = tempfile::tempdir().unwrap();
    let root = scratch.path().join("vault");
    let names = [
        "$(touch PWNED)x",
        "say \"hi\" it's",
        "new\nline `touch PWNED2`",
    ];
    let pdf = demo.path().join("papers/halvorsen2009-passages/paper.pdf");
    for n in names {
        std::fs::create_dir_all(root.join("papers").join(n)).unwrap();
        std::fs::copy(&pdf, root.join("papers").join(n).join("paper.pdf")).unwrap();
    }
    let vault = Vault::open(&root).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let question = "What window size is used?\n\"quoted\" 'too' \\ $HOME \
                    @papers/$(touch%20PWNED)x/paper.pdf @papers/say%20\"hi\"%20it's/paper.pdf @papers/";
    let a = ask(&root, &[question]);
    let id = a["threadId"].as_str().unwrap();

    // The transcript: every line JSON, the question kept as typed, the names as strings.
    let lines = jsonl(
        &root
            .join(".agentero/chats")
            .join(id)
            .join("transcript.jsonl"),
    );
    let all = serde_json::to_string(&lines).unwrap();
    let user = lines.iter().find(|l| l["kind"] == "user");
    assert_eq!(
        user.map(|u| &u["text"]),
        Some(&Value::from(question)),
        "{all}"
    );
    assert!(all.contains("PWNED"), "{all}");

    // The context tools' usage lines: JSON, and the cited names among them.
    let usage: Vec<_> = files_under(&root.join(".agentero/context-sessions"))
        .into_iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "usage.jsonl"))
        .collect();
    assert!(!usage.is_empty());
    let used: Vec<Value> = usage.iter().flat_map(|p| jsonl(p)).collect();
    assert!(!used.is_empty());
    assert!(
        serde_json::to_string(&used).unwrap().contains("PWNED"),
        "{used:?}"
    );

    // The vault MCP over stdio: a read of each folder's paper, logged with the path as data.
    let mut cmd = common::command(&root);
    cmd.args(["serve", "--stdio"]).arg(&root);
    cmd.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut input = String::from(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"$(touch PWNED3)","version":"1"}}}"#,
    );
    input.push('\n');
    input.push_str(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    input.push('\n');
    for (i, n) in names.iter().enumerate() {
        let call = serde_json::json!({"jsonrpc": "2.0", "id": i + 2, "method": "tools/call",
            "params": {"name": "paper_read", "arguments": {"path": format!("papers/{n}/paper.pdf")}}});
        input.push_str(&call.to_string());
        input.push('\n');
    }
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, input.as_bytes()).unwrap();
    let out = std::thread::spawn(move || {
        let mut s = String::new();
        let mut r = std::io::BufReader::new(child.stdout.take().unwrap());
        // Three answers after the initialize one, then close stdin to end the server.
        for _ in 0..4 {
            let mut line = String::new();
            if std::io::BufRead::read_line(&mut r, &mut line).unwrap_or(0) == 0 {
                break;
            }
            s.push_str(&line);
        }
        (child, s)
    });
    let (mut child, answers) = out.join().unwrap();
    drop(stdin);
    let _ = child.wait();
    assert_eq!(answers.lines().count(), 4, "{answers}");
    let served = jsonl(&root.join(".agentero/serve/usage.jsonl"));
    let paths: Vec<&str> = served
        .iter()
        .flat_map(|l| l["paths"].as_array().into_iter().flatten())
        .filter_map(Value::as_str)
        .collect();
    for n in names {
        assert!(
            paths.contains(&format!("papers/{n}/paper.pdf").as_str()),
            "{paths:?}"
        );
    }
    assert!(
        served.iter().all(|l| l["client"] == "$(touch PWNED3)"),
        "{served:?}"
    );

    // Nothing ran: no PWNED file in the vault, beside it, in the private HOME, or in the cwd.
    let stray: Vec<_> = files_under(scratch.path())
        .into_iter()
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("PWNED"))
        })
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
    for n in ["PWNED", "PWNED2", "PWNED3"] {
        assert!(!Path::new(n).exists(), "{n} in the test's folder");
    }
}

#[test]
fn the_csl_validator_refuses_what_the_schema_refuses() {
    let good = serde_json::json!([{"id": "a", "type": "article", "author": [{"family": "X", "given": "Y"}], "issued": {"date-parts": [[2009]]}}]);
    assert_eq!(common::csl::csl_errors(&good), Vec::<String>::new());
    for bad in [
        serde_json::json!([{"type": "article"}]),
        serde_json::json!([{"id": "a", "type": "preprint-ish"}]),
        serde_json::json!([{"id": "a", "type": "article", "author": [{"surname": "X"}]}]),
        serde_json::json!([{"id": "a", "type": "article", "issued": {"date-parts": [[2009, 1, 2, 3]]}}]),
        serde_json::json!([{"id": "a", "type": "article", "made-up": 1}]),
        serde_json::json!({"id": "a", "type": "article"}),
    ] {
        assert!(!common::csl::csl_errors(&bad).is_empty(), "{bad} passed");
    }
}

/// The papers a thread's answers cited, out as BibTeX (parsed back by biblatex, the crate
/// `y b` writes with) and as CSL-JSON (valid against the CSL schema), keyed alike; a thread
/// id prefix is enough, an unknown one is refused.
#[test]
fn a_threads_cited_papers_export_as_bibtex_and_csl_json() {
    let dir = common::demo_vault();
    let root = dir.path();
    let vault = Vault::open(root).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let halvorsen = "papers/halvorsen2009-passages/paper.pdf";
    let layout = "papers/layoutflow/paper.pdf";
    let a = ask(root, &[&format!("What window size is used? @{halvorsen}")]);
    let id = a["threadId"].as_str().unwrap().to_string();
    ask(
        root,
        &[
            "--thread",
            &id,
            &format!("How are gutters detected? @{layout}"),
        ],
    );
    let out = threads(root, &["--export", "bibtex", &id[..8]]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let bib = String::from_utf8(out.stdout).unwrap();
    let parsed = biblatex::Bibliography::parse(&bib).unwrap_or_else(|e| panic!("{e:?}\n{bib}"));
    assert_eq!(parsed.len(), 2, "{bib}");
    let keys: Vec<String> = parsed.iter().map(|e| e.key.clone()).collect();
    assert!(keys[0].starts_with("halvorsen2009"), "{keys:?}");
    for e in parsed.iter() {
        assert!(e.title().is_ok(), "{bib}");
        assert!(e.author().is_ok_and(|a| !a.is_empty()), "{bib}");
    }

    let file = root.join("out.json");
    let out = threads(
        root,
        &[
            "--export",
            "csljson",
            &id,
            "--output",
            file.to_str().unwrap(),
        ],
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(
        common::stderr(&out).contains("2 papers"),
        "{}",
        common::stderr(&out)
    );
    let csl: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(
        common::csl::csl_errors(&csl),
        Vec::<String>::new(),
        "{csl:#}"
    );
    let ids: Vec<&str> = csl
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, keys, "the same keys in both formats");
    assert_eq!(csl[0]["source"], halvorsen);

    let out = threads(root, &["--export", "bibtex", "nosuchthread"]);
    assert!(!out.status.success());
    assert!(
        common::stderr(&out).contains("no thread"),
        "{}",
        common::stderr(&out)
    );
    // --export needs a thread.
    assert!(!threads(root, &["--export", "bibtex"]).status.success());
}
