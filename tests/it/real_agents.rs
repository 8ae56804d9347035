//! The real ACP adapters end to end: Claude Code (`claude-agent-acp`), Gemini CLI (`gemini
//! --acp`) and Codex (`codex-acp`), installed from the npm registry by `.ci/run` (pinned, in a
//! cache folder outside the repository) and named by `AGENTERO_ADAPTERS`. Each runs its real
//! runtime and our real context server; only the model API is replaced, by a scripted server
//! on 127.0.0.1 (`real_agents/model_api.rs`) — the one mock the quality bar allows.
//!
//! Per agent: the model calls `context_search`, then `context_read` (page, then excerpt), then
//! answers citing the page → no permission prompt, the answer streams, `sources` equal the
//! `usage.jsonl` URIs, each cited page exists, and what the model received is what the budget
//! counted; the same mentions resume or load the session; a new mention opens a fresh one
//! seeded with the prior conversation; a native read or shell attempt is refused and the turn
//! completes; a missing key gives the actionable message; `agentero agents` reports the agent.
//!
//! Without `AGENTERO_ADAPTERS` these tests are skipped with a message (a fresh clone has no
//! adapters); when it is set, a missing adapter is a failure.

use crate::common;
mod grant_only;
mod local;
mod model_api;
mod user_path;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::Arc;
use std::time::Duration;

use agentero::context::grant;
use agentero::vault::Vault;
use agentero::vault::indexer::{IndexOptions, index_vault};
use common::tmux::{Session as TmuxSession, available, tmux, wait_for, wait_gone};
use model_api::{ModelServer, Reply, Script, Turn};
use serde_json::{Value, json};

const LAYOUTFLOW: &str = "papers/layoutflow/paper.pdf";
const SURVEY: &str = "papers/reading-machines-survey/paper.pdf";
const LIMIT: Duration = Duration::from_secs(240);

/// The folder `.ci/run` installs the adapters into (`node_modules/.bin` inside it).
fn adapters() -> Option<PathBuf> {
    let Some(dir) = std::env::var_os("AGENTERO_ADAPTERS") else {
        common::skip::missing(common::skip::Peer::Adapters, "");
        return None;
    };
    let bin = PathBuf::from(dir).join("node_modules/.bin");
    for exe in ["claude-agent-acp", "gemini", "codex-acp"] {
        assert!(
            bin.join(exe).is_file(),
            "AGENTERO_ADAPTERS names {} but {exe} is not installed there: the adapters could \
             not be installed (is the npm registry reachable?)",
            bin.display()
        );
    }
    Some(bin)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Agent {
    Claude,
    Gemini,
    Codex,
}

impl Agent {
    fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Gemini => "gemini",
            Agent::Codex => "codex",
        }
    }

    /// The key variable and the environment that points the runtime at the scripted model.
    fn env(self, url: &str) -> Vec<(&'static str, String)> {
        match self {
            Agent::Claude => vec![
                ("ANTHROPIC_API_KEY", "sk-ant-test".into()),
                ("ANTHROPIC_BASE_URL", url.into()),
                // Claude Code refuses to start as root without it (CI runs as root).
                ("IS_SANDBOX", "1".into()),
                ("DISABLE_AUTOUPDATER", "1".into()),
            ],
            Agent::Gemini => vec![
                ("GEMINI_API_KEY", "gemini-test".into()),
                ("GOOGLE_GEMINI_BASE_URL", url.into()),
            ],
            Agent::Codex => vec![("CODEX_API_KEY", "sk-test".into())],
        }
    }

    fn key_var(self) -> &'static str {
        match self {
            Agent::Claude => "ANTHROPIC_API_KEY",
            Agent::Gemini => "GEMINI_API_KEY",
            Agent::Codex => "CODEX_API_KEY",
        }
    }

    /// A native tool call as the model would make it in this runtime.
    fn native_call(self) -> (&'static str, Value) {
        match self {
            Agent::Claude => ("Read", json!({"file_path": "/etc/hostname"})),
            Agent::Gemini => ("read_file", json!({"file_path": "/etc/hostname"})),
            Agent::Codex => ("exec_command", json!({"cmd": "cat /etc/hostname"})),
        }
    }
}

