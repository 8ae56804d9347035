//! Issue 36: does a ✓ hold on papers nobody tuned on? Citations are planted, by class, in two
//! sets of real papers and checked through the same path an answer takes
//! ([`citations::check`] against the vault): the **tuning set** (the corpus of `AGENTERO_CORPUS`,
//! mostly two-column TeX templates, on which the verifier was built) and the **held-out set**
//! (`AGENTERO_HELD_OUT`: 30 package vignettes of 15 Debian R packages — single-column journal
//! papers and R News pages with code listings, program output, display maths, straight quotes in
//! prose and a running header on every page — written down in `.ci/run` before any of them was
//! looked at). The two are reported side by side.
//!
//! The planted citations are made from poppler's `pdftotext` (an extractor independent of ours),
//! never from our own page text:
//! - `sentence`: a prose sentence of the page, quoted inline or as a blockquote; and the same
//!   sentence with one word changed;
//! - `inner quotes`: a sentence that quotes a name (“meat”, `"zoo"`), written with straight inner
//!   marks inside a straight quote, as agents write it; and a word changed *after* the inner quote;
//! - `page break`: the words on both sides of a page break, over whatever running header, page
//!   number or footer stands between them; and a word changed after the break;
//! - `table row`: a row of a table or of printed program output; and a digit changed in it;
//! - `splice`: the end of a line in one column and the start of the line beside it in the next
//!   column (or a sidebar) — text that only a wrong reading order joins;
//! - `running head`: a page's header (page number and running title), which is no evidence;
//! - `other page`: a sentence cited with the wrong page (its page must be named).
//!
//! Goals (the issue's): ✓ precision 1.00 in every class, recall ≥ 0.95 on the true quotes, the
//! other page named right ≥ 0.95 — on both sets.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use agentero::context::citations::{self, VaultDocs, Verdict};
use agentero::vault::Vault;

use crate::common::skip::{self, Peer};
use crate::common::{copy_tree, reduce};

/// The held-out papers `.ci/run` downloads (each checked by its sha256 there).
pub(crate) const HELD_OUT: [&str; 30] = [
    "zoo",
    "zoo-faq",
    "zoo-read",
    "zoo-design",
    "sandwich",
    "sandwich-oop",
    "sandwich-cl",
    "lmtest-intro",
    "strucchange-intro",
    "vcd-strucplot",
    "vcd-residual-shadings",
    "partykit-ctree",
    "partykit-mob",
    "partykit",
    "partykit-constparty",
    "pscl-countreg",
    "quantreg-rq",
    "rcpp-jss-2011",
    "rcpp-introduction",
    "rcpp-faq",
    "lme4-lmer",
    "lme4-theory",
    "glmnet",
    "matrix-intro2matrix",
    "matrix-sparsemodels",
    "mvtnorm-mvt-rnews",
    "xts",
    "survival",
    "survival-compete",
    "survival-timedep",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Class {
    Sentence,
    InnerQuotes,
    PageBreak,
    TableRow,
    Splice,
    RunningHead,
    OtherPage,
}

impl Class {
    const ALL: [Class; 7] = [
        Class::Sentence,
        Class::InnerQuotes,
        Class::PageBreak,
        Class::TableRow,
        Class::Splice,
        Class::RunningHead,
        Class::OtherPage,
    ];

    fn name(self) -> &'static str {
        match self {
            Class::Sentence => "sentence",
            Class::InnerQuotes => "inner quotes",
            Class::PageBreak => "page break",
            Class::TableRow => "table row",
            Class::Splice => "splice",
            Class::RunningHead => "running head",
            Class::OtherPage => "other page",
        }
    }
}

/// What a planted citation is.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Truth {
    /// The words are on the cited page: ✓ is right.
    True,
    /// They are not (changed, spliced, furniture): ✓ is wrong.
    False,
    /// They are on another page of the paper, this one (1-based).
    Elsewhere(u32),
}

#[derive(Debug, Clone)]
struct Plant {
    class: Class,
    truth: Truth,
    answer: String,
}

