//! Runs played in pieces: the episodes of `phoneworld eval` and `rollouts` a chunk at a time
//! (on any machine), and the report and manifest merged from the pieces. Merged in run order,
//! they are the same bytes the command line prints and writes for the whole run.

use std::path::PathBuf;

use phoneworld_agents::{ImageFormat, ImageOptions};
use phoneworld_tasks::{
    eval_episode, eval_jobs, merge_report, rollout_episode, write_manifest, AgentKind, EpisodeResult, EvalJob, RolloutOutcome, RolloutSpec,
};
use pyo3::prelude::*;
use pyo3::types::PyList;
use serde::de::DeserializeOwned;

use crate::catalogs::catalog_and_suite;
use crate::convert::{to_json, to_py};
use crate::env_core::interruption_setting;
use crate::errors::{task_error, ConfigError};

/// Python values (dicts from an earlier call) back as Rust values, naming the bad item.
fn parse_list<T: DeserializeOwned>(what: &str, items: &Bound<'_, PyList>) -> PyResult<Vec<T>> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| serde_json::from_value(to_json(&item)?).map_err(|e| ConfigError::new_err(format!("{what}[{i}]: {e}"))))
        .collect()
}

fn to_py_list<'py, T: serde::Serialize>(py: Python<'py>, items: &[T]) -> PyResult<Bound<'py, PyAny>> {
    to_py(py, &serde_json::to_value(items).map_err(|e| ConfigError::new_err(e.to_string()))?)
}

fn agent_kind(agent: &str) -> PyResult<AgentKind> {
    AgentKind::parse(agent).ok_or_else(|| ConfigError::new_err(format!("agent `{agent}`: expected oracle, noop, random or tree-only")))
}

/// Every episode of `phoneworld eval` for these options, in run order: dicts with `template`,
/// `seed` and `appearance`.
#[pyfunction]
#[pyo3(signature = (seeds, appearances=Vec::new(), suite_name="phoneworld-v0", suite_dirs=Vec::new(), apps_dirs=Vec::new()))]
fn run_jobs<'py>(
    py: Python<'py>,
    seeds: u64,
    appearances: Vec<String>,
    suite_name: &str,
    suite_dirs: Vec<PathBuf>,
    apps_dirs: Vec<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let (_, suite) = catalog_and_suite(suite_name, &suite_dirs, &apps_dirs)?;
    for look in &appearances {
        phoneworld_phone::Appearance::resolve(look, 0).map_err(|e| ConfigError::new_err(format!("appearance {look}: {e}")))?;
    }
    to_py_list(py, &eval_jobs(&suite, seeds, &appearances))
}

/// Plays `jobs` (from `run_jobs`) with a built-in agent, the GIL released; with `out_dir`,
/// writes each trajectory there as `phoneworld eval --out-dir` does. Returns one result per job.
#[pyfunction]
#[pyo3(signature = (jobs, agent="oracle", suite_name="phoneworld-v0", suite_dirs=Vec::new(), apps_dirs=Vec::new(), out_dir=None, interruptions=None))]
#[allow(clippy::too_many_arguments, reason = "one argument per option of `phoneworld eval`")]
fn eval_episodes<'py>(
    py: Python<'py>,
    jobs: &Bound<'py, PyList>,
    agent: &str,
    suite_name: &str,
    suite_dirs: Vec<PathBuf>,
    apps_dirs: Vec<PathBuf>,
    out_dir: Option<PathBuf>,
    interruptions: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let jobs: Vec<EvalJob> = parse_list("jobs", jobs)?;
    let agent = agent_kind(agent)?;
    let interruptions = interruption_setting(interruptions)?;
    let (catalog, suite) = catalog_and_suite(suite_name, &suite_dirs, &apps_dirs)?;
    let results = py
        .detach(|| {
            jobs.iter()
                .map(|job| eval_episode(&catalog, &suite, job, agent, &interruptions, out_dir.as_deref()))
                .collect::<Result<Vec<_>, _>>()
        })
        .map_err(task_error)?;
    to_py_list(py, &results)
}

/// The report of a whole run from its jobs and their results (both in run order), as the JSON
/// text `phoneworld eval --json` prints.
#[pyfunction]
#[pyo3(signature = (jobs, results, agent, seeds, suite_name="phoneworld-v0", suite_dirs=Vec::new(), apps_dirs=Vec::new()))]
fn eval_report_text(
    jobs: &Bound<'_, PyList>,
    results: &Bound<'_, PyList>,
    agent: &str,
    seeds: u64,
    suite_name: &str,
    suite_dirs: Vec<PathBuf>,
    apps_dirs: Vec<PathBuf>,
) -> PyResult<String> {
    let jobs: Vec<EvalJob> = parse_list("jobs", jobs)?;
    let results: Vec<EpisodeResult> = parse_list("results", results)?;
    if jobs.len() != results.len() {
        return Err(ConfigError::new_err(format!("{} jobs but {} results", jobs.len(), results.len())));
    }
    let (catalog, suite) = catalog_and_suite(suite_name, &suite_dirs, &apps_dirs)?;
    let report = merge_report(&suite, &catalog.hash, agent_kind(agent)?.name(), seeds, &jobs, results);
    serde_json::to_string(&report).map_err(|e| ConfigError::new_err(e.to_string()))
}

