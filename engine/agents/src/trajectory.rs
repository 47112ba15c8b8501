//! Writing trajectories: a folder per episode with `episode.json` and `steps.jsonl` (one
//! line per step: the observation before the action, the action, and what it did), plus a
//! PNG and the uiautomator XML of each step.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use phoneworld_data::Action;
use serde_json::{json, Value};

use phoneworld_phone::{Device, StepResult};

/// How screenshots are written.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ImageFormat {
    Png,
    /// JPEG at this quality (1-100).
    Jpeg(u8),
}

impl ImageFormat {
    /// `jpeg` (quality 90) or `png`, as the command line and Python name them.
    pub fn parse(text: &str) -> Option<ImageFormat> {
        match text {
            "jpeg" | "jpg" => Some(ImageFormat::Jpeg(90)),
            "png" => Some(ImageFormat::Png),
            _ => None,
        }
    }
}

/// What a trajectory stores per step besides the JSON line.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ImageOptions {
    pub format: ImageFormat,
    /// Screenshots at this size (as `Device::frame_scaled` draws it); `None` keeps the device size.
    pub size: Option<(u32, u32)>,
    /// Also write the uiautomator XML.
    pub xml: bool,
}

impl Default for ImageOptions {
    fn default() -> Self {
        ImageOptions { format: ImageFormat::Png, size: None, xml: true }
    }
}

/// Writes one episode.
pub struct TrajectoryWriter {
    dir: PathBuf,
    steps: BufWriter<File>,
    count: u64,
    images: Option<ImageOptions>,
}

impl TrajectoryWriter {
    /// Creates the folder; `images` = false skips image and XML files (hashes are still written).
    pub fn create(dir: &Path, images: bool) -> std::io::Result<TrajectoryWriter> {
        TrajectoryWriter::with_images(dir, images.then(ImageOptions::default))
    }

    /// Creates the folder, writing screenshots as the options say.
    pub fn with_images(dir: &Path, images: Option<ImageOptions>) -> std::io::Result<TrajectoryWriter> {
        std::fs::create_dir_all(dir)?;
        let steps = BufWriter::new(File::create(dir.join("steps.jsonl"))?);
        Ok(TrajectoryWriter { dir: dir.to_path_buf(), steps, count: 0, images })
    }

    /// Records the observation of `device`, then the action and its result.
    fn record(&mut self, action: &Action, before: &Observation, result: &StepResult) -> std::io::Result<()> {
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
    fn observe(&mut self, device: &mut Device) -> std::io::Result<Observation> {
        let (package, screen) = device.foreground();
        let frame = device.frame();
        let (image, xml) = match self.images {
            Some(options) => {
                // The size an env observes, drawn the way it draws it.
                let shot = match options.size {
                    Some((w, h)) => device.frame_scaled(w, h),
                    None => std::sync::Arc::clone(&frame),
                };
                let image = match options.format {
                    ImageFormat::Png => {
                        let name = format!("step_{:05}.png", self.count);
                        std::fs::write(self.dir.join(&name), shot.to_png())?;
                        name
                    }
                    ImageFormat::Jpeg(quality) => {
                        let name = format!("step_{:05}.jpg", self.count);
                        let mut encoder = jpeg_encoder::Encoder::new_file(self.dir.join(&name), quality)
                            .map_err(|e| std::io::Error::other(e.to_string()))?;
                        // 4:2:0 chroma, as libjpeg does at every quality: half the work and size.
                        encoder.set_sampling_factor(jpeg_encoder::SamplingFactor::R_4_2_0);
                        encoder
                            .encode(&shot.pixels, shot.width as u16, shot.height as u16, jpeg_encoder::ColorType::Rgba)
                            .map_err(|e| std::io::Error::other(e.to_string()))?;
                        name
                    }
                };
                let xml = if options.xml {
                    let xml = format!("step_{:05}.xml", self.count);
                    std::fs::write(self.dir.join(&xml), device.ui_xml())?;
                    Some(xml)
                } else {
                    None
                };
                (Some(image), xml)
            }
            None => (None, None),
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

/// Applies an action; with a writer, the observation before it and the result are recorded.
pub fn step_recorded(device: &mut Device, action: &Action, writer: Option<&mut TrajectoryWriter>) -> std::io::Result<StepResult> {
    let Some(writer) = writer else { return Ok(device.step(action)) };
    let before = writer.observe(device)?;
    let result = device.step(action);
    writer.record(action, &before, &result)?;
    Ok(result)
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
