//! Chinese, Japanese and Korean documents of the corpus (`AGENTERO_CORPUS`, rows 39–42 of its
//! MANIFEST): CJK characters recovered on every page against poppler's `pdftotext` (with
//! `poppler-data`, Adobe's CID resources, installed), the Latin words around them unchanged, and
//! CJK phrase queries taken from the reference text finding their page.

use crate::common;

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use agentero::vault::indexer::{IndexOptions, index_vault};
use agentero::vault::pdf::{Limits, extract};
use agentero::vault::{SearchOptions, Vault};

/// The four documents and the word-F1 floor of their Latin text against pdftotext (measured:
/// 0.9903, 0.9961, 0.9462, 0.9944).
const DOCUMENTS: [(&str, f64); 4] = [
    ("a-short-introduction-to-latex2e-chinese", 0.985),
    ("tlmgr-introduction-chinese", 0.99),
    ("uplatex-japanese-manual", 0.94),
    ("poorman-hangul-jamo-input-method", 0.99),
];

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x11FF | 0x3005..=0x3007 | 0x3040..=0x30FF | 0x3130..=0x318F
        | 0x31F0..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xA960..=0xA97F
        | 0xAC00..=0xD7FF | 0xF900..=0xFAFF | 0xFF66..=0xFF9F | 0x20000..=0x2FA1F)
}

fn cjk_counts(text: &str) -> HashMap<char, usize> {
    let mut out = HashMap::new();
    for c in text.chars().filter(|&c| is_cjk(c)) {
        *out.entry(c).or_insert(0) += 1;
    }
    out
}

/// Words of two or more letters or digits with no CJK character in them, lower-cased.
fn latin_words(text: &str) -> HashMap<String, usize> {
    let mut out = HashMap::new();
    for w in text.split(|c: char| !c.is_alphanumeric() || is_cjk(c)) {
        if w.chars().count() >= 2 {
            *out.entry(w.to_lowercase()).or_insert(0) += 1;
        }
    }
    out
}

fn common<K: std::hash::Hash + Eq>(a: &HashMap<K, usize>, b: &HashMap<K, usize>) -> usize {
    a.iter()
        .map(|(k, n)| (*n).min(b.get(k).copied().unwrap_or(0)))
        .sum()
}

fn f1(ours: &HashMap<String, usize>, reference: &HashMap<String, usize>) -> f64 {
    let (o, r): (usize, usize) = (ours.values().sum(), reference.values().sum());
    if o == 0 || r == 0 {
        return if o == r { 1.0 } else { 0.0 };
    }
    let c = common(ours, reference) as f64;
    let (p, r) = (c / o as f64, c / r as f64);
    if p + r == 0.0 {
        0.0
    } else {
        2.0 * p * r / (p + r)
    }
}

/// pdftotext's pages of `path`.
fn reference_pages(path: &Path) -> Vec<String> {
    let text = common::pdftotext(path);
    let mut pages: Vec<String> = text.split('\u{c}').map(str::to_string).collect();
    if pages.last().is_some_and(|p| p.trim().is_empty()) {
        pages.pop();
    }
    pages
}

fn our_pages(path: &Path) -> Vec<String> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let limits = Limits {
        deadline: Instant::now() + Duration::from_secs(120),
    };
    let doc = extract(&bytes, limits).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        doc.undecodable_pages.is_empty(),
        "{}: pages reported undecodable: {:?}",
        path.display(),
        doc.undecodable_pages
    );
    doc.pages.into_iter().map(|p| p.text).collect()
}

