//! `agentero ask` end to end with the built-in agent on the demo vault, as real processes:
//! quotes really on the cited page, sources equal to `usage.jsonl`, resume by fingerprint,
//! a new session seeded once with the prior conversation, and a remote agent on the warm pool.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use agentero::context::grant;
use agentero::vault::Vault;
use agentero::vault::indexer::{IndexOptions, index_vault};
use serde_json::Value;

const QUESTION: &str = "What is the reading order of a page? @papers/layoutflow/paper.pdf @papers/reading-machines-survey/paper.pdf";

struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = common::demo_vault();
        let vault = Vault::open(dir.path()).unwrap();
        index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
        Fixture { dir }
    }
    fn root(&self) -> &Path {
        self.dir.path()
    }
    fn vault(&self) -> Vault {
        Vault::open(self.root()).unwrap()
    }
    fn ask(&self, args: &[&str]) -> Output {
        let home = self.root().join(".agentero-test-home");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentero"));
        cmd.arg("ask")
            .arg("--vault")
            .arg(self.root())
            .args(args)
            .env("HOME", &home)
            .env("XDG_DATA_HOME", home.join("data"))
            .env("XDG_CONFIG_HOME", home.join("config"))
            .env_remove("AGENTERO_BUILTIN_FAULT");
        common::output_within(cmd, Duration::from_secs(120))
    }
    fn ask_json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let out = self.ask(&all);
        assert!(
            out.status.success(),
            "ask failed: {}\n{}",
            common::stderr(&out),
            common::stdout(&out)
        );
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", common::stdout(&out)))
    }
    fn session_dir(&self, runtime: &str) -> PathBuf {
        self.root().join(".agentero/context-sessions").join(runtime)
    }
    fn state(&self, thread: &str) -> Value {
        let p = self
            .root()
            .join(".agentero/chats")
            .join(thread)
            .join("state.json");
        serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
    }
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

