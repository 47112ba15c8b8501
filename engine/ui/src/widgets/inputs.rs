//! Inputs: text fields, switches, checkboxes, radio buttons, sliders and progress indicators.
//! Each reads its value from a state path and writes it back when operated.

use phoneworld_data::{truthy, Node, NodeKind};
use phoneworld_layout::{Align, Content, Direction, Justify, ViewNode};
use phoneworld_text::Weight;
use serde_json::Value;

use crate::builder::{centered_box, container, At, Builder};
use crate::interaction::{Hit, Interaction};
use crate::kit::silence;

fn current(node: &Node, at: &At<'_>) -> Value {
    node.props.value.as_ref().and_then(|p| at.scope.get(p)).map(std::borrow::Cow::into_owned).unwrap_or(Value::Null)
}

pub fn value_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

pub(super) fn text_field(b: &mut Builder<'_>, node: &Node, at: &At<'_>, enabled: bool) -> ViewNode {
    let p = &node.props;
    let t = b.theme;
    let text = value_text(&current(node, at));
    let label = p.label.as_ref().map(|x| x.render(&at.scope));
    let placeholder = p.hint.as_ref().map(|x| x.render(&at.scope)).or_else(|| label.clone()).unwrap_or_default();
    // Like Material's TextInputLayout, the label is the field's accessible hint.
    let hint = label.clone().unwrap_or_else(|| placeholder.clone());
    let error = p.error.as_ref().map(|x| x.render(&at.scope)).filter(|e| !e.is_empty());
    let focused = b.focus.is_some_and(|f| f.app == b.app && f.key == at.key);
    let shown = if p.password { "•".repeat(text.chars().count()) } else { text.clone() };

    let mut field = container(Direction::Column);
    field.style.min_height = Some(b.m.dp(if p.multiline { 112.0 } else { 56.0 }));
    field.style.padding = [b.m.dp(16.0), b.m.dp(8.0), b.m.dp(16.0), b.m.dp(8.0)];
    field.style.justify = if p.multiline { Justify::Start } else { Justify::Center };
    field.paint.radius = b.m.dp(4.0);
    let border = if error.is_some() {
        t.error
    } else if focused {
        t.primary
    } else {
        t.outline
    };
    field.paint.border = Some((border, b.m.dp(if focused { 2.0 } else { 1.0 })));
    if let (Some(label), false) = (&label, text.is_empty()) {
        field.children.push(b.text(label.clone(), 12.0, Weight::Regular, if focused { t.primary } else { t.on_surface_variant }));
    }
    let mut line = container(Direction::Row);
    line.style.align_items = Some(Align::Center);
    if text.is_empty() {
        line.children.push(b.text(placeholder, 16.0, Weight::Regular, t.on_surface_variant));
    } else {
        let mut value = b.text(shown.clone(), 16.0, Weight::Regular, t.on_surface);
        if !p.multiline {
            if let Content::Text(spec) = &mut value.content {
                spec.max_lines = Some(1);
            }
        }
        line.children.push(value);
    }
    if focused {
        let mut caret = ViewNode::default();
        caret.style.width = Some(b.m.dp(2.0));
        caret.style.height = Some(b.m.sp(20.0));
        caret.style.shrink = false;
        caret.paint.background = Some(t.primary);
        // The caret sits after the text, or before the hint of an empty field.
        if text.is_empty() {
            line.children.insert(0, caret);
        } else {
            line.children.push(caret);
        }
    }
    field.children.push(line);

    let mut a = b.a11y("android.widget.EditText");
    a.text = shown;
    a.hint = hint;
    a.editable = true;
    a.focusable = true;
    a.focused = focused;
    a.password = p.password;
    a.clickable = enabled;
    a.long_clickable = enabled;
    a.enabled = enabled;
    if let Some(id) = p.id.as_ref().map(|t| t.render(&at.scope)).filter(|id| !id.is_empty()) {
        a.resource_id = format!("{}:id/{id}", b.app);
    }
    field.set_a11y(a);
    if enabled {
        if let Some(target) = p.value.as_ref().and_then(|path| b.target(path, at)) {
            let tap = Interaction::Focus {
                app: b.app.to_owned(),
                key: at.key.clone(),
                target: target.clone(),
                multiline: p.multiline,
                digits: matches!(p.keyboard, Some(phoneworld_data::Keyboard::Number | phoneworld_data::Keyboard::Phone)),
                on_change: b.handler(p.on_change.as_ref(), at),
                on_submit: b.handler(p.on_submit.as_ref(), at),
                event: b.event(node, at, None),
            };
            let long = Interaction::TextMenu {
                app: b.app.to_owned(),
                key: at.key.clone(),
                target,
                on_change: b.handler(p.on_change.as_ref(), at),
                event: b.event(node, at, None),
            };
            field.hit = Some(b.hit(Hit { tap: Some(tap), long_press: Some(long), scroll: None }));
        }
    }

    let mut outer = container(Direction::Column);
    outer.style.gap = b.m.dp(4.0);
    outer.children.push(field);
    if let Some(error) = error {
        let mut e = b.text(error.clone(), 12.0, Weight::Regular, t.error);
        e.style.padding = [b.m.dp(16.0), 0.0, 0.0, 0.0];
        let mut a = b.a11y("android.widget.TextView");
        a.text = error;
        e.set_a11y(a);
        outer.children.push(e);
    }
    outer.set_a11y(b.a11y("android.widget.LinearLayout"));
    outer
}

