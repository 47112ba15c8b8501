//! One builder per widget kind: each turns a layout node into boxes, text and icons with
//! accessibility facts and interactions; [`Builder::node`] walks the tree through them.

mod basic;
mod buttons;
mod collections;
pub(crate) mod inputs;
mod map;
mod navigation;
mod pickers;
pub(crate) mod reads;

pub use inputs::value_text;

use std::ops::ControlFlow;

use phoneworld_data::{Node, NodeKind};
use phoneworld_layout::ViewNode;

use crate::builder::{At, Builder};

pub(crate) fn build(b: &mut Builder<'_>, node: &Node, at: &At<'_>, enabled: bool) -> Option<ViewNode> {
    Some(match node.kind {
        NodeKind::Column | NodeKind::Row | NodeKind::Stack | NodeKind::Card => basic::layout_container(b, node, at),
        NodeKind::Spacer => basic::spacer(),
        NodeKind::Divider => basic::divider(b),
        NodeKind::Text => basic::text(b, node, at),
        NodeKind::Icon => basic::icon(b, node, at),
        NodeKind::Avatar => basic::avatar(b, node, at),
        NodeKind::Image => basic::image(b, node, at),
        NodeKind::Map => map::map(b, node, at),
        NodeKind::Button => buttons::button(b, node, at, enabled),
        NodeKind::IconButton => buttons::icon_button(b, node, at, enabled),
        NodeKind::Fab => buttons::fab(b, node, at, enabled),
        NodeKind::Chip => buttons::chip(b, node, at, enabled),
        NodeKind::TextField => inputs::text_field(b, node, at, enabled),
        NodeKind::Switch | NodeKind::Checkbox => inputs::toggle(b, node, at, enabled),
        NodeKind::Radio => inputs::radio(b, node, at, enabled),
        NodeKind::Slider => inputs::slider(b, node, at, enabled),
        NodeKind::Progress => inputs::progress(b, node, at),
        NodeKind::Scroll | NodeKind::List => collections::list(b, node, at),
        NodeKind::Grid => collections::grid(b, node, at),
        NodeKind::Tabs => navigation::tabs(b, node, at, false),
        NodeKind::BottomNav => navigation::tabs(b, node, at, true),
        NodeKind::TopBar => navigation::top_bar(b, node, at),
        NodeKind::TimePicker => pickers::time_picker(b, node, at),
        NodeKind::DatePicker => pickers::date_picker(b, node, at),
        NodeKind::Use => return None,
    })
}

impl Builder<'_> {
    /// Builds one node, or nothing when it is not visible; within the view's limits.
    pub(crate) fn node(&mut self, node: &Node, at: &At<'_>) -> Option<ViewNode> {
        if let ControlFlow::Break(instead) = self.enter_node() {
            return instead;
        }
        let view = self.visible_node(node, at);
        self.leave_node();
        view
    }

    fn visible_node(&mut self, node: &Node, at: &At<'_>) -> Option<ViewNode> {
        let p = &node.props;
        if let Some(visible) = &p.visible {
            if !visible.eval(&at.scope) {
                return None;
            }
        }
        let enabled = p.enabled.as_ref().is_none_or(|e| e.eval(&at.scope));
        let keyed;
        let at = match self.stable_key(node, at) {
            Some(key) => {
                keyed = At { key, ..at.clone() };
                &keyed
            }
            None => at,
        };
        let mut view = match node.kind {
            NodeKind::Use => return self.use_module(node, at),
            _ => build(self, node, at, enabled)?,
        };
        self.apply_common(node, at, enabled, &mut view);
        Some(view)
    }
}
