//! PhoneWorld's own trajectories: `episode.json` and `steps.jsonl` (the observation before
//! each action, the action, the screenshot and the uiautomator XML of each step).

use std::path::Path;

use phoneworld_data::{Action, UiElement};
use serde_json::Value;

use super::hierarchy::{read_uiautomator_xml, root_extent, wrap_tops};
use super::scan::{action_in_range, check_json_size, coord, out_of_range, screen_size, too_many_nodes, Budget};
use super::uiautomator::from_canonical;
use super::{inside, present, screenshot_size};
use crate::error::{parse_json, ReconError};
use crate::limits::{MAX_HIERARCHY_FILE_BYTES, MAX_LOG_FILE_BYTES, MAX_SCREEN_NODES, MAX_STEPS};
use crate::trace::{Screen, Trace, TraceStep, UiNode};

/// A hierarchy from the UI element list, when a step has no XML (elements are leaves).
fn from_elements(elements: &[UiElement]) -> Result<UiNode, String> {
    if elements.len() > MAX_SCREEN_NODES {
        return Err(too_many_nodes());
    }
    let mut nodes = Vec::with_capacity(elements.len());
    for e in elements {
        let Some(b) = e.bbox_pixels else { continue };
        let px = |v: f64| if v.is_finite() { coord(v.round() as i64) } else { None };
        let (Some(x1), Some(y1), Some(x2), Some(y2)) = (px(b.x_min), px(b.y_min), px(b.x_max), px(b.y_max)) else {
            return Err(format!("bbox_pixels ({}, {}, {}, {}): {}", b.x_min, b.y_min, b.x_max, b.y_max, out_of_range("a coordinate")));
        };
        let mut n = UiNode::new(e.class_name.as_deref().unwrap_or("android.view.View"), [x1, y1, x2, y2]);
        n.text = e.text.clone().unwrap_or_default();
        n.content_desc = e.content_description.clone().unwrap_or_default();
        n.resource_id = e.resource_id.clone().unwrap_or_default();
        n.package = e.package_name.clone().unwrap_or_default();
        n.clickable = e.is_clickable.unwrap_or(false);
        n.long_clickable = e.is_long_clickable.unwrap_or(false);
        n.checkable = e.is_checkable.unwrap_or(false);
        n.checked = e.is_checked.unwrap_or(false);
        n.editable = e.is_editable.unwrap_or(false);
        n.focused = e.is_focused.unwrap_or(false);
        n.scrollable = e.is_scrollable.unwrap_or(false);
        nodes.push(n);
    }
    Ok(wrap_tops(nodes))
}

/// `episode.json`'s device size, when it gives one; `file` names it in errors.
pub(crate) fn parse_episode(file: &Path, text: &str) -> Result<Option<(u32, u32)>, ReconError> {
    let v = parse_json(file, text)?;
    let size = |field: &str| match v.pointer(&format!("/device/{field}")) {
        None | Some(Value::Null) => Ok(None),
        Some(n) => n.as_i64().and_then(screen_size).map(Some).ok_or_else(|| {
            ReconError::field(file, format!("device.{field}"), format!("`{n}`: {}", out_of_range("a screen size of at least 1")))
        }),
    };
    Ok(size("width")?.zip(size("height")?))
}

