//! LlamaTouch traces: numbered screens (`i.xml`, `i.vh`, `i.json`, `i.activity`, `i.png`)
//! and `eventStructs.txt`, where action k takes screen k to screen k + 1.

use std::path::Path;

use serde_json::Value;

use super::hierarchy::{parse_bracket_bounds, read_flat_nodes, read_uiautomator_xml, root_extent, wrap_tops};
use super::scan::{out_of_range, point_coord, too_many_nodes, Budget};
use super::{present, screen_size, screenshot_size};
use crate::error::{parse_json, ReconError};
use crate::limits::{MAX_COORD, MAX_HIERARCHY_FILE_BYTES, MAX_LOG_FILE_BYTES, MAX_SCREEN_NODES, MAX_SIDE_FILE_BYTES, MAX_STEPS};
use crate::trace::{Screen, Trace, TraceAction, TraceStep, UiNode};

/// The numbers in `(a, b)` groups of a line, in order.
fn pairs(line: &str) -> Vec<(f64, f64)> {
    line.split('(')
        .skip(1)
        .filter_map(|part| {
            let inner = part.split(')').next()?;
            let (a, b) = inner.split_once(',')?;
            Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
        })
        .collect()
}

/// One `eventStructs.txt` line; points are scaled from the stated resolution to `size`.
pub(crate) fn parse_event(path: &Path, line_no: usize, line: &str, size: (u32, u32)) -> Result<TraceAction, ReconError> {
    let line = line.trim();
    let (tag, rest) = match line.strip_prefix('[').and_then(|l| l.split_once(']')) {
        Some((tag, rest)) => (tag.trim(), rest.trim()),
        None => return Err(ReconError::line(path, line_no, format!("`{line}`: expected `[Action] ...`"))),
    };
    let scaled = |needed: usize| -> Result<Vec<(f64, f64)>, ReconError> {
        let p = pairs(rest);
        if p.len() != needed + 1 {
            return Err(ReconError::line(path, line_no, format!("`{line}`: expected Screen Resolution (W, H) and {needed} position(s)")));
        }
        let (rw, rh) = p[0];
        if !(rw >= 1.0 && rh >= 1.0 && point_coord(rw).is_some() && point_coord(rh).is_some()) {
            return Err(ReconError::line(path, line_no, format!("`{line}`: the resolution must be 1 to {MAX_COORD} pixels")));
        }
        // Parsed floats may be NaN or infinite ("nan", "inf"): refused, never passed on.
        p[1..]
            .iter()
            .map(|(x, y)| match (point_coord(x / rw * f64::from(size.0)), point_coord(y / rh * f64::from(size.1))) {
                (Some(x), Some(y)) => Ok((x, y)),
                _ => Err(ReconError::line(path, line_no, format!("`{line}`: {}", out_of_range("a position")))),
            })
            .collect()
    };
    Ok(match tag {
        "Home" => TraceAction::Key { key: "home".into() },
        "Back" => TraceAction::Key { key: "back".into() },
        "Enter" => TraceAction::Key { key: "enter".into() },
        "Click" | "Tap" => {
            let p = scaled(1)?;
            TraceAction::Tap { x: p[0].0, y: p[0].1 }
        }
        "LongClick" | "LongPress" => {
            let p = scaled(1)?;
            TraceAction::LongPress { x: p[0].0, y: p[0].1 }
        }
        "Swipe" => {
            let p = scaled(2)?;
            TraceAction::Swipe { x1: p[0].0, y1: p[0].1, x2: p[1].0, y2: p[1].1 }
        }
        "Input" | "Type" => TraceAction::TypeText { text: rest.to_owned() },
        other => return Err(ReconError::line(path, line_no, format!("unknown action type `[{other}]`"))),
    })
}

/// The simplified element list (`i.json`): elements with `bounds "[x1,y1][x2,y2]"`, flat.
pub(crate) fn read_simplified(path: &Path, v: &Value) -> Result<Option<UiNode>, ReconError> {
    let list = v.as_array().ok_or_else(|| ReconError::field(path, "(root)", "expected a list of elements"))?;
    if list.len() > MAX_SCREEN_NODES {
        return Err(ReconError::field(path, "(root)", too_many_nodes()));
    }
    let mut nodes = Vec::new();
    for (i, e) in list.iter().enumerate() {
        let raw = e.get("bounds").and_then(Value::as_str).unwrap_or("");
        let bounds = parse_bracket_bounds(raw).ok_or_else(|| {
            ReconError::field(path, format!("[{i}].bounds"), format!("`{raw}` is not [x1,y1][x2,y2] within ±{MAX_COORD}"))
        })?;
        let s = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        let b = |k: &str| e.get(k).and_then(Value::as_bool).unwrap_or(false);
        let mut node = UiNode::new(&s("class"), bounds);
        node.resource_id = s("resource-id");
        node.text = s("text");
        node.content_desc = s("content-desc");
        node.clickable = b("clickable");
        node.checkable = b("checkable");
        node.checked = b("checked");
        node.scrollable = b("scrollable");
        node.editable = node.class.ends_with("EditText");
        nodes.push(node);
    }
    if nodes.is_empty() {
        return Ok(None);
    }
    Ok(Some(wrap_tops(nodes)))
}

