//! The surfaces of a screen as its screenshot shows them: the flat-coloured rectangles (a
//! header band, a card, a bottom bar, the dimmed page behind a drawer) that the hierarchy
//! gives no node of its own, drawn under every widget.
//!
//! Only flat colour is taken: a cell of the screenshot counts when most of its pixels are one
//! colour (text over a card leaves the card's colour the cell's), and alike cells are joined
//! into rectangles. A photo or an illustration is not flat and gives nothing, so no picture
//! comes back this way.

use std::collections::BTreeMap;

use crate::visual::{luma, Rgb};

use super::model::Surface;
use super::widgets::{Mapper, Widget, WidgetKind, DEVICE_H, PX_PER_DP};

/// How far a cell's colour may be from the colour its rectangle started with.
const SAME_SURFACE: u32 = 30;
/// The smallest rectangle kept: cells on each side, and share of the screen.
const MIN_SIDE_CELLS: u32 = 2;
const MIN_SCREEN_SHARE: f64 = 0.003;
/// The most rectangles looked at for one screen (the largest), and the most drawn.
const MAX_FOUND: usize = 160;
const MAX_DRAWN: usize = 48;

/// The least height of a rectangle left inside the app's area, in dp.
const MIN_SLIVER_DP: f64 = 4.0;

fn distance(a: [u8; 3], b: [u8; 3]) -> u32 {
    (0..3).map(|c| u32::from(a[c].abs_diff(b[c]))).sum()
}

/// Whether a colour is worth drawing over another's: lighter or darker, or another hue at the
/// same lightness (an orange button on a green page).
pub(crate) fn stands_out(own: [u8; 3], under: [u8; 3]) -> bool {
    (luma(own) - luma(under)).abs() > 24.0 || distance(own, under) > 90
}

/// The flat rectangles of a screenshot (its first `rows` rows show the screen), largest
/// first, in the generated app's dp; [`place`] says where each is drawn, if anywhere.
pub(crate) fn surfaces(shot: &Rgb, rows: u32, m: &Mapper) -> Vec<Surface> {
    let side = shot.flat_cell_side();
    let (cols, lines) = (shot.width / side, rows.min(shot.height) / side);
    if cols == 0 || lines == 0 {
        return Vec::new();
    }
    let cells: Vec<Option<[u8; 3]>> =
        (0..lines).flat_map(|cy| (0..cols).map(move |cx| (cx, cy))).map(|(cx, cy)| shot.flat_colour(cx * side, cy * side, side)).collect();
    let at = |cx: u32, cy: u32| (cy * cols + cx) as usize;
    let mut taken = vec![false; cells.len()];
    let mut found: Vec<([u32; 4], [u8; 3])> = Vec::new();
    for cy in 0..lines {
        for cx in 0..cols {
            let Some(seed) = cells[at(cx, cy)].filter(|_| !taken[at(cx, cy)]) else { continue };
            let joins = |x: u32, y: u32| !taken[at(x, y)] && cells[at(x, y)].is_some_and(|c| distance(c, seed) <= SAME_SURFACE);
            let mut right = cx + 1;
            while right < cols && joins(right, cy) {
                right += 1;
            }
            let mut bottom = cy + 1;
            while bottom < lines && (cx..right).all(|x| joins(x, bottom)) {
                bottom += 1;
            }
            for y in cy..bottom {
                for x in cx..right {
                    taken[at(x, y)] = true;
                }
            }
            found.push(([cx, cy, right, bottom], seed));
        }
    }
    let total = f64::from(cols * lines);
    let mut kept: Vec<([u32; 4], [u8; 3])> = found
        .into_iter()
        .filter(|([x1, y1, x2, y2], _)| {
            x2 - x1 >= MIN_SIDE_CELLS && y2 - y1 >= MIN_SIDE_CELLS && f64::from((x2 - x1) * (y2 - y1)) >= MIN_SCREEN_SHARE * total
        })
        .collect();
    kept.sort_by_key(|([x1, y1, x2, y2], _)| std::cmp::Reverse((x2 - x1) * (y2 - y1)));
    kept.truncate(MAX_FOUND);
    // Cells to the screen's pixels (the hierarchy's), then to dp.
    let scale = m.width / f64::from(shot.width);
    let to_screen = |v: u32| (f64::from(v * side) * scale).round() as i32;
    // A rectangle that shows only a sliver below the status bar (or above the navigation bar)
    // was the phone's (its icons), not the app's.
    let tall_dp = |y1: u32, y2: u32| f64::from((y2 - y1) * side) * scale / m.height * DEVICE_H / PX_PER_DP;
    kept.into_iter()
        .map(|([x1, y1, x2, y2], colour)| {
            (Surface { rect: m.rect([to_screen(x1), to_screen(y1), to_screen(x2), to_screen(y2)]), colour }, tall_dp(y1, y2))
        })
        .filter(|(s, tall)| s.rect[2] >= 1.0 && s.rect[3] >= (0.25 * tall).max(MIN_SLIVER_DP))
        .map(|(s, _)| s)
        .collect()
}

