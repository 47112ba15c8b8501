//! Accent palettes: the primary and container colour roles derived from one seed colour, the
//! way Material 3 builds them (same hue, fixed tones), in CIE L*a*b* so that a role's tone and
//! therefore its contrast do not depend on the seed.

use phoneworld_render::Color;

use crate::theme::Theme;

/// L*, chroma and hue (degrees) of an sRGB colour.
fn lch(c: Color) -> (f64, f64, f64) {
    let lin = |v: u8| {
        let v = f64::from(v) / 255.0;
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    };
    let (r, g, b) = (lin(c.r), lin(c.g), lin(c.b));
    let x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
    let y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    let z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
    let f = |t: f64| if t > 216.0 / 24389.0 { t.cbrt() } else { (24389.0 / 27.0 * t + 16.0) / 116.0 };
    let (fx, fy, fz) = (f(x), f(y), f(z));
    let (l, a, bb) = (116.0 * fy - 16.0, 500.0 * (fx - fy), 200.0 * (fy - fz));
    (l, a.hypot(bb), bb.atan2(a).to_degrees())
}

/// The sRGB colour of L*, chroma, hue, or None outside the gamut.
fn from_lch(l: f64, chroma: f64, hue: f64) -> Option<Color> {
    let (a, b) = (chroma * hue.to_radians().cos(), chroma * hue.to_radians().sin());
    let fy = (l + 16.0) / 116.0;
    let (fx, fz) = (fy + a / 500.0, fy - b / 200.0);
    let inv = |t: f64| if t.powi(3) > 216.0 / 24389.0 { t.powi(3) } else { (116.0 * t - 16.0) * 27.0 / 24389.0 };
    let (x, y, z) = (inv(fx) * 0.95047, inv(fy), inv(fz) * 1.08883);
    let r = 3.2406 * x - 1.5372 * y - 0.4986 * z;
    let g = -0.9689 * x + 1.8758 * y + 0.0415 * z;
    let bl = 0.0557 * x - 0.2040 * y + 1.0570 * z;
    let enc = |v: f64| -> Option<u8> {
        if !(-0.0005..=1.0005).contains(&v) {
            return None;
        }
        let v = v.clamp(0.0, 1.0);
        let s = if v <= 0.003_130_8 { 12.92 * v } else { 1.055 * v.powf(1.0 / 2.4) - 0.055 };
        Some((s * 255.0).round() as u8)
    };
    Some(Color::rgb(enc(r)?, enc(g)?, enc(bl)?))
}

/// The colour of `tone` (L*) with the seed's hue and as much of `chroma` as the gamut allows.
pub(crate) fn tone(hue: f64, chroma: f64, tone: f64) -> Color {
    // Binary search on chroma: gray (chroma 0) is always inside the gamut.
    let (mut lo, mut hi) = (0.0, chroma);
    if let Some(c) = from_lch(tone, chroma, hue) {
        return c;
    }
    for _ in 0..24 {
        let mid = (lo + hi) / 2.0;
        if from_lch(tone, mid, hue).is_some() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    from_lch(tone, lo, hue).unwrap_or(Color::rgb(0, 0, 0))
}

/// Hue and chroma of a seed colour (chroma at least 24, so a grey seed still tints a little,
/// and at most 64 so containers stay calm).
pub(crate) fn seed_hue_chroma(seed: Color) -> (f64, f64) {
    let (_, chroma, hue) = lch(seed);
    (hue, chroma.clamp(24.0, 64.0))
}

/// `base` (the light or dark theme) with its accent roles taken from `seed`.
pub(crate) fn accented(base: Theme, seed: Color) -> Theme {
    let (hue, chroma) = seed_hue_chroma(seed);
    let muted = (chroma / 3.0).min(16.0);
    // Material 3's tones: light primary 40 on 100, container 90 with 10; dark 80 on 20, 30 with 90.
    let (p, on_p, pc, on_pc, sc) = if base.dark { (80.0, 20.0, 30.0, 90.0, 30.0) } else { (40.0, 100.0, 90.0, 10.0, 90.0) };
    Theme {
        primary: tone(hue, chroma, p),
        on_primary: tone(hue, chroma, on_p),
        primary_container: tone(hue, chroma, pc),
        on_primary_container: tone(hue, chroma, on_pc),
        secondary_container: tone(hue, muted, sc),
        ..base
    }
}

/// WCAG contrast ratio of two opaque colours (1 to 21).
pub(crate) fn contrast(a: Color, b: Color) -> f64 {
    let lum = |c: Color| {
        let lin = |v: u8| {
            let v = f64::from(v) / 255.0;
            if v <= 0.03928 {
                v / 12.92
            } else {
                ((v + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b)
    };
    let (x, y) = (lum(a), lum(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

/// White or near-black, whichever reads better on `background` (icons on a coloured bar).
pub(crate) fn ink_on(background: Color) -> Color {
    let dark = Color::rgb(0x1F, 0x1F, 0x1F);
    if contrast(Color::WHITE, background) >= contrast(dark, background) {
        Color::WHITE
    } else {
        dark
    }
}

/// The accent seed `system.*` holds, if the user picked one (what compose paints with).
pub fn system_accent(system: &serde_json::Value) -> Option<Color> {
    system.get("accent").and_then(serde_json::Value::as_str).and_then(Color::parse_hex)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::theme::{DARK, LIGHT};

    const SEEDS: [u32; 8] = [0x0B57D0, 0x386A20, 0x8E24AA, 0xE65100, 0x00897B, 0xC62828, 0x808080, 0xFFEB3B];

    fn hex(v: u32) -> Color {
        Color::rgb((v >> 16) as u8, (v >> 8) as u8, v as u8)
    }

    #[test]
    fn every_accent_keeps_text_readable_on_its_roles() {
        for seed in SEEDS {
            for base in [LIGHT, DARK] {
                let t = accented(base, hex(seed));
                let pairs = [
                    ("on_primary on primary", t.on_primary, t.primary),
                    ("on_primary_container on primary_container", t.on_primary_container, t.primary_container),
                    ("on_surface on secondary_container", t.on_surface, t.secondary_container),
                    ("primary on background", t.primary, t.background),
                ];
                for (what, fg, bg) in pairs {
                    let ratio = contrast(fg, bg);
                    assert!(ratio >= 4.5, "seed #{seed:06X} dark={}: {what} has contrast {ratio:.2}", base.dark);
                }
            }
        }
    }

    #[test]
    fn the_accent_keeps_the_seed_hue() {
        let green = accented(LIGHT, hex(0x386A20));
        let (r, g, b) = (green.primary.r, green.primary.g, green.primary.b);
        assert!(g > r && g > b, "a green seed gives a green primary, got {r},{g},{b}");
    }
}
