use std::path::PathBuf;

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
    #[error("{0}")]
    Input(String),
}

impl ReconError {
    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> ReconError {
        ReconError::Io { path: path.to_path_buf(), cause: source }
    }

    pub(crate) fn field(path: &std::path::Path, field: impl Into<String>, message: impl Into<String>) -> ReconError {
        ReconError::Field { path: path.to_path_buf(), field: field.into(), message: message.into() }
    }

    pub(crate) fn line(path: &std::path::Path, line: usize, message: impl Into<String>) -> ReconError {
        ReconError::Line { path: path.to_path_buf(), line, message: message.into() }
    }

    pub(crate) fn format(path: &std::path::Path, message: impl Into<String>) -> ReconError {
        ReconError::Format { path: path.to_path_buf(), message: message.into() }
    }
}

/// Reads a file as UTF-8 text, naming it on failure.
pub(crate) fn read_text(path: &std::path::Path) -> Result<String, ReconError> {
    let bytes = std::fs::read(path).map_err(|e| ReconError::io(path, e))?;
    String::from_utf8(bytes).map_err(|e| ReconError::format(path, format!("not UTF-8 text (byte offset {})", e.utf8_error().valid_up_to())))
}

/// Parses JSON, naming the file, line and column of a syntax error.
pub(crate) fn parse_json(path: &std::path::Path, text: &str) -> Result<serde_json::Value, ReconError> {
    serde_json::from_str(text).map_err(|e| ReconError::line(path, e.line(), format!("column {}: {e}", e.column())))
}
