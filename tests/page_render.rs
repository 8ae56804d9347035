//! Page images: hayro's renders of the real corpus compared with poppler's `pdftoppm` of the
//! same pages, and the text layer's character boxes checked against the ink they should cover
//! (a quote's highlight box lands on the quote).

#[path = "it/common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use agentero::vault::pdf::{self, Limits};
use agentero::vault::render::{self, PageImage, RenderError};
use image::GrayImage;

fn limits() -> Limits {
    Limits {
        deadline: Instant::now() + Duration::from_secs(60),
    }
}

/// Poppler's render of one page, grey.
fn pdftoppm(pdf: &Path, page: u32, dpi: u32) -> GrayImage {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("page");
    let status = Command::new("pdftoppm")
        .args(["-r", &dpi.to_string(), "-f", &page.to_string()])
        // The crop box, as viewers show a page and hayro renders it; without the borders
        // poppler draws around links (viewers and hayro leave them out).
        .args([
            "-l",
            &page.to_string(),
            "-cropbox",
            "-hide-annotations",
            "-png",
            "-singlefile",
        ])
        .arg(pdf)
        .arg(&out)
        .output()
        .expect("pdftoppm is missing: install poppler-utils (apt-get install poppler-utils)");
    assert!(
        status.status.success(),
        "pdftoppm failed on {}: {}",
        pdf.display(),
        String::from_utf8_lossy(&status.stderr)
    );
    image::open(out.with_extension("png")).unwrap().into_luma8()
}

/// Block means of a grey image on a `cols`×`rows` grid.
fn blocks(img: &GrayImage, cols: u32, rows: u32) -> Vec<f64> {
    let (w, h) = img.dimensions();
    let mut out = Vec::with_capacity((cols * rows) as usize);
    for r in 0..rows {
        for c in 0..cols {
            let (x0, x1) = (c * w / cols, ((c + 1) * w / cols).max(c * w / cols + 1));
            let (y0, y1) = (r * h / rows, ((r + 1) * h / rows).max(r * h / rows + 1));
            let mut sum = 0u64;
            let mut n = 0u64;
            for y in y0..y1.min(h) {
                for x in x0..x1.min(w) {
                    sum += u64::from(img.get_pixel(x, y)[0]);
                    n += 1;
                }
            }
            out.push(sum as f64 / n.max(1) as f64);
        }
    }
    out
}

/// How alike two renders of one page are, 0..1: the correlation of their ink over a grid of
/// small blocks (anti-aliasing and hinting differ between renderers; the layout must not), at
/// the best alignment within two pixels (renderers round a crop box's origin differently).
fn similarity(a: &GrayImage, b: &GrayImage) -> f64 {
    let mut best = f64::NEG_INFINITY;
    for dx in -2i32..=2 {
        for dy in -2i32..=2 {
            best = best.max(aligned_similarity(a, b, dx, dy));
        }
    }
    best
}

fn aligned_similarity(a: &GrayImage, b: &GrayImage, dx: i32, dy: i32) -> f64 {
    let crop = |img: &GrayImage, x: i32, y: i32, w: u32, h: u32| {
        image::imageops::crop_imm(img, x as u32, y as u32, w, h).to_image()
    };
    let w = (a.width() as i32 - dx.abs())
        .min(b.width() as i32 - dx.abs())
        .max(1) as u32;
    let h = (a.height() as i32 - dy.abs())
        .min(b.height() as i32 - dy.abs())
        .max(1) as u32;
    let a = crop(a, dx.max(0), dy.max(0), w, h);
    let b = crop(b, (-dx).max(0), (-dy).max(0), w, h);
    let (cols, rows) = (60, 80);
    let (x, y) = (blocks(&a, cols, rows), blocks(&b, cols, rows));
    let n = x.len() as f64;
    let (mx, my) = (x.iter().sum::<f64>() / n, y.iter().sum::<f64>() / n);
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(&y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    if sxx < 1e-9 && syy < 1e-9 {
        // Two blank pages.
        return 1.0;
    }
    sxy / (sxx.sqrt() * syy.sqrt()).max(1e-9)
}

fn corpus_pdfs(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root.join("papers"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path().join("paper.pdf")))
        .filter(|p| p.is_file())
        .collect();
    v.sort();
    v
}

