//! Runs effects in tasks that report back on the one event channel, and owns the terminal loop.

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::sync::{Notify, oneshot};

use crate::acp::client::AgentProcess;
use crate::acp::permission::Remembered;
use crate::acp::transcript::{self, Thread as Transcript};
use crate::acp::turn::{
    PermissionAsk, PermissionAsker, PermissionDecision, TurnError, TurnEvent, TurnOutcome,
    TurnSpec, run_turn,
};
use crate::config::AgentDef;
use crate::context::{Budget, ContextRequest};

use crate::vault::indexer::{self, IndexOptions};
use crate::vault::pdf::{self, Limits};
use crate::vault::{EntryKind, SearchIndex, Vault};

use super::app::{AgentState, Effect, Msg, PlanPreview};
use super::chat::{
    self, ChatEvent, PermissionKind, PermissionOption, PermissionRequest, SessionInfo, SourceRef,
};
use super::paper::DocInfo;

/// Pages sent per message while a paper loads in the background.
const PAGE_BATCH: usize = 16;

/// Page texts of the last paper read straight from its PDF: (path, pages).
type Extracted = (String, Vec<String>);

/// The agent the chat talks to and how turns run (from the config).
#[derive(Debug, Clone)]
pub struct AgentSetup {
    pub def: AgentDef,
    /// The executable that serves `--agentero-context-mcp` (normally the current one).
    pub host_exe: PathBuf,
    pub budget: Budget,
    pub timeout: Duration,
}

/// Answers for permission questions on screen, by question id.
type Answers = Arc<Mutex<HashMap<String, oneshot::Sender<Option<String>>>>>;

/// Executes effects; every task ends by sending messages, never by touching the state.
#[derive(Clone)]
pub struct Runner {
    pub vault: Vault,
    tx: UnboundedSender<Msg>,
    index: Arc<Mutex<Option<Arc<SearchIndex>>>>,
    /// Papers extracted straight from the PDF (not indexed yet), by path.
    extracted: Arc<Mutex<Option<Extracted>>>,
    inflight: Arc<AtomicUsize>,
    setup: Arc<Mutex<Option<AgentSetup>>>,
    /// The agent process; a turn holds the lock for its whole length (one turn at a time).
    agent: Arc<tokio::sync::Mutex<Option<AgentProcess>>>,
    /// Threads by the chat pane's id (new threads have a local id until their first turn).
    threads: Arc<Mutex<HashMap<String, Transcript>>>,
    cancels: Arc<Mutex<HashMap<u64, Arc<Notify>>>>,
    answers: Answers,
    /// The "always" permission answers of this vault (`.agentero/permissions.json`).
    remembered: Arc<Mutex<Remembered>>,
    /// The last Quick Chat's scratch transcript, by turn, kept for `Effect::Promote`.
    quick: Arc<Mutex<Option<(u64, Transcript)>>>,
}

/// What a turn is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TurnKind {
    Chat,
    Handoff,
    /// A Quick Chat question: a scratch transcript outside `chats/`, so it is not a thread
    /// until promoted.
    Quick,
}

/// Where Quick Chat transcripts live until promoted or dropped (under `.agentero/`).
const QUICK_DIR: &str = "quick";

impl Runner {
    pub fn new(vault: Vault) -> (Runner, UnboundedReceiver<Msg>) {
        let (tx, rx) = unbounded_channel();
        let remembered = Arc::new(Mutex::new(Remembered::load(&vault.state_dir())));
        (
            Runner {
                remembered,
                vault,
                tx,
                index: Arc::new(Mutex::new(None)),
                extracted: Arc::new(Mutex::new(None)),
                inflight: Arc::new(AtomicUsize::new(0)),
                setup: Arc::new(Mutex::new(None)),
                agent: Arc::new(tokio::sync::Mutex::new(None)),
                threads: Arc::new(Mutex::new(HashMap::new())),
                cancels: Arc::new(Mutex::new(HashMap::new())),
                answers: Arc::new(Mutex::new(HashMap::new())),
                quick: Arc::new(Mutex::new(None)),
            },
            rx,
        )
    }

    /// The agent `Effect::StartAgent` starts and turns run on.
    pub fn set_agent(&self, setup: AgentSetup) {
        if let Ok(mut g) = self.setup.lock() {
            *g = Some(setup);
        }
    }

    fn agent_setup(&self) -> Option<AgentSetup> {
        self.setup.lock().ok()?.clone()
    }

    /// An async task counted in [`Runner::busy`].
    fn task(&self, work: impl Future<Output = ()> + Send + 'static) {
        let inflight = self.inflight.clone();
        inflight.fetch_add(1, Ordering::SeqCst);
        tokio::spawn(async move {
            work.await;
            inflight.fetch_sub(1, Ordering::SeqCst);
        });
    }

    pub fn sender(&self) -> UnboundedSender<Msg> {
        self.tx.clone()
    }

