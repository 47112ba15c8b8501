//! One task episode on one phone: reset to a task's start state, step, judge. Shared by the
//! single env and the vector env; no Python here, so it runs on any thread.

use std::sync::Arc;

use phoneworld_agents::TrajectoryWriter;
use phoneworld_data::Action;
use phoneworld_phone::{Catalog, Device, DeviceConfig, EpisodeOptions, StepResult};
use phoneworld_tasks::{app_data, episode_record, holds, judge, EpisodeResult, Failure, Instance, Oracle, Params, Suite, TaskError};
use serde_json::Value;

use crate::frame::{render_into, render_rgb, ObsSize};

/// Which task an episode plays: a fixed template, or one drawn from the suite by the seed.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct TaskChoice {
    pub(crate) task: Option<String>,
    pub(crate) params: Params,
    /// The phone's look (a profile or `random`); None takes the env's.
    pub(crate) appearance: Option<String>,
    /// Seeded interruptions of the episode (`reset(options={"interruptions": ...})`).
    pub(crate) interruptions: phoneworld_phone::InterruptionSetting,
}

/// How rewards are paid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RewardMode {
    /// The verifier's 1 or 0 when the episode ends.
    Sparse,
    /// Also, every step, the change in the fraction of sub-goals that hold.
    Shaped,
}

/// What one step did, for the env's return values and `info`.
#[derive(Debug, Clone)]
pub(crate) struct StepOutcome {
    pub(crate) reward: f64,
    pub(crate) terminated: bool,
    pub(crate) truncated: bool,
    pub(crate) action_error: Option<String>,
    pub(crate) parsed_action: Option<Value>,
    pub(crate) note: Option<String>,
}

/// Where an episode's start state comes from, so resetting to the same task is a fork.
struct Start {
    key: (String, u64, Params, Option<String>),
    instance: Instance,
    device: Device,
    baseline: Value,
}

pub(crate) struct Episode {
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) suite: Arc<Suite>,
    pub(crate) config: DeviceConfig,
    pub(crate) reward_mode: RewardMode,
    /// Overrides the template's step budget.
    pub(crate) max_steps: Option<u32>,
    /// The look of every episode that does not name one.
    pub(crate) appearance: Option<String>,
    start: Option<Start>,
    pub(crate) device: Option<Device>,
    pub(crate) steps: u32,
    pub(crate) done: bool,
    subgoals_met: usize,
    pub(crate) success: Option<bool>,
    pub(crate) subgoals: Vec<(String, bool)>,
    failure: Option<Failure>,
    collateral: Vec<String>,
    /// The reference solution, followed from the start state.
    oracle: Option<Oracle>,
    pub(crate) writer: Option<TrajectoryWriter>,
}

/// The template a seed draws from a suite, always the same one.
pub(crate) fn drawn_template(suite: &Suite, seed: u64) -> usize {
    let hash = blake3::hash(format!("suite-draw#{seed}").as_bytes());
    let n = u64::from_le_bytes(hash.as_bytes()[..8].try_into().expect("8 bytes"));
    (n % suite.templates.len().max(1) as u64) as usize
}

impl Episode {
    pub(crate) fn new(catalog: Arc<Catalog>, suite: Arc<Suite>, config: DeviceConfig, reward_mode: RewardMode) -> Episode {
        Episode {
            catalog,
            suite,
            config,
            reward_mode,
            max_steps: None,
            appearance: None,
            start: None,
            device: None,
            steps: 0,
            done: false,
            subgoals_met: 0,
            success: None,
            subgoals: Vec::new(),
            failure: None,
            collateral: Vec::new(),
            oracle: None,
            writer: None,
        }
    }

    pub(crate) fn instance(&self) -> Option<&Instance> {
        self.start.as_ref().map(|s| &s.instance)
    }

    pub(crate) fn step_budget(&self) -> u32 {
        self.max_steps.or_else(|| self.instance().map(Instance::max_steps)).unwrap_or(30)
    }

    /// Starts an episode of `choice` with `seed`; the same task, seed and parameters as last
    /// time fork the kept start state instead of running the setup again.
    pub(crate) fn reset(&mut self, choice: &TaskChoice, seed: u64) -> Result<(), TaskError> {
        let template = match &choice.task {
            Some(id) => Arc::clone(self.suite.get(id).ok_or_else(|| {
                TaskError::Io(format!("no task `{id}` in suite `{}` (run `phoneworld tasks` for the list)", self.suite.name))
            })?),
            None => {
                let index = drawn_template(&self.suite, seed);
                Arc::clone(
                    self.suite.templates.get(index).ok_or_else(|| TaskError::Io(format!("suite `{}` has no tasks", self.suite.name)))?,
                )
            }
        };
        let appearance = choice.appearance.clone().or_else(|| self.appearance.clone());
        let key = (template.id.clone(), seed, choice.params.clone(), appearance.clone());
        if self.start.as_ref().is_none_or(|s| s.key != key || s.instance.options.interruptions != choice.interruptions) {
            // One options struct carries the look and the interruptions into the instance.
            let options = match &appearance {
                Some(name) => EpisodeOptions::with_appearance(name, seed).map_err(|e| TaskError::Io(e.to_string()))?,
                None => EpisodeOptions::default(),
            }
            .with_interruptions(choice.interruptions.clone());
            let instance = Instance::with_params(template, seed, &self.catalog, &choice.params)?.with_options(options);
            let device = instance.device_with(Arc::clone(&self.catalog), self.config)?;
            let baseline = app_data(&device);
            self.start = Some(Start { key, instance, device, baseline });
        }
        self.restart();
        Ok(())
    }

