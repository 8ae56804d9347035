//! Damage containment: tantivy trusts its files, so every read runs with its panics caught
//! and its decoding errors reported as a damaged index.

use std::path::Path;

use tantivy::Index;

use super::error::IndexError;

thread_local! {
    static CONTAINED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the current thread is inside [`contain`]: a panic there is an expected symptom of a
/// damaged index (logged, turned into [`IndexError::Corrupt`]), not a crash to report.
pub fn panic_is_contained() -> bool {
    CONTAINED.with(|c| c.get())
}

/// Runs `work` on the index with its panics caught and its I/O and decoding errors reported as
/// damage: tantivy assumes intact files.
pub(super) fn contain<T>(work: impl FnOnce() -> Result<T, IndexError>) -> Result<T, IndexError> {
    let outer = CONTAINED.with(|c| c.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
    CONTAINED.with(|c| c.set(outer));
    match result {
        Ok(Err(IndexError::Tantivy(e))) => Err(damaged(e)),
        Ok(r) => r,
        Err(payload) => {
            let msg = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Err(IndexError::Corrupt(format!("reading it failed: {msg}")))
        }
    }
}

/// The searchable files of `index` that fail their checksum, reading only those not known to
/// have passed unchanged (and recording the ones that pass now).
pub(super) fn unchecked_damage(
    index: &Index,
    dir: &Path,
) -> Result<Vec<std::path::PathBuf>, IndexError> {
    use crate::vault::checked::{Checked, Stamp};
    let managed = index.directory().list_managed_files();
    let mut files: Vec<std::path::PathBuf> = index
        .load_metas()
        .map_err(damaged)?
        .list_segment_files()
        .into_iter()
        .filter(|f| managed.contains(f))
        .collect();
    files.sort();
    files.dedup();
    let record = Checked::load(dir);
    let mut bad = Vec::new();
    let mut passed = Vec::new();
    let mut read = false;
    for f in files {
        let name = f.to_string_lossy().into_owned();
        let stamp = Stamp::of(&dir.join(&f));
        if record.passed(&name, stamp) {
            passed.push((name, stamp.expect("passed implies a stamp")));
            continue;
        }
        read = true;
        match index.directory().validate_checksum(&f) {
            Ok(true) => {
                if let Some(s) = stamp {
                    passed.push((name, s));
                }
            }
            Ok(false) => bad.push(f),
            // A listed file that cannot be opened: damage (it was deleted, say).
            Err(e) => return Err(damaged(e.into())),
        }
    }
    if read {
        Checked::save(dir, &passed, std::time::SystemTime::now());
    }
    Ok(bad)
}

/// Tantivy errors that mean the files are bad, as [`IndexError::Corrupt`]; the rest as they are.
pub(super) fn damaged(e: tantivy::TantivyError) -> IndexError {
    use tantivy::TantivyError as T;
    match e {
        T::DataCorruption(_)
        | T::IoError(_)
        | T::OpenReadError(_)
        | T::OpenDirectoryError(_)
        | T::InternalError(_)
        | T::DeserializeError(_)
        | T::IncompatibleIndex(_) => {
            let text = e.to_string();
            // tantivy repeats its message a few times over; the first is enough.
            let first = text.split("': ").next().unwrap_or(&text).to_string();
            IndexError::Corrupt(first.chars().take(300).collect())
        }
        other => IndexError::Tantivy(other),
    }
}
