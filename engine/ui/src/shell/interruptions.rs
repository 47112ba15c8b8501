//! Interruptions drawn like Android's own: the heads-up banner of a new notification, the
//! permission controller's grant dialog, the Play Store's review card and update sheet, and
//! System UI's low-battery alert. Every button carries its text and a real resource id.

use phoneworld_layout::{Align, Direction, Justify, ViewNode};
use phoneworld_text::Weight;

use super::{Shell, SYSTEM_UI};
use crate::builder::container;
use crate::interaction::SystemAction;
use crate::interruptions::{Button, Shown};
use crate::kit;
use crate::store::Notification;

const PERMISSIONS: &str = "com.android.permissioncontroller";
const VENDING: &str = "com.android.vending";

fn label(s: &Shell<'_>, package: &str) -> String {
    s.catalog.get(package).map_or_else(|| package.to_owned(), |a| a.label().to_owned())
}

fn app_icon(s: &Shell<'_>, package: &str) -> String {
    s.catalog.get(package).map_or_else(|| "android".to_owned(), |a| a.bundle.manifest.icon.clone())
}

fn text_view(s: &Shell<'_>, package: &str, text: &str, size: f32, weight: Weight, id: &str, center: bool) -> ViewNode {
    let color = if weight == Weight::Regular && size < 16.0 { s.theme.on_surface_variant } else { s.theme.on_surface };
    let mut v = kit::text(&s.m, text.to_owned(), size, weight, color);
    if center {
        v = kit::centered(v);
    }
    let mut a = kit::a11y("android.widget.TextView", package);
    a.text = text.to_owned();
    a.resource_id = id.to_owned();
    v.set_a11y(a);
    v
}

/// A button: `filled` (primary), `tonal` (the permission dialog's stacked ones) or text.
#[derive(Clone, Copy, PartialEq)]
enum Look {
    Filled,
    Tonal,
    Text,
}

fn button(s: &mut Shell<'_>, package: &str, b: &Button, index: usize, look: Look) -> ViewNode {
    let m = s.m;
    let t = s.theme;
    let mut v = container(Direction::Row);
    v.style.min_height = Some(m.dp(if look == Look::Tonal { 52.0 } else { 40.0 }));
    v.style.min_width = Some(m.dp(48.0));
    v.style.justify = Justify::Center;
    v.style.align_items = Some(Align::Center);
    v.style.padding = [m.dp(16.0), 0.0, m.dp(16.0), 0.0];
    v.paint.radius = m.dp(26.0);
    let fg = match look {
        Look::Filled => {
            v.paint.background = Some(t.primary);
            t.on_primary
        }
        Look::Tonal => {
            v.paint.background = Some(t.primary_container);
            t.on_primary_container
        }
        Look::Text => t.primary,
    };
    v.children.push(kit::text(&m, b.text.clone(), 14.0, Weight::Medium, fg));
    super::silence(&mut v);
    let mut a = kit::a11y("android.widget.Button", package);
    a.text = b.text.clone();
    a.resource_id = b.id.clone();
    a.clickable = true;
    v.set_a11y(a);
    v.hit = Some(s.tap(SystemAction::InterruptionButton(index)));
    v
}

fn card(s: &mut Shell<'_>, package: &str, id: &str) -> ViewNode {
    let m = s.m;
    let mut card = container(Direction::Column);
    card.style.width = Some((s.width - m.dp(48.0)).min(m.dp(400.0)));
    card.style.padding = [m.dp(24.0), m.dp(24.0), m.dp(24.0), m.dp(20.0)];
    card.style.gap = m.dp(16.0);
    card.paint.background = Some(s.theme.surface);
    card.paint.radius = m.dp(28.0);
    // Taps on the card itself do not reach the dimmed screen around it.
    card.hit = Some(s.hit(crate::interaction::Hit::default()));
    let mut a = kit::a11y("android.widget.LinearLayout", package);
    a.resource_id = id.to_owned();
    card.set_a11y(a);
    card
}

fn centered_icon(s: &Shell<'_>, name: &str, size: f32) -> ViewNode {
    let mut row = container(Direction::Row);
    row.style.justify = Justify::Center;
    row.children.push(kit::icon(&s.m, name, size, s.theme.primary));
    row
}

