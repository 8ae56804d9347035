//! The index's tokenizer: words of letters and digits as usual, but each CJK ideograph (and
//! kana/hangul syllable) as a token of its own, so Chinese or Japanese text is searchable without
//! a dictionary. English words are lower-cased, folded to ASCII (`Thørväld` is found as
//! `thorvald`, `Özçelik` as `ozcelik`) and stemmed after this.

use tantivy::tokenizer::AsciiFoldingFilter;
use tantivy::tokenizer::{
    LowerCaser, RemoveLongFilter, Stemmer, TextAnalyzer, Token, TokenStream, Tokenizer,
};

pub const NAME: &str = "agentero";

pub fn analyzer() -> TextAnalyzer {
    TextAnalyzer::builder(WordOrIdeograph::default())
        .filter(RemoveLongFilter::limit(60))
        .filter(LowerCaser)
        .filter(AsciiFoldingFilter)
        .filter(Stemmer::default())
        .build()
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF
        | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
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
}
