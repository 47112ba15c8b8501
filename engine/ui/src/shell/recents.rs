//! The recents screen: a card per running app, most recent first; tap a card to switch to
//! it, its × to close it, or Clear all.

use phoneworld_layout::{Align, Direction, Justify, ViewNode};
use phoneworld_render::Color;
use phoneworld_text::Weight;

use super::{Shell, LAUNCHER};
use crate::builder::container;
use crate::interaction::{Hit, ScrollInfo, SystemAction};
use crate::kit;

pub(crate) fn recents(s: &mut Shell<'_>) -> ViewNode {
    let m = s.m;
    let t = s.theme;
    let mut screen = container(Direction::Column);
    screen.style.grow = 1.0;
    screen.paint.background = Some(t.surface_variant);
    screen.style.padding = [m.dp(16.0), m.dp(16.0), m.dp(16.0), m.dp(8.0)];
    screen.style.gap = m.dp(8.0);

    let mut list = container(Direction::Column);
    list.style.scroll = true;
    list.style.grow = 1.0;
    list.style.gap = m.dp(16.0);
    list.scroll_y = s.store.session.recents_scroll;
    let recents = s.store.session.recents.clone();
    for package in &recents {
        let Some(app) = s.catalog.get(package) else { continue };
        let manifest = &app.bundle.manifest;
        let (label, icon_name) = (manifest.label.clone(), manifest.icon.clone());
        let color = Color::parse_hex(&manifest.color).unwrap_or(t.primary);
        let title = s
            .store
            .top(package)
            .and_then(|e| app.bundle.screens.get(&e.screen))
            .map(|sc| if sc.title.is_empty() { sc.id.clone() } else { sc.title.clone() })
            .unwrap_or_default();
        let mut card = container(Direction::Column);
        card.style.shrink = false;
        card.style.height = Some(m.dp(220.0));
        card.paint.background = Some(t.surface);
        card.paint.radius = m.dp(20.0);
        card.paint.clip = true;
        let mut header = container(Direction::Row);
        header.style.align_items = Some(Align::Center);
        header.style.padding = [m.dp(16.0), 0.0, 0.0, 0.0];
        header.style.gap = m.dp(12.0);
        let mut badge = container(Direction::Column);
        badge.style.width = Some(m.dp(32.0));
        badge.style.height = Some(m.dp(32.0));
        badge.style.align_items = Some(Align::Center);
        badge.style.justify = Justify::Center;
        badge.paint.circle = true;
        badge.paint.background = Some(color);
        badge.children.push(kit::icon(&m, &icon_name, 18.0, Color::WHITE));
        header.children.push(badge);
        let mut name = kit::text(&m, label.clone(), 16.0, Weight::Medium, t.on_surface);
        name.style.grow = 1.0;
        let mut a = kit::a11y("android.widget.TextView", LAUNCHER);
        a.text = label.clone();
        name.set_a11y(a);
        header.children.push(name);
        let mut close = container(Direction::Column);
        close.style.width = Some(m.dp(48.0));
        close.style.height = Some(m.dp(48.0));
        close.style.align_items = Some(Align::Center);
        close.style.justify = Justify::Center;
        close.children.push(kit::icon(&m, "close", 24.0, t.on_surface_variant));
        let mut a = kit::a11y("android.widget.ImageButton", LAUNCHER);
        a.content_desc = format!("Close {label}");
        a.clickable = true;
        close.set_a11y(a);
        close.hit = Some(s.tap(SystemAction::CloseTask(package.clone())));
        header.children.push(close);
        card.children.push(header);
        let mut preview = container(Direction::Column);
        preview.style.grow = 1.0;
        preview.style.margin = [m.dp(16.0), 0.0, m.dp(16.0), m.dp(16.0)];
        preview.style.padding = [m.dp(16.0); 4];
        preview.paint.background = Some(t.background);
        preview.paint.radius = m.dp(12.0);
        let mut title_view = kit::text(&m, title.clone(), 20.0, Weight::Regular, t.on_surface_variant);
        let mut a = kit::a11y("android.widget.TextView", LAUNCHER);
        a.text = title;
        title_view.set_a11y(a);
        preview.children.push(title_view);
        card.children.push(preview);
        let mut a = kit::a11y("android.widget.FrameLayout", LAUNCHER);
        a.content_desc = label;
        a.clickable = true;
        card.set_a11y(a);
        card.hit = Some(s.tap(SystemAction::SwitchTo(package.clone())));
        list.children.push(card);
    }
    if recents.is_empty() {
        let mut empty = kit::centered(kit::text(&m, "No recent items".into(), 16.0, Weight::Regular, t.on_surface_variant));
        empty.style.margin = [0.0, m.dp(240.0), 0.0, 0.0];
        let mut a = kit::a11y("android.widget.TextView", LAUNCHER);
        a.text = "No recent items".into();
        empty.set_a11y(a);
        list.children.push(empty);
    }
    let mut a = kit::a11y("androidx.recyclerview.widget.RecyclerView", LAUNCHER);
    a.scrollable = true;
    list.set_a11y(a);
    let scroll = ScrollInfo { app: LAUNCHER.into(), key: "recents".into(), on_end: None, event: Default::default() };
    list.hit = Some(s.hit(Hit { tap: None, long_press: None, scroll: Some(scroll) }));
    screen.children.push(list);

    if !recents.is_empty() {
        let mut clear = container(Direction::Row);
        clear.style.height = Some(m.dp(48.0));
        clear.style.align_self = Some(phoneworld_layout::Align::Center);
        clear.style.align_items = Some(Align::Center);
        clear.style.padding = [m.dp(24.0), 0.0, m.dp(24.0), 0.0];
        clear.paint.background = Some(t.surface);
        clear.paint.radius = m.dp(24.0);
        clear.children.push(kit::text(&m, "Clear all".into(), 14.0, Weight::Medium, t.on_surface));
        super::silence(&mut clear);
        let mut a = kit::a11y("android.widget.Button", LAUNCHER);
        a.text = "Clear all".into();
        a.clickable = true;
        clear.set_a11y(a);
        clear.hit = Some(s.tap(SystemAction::ClearRecents));
        screen.children.push(clear);
    }
    screen.set_a11y(kit::a11y("android.widget.FrameLayout", LAUNCHER));
    screen
}
