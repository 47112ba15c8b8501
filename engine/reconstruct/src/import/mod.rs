//! Importers: every supported trace format read into the canonical [`Trace`].

pub(crate) mod droidbot;
pub(crate) mod droidtask;
pub(crate) mod hierarchy;
pub(crate) mod llamatouch;
pub(crate) mod phoneworld;
pub(crate) mod rico;
pub(crate) mod scan;
pub(crate) mod uiautomator;

use std::path::{Component, Path, PathBuf};

use crate::error::ReconError;
use crate::limits::MAX_COORD;
use crate::trace::Trace;
use crate::visual::image_size;

/// A trace format, named on the command line or detected.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TraceFormat {
    DroidBot,
    /// DroidBot output with human task demonstrations (`taskN.yaml`) beside it.
    DroidTask,
    LlamaTouch,
    Rico,
    UiAutomator,
    PhoneWorld,
    /// A trace already in the canonical format (`phoneworld-trace/1`).
    Canonical,
}

impl TraceFormat {
    pub const NAMES: &'static str = "auto, droidbot, droidtask, llamatouch, rico, uiautomator, phoneworld, canonical";

    /// Parses a `--format` value; `auto` gives `None`.
    pub fn parse(name: &str) -> Result<Option<TraceFormat>, ReconError> {
        Ok(Some(match name.to_ascii_lowercase().as_str() {
            "auto" => return Ok(None),
            "droidbot" => TraceFormat::DroidBot,
            "droidtask" => TraceFormat::DroidTask,
            "llamatouch" => TraceFormat::LlamaTouch,
            "rico" => TraceFormat::Rico,
            "uiautomator" => TraceFormat::UiAutomator,
            "phoneworld" => TraceFormat::PhoneWorld,
            "canonical" => TraceFormat::Canonical,
            other => return Err(ReconError::Input(format!("--format {other}: expected one of {}", TraceFormat::NAMES))),
        }))
    }

    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::DroidBot => "droidbot",
            TraceFormat::DroidTask => "droidtask",
            TraceFormat::LlamaTouch => "llamatouch",
            TraceFormat::Rico => "rico",
            TraceFormat::UiAutomator => "uiautomator",
            TraceFormat::PhoneWorld => "phoneworld",
            TraceFormat::Canonical => "canonical",
        }
    }
}

/// A DroidBot output folder: `events/` and `states/` side by side.
fn is_droidbot(dir: &Path) -> bool {
    dir.join("events").is_dir() && dir.join("states").is_dir()
}

/// A trace's file, present in any form: a pipe or a device where a file should be is read,
/// and refused with an error naming it, rather than passed over as missing.
pub(crate) fn present(path: &Path) -> bool {
    path.exists()
}

/// The size of a screenshot a trace names, or a note naming the file when it cannot be used
/// (screenshots are optional: the screen is kept without one).
pub(crate) fn screenshot_size(dir: &Path, rel: &str, notes: &mut Vec<String>) -> Option<(u32, u32)> {
    match image_size(&dir.join(rel)) {
        Ok(size) => Some(size),
        Err(e) => {
            notes.push(format!("{e}; the screenshot is left out"));
            None
        }
    }
}

/// A screen's size in the hierarchy's coordinates: a screenshot smaller than the hierarchy's
/// width is the whole screen downscaled, so its aspect gives the height (a window's hierarchy
/// may stop above the navigation bar its screenshot shows); without a hierarchy, the
/// screenshot's size; without either, `fallback`. Never shorter than the hierarchy.
pub(crate) fn screen_size(shot: Option<(u32, u32)>, extent: Option<(u32, u32)>, fallback: (u32, u32)) -> (u32, u32) {
    match (shot, extent) {
        (Some((w, h)), Some((rw, rh))) if rw > w => {
            // Never shorter than the hierarchy (a bar on the side leaves the aspect short).
            let height = (f64::from(rw) * f64::from(h) / f64::from(w.max(1))).round().min(MAX_COORD as f64);
            (rw, (height as u32).max(rh))
        }
        (Some(size), _) => size,
        (None, Some(extent)) => extent,
        (None, None) => fallback,
    }
}

/// A file name a trace gives for another of its files: relative, and never out of its folder.
pub(crate) fn inside(reference: &str) -> Result<&str, String> {
    let path = Path::new(reference);
    let plain = path.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if reference.is_empty() || !plain {
        return Err(format!("`{reference}` is not a file name inside the trace's folder"));
    }
    Ok(reference)
}

fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "jsonl")).collect())
        .unwrap_or_default();
    files.sort();
    files
}

/// The sorted sub-folders of a folder.
fn subdirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_dir()).collect()).unwrap_or_default();
    dirs.sort();
    dirs
}

