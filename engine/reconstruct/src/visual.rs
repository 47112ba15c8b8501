//! Images: decoding screenshots (PNG or JPEG, whatever the file name says), sampling
//! their colors, and a structural similarity (SSIM) on downscaled grayscale.

use std::path::Path;

/// An 8-bit RGB image.
#[derive(Debug, Clone, PartialEq)]
pub struct Rgb {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<[u8; 3]>,
}

impl Rgb {
    /// Reads a PNG or JPEG file (sniffed from its bytes); `None` when it cannot be decoded.
    pub fn load(path: &Path) -> Option<Rgb> {
        let bytes = std::fs::read(path).ok()?;
        if bytes.starts_with(b"\x89PNG") {
            let mut decoder = png::Decoder::new(std::io::Cursor::new(&bytes));
            decoder.set_transformations(png::Transformations::normalize_to_color8());
            let mut reader = decoder.read_info().ok()?;
            let mut buf = vec![0; reader.output_buffer_size()];
            let info = reader.next_frame(&mut buf).ok()?;
            let channels = info.color_type.samples();
            let pixels = buf[..info.buffer_size()]
                .chunks_exact(channels)
                .map(|p| match channels {
                    1 | 2 => [p[0]; 3],
                    _ => [p[0], p[1], p[2]],
                })
                .collect();
            return Some(Rgb { width: info.width, height: info.height, pixels });
        }
        if bytes.starts_with(&[0xFF, 0xD8]) {
            let mut decoder = jpeg_decoder::Decoder::new(std::io::Cursor::new(&bytes));
            let data = decoder.decode().ok()?;
            let info = decoder.info()?;
            let pixels = match info.pixel_format {
                jpeg_decoder::PixelFormat::L8 => data.iter().map(|&v| [v; 3]).collect(),
                jpeg_decoder::PixelFormat::RGB24 => data.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect(),
                _ => return None,
            };
            return Some(Rgb { width: u32::from(info.width), height: u32::from(info.height), pixels });
        }
        None
    }

    /// From RGBA bytes (a rendered frame).
    pub fn from_rgba(width: u32, height: u32, rgba: &[u8]) -> Rgb {
        Rgb { width, height, pixels: rgba.chunks_exact(4).map(|p| [p[0], p[1], p[2]]).collect() }
    }

    fn at(&self, x: u32, y: u32) -> [u8; 3] {
        self.pixels[(y.min(self.height - 1) * self.width + x.min(self.width - 1)) as usize]
    }

    /// The median color of a box given as fractions of the image (0..1).
    pub fn median_color(&self, fx1: f64, fy1: f64, fx2: f64, fy2: f64) -> Option<[u8; 3]> {
        if self.width == 0 || self.height == 0 {
            return None;
        }
        let (w, h) = (f64::from(self.width), f64::from(self.height));
        let (x1, x2) = ((fx1.clamp(0.0, 1.0) * w) as u32, (fx2.clamp(0.0, 1.0) * w) as u32);
        let (y1, y2) = ((fy1.clamp(0.0, 1.0) * h) as u32, (fy2.clamp(0.0, 1.0) * h) as u32);
        if x2 <= x1 || y2 <= y1 {
            return None;
        }
        let mut channels: [Vec<u8>; 3] = Default::default();
        let steps = 12;
        for i in 0..steps {
            for j in 0..steps {
                let x = x1 + (x2 - x1) * (2 * i + 1) / (2 * steps);
                let y = y1 + (y2 - y1) * (2 * j + 1) / (2 * steps);
                let p = self.at(x, y);
                for c in 0..3 {
                    channels[c].push(p[c]);
                }
            }
        }
        let mut out = [0u8; 3];
        for c in 0..3 {
            channels[c].sort_unstable();
            out[c] = channels[c][channels[c].len() / 2];
        }
        Some(out)
    }

