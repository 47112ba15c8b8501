//! ADB from Python: `Phone.serve_adb` (the mock phone answering ADB), `AdbPhone` (a phone
//! behind an adb server, with `Phone`'s observations and actions), the device errors, and the
//! task checks a real device can evaluate.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use numpy::PyArray3;
use phoneworld_adb::{AdbClient, AdbError, AdbPublicKey, AuthPolicy, ServerHandle, ServerOptions, SharedPhone};
use phoneworld_render::pack_rgb;
use phoneworld_tasks::{fill, Check, Params};
use pyo3::create_exception;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use serde_json::{json, Value};

use crate::convert::{action_from_py, to_py, ui_elements_to_py};
use crate::errors::{ActionError, ConfigError, DeviceError, NotSupportedOnRealDevice, PhoneWorldError};
use crate::frame::{obs_size, rgb_array, ObsSize};
use crate::suite_info::resolve_instance;

create_exception!(phoneworld, DeviceNotFound, DeviceError, "The adb server does not know the device (see `adb devices`).");
create_exception!(phoneworld, DeviceOffline, DeviceError, "The device is offline: its connection was lost or is not up yet.");
create_exception!(phoneworld, DeviceUnauthorized, DeviceError, "The device did not accept this host's ADB key.");
create_exception!(phoneworld, DeviceTimeout, DeviceError, "The device or the adb server did not answer within the timeout.");
create_exception!(
    phoneworld,
    DeviceDisconnected,
    DeviceError,
    "The adb server is unreachable, or the connection closed in the middle of a call."
);

/// The Python exception for an ADB client error.
pub(crate) fn adb_error(err: AdbError) -> PyErr {
    let message = err.to_string();
    match err {
        AdbError::DeviceNotFound { .. } => DeviceNotFound::new_err(message),
        AdbError::DeviceOffline { .. } => DeviceOffline::new_err(message),
        AdbError::DeviceUnauthorized { .. } => DeviceUnauthorized::new_err(message),
        AdbError::Timeout { .. } => DeviceTimeout::new_err(message),
        AdbError::ServerUnavailable { .. } | AdbError::ConnectionClosed { .. } | AdbError::Io { .. } => {
            DeviceDisconnected::new_err(message)
        }
        AdbError::Unsupported { .. } => NotSupportedOnRealDevice::new_err(message),
        _ => DeviceError::new_err(message),
    }
}

/// `auth_keys` of `serve_adb`: None, "any", or public keys (adbkey.pub text or paths).
fn auth_policy(keys: Option<&Bound<'_, PyAny>>) -> PyResult<AuthPolicy> {
    let Some(keys) = keys else { return Ok(AuthPolicy::Disabled) };
    if let Ok(text) = keys.extract::<String>() {
        if text == "any" {
            return Ok(AuthPolicy::AnyKey);
        }
        return Err(ConfigError::new_err(format!("auth_keys must be None, \"any\" or a list of public keys, not the string {text:?}")));
    }
    let mut parsed = Vec::new();
    for (i, item) in keys.try_iter()?.enumerate() {
        let item = item?;
        let key = match item.extract::<String>() {
            Ok(text) if !std::path::Path::new(text.trim()).is_file() => {
                AdbPublicKey::parse(&text).map_err(|e| ConfigError::new_err(format!("auth_keys[{i}]: {e}")))?
            }
            _ => {
                let path: PathBuf = item.extract()?;
                AdbPublicKey::from_file(&path).map_err(|e| ConfigError::new_err(format!("auth_keys[{i}]: {e}")))?
            }
        };
        parsed.push(key);
    }
    Ok(AuthPolicy::Keys(parsed))
}

/// Starts serving `phone` (for `Phone.serve_adb`).
pub(crate) fn serve(
    py: Python<'_>,
    phone: SharedPhone,
    bind: &str,
    port: u16,
    auth_keys: Option<&Bound<'_, PyAny>>,
) -> PyResult<AdbServer> {
    let options = ServerOptions { auth: auth_policy(auth_keys)?, ..ServerOptions::default() };
    let bind = bind.to_owned();
    let handle = py
        .detach(move || phoneworld_adb::AdbServer::bind((bind.as_str(), port), phone, options))
        .map_err(|e| ConfigError::new_err(e.to_string()))?;
    let addr = handle.local_addr();
    Ok(AdbServer { handle: Mutex::new(Some(handle)), host: addr.ip().to_string(), port: addr.port() })
}

