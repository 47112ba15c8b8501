//! The Lua host. Each device owns one sandboxed Lua 5.4 state; every app runs in a world of its
//! own (an environment its compiled scripts are run into, over read-only views of the shared
//! libraries), and a world an event changed is built afresh for the next one, so nothing a
//! handler writes outside the store survives the event.
//! Lua is stateless logic: a handler runs against an [`EventCtx`] (working copies of the app's
//! data, the screen's UI state, system settings and the clipboard, plus a queue of effects),
//! and the phone commits the context only when the handler succeeds, so a failing handler
//! changes nothing. Every limit counts work, never time (`budget`).

mod api;
mod budget;
mod context;
mod convert;
mod crossing;
mod error;
mod host;
mod map_api;
mod paths;
mod program;
mod raw;
mod sandbox;
mod strlib;

pub use api::{MAX_EFFECTS_PER_EVENT, MAX_EFFECT_BYTES, MAX_NAME_BYTES, MAX_TEXT_BYTES, MAX_TIMER_MS};
pub use context::{ClockRead, Effect, EventCtx, Reads};
pub use convert::{value_size, MAX_VALUE_DEPTH};
pub use error::ScriptError;
pub use host::{ScriptHost, ScriptLimits, APPS_KEPT};
pub use program::{Library, Program};
