//! OCR of scanned pages with tesseract (issue 40). The scans are made here: a page of a real
//! PDF rendered by our renderer and wrapped as an image-only PDF (no text layer), Latin from
//! the demo vault and CJK from the corpus; and the corpus's own scanned paper. Each is indexed
//! with OCR through the bounded child, then read back: word recall against the original's text,
//! search, a quote verified `✓ (OCR)` and a changed word not. The hostile side: tesseract
//! missing (everything works, one hint), hanging (killed at the bound with its process group),
//! answering garbage (refused, nothing cached), a huge scan (refused within the bounds), and
//! `kill -9` in the middle of a run (the pages read are kept, not read again).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::{self, hostile_pdf, skip};
use agentero::context::citations::{self, Verdict};
use agentero::vault::indexer::{IndexOptions, IndexSummary, index_vault};
use agentero::vault::ocr::{self, OcrCache, OcrOptions};
use agentero::vault::pdf::{self, Limits};
use agentero::vault::{Vault, render};

/// tesseract with these language packs, or a skip (a failure under CI).
fn tesseract_with(langs: &[&str]) -> bool {
    match ocr::Engine::detect(Path::new("tesseract")) {
        Ok(e) if langs.iter().all(|l| e.languages.iter().any(|h| h == l)) => true,
        _ => {
            skip::missing(skip::Peer::Tesseract, &langs.join("+"));
            false
        }
    }
}

fn limits() -> Limits {
    Limits {
        deadline: Instant::now() + Duration::from_secs(60),
    }
}

/// An image-only PDF of these grey pages, scanned at `dpi`.
fn scan_pdf(pages: &[image::GrayImage], dpi: u32) -> Vec<u8> {
    let n = pages.len();
    let kids: String = (0..n).map(|i| format!("{} 0 R ", 3 + 3 * i)).collect();
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!("<< /Type /Pages /Kids [{kids}] /Count {n} >>").into_bytes(),
    ];
    for (i, img) in pages.iter().enumerate() {
        let (w, h) = (img.width(), img.height());
        let pw = f64::from(w) * 72.0 / f64::from(dpi);
        let ph = f64::from(h) * 72.0 / f64::from(dpi);
        let (page, contents, image) = (3 + 3 * i, 4 + 3 * i, 5 + 3 * i);
        assert_eq!(page, objects.len() + 1);
        objects.push(
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {pw:.2} {ph:.2}] /Contents {contents} 0 R \
                 /Resources << /XObject << /Im0 {image} 0 R >> >> >>"
            )
            .into_bytes(),
        );
        objects.push(hostile_pdf::stream(
            "",
            format!("q {pw:.2} 0 0 {ph:.2} 0 0 cm /Im0 Do Q").as_bytes(),
        ));
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(img.as_raw()).unwrap();
        objects.push(hostile_pdf::stream(
            &format!(
                "/Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceGray \
                 /BitsPerComponent 8 /Filter /FlateDecode"
            ),
            &z.finish().unwrap(),
        ));
    }
    hostile_pdf::pdf(&objects)
}

/// Pages `pages` of `pdf` rendered at `dpi` and wrapped as an image-only PDF: a scan.
fn scanned(pdf: &[u8], pages: &[u32], dpi: u32) -> Vec<u8> {
    let imgs: Vec<image::GrayImage> = pages
        .iter()
        .map(|&p| {
            let img = render::render(pdf, p, dpi).unwrap();
            image::DynamicImage::ImageRgb8(img.image).into_luma8()
        })
        .collect();
    scan_pdf(&imgs, dpi)
}

/// A demo paper's page with the most words: (its PDF, page, text).
fn wordy_demo_page() -> (Vec<u8>, u32, String) {
    common::demo_pdfs()
        .into_iter()
        .filter_map(|bytes| {
            let doc = pdf::extract(&bytes, limits()).ok()?;
            let best = doc
                .pages
                .iter()
                .max_by_key(|p| p.text.split_whitespace().count())?
                .clone();
            Some((bytes, best.number, best.text))
        })
        .max_by_key(|(_, _, t)| t.split_whitespace().count())
        .expect("the demo vault has papers")
}

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The share of `original`'s words (with repeats) that `read` has too.
fn recall(original: &[String], read: &[String]) -> f64 {
    let mut have: HashMap<&str, usize> = HashMap::new();
    for w in read {
        *have.entry(w.as_str()).or_default() += 1;
    }
    let found = original
        .iter()
        .filter(|w| {
            have.get_mut(w.as_str())
                .filter(|n| **n > 0)
                .map(|n| *n -= 1)
                .is_some()
        })
        .count();
    found as f64 / original.len().max(1) as f64
}

