//! ADB for PhoneWorld, both ways.
//!
//! - The **server** makes a mock phone answer the ADB device protocol, so unmodified ADB
//!   clients (`adb connect`, adb-shell, adbutils, agent frameworks) drive it: [`AdbServer`]
//!   serves a [`SharedPhone`] with `shell:` (a small shell interpreter and Android's device
//!   commands, [`shell`]), `exec:`, `sync:` over an in-memory file tree ([`fs`]) and
//!   `framebuffer:`.
//! - The **client** talks to an adb server's smart socket ([`AdbClient`], [`AdbDevice`]) and
//!   drives a real phone with the mock phone's observations and actions ([`AdbPhone`]).

pub mod auth;
mod client;
pub mod fs;
pub mod fuzzing;
mod phone;
pub mod protocol;
mod server;
pub mod services;
pub mod session;
pub mod shell;
pub mod sync;
pub mod uixml;

pub use auth::{AdbPublicKey, AuthPolicy, KeyError};
pub use client::{AdbClient, AdbDevice, AdbError, DeviceEntry, RemoteStat, ShellResult, DEFAULT_SERVER, DEFAULT_TIMEOUT};
pub use phone::{action_command, decode_png, keycode, parse_focus, parse_wm_size, shell_quote, AdbPhone, AdbStep, ForegroundApp};
pub use server::{
    AdbServer, ServerError, ServerHandle, ServerOptions, DEFAULT_FEATURES, HANDSHAKE_TIMEOUT, MAX_CONNECTIONS, MAX_CONNECTION_INPUT,
    MAX_CONNECTION_PENDING, MAX_DEFERRED_OPENS, MAX_SERVER_PENDING, MAX_STREAMS, MAX_STREAM_PENDING, PRESSURE_EVICT_AFTER, WRITE_TIMEOUT,
};
pub use session::{encode_png, PhoneSession, PngCompression, SharedPhone, TaskContext, UploadReservation};
pub use shell::{Budget, Channel, ShellOutput, ShellState};
pub use uixml::{ui_elements_from_xml, UiXmlError};