/// The truncated aipsamp sample has no xref: neither renderer reads it whole.
const TRUNCATED: &str = "sample-title-with-forced-linebreak";
const THRESHOLD: f64 = 0.9;

#[test]
fn corpus_pages_look_like_pdftoppm() {
    let Some(root) = common::corpus() else {
        return;
    };
    let mut report = Vec::new();
    let mut failures = Vec::new();
    let mut compared = 0;
    // A control: our render of one page against poppler's of another page of the same paper
    // must look unlike it, or the measure proves nothing.
    let mut controls = Vec::new();
    for pdf in corpus_pdfs(&root) {
        let slug = pdf
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let bytes = std::fs::read(&pdf).unwrap();
        // The first page and one from the middle of the document.
        let count = pdf::extract(&bytes, limits()).map(|d| d.pages.len() as u32);
        let pages: Vec<u32> = match count {
            Ok(n) => {
                let mut p = vec![1, n.div_ceil(2).max(1)];
                p.dedup();
                p
            }
            Err(_) if slug == TRUNCATED => continue,
            Err(e) => panic!("{slug}: {e}"),
        };
        let mut first: Option<GrayImage> = None;
        for page in pages {
            let ours = match render::render(&bytes, page, 50) {
                Ok(img) => img,
                Err(e) => {
                    failures.push(format!("{slug} p.{page}: {e}"));
                    continue;
                }
            };
            let theirs = pdftoppm(&pdf, page, 50);
            let (w, h) = ours.image.dimensions();
            let (tw, th) = theirs.dimensions();
            assert!(
                w.abs_diff(tw) <= 2 && h.abs_diff(th) <= 2,
                "{slug} p.{page}: {w}x{h} pixels, pdftoppm {tw}x{th}"
            );
            let grey = image::DynamicImage::ImageRgb8(ours.image).into_luma8();
            let s = similarity(&grey, &theirs);
            match &first {
                None => first = Some(grey.clone()),
                Some(f) => {
                    controls.push((similarity(f, &theirs), format!("{slug} p.1 vs p.{page}")))
                }
            }
            report.push(format!("{s:.3} {slug} p.{page}"));
            compared += 1;
            if s < THRESHOLD {
                // AGENTERO_RENDER_DUMP=dir: both renders, to look at.
                if let Some(dir) = std::env::var_os("AGENTERO_RENDER_DUMP") {
                    let dir = Path::new(&dir);
                    grey.save(dir.join(format!("{slug}-p{page}-hayro.png")))
                        .unwrap();
                    theirs
                        .save(dir.join(format!("{slug}-p{page}-poppler.png")))
                        .unwrap();
                }
                failures.push(format!("{slug} p.{page}: similarity {s:.3} < {THRESHOLD}"));
            }
        }
    }
    eprintln!("{}", report.join("\n"));
    for (s, what) in &controls {
        eprintln!("control {s:.3} {what}");
    }
    assert!(compared >= 20, "only {compared} pages compared");
    let alike = controls.iter().filter(|(s, _)| *s >= THRESHOLD).count();
    assert!(
        controls.len() >= 10 && alike == 0,
        "the measure does not tell pages apart: {alike} of {} different pages look alike",
        controls.len()
    );
    assert!(
        failures.is_empty(),
        "renders unlike pdftoppm:\n{}",
        failures.join("\n")
    );
}

/// Share of a pixel rectangle that is ink (clearly darker than the paper).
fn ink(img: &PageImage, [l, t, r, b]: [u32; 4]) -> f64 {
    let mut dark = 0u32;
    for y in t..b {
        for x in l..r {
            let p = img.image.get_pixel(x, y);
            if p.0.iter().any(|&c| c < 150) {
                dark += 1;
            }
        }
    }
    f64::from(dark) / f64::from((r - l) * (b - t)).max(1.0)
}

/// Every word of a page's text, by byte range.
fn words(text: &str) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (c.is_alphanumeric(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(s..text.len());
    }
    out
}

