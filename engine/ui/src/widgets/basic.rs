//! Containers and static content: Column, Row, Stack, Card, Spacer, Divider, Text, Icon,
//! Avatar, Image.

use phoneworld_data::{Node, NodeKind, TextAlign};
use phoneworld_layout::{Align, Content, Direction, ImagePaint, ViewNode};
use phoneworld_render::Fit;
use phoneworld_text::Weight;

use crate::builder::{container, At, Builder};

pub(super) fn container_of(b: &mut Builder<'_>, node: &Node, at: &At<'_>, direction: Direction) -> ViewNode {
    let mut view = container(direction);
    view.children = b.children(&node.props.children, at);
    view
}

pub(super) fn layout_container(b: &mut Builder<'_>, node: &Node, at: &At<'_>) -> ViewNode {
    let mut v = container_kind(b, node, at);
    // A container can be the selected one of several (a day in a month grid).
    if let (Some(a), Some(selected)) = (v.a11y.as_mut().map(std::sync::Arc::make_mut), node.props.selected.as_ref()) {
        a.selected = selected.eval(&at.scope);
    }
    v
}

fn container_kind(b: &mut Builder<'_>, node: &Node, at: &At<'_>) -> ViewNode {
    match node.kind {
        NodeKind::Row => {
            let mut v = container_of(b, node, at, Direction::Row);
            v.style.align_items = Some(Align::Center);
            v.set_a11y(b.a11y("android.widget.LinearLayout"));
            v
        }
        NodeKind::Stack => {
            let mut v = container_of(b, node, at, Direction::Column);
            // Every child after the first is laid over the first.
            for child in v.children.iter_mut().skip(1) {
                if child.style.absolute.is_none() {
                    child.style.absolute = Some([Some(0.0), Some(0.0), Some(0.0), Some(0.0)]);
                }
            }
            v.set_a11y(b.a11y("android.widget.FrameLayout"));
            v
        }
        NodeKind::Card => {
            let mut v = container_of(b, node, at, Direction::Column);
            v.paint.background = Some(b.theme.surface_variant);
            v.paint.radius = b.m.dp(16.0);
            v.paint.clip = true;
            v.style.padding = [b.m.dp(16.0); 4];
            v.style.gap = b.m.dp(8.0);
            v.set_a11y(b.a11y("android.widget.FrameLayout"));
            v
        }
        _ => {
            let mut v = container_of(b, node, at, Direction::Column);
            v.set_a11y(b.a11y("android.widget.LinearLayout"));
            v
        }
    }
}

pub(super) fn spacer() -> ViewNode {
    ViewNode::default()
}

pub(super) fn divider(b: &mut Builder<'_>) -> ViewNode {
    let mut v = ViewNode::default();
    v.style.height = Some(b.m.dp(1.0).max(1.0));
    v.style.shrink = false;
    v.paint.background = Some(b.theme.outline_variant);
    v
}

fn weight(weight: Option<phoneworld_data::Weight>) -> Weight {
    match weight {
        Some(phoneworld_data::Weight::Medium) => Weight::Medium,
        Some(phoneworld_data::Weight::Bold) => Weight::Bold,
        Some(phoneworld_data::Weight::Regular) | None => Weight::Regular,
    }
}

/// A text as drawn: in capitals when `all_caps` (its element keeps the text as written).
pub(super) fn drawn_text(text: &str, all_caps: bool) -> String {
    if all_caps {
        text.to_uppercase()
    } else {
        text.to_owned()
    }
}

pub(super) fn text(b: &mut Builder<'_>, node: &Node, at: &At<'_>) -> ViewNode {
    let p = &node.props;
    let text = p.text.as_ref().map(|t| t.render(&at.scope)).unwrap_or_default();
    let color = b.color(p.color.as_deref(), at, b.theme.on_surface);
    let mut v = b.text(drawn_text(&text, p.all_caps), p.size.unwrap_or(16.0), weight(p.weight), color);
    if let Content::Text(spec) = &mut v.content {
        spec.max_lines = p.max_lines;
        spec.align = match p.text_align {
            Some(TextAlign::Center) => 1,
            Some(TextAlign::End) => 2,
            Some(TextAlign::Start) | None => 0,
        };
    }
    let mut a = b.a11y("android.widget.TextView");
    a.text = text;
    v.set_a11y(a);
    v
}

