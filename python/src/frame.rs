//! Frames as numpy arrays: RGBA from the renderer packed into RGB, written once.

use numpy::{PyArray1, PyArray3, PyArrayMethods};
use phoneworld_phone::Device;
use pyo3::prelude::*;

/// Packs RGBA pixels into `out` as RGB (`out.len()` must be 3/4 of `rgba.len()`).
pub(crate) fn rgba_to_rgb(rgba: &[u8], out: &mut [u8]) {
    for (src, dst) in rgba.chunks_exact(4).zip(out.chunks_exact_mut(3)) {
        dst.copy_from_slice(&src[..3]);
    }
}

/// What size observations are rendered at: the device's, or a downscale done in Rust.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ObsSize {
    pub(crate) width: u32,
    pub(crate) height: u32,
}

/// Renders the device's screen at `size` into `out` (height * width * 3 bytes).
pub(crate) fn render_into(device: &mut Device, size: ObsSize, out: &mut [u8]) {
    let config = device.config();
    if (config.width, config.height) == (size.width, size.height) {
        let frame = device.frame();
        rgba_to_rgb(&frame.pixels, out);
    } else {
        let frame = device.frame_scaled(size.width, size.height);
        rgba_to_rgb(&frame.pixels, out);
    }
}

/// An (H, W, 3) uint8 array that owns `rgb` (no copy).
pub(crate) fn rgb_array<'py>(py: Python<'py>, rgb: Vec<u8>, size: ObsSize) -> PyResult<Bound<'py, PyArray3<u8>>> {
    PyArray1::from_vec(py, rgb).reshape([size.height as usize, size.width as usize, 3])
}
