//! What kind of answer a question asks for, from its words: a number ("how many", "what
//! size", 多少), the paper's contribution, its data, its limitations, or a name written as code
//! ("which function", "how can I … in R"). Each kind has its cues in [`super::choose`].

use super::candidate::Kind;

pub(super) fn contains_any(text: &str, needles: &[&str]) -> bool {
    needles.iter().any(|n| text.contains(n))
}

/// The words of a question that asks how many, how much, which size or year.
const NUMBER_CUES: &[&str] = &[
    "how many",
    "how much",
    "how long",
    "how big",
    "how wide",
    "how large",
    "how far",
    "how high",
    "how tall",
    "how small",
    "how often",
    "how old",
    "what size",
    "which size",
    "what percentage",
    "what share",
    "what fraction",
    "what proportion",
    "what number",
    "what version",
    "which version",
    "what resolution",
    "maximum",
    "minimum",
    "at most",
    "at least",
    "word limit",
    "what year",
    "when was",
    "default value",
    "font size",
    "text size",
    // Chinese, Japanese and Korean "how many / how much / which year / what share".
    "多少",
    "几个",
    "几层",
    "几种",
    "几部分",
    "几页",
    "多大",
    "多长",
    "多宽",
    "多高",
    "哪一年",
    "哪年",
    "百分之",
    "何年",
    "何種類",
    "何個",
    "何ページ",
    "何文字",
    "いくつ",
    "どのくらい",
    "몇",
    "얼마",
];

/// What a "what / which …" question asks the value of ("what window size", "which rate").
const MEASURES: &[&str] = &[
    " size",
    " version",
    " resolution",
    " length",
    " width",
    " height",
    " percentage",
    " number of",
    " year ",
    " date ",
    " value",
    " values",
    // Quantities a reader asks the value of.
    " probability",
    " rate",
    " ratio",
    " accuracy",
    " score",
    " temperature",
    " speed",
    " cost",
    " price",
    " weight",
    " dose",
    " duration",
    " p-value",
    " sample size",
];

pub fn kind_of(question: &str) -> Kind {
    let q = format!(" {} ", question.to_lowercase());
    if contains_any(
        &q,
        &[
            "limitation",
            "weakness",
            "drawback",
            "shortcoming",
            "future work",
            " bug",
            "caveat",
            " fail",
            "problems",
            "缺点",
            "局限",
            "不足",
            "弱点",
            "欠点",
            "問題点",
            "什么问题",
            "단점",
            "한계",
        ],
    ) {
        return Kind::Limitation;
    }
    if contains_any(
        &q,
        &[
            "dataset",
            "data set",
            "corpus",
            "corpora",
            "benchmark",
            "what data",
            "which data",
        ],
    ) || asks_for_data(&q)
    {
        return Kind::Dataset;
    }
    if contains_any(
        &q,
        &[
            "contribution",
            "propose",
            "purpose",
            "objective",
            " aim ",
            " goal",
            "main idea",
            " about?",
            " about ",
            "what is this ",
        ],
    ) || is_what_for(&q)
    {
        return Kind::Contribution;
    }
    if NUMBER_CUES.iter().any(|c| number_cue_at_head(&q, c))
        || q.contains('几') && !q.contains("几乎")
    {
        return Kind::Number;
    }
    if is_name_question(&q) {
        return Kind::Name;
    }
    // "What window size is used?", "Which version of natbib …?", "In which point sizes …?"
    if asks_a_measure(&q) {
        return Kind::Number;
    }
    Kind::Other
}

/// A "how …" cue counts where the question asks it, at its first "how": in "How do I color
/// the tiles according to how far each cell is from independence?" the question asks how to
/// do something and "how far" only says which tiles. Other cues count anywhere.
fn number_cue_at_head(q: &str, cue: &str) -> bool {
    match cue.strip_prefix("how ") {
        Some(_) => q.find(" how ").is_some_and(|i| q[i + 1..].starts_with(cue)),
        None => q.contains(cue),
    }
}

