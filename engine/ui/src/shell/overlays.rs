//! Surfaces apps raise over their screens: modal dialogs, bottom sheets, the Copy / Paste
//! menu of a text field, toasts and snackbars.

use phoneworld_layout::{Align, Direction, Justify, ViewNode};
use phoneworld_text::Weight;

use super::{Shell, SYSTEM_UI};
use crate::builder::container;
use crate::interaction::SystemAction;
use crate::kit;
use crate::store::{Choice, Overlay, Transient};

fn scrim(s: &mut Shell<'_>, bottom_inset: f32) -> ViewNode {
    let mut v = container(Direction::Column);
    v.style.absolute = Some([Some(0.0), Some(0.0), Some(0.0), Some(bottom_inset)]);
    v.paint.background = Some(s.theme.scrim);
    v.hit = Some(s.tap(SystemAction::DismissOverlay));
    v
}

fn button(s: &mut Shell<'_>, package: &str, text: &str, action: SystemAction) -> ViewNode {
    let m = s.m;
    let mut b = container(Direction::Row);
    b.style.min_height = Some(m.dp(48.0));
    b.style.min_width = Some(m.dp(48.0));
    b.style.justify = Justify::Center;
    b.style.padding = [m.dp(12.0), 0.0, m.dp(12.0), 0.0];
    b.style.align_items = Some(Align::Center);
    b.children.push(kit::text(&m, text.into(), 14.0, Weight::Medium, s.theme.primary));
    super::silence(&mut b);
    let mut a = kit::a11y("android.widget.Button", package);
    a.text = text.into();
    a.clickable = true;
    b.set_a11y(a);
    b.hit = Some(s.tap(action));
    b
}

fn titled_text(s: &Shell<'_>, package: &str, text: &str, size: f32, weight: Weight, id: &str) -> ViewNode {
    let color = if weight == Weight::Regular { s.theme.on_surface_variant } else { s.theme.on_surface };
    let mut v = kit::text(&s.m, text.into(), size, weight, color);
    let mut a = kit::a11y("android.widget.TextView", package);
    a.text = text.into();
    a.resource_id = format!("android:id/{id}");
    v.set_a11y(a);
    v
}

fn choice(text: String, icon: &str) -> Choice {
    Choice { text, icon: icon.to_owned(), handler: None, args: serde_json::Value::Null }
}

/// System surfaces (share sheet, payment, chat picker, mini-app menu) as plain sheets and
/// dialogs: their choices are taken by index.
fn as_plain(s: &Shell<'_>, overlay: &Overlay) -> Option<Overlay> {
    let label = |pkg: &str| s.catalog.get(pkg).map_or(pkg.to_owned(), |a| a.label().to_owned());
    Some(match overlay {
        Overlay::Share { app, targets, .. } => Overlay::Sheet {
            app: SYSTEM_UI.to_owned(),
            title: format!("Share from {}", label(app)),
            options: targets
                .iter()
                .map(|t| choice(label(t), s.catalog.get(t).map_or("share", |a| a.bundle.manifest.icon.as_str())))
                .collect(),
        },
        Overlay::Payment { host, amount, merchant, note, .. } => {
            let balance = s.catalog.host_value(s.store, host, |services| services.balance.as_deref()).and_then(|v| v.as_f64());
            let mut text = format!("Amount: {amount:.2}");
            if let Some(balance) = balance {
                text.push_str(&format!("\nWallet balance: {balance:.2}"));
            }
            if !note.is_empty() {
                text = format!("{note}\n{text}");
            }
            Overlay::Dialog {
                app: host.clone(),
                title: format!("Pay {merchant}"),
                text,
                buttons: vec![choice("Cancel".into(), ""), choice("Pay".into(), "")],
            }
        }
        Overlay::ChatPicker { host, .. } => {
            let chats = s
                .catalog
                .host_value(s.store, host, |services| services.chats.as_deref())
                .and_then(|v| v.as_array().cloned())
                .unwrap_or_default();
            Overlay::Sheet {
                app: host.clone(),
                title: "Send to".into(),
                options: chats
                    .iter()
                    .map(|c| choice(c.get("name").and_then(serde_json::Value::as_str).unwrap_or("Chat").to_owned(), "chat"))
                    .collect(),
            }
        }
        Overlay::MiniAppMenu { app, host } => Overlay::Sheet {
            app: host.clone(),
            title: label(app),
            options: vec![
                choice("Share to a chat".into(), "share"),
                choice(format!("Back to {}", label(host)), "home"),
                choice("Restart mini-app".into(), "refresh"),
            ],
        },
        _ => return None,
    })
}