fn ocr_options(langs: &[&str]) -> OcrOptions {
    let mut o = OcrOptions::new(langs.iter().map(|l| l.to_string()).collect());
    o.exe = PathBuf::from(env!("CARGO_BIN_EXE_agentero"));
    o.required = true;
    o
}

fn index_with(vault: &Vault, o: OcrOptions) -> IndexSummary {
    let opts = IndexOptions {
        ocr: Some(o),
        ..IndexOptions::default()
    };
    index_vault(vault, &opts, &mut |_| {}).unwrap()
}

/// A vault holding `pdf` at `rel`.
fn vault_with(pdf: &[u8], rel: &str) -> (tempfile::TempDir, Vault) {
    let dir = tempfile::tempdir().unwrap();
    let at = dir.path().join(rel);
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    std::fs::write(&at, pdf).unwrap();
    let vault = Vault::open(dir.path()).unwrap();
    (dir, vault)
}

/// The text of page `n` as the index holds it.
fn indexed_text(vault: &Vault, rel: &str, n: u32) -> String {
    let index = vault.open_index().unwrap();
    index
        .page(rel, n)
        .unwrap()
        .map(|d| d.text)
        .unwrap_or_default()
}

/// `quote` cited at page `page` of `rel`, checked against the vault.
fn verdict(vault: &Vault, rel: &str, page: u32, quote: &str) -> Verdict {
    let answer = format!("They write \u{201c}{quote}\u{201d} ({rel}#page={page}).");
    let checks = citations::check_in_vault(vault, &answer, &[]);
    assert_eq!(checks.len(), 1, "{checks:?}");
    checks[0].verdict
}

/// The line of `text` with the most words (as it is on the page), and the same with one word
/// changed.
fn quote_and_changed(text: &str) -> (String, String) {
    let line = text
        .lines()
        .max_by_key(|l| l.split_whitespace().count())
        .unwrap()
        .trim();
    let quote: Vec<&str> = line.split_whitespace().collect();
    assert!(quote.len() >= 6, "{line}");
    let mut changed = quote.clone();
    // A word long enough to be a word, replaced by one no page has.
    let k = (0..quote.len())
        .rev()
        .find(|&k| quote[k].chars().filter(|c| c.is_alphabetic()).count() >= 4)
        .unwrap();
    changed[k] = "zebrafish";
    (line.to_string(), changed.join(" "))
}

