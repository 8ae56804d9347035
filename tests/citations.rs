//! Verified citations for any agent. A scripted ACP agent (`tests/peers/scripted_agent.py`, a
//! real process) answers through the real `agentero ask` with a correct quote, a quote from
//! another page, an invented quote, a `[n]` marker and a bare citation: `ask` says ✓ / ⚠ with
//! the right page / ⚠ not found / · no quote, `--json` carries the verdicts, the transcript keeps
//! them. On the corpus (AGENTERO_CORPUS), a labelled set of quotes taken with another extractor
//! (pdftotext) and altered on purpose measures the verifier's precision and recall.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agentero::acp::transcript::{Line, Thread};
use agentero::context::citations::{self, CitationCheck, VaultDocs, Verdict};
use agentero::context::tools::VaultReader;
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
            && lines[1].contains(&format!("it is at {PAPER}#page={there}")),
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
    let mut docs = VaultDocs {
        vault: &vault,
        reader: VaultReader::default(),
    };
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
    for m in misses.iter().take(10) {
        eprintln!("  {m}");
    }
    assert!(precision >= 0.99, "precision {precision:.3}");
    assert!(recall >= 0.95, "recall {recall:.3}");
    assert!(
        pages >= 0.95,
        "the page a misplaced quote is on: {pages:.3}"
    );
}
