//! CMap streams: ToUnicode maps (bfchar/bfrange) and embedded CID encodings (cidchar/cidrange),
//! read with a small tolerant tokenizer. Malformed entries are skipped, never fatal.

// Seeded per process (hashbrown's own default hasher): codes come from the file.
use foldhash::HashMap;

/// Upper bound on expanded entries per CMap, so a hostile `<0000> <FFFFFFFF>` range stays cheap.
const MAX_EXPANDED: u64 = 1 << 17;
/// Upper bound on kept (unexpanded) ranges and tokens scanned.
const MAX_RANGES: usize = 1 << 16;
const MAX_TOKENS: usize = 4_000_000;

#[derive(Debug, Clone, Copy)]
pub struct CodeRange {
    pub len: u8,
    pub lo: u32,
    pub hi: u32,
}

/// A parsed CMap. Keys combine byte length and code so `<00>` and `<0000>` stay distinct.
#[derive(Debug, Default, Clone)]
pub struct CMap {
    pub codespace: Vec<CodeRange>,
    /// ToUnicode: code → text.
    pub unicode: HashMap<u64, Box<str>>,
    /// bfranges too large to expand: (key lo, key hi, UTF-16 start units).
    unicode_ranges: Vec<(u64, u64, Vec<u16>)>,
    /// Encoding CMaps: code → CID.
    pub cids: HashMap<u64, u32>,
    cid_ranges: Vec<(u64, u64, u32)>,
    /// Name given in `usecmap` (a predefined parent such as Identity-H).
    pub use_cmap: Option<String>,
}

pub fn key(len: usize, code: u32) -> u64 {
    ((len as u64) << 32) | u64::from(code)
}

#[derive(Debug, Clone, PartialEq)]
enum Tok<'a> {
    Hex(Vec<u8>),
    Int(i64),
    Name(&'a [u8]),
    Word(&'a [u8]),
    Open,
    Close,
}

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Lexer<'a> {
    fn next_tok(&mut self) -> Option<Tok<'a>> {
        let s = self.s;
        loop {
            let c = *s.get(self.i)?;
            match c {
                b' ' | b'\t' | b'\r' | b'\n' | 0x0c | 0 => self.i += 1,
                b'%' => {
                    while let Some(&c) = s.get(self.i) {
                        if c == b'\n' || c == b'\r' {
                            break;
                        }
                        self.i += 1;
                    }
                }
                b'<' if s.get(self.i + 1) == Some(&b'<') => {
                    self.i += 2;
                    return Some(Tok::Word(b"<<"));
                }
                b'>' if s.get(self.i + 1) == Some(&b'>') => {
                    self.i += 2;
                    return Some(Tok::Word(b">>"));
                }
                b'<' => {
                    self.i += 1;
                    let mut out = Vec::new();
                    let mut hi: Option<u8> = None;
                    while let Some(&c) = s.get(self.i) {
                        self.i += 1;
                        if c == b'>' {
                            break;
                        }
                        let v = match c {
                            b'0'..=b'9' => c - b'0',
                            b'a'..=b'f' => c - b'a' + 10,
                            b'A'..=b'F' => c - b'A' + 10,
                            _ => continue,
                        };
                        match hi.take() {
                            Some(h) => out.push(h << 4 | v),
                            None => hi = Some(v),
                        }
                    }
                    if let Some(h) = hi {
                        out.push(h << 4);
                    }
                    return Some(Tok::Hex(out));
                }
                b'(' => {
                    // Literal strings only appear in CMap headers; skip them with nesting.
                    let mut depth = 0usize;
                    while let Some(&c) = s.get(self.i) {
                        self.i += 1;
                        match c {
                            b'\\' => self.i += 1,
                            b'(' => depth += 1,
                            b')' => {
                                depth = depth.saturating_sub(1);
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                    return Some(Tok::Word(b"()"));
                }
                b'[' => {
                    self.i += 1;
                    return Some(Tok::Open);
                }
                b']' => {
                    self.i += 1;
                    return Some(Tok::Close);
                }
                b'/' => {
                    self.i += 1;
                    let start = self.i;
                    while let Some(&c) = s.get(self.i) {
                        if is_delim(c) {
                            break;
                        }
                        self.i += 1;
                    }
                    return Some(Tok::Name(&s[start..self.i]));
                }
                _ => {
                    let start = self.i;
                    self.i += 1;
                    while let Some(&c) = s.get(self.i) {
                        if is_delim(c) {
                            break;
                        }
                        self.i += 1;
                    }
                    let w = &s[start..self.i];
                    if let Some(n) = std::str::from_utf8(w)
                        .ok()
                        .and_then(|t| t.parse::<i64>().ok())
                    {
                        return Some(Tok::Int(n));
                    }
                    return Some(Tok::Word(w));
                }
            }
        }
    }
}

fn is_delim(c: u8) -> bool {
    matches!(
        c,
        b' ' | b'\t'
            | b'\r'
            | b'\n'
            | 0x0c
            | 0
            | b'/'
            | b'['
            | b']'
            | b'<'
            | b'>'
            | b'('
            | b')'
            | b'%'
    )
}

fn be(bytes: &[u8]) -> Option<u32> {
    if bytes.is_empty() || bytes.len() > 4 {
        return None;
    }
    Some(bytes.iter().fold(0u32, |a, &b| a << 8 | u32::from(b)))
}

/// Text for a ToUnicode destination: UTF-16BE, with lone bytes taken as Latin-1.
pub fn utf16_text(bytes: &[u8]) -> String {
    if bytes.len() == 1 {
        return char::from(bytes[0]).to_string();
    }
    let units = bytes
        .chunks_exact(2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]));
    char::decode_utf16(units).filter_map(Result::ok).collect()
}

