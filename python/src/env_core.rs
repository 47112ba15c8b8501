//! `_core.EnvCore`: one task episode for the Python Gymnasium env (`phoneworld.PhoneEnv`).

use std::path::PathBuf;

use numpy::PyArray3;
use phoneworld_agents::{ImageOptions, TrajectoryWriter};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::convert::{actions_from_py, to_json, to_py};
use crate::episode::{Episode, StepOutcome, Suspended, TaskChoice};
use crate::errors::{task_error, ConfigError, PhoneWorldError, SnapshotError};
use crate::frame::rgb_array;
use crate::observe::{info_to_py, EnvObs};
use crate::settings::{Settings, SettingsArgs};

#[pyclass(module = "phoneworld._core")]
pub(crate) struct EnvCore {
    settings: Settings,
    episode: Episode,
}

type Observed<'py> = (Option<Bound<'py, PyArray3<u8>>>, String, Option<String>, Bound<'py, PyDict>);

pub(crate) fn task_choice(task: Option<String>, params: Option<&Bound<'_, PyDict>>) -> PyResult<TaskChoice> {
    let mut choice = TaskChoice { task, ..TaskChoice::default() };
    if let Some(params) = params {
        for (k, v) in params.iter() {
            choice.params.insert(k.extract::<String>()?, to_json(&v)?);
        }
    }
    Ok(choice)
}

/// The `interruptions` option, or a `ConfigError` naming what is wrong with it.
pub(crate) fn interruption_setting(text: Option<&str>) -> PyResult<phoneworld_phone::InterruptionSetting> {
    text.map_or(Ok(Default::default()), |t| {
        phoneworld_phone::InterruptionSetting::parse(t).map_err(|e| ConfigError::new_err(e.to_string()))
    })
}

impl EnvCore {
    fn observed<'py>(&mut self, py: Python<'py>, outcome: Option<&StepOutcome>) -> PyResult<Observed<'py>> {
        let config = self.settings.obs;
        let episode = &mut self.episode;
        let (pixels, obs): (Option<Vec<u8>>, EnvObs) = py.detach(|| {
            let pixels = config.screenshot.map(|size| episode.render_rgb(size));
            (pixels, episode.observe(&config, None))
        });
        let array = match (config.screenshot, pixels) {
            (Some(size), Some(pixels)) => Some(rgb_array(py, pixels, size)?),
            _ => None,
        };
        let info = info_to_py(py, &obs, outcome)?;
        Ok((array, obs.instruction, obs.ui_tree, info))
    }
}

#[pymethods]
impl EnvCore {
    #[new]
    fn new(settings: SettingsArgs) -> PyResult<EnvCore> {
        let settings = Settings::load(settings)?;
        let episode = settings.episode();
        Ok(EnvCore { settings, episode })
    }

