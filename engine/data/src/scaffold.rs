//! `phoneworld new`: a new app folder that passes `check` and runs, to start from. It is the
//! README tutorial's app (examples/tally is what `phoneworld new examples/tally` writes).

use std::path::{Path, PathBuf};

use crate::DataError;

const FILES: [(&str, &str); 3] = [
    ("app.ron", include_str!("scaffold/app.ron")),
    ("main.lua", include_str!("scaffold/main.lua")),
    ("screens/main.ron", include_str!("scaffold/main.ron")),
];

/// The label an app folder suggests: `my_notes` -> "My notes".
pub fn label_for(dir: &Path) -> String {
    let name = dir.file_name().map(|n| n.to_string_lossy().replace(['_', '-'], " ")).unwrap_or_default();
    let mut chars = name.trim().chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => "My app".to_owned(),
    }
}

/// The package an app folder suggests: `my-notes` -> `com.example.mynotes`.
pub fn package_for(dir: &Path) -> String {
    let name = dir.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    let slug: String = name.chars().filter(char::is_ascii_alphanumeric).collect();
    match slug.chars().next() {
        Some(c) if c.is_ascii_alphabetic() => format!("com.example.{slug}"),
        _ => "com.example.app".to_owned(),
    }
}

/// Writes a new app into `dir` (which must not exist or be empty); returns the files written.
pub fn scaffold(dir: &Path, label: &str, package: &str) -> Result<Vec<PathBuf>, DataError> {
    let invalid = |field: &str, message: String| DataError::Invalid { path: dir.to_path_buf(), field: field.to_owned(), message };
    if label.trim().is_empty() || label.contains(['"', '\\', '\n']) {
        return Err(invalid("label", format!("`{label}`: a label is a short name without quotes or backslashes")));
    }
    let well_formed = package.split('.').count() >= 2
        && package.split('.').all(|p| {
            p.chars().next().is_some_and(|c| c.is_ascii_lowercase())
                && p.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        });
    if !well_formed {
        return Err(invalid("package", format!("`{package}`: write it like com.example.notes (lowercase parts joined by dots)")));
    }
    let io = |path: &Path, source: std::io::Error| DataError::Io { path: path.to_path_buf(), source };
    if dir.exists() && std::fs::read_dir(dir).map_err(|e| io(dir, e))?.next().is_some() {
        return Err(invalid("folder", "is not empty: `new` writes only into a new or empty folder".into()));
    }
    let mut written = Vec::new();
    for (rel, text) in FILES {
        let path = dir.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
        }
        std::fs::write(&path, text.replace("__LABEL__", label).replace("__PACKAGE__", package)).map_err(|e| io(&path, e))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_folder() {
        assert_eq!(label_for(Path::new("apps/my_notes")), "My notes");
        assert_eq!(package_for(Path::new("apps/My-Notes")), "com.example.mynotes");
        assert_eq!(package_for(Path::new("apps/2048")), "com.example.app");
    }
}
