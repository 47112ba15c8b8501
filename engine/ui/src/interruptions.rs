//! Seeded interruptions: what a real phone throws at a user mid-task. A heads-up notification
//! from another app, a permission dialog on an app's first use of a feature, a rate-this-app
//! prompt, an app-update sheet and a low-battery dialog. An episode opts in with an
//! [`InterruptionSetting`]; [`InterruptionSetting::plan`] draws from the episode seed which
//! kinds arrive and after which step. Pending and shown interruptions live in the session, so
//! snapshots, forks and hashes carry them like any other phone state; none of them touches app
//! data (permission grants and Battery Saver are kept here, not in `system`).

use std::collections::BTreeMap;
use std::fmt;

use phoneworld_data::Rng;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The kinds, in the order `plan` draws them from.
pub const KINDS: [InterruptionKind; 5] = [
    InterruptionKind::Notification,
    InterruptionKind::Permission,
    InterruptionKind::RateApp,
    InterruptionKind::AppUpdate,
    InterruptionKind::LowBattery,
];

/// The battery level the low-battery dialog announces.
pub const LOW_BATTERY_LEVEL: u8 = 15;
/// At most this many interruptions per episode.
pub const MAX_INTERRUPTIONS: u32 = 5;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterruptionKind {
    /// A notification from another app, shown as a heads-up banner, then kept in the shade.
    Notification,
    /// "Allow Maps to access this device's location?" for the app in front.
    Permission,
    /// "Enjoying Notes?" with five stars and Not now.
    RateApp,
    /// A bottom sheet: "Update available", Update / Not now.
    AppUpdate,
    /// "Battery low", Battery Saver / Dismiss.
    LowBattery,
}

impl InterruptionKind {
    pub fn name(self) -> &'static str {
        match self {
            InterruptionKind::Notification => "notification",
            InterruptionKind::Permission => "permission",
            InterruptionKind::RateApp => "rate_app",
            InterruptionKind::AppUpdate => "app_update",
            InterruptionKind::LowBattery => "low_battery",
        }
    }

    pub fn parse(name: &str) -> Option<InterruptionKind> {
        KINDS.into_iter().find(|k| k.name() == name)
    }
}

/// A bad `--interruptions` / `interruptions` option.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("interruptions `{text}`: {message} (expected off, on, a count 0..={MAX_INTERRUPTIONS}, or kind@step,... with kinds notification, permission, rate_app, app_update, low_battery)")]
pub struct InterruptionSettingError {
    pub text: String,
    pub message: String,
}

/// One interruption of an episode's plan: after which step (counted from the episode's first
/// action, 1-based) it arrives, and a seeded variant that picks its content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Planned {
    pub step: u64,
    pub kind: InterruptionKind,
    #[serde(default)]
    pub variant: u32,
}

/// Whether and how an episode is interrupted.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum InterruptionSetting {
    #[default]
    Off,
    /// One or two interruptions, drawn from the seed.
    On,
    /// Exactly this many, drawn from the seed.
    Count(u32),
    /// These kinds after these steps (content variants still drawn from the seed).
    Fixed(Vec<(u64, InterruptionKind)>),
}

impl InterruptionSetting {
    /// `off`, `on`, a count, or `kind@step` items separated by commas (`permission@1,low_battery@4`).
    pub fn parse(text: &str) -> Result<InterruptionSetting, InterruptionSettingError> {
        let t = text.trim();
        let err = |message: String| InterruptionSettingError { text: text.to_owned(), message };
        match t {
            "off" | "false" | "none" | "0" => return Ok(InterruptionSetting::Off),
            "on" | "true" => return Ok(InterruptionSetting::On),
            _ => {}
        }
        if let Ok(n) = t.parse::<u32>() {
            if n > MAX_INTERRUPTIONS {
                return Err(err(format!("{n} is more than {MAX_INTERRUPTIONS} per episode")));
            }
            return Ok(InterruptionSetting::Count(n));
        }
        let mut fixed = Vec::new();
        for (i, item) in t.split(',').enumerate() {
            let (kind, step) = item.trim().split_once('@').ok_or_else(|| err(format!("item {} `{item}` has no @step", i + 1)))?;
            let kind = InterruptionKind::parse(kind.trim()).ok_or_else(|| err(format!("item {}: unknown kind `{kind}`", i + 1)))?;
            let step: u64 = step.trim().parse().map_err(|_| err(format!("item {}: step `{step}` is not a whole number", i + 1)))?;
            if step == 0 {
                return Err(err(format!("item {}: steps count from 1 (after the first action)", i + 1)));
            }
            fixed.push((step, kind));
        }
        if fixed.len() > MAX_INTERRUPTIONS as usize {
            return Err(err(format!("{} items is more than {MAX_INTERRUPTIONS} per episode", fixed.len())));
        }
        Ok(InterruptionSetting::Fixed(fixed))
    }

    pub fn is_off(&self) -> bool {
        matches!(self, InterruptionSetting::Off | InterruptionSetting::Count(0))
    }