    /// Tasks still running (the headless driver waits for zero).
    pub fn busy(&self) -> usize {
        self.inflight.load(Ordering::SeqCst)
    }

    fn blocking(&self, work: impl FnOnce(&Runner) + Send + 'static) {
        let me = self.clone();
        self.inflight.fetch_add(1, Ordering::SeqCst);
        tokio::task::spawn_blocking(move || {
            work(&me);
            me.inflight.fetch_sub(1, Ordering::SeqCst);
        });
    }

    fn search_index(&self) -> Option<Arc<SearchIndex>> {
        let mut guard = self.index.lock().ok()?;
        if guard.is_none() {
            *guard = self.vault.open_index().ok().map(Arc::new);
        }
        guard.clone()
    }

    pub fn run(&self, effect: Effect) {
        match effect {
            Effect::Scan => self.blocking(|r| {
                let _ =
                    r.tx.send(Msg::Scanned(super::browser::entries_from(&r.vault)));
            }),
            Effect::Index => self.blocking(|r| {
                let tx = r.tx.clone();
                let result = indexer::index_vault(&r.vault, &IndexOptions::default(), &mut |p| {
                    let _ = tx.send(Msg::Index(p));
                });
                if let Ok(mut g) = r.index.lock() {
                    *g = None;
                }
                let _ = r.tx.send(Msg::IndexDone(
                    result
                        .map(|s| {
                            let done = format!(
                                "indexed: {} updated, {} unchanged, {} failed",
                                s.updated,
                                s.unchanged,
                                s.failed.len()
                            );
                            // A damaged index was rebuilt: say so (once, here).
                            match &s.rebuilt {
                                Some(why) => format!("rebuilt the index ({why}); {done}"),
                                None => done,
                            }
                        })
                        .map_err(|e| e.to_string()),
                ));
            }),
            Effect::OpenPaper { req, path, kind } => self.blocking(move |r| {
                let result = r.open(&path, kind);
                let _ = r.tx.send(Msg::PaperOpened { req, result });
            }),
            Effect::LoadPages { req, path, pages } => self.blocking(move |r| {
                for chunk in pages.chunks(PAGE_BATCH) {
                    let loaded = chunk.iter().map(|n| (*n, r.page_text(&path, *n))).collect();
                    if r.tx.send(Msg::Pages { req, pages: loaded }).is_err() {
                        return;
                    }
                }
            }),
            Effect::Plan { seq, mut request } => self.blocking(move |r| {
                // The budget the turn will use, so the preview is the grant.
                if let Some(s) = r.agent_setup() {
                    request.budget = s.budget;
                }
                let plan = crate::context::plan(&r.vault, &request);
                let preview = PlanPreview {
                    mode: plan.mode.as_str().to_string(),
                    sources: plan.sources.len(),
                    omitted: plan.omitted.len(),
                    fingerprint: plan.fingerprint.clone(),
                };
                let _ = r.tx.send(Msg::Plan { seq, preview });
            }),
            Effect::StartAgent => {
                let me = self.clone();
                self.task(async move { me.start_agent().await });
            }
            Effect::LoadThreads => self.blocking(|r| {
                // Quick Chats of an earlier run that were never promoted or closed (the app
                // quit with the popup open): nothing refers to them any more.
                let _ = std::fs::remove_dir_all(r.vault.state_dir().join(QUICK_DIR));
                let _ = r.tx.send(Msg::Threads(r.load_threads()));
            }),
            Effect::QuickTurn { turn, request } => {
                let me = self.clone();
                self.task(
                    async move { me.turn(turn, String::new(), request, TurnKind::Quick).await },
                );
            }
            Effect::Promote { turn } => self.blocking(move |r| {
                let _ = r.tx.send(Msg::Promoted(r.promote(turn)));
            }),
            Effect::DropQuick { turn } => self.blocking(move |r| {
                r.drop_quick(turn);
            }),
            Effect::StartTurn {
                turn,
                thread,
                request,
            } => {
                let me = self.clone();
                self.task(async move { me.turn(turn, thread, request, TurnKind::Chat).await });
            }
            Effect::Handoff { turn, thread } => {
                let me = self.clone();
                self.task(async move {
                    me.turn(turn, thread, ContextRequest::default(), TurnKind::Handoff)
                        .await
                });
            }
            Effect::CancelTurn { turn } => {
                if let Some(c) = self.cancels.lock().ok().and_then(|m| m.get(&turn).cloned()) {
                    // notify_one keeps the permit if the driver is not waiting yet.
                    c.notify_one();
                }
            }
            Effect::AnswerPermission {
                request, option, ..
            } => {
                if let Some(tx) = self
                    .answers
                    .lock()
                    .ok()
                    .and_then(|mut m| m.remove(&request))
                {
                    let _ = tx.send(option);
                }
            }
            Effect::OpenUrl(url) => {
                if let Some(browser) = std::env::var_os("BROWSER") {
                    let spawned = std::process::Command::new(browser)
                        .arg(&url)
                        .stdin(std::process::Stdio::null())
                        .stdout(std::process::Stdio::null())
                        .stderr(std::process::Stdio::null())
                        .spawn();
                    if let Err(e) = spawned {
                        let _ = self
                            .tx
                            .send(Msg::Status(format!("cannot start $BROWSER: {e}")));
                    }
                }
            }
            Effect::Suspend | Effect::Quit => {}
        }
    }