impl CMap {
    pub fn parse(data: &[u8]) -> CMap {
        let mut cm = CMap::default();
        let mut lx = Lexer { s: data, i: 0 };
        let mut prev: Option<Tok> = None;
        let mut expanded: u64 = 0;
        let mut tokens = 0usize;
        while let Some(t) = lx.next_tok() {
            tokens += 1;
            if tokens > MAX_TOKENS {
                break;
            }
            let Tok::Word(w) = &t else {
                prev = Some(t);
                continue;
            };
            match *w {
                b"begincodespacerange" => {
                    while let Some(lo) = lx.next_tok() {
                        let Tok::Hex(lo) = lo else { break };
                        let Some(Tok::Hex(hi)) = lx.next_tok() else {
                            break;
                        };
                        if let (Some(l), Some(h)) = (be(&lo), be(&hi)) {
                            cm.codespace.push(CodeRange {
                                len: lo.len() as u8,
                                lo: l,
                                hi: h,
                            });
                        }
                    }
                }
                b"beginbfchar" => {
                    while let Some(src) = lx.next_tok() {
                        let Tok::Hex(src) = src else { break };
                        let dst = match lx.next_tok() {
                            Some(Tok::Hex(d)) => utf16_text(&d),
                            Some(Tok::Name(n)) => {
                                super::encodings::glyph_to_unicode(&String::from_utf8_lossy(n))
                                    .unwrap_or_default()
                            }
                            _ => break,
                        };
                        if let Some(code) = be(&src) {
                            cm.unicode.insert(key(src.len(), code), dst.into());
                        }
                    }
                }
                b"beginbfrange" => cm.read_bfrange(&mut lx, &mut expanded),
                b"begincidchar" => {
                    while let Some(src) = lx.next_tok() {
                        let Tok::Hex(src) = src else { break };
                        let Some(Tok::Int(cid)) = lx.next_tok() else {
                            break;
                        };
                        if let (Some(code), Ok(cid)) = (be(&src), u32::try_from(cid)) {
                            cm.cids.insert(key(src.len(), code), cid);
                        }
                    }
                }
                b"begincidrange" => {
                    while let Some(Tok::Hex(lo)) = lx.next_tok() {
                        let Some(Tok::Hex(hi)) = lx.next_tok() else {
                            break;
                        };
                        let Some(Tok::Int(cid)) = lx.next_tok() else {
                            break;
                        };
                        let (Some(l), Some(h), Ok(cid)) = (be(&lo), be(&hi), u32::try_from(cid))
                        else {
                            continue;
                        };
                        if h >= l && cm.cid_ranges.len() < MAX_RANGES {
                            cm.cid_ranges
                                .push((key(lo.len(), l), key(lo.len(), h), cid));
                        }
                    }
                }
                b"usecmap" => {
                    if let Some(Tok::Name(n)) = &prev {
                        cm.use_cmap = Some(String::from_utf8_lossy(n).into_owned());
                    }
                }
                _ => {}
            }
            prev = Some(t);
        }
        cm
    }

