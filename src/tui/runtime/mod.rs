//! Runs effects in tasks that report back on the one event channel ([`Runner`]), and owns the
//! terminal loop ([`terminal`]).

mod docs;
mod images;
mod marks;
pub mod terminal;
pub mod termquery;
mod threads;
pub mod turn;

use std::collections::HashMap;
use std::future::Future;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tokio::sync::{Notify, oneshot};
use tokio::task::AbortHandle;

use crate::acp::client::AgentProcess;
use crate::acp::permission::Remembered;
use crate::acp::transcript::Thread as Transcript;
use crate::config::AgentDef;
use crate::context::{Budget, ContextRequest};
use crate::vault::indexer::{self, IndexOptions};
use crate::vault::reading::ReadingStore;
use ratatui_image::picker::Picker;

use crate::vault::{SearchIndex, Vault};

use super::app::{Effect, Level, Msg, PlanPreview, Status};

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

/// A page image: the paper's content hash, the page, the resolution.
type PageSlot = (String, u32, crate::vault::render::Region);

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
    /// The page loads under way, by the paper request they belong to: a newer request aborts
    /// the older ones (the previous paper's remaining pages are not worth reading).
    page_loads: Arc<Mutex<Vec<(u64, AbortHandle)>>>,
    /// The vault MCP server for external clients, while it runs (`space m`).
    vault_mcp: Arc<tokio::sync::Mutex<Option<crate::mcp::http::VaultMcp>>>,
    /// The reading state's save waiting for its moment (a newer one replaces it).
    reading_save: Arc<Mutex<Option<AbortHandle>>>,
    /// Numbers the reading state saves; the lock is held while writing and keeps the number
    /// written last, so an older save still writing never lands after a newer one.
    reading_gen: Arc<AtomicUsize>,
    reading_written: Arc<Mutex<usize>>,
    /// How page images reach the terminal (half-blocks until the terminal was asked).
    picker: Arc<Mutex<Picker>>,
    /// The text copied last (`y`), and whether copies go to the terminal as OSC 52 (the
    /// interactive app) or stay here (headless).
    copied: Arc<Mutex<Option<String>>>,
    osc52: Arc<AtomicBool>,
    /// `$AGENTERO_PDF_VIEWER` as read at start.
    pdf_viewer: Arc<Mutex<Option<String>>>,
    /// The executable whose render child draws page images (normally the current one).
    render_exe: Arc<Mutex<PathBuf>>,
    /// Pages refused for a bound this session, by (content hash, page, window), with the reason:
    /// `I` on them again says why at once instead of starting the child again.
    refused: Arc<Mutex<HashMap<PageSlot, String>>>,
}

/// Terminals cap an OSC 52 payload (xterm at about 100 kB of base64).
const OSC52_MAX_BYTES: usize = 74_000;

/// How long a reading state save waits for more changes (a burst of j presses is one write).
const READING_SAVE_DELAY: Duration = Duration::from_millis(300);