/// The modal interruption over everything but the navigation bar.
pub(crate) fn interruption(s: &mut Shell<'_>, shown: &Shown, bottom_inset: f32) -> ViewNode {
    let m = s.m;
    let t = s.theme;
    let mut root = container(Direction::Column);
    root.style.absolute = Some([Some(0.0), Some(0.0), Some(0.0), Some(bottom_inset)]);
    root.paint.background = Some(t.scrim);
    root.hit = Some(s.tap(SystemAction::InterruptionOutside));
    root.style.justify = Justify::Center;
    root.style.align_items = Some(Align::Center);
    let buttons = shown.buttons();
    let owner = match shown {
        Shown::Permission { permission, app } => {
            let mut c = card(s, PERMISSIONS, &format!("{PERMISSIONS}:id/grant_dialog"));
            c.children.push(centered_icon(s, permission.icon(), 28.0));
            let question = permission.question(&label(s, app));
            c.children.push(text_view(
                s,
                PERMISSIONS,
                &question,
                20.0,
                Weight::Regular,
                &format!("{PERMISSIONS}:id/permission_message"),
                true,
            ));
            let mut stack = container(Direction::Column);
            stack.style.gap = m.dp(8.0);
            stack.style.align_items = Some(Align::Stretch);
            for (i, b) in buttons.iter().enumerate() {
                stack.children.push(button(s, PERMISSIONS, b, i, Look::Tonal));
            }
            c.children.push(stack);
            root.children.push(c);
            PERMISSIONS
        }
        Shown::RateApp { app } => {
            let mut c = card(s, VENDING, &format!("{VENDING}:id/review_dialog"));
            let mut head = container(Direction::Row);
            head.style.gap = m.dp(12.0);
            head.style.align_items = Some(Align::Center);
            let mut badge = container(Direction::Row);
            badge.style.width = Some(m.dp(40.0));
            badge.style.height = Some(m.dp(40.0));
            badge.style.justify = Justify::Center;
            badge.style.align_items = Some(Align::Center);
            badge.paint.background = Some(t.primary_container);
            badge.paint.radius = m.dp(10.0);
            badge.children.push(kit::icon(&m, &app_icon(s, app), 24.0, t.on_primary_container));
            head.children.push(badge);
            let name = label(s, app);
            head.children.push(text_view(s, VENDING, &name, 16.0, Weight::Medium, &format!("{VENDING}:id/app_title"), false));
            c.children.push(head);
            c.children.push(text_view(
                s,
                VENDING,
                &format!("Enjoying {name}?"),
                22.0,
                Weight::Regular,
                &format!("{VENDING}:id/title"),
                false,
            ));
            c.children.push(text_view(
                s,
                VENDING,
                "Tap a star to rate it on the Play Store.",
                14.0,
                Weight::Regular,
                &format!("{VENDING}:id/message"),
                false,
            ));
            let mut stars = container(Direction::Row);
            stars.style.justify = Justify::SpaceBetween;
            for (i, b) in buttons.iter().enumerate().take(5) {
                let mut star = container(Direction::Row);
                star.style.width = Some(m.dp(48.0));
                star.style.height = Some(m.dp(48.0));
                star.style.justify = Justify::Center;
                star.style.align_items = Some(Align::Center);
                star.children.push(kit::icon(&m, "star_border", 36.0, t.on_surface_variant));
                let mut a = kit::a11y("android.widget.ImageButton", VENDING);
                a.content_desc = format!("Rate {}", b.text);
                a.resource_id = b.id.clone();
                a.clickable = true;
                star.set_a11y(a);
                star.hit = Some(s.tap(SystemAction::InterruptionButton(i)));
                stars.children.push(star);
            }
            c.children.push(stars);
            let mut row = container(Direction::Row);
            row.style.justify = Justify::End;
            if let Some(not_now) = buttons.get(5) {
                row.children.push(button(s, VENDING, not_now, 5, Look::Text));
            }
            c.children.push(row);
            root.children.push(c);
            VENDING
        }
        Shown::AppUpdate { app, version, size_mb } => {
            root.style.justify = Justify::End;
            root.style.align_items = Some(Align::Stretch);
            let mut sheet = container(Direction::Column);
            sheet.style.padding = [m.dp(24.0), m.dp(8.0), m.dp(24.0), m.dp(24.0)];
            sheet.style.gap = m.dp(16.0);
            sheet.paint.background = Some(t.surface);
            sheet.paint.radius = m.dp(28.0);
            sheet.children.push(super::overlays::drag_handle(&m, t.outline, 4.0));
            let mut head = container(Direction::Row);
            head.style.gap = m.dp(12.0);
            head.style.align_items = Some(Align::Center);
            head.children.push(kit::icon(&m, "shop", 24.0, t.primary));
            head.children.push(text_view(s, VENDING, "Google Play", 14.0, Weight::Medium, "", false));
            sheet.children.push(head);
            sheet.children.push(text_view(s, VENDING, "Update available", 22.0, Weight::Regular, &format!("{VENDING}:id/title"), false));
            let name = label(s, app);
            let text = format!("A new version of {name} is available. Update now to get the latest features and fixes.");
            sheet.children.push(text_view(s, VENDING, &text, 14.0, Weight::Regular, &format!("{VENDING}:id/message"), false));
            let detail = format!("Version {version} · {size_mb} MB");
            sheet.children.push(text_view(s, VENDING, &detail, 12.0, Weight::Regular, &format!("{VENDING}:id/details"), false));
            let mut row = container(Direction::Row);
            row.style.justify = Justify::End;
            row.style.gap = m.dp(8.0);
            row.children.push(button(s, VENDING, &buttons[0], 0, Look::Text));
            row.children.push(button(s, VENDING, &buttons[1], 1, Look::Filled));
            sheet.children.push(row);
            sheet.hit = Some(s.hit(crate::interaction::Hit::default()));
            let mut a = kit::a11y("android.widget.FrameLayout", VENDING);
            a.resource_id = "com.google.android.material:id/design_bottom_sheet".into();
            sheet.set_a11y(a);
            root.children.push(sheet);
            VENDING
        }
        Shown::LowBattery { level } => {
            let mut c = card(s, SYSTEM_UI, "com.android.systemui:id/low_battery_dialog");
            c.children.push(centered_icon(s, "battery_alert", 28.0));
            c.children.push(text_view(s, SYSTEM_UI, "Battery low", 24.0, Weight::Regular, "android:id/alertTitle", true));
            let text = format!("{level}% remaining");
            c.children.push(text_view(s, SYSTEM_UI, &text, 14.0, Weight::Regular, "android:id/message", true));
            let mut row = container(Direction::Row);
            row.style.justify = Justify::End;
            row.style.gap = m.dp(8.0);
            for (i, b) in buttons.iter().enumerate() {
                row.children.push(button(s, SYSTEM_UI, b, i, Look::Text));
            }
            c.children.push(row);
            root.children.push(c);
            SYSTEM_UI
        }
    };
    root.set_a11y(kit::a11y("android.widget.FrameLayout", owner));
    root
}

