//! What the task desk holds: the template playing (its solution one action at a time), the task
//! being recorded (each action as a solution step), and the checks a recording offers. What the
//! desk does to the phone is in `tasks.rs`.

use std::path::PathBuf;

use phoneworld_data::{Action, Key, UiElement};
use phoneworld_tasks::{changed_paths, find, find_field, Instance, Oracle};
use serde::Serialize;
use serde_json::{json, Value};

/// What the desk is doing: nothing, playing a template, or recording a new one.
#[derive(Debug, Default)]
pub(crate) struct Desk {
    pub(crate) player: Option<Player>,
    pub(crate) recording: Option<Recording>,
    /// The checks the last recording offers, once it stopped.
    pub(crate) offered: Vec<Offer>,
    /// The last `verify` of a template from the page.
    pub(crate) verified: Option<Value>,
}

#[derive(Debug)]
pub(crate) struct Player {
    pub(crate) instance: Instance,
    pub(crate) oracle: Oracle,
    pub(crate) baseline: Value,
    pub(crate) actions: Vec<String>,
    /// Why the solution cannot go on (an element it names is not on screen), or that it ended.
    pub(crate) ended: Option<String>,
}

/// A step of a recorded solution (the template format's `Step`, as recording builds it).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RecordedStep {
    Open(String),
    Tap(String),
    ScrollTap(String),
    LongPress(String),
    Fill(String, String),
    Type(String),
    Back,
    Home,
    Enter,
    Wait(u64),
    Answer(String),
}

impl RecordedStep {
    /// As the task file writes it: `Tap("Add one")`.
    pub(crate) fn ron(&self) -> String {
        match self {
            RecordedStep::Open(a) => format!("Open({})", ron_str(a)),
            RecordedStep::Tap(l) => format!("Tap({})", ron_str(l)),
            RecordedStep::ScrollTap(l) => format!("ScrollTap({})", ron_str(l)),
            RecordedStep::LongPress(l) => format!("LongPress({})", ron_str(l)),
            RecordedStep::Fill(l, t) => format!("Fill({}, {})", ron_str(l), ron_str(t)),
            RecordedStep::Type(t) => format!("Type({})", ron_str(t)),
            RecordedStep::Back => "Back".into(),
            RecordedStep::Home => "Home".into(),
            RecordedStep::Enter => "Enter".into(),
            RecordedStep::Wait(ms) => format!("Wait({ms})"),
            RecordedStep::Answer(t) => format!("Answer({})", ron_str(t)),
        }
    }

    /// The texts it holds (labels, typed text), where a `{` would read as a parameter's hole.
    pub(crate) fn texts(&self) -> Vec<&str> {
        match self {
            RecordedStep::Open(t) | RecordedStep::Tap(t) | RecordedStep::ScrollTap(t) | RecordedStep::LongPress(t) => vec![t],
            RecordedStep::Type(t) | RecordedStep::Answer(t) => vec![t],
            RecordedStep::Fill(l, t) => vec![l, t],
            RecordedStep::Back | RecordedStep::Home | RecordedStep::Enter | RecordedStep::Wait(_) => vec![],
        }
    }
}

/// The steps of a recording, as a reference solution, and what they were done on.
#[derive(Debug, Clone)]
pub(crate) struct Recording {
    pub(crate) baseline: Value,
    pub(crate) steps: Vec<RecordedStep>,
    /// Actions no step can say (a tap on nothing nameable), which the saved task would lack.
    pub(crate) unsaid: Vec<String>,
    /// A swipe waits for the tap after it: scrolling to an element is how solutions say it.
    pub(crate) swiped: bool,
    pub(crate) answers: Vec<String>,
    /// Stop was pressed: what the author does next is not part of the task.
    pub(crate) stopped: bool,
}

/// A check the author may keep: its RON text and the allowance for the change it checks.
#[derive(Debug, Clone, Serialize)]
pub struct Offer {
    pub check: String,
    pub allow: String,
    /// A text it compares holds `{` or `}`, which a task file reads as a parameter's hole.
    #[serde(skip)]
    pub holes: bool,
}

/// A template the page lists.
#[derive(Debug, Clone, Serialize)]
pub struct Listed {
    pub id: String,
    pub suite: String,
    pub instruction: String,
    pub apps: Vec<String>,
    pub file: PathBuf,
}

impl Desk {
    pub(crate) fn forget_player(&mut self) {
        self.player = None;
    }

    pub(crate) fn panel(&self) -> Value {
        json!({
            "playing": self.player.as_ref().map(|p| json!({
                "template": p.instance.template.id,
                "instruction": p.instance.instruction,
                "seed": p.instance.seed,
                "actions": p.actions,
                "ended": p.ended,
            })),
            "recording": self.recording.as_ref().map(|r| json!({
                "steps": r.steps.iter().map(RecordedStep::ron).collect::<Vec<_>>(),
                "unsaid": r.unsaid,
                "stopped": r.stopped,
            })),
            "offered": self.offered,
            "verified": self.verified,
        })
    }
}