/// A row with an optional label before a control; the whole row is the touch target.
fn labelled_row(b: &mut Builder<'_>, label: Option<String>, control: ViewNode, label_first: bool) -> ViewNode {
    let mut row = container(Direction::Row);
    row.style.align_items = Some(Align::Center);
    row.style.min_height = Some(b.m.dp(48.0));
    row.style.gap = b.m.dp(16.0);
    if let Some(label) = label {
        let mut text = b.text(label, 16.0, Weight::Regular, b.theme.on_surface);
        text.style.grow = if label_first { 1.0 } else { 0.0 };
        if label_first {
            row.children.push(text);
            row.children.push(control);
        } else {
            row.children.push(control);
            text.style.grow = 1.0;
            row.children.push(text);
        }
    } else {
        row.style.justify = Justify::Center;
        row.style.min_width = Some(b.m.dp(48.0));
        row.children.push(control);
    }
    row
}

fn switch_control(b: &Builder<'_>, on: bool, enabled: bool) -> ViewNode {
    let t = b.theme;
    let mut track = container(Direction::Row);
    track.style.width = Some(b.m.dp(52.0));
    track.style.height = Some(b.m.dp(32.0));
    track.style.shrink = false;
    track.style.align_items = Some(Align::Center);
    track.style.justify = if on { Justify::End } else { Justify::Start };
    track.style.padding = [b.m.dp(4.0), 0.0, b.m.dp(4.0), 0.0];
    track.paint.radius = b.m.dp(16.0);
    let mut thumb = ViewNode::default();
    thumb.style.shrink = false;
    thumb.paint.circle = true;
    if on {
        track.paint.background = Some(if enabled { t.primary } else { t.outline_variant });
        thumb.style.width = Some(b.m.dp(24.0));
        thumb.style.height = Some(b.m.dp(24.0));
        thumb.paint.background = Some(t.on_primary);
    } else {
        track.paint.background = Some(t.surface_variant);
        track.paint.border = Some((t.outline, b.m.dp(2.0)));
        thumb.style.width = Some(b.m.dp(16.0));
        thumb.style.height = Some(b.m.dp(16.0));
        thumb.style.margin = [b.m.dp(4.0), 0.0, 0.0, 0.0];
        thumb.paint.background = Some(t.outline);
    }
    track.children.push(thumb);
    track
}

