//! DroidBot output: `events/event_<tag>.json` (one action each, with `start_state` and
//! `stop_state` hashes) and `states/state_<tag>.json` (the first visit of each state).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::hierarchy::{droidbot_node, read_flat_nodes, root_extent};
use super::scan::{out_of_range, point_coord, Budget};
use super::{present, screenshot_size};
use crate::error::{parse_json, ReconError};
use crate::limits::{MAX_EVENT_FILE_BYTES, MAX_HIERARCHY_FILE_BYTES, MAX_STEPS};
use crate::trace::{Screen, ScreenKind, Target, Trace, TraceAction, TraceStep, UiNode};
use crate::visual::image_size;

/// The sorted `<prefix>*.json` files of a folder; more than `MAX_STEPS` is refused as soon
/// as they are counted (each state is a screen, each event a step).
fn files(dir: &Path, prefix: &str) -> Result<Vec<PathBuf>, ReconError> {
    let rd = std::fs::read_dir(dir).map_err(|e| ReconError::io(dir, e))?;
    let mut out = Vec::new();
    for path in rd.filter_map(|e| e.ok().map(|e| e.path())) {
        if path.extension().is_some_and(|e| e == "json") && path.file_name().is_some_and(|n| n.to_string_lossy().starts_with(prefix)) {
            out.push(path);
            if out.len() > MAX_STEPS {
                return Err(ReconError::format(dir, format!("more than {MAX_STEPS} {prefix}*.json files (the limit)")));
            }
        }
    }
    out.sort();
    Ok(out)
}

fn str_at<'v>(path: &Path, v: &'v Value, field: &str) -> Result<&'v str, ReconError> {
    v.get(field).and_then(Value::as_str).ok_or_else(|| ReconError::field(path, field, "missing or not a string"))
}

/// The screenshot saved beside a state, whatever its extension. The tag comes from the
/// state file: only a plain tag names a file (never one in another folder).
fn screenshot_of(dir: &Path, tag: &str) -> Option<String> {
    let plain = !tag.is_empty() && !tag.contains("..") && tag.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
    if !plain {
        return None;
    }
    ["png", "jpg", "jpeg"].iter().map(|ext| format!("states/screen_{tag}.{ext}")).find(|rel| present(&dir.join(rel)))
}

/// One state file, parsed.
pub(crate) struct RawState {
    pub(crate) id: String,
    pub(crate) activity: String,
    pub(crate) root: Option<UiNode>,
    tag: String,
    screenshot: Option<String>,
}

/// Parses a state file's text; `file` names it in errors.
pub(crate) fn parse_state(file: &Path, text: &str) -> Result<RawState, ReconError> {
    let v = parse_json(file, text)?;
    let id = str_at(file, &v, "state_str")?.to_owned();
    let activity = match v.get("foreground_activity") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(_) => return Err(ReconError::field(file, "foreground_activity", "expected a string")),
    };
    let views = v.get("views").ok_or_else(|| ReconError::field(file, "views", "missing"))?;
    let root = read_flat_nodes(file, "views", views)?;
    let tag = v.get("tag").and_then(Value::as_str).unwrap_or_default().to_owned();
    Ok(RawState { id, activity, root, tag, screenshot: None })
}

fn read_state(dir: &Path, file: &Path, budget: &mut Budget) -> Result<RawState, ReconError> {
    let mut state = parse_state(file, &budget.read_text(file, MAX_HIERARCHY_FILE_BYTES)?)?;
    if let Some(root) = &state.root {
        budget.take_nodes(file, root.size_and_depth().0)?;
    }
    state.screenshot = screenshot_of(dir, &state.tag);
    Ok(state)
}

/// The full-screen size of the run: the most common extent of full-window hierarchies.
fn run_size(dir: &Path, states: &[RawState]) -> (u32, u32) {
    let mut counts: BTreeMap<(u32, u32), usize> = BTreeMap::new();
    for s in states {
        if let Some(root) = s.root.as_ref().filter(|r| r.bounds[0] == 0 && r.bounds[1] == 0) {
            *counts.entry(root_extent(root)).or_default() += 1;
        }
    }
    if let Some((size, _)) = counts.iter().max_by_key(|(size, n)| (**n, std::cmp::Reverse(**size))) {
        return *size;
    }
    // A screenshot that cannot be used is noted where the screen takes it.
    states.iter().find_map(|s| s.screenshot.as_ref().and_then(|p| image_size(&dir.join(p)).ok())).unwrap_or((1080, 2400))
}

