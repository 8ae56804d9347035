//! Verified citations for any agent. A scripted ACP agent (`tests/peers/scripted_agent.py`, a
//! real process) answers through the real `agentero ask` with a correct quote, a quote from
//! another page, an invented quote, a `[n]` marker and a bare citation: `ask` says ✓ / ⚠ with
//! the right page / ⚠ not found / · no quote, `--json` carries the verdicts, the transcript keeps
//! them. On the corpus (AGENTERO_CORPUS), a labelled set of quotes taken with another extractor
//! (pdftotext) and altered on purpose measures the verifier's precision and recall.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agentero::acp::transcript::{Line, Thread};
use agentero::context::citations::{self, CitationCheck, VaultDocs, Verdict};
use agentero::vault::Vault;
use agentero::vault::indexer::{IndexOptions, index_vault};
use serde_json::Value;

const PAPER: &str = "papers/halvorsen2009-passages/paper.pdf";

fn peer() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers/scripted_agent.py")
}

/// The page of `PAPER` whose text holds `words`.
fn page_with(vault: &Vault, words: &str) -> u32 {
    let index = vault.open_index().unwrap();
    let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    (1..=20)
        .find(|p| {
            index
                .page(PAPER, *p)
                .unwrap()
                .is_some_and(|d| flat(&d.text).contains(words))
        })
        .unwrap_or_else(|| panic!("no page of {PAPER} has {words:?}"))
}

fn ask(root: &Path, json: bool) -> std::process::Output {
    let mut cmd = common::command(root);
    cmd.args(["ask", "--config"]).arg(root.join("agents.toml"));
    if json {
        cmd.arg("--json");
    }
    cmd.arg(format!("What window size do they use? @{PAPER}"));
    common::output_within(cmd, Duration::from_secs(120))
}