/// The layout's text is the extractor's text, and the boxes of its words sit on ink in the
/// rendered page: most word boxes hold ink, and the same boxes moved off by their own height
/// mostly do not line up with text in the same way.
fn check_boxes(label: &str, bytes: &[u8], page: u32, expected_text: &str) -> (usize, usize) {
    let layout = pdf::page_layout(bytes, page, limits()).unwrap();
    assert_eq!(
        layout.text, expected_text,
        "{label} p.{page}: layout text differs"
    );
    let img = match render::render(bytes, page, 72) {
        Ok(img) => img,
        Err(e) => panic!("{label} p.{page}: {e}"),
    };
    let (mut on_ink, mut total) = (0, 0);
    let mut off = Vec::new();
    for w in words(&layout.text) {
        if w.len() < 3 {
            continue;
        }
        for rect in layout.rects(w.clone()) {
            let Some(px) = img.to_pixels(rect) else {
                continue;
            };
            total += 1;
            if ink(&img, px) > 0.04 {
                on_ink += 1;
            } else {
                off.push(rect);
            }
        }
    }
    // AGENTERO_RENDER_DUMP=dir: the page with the boxes that found no ink, to look at.
    if let Some(dir) = std::env::var_os("AGENTERO_RENDER_DUMP")
        && !off.is_empty()
    {
        let mut img = img;
        img.highlight(&off);
        let name = format!("{}-p{page}.png", label.replace('/', "_"));
        img.image.save(Path::new(&dir).join(name)).unwrap();
    }
    (on_ink, total)
}

#[test]
fn demo_papers_boxes_sit_on_their_words() {
    let dir = common::demo_vault();
    let mut checked = 0;
    for e in walk(dir.path()) {
        let bytes = std::fs::read(&e).unwrap();
        let Ok(doc) = pdf::extract(&bytes, limits()) else {
            continue;
        };
        for p in doc.pages.iter().take(3) {
            if p.text.trim().is_empty() {
                continue;
            }
            let (on, total) = check_boxes(&e.display().to_string(), &bytes, p.number, &p.text);
            assert!(total > 0, "{} p.{}: no word boxes", e.display(), p.number);
            assert!(
                on * 100 >= total * 95,
                "{} p.{}: only {on} of {total} word boxes on ink",
                e.display(),
                p.number
            );
            checked += 1;
        }
    }
    assert!(checked >= 3, "only {checked} demo pages checked");
}

#[test]
fn corpus_boxes_sit_on_their_words() {
    let Some(root) = common::corpus() else {
        return;
    };
    let mut report = Vec::new();
    let mut failures = Vec::new();
    for pdf in corpus_pdfs(&root) {
        let slug = pdf
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .to_string();
        let bytes = std::fs::read(&pdf).unwrap();
        let Ok(doc) = pdf::extract(&bytes, limits()) else {
            continue;
        };
        for p in doc.pages.iter().take(2) {
            if p.text.trim().is_empty() {
                continue;
            }
            let (on, total) = check_boxes(&slug, &bytes, p.number, &p.text);
            let share = on as f64 / total.max(1) as f64;
            report.push(format!("{share:.3} ({on}/{total}) {slug} p.{}", p.number));
            if total > 0 && share < 0.9 {
                failures.push(format!(
                    "{slug} p.{}: {on} of {total} boxes on ink",
                    p.number
                ));
            }
        }
    }
    eprintln!("{}", report.join("\n"));
    assert!(
        failures.is_empty(),
        "boxes off their words:\n{}",
        failures.join("\n")
    );
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "pdf") {
            out.push(p);
        }
    }
    out.sort();
    out
}

#[test]
fn missing_pages_and_bad_resolutions_are_clear_errors() {
    let dir = common::demo_vault();
    let pdf = walk(dir.path())
        .into_iter()
        .next()
        .expect("the demo vault has PDFs");
    let bytes = std::fs::read(&pdf).unwrap();
    let n = pdf::extract(&bytes, limits()).unwrap().pages.len();
    match render::render(&bytes, n as u32 + 1, 72) {
        Err(RenderError::NoSuchPage { page, count }) => {
            assert_eq!((page as usize, count), (n + 1, n));
        }
        other => panic!("expected NoSuchPage, got {:?}", other.map(|_| ())),
    }
    assert_eq!(
        render::render(&bytes, 0, 72).unwrap_err(),
        RenderError::NoSuchPage { page: 0, count: n }
    );
    assert_eq!(
        render::render(&bytes, 1, 2000).unwrap_err(),
        RenderError::BadDpi
    );
    let img = render::render(&bytes, 1, 72).unwrap();
    assert!(img.image.width() > 100 && img.image.height() > 100);
}

