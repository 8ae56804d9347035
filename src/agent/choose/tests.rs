use super::*;

#[test]
fn names_written_as_code_are_counted_and_abbreviations_are_not() {
    assert_eq!(
        code_names("This is done with the anova(f0, f1) command."),
        1
    );
    assert_eq!(code_names("Fill them with na.approx or na.locf."), 2);
    assert_eq!(code_names("Use xtsAttributes to keep the source."), 1);
    assert_eq!(code_names("an object of class \"zoo\" is returned"), 1);
    assert_eq!(code_names("e.g., the mean, i.e., a summary, and so on."), 0);
    assert_eq!(code_names("The Durbin-Watson test (1950) is biased."), 0);
}

#[test]
fn the_name_after_the_sentence_that_asks_for_it_is_quoted_first() {
    let q = Question {
        kind: Kind::Name,
        words: vec![
            "test".into(),
            "slopes".into(),
            "same".into(),
            "quantiles".into(),
        ],
        terms: stems("test slopes same quantiles"),
        expansion: Vec::new(),
        deictic: false,
        this_page: false,
        setting: false,
        asks: Default::default(),
    };
    let page = "Quantile regression fits the conditional quantiles of a response. \
                Suppose that we wanted to test that the slopes were the same at the three quantiles? \
                This is done with the anova(fit1, fit2) command as follows. \
                The slopes differ in the plot below.";
    let cand = Candidate {
        uri: "papers/q/paper.pdf#page=9".into(),
        title: "Quantile Regression in R".into(),
        text: page.into(),
        rank: Some(0),
        anchor: false,
        first_page: false,
    };
    let picks = choose(&q, &[cand], None);
    assert!(
        picks[0].text.contains("anova("),
        "{:?}",
        picks.iter().map(|p| (&p.text, p.score)).collect::<Vec<_>>()
    );
}

fn question(text: &str) -> Question {
    crate::agent::rank::read_question(text, None)
}

fn page(uri: &str, text: &str, first_page: bool) -> Candidate {
    Candidate {
        uri: uri.into(),
        title: "Robust Covariances".into(),
        text: text.into(),
        rank: Some(0),
        anchor: false,
        first_page,
    }
}

/// A reference list that holds every word of the question, a running head, a contents list
/// and the title page's authors and affiliation are never quoted; the body sentence is,
/// though it has fewer of the words.
#[test]
fn references_running_heads_and_front_matter_are_never_quoted() {
    let title_page = "Achim Zeileis, Christian Kleiber and Kurt Hornik\nDepartment of Heteroskedasticity Statistics, Universität Innsbruck\nE-mail: heteroskedasticity@uibk.ac.at\n\nAbstract\nThe function vcovHC computes heteroskedasticity consistent covariance matrices for linear models.";
    let refs = "Journal of Statistical Software 19\nthe estimators are compared in the next section of this paper.\n\nReferences\nWhite H (1980). “A Heteroskedasticity-Consistent Covariance Matrix Estimator and a Direct\nTest for Heteroskedasticity.” Econometrica, 48, 817–838.\nMacKinnon JG, White H (1985). “Some Heteroskedasticity-Consistent Covariance Matrix\nEstimators with Improved Finite Sample Properties.” Journal of Econometrics, 29, 305–325.";
    let contents = "Contents\n1 Heteroskedasticity consistent covariance 2\n2 Heteroskedasticity and autocorrelation 5\n3 Covariance matrix estimators 8\n4 Summary 12";
    let cands = [
        page("p.pdf#page=1", title_page, true),
        page("p.pdf#page=19", refs, false),
        page("p.pdf#page=2", contents, false),
    ];
    let q = question(
        "Which function computes heteroskedasticity consistent covariance matrix estimators?",
    );
    let picks = choose(&q, &cands, None);
    assert!(!picks.is_empty());
    assert!(
        picks[0].text.starts_with("The function vcovHC"),
        "{picks:?}"
    );
    for p in &picks {
        assert!(
            !p.uri.ends_with("page=2")
                && !p.text.contains("Econometrica")
                && !p.text.contains("Journal of")
                && !p.text.contains("uibk")
                && !p.text.contains("Innsbruck"),
            "{picks:?}"
        );
    }
    // A question about what is cited is answered from the list.
    let q = question("Which papers are cited for the heteroskedasticity consistent estimator?");
    let picks = choose(&q, &cands, None);
    assert!(
        picks
            .iter()
            .any(|p| p.uri.ends_with("page=19")
                && p.text.contains("Heteroskedasticity-Consistent")),
        "{picks:?}"
    );
}