#[test]
fn ask_checks_every_quote_of_any_agent_against_the_page_it_cites() {
    let dir = common::demo_vault();
    let root = dir.path();
    let vault = Vault::open(root).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let here = page_with(&vault, "We use W = 150 and S = 75");
    let there = page_with(&vault, "Windows of 50 words reach a MAP of 0.251");
    assert_ne!(here, there, "the two quotes are on different pages");
    let answer = format!(
        "They use 150-word windows:\n\n\
         > \"We use W = 150 and S = 75, so every sentence appears in two windows\" — {PAPER}#page={here}\n\n\
         Smaller windows do worse: \"Windows of 50 words reach a MAP of 0.251\" ({PAPER}#page={here}).\n\n\
         And \"windows of 1,000 words reach a MAP of 0.412 on every collection\" [1].\n\n\
         See also {PAPER}#page={there}.\n\n\
         [1] {PAPER}#page={there}\n"
    );
    let script = root.join(".agentero-test-answer.md");
    std::fs::write(&script, &answer).unwrap();
    std::fs::write(
        root.join("agents.toml"),
        format!(
            "default_agent = \"scripted\"\n[agents.scripted]\ncommand = \"python3\"\nargs = [{:?}]\nremote = true\nenv = {{ SCRIPTED_ANSWER = {:?} }}\n",
            peer().display().to_string(),
            script.display().to_string(),
        ),
    )
    .unwrap();

    let out = ask(root, true);
    assert!(out.status.success(), "{}", common::stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let checks: Vec<CitationCheck> = serde_json::from_value(v["citations"].clone()).unwrap();
    let got: Vec<(Verdict, Option<String>)> = checks
        .iter()
        .map(|c| (c.verdict, c.found_at.clone()))
        .collect();
    assert_eq!(
        got,
        vec![
            (Verdict::Verified, None),
            (Verdict::OtherPage, Some(format!("{PAPER}#page={there}"))),
            (Verdict::NotFound, None),
            (Verdict::NoQuote, None),
        ],
        "{v}"
    );
    assert_eq!(
        checks[2].uri,
        format!("{PAPER}#page={there}"),
        "[1] is resolved through the answer's reference list"
    );
    // Cited: what the answer names; consulted: what it was given but did not cite.
    let cited: Vec<&str> = v["cited"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u.as_str().unwrap())
        .collect();
    assert_eq!(
        cited,
        vec![
            format!("{PAPER}#page={here}").as_str(),
            format!("{PAPER}#page={there}").as_str()
        ]
    );

    // The transcript keeps the verdicts: a restored thread has them.
    let thread = Thread::open(&vault, v["threadId"].as_str().unwrap()).unwrap();
    let kept = thread.lines.iter().find_map(|l| match l {
        Line::Citations { checks, .. } => Some(checks.clone()),
        _ => None,
    });
    assert_eq!(kept.as_ref(), Some(&checks));

    // Text mode: one line per citation, with its mark.
    let out = ask(root, false);
    let text = common::stdout(&out);
    let lines: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "Citations:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(lines.len(), 4, "{text}");
    assert!(lines[0].trim_start().starts_with("✓") && lines[0].ends_with("verified"));
    assert!(
        lines[1].trim_start().starts_with("⚠")
            && lines[1].contains(&format!("not found on that page; on p.{there}"))
            && lines[1].contains(&format!("→ {PAPER}#page={there}")),
        "{}",
        lines[1]
    );
    assert!(lines[2].trim_start().starts_with("⚠") && lines[2].contains("not found"));
    assert!(lines[3].trim_start().starts_with("·") && lines[3].ends_with("no quote"));
}

/// A labelled quote: the text, the page it is cited to, and the verdict it deserves.
struct Labelled {
    paper: String,
    quote: String,
    cited: u32,
    want: Verdict,
    found_on: Option<u32>,
}

/// Two consecutive prose lines of a pdftotext page, unique in the paper.
fn prose_quotes(pdf: &Path, page: u32, whole: &str) -> Vec<String> {
    let Ok(out) = Command::new("pdftotext")
        .args([
            "-enc",
            "UTF-8",
            "-f",
            &page.to_string(),
            "-l",
            &page.to_string(),
        ])
        .arg(pdf)
        .arg("-")
        .output()
    else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    lines
        .windows(2)
        .step_by(3)
        .map(|w| format!("{}\n{}", w[0], w[1]))
        .filter(|q| {
            let letters = q.chars().filter(|c| c.is_alphabetic()).count();
            q.len() > 80
                && q.len() < 260
                && letters * 10 > q.len() * 7
                && q.split_whitespace().count() > 10
                && whole.matches(&common::reduce(q)).count() == 1
                // A glyph pdftotext could not decode (U+001C for the lps sample's "fi") is
                // not what the page says: such a line is no true quote under strict checking.
                && !q.chars().any(|c| c.is_control() && c != '\n')
        })
        .take(3)
        .collect()
}

/// The quote with one digit changed, or `None` when it has none.
fn change_a_number(q: &str) -> Option<String> {
    let (i, c) = q.char_indices().find(|(_, c)| c.is_ascii_digit())?;
    let d = ((c as u8 - b'0' + 3) % 10 + b'0') as char;
    Some(format!("{}{d}{}", &q[..i], &q[i + 1..]))
}

/// The quote with its longest word replaced.
fn change_a_word(q: &str) -> String {
    let longest = q
        .split_whitespace()
        .filter(|w| w.chars().all(char::is_alphabetic))
        .max_by_key(|w| w.len())
        .unwrap_or("the");
    q.replacen(longest, "marmalade", 1)
}

/// The quote with its middle words left out ("… ").
fn elide(q: &str) -> String {
    let words: Vec<&str> = q.split_whitespace().collect();
    let n = words.len();
    format!(
        "{} … {}",
        words[..n / 3].join(" "),
        words[2 * n / 3..].join(" ")
    )
}

const INVENTED: &[&str] = &[
    "The authors report that the method doubles recall on every benchmark they tried",
    "All figures must be submitted as bitmap images with a resolution of 72 DPI",
    "This class was written in 1987 for the Journal of Imaginary Results",
];

#[test]
fn corpus_labelled_quotes_precision_and_recall() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(&corpus, dir.path());
    let vault = Vault::open(dir.path()).unwrap();
    index_vault(&vault, &IndexOptions::default(), &mut |_| {}).unwrap();
    let papers = common::indexed_papers(&vault, 2);
    let mut set: Vec<Labelled> = Vec::new();
    for (paper, pages) in &papers {
        let pdf = vault.root().join(paper);
        let whole = common::pdftotext_reduced(&pdf).unwrap_or_default();
        for page in 1..=(*pages).min(6) {
            for q in prose_quotes(&pdf, page, &whole) {
                let other = if page > 1 { page - 1 } else { page + 1 };
                let item = |quote: String, cited: u32, want, found_on| Labelled {
                    paper: paper.clone(),
                    quote,
                    cited,
                    want,
                    found_on,
                };
                set.push(item(q.clone(), page, Verdict::Verified, None));
                set.push(item(elide(&q), page, Verdict::Verified, None));
                set.push(item(q.clone(), other, Verdict::OtherPage, Some(page)));
                set.push(item(change_a_word(&q), page, Verdict::NotFound, None));
                if let Some(changed) = change_a_number(&q) {
                    set.push(item(changed, page, Verdict::NotFound, None));
                }
            }
        }
        for inv in INVENTED {
            set.push(Labelled {
                paper: paper.clone(),
                quote: inv.to_string(),
                cited: 1,
                want: Verdict::NotFound,
                found_on: None,
            });
        }
    }
    let positives = set.iter().filter(|l| l.want == Verdict::Verified).count();
    assert!(
        positives >= 60,
        "the labelled set has {positives} true quotes"
    );
    let mut docs = VaultDocs::new(&vault);
    let (mut tp, mut fp, mut fne, mut right_page, mut wrong_page_total) = (0, 0, 0, 0, 0);
    let mut misses = Vec::new();
    for l in &set {
        // Each quote as an agent would write it: quoted, its citation beside it.
        let answer = format!(
            "> \"{}\" — {}#page={}\n",
            l.quote.replace('\n', " "),
            l.paper,
            l.cited
        );
        let got = citations::check(&answer, &[], &mut docs);
        let c = got.first().expect("one citation");
        match (l.want == Verdict::Verified, c.verdict == Verdict::Verified) {
            (true, true) => tp += 1,
            (false, true) => {
                fp += 1;
                misses.push(format!(
                    "false ✓ {:?} {}#page={}",
                    l.quote, l.paper, l.cited
                ));
            }
            (true, false) => {
                fne += 1;
                misses.push(format!(
                    "missed {:?} {}#page={} ({:?})",
                    l.quote, l.paper, l.cited, c.verdict
                ));
            }
            (false, false) => {}
        }
        if l.want == Verdict::OtherPage {
            wrong_page_total += 1;
            let at = l.found_on.map(|p| format!("{}#page={p}", l.paper));
            if c.verdict == Verdict::OtherPage && c.found_at == at {
                right_page += 1;
            }
        }
    }
    let precision = tp as f64 / (tp + fp).max(1) as f64;
    let recall = tp as f64 / (tp + fne).max(1) as f64;
    let pages = right_page as f64 / wrong_page_total.max(1) as f64;
    eprintln!(
        "verifier on {} labelled quotes ({positives} true): precision {precision:.3}, recall {recall:.3}, \
         wrong page named right {pages:.3} ({right_page}/{wrong_page_total})",
        set.len()
    );
    for m in misses.iter().take(30) {
        eprintln!("  {m}");
    }
    assert!(precision >= 0.99, "precision {precision:.3}");
    assert!(recall >= 0.95, "recall {recall:.3}");
    assert!(
        pages >= 0.95,
        "the page a misplaced quote is on: {pages:.3}"
    );
}

