//! Anti-aliased shapes: tiny-skia rasterizes coverage into a small mask covering only the
//! clipped region that needs it (only the corners of rounded rects), and our blend loop applies
//! it. Rectangle edges are snapped to whole pixels, so straight parts are plain fills.

use crate::blend::{Canvas, Coverage};
use crate::color::{Color, IRect, Rect};
use tiny_skia::{FillRule, Mask, PathBuilder, Transform};

/// Cubic Bézier control distance for a quarter circle.
const KAPPA: f32 = 0.552_284_8;

/// Adds a rounded rect, shifted by (dx, dy) into mask-local coordinates.
fn push_rrect(pb: &mut PathBuilder, r: IRect, radius: f32, dx: f32, dy: f32) {
    let (x0, y0, x1, y1) = (r.x0 as f32 + dx, r.y0 as f32 + dy, r.x1 as f32 + dx, r.y1 as f32 + dy);
    let rad = radius.min((x1 - x0) / 2.0).min((y1 - y0) / 2.0).max(0.0);
    let k = rad * (1.0 - KAPPA);
    pb.move_to(x0 + rad, y0);
    pb.line_to(x1 - rad, y0);
    pb.cubic_to(x1 - k, y0, x1, y0 + k, x1, y0 + rad);
    pb.line_to(x1, y1 - rad);
    pb.cubic_to(x1, y1 - k, x1 - k, y1, x1 - rad, y1);
    pb.line_to(x0 + rad, y1);
    pb.cubic_to(x0 + k, y1, x0, y1 - k, x0, y1 - rad);
    pb.line_to(x0, y0 + rad);
    pb.cubic_to(x0, y0 + k, x0 + k, y0, x0 + rad, y0);
    pb.close();
}

/// Rasterizes the path made by `build` restricted to `region` (∩ clip) and blends `c` through
/// the coverage. `build` gets the offset into mask-local coordinates: building the path there
/// avoids tiny-skia's costly path transform.
fn fill_path_in(
    cv: &mut Canvas<'_>,
    build: impl Fn(&mut PathBuilder, f32, f32),
    rule: FillRule,
    region: IRect,
    clip: IRect,
    c: Color,
) {
    let reg = region.intersect(clip).intersect(cv.bounds());
    if reg.is_empty() {
        return;
    }
    let mut pb = PathBuilder::new();
    build(&mut pb, -reg.x0 as f32, -reg.y0 as f32);
    let Some(path) = pb.finish() else { return };
    let Some(mut mask) = Mask::new(reg.width() as u32, reg.height() as u32) else { return };
    mask.fill_path(&path, rule, true, Transform::identity());
    let (w, h) = (reg.width() as usize, reg.height() as usize);
    cv.blit_coverage(Coverage { x: reg.x0, y: reg.y0, w, h, data: mask.data() }, clip, c);
}

/// Splits `r` into four corner squares of side `k` (clamped so they never overlap) and the
/// cross-shaped rest, which is a plain fill because rectangle edges are on pixel boundaries.
struct Corners {
    corners: [IRect; 4],
    cross: [IRect; 3],
}

fn corners(r: IRect, k: i32) -> Corners {
    let kx = k.min((r.width() + 1) / 2);
    let ky = k.min((r.height() + 1) / 2);
    let (lx, rx) = (r.x0 + kx, (r.x1 - kx).max(r.x0 + kx));
    let (ty, by) = (r.y0 + ky, (r.y1 - ky).max(r.y0 + ky));
    Corners {
        corners: [
            IRect { x1: lx, y1: ty, ..r },
            IRect { x0: rx, y1: ty, ..r },
            IRect { x1: lx, y0: by, ..r },
            IRect { x0: rx, y0: by, ..r },
        ],
        cross: [
            IRect { x0: lx, x1: rx, y1: ty, ..r },
            IRect { y0: ty, y1: by, ..r },
            IRect { x0: lx, x1: rx, y0: by, ..r },
        ],
    }
}