#[test]
fn page_command_writes_a_png_through_the_cache_and_highlights_a_quote() {
    let dir = common::demo_vault();
    let vault = dir.path().to_str().unwrap();
    let out = dir.path().join(".agentero-test-out.png");
    let out_s = out.to_str().unwrap();
    let paper = "papers/layoutflow/paper.pdf";
    let quote = "The word error rate falls from 6.4 percent for the stream order to 1.9 percent";
    let run = |args: &[&str]| common::agentero(args, dir.path());

    let first = run(&[
        "page", "--vault", vault, paper, "2", "--png", out_s, "--dpi", "60",
    ]);
    let said = String::from_utf8_lossy(&first.stderr).to_string();
    assert!(first.status.success(), "{said}");
    assert!(
        said.contains("510x660 pixels at 60 dpi") && !said.contains("cached"),
        "{said}"
    );
    let plain = image::open(&out).unwrap().into_rgb8();
    assert_eq!(plain.dimensions(), (510, 660));
    let cached = dir.path().join(".agentero/cache/pages");
    assert_eq!(walk_all(&cached).len(), 2, "one PNG and its geometry");

    // Again, by citation URI, with the quote: from the cache, yellow where the quote is.
    let uri = format!("{paper}#page=2");
    let second = run(&[
        "page", "--vault", vault, &uri, "--png", out_s, "--dpi", "60", "--quote", quote,
    ]);
    let said = String::from_utf8_lossy(&second.stderr).to_string();
    assert!(second.status.success(), "{said}");
    assert!(
        said.contains("(cached)") && said.contains("highlighted (2 boxes)"),
        "{said}"
    );
    let marked = image::open(&out).unwrap().into_rgb8();
    let yellow = |img: &image::RgbImage| {
        img.pixels()
            .filter(|p| p[0] > 200 && p[1] > 180 && p[2] < 120)
            .count()
    };
    assert_eq!(yellow(&plain), 0);
    assert!(yellow(&marked) > 2000, "{} yellow pixels", yellow(&marked));

    // Clear errors, nothing written.
    let _ = std::fs::remove_file(&out);
    for (args, says) in [
        (vec![paper, "9"], "no page 9 (it has 2)"),
        (vec!["notes/none.md", "1"], "no such file"),
        (vec![paper], "which page?"),
        (vec![paper, "1", "--dpi", "5000"], "between 10 and 1200 dpi"),
        (
            vec![
                paper,
                "1",
                "--quote",
                "a sentence that is nowhere on this page",
            ],
            "not in the text of page 1",
        ),
    ] {
        let mut full = vec!["page", "--vault", vault];
        full.extend(args);
        full.extend(["--png", out_s]);
        let r = run(&full);
        let said = String::from_utf8_lossy(&r.stderr).to_string();
        assert!(
            !r.status.success() && said.contains(says),
            "{full:?}: {said}"
        );
        assert!(!out.exists(), "{full:?} wrote the PNG");
    }
}

