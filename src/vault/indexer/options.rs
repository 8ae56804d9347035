//! What an index run is told (options), reports as it goes (progress) and returns (summary).

use std::time::Duration;

#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// Time allowed for one PDF before it is reported as failed.
    pub time_limit: Duration,
    /// Extraction threads (default: all cores).
    pub threads: usize,
    /// Rebuild from scratch, for this reason (a search found the index damaged).
    pub rebuild: Option<String>,
    /// Read the pages without a usable text layer with tesseract after the run (`None`: only
    /// OCR already in the cache is used).
    pub ocr: Option<crate::vault::ocr::OcrOptions>,
}

impl Default for IndexOptions {
    fn default() -> Self {
        // `AGENTERO_INDEX_THREADS` overrides the core count (benchmarks measure memory with it).
        let threads = std::env::var("AGENTERO_INDEX_THREADS")
            .ok()
            .and_then(|v| v.parse().ok())
            .filter(|n: &usize| *n > 0)
            .unwrap_or_else(|| {
                std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(2)
            });
        IndexOptions {
            time_limit: crate::vault::extract::TIME_LIMIT,
            threads,
            rebuild: None,
            ocr: None,
        }
    }
}

/// Progress events, in order: one `Planned`, then one `Processed` per changed file.
#[derive(Debug, Clone)]
pub enum Progress {
    Planned {
        to_process: usize,
        unchanged: usize,
        removed: usize,
    },
    Processed {
        path: String,
        done: usize,
        total: usize,
    },
    /// Page `page` of `path` is being read by OCR (`done` of `total` pages read so far).
    Ocr {
        path: String,
        page: u32,
        done: usize,
        total: usize,
    },
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct IndexSummary {
    pub papers: usize,
    pub pages: usize,
    pub files: usize,
    pub chunks: usize,
    pub directories: usize,
    /// Files processed in this run (new or changed).
    pub updated: usize,
    /// Files whose size, mtime or hash matched the catalog.
    pub unchanged: usize,
    pub removed: usize,
    /// Papers without any text layer.
    pub no_text: Vec<String>,
    /// Papers with pages whose text could not be decoded, and how many such pages.
    pub undecodable: Vec<(String, u32)>,
    /// Entries not indexed, with the reason.
    pub failed: Vec<(String, String)>,
    /// Warnings that did not stop a file (a broken sidecar, say).
    pub warnings: Vec<(String, String)>,
    /// Why the whole index was rebuilt, when it was.
    pub rebuilt: Option<String>,
    /// What the run did to the passage vectors (`None`: no embedding model).
    pub embeddings: Option<crate::vault::embed::EmbedSummary>,
    /// What the OCR pass did (`None`: there was none).
    pub ocr: Option<crate::vault::ocr::OcrSummary>,
    pub elapsed: Duration,
}

impl IndexSummary {
    pub fn up_to_date(&self) -> bool {
        self.updated == 0
            && self.removed == 0
            && self.rebuilt.is_none()
            && self.ocr.as_ref().is_none_or(|o| o.pages == 0)
    }
}
