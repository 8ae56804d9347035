//! `agentero check`: manuscripts written here against the demo vault (its papers cite each
//! other; one prints its pages as 283–284), in pandoc Markdown, LaTeX and plain author–year
//! text, checked by the real binary. Every outcome kind, printed labels and the PDF's own page
//! numbers, a manuscript's own `.bib`, the exit status, and hostile manuscripts.

use std::path::Path;

use serde_json::Value;

use crate::common::{self, agentero, stderr, stdout};

const HALVORSEN: &str = "papers/halvorsen2009-passages/paper.pdf";
const DENSE: &str = "papers/dense-vs-sparse/paper.pdf";

/// On the page printed 284 (the PDF's page 2) of Halvorsen and Renner.
const ON_284: &str = "Windows of 50 words reach a MAP of 0.251";
/// On page 1 of Fischbach et al.
const ON_DENSE_1: &str = "Reciprocal rank fusion of the two reaches a recall at 10 of 0.731";

/// The demo vault, indexed, and the citation keys of its papers by path.
fn vault() -> (tempfile::TempDir, std::collections::HashMap<String, String>) {
    let dir = common::demo_vault();
    let out = agentero(&["index", "."], dir.path());
    assert!(out.status.success(), "{}", stderr(&out));
    let v = agentero::vault::Vault::open(dir.path()).unwrap();
    let lib = agentero::context::check::library::Library::load(&v);
    let keys = lib
        .papers
        .iter()
        .map(|p| (p.path.clone(), p.key.clone()))
        .collect();
    (dir, keys)
}

fn check_json(dir: &Path, draft: &str, name: &str, extra: &[&str]) -> (Value, i32, String) {
    std::fs::write(dir.join(name), draft).unwrap();
    let mut args = vec!["check", "--json"];
    args.extend_from_slice(extra);
    args.push(name);
    let out = agentero(&args, dir);
    let doc: Value = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(&out), stderr(&out)));
    (doc, out.status.code().unwrap_or(-1), stderr(&out))
}

/// (line, outcome, page) of every citation.
fn outcomes(doc: &Value) -> Vec<(u64, String, Option<u64>)> {
    doc["citations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["line"].as_u64().unwrap(),
                c["outcome"].as_str().unwrap().to_string(),
                c["page"].as_u64(),
            )
        })
        .collect()
}

#[test]
fn a_markdown_manuscript_gets_every_outcome() {
    let (dir, keys) = vault();
    let h = &keys[HALVORSEN];
    let d = &keys[DENSE];
    let draft = format!(
        "# Draft\n\
         \n\
         Windows matter: “{ON_284}” [@{h}, p. 284].\n\
         The PDF's own page: “{ON_284}” [@{h}, p. 2].\n\
         A changed number: “Windows of 50 words reach a MAP of 0.215” [@{h}, p. 284].\n\
         Another page: “{ON_DENSE_1}” [see @{d}, p. 2].\n\
         Invented: “windows of fifty words were never tried by anyone” [@{h}, p. 284].\n\
         Past the end: “{ON_284}” [@{h}, p. 300].\n\
         Passage retrieval beats whole documents for questions [@{h}, p. 284].\n\
         Unknown: [@nobody2020, p. 3]; short key @{short} [p. 283].\n\
         \n\
         > {ON_DENSE_1}\n\
         >\n\
         > — [@{d}, p. 1]\n",
        short = &h[..h.len() - 2],
    );
    let (doc, code, err) = check_json(dir.path(), &draft, "draft.md", &[]);
    assert_eq!(doc["format"], "markdown");
    let got = outcomes(&doc);
    let want: Vec<(u64, &str, Option<u64>)> = vec![
        (3, "verified", Some(2)),
        (4, "verified", Some(2)),
        (5, "differs", Some(2)),
        (6, "other_page", Some(1)),
        (7, "not_found", Some(2)),
        (8, "no_such_page", None),
        (9, "claim", Some(2)),
        (10, "not_in_library", None),
        (10, "not_in_library", None),
        (14, "verified", Some(1)),
    ];
    let got_ref: Vec<(u64, &str, Option<u64>)> =
        got.iter().map(|(l, o, p)| (*l, o.as_str(), *p)).collect();
    assert_eq!(got_ref, want, "{doc:#}");
    let c = &doc["citations"];
    assert_eq!(c[0]["pageLabel"], "284");
    assert_eq!(c[0]["uri"], format!("{HALVORSEN}#page=2"));
    assert!(
        c[1]["note"]
            .as_str()
            .unwrap()
            .contains("read as the PDF's own page"),
        "{:#}",
        c[1]
    );
    assert_eq!(
        c[2]["says"], "differs: \"0.215\" — the page has \"0.251\"",
        "the first differing word, and the page's"
    );
    assert!(
        c[3]["says"]
            .as_str()
            .unwrap()
            .starts_with("on p. 1, not p. 2")
    );
    assert!(c[5]["says"].as_str().unwrap().contains("printed 283–284"));
    let support = c[6]["support"].as_array().unwrap();
    assert!(
        !support.is_empty() && support.iter().any(|s| s["cited"] == true),
        "{:#}",
        c[6]
    );
    assert!(
        c[8]["note"].as_str().unwrap().contains(h.as_str()),
        "did you mean"
    );
    assert_eq!(c[9]["quote"], ON_DENSE_1, "the blockquote is the quote");
    assert_eq!(doc["summary"]["problems"], 6);
    assert_eq!(code, 1, "problems exit 1: {err}");
    assert!(err.contains("6 of 10 citations need a look"), "{err}");
}

