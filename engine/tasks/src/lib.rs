//! Tasks: parameterized templates with seeded instances, setup, automatic verifiers
//! (app data, answers, screens, collateral damage), reference solutions, and the eval loop.

mod blind;
mod catalog;
mod episode;
mod eval;
mod interrupted;
mod parallel;
mod params;
mod rollouts;
mod solve;
mod suite;
mod template;
mod template_paths;
mod verify;

use std::path::PathBuf;

pub use catalog::catalog_markdown;
pub use episode::{judge, play, run_episode, AgentKind, EpisodeResult, Failure, Instance, Verdict};
pub use eval::{
    device_size, episode_dir, episode_record, eval_episode, eval_jobs, evaluate, evaluate_appearances, evaluate_each, evaluate_with,
    merge_report, report, verify_suite, verify_suite_each, verify_suite_with, write_run_report, EpisodeSummary, EvalJob, EvalReport,
    VerifyProblem, RUN_REPORT_FILE,
};
pub use params::{distinct_instances, fill, fill_clock, fill_json, instantiate, Params};
pub use rollouts::{rollout_episode, rollouts, rollouts_each, write_manifest, RolloutOutcome, RolloutSpec};
pub use solve::{find, find_field, Oracle};
pub use suite::{parse_template, Suite};
pub use template::{Category, Check, ParamGen, Setup, Step, SubGoal, TaskTemplate};
pub use verify::{app_data, changed_paths, collateral, holds, matches, normalize};

/// A problem with a task file or a run: names the file and field where it can.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TaskError {
    #[error("{}:{line}:{col}: {message}", file.display())]
    Syntax { file: PathBuf, line: usize, col: usize, message: String },
    #[error("{}:{line}:{col}: field `{field}`: {message}", file.display())]
    Placed { file: PathBuf, line: usize, col: usize, field: String, message: String },
    #[error("{}: field `{field}`: {message}", file.display())]
    Field { file: PathBuf, field: String, message: String },
    #[error("task `{task}`: field `{field}`: {message}")]
    Template { task: String, field: String, message: String },
    #[error("task `{task}`: setting up the phone: {message}")]
    Setup { task: String, message: String },
    #[error("{0}")]
    Io(String),
}

impl TaskError {
    pub(crate) fn template(task: &str, field: &str, message: &str) -> TaskError {
        TaskError::Template { task: task.to_owned(), field: field.to_owned(), message: message.to_owned() }
    }
}
