//! Small PDFs that each exercise one thing the page-text extractor must get right on real papers:
//! CID fonts through every family of Adobe's predefined CMaps, vertical writing, a TrueType font
//! known only by glyph ids, fonts with no way back to Unicode, margin line numbers, a sidebar box,
//! a drop cap, TeX accents and a code listing. Each comes with the page text a reader expects.
//!
//! They are written with [`Sheet`], by the project's own code, so `cargo test` needs no files.

use std::io;

use hayro_cmap::{CMap, CMapName, load_embedded};
use lopdf::{Dictionary, Object, dictionary};

use super::pdfwriter::{Sheet, std14_text_width};

/// A generated PDF and the text of each of its pages, as the extractor should give it.
#[derive(Debug, Clone)]
pub struct Fixture {
    pub name: &'static str,
    pub pdf: Vec<u8>,
    pub pages: Vec<String>,
}

/// Text set in a CID font through a predefined CMap: the characters and the code of each.
struct CidLine {
    cmap: &'static str,
    registry_ordering: &'static str,
    chars: &'static [(&'static str, &'static [u8])],
}

/// Characters and the code that shows each one.
type Codes = Vec<(String, Vec<u8>)>;

/// UTF-16BE codes of `text`, one entry per character, for the `Uni…` CMaps.
fn utf16_codes(text: &str) -> Codes {
    text.chars()
        .map(|c| {
            let mut units = [0u16; 2];
            let bytes = c
                .encode_utf16(&mut units)
                .iter()
                .flat_map(|u| u.to_be_bytes())
                .collect();
            (c.to_string(), bytes)
        })
        .collect()
}

/// The CID a predefined CMap gives a code, read from Adobe's CMap the way a PDF reader would.
fn cid_of(cmap: &CMap, code: &[u8]) -> Option<u32> {
    let value = code.iter().fold(0u32, |a, &b| a << 8 | u32::from(b));
    cmap.lookup_cid_code(value, code.len() as u8)
}

/// A Type 0 font using the predefined CMap `cmap` over a CIDFontType0 of collection
/// Adobe-`ordering` without ToUnicode or embedded program, the way dvipdfmx writes CJK text: every
/// CID shown gets a width (half an em for ASCII, a full em otherwise).
fn predefined_cid_font(
    sheet: &mut Sheet,
    cmap: &str,
    ordering: &str,
    chars: &Codes,
) -> io::Result<Dictionary> {
    let table = match CMapName::from_bytes(cmap.as_bytes()) {
        CMapName::IdentityH | CMapName::IdentityV => None,
        name => Some(
            load_embedded(name)
                .and_then(|data| CMap::parse(data, load_embedded))
                .ok_or_else(|| io::Error::other(format!("no predefined CMap {cmap}")))?,
        ),
    };
    let mut widths: Vec<Object> = Vec::new();
    for (text, code) in chars {
        let cid = match &table {
            Some(t) => cid_of(t, code),
            None => Some(code.iter().fold(0u32, |a, &b| a << 8 | u32::from(b))),
        }
        .ok_or_else(|| io::Error::other(format!("{cmap} does not map {text:?}")))?;
        let width = if text.is_ascii() { 500 } else { 1000 };
        widths.push(Object::Integer(i64::from(cid)));
        widths.push(vec![Object::Integer(width)].into());
    }
    let descriptor = sheet.add_object(dictionary! {
        "Type" => "FontDescriptor",
        "FontName" => Object::Name(format!("Fixture-{ordering}").into_bytes()),
        "Flags" => 4,
        "FontBBox" => vec![0.into(), (-120).into(), 1000.into(), 880.into()],
        "ItalicAngle" => 0,
        "Ascent" => 880,
        "Descent" => -120,
        "CapHeight" => 700,
        "StemV" => 80,
    });
    let descendant = sheet.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "CIDFontType0",
        "BaseFont" => Object::Name(format!("Fixture-{ordering}").into_bytes()),
        "CIDSystemInfo" => dictionary! {
            "Registry" => Object::string_literal("Adobe"),
            "Ordering" => Object::string_literal(ordering),
            "Supplement" => 4,
        },
        "FontDescriptor" => descriptor,
        "DW" => 1000,
        "W" => widths,
    });
    Ok(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type0",
        "BaseFont" => Object::Name(format!("Fixture-{ordering}-{cmap}").into_bytes()),
        "Encoding" => Object::Name(cmap.as_bytes().to_vec()),
        "DescendantFonts" => vec![descendant.into()],
    })
}

