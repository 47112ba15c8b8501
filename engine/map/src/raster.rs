//! Draws one tile of the map with tiny-skia (anti-aliased paths), then its labels with the
//! shared glyph cache and a halo.

use phoneworld_text::glyph_bitmap;
use tiny_skia::{FillRule, LineCap, LineJoin, Paint, PathBuilder, Pixmap, Stroke, Transform};

use crate::city::City;
use crate::geom::{self, P};
use crate::labels::{Label, LabelKind};
use crate::streets::StreetKind;
use crate::style::{palette, Rgb, Theme};

pub(crate) struct TileJob<'a> {
    pub city: &'a City,
    pub labels: &'a [Label],
    pub theme: Theme,
    pub zoom: u8,
    /// Pixels per metre.
    pub s: f64,
    pub px_per_dp: f64,
    /// Top-left of the tile, zoom pixels.
    pub x0: f64,
    pub y0: f64,
    pub size: u32,
    pub route: Option<&'a [P]>,
}

fn paint(c: Rgb, alpha: u8) -> Paint<'static> {
    let mut p = Paint::default();
    p.set_color_rgba8(c[0], c[1], c[2], alpha);
    p.anti_alias = true;
    p
}

/// Premultiplied RGBA of the tile, `size`×`size`, opaque.
pub(crate) fn render(job: &TileJob<'_>) -> Vec<u8> {
    let pal = palette(job.theme);
    let size = job.size;
    let Some(mut pm) = Pixmap::new(size, size) else { return vec![255; size as usize * size as usize * 4] };
    pm.fill(tiny_skia::Color::from_rgba8(pal.land[0], pal.land[1], pal.land[2], 255));
    let (s, x0, y0) = (job.s, job.x0, job.y0);
    // World metres → tile pixels.
    let tf = Transform::from_row(s as f32, 0.0, 0.0, s as f32, -x0 as f32, -y0 as f32);
    // The tile's world rectangle with a margin for strokes that reach in.
    let margin = 80.0 / s;
    let view = (P::new(x0 / s - margin, y0 / s - margin), P::new((x0 + f64::from(size)) / s + margin, (y0 + f64::from(size)) / s + margin));
    let visible = |pts: &[P]| {
        let (lo, hi) = geom::bbox(pts);
        lo.x <= view.1.x && hi.x >= view.0.x && lo.y <= view.1.y && hi.y >= view.0.y
    };
    let fill = |pm: &mut Pixmap, pts: &[P], c: Rgb| {
        if pts.len() < 3 || !visible(pts) {
            return;
        }
        if let Some(path) = poly_path(pts, true) {
            pm.fill_path(&path, &paint(c, 255), FillRule::Winding, tf, None);
        }
    };
    let line = |pm: &mut Pixmap, pts: &[P], c: Rgb, alpha: u8, width_px: f64| {
        if pts.len() < 2 || !visible(pts) {
            return;
        }
        if let Some(path) = poly_path(pts, false) {
            let stroke = Stroke { width: (width_px / s) as f32, line_cap: LineCap::Round, line_join: LineJoin::Round, ..Stroke::default() };
            pm.stroke_path(&path, &paint(c, alpha), &stroke, tf, None);
        }
    };

    let city = job.city;
    if job.zoom >= 16 {
        for b in &city.blocks {
            fill(&mut pm, b, pal.block);
        }
    }
    for a in &city.parks {
        fill(&mut pm, &a.poly, pal.park);
    }
    for a in &city.squares {
        fill(&mut pm, &a.poly, pal.square);
    }
    fill(&mut pm, &city.water.poly, pal.water);
    for a in &city.piers {
        fill(&mut pm, &a.poly, pal.land);
    }

    // Roads: every casing first, then every fill, side streets under avenues.
    let dp = job.px_per_dp;
    let width = |k: StreetKind| match k {
        StreetKind::Side => (9.0 * s).clamp(1.3 * dp, 48.0 * dp),
        _ => (16.0 * s).clamp(2.6 * dp, 72.0 * dp),
    };
    let streets: Vec<(StreetKind, Vec<P>)> =
        city.streets.iter().map(|st| (st.kind, st.nodes.iter().map(|&n| city.nodes[n]).collect::<Vec<P>>())).collect();
    let casing = |k: StreetKind| if k == StreetKind::Side { pal.road_casing } else { pal.avenue_casing };
    let body = |k: StreetKind| if k == StreetKind::Side { pal.road } else { pal.avenue };
    for side in [true, false] {
        for (k, pts) in streets.iter().filter(|(k, _)| (*k == StreetKind::Side) == side) {
            line(&mut pm, pts, casing(*k), 255, width(*k) + 1.6 * dp.min(2.0 + s));
        }
        for (k, pts) in streets.iter().filter(|(k, _)| (*k == StreetKind::Side) == side) {
            line(&mut pm, pts, body(*k), 255, width(*k));
        }
    }
    // Rail lines over the roads, stations as rings.
    if job.zoom >= 13 {
        for l in &city.lines {
            let pts: Vec<P> = l.nodes.iter().map(|&n| city.nodes[n]).collect();
            line(&mut pm, &pts, l.color, 210, 2.5 * dp);
        }
        if job.zoom >= 14 {
            for l in &city.lines {
                for (n, _) in &l.stations {
                    let c = city.nodes[*n];
                    let r = 4.5 * dp / s;
                    if let Some(path) = PathBuilder::from_circle(c.x as f32, c.y as f32, r as f32) {
                        pm.fill_path(&path, &paint(pal.road, 255), FillRule::Winding, tf, None);
                        let st = Stroke { width: (2.0 * dp / s) as f32, ..Stroke::default() };
                        pm.stroke_path(&path, &paint(l.color, 255), &st, tf, None);
                    }
                }
            }
        }
    }
    if let Some(route) = job.route {
        line(&mut pm, route, pal.route_casing, 255, 8.0 * dp);
        line(&mut pm, route, pal.route, 255, 5.5 * dp);
    }

    let mut px = pm.take();
    for l in job.labels {
        let (lx, ly) = (l.x - x0, l.y - y0);
        let pad = 3.0;
        if lx + l.w() + pad < 0.0 || ly + l.h() + pad < 0.0 || lx - pad > f64::from(size) || ly - pad > f64::from(size) {
            continue;
        }
        let color = match l.kind {
            LabelKind::Street => pal.street_label,
            LabelKind::Park => pal.park_label,
            LabelKind::Water => pal.water_label,
        };
        draw_label(&mut px, size as i32, l, lx as i32, ly as i32, color, pal.halo);
    }
    px
}

