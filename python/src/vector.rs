//! `_core.VectorCore`: N episodes stepped in parallel on Rust threads with the GIL released,
//! screenshots written into one preallocated (N, H, W, 3) array. Also the EnvPool-style
//! asynchronous `send`/`recv` over a pool of worker threads.

use std::collections::VecDeque;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use numpy::{PyArray4, PyArrayMethods, PyUntypedArrayMethods};
use phoneworld_data::Action;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use rayon::prelude::*;

use crate::convert::actions_from_py;
use crate::env_core::{suspended_from_py, suspended_to_py, task_choice};
use crate::episode::{Episode, StepOutcome, TaskChoice};
use crate::errors::{ConfigError, PhoneWorldError, SnapshotError};
use crate::observe::{info_to_py, EnvObs, ObsConfig};
use crate::settings::{Settings, SettingsArgs};

/// When a finished episode is replaced by a new one (Gymnasium's autoreset modes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Autoreset {
    /// The step after the last one resets; its action is ignored.
    NextStep,
    /// The last step resets at once; its final observation goes into the info.
    SameStep,
    /// The caller resets with a mask.
    Disabled,
}

impl Autoreset {
    fn parse(name: &str) -> PyResult<Autoreset> {
        match name {
            "next_step" | "NextStep" => Ok(Autoreset::NextStep),
            "same_step" | "SameStep" => Ok(Autoreset::SameStep),
            "disabled" | "Disabled" => Ok(Autoreset::Disabled),
            other => Err(ConfigError::new_err(format!("autoreset_mode must be next_step, same_step or disabled, not {other:?}"))),
        }
    }
}

/// One env of the batch.
struct Slot {
    episode: Episode,
    choice: TaskChoice,
    /// The seed of the first episode; later episodes use `seed + k * num_envs`.
    seed: u64,
    episodes: u64,
    /// NextStep mode: the previous step ended the episode.
    needs_reset: bool,
    /// The async path's screenshot, copied into the batch by `recv`.
    pixels: Vec<u8>,
    error: Option<String>,
}

/// What one env did in one step.
struct Stepped {
    obs: EnvObs,
    outcome: StepOutcome,
    /// SameStep mode: the observation of the episode that just ended.
    final_obs: Option<(EnvObs, Vec<u8>)>,
}

impl Slot {
    fn start(&mut self, num_envs: u64) -> Result<(), String> {
        let seed = self.seed.wrapping_add(self.episodes.wrapping_mul(num_envs));
        self.episodes += 1;
        self.needs_reset = false;
        self.episode.reset(&self.choice, seed).map_err(|e| e.to_string())
    }

    fn step(&mut self, action: Result<Vec<Action>, String>, mode: Autoreset, obs: &ObsConfig, num_envs: u64, pixels: &mut [u8]) -> Stepped {
        let idle = StepOutcome { reward: 0.0, terminated: false, truncated: false, action_error: None, parsed_action: None, note: None };
        if mode == Autoreset::NextStep && self.needs_reset {
            let mut outcome = idle;
            if let Err(e) = self.start(num_envs) {
                outcome.action_error = Some(format!("autoreset failed: {e}"));
            }
            let obs = self.episode.observe(obs, Some(pixels));
            return Stepped { obs, outcome, final_obs: None };
        }
        let outcome = self.episode.step(action);
        let done = outcome.terminated || outcome.truncated;
        match mode {
            Autoreset::NextStep => {
                self.needs_reset = done;
                Stepped { obs: self.episode.observe(obs, Some(pixels)), outcome, final_obs: None }
            }
            Autoreset::SameStep if done => {
                let mut last = vec![0u8; pixels.len()];
                let final_obs = self.episode.observe(obs, Some(&mut last));
                let mut outcome = outcome;
                if let Err(e) = self.start(num_envs) {
                    outcome.note = Some(format!("autoreset failed: {e}"));
                }
                Stepped { obs: self.episode.observe(obs, Some(pixels)), outcome, final_obs: Some((final_obs, last)) }
            }
            _ => Stepped { obs: self.episode.observe(obs, Some(pixels)), outcome, final_obs: None },
        }
    }
}

