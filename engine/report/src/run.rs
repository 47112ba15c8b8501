//! Reading a run folder: `report.json` (what `phoneworld eval --json` prints) and, per
//! episode, the trajectory `eval --out-dir` wrote (`episode.json`, `steps.jsonl`, frames).

use std::path::{Path, PathBuf};

use phoneworld_tasks::{EpisodeSummary, RUN_REPORT_FILE};
use serde::Deserialize;
use serde_json::Value;

use crate::error::ReportError;

/// The part of the eval report the page shows.
#[derive(Debug, Clone, Deserialize)]
pub struct RunReport {
    pub suite: String,
    pub suite_hash: String,
    pub agent: String,
    pub seeds: u64,
    pub episodes: usize,
    pub success_rate: f64,
    pub results: Vec<EpisodeSummary>,
}

/// One recorded step: the screen before the action, and the action.
#[derive(Debug, Clone)]
pub struct RecordedStep {
    pub image: Option<PathBuf>,
    /// blake3 of the frame: equal frames are embedded once.
    pub frame_hash: Option<String>,
    pub action: Value,
    pub package: String,
    pub screen: String,
    pub ok: bool,
    pub note: Option<String>,
}

/// One episode's trajectory.
#[derive(Debug, Clone)]
pub struct Trajectory {
    /// The phone's screen in pixels, the space actions are given in.
    pub device: (u32, u32),
    pub steps: Vec<RecordedStep>,
}

/// Reads `report.json` of a run folder.
pub fn read_report(run_dir: &Path) -> Result<RunReport, ReportError> {
    let path = run_dir.join(RUN_REPORT_FILE);
    if !path.is_file() {
        return Err(ReportError::Run {
            path,
            message: "no eval report here: write one with `phoneworld eval --out-dir DIR` (or `--report`)".into(),
        });
    }
    let text = std::fs::read_to_string(&path).map_err(ReportError::io(&path))?;
    let value: Value =
        serde_json::from_str(&text).map_err(|e| ReportError::Json { path: path.clone(), line: Some(e.line()), message: e.to_string() })?;
    if value.get("results").is_none() {
        return Err(ReportError::Run {
            path,
            message: "the report has no `results` (each episode's verdict): it predates the report page; run the eval again".into(),
        });
    }
    serde_json::from_value(value).map_err(|e| ReportError::Json { path, line: None, message: e.to_string() })
}

/// Reads an episode's trajectory from its folder; None when the run recorded none there.
pub fn read_trajectory(dir: &Path) -> Result<Option<Trajectory>, ReportError> {
    let steps_path = dir.join("steps.jsonl");
    if !steps_path.is_file() {
        return Ok(None);
    }
    let episode_path = dir.join("episode.json");
    let device = match std::fs::read_to_string(&episode_path) {
        Ok(text) => {
            let episode: Value = serde_json::from_str(&text).map_err(|e| ReportError::Json {
                path: episode_path.clone(),
                line: Some(e.line()),
                message: e.to_string(),
            })?;
            let size = |field: &str| episode["device"][field].as_u64().and_then(|v| u32::try_from(v).ok());
            match (size("width"), size("height")) {
                (Some(w), Some(h)) => (w, h),
                _ => return Err(ReportError::Run { path: episode_path, message: "`device` needs a width and a height".into() }),
            }
        }
        Err(e) => return Err(ReportError::Io { path: episode_path, source: e }),
    };
    let text = std::fs::read_to_string(&steps_path).map_err(ReportError::io(&steps_path))?;
    let mut steps = Vec::new();
    for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let bad = |message: String| ReportError::Json { path: steps_path.clone(), line: Some(i + 1), message };
        let record: Value = serde_json::from_str(line).map_err(|e| bad(e.to_string()))?;
        let text_of = |field: &str| record[field].as_str().unwrap_or_default().to_owned();
        let action = record.get("action").cloned().ok_or_else(|| bad("no `action`".into()))?;
        steps.push(RecordedStep {
            image: record["image"].as_str().map(|name| dir.join(name)),
            frame_hash: record["frame_hash"].as_str().map(str::to_owned),
            action,
            package: text_of("package"),
            screen: text_of("screen"),
            ok: record["result"]["ok"].as_bool().unwrap_or(true),
            note: record["result"]["note"].as_str().map(str::to_owned),
        });
    }
    Ok(Some(Trajectory { device, steps }))
}
