//! The index's tokenizers. [`NAME`]: words of letters and digits as usual, but each CJK ideograph
//! (and kana/hangul syllable) as a token of its own, so Chinese or Japanese text is searchable
//! without a dictionary; English words are lower-cased, folded to ASCII (`Thørväld` is found as
//! `thorvald`, `Özçelik` as `ozcelik`) and stemmed after this. [`BIGRAMS`]: the overlapping pairs
//! of characters in each run of CJK text (a lone character as itself), the dictionary-free way to
//! rank CJK text by the words it shares with a query (Lucene's CJK bigrams): a question written
//! without spaces still matches the pages that use its words.

use foldhash::HashMap;

use tantivy::tokenizer::AsciiFoldingFilter;
use tantivy::tokenizer::{
    LowerCaser, RawTokenizer, RemoveLongFilter, Stemmer, TextAnalyzer, Token, TokenFilter,
    TokenStream, Tokenizer,
};

pub const NAME: &str = "agentero";
pub const BIGRAMS: &str = "agentero_cjk_bigrams";

pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(WordOrIdeograph::default())
        .filter(RemoveLongFilter::limit(60))
        .filter(RememberedTerms)
        .build()
}

pub fn bigram_analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(CjkBigrams::default()).build()
}

/// What a word's term is: lower-cased, folded to ASCII and stemmed (English Snowball), by
/// tantivy's own filters, each word's term remembered by the analyzer for the next pages: a
/// paper repeats its words, and those three filters were a quarter of the index writer's time.
#[derive(Clone, Copy, Default)]
pub struct RememberedTerms;

/// Words whose term an analyzer remembers at most (then it forgets them all and starts again):
/// a few megabytes.
const MAX_REMEMBERED: usize = 1 << 16;

/// The filters [`RememberedTerms`] stands for, over one word.
fn word_to_term() -> TextAnalyzer {
    TextAnalyzer::builder(RawTokenizer::default())
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(Stemmer::default())
        .build()
}

impl TokenFilter for RememberedTerms {
    type Tokenizer<T: Tokenizer> = RememberedTermsFilter<T>;

    fn transform<T: Tokenizer>(self, tokenizer: T) -> RememberedTermsFilter<T> {
        RememberedTermsFilter {
            inner: tokenizer,
            word_to_term: word_to_term(),
            terms: HashMap::default(),
        }
    }
}

#[derive(Clone)]
pub struct RememberedTermsFilter<T> {
    inner: T,
    word_to_term: TextAnalyzer,
    /// Each word seen and its term.
    terms: HashMap<String, String>,
}

impl<T: Tokenizer> Tokenizer for RememberedTermsFilter<T> {
    type TokenStream<'a> = RememberedTermsStream<'a, T::TokenStream<'a>>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> Self::TokenStream<'a> {
        let RememberedTermsFilter {
            inner,
            word_to_term,
            terms,
        } = self;
        RememberedTermsStream {
            tail: inner.token_stream(text),
            word_to_term,
            terms,
        }
    }
}

pub struct RememberedTermsStream<'a, T> {
    tail: T,
    word_to_term: &'a mut TextAnalyzer,
    terms: &'a mut HashMap<String, String>,
}

impl<T: TokenStream> TokenStream for RememberedTermsStream<'_, T> {
    fn advance(&mut self) -> bool {
        if !self.tail.advance() {
            return false;
        }
        let token = self.tail.token_mut();
        if let Some(term) = self.terms.get(token.text.as_str()) {
            token.text.clear();
            token.text.push_str(term);
            return true;
        }
        let mut one = self.word_to_term.token_stream(&token.text);
        let term = if one.advance() {
            std::mem::take(&mut one.token_mut().text)
        } else {
            String::new()
        };
        drop(one);
        if self.terms.len() >= MAX_REMEMBERED {
            self.terms.clear();
        }
        let word = std::mem::replace(&mut token.text, term);
        self.terms.insert(word, token.text.clone());
        true
    }

    fn token(&self) -> &Token {
        self.tail.token()
    }

    fn token_mut(&mut self) -> &mut Token {
        self.tail.token_mut()
    }
}

/// The runs of two or more CJK characters in `text`, longest first.
pub fn cjk_runs(text: &str) -> Vec<String> {
    let mut runs: Vec<String> = Vec::new();
    let mut cur = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if is_cjk(c) {
            cur.push(c);
        } else if !cur.is_empty() {
            let run = std::mem::take(&mut cur);
            if run.chars().nth(1).is_some() && !runs.contains(&run) {
                runs.push(run);
            }
        }
    }
    runs.sort_by_key(|r| std::cmp::Reverse(r.chars().count()));
    runs
}

/// The distinct CJK character pairs of `text`, in order of first appearance.
pub fn cjk_pairs(text: &str) -> Vec<String> {
    let mut a = bigram_analyzer();
    let mut stream = a.token_stream(text);
    let mut out: Vec<String> = Vec::new();
    while stream.advance() {
        let t = &stream.token().text;
        if t.chars().count() == 2 && !out.contains(t) {
            out.push(t.clone());
        }
    }
    out
}

pub fn is_cjk(c: char) -> bool {
    // Kana, ideographs (with 々〆〇), hangul syllables and jamo, half-width kana.
    matches!(c as u32,
        0x1100..=0x11FF | 0x3005..=0x3007 | 0x3040..=0x30FF | 0x3130..=0x318F
        | 0x31F0..=0x31FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xA960..=0xA97F
        | 0xAC00..=0xD7FF | 0xF900..=0xFAFF | 0xFF66..=0xFF9F | 0x20000..=0x2FA1F)
}

#[derive(Clone, Default)]
pub struct WordOrIdeograph {
    token: Token,
}