/// Reads `steps.jsonl` into `trace`. With `dir`, a step's XML and screenshot are read from
/// it; without, the UI element lists alone give the hierarchies (no file is touched).
pub(crate) fn parse_steps(
    file: &Path,
    text: &str,
    dir: Option<&Path>,
    device: Option<(u32, u32)>,
    budget: &mut Budget,
    trace: &mut Trace,
) -> Result<(), ReconError> {
    let mut ids: Vec<String> = Vec::new();
    let mut actions = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let err = |m: String| ReconError::line(file, line_no, m);
        if actions.len() == MAX_STEPS {
            return Err(err(format!("more than {MAX_STEPS} steps (the limit)")));
        }
        check_json_size(file, line).map_err(|e| err(e.to_string()))?;
        let v: Value = serde_json::from_str(line).map_err(|e| err(format!("column {}: {e}", e.column())))?;
        let action = v.get("action").ok_or_else(|| err("field `action`: missing".into()))?;
        let action = Action::from_json(&action.to_string()).map_err(|e| err(format!("field `action`: {e}")))?;
        let action = from_canonical(&action);
        action_in_range(&action).map_err(|m| err(format!("field `action`: {m}")))?;
        let package = v.get("package").and_then(Value::as_str).ok_or_else(|| err("field `package`: missing or not a string".into()))?;
        let screen_name = v.get("screen").and_then(Value::as_str).unwrap_or_default();
        let frame_hash = v.get("frame_hash").and_then(Value::as_str).unwrap_or_default();
        // Screens are told apart by what is drawn; the frame hash says exactly that.
        let id =
            if frame_hash.is_empty() { format!("step{line_no}") } else { format!("f{}", frame_hash.chars().take(16).collect::<String>()) };
        if !trace.screens.contains_key(&id) {
            let reference = |field: &str| -> Result<Option<String>, ReconError> {
                match v.get(field) {
                    None | Some(Value::Null) => Ok(None),
                    Some(Value::String(s)) => Ok(Some(inside(s).map_err(|m| err(format!("field `{field}`: {m}")))?.to_owned())),
                    Some(_) => Err(err(format!("field `{field}`: expected a file name"))),
                }
            };
            let xml = reference("xml")?.zip(dir).map(|(rel, dir)| dir.join(rel)).filter(|p| present(p));
            let root = match xml {
                Some(xml) => read_uiautomator_xml(&xml, &budget.read_text(&xml, MAX_HIERARCHY_FILE_BYTES)?)?,
                None => {
                    let elements: Vec<UiElement> = match v.get("ui_elements") {
                        Some(e) => serde_json::from_value(e.clone()).map_err(|e| err(format!("field `ui_elements`: {e}")))?,
                        None => return Err(err("field `ui_elements`: missing (and no `xml` file)".into())),
                    };
                    from_elements(&elements).map_err(|m| err(format!("field `ui_elements`: {m}")))?
                }
            };
            budget.take_nodes(file, root.size_and_depth().0)?;
            let (w, h) = device.unwrap_or_else(|| root_extent(&root));
            let mut screen = Screen::from_root(&id, package, &format!("{package}/{screen_name}"), w, h, Some(root));
            screen.package = package.to_owned();
            let image = reference("image")?.filter(|img| dir.is_some_and(|d| present(&d.join(img))));
            // A screenshot that cannot be used is left out, with a note.
            screen.screenshot = image.filter(|img| dir.is_some_and(|d| screenshot_size(d, img, &mut trace.notes).is_some()));
            trace.screens.insert(id.clone(), screen);
        }
        ids.push(id);
        actions.push(action);
    }
    if actions.is_empty() {
        return Err(ReconError::format(file, "no steps"));
    }
    for (k, action) in actions.into_iter().enumerate() {
        trace.steps.push(TraceStep { screen: ids[k].clone(), action, target: None, next: ids.get(k + 1).cloned() });
    }
    Ok(())
}

/// `episode.json`'s instruction (a task episode's, or what a recording on a device was for).
fn episode_instruction(file: &Path, text: &str) -> Result<Option<String>, ReconError> {
    match parse_json(file, text)?.get("instruction") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|s| !s.is_empty())),
        Some(_) => Err(ReconError::field(file, "instruction", "expected a string")),
    }
}

pub(super) fn import(dir: &Path) -> Result<Trace, ReconError> {
    let mut trace = Trace::new("phoneworld", dir);
    let mut budget = Budget::default();
    let episode_file = dir.join("episode.json");
    let episode = if present(&episode_file) { Some(budget.read_text(&episode_file, MAX_LOG_FILE_BYTES)?) } else { None };
    let device = episode.as_deref().map(|text| parse_episode(&episode_file, text)).transpose()?.flatten();
    trace.instruction = episode.as_deref().map(|text| episode_instruction(&episode_file, text)).transpose()?.flatten();
    let steps_file = dir.join("steps.jsonl");
    let text = budget.read_text(&steps_file, MAX_LOG_FILE_BYTES)?;
    parse_steps(&steps_file, &text, Some(dir), device, &mut budget, &mut trace)?;
    Ok(trace)
}
