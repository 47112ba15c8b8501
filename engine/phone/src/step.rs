//! One step: the system layer first (shade, overlays, keyboard, navigation keys), then a
//! hit-test of the screen; the interaction found is carried out; the clock advances.

use phoneworld_data::{truthy, Action, FinishStatus, Key};
use phoneworld_ui::interaction::{Interaction, SystemAction};
use phoneworld_ui::store::{Focus, Foreground, Overlay};
use serde_json::{json, Value};

use crate::device::{Device, StepResult};
use crate::outcome::Outcome;

/// A touch on a node: the interaction and the node's box.
pub(crate) struct Touched {
    pub(crate) interaction: Option<Interaction>,
    pub(crate) rect: (f32, f32, f32, f32),
}

impl Device {
    /// Applies one canonical action. Never fails: an action that cannot apply is a no-op
    /// whose reason is in the result's `note`.
    pub fn step(&mut self, action: &Action) -> StepResult {
        self.store.session.steps += 1;
        let mut out = Outcome::default();
        let cost = match action.check_limits() {
            Ok(()) => {
                self.dispatch(action, &mut out);
                self.config.action_cost_ms.max(action.duration_ms())
            }
            Err(why) => {
                out.noop(why);
                self.config.action_cost_ms
            }
        };
        self.advance_clock(cost, &mut out);
        self.settle_interruptions();
        self.invalidate();
        if std::mem::take(&mut self.reveal_pending) {
            self.reveal_focus();
        }
        let (package, screen) = self.foreground();
        StepResult {
            step: self.store.session.steps,
            action: action.kind().to_owned(),
            ok: out.note.is_none(),
            note: out.note,
            script_errors: out.errors,
            package,
            screen,
            clock_ms: self.store.session.clock_ms,
        }
    }

    pub(crate) fn in_bounds(&self, x: f64, y: f64) -> bool {
        x >= 0.0 && y >= 0.0 && x < f64::from(self.config.width) && y < f64::from(self.config.height)
    }

    /// What a touch at (x, y) reaches, when it is on the screen.
    /// The map under (x, y), also under a pin or button on it: a drag or double tap there
    /// moves the map.
    pub(crate) fn map_touch(&mut self, x: f64, y: f64) -> Option<Touched> {
        // A modal interruption keeps gestures from the map beneath; a heads-up banner over the
        // map takes its own swipe.
        if !self.in_bounds(x, y) || self.store.session.interruptions.shown.is_some() {
            return None;
        }
        let view = self.view();
        let hits = &view.composed.hits;
        let top = view.placed.hit_test(x as f32, y as f32).and_then(|i| view.placed.nodes[i].hit);
        if top.is_some_and(|h| matches!(hits[h as usize].tap, Some(Interaction::System(SystemAction::HeadsUp(_))))) {
            return None;
        }
        let node = view.placed.nodes.iter().rev().find(|n| {
            n.contains(x as f32, y as f32) && n.hit.is_some_and(|h| matches!(hits[h as usize].tap, Some(Interaction::Map { .. })))
        })?;
        let interaction = node.hit.and_then(|h| hits[h as usize].tap.clone());
        Some(Touched { interaction, rect: (node.x, node.y, node.w, node.h) })
    }

    fn touch(&mut self, x: f64, y: f64, long: bool) -> Option<Touched> {
        let view = self.view();
        let i = view.placed.hit_test(x as f32, y as f32)?;
        let node = &view.placed.nodes[i];
        let hit = &view.composed.hits[node.hit? as usize];
        let interaction = if long { hit.long_press.clone() } else { hit.tap.clone() };
        Some(Touched { interaction, rect: (node.x, node.y, node.w, node.h) })
    }

