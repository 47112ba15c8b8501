//! Running a suite: every template for N seeds with an agent (`eval`), and proving every
//! template's verifier against its reference solution and wrong variants (`verify`).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use phoneworld_phone::{Catalog, EpisodeOptions, InterruptionSetting};

use phoneworld_agents::TrajectoryWriter;
use serde::Serialize;
use serde_json::{json, Value};

use crate::episode::{judge, run_episode, AgentKind, EpisodeResult, Instance};
use crate::parallel::play_all;
use crate::solve::Oracle;
use crate::suite::Suite;
use crate::template::TaskTemplate;
use crate::verify::app_data;
use crate::TaskError;

/// What `phoneworld eval --json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    pub suite: String,
    pub suite_hash: String,
    pub apps_hash: String,
    pub agent: String,
    pub seeds: u64,
    pub episodes: usize,
    pub success_rate: f64,
    pub by_category: BTreeMap<String, Value>,
    pub failures: Vec<Value>,
    /// Episodes and success rate per appearance, when the run named any.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub by_appearance: BTreeMap<String, Value>,
    /// Every episode in run order, with what the report page groups it by.
    #[serde(rename = "results")]
    pub episode_list: Vec<EpisodeSummary>,
    #[serde(skip)]
    pub results: Vec<EpisodeResult>,
}

/// One episode as the report lists it: the template's app, difficulty and skills travel with it
/// so a reader of the JSON (or the HTML report) can group without the suite at hand.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct EpisodeSummary {
    pub template: String,
    pub seed: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub appearance: Option<String>,
    pub category: String,
    pub apps: Vec<String>,
    pub difficulty: String,
    pub skills: Vec<String>,
    pub instruction: String,
    pub success: bool,
    pub steps: u32,
    pub failure: Option<crate::episode::Failure>,
}

fn rate(results: &[&EpisodeResult]) -> f64 {
    if results.is_empty() {
        0.0
    } else {
        results.iter().filter(|r| r.success).count() as f64 / results.len() as f64
    }
}

/// Plays every template of the suite for seeds `0..seeds`.
pub fn evaluate(
    catalog: Arc<Catalog>,
    suite: &Suite,
    agent: AgentKind,
    seeds: u64,
    out_dir: Option<&Path>,
) -> Result<EvalReport, TaskError> {
    evaluate_with(catalog, suite, agent, seeds, out_dir, &[], &InterruptionSetting::Off)
}

/// [`evaluate`] once per appearance (a profile name or `random`); none plays the plain phone.
/// The report gives the success rate per appearance too.
pub fn evaluate_appearances(
    catalog: Arc<Catalog>,
    suite: &Suite,
    agent: AgentKind,
    seeds: u64,
    out_dir: Option<&Path>,
    appearances: &[String],
) -> Result<EvalReport, TaskError> {
    evaluate_with(catalog, suite, agent, seeds, out_dir, appearances, &InterruptionSetting::Off)
}

/// One episode of a run: a template, a seed and the look it is played under.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct EvalJob {
    pub template: String,
    pub seed: u64,
    /// An appearance profile or `random`; None plays the plain phone.
    #[serde(default)]
    pub appearance: Option<String>,
}

/// Every episode of [`evaluate_with`], in the order it plays them: each appearance (or the
/// plain phone), each template, each seed.
pub fn eval_jobs(suite: &Suite, seeds: u64, appearances: &[String]) -> Vec<EvalJob> {
    let looks: Vec<Option<String>> = if appearances.is_empty() { vec![None] } else { appearances.iter().cloned().map(Some).collect() };
    let mut jobs = Vec::new();
    for look in looks {
        for template in &suite.templates {
            for seed in 0..seeds {
                jobs.push(EvalJob { template: template.id.clone(), seed, appearance: look.clone() });
            }
        }
    }
    jobs
}

/// The instance a run plays for one template and seed: under `appearance` (None: the plain
/// phone), interrupted as `interruptions` says.
pub(crate) fn run_instance(
    catalog: &Arc<Catalog>,
    suite: &Suite,
    template: &str,
    seed: u64,
    appearance: Option<&str>,
    interruptions: &InterruptionSetting,
) -> Result<Instance, TaskError> {
    let template = suite.get(template).ok_or_else(|| TaskError::Io(format!("no task `{template}` in suite {}", suite.name)))?;
    let options = match appearance {
        Some(name) => EpisodeOptions::with_appearance(name, seed).map_err(|e| TaskError::Io(e.to_string()))?,
        None => EpisodeOptions::default(),
    }
    .with_interruptions(interruptions.clone());
    Ok(Instance::new(Arc::clone(template), seed, catalog)?.with_options(options))
}

