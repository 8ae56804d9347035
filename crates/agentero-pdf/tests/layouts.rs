//! Page layouts that real papers use and a reader must get right, written with `pdf-writer`: an
//! Elsevier-style first page (a narrow "Article history / Keywords" column beside the abstract,
//! a two-column body below), vertical writing (right-to-left columns, vertical punctuation)
//! through a WMode 1 font and through glyphs stacked one by one, and TeX math fonts. Each test
//! asks for the exact text, sentence by sentence.

mod common;

use agentero_pdf::fixtures::{Font, PageBuilder, cid_bytes, cids};
use common::{flat, read, wrap};

const ABSTRACT: [&str; 5] = [
    "Citation contexts describe how a paper is used by the papers that cite it.",
    "We extract the sentences around each citation marker in a corpus of forty thousand full texts.",
    "A classifier trained on a thousand labelled contexts separates background, method and result citations.",
    "Method citations cluster in the first two years after publication, while background citations keep accumulating.",
    "The data set and the code are released for further study of citation behaviour.",
];

const SIDEBAR: [&str; 10] = [
    "ARTICLE INFO",
    "Article history:",
    "Received 12 March 2019",
    "Received in revised form 3 May 2019",
    "Accepted 5 May 2019",
    "Available online 8 May 2019",
    "Keywords:",
    "Citation analysis",
    "Full-text mining",
    "Machine learning",
];

const LEFT_BODY: &str = "Counting citations treats every citation alike, yet a paper may be cited for its data, for its method or only as background. Reading the sentence that holds the citation tells these uses apart. Earlier studies labelled a few hundred contexts by hand.";
const LEFT_BODY_2: &str = "Our corpus holds the full texts of forty thousand papers.";
const RIGHT_BODY: &str = "Each citation marker is resolved to its reference, and the sentence holding the marker, with the sentence before and after it, forms the context. Contexts shorter than five words are dropped from the study.";

/// An Elsevier first page: journal line, title, authors, then the sidebar at the left margin in
/// 7 pt beside the abstract in 8.5 pt (the baselines of the two meet now and then), then two
/// columns of 9.5 pt body text whose short lines also end left of where the abstract starts.
fn elsevier_page() -> Vec<u8> {
    let mut p = PageBuilder::new();
    p.font("F1", Font::Std14("Helvetica"));
    p.font("F2", Font::Std14("Helvetica-Bold"));
    p.font("F3", Font::Std14("Times-Roman"));
    p.show(
        "F3",
        9.0,
        190.0,
        800.0,
        b"Journal of Informetrics 13 (2019) 101-110",
    );
    p.show(
        "F2",
        16.0,
        42.0,
        760.0,
        b"Citation contexts in forty thousand full texts",
    );
    p.show("F1", 10.0, 42.0, 738.0, b"Ana Lima, Ben Ortiz");
    p.show(
        "F1",
        7.0,
        42.0,
        724.0,
        b"Department of Information Science, University of Porto, Portugal",
    );
    p.rule(42.0, 553.0, 712.0);
    // The sidebar and the abstract, each drawn as a whole (the order Elsevier's files use).
    let mut y = 696.0;
    for (i, line) in SIDEBAR.iter().enumerate() {
        let font = if i == 0 { "F2" } else { "F1" };
        p.show(font, 7.0, 42.0, y, line.as_bytes());
        y -= if *line == "Available online 8 May 2019" {
            18.0
        } else {
            9.0
        };
    }
    p.show("F2", 8.5, 200.0, 696.0, b"ABSTRACT");
    let mut y = 684.0;
    for line in wrap(&ABSTRACT.join(" "), 78) {
        p.show("F3", 8.5, 200.0, y, line.as_bytes());
        y -= 10.5;
    }
    p.rule(42.0, 553.0, 590.0);
    // Two columns of body text.
    p.show("F2", 9.5, 42.0, 570.0, b"1. Introduction");
    let mut y = 556.0;
    for line in wrap(LEFT_BODY, 50) {
        p.show("F3", 9.5, 42.0, y, line.as_bytes());
        y -= 11.5;
    }
    y -= 4.0;
    for line in wrap(LEFT_BODY_2, 50) {
        p.show("F3", 9.5, 42.0, y, line.as_bytes());
        y -= 11.5;
    }
    p.show("F2", 9.5, 307.0, 570.0, b"2. Data");
    let mut y = 556.0;
    for line in wrap(RIGHT_BODY, 50) {
        p.show("F3", 9.5, 307.0, y, line.as_bytes());
        y -= 11.5;
    }
    p.finish()
}

