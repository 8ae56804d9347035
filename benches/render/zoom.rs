//! The image view's zoom and pan (`cargo bench --bench render -- zoom` runs only this):
//!
//! 1. A window against the whole page at the same scale (what rendering the page and cropping
//!    it would cost): fit width and 400% at a 160x46 pane, in half-block pixels (1x2 a cell)
//!    and in a 10x20 font's pixels (graphics), in process, on the first pages of the corpus.
//! 2. Key to image on screen in the app (headless at 160x48, the real runner, render child
//!    and page cache): zoom and pan steps on a corpus paper, uncached (a fresh window each
//!    step) and cached (the same steps again), p50/p99.
//! 3. `I` on a search hit found in the text view to the image with the hit highlighted on
//!    screen: each hit's page uncached the first time, cached the second (`I` back and again).

use std::path::Path;
use std::time::{Duration, Instant};

use agentero::tui::headless::Headless;
use agentero::vault::render::{self, Region};

fn p(mut v: Vec<Duration>, q: f64) -> f64 {
    v.sort();
    super::common::pct(&v, q).as_secs_f64()
}

pub fn run(corpus: &Path, files: &[std::path::PathBuf]) {
    windows(files);
    keys(corpus);
    highlighted(corpus);
}

fn windows(files: &[std::path::PathBuf]) {
    println!("## A window of the page against the whole page at the same scale\n");
    let cases: [(&str, u32, u32, f64); 4] = [
        ("fit width, half-blocks", 1, 2, 1.0),
        ("fit width, graphics", 10, 20, 1.0),
        ("400%, half-blocks", 1, 2, 4.0),
        ("400%, graphics", 10, 20, 4.0),
    ];
    let (cols, rows) = (160u32, 46u32);
    for (name, cw, ch, zoom) in cases {
        let (mut win, mut whole) = (Vec::new(), Vec::new());
        for f in files.iter().take(12) {
            let bytes = std::fs::read(f).unwrap();
            let px = (cols * cw, rows * ch);
            let page_w = f64::from(px.0) * zoom;
            // A Letter-shaped page; the window a third of the way down, centred across.
            let page_h = page_w * 792.0 / 612.0;
            if page_w * page_h > 60e6 {
                // Whole pages past the pixel bound are refused: what the window avoids.
                continue;
            }
            let fw = (10_000.0 / zoom) as u16;
            let fh = (10_000.0 * f64::from(px.1) / page_h).min(10_000.0) as u16;
            let (l, t) = ((10_000 - fw) / 2, 3_000u16.min(10_000 - fh));
            let window = Region {
                frac: [l, t, l + fw, t + fh],
                px,
            };
            let page = Region::whole((page_w as u32, page_h as u32));
            let t0 = Instant::now();
            if render::render_region(&bytes, 1, window).is_err() {
                continue;
            }
            win.push(t0.elapsed());
            let t0 = Instant::now();
            if let Ok(img) = render::render_region(&bytes, 1, page) {
                std::hint::black_box(img);
                whole.push(t0.elapsed());
            }
        }
        if win.is_empty() || whole.is_empty() {
            println!("{name}: no page rendered");
            continue;
        }
        super::common::report(&format!("{name}: window"), win.clone(), None);
        super::common::report(&format!("{name}: whole page"), whole.clone(), None);
        println!(
            "{name}: window/whole page p50 {:.2}x, p99 {:.2}x\n",
            p(win.clone(), 0.5) / p(whole.clone(), 0.5),
            p(win, 0.99) / p(whole, 0.99)
        );
    }
}

/// Presses `key` and waits until the image for what is on screen has arrived and is drawn.
fn press(h: &mut Headless, key: &str) -> Duration {
    let t = Instant::now();
    h.keys(key);
    let a = h.app.areas().paper_text;
    let ok = h.wait_until(Duration::from_secs(20), |app| {
        matches!(
            app.paper_pane().shot((a.width, a.height)),
            Some(agentero::tui::paper::image::ShotState::Ready(_))
        )
    });
    assert!(
        ok,
        "no image after {key}: {:?} (status: {})",
        h.app
            .paper_pane()
            .shot((a.width, a.height))
            .map(|s| match s {
                agentero::tui::paper::image::ShotState::Failed(why) => why.clone(),
                agentero::tui::paper::image::ShotState::Rendering => "rendering".into(),
                agentero::tui::paper::image::ShotState::Ready(_) => "ready".into(),
            }),
        h.app.status()
    );
    h.render();
    t.elapsed()
}

