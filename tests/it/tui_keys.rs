//! Key-sequence tests: the headless app driven from key strings on a generated demo vault,
//! with real effect tasks (scan, index, page loads) and, for the chat, the real built-in agent
//! (`agentero --builtin-agent`) as a child process.

use std::path::Path;
use std::time::Duration;

use agentero::acp::transcript::{Line, Thread as Transcript};
use agentero::config::AgentDef;
use agentero::tui::app::{AgentState, Msg, Pane, PlanPreview};
use agentero::tui::headless::Headless;
use agentero::tui::overlay::OverlayKind;
use agentero::tui::runtime::AgentSetup;
use agentero::tui::thread::ItemKind;
use agentero::vault::Vault;
use agentero::vault::uri::{self, Target};
use ratatui::crossterm::event::{Event, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};

/// Every wait on the agent ends: a turn of the built-in agent takes well under a second.
const TURN: Duration = Duration::from_secs(60);

/// A demo vault, indexed, and the built-in agent with HOME and XDG folders in the tempdir.
fn with_agent() -> (tempfile::TempDir, Headless) {
    let (dir, vault) = crate::common::indexed_demo_vault();
    let h = open_agent(dir.path(), &vault);
    (dir, h)
}

fn open_agent(tmp: &Path, vault: &Path) -> Headless {
    open_agent_with(tmp, vault, &[])
}

/// Two threads each hold a session and its context server; idle past the setup's
/// `session_idle`, both sessions are closed (`session/close`) and their servers stop; a new
/// question in a thread reopens its session (one server again) and is answered.
#[test]
fn idle_sessions_are_closed_and_reopened_on_the_next_turn() {
    let (dir, vault) = crate::common::indexed_demo_vault();
    let mut h = open_agent_idle(dir.path(), &vault, Duration::from_secs(1));
    let first = ask_and_wait(&mut h, "What does fusion reach?");
    assert!(!first.is_empty());
    h.keys("esc space n");
    ask_and_wait(&mut h, "Which model wins on identifiers?");
    assert_eq!(
        crate::common::context_servers(dir.path()),
        2,
        "one context server per thread"
    );
    // Idle: both closed within a rescan or two (every 3 s).
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while crate::common::context_servers(dir.path()) > 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        h.settle();
    }
    assert_eq!(
        crate::common::context_servers(dir.path()),
        0,
        "idle sessions kept their servers"
    );
    // The thread goes on: its session is reopened (not a new one) and answers.
    h.keys("esc");
    let again = ask_and_wait(&mut h, "And on definitions?");
    assert!(again.contains("papers/dense-vs-sparse"), "{again}");
    let session = h.app.chat().thread().unwrap().session.clone();
    assert!(
        session.as_ref().is_some_and(|s| s.session != "new"),
        "the session was not reopened: {session:?}"
    );
    assert_eq!(crate::common::context_servers(dir.path()), 1);
}

fn open_agent_idle(tmp: &Path, vault: &Path, idle: Duration) -> Headless {
    open_agent_setup(tmp, vault, &[], idle)
}

/// `env` goes to the agent process (e.g. the built-in agent's `AGENTERO_BUILTIN_FAULT`).
fn open_agent_with(tmp: &Path, vault: &Path, env: &[(&str, &str)]) -> Headless {
    open_agent_setup(tmp, vault, env, Duration::from_secs(300))
}

fn open_agent_setup(
    tmp: &Path,
    vault: &Path,
    env: &[(&str, &str)],
    session_idle: Duration,
) -> Headless {
    let exe = Path::new(env!("CARGO_BIN_EXE_agentero"));
    let home = tmp.join("home");
    let mut def = AgentDef::builtin(exe);
    for (k, v) in env {
        def.env.insert(k.to_string(), v.to_string());
    }
    for (k, v) in [
        ("HOME", home.clone()),
        ("XDG_CONFIG_HOME", home.join("config")),
        ("XDG_DATA_HOME", home.join("data")),
    ] {
        def.env.insert(k.into(), v.display().to_string());
    }
    let setup = AgentSetup {
        def,
        host_exe: exe.to_path_buf(),
        budget: Default::default(),
        timeout: TURN,
        session_idle,
    };
    let mut h = Headless::open_with_agent(vault, 120, 40, setup).unwrap();
    let ready = h.wait_until(TURN, |a| {
        !matches!(a.chat().agent(), AgentState::Starting { .. })
    });
    assert!(ready, "the agent did not start in time");
    assert!(
        matches!(h.app.chat().agent(), AgentState::Ready { .. }),
        "{:?}",
        h.app.chat().agent()
    );
    h.settle();
    h
}

/// Types a question with one @-mention accepted from the popup, sends it and waits for the end.
/// Returns the grant preview the status line showed when it was sent.
fn ask(h: &mut Headless, question: &str, mention: &str, expect: &str) -> PlanPreview {
    h.keys("i");
    h.type_text(&format!("{question} @{mention}"));
    let m = h.app.chat().mention().expect("mention popup");
    assert_eq!(m.items[0].0, expect, "{:?}", m.items);
    h.keys("enter");
    assert!(
        h.app
            .context_request()
            .mentions
            .contains(&expect.to_string())
    );
    let preview = h.app.chat().preview().cloned().expect("grant preview");
    // keys() settles: the turn (a task) may well be over when it returns.
    h.keys("enter");
    let sent = h
        .app
        .chat()
        .thread()
        .unwrap()
        .items
        .iter()
        .any(|i| matches!(&i.kind, ItemKind::User { text, .. } if text.starts_with(question)));
    assert!(sent, "not sent: {}", h.app.status());
    let done = h.wait_until(TURN, |a| a.chat().turn().is_none());
    assert!(done, "the turn did not end in time");
    h.settle();
    preview
}

/// The citation verdicts a chat thread shows, in order.
fn verdicts(t: &agentero::tui::thread::Thread) -> Vec<agentero::context::citations::CitationCheck> {
    t.items
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::Citation { check, .. } => Some(check.clone()),
            _ => None,
        })
        .collect()
}

fn demo() -> (tempfile::TempDir, Headless) {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    let mut h = Headless::open(&vault, 120, 40).unwrap();
    h.settle();
    (dir, h)
}

/// Moves the browser selection onto `path` with j presses (as a user would).
fn select(h: &mut Headless, path: &str) {
    h.keys("space f g g");
    let pos = h.app.browser().visible().position(|e| e.path == path);
    let pos = pos.unwrap_or_else(|| panic!("{path} not listed"));
    for _ in 0..pos {
        h.keys("j");
    }
}

#[test]
fn start_scans_and_indexes_in_the_background() {
    let (_d, mut h) = demo();
    assert!(
        h.app
            .browser()
            .entries()
            .iter()
            .any(|e| e.path == "papers/dense-vs-sparse/paper.pdf")
    );
    // Titles come from the records once indexing is done.
    let e = h
        .app
        .browser()
        .entries()
        .iter()
        .find(|e| e.path == "papers/citeweave/paper.pdf")
        .unwrap();
    assert!(!e.title.ends_with(".pdf"), "title: {}", e.title);
    let screen = h.render();
    assert!(screen.contains("Vault"), "{screen}");
}

fn mouse(h: &mut Headless, kind: MouseEventKind, column: u16, row: u16) {
    h.send(Msg::Term(Event::Mouse(MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    })));
    h.settle();
}

#[test]
fn mouse_clicks_open_a_vault_entry_and_the_wheel_scrolls_the_paper() {
    let (_d, mut h) = demo();
    let path = "papers/reading-machines-survey/paper.pdf";
    let pos = h
        .app
        .browser()
        .visible()
        .position(|e| e.path == path)
        .unwrap();
    let a = h.app.areas();
    // The list starts at the top with the first entry selected: entry `pos` is row `pos`.
    assert!(pos + 2 < a.vault.height as usize, "{pos}");
    let (x, y) = (a.vault.x + 3, a.vault.y + 1 + pos as u16);
    let click = MouseEventKind::Down(MouseButton::Left);
    mouse(&mut h, click, x, y);
    assert_eq!(h.app.browser().current().unwrap().path, path);
    assert!(h.app.paper().is_none());
    // The second click on the selected entry opens it, like enter.
    mouse(&mut h, click, x, y);
    assert_eq!(h.app.focus(), Pane::Paper);
    let p = h.app.paper().expect("the paper opened");
    assert_eq!(p.path(), path);
    assert!(p.loaded());
    assert_eq!((p.page(), p.scroll()), (1, 0));

    // The wheel over the paper scrolls it three rows (this page is longer than the pane).
    let a = h.app.areas();
    let (px, py) = (a.paper_text.x + 4, a.paper_text.y + 4);
    mouse(&mut h, MouseEventKind::ScrollDown, px, py);
    let p = h.app.paper().unwrap();
    assert_eq!((p.page(), p.scroll()), (1, 3));
    assert!(p.cursor_row() >= 3, "the cursor stays in view");
    mouse(&mut h, MouseEventKind::ScrollUp, px, py);
    let p = h.app.paper().unwrap();
    assert_eq!((p.page(), p.scroll()), (1, 0));
    // A click on the chat focuses it.
    mouse(&mut h, click, a.chat.x + 3, a.chat.y + 3);
    assert_eq!(h.app.focus(), Pane::Chat);
}

#[test]
fn open_paper_jump_pages_search_outline_and_back() {
    let (_d, mut h) = demo();
    select(&mut h, "papers/dense-vs-sparse/paper.pdf");
    h.keys("enter");
    assert_eq!(h.app.focus(), Pane::Paper);
    let p = h.app.paper().unwrap();
    assert_eq!(p.path(), "papers/dense-vs-sparse/paper.pdf");
    let pages = p.page_count();
    assert!(pages >= 2, "pages: {pages}");
    let screen = h.render();
    assert!(screen.contains(&format!("p. 1 / {pages}")), "{screen}");

    // [count]G goes to a page; gg back to the first; ctrl-o undoes the jump.
    h.keys("2 G");
    assert_eq!(h.app.paper().unwrap().page(), 2);
    h.keys("g g");
    assert_eq!(h.app.paper().unwrap().page(), 1);
    h.keys("ctrl-o");
    assert_eq!(h.app.paper().unwrap().page(), 2);
    h.keys("ctrl-i");
    assert_eq!(h.app.paper().unwrap().page(), 1);

    // Search: / query enter, n moves on, matches are counted in the status bar.
    h.keys("/");
    h.type_text("retrieval");
    h.keys("enter");
    let p = h.app.paper().unwrap();
    assert!(
        !p.search_hits().is_empty(),
        "no hits; status {:?}",
        h.app.status()
    );
    assert!(
        h.app.status().starts_with("match 1 of"),
        "{}",
        h.app.status()
    );
    h.keys("n");
    assert!(
        h.app.status().starts_with("match 2 of"),
        "{}",
        h.app.status()
    );

    // Outline: t, pick the last section, enter jumps there; ctrl-o comes back.
    let before = h.app.paper().unwrap().page();
    h.keys("t G enter");
    let p = h.app.paper().unwrap();
    let last = p.info().sections.last().expect("sections").page;
    assert_eq!(p.page(), last);
    h.keys("ctrl-o");
    assert_eq!(h.app.paper().unwrap().page(), before);
}

/// `L` on a paper: the list opens at once (reading), fills with the page's citations when
/// they are read; enter jumps to the reference entry and ctrl-o comes back. On a note it says
/// links are a paper's; a list closed before its answer stays closed.
#[test]
fn links_key_lists_follows_and_comes_back() {
    let (_d, mut h) = demo();
    select(&mut h, "notes/reading-list.md");
    h.keys("enter L");
    assert_eq!(h.app.overlay(), None);
    assert!(h.app.status().contains("paper"), "{}", h.app.status());

    select(&mut h, "papers/layoutflow/paper.pdf");
    h.keys("enter");
    h.settle();
    // Closed before the answer: the answer does not open it again.
    h.keys("L esc");
    h.settle();
    assert_eq!(h.app.overlay(), None);
    h.keys("L");
    assert_eq!(h.app.overlay(), Some(OverlayKind::Links));
    h.settle();
    assert!(h.render().contains("[2] → p. 2"), "{}", h.render());
    h.keys("enter");
    h.settle();
    let p = h.app.paper().unwrap();
    assert_eq!((p.page(), h.app.overlay()), (2, None));
    assert!(p.quote().is_some(), "the entry is highlighted");
    h.keys("ctrl-o");
    assert_eq!(h.app.paper().unwrap().page(), 1);
}

