//! Running app handlers against the store, committing what they changed, and carrying out
//! the effects they asked for (navigation, dialogs, notifications, timers).

use phoneworld_data::valuepath;
use phoneworld_script::{Effect, EventCtx, ScriptError};
use phoneworld_ui::interaction::{EventSource, ItemSource, Target, TargetRoot};
use phoneworld_ui::store::{Choice, Foreground, Notification, Overlay, ScreenEntry, Timer, Transient};
use serde_json::{json, Value};

use crate::device::Device;
use crate::limits::{MAX_APP_DATA_BYTES, MAX_BACK_STACK, MAX_NOTIFICATIONS, MAX_PENDING_TIMERS, MAX_TIMERS_PER_STEP};
use crate::outcome::Outcome;

/// Handlers may open screens whose `on_enter` runs handlers; this bounds the chain.
const MAX_DEPTH: usize = 8;

fn empty_map() -> Value {
    Value::Object(serde_json::Map::new())
}

fn text_of(v: &Value, key: &str) -> String {
    v.get(key)
        .map(|x| match x {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            other => other.to_string(),
        })
        .unwrap_or_default()
}

fn choices(v: &Value, key: &str) -> Vec<Choice> {
    let Some(Value::Array(list)) = v.get(key) else { return Vec::new() };
    list.iter()
        .map(|c| Choice {
            text: text_of(c, "text"),
            icon: text_of(c, "icon"),
            handler: c.get("handler").and_then(Value::as_str).map(str::to_owned),
            args: c.get("args").cloned().unwrap_or(Value::Null),
        })
        .collect()
}

impl Device {
    /// Runs `handler` of `app` with `event`; on success commits its changes and effects.
    pub(crate) fn run_handler(&mut self, app: &str, handler: &str, event: Value, out: &mut Outcome) {
        self.run_handler_at(app, handler, event, out, 0, false);
    }

    /// Runs a handler and gives back what it returned (`null` when it returned nothing or
    /// failed): a host's service answering a mini-app.
    pub(crate) fn run_handler_for_answer(&mut self, app: &str, handler: &str, event: Value, out: &mut Outcome) -> Value {
        self.run_handler_at(app, handler, event, out, 0, true)
    }

    /// What a handler of `app` runs against: working copies of everything it may change.
    pub(crate) fn event_ctx(&self, installed: &phoneworld_ui::catalog::InstalledApp) -> EventCtx {
        let app = installed.package();
        let session = &self.store.session;
        EventCtx {
            app: app.to_owned(),
            state: self.store.apps.get(app).map_or_else(empty_map, |a| (**a).clone()),
            local: self.store.top(app).map_or_else(empty_map, |e| e.local.clone()),
            system: self.store.system.clone(),
            content: std::sync::Arc::clone(&installed.content),
            clipboard: session.clipboard.clone(),
            now_ms: session.clock_ms,
            rng: session.rng.clone(),
            next_timer_id: session.next_timer_id,
            effects: Vec::new(),
            host_profile: self.host_data(installed, |services| services.profile.as_deref()),
            map: installed.bundle.manifest.map.as_ref().map(|spec| {
                let null = Value::Null;
                let state = self.store.apps.get(app).map_or(&null, |a| &**a);
                self.catalog.maps.city(app, spec, state, &installed.content)
            }),
            read: Default::default(),
            wrote_state: false,
        }
    }

