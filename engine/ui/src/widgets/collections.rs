//! Collections: scrolling lists (rows repeated over a list in the state or content), plain
//! scroll columns, and grids.

use std::borrow::Cow;

use phoneworld_data::{valuepath, Node, NodeKind, PathRoot};
use phoneworld_layout::{Align, Direction, ViewNode};
use serde_json::Value;

use crate::builder::{container, At, Builder};
use crate::interaction::{Hit, ScrollInfo};

/// The items of a collection and, when they live in the store, the path of the first.
fn items<'s>(node: &Node, at: &At<'s>) -> (Vec<Cow<'s, Value>>, Option<String>) {
    let Some(template) = &node.props.items else { return (Vec::new(), None) };
    let base = template.as_path().and_then(|path| match path.root {
        PathRoot::State | PathRoot::Local | PathRoot::System => Some(path.to_string()),
        PathRoot::Item => {
            at.item_path.as_ref().map(|b| std::iter::once(b.clone()).chain(path.segments.iter().cloned()).collect::<Vec<_>>().join("."))
        }
        _ => None,
    });
    let list = match template.value(&at.scope) {
        Cow::Borrowed(Value::Array(list)) => list.iter().map(Cow::Borrowed).collect(),
        Cow::Owned(Value::Array(list)) => list.into_iter().map(Cow::Owned).collect(),
        Cow::Borrowed(Value::Object(map)) => map.values().map(Cow::Borrowed).collect(),
        Cow::Owned(Value::Object(map)) => map.into_iter().map(|(_, v)| Cow::Owned(v)).collect(),
        _ => Vec::new(),
    };
    let base = if matches!(template.value(&at.scope).as_ref(), Value::Array(_)) { base } else { None };
    (list, base)
}

/// Builds one row per item.
fn rows(b: &mut Builder<'_>, node: &Node, at: &At<'_>) -> Vec<ViewNode> {
    let Some(row) = &node.props.row else { return Vec::new() };
    let (list, base) = items(node, at);
    let mut out = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        let item: &Value = item.as_ref();
        let key = b.row_key(&at.key, item, i);
        let row_at = At {
            scope: at.scope.with_item(item, i),
            row: Some(key.clone()),
            key,
            item_path: base.as_ref().map(|b| format!("{b}.{}", valuepath::position_segment(i))),
            in_scroll: at.in_scroll,
        };
        if let Some(v) = b.row(row, item, i, &row_at) {
            out.push(v);
        }
    }
    out
}

pub(super) fn list(b: &mut Builder<'_>, node: &Node, at: &At<'_>) -> ViewNode {
    let p = &node.props;
    let mut v = container(Direction::Column);
    // A list inside another scrolling container shows all its rows and scrolls with it.
    let nested = at.in_scroll;
    let inner = At { in_scroll: true, ..at.clone() };
    let at = &inner;
    if !nested {
        v.style.scroll = true;
        v.style.grow = 1.0;
        v.scroll_y = b.entry.scroll.get(&at.key).copied().unwrap_or(0.0);
    }
    v.children = if node.kind == NodeKind::List { rows(b, node, at) } else { b.children(&p.children, at) };
    for child in &mut v.children {
        child.style.shrink = false;
    }
    if v.children.is_empty() {
        if let Some(empty) = &p.empty {
            if let Some(e) = b.node(empty, &at.child(0)) {
                v.children.push(e);
            }
        }
    }
    let mut a = b.a11y(if node.kind == NodeKind::List { "androidx.recyclerview.widget.RecyclerView" } else { "android.widget.ScrollView" });
    a.scrollable = !nested;
    v.set_a11y(a);
    if nested {
        return v;
    }
    let scroll = ScrollInfo {
        app: b.app.to_owned(),
        key: at.key.clone(),
        on_end: b.handler(p.on_scroll_end.as_ref(), at),
        event: b.event(node, at, None),
    };
    v.hit = Some(b.hit(Hit { tap: None, long_press: None, scroll: Some(scroll) }));
    v
}

pub(super) fn grid(b: &mut Builder<'_>, node: &Node, at: &At<'_>) -> ViewNode {
    let p = &node.props;
    let columns = p.columns.unwrap_or(3).max(1);
    let cells = if p.row.is_some() { rows(b, node, at) } else { b.children(&p.children, at) };
    let mut v = container(Direction::Column);
    // Cells share the grid's width, so the grid takes its parent's full width even when the
    // parent centers its children (a centered grid of zero-width cells would vanish).
    v.style.align_self = Some(Align::Stretch);
    let gap = b.m.dp(p.gap.unwrap_or(8.0));
    v.style.gap = gap;
    let mut cells = cells.into_iter().peekable();
    while cells.peek().is_some() {
        let mut line = container(Direction::Row);
        line.style.gap = gap;
        for _ in 0..columns {
            let mut cell = container(Direction::Column);
            cell.style.grow = 1.0;
            cell.style.min_width = Some(0.0);
            cell.style.width = Some(0.0);
            if let Some(c) = cells.next() {
                cell.children.push(c);
            }
            line.children.push(cell);
        }
        v.children.push(line);
    }
    v.set_a11y(b.a11y("android.widget.GridView"));
    v
}
