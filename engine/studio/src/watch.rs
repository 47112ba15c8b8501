//! Which files of the watched folders changed: each folder's files with their size and
//! modification time, compared between two looks. Polling rather than OS notifications: it
//! behaves the same on every file system (editors that save by renaming, network mounts) and
//! two looks a quarter of a second apart cost little for an app's few files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Folders deeper than this, or more files than `MAX_FILES`, are not looked into: an app is a
/// few files, and a folder of thousands is not one to reload on.
const MAX_DEPTH: usize = 6;
const MAX_FILES: usize = 4096;

/// What the files looked like: path → (size, modification time).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Snapshot(BTreeMap<PathBuf, (u64, Option<SystemTime>)>);

impl Snapshot {
    /// Looks at every file under `dirs` (hidden files, editors' swap files and each folder's
    /// `verifiers/` left out).
    pub fn take(dirs: &[PathBuf]) -> Snapshot {
        let mut files = BTreeMap::new();
        for dir in dirs {
            visit(dir, 0, &mut files);
        }
        Snapshot(files)
    }

    /// The files added, removed or changed since `before`, in path order.
    pub fn changed_since(&self, before: &Snapshot) -> Vec<PathBuf> {
        let mut changed: Vec<PathBuf> =
            self.0.iter().filter(|(path, meta)| before.0.get(*path) != Some(meta)).map(|(p, _)| p.clone()).collect();
        changed.extend(before.0.keys().filter(|p| !self.0.contains_key(*p)).cloned());
        changed.sort();
        changed
    }
}

fn ignored(name: &str) -> bool {
    name.starts_with('.') || name.ends_with('~') || name.ends_with(".swp") || name.ends_with(".tmp")
}

fn visit(dir: &Path, depth: usize, files: &mut BTreeMap<PathBuf, (u64, Option<SystemTime>)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        if files.len() >= MAX_FILES {
            return;
        }
        let path = entry.path();
        if path.file_name().and_then(|n| n.to_str()).is_none_or(ignored) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        if meta.is_dir() {
            // An app's task files are not the app: saving a recorded task reloads nothing.
            if depth == 0 && path.file_name().is_some_and(|n| n == "verifiers") {
                continue;
            }
            if depth < MAX_DEPTH {
                visit(&path, depth + 1, files);
            }
        } else if meta.is_file() {
            files.insert(path, (meta.len(), meta.modified().ok()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_added_or_removed_file_is_reported_and_swap_files_are_not() {
        let dir = std::env::temp_dir().join(format!("phoneworld-watch-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("screens")).unwrap();
        std::fs::write(dir.join("main.lua"), "a").unwrap();
        std::fs::write(dir.join("screens/main.ron"), "b").unwrap();
        let before = Snapshot::take(std::slice::from_ref(&dir));
        assert!(Snapshot::take(std::slice::from_ref(&dir)).changed_since(&before).is_empty());
        std::fs::write(dir.join("main.lua"), "ab").unwrap();
        std::fs::write(dir.join(".main.lua.swp"), "x").unwrap();
        std::fs::remove_file(dir.join("screens/main.ron")).unwrap();
        std::fs::write(dir.join("screens/list.ron"), "c").unwrap();
        let after = Snapshot::take(std::slice::from_ref(&dir));
        assert_eq!(after.changed_since(&before), vec![dir.join("main.lua"), dir.join("screens/list.ron"), dir.join("screens/main.ron")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
