//! The status bar (clock, notification icons, connectivity, battery) and the 3-button
//! navigation bar.

use phoneworld_data::CivilTime;
use phoneworld_layout::{Align, Direction, Justify, ViewNode};
use phoneworld_render::Color;
use phoneworld_text::Weight;

use super::{Shell, SYSTEM_UI};
use crate::builder::container;
use crate::interaction::SystemAction;
use crate::kit;

/// The ink of a bar's icons and text: the theme's, or what reads on the colour the screen
/// paints the bar.
fn bar_ink(s: &Shell<'_>, paint: Option<Color>) -> (Color, Color) {
    match paint {
        Some(c) => (crate::accent::ink_on(c), crate::accent::ink_on(c)),
        None => (s.theme.on_surface, s.theme.on_surface_variant),
    }
}

pub(crate) fn status_bar(s: &mut Shell<'_>, height: f32, paint: Option<Color>) -> ViewNode {
    let (ink, ink_variant) = bar_ink(s, paint);
    let m = s.m;
    let mut bar = container(Direction::Row);
    bar.paint.background = paint;
    bar.style.height = Some(height);
    bar.style.shrink = false;
    bar.style.align_items = Some(Align::Center);
    bar.style.padding = [m.dp(20.0), 0.0, m.dp(20.0), 0.0];
    bar.style.gap = m.dp(6.0);
    let now = CivilTime::from_ms(s.store.session.clock_ms);
    let clock_text = super::short_clock(&now, phoneworld_data::clock_24h(&s.store.system));
    let mut clock = kit::text(&m, clock_text.clone(), 14.0, Weight::Medium, ink);
    let mut a = kit::a11y("android.widget.TextView", SYSTEM_UI);
    a.text = clock_text;
    a.resource_id = "com.android.systemui:id/clock".into();
    clock.set_a11y(a);
    bar.children.push(clock);
    // One icon per app with notifications, like Android.
    let mut seen: Vec<&str> = Vec::new();
    for n in &s.store.session.notifications {
        if seen.contains(&n.app.as_str()) || seen.len() >= 4 {
            continue;
        }
        seen.push(&n.app);
        let name = s.catalog.get(&n.app).map_or("notifications", |a| a.bundle.manifest.icon.as_str());
        let mut icon = kit::icon(&m, name, 16.0, ink_variant);
        let mut a = kit::a11y("android.widget.ImageView", SYSTEM_UI);
        a.content_desc = format!("{} notification: {}", s.catalog.get(&n.app).map_or(n.app.as_str(), |a| a.label()), n.title);
        icon.set_a11y(a);
        bar.children.push(icon);
    }
    let mut spacer = ViewNode::default();
    spacer.style.grow = 1.0;
    bar.children.push(spacer);
    let sys = &s.store.system;
    let on = |k: &str| sys.get(k).and_then(serde_json::Value::as_bool).unwrap_or(false);
    let mut indicators: Vec<(&str, String)> = Vec::new();
    if on("airplane_mode") {
        indicators.push(("airplane_mode_active", "Airplane mode on".into()));
    } else {
        if on("wifi") {
            indicators.push(("wifi", "Wi-Fi signal full".into()));
        }
        indicators.push(("signal_cellular_4_bar", "Phone signal full".into()));
    }
    if on("bluetooth") {
        indicators.push(("bluetooth", "Bluetooth on".into()));
    }
    let elapsed_min = (s.store.session.clock_ms - crate::store::EPOCH_START_MS).max(0) / 60_000;
    let mut battery = 100 - (elapsed_min / 15).min(85);
    if let Some(low) = s.store.session.interruptions.battery_level {
        battery = battery.min(i64::from(low));
    }
    if s.store.session.interruptions.battery_saver {
        indicators.push(("battery_saver", "Battery Saver on".into()));
    }
    indicators.push((if battery > 20 { "battery_full" } else { "battery_alert" }, format!("Battery {battery} percent")));
    for (name, desc) in indicators {
        let mut icon = kit::icon(&m, name, 16.0, ink);
        let mut a = kit::a11y("android.widget.ImageView", SYSTEM_UI);
        a.content_desc = desc;
        icon.set_a11y(a);
        bar.children.push(icon);
    }
    let mut pct = kit::text(&m, format!("{battery}%"), 14.0, Weight::Medium, ink);
    pct.a11y = None;
    bar.children.push(pct);
    let mut a = kit::a11y("android.widget.FrameLayout", SYSTEM_UI);
    a.resource_id = "com.android.systemui:id/status_bar".into();
    bar.set_a11y(a);
    bar
}

pub(crate) fn nav_bar(s: &mut Shell<'_>, height: f32, paint: Option<Color>) -> ViewNode {
    let (_, ink_variant) = bar_ink(s, paint);
    let m = s.m;
    let mut bar = container(Direction::Row);
    bar.paint.background = paint;
    bar.style.height = Some(height);
    bar.style.shrink = false;
    bar.style.align_items = Some(Align::Center);
    // Android's three-button bar: half a button's width at each end, then back, home and
    // overview a quarter of the screen each (their icons at a quarter, half and three quarters
    // across).
    bar.style.justify = Justify::Center;
    for (icon, desc, id, action) in [
        ("arrow_back_ios_new", "Back", "back", SystemAction::Back),
        ("radio_button_unchecked", "Home", "home", SystemAction::Home),
        ("crop_square", "Overview", "recent_apps", SystemAction::Recents),
    ] {
        let mut button = container(Direction::Column);
        button.style.width = Some(s.width / 4.0);
        button.style.height = Some(height);
        button.style.align_items = Some(Align::Center);
        button.style.justify = Justify::Center;
        button.children.push(kit::icon(&m, icon, 24.0, ink_variant));
        let mut a = kit::a11y("android.widget.ImageView", SYSTEM_UI);
        a.content_desc = desc.into();
        a.resource_id = format!("com.android.systemui:id/{id}");
        a.clickable = true;
        a.long_clickable = false;
        button.set_a11y(a);
        button.hit = Some(s.tap(action));
        bar.children.push(button);
    }
    let mut a = kit::a11y("android.widget.FrameLayout", SYSTEM_UI);
    a.resource_id = "com.android.systemui:id/navigation_bar_frame".into();
    bar.set_a11y(a);
    bar
}