/// A mock phone served over ADB (from `Phone.serve_adb`). Closing it (`close()`, leaving a
/// `with` block, or garbage collection) stops listening and drops every connection.
#[pyclass(module = "phoneworld", name = "AdbServer")]
pub(crate) struct AdbServer {
    handle: Mutex<Option<ServerHandle>>,
    host: String,
    port: u16,
}

impl AdbServer {
    fn with_handle<T>(&self, f: impl FnOnce(&ServerHandle) -> T) -> PyResult<T> {
        let guard = self.handle.lock().unwrap_or_else(|p| p.into_inner());
        guard.as_ref().map(f).ok_or_else(|| PhoneWorldError::new_err(format!("the ADB server on {}:{} is closed", self.host, self.port)))
    }
}

#[pymethods]
impl AdbServer {
    /// The port it listens on.
    #[getter]
    fn port(&self) -> u16 {
        self.port
    }

    /// The address it listens on, `HOST:PORT` (what `adb connect` takes).
    #[getter]
    fn address(&self) -> String {
        format!("{}:{}", self.host, self.port)
    }

    /// Is it still serving?
    #[getter]
    fn running(&self) -> bool {
        self.with_handle(ServerHandle::is_running).unwrap_or(false)
    }

    /// Stops serving and joins its threads. Idempotent.
    fn close(&self, py: Python<'_>) {
        let handle = self.handle.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(handle) = handle {
            py.detach(move || handle.shutdown());
        }
    }

    /// Stalls (True) or resumes (False) every connection: a stalled device reads and answers
    /// nothing, like a hung phone (for testing clients' timeouts).
    fn set_stalled(&self, stalled: bool) -> PyResult<()> {
        self.with_handle(|h| h.set_stalled(stalled))
    }

    /// Protocol errors of connections so far (malformed packets, oversized payloads), oldest first.
    fn errors(&self) -> PyResult<Vec<String>> {
        self.with_handle(ServerHandle::errors)
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
        format!("AdbServer({}:{}, {state})", self.host, self.port)
    }
}

fn client(host: &str, port: u16, timeout: f64) -> PyResult<AdbClient> {
    if !(timeout.is_finite() && timeout > 0.0 && timeout <= 3600.0) {
        return Err(ConfigError::new_err(format!("timeout must be in (0, 3600] seconds, not {timeout}")));
    }
    let client = AdbClient::new((host, port)).map_err(adb_error)?;
    Ok(client.with_timeout(Duration::from_secs_f64(timeout)))
}

fn not_supported(what: &str) -> PyErr {
    NotSupportedOnRealDevice::new_err(format!("{what} needs the mock phone's state, which a device behind ADB does not expose"))
}

/// A phone behind an adb server (a real device, an emulator, or a mock served with
/// `Phone.serve_adb`), with `Phone`'s observations and canonical actions. Every call releases
/// the GIL and has a deadline (`timeout` seconds, plus an action's own duration); failures
/// raise `DeviceError` subclasses. `state`, `state_hash`, `snapshot`, `fork` and `restore`
/// raise `NotSupportedOnRealDevice`.
#[pyclass(module = "phoneworld", name = "AdbPhone")]
pub(crate) struct AdbPhone {
    phone: phoneworld_adb::AdbPhone,
    steps: AtomicU64,
}

impl AdbPhone {
    fn call<T: Send>(&self, py: Python<'_>, f: impl FnOnce(&phoneworld_adb::AdbPhone) -> Result<T, AdbError> + Send) -> PyResult<T> {
        let phone = &self.phone;
        py.detach(move || f(phone)).map_err(adb_error)
    }
}