    fn run_handler_at(&mut self, app: &str, handler: &str, event: Value, out: &mut Outcome, depth: usize, answer_wanted: bool) -> Value {
        let catalog = std::sync::Arc::clone(&self.catalog);
        let Some(installed) = catalog.get(app) else {
            out.noop(format!("app {app} is not installed"));
            return Value::Null;
        };
        if depth > MAX_DEPTH {
            out.errors.push(ScriptError::new(
                app,
                installed.program.app(),
                None,
                format!("`{handler}`: handlers opened screens more than {MAX_DEPTH} deep"),
            ));
            return Value::Null;
        }
        let ctx = self.event_ctx(installed);
        let allowance = self.step_work_left();
        if allowance == 0 {
            out.errors.push(ScriptError::new(
                app,
                installed.program.app(),
                None,
                format!(
                    "`{handler}` did not run: the handlers of this step used its whole budget of {} instructions",
                    self.config.limits.instructions_per_step
                ),
            ));
            return Value::Null;
        }
        let mut answer = Value::Null;
        let result = match self.scripts() {
            Ok(host) => {
                let result = if answer_wanted {
                    host.call_for_answer(&installed.program, handler, &event, ctx, allowance)
                } else {
                    host.call_within(&installed.program, handler, &event, ctx, allowance)
                };
                let (work, written) = (host.last_work(), host.last_written_bytes());
                answer = host.take_returned();
                self.work_used = self.work_used.saturating_add(work);
                result.and_then(|ctx| self.within_size_limits(app, installed, ctx, written))
            }
            Err(err) => Err(err),
        };
        match result {
            Ok(ctx) => {
                // Data a handler only read stays the same allocation: shared with the baseline
                // and forks, and what views computed from it stays valid.
                if ctx.wrote_state || !self.store.apps.contains_key(app) {
                    self.store.apps.insert(app.to_owned(), std::sync::Arc::new(ctx.state));
                }
                if let Some(entry) = self.store.top_mut(app) {
                    entry.local = ctx.local;
                }
                self.store.system = ctx.system;
                self.store.session.clipboard = ctx.clipboard;
                self.store.session.rng = ctx.rng;
                self.store.session.next_timer_id = ctx.next_timer_id;
                for effect in ctx.effects {
                    self.apply_effect(app, effect, out, depth);
                }
            }
            Err(err) => {
                out.errors.push(err);
                answer = Value::Null;
            }
        }
        answer
    }

    /// Work the handlers of this step may still do.
    fn step_work_left(&mut self) -> u64 {
        let step = self.store.session.steps;
        if self.work_step != step {
            self.work_step = step;
            self.work_used = 0;
        }
        self.config.limits.instructions_per_step.saturating_sub(self.work_used)
    }

    /// A handler's writes are kept only if the app's data, its screen's state and the settings
    /// stay within their size limit.
    fn within_size_limits(
        &mut self,
        app: &str,
        installed: &phoneworld_ui::catalog::InstalledApp,
        ctx: EventCtx,
        written: usize,
    ) -> Result<EventCtx, ScriptError> {
        if written == 0 {
            return Ok(ctx);
        }
        let depth = self.store.session.tasks.get(app).map_or(0, Vec::len);
        let parts = [
            (format!("data of {app}"), &ctx.state),
            (format!("screen state of {app} #{depth}"), &ctx.local),
            ("system settings".to_owned(), &ctx.system),
        ];
        for (what, value) in parts {
            if let Err(size) = self.size_bounds.check(&what, value, written, MAX_APP_DATA_BYTES) {
                return Err(ScriptError::new(
                    app,
                    installed.program.app(),
                    None,
                    format!("the {what} would grow to {size} bytes, over the limit of {MAX_APP_DATA_BYTES}; nothing was changed"),
                ));
            }
        }
        Ok(ctx)
    }

    fn screen_error(&self, app: &str, message: String, out: &mut Outcome) {
        let file = self
            .catalog
            .get(app)
            .map_or("main.lua".to_owned(), |a| a.bundle.scripts.first().map_or("main.lua".to_owned(), |s| s.name.clone()));
        out.errors.push(ScriptError::new(app, &file, None, message));
    }

    fn has_screen(&self, app: &str, screen: &str) -> bool {
        self.catalog.get(app).is_some_and(|a| a.bundle.screens.contains_key(screen))
    }

