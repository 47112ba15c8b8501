//! Time and date pickers an agent operates by taps: fields and grids of values, arrows that
//! step by one, month navigation.

use phoneworld_data::{civil_from_days, days_from_civil, days_in_month, parse_date, weekday_of, Node, MONTH_NAMES};
use phoneworld_layout::{Align, Direction, Justify, ViewNode};
use phoneworld_text::Weight;
use serde_json::Value;

use crate::builder::{centered_box, container, At, Builder};
use crate::interaction::{Hit, Interaction, Target};

fn set_hit(b: &mut Builder<'_>, node: &Node, at: &At<'_>, target: &Target, value: Value) -> u32 {
    let event = b.event(node, at, Some(value.clone()));
    let tap = Interaction::Set {
        app: b.app.to_owned(),
        target: target.clone(),
        value,
        handler: b.handler(node.props.on_change.as_ref(), at),
        event,
    };
    b.hit(Hit { tap: Some(tap), long_press: None, scroll: None })
}

fn widget_hit(b: &mut Builder<'_>, key: &str, value: Value) -> u32 {
    b.hit(Hit { tap: Some(Interaction::Widget { key: key.to_owned(), value }), long_press: None, scroll: None })
}

/// A clickable cell with centered text: `class` and `desc` for the accessibility tree.
fn cell(b: &Builder<'_>, text: &str, selected: bool, size_sp: f32, desc: &str) -> ViewNode {
    let t = b.theme;
    let mut c = container(Direction::Column);
    c.style.min_height = Some(b.m.dp(48.0));
    c.style.align_items = Some(Align::Center);
    c.style.justify = Justify::Center;
    c.paint.radius = b.m.dp(24.0);
    let fg = if selected {
        c.paint.background = Some(t.primary);
        t.on_primary
    } else {
        t.on_surface
    };
    c.children.push(b.text(text.to_owned(), size_sp, Weight::Regular, fg));
    c.children[0].a11y = None;
    let mut a = b.a11y("android.widget.TextView");
    a.text = text.to_owned();
    a.content_desc = desc.to_owned();
    a.clickable = true;
    a.selected = selected;
    a.checked = selected;
    c.set_a11y(a);
    c
}

fn arrow(b: &mut Builder<'_>, icon: &str, desc: &str, hit: u32) -> ViewNode {
    let size = b.m.dp(48.0);
    let mut v = centered_box(size, size);
    v.children.push(b.icon(icon, 28.0, b.theme.on_surface_variant));
    let mut a = b.a11y("android.widget.ImageButton");
    a.content_desc = desc.to_owned();
    a.clickable = true;
    v.set_a11y(a);
    v.hit = Some(hit);
    v
}

/// Rows of `columns` equal cells.
fn grid(b: &Builder<'_>, cells: Vec<ViewNode>, columns: usize) -> ViewNode {
    let mut g = container(Direction::Column);
    let mut it = cells.into_iter().peekable();
    while it.peek().is_some() {
        let mut row = container(Direction::Row);
        for _ in 0..columns {
            let mut slot = container(Direction::Column);
            slot.style.grow = 1.0;
            slot.style.width = Some(0.0);
            if let Some(c) = it.next() {
                slot.children.push(c);
            }
            row.children.push(slot);
        }
        g.children.push(row);
    }
    g.style.gap = b.m.dp(4.0);
    g
}

pub(super) fn time_picker(b: &mut Builder<'_>, node: &Node, at: &At<'_>) -> ViewNode {
    let t = b.theme;
    let minutes = node.props.value.as_ref().and_then(|p| at.scope.get(p)).and_then(|v| v.as_i64()).unwrap_or(0).rem_euclid(1440);
    let (hour, minute) = (minutes / 60, minutes % 60);
    let field = b.entry.widgets.get(&at.key).and_then(|v| v.get("field")).and_then(Value::as_str).unwrap_or("hour").to_owned();
    let target = node.props.value.as_ref().and_then(|p| b.target(p, at));
    let mut picker = container(Direction::Column);
    picker.style.gap = b.m.dp(12.0);
    picker.style.align_items = Some(Align::Stretch);

    let mut header = container(Direction::Row);
    header.style.justify = Justify::Center;
    header.style.align_items = Some(Align::Center);
    header.style.gap = b.m.dp(8.0);
    for (name, value, label) in [("hour", hour, "Hour"), ("minute", minute, "Minute")] {
        let mut column = container(Direction::Column);
        column.style.align_items = Some(Align::Center);
        let (up, down) = match name {
            "hour" => ((minutes + 60) % 1440, (minutes + 1380) % 1440),
            _ => (hour * 60 + (minute + 1) % 60, hour * 60 + (minute + 59) % 60),
        };
        if let Some(target) = &target {
            let h = set_hit(b, node, at, target, Value::from(up));
            column.children.push(arrow(b, "keyboard_arrow_up", &format!("Increase {}", label.to_lowercase()), h));
        }
        let mut bx = container(Direction::Column);
        bx.style.width = Some(b.m.dp(96.0));
        bx.style.height = Some(b.m.dp(80.0));
        bx.style.align_items = Some(Align::Center);
        bx.style.justify = Justify::Center;
        bx.paint.radius = b.m.dp(8.0);
        let active = field == name;
        bx.paint.background = Some(if active { t.primary_container } else { t.surface_variant });
        let text = format!("{value:02}");
        bx.children.push(b.text(text.clone(), 45.0, Weight::Regular, if active { t.on_primary_container } else { t.on_surface }));
        bx.children[0].a11y = None;
        let mut a = b.a11y("android.widget.TextView");
        a.text = text;
        a.content_desc = label.to_owned();
        a.clickable = true;
        a.selected = active;
        bx.set_a11y(a);
        bx.hit = Some(widget_hit(b, &at.key, serde_json::json!({ "field": name })));
        column.children.push(bx);
        if let Some(target) = &target {
            let h = set_hit(b, node, at, target, Value::from(down));
            column.children.push(arrow(b, "keyboard_arrow_down", &format!("Decrease {}", label.to_lowercase()), h));
        }
        header.children.push(column);
        if name == "hour" {
            header.children.push(b.text(":".into(), 45.0, Weight::Regular, t.on_surface));
        }
    }
    picker.children.push(header);

    if let Some(target) = &target {
        let mut cells = Vec::new();
        if field == "hour" {
            for h in 0..24 {
                let mut c = cell(b, &format!("{h:02}"), h == hour, 16.0, &format!("{h} hours"));
                c.hit = Some(set_hit(b, node, at, target, Value::from(h * 60 + minute)));
                cells.push(c);
            }
        } else {
            for m in (0..60).step_by(5) {
                let mut c = cell(b, &format!("{m:02}"), m == minute, 16.0, &format!("{m} minutes"));
                c.hit = Some(set_hit(b, node, at, target, Value::from(hour * 60 + m)));
                cells.push(c);
            }
        }
        picker.children.push(grid(b, cells, 6));
    }
    picker.set_a11y(b.a11y("android.widget.TimePicker"));
    picker
}