/// A planted citation: an answer as an agent would write it, and the verdict it deserves.
struct Planted {
    class: &'static str,
    answer: String,
    want: Verdict,
    /// Where an `other_page` verdict must say the quote is.
    found_at: Option<String>,
}

/// A fixed-seed generator (the set is the same on every run).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// The pages of a PDF per pdftotext (the other extractor), page 1 first.
fn pdftotext_pages(pdf: &Path) -> Vec<String> {
    let Ok(out) = Command::new("pdftotext")
        .args(["-enc", "UTF-8"])
        .arg(pdf)
        .arg("-")
        .output()
    else {
        return Vec::new();
    };
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut pages: Vec<String> = text.split('\u{c}').map(str::to_string).collect();
    if pages.last().is_some_and(|p| p.trim().is_empty()) {
        pages.pop();
    }
    pages
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x4E00..=0x9FFF)
}

/// A line of running prose: long, mostly letters, not a margin number or a code listing.
fn prose_line(l: &str) -> bool {
    let letters = l.chars().filter(|c| c.is_alphabetic()).count();
    let first_is_number = l
        .split_whitespace()
        .next()
        .is_some_and(|w| w.chars().all(|c| c.is_ascii_digit()));
    l.len() > 40
        && letters * 10 > l.len() * 7
        && l.split_whitespace().count() >= 6
        && !first_is_number
        && !l.contains('\\')
        && !l.chars().any(|c| is_cjk(c) || c.is_control())
}

/// A line of prose with numbers, signs and operators as an agent would quote it: only
/// letters, digits, spaces and the usual punctuation and signs (no formula set in math
/// fonts, whose symbols two extractors order and map differently; no dot leaders).
fn prose_with_numbers(l: &str) -> bool {
    let letters = l.chars().filter(|c| c.is_alphabetic()).count();
    l.len() >= 30
        && letters * 10 > l.len() * 6
        && !l.contains(". .")
        && l.chars().all(|c| {
            c.is_ascii_alphanumeric() || c == ' ' || ",.;:!?()[]'/%+=<>-–—−≤≥±“”’‘\"".contains(c)
        })
}

/// Two consecutive prose lines of `page`, unique in the paper (`whole`, reduced).
fn prose_pairs(page: &str, whole: &str) -> Vec<String> {
    let lines: Vec<&str> = page.lines().map(str::trim).collect();
    lines
        .windows(2)
        .filter(|w| prose_line(w[0]) && prose_line(w[1]))
        .map(|w| format!("{} {}", w[0], w[1]))
        .filter(|q| q.len() < 260 && whole.matches(&common::reduce(q)).count() == 1)
        .collect()
}

