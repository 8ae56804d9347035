use super::*;
use crate::agent::names::{cites_authors, code_names, names};

/// What an answer with the one quote `quote` leads with.
fn lead(q: &Question, quote: &str) -> Option<String> {
    lead_of(q, &[quote]).map(|(_, l)| l)
}

#[test]
fn values_are_numbers_with_their_units() {
    assert_eq!(
        values("Data on 4406 individuals aged 66 and over."),
        ["4406 individuals", "66"]
    );
    // The index a program prints before its output is not a value.
    assert_eq!(values("[1] 0.8279847"), ["0.8279847"]);
    assert_eq!(values("[1] 4.712588e-07 and [12]"), Vec::<String>::new());
    assert_eq!(values("The margins are 14 pt wide."), ["14 pt"]);
    assert_eq!(
        values("Titles use 10pt (8 pt), about 4% of X1 in 1997 analyze."),
        ["10pt", "8 pt", "4%", "1997"]
    );
    assert_eq!(values("默认每页最多可以放 3 个浮动体"), ["3 个"]);
    // A cross-reference or a citation's year says no value; a year in prose does.
    assert!(values("(2) In extended mode, x = y (3).").is_empty());
    assert!(
        values("A mosaic plot (Hartigan and Kleiner 1984) is shown in Section 3.3.").is_empty()
    );
    assert!(
        values("Edwards and Berry (1987) and Sanderson et al. (2010a) did it, see Table 2.")
            .is_empty()
    );
    assert_eq!(
        values("It used 80.000 runs (Sanderson, 2010), in 1997, since Dec 2002 (2 pages)."),
        ["80.000 runs", "1997", "Dec 2002", "2 pages"]
    );
}

fn ask(question: &str) -> Question {
    super::super::rank::read_question(question, None)
}

#[test]
fn the_lead_is_the_value_or_name_nearest_the_question() {
    let q = ask("How many individuals are in the data?");
    assert_eq!(
        lead(&q, "Table 3 lists data on 4406 individuals."),
        Some("4406 individuals".to_string())
    );
    let q = ask("What window size is used?");
    assert_eq!(
        lead(
            &q,
            "We use W = 150 and S = 75, so every sentence appears in two windows."
        ),
        Some("150".to_string())
    );
    let q = ask("Which function builds start-stop data?");
    assert_eq!(
        lead(&q, "The start-stop data are built by the tmerge function."),
        Some("tmerge".to_string())
    );
    let q = ask("Why is the sky blue?");
    assert_eq!(lead(&q, "tmerge"), None);
}

#[test]
fn authors_of_a_citation_are_not_names_even_when_the_quote_stops_before_the_year() {
    let cut = "The second is data on fetal mandible length discussed by Royston and Altman";
    assert!(names(cut).is_empty(), "{:?}", names(cut));
    assert!(
        names("As Royston and Altman (1994) and Hartigan, Kleiner and Friendly 1984 show.")
            .is_empty()
    );
    assert!(
        names("Models by Venables & Ripley (2002) and Sanderson et al. (2010) fit.").is_empty()
    );
    // Names that end a sentence are not a cut citation; an abbreviation is no name.
    assert_eq!(
        names("We compare it with Armadillo and Eigen."),
        ["Armadillo", "Eigen"]
    );
    assert!(names("A series from the U.S. is used.").is_empty());
    let q = ask("What is measured in the jaw bone data set?");
    assert_eq!(lead(&q, cut), None);
    assert!(cites_authors(cut));
    assert!(!cites_authors("We compare it with Armadillo and Eigen."));
}

#[test]
fn a_how_many_question_leads_with_a_count_before_a_measured_value() {
    let q = ask("How many patients are in the ovarian cancer data?");
    let s =
        "Information was obtained from 299 women, who were operated for cancer 10 years before.";
    assert_eq!(lead(&q, s), Some("299 women".to_string()));
    // A measured value answers "how long"; a count of the asked noun comes first.
    let q = ask("How long before the study were they operated?");
    assert_eq!(lead(&q, s), Some("10 years".to_string()));
    let q = ask("How many years of follow-up are there?");
    assert_eq!(lead(&q, s), Some("10 years".to_string()));
}

