//! Where names go at one zoom: the bay, parks, squares, avenues, side streets and stations,
//! placed greedily in that order where they do not overlap a name already placed. Positions
//! are in the zoom's pixel space (world metres × pixels per metre), so every tile of the
//! zoom draws the same labels.

use std::sync::Arc;

use phoneworld_text::{layout_text, TextLayout, TextStyle, Weight};

use crate::city::City;
use crate::geom::{self, P};
use crate::streets::StreetKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LabelKind {
    Street,
    Park,
    Water,
}

#[derive(Debug, Clone)]
pub(crate) struct Label {
    pub layout: Arc<TextLayout>,
    pub kind: LabelKind,
    /// Top-left of the text box, zoom pixels.
    pub x: f64,
    pub y: f64,
}

impl Label {
    pub(crate) fn w(&self) -> f64 {
        f64::from(self.layout.width)
    }
    pub(crate) fn h(&self) -> f64 {
        f64::from(self.layout.height)
    }
}

/// Boxes of the labels placed so far (with a margin).
struct Placed(Vec<[f64; 4]>);

impl Placed {
    fn try_add(&mut self, b: [f64; 4]) -> bool {
        let m = 6.0;
        if self.0.iter().any(|o| b[0] < o[2] + m && o[0] < b[2] + m && b[1] < o[3] + m && o[1] < b[3] + m) {
            return false;
        }
        self.0.push(b);
        true
    }
}

pub(crate) fn plan(city: &City, zoom: u8, s: f64, px_per_dp: f64) -> Vec<Label> {
    let mut out = Vec::new();
    let mut placed = Placed(Vec::new());
    let text =
        |t: &str, sp: f64, weight: Weight| Arc::new(layout_text(t, TextStyle { size_px: (sp * px_per_dp) as f32, weight }, None, Some(1)));
    let put = |layout: Arc<TextLayout>, kind: LabelKind, c: P, placed: &mut Placed, out: &mut Vec<Label>| {
        let (w, h) = (f64::from(layout.width), f64::from(layout.height));
        let (x, y) = ((c.x - w / 2.0).round(), (c.y - h / 2.0).round());
        if placed.try_add([x, y, x + w, y + h]) {
            out.push(Label { layout, kind, x, y });
        }
    };
    let px = |p: P| P::new(p.x * s, p.y * s);

    // The bay: along the shore, every ~1200 px, out in the water.
    let water = text(&city.water.name, 14.0, Weight::Medium);
    let shore: Vec<P> = city.water.poly.iter().take(city.water.poly.len().saturating_sub(2)).copied().collect();
    let step = ((1200.0 / s) / 25.0).ceil().max(1.0) as usize;
    for p in shore.iter().step_by(step) {
        let c = px(*p);
        put(
            Arc::clone(&water),
            LabelKind::Water,
            P::new(c.x + f64::from(water.width) / 2.0 + 60.0 * px_per_dp / 2.6, c.y),
            &mut placed,
            &mut out,
        );
    }
    if zoom >= 14 {
        for a in &city.parks {
            let (lo, hi) = geom::bbox(&a.poly);
            let c = px(lo.lerp(hi, 0.5));
            put(text(&a.name, 12.0, Weight::Medium), LabelKind::Park, c, &mut placed, &mut out);
        }
    }
    if zoom >= 15 {
        for a in city.squares.iter().chain(&city.piers) {
            let (lo, hi) = geom::bbox(&a.poly);
            put(text(&a.name, 11.0, Weight::Medium), LabelKind::Street, px(lo.lerp(hi, 0.5)), &mut placed, &mut out);
        }
    }
    for kind in [StreetKind::Avenue, StreetKind::Shore, StreetKind::Side] {
        let min_zoom = if kind == StreetKind::Side { 15 } else { 13 };
        if zoom < min_zoom {
            continue;
        }
        for st in city.streets.iter().filter(|st| st.kind == kind) {
            let pts: Vec<P> = st.nodes.iter().map(|&n| city.nodes[n]).collect();
            let len = geom::length(&pts);
            let t = text(&st.name, if kind == StreetKind::Side { 11.0 } else { 12.0 }, Weight::Regular);
            // A name every ~900 px, starting half a spacing in.
            let spacing = 900.0 / s;
            let mut d = spacing / 2.0;
            if len * s < f64::from(t.width) * 1.2 {
                continue;
            }
            while d < len {
                // Mid-block, not on a crossing.
                let (_, seg, _) = geom::along(&pts, d);
                let mid = pts[seg].lerp(pts[seg + 1], 0.5);
                put(Arc::clone(&t), LabelKind::Street, px(mid), &mut placed, &mut out);
                d += spacing;
            }
        }
    }
    if zoom >= 16 {
        for line in &city.lines {
            for (n, name) in &line.stations {
                let c = px(city.nodes[*n]);
                let t = text(&format!("{name} Station"), 11.0, Weight::Medium);
                put(t, LabelKind::Street, P::new(c.x, c.y - 26.0 * px_per_dp / 2.6), &mut placed, &mut out);
            }
        }
    }
    out
}
