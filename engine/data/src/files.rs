//! Reading files PhoneWorld did not write (app bundles, traces, action files, keys) with a
//! size limit, and only when they are regular files: a symlink to `/dev/zero` or a FIFO would
//! otherwise read forever or block.

use std::io::Read;
use std::path::Path;

use crate::DataError;

/// Largest text file of an app bundle (manifest, screen, module, script, content), in bytes.
pub const MAX_BUNDLE_FILE_BYTES: u64 = 8 << 20;

/// Reads a whole regular file of at most `max_bytes` bytes.
pub fn read_bounded(path: &Path, max_bytes: u64) -> Result<Vec<u8>, DataError> {
    let io_err = |source| DataError::Io { path: path.to_path_buf(), source };
    // Follows symlinks: what matters is what would be read.
    let meta = std::fs::metadata(path).map_err(io_err)?;
    if !meta.is_file() {
        return Err(DataError::NotAFile { path: path.to_path_buf() });
    }
    if meta.len() > max_bytes {
        return Err(DataError::TooLarge { path: path.to_path_buf(), size: meta.len(), limit: max_bytes });
    }
    let file = std::fs::File::open(path).map_err(io_err)?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    // The file may grow between the check and the read; never read past the limit.
    file.take(max_bytes + 1).read_to_end(&mut bytes).map_err(io_err)?;
    if bytes.len() as u64 > max_bytes {
        return Err(DataError::TooLarge { path: path.to_path_buf(), size: bytes.len() as u64, limit: max_bytes });
    }
    Ok(bytes)
}

/// Reads a whole regular UTF-8 text file of at most `max_bytes` bytes.
pub fn read_text_bounded(path: &Path, max_bytes: u64) -> Result<String, DataError> {
    let bytes = read_bounded(path, max_bytes)?;
    String::from_utf8(bytes).map_err(|e| DataError::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_devices_and_oversized_files() {
        let err = read_bounded(Path::new("/dev/zero"), 1024).unwrap_err();
        assert!(matches!(err, DataError::NotAFile { .. }), "{err}");
        let dir = std::env::temp_dir().join(format!("pw-files-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let big = dir.join("big.txt");
        std::fs::write(&big, vec![b'x'; 2048]).unwrap();
        let err = read_bounded(&big, 1024).unwrap_err();
        assert!(err.to_string().contains("2048 bytes") && err.to_string().contains("big.txt"), "{err}");
        assert_eq!(read_bounded(&big, 4096).unwrap().len(), 2048);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