#[test]
fn a_generated_latin_scan_is_read_searched_and_quoted_as_ocr() {
    if !tesseract_with(&["eng"]) {
        return;
    }
    let (original, page, text) = wordy_demo_page();
    let scan = scanned(&original, &[page], 300);
    let rel = "scans/latin/paper.pdf";
    let (_dir, vault) = vault_with(&scan, rel);
    // Without OCR the page is a scan with nothing to search.
    let plain = index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    assert_eq!(plain.no_text, vec![rel.to_string()]);
    let started = Instant::now();
    let s = index_with(&vault, ocr_options(&["eng"]));
    let o = s.ocr.clone().expect("an OCR pass");
    assert_eq!((o.pages, o.failed.len()), (1, 0), "{o:?}");
    assert!(s.no_text.is_empty(), "{:?}", s.no_text);

    let read = indexed_text(&vault, rel, 1);
    let r = recall(&words(&text), &words(&read));
    eprintln!(
        "latin scan: {} words, word recall {r:.3}, {:.1} s",
        words(&text).len(),
        started.elapsed().as_secs_f64()
    );
    assert!(r >= 0.95, "word recall {r:.3} < 0.95\n--- read:\n{read}");

    // Provenance: the record says the page is OCR and by what.
    let record = vault.record_for(rel).unwrap();
    let note = record.ocr_note(1).expect("page 1 is OCR");
    assert!(
        note.says().starts_with("OCR (tesseract 5"),
        "{}",
        note.says()
    );
    assert!(
        note.says().contains(", eng) · confidence 0."),
        "{}",
        note.says()
    );
    let cached = OcrCache::new(&vault).get(&record.sha256, 1).unwrap();
    assert!(cached.words.iter().all(|w| w.bbox[2] <= cached.width));

    // Search finds a word of the page.
    let word = words(&read)
        .into_iter()
        .filter(|w| w.len() >= 7 && w.chars().all(|c| c.is_ascii_alphabetic()))
        .max_by_key(|w| w.len())
        .unwrap();
    let index = vault.open_index().unwrap();
    let hits = index
        .search(&word, &agentero::vault::SearchOptions::default())
        .unwrap();
    assert!(
        hits.iter().any(|h| h.path == rel),
        "searching {word:?} finds the scan"
    );

    // A quote of the page verifies as OCR, never as a plain ✓; a changed word does not.
    let (quote, changed) = quote_and_changed(&read);
    let v = verdict(&vault, rel, 1, &quote);
    assert_eq!(v, Verdict::VerifiedOcr, "{quote}");
    assert_eq!(v.glyph(), "✓ (OCR)");
    assert!(
        !verdict(&vault, rel, 1, &changed).is_verified(),
        "{changed}"
    );
    // Highlights: a quote of the page is boxed where tesseract placed its words, on the page
    // image (`agentero page --quote`) and in a saved highlight.
    let root = _dir.path();
    let out = common::agentero(
        &[
            "page", "--vault", ".", "--png", "q.png", "--quote", &quote, rel, "1",
        ],
        root,
    );
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(
        common::stderr(&out).contains("the quote highlighted"),
        "{}",
        common::stderr(&out)
    );
    let at = read.find(&quote).expect("the quote is the page's own text");
    let h = agentero::vault::highlights::add(
        &vault,
        rel,
        agentero::vault::highlights::NewHighlight {
            page: 1,
            start: at,
            end: at + quote.len(),
            text: quote.clone(),
            comment: None,
        },
    )
    .unwrap();
    assert!(!h.rects.is_empty(), "the highlight has boxes");
    assert!(
        h.rects
            .iter()
            .all(|r| r[0] < r[2] && r[1] < r[3] && r[0] >= 0.0 && r[3] <= 1000.0),
        "{:?}",
        h.rects
    );
    // context_read says the text is OCR and what read it.
    let said = read_through_context_server(&vault, rel);
    assert!(said.contains("\"ocr\":\"OCR (tesseract 5"), "{said}");
    assert!(said.contains(&word), "{said}");

    // The original's own words (not the OCR's) verify too, within the tolerance.
    let orig = quote_and_changed(&text).0;
    let ok = verdict(&vault, rel, 1, &orig);
    eprintln!("quote of the original's text: {ok:?}: {orig}");
    assert_eq!(ok, Verdict::VerifiedOcr, "{orig}");
}

/// Page 1 of `rel` read with `context_read` from the real context server, under a grant of it.
fn read_through_context_server(vault: &Vault, rel: &str) -> String {
    use agentero::context::budget::Budget;
    use agentero::context::{ContextRequest, grant, plan};
    let req = ContextRequest {
        mentions: vec![rel.to_string()],
        budget: Budget {
            turn_chars: 1_000_000,
            ..Budget::default()
        },
        ..ContextRequest::default()
    };
    let p = plan(vault, &req);
    let path = grant::write(vault, &grant::new_id("ocr"), &p)
        .unwrap()
        .0
        .grant();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let client = common::mcp_client(&path).await;
        let r = common::call_tool(
            &client,
            "context_read",
            serde_json::json!({"path": rel, "mode": "page", "page": 1}),
        )
        .await;
        assert_ne!(r.is_error, Some(true), "{}", common::tool_text(&r));
        common::tool_text(&r)
    })
}

#[test]
fn a_generated_cjk_scan_is_read_in_japanese() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    if !tesseract_with(&["jpn"]) {
        return;
    }
    let original = std::fs::read(corpus.join("papers/uplatex-japanese-manual/paper.pdf")).unwrap();
    let doc = pdf::extract(&original, limits()).unwrap();
    let cjk = |s: &str| -> Vec<String> {
        s.chars()
            .filter(|c| agentero::vault::ocr::tsv::unspaced(*c) && c.is_alphanumeric())
            .map(String::from)
            .collect()
    };
    // The page with the most Japanese characters.
    let page = doc
        .pages
        .iter()
        .take(6)
        .max_by_key(|p| cjk(&p.text).len())
        .unwrap();
    let scan = scanned(&original, &[page.number], 300);
    let rel = "scans/cjk/paper.pdf";
    let (_dir, vault) = vault_with(&scan, rel);
    let s = index_with(&vault, ocr_options(&["jpn", "eng"]));
    assert_eq!(s.ocr.as_ref().map(|o| o.pages), Some(1), "{:?}", s.ocr);
    let read = indexed_text(&vault, rel, 1);
    let r = recall(&cjk(&page.text), &cjk(&read));
    eprintln!(
        "cjk scan: p.{} with {} Japanese characters, character recall {r:.3}",
        page.number,
        cjk(&page.text).len()
    );
    assert!(r >= 0.95, "character recall {r:.3}\n--- read:\n{read}");
    let record = vault.record_for(rel).unwrap();
    assert!(record.ocr_note(1).unwrap().says().contains("jpn+eng"));
}

