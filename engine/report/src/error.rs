//! What can go wrong reading a run folder or writing its page.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    /// A JSON file (or one line of a JSON-lines file) that does not parse as what a run writes.
    #[error("{path}{}: {message}", line.map(|l| format!(" line {l}")).unwrap_or_default())]
    Json { path: PathBuf, line: Option<usize>, message: String },
    #[error("{path}: {message}")]
    Run { path: PathBuf, message: String },
    #[error("{path}: not a PNG this report can read: {message}")]
    Image { path: PathBuf, message: String },
    #[error("drawing the {chart} chart: {message}")]
    Chart { chart: String, message: String },
}

impl ReportError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> ReportError {
        let path = path.into();
        move |source| ReportError::Io { path, source }
    }
}