#[test]
fn elsevier_sidebar_is_its_own_block_after_the_abstract() {
    let doc = read(&elsevier_page());
    let text = &doc.pages[0].text;
    let page = flat(text);
    for sentence in ABSTRACT {
        assert!(
            page.contains(sentence),
            "sentence spliced: {sentence:?}\n{text}"
        );
    }
    // The sidebar: its lines in order, nothing of the abstract between them (a blank line
    // where the sidebar leaves one before "Keywords:").
    let from = text
        .find("ARTICLE INFO")
        .unwrap_or_else(|| panic!("no sidebar:\n{text}"));
    let sidebar: Vec<&str> = text[from..]
        .lines()
        .filter(|l| !l.is_empty())
        .take(10)
        .collect();
    assert_eq!(sidebar, SIDEBAR, "{text}");
    assert!(text[from..].starts_with(&SIDEBAR[..6].join("\n")), "{text}");
    // Read after the abstract, before the body.
    let at = |s: &str| {
        text.find(s)
            .unwrap_or_else(|| panic!("{s:?} missing:\n{text}"))
    };
    assert!(at("ABSTRACT") < at("ARTICLE INFO"), "{text}");
    assert!(at("citation behaviour.") < at("ARTICLE INFO"), "{text}");
    assert!(at("Machine learning") < at("1. Introduction"), "{text}");
    for sentence in [LEFT_BODY, LEFT_BODY_2, RIGHT_BODY] {
        for s in sentence.split_inclusive(". ") {
            assert!(
                page.contains(s.trim()),
                "body sentence spliced: {s:?}\n{text}"
            );
        }
    }
    assert!(at("full texts.") < at("2. Data"), "{text}");
}

/// The abstract of an Elsevier cas-dc first page: one paragraph whose sentences run on from line
/// to line, the LaTeX logo's E set a little below the line.
const CAS_ABSTRACT: [&str; 3] = [
    "This template helps you to create a properly formatted LATEX manuscript.",
    "The abstract and the keywords are set in the same font and size, on the same baselines, as the column beside them.",
    "Each keyword shall be separated by a separator command.",
];
const CAS_KEYWORDS: [&str; 5] = [
    "Keywords:",
    "quadrupole exciton",
    "polariton",
    "whispering gallery",
    "condensate",
];

/// A cas-dc first page: "ARTICLE INFO" and "ABSTRACT" over a keyword column and the abstract,
/// both in one font and size and on shared baselines (no font of its own tells the column from
/// the abstract, as on a real cas-dc page), then "1. Introduction" and a two-column body.
fn cas_dc_page() -> Vec<u8> {
    let mut p = PageBuilder::new();
    p.font("F1", Font::Std14("Times-Roman"));
    p.font("F2", Font::Std14("Times-Bold"));
    p.show("F2", 16.0, 42.0, 780.0, b"A specimen title");
    p.show("F2", 7.0, 42.0, 740.0, b"ARTICLE INFO");
    p.show("F2", 7.0, 200.0, 740.0, b"ABSTRACT");
    let pitch = 9.46;
    for (i, line) in CAS_KEYWORDS.iter().enumerate() {
        p.show("F1", 8.0, 42.0, 722.0 - pitch * i as f32, line.as_bytes());
    }
    // The first line ends in the logo: "LAT", a lowered "E", then "X manuscript." on the line.
    let y = |i: usize| 722.0 - pitch * i as f32;
    p.show(
        "F1",
        8.0,
        200.0,
        y(0),
        b"This template helps you to create a properly formatted LAT",
    );
    p.show("F1", 8.0, 390.6, y(0) - 1.9, b"E");
    p.show("F1", 8.0, 394.9, y(0), b"X manuscript.");
    let rest = format!("{} {}", CAS_ABSTRACT[1], CAS_ABSTRACT[2]);
    for (i, line) in wrap(&rest, 70).iter().enumerate() {
        p.show("F1", 8.0, 200.0, y(i + 1), line.as_bytes());
    }
    p.rule(42.0, 553.0, 660.0);
    p.show("F2", 9.5, 42.0, 640.0, b"1. Introduction");
    let mut y = 626.0;
    for line in wrap(LEFT_BODY, 50) {
        p.show("F1", 9.5, 42.0, y, line.as_bytes());
        y -= 11.5;
    }
    p.show("F2", 9.5, 307.0, 640.0, b"2. Data");
    let mut y = 626.0;
    for line in wrap(RIGHT_BODY, 50) {
        p.show("F1", 9.5, 307.0, y, line.as_bytes());
        y -= 11.5;
    }
    p.finish()
}

#[test]
fn a_keyword_column_in_the_abstracts_font_is_its_own_block() {
    let doc = read(&cas_dc_page());
    let text = &doc.pages[0].text;
    let page = flat(text);
    for sentence in CAS_ABSTRACT {
        assert!(
            page.contains(sentence),
            "sentence spliced: {sentence:?}\n{text}"
        );
    }
    let from = text
        .find("Keywords:")
        .unwrap_or_else(|| panic!("no keyword column:\n{text}"));
    assert!(text[from..].starts_with(&CAS_KEYWORDS.join("\n")), "{text}");
    let at = |s: &str| {
        text.find(s)
            .unwrap_or_else(|| panic!("{s:?} missing:\n{text}"))
    };
    assert!(at("separator command.") < at("Keywords:"), "{text}");
    assert!(at("condensate") < at("1. Introduction"), "{text}");
    assert!(at("1. Introduction") < at("Counting citations"), "{text}");
    for s in LEFT_BODY
        .split_inclusive(". ")
        .chain(RIGHT_BODY.split_inclusive(". "))
    {
        assert!(
            page.contains(s.trim()),
            "body sentence spliced: {s:?}\n{text}"
        );
    }
}

