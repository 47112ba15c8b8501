//! Integer pixel blending into the RGBA8 frame buffer: spans and coverage masks.
//! All shapes and glyphs end up here, so clipping is one rectangle intersection.

use crate::color::{Color, IRect};

/// x / 255 rounded, exact for x in 0..=255*255.
#[inline(always)]
fn div255(x: u32) -> u32 {
    (x + 128 + ((x + 128) >> 8)) >> 8
}

#[inline(always)]
fn blend_px(px: &mut [u8], c: Color, a: u32) {
    let ia = 255 - a;
    px[0] = div255(c.r as u32 * a + px[0] as u32 * ia) as u8;
    px[1] = div255(c.g as u32 * a + px[1] as u32 * ia) as u8;
    px[2] = div255(c.b as u32 * a + px[2] as u32 * ia) as u8;
}

/// An 8-bit coverage mask of `w`×`h` whose top-left is at (x, y) in the frame.
#[derive(Clone, Copy)]
pub(crate) struct Coverage<'a> {
    pub(crate) x: i32,
    pub(crate) y: i32,
    pub(crate) w: usize,
    pub(crate) h: usize,
    pub(crate) data: &'a [u8],
}

/// Premultiplied RGBA8 pixels, `w`×`h`, whose top-left is at (x, y) in the frame.
#[derive(Clone, Copy)]
pub(crate) struct Pixels<'a> {
    pub(crate) x: i32,
    pub(crate) y: i32,
    pub(crate) w: usize,
    pub(crate) h: usize,
    pub(crate) data: &'a [u8],
    /// Every pixel has alpha 255: unmasked rows are plain copies.
    pub(crate) opaque: bool,
}

/// The frame's pixels plus its size: the only target the blend routines write to.
pub(crate) struct Canvas<'a> {
    pub(crate) pixels: &'a mut [u8],
    pub(crate) width: i32,
    pub(crate) height: i32,
}

impl Canvas<'_> {
    pub(crate) fn bounds(&self) -> IRect {
        IRect { x0: 0, y0: 0, x1: self.width, y1: self.height }
    }

    /// Fills the whole buffer with an opaque color at memcpy speed (one row, then doubling copies).
    /// Fills an integer rectangle (already clipped by the caller or here against `clip`).
    pub(crate) fn fill_rect(&mut self, r: IRect, clip: IRect, c: Color) {
        let r = r.intersect(clip).intersect(self.bounds());
        if r.is_empty() || c.a == 0 {
            return;
        }
        let stride = self.width as usize * 4;
        let (x0, x1) = (r.x0 as usize * 4, r.x1 as usize * 4);
        let (y0, y1) = (r.y0 as usize, r.y1 as usize);
        if c.a == 255 {
            // Fill one row, then memcpy it to the others.
            let first = y0 * stride + x0..y0 * stride + x1;
            let rgba = [c.r, c.g, c.b, 255];
            for px in self.pixels[first.clone()].chunks_exact_mut(4) {
                px.copy_from_slice(&rgba);
            }
            for y in y0 + 1..y1 {
                self.pixels.copy_within(first.clone(), y * stride + x0);
            }
            return;
        }
        for y in y0..y1 {
            for px in self.pixels[y * stride + x0..y * stride + x1].chunks_exact_mut(4) {
                blend_px(px, c, c.a as u32);
            }
        }
    }

    /// Blends `c` through an 8-bit coverage mask.
    pub(crate) fn blit_coverage(&mut self, m: Coverage<'_>, clip: IRect, c: Color) {
        let Coverage { x, y, w, h, data: coverage } = m;
        let dst = IRect { x0: x, y0: y, x1: x + w as i32, y1: y + h as i32 }.intersect(clip).intersect(self.bounds());
        if dst.is_empty() || c.a == 0 {
            return;
        }
        let stride = self.width as usize * 4;
        let cols = dst.width() as usize;
        let mx0 = (dst.x0 - x) as usize;
        let opaque = c.a == 255;
        let rgb = [c.r, c.g, c.b];
        for row in dst.y0..dst.y1 {
            let my = (row - y) as usize;
            let cov = &coverage[my * w + mx0..my * w + mx0 + cols];
            let start = row as usize * stride + dst.x0 as usize * 4;
            let span = &mut self.pixels[start..start + cols * 4];
            for (px, &k) in span.chunks_exact_mut(4).zip(cov) {
                if k == 0 {
                    continue;
                }
                let a = if opaque { k as u32 } else { div255(k as u32 * c.a as u32) };
                if a == 255 {
                    px[..3].copy_from_slice(&rgb);
                } else {
                    blend_px(px, c, a);
                }
            }
        }
    }
}