/// The modal overlay, if any, over everything but the navigation bar.
pub(crate) fn dialog_or_sheet(s: &mut Shell<'_>, overlay: &Overlay, bottom_inset: f32) -> ViewNode {
    if let Some(plain) = as_plain(s, overlay) {
        return dialog_or_sheet(s, &plain, bottom_inset);
    }
    let m = s.m;
    let t = s.theme;
    let mut root = scrim(s, bottom_inset);
    match overlay {
        Overlay::Dialog { app, title, text, buttons } => {
            root.style.justify = Justify::Center;
            root.style.align_items = Some(Align::Center);
            let mut card = container(Direction::Column);
            card.style.width = Some((s.width - m.dp(48.0)).min(m.dp(400.0)));
            card.style.padding = [m.dp(24.0), m.dp(24.0), m.dp(24.0), m.dp(16.0)];
            card.style.gap = m.dp(16.0);
            card.paint.background = Some(t.surface);
            card.paint.radius = m.dp(28.0);
            if !title.is_empty() {
                card.children.push(titled_text(s, app, title, 24.0, Weight::Regular, "alertTitle"));
                if let Some(last) = card.children.last_mut() {
                    if let phoneworld_layout::Content::Text(spec) = &mut last.content {
                        spec.color = t.on_surface;
                    }
                }
            }
            if !text.is_empty() {
                card.children.push(titled_text(s, app, text, 14.0, Weight::Regular, "message"));
            }
            let mut row = container(Direction::Row);
            row.style.justify = Justify::End;
            row.style.gap = m.dp(8.0);
            let buttons: Vec<Choice> = if buttons.is_empty() {
                vec![Choice { text: "OK".into(), icon: String::new(), handler: None, args: serde_json::Value::Null }]
            } else {
                buttons.clone()
            };
            for (i, choice) in buttons.iter().enumerate() {
                row.children.push(button(s, app, &choice.text, SystemAction::Choice(i)));
            }
            card.children.push(row);
            // Taps on the card itself must not fall through to the scrim.
            card.hit = Some(s.hit(crate::interaction::Hit::default()));
            card.set_a11y(kit::a11y("android.widget.FrameLayout", app));
            root.children.push(card);
        }
        Overlay::Sheet { app, title, options } => {
            root.style.justify = Justify::End;
            let mut sheet = container(Direction::Column);
            sheet.style.padding = [0.0, m.dp(8.0), 0.0, m.dp(16.0)];
            sheet.paint.background = Some(t.surface);
            sheet.paint.radius = m.dp(28.0);
            sheet.children.push(drag_handle(&m, t.outline, 8.0));
            if !title.is_empty() {
                let mut tv = titled_text(s, app, title, 16.0, Weight::Medium, "title");
                tv.style.padding = [m.dp(24.0), m.dp(8.0), m.dp(24.0), m.dp(8.0)];
                sheet.children.push(tv);
            }
            // Long option lists scroll inside the sheet (at most ~60% of the screen).
            let mut list = container(Direction::Column);
            list.style.scroll = true;
            list.style.grow = 0.0;
            list.style.shrink = true;
            list.scroll_y = s.store.session.sheet_scroll;
            let rows = options.len() as f32;
            list.style.height = Some((rows * m.dp(56.0)).min(s.width * 1.3));
            for (i, option) in options.iter().enumerate() {
                let mut row = container(Direction::Row);
                row.style.min_height = Some(m.dp(56.0));
                row.style.align_items = Some(Align::Center);
                row.style.padding = [m.dp(24.0), 0.0, m.dp(24.0), 0.0];
                row.style.gap = m.dp(16.0);
                if !option.icon.is_empty() {
                    row.children.push(kit::icon(&m, &option.icon, 24.0, t.on_surface_variant));
                }
                row.children.push(kit::text(&m, option.text.clone(), 16.0, Weight::Regular, t.on_surface));
                super::silence(&mut row);
                let mut a = kit::a11y("android.widget.TextView", app);
                a.text = option.text.clone();
                a.clickable = true;
                row.set_a11y(a);
                row.hit = Some(s.tap(SystemAction::Choice(i)));
                row.style.shrink = false;
                list.children.push(row);
            }
            let mut a = kit::a11y("androidx.recyclerview.widget.RecyclerView", app);
            a.scrollable = true;
            list.set_a11y(a);
            let scroll = crate::interaction::ScrollInfo { app: app.clone(), key: "sheet".into(), on_end: None, event: Default::default() };
            list.hit = Some(s.hit(crate::interaction::Hit { tap: None, long_press: None, scroll: Some(scroll) }));
            sheet.children.push(list);
            sheet.hit = Some(s.hit(crate::interaction::Hit::default()));
            let mut a = kit::a11y("android.widget.FrameLayout", app);
            a.resource_id = "com.google.android.material:id/design_bottom_sheet".into();
            sheet.set_a11y(a);
            root.children.push(sheet);
        }
        Overlay::TextMenu { app, x, y, .. } => {
            root.paint.background = None;
            let mut menu = container(Direction::Row);
            let width = m.dp(300.0);
            let left = (x - width / 2.0).clamp(m.dp(8.0), (s.width - width - m.dp(8.0)).max(0.0));
            let top = (y - m.dp(72.0)).max(m.dp(40.0));
            menu.style.absolute = Some([Some(left), Some(top), None, None]);
            menu.style.width = Some(width);
            menu.style.padding = [m.dp(4.0), 0.0, m.dp(4.0), 0.0];
            menu.style.justify = Justify::SpaceAround;
            menu.paint.background = Some(t.surface);
            menu.paint.border = Some((t.outline_variant, m.dp(1.0)));
            menu.paint.radius = m.dp(8.0);
            for (label, action) in [("Cut", SystemAction::Cut), ("Copy", SystemAction::Copy), ("Paste", SystemAction::Paste)] {
                menu.children.push(button(s, app, label, action));
            }
            menu.set_a11y(kit::a11y("android.widget.LinearLayout", app));
            root.children.push(menu);
        }
        _ => {}
    }
    root.set_a11y(kit::a11y("android.widget.FrameLayout", SYSTEM_UI));
    root
}

