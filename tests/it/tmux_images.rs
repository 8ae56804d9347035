//! The image view in tmux at 160x48 with half-blocks (`AGENTERO_IMAGES=halfblocks`): `Z`
//! maximises, `w` fits the width across the screen, `j` pans, `+` magnifies, `J` keeps the
//! zoom on the next page, a search hit opened in the image view is highlighted on screen; a
//! zoomed caption of a real paper reads as the page does (the cells' colours are the pixels
//! of a render of the same window); and kitty graphics reach the terminal outside tmux when
//! `allow-passthrough` is on (half-blocks and no query otherwise).

use crate::common;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use common::tmux::{Session, tmux};

const COLS: u16 = 160;
const ROWS: u16 = 48;

/// The real binary on `vault` in a detached 160x48 session with half-blocks and 24-bit colour.
fn start(name: &str, vault: &Path, home: &Path) -> (Session, String) {
    let h = home.display();
    let status = Command::new("tmux")
        .args([
            "new-session",
            "-d",
            "-x",
            &COLS.to_string(),
            "-y",
            &ROWS.to_string(),
        ])
        .args([
            "-s",
            name,
            "env",
            "-i",
            "PATH=/usr/bin:/bin",
            "TERM=xterm-256color",
        ])
        .args(["COLORTERM=truecolor", "AGENTERO_IMAGES=halfblocks"])
        .arg(format!("HOME={h}"))
        .arg(format!("XDG_CONFIG_HOME={h}/.config"))
        .arg(format!("XDG_DATA_HOME={h}/.local/share"))
        .arg(env!("CARGO_BIN_EXE_agentero"))
        .arg(vault)
        .status()
        .expect("tmux runs");
    assert!(status.success());
    (Session(name.to_string()), format!("{name}:0"))
}

/// The screen once `done` holds for it, or after `secs` (the caller asserts).
fn wait(target: &str, secs: u64, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let screen = tmux(&["capture-pane", "-p", "-t", target]);
        if done(&screen) || Instant::now() > deadline {
            return screen;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn keys(target: &str, keys: &[&str]) {
    for k in keys {
        tmux(&["send-keys", "-t", target, k]);
        std::thread::sleep(Duration::from_millis(60));
    }
}

/// Waits for the index, filters the browser by `title` and opens the paper.
fn open_by_title(target: &str, title: &str, shown: &str) -> String {
    let screen = wait(target, 60, |s| s.contains("indexed:"));
    assert!(screen.contains("indexed:"), "{screen}");
    tmux(&["send-keys", "-t", target, "f"]);
    tmux(&["send-keys", "-t", target, "-l", title]);
    tmux(&["send-keys", "-t", target, "Enter"]);
    std::thread::sleep(Duration::from_millis(300));
    tmux(&["send-keys", "-t", target, "Enter"]);
    let screen = wait(target, 20, |s| s.contains(shown));
    assert!(screen.contains(shown), "{screen}");
    screen
}

/// One cell of the captured screen: its character and colours (24-bit, `None` = default).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Cell {
    ch: char,
    fg: Option<[u8; 3]>,
    bg: Option<[u8; 3]>,
}

/// The pane's cells from `capture-pane -e` (SGR colours parsed, one cell per character).
fn cells(target: &str) -> Vec<Vec<Cell>> {
    let raw = tmux(&["capture-pane", "-p", "-e", "-t", target]);
    raw.lines().map(parse_line).collect()
}

fn parse_line(line: &str) -> Vec<Cell> {
    let mut out = Vec::new();
    let (mut fg, mut bg) = (None, None);
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if chars[i] == '\x1b' && chars.get(i + 1) == Some(&'[') {
            let end = (i + 2..chars.len())
                .find(|&j| chars[j].is_ascii_alphabetic())
                .unwrap_or(chars.len() - 1);
            if chars[end] == 'm' {
                let params: String = chars[i + 2..end].iter().collect();
                let p: Vec<u32> = params.split(';').map(|n| n.parse().unwrap_or(0)).collect();
                let mut k = 0;
                while k < p.len() {
                    match p[k] {
                        0 => (fg, bg) = (None, None),
                        38 | 48 if p.get(k + 1) == Some(&2) && k + 4 < p.len() => {
                            let c = Some([p[k + 2] as u8, p[k + 3] as u8, p[k + 4] as u8]);
                            if p[k] == 38 {
                                fg = c
                            } else {
                                bg = c
                            }
                            k += 4;
                        }
                        38 | 48 if p.get(k + 1) == Some(&5) => k += 2,
                        39 => fg = None,
                        49 => bg = None,
                        _ => {}
                    }
                    k += 1;
                }
            }
            i = end + 1;
            continue;
        }
        out.push(Cell {
            ch: chars[i],
            fg,
            bg,
        });
        i += 1;
    }
    out
}