fn lock(slot: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    slot.lock().unwrap_or_else(|p| p.into_inner())
}

/// Runs `work(slot index, slot, its pixel chunk)` for every index in `ids` on the pool's
/// threads, results in `ids` order. The threads live as long as the env, so their per-thread
/// caches (text layout memo) stay warm from step to step.
fn parallel<T: Send>(
    pool: &rayon::ThreadPool,
    slots: &[Mutex<Slot>],
    ids: &[usize],
    pixels: &mut [u8],
    frame_len: usize,
    work: &(dyn Fn(usize, &mut Slot, &mut [u8]) -> T + Sync),
) -> Vec<T> {
    let mut chunks: Vec<&mut [u8]> =
        if frame_len == 0 { ids.iter().map(|_| &mut [][..]).collect() } else { pixels.chunks_mut(frame_len).collect() };
    let jobs: Vec<(usize, &mut [u8])> = ids.iter().enumerate().map(|(k, &i)| (i, std::mem::take(&mut chunks[k]))).collect();
    pool.install(|| jobs.into_par_iter().map(|(i, px)| work(i, &mut lock(&slots[i]), px)).collect())
}

/// A job for the asynchronous workers.
struct Job {
    env: usize,
    action: Result<Vec<Action>, String>,
}

struct Workers {
    jobs: Sender<Job>,
    done: Mutex<Receiver<(usize, Stepped)>>,
    handles: Vec<JoinHandle<()>>,
    in_flight: usize,
    ready: VecDeque<(usize, Stepped)>,
}

#[pyclass(module = "phoneworld._core")]
pub(crate) struct VectorCore {
    settings: Settings,
    slots: Arc<Vec<Mutex<Slot>>>,
    threads: usize,
    pool: Arc<rayon::ThreadPool>,
    mode: Autoreset,
    /// The step between one env's episode seeds: `num_envs`, or a whole pool's size when this
    /// is one shard of it (each env then plays the seeds it would in the pool).
    seed_stride: u64,
    batch: Option<Py<PyArray4<u8>>>,
    workers: Option<Workers>,
}

/// The observation of each env that just autoreset in SameStep mode: pixels, instruction,
/// UI tree, info.
type Final<'py> = Option<(Option<Bound<'py, PyBytes>>, String, Option<String>, Bound<'py, PyDict>)>;
/// A batch, rewards, terminated, truncated and the SameStep finals.
type StepBatch<'py> = (Batch<'py>, Vec<f64>, Vec<bool>, Vec<bool>, Vec<Final<'py>>);
type Batch<'py> = (Option<Bound<'py, PyArray4<u8>>>, Vec<String>, Vec<Option<String>>, Bound<'py, PyList>);

impl VectorCore {
    fn num_envs(&self) -> usize {
        self.slots.len()
    }

