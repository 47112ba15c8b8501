//! Bitmap images: PNG, JPEG and WebP decoded into premultiplied RGBA (sizes checked from the
//! header before any pixel is decoded), SVG kept as a parsed tree and rasterized by resvg at the
//! size it is drawn, and scaling to a box with a fit mode. Scaling and blending are integer
//! arithmetic, so one asset gives the same pixels on every machine; SVG goes through resvg
//! (tiny-skia), which is deterministic on one architecture.

use std::collections::{HashMap, VecDeque};
use std::io::Cursor;
use std::ops::Range;
use std::sync::{Arc, Mutex, OnceLock};

use resvg::usvg;

use crate::blend::{Canvas, Coverage, Pixels};
use crate::color::{IRect, Rect};
use crate::shapes;

/// Largest image file, in bytes.
pub const MAX_IMAGE_FILE_BYTES: u64 = 16 << 20;
/// Most pixels of a decoded raster image (4096×4096), checked from the header.
pub const MAX_IMAGE_PIXELS: u64 = 4096 * 4096;
/// Longest side of a raster image, in pixels (a 1×16M strip is within the pixel count but
/// useless and slow to scale).
pub const MAX_IMAGE_SIDE: u64 = 16384;
/// Total bytes of scaled copies kept for reuse; the oldest are dropped first.
pub const MAX_SCALED_CACHE_BYTES: usize = 64 << 20;
/// A box of more pixels than this is scaled only where it is visible, and not cached (a layout
/// may make an image far larger than the screen).
const MAX_CACHED_BOX_PIXELS: u64 = 2048 * 2048;

/// How an image fills its box.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Fit {
    /// Scaled to cover the box, keeping its aspect ratio; what overflows is cropped (centred).
    #[default]
    Cover,
    /// Scaled to fit inside the box, keeping its aspect ratio, centred.
    Contain,
    /// Stretched to the box.
    Fill,
}

/// Why an image cannot be used. The caller adds the file's name.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ImageError {
    #[error("not a PNG, JPEG, WebP or SVG image")]
    UnknownFormat,
    #[error("{size} bytes is over the limit of {limit} bytes")]
    TooLarge { size: u64, limit: u64 },
    #[error("{width}x{height} pixels is over the limit ({MAX_IMAGE_PIXELS} pixels, {MAX_IMAGE_SIDE} a side)")]
    TooManyPixels { width: u64, height: u64 },
    #[error("corrupt {format}: {message}")]
    Corrupt { format: &'static str, message: String },
}

/// A decoded image, shared by `Arc` between the devices that show it.
pub struct Image {
    width: u32,
    height: u32,
    /// blake3 of the file's bytes: the image's identity in caches and view hashes.
    key: [u8; 32],
    kind: Kind,
    /// A raster whose every pixel has alpha 255.
    opaque: bool,
}

enum Kind {
    /// Premultiplied RGBA8, `width * height * 4` bytes.
    Raster(Vec<u8>),
    /// Rasterized by resvg at the size it is drawn.
    Svg(Box<usvg::Tree>),
}

impl std::fmt::Debug for Image {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.kind {
            Kind::Raster(_) => "raster",
            Kind::Svg(_) => "svg",
        };
        write!(f, "Image({kind} {}x{} {})", self.width, self.height, self.key_hex())
    }
}

