use super::*;

struct Fixed(HashMap<String, Doc>, HashMap<(String, u32), Vec<String>>);

impl Docs for Fixed {
    fn doc(&mut self, path: &str) -> Option<Doc> {
        self.0.get(path).cloned()
    }

    fn blocks(&mut self, path: &str, page: u32) -> Option<Vec<String>> {
        self.1.get(&(path.to_string(), page)).cloned()
    }
}

fn docs() -> Fixed {
    let mut m = HashMap::new();
    m.insert(
        "papers/a/paper.pdf".to_string(),
        Doc::Pages(vec![
            "Title page. The ﬁrst re-\nsult shows that quoting ﬁrst makes answers check-\nable at almost no cost.".into(),
            "Second page. Recall at ten reaches 0.731 with fusion, against 0.612 for BM25 alone. The experiment ends with a long sen-".into(),
            "tence that runs across the page break into the third page. Nothing else here.".into(),
        ]),
    );
    m.insert(
        "notes/n.md".to_string(),
        Doc::Text(
            "# Notes\n\nLine three says columns are read left to right.\nLine four is unrelated.\n"
                .into(),
        ),
    );
    m.insert(
        "papers/zh/paper.pdf".to_string(),
        Doc::Pages(vec![
            "第一章 引言\n本文提出一种新的检索方法，\n实验结果表明准确率提高了 5.2%。".into(),
            "第二章 方法\n我们使用窗口大小为一百五十个词的段落。".into(),
            String::new(),
        ]),
    );
    // The layout pass spliced a sidebar into the abstract; the content stream did not.
    m.insert(
        "papers/els/paper.pdf".to_string(),
        Doc::Pages(vec![
            "Article history A reader that checks every quote\nReceived 1 May 2020 finds that 12% of\nKeywords: citations the answers cite a wrong page.".into(),
        ]),
    );
    // A journal's pages: a running head with the page number on every page but the first,
    // whose number is at its foot.
    m.insert(
        "papers/j/paper.pdf".to_string(),
        Doc::Pages(vec![
            "A Journal Paper\nThe first page opens the argument and runs on\ninto a sentence that ends on the next page\n\n1".into(),
            "2 SMITH AND JONES\nafter the header, where the claim is finished.\nMore text follows here.".into(),
            "3 SMITH AND JONES\nThe last page closes the paper.".into(),
        ]),
    );
    let mut b = HashMap::new();
    b.insert(
        ("papers/j/paper.pdf".to_string(), 1),
        vec![
            "A Journal Paper".to_string(),
            "The first page opens the argument and runs on\ninto a sentence that ends on the next page".to_string(),
            "1".to_string(),
        ],
    );
    b.insert(
        ("papers/j/paper.pdf".to_string(), 2),
        vec![
            "2 SMITH AND JONES".to_string(),
            "after the header, where the claim is finished.\nMore text follows here.".to_string(),
        ],
    );
    b.insert(
        ("papers/j/paper.pdf".to_string(), 3),
        vec![
            "3 SMITH AND JONES".to_string(),
            "The last page closes the paper.".to_string(),
        ],
    );
    b.insert(
        ("papers/els/paper.pdf".to_string(), 1),
        vec![
            "Article history\nReceived 1 May 2020\nKeywords: citations".to_string(),
            "A reader that checks every quote\nfinds that 12% of\nthe answers cite a wrong page."
                .to_string(),
        ],
    );
    Fixed(m, b)
}

fn judged(answer: &str) -> Vec<(Verdict, Option<String>)> {
    check(answer, &[], &mut docs())
        .into_iter()
        .map(|c| (c.verdict, c.detail))
        .collect()
}

fn verdicts(answer: &str) -> Vec<(Verdict, Option<String>)> {
    check(answer, &[], &mut docs())
        .into_iter()
        .map(|c| (c.verdict, c.found_at))
        .collect()
}