impl Canvas<'_> {
    /// Composites premultiplied pixels (source over), through a coverage mask if given:
    /// outside the mask nothing is drawn.
    pub(crate) fn blit_premultiplied(&mut self, src: Pixels<'_>, mask: Option<Coverage<'_>>, clip: IRect) {
        let mut dst =
            IRect { x0: src.x, y0: src.y, x1: src.x + src.w as i32, y1: src.y + src.h as i32 }.intersect(clip).intersect(self.bounds());
        if let Some(m) = mask {
            dst = dst.intersect(IRect { x0: m.x, y0: m.y, x1: m.x + m.w as i32, y1: m.y + m.h as i32 });
        }
        if dst.is_empty() {
            return;
        }
        let stride = self.width as usize * 4;
        let cols = dst.width() as usize;
        for row in dst.y0..dst.y1 {
            let sy = (row - src.y) as usize;
            let sx = (dst.x0 - src.x) as usize;
            let from = &src.data[(sy * src.w + sx) * 4..(sy * src.w + sx + cols) * 4];
            let start = row as usize * stride + dst.x0 as usize * 4;
            let span = &mut self.pixels[start..start + cols * 4];
            let cov = mask.map(|m| {
                let (my, mx) = ((row - m.y) as usize, (dst.x0 - m.x) as usize);
                &m.data[my * m.w + mx..my * m.w + mx + cols]
            });
            let Some(cov) = cov else {
                if src.opaque {
                    span.copy_from_slice(from);
                } else {
                    for (px, s) in span.chunks_exact_mut(4).zip(from.chunks_exact(4)) {
                        over_premultiplied(px, s, 255);
                    }
                }
                continue;
            };
            // Masks are convex shapes: a row is edge pixels, a fully covered run, edge pixels.
            // An opaque run is a plain copy.
            let lead = cov.iter().position(|&k| k == 255).unwrap_or(cols);
            let end = cols - cov.iter().rev().position(|&k| k == 255).unwrap_or(0);
            debug_assert!(lead >= end || cov[lead..end].iter().all(|&k| k == 255), "a mask row with a hole");
            let (lo, hi) = if src.opaque && lead < end { (lead, end) } else { (cols, cols) };
            span[lo * 4..hi * 4].copy_from_slice(&from[lo * 4..hi * 4]);
            for part in [0..lo, hi..cols] {
                let (span, from) = (&mut span[part.start * 4..part.end * 4], &from[part.start * 4..part.end * 4]);
                for ((px, s), &k) in span.chunks_exact_mut(4).zip(from.chunks_exact(4)).zip(&cov[part]) {
                    if k == 255 && s[3] == 255 {
                        px.copy_from_slice(s);
                    } else if k != 0 {
                        over_premultiplied(px, s, u32::from(k));
                    }
                }
            }
        }
    }
}

/// Premultiplied `s`, scaled by coverage `k`, over the opaque pixel `px`.
#[inline(always)]
fn over_premultiplied(px: &mut [u8], s: &[u8], k: u32) {
    let mut rgba = [u32::from(s[0]), u32::from(s[1]), u32::from(s[2]), u32::from(s[3])];
    if k < 255 {
        for ch in &mut rgba {
            *ch = div255(*ch * k);
        }
    }
    let ia = 255 - rgba[3];
    for ch in 0..3 {
        px[ch] = (rgba[ch] + div255(u32::from(px[ch]) * ia)).min(255) as u8;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn div255_is_rounded_division() {
        for x in 0..=255 * 255u32 {
            assert_eq!(div255(x), (x as f64 / 255.0).round() as u32, "{x}");
        }
    }
}
