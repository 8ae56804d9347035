//! Small tolerant accessors over lopdf objects: every lookup yields `None` on a wrong type
//! or a dangling reference instead of an error.

use lopdf::{Dictionary, Document, Object, Stream};

/// Cap on decompressed stream size (content, fonts, CMaps, XMP).
pub const MAX_STREAM: usize = 64 << 20;

pub fn deref<'a>(doc: &'a Document, obj: &'a Object) -> Option<&'a Object> {
    doc.dereference(obj).ok().map(|(_, o)| o)
}

pub fn get<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a Object> {
    dict.get(key).ok().and_then(|o| deref(doc, o))
}

pub fn get_dict<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a Dictionary> {
    match get(doc, dict, key)? {
        Object::Dictionary(d) => Some(d),
        Object::Stream(s) => Some(&s.dict),
        _ => None,
    }
}

pub fn get_array<'a>(
    doc: &'a Document,
    dict: &'a Dictionary,
    key: &[u8],
) -> Option<&'a Vec<Object>> {
    get(doc, dict, key)?.as_array().ok()
}

pub fn get_name<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a [u8]> {
    get(doc, dict, key)?.as_name().ok()
}

pub fn get_num(doc: &Document, dict: &Dictionary, key: &[u8]) -> Option<f32> {
    num(get(doc, dict, key)?)
}

pub fn get_stream<'a>(doc: &'a Document, dict: &'a Dictionary, key: &[u8]) -> Option<&'a Stream> {
    get(doc, dict, key)?.as_stream().ok()
}

pub fn num(obj: &Object) -> Option<f32> {
    match obj {
        Object::Integer(i) => Some(*i as f32),
        Object::Real(r) if r.is_finite() => Some(*r),
        _ => None,
    }
}

pub fn num_deref(doc: &Document, obj: &Object) -> Option<f32> {
    num(deref(doc, obj)?)
}

pub fn as_dict<'a>(doc: &'a Document, obj: &'a Object) -> Option<&'a Dictionary> {
    match deref(doc, obj)? {
        Object::Dictionary(d) => Some(d),
        Object::Stream(s) => Some(&s.dict),
        _ => None,
    }
}

/// Decoded stream bytes; a stream whose filter fails is read raw (often it is plain already).
pub fn stream_bytes(stream: &Stream) -> Option<Vec<u8>> {
    match stream.filters() {
        Ok(f) if !f.is_empty() => stream.decompressed_content_with_limit(MAX_STREAM).ok(),
        _ => (stream.content.len() <= MAX_STREAM).then(|| stream.content.clone()),
    }
}

/// The first `len` bytes of a stream's decoded content (all of it when it is shorter). A stream
/// that is only Flate-compressed, with no predictor, is inflated no further than that: a Type 1
/// font program's clear part is a few kilobytes ahead of tens of encrypted ones. Like lopdf, a
/// zlib stream that gives nothing is read again as raw deflate.
pub fn stream_prefix(stream: &Stream, len: usize) -> Option<Vec<u8>> {
    use std::io::Read;
    let len = len.min(MAX_STREAM);
    let flate_only = matches!(stream.filters().as_deref(), Ok([b"FlateDecode"]))
        && stream.dict.get(b"DecodeParms").is_err();
    if !flate_only {
        return stream_bytes(stream).map(|mut all| {
            all.truncate(len);
            all
        });
    }
    let input = &stream.content[..];
    let mut out = Vec::with_capacity(len.min(64 << 10));
    let _ = flate2::read::ZlibDecoder::new(input)
        .take(len as u64)
        .read_to_end(&mut out);
    if out.is_empty() && input.len() > 2 {
        let _ = flate2::read::DeflateDecoder::new(&input[2..])
            .take(len as u64)
            .read_to_end(&mut out);
    }
    Some(out)
}