/// The first sentence of `text` with enough words to be a quote.
fn sentence(text: &str) -> Option<String> {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    flat.split_inclusive(". ")
        .map(str::trim)
        .find(|s| s.split(' ').count() >= 8 && s.ends_with('.') && !s.contains("**"))
        .map(str::to_string)
}

/// The model's side of the scenario: search, read the first card's page, read an excerpt of a
/// sentence of it, answer quoting that sentence with the page's citation URI. A question that
/// contains `[native]` first tries the runtime's own file tool.
fn scripted(agent: Agent) -> Script {
    Arc::new(move |t: &Turn| {
        let native = t.prompt.contains("[native]");
        let skip = usize::from(native);
        if native && t.results.is_empty() {
            let (tool, args) = agent.native_call();
            return Reply::Call {
                tool: tool.into(),
                args,
            };
        }
        let results = &t.results[skip.min(t.results.len())..];
        let tool = |n: &str| t.tool(n).unwrap_or_else(|| n.to_string());
        let card = results.first().and_then(|r| r.json()).and_then(|v| {
            let c = v["cards"].as_array()?.first()?.clone();
            Some((c["path"].as_str()?.to_string(), c["page"].as_u64()?))
        });
        let quote = results
            .get(1)
            .and_then(|r| r.json())
            .and_then(|v| sentence(v["text"].as_str()?));
        match (results.len(), card, quote) {
            (0, _, _) => Reply::Call {
                tool: tool("context_search"),
                args: json!({"query": "reading order of columns"}),
            },
            (1, Some((path, page)), _) => Reply::Call {
                tool: tool("context_read"),
                args: json!({"path": path, "mode": "page", "page": page}),
            },
            (2, Some((path, _)), Some(q)) => Reply::Call {
                tool: tool("context_read"),
                args: json!({"path": path, "mode": "excerpt", "quote": q}),
            },
            (_, Some((path, page)), Some(q)) => {
                Reply::Text(format!("The paper says: \"{q}\" ({path}#page={page})"))
            }
            _ => Reply::Text(format!(
                "I could not read the granted sources: {:?}",
                results.iter().map(|r| &r.text).collect::<Vec<_>>()
            )),
        }
    })
}

struct Rig {
    agent: Agent,
    dir: tempfile::TempDir,
    home: PathBuf,
    bin: PathBuf,
    model: ModelServer,
}

impl Rig {
    fn new(agent: Agent, bin: &Path) -> Rig {
        Rig::with_script(agent, bin, scripted(agent))
    }