    fn dispatch(&mut self, action: &Action, out: &mut Outcome) {
        match action {
            Action::Tap { x, y } => self.tap(*x, *y, out),
            Action::DoubleTap { x, y } => {
                if let Some(Touched { interaction: Some(i @ Interaction::Map { .. }), rect }) = self.map_touch(*x, *y) {
                    return self.map_zoom_at(i, rect, *x, *y, out);
                }
                self.tap(*x, *y, out);
                self.invalidate();
                self.tap(*x, *y, out);
            }
            Action::LongPress { x, y, .. } => {
                if !self.in_bounds(*x, *y) {
                    return out.noop(format!("long press outside the screen at ({x}, {y})"));
                }
                match self.touch(*x, *y, true) {
                    Some(Touched { interaction: Some(i), rect }) => self.perform(i, rect, *x as f32, out),
                    Some(_) => out.noop(format!("nothing to long-press at ({x}, {y})")),
                    None => out.noop(format!("nothing to long-press at ({x}, {y})")),
                }
            }
            Action::Swipe { x1, y1, x2, y2, .. } => {
                if let Some(Touched { interaction: Some(i @ Interaction::Map { .. }), .. }) = self.map_touch(*x1, *y1) {
                    return self.map_pan(i, x2 - x1, y2 - y1, out);
                }
                self.swipe(*x1, *y1, *x2, *y2, out)
            }
            Action::Drag { x1, y1, x2, y2, .. } => {
                if !self.in_bounds(*x1, *y1) {
                    return out.noop(format!("drag starts outside the screen at ({x1}, {y1})"));
                }
                if let Some(Touched { interaction: Some(i @ Interaction::Map { .. }), .. }) = self.map_touch(*x1, *y1) {
                    return self.map_pan(i, x2 - x1, y2 - y1, out);
                }
                match self.touch(*x1, *y1, false) {
                    Some(Touched { interaction: Some(i @ Interaction::Slider { .. }), rect }) => self.perform(i, rect, *x2 as f32, out),
                    _ => self.swipe(*x1, *y1, *x2, *y2, out),
                }
            }
            Action::TypeText { .. } if self.store.session.interruptions.shown.is_some() => {
                out.noop("a dialog covers the screen: answer it first")
            }
            Action::TypeText { text, clear } => self.type_text(text, *clear, out),
            Action::Key { key } => self.key(*key, out),
            Action::OpenApp { app } => match self.catalog.find(app).map(|a| a.package().to_owned()) {
                Some(package) => self.launch(&package, out, 0),
                None => out.noop(format!("no installed app `{app}`")),
            },
            Action::CloseApp { app } => match self.catalog.find(app).map(|a| a.package().to_owned()) {
                Some(package) if self.store.session.tasks.contains_key(&package) => self.close_task(&package),
                Some(package) => out.noop(format!("{package} is not running")),
                None => out.noop(format!("no installed app `{app}`")),
            },
            Action::Wait { .. } => {}
            Action::Answer { text } => self.store.session.answer = Some(text.clone()),
            Action::Finish { status, text } => {
                self.store.session.finished = Some(match status {
                    FinishStatus::Success => "success".to_owned(),
                    FinishStatus::Infeasible => "infeasible".to_owned(),
                });
                if !text.is_empty() && self.store.session.answer.is_none() {
                    self.store.session.answer = Some(text.clone());
                }
            }
        }
    }

    fn tap(&mut self, x: f64, y: f64, out: &mut Outcome) {
        if !self.in_bounds(x, y) {
            return out.noop(format!("tap outside the screen at ({x}, {y})"));
        }
        match self.touch(x, y, false) {
            Some(Touched { interaction: Some(i), rect }) => self.perform(i, rect, x as f32, out),
            _ => out.noop(format!("nothing to tap at ({x}, {y})")),
        }
    }

    pub(crate) fn close_task(&mut self, package: &str) {
        let session = &mut self.store.session;
        session.tasks.remove(package);
        session.recents.retain(|p| p != package);
        if session.foreground == Foreground::App(package.to_owned()) {
            self.go_home();
        }
    }