pub struct WordStream<'a> {
    text: &'a str,
    pos: usize,
    token: &'a mut Token,
}

impl Tokenizer for WordOrIdeograph {
    type TokenStream<'a> = WordStream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> WordStream<'a> {
        self.token.reset();
        WordStream {
            text,
            pos: 0,
            token: &mut self.token,
        }
    }
}

impl TokenStream for WordStream<'_> {
    fn advance(&mut self) -> bool {
        self.token.text.clear();
        let rest = &self.text[self.pos..];
        let mut iter = rest.char_indices();
        let start = loop {
            match iter.next() {
                Some((i, c)) if c.is_alphanumeric() => break Some((i, c)),
                Some(_) => continue,
                None => break None,
            }
        };
        let Some((start, first)) = start else {
            self.pos = self.text.len();
            return false;
        };
        let mut end = start + first.len_utf8();
        if !is_cjk(first) {
            for (i, c) in rest[end..].char_indices() {
                if !c.is_alphanumeric() || is_cjk(c) {
                    break;
                }
                end = start + first.len_utf8() + i + c.len_utf8();
            }
        }
        self.token.position = self.token.position.wrapping_add(1);
        self.token.offset_from = self.pos + start;
        self.token.offset_to = self.pos + end;
        self.token.text.push_str(&rest[start..end]);
        self.pos += end;
        true
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

/// Overlapping character pairs of each run of CJK characters; a run of one character is a token
/// of its own. Everything else is skipped.
#[derive(Clone, Default)]
pub struct CjkBigrams {
    token: Token,
}

pub struct BigramStream<'a> {
    text: &'a str,
    /// Where to look for the next token's first character.
    pos: usize,
    token: &'a mut Token,
}

impl Tokenizer for CjkBigrams {
    type TokenStream<'a> = BigramStream<'a>;
    fn token_stream<'a>(&'a mut self, text: &'a str) -> BigramStream<'a> {
        self.token.reset();
        BigramStream {
            text,
            pos: 0,
            token: &mut self.token,
        }
    }
}

impl TokenStream for BigramStream<'_> {
    fn advance(&mut self) -> bool {
        self.token.text.clear();
        let Some((start, first)) = self.text[self.pos..]
            .char_indices()
            .find(|&(_, c)| is_cjk(c))
        else {
            self.pos = self.text.len();
            return false;
        };
        let from = self.pos + start;
        let next = from + first.len_utf8();
        let second = self.text[next..].chars().next().filter(|&c| is_cjk(c));
        let to = second.map_or(next, |c| next + c.len_utf8());
        self.token.position = self.token.position.wrapping_add(1);
        self.token.offset_from = from;
        self.token.offset_to = to;
        self.token.text.push_str(&self.text[from..to]);
        // The next pair starts at this pair's second character, unless the run ends with it.
        let run_goes_on = second.is_some() && self.text[to..].chars().next().is_some_and(is_cjk);
        self.pos = if run_goes_on { next } else { to };
        true
    }

    fn token(&self) -> &Token {
        self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<String> {
        let mut a = analyzer();
        let mut s = a.token_stream(text);
        let mut out = Vec::new();
        while s.advance() {
            out.push(s.token().text.clone());
        }
        out
    }

    #[test]
    fn remembered_terms_are_tantivys_terms() {
        let mut reference = TextAnalyzer::builder(WordOrIdeograph::default())
            .filter(RemoveLongFilter::limit(60))
            .filter(LowerCaser)
            .filter(AsciiFoldingFilter)
            .filter(Stemmer::default())
            .build();
        let mut ours = analyzer();
        let all = |a: &mut TextAnalyzer, text: &str| {
            let mut s = a.token_stream(text);
            let mut out = Vec::new();
            while s.advance() {
                let t = s.token();
                out.push((t.text.clone(), t.offset_from, t.offset_to, t.position));
            }
            out
        };
        let text = "Retrieving retrieval papers: the indexer indexes indexed pages, \
                    generalizations generously; Thørväld's Özçelik TeX课程 running runs ran \
                    hopefully agreed agreement conditional 2023 x86 caresses ponies ties";
        // Twice through the same analyzers: the second pass is answered from what they remember.
        for _ in 0..2 {
            for piece in [text, "running agreed ponies", text] {
                let expected = all(&mut reference, piece);
                assert!(expected.iter().any(|t| ["retriev", "run"].contains(&&*t.0)));
                assert_eq!(all(&mut ours, piece), expected);
            }
        }
    }

    #[test]
    fn words_and_ideographs() {
        assert_eq!(
            tokens("Retrieving papers, 2023!"),
            vec!["retriev", "paper", "2023"]
        );
        assert_eq!(tokens("TeX课程abc"), vec!["tex", "课", "程", "abc"]);
    }

    #[test]
    fn names_fold_to_ascii() {
        assert_eq!(
            tokens("Thørväld Béranger Özçelik"),
            tokens("thorvald beranger ozcelik")
        );
        assert_eq!(tokens("Lídia"), vec!["lidia"]);
    }

    #[test]
    fn cjk_bigrams() {
        let mut a = bigram_analyzer();
        let mut bigrams = |text: &str| {
            let mut s = a.token_stream(text);
            let mut out = Vec::new();
            while s.advance() {
                let t = s.token();
                assert_eq!(&text[t.offset_from..t.offset_to], t.text);
                out.push(t.text.clone());
            }
            out
        };
        assert_eq!(bigrams("中文排版"), vec!["中文", "文排", "排版"]);
        assert_eq!(
            bigrams("TeX 课程, 中 and 日本語"),
            vec!["课程", "中", "日本", "本語"]
        );
        assert_eq!(bigrams("no CJK at all"), Vec::<String>::new());
        assert_eq!(bigrams("한국어 입력"), vec!["한국", "국어", "입력"]);
    }
}