pub(crate) fn fill(cv: &mut Canvas<'_>, rect: Rect, radius: f32, clip: IRect, c: Color) {
    let r = IRect::snap(rect);
    let radius = radius.min(r.width() as f32 / 2.0).min(r.height() as f32 / 2.0);
    if r.is_empty() || r.intersect(clip).is_empty() {
        return;
    }
    if radius < 0.5 {
        cv.fill_rect(r, clip, c);
        return;
    }
    let parts = corners(r, radius.ceil() as i32);
    for corner in parts.corners {
        let build = |pb: &mut PathBuilder, dx, dy| push_rrect(pb, r, radius, dx, dy);
        fill_path_in(cv, build, FillRule::Winding, corner, clip, c);
    }
    for part in parts.cross {
        cv.fill_rect(part, clip, c);
    }
}

/// Outline inside `rect`, `width` rounded to whole pixels (at least 1).
pub(crate) fn stroke(cv: &mut Canvas<'_>, rect: Rect, width: f32, radius: f32, clip: IRect, c: Color) {
    let r = IRect::snap(rect);
    if r.is_empty() || r.intersect(clip).is_empty() {
        return;
    }
    let sw = (width.round() as i32).max(1);
    if 2 * sw >= r.width().min(r.height()) {
        fill(cv, rect, radius, clip, c);
        return;
    }
    let radius = radius.min(r.width() as f32 / 2.0).min(r.height() as f32 / 2.0);
    let inner = IRect { x0: r.x0 + sw, y0: r.y0 + sw, x1: r.x1 - sw, y1: r.y1 - sw };
    let parts = corners(r, (radius.ceil() as i32).max(sw));
    if radius >= 0.5 {
        let build = |pb: &mut PathBuilder, dx, dy| {
            push_rrect(pb, r, radius, dx, dy);
            push_rrect(pb, inner, (radius - sw as f32).max(0.0), dx, dy);
        };
        for corner in parts.corners {
            fill_path_in(cv, build, FillRule::EvenOdd, corner, clip, c);
        }
    } else {
        for corner in parts.corners {
            cv.fill_rect(corner, clip, c);
        }
    }
    let [top, mid, bottom] = parts.cross;
    cv.fill_rect(IRect { y1: inner.y0, ..top }, clip, c);
    cv.fill_rect(IRect { y0: inner.y1, ..bottom }, clip, c);
    cv.fill_rect(IRect { x1: inner.x0, ..mid }, clip, c);
    cv.fill_rect(IRect { x0: inner.x1, ..mid }, clip, c);
}

fn circle_bounds(cx: f32, cy: f32, r: f32) -> IRect {
    IRect {
        x0: (cx - r).floor() as i32,
        y0: (cy - r).floor() as i32,
        x1: (cx + r).ceil() as i32,
        y1: (cy + r).ceil() as i32,
    }
}

pub(crate) fn circle(cv: &mut Canvas<'_>, cx: f32, cy: f32, r: f32, clip: IRect, c: Color) {
    if r <= 0.0 {
        return;
    }
    let build = |pb: &mut PathBuilder, dx, dy| pb.push_circle(cx + dx, cy + dy, r);
    fill_path_in(cv, build, FillRule::Winding, circle_bounds(cx, cy, r), clip, c);
}

/// Ring whose outer edge is the circle of radius `r` (the stroke lies inside, like `stroke`).
pub(crate) fn ring(cv: &mut Canvas<'_>, cx: f32, cy: f32, r: f32, width: f32, clip: IRect, c: Color) {
    if r <= 0.0 || width <= 0.0 {
        return;
    }
    if width >= r {
        circle(cv, cx, cy, r, clip, c);
        return;
    }
    let build = |pb: &mut PathBuilder, dx, dy| {
        pb.push_circle(cx + dx, cy + dy, r);
        pb.push_circle(cx + dx, cy + dy, r - width);
    };
    fill_path_in(cv, build, FillRule::EvenOdd, circle_bounds(cx, cy, r), clip, c);
}