    /// Which interruptions arrive after which step, for an episode of `seed` whose step
    /// budget is `max_steps`: they arrive within the first half of the budget, so a task
    /// is interrupted while it is being done. Deterministic in (setting, seed, max_steps),
    /// and independent of the phone's own RNG (apps see the same random numbers either way).
    pub fn plan(&self, seed: u64, max_steps: u32) -> Vec<Planned> {
        let mut rng = Rng::new(seed ^ 0x696e_7465_7272_7570);
        let window = u64::from((max_steps / 2).max(1));
        let count = match self {
            InterruptionSetting::Off => return Vec::new(),
            InterruptionSetting::On => 1 + rng.below(2) as u32,
            InterruptionSetting::Count(n) => (*n).min(MAX_INTERRUPTIONS),
            InterruptionSetting::Fixed(items) => {
                let mut plan: Vec<Planned> =
                    items.iter().map(|&(step, kind)| Planned { step, kind, variant: rng.next_u64() as u32 }).collect();
                plan.sort_by_key(|p| p.step);
                return plan;
            }
        };
        let mut kinds = KINDS.to_vec();
        let mut plan = Vec::new();
        for _ in 0..count {
            // Distinct kinds while there are any left.
            let kind = if kinds.is_empty() { KINDS[rng.below(KINDS.len())] } else { kinds.remove(rng.below(kinds.len())) };
            let step = 1 + rng.below(window as usize) as u64;
            plan.push(Planned { step, kind, variant: rng.next_u64() as u32 });
        }
        plan.sort_by_key(|p| p.step);
        plan
    }
}

impl fmt::Display for InterruptionSetting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InterruptionSetting::Off => f.write_str("off"),
            InterruptionSetting::On => f.write_str("on"),
            InterruptionSetting::Count(n) => write!(f, "{n}"),
            InterruptionSetting::Fixed(items) => {
                let parts: Vec<String> = items.iter().map(|(s, k)| format!("{}@{s}", k.name())).collect();
                f.write_str(&parts.join(","))
            }
        }
    }
}

/// Recorded as its text (`"on"`, `"2"`, `"permission@1,low_battery@4"`), as `--interruptions`
/// and `reset(options={"interruptions": ...})` take it.
impl Serialize for InterruptionSetting {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for InterruptionSetting {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        InterruptionSetting::from_json(&value).map_err(serde::de::Error::custom)
    }
}

impl InterruptionSetting {
    /// From JSON: a string as `parse` takes it, a whole number (a count), a bool (on/off) or
    /// null (off).
    pub fn from_json(value: &Value) -> Result<InterruptionSetting, InterruptionSettingError> {
        match value {
            Value::Null | Value::Bool(false) => Ok(InterruptionSetting::Off),
            Value::Bool(true) => Ok(InterruptionSetting::On),
            Value::String(text) => InterruptionSetting::parse(text),
            Value::Number(n) if n.is_u64() => InterruptionSetting::parse(&n.to_string()),
            other => {
                Err(InterruptionSettingError { text: other.to_string(), message: "interruptions must be text, a count or a bool".into() })
            }
        }
    }
}

/// A runtime permission an app asks for on its first use of a feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Permission {
    Location,
    Contacts,
    Photos,
    Notifications,
}

impl Permission {
    /// What the app in front would ask for first.
    pub fn of(package: &str) -> Permission {
        let name = package.rsplit('.').next().unwrap_or(package);
        match name {
            "maps" | "weather" | "food" | "bike" => Permission::Location,
            "contacts" | "messages" | "phone" | "email" => Permission::Contacts,
            "gallery" => Permission::Photos,
            _ => Permission::Notifications,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Permission::Location => "location",
            Permission::Contacts => "contacts",
            Permission::Photos => "photos",
            Permission::Notifications => "notifications",
        }
    }

    pub fn icon(self) -> &'static str {
        match self {
            Permission::Location => "location_on",
            Permission::Contacts => "contacts",
            Permission::Photos => "photo_library",
            Permission::Notifications => "notifications",
        }
    }

    pub fn question(self, label: &str) -> String {
        match self {
            Permission::Location => format!("Allow {label} to access this device's location?"),
            Permission::Contacts => format!("Allow {label} to access your contacts?"),
            Permission::Photos => format!("Allow {label} to access photos and videos on this device?"),
            Permission::Notifications => format!("Allow {label} to send you notifications?"),
        }
    }
}

/// A modal interruption on screen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Shown {
    Permission { app: String, permission: Permission },
    RateApp { app: String },
    AppUpdate { app: String, version: String, size_mb: u32 },
    LowBattery { level: u8 },
}

impl Shown {
    pub fn kind(&self) -> InterruptionKind {
        match self {
            Shown::Permission { .. } => InterruptionKind::Permission,
            Shown::RateApp { .. } => InterruptionKind::RateApp,
            Shown::AppUpdate { .. } => InterruptionKind::AppUpdate,
            Shown::LowBattery { .. } => InterruptionKind::LowBattery,
        }
    }

    /// The app it belongs to (it goes away when that app leaves the screen); `None` for the
    /// system's own low-battery dialog.
    pub fn app(&self) -> Option<&str> {
        match self {
            Shown::Permission { app, .. } | Shown::RateApp { app } | Shown::AppUpdate { app, .. } => Some(app),
            Shown::LowBattery { .. } => None,
        }
    }

