//! Layout checks a screen must pass under every appearance: no text cut off without an ellipsis,
//! no two touch targets overlapping, every touch target at least 48 dp on each side.

use phoneworld_layout::{Placed, PlacedTree};

use crate::theme::MIN_TOUCH_DP;

/// Slack in pixels for rounding of boxes.
const SLACK: f32 = 1.5;

/// One problem with where it is: the screen, the node's label and box.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct LayoutProblem {
    pub screen: String,
    pub message: String,
}

impl std::fmt::Display for LayoutProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.screen, self.message)
    }
}

fn label(n: &Placed) -> String {
    let text = n.text.as_ref().map(|t| t.lines.join(" ")).unwrap_or_default();
    match &n.a11y {
        Some(a) if !a.resource_id.is_empty() => format!("#{}", a.resource_id.rsplit('/').next().unwrap_or("")),
        Some(a) if !a.text.is_empty() => format!("\"{}\"", a.text),
        Some(a) if !a.content_desc.is_empty() => format!("desc \"{}\"", a.content_desc),
        _ if !text.is_empty() => format!("text \"{text}\""),
        _ => "a node".into(),
    }
}

fn rect(n: &Placed) -> String {
    format!("({:.0},{:.0},{:.0},{:.0})", n.x, n.y, n.x + n.w, n.y + n.h)
}

/// Is `a` an ancestor of `b`?
fn ancestor(tree: &PlacedTree, a: usize, mut b: usize) -> bool {
    while let Some(p) = tree.nodes[b].parent {
        if p == a {
            return true;
        }
        b = p;
    }
    false
}

/// Has node `i` an ancestor for which `test` holds?
fn under(tree: &PlacedTree, mut i: usize, test: impl Fn(&Placed) -> bool) -> bool {
    while let Some(p) = tree.nodes[i].parent {
        if test(&tree.nodes[p]) {
            return true;
        }
        i = p;
    }
    false
}

/// Inside a scroll container: being cut at its edge is scrolling, not clipping.
fn scrolled(tree: &PlacedTree, i: usize) -> bool {
    under(tree, i, |n| n.scrollable)
}

/// Inside a viewport (a map): content cut at its edge and targets crowding where their places
/// are belong to what it shows.
fn in_viewport(tree: &PlacedTree, i: usize) -> bool {
    under(tree, i, |n| n.viewport)
}

/// Does `a`'s box contain all of `b`'s?
fn covers(a: [f32; 4], b: [f32; 4]) -> bool {
    a[0] <= b[0] + SLACK && a[1] <= b[1] + SLACK && a[2] + SLACK >= b[2] && a[3] + SLACK >= b[3]
}

/// The surface a node belongs to: the child of the root holding it (status bar, content,
/// keyboard, navigation bar, snackbar, dialog). Surfaces stack by design, so only targets on
/// the same one may not overlap.
fn surface(tree: &PlacedTree, mut i: usize) -> usize {
    while let Some(p) = tree.nodes[i].parent {
        if tree.nodes[p].parent.is_none() {
            return i;
        }
        i = p;
    }
    i
}

/// The part of node `i` its own screen's containers leave visible: the clips between it and
/// its surface, not the surface's own edge (where the keyboard, when up, covers the app).
fn visible_within_surface(tree: &PlacedTree, i: usize) -> [f32; 4] {
    let n = &tree.nodes[i];
    let mut r = [n.x, n.y, n.x + n.w, n.y + n.h];
    let top = surface(tree, i);
    let mut at = i;
    while let Some(p) = tree.nodes[at].parent {
        if p == top || tree.nodes[p].parent.is_none() {
            break;
        }
        let c = &tree.nodes[p];
        if c.paint.clip || c.scrollable {
            r = [r[0].max(c.x), r[1].max(c.y), r[2].min(c.x + c.w), r[3].min(c.y + c.h)];
        }
        at = p;
    }
    [r[0], r[1], r[2].max(r[0]), r[3].max(r[1])]
}

/// The problems of a laid-out screen. `px_per_dp` converts the 48 dp minimum.
pub fn check_tree(tree: &PlacedTree, px_per_dp: f32, screen: &str) -> Vec<LayoutProblem> {
    let keyboard_up = tree.nodes.iter().any(|n| n.a11y.as_ref().is_some_and(|a| a.package == crate::shell::KEYBOARD));
    let mut out = Vec::new();
    let mut problem = |message: String| out.push(LayoutProblem { screen: screen.to_owned(), message });
    let nodes = &tree.nodes;
    for (i, n) in nodes.iter().enumerate() {
        if !n.is_visible() {
            continue;
        }
        if let Some(text) = &n.text {
            let (room_w, room_h) = (n.w - n.padding[0] - n.padding[2], n.h - n.padding[1] - n.padding[3]);
            let cut_inside = text.width > room_w + SLACK || text.height > room_h + SLACK;
            // With the keyboard up, what it covers is hidden, not cut by the layout.
            let [x1, y1, x2, y2] = if keyboard_up { visible_within_surface(tree, i) } else { n.visible_rect() };
            let cut_outside = !scrolled(tree, i) && !in_viewport(tree, i) && (x2 - x1 < n.w - SLACK || y2 - y1 < n.h - SLACK);
            if (cut_inside || cut_outside) && !text.lines.is_empty() {
                let why = if cut_inside {
                    format!("its {:.0}x{:.0} px of text in {:.0}x{:.0} px of room", text.width, text.height, room_w, room_h)
                } else {
                    format!("shown only in ({x1:.0},{y1:.0},{x2:.0},{y2:.0})")
                };
                problem(format!("text {} {} is cut off without an ellipsis: {why}", label(n), rect(n)));
            }
        }
        let clickable = n.hit.is_some() && n.a11y.as_ref().is_some_and(|a| a.clickable || a.long_clickable);
        if !clickable {
            continue;
        }
        let min = MIN_TOUCH_DP * px_per_dp - SLACK;
        // Keyboard keys are narrower by design, as on every Android keyboard.
        let key = n.a11y.as_ref().is_some_and(|a| a.package == crate::shell::KEYBOARD);
        if !key && (n.w < min || n.h < min) {
            problem(format!(
                "touch target {} {} is {:.0}x{:.0} dp, under {MIN_TOUCH_DP} dp",
                label(n),
                rect(n),
                n.w / px_per_dp,
                n.h / px_per_dp
            ));
        }
        let [ax1, ay1, ax2, ay2] = n.visible_rect();
        for (j, m) in nodes.iter().enumerate().skip(i + 1) {
            let other = m.hit.is_some() && m.a11y.as_ref().is_some_and(|a| a.clickable || a.long_clickable);
            if !other || !m.is_visible() || ancestor(tree, i, j) || ancestor(tree, j, i) {
                continue;
            }
            // A floating button over a list, or a snackbar over the screen, covers by design.
            if surface(tree, i) != surface(tree, j) || scrolled(tree, i) != scrolled(tree, j) {
                continue;
            }
            // Markers on a map sit where their places are, under the map's own buttons.
            if in_viewport(tree, i) && in_viewport(tree, j) {
                continue;
            }
            // A scrim over everything beneath it (a menu's or a dialog's) is a modal layer.
            if covers(m.visible_rect(), n.visible_rect()) {
                continue;
            }
            let [bx1, by1, bx2, by2] = m.visible_rect();
            let (w, h) = (ax2.min(bx2) - ax1.max(bx1), ay2.min(by2) - ay1.max(by1));
            if w > SLACK && h > SLACK {
                problem(format!("touch targets {} {} and {} {} overlap", label(n), rect(n), label(m), rect(m)));
            }
        }
    }
    out
}