    fn with_script(agent: Agent, bin: &Path, script: Script) -> Rig {
        let dir = common::demo_vault();
        let vault = Vault::open(dir.path()).unwrap();
        index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
        let home = dir.path().join(".agentero-test-home");
        std::fs::create_dir_all(&home).unwrap();
        let model = ModelServer::start(script);
        if agent == Agent::Codex {
            // Codex takes its API base from its config file (a throwaway HOME's), not from
            // the environment; a provider without websockets goes straight to HTTP.
            let codex = home.join(".codex");
            std::fs::create_dir_all(&codex).unwrap();
            std::fs::write(
                codex.join("config.toml"),
                format!(
                    "model = \"gpt-5.4\"\nmodel_provider = \"scripted\"\n\n\
                     [model_providers.scripted]\nname = \"scripted\"\n\
                     base_url = \"{}/v1\"\nwire_api = \"responses\"\n\
                     env_key = \"CODEX_API_KEY\"\nsupports_websockets = false\n",
                    model.url()
                ),
            )
            .unwrap();
        }
        Rig {
            agent,
            dir,
            home,
            bin: bin.to_path_buf(),
            model,
        }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn command(&self, args: &[&str], with_key: bool) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentero"));
        let path = std::env::var("PATH").unwrap_or_default();
        cmd.args(args)
            .current_dir(self.root())
            .env("PATH", format!("{}:{path}", self.bin.display()))
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.home.join("config"))
            .env("XDG_DATA_HOME", self.home.join("data"))
            .env_remove("AGENTERO_BUILTIN_FAULT")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        for v in [
            "ANTHROPIC_API_KEY",
            "GEMINI_API_KEY",
            "GOOGLE_API_KEY",
            "CODEX_API_KEY",
            "OPENAI_API_KEY",
        ] {
            cmd.env_remove(v);
        }
        if with_key {
            for (k, v) in self.agent.env(&self.model.url()) {
                cmd.env(k, v);
            }
        } else {
            // A user with no login at all: no key, no gateway, a home of their own.
            let fresh = self.home.join("no-login");
            cmd.env("HOME", &fresh)
                .env("XDG_CONFIG_HOME", fresh.join("config"))
                .env("XDG_DATA_HOME", fresh.join("data"))
                .env_remove("ANTHROPIC_BASE_URL")
                .env_remove("GOOGLE_GEMINI_BASE_URL")
                .env("IS_SANDBOX", "1");
        }
        cmd
    }

    fn run(&self, args: &[&str], with_key: bool) -> Output {
        common::output_within(self.command(args, with_key), LIMIT)
    }

    /// `agentero ask --json` with the preset of this agent (no config file at all).
    fn ask(&self, question: &str, thread: Option<&str>) -> Value {
        self.ask_with(question, thread, &|_| {})
    }

    /// [`Rig::ask`] with the command's environment adjusted by `tweak`.
    fn ask_with(
        &self,
        question: &str,
        thread: Option<&str>,
        tweak: &dyn Fn(&mut Command),
    ) -> Value {
        let mut args = vec![
            "ask",
            "--json",
            "--vault",
            self.root().to_str().unwrap(),
            "--agent",
            self.agent.name(),
        ];
        if let Some(t) = thread {
            args.extend(["--thread", t]);
        }
        args.push(question);
        let mut cmd = self.command(&args, true);
        tweak(&mut cmd);
        let out = common::output_within(cmd, LIMIT);
        assert!(
            out.status.success(),
            "{} ask failed:\n{}\n{}\n--- the end of agentero.log:\n{}",
            self.agent.name(),
            common::stderr(&out),
            common::stdout(&out),
            self.log_tail()
        );
        serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", common::stdout(&out)))
    }

    /// The last lines of the vault's log (the agent's stderr goes there), for failures.
    fn log_tail(&self) -> String {
        let log = std::fs::read_to_string(self.root().join(".agentero/logs/agentero.log"))
            .unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(40)..]
            .iter()
            .map(|l| l.chars().take(600).collect::<String>())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn vault(&self) -> Vault {
        Vault::open(self.root()).unwrap()
    }

    /// The usage lines of a thread's current session for the turn that just ran.
    fn usage_of(&self, v: &Value) -> Vec<grant::UsageLine> {
        let thread = v["threadId"].as_str().unwrap();
        let state: Value = serde_json::from_slice(
            &std::fs::read(
                self.root()
                    .join(".agentero/chats")
                    .join(thread)
                    .join("state.json"),
            )
            .unwrap(),
        )
        .unwrap();
        let runtime = state["runtimeId"].as_str().unwrap();
        let files = grant::GrantFiles::new(&self.vault(), runtime).unwrap();
        let turn = grant::read(&files.grant()).unwrap().turn_id;
        grant::read_usage(&files.usage())
            .into_iter()
            .filter(|u| u.turn_id == turn)
            .collect()
    }
}

