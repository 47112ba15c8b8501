//! Arcs (a determinate circular progress indicator): a stroked polyline rasterized by
//! tiny-skia into a coverage mask, then blended like every other shape.

use tiny_skia::{LineCap, Paint, PathBuilder, Pixmap, Stroke, Transform};

use crate::blend::{Canvas, Coverage};
use crate::color::{Color, IRect};

/// Segments per full turn: smooth at phone sizes, and a fixed count keeps output exact.
const SEGMENTS_PER_TURN: f32 = 96.0;

/// Draws an arc of a circle of outer radius `r` and stroke `width`, from `start_deg`
/// (0 = 12 o'clock, clockwise) over `sweep_deg`.
#[allow(clippy::too_many_arguments, reason = "the arc's geometry plus target, clip and color")]
pub(crate) fn arc(cv: &mut Canvas<'_>, cx: f32, cy: f32, r: f32, width: f32, start_deg: f32, sweep_deg: f32, clip: IRect, c: Color) {
    let sweep = sweep_deg.clamp(-360.0, 360.0);
    if sweep.abs() < 0.01 || r <= 0.0 || width <= 0.0 {
        return;
    }
    let x0 = (cx - r).floor() as i32 - 1;
    let y0 = (cy - r).floor() as i32 - 1;
    let size = (2.0 * r).ceil() as u32 + 3;
    let Some(mut pixmap) = Pixmap::new(size, size) else { return };
    let mid = r - width / 2.0;
    let (lx, ly) = (cx - x0 as f32, cy - y0 as f32);
    let steps = ((sweep.abs() / 360.0) * SEGMENTS_PER_TURN).ceil().max(2.0) as usize;
    let mut pb = PathBuilder::new();
    for i in 0..=steps {
        let angle = (start_deg + sweep * i as f32 / steps as f32 - 90.0).to_radians();
        let (px, py) = (lx + mid * angle.cos(), ly + mid * angle.sin());
        if i == 0 {
            pb.move_to(px, py);
        } else {
            pb.line_to(px, py);
        }
    }
    let Some(path) = pb.finish() else { return };
    let mut paint = Paint::default();
    paint.set_color_rgba8(255, 255, 255, 255);
    paint.anti_alias = true;
    let stroke = Stroke { width, line_cap: LineCap::Round, ..Stroke::default() };
    pixmap.stroke_path(&path, &paint, &stroke, Transform::identity(), None);
    let alpha: Vec<u8> = pixmap.data().chunks_exact(4).map(|px| px[3]).collect();
    let mask = Coverage { x: x0, y: y0, w: size as usize, h: size as usize, data: &alpha };
    cv.blit_coverage(mask, clip, c);
}
