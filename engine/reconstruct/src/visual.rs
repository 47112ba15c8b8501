//! Images: decoding screenshots (PNG or JPEG, whatever the file name says), sampling
//! their colors, and a structural similarity (SSIM) on downscaled grayscale.

use std::io::{BufRead as _, Read as _};
use std::path::Path;

use phoneworld_data::DataError;

use crate::error::ReconError;
use crate::limits::{MAX_IMAGE_FILE_BYTES, MAX_IMAGE_PIXELS};

const PNG_SIGNATURE: &[u8] = b"\x89PNG";
const JPEG_SIGNATURE: &[u8] = &[0xFF, 0xD8];

/// An 8-bit RGB image.
#[derive(Debug, Clone, PartialEq)]
pub struct Rgb {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<[u8; 3]>,
}

/// An error about an image file (`what` says what is wrong with it).
fn bad_image(path: &Path, what: impl std::fmt::Display) -> ReconError {
    ReconError::format(path, format!("image {what}"))
}

/// Refuses an image with no pixels or more than `MAX_IMAGE_PIXELS`, before it is decoded.
fn check_pixels(path: &Path, width: u32, height: u32) -> Result<(u32, u32), ReconError> {
    if width == 0 || height == 0 {
        return Err(bad_image(path, format!("of {width} x {height} pixels has no pixels")));
    }
    if u64::from(width) * u64::from(height) > MAX_IMAGE_PIXELS {
        return Err(bad_image(path, format!("of {width} x {height} pixels is over the limit of {MAX_IMAGE_PIXELS} pixels")));
    }
    Ok((width, height))
}

/// Opens a regular image file of at most `MAX_IMAGE_FILE_BYTES`, for reading its header.
fn open_image(path: &Path) -> Result<std::io::BufReader<std::io::Take<std::fs::File>>, ReconError> {
    let meta = std::fs::metadata(path).map_err(|e| ReconError::io(path, e))?;
    if !meta.is_file() {
        return Err(DataError::NotAFile { path: path.to_path_buf() }.into());
    }
    if meta.len() > MAX_IMAGE_FILE_BYTES {
        return Err(DataError::TooLarge { path: path.to_path_buf(), size: meta.len(), limit: MAX_IMAGE_FILE_BYTES }.into());
    }
    let file = std::fs::File::open(path).map_err(|e| ReconError::io(path, e))?;
    Ok(std::io::BufReader::new(file.take(MAX_IMAGE_FILE_BYTES)))
}

/// The pixel size of a PNG or JPEG file (sniffed from its bytes: some traces save JPEG data
/// under a .png name), read from its header alone; an error names the file when it is not a
/// regular file, too large, not an image, or has more pixels than `MAX_IMAGE_PIXELS`.
pub fn image_size(path: &Path) -> Result<(u32, u32), ReconError> {
    let mut reader = open_image(path)?;
    let head = reader.fill_buf().map_err(|e| ReconError::io(path, e))?;
    let (width, height) = if head.starts_with(PNG_SIGNATURE) {
        let reader = png::Decoder::new(reader).read_info().map_err(|e| bad_image(path, format!("is not a readable PNG: {e}")))?;
        (reader.info().width, reader.info().height)
    } else if head.starts_with(JPEG_SIGNATURE) {
        let mut decoder = jpeg_decoder::Decoder::new(reader);
        decoder.read_info().map_err(|e| bad_image(path, format!("is not a readable JPEG: {e}")))?;
        let info = decoder.info().ok_or_else(|| bad_image(path, "is a JPEG without a frame header"))?;
        (u32::from(info.width), u32::from(info.height))
    } else {
        return Err(bad_image(path, "is neither PNG nor JPEG"));
    };
    check_pixels(path, width, height)
}

impl Rgb {
    /// Reads a PNG or JPEG file (sniffed from its bytes), at most `MAX_IMAGE_FILE_BYTES` and
    /// `MAX_IMAGE_PIXELS`; the error names the file.
    pub fn load(path: &Path) -> Result<Rgb, ReconError> {
        let bytes = phoneworld_data::read_bounded(path, MAX_IMAGE_FILE_BYTES)?;
        Rgb::decode(path, &bytes)
    }

