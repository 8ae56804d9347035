//! Pages of the kinds a held-out set of real PDFs (Debian's TeX Live documentation, not looked at
//! while the engine was written) showed the engine getting wrong, rebuilt with `pdf-writer`: fake
//! bold drawn three times over, a diagonal stamp across the body and a seal of letters round a
//! circle, Hebrew and Arabic set right to left, math fonts whose ToUnicode map names only some
//! codes, dvips's bitmap fonts in T1 and T2A, and an accent TeX sets before its letter. Each asks
//! for the exact text.

mod common;

use agentero_pdf::fixtures::{Font, PageBuilder};
use common::{flat, read};

fn courier_page() -> PageBuilder {
    let mut p = PageBuilder::new();
    p.font("F1", Font::Std14("Courier"));
    p
}

/// Courier's advance: 600 units.
const COURIER: f32 = 0.6;

#[test]
fn fake_bold_drawn_three_times_reads_once() {
    let mut p = courier_page();
    // String by string: the heading drawn again 0.3 pt and 0.6 pt to the right.
    for dx in [0.0, 0.3, 0.6] {
        p.show("F1", 14.0, 72.0 + dx, 760.0, b"Results of the survey");
    }
    // Glyph by glyph: each letter drawn twice, 0.2 pt apart, before the next one.
    let size = 12.0;
    for (i, c) in b"Method".iter().enumerate() {
        let x = 72.0 + i as f32 * COURIER * size;
        p.show("F1", size, x, 730.0, &[*c]);
        p.show("F1", size, x + 0.2, 730.0, &[*c]);
    }
    // Letters that repeat in a word are a whole advance apart and stay.
    p.show("F1", size, 72.0, 700.0, b"Mississippi iii all");
    let text = &read(&p.finish()).pages[0].text;
    assert_eq!(text, "Results of the survey\nMethod\nMississippi iii all");
}

#[test]
fn a_diagonal_stamp_keeps_out_of_the_body_lines() {
    let body = [
        "The survey asked four hundred readers how they find the papers they cite.",
        "Most start from a search engine and follow the references of a review.",
        "Few read the full text before they decide to cite a paper.",
        "We discuss what this means for tools that suggest citations.",
    ];
    let mut p = PageBuilder::new();
    p.font("F1", Font::Std14("Times-Roman"));
    p.font("F2", Font::Std14("Helvetica-Bold"));
    for (i, line) in body.iter().enumerate() {
        p.show("F1", 11.0, 72.0, 600.0 - 14.0 * i as f32, line.as_bytes());
        if i == 1 {
            // The stamp at 40°, drawn between two body lines and across all of them.
            let (s, c) = 40f32.to_radians().sin_cos();
            p.show_with(
                "F2",
                36.0,
                [c, s, -s, c, 90.0, 520.0],
                b"PREPRINT NOT REVIEWED",
            );
        }
    }
    let text = &read(&p.finish()).pages[0].text;
    assert_eq!(
        text,
        &format!("{}\n\nPREPRINT NOT REVIEWED", body.join("\n")),
        "{text}"
    );
}

#[test]
fn a_seal_of_letters_round_a_circle_reads_as_its_words() {
    let mut p = courier_page();
    p.font("F2", Font::Std14("Times-Roman"));
    p.show(
        "F2",
        11.0,
        72.0,
        760.0,
        b"Thesis submitted for the degree of Doctor",
    );
    // Each letter on a circle of radius 80 around (300, 400), turned along it, running
    // clockwise from the left: the next letter starts where the last one ends.
    let (size, r) = (14.0f32, 80.0f32);
    let mut theta = 160f32.to_radians();
    for c in b"UNIVERSITY OF PORTO" {
        let phi = theta - std::f32::consts::FRAC_PI_2;
        let (x, y) = (300.0 + r * theta.cos(), 400.0 + r * theta.sin());
        let (s, co) = phi.sin_cos();
        p.show_with("F1", size, [co, s, -s, co, x, y], &[*c]);
        theta -= COURIER * size / r;
    }
    let text = &read(&p.finish()).pages[0].text;
    assert_eq!(
        text,
        "Thesis submitted for the degree of Doctor\n\nUNIVERSITY OF PORTO"
    );
}

/// A font whose codes are `chars` in turn (from 0x21 on), each glyph named by its character.
fn named_font(chars: &[char]) -> Font {
    let names: Vec<(u8, &'static str)> = chars
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let name: &'static str = match c {
                ' ' => "space",
                c => Box::leak(format!("uni{:04X}", *c as u32).into_boxed_str()),
            };
            (0x21 + i as u8, name)
        })
        .collect();
    Font::Named {
        base: "Fixture-Hebrew-Arabic",
        differences: names,
    }
}

/// The codes of `text` in a font made by [`named_font`] over `chars`.
fn codes(chars: &[char], text: &str) -> Vec<u8> {
    text.chars()
        .map(|c| 0x21 + chars.iter().position(|&k| k == c).expect("a font char") as u8)
        .collect()
}