/// Counts a task in [`Runner::busy`] until it ends, however it ends (an aborted task is
/// dropped, and this with it).
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn new(count: &Arc<AtomicUsize>) -> InFlight {
        count.fetch_add(1, Ordering::SeqCst);
        InFlight(Arc::clone(count))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
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
                page_loads: Arc::new(Mutex::new(Vec::new())),
                vault_mcp: Arc::default(),
                reading_save: Arc::default(),
                reading_gen: Arc::default(),
                reading_written: Arc::default(),
                picker: Arc::new(Mutex::new(termquery::halfblocks())),
                copied: Arc::default(),
                osc52: Arc::default(),
                pdf_viewer: Arc::new(Mutex::new(std::env::var("AGENTERO_PDF_VIEWER").ok())),
                render_exe: Arc::new(Mutex::new(std::env::current_exe().unwrap_or_default())),
                refused: Arc::default(),
            },
            rx,
        )
    }

    /// Copies go to the terminal's clipboard as OSC 52 sequences (the interactive app).
    pub fn copy_to_terminal(&self) {
        self.osc52.store(true, Ordering::SeqCst);
    }

    /// The text copied last.
    pub fn copied(&self) -> Option<String> {
        self.copied.lock().ok()?.clone()
    }

    /// The PDF viewer `O` starts, as `$AGENTERO_PDF_VIEWER` would name it (`None`: the
    /// desktop's default).
    pub fn set_pdf_viewer(&self, spec: Option<String>) {
        if let Ok(mut g) = self.pdf_viewer.lock() {
            *g = spec;
        }
    }

    fn copy(&self, text: String) {
        if text.len() > OSC52_MAX_BYTES {
            let _ = self.tx.send(Msg::Status(Status::error(format!(
                "not copied: {} kB is more than terminals take through OSC 52",
                text.len() / 1000
            ))));
            return;
        }
        if self.osc52.load(Ordering::SeqCst) {
            use base64::Engine;
            use std::io::Write;
            let b64 = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
            // Written between two frames (effects run on the loop's thread).
            let mut out = std::io::stdout().lock();
            let written = write!(out, "\x1b]52;c;{b64}\x07").and_then(|_| out.flush());
            if let Err(e) = written {
                let _ = self.tx.send(Msg::Status(Status::error(format!(
                    "cannot copy through the terminal: {e}"
                ))));
            }
        }
        if let Ok(mut g) = self.copied.lock() {
            *g = Some(text);
        }
    }

    /// The vault's papers and notes matching `query`, best first; a leading `in:FOLDER/`
    /// keeps to that folder.
    fn vault_search(&self, query: &str) -> Result<Vec<crate::vault::PaperHit>, String> {
        let index = self
            .search_index()
            .ok_or("the vault has no index yet (it is being built)")?;
        let (scope, rest) = match query.trim().strip_prefix("in:") {
            Some(tail) => {
                let (dir, rest) = tail.split_once(char::is_whitespace).unwrap_or((tail, ""));
                let dir = dir.trim_end_matches('/').to_string();
                let scope = crate::vault::Scope {
                    files: Vec::new(),
                    dirs: vec![dir],
                };
                (Some(scope), rest.trim())
            }
            None => (None, query.trim()),
        };
        if rest.is_empty() {
            return Err("nothing to search for after the folder".into());
        }
        let opts = crate::vault::SearchOptions {
            limit: 50,
            excerpt_chars: 160,
            lenient: true,
            scope,
            ..Default::default()
        };
        index.search_papers(rest, &opts).map_err(|e| e.to_string())
    }

    fn open_viewer(&self, path: &str, page: u32) -> Result<String, String> {
        let r = self.vault.resolve(path).map_err(|e| e.to_string())?;
        let spec = self.pdf_viewer.lock().ok().and_then(|g| g.clone());
        let cmd = crate::viewer::choose(spec.as_deref(), &r.abs, page);
        crate::viewer::spawn(&cmd)?;
        Ok(if cmd.with_page {
            format!("opened p. {page} in {}", cmd.program)
        } else {
            format!(
                "opened with {} (at its first page: set AGENTERO_PDF_VIEWER to a viewer that takes a page)",
                cmd.program
            )
        })
    }

    /// How page images are drawn: what the terminal answered when asked (kitty, sixel,
    /// iTerm2 or half-blocks) and its font size.
    pub fn set_picker(&self, picker: Picker) {
        if let Ok(mut g) = self.picker.lock() {
            *g = picker;
        }
    }

    /// The agentero executable page images are rendered by (`--render-page`).
    pub fn set_render_exe(&self, exe: PathBuf) {
        if let Ok(mut g) = self.render_exe.lock() {
            *g = exe;
        }
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
    fn task(&self, work: impl Future<Output = ()> + Send + 'static) -> AbortHandle {
        let counted = InFlight::new(&self.inflight);
        tokio::spawn(async move {
            work.await;
            drop(counted);
        })
        .abort_handle()
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
        let counted = InFlight::new(&self.inflight);
        tokio::task::spawn_blocking(move || {
            work(&me);
            drop(counted);
        });
    }

    /// Aborts the page loads of every paper request but `req` (a late page of the previous
    /// paper would be discarded anyway); forgets the finished ones.
    fn supersede_page_loads(&self, req: u64) {
        if let Ok(mut loads) = self.page_loads.lock() {
            loads.retain(|(r, task)| {
                if *r != req {
                    task.abort();
                }
                *r == req && !task.is_finished()
            });
        }
    }

    /// Page texts in batches, each read off the async threads; the task between batches is
    /// what a newer paper aborts.
    fn load_pages(&self, req: u64, path: String, pages: Vec<u32>) {
        self.supersede_page_loads(req);
        let me = self.clone();
        let task = self.task(async move {
            for chunk in pages.chunks(PAGE_BATCH) {
                let (r, path, chunk) = (me.clone(), path.clone(), chunk.to_vec());
                let read = tokio::task::spawn_blocking(move || {
                    let _counted = InFlight::new(&r.inflight);
                    chunk
                        .iter()
                        .map(|n| (*n, r.page_text(&path, *n)))
                        .collect::<Vec<_>>()
                })
                .await;
                let Ok(loaded) = read else { return };
                if me.tx.send(Msg::Pages { req, pages: loaded }).is_err() {
                    return;
                }
            }
        });
        if let Ok(mut loads) = self.page_loads.lock() {
            loads.push((req, task));
        }
    }

    /// The paper requests whose page loads are still running (oldest first).
    pub fn page_loads(&self) -> Vec<u64> {
        self.page_loads
            .lock()
            .map(|l| {
                l.iter()
                    .filter(|(_, t)| !t.is_finished())
                    .map(|(r, _)| *r)
                    .collect()
            })
            .unwrap_or_default()
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
            Effect::Marks(m) => self.blocking(move |r| r.marks(m)),
            Effect::Scan => self.blocking(|r| {
                let _ =
                    r.tx.send(Msg::Scanned(super::listing::entries_from(&r.vault)));
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
                            let level = if s.failed.is_empty() {
                                Level::Info
                            } else {
                                Level::Error
                            };
                            let done = format!(
                                "indexed: {} updated, {} unchanged, {} failed",
                                s.updated,
                                s.unchanged,
                                s.failed.len()
                            );
                            // A damaged index was rebuilt: say so (once, here).
                            let text = match &s.rebuilt {
                                Some(why) => format!("rebuilt the index ({why}); {done}"),
                                None => done,
                            };
                            Status { text, level }
                        })
                        .map_err(|e| e.to_string()),
                ));
            }),
            Effect::OpenPaper { req, path, kind } => {
                self.supersede_page_loads(req);
                self.blocking(move |r| {
                    let result = r.open(&path, kind);
                    let _ = r.tx.send(Msg::PaperOpened { req, result });
                })
            }
            Effect::LoadPages { req, path, pages } => self.load_pages(req, path, pages),
            Effect::Plan { seq, mut request } => self.blocking(move |r| {
                // The budget the turn will use, so the preview is the grant.
                if let Some(s) = r.agent_setup() {
                    request.budget = s.budget;
                }
                let plan = crate::context::plan(&r.vault, &request);
                let preview = PlanPreview {
                    mode: plan.mode.as_str().to_string(),
                    sources: plan.sources.len(),
                    omitted: plan
                        .omitted
                        .iter()
                        .filter(|o| o.reason != crate::context::mention::DUPLICATE)
                        .count(),
                    duplicates: plan
                        .omitted
                        .iter()
                        .filter(|o| o.reason == crate::context::mention::DUPLICATE)
                        .count(),
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
                let _ = crate::vault::statefs::remove_dir_all(&r.vault.state_dir().join(QUICK_DIR));
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
                        let _ = self.tx.send(Msg::Status(Status::error(format!(
                            "cannot start $BROWSER: {e}"
                        ))));
                    }
                }
            }
            Effect::ToggleVaultMcp => {
                let (slot, tx, vault) =
                    (self.vault_mcp.clone(), self.tx.clone(), self.vault.clone());
                // Not counted as busy work: the server outlives the toggle.
                tokio::spawn(async move {
                    let mut slot = slot.lock().await;
                    let msg = match slot.take() {
                        Some(server) => {
                            server.stop().await;
                            Ok(None)
                        }
                        None => {
                            let port = std::env::var("AGENTERO_SERVE_PORT")
                                .ok()
                                .and_then(|p| p.parse().ok())
                                .unwrap_or(crate::mcp::http::DEFAULT_PORT);
                            let opts = crate::mcp::http::HttpOptions {
                                port,
                                ..Default::default()
                            };
                            match crate::mcp::http::VaultMcp::start(vault, opts).await {
                                Ok(server) => {
                                    let url = server.url();
                                    *slot = Some(server);
                                    Ok(Some(url))
                                }
                                Err(e) => Err(format!(
                                    "{e:#} (is `agentero serve` already running on this port?)"
                                )),
                            }
                        }
                    };
                    let _ = tx.send(Msg::VaultMcp(msg));
                });
            }
            Effect::Copy(text) => self.copy(text),
            Effect::VaultSearch { seq, query } => self.blocking(move |r| {
                let result = r.vault_search(&query);
                let _ = r.tx.send(Msg::VaultSearch { seq, result });
            }),
            Effect::OpenViewer { path, page } => self.blocking(move |r| {
                let _ =
                    r.tx.send(Msg::Status(Status::of(r.open_viewer(&path, page))));
            }),
            Effect::RenderPage { key, path } => self.blocking(move |r| {
                let result = r.page_image(&path, &key);
                let _ = r.tx.send(Msg::PageImage { key, result });
            }),
            Effect::LoadReading => self.blocking(|r| {
                let (state, problems) = ReadingStore::new(&r.vault).load();
                let _ = r.tx.send(Msg::Reading {
                    state: Box::new(state),
                    problems,
                });
            }),
            Effect::SaveReading { state, now } => {
                let store = ReadingStore::new(&self.vault);
                let generation = self.reading_gen.fetch_add(1, Ordering::SeqCst) + 1;
                let written = Arc::clone(&self.reading_written);
                let save = move || -> std::io::Result<()> {
                    let mut last = written.lock().unwrap_or_else(|p| p.into_inner());
                    if *last > generation {
                        return Ok(());
                    }
                    store.save(&state)?;
                    *last = generation;
                    Ok(())
                };
                let waiting = self.reading_save.lock().ok().and_then(|mut g| g.take());
                if let Some(task) = waiting {
                    task.abort();
                }
                if now {
                    // Quitting: written before the app goes (a task would not outlive it).
                    if let Err(e) = save() {
                        tracing::warn!("cannot save the reading state: {e}");
                    }
                    return;
                }
                // Not counted as busy work: a test settling after a key would wait for it.
                let tx = self.tx.clone();
                let task = tokio::spawn(async move {
                    tokio::time::sleep(READING_SAVE_DELAY).await;
                    let saved = tokio::task::spawn_blocking(save).await;
                    if let Ok(Err(e)) = saved {
                        let _ = tx.send(Msg::Status(Status::error(format!(
                            "cannot save the reading state: {e}"
                        ))));
                    }
                });
                if let Ok(mut g) = self.reading_save.lock() {
                    *g = Some(task.abort_handle());
                }
            }
            Effect::ExpireStatus { seq, after } => {
                // Not counted as busy work: nothing waits for a status to fade.
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    tokio::time::sleep(after).await;
                    let _ = tx.send(Msg::StatusExpired(seq));
                });
            }
            Effect::Suspend | Effect::Resume | Effect::Quit => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Opening another paper aborts the page loads of the one before: none of its pages
    /// arrive after that, the new one's all do, and no task is left counted.
    #[test]
    fn a_newer_paper_aborts_the_page_loads_of_the_previous_one() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "one page").unwrap();
        let vault = Vault::open(dir.path()).unwrap();
        let _g = rt.enter();
        let (runner, mut rx) = Runner::new(vault);
        *runner.extracted.lock().unwrap() = Some(("a.md".into(), vec!["text".into(); 64]));
        // Page reads wait on the cache's lock: the first paper's load is held mid-way.
        let held = runner.extracted.lock().unwrap();
        runner.run(Effect::LoadPages {
            req: 1,
            path: "a.md".into(),
            pages: (1..=64).collect(),
        });
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(runner.page_loads(), vec![1]);
        runner.run(Effect::OpenPaper {
            req: 2,
            path: "a.md".into(),
            kind: crate::vault::EntryKind::File,
        });
        assert!(runner.page_loads().is_empty(), "{:?}", runner.page_loads());
        drop(held);
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while runner.busy() > 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(runner.busy(), 0);
        while let Ok(m) = rx.try_recv() {
            assert!(
                !matches!(m, Msg::Pages { req: 1, .. }),
                "a page of the superseded paper arrived"
            );
        }
        runner.run(Effect::LoadPages {
            req: 2,
            path: "a.md".into(),
            pages: (1..=64).collect(),
        });
        let mut pages = 0;
        while pages < 64 && std::time::Instant::now() < deadline {
            match rx.try_recv() {
                Ok(Msg::Pages { req: 2, pages: p }) => pages += p.len(),
                Ok(_) => {}
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        assert_eq!(pages, 64);
    }
}
