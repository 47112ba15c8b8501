use std::path::PathBuf;

/// An error in data an app author or a user wrote: always names the file and, where known,
/// the line and column or the field.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DataError {
    #[error("{path}: cannot read: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}:{line}:{col}: {message}")]
    Syntax { path: PathBuf, line: usize, col: usize, message: String },
    #[error("{path}: field `{field}`: {message}")]
    Invalid { path: PathBuf, field: String, message: String },
    #[error("invalid action: {0}")]
    Action(String),
    #[error("{path}: not a regular file (a device, folder or pipe is never read)")]
    NotAFile { path: PathBuf },
    #[error("{path}: {size} bytes is over the limit of {limit} bytes")]
    TooLarge { path: PathBuf, size: u64, limit: u64 },
    #[error("{path}: `{reference}` points outside the {root} folder")]
    OutsideBundle { path: PathBuf, reference: String, root: String },
    /// An image asset that is too large, of an unknown format, or cannot be decoded.
    #[error("{path}: image: {message}")]
    Image { path: PathBuf, message: String },
}

impl DataError {
    /// The file the error is about, when there is one.
    pub fn path(&self) -> Option<&std::path::Path> {
        match self {
            DataError::Io { path, .. }
            | DataError::Syntax { path, .. }
            | DataError::Invalid { path, .. }
            | DataError::NotAFile { path }
            | DataError::TooLarge { path, .. }
            | DataError::OutsideBundle { path, .. }
            | DataError::Image { path, .. } => Some(path),
            DataError::Action(_) => None,
        }
    }
}

/// One problem found by `phoneworld check`: file, optional line, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct Problem {
    pub file: String,
    pub line: Option<usize>,
    /// 1-based, in characters, when the problem's place in the line is known.
    pub column: Option<usize>,
    pub message: String,
}

impl Problem {
    /// A problem with no place in its file, or only a line.
    pub fn new(file: impl Into<String>, line: Option<usize>, message: impl Into<String>) -> Problem {
        Problem { file: file.into(), line, column: None, message: message.into() }
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, "{}:{}:{}: {}", self.file, line, column, self.message),
            (Some(line), None) => write!(f, "{}:{}: {}", self.file, line, self.message),
            _ => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl From<&DataError> for Problem {
    fn from(err: &DataError) -> Self {
        let file = err.path().map(|p| p.display().to_string()).unwrap_or_default();
        match err {
            DataError::Io { source, .. } => Problem::new(file, None, format!("cannot read: {source}")),
            DataError::Syntax { line, col, message, .. } => {
                Problem { file, line: Some(*line), column: Some(*col), message: message.clone() }
            }
            DataError::Invalid { field, message, .. } => Problem::new(file, None, format!("field `{field}`: {message}")),
            DataError::Action(message) => Problem::new(file, None, message.clone()),
            DataError::NotAFile { .. } => Problem::new(file, None, "not a regular file"),
            DataError::TooLarge { size, limit, .. } => Problem::new(file, None, format!("{size} bytes is over the limit of {limit} bytes")),
            DataError::OutsideBundle { reference, root, .. } => {
                Problem::new(file, None, format!("`{reference}` points outside the {root} folder"))
            }
            DataError::Image { message, .. } => Problem::new(file, None, format!("image: {message}")),
        }
    }
}