const LEGACY_LINES: [CidLine; 4] = [
    CidLine {
        cmap: "GBK-EUC-H",
        registry_ordering: "GB1",
        chars: &[
            ("中", b"\xd6\xd0"),
            ("文", b"\xce\xc4"),
            (" ", b" "),
            ("G", b"G"),
            ("B", b"B"),
            ("K", b"K"),
        ],
    },
    CidLine {
        cmap: "ETen-B5-H",
        registry_ordering: "CNS1",
        chars: &[
            ("中", b"\xa4\xa4"),
            ("文", b"\xa4\xe5"),
            (" ", b" "),
            ("B", b"B"),
            ("5", b"5"),
        ],
    },
    CidLine {
        cmap: "90ms-RKSJ-H",
        registry_ordering: "Japan1",
        chars: &[
            ("日", b"\x93\xfa"),
            ("本", b"\x96\x7b"),
            ("語", b"\x8c\xea"),
            (" ", b" "),
            ("S", b"S"),
            ("J", b"J"),
            ("I", b"I"),
            ("S", b"S"),
        ],
    },
    CidLine {
        cmap: "KSCms-UHC-H",
        registry_ordering: "Korea1",
        chars: &[
            ("한", b"\xc7\xd1"),
            ("국", b"\xb1\xb9"),
            ("어", b"\xbe\xee"),
            (" ", b" "),
            ("U", b"U"),
            ("H", b"H"),
            ("C", b"C"),
        ],
    },
];

/// One page per family of predefined CMaps: the Unicode ones (UCS-2 and UTF-16, a character
/// outside the BMP included), the legacy national encodings with one- and two-byte codes, and
/// Identity-H with the collection named only by `/CIDSystemInfo`. No font has a ToUnicode map.
pub fn predefined_cmaps() -> io::Result<Fixture> {
    let mut sheet = Sheet::new();
    let mut pages = Vec::new();
    let unicode_lines: [(&str, &str, &str); 5] = [
        ("UniGB-UCS2-H", "GB1", "中文排版，TeX 与 LaTeX"),
        ("UniCNS-UTF16-H", "CNS1", "繁體中文 UTF-16"),
        ("UniJIS-UTF16-H", "Japan1", "ひらがなとカタカナと漢字𠀋"),
        ("UniJIS-UCS2-H", "Japan1", "日本語の組版"),
        ("UniKS-UCS2-H", "Korea1", "한글 입력기"),
    ];
    let mut lines: Vec<(String, String, Codes)> = unicode_lines
        .iter()
        .map(|(cmap, ordering, text)| (cmap.to_string(), ordering.to_string(), utf16_codes(text)))
        .collect();
    for line in &LEGACY_LINES {
        let chars = line
            .chars
            .iter()
            .map(|(t, c)| (t.to_string(), c.to_vec()))
            .collect();
        lines.push((
            line.cmap.to_string(),
            line.registry_ordering.to_string(),
            chars,
        ));
    }
    // Identity-H: the codes are the CIDs, found here through Adobe's Unicode CMap of the collection.
    let japan = load_embedded(CMapName::UniJisUtf16H)
        .and_then(|data| CMap::parse(data, load_embedded))
        .ok_or_else(|| io::Error::other("no UniJIS-UTF16-H"))?;
    let mut identity = Vec::new();
    for (text, code) in utf16_codes("縦横 Identity") {
        let cid = cid_of(&japan, &code).ok_or_else(|| io::Error::other("unmapped"))?;
        identity.push((text, (cid as u16).to_be_bytes().to_vec()));
    }
    lines.push(("Identity-H".into(), "Japan1".into(), identity));

    for (n, (cmap, ordering, chars)) in lines.iter().enumerate() {
        let font = predefined_cid_font(&mut sheet, cmap, ordering, chars)?;
        let name = format!("C{n}");
        sheet.add_font(&name, font);
        let codes: Vec<u8> = chars.iter().flat_map(|(_, c)| c.clone()).collect();
        sheet.show(&name, 12.0, 72.0, 700.0, codes);
        sheet.end_page()?;
        pages.push(chars.iter().map(|(t, _)| t.as_str()).collect::<String>());
    }
    Ok(Fixture {
        name: "predefined-cmaps",
        pdf: sheet.finish()?,
        pages,
    })
}

