//! A display list drawn at another scale: every position, size, stroke and glyph multiplied by
//! one factor. An observation asked for at a reduced size is drawn at that size (glyphs
//! rasterized at the smaller size, shapes covered at the smaller size) rather than drawn in full
//! and filtered down; the layout, and so hit-testing, stays in device coordinates.

use std::sync::Arc;

use phoneworld_text::{PlacedEmoji, PlacedGlyph, Placeholder, TextLayout};

use crate::{DrawCmd, Rect};

/// Appends `cmds` drawn at `scale` to `out`.
pub fn scale_commands(cmds: &[DrawCmd], scale: f32, out: &mut Vec<DrawCmd>) {
    let s = |v: f32| v * scale;
    let rect = |r: &Rect| Rect::new(r.x * scale, r.y * scale, r.w * scale, r.h * scale);
    out.extend(cmds.iter().map(|cmd| match cmd {
        DrawCmd::Fill { rect: r, color, radius } => DrawCmd::Fill { rect: rect(r), color: *color, radius: s(*radius) },
        DrawCmd::Stroke { rect: r, color, width, radius } => {
            DrawCmd::Stroke { rect: rect(r), color: *color, width: s(*width), radius: s(*radius) }
        }
        DrawCmd::Circle { cx, cy, r, color } => DrawCmd::Circle { cx: s(*cx), cy: s(*cy), r: s(*r), color: *color },
        DrawCmd::Ring { cx, cy, r, color, width } => DrawCmd::Ring { cx: s(*cx), cy: s(*cy), r: s(*r), color: *color, width: s(*width) },
        DrawCmd::Arc { cx, cy, r, color, width, start_deg, sweep_deg } => {
            DrawCmd::Arc { cx: s(*cx), cy: s(*cy), r: s(*r), color: *color, width: s(*width), start_deg: *start_deg, sweep_deg: *sweep_deg }
        }
        DrawCmd::Text { x, y, layout, color } => {
            DrawCmd::Text { x: s(*x), y: s(*y), layout: Arc::new(scale_layout(layout, scale)), color: *color }
        }
        DrawCmd::Image { rect: r, image, fit, radius, circle } => {
            DrawCmd::Image { rect: rect(r), image: Arc::clone(image), fit: *fit, radius: s(*radius), circle: *circle }
        }
        DrawCmd::PushClip(r) => DrawCmd::PushClip(rect(r)),
        DrawCmd::PopClip => DrawCmd::PopClip,
    }));
}

/// The placed glyphs, emoji and boxes of `layout` at `scale`. Pens and baselines stay on whole
/// pixels as the layout places them; the strings are left out (drawing never reads them).
fn scale_layout(layout: &TextLayout, scale: f32) -> TextLayout {
    let whole = |v: f32| (v * scale).round();
    TextLayout {
        width: (layout.width * scale).ceil(),
        height: (layout.height * scale).ceil(),
        line_height: (layout.line_height * scale).round().max(1.0),
        lines: Vec::new(),
        glyphs: layout
            .glyphs
            .iter()
            .map(|g| PlacedGlyph { x: whole(g.x), baseline: whole(g.baseline), size_px: g.size_px * scale, ..*g })
            .collect(),
        emoji: layout
            .emoji
            .iter()
            .map(|e| PlacedEmoji { x: whole(e.x), y: whole(e.y), w: whole(e.w).max(1.0), h: whole(e.h).max(1.0), ..*e })
            .collect(),
        placeholders: layout
            .placeholders
            .iter()
            .map(|p| Placeholder { x: whole(p.x), y: whole(p.y), w: whole(p.w).max(1.0), h: whole(p.h).max(1.0) })
            .collect(),
        truncated: layout.truncated,
    }
}

/// The single factor that draws a `from` frame at `to`, when there is one: both sides scale by
/// the same factor up to rounding of the result (1080x2400 to 540x1200 or 270x600, not to
/// 512x512, which is filtered instead).
pub fn uniform_scale(from: (u32, u32), to: (u32, u32)) -> Option<f32> {
    if from.0 == 0 || from.1 == 0 || to.0 == 0 || to.1 == 0 {
        return None;
    }
    let scale = to.0 as f32 / from.0 as f32;
    ((from.1 as f32 * scale).round() as u32 == to.1).then_some(scale)
}
