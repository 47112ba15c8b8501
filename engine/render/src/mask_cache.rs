//! Coverage masks of shapes, rasterized by tiny-skia and cached process-wide. A mask is a pure
//! function of its key (it is built from the key alone), so hits and misses give identical
//! pixels and the cache can never make output depend on what was drawn before.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use tiny_skia::{FillRule, Mask, PathBuilder, Transform};

/// Cubic Bézier control distance for a quarter circle.
const KAPPA: f32 = 0.552_284_8;
/// Dropping everything beyond this many entries bounds memory (animations vary sizes).
const MAX_ENTRIES: usize = 1024;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub(crate) enum ShapeKey {
    /// A `w`×`h` rounded rect at the origin; an outline of width `sw` inside it if `sw > 0`.
    RoundRect { w: i32, h: i32, radius: u32, sw: i32 },
    /// A circle of radius `r` centred at (`cx`, `cy`) in its mask; a ring down to radius
    /// `inner` if `inner > 0`. All f32 bits.
    Circle { r: u32, cx: u32, cy: u32, inner: u32 },
}

pub(crate) struct ShapeMask {
    pub(crate) w: usize,
    pub(crate) h: usize,
    pub(crate) data: Vec<u8>,
}

/// Adds a rounded rect with corners (x0, y0)-(x1, y1).
pub(crate) fn push_rrect(pb: &mut PathBuilder, x0: f32, y0: f32, x1: f32, y1: f32, radius: f32) {
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

/// Shapes whose mask would be larger than this many pixels a side are not cached: they are
/// rasterized only where visible (a growing ripple would otherwise fill the cache with
/// frame-sized masks).
pub(crate) const MAX_CACHED_SIDE: i32 = 512;

/// Builds the key's path shifted by (dx, dy); returns the unshifted mask size.
fn build(key: ShapeKey, pb: &mut PathBuilder, dx: f32, dy: f32) -> (usize, usize) {
    match key {
        ShapeKey::RoundRect { w, h, radius, sw } => {
            let (wf, hf, r) = (w as f32, h as f32, f32::from_bits(radius));
            push_rrect(pb, dx, dy, wf + dx, hf + dy, r);
            if sw > 0 {
                let s = sw as f32;
                push_rrect(pb, s + dx, s + dy, wf - s + dx, hf - s + dy, (r - s).max(0.0));
            }
            (w as usize, h as usize)
        }
        ShapeKey::Circle { r, cx, cy, inner } => {
            let (r, cx, cy, inner) = (f32::from_bits(r), f32::from_bits(cx), f32::from_bits(cy), f32::from_bits(inner));
            pb.push_circle(cx + dx, cy + dy, r);
            if inner > 0.0 {
                pb.push_circle(cx + dx, cy + dy, inner);
            }
            ((cx + r).ceil() as usize, (cy + r).ceil() as usize)
        }
    }
}

/// Side of the tiles a big mask is rasterized in.
const TILE: i32 = 128;

/// The coverage of the key's full mask over the tiles that hold the part `x0..x1` × `y0..y1`
/// (mask coordinates), and where that box starts in the mask. Each tile is rasterized on its own
/// at a place fixed by the key: tiny-skia's anti-aliasing depends on where the path is cut, so
/// cutting at the asked part would make a band redraw differ from a whole redraw.
pub(crate) fn rasterize_tiles(key: ShapeKey, x0: i32, y0: i32, x1: i32, y1: i32) -> (ShapeMask, i32, i32) {
    let (w, h) = mask_size(key);
    let (w, h) = (w as i32, h as i32);
    let (bx0, by0) = ((x0.max(0) / TILE) * TILE, (y0.max(0) / TILE) * TILE);
    let (bx1, by1) = (x1.min(w), y1.min(h));
    if bx1 <= bx0 || by1 <= by0 {
        return (ShapeMask { w: 0, h: 0, data: Vec::new() }, bx0, by0);
    }
    let (bx1, by1) = ((bx1 + TILE - 1) / TILE * TILE, (by1 + TILE - 1) / TILE * TILE);
    let (bx1, by1) = (bx1.min(w), by1.min(h));
    let bw = (bx1 - bx0) as usize;
    let mut data = vec![0u8; bw * (by1 - by0) as usize];
    for ty in (by0..by1).step_by(TILE as usize) {
        for tx in (bx0..bx1).step_by(TILE as usize) {
            let (tw, th) = ((TILE.min(w - tx)) as usize, (TILE.min(h - ty)) as usize);
            let tile = rasterize_window(key, tx, ty, tw, th);
            for row in 0..th {
                let at = (ty - by0) as usize * bw + row * bw + (tx - bx0) as usize;
                data[at..at + tw].copy_from_slice(&tile.data[row * tw..(row + 1) * tw]);
            }
        }
    }
    (ShapeMask { w: bw, h: (by1 - by0) as usize, data }, bx0, by0)
}

/// Rasterizes the `w`×`h` window at (x, y) of the key's full mask.
fn rasterize_window(key: ShapeKey, x: i32, y: i32, w: usize, h: usize) -> ShapeMask {
    let mut pb = PathBuilder::new();
    build(key, &mut pb, -x as f32, -y as f32);
    let empty = ShapeMask { w, h, data: vec![0; w * h] };
    let (Some(path), Some(mut mask)) = (pb.finish(), Mask::new(w as u32, h as u32)) else {
        return empty;
    };
    mask.fill_path(&path, FillRule::EvenOdd, true, Transform::identity());
    ShapeMask { w, h, data: mask.data().to_vec() }
}

/// The full mask size of a key.
pub(crate) fn mask_size(key: ShapeKey) -> (usize, usize) {
    build(key, &mut PathBuilder::new(), 0.0, 0.0)
}

fn rasterize(key: ShapeKey) -> ShapeMask {
    let (w, h) = mask_size(key);
    rasterize_window(key, 0, 0, w, h)
}

thread_local! {
    // A per-thread front for the shared cache, so render threads do not contend on its lock.
    static LOCAL: std::cell::RefCell<HashMap<ShapeKey, Arc<ShapeMask>>> = std::cell::RefCell::new(HashMap::new());
}

/// The coverage mask for `key`, rasterized on first use.
pub(crate) fn shape_mask(key: ShapeKey) -> Arc<ShapeMask> {
    if let Some(m) = LOCAL.with(|local| local.borrow().get(&key).cloned()) {
        return m;
    }
    let mask = shared_mask(key);
    LOCAL.with(|local| {
        let mut local = local.borrow_mut();
        if local.len() >= MAX_ENTRIES {
            local.clear();
        }
        local.insert(key, Arc::clone(&mask));
    });
    mask
}

fn shared_mask(key: ShapeKey) -> Arc<ShapeMask> {
    static CACHE: OnceLock<Mutex<HashMap<ShapeKey, Arc<ShapeMask>>>> = OnceLock::new();
    let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
    if let Some(m) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Arc::clone(m);
    }
    let mask = Arc::new(rasterize(key));
    let mut map = cache.lock().unwrap_or_else(|e| e.into_inner());
    if map.len() >= MAX_ENTRIES {
        map.clear();
    }
    Arc::clone(map.entry(key).or_insert(mask))
}
