//! The real ACP adapters with the scripted model API (`tests/real_agents/model_api.rs`): per
//! agent, the wall time of a three-tool `agentero ask` turn end to end (process start to exit)
//! and its share spent in agentero (the host: plan, grant, thread, the context server's calls)
//! versus the adapter (its start, `initialize`, session, its runtime around the model and tool
//! calls); and the characters the model received from our tools versus those the budget
//! counted.
//!
//! Then, per agent, a thread's first turn beside its second (`ask --thread` right after, in
//! another process: the session is resumed or loaded, or — Gemini within the minute it was
//! opened — a new one is seeded with the conversation), and Codex's first turn against a plain
//! HTTP endpoint with WebSockets tried first (a provider with `supports_websockets = true`)
//! beside agentero's `OPENAI_BASE_URL` provider (no WebSocket).
//!
//! `AGENTERO_ADAPTERS=… cargo bench --bench agents` (release). Medians of `RUNS` turns.

#[path = "../tests/it/real_agents/model_api.rs"]
mod model_api;

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::Instant;

use agentero::context::grant;
use agentero::vault::Vault;
use agentero::vault::indexer::{IndexOptions, index_vault};
use model_api::{ModelServer, Reply, Turn};
use serde_json::{Value, json};

const RUNS: usize = 5;
const QUESTION: &str = "What is the reading order of a page? @papers/layoutflow/paper.pdf";

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// search → read the first card's page → read an excerpt → answer with its URI.
fn script(t: &Turn) -> Reply {
    let tool = |n: &str| t.tool(n).unwrap_or_else(|| n.to_string());
    let card = t.results.first().and_then(|r| r.json()).and_then(|v| {
        let c = v["cards"].as_array()?.first()?.clone();
        Some((c["path"].as_str()?.to_string(), c["page"].as_u64()?))
    });
    match (t.results.len(), card) {
        (0, _) => Reply::Call {
            tool: tool("context_search"),
            args: json!({"query": "reading order"}),
        },
        (1, Some((p, n))) => Reply::Call {
            tool: tool("context_read"),
            args: json!({"path": p, "mode": "page", "page": n}),
        },
        (2, Some((p, _))) => Reply::Call {
            tool: tool("context_read"),
            args: json!({"path": p, "mode": "excerpt", "quote": "reading order"}),
        },
        (_, Some((p, n))) => Reply::Text(format!("See {p}#page={n}.")),
        _ => Reply::Text("nothing".into()),
    }
}