/// A RON string literal.
pub(crate) fn ron_str(s: &str) -> String {
    ron::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
}

fn ron_value(v: &Value) -> String {
    ron::to_string(v).unwrap_or_else(|_| "()".into())
}

impl Recording {
    pub(crate) fn note(&mut self, action: &Action, elements: &[UiElement]) {
        let step = match action {
            Action::Tap { x, y } | Action::DoubleTap { x, y } => self.named_at(elements, *x, *y).map(|label| {
                if std::mem::take(&mut self.swiped) {
                    RecordedStep::ScrollTap(label)
                } else {
                    RecordedStep::Tap(label)
                }
            }),
            Action::LongPress { x, y, .. } => self.named_at(elements, *x, *y).map(RecordedStep::LongPress),
            Action::Swipe { .. } | Action::Drag { .. } => {
                self.swiped = true;
                return;
            }
            Action::TypeText { text, clear } => {
                self.typed(text, *clear, elements);
                return;
            }
            Action::Key { key: Key::Delete } => {
                match self.steps.last_mut() {
                    Some(RecordedStep::Fill(_, typed) | RecordedStep::Type(typed)) if !typed.is_empty() => {
                        typed.pop();
                    }
                    _ => self.unsaid.push("a delete with nothing typed before it (a solution has no step for it)".into()),
                }
                return;
            }
            Action::Key { key } => match key {
                Key::Back => Some(RecordedStep::Back),
                Key::Home => Some(RecordedStep::Home),
                Key::Enter => Some(RecordedStep::Enter),
                other => {
                    self.unsaid.push(format!("the {other:?} key (a solution has no step for it)"));
                    None
                }
            },
            Action::OpenApp { app } => Some(RecordedStep::Open(app.clone())),
            Action::Wait { ms } => Some(RecordedStep::Wait(*ms)),
            Action::Answer { text } => {
                self.answers.push(text.clone());
                Some(RecordedStep::Answer(text.clone()))
            }
            Action::CloseApp { .. } | Action::Finish { .. } => None,
        };
        if let Some(step) = step {
            self.steps.push(step);
        }
    }

    /// Typing: a tap on a field then typing is filling that field; typing on is more of the
    /// same text (one `Fill` or `Type` however many keys it took).
    fn typed(&mut self, text: &str, clear: bool, elements: &[UiElement]) {
        let last = self.steps.last_mut();
        match last {
            Some(RecordedStep::Tap(label)) if find_field(elements, label).is_some_and(|e| e.is_editable == Some(true)) => {
                let label = label.clone();
                *self.steps.last_mut().expect("matched above") = RecordedStep::Fill(label, text.to_owned());
            }
            Some(RecordedStep::Fill(_, typed) | RecordedStep::Type(typed)) => {
                if clear {
                    typed.clear();
                }
                typed.push_str(text);
            }
            _ => self.steps.push(RecordedStep::Type(text.to_owned())),
        }
    }

    /// A label the solution player finds again at (x, y): of the elements under the point,
    /// smallest first, the first whose id, text or description leads `find` back to an element
    /// under the point.
    fn named_at(&mut self, elements: &[UiElement], x: f64, y: f64) -> Option<String> {
        let under = |e: &UiElement| e.bbox_pixels.is_some_and(|b| b.x_min <= x && x <= b.x_max && b.y_min <= y && y <= b.y_max);
        let area = |e: &UiElement| e.bbox_pixels.map_or(f64::MAX, |b| (b.x_max - b.x_min) * (b.y_max - b.y_min));
        let mut hits: Vec<&UiElement> = elements.iter().filter(|e| under(e)).collect();
        hits.sort_by(|a, b| area(a).total_cmp(&area(b)));
        for e in hits {
            let id = e.resource_id.as_deref().and_then(|r| r.rsplit(":id/").next());
            for label in [id, e.text.as_deref(), e.content_description.as_deref()].into_iter().flatten() {
                if !label.is_empty() && find(elements, label).is_some_and(|found| under(&found)) {
                    return Some(label.to_owned());
                }
            }
        }
        self.unsaid.push(format!("a tap at ({x:.0}, {y:.0}) touches nothing a solution can name"));
        None
    }
}