    /// Back to the start state of the current task (a fork of the kept phone).
    pub(crate) fn restart(&mut self) {
        let Some(start) = &self.start else { return };
        let mut device = start.device.fork();
        if let Some(old) = self.device.as_mut() {
            device.adopt_scripts(old);
        }
        self.device = Some(device);
        self.steps = 0;
        self.done = false;
        self.success = None;
        self.failure = None;
        self.collateral.clear();
        self.oracle = Some(Oracle::new(start.instance.template.solution.clone(), start.instance.params.clone()));
        self.subgoals = start.instance.template.subgoals.iter().map(|g| (g.name.clone(), false)).collect();
        self.subgoals_met = 0;
        self.update_subgoals();
    }

    fn update_subgoals(&mut self) -> f64 {
        let (Some(start), Some(device)) = (&self.start, &self.device) else { return 0.0 };
        let template = &start.instance.template;
        if template.subgoals.is_empty() {
            return 0.0;
        }
        self.subgoals =
            template.subgoals.iter().map(|g| (g.name.clone(), holds(&g.check, device, &start.instance.params).unwrap_or(false))).collect();
        let met = self.subgoals.iter().filter(|(_, ok)| *ok).count();
        let delta = (met as f64 - self.subgoals_met as f64) / template.subgoals.len() as f64;
        self.subgoals_met = met;
        delta
    }

    /// Applies one action (or counts a step for one that could not be parsed).
    pub(crate) fn step(&mut self, actions: Result<Vec<Action>, String>) -> StepOutcome {
        let mut outcome =
            StepOutcome { reward: 0.0, terminated: false, truncated: false, action_error: None, parsed_action: None, note: None };
        if self.done {
            outcome.action_error = Some("the episode is over: call reset()".into());
            outcome.terminated = true;
            return outcome;
        }
        if self.device.is_none() {
            outcome.action_error = Some("no episode: call reset() first".into());
            return outcome;
        }
        self.steps += 1;
        let finish = match actions {
            Ok(actions) => {
                outcome.parsed_action = Some(match actions.as_slice() {
                    [one] => one.to_json(),
                    many => Value::Array(many.iter().map(Action::to_json).collect()),
                });
                let mut finish = false;
                for action in &actions {
                    let (result, write_error) = match self.device.as_mut() {
                        Some(device) => apply(device, &mut self.writer, action),
                        None => break,
                    };
                    if !result.ok {
                        outcome.note = result.note.clone();
                    }
                    if let Some(err) = result.script_errors.first() {
                        outcome.note = Some(format!("script error: {err}"));
                    }
                    if write_error.is_some() {
                        outcome.note = write_error;
                    }
                    finish |= matches!(action, Action::Finish { .. });
                }
                finish
            }
            Err(reason) => {
                outcome.action_error = Some(reason);
                false
            }
        };
        let shaped = self.update_subgoals();
        if self.reward_mode == RewardMode::Shaped {
            outcome.reward += shaped;
        }
        outcome.terminated = finish;
        outcome.truncated = !finish && self.steps >= self.step_budget();
        if outcome.terminated || outcome.truncated {
            self.done = true;
            let success = self.judge_now();
            if success {
                outcome.reward += 1.0;
            }
            if !success && outcome.truncated && self.failure.is_none() {
                self.failure = Some(Failure { step: self.steps, reason: format!("step budget of {} ran out", self.step_budget()) });
            }
        }
        outcome
    }

    /// The reference solution's next action from the phone as it is now (None when the
    /// solution is done); only meaningful while the episode follows the solution.
    pub(crate) fn expert_action(&mut self) -> Result<Option<Action>, String> {
        let (Some(oracle), Some(device)) = (self.oracle.as_mut(), self.device.as_mut()) else {
            return Err("no episode: call reset() first".into());
        };
        oracle.next_action(device)
    }

    /// Runs the verifier on the phone as it is now and remembers the verdict.
    pub(crate) fn judge_now(&mut self) -> bool {
        let (Some(start), Some(device)) = (&self.start, &self.device) else { return false };
        let verdict = judge(&start.instance, device, &start.baseline);
        if !verdict.success {
            if let Some(reason) = verdict.reason {
                if self.failure.is_none() || !self.done {
                    self.failure = Some(Failure { step: self.steps, reason });
                }
            }
        }
        self.subgoals = verdict.subgoals;
        self.collateral = verdict.collateral;
        self.success = Some(verdict.success);
        verdict.success
    }

