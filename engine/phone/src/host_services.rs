//! What a super-app gives its mini-apps, and the share sheet: picking a share target, settling
//! a payment and sending into a chat through the host's own services (declared in its
//! manifest, run in its own Lua), the capsule menu. The phone knows none of the host's data.

use phoneworld_data::HostServices;
use phoneworld_ui::catalog::InstalledApp;
use phoneworld_ui::store::Overlay;
use serde_json::{json, Value};

use crate::device::Device;
use crate::outcome::Outcome;

impl Device {
    /// Opens the chosen share target and hands it the shared text and item.
    pub(crate) fn share_to(&mut self, from: &str, target: Option<&String>, text: String, item: Value, out: &mut Outcome) {
        let Some(target) = target.cloned() else { return out.noop("no such share target") };
        let Some(handler) = self.catalog.get(&target).and_then(|a| a.bundle.manifest.share.clone()) else { return };
        self.launch(&target, out, 0);
        self.run_handler(&target, &handler, json!({ "args": { "text": text, "item": item, "from": from } }), out);
    }

    /// Settles a mini-app's `host.pay` once the user answered the payment sheet: the host's
    /// `pay` service (its own Lua, over its own data) takes the payment, and the mini-app's
    /// handler learns only whether it was paid, why not, and the transaction the host gave.
    #[allow(clippy::too_many_arguments, reason = "the fields of the payment sheet")]
    pub(crate) fn settle_payment(
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
        let answer = match (confirmed, self.service(host, |s| s.pay.as_deref())) {
            (false, _) => json!({ "paid": false, "reason": "cancelled" }),
            (true, None) => json!({ "paid": false, "reason": "the host takes no payments" }),
            (true, Some(service)) => {
                let event = json!({ "args": { "amount": amount, "merchant": merchant, "note": note, "app": app } });
                let answer = self.run_handler_for_answer(host, &service, event, out);
                if answer.is_object() {
                    answer
                } else {
                    json!({ "paid": false, "reason": "the host's payment service gave no answer" })
                }
            }
        };
        if let Some(handler) = handler {
            let mut ev_args = match args {
                Value::Object(map) => map,
                _ => serde_json::Map::new(),
            };
            ev_args.insert("paid".into(), Value::Bool(answer.get("paid") == Some(&Value::Bool(true))));
            ev_args.insert("reason".into(), answer.get("reason").filter(|r| r.is_string()).cloned().unwrap_or_else(|| json!("")));
            ev_args.insert("transaction".into(), answer.get("transaction").cloned().unwrap_or(Value::Null));
            self.run_handler(app, &handler, json!({ "args": ev_args }), out);
        }
    }

    /// Sends a mini-app's message into the chat picked (the `i`-th of the host's `chats`),
    /// through the host's `send_to_chat` service.
    pub(crate) fn send_to_chat(&mut self, app: &str, host: &str, i: usize, text: &str, out: &mut Outcome) {
        let Some(service) = self.service(host, |s| s.send_to_chat.as_deref()) else {
            return out.noop("the host takes no messages from mini-apps");
        };
        self.run_handler(host, &service, json!({ "args": { "chat": i + 1, "text": text, "app": app } }), out);
    }

    /// A handler of the host's services.
    fn service(&self, host: &str, pick: impl Fn(&HostServices) -> Option<&str>) -> Option<String> {
        self.catalog.get(host)?.bundle.manifest.services.as_ref().and_then(pick).map(str::to_owned)
    }

    /// What a mini-app's host names among its services (`profile`): `null` when the app is no
    /// mini-app or the host names nothing there.
    pub(crate) fn host_data(&self, mini: &InstalledApp, pick: impl Fn(&HostServices) -> Option<&str>) -> Value {
        let Some(host) = mini.bundle.manifest.mini_app_of.as_deref() else { return Value::Null };
        self.catalog.host_value(&self.store, host, pick).unwrap_or(Value::Null)
    }

    /// The capsule's ··· menu: share the mini-app to a chat, go back to the host, or restart it.
    pub(crate) fn mini_app_menu(&mut self, app: &str, host: &str, i: usize, out: &mut Outcome) {
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
}
