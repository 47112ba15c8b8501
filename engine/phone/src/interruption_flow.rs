//! How seeded interruptions reach the user: each step, the pending ones whose time came are
//! shown (a heads-up notification, a permission dialog, a rating or update prompt, a
//! low-battery dialog), and the user's answer is recorded. The kinds and their state are in
//! [`phoneworld_ui::interruptions`].

use phoneworld_ui::interruptions::{Handled, HeadsUp, InterruptionKind, Pending, Permission, Planned, Shown, LOW_BATTERY_LEVEL};
use phoneworld_ui::store::Notification;
use serde_json::Value;

use crate::device::Device;

/// How long a heads-up banner stays over the screen (virtual ms), unless swiped away.
const HEADS_UP_MS: i64 = 6_000;

/// A notification another app might post: package, icon, title and text (`{name}` is a
/// contact's name).
const NOTIFICATIONS: [(&str, &str, &str, &str); 8] = [
    ("com.phoneworld.messages", "sms", "{name}", "{line}"),
    ("com.phoneworld.chat", "chat", "{name}", "{line}"),
    ("com.phoneworld.shop", "local_shipping", "Your order is out for delivery", "Arriving today by 8 PM. Tap to track your package."),
    ("com.phoneworld.food", "delivery_dining", "Your order is on its way", "Your courier is about 10 minutes away."),
    ("com.phoneworld.calendar", "event", "Team sync in 15 minutes", "10:30 – 11:00 · Conference room B"),
    ("com.phoneworld.email", "mail", "{name}", "Re: Weekend plans — Sounds good, see you there!"),
    ("com.phoneworld.bank", "account_balance", "Payment received", "{name} sent you $42.50."),
    ("com.phoneworld.weather", "umbrella", "Rain starting around 4 PM", "Bring an umbrella if you head out this afternoon."),
];

const LINES: [&str; 6] = [
    "Are we still on for tonight?",
    "Running 10 minutes late, sorry!",
    "Can you send me the photos from Saturday?",
    "Call me when you get a chance",
    "Happy to help with the move this weekend",
    "Did you see the game last night?",
];

const FALLBACK_NAMES: [&str; 4] = ["Aisha Khan", "Ben Carter", "Chloe Martin", "Diego Ramos"];

impl Device {
    /// Adds interruptions to this phone, their steps counted from now (the next action is
    /// step 1). Replaces nothing already pending.
    pub fn schedule_interruptions(&mut self, plan: &[Planned]) {
        let now = self.store.session.steps;
        let pending = &mut self.store_mut().session.interruptions.pending;
        pending.extend(plan.iter().map(|p| Pending { at_step: now + p.step, kind: p.kind, variant: p.variant }));
    }

    /// The modal interruption on screen, if any.
    pub fn shown_interruption(&self) -> Option<&Shown> {
        self.store.session.interruptions.shown.as_ref()
    }

    fn label(&self, package: &str) -> String {
        self.catalog.get(package).map_or_else(|| package.to_owned(), |a| a.label().to_owned())
    }

    /// After each step: drops what no longer applies, then lets at most one due interruption
    /// arrive.
    pub(crate) fn settle_interruptions(&mut self) {
        let step = self.store.session.steps;
        let now = self.store.session.clock_ms;
        let foreground = self.store.foreground_app().map(str::to_owned);
        let notification_ids: Vec<u64> = self.store.session.notifications.iter().map(|n| n.id).collect();
        let shade_open = self.store.session.shade_open;
        let state = &mut self.store.session.interruptions;
        if let Some(shown) = &state.shown {
            if let Some(app) = shown.app() {
                // An app's dialog goes away with the app.
                if foreground.as_deref() != Some(app) {
                    let app = app.to_owned();
                    let kind = shown.kind();
                    state.shown = None;
                    state.log.push(Handled { kind, app: Some(app), step, choice: "left_app".into() });
                }
            }
        }
        if let Some(h) = &state.heads_up {
            if h.until_ms <= now || shade_open || !notification_ids.contains(&h.notification) {
                state.heads_up = None;
            }
        }
        if state.shown.is_some() || state.pending.is_empty() || shade_open {
            return;
        }
        let due: Vec<usize> = state.pending.iter().enumerate().filter(|(_, p)| p.at_step <= step).map(|(i, _)| i).collect();
        for i in due {
            let p = self.store.session.interruptions.pending[i].clone();
            match self.arrive(&p, foreground.as_deref()) {
                Arrival::Wait => continue,
                Arrival::Drop => {
                    self.store.session.interruptions.pending.remove(i);
                    return self.settle_interruptions();
                }
                Arrival::Arrived => {
                    self.store.session.interruptions.pending.remove(i);
                    return;
                }
            }
        }
    }

    fn arrive(&mut self, p: &Pending, foreground: Option<&str>) -> Arrival {
        let step = self.store.session.steps;
        let shown = match p.kind {
            InterruptionKind::Notification => return self.post_notification(p.variant, foreground),
            InterruptionKind::LowBattery => Shown::LowBattery { level: LOW_BATTERY_LEVEL },
            // App prompts need an app in front (and a launcher never asks).
            _ if foreground.is_none() => return Arrival::Wait,
            InterruptionKind::Permission => {
                let app = foreground.unwrap_or_default().to_owned();
                let permission = Permission::of(&app);
                if self.store.session.interruptions.permissions.contains_key(&format!("{app}/{}", permission.name())) {
                    // Asked before: Android does not ask again.
                    return Arrival::Drop;
                }
                Shown::Permission { app, permission }
            }
            InterruptionKind::RateApp => Shown::RateApp { app: foreground.unwrap_or_default().to_owned() },
            InterruptionKind::AppUpdate => Shown::AppUpdate {
                app: foreground.unwrap_or_default().to_owned(),
                version: format!("{}.{}.{}", 2 + p.variant % 4, (p.variant >> 4) % 20, (p.variant >> 9) % 10),
                size_mb: 8 + (p.variant >> 13) % 40,
            },
        };
        let state = &mut self.store.session.interruptions;
        if let Shown::LowBattery { level } = shown {
            state.battery_level = Some(level);
        }
        state.log.push(Handled { kind: p.kind, app: shown.app().map(str::to_owned), step, choice: String::new() });
        state.shown = Some(shown);
        Arrival::Arrived
    }

