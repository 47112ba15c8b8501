//! DroidTask: DroidBot output (`events/`, `states/`) plus one `taskN.yaml` per human task
//! demonstration. The recording becomes one trace; each demonstration becomes a trace of its
//! own with the person's sentence as its instruction.
//!
//! A demonstration's record names the screen by state hashes (`state_str`, one or a list of
//! states counted as the same screen) and the element acted on by its number in a simplified
//! HTML rendering of the screen (`State`, `Choice`). The element is found again in the state's
//! hierarchy by its texts; the last element, `go back`, is the Back key.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::droidbot;
use super::scan::Budget;
use crate::error::ReconError;
use crate::limits::{MAX_EVENT_FILE_BYTES, MAX_STEPS};
use crate::trace::{Screen, Target, Trace, TraceAction, TraceStep, UiNode};

/// A folder is DroidTask's when it is DroidBot output with demonstrations beside it.
pub(crate) fn is_droidtask(dir: &Path) -> bool {
    dir.join("events").is_dir() && dir.join("states").is_dir() && !task_files(dir).is_empty()
}

/// The `taskN.yaml` files, in the order of their numbers.
fn task_files(dir: &Path) -> Vec<PathBuf> {
    let number = |p: &Path| -> Option<u64> {
        let name = p.file_name()?.to_str()?;
        name.strip_prefix("task")?.strip_suffix(".yaml")?.parse().ok()
    };
    let mut files: Vec<(u64, PathBuf)> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).filter_map(|p| number(&p).map(|n| (n, p))).collect())
        .unwrap_or_default();
    files.sort();
    files.into_iter().map(|(_, p)| p).collect()
}

/// `state_str`: one hash or a list of them.
#[derive(Deserialize)]
#[serde(untagged)]
enum Hashes {
    One(String),
    Many(Vec<String>),
}

impl Hashes {
    fn list(&self) -> &[String] {
        match self {
            Hashes::One(h) => std::slice::from_ref(h),
            Hashes::Many(v) => v,
        }
    }
}

#[derive(Deserialize)]
struct Record {
    #[serde(rename = "State", default)]
    state: String,
    #[serde(rename = "Choice")]
    choice: i64,
    #[serde(rename = "Input", default)]
    input: Option<serde_norway::Value>,
    state_str: Hashes,
    #[serde(default)]
    new_state_str: Option<String>,
}

#[derive(Deserialize)]
struct TaskFile {
    task_name: String,
    records: Vec<Record>,
}

/// One element of a record's `State`: `<button id=3 text='desc' checked=True>text<br>more</button>`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Element {
    pub(crate) tag: String,
    pub(crate) id: i64,
    /// The `text='…'` attribute: the view's content description.
    pub(crate) desc: String,
    /// The inner text, split where the rendering joined views with `<br>`.
    pub(crate) texts: Vec<String>,
    /// `checked=True` or `checked=False`, for a checkable element.
    pub(crate) checked: Option<bool>,
}

impl Element {
    /// The rendering ends every screen with a `go back` button: the Back key.
    fn is_back(&self) -> bool {
        self.tag == "button" && self.desc.is_empty() && self.texts == ["go back"]
    }

    fn words(&self) -> impl Iterator<Item = &str> {
        self.texts.iter().map(String::as_str).chain((!self.desc.is_empty()).then_some(self.desc.as_str()))
    }
}

