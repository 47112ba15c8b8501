//! `phoneworld.Phone`: one mock phone, driven with canonical actions.

use std::path::PathBuf;
use std::sync::Arc;

use numpy::PyArray3;
use phoneworld_adb::{encode_png, PngCompression, SharedPhone};
use phoneworld_phone::{Device, ScriptLimits};
use phoneworld_tasks::Instance;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

use crate::adb::{serve, AdbServer};
use crate::catalogs::{catalog, suite};
use crate::columns::Gathered;
use crate::convert::{action_from_py, to_py, ui_elements_to_py};
use crate::env_core::task_choice;
use crate::errors::{phone_error, task_error, ActionError, ConfigError};
use crate::frame::{obs_size, render_rgb, rgb_array};
use crate::frame_view::frame_view;
use crate::settings::device_config;

/// A deterministic mock Android phone.
///
/// >>> import phoneworld
/// >>> phone = phoneworld.Phone(seed=0)
/// >>> phone.step({"type": "open_app", "app": "Clock"})["package"]
/// 'com.phoneworld.clock'
/// >>> phone.screenshot().shape
/// (2400, 1080, 3)
///
/// The device is shared: `serve_adb` serves this very phone over ADB, and ADB clients and
/// these methods then act on the same state.
#[pyclass(module = "phoneworld", name = "Phone")]
pub(crate) struct Phone {
    pub(crate) phone: SharedPhone,
    pub(crate) apps_dirs: Vec<PathBuf>,
}

/// A step result as a dict: ok, note, package, screen, step, clock_ms, script_errors.
pub(crate) fn step_result_to_py<'py>(py: Python<'py>, result: &phoneworld_phone::StepResult) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("ok", result.ok)?;
    dict.set_item("note", result.note.as_deref())?;
    dict.set_item("package", &result.package)?;
    dict.set_item("screen", &result.screen)?;
    dict.set_item("step", result.step)?;
    dict.set_item("clock_ms", result.clock_ms)?;
    let errors = PyList::empty(py);
    for err in &result.script_errors {
        errors.append(err.to_string())?;
    }
    dict.set_item("script_errors", errors)?;
    Ok(dict)
}

impl Phone {
    pub(crate) fn wrap(device: Device, apps_dirs: Vec<PathBuf>) -> Phone {
        Phone { phone: SharedPhone::new(device), apps_dirs }
    }

    /// Runs `f` on the device with the GIL released (ADB connections may hold the lock for a
    /// moment; they never need the GIL, so waiting here cannot deadlock).
    fn with<T: Send>(&self, py: Python<'_>, f: impl FnOnce(&mut Device) -> T + Send) -> T {
        let phone = self.phone.clone();
        py.detach(move || f(phone.lock().device_mut()))
    }
}

#[pymethods]
impl Phone {
    #[new]
    #[pyo3(signature = (seed=0, width=1080, height=2400, apps_dirs=None))]
    fn new(py: Python<'_>, seed: u64, width: u32, height: u32, apps_dirs: Option<Vec<PathBuf>>) -> PyResult<Phone> {
        let apps_dirs = apps_dirs.unwrap_or_default();
        let config = device_config(seed, width, height)?;
        let catalog = catalog(&apps_dirs)?;
        let device = py.detach(|| Device::new(catalog, config)).map_err(phone_error)?;
        Ok(Phone::wrap(device, apps_dirs))
    }