    /// The episode as `phoneworld eval` reports it.
    pub(crate) fn result(&mut self) -> Option<EpisodeResult> {
        if self.success.is_none() {
            self.judge_now();
        }
        let start = self.start.as_ref()?;
        let device = self.device.as_ref()?;
        let success = self.success.unwrap_or(false);
        Some(EpisodeResult {
            template: start.instance.template.id.clone(),
            category: start.instance.template.category.name().to_owned(),
            seed: start.instance.seed,
            instruction: start.instance.instruction.clone(),
            success,
            steps: self.steps,
            failure: if success { None } else { self.failure.clone() },
            subgoals: self.subgoals.clone(),
            collateral: self.collateral.clone(),
            state_hash: device.state_hash(),
        })
    }

    /// The `episode.json` record of the finished episode.
    pub(crate) fn record(&mut self) -> Option<Value> {
        let result = self.result()?;
        let start = self.start.as_ref()?;
        let size = self.device_size();
        Some(episode_record(&self.suite, &self.catalog.hash, &start.instance, &result, size))
    }

    /// The (width, height, density) of the phone in play: an appearance sets its own.
    pub(crate) fn device_size(&self) -> (u32, u32, u32) {
        let config = self.device.as_ref().map_or(self.config, |d| *d.config());
        (config.width, config.height, config.density)
    }

    pub(crate) fn render(&mut self, size: ObsSize, out: &mut [u8]) {
        if let Some(device) = self.device.as_mut() {
            render_into(device, size, out);
        }
    }

    /// The screen at `size` as RGB bytes in a new buffer (black before the first reset).
    pub(crate) fn render_rgb(&mut self, size: ObsSize) -> Vec<u8> {
        match self.device.as_mut() {
            Some(device) => render_rgb(device, size),
            None => vec![0; size.width as usize * size.height as usize * 3],
        }
    }
}

/// Applies one action to the phone, writing it to the trajectory when recording.
fn apply(device: &mut Device, writer: &mut Option<TrajectoryWriter>, action: &Action) -> (StepResult, Option<String>) {
    let Some(w) = writer.as_mut() else { return (device.step(action), None) };
    let steps_before = device.store().session.steps;
    match phoneworld_agents::step_recorded(device, action, Some(w)) {
        Ok(result) => (result, None),
        Err(e) => {
            *writer = None;
            let note = Some(format!("trajectory not written: {e}"));
            // The write failed before the step (step now) or after it (it ran).
            if device.store().session.steps == steps_before {
                return (device.step(action), note);
            }
            let (package, screen) = device.foreground();
            let step = device.store().session.steps;
            let result = StepResult {
                step,
                action: action.kind().to_owned(),
                ok: true,
                note: None,
                script_errors: Vec::new(),
                package,
                screen,
                clock_ms: 0,
            };
            (result, note)
        }
    }
}

/// An episode in flight as plain data: what `pickle` carries.
#[derive(Debug, Clone)]
pub(crate) struct Suspended {
    pub(crate) choice: TaskChoice,
    pub(crate) seed: u64,
    pub(crate) steps: u32,
    pub(crate) done: bool,
    pub(crate) snapshot: Vec<u8>,
}

impl Episode {
    /// An independent copy: same task, same start state, same progress.
    pub(crate) fn fork(&self) -> Episode {
        let mut copy = Episode::new(Arc::clone(&self.catalog), Arc::clone(&self.suite), self.config, self.reward_mode);
        copy.max_steps = self.max_steps;
        copy.appearance = self.appearance.clone();
        copy.start = self.start.as_ref().map(|s| Start {
            key: s.key.clone(),
            instance: s.instance.clone(),
            device: s.device.fork(),
            baseline: s.baseline.clone(),
        });
        copy.device = self.device.as_ref().map(Device::fork);
        copy.steps = self.steps;
        copy.done = self.done;
        copy.subgoals_met = self.subgoals_met;
        copy.success = self.success;
        copy.subgoals = self.subgoals.clone();
        copy.failure = self.failure.clone();
        copy.collateral = self.collateral.clone();
        copy.oracle = self.oracle.clone();
        copy
    }

    pub(crate) fn suspend(&self) -> Option<Suspended> {
        let start = self.start.as_ref()?;
        let (task, seed, params, appearance) = start.key.clone();
        Some(Suspended {
            choice: TaskChoice { task: Some(task), params, appearance, interruptions: start.instance.options.interruptions.clone() },
            seed,
            steps: self.steps,
            done: self.done,
            snapshot: self.device.as_ref()?.snapshot(),
        })
    }

    /// Continues a suspended episode: the task's start state is rebuilt, the phone restored.
    pub(crate) fn resume(&mut self, state: &Suspended) -> Result<(), String> {
        self.reset(&state.choice, state.seed).map_err(|e| e.to_string())?;
        let device = Device::restore(Arc::clone(&self.catalog), &state.snapshot, self.config.limits).map_err(|e| e.to_string())?;
        self.device = Some(device);
        self.steps = state.steps;
        self.update_subgoals();
        if state.done {
            self.done = true;
            self.judge_now();
        }
        Ok(())
    }
}
