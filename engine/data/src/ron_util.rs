//! Parsing RON (and JSON content) with errors that name the file, line and column.

use std::path::Path;

use serde::de::DeserializeOwned;

use crate::DataError;

/// Deepest nesting of brackets in a RON file (a widget inside `children: [...]` takes about
/// two): parsing recurses, so a file nested 100,000 deep would otherwise overflow the stack.
pub const MAX_RON_DEPTH: usize = 64;

fn options() -> ron::Options {
    // Widgets are written `Text(text: "hi")` rather than `Text((text: "hi"))`, and optional
    // fields take a bare value rather than `Some(..)`.
    ron::Options::default()
        .with_default_extension(ron::extensions::Extensions::UNWRAP_VARIANT_NEWTYPES)
        .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME)
        .with_recursion_limit(MAX_RON_DEPTH)
}

pub(crate) fn parse_ron<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, DataError> {
    options().from_str(text).map_err(|err| DataError::Syntax {
        path: path.to_path_buf(),
        line: err.position.line,
        col: err.position.col,
        message: match err.code {
            ron::Error::ExceededRecursionLimit => format!("nested more than {MAX_RON_DEPTH} brackets deep"),
            code => code.to_string(),
        },
    })
}

/// Parses a content file: RON, or JSON when the extension says so (serde_json stops at 128
/// levels of nesting by itself).
pub(crate) fn read_value(path: &Path, text: &str) -> Result<serde_json::Value, DataError> {
    if path.extension().is_some_and(|e| e == "json") {
        serde_json::from_str(text).map_err(|err| DataError::Syntax {
            path: path.to_path_buf(),
            line: err.line(),
            col: err.column(),
            message: err.to_string(),
        })
    } else {
        parse_ron(path, text)
    }
}