    /// The entries of a `beginbfrange` section: ranges onto consecutive UTF-16 destinations
    /// (expanded while `expanded` stays under its bound, else kept as ranges) or onto arrays of
    /// destinations.
    fn read_bfrange(&mut self, lx: &mut Lexer<'_>, expanded: &mut u64) {
        while let Some(Tok::Hex(lo)) = lx.next_tok() {
            let Some(Tok::Hex(hi)) = lx.next_tok() else {
                break;
            };
            let (Some(l), Some(h)) = (be(&lo), be(&hi)) else {
                continue;
            };
            let len = lo.len();
            match lx.next_tok() {
                Some(Tok::Hex(dst)) => {
                    if h < l {
                        continue;
                    }
                    let units: Vec<u16> = if dst.len() == 1 {
                        vec![u16::from(dst[0])]
                    } else {
                        dst.chunks_exact(2)
                            .map(|c| u16::from_be_bytes([c[0], c[1]]))
                            .collect()
                    };
                    if units.is_empty() {
                        continue;
                    }
                    let n = u64::from(h - l) + 1;
                    if *expanded + n <= MAX_EXPANDED {
                        *expanded += n;
                        let mut u = units.clone();
                        for code in l..=h {
                            self.unicode.insert(key(len, code), units_text(&u).into());
                            if let Some(last) = u.last_mut() {
                                *last = last.wrapping_add(1);
                            }
                        }
                    } else if self.unicode_ranges.len() < MAX_RANGES {
                        self.unicode_ranges.push((key(len, l), key(len, h), units));
                    }
                }
                Some(Tok::Open) => {
                    let mut code = l;
                    while let Some(t) = lx.next_tok() {
                        match t {
                            Tok::Hex(d) => {
                                if code <= h && *expanded < MAX_EXPANDED {
                                    *expanded += 1;
                                    self.unicode.insert(key(len, code), utf16_text(&d).into());
                                }
                                code = code.saturating_add(1);
                            }
                            Tok::Name(n) => {
                                if let Some(s) =
                                    super::encodings::glyph_to_unicode(&String::from_utf8_lossy(n))
                                {
                                    self.unicode.insert(key(len, code), s.into());
                                }
                                code = code.saturating_add(1);
                            }
                            _ => break,
                        }
                    }
                }
                _ => break,
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.unicode.is_empty()
            && self.unicode_ranges.is_empty()
            && self.cids.is_empty()
            && self.cid_ranges.is_empty()
    }

    /// Text for a code of `len` bytes.
    pub fn lookup_unicode(&self, len: usize, code: u32) -> Option<&str> {
        let k = key(len, code);
        if let Some(s) = self.unicode.get(&k) {
            return Some(s);
        }
        None
    }

    /// Text for a code that lies in one of the unexpanded ranges (rare: huge bfranges).
    pub fn lookup_range_unicode(&self, len: usize, code: u32) -> Option<String> {
        let k = key(len, code);
        self.unicode_ranges
            .iter()
            .find(|r| r.0 <= k && k <= r.1)
            .map(|(lo, _, units)| {
                let mut u = units.clone();
                if let Some(last) = u.last_mut() {
                    *last = last.wrapping_add((k - lo) as u16);
                }
                units_text(&u)
            })
    }

    pub fn lookup_cid(&self, len: usize, code: u32) -> Option<u32> {
        let k = key(len, code);
        if let Some(&c) = self.cids.get(&k) {
            return Some(c);
        }
        self.cid_ranges
            .iter()
            .find(|r| r.0 <= k && k <= r.1)
            .map(|&(lo, _, cid)| cid.saturating_add((k - lo) as u32))
    }

    /// Splits the next code off `bytes` following the codespace ranges. Returns (code, length).
    /// Bytes matching no range are consumed one at a time, as the spec's fallback suggests.
    pub fn next_code(&self, bytes: &[u8]) -> (u32, usize) {
        if self.codespace.is_empty() {
            let n = 2.min(bytes.len()).max(1);
            return (be(&bytes[..n.min(bytes.len())]).unwrap_or(0), n);
        }
        for len in 1..=4usize {
            if bytes.len() < len {
                break;
            }
            let Some(code) = be(&bytes[..len]) else { break };
            if self
                .codespace
                .iter()
                .any(|r| r.len as usize == len && in_range(r, &bytes[..len]))
            {
                return (code, len);
            }
        }
        let shortest = self
            .codespace
            .iter()
            .map(|r| r.len as usize)
            .min()
            .unwrap_or(1)
            .clamp(1, 4);
        let n = shortest.min(bytes.len()).max(1);
        (be(&bytes[..n]).unwrap_or(0), n)
    }
}

/// Codespace ranges compare byte by byte (each byte within its own bounds).
fn in_range(r: &CodeRange, bytes: &[u8]) -> bool {
    let len = r.len as usize;
    bytes.iter().enumerate().all(|(i, &b)| {
        let shift = 8 * (len - 1 - i);
        let lo = (r.lo >> shift) as u8;
        let hi = (r.hi >> shift) as u8;
        lo <= b && b <= hi
    })
}

fn units_text(units: &[u16]) -> String {
    char::decode_utf16(units.iter().copied())
        .filter_map(Result::ok)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bfchar_bfrange_and_codespace() {
        let src = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap
            1 begincodespacerange <0000> <FFFF> endcodespacerange
            2 beginbfchar <0003> <0020> <0011> <FB01> endbfchar
            2 beginbfrange <0024> <0026> <0041> <0030> <0031> [<00660066> <D835DC9C>] endbfrange
            endcmap";
        let cm = CMap::parse(src);
        assert_eq!(cm.lookup_unicode(2, 3), Some(" "));
        assert_eq!(cm.lookup_unicode(2, 0x11), Some("\u{FB01}"));
        assert_eq!(cm.lookup_unicode(2, 0x25), Some("B"));
        assert_eq!(cm.lookup_unicode(2, 0x26), Some("C"));
        assert_eq!(cm.lookup_unicode(2, 0x30), Some("ff"));
        assert_eq!(cm.lookup_unicode(2, 0x31), Some("𝒜"));
        assert_eq!(cm.next_code(&[0x00, 0x24, 0x00]), (0x24, 2));
    }

    #[test]
    fn mixed_length_codespace() {
        let cm = CMap::parse(b"2 begincodespacerange <00> <80> <8140> <9FFC> endcodespacerange");
        assert_eq!(cm.next_code(b"A"), (0x41, 1));
        assert_eq!(cm.next_code(&[0x81, 0x40]), (0x8140, 2));
    }

    #[test]
    fn garbage_does_not_panic() {
        let cm = CMap::parse(b"beginbfrange <FFFFFFFF> <00> <> [ ] endbfrange <");
        assert!(cm.lookup_unicode(1, 0).is_none());
        let _ = CMap::parse(b"begincodespacerange <0000000000> <FF> endcodespacerange");
        let _ = CMap::parse(b"beginbfrange <00000000> <FFFFFFFF> <0041> endbfrange");
    }
}
