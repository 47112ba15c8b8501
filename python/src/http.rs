//! `serve_http` and `Phone.serve_http`: mock phones behind AndroidWorld's HTTP env-server API.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use phoneworld_adb::SharedPhone;
use phoneworld_http::{Families, HttpDevice, HttpOptions};
use phoneworld_phone::{project_root, Device};
use pyo3::prelude::*;

use crate::catalogs::catalog;
use crate::errors::{phone_error, task_error, ConfigError, PhoneWorldError};

/// The task families of suite `suite` (the bundled `verifiers/` plus `suite_dirs`).
fn families(suite: &str, suite_dirs: &[PathBuf], catalog: &phoneworld_phone::Catalog) -> PyResult<Arc<Families>> {
    let mut dirs = vec![project_root().join("verifiers")];
    dirs.extend_from_slice(suite_dirs);
    Ok(Arc::new(Families::load(suite, &dirs, catalog).map_err(task_error)?))
}

/// Serves `phones` on `bind:port`, the GIL released while it starts.
pub(crate) fn serve(
    py: Python<'_>,
    phones: Vec<SharedPhone>,
    families: Arc<Families>,
    bind: &str,
    port: u16,
    threads: usize,
) -> PyResult<HttpServer> {
    if !(1..=64).contains(&threads) {
        return Err(ConfigError::new_err(format!("threads must be 1 to 64, not {threads}")));
    }
    let devices: Vec<HttpDevice> = phones.into_iter().map(|p| HttpDevice::new(p, Arc::clone(&families))).collect();
    let options = HttpOptions { threads, ..HttpOptions::default() };
    let bind = bind.to_owned();
    let server = py
        .detach(move || phoneworld_http::HttpServer::bind((bind.as_str(), port), devices, options))
        .map_err(|e| ConfigError::new_err(e.to_string()))?;
    let addr = server.local_addr();
    Ok(HttpServer { devices: server.devices(), server: Mutex::new(Some(server)), host: addr.ip().to_string(), port: addr.port() })
}

/// `devices` fresh phones (each of seed `seed`) behind AndroidWorld's HTTP env-server API:
/// device N under `/emuN`, device 0 also at `/`.
#[pyfunction]
#[pyo3(signature = (devices=1, port=0, bind="127.0.0.1", seed=0, suite="phoneworld-v0", width=1080, height=2400, suite_dirs=Vec::new(), apps_dirs=Vec::new(), threads=2))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn serve_http(
    py: Python<'_>,
    devices: usize,
    port: u16,
    bind: &str,
    seed: u64,
    suite: &str,
    width: u32,
    height: u32,
    suite_dirs: Vec<PathBuf>,
    apps_dirs: Vec<PathBuf>,
    threads: usize,
) -> PyResult<HttpServer> {
    if !(1..=256).contains(&devices) {
        return Err(ConfigError::new_err(format!("devices must be 1 to 256, not {devices}")));
    }
    let catalog = catalog(&apps_dirs)?;
    let families = families(suite, &suite_dirs, &catalog)?;
    let config = phoneworld_http::scaled_config(width, height, seed);
    let phones = (0..devices)
        .map(|_| Device::new(Arc::clone(&catalog), config).map(SharedPhone::new).map_err(phone_error))
        .collect::<PyResult<Vec<_>>>()?;
    serve(py, phones, families, bind, port, threads)
}

/// `Phone.serve_http`: this phone as the one device of a server.
pub(crate) fn serve_phone(
    py: Python<'_>,
    phone: SharedPhone,
    port: u16,
    bind: &str,
    suite: &str,
    suite_dirs: &[PathBuf],
) -> PyResult<HttpServer> {
    let catalog = Arc::clone(phone.lock().device().catalog());
    let families = families(suite, suite_dirs, &catalog)?;
    serve(py, vec![phone], families, bind, port, 2)
}

/// Phones served over HTTP (from `serve_http` or `Phone.serve_http`). Closing it (`close()`,
/// leaving a `with` block, or garbage collection) stops listening and drops every connection.
#[pyclass(module = "phoneworld", name = "HttpServer")]
pub(crate) struct HttpServer {
    server: Mutex<Option<phoneworld_http::HttpServer>>,
    host: String,
    port: u16,
    devices: usize,
}

impl HttpServer {
    fn with_server<T>(&self, f: impl FnOnce(&phoneworld_http::HttpServer) -> T) -> PyResult<T> {
        let guard = self.server.lock().unwrap_or_else(|p| p.into_inner());
        guard.as_ref().map(f).ok_or_else(|| PhoneWorldError::new_err(format!("the HTTP server on {}:{} is closed", self.host, self.port)))
    }
}

#[pymethods]
impl HttpServer {
    /// The base URL of device 0, `http://HOST:PORT`.
    #[getter]
    fn url(&self) -> String {
        format!("http://{}:{}", self.host, self.port)
    }

    /// The base URL of each device, `http://HOST:PORT/emuN`.
    #[getter]
    fn device_urls(&self) -> Vec<String> {
        (0..self.devices).map(|i| format!("http://{}:{}/emu{i}", self.host, self.port)).collect()
    }

    #[getter]
    fn port(&self) -> u16 {
        self.port
    }

    /// `HOST:PORT`.
    #[getter]
    fn address(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }

    /// Is it still serving?
    #[getter]
    fn running(&self) -> bool {
        self.with_server(phoneworld_http::HttpServer::running).unwrap_or(false)
    }

    /// What the server noted (internal errors, refused and evicted connections), oldest first.
    fn log(&self) -> PyResult<Vec<String>> {
        self.with_server(phoneworld_http::HttpServer::log)
    }

    /// Open connections now.
    fn connections(&self) -> PyResult<usize> {
        self.with_server(phoneworld_http::HttpServer::connections)
    }

    /// Stops serving and joins its threads. Idempotent.
    fn close(&self, py: Python<'_>) {
        let server = self.server.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(mut server) = server {
            py.detach(move || server.close());
        }
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) {
        self.close(py);
    }

    fn __repr__(&self) -> String {
        let state = if self.running() { "serving" } else { "closed" };
        format!("HttpServer({}, devices={}, {state})", self.url(), self.devices)
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<HttpServer>()?;
    m.add_function(wrap_pyfunction!(serve_http, m)?)?;
    Ok(())
}