    /// Decodes PNG or JPEG bytes; `path` names them in errors. The size in the header is
    /// checked before any pixel buffer is allocated.
    pub fn decode(path: &Path, bytes: &[u8]) -> Result<Rgb, ReconError> {
        if bytes.starts_with(PNG_SIGNATURE) {
            decode_png(path, bytes)
        } else if bytes.starts_with(JPEG_SIGNATURE) {
            decode_jpeg(path, bytes)
        } else {
            Err(bad_image(path, "is neither PNG nor JPEG"))
        }
    }

    /// From RGBA bytes (a rendered frame).
    pub fn from_rgba(width: u32, height: u32, rgba: &[u8]) -> Rgb {
        Rgb { width, height, pixels: rgba.chunks_exact(4).map(|p| [p[0], p[1], p[2]]).collect() }
    }

    pub(crate) fn at(&self, x: u32, y: u32) -> [u8; 3] {
        let i = u64::from(y.min(self.height.saturating_sub(1))) * u64::from(self.width) + u64::from(x.min(self.width.saturating_sub(1)));
        self.pixels.get(i as usize).copied().unwrap_or_default()
    }

    /// The median color of a box given as fractions of the image (0..1).
    pub fn median_color(&self, fx1: f64, fy1: f64, fx2: f64, fy2: f64) -> Option<[u8; 3]> {
        channel_medians(&self.grid_samples(fx1, fy1, fx2, fy2)?)
    }

    /// The colour a box (fractions of the image) is painted in: its median colour when at least
    /// half of it is that colour (a toolbar under its title, a card under its text); `None` when
    /// no colour holds half of it (a photo, a surface showing many things, black beside white),
    /// where a median is a colour nobody drew.
    fn painted_colour(&self, fx1: f64, fy1: f64, fx2: f64, fy2: f64) -> Option<[u8; 3]> {
        median_held_by(&self.grid_samples(fx1, fy1, fx2, fy2)?, 0.5)
    }

    /// The colour a container or button's box (fractions of the image) is drawn in: the colour
    /// it is painted in; when no colour holds half of it, nothing for a box of at most a
    /// quarter of the image (its children and the surfaces found in it show what it holds)
    /// and its median colour for a larger one (the overall tone of a page under a drawer).
    pub(crate) fn container_colour(&self, fx1: f64, fy1: f64, fx2: f64, fy2: f64) -> Option<[u8; 3]> {
        let share = (fx2.min(1.0) - fx1.max(0.0)).max(0.0) * (fy2.min(1.0) - fy1.max(0.0)).max(0.0);
        match self.painted_colour(fx1, fy1, fx2, fy2) {
            Some(colour) => Some(colour),
            None if share > SMALL_BOX_SHARE => self.median_color(fx1, fy1, fx2, fy2),
            None => None,
        }
    }

    /// 12 x 12 pixels spread evenly over a box given as fractions of the image; `None` when the
    /// box holds no pixel.
    fn grid_samples(&self, fx1: f64, fy1: f64, fx2: f64, fy2: f64) -> Option<Vec<[u8; 3]>> {
        if self.width == 0 || self.height == 0 {
            return None;
        }
        let (w, h) = (f64::from(self.width), f64::from(self.height));
        let (x1, x2) = ((fx1.clamp(0.0, 1.0) * w) as u32, (fx2.clamp(0.0, 1.0) * w) as u32);
        let (y1, y2) = ((fy1.clamp(0.0, 1.0) * h) as u32, (fy2.clamp(0.0, 1.0) * h) as u32);
        if x2 <= x1 || y2 <= y1 {
            return None;
        }
        let steps = 12;
        let mut samples = Vec::with_capacity((steps * steps) as usize);
        for i in 0..steps {
            for j in 0..steps {
                let x = x1 + (x2 - x1) * (2 * i + 1) / (2 * steps);
                let y = y1 + (y2 - y1) * (2 * j + 1) / (2 * steps);
                samples.push(self.at(x, y));
            }
        }
        Some(samples)
    }

    /// The side of the cells flat colours are read in: a sixtieth of the width.
    pub fn flat_cell_side(&self) -> u32 {
        (self.width / CELLS_ACROSS).max(2)
    }

