//! The passage vectors beside the index (`{state}/vectors.bin`): one int8 vector per indexed
//! page or chunk, with the model that wrote them, memory-mapped and scanned exactly.
//!
//! Layout (little-endian): the magic `AGVECS01`; `u32` dimensions, `u32` zero, `u64` rows,
//! `u64` header bytes; the header (JSON: the model, and each document's path, sha256 and row
//! count, in row order); zero bytes to a multiple of 4; per row `u32` document, `u32` unit (a
//! page number, or a text file's first line) and `f32` scale; then the rows' `i8` components
//! (a row is `scale × components`, a unit vector). Every size is checked against the file's
//! length before it is mapped: a file that does not add up is refused, never read past its end.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::vault::statefs;

const MAGIC: &[u8; 8] = b"AGVECS01";
const FIXED: usize = 32;
const ROW_META: usize = 12;
/// Dimensions a model may have (static models have 64 to 1024).
pub const MAX_DIMS: usize = 4096;
/// The JSON header's size at most (a 10⁵-paper vault needs about 10 MB).
pub const MAX_HEADER: u64 = 64 << 20;

/// What wrote the vectors.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelId {
    pub name: String,
    pub identity: String,
}

/// One document's rows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocRows {
    pub path: String,
    pub sha256: String,
    pub rows: u64,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Header {
    model: ModelId,
    docs: Vec<DocRows>,
}

/// Why a vectors file is not used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no vectors file")]
    Missing,
    #[error("the vectors file {0} is refused: {1}")]
    Refused(String, String),
    #[error("the vectors file {0} cannot be read: {1}")]
    Io(String, String),
}

/// A vectors file, mapped and checked.
pub struct VectorStore {
    map: agentero_mmap::Mapped,
    pub model: ModelId,
    pub docs: Vec<DocRows>,
    /// The first row of each document.
    starts: Vec<u64>,
    pub dims: usize,
    pub rows: usize,
    meta_at: usize,
    data_at: usize,
}

/// A row's place: its document (an index into `docs`) and unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowRef {
    pub doc: u32,
    pub unit: u32,
}