#[pymethods]
impl AdbPhone {
    /// Connects to device `serial` of the adb server at `host:port`. With `connect=True` the
    /// server is first asked to `adb connect` the serial (a `HOST:PORT` TCP device) and the
    /// device is awaited for up to `timeout` seconds (a device that keeps refusing the key
    /// raises DeviceUnauthorized once that time has passed).
    #[new]
    #[pyo3(signature = (serial, host="127.0.0.1", port=5037, timeout=10.0, connect=false))]
    fn new(py: Python<'_>, serial: String, host: &str, port: u16, timeout: f64, connect: bool) -> PyResult<AdbPhone> {
        let client = client(host, port, timeout)?;
        let phone = py
            .detach(move || {
                if connect {
                    // adb reports a device that asks for a key as "failed to authenticate",
                    // yet it comes online once it accepts the key (or a user taps Allow):
                    // wait for it either way.
                    match client.connect_device(&serial) {
                        Ok(_) | Err(AdbError::DeviceUnauthorized { .. }) => {}
                        Err(e) => return Err(e),
                    }
                    client.wait_for_device(&serial, client.timeout())?;
                }
                phoneworld_adb::AdbPhone::connect(&client, &serial)
            })
            .map_err(adb_error)?;
        Ok(AdbPhone { phone, steps: AtomicU64::new(0) })
    }

    /// The device's serial.
    #[getter]
    fn serial(&self) -> String {
        self.phone.serial().to_owned()
    }

    /// (width, height) in pixels (`wm size`; the override size when set).
    #[getter]
    fn size(&self) -> (u32, u32) {
        self.phone.screen_size()
    }

    /// Is the device a PhoneWorld mock (answers and finishes then reach its verifier)?
    #[getter]
    fn is_phoneworld(&self) -> bool {
        self.phone.is_phoneworld()
    }

    /// Performs one canonical action (a dict or its JSON) with one shell command. Returns
    /// {"ok", "note", "command", "status", "stdout", "stderr", "step"}; a command that fails
    /// on the device (non-zero status, an app that does not exist) gives ok=False with the
    /// reason in note. Raises ActionError for a malformed action, DeviceError subclasses when
    /// the device cannot be reached, NotSupportedOnRealDevice for answer/finish on a real phone.
    fn step<'py>(&self, py: Python<'py>, action: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let action = action_from_py(action).map_err(ActionError::new_err)?;
        let outcome = py.detach(|| self.phone.step(&action));
        let step = self.steps.fetch_add(1, Ordering::SeqCst) + 1;
        let dict = PyDict::new(py);
        match outcome {
            Ok(done) => {
                dict.set_item("ok", true)?;
                dict.set_item("note", py.None())?;
                dict.set_item("command", done.command)?;
                dict.set_item("status", done.result.status)?;
                dict.set_item("stdout", done.result.stdout_text())?;
                dict.set_item("stderr", done.result.stderr_text())?;
            }
            Err(AdbError::CommandFailed { command, status, stderr }) => {
                dict.set_item("ok", false)?;
                dict.set_item("note", format!("`{command}` exited with status {status}: {stderr}"))?;
                dict.set_item("command", command)?;
                dict.set_item("status", status)?;
                dict.set_item("stdout", "")?;
                dict.set_item("stderr", stderr)?;
            }
            Err(err) => return Err(adb_error(err)),
        }
        dict.set_item("step", step)?;
        Ok(dict)
    }

    /// The screen as an (H, W, 3) uint8 array (`screencap -p`, decoded); with width and/or
    /// height, downscaled.
    #[pyo3(signature = (width=None, height=None))]
    fn screenshot<'py>(&self, py: Python<'py>, width: Option<u32>, height: Option<u32>) -> PyResult<Bound<'py, PyArray3<u8>>> {
        let frame = self.call(py, |p| p.screenshot())?;
        let size = obs_size((frame.width, frame.height), width, height)?;
        let rgb = py.detach(move || {
            let frame =
                if (frame.width, frame.height) == (size.width, size.height) { frame } else { frame.downscale(size.width, size.height) };
            pack_rgb(&frame.pixels)
        });
        rgb_array(py, rgb, ObsSize { width: size.width, height: size.height })
    }

    /// The screen as the device's PNG bytes (`exec:screencap -p`).
    fn screenshot_png<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let png = self.call(py, |p| p.screenshot_png())?;
        Ok(PyBytes::new(py, &png))
    }

    /// The UI elements (the same dicts as `Phone.ui_elements`), from `uiautomator dump`.
    fn ui_elements<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let elements = self.call(py, |p| p.ui_elements())?;
        ui_elements_to_py(py, &elements)
    }

    /// The `uiautomator dump` XML.
    fn ui_xml(&self, py: Python<'_>) -> PyResult<String> {
        self.call(py, |p| p.ui_xml())
    }

    /// (package, activity) in the foreground (`dumpsys window`).
    fn foreground(&self, py: Python<'_>) -> PyResult<(String, String)> {
        let app = self.call(py, |p| p.foreground())?;
        Ok((app.package, app.activity))
    }

    /// Runs a shell command (shell protocol v2): {"status", "stdout", "stderr"}. `timeout`
    /// overrides the phone's for this call.
    #[pyo3(signature = (command, timeout=None))]
    fn shell<'py>(&self, py: Python<'py>, command: &str, timeout: Option<f64>) -> PyResult<Bound<'py, PyDict>> {
        let timeout = match timeout {
            Some(t) if t.is_finite() && t > 0.0 && t <= 3600.0 => Duration::from_secs_f64(t),
            Some(t) => return Err(ConfigError::new_err(format!("timeout must be in (0, 3600] seconds, not {t}"))),
            None => self.phone.device().client().timeout(),
        };
        let out = self.call(py, |p| p.device().shell_with_timeout(command, timeout))?;
        let dict = PyDict::new(py);
        dict.set_item("status", out.status)?;
        dict.set_item("stdout", out.stdout_text())?;
        dict.set_item("stderr", out.stderr_text())?;
        Ok(dict)
    }

    fn state(&self) -> PyResult<()> {
        Err(not_supported("state()"))
    }

    fn state_hash(&self) -> PyResult<()> {
        Err(not_supported("state_hash()"))
    }

    fn snapshot(&self) -> PyResult<()> {
        Err(not_supported("snapshot()"))
    }

    fn fork(&self) -> PyResult<()> {
        Err(not_supported("fork()"))
    }

    #[staticmethod]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn restore(_args: &Bound<'_, pyo3::types::PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        Err(not_supported("restore()"))
    }

    fn __repr__(&self) -> String {
        let (w, h) = self.phone.screen_size();
        format!("AdbPhone({}, {w}x{h}, server={})", self.phone.serial(), self.phone.device().client().addr())
    }
}

