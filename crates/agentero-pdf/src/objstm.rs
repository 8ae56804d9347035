//! Object streams read for page text without the members page text never reads. lopdf parses every
//! member of an object stream before the load's filter sees it, and a hyperlinked paper's object
//! streams are mostly link annotations (a third of the members of the corpus's object streams,
//! more of their bytes). [`prune`] runs on the stream itself, which the filter sees first: it
//! decodes it, finds the members the filter would drop from their dictionary's top level, and
//! leaves an uncompressed stream of the others, so lopdf parses only those.
//!
//! The rule is the filter's own (`keep` in the crate root), read from the member's bytes: a
//! dictionary whose `/Type` is `/StructElem` or `/Annot`, or whose `/Subtype` is `/Link` with a
//! `/Rect`. A member is read by a small tokenizer of PDF syntax that gives up on anything it does
//! not follow; a member it gives up on is kept, and so is every member of a stream it cannot
//! rewrite exactly, which lopdf then reads as it always did.

use lopdf::{Object, Stream};

/// Drops from the object stream `stream` the members the text load's filter would drop. A stream
/// that cannot be decoded within lopdf's own limit is left as it is; one with nothing to drop, or
/// whose index is not plain ascending offsets, is left decoded, whole.
pub(crate) fn prune(stream: &mut Stream) {
    let Some(first) = int(&stream.dict, b"First") else {
        return;
    };
    let Ok(content) = stream.get_plain_content_with_limit(lopdf::DEFAULT_MAX_DECOMPRESSED_SIZE)
    else {
        return;
    };
    let Some(rebuilt) = rebuild(&content, first) else {
        // Nothing to drop: lopdf reads the stream as decoded here rather than decoding it again.
        stream.set_plain_content(content);
        return;
    };
    let (index, body, n) = rebuilt;
    let mut bytes = index.into_bytes();
    let first = bytes.len();
    bytes.extend_from_slice(&body);
    stream.dict.set("N", n as i64);
    stream.dict.set("First", first as i64);
    stream.set_plain_content(bytes);
}

fn int(dict: &lopdf::Dictionary, key: &[u8]) -> Option<usize> {
    match dict.get(key) {
        Ok(Object::Integer(i)) => usize::try_from(*i).ok(),
        _ => None,
    }
}

/// The index (`id offset` pairs), the body and the number of members of the stream decoded as
/// `content` with its first member at `first`, the dropped members left out; `None` when nothing
/// is dropped or the index is not one lopdf and this read alike.
fn rebuild(content: &[u8], first: usize) -> Option<(String, Vec<u8>, usize)> {
    let index = std::str::from_utf8(content.get(..first)?).ok()?;
    if index.contains('%') {
        return None;
    }
    let numbers: Vec<usize> = index
        .split_ascii_whitespace()
        .map(|n| n.parse().ok())
        .collect::<Option<_>>()?;
    if numbers.is_empty() || !numbers.len().is_multiple_of(2) {
        return None;
    }
    let members: Vec<(usize, usize)> = numbers.chunks(2).map(|c| (c[0], first + c[1])).collect();
    // Each member runs to the next one's offset: they must ascend and lie inside the stream.
    if members.windows(2).any(|w| w[0].1 >= w[1].1) || members.last()?.1 >= content.len() {
        return None;
    }
    let ends = members.iter().skip(1).map(|m| m.1).chain([content.len()]);
    let mut kept_index = String::new();
    let mut body = Vec::new();
    let mut kept = 0;
    for (&(id, at), end) in members.iter().zip(ends) {
        let bytes = &content[at..end];
        if dropped(bytes) {
            continue;
        }
        if !kept_index.is_empty() {
            kept_index.push(' ');
        }
        kept_index.push_str(&format!("{id} {}", body.len()));
        body.extend_from_slice(bytes);
        kept += 1;
    }
    if kept == members.len() {
        return None;
    }
    kept_index.push('\n');
    Some((kept_index, body, kept))
}

/// Whether the load's filter drops the member written as `bytes`: only a dictionary read to its
/// end whose top level says so.
fn dropped(bytes: &[u8]) -> bool {
    // Most members name none of these at all.
    let names = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    if !(names(b"Annot") || names(b"StructElem") || names(b"Link") || names(b"#")) {
        return false;
    }
    let Some(top) = top_level(bytes) else {
        return false;
    };
    let name = |key: &[u8]| match top.iter().rev().find(|(k, _)| k == key) {
        Some((_, Value::Name(n))) => Some(n.as_slice()),
        _ => None,
    };
    let has = |key: &[u8]| top.iter().any(|(k, _)| k == key);
    matches!(name(b"Type"), Some(b"StructElem" | b"Annot"))
        || (name(b"Subtype") == Some(b"Link") && has(b"Rect"))
}

