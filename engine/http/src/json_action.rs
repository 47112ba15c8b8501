//! AndroidWorld's `JSONAction`: its fields, its checks (`__post_init__`), its `repr` (the
//! `execute_action` reply quotes it), and what each action does on the phone, as upstream's
//! actuation does it, in canonical actions.

use phoneworld_data::{Action, Key, UiElement};
use serde_json::{Map, Value};

/// Upstream's action types, in upstream's order.
pub const ACTION_TYPES: [&str; 14] = [
    "click",
    "double_tap",
    "scroll",
    "swipe",
    "input_text",
    "navigate_home",
    "navigate_back",
    "keyboard_enter",
    "open_app",
    "status",
    "wait",
    "long_press",
    "answer",
    "unknown",
];

const DIRECTIONS: [&str; 4] = ["left", "right", "down", "up"];

/// How long upstream holds a long press (`input swipe x y x y 1000`), a scroll (Android's
/// default swipe) and a swipe.
const LONG_PRESS_MS: u64 = 1000;
const SCROLL_MS: u64 = 300;
const SWIPE_MS: u64 = 500;
/// Upstream's `wait` sleeps one second.
const WAIT_MS: u64 = 1000;

/// One JSON action, checked as upstream's dataclass checks it. Coordinates are kept as given
/// (a number or a numeric string) so the reply quotes them as upstream would.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JsonAction {
    pub action_type: String,
    pub index: Option<i64>,
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub text: Option<String>,
    pub direction: Option<String>,
    pub goal_status: Option<String>,
    pub app_name: Option<String>,
    pub keycode: Option<String>,
    pub clear_text: Option<bool>,
    /// Extensions no upstream client sends: the end of a literal drag, its duration (ms), and
    /// whether `input_text` presses Enter after typing (upstream always does).
    pub x2: Option<f64>,
    pub y2: Option<f64>,
    pub duration: Option<u64>,
    pub press_enter: Option<bool>,
    /// The fields as given, in upstream's order, for [`JsonAction::repr`].
    given: Vec<(&'static str, Value)>,
}

/// Why an action was refused; upstream answers these with a 500.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ActionError(pub String);

fn fail<T>(message: impl Into<String>) -> Result<T, ActionError> {
    Err(ActionError(message.into()))
}

const FIELDS: [&str; 14] = [
    "action_type",
    "index",
    "x",
    "y",
    "text",
    "direction",
    "goal_status",
    "app_name",
    "keycode",
    "clear_text",
    "x2",
    "y2",
    "duration",
    "press_enter",
];

impl JsonAction {
    /// Reads and checks one action object.
    pub fn parse(object: &Map<String, Value>) -> Result<JsonAction, ActionError> {
        if let Some(unknown) = object.keys().find(|k| !FIELDS.contains(&k.as_str())) {
            return fail(format!("JSONAction.__init__() got an unexpected keyword argument '{unknown}'"));
        }
        let field = |name: &str| object.get(name).filter(|v| !v.is_null());
        let action_type = match field("action_type") {
            Some(Value::String(s)) if ACTION_TYPES.contains(&s.as_str()) => s.clone(),
            other => return fail(format!("Invalid action type: {}", other.map_or("None".to_owned(), py_str))),
        };
        let mut action = JsonAction {
            action_type,
            index: field("index").map(|v| py_int(v, "index")).transpose()?,
            x: field("x").map(|v| number(v, "x")).transpose()?,
            y: field("y").map(|v| number(v, "y")).transpose()?,
            x2: field("x2").map(|v| number(v, "x2")).transpose()?,
            y2: field("y2").map(|v| number(v, "y2")).transpose()?,
            ..JsonAction::default()
        };
        if action.index.is_some() && (action.x.is_some() || action.y.is_some()) {
            return fail("Either an index or a <x, y> should be provided.");
        }
        action.direction = field("direction").map(|v| string(v, "direction")).transpose()?;
        if let Some(d) = action.direction.as_deref().filter(|d| !d.is_empty()) {
            if !DIRECTIONS.contains(&d) {
                return fail(format!("Invalid scroll direction: {d}"));
            }
        }
        // Upstream turns any non-string text into its `str()`.
        action.text = field("text").map(py_str);
        action.goal_status = field("goal_status").map(|v| string(v, "goal_status")).transpose()?;
        action.app_name = field("app_name").map(|v| string(v, "app_name")).transpose()?;
        action.keycode = field("keycode").map(|v| string(v, "keycode")).transpose()?;
        if let Some(k) = action.keycode.as_deref().filter(|k| !k.starts_with("KEYCODE_")) {
            return fail(format!("Invalid keycode: {k}"));
        }
        action.clear_text = field("clear_text").map(|v| flag(v, "clear_text")).transpose()?;
        action.press_enter = field("press_enter").map(|v| flag(v, "press_enter")).transpose()?;
        action.duration = match field("duration") {
            None => None,
            Some(v) => Some(
                v.as_f64()
                    .filter(|ms| ms.is_finite() && *ms >= 0.0)
                    .map(|ms| ms as u64)
                    .ok_or_else(|| ActionError(format!("duration: expected milliseconds (a number at least 0), got {}", py_str(v))))?,
            ),
        };
        action.given = FIELDS
            .iter()
            .filter_map(|name| {
                let value = match *name {
                    "index" => action.index.map(Value::from),
                    "text" => action.text.clone().map(Value::from),
                    _ => field(name).cloned(),
                };
                value.map(|v| (*name, v))
            })
            .collect();
        Ok(action)
    }