    /// Grayscale (BT.601 luma) of the box `[0, 0, crop_w, crop_h]`, box-filtered to `w` x `h`.
    pub fn gray(&self, crop_w: u32, crop_h: u32, w: u32, h: u32) -> Vec<f64> {
        let (cw, ch) = (crop_w.min(self.width).max(1), crop_h.min(self.height).max(1));
        let mut out = vec![0.0; (w * h) as usize];
        for oy in 0..h {
            for ox in 0..w {
                let (x1, x2) = (ox * cw / w, ((ox + 1) * cw / w).max(ox * cw / w + 1));
                let (y1, y2) = (oy * ch / h, ((oy + 1) * ch / h).max(oy * ch / h + 1));
                let mut sum = 0.0;
                let mut n = 0.0;
                for y in y1..y2 {
                    for x in x1..x2 {
                        let p = self.at(x, y);
                        sum += 0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2]);
                        n += 1.0;
                    }
                }
                out[(oy * w + ox) as usize] = sum / n;
            }
        }
        out
    }
}

/// The size screens are compared at (a 1:2.22 phone aspect).
pub const COMPARE_SIZE: (u32, u32) = (90, 200);

/// Mean SSIM over 8x8 windows (stride 4) of two grayscale images of the same size.
pub fn ssim(a: &[f64], b: &[f64], width: u32, height: u32) -> f64 {
    const C1: f64 = (0.01 * 255.0) * (0.01 * 255.0);
    const C2: f64 = (0.03 * 255.0) * (0.03 * 255.0);
    let (w, h) = (width as usize, height as usize);
    let mut total = 0.0;
    let mut windows = 0.0;
    let mut y = 0;
    while y + 8 <= h {
        let mut x = 0;
        while x + 8 <= w {
            let (mut ma, mut mb) = (0.0, 0.0);
            for dy in 0..8 {
                for dx in 0..8 {
                    ma += a[(y + dy) * w + x + dx];
                    mb += b[(y + dy) * w + x + dx];
                }
            }
            ma /= 64.0;
            mb /= 64.0;
            let (mut va, mut vb, mut cov) = (0.0, 0.0, 0.0);
            for dy in 0..8 {
                for dx in 0..8 {
                    let da = a[(y + dy) * w + x + dx] - ma;
                    let db = b[(y + dy) * w + x + dx] - mb;
                    va += da * da;
                    vb += db * db;
                    cov += da * db;
                }
            }
            va /= 63.0;
            vb /= 63.0;
            cov /= 63.0;
            total += ((2.0 * ma * mb + C1) * (2.0 * cov + C2)) / ((ma * ma + mb * mb + C1) * (va + vb + C2));
            windows += 1.0;
            x += 4;
        }
        y += 4;
    }
    if windows == 0.0 {
        0.0
    } else {
        total / windows
    }
}

/// `#RRGGBB`.
pub fn hex(c: [u8; 3]) -> String {
    format!("#{:02X}{:02X}{:02X}", c[0], c[1], c[2])
}

/// Relative luminance 0..255.
pub fn luma(c: [u8; 3]) -> f64 {
    0.299 * f64::from(c[0]) + 0.587 * f64::from(c[1]) + 0.114 * f64::from(c[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stripes(w: u32, h: u32, period: u32) -> Vec<f64> {
        (0..w * h).map(|i| if (i / w / period).is_multiple_of(2) { 30.0 } else { 220.0 }).collect()
    }

    #[test]
    fn ssim_is_one_for_the_same_image_and_lower_for_another() {
        let a = stripes(32, 64, 4);
        assert!((ssim(&a, &a, 32, 64) - 1.0).abs() < 1e-9);
        let b = stripes(32, 64, 8);
        let flat = vec![128.0; 32 * 64];
        assert!(ssim(&a, &b, 32, 64) < 0.7);
        assert!(ssim(&a, &flat, 32, 64) < 0.1);
    }

    #[test]
    fn median_color_ignores_a_minority_of_other_pixels() {
        let mut img = Rgb { width: 10, height: 10, pixels: vec![[0, 200, 0]; 100] };
        for p in img.pixels.iter_mut().take(20) {
            *p = [255, 255, 255];
        }
        assert_eq!(img.median_color(0.0, 0.0, 1.0, 1.0), Some([0, 200, 0]));
        assert_eq!(hex([0, 200, 0]), "#00C800");
    }
}