#[test]
fn the_corpus_scan_is_read_and_a_quote_of_it_verifies_as_ocr() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    if !tesseract_with(&["eng"]) {
        return;
    }
    let slug = "the-linnsequencer-32-track-midi-sequence-recorder";
    let bytes = std::fs::read(corpus.join("papers").join(slug).join("paper.pdf")).unwrap();
    let rel = format!("papers/{slug}/paper.pdf");
    let (_dir, vault) = vault_with(&bytes, &rel);
    let s = index_with(&vault, ocr_options(&["eng"]));
    assert_eq!(s.ocr.as_ref().map(|o| o.pages), Some(1), "{:?}", s.ocr);
    let read = indexed_text(&vault, &rel, 1);
    let flat = read.split_whitespace().collect::<Vec<_>>().join(" ");
    let quote = "The LinnSequencer is a state-of-the-art composition and performance tool";
    assert!(flat.contains(quote), "{flat}");
    assert_eq!(verdict(&vault, &rel, 1, quote), Verdict::VerifiedOcr);
    let changed = "The LinnSequencer is a state-of-the-art composition and rehearsal tool";
    assert!(!verdict(&vault, &rel, 1, changed).is_verified());
}

/// A scan of one demo page (no tesseract needed to make it).
fn small_scan() -> Vec<u8> {
    let (original, page, _) = wordy_demo_page();
    scanned(&original, &[page], 100)
}

#[test]
fn without_tesseract_everything_works_and_one_hint_says_how_to_install_it() {
    let rel = "scans/paper.pdf";
    let (dir, _vault) = vault_with(&small_scan(), rel);
    let root = dir.path();
    let config = root.join(".agentero-test-home/config/agentero");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        "[ocr]\ntesseract = \"/nonexistent/tesseract\"\n",
    )
    .unwrap();
    let out = common::agentero(&["index", "."], root);
    let said = common::stdout(&out);
    assert!(out.status.success(), "{said}{}", common::stderr(&out));
    assert_eq!(
        said.matches("sudo apt install tesseract-ocr").count(),
        1,
        "{said}"
    );
    assert!(said.contains("1 scanned page not read"), "{said}");
    assert!(said.contains("no text layer"), "{said}");
    // `--ocr` asks for it: an error that says the same.
    let out = common::agentero(&["index", "--ocr", "."], root);
    assert!(!out.status.success());
    assert!(
        common::stderr(&out).contains("sudo apt install tesseract-ocr"),
        "{}",
        common::stderr(&out)
    );
    // `--no-ocr`: not a word about it.
    let out = common::agentero(&["index", "--no-ocr", "."], root);
    assert!(out.status.success());
    assert!(!common::stdout(&out).contains("tesseract"));
    // Nothing was written beside the PDF.
    let beside: Vec<_> = std::fs::read_dir(root.join("scans")).unwrap().collect();
    assert_eq!(beside.len(), 1);
}

/// A fake tesseract that answers `--version` and `--list-langs` as tesseract does and reads a
/// page by running `body`.
fn fake_tesseract(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\ncase \"$1\" in\n  --version) echo 'tesseract 5.3.0' ;;\n  \
             --list-langs) printf 'List of available languages (1):\\neng\\n' ;;\n  \
             *) cat >/dev/null; {body} ;;\nesac\n"
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn cached_files(vault: &Vault) -> usize {
    let dir = vault.state_dir().join("ocr");
    std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|d| std::fs::read_dir(d.path()).map_or(0, |f| f.count()))
        .sum()
}