/// Six numbers of a matrix array, or `None`.
pub fn matrix(doc: &Document, obj: &Object) -> Option<[f32; 6]> {
    let arr = deref(doc, obj)?.as_array().ok()?;
    if arr.len() != 6 {
        return None;
    }
    let mut m = [0f32; 6];
    for (slot, o) in m.iter_mut().zip(arr) {
        *slot = num_deref(doc, o)?;
    }
    Some(m)
}

/// Whether `c` is a letter of a right-to-left script (Hebrew, Arabic, Syriac, Thaana, N'Ko and
/// their presentation forms; not the Arabic-Indic digits, which are written left to right).
pub fn is_rtl(c: char) -> bool {
    matches!(c as u32,
        0x0590..=0x08FF | 0xFB1D..=0xFDFF | 0xFE70..=0xFEFF | 0x10800..=0x10FFF | 0x1E800..=0x1EFFF)
        && !matches!(c as u32, 0x0660..=0x0669 | 0x06F0..=0x06F9)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use lopdf::{Object, Stream, dictionary};

    use super::*;

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        z.write_all(data).unwrap();
        z.finish().unwrap()
    }

    fn flate(content: Vec<u8>) -> Stream {
        Stream::new(dictionary! { "Filter" => "FlateDecode" }, content)
    }

    #[test]
    fn a_prefix_is_the_head_of_what_the_whole_stream_decodes_to() {
        let text: Vec<u8> = (0..50_000u32).flat_map(|i| i.to_le_bytes()).collect();
        let s = flate(zlib(&text));
        let whole = stream_bytes(&s).unwrap();
        assert_eq!(whole, text);
        for len in [0, 1, 4096, 199_999, 200_000, 10 << 20] {
            let head = stream_prefix(&s, len).unwrap();
            assert_eq!(head, whole[..len.min(whole.len())], "len {len}");
        }
    }

    #[test]
    fn a_prefix_of_a_bomb_inflates_no_more_than_asked() {
        // 256 MB of zeros in a few hundred kilobytes: more than MAX_STREAM, so the whole stream
        // is refused, and its head is read all the same.
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        let block = vec![0u8; 1 << 20];
        for _ in 0..256 {
            z.write_all(&block).unwrap();
        }
        let s = flate(z.finish().unwrap());
        assert!(stream_bytes(&s).is_none());
        assert_eq!(stream_prefix(&s, 3000).unwrap(), vec![0u8; 3000]);
    }

    #[test]
    fn broken_and_unusual_streams_give_what_can_be_read() {
        let text = b"%!PS-AdobeFont-1.0: CMR10\n/Encoding 256 array\n0 1 255 {1 index exch /.notdef put} for\ndup 65 /A put\nreadonly def\ncurrentfile eexec\n".repeat(20);
        // Raw deflate behind a header that is not zlib's, as some writers leave it.
        let mut raw =
            flate2::write::DeflateEncoder::new(vec![0x78, 0x00], flate2::Compression::fast());
        raw.write_all(&text).unwrap();
        let s = flate(raw.finish().unwrap());
        assert_eq!(stream_prefix(&s, 100).unwrap(), text[..100]);
        // Cut short: what decodes before the cut, no error.
        let whole = zlib(&text);
        let cut = flate(whole[..whole.len() / 2].to_vec());
        let head = stream_prefix(&cut, text.len()).unwrap();
        assert!(!head.is_empty() && text.starts_with(&head));
        // Garbage: nothing.
        assert!(
            stream_prefix(&flate(b"not deflate at all".to_vec()), 10)
                .unwrap()
                .is_empty()
        );
        // Not compressed, or with a predictor: decoded whole by lopdf, then cut.
        let plain = Stream::new(dictionary! {}, text.clone());
        assert_eq!(stream_prefix(&plain, 7).unwrap(), text[..7]);
        let predicted = Stream::new(
            dictionary! {
                "Filter" => "FlateDecode",
                "DecodeParms" => dictionary! { "Predictor" => Object::Integer(1) },
            },
            zlib(&text),
        );
        assert_eq!(stream_prefix(&predicted, 9).unwrap(), text[..9]);
    }
}
