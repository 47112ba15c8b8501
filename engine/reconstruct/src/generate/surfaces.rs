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
use super::widgets::{Mapper, Widget, WidgetKind, DEVICE_H, NAV_DP, PX_PER_DP, STATUS_DP};

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

/// How far into the app's area a real phone's bar may reach past this phone's (status bars
/// are 24 to 32 dp tall, this phone's 28; navigation bars 42 to 56, this phone's 48), in dp;
/// and how far (sum of channel differences) a row of it may be from its colour (a bar is one
/// colour around its icons, an app's toolbar is often a shade off).
const MAX_OVERHANG_DP: f64 = 8.0;
const SAME_BAR: u32 = 12;

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
    let found: Vec<Surface> = kept
        .into_iter()
        .map(|([x1, y1, x2, y2], colour)| {
            (Surface { rect: m.rect([to_screen(x1), to_screen(y1), to_screen(x2), to_screen(y2)]), colour }, tall_dp(y1, y2))
        })
        .filter(|(s, tall)| s.rect[2] >= 1.0 && s.rect[3] >= (0.25 * tall).max(MIN_SLIVER_DP))
        .map(|(s, _)| s)
        .collect();
    // A bar's band inside a surface of its colour (a toolbar the colour of the bar) adds nothing.
    let adds = |band: &Surface| !found.iter().any(|s| holds(s.rect, band.rect) && distance(s.colour, band.colour) <= SAME_SURFACE);
    let mut out: Vec<Surface> =
        [Bar::Status, Bar::Navigation].into_iter().filter_map(|bar| bar_overhang(shot, rows, m, bar)).filter(adds).collect();
    out.extend(found);
    out
}

/// One of the phone's bars.
#[derive(Debug, Clone, Copy)]
enum Bar {
    Status,
    Navigation,
}

/// The band of the app's area next to one of the phone's bars where the screenshot still shows
/// its own phone's bar, taller than this phone's (its colour goes on past the rows this phone's
/// bar covers), as a surface in that colour: the page would show through there otherwise, a
/// line of another colour along the bar.
fn bar_overhang(shot: &Rgb, rows: u32, m: &Mapper, bar: Bar) -> Option<Surface> {
    let per_dp = f64::from(rows) / DEVICE_H * PX_PER_DP;
    let reach = (MAX_OVERHANG_DP * per_dp).round() as u32;
    // The bar's own rows of the screenshot, and the rows next to it, nearest first.
    let (own, next): (std::ops::Range<u32>, Vec<u32>) = match bar {
        Bar::Status => {
            let end = ((STATUS_DP * per_dp).round() as u32).min(rows);
            (0..end, (end..(end + reach).min(rows)).collect())
        }
        Bar::Navigation => {
            let start = rows.saturating_sub((NAV_DP * per_dp).round() as u32);
            (start..rows, (start.saturating_sub(reach)..start).rev().collect())
        }
    };
    let height = f64::from(shot.height.max(1));
    let colour = shot.median_color(0.0, f64::from(own.start) / height, 1.0, f64::from(own.end) / height)?;
    let samples = 60.min(shot.width);
    // Nine in ten of a row's samples: the ends of the bar's icons may reach into it.
    let bar_row = |y: u32| {
        let alike = (0..samples).filter(|i| distance(shot.at((2 * i + 1) * shot.width / (2 * samples), y), colour) <= SAME_BAR).count();
        10 * alike >= 9 * samples as usize
    };
    let overhang = next.iter().take_while(|y| bar_row(**y)).count() as u32;
    if overhang == 0 {
        return None;
    }
    let (y1, y2) = match bar {
        Bar::Status => (0, own.end + overhang),
        Bar::Navigation => (own.start - overhang, rows),
    };
    let scale = m.width / f64::from(shot.width.max(1));
    let to_screen = |v: u32| (f64::from(v) * scale).round() as i32;
    let rect = m.rect([0, to_screen(y1), m.width.round() as i32, to_screen(y2)]);
    (rect[3] >= 1.0).then_some(Surface { rect, colour })
}

/// The colour a widget paints over what is under it (`under`): its own, when it stands out.
pub(crate) fn own_colour(w: &Widget, under: Option<[u8; 3]>) -> Option<[u8; 3]> {
    w.background.filter(|c| under.is_none_or(|u| stands_out(*c, u)))
}

/// Where the surfaces are drawn, by the id of the container they go under the children of
/// (`""` for the screen itself, `background` its colour): the deepest container that paints
/// its own colour and holds the surface whole (a row selected in a dark drawer goes under the
/// drawer's rows, not under the drawer). A surface that would not stand out there is left
/// out; at most `MAX_DRAWN`, the largest. The part of a surface that a painted container
/// holding most of it covers goes under that container's children as well: under the
/// container alone it would be hidden by the container's colour.
pub(crate) fn place(surfaces: &[Surface], widgets: &[Widget], background: Option<[u8; 3]>) -> BTreeMap<String, Vec<Surface>> {
    let mut out: BTreeMap<String, Vec<Surface>> = BTreeMap::new();
    let mut drawn = 0;
    for surface in surfaces {
        let (holder, colour) = owner(widgets, background, surface.rect).unwrap_or((String::new(), background));
        let inside = covering(widgets, surface.rect).and_then(|part| {
            owner(widgets, background, part).map(|(id, colour)| (id, colour, Surface { rect: part, colour: surface.colour }))
        });
        let pieces = std::iter::once((holder.clone(), colour, *surface)).chain(inside.filter(|(id, ..)| *id != holder));
        for (owner, colour, piece) in pieces {
            if drawn < MAX_DRAWN && colour.is_none_or(|c| stands_out(piece.colour, c)) {
                out.entry(owner).or_default().push(piece);
                drawn += 1;
            }
        }
    }
    out
}