    /// A tap outside it dismisses it (a sheet or a plain alert), or is ignored (the
    /// permission dialog and the review card wait for an answer).
    pub fn cancel_on_outside(&self) -> bool {
        matches!(self, Shown::AppUpdate { .. } | Shown::LowBattery { .. })
    }

    /// Its buttons in screen order: text, resource id, and the choice recorded when tapped.
    pub fn buttons(&self) -> Vec<Button> {
        let b = |text: &str, id: &str, choice: &str| Button { text: text.to_owned(), id: id.to_owned(), choice: choice.to_owned() };
        const PC: &str = "com.android.permissioncontroller:id/";
        const VENDING: &str = "com.android.vending:id/";
        match self {
            Shown::Permission { permission: Permission::Location, .. } => vec![
                b("While using the app", &format!("{PC}permission_allow_foreground_only_button"), "while_using"),
                b("Only this time", &format!("{PC}permission_allow_one_time_button"), "once"),
                b("Don't allow", &format!("{PC}permission_deny_button"), "denied"),
            ],
            Shown::Permission { .. } => vec![
                b("Allow", &format!("{PC}permission_allow_button"), "allowed"),
                b("Don't allow", &format!("{PC}permission_deny_button"), "denied"),
            ],
            Shown::RateApp { .. } => {
                let mut v: Vec<Button> = (1..=5)
                    .map(|n| b(&format!("{n} star{}", if n == 1 { "" } else { "s" }), &format!("{VENDING}star_{n}"), &format!("rated_{n}")))
                    .collect();
                v.push(b("Not now", &format!("{VENDING}not_now_button"), "not_now"));
                v
            }
            Shown::AppUpdate { .. } => {
                vec![
                    b("Not now", &format!("{VENDING}not_now_button"), "not_now"),
                    b("Update", &format!("{VENDING}update_button"), "updated"),
                ]
            }
            Shown::LowBattery { .. } => {
                vec![b("Dismiss", "android:id/button2", "dismissed"), b("Battery Saver", "android:id/button1", "battery_saver")]
            }
        }
    }
}

/// A button of a modal interruption.
#[derive(Debug, Clone, PartialEq)]
pub struct Button {
    pub text: String,
    pub id: String,
    pub choice: String,
}

/// A pending interruption: it arrives once the session's step count reaches `at_step`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pending {
    pub at_step: u64,
    pub kind: InterruptionKind,
    pub variant: u32,
}

/// How an interruption went: what arrived, after which step, and what the user chose
/// (`denied`, `not_now`, `back`, `outside`, `left_app`, `swiped`, `expired`, ...).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Handled {
    pub kind: InterruptionKind,
    pub app: Option<String>,
    pub step: u64,
    pub choice: String,
}

/// The heads-up banner of a just-posted notification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeadsUp {
    pub notification: u64,
    pub until_ms: i64,
}

/// Interruption state of a session.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Interruptions {
    /// Not yet arrived, in plan order.
    pub pending: Vec<Pending>,
    /// The modal one on screen.
    pub shown: Option<Shown>,
    pub heads_up: Option<HeadsUp>,
    /// Permission answers by `package/permission` (`while_using`, `once`, `allowed`, `denied`).
    pub permissions: BTreeMap<String, String>,
    /// Set by the low-battery dialog: the status bar shows at most this level.
    pub battery_level: Option<u8>,
    pub battery_saver: bool,
    /// Every interruption that arrived, and how it ended.
    pub log: Vec<Handled>,
}

impl Interruptions {
    pub fn is_empty(&self) -> bool {
        *self == Interruptions::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_parse_and_print_back() {
        for text in ["off", "on", "3", "permission@1,low_battery@4"] {
            assert_eq!(InterruptionSetting::parse(text).unwrap().to_string(), text);
        }
        let e = InterruptionSetting::parse("popup@2").unwrap_err();
        assert!(e.to_string().contains("unknown kind `popup`"), "{e}");
        assert!(InterruptionSetting::parse("9").unwrap_err().to_string().contains("more than 5"));
        assert!(InterruptionSetting::parse("rate_app@0").unwrap_err().to_string().contains("count from 1"));
    }

    #[test]
    fn plans_are_seeded_and_within_the_first_half() {
        let on = InterruptionSetting::On;
        assert_eq!(on.plan(7, 30), on.plan(7, 30));
        let plans: Vec<Vec<Planned>> = (0..50).map(|s| on.plan(s, 30)).collect();
        assert!(plans.iter().all(|p| (1..=2).contains(&p.len()) && p.iter().all(|i| (1..=15).contains(&i.step))));
        assert!(plans.iter().any(|p| p.len() == 1) && plans.iter().any(|p| p.len() == 2));
        for kind in KINDS {
            assert!(plans.iter().flatten().any(|p| p.kind == kind), "{kind:?} never drawn");
        }
        assert!(InterruptionSetting::Off.plan(1, 30).is_empty());
        assert_eq!(InterruptionSetting::Count(5).plan(3, 2).len(), 5);
    }
}