/// Japanese set vertically (UniJIS-UTF16-V): columns run top to bottom and follow each other
/// from right to left; a horizontal running head sits above them.
pub fn vertical_writing() -> io::Result<Fixture> {
    let mut sheet = Sheet::new();
    sheet.add_std14("F1", "Helvetica");
    let columns = ["縦書きの文章は", "右から左へ読む"];
    let all: String = columns.concat();
    let font = predefined_cid_font(&mut sheet, "UniJIS-UTF16-V", "Japan1", &utf16_codes(&all))?;
    sheet.add_font("V1", font);
    sheet.text("F1", 10.0, 72.0, 740.0, "Running head");
    for (i, column) in columns.iter().enumerate() {
        let codes: Vec<u8> = utf16_codes(column)
            .into_iter()
            .flat_map(|(_, c)| c)
            .collect();
        sheet.show("V1", 12.0, 400.0 - 18.0 * i as f32, 700.0, codes);
    }
    Ok(Fixture {
        name: "vertical-writing",
        pdf: sheet.finish()?,
        pages: vec![format!("Running head\n\n{all}")],
    })
}

/// A TrueType program with one empty glyph per character of `chars` (glyph ids from 1 on) and a
/// Unicode `cmap` (format 4) for them: the tables a reader needs to go from glyph to character.
pub fn tiny_truetype(chars: &[char]) -> Vec<u8> {
    let n = chars.len() as u16 + 1;
    let be16 = |v: u16| v.to_be_bytes();
    let mut head = Vec::new();
    head.extend(0x0001_0000u32.to_be_bytes()); // version
    head.extend(0x0001_0000u32.to_be_bytes()); // fontRevision
    head.extend(0u32.to_be_bytes()); // checkSumAdjustment
    head.extend(0x5F0F_3CF5u32.to_be_bytes()); // magicNumber
    head.extend(be16(0)); // flags
    head.extend(be16(1000)); // unitsPerEm
    head.extend([0u8; 16]); // created, modified
    for v in [0i16, -200, 1000, 800] {
        head.extend(v.to_be_bytes()); // bounding box
    }
    head.extend(be16(0)); // macStyle
    head.extend(be16(8)); // lowestRecPPEM
    head.extend(2i16.to_be_bytes()); // fontDirectionHint
    head.extend(be16(0)); // indexToLocFormat
    head.extend(be16(0)); // glyphDataFormat

    let mut hhea = Vec::new();
    hhea.extend(0x0001_0000u32.to_be_bytes());
    for v in [800i16, -200, 0] {
        hhea.extend(v.to_be_bytes());
    }
    hhea.extend(be16(1000)); // advanceWidthMax
    for v in [0i16, 0, 1000, 1, 0, 0, 0, 0, 0, 0, 0] {
        hhea.extend(v.to_be_bytes());
    }
    hhea.extend(be16(n)); // numberOfHMetrics

    let mut maxp = Vec::new();
    maxp.extend(0x0000_5000u32.to_be_bytes());
    maxp.extend(be16(n));

    let mut hmtx = Vec::new();
    for _ in 0..n {
        hmtx.extend(be16(600));
        hmtx.extend(be16(0));
    }

    // cmap: one format 4 subtable (Windows, Unicode BMP), one segment per character.
    let mut segments: Vec<(u16, u16)> = chars
        .iter()
        .enumerate()
        .filter(|(_, c)| (**c as u32) < 0xFFFF)
        .map(|(i, c)| (*c as u32 as u16, i as u16 + 1))
        .collect();
    segments.sort();
    segments.dedup_by_key(|s| s.0);
    segments.push((0xFFFF, 0));
    let seg_count = segments.len() as u16;
    let mut sub = Vec::new();
    sub.extend(be16(4));
    sub.extend(be16(16 + 8 * seg_count)); // length
    sub.extend(be16(0)); // language
    let log2 = seg_count.ilog2() as u16;
    let search_range = 2 << log2;
    sub.extend(be16(2 * seg_count));
    sub.extend(be16(search_range));
    sub.extend(be16(log2));
    sub.extend(be16(2 * seg_count - search_range));
    for (cp, _) in &segments {
        sub.extend(be16(*cp)); // endCode
    }
    sub.extend(be16(0)); // reservedPad
    for (cp, _) in &segments {
        sub.extend(be16(*cp)); // startCode
    }
    for (cp, gid) in &segments {
        let delta = if *cp == 0xFFFF {
            1
        } else {
            gid.wrapping_sub(*cp)
        };
        sub.extend(be16(delta));
    }
    for _ in &segments {
        sub.extend(be16(0)); // idRangeOffset
    }
    let mut cmap = Vec::new();
    cmap.extend(be16(0));
    cmap.extend(be16(1));
    cmap.extend(be16(3));
    cmap.extend(be16(1));
    cmap.extend(12u32.to_be_bytes());
    cmap.extend(sub);

    let tables: [(&[u8; 4], Vec<u8>); 5] = [
        (b"cmap", cmap),
        (b"head", head),
        (b"hhea", hhea),
        (b"hmtx", hmtx),
        (b"maxp", maxp),
    ];
    let mut out = Vec::new();
    out.extend(0x0001_0000u32.to_be_bytes());
    out.extend(be16(tables.len() as u16));
    out.extend(be16(64)); // searchRange for 5 tables
    out.extend(be16(2));
    out.extend(be16(16));
    let mut offset = 12 + 16 * tables.len();
    let mut body = Vec::new();
    for (tag, data) in &tables {
        let checksum = data
            .chunks(4)
            .map(|c| {
                let mut w = [0u8; 4];
                w[..c.len()].copy_from_slice(c);
                u32::from_be_bytes(w)
            })
            .fold(0u32, u32::wrapping_add);
        out.extend(*tag);
        out.extend(checksum.to_be_bytes());
        out.extend((offset as u32).to_be_bytes());
        out.extend((data.len() as u32).to_be_bytes());
        body.extend(data);
        while body.len() % 4 != 0 {
            body.push(0);
        }
        offset = 12 + 16 * tables.len() + body.len();
    }
    out.extend(body);
    out
}

