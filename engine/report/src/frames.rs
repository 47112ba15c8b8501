//! Step frames as small JPEG data URLs, so the page carries its pictures and opens offline.

use std::path::Path;

use base64::Engine as _;
use phoneworld_render::{Frame, Image};

use crate::error::ReportError;

/// JPEG quality of embedded frames: text on a phone screen stays readable at a tenth of PNG's size.
const QUALITY: u8 = 75;

/// Reads a recorded screenshot (PNG or JPEG) and returns it `width` pixels wide (never wider
/// than it was) as a `data:image/jpeg` URL.
pub(crate) fn frame_data_url(path: &Path, width: u32) -> Result<String, ReportError> {
    let bytes = std::fs::read(path).map_err(ReportError::io(path))?;
    let bad = |message: String| ReportError::Image { path: path.to_path_buf(), message };
    let image = Image::decode(&bytes).map_err(|e| bad(e.to_string()))?;
    let pixels = image.raster_pixels().ok_or_else(|| bad("a vector image is not a screenshot".into()))?;
    let frame = Frame { width: image.width(), height: image.height(), pixels: pixels.to_vec() };
    let small = if width < frame.width {
        let height = (u64::from(frame.height) * u64::from(width) / u64::from(frame.width)).max(1) as u32;
        frame.downscale(width, height)
    } else {
        frame
    };
    let mut jpeg = Vec::new();
    let mut encoder = jpeg_encoder::Encoder::new(&mut jpeg, QUALITY);
    encoder.set_sampling_factor(jpeg_encoder::SamplingFactor::R_4_2_0);
    let (w, h) = (u16::try_from(small.width), u16::try_from(small.height));
    let (Ok(w), Ok(h)) = (w, h) else { return Err(bad("too large for a JPEG".into())) };
    encoder.encode(&small.pixels, w, h, jpeg_encoder::ColorType::Rgba).map_err(|e| bad(e.to_string()))?;
    Ok(format!("data:image/jpeg;base64,{}", base64::engine::general_purpose::STANDARD.encode(jpeg)))
}