    /// Runs the `on_enter` handler of the app's top screen, if it has one.
    fn enter_top(&mut self, app: &str, out: &mut Outcome, depth: usize) {
        let Some(entry) = self.store.top(app) else { return };
        let params = entry.params.clone();
        let handler = self.catalog.get(app).and_then(|a| a.bundle.screens.get(&entry.screen)).and_then(|s| s.on_enter.clone());
        // How many screens the back stack holds: 1 is the app's first screen (as it starts).
        let stack = self.store.session.tasks.get(app).map_or(0, Vec::len);
        if let Some(handler) = handler {
            self.run_handler_at(app, &handler, json!({ "params": params, "depth": stack }), out, depth + 1, false);
        }
    }

    pub(crate) fn push_screen(&mut self, app: &str, screen: &str, params: Value, out: &mut Outcome, depth: usize) {
        if !self.has_screen(app, screen) {
            self.screen_error(app, format!("no screen `{screen}` to open"), out);
            return;
        }
        if self.store.session.tasks.get(app).is_some_and(|stack| stack.len() >= MAX_BACK_STACK) {
            self.screen_error(app, format!("`{screen}` not opened: the back stack already holds {MAX_BACK_STACK} screens"), out);
            return;
        }
        self.store.session.change_screen();
        self.store.session.tasks.entry(app.to_owned()).or_default().push(ScreenEntry::new(screen, params));
        self.enter_top(app, out, depth);
    }

    /// Opens an app at a screen, as a deep link or a task's setup would.
    pub fn open_screen(&mut self, app: &str, screen: &str, params: Value) -> Result<(), String> {
        let mut out = Outcome::default();
        let package = self.catalog.find(app).map(|a| a.package().to_owned()).ok_or_else(|| format!("no installed app `{app}`"))?;
        self.launch(&package, &mut out, 0);
        self.show_screen(&package, screen, params, &mut out, 0);
        self.invalidate();
        match (out.note, out.errors.first()) {
            (Some(note), _) => Err(note),
            (None, Some(err)) => Err(err.to_string()),
            (None, None) => Ok(()),
        }
    }

    /// Shows `screen` on top of the app's stack: a screen already on top takes the new
    /// parameters instead of being stacked twice (a notification for the screen you are on).
    pub(crate) fn show_screen(&mut self, app: &str, screen: &str, params: Value, out: &mut Outcome, depth: usize) {
        let on_top = self.store.top(app).is_some_and(|e| e.screen == screen);
        if !on_top {
            return self.push_screen(app, screen, params, out, depth);
        }
        let has_params = params.as_object().is_some_and(|m| !m.is_empty());
        if has_params {
            if let Some(entry) = self.store.top_mut(app) {
                entry.params = params;
            }
            self.enter_top(app, out, depth);
        }
    }

    /// Brings an app to the front, starting it on its entry screen if it is not running.
    pub(crate) fn launch(&mut self, app: &str, out: &mut Outcome, depth: usize) {
        let Some(installed) = self.catalog.get(app) else {
            out.noop(format!("app {app} is not installed"));
            return;
        };
        let entry = installed.bundle.manifest.entry.clone();
        let on_launch = installed.bundle.manifest.on_launch.clone();
        let session = &mut self.store.session;
        session.bring_to_front(Foreground::App(app.to_owned()));
        session.recents.retain(|p| p != app);
        session.recents.insert(0, app.to_owned());
        if session.tasks.get(app).is_none_or(|s| s.is_empty()) {
            session.tasks.insert(app.to_owned(), vec![ScreenEntry::new(&entry, Value::Null)]);
            if let Some(handler) = on_launch {
                self.run_handler_at(app, &handler, json!({}), out, depth + 1, false);
            }
            self.enter_top(app, out, depth);
        }
    }

    pub(crate) fn go_home(&mut self) {
        self.store.session.bring_to_front(Foreground::Home);
    }

    /// Pops the app's top screen (the screen shown again runs its `on_enter`); at its root
    /// the phone goes home.
    pub(crate) fn pop_screen(&mut self, app: &str, out: &mut Outcome, depth: usize) {
        self.store.session.change_screen();
        let stack = self.store.session.tasks.entry(app.to_owned()).or_default();
        if stack.len() > 1 {
            stack.pop();
            self.enter_top(app, out, depth);
        } else if self.store.foreground_app() == Some(app) {
            self.go_home();
        }
    }

