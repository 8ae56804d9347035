//! The documents service: papers opened for the paper pane, their page texts loaded in the
//! background, the vault searched, the index rebuilt. It owns the open search index, the pages
//! of the last paper read straight from its file, and the page loads under way; a newer paper
//! aborts the loads of the one before, and none of their pages reach the app after it.

use crate::context::check::source::{self, DraftAt};
use std::sync::Arc;

use tokio::sync::mpsc::{
    UnboundedReceiver, UnboundedSender, WeakUnboundedSender, unbounded_channel,
};
use tokio::task::AbortHandle;

use super::docs::{self, Extracted};
use super::work::{Busy, Held};
use crate::tui::app::{Msg, Status};
use crate::tui::paper::DocInfo;
use crate::vault::indexer::{self, IndexOptions};
use crate::vault::{EntryKind, PaperHit, SearchIndex, Vault};

/// Pages sent per message while a paper loads in the background.
const PAGE_BATCH: usize = 16;

enum Cmd {
    Open {
        req: u64,
        path: String,
        kind: EntryKind,
        held: Held,
    },
    Load {
        req: u64,
        path: String,
        pages: Vec<u32>,
        held: Held,
    },
    Search {
        seq: u64,
        query: String,
        held: Held,
    },
    Links {
        seq: u64,
        path: String,
        page: u32,
        pages: u32,
        held: Held,
    },
    Check {
        seq: u64,
        draft: DraftAt,
        bibs: Vec<std::path::PathBuf>,
        held: Held,
    },
    Reindex {
        held: Held,
    },
    /// A paper opened off the async threads.
    Opened {
        req: u64,
        result: Box<Result<(u32, DocInfo), String>>,
        extracted: Option<Extracted>,
        held: Held,
    },
    /// A batch of page texts read off the async threads.
    Batch {
        req: u64,
        pages: Vec<(u32, Result<String, String>)>,
        held: Held,
    },
    /// The index a job opened while none was open (of the index as of `generation`).
    IndexOpened {
        generation: u64,
        index: Arc<SearchIndex>,
    },
    Indexed {
        result: Result<Status, String>,
        held: Held,
    },
}

/// The door to the documents service.
pub(super) struct Documents {
    tx: UnboundedSender<Cmd>,
    busy: Busy,
}