/// The two pixels of a half-block cell (upper, lower), when it is one.
fn pixels(c: &Cell) -> Option<([u8; 3], [u8; 3])> {
    match c.ch {
        '▀' => Some((c.fg?, c.bg?)),
        '▄' => Some((c.bg?, c.fg?)),
        ' ' => Some((c.bg?, c.bg?)),
        _ => None,
    }
}

/// The image on screen: the widest run of half-block cells (rows `top..`), as an RGB image
/// two pixels a cell high, and its top-left cell.
fn screen_image(grid: &[Vec<Cell>], top: usize) -> (image::RgbImage, (usize, usize)) {
    let image_row = |r: &Vec<Cell>| r.iter().any(|c| matches!(c.ch, '▀' | '▄'));
    let rows: Vec<usize> = (top..grid.len()).filter(|&r| image_row(&grid[r])).collect();
    let (r0, r1) = (rows[0], *rows.last().unwrap());
    let coloured = |c: &Cell| pixels(c).is_some();
    let c0 = (r0..=r1)
        .filter_map(|r| grid[r].iter().position(|c| matches!(c.ch, '▀' | '▄')))
        .min()
        .unwrap();
    let c1 = (r0..=r1)
        .filter_map(|r| grid[r].iter().rposition(|c| matches!(c.ch, '▀' | '▄')))
        .max()
        .unwrap();
    let (w, h) = ((c1 - c0 + 1) as u32, ((r1 - r0 + 1) * 2) as u32);
    let mut img = image::RgbImage::from_pixel(w, h, image::Rgb([255, 255, 255]));
    for (r, row) in grid.iter().enumerate().take(r1 + 1).skip(r0) {
        for c in c0..=c1 {
            if let Some(cell) = row.get(c).filter(|c| coloured(c))
                && let Some((up, low)) = pixels(cell)
            {
                let (x, y) = ((c - c0) as u32, ((r - r0) * 2) as u32);
                img.put_pixel(x, y, image::Rgb(up));
                img.put_pixel(x, y + 1, image::Rgb(low));
            }
        }
    }
    (img, (c0, r0))
}

/// The widest row of half-block cells.
fn image_width(grid: &[Vec<Cell>]) -> usize {
    // The page's cells: half-blocks, or blanks on its white paper.
    let page =
        |c: &Cell| matches!(c.ch, '▀' | '▄') || (c.ch == ' ' && c.bg == Some([255, 255, 255]));
    grid.iter()
        .map(|r| {
            let first = r.iter().position(page);
            let last = r.iter().rposition(page);
            match (first, last) {
                (Some(a), Some(b)) if b >= a => b - a + 1,
                _ => 0,
            }
        })
        .max()
        .unwrap_or(0)
}

