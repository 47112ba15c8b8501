//! What an env observes after reset or step, gathered off the GIL and converted afterwards.

use phoneworld_data::UiElement;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;

use crate::convert::{to_py, ui_elements_to_py};
use crate::episode::{Episode, StepOutcome};
use crate::frame::ObsSize;

/// What the observation and info hold; without a screenshot no frame is rendered.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct ObsConfig {
    pub(crate) screenshot: Option<ObsSize>,
    pub(crate) ui_tree: bool,
    pub(crate) ui_elements: bool,
}

/// One env's observation (besides the pixels, which go straight into an array).
#[derive(Debug, Clone, Default)]
pub(crate) struct EnvObs {
    pub(crate) instruction: String,
    pub(crate) ui_tree: Option<String>,
    pub(crate) ui_elements: Option<Vec<UiElement>>,
    pub(crate) package: String,
    pub(crate) screen: String,
    pub(crate) step: u32,
    pub(crate) task: String,
    pub(crate) seed: u64,
    pub(crate) success: Option<bool>,
    pub(crate) subgoals: Vec<(String, bool)>,
}

impl Episode {
    /// Observes the phone; `pixels`, when given, receives the screenshot as RGB.
    pub(crate) fn observe(&mut self, config: &ObsConfig, pixels: Option<&mut [u8]>) -> EnvObs {
        if let (Some(size), Some(out)) = (config.screenshot, pixels) {
            self.render(size, out);
        }
        let (task, seed, instruction) = match self.instance() {
            Some(i) => (i.template.id.clone(), i.seed, i.instruction.clone()),
            None => Default::default(),
        };
        let mut obs = EnvObs {
            instruction,
            task,
            seed,
            step: self.steps,
            success: self.success,
            subgoals: self.subgoals.clone(),
            ..EnvObs::default()
        };
        if let Some(device) = self.device.as_mut() {
            (obs.package, obs.screen) = device.foreground();
            if config.ui_tree {
                obs.ui_tree = Some(device.ui_tree_text());
            }
            if config.ui_elements {
                obs.ui_elements = Some(device.ui_elements());
            }
        }
        obs
    }
}

/// The info dict of one env: UI elements, foreground app, step, success, sub-goals, and for a
/// step the parsed action and the action error.
pub(crate) fn info_to_py<'py>(py: Python<'py>, obs: &EnvObs, outcome: Option<&StepOutcome>) -> PyResult<Bound<'py, PyDict>> {
    let info = PyDict::new(py);
    if let Some(elements) = &obs.ui_elements {
        info.set_item("ui_elements", ui_elements_to_py(py, elements)?)?;
    }
    info.set_item("foreground_app", &obs.package)?;
    info.set_item("screen", &obs.screen)?;
    info.set_item("step", obs.step)?;
    info.set_item("task", &obs.task)?;
    info.set_item("seed", obs.seed)?;
    info.set_item("success", obs.success)?;
    let subgoals = PyDict::new(py);
    for (name, met) in &obs.subgoals {
        subgoals.set_item(name, *met)?;
    }
    info.set_item("subgoals", subgoals)?;
    let met = obs.subgoals.iter().filter(|(_, m)| *m).count();
    let progress = if obs.subgoals.is_empty() { 0.0 } else { met as f64 / obs.subgoals.len() as f64 };
    info.set_item("subgoal_progress", progress)?;
    // Always a dict (empty when the action could not be parsed) and always a list, so that
    // Gymnasium's vector envs can merge the infos of several envs.
    let (last, all): (Value, Vec<Value>) = match outcome.and_then(|o| o.parsed_action.as_ref()) {
        Some(Value::Array(actions)) => (actions.last().cloned().unwrap_or_default(), actions.clone()),
        Some(action) => (action.clone(), vec![action.clone()]),
        None => (Value::Object(Default::default()), Vec::new()),
    };
    info.set_item("parsed_action", to_py(py, &last)?)?;
    info.set_item("parsed_actions", to_py(py, &Value::Array(all))?)?;
    info.set_item("action_error", outcome.and_then(|o| o.action_error.as_deref()))?;
    info.set_item("note", outcome.and_then(|o| o.note.as_deref()))?;
    Ok(info)
}