#[test]
fn ligatures_and_hyphenation_are_the_same_text() {
    let a = "> \"The first result shows that quoting first makes answers checkable at almost no cost.\" — papers/a/paper.pdf#page=1\n";
    assert_eq!(verdicts(a), vec![(Verdict::Verified, None)]);
}

#[test]
fn a_quote_from_another_page_names_where_it_is() {
    let a = "They say \"Recall at ten reaches 0.731 with fusion\" (papers/a/paper.pdf#page=1).";
    assert_eq!(
        verdicts(a),
        vec![(
            Verdict::OtherPage,
            Some("papers/a/paper.pdf#page=2".to_string())
        )]
    );
}

#[test]
fn an_invented_or_altered_quote_is_not_found() {
    let invented = "\"Fusion always doubles recall in every setting\" — papers/a/paper.pdf#page=2";
    assert_eq!(verdicts(invented), vec![(Verdict::NotFound, None)]);
    let altered = "\"Recall at ten reaches 0.813 with fusion, against 0.612 for BM25 alone\" — papers/a/paper.pdf#page=2";
    assert_eq!(verdicts(altered), vec![(Verdict::NotFound, None)]);
}

#[test]
fn a_quote_across_a_page_break_is_on_the_page_it_starts_or_ends() {
    let q = "\"The experiment ends with a long sentence that runs across the page break\"";
    assert_eq!(
        verdicts(&format!("{q} papers/a/paper.pdf#page=2")),
        vec![(Verdict::Verified, None)]
    );
    assert_eq!(
        verdicts(&format!("{q} papers/a/paper.pdf#page=3")),
        vec![(Verdict::Verified, None)]
    );
    assert_eq!(
        verdicts(&format!("{q} papers/a/paper.pdf#page=1"))
            .first()
            .map(|v| v.0),
        Some(Verdict::OtherPage)
    );
}

#[test]
fn markers_point_to_the_reference_list_or_the_prompts_evidence() {
    let a = "Fusion helps: \"Recall at ten reaches 0.731 with fusion\" [1]. Also \"columns are read left to right\" [2].\n\n[1] papers/a/paper.pdf#page=2\n";
    let checks = check(
        a,
        &["x.md#line=1,1".into(), "notes/n.md#line=3,3".into()],
        &mut docs(),
    );
    let got: Vec<(&str, Verdict)> = checks.iter().map(|c| (c.uri.as_str(), c.verdict)).collect();
    assert_eq!(
        got,
        vec![
            ("papers/a/paper.pdf#page=2", Verdict::Verified),
            ("notes/n.md#line=3,3", Verdict::Verified)
        ]
    );
}

#[test]
fn a_zero_marker_points_to_nothing() {
    // `[0]` in an answer (a table cell, an index in code) is no marker of the evidence.
    let a = "The row \"x[0] = 1\" and [0] here (papers/a/paper.pdf#page=1)";
    let evidence = vec!["papers/a/paper.pdf#page=1".to_string()];
    let got = check(a, &evidence, &mut docs());
    assert!(got.len() <= 1, "{got:?}");
}

#[test]
fn citations_without_quotes_and_unknown_sources() {
    let a = "See papers/a/paper.pdf#page=2 and papers/a/paper.pdf#page=2 again, and \"something said in a missing paper\" (papers/zz/paper.pdf#page=1).";
    let checks = check(a, &[], &mut docs());
    let got: Vec<Verdict> = checks.iter().map(|c| c.verdict).collect();
    assert_eq!(got, vec![Verdict::NoQuote, Verdict::Unverifiable]);
}

#[test]
fn file_lines_and_bare_pdf_paths_with_a_page() {
    let a = "\"columns are read left to right\" — notes/n.md#line=3,3\n\n\"columns are read left to right\" — notes/n.md#line=1,2\n\n\"Recall at ten reaches 0.731\" (papers/a/paper.pdf, p. 2)";
    let got = verdicts(a);
    assert_eq!(got[0], (Verdict::Verified, None));
    assert_eq!(
        got[1],
        (Verdict::OtherPage, Some("notes/n.md#line=3,3".to_string()))
    );
    assert_eq!(got[2], (Verdict::Verified, None));
    // The tail of a file name with spaces is not a source of its own.
    let spaced =
        "The note cites storage/ABCD2345/Gal et al. - 2009 - Tracing Languages.pdf for it.";
    assert_eq!(cited_places(spaced), Vec::<String>::new());
}