/// Identity-H TrueType fonts (CIDFontType2) with no ToUnicode map: the codes are glyph ids of
/// the embedded program, read back through its `cmap`; once with /CIDToGIDMap /Identity, once
/// with a CIDToGIDMap stream that moves every glyph.
pub fn truetype_without_tounicode() -> io::Result<Fixture> {
    let mut sheet = Sheet::new();
    let lines = ["Glyph ids only", "Mapped through CIDToGIDMap 中"];
    let mut pages = Vec::new();
    for (n, line) in lines.iter().enumerate() {
        let mut chars: Vec<char> = line.chars().filter(|c| *c != ' ').collect();
        chars.sort();
        chars.dedup();
        let program = tiny_truetype(&chars);
        let len = program.len() as i64;
        let file = sheet.add_stream(dictionary! { "Length1" => len }, program)?;
        let descriptor = sheet.add_object(dictionary! {
            "Type" => "FontDescriptor",
            "FontName" => "ABCDEF+FixtureSans",
            "Flags" => 32,
            "FontBBox" => vec![0.into(), (-200).into(), 1000.into(), 800.into()],
            "ItalicAngle" => 0,
            "Ascent" => 800,
            "Descent" => -200,
            "CapHeight" => 700,
            "StemV" => 80,
            "FontFile2" => file,
        });
        // With the stream map, code (CID) k shows glyph k - 100.
        let shift = if n == 1 { 100u16 } else { 0 };
        let mut descendant = dictionary! {
            "Type" => "Font",
            "Subtype" => "CIDFontType2",
            "BaseFont" => "ABCDEF+FixtureSans",
            "CIDSystemInfo" => dictionary! {
                "Registry" => Object::string_literal("Adobe"),
                "Ordering" => Object::string_literal("Identity"),
                "Supplement" => 0,
            },
            "FontDescriptor" => descriptor,
            "DW" => 600,
        };
        if shift == 0 {
            descendant.set("CIDToGIDMap", "Identity");
        } else {
            let mut map = vec![0u8; 2 * (usize::from(shift) + chars.len() + 1)];
            for gid in 1..=chars.len() as u16 {
                let cid = usize::from(gid + shift);
                map[2 * cid..2 * cid + 2].copy_from_slice(&gid.to_be_bytes());
            }
            let id = sheet.add_stream(Dictionary::new(), map)?;
            descendant.set("CIDToGIDMap", id);
        }
        let descendant = sheet.add_object(descendant);
        let name = format!("T{n}");
        sheet.add_font(
            &name,
            dictionary! {
                "Type" => "Font",
                "Subtype" => "Type0",
                "BaseFont" => "ABCDEF+FixtureSans",
                "Encoding" => "Identity-H",
                "DescendantFonts" => vec![descendant.into()],
            },
        );
        // A space is no glyph of the program: the writer moves on instead, as producers do.
        let mut x = 72.0;
        for word in line.split(' ') {
            let codes: Vec<u8> = word
                .chars()
                .flat_map(|c| {
                    let gid = chars.binary_search(&c).map_or(0, |i| i as u16 + 1);
                    (gid + shift).to_be_bytes()
                })
                .collect();
            let count = word.chars().count() as f32;
            sheet.show(&name, 12.0, x, 700.0, codes);
            x += (count + 1.0) * 7.2;
        }
        sheet.end_page()?;
        pages.push(line.to_string());
    }
    Ok(Fixture {
        name: "truetype-without-tounicode",
        pdf: sheet.finish()?,
        pages,
    })
}