/// The least share of a surface a painted container must cover to take the part it covers.
const MOSTLY_COVERED: f64 = 0.5;

/// The part of `rect` covered by the last-drawn painted container that covers most of it
/// without holding it whole (as `owner` looks for them: not one scrolling over rows).
fn covering(widgets: &[Widget], rect: [f64; 4]) -> Option<[f64; 4]> {
    let mut found = None;
    for w in widgets {
        w.walk(&mut |w| {
            let painted = w.kind == WidgetKind::Container && !w.children.is_empty() && w.background.is_some() && !w.scrolls_over_rows();
            if !painted || holds(w.rect, rect) {
                return;
            }
            let part = intersection(w.rect, rect);
            if part[2] * part[3] >= MOSTLY_COVERED * rect[2] * rect[3] {
                found = Some(part);
            }
        });
    }
    found
}

fn intersection(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let (x1, y1) = (a[0].max(b[0]), a[1].max(b[1]));
    let (x2, y2) = ((a[0] + a[2]).min(b[0] + b[2]), (a[1] + a[3]).min(b[1] + b[3]));
    [x1, y1, (x2 - x1).max(0.0), (y2 - y1).max(0.0)]
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

    #[test]
    fn a_real_phones_bars_taller_than_this_phones_go_on_into_the_app_area_in_their_colour() {
        // A 1080 x 2400 white page whose status bar is red down to row 84 (this phone's ends at
        // 74) and whose navigation bar is black from row 2260 (this phone's starts at 2274).
        let (w, h) = (1080u32, 2400u32);
        let mut img = Rgb { width: w, height: h, pixels: vec![[255, 255, 255]; (w * h) as usize] };
        for y in (0..84).chain(2260..h) {
            let colour = if y < 84 { [200, 30, 30] } else { [0, 0, 0] };
            img.pixels[(y * w) as usize..((y + 1) * w) as usize].fill(colour);
        }
        let m = Mapper { width: f64::from(w), height: f64::from(h) };
        let bands: Vec<Surface> = surfaces(&img, h, &m).into_iter().filter(|s| s.colour != [255, 255, 255]).collect();
        assert_eq!(bands.len(), 2, "{bands:?}");
        assert_eq!((bands[0].rect, bands[0].colour), ([0.0, 0.0, 411.0, 4.0], [200, 30, 30]), "the status bar's 4 dp more");
        assert_eq!((bands[1].rect, bands[1].colour), ([0.0, 833.0, 411.0, 5.0], [0, 0, 0]), "the navigation bar's 5 dp more");
        // Bars of this phone's sizes: nothing of theirs in the app's area.
        let mut fitting = Rgb { width: w, height: h, pixels: vec![[255, 255, 255]; (w * h) as usize] };
        for y in (0..74).chain(2274..h) {
            let colour = if y < 74 { [200, 30, 30] } else { [0, 0, 0] };
            fitting.pixels[(y * w) as usize..((y + 1) * w) as usize].fill(colour);
        }
        assert!(surfaces(&fitting, h, &m).iter().all(|s| s.colour == [255, 255, 255]), "bars that fit: no band");
    }

    #[test]
    fn a_surface_a_painted_container_covers_most_of_goes_under_its_children_too() {
        use crate::generate::widgets::from_target;
        use crate::trace::UiNode;
        // A blue page 826 dp tall over an 838 dp screen; a black frame down its side reaches 12 dp below it.
        let mut page = from_target(&UiNode::default(), &Mapper { width: 1.0, height: 1.0 });
        (page.id, page.kind, page.rect, page.background) =
            ("page".into(), WidgetKind::Container, [0.0, 0.0, 411.0, 826.0], Some([75, 139, 213]));
        let mut text = page.clone();
        (text.id, text.kind, text.rect, text.background) = ("text".into(), WidgetKind::Text, [100.0, 100.0, 200.0, 40.0], None);
        page.children.push(text);
        let side = Surface { rect: [357.0, 23.0, 54.0, 815.0], colour: [0, 0, 0] };
        let placed = place(&[side], &[page], Some([255, 255, 255]));
        assert_eq!(placed[""], vec![side], "the whole frame under the page, where it shows below it");
        assert_eq!(
            placed["page"],
            vec![Surface { rect: [357.0, 23.0, 54.0, 803.0], colour: [0, 0, 0] }],
            "and the part the page covers, over its colour"
        );
    }
}
