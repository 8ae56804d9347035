//! A read-only memory map of a file whose length was checked first (see the README).

use std::fs::File;
use std::io;
use std::ops::Deref;

/// The bytes of a file, mapped read-only.
#[derive(Debug)]
pub struct Mapped {
    map: Option<memmap2::Mmap>,
}

impl Mapped {
    /// Maps `file` read-only when it is exactly `len` bytes long now; fails otherwise (a file
    /// that changed size since it was checked is not mapped, so the map never reaches past its
    /// end). An empty file is an empty slice, without a map.
    pub fn map_exact(file: &File, len: u64) -> io::Result<Mapped> {
        let now = file.metadata()?.len();
        if now != len {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!("the file is {now} bytes, not the {len} checked"),
            ));
        }
        if len == 0 {
            return Ok(Mapped { map: None });
        }
        let len = usize::try_from(len)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidData, "the file is too large"))?;
        // SAFETY: the map is read-only and no longer than the file is now. Its callers replace
        // such files by rename and never write them in place, so the mapped pages do not change
        // while they are read; the remaining hazard of every map (another process truncating
        // the file) is documented in the README.
        #[allow(unsafe_code)]
        let map = unsafe { memmap2::MmapOptions::new().len(len).map(file)? };
        Ok(Mapped { map: Some(map) })
    }
}

impl Deref for Mapped {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn maps_exactly_the_checked_length() {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(b"hello vectors").unwrap();
        let m = Mapped::map_exact(&f, 13).unwrap();
        assert_eq!(&*m, b"hello vectors");
    }

    #[test]
    fn a_file_of_another_length_is_refused() {
        let mut f = tempfile::tempfile().unwrap();
        f.write_all(b"short").unwrap();
        assert!(Mapped::map_exact(&f, 6).is_err());
        assert!(Mapped::map_exact(&f, 4).is_err());
        assert!(Mapped::map_exact(&f, u64::MAX).is_err());
    }

    #[test]
    fn an_empty_file_is_an_empty_slice() {
        let f = tempfile::tempfile().unwrap();
        assert!(Mapped::map_exact(&f, 0).unwrap().is_empty());
    }
}