#[test]
fn marks_visual_selection_and_chips() {
    let (_d, mut h) = demo();
    select(&mut h, "papers/dense-vs-sparse/paper.pdf");
    h.keys("enter m a 2 G ' a");
    assert_eq!(h.app.paper().unwrap().page(), 1);
    // The prompt does not stay after the jump.
    assert!(
        h.app.status().starts_with("at mark a"),
        "{}",
        h.app.status()
    );
    h.keys("V j enter");
    assert_eq!(h.app.focus(), Pane::Chat);
    let labels: Vec<String> = h.app.chat().chips().iter().map(|c| c.label()).collect();
    assert!(
        labels
            .iter()
            .any(|l| l.starts_with("reading papers/dense-vs-sparse/paper.pdf")),
        "{labels:?}"
    );
    assert!(
        labels.iter().any(|l| l.starts_with("selection p.1")),
        "{labels:?}"
    );
    let req = h.app.context_request();
    assert_eq!(
        req.current.as_ref().unwrap().path,
        "papers/dense-vs-sparse/paper.pdf"
    );
    assert!(req.selection.as_ref().unwrap().text.len() > 10);
    // The grant preview is computed from exactly these chips.
    let preview = h.app.chat().preview().cloned().expect("plan preview");
    assert_eq!(preview.sources, 1);
    assert_eq!(preview.mode, "mcp");
}

#[test]
fn mention_popup_makes_a_chip_and_removal_changes_the_grant() {
    let (_d, mut h) = demo();
    h.keys("i");
    h.type_text("compare @recqapdf");
    let m = h.app.chat().mention().expect("popup open");
    assert_eq!(
        m.items[0].0, "papers/receipts-qa/paper.pdf",
        "{:?}",
        m.items
    );
    h.keys("enter");
    assert!(h.app.chat().mention().is_none());
    // The mention stays in the message, whole (the thread draws it as a chip).
    assert_eq!(
        h.app.chat().input_lines()[0],
        "compare @papers/receipts-qa/paper.pdf "
    );
    assert_eq!(
        h.app.context_request().mentions,
        vec!["papers/receipts-qa/paper.pdf".to_string()]
    );
    assert_eq!(h.app.chat().preview().unwrap().sources, 1);
    h.keys("ctrl-x");
    assert!(h.app.context_request().mentions.is_empty());
    assert_eq!(h.app.chat().input_lines()[0], "compare ");
    // Mentioning the paper being read: a duplicate mention, said so, not "omitted".
    h.keys("esc");
    select(&mut h, "papers/receipts-qa/paper.pdf");
    h.keys("enter i");
    h.type_text("@recqapdf");
    h.keys("enter");
    let p = h.app.chat().preview().cloned().unwrap();
    assert_eq!((p.sources, p.duplicates, p.omitted), (1, 1, 0), "{p:?}");
    // (The status line shows the grant once an agent is ready.)
    let unavailable = h.app.chat().agent().clone();
    h.send(Msg::Agent(AgentState::Ready {
        name: "builtin".into(),
        remote: false,
    }));
    h.resize(260, 40);
    let screen = h.render();
    assert!(
        screen.contains("grant 1 source · 1 duplicate mention"),
        "{screen}"
    );
    assert!(!screen.contains("omitted"), "{screen}");
    h.resize(120, 40);
    h.send(Msg::Agent(unavailable));
    h.keys("ctrl-x");
    // Without an agent, sending says so and fakes nothing.
    h.type_text("hello");
    h.keys("enter");
    assert!(
        h.app.status().starts_with("agent unavailable"),
        "{}",
        h.app.status()
    );
    assert!(h.app.chat().thread().unwrap().items.is_empty());
}

#[test]
fn note_opens_with_line_numbers_and_citation_lines() {
    let (_d, mut h) = demo();
    use agentero::tui::thread::{ChatEvent, SourceRef, Thread};
    // A thread whose answer cited lines of a note (as restored from disk); jump to them.
    let mut t = Thread::new("t1".into());
    t.apply(ChatEvent::Sources(vec![SourceRef {
        uri: "notes/reading-list.md#line=2,3".into(),
        quote: None,
    }]));
    h.send(Msg::Threads(vec![t]));
    h.keys("space c k enter");
    h.settle();
    let p = h.app.paper().expect("note open");
    assert_eq!(p.path(), "notes/reading-list.md");
    assert_eq!(p.lines(), Some((2, 3)));
    let screen = h.render();
    assert!(screen.contains("  1 "), "{screen}");
    h.keys("ctrl-o");
    assert!(h.app.status().contains("start of the jump list") || h.app.paper().is_some());
}

#[test]
fn resize_and_filter() {
    let (_d, mut h) = demo();
    h.resize(80, 24);
    h.keys("space f f");
    h.type_text("notes");
    assert!(
        h.app
            .browser()
            .visible()
            .all(|e| e.haystack().to_lowercase().contains("notes"))
    );
    h.keys("esc");
    assert!(h.app.browser().filter().is_empty());
    let screen = h.render();
    assert_eq!(screen.lines().count(), 24);

    // A second filter replaces the first (it does not append to it); esc in the browser
    // clears a filter that was kept with enter.
    let all = h.app.browser().visible_len();
    h.keys("f");
    h.type_text("dense");
    h.keys("enter");
    assert_eq!(h.app.browser().filter(), "dense");
    let dense = h.app.browser().visible_len();
    assert!(dense < all);
    h.keys("f");
    assert_eq!(h.app.browser().visible_len(), all, "the old filter went");
    h.type_text("layout");
    h.keys("enter");
    assert_eq!(h.app.browser().filter(), "layout");
    assert!(
        h.app
            .browser()
            .visible()
            .any(|e| e.path == "papers/layoutflow/paper.pdf")
    );
    h.keys("esc");
    assert_eq!(h.app.browser().filter(), "");
    assert_eq!(h.app.browser().visible_len(), all);
    assert_eq!(h.app.status(), "filter cleared");
}

#[test]
fn search_scrolls_to_the_match() {
    let (_d, mut h) = demo();
    h.resize(80, 24);
    select(&mut h, "papers/dense-vs-sparse/paper.pdf");
    h.keys("enter /");
    h.type_text("retrieval");
    h.keys("enter");
    let p = h.app.paper().unwrap();
    let hit = p.current_hit().unwrap();
    let text = p.text(hit.page).unwrap();
    assert_eq!(text[hit.start..hit.end].to_lowercase(), "retrieval");
    let (_, height) = (
        h.app.areas().paper_text.width,
        h.app.areas().paper_text.height as usize,
    );
    assert!(
        p.cursor_row() >= p.scroll() && p.cursor_row() < p.scroll() + height,
        "cursor {} scroll {} h {height}",
        p.cursor_row(),
        p.scroll()
    );
}

#[test]
fn ask_with_a_mention_through_the_builtin_agent_and_jump_to_a_source() {
    let (dir, mut h) = with_agent();
    // Reading one paper, asking about another.
    select(&mut h, "papers/layoutflow/paper.pdf");
    h.keys("enter");
    assert_eq!(h.app.paper().unwrap().page(), 1);
    let reading = h.app.location().unwrap();
    let shown = ask(
        &mut h,
        "What is the reading order of a page?",
        "densesparsepdf",
        "papers/dense-vs-sparse/paper.pdf",
    );
    let t = h.app.chat().thread().unwrap();
    let answer: String = t
        .items
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::Agent { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(answer.contains("> \""), "no quoted evidence: {answer}");
    let errors: Vec<&String> = t
        .items
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::Error(e) => Some(e),
            _ => None,
        })
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    // The cited sources (the consulted ones are listed under their `consulted: N` line).
    let sources: Vec<String> = t
        .items
        .iter()
        .filter(|i| i.listed.is_none())
        .filter_map(|i| match &i.kind {
            ItemKind::Source(s) => Some(s.uri.clone()),
            _ => None,
        })
        .collect();
    assert!(!sources.is_empty(), "no sources; answer: {answer}");
    // Sources are the prompt's evidence and what the tools returned: the answer cites some.
    assert!(
        sources.iter().any(|s| answer.contains(s.as_str())),
        "{sources:?} not cited in: {answer}"
    );
    let info = t.session.clone().expect("session info");
    assert_eq!(info.agent, "builtin");
    assert_eq!(info.mode, "mcp");
    assert_eq!(info.session, "new");
    assert!(info.tools_attached, "{info:?}");
    assert_eq!(info.grant_sources, 2, "{info:?}");
    // What the chips showed is what the turn was granted.
    assert_eq!(
        (shown.sources, shown.fingerprint.as_str()),
        (info.grant_sources, info.fingerprint.as_str())
    );
    // The chat's status line (wide enough to be shown whole): the next question's grant (the
    // reading chip alone now) and the last turn's session.
    h.resize(260, 40);
    let screen = h.render();
    let next = h.app.chat().preview().cloned().unwrap();
    assert_eq!(next.sources, 1);
    let fp = &next.fingerprint[..8];
    assert!(
        screen.contains(&format!(
            "builtin · mcp · grant 1 source · fp {fp} · tools attached · session new"
        )),
        "{screen}"
    );
    h.resize(120, 40);

    // The turn is in the thread's transcript on disk, with its sources.
    let vault = Vault::open(&dir.path().join("vault")).unwrap();
    let id = Transcript::latest(&vault).expect("a thread on disk");
    let on_disk = Transcript::open(&vault, &id).unwrap();
    assert!(on_disk.lines.iter().any(
        |l| matches!(l, Line::User { text, .. } if text.starts_with("What is the reading order"))
    ));
    assert!(
        on_disk
            .lines
            .iter()
            .any(|l| matches!(l, Line::Sources { uris, consulted, .. }
                // The sources shown are the cited ones; the consulted are folded below them.
                if uris.iter().filter(|u| !consulted.contains(u)).cloned().collect::<Vec<_>>() == sources))
    );
    // Every citation of the answer was checked: the chat shows the transcript's verdicts under
    // the answer (the built-in agent quotes verbatim: all verified), and a restored thread
    // shows the same.
    let checks = on_disk
        .lines
        .iter()
        .find_map(|l| match l {
            Line::Citations { checks, .. } => Some(checks.clone()),
            _ => None,
        })
        .expect("the turn's verdicts in the transcript");
    assert_eq!(verdicts(h.app.chat().thread().unwrap()), checks);
    assert!(
        checks
            .iter()
            .all(|c| c.verdict == agentero::context::citations::Verdict::Verified),
        "{checks:#?}"
    );
    let restored = agentero::tui::thread::from_transcript(&on_disk);
    assert_eq!(verdicts(&restored), checks);
    let screen = h.render();
    // "citations: …", or "citations of NAME: …" when every check cites one paper.
    assert!(
        screen
            .lines()
            .any(|l| l.contains("citations")
                && l.contains(&format!(": ✓ {} verified", checks.len()))),
        "{screen}"
    );
    assert!(screen.contains("· verified"), "{screen}");

    // The last source: k selects it (k again past the folded consulted sources), enter
    // opens the paper at the cited page.
    h.keys("esc k");
    let sel = h.app.chat().selected().expect("an item selected");
    if matches!(
        h.app.chat().thread().unwrap().items[sel].kind,
        ItemKind::Consulted(_)
    ) {
        h.keys("k");
    }
    let sel = h.app.chat().selected().expect("a source selected");
    let uri_text = match &h.app.chat().thread().unwrap().items[sel].kind {
        ItemKind::Source(s) => s.uri.clone(),
        other => panic!("selected {other:?}"),
    };
    let Some(Target::Vault { path, page, .. }) = uri::parse(&uri_text) else {
        panic!("not a vault source: {uri_text}");
    };
    h.keys("enter");
    h.settle();
    assert_eq!(h.app.focus(), Pane::Paper);
    let p = h.app.paper().unwrap();
    assert_eq!(p.path(), path);
    assert_eq!(Some(p.page()), page);
    let screen = h.render();
    assert!(
        screen.contains(&format!("p. {} / ", page.unwrap())),
        "{screen}"
    );
    // ctrl-o: back to the paper being read.
    h.keys("ctrl-o");
    h.settle();
    let back = h.app.location().unwrap();
    assert_eq!((back.path, back.page), (reading.path, reading.page));

    // The same chips again: the same grant, the session is resumed.
    h.keys("space c");
    ask(
        &mut h,
        "Which model wins on definitional questions?",
        "densesparsepdf",
        "papers/dense-vs-sparse/paper.pdf",
    );
    let info = h.app.chat().thread().unwrap().session.clone().unwrap();
    assert_eq!(info.session, "resumed", "{info:?}");
}