/// Every citation URI of a vault paper names a page the paper has.
fn assert_pages_open(vault: &Vault, uris: &[String]) {
    for u in uris {
        let Some(agentero::vault::uri::Target::Vault {
            path,
            page: Some(page),
            ..
        }) = agentero::vault::uri::parse(u)
        else {
            continue;
        };
        let bytes = std::fs::read(vault.root().join(&path)).unwrap();
        let limits = agentero::vault::pdf::Limits {
            deadline: std::time::Instant::now() + Duration::from_secs(60),
        };
        let doc = agentero::vault::pdf::extract(&bytes, limits)
            .unwrap_or_else(|e| panic!("{u}: the paper does not open: {e}"));
        let n = doc.pages.len() as u32;
        assert!(page >= 1 && page <= n, "{u}: page {page} of {n} pages");
        assert!(
            !doc.pages[page as usize - 1].text.trim().is_empty(),
            "{u}: the cited page has no text"
        );
    }
}

fn wait_for_the_next_minute() {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    std::thread::sleep(Duration::from_secs(61 - now % 60));
}

fn scenario(agent: Agent) {
    let Some(bin) = adapters() else {
        return;
    };
    let rig = Rig::new(agent, &bin);
    let name = agent.name();

    // 1. Three tools, then a cited answer: no permission prompt, no refusal.
    let q1 = format!("What is the reading order of a page? @{LAYOUTFLOW}");
    let v = rig.ask(&q1, None);
    assert_eq!(v["stopReason"], "end_turn", "{name}: {v}");
    assert_eq!(v["mode"], "mcp", "{name}: {v}");
    assert_eq!(
        v["attached"], true,
        "{name}: the context server was not attached: {v}"
    );
    assert_eq!(v["session"], "new", "{name}: {v}");
    let notices = v["notices"].to_string();
    assert!(!notices.contains("refused"), "{name}: {notices}");
    let answer = v["answer"].as_str().unwrap();
    assert!(answer.contains("The paper says: \""), "{name}: {answer}");
    assert!(answer.contains("#page="), "{name}: {answer}");
    let usage = rig.usage_of(&v);
    let tools: Vec<&str> = usage.iter().map(|u| u.tool.as_str()).collect();
    assert_eq!(
        tools,
        ["context_search", "context_read", "context_read"],
        "{name}: the three calls ran"
    );
    let mut used: Vec<String> = Vec::new();
    for u in &usage {
        for uri in &u.citation_uris {
            if !used.contains(uri) {
                used.push(uri.clone());
            }
        }
    }
    let sources: Vec<String> = v["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    assert_eq!(sources, used, "{name}: sources are the usage.jsonl URIs");
    assert_pages_open(&rig.vault(), &sources);
    let cited = answer
        .rsplit('(')
        .next()
        .and_then(|s| s.split(')').next())
        .unwrap();
    assert!(
        sources.iter().any(|s| s == cited),
        "{name}: {cited} not among {sources:?}"
    );
    // What the model received is what the budget counted, call by call.
    let turns = rig.model.turns();
    let last = turns.last().unwrap();
    let delivered: Vec<u64> = last
        .results
        .iter()
        .map(|r| r.text.chars().count() as u64)
        .collect();
    let counted: Vec<u64> = usage.iter().map(|u| u.chars).collect();
    eprintln!("{name}: delivered {delivered:?} chars, counted {counted:?}");
    assert_eq!(delivered, counted, "{name}: delivered vs counted");
    // Only our three tools were offered.
    let offered = &last.tools;
    assert!(
        offered.iter().filter(|t| t.contains("context_")).count() >= 2,
        "{name}: {offered:?}"
    );
    for native in [
        "Read",
        "Bash",
        "read_file",
        "run_shell_command",
        "exec_command",
    ] {
        assert!(
            !offered.iter().any(|t| t == native),
            "{name} offers its native {native}: {offered:?}"
        );
    }

    // Every tool schema is accepted as is (a union type made Gemini's validator complain).
    let log =
        std::fs::read_to_string(rig.root().join(".agentero/logs/agentero.log")).unwrap_or_default();
    assert!(
        !log.contains("allowUnionTypes") && !log.contains("strict mode"),
        "{name} complained about a tool schema:\n{}",
        rig.log_tail()
    );

    // 2. The same mentions: the session is resumed or loaded, not new.
    let thread = v["threadId"].as_str().unwrap().to_string();
    if agent == Agent::Gemini {
        // gemini-cli 0.61 names a session's record file by the minute it was created; a
        // `session/load` started within that same minute rewrites the record before reading
        // it and answers "No previous sessions found for this project". (agentero then
        // starts a fresh session seeded with the conversation, with a notice.) Load across
        // the minute, as a user coming back to a thread does.
        wait_for_the_next_minute();
    }
    let v2 = rig.ask(&format!("And in two columns? @{LAYOUTFLOW}"), Some(&thread));
    assert_eq!(v2["stopReason"], "end_turn", "{name}: {v2}");
    assert!(
        v2["session"] == "resumed" || v2["session"] == "loaded",
        "{name}: {v2}"
    );
    assert_eq!(v2["sessionId"], v["sessionId"], "{name}");

    // 3. A new mention: a fresh session, seeded once with the prior conversation.
    let v3 = rig.ask(
        &format!("Compare with the survey. @{LAYOUTFLOW} @{SURVEY}"),
        Some(&thread),
    );
    assert_eq!(v3["session"], "new", "{name}: {v3}");
    assert_ne!(v3["sessionId"], v["sessionId"], "{name}");
    let seeded = rig
        .model
        .turns()
        .into_iter()
        .rev()
        .find(|t| t.prompt.contains("Compare with the survey"))
        .expect("the third question reached the model");
    assert!(
        seeded
            .prompt
            .contains("What is the reading order of a page?"),
        "{name}: the new session was not seeded with the conversation:\n{}",
        seeded.prompt
    );

    // 4. A native read or shell attempt is refused; the turn completes on our tools.
    let v4 = rig.ask(
        &format!("[native] What is the reading order? @{LAYOUTFLOW}"),
        None,
    );
    assert_eq!(v4["stopReason"], "end_turn", "{name}: {v4}");
    let native_turn = rig
        .model
        .turns()
        .into_iter()
        .rev()
        .find(|t| t.prompt.contains("[native]") && !t.results.is_empty())
        .unwrap();
    let first = &native_turn.results[0];
    assert!(
        !first.text.contains(
            &std::fs::read_to_string("/etc/hostname")
                .unwrap_or_default()
                .trim()
                .to_string()
        ) || std::fs::read_to_string("/etc/hostname")
            .unwrap_or_default()
            .trim()
            .is_empty(),
        "{name}: the native tool read the file: {}",
        first.text
    );
    assert!(
        v4["answer"].as_str().unwrap().contains("The paper says"),
        "{name}: {v4}"
    );
    assert!(
        v4["sources"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s.as_str().unwrap().starts_with("papers/")),
        "{name}: {v4}"
    );

    // 5. No key: the agent's own words, its methods and the next step for this preset.
    let out = rig.run(
        &[
            "ask",
            "--vault",
            rig.root().to_str().unwrap(),
            "--agent",
            name,
            &q1,
        ],
        false,
    );
    assert!(!out.status.success(), "{name} ran without a key");
    let err = common::stderr(&out);
    assert!(
        err.contains(&format!("agent {name} needs a login")),
        "{name}: {err}"
    );
    assert!(
        err.contains(&format!("set {}", agent.key_var())),
        "{name}: {err}"
    );

    // 6. The doctor.
    let out = rig.run(
        &["agents", "--vault", rig.root().to_str().unwrap(), name],
        true,
    );
    let report = common::stdout(&out);
    assert!(
        out.status.success(),
        "{name}: {report}\n{}",
        common::stderr(&out)
    );
    assert!(report.contains("session: ok"), "{name}: {report}");
    let out = rig.run(
        &["agents", "--vault", rig.root().to_str().unwrap(), name],
        false,
    );
    let report = common::stdout(&out);
    assert!(!out.status.success(), "{name}: {report}");
    assert!(report.contains("needs a login"), "{name}: {report}");
}

/// The terminal app with this agent as the default, in tmux: ask with an @-mention, the answer
/// streams with no permission modal, its sources are listed, the cited page opens.
fn tui_scenario(agent: Agent) {
    let Some(bin) = adapters() else {
        return;
    };
    assert!(available(), "tmux is needed (.ci/run installs it)");
    let rig = Rig::new(agent, &bin);
    let name = agent.name();
    let config = rig.home.join("config/agentero");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        format!("default_agent = \"{name}\"\n"),
    )
    .unwrap();
    let session = TmuxSession(format!("agentero-{name}-{}", std::process::id()));
    let h = rig.home.display();
    let mut env_args = vec![
        format!("HOME={h}"),
        format!("XDG_CONFIG_HOME={h}/config"),
        format!("XDG_DATA_HOME={h}/data"),
        format!("PATH={}:/usr/local/bin:/usr/bin:/bin", bin.display()),
        "TERM=xterm-256color".to_string(),
        "PS1=READY$ ".to_string(),
    ];
    for (k, v) in agent.env(&rig.model.url()) {
        env_args.push(format!("{k}={v}"));
    }
    // Sessions idle for 3 s are closed (their context servers stopped) where the agent can.
    env_args.push("AGENTERO_SESSION_IDLE_SECS=3".into());
    env_args.push("sh".into());
    let status = Command::new("tmux")
        .args([
            "new-session",
            "-d",
            "-x",
            "140",
            "-y",
            "44",
            "-s",
            &session.0,
            "env",
            "-i",
        ])
        .args(&env_args)
        .status()
        .unwrap();
    assert!(status.success());
    let target = format!("{}:0", session.0);
    wait_for(&target, "READY$", 10);
    let cmd = format!(
        "{} {}",
        env!("CARGO_BIN_EXE_agentero"),
        rig.root().display()
    );
    tmux(&["send-keys", "-t", &target, &cmd, "Enter"]);
    let screen = wait_for(&target, &format!("{name} · starting"), 30);
    assert!(
        screen.contains(name),
        "{name}: the app did not start:\n{screen}"
    );
    let screen = wait_gone(&target, "starting…", 90);
    assert!(
        !screen.contains("starting…") && !screen.contains("agent unavailable"),
        "{name}: the agent did not start:\n{screen}"
    );
    tmux(&["send-keys", "-t", &target, "i"]);
    tmux(&[
        "send-keys",
        "-t",
        &target,
        "-l",
        "What is the reading order of a page? @layoutflowpdf",
    ]);
    let screen = wait_for(&target, "LayoutFlow: Recovering", 10);
    assert!(screen.contains("LayoutFlow: Recovering"), "{screen}");
    tmux(&["send-keys", "-t", &target, "Enter"]);
    std::thread::sleep(Duration::from_millis(300));
    tmux(&["send-keys", "-t", &target, "Enter"]);
    let screen = wait_for(&target, "sources (", 120);
    assert!(
        screen.contains("sources ("),
        "{name}: no sources:\n{screen}"
    );
    assert!(
        screen.contains("The paper says"),
        "{name}: no answer:\n{screen}"
    );
    assert!(
        !screen.contains("Permission"),
        "{name}: a permission modal:\n{screen}"
    );
    assert!(!screen.contains("refused"), "{name}: a refusal:\n{screen}");
    let page = common::tmux::last_source_page(&screen)
        .unwrap_or_else(|| panic!("{name}: no cited page on screen:\n{screen}"));
    common::tmux::select_last_source(&target, &screen);
    tmux(&["send-keys", "-t", &target, "Enter"]);
    let want = format!("p. {page} / ");
    let screen = wait_for(&target, &want, 20);
    assert!(
        screen.contains(&want),
        "{name}: the cited page did not open:\n{screen}"
    );
    // The idle session: Claude's and Codex's adapters advertise `session/close` (and can load a
    // session again), so it is closed and its context server stops; Gemini CLI's does not, so
    // its session and server are kept until the app quits.
    let root = rig.root();
    let closes = !matches!(agent, Agent::Gemini);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while common::context_servers(root) > 0 && closes && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
    }
    if !closes {
        std::thread::sleep(Duration::from_secs(5));
    }
    let left = common::context_servers(root);
    assert_eq!(
        left,
        usize::from(!closes),
        "{name}: context servers after the session sat idle"
    );
    // Closed by `session/close`, not lost: the app's log says so (and nothing for Gemini).
    let log = std::fs::read_to_string(root.join(".agentero/logs/agentero.log")).unwrap_or_default();
    assert_eq!(
        log.contains("closed an idle session"),
        closes,
        "{name}: the log:\n{log}"
    );
    tmux(&["send-keys", "-t", &target, "q"]);
    let screen = wait_for(&target, "READY$ \n", 10);
    let _ = screen;
    let usage: Vec<String> = {
        let sessions = rig.root().join(".agentero/context-sessions");
        std::fs::read_dir(&sessions)
            .unwrap()
            .flatten()
            .flat_map(|e| grant::read_usage(&e.path().join("usage.jsonl")))
            .map(|u| u.tool)
            .collect()
    };
    assert!(
        usage
            .iter()
            .filter(|t| t.as_str() == "context_read")
            .count()
            >= 2,
        "{name}: {usage:?}"
    );
}