fn poly_path(pts: &[P], close: bool) -> Option<tiny_skia::Path> {
    let mut pb = PathBuilder::new();
    pb.move_to(pts[0].x as f32, pts[0].y as f32);
    for p in &pts[1..] {
        pb.line_to(p.x as f32, p.y as f32);
    }
    if close {
        pb.close();
    }
    pb.finish()
}

/// Radius of the halo around a label's letters, pixels.
const HALO: i32 = 2;

/// The label's glyphs into a coverage mask, a halo (the mask grown by `HALO`) blended first,
/// then the letters.
fn draw_label(px: &mut [u8], size: i32, l: &Label, x: i32, y: i32, color: Rgb, halo: Rgb) {
    let (w, h) = (l.layout.width as i32 + 2 * HALO + 2, l.layout.height as i32 + 2 * HALO + 2);
    let mut mask = vec![0u8; (w * h) as usize];
    for g in &l.layout.glyphs {
        let bm = glyph_bitmap(g.face, g.glyph, g.size_px);
        let gx = g.x as i32 + bm.left + HALO;
        let gy = g.baseline as i32 - bm.top + HALO;
        for row in 0..bm.height as i32 {
            for col in 0..bm.width as i32 {
                let (mx, my) = (gx + col, gy + row);
                if mx >= 0 && my >= 0 && mx < w && my < h {
                    let k = (my * w + mx) as usize;
                    mask[k] = mask[k].max(bm.coverage[(row * bm.width as i32 + col) as usize]);
                }
            }
        }
    }
    // Grow by a square of HALO, rows then columns (a max filter is separable).
    let mut tmp = vec![0u8; mask.len()];
    for yy in 0..h {
        for xx in 0..w {
            let m = (xx - HALO).max(0)..=(xx + HALO).min(w - 1);
            tmp[(yy * w + xx) as usize] = m.map(|k| mask[(yy * w + k) as usize]).max().unwrap_or(0);
        }
    }
    let mut grown = vec![0u8; mask.len()];
    for yy in 0..h {
        for xx in 0..w {
            let m = (yy - HALO).max(0)..=(yy + HALO).min(h - 1);
            grown[(yy * w + xx) as usize] = m.map(|k| tmp[(k * w + xx) as usize]).max().unwrap_or(0);
        }
    }
    let (ox, oy) = (x - HALO, y - HALO);
    for (m, c) in [(&grown, halo), (&mask, color)] {
        for yy in 0..h {
            let ty = oy + yy;
            if ty < 0 || ty >= size {
                continue;
            }
            for xx in 0..w {
                let tx = ox + xx;
                let a = u32::from(m[(yy * w + xx) as usize]);
                if tx < 0 || tx >= size || a == 0 {
                    continue;
                }
                let i = ((ty * size + tx) * 4) as usize;
                for ch in 0..3 {
                    let d = u32::from(px[i + ch]);
                    px[i + ch] = ((d * (255 - a) + u32::from(c[ch]) * a + 127) / 255) as u8;
                }
            }
        }
    }
}