    /// Starts the agent process; the chat's status line follows (starting → ready/failed).
    async fn start_agent(&self) {
        let Some(setup) = self.agent_setup() else {
            let _ = self.tx.send(Msg::Agent(AgentState::Unavailable(
                "no agent is configured".into(),
            )));
            return;
        };
        let mut slot = self.agent.lock().await;
        let state = match self.spawn_agent(&setup).await {
            Ok(a) => {
                *slot = Some(a);
                AgentState::Ready {
                    name: setup.def.name.clone(),
                    remote: setup.def.remote,
                }
            }
            Err(why) => AgentState::Unavailable(why),
        };
        let _ = self.tx.send(Msg::Agent(state));
    }

    async fn spawn_agent(&self, setup: &AgentSetup) -> Result<AgentProcess, String> {
        match AgentProcess::start(&setup.def, &self.vault.state_dir()).await {
            Ok(a) => {
                if setup.def.remote && setup.def.warm_pool > 0 {
                    let dir = self
                        .vault
                        .state_dir()
                        .join(crate::context::grant::SESSIONS_DIR);
                    a.fill_pool(&dir, setup.def.warm_pool).await;
                }
                Ok(a)
            }
            Err(e) => Err(format!("{} failed to start: {e}", setup.def.name)),
        }
    }

    /// Every thread in `.agentero/chats/`, oldest first (the most recent ends up current).
    fn load_threads(&self) -> Vec<chat::Thread> {
        let Ok(dir) = std::fs::read_dir(transcript::chats_dir(&self.vault)) else {
            return Vec::new();
        };
        let mut found: Vec<(String, Transcript)> = Vec::new();
        for e in dir.flatten() {
            let id = e.file_name().to_string_lossy().into_owned();
            match Transcript::open(&self.vault, &id) {
                Ok(t) => found.push((t.state.updated.clone(), t)),
                Err(err) => tracing::warn!(thread = id, error = %err, "cannot load the thread"),
            }
        }
        found.sort_by(|a, b| a.0.cmp(&b.0));
        let out = found
            .iter()
            .map(|(_, t)| chat::from_transcript(t))
            .collect();
        if let Ok(mut m) = self.threads.lock() {
            for (_, t) in found {
                m.entry(t.id.clone()).or_insert(t);
            }
        }
        out
    }

    /// The thread behind the chat pane's id: in memory, else on disk, else a new one (whose
    /// folder appears with its first line).
    fn take_thread(&self, id: &str) -> Transcript {
        if let Some(t) = self.threads.lock().ok().and_then(|mut m| m.remove(id)) {
            return t;
        }
        if crate::context::grant::valid_id(id)
            && transcript::chats_dir(&self.vault).join(id).is_dir()
            && let Ok(t) = Transcript::open(&self.vault, id)
        {
            return t;
        }
        Transcript::create(&self.vault)
    }

    /// Who answers the questions the permission rules leave open: the modal. The future only
    /// waits on a oneshot, so the ACP dispatch loop is never blocked; an unanswered question
    /// (turn cancelled, app quit) is rejected.
    fn ui_asker(&self, turn: u64) -> PermissionAsker {
        let tx = self.tx.clone();
        let answers = self.answers.clone();
        let next = Arc::new(AtomicUsize::new(0));
        Arc::new(move |ask: &PermissionAsk| {
            let id = format!("{turn}-{}", next.fetch_add(1, Ordering::SeqCst));
            let request = permission_request(&id, ask);
            let (answer_tx, answer_rx) = oneshot::channel();
            if let Ok(mut m) = answers.lock() {
                m.insert(id.clone(), answer_tx);
            }
            let shown = tx
                .send(Msg::Chat {
                    turn,
                    event: ChatEvent::Permission(request.clone()),
                })
                .is_ok();
            let answers = answers.clone();
            Box::pin(async move {
                let chosen = if shown {
                    answer_rx.await.ok().flatten()
                } else {
                    None
                };
                if let Ok(mut m) = answers.lock() {
                    m.remove(&id);
                }
                decision_for(&request, chosen.as_deref())
            })
        })
    }