fn key_name(path: &Path, name: &str) -> Result<String, ReconError> {
    Ok(match name.to_ascii_uppercase().as_str() {
        "HOME" => "home",
        "BACK" => "back",
        "MENU" => "menu",
        "ENTER" => "enter",
        "APP_SWITCH" | "RECENTS" => "recents",
        "DEL" | "DELETE" => "delete",
        other => return Err(ReconError::field(path, "event.name", format!("unknown key `{other}`"))),
    }
    .to_owned())
}

/// `am start [-n] pkg/activity`, `am force-stop pkg`.
fn intent_action(intent: &str) -> Option<TraceAction> {
    let words: Vec<&str> = intent.split_whitespace().collect();
    let component = words.iter().skip(2).find(|w| !w.starts_with('-') && w.contains('/'))?;
    match words.get(..2)? {
        ["am", "start"] => Some(TraceAction::OpenApp { app: component.split('/').next()?.to_owned() }),
        _ => None,
    }
}

fn center(b: [i32; 4]) -> (f64, f64) {
    (f64::from(b[0] + b[2]) / 2.0, f64::from(b[1] + b[3]) / 2.0)
}

/// The action of one event file and its target node.
fn event_action(file: &Path, event: &Value) -> Result<(TraceAction, Option<Target>), ReconError> {
    let kind = event
        .get("event_type")
        .and_then(Value::as_str)
        .ok_or_else(|| ReconError::field(file, "event.event_type", "missing or not a string"))?;
    let view = match event.get("view") {
        None | Some(Value::Null) => None,
        Some(v) => Some(droidbot_node(file, "event.view", v)?),
    };
    let point = |view: &Option<UiNode>| -> Result<(f64, f64), ReconError> {
        match (event.get("x").and_then(Value::as_f64), event.get("y").and_then(Value::as_f64), view) {
            (Some(x), Some(y), _) => match (point_coord(x), point_coord(y)) {
                (Some(x), Some(y)) => Ok((x, y)),
                _ => Err(ReconError::field(file, "event.x", format!("({x}, {y}): {}", out_of_range("a coordinate")))),
            },
            (_, _, Some(v)) => Ok(center(v.bounds)),
            _ => Err(ReconError::field(file, "event", format!("a `{kind}` event needs `x` and `y` or a `view`"))),
        }
    };
    let target = view.clone().map(|node| Target { path: None, node });
    let action = match kind {
        // Older DroidBot writes `touch` and `long_touch`; the version DroidTask was recorded
        // with writes `click` and `long_click` for the same events.
        "touch" | "click" => {
            let (x, y) = point(&view)?;
            TraceAction::Tap { x, y }
        }
        "long_touch" | "long_click" => {
            let (x, y) = point(&view)?;
            TraceAction::LongPress { x, y }
        }
        "scroll" | "swipe" => {
            let b = view
                .as_ref()
                .map(|v| v.bounds)
                .ok_or_else(|| ReconError::field(file, "event.view", "a scroll needs the view it scrolls"))?;
            let (cx, cy) = center(b);
            let (dx, dy) = (f64::from(b[2] - b[0]) * 0.3, f64::from(b[3] - b[1]) * 0.3);
            // DroidBot's direction is where the content moves into view: UP drags the finger down.
            let dir = event.get("direction").and_then(Value::as_str).unwrap_or("DOWN");
            let (x1, y1, x2, y2) = match dir {
                "UP" => (cx, cy - dy, cx, cy + dy),
                "DOWN" => (cx, cy + dy, cx, cy - dy),
                "LEFT" => (cx - dx, cy, cx + dx, cy),
                "RIGHT" => (cx + dx, cy, cx - dx, cy),
                other => return Err(ReconError::field(file, "event.direction", format!("unknown direction `{other}`"))),
            };
            TraceAction::Swipe { x1, y1, x2, y2 }
        }
        "set_text" => TraceAction::TypeText { text: event.get("text").and_then(Value::as_str).unwrap_or_default().to_owned() },
        "key" => TraceAction::Key { key: key_name(file, event.get("name").and_then(Value::as_str).unwrap_or(""))? },
        "intent" => {
            let intent = event
                .get("intent")
                .and_then(Value::as_str)
                .ok_or_else(|| ReconError::field(file, "event.intent", "missing or not a string"))?;
            if let Some(pkg) = intent.strip_prefix("am force-stop ") {
                TraceAction::CloseApp { app: pkg.trim().to_owned() }
            } else {
                intent_action(intent).unwrap_or(TraceAction::Wait)
            }
        }
        "kill_app" => {
            let stop = event.get("stop_intent").and_then(Value::as_str).unwrap_or_default();
            TraceAction::CloseApp { app: stop.strip_prefix("am force-stop ").unwrap_or(stop).trim().to_owned() }
        }
        "spawn" | "wait" | "exit" => TraceAction::Wait,
        other => return Err(ReconError::field(file, "event.event_type", format!("unknown event type `{other}`"))),
    };
    Ok((action, target))
}