/// The hierarchy of screen `i`: `i.xml`, else `i.vh`, else `i.json`, else none.
fn read_hierarchy(dir: &Path, i: usize, budget: &mut Budget) -> Result<Option<UiNode>, ReconError> {
    let file = |ext: &str| dir.join(format!("{i}.{ext}"));
    let (xml, vh, json) = (file("xml"), file("vh"), file("json"));
    let root = if present(&xml) {
        Some(read_uiautomator_xml(&xml, &budget.read_text(&xml, MAX_HIERARCHY_FILE_BYTES)?)?)
    } else if present(&vh) {
        read_flat_nodes(&vh, "(root)", &parse_json(&vh, &budget.read_text(&vh, MAX_HIERARCHY_FILE_BYTES)?)?)?
    } else if present(&json) {
        read_simplified(&json, &parse_json(&json, &budget.read_text(&json, MAX_HIERARCHY_FILE_BYTES)?)?)?
    } else {
        None
    };
    if let Some(root) = &root {
        budget.take_nodes(&file("xml"), root.size_and_depth().0)?;
    }
    Ok(root)
}

fn read_screen(dir: &Path, i: usize, budget: &mut Budget, notes: &mut Vec<String>) -> Result<Screen, ReconError> {
    let root = read_hierarchy(dir, i, budget)?;
    let activity_file = dir.join(format!("{i}.activity"));
    let activity =
        if present(&activity_file) { budget.read_text(&activity_file, MAX_SIDE_FILE_BYTES)?.trim().to_owned() } else { String::new() };
    let activity = if activity == "null" { String::new() } else { activity };
    let screenshot = Some(format!("{i}.png")).filter(|rel| present(&dir.join(rel)));
    let shot = screenshot.as_ref().and_then(|s| screenshot_size(dir, s, notes));
    let size = screen_size(shot, root.as_ref().map(root_extent), (1080, 2400));
    // `pkg/Activity`; a window name without a slash (the launcher's wallpaper) has no package.
    let package = activity.split_once('/').map(|(p, _)| p.to_owned()).unwrap_or_default();
    let mut screen = Screen::from_root(&i.to_string(), &package, &activity, size.0, size.1, root);
    if package.is_empty() && activity.contains("Wallpaper") {
        // The launcher shows over the wallpaper window; its nodes name the launcher package.
        screen.package =
            screen.root.as_ref().map(|r| r.package.clone()).filter(|p| !p.is_empty()).unwrap_or_else(|| "com.android.launcher".into());
    }
    // A screenshot that cannot be used is left out (noted above).
    screen.screenshot = screenshot.filter(|_| shot.is_some());
    Ok(screen)
}

/// The non-empty lines of `eventStructs.txt`, numbered; more than `MAX_STEPS` is refused.
pub(crate) fn event_lines<'t>(path: &Path, text: &'t str) -> Result<Vec<(usize, &'t str)>, ReconError> {
    let lines: Vec<(usize, &str)> = text.lines().enumerate().map(|(i, l)| (i + 1, l)).filter(|(_, l)| !l.trim().is_empty()).collect();
    if lines.len() > MAX_STEPS {
        return Err(ReconError::format(path, format!("{} actions: over the limit of {MAX_STEPS}", lines.len())));
    }
    Ok(lines)
}

pub(super) fn import(dir: &Path) -> Result<Trace, ReconError> {
    let mut trace = Trace::new("llamatouch", dir);
    let mut budget = Budget::default();
    let events_file = dir.join("eventStructs.txt");
    let events_text = budget.read_text(&events_file, MAX_LOG_FILE_BYTES)?;
    let lines = event_lines(&events_file, &events_text)?;
    let has_screen = |i: usize| ["xml", "vh", "json", "png", "activity"].iter().any(|ext| present(&dir.join(format!("{i}.{ext}"))));
    let mut count = 0;
    while has_screen(count) {
        count += 1;
        if count > MAX_STEPS + 1 {
            return Err(ReconError::format(dir, format!("more than {} numbered screens (the limit)", MAX_STEPS + 1)));
        }
    }
    if count == 0 {
        return Err(ReconError::format(dir, "no numbered screens (0.xml, 0.vh, 0.json or 0.png)"));
    }
    for i in 0..count {
        let screen = read_screen(dir, i, &mut budget, &mut trace.notes)?;
        trace.screens.insert(screen.id.clone(), screen);
    }
    if lines.len() > count - 1 {
        trace.notes.push(format!("{} action(s) on the last saved screen have no next screen", lines.len() - (count - 1)));
    }
    for (k, (line_no, line)) in lines.iter().enumerate() {
        let id = k.min(count - 1).to_string();
        let size = trace.screens.get(&id).map(|s| (s.width, s.height)).unwrap_or((1080, 2400));
        let action = parse_event(&events_file, *line_no, line, size)?;
        let next = (k + 1 < count).then(|| (k + 1).to_string());
        trace.steps.push(TraceStep { screen: id, action, target: None, next });
    }
    trace.instruction = instruction(dir, &mut budget)?;
    Ok(trace)
}

/// The task sentence of `instruction.txt`, when there is one: its lines that are not only a
/// number (LlamaTouch writes the trace's number on a line of its own), joined.
fn instruction(dir: &Path, budget: &mut Budget) -> Result<Option<String>, ReconError> {
    let file = dir.join("instruction.txt");
    if !present(&file) {
        return Ok(None);
    }
    let text = budget.read_text(&file, MAX_SIDE_FILE_BYTES)?;
    let words: Vec<&str> = text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.chars().all(|c| c.is_ascii_digit())).collect();
    Ok((!words.is_empty()).then(|| words.join(" ")))
}