#[test]
fn maximise_fit_width_pan_zoom_and_a_search_hit_in_tmux() {
    if !common::tmux::ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let name = format!("agentero-zoom-{}", std::process::id());
    let (_session, target) = start(&name, &vault, &home);
    open_by_title(&target, "Dense or Sparse", "Lena Fischbach");
    keys(&target, &["I"]);
    let screen = wait(&target, 20, |s| s.contains('▀') && s.contains("fit page"));
    assert!(screen.contains("· image · fit page"), "{screen}");
    let narrow = image_width(&cells(&target));
    // Maximised: the browser and the chat are gone, the status line stays.
    keys(&target, &["Z"]);
    let screen = wait(&target, 20, |s| !s.contains("Vault"));
    assert!(!screen.contains("Vault"), "{screen}");
    let last = screen.lines().last().unwrap_or_default();
    assert!(last.contains("maximised"), "no status line:\n{screen}");
    // Fit width spans the screen (the pane's borders aside).
    keys(&target, &["w"]);
    let screen = wait(&target, 20, |s| s.contains("fit width · 0%"));
    assert!(screen.contains("fit width · 0%"), "{screen}");
    let wide = wait_width(&target, |w| w >= usize::from(COLS) - 4);
    assert!(
        wide >= usize::from(COLS) - 4 && wide > narrow * 2,
        "{narrow} → {wide}"
    );
    // Pan: the header says how far down, the picture moved up.
    let before = cells(&target);
    keys(&target, &["j", "j", "j"]);
    let screen = wait(&target, 20, |s| {
        s.contains("fit width · ") && !s.contains("fit width · 0%")
    });
    assert!(!screen.contains("fit width · 0%"), "{screen}");
    let after = wait_cells(&target, |g| g[5..40] != before[5..40]);
    assert_ne!(after[5..40], before[5..40], "the image did not move");
    // Zoom: 125%, wider than the pane (so it pans across), and J keeps it on page 2's top.
    keys(&target, &["+"]);
    let screen = wait(&target, 20, |s| s.contains("zoom 125% · "));
    assert!(screen.contains("% across"), "{screen}");
    keys(&target, &["J"]);
    let screen = wait(&target, 20, |s| s.contains("p. 2 / 2"));
    assert!(screen.contains("zoom 125% · 0% · "), "{screen}");
    keys(&target, &["K", "f"]);
    let screen = wait(&target, 20, |s| {
        s.contains("p. 1 / 2") && s.contains("fit page")
    });
    assert!(screen.contains("fit page"), "{screen}");
    // A search hit in the image view: fit width, scrolled to it, highlighted on the page.
    keys(&target, &["/"]);
    tmux(&["send-keys", "-t", &target, "-l", "sparse retrieval"]);
    keys(&target, &["Enter"]);
    let screen = wait(&target, 20, |s| s.contains("fit width"));
    assert!(screen.contains("fit width"), "{screen}");
    let marked = wait_cells(&target, |g| marker_cells(g) > 10);
    assert!(marker_cells(&marked) > 10, "no highlighted cells");
    // A hit found in the text view, then I: the image lands on it too, highlighted.
    keys(&target, &["f", "I"]);
    wait(&target, 20, |s| !s.contains('▀'));
    keys(&target, &["/"]);
    tmux(&["send-keys", "-t", &target, "-l", "hybrid"]);
    keys(&target, &["Enter"]);
    wait(&target, 20, |s| s.contains("match"));
    keys(&target, &["I"]);
    let screen = wait(&target, 20, |s| s.contains('▀') && s.contains("fit width"));
    assert!(
        screen.contains("fit width"),
        "I did not land on the hit:\n{screen}"
    );
    let marked = wait_cells(&target, |g| marker_cells(g) > 10);
    assert!(
        marker_cells(&marked) > 10,
        "the hit is not highlighted after I"
    );
    // ctrl-r: dark pages, the marker still yellow (dark); again: as printed.
    let light = paper_lightness(&marked);
    keys(&target, &["C-r"]);
    let dark = wait_cells(&target, |g| paper_lightness(g) < 0.3);
    assert!(
        light > 0.7 && paper_lightness(&dark) < 0.3,
        "{light} → {}",
        paper_lightness(&dark)
    );
    let yellow = |c: [u8; 3]| c[0] > 140 && c[1] > 110 && c[2] < 40 && c[0] < 200;
    assert!(
        dark.iter()
            .flatten()
            .any(|c| pixels(c).is_some_and(|(u, l)| yellow(u) || yellow(l))),
        "no dark yellow marker"
    );
    keys(&target, &["C-r"]);
    let back = wait_cells(&target, |g| paper_lightness(g) > 0.7);
    assert!(paper_lightness(&back) > 0.7);
    keys(&target, &["q"]);
}

/// The mean lightness (0–1) of the half-block pixels on screen: most of a page is paper.
fn paper_lightness(grid: &[Vec<Cell>]) -> f64 {
    let mut sum = 0.0;
    let mut n = 0.0;
    for (u, l) in grid.iter().flatten().filter_map(pixels) {
        for c in [u, l] {
            sum += (f64::from(c[0]) + f64::from(c[1]) + f64::from(c[2])) / (3.0 * 255.0);
            n += 1.0;
        }
    }
    if n == 0.0 { 0.5 } else { sum / n }
}

