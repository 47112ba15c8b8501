//! The device's in-memory filesystem: what `push`, `pull`, `screencap FILE`, `uiautomator dump`
//! and shell redirections read and write. It never touches the host's files: every path is
//! resolved to a key of this map, and paths that climb out of `/` are refused.

use std::collections::BTreeMap;
use std::sync::Arc;

/// `S_IFDIR` / `S_IFREG` as stat reports them.
pub const S_IFDIR: u32 = 0o040_000;
pub const S_IFREG: u32 = 0o100_000;
const S_IFMT: u32 = 0o170_000;

/// One file may hold at most this much.
pub const MAX_FILE_BYTES: usize = 64 * 1024 * 1024;
/// All files together may hold at most this much.
pub const MAX_TOTAL_BYTES: usize = 256 * 1024 * 1024;
/// The tree holds at most this many files and folders (`No space left on device` beyond).
pub const MAX_ENTRIES: usize = 16_384;
/// Linux's `PATH_MAX`: a path (as given, and resolved) is at most this many bytes
/// (`File name too long` beyond).
pub const MAX_PATH_BYTES: usize = 4096;

/// Why a file operation failed, with the errno adbd would report.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FsError {
    #[error("{path}: No such file or directory")]
    NotFound { path: String },
    #[error("{path}: Is a directory")]
    IsADirectory { path: String },
    #[error("{path}: Not a directory")]
    NotADirectory { path: String },
    #[error("{path}: File exists")]
    Exists { path: String },
    #[error("{path}: Directory not empty")]
    NotEmpty { path: String },
    #[error("{path}: Permission denied (the path leaves the device's root)")]
    Escapes { path: String },
    #[error("{path}: Invalid argument")]
    Invalid { path: String },
    #[error("{path}: No space left on device")]
    NoSpace { path: String },
    #[error("{path}: File name too long")]
    NameTooLong { path: String },
}

impl FsError {
    /// The POSIX errno (sync's STA2 reports it).
    pub fn errno(&self) -> u32 {
        match self {
            FsError::NotFound { .. } => 2,
            FsError::Escapes { .. } => 13,
            FsError::Exists { .. } => 17,
            FsError::NotADirectory { .. } => 20,
            FsError::IsADirectory { .. } => 21,
            FsError::Invalid { .. } => 22,
            FsError::NoSpace { .. } => 28,
            FsError::NameTooLong { .. } => 36,
            FsError::NotEmpty { .. } => 39,
        }
    }
}

/// A file or a directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    Dir { mode: u32, mtime: u32 },
    File { data: Arc<Vec<u8>>, mode: u32, mtime: u32 },
}

/// What `stat` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stat {
    /// File type and permission bits.
    pub mode: u32,
    pub size: u64,
    pub mtime: u32,
    /// A stable inode number, derived from the path.
    pub ino: u64,
}

impl Entry {
    pub fn is_dir(&self) -> bool {
        matches!(self, Entry::Dir { .. })
    }

    fn stat(&self, ino: u64) -> Stat {
        match self {
            Entry::Dir { mode, mtime } => Stat { mode: S_IFDIR | (mode & 0o7777), size: 4096, mtime: *mtime, ino },
            Entry::File { data, mode, mtime } => Stat { mode: S_IFREG | (mode & 0o7777), size: data.len() as u64, mtime: *mtime, ino },
        }
    }
}

/// Resolves `path` (absolute, or relative to `cwd`) to a normalized absolute path. `.` and empty
/// components are dropped; `..` may climb within the tree but never above `/`. Android's
/// `/storage/emulated/0` and `/storage/self/primary` are the same folder as `/sdcard`.
pub fn resolve(cwd: &str, path: &str) -> Result<String, FsError> {
    if path.is_empty() {
        return Err(FsError::NotFound { path: String::new() });
    }
    if path.contains('\0') {
        return Err(FsError::Invalid { path: path.escape_debug().to_string() });
    }
    if path.len() > MAX_PATH_BYTES {
        return Err(FsError::NameTooLong { path: shorten(path) });
    }
    let joined = if path.starts_with('/') { path.to_owned() } else { format!("{}/{path}", cwd.trim_end_matches('/')) };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(FsError::Escapes { path: path.to_owned() });
                }
            }
            p => parts.push(p),
        }
    }
    let mut out = format!("/{}", parts.join("/"));
    for alias in ["/storage/emulated/0", "/storage/self/primary", "/mnt/sdcard"] {
        if out == alias || out.starts_with(&format!("{alias}/")) {
            out = format!("/sdcard{}", &out[alias.len()..]);
        }
    }
    if out.len() > MAX_PATH_BYTES {
        return Err(FsError::NameTooLong { path: shorten(path) });
    }
    Ok(out)
}

