//! One episode: a fresh phone, the task's setup, an agent's actions, and the verdict.

use std::sync::Arc;

use phoneworld_agents::{step_recorded, Monkey, TrajectoryWriter};
use phoneworld_data::{valuepath, Action};
use phoneworld_phone::{Catalog, Device, DeviceConfig, EpisodeOptions, InterruptionSetting, Planned};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::params::{fill, fill_json, instantiate, Params};
use crate::solve::Oracle;
use crate::template::{Setup, TaskTemplate};
use crate::verify::{app_data, changed_paths, collateral, holds};
use crate::TaskError;

/// Who plays the episode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentKind {
    /// Plays the reference solution.
    Oracle,
    /// Does nothing.
    Noop,
    /// Seeded random taps, swipes, keys and typing for the step budget.
    Random,
    /// Reads the tree but never the pixels: plays the reference solution, choosing pictures
    /// and answering what they show from the tree and the instruction alone.
    TreeOnly,
}

impl AgentKind {
    pub fn parse(name: &str) -> Option<AgentKind> {
        Some(match name {
            "oracle" => AgentKind::Oracle,
            "noop" => AgentKind::Noop,
            "random" => AgentKind::Random,
            "tree-only" => AgentKind::TreeOnly,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            AgentKind::Oracle => "oracle",
            AgentKind::Noop => "noop",
            AgentKind::Random => "random",
            AgentKind::TreeOnly => "tree-only",
        }
    }
}

/// A task instance ready to play: its parameters and instruction.
#[derive(Debug, Clone)]
pub struct Instance {
    pub template: Arc<TaskTemplate>,
    pub seed: u64,
    pub params: Params,
    pub instruction: String,
    /// How the phone is built and played beyond the task: its appearance and its seeded
    /// interruptions.
    pub options: EpisodeOptions,
}

impl Instance {
    pub fn new(template: Arc<TaskTemplate>, seed: u64, catalog: &Catalog) -> Result<Instance, TaskError> {
        let params = instantiate(&template, seed, catalog)?;
        let instruction = fill(&template.instruction, &params).map_err(|e| TaskError::template(&template.id, "instruction", &e))?;
        Ok(Instance { template, seed, params, instruction, options: EpisodeOptions::default() })
    }

    /// The same instance, interrupted as `setting` says (kept in its options).
    pub fn with_interruptions(mut self, setting: InterruptionSetting) -> Instance {
        self.options.interruptions = setting;
        self
    }

    /// Which interruptions arrive after which step, drawn from the seed.
    pub fn interruption_plan(&self) -> Vec<Planned> {
        self.options.interruptions.plan(self.seed, self.template.max_steps)
    }

    /// The step budget: the template's, plus one step per interruption (the step it takes to
    /// answer it), so an interrupted task stays as solvable as it was.
    pub fn max_steps(&self) -> u32 {
        self.template.max_steps + self.interruption_plan().len() as u32
    }

    /// An instance whose parameters are drawn from `seed`, then replaced by `overrides`
    /// (each must name a parameter of the template).
    pub fn with_params(template: Arc<TaskTemplate>, seed: u64, catalog: &Catalog, overrides: &Params) -> Result<Instance, TaskError> {
        let mut params = instantiate(&template, seed, catalog)?;
        for (name, value) in overrides {
            if !params.contains_key(name) {
                let known: Vec<&str> = params.keys().map(String::as_str).collect();
                return Err(TaskError::template(
                    &template.id,
                    &format!("params.{name}"),
                    &format!("no such parameter (known: {})", known.join(", ")),
                ));
            }
            params.insert(name.clone(), value.clone());
        }
        let instruction = fill(&template.instruction, &params).map_err(|e| TaskError::template(&template.id, "instruction", &e))?;
        Ok(Instance { template, seed, params, instruction, options: EpisodeOptions::default() })
    }

    /// This instance played with `options` (an appearance, interruptions).
    pub fn with_options(self, options: EpisodeOptions) -> Instance {
        Instance { options, ..self }
    }

    /// A phone with the task's setup applied.
    pub fn device(&self, catalog: Arc<Catalog>) -> Result<Device, TaskError> {
        self.device_with(catalog, DeviceConfig::default())
    }