#[test]
fn a_hanging_or_garbage_tesseract_is_bounded_and_refused() {
    let rel = "scans/paper.pdf";
    let (dir, vault) = vault_with(&small_scan(), rel);
    let bin = tempfile::tempdir().unwrap();
    let cases = [
        ("hangs", "sleep 600", "took longer than 5 s", 5),
        (
            "garbage",
            "head -c 4000 /dev/urandom; exit 0",
            "cannot be read",
            60,
        ),
        (
            "outside",
            "printf 'level\\tpage_num\\tblock_num\\tpar_num\\tline_num\\tword_num\\tleft\\ttop\\twidth\\theight\\tconf\\ttext\\n5\\t1\\t1\\t1\\t1\\t1\\t0\\t0\\t999999\\t10\\t90\\tx\\n'",
            "a box outside the page",
            60,
        ),
        (
            "fails",
            "echo 'Error: bad image' >&2; exit 1",
            "Error: bad image",
            60,
        ),
    ];
    for (name, body, says, secs) in cases {
        let fake = fake_tesseract(bin.path(), name, body);
        let mut o = ocr_options(&["eng"]);
        o.tesseract = fake.clone();
        o.bounds.time = Duration::from_secs(secs);
        let started = Instant::now();
        let s = index_with(&vault, o);
        let took = started.elapsed();
        let o = s.ocr.unwrap();
        assert_eq!(o.pages, 0, "{name}: {o:?}");
        assert_eq!(o.failed.len(), 1, "{name}: {o:?}");
        assert!(o.failed[0].2.contains(says), "{name}: {o:?}");
        assert!(took < Duration::from_secs(secs + 20), "{name}: {took:?}");
        assert_eq!(cached_files(&vault), 0, "{name}: nothing is cached");
        // Nothing of it is left running.
        let left = std::process::Command::new("pgrep")
            .args(["-f", &fake.display().to_string()])
            .output()
            .unwrap();
        assert!(left.stdout.is_empty(), "{name}: still running");
    }
    drop(dir);
}

#[test]
fn a_huge_scan_is_refused_within_the_bounds() {
    if !tesseract_with(&["eng"]) {
        return;
    }
    let rel = "scans/huge.pdf";
    let (_dir, vault) = vault_with(&hostile_pdf::huge_image(), rel);
    let started = Instant::now();
    let s = index_with(&vault, ocr_options(&["eng"]));
    let o = s.ocr.unwrap();
    assert_eq!(o.pages, 0, "{o:?}");
    assert_eq!(o.failed.len(), 1, "{o:?}");
    assert!(o.failed[0].2.contains("not rendered"), "{o:?}");
    assert!(started.elapsed() < Duration::from_secs(60));
}

#[test]
fn a_kill_during_ocr_loses_no_page_already_read() {
    if !tesseract_with(&["eng"]) {
        return;
    }
    let (original, page, _) = wordy_demo_page();
    let scan = scanned(&original, &[page, page, page], 150);
    let rel = "scans/three.pdf";
    let (dir, vault) = vault_with(&scan, rel);
    let root = dir.path();
    let sha = agentero::vault::fsutil::sha256_hex(&scan);
    let first = vault.state_dir().join("ocr").join(&sha).join("1.json");
    let mut child = common::command(root)
        .args(["index", "--ocr", "."])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    while !first.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(first.exists(), "page 1 was read");
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let kept = OcrCache::new(&vault)
        .get(&sha, 1)
        .expect("page 1 is kept whole");
    let stamp = std::fs::metadata(&first).unwrap().modified().unwrap();
    let out = common::agentero(&["index", "--ocr", "."], root);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert_eq!(
        std::fs::metadata(&first).unwrap().modified().unwrap(),
        stamp,
        "page 1 is not read again"
    );
    assert_eq!(OcrCache::new(&vault).get(&sha, 1).unwrap(), kept);
    for n in 1..=3 {
        assert!(
            !indexed_text(&vault, rel, n).trim().is_empty(),
            "page {n} is searchable"
        );
    }
}

#[test]
fn the_paper_pane_says_a_page_is_ocr_and_by_what() {
    if !tesseract_with(&["eng"]) {
        return;
    }
    let (original, page, _) = wordy_demo_page();
    let scan = scanned(&original, &[page], 200);
    let rel = "scans/paper.pdf";
    let (dir, vault) = vault_with(&scan, rel);
    index_with(&vault, ocr_options(&["eng"]));
    let mut h = agentero::tui::headless::Headless::open(dir.path(), 160, 48).unwrap();
    h.settle();
    h.keys("space f g g");
    let pos = h
        .app
        .browser()
        .visible()
        .position(|e| e.path == rel)
        .unwrap();
    for _ in 0..pos {
        h.keys("j");
    }
    h.keys("enter");
    h.settle();
    h.keys("Z");
    let screen = h.render();
    assert!(
        screen.contains("OCR (tesseract 5") && screen.contains(", eng) · confidence 0."),
        "{screen}"
    );
    assert!(!screen.contains("has no text layer"), "{screen}");
}
