//! The mock phone. A [`Device`] owns one store (all mutable state), runs app handlers in its
//! sandboxed Lua host, composes and lays out the screen, and answers observations: frames,
//! UI elements, uiautomator XML, state and hashes. [`Catalog`] holds the installed apps,
//! shared by every device of a process.

mod accent;
mod appearance;
mod builder;
mod catalog;
mod check;
mod compose;
mod device;
mod episode_options;
mod error;
mod events;
mod gestures;
mod host_services;
mod images;
mod interaction;
pub mod interruptions;
mod kit;
mod layout_check;
pub mod limits;
mod map_gestures;
mod maps;
mod observe;
mod shell;
mod snapshot;
mod step;
mod store;
mod text_input;
mod theme;
pub mod valuepath;
mod views;
mod wallpaper;
mod widgets;

pub use appearance::{valid_names as appearance_names, Appearance, AppearanceError, ACCENTS, PROFILES, SCREENS};
pub use catalog::{app_dirs, project_root, Catalog, InstalledApp};
pub use check::check_app;
pub use device::{Baseline, Device, DeviceConfig, StepResult};
pub use episode_options::{EpisodeOptions, OptionsError, OPTION_NAMES};
pub use error::PhoneError;
pub use images::{load_image, ImageStore, MAX_DECODED_IMAGE_BYTES};
pub use interruptions::{InterruptionKind, InterruptionSetting, Planned};
pub use layout_check::{check_tree, LayoutProblem, MIN_TOUCH_DP};
pub use maps::MapStore;
pub use observe::{LaidOut, Reacts};
pub use phoneworld_script::{ScriptError, ScriptLimits};
pub use store::{Focus, Foreground, Notification, Overlay, ScreenEntry, Session, Store, EPOCH_START_MS};
pub use wallpaper::Wallpaper;
pub use widgets::reads::reads as widget_reads;

pub(crate) use widgets::inputs::value_text as widgets_value_text;
