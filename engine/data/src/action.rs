//! The canonical action: JSON with a `type` tag, coordinates in device pixels.

use serde::{Deserialize, Serialize};

use crate::DataError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Key {
    Back,
    Home,
    Enter,
    Recents,
    Delete,
    Menu,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FinishStatus {
    Success,
    Infeasible,
}

fn default_long_press_ms() -> u64 {
    800
}
fn default_swipe_ms() -> u64 {
    300
}
fn default_drag_ms() -> u64 {
    800
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    Tap {
        x: f64,
        y: f64,
    },
    DoubleTap {
        x: f64,
        y: f64,
    },
    LongPress {
        x: f64,
        y: f64,
        #[serde(default = "default_long_press_ms")]
        ms: u64,
    },
    Swipe {
        x1: f64,
        y1: f64,
        x2: f64,
        y2: f64,
        #[serde(default = "default_swipe_ms")]
        ms: u64,
    },
    Drag {
        x1: f64,
        y1: f64,
        x2: f64,
        y2: f64,
        #[serde(default = "default_drag_ms")]
        ms: u64,
    },
    TypeText {
        text: String,
        #[serde(default)]
        clear: bool,
    },
    Key {
        key: Key,
    },
    OpenApp {
        app: String,
    },
    CloseApp {
        app: String,
    },
    Wait {
        ms: u64,
    },
    Answer {
        text: String,
    },
    Finish {
        status: FinishStatus,
        #[serde(default)]
        text: String,
    },
}

/// Longest duration an action may give (`wait`, `long_press`, `swipe`, `drag`): a day of
/// virtual time. Longer ones are no-ops with a note, so the clock never wraps around.
pub const MAX_ACTION_MS: u64 = 24 * 3_600_000;
/// Longest text one `type_text` or `answer` may carry, in characters.
pub const MAX_ACTION_TEXT_CHARS: usize = 10_000;

impl Action {
    /// Why the action is outside the documented limits, if it is: the phone then does
    /// nothing with it but note the reason (Python raises `ActionError`).
    pub fn check_limits(&self) -> Result<(), String> {
        let ms = self.duration_ms();
        if ms > MAX_ACTION_MS {
            return Err(format!("{}: {ms} ms is longer than the limit of {MAX_ACTION_MS} ms (a day)", self.kind()));
        }
        let text = match self {
            Action::TypeText { text, .. } | Action::Answer { text } | Action::Finish { text, .. } => text.as_str(),
            Action::OpenApp { app } | Action::CloseApp { app } => app.as_str(),
            _ => "",
        };
        // Counting stops at the limit: a 10 MB text is not walked to the end.
        if text.chars().nth(MAX_ACTION_TEXT_CHARS).is_some() {
            return Err(format!("{}: the text is longer than the limit of {MAX_ACTION_TEXT_CHARS} characters", self.kind()));
        }
        Ok(())
    }

    /// Parses one canonical action from JSON text.
    pub fn from_json(text: &str) -> Result<Action, DataError> {
        serde_json::from_str(text).map_err(|err| DataError::Action(format!("{err} in {}", truncate(text))))
    }

    /// Parses one canonical action from a JSON value.
    pub fn from_value(value: &serde_json::Value) -> Result<Action, DataError> {
        Action::deserialize(value).map_err(|err| DataError::Action(format!("{err} in {}", truncate(&value.to_string()))))
    }

    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }

    /// The action's own duration in ms; the clock advances by the larger of this and the
    /// fixed per-action cost.
    pub fn duration_ms(&self) -> u64 {
        match self {
            Action::LongPress { ms, .. } | Action::Swipe { ms, .. } | Action::Drag { ms, .. } | Action::Wait { ms } => *ms,
            _ => 0,
        }
    }

    /// The `type` tag, for reports.
    pub fn kind(&self) -> &'static str {
        match self {
            Action::Tap { .. } => "tap",
            Action::DoubleTap { .. } => "double_tap",
            Action::LongPress { .. } => "long_press",
            Action::Swipe { .. } => "swipe",
            Action::Drag { .. } => "drag",
            Action::TypeText { .. } => "type_text",
            Action::Key { .. } => "key",
            Action::OpenApp { .. } => "open_app",
            Action::CloseApp { .. } => "close_app",
            Action::Wait { .. } => "wait",
            Action::Answer { .. } => "answer",
            Action::Finish { .. } => "finish",
        }
    }
}

fn truncate(text: &str) -> String {
    let mut out: String = text.chars().take(120).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_documented_action() {
        let lines = [
            r#"{"type":"tap","x":540,"y":1200}"#,
            r#"{"type":"double_tap","x":1,"y":2}"#,
            r#"{"type":"long_press","x":1,"y":2,"ms":800}"#,
            r#"{"type":"swipe","x1":1,"y1":2,"x2":3,"y2":4,"ms":300}"#,
            r#"{"type":"drag","x1":1,"y1":2,"x2":3,"y2":4,"ms":800}"#,
            r#"{"type":"type_text","text":"hi","clear":false}"#,
            r#"{"type":"key","key":"back"}"#,
            r#"{"type":"open_app","app":"Clock"}"#,
            r#"{"type":"close_app","app":"Clock"}"#,
            r#"{"type":"wait","ms":1000}"#,
            r#"{"type":"answer","text":"42"}"#,
            r#"{"type":"finish","status":"infeasible","text":""}"#,
        ];
        for line in lines {
            let action = Action::from_json(line).unwrap();
            let again = Action::from_value(&action.to_json()).unwrap();
            assert_eq!(action, again, "{line}");
        }
    }

    #[test]
    fn bad_actions_name_the_problem() {
        let err = Action::from_json(r#"{"type":"fly","x":1}"#).unwrap_err().to_string();
        assert!(err.contains("unknown variant `fly`"), "{err}");
        let err = Action::from_json(r#"{"type":"tap","x":1}"#).unwrap_err().to_string();
        assert!(err.contains("missing field `y`"), "{err}");
        let err = Action::from_json(r#"{"type":"key","key":"volume"}"#).unwrap_err().to_string();
        assert!(err.contains("volume"), "{err}");
    }
}
