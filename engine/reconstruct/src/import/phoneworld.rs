//! PhoneWorld's own trajectories: `episode.json` and `steps.jsonl` (the observation before
//! each action, the action, the screenshot and the uiautomator XML of each step).

use std::path::Path;

use phoneworld_data::{Action, UiElement};
use serde_json::Value;

use super::hierarchy::{read_uiautomator_xml, root_extent, wrap_tops};
use super::uiautomator::from_canonical;
use crate::error::{parse_json, read_text, ReconError};
use crate::trace::{Screen, Trace, TraceStep, UiNode};

/// A hierarchy from the UI element list, when a step has no XML (elements are leaves).
fn from_elements(elements: &[UiElement]) -> UiNode {
    let nodes: Vec<UiNode> = elements
        .iter()
        .filter_map(|e| {
            let b = e.bbox_pixels?;
            let mut n = UiNode::new(
                e.class_name.as_deref().unwrap_or("android.view.View"),
                [b.x_min as i32, b.y_min as i32, b.x_max as i32, b.y_max as i32],
            );
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
            Some(n)
        })
        .collect();
    wrap_tops(nodes)
}

pub(super) fn import(dir: &Path) -> Result<Trace, ReconError> {
    let mut trace = Trace::new("phoneworld", dir);
    let episode_file = dir.join("episode.json");
    let device = if episode_file.is_file() {
        let v = parse_json(&episode_file, &read_text(&episode_file)?)?;
        let w = v.pointer("/device/width").and_then(Value::as_u64);
        let h = v.pointer("/device/height").and_then(Value::as_u64);
        w.zip(h).map(|(w, h)| (w as u32, h as u32))
    } else {
        None
    };
    let steps_file = dir.join("steps.jsonl");
    let text = read_text(&steps_file)?;
    let mut ids: Vec<String> = Vec::new();
    let mut actions = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let err = |m: String| ReconError::line(&steps_file, line_no, m);
        let v: Value = serde_json::from_str(line).map_err(|e| err(format!("column {}: {e}", e.column())))?;
        let action = v.get("action").ok_or_else(|| err("field `action`: missing".into()))?;
        let action = Action::from_json(&action.to_string()).map_err(|e| err(format!("field `action`: {e}")))?;
        let package = v.get("package").and_then(Value::as_str).ok_or_else(|| err("field `package`: missing or not a string".into()))?;
        let screen_name = v.get("screen").and_then(Value::as_str).unwrap_or_default();
        let frame_hash = v.get("frame_hash").and_then(Value::as_str).unwrap_or_default();
        let root = match v.get("xml").and_then(Value::as_str) {
            Some(xml) if dir.join(xml).is_file() => read_uiautomator_xml(&dir.join(xml), &read_text(&dir.join(xml))?)?,
            _ => {
                let elements: Vec<UiElement> = match v.get("ui_elements") {
                    Some(e) => serde_json::from_value(e.clone()).map_err(|e| err(format!("field `ui_elements`: {e}")))?,
                    None => return Err(err("field `ui_elements`: missing (and no `xml` file)".into())),
                };
                from_elements(&elements)
            }
        };
        // Screens are told apart by what is drawn; the frame hash says exactly that.
        let id =
            if frame_hash.is_empty() { format!("step{line_no}") } else { format!("f{}", frame_hash.chars().take(16).collect::<String>()) };
        if !trace.screens.contains_key(&id) {
            let (w, h) = device.unwrap_or_else(|| root_extent(&root));
            let mut screen = Screen::from_root(&id, package, &format!("{package}/{screen_name}"), w, h, Some(root));
            screen.package = package.to_owned();
            screen.screenshot = v.get("image").and_then(Value::as_str).filter(|img| dir.join(img).is_file()).map(str::to_owned);
            trace.screens.insert(id.clone(), screen);
        }
        ids.push(id);
        actions.push(from_canonical(&action));
    }
    if actions.is_empty() {
        return Err(ReconError::format(&steps_file, "no steps"));
    }
    for (k, action) in actions.into_iter().enumerate() {
        trace.steps.push(TraceStep { screen: ids[k].clone(), action, target: None, next: ids.get(k + 1).cloned() });
    }
    Ok(trace)
}
