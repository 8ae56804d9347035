//! `agentero ask`: one turn from the command line.
//!
//! `agentero ask [--vault V] [--agent NAME] [--thread ID | --new] [--paper P --page N]
//! [--selection TEXT] [--remote] [--json] [--config FILE] [--timeout SECS]
//! "question @papers/x/paper.pdf @notes/"`
//!
//! `@path` tokens in the question are the mentions. Without `--thread` a new thread is
//! started; its id is printed on stderr (`thread: ID`) so the next `ask --thread ID` continues
//! it. The answer streams to stdout and ends with the sources. Exit status is non-zero on
//! failure, with the reason on stderr. Ctrl-C cancels the turn (`session/cancel`).
//!
//! Permission requests from the agent are answered by the rules of [`super::permission`]:
//! calls of the `agentero-context` tools are allowed, the agent's native tools refused (native
//! reads of granted files allowed only with `native_reads = true`), and anything else rejected
//! (there is nobody to ask) unless the user answered it "always" in the TUI for this agent and
//! the same command.
//!
//! `--handoff --thread ID` asks the agent for the thread's summary (goal, findings, open
//! questions, sources) instead of a question, writes it to the thread's `HANDOFF.md` and prints
//! it; the thread's next turn starts a fresh session seeded from it.
//!
//! `--json` prints one object:
//!
//! | field | meaning |
//! |---|---|
//! | `answer` | the agent's message text of this turn |
//! | `sources` | citation URIs: the prompt's evidence, then those the context tools returned this turn (`usage.jsonl`) |
//! | `cited` | the places the answer cites, in order |
//! | `consulted` | sources given or read but not cited |
//! | `citations` | one object per citation of the answer: `uri`, `quote` (absent: none beside it), `verdict` (`verified`, `other_page`, `not_found`, `no_quote`, `unverifiable`), `foundAt` (where the quote really is) |
//! | `threadId` | the thread (`.agentero/chats/<threadId>/`) |
//! | `sessionId` | the ACP session id |
//! | `fingerprint` | the grant fingerprint of this turn's plan |
//! | `mode` | `mcp` or `prompt_only` (the wording the agent got; `prompt_only` also while falling back) |
//! | `stopReason` | the agent's stop reason (`end_turn`, `cancelled`, …) |
//! | `session` | `new`, `resumed` or `loaded` |
//! | `warm` | the session came from the warm pool |
//! | `attached` | the agent attached the context server (absent when none was offered) |
//! | `notices` | messages about the session (e.g. the attachment fallback) |
//! | `agent` | the agent's name |
//! | `timing` | milliseconds: `planMs`, `agentStartMs` (start + `initialize`), `hostMs` (grant and thread bookkeeping), `promptSentMs`, `firstChunkMs`, `totalMs` (the turn) |

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Context;
use serde_json::json;

use super::client::AgentProcess;
use super::handoff::{handoff_request, run_handoff};
use super::transcript::{Handoff, Thread};
use super::turn::{ToolStatus, TurnEvent, TurnOutcome, TurnSpec, run_turn};
use crate::config::Config;
use crate::context::budget::Budget;
use crate::context::mention::syntax;
use crate::context::{ContextRequest, CurrentPaper, Locality, Mode, Selection};
use crate::vault::Vault;
use crate::vault::visible::visible;

#[derive(Debug, Clone, Default)]
pub struct AskOptions {
    pub agent: Option<String>,
    pub thread: Option<String>,
    pub new: bool,
    pub paper: Option<String>,
    pub page: Option<u32>,
    pub selection: Option<String>,
    pub remote: bool,
    pub json: bool,
    pub config: Option<PathBuf>,
    pub timeout_secs: Option<u64>,
    /// Ask the agent for the thread's handoff summary instead of a question.
    pub handoff: bool,
    pub question: String,
}

/// The question's mentions ([`syntax::mentions`]), each once.
pub fn mentions_of(question: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for m in syntax::mentions(question) {
        if !out.iter().any(|o| o == m.path) {
            out.push(m.path.to_string());
        }
    }
    out
}

/// Runs `ask` on a runtime of its own and prints to stdout.
pub fn run(vault: &Vault, opts: AskOptions) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let exe = std::env::current_exe().context("cannot locate the agentero executable")?;
    let result = runtime.block_on(async {
        let mut out = std::io::stdout();
        ask(vault, &opts, &exe, &mut out).await
    });
    runtime.shutdown_timeout(Duration::from_millis(500));
    result.map(|_| ())
}

