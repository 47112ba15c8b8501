//! Rico interaction traces: `gestures.json` (`{"<screen id>": [[x, y], ...]}`, points
//! normalized to 0..1, one point a tap, several a swipe unless they stay within the touch
//! slop) and `view_hierarchies/<id>.json`.

use std::path::Path;

use serde_json::Value;

use super::hierarchy::{rico_node, root_extent};
use super::scan::Budget;
use super::{present, screen_size, screenshot_size};
use crate::error::{parse_json, ReconError};
use crate::limits::{MAX_HIERARCHY_FILE_BYTES, MAX_LOG_FILE_BYTES, MAX_STEPS};
use crate::trace::{Screen, Trace, TraceAction, TraceStep, UiNode};

/// A view hierarchy file, parsed: the activity's name and its root (`None` when Rico could
/// not capture the screen and stored `null`).
pub(crate) fn parse_hierarchy(file: &Path, text: &str) -> Result<Option<(String, Option<UiNode>)>, ReconError> {
    let v = parse_json(file, text)?;
    if v.is_null() {
        return Ok(None);
    }
    let activity_name = match v.get("activity_name") {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(_) => return Err(ReconError::field(file, "activity_name", "expected a string")),
    };
    let root_value = v.get("activity").and_then(|a| a.get("root")).ok_or_else(|| ReconError::field(file, "activity.root", "missing"))?;
    let root = rico_node(file, "activity.root", root_value, 0, &mut 0)?;
    Ok(Some((activity_name, root)))
}

fn read_screen(dir: &Path, id: u64, budget: &mut Budget, notes: &mut Vec<String>) -> Result<Screen, ReconError> {
    let file = dir.join("view_hierarchies").join(format!("{id}.json"));
    let screenshot = ["jpg", "png", "jpeg"].iter().map(|e| format!("screenshots/{id}.{e}")).find(|rel| present(&dir.join(rel)));
    let shot = screenshot.as_ref().and_then(|s| screenshot_size(dir, s, notes));
    // A screenshot that cannot be used is left out (noted above).
    let screenshot = screenshot.filter(|_| shot.is_some());
    if !present(&file) {
        let size = shot.unwrap_or((1440, 2560));
        let mut s = Screen::hash_only(&id.to_string(), size.0, size.1);
        s.screenshot = screenshot;
        return Ok(s);
    }
    let Some((activity_name, root)) = parse_hierarchy(&file, &budget.read_text(&file, MAX_HIERARCHY_FILE_BYTES)?)? else {
        // Rico stores `null` for a screen whose hierarchy could not be captured.
        return Ok(Screen::from_root(&id.to_string(), "", "", 1440, 2560, None));
    };
    if let Some(root) = &root {
        budget.take_nodes(&file, root.size_and_depth().0)?;
    }
    let size = screen_size(shot, root.as_ref().map(root_extent), (1440, 2560));
    let package = activity_name.split('/').next().unwrap_or_default().to_owned();
    let mut screen = Screen::from_root(&id.to_string(), &package, &activity_name, size.0, size.1, root);
    screen.screenshot = screenshot;
    Ok(screen)
}

/// A screen id and the normalized points of the gesture made on it.
pub(crate) type Gesture = (u64, Vec<(f64, f64)>);

/// `gestures.json`, parsed: each screen id with its normalized points, ordered by id.
pub(crate) fn parse_gestures(file: &Path, text: &str) -> Result<Vec<Gesture>, ReconError> {
    let gestures = parse_json(file, text)?;
    let map = gestures.as_object().ok_or_else(|| ReconError::field(file, "(root)", "expected {\"<screen id>\": [[x, y], ...]}"))?;
    if map.len() > MAX_STEPS + 1 {
        return Err(ReconError::field(file, "(root)", format!("{} screens: over the limit of {}", map.len(), MAX_STEPS + 1)));
    }
    let mut out = Vec::with_capacity(map.len());
    for (key, points) in map {
        let id = key.parse::<u64>().map_err(|_| ReconError::field(file, key, "screen ids must be integers"))?;
        let list = points.as_array().ok_or_else(|| ReconError::field(file, key, "expected a list of [x, y] points"))?;
        let mut pts = Vec::with_capacity(list.len());
        for (j, p) in list.iter().enumerate() {
            match p.as_array().map(|a| a.iter().map(Value::as_f64).collect::<Option<Vec<f64>>>()) {
                Some(Some(xy)) if xy.len() == 2 && xy.iter().all(|c| (-0.05..=1.05).contains(c)) => pts.push((xy[0], xy[1])),
                _ => return Err(ReconError::field(file, format!("{key}[{j}]"), format!("`{p}` is not a normalized [x, y] point"))),
            }
        }
        out.push((id, pts));
    }
    // Screens are ordered by their integer id; ids need not be contiguous.
    out.sort_by_key(|(id, _)| *id);
    Ok(out)
}

/// How far a finger may move, as a share of the screen's width, and still tap: Android's
/// touch slop of 8 dp on a phone about 411 dp wide. Rico records a tap whose finger shook by a
/// pixel as two points.
const TOUCH_SLOP: f64 = 8.0 / 411.0;

