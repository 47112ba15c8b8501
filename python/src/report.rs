//! `write_report`: the HTML page of an eval run folder, as `phoneworld report` writes it.

use std::path::PathBuf;

use phoneworld_report::{write_report as write_page, ReportError, ReportOptions};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use serde_json::json;

use crate::convert::to_py;
use crate::errors::ConfigError;

/// Writes the page of the run in `run_dir` (an `out_dir` of an eval) to `out`; returns what it
/// holds: `episodes`, `recorded`, `steps`, `distinct_frames`, `bytes`.
#[pyfunction]
#[pyo3(signature = (run_dir, out, frame_width=240))]
fn write_report<'py>(py: Python<'py>, run_dir: PathBuf, out: PathBuf, frame_width: u32) -> PyResult<Bound<'py, PyAny>> {
    if frame_width == 0 {
        return Err(ConfigError::new_err("frame_width 0: frames need at least one pixel"));
    }
    let summary = py.detach(|| write_page(&run_dir, &out, &ReportOptions { frame_width })).map_err(|e| match e {
        ReportError::Io { .. } => PyOSError::new_err(e.to_string()),
        _ => ConfigError::new_err(e.to_string()),
    })?;
    to_py(
        py,
        &json!({
            "episodes": summary.episodes, "recorded": summary.recorded, "steps": summary.steps,
            "distinct_frames": summary.distinct_frames, "bytes": summary.bytes,
        }),
    )
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(write_report, m)?)
}