#[test]
fn elided_quotes_and_blockquotes_with_a_source_line() {
    let a = "> The first result shows that quoting first … at almost no cost.\n— papers/a/paper.pdf#page=1\n";
    assert_eq!(verdicts(a), vec![(Verdict::Verified, None)]);
    // Short quoted terms are not quotes.
    let b = "The \"fusion\" method (papers/a/paper.pdf#page=2).";
    assert_eq!(verdicts(b), vec![(Verdict::NoQuote, None)]);
}

#[test]
fn a_changed_number_names_the_token_that_differs() {
    let a = "\"Recall at ten reaches 0.731 with fusion, against 6.12 for BM25 alone\" — papers/a/paper.pdf#page=2";
    let checks = check(a, &[], &mut docs());
    assert_eq!(checks[0].verdict, Verdict::NotFound);
    assert_eq!(
        checks[0].detail.as_deref(),
        Some("\"6.12\" — the page has \"0.612\"")
    );
    assert!(
        checks[0].line().ends_with("the page has \"0.612\""),
        "{}",
        checks[0].line()
    );
}

#[test]
fn chinese_and_japanese_quotes_are_checked() {
    let right = "论文说「本文提出一种新的检索方法，实验结果表明准确率提高了 5.2%」（papers/zh/paper.pdf#page=1）";
    assert_eq!(judged(right), vec![(Verdict::Verified, None)]);
    let wrong = "『实验结果表明准确率提高了 2.5%』 papers/zh/paper.pdf#page=1";
    assert_eq!(judged(wrong)[0].0, Verdict::NotFound);
    let other = "“我们使用窗口大小为一百五十个词的段落” papers/zh/paper.pdf#page=1";
    assert_eq!(
        verdicts(other),
        vec![(
            Verdict::OtherPage,
            Some("papers/zh/paper.pdf#page=2".into())
        )]
    );
    // A page without text cannot say anything about a quote.
    let blank = "「这一页没有任何文字可以核对」 papers/zh/paper.pdf#page=3";
    let got = judged(blank);
    assert_eq!(got[0].0, Verdict::Unverifiable);
    assert!(got[0].1.as_deref().unwrap().contains("no text"), "{got:?}");
}

#[test]
fn a_splice_of_the_layout_pass_is_never_verified() {
    let spliced = "\"Received 1 May 2020 finds that 12% of\" — papers/els/paper.pdf#page=1";
    let got = judged(spliced);
    assert_eq!(got[0].0, Verdict::NotFound);
    assert!(
        got[0].1.as_deref().unwrap().starts_with("spans two blocks"),
        "{got:?}"
    );
    let true_sentence = "\"A reader that checks every quote finds that 12% of the answers cite a wrong page.\" — papers/els/paper.pdf#page=1";
    assert_eq!(judged(true_sentence), vec![(Verdict::Verified, None)]);
}

#[test]
fn an_elision_across_far_pages_is_not_on_the_cited_page() {
    let a = "\"The first result shows that quoting first … Nothing else here\" — papers/a/paper.pdf#page=1";
    let got = judged(a);
    assert_eq!(got[0].0, Verdict::NotFound);
    assert_eq!(
        got[0].1.as_deref(),
        Some("its parts are on p.1, p.3, not in one passage")
    );
}