    /// One turn (or the handoff turn) on the agent, streamed into the chat as `ChatEvent`s.
    async fn turn(
        &self,
        turn: u64,
        thread_id: String,
        mut request: ContextRequest,
        kind: TurnKind,
    ) {
        let handoff = kind == TurnKind::Handoff;
        let send = {
            let tx = self.tx.clone();
            move |event: ChatEvent| {
                let _ = tx.send(Msg::Chat { turn, event });
            }
        };
        let Some(setup) = self.agent_setup() else {
            send(ChatEvent::TurnFailed("no agent is configured".into()));
            let _ = self.tx.send(Msg::TurnDone { turn });
            return;
        };
        let cancel = Arc::new(Notify::new());
        if let Ok(mut m) = self.cancels.lock() {
            m.insert(turn, cancel.clone());
        }
        let mut thread = if kind == TurnKind::Quick {
            let mut t = Transcript::create(&self.vault);
            t.dir = self.vault.state_dir().join(QUICK_DIR).join(&t.id);
            t
        } else {
            self.take_thread(&thread_id)
        };
        if handoff {
            let locality = request.locality;
            request = crate::acp::handoff::handoff_request(&thread);
            request.locality = locality;
            if setup.def.remote {
                request.locality = crate::context::Locality::Remote;
            }
        }
        request.budget = setup.budget;
        // The host's side of the context tools (the citing-scan cache) and the grant's sources,
        // off the async threads: both read the vault.
        let (vault, req) = (self.vault.clone(), request.clone());
        let planned = tokio::task::spawn_blocking(move || {
            if let Err(e) = crate::context::library::ensure_cache(&vault, &vault.catalog()) {
                tracing::warn!(error = %e, "cannot write the citing-scan cache");
            }
            crate::context::plan(&vault, &req)
        })
        .await;
        let plan = match planned {
            Ok(p) => p,
            Err(e) => {
                send(ChatEvent::TurnFailed(format!(
                    "cannot plan the context: {e}"
                )));
                self.finish(turn, thread_id, thread, kind);
                return;
            }
        };
        let mut slot = self.agent.lock().await;
        // An agent that was killed (time limit, crash) is started again for this turn.
        if slot.as_ref().is_none_or(|a| a.has_exited()) {
            *slot = None;
            match self.spawn_agent(&setup).await {
                Ok(a) => *slot = Some(a),
                Err(why) => {
                    let _ = self
                        .tx
                        .send(Msg::Agent(AgentState::Unavailable(why.clone())));
                    send(ChatEvent::TurnFailed(why));
                    drop(slot);
                    self.finish(turn, thread_id, thread, kind);
                    return;
                }
            }
        }
        let agent = slot.as_mut().expect("started above");
        let spec = TurnSpec {
            request,
            plan: plan.clone(),
            host_exe: setup.host_exe.clone(),
            timeout: setup.timeout,
            cancel,
            asker: Some(self.ui_asker(turn)),
            remembered: self.remembered.clone(),
        };
        let mut on_event = {
            let send = send.clone();
            move |e: &TurnEvent| {
                if let Some(ev) = chat_event(e) {
                    send(ev);
                }
            }
        };
        let result: Result<(TurnOutcome, Option<String>), TurnError> = if handoff {
            crate::acp::handoff::run_handoff(&self.vault, agent, &mut thread, spec, &mut on_event)
                .await
                .map(|(_, o)| {
                    let path = thread.handoff_path();
                    let shown = path
                        .strip_prefix(self.vault.root())
                        .unwrap_or(&path)
                        .display()
                        .to_string();
                    (o, Some(shown))
                })
        } else {
            run_turn(&self.vault, agent, &mut thread, spec, &mut on_event)
                .await
                .map(|o| (o, None))
        };
        let exited = agent.has_exited();
        drop(slot);
        match result {
            Ok((o, handoff_file)) => {
                send(ChatEvent::Session(SessionInfo {
                    agent: setup.def.name.clone(),
                    mode: o.mode.as_str().to_string(),
                    grant_sources: plan.sources.len(),
                    fingerprint: o.fingerprint.clone(),
                    tools_attached: o.attached == Some(true),
                    session: session_name(o.session).into(),
                }));
                send(ChatEvent::Sources(
                    o.sources
                        .iter()
                        .map(|uri| SourceRef {
                            uri: uri.clone(),
                            quote: plan
                                .evidence
                                .iter()
                                .find(|e| &e.citation_uri == uri)
                                .and_then(|e| e.quote.clone())
                                .or_else(|| chat::quote_for(&o.answer, uri)),
                        })
                        .collect(),
                ));
                if let Some(file) = handoff_file {
                    send(ChatEvent::Notice(format!(
                        "handoff written to {file}: the next question starts a fresh session seeded from it"
                    )));
                    let _ = self
                        .tx
                        .send(Msg::Status(format!("handoff written to {file}")));
                }
                send(ChatEvent::TurnEnded {
                    stop_reason: o.stop_reason,
                });
            }
            Err(e) => {
                send(ChatEvent::TurnFailed(e.to_string()));
                if exited {
                    let _ = self.tx.send(Msg::Status(format!(
                        "agent {} stopped; it starts again with the next question",
                        setup.def.name
                    )));
                }
            }
        }
        self.finish(turn, thread_id, thread, kind);
    }

