//! Snapshot tests of every pane and overlay on ratatui's TestBackend (insta), at 80x24 and
//! 160x48, plus a few cell styles checked against the default theme.

use agentero::tui::app::{AgentState, Msg, Pane};
use agentero::tui::chat::{
    ChatEvent, PermissionKind, PermissionOption, PermissionRequest, SessionInfo, SourceRef,
    ToolStatus,
};
use agentero::tui::headless::Headless;
use ratatui::style::Color;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

fn demo(w: u16, h: u16) -> (tempfile::TempDir, Headless) {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    let mut h = Headless::open(&vault, w, h).unwrap();
    h.settle();
    (dir, h)
}

fn open_paper(h: &mut Headless, path: &str) {
    h.keys("space f g g");
    let pos = h
        .app
        .browser
        .visible
        .iter()
        .position(|&i| h.app.browser.entries[i].path == path)
        .unwrap();
    for _ in 0..pos {
        h.keys("j");
    }
    h.keys("enter");
}

fn snap(name: &str, w: u16, h: u16, screen: String) {
    insta::assert_snapshot!(format!("{name}_{w}x{h}"), screen);
}

#[test]
fn empty_vault() {
    for (w, hh) in SIZES {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join("vault");
        std::fs::create_dir_all(&vault).unwrap();
        let mut h = Headless::open(&vault, w, hh).unwrap();
        h.settle();
        snap("empty_vault", w, hh, h.render());
    }
}

#[test]
fn browser_and_long_page() {
    for (w, hh) in SIZES {
        let (_d, mut h) = demo(w, hh);
        snap("browser", w, hh, h.render());
        open_paper(&mut h, "papers/reading-machines-survey/paper.pdf");
        h.keys("ctrl-d");
        snap("long_page", w, hh, h.render());
    }
}

#[test]
fn search_hits_are_highlighted() {
    for (w, hh) in SIZES {
        let (_d, mut h) = demo(w, hh);
        open_paper(&mut h, "papers/dense-vs-sparse/paper.pdf");
        h.keys("/");
        h.type_text("retrieval");
        h.keys("enter");
        let screen = h.render();
        snap("search_hits", w, hh, screen);
        // The current match is drawn in paper.match.current (black on light red).
        let buf = h.buffer();
        let found = buf.content.iter().any(|c| c.bg == Color::LightRed);
        assert!(found, "no cell styled as the current match");
    }
}

#[test]
fn overlays_outline_metadata_help() {
    for (w, hh) in SIZES {
        let (_d, mut h) = demo(w, hh);
        open_paper(&mut h, "papers/dense-vs-sparse/paper.pdf");
        h.keys("t");
        snap("outline", w, hh, h.render());
        h.keys("esc M");
        snap("metadata", w, hh, h.render());
        h.keys("esc ?");
        snap("help", w, hh, h.render());
        h.keys("esc space");
        snap("which_key", w, hh, h.render());
    }
}

