//! `phoneworld studio`: a live phone in the browser for app authors. The page shows the phone
//! (driven with the mouse and keyboard), reloads the app when its files change, reports `check`
//! problems and Lua errors as they happen, inspects the UI tree, the app's state and the
//! screen's computed view, and plays and records tasks. See docs/studio.md.

mod assets;
mod desk;
mod guard;
mod server;
mod session;
mod tasks;
mod watch;

pub use desk::{Listed, Offer};
pub use guard::{Credentials, Guard, Refusal, TOKEN_HEADER};
pub use server::{serve, Studio};
pub use session::{AuthorApp, Session, StudioOptions};
pub use watch::Snapshot;

use std::path::PathBuf;

/// What keeps the studio from starting or from doing what the page asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StudioError {
    #[error("{}: not an app folder (no app.ron)", .0.display())]
    NotAnApp(PathBuf),
    #[error("appearance: {0}")]
    Appearance(String),
    #[error("{0}")]
    Phone(String),
    #[error("{0}")]
    Task(String),
    #[error("{0}")]
    Io(String),
    #[error("cannot listen on {addr}: {message}")]
    Bind { addr: String, message: String },
}
