//! Frames as numpy arrays: RGBA from the renderer packed into RGB, written once.

use numpy::{PyArray1, PyArray3, PyArrayMethods};
use phoneworld_phone::Device;
use phoneworld_render::{pack_rgb, pack_rgb_into};
use pyo3::prelude::*;

use crate::errors::ConfigError;

/// What size observations are rendered at: the device's, or a reduced one (drawn at that size
/// when it keeps the aspect, box-filtered otherwise; see `Device::frame_scaled`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ObsSize {
    pub(crate) width: u32,
    pub(crate) height: u32,
}

/// Renders the device's screen at `size` into `out` (height * width * 3 bytes).
pub(crate) fn render_into(device: &mut Device, size: ObsSize, out: &mut [u8]) {
    pack_rgb_into(&device.frame_scaled(size.width, size.height).pixels, out);
}

/// The device's screen at `size`, as RGB bytes in a new buffer.
pub(crate) fn render_rgb(device: &mut Device, size: ObsSize) -> Vec<u8> {
    pack_rgb(&device.frame_scaled(size.width, size.height).pixels)
}

/// An (H, W, 3) uint8 array that owns `rgb` (no copy).
pub(crate) fn rgb_array<'py>(py: Python<'py>, rgb: Vec<u8>, size: ObsSize) -> PyResult<Bound<'py, PyArray3<u8>>> {
    PyArray1::from_vec(py, rgb).reshape([size.height as usize, size.width as usize, 3])
}

/// The size a screenshot is taken at: the device's, or the asked width and/or height (the
/// other side kept in proportion).
pub(crate) fn obs_size(device_size: (u32, u32), width: Option<u32>, height: Option<u32>) -> PyResult<ObsSize> {
    let size = match (width, height) {
        (None, None) => ObsSize { width: device_size.0, height: device_size.1 },
        (Some(w), Some(h)) => ObsSize { width: w, height: h },
        (Some(w), None) => ObsSize { width: w, height: (u64::from(device_size.1) * u64::from(w) / u64::from(device_size.0).max(1)) as u32 },
        (None, Some(h)) => ObsSize { width: (u64::from(device_size.0) * u64::from(h) / u64::from(device_size.1).max(1)) as u32, height: h },
    };
    if size.width == 0 || size.height == 0 || size.width > 8192 || size.height > 8192 {
        return Err(ConfigError::new_err(format!("screenshot size {}x{} is out of range (1..=8192)", size.width, size.height)));
    }
    Ok(size)
}