/// A page whose only font is a CID font of the Identity ordering with neither ToUnicode nor an
/// embedded program (nothing can say what its glyphs are), then a page of ordinary text.
pub fn undecodable_font() -> io::Result<Fixture> {
    let mut sheet = Sheet::new();
    sheet.add_std14("F1", "Helvetica");
    let descendant = sheet.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "CIDFontType0",
        "BaseFont" => "Opaque",
        "CIDSystemInfo" => dictionary! {
            "Registry" => Object::string_literal("Adobe"),
            "Ordering" => Object::string_literal("Identity"),
            "Supplement" => 0,
        },
        "DW" => 1000,
    });
    sheet.add_font(
        "X1",
        dictionary! {
            "Type" => "Font",
            "Subtype" => "Type0",
            "BaseFont" => "Opaque",
            "Encoding" => "Identity-H",
            "DescendantFonts" => vec![descendant.into()],
        },
    );
    for line in 0..4u16 {
        let codes: Vec<u8> = (0..20u16)
            .flat_map(|i| (0x0400 + line * 20 + i).to_be_bytes())
            .collect();
        sheet.show("X1", 10.0, 72.0, 700.0 - 14.0 * f32::from(line), codes);
    }
    sheet.end_page()?;
    sheet.text("F1", 10.0, 72.0, 700.0, "Readable text on page two.");
    Ok(Fixture {
        name: "undecodable-font",
        pdf: sheet.finish()?,
        pages: vec![String::new(), "Readable text on page two.".into()],
    })
}

/// One line of text set TeX-like, word by word with no space characters; returns where it ends.
fn set_words(sheet: &mut Sheet, font: (&str, &str), size: f32, x: f32, y: f32, text: &str) -> f32 {
    let (resource, base) = font;
    let mut pos = x;
    let space = std14_text_width(base, size, " ");
    for word in text.split(' ') {
        sheet.text(resource, size, pos, y, word);
        pos += std14_text_width(base, size, word) + space;
    }
    pos - space
}