#[test]
fn handoff_writes_the_summary_and_threads_are_restored() {
    let (dir, mut h) = with_agent();
    ask(
        &mut h,
        "How are receipts read?",
        "recqapdf",
        "papers/receipts-qa/paper.pdf",
    );
    let vault = Vault::open(&dir.path().join("vault")).unwrap();
    let id = Transcript::latest(&vault).expect("a thread on disk");
    h.keys("esc space h");
    assert!(
        h.wait_until(TURN, |a| a.chat().turn().is_none()),
        "handoff did not end"
    );
    h.settle();
    assert!(
        h.app.status().starts_with("handoff written"),
        "{}",
        h.app.status()
    );
    let t = Transcript::open(&vault, &id).unwrap();
    let handoff = t.handoff().expect("HANDOFF.md");
    for section in ["## Goal", "## Findings", "## Open questions", "## Sources"] {
        assert!(handoff.contains(section), "{handoff}");
    }
    assert!(handoff.contains("How are receipts read?"), "{handoff}");
    assert!(
        handoff.contains("papers/receipts-qa/paper.pdf#page="),
        "{handoff}"
    );
    assert!(
        t.state.session.session_id.is_none(),
        "the session is not forgotten"
    );

    // The next question opens a fresh session seeded from the handoff, which is consumed.
    ask(
        &mut h,
        "And the totals?",
        "recqapdf",
        "papers/receipts-qa/paper.pdf",
    );
    let info = h.app.chat().thread().unwrap().session.clone().unwrap();
    assert_eq!(info.session, "new");
    assert!(Transcript::open(&vault, &id).unwrap().handoff().is_none());
    let items = h.app.chat().thread().unwrap().items.len();
    drop(h);

    // A restart restores the thread from disk, current and complete; space n starts another.
    let mut h = open_agent(dir.path(), &dir.path().join("vault"));
    let t = h.app.chat().thread().unwrap();
    assert_eq!(t.id, id);
    assert!(
        t.items.iter().any(
            |i| matches!(&i.kind, ItemKind::User { text, .. } if text.starts_with("How are receipts read?"))
        )
    );
    assert!(
        t.items
            .iter()
            .any(|i| matches!(i.kind, ItemKind::Source(_)))
    );
    assert!(t.items.len() >= items / 2, "{} of {items}", t.items.len());
    h.keys("space n");
    assert_eq!(h.app.chat().threads().len(), 2);
    assert!(h.app.chat().thread().unwrap().items.is_empty());
    h.keys("esc space t");
    h.keys("g g enter");
    assert_eq!(h.app.chat().thread().unwrap().id, id);
}

#[test]
fn ctrl_x_cancels_a_running_turn() {
    let (dir, vault) = crate::common::indexed_demo_vault();
    let v = Vault::open(&vault).unwrap();
    // The built-in agent's test hook: it stops after the first chunk and never finishes.
    let mut h = open_agent_with(dir.path(), &vault, &[("AGENTERO_BUILTIN_FAULT", "hang")]);
    h.keys("i");
    h.type_text("What is the reading order of a page?");
    // Sent without settling (keys() would wait for the hanging turn).
    let enter = agentero::tui::keymap::Key::parse("enter").unwrap();
    h.send(Msg::Key(enter.to_event()));
    assert!(h.app.chat().turn().is_some(), "{}", h.app.status());
    let streaming = h.wait_until(TURN, |a| {
        a.chat()
            .thread()
            .unwrap()
            .items
            .iter()
            .any(|i| matches!(i.kind, ItemKind::Agent { .. }))
    });
    assert!(streaming, "no first chunk");
    let started = std::time::Instant::now();
    let ctrl_x = agentero::tui::keymap::Key::parse("ctrl-x").unwrap();
    h.send(Msg::Key(ctrl_x.to_event()));
    assert!(h.app.chat().turn().is_none());
    let t = h.app.chat().thread().unwrap();
    assert!(matches!(&t.items.last().unwrap().kind, ItemKind::Notice(n) if n == "turn cancelled"));
    // The driver sent session/cancel and gave up after its grace period — long before the
    // turn's 60 s time limit.
    while h.runner.busy() > 0 && started.elapsed() < TURN {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "took {:?}",
        started.elapsed()
    );
    let id = Transcript::latest(&v).expect("a thread on disk");
    let lines = Transcript::open(&v, &id).unwrap().lines;
    assert!(
        !lines
            .iter()
            .any(|l| matches!(l, Line::Notice { text, .. } if text.contains("time limit"))),
        "{lines:?}"
    );
    assert!(
        matches!(lines.last(), Some(Line::Error { .. })),
        "{lines:?}"
    );
}

/// Sends a question with one @-mention through the built-in agent's `ask-permission` test hook,
/// waits for the permission modal, returns the screen showing it, presses `answer` and returns
/// the agent's answer once the turn is over.
fn answer_permission(answer: &str) -> (String, String) {
    let (dir, vault) = crate::common::indexed_demo_vault();
    let mut h = open_agent_with(
        dir.path(),
        &vault,
        &[("AGENTERO_BUILTIN_FAULT", "ask-permission")],
    );
    ask_and_wait(&mut h, "What is the reading order of a page?");
    assert_eq!(
        h.app.overlay(),
        Some(OverlayKind::Permission),
        "no permission modal; status: {}",
        h.app.status()
    );
    // The turn waits for the user: no answer text yet, the turn still running.
    assert!(h.app.chat().turn().is_some());
    let screen = h.render();
    h.keys(answer);
    assert!(h.app.overlay().is_none(), "the modal stayed open");
    let done = h.wait_until(TURN, |a| a.chat().turn().is_none());
    assert!(done, "the turn did not end in time");
    h.settle();
    let t = h.app.chat().thread().unwrap();
    let errors: Vec<&String> = t
        .items
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::Error(e) => Some(e),
            _ => None,
        })
        .collect();
    assert!(errors.is_empty(), "{errors:?}");
    let text = agent_text(&h);
    // The turn went on after the answer: quoted evidence and sources.
    assert!(text.contains("> \""), "no quoted evidence: {text}");
    assert!(
        t.items
            .iter()
            .any(|i| matches!(&i.kind, ItemKind::Source(_))),
        "no sources: {text}"
    );
    assert!(!vault.join("notes/x.md").exists());
    (screen, text)
}

/// Sends a question with an @-mention accepted from the popup, and waits for the turn to end
/// or a permission question; returns the agent's text.
fn ask_and_wait(h: &mut Headless, question: &str) -> String {
    h.keys("i");
    h.type_text(&format!("{question} @densesparsepdf"));
    assert!(h.app.chat().mention().is_some(), "no mention popup");
    h.keys("enter");
    let enter = agentero::tui::keymap::Key::parse("enter").unwrap();
    h.send(Msg::Key(enter.to_event()));
    let done = h.wait_until(TURN, |a| {
        a.chat().turn().is_none() || a.overlay() == Some(OverlayKind::Permission)
    });
    assert!(done, "the turn did not end in time");
    h.settle();
    agent_text(h)
}

fn agent_text(h: &Headless) -> String {
    h.app
        .chat()
        .thread()
        .unwrap()
        .items
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::Agent { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The look-alikes the TUI test sends: those refused by rule, then three that reach the modal.
const TUI_CASES: &str = "lookalike:execute-our-name-in-title,lookalike:bash-titled-with-our-name,\
lookalike:write-to-a-path-with-our-name,lookalike:our-tool-kind-edit,lookalike:our-tool-kind-execute,\
lookalike:title-alone-no-tool-name,lookalike:our-server-fourth-tool,genuine,other-server";

/// The hostile agent (`tests/peers/hostile_agent.py`, permissions mode) configured as Claude
/// Code's adapter: look-alikes of our context tools are refused or reach the modal (answered
/// `r` here), never allowed silently; the genuine call recorded from claude-agent-acp is
/// allowed with no modal.
#[test]
fn lookalikes_of_our_tools_never_pass_silently_in_the_tui() {
    let (_dir, vault) = crate::common::indexed_demo_vault();
    let exe = Path::new(env!("CARGO_BIN_EXE_agentero"));
    let mut def = AgentDef::builtin(exe);
    def.name = "hostile".into();
    def.command = "python3".into();
    def.args = vec![
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/peers/hostile_agent.py")
            .display()
            .to_string(),
    ];
    def.adapter = agentero::config::Adapter::Claude;
    for (k, v) in [
        ("HOSTILE_MODE", "permissions"),
        ("HOSTILE_ADAPTER", "claude"),
        ("HOSTILE_CASES", TUI_CASES),
    ] {
        def.env.insert(k.into(), v.into());
    }
    let setup = AgentSetup {
        def,
        host_exe: exe.to_path_buf(),
        budget: Default::default(),
        timeout: TURN,
        session_idle: Duration::from_secs(300),
    };
    let mut h = Headless::open_with_agent(&vault, 120, 40, setup).unwrap();
    assert!(h.wait_until(TURN, |a| matches!(
        a.chat().agent(),
        AgentState::Ready { .. }
    )));
    h.settle();
    ask_and_wait(&mut h, "What is the reading order of a page?");
    let mut modals: Vec<String> = Vec::new();
    while h.app.overlay() == Some(OverlayKind::Permission) {
        modals.push(h.render());
        assert!(modals.len() < 40, "modal after modal");
        h.keys("r");
        let moved = h.wait_until(TURN, |a| {
            a.chat().turn().is_none() || a.overlay() == Some(OverlayKind::Permission)
        });
        assert!(moved, "the turn did not go on after an answer");
        h.settle();
    }
    let text = agent_text(&h);
    let cases: Vec<(&str, &str)> = text
        .lines()
        .filter_map(|l| l.strip_prefix("CASE ")?.split_once(" => "))
        .collect();
    assert_eq!(cases.len(), TUI_CASES.split(',').count(), "{text}");
    for (name, got) in &cases {
        if *name == "genuine" {
            assert_eq!(*got, "allow", "the genuine call: {text}");
        } else {
            // Answered by the rules or by `r` in the modal: no time-outs.
            assert_eq!(*got, "reject", "{name}: {text}");
        }
    }
    // The tools of no known call of ours (another server's, a title alone) reach the modal.
    assert_eq!(modals.len(), 3, "{text}");
    assert!(
        modals
            .iter()
            .all(|m| !m.contains("mcp__agentero-context__context_search")),
        "the genuine call reached the modal"
    );
    eprintln!(
        "{} requests: {} modals answered r, the rest refused by rule; the genuine call allowed",
        cases.len(),
        modals.len()
    );
}

/// "Allow always" is remembered per agent in `.agentero/permissions.json`: the next request
/// for the same tool is allowed without the modal. A native write is refused without asking,
/// with a notice that says why.
#[test]
fn an_always_answer_is_remembered_and_native_tools_are_refused_without_asking() {
    let (dir, vault) = crate::common::indexed_demo_vault();
    let mut h = open_agent_with(
        dir.path(),
        &vault,
        &[("AGENTERO_BUILTIN_FAULT", "ask-permission")],
    );
    ask_and_wait(&mut h, "What is the reading order of a page?");
    assert_eq!(h.app.overlay(), Some(OverlayKind::Permission));
    h.keys("A");
    assert!(h.wait_until(TURN, |a| a.chat().turn().is_none()));
    h.settle();
    assert!(
        agent_text(&h).contains("permission: allowed (allow_always)"),
        "{}",
        agent_text(&h)
    );
    let remembered = std::fs::read_to_string(vault.join(".agentero/permissions.json")).unwrap();
    assert!(
        remembered.contains("builtin") && remembered.contains("publish_note"),
        "{remembered}"
    );
    // The same tool again: no modal, allowed by the remembered answer.
    let text = ask_and_wait(&mut h, "And the columns?");
    assert!(h.app.overlay().is_none(), "asked again despite 'always'");
    assert!(text.matches("permission: allowed").count() == 2, "{text}");
    drop(h);

    let mut h = open_agent_with(
        dir.path(),
        &vault,
        &[("AGENTERO_BUILTIN_FAULT", "ask-native")],
    );
    let text = ask_and_wait(&mut h, "What is the reading order of a page?");
    assert!(h.app.overlay().is_none(), "a native tool reached the modal");
    assert!(
        text.contains("permission: rejected (reject_once)"),
        "{text}"
    );
    let notices: Vec<String> = h
        .app
        .chat()
        .thread()
        .unwrap()
        .items
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::Notice(n) => Some(n.clone()),
            _ => None,
        })
        .collect();
    assert!(
        notices
            .iter()
            .any(|n| n.starts_with("refused edit notes/x.md: a native edit tool is refused")),
        "{notices:?}"
    );
    assert!(!vault.join("notes/x.md").exists());
}

/// The agent's `session/request_permission` for a write outside the grant becomes the modal
/// with the four options; `a` allows it once and the agent reports that.
#[test]
fn a_permission_request_shows_the_modal_and_a_allows_it() {
    let (screen, answer) = answer_permission("a");
    for want in [
        "Permission",
        "The agent asks for permission:",
        "publish_note (notes-sync MCP Server)",
        "kind: other",
        "arguments: path: notes/x.md",
        "a  Allow once",
        "A  Allow always",
        "r  Reject once",
        "R  Reject always",
        "esc rejects once",
    ] {
        assert!(screen.contains(want), "{want:?} not on screen:\n{screen}");
    }
    assert!(
        answer.starts_with("permission: allowed (allow_once)"),
        "{answer}"
    );
}

