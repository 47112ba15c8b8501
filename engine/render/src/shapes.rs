//! Anti-aliased shapes. Rectangle edges are snapped to whole pixels, so only the corners of
//! rounded rects need coverage; circles and corners come from cached tiny-skia masks and our
//! blend loop applies them (clipping is an intersection in the blit).

use crate::blend::{Canvas, Coverage};
use crate::color::{Color, IRect, Rect};
use std::sync::Arc;

use crate::mask_cache::{mask_size, rasterize_tiles, shape_mask, ShapeKey, ShapeMask, MAX_CACHED_SIDE};

/// Blends the key's mask with its top-left at (x, y), limited to `region` ∩ clip.
fn draw_mask(cv: &mut Canvas<'_>, key: ShapeKey, x: i32, y: i32, region: IRect, clip: IRect, c: Color) {
    let (w, h) = mask_size(key);
    let full = IRect { x0: x, y0: y, x1: x + w as i32, y1: y + h as i32 };
    let vis = full.intersect(region).intersect(clip).intersect(cv.bounds());
    if vis.is_empty() {
        return;
    }
    let (m, mx, my) = mask_over(key, x, y, vis);
    cv.blit_coverage(Coverage { x: mx, y: my, w: m.w, h: m.h, data: &m.data }, vis, c);
}

/// The coverage of `key` drawn with its top-left at (x, y), for the pixels of `vis`: the mask
/// and where its top-left lands (small masks whole from the cache, big ones only the tiles
/// that hold `vis`).
fn mask_over(key: ShapeKey, x: i32, y: i32, vis: IRect) -> (Arc<ShapeMask>, i32, i32) {
    let (w, h) = mask_size(key);
    if w.max(h) <= MAX_CACHED_SIDE as usize {
        return (shape_mask(key), x, y);
    }
    let (m, mx, my) = rasterize_tiles(key, vis.x0 - x, vis.y0 - y, vis.x1 - x, vis.y1 - y);
    (Arc::new(m), x + mx, y + my)
}

/// The coverage of a filled circle (the same pixels `circle` draws), over `vis`.
pub(crate) fn circle_mask(cx: f32, cy: f32, r: f32, vis: IRect) -> (Arc<ShapeMask>, i32, i32) {
    let (x0, y0) = ((cx - r).floor(), (cy - r).floor());
    let key = ShapeKey::Circle { r: r.to_bits(), cx: (cx - x0).to_bits(), cy: (cy - y0).to_bits(), inner: 0f32.to_bits() };
    mask_over(key, x0 as i32, y0 as i32, vis)
}

/// The coverage of the rounded rect `r` (the same pixels `fill` draws), over `vis`.
pub(crate) fn round_rect_mask(r: IRect, radius: f32, vis: IRect) -> (Arc<ShapeMask>, i32, i32) {
    let radius = radius.min(r.width() as f32 / 2.0).min(r.height() as f32 / 2.0);
    let key = ShapeKey::RoundRect { w: r.width(), h: r.height(), radius: radius.to_bits(), sw: 0 };
    mask_over(key, r.x0, r.y0, vis)
}

/// Splits `r` into four corner squares of side `k` (clamped so they never overlap) and the
/// cross-shaped rest, which is a plain fill.
struct Corners {
    /// Top-left, top-right, bottom-left, bottom-right.
    corners: [IRect; 4],
    /// Top strip, full-width middle, bottom strip.
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
        cross: [IRect { x0: lx, x1: rx, y1: ty, ..r }, IRect { y0: ty, y1: by, ..r }, IRect { x0: lx, x1: rx, y0: by, ..r }],
    }
}

/// Side of the corner squares: the arc, or the stroke if it is wider.
pub(crate) fn corner_size(radius: f32, sw: i32) -> i32 {
    (radius.ceil() as i32).max(sw)
}

/// Draws the four corners of `r` from one small canonical rounded-rect mask: its corners are
/// identical to the real rect's, whatever the real size (mask side ≤ 2k+2).
fn draw_corners(cv: &mut Canvas<'_>, r: IRect, parts: &Corners, radius: f32, sw: i32, clip: IRect, c: Color) {
    let k = corner_size(radius, sw);
    let (w, h) = (r.width().min(2 * k + 2), r.height().min(2 * k + 2));
    let key = ShapeKey::RoundRect { w, h, radius: radius.to_bits(), sw };
    let origins = [(r.x0, r.y0), (r.x1 - w, r.y0), (r.x0, r.y1 - h), (r.x1 - w, r.y1 - h)];
    for (corner, (x, y)) in parts.corners.iter().zip(origins) {
        draw_mask(cv, key, x, y, *corner, clip, c);
    }
}

pub(crate) fn fill(cv: &mut Canvas<'_>, rect: Rect, radius: f32, clip: IRect, c: Color) {
    let r = IRect::snap(rect);
    if r.is_empty() || r.intersect(clip).is_empty() {
        return;
    }
    let radius = radius.min(r.width() as f32 / 2.0).min(r.height() as f32 / 2.0);
    if radius < 0.5 {
        cv.fill_rect(r, clip, c);
        return;
    }
    let parts = corners(r, corner_size(radius, 0));
    draw_corners(cv, r, &parts, radius, 0, clip, c);
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
    let parts = corners(r, corner_size(radius, sw));
    if radius >= 0.5 {
        draw_corners(cv, r, &parts, radius, sw, clip, c);
    } else {
        for corner in parts.corners {
            cv.fill_rect(corner, clip, c);
        }
    }
    let [top, mid, bottom] = parts.cross;
    cv.fill_rect(IRect { y1: r.y0 + sw, ..top }, clip, c);
    cv.fill_rect(IRect { y0: r.y1 - sw, ..bottom }, clip, c);
    cv.fill_rect(IRect { x1: r.x0 + sw, ..mid }, clip, c);
    cv.fill_rect(IRect { x0: r.x1 - sw, ..mid }, clip, c);
}

/// Filled circle, or a ring down to radius `inner` when `inner > 0`.
fn disc(cv: &mut Canvas<'_>, cx: f32, cy: f32, r: f32, inner: f32, clip: IRect, c: Color) {
    let (x0, y0) = ((cx - r).floor(), (cy - r).floor());
    // The mask is keyed by the centre's offset inside it, so equal circles share it.
    let key = ShapeKey::Circle { r: r.to_bits(), cx: (cx - x0).to_bits(), cy: (cy - y0).to_bits(), inner: inner.to_bits() };
    draw_mask(cv, key, x0 as i32, y0 as i32, cv.bounds(), clip, c);
}

pub(crate) fn circle(cv: &mut Canvas<'_>, cx: f32, cy: f32, r: f32, clip: IRect, c: Color) {
    if r > 0.0 && r.is_finite() {
        disc(cv, cx, cy, r, 0.0, clip, c);
    }
}

/// Ring whose outer edge is the circle of radius `r` (the stroke lies inside, like `stroke`).
pub(crate) fn ring(cv: &mut Canvas<'_>, cx: f32, cy: f32, r: f32, width: f32, clip: IRect, c: Color) {
    if !(r > 0.0 && r.is_finite() && width > 0.0) {
        return;
    }
    disc(cv, cx, cy, r, (r - width).max(0.0), clip, c);
}