/// The value asked for is in the sentence after the one with the question's words (program
/// output, a following sentence): that one is quoted first, not the general sentence before it.
#[test]
fn the_value_after_the_sentence_with_the_words_is_quoted_first() {
    let text = "We are interested in the probability of the event in the simple trivariate example. \
                This is computed as follows: > pmvnorm(lower, upper) [1] 0.8279847 attr(,\"error\"). \
                The region of integration is given by the vectors lower and upper.";
    let cands = [page("m.pdf#page=2", text, false)];
    let q = question("What probability comes out of the simple trivariate example?");
    assert_eq!(q.kind, Kind::Number);
    let picks = choose(&q, &cands, None);
    assert!(picks[0].text.contains("0.8279847"), "{picks:?}");
    // A data set is named in the sentence after its heading.
    let text = "Testing coefficients in cross-sectional data\n\n\
                The corresponding figures for the 51 states are available in the data frame \
                PublicSchools which can be loaded by the code below.";
    let cands = [
        page("s.pdf#page=9", text, false),
        page(
            "s.pdf#page=1",
            "Economic data from cross-sectional studies typically exhibit heteroskedasticity.",
            true,
        ),
    ];
    let q = question("What real data do they use for the cross-sectional example?");
    assert_eq!(q.kind, Kind::Dataset);
    let picks = choose(&q, &cands, None);
    assert!(picks[0].text.contains("PublicSchools"), "{picks:?}");
}

/// In a folder, the paper whose read pages hold all of the question's words leads, though the
/// search ranked a page of another paper (that has only some of them) first.
#[test]
fn the_paper_with_all_of_the_question_words_leads_a_folder_answer() {
    let mut other = page(
        "papers/a/paper.pdf#page=3",
        "Panel data are analysed with several packages in this chapter.",
        false,
    );
    other.rank = Some(0);
    let mut right = page(
        "papers/b/paper.pdf#page=28",
        "Multi-state models of panel data are fitted with the msm package as well.",
        false,
    );
    right.rank = Some(1);
    let mut more = page(
        "papers/b/paper.pdf#page=29",
        "The mstate package starts with a data set in long format.",
        false,
    );
    more.rank = Some(2);
    let q = question("Which packages fit multi-state models of panel data?");
    let cands = [other, right, more];
    let sents = collect(&q, &cands, None);
    let prior = paper_prior(&q, &cands, &sents);
    assert!(
        prior["papers/b/paper.pdf"] > prior["papers/a/paper.pdf"],
        "{prior:?}"
    );
    let picks = choose(&q, &cands, None);
    assert!(picks[0].uri.starts_with("papers/b/"), "{picks:?}");
}

/// "For example" links a sentence to the one before: a sentence that says so does not match a
/// question about "the example" by those words, the one that is about the example does.
#[test]
fn for_example_does_not_match_a_question_about_the_example() {
    let cands = [
        page(
            "l.pdf#page=12",
            "For example, if we set the number of levels to two, we could create the factor with the function.",
            false,
        ),
        page(
            "l.pdf#page=2",
            "We introduce the sleepstudy data that will be used as an example throughout.",
            false,
        ),
    ];
    let q = question("What data set is used for the running example of the paper?");
    assert_eq!(q.kind, Kind::Dataset);
    let sents = collect(&q, &cands, None);
    assert!(!sents[0].tf.contains_key("exampl"), "{:?}", sents[0].tf);
    assert!(sents[1].tf.contains_key("exampl"));
    let picks = choose(&q, &cands, None);
    assert!(picks[0].text.contains("sleepstudy"), "{picks:?}");
}