/// One paper's pages per pdftotext: reading order and physical layout.
struct Reference {
    pages: Vec<String>,
    layout: Vec<String>,
    /// The whole text, reduced (to tell whether a quote is unique in the paper).
    reduced: String,
    /// The whole text per MuPDF's `mutool`, reduced: a true quote is one both extractors read
    /// (pdftotext alone sometimes joins a figure label or a running head into a sentence).
    second: String,
}

fn pdftotext_pages(pdf: &Path, layout: bool) -> Vec<String> {
    let mut cmd = Command::new("pdftotext");
    cmd.args(["-enc", "UTF-8"]);
    if layout {
        cmd.arg("-layout");
    }
    let out = cmd
        .arg(pdf)
        .arg("-")
        .output()
        .expect("pdftotext is missing: install poppler-utils");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut pages: Vec<String> = text.split('\u{c}').map(str::to_string).collect();
    if pages.last().is_some_and(|p| p.trim().is_empty()) {
        pages.pop();
    }
    pages
}

impl Reference {
    fn of(pdf: &Path) -> Reference {
        let pages = pdftotext_pages(pdf, false);
        let layout = pdftotext_pages(pdf, true);
        let reduced = reduce(&pages.join("\n"));
        let out = Command::new("mutool")
            .args(["draw", "-q", "-F", "txt", "-o", "-"])
            .arg(pdf)
            .output()
            .expect("mutool is missing: install mupdf-tools");
        let second = reduce(&String::from_utf8_lossy(&out.stdout));
        Reference {
            pages,
            layout,
            reduced,
            second,
        }
    }

    /// Once in the paper, and read the same by both extractors.
    fn unique(&self, quote: &str) -> bool {
        let r = reduce(quote);
        r.len() >= 12 && self.reduced.matches(&r).count() == 1 && self.second.contains(&r)
    }

    /// The lines of each page that are its furniture, by a rule of this test's own: among the
    /// first and last three lines of a page, a bare page number, or a line that (digits aside)
    /// stands there on at least a third of the pages (and three).
    fn furniture(&self) -> Vec<Vec<String>> {
        let edges: Vec<Vec<&str>> = self
            .pages
            .iter()
            .map(|p| {
                let lines: Vec<&str> = p.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
                let n = lines.len();
                let mut e: Vec<&str> = lines.iter().take(3).copied().collect();
                e.extend(lines.iter().skip(n.saturating_sub(3).max(3)).copied());
                e
            })
            .collect();
        let shape = |l: &str| -> String {
            l.chars()
                .map(|c| if c.is_ascii_digit() { '#' } else { c })
                .collect()
        };
        let mut count: HashMap<String, usize> = HashMap::new();
        for e in &edges {
            let mut seen: Vec<String> = e.iter().map(|l| shape(l)).collect();
            seen.sort();
            seen.dedup();
            for s in seen {
                *count.entry(s).or_default() += 1;
            }
        }
        let need = (self.pages.len() / 3).max(3);
        edges
            .iter()
            .map(|e| {
                e.iter()
                    .filter(|l| {
                        is_page_number(l) || count.get(&shape(l)).is_some_and(|&c| c >= need)
                    })
                    .map(|l| l.to_string())
                    .collect()
            })
            .collect()
    }
}

fn is_page_number(l: &str) -> bool {
    let l = l.trim();
    (!l.is_empty() && l.len() <= 4 && l.chars().all(|c| c.is_ascii_digit()))
        || (l.len() <= 6 && !l.is_empty() && l.chars().all(|c| "ivxlc".contains(c)))
}

/// Characters a plain prose quote is made of (what both extractors agree on).
fn prose_chars(s: &str) -> bool {
    s.chars()
        .all(|c| c.is_ascii_alphanumeric() || " ,.;:()'-/“”‘’\"".contains(c))
}

fn words(s: &str) -> Vec<&str> {
    s.split_whitespace().collect()
}

