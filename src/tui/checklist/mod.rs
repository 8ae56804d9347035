//! A manuscript's citations as a checklist beside the paper pane (`c` on a draft in the vault
//! browser, `agentero --check DRAFT`, `space k` to show or hide it): it takes the vault
//! browser's place, a row per citation — its mark (✓, ⚠, · for a claim without a quote),
//! where it is in the draft, the key and page as written and what it came to — and the
//! selected citation in full below. Enter opens the cited paper in the paper pane at the page
//! the quote is on (or the cited page), the quote highlighted, and the checklist keeps the
//! keys: `]` / `[` open the next / previous citation that needs a look. The manuscript is
//! checked again when it is saved, and on `r`; the rows stay while it is.

pub mod view;

use std::path::PathBuf;

use crate::context::check::source::{DraftAt, DraftReport, Stamp};
use crate::context::check::{Checked, Outcome};
use crate::tui::action::Action;
use crate::tui::effect::{Effect, Jump, Out};
use crate::vault::visible::visible;

/// The checklist of one manuscript.
#[derive(Debug, Clone)]
pub struct Checklist {
    pub draft: DraftAt,
    /// The bibliographies given for it (none: the ones it declares).
    pub bibs: Vec<PathBuf>,
    /// The check under way (its number), or the last one when `running` is false.
    pub seq: u64,
    pub running: bool,
    /// The last check's report, or why it failed.
    pub result: Option<Result<DraftReport, String>>,
    pub selected: usize,
    /// The first row shown.
    pub offset: usize,
    /// Whether it is shown (in the vault browser's place).
    pub shown: bool,
    /// Numbers its watches for saves.
    pub watch: u64,
}

impl Checklist {
    pub fn new(draft: DraftAt, bibs: Vec<PathBuf>) -> Checklist {
        Checklist {
            draft,
            bibs,
            seq: 0,
            running: false,
            result: None,
            selected: 0,
            offset: 0,
            shown: true,
            watch: 0,
        }
    }

    /// The citations of the last report (none while the first check runs or when it failed).
    pub fn rows(&self) -> &[Checked] {
        match &self.result {
            Some(Ok(r)) => &r.report.citations,
            _ => &[],
        }
    }

    pub fn current(&self) -> Option<&Checked> {
        self.rows().get(self.selected)
    }

    /// A check of it, numbered `seq`, starts (the rows stay until it ends).
    pub fn recheck(&mut self, seq: u64) -> Effect {
        self.seq = seq;
        self.running = true;
        Effect::CheckDraft {
            seq,
            draft: self.draft.clone(),
            bibs: self.bibs.clone(),
        }
    }

    /// The report of check `seq` (an older one's is dropped). The selection stays on the
    /// citation it was on when that citation is still there (same key, locator and quote),
    /// else on the row it was.
    pub fn checked(&mut self, seq: u64, result: Result<DraftReport, String>) -> bool {
        if seq != self.seq {
            return false;
        }
        let before = self
            .current()
            .map(|c| (c.key.clone(), c.locator.clone(), c.quote.clone()));
        self.running = false;
        self.result = Some(result);
        let rows = self.rows();
        let kept = before.and_then(|b| {
            rows.iter()
                .position(|c| (c.key.clone(), c.locator.clone(), c.quote.clone()) == b)
        });
        self.selected = kept
            .unwrap_or(self.selected)
            .min(rows.len().saturating_sub(1));
        true
    }

    /// The watch for saves while it is shown (a new number ends the last watch).
    pub fn watch_effect(&mut self) -> Effect {
        self.watch += 1;
        let since = match &self.result {
            Some(Ok(r)) => r.stamp,
            _ => None::<Stamp>,
        };
        Effect::WatchDraft {
            id: self.watch,
            draft: self.shown.then(|| (self.draft.clone(), since)),
        }
    }

    /// A key's action on the list; `rows`: how many rows the pane shows.
    pub fn update(&mut self, action: Action, count: Option<u32>, rows: usize) -> Vec<Out> {
        let n = self.rows().len();
        let max = n.saturating_sub(1);
        let by = count.unwrap_or(1).max(1) as usize;
        match action {
            Action::MoveDown => self.selected = (self.selected + by).min(max),
            Action::MoveUp => self.selected = self.selected.saturating_sub(by),
            Action::HalfPageDown => self.selected = (self.selected + rows / 2).min(max),
            Action::HalfPageUp => self.selected = self.selected.saturating_sub(rows / 2),
            Action::GotoTop => self.selected = 0,
            Action::GotoPage => {
                self.selected = count.map_or(max, |c| (c as usize).saturating_sub(1).min(max))
            }
            Action::Open => return self.open(),
            Action::NextProblem | Action::PrevProblem => {
                return match self.next_problem(action == Action::NextProblem) {
                    Some(i) => {
                        self.selected = i;
                        self.follow(rows);
                        self.open()
                    }
                    None if n == 0 => Vec::new(),
                    None => vec![Out::info("every citation checks out: nothing needs a look")],
                };
            }
            _ => return Vec::new(),
        }
        self.follow(rows);
        Vec::new()
    }

    /// Keeps the selection among the `rows` shown.
    pub fn follow(&mut self, rows: usize) {
        let rows = rows.max(1);
        if self.selected < self.offset {
            self.offset = self.selected;
        } else if self.selected >= self.offset + rows {
            self.offset = self.selected + 1 - rows;
        }
        self.offset = self.offset.min(self.rows().len().saturating_sub(rows));
    }