impl Drop for Service {
    fn drop(&mut self) {
        self.ocr_cancel
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

impl Documents {
    pub(super) fn start(vault: Vault, ui: UnboundedSender<Msg>, busy: Busy) -> Documents {
        let (tx, rx) = unbounded_channel();
        let service = Service {
            vault,
            ui,
            busy: busy.clone(),
            me: tx.downgrade(),
            index: None,
            generation: 0,
            extracted: None,
            current: None,
            loads: Vec::new(),
            ocr_cancel: Arc::new(std::sync::atomic::AtomicBool::new(false)),
        };
        tokio::spawn(service.serve(rx));
        Documents { tx, busy }
    }

    pub(super) fn open(&self, req: u64, path: String, kind: EntryKind) {
        let held = self.busy.hold();
        let _ = self.tx.send(Cmd::Open {
            req,
            path,
            kind,
            held,
        });
    }

    pub(super) fn load_pages(&self, req: u64, path: String, pages: Vec<u32>) {
        let held = self.busy.hold();
        let _ = self.tx.send(Cmd::Load {
            req,
            path,
            pages,
            held,
        });
    }

    pub(super) fn search(&self, seq: u64, query: String) {
        let held = self.busy.hold();
        let _ = self.tx.send(Cmd::Search { seq, query, held });
    }

    pub(super) fn links(&self, seq: u64, path: String, page: u32, pages: u32) {
        let held = self.busy.hold();
        let _ = self.tx.send(Cmd::Links {
            seq,
            path,
            page,
            pages,
            held,
        });
    }

    pub(super) fn check(&self, seq: u64, draft: DraftAt, bibs: Vec<std::path::PathBuf>) {
        let held = self.busy.hold();
        let _ = self.tx.send(Cmd::Check {
            seq,
            draft,
            bibs,
            held,
        });
    }

    pub(super) fn reindex(&self) {
        let held = self.busy.hold();
        let _ = self.tx.send(Cmd::Reindex { held });
    }
}

struct Service {
    /// Stops the background OCR after the page being read when the service ends.
    ocr_cancel: Arc<std::sync::atomic::AtomicBool>,
    vault: Vault,
    ui: UnboundedSender<Msg>,
    busy: Busy,
    /// Its own channel, for the jobs it starts to report back on (weak: the service ends when
    /// the runner's door is gone).
    me: WeakUnboundedSender<Cmd>,
    /// The search index once opened; `None` again after the index is rebuilt.
    index: Option<Arc<SearchIndex>>,
    /// Counts the rebuilds: an index a job opened before a rebuild is not kept after it.
    generation: u64,
    /// The pages of the last paper read straight from its file.
    extracted: Option<Arc<Extracted>>,
    /// The paper request whose pages the app waits for (the latest one).
    current: Option<u64>,
    /// The page loads under way, by paper request.
    loads: Vec<(u64, AbortHandle)>,
}

/// The index as a job sees it: the one open, else opened by the job itself.
struct IndexAt {
    index: Option<Arc<SearchIndex>>,
    generation: u64,
}

impl IndexAt {
    /// The index, opened now if none was; reports an index opened here to the service.
    fn get(&mut self, vault: &Vault, me: &WeakUnboundedSender<Cmd>) -> Option<Arc<SearchIndex>> {
        if self.index.is_none() {
            self.index = vault.open_index().ok().map(Arc::new);
            if let (Some(index), Some(me)) = (&self.index, me.upgrade()) {
                let _ = me.send(Cmd::IndexOpened {
                    generation: self.generation,
                    index: Arc::clone(index),
                });
            }
        }
        self.index.clone()
    }
}

impl Service {
    async fn serve(mut self, mut rx: UnboundedReceiver<Cmd>) {
        while let Some(cmd) = rx.recv().await {
            self.handle(cmd);
        }
    }

    fn handle(&mut self, cmd: Cmd) {
        match cmd {
            Cmd::Open {
                req,
                path,
                kind,
                held,
            } => self.open(req, path, kind, held),
            Cmd::Load {
                req,
                path,
                pages,
                held,
            } => self.load(req, path, pages, held),
            Cmd::Search { seq, query, held } => self.search(seq, query, held),
            Cmd::Links {
                seq,
                path,
                page,
                pages,
                held,
            } => self.links(seq, path, page, pages, held),
            Cmd::Check {
                seq,
                draft,
                bibs,
                held,
            } => self.check(seq, draft, bibs, held),
            Cmd::Reindex { held } => self.reindex(held),
            Cmd::Opened {
                req,
                result,
                extracted,
                held,
            } => {
                if let Some(e) = extracted {
                    self.extracted = Some(Arc::new(e));
                }
                let result = *result;
                let _ = self.ui.send(Msg::PaperOpened { req, result });
                drop(held);
            }
            Cmd::Batch { req, pages, held } => {
                if self.current == Some(req) {
                    let _ = self.ui.send(Msg::Pages { req, pages });
                }
                drop(held);
            }
            Cmd::IndexOpened { generation, index } => {
                if generation == self.generation && self.index.is_none() {
                    self.index = Some(index);
                }
            }
            Cmd::Indexed { result, held } => {
                self.index = None;
                self.generation += 1;
                let _ = self.ui.send(Msg::IndexDone(result));
                drop(held);
            }
        }
    }

    fn index_at(&self) -> IndexAt {
        IndexAt {
            index: self.index.clone(),
            generation: self.generation,
        }
    }

    /// Aborts the page loads of every paper request but `req` (their pages would be dropped
    /// anyway); forgets the finished ones.
    fn supersede(&mut self, req: u64) {
        self.current = Some(req);
        self.loads.retain(|(r, task)| {
            if *r != req {
                task.abort();
            }
            *r == req && !task.is_finished()
        });
    }

    fn open(&mut self, req: u64, path: String, kind: EntryKind, held: Held) {
        self.supersede(req);
        let (vault, me, mut index) = (self.vault.clone(), self.me.clone(), self.index_at());
        tokio::task::spawn_blocking(move || {
            let index = index.get(&vault, &me);
            let (result, extracted) = match docs::open(&vault, index.as_deref(), &path, kind) {
                Ok((n, info, extracted)) => (Ok((n, info)), extracted),
                Err(e) => (Err(e), None),
            };
            if let Some(me) = me.upgrade() {
                let _ = me.send(Cmd::Opened {
                    req,
                    result: Box::new(result),
                    extracted,
                    held,
                });
            }
        });
    }

    /// Page texts in batches, each read off the async threads; the task between batches is
    /// what a newer paper aborts.
    fn load(&mut self, req: u64, path: String, pages: Vec<u32>, held: Held) {
        self.supersede(req);
        let (vault, me, busy) = (self.vault.clone(), self.me.clone(), self.busy.clone());
        let (mut index, extracted) = (self.index_at(), self.extracted.clone());
        let task = self.busy.task(async move {
            drop(held);
            for chunk in pages.chunks(PAGE_BATCH) {
                let (v, weak, p, chunk) = (vault.clone(), me.clone(), path.clone(), chunk.to_vec());
                let extracted = extracted.clone();
                // Counted on its own: an aborted task leaves its blocking read running.
                let reading = busy.hold();
                let read = tokio::task::spawn_blocking(move || {
                    let idx = index.get(&v, &weak);
                    let loaded: Vec<_> = chunk
                        .iter()
                        .map(|n| {
                            (
                                *n,
                                docs::page_text(extracted.as_deref(), idx.as_deref(), &p, *n),
                            )
                        })
                        .collect();
                    drop(reading);
                    (loaded, index)
                })
                .await;
                let Ok((loaded, idx)) = read else { return };
                index = idx;
                let Some(me) = me.upgrade() else { return };
                let batch = Cmd::Batch {
                    req,
                    pages: loaded,
                    held: busy.hold(),
                };
                if me.send(batch).is_err() {
                    return;
                }
            }
        });
        self.loads.push((req, task));
    }

    fn search(&self, seq: u64, query: String, held: Held) {
        let (vault, me, mut index, ui) = (
            self.vault.clone(),
            self.me.clone(),
            self.index_at(),
            self.ui.clone(),
        );
        tokio::task::spawn_blocking(move || {
            let result = match index.get(&vault, &me) {
                Some(index) => vault_search(&index, &query),
                None => Err("the vault has no index yet (it is being built)".into()),
            };
            let _ = ui.send(Msg::VaultSearch { seq, result });
            drop(held);
        });
    }

    /// The links and citations of a page, off the async threads: every page's text (the
    /// reference list may be anywhere), then the PDF's annotations of that page.
    fn links(&self, seq: u64, path: String, page: u32, pages: u32, held: Held) {
        let (vault, me, mut index, ui) = (
            self.vault.clone(),
            self.me.clone(),
            self.index_at(),
            self.ui.clone(),
        );
        let extracted = self.extracted.clone();
        tokio::task::spawn_blocking(move || {
            let index = index.get(&vault, &me);
            let texts: Vec<String> = (1..=pages.min(docs::MAX_LINK_PAGES))
                .map(|n| docs::page_text(extracted.as_deref(), index.as_deref(), &path, n))
                .map(Result::unwrap_or_default)
                .collect();
            let links = crate::context::links::page_links(&vault, &path, page, &texts);
            let _ = ui.send(Msg::Links { seq, path, links });
            drop(held);
        });
    }

    /// A manuscript's citations checked off the async threads (it reads papers).
    fn check(&self, seq: u64, draft: DraftAt, bibs: Vec<std::path::PathBuf>, held: Held) {
        let (vault, me, mut index, ui) = (
            self.vault.clone(),
            self.me.clone(),
            self.index_at(),
            self.ui.clone(),
        );
        tokio::task::spawn_blocking(move || {
            let index = index.get(&vault, &me);
            let result =
                source::check_draft(&vault, index.as_deref(), &draft, &bibs, &mut |_, _| {})
                    .map(Box::new);
            let _ = ui.send(Msg::Checked { seq, result });
            drop(held);
        });
    }

    fn reindex(&self, held: Held) {
        let (vault, me, ui) = (self.vault.clone(), self.me.clone(), self.ui.clone());
        let cancel = self.ocr_cancel.clone();
        tokio::task::spawn_blocking(move || {
            // Scanned pages are read in the background, one at a time, as the config's `[ocr]`
            // says (a missing tesseract leaves them as they are).
            let exe = std::env::current_exe().unwrap_or_default();
            let ocr = crate::config::Config::load(None, &exe)
                .ok()
                .filter(|c| c.ocr.enabled)
                .map(|c| {
                    let mut o = crate::vault::ocr::OcrOptions::new(c.ocr.languages.clone());
                    if let Some(t) = &c.ocr.tesseract {
                        o.tesseract = t.clone();
                    }
                    o.cancel = cancel;
                    o
                });
            let opts = IndexOptions {
                ocr,
                ..IndexOptions::default()
            };
            let result = indexer::index_vault(&vault, &opts, &mut |p| {
                let _ = ui.send(Msg::Index(p));
            });
            let result = result
                .map(|s| {
                    let done = format!(
                        "indexed: {} updated, {} unchanged, {} failed",
                        s.updated,
                        s.unchanged,
                        s.failed.len()
                    );
                    // A damaged index was rebuilt: say so (once, here).
                    let mut text = match &s.rebuilt {
                        Some(why) => format!("rebuilt the index ({why}); {done}"),
                        None => done,
                    };
                    match &s.ocr {
                        Some(o) if o.unavailable.is_some() => text.push_str(&format!(
                            "; {} scanned pages not read: install tesseract-ocr",
                            o.waiting
                        )),
                        Some(o) if o.pages > 0 => {
                            text.push_str(&format!("; OCR read {} pages", o.pages))
                        }
                        _ => {}
                    }
                    if s.failed.is_empty() {
                        Status::info(text)
                    } else {
                        Status::error(text)
                    }
                })
                .map_err(|e| e.to_string());
            if let Some(me) = me.upgrade() {
                let _ = me.send(Cmd::Indexed { result, held });
            }
        });
    }
}

/// The vault's papers and notes matching `query`, best first; a leading `in:FOLDER/` keeps to
/// that folder.
fn vault_search(index: &SearchIndex, query: &str) -> Result<Vec<PaperHit>, String> {
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