#[test]
fn a_command_question_leads_with_code_and_mixed_case_is_not_code() {
    assert_eq!(code_names("The encTEX and pTEX maps UTF-8 codes."), 0);
    assert_eq!(code_names("Call stats::lm(y ~ x) or utils::head."), 2);
    let q = ask("Which command maps an input byte to a control sequence?");
    assert_eq!(
        lead(
            &q,
            "The encTEX maps UTF-8 bytes to a control sequence with \\mubyte."
        ),
        Some("\\mubyte".to_string())
    );
    assert_eq!(
        lead(&q, "The encTEX maps UTF-8 codes to control sequences."),
        None
    );
    let q = ask("Which function fits the model?");
    assert_eq!(
        lead(&q, "In R the LM is fitted with stats::lm on the data."),
        Some("stats::lm".to_string())
    );
    // A model's order is notation, not a call.
    assert_eq!(
        code_names("Is AR(4) or GARCH(1,1) a better fit than ar(4)?"),
        1
    );
    let q = ask("Which function tests the lag coefficients?");
    assert_eq!(
        lead(
            &q,
            "We test whether the AR(4) lag coefficients are constant."
        ),
        None
    );
    // A name question that asks for no code still takes a word.
    let q = ask("Which library do they use for the matrix algebra?");
    assert_eq!(
        lead(&q, "The matrix algebra uses LAPACK."),
        Some("LAPACK".to_string())
    );
}

#[test]
fn placeholder_names_never_lead() {
    let s = "Say, a function foo(lmobj, vcov = x) calls bar() with \\baz and vcovHC.";
    assert_eq!(names(s), ["vcovHC"]);
    assert_eq!(code_names(s), 0);
    let q = ask("Which function estimates robust standard errors?");
    assert_eq!(
        lead(&q, "Say, a function foo(lmobj) wants standard errors."),
        None
    );
}

#[test]
fn a_version_or_a_date_is_one_value() {
    assert_eq!(values("This is quantumarticle version v6.1."), ["v6.1"]);
    assert_eq!(
        values("It needs IEEEtran.cls version 1.8b and later."),
        ["1.8b"]
    );
    assert_eq!(values("August 26, 2015"), ["August 26, 2015"]);
    assert_eq!(
        values("As of version 2.28, released January 2023, on 3 May 2024."),
        ["2.28", "January 2023", "3 May 2024"]
    );
    // A number that ends a hyphenated name is part of it.
    assert!(values("Wide text (A level-3 head)").is_empty());
    assert_eq!(values("in the range 0-254."), ["0", "254"]);
    let q = ask("What version of quantumarticle is this?");
    assert_eq!(
        lead(&q, "This is quantumarticle version v6.1."),
        Some("v6.1".to_string())
    );
}

#[test]
fn the_lead_comes_from_a_later_quote_when_the_first_lacks_the_asked_form() {
    let q = ask("Which version of IEEEtran.cls is the demo file intended for?");
    let quotes = [
        "August 26, 2015",
        "JOURNAL OF LATEX CLASS FILES, VOL. 14, NO. 8, AUGUST 2015 1",
        "The demo file is intended to serve as a starter file produced using IEEEtran.cls version 1.8b and later.",
    ];
    assert_eq!(lead_of(&q, &quotes), Some((2, "1.8b".to_string())));
    // The first quote's lead stays when it has the asked form.
    let q = ask("How many individuals are in the data?");
    let quotes = ["Data on 4406 individuals.", "Of 299 individuals, 10 died."];
    assert_eq!(
        lead_of(&q, &quotes),
        Some((0, "4406 individuals".to_string()))
    );
    // And when no quote has it, the first quote's best.
    let q = ask("What window size is used?");
    assert_eq!(
        lead_of(&q, &["We use W = 150.", "Then S = 75."]),
        Some((0, "150".to_string()))
    );
}