fn keys(corpus: &Path) {
    println!("## Key to image on screen (headless 160x48, half-blocks)\n");
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    super::common::copy_tree(
        &corpus.join("papers/the-name-of-the-title-is-hope"),
        &vault.join("papers/hope"),
    );
    let mut h = Headless::open(&vault, 160, 48).unwrap();
    h.settle();
    // The last row: the paper (the first is its folder, `papers/`).
    h.keys("space f G enter");
    h.settle();
    press(&mut h, "I");
    press(&mut h, "Z");
    press(&mut h, "w");
    let steps = ["+", "+", "j", "j", "l", "ctrl-d", "-", "k", "h", "ctrl-u"];
    let (mut cold, mut warm) = (Vec::new(), Vec::new());
    for page in 1..=4 {
        // The same path twice from the top of a page: the second time every window is in the
        // cache. Each page starts uncached.
        for pass in [&mut cold, &mut warm] {
            press(&mut h, "w");
            press(&mut h, &format!("{page} G"));
            for k in steps {
                pass.push(press(&mut h, k));
            }
        }
    }
    super::common::report("zoom/pan step, uncached", cold.clone(), None);
    super::common::report("zoom/pan step, cached", warm.clone(), None);
    println!(
        "cached/uncached: p50 {:.2}x, p99 {:.2}x",
        p(warm.clone(), 0.5) / p(cold.clone(), 0.5),
        p(warm, 0.99) / p(cold, 0.99)
    );
}

/// `I` pressed on the text view's current search hit, to the image of that page on screen
/// with the hit highlighted (the image's key carries the quote).
fn press_highlighted(h: &mut Headless) -> Duration {
    let t = Instant::now();
    h.keys("I");
    let a = h.app.areas().paper_text;
    let ok = h.wait_until(Duration::from_secs(20), |app| {
        matches!(
            app.paper_pane().shot((a.width, a.height)),
            Some(agentero::tui::paper::image::ShotState::Ready(_))
        )
    });
    assert!(
        ok,
        "no highlighted image after I (status: {})",
        h.app.status()
    );
    h.render();
    t.elapsed()
}

fn highlighted(corpus: &Path) {
    println!("## `I` on a search hit: key to the highlighted image on screen (headless 160x48)\n");
    let paper = corpus.join("papers/the-name-of-the-title-is-hope/paper.pdf");
    let bytes = std::fs::read(&paper).unwrap();
    let limits = agentero::vault::pdf::Limits {
        deadline: Instant::now() + Duration::from_secs(120),
    };
    let doc = agentero::vault::pdf::extract(&bytes, limits).unwrap();
    // A phrase from the middle of each page: four words of its middle line.
    let phrases: Vec<String> = doc
        .pages
        .iter()
        .filter_map(|p| {
            let lines: Vec<&str> = p
                .text
                .lines()
                .filter(|l| l.split_whitespace().count() >= 6)
                .collect();
            let line = lines.get(lines.len() / 2)?;
            let words: Vec<&str> = line.split_whitespace().collect();
            Some(words[1..5].join(" "))
        })
        .take(8)
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    super::common::copy_tree(paper.parent().unwrap(), &vault.join("papers/hope"));
    let mut h = Headless::open(&vault, 160, 48).unwrap();
    h.settle();
    // The last row: the paper (the first is its folder, `papers/`).
    h.keys("space f G enter");
    h.settle();
    let (mut cold, mut warm) = (Vec::new(), Vec::new());
    let mut seen = std::collections::HashSet::new();
    for phrase in &phrases {
        h.keys("g g /");
        h.type_text(phrase);
        h.keys("enter");
        let page = h.app.paper_pane().doc().map_or(0, |d| d.page());
        if !seen.insert(page) {
            continue;
        }
        cold.push(press_highlighted(&mut h));
        h.keys("I");
        warm.push(press_highlighted(&mut h));
        h.keys("I");
    }
    assert!(!cold.is_empty(), "no phrase was found: {phrases:?}");
    super::common::report("I to the highlighted image, uncached", cold.clone(), None);
    super::common::report("I to the highlighted image, cached", warm.clone(), None);
    println!(
        "cached/uncached: p50 {:.2}x, p99 {:.2}x ({} pages)",
        p(warm.clone(), 0.5) / p(cold.clone(), 0.5),
        p(warm, 0.99) / p(cold.clone(), 0.99),
        cold.len()
    );
}
