//! Hostile PDFs made on the spot for the render tests and bench: flate bombs (a few MB that
//! inflate to gigabytes of zeros), an image that declares 10^10 pixels, and a page of a few
//! hundred bytes that takes minutes to draw.
#![allow(dead_code)]

/// Bits into bytes, least significant first, as deflate packs them.
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    fn new() -> Bits {
        Bits {
            out: Vec::new(),
            acc: 0,
            n: 0,
        }
    }
    fn put(&mut self, value: u64, n: u32) {
        self.acc |= value << self.n;
        self.n += n;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }
    /// A Huffman code: its bits go most significant first.
    fn code(&mut self, code: &str) {
        for b in code.bytes() {
            self.put(u64::from(b == b'1'), 1);
        }
    }
}

/// A zlib stream of `1 + 258 * (1 + 4 * zero_bytes)` zero bytes in about `zero_bytes`
/// bytes: one dynamic Huffman block whose only length code (258) and distance code (1) are
/// one bit each and both `0`, so every zero byte of the body is four 258-byte copies.
pub fn zlib_zeros(zero_bytes: usize) -> (Vec<u8>, u64) {
    let mut b = Bits::new();
    b.put(1, 1); // the final block
    b.put(2, 2); // dynamic Huffman
    b.put(286 - 257, 5); // literal/length codes 0..=285
    b.put(2 - 1, 5); // distance codes 0 and 1
    b.put(18 - 4, 4); // code length codes, in their order, up to the one for length 1
    let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1];
    for sym in order {
        // Lengths 0, 1, 2 and the zero run 18, two bits each: 00, 01, 10, 11.
        b.put(if [0, 1, 2, 18].contains(&sym) { 2 } else { 0 }, 3);
    }
    let zeros = |b: &mut Bits, n: u64| {
        b.code("11");
        b.put(n - 11, 7);
    };
    b.code("10"); // literal 0: length 2
    zeros(&mut b, 138);
    zeros(&mut b, 117); // literals 1..=255 unused
    b.code("10"); // end of block: length 2
    zeros(&mut b, 28); // lengths 257..=284 unused
    b.code("01"); // length 258 (code 285): length 1
    b.code("01");
    b.code("01"); // distances 1 and 2: length 1 each
    // Canonical codes: 285 is `0`, literal 0 `10`, end of block `11`; distance 1 is `0`.
    b.code("10"); // one literal zero
    let mut len: u64 = 1;
    while b.n != 0 {
        b.code("00"); // copy 258 from distance 1
        len += 258;
    }
    b.out.extend(std::iter::repeat_n(0u8, zero_bytes));
    len += 258 * 4 * zero_bytes as u64;
    b.code("11"); // end of block
    if b.n > 0 {
        b.put(0, 8 - b.n);
    }
    let mut z = vec![0x78, 0x9c];
    z.extend(&b.out);
    // Adler-32 of `len` zeros: a stays 1, b adds it once per byte.
    let adler = ((len % 65521) << 16) | 1;
    z.extend((adler as u32).to_be_bytes());
    (z, len)
}

/// A PDF of these objects (numbered from 1: the catalog, the pages, then the rest), with its
/// cross-reference table.
pub fn pdf(objects: &[Vec<u8>]) -> Vec<u8> {
    let mut out = b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend(format!("{} 0 obj\n", i + 1).bytes());
        out.extend(body);
        out.extend(b"\nendobj\n");
    }
    let xref = out.len();
    out.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).bytes());
    for o in offsets {
        out.extend(format!("{o:010} 00000 n \n").bytes());
    }
    out.extend(
        format!(
            "trailer\n<< /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .bytes(),
    );
    out
}

pub fn stream(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut o = format!("<< {dict} /Length {} >>\nstream\n", data.len()).into_bytes();
    o.extend(data);
    o.extend(b"\nendstream");
    o
}

/// A one-page PDF: the page's contents are object 4, `more` are objects 5 and on.
pub fn one_page(resources: &str, contents: Vec<u8>, more: Vec<Vec<u8>>) -> Vec<u8> {
    let mut objects = vec![
        b"<< /Type /Catalog /Pages 2 0 R >>".to_vec(),
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>".to_vec(),
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R \
             /Resources << {resources} >> >>"
        )
        .into_bytes(),
        contents,
    ];
    objects.extend(more);
    pdf(&objects)
}

/// A content stream that inflates to about 4 GiB of zeros (4 MB compressed).
pub fn content_bomb() -> Vec<u8> {
    let (z, _) = zlib_zeros(4 << 20);
    one_page("", stream("/Filter /FlateDecode", &z), vec![])
}

/// An image XObject of 100000 x 100000 RGB pixels (its stream a small bomb of zeros).
pub fn huge_image() -> Vec<u8> {
    let (z, _) = zlib_zeros(64 << 10);
    one_page(
        "/XObject << /Im0 5 0 R >>",
        stream("", b"q 612 0 0 792 0 0 cm /Im0 Do Q"),
        vec![stream(
            "/Type /XObject /Subtype /Image /Width 100000 /Height 100000 \
             /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode",
            &z,
        )],
    )
}

/// An image that declares 1000 x 1000 pixels and whose stream inflates to 2 GiB.
pub fn image_bomb() -> Vec<u8> {
    let (z, _) = zlib_zeros(2 << 20);
    one_page(
        "/XObject << /Im0 5 0 R >>",
        stream("", b"q 612 0 0 792 0 0 cm /Im0 Do Q"),
        vec![stream(
            "/Type /XObject /Subtype /Image /Width 1000 /Height 1000 \
             /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode",
            &z,
        )],
    )
}

/// A page of a few hundred bytes that takes minutes to draw: forms nested `levels` deep,
/// each drawing the next ten times, the last filling the whole page (10^levels fills).
pub fn slow_page(levels: usize) -> Vec<u8> {
    let form = |i: usize| {
        let (resources, body) = if i + 1 < levels {
            (
                format!("/Resources << /XObject << /F {} 0 R >> >>", 6 + i),
                "/F Do ".repeat(10),
            )
        } else {
            (
                String::new(),
                "0 0 612 792 re f 1 0 0 rg 0 0 612 792 re f ".into(),
            )
        };
        stream(
            &format!("/Type /XObject /Subtype /Form /BBox [0 0 612 792] {resources}"),
            body.as_bytes(),
        )
    };
    one_page(
        "/XObject << /F 5 0 R >>",
        stream("", b"/F Do"),
        (0..levels).map(form).collect(),
    )
}