impl VectorStore {
    /// Opens and checks the file at `path` (a state file: no links followed).
    pub fn open(path: &Path) -> Result<VectorStore, StoreError> {
        let shown = path.display().to_string();
        let refused = |why: String| StoreError::Refused(shown.clone(), why);
        let file = match statefs::open_read(path) {
            Ok(f) => f,
            Err(e) if e.is_not_found() => return Err(StoreError::Missing),
            Err(e) => return Err(StoreError::Io(shown.clone(), e.to_string())),
        };
        let len = file
            .metadata()
            .map_err(|e| StoreError::Io(shown.clone(), e.to_string()))?
            .len();
        if len < FIXED as u64 {
            return Err(refused(format!("{len} bytes is shorter than its header")));
        }
        let map = agentero_mmap::Mapped::map_exact(&file, len)
            .map_err(|e| StoreError::Io(shown.clone(), e.to_string()))?;
        let bytes: &[u8] = &map;
        if &bytes[..8] != MAGIC {
            return Err(refused("not an agentero vectors file".into()));
        }
        let u32_at =
            |i: usize| u32::from_le_bytes([bytes[i], bytes[i + 1], bytes[i + 2], bytes[i + 3]]);
        let u64_at = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&bytes[i..i + 8]);
            u64::from_le_bytes(b)
        };
        let dims = u32_at(8) as usize;
        let rows = u64_at(16);
        let header_len = u64_at(24);
        if dims == 0 || dims > MAX_DIMS || u32_at(12) != 0 {
            return Err(refused(format!("{dims} dimensions")));
        }
        if header_len > MAX_HEADER || header_len > len - FIXED as u64 {
            return Err(refused(format!(
                "a header of {header_len} bytes in a file of {len}"
            )));
        }
        let meta_at = (FIXED as u64 + header_len).next_multiple_of(4);
        let expected = rows
            .checked_mul(ROW_META as u64 + dims as u64)
            .and_then(|b| b.checked_add(meta_at));
        if expected != Some(len) {
            return Err(refused(format!(
                "{rows} rows of {dims} dimensions do not fill its {len} bytes"
            )));
        }
        let header: Header = serde_json::from_slice(&bytes[FIXED..FIXED + header_len as usize])
            .map_err(|e| refused(format!("its header: {e}")))?;
        let (meta_at, rows) = (meta_at as usize, rows as usize);
        let mut starts = Vec::with_capacity(header.docs.len());
        let mut total: u64 = 0;
        for d in &header.docs {
            starts.push(total);
            total = total.saturating_add(d.rows);
        }
        if total != rows as u64 || header.docs.len() > u32::MAX as usize {
            return Err(refused(format!(
                "its documents hold {total} rows, not {rows}"
            )));
        }
        let store = VectorStore {
            data_at: meta_at + rows * ROW_META,
            map,
            model: header.model,
            docs: header.docs,
            starts,
            dims,
            rows,
            meta_at,
        };
        // Every row names its own document and has a finite scale.
        let mut doc = 0usize;
        for r in 0..rows {
            while doc + 1 < store.docs.len() && store.starts[doc + 1] <= r as u64 {
                doc += 1;
            }
            let (at, scale) = store.row_meta(r);
            if at.doc as usize != doc || !scale.is_finite() {
                return Err(refused(format!("row {r} does not belong where it is")));
            }
        }
        Ok(store)
    }

    fn row_meta(&self, r: usize) -> (RowRef, f32) {
        let b = &self.map[self.meta_at + r * ROW_META..self.meta_at + (r + 1) * ROW_META];
        let word = |i: usize| [b[i], b[i + 1], b[i + 2], b[i + 3]];
        (
            RowRef {
                doc: u32::from_le_bytes(word(0)),
                unit: u32::from_le_bytes(word(4)),
            },
            f32::from_le_bytes(word(8)),
        )
    }

    fn components(&self, r: usize) -> &[u8] {
        &self.map[self.data_at + r * self.dims..self.data_at + (r + 1) * self.dims]
    }

    /// The rows of document `doc` as (unit, scale, components).
    pub fn doc_rows(&self, doc: usize) -> impl Iterator<Item = (u32, f32, &[u8])> + '_ {
        let start = self.starts[doc] as usize;
        let n = self.docs[doc].rows as usize;
        (start..start + n).map(move |r| {
            let (at, scale) = self.row_meta(r);
            (at.unit, scale, self.components(r))
        })
    }

    /// The `k` rows nearest to the unit vector `q` (cosine, best first) among the documents
    /// `allowed` admits, each with its similarity.
    pub fn nearest(
        &self,
        q: &[f32],
        k: usize,
        allowed: &dyn Fn(usize) -> bool,
    ) -> Vec<(RowRef, f32)> {
        if q.len() != self.dims || k == 0 {
            return Vec::new();
        }
        let mut best: Vec<(f32, usize)> = Vec::with_capacity(k + 1);
        let mut floor = f32::NEG_INFINITY;
        for (d, doc) in self.docs.iter().enumerate() {
            if doc.rows == 0 || !allowed(d) {
                continue;
            }
            let start = self.starts[d] as usize;
            for r in start..start + doc.rows as usize {
                let comps = self.components(r);
                let dot: f32 = comps
                    .iter()
                    .zip(q)
                    .map(|(&c, &x)| (c as i8) as f32 * x)
                    .sum();
                let (_, scale) = self.row_meta(r);
                let sim = dot * scale;
                if best.len() < k || sim > floor {
                    let at = best.partition_point(|(s, _)| *s >= sim);
                    best.insert(at, (sim, r));
                    best.truncate(k);
                    if best.len() == k {
                        floor = best[k - 1].0;
                    }
                }
            }
        }
        best.into_iter()
            .map(|(s, r)| (self.row_meta(r).0, s))
            .collect()
    }
}

/// Vectors being written: rows appended document by document.
pub struct StoreWriter {
    model: ModelId,
    dims: usize,
    docs: Vec<DocRows>,
    meta: Vec<u8>,
    data: Vec<u8>,
}

impl StoreWriter {
    pub fn new(model: ModelId, dims: usize) -> StoreWriter {
        StoreWriter {
            model,
            dims,
            docs: Vec::new(),
            meta: Vec::new(),
            data: Vec::new(),
        }
    }

    /// Starts a document; its rows follow.
    pub fn doc(&mut self, path: &str, sha256: &str) {
        self.docs.push(DocRows {
            path: path.to_string(),
            sha256: sha256.to_string(),
            rows: 0,
        });
    }

    /// Appends a row already quantized (copied from another file of the same model).
    pub fn push_quantized(&mut self, unit: u32, scale: f32, comps: &[u8]) {
        let doc = self.docs.len().saturating_sub(1) as u32;
        self.meta.extend_from_slice(&doc.to_le_bytes());
        self.meta.extend_from_slice(&unit.to_le_bytes());
        self.meta.extend_from_slice(&scale.to_le_bytes());
        self.data.extend_from_slice(comps);
        if let Some(d) = self.docs.last_mut() {
            d.rows += 1;
        }
    }