fn main() {
    let Some(adapters) = std::env::var_os("AGENTERO_ADAPTERS") else {
        eprintln!("AGENTERO_ADAPTERS is not set: nothing to measure");
        return;
    };
    let bin = PathBuf::from(adapters).join("node_modules/.bin");
    let exe = env!("CARGO_BIN_EXE_agentero");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&root).unwrap();
    let vault = Vault::open(&root).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let model = ModelServer::start(Arc::new(script));
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".codex")).unwrap();
    std::fs::write(
        home.join(".codex/config.toml"),
        format!(
            "model = \"gpt-5.4\"\nmodel_provider = \"scripted\"\n[model_providers.scripted]\nname = \"scripted\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\nenv_key = \"CODEX_API_KEY\"\nsupports_websockets = false\n",
            model.url()
        ),
    )
    .unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let ask =
        |agent: &str, thread: Option<&str>, home: &std::path::Path, extra: &[(&str, String)]| {
            let mut cmd = Command::new(exe);
            cmd.args(["ask", "--json", "--vault"])
                .arg(&root)
                .args(["--agent", agent]);
            if let Some(t) = thread {
                cmd.args(["--thread", t]);
            }
            cmd.arg(QUESTION)
                .env("PATH", &path)
                .env("HOME", home)
                .env("XDG_CONFIG_HOME", home.join("config"))
                .env("XDG_DATA_HOME", home.join("data"))
                .env("ANTHROPIC_API_KEY", "sk-ant-test")
                .env("ANTHROPIC_BASE_URL", model.url())
                .env("IS_SANDBOX", "1")
                .env("GEMINI_API_KEY", "test")
                .env("GOOGLE_GEMINI_BASE_URL", model.url())
                .env("CODEX_API_KEY", "sk-test");
            for (k, v) in extra {
                cmd.env(k, v);
            }
            let t0 = Instant::now();
            let out = cmd.output().unwrap();
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            assert!(
                out.status.success(),
                "{agent}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            (ms, v)
        };
    println!(
        "| agent | turn wall (ms) | agentero (ms) | adapter (ms) | agentero share | delivered / counted chars |"
    );
    println!("|---|---|---|---|---|---|");
    for agent in ["claude", "gemini", "codex"] {
        let (mut wall, mut ours, mut theirs) = (Vec::new(), Vec::new(), Vec::new());
        let (mut delivered, mut counted) = (0u64, 0u64);
        for _ in 0..RUNS {
            let before = model.turns().len();
            let t0 = Instant::now();
            let out = Command::new(exe)
                .args(["ask", "--json", "--vault"])
                .arg(&root)
                .args(["--agent", agent, QUESTION])
                .env("PATH", &path)
                .env("HOME", &home)
                .env("XDG_CONFIG_HOME", home.join("config"))
                .env("XDG_DATA_HOME", home.join("data"))
                .env("ANTHROPIC_API_KEY", "sk-ant-test")
                .env("ANTHROPIC_BASE_URL", model.url())
                .env("IS_SANDBOX", "1")
                .env("GEMINI_API_KEY", "test")
                .env("GOOGLE_GEMINI_BASE_URL", model.url())
                .env("CODEX_API_KEY", "sk-test")
                .output()
                .unwrap();
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            assert!(
                out.status.success(),
                "{agent}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            let t = &v["timing"];
            let thread = v["threadId"].as_str().unwrap();
            let state: Value = serde_json::from_slice(
                &std::fs::read(root.join(".agentero/chats").join(thread).join("state.json"))
                    .unwrap(),
            )
            .unwrap();
            let files =
                grant::GrantFiles::new(&vault, state["runtimeId"].as_str().unwrap()).unwrap();
            let usage = grant::read_usage(&files.usage());
            let mcp_ms: f64 = usage.iter().map(|u| u.micros as f64 / 1e3).sum();
            counted += usage.iter().map(|u| u.chars).sum::<u64>();
            let turns = model.turns();
            if let Some(last) = turns[before..].last() {
                delivered += last
                    .results
                    .iter()
                    .map(|r| r.text.chars().count() as u64)
                    .sum::<u64>();
            }
            let adapter = t["agentStartMs"].as_f64().unwrap()
                + (t["totalMs"].as_f64().unwrap() - t["hostMs"].as_f64().unwrap() - mcp_ms);
            wall.push(ms);
            theirs.push(adapter);
            ours.push(ms - adapter);
        }
        let (w, o, a) = (median(wall), median(ours), median(theirs));
        println!(
            "| {agent} | {w:.0} | {o:.0} | {a:.0} | {:.2} | {delivered} / {counted} = {:.3} |",
            o / w,
            delivered as f64 / counted.max(1) as f64
        );
    }
    println!();
    println!(
        "| agent | first turn (ms) | second turn (ms) | second / first | second turn's session |"
    );
    println!("|---|---|---|---|---|");
    for agent in ["claude", "gemini", "codex"] {
        let (mut first, mut second, mut how) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..RUNS {
            let (ms1, v1) = ask(agent, None, &home, &[]);
            let thread = v1["threadId"].as_str().unwrap().to_string();
            let (ms2, v2) = ask(agent, Some(&thread), &home, &[]);
            first.push(ms1);
            second.push(ms2);
            how.push(v2["session"].as_str().unwrap_or("?").to_string());
        }
        how.sort();
        how.dedup();
        let (f, s) = (median(first), median(second));
        println!(
            "| {agent} | {f:.0} | {s:.0} | {:.2} | {} |",
            s / f,
            how.join(", ")
        );
    }

    // Codex against a plain HTTP endpoint: WebSockets tried first, then agentero's provider.
    let ws_home = dir.path().join("home-ws");
    std::fs::create_dir_all(ws_home.join(".codex")).unwrap();
    std::fs::write(
        ws_home.join(".codex/config.toml"),
        format!(
            "model = \"gpt-5.4\"\nmodel_provider = \"scripted\"\n[model_providers.scripted]\nname = \"scripted\"\nbase_url = \"{}/v1\"\nwire_api = \"responses\"\nenv_key = \"CODEX_API_KEY\"\nsupports_websockets = true\n",
            model.url()
        ),
    )
    .unwrap();
    let env_home = dir.path().join("home-env");
    std::fs::create_dir_all(env_home.join(".codex")).unwrap();
    std::fs::write(env_home.join(".codex/config.toml"), "model = \"gpt-5.4\"\n").unwrap();
    let base = vec![("OPENAI_BASE_URL", format!("{}/v1", model.url()))];
    let (mut ws, mut plain) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        ws.push(ask("codex", None, &ws_home, &[]).0);
        plain.push(ask("codex", None, &env_home, &base).0);
    }
    let (w, p) = (median(ws), median(plain));
    println!();
    println!(
        "| codex first turn | WebSocket tried first (ms) | agentero's provider, HTTP only (ms) | ratio |"
    );
    println!("|---|---|---|---|");
    println!("| plain HTTP endpoint | {w:.0} | {p:.0} | {:.2} |", p / w);
}
