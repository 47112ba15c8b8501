//! Turning a laid-out tree into the renderer's display list.

use phoneworld_render::{DrawCmd, Rect};

use crate::placed::PlacedTree;

/// Appends the draw commands of a laid-out tree.
pub fn paint(tree: &PlacedTree, out: &mut Vec<DrawCmd>) {
    let mut clip_stack: Vec<Option<[f32; 4]>> = Vec::new();
    let mut current: Option<[f32; 4]> = None;
    for node in &tree.nodes {
        if node.clip != current {
            // Clips nest with the tree; reset to the node's own clip.
            for _ in clip_stack.drain(..) {
                out.push(DrawCmd::PopClip);
            }
            if let Some([x1, y1, x2, y2]) = node.clip {
                out.push(DrawCmd::PushClip(Rect { x: x1, y: y1, w: (x2 - x1).max(0.0), h: (y2 - y1).max(0.0) }));
                clip_stack.push(node.clip);
            }
            current = node.clip;
        }
        if !node.is_visible() {
            continue;
        }
        let rect = Rect { x: node.x, y: node.y, w: node.w, h: node.h };
        let p = &node.paint;
        let r = node.w.min(node.h) / 2.0;
        let (cx, cy) = (node.x + node.w / 2.0, node.y + node.h / 2.0);
        if let Some(color) = p.background {
            out.push(if p.circle { DrawCmd::Circle { cx, cy, r, color } } else { DrawCmd::Fill { rect, color, radius: p.radius } });
        }
        // An image lies over the background and under the border.
        if let Some(i) = &node.image {
            out.push(DrawCmd::Image { rect, image: i.image.clone(), fit: i.fit, radius: i.radius, circle: i.circle });
        }
        if p.circle {
            if let Some((color, width)) = p.border {
                out.push(DrawCmd::Ring { cx, cy, r, color, width });
            }
            if let Some((fraction, color)) = p.arc {
                let width = p.border.map_or(r / 6.0, |(_, w)| w);
                out.push(DrawCmd::Arc { cx, cy, r, color, width, start_deg: 0.0, sweep_deg: 360.0 * fraction.clamp(0.0, 1.0) });
            }
        } else if let Some((color, width)) = p.border {
            out.push(DrawCmd::Stroke { rect, color, width, radius: p.radius });
        }
        if let (Some(layout), Some(color)) = (&node.text, node.text_color) {
            let [pl, pt, pr, pb] = node.padding;
            let inner_w = node.w - pl - pr;
            let inner_h = node.h - pt - pb;
            let dx = match node.text_align {
                1 => (inner_w - layout.width) / 2.0,
                2 => inner_w - layout.width,
                _ => 0.0,
            };
            let dy = (inner_h - layout.height) / 2.0;
            out.push(DrawCmd::Text {
                x: (node.x + pl + dx.max(0.0)).round(),
                y: (node.y + pt + dy.max(0.0)).round(),
                layout: layout.clone(),
                color,
            });
        }
    }
    for _ in clip_stack.drain(..) {
        out.push(DrawCmd::PopClip);
    }
}
