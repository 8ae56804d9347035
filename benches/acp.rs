//! ACP benchmarks with the built-in agent on the demo vault (`cargo bench --bench acp`):
//! host overhead until `session/prompt` is sent (agent process start excluded), a full `ask`
//! turn (wall, process start included), and the first-chunk latency of a `prompt_only` turn
//! with and without the warm pool.

use std::time::{Duration, Instant};

use agentero::acp::ask::{AskOptions, ask};
use agentero::acp::client::AgentProcess;
use agentero::acp::transcript::Thread;
use agentero::acp::turn::{TurnSpec, run_turn};
use agentero::config::AgentDef;
use agentero::context::{ContextRequest, Locality};
use agentero::vault::Vault;
use agentero::vault::indexer::{IndexOptions, index_vault};

const Q: &str = "What is the reading order of a page? @papers/layoutflow/paper.pdf @papers/reading-machines-survey/paper.pdf";
const RUNS: usize = 10;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn spec(vault: &Vault, remote: bool, exe: &std::path::Path) -> TurnSpec {
    let request = ContextRequest {
        text: Q.into(),
        mentions: agentero::acp::ask::mentions_of(Q),
        locality: if remote {
            Locality::Remote
        } else {
            Locality::Local
        },
        current: Some(agentero::context::CurrentPaper {
            path: "papers/layoutflow/paper.pdf".into(),
            page: Some(1),
        }),
        ..ContextRequest::default()
    };
    TurnSpec::planned(vault, request, exe.to_path_buf(), Duration::from_secs(60))
}

fn main() {
    let exe = std::path::PathBuf::from(env!("CARGO_BIN_EXE_agentero"));
    let dir = tempfile::tempdir().unwrap();
    // Keep the user's config out of it.
    unsafe { std::env::set_var("XDG_CONFIG_HOME", dir.path().join("cfg")) };
    let root = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&root).unwrap();
    let vault = Vault::open(&root).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let def = AgentDef::builtin(&exe);
    let place = agentero::acp::client::Place::of(&vault, &exe);

    rt.block_on(async {
        // 1. Host overhead and time to prompt, agent already started.
        let (mut host, mut to_prompt, mut start) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..RUNS {
            let t = Instant::now();
            let mut agent = AgentProcess::start(&def, &place).await.unwrap();
            start.push(t.elapsed().as_secs_f64() * 1e3);
            let mut thread = Thread::create(&vault);
            let o = run_turn(&vault, &mut agent, &mut thread, spec(&vault, false, &exe), &mut |_| {}).await.unwrap();
            host.push(o.timing.host_ms);
            to_prompt.push(o.timing.prompt_sent_ms);
            agent.shutdown().await;
        }
        println!("agent start + initialize        median {:7.2} ms", median(start));
        println!("host overhead to session/prompt median {:7.2} ms (plan, grant, thread; agent round trips excluded; goal < 20)", median(host));
        println!("turn start to session/prompt    median {:7.2} ms (incl. session/new and the agent's MCP connect)", median(to_prompt));

        // 2. A full ask turn, process start included.
        let mut wall = Vec::new();
        for _ in 0..RUNS {
            let opts = AskOptions { json: true, question: Q.into(), ..AskOptions::default() };
            let t = Instant::now();
            let mut sink = Vec::new();
            ask(&vault, &opts, &exe, &mut sink).await.unwrap();
            wall.push(t.elapsed().as_secs_f64() * 1e3);
        }
        println!("full ask turn (mcp, wall)       median {:7.2} ms (goal < 300)", median(wall));

        // 3. First chunk of a prompt_only turn, with and without a warm session.
        let (mut warm, mut cold) = (Vec::new(), Vec::new());
        for _ in 0..RUNS {
            let mut agent = AgentProcess::start(&def, &place).await.unwrap();
            agent.auto_refill = false;
            agent.fill_pool(1).await;
            agent.pool_settled().await;
            let mut thread = Thread::create(&vault);
            let o = run_turn(&vault, &mut agent, &mut thread, spec(&vault, true, &exe), &mut |_| {}).await.unwrap();
            assert!(o.warm);
            warm.push(o.timing.first_chunk_ms.unwrap());
            agent.shutdown().await;

            let mut agent = AgentProcess::start(&def, &place).await.unwrap();
            let mut thread = Thread::create(&vault);
            let o = run_turn(&vault, &mut agent, &mut thread, spec(&vault, true, &exe), &mut |_| {}).await.unwrap();
            assert!(!o.warm);
            cold.push(o.timing.first_chunk_ms.unwrap());
            agent.shutdown().await;
        }
        println!("prompt_only first chunk, warm   median {:7.2} ms", median(warm));
        println!("prompt_only first chunk, cold   median {:7.2} ms", median(cold));
    });
}