/// Mostly words: at least 70 % of the tokens are letters only (trailing punctuation aside).
fn wordy(s: &str) -> bool {
    let w = words(s);
    let alpha = w
        .iter()
        .filter(|t| {
            let t = t.trim_matches(|c: char| !c.is_alphanumeric());
            !t.is_empty() && t.chars().all(|c| c.is_ascii_alphabetic())
        })
        .count();
    !w.is_empty() && alpha * 10 >= w.len() * 7
}

/// The paragraphs of a page (lines joined), without its furniture lines; `None` for a paragraph
/// that holds a hyphenated line end (its joined words are not the printed ones).
fn paragraphs(page: &str, furniture: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    let mut flush = |cur: &mut Vec<&str>| {
        if !cur.is_empty() && !cur.iter().any(|l| l.ends_with('-')) {
            out.push(cur.join(" "));
        }
        cur.clear();
    };
    for line in page.lines().map(str::trim) {
        if line.is_empty() || furniture.iter().any(|f| f == line) {
            flush(&mut cur);
        } else {
            cur.push(line);
        }
    }
    flush(&mut cur);
    out
}

/// The sentences of a paragraph that make good quotes: 8 to 35 words of prose.
fn sentences(para: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = 0;
    let b = para.as_bytes();
    for i in 0..b.len() {
        let end = i + 1 == b.len()
            || (b[i] == b'.'
                && b.get(i + 1) == Some(&b' ')
                && b.get(i + 2).is_some_and(|c| c.is_ascii_uppercase()));
        if end {
            let s = para[start..=i].trim();
            let n = words(s).len();
            if (8..=35).contains(&n)
                && prose_chars(s)
                && wordy(s)
                && s.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && s.ends_with('.')
                && !s.contains("R>")
            {
                out.push(s.to_string());
            }
            start = i + 1;
        }
    }
    out
}

/// `s` with the first word of five letters or more at or after byte `from` replaced by another
/// word (`None`: there is none).
fn change_word(s: &str, from: usize) -> Option<String> {
    let mut at = 0;
    for w in s.split(' ') {
        let core = w.trim_matches(|c: char| !c.is_ascii_alphabetic());
        if at >= from && core.len() >= 5 && core.chars().all(|c| c.is_ascii_alphabetic()) {
            let other = if core == "purple" { "orange" } else { "purple" };
            let i = at + w.find(core).unwrap();
            return Some(format!("{}{other}{}", &s[..i], &s[i + core.len()..]));
        }
        at += w.len() + 1;
    }
    None
}

/// `s` with its first digit changed.
fn change_digit(s: &str) -> Option<String> {
    let i = s.find(|c: char| c.is_ascii_digit())?;
    let d = s.as_bytes()[i] - b'0';
    Some(format!("{}{}{}", &s[..i], (d + 3) % 10, &s[i + 1..]))
}

/// An answer citing `quote` at `uri`, in one of the forms agents write.
fn cite(quote: &str, uri: &str, form: usize) -> String {
    match form % 3 {
        0 => format!("The paper says \"{quote}\" ({uri}).\n"),
        1 => format!("> {quote}\n> — {uri}\n"),
        _ => format!("As written there: \"{quote}\" [{uri}]\n"),
    }
}

/// Up to `n` items of `v`, spread evenly.
fn spread<T: Clone>(v: &[T], n: usize) -> Vec<T> {
    if v.len() <= n {
        return v.to_vec();
    }
    (0..n).map(|k| v[k * v.len() / n].clone()).collect()
}