#[test]
fn the_human_report_names_file_line_and_column() {
    let (dir, keys) = vault();
    let h = &keys[HALVORSEN];
    std::fs::write(
        dir.path().join("ok.md"),
        format!("Fine: “{ON_284}” [@{h}, p. 284].\n"),
    )
    .unwrap();
    let out = agentero(&["check", "ok.md"], dir.path());
    let text = stdout(&out);
    assert!(out.status.success(), "{text}{}", stderr(&out));
    assert!(
        text.starts_with(&format!(
            "ok.md:1:{}: ✓ @{h}, p. 284: on p. 284 (the PDF's p. 2)",
            "Fine: “” [".chars().count() + ON_284.chars().count() + 1
        )),
        "{text}"
    );
    assert!(text.contains(&format!("{HALVORSEN}#page=2")), "{text}");
    assert!(
        text.trim_end()
            .ends_with("1 citation of 1 paper: 1 ✓, 0 ⚠, 0 without a quote"),
        "{text}"
    );
    let quiet = agentero(&["check", "--problems", "ok.md"], dir.path());
    assert!(!stdout(&quiet).contains("✓ @"), "{}", stdout(&quiet));
}

#[test]
fn latex_and_author_year_manuscripts() {
    let (dir, keys) = vault();
    let h = &keys[HALVORSEN];
    let d = &keys[DENSE];
    let tex = format!(
        "\\documentclass{{article}}\n\\begin{{document}}\n\
         They report ``{ON_284}'' \\citep[see][p.~284]{{{h}}}.\n\
         % ``{ON_284}'' \\cite[p.~1]{{{d}}} is commented out.\n\
         \\begin{{quote}}\n{ON_DENSE_1}\n\\end{{quote}}\n\\cite[p.~1]{{{d}}}\n\
         \\textcite[pp.~283--284]{{{h},{d}}} disagree.\n\
         \\end{{document}}\n"
    );
    let (doc, _, _) = check_json(dir.path(), &tex, "paper.tex", &[]);
    assert_eq!(doc["format"], "latex");
    let got: Vec<(u64, String)> = outcomes(&doc).into_iter().map(|(l, o, _)| (l, o)).collect();
    assert_eq!(
        got,
        vec![
            (3, "verified".to_string()),
            (8, "verified".to_string()),
            (9, "claim".to_string()),
            (9, "no_such_page".to_string()),
        ],
        "{doc:#}"
    );
    let plain = format!(
        "Passages beat documents (Halvorsen & Renner, 2009, p. 284). \
         Halvorsen and Renner (2009: 284) write “{ON_284}”. \
         Nobody (2031, p. 2) disagrees.\n"
    );
    let (doc, _, _) = check_json(dir.path(), &plain, "notes.txt", &[]);
    assert_eq!(doc["format"], "plain");
    let got: Vec<(String, String)> = doc["citations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["key"].as_str().unwrap().into(),
                c["outcome"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("Halvorsen 2009".to_string(), "claim".to_string()),
            ("Halvorsen 2009".to_string(), "verified".to_string()),
            ("Nobody 2031".to_string(), "not_in_library".to_string()),
        ],
        "{doc:#}"
    );
}

