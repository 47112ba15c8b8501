//! Suite listings and eval reports for Python: the same data `phoneworld tasks` and
//! `phoneworld eval --json` print.

use std::path::PathBuf;
use std::sync::Arc;

use phoneworld_tasks::{report, EpisodeResult, Instance};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::json;

use crate::catalogs::catalog_and_suite;
use crate::convert::{to_json, to_py};
use crate::env_core::task_choice;
use crate::errors::{task_error, ConfigError};

/// The task templates of a suite: id, category, apps, difficulty, max_steps, skills,
/// instruction (with `{param}` holes), parameter names and sub-goal names.
#[pyfunction]
#[pyo3(signature = (suite_name="phoneworld-v0", suite_dirs=Vec::new(), apps_dirs=Vec::new()))]
fn suite_tasks<'py>(py: Python<'py>, suite_name: &str, suite_dirs: Vec<PathBuf>, apps_dirs: Vec<PathBuf>) -> PyResult<Bound<'py, PyList>> {
    let (_, suite) = catalog_and_suite(suite_name, &suite_dirs, &apps_dirs)?;
    let list = PyList::empty(py);
    for t in &suite.templates {
        let value = json!({
            "id": t.id, "category": t.category.name(), "apps": t.apps, "difficulty": t.difficulty,
            "max_steps": t.max_steps, "skills": t.skills, "instruction": t.instruction,
            "params": t.params.keys().collect::<Vec<_>>(),
            "subgoals": t.subgoals.iter().map(|g| &g.name).collect::<Vec<_>>(),
        });
        list.append(to_py(py, &value)?)?;
    }
    Ok(list)
}

/// The suite's name, hash and the apps hash.
#[pyfunction]
#[pyo3(signature = (suite_name="phoneworld-v0", suite_dirs=Vec::new(), apps_dirs=Vec::new()))]
fn suite_hashes(suite_name: &str, suite_dirs: Vec<PathBuf>, apps_dirs: Vec<PathBuf>) -> PyResult<(String, String, String)> {
    let (catalog, suite) = catalog_and_suite(suite_name, &suite_dirs, &apps_dirs)?;
    Ok((suite.name.clone(), suite.hash.clone(), catalog.hash.clone()))
}

/// The instance of task `task` for `seed`: parameters drawn from the seed, then `params` applied.
pub(crate) fn resolve_instance(
    task: &str,
    seed: u64,
    params: Option<&Bound<'_, PyDict>>,
    suite_name: &str,
    suite_dirs: &[PathBuf],
    apps_dirs: &[PathBuf],
) -> PyResult<Instance> {
    let (catalog, suite) = catalog_and_suite(suite_name, suite_dirs, apps_dirs)?;
    let choice = task_choice(Some(task.to_owned()), params)?;
    let template = suite.get(task).ok_or_else(|| ConfigError::new_err(format!("no task `{task}` in suite `{}`", suite.name)))?;
    Instance::with_params(Arc::clone(template), seed, &catalog, &choice.params).map_err(task_error)
}

/// One task instance: its parameters (drawn from the seed, then `params` applied) and its
/// instruction.
#[pyfunction]
#[pyo3(signature = (task, seed, params=None, suite_name="phoneworld-v0", suite_dirs=Vec::new(), apps_dirs=Vec::new()))]
fn task_instance<'py>(
    py: Python<'py>,
    task: String,
    seed: u64,
    params: Option<&Bound<'py, PyDict>>,
    suite_name: &str,
    suite_dirs: Vec<PathBuf>,
    apps_dirs: Vec<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let instance = resolve_instance(&task, seed, params, suite_name, &suite_dirs, &apps_dirs)?;
    to_py(py, &json!({ "task": task, "seed": seed, "params": instance.params, "instruction": instance.instruction }))
}

/// Summarizes episode results (dicts from `result()`) exactly as `phoneworld eval --json`.
#[pyfunction]
#[pyo3(signature = (results, agent, seeds, suite_name="phoneworld-v0", suite_dirs=Vec::new(), apps_dirs=Vec::new()))]
fn eval_report<'py>(
    py: Python<'py>,
    results: &Bound<'py, PyList>,
    agent: &str,
    seeds: u64,
    suite_name: &str,
    suite_dirs: Vec<PathBuf>,
    apps_dirs: Vec<PathBuf>,
) -> PyResult<Bound<'py, PyAny>> {
    let (catalog, suite) = catalog_and_suite(suite_name, &suite_dirs, &apps_dirs)?;
    let mut parsed = Vec::with_capacity(results.len());
    for (i, r) in results.iter().enumerate() {
        let value = to_json(&r)?;
        let result: EpisodeResult = serde_json::from_value(value).map_err(|e| ConfigError::new_err(format!("results[{i}]: {e}")))?;
        parsed.push(result);
    }
    let report = report(&suite, &catalog.hash, agent, seeds, parsed);
    to_py(py, &serde_json::to_value(&report).unwrap_or_default())
}

pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(suite_tasks, m)?)?;
    m.add_function(wrap_pyfunction!(suite_hashes, m)?)?;
    m.add_function(wrap_pyfunction!(task_instance, m)?)?;
    m.add_function(wrap_pyfunction!(eval_report, m)?)?;
    Ok(())
}