#[test]
fn hebrew_and_arabic_read_right_to_left() {
    // Each line as the page draws it, left to right (what a reader sees), and as it is read.
    let lines = [
        ("םלוע םולש", "שלום עולם"),
        ("LaTeX לע 12 קרפ", "פרק 12 על LaTeX"),
        ("(אובמ) 1 קרפ", "פרק 1 (מבוא)"),
        // Arabic in its shaped forms: meem, lam-alef, seen (سلام) and a word of three letters.
        (
            "\u{FEE1}\u{FEFC}\u{FEB3} \u{FE8E}\u{FEDF}\u{FEDB}",
            "كلا سلام",
        ),
    ];
    let mut chars: Vec<char> = lines.iter().flat_map(|l| l.0.chars()).collect();
    chars.sort_unstable();
    chars.dedup();
    let mut p = PageBuilder::new();
    p.font("F1", named_font(&chars));
    for (i, (visual, _)) in lines.iter().enumerate() {
        p.show(
            "F1",
            12.0,
            72.0,
            700.0 - 20.0 * i as f32,
            &codes(&chars, visual),
        );
    }
    let text = &read(&p.finish()).pages[0].text;
    let read: Vec<&str> = lines.iter().map(|l| l.1).collect();
    assert_eq!(text, &read.join("\n"));
}

#[test]
fn math_fonts_with_a_partial_to_unicode_map_read_their_glyph_names() {
    let mut p = PageBuilder::new();
    p.font("F1", Font::Std14("Helvetica"));
    // dvipdfmx's MathDesign symbol font: a ToUnicode map of the prime alone; the minus sign at
    // code 0 (OT1's Γ) is known only by its glyph name in the CFF program.
    p.font(
        "F2",
        Font::CffPartialToUnicode {
            base: "XWLOMP+MathDesign-UT-Regular-Symbol-10",
            glyphs: vec![
                (0, "minus"),
                (1, "lessequal"),
                (2, "infinity"),
                (0x30, "prime"),
            ],
            to_unicode: vec![(0x30, '′')],
        },
    );
    // Its math italic: α at code 11 (OT1's ff), a map of another code only.
    p.font(
        "F3",
        Font::CffPartialToUnicode {
            base: "VUIYZF+MathDesign-UT-Regular-Italic-MathItalic-10",
            glyphs: vec![(11, "alpha"), (12, "beta"), (0x78, "x")],
            to_unicode: vec![(0x78, 'x')],
        },
    );
    let size = 10.0;
    let mut x = 72.0;
    let mut put = |p: &mut PageBuilder, font: &str, bytes: &[u8], gap: f32| {
        p.show(font, size, x, 700.0, bytes);
        x += 0.5 * size * bytes.len() as f32 + gap;
    };
    put(&mut p, "F3", b"x", 3.0);
    put(&mut p, "F2", &[0], 3.0);
    put(&mut p, "F3", &[11], 3.0);
    put(&mut p, "F2", &[1], 3.0);
    put(&mut p, "F2", &[2, 0x30], 3.0);
    put(&mut p, "F2", &[0], 3.0);
    put(&mut p, "F3", &[12], 0.0);
    let text = &read(&p.finish()).pages[0].text;
    assert_eq!(text, "x − α ≤ ∞′ − β");
}

#[test]
fn dvips_bitmap_fonts_read_in_t1_and_t2a() {
    // Hungarian in T1: á at 0xE1, ó at 0xF3, ő at 0xAE.
    let hungarian: [&[u8]; 3] = [b"Fejleszt\xaei", b"dokument\xe1ci\xf3", b"k\xe9sz\xfcl"];
    // Russian in T2A: А–Я at 0xC0–0xDF, а–я at 0xE0–0xFF.
    let russian = "Министерство науки и высшего образования Российской Федерации";
    let t2a = |w: &str| -> Vec<u8> {
        w.chars()
            .map(|c| match c {
                'А'..='Я' => 0xC0 + (c as u32 - 'А' as u32) as u8,
                'а'..='я' => 0xE0 + (c as u32 - 'а' as u32) as u8,
                c => c as u8,
            })
            .collect()
    };
    let mut used: Vec<u8> = hungarian.concat();
    used.sort_unstable();
    used.dedup();
    let mut cyr: Vec<u8> = russian.split(' ').flat_map(t2a).collect();
    cyr.sort_unstable();
    cyr.dedup();
    let mut p = PageBuilder::new();
    p.font("F1", Font::Type3Numbered(used));
    p.font("F2", Font::Type3Numbered(cyr));
    // Bitmap fonts have no space glyph: words are set apart by position alone.
    let size = 12.0;
    let line = |p: &mut PageBuilder, font: &str, y: f32, words: Vec<Vec<u8>>| {
        let mut x = 72.0;
        for w in words {
            p.show(font, size, x, y, &w);
            x += 0.5 * size * w.len() as f32 + 4.0;
        }
    };
    line(
        &mut p,
        "F1",
        700.0,
        hungarian.iter().map(|w| w.to_vec()).collect(),
    );
    line(&mut p, "F2", 680.0, russian.split(' ').map(t2a).collect());
    let text = &read(&p.finish()).pages[0].text;
    assert_eq!(text, &format!("Fejlesztői dokumentáció készül\n{russian}"));
}

#[test]
fn an_accent_set_before_its_raised_letter_joins_the_word() {
    let mut p = PageBuilder::new();
    p.font("F1", Font::Std14("Helvetica-Bold"));
    // TeX's \"A in a letter-spaced heading: the dieresis is drawn first, raised and centred over
    // the A (Helvetica-Bold: UNIVERSIT is 5,334 units, ¨ 333, A 722), then the A, back at the
    // end of the T.
    let (size, x) = (20.0, 100.0);
    let end_t = x + 5.334 * size;
    p.show("F1", size, x, 700.0, b"UNIVERSIT");
    p.show(
        "F1",
        size,
        end_t + (0.722 - 0.333) / 2.0 * size,
        703.7,
        b"\xa8",
    );
    p.show("F1", size, end_t, 700.0, b"AT");
    let text = &read(&p.finish()).pages[0].text;
    assert_eq!(flat(text), "UNIVERSITÄT");
}
