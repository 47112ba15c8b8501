//! A screen's view function (`view: "inbox_view"` in its RON): a handler of the app that
//! derives what the screen shows from the data, run each time the screen is composed (the
//! composed view is kept until the store changes, so it runs once per change). Its answer is
//! `vm.*` in the layout; it is never stored, so presentation stays out of the app's data and
//! its hash. It may only read: a view that writes to the store or asks for an effect shows
//! nothing and says so.

use phoneworld_ui::store::Foreground;
use serde_json::{json, Value};

use crate::device::Device;

impl Device {
    /// What the foreground screen's view function returns (`null` when it has none), and the
    /// problem when it failed or tried to change something.
    pub(crate) fn screen_vm(&mut self) -> (Value, Option<String>) {
        let Foreground::App(package) = &self.store.session.foreground else { return (Value::Null, None) };
        let package = package.clone();
        let catalog = std::sync::Arc::clone(&self.catalog);
        let Some(installed) = catalog.get(&package) else { return (Value::Null, None) };
        let Some(entry) = self.store.top(&package) else { return (Value::Null, None) };
        let Some(view) = installed.bundle.screens.get(&entry.screen).and_then(|s| s.view.clone()) else { return (Value::Null, None) };
        let event = json!({ "params": entry.params });
        let ctx = self.event_ctx(installed);
        // Its own budget, outside the step's: a view runs whenever the screen is drawn.
        let budget = self.config.limits.instructions_per_event;
        let host = match self.scripts() {
            Ok(host) => host,
            Err(err) => return (Value::Null, Some(err.to_string())),
        };
        let result = host.call_for_answer(&installed.program, &view, &event, ctx, budget);
        let (written, answer) = (host.last_written_bytes(), host.take_returned());
        match result {
            Err(err) => (Value::Null, Some(format!("view function: {err}"))),
            Ok(ctx) if written > 0 || !ctx.effects.is_empty() => (
                Value::Null,
                Some(format!(
                    "{package}: view function `{view}` may only read (it wrote to the store or asked for an effect): handlers change data, views show it"
                )),
            ),
            Ok(_) => (answer, None),
        }
    }
}