fn checkbox_control(b: &Builder<'_>, on: bool) -> ViewNode {
    let t = b.theme;
    let size = b.m.dp(18.0);
    let mut bx = centered_box(size, size);
    bx.style.margin = [b.m.dp(15.0), 0.0, b.m.dp(15.0), 0.0];
    bx.paint.radius = b.m.dp(2.0);
    if on {
        bx.paint.background = Some(t.primary);
        bx.children.push(b.icon("check", 16.0, t.on_primary));
    } else {
        bx.paint.border = Some((t.on_surface_variant, b.m.dp(2.0)));
    }
    bx
}

fn radio_control(b: &Builder<'_>, on: bool) -> ViewNode {
    let t = b.theme;
    let size = b.m.dp(20.0);
    let mut ring = centered_box(size, size);
    ring.style.margin = [b.m.dp(14.0), 0.0, b.m.dp(14.0), 0.0];
    ring.paint.circle = true;
    ring.paint.border = Some((if on { t.primary } else { t.on_surface_variant }, b.m.dp(2.0)));
    if on {
        let mut dot = ViewNode::default();
        dot.style.width = Some(b.m.dp(10.0));
        dot.style.height = Some(b.m.dp(10.0));
        dot.paint.circle = true;
        dot.paint.background = Some(t.primary);
        ring.children.push(dot);
    }
    ring
}

pub(super) fn toggle(b: &mut Builder<'_>, node: &Node, at: &At<'_>, enabled: bool) -> ViewNode {
    let p = &node.props;
    let on = truthy(&current(node, at));
    let label = p.text.as_ref().map(|x| x.render(&at.scope));
    let is_switch = node.kind == NodeKind::Switch;
    let control = if is_switch { switch_control(b, on, enabled) } else { checkbox_control(b, on) };
    let class = if is_switch { "android.widget.Switch" } else { "android.widget.CheckBox" };
    let mut row = checkable_row(b, class, label, control, is_switch, on, enabled);
    if enabled {
        if let Some(target) = p.value.as_ref().and_then(|path| b.target(path, at)) {
            let event = b.event(node, at, Some(Value::Bool(!on)));
            let tap = Interaction::Toggle { app: b.app.to_owned(), target, handler: b.handler(p.on_change.as_ref(), at), event };
            row.hit = Some(b.hit(Hit { tap: Some(tap), long_press: None, scroll: None }));
        }
    }
    row
}

/// A control beside its label, seen by accessibility as one checkable element of `class`.
fn checkable_row(
    b: &mut Builder<'_>,
    class: &'static str,
    label: Option<String>,
    control: ViewNode,
    label_first: bool,
    on: bool,
    enabled: bool,
) -> ViewNode {
    let mut row = labelled_row(b, label.clone(), control, label_first);
    silence(&mut row);
    let mut a = b.a11y(class);
    a.text = label.unwrap_or_default();
    a.checkable = true;
    a.checked = on;
    a.clickable = enabled;
    a.focusable = true;
    row.set_a11y(a);
    row
}

pub(super) fn radio(b: &mut Builder<'_>, node: &Node, at: &At<'_>, enabled: bool) -> ViewNode {
    let p = &node.props;
    let option = p.option.clone().unwrap_or(Value::Null);
    let value = current(node, at);
    let on = value == option || (value.as_f64().is_some() && value.as_f64() == option.as_f64());
    let label = p.text.as_ref().map(|x| x.render(&at.scope));
    let control = radio_control(b, on);
    let mut row = checkable_row(b, "android.widget.RadioButton", label, control, false, on, enabled);
    if enabled {
        if let Some(target) = p.value.as_ref().and_then(|path| b.target(path, at)) {
            let event = b.event(node, at, Some(option.clone()));
            let tap =
                Interaction::Set { app: b.app.to_owned(), target, value: option, handler: b.handler(p.on_change.as_ref(), at), event };
            row.hit = Some(b.hit(Hit { tap: Some(tap), long_press: None, scroll: None }));
        }
    }
    row
}

