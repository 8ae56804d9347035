//! What the crate's tests share besides the fixture writer (`agentero_pdf::fixtures`, the crate's
//! one writer of test PDFs): a deadline and text helpers.

#![allow(dead_code)]

use std::time::{Duration, Instant};

use agentero_pdf::{Limits, PdfDocument, extract};

pub fn limits() -> Limits {
    Limits {
        deadline: Instant::now() + Duration::from_secs(30),
    }
}

pub fn read(pdf: &[u8]) -> PdfDocument {
    extract(pdf, limits()).expect("the fixture opens")
}

/// Whitespace runs as single spaces: a sentence reads the same whichever lines it spans.
pub fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Lines of `text` about `chars` characters long, broken at spaces.
pub fn wrap(text: &str, chars: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.len() + 1 + word.len() > chars {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}
