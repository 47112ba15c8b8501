//! `phoneworld._core`: the Rust side of the `phoneworld` Python package. The Python modules
//! around it (`phoneworld/*.py`) add the Gymnasium envs, action formats and exporters.

mod adb;
mod catalogs;
mod columns;
mod convert;
mod env_core;
mod episode;
mod errors;
mod frame;
mod frame_view;
mod http;
mod observe;
mod phone;
mod report;
mod runs;
mod settings;
mod suite_info;
mod vector;

/// Steps allocate many small values (view nodes, layouts, Lua tables): mimalloc serves them
/// faster than the system allocator (`make bench-report`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    adb::register(m)?;
    http::register(m)?;
    m.add_class::<phone::Phone>()?;
    m.add_class::<env_core::EnvCore>()?;
    m.add_class::<vector::VectorCore>()?;
    suite_info::register(m)?;
    runs::register(m)?;
    report::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