/// A top-level value, as far as the rule needs it.
#[derive(Debug, PartialEq)]
enum Value {
    Name(Vec<u8>),
    Other,
}

/// The keys and values of the dictionary `bytes` starts with (after white space), in order;
/// `None` when `bytes` is not a dictionary this tokenizer reads to its end.
fn top_level(bytes: &[u8]) -> Option<Vec<(Vec<u8>, Value)>> {
    let mut t = Tokens { bytes, at: 0 };
    if t.next()? != Tok::DictOpen {
        return None;
    }
    let mut out = Vec::new();
    loop {
        let key = match t.next()? {
            Tok::DictClose => return Some(out),
            Tok::Name(n) => n,
            _ => return None,
        };
        let value = match t.next()? {
            Tok::Name(n) => Value::Name(n),
            Tok::DictOpen => {
                t.skip_to_close(1, 0)?;
                Value::Other
            }
            Tok::ArrayOpen => {
                t.skip_to_close(0, 1)?;
                Value::Other
            }
            Tok::Str => Value::Other,
            // A number, maybe the object number of a reference `n g R`.
            Tok::Word(w) if is_int(w) => {
                let save = t.at;
                match (t.next(), t.next()) {
                    (Some(Tok::Word(g)), Some(Tok::Word(b"R"))) if is_int(g) => {}
                    _ => t.at = save,
                }
                Value::Other
            }
            Tok::Word(_) => Value::Other,
            Tok::DictClose | Tok::ArrayClose => return None,
        };
        out.push((key, value));
    }
}

fn is_int(w: &[u8]) -> bool {
    let digits = w
        .strip_prefix(b"+")
        .or_else(|| w.strip_prefix(b"-"))
        .unwrap_or(w);
    !digits.is_empty() && digits.iter().all(u8::is_ascii_digit)
}

#[derive(Debug, PartialEq)]
enum Tok<'a> {
    DictOpen,
    DictClose,
    ArrayOpen,
    ArrayClose,
    /// A name, its `#xx` escapes decoded.
    Name(Vec<u8>),
    /// A literal or hex string.
    Str,
    /// A number or a keyword (`true`, `null`, `R`).
    Word(&'a [u8]),
}

struct Tokens<'a> {
    bytes: &'a [u8],
    at: usize,
}

fn is_white(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' | b'\0')
}

fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

