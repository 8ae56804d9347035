//! Adobe's public CID resources: the predefined CMaps (code → CID: `UniGB-UCS2-H`, `90ms-RKSJ-H`,
//! `GBK-EUC-H`, … and their vertical variants) and the CID → Unicode tables of the four CJK
//! collections (Adobe-GB1, Adobe-CNS1, Adobe-Japan1, Adobe-Korea1).
//!
//! The data is Adobe's `cmap-resources` (BSD-3-Clause), the same that Debian's `poppler-data`
//! ships, as embedded brotli-compressed by the `hayro-cmap` crate. Each table is decoded once per
//! process, on first use, and shared by every document after that.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, OnceLock};

use hayro_cmap::{BfString, CMap, CMapName, CidFamily, WritingMode, load_embedded};

/// One of Adobe's public CJK character collections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Collection {
    Gb1,
    Cns1,
    Japan1,
    Korea1,
}

impl Collection {
    /// The collection a `/CIDSystemInfo` names (`Registry (Adobe) Ordering (GB1)`).
    pub fn from_ros(registry: &[u8], ordering: &[u8]) -> Option<Collection> {
        if registry != b"Adobe" {
            return None;
        }
        Some(match ordering {
            b"GB1" => Collection::Gb1,
            b"CNS1" => Collection::Cns1,
            b"Japan1" => Collection::Japan1,
            b"Korea1" => Collection::Korea1,
            _ => return None,
        })
    }

    fn from_family(family: &CidFamily) -> Option<Collection> {
        Some(match family {
            CidFamily::AdobeGB1 => Collection::Gb1,
            CidFamily::AdobeCNS1 => Collection::Cns1,
            CidFamily::AdobeJapan1 => Collection::Japan1,
            CidFamily::AdobeKorea1 => Collection::Korea1,
            _ => return None,
        })
    }

    fn ucs2_name(self) -> CMapName<'static> {
        match self {
            Collection::Gb1 => CMapName::AdobeGb1Ucs2,
            Collection::Cns1 => CMapName::AdobeCns1Ucs2,
            Collection::Japan1 => CMapName::AdobeJapan1Ucs2,
            Collection::Korea1 => CMapName::AdobeKorea1Ucs2,
        }
    }

    fn slot(self) -> usize {
        self as usize
    }
}

/// CIDs above this are not in any of the four collections (Adobe-Japan1-7 ends at 23,059).
const MAX_CID: u32 = 65_535;

/// CIDs read from the collection's CMap at a time: a document's text uses a few hundred blocks'
/// worth of CIDs at most, so only those are ever decoded.
const BLOCK: u32 = 256;

/// CID → text for one collection, block by block on first use: one character for nearly every
/// CID, a string for the few that map to several code points.
pub struct CidText {
    /// The collection's UCS2 CMap (`None` when it does not decode: every lookup answers `None`).
    cmap: Option<CMap>,
    blocks: Box<[OnceLock<Box<Block>>]>,
}

struct Block {
    single: [char; BLOCK as usize],
    /// The CIDs of the block (as offsets into it) that map to several code points.
    multi: Vec<(u8, Box<str>)>,
}

impl Block {
    fn read(cmap: &CMap, first: u32) -> Block {
        let mut block = Block {
            single: ['\0'; BLOCK as usize],
            multi: Vec::new(),
        };
        for offset in 0..BLOCK {
            match cmap.lookup_bf_string(first + offset) {
                Some(BfString::Char(c)) if c != '\0' => block.single[offset as usize] = c,
                Some(BfString::String(s)) if !s.is_empty() => {
                    block.multi.push((offset as u8, s.into_boxed_str()));
                }
                _ => {}
            }
        }
        block
    }
}

impl CidText {
    pub fn get<'a>(&'a self, cid: u32, buf: &'a mut [u8; 4]) -> Option<&'a str> {
        let cmap = self.cmap.as_ref()?;
        let slot = self.blocks.get((cid / BLOCK) as usize)?;
        let block = slot.get_or_init(|| Box::new(Block::read(cmap, cid - cid % BLOCK)));
        let offset = cid % BLOCK;
        match block.single[offset as usize] {
            '\0' => block
                .multi
                .iter()
                .find(|(o, _)| u32::from(*o) == offset)
                .map(|(_, s)| &**s),
            c => Some(c.encode_utf8(buf)),
        }
    }