/// Where a run folder keeps an episode's trajectory: `[<appearance>/]<template>-<seed>`.
pub fn episode_dir(template: &str, seed: u64, appearance: Option<&str>) -> String {
    match appearance {
        Some(look) => format!("{look}/{template}-{seed}"),
        None => format!("{template}-{seed}"),
    }
}

/// Plays one episode of a run with a built-in agent; with `out_dir`, writes its trajectory to
/// `<out_dir>/[<appearance>/]<template>-<seed>/`.
pub fn eval_episode(
    catalog: &Arc<Catalog>,
    suite: &Suite,
    job: &EvalJob,
    agent: AgentKind,
    interruptions: &InterruptionSetting,
    out_dir: Option<&Path>,
) -> Result<EpisodeResult, TaskError> {
    let instance = run_instance(catalog, suite, &job.template, job.seed, job.appearance.as_deref(), interruptions)?;
    let mut writer = match out_dir {
        Some(dir) => Some(
            TrajectoryWriter::create(&dir.join(episode_dir(&job.template, job.seed, job.appearance.as_deref())), true)
                .map_err(|e| TaskError::Io(e.to_string()))?,
        ),
        None => None,
    };
    let result = run_episode(Arc::clone(catalog), &instance, agent, writer.as_mut())?;
    if let Some(w) = writer {
        let episode = episode_record(suite, &catalog.hash, &instance, &result, device_size(&instance));
        w.finish(&episode).map_err(|e| TaskError::Io(e.to_string()))?;
    }
    Ok(result)
}

/// [`evaluate_appearances`] with every episode interrupted as `interruptions` says (its
/// options carry both).
pub fn evaluate_with(
    catalog: Arc<Catalog>,
    suite: &Suite,
    agent: AgentKind,
    seeds: u64,
    out_dir: Option<&Path>,
    appearances: &[String],
    interruptions: &InterruptionSetting,
) -> Result<EvalReport, TaskError> {
    evaluate_each(catalog, suite, agent, (seeds, appearances), out_dir, interruptions, &mut |_| {})
}

/// [`evaluate_with`] for `(seeds, appearances)`, telling `on_done` of each episode as it ends
/// (for a progress display).
pub fn evaluate_each(
    catalog: Arc<Catalog>,
    suite: &Suite,
    agent: AgentKind,
    (seeds, appearances): (u64, &[String]),
    out_dir: Option<&Path>,
    interruptions: &InterruptionSetting,
    on_done: &mut dyn FnMut(&EpisodeResult),
) -> Result<EvalReport, TaskError> {
    let jobs = eval_jobs(suite, seeds, appearances);
    let play = |job: &EvalJob| eval_episode(&catalog, suite, job, agent, interruptions, out_dir);
    let results = play_all(&jobs, play, &mut |_, result| on_done(result))?;
    Ok(merge_report(suite, &catalog.hash, agent.name(), seeds, &jobs, results))
}

/// The report of a run from its jobs and their results, in the same order, wherever they were
/// played: the same as [`evaluate_with`]'s for the same jobs.
pub fn merge_report(suite: &Suite, apps_hash: &str, agent: &str, seeds: u64, jobs: &[EvalJob], results: Vec<EpisodeResult>) -> EvalReport {
    let mut by_appearance = BTreeMap::new();
    let mut looks: Vec<&str> = Vec::new();
    for job in jobs {
        if let Some(look) = job.appearance.as_deref() {
            if !looks.contains(&look) {
                looks.push(look);
            }
        }
    }
    for look in looks {
        let of: Vec<&EpisodeResult> =
            jobs.iter().zip(&results).filter(|(job, _)| job.appearance.as_deref() == Some(look)).map(|(_, r)| r).collect();
        by_appearance.insert(look.to_owned(), json!({ "episodes": of.len(), "success_rate": rate(&of) }));
    }
    let mut report = report(suite, apps_hash, agent, seeds, results);
    report.by_appearance = by_appearance;
    for (summary, job) in report.episode_list.iter_mut().zip(jobs) {
        summary.appearance.clone_from(&job.appearance);
    }
    report
}

/// The screen (width, height, density) an instance's phone has.
pub fn device_size(instance: &Instance) -> (u32, u32, u32) {
    let config = match &instance.options.appearance {
        Some(a) => a.device_config(phoneworld_phone::DeviceConfig::default()),
        None => phoneworld_phone::DeviceConfig::default(),
    };
    (config.width, config.height, config.density)
}

