//! Screenshots without a copy: a read-only numpy array over the pixels of a frame the phone
//! drew, (H, W, 3) with strides (4W, 4, 1) over its RGBA buffer. The unsafe corner of the
//! Python module: numpy is handed a pointer into the frame, which the array's base object keeps
//! alive.
#![allow(unsafe_code)]

use std::sync::Arc;

use numpy::ndarray::{ArrayView3, ShapeBuilder};
use numpy::{npyffi, PyArray3, PyUntypedArrayMethods};
use phoneworld_render::Frame;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// The base object of a frame view: it holds the frame for as long as an array views it.
#[pyclass(frozen, module = "phoneworld._core")]
struct FramePixels {
    #[allow(dead_code)] // held, never read: it keeps the pixels alive
    frame: Arc<Frame>,
}

/// A read-only (H, W, 3) uint8 array over `frame`'s pixels (no copy).
pub(crate) fn frame_view(py: Python<'_>, frame: Arc<Frame>) -> PyResult<Bound<'_, PyArray3<u8>>> {
    let (width, height) = (frame.width as usize, frame.height as usize);
    let view = ArrayView3::from_shape((height, width, 3).strides((width * 4, 4, 1)), &frame.pixels)
        .map_err(|e| PyRuntimeError::new_err(format!("frame of {width}x{height} with {} bytes: {e}", frame.pixels.len())))?;
    let owner = Bound::new(py, FramePixels { frame: Arc::clone(&frame) })?;
    // SAFETY: `view` points into the pixels of the frame that `owner` shares, so they live as
    // long as the array (its base object). Nothing writes them while the array lives: a frame
    // is immutable behind its `Arc`, and the device draws into a buffer only once it is the sole
    // owner again (`Arc::try_unwrap`); the array itself is made read-only just below.
    let array = unsafe { PyArray3::borrow_from_array(&view, owner.into_any()) };
    // SAFETY: the array was created just above and nothing else refers to it yet; clearing the
    // writeable flag is what `ndarray.setflags(write=False)` does.
    unsafe { (*array.as_array_ptr()).flags &= !npyffi::NPY_ARRAY_WRITEABLE };
    Ok(array)
}
