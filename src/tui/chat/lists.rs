//! The thread list (`space t`): one row a thread, enter shows it, `b`/`c` write the
//! bibliography it cited; `/` finds turns by what they cited or said, one row a turn.

use super::{Chat, FindThreads};
use crate::acp::cited::Format;
use crate::tui::action::Action;
use crate::tui::effect::{Effect, List, MarksEffect, Out, OverlayKind, PromptKind, Row};
use crate::tui::thread::find::{self, ThreadFilter};

impl Chat {
    /// What the thread list's filter found, while it shows it.
    pub fn thread_filter(&self) -> Option<&ThreadFilter> {
        self.filter.as_ref()
    }

    /// Every thread, the current one selected (the filter forgotten).
    pub(super) fn open_thread_list(&mut self) -> List {
        self.filter = None;
        self.thread_list()
    }

    /// Every thread, the current one selected.
    fn thread_list(&self) -> List {
        let rows = self
            .threads
            .iter()
            .enumerate()
            .map(|(i, t)| Row {
                text: format!("{} · {} items", t.title, t.items.len()),
                open: vec![Out::ShowThread {
                    thread: i,
                    at: None,
                }],
                keys: self.export_keys(i),
            })
            .collect();
        let mut list = List::new(
            OverlayKind::Threads,
            "Threads · enter · / find by @cited page or words · b BibTeX · c CSL",
            rows,
            "",
        );
        list.empty_open = Some(vec![Out::ShowThread {
            thread: 0,
            at: None,
        }]);
        list.selected = self.current;
        list.keys = vec![(Action::Filter, vec![filter_prompt(String::new())])];
        list
    }

    /// The turns the filter finds, one row each (enter shows the thread at that turn).
    fn found_list(&self, filter: &ThreadFilter) -> List {
        let title = format!(
            "{} turn{} found · enter opens there · {}",
            filter.found.len(),
            if filter.found.len() == 1 { "" } else { "s" },
            filter.text.trim(),
        );
        let empty = filter
            .error
            .clone()
            .unwrap_or_else(|| "no thread matches".to_string());
        let rows = filter
            .found
            .iter()
            .map(|t| Row {
                keys: self.export_keys(t.thread),
                open: vec![Out::ShowThread {
                    thread: t.thread,
                    at: Some((t.turn, t.cited.clone())),
                }],
                text: t.row.clone(),
            })
            .collect();
        let mut list = List::new(OverlayKind::Threads, title, rows, empty);
        list.empty_open = None;
        list.keys = vec![(Action::Filter, vec![filter_prompt(filter.text.clone())])];
        list
    }

    /// `b` and `c` on thread `i`: its bibliography written as BibTeX or CSL-JSON.
    fn export_keys(&self, i: usize) -> Vec<(Action, Vec<Out>)> {
        let Some(t) = self.threads.get(i) else {
            return Vec::new();
        };
        [
            (Action::ExportBibtex, Format::Bibtex),
            (Action::ExportCsljson, Format::Csljson),
        ]
        .into_iter()
        .map(|(a, format)| {
            let export = MarksEffect::ExportThread {
                thread: t.id.clone(),
                format,
            };
            (a, vec![Out::Run(Effect::Marks(export))])
        })
        .collect()
    }

    /// The filter typed, kept or cleared: the list shows what it finds, or every thread.
    pub(super) fn find_threads(&mut self, find: FindThreads) -> Vec<Out> {
        let list = match find {
            FindThreads::Typed(text) if !text.trim().is_empty() => {
                // Indexed once for this filter (a turn may have ended since the last one).
                let threads = &self.threads;
                let index = self
                    .thread_index
                    .get_or_insert_with(|| find::index(threads));
                let found = find::find_in(index, &text);
                let list = self.found_list(&found);
                self.filter = Some(found);
                list
            }
            FindThreads::Typed(_) | FindThreads::Cleared => {
                self.thread_index = None;
                self.filter = None;
                self.thread_list()
            }
            FindThreads::Kept => {
                self.thread_index = None;
                return Vec::new();
            }
        };
        vec![Out::Refill {
            list,
            keep_selection: false,
        }]
    }
}

/// `/` on the list: the filter's prompt, with what it holds.
fn filter_prompt(text: String) -> Out {
    Out::Prompt {
        kind: PromptKind::Threads,
        text,
    }
}
