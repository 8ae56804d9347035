//! TUI benchmarks (release): frame render time at 200x60 with a 500-message thread and a
//! dense page; start to first frame and to a listed vault on 1,000 papers with an existing
//! index; keystroke-to-frame while an answer streams; RSS with that vault open; idle wake-ups
//! of the real app loop with nothing happening.
//! Run: `cargo bench --bench tui` (AGENTERO_BENCH_PAPERS overrides the 1,000).

use std::time::{Duration, Instant};

use agentero::tui::app::{AgentState, Effect, Msg, Pane};
use agentero::tui::headless::Headless;
use agentero::tui::keymap::Key;
use agentero::tui::thread::ChatEvent;

fn rss_mb() -> f64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    s.lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let tmp = tempfile::tempdir().unwrap();
    let demo = tmp.path().join("demo");
    agentero::vault::demo::write_demo_vault(&demo).unwrap();

    // 1. Frame render at 200x60: a 500-message thread and a dense page.
    let mut h = Headless::open(&demo, 200, 60).unwrap();
    h.settle();
    h.keys("space f f");
    h.type_text("Reading Machines");
    h.keys("enter enter");
    h.settle();
    // A question sent to a ready agent through the keys; its effects are not run (the
    // messages below stand in for the agent).
    let _ = h.app.update(Msg::Agent(AgentState::Ready {
        name: "builtin".into(),
        remote: false,
    }));
    let press =
        |h: &mut Headless, k: &str| h.app.update(Msg::Key(Key::parse(k).unwrap().to_event()));
    press(&mut h, "i");
    for c in "Dense or sparse?".chars() {
        let _ = h.app.update(Msg::Key(Key::plain(c).to_event()));
    }
    let turn = press(&mut h, "enter")
        .into_iter()
        .find_map(|e| match e {
            Effect::StartTurn { turn, .. } => Some(turn),
            _ => None,
        })
        .expect("the question starts a turn");
    press(&mut h, "esc");
    for i in 0..500 {
        let text = format!(
            "## Answer {i}\n\nDense retrieval **beats** sparse on *recall* in this setting, with `code` and a list:\n\n- one point that is fairly long and has to wrap at the pane edge\n- another\n"
        );
        h.send(Msg::Chat {
            turn,
            event: ChatEvent::MessageChunk(text),
        });
        h.send(Msg::Chat {
            turn,
            event: ChatEvent::ToolCall {
                id: format!("t{i}"),
                title: "context_search".into(),
                status: agentero::tui::thread::ToolStatus::Completed,
            },
        });
    }
    press(&mut h, "space");
    press(&mut h, "p");
    assert_eq!(h.app.focus(), Pane::Paper);
    h.render();
    let mut times = Vec::new();
    for _ in 0..200 {
        // Invalidate nothing: a steady frame is what a keystroke costs after the first.
        let t = Instant::now();
        h.render();
        times.push(t.elapsed());
    }
    println!(
        "frame render 200x60, 500-message thread + dense page: median {:?}",
        median(times)
    );

    // 2. Keystroke-to-frame while an answer streams: a chunk arrives, a key is pressed, a frame drawn.
    let mut times = Vec::new();
    for i in 0..200 {
        h.send(Msg::Chat {
            turn,
            event: ChatEvent::MessageChunk(format!(" streamed words {i}")),
        });
        let t = Instant::now();
        h.send(Msg::Key(
            Key::plain(if i % 2 == 0 { 'j' } else { 'k' }).to_event(),
        ));
        h.render();
        times.push(t.elapsed());
    }
    println!(
        "keystroke-to-frame while streaming: median {:?}",
        median(times)
    );
    drop(h);

    // 3. A 1,000-paper vault with an existing index.
    let n: usize = std::env::var("AGENTERO_BENCH_PAPERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let big = tmp.path().join("big");
    let pdfs: Vec<std::path::PathBuf> = walk(&demo)
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
        .collect();
    for i in 0..n {
        let src = &pdfs[i % pdfs.len()];
        let dir = big.join("papers").join(format!("p{i:04}"));
        std::fs::create_dir_all(&dir).unwrap();
        let mut bytes = std::fs::read(src).unwrap();
        bytes.extend_from_slice(format!("\n% copy {i}\n").as_bytes());
        std::fs::write(dir.join("paper.pdf"), bytes).unwrap();
    }
    let t = Instant::now();
    let vault = agentero::vault::Vault::open(&big).unwrap();
    agentero::vault::indexer::index_vault(&vault, &Default::default(), &mut |_| {}).unwrap();
    println!("(setup: indexed {n} papers in {:?})", t.elapsed());

    let t = Instant::now();
    let mut h = Headless::open(&big, 200, 60).unwrap();
    h.render();
    let first = t.elapsed();
    h.settle();
    h.render();
    let listed = t.elapsed();
    println!(
        "start to first frame, {n} papers, existing index: {first:?} (vault listed with titles: {listed:?}, entries {})",
        h.app.browser().entries().len()
    );
    println!("RSS with the {n}-paper vault open: {:.1} MB", rss_mb());

    // 3b. Start with restored reading state: a paper open at page 2 when the app stopped.
    h.keys("space f f");
    h.type_text("p0500");
    h.keys("enter g g");
    let at = h
        .app
        .browser()
        .visible()
        .position(|e| e.path == "papers/p0500/paper.pdf")
        .expect("the paper listed");
    for _ in 0..at {
        h.keys("j");
    }
    h.keys("enter 2 G q");
    assert!(h.app.quitting());
    drop(h);
    let t = Instant::now();
    let mut h = Headless::open(&big, 200, 60).unwrap();
    h.render();
    let first = t.elapsed();
    let restored = h.wait_until(Duration::from_secs(30), |a| {
        a.paper()
            .is_some_and(|p| p.page() == 2 && p.text(2).is_some())
    });
    h.render();
    let reopened = t.elapsed();
    assert!(restored, "the paper was not restored");
    println!(
        "start with restored state, {n} papers: first frame {first:?} (goal < 150 ms), the paper open at its page {reopened:?}"
    );

    // 3c. Key to image on screen (I): a page not rendered before, then the same page again
    // from the page cache (I twice: off, on).
    let cells = |h: &Headless| {
        let a = h.app.areas().paper_text;
        (a.width, a.height)
    };
    let shown = |h: &mut Headless| {
        let c = cells(h);
        let t = Instant::now();
        h.send(Msg::Key(Key::parse("I").unwrap().to_event()));
        let ok = h.wait_until(Duration::from_secs(30), |a| {
            matches!(
                a.paper_pane().shot(c),
                Some(agentero::tui::paper::image::ShotState::Ready(_))
            )
        });
        h.render();
        assert!(ok, "no image");
        t.elapsed()
    };
    let (mut cold, mut warm) = (Vec::new(), Vec::new());
    for page in 1..=2 {
        h.keys(&format!("{page} G"));
        cold.push(shown(&mut h));
        h.keys("I");
        warm.push(shown(&mut h));
        h.keys("I");
    }
    println!(
        "key to image on screen (half-blocks, 200x60): uncached {:?}, cached {:?} (median of {})",
        median(cold.clone()),
        median(warm.clone()),
        cold.len()
    );
    drop(h);

    // 4. Idle: the real app loop, on a TestBackend, once start-up work is done.
    idle(&demo);
}