    /// Applies one canonical action (a dict or its JSON text) and returns what it did.
    /// Raises ActionError when the action is malformed; a no-op returns ok=False with a note.
    fn step<'py>(&self, py: Python<'py>, action: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let action = action_from_py(action).map_err(ActionError::new_err)?;
        let result = self.with(py, move |d| d.step(&action));
        step_result_to_py(py, &result)
    }

    /// Applies canonical actions in one call, without building step results: the Rust-side
    /// baseline for measuring what `step` costs in Python.
    fn run_actions(&self, py: Python<'_>, actions: &Bound<'_, PyList>) -> PyResult<()> {
        let actions = actions.iter().map(|a| action_from_py(&a).map_err(ActionError::new_err)).collect::<PyResult<Vec<_>>>()?;
        self.with(py, move |d| {
            for action in &actions {
                d.step(action);
            }
        });
        Ok(())
    }

    /// The screen as an (H, W, 3) uint8 array; with width and/or height, at that size (drawn at
    /// it when the aspect is kept, box-filtered otherwise). `copy=False` returns a read-only
    /// view of the frame the phone drew instead of a copy (no pixels moved; strides (4W, 4, 1)).
    #[pyo3(signature = (width=None, height=None, *, copy=true))]
    fn screenshot<'py>(&self, py: Python<'py>, width: Option<u32>, height: Option<u32>, copy: bool) -> PyResult<Bound<'py, PyArray3<u8>>> {
        let size = obs_size(self.size(py), width, height)?;
        if !copy {
            let frame = self.with(py, move |d| d.frame_scaled(size.width, size.height));
            return frame_view(py, frame);
        }
        let rgb = self.with(py, move |d| render_rgb(d, size));
        rgb_array(py, rgb, size)
    }

    /// The screen as PNG bytes. `compression`: None for the png crate's default level, or
    /// serve-adb's levels `"fast"` (what `screencap -p` sends by default), `"balanced"`, `"best"`.
    #[pyo3(signature = (compression=None))]
    fn screenshot_png<'py>(&self, py: Python<'py>, compression: Option<&str>) -> PyResult<Bound<'py, PyBytes>> {
        let level = match compression {
            None => None,
            Some("fast") => Some(PngCompression::Fast),
            Some("balanced") => Some(PngCompression::Balanced),
            Some("best") => Some(PngCompression::Best),
            Some(other) => {
                return Err(ConfigError::new_err(format!("compression: {other:?} is not one of \"fast\", \"balanced\", \"best\"")))
            }
        };
        let png = self.with(py, |d| match level {
            None => d.frame().to_png(),
            Some(level) => encode_png(&d.frame(), level),
        });
        Ok(PyBytes::new(py, &png))
    }

    /// The UI elements (AndroidWorld's fields and selection rule), as dicts.
    fn ui_elements<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let elements = self.with(py, |d| d.ui_elements());
        ui_elements_to_py(py, &elements)
    }

    /// The UI elements as columns: the same elements in the same order as `ui_elements()`,
    /// a list per text field (`text`, `content_description`, `hint_text`, `resource_id`,
    /// `package_name`: None where unset; `class_name`), `bbox_pixels` and `bbox` as (n, 4)
    /// float64 arrays of [x_min, y_min, x_max, y_max], and a bool array per flag
    /// (`is_clickable`, ...). Less than half the cost of building the dicts.
    fn ui_element_columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.with(py, Gathered::from_device).into_py(py)
    }

    /// The screen's UI tree as `uiautomator dump` XML.
    fn ui_xml(&self, py: Python<'_>) -> String {
        self.with(py, |d| d.ui_xml())
    }

    /// The UI tree as indented text, one node per line.
    fn ui_tree(&self, py: Python<'_>) -> String {
        self.with(py, |d| d.ui_tree_text())
    }

    /// The whole phone state (apps' data and the system) as plain Python objects.
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let state = self.with(py, |d| d.state_json());
        to_py(py, &state)
    }

    /// blake3 of the state.
    fn state_hash(&self, py: Python<'_>) -> String {
        self.with(py, |d| d.state_hash())
    }

    /// blake3 of the rendered frame.
    fn frame_hash(&self, py: Python<'_>) -> String {
        self.with(py, |d| d.frame_hash())
    }

    /// (package, screen) in the foreground; the home screen is ("com.phoneworld.launcher", ...).
    fn foreground(&self, py: Python<'_>) -> (String, String) {
        self.with(py, |d| d.foreground())
    }

    /// (width, height) in pixels.
    #[getter]
    fn size(&self, py: Python<'_>) -> (u32, u32) {
        self.with(py, |d| (d.config().width, d.config().height))
    }

    /// The state as snapshot bytes (small: only data that differs from a fresh install).
    fn snapshot<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        let bytes = self.with(py, |d| d.snapshot());
        PyBytes::new(py, &bytes)
    }

    /// A phone rebuilt from snapshot bytes; it continues exactly as the original would.
    /// Raises SnapshotError naming the offset of what is wrong.
    #[staticmethod]
    #[pyo3(signature = (data, apps_dirs=None))]
    fn restore(py: Python<'_>, data: &[u8], apps_dirs: Option<Vec<PathBuf>>) -> PyResult<Phone> {
        let apps_dirs = apps_dirs.unwrap_or_default();
        let catalog = catalog(&apps_dirs)?;
        let data = data.to_vec();
        let device = py.detach(move || Device::restore(catalog, &data, ScriptLimits::default())).map_err(phone_error)?;
        Ok(Phone::wrap(device, apps_dirs))
    }

    /// Drops what an idle phone can rebuild (its apps' Lua, layouts, frames): a pool of many
    /// phones calls this on those it is not stepping. The next step or observation rebuilds
    /// them; states, frames and hashes are as if it had never been trimmed.
    fn trim(&self, py: Python<'_>) {
        self.with(py, |d| d.trim());
    }

    /// An independent copy of this phone.
    fn fork(&self, py: Python<'_>) -> Phone {
        let device = self.with(py, |d| d.fork());
        Phone::wrap(device, self.apps_dirs.clone())
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyTuple>> {
        let py = slf.py();
        let this = slf.borrow();
        let snapshot = this.snapshot(py);
        let restore = slf.get_type().getattr("restore")?;
        let args = PyTuple::new(py, [snapshot.into_any(), this.apps_dirs.clone().into_pyobject(py)?.into_any()])?;
        PyTuple::new(py, [restore, args.into_any()])
    }

    /// A phone playing a task of the suite: the task's setup applied, its instruction in
    /// `task()`, its verifier in `verdict()` (and in `phoneworld verdict` over ADB).
    #[staticmethod]
    #[pyo3(signature = (task, seed=0, params=None, width=1080, height=2400, suite_name="phoneworld-v0", suite_dirs=None, apps_dirs=None))]
    #[allow(clippy::too_many_arguments)]
    fn for_task(
        py: Python<'_>,
        task: String,
        seed: u64,
        params: Option<&Bound<'_, PyDict>>,
        width: u32,
        height: u32,
        suite_name: &str,
        suite_dirs: Option<Vec<PathBuf>>,
        apps_dirs: Option<Vec<PathBuf>>,
    ) -> PyResult<Phone> {
        let apps_dirs = apps_dirs.unwrap_or_default();
        let config = device_config(seed, width, height)?;
        let catalog = catalog(&apps_dirs)?;
        let suite = suite(suite_name, &suite_dirs.unwrap_or_default(), &catalog)?;
        let choice = task_choice(Some(task.clone()), params)?;
        let template = suite.get(&task).ok_or_else(|| ConfigError::new_err(format!("no task `{task}` in suite `{}`", suite.name)))?;
        let instance = Instance::with_params(Arc::clone(template), seed, &catalog, &choice.params).map_err(task_error)?;
        let device = py.detach(|| instance.device_with(catalog, config)).map_err(task_error)?;
        Ok(Phone { phone: SharedPhone::with_task(device, instance), apps_dirs })
    }

    /// The task this phone plays (`for_task`): {"id", "seed", "params", "instruction"}, or None.
    fn task<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let phone = self.phone.clone();
        let task = py.detach(move || {
            phone.lock().task().map(|t| {
                let i = &t.instance;
                serde_json::json!({"id": i.template.id, "seed": i.seed, "params": i.params, "instruction": i.instruction})
            })
        });
        task.map(|t| to_py(py, &t)).transpose()
    }

    /// The verifier's verdict now, as `phoneworld verdict` prints it over ADB (success, reason,
    /// collateral, subgoals, answer, finished, steps, state_hash); None without a task.
    fn verdict<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let phone = self.phone.clone();
        let verdict = py.detach(move || phone.lock().verdict_json());
        verdict.map(|v| to_py(py, &v)).transpose()
    }

    /// Serves this phone over the ADB device protocol on `bind:port` (port 0 picks a free
    /// one), so `adb connect`, adb-shell, adbutils and `AdbPhone` drive this very device.
    /// `auth_keys`: None (no AUTH), "any" (any host key is accepted) or a list of public keys
    /// in `adbkey.pub` format (text or paths); other hosts stay `unauthorized`.
    #[pyo3(signature = (port=0, bind="127.0.0.1", auth_keys=None))]
    fn serve_adb(&self, py: Python<'_>, port: u16, bind: &str, auth_keys: Option<&Bound<'_, PyAny>>) -> PyResult<AdbServer> {
        serve(py, self.phone.clone(), bind, port, auth_keys)
    }

    /// Serves this very phone behind AndroidWorld's HTTP env-server API (see `serve_http`);
    /// HTTP clients and these methods then act on the same state.
    #[pyo3(signature = (port=0, bind="127.0.0.1", suite="phoneworld-v0", suite_dirs=Vec::new()))]
    fn serve_http(
        &self,
        py: Python<'_>,
        port: u16,
        bind: &str,
        suite: &str,
        suite_dirs: Vec<PathBuf>,
    ) -> PyResult<crate::http::HttpServer> {
        crate::http::serve_phone(py, self.phone.clone(), port, bind, suite, &suite_dirs)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        self.with(py, |device| {
            let (package, screen) = device.foreground();
            format!("Phone({}x{}, foreground={package}/{screen})", device.config().width, device.config().height)
        })
    }
}
