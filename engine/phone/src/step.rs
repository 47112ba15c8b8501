//! One step: the system layer first (shade, overlays, keyboard, navigation keys), then a
//! hit-test of the screen; the interaction found is carried out; the clock advances.

use phoneworld_data::{truthy, Action, FinishStatus, Key};
use serde_json::{json, Value};

use crate::compose::bar_heights;
use crate::device::{Device, StepResult};
use crate::events::Outcome;
use crate::interaction::{Interaction, SystemAction};
use crate::shell::APPS_PER_PAGE;
use crate::store::{Focus, Foreground, Overlay};
use crate::widgets_value_text;

/// A touch on a node: the interaction and the node's box.
struct Touched {
    interaction: Option<Interaction>,
    rect: (f32, f32, f32, f32),
}

impl Device {
    /// Applies one canonical action. Never fails: an action that cannot apply is a no-op
    /// whose reason is in the result's `note`.
    pub fn step(&mut self, action: &Action) -> StepResult {
        self.store.session.steps += 1;
        let mut out = Outcome::default();
        self.dispatch(action, &mut out);
        let cost = self.config.action_cost_ms.max(action.duration_ms());
        self.advance_clock(cost, &mut out);
        self.invalidate();
        self.reveal_focus();
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

    /// Scrolls the focused field into view above the keyboard (Android's adjustResize plus
    /// requestRectangleOnScreen): the innermost scroll container around it moves just enough.
    fn reveal_focus(&mut self) {
        let Some(key) = self.store.session.focus.as_ref().map(|f| f.key.clone()) else { return };
        let margin = 8.0 * self.config.px_per_dp();
        let view = self.view();
        let placed = &view.placed;
        let hits = &view.composed.hits;
        let field = placed
            .nodes
            .iter()
            .position(|n| n.hit.is_some_and(|h| matches!(&hits[h as usize].tap, Some(Interaction::Focus { key: k, .. }) if *k == key)));
        let Some(field) = field else { return };
        let mut ancestor = placed.nodes[field].parent;
        while let Some(a) = ancestor {
            if placed.nodes[a].scrollable {
                break;
            }
            ancestor = placed.nodes[a].parent;
        }
        let Some(container) = ancestor else { return };
        let (f, c) = (&placed.nodes[field], &placed.nodes[container]);
        let delta = if f.y + f.h + margin > c.y + c.h {
            (f.y + f.h + margin) - (c.y + c.h)
        } else if f.y - margin < c.y {
            (f.y - margin) - c.y
        } else {
            return;
        };
        let max = (c.content_height - c.h).max(0.0);
        let next = (c.scroll_y + delta).clamp(0.0, max);
        let Some(info) = c.hit.and_then(|h| hits[h as usize].scroll.clone()) else { return };
        if (next - c.scroll_y).abs() < 0.5 {
            return;
        }
        if let Some(entry) = self.store.top_mut(&info.app) {
            entry.scroll.insert(info.key, next);
        }
        self.invalidate();
    }

    fn in_bounds(&self, x: f64, y: f64) -> bool {
        x >= 0.0 && y >= 0.0 && x < f64::from(self.config.width) && y < f64::from(self.config.height)
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
            Action::Swipe { x1, y1, x2, y2, .. } => self.swipe(*x1, *y1, *x2, *y2, out),
            Action::Drag { x1, y1, x2, y2, .. } => {
                if !self.in_bounds(*x1, *y1) {
                    return out.noop(format!("drag starts outside the screen at ({x1}, {y1})"));
                }
                match self.touch(*x1, *y1, false) {
                    Some(Touched { interaction: Some(i @ Interaction::Slider { .. }), rect }) => self.perform(i, rect, *x2 as f32, out),
                    _ => self.swipe(*x1, *y1, *x2, *y2, out),
                }
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

    fn close_task(&mut self, package: &str) {
        let session = &mut self.store.session;
        session.tasks.remove(package);
        session.recents.retain(|p| p != package);
        if session.foreground == Foreground::App(package.to_owned()) {
            self.go_home();
        }
    }

    fn perform(&mut self, interaction: Interaction, rect: (f32, f32, f32, f32), x: f32, out: &mut Outcome) {
        match interaction {
            Interaction::Handler { app, handler, event } => self.run_handler(&app, &handler, event, out),
            Interaction::Toggle { app, target, handler, mut event } => {
                let now = !truthy(&self.read_target(&app, &target));
                self.set_and_notify(&app, &target, Value::Bool(now), handler, &mut event, out);
            }
            Interaction::Set { app, target, value, handler, mut event } => {
                self.set_and_notify(&app, &target, value, handler, &mut event, out);
            }
            Interaction::Slider { app, target, min, max, step, handler, mut event } => {
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
            Interaction::Focus { app, key, target, multiline, on_change, on_submit, event } => {
                let path = target.to_path_string();
                self.store.session.focus =
                    Some(Focus { app, key, path, multiline, on_change, on_submit, event, symbols: false, shift: false });
                self.store.session.overlay = None;
            }
            Interaction::TextMenu { app, key, target } => {
                let (rx, ry, rw, _) = rect;
                self.store.session.overlay = Some(Overlay::TextMenu { app, key, path: target.to_path_string(), x: rx + rw / 2.0, y: ry });
            }
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

    fn set_and_notify(
        &mut self,
        app: &str,
        target: &crate::interaction::Target,
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

    fn swipe(&mut self, x1: f64, y1: f64, x2: f64, y2: f64, out: &mut Outcome) {
        if !self.in_bounds(x1, y1) {
            return out.noop(format!("swipe starts outside the screen at ({x1}, {y1})"));
        }
        let m = crate::compose::metrics(&self.store, self.config.px_per_dp());
        let (status_h, _) = bar_heights(&m);
        let (dx, dy) = (x2 - x1, y2 - y1);
        let session = &mut self.store.session;
        if !session.shade_open && y1 <= f64::from(status_h) && dy > 100.0 {
            session.shade_open = true;
            session.focus = None;
            return;
        }
        if session.shade_open && dy < -100.0 {
            session.shade_open = false;
            return;
        }
        if session.foreground == Foreground::Home && dx.abs() > dy.abs() && dx.abs() > 100.0 {
            let pages = crate::shell::launcher_apps(&self.catalog).len().div_ceil(APPS_PER_PAGE).max(1);
            let page = session.launcher_page.min(pages - 1);
            let next = if dx < 0.0 { (page + 1).min(pages - 1) } else { page.saturating_sub(1) };
            if next == page {
                return out.noop("no other launcher page that way");
            }
            session.launcher_page = next;
            return;
        }
        self.scroll(x1, y1, (y1 - y2) as f32, out);
    }

    fn scroll(&mut self, x: f64, y: f64, delta: f32, out: &mut Outcome) {
        let view = self.view();
        let Some(i) = view.placed.scroll_at(x as f32, y as f32) else {
            return out.noop(format!("nothing to scroll at ({x}, {y})"));
        };
        let node = &view.placed.nodes[i];
        let info = node.hit.and_then(|h| view.composed.hits[h as usize].scroll.clone());
        let Some(info) = info else { return out.noop(format!("nothing to scroll at ({x}, {y})")) };
        let max = (node.content_height - node.h).max(0.0);
        let current = node.scroll_y;
        let next = (current + delta).clamp(0.0, max);
        if (next - current).abs() < 0.5 {
            return out.noop(if max <= 0.0 {
                "the list fits on screen; nothing to scroll".to_owned()
            } else {
                "already scrolled to the end".to_owned()
            });
        }
        if info.key == "recents" {
            self.store.session.recents_scroll = next;
            return;
        }
        if info.key == "sheet" {
            self.store.session.sheet_scroll = next;
            return;
        }
        if let Some(entry) = self.store.top_mut(&info.app) {
            entry.scroll.insert(info.key.clone(), next);
        }
        if next >= max - 0.5 {
            if let Some(handler) = info.on_end {
                self.run_handler(&info.app, &handler, info.event, out);
            }
        }
    }

    fn focused_text(&self, focus: &Focus) -> (Option<crate::interaction::Target>, String) {
        let target = crate::interaction::Target::parse(&focus.path);
        let text = target.as_ref().map(|t| widgets_value_text(&self.read_target(&focus.app, t))).unwrap_or_default();
        (target, text)
    }

    /// Sets the focused field's text and runs its `on_change`.
    fn edit_focused(&mut self, edit: impl FnOnce(&mut String), out: &mut Outcome) {
        let Some(focus) = self.store.session.focus.clone() else {
            return out.noop("no text field has focus");
        };
        let (Some(target), mut text) = self.focused_text(&focus) else { return out.noop("the focused field has no value path") };
        edit(&mut text);
        let mut event = focus.event.clone();
        self.set_and_notify(&focus.app, &target, Value::String(text), focus.on_change.clone(), &mut event, out);
    }

    fn type_text(&mut self, text: &str, clear: bool, out: &mut Outcome) {
        if self.store.session.focus.is_none() {
            return out.noop("no text field has focus");
        }
        self.edit_focused(
            |t| {
                if clear {
                    t.clear();
                }
                t.push_str(text);
            },
            out,
        );
    }

    fn submit(&mut self, out: &mut Outcome) {
        let Some(focus) = self.store.session.focus.clone() else { return out.noop("no text field has focus") };
        if focus.multiline {
            return self.edit_focused(|t| t.push('\n'), out);
        }
        let (_, text) = self.focused_text(&focus);
        self.store.session.focus = None;
        if let Some(handler) = focus.on_submit {
            let mut event = focus.event;
            if let Value::Object(map) = &mut event {
                map.insert("value".into(), Value::String(text));
            }
            self.run_handler(&focus.app, &handler, event, out);
        }
    }

    fn key(&mut self, key: Key, out: &mut Outcome) {
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
                let session = &mut self.store.session;
                if session.overlay.is_some() {
                    session.overlay = None;
                } else if session.shade_open {
                    session.shade_open = false;
                } else if session.focus.is_some() {
                    session.focus = None;
                } else {
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
                session.focus = None;
                session.overlay = None;
                session.shade_open = false;
                if session.foreground == Foreground::Recents {
                    match session.recents.first().cloned() {
                        Some(app) => self.launch(&app, out, 0),
                        None => self.go_home(),
                    }
                } else {
                    session.foreground = Foreground::Recents;
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
        }
    }

    /// Opens the chosen share target and hands it the shared text and item.
    fn share_to(&mut self, from: &str, target: Option<&String>, text: String, item: Value, out: &mut Outcome) {
        let Some(target) = target.cloned() else { return out.noop("no such share target") };
        let Some(handler) = self.catalog.get(&target).and_then(|a| a.bundle.manifest.share.clone()) else { return };
        self.launch(&target, out, 0);
        self.run_handler(&target, &handler, json!({ "args": { "text": text, "item": item, "from": from } }), out);
    }

    /// Pays from the host's wallet (`wallet.balance`, `wallet.transactions`) and tells the
    /// mini-app how it went.
    #[allow(clippy::too_many_arguments, reason = "the fields of the payment sheet")]
    fn settle_payment(
        &mut self,
        app: &str,
        host: &str,
        confirmed: bool,
        amount: f64,
        merchant: &str,
        note: &str,
        handler: Option<String>,
        args: Value,
        out: &mut Outcome,
    ) {
        let balance = self.store.apps.get(host).and_then(|s| s.pointer("/wallet/balance")).and_then(Value::as_f64).unwrap_or(0.0);
        let (paid, reason, transaction) = if !confirmed {
            (false, "cancelled", Value::Null)
        } else if balance + 1e-9 < amount {
            (false, "insufficient balance", Value::Null)
        } else {
            let now = phoneworld_data::CivilTime::from_ms(self.store.session.clock_ms);
            let count =
                self.store.apps.get(host).and_then(|s| s.pointer("/wallet/transactions")).and_then(Value::as_array).map_or(0, Vec::len);
            let tx = json!({
                "id": format!("T{:04}", count + 1),
                "merchant": merchant,
                "amount": amount,
                "note": note,
                "app": app,
                "time": format!("{} {}", now.date_string(), now.time_string()),
            });
            let wallet = self.store.app_mut(host);
            let new_balance = ((balance - amount) * 100.0).round() / 100.0;
            let _ = crate::valuepath::set(wallet, &["wallet".into(), "balance".into()], json!(new_balance));
            let mut list = wallet.pointer("/wallet/transactions").and_then(Value::as_array).cloned().unwrap_or_default();
            list.insert(0, tx.clone());
            let _ = crate::valuepath::set(wallet, &["wallet".into(), "transactions".into()], Value::Array(list));
            (true, "", tx)
        };
        if !paid && confirmed {
            self.store.session.toast = Some(crate::store::Transient {
                app: host.to_owned(),
                text: "Payment failed: insufficient balance".into(),
                action: None,
                until_ms: self.store.session.clock_ms + 2000,
            });
        }
        if let Some(handler) = handler {
            let mut ev_args = match args {
                Value::Object(map) => map,
                _ => serde_json::Map::new(),
            };
            ev_args.insert("paid".into(), Value::Bool(paid));
            ev_args.insert("reason".into(), Value::String(reason.into()));
            ev_args.insert("transaction".into(), transaction);
            self.run_handler(app, &handler, json!({ "args": ev_args }), out);
        }
    }

    /// Sends a mini-app's message into the host chat picked (host `chats[i].messages`).
    fn send_to_chat(&mut self, app: &str, host: &str, i: usize, text: &str, out: &mut Outcome) {
        let now = phoneworld_data::CivilTime::from_ms(self.store.session.clock_ms);
        if !self.store.apps.contains_key(host) {
            return out.noop("the host app is not installed");
        }
        let Some(chat) =
            Some(self.store.app_mut(host)).and_then(|s| s.get_mut("chats")).and_then(Value::as_array_mut).and_then(|c| c.get_mut(i))
        else {
            return out.noop("no such chat");
        };
        let name = chat.get("name").and_then(Value::as_str).unwrap_or("chat").to_owned();
        let message = json!({ "from": "me", "text": text, "time": now.time_string(), "via": app });
        match chat.get_mut("messages").and_then(Value::as_array_mut) {
            Some(list) => list.push(message),
            None => {
                if let Value::Object(map) = chat {
                    map.insert("messages".into(), Value::Array(vec![message]));
                }
            }
        }
        self.store.session.toast = Some(crate::store::Transient {
            app: host.to_owned(),
            text: format!("Sent to {name}"),
            action: None,
            until_ms: self.store.session.clock_ms + 2000,
        });
    }

    /// The capsule's ··· menu: share the mini-app to a chat, go back to the host, or restart it.
    fn mini_app_menu(&mut self, app: &str, host: &str, i: usize, out: &mut Outcome) {
        let label = self.catalog.get(app).map_or(app.to_owned(), |a| a.label().to_owned());
        match i {
            0 => {
                self.store.session.overlay =
                    Some(Overlay::ChatPicker { app: app.to_owned(), host: host.to_owned(), text: format!("Check out {label}") })
            }
            1 => self.launch(host, out, 0),
            _ => {
                self.close_task(app);
                self.launch(app, out, 0);
            }
        }
    }

    fn text_menu(&mut self, action: SystemAction, out: &mut Outcome) {
        let Some(Overlay::TextMenu { app, key, path, .. }) = self.store.session.overlay.take() else {
            return out.noop("no text menu is open");
        };
        let Some(target) = crate::interaction::Target::parse(&path) else { return };
        let text = widgets_value_text(&self.read_target(&app, &target));
        match action {
            SystemAction::Copy => self.store.session.clipboard = text,
            SystemAction::Cut => {
                self.store.session.clipboard = text;
                let _ = self.write_target(&app, &target, Value::String(String::new()));
            }
            _ => {
                let clip = self.store.session.clipboard.clone();
                if clip.is_empty() {
                    return out.noop("the clipboard is empty");
                }
                let _ = self.write_target(&app, &target, Value::String(text + &clip));
            }
        }
        let _ = key;
    }
}