/// A long path cut for an error message (at a char boundary).
fn shorten(path: &str) -> String {
    const SHOWN: usize = 64;
    if path.len() <= SHOWN {
        return path.to_owned();
    }
    let mut end = SHOWN;
    while !path.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &path[..end])
}

/// Like [`resolve`], but any `..` component is refused outright: sync requests name files, and a
/// client that climbs is probing for a way out.
pub fn resolve_strict(path: &str) -> Result<String, FsError> {
    if path.split('/').any(|p| p == "..") {
        return Err(FsError::Escapes { path: path.to_owned() });
    }
    resolve("/", path)
}

fn parent_of(path: &str) -> &str {
    match path.rfind('/') {
        Some(0) | None => "/",
        Some(i) => &path[..i],
    }
}

/// The file tree. Keys are normalized absolute paths; `/` always exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceFs {
    entries: BTreeMap<String, Entry>,
    total_bytes: usize,
}

impl Default for DeviceFs {
    fn default() -> Self {
        DeviceFs::new()
    }
}

impl DeviceFs {
    /// The folders an Android device has that clients write to.
    pub fn new() -> DeviceFs {
        let mut fs = DeviceFs { entries: BTreeMap::new(), total_bytes: 0 };
        fs.entries.insert("/".into(), Entry::Dir { mode: 0o755, mtime: 0 });
        for dir in ["/sdcard/Download", "/sdcard/DCIM", "/sdcard/Pictures", "/sdcard/Documents", "/data/local/tmp", "/system/bin", "/dev"] {
            let _ = fs.mkdir_all(dir, 0);
        }
        fs
    }

    pub fn get(&self, path: &str) -> Option<&Entry> {
        self.entries.get(path)
    }

    pub fn stat(&self, path: &str) -> Result<Stat, FsError> {
        let entry = self.entries.get(path).ok_or_else(|| FsError::NotFound { path: path.to_owned() })?;
        let digest = blake3::hash(path.as_bytes());
        let ino = u64::from_le_bytes(digest.as_bytes()[..8].try_into().unwrap_or([0; 8])) >> 16;
        Ok(entry.stat(ino))
    }

    pub fn read(&self, path: &str) -> Result<Arc<Vec<u8>>, FsError> {
        match self.entries.get(path) {
            Some(Entry::File { data, .. }) => Ok(Arc::clone(data)),
            Some(Entry::Dir { .. }) => Err(FsError::IsADirectory { path: path.to_owned() }),
            None => Err(FsError::NotFound { path: path.to_owned() }),
        }
    }

    fn check_parent(&self, path: &str) -> Result<(), FsError> {
        match self.entries.get(parent_of(path)) {
            Some(Entry::Dir { .. }) => Ok(()),
            Some(Entry::File { .. }) => Err(FsError::NotADirectory { path: path.to_owned() }),
            None => Err(FsError::NotFound { path: path.to_owned() }),
        }
    }