    fn finish(&self, turn: u64, thread_id: String, thread: Transcript, kind: TurnKind) {
        if kind == TurnKind::Quick {
            // One Quick Chat at a time: the one before it was closed or promoted already.
            let old = self
                .quick
                .lock()
                .ok()
                .and_then(|mut q| q.replace((turn, thread)));
            if let Some((_, old)) = old {
                let _ = std::fs::remove_dir_all(&old.dir);
            }
        } else if let Ok(mut m) = self.threads.lock() {
            m.insert(thread_id, thread);
        }
        if let Ok(mut m) = self.cancels.lock() {
            m.remove(&turn);
        }
        // Questions of this turn that ended unanswered (the turn answered them `cancelled`).
        if let Ok(mut m) = self.answers.lock() {
            let prefix = format!("{turn}-");
            m.retain(|id, _| !id.starts_with(&prefix));
        }
        let _ = self.tx.send(Msg::TurnDone { turn });
    }

    /// The Quick Chat of `turn` as a new thread on disk: its lines appended through the
    /// transcript API, its session kept (the next question there resumes it), the scratch
    /// copy removed. Returns the thread as the chat pane shows it.
    fn promote(&self, turn: u64) -> Result<chat::Thread, String> {
        let quick = self
            .quick
            .lock()
            .map_err(|_| "the Quick Chat is unavailable".to_string())?
            .take_if(|(t, _)| *t == turn)
            .map(|(_, q)| q)
            .ok_or("this Quick Chat is gone (it was closed or replaced)")?;
        let mut thread = Transcript::create(&self.vault);
        thread.state.session = quick.state.session.clone();
        thread.state.title = quick.state.title.clone();
        thread.state.summary = quick.state.summary.clone();
        for line in &quick.lines {
            thread
                .append(line.clone())
                .map_err(|e| format!("cannot write the thread: {e}"))?;
        }
        thread
            .save_state()
            .map_err(|e| format!("cannot write the thread: {e}"))?;
        let _ = std::fs::remove_dir_all(&quick.dir);
        let shown = chat::from_transcript(&thread);
        if let Ok(mut m) = self.threads.lock() {
            m.insert(thread.id.clone(), thread);
        }
        Ok(shown)
    }

    fn drop_quick(&self, turn: u64) {
        let dropped = self
            .quick
            .lock()
            .ok()
            .and_then(|mut q| q.take_if(|(t, _)| *t == turn));
        if let Some((_, q)) = dropped {
            let _ = std::fs::remove_dir_all(&q.dir);
        }
    }

    /// Page count and metadata: from the index's record, else straight from the PDF.
    fn open(&self, path: &str, kind: EntryKind) -> Result<(u32, DocInfo), String> {
        if kind != EntryKind::Paper {
            let text = std::fs::read_to_string(self.vault.root().join(path))
                .map_err(|e| format!("cannot read {path}: {e}"))?;
            if let Ok(mut g) = self.extracted.lock() {
                *g = Some((path.to_string(), vec![text]));
            }
            let title = path.rsplit('/').next().unwrap_or(path).to_string();
            return Ok((
                1,
                DocInfo {
                    title,
                    ..DocInfo::default()
                },
            ));
        }
        if let Some(rec) = self.vault.record_for(path)
            && self.search_index().is_some()
        {
            let m = rec.meta;
            return Ok((
                rec.pages,
                DocInfo {
                    title: m.title,
                    authors: m.authors,
                    year: m.year,
                    doi: m.doi,
                    arxiv: m.arxiv,
                    abstract_text: m.abstract_text,
                    labels: rec.page_labels,
                    sections: rec.sections,
                    pages_without_text: rec.pages_without_text,
                    note: None,
                },
            ));
        }
        // Not indexed yet: extract the PDF in this task (isolated from parser panics).
        let bytes = std::fs::read(self.vault.root().join(path))
            .map_err(|e| format!("cannot read {path}: {e}"))?;
        let limit = Duration::from_secs(60);
        let doc = crate::vault::extract::isolated(limit, move || {
            pdf::extract(
                &bytes,
                Limits {
                    deadline: Instant::now() + limit,
                },
            )
        })
        .map_err(|e| e.to_string())?
        .map_err(|e| e.to_string())?;
        let pages: Vec<String> = doc.pages.iter().map(|p| p.text.clone()).collect();
        let info = DocInfo {
            title: doc
                .title_hint
                .clone()
                .or(doc.info.title.clone())
                .unwrap_or_else(|| path.to_string()),
            labels: doc.pages.iter().map(|p| p.label.clone()).collect(),
            sections: doc
                .outline
                .iter()
                .filter_map(|o| {
                    Some(crate::vault::Section {
                        number: None,
                        title: o.title.clone(),
                        level: o.level + 1,
                        page: o.page?,
                    })
                })
                .collect(),
            pages_without_text: doc
                .pages
                .iter()
                .filter(|p| p.text.trim().is_empty())
                .map(|p| p.number)
                .collect(),
            note: Some("not indexed yet: text read from the PDF directly".into()),
            ..DocInfo::default()
        };
        let n = pages.len() as u32;
        if let Ok(mut g) = self.extracted.lock() {
            *g = Some((path.to_string(), pages));
        }
        Ok((n, info))
    }

