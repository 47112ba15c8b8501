//! uiautomator dumps plus an action log: a JSONL file whose lines are
//! `{"screen": "<file>.xml", "screenshot": "<file>.png", "action": <canonical action>}`.

use std::path::Path;

use phoneworld_data::{Action, Key};
use serde_json::Value;

use super::hierarchy::{read_uiautomator_xml, root_extent};
use super::scan::{action_in_range, check_json_size, Budget};
use super::{inside, screenshot_size};
use crate::error::ReconError;
use crate::limits::{MAX_HIERARCHY_FILE_BYTES, MAX_LOG_FILE_BYTES, MAX_STEPS};
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

/// One line of the action log.
pub(crate) struct Row {
    pub(crate) screen: String,
    screenshot: Option<String>,
    pub(crate) action: TraceAction,
}

/// Parses the action log's text; `file` names it in errors.
pub(crate) fn parse_log(file: &Path, text: &str) -> Result<Vec<Row>, ReconError> {
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        if rows.len() == MAX_STEPS {
            return Err(ReconError::line(file, line_no, format!("more than {MAX_STEPS} actions (the limit)")));
        }
        let err = |m: String| ReconError::line(file, line_no, m);
        check_json_size(file, line).map_err(|e| err(e.to_string()))?;
        let v: Value = serde_json::from_str(line).map_err(|e| err(format!("column {}: {e}", e.column())))?;
        let screen = v.get("screen").and_then(Value::as_str).ok_or_else(|| err("field `screen`: missing or not a string".into()))?;
        let screen = inside(screen).map_err(|m| err(format!("field `screen`: {m}")))?.to_owned();
        let action = v.get("action").ok_or_else(|| err("field `action`: missing".into()))?;
        let action = Action::from_json(&action.to_string()).map_err(|e| err(format!("field `action`: {e}")))?;
        let action = from_canonical(&action);
        action_in_range(&action).map_err(|m| err(format!("field `action`: {m}")))?;
        let screenshot = match v.get("screenshot") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(inside(s).map_err(|m| err(format!("field `screenshot`: {m}")))?.to_owned()),
            Some(_) => return Err(err("field `screenshot`: expected a file name".into())),
        };
        rows.push(Row { screen, screenshot, action });
    }
    if rows.is_empty() {
        return Err(ReconError::format(file, "no actions"));
    }
    Ok(rows)
}

pub(super) fn import(file: &Path) -> Result<Trace, ReconError> {
    let mut trace = Trace::new("uiautomator", file);
    let mut budget = Budget::default();
    let dir = file.parent().unwrap_or(Path::new("."));
    let rows = parse_log(file, &budget.read_text(file, MAX_LOG_FILE_BYTES)?)?;
    for row in &rows {
        if trace.screens.contains_key(&row.screen) {
            continue;
        }
        let xml = dir.join(&row.screen);
        let root = read_uiautomator_xml(&xml, &budget.read_text(&xml, MAX_HIERARCHY_FILE_BYTES)?)?;
        budget.take_nodes(&xml, root.size_and_depth().0)?;
        let shot = row.screenshot.as_ref().and_then(|s| screenshot_size(dir, s, &mut trace.notes));
        let size = shot.unwrap_or_else(|| root_extent(&root));
        let package = root.package.clone();
        let mut s = Screen::from_root(&row.screen, &package, "", size.0, size.1, Some(root));
        // A screenshot that cannot be used is left out (noted above).
        s.screenshot = row.screenshot.clone().filter(|_| shot.is_some());
        trace.screens.insert(row.screen.clone(), s);
    }
    for (k, row) in rows.iter().enumerate() {
        let next = rows.get(k + 1).map(|r| r.screen.clone());
        trace.steps.push(TraceStep { screen: row.screen.clone(), action: row.action.clone(), target: None, next });
    }
    Ok(trace)
}