    /// The colour of the cell `[x, y, side, side]` when most of it is that colour (text over
    /// a card leaves the card's colour the cell's; a photo gives none).
    pub fn flat_colour(&self, x: u32, y: u32, side: u32) -> Option<[u8; 3]> {
        let step = (side / 6).max(1) as usize;
        let samples: Vec<[u8; 3]> = (y..y + side)
            .step_by(step)
            .flat_map(|py| (x..x + side).step_by(step).map(move |px| (px, py)))
            .map(|(px, py)| self.at(px, py))
            .collect();
        median_held_by(&samples, FLAT_SHARE)
    }

    /// The colour most of the flat cells of the first `rows` rows have: the page under
    /// everything, where photos would pull a median elsewhere (a grid of pictures on black);
    /// the median when nothing is flat.
    pub fn background_colour(&self, rows: u32) -> Option<[u8; 3]> {
        self.box_background(0.0, 0.0, 1.0, f64::from(rows) / f64::from(self.height.max(1)))
    }

    /// What a dialog is drawn over (the screen beneath, dimmed): the colour most flat cells of
    /// the band above its panel have, or below it when the band above is thin. `panel` is the
    /// panel's top and bottom as fractions of the screen; `rows` the rows showing the screen.
    pub fn backdrop_colour(&self, panel: (f64, f64), rows: u32) -> Option<[u8; 3]> {
        // Below the status bar and above the navigation bar (a few percent of a phone).
        const BARS: f64 = 0.04;
        let bottom = f64::from(rows) / f64::from(self.height.max(1));
        let above = panel.0 - BARS;
        let below = bottom - BARS - panel.1;
        if above.max(below) < BARS {
            return None;
        }
        if above >= below {
            self.box_background(0.0, BARS, 1.0, panel.0)
        } else {
            self.box_background(0.0, panel.1, 1.0, bottom - BARS)
        }
    }

    /// The colour most of the flat cells inside a box (fractions of the image, 0..1) have:
    /// what the box is painted in under its content (a white card under a large blue logo);
    /// its median colour when it holds too few flat cells to tell.
    fn box_background(&self, fx1: f64, fy1: f64, fx2: f64, fy2: f64) -> Option<[u8; 3]> {
        let side = self.flat_cell_side();
        let (w, h) = (f64::from(self.width), f64::from(self.height));
        let cells = |from: f64, to: f64, size: f64| {
            let first = ((from.clamp(0.0, 1.0) * size) / f64::from(side)).ceil() as u32;
            let end = ((to.clamp(0.0, 1.0) * size) / f64::from(side)).floor() as u32;
            first..end.max(first)
        };
        let mut buckets: std::collections::BTreeMap<[u8; 3], Vec<[u8; 3]>> = std::collections::BTreeMap::new();
        for cy in cells(fy1, fy2, h) {
            for cx in cells(fx1, fx2, w) {
                if let Some(c) = self.flat_colour(cx * side, cy * side, side) {
                    buckets.entry(c.map(|v| v >> 4)).or_default().push(c);
                }
            }
        }
        // The fullest bucket; of equal ones, the first (buckets are ordered by colour).
        let fullest =
            buckets.values().fold(None::<&Vec<[u8; 3]>>, |best, b| if best.is_none_or(|x| b.len() > x.len()) { Some(b) } else { best });
        match fullest {
            Some(cells) if cells.len() >= MIN_FLAT_CELLS => channel_medians(cells),
            _ => self.median_color(fx1, fy1, fx2, fy2),
        }
    }

    /// The box `[0, 0, crop_w, crop_h]` cut into `w` x `h` cells, row by row: `cell` gets each
    /// cell's pixels (at least one) and gives its value.
    fn cells<T>(&self, crop_w: u32, crop_h: u32, w: u32, h: u32, mut cell: impl FnMut(&mut dyn Iterator<Item = [u8; 3]>) -> T) -> Vec<T> {
        let (cw, ch) = (crop_w.min(self.width).max(1), crop_h.min(self.height).max(1));
        let mut out = Vec::with_capacity((w * h) as usize);
        for oy in 0..h {
            for ox in 0..w {
                let (x1, x2) = (ox * cw / w, ((ox + 1) * cw / w).max(ox * cw / w + 1));
                let (y1, y2) = (oy * ch / h, ((oy + 1) * ch / h).max(oy * ch / h + 1));
                out.push(cell(&mut (y1..y2).flat_map(|y| (x1..x2).map(move |x| (x, y))).map(|(x, y)| self.at(x, y))));
            }
        }
        out
    }