/// The citations planted in one paper at vault path `path`.
fn plant(path: &str, r: &Reference) -> Vec<Plant> {
    let furniture = r.furniture();
    let n = r.pages.len();
    let uri = |p: usize| format!("{path}#page={p}");
    let mut out = Vec::new();
    let mut push = |class, truth, answer| {
        out.push(Plant {
            class,
            truth,
            answer,
        })
    };

    // Sentences (and those quoting a name), by page.
    let mut plain = Vec::new();
    let mut inner = Vec::new();
    for (i, page) in r.pages.iter().enumerate() {
        for para in paragraphs(page, &furniture[i]) {
            for s in sentences(&para) {
                if !r.unique(&s) {
                    continue;
                }
                let marks = s.matches(['“', '"']).count();
                if marks >= 1 && s.matches(['”', '"']).count() >= 1 {
                    inner.push((i + 1, s));
                } else if marks == 0 && !s.contains(['”', '‘', '’', '\'']) {
                    plain.push((i + 1, s));
                }
            }
        }
    }
    for (k, (p, s)) in spread(&plain, 4).into_iter().enumerate() {
        push(Class::Sentence, Truth::True, cite(&s, &uri(p), k));
        if let Some(c) = change_word(&s, s.len() / 2) {
            push(Class::Sentence, Truth::False, cite(&c, &uri(p), k + 1));
        }
    }
    for (k, (p, s)) in spread(&plain, 8).into_iter().skip(1).step_by(4).enumerate() {
        let other = if p < n { p + 1 } else { p - 1 };
        if other >= 1 && other != p {
            push(
                Class::OtherPage,
                Truth::Elsewhere(p as u32),
                cite(&s, &uri(other), k),
            );
        }
    }
    for (p, s) in spread(&inner, 3) {
        let straight = s.replace(['“', '”'], "\"");
        push(
            Class::InnerQuotes,
            Truth::True,
            format!("They write \"{straight}\" ({}).\n", uri(p)),
        );
        let after = straight.rfind('"').map_or(0, |i| i + 1);
        if let Some(c) = change_word(&straight, after) {
            push(
                Class::InnerQuotes,
                Truth::False,
                format!("They write \"{c}\" ({}).\n", uri(p)),
            );
        }
    }

    // Page breaks: a sentence that runs on to the next page.
    let mut breaks = Vec::new();
    for i in 0..n.saturating_sub(1) {
        let body = |k: usize| -> Vec<&str> {
            r.pages[k]
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty() && !furniture[k].iter().any(|f| f == l))
                .collect()
        };
        let (a, b) = (body(i), body(i + 1));
        let (Some(tail), Some(head)) = (a.last(), b.first()) else {
            continue;
        };
        let (tw, hw) = (words(tail), words(head));
        if tw.len() < 6
            || hw.len() < 6
            || tail.ends_with(['.', ':', '-', '?', '!'])
            || !head.starts_with(|c: char| c.is_ascii_lowercase())
            || !prose_chars(tail)
            || !prose_chars(head)
            || !wordy(tail)
            || !wordy(head)
        {
            continue;
        }
        let left = tw[tw.len() - 6..].join(" ");
        let right = hw[..6].join(" ");
        // Each side once in the paper (the whole is not in the reference: the furniture
        // stands between).
        if r.unique(&left) && r.unique(&right) {
            breaks.push((i + 1, left, right));
        }
    }
    for (k, (p, left, right)) in spread(&breaks, 3).into_iter().enumerate() {
        let q = format!("{left} {right}");
        push(Class::PageBreak, Truth::True, cite(&q, &uri(p), k));
        if let Some(c) = change_word(&right, 0) {
            push(
                Class::PageBreak,
                Truth::False,
                cite(&format!("{left} {c}"), &uri(p), k + 1),
            );
        }
    }

    // Layout lines: table rows, and text side by side in two columns.
    let mut rows = Vec::new();
    let mut splices = Vec::new();
    for (i, page) in r.layout.iter().enumerate() {
        // Lines of two prose runs with a wide gap, and the column where the right one starts.
        let mut sides: Vec<(usize, String, String)> = Vec::new();
        for line in page.lines() {
            let cells: Vec<&str> = line
                .split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect();
            let numbers = words(line)
                .iter()
                .filter(|w| w.chars().any(|c| c.is_ascii_digit()))
                .count();
            let row = cells.join(" ");
            if cells.len() >= 3
                && numbers >= 2
                && words(&row).len() >= 4
                && row.len() >= 20
                && row.chars().all(|c| c.is_ascii_graphic() || c == ' ')
                && !furniture[i].iter().any(|f| reduce(f) == reduce(&row))
                && r.unique(&row)
            {
                rows.push((i + 1, row));
            }
            let Some(gap) = line
                .trim_start()
                .find("     ")
                .map(|g| g + line.len() - line.trim_start().len())
            else {
                continue;
            };
            let (left, right) = (line[..gap].trim(), line[gap..].trim());
            let at = line.len() - line[gap..].trim_start().len();
            if [left, right]
                .iter()
                .all(|r| words(r).len() >= 5 && r.len() >= 25 && prose_chars(r) && wordy(r))
            {
                sides.push((at, left.to_string(), right.to_string()));
            }
        }
        // A gutter: five or more such lines whose right run starts at the same column (a
        // justified line's wide space falls anywhere).
        for (at, left, right) in &sides {
            let same = sides
                .iter()
                .filter(|(b, _, _)| b.abs_diff(*at) <= 1)
                .count();
            if same < 5 {
                continue;
            }
            let lw = words(left);
            let rw = words(right);
            let q = format!("{} {}", lw[lw.len() - 4..].join(" "), rw[..4].join(" "));
            if reduce(&q).len() >= 20 && !r.reduced.contains(&reduce(&q)) {
                splices.push((i + 1, q));
            }
        }
    }
    for (k, (p, row)) in spread(&rows, 2).into_iter().enumerate() {
        push(Class::TableRow, Truth::True, cite(&row, &uri(p), k));
        if let Some(c) = change_digit(&row) {
            push(Class::TableRow, Truth::False, cite(&c, &uri(p), k + 1));
        }
    }
    for (k, (p, q)) in spread(&splices, 3).into_iter().enumerate() {
        push(Class::Splice, Truth::False, cite(&q, &uri(p), k));
    }

    // Running heads: a page's header lines, read together as a quote.
    let mut heads = Vec::new();
    for (i, page) in r.pages.iter().enumerate().skip(1) {
        let top: Vec<&str> = page
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .take(2)
            .collect();
        if top.len() == 2 && top.iter().all(|l| furniture[i].iter().any(|f| f == l)) {
            let q = format!("{} {}", top[0], top[1]);
            if words(&q).len() >= 3 && reduce(&q).len() >= 15 {
                heads.push((i + 1, q));
            }
        }
    }
    for (k, (p, q)) in spread(&heads, 2).into_iter().enumerate() {
        push(Class::RunningHead, Truth::False, cite(&q, &uri(p), k));
    }
    out
}

