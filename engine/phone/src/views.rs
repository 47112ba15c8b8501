//! A screen's view function (`view: "inbox_view"` in its RON): a handler of the app that
//! derives what the screen shows from the data when the screen is composed, and again only
//! when something it read has changed (see [`ViewMemo`]). Its answer is
//! `vm.*` in the layout; it is never stored, so presentation stays out of the app's data and
//! its hash. It may only read: a view that writes to the store or asks for an effect shows
//! nothing and says so.

use std::sync::Arc;

use phoneworld_script::Reads;
use phoneworld_ui::store::Foreground;
use serde_json::{json, Value};

use crate::device::Device;
use crate::view_memo::{Answer, Inputs};

impl Device {
    /// What the foreground screen's view function returns now (`null` when it has none), and
    /// the problem when it failed: what its layout reads as `vm.*` (studio's inspector shows it).
    pub fn view_model(&mut self) -> (Arc<Value>, Option<String>) {
        self.screen_vm()
    }

    /// What the foreground screen's view function returns (`null` when it has none), and the
    /// problem when it failed or tried to change something; the last answer when nothing it
    /// read has changed since.
    pub(crate) fn screen_vm(&mut self) -> Answer {
        let none = || (Arc::new(Value::Null), None);
        let Foreground::App(package) = &self.store.session.foreground else { return none() };
        let package = package.clone();
        let catalog = Arc::clone(&self.catalog);
        let Some(installed) = catalog.get(&package) else { return none() };
        let Some(entry) = self.store.top(&package) else { return none() };
        let Some(view) = installed.bundle.screens.get(&entry.screen).and_then(|s| s.view.clone()) else { return none() };
        let inputs = Inputs { package: &package, host: installed.bundle.manifest.mini_app_of.as_deref(), entry, store: &self.store };
        if let Some(answer) = self.view_memos.find(&inputs) {
            return answer;
        }
        let event = json!({ "params": entry.params });
        let ctx = self.event_ctx(installed);
        // Its own budget, outside the step's: a view runs whenever the screen is drawn.
        let budget = self.config.limits.instructions_per_event;
        let host = match self.scripts() {
            Ok(host) => host,
            Err(err) => return (Arc::new(Value::Null), Some(err.to_string())),
        };
        let result = host.call_for_answer(&installed.program, &view, &event, ctx, budget);
        let (written, returned) = (host.last_written_bytes(), host.take_returned());
        let (answer, read) = match result {
            Err(err) => ((Value::Null, Some(format!("view function: {err}"))), Reads::default()),
            Ok(ctx) if written > 0 || ctx.wrote_state || !ctx.effects.is_empty() => (
                (
                    Value::Null,
                    Some(format!(
                        "{package}: view function `{view}` may only read (it wrote to the store or asked for an effect): handlers change data, views show it"
                    )),
                ),
                Reads::default(),
            ),
            Ok(ctx) => ((returned, None), ctx.read),
        };
        let answer = (Arc::new(answer.0), answer.1);
        // The same inputs as above (a view's writes are dropped), borrowed again after the run.
        let Some(entry) = self.store.top(&package) else { return answer };
        let inputs = Inputs { package: &package, host: installed.bundle.manifest.mini_app_of.as_deref(), entry, store: &self.store };
        self.view_memos.keep(&inputs, read, &answer);
        answer
    }
}
