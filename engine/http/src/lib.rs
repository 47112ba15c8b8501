//! `serve-http`: mock phones behind AndroidWorld's HTTP env-server API, so harnesses written
//! for AndroidWorld's server evaluate and train on PhoneWorld by changing one URL.
//!
//! - [`HttpServer`] serves one or more [`HttpDevice`]s (`/emu0`, `/emu1`, ...; device 0 also
//!   without a prefix), one request at a time per device.
//! - [`JsonAction`] is AndroidWorld's action format with upstream's checks and actuation.
//! - [`Families`] and [`Draw`] are upstream's task families and seeded suites.

mod device;
mod expert;
pub mod fuzzing;
pub mod json_action;
mod pixels;
pub mod pyjson;
pub mod query;
mod server;
mod suite;

pub use device::{open_app_match, scaled_config, Endpoint, HttpDevice, Reply, START_COMBINATIONS, START_SEED};
pub use expert::Expert;
pub use json_action::{ActionError, JsonAction};
pub use pixels::pixels_json;
pub use server::{
    route, HttpError, HttpOptions, HttpServer, Route, BODY_TIMEOUT, HEADER_TIMEOUT, IDLE_TIMEOUT, MAX_BODY_BYTES, MAX_CONNECTIONS,
};
pub use suite::{instance_seed, Draw, DrawError, Families, ANDROID_WORLD, INFORMATION_RETRIEVAL};