    fn page_text(&self, path: &str, n: u32) -> Result<String, String> {
        if let Ok(g) = self.extracted.lock()
            && let Some((p, pages)) = g.as_ref()
            && p == path
        {
            return pages
                .get(n as usize - 1)
                .cloned()
                .ok_or_else(|| format!("no page {n}"));
        }
        let index = self.search_index().ok_or("the index is not available")?;
        match index.page(path, n) {
            Ok(Some(doc)) => Ok(doc.text),
            // Pages without text are not stored: an empty page says so on screen.
            Ok(None) => Ok(String::new()),
            Err(e) => Err(e.to_string()),
        }
    }
}

/// Restores the terminal when the loop ends by any path (ratatui's panic hook covers panics,
/// [`init_terminal`]'s hook the mouse).
struct RestoreGuard;

impl Drop for RestoreGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// `ratatui::init` with mouse capture (scrolling and clicking are a bonus on the keyboard).
fn init_terminal() -> ratatui::DefaultTerminal {
    let t = ratatui::init();
    let _ = ratatui::crossterm::execute!(
        std::io::stdout(),
        ratatui::crossterm::event::EnableMouseCapture
    );
    t
}

/// `ratatui::restore` after giving the mouse back.
fn restore_terminal() {
    let _ = ratatui::crossterm::execute!(
        std::io::stdout(),
        ratatui::crossterm::event::DisableMouseCapture
    );
    ratatui::restore();
}

/// On a panic the mouse is given back too (ratatui's hook restores the rest).
fn mouse_panic_hook() {
    let prev = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let _ = ratatui::crossterm::execute!(
            std::io::stdout(),
            ratatui::crossterm::event::DisableMouseCapture
        );
        prev(info);
    }));
}

/// Wake-ups of the app loop (a message arrived or the frame timer fired), for the idle
/// benchmark: with nothing happening it must not move.
pub static LOOP_WAKEUPS: AtomicU64 = AtomicU64::new(0);
/// Frames drawn by the app loop.
pub static LOOP_DRAWS: AtomicU64 = AtomicU64::new(0);

/// The interactive loop on the real terminal.
pub async fn run_terminal(
    mut app: super::app::AppState,
    theme: super::theme::Theme,
    runner: Runner,
    rx: UnboundedReceiver<Msg>,
) -> anyhow::Result<()> {
    let mut terminal = init_terminal();
    mouse_panic_hook();
    let _guard = RestoreGuard;
    let size = terminal.size()?;
    app.size = (size.width, size.height);
    let tx = runner.sender();
    // Terminal input on its own thread, blocked in read(): no polling timer, no wake-ups
    // while nothing happens. Only built here, on the interactive path (it needs a tty).
    std::thread::Builder::new()
        .name("agentero-input".into())
        .spawn(move || {
            while let Ok(ev) = ratatui::crossterm::event::read() {
                if tx.send(Msg::Term(ev)).is_err() {
                    break;
                }
            }
        })?;
    run_loop(app, &theme, &runner, rx, &mut terminal, &mut |t| {
        suspend()?;
        *t = init_terminal();
        t.clear()?;
        Ok(())
    })
    .await
}