    fn batch_array<'py>(&mut self, py: Python<'py>, rows: usize) -> Option<Bound<'py, PyArray4<u8>>> {
        let size = self.settings.obs.screenshot?;
        let fits = self.batch.as_ref().is_some_and(|b| b.bind(py).shape()[0] == rows);
        if !fits {
            let array = PyArray4::<u8>::zeros(py, [rows, size.height as usize, size.width as usize, 3], false);
            self.batch = Some(array.unbind());
        }
        self.batch.as_ref().map(|b| b.bind(py).clone())
    }

    fn infos<'py>(py: Python<'py>, stepped: &[(EnvObs, Option<&StepOutcome>)]) -> PyResult<Bound<'py, PyList>> {
        let list = PyList::empty(py);
        for (obs, outcome) in stepped {
            list.append(info_to_py(py, obs, *outcome)?)?;
        }
        Ok(list)
    }

    fn actions(actions: &Bound<'_, PyList>, errors: &Bound<'_, PyList>) -> PyResult<Vec<Result<Vec<Action>, String>>> {
        let mut out = Vec::with_capacity(actions.len());
        for (k, action) in actions.iter().enumerate() {
            let error: Option<String> = errors.get_item(k).ok().map(|e| e.extract()).transpose()?.flatten();
            out.push(match error {
                Some(e) => Err(e),
                None if action.is_none() => Err("no action".to_owned()),
                None => actions_from_py(&action),
            });
        }
        Ok(out)
    }

    fn ensure_idle(&self) -> PyResult<()> {
        match &self.workers {
            Some(w) if w.in_flight > 0 || !w.ready.is_empty() => {
                Err(PhoneWorldError::new_err(format!("{} sent steps are not received yet: call recv() first", w.in_flight + w.ready.len())))
            }
            _ => Ok(()),
        }
    }

    fn start_workers(&mut self) -> &mut Workers {
        let slots = Arc::clone(&self.slots);
        let threads = self.threads;
        let obs = self.settings.obs;
        let mode = self.mode;
        let stride = self.seed_stride;
        self.workers.get_or_insert_with(|| {
            let (jobs, job_rx) = channel::<Job>();
            let (done_tx, done) = channel();
            let job_rx = Arc::new(Mutex::new(job_rx));
            let num_envs = stride;
            let handles = (0..threads)
                .map(|_| {
                    let (job_rx, done_tx, slots) = (Arc::clone(&job_rx), done_tx.clone(), Arc::clone(&slots));
                    std::thread::spawn(move || loop {
                        let job = match job_rx.lock().unwrap_or_else(|p| p.into_inner()).recv() {
                            Ok(job) => job,
                            Err(_) => return,
                        };
                        let mut slot = lock(&slots[job.env]);
                        let mut pixels = std::mem::take(&mut slot.pixels);
                        let stepped = slot.step(job.action, mode, &obs, num_envs, &mut pixels);
                        slot.pixels = pixels;
                        drop(slot);
                        if done_tx.send((job.env, stepped)).is_err() {
                            return;
                        }
                    })
                })
                .collect();
            Workers { jobs, done: Mutex::new(done), handles, in_flight: 0, ready: VecDeque::new() }
        })
    }
}