#[test]
fn the_terminal_app_with_each_real_agent_in_tmux() {
    for agent in [Agent::Claude, Agent::Codex, Agent::Gemini] {
        tui_scenario(agent);
    }
}

/// With `native_reads = true`, Claude Code's own `Read` is offered; a read of a granted file is
/// allowed without a prompt, counted against the budget and listed among the sources, while a
/// read outside the grant is refused and the turn goes on.
#[test]
fn claude_native_reads_of_granted_files_when_switched_on() {
    let Some(bin) = adapters() else {
        return;
    };
    let dir = common::demo_vault();
    let vault = Vault::open(dir.path()).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let granted = dir
        .path()
        .join("notes/reading-list.md")
        .canonicalize()
        .unwrap();
    let outside = dir.path().join("notes/TODO").canonicalize().unwrap();
    let (g, o) = (granted.display().to_string(), outside.display().to_string());
    let model = ModelServer::start(Arc::new(move |t: &Turn| match t.results.len() {
        0 => Reply::Call {
            tool: "Read".into(),
            args: json!({"file_path": g}),
        },
        1 => Reply::Call {
            tool: "Read".into(),
            args: json!({"file_path": o}),
        },
        _ => Reply::Text(format!(
            "granted read: {}; other read: {}",
            t.results[0].is_error, t.results[1].is_error
        )),
    }));
    let home = dir.path().join(".agentero-test-home");
    let config = home.join("config/agentero");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        "[agents.claude]\ncommand = \"claude-agent-acp\"\nnative_reads = true\n",
    )
    .unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentero"));
    cmd.args(["ask", "--json", "--vault"])
        .arg(dir.path())
        .args([
            "--agent",
            "claude",
            "What does the reading list say? @notes/reading-list.md",
        ])
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .env("HOME", &home)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_DATA_HOME", home.join("data"));
    for (k, v) in Agent::Claude.env(&model.url()) {
        cmd.env(k, v);
    }
    let out = common::output_within(cmd, LIMIT);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["answer"], "granted read: false; other read: true", "{v}");
    let sources = v["sources"].to_string();
    assert!(sources.contains("notes/reading-list.md#line=1,"), "{v}");
    assert!(!sources.contains("TODO"), "{v}");
    assert!(
        v["notices"]
            .to_string()
            .contains("a native read outside the grant"),
        "{v}"
    );
}

#[test]
fn claude_code_reads_the_grant_through_the_context_tools() {
    scenario(Agent::Claude);
}

#[test]
fn gemini_cli_reads_the_grant_through_the_context_tools() {
    scenario(Agent::Gemini);
}

#[test]
fn codex_reads_the_grant_through_the_context_tools() {
    scenario(Agent::Codex);
}