    /// `JSONAction(action_type='click', x=100, y=200)`, as Python prints it.
    pub fn repr(&self) -> String {
        let parts: Vec<String> = self
            .given
            .iter()
            .map(|(name, value)| {
                let shown = match value {
                    // Upstream prints floats as `f'{value:.3f}'`, then quotes that string.
                    Value::Number(n) if n.is_f64() => py_repr_str(&format!("{:.3}", n.as_f64().unwrap_or(0.0))),
                    v => py_repr(v),
                };
                format!("{name}={shown}")
            })
            .collect();
        format!("JSONAction({})", parts.join(", "))
    }

    /// What the action does, as canonical actions on a screen of `size` showing `elements`
    /// (what `index` refers to). `apps` resolves `open_app`'s loose names. `status` and
    /// `answer` are handled by the caller; here they do nothing.
    pub fn to_actions(
        &self,
        elements: &[UiElement],
        size: (u32, u32),
        apps: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Vec<Action>, ActionError> {
        let (width, height) = (f64::from(size.0), f64::from(size.1));
        Ok(match self.action_type.as_str() {
            "click" | "double_tap" | "long_press" => {
                let (x, y) = self.target(elements)?.ok_or_else(|| ActionError(format!("Invalid click action: {}", self.repr())))?;
                vec![self.press(x, y)]
            }
            "input_text" => match self.text.as_deref() {
                Some(text) if !text.is_empty() => {
                    let mut actions = Vec::new();
                    // Upstream taps the field first; without a target, the focused field is typed into.
                    if let Some((x, y)) = self.target(elements)? {
                        actions.push(Action::Tap { x, y });
                    }
                    actions.push(Action::TypeText { text: text.to_owned(), clear: self.clear_text == Some(true) });
                    if self.press_enter != Some(false) {
                        actions.push(Action::Key { key: Key::Enter });
                    }
                    actions
                }
                _ => Vec::new(),
            },
            "keyboard_enter" => vec![Action::Key { key: Key::Enter }],
            "navigate_home" => vec![Action::Key { key: Key::Home }],
            "navigate_back" => vec![Action::Key { key: Key::Back }],
            "scroll" | "swipe" => self.drag(elements, width, height)?.into_iter().collect(),
            "open_app" => match self.app_name.as_deref().filter(|a| !a.is_empty()) {
                Some(name) => vec![Action::OpenApp { app: apps(name).unwrap_or_else(|| name.to_owned()) }],
                None => return fail("No app name provided"),
            },
            "wait" => vec![Action::Wait { ms: WAIT_MS }],
            _ => Vec::new(),
        })
    }

    fn press(&self, x: f64, y: f64) -> Action {
        match self.action_type.as_str() {
            "double_tap" => Action::DoubleTap { x, y },
            "long_press" => Action::LongPress { x, y, ms: self.duration.unwrap_or(LONG_PRESS_MS) },
            _ => Action::Tap { x, y },
        }
    }

    /// The point an element index or `x, y` names (an element's integer centre, as upstream).
    fn target(&self, elements: &[UiElement]) -> Result<Option<(f64, f64)>, ActionError> {
        if let Some(index) = self.index {
            let element = element(elements, index)?;
            let b = element.bbox_pixels.ok_or_else(|| ActionError("Bbox is not present on element.".into()))?;
            return Ok(Some((((b.x_min + b.x_max) / 2.0).trunc(), ((b.y_min + b.y_max) / 2.0).trunc())));
        }
        Ok(self.x.zip(self.y))
    }

    /// A scroll or swipe as a drag: literal when all four coordinates are given, otherwise as
    /// upstream: a scroll drags from the middle of the screen (or of element `index`) to its
    /// edge, opposite to the direction; a swipe drags across the whole screen. `None` for
    /// upstream's "Invalid direction" (which does nothing).
    fn drag(&self, elements: &[UiElement], width: f64, height: f64) -> Result<Option<Action>, ActionError> {
        let scroll = self.action_type == "scroll";
        let default_ms = if scroll { SCROLL_MS } else { SWIPE_MS };
        let ms = self.duration.unwrap_or(default_ms);
        if let (Some(x1), Some(y1), Some(x2), Some(y2)) = (self.x, self.y, self.x2, self.y2) {
            return Ok(Some(Action::Swipe { x1, y1, x2, y2, ms }));
        }
        let Some(direction) = self.direction.as_deref() else { return Ok(None) };
        // Upstream's edges are `width` and `height`, one past the last pixel; a touch must go
        // down on the screen, so a drag that starts at such an edge starts on its last pixel.
        let (right, bottom) = (width - 1.0, height - 1.0);
        let swipe = |x1: f64, y1: f64, x2: f64, y2: f64| Some(Action::Swipe { x1: x1.min(right), y1: y1.min(bottom), x2, y2, ms });
        if !scroll {
            let (mx, my) = ((0.5 * width).trunc(), (0.5 * height).trunc());
            return Ok(match direction {
                "down" => swipe(mx, 0.0, mx, height),
                "up" => swipe(mx, height, mx, 0.0),
                "left" => swipe(0.0, my, width, my),
                "right" => swipe(width, my, 0.0, my),
                _ => None,
            });
        }
        // Upstream tests `if action.index:`, so index 0 scrolls the whole screen.
        let (x_min, y_min, x_max, y_max) = match self.index.filter(|i| *i != 0) {
            Some(index) => {
                let b = element(elements, index)?.bbox_pixels.ok_or_else(|| ActionError("Bbox is not present on element.".into()))?;
                (b.x_min.max(0.0), b.y_min.max(0.0), b.x_max.min(width), b.y_max.min(height))
            }
            None => (0.0, 0.0, width, height),
        };
        let (cx, cy) = (((x_min + x_max) / 2.0).floor(), ((y_min + y_max) / 2.0).floor());
        Ok(match direction {
            "down" => swipe(cx, cy, cx, y_min.trunc()),
            "up" => swipe(cx, cy, cx, y_max.trunc()),
            "right" => swipe(cx, cy, x_min.trunc(), cy),
            "left" => swipe(cx, cy, x_max.trunc(), cy),
            _ => None,
        })
    }
}

/// Element `index` of the list, with negative indexes refused as upstream's bounds check does.
fn element(elements: &[UiElement], index: i64) -> Result<&UiElement, ActionError> {
    usize::try_from(index)
        .ok()
        .and_then(|i| elements.get(i))
        .ok_or_else(|| ActionError(format!("Invalid element index: {index}, must be between 0 and {}.", elements.len() as i64 - 1)))
}

/// Python's `int(value)` for what JSON can carry.
fn py_int(value: &Value, field: &str) -> Result<i64, ActionError> {
    let parsed = match value {
        Value::Bool(b) => Some(i64::from(*b)),
        Value::Number(n) => n.as_i64().or_else(|| n.as_f64().filter(|f| f.is_finite() && f.abs() < 9e18).map(|f| f.trunc() as i64)),
        Value::String(s) => {
            let t = s.trim();
            let digits = t.strip_prefix(['+', '-']).unwrap_or(t);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit() || b == b'_') {
                None
            } else {
                t.replace('_', "").parse().ok()
            }
        }
        _ => None,
    };
    parsed.ok_or_else(|| ActionError(format!("{field}: invalid literal for int(): {}", py_repr(value))))
}