/// A check for each change between two snapshots of app data: a value now equal to what it
/// became, a list grown by the elements added, a list shrunk by those removed.
pub(crate) fn offer_checks(before: &Value, after: &Value) -> Vec<Offer> {
    let mut offers = Vec::new();
    for changed in changed_paths(before, after) {
        let Some((app, path)) = changed.split_once(':') else { continue };
        let bare = path.trim_end_matches(['+', '-']);
        let allow = format!("{app}:{bare}");
        let lookup = |root: &Value| {
            root.get(app)
                .and_then(|d| phoneworld_data::valuepath::lookup(d, &phoneworld_data::valuepath::split(bare)).ok().flatten())
                .cloned()
        };
        let now = lookup(after).unwrap_or(Value::Null);
        let head = format!("app: {}, path: {}", ron_str(app), ron_str(bare));
        if path.ends_with('+') || path.ends_with('-') {
            let was = lookup(before).unwrap_or(Value::Null);
            let (old, new) = (was.as_array().cloned().unwrap_or_default(), now.as_array().cloned().unwrap_or_default());
            offers.push(Offer { check: format!("Count({head}, equals: {})", new.len()), allow: allow.clone(), holes: false });
            let (kind, moved) = if path.ends_with('+') { ("Exists", difference(&new, &old)) } else { ("Absent", difference(&old, &new)) };
            for element in moved {
                if let Value::Object(fields) = element {
                    let scalars: Vec<String> = fields
                        .iter()
                        .filter(|(_, v)| !v.is_object() && !v.is_array() && !v.is_null())
                        .map(|(k, v)| format!("{}: {}", ron_str(k), ron_value(v)))
                        .collect();
                    if !scalars.is_empty() {
                        let holes = fields.values().any(has_braces);
                        offers.push(Offer {
                            check: format!("{kind}({head}, fields: {{ {} }})", scalars.join(", ")),
                            allow: allow.clone(),
                            holes,
                        });
                    }
                }
            }
        } else if !now.is_null() {
            offers.push(Offer { check: format!("Equals({head}, value: {})", ron_value(&now)), allow, holes: has_braces(&now) });
        }
    }
    offers
}

/// Whether a text in `value` holds `{` or `}`.
fn has_braces(value: &Value) -> bool {
    match value {
        Value::String(s) => s.contains(['{', '}']),
        Value::Array(items) => items.iter().any(has_braces),
        Value::Object(fields) => fields.values().any(has_braces),
        _ => false,
    }
}

/// The elements of `long` left once each of `short` is matched once, in order.
fn difference(long: &[Value], short: &[Value]) -> Vec<Value> {
    let mut rest: Vec<&Value> = short.iter().collect();
    long.iter()
        .filter(|v| match rest.iter().position(|s| s == v) {
            Some(i) => {
                rest.remove(i);
                false
            }
            None => true,
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(id: &str, x_min: f64, y_min: f64) -> UiElement {
        serde_json::from_value(json!({
            "resource_id": format!("com.x:id/{id}"), "is_editable": true, "is_clickable": true,
            "bbox_pixels": { "x_min": x_min, "x_max": x_min + 500.0, "y_min": y_min, "y_max": y_min + 100.0 },
        }))
        .unwrap()
    }

    #[test]
    fn typing_into_a_field_is_one_fill_of_the_text_left_after_deletes() {
        let elements = [field("title", 0.0, 0.0), field("body", 0.0, 200.0)];
        let mut r =
            Recording { baseline: Value::Null, steps: Vec::new(), unsaid: Vec::new(), swiped: false, answers: Vec::new(), stopped: false };
        let typed = |text: &str| Action::TypeText { text: text.into(), clear: false };
        let delete = Action::Key { key: Key::Delete };
        for action in [
            Action::Tap { x: 10.0, y: 10.0 },
            typed("ab"),
            typed("x"),
            delete.clone(),
            typed("c"),
            Action::Tap { x: 10.0, y: 250.0 },
            typed("hi"),
        ] {
            r.note(&action, &elements);
        }
        r.note(&delete, &elements);
        r.note(&delete, &elements);
        r.note(&delete, &elements);
        let steps: Vec<String> = r.steps.iter().map(RecordedStep::ron).collect();
        assert_eq!(steps, vec![r#"Fill("title", "abc")"#, r#"Fill("body", "")"#]);
        assert_eq!(r.unsaid, vec!["a delete with nothing typed before it (a solution has no step for it)"]);
    }

    #[test]
    fn changes_of_app_data_are_offered_as_checks_that_read_back() {
        let before = json!({ "com.x": { "count": 0, "todos": [{ "id": 1, "title": "a" }], "tags": [] } });
        let after = json!({ "com.x": { "count": 2, "todos": [{ "id": 1, "title": "a" }, { "id": 2, "title": "b \"q\"" }], "tags": [] } });
        let checks: Vec<String> = offer_checks(&before, &after).into_iter().map(|o| o.check).collect();
        assert_eq!(
            checks,
            vec![
                r#"Equals(app: "com.x", path: "count", value: 2)"#.to_owned(),
                r#"Count(app: "com.x", path: "todos", equals: 2)"#.to_owned(),
                r#"Exists(app: "com.x", path: "todos", fields: { "id": 2, "title": "b \"q\"" })"#.to_owned(),
            ]
        );
    }
}
