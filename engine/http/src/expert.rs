//! The reference solution as JSON actions, one at a time (the opt-in `/task/expert_action`):
//! for collecting demonstrations through the same API a model acts through, and for checking
//! that every template can be solved through it.
//!
//! With `upstream` set, only what upstream's action set can say is used: a typed text is an
//! `input_text` that taps the focused field (or the last tap) and presses Enter (the Enter, or the Back that
//! hides the keyboard, the solution sends next is then skipped, as is a step whose element the
//! Enter made go away), and a swipe is a `scroll` in its direction. Otherwise the
//! extension fields keep the solution exact: `press_enter: false`, literal drags.

use phoneworld_data::{Action, FinishStatus, Key};
use phoneworld_phone::Device;
use phoneworld_tasks::{Instance, Oracle};
use serde_json::{json, Map, Value};

/// Plays one initialized task's reference solution.
#[derive(Debug, Clone)]
pub struct Expert {
    oracle: Oracle,
    last_tap: Option<(f64, f64)>,
    /// An `input_text` already pressed Enter: skip the solution's own next Enter.
    enter_pressed: bool,
}

impl Expert {
    pub fn new(instance: &Instance) -> Expert {
        Expert { oracle: Oracle::new(instance.template.solution.clone(), instance.params.clone()), last_tap: None, enter_pressed: false }
    }

    /// The next action as a JSON action object, `None` when the solution is done.
    pub fn next(&mut self, device: &mut Device, upstream: bool) -> Result<Option<Value>, String> {
        loop {
            let next = self.oracle.next_action(device);
            // The Enter an upstream `input_text` pressed may have done the solution's next step
            // (confirmed the dialog, saved the form): its element is gone, so go on without it.
            let next = match next {
                Err(_) if upstream && self.enter_pressed => {
                    self.oracle.skip_step();
                    self.oracle.next_action(device)
                }
                other => other,
            };
            let Some(action) = next? else { return Ok(None) };
            let enter_pressed = std::mem::take(&mut self.enter_pressed);
            // Enter already pressed (and the keyboard gone with it): skip the solution's own
            // Enter, and a Back that was only to hide the keyboard.
            let keyboard_gone = device.store().session.focus.is_none();
            if upstream
                && enter_pressed
                && (action == (Action::Key { key: Key::Enter }) || (keyboard_gone && action == (Action::Key { key: Key::Back })))
            {
                continue;
            }
            return self.json_action(&action, device, upstream).map(Some);
        }
    }

    fn json_action(&mut self, action: &Action, device: &mut Device, upstream: bool) -> Result<Value, String> {
        let point = |kind: &str, x: f64, y: f64| json!({"action_type": kind, "x": x.round() as i64, "y": y.round() as i64});
        Ok(match action {
            Action::Tap { x, y } => {
                self.last_tap = Some((*x, *y));
                point("click", *x, *y)
            }
            Action::DoubleTap { x, y } => point("double_tap", *x, *y),
            Action::LongPress { x, y, .. } => point("long_press", *x, *y),
            Action::Swipe { x1, y1, x2, y2, ms } => {
                if upstream {
                    json!({"action_type": "scroll", "direction": scroll_direction(x2 - x1, y2 - y1)})
                } else {
                    json!({"action_type": "scroll", "x": x1.round() as i64, "y": y1.round() as i64,
                           "x2": x2.round() as i64, "y2": y2.round() as i64, "duration": ms})
                }
            }
            Action::TypeText { text, clear } => {
                let mut object = Map::new();
                object.insert("action_type".into(), json!("input_text"));
                object.insert("text".into(), json!(text));
                if *clear {
                    object.insert("clear_text".into(), json!(true));
                }
                if upstream {
                    // Upstream taps before typing: the focused field where it is now (a
                    // keyboard may have moved it), else the last tap.
                    let focused = device.ui_elements().into_iter().find(|e| e.is_focused == Some(true)).and_then(|e| e.bbox_pixels);
                    let target = focused.map(|b| ((b.x_min + b.x_max) / 2.0, (b.y_min + b.y_max) / 2.0)).or(self.last_tap);
                    if let Some((x, y)) = target {
                        object.insert("x".into(), json!(x.round() as i64));
                        object.insert("y".into(), json!(y.round() as i64));
                    }
                    self.enter_pressed = true;
                } else {
                    object.insert("press_enter".into(), json!(false));
                }
                Value::Object(object)
            }
            Action::Key { key: Key::Enter } => json!({"action_type": "keyboard_enter"}),
            Action::Key { key: Key::Back } => json!({"action_type": "navigate_back"}),
            Action::Key { key: Key::Home } => json!({"action_type": "navigate_home"}),
            Action::OpenApp { app } => {
                let label = device.catalog().find(app).map_or_else(|| app.clone(), |a| a.label().to_owned());
                json!({"action_type": "open_app", "app_name": label})
            }
            Action::Wait { .. } => json!({"action_type": "wait"}),
            Action::Answer { text } => json!({"action_type": "answer", "text": text}),
            Action::Finish { status, .. } => {
                let status = match status {
                    FinishStatus::Success => "complete",
                    FinishStatus::Infeasible => "infeasible",
                };
                json!({"action_type": "status", "goal_status": status})
            }
            other => return Err(format!("the reference solution's {} has no JSON action", other.kind())),
        })
    }
}

/// Upstream's scroll direction for a drag by (dx, dy): content moves against the finger.
fn scroll_direction(dx: f64, dy: f64) -> &'static str {
    if dy.abs() >= dx.abs() {
        if dy < 0.0 {
            "down"
        } else {
            "up"
        }
    } else if dx < 0.0 {
        "right"
    } else {
        "left"
    }
}