/// A coordinate: a number or a numeric string (upstream formats it into an adb command).
fn number(value: &Value, field: &str) -> Result<f64, ActionError> {
    let parsed = match value {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    parsed.filter(|v| v.is_finite()).ok_or_else(|| ActionError(format!("{field}: expected a number, got {}", py_repr(value))))
}

fn string(value: &Value, field: &str) -> Result<String, ActionError> {
    match value {
        Value::String(s) => Ok(s.clone()),
        other => fail(format!("{field}: expected a string, got {}", py_repr(other))),
    }
}

fn flag(value: &Value, field: &str) -> Result<bool, ActionError> {
    match value {
        Value::Bool(b) => Ok(*b),
        other => fail(format!("{field}: expected true or false, got {}", py_repr(other))),
    }
}

/// Python's `str()` of a JSON value.
pub fn py_str(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => py_repr(other),
    }
}

/// Python's `repr()` of a JSON value.
pub fn py_repr(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) => py_float(f),
            _ => n.to_string(),
        },
        Value::String(s) => py_repr_str(s),
        Value::Array(items) => format!("[{}]", items.iter().map(py_repr).collect::<Vec<_>>().join(", ")),
        Value::Object(map) => {
            format!("{{{}}}", map.iter().map(|(k, v)| format!("{}: {}", py_repr_str(k), py_repr(v))).collect::<Vec<_>>().join(", "))
        }
    }
}

