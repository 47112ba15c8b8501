//! Reading the files of an app bundle or a folder of layout modules without ever leaving it:
//! every path is resolved (symlinks followed) and must stay inside the folder, and every read
//! is bounded. Files may also come from memory, for tests and fuzzing.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use crate::files::{read_bounded, read_text_bounded, MAX_BUNDLE_FILE_BYTES};
use crate::DataError;

/// Where a bundle's (or a layouts folder's) files come from.
pub(crate) enum Source<'a> {
    /// A folder on disk: `dir` as given (for messages) and `root`, its canonical form.
    Dir { dir: &'a Path, root: PathBuf },
    /// Files by path relative to the folder (`screens/main.ron`), for tests and fuzzing.
    Memory { dir: &'a Path, files: &'a BTreeMap<String, String> },
}

impl<'a> Source<'a> {
    /// A folder on disk; fails when it cannot be resolved.
    pub(crate) fn dir(dir: &'a Path) -> Result<Source<'a>, DataError> {
        let root = std::fs::canonicalize(dir).map_err(|source| DataError::Io { path: dir.to_path_buf(), source })?;
        Ok(Source::Dir { dir, root })
    }

    /// The folder as the user named it.
    pub(crate) fn base(&self) -> &'a Path {
        match self {
            Source::Dir { dir, .. } | Source::Memory { dir, .. } => dir,
        }
    }

    fn outside(&self, path: PathBuf, reference: String) -> DataError {
        DataError::OutsideBundle { path, reference, root: self.base().display().to_string() }
    }

    /// Reads a file a bundle file names (`content: {"x": "content/x.ron"}` in `referrer`).
    /// Absolute paths, `..` that climbs out and symlinks that lead out are refused.
    pub(crate) fn read_reference(&self, referrer: &Path, reference: &str) -> Result<String, DataError> {
        let rel = inside(reference).ok_or_else(|| self.outside(referrer.to_path_buf(), reference.to_owned()))?;
        match self.read_rel(&rel)? {
            Read::Text(text) => Ok(text),
            Read::Outside(_) => Err(self.outside(referrer.to_path_buf(), reference.to_owned())),
        }
    }