/// Runs `run_loop` (the loop the terminal app runs) with no input for 2 s after the start-up
/// tasks (scan, index check, threads) have finished, and counts its wake-ups and draws from
/// the runtime's counters. The goal is zero: the loop sleeps in `recv` and the terminal's
/// input thread sleeps in `read()`, so nothing should wake it.
fn idle(vault: &std::path::Path) {
    use agentero::tui::runtime::Runner;
    use agentero::tui::runtime::terminal::{LOOP_DRAWS, LOOP_WAKEUPS, run_loop};
    use std::sync::atomic::Ordering;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let vault = agentero::vault::Vault::open(vault).unwrap();
    let app = agentero::tui::app::AppState::new(
        "demo".into(),
        agentero::tui::keymap::Keymap::load("default", None),
        AgentState::Unavailable("idle benchmark".into()),
    );
    let theme =
        agentero::tui::theme::Theme::try_load("default", &agentero::tui::theme::shipped, false)
            .unwrap();
    let window = Duration::from_secs(2);
    let (wakeups, draws, startup) = rt.block_on(async {
        let (runner, rx) = Runner::new(vault, &agentero::tui::settings::Settings::from_env());
        let tx = runner.sender();
        let mut terminal =
            ratatui::Terminal::new(ratatui::backend::TestBackend::new(120, 40)).unwrap();
        // A TestBackend cannot suspend; ctrl-z is not pressed here.
        let mut no_suspend =
            |_: &mut ratatui::Terminal<ratatui::backend::TestBackend>,
             _: agentero::tui::runtime::terminal::Handover| Ok(());
        let app_loop = run_loop(app, &theme, &runner, rx, &mut terminal, &mut no_suspend);
        let measure = async {
            let t = Instant::now();
            // Start-up: its tasks report, the loop draws the frame it owes, then silence.
            tokio::time::sleep(Duration::from_millis(100)).await;
            while runner.busy() > 0 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            let startup = (
                LOOP_WAKEUPS.load(Ordering::Relaxed),
                LOOP_DRAWS.load(Ordering::Relaxed),
                t.elapsed(),
            );
            let (w0, d0) = (
                LOOP_WAKEUPS.load(Ordering::Relaxed),
                LOOP_DRAWS.load(Ordering::Relaxed),
            );
            tokio::time::sleep(window).await;
            let (w1, d1) = (
                LOOP_WAKEUPS.load(Ordering::Relaxed),
                LOOP_DRAWS.load(Ordering::Relaxed),
            );
            let _ = tx.send(Msg::Key(Key::plain('q').to_event()));
            (w1 - w0, d1 - d0, startup)
        };
        let (r, m) = tokio::join!(app_loop, measure);
        r.unwrap();
        m
    });
    println!(
        "idle {window:?} with nothing happening (real app loop, TestBackend): {wakeups} loop wake-ups, {draws} draws (start-up before it: {} wake-ups, {} draws in {:?})",
        startup.0, startup.1, startup.2
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        {
            continue;
        }
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}
