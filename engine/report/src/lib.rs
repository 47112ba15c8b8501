//! One self-contained HTML page from an eval run folder (`phoneworld eval --out-dir DIR`):
//! success by category, app, difficulty, skill and appearance, steps per episode and failure
//! reasons as SVG charts, a table of episodes, and a step viewer showing each frame with the
//! action drawn over it. Styles, script, charts and frames are inline: the page needs no
//! network and no other file.

mod charts;
mod error;
mod frames;
mod page;
mod run;
mod tally;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use phoneworld_tasks::EpisodeSummary;
use serde_json::json;

pub use error::ReportError;
pub use run::{read_report, read_trajectory, RecordedStep, RunReport, Trajectory};
pub use tally::{failure_kind, Tally};

/// How the page is built.
#[derive(Debug, Clone, Copy)]
pub struct ReportOptions {
    /// Width of the frames embedded in the step viewer, in pixels (recorded frames are
    /// downscaled to it, never enlarged).
    pub frame_width: u32,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions { frame_width: 240 }
    }
}

/// What the page holds, for the caller to report.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportSummary {
    pub episodes: usize,
    /// Episodes whose trajectory was found in the run folder.
    pub recorded: usize,
    /// Steps shown in the viewer, and the distinct frames embedded for them.
    pub steps: usize,
    pub distinct_frames: usize,
    pub bytes: usize,
}

/// Builds the page of the run in `run_dir` and writes it to `out`.
pub fn write_report(run_dir: &Path, out: &Path, options: &ReportOptions) -> Result<ReportSummary, ReportError> {
    let (html, summary) = render_report(run_dir, options)?;
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(ReportError::io(parent))?;
    }
    std::fs::write(out, &html).map_err(ReportError::io(out))?;
    Ok(summary)
}

/// The page of the run in `run_dir`, as text.
pub fn render_report(run_dir: &Path, options: &ReportOptions) -> Result<(String, ReportSummary), ReportError> {
    let report = read_report(run_dir)?;
    let charts = draw_charts(&report)?;
    let (images, frames) = episode_frames(run_dir, &report.results, options.frame_width)?;
    let recorded = frames.iter().filter(|f| f.device.is_some()).count();
    let steps = frames.iter().map(|f| f.frames.len()).sum();
    let distinct_frames = images.len();
    let html = page::page(&report, &charts, &images, frames);
    let summary = ReportSummary { episodes: report.results.len(), recorded, steps, distinct_frames, bytes: html.len() };
    Ok((html, summary))
}

fn draw_charts(report: &RunReport) -> Result<page::Charts, ReportError> {
    let results = &report.results;
    let one = |v: &str| vec![v.to_owned()];
    let mut charts = vec![
        (
            "category",
            charts::success_by("Success by category", &tally::tally_by(results, |r| one(&r.category), &["app", "mini_app", "cross_app"]))?,
        ),
        (
            "difficulty",
            charts::success_by("Success by difficulty", &tally::tally_by(results, |r| one(&r.difficulty), &["easy", "medium", "hard"]))?,
        ),
        ("app", charts::success_by("Success by app", &tally::tally_by(results, |r| r.apps.clone(), &[]))?),
        ("skill", charts::success_by("Success by skill", &tally::tally_by(results, |r| r.skills.clone(), &[]))?),
        ("steps", charts::steps_per_episode("Steps per episode", &tally::steps_histogram(results))?),
        ("failures", charts::failure_reasons("Why episodes failed", &tally::failure_kinds(results))?),
    ];
    if results.iter().any(|r| r.appearance.is_some()) {
        let by_look = tally::tally_by(results, |r| r.appearance.iter().cloned().collect(), &[]);
        charts.push(("appearance", charts::success_by("Success by appearance", &by_look)?));
    }
    Ok(page::Charts(charts))
}