    /// Appends the vector `v` (`dims` floats), quantized to int8 with its own scale.
    pub fn push(&mut self, unit: u32, v: &[f32]) {
        let (scale, comps) = quantize(v);
        self.push_quantized(unit, scale, &comps);
    }

    /// Replaces the vectors file at `path` (a state file: atomically, never through a link).
    pub fn save(self, path: &Path) -> Result<(), statefs::StateError> {
        statefs::atomic_write(path, &self.finish())
    }

    /// The file's bytes.
    pub fn finish(self) -> Vec<u8> {
        let header = serde_json::to_vec(&Header {
            model: self.model,
            docs: self.docs,
        })
        .unwrap_or_default();
        let rows = (self.meta.len() / ROW_META) as u64;
        let mut out =
            Vec::with_capacity(FIXED + header.len() + 4 + self.meta.len() + self.data.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&(self.dims as u32).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&rows.to_le_bytes());
        out.extend_from_slice(&(header.len() as u64).to_le_bytes());
        out.extend_from_slice(&header);
        out.resize(out.len().next_multiple_of(4), 0);
        out.extend_from_slice(&self.meta);
        out.extend_from_slice(&self.data);
        out
    }
}

/// Symmetric int8 quantization: `v ≈ scale × q`, `q` in −127..=127 (as bytes).
fn quantize(v: &[f32]) -> (f32, Vec<u8>) {
    let max = v
        .iter()
        .fold(0f32, |m, x| if x.is_finite() { m.max(x.abs()) } else { m });
    if max == 0.0 {
        return (0.0, vec![0; v.len()]);
    }
    let scale = max / 127.0;
    let q = v
        .iter()
        .map(|x| {
            let x = if x.is_finite() { *x } else { 0.0 };
            ((x / scale).round().clamp(-127.0, 127.0) as i8) as u8
        })
        .collect();
    (scale, q)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id() -> ModelId {
        ModelId {
            name: "t/m".into(),
            identity: "abc".into(),
        }
    }

    fn written(dir: &Path) -> std::path::PathBuf {
        let mut w = StoreWriter::new(id(), 3);
        w.doc("a.pdf", "s1");
        w.push(1, &[1.0, 0.0, 0.0]);
        w.push(2, &[0.0, 1.0, 0.0]);
        w.doc("empty.pdf", "s2");
        w.doc("b.md", "s3");
        w.push(10, &[0.0, 0.6, 0.8]);
        let p = dir.join("vectors.bin");
        std::fs::write(&p, w.finish()).unwrap();
        p
    }

    #[test]
    fn written_rows_read_back_nearest_first() {
        let dir = tempfile::tempdir().unwrap();
        let s = VectorStore::open(&written(dir.path())).unwrap();
        assert_eq!((s.rows, s.dims, s.docs.len()), (3, 3, 3));
        let hits = s.nearest(&[0.0, 0.8, 0.6], 2, &|_| true);
        assert_eq!(hits[0].0, RowRef { doc: 2, unit: 10 });
        assert!((hits[0].1 - 0.96).abs() < 0.02, "{hits:?}");
        assert_eq!(hits[1].0, RowRef { doc: 0, unit: 2 });
        let only_a = s.nearest(&[0.0, 0.8, 0.6], 5, &|d| d == 0);
        assert_eq!(only_a.len(), 2);
        assert_eq!(s.doc_rows(2).count(), 1);
    }

    #[test]
    fn files_that_do_not_add_up_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = written(dir.path());
        let good = std::fs::read(&p).unwrap();
        let refuse = |bytes: &[u8]| {
            std::fs::write(&p, bytes).unwrap();
            match VectorStore::open(&p) {
                Err(StoreError::Refused(..)) => {}
                Err(e) => panic!("{e}"),
                Ok(_) => panic!("accepted"),
            }
        };
        refuse(&good[..good.len() - 1]);
        refuse(&good[..20]);
        let mut more = good.clone();
        more.push(0);
        refuse(&more);
        let mut huge_header = good.clone();
        huge_header[24..32].copy_from_slice(&u64::MAX.to_le_bytes());
        refuse(&huge_header);
        let mut rows = good.clone();
        rows[16..24].copy_from_slice(&(u64::MAX / 2).to_le_bytes());
        refuse(&rows);
        let mut dims = good.clone();
        dims[8..12].copy_from_slice(&0u32.to_le_bytes());
        refuse(&dims);
        let mut magic = good;
        magic[0] = b'X';
        refuse(&magic);
    }
}