const ANTONYMS: &[(&str, &str)] = &[
    (" increases ", " decreases "),
    (" decreases ", " increases "),
    (" more ", " less "),
    (" larger ", " smaller "),
    (" smaller ", " larger "),
    (" first ", " last "),
    (" before ", " after "),
    (" after ", " before "),
    (" above ", " below "),
    (" below ", " above "),
    (" left ", " right "),
    (" right ", " left "),
    (" higher ", " lower "),
    (" always ", " never "),
    (" with ", " without "),
    (" same ", " different "),
    (" top ", " bottom "),
    (" must ", " may "),
    (" all ", " some "),
    (" new ", " old "),
    (" long ", " short "),
];

const NEGATABLE: &[&str] = &[
    " is ", " are ", " can ", " will ", " should ", " must ", " does ", " was ",
];

/// The quote with one change a reader would call a different claim, by class.
fn altered(class: &str, q: &str, rng: &mut Lcg) -> Option<String> {
    match class {
        "one word changed" => {
            let words: Vec<&str> = q
                .split_whitespace()
                .filter(|w| w.len() >= 5 && w.chars().all(char::is_alphabetic))
                .collect();
            let w = words.get(rng.next(words.len()))?;
            let replacement = ["method", "garden", "theory", "window", "signal"]
                .into_iter()
                .find(|r| !w.eq_ignore_ascii_case(r))?;
            Some(q.replacen(w, replacement, 1))
        }
        "one letter changed" => {
            let (i, c) = q
                .char_indices()
                .filter(|(_, c)| c.is_ascii_lowercase())
                .nth(q.len() / 3)?;
            let d = if c == 'e' { 'a' } else { 'e' };
            Some(format!("{}{d}{}", &q[..i], &q[i + 1..]))
        }
        "one number changed" => change_a_number(q),
        "antonym" => ANTONYMS
            .iter()
            .find(|(a, _)| q.contains(a))
            .map(|(a, b)| q.replacen(a, b, 1)),
        "inserted not" => NEGATABLE
            .iter()
            .find(|w| q.contains(*w))
            .map(|w| q.replacen(w, &format!("{}not ", w.trim_end()), 1)),
        _ => None,
    }
}

/// A quote as an agent writes it, in one of the usual forms, cited to `uri`.
fn answer(q: &str, uri: &str, form: usize) -> String {
    match form % 3 {
        0 => format!("> \"{q}\" — {uri}\n"),
        1 => format!("As the paper puts it, \"{q}\" ({uri}).\n"),
        _ => format!("The paper says: “{q}” [1].\n\n[1] {uri}\n"),
    }
}

/// Signs and operators to alter: (what to find, what it becomes, the class).
const SIGNS: &[(&str, &str, &str)] = &[
    ("−", "", "dropped minus"),
    (" < ", " > ", "reversed comparison"),
    (" > ", " < ", "reversed comparison"),
    ("≤", "≥", "reversed comparison"),
    ("≥", "≤", "reversed comparison"),
    ("%", "", "dropped percent"),
];

/// Moves the first decimal point of `q` one digit right (`45.6` → `456.`-less `4.56`).
fn move_decimal_point(q: &str) -> Option<String> {
    let b = q.as_bytes();
    let i = (1..b.len().saturating_sub(2)).find(|&i| {
        b[i] == b'.'
            && b[i - 1].is_ascii_digit()
            && b[i + 1].is_ascii_digit()
            && b[i + 2].is_ascii_digit()
    })?;
    let mut out = q.to_string();
    out.replace_range(i..i + 2, &format!("{}.", b[i + 1] as char));
    Some(out)
}

