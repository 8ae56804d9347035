//! The layout's house rule: every threshold is a documented field of `LayoutParams`, and the
//! layout reads it from there. A source scan finds any decimal number left in the layout's code
//! (outside `layout/params.rs`, comments and unit tests), and pages read with other parameters
//! read differently.

mod common;

use agentero_pdf::fixtures::{Font, PageBuilder};
use agentero_pdf::{LayoutParams, extract_with};
use common::limits;

/// The layout's source files: `layout.rs` and everything under `layout/` but the
/// parameters themselves (`layout/params.rs`, `layout/params/`).
fn layout_sources() -> Vec<std::path::PathBuf> {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = vec![src.join("layout.rs")];
    let mut folders = vec![src.join("layout")];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).expect("a readable folder") {
            let path = entry.expect("a readable entry").path();
            if path.ends_with("params.rs") || path.ends_with("params") {
                continue;
            }
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    assert!(
        files.len() > 8,
        "the layout's modules are where this test looks"
    );
    files
}

/// Literals that are arithmetic, not thresholds, besides zero (a floor, a comparison with
/// nothing, a fold's start) and halving for a midpoint (`/ 2.0`): the one scale that is never
/// below one. Each is the exact code line (trimmed) it may appear on.
const IDENTITIES: &[(&str, &str)] = &[
    // A title's lines are spaced wider than the body's in proportion, never narrower...
    ("paragraphs.rs", "(size / body_size).max(1.0)"),
    // ... and lines of different sizes at the body's own pitch.
    ("paragraphs.rs", "1.0"),
];

/// The decimal literals of `code` (one file, comments and `#[cfg(test)]` items taken out), with
/// the line each is on, except zero and halving.
fn bare_decimals(code: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for line in code.lines() {
        if line.trim_start().starts_with("#[cfg(test)]") {
            break;
        }
        let line = line.split("//").next().unwrap_or("");
        let bytes = line.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let starts_number = bytes[i].is_ascii_digit()
                && (i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_'));
            if !starts_number {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            // A fraction: `.` then a digit (not a method call or a range).
            if i + 1 < bytes.len() && bytes[i] == b'.' && bytes[i + 1].is_ascii_digit() {
                i += 1;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
            }
            // A signed exponent: `1e-3`.
            if bytes[i - 1] == b'e'
                && i + 1 < bytes.len()
                && matches!(bytes[i], b'-' | b'+')
                && bytes[i + 1].is_ascii_digit()
            {
                i += 1;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
            }
            let token = &line[start..i];
            let float = token.contains('.')
                || token.ends_with("f32")
                || token.ends_with("f64")
                || (token.contains('e')
                    && token
                        .chars()
                        .all(|c| c.is_ascii_digit() || matches!(c, 'e' | '_' | '-' | '+')));
            if !float {
                continue;
            }
            let digits: String = token
                .trim_end_matches("f32")
                .trim_end_matches("f64")
                .chars()
                .filter(|c| *c != '_')
                .collect();
            let zero = digits.parse::<f64>().is_ok_and(|v| v == 0.0);
            let halving = digits == "2.0" && line[..start].trim_end().ends_with('/');
            if !(zero || halving) {
                out.push((token.to_string(), line.trim().to_string()));
            }
        }
    }
    out
}

#[test]
fn the_scan_finds_a_bare_threshold() {
    let code = "fn f(s: f32) -> bool {\n    s < 0.3 * s && s > 2e-3 && s < 4f32 // 0.7 in a comment\n}\n\
                fn g(a: f32, b: f32) -> f32 { (a + b) / 2.0 + 0.0 + 0f64 as f32 + 1.max(2) as f32 }\n\
                #[cfg(test)]\nmod tests { const X: f32 = 0.9; }\n";
    let found: Vec<String> = bare_decimals(code).into_iter().map(|f| f.0).collect();
    assert_eq!(found, ["0.3", "2e-3", "4f32"].map(String::from));
}

#[test]
fn no_bare_decimal_threshold_in_the_layout() {
    let mut left = Vec::new();
    for path in layout_sources() {
        let code = std::fs::read_to_string(&path).expect("a readable source");
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        for (token, line) in bare_decimals(&code) {
            let allowed = IDENTITIES
                .iter()
                .any(|(file, at)| *file == name && line == *at && token == "1.0");
            if !allowed {
                left.push(format!("{name}: {token} in `{line}`"));
            }
        }
    }
    assert!(
        left.is_empty(),
        "thresholds belong in LayoutParams (src/layout/params.rs), each with why:\n{}",
        left.join("\n")
    );
}

/// Two words set 0.4 em apart (no space glyph between them), and under them a second line.
fn two_words() -> Vec<u8> {
    let mut p = PageBuilder::new();
    p.font("F1", Font::Std14("Courier"));
    // Courier's advance is 0.6 em: "alpha" ends at 72 + 5 × 6 pt = 102 pt.
    p.show("F1", 10.0, 72.0, 700.0, b"alpha");
    p.show("F1", 10.0, 106.0, 700.0, b"beta");
    p.show("F1", 10.0, 72.0, 688.0, b"gamma");
    p.finish()
}

#[test]
fn the_layout_reads_its_thresholds_from_the_params() {
    let pdf = two_words();
    let read = |params: &LayoutParams| {
        extract_with(&pdf, limits(), params)
            .expect("the page opens")
            .pages[0]
            .text
            .clone()
    };
    let default = LayoutParams::default();
    assert_eq!(read(&default), "alpha beta\ngamma");
    // A word gap wider than the 0.4 em between the words: one word.
    let mut wide = default;
    wide.words.word_gap = 0.5;
    assert_eq!(read(&wide), "alphabeta\ngamma");
    // A pitch of 1.2 em read as a paragraph break when a lone gap of an em is one.
    let mut loose = default;
    loose.paragraphs.gap_lone = 1.0;
    assert_eq!(read(&loose), "alpha beta\n\ngamma");
}