#[test]
fn a_manuscripts_own_bib_maps_its_keys_by_doi_and_title() {
    let (dir, _) = vault();
    std::fs::write(
        dir.path().join("refs.bib"),
        "@article{H09, title={Something else entirely}, doi={10.5555/AGENTERO.2009.0283}, year=2009}\n\
         @inproceedings{FI23, title={Dense or Sparse? {R}etrieving Passages from Scientific Papers}, year=2023}\n\
         @misc{ghost, title={A Paper Nobody Has In This Vault}, doi={10.9999/none}}\n",
    )
    .unwrap();
    let draft = format!(
        "One “{ON_284}” [@H09, p. 284]. Two “{ON_DENSE_1}” [@FI23, p. 1]. Three [@ghost, p. 1].\n"
    );
    let (doc, code, err) = check_json(dir.path(), &draft, "d.md", &["--bib", "refs.bib"]);
    let c = doc["citations"].as_array().unwrap();
    assert_eq!(c[0]["outcome"], "verified", "{doc:#}");
    assert_eq!(c[0]["paper"], HALVORSEN);
    assert!(c[0]["note"].as_str().unwrap().contains("by DOI"));
    assert_eq!(c[1]["outcome"], "verified");
    assert!(c[1]["note"].as_str().unwrap().contains("by title"));
    assert_eq!(c[2]["outcome"], "not_in_library");
    assert!(
        c[2]["says"]
            .as_str()
            .unwrap()
            .contains("A Paper Nobody Has")
    );
    assert_eq!(code, 1);
    assert!(
        err.contains("refs.bib: 1 entry matches no paper of the vault"),
        "{err}"
    );
}

/// Without `--bib`, the bibliographies the manuscript declares are read: pandoc's front matter
/// (here a CSL-JSON file beside it, in a folder of its own) and biblatex's `\addbibresource`;
/// one that cannot be read is said, and its keys are then not in the library.
#[test]
fn a_manuscript_declares_its_own_bibliographies() {
    let (dir, _) = vault();
    let ms = dir.path().join("manuscript");
    std::fs::create_dir_all(ms.join("lib")).unwrap();
    std::fs::write(
        ms.join("lib/refs.json"),
        r#"[{"id": "H09", "type": "paper-conference", "title": "Not the title",
             "DOI": "https://doi.org/10.5555/AGENTERO.2009.0283"},
            {"id": "ghost", "type": "article-journal", "title": "A Paper Nobody Has In This Vault"}]"#,
    )
    .unwrap();
    std::fs::write(
        ms.join("refs.bib"),
        "@inproceedings{FI23, title={Dense or Sparse? {R}etrieving Passages from Scientific Papers}, year=2023}\n",
    )
    .unwrap();
    let md = format!(
        "---\ntitle: Draft\nbibliography: [lib/refs.json, missing.bib]\n---\n\n\
         One “{ON_284}” [@H09, p. 284]. Two [@ghost, p. 1].\n"
    );
    std::fs::write(ms.join("d.md"), &md).unwrap();
    let out = agentero(&["check", "--json", "manuscript/d.md"], dir.path());
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let err = stderr(&out);
    assert_eq!(
        outcomes(&doc)
            .into_iter()
            .map(|(_, o, _)| o)
            .collect::<Vec<_>>(),
        ["verified", "not_in_library"],
        "{doc:#}\n{err}"
    );
    assert!(
        err.contains("lib/refs.json: 1 entry matches no paper of the vault"),
        "{err}"
    );
    assert!(
        err.contains("cannot read the bibliography missing.bib: "),
        "{err}"
    );
    assert!(
        !err.contains("missing.bib: cannot"),
        "the name said twice: {err}"
    );
    let tex = format!(
        "\\documentclass{{article}}\n\\addbibresource{{refs.bib}}\n% \\addbibresource{{lib/refs.json}}\n\
         \\begin{{document}}\nFusion: ``{ON_DENSE_1}'' \\cite[p.~1]{{FI23}}. Not here \\cite[p.~284]{{H09}}.\n\\end{{document}}\n"
    );
    std::fs::write(ms.join("d.tex"), &tex).unwrap();
    let out = agentero(&["check", "--json", "manuscript/d.tex"], dir.path());
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        outcomes(&doc)
            .into_iter()
            .map(|(_, o, _)| o)
            .collect::<Vec<_>>(),
        ["verified", "not_in_library"],
        "{doc:#}\n{}",
        stderr(&out)
    );
    // `--bib` replaces what the manuscript declares (as pandoc's `--bibliography` does).
    let out = agentero(
        &[
            "check",
            "--json",
            "--bib",
            "manuscript/lib/refs.json",
            "manuscript/d.tex",
        ],
        dir.path(),
    );
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        outcomes(&doc)
            .into_iter()
            .map(|(_, o, _)| o)
            .collect::<Vec<_>>(),
        ["not_in_library", "claim"],
        "{doc:#}"
    );
}