#[pymethods]
impl VectorCore {
    #[new]
    #[pyo3(signature = (settings, num_envs, num_threads, autoreset_mode, seed_stride=None))]
    fn new(
        settings: SettingsArgs,
        num_envs: usize,
        num_threads: usize,
        autoreset_mode: &str,
        seed_stride: Option<u64>,
    ) -> PyResult<VectorCore> {
        if num_envs == 0 || num_threads == 0 || seed_stride == Some(0) {
            return Err(ConfigError::new_err("num_envs, num_threads and seed_stride must be at least 1"));
        }
        let settings = Settings::load(settings)?;
        let mode = Autoreset::parse(autoreset_mode)?;
        let frame_len = settings.frame_len();
        let slots = (0..num_envs)
            .map(|_| {
                Mutex::new(Slot {
                    episode: settings.episode(),
                    choice: TaskChoice::default(),
                    seed: 0,
                    episodes: 0,
                    needs_reset: false,
                    pixels: vec![0u8; frame_len],
                    error: None,
                })
            })
            .collect();
        let threads = num_threads.min(num_envs);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("phoneworld-env-{i}"))
            .build()
            .map_err(|e| PhoneWorldError::new_err(format!("starting {threads} threads: {e}")))?;
        let seed_stride = seed_stride.unwrap_or(num_envs as u64);
        Ok(VectorCore { settings, slots: Arc::new(slots), threads, pool: Arc::new(pool), mode, seed_stride, batch: None, workers: None })
    }

    /// Resets the envs whose `mask` entry is true (all without a mask): env i plays `tasks[i]`
    /// (None: drawn from the suite) with `params[i]` and seed `seeds[i]`. Returns the
    /// observations of every env.
    #[pyo3(signature = (seeds, tasks, params, mask=None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seeds: Vec<u64>,
        tasks: Vec<Option<String>>,
        params: Vec<Option<Bound<'py, PyDict>>>,
        mask: Option<Vec<bool>>,
    ) -> PyResult<Batch<'py>> {
        self.ensure_idle()?;
        let n = self.num_envs();
        if seeds.len() != n || tasks.len() != n || params.len() != n || mask.as_ref().is_some_and(|m| m.len() != n) {
            return Err(ConfigError::new_err(format!("reset needs {n} seeds, tasks, params (and mask entries)")));
        }
        for (i, slot) in self.slots.iter().enumerate() {
            if mask.as_ref().is_none_or(|m| m[i]) {
                let mut slot = lock(slot);
                slot.choice = task_choice(tasks[i].clone(), params[i].as_ref())?;
                slot.seed = seeds[i];
                slot.episodes = 0;
            }
        }
        let array = self.batch_array(py, n);
        let mut guard = array.as_ref().map(|a| a.readwrite());
        let pixels: &mut [u8] = match guard.as_mut() {
            Some(g) => g.as_slice_mut().map_err(|e| PhoneWorldError::new_err(e.to_string()))?,
            None => &mut [],
        };
        let (obs_config, frame_len) = (self.settings.obs, self.settings.frame_len());
        let ids: Vec<usize> = (0..n).collect();
        let (slots, pool) = (&self.slots, &*self.pool);
        let num_envs = self.seed_stride;
        let results: Vec<(EnvObs, Option<String>)> = py.detach(|| {
            parallel(pool, slots, &ids, pixels, frame_len, &|i, slot: &mut Slot, px: &mut [u8]| {
                let error = if mask.as_ref().is_none_or(|m| m[i]) { slot.start(num_envs).err() } else { None };
                slot.error = error.clone();
                (slot.episode.observe(&obs_config, (frame_len > 0).then_some(px)), error)
            })
        });
        drop(guard);
        if let Some((i, (_, Some(e)))) = results.iter().enumerate().find(|(_, (_, e))| e.is_some()) {
            return Err(ConfigError::new_err(format!("env {i}: {e}")));
        }
        let instructions = results.iter().map(|(o, _)| o.instruction.clone()).collect();
        let trees = results.iter().map(|(o, _)| o.ui_tree.clone()).collect();
        let infos = Self::infos(py, &results.iter().map(|(o, _)| (o.clone(), None)).collect::<Vec<_>>())?;
        Ok((array, instructions, trees, infos))
    }

    /// Steps every env with its action (None with the parse error in `errors[i]` costs a
    /// step). Returns (pixels, instructions, ui_trees, infos, rewards, terminated, truncated,
    /// finals) where finals[i] is (final pixels, final instruction, final ui_tree, final info)
    /// for envs that autoreset in SameStep mode, else None.
    #[allow(clippy::type_complexity)]
    fn step<'py>(&mut self, py: Python<'py>, actions: &Bound<'py, PyList>, errors: &Bound<'py, PyList>) -> PyResult<StepBatch<'py>> {
        self.ensure_idle()?;
        let n = self.num_envs();
        if actions.len() != n {
            return Err(ConfigError::new_err(format!("step needs {n} actions, got {}", actions.len())));
        }
        let mut actions: Vec<Option<Result<Vec<Action>, String>>> = Self::actions(actions, errors)?.into_iter().map(Some).collect();
        let array = self.batch_array(py, n);
        let mut guard = array.as_ref().map(|a| a.readwrite());
        let pixels: &mut [u8] = match guard.as_mut() {
            Some(g) => g.as_slice_mut().map_err(|e| PhoneWorldError::new_err(e.to_string()))?,
            None => &mut [],
        };
        let (obs_config, frame_len, mode) = (self.settings.obs, self.settings.frame_len(), self.mode);
        let actions: Vec<Mutex<Option<Result<Vec<Action>, String>>>> = actions.iter_mut().map(|a| Mutex::new(a.take())).collect();
        let ids: Vec<usize> = (0..n).collect();
        let (slots, pool) = (&self.slots, &*self.pool);
        let num_envs = self.seed_stride;
        let stepped: Vec<Stepped> = py.detach(|| {
            parallel(pool, slots, &ids, pixels, frame_len, &|i, slot: &mut Slot, px: &mut [u8]| {
                let action = actions[i].lock().unwrap_or_else(|p| p.into_inner()).take().unwrap_or_else(|| Err("no action".into()));
                slot.step(action, mode, &obs_config, num_envs, px)
            })
        });
        drop(guard);
        self.convert(py, array, stepped)
    }

    /// Queues one step for each of `env_ids` (EnvPool's `send`); worker threads run them.
    fn send(&mut self, actions: &Bound<'_, PyList>, errors: &Bound<'_, PyList>, env_ids: Vec<usize>) -> PyResult<()> {
        let n = self.num_envs();
        if actions.len() != env_ids.len() {
            return Err(ConfigError::new_err(format!("send got {} actions for {} env ids", actions.len(), env_ids.len())));
        }
        if let Some(bad) = env_ids.iter().find(|&&i| i >= n) {
            return Err(ConfigError::new_err(format!("env id {bad} is out of range (num_envs={n})")));
        }
        let actions = Self::actions(actions, errors)?;
        let workers = self.start_workers();
        for (env, action) in env_ids.into_iter().zip(actions) {
            workers.jobs.send(Job { env, action }).map_err(|_| PhoneWorldError::new_err("the worker threads are gone"))?;
            workers.in_flight += 1;
        }
        Ok(())
    }

    /// Waits for `batch_size` sent steps (whichever finish first) and returns them with their
    /// env ids, in the same layout as `step`.
    fn recv<'py>(&mut self, py: Python<'py>, batch_size: usize) -> PyResult<(Vec<usize>, StepBatch<'py>)> {
        let Some(workers) = self.workers.as_mut() else {
            return Err(PhoneWorldError::new_err("nothing was sent: call send() first"));
        };
        if batch_size == 0 || batch_size > workers.in_flight + workers.ready.len() {
            return Err(ConfigError::new_err(format!(
                "recv({batch_size}) but {} steps are in flight",
                workers.in_flight + workers.ready.len()
            )));
        }
        let got: Vec<(usize, Stepped)> = py.detach(|| {
            let done = workers.done.lock().unwrap_or_else(|p| p.into_inner());
            while workers.ready.len() < batch_size {
                match done.recv() {
                    Ok(done) => {
                        workers.in_flight -= 1;
                        workers.ready.push_back(done);
                    }
                    Err(_) => break,
                }
            }
            workers.ready.drain(..batch_size.min(workers.ready.len())).collect()
        });
        let ids: Vec<usize> = got.iter().map(|(i, _)| *i).collect();
        let array = self.batch_array(py, ids.len());
        if let Some(array) = &array {
            let mut guard = array.readwrite();
            let out = guard.as_slice_mut().map_err(|e| PhoneWorldError::new_err(e.to_string()))?;
            let frame_len = self.settings.frame_len();
            for (k, &i) in ids.iter().enumerate() {
                out[k * frame_len..(k + 1) * frame_len].copy_from_slice(&lock(&self.slots[i]).pixels);
            }
        }
        let stepped = got.into_iter().map(|(_, s)| s).collect();
        Ok((ids, self.convert(py, array, stepped)?))
    }

    /// The finished (or current) episode of env `i` as `phoneworld eval` reports it.
    fn result<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyAny>> {
        let slot = self.slots.get(i).ok_or_else(|| ConfigError::new_err(format!("env id {i} is out of range")))?;
        let result = lock(slot).episode.result().ok_or_else(|| PhoneWorldError::new_err("no episode: call reset() first"))?;
        crate::convert::to_py(py, &serde_json::to_value(result).unwrap_or_default())
    }

    fn state_hash(&self, i: usize) -> PyResult<String> {
        let slot = self.slots.get(i).ok_or_else(|| ConfigError::new_err(format!("env id {i} is out of range")))?;
        let slot = lock(slot);
        slot.episode.device.as_ref().map(|d| d.state_hash()).ok_or_else(|| PhoneWorldError::new_err("no episode: call reset() first"))
    }

    /// Env `i` as plain data for pickling: its episode, task choice, seeds and autoreset flag.
    fn suspend<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Option<Bound<'py, PyDict>>> {
        let slot = lock(self.slots.get(i).ok_or_else(|| ConfigError::new_err(format!("env id {i} is out of range")))?);
        let Some(state) = slot.episode.suspend() else { return Ok(None) };
        let dict = suspended_to_py(py, &state)?;
        dict.set_item("choice_task", slot.choice.task.as_deref())?;
        dict.set_item("choice_params", crate::convert::to_py(py, &serde_json::to_value(&slot.choice.params).unwrap_or_default())?)?;
        dict.set_item("first_seed", slot.seed)?;
        dict.set_item("episodes", slot.episodes)?;
        dict.set_item("needs_reset", slot.needs_reset)?;
        Ok(Some(dict))
    }

    /// Continues env `i` from `suspend(i)`'s data.
    fn resume(&mut self, py: Python<'_>, i: usize, state: &Bound<'_, PyDict>) -> PyResult<()> {
        self.ensure_idle()?;
        let suspended = suspended_from_py(state)?;
        let get = |key: &str| state.get_item(key)?.ok_or_else(|| SnapshotError::new_err(format!("env state has no `{key}`")));
        let params = get("choice_params")?;
        let choice = task_choice(get("choice_task")?.extract()?, Some(params.cast::<PyDict>()?))?;
        let (seed, episodes, needs_reset) = (get("first_seed")?.extract()?, get("episodes")?.extract()?, get("needs_reset")?.extract()?);
        let slot = self.slots.get(i).ok_or_else(|| ConfigError::new_err(format!("env id {i} is out of range")))?;
        let mut slot = lock(slot);
        let episode = &mut slot.episode;
        py.detach(|| episode.resume(&suspended)).map_err(SnapshotError::new_err)?;
        (slot.choice, slot.seed, slot.episodes, slot.needs_reset) = (choice, seed, episodes, needs_reset);
        Ok(())
    }

    #[getter]
    fn num_envs_(&self) -> usize {
        self.num_envs()
    }

    #[getter]
    fn obs_size(&self) -> Option<(u32, u32)> {
        self.settings.obs.screenshot.map(|s| (s.width, s.height))
    }

    /// Stops the worker threads (idempotent).
    fn close(&mut self) {
        if let Some(workers) = self.workers.take() {
            drop(workers.jobs);
            for handle in workers.handles {
                let _ = handle.join();
            }
        }
    }
}