fn walk_all(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk_all(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Hostile pages rendered under the bounds: flate bombs, an image that declares 10^10 pixels,
/// a page that takes minutes to draw. Through `agentero page --png` and through the library
/// entry the terminal app uses, each under a watchdog: a clear refusal, the render child's
/// peak memory within the bound, and no child left behind.
mod bounded {
    use super::*;
    use crate::common::hostile_pdf::*;
    use agentero::vault::Vault;
    use agentero::vault::render::{Bounds, PageCache, Renderer};

    /// The bounds the tests render under: less memory than the default, so a bomb is quick; a
    /// short time for the slow page, a long one for the rest (inflating 256 MiB takes seconds
    /// on a busy machine, and the bombs must be refused for their memory, not their time).
    const MEMORY_MIB: u64 = 256;
    const SECONDS: u64 = 2;
    const LONG_SECONDS: u64 = 60;
    /// No render test may take longer than this, whatever the renderer does.
    const WATCHDOG: Duration = Duration::from_secs(90);

    fn bounds(seconds: u64) -> Bounds {
        Bounds::parse(Some(&MEMORY_MIB.to_string()), Some(&seconds.to_string())).unwrap()
    }

    /// A vault with `bytes` as its only paper, and the paper's path in it.
    fn vault_with(bytes: &[u8]) -> (tempfile::TempDir, String) {
        let dir = tempfile::tempdir().unwrap();
        let rel = "papers/hostile/paper.pdf";
        let abs = dir.path().join(rel);
        std::fs::create_dir_all(abs.parent().unwrap()).unwrap();
        std::fs::write(&abs, bytes).unwrap();
        (dir, rel.to_string())
    }

    /// `work` on a thread that must finish within the watchdog.
    fn watched<T: Send + 'static>(what: &str, work: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(work());
        });
        rx.recv_timeout(WATCHDOG)
            .unwrap_or_else(|_| panic!("{what}: still running after {WATCHDOG:?}"))
    }

    /// Processes whose command line mentions `needle` (the render child names its PDF).
    fn processes_mentioning(needle: &str) -> Vec<String> {
        let mut found = Vec::new();
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(cmd) = std::fs::read(e.path().join("cmdline")) else {
                continue;
            };
            let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
            if cmd.contains(needle) {
                found.push(format!("{}: {cmd}", e.file_name().to_string_lossy()));
            }
        }
        found
    }

    /// Unreaped `agentero` children of this process (other tests' children exit and are
    /// reaped within moments, so one that stays a second is ours).
    fn zombie_children() -> Vec<String> {
        let me = std::process::id().to_string();
        let look = || {
            let mut found = Vec::new();
            for e in std::fs::read_dir("/proc").unwrap().flatten() {
                let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
                    continue;
                };
                let Some((head, tail)) = stat.rsplit_once(')') else {
                    continue;
                };
                let fields: Vec<&str> = tail.split_whitespace().collect();
                if head.ends_with("(agentero")
                    && fields.first() == Some(&"Z")
                    && fields.get(1) == Some(&me.as_str())
                {
                    found.push(stat.clone());
                }
            }
            found
        };
        for _ in 0..20 {
            let z = look();
            if z.is_empty() {
                return z;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        look()
    }

    /// The largest peak RSS (KiB) of the children this process has reaped, theirs included.
    fn children_peak_kib() -> i64 {
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: getrusage writes into the struct we own.
        let r = unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
        assert_eq!(r, 0);
        usage.ru_maxrss
    }

    fn renderer(seconds: u64) -> Renderer {
        Renderer::new(env!("CARGO_BIN_EXE_agentero"), bounds(seconds))
    }

    #[test]
    fn the_bombs_are_real() {
        // The generator's zeros are what a PDF reader inflates.
        let (z, len) = zlib_zeros(1000);
        assert!(len > 1_000_000 && z.len() < 1_200);
        let small = one_page("", stream("/Filter /FlateDecode", &z), vec![]);
        let doc = lopdf::Document::load_mem(&small).unwrap();
        let s = doc.get_object((4, 0)).unwrap().as_stream().unwrap();
        let inflated = s.decompressed_content().unwrap();
        assert_eq!(inflated.len() as u64, len);
        assert!(inflated.iter().all(|&b| b == 0));
        let (_, big) = zlib_zeros(4 << 20);
        assert!(big > 4 << 30, "{big}");
        // The slow page draws: two levels (100 fills) in process, the last fill red.
        let img = render::render(&slow_page(2), 1, 20).unwrap();
        assert_eq!(img.image.get_pixel(10, 10).0, [255, 0, 0]);
    }

    /// The terminal app's path: the page cache and the renderer child, as `I` calls them.
    #[test]
    fn hostile_pages_are_refused_through_the_library() {
        let cases = [
            ("content bomb", content_bomb()),
            ("image bomb", image_bomb()),
            ("huge image", huge_image()),
            ("slow page", slow_page(6)),
        ];
        for (what, bytes) in cases {
            let (dir, rel) = vault_with(&bytes);
            let vault = Vault::open(dir.path()).unwrap();
            let (pdf, sha) = render::locate_paper(&vault, &rel).unwrap();
            let started = Instant::now();
            let (cache, pdf2, sha2) = (PageCache::new(&vault), pdf.clone(), sha.clone());
            let secs = if what == "slow page" {
                SECONDS
            } else {
                LONG_SECONDS
            };
            let result = watched(what, move || {
                cache
                    .get_or_render(&renderer(secs), &pdf2, &sha2, 1, 100)
                    .map(|_| ())
            });
            let took = started.elapsed();
            let e = result.expect_err(what);
            let said = e.to_string();
            match what {
                "slow page" => {
                    // Whichever bound it reaches first (hayro keeps every drawing command, so
                    // on a fast machine the memory bound comes before the clock): refused,
                    // and in time.
                    assert!(
                        matches!(
                            e,
                            RenderError::TookTooLong {
                                page: 1,
                                secs: SECONDS
                            } | RenderError::TooMuchMemory { page: 1, .. }
                        ),
                        "{what}: {e:?}"
                    );
                    assert!(
                        said == "page 1 was not rendered: it took longer than 2 s"
                            || said
                                == "page 1 was not rendered: it needs more than 256 MiB of memory",
                        "{what}: {said}"
                    );
                    assert!(took < Duration::from_secs(SECONDS + 2), "{what}: {took:?}");
                }
                "huge image" => {
                    assert!(
                        matches!(
                            e,
                            RenderError::ImageTooLarge {
                                width: 100_000,
                                height: 100_000,
                                ..
                            }
                        ),
                        "{what}: {e:?}"
                    );
                    assert!(
                        said.contains("100000x100000 pixels, more than 256 MiB"),
                        "{said}"
                    );
                    assert!(took < Duration::from_secs(10), "{what}: {took:?}");
                }
                _ => {
                    assert!(
                        matches!(e, RenderError::TooMuchMemory { page: 1, .. }),
                        "{what}: {e:?}"
                    );
                    assert_eq!(
                        said,
                        "page 1 was not rendered: it needs more than 256 MiB of memory"
                    );
                    assert!(took < Duration::from_secs(LONG_SECONDS), "{what}: {took:?}");
                }
            }
            let left = processes_mentioning(&pdf.display().to_string());
            assert!(left.is_empty(), "{what}: left running: {left:?}");
            let zombies = zombie_children();
            assert!(zombies.is_empty(), "{what}: not reaped: {zombies:?}");
            // Nothing cached for a refused page.
            assert!(PageCache::new(&vault).get(&sha, 1, 100).is_none());
        }
        let peak = children_peak_kib();
        assert!(
            peak <= (MEMORY_MIB * 1024) as i64,
            "a child peaked at {peak} KiB"
        );
    }

    /// Positive control: demo pages render in the child within the same bounds, pixel for
    /// pixel as in process.
    #[test]
    fn normal_pages_render_the_same_in_the_child() {
        let dir = common::demo_vault();
        let mut checked = 0;
        for pdf in walk(dir.path()).into_iter().take(3) {
            let bytes = std::fs::read(&pdf).unwrap();
            let inside = render::render(&bytes, 1, 72).unwrap();
            let (r, p) = (renderer(LONG_SECONDS), pdf.clone());
            let child = watched("a demo page", move || r.render_file(&p, 1, 72)).unwrap();
            assert_eq!(child.image, inside.image, "{}", pdf.display());
            assert_eq!(child.transform, inside.transform);
            assert_eq!(child.dpi, 72);
            checked += 1;
        }
        assert_eq!(checked, 3);
        let (r, p) = (renderer(LONG_SECONDS), walk(dir.path())[0].clone());
        let e = watched("no such page", move || r.render_file(&p, 99, 72)).unwrap_err();
        assert!(
            matches!(e, RenderError::NoSuchPage { page: 99, .. }),
            "{e:?}"
        );
    }

    /// `agentero page` run to its end under the watchdog and reaped with `wait4`: its exit
    /// status, stderr and the peak RSS (KiB) of it and its render child.
    fn page_command(vault: &Path, args: &[&str], env: &[(&str, &str)]) -> (bool, String, i64) {
        use std::os::unix::process::ExitStatusExt;
        let mut cmd = common::command(vault);
        cmd.arg("page").arg("--vault").arg(vault).args(args);
        cmd.envs(env.iter().copied());
        // Reaped by `wait4` below, which also gives its rusage.
        #[allow(clippy::zombie_processes)]
        let mut child = cmd
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let said = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
            s
        });
        let pid = child.id() as i32;
        let deadline = Instant::now() + WATCHDOG;
        let mut status = 0;
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        loop {
            // SAFETY: waiting for our own child into locals we own.
            let r = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, &mut usage) };
            if r == pid {
                break;
            }
            assert_eq!(r, 0, "wait4 failed");
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("agentero page {args:?}: still running after {WATCHDOG:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let ok = std::process::ExitStatus::from_raw(status).success();
        (ok, said.join().unwrap(), usage.ru_maxrss)
    }

    #[test]
    fn hostile_pages_are_refused_by_the_page_command() {
        for (what, bytes, says) in [
            (
                "content bomb",
                content_bomb(),
                "page 1 was not rendered: it needs more than 256 MiB of memory",
            ),
            (
                "huge image",
                huge_image(),
                "page 1 was not rendered: it has an image of 100000x100000 pixels",
            ),
            (
                "slow page",
                slow_page(6),
                "page 1 was not rendered: it took longer than 2 s",
            ),
        ] {
            // The slow page may reach the memory bound before the clock (a fast machine).
            let also = (what == "slow page")
                .then_some("page 1 was not rendered: it needs more than 256 MiB of memory");
            let (dir, rel) = vault_with(&bytes);
            let out = dir.path().join("out.png");
            let secs = if what == "slow page" {
                SECONDS
            } else {
                LONG_SECONDS
            };
            let env = [
                ("AGENTERO_RENDER_MEMORY_MIB", MEMORY_MIB.to_string()),
                ("AGENTERO_RENDER_SECONDS", secs.to_string()),
            ];
            let env = env.each_ref().map(|(k, v)| (*k, v.as_str()));
            let started = Instant::now();
            let (ok, said, peak) = page_command(
                dir.path(),
                &[&rel, "1", "--png", out.to_str().unwrap()],
                &env,
            );
            assert!(
                !ok && (said.contains(says) || also.is_some_and(|a| said.contains(a))),
                "{what}: {said}"
            );
            assert!(!out.exists(), "{what}: wrote a PNG");
            assert!(
                started.elapsed() < Duration::from_secs(secs + 3),
                "{what}: {:?}",
                started.elapsed()
            );
            assert!(
                peak <= (MEMORY_MIB * 1024) as i64,
                "{what}: peaked at {peak} KiB"
            );
            let left = processes_mentioning(&dir.path().display().to_string());
            assert!(left.is_empty(), "{what}: left running: {left:?}");
        }
        // A bound that is not a number is said so; nothing is rendered.
        let (dir, rel) = vault_with(&slow_page(1));
        let out = dir.path().join("out.png");
        let (ok, said, _) = page_command(
            dir.path(),
            &[&rel, "1", "--png", out.to_str().unwrap()],
            &[("AGENTERO_RENDER_MEMORY_MIB", "lots")],
        );
        assert!(
            !ok && said.contains("AGENTERO_RENDER_MEMORY_MIB must be a whole number"),
            "{said}"
        );
        // The same page with the defaults: rendered.
        let (ok, said, _) = page_command(
            dir.path(),
            &[&rel, "1", "--png", out.to_str().unwrap()],
            &[],
        );
        assert!(ok, "{said}");
        assert_eq!(
            image::open(&out).unwrap().into_rgb8().get_pixel(5, 5).0,
            [255, 0, 0]
        );
    }

    /// `I` on a page past the bounds in the terminal app: the text stays, the status line says
    /// why, and `I` again says it again (from memory: the page is not retried this session).
    #[test]
    fn the_app_shows_the_text_and_the_reason() {
        use agentero::tui::headless::Headless;
        let (dir, rel) = vault_with(&huge_image());
        let mut h = Headless::open(dir.path(), 120, 40).unwrap();
        h.settle();
        h.keys("space f g g");
        let pos = h
            .app
            .browser()
            .visible()
            .position(|e| e.path == rel)
            .expect("the paper is listed");
        for _ in 0..pos {
            h.keys("j");
        }
        h.keys("enter");
        assert!(h.app.paper().is_some());
        let says = "page 1 was not rendered: it has an image of 100000x100000 pixels, \
                    more than 1 GiB of memory; showing its text";
        for _ in 0..2 {
            h.keys("I");
            assert_eq!(h.app.status(), says);
            let screen = h.render();
            assert!(
                !screen.contains('▀') && screen.contains(" · image"),
                "{screen}"
            );
            h.keys("I");
        }
        let left = processes_mentioning(&dir.path().display().to_string());
        assert!(left.is_empty(), "left running: {left:?}");
    }
}