impl PartialEq for Image {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Image {
    /// Decodes a PNG, JPEG, WebP or SVG file, recognized by its first bytes (an SVG may start
    /// with an XML declaration, comments or whitespace). Compressed SVG (`.svgz`) is refused.
    pub fn decode(bytes: &[u8]) -> Result<Image, ImageError> {
        if bytes.len() as u64 > MAX_IMAGE_FILE_BYTES {
            return Err(ImageError::TooLarge { size: bytes.len() as u64, limit: MAX_IMAGE_FILE_BYTES });
        }
        let key = *blake3::hash(bytes).as_bytes();
        let (width, height, kind) = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            decode_png(bytes)?
        } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
            decode_jpeg(bytes)?
        } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
            decode_webp(bytes)?
        } else if looks_like_svg(bytes) {
            decode_svg(bytes)?
        } else {
            return Err(ImageError::UnknownFormat);
        };
        let opaque = matches!(&kind, Kind::Raster(px) if px.chunks_exact(4).all(|p| p[3] == 255));
        Ok(Image { width, height, key, kind, opaque })
    }

    /// A raster image from premultiplied RGBA8 pixels (`width * height * 4` bytes).
    pub fn from_premultiplied(width: u32, height: u32, pixels: Vec<u8>) -> Result<Image, ImageError> {
        check_size(u64::from(width), u64::from(height))?;
        if pixels.len() != width as usize * height as usize * 4 {
            return Err(ImageError::Corrupt { format: "RGBA", message: "the pixels do not match the size".into() });
        }
        let mut h = blake3::Hasher::new();
        h.update(&width.to_le_bytes());
        h.update(&height.to_le_bytes());
        h.update(&pixels);
        let opaque = pixels.chunks_exact(4).all(|p| p[3] == 255);
        Ok(Image { width, height, key: *h.finalize().as_bytes(), kind: Kind::Raster(pixels), opaque })
    }

    pub fn width(&self) -> u32 {
        self.width
    }

    pub fn height(&self) -> u32 {
        self.height
    }

    /// The premultiplied RGBA pixels of a raster image.
    pub fn raster_pixels(&self) -> Option<&[u8]> {
        match &self.kind {
            Kind::Raster(px) => Some(px),
            Kind::Svg(_) => None,
        }
    }

    /// A raster whose every pixel has alpha 255.
    pub(crate) fn is_opaque(&self) -> bool {
        self.opaque
    }

    pub fn is_svg(&self) -> bool {
        matches!(self.kind, Kind::Svg(_))
    }

    /// The identity of the image (blake3 of its file).
    pub fn key(&self) -> &[u8; 32] {
        &self.key
    }

    fn key_hex(&self) -> String {
        self.key[..8].iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Bytes held by the decoded image (an estimate for SVG trees).
    pub fn byte_size(&self) -> usize {
        match &self.kind {
            Kind::Raster(px) => px.len(),
            Kind::Svg(_) => 64 << 10,
        }
    }
}

fn check_size(width: u64, height: u64) -> Result<(), ImageError> {
    if width == 0 || height == 0 {
        return Err(ImageError::Corrupt { format: "image", message: "it has no pixels".into() });
    }
    if width * height > MAX_IMAGE_PIXELS || width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE {
        return Err(ImageError::TooManyPixels { width, height });
    }
    Ok(())
}

fn corrupt(format: &'static str) -> impl Fn(&dyn std::fmt::Display) -> ImageError {
    move |e| ImageError::Corrupt { format, message: e.to_string() }
}

/// `x * a / 255` rounded.
#[inline(always)]
fn mul255(x: u8, a: u8) -> u8 {
    let t = u32::from(x) * u32::from(a) + 128;
    ((t + (t >> 8)) >> 8) as u8
}

fn decode_png(bytes: &[u8]) -> Result<(u32, u32, Kind), ImageError> {
    let err = corrupt("PNG");
    let mut decoder = png::Decoder::new_with_limits(Cursor::new(bytes), png::Limits { bytes: (MAX_IMAGE_PIXELS * 8) as usize });
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let header = decoder.read_header_info().map_err(|e| err(&e))?;
    check_size(u64::from(header.width), u64::from(header.height))?;
    let mut reader = decoder.read_info().map_err(|e| err(&e))?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let frame = reader.next_frame(&mut buf).map_err(|e| err(&e))?;
    let (w, h) = (frame.width as usize, frame.height as usize);
    let channels = match frame.color_type {
        png::ColorType::Grayscale => 1,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Rgb => 3,
        png::ColorType::Rgba => 4,
        png::ColorType::Indexed => return Err(err(&"an indexed image was not expanded")),
    };
    let mut out = Vec::with_capacity(w * h * 4);
    for row in buf.chunks_exact(frame.line_size).take(h) {
        for px in row[..w * channels].chunks_exact(channels) {
            let (r, g, b, a) = match *px {
                [l] => (l, l, l, 255),
                [l, a] => (l, l, l, a),
                [r, g, b] => (r, g, b, 255),
                [r, g, b, a] => (r, g, b, a),
                _ => unreachable!("chunks of 1 to 4"),
            };
            out.extend_from_slice(&[mul255(r, a), mul255(g, a), mul255(b, a), a]);
        }
    }
    if out.len() != w * h * 4 {
        return Err(err(&"truncated image data"));
    }
    Ok((w as u32, h as u32, Kind::Raster(out)))
}