/// A toast (no touch) or a snackbar (with its action), above `bottom` pixels from the bottom.
pub(crate) fn transient(s: &mut Shell<'_>, item: &Transient, snackbar: bool, bottom: f32) -> ViewNode {
    let m = s.m;
    let t = s.theme;
    let mut bar = container(Direction::Row);
    bar.style.align_items = Some(Align::Center);
    bar.style.gap = m.dp(8.0);
    bar.paint.background = Some(t.inverse_surface);
    let mut text = kit::text(&m, item.text.clone(), 14.0, Weight::Regular, t.inverse_on_surface);
    let mut a = kit::a11y("android.widget.TextView", &item.app);
    a.text = item.text.clone();
    text.set_a11y(a);
    if snackbar {
        bar.style.absolute = Some([Some(m.dp(12.0)), None, Some(m.dp(12.0)), Some(bottom + m.dp(12.0))]);
        bar.style.min_height = Some(m.dp(48.0));
        bar.style.padding = [m.dp(16.0), m.dp(4.0), m.dp(8.0), m.dp(4.0)];
        bar.paint.radius = m.dp(4.0);
        text.style.grow = 1.0;
        bar.children.push(text);
        if let Some(action) = &item.action {
            let mut b = button(s, &item.app, &action.text, SystemAction::SnackbarAction);
            if let Some(first) = b.children.first_mut() {
                if let phoneworld_layout::Content::Text(spec) = &mut first.content {
                    spec.color = t.primary_container;
                }
            }
            bar.children.push(b);
        }
        bar.hit = Some(s.hit(crate::interaction::Hit::default()));
    } else {
        let width_guess = m.dp(48.0);
        bar.style.absolute = Some([Some(width_guess), None, Some(width_guess), Some(bottom + m.dp(64.0))]);
        bar.style.justify = Justify::Center;
        let mut pill = container(Direction::Row);
        pill.style.padding = [m.dp(16.0), m.dp(12.0), m.dp(16.0), m.dp(12.0)];
        pill.paint.background = Some(t.inverse_surface);
        pill.paint.radius = m.dp(24.0);
        pill.children.push(kit::centered(text));
        bar.paint.background = None;
        bar.children.push(pill);
    }
    bar.set_a11y(kit::a11y("android.widget.FrameLayout", SYSTEM_UI));
    bar
}

/// The grab bar at the top of a bottom sheet (32x4 dp), centred, `below_dp` above the content.
pub(super) fn drag_handle(m: &crate::theme::Metrics, color: phoneworld_render::Color, below_dp: f32) -> ViewNode {
    let mut row = container(Direction::Row);
    row.style.justify = Justify::Center;
    row.style.padding = [0.0, m.dp(8.0), 0.0, m.dp(below_dp)];
    let mut handle = ViewNode::default();
    handle.style.width = Some(m.dp(32.0));
    handle.style.height = Some(m.dp(4.0));
    handle.paint.background = Some(color);
    handle.paint.radius = m.dp(2.0);
    row.children.push(handle);
    row
}