/// Finds the format of a trace and the path its importer reads (a DroidBot report may sit
/// one or two folders down, as in DroidBot's own output layout).
pub fn detect(path: &Path) -> Result<(TraceFormat, PathBuf), ReconError> {
    if !path.exists() {
        return Err(ReconError::format(path, "no such file or folder"));
    }
    // Anything but a folder is told by its name; a pipe or device is refused when read.
    if !path.is_dir() {
        let ext = path.extension().map(|e| e.to_string_lossy().to_lowercase()).unwrap_or_default();
        return match ext.as_str() {
            "jsonl" if path.file_name().is_some_and(|n| n == "steps.jsonl") => {
                Ok((TraceFormat::PhoneWorld, path.parent().unwrap_or(path).to_path_buf()))
            }
            "jsonl" => Ok((TraceFormat::UiAutomator, path.to_path_buf())),
            "json" => Ok((TraceFormat::Canonical, path.to_path_buf())),
            "txt" if path.file_name().is_some_and(|n| n == "eventStructs.txt") => {
                Ok((TraceFormat::LlamaTouch, path.parent().unwrap_or(path).to_path_buf()))
            }
            _ => Err(ReconError::format(
                path,
                format!("cannot tell the trace format of this file; name one with --format ({})", TraceFormat::NAMES),
            )),
        };
    }
    if present(&path.join("steps.jsonl")) {
        return Ok((TraceFormat::PhoneWorld, path.to_path_buf()));
    }
    if present(&path.join("eventStructs.txt")) {
        return Ok((TraceFormat::LlamaTouch, path.to_path_buf()));
    }
    if present(&path.join("gestures.json")) {
        return Ok((TraceFormat::Rico, path.to_path_buf()));
    }
    if droidtask::is_droidtask(path) {
        return Ok((TraceFormat::DroidTask, path.to_path_buf()));
    }
    if is_droidbot(path) {
        return Ok((TraceFormat::DroidBot, path.to_path_buf()));
    }
    let jsonl = jsonl_files(path);
    if jsonl.len() == 1 {
        return Ok((TraceFormat::UiAutomator, jsonl[0].clone()));
    }
    for sub in subdirs(path) {
        if is_droidbot(&sub) {
            return Ok((TraceFormat::DroidBot, sub));
        }
        for subsub in subdirs(&sub) {
            if is_droidbot(&subsub) {
                return Ok((TraceFormat::DroidBot, subsub));
            }
        }
    }
    Err(ReconError::format(
        path,
        "not a known trace: expected DroidBot output (events/, states/), a LlamaTouch trace (eventStructs.txt), a Rico trace \
         (gestures.json), a PhoneWorld trajectory (steps.jsonl) or a uiautomator action log (*.jsonl)",
    ))
}

/// The folder a named format's importer reads, for a path given on the command line.
fn locate(format: TraceFormat, path: &Path) -> Result<PathBuf, ReconError> {
    match detect(path) {
        Ok((found, p)) if found == format => Ok(p),
        _ => Ok(path.to_path_buf()),
    }
}

/// Imports one trace; `format` `None` detects it. Every trace keeps the limits of
/// [`crate::limits`], whatever its format. A DroidTask folder gives its recording here; its
/// demonstrations come with [`import_all`].
pub fn import(path: &Path, format: Option<TraceFormat>) -> Result<Trace, ReconError> {
    let mut traces = import_all(path, format)?;
    Ok(traces.swap_remove(0))
}

/// Imports every trace a path holds: one for most formats; for a DroidTask folder the
/// recording, then one trace per task demonstration, each with its instruction.
pub fn import_all(path: &Path, format: Option<TraceFormat>) -> Result<Vec<Trace>, ReconError> {
    let (format, path) = match format {
        Some(f) => (f, locate(f, path)?),
        None => detect(path)?,
    };
    let mut traces = match format {
        TraceFormat::DroidBot => vec![droidbot::import(&path)?],
        TraceFormat::DroidTask => droidtask::import_all(&path)?,
        TraceFormat::LlamaTouch => vec![llamatouch::import(&path)?],
        TraceFormat::Rico => vec![rico::import(&path)?],
        TraceFormat::UiAutomator => vec![uiautomator::import(&path)?],
        TraceFormat::PhoneWorld => vec![phoneworld::import(&path)?],
        TraceFormat::Canonical => return Ok(vec![Trace::load(&path)?]),
    };
    for trace in &mut traces {
        trace.check_limits(&path)?;
        // Before targets are resolved: taps on opaque screens land on what was read there.
        if let Err(why) = crate::see::recover(trace) {
            trace.notes.push(format!("screens whose hierarchy says too little were not read from their screenshots: {why}"));
        }
        trace.resolve_targets();
    }
    Ok(traces)
}

#[cfg(test)]
mod tests {
    use super::screen_size;

    #[test]
    fn a_screens_size_is_its_screenshots_aspect_at_the_hierarchys_scale() {
        // A window stopping above the navigation bar, its screenshot the whole screen at 3/4.
        assert_eq!(screen_size(Some((1080, 1920)), Some((1440, 2392)), (1, 1)), (1440, 2560));
        assert_eq!(screen_size(Some((1080, 2400)), Some((1080, 2400)), (1, 1)), (1080, 2400), "a full-size screenshot");
        assert_eq!(screen_size(None, Some((1440, 2392)), (1, 1)), (1440, 2392), "no screenshot: the hierarchy's");
        assert_eq!(screen_size(None, None, (1080, 2400)), (1080, 2400));
        assert_eq!(screen_size(Some((960, 540)), Some((2392, 1440)), (1, 1)), (2392, 1440), "landscape, the bar on the side");
    }
}