    /// Starts an episode: `task` None draws one from the suite by the seed; `appearance` (a
    /// profile or "random") overrides the env's for this episode; `interruptions` is off, on,
    /// a count or kind@step,... (seeded by `seed`).
    #[pyo3(signature = (seed, task=None, params=None, appearance=None, interruptions=None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: u64,
        task: Option<String>,
        params: Option<&Bound<'py, PyDict>>,
        appearance: Option<String>,
        interruptions: Option<&str>,
    ) -> PyResult<Observed<'py>> {
        let mut choice = task_choice(task, params)?;
        choice.appearance = appearance;
        choice.interruptions = interruption_setting(interruptions)?;
        let episode = &mut self.episode;
        py.detach(|| episode.reset(&choice, seed)).map_err(task_error)?;
        self.observed(py, None)
    }

    /// Back to the current task's start state without running its setup again.
    fn restart<'py>(&mut self, py: Python<'py>) -> PyResult<Observed<'py>> {
        if self.episode.instance().is_none() {
            return Err(PhoneWorldError::new_err("no episode to restart: call reset() first"));
        }
        self.episode.restart();
        self.observed(py, None)
    }

    /// Restarts without observing (the fast path for rollout groups).
    fn restart_only(&mut self) {
        self.episode.restart();
    }

    /// One step. `action` is a canonical dict (or None when it could not be parsed, with the
    /// reason in `action_error`). Returns (pixels, instruction, ui_tree, reward, terminated,
    /// truncated, info).
    #[pyo3(signature = (action, action_error=None))]
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        action: Option<&Bound<'py, PyAny>>,
        action_error: Option<String>,
    ) -> PyResult<(Option<Bound<'py, PyArray3<u8>>>, String, Option<String>, f64, bool, bool, Bound<'py, PyDict>)> {
        let action = match (action, action_error) {
            (_, Some(err)) => Err(err),
            (Some(a), None) => actions_from_py(a),
            (None, None) => Err("no action".to_owned()),
        };
        let episode = &mut self.episode;
        let outcome = py.detach(|| episode.step(action));
        let (pixels, instruction, tree, info) = self.observed(py, Some(&outcome))?;
        Ok((pixels, instruction, tree, outcome.reward, outcome.terminated, outcome.truncated, info))
    }

    /// The reference solution's next canonical action (None when it is done). Raises
    /// PhoneWorldError when the solution cannot continue from this state.
    fn expert_action<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let episode = &mut self.episode;
        let action = py.detach(|| episode.expert_action()).map_err(PhoneWorldError::new_err)?;
        action.map(|a| to_py(py, &a.to_json())).transpose()
    }

    /// The finished (or current) episode as `phoneworld eval` reports it.
    fn result<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let result = self.episode.result().ok_or_else(|| PhoneWorldError::new_err("no episode: call reset() first"))?;
        to_py(py, &serde_json::to_value(result).unwrap_or_default())
    }

    /// Starts writing this episode's trajectory to `dir` (the layout of `phoneworld rollouts`).
    #[pyo3(signature = (dir, images=true))]
    fn start_recording(&mut self, dir: PathBuf, images: bool) -> PyResult<()> {
        let writer = TrajectoryWriter::with_images(&dir, images.then(ImageOptions::default))
            .map_err(|e| ConfigError::new_err(format!("{}: {e}", dir.display())))?;
        self.episode.writer = Some(writer);
        Ok(())
    }

    /// Writes `episode.json` and closes the trajectory.
    fn finish_recording(&mut self) -> PyResult<()> {
        let Some(writer) = self.episode.writer.take() else { return Ok(()) };
        let record = self.episode.record().unwrap_or_default();
        writer.finish(&record).map_err(|e| PhoneWorldError::new_err(e.to_string()))
    }

    /// The phone's snapshot bytes.
    fn snapshot<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let device = self.episode.device.as_ref().ok_or_else(|| PhoneWorldError::new_err("no episode: call reset() first"))?;
        Ok(PyBytes::new(py, &device.snapshot()))
    }

    fn state_hash(&self) -> PyResult<String> {
        let device = self.episode.device.as_ref().ok_or_else(|| PhoneWorldError::new_err("no episode: call reset() first"))?;
        Ok(device.state_hash())
    }

    /// An independent copy of the episode in flight.
    fn fork(&self) -> EnvCore {
        EnvCore { settings: self.settings.clone(), episode: self.episode.fork() }
    }

    /// The episode in flight as plain data (None before the first reset).
    fn suspend<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.episode.suspend().map(|state| suspended_to_py(py, &state)).transpose()
    }

    /// Continues an episode from `suspend()`'s data.
    fn resume(&mut self, py: Python<'_>, state: &Bound<'_, PyDict>) -> PyResult<()> {
        let suspended = suspended_from_py(state)?;
        let episode = &mut self.episode;
        py.detach(|| episode.resume(&suspended)).map_err(SnapshotError::new_err)
    }

    /// The step budget of the current task.
    #[getter]
    fn max_steps(&self) -> u32 {
        self.episode.step_budget()
    }

    /// The phone's (width, height) in pixels: the episode's, which its appearance may set.
    #[getter]
    fn device_size(&self) -> (u32, u32) {
        let (width, height, _) = self.episode.device_size();
        (width, height)
    }

    /// The appearance of the episode in play (its settings as `episode.json` records them), None without one.
    fn appearance<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let Some(instance) = self.episode.instance() else { return Ok(None) };
        instance.options.appearance.as_ref().map(|a| to_py(py, &serde_json::to_value(a).unwrap_or_default())).transpose()
    }

    /// The observed screenshot's (width, height), None when screenshots are off.
    #[getter]
    fn obs_size(&self) -> Option<(u32, u32)> {
        self.settings.obs.screenshot.map(|s| (s.width, s.height))
    }

    #[getter]
    fn suite_name(&self) -> String {
        self.settings.suite.name.clone()
    }
}

pub(crate) fn suspended_to_py<'py>(py: Python<'py>, state: &Suspended) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("task", state.choice.task.as_deref())?;
    dict.set_item("params", to_py(py, &serde_json::to_value(&state.choice.params).unwrap_or_default())?)?;
    dict.set_item("appearance", state.choice.appearance.as_deref())?;
    dict.set_item("seed", state.seed)?;
    dict.set_item("steps", state.steps)?;
    dict.set_item("done", state.done)?;
    dict.set_item("snapshot", PyBytes::new(py, &state.snapshot))?;
    dict.set_item("interruptions", state.choice.interruptions.to_string())?;
    Ok(dict)
}

pub(crate) fn suspended_from_py(state: &Bound<'_, PyDict>) -> PyResult<Suspended> {
    let get = |key: &str| state.get_item(key)?.ok_or_else(|| SnapshotError::new_err(format!("episode state has no `{key}`")));
    let params = get("params")?;
    let mut choice = task_choice(get("task")?.extract()?, Some(params.cast::<PyDict>()?))?;
    choice.appearance = state.get_item("appearance")?.map(|a| a.extract::<Option<String>>()).transpose()?.flatten();
    // Pickles from before interruptions existed have none.
    let interruptions: Option<String> = state.get_item("interruptions")?.map(|v| v.extract()).transpose()?;
    choice.interruptions = interruption_setting(interruptions.as_deref())?;
    Ok(Suspended {
        choice,
        seed: get("seed")?.extract()?,
        steps: get("steps")?.extract()?,
        done: get("done")?.extract()?,
        snapshot: get("snapshot")?.extract()?,
    })
}
