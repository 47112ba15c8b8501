//! The phone's own UI: status bar, navigation bar, launcher, recents, keyboard, notification
//! shade, and the overlays apps ask for (dialogs, sheets, toasts, snackbars, the text menu).

mod bars;
mod interruptions;
pub(crate) mod keyboard;
mod launcher;
mod overlays;
mod recents;
mod shade;

pub(crate) use bars::{nav_bar, status_bar};
pub(crate) use interruptions::{heads_up, interruption};
pub(crate) use keyboard::keyboard;
pub(crate) use launcher::launcher;
pub use launcher::{launcher_apps, APPS_PER_PAGE};
pub(crate) use overlays::{dialog_or_sheet, transient};
pub(crate) use recents::recents;
pub(crate) use shade::shade;

use crate::catalog::Catalog;
use crate::interaction::{Hit, Interaction, SystemAction};
use crate::store::Store;
use crate::theme::{Metrics, Theme};

pub(crate) const SYSTEM_UI: &str = "com.android.systemui";
pub const LAUNCHER: &str = "com.phoneworld.launcher";
pub(crate) const KEYBOARD: &str = "com.phoneworld.keyboard";

/// What the shell's builders read, and the hit table they fill.
pub(crate) struct Shell<'a> {
    pub(crate) theme: Theme,
    pub(crate) m: Metrics,
    pub(crate) store: &'a Store,
    pub(crate) catalog: &'a Catalog,
    pub(crate) hits: &'a mut Vec<Hit>,
    pub(crate) width: f32,
}

impl Shell<'_> {
    pub(crate) fn tap(&mut self, action: SystemAction) -> u32 {
        self.hits.push(Hit { tap: Some(Interaction::System(action)), long_press: None, scroll: None });
        (self.hits.len() - 1) as u32
    }

    pub(crate) fn hit(&mut self, hit: Hit) -> u32 {
        self.hits.push(hit);
        (self.hits.len() - 1) as u32
    }
}

pub(crate) use crate::kit::silence;

/// The status bar's clock: `21:05` (24-hour) or `9:05` (12-hour, without AM/PM as
/// Android's status bar shows it).
pub(crate) fn short_clock(now: &phoneworld_data::CivilTime, h24: bool) -> String {
    let hour = if h24 || now.hour == 12 {
        now.hour
    } else if now.hour == 0 {
        12
    } else {
        now.hour % 12
    };
    format!("{hour}:{:02}", now.minute)
}
