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