fn decode_jpeg(bytes: &[u8]) -> Result<(u32, u32, Kind), ImageError> {
    let err = corrupt("JPEG");
    let mut decoder = jpeg_decoder::Decoder::new(Cursor::new(bytes));
    decoder.read_info().map_err(|e| err(&e))?;
    let info = decoder.info().ok_or_else(|| err(&"no frame header"))?;
    let (w, h) = (usize::from(info.width), usize::from(info.height));
    check_size(w as u64, h as u64)?;
    // The header was checked: the decoder may allocate what that size needs, and no more.
    decoder.set_max_decoding_buffer_size(w * h * 4);
    let data = decoder.decode().map_err(|e| err(&e))?;
    let mut out = Vec::with_capacity(w * h * 4);
    match info.pixel_format {
        jpeg_decoder::PixelFormat::L8 => out.extend(data.iter().flat_map(|&l| [l, l, l, 255])),
        jpeg_decoder::PixelFormat::L16 => out.extend(data.chunks_exact(2).flat_map(|l| [l[0], l[0], l[0], 255])),
        jpeg_decoder::PixelFormat::RGB24 => out.extend(data.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255])),
        // Adobe's CMYK JPEGs store inverted ink: the decoder hands it back as such.
        jpeg_decoder::PixelFormat::CMYK32 => {
            out.extend(data.chunks_exact(4).flat_map(|p| [mul255(p[0], p[3]), mul255(p[1], p[3]), mul255(p[2], p[3]), 255]))
        }
    }
    if out.len() != w * h * 4 {
        return Err(err(&"truncated image data"));
    }
    Ok((w as u32, h as u32, Kind::Raster(out)))
}

fn decode_webp(bytes: &[u8]) -> Result<(u32, u32, Kind), ImageError> {
    let err = corrupt("WebP");
    let mut decoder = image_webp::WebPDecoder::new(Cursor::new(bytes)).map_err(|e| err(&e))?;
    let (w, h) = decoder.dimensions();
    check_size(u64::from(w), u64::from(h))?;
    let size = decoder.output_buffer_size().ok_or_else(|| err(&"the image is too large"))?;
    let mut buf = vec![0; size];
    decoder.read_image(&mut buf).map_err(|e| err(&e))?;
    let (w, h) = (w as usize, h as usize);
    let mut out = Vec::with_capacity(w * h * 4);
    if decoder.has_alpha() {
        out.extend(buf.chunks_exact(4).flat_map(|p| [mul255(p[0], p[3]), mul255(p[1], p[3]), mul255(p[2], p[3]), p[3]]));
    } else {
        out.extend(buf.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]));
    }
    if out.len() != w * h * 4 {
        return Err(err(&"truncated image data"));
    }
    Ok((w as u32, h as u32, Kind::Raster(out)))
}

fn looks_like_svg(bytes: &[u8]) -> bool {
    let text = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let start = text.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(text.len());
    text[start..].starts_with(b"<")
}

fn decode_svg(bytes: &[u8]) -> Result<(u32, u32, Kind), ImageError> {
    let options = usvg::Options {
        // An SVG never reads other files (it could name any file on the machine) nor embedded
        // images: only its own shapes are drawn.
        image_href_resolver: usvg::ImageHrefResolver { resolve_data: Box::new(|_, _, _| None), resolve_string: Box::new(|_, _| None) },
        ..usvg::Options::default()
    };
    let tree = usvg::Tree::from_data(bytes, &options).map_err(|e| corrupt("SVG")(&e))?;
    let size = tree.size();
    let (w, h) = (size.width().ceil().max(1.0) as u64, size.height().ceil().max(1.0) as u64);
    if w > MAX_IMAGE_SIDE || h > MAX_IMAGE_SIDE {
        return Err(ImageError::TooManyPixels { width: w, height: h });
    }
    Ok((w as u32, h as u32, Kind::Svg(Box::new(tree))))
}

/// An image scaled into a box: premultiplied RGBA covering `w`×`h` pixels whose top-left is
/// at (`x`, `y`) in the box (a `contain` image does not fill its box).
#[derive(Debug, PartialEq, Eq)]
pub struct Scaled {
    pub x: i32,
    pub y: i32,
    pub w: usize,
    pub h: usize,
    pub pixels: Vec<u8>,
    /// Every pixel is opaque (alpha 255).
    pub opaque: bool,
}

/// Sub-pixel positions are in 1/65536 of a source pixel.
const FP: u64 = 1 << 16;
/// Filter weights sum to this.
const W: u32 = 1 << 14;