    /// Grayscale (BT.601 luma) of the box `[0, 0, crop_w, crop_h]`, box-filtered to `w` x `h`.
    pub fn gray(&self, crop_w: u32, crop_h: u32, w: u32, h: u32) -> Vec<f64> {
        self.cells(crop_w, crop_h, w, h, |pixels| {
            let (mut sum, mut n) = (0.0, 0.0);
            for p in pixels {
                sum += 0.299 * f64::from(p[0]) + 0.587 * f64::from(p[1]) + 0.114 * f64::from(p[2]);
                n += 1.0;
            }
            sum / n
        })
    }

    /// The box `[0, 0, crop_w, crop_h]` box-filtered to `w` x `h` (what `gray` compares, in colour).
    pub fn resized(&self, crop_w: u32, crop_h: u32, w: u32, h: u32) -> Rgb {
        let pixels = self.cells(crop_w, crop_h, w, h, |pixels| {
            let (mut sum, mut n) = ([0u32; 3], 0);
            for p in pixels {
                for c in 0..3 {
                    sum[c] += u32::from(p[c]);
                }
                n += 1;
            }
            sum.map(|v| (v / n) as u8)
        });
        Rgb { width: w, height: h, pixels }
    }

    /// The box `[x, y, w, h]`, if it lies inside the image.
    pub fn crop(&self, x: u32, y: u32, w: u32, h: u32) -> Option<Rgb> {
        if w == 0 || h == 0 || x.checked_add(w)? > self.width || y.checked_add(h)? > self.height {
            return None;
        }
        let pixels = (y..y + h).flat_map(|row| (x..x + w).map(move |col| self.at(col, row))).collect();
        Some(Rgb { width: w, height: h, pixels })
    }

    /// Fills the box `[x1, y1, x2, y2]` (pixels, within the image) from what is around it: each
    /// row runs from the pixel left of the box to the one right of it, or each column from the
    /// pixel above to the one below where the box spans the image's width; what has neither
    /// side takes the image's median colour.
    pub(crate) fn fill_from_sides(&mut self, [x1, y1, x2, y2]: [u32; 4]) {
        let (x2, y2) = (x2.min(self.width), y2.min(self.height));
        if x1 >= x2 || y1 >= y2 {
            return;
        }
        let blend = |a: [u8; 3], b: [u8; 3], t: f64| {
            let mix = |c: usize| (f64::from(a[c]) + (f64::from(b[c]) - f64::from(a[c])) * t).round() as u8;
            [mix(0), mix(1), mix(2)]
        };
        let side = |before: Option<[u8; 3]>, after: Option<[u8; 3]>| match (before, after) {
            (Some(a), Some(b)) => Some((a, b)),
            (Some(a), None) | (None, Some(a)) => Some((a, a)),
            (None, None) => None,
        };
        // Only a box that is the whole image has no side.
        let whole = (x1, y1, x2, y2) == (0, 0, self.width, self.height);
        let fallback = if whole { channel_medians(&self.pixels).unwrap_or_default() } else { [0; 3] };
        let across = x1 > 0 || x2 < self.width;
        for y in y1..y2 {
            for x in x1..x2 {
                let (ends, t) = if across {
                    let ends = side((x1 > 0).then(|| self.at(x1 - 1, y)), (x2 < self.width).then(|| self.at(x2, y)));
                    (ends, f64::from(x - x1 + 1) / f64::from(x2 - x1 + 1))
                } else {
                    let ends = side((y1 > 0).then(|| self.at(x, y1 - 1)), (y2 < self.height).then(|| self.at(x, y2)));
                    (ends, f64::from(y - y1 + 1) / f64::from(y2 - y1 + 1))
                };
                let colour = ends.map_or(fallback, |(a, b)| blend(a, b, t));
                self.pixels[(y * self.width + x) as usize] = colour;
            }
        }
    }

