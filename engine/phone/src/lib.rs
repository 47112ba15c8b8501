//! The mock phone. A [`Device`] owns one store (all mutable state), runs app handlers in its
//! sandboxed Lua host, has the screen composed and laid out by `phoneworld-ui`, and answers
//! observations: frames, UI elements, uiautomator XML, state and hashes. [`Catalog`] holds the
//! installed apps, shared by every device of a process.

mod appearance;
mod device;
mod episode_options;
mod events;
mod gestures;
mod host_services;
mod interruption_flow;
pub mod limits;
mod map_gestures;
mod observe;
mod outcome;
mod snapshot;
mod step;
mod text_input;
mod view_memo;
mod views;

pub use appearance::{valid_names as appearance_names, Appearance, AppearanceError, ACCENTS, PROFILES, SCREENS};
pub use device::{Device, DeviceConfig, StepResult};
pub use episode_options::{EpisodeOptions, OptionsError, OPTION_NAMES};
pub use observe::{LaidOut, Reacts};
pub use phoneworld_script::{Program, ScriptError, ScriptHost, ScriptLimits, APPS_KEPT};
// What a device is made of, re-exported so its users need one crate.
pub use phoneworld_ui::{
    app_dirs, check_app, check_tree, interruptions, load_image, project_root, widget_reads, Baseline, Catalog, Focus, Foreground,
    ImageStore, InstalledApp, InterruptionKind, InterruptionSetting, LayoutProblem, MapStore, Notification, Overlay, PhoneError, Planned,
    ScreenEntry, Session, Store, Wallpaper, EPOCH_START_MS, MAX_DECODED_IMAGE_BYTES, MIN_TOUCH_DP,
};