#[test]
fn a_package_question_leads_with_what_the_noun_names_not_a_command() {
    let q = ask("Which package is known to be incompatible with the class layout?");
    let quotes = [
        "Also the affiliation must be formatted by hand; \\affiliation and \\email should do this.",
        "PdfDraftCopy: the pdfdraftcopy package seems to cause problems with the layout.",
    ];
    assert_eq!(lead_of(&q, &quotes), Some((1, "pdfdraftcopy".to_string())));
    let q = ask("Which package allows headers and footers for each page of a long table?");
    assert_eq!(
        lead(
            &q,
            "However, the LATEX2ε package longtable allows headers and footers."
        ),
        Some("longtable".to_string())
    );
    // The head of a list item names what it describes.
    let q = ask("Which package is used for Times New Roman fonts?");
    assert_eq!(
        lead(
            &q,
            "• mathptmx, to use Times New Roman fonts instead of Computer Modern fonts;"
        ),
        Some("mathptmx".to_string())
    );
}

#[test]
fn a_command_made_of_the_question_words_leads() {
    let q = ask("Which bibliography style command should be used?");
    let s = "The bibliography is included with these two commands, placed just before the \\end{document} command: \\bibliographystyle{ACM-Reference-Format} \\bibliography{bibfile}";
    assert_eq!(lead(&q, s), Some("\\bibliographystyle".to_string()));
}

#[test]
fn a_name_goes_with_its_noun_only_as_a_name_does() {
    // Punctuation parts them; a word before the noun names it only after an article.
    let q = ask("Which package should authors avoid for verbatim text?");
    assert_eq!(
        lead_of(&q, &["If you use the other package, please specify it."]),
        None
    );
    let q = ask("How do I tell the program which font file to use?");
    assert_eq!(
        lead_of(
            &q,
            &[
                "Fonts are mapped.",
                "It used a Mac-specific program called xdv."
            ]
        ),
        None
    );
    // "Which class option": an option is asked for.
    let q = ask("Which class option flushes displayed equations left?");
    let quotes = [
        "Use the class option fleqn to flush equations left.",
        "When the prb class option is used, citations are superscripts.",
    ];
    assert_eq!(lead_of(&q, &quotes), Some((0, "fleqn".to_string())));
    // An environment is named by its \\begin; a name is cut where a name cannot go on.
    let q = ask("Which environment should the acknowledgments section use?");
    assert_eq!(
        lead(
            &q,
            "This section has a special environment: \\begin{acks} ..."
        ),
        Some("acks".to_string())
    );
    assert_eq!(
        names("If \\mubyteout>=2 then it is converted."),
        ["\\mubyteout"]
    );
    // A name made of a word of the question but mostly of others is not made of them.
    let q = ask("Which optimizer does lmer use by default?");
    assert_eq!(
        lead_of(
            &q,
            &[
                "It is done by Nelder_Mead.",
                "The optimizeLmer module calls it."
            ]
        ),
        Some((0, "Nelder_Mead".to_string()))
    );
}

#[test]
fn a_later_quote_leads_with_a_value_in_the_asked_unit_only_when_the_first_has_none() {
    let q = ask("For articles over how many pages are keywords required?");
    let quotes = ["Keywords are required.", "Articles over 6 pages need them."];
    assert_eq!(lead_of(&q, &quotes), Some((1, "6 pages".to_string())));
    let quotes = ["The default is 1.", "See 4.8 pages later."];
    assert_eq!(lead_of(&q, &quotes), Some((0, "1".to_string())));
    // A measured value glued to a capital is no version.
    assert_eq!(
        values("Particle size range 0.45D50 to 1.40D50"),
        Vec::<String>::new()
    );
}