/// `r` and esc reject once, `R` always; the agent reports the rejection and goes on.
#[test]
fn a_permission_request_rejected_with_r_or_esc() {
    for (key, want) in [
        ("r", "permission: rejected (reject_once)"),
        ("esc", "permission: rejected (reject_once)"),
        ("R", "permission: rejected (reject_always)"),
    ] {
        let (_, answer) = answer_permission(key);
        assert!(answer.starts_with(want), "{key}: {answer}");
    }
}

/// The sources of a Quick Chat answer, in order.
fn quick_sources(h: &Headless) -> Vec<String> {
    h.app
        .quick()
        .map(|q| {
            q.thread()
                .items
                .iter()
                .filter_map(|i| match &i.kind {
                    // The cited ones (the consulted are listed under their line).
                    ItemKind::Source(s) if i.listed.is_none() => Some(s.uri.clone()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn quick_chat_asks_about_the_selection_jumps_to_a_source_and_promotes() {
    let (dir, mut h) = with_agent();
    let vault = Vault::open(&dir.path().join("vault")).unwrap();
    select(&mut h, "papers/layoutflow/paper.pdf");
    h.keys("enter");
    let reading = h.app.location().unwrap();

    // Lines selected in the paper, then space q: the popup, with the page and the selection.
    h.keys("V j space q");
    let q = h.app.quick().expect("Quick Chat popup");
    assert!(q.composing());
    let labels: Vec<String> = q.chips().iter().map(|c| c.label()).collect();
    assert!(
        labels[0].starts_with("reading papers/layoutflow/paper.pdf p.1"),
        "{labels:?}"
    );
    assert!(labels[1].starts_with("selection p.1"), "{labels:?}");
    assert_eq!(h.app.focus(), Pane::Paper, "the paper keeps the focus");
    h.type_text("What does this passage say about reading order?");
    let req = h.app.quick_request().unwrap();
    assert_eq!(req.surface, agentero::context::Surface::Quick);
    assert_eq!(
        req.current.as_ref().unwrap().path,
        "papers/layoutflow/paper.pdf"
    );
    assert!(req.selection.as_ref().unwrap().text.len() > 10);
    // Typed text stays text: `q` and `space` did not quit or start a chord.
    assert!(!h.app.quitting());
    h.keys("enter");
    assert!(
        h.wait_until(TURN, |a| a.quick().is_some_and(|q| q.turn().is_none())),
        "the Quick Chat turn did not end; status {}",
        h.app.status()
    );
    h.settle();
    let q = h.app.quick().unwrap();
    let answer: String = q
        .thread()
        .items
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::Agent { text } => Some(text.as_str()),
            ItemKind::Error(e) => panic!("turn failed: {e}"),
            _ => None,
        })
        .collect();
    assert!(answer.contains("> \""), "no quoted evidence: {answer}");
    let info = q.thread().session.clone().expect("session info");
    assert_eq!(
        (info.agent.as_str(), info.mode.as_str()),
        ("builtin", "mcp")
    );
    let sources = quick_sources(&h);
    assert!(!sources.is_empty(), "no sources; answer: {answer}");
    let screen = h.render();
    assert!(screen.contains("Quick Chat · builtin · mcp"), "{screen}");
    // Sources by title and page: "→ LayoutFlow: … · p. 1".
    let Some(Target::Vault { page: Some(n), .. }) = uri::parse(&sources[0]) else {
        panic!("not a paper page: {}", sources[0]);
    };
    assert!(
        screen
            .lines()
            .any(|l| l.contains("→ ") && l.contains(&format!(" · p. {n}"))),
        "{screen}"
    );
    // Not a chat thread: nothing in the chat pane, nothing in chats/.
    assert!(Transcript::latest(&vault).is_none());
    assert!(h.app.chat().thread().unwrap().items.is_empty());

    // k selects the last source (above the folded consulted ones, when there are); enter
    // closes the popup and opens its page; ctrl-o returns.
    h.keys("k");
    let folded_last = h.app.quick().is_some_and(|q| {
        matches!(
            q.selected().map(|i| &q.thread().items[i].kind),
            Some(ItemKind::Consulted(_))
        )
    });
    if folded_last {
        h.keys("k");
    }
    let uri_text = sources.last().unwrap().clone();
    let Some(Target::Vault { path, page, .. }) = uri::parse(&uri_text) else {
        panic!("not a vault source: {uri_text}");
    };
    h.keys("enter");
    h.settle();
    assert!(h.app.quick().is_none(), "the popup stays open");
    let p = h.app.paper().unwrap();
    assert_eq!((p.path(), Some(p.page())), (path.as_str(), page));
    h.keys("ctrl-o");
    h.settle();
    let back = h.app.location().unwrap();
    assert_eq!((back.path, back.page), (reading.path.clone(), reading.page));

    // Another Quick Chat about the page, promoted: a thread on disk, shown in the chat pane.
    h.keys("space q");
    assert_eq!(h.app.quick().unwrap().chips().len(), 1);
    h.type_text("How is the reading order of a page found?");
    h.keys("enter");
    assert!(h.wait_until(TURN, |a| a.quick().is_some_and(|q| q.turn().is_none())));
    h.settle();
    let sources = quick_sources(&h);
    assert!(!sources.is_empty());
    h.keys("P");
    h.settle();
    assert!(h.app.quick().is_none());
    assert_eq!(h.app.focus(), Pane::Chat);
    assert!(
        h.app.status().starts_with("Quick Chat promoted"),
        "{}",
        h.app.status()
    );
    let t = h.app.chat().thread().unwrap();
    assert!(t.items.iter().any(
        |i| matches!(&i.kind, ItemKind::User { text, .. } if text.starts_with("How is the reading order"))
    ));
    let id = Transcript::latest(&vault).expect("the promoted thread on disk");
    assert_eq!(t.id, id);
    let on_disk = Transcript::open(&vault, &id).unwrap();
    assert!(on_disk.lines.iter().any(
        |l| matches!(l, Line::User { text, .. } if text.starts_with("How is the reading order"))
    ));
    assert!(
        on_disk
            .lines
            .iter()
            .any(|l| matches!(l, Line::Sources { uris, consulted, .. }
                // The sources shown are the cited ones; the consulted are folded below them.
                if uris.iter().filter(|u| !consulted.contains(u)).cloned().collect::<Vec<_>>() == sources))
    );
    assert!(on_disk.lines.iter().any(|l| matches!(l, Line::End { .. })));
    // The scratch copies are gone: the promoted one moved, the first one was dropped.
    let scratch = vault.state_dir().join("quick");
    let left = std::fs::read_dir(&scratch).map_or(0, |d| d.count());
    assert_eq!(left, 0, "scratch Quick Chats left in {}", scratch.display());

    // The promoted thread goes on in the chat: its session is resumed.
    h.keys("i");
    h.type_text("And for two columns?");
    h.keys("enter");
    assert!(h.wait_until(TURN, |a| a.chat().turn().is_none()));
    h.settle();
    let info = h.app.chat().thread().unwrap().session.clone().unwrap();
    assert_eq!(info.session, "resumed", "{info:?}");
}

/// `space m` starts the vault MCP server for external clients (the status bar shows its
/// address; a request without the token is refused with 401), a second `space m` stops it.
#[test]
fn space_m_starts_and_stops_the_vault_mcp_server() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    // Port 0: a free one (the setting, not the process's environment, which other tests share).
    let settings = agentero::tui::settings::Settings {
        serve_port: 0,
        ..Default::default()
    };
    let mut h = Headless::open_with(&vault, 160, 40, None, settings).unwrap();
    h.settle();
    h.keys("space m");
    assert!(
        h.wait_until(TURN, |a| a.vault_mcp().is_some()),
        "{}",
        h.app.status()
    );
    let url = h.app.vault_mcp().unwrap().to_string();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    let screen = h.render();
    assert!(screen.contains("mcp 127.0.0.1:"), "{screen}");
    let addr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .to_string();
    let status_of = |addr: &str| -> Option<String> {
        use std::io::{Read, Write};
        let mut s = std::net::TcpStream::connect(addr).ok()?;
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        write!(
            s,
            "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        )
        .ok()?;
        let mut out = String::new();
        let _ = s.read_to_string(&mut out);
        out.lines().next().map(str::to_string)
    };
    let first = status_of(&addr).expect("the server answers");
    assert!(first.contains("401"), "{first}");
    assert!(vault.join(".agentero/serve-token").is_file());
    h.keys("space m");
    assert!(h.wait_until(TURN, |a| a.vault_mcp().is_none()));
    assert_eq!(h.app.status(), "vault MCP stopped");
    assert!(status_of(&addr).is_none(), "still listening after the stop");
}

/// The thread list's filter over real turns of the built-in agent: `/` then
/// `@paper#page=N` lists the turns whose answers cited that page (a paper, a folder, words
/// too), enter opens the thread at that turn with the matching verdict selected; esc lists
/// every thread again; after a restart the threads restored from disk are found the same way.
#[test]
fn the_thread_list_finds_threads_by_cited_page_and_words() {
    let (dir, mut h) = with_agent();
    let halvorsen = "papers/halvorsen2009-passages/paper.pdf";
    ask(
        &mut h,
        "What window size is used?",
        "halvorsenpdf",
        halvorsen,
    );
    let first = h.app.chat().current();
    let page = verdicts(h.app.chat().thread().unwrap())
        .into_iter()
        .map(|c| c.uri)
        .find(|u| u.starts_with(halvorsen))
        .expect("the answer cites the paper");
    // A new thread opens with the message input: esc leaves it.
    h.keys("esc space n esc");
    ask(
        &mut h,
        "How is the reading order recovered?",
        "layoutflowpdf",
        "papers/layoutflow/paper.pdf",
    );
    let second = h.app.chat().current();
    assert_ne!(first, second);

    let find = |h: &mut Headless, query: &str| -> Vec<(usize, usize)> {
        h.keys("esc space t /");
        assert_eq!(h.app.overlay(), Some(OverlayKind::Threads));
        h.type_text(query);
        let found = h.app.thread_filter().expect("a filter").found.clone();
        found.iter().map(|t| (t.thread, t.turn)).collect()
    };
    // By cited page: the first thread, its first turn; the list says so.
    assert_eq!(find(&mut h, &format!("@{page}")), [(first, 1)]);
    let screen = h.render();
    assert!(
        screen.contains("1 turn found · enter opens there"),
        "{screen}"
    );
    assert!(screen.contains("What window size is used?"), "{screen}");
    assert!(screen.contains("find threads"), "{screen}");
    // enter keeps the filter, enter again opens the thread at the verdict of that page.
    h.keys("enter enter");
    assert_eq!(h.app.overlay(), None);
    assert_eq!(h.app.chat().current(), first);
    let sel = h.app.chat().selected().expect("an item selected");
    match &h.app.chat().thread().unwrap().items[sel].kind {
        ItemKind::Citation { check, .. } => assert_eq!(check.uri, page),
        other => panic!("selected {other:?}"),
    }
    // By paper, by a page nobody cited, by folder, by words (any case), both.
    assert_eq!(find(&mut h, &format!("@{halvorsen}")), [(first, 1)]);
    assert!(find(&mut h, &format!("@{halvorsen}#page=99")).is_empty());
    let screen = h.render();
    assert!(screen.contains("no thread matches"), "{screen}");
    assert_eq!(find(&mut h, "@papers/").len(), 2);
    assert_eq!(find(&mut h, "READING order"), [(second, 1)]);
    assert!(find(&mut h, &format!("@{page} reading order")).is_empty());
    // esc in the filter lists every thread again; esc closes the list.
    h.keys("esc");
    assert_eq!(h.app.overlay(), Some(OverlayKind::Threads));
    assert!(h.app.thread_filter().is_none());
    h.keys("esc");
    assert_eq!(h.app.overlay(), None);
    drop(h);

    // After a restart: the threads restored from their transcripts are found the same way.
    let mut h = open_agent(dir.path(), &dir.path().join("vault"));
    let found = find(&mut h, &format!("@{page}"));
    assert_eq!(found.len(), 1, "{found:?}");
    h.keys("enter enter");
    let t = h.app.chat().thread().unwrap();
    assert!(t.title.starts_with("What window size"), "{}", t.title);
    let sel = h.app.chat().selected().expect("an item selected");
    assert!(
        matches!(&t.items[sel].kind, ItemKind::Citation { check, .. } if check.uri == page),
        "{:?}",
        t.items[sel].kind
    );
}

/// Issue 12's key fixes that need no agent: `tab` in the paper pane moves the focus (the jump
/// list goes forward with `ctrl-i`/`ctrl-n`), `ctrl-u` in the input deletes to the line's start,
/// after `space n` a typed `i` starts the message instead of landing in it, and `ctrl-c` with
/// nothing running quits only when pressed twice in a row.
#[test]
fn tab_ctrl_u_space_n_and_ctrl_c_twice() {
    let (_d, mut h) = demo();
    select(&mut h, "papers/dense-vs-sparse/paper.pdf");
    h.keys("enter 2 G g g");
    assert_eq!(h.app.focus(), Pane::Paper);
    h.keys("tab");
    assert_eq!(h.app.focus(), Pane::Chat, "tab left the paper pane");
    assert_eq!(
        h.app.paper().unwrap().page(),
        1,
        "tab moved in the jump list"
    );
    h.keys("space p ctrl-o");
    assert_eq!(h.app.paper().unwrap().page(), 2);
    h.keys("ctrl-n");
    assert_eq!(h.app.paper().unwrap().page(), 1);

    // ctrl-u: the current line up to the cursor, not one character.
    h.keys("i");
    h.type_text("first line");
    h.keys("ctrl-j");
    h.type_text("hello world");
    h.keys("ctrl-u");
    assert_eq!(h.app.chat().input_lines(), ["first line", ""]);
    h.type_text("again");
    assert_eq!(h.app.chat().input_lines(), ["first line", "again"]);
    h.keys("ctrl-u backspace ctrl-u");
    assert_eq!(h.app.chat().input_lines(), [""]);

    // space n: a new thread, focus on the chat, not writing yet; i then writes.
    h.keys("esc space n");
    assert_eq!(h.app.chat().threads().len(), 2);
    assert_eq!(h.app.focus(), Pane::Chat);
    h.keys("i");
    h.type_text("why");
    assert_eq!(h.app.chat().input_lines(), ["why"]);
    h.keys("esc");

    // ctrl-c with nothing running: the first press says how to quit, a second one quits;
    // another key in between starts over.
    h.keys("ctrl-c");
    assert!(!h.app.quitting());
    assert!(
        h.app.status().contains("again to quit"),
        "{}",
        h.app.status()
    );
    h.keys("j ctrl-c");
    assert!(!h.app.quitting(), "a key between the two presses disarms");
    h.keys("ctrl-c");
    assert!(h.app.quitting());
}

/// A status message goes away by itself (here "mark b set", a few seconds later); a success
/// that counts "0 failed" is painted as a success, not an error.
#[test]
fn status_messages_expire_and_zero_failed_is_no_error() {
    let (_d, mut h) = demo();
    assert!(
        h.app.status().ends_with(" 0 failed"),
        "the start's index message: {}",
        h.app.status()
    );
    h.render();
    let row = h.buffer().area.height - 1;
    let text: String = (0..h.buffer().area.width)
        .map(|x| h.buffer()[(x, row)].symbol().to_string())
        .collect();
    let at = text.find("indexed").expect("the message in the status bar") as u16;
    let painted = h.buffer()[(at, row)].style();
    let error = h.theme.style("ui.status.error");
    let normal = h.theme.style("ui.status");
    assert_ne!(error.fg, normal.fg, "the test theme tells them apart");
    assert_eq!(painted.fg, normal.fg, "painted as an error: {text}");

    select(&mut h, "papers/dense-vs-sparse/paper.pdf");
    h.keys("enter m b");
    assert_eq!(h.app.status(), "mark b set");
    let set = std::time::Instant::now();
    assert!(h.wait_until(Duration::from_secs(20), |a| a.status().is_empty()));
    let after = set.elapsed();
    assert!(
        after >= Duration::from_secs(3),
        "cleared too soon ({after:?}) to be read"
    );
}

/// The dark theme paints a background everywhere, under popups too.
#[test]
fn the_dark_theme_sets_a_background() {
    use agentero::tui::theme::{self, Theme};
    let (_d, mut h) = demo();
    h.theme = Theme::try_load("dark", &theme::shipped, true).unwrap();
    let bg = h.theme.style("ui.text").bg;
    assert!(
        !matches!(bg, None | Some(ratatui::style::Color::Reset)),
        "{bg:?}"
    );
    h.keys("?");
    h.render();
    let area = h.buffer().area;
    let unpainted: Vec<(u16, u16)> = (0..area.height)
        .flat_map(|y| (0..area.width).map(move |x| (x, y)))
        .filter(|&(x, y)| matches!(h.buffer()[(x, y)].bg, ratatui::style::Color::Reset))
        .collect();
    assert!(
        unpainted.is_empty(),
        "{} cells without a background, first {:?}",
        unpainted.len(),
        unpainted.first()
    );
}

/// ctrl-c during a turn cancels it (the app stays); pressed again right after, it quits.
#[test]
fn ctrl_c_cancels_a_running_turn_and_twice_quits() {
    let (dir, vault) = crate::common::indexed_demo_vault();
    let mut h = open_agent_with(dir.path(), &vault, &[("AGENTERO_BUILTIN_FAULT", "hang")]);
    h.keys("i");
    h.type_text("What is the reading order of a page?");
    let key = |k: &str| Msg::Key(agentero::tui::keymap::Key::parse(k).unwrap().to_event());
    h.send(key("enter"));
    assert!(h.app.chat().turn().is_some(), "{}", h.app.status());
    let streaming = h.wait_until(TURN, |a| {
        a.chat()
            .thread()
            .unwrap()
            .items
            .iter()
            .any(|i| matches!(i.kind, ItemKind::Agent { .. }))
    });
    assert!(streaming, "no first chunk");
    h.send(key("ctrl-c"));
    assert!(h.app.chat().turn().is_none(), "the turn still runs");
    assert!(!h.app.quitting(), "ctrl-c during a turn quit the app");
    let t = h.app.chat().thread().unwrap();
    assert!(matches!(&t.items.last().unwrap().kind, ItemKind::Notice(n) if n == "turn cancelled"));
    assert!(h.app.status().contains("again quits"), "{}", h.app.status());
    h.send(key("ctrl-c"));
    assert!(h.app.quitting());
}

/// With the built-in agent at 80x24: the chat's status line still says the session is new,
/// `z` on a tool card shows the call's arguments, `j` in a Quick Chat's answer selects its
/// first card, then on to the sources, and a closed Quick Chat comes back with `space q` (same page) or `space Q`.
#[test]
fn narrow_status_tool_card_details_quick_chat_j_and_reopen() {
    let (_dir, mut h) = with_agent();
    h.resize(80, 24);
    ask(
        &mut h,
        "What is the reading order of a page?",
        "densesparsepdf",
        "papers/dense-vs-sparse/paper.pdf",
    );
    let screen = h.render();
    assert!(screen.contains("session new"), "{screen}");

    // The first tool card: k from the end until a card is selected, z expands it.
    h.keys("esc");
    let items = &h.app.chat().thread().unwrap().items;
    let card = items
        .iter()
        .position(
            |i| matches!(&i.kind, ItemKind::Tool { title, .. } if title.contains("context_search")),
        )
        .expect("a context_search card");
    let ItemKind::Tool { detail, .. } = &items[card].kind else {
        unreachable!()
    };
    let (detail, n) = (detail.clone(), items.len());
    assert!(detail.starts_with("query: "), "{detail:?}");
    for _ in 0..n {
        if h.app.chat().selected() == Some(card) {
            break;
        }
        h.keys("k");
    }
    assert_eq!(h.app.chat().selected(), Some(card));
    h.keys("z");
    let screen = h.render();
    let first = detail.lines().next().unwrap();
    assert!(
        screen.contains(&agentero::tui::widgets::truncate(first, 20)[..10]),
        "{first:?} not shown:\n{screen}"
    );

    // Quick Chat: j selects the answer's first source.
    h.resize(120, 40);
    select(&mut h, "papers/layoutflow/paper.pdf");
    h.keys("enter space q");
    h.type_text("What does this page say about reading order?");
    h.keys("enter");
    assert!(h.wait_until(TURN, |a| a.quick().is_some_and(|q| q.turn().is_none())));
    h.settle();
    let q = h.app.quick().unwrap();
    let items = &q.thread().items;
    let first = items
        .iter()
        .position(|i| matches!(i.kind, ItemKind::Source(_) | ItemKind::Tool { .. }))
        .expect("tool cards and sources in the answer");
    let first_source = items
        .iter()
        .position(|i| matches!(i.kind, ItemKind::Source(_)))
        .expect("sources in the answer");
    h.keys("j");
    assert_eq!(h.app.quick().unwrap().selected(), Some(first));
    for _ in first..first_source {
        if h.app.quick().unwrap().selected() == Some(first_source) {
            break;
        }
        h.keys("j");
    }
    assert_eq!(h.app.quick().unwrap().selected(), Some(first_source));

    // esc closes it; space q on the same page brings it back with its answer.
    let answered = h.app.quick().unwrap().thread().items.len();
    h.keys("esc");
    assert!(h.app.quick().is_none());
    h.keys("space q");
    let q = h.app.quick().expect("reopened");
    assert_eq!(q.thread().items.len(), answered, "not the closed one");
    assert!(!q.composing());
    // esc, then space Q from the chat pane: the same again.
    h.keys("esc space c space Q");
    let q = h.app.quick().expect("reopened with space Q");
    assert_eq!(q.thread().items.len(), answered);
    // space q inside starts over on the same chips.
    h.keys("space q");
    let q = h.app.quick().unwrap();
    assert!(q.composing() && q.thread().items.is_empty());
}

/// The reading state survives a restart: the paper that was open reopens at its page and
/// row, the marks and the jump list are back, `space r` lists the recently opened documents
/// (each reopens where it was left), and a corrupt state file is reported and kept aside.
#[test]
fn reading_state_is_restored_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    let mut h = Headless::open(&vault, 120, 40).unwrap();
    h.settle();
    select(&mut h, "papers/layoutflow/paper.pdf");
    h.keys("enter");
    select(&mut h, "papers/dense-vs-sparse/paper.pdf");
    h.keys("enter m b 2 G j j");
    let left = h.app.location().unwrap();
    assert_eq!((left.page, left.row), (2, 2));
    h.keys("q");
    assert!(h.app.quitting());
    drop(h);

    let mut h = Headless::open(&vault, 120, 40).unwrap();
    h.settle();
    let p = h.app.paper().expect("the paper reopened");
    assert_eq!(p.path(), "papers/dense-vs-sparse/paper.pdf");
    assert_eq!((p.page(), p.cursor_row()), (2, 2));
    assert_eq!(h.app.focus(), Pane::Paper);
    let screen = h.render();
    assert!(screen.contains("p. 2 / "), "{screen}");
    // The mark, then the jump list: back over the mark's jump to page 2, then the stored
    // jumps (2 G from page 1, opening this paper from layoutflow).
    h.keys("' b");
    assert_eq!(h.app.paper().unwrap().page(), 1);
    h.keys("ctrl-o");
    assert_eq!(h.app.paper().unwrap().page(), 2);
    h.keys("ctrl-o");
    assert_eq!(h.app.paper().unwrap().page(), 1);
    h.keys("ctrl-o");
    assert_eq!(h.app.paper().unwrap().path(), "papers/layoutflow/paper.pdf");

    // space r: the dense-vs-sparse paper first (opened last), layoutflow after it.
    h.keys("space r");
    assert_eq!(h.app.overlay(), Some(OverlayKind::Recent));
    let recent: Vec<String> = h.app.recent().into_iter().map(|(p, _)| p).collect();
    assert_eq!(
        recent[..2],
        [
            "papers/layoutflow/paper.pdf".to_string(),
            "papers/dense-vs-sparse/paper.pdf".to_string()
        ],
        "layoutflow was reopened by ctrl-o just now"
    );
    let screen = h.render();
    assert!(screen.contains("Recently opened"), "{screen}");
    assert!(screen.contains("Dense or Sparse?"), "{screen}");
    h.keys("j enter");
    assert!(h.app.overlay().is_none());
    let p = h.app.paper().unwrap();
    assert_eq!(p.path(), "papers/dense-vs-sparse/paper.pdf");
    assert_eq!(p.page(), 1, "where it was left: the mark's page, after ' b");
    h.keys("q");
    drop(h);

    // A corrupt session file: said so, kept aside, the app starts with what is left.
    let state = vault.join(".agentero/state");
    std::fs::write(state.join("session.json"), "{ not json").unwrap();
    let mut h = Headless::open(&vault, 120, 40).unwrap();
    h.settle();
    assert!(
        h.app.status().contains("session.json was not used"),
        "{}",
        h.app.status()
    );
    assert!(state.join("session.json.corrupt").exists());
    assert!(h.app.paper().is_none());
    assert_eq!(h.app.recent().len(), 2, "the places file was fine");
}

/// `I` shows the page as an image (rendered in a task into the page cache, drawn here in
/// half-blocks), follows page turns, and `I` again brings the text back. A text file stays
/// text.
#[test]
fn image_view_toggles_and_follows_the_page() {
    let (dir, mut h) = demo();
    select(&mut h, "papers/dense-vs-sparse/paper.pdf");
    h.keys("enter");
    let text = h.render();
    assert!(!text.contains('▀'), "{text}");
    h.keys("I");
    assert!(h.app.paper().is_some());
    let screen = h.render();
    let a = h.app.areas().paper_text;
    // Cells the image painted: half-blocks (or blanks) in the page's colours.
    let painted = |h: &Headless| {
        let buf = h.buffer();
        (a.y..a.y + a.height)
            .flat_map(|y| (a.x..a.x + a.width).map(move |x| (x, y)))
            .filter(|&(x, y)| matches!(buf[(x, y)].bg, ratatui::style::Color::Rgb(..)))
            .collect::<Vec<_>>()
    };
    let cells = painted(&h);
    let half_blocks = cells
        .iter()
        .filter(|&&(x, y)| ["▀", "▄"].contains(&h.buffer()[(x, y)].symbol()))
        .count();
    assert!(
        half_blocks > 200,
        "{half_blocks} half-block cells:\n{screen}"
    );
    // The page fills the text area's height (below the header), in proportion: a letter
    // page is 8.5 x 11 and a cell twice as high as wide.
    let rows: std::collections::BTreeSet<u16> = cells.iter().map(|c| c.1).collect();
    let cols: std::collections::BTreeSet<u16> = cells.iter().map(|c| c.0).collect();
    assert_eq!(rows.len(), a.height as usize, "{screen}");
    let ratio = cols.len() as f64 / (2.0 * rows.len() as f64);
    assert!(
        (ratio - 8.5 / 11.0).abs() < 0.05,
        "ratio {ratio}:\n{screen}"
    );
    assert!(
        screen.contains("p. 1 / 2") && screen.contains(" · image"),
        "{screen}"
    );
    // White paper and dark ink: both colours are there.
    let buf = h.buffer();
    let colours: std::collections::HashSet<String> = cells
        .iter()
        .map(|&(x, y)| format!("{:?}", buf[(x, y)].fg))
        .collect();
    assert!(colours.len() > 4, "a flat image: {colours:?}");
    let cached = dir.path().join("vault/.agentero/cache/pages");
    let count = |d: &Path| {
        std::fs::read_dir(d)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| std::fs::read_dir(e.path()).map_or(0, |f| f.count()))
            .sum::<usize>()
    };
    assert_eq!(count(&cached), 2, "page 1's PNG and geometry");

    // The next page: rendered too, the header follows.
    h.keys("J");
    let screen = h.render();
    assert!(
        screen.contains("p. 2 / 2") && screen.contains(" · image"),
        "{screen}"
    );
    assert!(painted(&h).len() > 200, "{screen}");
    assert_eq!(count(&cached), 4);
    // Back to the text.
    h.keys("I");
    let screen = h.render();
    assert!(
        !screen.contains('▀') && !screen.contains("· image"),
        "{screen}"
    );
    assert!(screen.contains("p. 2 / 2"), "{screen}");

    // A note has no image view.
    select(&mut h, "notes/reading-list.md");
    h.keys("enter I");
    assert!(
        h.app.status().contains("image view shows PDF pages"),
        "{}",
        h.app.status()
    );
    assert!(!h.render().contains('▀'));
}

/// `y c` copies the page's citation, `y b` the paper's BibTeX entry, `y` in visual mode the
/// selection (to the terminal's clipboard through OSC 52; headless, the runner keeps it), and
/// `O` opens the paper at its page in the viewer `$AGENTERO_PDF_VIEWER` names.
#[test]
fn yank_citation_bibtex_selection_and_open_in_the_viewer() {
    let (dir, mut h) = demo();
    select(&mut h, "papers/dense-vs-sparse/paper.pdf");
    h.keys("enter 2 G y c");
    assert_eq!(
        h.runner.copied().as_deref(),
        Some("papers/dense-vs-sparse/paper.pdf#page=2")
    );
    assert!(
        h.app.status().starts_with("copied the citation"),
        "{}",
        h.app.status()
    );
    h.keys("y b");
    let bib = h.runner.copied().unwrap();
    assert!(bib.starts_with('@'), "{bib}");
    assert!(bib.contains("Dense or Sparse?"), "{bib}");
    assert!(bib.contains("Fischbach"), "{bib}");
    assert!(
        h.app.status().starts_with("copied the BibTeX entry"),
        "{}",
        h.app.status()
    );
    // A selection of three rows: the title, the blank row, the authors' line.
    h.keys("g g V j j y");
    let sel = h.runner.copied().unwrap();
    let page = h.app.paper().unwrap().text(1).unwrap().to_string();
    assert!(sel.starts_with("Dense or Sparse?"), "{sel:?}");
    assert!(sel.lines().count() >= 2, "{sel:?}");
    let last = sel.trim_end().lines().last().unwrap();
    assert!(page.contains(last.trim()), "{last:?} not on the page");
    assert!(sel.len() < page.len());
    assert!(!h.app.paper().unwrap().in_visual(), "y leaves visual mode");

    // O: the viewer gets the file and the page.
    let args = dir.path().join("viewer-args");
    let script = dir.path().join("viewer.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho \"$@\" > '{}'\n", args.display()),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    h.runner.set_pdf_viewer(Some(format!(
        "{} --page={{page}} {{file}}",
        script.display()
    )));
    h.keys("2 G O");
    // The shell creates the file before `echo` writes its line: wait for the whole line.
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let read = || std::fs::read_to_string(&args).unwrap_or_default();
    while !read().ends_with('\n') && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let got = read();
    let file = dir.path().join("vault/papers/dense-vs-sparse/paper.pdf");
    let file = std::fs::canonicalize(&file).unwrap_or(file);
    assert!(got.starts_with("--page=2 "), "{got:?}");
    assert!(
        std::path::Path::new(got.trim()["--page=2 ".len()..].trim()).exists()
            && got.contains("papers/dense-vs-sparse/paper.pdf"),
        "{got:?} vs {}",
        file.display()
    );
    assert!(
        h.app.status().starts_with("opened p. 2 in "),
        "{}",
        h.app.status()
    );
    // A missing viewer says so.
    h.runner
        .set_pdf_viewer(Some("/nonexistent/viewer {file}".to_string()));
    h.keys("O");
    assert!(h.app.status().contains("not found"), "{}", h.app.status());

    // A paper with a papis sidecar: `y b` writes its `ref` key, its type and its journal.
    select(&mut h, "papers/citeweave/paper.pdf");
    h.keys("enter y b");
    let bib = h.runner.copied().unwrap();
    assert!(bib.starts_with("@article{raman2022citeweave,"), "{bib}");
    assert!(
        bib.contains("journal = {Transactions on Scholarly Data Mining},")
            && bib.contains("pages = {112--131},"),
        "{bib}"
    );
}

/// `space /` searches the text of the whole vault: the results overlay lists papers and notes
/// as `title · p. N · excerpt` with the matches marked, `enter` opens the paper at the page
/// with the match highlighted, `in:FOLDER/` keeps to a folder, nonsense finds nothing.
#[test]
fn vault_search_pane_opens_a_result_at_its_page() {
    let (_d, mut h) = demo();
    h.keys("space /");
    h.type_text("reciprocal rank fusion");
    h.keys("enter");
    h.settle();
    assert_eq!(h.app.overlay(), Some(OverlayKind::Results));
    let screen = h.render();
    assert!(
        screen.contains("Search: reciprocal rank fusion"),
        "{screen}"
    );
    assert!(screen.contains("Dense or Sparse?"), "{screen}");
    assert!(screen.contains("‹"), "matches not marked:\n{screen}");
    // The first paper among the results (a note may rank above it) opens at its page with
    // the match highlighted.
    let rows: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains(" · p. ") || l.contains(" · lines "))
        .collect();
    let at = rows
        .iter()
        .position(|l| l.contains(" · p. "))
        .expect("a paper result");
    let first = rows[at].to_string();
    for _ in 0..at {
        h.keys("j");
    }
    h.keys("enter");
    h.settle();
    assert!(h.app.overlay().is_none());
    assert_eq!(h.app.focus(), Pane::Paper);
    let p = h.app.paper().unwrap();
    let page = p.page();
    assert!(
        first.contains(&format!("p. {page}")),
        "opened p. {page}, the result said: {first}"
    );
    let (qpage, s, e) = p.quote().expect("the match highlighted");
    assert_eq!(qpage, page);
    let text = p.text(page).unwrap();
    assert!(
        text[s..e].to_lowercase().contains("reciprocal")
            || text[s..e].to_lowercase().contains("fusion")
            || text[s..e].to_lowercase().contains("rank"),
        "{:?}",
        &text[s..e]
    );
    // The phrase searched is highlighted whole, not its first word.
    assert!(
        text[s..e].to_lowercase().contains("reciprocal rank fusion"),
        "{:?}",
        &text[s..e]
    );
    // ctrl-o goes back (the jump is in the jump list).
    h.keys("ctrl-o");

    // A word shorter than a quote (BM25) is highlighted too.
    h.keys("space /");
    h.type_text("BM25");
    h.keys("enter");
    h.settle();
    let screen = h.render();
    let rows: Vec<&str> = screen
        .lines()
        .filter(|l| l.contains(" · p. ") || l.contains(" · lines "))
        .collect();
    let at = rows
        .iter()
        .position(|l| l.contains(" · p. "))
        .expect("a paper result");
    for _ in 0..at {
        h.keys("j");
    }
    h.keys("enter");
    h.settle();
    let p = h.app.paper().unwrap();
    let (_, s, e) = p.quote().expect("BM25 highlighted");
    assert_eq!(p.text(p.page()).unwrap()[s..e].to_lowercase(), "bm25");
    h.keys("ctrl-o");

    // A folder: only notes.
    h.keys("space /");
    h.type_text("in:notes/ retrieval");
    h.keys("enter");
    h.settle();
    let screen = h.render();
    assert!(screen.contains("Search: in:notes/ retrieval ("), "{screen}");
    assert!(
        !screen.contains(" · p. "),
        "a paper in the notes' results:\n{screen}"
    );
    assert!(screen.contains("lines "), "{screen}");
    h.keys("esc");
    assert!(h.app.overlay().is_none());

    h.keys("space /");
    h.type_text("zzzqqqxxv");
    h.keys("enter");
    h.settle();
    let screen = h.render();
    assert!(screen.contains("nothing in the vault matches"), "{screen}");
}

/// The browser shows one row per paper (its own folder folded in) and `s` sorts the papers
/// within their folders, the selection staying on the same paper.
#[test]
fn browser_rows_are_papers_and_s_sorts_them() {
    let (_d, mut h) = demo();
    let rows = |h: &Headless| -> Vec<String> {
        h.app.browser().visible().map(|e| e.path.clone()).collect()
    };
    let shown = rows(&h);
    assert!(shown.contains(&"papers/dense-vs-sparse/paper.pdf".to_string()));
    assert!(
        !shown.contains(&"papers/dense-vs-sparse".to_string()),
        "a paper's own folder is not a row: {shown:?}"
    );
    // The folder is still offered to the @ popup.
    assert!(
        h.app
            .browser()
            .entries()
            .iter()
            .any(|e| e.path == "papers/dense-vs-sparse")
    );
    select(&mut h, "papers/dense-vs-sparse/paper.pdf");
    let papers = |h: &Headless| -> Vec<(String, Option<i32>)> {
        h.app
            .browser()
            .visible()
            .filter(|e| e.parent == "papers")
            .map(|e| (e.title.clone(), e.year))
            .collect()
    };
    h.keys("s");
    assert_eq!(h.app.status(), "papers sorted by title");
    let by_title = papers(&h);
    let mut sorted = by_title.clone();
    sorted.sort_by_key(|(t, _)| t.to_lowercase());
    assert_eq!(by_title, sorted);
    assert_eq!(
        h.app.browser().current().unwrap().path,
        "papers/dense-vs-sparse/paper.pdf"
    );
    h.keys("s");
    let years: Vec<Option<i32>> = papers(&h).into_iter().map(|(_, y)| y).collect();
    assert!(years.windows(2).all(|w| w[0] >= w[1]), "{years:?}");
    let screen = h.render();
    assert!(screen.contains("by year"), "{screen}");
    h.keys("s s s");
    assert_eq!(h.app.status(), "papers sorted by folder");
}

/// Sends `question` from the chat's input and streams a turn in its place (the turn's effect is
/// not run: these events stand in for the agent): `cards` tool cards, then an answer of `lines`
/// lines `answer N line MM`. Returns the turn, still running.
fn fake_turn(h: &mut Headless, n: usize, cards: usize, lines: usize) -> u64 {
    use agentero::tui::app::Effect;
    use agentero::tui::thread::{ChatEvent, ToolStatus};
    let press = |h: &mut Headless, k: &str| {
        h.app.update(Msg::Key(
            agentero::tui::keymap::Key::parse(k).unwrap().to_event(),
        ))
    };
    press(h, "i");
    for c in format!("question {n}").chars() {
        let _ = h
            .app
            .update(Msg::Key(agentero::tui::keymap::Key::plain(c).to_event()));
    }
    let turn = press(h, "enter")
        .into_iter()
        .find_map(|e| match e {
            Effect::StartTurn { turn, .. } => Some(turn),
            _ => None,
        })
        .expect("the question starts a turn");
    press(h, "esc");
    for c in 0..cards {
        h.send(Msg::Chat {
            turn,
            event: ChatEvent::ToolCall {
                id: format!("t{n}-{c}"),
                title: format!("context_read card {n}.{c}"),
                status: ToolStatus::Completed,
            },
        });
    }
    let answer: String = (1..=lines)
        .map(|l| format!("answer {n} line {l:02}\n\n"))
        .collect();
    h.send(Msg::Chat {
        turn,
        event: ChatEvent::MessageChunk(answer),
    });
    turn
}

fn end_turn(h: &mut Headless, turn: u64) {
    h.send(Msg::Chat {
        turn,
        event: agentero::tui::thread::ChatEvent::TurnEnded {
            stop_reason: "end_turn".into(),
        },
    });
}

/// The rows of the chat's message area as drawn.
fn chat_rows(h: &mut Headless) -> Vec<String> {
    h.render();
    let inner = ratatui::widgets::Block::bordered().inner(h.app.areas().chat);
    let [_, msgs, _, _] = agentero::tui::chat::view::areas(h.app.chat(), inner);
    let buf = h.buffer();
    (msgs.y..msgs.bottom())
        .map(|y| {
            (msgs.x..msgs.right())
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect()
}

/// A window is full: never two blank rows in a row (one separates messages or paragraphs).
fn assert_full(rows: &[String], what: &str) {
    let blank_runs = rows
        .windows(2)
        .filter(|w| w[0].is_empty() && w[1].is_empty())
        .count();
    assert!(
        blank_runs == 0,
        "{what}: blank rows in the window:\n{}",
        rows.join("\n")
    );
}

/// One scroll model for the chat: `g g` shows the thread's first rows and the window is full
/// (the first answer right under its tool cards, no blank rows), `G` the end, ctrl-u/ctrl-d move
/// by half the pane in the rows drawn and stop at the top (one ctrl-d after many ctrl-u moves
/// at once), `j`/`k` keep the selection in view, and a window scrolled back stays on what it
/// shows while the answer streams under it.
#[test]
fn the_chat_scrolls_in_rows_with_no_blank_rows_at_the_top() {
    let (_d, mut h) = demo();
    let _ = h.app.update(Msg::Agent(AgentState::Ready {
        name: "builtin".into(),
        remote: false,
    }));
    for n in 1..=3 {
        let turn = fake_turn(&mut h, n, 8, 30);
        end_turn(&mut h, turn);
    }
    let rows = chat_rows(&mut h);
    let hgt = rows.len();
    assert!(hgt > 20, "{hgt}");
    assert_eq!(rows.last().unwrap().trim(), "answer 3 line 30", "{rows:#?}");

    h.keys("g g");
    let top = chat_rows(&mut h);
    assert_eq!(top[0], "you", "{top:#?}");
    assert_eq!(top[1].trim(), "question 1");
    assert!(top.iter().any(|r| r.contains("card 1.0")), "{top:#?}");
    assert!(
        top.iter().any(|r| r.trim() == "answer 1 line 01"),
        "the answer under the cards is not shown:\n{}",
        top.join("\n")
    );
    assert_full(&top, "g g");
    let sel = h.app.chat().selected().expect("g g selects the first card");
    assert!(matches!(
        &h.app.chat().thread().unwrap().items[sel].kind,
        ItemKind::Tool { title, .. } if title == "context_read card 1.0"
    ));

    // ctrl-d: half the pane further, in rows drawn.
    h.keys("ctrl-d");
    let down = chat_rows(&mut h);
    assert_eq!(down[0], top[hgt / 2], "ctrl-d moves by half the pane");
    assert_full(&down, "ctrl-d");
    // Many ctrl-u stop at the top: one ctrl-d then moves at once.
    h.keys("ctrl-u ctrl-u ctrl-u ctrl-u ctrl-u ctrl-u");
    assert_eq!(chat_rows(&mut h), top);
    h.keys("ctrl-d");
    assert_eq!(chat_rows(&mut h), down);

    // G: the end again, nothing selected.
    h.keys("G");
    let end = chat_rows(&mut h);
    assert_eq!(end, rows);
    assert_eq!(h.app.chat().selected(), None);
    assert_eq!(h.app.chat().scroll_from_end(), 0);
    // ctrl-u from the end, ctrl-d back.
    h.keys("ctrl-u");
    let up = chat_rows(&mut h);
    assert_eq!(up[hgt / 2..], end[..hgt - hgt / 2]);
    h.keys("ctrl-d");
    assert_eq!(chat_rows(&mut h), end);

    // k from the end selects the last card of the last answer, which comes into view (the
    // window is still full), j past the last card follows the end again.
    h.keys("k");
    let k = chat_rows(&mut h);
    assert!(k.iter().any(|r| r.contains("card 3.7")), "{k:#?}");
    assert_full(&k, "k");
    h.keys("j");
    assert_eq!(h.app.chat().selected(), None);
    assert_eq!(chat_rows(&mut h), end);

    // A turn streaming under a window scrolled back: the window stays on what it shows; at the
    // end it follows the answer.
    let turn = fake_turn(&mut h, 4, 2, 5);
    h.keys("ctrl-u");
    let back = chat_rows(&mut h);
    h.send(Msg::Chat {
        turn,
        event: agentero::tui::thread::ChatEvent::MessageChunk(
            "more\n\nand more\n\nand more\n".into(),
        ),
    });
    assert_eq!(
        chat_rows(&mut h),
        back,
        "the window moved while scrolled back"
    );
    h.keys("G");
    assert_eq!(chat_rows(&mut h).last().unwrap().trim(), "and more");
    end_turn(&mut h, turn);
}

/// A Quick Chat closed with a card selected and reopened: its window is full, the answer
/// under the cards (not the cards and then blank rows).
#[test]
fn a_reopened_quick_chat_shows_its_answer_under_the_selection() {
    use agentero::tui::thread::{ChatEvent, ToolStatus};
    let (_d, mut h) = demo();
    let _ = h.app.update(Msg::Agent(AgentState::Ready {
        name: "builtin".into(),
        remote: false,
    }));
    select(&mut h, "papers/layoutflow/paper.pdf");
    h.keys("enter space q");
    h.type_text("Why?");
    let enter = agentero::tui::keymap::Key::parse("enter")
        .unwrap()
        .to_event();
    let _ = h.app.update(Msg::Key(enter));
    let turn = h.app.quick().unwrap().turn().expect("a quick turn");
    for c in 0..4 {
        h.send(Msg::Chat {
            turn,
            event: ChatEvent::ToolCall {
                id: format!("q{c}"),
                title: format!("context_read quick card {c}"),
                status: ToolStatus::Completed,
            },
        });
    }
    let answer: String = (1..=40).map(|l| format!("quick line {l:02}\n\n")).collect();
    for event in [
        ChatEvent::MessageChunk(answer),
        ChatEvent::TurnEnded {
            stop_reason: "end_turn".into(),
        },
    ] {
        h.send(Msg::Chat { turn, event });
    }
    h.keys("j");
    assert!(h.app.quick().unwrap().selected().is_some());
    h.keys("esc space q");
    assert!(h.app.quick().is_some(), "not reopened");
    let screen = h.render();
    let lines: Vec<&str> = screen.lines().collect();
    let title = lines
        .iter()
        .position(|l| l.contains("Quick Chat"))
        .expect("the popup");
    let left = lines[title].chars().position(|c| c == '┌').unwrap();
    let inside: Vec<String> = lines[title + 1..]
        .iter()
        .take_while(|l| l.chars().nth(left) == Some('│'))
        .map(|l| l.chars().skip(left + 1).collect::<String>())
        .map(|l| l.trim_end_matches(['│', ' ']).to_string())
        .collect();
    assert!(
        inside.iter().any(|l| l.contains("quick card 0")),
        "{screen}"
    );
    assert!(
        inside.iter().any(|l| l.trim() == "quick line 01"),
        "{screen}"
    );
    // The rows between the chips and the hint: no run of blank rows.
    let runs = inside
        .windows(2)
        .filter(|w| w[0].trim().is_empty() && w[1].trim().is_empty())
        .count();
    assert_eq!(runs, 0, "{screen}");
}

/// The cells of the screen whose background is the terminal's own.
fn unpainted(h: &Headless) -> Vec<(u16, u16)> {
    let area = h.buffer().area;
    (0..area.height)
        .flat_map(|y| (0..area.width).map(move |x| (x, y)))
        .filter(|&(x, y)| matches!(h.buffer()[(x, y)].bg, ratatui::style::Color::Reset))
        .collect()
}

/// dark and light paint their background on every cell of every surface (the panes and
/// their empty rows, a paper's page, a thread, the chips, the mention popup, the Quick Chat,
/// the help, the thread list), at 80 and 160 columns; the default theme keeps the
/// terminal's own background where nothing is highlighted.
#[test]
fn themes_paint_their_background_everywhere() {
    use agentero::tui::theme::{self, Theme};
    for name in ["dark", "light", "default"] {
        for (w, hh) in [(80, 24), (160, 48)] {
            let (_d, mut h) = demo();
            h.resize(w, hh);
            h.theme = Theme::try_load(name, &theme::shipped, true).unwrap();
            let _ = h.app.update(Msg::Agent(AgentState::Ready {
                name: "builtin".into(),
                remote: false,
            }));
            let check = |h: &mut Headless, what: &str| {
                h.render();
                let left = unpainted(h);
                if name == "default" {
                    // Most of the screen is the terminal's own background.
                    let all = (w as usize) * (hh as usize);
                    assert!(left.len() * 2 > all, "{name} {w}x{hh} {what}: painted");
                } else {
                    assert!(
                        left.is_empty(),
                        "{name} {w}x{hh} {what}: {} cells without a background, first {:?}\n{}",
                        left.len(),
                        left.first(),
                        h.render()
                    );
                }
            };
            check(&mut h, "start");
            select(&mut h, "papers/layoutflow/paper.pdf");
            h.keys("enter");
            h.settle();
            check(&mut h, "a paper");
            let turn = fake_turn(&mut h, 1, 3, 12);
            end_turn(&mut h, turn);
            h.keys("space c");
            check(&mut h, "a thread");
            h.keys("i");
            h.type_text("@dens");
            check(&mut h, "the mention popup");
            h.keys("enter esc esc");
            h.keys("space t");
            check(&mut h, "the thread list");
            h.keys("esc ?");
            check(&mut h, "the help");
            h.keys("esc space p V j space q");
            check(&mut h, "the Quick Chat");
            h.keys("esc");
        }
    }
}

/// `z` on `consulted: N` lists the sources under it; `j`/`k` stop on each, `enter` opens the
/// one selected at its page (a note at its lines), `ctrl-o` comes back; `z` on a listed source
/// folds the list and selects its line; folded, `k` passes over it to the cited sources.
#[test]
fn consulted_sources_are_selected_and_opened() {
    use agentero::tui::thread::{ChatEvent, SourceRef};
    let (_d, mut h) = demo();
    let _ = h.app.update(Msg::Agent(AgentState::Ready {
        name: "builtin".into(),
        remote: false,
    }));
    let turn = fake_turn(&mut h, 1, 1, 2);
    let src = |uri: &str, quote: Option<&str>| SourceRef {
        uri: uri.into(),
        quote: quote.map(str::to_string),
    };
    for event in [
        ChatEvent::Sources(vec![src("papers/dense-vs-sparse/paper.pdf#page=1", None)]),
        ChatEvent::Consulted(vec![
            src("papers/citeweave/paper.pdf#page=2", None),
            src("papers/layoutflow/paper.pdf#page=1", None),
            src("notes/reading-list.md#line=1,3", None),
        ]),
    ] {
        h.send(Msg::Chat { turn, event });
    }
    end_turn(&mut h, turn);
    h.keys("space c");
    let kind = |h: &Headless| {
        let i = h.app.chat().selected()?;
        Some(match &h.app.chat().thread().unwrap().items[i].kind {
            ItemKind::Source(s) => s.uri.clone(),
            ItemKind::Consulted(n) => format!("consulted {n}"),
            other => format!("{other:?}"),
        })
    };
    // Folded: k stops on the line, k again on the cited source.
    h.keys("k");
    assert_eq!(kind(&h).as_deref(), Some("consulted 3"));
    h.keys("k");
    assert_eq!(
        kind(&h).as_deref(),
        Some("papers/dense-vs-sparse/paper.pdf#page=1")
    );
    h.keys("j z");
    let screen = h.render();
    assert!(screen.contains("p. 2"), "{screen}");
    let mut seen = Vec::new();
    for _ in 0..3 {
        h.keys("j");
        seen.push(kind(&h).unwrap());
    }
    assert_eq!(
        seen,
        [
            "papers/citeweave/paper.pdf#page=2",
            "papers/layoutflow/paper.pdf#page=1",
            "notes/reading-list.md#line=1,3"
        ]
    );
    h.keys("k k");
    assert_eq!(
        kind(&h).as_deref(),
        Some("papers/citeweave/paper.pdf#page=2")
    );
    h.keys("enter");
    h.settle();
    assert_eq!(h.app.focus(), Pane::Paper);
    let p = h.app.paper().expect("the consulted paper opened");
    assert_eq!((p.path(), p.page()), ("papers/citeweave/paper.pdf", 2));
    h.keys("space c j");
    assert_eq!(
        kind(&h).as_deref(),
        Some("papers/layoutflow/paper.pdf#page=1")
    );
    // z on a listed source folds the list under its line, which is selected.
    h.keys("z");
    assert_eq!(kind(&h).as_deref(), Some("consulted 3"));
    h.keys("j");
    assert_eq!(
        h.app.chat().selected(),
        None,
        "past the folded list: the end"
    );
    // At the end (G) nothing is selected: z unfolds the latest line that folds, and selects it.
    h.keys("G z");
    assert_eq!(kind(&h).as_deref(), Some("consulted 3"));
    assert!(h.render().contains("p. 2"), "the list is open again");
}

/// The paper pane's cells drawn in the annotation style (the default theme's light cyan).
fn annotated_cells(h: &mut Headless) -> usize {
    h.render();
    let buf = h.buffer();
    buf.content
        .iter()
        .filter(|c| c.bg == ratatui::style::Color::LightCyan)
        .count()
}

/// `v … H`, a comment, enter: the highlight is saved in the state folder, drawn on its page,
/// listed by `A` (enter jumps, `e` exports markdown with the page's citation URI, `d`
/// deletes), and it is still there after a restart with the PDF renamed.
#[test]
fn a_highlight_with_a_comment_is_drawn_listed_exported_and_survives_a_rename() {
    let (_dir, vault) = crate::common::indexed_demo_vault();
    let v = Vault::open(&vault).unwrap();
    let paper = "papers/layoutflow/paper.pdf";
    let mut h = Headless::open(&vault, 120, 40).unwrap();
    h.settle();
    select(&mut h, paper);
    h.keys("enter");
    assert_eq!(annotated_cells(&mut h), 0);
    // Esc at the comment: nothing is saved.
    h.keys("v l l l l H esc");
    assert!(h.app.status().contains("cancelled"), "{}", h.app.status());
    assert!(v.annotations(paper).is_empty());
    h.keys("v l l l l l H");
    assert!(h.app.status().contains("comment"), "{}", h.app.status());
    h.type_text("check the XY-cut");
    h.keys("enter");
    h.settle();
    let ann = v.annotations(paper);
    assert_eq!(ann.len(), 1, "{}", h.app.status());
    assert_eq!(ann[0].comment.as_deref(), Some("check the XY-cut"));
    assert_eq!(ann[0].page, 1);
    let marked = ann[0].text.clone().unwrap();
    assert_eq!(marked.chars().count(), 6, "{marked:?}");
    assert!(
        !ann[0].rects.is_empty(),
        "rects in PDF space for the image view"
    );
    assert_eq!(h.app.paper().unwrap().info().annotations, ann);
    // The six characters are drawn marked (the cursor's cell may sit on one of them).
    assert!((5..=6).contains(&annotated_cells(&mut h)), "{}", h.render());

    // The list: one line with its comment; e exports, enter jumps there.
    h.keys("J A");
    assert_eq!(h.app.overlay(), Some(OverlayKind::Annotations));
    assert!(h.render().contains("check the XY-cut"));
    h.keys("e");
    h.settle();
    let exports = vault.join(".agentero/exports");
    let md = std::fs::read_to_string(exports.join("highlights-papers-layoutflow-paper.md"))
        .unwrap_or_else(|e| panic!("{e}; status: {}", h.app.status()));
    assert!(md.contains(&format!("> {}", marked.trim())), "{md}");
    assert!(md.contains("check the XY-cut"), "{md}");
    assert!(md.contains("— papers/layoutflow/paper.pdf#page=1"), "{md}");
    h.keys("enter");
    assert_eq!(h.app.overlay(), None);
    assert_eq!(h.app.paper().unwrap().page(), 1);

    // Restart with the PDF renamed and moved: the highlight follows its content.
    drop(h);
    std::fs::create_dir_all(vault.join("moved")).unwrap();
    std::fs::rename(vault.join(paper), vault.join("moved/renamed.pdf")).unwrap();
    let mut h = Headless::open(&vault, 120, 40).unwrap();
    h.settle();
    select(&mut h, "moved/renamed.pdf");
    h.keys("enter");
    h.settle();
    let doc = h.app.paper().unwrap();
    assert_eq!(doc.path(), "moved/renamed.pdf");
    assert_eq!(doc.info().annotations.len(), 1);
    assert!((5..=6).contains(&annotated_cells(&mut h)));
    // d in the list deletes it.
    h.keys("A d");
    h.settle();
    assert!(
        v.annotations("moved/renamed.pdf").is_empty(),
        "{}",
        h.app.status()
    );
    assert!(h.app.paper().unwrap().info().annotations.is_empty());
    assert_eq!(annotated_cells(&mut h), 0);
    assert!(h.app.status().contains("u undoes"), "{}", h.app.status());
    // u puts it back as it was, its comment too; a second u has nothing to undo.
    h.keys("u");
    h.settle();
    let back = v.annotations("moved/renamed.pdf");
    assert_eq!(back.len(), 1, "{}", h.app.status());
    assert_eq!(back[0].comment.as_deref(), Some("check the XY-cut"));
    assert!((5..=6).contains(&annotated_cells(&mut h)));
    h.keys("u");
    assert!(
        h.app.status().contains("nothing to undo"),
        "{}",
        h.app.status()
    );
}

/// `b` in the thread list writes the BibTeX of the papers the thread cited, `c` its CSL-JSON,
/// in the state folder, and the status line names the file.
#[test]
fn the_thread_list_exports_the_cited_papers() {
    let (dir, mut h) = with_agent();
    ask_and_wait(&mut h, "How do dense and sparse retrieval compare?");
    h.keys("esc space t");
    assert_eq!(h.app.overlay(), Some(OverlayKind::Threads));
    h.keys("b");
    h.settle();
    let status = h.app.status().to_string();
    assert!(status.contains("BibTeX of the 1 paper"), "{status}");
    let exports = dir.path().join("vault/.agentero/exports");
    let bib: Vec<_> = std::fs::read_dir(&exports).unwrap().flatten().collect();
    assert_eq!(bib.len(), 1);
    let text = std::fs::read_to_string(bib[0].path()).unwrap();
    let parsed = biblatex::Bibliography::parse(&text).unwrap();
    assert_eq!(parsed.len(), 1, "{text}");
    assert!(parsed.iter().next().unwrap().title().is_ok(), "{text}");
    h.keys("c");
    h.settle();
    assert!(h.app.status().contains("CSL-JSON"), "{}", h.app.status());
    assert_eq!(std::fs::read_dir(&exports).unwrap().count(), 2);
}

/// The image view's keys at 120x40: `Z` maximises the paper pane (the other panes hidden, the
/// status line kept), `w` fits the width, `j`/`k` and `ctrl-d`/`ctrl-u` pan (past the bottom
/// the next page's top, past the top the previous page's bottom), `+`/`-` zoom around the
/// centre, `h`/`l` pan across a zoomed page, `J` keeps the zoom, `f` fits the page again,
/// `Z` brings the panes back; fit and zoom say what they are for in the text view.
#[test]
fn image_view_fits_zooms_pans_and_maximises() {
    let (_dir, mut h) = demo();
    select(&mut h, "papers/dense-vs-sparse/paper.pdf");
    h.keys("enter I");
    let at = |h: &Headless| {
        let a = h.app.areas().paper_text;
        h.app
            .paper_pane()
            .zoom_label((a.width, a.height))
            .unwrap_or_default()
    };
    // Columns of the text area the image painted, on its widest row.
    let painted = |h: &mut Headless| {
        h.render();
        let a = h.app.areas().paper_text;
        let buf = h.buffer();
        (a.y..a.y + a.height)
            .map(|y| {
                (a.x..a.x + a.width)
                    .filter(|&x| matches!(buf[(x, y)].bg, ratatui::style::Color::Rgb(..)))
                    .count()
            })
            .max()
            .unwrap_or(0)
    };
    assert_eq!(at(&h), "fit page");
    let small = painted(&mut h);
    assert!(small > 20, "{}", h.render());
    h.keys("Z");
    let a = h.app.areas();
    assert_eq!((a.vault.width, a.chat.width, a.paper.width), (0, 0, 120));
    assert!(h.app.status().contains("maximised"), "{}", h.app.status());
    let screen = h.render();
    assert!(!screen.contains("Vault"), "{screen}");
    // The whole page is as high as before (the height bounds it), and drawn again.
    assert_eq!(painted(&mut h), small);
    h.keys("w");
    assert_eq!(at(&h), "fit width · 0%");
    assert_eq!(painted(&mut h), usize::from(h.app.areas().paper_text.width));
    h.keys("j");
    assert_ne!(at(&h), "fit width · 0%");
    h.keys("k");
    assert_eq!(at(&h), "fit width · 0%");
    h.keys("ctrl-d");
    let half = at(&h);
    assert!(half.starts_with("fit width · ") && half != "fit width · 0%");
    // Down to the bottom, then on to page 2's top.
    for _ in 0..6 {
        h.keys("ctrl-d");
        if h.app.paper().unwrap().page() == 2 {
            break;
        }
    }
    assert_eq!(h.app.paper().unwrap().page(), 2);
    assert_eq!(at(&h), "fit width · 0%");
    h.keys("ctrl-u");
    assert_eq!(h.app.paper().unwrap().page(), 1);
    assert_eq!(at(&h), "fit width · 100%");
    h.keys("g g");
    h.keys("+");
    let zoomed = at(&h);
    assert!(zoomed.starts_with("zoom 125% · "), "{zoomed}");
    assert!(zoomed.ends_with("50% across"), "{zoomed}");
    h.keys("l l");
    assert!(at(&h).ends_with("100% across"), "{}", at(&h));
    h.keys("h");
    assert!(!at(&h).ends_with("100% across"), "{}", at(&h));
    h.keys("J");
    assert_eq!(h.app.paper().unwrap().page(), 2);
    assert!(at(&h).starts_with("zoom 125% · 0% · "), "{}", at(&h));
    h.keys("- K");
    assert_eq!(at(&h), "fit width · 0%");
    h.keys("f");
    assert_eq!(at(&h), "fit page");
    h.keys("Z");
    let a = h.app.areas();
    assert!(a.vault.width > 0 || a.chat.width > 0);
    h.keys("I w");
    assert!(h.app.status().contains("image view"), "{}", h.app.status());
}

/// The text view keeps a PDF's code lines: at 60 columns a listing's long line is one row
/// cut with `›` (not wrapped into the next), `z l` scrolls it across, `z h` back.
#[test]
fn code_lines_are_cut_and_scroll_across() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    std::fs::create_dir_all(vault.join("papers/code")).unwrap();
    let f = agentero::vault::demo::fixtures::code_listing().unwrap();
    std::fs::write(vault.join("papers/code/paper.pdf"), &f.pdf).unwrap();
    let mut h = Headless::open(&vault, 60, 30).unwrap();
    h.settle();
    select(&mut h, "papers/code/paper.pdf");
    h.keys("enter");
    h.settle();
    let screen = h.render();
    let line = screen
        .lines()
        .find(|l| l.contains("println!"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(line.contains('›'), "{screen}");
    assert!(
        !screen
            .lines()
            .any(|l| l.contains("total);") && !l.contains("println!")),
        "the long line wrapped:\n{screen}"
    );
    h.keys("z l z l");
    let screen = h.render();
    let line = screen.lines().find(|l| l.contains("total);"));
    assert!(line.is_some(), "scrolled across:\n{screen}");
    assert!(h.app.status().contains("scrolled"), "{}", h.app.status());
    h.keys("z h");
    assert!(h.render().lines().any(|l| l.contains("println!")));
}