/// Body lines with `lineno`-style numbers in the left margin (every line, blank lines counted,
/// small type, right-aligned), and a second page with a table of contents whose page numbers
/// count up by one, line up on the right after dot leaders, and must stay.
pub fn margin_line_numbers() -> io::Result<Fixture> {
    let mut sheet = Sheet::new();
    sheet.add_std14("F1", "Times-Roman");
    sheet.add_std14("F2", "Times-Roman");
    let body = [
        Some("The numbers in the margin belong to the review copy and"),
        Some("never to the sentences themselves, so a reader that quotes"),
        Some("this paragraph must not find them spliced into the text."),
        None,
        Some("A second paragraph follows the blank line, which the"),
        Some("line numbering counts like any other line of the page."),
        Some("Search and quotes see the words alone, as printed here"),
        Some("beside the numbers."),
    ];
    let mut expected = String::new();
    for (i, line) in body.iter().enumerate() {
        let y = 700.0 - 12.0 * i as f32;
        let number = (i + 1).to_string();
        let w = std14_text_width("Times-Roman", 7.0, &number);
        sheet.text("F2", 7.0, 90.0 - w, y, &number);
        match line {
            Some(text) => {
                set_words(&mut sheet, ("F1", "Times-Roman"), 10.0, 100.0, y, text);
                if !expected.is_empty() && !expected.ends_with("\n\n") {
                    expected.push('\n');
                }
                expected.push_str(text);
            }
            None => expected.push_str("\n\n"),
        }
    }
    sheet.end_page()?;
    let toc = [
        ("1 Introduction", 1),
        ("2 Reading order", 2),
        ("3 Margins", 3),
        ("4 Line numbers", 4),
        ("5 Sidebars", 5),
        ("6 Conclusion", 6),
    ];
    let mut toc_text = Vec::new();
    for (i, (title, page)) in toc.iter().enumerate() {
        let y = 700.0 - 12.0 * i as f32;
        let end = set_words(&mut sheet, ("F1", "Times-Roman"), 10.0, 100.0, y, title);
        // Dot leaders on a grid, as LaTeX sets them, up to the page number's box.
        let mut x = ((end + 6.0) / 4.5).ceil() * 4.5;
        let mut dots = 0;
        while x < 470.0 {
            sheet.text("F1", 10.0, x, y, ".");
            x += 4.5;
            dots += 1;
        }
        let number = page.to_string();
        let w = std14_text_width("Times-Roman", 10.0, &number);
        sheet.text("F1", 10.0, 500.0 - w, y, &number);
        toc_text.push(format!("{title} {} {page}", vec!["."; dots].join(" ")));
    }
    Ok(Fixture {
        name: "margin-line-numbers",
        pdf: sheet.finish()?,
        pages: vec![expected, toc_text.join("\n")],
    })
}

/// An Elsevier-style front page: a full-width title, then a narrow "Article info" box beside the
/// abstract, their lines on the same baselines. The abstract reads as one paragraph and the box
/// follows it as a block of its own.
pub fn sidebar_box() -> io::Result<Fixture> {
    let mut sheet = Sheet::new();
    sheet.add_std14("F1", "Times-Roman");
    sheet.add_std14("F2", "Helvetica");
    sheet.add_std14("F3", "Times-Bold");
    set_words(
        &mut sheet,
        ("F3", "Times-Bold"),
        16.0,
        150.0,
        740.0,
        "Sidebars beside the abstract",
    );
    let abstract_lines = [
        "Boxes of article information sit beside the abstract on",
        "many journal front pages, their lines level with the",
        "lines of the abstract, and a reader that merges the two",
        "by baseline cuts every sentence of the abstract in half.",
        "The box must come out as a block of its own, after the",
        "abstract it sits beside, and the abstract as one text.",
    ];
    let box_lines = [
        "ARTICLE INFO",
        "Article history:",
        "Received 2 May 2023",
        "Keywords:",
        "reading order",
        "sidebars",
    ];
    for (i, line) in abstract_lines.iter().enumerate() {
        set_words(
            &mut sheet,
            ("F1", "Times-Roman"),
            10.0,
            250.0,
            690.0 - 12.0 * i as f32,
            line,
        );
    }
    for (i, line) in box_lines.iter().enumerate() {
        set_words(
            &mut sheet,
            ("F2", "Helvetica"),
            8.0,
            80.0,
            690.0 - 12.0 * i as f32,
            line,
        );
    }
    sheet.rect(72.0, 620.0, 140.0, 82.0);
    Ok(Fixture {
        name: "sidebar-box",
        pdf: sheet.finish()?,
        pages: vec![format!(
            "Sidebars beside the abstract\n\n{}\n\n{}",
            abstract_lines.join("\n"),
            box_lines.join("\n")
        )],
    })
}

