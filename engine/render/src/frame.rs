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
        if sw == 0 || sh == 0 || dw == 0 || dh == 0 {
            return Frame::new(width, height);
        }
        if sw == 2 * dw && sh == 2 * dh {
            return self.halved();
        }
        let mut out = Frame::new(width, height);
        let span = |i: usize, s: usize, d: usize| {
            let a = i * s / d;
            let b = ((i + 1) * s / d).max(a + 1).min(s);
            (a, b)
        };
        let xs: Vec<(usize, usize)> = (0..dw).map(|x| span(x, sw, dw)).collect();
        // The source rows of an output row are summed first, channel by channel, in a loop the
        // compiler vectorizes; then each output pixel sums its columns of that one row.
        let mut column_sums = vec![0u32; sw * 4];
        for y in 0..dh {
            let (y0, y1) = span(y, sh, dh);
            column_sums.fill(0);
            for sy in y0..y1 {
                let row = &self.pixels[sy * sw * 4..(sy + 1) * sw * 4];
                for (sum, &channel) in column_sums.iter_mut().zip(row) {
                    *sum += u32::from(channel);
                }
            }
            let orow = &mut out.pixels[y * dw * 4..(y + 1) * dw * 4];
            for (px, &(x0, x1)) in orow.chunks_exact_mut(4).zip(&xs) {
                let n = ((x1 - x0) * (y1 - y0)) as u32;
                let mut acc = [0u32; 4];
                for src in column_sums[x0 * 4..x1 * 4].chunks_exact(4) {
                    for ch in 0..4 {
                        acc[ch] += src[ch];
                    }
                }
                for ch in 0..4 {
                    px[ch] = ((acc[ch] + n / 2) / n) as u8;
                }
            }
        }
        out
    }

    /// [`Frame::downscale`] to exactly half the width and height (540x1200 from 1080x2400, the
    /// size RL observations ask for most): each output pixel is the rounded mean of a 2x2 block,
    /// the same bytes the general box filter gives, in loops the compiler vectorizes.
    fn halved(&self) -> Frame {
        let (dw, dh) = (self.width as usize / 2, self.height as usize / 2);
        let row = self.width as usize * 4;
        let mut pixels = vec![0u8; dw * dh * 4];
        // Two passes per output row, each a straight loop the compiler vectorizes: the two
        // source rows summed channel by channel, then neighbouring pixels' sums added.
        let mut sums = vec![0u16; row];
        for (y, out_row) in pixels.chunks_exact_mut(dw * 4).enumerate() {
            let top = &self.pixels[2 * y * row..(2 * y + 1) * row];
            let bottom = &self.pixels[(2 * y + 1) * row..(2 * y + 2) * row];
            for ((sum, &t), &b) in sums.iter_mut().zip(top).zip(bottom) {
                *sum = u16::from(t) + u16::from(b);
            }
            for (out, pair) in out_row.chunks_exact_mut(4).zip(sums.chunks_exact(8)) {
                out[0] = ((pair[0] + pair[4] + 2) >> 2) as u8;
                out[1] = ((pair[1] + pair[5] + 2) >> 2) as u8;
                out[2] = ((pair[2] + pair[6] + 2) >> 2) as u8;
                out[3] = ((pair[3] + pair[7] + 2) >> 2) as u8;
            }
        }
        Frame { width: dw as u32, height: dh as u32, pixels }
    }

    /// Packed RGB, `height * width * 3` bytes.
    pub fn to_rgb(&self) -> Vec<u8> {
        crate::pack_rgb(&self.pixels)
    }
}
