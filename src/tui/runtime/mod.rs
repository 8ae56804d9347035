//! Runs effects and owns the terminal loop ([`terminal`]). The [`Runner`] routes each effect
//! to the service that owns its state — documents, page images, turns and threads, the
//! reading state, the vault MCP server — each a task behind one channel ([`documents`],
//! [`images`], [`turns`], [`reading`], [`vault_mcp`]), or runs a job that holds nothing.
//! Every service and job ends by sending messages on the one event channel, never by touching
//! the app's state.

mod clipboard;
mod docs;
mod documents;
mod images;
mod marks;
mod reading;
pub mod terminal;
pub mod termquery;
mod threads;
mod turn;
mod turns;
mod turns_cmd;
mod vault_mcp;
mod watch;
mod work;

use crate::tui::app::Status;
use crate::tui::settings::Settings;
use std::path::PathBuf;
use std::sync::Mutex;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

use crate::tui::effect::MarksEffect;
use crate::vault::Vault;
use ratatui_image::picker::Picker;

use super::app::{Effect, Msg};
use clipboard::Clipboard;
use documents::Documents;
use images::Images;
use reading::Reading;
use turns::Turns;
pub use turns_cmd::AgentSetup;
use turns_cmd::{Cmd as TurnCmd, TurnKind};
use vault_mcp::VaultMcpService;
use work::Busy;

/// Routes effects to the services; shares no locked state with them (each service owns its
/// own, behind its channel).
pub struct Runner {
    pub vault: Vault,
    tx: UnboundedSender<Msg>,
    busy: Busy,
    documents: Documents,
    images: Images,
    turns: Turns,
    reading: Reading,
    vault_mcp: VaultMcpService,
    clipboard: Clipboard,
    watch: watch::Watch,
    /// `$AGENTERO_PDF_VIEWER` as read at start (only the runner reads and sets it).
    pdf_viewer: Mutex<Option<String>>,
    /// `$BROWSER` as read at start: what web links open with.
    browser: Option<std::ffi::OsString>,
}

impl Runner {
    /// The runner and the app's event channel; its services start as tasks on the current
    /// tokio runtime (call it inside one, or under `Runtime::enter`).
    /// `settings`: the environment's, read once at start ([`Settings::from_env`]).
    pub fn new(vault: Vault, settings: &Settings) -> (Runner, UnboundedReceiver<Msg>) {
        let (tx, rx) = unbounded_channel();
        let busy = Busy::default();
        let runner = Runner {
            documents: Documents::start(vault.clone(), tx.clone(), busy.clone()),
            images: Images::start(
                vault.clone(),
                tx.clone(),
                busy.clone(),
                settings.render.clone(),
            ),
            turns: Turns::start(vault.clone(), tx.clone(), busy.clone()),
            reading: Reading::start(vault.clone(), tx.clone(), busy.clone()),
            vault_mcp: VaultMcpService::start(vault.clone(), tx.clone(), settings.serve_port),
            clipboard: Clipboard::default(),
            watch: watch::Watch::new(vault.clone(), tx.clone()),
            pdf_viewer: Mutex::new(settings.pdf_viewer.clone()),
            browser: settings.browser.clone(),
            vault,
            tx,
            busy,
        };
        (runner, rx)
    }

    /// Copies go to the terminal's clipboard as OSC 52 sequences (the interactive app).
    pub fn copy_to_terminal(&self) {
        self.clipboard.to_terminal();
    }

    /// The text copied last.
    pub fn copied(&self) -> Option<String> {
        self.clipboard.last()
    }

    /// The PDF viewer `O` starts, as `$AGENTERO_PDF_VIEWER` would name it (`None`: the
    /// desktop's default).
    pub fn set_pdf_viewer(&self, spec: Option<String>) {
        if let Ok(mut g) = self.pdf_viewer.lock() {
            *g = spec;
        }
    }

    /// How page images are drawn: what the terminal answered when asked (kitty, sixel,
    /// iTerm2 or half-blocks) and its font size.
    pub fn set_picker(&self, picker: Picker) {
        self.images.set_picker(picker);
    }