pub(super) fn icon(b: &mut Builder<'_>, node: &Node, at: &At<'_>) -> ViewNode {
    let p = &node.props;
    let name = p.icon.as_ref().map(|t| t.render(&at.scope)).unwrap_or_default();
    let color = b.color(p.color.as_deref(), at, b.theme.on_surface_variant);
    let mut v = b.icon(&name, p.size.unwrap_or(24.0), color);
    // Decorative unless described or tappable (apply_common adds both).
    if p.content_desc.is_some() || p.on_tap.is_some() {
        v.set_a11y(b.a11y("android.widget.ImageView"));
    } else {
        v.a11y = None;
    }
    v
}

pub(super) fn avatar(b: &mut Builder<'_>, node: &Node, at: &At<'_>) -> ViewNode {
    let p = &node.props;
    let name = p.text.as_ref().map(|t| t.render(&at.scope)).unwrap_or_default();
    let initials: String = name.split_whitespace().filter_map(|w| w.chars().next()).take(2).flat_map(char::to_uppercase).collect();
    let size = b.m.dp(p.size.unwrap_or(40.0));
    let bg = match p.background.as_deref() {
        Some(c) => b.color(Some(c), at, b.theme.primary_container),
        None => avatar_color(&name),
    };
    let mut v = container(Direction::Column);
    v.style.width = Some(size);
    v.style.height = Some(size);
    v.style.shrink = false;
    v.style.align_items = Some(Align::Center);
    v.style.justify = phoneworld_layout::Justify::Center;
    v.paint.background = Some(bg);
    v.paint.circle = true;
    let mut a = b.a11y("android.widget.ImageView");
    a.content_desc = name.clone();
    v.set_a11y(a);
    // A photo when `src` names one that can be shown; the initials otherwise.
    let src = p.src.as_ref().map(|t| t.render(&at.scope)).unwrap_or_default();
    if let Some(image) = (!src.is_empty()).then(|| b.image(&src)).flatten() {
        v.content = Content::Image(ImagePaint { image, fit: Fit::Cover, radius: 0.0, circle: true });
        return v;
    }
    let label = b.text(initials.clone(), p.size.unwrap_or(40.0) * 0.4, Weight::Medium, phoneworld_render::Color::WHITE);
    v.children.push(label);
    v
}

/// A stable, pleasant color per name.
fn avatar_color(name: &str) -> phoneworld_render::Color {
    const PALETTE: [u32; 8] = [0x1A73E8, 0xD93025, 0x188038, 0xE37400, 0x9334E6, 0x007B83, 0xC5221F, 0x5F6368];
    let h = name.bytes().fold(7u32, |acc, c| acc.wrapping_mul(31).wrapping_add(u32::from(c)));
    let v = PALETTE[(h % 8) as usize];
    phoneworld_render::Color::rgb((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

/// `fit: cover|contain|fill` (cover when absent).
fn fit(fit: Option<phoneworld_data::Fit>) -> Fit {
    match fit {
        None | Some(phoneworld_data::Fit::Cover) => Fit::Cover,
        Some(phoneworld_data::Fit::Contain) => Fit::Contain,
        Some(phoneworld_data::Fit::Fill) => Fit::Fill,
    }
}

pub(super) fn image(b: &mut Builder<'_>, node: &Node, at: &At<'_>) -> ViewNode {
    let p = &node.props;
    let mut v = container(Direction::Column);
    v.style.height = Some(b.m.dp(p.height.unwrap_or(160.0)));
    // A decorative picture is only drawn: with no id, description or handler it is no element.
    if !p.decorative {
        v.set_a11y(b.a11y("android.widget.ImageView"));
    }
    let src = p.src.as_ref().map(|t| t.render(&at.scope)).unwrap_or_default();
    // An empty `src` (an item without a photo) is the placeholder without a problem.
    if let Some(image) = (!src.is_empty()).then(|| b.image(&src)).flatten() {
        let fit = fit(p.fit);
        let radius = p.corner.map_or(0.0, |r| b.m.dp(r));
        v.content = Content::Image(ImagePaint { image, fit, radius, circle: p.circle });
        return v;
    }
    v.style.align_items = Some(Align::Center);
    v.style.justify = phoneworld_layout::Justify::Center;
    v.paint.background = Some(b.theme.surface_variant);
    v.paint.radius = b.m.dp(12.0);
    v.paint.circle = p.circle;
    let name = p.icon.as_ref().map_or_else(|| "image".to_owned(), |t| t.render(&at.scope));
    v.children.push(b.icon(&name, 48.0, b.theme.on_surface_variant));
    v
}