    /// The image as an RGB PNG file's bytes, compressed as `compression` says (a bundle's
    /// pictures are kept small; frames written for people to compare are written fast).
    pub fn png_bytes(&self, compression: png::Compression) -> Result<Vec<u8>, png::EncodingError> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, self.width, self.height);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_compression(compression);
        let bytes: Vec<u8> = self.pixels.iter().flatten().copied().collect();
        encoder.write_header()?.write_image_data(&bytes)?;
        Ok(out)
    }

    /// Writes the image as an RGB PNG, compressed fast.
    pub fn write_png(&self, path: &Path) -> Result<(), ReconError> {
        let bytes = self.png_bytes(png::Compression::Fast).map_err(|e| ReconError::io(path, std::io::Error::other(e)))?;
        std::fs::write(path, bytes).map_err(|e| ReconError::io(path, e))
    }
}

fn decode_png(path: &Path, bytes: &[u8]) -> Result<Rgb, ReconError> {
    let corrupt = |e: png::DecodingError| bad_image(path, format!("is not a readable PNG: {e}"));
    let mut decoder = png::Decoder::new_with_limits(std::io::Cursor::new(bytes), png::Limits { bytes: DECODER_BYTES });
    decoder.set_transformations(png::Transformations::normalize_to_color8());
    let mut reader = decoder.read_info().map_err(corrupt)?;
    check_pixels(path, reader.info().width, reader.info().height)?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).map_err(corrupt)?;
    let channels = info.color_type.samples();
    let pixels = buf[..info.buffer_size().min(buf.len())]
        .chunks_exact(channels)
        .map(|p| match channels {
            1 | 2 => [p[0]; 3],
            _ => [p[0], p[1], p[2]],
        })
        .collect();
    sized(path, info.width, info.height, pixels)
}

fn decode_jpeg(path: &Path, bytes: &[u8]) -> Result<Rgb, ReconError> {
    let corrupt = |e: jpeg_decoder::Error| bad_image(path, format!("is not a readable JPEG: {e}"));
    let mut decoder = jpeg_decoder::Decoder::new(std::io::Cursor::new(bytes));
    decoder.read_info().map_err(corrupt)?;
    let info = decoder.info().ok_or_else(|| bad_image(path, "is a JPEG without a frame header"))?;
    check_pixels(path, u32::from(info.width), u32::from(info.height))?;
    decoder.set_max_decoding_buffer_size(DECODER_BYTES);
    let data = decoder.decode().map_err(corrupt)?;
    let pixels = match info.pixel_format {
        jpeg_decoder::PixelFormat::L8 => data.iter().map(|&v| [v; 3]).collect(),
        jpeg_decoder::PixelFormat::RGB24 => data.chunks_exact(3).map(|p| [p[0], p[1], p[2]]).collect(),
        other => return Err(bad_image(path, format!("is a JPEG in {other:?}, not grayscale or RGB"))),
    };
    sized(path, u32::from(info.width), u32::from(info.height), pixels)
}

/// An image whose pixels fill its size (a decoder that gave fewer is refused, not indexed past).
fn sized(path: &Path, width: u32, height: u32, pixels: Vec<[u8; 3]>) -> Result<Rgb, ReconError> {
    if pixels.len() as u64 != u64::from(width) * u64::from(height) {
        return Err(bad_image(path, format!("decoded to {} pixels, not {width} x {height}", pixels.len())));
    }
    Ok(Rgb { width, height, pixels })
}

/// The most a decoder may allocate for one image: 4 bytes a pixel of the largest image.
const DECODER_BYTES: usize = 4 * MAX_IMAGE_PIXELS as usize;

/// Cells per screenshot width, for flat colours.
const CELLS_ACROSS: u32 = 60;
/// How far (sum of channel differences) a pixel may be from its cell's colour and count as it.
const SAME_PIXEL: u32 = 40;
/// The share of a cell's pixels that must be its colour for the cell to be flat.
const FLAT_SHARE: f64 = 0.75;
/// The largest share of the image a box of many colours is left unpainted in.
const SMALL_BOX_SHARE: f64 = 0.25;
/// The fewest flat cells of one colour that tell what a box is painted in.
const MIN_FLAT_CELLS: usize = 4;

