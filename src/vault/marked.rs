//! The excerpt markup, owned here alone: a matched span of a search excerpt stands between
//! `**` marks (`…the **gutter** between…`). The index and the context tools write it, the agents
//! read it as markdown, the search overlay turns it into ‹ › and opens a result at its first
//! match. Nothing else spells `**`.

const MARK: &str = "**";

/// An excerpt with its matches marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marked<'a>(pub &'a str);

impl<'a> Marked<'a> {
    /// Appends `text` to `out` as a match.
    pub fn push_match(out: &mut String, text: &str) {
        out.push_str(MARK);
        out.push_str(text);
        out.push_str(MARK);
    }

    /// Closes a match left open where `cut` was cut short.
    pub fn close_cut(cut: &mut String) {
        if cut.matches(MARK).count() % 2 == 1 {
            cut.push_str(MARK);
        }
    }

    /// The excerpt in order as (is a match, text) parts; empty parts are kept, so a match
    /// at the very start comes after an empty plain part.
    pub fn parts(self) -> impl Iterator<Item = (bool, &'a str)> {
        self.0.split(MARK).enumerate().map(|(i, p)| (i % 2 == 1, p))
    }

    /// The first match's text.
    pub fn first_match(self) -> Option<&'a str> {
        self.parts().find(|(m, _)| *m).map(|(_, t)| t)
    }

    /// The longest run of matches with only spaces and punctuation between them (a phrase the
    /// query named, as the excerpt has it), else the first match: what a reader who searched
    /// for a pasted phrase expects highlighted.
    pub fn longest_run(self) -> Option<String> {
        let mut best: Option<String> = None;
        let mut run = String::new();
        let mut gap = String::new();
        for (is_match, text) in self.parts() {
            if is_match {
                if !run.is_empty() {
                    run.push_str(&gap);
                }
                run.push_str(text);
                gap.clear();
            } else if !run.is_empty()
                && text.chars().count() <= 3
                && text.chars().all(|c| !c.is_alphanumeric())
            {
                gap = text.to_string();
            } else {
                if best
                    .as_ref()
                    .is_none_or(|b| run.chars().count() > b.chars().count())
                {
                    best = Some(std::mem::take(&mut run)).filter(|r| !r.is_empty());
                }
                run.clear();
                gap.clear();
            }
        }
        if best
            .as_ref()
            .is_none_or(|b| run.chars().count() > b.chars().count())
            && !run.is_empty()
        {
            best = Some(run);
        }
        best
    }

    /// The excerpt with the marks replaced: `open` before each match, `close` after it.
    pub fn with_marks(self, open: char, close: char) -> String {
        let mut out = String::with_capacity(self.0.len());
        for (i, part) in self.0.split(MARK).enumerate() {
            if i > 0 {
                out.push(if i % 2 == 1 { open } else { close });
            }
            out.push_str(part);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_marks_read_back() {
        let mut s = String::from("…the ");
        Marked::push_match(&mut s, "gutter");
        s.push_str(" between ");
        Marked::push_match(&mut s, "columns");
        s.push('…');
        assert_eq!(s, "…the **gutter** between **columns**…");
        let m = Marked(&s);
        assert_eq!(m.first_match(), Some("gutter"));
        assert_eq!(m.with_marks('‹', '›'), "…the ‹gutter› between ‹columns›…");
        let matches: Vec<&str> = m.parts().filter(|p| p.0).map(|p| p.1).collect();
        assert_eq!(matches, ["gutter", "columns"]);
        assert_eq!(Marked("no match").first_match(), None);
    }

    #[test]
    fn a_cut_match_is_closed() {
        let mut cut = String::from("a **gut");
        Marked::close_cut(&mut cut);
        assert_eq!(cut, "a **gut**");
        let mut whole = String::from("a **gutter** b");
        Marked::close_cut(&mut whole);
        assert_eq!(whole, "a **gutter** b");
    }

    #[test]
    fn the_longest_run_of_matches_is_the_phrase() {
        let mut s = String::from("a ");
        Marked::push_match(&mut s, "gutter");
        s.push_str(" here, then ");
        Marked::push_match(&mut s, "reading");
        s.push(' ');
        Marked::push_match(&mut s, "order");
        s.push_str(", ");
        Marked::push_match(&mut s, "recovery");
        s.push_str(" and ");
        Marked::push_match(&mut s, "x");
        assert_eq!(
            Marked(&s).longest_run().as_deref(),
            Some("reading order, recovery")
        );
        assert_eq!(Marked("no marks").longest_run(), None);
    }
}
