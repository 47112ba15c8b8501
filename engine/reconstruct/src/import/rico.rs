//! Rico interaction traces: `gestures.json` (`{"<screen id>": [[x, y], ...]}`, points
//! normalized to 0..1, one point a tap, several a swipe) and `view_hierarchies/<id>.json`.

use std::path::Path;

use serde_json::Value;

use super::hierarchy::{image_size, rico_node, root_extent};
use crate::error::{parse_json, read_text, ReconError};
use crate::trace::{Screen, Trace, TraceAction, TraceStep};

fn read_screen(dir: &Path, id: u64) -> Result<Screen, ReconError> {
    let file = dir.join("view_hierarchies").join(format!("{id}.json"));
    let screenshot = ["jpg", "png", "jpeg"].iter().map(|e| format!("screenshots/{id}.{e}")).find(|rel| dir.join(rel).is_file());
    if !file.is_file() {
        let size = screenshot.as_ref().and_then(|s| image_size(&dir.join(s))).unwrap_or((1440, 2560));
        let mut s = Screen::hash_only(&id.to_string(), size.0, size.1);
        s.screenshot = screenshot;
        return Ok(s);
    }
    let v = parse_json(&file, &read_text(&file)?)?;
    if v.is_null() {
        // Rico stores `null` for a screen whose hierarchy could not be captured.
        return Ok(Screen::from_root(&id.to_string(), "", "", 1440, 2560, None));
    }
    let activity_name = match v.get("activity_name") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(_) => return Err(ReconError::field(&file, "activity_name", "expected a string")),
    };
    let root_value = v.get("activity").and_then(|a| a.get("root")).ok_or_else(|| ReconError::field(&file, "activity.root", "missing"))?;
    let root = rico_node(&file, "activity.root", root_value, 0)?;
    let size = root.as_ref().map(root_extent).unwrap_or((1440, 2560));
    let package = activity_name.split('/').next().unwrap_or_default().to_owned();
    let mut screen = Screen::from_root(&id.to_string(), &package, &activity_name, size.0, size.1, root);
    screen.screenshot = screenshot;
    Ok(screen)
}

pub(super) fn import(dir: &Path) -> Result<Trace, ReconError> {
    let mut trace = Trace::new("rico", dir);
    let gestures_file = dir.join("gestures.json");
    let gestures = parse_json(&gestures_file, &read_text(&gestures_file)?)?;
    let map =
        gestures.as_object().ok_or_else(|| ReconError::field(&gestures_file, "(root)", "expected {\"<screen id>\": [[x, y], ...]}"))?;
    let mut ids: Vec<(u64, &Value)> = Vec::new();
    for (key, points) in map {
        let id = key.parse::<u64>().map_err(|_| ReconError::field(&gestures_file, key, "screen ids must be integers"))?;
        ids.push((id, points));
    }
    // Screens are ordered by their integer id; ids need not be contiguous.
    ids.sort_by_key(|(id, _)| *id);
    for (id, _) in &ids {
        let screen = read_screen(dir, *id)?;
        trace.screens.insert(screen.id.clone(), screen);
    }
    for (k, (id, points)) in ids.iter().enumerate() {
        let field = id.to_string();
        let list = points.as_array().ok_or_else(|| ReconError::field(&gestures_file, &field, "expected a list of [x, y] points"))?;
        let mut pts = Vec::with_capacity(list.len());
        for (j, p) in list.iter().enumerate() {
            match p.as_array().map(|a| a.iter().map(Value::as_f64).collect::<Option<Vec<f64>>>()) {
                Some(Some(xy)) if xy.len() == 2 && xy.iter().all(|c| (-0.05..=1.05).contains(c)) => pts.push((xy[0], xy[1])),
                _ => {
                    return Err(ReconError::field(
                        &gestures_file,
                        format!("{field}[{j}]"),
                        format!("`{p}` is not a normalized [x, y] point"),
                    ))
                }
            }
        }
        let screen = trace.screens.get(&field).map(|s| (s.width, s.height)).unwrap_or((1440, 2560));
        let px = |(x, y): (f64, f64)| (x * f64::from(screen.0), y * f64::from(screen.1));
        let action = match pts.len() {
            0 => TraceAction::Wait,
            1 => {
                let (x, y) = px(pts[0]);
                TraceAction::Tap { x, y }
            }
            _ => {
                let (x1, y1) = px(pts[0]);
                let (x2, y2) = px(pts[pts.len() - 1]);
                TraceAction::Swipe { x1, y1, x2, y2 }
            }
        };
        let next = ids.get(k + 1).map(|(n, _)| n.to_string());
        // The last screen's gesture has no screen after it; an empty one is just the end.
        if next.is_none() && matches!(action, TraceAction::Wait) {
            continue;
        }
        trace.steps.push(TraceStep { screen: field, action, target: None, next });
    }
    Ok(trace)
}