/// "What window size …?", "Which learning rate …?", "What is the r0 value of Ag?", "In which
/// point sizes …?": what/which (after a preposition, if any) asks for a measure named within
/// its first words; "What happens to observations with a missing predictor value?" asks
/// something else.
fn asks_a_measure(q: &str) -> bool {
    let mut t = q.trim_start();
    for p in ["in ", "at ", "for ", "to ", "of ", "on ", "with ", "by "] {
        if let Some(rest) = t.strip_prefix(p) {
            t = rest;
            break;
        }
    }
    if !(t.starts_with("what ") || t.starts_with("which ")) {
        return false;
    }
    let head: String = t.split_whitespace().take(5).collect::<Vec<_>>().join(" ");
    let head = format!(" {head} ");
    MEASURES.iter().any(|m| head.contains(m))
}

/// "Which function …?", "What command …?", "How can I … in R?": a name answers it. "Which
/// method performs best?" asks for a name too.
fn is_name_question(q: &str) -> bool {
    const ASKED: &[&str] = &[
        "function",
        "command",
        "class",
        "package",
        "library",
        "method",
        "routine",
        "argument",
        "option",
        "estimator",
        "tool",
        "software",
        "program",
        "optimizer",
        "algorithm",
        "macro",
        "environment",
    ];
    let t = q.trim_start();
    let which = ["which ", "what "].iter().any(|w| t.starts_with(w))
        && ASKED.iter().any(|a| {
            // The asked-for noun within the question's first words ("which R function", "what
            // kind of class").
            t.split_whitespace().take(5).any(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric())
                    .starts_with(a)
            })
        });
    // "How can I …" / "how do I …" in a question that names code or a language.
    let how = (t.starts_with("how can i ") || t.starts_with("how do i "))
        && ASKED.iter().any(|a| t.contains(a));
    which || how
}

/// "What real data …?", "Which survey data …?": data named within a what/which question's
/// first words.
fn asks_for_data(q: &str) -> bool {
    let t = q.trim_start();
    (t.starts_with("what ") || t.starts_with("which "))
        && t.split_whitespace()
            .take(4)
            .any(|w| w.trim_matches(|c: char| !c.is_alphanumeric()) == "data")
}

/// "What is the lps class for?", "What is this demo file for?"
fn is_what_for(q: &str) -> bool {
    let t = q.trim().trim_end_matches('?').trim_end();
    t.starts_with("what is") && t.ends_with(" for")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_of_questions() {
        assert_eq!(kind_of("What window size is used?"), Kind::Number);
        assert_eq!(kind_of("How many referees review a paper?"), Kind::Number);
        assert_eq!(
            kind_of("What is the main contribution?"),
            Kind::Contribution
        );
        assert_eq!(kind_of("What is this paper about?"), Kind::Contribution);
        assert_eq!(kind_of("What is the lps class for?"), Kind::Contribution);
        assert_eq!(kind_of("Which dataset do they use?"), Kind::Dataset);
        assert_eq!(
            kind_of("What real data do they use for the example?"),
            Kind::Dataset
        );
        assert_eq!(
            kind_of("Which function gives me a moving average of a series?"),
            Kind::Name
        );
        assert_eq!(kind_of("What R class holds a sparse matrix?"), Kind::Name);
        assert_eq!(
            kind_of("How can I call that function from the command line?"),
            Kind::Name
        );
        assert_eq!(kind_of("Which paper came first?"), Kind::Other);
        assert_eq!(kind_of("What are the limitations?"), Kind::Limitation);
        assert_eq!(kind_of("Where are table captions placed?"), Kind::Other);
        assert_eq!(
            kind_of("What probability comes out of the example?"),
            Kind::Number
        );
        assert_eq!(kind_of("Which learning rate did they pick?"), Kind::Number);
        assert_eq!(kind_of("What is the r0 value of Ag?"), Kind::Number);
        assert_eq!(
            kind_of("In which point sizes do the fonts come?"),
            Kind::Number
        );
        assert_eq!(
            kind_of("How far is the margin from the edge?"),
            Kind::Number
        );
        assert_eq!(
            kind_of("After converting it, how many rows are left?"),
            Kind::Number
        );
    }

    /// A number asked for inside what a question describes is not what it asks.
    #[test]
    fn a_number_cue_counts_where_the_question_asks_it() {
        assert_eq!(
            kind_of(
                "How do I color the tiles according to how far each cell is from independence?"
            ),
            Kind::Other
        );
        assert_eq!(
            kind_of("What happens to observations with a missing predictor value when it splits?"),
            Kind::Other
        );
        assert_eq!(
            kind_of("What goes wrong if I use a value measured later?"),
            Kind::Other
        );
    }
}