/// Where the image lands in a `bw`×`bh` box: the covered rect (box pixels) and the part of the
/// source it shows (`FP` units).
struct Placement {
    out: IRect,
    crop: [u64; 4],
}

fn place(iw: u64, ih: u64, bw: u64, bh: u64, fit: Fit) -> Placement {
    let full = [0, 0, iw * FP, ih * FP];
    let whole = IRect { x0: 0, y0: 0, x1: bw as i32, y1: bh as i32 };
    // u128: box sides come from layouts and may be huge.
    let (iw1, ih1, bw1, bh1) = (u128::from(iw), u128::from(ih), u128::from(bw), u128::from(bh));
    let wider = iw1 * bh1 > ih1 * bw1;
    match fit {
        Fit::Fill => Placement { out: whole, crop: full },
        Fit::Cover => {
            let crop = if wider {
                let cw = (ih1 * bw1 * u128::from(FP) / bh1) as u64;
                [(iw * FP - cw) / 2, 0, cw, ih * FP]
            } else {
                let ch = (iw1 * bh1 * u128::from(FP) / bw1) as u64;
                [0, (ih * FP - ch) / 2, iw * FP, ch]
            };
            Placement { out: whole, crop }
        }
        Fit::Contain => {
            let (ow, oh) = if wider {
                (bw, ((2 * ih1 * bw1 + iw1) / (2 * iw1)).clamp(1, bh1) as u64)
            } else {
                (((2 * iw1 * bh1 + ih1) / (2 * ih1)).clamp(1, bw1) as u64, bh)
            };
            let (x0, y0) = (((bw - ow) / 2) as i32, ((bh - oh) / 2) as i32);
            Placement { out: IRect { x0, y0, x1: x0 + ow as i32, y1: y0 + oh as i32 }, crop: full }
        }
    }
}

/// Filter taps of one output pixel: first source index and its weights (summing to `W`).
struct Taps {
    start: usize,
    weights: Vec<u32>,
}

/// Taps for outputs `range` of `n` spread over `crop_len` source units from `crop0`: a box
/// filter (area average) when shrinking, bilinear when enlarging.
fn axis_taps(src_len: usize, crop0: u64, crop_len: u64, n: u64, range: Range<u64>) -> Vec<Taps> {
    let last = src_len as u64 - 1;
    range
        .map(|i| {
            if crop_len >= n * FP {
                let a = crop0 + u64::try_from(u128::from(i) * u128::from(crop_len) / u128::from(n)).unwrap_or(u64::MAX);
                let b = crop0 + u64::try_from(u128::from(i + 1) * u128::from(crop_len) / u128::from(n)).unwrap_or(u64::MAX);
                let j0 = (a / FP).min(last);
                let j1 = b.div_ceil(FP).min(last + 1).max(j0 + 1);
                let total = (b - a).max(1);
                let mut weights: Vec<u32> = (j0..j1)
                    .map(|j| {
                        let overlap = b.min((j + 1) * FP).saturating_sub(a.max(j * FP));
                        (u128::from(overlap) * u128::from(W) / u128::from(total)) as u32
                    })
                    .collect();
                // Rounding leaves a little weight over: the largest tap (the first of equals) takes it.
                let rest = W - weights.iter().sum::<u32>();
                let max = weights.iter().enumerate().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(&a.0))).map_or(0, |(k, _)| k);
                weights[max] += rest;
                Taps { start: j0 as usize, weights }
            } else {
                let centre =
                    crop0 + u64::try_from((2 * u128::from(i) + 1) * u128::from(crop_len) / (2 * u128::from(n))).unwrap_or(u64::MAX);
                let pos = centre.saturating_sub(FP / 2);
                let (j, frac) = (pos / FP, pos % FP);
                if j >= last {
                    return Taps { start: last as usize, weights: vec![W] };
                }
                let w1 = ((frac * u64::from(W) + FP / 2) / FP) as u32;
                Taps { start: j as usize, weights: vec![W - w1, w1] }
            }
        })
        .collect()
}