#[test]
fn hostile_manuscripts_get_a_clear_error_or_a_report() {
    let (dir, keys) = vault();
    // Not UTF-8.
    std::fs::write(dir.path().join("latin1.md"), b"caf\xe9 [@x, p. 1]").unwrap();
    let out = agentero(&["check", "latin1.md"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("is not UTF-8 text"),
        "{}",
        stderr(&out)
    );
    // A folder, a missing file.
    let out = agentero(&["check", "papers"], dir.path());
    assert!(stderr(&out).contains("is not a file"), "{}", stderr(&out));
    let out = agentero(&["check", "missing.md"], dir.path());
    assert!(
        stderr(&out).contains("cannot read the manuscript"),
        "{}",
        stderr(&out)
    );
    // Brackets, at-signs, quotes and backslashes in bulk, and a key with terminal escapes:
    // a report, no panic, nothing raw on the terminal.
    let h = &keys[HALVORSEN];
    let mut junk = String::new();
    for i in 0..3000 {
        junk.push_str(match i % 9 {
            0 => "[@",
            1 => "“",
            2 => "\\cite[p.~",
            3 => "]{",
            4 => "@{\u{1b}[31m",
            5 => "\"",
            6 => "(Smith, 20",
            7 => &h[..3],
            _ => "> ",
        });
        if i % 50 == 0 {
            junk.push('\n');
        }
    }
    for name in ["junk.md", "junk.tex", "junk.txt"] {
        std::fs::write(dir.path().join(name), &junk).unwrap();
        let out = agentero(&["check", name], dir.path());
        assert!(
            matches!(out.status.code(), Some(0 | 1)),
            "{name}: {}",
            stderr(&out)
        );
        assert!(
            !stdout(&out).contains('\u{1b}'),
            "escapes shown through `visible`"
        );
        assert!(!stderr(&out).contains("panicked"), "{}", stderr(&out));
    }
}

#[test]
fn the_draft_parser_never_panics_on_random_text() {
    use agentero::context::check::draft::{Format, citations};
    let alphabet: Vec<&str> = vec![
        "[",
        "]",
        "@",
        "a",
        "1",
        "p.",
        " ",
        "\n",
        "“",
        "”",
        "\"",
        "\\cite",
        "{",
        "}",
        "(",
        ")",
        ";",
        ",",
        "–",
        "> ",
        "`",
        "%",
        "ı",
        "2020",
        "Smith",
        "\\begin{quote}",
        "''",
        "``",
        "é",
        "\u{E000}",
    ];
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..400 {
        let mut s = String::new();
        for _ in 0..200 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            s.push_str(alphabet[(seed % alphabet.len() as u64) as usize]);
        }
        for f in [Format::Markdown, Format::Latex, Format::Plain] {
            for c in citations(&s, f) {
                assert!(c.line >= 1 && c.column >= 1);
                assert!(c.at <= s.len());
            }
        }
    }
}

/// A PDF of `pages`, each a list of lines (Helvetica, so every reader reads it); the first line
/// is the title.
fn lines_pdf(pages: &[&[&str]]) -> Vec<u8> {
    use crate::common::hostile_pdf::{pdf, stream};
    let n = pages.len();
    let font = 3 + 2 * n;
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 3 + 2 * i)).collect();
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        format!("<< /Type /Pages /Kids [{}] /Count {n} >>", kids.join(" ")).into_bytes(),
    ];
    for (i, lines) in pages.iter().enumerate() {
        objects.push(
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {} 0 R \
                 /Resources << /Font << /F1 {font} 0 R >> >> >>",
                4 + 2 * i
            )
            .into_bytes(),
        );
        // The first line of the first page is the title, set larger.
        let mut content = String::from("BT 72 700 Td 16 TL");
        for (k, l) in lines.iter().enumerate() {
            let size = if i == 0 && k == 0 { 20 } else { 11 };
            content.push_str(&format!(" /F1 {size} Tf ({l}) Tj T*"));
        }
        content.push_str(" ET");
        objects.push(stream("", content.as_bytes()));
    }
    objects.push(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec());
    pdf(&objects)
}