    fn build(collection: Collection) -> CidText {
        CidText {
            cmap: load_embedded(collection.ucs2_name())
                .and_then(|data| CMap::parse(data, load_embedded)),
            blocks: (0..=MAX_CID / BLOCK).map(|_| OnceLock::new()).collect(),
        }
    }
}

/// The CID → Unicode table of `collection`: its CMap decoded on first use, its blocks as CIDs
/// of them are asked for.
pub fn cid_text(collection: Collection) -> &'static CidText {
    static TABLES: [OnceLock<CidText>; 4] = [
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
        OnceLock::new(),
    ];
    TABLES[collection.slot()].get_or_init(|| CidText::build(collection))
}

/// A predefined (named) CMap: how its codes split and which CID each one selects.
#[derive(Debug)]
pub struct Predefined {
    cmap: CMap,
    pub vertical: bool,
    /// The collection its CIDs belong to.
    pub collection: Option<Collection>,
    /// Its codes are UTF-16 (the `Uni…-UCS2` / `Uni…-UTF16` CMaps): the code is the text.
    pub codes_are_unicode: bool,
}

impl Predefined {
    /// Splits the next code off `bytes`: the shortest prefix (1 to 4 bytes) the CMap maps, or one
    /// byte when none does. Returns (code, length, CID).
    pub fn next_code(&self, bytes: &[u8]) -> (u32, usize, Option<u32>) {
        let mut code = 0u32;
        for (n, &b) in bytes.iter().take(4).enumerate() {
            code = code << 8 | u32::from(b);
            if let Some(cid) = self.cmap.lookup_cid_code(code, n as u8 + 1) {
                return (code, n + 1, Some(cid));
            }
        }
        match bytes.first() {
            Some(&b) => (u32::from(b), 1, None),
            None => (0, 1, None),
        }
    }

    /// The CID for a code already split (an embedded CMap's `usecmap` parent).
    pub fn lookup(&self, code: u32, len: usize) -> Option<u32> {
        self.cmap.lookup_cid_code(code, len.clamp(1, 4) as u8)
    }
}

/// The predefined CMap called `name`, decoded once per process; `None` for a name Adobe does not
/// define (or `Identity-H`/`-V`, which need no table).
pub fn predefined(name: &[u8]) -> Option<Arc<Predefined>> {
    type ByName = HashMap<Vec<u8>, Option<Arc<Predefined>>>;
    static CACHE: LazyLock<Mutex<ByName>> = LazyLock::new(|| Mutex::new(HashMap::new()));
    if let Ok(cache) = CACHE.lock()
        && let Some(hit) = cache.get(name)
    {
        return hit.clone();
    }
    let loaded = load_predefined(name).map(Arc::new);
    if let Ok(mut cache) = CACHE.lock() {
        cache.insert(name.to_vec(), loaded.clone());
    }
    loaded
}

fn load_predefined(name: &[u8]) -> Option<Predefined> {
    let cmap_name = CMapName::from_bytes(name);
    if matches!(
        cmap_name,
        CMapName::Custom(_) | CMapName::IdentityH | CMapName::IdentityV
    ) {
        return None;
    }
    let cmap = CMap::parse(load_embedded(cmap_name)?, load_embedded)?;
    let meta = cmap.metadata();
    let vertical = meta.writing_mode == Some(WritingMode::Vertical) || name.ends_with(b"-V");
    let collection = meta
        .character_collection
        .as_ref()
        .and_then(|c| Collection::from_family(&c.family));
    let codes_are_unicode = name.starts_with(b"Uni")
        && (name.windows(4).any(|w| w == b"UCS2") || name.windows(5).any(|w| w == b"UTF16"));
    Some(Predefined {
        cmap,
        vertical,
        collection,
        codes_are_unicode,
    })
}

