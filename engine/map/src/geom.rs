//! Points in world metres: x grows east, y grows south (as on screen).

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct P {
    pub x: f64,
    pub y: f64,
}

impl P {
    pub const fn new(x: f64, y: f64) -> P {
        P { x, y }
    }

    pub fn dist(self, o: P) -> f64 {
        ((self.x - o.x).powi(2) + (self.y - o.y).powi(2)).sqrt()
    }

    pub fn lerp(self, o: P, t: f64) -> P {
        P::new(self.x + (o.x - self.x) * t, self.y + (o.y - self.y) * t)
    }
}

/// Length of a polyline.
pub(crate) fn length(pts: &[P]) -> f64 {
    pts.windows(2).map(|w| w[0].dist(w[1])).sum()
}

/// The point `d` metres along a polyline, the index of the segment it lies on, and the
/// segment's unit direction.
pub(crate) fn along(pts: &[P], d: f64) -> (P, usize, (f64, f64)) {
    let mut left = d.max(0.0);
    for (i, w) in pts.windows(2).enumerate() {
        let l = w[0].dist(w[1]);
        let dir = if l > 0.0 { ((w[1].x - w[0].x) / l, (w[1].y - w[0].y) / l) } else { (1.0, 0.0) };
        if left <= l || i + 2 == pts.len() {
            return (w[0].lerp(w[1], if l > 0.0 { (left / l).min(1.0) } else { 0.0 }), i, dir);
        }
        left -= l;
    }
    (pts.first().copied().unwrap_or_default(), 0, (1.0, 0.0))
}

/// Bounding box (min, max) of points.
pub(crate) fn bbox(pts: &[P]) -> (P, P) {
    let mut lo = P::new(f64::INFINITY, f64::INFINITY);
    let mut hi = P::new(f64::NEG_INFINITY, f64::NEG_INFINITY);
    for p in pts {
        lo.x = lo.x.min(p.x);
        lo.y = lo.y.min(p.y);
        hi.x = hi.x.max(p.x);
        hi.y = hi.y.max(p.y);
    }
    (lo, hi)
}