/// A rollout run's options, checked once: `play` plays pieces of it (anywhere) and `manifest`
/// writes the manifest of the whole run from their outcomes.
#[pyclass(module = "phoneworld._core", frozen)]
pub(crate) struct RolloutRun {
    spec: RolloutSpec,
    suite_name: String,
    suite_dirs: Vec<PathBuf>,
    apps_dirs: Vec<PathBuf>,
}

#[pymethods]
impl RolloutRun {
    #[new]
    #[pyo3(signature = (seeds, detours=0.0, image_format="jpeg", image_size=None, appearance=None, interruptions=None, suite_name="phoneworld-v0", suite_dirs=Vec::new(), apps_dirs=Vec::new()))]
    #[allow(clippy::too_many_arguments, reason = "one argument per option of `phoneworld rollouts`")]
    fn new(
        seeds: u64,
        detours: f64,
        image_format: &str,
        image_size: Option<(u32, u32)>,
        appearance: Option<String>,
        interruptions: Option<&str>,
        suite_name: &str,
        suite_dirs: Vec<PathBuf>,
        apps_dirs: Vec<PathBuf>,
    ) -> PyResult<RolloutRun> {
        if !(0.0..=1.0).contains(&detours) {
            return Err(ConfigError::new_err(format!("detours {detours}: a probability between 0 and 1")));
        }
        let format = ImageFormat::parse(image_format)
            .ok_or_else(|| ConfigError::new_err(format!("image_format {image_format}: expected jpeg or png")))?;
        if let Some(look) = &appearance {
            phoneworld_phone::Appearance::resolve(look, 0).map_err(|e| ConfigError::new_err(format!("appearance {look}: {e}")))?;
        }
        catalog_and_suite(suite_name, &suite_dirs, &apps_dirs)?;
        let spec = RolloutSpec {
            seeds,
            detours,
            images: ImageOptions { format, size: image_size, xml: true },
            appearance,
            interruptions: interruption_setting(interruptions)?,
        };
        Ok(RolloutRun { spec, suite_name: suite_name.to_owned(), suite_dirs, apps_dirs })
    }

    /// Plays `jobs` (dicts with `template` and `seed`) as `phoneworld rollouts` does, the GIL
    /// released, writing each kept episode under `out_dir`; returns one outcome per job.
    fn play<'py>(&self, py: Python<'py>, jobs: &Bound<'py, PyList>, out_dir: PathBuf) -> PyResult<Bound<'py, PyAny>> {
        let jobs: Vec<EvalJob> = parse_list("jobs", jobs)?;
        let (catalog, suite) = catalog_and_suite(&self.suite_name, &self.suite_dirs, &self.apps_dirs)?;
        let outcomes = py
            .detach(|| {
                std::fs::create_dir_all(&out_dir).map_err(|e| phoneworld_tasks::TaskError::Io(format!("{}: {e}", out_dir.display())))?;
                jobs.iter()
                    .map(|job| rollout_episode(&catalog, &suite, &job.template, job.seed, &out_dir, &self.spec))
                    .collect::<Result<Vec<_>, _>>()
            })
            .map_err(task_error)?;
        to_py_list(py, &outcomes)
    }

    /// Writes `out_dir/manifest.json` of the whole run from its outcomes (in run order) and
    /// returns it as the JSON text `phoneworld rollouts --json` prints.
    fn manifest(&self, outcomes: &Bound<'_, PyList>, out_dir: PathBuf) -> PyResult<String> {
        let outcomes: Vec<RolloutOutcome> = parse_list("outcomes", outcomes)?;
        let (catalog, suite) = catalog_and_suite(&self.suite_name, &self.suite_dirs, &self.apps_dirs)?;
        let manifest = write_manifest(&suite, &catalog.hash, &out_dir, &self.spec, &outcomes).map_err(task_error)?;
        Ok(manifest.to_string())
    }
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_jobs, m)?)?;
    m.add_function(wrap_pyfunction!(eval_episodes, m)?)?;
    m.add_function(wrap_pyfunction!(eval_report_text, m)?)?;
    m.add_class::<RolloutRun>()?;
    Ok(())
}
