//! The list overlay's contract: enter closes on the selected row's outs, a row's keys and the
//! list's keep it open, a refill is taken only by the list it is for.

use super::{Choice, Overlay};
use crate::tui::action::Action;
use crate::tui::effect::{List, Out, OverlayKind, OverlayRequest, Row};

fn list() -> List {
    let rows = (0..3)
        .map(|i| Row {
            text: format!("row {i}"),
            open: vec![Out::Section(i)],
            keys: vec![(Action::Delete, vec![Out::info(format!("delete {i}"))])],
        })
        .collect();
    let mut list = List::new(OverlayKind::Outline, "t", rows, "none");
    list.keys = vec![(Action::ExportMarkdown, vec![Out::info("export")])];
    list
}

#[test]
fn enter_closes_on_the_row_and_other_keys_keep_the_list() {
    let mut o = Overlay::open(OverlayRequest::List(list()), 0);
    assert_eq!(o.update(Action::MoveDown, Some(5), 24), Choice::Stay);
    assert_eq!(
        o.update(Action::Delete, None, 24),
        Choice::Run {
            close: false,
            outs: vec![Out::info("delete 2")]
        }
    );
    assert_eq!(
        o.update(Action::ExportMarkdown, None, 24),
        Choice::Run {
            close: false,
            outs: vec![Out::info("export")]
        }
    );
    assert_eq!(
        o.update(Action::Open, None, 24),
        Choice::Run {
            close: true,
            outs: vec![Out::Section(2)]
        }
    );
    assert_eq!(o.update(Action::Cancel, None, 24), Choice::Close);
    assert_eq!(o.update(Action::Help, None, 24), Choice::Help);
}

#[test]
fn an_empty_list_closes_or_stays_as_its_opener_said() {
    let mut empty = List::new(OverlayKind::Threads, "t", Vec::new(), "nothing");
    let mut o = Overlay::open(OverlayRequest::List(empty.clone()), 0);
    assert_eq!(
        o.update(Action::Open, None, 24),
        Choice::Run {
            close: true,
            outs: Vec::new()
        }
    );
    assert_eq!(o.update(Action::Delete, None, 24), Choice::Stay);
    empty.empty_open = None;
    let mut o = Overlay::open(OverlayRequest::List(empty), 0);
    assert_eq!(o.update(Action::Open, None, 24), Choice::Stay);
}

#[test]
fn a_refill_is_taken_by_its_own_list_only() {
    let mut o = Overlay::open(OverlayRequest::List(list()), 0);
    o.update(Action::MoveDown, None, 24);
    let mut other = List::new(OverlayKind::Annotations, "other", Vec::new(), "");
    o.refill(other.clone(), true);
    assert!(matches!(&o, Overlay::List(l) if l.title == "t"));
    other.kind = OverlayKind::Outline;
    other.tag = 7;
    o.refill(other.clone(), true);
    assert!(
        matches!(&o, Overlay::List(l) if l.title == "t"),
        "another tag"
    );
    let mut again = list();
    again.title = "again".into();
    o.refill(again.clone(), true);
    assert!(matches!(&o, Overlay::List(l) if l.title == "again" && l.selected == 1));
    o.refill(again, false);
    assert!(matches!(&o, Overlay::List(l) if l.selected == 0));
}