const ANNEALED: &str = "The samples were annealed at 450 degrees for two hours in argon.";

fn trial(version: &str) -> Vec<u8> {
    let filler: &[&str] = &[
        "Grain growth was observed in every sample after cooling to room temperature.",
        "Hardness was measured at five points on each polished cross section.",
    ];
    match version {
        "v1" => lines_pdf(&[
            &["Annealing trial", ANNEALED, filler[0]],
            &["Discussion", filler[1]],
        ]),
        "edited" => lines_pdf(&[
            &[
                "Annealing trial",
                &ANNEALED.replace("450", "540"),
                filler[0],
            ],
            &["Discussion", filler[1]],
        ]),
        _ => lines_pdf(&[
            &["Annealing trial", filler[0]],
            &["Discussion", ANNEALED, filler[1]],
        ]),
    }
}

#[test]
fn reverify_says_what_changed_when_a_paper_is_replaced_by_a_new_version() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let pdf = root.join("papers/trial/paper.pdf");
    std::fs::create_dir_all(pdf.parent().unwrap()).unwrap();
    std::fs::write(&pdf, trial("v1")).unwrap();
    assert!(agentero(&["index", "."], root).status.success());
    // A real turn of the built-in agent: its answer quotes the sentence and cites the page.
    let out = agentero(
        &[
            "ask",
            "--json",
            "@papers/trial/paper.pdf At what temperature were the samples annealed?",
        ],
        root,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let answer: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let thread = answer["threadId"].as_str().unwrap().to_string();
    let verified: Vec<&Value> = answer["citations"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| {
            c["verdict"] == "verified" && c["quote"].as_str().is_some_and(|q| q.contains("450"))
        })
        .collect();
    assert!(!verified.is_empty(), "{answer:#}");
    // The receipt: the cited paper's hash and the grant.
    let transcript = std::fs::read_to_string(
        root.join(".agentero/chats")
            .join(&thread)
            .join("transcript.jsonl"),
    )
    .unwrap();
    let sha = agentero::vault::fsutil::sha256_file(&pdf).unwrap();
    assert!(transcript.contains(&sha), "{transcript}");
    assert!(transcript.contains("\"grant\""), "{transcript}");

    let same = agentero(&["reverify", &thread[..8]], root);
    assert!(same.status.success(), "{}{}", stdout(&same), stderr(&same));
    assert!(
        stdout(&same).contains("unchanged: verified"),
        "{}",
        stdout(&same)
    );

    // A new version with a number changed: no longer on the page, and said so.
    std::fs::write(&pdf, trial("edited")).unwrap();
    let edited = agentero(&["reverify", &thread], root);
    assert_eq!(edited.status.code(), Some(1), "{}", stderr(&edited));
    let text = stdout(&edited);
    assert!(
        text.contains("this quote is no longer on p. 1 of the new version"),
        "{text}"
    );
    assert!(
        text.contains("1 source replaced by a new version"),
        "{text}"
    );
    assert!(stderr(&edited).contains("verified before are not any more"));

    // A version where the sentence moved to the next page: where it is now.
    std::fs::write(&pdf, trial("moved")).unwrap();
    let moved = agentero(&["reverify", "--json", &thread], root);
    let doc: Value = serde_json::from_str(&stdout(&moved)).unwrap();
    let c = doc["turns"][0]["citations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["then"] == "verified" && c["quote"].as_str().is_some_and(|q| q.contains("450")))
        .unwrap()
        .clone();
    assert_eq!(c["now"], "other_page", "{doc:#}");
    assert_eq!(c["nowFoundAt"], "papers/trial/paper.pdf#page=2");
    assert_eq!(c["sourceChanged"], true);
    assert!(
        c["says"]
            .as_str()
            .unwrap()
            .contains("it is at papers/trial/paper.pdf#page=2")
    );
}
