//! The notification shade: quick settings tiles and the notification list. Tapping a
//! notification opens its app where it points.

use phoneworld_data::CivilTime;
use phoneworld_layout::{Align, Direction, Justify, ViewNode};
use phoneworld_text::Weight;

use super::{Shell, SYSTEM_UI};
use crate::builder::container;
use crate::interaction::SystemAction;
use crate::kit;

const TILES: [(&str, &str, &str); 4] = [
    ("wifi", "Internet", "wifi"),
    ("bluetooth", "Bluetooth", "bluetooth"),
    ("airplane_mode", "Airplane mode", "airplanemode_active"),
    ("dark_theme", "Dark theme", "dark_mode"),
];

pub(crate) fn shade(s: &mut Shell<'_>, bottom_inset: f32) -> ViewNode {
    let m = s.m;
    let t = s.theme;
    let mut panel = container(Direction::Column);
    panel.style.absolute = Some([Some(0.0), Some(0.0), Some(0.0), Some(bottom_inset)]);
    panel.style.padding = [m.dp(16.0), m.dp(24.0), m.dp(16.0), m.dp(16.0)];
    panel.style.gap = m.dp(12.0);
    panel.paint.background = Some(t.background);

    let now = CivilTime::from_ms(s.store.session.clock_ms);
    let h24 = phoneworld_data::clock_24h(&s.store.system);
    let mut time = kit::text(&m, super::short_clock(&now, h24), 36.0, Weight::Regular, t.on_surface);
    let mut a = kit::a11y("android.widget.TextView", SYSTEM_UI);
    a.text = super::short_clock(&now, h24);
    time.set_a11y(a);
    panel.children.push(time);
    let mut date = kit::text(&m, now.format("%a, %b %e").replace("  ", " "), 14.0, Weight::Regular, t.on_surface_variant);
    let mut a = kit::a11y("android.widget.TextView", SYSTEM_UI);
    a.text = now.format("%a, %b %e").replace("  ", " ");
    date.set_a11y(a);
    panel.children.push(date);

    let mut tiles = container(Direction::Column);
    tiles.style.gap = m.dp(8.0);
    for pair in TILES.chunks(2) {
        let mut row = container(Direction::Row);
        row.style.gap = m.dp(8.0);
        for (key, label, icon) in pair {
            let on = s.store.system.get(*key).and_then(serde_json::Value::as_bool).unwrap_or(false);
            let mut tile = container(Direction::Row);
            tile.style.grow = 1.0;
            tile.style.width = Some(0.0);
            tile.style.height = Some(m.dp(64.0));
            tile.style.align_items = Some(Align::Center);
            tile.style.padding = [m.dp(16.0), 0.0, m.dp(16.0), 0.0];
            tile.style.gap = m.dp(12.0);
            tile.paint.radius = m.dp(32.0);
            tile.paint.background = Some(if on { t.primary } else { t.surface_variant });
            let fg = if on { t.on_primary } else { t.on_surface };
            tile.children.push(kit::icon(&m, icon, 24.0, fg));
            let mut labels = container(Direction::Column);
            labels.style.grow = 1.0;
            labels.children.push(kit::one_line(kit::text(&m, (*label).into(), 14.0, Weight::Medium, fg)));
            labels.children.push(kit::text(&m, if on { "On".into() } else { "Off".into() }, 12.0, Weight::Regular, fg));
            tile.children.push(labels);
            super::silence(&mut tile);
            let mut a = kit::a11y("android.widget.Switch", SYSTEM_UI);
            a.text = (*label).into();
            a.content_desc = (*label).into();
            a.checkable = true;
            a.checked = on;
            a.clickable = true;
            tile.set_a11y(a);
            tile.hit = Some(s.tap(SystemAction::QuickToggle(key)));
            row.children.push(tile);
        }
        tiles.children.push(row);
    }
    panel.children.push(tiles);

    let mut list = container(Direction::Column);
    list.style.scroll = true;
    list.style.grow = 1.0;
    list.style.gap = m.dp(8.0);
    let notifications = s.store.session.notifications.clone();
    for n in notifications.iter().rev() {
        let app_label = s.catalog.get(&n.app).map_or(n.app.clone(), |a| a.label().to_owned());
        let icon_name = s.catalog.get(&n.app).map_or("notifications".to_owned(), |a| a.bundle.manifest.icon.clone());
        let mut card = container(Direction::Row);
        card.style.shrink = false;
        card.style.padding = [m.dp(16.0); 4];
        card.style.gap = m.dp(16.0);
        card.style.align_items = Some(Align::Start);
        card.paint.background = Some(t.surface);
        card.paint.radius = m.dp(20.0);
        card.children.push(kit::icon(&m, if n.icon.is_empty() { &icon_name } else { &n.icon }, 24.0, t.primary));
        let mut texts = container(Direction::Column);
        texts.style.grow = 1.0;
        texts.style.gap = m.dp(2.0);
        let posted = CivilTime::from_ms(n.posted_ms);
        let mut head =
            kit::text(&m, format!("{app_label} · {}", super::short_clock(&posted, h24)), 12.0, Weight::Regular, t.on_surface_variant);
        let mut a = kit::a11y("android.widget.TextView", SYSTEM_UI);
        a.text = format!("{app_label} · {}", super::short_clock(&posted, h24));
        head.set_a11y(a);
        texts.children.push(head);
        let mut title = kit::text(&m, n.title.clone(), 16.0, Weight::Medium, t.on_surface);
        let mut a = kit::a11y("android.widget.TextView", SYSTEM_UI);
        a.text = n.title.clone();
        title.set_a11y(a);
        texts.children.push(title);
        if !n.text.is_empty() {
            let mut body = kit::text(&m, n.text.clone(), 14.0, Weight::Regular, t.on_surface_variant);
            let mut a = kit::a11y("android.widget.TextView", SYSTEM_UI);
            a.text = n.text.clone();
            body.set_a11y(a);
            texts.children.push(body);
        }
        if !n.actions.is_empty() {
            let mut buttons = container(Direction::Row);
            buttons.style.gap = m.dp(8.0);
            for (i, action) in n.actions.iter().enumerate() {
                let mut b = container(Direction::Row);
                b.style.min_height = Some(m.dp(48.0));
                b.style.min_width = Some(m.dp(48.0));
                b.style.align_items = Some(Align::Center);
                b.style.justify = Justify::Center;
                b.style.padding = [m.dp(8.0), 0.0, m.dp(8.0), 0.0];
                b.children.push(kit::text(&m, action.text.clone(), 14.0, Weight::Medium, t.primary));
                super::silence(&mut b);
                let mut a = kit::a11y("android.widget.Button", SYSTEM_UI);
                a.text = action.text.clone();
                a.clickable = true;
                b.set_a11y(a);
                b.hit = Some(s.tap(SystemAction::NotificationAction(n.id, i)));
                buttons.children.push(b);
            }
            texts.children.push(buttons);
        }
        card.children.push(texts);
        let mut a = kit::a11y("android.widget.FrameLayout", SYSTEM_UI);
        a.clickable = true;
        a.resource_id = "com.android.systemui:id/notification".into();
        card.set_a11y(a);
        card.hit = Some(s.tap(SystemAction::OpenNotification(n.id)));
        list.children.push(card);
    }
    if notifications.is_empty() {
        let mut empty = kit::centered(kit::text(&m, "No notifications".into(), 16.0, Weight::Regular, t.on_surface_variant));
        empty.style.margin = [0.0, m.dp(32.0), 0.0, 0.0];
        let mut a = kit::a11y("android.widget.TextView", SYSTEM_UI);
        a.text = "No notifications".into();
        empty.set_a11y(a);
        list.children.push(empty);
    }
    let mut a = kit::a11y("android.widget.ScrollView", SYSTEM_UI);
    a.scrollable = true;
    list.set_a11y(a);
    panel.children.push(list);

    let mut actions = container(Direction::Row);
    actions.style.justify = Justify::SpaceBetween;
    for (label, action) in [("Clear all", SystemAction::ClearNotifications), ("Close", SystemAction::CloseShade)] {
        if label == "Clear all" && notifications.is_empty() {
            actions.children.push(ViewNode::default());
            continue;
        }
        let mut b = container(Direction::Row);
        b.style.height = Some(m.dp(48.0));
        b.style.padding = [m.dp(20.0), 0.0, m.dp(20.0), 0.0];
        b.style.align_items = Some(Align::Center);
        b.paint.background = Some(t.surface_variant);
        b.paint.radius = m.dp(24.0);
        b.children.push(kit::text(&m, label.into(), 14.0, Weight::Medium, t.on_surface));
        super::silence(&mut b);
        let mut a = kit::a11y("android.widget.Button", SYSTEM_UI);
        a.text = label.into();
        a.clickable = true;
        b.set_a11y(a);
        b.hit = Some(s.tap(action));
        actions.children.push(b);
    }
    panel.children.push(actions);
    let mut a = kit::a11y("android.widget.FrameLayout", SYSTEM_UI);
    a.resource_id = "com.android.systemui:id/notification_panel".into();
    panel.set_a11y(a);
    panel
}
