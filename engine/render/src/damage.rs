//! Damage by bands: the frame is cut into rows of [`BAND_ROWS`] pixels, and each band gets a
//! hash of every command that can touch it (with its clip) and of the background. A band whose
//! hash is the one it had when the same buffer was last drawn holds the right pixels already
//! and is not drawn again: a pan of a map redraws the map, not the sheet and bars around it.

use std::hash::{DefaultHasher, Hash, Hasher};

use crate::color::IRect;
use crate::{Color, DrawCmd, Rect};

/// Rows per band: small enough that a one-line change redraws little, large enough that the
/// per-band bookkeeping stays a few dozen hashes per frame.
pub(crate) const BAND_ROWS: i32 = 32;

/// The band hashes of what a frame buffer holds; empty when unknown (a new buffer).
#[derive(Debug, Clone, Default)]
pub struct FrameBands {
    hashes: Vec<u64>,
}

impl FrameBands {
    /// Forgets what the buffer holds: the next render draws every band.
    pub fn invalidate(&mut self) {
        self.hashes.clear();
    }
}

/// The row ranges to draw for `cmds`, given what the buffer holds; `bands` is updated to the
/// hashes of the new frame.
pub(crate) fn dirty_rows(cmds: &[DrawCmd], bounds: IRect, background: Color, bands: &mut FrameBands) -> Vec<(i32, i32)> {
    let new = band_hashes(cmds, bounds, background);
    let known = bands.hashes.len() == new.len();
    let mut rows: Vec<(i32, i32)> = Vec::new();
    for (b, h) in new.iter().enumerate() {
        if known && bands.hashes[b] == *h {
            continue;
        }
        let (y0, y1) = (b as i32 * BAND_ROWS, ((b as i32 + 1) * BAND_ROWS).min(bounds.y1));
        match rows.last_mut() {
            Some(last) if last.1 == y0 => last.1 = y1,
            _ => rows.push((y0, y1)),
        }
    }
    bands.hashes = new;
    rows
}

/// Copies from `previous` into `pixels` every row outside `dirty` (sorted row ranges).
pub(crate) fn copy_clean_rows(previous: &[u8], pixels: &mut [u8], row_bytes: usize, dirty: &[(i32, i32)]) {
    let height = pixels.len() / row_bytes.max(1);
    let mut start = 0;
    let clean = dirty.iter().map(|&(y0, y1)| (y0 as usize, y1 as usize)).chain([(height, height)]);
    for (y0, y1) in clean {
        if y0 > start {
            let span = start * row_bytes..y0 * row_bytes;
            pixels[span.clone()].copy_from_slice(&previous[span]);
        }
        start = y1;
    }
}

fn band_hashes(cmds: &[DrawCmd], bounds: IRect, background: Color) -> Vec<u64> {
    let count = ((bounds.y1 + BAND_ROWS - 1) / BAND_ROWS).max(0) as usize;
    let mut seed = DefaultHasher::new();
    (bounds.x1, bounds.y1, background.r, background.g, background.b).hash(&mut seed);
    let mut hashes = vec![seed.finish(); count];
    let mut clips: Vec<IRect> = Vec::new();
    for cmd in cmds {
        let clip = clips.last().copied().unwrap_or(bounds);
        match cmd {
            DrawCmd::PushClip(r) => clips.push(clip.intersect(IRect::snap(*r))),
            DrawCmd::PopClip => {
                clips.pop();
            }
            _ => {
                let reach = reach(cmd).intersect(clip).intersect(bounds);
                if reach.is_empty() {
                    continue;
                }
                let h = command_hash(cmd, clip);
                for band in &mut hashes[(reach.y0 / BAND_ROWS) as usize..=((reach.y1 - 1) / BAND_ROWS) as usize] {
                    *band = (band.rotate_left(5) ^ h).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                }
            }
        }
    }
    hashes
}