/// The colour a widget paints over what is under it (`under`): its own, when it stands out.
pub(crate) fn own_colour(w: &Widget, under: Option<[u8; 3]>) -> Option<[u8; 3]> {
    w.background.filter(|c| under.is_none_or(|u| stands_out(*c, u)))
}

/// Where the surfaces are drawn, by the id of the container they go under the children of
/// (`""` for the screen itself, `background` its colour): the deepest container that paints
/// its own colour and holds the surface whole (a row selected in a dark drawer goes under the
/// drawer's rows, not under the drawer). A surface that would not stand out there is left
/// out; at most `MAX_DRAWN`, the largest.
pub(crate) fn place(surfaces: &[Surface], widgets: &[Widget], background: Option<[u8; 3]>) -> BTreeMap<String, Vec<Surface>> {
    let mut out: BTreeMap<String, Vec<Surface>> = BTreeMap::new();
    let mut drawn = 0;
    for surface in surfaces {
        let (owner, colour) = owner(widgets, background, surface.rect).unwrap_or((String::new(), background));
        if drawn < MAX_DRAWN && colour.is_none_or(|c| stands_out(surface.colour, c)) {
            out.entry(owner).or_default().push(*surface);
            drawn += 1;
        }
    }
    out
}

fn holds(outer: [f64; 4], inner: [f64; 4]) -> bool {
    outer[0] <= inner[0] + 1.0
        && outer[1] <= inner[1] + 1.0
        && inner[0] + inner[2] <= outer[0] + outer[2] + 1.0
        && inner[1] + inner[3] <= outer[1] + outer[3] + 1.0
}

/// The deepest painted container over `rect` (the last of overlapping siblings: it is drawn
/// above the others) and its colour.
fn owner(widgets: &[Widget], under: Option<[u8; 3]>, rect: [f64; 4]) -> Option<(String, Option<[u8; 3]>)> {
    widgets.iter().rev().find_map(|w| {
        if w.kind != WidgetKind::Container || w.children.is_empty() || w.scrolls_over_rows() || !holds(w.rect, rect) {
            return None;
        }
        let own = own_colour(w, under);
        owner(&w.children, own.or(under), rect).or_else(|| own.map(|c| (w.id.clone(), Some(c))))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_band_with_text_over_it_is_one_surface_and_a_photo_is_none() {
        // A white page, a blue band over its top sixth with "text" on it, a noisy photo.
        let (w, h) = (600u32, 1200u32);
        let mut img = Rgb { width: w, height: h, pixels: vec![[255, 255, 255]; (w * h) as usize] };
        for y in 0..h {
            for x in 0..w {
                let p = &mut img.pixels[(y * w + x) as usize];
                if y < 200 {
                    *p = if (100..130).contains(&y) && x % 4 == 0 { [255, 255, 255] } else { [30, 90, 200] };
                } else if (600..1000).contains(&y) && x < 400 {
                    let v = ((x * 37 + y * 91) % 251) as u8;
                    *p = [v, v.wrapping_mul(3), v.wrapping_mul(7)];
                }
            }
        }
        let m = Mapper { width: f64::from(w), height: f64::from(h) };
        let found: Vec<Surface> = surfaces(&img, h, &m).into_iter().filter(|s| stands_out(s.colour, [255, 255, 255])).collect();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].colour, [30, 90, 200]);
        assert_eq!(found[0].rect[2], m.rect([0, 0, 600, 200])[2], "the band spans the width");
    }
}