    /// Writes (or with `append`, extends) a file; its folder must exist.
    pub fn write(&mut self, path: &str, bytes: &[u8], append: bool, mode: u32, mtime: u32) -> Result<(), FsError> {
        if path == "/" {
            return Err(FsError::IsADirectory { path: path.to_owned() });
        }
        self.check_parent(path)?;
        let old = match self.entries.get(path) {
            Some(Entry::Dir { .. }) => return Err(FsError::IsADirectory { path: path.to_owned() }),
            Some(Entry::File { data, mode, .. }) => Some((Arc::clone(data), *mode)),
            None => None,
        };
        if old.is_none() {
            self.check_room_for_entry(path)?;
        }
        let old_len = old.as_ref().map_or(0, |(d, _)| d.len());
        let new_len = if append { old_len + bytes.len() } else { bytes.len() };
        if new_len > MAX_FILE_BYTES || self.total_bytes - old_len + new_len > MAX_TOTAL_BYTES {
            return Err(FsError::NoSpace { path: path.to_owned() });
        }
        let (data, mode) = match (old, append) {
            (Some((data, old_mode)), true) => {
                let mut data = Arc::unwrap_or_clone(data);
                data.extend_from_slice(bytes);
                (data, old_mode)
            }
            (Some((_, old_mode)), false) => (bytes.to_vec(), old_mode),
            (None, _) => (bytes.to_vec(), mode),
        };
        self.total_bytes = self.total_bytes - old_len + new_len;
        self.entries.insert(path.to_owned(), Entry::File { data: Arc::new(data), mode, mtime });
        Ok(())
    }

    /// Sets a file's or folder's time (`touch`); the data is not copied.
    pub fn touch(&mut self, path: &str, now: u32) -> Result<(), FsError> {
        match self.entries.get_mut(path) {
            Some(Entry::File { mtime, .. } | Entry::Dir { mtime, .. }) => {
                *mtime = now;
                Ok(())
            }
            None => Err(FsError::NotFound { path: path.to_owned() }),
        }
    }

    /// Creates one folder; its parent must exist.
    pub fn mkdir(&mut self, path: &str, mtime: u32) -> Result<(), FsError> {
        if self.entries.contains_key(path) {
            return Err(FsError::Exists { path: path.to_owned() });
        }
        self.check_parent(path)?;
        self.check_room_for_entry(path)?;
        self.entries.insert(path.to_owned(), Entry::Dir { mode: 0o771, mtime });
        Ok(())
    }

    /// One more file or folder must fit under [`MAX_ENTRIES`].
    fn check_room_for_entry(&self, path: &str) -> Result<(), FsError> {
        if self.entries.len() >= MAX_ENTRIES {
            return Err(FsError::NoSpace { path: path.to_owned() });
        }
        Ok(())
    }

    /// Creates a folder and its missing parents (`mkdir -p`).
    pub fn mkdir_all(&mut self, path: &str, mtime: u32) -> Result<(), FsError> {
        let mut at = String::new();
        for part in path.split('/').filter(|p| !p.is_empty()) {
            at.push('/');
            at.push_str(part);
            match self.entries.get(&at) {
                Some(Entry::Dir { .. }) => {}
                Some(Entry::File { .. }) => return Err(FsError::NotADirectory { path: at }),
                None => {
                    self.check_room_for_entry(&at)?;
                    self.entries.insert(at.clone(), Entry::Dir { mode: 0o771, mtime });
                }
            }
        }
        Ok(())
    }

    /// Removes a file, or a folder (with `recursive`, and everything in it).
    pub fn remove(&mut self, path: &str, recursive: bool) -> Result<(), FsError> {
        match self.entries.get(path) {
            None => Err(FsError::NotFound { path: path.to_owned() }),
            Some(Entry::File { data, .. }) => {
                self.total_bytes -= data.len();
                self.entries.remove(path);
                Ok(())
            }
            Some(Entry::Dir { .. }) => {
                if path == "/" {
                    return Err(FsError::Escapes { path: path.to_owned() });
                }
                let children = self.children(path).map(|v| v.len()).unwrap_or(0);
                if children > 0 && !recursive {
                    return Err(FsError::IsADirectory { path: path.to_owned() });
                }
                let prefix = format!("{path}/");
                let doomed: Vec<String> =
                    self.entries.range(prefix.clone()..).take_while(|(k, _)| k.starts_with(&prefix)).map(|(k, _)| k.clone()).collect();
                for key in doomed {
                    if let Some(Entry::File { data, .. }) = self.entries.remove(&key) {
                        self.total_bytes -= data.len();
                    }
                }
                self.entries.remove(path);
                Ok(())
            }
        }
    }