    /// The agentero executable page images are rendered by (`--render-page`).
    pub fn set_render_exe(&self, exe: PathBuf) {
        self.images.set_render_exe(exe);
    }

    /// The agent `Effect::StartAgent` starts and turns run on.
    pub fn set_agent(&self, setup: AgentSetup) {
        self.turns.send(TurnCmd::Setup(Box::new(setup)));
    }

    pub fn sender(&self) -> UnboundedSender<Msg> {
        self.tx.clone()
    }

    /// Work still under way: tasks, jobs and commands the services have not handled yet (the
    /// headless driver waits for zero).
    pub fn busy(&self) -> usize {
        self.busy.count()
    }

    pub fn run(&self, effect: Effect) {
        match effect {
            Effect::Marks(m) => self.marks(m),
            Effect::Scan => self.job(|vault, ui| {
                let _ = ui.send(Msg::Scanned(super::listing::entries_from(vault)));
            }),
            Effect::Index => self.documents.reindex(),
            Effect::OpenPaper { req, path, kind } => self.documents.open(req, path, kind),
            Effect::LoadPages { req, path, pages } => self.documents.load_pages(req, path, pages),
            Effect::PageLinks {
                seq,
                path,
                page,
                pages,
            } => self.documents.links(seq, path, page, pages),
            Effect::VaultSearch { seq, query } => self.documents.search(seq, query),
            Effect::CheckDraft { seq, draft, bibs } => self.documents.check(seq, draft, bibs),
            Effect::WatchDraft { id, draft } => self.watch.watch(id, draft),
            Effect::RenderPage { key, path } => self.images.render(key, path),
            Effect::Plan { seq, request } => self.turns.counted(|held| TurnCmd::Plan {
                seq,
                request: Box::new(request),
                held,
            }),
            Effect::StartAgent => self.turns.counted(|held| TurnCmd::StartAgent { held }),
            Effect::LoadThreads => self.turns.counted(|held| TurnCmd::LoadThreads { held }),
            Effect::StartTurn {
                turn,
                thread,
                request,
            } => self.turn(turn, thread, request, TurnKind::Chat),
            Effect::QuickTurn { turn, request } => {
                self.turn(turn, String::new(), request, TurnKind::Quick)
            }
            Effect::Handoff { turn, thread } => {
                self.turn(turn, thread, Default::default(), TurnKind::Handoff)
            }
            Effect::Promote { turn } => self.turns.counted(|held| TurnCmd::Promote { turn, held }),
            Effect::DropQuick { turn } => {
                self.turns.counted(|held| TurnCmd::DropQuick { turn, held })
            }
            Effect::CancelTurn { turn } => self.turns.send(TurnCmd::Cancel { turn }),
            Effect::AnswerPermission {
                request, option, ..
            } => self.turns.send(TurnCmd::Answer { request, option }),
            Effect::LoadReading => self.reading.load(),
            Effect::SaveReading { state, now } => self.reading.save(state, now),
            Effect::ToggleVaultMcp => self.vault_mcp.toggle(),
            Effect::Copy(text) => self.clipboard.copy(text, &self.tx),
            Effect::OpenViewer { path, page } => {
                let spec = self.pdf_viewer.lock().ok().and_then(|g| g.clone());
                self.job(move |vault, ui| {
                    let msg = open_viewer(vault, spec.as_deref(), &path, page);
                    let _ = ui.send(Msg::Status(Status::of(msg)));
                });
            }
            Effect::OpenUrl(url) => self.open_url(&url),
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

    fn turn(
        &self,
        turn: u64,
        thread: String,
        request: crate::context::ContextRequest,
        kind: TurnKind,
    ) {
        self.turns.counted(|held| TurnCmd::Turn {
            turn,
            thread,
            request: Box::new(request),
            kind,
            held,
        });
    }

    /// A job that holds no state, off the async threads, counted in [`Runner::busy`].
    fn job(&self, work: impl FnOnce(&Vault, &UnboundedSender<Msg>) + Send + 'static) {
        let (vault, ui) = (self.vault.clone(), self.tx.clone());
        self.busy.blocking(move || work(&vault, &ui));
    }

    /// Highlights and exports; a thread to export is named by its id on disk, which the turns
    /// service knows.
    fn marks(&self, m: MarksEffect) {
        let (thread, format) = match m {
            MarksEffect::ExportThread { thread, format } => (thread, format),
            other => return self.job(move |vault, ui| marks::marks(vault, ui, other)),
        };
        let (reply, asked) = tokio::sync::oneshot::channel();
        self.turns.send(TurnCmd::ThreadId {
            id: thread.clone(),
            reply,
        });
        let (vault, ui) = (self.vault.clone(), self.tx.clone());
        self.busy.task(async move {
            let thread = asked.await.unwrap_or(thread);
            let export = MarksEffect::ExportThread { thread, format };
            let _ = tokio::task::spawn_blocking(move || marks::marks(&vault, &ui, export)).await;
        });
    }

    /// A web address opened with `$BROWSER`; without one it is copied (OSC 52) and the
    /// status says how to open links.
    fn open_url(&self, url: &str) {
        use crate::vault::visible::visible;
        let shown = visible(url);
        let status = match &self.browser {
            Some(browser) => {
                let spawned = std::process::Command::new(browser)
                    .arg(url)
                    .stdin(std::process::Stdio::null())
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn();
                match spawned {
                    Ok(_) => Status::info(format!("opening {shown}")),
                    Err(e) => Status::error(format!("cannot start $BROWSER: {e}")),
                }
            }
            None => {
                let clean: String = url.chars().filter(|c| !c.is_control()).collect();
                self.clipboard.copy(clean, &self.tx);
                Status::info(format!(
                    "copied {shown} (through the terminal, OSC 52; set $BROWSER to open links)"
                ))
            }
        };
        let _ = self.tx.send(Msg::Status(status));
    }
}

fn open_viewer(vault: &Vault, spec: Option<&str>, path: &str, page: u32) -> Result<String, String> {
    let r = vault.resolve(path).map_err(|e| e.to_string())?;
    let cmd = crate::viewer::choose(spec, &r.abs, page);
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// Opening another paper aborts the page loads of the one before: none of its pages
    /// arrive after the new paper is opened, the new one's all do, and no work is left
    /// counted.
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
        let (runner, mut rx) = Runner::new(vault, &Default::default());
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        let open = |req| Effect::OpenPaper {
            req,
            path: "a.md".into(),
            kind: crate::vault::EntryKind::File,
        };
        runner.run(open(1));
        while std::time::Instant::now() < deadline {
            match rx.try_recv() {
                Ok(Msg::PaperOpened { req: 1, result }) => {
                    assert_eq!(result.unwrap().0, 1);
                    break;
                }
                Ok(_) => {}
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        // Far more pages than a load reads before the next paper is asked for.
        const MANY: usize = 200_000;
        runner.run(Effect::LoadPages {
            req: 1,
            path: "a.md".into(),
            pages: vec![1; MANY],
        });
        runner.run(open(2));
        let (mut first, mut opened, mut late) = (0, false, 0);
        loop {
            match rx.try_recv() {
                Ok(Msg::Pages { req: 1, pages }) => {
                    first += pages.len();
                    late += usize::from(opened);
                }
                Ok(Msg::PaperOpened { req: 2, .. }) => opened = true,
                Ok(_) => {}
                Err(_) if runner.busy() == 0 || std::time::Instant::now() > deadline => break,
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        assert_eq!(runner.busy(), 0);
        assert!(opened);
        assert_eq!(
            late, 0,
            "a page of the superseded paper arrived after the new one"
        );
        assert!(first < MANY, "the superseded load ran to its end");
        runner.run(Effect::LoadPages {
            req: 2,
            path: "a.md".into(),
            pages: vec![1; 64],
        });
        let mut pages = 0;
        while pages < 64 && std::time::Instant::now() < deadline {
            match rx.try_recv() {
                Ok(Msg::Pages { req: 2, pages: p }) => {
                    assert!(p.iter().all(|(_, t)| t.as_deref() == Ok("one page")));
                    pages += p.len();
                }
                Ok(_) => {}
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
        assert_eq!(pages, 64);
    }
}
