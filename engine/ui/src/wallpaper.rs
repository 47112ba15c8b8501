//! The launcher's built-in wallpapers: small images generated from the accent hue and the theme,
//! the same pixels every time, scaled to the screen by the renderer (cover).

use std::sync::{Arc, Mutex};

use phoneworld_data::Rng;
use phoneworld_render::{Color, Image};
use serde::{Deserialize, Serialize};

use crate::accent::{seed_hue_chroma, tone};

/// A built-in wallpaper. `Plain` is the theme's background colour (no image).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum Wallpaper {
    #[default]
    Plain,
    /// A vertical gradient from the accent hue to a neighbouring one.
    Dawn,
    /// Rolling bands of the accent hue.
    Dunes,
    /// Soft discs scattered over a light or dark ground.
    Bubbles,
}

impl Wallpaper {
    pub const ALL: [Wallpaper; 4] = [Wallpaper::Plain, Wallpaper::Dawn, Wallpaper::Dunes, Wallpaper::Bubbles];

    pub fn name(self) -> &'static str {
        match self {
            Wallpaper::Plain => "plain",
            Wallpaper::Dawn => "dawn",
            Wallpaper::Dunes => "dunes",
            Wallpaper::Bubbles => "bubbles",
        }
    }

    pub fn parse(name: &str) -> Option<Wallpaper> {
        Wallpaper::ALL.into_iter().find(|w| w.name() == name)
    }
}

/// Width and height of the generated image (the renderer scales it to the screen).
const W: u32 = 180;
const H: u32 = 400;

/// The wallpaper's image for an accent seed and theme; None for `Plain`. Cached: the launcher
/// composes it every frame and the image key keeps the renderer's scaled copy warm.
pub(crate) fn image(kind: Wallpaper, seed: Color, dark: bool) -> Option<Arc<Image>> {
    type Key = (Wallpaper, [u8; 3], bool);
    static CACHE: Mutex<Vec<(Key, Arc<Image>)>> = Mutex::new(Vec::new());
    if kind == Wallpaper::Plain {
        return None;
    }
    let key = (kind, [seed.r, seed.g, seed.b], dark);
    if let Ok(cache) = CACHE.lock() {
        if let Some((_, img)) = cache.iter().find(|(k, _)| *k == key) {
            return Some(Arc::clone(img));
        }
    }
    let img = Arc::new(Image::from_premultiplied(W, H, pixels(kind, seed, dark)).ok()?);
    if let Ok(mut cache) = CACHE.lock() {
        if cache.len() >= 32 {
            cache.remove(0);
        }
        cache.push((key, Arc::clone(&img)));
    }
    Some(img)
}

/// Opaque RGBA pixels (opaque, so premultiplied is the same). Tones stay near the theme's
/// background (light 86-97, dark 8-22) so the launcher's labels keep their contrast.
fn pixels(kind: Wallpaper, seed: Color, dark: bool) -> Vec<u8> {
    let (hue, chroma) = seed_hue_chroma(seed);
    let chroma = chroma.min(28.0);
    let (base, span) = if dark { (8.0, 14.0) } else { (97.0, -11.0) };
    // Tone and hue per pixel from a shape function giving 0..1.
    let shade = |t: f64, hue_shift: f64| tone(hue + hue_shift, chroma * (0.35 + 0.65 * t), base + span * t);
    let mut out = Vec::with_capacity((W * H * 4) as usize);
    let discs = bubbles();
    for y in 0..H {
        let fy = f64::from(y) / f64::from(H - 1);
        for x in 0..W {
            let fx = f64::from(x) / f64::from(W - 1);
            let c = match kind {
                Wallpaper::Plain => Color::rgb(0, 0, 0),
                Wallpaper::Dawn => shade(fy, 40.0 * fy),
                Wallpaper::Dunes => {
                    // Three crests; below a crest is a band one step deeper.
                    let bands = (0..3).filter(|&i| fy > 0.35 + 0.2 * f64::from(i) + 0.05 * (fx * 6.0 + f64::from(i) * 2.0).sin()).count();
                    shade(f64::from(bands as u8) / 3.0, -20.0 * f64::from(bands as u8))
                }
                Wallpaper::Bubbles => {
                    let inside = discs.iter().filter(|(cx, cy, r)| (fx - cx).hypot((fy - cy) * 2.2) < *r).count();
                    shade((0.25 + 0.3 * inside as f64).min(1.0), 25.0 * inside as f64)
                }
            };
            out.extend_from_slice(&[c.r, c.g, c.b, 255]);
        }
    }
    out
}

/// Centres and radii of the bubbles: the engine's seeded RNG with a fixed seed, so every
/// phone has the same ones.
fn bubbles() -> Vec<(f64, f64, f64)> {
    let mut rng = Rng::new(0x00B0_B1E5);
    (0..9).map(|_| (rng.next_f64(), rng.next_f64(), 0.08 + 0.2 * rng.next_f64())).collect()
}

/// The wallpaper `system.*` holds.
pub fn system_wallpaper(system: &serde_json::Value) -> Wallpaper {
    system.get("wallpaper").and_then(serde_json::Value::as_str).and_then(Wallpaper::parse).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wallpapers_are_deterministic_and_distinct() {
        let seed = Color::rgb(0x38, 0x6A, 0x20);
        let a = pixels(Wallpaper::Dunes, seed, false);
        assert_eq!(a, pixels(Wallpaper::Dunes, seed, false));
        assert_ne!(a, pixels(Wallpaper::Dawn, seed, false));
        assert_ne!(a, pixels(Wallpaper::Dunes, seed, true));
        assert!(image(Wallpaper::Plain, seed, false).is_none());
    }
}
