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
pub use server::{AdbServer, ServerError, ServerHandle, ServerOptions, DEFAULT_FEATURES};
pub use session::{encode_png, PhoneSession, PngCompression, SharedPhone, TaskContext};
pub use shell::{Channel, ShellOutput, ShellState};
pub use uixml::{ui_elements_from_xml, UiXmlError};