    /// Posts a notification of another installed app than the one in front.
    fn post_notification(&mut self, variant: u32, foreground: Option<&str>) -> Arrival {
        let candidates: Vec<_> =
            NOTIFICATIONS.iter().filter(|(pkg, ..)| self.catalog.get(pkg).is_some() && Some(*pkg) != foreground).collect();
        if candidates.is_empty() {
            return Arrival::Drop;
        }
        let v = variant as usize;
        let (app, icon, title, text) = candidates[v % candidates.len()];
        let names: Vec<String> = self
            .catalog
            .get("com.phoneworld.contacts")
            .and_then(|a| a.content.get("people").and_then(Value::as_array).cloned())
            .map(|people| people.iter().filter_map(|p| p.get("name").and_then(Value::as_str).map(str::to_owned)).collect())
            .filter(|n: &Vec<String>| !n.is_empty())
            .unwrap_or_else(|| FALLBACK_NAMES.iter().map(|s| (*s).to_owned()).collect());
        let name = &names[(v / 8) % names.len()];
        let line = LINES[(v / 64) % LINES.len()];
        let fill = |s: &str| s.replace("{name}", name).replace("{line}", line);
        let session = &mut self.store.session;
        let id = session.next_notification_id;
        session.next_notification_id += 1;
        session.notifications.push(Notification {
            id,
            app: (*app).to_owned(),
            title: fill(title),
            text: fill(text),
            icon: (*icon).to_owned(),
            screen: None,
            params: Value::Object(Default::default()),
            posted_ms: session.clock_ms,
            actions: Vec::new(),
        });
        let until_ms = session.clock_ms + HEADS_UP_MS;
        let step = session.steps;
        let state = &mut session.interruptions;
        state.heads_up = Some(HeadsUp { notification: id, until_ms });
        state.log.push(Handled { kind: InterruptionKind::Notification, app: Some((*app).to_owned()), step, choice: "posted".into() });
        Arrival::Arrived
    }

    /// A button of the shown interruption was tapped.
    pub(crate) fn answer_interruption(&mut self, index: usize, out: &mut crate::outcome::Outcome) {
        let Some(shown) = self.store.session.interruptions.shown.clone() else { return out.noop("no dialog is open") };
        let Some(button) = shown.buttons().into_iter().nth(index) else { return out.noop("no such button") };
        self.end_interruption(&shown, &button.choice);
        let state = &mut self.store.session.interruptions;
        match (&shown, button.choice.as_str()) {
            (Shown::Permission { app, permission }, choice) => {
                state.permissions.insert(format!("{app}/{}", permission.name()), choice.to_owned());
            }
            (Shown::LowBattery { .. }, "battery_saver") => state.battery_saver = true,
            _ => {}
        }
        let toast = match (&shown, button.choice.as_str()) {
            (Shown::RateApp { app }, c) if c.starts_with("rated_") => Some((app.clone(), "Thanks for your feedback!".to_owned())),
            (Shown::AppUpdate { app, .. }, "updated") => Some((app.clone(), format!("{} is up to date", self.label(app)))),
            _ => None,
        };
        if let Some((app, text)) = toast {
            let until_ms = self.store.session.clock_ms + 2_500;
            self.store.session.toast = Some(phoneworld_ui::store::Transient { app, text, action: None, until_ms });
        }
    }

    /// Back on a modal interruption: every kind here lets Back dismiss it (a permission
    /// request dismissed so counts as denied). True if there was one.
    pub(crate) fn back_on_interruption(&mut self) -> bool {
        let Some(shown) = self.store.session.interruptions.shown.clone() else { return false };
        self.end_interruption(&shown, "back");
        if let Shown::Permission { app, permission } = &shown {
            self.store.session.interruptions.permissions.insert(format!("{app}/{}", permission.name()), "denied".into());
        }
        true
    }

    /// A tap on the dimmed screen around a modal interruption.
    pub(crate) fn outside_interruption(&mut self, out: &mut crate::outcome::Outcome) {
        let Some(shown) = self.store.session.interruptions.shown.clone() else { return out.noop("no dialog is open") };
        if shown.cancel_on_outside() {
            self.end_interruption(&shown, "outside");
        } else {
            out.noop("the dialog waits for an answer; a tap outside it does nothing");
        }
    }

    /// Swiping the heads-up banner away (the notification stays in the shade).
    pub(crate) fn dismiss_heads_up(&mut self) {
        let step = self.store.session.steps;
        let state = &mut self.store.session.interruptions;
        if state.heads_up.take().is_some() {
            state.log.push(Handled { kind: InterruptionKind::Notification, app: None, step, choice: "swiped".into() });
        }
    }

    fn end_interruption(&mut self, shown: &Shown, choice: &str) {
        let step = self.store.session.steps;
        let state = &mut self.store.session.interruptions;
        state.shown = None;
        state.log.push(Handled { kind: shown.kind(), app: shown.app().map(str::to_owned), step, choice: choice.to_owned() });
    }
}

enum Arrival {
    /// It cannot arrive yet (no app in front for an app's prompt).
    Wait,
    /// It no longer applies (asked before, no app to post from).
    Drop,
    Arrived,
}
