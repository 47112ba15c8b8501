//! Reference solutions: semantic steps resolved to canonical actions on the current screen.

use phoneworld_data::{Action, FinishStatus, Key, UiElement};
use phoneworld_phone::Device;

use crate::params::{fill, Params};
use crate::template::Step;

/// How many swipes a `ScrollTo` tries before giving up.
const MAX_SCROLLS: usize = 20;

fn center(e: &UiElement) -> (f64, f64) {
    let b = e.bbox_pixels.unwrap_or(phoneworld_data::BBox { x_min: 0.0, x_max: 0.0, y_min: 0.0, y_max: 0.0 });
    ((b.x_min + b.x_max) / 2.0, (b.y_min + b.y_max) / 2.0)
}

/// Finds the element a step names: exact text, content description, hint, or resource id
/// (the part after `:id/`), preferring clickable elements that are not text fields (a search
/// field holding the label's text is not what a tap on the result means).
pub fn find(elements: &[UiElement], label: &str) -> Option<UiElement> {
    find_for(elements, label, false)
}

/// Like `find`, preferring editable fields (for `Fill`).
pub fn find_field(elements: &[UiElement], label: &str) -> Option<UiElement> {
    find_for(elements, label, true)
}

fn find_for(elements: &[UiElement], label: &str, field: bool) -> Option<UiElement> {
    let id_of = |e: &UiElement| e.resource_id.as_deref().and_then(|r| r.rsplit(":id/").next()).map(str::to_owned);
    let exact = |e: &UiElement| {
        e.text.as_deref() == Some(label)
            || e.content_description.as_deref() == Some(label)
            || e.hint_text.as_deref() == Some(label)
            || id_of(e).as_deref() == Some(label)
    };
    let mut hits: Vec<&UiElement> = elements.iter().filter(|e| exact(e)).collect();
    let editable = |e: &UiElement| e.is_editable == Some(true);
    let clickable = |e: &UiElement| e.is_clickable == Some(true);
    hits.sort_by_key(|e| if field { (!editable(e), !clickable(e)) } else { (editable(e), !clickable(e)) });
    hits.first().map(|e| (*e).clone())
}

/// Plays a reference solution one action at a time.
#[derive(Debug, Clone)]
pub struct Oracle {
    steps: Vec<Step>,
    params: Params,
    next: usize,
    /// Actions of the current step not yet emitted (e.g. the type after a field tap).
    pending: Vec<Action>,
    scrolls: usize,
}

impl Oracle {
    pub fn new(steps: Vec<Step>, params: Params) -> Oracle {
        Oracle { steps, params, next: 0, pending: Vec::new(), scrolls: 0 }
    }

    fn text(&self, s: &str) -> Result<String, String> {
        fill(s, &self.params)
    }

    /// The next action, `Ok(None)` when the solution is done, or why it cannot go on.
    pub fn next_action(&mut self, device: &mut Device) -> Result<Option<Action>, String> {
        if self.next >= self.steps.len() && self.pending.is_empty() {
            return Ok(None);
        }
        let elements = device.ui_elements();
        // An interruption on screen is answered first, then the solution goes on.
        if let Some(action) = crate::interrupted::answer(&elements) {
            return Ok(Some(action));
        }
        if !self.pending.is_empty() {
            return Ok(Some(self.pending.remove(0)));
        }
        let step = self.steps[self.next].clone();
        let missing = |label: &str| format!("step {}: no element `{label}` on screen", self.next + 1);
        let action = match &step {
            Step::Open(app) => Action::OpenApp { app: self.text(app)? },
            Step::Tap(label) | Step::LongPress(label) => {
                let label = self.text(label)?;
                let e = find(&elements, &label).ok_or_else(|| missing(&label))?;
                let (x, y) = center(&e);
                if matches!(step, Step::LongPress(_)) {
                    Action::LongPress { x, y, ms: 800 }
                } else {
                    Action::Tap { x, y }
                }
            }
            Step::Fill(label, text) => {
                let label = self.text(label)?;
                let e = find_field(&elements, &label).ok_or_else(|| missing(&label))?;
                let (x, y) = center(&e);
                self.pending.push(Action::TypeText { text: self.text(text)?, clear: true });
                Action::Tap { x, y }
            }
            Step::Type(text) => Action::TypeText { text: self.text(text)?, clear: false },
            Step::ScrollTap(label) | Step::ScrollTo(label) => {
                let label = self.text(label)?;
                if let Some(e) = find(&elements, &label) {
                    self.scrolls = 0;
                    if matches!(step, Step::ScrollTo(_)) {
                        self.next += 1;
                        return self.next_action(device);
                    }
                    let (x, y) = center(&e);
                    Action::Tap { x, y }
                } else {
                    if self.scrolls >= MAX_SCROLLS {
                        return Err(format!("step {}: `{label}` not found after {MAX_SCROLLS} swipes", self.next + 1));
                    }
                    self.scrolls += 1;
                    let area = elements
                        .iter()
                        .filter(|e| e.is_scrollable == Some(true))
                        .max_by_key(|e| e.bbox_pixels.map_or(0, |b| ((b.x_max - b.x_min) * (b.y_max - b.y_min)) as i64))
                        .and_then(|e| e.bbox_pixels)
                        .ok_or_else(|| format!("step {}: `{label}` is not on screen and nothing scrolls", self.next + 1))?;
                    let x = (area.x_min + area.x_max) / 2.0;
                    let (top, bottom) = (area.y_min + (area.y_max - area.y_min) * 0.2, area.y_min + (area.y_max - area.y_min) * 0.8);
                    // Stay on this step until the element shows up.
                    return Ok(Some(Action::Swipe { x1: x, y1: bottom, x2: x, y2: top, ms: 300 }));
                }
            }
            Step::Back => Action::Key { key: Key::Back },
            Step::Home => Action::Key { key: Key::Home },
            Step::Enter => Action::Key { key: Key::Enter },
            Step::Wait(ms) => Action::Wait { ms: *ms },
            Step::Answer(text) => Action::Answer { text: self.text(text)? },
            Step::Finish(status) => Action::Finish {
                status: if status == "infeasible" { FinishStatus::Infeasible } else { FinishStatus::Success },
                text: String::new(),
            },
        };
        self.next += 1;
        Ok(Some(action))
    }
}
