//! The content-stream lexer: operators and their operands read straight off the stream's bytes,
//! with nothing allocated per operator. Operands live in buffers the lexer reuses: numbers as
//! `f32`, names and strings as byte ranges into one scratch buffer, an array's items as a range of
//! operands. What text extraction never reads (dictionaries, booleans, inline-image data) is
//! skipped, not built.
//!
//! Damaged input is read on: a byte that starts no token is skipped, an unterminated string or
//! array ends at the end of the stream, and the operands before an unknown token are dropped, so
//! one bad operator costs that operator only.

use std::ops::Range;

/// Operands kept for one operator; past this the operands are dropped (no text operator takes
/// more than a handful, and an array's items are counted apart).
const MAX_OPERANDS: usize = 64;
/// Items kept per array (a `TJ` of one line of text has tens to hundreds).
const MAX_ITEMS: usize = 1 << 16;
/// Nesting of arrays and dictionaries read; deeper brackets are skipped as stray bytes.
const MAX_DEPTH: usize = 32;

/// One operand.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arg {
    Num(f32),
    /// A name without its `/`, `#xx` escapes decoded: a range of [`Op::bytes`].
    Name(u32, u32),
    /// A literal or hex string, decoded: a range of [`Op::bytes`].
    Str(u32, u32),
    /// An array: a range of [`Op::items`] (nested arrays are kept as [`Arg::Other`]).
    Array(u32, u32),
    Bool(bool),
    /// Anything else: null, dictionaries, nested arrays.
    Other,
}

/// The operator just read and its operands, valid until the next call of [`Lexer::next`].
pub struct Op<'s> {
    pub operator: &'s [u8],
    pub args: &'s [Arg],
    pub items: &'s [Arg],
    pub bytes: &'s [u8],
}

impl Op<'_> {
    /// The `i`th operand as a number (0 when missing or not a number, as readers do).
    pub fn num(&self, i: usize) -> f32 {
        match self.args.get(i) {
            Some(Arg::Num(v)) => *v,
            _ => 0.0,
        }
    }

    /// The bytes of a name or string operand.
    pub fn text(&self, arg: &Arg) -> Option<&[u8]> {
        match *arg {
            Arg::Name(a, b) | Arg::Str(a, b) => self.bytes.get(a as usize..b as usize),
            _ => None,
        }
    }

    pub fn name(&self, i: usize) -> Option<&[u8]> {
        match self.args.get(i) {
            Some(a @ Arg::Name(..)) => self.text(a),
            _ => None,
        }
    }

    pub fn string(&self, i: usize) -> Option<&[u8]> {
        match self.args.get(i) {
            Some(a @ Arg::Str(..)) => self.text(a),
            _ => None,
        }
    }

    /// The items of an array operand.
    pub fn array(&self, i: usize) -> Option<&[Arg]> {
        match self.args.get(i) {
            Some(Arg::Array(a, b)) => self.items.get(*a as usize..*b as usize),
            _ => None,
        }
    }
}

pub struct Lexer<'a> {
    input: &'a [u8],
    pos: usize,
    args: Vec<Arg>,
    items: Vec<Arg>,
    bytes: Vec<u8>,
}

fn is_white(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\0')
}