/// Whether every point of a gesture (normalized) stays within the touch slop of its first.
fn within_touch_slop(pts: &[(f64, f64)]) -> bool {
    let Some(&(x0, y0)) = pts.first() else { return true };
    // The slop in the height's share: a phone's screen is about twice as tall as wide.
    pts.iter().all(|&(x, y)| (x - x0).abs() <= TOUCH_SLOP && (y - y0).abs() <= TOUCH_SLOP / 2.0)
}

/// The most of the screen's height a navigation bar takes (Android's are 42 to 56 dp of at
/// least about 530 dp).
const MAX_BAR_SHARE: f64 = 0.1;

/// The key a tap pressed when it landed on the phone's navigation bar: below the app's
/// window (Rico's points are shares of the whole screen, its hierarchy stops above the bar)
/// and in the back, home or recents button's third of the bar. Only a window that is the
/// app's whole screen above the bar tells where the bar is: one from the top left across
/// the width, ending less than a bar's height above the screen's foot (not a dialog, nor a
/// root never laid out).
fn navigation_key(x_share: f64, y: f64, window: Option<[i32; 4]>, (screen_w, screen_h): (u32, u32)) -> Option<&'static str> {
    let [x1, y1, x2, y2] = window?;
    let (w, h, end) = (f64::from(screen_w), f64::from(screen_h), f64::from(y2));
    let whole_width = x1 <= 0 && y1 <= 0 && f64::from(x2) >= w;
    let bar = h - end;
    if !whole_width || bar <= 0.0 || bar > MAX_BAR_SHARE * h || y < end {
        return None;
    }
    Some(match x_share {
        x if x < 1.0 / 3.0 => "back",
        x if x < 2.0 / 3.0 => "home",
        _ => "recents",
    })
}

pub(super) fn import(dir: &Path) -> Result<Trace, ReconError> {
    let mut trace = Trace::new("rico", dir);
    let mut budget = Budget::default();
    let gestures_file = dir.join("gestures.json");
    let ids = parse_gestures(&gestures_file, &budget.read_text(&gestures_file, MAX_LOG_FILE_BYTES)?)?;
    for (id, _) in &ids {
        let screen = read_screen(dir, *id, &mut budget, &mut trace.notes)?;
        trace.screens.insert(screen.id.clone(), screen);
    }
    for (k, (id, pts)) in ids.iter().enumerate() {
        let field = id.to_string();
        let screen = trace.screens.get(&field);
        let size = screen.map(|s| (s.width, s.height)).unwrap_or((1440, 2560));
        let window = screen.and_then(|s| s.root.as_ref()).map(|r| r.bounds);
        let px = |(x, y): (f64, f64)| (x * f64::from(size.0), y * f64::from(size.1));
        let action = match pts.len() {
            0 => TraceAction::Wait,
            _ if within_touch_slop(pts) => {
                let (x, y) = px(pts[0]);
                match navigation_key(pts[0].0, y, window, size) {
                    Some(key) => TraceAction::Key { key: key.into() },
                    None => TraceAction::Tap { x, y },
                }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finger_that_shook_by_a_pixel_tapped_and_one_that_moved_swiped() {
        // Rico's recordings: two points 0.0017 of the height apart, and a scroll of a third of it.
        assert!(within_touch_slop(&[(0.467, 0.898), (0.467, 0.896)]));
        assert!(within_touch_slop(&[(0.714, 0.745)]));
        assert!(!within_touch_slop(&[(0.305, 0.728), (0.305, 0.6), (0.31, 0.414)]));
        assert!(!within_touch_slop(&[(0.2, 0.5), (0.3, 0.5)]), "a short swipe sideways");
    }

    #[test]
    fn a_tap_below_the_window_presses_the_navigation_bars_button_under_it() {
        // A 1440x2560 phone whose app window ends at 2392, above the 168 px bar.
        let (window, screen) = (Some([0, 0, 1440, 2392]), (1440, 2560));
        assert_eq!(navigation_key(0.235, 2488.0, window, screen), Some("back"));
        assert_eq!(navigation_key(0.5, 2450.0, window, screen), Some("home"));
        assert_eq!(navigation_key(0.76, 2500.0, window, screen), Some("recents"));
        assert_eq!(navigation_key(0.235, 2300.0, window, screen), None, "in the window: a tap on the app");
        assert_eq!(navigation_key(0.235, 2500.0, Some([0, 0, 1440, 2560]), screen), None, "a full-screen window has no bar");
        assert_eq!(navigation_key(0.235, 2500.0, None, screen), None, "no hierarchy: nothing says where the bar is");
        assert_eq!(navigation_key(0.235, 2500.0, Some([0, 0, 0, 0]), screen), None, "a root never laid out");
        assert_eq!(navigation_key(0.235, 2000.0, Some([84, 900, 1356, 1500]), screen), None, "a tap beside a dialog");
        assert_eq!(navigation_key(0.235, 2500.0, Some([0, 0, 1440, 1800]), screen), None, "a window ending far above the foot");
    }
}