/// An Elsevier-style front page with a narrow "Article history / Received / Accepted /
/// Keywords" column beside a two-column abstract, every line of the three on a shared
/// baseline; the content stream draws the column, then each abstract column, whole. What a
/// reader that merges lines by baseline would splice exists nowhere in the PDF. `pages` is
/// the text as printed: each abstract column, then the column beside them.
pub fn sidebar_two_column_abstract() -> io::Result<Fixture> {
    let mut sheet = Sheet::new();
    sheet.add_std14("F1", "Times-Roman");
    sheet.add_std14("F2", "Helvetica");
    let side = [
        "ARTICLE INFO",
        "Article history:",
        "Received 12 March 2021",
        "Accepted 3 May 2021",
        "Keywords:",
        "Citation checking",
    ];
    let left = [
        "Readers that quote a paper must",
        "find the quoted words where the",
        "paper prints them, and a check",
        "that accepts text the reader made",
        "up itself proves nothing at all.",
    ];
    let right = [
        "Here the sidebar stands on the",
        "same baselines as the abstract,",
        "so a reader merging lines by their",
        "height joins the two into one text",
        "that the page never printed.",
    ];
    let y = |i: usize| 690.0 - 12.0 * i as f32;
    for (i, line) in side.iter().enumerate() {
        set_words(&mut sheet, ("F2", "Helvetica"), 7.0, 40.0, y(i), line);
    }
    for (i, line) in left.iter().enumerate() {
        set_words(&mut sheet, ("F1", "Times-Roman"), 10.0, 150.0, y(i), line);
    }
    for (i, line) in right.iter().enumerate() {
        set_words(&mut sheet, ("F1", "Times-Roman"), 10.0, 330.0, y(i), line);
    }
    Ok(Fixture {
        name: "sidebar-two-column-abstract",
        pdf: sheet.finish()?,
        pages: vec![format!(
            "{}\n\n{}\n\n{}",
            left.join("\n"),
            right.join("\n"),
            side.join("\n")
        )],
    })
}

/// An IEEE-style first paragraph: a drop cap two lines tall, the rest of its word in small
/// capitals on the first line, the second line indented beside the cap.
pub fn drop_cap() -> io::Result<Fixture> {
    let mut sheet = Sheet::new();
    sheet.add_std14("F1", "Times-Roman");
    sheet.add_std14("F2", "Times-Roman");
    sheet.add_std14("F3", "Times-Roman");
    sheet.text("F1", 10.0, 100.0, 724.0, "I. INTRODUCTION");
    // The cap's baseline is the second line's; its top is level with the first line's capitals.
    sheet.text("F2", 23.0, 72.0, 688.0, "T");
    sheet.text("F3", 8.0, 88.0, 700.0, "HIS");
    set_words(
        &mut sheet,
        ("F1", "Times-Roman"),
        10.0,
        106.0,
        700.0,
        "demo file is intended to serve as a",
    );
    set_words(
        &mut sheet,
        ("F1", "Times-Roman"),
        10.0,
        88.0,
        688.0,
        "starter file for IEEE journal papers",
    );
    set_words(
        &mut sheet,
        ("F1", "Times-Roman"),
        10.0,
        72.0,
        676.0,
        "produced under LaTeX using IEEEtran.",
    );
    Ok(Fixture {
        name: "drop-cap",
        pdf: sheet.finish()?,
        pages: vec![
            "I. INTRODUCTION\n\nTHIS demo file is intended to serve as a\nstarter file for IEEE journal papers\nproduced under LaTeX using IEEEtran."
                .into(),
        ],
    })
}