fn flat(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `> "quote" — uri` lines of an answer.
fn quotes(answer: &str) -> Vec<(String, String)> {
    answer
        .lines()
        .filter_map(|l| {
            let l = l.strip_prefix("> \"")?;
            let (q, uri) = l.rsplit_once("\" — ")?;
            Some((q.to_string(), uri.to_string()))
        })
        .collect()
}

#[test]
fn answers_quote_the_cited_pages_and_sources_are_the_usage_lines() {
    let f = Fixture::new();
    let v = f.ask_json(&[QUESTION]);
    assert_eq!(v["mode"], "mcp");
    assert_eq!(v["session"], "new");
    assert_eq!(v["attached"], true);
    assert_eq!(v["stopReason"], "end_turn");
    let answer = v["answer"].as_str().unwrap();
    let qs = quotes(answer);
    assert!(!qs.is_empty(), "no quotes in: {answer}");
    let vault = f.vault();
    let index = vault.open_index().unwrap();
    let mut on_pages = 0;
    for (q, uri) in &qs {
        let (path, frag) = uri.split_once('#').expect("a fragment");
        let text = if let Some(page) = frag.strip_prefix("page=") {
            on_pages += 1;
            let doc = index
                .page(path, page.parse().unwrap())
                .unwrap()
                .expect("the page is indexed");
            doc.text
        } else {
            std::fs::read_to_string(f.root().join(path)).unwrap()
        };
        assert!(
            flat(&text).contains(q.as_str()),
            "quote {q:?} is not on {uri}"
        );
        assert!(
            q.to_lowercase().contains("reading") || q.to_lowercase().contains("order"),
            "{q}"
        );
    }
    assert!(on_pages > 0, "paper pages come first: {answer}");

    // Sources are exactly the URIs the context server logged for this turn (no evidence here).
    let state = f.state(v["threadId"].as_str().unwrap());
    let runtime = state["runtimeId"].as_str().unwrap();
    let files = grant::GrantFiles::of_grant(&f.session_dir(runtime).join("grant.json"));
    let g = grant::read(&files.grant()).unwrap();
    let mut logged: Vec<String> = Vec::new();
    for u in grant::read_usage(&files.usage())
        .into_iter()
        .filter(|u| u.turn_id == g.turn_id)
    {
        for uri in u.citation_uris {
            if !logged.contains(&uri) {
                logged.push(uri);
            }
        }
    }
    assert!(!logged.is_empty());
    assert_eq!(strings(&v["sources"]), logged);
    for (_, uri) in &qs {
        assert!(
            logged.contains(uri),
            "a quoted URI {uri} is among the sources"
        );
    }
    // The transcript has the turn: user, tool one-liners, answer, sources, end.
    let t = std::fs::read_to_string(
        f.root()
            .join(".agentero/chats")
            .join(v["threadId"].as_str().unwrap())
            .join("transcript.jsonl"),
    )
    .unwrap();
    for kind in [
        "\"user\"",
        "\"tool\"",
        "\"agent\"",
        "\"sources\"",
        "\"end\"",
    ] {
        assert!(
            t.contains(&format!("\"kind\":{kind}")),
            "transcript lacks {kind}:\n{t}"
        );
    }
    assert!(
        t.contains("context_search \\\"reading order page\\\""),
        "{t}"
    );
}

#[test]
fn same_mentions_resume_and_a_new_mention_starts_a_seeded_session() {
    let f = Fixture::new();
    let first = f.ask_json(&[QUESTION]);
    let thread = first["threadId"].as_str().unwrap().to_string();
    let s1 = first["sessionId"].as_str().unwrap().to_string();

    let second = f.ask_json(&["--thread", &thread, "And what about layout columns? @papers/layoutflow/paper.pdf @papers/reading-machines-survey/paper.pdf"]);
    assert_eq!(second["session"], "resumed");
    assert_eq!(second["sessionId"], s1.as_str());
    assert_eq!(second["fingerprint"], first["fingerprint"]);

    let third = f.ask_json(&["--thread", &thread, "Which notes discuss reading order? @papers/layoutflow/paper.pdf @papers/reading-machines-survey/paper.pdf @notes/"]);
    assert_eq!(third["session"], "new");
    assert_ne!(third["sessionId"], s1.as_str());
    assert_ne!(third["fingerprint"], first["fingerprint"]);
    let state = f.state(&thread);
    assert_eq!(state["sessionId"], third["sessionId"]);
    let fourth = f.ask_json(&["--thread", &thread, "Anything on tokenisation? @papers/layoutflow/paper.pdf @papers/reading-machines-survey/paper.pdf @notes/"]);
    assert_eq!(fourth["session"], "resumed");
    assert_eq!(fourth["sessionId"], third["sessionId"]);

    // What the new session received: the prior conversation exactly once, in its first prompt.
    let runtime = state["runtimeId"].as_str().unwrap();
    let history =
        std::fs::read_to_string(f.session_dir(runtime).join("builtin-agent.jsonl")).unwrap();
    let prompts: Vec<String> = history
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["role"] == "user")
        .map(|l| l["text"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(prompts.len(), 2);
    let all = prompts.join("\n");
    assert_eq!(
        all.matches("What is the reading order of a page?").count(),
        1,
        "{all}"
    );
    assert_eq!(
        all.matches("And what about layout columns?").count(),
        1,
        "{all}"
    );
    assert!(prompts[0].contains("<prior-conversation>"));
    assert!(
        prompts[0].contains("because the granted sources changed"),
        "{}",
        prompts[0]
    );
    assert!(
        !prompts[1].contains("<prior-conversation>"),
        "a resumed session is not seeded again"
    );
}

/// The user prompts a session's built-in agent received.
fn prompts_of(f: &Fixture, thread: &str) -> Vec<String> {
    let state = f.state(thread);
    let runtime = state["runtimeId"].as_str().unwrap();
    let history =
        std::fs::read_to_string(f.session_dir(runtime).join("builtin-agent.jsonl")).unwrap();
    history
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["role"] == "user")
        .map(|l| l["text"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_session_that_cannot_be_reopened_is_not_said_to_have_new_sources() {
    let f = Fixture::new();
    let first = f.ask_json(&[QUESTION]);
    let thread = first["threadId"].as_str().unwrap().to_string();
    // The agent forgets the session (its record is gone): the resume is refused.
    let runtime = f.state(&thread)["runtimeId"].as_str().unwrap().to_string();
    std::fs::remove_file(f.session_dir(&runtime).join("builtin-agent.jsonl")).unwrap();
    let second = f.ask_json(&["--thread", &thread, QUESTION]);
    assert_eq!(second["session"], "new", "{second}");
    assert_eq!(second["fingerprint"], first["fingerprint"]);
    let prompts = prompts_of(&f, &thread);
    assert!(
        prompts[0].contains("because the earlier one could not be reopened"),
        "{}",
        prompts[0]
    );
    assert!(!prompts[0].contains("sources changed"), "{}", prompts[0]);
}

const HALVORSEN: &str = "papers/halvorsen2009-passages/paper.pdf";

fn first_quote(v: &Value) -> (String, String) {
    let answer = v["answer"].as_str().unwrap();
    quotes(answer)
        .into_iter()
        .next()
        .unwrap_or_else(|| panic!("no quote in {answer}"))
}

#[test]
fn the_builtin_agent_answers_the_kind_of_question_asked() {
    let f = Fixture::new();
    let ask = |q: &str| f.ask_json(&[&format!("{q} @{HALVORSEN}")]);
    // A number for "what size": the 150 words, not "window size matters".
    let v = ask("What window size is used?");
    let (q, _) = first_quote(&v);
    assert!(q.contains("150"), "{q}");
    // The answer leads with the value, then quotes its sentence (issue 37).
    let answer = v["answer"].as_str().unwrap();
    let lead = answer
        .find("The value: **150")
        .unwrap_or_else(|| panic!("no value lead in {answer}"));
    assert!(lead < answer.find("> \"").unwrap(), "{answer}");
    let (q, _) = first_quote(&ask("What is the main contribution of this paper?"));
    assert!(q.starts_with("Our contributions are"), "{q}");
    let (q, _) = first_quote(&ask("Which dataset do they evaluate on?"));
    assert!(
        q.contains("SciPassage-1K") || q.contains("test collection"),
        "{q}"
    );
    let (q, _) = first_quote(&ask("What are the limitations?"));
    assert!(
        q.contains("clean text") || q.contains("broken reading order"),
        "{q}"
    );
    // 2–4 quotes, each with its citation; "I could not find" only when nothing matches.
    let v = ask("How is each window scored?");
    let n = quotes(v["answer"].as_str().unwrap()).len();
    assert!((2..=4).contains(&n), "{v}");
    let v = ask("zebra migration in the arctic");
    assert!(
        v["answer"]
            .as_str()
            .unwrap()
            .starts_with("I could not find"),
        "{v}"
    );
}

#[test]
fn the_selection_anchors_the_question() {
    let f = Fixture::new();
    let vault = f.vault();
    let index = vault.open_index().unwrap();
    let page = (1..=4)
        .find(|p| {
            index
                .page(HALVORSEN, *p)
                .unwrap()
                .is_some_and(|d| flat(&d.text).contains("We use W = 150 and S = 75"))
        })
        .expect("the page with the window sizes");
    let v = f.ask_json(&[
        "--paper",
        HALVORSEN,
        "--page",
        &page.to_string(),
        "--selection",
        "We use W = 150 and S = 75, so every sentence appears in two windows",
        "Explain this selection",
    ]);
    let (_, uri) = first_quote(&v);
    assert_eq!(uri, format!("{HALVORSEN}#page={page}"), "{v}");
    // The question's words are not searched for ("selection").
    let answer = v["answer"].as_str().unwrap();
    assert!(!answer.contains("\"selection\""), "{answer}");
}

#[test]
fn a_handoff_summarizes_the_conversation_without_searching_the_request() {
    let f = Fixture::new();
    let first = f.ask_json(&[&format!("What window size is used? @{HALVORSEN}")]);
    let thread = first["threadId"].as_str().unwrap().to_string();
    let runtime = f.state(&thread)["runtimeId"].as_str().unwrap().to_string();
    let v = f.ask_json(&["--thread", &thread, "--handoff"]);
    let handoff = v["handoff"].as_str().unwrap();
    assert!(handoff.contains("What window size is used?"), "{handoff}");
    assert!(handoff.contains(&format!("{HALVORSEN}#page=")), "{handoff}");
    assert!(
        !handoff.contains("could not find") && !handoff.contains("Nothing"),
        "{handoff}"
    );
    let (q, _) = first_quote(&first);
    assert!(
        handoff.contains(&q),
        "the findings are the answer's quotes: {handoff}"
    );
    // No tool was called for the request itself (the same session answered it).
    assert_eq!(v["session"], "resumed", "{v}");
    let usage = grant::read_usage(&f.session_dir(&runtime).join("usage.jsonl"));
    let turns: std::collections::BTreeSet<&str> =
        usage.iter().map(|u| u.turn_id.as_str()).collect();
    assert_eq!(turns.len(), 1, "only the question's turn used the tools");
}

#[test]
fn prompt_only_turns_carry_the_evidence_they_promise() {
    let f = Fixture::new();
    let v = f.ask_json(&[
        "--remote",
        "What is on the reading list? @notes/reading-list.md @papers/layoutflow/paper.pdf",
    ]);
    assert_eq!(v["mode"], "prompt_only");
    let thread = v["threadId"].as_str().unwrap().to_string();
    let prompt = &prompts_of(&f, &thread)[0];
    assert!(prompt.contains("runs remotely"), "{prompt}");
    assert!(
        prompt.contains("(the first lines of a mentioned file)")
            && prompt.contains("<notes/reading-list.md#line=1,"),
        "{prompt}"
    );
    assert!(
        prompt.contains("(the start of the first page of a mentioned paper)")
            && prompt.contains("<papers/layoutflow/paper.pdf#page=1>"),
        "{prompt}"
    );
    // The agent answers from it, with citations into what was inlined.
    let answer = v["answer"].as_str().unwrap();
    let cited: Vec<String> = quotes(answer).into_iter().map(|(_, u)| u).collect();
    assert!(!cited.is_empty(), "{answer}");
    let sources = strings(&v["sources"]);
    for u in &cited {
        assert!(sources.contains(u), "{u} is among the sources {sources:?}");
    }
    // Nothing to inline: the prompt does not promise evidence.
    let v = f.ask_json(&["--remote", "What about columns?"]);
    let prompt = &prompts_of(&f, v["threadId"].as_str().unwrap())[0];
    assert!(
        prompt.contains("there is no evidence to answer from"),
        "{prompt}"
    );
    assert!(
        !prompt.contains("answer from the evidence below"),
        "{prompt}"
    );
}

#[test]
fn a_remote_agent_gets_no_server_the_prompt_only_wording_and_a_warm_session() {
    let f = Fixture::new();
    let config = f.root().join("remote.toml");
    std::fs::write(
        &config,
        format!(
            "[agents.far]\ncommand = {:?}\nargs = [\"--builtin-agent\"]\nremote = true\n",
            env!("CARGO_BIN_EXE_agentero")
        ),
    )
    .unwrap();
    let paper = "papers/layoutflow/paper.pdf";
    let v = f.ask_json(&[
        "--config",
        config.to_str().unwrap(),
        "--agent",
        "far",
        "--paper",
        paper,
        "--page",
        "1",
        "--selection",
        "LayoutFlow",
        "What does this say about reading order? @papers/",
    ]);
    assert_eq!(v["mode"], "prompt_only");
    assert_eq!(v["warm"], true, "{v}");
    assert!(v.get("attached").is_none(), "no server was offered: {v}");
    let answer = v["answer"].as_str().unwrap();
    assert!(answer.contains("I cannot read further"), "{answer}");
    let state = f.state(v["threadId"].as_str().unwrap());
    let dir = f.session_dir(state["runtimeId"].as_str().unwrap());
    assert!(
        !dir.join("attached.json").exists(),
        "no MCP server was started"
    );
    assert!(grant::read_usage(&dir.join("usage.jsonl")).is_empty());
    // Sources are the prompt's evidence (a folder's listing is named, not a source).
    let sources = strings(&v["sources"]);
    assert!(sources.iter().all(|s| s.starts_with(paper)), "{sources:?}");
    assert!(!sources.is_empty());
    // --remote on the built-in agent behaves the same.
    let v = f.ask_json(&["--remote", "Anything about columns? @papers/"]);
    assert_eq!(v["mode"], "prompt_only");
    assert_eq!(v["warm"], true);
}

#[test]
fn a_mention_that_names_nothing_is_reported_with_the_nearest_path() {
    let f = Fixture::new();
    let folder = f.root().join("notes/JIT compilers");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("tracing.md"),
        "# Tracing\nA tracing compiler records hot loops.\n",
    )
    .unwrap();
    // A typo and a folder whose name has spaces, written without quotes.
    let out = f.ask(&["What do they say? @papres/layoutflow/paper.pdf @notes/JIT compilers/"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let err = common::stderr(&out);
    assert!(
        err.contains(
            "warning: @papres/layoutflow/paper.pdf is not granted (not_found); did you mean @papers/layoutflow/paper.pdf?"
        ),
        "{err}"
    );
    assert!(
        err.contains("warning: @notes/JIT is not granted (not_found); did you mean @\"notes/JIT compilers/\"?"),
        "{err}"
    );
    let v = f.ask_json(&["What do they say? @papres/layoutflow/paper.pdf"]);
    assert_eq!(
        v["omitted"][0]["mention"], "papres/layoutflow/paper.pdf",
        "{v}"
    );
    assert_eq!(v["omitted"][0]["reason"], "not_found", "{v}");
    assert_eq!(
        v["omitted"][0]["nearest"], "papers/layoutflow/paper.pdf",
        "{v}"
    );
    // Quoted, the folder is granted and read.
    let v = f.ask_json(&["What does a tracing compiler record? @\"notes/JIT compilers/\""]);
    assert_eq!(v["omitted"], serde_json::json!([]), "{v}");
    assert_eq!(v["mode"], "mcp", "{v}");
    let sources = strings(&v["sources"]);
    assert!(
        sources
            .iter()
            .any(|s| s.starts_with("notes/JIT%20compilers/tracing.md")),
        "{sources:?}"
    );
}

/// `agentero agents` with nothing but agentero itself (no PATH, no Ollama): the built-in agent
/// passes with the protocol version as a number, the presets the user never configured are not
/// set up and do not fail the command; once the file configures `local`, its missing Ollama
/// fails it.
#[test]
fn the_doctor_passes_over_presets_never_set_up_and_fails_a_configured_one() {
    let dir = common::demo_vault();
    let root = dir.path();
    // A port nothing listens on: Ollama is absent.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let doctor = |args: &[&str]| {
        let mut cmd = common::command(root);
        cmd.arg("agents")
            .arg("--vault")
            .arg(root)
            .args(args)
            .env("PATH", "/nonexistent")
            .env("OLLAMA_HOST", closed.to_string());
        common::output_within(cmd, Duration::from_secs(120))
    };
    let out = doctor(&[]);
    let report = common::stdout(&out);
    assert!(out.status.success(), "{report}\n{}", common::stderr(&out));
    assert!(report.starts_with("✓ builtin"), "{report}");
    for preset in [
        "claude (claude)",
        "codex (codex)",
        "gemini (gemini)",
        "local (codex)",
    ] {
        assert!(
            report.contains(&format!("– {preset} – not set up\n")),
            "{preset}: {report}"
        );
    }
    assert!(!report.contains("FAILED"), "{report}");

    let out = doctor(&["--json"]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let by_name = |n: &str| {
        v.as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == n)
            .unwrap_or_else(|| panic!("{n}: {v}"))
            .clone()
    };
    let builtin = by_name("builtin");
    assert!(builtin["protocol"].is_u64(), "a JSON number: {builtin}");
    assert!(builtin["initialize"]["secs"].is_number(), "{builtin}");
    assert_eq!(builtin["ok"], true, "{builtin}");
    let local = by_name("local");
    assert_eq!(local["set_up"], false, "{local}");
    assert_eq!(local["configured"], false, "{local}");
    assert_eq!(local["ollama"]["ok"], false, "{local}");

    // Configured in the file, the same missing Ollama is a failure.
    let config = root.join(".agentero-test-home/config/agentero");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        "[local]\nmodel = \"llama3.2:3b\"\n",
    )
    .unwrap();
    let out = doctor(&[]);
    let report = common::stdout(&out);
    assert!(!out.status.success(), "{report}");
    // Its command is not installed either (a dash, as for any agent not found), and not
    // excused as not set up.
    assert!(report.contains("– local (codex)\n"), "{report}");
    assert!(report.contains("ollama: FAILED: "), "{report}");
    assert!(
        report.contains("– gemini (gemini) – not set up"),
        "{report}"
    );
    let all = v.as_array().unwrap().len();
    assert!(
        common::stderr(&out).contains(&format!("1 of {all} agents failed a check")),
        "{}",
        common::stderr(&out)
    );
}
