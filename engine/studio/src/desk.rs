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

/// The steps of a recording, as a reference solution, and what they were done on.
#[derive(Debug)]
pub(crate) struct Recording {
    pub(crate) baseline: Value,
    pub(crate) steps: Vec<String>,
    /// Actions no step can say (a tap on nothing nameable), which the saved task would lack.
    pub(crate) unsaid: Vec<String>,
    /// A swipe waits for the tap after it: scrolling to an element is how solutions say it.
    pub(crate) swiped: bool,
    pub(crate) answers: Vec<String>,
}

/// A check the author may keep: its RON text and, in words, what it asks.
#[derive(Debug, Clone, Serialize)]
pub struct Offer {
    pub check: String,
    pub allow: String,
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
            "recording": self.recording.as_ref().map(|r| json!({ "steps": r.steps, "unsaid": r.unsaid })),
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
                let verb = if std::mem::take(&mut self.swiped) { "ScrollTap" } else { "Tap" };
                format!("{verb}({})", ron_str(&label))
            }),
            Action::LongPress { x, y, .. } => self.named_at(elements, *x, *y).map(|label| format!("LongPress({})", ron_str(&label))),
            Action::Swipe { .. } | Action::Drag { .. } => {
                self.swiped = true;
                return;
            }
            Action::TypeText { text, .. } => {
                // A tap on a field then typing is filling that field.
                let field = self.steps.last().and_then(|s| s.strip_prefix("Tap(")).map(|s| s.trim_end_matches(')').to_owned());
                match field.filter(|label| {
                    ron::from_str::<String>(label).is_ok_and(|l| find_field(elements, &l).is_some_and(|e| e.is_editable == Some(true)))
                }) {
                    Some(label) => {
                        self.steps.pop();
                        Some(format!("Fill({label}, {})", ron_str(text)))
                    }
                    None => Some(format!("Type({})", ron_str(text))),
                }
            }
            Action::Key { key } => match key {
                Key::Back => Some("Back".into()),
                Key::Home => Some("Home".into()),
                Key::Enter => Some("Enter".into()),
                other => {
                    self.unsaid.push(format!("the {other:?} key (a solution has no step for it)"));
                    None
                }
            },
            Action::OpenApp { app } => Some(format!("Open({})", ron_str(app))),
            Action::Wait { ms } => Some(format!("Wait({ms})")),
            Action::Answer { text } => {
                self.answers.push(text.clone());
                Some(format!("Answer({})", ron_str(text)))
            }
            Action::CloseApp { .. } | Action::Finish { .. } => None,
        };
        if let Some(step) = step {
            self.steps.push(step);
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
            offers.push(Offer { check: format!("Count({head}, equals: {})", new.len()), allow: allow.clone() });
            let (kind, moved) = if path.ends_with('+') { ("Exists", difference(&new, &old)) } else { ("Absent", difference(&old, &new)) };
            for element in moved {
                if let Value::Object(fields) = element {
                    let scalars: Vec<String> = fields
                        .iter()
                        .filter(|(_, v)| !v.is_object() && !v.is_array() && !v.is_null())
                        .map(|(k, v)| format!("{}: {}", ron_str(k), ron_value(v)))
                        .collect();
                    if !scalars.is_empty() {
                        offers.push(Offer { check: format!("{kind}({head}, fields: {{ {} }})", scalars.join(", ")), allow: allow.clone() });
                    }
                }
            }
        } else if !now.is_null() {
            offers.push(Offer { check: format!("Equals({head}, value: {})", ron_value(&now)), allow });
        }
    }
    offers
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