    /// The next (or previous) citation that needs a look, round the end.
    fn next_problem(&self, forward: bool) -> Option<usize> {
        let rows = self.rows();
        let n = rows.len();
        (1..=n)
            .map(|k| {
                if forward {
                    (self.selected + k) % n
                } else {
                    (self.selected + n - k % n) % n
                }
            })
            .find(|&i| rows[i].outcome.problem())
    }

    /// The selected citation opened: its paper at the page the quote is on (or the cited
    /// page), the quote highlighted where it was found; a key the vault lacks is said.
    fn open(&self) -> Vec<Out> {
        let Some(c) = self.current() else {
            return Vec::new();
        };
        match (&c.uri, c.outcome) {
            (_, Outcome::NotInLibrary | Outcome::Ambiguous) => {
                vec![Out::error(
                    visible(&format!("{}: {}", c.key, c.says)).into_owned(),
                )]
            }
            (Some(u), _) => {
                // A quote that is not on the page is not highlighted.
                let quote = c.quote.clone().filter(|_| {
                    matches!(
                        c.outcome,
                        Outcome::Verified | Outcome::VerifiedOcr | Outcome::OtherPage
                    )
                });
                let mut out: Vec<Out> = Jump::at_uri(u, quote).map(Out::Jump).into_iter().collect();
                out.push(Out::info(
                    visible(&format!("{} {}", c.outcome.glyph(), c.says)).into_owned(),
                ));
                out
            }
            (None, _) => vec![Out::info(visible(&c.says).into_owned())],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::check::{Report, Summary};

    fn cite(line: u32, outcome: Outcome) -> Checked {
        Checked {
            line,
            column: 1,
            key: format!("@k{line}"),
            written: format!("[@k{line}, p. 2]"),
            locator: Some("p. 2".into()),
            quote: Some("a quote".into()),
            claim: String::new(),
            outcome,
            says: "verified on p. 2".into(),
            paper: Some("papers/a/paper.pdf".into()),
            title: None,
            uri: Some("papers/a/paper.pdf#page=2".into()),
            page: Some(2),
            page_label: None,
            note: None,
            support: Vec::new(),
            candidates: Vec::new(),
        }
    }

    fn report(cites: Vec<Checked>) -> DraftReport {
        DraftReport {
            report: Report {
                format: crate::context::check::draft::Format::Markdown,
                citations: cites,
                summary: Summary::default(),
            },
            notes: Vec::new(),
            stamp: None,
        }
    }

    fn list(cites: Vec<Checked>) -> Checklist {
        let mut c = Checklist::new(DraftAt::Vault("notes/d.md".into()), Vec::new());
        let _ = c.recheck(1);
        assert!(c.checked(1, Ok(report(cites))));
        c
    }

    #[test]
    fn next_problem_goes_round_and_opens() {
        let mut c = list(vec![
            cite(1, Outcome::Verified),
            cite(2, Outcome::Differs),
            cite(3, Outcome::Claim),
            cite(4, Outcome::NotFound),
        ]);
        let out = c.update(Action::NextProblem, None, 10);
        assert_eq!(c.selected, 1);
        assert!(matches!(out.first(), Some(Out::Jump(_))), "{out:?}");
        c.update(Action::NextProblem, None, 10);
        assert_eq!(c.selected, 3);
        c.update(Action::NextProblem, None, 10);
        assert_eq!(c.selected, 1, "round the end");
        c.update(Action::PrevProblem, None, 10);
        assert_eq!(c.selected, 3);
    }

    #[test]
    fn nothing_to_look_at_is_said() {
        let mut c = list(vec![cite(1, Outcome::Verified), cite(2, Outcome::Claim)]);
        let out = c.update(Action::NextProblem, None, 10);
        assert_eq!(c.selected, 0);
        assert!(matches!(out.as_slice(), [Out::Status(_)]), "{out:?}");
    }

    #[test]
    fn a_differing_quote_is_not_highlighted() {
        let mut c = list(vec![cite(1, Outcome::Differs)]);
        let out = c.update(Action::Open, None, 10);
        match out.first() {
            Some(Out::Jump(j)) => assert_eq!((j.to.page, j.quote.as_deref()), (2, None)),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_new_report_keeps_the_selected_citation_and_drops_old_ones() {
        let mut c = list(vec![cite(1, Outcome::Verified), cite(5, Outcome::Differs)]);
        c.update(Action::MoveDown, None, 10);
        let _ = c.recheck(2);
        // A late report of the first check changes nothing.
        assert!(!c.checked(1, Ok(report(Vec::new()))));
        assert_eq!(c.rows().len(), 2, "the rows stay while it is checked again");
        // A citation was added above: the selection follows @k5.
        assert!(c.checked(
            2,
            Ok(report(vec![
                cite(0, Outcome::Claim),
                cite(1, Outcome::Verified),
                cite(5, Outcome::Verified),
            ]))
        ));
        assert_eq!(c.current().map(|x| x.key.as_str()), Some("@k5"));
        // A check that fails keeps nothing selected past the end.
        let _ = c.recheck(3);
        assert!(c.checked(3, Err("gone".into())));
        assert_eq!((c.rows().len(), c.selected), (0, 0));
    }

    #[test]
    fn the_selection_stays_in_view() {
        let mut c = list((1..=30).map(|i| cite(i, Outcome::Verified)).collect());
        c.update(Action::GotoPage, None, 5);
        assert_eq!((c.selected, c.offset), (29, 25));
        c.update(Action::GotoTop, None, 5);
        assert_eq!((c.selected, c.offset), (0, 0));
        c.update(Action::MoveDown, Some(7), 5);
        assert_eq!((c.selected, c.offset), (7, 3));
    }
}