    /// Reads the bytes of a binary file a bundle names (an image asset), at most `max_bytes`;
    /// confined like [`Source::read_reference`]. Memory sources hold text only: never found.
    pub(crate) fn read_bytes(&self, referrer: &Path, reference: &str, max_bytes: u64) -> Result<Vec<u8>, DataError> {
        let rel = inside(reference).ok_or_else(|| self.outside(referrer.to_path_buf(), reference.to_owned()))?;
        let shown = self.base().join(&rel);
        match self {
            Source::Memory { .. } => {
                Err(DataError::Io { path: shown, source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file") })
            }
            Source::Dir { root, .. } => {
                let real = std::fs::canonicalize(root.join(&rel)).map_err(|source| DataError::Io { path: shown.clone(), source })?;
                if !real.starts_with(root) {
                    return Err(self.outside(referrer.to_path_buf(), reference.to_owned()));
                }
                read_bounded(&real, max_bytes).map_err(|err| renamed(err, shown))
            }
        }
    }

    /// Reads a file found by listing the folder (`app.ron`, `screens/x.ron`): a symlink that
    /// leads out is refused, naming where it points.
    pub(crate) fn read_listed(&self, rel: &str) -> Result<String, DataError> {
        let rel = inside(rel).ok_or_else(|| self.outside(self.base().join(rel), rel.to_owned()))?;
        match self.read_rel(&rel)? {
            Read::Text(text) => Ok(text),
            Read::Outside(target) => Err(self.outside(self.base().join(&rel), target.display().to_string())),
        }
    }

    /// The `*.ron` files of a subfolder (`""` for the folder itself), relative to the folder
    /// and sorted by name so loading order never depends on the OS. A subfolder that leads
    /// out of the folder is refused.
    pub(crate) fn ron_files(&self, sub: &str) -> Result<Vec<String>, DataError> {
        self.files_named(sub, is_ron)
    }

    /// The `*.lua` files of a subfolder, as [`Source::ron_files`] lists `*.ron` ones.
    pub(crate) fn lua_files(&self, sub: &str) -> Result<Vec<String>, DataError> {
        self.files_named(sub, |name| Path::new(name).extension().is_some_and(|e| e == "lua"))
    }

    fn files_named(&self, sub: &str, wanted: fn(&str) -> bool) -> Result<Vec<String>, DataError> {
        let prefix = if sub.is_empty() { String::new() } else { format!("{sub}/") };
        let mut files: Vec<String> = match self {
            Source::Memory { files, .. } => files
                .keys()
                .filter_map(|k| k.strip_prefix(&prefix))
                .filter(|name| !name.contains('/') && wanted(name))
                .map(|name| format!("{prefix}{name}"))
                .collect(),
            Source::Dir { dir, root } => {
                let Ok(real) = std::fs::canonicalize(root.join(sub)) else { return Ok(Vec::new()) };
                if !real.starts_with(root) {
                    return Err(self.outside(dir.join(sub), real.display().to_string()));
                }
                std::fs::read_dir(&real)
                    .map(|rd| {
                        rd.filter_map(|e| e.ok())
                            .filter_map(|e| e.file_name().into_string().ok())
                            .filter(|name| wanted(name))
                            .map(|name| format!("{prefix}{name}"))
                            .collect()
                    })
                    .unwrap_or_default()
            }
        };
        files.sort();
        Ok(files)
    }

    /// The image files of a folder on disk (by extension, case-insensitive), relative to it
    /// and sorted, found by walking at most [`MAX_ASSET_DEPTH`] folders deep and keeping at
    /// most [`MAX_ASSET_FILES`]; symlinks that lead out are left out (reading them is refused
    /// anyway). A memory source has none.
    pub(crate) fn image_files(&self) -> Vec<(String, PathBuf)> {
        let Source::Dir { root, .. } = self else { return Vec::new() };
        let mut found = Vec::new();
        let mut folders = vec![(root.clone(), String::new(), 0)];
        while let Some((folder, prefix, depth)) = folders.pop() {
            let Ok(entries) = std::fs::read_dir(&folder) else { continue };
            let mut names: Vec<String> = entries.filter_map(|e| e.ok()?.file_name().into_string().ok()).collect();
            names.sort();
            for name in names {
                let rel = format!("{prefix}{name}");
                let Ok(real) = std::fs::canonicalize(folder.join(&name)) else { continue };
                if !real.starts_with(root) {
                    continue;
                }
                if real.is_dir() {
                    if depth < MAX_ASSET_DEPTH {
                        folders.push((real, format!("{rel}/"), depth + 1));
                    }
                } else if is_image(&name) && found.len() < MAX_ASSET_FILES {
                    found.push((rel, real));
                }
            }
        }
        found.sort();
        found
    }

    fn read_rel(&self, rel: &Path) -> Result<Read, DataError> {
        let shown = self.base().join(rel);
        match self {
            Source::Memory { files, .. } => {
                let key = rel.iter().map(|c| c.to_string_lossy()).collect::<Vec<_>>().join("/");
                let text = files.get(&key).ok_or_else(|| DataError::Io {
                    path: shown.clone(),
                    source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
                })?;
                if text.len() as u64 > MAX_BUNDLE_FILE_BYTES {
                    return Err(DataError::TooLarge { path: shown, size: text.len() as u64, limit: MAX_BUNDLE_FILE_BYTES });
                }
                Ok(Read::Text(text.clone()))
            }
            Source::Dir { root, .. } => {
                let real = std::fs::canonicalize(root.join(rel)).map_err(|source| DataError::Io { path: shown.clone(), source })?;
                if !real.starts_with(root) {
                    return Ok(Read::Outside(real));
                }
                // Errors name the file as the bundle names it, not where a symlink led.
                read_text_bounded(&real, MAX_BUNDLE_FILE_BYTES).map(Read::Text).map_err(|err| renamed(err, shown))
            }
        }
    }
}

/// How deep [`Source::image_files`] looks into a bundle's folders.
pub(crate) const MAX_ASSET_DEPTH: usize = 8;
/// How many image files of a bundle [`Source::image_files`] lists at most.
pub(crate) const MAX_ASSET_FILES: usize = 4096;

fn is_image(name: &str) -> bool {
    let ext = Path::new(name).extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
    matches!(ext.as_deref(), Some("png" | "jpg" | "jpeg" | "webp" | "svg"))
}

fn is_ron(name: &str) -> bool {
    Path::new(name).extension().is_some_and(|e| e == "ron")
}

enum Read {
    Text(String),
    Outside(PathBuf),
}

/// `reference` as a relative path that stays inside its folder (`..` resolved by name), or
/// `None` when it is absolute or climbs out.
fn inside(reference: &str) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in Path::new(reference).components() {
        match part {
            Component::Normal(name) => out.push(name),
            Component::CurDir => {}
            Component::ParentDir if out.pop() => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

fn renamed(err: DataError, path: PathBuf) -> DataError {
    match err {
        DataError::Io { source, .. } => DataError::Io { path, source },
        DataError::NotAFile { .. } => DataError::NotAFile { path },
        DataError::TooLarge { size, limit, .. } => DataError::TooLarge { path, size, limit },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_stay_inside_by_name() {
        assert_eq!(inside("content/x.ron"), Some(PathBuf::from("content/x.ron")));
        assert_eq!(inside("./a/../b.lua"), Some(PathBuf::from("b.lua")));
        assert_eq!(inside("../x"), None);
        assert_eq!(inside("a/../../x"), None);
        assert_eq!(inside("/etc/passwd"), None);
    }
}