/// One `ask` turn; `exe` is the executable that serves the context MCP server and runs the
/// built-in agent. Streams to `out` (text mode) or prints the JSON object at the end.
pub async fn ask(
    vault: &Vault,
    opts: &AskOptions,
    exe: &std::path::Path,
    out: &mut (dyn Write + Send),
) -> anyhow::Result<TurnOutcome> {
    let config = Config::load(opts.config.as_deref(), exe)?;
    for p in &config.problems {
        eprintln!("warning: {}", visible(p));
    }
    let def = config.agent(opts.agent.as_deref())?.clone();
    if opts.handoff && opts.thread.is_none() {
        anyhow::bail!("--handoff needs --thread ID (the thread to hand off)");
    }
    if !opts.handoff && opts.question.trim().is_empty() {
        anyhow::bail!("the question is empty");
    }
    ensure_index(vault)?;
    let mut thread = open_thread(vault, opts)?;
    let remote = opts.remote || def.remote;
    let request = request_of(opts, &thread, remote, config.budget);
    let timeout = Duration::from_secs(opts.timeout_secs.unwrap_or(config.turn_timeout_secs).max(1));
    let t_plan = std::time::Instant::now();
    let spec = TurnSpec::planned(vault, request, exe.to_path_buf(), timeout);
    let plan_ms = t_plan.elapsed().as_secs_f64() * 1e3;
    let omitted = omitted_mentions(vault, &spec.plan);
    if !opts.json {
        for o in &omitted {
            eprintln!("warning: {}", visible(&o.sentence()));
        }
    }
    let t_start = std::time::Instant::now();
    let place = crate::acp::client::Place::of(vault, exe);
    let mut agent = AgentProcess::start(&def, &place).await?;
    let start_ms = t_start.elapsed().as_secs_f64() * 1e3;
    // A one-shot process never uses a refill.
    agent.auto_refill = false;
    if remote && def.warm_pool > 0 {
        agent.fill_pool(def.warm_pool).await;
    }
    let on_ctrl_c = spec.cancel.clone();
    let watcher = tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_ctrl_c.notify_one();
        }
    });
    let json_mode = opts.json;
    let mut printer = |e: &TurnEvent| {
        if !json_mode {
            print_event(e);
        }
    };
    let (result, handoff) = if opts.handoff {
        // The summary streams like any answer; the file's text is printed at the end.
        match run_handoff(vault, &mut agent, &mut thread, spec, &mut printer).await {
            Ok((h, o)) => (Ok(o), Some(h)),
            Err(e) => (Err(e), None),
        }
    } else {
        (
            run_turn(vault, &mut agent, &mut thread, spec, &mut printer).await,
            None,
        )
    };
    watcher.abort();
    agent.shutdown().await;
    let outcome = result.map_err(|e| {
        let text = e.to_string();
        match super::adapters::failure_hint(&def, &text) {
            Some(h) => anyhow::anyhow!("{text} (thread {})\n{h}", thread.id),
            None => anyhow::anyhow!("{text} (thread {})", thread.id),
        }
    })?;
    if let Some(h) = handoff {
        print_handoff(out, opts.json, &def.name, &outcome, &h, &thread)?;
        return Ok(outcome);
    }
    if opts.json {
        let mut doc = serde_json::to_value(&outcome)?;
        doc["agent"] = json!(def.name);
        doc["timing"]["planMs"] = json!(plan_ms);
        doc["timing"]["agentStartMs"] = json!(start_ms);
        doc["omitted"] = serde_json::to_value(&omitted)?;
        writeln!(out, "{}", crate::vault::visible::to_json_pretty(&doc)?)?;
    } else {
        print_answer(out, &outcome)?;
    }
    if outcome.stop_reason == "cancelled" {
        anyhow::bail!("the turn was cancelled (thread {})", thread.id);
    }
    Ok(outcome)
}

/// A mention the plan could not grant, why, and the vault path it may have meant.
#[derive(Debug, Clone, serde::Serialize)]
pub struct OmittedMention {
    pub mention: String,
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nearest: Option<String>,
}

impl OmittedMention {
    /// `@collections/JIT is not granted (not_found); did you mean @"collections/JIT compilers/"?`
    pub fn sentence(&self) -> String {
        let mut s = format!(
            "{} is not granted ({})",
            syntax::format(&self.mention),
            self.reason
        );
        if let Some(n) = &self.nearest {
            s.push_str(&format!("; did you mean {}?", syntax::format(n)));
        }
        s
    }
}

/// The mentions a plan leaves out, each with its reason and nearest match — never dropped
/// without a word (a mention of what another chip grants already is no news).
pub fn omitted_mentions(vault: &Vault, plan: &crate::context::ContextPlan) -> Vec<OmittedMention> {
    plan.omitted
        .iter()
        .filter(|o| o.reason != crate::context::mention::DUPLICATE)
        .map(|o| OmittedMention {
            mention: o.mention.clone(),
            reason: o.reason.clone(),
            nearest: crate::context::mention::nearest(vault, &o.mention),
        })
        .collect()
}

