//! The output frame and its encodings.

/// An RGBA8 frame (premultiplied is NOT used: the output is plain, opaque RGBA).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Frame {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

impl Frame {
    /// An opaque black frame.
    pub fn new(width: u32, height: u32) -> Self {
        Frame { width, height, pixels: [0, 0, 0, 255].repeat(width as usize * height as usize) }
    }

    /// blake3 hex of width, height (little endian u32) and pixels.
    pub fn hash(&self) -> String {
        let mut h = blake3::Hasher::new();
        h.update(&self.width.to_le_bytes());
        h.update(&self.height.to_le_bytes());
        h.update(&self.pixels);
        h.finalize().to_hex().to_string()
    }

    /// RGBA PNG with default compression.
    pub fn to_png(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let mut enc = png::Encoder::new(&mut out, self.width, self.height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        // Writing into a Vec cannot fail; only a size mismatch could, which is a bug.
        let mut w = enc.write_header().expect("png header");
        w.write_image_data(&self.pixels).expect("frame pixels match its size");
        w.finish().expect("png finish");
        out
    }

    /// Area-averaging (box filter) resize; each output pixel averages the source pixels whose
    /// index maps onto it. Integer arithmetic, so deterministic.
    pub fn downscale(&self, width: u32, height: u32) -> Frame {
        let (sw, sh) = (self.width as usize, self.height as usize);
        let (dw, dh) = (width as usize, height as usize);
        let mut out = Frame::new(width, height);
        if sw == 0 || sh == 0 || dw == 0 || dh == 0 {
            return out;
        }
        let span = |i: usize, s: usize, d: usize| {
            let a = i * s / d;
            let b = ((i + 1) * s / d).max(a + 1).min(s);
            (a, b)
        };
        let xs: Vec<(usize, usize)> = (0..dw).map(|x| span(x, sw, dw)).collect();
        let mut acc = vec![[0u32; 4]; dw];
        for y in 0..dh {
            let (y0, y1) = span(y, sh, dh);
            acc.iter_mut().for_each(|a| *a = [0; 4]);
            for sy in y0..y1 {
                let row = &self.pixels[sy * sw * 4..(sy + 1) * sw * 4];
                for (a, &(x0, x1)) in acc.iter_mut().zip(&xs) {
                    for px in row[x0 * 4..x1 * 4].chunks_exact(4) {
                        for ch in 0..4 {
                            a[ch] += px[ch] as u32;
                        }
                    }
                }
            }
            let orow = &mut out.pixels[y * dw * 4..(y + 1) * dw * 4];
            for ((px, a), &(x0, x1)) in orow.chunks_exact_mut(4).zip(&acc).zip(&xs) {
                let n = ((x1 - x0) * (y1 - y0)) as u32;
                for ch in 0..4 {
                    px[ch] = ((a[ch] + n / 2) / n) as u8;
                }
            }
        }
        out
    }

    /// Packed RGB, `height * width * 3` bytes.
    pub fn to_rgb(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.pixels.len() / 4 * 3);
        for px in self.pixels.chunks_exact(4) {
            out.extend_from_slice(&px[..3]);
        }
        out
    }
}