#[derive(Debug, Default, Clone)]
struct Tally {
    /// True quotes, and those ✓.
    truths: usize,
    truths_verified: usize,
    /// Not on the page, and those ✓ (each a wrong ✓).
    falses: usize,
    false_verified: usize,
    /// Cited with the wrong page, and those whose page was named right.
    elsewhere: usize,
    elsewhere_named: usize,
}

impl Tally {
    fn add(&mut self, o: &Tally) {
        self.truths += o.truths;
        self.truths_verified += o.truths_verified;
        self.falses += o.falses;
        self.false_verified += o.false_verified;
        self.elsewhere += o.elsewhere;
        self.elsewhere_named += o.elsewhere_named;
    }

    fn precision(&self) -> Option<f64> {
        let v = self.truths_verified + self.false_verified;
        (v > 0).then(|| self.truths_verified as f64 / v as f64)
    }

    fn recall(&self) -> Option<f64> {
        (self.truths > 0).then(|| self.truths_verified as f64 / self.truths as f64)
    }

    fn named(&self) -> Option<f64> {
        (self.elsewhere > 0).then(|| self.elsewhere_named as f64 / self.elsewhere as f64)
    }
}

struct SetReport {
    name: &'static str,
    papers: usize,
    by_class: HashMap<Class, Tally>,
    /// Every wrong ✓ and every miss, for the failure message.
    wrong: Vec<String>,
    misses: Vec<String>,
    /// The same citations written into a manuscript (`“…” [@key, p. N]`) and run through
    /// `agentero check`'s engine: its tally, and its wrong ✓ and misses.
    manuscript: Tally,
    manuscript_wrong: Vec<String>,
    manuscript_misses: Vec<String>,
}