fn stream(h: &mut Headless) {
    h.app.chat.agent = AgentState::Ready {
        name: "builtin".into(),
        remote: false,
    };
    h.app.focus = Pane::Chat;
    h.app.chat.turn = Some(7);
    let ev = |h: &mut Headless, event| h.send(Msg::Chat { turn: 7, event });
    ev(
        h,
        ChatEvent::Session(SessionInfo {
            agent: "builtin".into(),
            mode: "mcp".into(),
            grant_sources: 1,
            fingerprint: "3fa9c1d2e4".into(),
            tools_attached: true,
            session: "new".into(),
        }),
    );
    ev(
        h,
        ChatEvent::ThoughtChunk(
            "Looking for the comparison table first.\nThen the ablation.".into(),
        ),
    );
    ev(
        h,
        ChatEvent::ToolCall {
            id: "t1".into(),
            title: "context_search \"dense sparse recall\"".into(),
            status: ToolStatus::Completed,
        },
    );
    ev(
        h,
        ChatEvent::ToolCall {
            id: "t2".into(),
            title: "context_read papers/dense-vs-sparse/paper.pdf p.2".into(),
            status: ToolStatus::InProgress,
        },
    );
    ev(
        h,
        ChatEvent::ToolCall {
            id: "t3".into(),
            title: "paper_relations".into(),
            status: ToolStatus::Pending,
        },
    );
    ev(
        h,
        ChatEvent::ToolCall {
            id: "t4".into(),
            title: "context_read notes/secret.md".into(),
            status: ToolStatus::Failed,
        },
    );
    ev(
        h,
        ChatEvent::ToolCallUpdate {
            id: "t4".into(),
            status: None,
            title: None,
            detail: Some("path outside the grant".into()),
        },
    );
    ev(
        h,
        ChatEvent::MessageChunk(
            "## Findings\n\nDense retrieval **beats** sparse on *recall*, ".into(),
        ),
    );
    ev(h, ChatEvent::MessageChunk("but not on rare terms:\n\n- BM25 wins on `exact` ids\n- dense wins on paraphrase 漢字 wide text\n".into()));
}

#[test]
fn mid_stream_answer_and_tool_states() {
    for (w, hh) in SIZES {
        let (_d, mut h) = demo(w, hh);
        stream(&mut h);
        snap("mid_stream", w, hh, h.render());
        // Expand the failed tool call (k selects the last selectable item).
        h.keys("k z");
        snap("tool_expanded", w, hh, h.render());
    }
}

#[test]
fn sources_list_and_citation_jump() {
    for (w, hh) in SIZES {
        let (_d, mut h) = demo(w, hh);
        stream(&mut h);
        h.send(Msg::Chat {
            turn: 7,
            event: ChatEvent::Sources(vec![
                SourceRef {
                    uri: "papers/dense-vs-sparse/paper.pdf#page=2".into(),
                    quote: None,
                },
                SourceRef {
                    uri: "notes/retrieval-comparison.md#line=1,4".into(),
                    quote: None,
                },
                SourceRef {
                    uri: "https://arxiv.org/abs/2101.00001".into(),
                    quote: None,
                },
            ]),
        });
        h.send(Msg::Chat {
            turn: 7,
            event: ChatEvent::TurnEnded {
                stop_reason: "end_turn".into(),
            },
        });
        h.keys("k k k");
        snap("sources", w, hh, h.render());
        h.keys("enter");
        h.settle();
        let p = h.app.paper.as_ref().unwrap();
        assert_eq!(
            (p.path.as_str(), p.page),
            ("papers/dense-vs-sparse/paper.pdf", 2)
        );
        snap("citation_jump", w, hh, h.render());
    }
}

#[test]
fn permission_modal() {
    for (w, hh) in SIZES {
        let (_d, mut h) = demo(w, hh);
        stream(&mut h);
        let opt = |id: &str, name: &str, kind| PermissionOption {
            id: id.into(),
            name: name.into(),
            kind,
        };
        h.send(Msg::Chat {
            turn: 7,
            event: ChatEvent::Permission(PermissionRequest {
                id: "p1".into(),
                title: "Read papers/dense-vs-sparse/paper.pdf".into(),
                options: vec![
                    opt("ao", "Allow once", PermissionKind::AllowOnce),
                    opt("aa", "Always allow", PermissionKind::AllowAlways),
                    opt("ro", "Reject", PermissionKind::RejectOnce),
                    opt("ra", "Always reject", PermissionKind::RejectAlways),
                ],
            }),
        });
        snap("permission", w, hh, h.render());
        h.keys("a");
        assert!(h.app.overlay.is_none());
    }
}

#[test]
fn mention_popup() {
    for (w, hh) in SIZES {
        let (_d, mut h) = demo(w, hh);
        h.keys("i");
        h.type_text("what does @dense");
        snap("mention_popup", w, hh, h.render());
        h.keys("enter");
        snap("mention_chip", w, hh, h.render());
    }
}