/// The `episode.json` of one finished episode: with its options, a replay builds the same phone.
/// An interrupted one also records the setting and the plan it drew (`interruptions`).
pub fn episode_record(suite: &Suite, apps_hash: &str, instance: &Instance, result: &EpisodeResult, device: (u32, u32, u32)) -> Value {
    let (width, height, density) = device;
    let mut record = json!({
        "suite": suite.name, "suite_hash": suite.hash, "apps_hash": apps_hash,
        "task": instance.template.id, "category": instance.template.category.name(), "seed": instance.seed,
        "params": instance.params, "instruction": instance.instruction,
        "device": { "width": width, "height": height, "density": density },
        "options": instance.options.to_json(),
        "outcome": { "success": result.success, "steps": result.steps, "failure": result.failure, "subgoals": result.subgoals },
    });
    if let (false, Value::Object(map)) = (instance.options.interruptions.is_off(), &mut record) {
        map.insert("interruptions".into(), crate::interrupted::record(instance));
    }
    record
}

/// Summarizes finished episodes the way `phoneworld eval --json` prints them.
pub fn report(suite: &Suite, apps_hash: &str, agent: &str, seeds: u64, results: Vec<EpisodeResult>) -> EvalReport {
    let mut by_category = BTreeMap::new();
    for category in ["app", "mini_app", "cross_app"] {
        let of: Vec<&EpisodeResult> = results.iter().filter(|r| r.category == category).collect();
        by_category.insert(category.to_owned(), json!({ "episodes": of.len(), "success_rate": rate(&of) }));
    }
    let all: Vec<&EpisodeResult> = results.iter().collect();
    let failures = results
        .iter()
        .filter(|r| !r.success)
        .map(|r| {
            json!({
                "template": r.template, "seed": r.seed,
                "step": r.failure.as_ref().map(|f| f.step),
                "reason": r.failure.as_ref().map(|f| f.reason.clone()),
            })
        })
        .collect();
    let episode_list = results.iter().map(|r| summarize(suite, r)).collect();
    EvalReport {
        suite: suite.name.clone(),
        suite_hash: suite.hash.clone(),
        apps_hash: apps_hash.to_owned(),
        agent: agent.to_owned(),
        seeds,
        episodes: results.len(),
        success_rate: rate(&all),
        by_category,
        failures,
        by_appearance: BTreeMap::new(),
        episode_list,
        results,
    }
}

fn summarize(suite: &Suite, result: &EpisodeResult) -> EpisodeSummary {
    let template = suite.get(&result.template);
    EpisodeSummary {
        template: result.template.clone(),
        seed: result.seed,
        appearance: None,
        category: result.category.clone(),
        apps: template.map(|t| t.apps.clone()).unwrap_or_default(),
        difficulty: template.map(|t| t.difficulty.clone()).unwrap_or_default(),
        skills: template.map(|t| t.skills.clone()).unwrap_or_default(),
        instruction: result.instruction.clone(),
        success: result.success,
        steps: result.steps,
        failure: result.failure.clone(),
    }
}

/// Writes a run's report beside its trajectories as `<out_dir>/report.json` (the text
/// `phoneworld eval --json` prints), which `phoneworld report` reads.
pub fn write_run_report(out_dir: &Path, report_json: &str) -> Result<(), TaskError> {
    std::fs::create_dir_all(out_dir).map_err(|e| TaskError::Io(format!("{}: {e}", out_dir.display())))?;
    let path = out_dir.join(RUN_REPORT_FILE);
    std::fs::write(&path, format!("{report_json}\n")).map_err(|e| TaskError::Io(format!("{}: {e}", path.display())))
}

/// The report's file name in a run folder.
pub const RUN_REPORT_FILE: &str = "report.json";

