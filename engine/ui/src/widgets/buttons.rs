//! Buttons: filled / outlined / text / tonal, icon buttons, floating action buttons, chips.
//! The painted shape may be smaller than 48 dp; the touch target around it never is.

use phoneworld_data::{Node, Variant};
use phoneworld_layout::{Align, Direction, Justify, ViewNode};
use phoneworld_render::Color;
use phoneworld_text::Weight;

use crate::builder::{centered_box, container, At, Builder};

/// A 48 dp tall touch target holding a painted pill.
fn target_around(b: &Builder<'_>, pill: ViewNode) -> ViewNode {
    let mut outer = container(Direction::Column);
    outer.style.min_height = Some(b.m.dp(48.0));
    outer.style.min_width = Some(b.m.dp(48.0));
    outer.style.justify = Justify::Center;
    outer.style.shrink = false;
    outer.children.push(pill);
    outer
}

fn pill(b: &Builder<'_>, height_dp: f32, bg: Option<Color>, border: Option<Color>) -> ViewNode {
    let mut pill = container(Direction::Row);
    pill.style.height = Some(b.m.dp(height_dp));
    pill.style.align_items = Some(Align::Center);
    pill.style.justify = Justify::Center;
    pill.style.padding = [b.m.dp(20.0), 0.0, b.m.dp(20.0), 0.0];
    pill.style.gap = b.m.dp(8.0);
    pill.paint.background = bg;
    pill.paint.border = border.map(|c| (c, b.m.dp(1.0)));
    pill.paint.radius = b.m.dp(height_dp / 2.0);
    pill
}

pub(super) fn button(b: &mut Builder<'_>, node: &Node, at: &At<'_>, enabled: bool) -> ViewNode {
    let p = &node.props;
    let t = b.theme;
    let label = p.text.as_ref().map(|x| x.render(&at.scope)).unwrap_or_default();
    let variant = p.variant.unwrap_or(Variant::Filled);
    let (bg, fg, border) = match variant {
        Variant::Outlined => (None, t.primary, Some(t.outline)),
        Variant::Text => (None, t.primary, None),
        Variant::Tonal => (Some(t.secondary_container), t.on_primary_container, None),
        // A progress indicator's shapes are no button look: filled.
        Variant::Filled | Variant::Linear | Variant::Circular => (Some(t.primary), t.on_primary, None),
    };
    // `color` is the label's (and icon's) colour, whatever the variant.
    let fg = b.color(p.color.as_deref(), at, fg);
    let (bg, fg) = if enabled { (bg, fg) } else { (bg.map(|_| t.surface_variant), t.outline) };
    let mut inner = pill(b, 40.0, bg, border);
    if variant == Variant::Text {
        inner.style.padding = [b.m.dp(12.0), 0.0, b.m.dp(12.0), 0.0];
    }
    if let Some(icon) = &p.icon {
        let name = icon.render(&at.scope);
        inner.children.push(b.icon(&name, 18.0, fg));
    }
    inner.children.push(b.text(super::basic::drawn_text(&label, p.all_caps), p.size.unwrap_or(14.0), Weight::Medium, fg));
    let mut v = target_around(b, inner);
    let mut a = b.a11y("android.widget.Button");
    a.text = label;
    v.set_a11y(a);
    v
}

pub(super) fn icon_button(b: &mut Builder<'_>, node: &Node, at: &At<'_>, enabled: bool) -> ViewNode {
    let p = &node.props;
    let name = p.icon.as_ref().map(|x| x.render(&at.scope)).unwrap_or_default();
    let color = if enabled { b.color(p.color.as_deref(), at, b.theme.on_surface_variant) } else { b.theme.outline_variant };
    let size = b.m.dp(48.0);
    let mut v = centered_box(size, size);
    v.paint.radius = size / 2.0;
    v.children.push(b.icon(&name, p.size.unwrap_or(24.0), color));
    v.set_a11y(b.a11y("android.widget.ImageButton"));
    v
}

pub(super) fn fab(b: &mut Builder<'_>, node: &Node, at: &At<'_>, _enabled: bool) -> ViewNode {
    let p = &node.props;
    let t = b.theme;
    let name = p.icon.as_ref().map_or_else(|| "add".to_owned(), |x| x.render(&at.scope));
    let mut v = container(Direction::Row);
    v.style.height = Some(b.m.dp(56.0));
    v.style.min_width = Some(b.m.dp(56.0));
    v.style.align_items = Some(Align::Center);
    v.style.justify = Justify::Center;
    v.style.gap = b.m.dp(12.0);
    v.style.absolute = Some([None, None, Some(b.m.dp(16.0)), Some(b.m.dp(16.0))]);
    v.paint.background = Some(t.primary_container);
    v.paint.radius = b.m.dp(16.0);
    v.children.push(b.icon(&name, 24.0, t.on_primary_container));
    let mut a = b.a11y("android.widget.ImageButton");
    if let Some(text) = &p.text {
        let label = text.render(&at.scope);
        v.style.padding = [b.m.dp(16.0), 0.0, b.m.dp(20.0), 0.0];
        v.children.push(b.text(label.clone(), 14.0, Weight::Medium, t.on_primary_container));
        a.class_name = "android.widget.Button";
        a.text = label;
    }
    v.set_a11y(a);
    v
}

pub(super) fn chip(b: &mut Builder<'_>, node: &Node, at: &At<'_>, _enabled: bool) -> ViewNode {
    let p = &node.props;
    let t = b.theme;
    let selected = p.selected.as_ref().is_some_and(|s| s.eval(&at.scope));
    let label = p.text.as_ref().map(|x| x.render(&at.scope)).unwrap_or_default();
    let (bg, fg, border) =
        if selected { (Some(t.secondary_container), t.on_primary_container, None) } else { (None, t.on_surface_variant, Some(t.outline)) };
    let mut inner = pill(b, 32.0, bg, border);
    inner.paint.radius = b.m.dp(8.0);
    inner.style.padding = [b.m.dp(12.0), 0.0, b.m.dp(12.0), 0.0];
    if selected {
        inner.children.push(b.icon("check", 18.0, fg));
    } else if let Some(icon) = &p.icon {
        let name = icon.render(&at.scope);
        inner.children.push(b.icon(&name, 18.0, fg));
    }
    inner.children.push(b.text(label.clone(), 14.0, Weight::Medium, fg));
    let mut v = target_around(b, inner);
    let mut a = b.a11y("android.widget.CheckBox");
    a.text = label;
    a.checkable = true;
    a.checked = selected;
    a.selected = selected;
    v.set_a11y(a);
    v
}