/// Five columns of vertical text, right to left, with vertical punctuation.
const TATEGAKI: [&str; 5] = [
    "官報は政府の公告を載せる。",
    "法律、政令、条約を公布し、",
    "「告示」も掲載する。",
    "発行は行政機関の休日を除き",
    "毎日である。",
];
const PHRASES: [&str; 6] = ["官報", "公告", "法律", "政令", "告示", "行政機関"];

fn vertical_text() -> String {
    TATEGAKI.concat()
}

/// The same columns written for a vertical font: the vertical forms of `。`, `、` and `「」`
/// where a typesetter puts them (Adobe-Japan1 has glyphs of their own for them).
fn with_vertical_forms(column: &str) -> String {
    column
        .chars()
        .map(|c| match c {
            '。' => '︒',
            '、' => '︑',
            '「' => '﹁',
            '」' => '﹂',
            c => c,
        })
        .collect()
}

#[test]
fn identity_v_columns_read_right_to_left() {
    let mut p = PageBuilder::new();
    p.font("F1", Font::Std14("Helvetica"));
    p.font(
        "V1",
        Font::Cid {
            cmap: "Identity-V",
            ordering: "Japan1",
            widths: Vec::new(),
        },
    );
    p.show("F1", 9.0, 400.0, 800.0, b"Kanpo 1234");
    for (i, column) in TATEGAKI.iter().enumerate() {
        let codes = cid_bytes(&cids("UniJIS-UTF16-V", &with_vertical_forms(column)));
        p.show("V1", 12.0, 500.0 - 18.0 * i as f32, 760.0, &codes);
    }
    let doc = read(&p.finish());
    assert_eq!(
        doc.pages[0].text,
        format!("Kanpo 1234\n\n{}", vertical_text())
    );
    for phrase in PHRASES {
        assert!(doc.pages[0].text.contains(phrase), "{phrase}");
    }
}

#[test]
fn glyphs_stacked_one_by_one_read_as_columns() {
    let mut p = PageBuilder::new();
    p.font("F1", Font::Std14("Helvetica"));
    p.font(
        "J1",
        Font::Cid {
            cmap: "Identity-H",
            ordering: "Japan1",
            widths: Vec::new(),
        },
    );
    p.show("F1", 9.0, 400.0, 800.0, b"Kanpo 1234");
    // Each glyph by its own text matrix, one under the other, columns right to left; the
    // vertical forms of the punctuation, as a producer that stacks glyphs writes them.
    for (i, column) in TATEGAKI.iter().enumerate() {
        let x = 500.0 - 18.0 * i as f32;
        let cids = cids("UniJIS-UTF16-H", &with_vertical_forms(column));
        for (k, cid) in cids.iter().enumerate() {
            p.show("J1", 12.0, x, 760.0 - 12.5 * k as f32, &cid.to_be_bytes());
        }
    }
    let doc = read(&p.finish());
    assert_eq!(
        doc.pages[0].text,
        format!("Kanpo 1234\n\n{}", vertical_text())
    );
}

#[test]
fn math_fonts_decode_minus_relations_and_greek() {
    let mut p = PageBuilder::new();
    p.font("R", Font::Bare("CMR10"));
    p.font("S", Font::Bare("CMSY10"));
    p.font("M", Font::Bare("CMMI10"));
    p.font("T", Font::Std14("Times-Roman"));
    p.show("T", 10.0, 72.0, 692.0, b"The bound holds for all inputs:");
    // x − y ≤ α, β ≥ 0, a × b ± c, x ∈ A → B, ∞: TeX's OML/OMS codes in CMMI10/CMSY10, each
    // word drawn glyph run by glyph run, words a third of an em apart.
    let words: [&[(&str, &[u8])]; 15] = [
        &[("M", b"x")],
        &[("S", b"\x00")],
        &[("M", b"y")],
        &[("S", b"\x14")],
        &[("M", b"\x0b"), ("R", b",")],
        &[("M", b"\x0c")],
        &[("S", b"\x15")],
        &[("R", b"0,")],
        &[
            ("M", b"a"),
            ("S", b"\x02"),
            ("M", b"b"),
            ("S", b"\x06"),
            ("M", b"c"),
            ("R", b","),
        ],
        &[("M", b"x")],
        &[("S", b"\x32")],
        &[("M", b"A")],
        &[("S", b"\x21")],
        &[("M", b"B"), ("R", b",")],
        &[("S", b"\x31"), ("R", b".")],
    ];
    let mut x = 72.0;
    for word in words {
        for (font, bytes) in word {
            p.show(font, 10.0, x, 680.0, bytes);
            x += 6.0 * bytes.len() as f32;
        }
        x += 3.5;
    }
    let doc = read(&p.finish());
    assert_eq!(
        doc.pages[0].text,
        "The bound holds for all inputs:\nx − y ≤ α, β ≥ 0, a×b±c, x ∈ A → B, ∞."
    );
    assert!(!doc.pages[0].text.contains('Γ'));
}