fn tidy(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The elements of a record's `State`, in order. Text that is not an element is skipped.
pub(crate) fn elements(state: &str) -> Vec<Element> {
    let mut out = Vec::new();
    let mut rest = state;
    while let Some(open) = rest.find('<') {
        rest = &rest[open + 1..];
        let tag: String = rest.chars().take_while(char::is_ascii_alphabetic).collect();
        if tag.is_empty() {
            continue;
        }
        let Some(head_end) = rest.find('>') else { break };
        let head = &rest[tag.len()..head_end];
        let close = format!("</{tag}>");
        let body = &rest[head_end + 1..];
        let Some(body_end) = body.find(&close) else { continue };
        let id = head.split_whitespace().find_map(|a| a.strip_prefix("id=")).and_then(|v| v.parse().ok());
        let desc = head.find("text='").map(|at| {
            let value = &head[at + 6..];
            // The value ends at the last quote of the head: a description may hold quotes.
            value.rfind('\'').map_or(value, |end| &value[..end]).to_owned()
        });
        let checked = head.split_whitespace().find_map(|a| match a.strip_prefix("checked=")? {
            "True" => Some(true),
            "False" => Some(false),
            _ => None,
        });
        if let Some(id) = id {
            let texts = body[..body_end].split("<br>").map(tidy).filter(|t| !t.is_empty()).collect();
            out.push(Element { tag: tag.clone(), id, desc: tidy(&desc.unwrap_or_default()), texts, checked });
        }
        rest = &body[body_end + close.len()..];
    }
    out
}

/// A view's text against a word of the rendering, which cuts long texts short.
fn same_text(view: &str, word: &str) -> bool {
    let view = tidy(view);
    !word.is_empty() && (view == word || (word.chars().count() >= 20 && view.starts_with(word)))
}

/// The node of `root` an element stands for: the smallest node whose own and descendants'
/// texts hold every word of the element, preferring a field for an `input` (and not for
/// anything else), then one that takes touches, then one on screen (a pager holds its neighbouring pages beside the screen, with rows of the same
/// texts).
pub(crate) fn find_node(root: &UiNode, element: &Element) -> Option<UiNode> {
    let words: Vec<&str> = element.words().collect();
    if words.is_empty() {
        return None;
    }
    let screen = root.bounds;
    let on_screen = |node: &UiNode| {
        let (x, y) = center(node);
        (f64::from(screen[0])..f64::from(screen[2])).contains(&x) && (f64::from(screen[1])..f64::from(screen[3])).contains(&y)
    };
    let mut best: Option<((bool, bool, bool), i64, UiNode)> = None;
    let mut consider = |node: &UiNode| {
        let mut texts = Vec::new();
        node.walk(&mut Vec::new(), &mut |_, n| {
            texts.push(n.text.as_str());
            texts.push(n.content_desc.as_str());
        });
        if !words.iter().all(|w| texts.iter().any(|t| same_text(t, w))) {
            return;
        }
        // An `input` is a field: not the search icon labelled like it.
        let kind = (element.tag == "input") == node.editable;
        let rank = (kind, node.clickable || node.long_clickable || node.checkable || node.editable, on_screen(node));
        let area = i64::from(node.width().max(0)) * i64::from(node.height().max(0));
        let better = match &best {
            None => true,
            Some((r, a, _)) => rank > *r || (rank == *r && area < *a),
        };
        if better {
            best = Some((rank, area, node.shallow()));
        }
    };
    root.walk(&mut Vec::new(), &mut |_, n| consider(n));
    best.map(|(.., node)| node)
}

fn center(node: &UiNode) -> (f64, f64) {
    (f64::from(node.bounds[0] + node.bounds[2]) / 2.0, f64::from(node.bounds[1] + node.bounds[3]) / 2.0)
}

/// The typed text of a record, if it has one (`'null'` means none).
fn typed(record: &Record) -> Option<String> {
    let text = match record.input.as_ref()? {
        serde_norway::Value::String(s) => s.clone(),
        serde_norway::Value::Number(n) => n.to_string(),
        serde_norway::Value::Bool(b) => b.to_string(),
        _ => return None,
    };
    (text != "null" && !text.is_empty()).then_some(text)
}

/// The first of a record's states that the recording saved, else its first hash.
fn screen_of(log: &Trace, hashes: &[String]) -> Option<String> {
    hashes.iter().find(|h| log.screens.get(*h).is_some_and(|s| s.root.is_some())).or(hashes.first()).cloned()
}

/// Gives a demonstration the recording's screen `id` (once), or a hash-only screen when the
/// recording did not save it.
fn copy_screen(trace: &mut Trace, log: &Trace, id: &str) {
    if trace.screens.contains_key(id) {
        return;
    }
    let screen = log.screens.get(id).cloned().unwrap_or_else(|| {
        let (w, h) = log.screens.values().next().map_or((1080, 2400), |s| (s.width, s.height));
        Screen::hash_only(id, w, h)
    });
    trace.screens.insert(id.to_owned(), screen);
}

/// The screen `id` as a record's `State` shows it. DroidBot's state hash leaves out what is
/// checked, so the recording's state of that hash may show a box the other way than the
/// person saw it; then the record's boxes are applied to a copy, `<id>~<record>`.
fn as_shown(trace: &mut Trace, log: &Trace, id: &str, record: &Record, step: usize) -> String {
    let Some(root) = log.screens.get(id).and_then(|s| s.root.as_ref()) else { return id.to_owned() };
    let mut root = root.clone();
    let mut changed = false;
    for element in elements(&record.state) {
        let Some(checked) = element.checked else { continue };
        let Some(node) = find_node(&root, &element) else { continue };
        let mut path = None;
        // The box itself, or the one inside the row that holds the element's texts.
        let b = node.bounds;
        root.walk(&mut Vec::new(), &mut |p, n| {
            let inside = n.bounds[0] >= b[0] && n.bounds[1] >= b[1] && n.bounds[2] <= b[2] && n.bounds[3] <= b[3];
            if path.is_none() && inside && n.checkable && n.checked != checked {
                path = Some(p.to_vec());
            }
        });
        let Some(path) = path else { continue };
        let mut at = &mut root;
        for i in path {
            at = &mut at.children[i];
        }
        at.checked = checked;
        changed = true;
    }
    if !changed {
        return id.to_owned();
    }
    let shown = format!("{id}~{step}");
    if let Some(screen) = log.screens.get(id) {
        let mut screen = screen.clone();
        screen.id.clone_from(&shown);
        screen.root = Some(root);
        trace.screens.insert(shown.clone(), screen);
    }
    shown
}

/// One demonstration as a trace over the recording's screens; `Err` says why it cannot be.
fn demonstration(file: &Path, task: &TaskFile, log: &Trace) -> Result<Trace, String> {
    let mut trace = Trace::new("droidtask", file);
    trace.base_dir.clone_from(&log.base_dir);
    trace.instruction = Some(tidy(&task.task_name)).filter(|t| !t.is_empty());
    let records = &task.records;
    for (k, record) in records.iter().enumerate() {
        if record.choice < 0 {
            // No action: the screen the task ended on.
            continue;
        }
        let step = k + 1;
        let Some(screen) = screen_of(log, record.state_str.list()) else {
            return Err(format!("record {step}: `state_str` names no state"));
        };
        let next_hashes: Vec<String> = match records.get(k + 1) {
            Some(next) => next.state_str.list().to_vec(),
            None => record.new_state_str.iter().cloned().collect(),
        };
        // As the next record shows it (the last record's next screen has no rendering).
        let next = screen_of(log, &next_hashes).map(|id| match records.get(k + 1) {
            Some(after) => as_shown(&mut trace, log, &id, after, step + 1),
            None => id,
        });
        let elements = elements(&record.state);
        let Some(element) = elements.iter().find(|e| e.id == record.choice) else {
            return Err(format!("record {step}: `Choice` {} is not an element of its `State`", record.choice));
        };
        let (action, target, screen) = if element.is_back() {
            (TraceAction::Key { key: "back".into() }, None, as_shown(&mut trace, log, &screen, record, step))
        } else {
            // A record's states may be one screen scrolled: its rendering lists the elements of
            // all of them, and the element is on the one the person had scrolled to. A state
            // scrolled elsewhere may still hold the element's node, squeezed to nothing at the
            // scroll view's edge: the state showing it with an area comes first.
            let find_in = |shown: bool| {
                record.state_str.list().iter().find_map(|id| {
                    let root = log.screens.get(id)?.root.as_ref()?;
                    find_node(root, element).filter(|n| !shown || has_area(n)).map(|node| (id.clone(), node))
                })
            };
            let found = find_in(true).or_else(|| find_in(false));
            let Some((at, node)) = found else {
                return Err(format!(
                    "record {step}: the chosen element `{}` is not found in state {screen}",
                    element.words().collect::<Vec<_>>().join(" / ")
                ));
            };
            let at_shown = as_shown(&mut trace, log, &at, record, step);
            if at != screen {
                let (w, h) = log.screens.get(&screen).map(|s| (f64::from(s.width), f64::from(s.height))).unwrap_or((1080.0, 2400.0));
                let swipe = TraceAction::Swipe { x1: w / 2.0, y1: h * 0.7, x2: w / 2.0, y2: h * 0.3 };
                let shown = as_shown(&mut trace, log, &screen, record, step);
                copy_screen(&mut trace, log, &shown);
                trace.steps.push(TraceStep { screen: shown, action: swipe, target: None, next: Some(at_shown.clone()) });
            }
            let action = match typed(record) {
                Some(text) => TraceAction::TypeText { text },
                None => {
                    let (x, y) = center(&node);
                    TraceAction::Tap { x, y }
                }
            };
            (action, Some(Target { path: None, node }), at_shown)
        };
        for id in std::iter::once(&screen).chain(next.as_ref()) {
            copy_screen(&mut trace, log, id);
        }
        trace.steps.push(TraceStep { screen, action, target, next });
    }
    if trace.steps.is_empty() {
        return Err("no record acts on the screen".into());
    }
    Ok(trace)
}

/// The node's box is not empty (Android reports a node scrolled out of view with its top and
/// bottom crossed or equal).
fn has_area(node: &UiNode) -> bool {
    node.bounds[2] > node.bounds[0] && node.bounds[3] > node.bounds[1]
}

fn parse_task(file: &Path, text: &str) -> Result<TaskFile, ReconError> {
    let task: TaskFile = serde_norway::from_str(text).map_err(|e| match e.location() {
        Some(at) => ReconError::line(file, at.line(), format!("column {}: {e}", at.column())),
        None => ReconError::format(file, e.to_string()),
    })?;
    if task.records.len() > MAX_STEPS {
        return Err(ReconError::field(file, "records", format!("{} records: over the limit of {MAX_STEPS}", task.records.len())));
    }
    Ok(task)
}

/// The recording, then each demonstration that could be followed on its screens. A
/// demonstration that cannot (its element is not on the saved screen) is left out with a note
/// on the recording naming its file and record.
pub(super) fn import_all(dir: &Path) -> Result<Vec<Trace>, ReconError> {
    let mut log = droidbot::import(dir)?;
    log.source_format = "droidtask".into();
    let mut budget = Budget::default();
    let mut demos = Vec::new();
    for file in task_files(dir) {
        let task = parse_task(&file, &budget.read_text(&file, MAX_EVENT_FILE_BYTES)?)?;
        match demonstration(&file, &task, &log) {
            Ok(trace) => demos.push(trace),
            Err(why) => log.notes.push(format!("{}: left out: {why}", file.display())),
        }
    }
    Ok(std::iter::once(log).chain(demos).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_keep_their_texts_descriptions_and_numbers() {
        let state = "<button id=0 text='More apps from us'></button>\n<checkbox id=6 checked=True>Prevent phone from sleeping while the app is in fo</checkbox>\n\
                     <button id=9>Max reminder duration<br>5 minutes</button>\n<p id=10>Timer</p>\n<button id=11>go back</button>";
        let e = elements(state);
        assert_eq!(e.len(), 5);
        assert_eq!((e[0].id, e[0].desc.as_str(), e[0].texts.len()), (0, "More apps from us", 0));
        assert_eq!(e[1].tag, "checkbox");
        assert_eq!(e[2].texts, ["Max reminder duration", "5 minutes"]);
        assert!(e[4].is_back() && !e[3].is_back());
    }

    #[test]
    fn an_element_is_found_as_the_smallest_touchable_node_holding_its_texts() {
        let mut row = UiNode::new("android.widget.RelativeLayout", [0, 100, 1080, 300]);
        row.clickable = true;
        row.children = vec![
            UiNode { text: "Max reminder duration".into(), ..UiNode::new("android.widget.TextView", [40, 120, 800, 180]) },
            UiNode { text: "5 minutes".into(), ..UiNode::new("android.widget.TextView", [40, 200, 800, 260]) },
        ];
        let mut root = UiNode::new("android.widget.FrameLayout", [0, 0, 1080, 2280]);
        root.clickable = true;
        root.children = vec![row];
        let element = &elements("<button id=9>Max reminder duration<br>5 minutes</button>")[0];
        let node = find_node(&root, element).unwrap();
        assert_eq!(node.bounds, [0, 100, 1080, 300]);
        let cut = &elements("<p id=1>Max reminder durat</p>")[0];
        assert!(find_node(&root, cut).is_none(), "a short word matches only whole texts");
    }

    #[test]
    fn of_two_rows_alike_the_one_on_screen_is_chosen_not_the_one_on_the_next_page_of_a_pager() {
        let row = |bounds: [i32; 4]| {
            let mut row = UiNode::new("android.widget.FrameLayout", bounds);
            row.clickable = true;
            row.children = vec![UiNode { text: "Recordings".into(), ..UiNode::new("android.widget.TextView", bounds) }];
            row
        };
        let mut root = UiNode::new("android.widget.FrameLayout", [0, 0, 1080, 2280]);
        // The next page comes first in the tree and its row is smaller.
        root.children = vec![row([1080, 300, 2100, 500]), row([0, 300, 1080, 520])];
        let element = &elements("<button id=4>Recordings</button>")[0];
        assert_eq!(find_node(&root, element).unwrap().bounds, [0, 300, 1080, 520]);
    }

    #[test]
    fn an_input_is_the_field_not_the_smaller_icon_labelled_like_it() {
        let mut icon = UiNode::new("android.widget.ImageView", [900, 90, 1020, 190]);
        (icon.content_desc, icon.clickable) = ("Search".into(), true);
        let mut field = UiNode::new("android.widget.EditText", [48, 200, 860, 300]);
        (field.text, field.editable) = ("Search".into(), true);
        let mut root = UiNode::new("android.widget.FrameLayout", [0, 0, 1080, 2280]);
        root.children = vec![icon, field];
        let found = |html: &str| find_node(&root, &elements(html)[0]).unwrap().class;
        assert_eq!(found("<input id=5>Search</input>"), "android.widget.EditText");
        assert_eq!(found("<button id=0 text='Search'></button>"), "android.widget.ImageView");
    }
}