/// Resamples the source's premultiplied pixels: each output row of the window is the weighted
/// sum of the rows its taps name, each of those a weighted sum along the row (two passes, all
/// integer: 8 fractional bits between the passes).
fn resample(src: &[u8], sw: usize, xs: &[Taps], ys: &[Taps]) -> Vec<u8> {
    let (ow, oh) = (xs.len(), ys.len());
    let mut out = vec![0u8; ow * oh * 4];
    let (Some(first), Some(last)) = (ys.first(), ys.last()) else { return out };
    let row0 = first.start;
    let row1 = last.start + last.weights.len();
    // Horizontal pass over the source rows the vertical taps use.
    let mut mid = vec![0u16; (row1 - row0) * ow * 4];
    for (r, mid_row) in (row0..row1).zip(mid.chunks_exact_mut(ow * 4)) {
        let line = &src[r * sw * 4..(r + 1) * sw * 4];
        for (taps, px) in xs.iter().zip(mid_row.chunks_exact_mut(4)) {
            let mut acc = [0u32; 4];
            for (k, &w) in taps.weights.iter().enumerate() {
                let s = &line[(taps.start + k) * 4..(taps.start + k) * 4 + 4];
                for ch in 0..4 {
                    acc[ch] += w * u32::from(s[ch]);
                }
            }
            for ch in 0..4 {
                px[ch] = ((acc[ch] + 32) >> 6) as u16;
            }
        }
    }
    for (taps, out_row) in ys.iter().zip(out.chunks_exact_mut(ow * 4)) {
        let mut acc = vec![0u32; ow * 4];
        for (k, &w) in taps.weights.iter().enumerate() {
            let r = taps.start + k - row0;
            for (a, &m) in acc.iter_mut().zip(&mid[r * ow * 4..(r + 1) * ow * 4]) {
                *a += w * u32::from(m);
            }
        }
        for (o, a) in out_row.iter_mut().zip(acc) {
            *o = ((a + (1 << 21)) >> 22).min(255) as u8;
        }
    }
    out
}

/// The part `win` (box pixels) of the image scaled into a `bw`×`bh` box.
pub fn scale_window(image: &Image, bw: u32, bh: u32, fit: Fit, win: Rect) -> Scaled {
    let empty = Scaled { x: 0, y: 0, w: 0, h: 0, pixels: Vec::new(), opaque: true };
    if bw == 0 || bh == 0 {
        return empty;
    }
    let (iw, ih) = (u64::from(image.width), u64::from(image.height));
    let p = place(iw, ih, u64::from(bw), u64::from(bh), fit);
    let vis = p.out.intersect(IRect::snap(win));
    if vis.is_empty() {
        return empty;
    }
    let (ow, oh) = (p.out.width() as u64, p.out.height() as u64);
    let xr = (vis.x0 - p.out.x0) as u64..(vis.x1 - p.out.x0) as u64;
    let yr = (vis.y0 - p.out.y0) as u64..(vis.y1 - p.out.y0) as u64;
    let (w, h) = (vis.width() as usize, vis.height() as usize);
    let pixels = match &image.kind {
        Kind::Raster(src) => {
            let xs = axis_taps(image.width as usize, p.crop[0], p.crop[2], ow, xr);
            let ys = axis_taps(image.height as usize, p.crop[1], p.crop[3], oh, yr);
            resample(src, image.width as usize, &xs, &ys)
        }
        Kind::Svg(tree) => render_svg(tree, bw, bh, fit, vis, w, h),
    };
    let opaque = pixels.chunks_exact(4).all(|p| p[3] == 255);
    Scaled { x: vis.x0, y: vis.y0, w, h, pixels, opaque }
}

