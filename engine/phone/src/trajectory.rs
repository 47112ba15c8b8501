//! Writing trajectories: a folder per episode with `episode.json` and `steps.jsonl` (one
//! line per step: the observation before the action, the action, and what it did), plus a
//! PNG and the uiautomator XML of each step.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use phoneworld_data::Action;
use serde_json::{json, Value};

use crate::device::{Device, StepResult};

/// Writes one episode.
pub struct TrajectoryWriter {
    dir: PathBuf,
    steps: BufWriter<File>,
    count: u64,
    images: bool,
}

impl TrajectoryWriter {
    /// Creates the folder; `images` = false skips PNG and XML files (hashes are still written).
    pub fn create(dir: &Path, images: bool) -> std::io::Result<TrajectoryWriter> {
        std::fs::create_dir_all(dir)?;
        let steps = BufWriter::new(File::create(dir.join("steps.jsonl"))?);
        Ok(TrajectoryWriter { dir: dir.to_path_buf(), steps, count: 0, images })
    }

    /// Records the observation of `device`, then the action and its result.
    pub fn record(&mut self, action: &Action, before: &Observation, result: &StepResult) -> std::io::Result<()> {
        let line = json!({
            "step": self.count,
            "action": action.to_json(),
            "result": { "ok": result.ok, "note": result.note, "script_errors": result.script_errors },
            "package": before.package,
            "screen": before.screen,
            "ui_elements": before.ui_elements,
            "state_hash": before.state_hash,
            "frame_hash": before.frame_hash,
            "image": before.image,
            "xml": before.xml,
        });
        self.count += 1;
        serde_json::to_writer(&mut self.steps, &line)?;
        self.steps.write_all(b"\n")
    }

    /// Takes the observation of the current screen (writing its PNG and XML when enabled).
    pub fn observe(&mut self, device: &mut Device) -> std::io::Result<Observation> {
        let (package, screen) = device.foreground();
        let frame = device.frame();
        let (image, xml) = if self.images {
            let image = format!("step_{:05}.png", self.count);
            std::fs::write(self.dir.join(&image), frame.to_png())?;
            let xml = format!("step_{:05}.xml", self.count);
            std::fs::write(self.dir.join(&xml), device.ui_xml())?;
            (Some(image), Some(xml))
        } else {
            (None, None)
        };
        Ok(Observation {
            package,
            screen,
            ui_elements: serde_json::to_value(device.ui_elements()).unwrap_or(Value::Null),
            state_hash: device.state_hash(),
            frame_hash: frame.hash(),
            image,
            xml,
        })
    }

    /// Writes `episode.json` and flushes the steps.
    pub fn finish(mut self, episode: &Value) -> std::io::Result<()> {
        self.steps.flush()?;
        std::fs::write(self.dir.join("episode.json"), serde_json::to_vec_pretty(episode)?)
    }
}

/// What an agent saw before acting.
#[derive(Debug, Clone)]
pub struct Observation {
    pub package: String,
    pub screen: String,
    pub ui_elements: Value,
    pub state_hash: String,
    pub frame_hash: String,
    pub image: Option<String>,
    pub xml: Option<String>,
}