/// Cells showing the highlight's marker tint (white paper under the marker: 255, 226, 80).
fn marker_cells(grid: &[Vec<Cell>]) -> usize {
    let near = |c: [u8; 3]| c[0] > 235 && (200..=240).contains(&c[1]) && c[2] < 110;
    grid.iter()
        .flatten()
        .filter(|c| pixels(c).is_some_and(|(u, l)| near(u) || near(l)))
        .count()
}

fn wait_cells(target: &str, done: impl Fn(&[Vec<Cell>]) -> bool) -> Vec<Vec<Cell>> {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let g = cells(target);
        if (g.len() >= 45 && done(&g)) || Instant::now() > deadline {
            return g;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn wait_width(target: &str, done: impl Fn(usize) -> bool) -> usize {
    image_width(&wait_cells(target, |g| done(image_width(g))))
}

/// `tmux -L SOCKET ARGS` (a tmux server of the test's own).
fn tx(sock: &str, args: &[&str]) -> String {
    let out = Command::new("tmux")
        .args(["-L", sock])
        .args(args)
        .output()
        .expect("tmux runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn tx_wait(sock: &str, secs: u64, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let screen = tx(sock, &["capture-pane", "-p", "-t", "main:0"]);
        if done(&screen) || Instant::now() > deadline {
            return screen;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The fake terminal and its tmux server, ended when dropped.
struct Outer {
    child: std::process::Child,
    sock: String,
}

impl Drop for Outer {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.sock, "kill-server"])
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// tmux attached to a pseudo-terminal that answers as kitty does (`tests/peers/fake_kitty.py`),
/// agentero on the demo vault in it, `allow-passthrough` set to `passthrough`: what reached
/// the outer terminal once a page is shown as an image, and the pane's screen.
fn through_tmux(passthrough: &str) -> Option<(Vec<u8>, String)> {
    let python = std::env::var("AGENTERO_PYTHON").unwrap_or_else(|_| "python3".into());
    if Command::new(&python).arg("-V").output().is_err() {
        common::skip::missing(
            common::skip::Peer::Python,
            &format!("{python} plays the outer terminal"),
        );
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let conf = dir.path().join("tmux.conf");
    std::fs::write(
        &conf,
        format!(
            "set -g allow-passthrough {passthrough}\nset -g status off\nset -g default-terminal screen-256color\n"
        ),
    )
    .unwrap();
    let log = dir.path().join("outer.log");
    let sock = format!("agentero-pt-{}-{passthrough}", std::process::id());
    let h = home.display();
    let app = format!(
        "exec env -u AGENTERO_IMAGES HOME={h} XDG_CONFIG_HOME={h}/.config XDG_DATA_HOME={h}/.local/share COLORTERM=truecolor {} {}",
        env!("CARGO_BIN_EXE_agentero"),
        vault.display()
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/fake_kitty.py");
    let child = Command::new(&python)
        .arg(&script)
        .arg(&log)
        .args([COLS.to_string(), ROWS.to_string(), "90".into()])
        .args(["tmux", "-L", &sock, "-f"])
        .arg(&conf)
        .args(["new-session", "-s", "main", "sh", "-c", &app])
        .stdin(std::process::Stdio::null())
        .spawn()
        .expect("python runs");
    let _outer = Outer {
        child,
        sock: sock.clone(),
    };
    let screen = tx_wait(&sock, 60, |s| s.contains("indexed:"));
    assert!(screen.contains("indexed:"), "{screen}");
    tx(&sock, &["send-keys", "-t", "main:0", "f"]);
    tx(
        &sock,
        &["send-keys", "-t", "main:0", "-l", "Dense or Sparse"],
    );
    tx(&sock, &["send-keys", "-t", "main:0", "Enter"]);
    std::thread::sleep(Duration::from_millis(300));
    tx(&sock, &["send-keys", "-t", "main:0", "Enter"]);
    let screen = tx_wait(&sock, 20, |s| s.contains("Lena Fischbach"));
    assert!(screen.contains("Lena Fischbach"), "{screen}");
    tx(&sock, &["send-keys", "-t", "main:0", "I"]);
    // Drawn: kitty's placeholder cells, or half-blocks.
    let screen = tx_wait(&sock, 30, |s| s.contains('\u{10EEEE}') || s.contains('▀'));
    assert!(screen.contains(" · image · fit page"), "{screen}");
    // What the terminal got settles (the image is written with the next frame).
    let mut last = 0;
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        std::thread::sleep(Duration::from_millis(500));
        let n = std::fs::metadata(&log).map_or(0, |m| m.len());
        if (n == last && n > 0) || Instant::now() > deadline {
            break;
        }
        last = n;
    }
    let screen = tx(&sock, &["capture-pane", "-p", "-t", "main:0"]);
    tx(&sock, &["send-keys", "-t", "main:0", "q"]);
    std::thread::sleep(Duration::from_millis(300));
    Some((std::fs::read(&log).unwrap(), screen))
}

fn find(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// With `allow-passthrough on`, the graphics query reaches the outer terminal (tmux unwraps
/// it), the terminal's kitty answer comes back, and the page is sent as kitty graphics (a
/// transmission with a virtual placement, drawn with kitty's placeholder characters); with it
/// off, nothing is asked, no graphics go out, the page is half-blocks and no answer leaks
/// into the screen.
#[test]
fn kitty_graphics_reach_the_terminal_through_tmux_only_with_passthrough() {
    if !common::tmux::ready() {
        return;
    }
    let Some((on, screen)) = through_tmux("on") else {
        return;
    };
    assert!(
        find(&on, b"\x1b_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\x1b\\"),
        "the kitty query did not reach the terminal"
    );
    assert!(!find(&on, b"\x1bPtmux;"), "tmux passed the wrapper on");
    assert!(
        find(&on, b"\x1b_Gq=2,"),
        "no kitty graphics reached the terminal"
    );
    assert!(
        find(&on, b"a=T") && find(&on, b"U=1"),
        "not a virtual placement"
    );
    assert!(
        find(&on, "\u{10EEEE}".as_bytes()),
        "no placeholder cells drawn"
    );
    assert!(
        !screen.contains('▀'),
        "half-blocks although kitty answered:\n{screen}"
    );

    let Some((off, screen)) = through_tmux("off") else {
        return;
    };
    assert!(
        !find(&off, b"\x1b_G"),
        "graphics or the query went out without passthrough"
    );
    assert!(screen.contains('▀'), "no half-blocks:\n{screen}");
    assert!(
        !screen.contains("Gi=") && !screen.contains(";OK"),
        "{screen}"
    );
}

/// The header's "… · 42% · 30% across": how far down and across the window is (percent).
fn place(screen: &str) -> (f64, f64) {
    let header = screen
        .lines()
        .find(|l| l.contains("zoom "))
        .unwrap_or_else(|| panic!("no zoom in the header:\n{screen}"));
    let after = header.split("zoom ").nth(1).unwrap();
    let nums: Vec<f64> = after
        .split(" · ")
        .skip(1)
        .filter_map(|p| p.trim().split('%').next()?.trim().parse().ok())
        .collect();
    (nums[0], nums.get(1).copied().unwrap_or(0.0))
}

/// Done when a figure caption can be read from a zoomed half-block view in tmux: page 4 of a
/// real paper (the acmart sample), maximised, fit width then zoomed six steps (381%), the
/// search for its caption landing on it. The cells' colours are the pixels of the same part
/// of the page rendered at that scale — found within a few pixels of where the header says
/// the window is, much closer than one text line off — and the caption's ink is there.
/// `AGENTERO_TEST_ARTIFACTS` gets the capture as a PNG (six times larger) to look at.
#[test]
fn a_zoomed_caption_in_half_blocks_is_the_page_itself() {
    if !common::tmux::ready() {
        return;
    }
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    let src = corpus.join("papers/the-name-of-the-title-is-hope");
    common::copy_tree(&src, &vault.join("papers/hope"));
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let name = format!("agentero-caption-{}", std::process::id());
    let (_session, target) = start(&name, &vault, &home);
    open_by_title(&target, "The Name of the Title", "p. 1 / 6");
    keys(&target, &["4", "G", "I", "Z", "w"]);
    let screen = wait(&target, 20, |s| {
        s.contains("p. 4 / 6") && s.contains("fit width")
    });
    assert!(screen.contains("fit width · 0%"), "{screen}");
    keys(&target, &["+", "+", "+", "+", "+", "+"]);
    let screen = wait(&target, 20, |s| s.contains("zoom 381%"));
    assert!(screen.contains("zoom 381%"), "{screen}");
    keys(&target, &["/"]);
    tmux(&[
        "send-keys",
        "-t",
        &target,
        "-l",
        "Franklin Model D roadster",
    ]);
    keys(&target, &["Enter"]);
    let grid = wait_cells(&target, |g| marker_cells(g) > 40);
    assert!(
        marker_cells(&grid) > 40,
        "the caption is not highlighted on screen"
    );
    // Settled: the same screen twice.
    std::thread::sleep(Duration::from_millis(800));
    let grid = cells(&target);
    let screen = tmux(&["capture-pane", "-p", "-t", &target]);
    let (shot, _) = screen_image(&grid, 2);
    if let Some(out) = std::env::var_os("AGENTERO_TEST_ARTIFACTS") {
        let (w, h) = shot.dimensions();
        let big =
            image::imageops::resize(&shot, w * 6, h * 6, image::imageops::FilterType::Nearest);
        big.save(Path::new(&out).join("zoomed-caption.png"))
            .unwrap();
    }
    // The same page rendered whole at the zoom's scale: page width = 381% of the text area.
    let pdf = std::fs::read(vault.join("papers/hope/paper.pdf")).unwrap();
    let (w, h) = shot.dimensions();
    let page_w = (f64::from(w) * 1.25f64.powi(6)).round() as u32;
    let page_h = (f64::from(page_w) * 792.0 / 612.0).round() as u32;
    let whole = agentero::vault::render::render_region(
        &pdf,
        4,
        agentero::vault::render::Region::whole((page_w, page_h)),
    )
    .unwrap()
    .image
    .image;
    let (down, across) = place(&screen);
    let guess = (
        (across / 100.0 * f64::from(page_w - w)).round() as i64,
        (down / 100.0 * f64::from(page_h - h)).round() as i64,
    );
    // Mean difference of the red channel (the marker's tint keeps it) at an offset.
    let diff = |dx: i64, dy: i64| -> f64 {
        let mut sum = 0.0;
        let mut n = 0.0;
        for y in 0..h {
            for x in 0..w {
                let (px, py) = (i64::from(x) + dx, i64::from(y) + dy);
                if px < 0 || py < 0 || px >= i64::from(page_w) || py >= i64::from(page_h) {
                    continue;
                }
                let a = shot.get_pixel(x, y)[0];
                let b = whole.get_pixel(px as u32, py as u32)[0];
                sum += f64::from(a.abs_diff(b));
                n += 1.0;
            }
        }
        if n == 0.0 { f64::MAX } else { sum / n }
    };
    let mut best = (f64::MAX, 0, 0);
    for dy in -10..=10 {
        for dx in -10..=10 {
            let d = diff(guess.0 + dx, guess.1 + dy);
            if d < best.0 {
                best = (d, guess.0 + dx, guess.1 + dy);
            }
        }
    }
    let ink = (0..h)
        .flat_map(|y| (0..w).map(move |x| (x, y)))
        .filter(|&(x, y)| shot.get_pixel(x, y)[0] < 110)
        .count();
    let line_off = diff(best.1, best.2 + 14);
    eprintln!(
        "screen {w}x{h} px, page {page_w}x{page_h}, best offset {:?} (guess {guess:?}) differs by {:.1}, a line lower by {line_off:.1}, {ink} ink pixels",
        (best.1, best.2),
        best.0
    );
    assert!(
        ink > 300,
        "no text on screen ({ink} dark pixels):\n{screen}"
    );
    assert!(
        best.0 < 16.0,
        "the cells are not the page's pixels ({:.1})",
        best.0
    );
    assert!(line_off > best.0 * 2.0, "{line_off:.1} vs {:.1}", best.0);
    keys(&target, &["q"]);
}

/// The page on screen with its white margins: the cells of the rows that are page (half-blocks,
/// or blanks on its white paper) from the first to the last, two pixels a cell high.
fn whole_page(grid: &[Vec<Cell>]) -> image::RgbImage {
    let page =
        |c: &Cell| matches!(c.ch, '▀' | '▄') || (c.ch == ' ' && c.bg == Some([255, 255, 255]));
    let rows: Vec<usize> = (0..grid.len())
        .filter(|&r| grid[r].iter().filter(|c| page(c)).count() >= 10)
        .collect();
    let (Some(&r0), Some(&r1)) = (rows.first(), rows.last()) else {
        return image::RgbImage::new(1, 1);
    };
    let c0 = rows
        .iter()
        .filter_map(|&r| grid[r].iter().position(page))
        .min()
        .unwrap();
    let c1 = rows
        .iter()
        .filter_map(|&r| grid[r].iter().rposition(page))
        .max()
        .unwrap();
    let (w, h) = ((c1 - c0 + 1) as u32, ((r1 - r0 + 1) * 2) as u32);
    let mut img = image::RgbImage::from_pixel(w, h, image::Rgb([255, 255, 255]));
    for (r, row) in grid.iter().enumerate().take(r1 + 1).skip(r0) {
        for c in c0..=c1 {
            if let Some((up, low)) = row.get(c).and_then(pixels) {
                let (x, y) = ((c - c0) as u32, ((r - r0) * 2) as u32);
                img.put_pixel(x, y, image::Rgb(up));
                img.put_pixel(x, y + 1, image::Rgb(low));
            }
        }
    }
    img
}

/// A Zotero library's annotations on the page image: a green highlight across the top of page
/// one tints the text under it in green, a blue sticky note is a blue square at the right
/// margin, and both sit where Zotero placed them on the page (the library is held open under
/// an exclusive lock, its annotations only in the -wal, as a running Zotero holds it).
#[test]
fn zotero_annotations_are_drawn_in_their_colours_on_the_page_image_in_tmux() {
    use crate::zotero::library::{create, put, schema_dir};
    if !common::tmux::ready() {
        return;
    }
    let Some(schema) = schema_dir() else { return };
    let dir = tempfile::tempdir().unwrap();
    let demo = crate::common::demo_vault();
    let pdf = std::fs::read(demo.path().join("papers/dense-vs-sparse/paper.pdf")).unwrap();
    let zdir = dir.path().join("Zotero");
    std::fs::create_dir_all(zdir.join("storage")).unwrap();
    let z = create(&zdir, &schema);
    let item = z.item("conferencePaper", "DENSE223");
    z.set(item, "title", "Dense or Sparse? Retrieving Passages");
    let att = z.attachment(Some(item), "ATTDENSE", 1, "storage:dense.pdf");
    put(&zdir.join("storage/ATTDENSE/dense.pdf"), &pdf);
    // Page one is 612 × 792 pt: the highlight spans x 72–540 near the top (y 700–730), the
    // note sits in the right margin lower down.
    let high = r#"{"pageIndex":0,"rects":[[72,700,540,730]]}"#;
    z.annotation(att, "ANNGREEN", 1, Some("a line"), None, "1", high);
    let note = r#"{"pageIndex":0,"rects":[[560,380,600,420]]}"#;
    z.annotation(att, "ANNBLUE2", 2, None, Some("see here"), "1", note);
    for (key, colour) in [("ANNGREEN", "#5fb236"), ("ANNBLUE2", "#2ea8e5")] {
        z.conn
            .execute(
                "UPDATE itemAnnotations SET color = ?1 WHERE itemID = (SELECT itemID FROM items WHERE key = ?2)",
                [colour, key],
            )
            .unwrap();
    }
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let name = format!("agentero-zannot-{}", std::process::id());
    let (_session, target) = start(&name, &zdir, &home);
    open_by_title(&target, "dense", "Lena Fischbach");
    keys(&target, &["Z", "I"]);
    let screen = wait(&target, 30, |s| {
        s.contains('▀') && s.contains("fit page") && !s.contains("Vault")
    });
    assert!(screen.contains("· image · fit page"), "{screen}");
    let green = |p: &image::Rgb<u8>| i32::from(p[1]) - i32::from(p[0]).max(i32::from(p[2])) > 25;
    let blue = |p: &image::Rgb<u8>| i32::from(p[2]) - i32::from(p[0]) > 120 && p[1] > 120;
    // The maximised pane's own image, once the screen holds still (the smaller image of the
    // pane before `Z` stays on screen while this one renders).
    let deadline = Instant::now() + Duration::from_secs(30);
    let grid = loop {
        let g = cells(&target);
        std::thread::sleep(Duration::from_millis(400));
        let img = whole_page(&g);
        let done = g == cells(&target) && img.pixels().any(green) && img.pixels().any(blue);
        if done || Instant::now() > deadline {
            break g;
        }
    };
    let img = whole_page(&grid);
    let (w, h) = (img.width() as f32, img.height() as f32);
    let spots = |is: &dyn Fn(&image::Rgb<u8>) -> bool| -> Vec<(f32, f32)> {
        img.enumerate_pixels()
            .filter(|(_, _, p)| is(p))
            .map(|(x, y, _)| (x as f32 / w, y as f32 / h))
            .collect()
    };
    let (g, b) = (spots(&green), spots(&blue));
    assert!(g.len() >= 20, "{} green pixels on a {w}x{h} page", g.len());
    assert!(!b.is_empty(), "no blue note on the page");
    // Where Zotero put them: y 730→700 pt is 7.8%–11.6% from the top, x 72→540 pt 12%–88%;
    // the note is x 91.5%–98%, y 47%–52% (one pixel of slack for the half-block grid).
    let (py, px) = (2.0 / h, 2.0 / w);
    assert!(
        g.iter()
            .all(|&(x, y)| (0.078 - py..=0.116 + py).contains(&y)
                && (0.117 - px..=0.883 + px).contains(&x)),
        "green outside the highlight: {g:?}"
    );
    assert!(
        b.iter()
            .all(|&(x, y)| (0.915 - px..=0.981 + px).contains(&x)
                && (0.47 - py..=0.52 + py).contains(&y)),
        "blue outside the note: {b:?}"
    );
    keys(&target, &["q"]);
    drop(z);
}

/// With `allow-passthrough on` and an outer terminal that never answers the graphics query (a
/// detached tmux: no client at all), keys typed while the app starts are not lost: sent 0,
/// 150 and 300 ms after the command, they reach the message box.
#[test]
fn keys_typed_at_start_survive_an_unanswered_query_under_passthrough() {
    if !common::tmux::ready() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    agentero::vault::demo::write_demo_vault(&vault).unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let conf = dir.path().join("tmux.conf");
    std::fs::write(&conf, "set -g allow-passthrough on\nset -g status off\n").unwrap();
    for delay in [0u64, 150, 300] {
        let sock = format!("agentero-early-{}-{delay}", std::process::id());
        let _server = Outer {
            child: Command::new("true").spawn().unwrap(),
            sock: sock.clone(),
        };
        let conf_s = conf.display().to_string();
        tx(
            &sock,
            &[
                "-f",
                &conf_s,
                "new-session",
                "-d",
                "-x",
                "120",
                "-y",
                "40",
                "-s",
                "main",
                "sh",
            ],
        );
        tx_wait(&sock, 10, |s| s.contains('$') || s.contains('#'));
        let h = home.display();
        let cmd = format!(
            "env -u AGENTERO_IMAGES HOME={h} XDG_CONFIG_HOME={h}/.config XDG_DATA_HOME={h}/.local/share {} {}",
            env!("CARGO_BIN_EXE_agentero"),
            vault.display()
        );
        tx(&sock, &["send-keys", "-t", "main:0", &cmd, "Enter"]);
        std::thread::sleep(Duration::from_millis(delay));
        let word = format!("early{delay}");
        tx(&sock, &["send-keys", "-t", "main:0", "i"]);
        tx(&sock, &["send-keys", "-t", "main:0", "-l", &word]);
        // (The terminal echoes the keys before the app reads them: wait for the app's box.)
        let screen = tx_wait(&sock, 20, |s| {
            s.lines().any(|l| l.contains('│') && l.contains(&word)) && s.contains("INSERT")
        });
        assert!(
            screen.lines().any(|l| l.contains('│') && l.contains(&word)),
            "keys typed {delay} ms after the start were lost:\n{screen}"
        );
        tx(&sock, &["send-keys", "-t", "main:0", "Escape"]);
        tx(&sock, &["send-keys", "-t", "main:0", "q"]);
    }
}