/// Text of a UTF-16BE code of 2 or 4 bytes (a surrogate pair), as the Unicode CMaps use them.
pub fn utf16_code_text(code: u32, len: usize, buf: &mut [u8; 4]) -> Option<&str> {
    let c = match len {
        1 | 2 => char::from_u32(code)?,
        4 => {
            let (hi, lo) = ((code >> 16) as u16, code as u16);
            char::decode_utf16([hi, lo]).next()?.ok()?
        }
        _ => return None,
    };
    Some(c.encode_utf8(buf))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collections_map_cids_to_unicode() {
        let mut buf = [0u8; 4];
        // Text → CID through each collection's Unicode CMap, and back through its UCS2 table.
        for (name, collection, text) in [
            (&b"UniGB-UCS2-H"[..], Collection::Gb1, "中文"),
            (b"UniJIS-UTF16-H", Collection::Japan1, "日本語かな"),
            (b"UniCNS-UCS2-H", Collection::Cns1, "繁體"),
            (b"UniKS-UCS2-H", Collection::Korea1, "한국어"),
        ] {
            let cmap = predefined(name).expect("predefined CMap");
            assert_eq!(cmap.collection, Some(collection));
            assert!(cmap.codes_are_unicode);
            let mut back = String::new();
            for ch in text.chars() {
                let mut units = [0u16; 2];
                let bytes: Vec<u8> = ch
                    .encode_utf16(&mut units)
                    .iter()
                    .flat_map(|u| u.to_be_bytes())
                    .collect();
                let (_, len, cid) = cmap.next_code(&bytes);
                assert_eq!(len, bytes.len());
                let cid = cid.expect("mapped");
                back.push_str(cid_text(collection).get(cid, &mut buf).expect("text"));
            }
            assert_eq!(back, text);
        }
    }

    #[test]
    fn tables_read_block_by_block_answer_as_the_cmap_does() {
        // Every CID of every collection, asked in an order that starts blocks in their middle,
        // answers what the collection's CMap says, and nothing past the last CID.
        let mut buf = [0u8; 4];
        for collection in [
            Collection::Gb1,
            Collection::Cns1,
            Collection::Japan1,
            Collection::Korea1,
        ] {
            let table = cid_text(collection);
            let cmap = CMap::parse(
                load_embedded(collection.ucs2_name()).expect("embedded"),
                load_embedded,
            )
            .expect("parses");
            let mut several = 0;
            for cid in (0..=MAX_CID).map(|i| (i * 7919 + 100) % (MAX_CID + 1)) {
                let want = match cmap.lookup_bf_string(cid) {
                    Some(BfString::Char(c)) if c != '\0' => Some(c.to_string()),
                    Some(BfString::String(s)) if !s.is_empty() => {
                        several += 1;
                        Some(s)
                    }
                    _ => None,
                };
                assert_eq!(table.get(cid, &mut buf).map(str::to_string), want, "{cid}");
            }
            assert!(
                several > 0,
                "{collection:?} maps some CIDs to several code points"
            );
            assert_eq!(table.get(MAX_CID + 1, &mut buf), None);
            assert_eq!(table.get(u32::MAX, &mut buf), None);
        }
    }

    #[test]
    fn mixed_byte_cmaps_split_codes() {
        let sjis = predefined(b"90ms-RKSJ-H").expect("90ms-RKSJ-H");
        assert_eq!(sjis.collection, Some(Collection::Japan1));
        assert!(!sjis.vertical && !sjis.codes_are_unicode);
        // "A" is one byte, 日 (0x93FA in Shift-JIS) two.
        assert_eq!(sjis.next_code(b"A\x93\xfa").1, 1);
        let (code, len, cid) = sjis.next_code(b"\x93\xfa");
        assert_eq!((code, len), (0x93fa, 2));
        let mut buf = [0u8; 4];
        assert_eq!(
            cid_text(Collection::Japan1).get(cid.unwrap(), &mut buf),
            Some("日")
        );
        assert!(predefined(b"GBK-EUC-V").expect("GBK-EUC-V").vertical);
        assert!(predefined(b"Identity-H").is_none());
        assert!(predefined(b"No-Such-CMap").is_none());
    }

    #[test]
    fn ascii_cids_of_each_collection() {
        // CIDs 1–95 of Adobe-GB1, -CNS1, -Japan1 and -Korea1 are proportional ASCII from U+0020.
        let mut buf = [0u8; 4];
        for c in [
            Collection::Gb1,
            Collection::Cns1,
            Collection::Japan1,
            Collection::Korea1,
        ] {
            assert_eq!(cid_text(c).get(34, &mut buf), Some("A"), "{c:?}");
            assert_eq!(cid_text(c).get(66, &mut buf), Some("a"), "{c:?}");
        }
    }

    #[test]
    fn utf16_codes() {
        let mut buf = [0u8; 4];
        assert_eq!(utf16_code_text(0x4e2d, 2, &mut buf), Some("中"));
        assert_eq!(utf16_code_text(0xd840_dc0b, 4, &mut buf), Some("𠀋"));
        assert_eq!(utf16_code_text(0xd840, 2, &mut buf), None);
    }
}