/// Python's `repr()` of a float: the shortest round trip, always with a point or exponent.
fn py_float(f: f64) -> String {
    let s = format!("{f:?}");
    if s.contains('e') {
        // Rust writes `1e20`, Python `1e+20`.
        s.replace("e", "e+").replace("e+-", "e-")
    } else {
        s
    }
}

/// Python's `repr()` of a string: single quotes unless the text has one and no double quote.
pub fn py_repr_str(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if ('\u{80}'..='\u{a0}').contains(&c) => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use phoneworld_data::BBox;
    use serde_json::json;

    fn parse(v: Value) -> Result<JsonAction, ActionError> {
        JsonAction::parse(v.as_object().expect("an object"))
    }

    fn no_apps(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn repr_matches_python() {
        let a = parse(json!({"action_type": "click", "x": 100, "y": 200})).unwrap();
        assert_eq!(a.repr(), "JSONAction(action_type='click', x=100, y=200)");
        let a = parse(json!({"action_type": "input_text", "text": 5, "index": "3", "x": 1.5})).unwrap_err();
        assert!(a.0.contains("Either an index"), "{a}");
        let a = parse(json!({"action_type": "input_text", "text": "it's", "index": "3", "clear_text": true})).unwrap();
        assert_eq!(a.repr(), "JSONAction(action_type='input_text', index=3, text=\"it's\", clear_text=True)");
        let a = parse(json!({"action_type": "click", "x": 10.25, "y": 2})).unwrap();
        assert_eq!(a.repr(), "JSONAction(action_type='click', x='10.250', y=2)");
    }

    #[test]
    fn refusals_as_upstream() {
        for bad in [
            json!({"action_type": "fly"}),
            json!({}),
            json!({"action_type": "click", "colour": "red"}),
            json!({"action_type": "scroll", "direction": "sideways"}),
            json!({"action_type": "click", "index": "two"}),
            json!({"action_type": "status", "keycode": "ENTER"}),
        ] {
            assert!(parse(bad.clone()).is_err(), "{bad}");
        }
        // An empty direction is no direction.
        assert!(parse(json!({"action_type": "scroll", "direction": ""})).is_ok());
    }

    #[test]
    fn scroll_and_swipe_as_upstream() {
        let size = (1080, 2400);
        let scroll = parse(json!({"action_type": "scroll", "direction": "down"})).unwrap();
        assert_eq!(
            scroll.to_actions(&[], size, &no_apps).unwrap(),
            vec![Action::Swipe { x1: 540.0, y1: 1200.0, x2: 540.0, y2: 0.0, ms: 300 }]
        );
        let swipe = parse(json!({"action_type": "swipe", "direction": "left"})).unwrap();
        assert_eq!(
            swipe.to_actions(&[], size, &no_apps).unwrap(),
            vec![Action::Swipe { x1: 0.0, y1: 1200.0, x2: 1080.0, y2: 1200.0, ms: 500 }]
        );
        let literal = parse(json!({"action_type": "swipe", "x": 1, "y": 2, "x2": 3, "y2": 4, "duration": 50})).unwrap();
        assert_eq!(literal.to_actions(&[], size, &no_apps).unwrap(), vec![Action::Swipe { x1: 1.0, y1: 2.0, x2: 3.0, y2: 4.0, ms: 50 }]);
    }

    #[test]
    fn index_names_an_element_centre() {
        let e = UiElement {
            bbox_pixels: Some(BBox { x_min: 10.0, x_max: 21.0, y_min: 0.0, y_max: 5.0 }),
            ..serde_json::from_value(json!({})).unwrap()
        };
        let click = parse(json!({"action_type": "click", "index": 0})).unwrap();
        assert_eq!(click.to_actions(std::slice::from_ref(&e), (100, 100), &no_apps).unwrap(), vec![Action::Tap { x: 15.0, y: 2.0 }]);
        assert!(parse(json!({"action_type": "click", "index": 1})).unwrap().to_actions(&[e], (100, 100), &no_apps).is_err());
        let typed = parse(json!({"action_type": "input_text", "text": "hi"})).unwrap();
        assert_eq!(
            typed.to_actions(&[], (100, 100), &no_apps).unwrap(),
            vec![Action::TypeText { text: "hi".into(), clear: false }, Action::Key { key: Key::Enter }]
        );
    }
}
