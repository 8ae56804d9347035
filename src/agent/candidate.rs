//! What choosing an answer works on and gives: the question as read (its `Kind`, key terms and
//! what it names), the `Candidate` pages it may quote from and the `Pick`s chosen from them.
//! `rank` reads a `Question`, `choose` turns candidates into picks.

use super::shape::Asks;

/// What kind of answer the question asks for (each has its cues).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// How many, how much, what size, which version: a number answers it.
    Number,
    /// The contribution, purpose or topic of a paper.
    Contribution,
    /// The data a paper uses.
    Dataset,
    /// Limitations, known bugs, future work.
    Limitation,
    /// Which function, command, class, package or tool: a name written as code answers it.
    Name,
    Other,
}

/// A question, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub kind: Kind,
    /// The key words as typed (lowercase), for messages.
    pub words: Vec<String>,
    /// The key words stemmed: what sentences are scored with.
    pub terms: Vec<String>,
    /// Stemmed words of the anchor (the selection), weighted lower.
    pub expansion: Vec<String>,
    /// The question points at the anchor ("this selection", "what does this mean?").
    pub deictic: bool,
    /// The question asks about the current page itself ("this page").
    pub this_page: bool,
    /// The question asks for a setting ("what window size is used?", "the default …").
    pub setting: bool,
    /// What the question names (a figure, a footnote, a reference), so those are not ranked down.
    pub asks: Asks,
}

/// A page (or file region) the answer may quote from.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub uri: String,
    /// The source's title (a sentence that is just the title says nothing).
    pub title: String,
    pub text: String,
    /// Where the search ranked it (0 = best); `None` for a page read for another reason.
    pub rank: Option<usize>,
    /// The page the user is reading or selected on.
    pub anchor: bool,
    /// The first page of a paper (abstract, introduction).
    pub first_page: bool,
}

/// A sentence chosen for the answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Pick {
    pub text: String,
    pub uri: String,
    pub score: f64,
}