/// Rasterizes the window `vis` (box pixels, `w`×`h`) of the SVG fitted into the box.
fn render_svg(tree: &usvg::Tree, bw: u32, bh: u32, fit: Fit, vis: IRect, w: usize, h: usize) -> Vec<u8> {
    let Some(mut pixmap) = tiny_skia::Pixmap::new(w as u32, h as u32) else { return vec![0; w * h * 4] };
    let size = tree.size();
    let (sw, sh) = (size.width(), size.height());
    let (bwf, bhf) = (bw as f32, bh as f32);
    let (sx, sy) = match fit {
        Fit::Fill => (bwf / sw, bhf / sh),
        Fit::Cover => {
            let s = (bwf / sw).max(bhf / sh);
            (s, s)
        }
        Fit::Contain => {
            let s = (bwf / sw).min(bhf / sh);
            (s, s)
        }
    };
    let (tx, ty) = ((bwf - sw * sx) / 2.0, (bhf - sh * sy) / 2.0);
    let transform = tiny_skia::Transform::from_row(sx, 0.0, 0.0, sy, tx - vis.x0 as f32, ty - vis.y0 as f32);
    resvg::render(tree, transform, &mut pixmap.as_mut());
    pixmap.take()
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct ScaledKey {
    image: [u8; 32],
    w: u32,
    h: u32,
    fit: Fit,
}

#[derive(Default)]
struct ScaledCache {
    map: HashMap<ScaledKey, Arc<Scaled>>,
    /// Insertion order: the oldest entry is dropped first, whatever was drawn since.
    order: VecDeque<ScaledKey>,
    bytes: usize,
}

fn scaled_cache() -> &'static Mutex<ScaledCache> {
    static CACHE: OnceLock<Mutex<ScaledCache>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The whole image scaled into a `bw`×`bh` box, cached process-wide by (image, size, fit). A
/// scaled copy is a pure function of its key, so hits and misses give the same pixels.
pub fn scaled(image: &Image, bw: u32, bh: u32, fit: Fit) -> Arc<Scaled> {
    let key = ScaledKey { image: image.key, w: bw, h: bh, fit };
    if let Some(hit) = scaled_cache().lock().unwrap_or_else(|e| e.into_inner()).map.get(&key) {
        return Arc::clone(hit);
    }
    let s = Arc::new(scale_window(image, bw, bh, fit, Rect::new(0.0, 0.0, bw as f32, bh as f32)));
    let size = s.pixels.len();
    let mut cache = scaled_cache().lock().unwrap_or_else(|e| e.into_inner());
    if let Some(hit) = cache.map.get(&key) {
        return Arc::clone(hit);
    }
    if size > MAX_SCALED_CACHE_BYTES {
        return s;
    }
    while cache.bytes + size > MAX_SCALED_CACHE_BYTES {
        let Some(old) = cache.order.pop_front() else { break };
        if let Some(gone) = cache.map.remove(&old) {
            cache.bytes -= gone.pixels.len();
        }
    }
    cache.bytes += size;
    cache.order.push_back(key);
    cache.map.insert(key, Arc::clone(&s));
    s
}

/// The scaled copy `draw` uses for a `bw`×`bh` box, when it uses a cached one.
pub(crate) fn cached_scaled(image: &Image, bw: u32, bh: u32, fit: Fit) -> Option<Arc<Scaled>> {
    (u64::from(bw) * u64::from(bh) <= MAX_CACHED_BOX_PIXELS).then(|| scaled(image, bw, bh, fit))
}

/// Draws the image into `rect` with the fit mode, clipped to a rounded rect of `radius` or to
/// the circle inscribed in the rect.
#[allow(clippy::too_many_arguments, reason = "the image command's fields plus target and clip")]
pub(crate) fn draw(cv: &mut Canvas<'_>, rect: Rect, image: &Image, fit: Fit, radius: f32, circle: bool, clip: IRect) {
    let r = IRect::snap(rect);
    let vis = r.intersect(clip).intersect(cv.bounds());
    if vis.is_empty() {
        return;
    }
    let (bw, bh) = (r.width() as u32, r.height() as u32);
    // A raster drawn at its own size into a plain box (map tiles) needs no scaled copy.
    if let (Kind::Raster(px), false, true) = (&image.kind, circle, radius < 0.5 && bw == image.width && bh == image.height) {
        let src = Pixels { x: r.x0, y: r.y0, w: bw as usize, h: bh as usize, data: px, opaque: image.opaque };
        return cv.blit_premultiplied(src, None, vis);
    }
    let s = if let Some(s) = cached_scaled(image, bw, bh, fit) {
        s
    } else {
        let win = Rect::new((vis.x0 - r.x0) as f32, (vis.y0 - r.y0) as f32, vis.width() as f32, vis.height() as f32);
        Arc::new(scale_window(image, bw, bh, fit, win))
    };
    let src = Pixels { x: r.x0 + s.x, y: r.y0 + s.y, w: s.w, h: s.h, data: &s.pixels, opaque: s.opaque };
    let mask = if circle {
        let rad = rect.w.min(rect.h) / 2.0;
        Some(shapes::circle_mask(rect.x + rect.w / 2.0, rect.y + rect.h / 2.0, rad, vis))
    } else if radius >= 0.5 {
        Some(shapes::round_rect_mask(r, radius, vis))
    } else {
        None
    };
    match &mask {
        Some((m, x, y)) => {
            let cov = Coverage { x: *x, y: *y, w: m.w, h: m.h, data: &m.data };
            cv.blit_premultiplied(src, Some(cov), vis);
        }
        None => cv.blit_premultiplied(src, None, vis),
    }
}

#[cfg(test)]
mod tests;