    /// Opens the app and screen a `scheme://path?a=1&b=2` link points at.
    pub(crate) fn deep_link(&mut self, uri: &str, out: &mut Outcome, depth: usize) -> bool {
        let (base, query) = uri.split_once('?').unwrap_or((uri, ""));
        let mut best: Option<(String, String, usize)> = None;
        for app in &self.catalog.apps {
            for (prefix, screen) in &app.bundle.manifest.deep_links {
                if base.starts_with(prefix.as_str()) && best.as_ref().is_none_or(|b| prefix.len() > b.2) {
                    best = Some((app.package().to_owned(), screen.clone(), prefix.len()));
                }
            }
        }
        let Some((app, screen, prefix_len)) = best else { return false };
        let mut params = serde_json::Map::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            params.insert(k.to_owned(), Value::String(v.replace("%20", " ").replace('+', " ")));
        }
        let rest = base[prefix_len..].trim_matches('/');
        if !rest.is_empty() {
            params.insert("path".into(), Value::String(rest.to_owned()));
        }
        self.launch(&app, out, depth);
        self.show_screen(&app, &screen, Value::Object(params), out, depth);
        true
    }

    fn apply_effect(&mut self, app: &str, effect: Effect, out: &mut Outcome, depth: usize) {
        let now = self.store.session.clock_ms;
        match effect {
            Effect::Push { screen, params } => self.push_screen(app, &screen, params, out, depth),
            Effect::Replace { screen, params } => {
                if self.has_screen(app, &screen) {
                    if let Some(stack) = self.store.session.tasks.get_mut(app) {
                        stack.pop();
                    }
                    self.push_screen(app, &screen, params, out, depth);
                } else {
                    self.screen_error(app, format!("no screen `{screen}` to open"), out);
                }
            }
            Effect::Pop => self.pop_screen(app, out, depth),
            Effect::Home => self.go_home(),
            Effect::OpenApp { app: target, screen, params } => match self.catalog.find(&target).map(|a| a.package().to_owned()) {
                Some(package) => {
                    self.launch(&package, out, depth);
                    if let Some(screen) = screen {
                        self.show_screen(&package, &screen, params, out, depth);
                    }
                }
                None => self.screen_error(app, format!("nav.open_app: no app `{target}`"), out),
            },
            Effect::DeepLink { uri } => {
                if !self.deep_link(&uri, out, depth) {
                    self.screen_error(app, format!("nav.deep_link: no app handles `{uri}`"), out);
                }
            }
            Effect::Toast { text } => {
                self.store.session.toast = Some(Transient { app: app.to_owned(), text, action: None, until_ms: now + 2000 });
            }
            Effect::Snackbar(spec) => {
                let action = spec.get("action").and_then(Value::as_str).map(|label| Choice {
                    text: label.to_owned(),
                    icon: String::new(),
                    handler: spec.get("handler").and_then(Value::as_str).map(str::to_owned),
                    args: spec.get("args").cloned().unwrap_or(Value::Null),
                });
                self.store.session.snackbar =
                    Some(Transient { app: app.to_owned(), text: text_of(&spec, "text"), action, until_ms: now + 4000 });
            }
            Effect::Dialog(spec) => {
                self.store.session.open_overlay(Overlay::Dialog {
                    app: app.to_owned(),
                    title: text_of(&spec, "title"),
                    text: text_of(&spec, "text"),
                    buttons: choices(&spec, "buttons"),
                });
            }
            Effect::Sheet(spec) => {
                self.store.session.open_overlay(Overlay::Sheet {
                    app: app.to_owned(),
                    title: text_of(&spec, "title"),
                    options: choices(&spec, "options"),
                });
            }
            Effect::Notify(spec) => {
                let session = &mut self.store.session;
                if session.notifications.len() >= MAX_NOTIFICATIONS {
                    session.notifications.remove(0);
                }
                let id = session.next_notification_id;
                session.next_notification_id += 1;
                session.notifications.push(Notification {
                    id,
                    app: app.to_owned(),
                    title: text_of(&spec, "title"),
                    text: text_of(&spec, "text"),
                    icon: text_of(&spec, "icon"),
                    screen: spec.get("screen").and_then(Value::as_str).map(str::to_owned),
                    params: spec.get("params").cloned().unwrap_or_else(empty_map),
                    posted_ms: now,
                    actions: choices(&spec, "actions"),
                });
            }
            Effect::TimerAfter { id, ms, handler, args } => {
                if self.store.session.timers.len() >= MAX_PENDING_TIMERS {
                    return self.screen_error(
                        app,
                        format!("timer for `{handler}` not set: {MAX_PENDING_TIMERS} timers are already pending"),
                        out,
                    );
                }
                let session = &mut self.store.session;
                let due_ms = now.saturating_add(i64::try_from(ms).unwrap_or(i64::MAX));
                session.timers.push(Timer { id, app: app.to_owned(), due_ms, handler, args });
                session.next_timer_id = session.next_timer_id.max(id + 1);
            }
            Effect::TimerCancel { id } => self.store.session.timers.retain(|t| t.id != id),
            Effect::Share(spec) => {
                let targets: Vec<String> = self
                    .catalog
                    .apps
                    .iter()
                    .filter(|a| a.bundle.manifest.share.is_some() && a.bundle.manifest.mini_app_of.is_none() && a.package() != app)
                    .map(|a| a.package().to_owned())
                    .collect();
                self.store.session.open_overlay(Overlay::Share {
                    app: app.to_owned(),
                    text: text_of(&spec, "text"),
                    item: spec.get("item").cloned().unwrap_or(Value::Null),
                    targets,
                });
            }
            Effect::OpenMiniApp { app: target, screen, params } => {
                let found = self.catalog.find(&target).filter(|a| a.bundle.manifest.mini_app_of.as_deref() == Some(app));
                match found.map(|a| a.package().to_owned()) {
                    Some(package) => {
                        self.launch(&package, out, depth);
                        if let Some(screen) = screen {
                            self.show_screen(&package, &screen, params, out, depth);
                        }
                    }
                    None => self.screen_error(app, format!("host.open: `{target}` is not a mini-app of {app}"), out),
                }
            }
            Effect::Pay(spec) => match self.host_of(app) {
                Some(host) => {
                    self.store.session.open_overlay(Overlay::Payment {
                        app: app.to_owned(),
                        host,
                        amount: spec.get("amount").and_then(Value::as_f64).unwrap_or(0.0),
                        merchant: text_of(&spec, "merchant"),
                        note: text_of(&spec, "note"),
                        handler: spec.get("handler").and_then(Value::as_str).map(str::to_owned),
                        args: spec.get("args").cloned().unwrap_or_else(empty_map),
                    });
                }
                None => self.screen_error(app, "host.pay is only available to mini-apps".into(), out),
            },
            Effect::ShareToChat(spec) => match self.host_of(app) {
                Some(host) => {
                    self.store.session.open_overlay(Overlay::ChatPicker { app: app.to_owned(), host, text: text_of(&spec, "text") });
                }
                None => self.screen_error(app, "host.share_to_chat is only available to mini-apps".into(), out),
            },
        }
    }

    /// The super-app hosting a mini-app.
    pub(crate) fn host_of(&self, app: &str) -> Option<String> {
        self.catalog.get(app).and_then(|a| a.bundle.manifest.mini_app_of.clone())
    }

    /// The event table a handler receives (`item`, `index` 1-based, `id`, `params`, `value`),
    /// read from the store as it is now (the screen it was built from).
    pub(crate) fn event_json(&self, app: &str, source: &EventSource) -> Value {
        let mut ev = serde_json::Map::new();
        let item = match &source.item {
            ItemSource::None => None,
            ItemSource::Path(path) => Some(Target::parse(path).map_or(Value::Null, |t| self.read_target(app, &t))),
            ItemSource::Value(v) => Some(Value::clone(v)),
        };
        if let Some(item) = item {
            ev.insert("item".into(), item);
        }
        if let Some(index) = source.index {
            ev.insert("index".into(), Value::from(index));
        }
        if let Some(id) = &source.id {
            ev.insert("id".into(), Value::String(id.clone()));
        }
        ev.insert("params".into(), self.store.top(app).map_or_else(empty_map, |e| e.params.clone()));
        if let Some(v) = &source.value {
            ev.insert("value".into(), v.clone());
        }
        Value::Object(ev)
    }

    /// Writes an input's value into the store.
    pub(crate) fn write_target(&mut self, app: &str, target: &Target, value: Value) -> Result<(), String> {
        let root = match target.root {
            TargetRoot::State => self.store.app_mut(app),
            TargetRoot::System => &mut self.store.system,
            TargetRoot::Local => match self.store.top_mut(app) {
                Some(entry) => &mut entry.local,
                None => return Err(format!("{app} has no open screen")),
            },
        };
        valuepath::set(root, &target.segments, value).map_err(|e| e.to_string())
    }

    pub(crate) fn read_target(&self, app: &str, target: &Target) -> Value {
        let root = match target.root {
            TargetRoot::State => self.store.apps.get(app).map(|a| &**a),
            TargetRoot::System => Some(&self.store.system),
            TargetRoot::Local => self.store.top(app).map(|e| &e.local),
        };
        root.and_then(|r| valuepath::get(r, &target.segments)).cloned().unwrap_or(Value::Null)
    }

    /// Advances the virtual clock, firing due timers in order and dropping expired toasts. At
    /// most [`MAX_TIMERS_PER_STEP`] fire, and none once the step's handlers have used its
    /// budget: the rest stay due and fire, late, in the next steps (a timer that re-arms itself
    /// at 0 ms cannot make a step that never returns). The clock never runs backwards.
    pub(crate) fn advance_clock(&mut self, ms: u64, out: &mut Outcome) {
        let end = self.store.session.clock_ms.saturating_add(i64::try_from(ms).unwrap_or(i64::MAX));
        let mut fired = 0;
        loop {
            let next = self.store.session.timers.iter().enumerate().filter(|(_, t)| t.due_ms <= end).min_by_key(|(_, t)| (t.due_ms, t.id));
            let Some((pos, _)) = next else { break };
            let why = if fired == MAX_TIMERS_PER_STEP {
                Some(format!("more than {MAX_TIMERS_PER_STEP} timers fired in one step"))
            } else if self.step_work_left() < self.config.limits.instructions_per_event.min(self.config.limits.instructions_per_step) {
                // A timer's handler starts only with a whole event's budget, so none is cut short.
                Some(format!(
                    "the handlers of this step used its whole budget of {} instructions",
                    self.config.limits.instructions_per_step
                ))
            } else {
                None
            };
            if let Some(why) = why {
                let timer = &self.store.session.timers[pos];
                let (app, message) =
                    (timer.app.clone(), format!("{why}; `{}` and the timers after it fire in the next steps", timer.handler));
                self.screen_error(&app, message, out);
                break;
            }
            fired += 1;
            let timer = self.store.session.timers.remove(pos);
            self.store.session.clock_ms = self.store.session.clock_ms.max(timer.due_ms);
            self.run_handler(&timer.app, &timer.handler, json!({ "args": timer.args }), out);
        }
        let session = &mut self.store.session;
        session.clock_ms = session.clock_ms.max(end);
        if session.toast.as_ref().is_some_and(|t| t.until_ms <= end) {
            session.toast = None;
        }
        if session.snackbar.as_ref().is_some_and(|t| t.until_ms <= end) {
            session.snackbar = None;
        }
    }
}