    fn perform(&mut self, interaction: Interaction, rect: (f32, f32, f32, f32), x: f32, out: &mut Outcome) {
        match interaction {
            Interaction::Handler { app, handler, event } => {
                let event = self.event_json(&app, &event);
                self.run_handler(&app, &handler, event, out)
            }
            Interaction::Toggle { app, target, handler, event } => {
                let mut event = self.event_json(&app, &event);
                let now = !truthy(&self.read_target(&app, &target));
                self.set_and_notify(&app, &target, Value::Bool(now), handler, &mut event, out);
            }
            Interaction::Set { app, target, value, handler, event } => {
                let mut event = self.event_json(&app, &event);
                self.set_and_notify(&app, &target, value, handler, &mut event, out);
            }
            Interaction::Slider { app, target, min, max, step, handler, event } => {
                let mut event = self.event_json(&app, &event);
                let thumb = 20.0 * self.config.px_per_dp();
                let (rx, _, rw, _) = rect;
                let fraction = f64::from(((x - rx - thumb / 2.0) / (rw - thumb).max(1.0)).clamp(0.0, 1.0));
                let mut value = min + fraction * (max - min);
                if step > 0.0 {
                    value = min + ((value - min) / step).round() * step;
                }
                let value = value.clamp(min, max);
                let json_value = if value.fract() == 0.0 { json!(value as i64) } else { json!((value * 1000.0).round() / 1000.0) };
                self.set_and_notify(&app, &target, json_value, handler, &mut event, out);
            }
            Interaction::Focus { app, key, target, multiline, digits, on_change, on_submit, event } => {
                let event = self.event_json(&app, &event);
                let path = target.to_path_string();
                self.store.session.focus =
                    Some(Focus { app, key, path, multiline, on_change, on_submit, event, symbols: digits, shift: false });
                self.store.session.overlay = None;
                self.reveal_pending = true;
            }
            Interaction::TextMenu { app, key, target, on_change, event } => {
                let event = self.event_json(&app, &event);
                let (rx, ry, rw, _) = rect;
                let path = target.to_path_string();
                self.store.session.overlay = Some(Overlay::TextMenu { app, key, path, on_change, event, x: rx + rw / 2.0, y: ry });
            }
            Interaction::Map { .. } => out.noop("nothing to tap there on the map"),
            Interaction::Widget { key, value } => {
                let Some(app) = self.store.foreground_app().map(str::to_owned) else { return };
                if let Some(entry) = self.store.top_mut(&app) {
                    let slot = entry.widgets.entry(key).or_insert_with(|| json!({}));
                    if let (Value::Object(slot), Value::Object(new)) = (slot, value) {
                        slot.extend(new);
                    }
                }
            }
            Interaction::System(action) => self.system(action, out),
        }
    }

    pub(crate) fn set_and_notify(
        &mut self,
        app: &str,
        target: &phoneworld_ui::interaction::Target,
        value: Value,
        handler: Option<String>,
        event: &mut Value,
        out: &mut Outcome,
    ) {
        if let Err(e) = self.write_target(app, target, value.clone()) {
            return out.noop(format!("cannot write {}: {e}", target.to_path_string()));
        }
        if let Some(handler) = handler {
            if let Value::Object(map) = event {
                map.insert("value".into(), value);
            }
            self.run_handler(app, &handler, event.clone(), out);
        }
    }

    fn key(&mut self, key: Key, out: &mut Outcome) {
        if matches!(key, Key::Enter | Key::Delete) && self.store.session.interruptions.shown.is_some() {
            return out.noop("a dialog covers the screen: answer it first");
        }
        match key {
            Key::Back => self.system(SystemAction::Back, out),
            Key::Home => self.system(SystemAction::Home, out),
            Key::Recents => self.system(SystemAction::Recents, out),
            Key::Enter => self.submit(out),
            Key::Delete => self.system(SystemAction::Backspace, out),
            Key::Menu => out.noop("this phone has no menu key action here"),
        }
    }

