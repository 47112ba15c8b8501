use std::path::{Path, PathBuf};

use phoneworld_data::DataError;

/// Everything that can go wrong reading traces or writing a reconstruction. Every variant
/// names the file, and the line or field where one is known.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReconError {
    #[error("{}: cannot read: {cause}", path.display())]
    Io { path: PathBuf, cause: std::io::Error },
    #[error("{}:{line}: {message}", path.display())]
    Line { path: PathBuf, line: usize, message: String },
    #[error("{}: field `{field}`: {message}", path.display())]
    Field { path: PathBuf, field: String, message: String },
    #[error("{}: {message}", path.display())]
    Format { path: PathBuf, message: String },
    /// A file that is too large, not a regular file, or not text (names the file).
    #[error(transparent)]
    Data(#[from] DataError),
    #[error("{0}")]
    Input(String),
}

impl ReconError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> ReconError {
        ReconError::Io { path: path.to_path_buf(), cause: source }
    }

    pub(crate) fn field(path: &Path, field: impl Into<String>, message: impl Into<String>) -> ReconError {
        ReconError::Field { path: path.to_path_buf(), field: field.into(), message: message.into() }
    }

    pub(crate) fn line(path: &Path, line: usize, message: impl Into<String>) -> ReconError {
        ReconError::Line { path: path.to_path_buf(), line, message: message.into() }
    }

    pub(crate) fn format(path: &Path, message: impl Into<String>) -> ReconError {
        ReconError::Format { path: path.to_path_buf(), message: message.into() }
    }
}

/// Reads a regular file as UTF-8 text, at most `limit` bytes, naming it on failure.
pub(crate) fn read_text(path: &Path, limit: u64) -> Result<String, ReconError> {
    Ok(phoneworld_data::read_text_bounded(path, limit)?)
}

/// Bytes as UTF-8 text, naming the file they came from when they are not.
pub(crate) fn text_of(path: &Path, bytes: &[u8]) -> Result<String, ReconError> {
    std::str::from_utf8(bytes)
        .map(str::to_owned)
        .map_err(|e| ReconError::format(path, format!("not UTF-8 text (byte offset {})", e.valid_up_to())))
}

/// Parses JSON, naming the file, line and column of a syntax error. The text is measured
/// first (`check_json_size`): parsed values take far more memory than their text.
pub(crate) fn parse_json(path: &Path, text: &str) -> Result<serde_json::Value, ReconError> {
    crate::import::scan::check_json_size(path, text)?;
    serde_json::from_str(text).map_err(|e| ReconError::line(path, e.line(), format!("column {}: {e}", e.column())))
}
