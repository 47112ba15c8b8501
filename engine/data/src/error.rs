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
    pub message: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.file, line, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl From<&DataError> for Problem {
    fn from(err: &DataError) -> Self {
        match err {
            DataError::Io { path, source } => {
                Problem { file: path.display().to_string(), line: None, message: format!("cannot read: {source}") }
            }
            DataError::Syntax { path, line, col, message } => {
                Problem { file: path.display().to_string(), line: Some(*line), message: format!("column {col}: {message}") }
            }
            DataError::Invalid { path, field, message } => {
                Problem { file: path.display().to_string(), line: None, message: format!("field `{field}`: {message}") }
            }
            DataError::Action(message) => Problem { file: String::new(), line: None, message: message.clone() },
            DataError::NotAFile { path } => Problem { file: path.display().to_string(), line: None, message: "not a regular file".into() },
            DataError::TooLarge { path, size, limit } => Problem {
                file: path.display().to_string(),
                line: None,
                message: format!("{size} bytes is over the limit of {limit} bytes"),
            },
            DataError::OutsideBundle { path, reference, root } => {
                Problem { file: path.display().to_string(), line: None, message: format!("`{reference}` points outside the {root} folder") }
            }
            DataError::Image { path, message } => {
                Problem { file: path.display().to_string(), line: None, message: format!("image: {message}") }
            }
        }
    }
}
