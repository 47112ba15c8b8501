//! The phone's UI, pure: [`compose`](compose::compose) turns a [`Store`] (all of a device's
//! state) and the [`Catalog`] of installed apps into the laid-out view tree of the screen and
//! its hit targets: app screens from their layouts, the widgets they are built of, and the
//! system shell (status and navigation bars, launcher, recents, shade, keyboard, dialogs and
//! sheets). Nothing here changes state or runs a handler; the device crate does that.
//! `check` reads an app folder the way the catalog and compose would and reports what is wrong.

pub mod accent;
pub mod builder;
pub mod catalog;
mod check;
pub mod compose;
mod error;
mod images;
pub mod interaction;
pub mod interruptions;
pub mod kit;
mod layout_check;
mod maps;
mod row_memo;
pub mod shell;
pub mod store;
pub mod theme;
pub mod wallpaper;
pub mod widgets;

pub use catalog::{app_dirs, project_root, Baseline, Catalog, InstalledApp};
pub use check::check_app;
pub use error::PhoneError;
pub use images::{load_image, ImageStore, MAX_DECODED_IMAGE_BYTES};
pub use interruptions::{InterruptionKind, InterruptionSetting, Planned};
pub use layout_check::{check_tree, LayoutProblem};
pub use maps::MapStore;
pub use row_memo::RowMemo;
pub use store::{Focus, Foreground, Notification, Overlay, ScreenEntry, Session, Store, EPOCH_START_MS};
pub use theme::MIN_TOUCH_DP;
pub use wallpaper::Wallpaper;
pub use widgets::reads::reads as widget_reads;
