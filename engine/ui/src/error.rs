/// Errors of loading apps and restoring snapshots onto a device.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PhoneError {
    #[error(transparent)]
    Data(phoneworld_data::DataError),
    #[error("script error: {0}")]
    Script(phoneworld_script::ScriptError),
    #[error("snapshot: {0}")]
    Snapshot(String),
    #[error("configuration: {0}")]
    Config(String),
}