impl<'a> Tokens<'a> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn next(&mut self) -> Option<Tok<'a>> {
        // White space and comments.
        loop {
            match self.peek()? {
                b if is_white(b) => self.at += 1,
                b'%' => {
                    while self.peek().is_some_and(|b| b != b'\r' && b != b'\n') {
                        self.at += 1;
                    }
                }
                _ => break,
            }
        }
        let b = self.peek()?;
        self.at += 1;
        match b {
            b'<' if self.peek() == Some(b'<') => {
                self.at += 1;
                Some(Tok::DictOpen)
            }
            b'>' if self.peek() == Some(b'>') => {
                self.at += 1;
                Some(Tok::DictClose)
            }
            b'[' => Some(Tok::ArrayOpen),
            b']' => Some(Tok::ArrayClose),
            b'<' => {
                // A hex string: hex digits and white space only.
                loop {
                    match self.peek()? {
                        b'>' => {
                            self.at += 1;
                            return Some(Tok::Str);
                        }
                        c if c.is_ascii_hexdigit() || is_white(c) => self.at += 1,
                        _ => return None,
                    }
                }
            }
            b'(' => {
                let mut depth = 1;
                while depth > 0 {
                    match self.peek()? {
                        b'\\' => self.at += 1,
                        b'(' => depth += 1,
                        b')' => depth -= 1,
                        _ => {}
                    }
                    self.at += 1;
                }
                Some(Tok::Str)
            }
            b'/' => {
                let mut name = Vec::new();
                while let Some(c) = self.peek().filter(|&c| !is_white(c) && !is_delimiter(c)) {
                    self.at += 1;
                    if c == b'#' {
                        let hex = self.bytes.get(self.at..self.at + 2)?;
                        let hex = std::str::from_utf8(hex).ok()?;
                        name.push(u8::from_str_radix(hex, 16).ok()?);
                        self.at += 2;
                    } else {
                        name.push(c);
                    }
                }
                Some(Tok::Name(name))
            }
            c if is_delimiter(c) => None,
            _ => {
                let start = self.at - 1;
                while self
                    .peek()
                    .is_some_and(|c| !is_white(c) && !is_delimiter(c))
                {
                    self.at += 1;
                }
                Some(Tok::Word(&self.bytes[start..self.at]))
            }
        }
    }

    /// Reads on to the end of the dictionaries and arrays open (`dicts`, `arrays` deep), which
    /// must close in order.
    fn skip_to_close(&mut self, dicts: usize, arrays: usize) -> Option<()> {
        let mut open: Vec<Tok> = Vec::new();
        open.extend((0..dicts).map(|_| Tok::DictOpen));
        open.extend((0..arrays).map(|_| Tok::ArrayOpen));
        while let Some(top) = open.last() {
            match self.next()? {
                Tok::DictOpen => open.push(Tok::DictOpen),
                Tok::ArrayOpen => open.push(Tok::ArrayOpen),
                Tok::DictClose if *top == Tok::DictOpen => {
                    open.pop();
                }
                Tok::ArrayClose if *top == Tok::ArrayOpen => {
                    open.pop();
                }
                Tok::DictClose | Tok::ArrayClose => return None,
                _ => {}
            }
            if open.len() > 100 {
                return None;
            }
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lopdf::dictionary;

    #[test]
    fn the_filters_members_are_dropped_from_the_top_level_only() {
        assert!(dropped(
            b"<< /Type /Annot /Subtype /Link /Rect [0 0 1 1] >>"
        ));
        assert!(dropped(
            b" <</Subtype/Link/Rect[0 0 1 1]/A<</S/URI/URI(x)>>>>"
        ));
        assert!(dropped(b"<< /Type /StructElem /K 3 0 R /P 12 0 R >>"));
        // A name written with an escape is the same name.
        assert!(dropped(b"<< /Typ#65 /Annot >>"));
        // The last of a repeated key is the one lopdf keeps.
        assert!(dropped(b"<< /Type /Page /Type /Annot >>"));
        assert!(!dropped(b"<< /Type /Annot /Type /Page >>"));
        // Not at the top level, or not the filter's rule.
        assert!(!dropped(
            b"<< /Type /Page /Annots [ << /Type /Annot >> ] >>"
        ));
        assert!(!dropped(b"<< /Type /Page /X << /Type /Annot >> >>"));
        assert!(!dropped(b"<< /Subtype /Link >>"));
        assert!(!dropped(b"<< /S /Type /Annot 5 >>"));
        assert!(!dropped(b"[ /Type /Annot ]"));
        assert!(!dropped(
            b"<< /T (a string with /Type /Annot and >> in it) >>"
        ));
        assert!(!dropped(
            b"<< /T <41> /U 1 0 R /V true /W null /Type /Font >>"
        ));
        assert!(dropped(
            b"<< /T <41 42> /U 1 0 R /V -2.5 % a comment /Type /Page\n /Type /Annot >>"
        ));
        // What the tokenizer does not follow is kept, for lopdf to read as it does.
        assert!(!dropped(b"<< /Type /Annot"));
        assert!(!dropped(b"<< /Type /Annot /Rect [ 0 0 1 1 >>"));
        assert!(!dropped(b"<< /T (unclosed /Type /Annot >>"));
        assert!(!dropped(b"<< /Type /Annot /X <zz> >>"));
        assert!(!dropped(b"<< 1 /Type /Annot >>"));
    }

    /// A one-page PDF whose page has `links` link annotations (to a URI), saved with its objects
    /// in object streams when `streams`.
    fn linked_pdf(links: usize, streams: bool) -> Vec<u8> {
        use lopdf::{Dictionary, Document, Stream, dictionary};
        let mut doc = Document::with_version("1.5");
        let pages = doc.new_object_id();
        let font = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
        });
        let content = b"BT /F1 12 Tf 72 720 Td (Links to the examples) Tj ET".to_vec();
        let contents = doc.add_object(Stream::new(Dictionary::new(), content));
        let annots: Vec<Object> = (0..links)
            .map(|k| {
                let y = 700.0 - 14.0 * k as f32;
                let annot = doc.add_object(dictionary! {
                    "Type" => "Annot", "Subtype" => "Link",
                    "Rect" => vec![72.into(), y.into(), 200.into(), (y + 12.0).into()],
                    "A" => dictionary! { "S" => "URI", "URI" => Object::string_literal(format!("https://example.org/{k}")) },
                });
                annot.into()
            })
            .collect();
        let page = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages, "Contents" => contents,
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
            "Resources" => dictionary! { "Font" => dictionary! { "F1" => font } },
            "Annots" => annots,
        });
        doc.objects.insert(
            pages,
            Object::Dictionary(
                dictionary! { "Type" => "Pages", "Kids" => vec![page.into()], "Count" => 1 },
            ),
        );
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages });
        doc.trailer.set("Root", catalog);
        let mut out = Vec::new();
        let options = lopdf::SaveOptions::builder()
            .use_object_streams(streams)
            .use_xref_streams(streams)
            .build();
        doc.save_with_options(&mut out, options).unwrap();
        out
    }

    #[test]
    fn a_paper_read_for_text_leaves_its_links_unparsed_and_reads_the_same() {
        let limits = || crate::Limits {
            deadline: std::time::Instant::now() + std::time::Duration::from_secs(30),
        };
        let flat = linked_pdf(40, false);
        let packed = linked_pdf(40, true);
        assert!(
            packed.windows(6).any(|w| w == b"ObjStm"),
            "the fixture has object streams"
        );
        let text = |bytes: &[u8]| {
            let doc = crate::extract(bytes, limits()).unwrap();
            doc.pages.iter().map(|p| p.text.clone()).collect::<Vec<_>>()
        };
        assert_eq!(text(&packed), text(&flat));
        assert!(text(&packed)[0].contains("Links to the examples"));
        // The text load holds no annotation and no object stream's bytes; the links load
        // holds every link.
        let doc = crate::load(&packed).unwrap();
        let annots = doc
            .objects
            .values()
            .filter(|o| o.as_dict().is_ok_and(|d| d.has_type(b"Annot")))
            .count();
        assert_eq!(annots, 0);
        assert!(doc.objects.values().all(|o| match o {
            Object::Stream(s) => !s.dict.has_type(b"ObjStm") || s.content.is_empty(),
            _ => true,
        }));
        assert!(doc.get_object(doc.page_iter().next().unwrap()).is_ok());
        // The annotations are the members left out of the streams, before lopdf parses them.
        let whole = lopdf::Document::load_mem(&packed).unwrap();
        let (mut before, mut after) = (0, 0);
        for object in whole.objects.values() {
            if let Object::Stream(s) = object
                && s.dict.has_type(b"ObjStm")
            {
                let mut s = s.clone();
                before += int(&s.dict, b"N").unwrap();
                prune(&mut s);
                after += int(&s.dict, b"N").unwrap();
                assert!(lopdf::ObjectStream::new(&s).is_ok());
            }
        }
        assert_eq!(before - after, 40, "{before} members before, {after} after");
        let links = crate::page_links(&packed, 1, limits()).unwrap();
        assert_eq!(links.len(), 40);
        assert_eq!(links, crate::page_links(&flat, 1, limits()).unwrap());
    }

    #[test]
    fn a_stream_keeps_its_other_members_at_their_new_offsets() {
        let members: [&[u8]; 4] = [
            b"<< /Type /Page >> ",
            b"<< /Type /Annot /Subtype /Link /Rect [0 0 1 1] >> ",
            b"[ 1 2 3 ] ",
            b"<< /Type /StructElem >>",
        ];
        let mut index = String::new();
        let mut body = Vec::new();
        for (k, m) in members.iter().enumerate() {
            index.push_str(&format!("{} {} ", 10 + k, body.len()));
            body.extend_from_slice(m);
        }
        let first = index.len();
        let mut content = index.into_bytes();
        content.extend_from_slice(&body);
        let (index, body, n) = rebuild(&content, first).unwrap();
        assert_eq!(n, 2);
        assert_eq!(index, "10 0 12 18\n");
        assert_eq!(body, b"<< /Type /Page >> [ 1 2 3 ] ");
        // Nothing to drop, offsets out of order, a comment in the index: left as it is.
        let plain = b"1 0 2 3 << >>[ ]";
        assert!(rebuild(plain, 8).is_none());
        let unordered = b"1 7 2 0 << /Type /Annot >> << >>";
        assert!(rebuild(unordered, 8).is_none());
        let commented = b"1 0 %c\n << /Type /Annot >>";
        assert!(rebuild(commented, 8).is_none());
        assert!(rebuild(b"1 0 2", 5).is_none());
        assert!(rebuild(b"1 99 << >>", 5).is_none());
    }

    #[test]
    fn a_stream_with_nothing_to_drop_is_left_decoded_and_whole() {
        let content = b"1 0 2 6 << >> [ 1 ]".to_vec();
        let mut deflate = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut deflate, &content).unwrap();
        let mut stream = Stream::new(
            dictionary! {
                "Type" => "ObjStm", "N" => 2, "First" => 8, "Filter" => "FlateDecode",
            },
            deflate.finish().unwrap(),
        );
        assert_ne!(stream.content, content);
        prune(&mut stream);
        assert!(stream.dict.get(b"Filter").is_err());
        assert_eq!(stream.content, content);
        assert_eq!(int(&stream.dict, b"N"), Some(2));
        assert_eq!(int(&stream.dict, b"First"), Some(8));
        let members = lopdf::ObjectStream::new(&stream).unwrap().objects;
        assert_eq!(members.len(), 2);
    }
}