/// A citation's year and a cross-reference are not the number a question asks for: the
/// sentence that states a value is quoted first, and the sentence with only a year is worth
/// what a sentence without a number is.
#[test]
fn a_citation_year_or_a_section_number_is_not_a_value() {
    assert!(!has_number(
        "A mosaic plot (Hartigan and Kleiner 1984) is shown in Section 3."
    ));
    assert!(has_number("Information was obtained from 299 women."));
    let cands = [page(
        "v.pdf#page=40",
        "The ovarian cancer data of the worked example were described by Obel (1975). \
         Information on the ovarian cancer patients was obtained from 299 women in the study.",
        false,
    )];
    let q = question("How many patients are in the ovarian cancer data of the worked example?");
    assert_eq!(q.kind, Kind::Number);
    let picks = choose(&q, &cands, None);
    assert!(picks[0].text.contains("299 women"), "{picks:?}");
}

/// A data set credited to its authors is told by them: the sentence that says whose data the
/// examples use is quoted before one that only describes it, though authors are never a name.
#[test]
fn a_data_question_is_answered_by_the_sentence_that_credits_the_data() {
    let q = question("Which data do the examples use?");
    let text = "The examples use data on growth. \
                The examples use data on growth over many weeks in several hospitals, which were \
                collected and first discussed at length by Royston and Altman (1994).";
    let picks = choose(&q, &[page("p.pdf#page=3", text, false)], None);
    assert!(
        picks[0].text.contains("Royston"),
        "{:?}",
        picks.iter().map(|p| (&p.text, p.score)).collect::<Vec<_>>()
    );
}

/// What a program printed holds the value the prose before its session names: the printed
/// line is quoted before a sentence that only shares a word of the question with it.
#[test]
fn a_printed_value_is_read_with_the_prose_that_introduces_it() {
    let q = question("What probability comes out of the normal example?");
    let text = "We are interested in the normal probability P(X < 1).\n\
                This is computed as follows:\n\
                > pmvnorm(mean = 0, sigma = 1, upper = 1)\n\
                [1] 0.8413447\n\
                attr(,\"error\")\n\
                First, the bounds are given by the vectors lower and upper.\n\n\
                The example is simple and has 3 lines.";
    let picks = choose(&q, &[page("papers/m/paper.pdf#page=2", text, false)], None);
    let texts: Vec<&str> = picks.iter().map(|p| p.text.as_str()).collect();
    let printed = texts.iter().position(|t| *t == "[1] 0.8413447");
    let other = texts.iter().position(|t| t.starts_with("The example"));
    assert!(
        printed.is_some_and(|p| other.is_none_or(|o| p < o)),
        "{texts:?}"
    );
}

/// A heading that has the question's words names its section; the sentence under it is
/// quoted too, and leads the answer.
#[test]
fn the_sentence_under_a_heading_leads_the_heading() {
    let q = question("What happens to observations with missing values at a split?");
    let text = "Missing values at a split\n\n\
                Surrogates can be established by searching for divisions that give \
                roughly the same partition as the original one.\n\n\
                The tree is grown in a recursive fashion until the stopping criterion holds.";
    let picks = choose(&q, &[page("papers/t/paper.pdf#page=6", text, false)], None);
    let texts: Vec<&str> = picks.iter().map(|p| p.text.as_str()).collect();
    assert!(texts[0].starts_with("Surrogates can"), "{texts:?}");
    assert!(texts.contains(&"Missing values at a split"), "{texts:?}");
}

#[test]
fn code_a_cut_sentence_and_a_label_with_its_value_are_no_headings() {
    let c = page("papers/t/paper.pdf#page=1", "", false);
    let sent = |text: &str| Sent {
        text: text.into(),
        cand: &c,
        shape: Shape::Body,
        in_selection: false,
        pos: 0,
        tf: HashMap::new(),
        len: 1,
        number_near_term: false,
    };
    assert!(around::is_heading(&sent(
        "Missing values and surrogate splits"
    )));
    assert!(around::is_heading(&sent(
        "3.1 Compatibility and Extended Mode"
    )));
    assert!(!around::is_heading(&sent(
        "type = \"{Ph.D.} dissertation\""
    )));
    assert!(around::is_heading(&sent("3.2 草稿模式")));
    assert!(!around::is_heading(&sent("Number of particles 4008")));
    assert!(!around::is_heading(&sent("in your database entry")));
}