    /// A phone of the given configuration (its seed replaced by the instance's, its screen by
    /// the instance's appearance) with the task's setup applied.
    pub fn device_with(&self, catalog: Arc<Catalog>, config: DeviceConfig) -> Result<Device, TaskError> {
        let mut device = self
            .options
            .device(catalog, DeviceConfig { seed: self.seed, ..config })
            .map_err(|e| TaskError::Setup { task: self.template.id.clone(), message: e.to_string() })?;
        let fail = |field: &str, m: String| TaskError::template(&self.template.id, field, &m);
        for (i, step) in self.template.setup.iter().enumerate() {
            let field = format!("setup[{i}]");
            match step {
                Setup::Set { app, path, value } | Setup::Insert { app, path, value, .. } => {
                    let value = fill_json(value, &self.params).map_err(|e| fail(&field, e))?;
                    let store = device.store_mut();
                    let root = if app == "system" {
                        &mut store.system
                    } else {
                        if !store.apps.contains_key(app) {
                            return Err(fail(&field, format!("app `{app}` is not installed")));
                        }
                        store.app_mut(app)
                    };
                    // Paths may name parameters: `looks.{p.index}`.
                    let path = fill(path, &self.params).map_err(|e| fail(&field, e))?;
                    let segs = valuepath::split(&path);
                    let value = match step {
                        Setup::Insert { at, .. } => {
                            let found = valuepath::lookup(root, &segs).map_err(|e| fail(&field, e.to_string()))?;
                            let mut list = found.and_then(Value::as_array).cloned().unwrap_or_default();
                            // `at` is a position counted from 1, as in paths: 1 inserts first.
                            let index = match at {
                                None => list.len(),
                                Some(p) if (1..=list.len() + 1).contains(p) => p - 1,
                                Some(p) => {
                                    return Err(fail(
                                        &field,
                                        format!("`at: {p}`: positions count from 1; `{path}` has {} elements", list.len()),
                                    ))
                                }
                            };
                            list.insert(index, value);
                            Value::Array(list)
                        }
                        _ => value,
                    };
                    valuepath::set(root, &segs, value).map_err(|e| fail(&field, e.to_string()))?;
                }
                Setup::Open { app, screen, params } => {
                    let r = device.step(&Action::OpenApp { app: app.clone() });
                    if let Some(note) = r.note {
                        return Err(fail(&field, note));
                    }
                    if let Some(screen) = screen {
                        let params = fill_json(params, &self.params).map_err(|e| fail(&field, e))?;
                        device.open_screen(app, screen, params).map_err(|e| fail(&field, e))?;
                    }
                }
                Setup::Clipboard(text) => {
                    let text = fill(text, &self.params).map_err(|e| fail(&field, e))?;
                    device.store_mut().session.clipboard = text;
                }
            }
        }
        // Counted from the agent's first action, after the setup's own steps.
        device.schedule_interruptions(&self.interruption_plan());
        Ok(device)
    }
}

/// The verdict of an episode.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct EpisodeResult {
    pub template: String,
    pub category: String,
    pub seed: u64,
    pub instruction: String,
    pub success: bool,
    pub steps: u32,
    /// Why it failed: the step where it went wrong and the reason.
    pub failure: Option<Failure>,
    pub subgoals: Vec<(String, bool)>,
    pub collateral: Vec<String>,
    pub state_hash: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Failure {
    pub step: u32,
    pub reason: String,
}

/// What the verifier says about a finished device.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub success: bool,
    /// The first check that failed, or the collateral damage.
    pub reason: Option<String>,
    /// App data changed outside what the task allows.
    pub collateral: Vec<String>,
    pub subgoals: Vec<(String, bool)>,
}