/// The app loop on any backend (the terminal, or a `TestBackend` for the idle benchmark):
/// one channel, drain, update, draw at most every 16 ms. It sleeps in `recv` with nothing to
/// do; the only timer is the one for a frame still owed after a burst of messages.
pub async fn run_loop<B: ratatui::backend::Backend>(
    mut app: super::app::AppState,
    theme: &super::theme::Theme,
    runner: &Runner,
    mut rx: UnboundedReceiver<Msg>,
    terminal: &mut ratatui::Terminal<B>,
    on_suspend: &mut dyn FnMut(&mut ratatui::Terminal<B>) -> anyhow::Result<()>,
) -> anyhow::Result<()>
where
    B::Error: Send + Sync + 'static,
{
    for e in app.start() {
        runner.run(e);
    }
    let frame = Duration::from_millis(16);
    let mut last_draw = Instant::now() - frame;
    terminal.draw(|f| super::view::view(&app, theme, f))?;
    LOOP_DRAWS.fetch_add(1, Ordering::Relaxed);
    let mut dirty = false;
    'outer: loop {
        let msg = if dirty {
            let wait = frame.saturating_sub(last_draw.elapsed());
            let m = tokio::time::timeout(wait, rx.recv()).await;
            LOOP_WAKEUPS.fetch_add(1, Ordering::Relaxed);
            match m {
                Ok(m) => m,
                Err(_) => {
                    terminal.draw(|f| super::view::view(&app, theme, f))?;
                    LOOP_DRAWS.fetch_add(1, Ordering::Relaxed);
                    last_draw = Instant::now();
                    dirty = false;
                    continue;
                }
            }
        } else {
            let m = rx.recv().await;
            LOOP_WAKEUPS.fetch_add(1, Ordering::Relaxed);
            m
        };
        let Some(msg) = msg else { break };
        let mut batch = vec![msg];
        while let Ok(m) = rx.try_recv() {
            batch.push(m);
        }
        for m in batch {
            for e in app.update(m) {
                match e {
                    Effect::Quit => break 'outer,
                    Effect::Suspend => on_suspend(terminal)?,
                    other => runner.run(other),
                }
            }
        }
        if app.quit {
            break;
        }
        dirty = true;
        if last_draw.elapsed() >= frame {
            terminal.draw(|f| super::view::view(&app, theme, f))?;
            LOOP_DRAWS.fetch_add(1, Ordering::Relaxed);
            last_draw = Instant::now();
            dirty = false;
        }
    }
    Ok(())
}

/// ctrl-z: give the terminal back, stop until `fg`, then take it again.
fn suspend() -> anyhow::Result<()> {
    restore_terminal();
    // SIGTSTP to ourselves via kill(1): std has no raise(), and the job-control shell then
    // sees us stopped exactly as with a ctrl-z in cooked mode.
    let pid = std::process::id().to_string();
    std::process::Command::new("kill")
        .args(["-TSTP", &pid])
        .status()?;
    Ok(())
}

fn session_name(o: crate::acp::session::Opening) -> &'static str {
    use crate::acp::session::Opening;
    match o {
        Opening::New => "new",
        Opening::Resumed => "resumed",
        Opening::Loaded => "loaded",
    }
}

/// A turn event as the chat shows it (`None`: nothing to show).
pub fn chat_event(e: &TurnEvent) -> Option<ChatEvent> {
    Some(match e {
        TurnEvent::MessageChunk(t) => ChatEvent::MessageChunk(t.clone()),
        TurnEvent::ThoughtChunk(t) => ChatEvent::ThoughtChunk(t.clone()),
        TurnEvent::ToolCall(t) => ChatEvent::ToolCall {
            id: t.id.clone(),
            title: t.title.clone(),
            status: t.status,
        },
        TurnEvent::ToolUpdate(u) => ChatEvent::ToolCallUpdate {
            id: u.id.clone(),
            status: u.status,
            title: u.title.clone(),
            detail: None,
        },
        TurnEvent::Plan(entries) => ChatEvent::Notice(format!("plan: {}", entries.join("; "))),
        TurnEvent::Notice(n) => ChatEvent::Notice(n.clone()),
        TurnEvent::Commands(_) | TurnEvent::SessionTitle(_) => return None,
    })
}

/// The modal's view of a permission question: the tool, its arguments and files.
pub fn permission_request(id: &str, ask: &PermissionAsk) -> PermissionRequest {
    let mut details = Vec::new();
    if let Some(k) = &ask.kind {
        details.push(format!("kind: {k}"));
    }
    if let Some(a) = ask.arguments_line() {
        details.push(format!("arguments: {a}"));
    }
    if !ask.locations.is_empty() {
        let files: Vec<String> = ask
            .locations
            .iter()
            .map(|l| l.display().to_string())
            .collect();
        details.push(format!("files: {}", files.join(", ")));
    }
    if let Some(d) = &ask.detail {
        let first = d.lines().next().unwrap_or_default();
        if !first.is_empty() && !details.iter().any(|x| x.contains(first)) {
            details.push(first.to_string());
        }
    }
    PermissionRequest {
        id: id.to_string(),
        title: ask.title.clone(),
        details,
        options: ask
            .options
            .iter()
            .map(|o| PermissionOption {
                id: o.id.clone(),
                name: o.name.clone(),
                kind: o.kind,
            })
            .collect(),
    }
}

/// The user's option as a decision; no answer (dismissed, no such option) is a reject.
pub fn decision_for(request: &PermissionRequest, chosen: Option<&str>) -> PermissionDecision {
    let kind = chosen.and_then(|id| request.options.iter().find(|o| o.id == id).map(|o| o.kind));
    match kind {
        Some(PermissionKind::AllowOnce) => PermissionDecision::AllowOnce,
        Some(PermissionKind::AllowAlways) => PermissionDecision::AllowAlways,
        Some(PermissionKind::RejectAlways) => PermissionDecision::RejectAlways,
        Some(PermissionKind::RejectOnce) | None => PermissionDecision::RejectOnce,
    }
}