/// Every episode's frames: the trajectories read in run order, each distinct frame (by its
/// hash) shrunk once, on all cores. Returns the images and, per episode, its steps pointing
/// into them.
fn episode_frames(run_dir: &Path, results: &[EpisodeSummary], width: u32) -> Result<(Vec<String>, Vec<page::EpisodeFrames>), ReportError> {
    let mut sources: Vec<PathBuf> = Vec::new();
    let mut index_of: BTreeMap<String, usize> = BTreeMap::new();
    let mut episodes = Vec::with_capacity(results.len());
    for entry in results {
        let Some(trajectory) =
            read_trajectory(&run_dir.join(phoneworld_tasks::episode_dir(&entry.template, entry.seed, entry.appearance.as_deref())))?
        else {
            episodes.push(page::EpisodeFrames { device: None, frames: Vec::new() });
            continue;
        };
        let frames = trajectory
            .steps
            .iter()
            .map(|step| {
                let image = step.image.as_ref().map(|path| {
                    let key = step.frame_hash.clone().unwrap_or_else(|| path.display().to_string());
                    *index_of.entry(key).or_insert_with(|| {
                        sources.push(path.clone());
                        sources.len() - 1
                    })
                });
                json!({
                    "image": image, "action": step.action, "package": step.package, "screen": step.screen,
                    "ok": step.ok, "note": step.note,
                })
            })
            .collect();
        episodes.push(page::EpisodeFrames { device: Some(trajectory.device), frames });
    }
    Ok((shrink_all(&sources, width)?, episodes))
}

/// [`frames::frame_data_url`] of every path, split between the cores, in order.
fn shrink_all(paths: &[PathBuf], width: u32) -> Result<Vec<String>, ReportError> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(paths.len().max(1));
    let per_thread = paths.len().div_ceil(threads).max(1);
    let chunks: Vec<Result<Vec<String>, ReportError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = paths
            .chunks(per_thread)
            .map(|chunk| scope.spawn(move || chunk.iter().map(|path| frames::frame_data_url(path, width)).collect()))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(ReportError::Run { path: PathBuf::new(), message: "a frame worker panicked".into() })))
            .collect()
    });
    let mut all = Vec::with_capacity(paths.len());
    for chunk in chunks {
        all.extend(chunk?);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run folder under the system's temp dir, removed when dropped.
    struct Folder(PathBuf);

    impl Folder {
        fn new(name: &str) -> Folder {
            let dir = std::env::temp_dir().join(format!("phoneworld-report-test-{}-{name}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            Folder(dir)
        }

        fn write(&self, name: &str, text: &str) {
            let path = self.0.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    }

    impl Drop for Folder {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    const REPORT: &str = r#"{"suite":"s","suite_hash":"h","apps_hash":"a","agent":"oracle","seeds":1,"episodes":1,"success_rate":0.0,
        "by_category":{},"failures":[],"results":[{"template":"t","seed":0,"category":"app","apps":["com.x"],"difficulty":"easy",
        "skills":["search"],"instruction":"Find </script><script>alert(1)</script> now","success":false,"steps":1,
        "failure":{"step":1,"reason":"success[0] does not hold: Exists { app: \"com.x\" }"}}]}"#;

    #[test]
    fn a_broken_step_line_is_named_by_file_and_line() {
        let run = Folder::new("broken");
        run.write("report.json", REPORT);
        run.write("t-0/episode.json", r#"{"device":{"width":1080,"height":2400}}"#);
        run.write("t-0/steps.jsonl", "{\"action\":{\"type\":\"wait\",\"ms\":1}}\n{\"action\": oops}\n");
        let err = render_report(&run.0, &ReportOptions::default()).unwrap_err().to_string();
        assert!(err.contains("t-0/steps.jsonl line 2"), "{err}");
    }

    #[test]
    fn text_from_the_run_cannot_break_out_of_the_page() {
        let run = Folder::new("escape");
        run.write("report.json", REPORT);
        let (html, summary) = render_report(&run.0, &ReportOptions::default()).unwrap();
        assert_eq!((summary.episodes, summary.recorded), (1, 0));
        // One script element for the data and one for the viewer, whatever the instruction says.
        assert_eq!(html.matches("<script").count(), 2);
        assert!(html.contains(r"Find \u003c/script>"));
        for chart in ["category", "difficulty", "app", "skill", "steps", "failures"] {
            assert!(html.contains(&format!("id=\"chart-{chart}\"")), "{chart}");
        }
    }
}