/// The median colour of `samples` when at least `share` of them are that colour (within
/// `SAME_PIXEL`).
fn median_held_by(samples: &[[u8; 3]], share: f64) -> Option<[u8; 3]> {
    let colour = channel_medians(samples)?;
    let alike = samples.iter().filter(|p| (0..3).map(|c| u32::from(p[c].abs_diff(colour[c]))).sum::<u32>() <= SAME_PIXEL).count();
    (alike as f64 >= share * samples.len() as f64).then_some(colour)
}

/// The median of each channel.
pub(crate) fn channel_medians(pixels: &[[u8; 3]]) -> Option<[u8; 3]> {
    if pixels.is_empty() {
        return None;
    }
    let mut out = [0u8; 3];
    for (c, value) in out.iter_mut().enumerate() {
        let mut channel: Vec<u8> = pixels.iter().map(|p| p[c]).collect();
        channel.sort_unstable();
        *value = channel[channel.len() / 2];
    }
    Some(out)
}

/// The rows of a screenshot that show a screen of `screen_w` x `screen_h` (a screenshot may be
/// taller than the hierarchy's screen: the navigation bar).
pub fn rows_showing(shot: &Rgb, screen_w: u32, screen_h: u32) -> u32 {
    let scale = f64::from(shot.width) / f64::from(screen_w.max(1));
    ((f64::from(screen_h) * scale) as u32).min(shot.height)
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

    #[test]
    fn a_box_is_filled_from_its_sides_across_or_from_above_and_below_when_it_spans_the_width() {
        // 5 x 3: black left column, white right column; a box over the middle three columns.
        let mut img = Rgb { width: 5, height: 3, pixels: vec![[100, 100, 100]; 15] };
        for y in 0..3 {
            img.pixels[y * 5] = [0, 0, 0];
            img.pixels[y * 5 + 4] = [200, 200, 200];
        }
        img.fill_from_sides([1, 0, 4, 3]);
        assert_eq!((1..4).map(|x| img.at(x, 1)[0]).collect::<Vec<_>>(), [50, 100, 150], "a ramp from left to right");
        // The middle row spanning the width: from the row above to the row below.
        let mut img =
            Rgb { width: 2, height: 3, pixels: vec![[0, 0, 0], [0, 0, 0], [9, 9, 9], [9, 9, 9], [100, 100, 100], [100, 100, 100]] };
        img.fill_from_sides([0, 1, 2, 2]);
        assert_eq!(img.at(0, 1), [50, 50, 50]);
        // The whole image: its median colour.
        let mut img = Rgb { width: 3, height: 1, pixels: vec![[10, 10, 10], [20, 20, 20], [90, 90, 90]] };
        img.fill_from_sides([0, 0, 3, 1]);
        assert_eq!(img.pixels, vec![[20, 20, 20]; 3]);
    }

    #[test]
    fn a_container_is_drawn_in_the_colour_it_is_painted_in_and_a_small_one_of_many_colours_is_not() {
        // 40 x 40: the top half a green card with a few white "letters", the bottom half bands
        // of black, white and red, a third each.
        let mut img = Rgb { width: 40, height: 40, pixels: vec![[0, 160, 60]; 1600] };
        for (i, p) in img.pixels.iter_mut().enumerate() {
            let (x, y) = (i % 40, i / 40);
            if y < 20 && x % 5 == 0 {
                *p = [255, 255, 255];
            } else if y >= 20 {
                *p = [[0, 0, 0], [255, 255, 255], [255, 0, 0]][(x % 20) / 7];
            }
        }
        assert_eq!(img.container_colour(0.0, 0.0, 1.0, 0.5), Some([0, 160, 60]), "the card under its letters");
        assert_eq!(img.container_colour(0.0, 0.5, 0.5, 1.0), None, "a quarter of the image, no colour holds half of it");
        let median = img.median_color(0.0, 0.0, 1.0, 1.0);
        assert_eq!(img.container_colour(0.0, 0.0, 1.0, 1.0), median, "the whole image: its overall tone");
    }
}