#[test]
fn a_quote_that_quotes_is_checked_whole() {
    let right = "They write “The first result shows that “quoting first” makes answers checkable at almost no cost.” (papers/a/paper.pdf#page=1)";
    let got = check(right, &[], &mut docs());
    assert_eq!(got[0].verdict, Verdict::Verified);
    assert!(
        got[0].quote.as_deref().unwrap().ends_with("no cost."),
        "{got:?}"
    );
    let altered = "They write “The first result shows that “quoting first” makes answers checkable at almost zero cost.” (papers/a/paper.pdf#page=1)";
    assert_eq!(judged(altered)[0].0, Verdict::NotFound);
}

#[test]
fn straight_quotes_inside_a_quote_are_text() {
    let right = "They write \"The first result shows that \"quoting first\" makes answers checkable at almost no cost.\" (papers/a/paper.pdf#page=1)";
    let got = check(right, &[], &mut docs());
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].verdict, Verdict::Verified);
    assert!(
        got[0].quote.as_deref().unwrap().ends_with("no cost."),
        "{got:?}"
    );
    // A changed word after the inner quote: the prefix before it is never what is checked.
    let altered = right.replace("no cost", "zero cost");
    let got = check(&altered, &[], &mut docs());
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].verdict, Verdict::NotFound, "{got:?}");
    // Inner marks next to punctuation.
    let comma = "They write \"The first result shows that quoting first makes answers \"checkable\", at almost no cost.\" (papers/a/paper.pdf#page=1)";
    let q = quoted_strings(comma);
    assert_eq!(q.len(), 1, "{q:?}");
    assert!(!q[0].unclear);
    assert!(comma[q[0].inner.clone()].ends_with("no cost."), "{q:?}");
    let two = "Page 2 says \"Recall at ten reaches 0.731 with fusion\" and \"against 0.612 for BM25 alone\" (papers/a/paper.pdf#page=2)";
    let got = check(two, &[], &mut docs());
    assert!(
        got.iter().all(|c| c.verdict == Verdict::Verified),
        "two quotes side by side: {got:?}"
    );
}

#[test]
fn a_quote_whose_end_cannot_be_told_is_never_verified_on_a_prefix() {
    // A mark with spaces on both sides reads either way: the longest reading is checked,
    // and when it is not on the page the verdict says why, never ✓ on "The first result
    // shows that".
    let altered = "They write \"The first result shows that \" quoting first\" makes answers checkable at almost zero cost.\" (papers/a/paper.pdf#page=1)";
    let got = judged(altered);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, Verdict::Unverifiable, "{got:?}");
    assert!(
        got[0]
            .1
            .as_deref()
            .unwrap()
            .starts_with("cannot tell where the quote ends"),
        "{got:?}"
    );
    let right = altered.replace("zero cost", "no cost");
    assert_eq!(judged(&right)[0].0, Verdict::Verified);
    // A stray closing mark later in the sentence: the quote may end there.
    let stray = "They write \"The first result shows that\" quoting first makes answers checkable at almost zero cost\" (papers/a/paper.pdf#page=1)";
    let got = judged(stray);
    assert_eq!(got[0].0, Verdict::Unverifiable, "{got:?}");
}

#[test]
fn a_quote_runs_across_a_page_break_over_the_running_head_and_page_number() {
    let q = "\"into a sentence that ends on the next page after the header, where the claim is finished.\"";
    for page in [1, 2] {
        let a = format!("{q} (papers/j/paper.pdf#page={page})");
        assert_eq!(
            judged(&a)[0].0,
            Verdict::Verified,
            "cited p.{page}: {:?}",
            judged(&a)
        );
    }
    // A changed word after the break is still caught.
    let a = "\"into a sentence that ends on the next page after the footer, where the claim is finished.\" (papers/j/paper.pdf#page=2)";
    assert_eq!(judged(a)[0].0, Verdict::NotFound);
    // The running head is not evidence, nor is the page number spliced into the text.
    let head = "\"2 SMITH AND JONES after the header\" (papers/j/paper.pdf#page=2)";
    let got = judged(head);
    assert_eq!(got[0].0, Verdict::NotFound, "{got:?}");
    assert!(
        got[0].1.as_deref().unwrap().contains("running header"),
        "{got:?}"
    );
}