/// `adb connect HOST:PORT` through the adb server at `host:port`; returns its message.
#[pyfunction]
#[pyo3(signature = (address, host="127.0.0.1", port=5037, timeout=10.0))]
fn adb_connect(py: Python<'_>, address: String, host: &str, port: u16, timeout: f64) -> PyResult<String> {
    let client = client(host, port, timeout)?;
    py.detach(move || client.connect_device(&address)).map_err(adb_error)
}

/// `adb disconnect HOST:PORT`.
#[pyfunction]
#[pyo3(signature = (address, host="127.0.0.1", port=5037, timeout=10.0))]
fn adb_disconnect(py: Python<'_>, address: String, host: &str, port: u16, timeout: f64) -> PyResult<String> {
    let client = client(host, port, timeout)?;
    py.detach(move || client.disconnect_device(&address)).map_err(adb_error)
}

/// The devices the adb server knows, as (serial, state) pairs.
#[pyfunction]
#[pyo3(signature = (host="127.0.0.1", port=5037, timeout=10.0))]
fn adb_devices(py: Python<'_>, host: &str, port: u16, timeout: f64) -> PyResult<Vec<(String, String)>> {
    let client = client(host, port, timeout)?;
    let devices = py.detach(move || client.devices()).map_err(adb_error)?;
    Ok(devices.into_iter().map(|d| (d.serial, d.state)).collect())
}

