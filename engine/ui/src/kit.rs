//! Small constructors shared by the view builder and the shell.

use phoneworld_layout::{A11y, BoxStyle, Content, TextSpec, ViewNode};
use phoneworld_render::Color;
use phoneworld_text::Weight;

use crate::theme::Metrics;

pub(crate) fn text(m: &Metrics, text: String, size_sp: f32, weight: Weight, color: Color) -> ViewNode {
    ViewNode {
        content: Content::Text(TextSpec { text, size_px: m.sp(size_sp), weight, color, max_lines: None, align: 0 }),
        ..ViewNode::default()
    }
}

pub(crate) fn icon(m: &Metrics, name: &str, size_dp: f32, color: Color) -> ViewNode {
    ViewNode {
        content: Content::Icon { name: name.to_owned(), size_px: m.dp(size_dp), color },
        style: BoxStyle { shrink: false, ..BoxStyle::default() },
        ..ViewNode::default()
    }
}

pub(crate) fn a11y(class_name: &'static str, package: &str) -> A11y {
    A11y { class_name, package: package.to_owned(), enabled: true, ..A11y::default() }
}

/// Limits a text node to one line with an ellipsis.
pub(crate) fn one_line(mut v: ViewNode) -> ViewNode {
    if let Content::Text(spec) = &mut v.content {
        spec.max_lines = Some(1);
    }
    v
}

/// Centers a text node's text.
pub(crate) fn centered(mut v: ViewNode) -> ViewNode {
    if let Content::Text(spec) = &mut v.content {
        spec.align = 1;
    }
    v
}

/// Removes the accessibility facts of a subtree: its parent speaks for it.
pub(crate) fn silence(v: &mut ViewNode) {
    v.a11y = None;
    v.known_hashes = Default::default();
    for c in &mut v.children {
        silence(c);
    }
}
