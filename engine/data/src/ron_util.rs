//! Reading RON files with errors that name the file, line and column.

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::DataError;

fn options() -> ron::Options {
    // Widgets are written `Text(text: "hi")` rather than `Text((text: "hi"))`, and optional
    // fields take a bare value rather than `Some(..)`.
    ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::UNWRAP_VARIANT_NEWTYPES)
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
}

pub(crate) fn read_text(path: &Path) -> Result<String, DataError> {
    crate::files::read_text_bounded(path, crate::files::MAX_BUNDLE_FILE_BYTES)
}

pub(crate) fn parse_ron<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, DataError> {
    options().from_str(text).map_err(|err| DataError::Syntax {
        path: path.to_path_buf(),
        line: err.position.line,
        col: err.position.col,
        message: err.code.to_string(),
    })
}

/// Reads a content file: RON, or JSON when the extension says so.
pub(crate) fn read_value(path: &Path) -> Result<serde_json::Value, DataError> {
    let text = read_text(path)?;
    if path.extension().is_some_and(|e| e == "json") {
        serde_json::from_str(&text).map_err(|err| DataError::Syntax {
            path: path.to_path_buf(),
            line: err.line(),
            col: err.column(),
            message: err.to_string(),
        })
    } else {
        parse_ron(path, &text)
    }
}