/// Checks success and collateral damage on a finished device.
pub fn judge(instance: &Instance, device: &Device, baseline: &Value) -> Verdict {
    let t = &instance.template;
    let mut reason = None;
    for (i, check) in t.success.iter().enumerate() {
        match holds(check, device, &instance.params) {
            Ok(true) => {}
            Ok(false) => {
                reason = Some(format!("success[{i}] does not hold: {check:?}"));
                break;
            }
            Err(e) => {
                reason = Some(format!("success[{i}]: {e}"));
                break;
            }
        }
    }
    // Allowances may name parameters: `com.x:events.{index}`.
    let allow: Vec<String> = t.allow.iter().map(|a| crate::params::fill(a, &instance.params).unwrap_or_else(|_| a.clone())).collect();
    let damage = collateral(&changed_paths(baseline, &app_data(device)), &allow);
    if reason.is_none() && !damage.is_empty() {
        reason = Some(format!("changed app data the task does not allow: {}", damage.join(", ")));
    }
    let subgoals = t.subgoals.iter().map(|g| (g.name.clone(), holds(&g.check, device, &instance.params).unwrap_or(false))).collect();
    Verdict { success: reason.is_none(), reason, collateral: damage, subgoals }
}

/// Plays one episode with a built-in agent, optionally writing its trajectory.
pub fn run_episode(
    catalog: Arc<Catalog>,
    instance: &Instance,
    agent: AgentKind,
    writer: Option<&mut TrajectoryWriter>,
) -> Result<EpisodeResult, TaskError> {
    let (steps, params) = (instance.template.solution.clone(), instance.params.clone());
    let mut oracle = match agent {
        AgentKind::TreeOnly => Oracle::tree_only(steps, params, &instance.instruction, instance.seed),
        _ => Oracle::new(steps, params),
    };
    let mut monkey = Monkey::new(instance.seed ^ 0x5eed, None);
    let mut next = |device: &mut Device| -> Result<Option<Action>, String> {
        match agent {
            AgentKind::Noop => Ok(None),
            AgentKind::Random => Ok(Some(monkey.next_action(device))),
            AgentKind::Oracle | AgentKind::TreeOnly => oracle.next_action(device),
        }
    };
    play(catalog, instance, &mut next, agent == AgentKind::Oracle, writer)
}

/// Plays one episode with any agent (`next` returns the next action, `None` to stop, or why it
/// cannot go on). `strict`: a script error or a leftover step counts as the agent's failure.
pub fn play(
    catalog: Arc<Catalog>,
    instance: &Instance,
    next: &mut dyn FnMut(&mut Device) -> Result<Option<Action>, String>,
    strict: bool,
    mut writer: Option<&mut TrajectoryWriter>,
) -> Result<EpisodeResult, TaskError> {
    let mut device = instance.device(catalog)?;
    let baseline = app_data(&device);
    let mut steps = 0u32;
    let mut failure: Option<Failure> = None;
    let mut exhausted = false;
    loop {
        if steps >= instance.max_steps() {
            exhausted = true;
            break;
        }
        let action = match next(&mut device) {
            Ok(Some(a)) => a,
            Ok(None) => break,
            Err(reason) => {
                failure = Some(Failure { step: steps, reason });
                break;
            }
        };
        let result = step_recorded(&mut device, &action, writer.as_deref_mut()).map_err(|e| TaskError::Io(e.to_string()))?;
        steps += 1;
        if let Some(err) = result.script_errors.first() {
            if failure.is_none() && strict {
                failure = Some(Failure { step: steps, reason: format!("script error: {err}") });
            }
        }
        if matches!(action, Action::Finish { .. }) {
            break;
        }
    }
    if strict && exhausted && failure.is_none() && next(&mut device.fork()).ok().flatten().is_some() {
        failure = Some(Failure { step: steps, reason: format!("step budget of {} ran out", instance.max_steps()) });
    }
    let Verdict { success, reason, collateral: damage, subgoals } = judge(instance, &device, &baseline);
    let failure = match (success, failure, reason) {
        (true, _, _) => None,
        (false, Some(f), _) => Some(f),
        (false, None, Some(r)) => Some(Failure { step: steps, reason: r }),
        (false, None, None) => None,
    };
    Ok(EpisodeResult {
        template: instance.template.id.clone(),
        category: instance.template.category.name().to_owned(),
        seed: instance.seed,
        instruction: instance.instruction.clone(),
        success,
        steps,
        failure,
        subgoals,
        collateral: damage,
        state_hash: device.state_hash(),
    })
}