/// Every pixel a command may write lies in this box (generous: a pixel of anti-aliasing on
/// shapes, a line height of overhang on text, as the text culling assumes).
fn reach(cmd: &DrawCmd) -> IRect {
    let grow = |r: IRect, m: i32| IRect { x0: r.x0 - m, y0: r.y0 - m, x1: r.x1 + m, y1: r.y1 + m };
    match cmd {
        DrawCmd::Fill { rect, .. } | DrawCmd::Stroke { rect, .. } | DrawCmd::Image { rect, .. } => grow(IRect::snap(*rect), 1),
        DrawCmd::Circle { cx, cy, r, .. } | DrawCmd::Ring { cx, cy, r, .. } | DrawCmd::Arc { cx, cy, r, .. } => {
            grow(IRect::snap(Rect::new(cx - r, cy - r, 2.0 * r, 2.0 * r)), 2)
        }
        DrawCmd::Text { x, y, layout, .. } => {
            let bx = IRect::snap(Rect::new(x.round(), y.round(), layout.width, layout.height));
            grow(bx, layout.line_height.ceil() as i32 + 2)
        }
        DrawCmd::PushClip(_) | DrawCmd::PopClip => IRect { x0: 0, y0: 0, x1: 0, y1: 0 },
    }
}

fn command_hash(cmd: &DrawCmd, clip: IRect) -> u64 {
    let mut h = DefaultHasher::new();
    (clip.x0, clip.y0, clip.x1, clip.y1).hash(&mut h);
    let f = |v: f32, h: &mut DefaultHasher| v.to_bits().hash(h);
    let rect = |r: &Rect, h: &mut DefaultHasher| [r.x, r.y, r.w, r.h].iter().for_each(|v| f(*v, h));
    let color = |c: &Color, h: &mut DefaultHasher| (c.r, c.g, c.b, c.a).hash(h);
    std::mem::discriminant(cmd).hash(&mut h);
    match cmd {
        DrawCmd::Fill { rect: r, color: c, radius } => {
            rect(r, &mut h);
            color(c, &mut h);
            f(*radius, &mut h);
        }
        DrawCmd::Stroke { rect: r, color: c, width, radius } => {
            rect(r, &mut h);
            color(c, &mut h);
            [*width, *radius].iter().for_each(|v| f(*v, &mut h));
        }
        DrawCmd::Circle { cx, cy, r, color: c } => {
            [*cx, *cy, *r].iter().for_each(|v| f(*v, &mut h));
            color(c, &mut h);
        }
        DrawCmd::Ring { cx, cy, r, color: c, width } => {
            [*cx, *cy, *r, *width].iter().for_each(|v| f(*v, &mut h));
            color(c, &mut h);
        }
        DrawCmd::Arc { cx, cy, r, color: c, width, start_deg, sweep_deg } => {
            [*cx, *cy, *r, *width, *start_deg, *sweep_deg].iter().for_each(|v| f(*v, &mut h));
            color(c, &mut h);
        }
        DrawCmd::Text { x, y, layout, color: c } => {
            [*x, *y].iter().for_each(|v| f(*v, &mut h));
            color(c, &mut h);
            // What is drawn is the placed glyphs, emoji and boxes, not the strings.
            for g in &layout.glyphs {
                (g.face, g.glyph).hash(&mut h);
                [g.x, g.baseline, g.size_px].iter().for_each(|v| f(*v, &mut h));
            }
            for e in &layout.emoji {
                e.glyph.hash(&mut h);
                [e.x, e.y, e.w, e.h].iter().for_each(|v| f(*v, &mut h));
            }
            for p in &layout.placeholders {
                [p.x, p.y, p.w, p.h].iter().for_each(|v| f(*v, &mut h));
            }
        }
        DrawCmd::Image { rect: r, image, fit, radius, circle } => {
            rect(r, &mut h);
            image.key().hash(&mut h);
            (*fit as u8, *circle).hash(&mut h);
            f(*radius, &mut h);
        }
        DrawCmd::PushClip(r) => rect(r, &mut h),
        DrawCmd::PopClip => {}
    }
    h.finish()
}
