//! Reference solutions: semantic steps resolved to canonical actions on the current screen.

use phoneworld_data::{Action, FinishStatus, Key, Rng, UiElement};
use phoneworld_phone::Device;

use crate::blind;
use crate::params::{display, fill, fill_clock, fill_value, Params};
use crate::template::Step;
use serde_json::Value;

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
    /// The phone shows 24-hour times: labels with `|time` are filled as it shows them.
    h24: bool,
    /// Set for the tree-only agent: it chooses pictures without seeing them.
    blind: Option<Blind>,
}

/// What the tree-only agent knows: the instruction, and its own seeded dice.
#[derive(Debug, Clone)]
struct Blind {
    instruction: String,
    rng: Rng,
    /// The chance that every blind choice so far was the right one.
    odds: f64,
}

impl Oracle {
    pub fn new(steps: Vec<Step>, params: Params) -> Oracle {
        Oracle { steps, params, next: 0, pending: Vec::new(), scrolls: 0, h24: true, blind: None }
    }

    /// The tree-only agent: plays the solution, but at each `TapPicture` taps one of the
    /// on-screen pictures the tree cannot tell apart (best lexical match to the instruction,
    /// then a seeded uniform choice) and at each `PictureAnswer` answers one of the options.
    pub fn tree_only(steps: Vec<Step>, params: Params, instruction: &str, seed: u64) -> Oracle {
        // Its dice are hashed from the instance, so they share no structure with the seed's other uses.
        let h = blake3::hash(format!("tree-only#{instruction}#{seed}").as_bytes());
        let dice = u64::from_le_bytes(h.as_bytes()[..8].try_into().expect("8 bytes"));
        let blind = Blind { instruction: instruction.to_owned(), rng: Rng::new(dice), odds: 1.0 };
        Oracle { blind: Some(blind), ..Oracle::new(steps, params) }
    }

    /// Gives up the current step and goes on with the next (for a player whose action already
    /// did what the step was for, e.g. an Enter that confirmed the dialog the step would).
    pub fn skip_step(&mut self) {
        self.pending.clear();
        self.scrolls = 0;
        self.next = (self.next + 1).min(self.steps.len());
    }

    /// For the tree-only agent: the chance that its blind choices so far all hit the target
    /// (what a guesser succeeds with); 1 for the oracle.
    pub fn chance(&self) -> f64 {
        self.blind.as_ref().map_or(1.0, |b| b.odds)
    }

    fn text(&self, s: &str) -> Result<String, String> {
        fill_clock(s, &self.params, self.h24)
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
        let Some(step) = self.steps.get(self.next).cloned() else { return Ok(None) };
        self.h24 = phoneworld_data::clock_24h(&device.store().system);
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
            Step::ScrollTap(label) | Step::ScrollTo(label) | Step::TapPicture(label) => {
                let label = self.text(label)?;
                if let Some(e) = find(&elements, &label) {
                    self.scrolls = 0;
                    if matches!(step, Step::ScrollTo(_)) {
                        self.next += 1;
                        return self.next_action(device);
                    }
                    let e = match (&step, self.blind.as_mut()) {
                        (Step::TapPicture(_), Some(b)) => {
                            let pool = blind::candidates(&elements, &e);
                            match blind::choose(&pool, &e, &b.instruction, &mut b.rng) {
                                Some((picked, odds)) => {
                                    b.odds *= odds;
                                    picked.clone()
                                }
                                None => e,
                            }
                        }
                        _ => e,
                    };
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
            Step::PictureAnswer(text, options) => {
                let text = match self.blind.as_mut() {
                    Some(b) => {
                        // An option that is one hole naming a list stands for each of its items.
                        let mut all = Vec::new();
                        for o in options {
                            match fill_value(o, &self.params)? {
                                Value::Array(items) => all.extend(items.iter().map(display)),
                                v => all.push(display(&v)),
                            }
                        }
                        let right = fill(text, &self.params)?;
                        match blind::choose_answer(&all, &right, &b.instruction, &mut b.rng) {
                            Some((picked, odds)) => {
                                // The answer alone decides: a wrong picture before it does not matter.
                                b.odds = odds;
                                picked.clone()
                            }
                            None => String::new(),
                        }
                    }
                    None => self.text(text)?,
                };
                Action::Answer { text }
            }
            Step::Finish(status) => Action::Finish {
                status: if status == "infeasible" { FinishStatus::Infeasible } else { FinishStatus::Success },
                text: String::new(),
            },
        };
        self.next += 1;
        Ok(Some(action))
    }
}