impl SetReport {
    fn all(&self) -> Tally {
        let mut t = Tally::default();
        for c in self.by_class.values() {
            t.add(c);
        }
        t
    }
}

/// Copies `pdfs` (name, file) into a fresh vault as `papers/NAME/paper.pdf`, plants citations in
/// each and checks them.
fn run_set(name: &'static str, pdfs: &[(String, PathBuf)]) -> SetReport {
    let dir = tempfile::tempdir().unwrap();
    for (n, f) in pdfs {
        let to = dir.path().join("papers").join(n);
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(f, to.join("paper.pdf")).unwrap();
    }
    let vault = Vault::open(dir.path()).unwrap();
    let mut report = SetReport {
        name,
        papers: pdfs.len(),
        by_class: HashMap::new(),
        wrong: Vec::new(),
        misses: Vec::new(),
        manuscript: Tally::default(),
        manuscript_wrong: Vec::new(),
        manuscript_misses: Vec::new(),
    };
    for (n, f) in pdfs {
        let path = format!("papers/{n}/paper.pdf");
        let reference = Reference::of(f);
        let mut docs = VaultDocs::new(&vault);
        let plants = plant(&path, &reference);
        as_manuscript(&vault, n, &path, &plants, &mut report);
        for p in plants {
            let got = citations::check(&p.answer, &[], &mut docs);
            let t = report.by_class.entry(p.class).or_default();
            let first = got.first();
            let verified = first.is_some_and(|c| c.verdict == Verdict::Verified);
            // The planted citation and what the verifier said of it, for the failure message.
            let said = |note: &str| {
                let v = first.map_or_else(|| "no citation found".to_string(), |c| c.line());
                format!("[{}] {}{note}\n    → {v}", p.class.name(), p.answer.trim())
            };
            match &p.truth {
                Truth::True => {
                    t.truths += 1;
                    if verified {
                        t.truths_verified += 1;
                    } else {
                        report.misses.push(said(""));
                    }
                }
                Truth::False => {
                    t.falses += 1;
                    if verified {
                        t.false_verified += 1;
                        report.wrong.push(said(""));
                    }
                }
                Truth::Elsewhere(at) => {
                    t.elsewhere += 1;
                    let want = format!("{path}#page={at}");
                    let named = first.is_some_and(|c| {
                        c.verdict == Verdict::OtherPage && c.found_at.as_deref() == Some(&want)
                    });
                    if verified {
                        t.false_verified += 1;
                        report.wrong.push(said(""));
                    } else if named {
                        t.elsewhere_named += 1;
                    } else {
                        report.misses.push(said(&format!(" (it is on p.{at})")));
                    }
                }
            }
        }
    }
    report
}