/// Planted quotes over the PDFs in `vault` (pdftotext's text, altered by class).
fn plant_papers(vault: &Vault, rng: &mut Lcg) -> Vec<Planted> {
    let mut set = Vec::new();
    let mut papers: Vec<(String, Vec<String>)> = Vec::new();
    for e in std::fs::read_dir(vault.root().join("papers"))
        .unwrap()
        .flatten()
    {
        let rel = format!("papers/{}/paper.pdf", e.file_name().to_string_lossy());
        let pages = pdftotext_pages(&vault.root().join(&rel));
        if pages.iter().any(|p| p.trim().len() > 200) {
            papers.push((rel, pages));
        }
    }
    papers.sort();
    let n_papers = papers.len();
    for (k, (paper, pages)) in papers.iter().enumerate() {
        let whole = common::reduce(&pages.join("\n"));
        let uri = |p: usize| format!("{paper}#page={p}");
        let cited_pages = pages.len().min(8);
        let mut rights: Vec<(usize, String)> = Vec::new();
        for p in 1..=cited_pages {
            let pairs = prose_pairs(&pages[p - 1], &whole);
            for _ in 0..2.min(pairs.len()) {
                rights.push((p, pairs[rng.next(pairs.len())].clone()));
            }
        }
        rights.sort();
        rights.dedup();
        rights.truncate(8);
        for (i, (p, q)) in rights.iter().enumerate() {
            let plant = |class, answer, want, found_at| Planted {
                class,
                answer,
                want,
                found_at,
            };
            set.push(plant(
                "right",
                answer(q, &uri(*p), i),
                Verdict::Verified,
                None,
            ));
            if i % 2 == 0 {
                set.push(plant(
                    "elision in order",
                    answer(&elide(q), &uri(*p), i + 1),
                    Verdict::Verified,
                    None,
                ));
                let other = if *p > 1 { p - 1 } else { p + 1 };
                if other <= pages.len() {
                    set.push(plant(
                        "other page",
                        answer(q, &uri(other), i + 2),
                        Verdict::OtherPage,
                        Some(uri(*p)),
                    ));
                }
            }
            for class in [
                "one word changed",
                "one letter changed",
                "one number changed",
                "antonym",
                "inserted not",
            ] {
                if let Some(a) = altered(class, q, rng) {
                    set.push(plant(
                        class,
                        answer(&a, &uri(*p), i),
                        Verdict::NotFound,
                        None,
                    ));
                }
            }
            // The same quote cited to another paper.
            let (other, other_pages) = &papers[(k + 1) % n_papers];
            if i == 0 && !common::reduce(&other_pages.join("\n")).contains(&common::reduce(q)) {
                set.push(plant(
                    "wrong paper",
                    answer(q, &format!("{other}#page=1"), i),
                    Verdict::NotFound,
                    None,
                ));
            }
        }
        // Two halves of quotes from pages far apart, stitched with an elision.
        if let (Some(a), Some(b)) = (
            rights.first(),
            rights.iter().find(|r| r.0 >= rights[0].0 + 3),
        ) {
            let wa: Vec<&str> = a.1.split_whitespace().collect();
            let wb: Vec<&str> = b.1.split_whitespace().collect();
            let q = format!(
                "{} … {}",
                wa[..wa.len() / 2].join(" "),
                wb[wb.len() / 2..].join(" ")
            );
            set.push(Planted {
                class: "elision across far pages",
                answer: answer(&q, &uri(a.0), k),
                want: Verdict::NotFound,
                found_at: None,
            });
        }
        // A quote across a page break: the last prose line of a page and the first of the next.
        for p in 1..cited_pages {
            let last = pages[p - 1].lines().map(str::trim).rfind(|l| !l.is_empty());
            let first = pages[p].lines().map(str::trim).find(|l| !l.is_empty());
            if let (Some(a), Some(b)) = (last, first)
                && prose_line(a)
                && prose_line(b)
            {
                let q = format!("{a} {b}");
                set.push(Planted {
                    class: "page break",
                    answer: answer(&q, &uri(p), p),
                    want: Verdict::Verified,
                    found_at: None,
                });
            }
        }
        for inv in INVENTED {
            set.push(Planted {
                class: "invented",
                answer: answer(inv, &uri(1), k),
                want: Verdict::NotFound,
                found_at: None,
            });
        }
        // Numbers, signs and operators: the line as printed, then altered.
        let mut numbered = 0;
        for p in 1..=cited_pages {
            let lines: Vec<&str> = pages[p - 1].lines().map(str::trim).collect();
            for (j, l) in lines.iter().enumerate() {
                let Some(next) = lines.get(j + 1).filter(|n| prose_with_numbers(n)) else {
                    continue;
                };
                if !prose_with_numbers(l) || numbered >= 6 {
                    continue;
                }
                let q = format!("{l} {next}");
                if whole.matches(&common::reduce(&q)).count() != 1 {
                    continue;
                }
                let mut edits: Vec<(String, &'static str)> = SIGNS
                    .iter()
                    .filter(|(from, _, _)| q.contains(from))
                    .map(|(from, to, class)| (q.replacen(from, to, 1), *class))
                    .collect();
                if let Some(moved) = move_decimal_point(&q) {
                    edits.push((moved, "decimal point moved"));
                }
                if edits.is_empty() {
                    continue;
                }
                numbered += 1;
                set.push(Planted {
                    class: "numbers as printed",
                    answer: answer(&q, &uri(p), j),
                    want: Verdict::Verified,
                    found_at: None,
                });
                for (a, class) in edits.into_iter().take(2) {
                    set.push(Planted {
                        class,
                        answer: answer(&a, &uri(p), j),
                        want: Verdict::NotFound,
                        found_at: None,
                    });
                }
            }
        }
    }
    set
}

/// Planted quotes in Chinese and Japanese, from the CJK papers of `vault`: right, one
/// character changed, cited to another page.
fn plant_cjk(vault: &Vault, rng: &mut Lcg) -> Vec<Planted> {
    let mut set = Vec::new();
    for slug in [
        "a-short-introduction-to-latex2e-chinese",
        "tlmgr-introduction-chinese",
        "uplatex-japanese-manual",
        "proposal-for-offering-tex-courses-and-relevant-resources-in",
    ] {
        let paper = format!("papers/{slug}/paper.pdf");
        let pages = pdftotext_pages(&vault.root().join(&paper));
        let whole = common::reduce(&pages.join("\n"));
        let mut found = 0;
        for p in 2..=pages.len().min(14) {
            let lines: Vec<&str> = pages[p - 1]
                .lines()
                .map(str::trim)
                .filter(|l| {
                    l.chars().filter(|&c| is_cjk(c)).count() >= 14
                        && !l.contains(". .")
                        && !l.contains('\\')
                        && !l.chars().any(char::is_control)
                })
                .collect();
            let Some(line) = lines.get(rng.next(lines.len())) else {
                continue;
            };
            if whole.matches(&common::reduce(line)).count() != 1 {
                continue;
            }
            let uri = |p: usize| format!("{paper}#page={p}");
            let cite = |q: &str, p: usize, form: usize| match form % 3 {
                0 => format!("文中写道：「{q}」（{}）\n", uri(p)),
                1 => format!("> 『{q}』 — {}\n", uri(p)),
                _ => format!("“{q}” [1]\n\n[1] {}\n", uri(p)),
            };
            set.push(Planted {
                class: "CJK right",
                answer: cite(line, p, found),
                want: Verdict::Verified,
                found_at: None,
            });
            // One character changed, in the middle.
            let chars: Vec<char> = line.chars().collect();
            if let Some(i) = (chars.len() / 2..chars.len()).find(|&i| is_cjk(chars[i])) {
                let mut wrong = chars.clone();
                wrong[i] = if chars[i] == '不' { '是' } else { '不' };
                let wrong: String = wrong.into_iter().collect();
                set.push(Planted {
                    class: "CJK wrong",
                    answer: cite(&wrong, p, found + 1),
                    want: Verdict::NotFound,
                    found_at: None,
                });
            }
            set.push(Planted {
                class: "CJK other page",
                answer: cite(line, p - 1, found + 2),
                want: Verdict::OtherPage,
                found_at: Some(uri(p)),
            });
            found += 1;
            if found >= 4 {
                break;
            }
        }
    }
    set
}

/// Planted quotes of the vault's notes, cited by `#line=`: right, another line, altered.
fn plant_notes(vault: &Vault, rng: &mut Lcg) -> Vec<Planted> {
    let mut set = Vec::new();
    let mut notes: Vec<PathBuf> = std::fs::read_dir(vault.root().join("notes"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    notes.sort();
    for note in notes {
        let rel = format!("notes/{}", note.file_name().unwrap().to_string_lossy());
        let text = std::fs::read_to_string(&note).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            let q = l.trim().trim_start_matches(['>', '-', '*', ' ']).trim();
            if q.len() < 40 || q.split_whitespace().count() < 6 || q.contains(['[', '"', '`']) {
                continue;
            }
            if text.matches(q).count() != 1 {
                continue;
            }
            let n = i + 1;
            let uri = |a: usize| format!("{rel}#line={a},{a}");
            set.push(Planted {
                class: "note lines",
                answer: answer(q, &uri(n), n),
                want: Verdict::Verified,
                found_at: None,
            });
            let away = if n > 3 { n - 3 } else { n + 3 };
            set.push(Planted {
                class: "note other lines",
                answer: answer(q, &uri(away), n + 1),
                want: Verdict::OtherPage,
                found_at: Some(uri(n)),
            });
            if let Some(a) = altered("one word changed", q, rng) {
                set.push(Planted {
                    class: "note altered",
                    answer: answer(&a, &uri(n), n),
                    want: Verdict::NotFound,
                    found_at: None,
                });
            }
        }
    }
    set
}

/// Hand edits of signs and operators where the corpus prints them: (paper, the line holding
/// it, what to change, into what, the class).
const BY_HAND: &[(&str, &str, &str, &str, &str)] = &[
    (
        "sample-paper-for-the-aomart-class",
        "we write (q, n) ≤ (p, n) if q ≤ p",
        "(q, n) ≤",
        "(q, n) ≥",
        "reversed comparison",
    ),
    (
        "sample-paper-for-the-aomart-class",
        "for some e > 0",
        "e > 0",
        "e < 0",
        "reversed comparison",
    ),
    (
        "sample-paper-for-the-aomart-class",
        "for |z| > 1 − 2a",
        "|z| >",
        "|z| <",
        "reversed comparison",
    ),
    (
        "sample-paper-for-the-aomart-class",
        "for |z| > 1 − 2a",
        "1 − 2a",
        "1 2a",
        "dropped minus",
    ),
    (
        "long-title-template-and-instructions-to-the-authors",
        "imaginary unit (i = −1)",
        "−1",
        "1",
        "dropped minus",
    ),
    (
        "long-title-template-and-instructions-to-the-authors",
        "imaginary unit (i = −1)",
        "−1",
        "+1",
        "sign changed",
    ),
    (
        "proposal-for-offering-tex-courses-and-relevant-resources-in",
        "其中 73% 的",
        "73%",
        "7.3%",
        "decimal point moved",
    ),
    (
        "proposal-for-offering-tex-courses-and-relevant-resources-in",
        "其中 73% 的",
        "73%",
        "73",
        "dropped percent",
    ),
];

/// The hand edits, with the line as printed (a true quote) beside each.
fn plant_by_hand(vault: &Vault) -> Vec<Planted> {
    let mut set = Vec::new();
    for (slug, needle, from, to, class) in BY_HAND {
        let paper = format!("papers/{slug}/paper.pdf");
        let pages = pdftotext_pages(&vault.root().join(&paper));
        let found = pages.iter().enumerate().find_map(|(i, p)| {
            p.lines()
                .find(|l| l.contains(needle))
                .map(|l| (i + 1, l.trim().to_string()))
        });
        let (p, line) = found.unwrap_or_else(|| panic!("{paper} prints {needle:?}"));
        let uri = format!("{paper}#page={p}");
        set.push(Planted {
            class: "signs as printed",
            answer: answer(&line, &uri, set.len()),
            want: Verdict::Verified,
            found_at: None,
        });
        set.push(Planted {
            class,
            answer: answer(&line.replacen(from, to, 1), &uri, set.len()),
            want: Verdict::NotFound,
            found_at: None,
        });
    }
    set
}

/// `[n]` markers resolved through the answer's own reference list, to the right page and to
/// another one.
fn plant_markers(set: &[Planted]) -> Vec<Planted> {
    let mut out = Vec::new();
    for pl in set.iter().filter(|p| p.class == "right").step_by(4) {
        // The quote and its URI, from the blockquote or inline forms.
        let Some((q, uri)) = pl.answer.split_once('"').and_then(|(_, rest)| {
            let (q, tail) = rest.rsplit_once('"')?;
            let uri = tail
                .trim_start_matches([' ', '—', '('])
                .split([')', '\n'])
                .next()?;
            Some((q.to_string(), uri.trim().to_string()))
        }) else {
            continue;
        };
        let Some((path, page)) = uri.split_once("#page=") else {
            continue;
        };
        let page: u32 = page.parse().unwrap();
        out.push(Planted {
            class: "[n] reference list",
            answer: format!("First, \"{q}\" [2].\n\n[1] {path}#page=1\n[2] {uri}\n"),
            want: Verdict::Verified,
            found_at: None,
        });
        let other = if page > 1 { page - 1 } else { page + 1 };
        out.push(Planted {
            class: "[n] to another page",
            answer: format!("Then \"{q}\" [1].\n\n[1] {path}#page={other}\n"),
            want: Verdict::OtherPage,
            found_at: Some(uri.clone()),
        });
    }
    out
}

/// Per class: (planted, ✓ given, ✓ deserved and given, exact verdict).
type Tally = std::collections::BTreeMap<&'static str, (usize, usize, usize, usize)>;

#[test]
fn planted_citations_never_get_a_wrong_check_mark() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    common::copy_tree(&corpus, dir.path());
    let vault = Vault::open(dir.path()).unwrap();
    let mut rng = Lcg(19);
    let mut set = plant_papers(&vault, &mut rng);
    set.extend(plant_cjk(&vault, &mut rng));
    set.extend(plant_notes(&vault, &mut rng));
    set.extend(plant_by_hand(&vault));
    let markers = plant_markers(&set);
    set.extend(markers);
    assert!(set.len() >= 150, "only {} planted quotes", set.len());
    let mut docs = VaultDocs::new(&vault);
    let mut tally = Tally::new();
    let mut wrong = Vec::new();
    let mut times = Vec::new();
    for pl in &set {
        let t = std::time::Instant::now();
        let got = citations::check(&pl.answer, &[], &mut docs);
        times.push(t.elapsed());
        let c = got.iter().find(|c| c.quote.is_some());
        let (verdict, found_at) = c.map_or((Verdict::NoQuote, None), |c| {
            (c.verdict, c.found_at.clone())
        });
        let entry = tally.entry(pl.class).or_default();
        entry.0 += 1;
        let ticked = verdict == Verdict::Verified;
        entry.1 += usize::from(ticked);
        entry.2 += usize::from(ticked && pl.want == Verdict::Verified);
        let exact =
            verdict == pl.want && (pl.want != Verdict::OtherPage || found_at == pl.found_at);
        entry.3 += usize::from(exact);
        if !exact {
            wrong.push(format!(
                "[{}] want {:?} got {:?} {:?} {}",
                pl.class,
                pl.want,
                verdict,
                c.and_then(|c| c.detail.clone().or(c.found_at.clone())),
                pl.answer.replace('\n', " ⏎ ")
            ));
        }
    }
    times.sort();
    let pct = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    eprintln!(
        "planted citations: {} quotes; check time p50 {:?}, p99 {:?} (this build)",
        set.len(),
        pct(0.5),
        pct(0.99)
    );
    let (mut tp, mut fp, mut pos) = (0, 0, 0);
    for (class, (n, ticked, right, exact)) in &tally {
        let positive = set
            .iter()
            .any(|p| p.class == *class && p.want == Verdict::Verified);
        if positive {
            pos += n;
            tp += right;
        } else {
            fp += ticked;
        }
        eprintln!(
            "  {class:<26} {n:>4} planted  ✓ precision {:.2}  {}  exact verdict {exact}/{n}",
            if *ticked == 0 {
                1.0
            } else {
                *right as f64 / *ticked as f64
            },
            if positive {
                format!("recall {:.2}", *right as f64 / *n as f64)
            } else {
                "(nothing to verify)".to_string()
            },
        );
    }
    for w in wrong.iter().take(40) {
        eprintln!("  {w}");
    }
    let precision = tp as f64 / (tp + fp).max(1) as f64;
    let recall = tp as f64 / pos.max(1) as f64;
    eprintln!("  all: ✓ precision {precision:.3}, recall {recall:.3} ({tp}/{pos})");
    assert_eq!(fp, 0, "a ✓ on a planted quote that does not deserve one");
    assert!(recall >= 0.95, "recall {recall:.3}");
    for class in [
        "other page",
        "CJK other page",
        "note other lines",
        "[n] to another page",
    ] {
        let (n, _, _, exact) = tally.get(class).copied().unwrap_or_default();
        assert!(
            n > 0 && exact * 100 >= n * 95,
            "{class}: the right page {exact}/{n}"
        );
    }
}

/// An Elsevier-style sidebar beside a two-column abstract: whatever the layout pass makes of
/// it, a quote spliced from the sidebar and the abstract is never verified, and the abstract's
/// own sentences are, within a column and across the column break.
#[test]
fn a_sidebar_spliced_into_the_abstract_is_never_verified() {
    let f = agentero::vault::demo::fixtures::sidebar_two_column_abstract().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("papers/els")).unwrap();
    std::fs::write(dir.path().join("papers/els/paper.pdf"), &f.pdf).unwrap();
    let vault = Vault::open(dir.path()).unwrap();
    let uri = "papers/els/paper.pdf#page=1";
    let verdict = |q: &str| {
        let got = citations::check(
            &format!("> \"{q}\" — {uri}\n"),
            &[],
            &mut VaultDocs::new(&vault),
        );
        let c = got.into_iter().next().expect("one citation");
        (c.verdict, c.detail)
    };
    let truth = [
        "Readers that quote a paper must find the quoted words where the paper prints them",
        "a check that accepts text the reader made up itself proves nothing at all.",
        "proves nothing at all. Here the sidebar stands on the same baselines as the abstract",
    ];
    for q in truth {
        assert_eq!(verdict(q), (Verdict::Verified, None), "{q}");
    }
    // The reading-order text, as the layout pass gives it today.
    let Some(citations::Doc::Pages(pages)) =
        citations::Docs::doc(&mut VaultDocs::new(&vault), "papers/els/paper.pdf")
    else {
        panic!("the fixture is read as a paper");
    };
    let read = pages[0].replace('\n', " ");
    // Side-by-side lines as a baseline merge joins them; and any splice the layout pass made.
    let mut spliced = vec![
        "Received 12 March 2021 paper prints them, and a check".to_string(),
        "find the quoted words where the Article history: same baselines as the abstract,"
            .to_string(),
        "Keywords: that accepts text the reader made".to_string(),
    ];
    for line in pages[0].lines() {
        let side = ["Received", "Accepted", "Keywords", "Article history"];
        if side.iter().any(|s| line.contains(s)) && line.split_whitespace().count() > 4 {
            spliced.push(line.to_string());
        }
    }
    for q in &spliced {
        let (v, detail) = verdict(q);
        assert_ne!(
            v,
            Verdict::Verified,
            "a splice verified: {q:?} (page text {read:?})"
        );
        if read.contains(q.as_str()) {
            assert!(
                detail
                    .as_deref()
                    .is_some_and(|d| d.starts_with("spans two blocks")),
                "{q:?}: {detail:?}"
            );
        }
    }
}
