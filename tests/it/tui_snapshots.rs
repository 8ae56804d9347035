//! Snapshot tests of every pane and overlay on ratatui's TestBackend (insta), at 80x24 and
//! 160x48, plus a few cell styles checked against the default theme.

use agentero::tui::app::{AgentState, Effect, Msg};
use agentero::tui::headless::Headless;
use agentero::tui::keymap::Key;
use agentero::tui::thread::{
    ChatEvent, PermissionKind, PermissionOption, PermissionRequest, SessionInfo, SourceRef,
    ToolStatus,
};
use ratatui::style::Color;

const SIZES: [(u16, u16); 2] = [(80, 24), (160, 48)];

pub(crate) fn demo(w: u16, h: u16) -> (tempfile::TempDir, Headless) {
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
        .browser()
        .visible()
        .position(|e| e.path == path)
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

/// The recently opened list (`space r`): empty at first, then the latest first, each with the
/// page it was left at; and a paper restored at start.
#[test]
fn recently_opened_and_restored() {
    for (w, hh) in SIZES {
        let (d, mut h) = demo(w, hh);
        h.keys("space r");
        snap("recent_empty", w, hh, h.render());
        h.keys("esc");
        open_paper(&mut h, "papers/layoutflow/paper.pdf");
        open_paper(&mut h, "papers/dense-vs-sparse/paper.pdf");
        h.keys("2 G q");
        drop(h);
        let mut h = Headless::open(&d.path().join("vault"), w, hh).unwrap();
        h.settle();
        snap("restored", w, hh, h.render());
        h.keys("space r");
        snap("recent", w, hh, h.render());
    }
}

/// The image view (`I`): the page in half-blocks across the text area, the header says so.
#[test]
fn image_view() {
    for (w, hh) in SIZES {
        let (_d, mut h) = demo(w, hh);
        open_paper(&mut h, "papers/layoutflow/paper.pdf");
        h.keys("I");
        snap("image_view", w, hh, h.render());
    }
}

/// Many chips (the page, a selection, four mentions) wrap over rows instead of being cut: every
/// chip of the grant is on screen, or counted as "+N" past three rows.
#[test]
fn chips_wrap() {
    for (w, hh) in SIZES {
        let (_d, mut h) = demo(w, hh);
        open_paper(&mut h, "papers/layoutflow/paper.pdf");
        h.keys("V j enter");
        for m in ["densesparse", "citeweave", "receiptsqa", "halvorsen"] {
            h.type_text(&format!("@{m}"));
            assert!(h.app.chat().mention().is_some(), "no popup for {m}");
            h.keys("enter");
        }
        let chips = h.app.chat().chips().len();
        assert_eq!(chips, 6, "{:?}", h.app.chat().chips());
        let screen = h.render();
        let shown = screen.matches('✕').count();
        let more: usize = screen
            .lines()
            .filter_map(|l| l.split('+').nth(1))
            .filter_map(|r| {
                r.split(|c: char| !c.is_ascii_digit())
                    .next()?
                    .parse::<usize>()
                    .ok()
            })
            .sum();
        assert_eq!(shown + more, chips, "{screen}");
        snap("chips_wrap", w, hh, screen);
    }
}

/// The vault search's results (`space /`): one card a line, title · page · excerpt with the
/// matches marked.
#[test]
fn vault_search_results() {
    for (w, hh) in SIZES {
        let (_d, mut h) = demo(w, hh);
        h.keys("space /");
        h.type_text("reciprocal rank fusion");
        snap("vault_search_prompt", w, hh, h.render());
        h.keys("enter");
        h.settle();
        snap("vault_search_results", w, hh, h.render());
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

/// A question sent to a ready agent through the keys (its effects not run: the events below
/// stand in for the agent), then a turn streamed into the chat. Returns the turn.
fn stream(h: &mut Headless) -> u64 {
    let _ = h.app.update(Msg::Agent(AgentState::Ready {
        name: "builtin".into(),
        remote: false,
    }));
    let press =
        |h: &mut Headless, k: &str| h.app.update(Msg::Key(Key::parse(k).unwrap().to_event()));
    press(h, "i");
    for c in "Compare dense and sparse retrieval".chars() {
        let _ = h.app.update(Msg::Key(Key::plain(c).to_event()));
    }
    let turn = press(h, "enter")
        .into_iter()
        .find_map(|e| match e {
            Effect::StartTurn { turn, .. } => Some(turn),
            _ => None,
        })
        .expect("the question starts a turn");
    press(h, "esc");
    let ev = |h: &mut Headless, event| h.send(Msg::Chat { turn, event });
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
    turn
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
        let turn = stream(&mut h);
        h.send(Msg::Chat {
            turn,
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
        // What the tools read and the answer does not cite: folded under the cited ones.
        h.send(Msg::Chat {
            turn,
            event: ChatEvent::Consulted(vec![
                SourceRef {
                    uri: "papers/citeweave/paper.pdf#page=1".into(),
                    quote: None,
                },
                SourceRef {
                    uri: "notes/reading-list.md#line=1,3".into(),
                    quote: None,
                },
            ]),
        });
        h.send(Msg::Chat {
            turn,
            event: ChatEvent::TurnEnded {
                stop_reason: "end_turn".into(),
            },
        });
        h.keys("k");
        snap("consulted_folded", w, hh, h.render());
        h.keys("z");
        snap("consulted_listed", w, hh, h.render());
        h.keys("z k k k");
        snap("sources", w, hh, h.render());
        h.keys("enter");
        h.settle();
        let p = h.app.paper().unwrap();
        assert_eq!(
            (p.path(), p.page()),
            ("papers/dense-vs-sparse/paper.pdf", 2)
        );
        snap("citation_jump", w, hh, h.render());
    }
}

#[test]
fn permission_modal() {
    for (w, hh) in SIZES {
        let (_d, mut h) = demo(w, hh);
        let turn = stream(&mut h);
        let opt = |id: &str, name: &str, kind| PermissionOption {
            id: id.into(),
            name: name.into(),
            kind,
        };
        h.send(Msg::Chat {
            turn,
            event: ChatEvent::Permission(PermissionRequest {
                id: "p1".into(),
                title: "fetch_page (web MCP Server)".into(),
                details: vec![
                    "kind: other".into(),
                    "arguments: url: https://arxiv.org/abs/2101.00001, maxLength: 20000".into(),
                ],
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
        assert!(h.app.overlay().is_none());
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

/// The Quick Chat popup over the paper: the question being typed with the page and selection
/// chips, then the streamed answer with its sources (one selected) and the keys that apply.
#[test]
fn quick_chat_popup() {
    for (w, hh) in SIZES {
        let (_d, mut h) = demo(w, hh);
        open_paper(&mut h, "papers/dense-vs-sparse/paper.pdf");
        let _ = h.app.update(Msg::Agent(AgentState::Ready {
            name: "builtin".into(),
            remote: false,
        }));
        h.keys("V j space q");
        h.type_text("Why does dense retrieval lose on rare terms?");
        snap("quick_chat_question", w, hh, h.render());
        // Sent without running the effect: the events below stand in for the agent.
        let enter = Key::parse("enter").unwrap().to_event();
        let _ = h.app.update(Msg::Key(enter));
        let turn = h.app.quick().unwrap().turn().expect("quick turn");
        let ev = |h: &mut Headless, event| h.send(Msg::Chat { turn, event });
        ev(
            &mut h,
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
            &mut h,
            ChatEvent::MessageChunk(
                "Rare terms are **exact ids**: a sparse index matches them, an embedding blurs them.\n\n> \"BM25 wins on exact identifiers\" — papers/dense-vs-sparse/paper.pdf#page=2\n".into(),
            ),
        );
        ev(
            &mut h,
            ChatEvent::Sources(vec![
                SourceRef {
                    uri: "papers/dense-vs-sparse/paper.pdf#page=2".into(),
                    quote: Some("BM25 wins on exact identifiers".into()),
                },
                SourceRef {
                    uri: "https://doi.org/10.1000/dense.2021".into(),
                    quote: None,
                },
                SourceRef {
                    uri: "https://arxiv.org/abs/2104.08663".into(),
                    quote: None,
                },
            ]),
        );
        ev(
            &mut h,
            ChatEvent::TurnEnded {
                stop_reason: "end_turn".into(),
            },
        );
        h.keys("g g");
        snap("quick_chat_answer", w, hh, h.render());
        external_sources_are_hyperlinks(&h);
    }
}

/// The DOI and arXiv sources carry OSC 8 sequences: the opening one in the link's first cell,
/// the closing one in its last, both forced to width 1, so ratatui's diff writes every
/// following cell at its own column (nothing after the link shifts or is skipped).
fn external_sources_are_hyperlinks(h: &Headless) {
    use agentero::tui::thread::cells::{OSC8_CLOSE, osc8_open};
    use ratatui::buffer::Buffer;
    let buf = h.buffer();
    for url in [
        "https://doi.org/10.1000/dense.2021",
        "https://arxiv.org/abs/2104.08663",
    ] {
        let open = osc8_open(url);
        let (i, _) = buf
            .content
            .iter()
            .enumerate()
            .find(|(_, c)| c.symbol() == format!("{open}h"))
            .unwrap_or_else(|| panic!("no OSC 8 link for {url}"));
        let (x, y) = buf.pos_of(i);
        let last = (x..buf.area.right())
            .find(|&e| buf[(e, y)].symbol().ends_with(OSC8_CLOSE))
            .expect("the link is closed on its row");
        assert_eq!(
            buf[(last, y)].symbol(),
            format!("{}{OSC8_CLOSE}", url.chars().last().unwrap())
        );
        assert_eq!((last - x + 1) as usize, url.len(), "{url}");
        // Drawn on a blank screen: every cell of the row from the link on is written at its
        // own column, including the popup's right border.
        let blank = Buffer::empty(buf.area);
        let written: Vec<u16> = blank
            .diff(buf)
            .into_iter()
            .filter(|(_, cy, _)| *cy == y)
            .map(|(cx, _, _)| cx)
            .collect();
        for cx in [x + 1, last, last + 1] {
            assert!(
                written.contains(&cx) || buf[(cx, y)].symbol() == " ",
                "cell {cx} of row {y} not written: {written:?}"
            );
        }
        let border = (last..buf.area.right())
            .find(|&e| buf[(e, y)].symbol() == "│")
            .expect("the popup's border");
        assert!(written.contains(&border));
        let above = (x..buf.area.right())
            .find(|&e| buf[(e, y - 1)].symbol() == "│")
            .unwrap();
        assert_eq!(border, above, "the border moved on the link's row");
    }
}

/// The verdicts of a turn's citations under its answer, computed by the real verifier on the
/// demo vault's paper: a quote on its page (✓), one that is on the other page (⚠ with that
/// page), an invented one (⚠ not found) and a citation without a quote (·). Enter on the ⚠
/// opens the page where the quote really is.
#[test]
fn citation_verdicts_under_the_answer() {
    use agentero::context::citations::{Verdict, check_in_vault};
    for (w, hh) in SIZES {
        let (d, mut h) = demo(w, hh);
        let turn = stream(&mut h);
        let answer = "\n> \"the hybrid reaches 0.731 and 0.538\" — papers/dense-vs-sparse/paper.pdf#page=1\n\n\
            > \"The dense index needs 1.2 GB of memory\" — papers/dense-vs-sparse/paper.pdf#page=1\n\n\
            > \"Dense retrieval always wins on scientific questions\" — papers/dense-vs-sparse/paper.pdf#page=2\n\n\
            See also papers/dense-vs-sparse/paper.pdf#page=2.\n";
        h.send(Msg::Chat {
            turn,
            event: ChatEvent::MessageChunk(answer.into()),
        });
        let vault = agentero::vault::Vault::open(&d.path().join("vault")).unwrap();
        let checks = check_in_vault(&vault, answer, &[]);
        let kinds: Vec<(Verdict, Option<&str>)> = checks
            .iter()
            .map(|c| (c.verdict, c.found_at.as_deref()))
            .collect();
        assert_eq!(
            kinds,
            [
                (Verdict::Verified, None),
                (
                    Verdict::OtherPage,
                    Some("papers/dense-vs-sparse/paper.pdf#page=2")
                ),
                (Verdict::NotFound, None),
                (Verdict::NoQuote, None),
            ],
            "{checks:#?}"
        );
        h.send(Msg::Chat {
            turn,
            event: ChatEvent::Citations(checks),
        });
        h.send(Msg::Chat {
            turn,
            event: ChatEvent::Sources(vec![
                SourceRef {
                    uri: "papers/dense-vs-sparse/paper.pdf#page=1".into(),
                    quote: None,
                },
                SourceRef {
                    uri: "papers/dense-vs-sparse/paper.pdf#page=2".into(),
                    quote: None,
                },
            ]),
        });
        h.send(Msg::Chat {
            turn,
            event: ChatEvent::TurnEnded {
                stop_reason: "end_turn".into(),
            },
        });
        // Up from the end: the two sources, then the verdicts (the last one first).
        h.keys("k k k k k");
        let screen = h.render();
        assert!(screen.contains("· verified"), "{screen}");
        assert!(screen.contains("on p.2"), "{screen}");
        snap("citation_verdicts", w, hh, screen);
        h.keys("enter");
        h.settle();
        let p = h.app.paper().unwrap();
        assert_eq!(
            (p.path(), p.page()),
            ("papers/dense-vs-sparse/paper.pdf", 2)
        );
    }
}

/// A paper at a Zotero-style path (`storage/KEY/Author - Year - Title.pdf`): the answer's
/// percent-encoded citation URI reads as the file's name and page, and the verdicts name it
/// by that name, not by a path that fills four rows.
#[test]
fn zotero_style_citations_read_briefly() {
    use agentero::context::citations::check_in_vault;
    for (w, hh) in SIZES {
        let (d, mut h) = demo(w, hh);
        let root = d.path().join("vault");
        let file = "storage/ABCD2345/Öster et al. - 2015 - Footnotes and furniture.pdf";
        std::fs::create_dir_all(root.join("storage/ABCD2345")).unwrap();
        std::fs::copy(
            root.join("papers/dense-vs-sparse/paper.pdf"),
            root.join(file),
        )
        .unwrap();
        let encoded = agentero::vault::uri::page_uri(file, 1);
        assert!(encoded.contains("%C3%96"), "{encoded}");
        let turn = stream(&mut h);
        let answer = format!(
            "\n> \"Reciprocal rank fusion of the two reaches a recall at 10 of 0.731\" — {encoded}\n"
        );
        h.send(Msg::Chat {
            turn,
            event: ChatEvent::MessageChunk(answer.clone()),
        });
        let vault = agentero::vault::Vault::open(&root).unwrap();
        let checks = check_in_vault(&vault, &answer, &[]);
        assert_eq!(checks.len(), 1, "{checks:#?}");
        h.send(Msg::Chat {
            turn,
            event: ChatEvent::Citations(checks),
        });
        h.send(Msg::Chat {
            turn,
            event: ChatEvent::TurnEnded {
                stop_reason: "end_turn".into(),
            },
        });
        let screen = h.render();
        assert!(!screen.contains("%C3"), "{screen}");
        assert!(screen.contains("‹Öster et al."), "{screen}");
        assert!(screen.contains("citations of Öster et al."), "{screen}");
        snap("zotero_citations", w, hh, screen);
    }
}

/// The thread list's filter: two threads restored with their answers' verdicts; `/` and a
/// cited page list the one turn that cited it (the filter line in the status bar), words list
/// theirs.
#[test]
fn thread_list_filter() {
    use agentero::context::citations::{CitationCheck, Verdict};
    use agentero::tui::thread::{Item, ItemKind, Thread};
    let turn = |t: &mut Thread, q: &str, a: &str, quote: &str, cited: &[&str]| {
        t.items.push(Item::new(ItemKind::User {
            text: q.into(),
            chips: vec![],
        }));
        t.apply(ChatEvent::MessageChunk(a.into()));
        t.apply(ChatEvent::Citations(
            cited
                .iter()
                .map(|u| CitationCheck {
                    uri: u.to_string(),
                    quote: Some(quote.into()),
                    verdict: Verdict::Verified,
                    found_at: None,
                    detail: None,
                })
                .collect(),
        ));
    };
    for (w, hh) in SIZES {
        let (_d, mut h) = demo(w, hh);
        let mut a = Thread::new("a".into());
        a.title = "Which retriever wins?".into();
        turn(
            &mut a,
            "Which retriever wins? @papers/dense-vs-sparse/paper.pdf",
            "> \"the hybrid reaches 0.731 and 0.538\" — papers/dense-vs-sparse/paper.pdf#page=1",
            "the hybrid reaches 0.731 and 0.538",
            &["papers/dense-vs-sparse/paper.pdf#page=1"],
        );
        turn(
            &mut a,
            "And what does the dense index cost?",
            "> \"The dense index needs 1.2 GB of memory\" — papers/dense-vs-sparse/paper.pdf#page=2",
            "The dense index needs 1.2 GB of memory",
            &["papers/dense-vs-sparse/paper.pdf#page=2"],
        );
        let mut b = Thread::new("b".into());
        b.title = "How are columns found?".into();
        turn(
            &mut b,
            "How are columns found?",
            "> \"Columns are found from vertical whitespace\" — papers/layoutflow/paper.pdf#page=2",
            "Columns are found from vertical whitespace",
            &["papers/layoutflow/paper.pdf#page=2"],
        );
        h.send(Msg::Threads(vec![a, b]));
        h.keys("space t");
        snap("thread_list", w, hh, h.render());
        h.keys("/");
        h.type_text("@papers/dense-vs-sparse/paper.pdf#page=2");
        let screen = h.render();
        assert!(screen.contains("1 turn found"), "{screen}");
        snap("thread_list_cited_page", w, hh, screen);
        h.keys("esc /");
        h.type_text("dense");
        let screen = h.render();
        assert!(screen.contains("2 turns found"), "{screen}");
        snap("thread_list_words", w, hh, screen);
    }
}

/// `g g` in a chat whose answer follows its tool cards: the window is the thread's top and is
/// full (the answer under the cards, no blank rows).
#[test]
fn chat_top_is_full() {
    for (w, hh) in SIZES {
        let (_d, mut h) = demo(w, hh);
        let turn = stream(&mut h);
        h.send(Msg::Chat {
            turn,
            event: ChatEvent::TurnEnded {
                stop_reason: "end_turn".into(),
            },
        });
        h.keys("space c g g");
        let screen = h.render();
        assert!(screen.contains("Findings"), "{screen}");
        snap("chat_top", w, hh, screen);
    }
}

/// Two papers of one title in folders of one name: each row names the folders that tell them
/// apart, at 80 and 160 columns, the title cut rather than the folder.
#[test]
fn twins_named_by_folder() {
    for (w, hh) in SIZES {
        let (d, _) = demo(w, hh);
        let vault = d.path().join("vault");
        let twin = vault.join("papers/archive/layoutflow");
        std::fs::create_dir_all(&twin).unwrap();
        std::fs::copy(
            vault.join("papers/layoutflow/paper.pdf"),
            twin.join("paper.pdf"),
        )
        .unwrap();
        let mut h = Headless::open(&vault, w, hh).unwrap();
        h.settle();
        let screen = h.render();
        // The folders that differ always show; at 160 columns the whole names.
        let folders: &[&str] = if w >= 160 {
            &["(archive/layoutflow)", "(papers/layoutflow)"]
        } else {
            &["(archive/", "(papers/"]
        };
        for folder in folders {
            assert!(screen.contains(folder), "{folder} not shown:\n{screen}");
        }
        snap("twins", w, hh, screen);
    }
}

/// The demo vault's citation keys of two papers (Halvorsen and Renner; Fischbach et al.).
fn demo_keys(root: &std::path::Path) -> (String, String) {
    let v = agentero::vault::Vault::open(root).unwrap();
    let lib = agentero::context::check::library::Library::load(&v);
    let key = |path: &str| {
        lib.papers
            .iter()
            .find(|p| p.path == path)
            .map(|p| p.key.clone())
            .expect("the demo paper is in the library")
    };
    (
        key("papers/halvorsen2009-passages/paper.pdf"),
        key("papers/dense-vs-sparse/paper.pdf"),
    )
}

/// `c` on a draft in the browser: the checklist takes the browser's place beside the paper
/// pane and keeps the keys while `]` and enter open the cited pages beside it; esc gives the
/// browser back and `space k` shows the checklist again.
#[test]
fn citation_checklist_of_a_manuscript() {
    for (w, hh) in SIZES {
        let (d, mut h) = demo(w, hh);
        let root = d.path().join("vault");
        let (hv, dn) = demo_keys(&root);
        std::fs::write(
            root.join("notes/draft.md"),
            format!(
                "# Draft\n\nWindows matter: “Windows of 50 words reach a MAP of 0.251” [@{hv}, p. 284].\n\
                 Fusion: “Reciprocal rank fusion of the two reaches a recall at 10 of 0.731” [@{dn}, p. 2].\n\
                 Passage retrieval beats whole documents [@{hv}, p. 283]. Unknown [@nobody2020].\n"
            ),
        )
        .unwrap();
        h.keys("space f r");
        h.settle();
        let pos = h
            .app
            .browser()
            .visible()
            .position(|e| e.path == "notes/draft.md")
            .expect("the draft is listed");
        h.keys("g g");
        for _ in 0..pos {
            h.keys("j");
        }
        h.keys("c");
        h.settle();
        let screen = h.render();
        assert!(screen.contains("Citations · draft.md"), "{screen}");
        assert!(screen.contains("✓ 3"), "{screen}");
        assert!(screen.contains("⚠ 4"), "{screen}");
        assert!(screen.contains("CHECKLIST"), "{screen}");
        snap("checklist", w, hh, screen);
        // `]` opens the first citation that needs a look in the paper pane beside it (the page
        // the quote is really on); the checklist keeps the keys.
        h.keys("]");
        h.settle();
        let p = h.app.paper().unwrap();
        assert_eq!(
            (p.path(), p.page()),
            ("papers/dense-vs-sparse/paper.pdf", 1)
        );
        assert_eq!(h.app.checklist().unwrap().selected, 1);
        let screen = h.render();
        assert!(screen.contains("CHECKLIST"), "{screen}");
        assert!(screen.contains("Reciprocal rank fusion"), "{screen}");
        snap("checklist_beside_paper", w, hh, screen);
        // `]` again goes on to the key nobody has: said, nothing opened.
        h.keys("]");
        assert_eq!(h.app.checklist().unwrap().selected, 3);
        assert!(h.render().contains("nobody2020"));
        // esc: the browser is back; `space k` shows the checklist where it was.
        h.keys("esc");
        assert!(h.render().contains("VAULT"));
        assert!(!h.app.checklist().unwrap().shown);
        h.keys("space k");
        assert!(h.app.checklist().unwrap().shown);
        assert_eq!(h.app.checklist().unwrap().selected, 3);
        // Enter on a verified row: its page, the quote highlighted.
        h.keys("g g enter");
        h.settle();
        let p = h.app.paper().unwrap();
        assert_eq!(
            (p.path(), p.page()),
            ("papers/halvorsen2009-passages/paper.pdf", 2)
        );
    }
}

/// A save of the manuscript checks it again while the checklist is shown: the fixed quote
/// turns ✓, the rows staying (and the selection on its citation) meanwhile. A manuscript
/// outside the vault (`agentero --check`) reads the bibliography it declares beside it.
#[test]
fn checklist_follows_saves_and_drafts_outside_the_vault() {
    let (d, mut h) = demo(80, 24);
    let root = d.path().join("vault");
    let (hv, _) = demo_keys(&root);
    let outside = d.path().join("thesis");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(
        outside.join("refs.bib"),
        "@inproceedings{H09, title={Whatever}, doi={10.5555/AGENTERO.2009.0283}}\n",
    )
    .unwrap();
    let draft = outside.join("ch2.md");
    let text = |n: &str| {
        format!(
            "---\nbibliography: refs.bib\n---\n\nA claim [@{hv}, p. 283].\n\
             “Windows of 50 words reach a MAP of {n}” [@H09, p. 284].\n"
        )
    };
    std::fs::write(&draft, text("0.215")).unwrap();
    let fx = h.app.open_draft(
        agentero::context::check::source::DraftAt::File(draft.clone()),
        Vec::new(),
    );
    h.run_effects(fx);
    h.settle();
    let outcomes = |h: &Headless| -> Vec<&'static str> {
        h.app
            .checklist()
            .unwrap()
            .rows()
            .iter()
            .map(|c| c.outcome.glyph())
            .collect()
    };
    assert_eq!(outcomes(&h), ["·", "⚠"], "{}", h.render());
    h.keys("j");
    // Saved with the right number: checked again without a key.
    std::fs::write(&draft, text("0.251")).unwrap();
    let done = h.wait_until(std::time::Duration::from_secs(20), |app| {
        app.checklist().is_some_and(|c| {
            !c.running
                && c.rows()
                    .iter()
                    .map(|c| c.outcome.glyph())
                    .collect::<Vec<_>>()
                    == ["·", "✓"]
        })
    });
    assert!(done, "the save was not checked:\n{}", h.render());
    assert_eq!(h.app.checklist().unwrap().selected, 1);
    // Hidden, it is not watched; shown again, a save made meanwhile is checked.
    h.keys("esc");
    std::fs::write(&draft, text("0.999")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    h.settle();
    assert_eq!(outcomes(&h), ["·", "✓"]);
    h.keys("space k");
    let done = h.wait_until(std::time::Duration::from_secs(20), |app| {
        app.checklist().is_some_and(|c| {
            !c.running
                && c.rows()
                    .iter()
                    .map(|c| c.outcome.glyph())
                    .collect::<Vec<_>>()
                    == ["·", "⚠"]
        })
    });
    assert!(
        done,
        "the save made while hidden was not checked:\n{}",
        h.render()
    );
}

/// `L` lists the page's numbered citations (the demo papers have no link annotations: their
/// citations are read from the text), each with its reference entry; enter jumps to the entry,
/// highlighted, and ctrl-o comes back; `o` on a reference the library holds opens that paper.
#[test]
fn links_on_the_page_and_back() {
    const PAPER: &str = "papers/layoutflow/paper.pdf";
    for (w, hh) in SIZES {
        let (_d, mut h) = demo(w, hh);
        open_paper(&mut h, PAPER);
        h.settle();
        h.keys("L");
        h.settle();
        snap("links", w, hh, h.render());
        h.keys("enter");
        h.settle();
        let p = h.app.paper().unwrap();
        assert_eq!(
            (p.path(), p.page()),
            (PAPER, 2),
            "the reference list's page"
        );
        let (page, s, e) = p.quote().expect("the entry is highlighted");
        let entry = &p.text(page).unwrap()[s..e];
        assert!(entry.starts_with("M. Halvorsen and T. Renner"), "{entry:?}");
        snap("links_followed", w, hh, h.render());
        h.keys("ctrl-o");
        h.settle();
        let p = h.app.paper().unwrap();
        assert_eq!((p.path(), p.page()), (PAPER, 1), "ctrl-o comes back");
        // The cited paper is in the library: o opens it, ctrl-o comes back again.
        h.keys("L");
        h.settle();
        h.keys("o");
        h.settle();
        let p = h.app.paper().unwrap();
        assert_eq!(p.path(), "papers/halvorsen2009-passages/paper.pdf");
        h.keys("ctrl-o");
        h.settle();
        assert_eq!(h.app.paper().unwrap().path(), PAPER);
    }
}

/// A paper with link annotations (`crate::pdf_links::linked_pdf`): `L` lists a figure link with
/// the caption its destination shows, a citation link and a marker resolved to the reference
/// list (the second naming a demo paper by DOI), a URL and a section link; enter on the figure
/// jumps to its page with the caption highlighted, ctrl-o comes back.
#[test]
fn link_annotations_listed_and_followed() {
    const PAPER: &str = "papers/linked/paper.pdf";
    for (w, hh) in SIZES {
        let dir = tempfile::tempdir().unwrap();
        let vault = dir.path().join("vault");
        agentero::vault::demo::write_demo_vault(&vault).unwrap();
        std::fs::create_dir_all(vault.join("papers/linked")).unwrap();
        std::fs::write(vault.join(PAPER), crate::pdf_links::linked_pdf()).unwrap();
        let mut h = Headless::open(&vault, w, hh).unwrap();
        h.settle();
        open_paper(&mut h, PAPER);
        h.settle();
        h.keys("L");
        h.settle();
        snap("link_annotations", w, hh, h.render());
        h.keys("enter");
        h.settle();
        let p = h.app.paper().unwrap();
        assert_eq!((p.path(), p.page()), (PAPER, 2));
        let (page, s, e) = p.quote().expect("the caption is highlighted");
        let caption = &p.text(page).unwrap()[s..e];
        assert!(
            caption.starts_with("Figure 2: The pipeline of the reader"),
            "{caption:?}"
        );
        h.keys("ctrl-o");
        h.settle();
        assert_eq!(h.app.paper().unwrap().page(), 1, "ctrl-o comes back");
    }
}