/// A bar split at `fraction` into an active and an inactive part, by flex ratios.
fn bar(b: &Builder<'_>, fraction: f64, thumb: bool) -> ViewNode {
    let t = b.theme;
    let fraction = fraction.clamp(0.0, 1.0) as f32;
    let mut row = container(Direction::Row);
    row.style.align_items = Some(Align::Center);
    let mut active = ViewNode::default();
    active.style.height = Some(b.m.dp(4.0));
    active.style.grow = fraction;
    active.style.min_width = Some(0.0);
    active.paint.background = Some(t.primary);
    active.paint.radius = b.m.dp(2.0);
    let mut inactive = active.clone();
    inactive.style.grow = 1.0 - fraction;
    inactive.paint.background = Some(t.surface_variant);
    row.children.push(active);
    if thumb {
        let mut knob = ViewNode::default();
        knob.style.width = Some(b.m.dp(20.0));
        knob.style.height = Some(b.m.dp(20.0));
        knob.style.shrink = false;
        knob.paint.circle = true;
        knob.paint.background = Some(t.primary);
        row.children.push(knob);
    }
    row.children.push(inactive);
    row
}

pub(super) fn slider(b: &mut Builder<'_>, node: &Node, at: &At<'_>, enabled: bool) -> ViewNode {
    let p = &node.props;
    let min = p.min.unwrap_or(0.0);
    let max = p.max.unwrap_or(100.0).max(min + f64::EPSILON);
    let value = current(node, at).as_f64().unwrap_or(min);
    let mut track = bar(b, (value - min) / (max - min), true);
    track.style.min_height = Some(b.m.dp(48.0));
    let mut a = b.a11y("android.widget.SeekBar");
    a.text = phoneworld_data_display(value);
    a.focusable = true;
    a.clickable = enabled;
    track.set_a11y(a);
    if enabled {
        if let Some(target) = p.value.as_ref().and_then(|path| b.target(path, at)) {
            let event = b.event(node, at, None);
            let tap = Interaction::Slider {
                app: b.app.to_owned(),
                target,
                min,
                max,
                step: p.step.unwrap_or(1.0),
                handler: b.handler(p.on_change.as_ref(), at),
                event,
            };
            track.hit = Some(b.hit(Hit { tap: Some(tap), long_press: None, scroll: None }));
        }
    }
    track
}

fn phoneworld_data_display(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{}", v as i64)
    } else {
        format!("{v:.2}")
    }
}

pub(super) fn progress(b: &mut Builder<'_>, node: &Node, at: &At<'_>) -> ViewNode {
    let p = &node.props;
    let t = b.theme;
    let fraction = p.progress.as_ref().and_then(|x| x.value(&at.scope).as_f64());
    let mut a = b.a11y("android.widget.ProgressBar");
    if let Some(f) = fraction {
        a.text = format!("{}%", (f.clamp(0.0, 1.0) * 100.0).round());
    }
    let mut v = if p.variant == Some(phoneworld_data::Variant::Circular) {
        let mut ring = container(Direction::Column);
        let size = b.m.dp(p.size.unwrap_or(48.0));
        ring.style.width = Some(size);
        ring.style.height = Some(size);
        ring.style.shrink = false;
        ring.style.align_items = Some(Align::Center);
        ring.style.justify = Justify::Center;
        ring.paint.circle = true;
        ring.paint.border = Some((t.primary, b.m.dp(4.0)));
        if let Some(f) = fraction {
            // A track with the done part drawn over it.
            ring.paint.border = Some((t.surface_variant, b.m.dp(4.0)));
            ring.paint.arc = Some((f.clamp(0.0, 1.0) as f32, t.primary));
        }
        // An optional label in the middle (`text`), e.g. "{state.percent}%".
        if let Some(label) = &p.text {
            ring.children.push(b.text(label.render(&at.scope), 12.0, Weight::Medium, t.on_surface));
        }
        ring
    } else {
        let mut line = bar(b, fraction.unwrap_or(0.35), false);
        line.style.min_height = Some(b.m.dp(8.0));
        line
    };
    silence(&mut v);
    v.set_a11y(a);
    v
}