/// The heads-up banner of a new notification, over the top of the screen. A tap opens it;
/// swiping it up puts it away.
pub(crate) fn heads_up(s: &mut Shell<'_>, n: &Notification) -> ViewNode {
    let m = s.m;
    let t = s.theme;
    let mut banner = container(Direction::Row);
    banner.style.absolute = Some([Some(m.dp(8.0)), Some(m.dp(8.0)), Some(m.dp(8.0)), None]);
    banner.style.padding = [m.dp(16.0), m.dp(14.0), m.dp(16.0), m.dp(14.0)];
    banner.style.gap = m.dp(14.0);
    banner.style.align_items = Some(Align::Start);
    banner.paint.background = Some(t.surface);
    banner.paint.border = Some((t.outline_variant, m.dp(1.0)));
    banner.paint.radius = m.dp(24.0);
    let icon = if n.icon.is_empty() { app_icon(s, &n.app) } else { n.icon.clone() };
    let mut badge = container(Direction::Row);
    badge.style.width = Some(m.dp(36.0));
    badge.style.height = Some(m.dp(36.0));
    badge.style.justify = Justify::Center;
    badge.style.align_items = Some(Align::Center);
    badge.paint.background = Some(t.primary);
    badge.paint.circle = true;
    badge.children.push(kit::icon(&m, &icon, 20.0, t.on_primary));
    banner.children.push(badge);
    let mut texts = container(Direction::Column);
    texts.style.grow = 1.0;
    texts.style.gap = m.dp(2.0);
    let app_label = label(s, &n.app);
    texts.children.push(text_view(s, SYSTEM_UI, &format!("{app_label} · now"), 12.0, Weight::Regular, "android:id/app_name_text", false));
    let mut title = text_view(s, SYSTEM_UI, &n.title, 16.0, Weight::Medium, "android:id/title", false);
    title = kit::one_line(title);
    texts.children.push(title);
    if !n.text.is_empty() {
        texts.children.push(kit::one_line(text_view(s, SYSTEM_UI, &n.text, 14.0, Weight::Regular, "android:id/text", false)));
    }
    banner.children.push(texts);
    let mut a = kit::a11y("android.widget.FrameLayout", SYSTEM_UI);
    a.resource_id = "com.android.systemui:id/heads_up".into();
    a.content_desc = format!("{app_label} notification: {}", n.title);
    a.clickable = true;
    banner.set_a11y(a);
    banner.hit = Some(s.tap(SystemAction::HeadsUp(n.id)));
    banner
}