#[cfg(test)]
mod tests {
    use agent_client_protocol::v1::schema::{
        PermissionOption as AcpOption, PermissionOptionKind, RequestPermissionRequest,
        ToolCallLocation, ToolCallUpdate, ToolCallUpdateFields, ToolKind,
    };

    use super::*;
    use crate::acp::events::ToolStatus;
    use crate::acp::permission::ask_of;

    fn request(root: &std::path::Path, kind: ToolKind, path: &str) -> RequestPermissionRequest {
        RequestPermissionRequest::new(
            "s1",
            ToolCallUpdate::new(
                "call-1",
                ToolCallUpdateFields::new()
                    .kind(kind)
                    .title("edit".to_string())
                    .raw_input(serde_json::json!({"path": path}))
                    .locations(vec![ToolCallLocation::new(root.join(path))]),
            ),
            vec![
                AcpOption::new("yes", "Allow", PermissionOptionKind::AllowOnce),
                AcpOption::new("no", "Reject", PermissionOptionKind::RejectOnce),
                AcpOption::new("never", "Never", PermissionOptionKind::RejectAlways),
            ],
        )
    }

    /// The asker's question shows as the modal (with the call's arguments and files); the
    /// user's option comes back through `Effect::AnswerPermission` while the future waits (no
    /// blocking anywhere).
    #[test]
    fn permission_questions_wait_for_the_users_answer() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("papers/a")).unwrap();
        let vault = Vault::open(dir.path()).unwrap();
        let root = vault.root().to_path_buf();
        let _g = rt.enter();
        let (runner, mut rx) = Runner::new(vault);
        let asker = runner.ui_asker(7);

        let write = ask_of(&request(&root, ToolKind::Other, "papers/a/paper.pdf"));
        let pending = asker(&write);
        let Ok(Msg::Chat {
            turn: 7,
            event: ChatEvent::Permission(shown),
        }) = rx.try_recv()
        else {
            panic!("no permission question");
        };
        assert_eq!(shown.title, "edit");
        assert!(
            shown
                .details
                .iter()
                .any(|d| d == "arguments: path: papers/a/paper.pdf"),
            "{:?}",
            shown.details
        );
        assert!(shown.details.iter().any(|d| d.starts_with("files: ")));
        assert_eq!(shown.options.len(), 3);
        runner.run(Effect::AnswerPermission {
            turn: 7,
            request: shown.id.clone(),
            option: Some("yes".into()),
        });
        let d = rt.block_on(async { tokio::time::timeout(Duration::from_secs(5), pending).await });
        assert_eq!(d.unwrap(), PermissionDecision::AllowOnce);

        // Dismissed (no option) and a question nobody can answer any more: reject.
        let pending = asker(&write);
        let Ok(Msg::Chat {
            event: ChatEvent::Permission(shown),
            ..
        }) = rx.try_recv()
        else {
            panic!("no permission question");
        };
        runner.run(Effect::AnswerPermission {
            turn: 7,
            request: shown.id,
            option: None,
        });
        let d = rt.block_on(async { tokio::time::timeout(Duration::from_secs(5), pending).await });
        assert_eq!(d.unwrap(), PermissionDecision::RejectOnce);
        let pending = asker(&write);
        runner.answers.lock().unwrap().clear();
        let d = rt.block_on(async { tokio::time::timeout(Duration::from_secs(5), pending).await });
        assert_eq!(d.unwrap(), PermissionDecision::RejectOnce);
    }

    #[test]
    fn the_chosen_option_maps_to_its_kind() {
        let r = PermissionRequest {
            id: "1".into(),
            title: "t".into(),
            details: Vec::new(),
            options: vec![PermissionOption {
                id: "x".into(),
                name: "Always".into(),
                kind: PermissionKind::RejectAlways,
            }],
        };
        assert_eq!(
            decision_for(&r, Some("x")),
            PermissionDecision::RejectAlways
        );
        assert_eq!(
            decision_for(&r, Some("other")),
            PermissionDecision::RejectOnce
        );
    }

    #[test]
    fn turn_events_become_chat_events() {
        let e = chat_event(&TurnEvent::ToolUpdate(crate::acp::events::ToolUpdateInfo {
            id: "c".into(),
            title: None,
            status: Some(ToolStatus::Completed),
            input: None,
        }));
        assert_eq!(
            e,
            Some(ChatEvent::ToolCallUpdate {
                id: "c".into(),
                status: Some(ToolStatus::Completed),
                title: None,
                detail: None
            })
        );
        assert_eq!(chat_event(&TurnEvent::Commands(vec![])), None);
    }
}