/// A window of a page (the image view's zoom and pan) renders as the same part of the whole
/// page at the same scale: rendered in process, through the bounded child, and read back from
/// the page cache; a window that is not one is refused by the child, not drawn.
#[test]
fn a_window_renders_as_that_part_of_the_whole_page() {
    use render::{Bounds, PageCache, Region, Renderer};
    let fixture = agentero::vault::demo::fixtures::numbered_pages(2).unwrap();
    let dpi = 100;
    let whole = render::render(&fixture.pdf, 1, dpi).unwrap();
    let (w, h) = whole.image.dimensions();
    // The heading and the first line at 100 dpi: a tenth in from the left, a twentieth down.
    let frac = [1000, 500, 6000, 2000];
    let (l, t) = (w / 10, h / 20);
    let px = (w / 2, h * 3 / 20);
    let region = Region { frac, px };
    let win = render::render_region(&fixture.pdf, 1, region).unwrap();
    assert_eq!(win.image.image.dimensions(), px);
    assert_eq!(win.image.dpi, dpi);
    assert!((win.page_pt.1 / win.page_pt.0 - h as f32 / w as f32).abs() < 0.01);
    let crop = image::imageops::crop_imm(&whole.image, l, t, px.0, px.1).to_image();
    let diff = |a: &image::RgbImage, b: &image::RgbImage| {
        let n = a.as_raw().len() as f64;
        a.as_raw()
            .iter()
            .zip(b.as_raw())
            .map(|(x, y)| f64::from(x.abs_diff(*y)))
            .sum::<f64>()
            / n
    };
    let ink = win
        .image
        .image
        .as_raw()
        .iter()
        .filter(|v| **v < 128)
        .count();
    assert!(
        ink > 500,
        "the window has no text in it ({ink} dark samples)"
    );
    let same = diff(&win.image.image, &crop);
    assert!(
        same < 2.0,
        "the window differs from the page's crop by {same:.2} per sample"
    );
    // The control: the crop one line lower is not the same picture.
    let lower = image::imageops::crop_imm(&whole.image, l, t + 24, px.0, px.1).to_image();
    assert!(diff(&win.image.image, &lower) > same * 3.0 + 1.0);
    // Through the bounded child and the page cache: the same pixels, the second time cached.
    let dir = tempfile::tempdir().unwrap();
    let vault = agentero::vault::Vault::open(dir.path()).unwrap();
    let pdf = dir.path().join("p.pdf");
    std::fs::write(&pdf, &fixture.pdf).unwrap();
    let sha = "b".repeat(64);
    let renderer = Renderer::new(env!("CARGO_BIN_EXE_agentero"), Bounds::default());
    let cache = PageCache::new(&vault);
    let (child, cached) = cache
        .get_or_render_region(&renderer, &pdf, &sha, 1, region)
        .unwrap();
    assert!(!cached);
    assert_eq!(child.image.image, win.image.image);
    assert_eq!(child.image.transform, win.image.transform);
    let (again, cached) = cache
        .get_or_render_region(&renderer, &pdf, &sha, 1, region)
        .unwrap();
    assert!(cached);
    assert_eq!(again.image.image, win.image.image);
    assert_eq!(again.page_pt, win.page_pt);
    // A window past the page, or of no pixels: refused.
    let bad = Region {
        frac: [5000, 0, 4000, 100],
        px: (10, 10),
    };
    assert!(renderer.render_region_file(&pdf, 1, bad).is_err());
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_agentero"))
        .arg(render::RENDER_FLAG)
        .arg(&pdf)
        .args(["1", "0", "1073741824", "10", "0,0,10000,10000,0,5"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    // Zoomed past the resolution bound: a refusal with the reason, not an allocation.
    let huge = Region {
        frac: [0, 0, 10, 10],
        px: (4000, 4000),
    };
    let e = render::render_region(&fixture.pdf, 1, huge).unwrap_err();
    assert!(e.to_string().contains("too large"), "{e}");
}