/// The plants of one paper as a manuscript citing it by key (`[@NAME, p. N]` where the answer
/// has the page's URI), one paragraph each, checked by `agentero check`'s engine: a true quote
/// must come out ✓, a false one never, one on another page with that page.
fn as_manuscript(vault: &Vault, name: &str, path: &str, plants: &[Plant], report: &mut SetReport) {
    use agentero::context::check::{self, Outcome, library};
    let uri = regex::Regex::new(r"[\(\[]?papers/[^\s\]\)#]+#page=(\d+)[\)\]]?").unwrap();
    let key = name.to_string();
    let mut text = String::new();
    // The first line of each plant's paragraph.
    let mut starts = Vec::new();
    for p in plants {
        starts.push(text.lines().count() as u64 + 1);
        let written = uri.replace_all(&p.answer, |c: &regex::Captures| {
            format!("[@{key}, p. {}]", &c[1])
        });
        text.push_str(written.trim_end());
        text.push_str("\n\n");
    }
    let paper = library::Paper {
        path: path.to_string(),
        meta: agentero::vault::meta::PaperMeta {
            title: name.to_string(),
            ..Default::default()
        },
        key: key.clone(),
        record: None,
    };
    let lib = library::Library::from_papers(vec![(None, paper)]);
    let got = check::check(vault, None, &lib, "draft.md", &text, &mut |_, _| {});
    for (i, p) in plants.iter().enumerate() {
        let (a, b) = (starts[i], starts.get(i + 1).copied().unwrap_or(u64::MAX));
        let c = got
            .citations
            .iter()
            .find(|c| (a..b).contains(&u64::from(c.line)));
        let t = &mut report.manuscript;
        let said = || {
            let v = c.map_or_else(
                || "no citation found".to_string(),
                |c| format!("{:?}: {}", c.outcome, c.says),
            );
            format!(
                "[{}] {}\n    → {v}",
                p.class.name(),
                text.lines()
                    .skip(a as usize - 1)
                    .take(3)
                    .collect::<Vec<_>>()
                    .join(" / ")
            )
        };
        let verified = c.is_some_and(|c| c.outcome == Outcome::Verified);
        match &p.truth {
            Truth::True => {
                t.truths += 1;
                if verified {
                    t.truths_verified += 1;
                } else {
                    report.manuscript_misses.push(said());
                }
            }
            Truth::False => {
                t.falses += 1;
                if verified {
                    t.false_verified += 1;
                    report.manuscript_wrong.push(said());
                }
            }
            Truth::Elsewhere(at) => {
                t.elsewhere += 1;
                if verified {
                    t.false_verified += 1;
                    report.manuscript_wrong.push(said());
                } else if c.is_some_and(|c| c.outcome == Outcome::OtherPage && c.page == Some(*at))
                {
                    t.elsewhere_named += 1;
                } else {
                    report.manuscript_misses.push(said());
                }
            }
        }
    }
}

fn fmt(x: Option<f64>) -> String {
    x.map_or("–".into(), |x| format!("{x:.2}"))
}

/// The two sets side by side, one row per class.
fn table(sets: &[&SetReport]) -> String {
    let mut s = String::new();
    let _ = write!(s, "{:<13}", "class");
    for r in sets {
        let _ = write!(s, " | {:<44}", format!("{} ({} papers)", r.name, r.papers));
    }
    s.push('\n');
    let _ = write!(s, "{:<13}", "");
    for _ in sets {
        let _ = write!(
            s,
            " | {:<44}",
            "true ✓/n  wrong ✓/n  precision recall named"
        );
    }
    s.push('\n');
    let rows: Vec<(String, Vec<Tally>)> = Class::ALL
        .iter()
        .map(|c| {
            (
                c.name().to_string(),
                sets.iter()
                    .map(|r| r.by_class.get(c).cloned().unwrap_or_default())
                    .collect(),
            )
        })
        .chain(std::iter::once((
            "all".to_string(),
            sets.iter().map(|r| r.all()).collect(),
        )))
        .collect();
    for (name, tallies) in rows {
        let _ = write!(s, "{name:<13}");
        for t in tallies {
            let _ = write!(
                s,
                " | {:<44}",
                format!(
                    "{:>3}/{:<3}   {:>3}/{:<3}   {:>5}   {:>5} {:>5}",
                    t.truths_verified,
                    t.truths,
                    t.false_verified,
                    t.falses + t.elsewhere,
                    fmt(t.precision()),
                    fmt(t.recall()),
                    fmt(t.named())
                )
            );
        }
        s.push('\n');
    }
    s
}

/// The held-out folder, or `None` with the reason (a failure under `CI`).
pub(crate) fn held_out() -> Option<PathBuf> {
    let reason = match std::env::var_os("AGENTERO_HELD_OUT") {
        None => "AGENTERO_HELD_OUT is not set".to_string(),
        Some(dir) => {
            let dir = PathBuf::from(dir);
            match HELD_OUT
                .iter()
                .find(|f| !dir.join(format!("{f}.pdf")).is_file())
            {
                None => return Some(dir),
                Some(f) => format!("{} has no {f}.pdf", dir.display()),
            }
        }
    };
    skip::missing(Peer::HeldOut, &reason);
    None
}

