//! Navigation widgets: tabs, bottom navigation and the top app bar.

use phoneworld_data::{Node, NodeKind};
use phoneworld_layout::{Align, Direction, Justify, ViewNode};
use phoneworld_text::Weight;
use serde_json::Value;

use crate::builder::{centered_box, container, At, Builder};
use crate::interaction::{Hit, Interaction, SystemAction};
use crate::kit::silence;

/// `Tabs` (text tabs with an underline) and `BottomNav` (icon + label destinations).
pub(super) fn tabs(b: &mut Builder<'_>, node: &Node, at: &At<'_>, bottom: bool) -> ViewNode {
    let p = &node.props;
    let t = b.theme;
    let selected = p.value.as_ref().and_then(|path| at.scope.get(path)).and_then(|v| v.as_u64()).unwrap_or(0) as usize;
    let target = p.value.as_ref().and_then(|path| b.target(path, at));
    let mut bar = container(Direction::Row);
    if bottom {
        bar.style.height = Some(b.m.dp(80.0));
        bar.paint.background = Some(t.surface_variant);
        bar.style.padding = [0.0, b.m.dp(12.0), 0.0, b.m.dp(16.0)];
    } else {
        bar.paint.border = None;
    }
    for (i, tab) in p.tabs.iter().enumerate() {
        let is_selected = i == selected;
        let label = tab.text.render(&at.scope);
        let fg = if is_selected {
            if bottom {
                t.on_surface
            } else {
                t.primary
            }
        } else {
            t.on_surface_variant
        };
        let mut item = container(Direction::Column);
        item.style.grow = 1.0;
        item.style.width = Some(0.0);
        item.style.min_height = Some(b.m.dp(48.0));
        item.style.align_items = Some(Align::Center);
        item.style.justify = Justify::Center;
        item.style.gap = b.m.dp(4.0);
        if bottom {
            let mut pill = container(Direction::Column);
            pill.style.width = Some(b.m.dp(64.0));
            pill.style.height = Some(b.m.dp(32.0));
            pill.style.align_items = Some(Align::Center);
            pill.style.justify = Justify::Center;
            pill.paint.radius = b.m.dp(16.0);
            if is_selected {
                pill.paint.background = Some(t.secondary_container);
            }
            pill.children.push(b.icon(tab.icon.as_deref().unwrap_or("circle"), 24.0, fg));
            item.children.push(pill);
            item.children.push(b.text(label.clone(), 12.0, Weight::Medium, fg));
        } else {
            if let Some(icon) = &tab.icon {
                item.children.push(b.icon(icon, 24.0, fg));
            }
            let mut text = b.text(label.clone(), 14.0, Weight::Medium, fg);
            text.style.padding = [0.0, b.m.dp(12.0), 0.0, b.m.dp(9.0)];
            item.children.push(text);
            let mut underline = ViewNode::default();
            underline.style.height = Some(b.m.dp(3.0));
            underline.style.width = Some(b.m.dp(48.0));
            underline.style.shrink = false;
            underline.paint.radius = b.m.dp(1.5);
            if is_selected {
                underline.paint.background = Some(t.primary);
            }
            item.children.push(underline);
        }
        silence(&mut item);
        let mut a = b.a11y(if bottom { "android.widget.FrameLayout" } else { "android.widget.LinearLayout" });
        a.content_desc = label;
        a.selected = is_selected;
        a.clickable = true;
        a.focusable = true;
        item.set_a11y(a);
        if let Some(target) = &target {
            let event = b.event(node, at, Some(Value::from(i)));
            let tap = Interaction::Set {
                app: b.app.to_owned(),
                target: target.clone(),
                value: Value::from(i),
                handler: b.handler(p.on_change.as_ref(), at),
                event,
            };
            item.hit = Some(b.hit(Hit { tap: Some(tap), long_press: None, scroll: None }));
        }
        bar.children.push(item);
    }
    bar.set_a11y(b.a11y(if node.kind == NodeKind::BottomNav {
        "android.widget.LinearLayout"
    } else {
        "android.widget.HorizontalScrollView"
    }));
    bar
}

pub(super) fn top_bar(b: &mut Builder<'_>, node: &Node, at: &At<'_>) -> ViewNode {
    let p = &node.props;
    let t = b.theme;
    let mut bar = container(Direction::Row);
    bar.style.height = Some(b.m.dp(64.0));
    bar.style.shrink = false;
    bar.style.align_items = Some(Align::Center);
    bar.style.padding = [b.m.dp(if p.back { 4.0 } else { 16.0 }), 0.0, b.m.dp(4.0), 0.0];
    bar.style.gap = b.m.dp(4.0);
    if p.back {
        let size = b.m.dp(48.0);
        let mut back = centered_box(size, size);
        back.children.push(b.icon("arrow_back", 24.0, t.on_surface));
        let mut a = b.a11y("android.widget.ImageButton");
        a.content_desc = "Navigate up".into();
        a.clickable = true;
        a.focusable = true;
        back.set_a11y(a);
        back.hit = Some(b.hit(Hit { tap: Some(Interaction::System(SystemAction::Back)), long_press: None, scroll: None }));
        bar.children.push(back);
    }
    let title = p.title.as_ref().or(p.text.as_ref()).map(|x| x.render(&at.scope)).unwrap_or_default();
    let mut title_view = b.text(title.clone(), 22.0, Weight::Regular, t.on_surface);
    if let phoneworld_layout::Content::Text(spec) = &mut title_view.content {
        spec.max_lines = Some(1);
    }
    title_view.style.grow = 1.0;
    title_view.style.margin = [if p.back { b.m.dp(4.0) } else { 0.0 }, 0.0, 0.0, 0.0];
    let mut a = b.a11y("android.widget.TextView");
    a.text = title;
    title_view.set_a11y(a);
    bar.children.push(title_view);
    let actions = b.children(&p.children, at);
    bar.children.extend(actions);
    bar.set_a11y(b.a11y("android.view.ViewGroup"));
    bar
}