pub(super) fn date_picker(b: &mut Builder<'_>, node: &Node, at: &At<'_>) -> ViewNode {
    let t = b.theme;
    let value = node.props.value.as_ref().and_then(|p| at.scope.get(p)).and_then(|v| v.as_str().map(str::to_owned));
    let selected = value.as_deref().and_then(parse_date);
    phoneworld_data::note_read(phoneworld_data::PathRoot::System);
    let today = at.scope.system.get("date").and_then(Value::as_str).and_then(parse_date).unwrap_or((2026, 1, 1));
    let shown = b
        .entry
        .widgets
        .get(&at.key)
        .and_then(|v| v.get("month"))
        .and_then(Value::as_str)
        .and_then(|m| parse_date(&format!("{m}-01")))
        .or(selected)
        .unwrap_or(today);
    let (year, month) = (shown.0, shown.1);
    let target = node.props.value.as_ref().and_then(|p| b.target(p, at));
    let mut picker = container(Direction::Column);
    picker.style.gap = b.m.dp(4.0);

    let mut header = container(Direction::Row);
    header.style.align_items = Some(Align::Center);
    let title = format!("{} {year}", MONTH_NAMES[(month - 1) as usize]);
    let mut title_view = b.text(title.clone(), 16.0, Weight::Medium, t.on_surface);
    title_view.style.grow = 1.0;
    title_view.style.padding = [b.m.dp(16.0), 0.0, 0.0, 0.0];
    let mut a = b.a11y("android.widget.TextView");
    a.text = title;
    title_view.set_a11y(a);
    header.children.push(title_view);
    let prev = if month == 1 { format!("{}-12", year - 1) } else { format!("{year}-{:02}", month - 1) };
    let next = if month == 12 { format!("{}-01", year + 1) } else { format!("{year}-{:02}", month + 1) };
    let h = widget_hit(b, &at.key, serde_json::json!({ "month": prev }));
    header.children.push(arrow(b, "chevron_left", "Previous month", h));
    let h = widget_hit(b, &at.key, serde_json::json!({ "month": next }));
    header.children.push(arrow(b, "chevron_right", "Next month", h));
    picker.children.push(header);

    // Seven 48 dp days need 336 dp: the day rows reach 8 dp into the screen's padding on each
    // side (as Android's do), so a 360 dp phone with 16 dp padding keeps them at 49 dp.
    let bleed = [-b.m.dp(8.0), 0.0, -b.m.dp(8.0), 0.0];
    let mut names = container(Direction::Row);
    names.style.margin = bleed;
    for d in ["M", "T", "W", "T", "F", "S", "S"] {
        let mut n = b.text(d.into(), 14.0, Weight::Regular, t.on_surface_variant);
        n.style.grow = 1.0;
        n.style.width = Some(0.0);
        if let phoneworld_layout::Content::Text(spec) = &mut n.content {
            spec.align = 1;
        }
        names.children.push(n);
    }
    picker.children.push(names);

    let first = days_from_civil(year, month, 1);
    let lead = weekday_of(year, month, 1);
    let mut cells: Vec<ViewNode> = (0..lead).map(|_| ViewNode::default()).collect();
    for day in 1..=days_in_month(year, month) {
        let (y, m, d) = civil_from_days(first + i64::from(day) - 1);
        let iso = format!("{y:04}-{m:02}-{d:02}");
        let is_selected = selected == Some((y, m, d));
        let mut c = cell(b, &day.to_string(), is_selected, 14.0, &format!("{d} {} {y}", MONTH_NAMES[(m - 1) as usize]));
        if let Some(target) = &target {
            c.hit = Some(set_hit(b, node, at, target, Value::String(iso)));
        }
        cells.push(c);
    }
    let mut days = grid(b, cells, 7);
    days.style.margin = bleed;
    picker.children.push(days);
    picker.set_a11y(b.a11y("android.widget.DatePicker"));
    picker
}