    /// Removes an empty folder (`rmdir`).
    pub fn rmdir(&mut self, path: &str) -> Result<(), FsError> {
        match self.entries.get(path) {
            None => Err(FsError::NotFound { path: path.to_owned() }),
            Some(Entry::File { .. }) => Err(FsError::NotADirectory { path: path.to_owned() }),
            Some(Entry::Dir { .. }) if !self.children(path)?.is_empty() => Err(FsError::NotEmpty { path: path.to_owned() }),
            Some(Entry::Dir { .. }) => self.remove(path, false),
        }
    }

    /// The names in a folder, sorted, with their entries.
    pub fn children(&self, path: &str) -> Result<Vec<(String, &Entry)>, FsError> {
        match self.entries.get(path) {
            None => return Err(FsError::NotFound { path: path.to_owned() }),
            Some(Entry::File { .. }) => return Err(FsError::NotADirectory { path: path.to_owned() }),
            Some(Entry::Dir { .. }) => {}
        }
        let prefix = if path == "/" { "/".to_owned() } else { format!("{path}/") };
        Ok(self
            .entries
            .range(prefix.clone()..)
            .take_while(|(k, _)| k.starts_with(&prefix))
            .filter(|(k, _)| k.len() > prefix.len() && !k[prefix.len()..].contains('/'))
            .map(|(k, e)| (k[prefix.len()..].to_owned(), e))
            .collect())
    }

    /// Bytes held by all files.
    pub fn total_bytes(&self) -> usize {
        self.total_bytes
    }

    pub fn is_dir(&self, path: &str) -> bool {
        self.entries.get(path).is_some_and(Entry::is_dir)
    }

    /// The file type bits of a mode.
    pub fn file_type(mode: u32) -> u32 {
        mode & S_IFMT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_inside_the_device_only() {
        assert_eq!(resolve("/", "sdcard/a.png").unwrap(), "/sdcard/a.png");
        assert_eq!(resolve("/sdcard", "./x/../y").unwrap(), "/sdcard/y");
        assert_eq!(resolve("/", "/storage/emulated/0/Download/f").unwrap(), "/sdcard/Download/f");
        assert_eq!(resolve("/", "/etc/passwd").unwrap(), "/etc/passwd");
        assert!(matches!(resolve("/", "/sdcard/../../etc/passwd"), Err(FsError::Escapes { .. })));
        assert!(matches!(resolve("/data", "../../x"), Err(FsError::Escapes { .. })));
        assert!(matches!(resolve("/", "/a\0b"), Err(FsError::Invalid { .. })));
        assert!(matches!(resolve_strict("/sdcard/x/../y"), Err(FsError::Escapes { .. })));
        assert_eq!(resolve_strict("sdcard/y").unwrap(), "/sdcard/y");
    }

    #[test]
    fn files_folders_and_space() {
        let mut fs = DeviceFs::new();
        fs.write("/sdcard/a.txt", b"hi", false, 0o644, 5).unwrap();
        fs.write("/sdcard/a.txt", b" there", true, 0o600, 6).unwrap();
        assert_eq!(fs.read("/sdcard/a.txt").unwrap().as_slice(), b"hi there");
        assert_eq!(fs.stat("/sdcard/a.txt").unwrap().mode, S_IFREG | 0o644);
        assert!(matches!(fs.write("/nope/a", b"", false, 0o644, 0), Err(FsError::NotFound { .. })));
        assert!(matches!(fs.write("/sdcard/a.txt/b", b"", false, 0o644, 0), Err(FsError::NotADirectory { .. })));
        let names: Vec<String> = fs.children("/sdcard").unwrap().into_iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["DCIM", "Documents", "Download", "Pictures", "a.txt"]);
        assert!(matches!(fs.remove("/sdcard", false), Err(FsError::IsADirectory { .. })));
        fs.remove("/sdcard", true).unwrap();
        assert_eq!(fs.total_bytes(), 0);
        assert!(fs.get("/sdcard/Download").is_none());
        let big = vec![0u8; MAX_FILE_BYTES + 1];
        assert!(matches!(fs.write("/data/big", &big, false, 0o644, 0), Err(FsError::NoSpace { .. })));
    }
}
