//! Overdraw culling: the parts of the background clear and of plain fills that a later opaque
//! draw covers entirely are not written. The skipped pixels are overwritten by that later draw
//! before the frame is done, so the frame is the same; a map screen (tiles over the screen's
//! background over the clear) stops writing most of its pixels three times.

use crate::color::IRect;
use crate::image::{self, Fit};
use crate::shapes::corner_size;
use crate::DrawCmd;

/// Fills smaller than this (in pixels) are drawn whole: culling them costs more than it saves.
const MIN_CULLED_AREA: i64 = 64 * 64;

/// A fill cut into more pieces than this is drawn as it is (the rest of the cuts would cost
/// more than the pixels they save).
const MAX_PIECES: usize = 32;

/// The rectangles each command covers with opaque pixels, in command order: (index, rect).
pub(crate) struct Occluders {
    rects: Vec<(usize, IRect)>,
}

impl Occluders {
    /// Walks the commands with their clip stack, as `render` does.
    pub(crate) fn of(cmds: &[DrawCmd], bounds: IRect) -> Occluders {
        let mut rects = Vec::new();
        let mut clips: Vec<IRect> = Vec::new();
        for (i, cmd) in cmds.iter().enumerate() {
            let clip = clips.last().copied().unwrap_or(bounds);
            match cmd {
                DrawCmd::PushClip(r) => clips.push(clip.intersect(IRect::snap(*r))),
                DrawCmd::PopClip => {
                    clips.pop();
                }
                DrawCmd::Fill { rect, color, radius } if color.a == 255 => {
                    let r = IRect::snap(*rect);
                    let radius = radius.min(r.width() as f32 / 2.0).min(r.height() as f32 / 2.0);
                    for part in opaque_parts(r, radius) {
                        push(&mut rects, i, part.intersect(clip));
                    }
                }
                // An image clipped away is drawn nowhere: no scaled copy is made for it.
                DrawCmd::Image { rect, image, fit, radius, circle: false } if !IRect::snap(*rect).intersect(clip).is_empty() => {
                    if let Some(covered) = image_cover(*rect, image, *fit) {
                        for part in opaque_parts(IRect::snap(*rect), *radius) {
                            push(&mut rects, i, part.intersect(covered).intersect(clip));
                        }
                    }
                }
                _ => {}
            }
        }
        Occluders { rects }
    }

    /// The parts of `r` that no occluder drawn after command `after` covers (`None`: before
    /// every command). Pieces are disjoint; their union with the covered part is `r`.
    pub(crate) fn visible_parts(&self, r: IRect, after: Option<usize>) -> Vec<IRect> {
        let mut pieces = vec![r];
        if r.is_empty() || i64::from(r.width()) * i64::from(r.height()) < MIN_CULLED_AREA {
            return pieces;
        }
        let start = after.map_or(0, |i| self.rects.partition_point(|(j, _)| *j <= i));
        for (_, o) in &self.rects[start..] {
            if pieces.len() > MAX_PIECES {
                break;
            }
            if pieces.iter().all(|p| p.intersect(*o).is_empty()) {
                continue;
            }
            pieces = pieces.into_iter().flat_map(|p| subtract(p, *o)).collect();
            if pieces.is_empty() {
                break;
            }
        }
        pieces
    }
}

fn push(rects: &mut Vec<(usize, IRect)>, i: usize, r: IRect) {
    if !r.is_empty() {
        rects.push((i, r));
    }
}

/// Where an image draw writes opaque pixels of its box (before corners and clip), if anywhere.
fn image_cover(rect: crate::Rect, img: &image::Image, fit: Fit) -> Option<IRect> {
    let r = IRect::snap(rect);
    if r.is_empty() || !matches!(fit, Fit::Cover | Fit::Fill) {
        return None;
    }
    let (bw, bh) = (r.width() as u32, r.height() as u32);
    if img.raster_pixels().is_some() && (bw, bh) == (img.width(), img.height()) {
        return img.is_opaque().then_some(r);
    }
    // The scaled copy the draw will use (cached, so this costs a lookup): its own pixels say
    // whether it is opaque, whatever the rounding of the scaling.
    let s = image::cached_scaled(img, bw, bh, fit)?;
    s.opaque.then_some(IRect { x0: r.x0 + s.x, y0: r.y0 + s.y, x1: r.x0 + s.x + s.w as i32, y1: r.y0 + s.y + s.h as i32 })
}

/// The parts of the rect `r` with rounded corners of `radius` that are fully inside it: the
/// whole rect, or the cross left when the corner squares are taken away.
fn opaque_parts(r: IRect, radius: f32) -> Vec<IRect> {
    if radius < 0.5 {
        return vec![r];
    }
    // One pixel more than the corner squares the shapes draw with coverage.
    let k = corner_size(radius, 0) + 1;
    if r.width() <= 2 * k || r.height() <= 2 * k {
        return Vec::new();
    }
    vec![
        IRect { y0: r.y0 + k, y1: r.y1 - k, ..r },
        IRect { x0: r.x0 + k, x1: r.x1 - k, y0: r.y0, y1: r.y0 + k },
        IRect { x0: r.x0 + k, x1: r.x1 - k, y0: r.y1 - k, y1: r.y1 },
    ]
}

/// `p` minus `o`: up to four disjoint rects (above, below, left, right of `o`).
fn subtract(p: IRect, o: IRect) -> Vec<IRect> {
    let i = p.intersect(o);
    if i.is_empty() {
        return vec![p];
    }
    let parts = [
        IRect { y1: i.y0, ..p },
        IRect { y0: i.y1, ..p },
        IRect { x1: i.x0, y0: i.y0, y1: i.y1, ..p },
        IRect { x0: i.x1, y0: i.y0, y1: i.y1, ..p },
    ];
    parts.into_iter().filter(|r| !r.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rect(x0: i32, y0: i32, x1: i32, y1: i32) -> IRect {
        IRect { x0, y0, x1, y1 }
    }

    fn area(rs: &[IRect]) -> i64 {
        rs.iter().map(|r| i64::from(r.width()) * i64::from(r.height())).sum()
    }

    #[test]
    fn subtracting_leaves_disjoint_pieces_of_the_right_area() {
        let p = rect(0, 0, 100, 100);
        let pieces = subtract(p, rect(20, 30, 60, 200));
        assert_eq!(area(&pieces), 100 * 100 - 40 * 70);
        for (i, a) in pieces.iter().enumerate() {
            for b in &pieces[i + 1..] {
                assert!(a.intersect(*b).is_empty(), "{a:?} and {b:?} overlap");
            }
        }
        assert_eq!(subtract(p, rect(0, 0, 100, 100)), Vec::new());
        assert_eq!(subtract(p, rect(200, 0, 300, 100)), vec![p]);
    }

    #[test]
    fn a_rounded_rect_occludes_its_cross_only() {
        let parts = opaque_parts(rect(0, 0, 100, 60), 10.0);
        assert_eq!(area(&parts), 100 * 60 - 4 * 11 * 11);
        assert!(parts.iter().all(|p| p.intersect(rect(0, 0, 11, 11)).is_empty()), "{parts:?}");
    }
}