/// The thread of this turn: the one `--thread` names, else a new one; its warnings and
/// interrupted turns said on stderr, and its id too (text mode).
fn open_thread(vault: &Vault, opts: &AskOptions) -> anyhow::Result<Thread> {
    let thread = match (&opts.thread, opts.new) {
        (Some(id), false) => {
            Thread::open(vault, id).with_context(|| format!("cannot open thread {id}"))?
        }
        (Some(_), true) => anyhow::bail!("--thread and --new exclude each other"),
        (None, _) => Thread::create(vault),
    };
    for w in &thread.warnings {
        eprintln!("warning: {}", visible(w));
    }
    let cut = thread.interrupted_turns(None).len();
    if cut > 0 {
        eprintln!(
            "note: {cut} earlier turn(s) of this thread were interrupted; what had streamed is kept"
        );
    }
    if !opts.json {
        eprintln!("thread: {}", thread.id);
    }
    Ok(thread)
}

/// What the turn plans from: the thread's handoff request, or the question with its mentions
/// and the reading place.
fn request_of(opts: &AskOptions, thread: &Thread, remote: bool, budget: Budget) -> ContextRequest {
    let locality = if remote {
        Locality::Remote
    } else {
        Locality::Local
    };
    if opts.handoff {
        return ContextRequest {
            locality,
            budget,
            ..handoff_request(thread)
        };
    }
    ContextRequest {
        text: opts.question.clone(),
        mentions: mentions_of(&opts.question),
        current: opts.paper.clone().map(|path| CurrentPaper {
            path,
            page: opts.page,
        }),
        selection: match (&opts.paper, &opts.selection) {
            (Some(p), Some(text)) => Some(Selection {
                path: p.clone(),
                page: opts.page,
                text: text.clone(),
            }),
            _ => None,
        },
        locality,
        budget,
        ..ContextRequest::default()
    }
}

/// One streamed event in text mode: the answer on stdout, tool calls and notices on stderr.
fn print_event(e: &TurnEvent) {
    let mut o = std::io::stdout();
    // The agent's text and titles: never raw control characters on the terminal.
    match e {
        TurnEvent::MessageChunk(t) => {
            let _ = write!(o, "{}", visible(t));
            let _ = o.flush();
        }
        TurnEvent::ToolCall(t) => eprintln!("· {}", visible(&t.title)),
        TurnEvent::ToolUpdate(u) if u.status == Some(ToolStatus::Failed) => {
            eprintln!("· {} failed", visible(&u.id))
        }
        TurnEvent::Notice(n) => eprintln!("note: {}", visible(n)),
        _ => {}
    }
}

/// The end of a handoff: the summary (in the JSON object, or printed) and where it was written.
fn print_handoff(
    out: &mut (dyn Write + Send),
    json_mode: bool,
    agent: &str,
    outcome: &TurnOutcome,
    h: &Handoff,
    thread: &Thread,
) -> anyhow::Result<()> {
    if json_mode {
        let mut doc = serde_json::to_value(outcome)?;
        doc["agent"] = json!(agent);
        doc["handoff"] = json!(h.to_markdown());
        writeln!(out, "{}", crate::vault::visible::to_json_pretty(&doc)?)?;
    } else {
        writeln!(out, "\n")?;
        write!(out, "{}", visible(&h.to_markdown()))?;
        eprintln!(
            "handoff: {}",
            visible(&thread.handoff_path().display().to_string())
        );
    }
    Ok(())
}

/// The end of an answer in text mode: the prompt-only note, the citations and the sources.
fn print_answer(out: &mut (dyn Write + Send), outcome: &TurnOutcome) -> anyhow::Result<()> {
    writeln!(out)?;
    if outcome.mode == Mode::PromptOnly {
        writeln!(
            out,
            "\n(prompt only: the agent could not read the vault beyond the evidence)"
        )?;
    }
    if !outcome.citations.is_empty() {
        writeln!(out, "\nCitations:")?;
        for c in &outcome.citations {
            writeln!(out, "  {}", visible(&c.line()))?;
        }
    }
    writeln!(out, "\nSources:")?;
    if outcome.sources.is_empty() {
        writeln!(out, "  (none)")?;
    }
    for s in &outcome.cited {
        writeln!(out, "  cited      {}", visible(s))?;
    }
    for s in &outcome.consulted {
        writeln!(out, "  consulted  {}", visible(s))?;
    }
    Ok(())
}

/// The context tools read the index: build it when it is missing, and the citing-scan cache
/// (written by the host, never by the context server).
fn ensure_index(vault: &Vault) -> anyhow::Result<()> {
    // Missing: built; damaged: rebuilt (saying so once).
    crate::vault::indexer::open_or_rebuild(vault, &Default::default(), &mut |_| {}, &mut |m| {
        eprintln!("{}", visible(m))
    })
    .context("cannot open the search index")?;
    if let Err(e) = crate::context::library::ensure_cache(vault, &vault.catalog()) {
        tracing::warn!(error = %e, "cannot write the citing-scan cache");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mentions_come_from_at_tokens() {
        assert_eq!(
            mentions_of("Compare @papers/a/paper.pdf, and @notes/ — also @papers/a/paper.pdf?"),
            vec!["papers/a/paper.pdf".to_string(), "notes/".to_string()]
        );
        assert!(mentions_of("no mentions here, mail me at x@y.z").is_empty());
    }
}