    pub(crate) fn system(&mut self, action: SystemAction, out: &mut Outcome) {
        match action {
            SystemAction::Back => {
                if self.back_on_interruption() {
                    return;
                }
                let session = &mut self.store.session;
                if !session.close_top_layer() {
                    match session.foreground.clone() {
                        Foreground::Home => out.noop("already on the home screen"),
                        Foreground::Recents => self.go_home(),
                        Foreground::App(app) => self.pop_screen(&app, out, 0),
                    }
                }
            }
            SystemAction::Home => self.go_home(),
            SystemAction::Recents => {
                let session = &mut self.store.session;
                if session.foreground == Foreground::Recents {
                    match session.recents.first().cloned() {
                        Some(app) => self.launch(&app, out, 0),
                        None => self.go_home(),
                    }
                } else {
                    session.bring_to_front(Foreground::Recents);
                    session.recents_scroll = 0.0;
                }
            }
            SystemAction::Launch(app) | SystemAction::SwitchTo(app) => self.launch(&app, out, 0),
            SystemAction::CloseTask(app) => self.close_task(&app),
            SystemAction::ClearRecents => {
                self.store.session.tasks.clear();
                self.store.session.recents.clear();
                self.go_home();
            }
            SystemAction::LauncherPage(page) => self.store.session.launcher_page = page,
            SystemAction::TypeChar(c) => {
                let shift = self.store.session.focus.as_ref().is_some_and(|f| f.shift);
                self.edit_focused(|t| t.push(c), out);
                if shift {
                    if let Some(f) = self.store.session.focus.as_mut() {
                        f.shift = false;
                    }
                }
            }
            SystemAction::Backspace => self.edit_focused(
                |t| {
                    t.pop();
                },
                out,
            ),
            SystemAction::Shift => match self.store.session.focus.as_mut() {
                Some(f) => f.shift = !f.shift,
                None => out.noop("no text field has focus"),
            },
            SystemAction::Symbols => match self.store.session.focus.as_mut() {
                Some(f) => f.symbols = !f.symbols,
                None => out.noop("no text field has focus"),
            },
            SystemAction::Enter => self.submit(out),
            SystemAction::Choice(i) => {
                let Some(overlay) = self.store.session.overlay.take() else { return out.noop("no dialog is open") };
                let (app, choice) = match overlay {
                    Overlay::Dialog { app, buttons, .. } => (app, buttons.get(i).cloned()),
                    Overlay::Sheet { app, options, .. } => (app, options.get(i).cloned()),
                    Overlay::TextMenu { .. } => return,
                    Overlay::Share { app, text, item, targets } => return self.share_to(&app, targets.get(i), text, item, out),
                    Overlay::Payment { app, host, amount, merchant, note, handler, args } => {
                        return self.settle_payment(&app, &host, i == 1, amount, &merchant, &note, handler, args, out)
                    }
                    Overlay::ChatPicker { app, host, text } => return self.send_to_chat(&app, &host, i, &text, out),
                    Overlay::MiniAppMenu { app, host } => return self.mini_app_menu(&app, &host, i, out),
                };
                if let Some(handler) = choice.and_then(|c| c.handler.map(|h| (h, c.args))) {
                    let params = self.store.top(&app).map(|e| e.params.clone()).unwrap_or(Value::Null);
                    self.run_handler(&app, &handler.0, json!({ "args": handler.1, "params": params }), out);
                }
            }
            SystemAction::DismissOverlay => self.store.session.overlay = None,
            SystemAction::SnackbarAction => {
                let Some(snackbar) = self.store.session.snackbar.take() else { return out.noop("no snackbar") };
                if let Some(handler) = snackbar.action.and_then(|a| a.handler.map(|h| (h, a.args))) {
                    self.run_handler(&snackbar.app, &handler.0, json!({ "args": handler.1 }), out);
                }
            }
            SystemAction::Copy | SystemAction::Paste | SystemAction::Cut => self.text_menu(action, out),
            SystemAction::OpenNotification(id) => {
                let session = &mut self.store.session;
                let Some(pos) = session.notifications.iter().position(|n| n.id == id) else {
                    return out.noop("the notification is gone");
                };
                let n = session.notifications.remove(pos);
                session.shade_open = false;
                self.launch(&n.app, out, 0);
                if let Some(screen) = n.screen {
                    self.show_screen(&n.app, &screen, n.params, out, 0);
                }
            }
            SystemAction::NotificationAction(id, i) => {
                let session = &mut self.store.session;
                let Some(pos) = session.notifications.iter().position(|n| n.id == id) else {
                    return out.noop("the notification is gone");
                };
                let n = session.notifications.remove(pos);
                if let Some(handler) = n.actions.get(i).and_then(|a| a.handler.clone()) {
                    let args = n.actions[i].args.clone();
                    self.run_handler(&n.app, &handler, json!({ "args": args }), out);
                }
            }
            SystemAction::MiniAppMenu(app) => {
                let host = self.host_of(&app).unwrap_or_default();
                self.store.session.overlay = Some(Overlay::MiniAppMenu { app, host });
            }
            SystemAction::CloseMiniApp(app) => {
                let host = self.host_of(&app);
                self.close_task(&app);
                if let Some(host) = host {
                    self.launch(&host, out, 0);
                }
            }
            SystemAction::ClearNotifications => self.store.session.notifications.clear(),
            SystemAction::QuickToggle(key) => {
                let on = self.store.system.get(key).is_some_and(truthy);
                if let Value::Object(map) = &mut self.store.system {
                    map.insert(key.to_owned(), Value::Bool(!on));
                }
            }
            SystemAction::CloseShade => self.store.session.shade_open = false,
            SystemAction::HeadsUp(id) => self.system(SystemAction::OpenNotification(id), out),
            SystemAction::InterruptionButton(i) => self.answer_interruption(i, out),
            SystemAction::InterruptionOutside => self.outside_interruption(out),
        }
    }
}