#[test]
fn a_verified_quote_holds_on_the_tuning_set_and_on_papers_nobody_tuned_on() {
    let Some(corpus) = crate::common::corpus() else {
        return;
    };
    let Some(held) = held_out() else {
        return;
    };
    if Command::new("mutool").arg("-v").output().is_err() {
        skip::missing(Peer::Mutool, "the second reference extractor");
        return;
    }
    // The tuning set: the corpus's papers that poppler reads (a scan, a truncated file and the
    // papers without a text layer plant nothing).
    let copy = tempfile::tempdir().unwrap();
    copy_tree(&corpus.join("papers"), copy.path());
    let mut tuning: Vec<(String, PathBuf)> = std::fs::read_dir(copy.path())
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                e.path().join("paper.pdf"),
            )
        })
        .filter(|(_, p)| p.is_file())
        .collect();
    tuning.sort();
    let held: Vec<(String, PathBuf)> = HELD_OUT
        .iter()
        .map(|n| (n.to_string(), held.join(format!("{n}.pdf"))))
        .collect();
    let t = run_set("tuning (corpus)", &tuning);
    let h = run_set("held-out (R vignettes)", &held);
    let mut side = table(&[&t, &h]);
    for r in [&t, &h] {
        let m = &r.manuscript;
        let _ = writeln!(
            side,
            "as a manuscript (agentero check), {}: precision {}, recall {}, other page named {}, wrong ✓ {}",
            r.name,
            fmt(m.precision()),
            fmt(m.recall()),
            fmt(m.named()),
            m.false_verified
        );
    }
    println!("{side}");
    let mut problems = String::new();
    for r in [&t, &h] {
        let all = r.all();
        if !r.wrong.is_empty() {
            let _ = writeln!(problems, "{}: {} wrong ✓:", r.name, r.wrong.len());
            for w in &r.wrong {
                let _ = writeln!(problems, "  {w}");
            }
        }
        if all.recall().unwrap_or(0.0) < 0.95 || all.named().unwrap_or(0.0) < 0.95 {
            let _ = writeln!(
                problems,
                "{}: recall {} (goal ≥ 0.95), other page named {} (goal ≥ 0.95); misses:",
                r.name,
                fmt(all.recall()),
                fmt(all.named())
            );
        }
        for m in &r.misses {
            let _ = writeln!(problems, "  miss {m}");
        }
    }
    for r in [&t, &h] {
        // Each class must have been planted, or the figures say nothing.
        for c in Class::ALL {
            let n = r
                .by_class
                .get(&c)
                .map_or(0, |t| t.truths + t.falses + t.elsewhere);
            assert!(
                n >= 4,
                "{}: only {n} {} citations planted\n{side}\n{problems}",
                r.name,
                c.name()
            );
        }
    }
    // Quotes that run across a page break under a running header or over a footer number.
    let breaks = h
        .by_class
        .get(&Class::PageBreak)
        .cloned()
        .unwrap_or_default();
    assert!(
        breaks.recall().unwrap_or(0.0) >= 0.9,
        "page breaks on the held-out set: recall {}\n{side}\n{problems}",
        fmt(breaks.recall())
    );
    for r in [&t, &h] {
        let m = &r.manuscript;
        assert!(
            r.manuscript_wrong.is_empty(),
            "{}: wrong ✓ as a manuscript:\n{}\n{side}",
            r.name,
            r.manuscript_wrong.join("\n")
        );
        assert!(
            m.recall().unwrap_or(0.0) >= 0.95 && m.named().unwrap_or(0.0) >= 0.95,
            "{}: as a manuscript, recall {} and other page named {} (goal ≥ 0.95); misses:\n{}\n{side}",
            r.name,
            fmt(m.recall()),
            fmt(m.named()),
            r.manuscript_misses.join("\n")
        );
    }
    let failed = t.all().false_verified > 0
        || h.all().false_verified > 0
        || [&t, &h].iter().any(|r| {
            r.all().recall().unwrap_or(0.0) < 0.95 || r.all().named().unwrap_or(0.0) < 0.95
        });
    assert!(!failed, "{side}\n{problems}");
    if !problems.is_empty() {
        println!("{problems}");
    }
}