#[test]
fn cjk_characters_match_pdftotext_on_every_page() {
    let Some(root) = common::corpus() else {
        return;
    };
    let mut failures = Vec::new();
    for (slug, floor) in DOCUMENTS {
        let path = root.join("papers").join(slug).join("paper.pdf");
        let reference = reference_pages(&path);
        let ours = our_pages(&path);
        assert_eq!(ours.len(), reference.len(), "{slug}: page count");
        let total_ref: usize = reference.iter().map(|p| cjk_counts(p).len()).sum();
        assert!(
            total_ref > 100,
            "{slug}: pdftotext finds almost no CJK text; is poppler-data installed?"
        );
        let (mut worst_recall, mut worst_precision) = (1.0f64, 1.0f64);
        let mut chars = (0usize, 0usize);
        for (i, (r, o)) in reference.iter().zip(&ours).enumerate() {
            let (rc, oc) = (cjk_counts(r), cjk_counts(o));
            let (nr, no): (usize, usize) = (rc.values().sum(), oc.values().sum());
            let c = common(&rc, &oc);
            chars.0 += nr;
            chars.1 += c;
            let recall = if nr == 0 { 1.0 } else { c as f64 / nr as f64 };
            let precision = if no == 0 { 1.0 } else { c as f64 / no as f64 };
            worst_recall = worst_recall.min(recall);
            worst_precision = worst_precision.min(precision);
            if recall < 0.98 || precision < 0.98 {
                failures.push(format!(
                    "{slug} page {}: CJK recall {recall:.3}, precision {precision:.3} ({nr} in the reference, {no} ours)",
                    i + 1
                ));
            }
        }
        let latin = f1(
            &latin_words(&ours.join("\n")),
            &latin_words(&reference.join("\n")),
        );
        println!(
            "{slug:<45} pages {:>4}  CJK chars {:>6} (recovered {:>6})  worst page recall {worst_recall:.3} precision {worst_precision:.3}  Latin word-F1 {latin:.4}",
            reference.len(),
            chars.0,
            chars.1
        );
        if latin < floor {
            failures.push(format!("{slug}: Latin word-F1 {latin:.4} below {floor}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A run of CJK text on `page` that is found on no other page of the same document: up to `max`
/// characters from the page's longest runs, at least three.
fn unique_phrase(pages: &[String], page: usize, max: usize) -> Option<String> {
    let mut runs: Vec<Vec<char>> = Vec::new();
    let mut cur: Vec<char> = Vec::new();
    for c in pages[page].chars() {
        if is_cjk(c) {
            cur.push(c);
        } else if !cur.is_empty() {
            runs.push(std::mem::take(&mut cur));
        }
    }
    runs.push(cur);
    runs.sort_by_key(|r| std::cmp::Reverse(r.len()));
    for run in runs.iter().filter(|r| r.len() >= 3) {
        let len = run.len().min(max);
        for start in 0..=run.len() - len {
            let phrase: String = run[start..start + len].iter().collect();
            let elsewhere = pages
                .iter()
                .enumerate()
                .any(|(i, p)| i != page && p.contains(&phrase));
            let here = pages[page].matches(&phrase).count();
            if !elsewhere && here == 1 {
                return Some(phrase);
            }
        }
    }
    None
}

#[test]
fn cjk_phrase_queries_find_their_page() {
    let Some(root) = common::corpus() else {
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    common::copy_tree(&root, tmp.path());
    let vault = Vault::open(tmp.path()).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let index = vault.open_index().unwrap();

    let mut queries: Vec<(String, String, u32)> = Vec::new();
    for (slug, _) in DOCUMENTS {
        let reference = reference_pages(&root.join("papers").join(slug).join("paper.pdf"));
        // Five pages spread over the document, among those with real CJK text.
        let candidates: Vec<usize> = (0..reference.len())
            .filter(|&i| cjk_counts(&reference[i]).values().sum::<usize>() >= 60)
            .collect();
        assert!(candidates.len() >= 5, "{slug}: too few CJK pages");
        let mut picked = 0;
        for k in 0..5 {
            let slice = &candidates[k * candidates.len() / 5..(k + 1) * candidates.len() / 5];
            if let Some((page, phrase)) = slice
                .iter()
                .find_map(|&p| unique_phrase(&reference, p, 6).map(|ph| (p, ph)))
            {
                queries.push((phrase, slug.to_string(), page as u32 + 1));
                picked += 1;
            }
        }
        assert_eq!(picked, 5, "{slug}: five pages with a phrase of their own");
    }
    assert_eq!(queries.len(), 20);

    let opts = SearchOptions {
        limit: 3,
        ..SearchOptions::default()
    };
    let mut misses = Vec::new();
    let mut first = 0;
    for (phrase, slug, page) in &queries {
        let cards = index.search(phrase, &opts).unwrap();
        let rank = cards
            .iter()
            .position(|c| c.path == format!("papers/{slug}/paper.pdf") && c.page == Some(*page));
        match rank {
            Some(0) => first += 1,
            Some(_) => {}
            None => misses.push(format!(
                "{phrase:?} (page {page} of {slug}) not in the top 3: {:?}",
                cards
                    .iter()
                    .map(|c| (c.path.as_str(), c.page))
                    .collect::<Vec<_>>()
            )),
        }
        // The excerpt highlights the phrase as one word.
        if let Some(card) = cards.first()
            && rank == Some(0)
        {
            assert!(
                card.excerpt.contains(&format!("**{phrase}**")),
                "{phrase:?}: {}",
                card.excerpt
            );
        }
    }
    println!("CJK phrase queries: {first} of 20 at rank 1");
    assert!(misses.is_empty(), "{}", misses.join("\n"));
    assert!(
        first >= 18,
        "only {first} of 20 CJK phrases found at rank 1"
    );

    // A question names words of a page without the text in between, and without spaces: the
    // page still comes first by the words it shares with the question.
    for (phrase, slug, page) in queries.iter().step_by(5) {
        let reference = reference_pages(&root.join("papers").join(slug).join("paper.pdf"));
        let head: String = phrase.chars().take(3).collect();
        let other = reference[*page as usize - 1]
            .split(|c: char| !is_cjk(c))
            .filter(|run| run.chars().count() >= 3 && !run.contains(&head))
            .map(|run| run.chars().take(3).collect::<String>())
            .max_by_key(|w| reference.iter().filter(|p| !p.contains(w.as_str())).count())
            .expect("a second word on the page");
        let question = format!("{head}{other}吗");
        let cards = index.search(&question, &opts).unwrap();
        assert!(
            cards
                .iter()
                .any(|c| c.path == format!("papers/{slug}/paper.pdf") && c.page == Some(*page)),
            "{question:?} (page {page} of {slug}): {:?}",
            cards
                .iter()
                .map(|c| (c.path.as_str(), c.page))
                .collect::<Vec<_>>()
        );
    }
}
