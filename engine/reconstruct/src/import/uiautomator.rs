//! uiautomator dumps plus an action log: a JSONL file whose lines are
//! `{"screen": "<file>.xml", "screenshot": "<file>.png", "action": <canonical action>}`.

use std::path::Path;

use phoneworld_data::{Action, Key};
use serde_json::Value;

use super::hierarchy::{image_size, read_uiautomator_xml, root_extent};
use crate::error::{read_text, ReconError};
use crate::trace::{Screen, Trace, TraceAction, TraceStep};

/// The canonical action as a trace action (coordinates stay in the screen's pixels).
pub(crate) fn from_canonical(action: &Action) -> TraceAction {
    match action {
        Action::Tap { x, y } | Action::DoubleTap { x, y } => TraceAction::Tap { x: *x, y: *y },
        Action::LongPress { x, y, .. } => TraceAction::LongPress { x: *x, y: *y },
        Action::Swipe { x1, y1, x2, y2, .. } | Action::Drag { x1, y1, x2, y2, .. } => {
            TraceAction::Swipe { x1: *x1, y1: *y1, x2: *x2, y2: *y2 }
        }
        Action::TypeText { text, .. } => TraceAction::TypeText { text: text.clone() },
        Action::Key { key } => TraceAction::Key {
            key: match key {
                Key::Back => "back",
                Key::Home => "home",
                Key::Enter => "enter",
                Key::Recents => "recents",
                Key::Delete => "delete",
                Key::Menu => "menu",
            }
            .into(),
        },
        Action::OpenApp { app } => TraceAction::OpenApp { app: app.clone() },
        Action::CloseApp { app } => TraceAction::CloseApp { app: app.clone() },
        _ => TraceAction::Wait,
    }
}

pub(super) fn import(file: &Path) -> Result<Trace, ReconError> {
    let mut trace = Trace::new("uiautomator", file);
    let dir = file.parent().unwrap_or(Path::new("."));
    let text = read_text(file)?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(line).map_err(|e| ReconError::line(file, line_no, format!("column {}: {e}", e.column())))?;
        let screen = v
            .get("screen")
            .and_then(Value::as_str)
            .ok_or_else(|| ReconError::line(file, line_no, "field `screen`: missing or not a string"))?;
        let action = v.get("action").ok_or_else(|| ReconError::line(file, line_no, "field `action`: missing"))?;
        let action = Action::from_json(&action.to_string()).map_err(|e| ReconError::line(file, line_no, format!("field `action`: {e}")))?;
        let screenshot = match v.get("screenshot") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(_) => return Err(ReconError::line(file, line_no, "field `screenshot`: expected a file name")),
        };
        if !trace.screens.contains_key(screen) {
            let xml = dir.join(screen);
            let root = read_uiautomator_xml(&xml, &read_text(&xml)?)?;
            let size = screenshot.as_ref().and_then(|s| image_size(&dir.join(s))).unwrap_or_else(|| root_extent(&root));
            let package = root.package.clone();
            let mut s = Screen::from_root(screen, &package, "", size.0, size.1, Some(root));
            s.screenshot = screenshot;
            trace.screens.insert(screen.to_owned(), s);
        }
        rows.push((screen.to_owned(), from_canonical(&action)));
    }
    if rows.is_empty() {
        return Err(ReconError::format(file, "no actions"));
    }
    for k in 0..rows.len() {
        let next = rows.get(k + 1).map(|(s, _)| s.clone());
        let (screen, action) = rows[k].clone();
        trace.steps.push(TraceStep { screen, action, target: None, next });
    }
    Ok(trace)
}
