//! The built-in agent against a fourth judged set, `texdocs` (`tests/judged/texdocs.json`):
//! reader questions on six manuals of Debian's texlive-base (`AGENTERO_TEXDOCS`, the PDFs as
//! `.ci/run` keeps them: btxdoc, ind, etex_man, encdoc-e, amsfndoc, dvipdfmx), written down
//! before any answering page was looked up and before the rules of the session that added it
//! (`tests/judged/texdocs-written-first.txt`, committed first), in a reader's words. No rule was
//! looked at against these documents before the set was written: it is the held-out set of
//! issue 37's sentence choice. Asked with the paper mentioned and with the `papers/` folder
//! mentioned (a vault of the six, `papers/<name>/paper.pdf`), judged like the vignettes: top-1
//! and top-3 page, first citation in the right paper, a right page's quote holding the recorded
//! words, and no bibliography entry or running head quoted. `AGENTERO_JUDGED_SET=texdocs` runs
//! it alone; `AGENTERO_JUDGED_BIN`, `AGENTERO_JUDGED_REPORT`, `AGENTERO_JUDGED_SCOPES` and
//! `AGENTERO_JUDGED_EMBEDDINGS` work as in `judged_questions`.

use std::path::PathBuf;

use crate::common::skip::{self, Peer};
use crate::judged_questions::{
    Pages, asked, binary, furniture_failures, index_for_questions, judged_set, run,
};

/// The manuals of the set, as their files are named in `AGENTERO_TEXDOCS`.
const TEXDOCS: [&str; 6] = [
    "btxdoc", "ind", "etex_man", "encdoc-e", "amsfndoc", "dvipdfmx",
];

fn texdocs() -> Option<PathBuf> {
    let reason = match std::env::var_os("AGENTERO_TEXDOCS") {
        None => "AGENTERO_TEXDOCS is not set".to_string(),
        Some(dir) => {
            let dir = PathBuf::from(dir);
            match TEXDOCS
                .iter()
                .find(|f| !dir.join(format!("{f}.pdf")).is_file())
            {
                None => return Some(dir),
                Some(f) => format!("{} has no {f}.pdf", dir.display()),
            }
        }
    };
    skip::missing(Peer::TexDocs, &reason);
    None
}

/// Floors per scope: top-1, top-3, right paper, expected words quoted.
fn floors(scope: &str) -> [f64; 4] {
    match scope {
        // Measured with the build the set was written against, before any rule looked at it:
        // top-1 0.455, top-3 0.864, right paper 1.000, expected words 0.409. Floors about one
        // question under that (issue 37 asks for top-1 0.80 and top-3 0.90). With the value and
        // name reading and the paper prior (issue 37 items 2 and 3, not tuned on this set):
        // top-1 0.455, top-3 0.818 (one question down), right paper 1.000, words 0.364.
        "paper" => [0.40, 0.81, 0.95, 0.36],
        // The same build: 0.545, 0.818, 0.909, 0.500; with those rules the same: 0.545, 0.818,
        // 0.909, 0.500.
        _ => [0.50, 0.77, 0.86, 0.45],
    }
}

#[test]
fn the_builtin_agent_answers_reader_questions_on_manuals_nobody_tuned_on() {
    let only = std::env::var("AGENTERO_JUDGED_SET").ok();
    if only.as_deref().is_some_and(|o| o != "texdocs") {
        return; // another set was asked for
    }
    let Some(docs) = texdocs() else {
        return;
    };
    let set = judged_set(include_str!("../judged/texdocs.json"));
    assert!(
        set.len() >= 20,
        "the texdocs set has {} questions",
        set.len()
    );
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    for name in TEXDOCS {
        let to = vault.join("papers").join(name);
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(docs.join(format!("{name}.pdf")), to.join("paper.pdf")).unwrap();
    }
    for q in &set {
        assert!(
            vault.join(&q.paper).is_file(),
            "{} is not in the set",
            q.paper
        );
        assert!(
            q.expect.is_some(),
            "{:?} records no expected words",
            q.question
        );
    }
    let bin = binary();
    let mut report = index_for_questions(&bin, &vault);
    let mut failures = Vec::new();
    let mut pages = Pages::default();
    for scope in ["paper", "folder"].into_iter().filter(|s| asked(s)) {
        let r = run(&bin, &vault, &set, scope, &mut report, &mut pages);
        let f = |n: usize, of: usize| n as f64 / of.max(1) as f64;
        let got = [
            f(r.top1, r.total),
            f(r.top3, r.total),
            f(r.right_paper, r.total),
            f(r.quotes_expect, r.expects),
        ];
        eprintln!(
            "texdocs set, {scope} scope ({} questions): top-1 page {:.3} ({}), top-3 page {:.3} ({}), \
             first citation in the right paper {:.3} ({}), quotes the expected words {:.3} ({}/{}), \
             answered with a page citation {}",
            r.total,
            got[0],
            r.top1,
            got[1],
            r.top3,
            got[2],
            r.right_paper,
            got[3],
            r.quotes_expect,
            r.expects,
            r.answered,
        );
        failures.extend(furniture_failures(
            &format!("texdocs set, {scope} scope"),
            &r,
            0,
        ));
        let names = [
            "top-1 page",
            "top-3 page",
            "first citation in the right paper",
            "quotes the expected words",
        ];
        for ((what, got), floor) in names.iter().zip(got).zip(floors(scope)) {
            if got < floor {
                failures.push(format!(
                    "texdocs set, {scope} scope: {what} {got:.3} is under the floor of {floor}"
                ));
            }
        }
    }
    if std::env::var_os("AGENTERO_JUDGED_BIN").is_some() {
        return; // measuring another build: figures only
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