/// One event file, parsed: the step from `start` to `stop`.
pub(crate) struct RawEvent {
    pub(crate) start: String,
    pub(crate) stop: String,
    pub(crate) action: TraceAction,
    pub(crate) target: Option<Target>,
}

/// Parses an event file's text; `file` names it in errors.
pub(crate) fn parse_event(file: &Path, text: &str) -> Result<RawEvent, ReconError> {
    let v = parse_json(file, text)?;
    let start = str_at(file, &v, "start_state")?.to_owned();
    let stop = str_at(file, &v, "stop_state")?.to_owned();
    let event = v.get("event").ok_or_else(|| ReconError::field(file, "event", "missing"))?;
    let (action, target) = event_action(file, event)?;
    Ok(RawEvent { start, stop, action, target })
}

pub(super) fn import(dir: &Path) -> Result<Trace, ReconError> {
    let mut trace = Trace::new("droidbot", dir);
    let mut budget = Budget::default();
    let states: Vec<RawState> =
        files(&dir.join("states"), "state_")?.iter().map(|f| read_state(dir, f, &mut budget)).collect::<Result<_, _>>()?;
    let (width, height) = run_size(dir, &states);
    for s in states {
        let package = s.activity.split('/').next().unwrap_or_default().to_owned();
        let mut screen = Screen::from_root(&s.id, &package, &s.activity, width, height, s.root);
        screen.screenshot = s.screenshot.filter(|rel| screenshot_size(dir, rel, &mut trace.notes).is_some());
        trace.screens.insert(s.id, screen);
    }
    let events = files(&dir.join("events"), "event_")?;
    if events.is_empty() {
        return Err(ReconError::format(&dir.join("events"), "no event_*.json files"));
    }
    let mut hash_only = 0;
    let mut empty = Vec::new();
    for file in &events {
        let text = budget.read_text(file, MAX_EVENT_FILE_BYTES)?;
        // DroidBot stopped while writing it: nothing was recorded, and nothing is lost by
        // going on without it (a file with anything in it must parse).
        if text.trim().is_empty() {
            empty.push(file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
            continue;
        }
        let RawEvent { start, stop, action, target } = parse_event(file, &text)?;
        for id in [&start, &stop] {
            if !trace.screens.contains_key(id) {
                hash_only += 1;
                trace.screens.insert(id.clone(), Screen::hash_only(id, width, height));
            }
        }
        // The state HOME lands on, when it was not saved, is the launcher.
        if matches!(&action, TraceAction::Key { key } if key == "home") {
            if let Some(s) = trace.screens.get_mut(&stop).filter(|s| s.kind == ScreenKind::HashOnly) {
                s.package = "com.android.launcher".into();
                s.activity = "com.android.launcher/(reached by HOME)".into();
            }
        }
        trace.steps.push(TraceStep { screen: start, action, target, next: Some(stop) });
    }
    if !empty.is_empty() {
        trace.notes.push(format!("{} empty event file(s) left out: {}", empty.len(), empty.join(", ")));
    }
    if hash_only > 0 {
        let known: Vec<&str> = trace.screens.values().filter(|s| s.kind == ScreenKind::HashOnly).map(|s| s.id.as_str()).collect();
        trace.notes.push(format!("{} state(s) known only by hash: {}", known.len(), known.join(", ")));
    }
    Ok(trace)
}
