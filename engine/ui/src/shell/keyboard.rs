//! The soft keyboard: letters (with shift), symbols, space, delete and enter. Its keys type
//! into the focused field when tapped.

use phoneworld_layout::{Align, Direction, Justify, ViewNode};
use phoneworld_text::Weight;

use super::{Shell, KEYBOARD};
use crate::builder::container;
use crate::interaction::SystemAction;
use crate::kit;

const LETTERS: [&str; 3] = ["qwertyuiop", "asdfghjkl", "zxcvbnm"];
const SYMBOLS: [&str; 3] = ["1234567890", "@#$_&-+()/", "*\"':;!?"];

/// Height of the keyboard in dp.
pub(crate) const KEYBOARD_DP: f32 = 4.0 * 58.0 + 16.0;

enum Key {
    Char(char),
    Action { label: &'static str, icon: Option<&'static str>, desc: &'static str, action: SystemAction, grow: f32 },
}

fn key_view(s: &mut Shell<'_>, key: Key, shift: bool) -> ViewNode {
    let t = s.theme;
    let m = s.m;
    let mut v = container(Direction::Column);
    v.style.height = Some(m.dp(54.0));
    v.style.align_items = Some(Align::Center);
    v.style.justify = Justify::Center;
    v.style.width = Some(0.0);
    v.paint.radius = m.dp(6.0);
    let mut a = kit::a11y("android.widget.Button", KEYBOARD);
    a.clickable = true;
    match key {
        Key::Char(c) => {
            let shown: String = if shift { c.to_uppercase().collect() } else { c.to_string() };
            v.style.grow = 1.0;
            v.paint.background = Some(t.surface);
            v.children.push(kit::text(&m, shown.clone(), 22.0, Weight::Regular, t.on_surface));
            let typed = shown.chars().next().unwrap_or(c);
            a.content_desc = shown;
            v.hit = Some(s.tap(SystemAction::TypeChar(typed)));
        }
        Key::Action { label, icon, desc, action, grow } => {
            v.style.grow = grow;
            v.paint.background = Some(if matches!(action, SystemAction::Enter) { t.primary_container } else { t.surface_variant });
            match icon {
                Some(name) => v.children.push(kit::icon(&m, name, 24.0, t.on_surface)),
                None => v.children.push(kit::text(&m, label.into(), 16.0, Weight::Medium, t.on_surface)),
            }
            a.content_desc = desc.into();
            v.hit = Some(s.tap(action));
        }
    }
    super::silence(&mut v);
    v.set_a11y(a);
    v
}

pub(crate) fn keyboard(s: &mut Shell<'_>, symbols: bool, shift: bool) -> ViewNode {
    let t = s.theme;
    let m = s.m;
    let mut kb = container(Direction::Column);
    kb.style.height = Some(m.dp(KEYBOARD_DP));
    kb.style.shrink = false;
    kb.style.padding = [m.dp(4.0), m.dp(8.0), m.dp(4.0), m.dp(8.0)];
    kb.style.gap = m.dp(4.0);
    kb.paint.background = Some(if t.dark { t.background } else { t.surface_variant });
    let rows = if symbols { SYMBOLS } else { LETTERS };
    for (i, row) in rows.iter().enumerate() {
        let mut line = container(Direction::Row);
        line.style.gap = m.dp(4.0);
        if i == 1 && !symbols {
            line.style.padding = [m.dp(18.0), 0.0, m.dp(18.0), 0.0];
        }
        if i == 2 {
            let (label, desc, action) =
                if symbols { ("=\\<", "More symbols", SystemAction::Symbols) } else { ("", "Shift", SystemAction::Shift) };
            let icon = if symbols { None } else { Some(if shift { "keyboard_capslock" } else { "arrow_upward" }) };
            line.children.push(key_view(s, Key::Action { label, icon, desc, action, grow: 1.5 }, shift));
        }
        for c in row.chars() {
            line.children.push(key_view(s, Key::Char(c), shift && !symbols));
        }
        if i == 2 {
            let key = Key::Action { label: "", icon: Some("backspace"), desc: "Delete", action: SystemAction::Backspace, grow: 1.5 };
            line.children.push(key_view(s, key, shift));
        }
        kb.children.push(line);
    }
    let mut bottom = container(Direction::Row);
    bottom.style.gap = m.dp(4.0);
    let keys = [
        Key::Action {
            label: if symbols { "ABC" } else { "?123" },
            icon: None,
            desc: if symbols { "Letters" } else { "Symbols" },
            action: SystemAction::Symbols,
            grow: 1.5,
        },
        Key::Char(','),
        Key::Action { label: "", icon: Some("space_bar"), desc: "Space", action: SystemAction::TypeChar(' '), grow: 5.0 },
        Key::Char('.'),
        Key::Action { label: "", icon: Some("keyboard_return"), desc: "Enter", action: SystemAction::Enter, grow: 1.5 },
    ];
    for key in keys {
        bottom.children.push(key_view(s, key, false));
    }
    kb.children.push(bottom);
    let mut a = kit::a11y("android.widget.FrameLayout", KEYBOARD);
    a.resource_id = "com.phoneworld.keyboard:id/keyboard_view".into();
    kb.set_a11y(a);
    kb
}
