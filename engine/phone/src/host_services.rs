//! What a super-app gives its mini-apps, and the share sheet: picking a share target,
//! settling a payment from the host wallet, sending into a host chat, the capsule menu.

use serde_json::{json, Value};

use crate::device::Device;
use crate::events::Outcome;
use crate::store::Overlay;

impl Device {
    /// Opens the chosen share target and hands it the shared text and item.
    pub(crate) fn share_to(&mut self, from: &str, target: Option<&String>, text: String, item: Value, out: &mut Outcome) {
        let Some(target) = target.cloned() else { return out.noop("no such share target") };
        let Some(handler) = self.catalog.get(&target).and_then(|a| a.bundle.manifest.share.clone()) else { return };
        self.launch(&target, out, 0);
        self.run_handler(&target, &handler, json!({ "args": { "text": text, "item": item, "from": from } }), out);
    }

    /// Pays from the host's wallet (`wallet.balance`, `wallet.transactions`) and tells the
    /// mini-app how it went.
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
    pub(crate) fn send_to_chat(&mut self, app: &str, host: &str, i: usize, text: &str, out: &mut Outcome) {
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