/// One check as plain data, with its parameters filled in. `ui_observable`: it can be decided
/// from what any Android device shows and from what the agent said: the foreground app
/// (a screen check without a screen name), the answer, the finish status.
fn check_json(check: &Check, params: &Params) -> Value {
    let filled = |text: &str| fill(text, params).unwrap_or_else(|_| text.to_owned());
    let children = |checks: &[Check]| checks.iter().map(|c| check_json(c, params)).collect::<Vec<_>>();
    let all_observable = |items: &[Value]| items.iter().all(|c| c["ui_observable"] == Value::Bool(true));
    match check {
        // Screen names are the mock's own; a real device shows only the app (package).
        Check::Screen { app, screen } => {
            json!({"kind": "screen", "app": app, "screen": screen, "ui_observable": screen.is_none()})
        }
        Check::Answer(text) => json!({"kind": "answer", "text": filled(text), "ui_observable": true}),
        Check::Finished(status) => json!({"kind": "finished", "status": status, "ui_observable": true}),
        Check::All(checks) => {
            let items = children(checks);
            json!({"kind": "all", "ui_observable": all_observable(&items), "checks": items})
        }
        Check::Any(checks) => {
            let items = children(checks);
            json!({"kind": "any", "ui_observable": all_observable(&items), "checks": items})
        }
        Check::Not(inner) => {
            let item = check_json(inner, params);
            json!({"kind": "not", "ui_observable": item["ui_observable"], "check": item})
        }
        Check::Exists { app, path, .. } => json!({"kind": "exists", "app": app, "path": path, "ui_observable": false}),
        Check::Absent { app, path, .. } => json!({"kind": "absent", "app": app, "path": path, "ui_observable": false}),
        Check::Equals { app, path, .. } => json!({"kind": "equals", "app": app, "path": path, "ui_observable": false}),
        Check::Contains { app, path, .. } => json!({"kind": "contains", "app": app, "path": path, "ui_observable": false}),
        Check::Count { app, path, .. } => json!({"kind": "count", "app": app, "path": path, "ui_observable": false}),
    }
}

/// A task instance's checks as data: {"task", "seed", "instruction", "apps", "max_steps",
/// "success": [check], "subgoals": [{"name", "check"}], "ui_observable"}. Each check has a
/// `kind` and `ui_observable`; answer and finished checks, screen checks naming only the app,
/// and all/any/not of those are UI-observable; app-data checks and screen names are not. `ui_observable` at the top: every success check is.
#[pyfunction]
#[pyo3(signature = (task, seed=0, params=None, suite_name="phoneworld-v0", suite_dirs=Vec::new(), apps_dirs=Vec::new()))]
fn task_checks<'py>(
    py: Python<'py>,
    task: String,
    seed: u64,
    params: Option<&Bound<'py, PyDict>>,
    suite_name: &str,
    suite_dirs: Vec<PathBuf>,
    apps_dirs: Vec<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let instance = resolve_instance(&task, seed, params, suite_name, &suite_dirs, &apps_dirs)?;
    let t = &instance.template;
    let success: Vec<Value> = t.success.iter().map(|c| check_json(c, &instance.params)).collect();
    let observable = success.iter().all(|c| c["ui_observable"] == Value::Bool(true));
    let subgoals: Vec<Value> =
        t.subgoals.iter().map(|g| json!({"name": g.name, "check": check_json(&g.check, &instance.params)})).collect();
    to_py(
        py,
        &json!({
            "task": t.id, "seed": instance.seed, "params": instance.params, "instruction": instance.instruction,
            "apps": t.apps, "max_steps": t.max_steps, "success": success, "subgoals": subgoals, "ui_observable": observable,
        }),
    )
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("DeviceNotFound", py.get_type::<DeviceNotFound>())?;
    m.add("DeviceOffline", py.get_type::<DeviceOffline>())?;
    m.add("DeviceUnauthorized", py.get_type::<DeviceUnauthorized>())?;
    m.add("DeviceTimeout", py.get_type::<DeviceTimeout>())?;
    m.add("DeviceDisconnected", py.get_type::<DeviceDisconnected>())?;
    m.add_class::<AdbServer>()?;
    m.add_class::<AdbPhone>()?;
    m.add_function(wrap_pyfunction!(adb_connect, m)?)?;
    m.add_function(wrap_pyfunction!(adb_disconnect, m)?)?;
    m.add_function(wrap_pyfunction!(adb_devices, m)?)?;
    m.add_function(wrap_pyfunction!(task_checks, m)?)?;
    Ok(())
}