/// A template's reference solution with an instance's parameters filled in.
fn solution_text(template: &TaskTemplate, params: &crate::params::Params) -> String {
    template
        .solution
        .iter()
        .map(|step| crate::params::fill(&format!("{step:?}"), params).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("; ")
}

/// One way a template fails to prove itself.
#[derive(Debug, Clone, Serialize)]
pub struct VerifyProblem {
    pub template: String,
    pub seed: u64,
    pub problem: String,
}

/// For each template and seed: the reference solution passes; doing nothing fails; the
/// solution of an instance with other parameters fails; an extra unrelated change fails.
pub fn verify_suite(catalog: Arc<Catalog>, suite: &Suite, seeds: u64) -> Result<Vec<VerifyProblem>, TaskError> {
    verify_suite_with(catalog, suite, seeds, &InterruptionSetting::Off)
}

/// `verify_suite` with every episode interrupted as `interruptions` says: answering an
/// interruption must neither break a solution nor count as collateral damage.
pub fn verify_suite_with(
    catalog: Arc<Catalog>,
    suite: &Suite,
    seeds: u64,
    interruptions: &InterruptionSetting,
) -> Result<Vec<VerifyProblem>, TaskError> {
    verify_suite_each(catalog, suite, seeds, interruptions, &mut |_, _| {})
}

/// [`verify_suite_with`], telling `on_done` after each template and seed its category and
/// whether it proved itself (for a progress display).
pub fn verify_suite_each(
    catalog: Arc<Catalog>,
    suite: &Suite,
    seeds: u64,
    interruptions: &InterruptionSetting,
    on_done: &mut dyn FnMut(&str, bool),
) -> Result<Vec<VerifyProblem>, TaskError> {
    let instances: Vec<_> = suite.templates.iter().flat_map(|t| (0..seeds).map(move |seed| (t, seed))).collect();
    let play = |&(template, seed): &(&Arc<TaskTemplate>, u64)| {
        let mut problems = Vec::new();
        verify_instance(&catalog, template, seed, interruptions, &mut |problem| {
            problems.push(VerifyProblem { template: template.id.clone(), seed, problem });
        })
        .map(|()| problems)
    };
    let found = play_all(&instances, play, &mut |(template, _), problems| on_done(template.category.name(), problems.is_empty()))?;
    Ok(found.into_iter().flatten().collect())
}

/// The checks of [`verify_suite_with`] on one template and seed; each problem goes to `report`.
fn verify_instance(
    catalog: &Arc<Catalog>,
    template: &Arc<TaskTemplate>,
    seed: u64,
    interruptions: &InterruptionSetting,
    report: &mut dyn FnMut(String),
) -> Result<(), TaskError> {
    let instance = Instance::new(Arc::clone(template), seed, catalog)?.with_interruptions(interruptions.clone());
    let oracle = run_episode(Arc::clone(catalog), &instance, AgentKind::Oracle, None)?;
    if !oracle.success {
        report(format!(
            "the reference solution fails: {}",
            oracle.failure.map(|f| format!("step {}: {}", f.step, f.reason)).unwrap_or_default()
        ));
        return Ok(());
    }
    let noop = run_episode(Arc::clone(catalog), &instance, AgentKind::Noop, None)?;
    if noop.success {
        report("doing nothing passes: the initial state satisfies the verifier".into());
    }
    // Another instance's solution, played on this instance's phone. Only a solution that
    // differs proves anything: a red and a yellow tram are the same photo, tapped the same way.
    let own = solution_text(template, &instance.params);
    let other = (1..=30).map(|k| Instance::new(Arc::clone(template), seed + 1000 * k, catalog)).find_map(|i| match i {
        Ok(i) if i.params != instance.params && solution_text(template, &i.params) != own => Some(i),
        _ => None,
    });
    if let Some(other) = other {
        let mut device = instance.device(Arc::clone(catalog))?;
        let baseline = app_data(&device);
        let mut wrong = Oracle::new(template.solution.clone(), other.params.clone());
        for _ in 0..instance.max_steps() {
            match wrong.next_action(&mut device) {
                Ok(Some(action)) => {
                    device.step(&action);
                }
                _ => break,
            }
        }
        if judge(&instance, &device, &baseline).success {
            report(format!("the solution for other parameters ({:?}) also passes", other.params));
        }
    }
    // The right solution plus a change the task does not allow.
    let mut device = instance.device(Arc::clone(catalog))?;
    let baseline = app_data(&device);
    let mut right = Oracle::new(template.solution.clone(), instance.params.clone());
    while let Ok(Some(action)) = right.next_action(&mut device) {
        device.step(&action);
    }
    let key = if template.allow.iter().any(|a| a == "system:bluetooth") { "airplane_mode" } else { "bluetooth" };
    if let Value::Object(map) = &mut device.store_mut().system {
        let on = map.get(key).and_then(Value::as_bool).unwrap_or(false);
        map.insert(key.to_owned(), Value::Bool(!on));
    }
    if judge(&instance, &device, &baseline).success {
        report(format!("an unrelated change (system.{key}) still passes: the collateral check is too wide"));
    }
    Ok(())
}