impl VectorCore {
    #[allow(clippy::type_complexity)]
    fn convert<'py>(&self, py: Python<'py>, array: Option<Bound<'py, PyArray4<u8>>>, stepped: Vec<Stepped>) -> PyResult<StepBatch<'py>> {
        let instructions = stepped.iter().map(|s| s.obs.instruction.clone()).collect();
        let trees = stepped.iter().map(|s| s.obs.ui_tree.clone()).collect();
        let infos = PyList::empty(py);
        let mut finals = Vec::with_capacity(stepped.len());
        for s in &stepped {
            infos.append(info_to_py(py, &s.obs, Some(&s.outcome))?)?;
            finals.push(match &s.final_obs {
                Some((obs, pixels)) => Some((
                    (!pixels.is_empty()).then(|| PyBytes::new(py, pixels)),
                    obs.instruction.clone(),
                    obs.ui_tree.clone(),
                    info_to_py(py, obs, Some(&s.outcome))?,
                )),
                None => None,
            });
        }
        let rewards = stepped.iter().map(|s| s.outcome.reward).collect();
        let terminated = stepped.iter().map(|s| s.outcome.terminated).collect();
        let truncated = stepped.iter().map(|s| s.outcome.truncated).collect();
        Ok(((array, instructions, trees, infos), rewards, terminated, truncated, finals))
    }
}

impl Drop for VectorCore {
    fn drop(&mut self) {
        self.close();
    }
}