/// Accents TeX draws as glyphs of their own (`\"U`, `\~N`, `\=P`): centred over their capital
/// and raised, before it in the content stream; and an inline one over a lowercase letter.
pub fn tex_accents() -> io::Result<Fixture> {
    let mut sheet = Sheet::new();
    sheet.add_std14("F1", "Times-Roman");
    let size = 10.0;
    let y = 700.0;
    let mut x = 72.0;
    let space = std14_text_width("Times-Roman", size, " ");
    for word in ["U. ¨Underwood, N. ˜Net, and P. ¯Pot, after Schr¨odinger."] {
        for piece in word.split(' ') {
            let mut chars = piece.chars().peekable();
            let mut rest = String::new();
            let mut pending: Option<char> = None;
            while let Some(c) = chars.next() {
                if matches!(c, '¨' | '˜' | '¯') && chars.peek().is_some() {
                    pending = Some(c);
                    continue;
                }
                if let Some(accent) = pending.take() {
                    if !rest.is_empty() {
                        sheet.text("F1", size, x, y, &rest);
                        x += std14_text_width("Times-Roman", size, &rest);
                        rest.clear();
                    }
                    let base = c.to_string();
                    let bw = std14_text_width("Times-Roman", size, &base);
                    let aw = std14_text_width("Times-Roman", size, &accent.to_string());
                    let raise = if c.is_uppercase() { 2.4 } else { 0.0 };
                    sheet.text(
                        "F1",
                        size,
                        x + (bw - aw) / 2.0,
                        y + raise,
                        &accent.to_string(),
                    );
                    sheet.text("F1", size, x, y, &base);
                    x += bw;
                    continue;
                }
                rest.push(c);
            }
            if !rest.is_empty() {
                sheet.text("F1", size, x, y, &rest);
                x += std14_text_width("Times-Roman", size, &rest);
            }
            x += space;
        }
    }
    Ok(Fixture {
        name: "tex-accents",
        pdf: sheet.finish()?,
        pages: vec!["U. Ünderwood, N. Ñet, and P. P\u{304}ot, after Schrödinger.".into()],
    })
}

/// A code listing in Courier between two paragraphs: its indentation and line breaks stay, and
/// the spaces inside a line keep their count.
pub fn code_listing() -> io::Result<Fixture> {
    let mut sheet = Sheet::new();
    sheet.add_std14("F1", "Times-Roman");
    sheet.add_std14("F2", "Courier");
    let code = [
        "fn main() {",
        "    let total = 42;  // the answer",
        "    if total > 0 {",
        "        println!(\"positive: {}\", total);",
        "    }",
        "}",
    ];
    set_words(
        &mut sheet,
        ("F1", "Times-Roman"),
        10.0,
        72.0,
        700.0,
        "The listing prints its total:",
    );
    let cw = std14_text_width("Courier", 9.0, " ");
    for (i, line) in code.iter().enumerate() {
        let indent = line.len() - line.trim_start().len();
        let y = 682.0 - 10.5 * i as f32;
        sheet.text("F2", 9.0, 72.0 + indent as f32 * cw, y, line.trim_start());
    }
    set_words(
        &mut sheet,
        ("F1", "Times-Roman"),
        10.0,
        72.0,
        682.0 - 10.5 * code.len() as f32 - 8.0,
        "and returns nothing.",
    );
    Ok(Fixture {
        name: "code-listing",
        pdf: sheet.finish()?,
        pages: vec![format!(
            "The listing prints its total:\n\n{}\n\nand returns nothing.",
            code.join("\n")
        )],
    })
}

/// A long paper for reading-position tests: `n` pages, each saying which page it is in its
/// heading and body, with a framed box standing in for a figure.
pub fn numbered_pages(n: u32) -> io::Result<Fixture> {
    let mut sheet = Sheet::new();
    sheet.add_std14("F1", "Times-Roman");
    let mut pages = Vec::new();
    for i in 1..=n {
        let heading = format!("Chapter {i} of {n}");
        let body = format!("This is the body text of page number {i} in the numbered fixture.");
        set_words(
            &mut sheet,
            ("F1", "Times-Roman"),
            14.0,
            72.0,
            720.0,
            &heading,
        );
        set_words(&mut sheet, ("F1", "Times-Roman"), 10.0, 72.0, 690.0, &body);
        sheet.rect(72.0, 400.0, 300.0, 200.0);
        sheet.end_page()?;
        pages.push(format!("{heading}\n\n{body}"));
    }
    Ok(Fixture {
        name: "numbered-pages",
        pdf: sheet.finish()?,
        pages,
    })
}