fn is_delim(c: u8) -> bool {
    matches!(
        c,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

fn is_regular(c: u8) -> bool {
    !is_white(c) && !is_delim(c)
}

fn hex(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// One token of a content stream.
enum Token {
    Operand(Arg),
    Operator(Range<usize>),
    /// A closing `]` or `>>` outside what it closes, or a stray byte.
    Stray,
    End,
}

impl<'a> Lexer<'a> {
    pub fn new(input: &'a [u8]) -> Self {
        Lexer {
            input,
            pos: 0,
            args: Vec::new(),
            items: Vec::new(),
            bytes: Vec::new(),
        }
    }

    /// The next operator with its operands, or `None` at the end of the stream.
    #[allow(clippy::should_implement_trait)] // borrows from the lexer: not an Iterator
    pub fn next(&mut self) -> Option<Op<'_>> {
        self.drop_operands();
        loop {
            match self.token(0) {
                Token::End => return None,
                Token::Stray => self.drop_operands(),
                Token::Operand(arg) => {
                    if self.args.len() < MAX_OPERANDS {
                        self.args.push(arg);
                    }
                }
                Token::Operator(range) => {
                    if &self.input[range.clone()] == b"BI" {
                        self.skip_inline_image();
                        self.args.clear();
                    }
                    return Some(Op {
                        operator: &self.input[range],
                        args: &self.args,
                        items: &self.items,
                        bytes: &self.bytes,
                    });
                }
            }
        }
    }

    fn drop_operands(&mut self) {
        self.args.clear();
        self.items.clear();
        self.bytes.clear();
    }

    fn skip_white(&mut self) {
        while let Some(&c) = self.input.get(self.pos) {
            if is_white(c) {
                self.pos += 1;
            } else if c == b'%' {
                while let Some(&c) = self.input.get(self.pos) {
                    if c == b'\n' || c == b'\r' {
                        break;
                    }
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    /// One token; `depth` is the nesting of arrays and dictionaries it is read inside.
    fn token(&mut self, depth: usize) -> Token {
        self.skip_white();
        let Some(&c) = self.input.get(self.pos) else {
            return Token::End;
        };
        match c {
            b'/' => {
                self.pos += 1;
                Token::Operand(self.name())
            }
            b'(' => {
                self.pos += 1;
                Token::Operand(self.literal())
            }
            b'<' | b'[' if depth >= MAX_DEPTH => {
                self.pos += 1;
                Token::Stray
            }
            b'<' if self.input.get(self.pos + 1) == Some(&b'<') => {
                self.pos += 2;
                self.skip_dictionary(depth + 1);
                Token::Operand(Arg::Other)
            }
            b'<' => {
                self.pos += 1;
                Token::Operand(self.hex_string())
            }
            b'[' => {
                self.pos += 1;
                Token::Operand(self.array(depth + 1))
            }
            b'0'..=b'9' | b'+' | b'-' | b'.' => Token::Operand(self.number()),
            _ if is_regular(c) => {
                let start = self.pos;
                while self.input.get(self.pos).is_some_and(|&c| is_regular(c)) {
                    self.pos += 1;
                }
                match &self.input[start..self.pos] {
                    b"true" => Token::Operand(Arg::Bool(true)),
                    b"false" => Token::Operand(Arg::Bool(false)),
                    b"null" => Token::Operand(Arg::Other),
                    _ => Token::Operator(start..self.pos),
                }
            }
            _ => {
                self.pos += 1;
                Token::Stray
            }
        }
    }

    fn number(&mut self) -> Arg {
        let start = self.pos;
        let mut neg = false;
        // Signs, even repeated ("--5" is written by some producers and read as -5).
        while let Some(&c) = self.input.get(self.pos) {
            match c {
                b'-' => neg = !neg,
                b'+' => {}
                _ => break,
            }
            self.pos += 1;
        }
        let mut int: f64 = 0.0;
        let mut frac: f64 = 0.0;
        let mut scale: f64 = 1.0;
        let mut dot = false;
        let mut digits = 0;
        while let Some(&c) = self.input.get(self.pos) {
            match c {
                b'0'..=b'9' if dot => {
                    scale *= 0.1;
                    frac += f64::from(c - b'0') * scale;
                    digits += 1;
                }
                b'0'..=b'9' => {
                    int = int * 10.0 + f64::from(c - b'0');
                    digits += 1;
                }
                b'.' if !dot => dot = true,
                // A sign inside a number ("0.5-0.2", seen in the wild) ends it.
                _ => break,
            }
            self.pos += 1;
        }
        if digits == 0 {
            // A lone sign or dot: not a number; read on as if it were an operator's junk.
            if self.pos == start {
                self.pos += 1;
            }
            return Arg::Other;
        }
        let v = (int + frac) as f32;
        if !v.is_finite() {
            return Arg::Other;
        }
        Arg::Num(if neg { -v } else { v })
    }

    fn name(&mut self) -> Arg {
        let start = self.bytes.len();
        while let Some(&c) = self.input.get(self.pos) {
            if !is_regular(c) {
                break;
            }
            self.pos += 1;
            if c == b'#'
                && let (Some(h), Some(l)) = (
                    self.input.get(self.pos).copied().and_then(hex),
                    self.input.get(self.pos + 1).copied().and_then(hex),
                )
            {
                self.bytes.push(h << 4 | l);
                self.pos += 2;
                continue;
            }
            self.bytes.push(c);
        }
        Arg::Name(start as u32, self.bytes.len() as u32)
    }

    fn literal(&mut self) -> Arg {
        let start = self.bytes.len();
        let mut depth = 1usize;
        while let Some(&c) = self.input.get(self.pos) {
            self.pos += 1;
            match c {
                b'(' => {
                    depth += 1;
                    self.bytes.push(c);
                }
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                    self.bytes.push(c);
                }
                b'\\' => self.escape(),
                b'\r' => {
                    // An end of line in a string is a line feed, whatever its bytes.
                    if self.input.get(self.pos) == Some(&b'\n') {
                        self.pos += 1;
                    }
                    self.bytes.push(b'\n');
                }
                _ => self.bytes.push(c),
            }
        }
        Arg::Str(start as u32, self.bytes.len() as u32)
    }

    fn escape(&mut self) {
        let Some(&c) = self.input.get(self.pos) else {
            return;
        };
        self.pos += 1;
        let out = match c {
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'b' => 8,
            b'f' => 12,
            b'\r' => {
                if self.input.get(self.pos) == Some(&b'\n') {
                    self.pos += 1;
                }
                return;
            }
            b'\n' => return,
            b'0'..=b'7' => {
                let mut v = u32::from(c - b'0');
                for _ in 0..2 {
                    match self.input.get(self.pos) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + u32::from(d - b'0');
                            self.pos += 1;
                        }
                        _ => break,
                    }
                }
                (v & 0xff) as u8
            }
            // `\(`, `\)`, `\\`, and an unknown escape, which stands for its character.
            other => other,
        };
        self.bytes.push(out);
    }

    fn hex_string(&mut self) -> Arg {
        let start = self.bytes.len();
        let mut high: Option<u8> = None;
        while let Some(&c) = self.input.get(self.pos) {
            self.pos += 1;
            if c == b'>' {
                break;
            }
            let Some(v) = hex(c) else { continue };
            match high.take() {
                Some(h) => self.bytes.push(h << 4 | v),
                None => high = Some(v),
            }
        }
        if let Some(h) = high {
            self.bytes.push(h << 4);
        }
        Arg::Str(start as u32, self.bytes.len() as u32)
    }

    fn array(&mut self, depth: usize) -> Arg {
        // Only the outermost array keeps its items; a nested one is read and dropped.
        let first = self.items.len();
        loop {
            self.skip_white();
            match self.input.get(self.pos) {
                None => break,
                Some(b']') => {
                    self.pos += 1;
                    break;
                }
                _ => {}
            }
            match self.token(depth) {
                Token::End => break,
                Token::Operand(arg) => {
                    if depth == 1 && self.items.len() < MAX_ITEMS {
                        self.items.push(arg);
                    }
                }
                // An operator inside an array: a damaged stream; keep reading the array.
                Token::Operator(_) | Token::Stray => {}
            }
        }
        if depth > 1 {
            return Arg::Other;
        }
        Arg::Array(first as u32, self.items.len() as u32)
    }

    /// Skips a dictionary's keys and values up to its `>>`.
    fn skip_dictionary(&mut self, depth: usize) {
        let saved = (self.args.len(), self.items.len());
        loop {
            self.skip_white();
            match self.input.get(self.pos..self.pos + 2) {
                Some(b">>") => {
                    self.pos += 2;
                    break;
                }
                None if self.pos >= self.input.len() => break,
                _ => {}
            }
            if let Token::End = self.token(depth) {
                break;
            }
        }
        self.args.truncate(saved.0);
        self.items.truncate(saved.1);
    }

    /// After `BI`: the image's dictionary up to `ID`, then its data up to `EI`. Unfiltered data
    /// of a known size is skipped by its size; otherwise at the first `EI` set apart by white
    /// space.
    fn skip_inline_image(&mut self) {
        let mut size = InlineSize::default();
        let mut key: Option<Vec<u8>> = None;
        loop {
            let mark = (self.bytes.len(), self.items.len());
            let token = self.token(0);
            let value = match token {
                Token::End => return,
                Token::Operator(r) if &self.input[r.clone()] == b"ID" => break,
                Token::Operand(Arg::Name(a, b)) => {
                    let name = &self.bytes[a as usize..b as usize];
                    match key.take() {
                        Some(k) => Some((k, Value::Name(name.to_vec()))),
                        None => {
                            key = Some(name.to_vec());
                            None
                        }
                    }
                }
                Token::Operand(arg) => key.take().map(|k| (k, Value::Arg(arg))),
                Token::Operator(_) | Token::Stray => None,
            };
            if let Some((k, v)) = value {
                size.set(&k, v);
            }
            self.bytes.truncate(mark.0);
            self.items.truncate(mark.1);
        }
        // One white-space byte (CR LF counts as one) between `ID` and the data.
        match self.input.get(self.pos) {
            Some(b'\r') if self.input.get(self.pos + 1) == Some(&b'\n') => self.pos += 2,
            Some(&c) if is_white(c) => self.pos += 1,
            _ => {}
        }
        let ends_at = |input: &[u8], at: usize| {
            input.get(at..at + 2) == Some(b"EI")
                && input.get(at + 2).is_none_or(|&c| !is_regular(c))
        };
        if let Some(end) = size.length().and_then(|len| self.pos.checked_add(len))
            && end <= self.input.len()
        {
            let mut at = end;
            while self.input.get(at).is_some_and(|&c| is_white(c)) {
                at += 1;
            }
            if ends_at(self.input, at) {
                self.pos = at + 2;
                return;
            }
        }
        let mut at = self.pos;
        while at + 2 < self.input.len() {
            if is_white(self.input[at]) && ends_at(self.input, at + 1) {
                self.pos = at + 3;
                return;
            }
            at += 1;
        }
        self.pos = self.input.len();
    }
}

enum Value {
    Name(Vec<u8>),
    Arg(Arg),
}

/// What an inline image's dictionary says of its data's size.
#[derive(Default)]
struct InlineSize {
    width: Option<usize>,
    height: Option<usize>,
    bpc: Option<usize>,
    colors: Option<usize>,
    mask: bool,
    filtered: bool,
}

impl InlineSize {
    fn set(&mut self, key: &[u8], value: Value) {
        let count = |v: f32| (0.0..1e7).contains(&v).then_some(v as usize);
        match (key, value) {
            (b"W" | b"Width", Value::Arg(Arg::Num(v))) => self.width = count(v),
            (b"H" | b"Height", Value::Arg(Arg::Num(v))) => self.height = count(v),
            (b"BPC" | b"BitsPerComponent", Value::Arg(Arg::Num(v))) => self.bpc = count(v),
            (b"IM" | b"ImageMask", Value::Arg(Arg::Bool(b))) => self.mask = b,
            (b"F" | b"Filter", _) => self.filtered = true,
            (b"CS" | b"ColorSpace", Value::Name(n)) => {
                self.colors = match n.as_slice() {
                    b"DeviceGray" | b"G" | b"CalGray" => Some(1),
                    b"DeviceRGB" | b"RGB" | b"CalRGB" => Some(3),
                    b"DeviceCMYK" | b"CMYK" => Some(4),
                    // A named resource: its size is not known here.
                    _ => None,
                }
            }
            // An Indexed colour space: one component per sample.
            (b"CS" | b"ColorSpace", Value::Arg(Arg::Array(..))) => self.colors = Some(1),
            _ => {}
        }
    }

    fn length(&self) -> Option<usize> {
        if self.filtered {
            return None;
        }
        let (colors, bpc) = if self.mask {
            (1, self.bpc.unwrap_or(1))
        } else {
            (self.colors?, self.bpc?)
        };
        let row = self
            .width?
            .checked_mul(colors)?
            .checked_mul(bpc)?
            .div_ceil(8);
        row.checked_mul(self.height?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every operator of `input` with its operands, written back as text.
    fn ops(input: &[u8]) -> Vec<String> {
        let mut lx = Lexer::new(input);
        let mut out = Vec::new();
        while let Some(op) = lx.next() {
            let show = |a: &Arg| match a {
                Arg::Num(v) => format!("{v}"),
                Arg::Name(..) => format!("/{}", String::from_utf8_lossy(op.text(a).unwrap())),
                Arg::Str(..) => format!("({})", String::from_utf8_lossy(op.text(a).unwrap())),
                Arg::Bool(b) => format!("{b}"),
                Arg::Array(..) | Arg::Other => "?".into(),
            };
            let mut parts: Vec<String> = Vec::new();
            for (i, a) in op.args.iter().enumerate() {
                match op.array(i) {
                    Some(items) => {
                        let inner: Vec<String> = items.iter().map(show).collect();
                        parts.push(format!("[{}]", inner.join(" ")));
                    }
                    None => parts.push(show(a)),
                }
            }
            parts.push(String::from_utf8_lossy(op.operator).into_owned());
            out.push(parts.join(" "));
        }
        out
    }

    #[test]
    fn reads_text_operators_and_their_operands() {
        let got =
            ops(b"BT /F1 9.96 Tf 1 0 0 1 72.5 -700 Tm [(Hel)-250(lo)]TJ T* (a\\)b\\051\\n) Tj ET");
        assert_eq!(
            got,
            [
                "BT",
                "/F1 9.96 Tf",
                "1 0 0 1 72.5 -700 Tm",
                "[(Hel) -250 (lo)] TJ",
                "T*",
                "(a)b)\n) Tj",
                "ET"
            ]
        );
    }

    #[test]
    fn strings_escapes_and_hex() {
        assert_eq!(ops(b"(a(b)c) Tj"), ["(a(b)c) Tj"]);
        assert_eq!(ops(b"(\\101\\7x\\q) Tj"), ["(A\u{7}xq) Tj"]);
        assert_eq!(ops(b"(line\\\r\nrun\r\nend) Tj"), ["(linerun\nend) Tj"]);
        assert_eq!(ops(b"<48 65 6c6C 6> Tj"), ["(Hell`) Tj"]);
        assert_eq!(ops(b"/A#20B Do"), ["/A B Do"]);
    }

    #[test]
    fn numbers_as_producers_write_them() {
        assert_eq!(
            ops(b"-.5 +3 4. --2 0.5-0.25 cm"),
            ["-0.5 3 4 2 0.5 -0.25 cm"]
        );
        assert_eq!(ops(b"1 0 0 1 0 0 cm"), ["1 0 0 1 0 0 cm"]);
    }

    #[test]
    fn skips_dictionaries_comments_and_keywords() {
        assert_eq!(
            ops(b"/Span <</ActualText (x) /MCID 3 /K [1 2] /D <</E 1>>>> BDC % note\n EMC true 3 d0"),
            ["/Span ? BDC", "EMC", "true 3 d0"]
        );
    }

    #[test]
    fn skips_inline_images_by_size_and_by_marker() {
        // 2×2 RGB, 8 bits: 12 bytes that include "EI" and delimiters.
        let mut s = b"q BI /W 2 /H 2 /CS /RGB /BPC 8 ID ".to_vec();
        s.extend_from_slice(b" EI(()<<[Q");
        s.extend_from_slice(b"  EI Q (after) Tj");
        assert_eq!(ops(&s), ["q", "BI", "Q", "(after) Tj"]);
        // Filtered: the first EI between white space ends it.
        let s = b"BI /W 9 /H 9 /F /AHx ID 00ff0EIx \nEI (after) Tj";
        assert_eq!(ops(s), ["BI", "(after) Tj"]);
    }

    #[test]
    fn damage_costs_the_damaged_operator_only() {
        assert_eq!(ops(b"1 2 ) ] > 3 Td (x) Tj"), ["3 Td", "(x) Tj"]);
        assert_eq!(ops(b"[(a) (b) Tj"), Vec::<String>::new());
        assert_eq!(ops(b"(unterminated"), Vec::<String>::new());
        assert_eq!(ops(b"[[(a)] (b)] TJ"), ["[? (b)] TJ"]);
    }
}
