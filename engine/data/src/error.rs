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
        }
    }
}
