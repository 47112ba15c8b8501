//! The Lua host. Each device owns one sandboxed Lua 5.4 state; every app's handlers live in
//! their own environment table inside it. Lua is stateless logic: a handler runs against an
//! [`EventCtx`] (working copies of the app's data, the screen's UI state, system settings and
//! the clipboard, plus a queue of effects), and the phone commits the context only when the
//! handler succeeds, so a failing handler changes nothing.

mod api;
mod context;
mod error;
mod host;
mod paths;
mod program;
mod sandbox;

pub use context::{Effect, EventCtx};
pub use error::ScriptError;
pub use host::{ScriptHost, ScriptLimits};
pub use paths::{get_lua_path, set_lua_path};
pub use program::Program;
