//! Tasks from the usage graph: navigation tasks (reach a screen from launch) and input
//! tasks (enter a value in a form and submit), each with its verifier and a reference
//! solution found by a shortest path over the generated navigation handlers.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::abstraction::{snake, Role};
use crate::error::ReconError;
use crate::generate::{AppModel, Handler, Widget, WidgetKind, WidgetRole};
use crate::trace::{Trace, TraceAction};

/// One generated task, as the report lists it.
#[derive(Debug, Clone, Serialize)]
pub struct TaskSummary {
    pub id: String,
    pub kind: String,
    pub screen: String,
    pub steps: usize,
    pub file: String,
}

/// The handler path from the entry screen to every reachable screen (breadth first, so
/// the shortest; ties go to the handler seen most often). A control whose target follows the
/// control that opened its screen (`routes`) is followed where it leads after the path's last
/// step, so the search goes over screens and, for such screens, their openers.
fn paths(model: &AppModel) -> BTreeMap<String, Vec<Handler>> {
    // A splash that moves on by itself is a step too: waiting.
    let waits = |screen: &crate::generate::ScreenModel| {
        screen.moves_on.as_ref().map(|(target, count)| Handler { target: target.clone(), count: *count, ..Handler::default() })
    };
    type State = (String, Option<String>);
    let mut out: BTreeMap<String, Vec<Handler>> = BTreeMap::new();
    out.insert(model.entry.clone(), Vec::new());
    let start: State = (model.entry.clone(), None);
    let mut reached: BTreeMap<State, Vec<Handler>> = BTreeMap::from([(start.clone(), Vec::new())]);
    let mut queue = VecDeque::from([start]);
    while let Some(state) = queue.pop_front() {
        let (id, opener) = &state;
        let Some(screen) = model.screen(id) else { continue };
        // A typed handler needs text, which a navigation step does not type.
        // A row showing saved text is there only once something was saved.
        let mut handlers: Vec<Handler> = screen
            .handlers
            .iter()
            .filter(|h| !h.typed && !screen.shows_saved_text(&h.widget) && screen.runs_own_handler(h))
            .cloned()
            .chain(waits(screen))
            .collect();
        handlers.sort_by(|a, b| b.count.cmp(&a.count).then(a.name.cmp(&b.name)));
        for mut h in handlers {
            if let Some(route) = h.routes.iter().find(|r| Some(&r.opener) == opener.as_ref()) {
                h.target.clone_from(&route.target);
                (h.home, h.pops, h.dismisses) = (route.way.home, route.way.pops, route.way.dismisses);
            }
            // Going back returns to a screen the path already reached, as it was opened then.
            if h.home || (h.pops && !reached[&state].is_empty()) {
                continue;
            }
            // The opener is worth telling apart only where some control routes by it.
            let next: State = (h.target.clone(), model.routes_by(&h.target, &h.name).then(|| h.name.clone()));
            if reached.contains_key(&next) {
                continue;
            }
            let mut path = reached[&state].clone();
            path.push(h.clone());
            out.entry(h.target.clone()).or_insert_with(|| path.clone());
            reached.insert(next.clone(), path);
            queue.push_back(next);
        }
    }
    out
}

/// The handler path from the entry screen to one screen, if it is reachable.
pub(crate) fn path_to(model: &AppModel, screen: &str) -> Option<Vec<Handler>> {
    paths(model).remove(screen)
}

/// The app-state key the widget of a handler writes, if it is an input.
fn state_key_of(model: &AppModel, h: &Handler) -> Option<String> {
    let mut key = None;
    for s in &model.screens {
        for w in &s.widgets {
            w.walk(&mut |w| {
                if key.is_none() && w.on_tap.as_deref() == Some(h.name.as_str()) {
                    key = w.state_key.clone();
                }
            });
        }
    }
    key
}

/// What tapping a handler's widget may change besides its own value (see
/// `AppModel::keys_a_tap_may_change`).
fn keys_a_tap_may_change(model: &AppModel, h: &Handler) -> Vec<String> {
    model
        .screens
        .iter()
        .find(|s| s.handlers.iter().any(|x| x.name == h.name))
        .map_or_else(Vec::new, |s| model.keys_a_tap_may_change(&s.id, &h.widget))
}

pub(crate) fn lit(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_default()
}

/// A template literal for task text: `{` would start a parameter hole.
pub(crate) fn tlit(text: &str) -> String {
    lit(&text.replace(['{', '}'], ""))
}

pub(crate) fn solution_steps(model: &AppModel, path: &[Handler]) -> Vec<String> {
    let mut steps = vec![format!("Open({})", tlit(&model.label))];
    for h in path {
        if h.widget.is_empty() {
            steps.push(format!("Wait({})", 2 * crate::generate::MOVE_ON_MS));
        } else {
            // A control below the fold of a page (a settings row) is scrolled to first.
            let below = model
                .screens
                .iter()
                .find(|s| s.handlers.iter().any(|x| x.name == h.name))
                .and_then(|s| s.widget(&h.widget))
                .is_some_and(Widget::below_the_fold);
            let verb = match (h.long_press, below) {
                (true, _) => "LongPress",
                (false, true) => "ScrollTap",
                (false, false) => "Tap",
            };
            steps.push(format!("{verb}({})", lit(&h.widget)));
            // A widget not selected at first takes one tap to select and one to lead on.
            if h.selects_first.as_ref().is_some_and(|first| *first != h.widget) {
                steps.push(format!("Tap({})", lit(&h.widget)));
            }
        }
    }
    steps
}

pub(crate) fn difficulty(steps: usize) -> &'static str {
    match steps {
        0..=2 => "easy",
        3..=4 => "medium",
        _ => "hard",
    }
}

/// Longest typed text a task asks for (real inputs are a few words).
const MAX_TASK_TEXT_CHARS: usize = 200;

/// Texts the traces typed, by the target widget's resource id (or `""` when unknown).
fn typed_texts(traces: &[Trace]) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for t in traces {
        for s in &t.steps {
            if let TraceAction::TypeText { text } = &s.action {
                // A value a task can ask for: short, and never read as a binding.
                if !text.trim().is_empty() && text.chars().count() <= MAX_TASK_TEXT_CHARS && !text.contains(['{', '}', '"', '\\']) {
                    let id = s.target.as_ref().map(|t| t.node.resource_id.clone()).unwrap_or_default();
                    out.entry(id).or_default().insert(text.trim().to_owned());
                }
            }
        }
    }
    out
}

/// Writes the task suite into `dir` (one RON file per task); returns what was written.
pub fn write_tasks(model: &AppModel, traces: &[Trace], dir: &Path, max_tasks: usize) -> Result<Vec<TaskSummary>, ReconError> {
    std::fs::create_dir_all(dir).map_err(|e| ReconError::io(dir, e))?;
    for entry in std::fs::read_dir(dir).map_err(|e| ReconError::io(dir, e))?.flatten() {
        if entry.path().extension().is_some_and(|e| e == "ron") {
            std::fs::remove_file(entry.path()).map_err(|e| ReconError::io(&entry.path(), e))?;
        }
    }
    let prefix = snake(model.package.rsplit('.').next().unwrap_or_default());
    let prefix = if prefix.is_empty() { "app".to_owned() } else { prefix };
    let paths = paths(model);
    let typed = typed_texts(traces);
    let mut ranked: Vec<_> = model.screens.iter().filter(|s| s.role == Role::App && paths.contains_key(&s.id)).collect();
    ranked.sort_by(|a, b| b.visits.cmp(&a.visits).then(a.id.cmp(&b.id)));
    let mut out = Vec::new();
    let mut write = |id: String, kind: &str, screen: &str, steps: usize, text: String| -> Result<(), ReconError> {
        let file = dir.join(format!("{id}.ron"));
        std::fs::write(&file, text).map_err(|e| ReconError::io(&file, e))?;
        out.push(TaskSummary { id, kind: kind.to_owned(), screen: screen.to_owned(), steps, file: file.display().to_string() });
        Ok(())
    };
    let mut navigation = 0;
    for s in &ranked {
        if s.id == model.entry || navigation >= max_tasks {
            continue;
        }
        let path = &paths[&s.id];
        let steps = solution_steps(model, path);
        let via: Vec<&str> = path.iter().map(|h| if h.widget.is_empty() { "(wait)" } else { h.widget.as_str() }).collect();
        let id = format!("{prefix}_reach_{}", s.id);
        // Toggles on the way change app data: the task allows exactly those.
        let mut allow: Vec<String> = path
            .iter()
            .flat_map(|h| state_key_of(model, h).into_iter().chain(keys_a_tap_may_change(model, h)))
            .map(|k| lit(&format!("{}:{k}", model.package)))
            .collect();
        allow.sort();
        allow.dedup();
        let mut text = String::new();
        let _ = writeln!(
            text,
            "// Navigation: reach `{}` from launch ({} visit(s) in the traces; path: {}).",
            s.id,
            s.visits,
            via.join(" -> ")
        );
        let _ = writeln!(text, "Task(\n    id: {},\n    category: \"app\",\n    apps: [{}],", lit(&id), lit(&model.package));
        let _ = writeln!(
            text,
            "    difficulty: {},\n    max_steps: {},\n    skills: [\"navigation\"],",
            lit(difficulty(steps.len())),
            steps.len() * 2 + 6
        );
        let _ = writeln!(text, "    instruction: {},", tlit(&format!("In {}, go to the {} screen.", model.label, s.title)));
        let _ = writeln!(text, "    success: [Screen(app: {}, screen: {})],", lit(&model.package), lit(&s.id));
        if !allow.is_empty() {
            let _ = writeln!(text, "    allow: [{}],", allow.join(", "));
        }
        let _ = writeln!(text, "    solution: [{}],\n)", steps.join(", "));
        write(id, "navigation", &s.id, steps.len(), text)?;
        navigation += 1;
    }
    let mut inputs = 0;
    for s in &ranked {
        if inputs >= max_tasks {
            break;
        }
        let mut fields = Vec::new();
        for w in &s.widgets {
            w.walk(&mut |w| {
                // A field whose typing shows another screen has no submit step to check after.
                let shows_another = s.handlers.iter().any(|h| h.typed && w.on_change.as_ref() == Some(&h.name));
                if w.kind == WidgetKind::TextField && w.role == WidgetRole::Input && !shows_another {
                    fields.push(w.clone());
                }
            });
        }
        for field in fields {
            let Some(key) = field.state_key.clone() else { continue };
            let path = &paths[&s.id];
            // The submit control: a button that leaves the screen, else any handler of it.
            let submit = s.handlers.iter().filter(|h| !h.home && !h.long_press && !h.typed).max_by_key(|h| {
                let is_button = s.widgets.iter().any(|w| {
                    let mut found = false;
                    w.walk(&mut |w| found |= w.id == h.widget && w.kind == WidgetKind::Button);
                    found
                });
                (is_button, h.count)
            });
            let values: Vec<String> = match typed.get(&field.resource_id).or_else(|| typed.get("")) {
                Some(v) if !v.is_empty() => v.iter().take(5).cloned().collect(),
                _ => vec!["Alex Morgan".into(), "hello world".into(), "PhoneWorld 42".into()],
            };
            let mut steps = solution_steps(model, path);
            // A field opened in place is opened first (a search icon before its field).
            let opener = field.shown_if.as_ref().and_then(|key| s.handlers.iter().find(|h| h.opens.contains(key)));
            if let Some(opener) = opener {
                steps.push(format!("Tap({})", lit(&opener.widget)));
            }
            if field.below_the_fold() {
                steps.push(format!("ScrollTo({})", lit(&field.id)));
            }
            steps.push(format!("Fill({}, \"{{value}}\")", lit(&field.id)));
            let mut success = vec![format!("Equals(app: {}, path: {}, value: \"{{value}}\")", lit(&model.package), lit(&key))];
            if let Some(h) = submit {
                // Back hides the keyboard so the submit control is not under it.
                steps.push("Back".into());
                steps.push(format!("Tap({})", lit(&h.widget)));
                // Where it leads after the control that opened the form, if that tells.
                let opener = path.last().map(|o| o.name.as_str());
                let target = h.routes.iter().find(|r| Some(r.opener.as_str()) == opener).map_or(&h.target, |r| &r.target);
                if *target != s.id {
                    success.push(format!("Screen(app: {}, screen: {})", lit(&model.package), lit(target)));
                }
            }
            let id = format!("{prefix}_enter_{}", key);
            let hint = [&field.text, &field.content_desc]
                .into_iter()
                .find(|t| !t.is_empty())
                .cloned()
                .unwrap_or_else(|| field.id.replace('_', " "));
            let mut text = String::new();
            let _ = writeln!(
                text,
                "// Input: enter a value in `{}` on `{}`{}.",
                field.id,
                s.id,
                submit.map(|h| format!(" and submit with `{}`", h.widget)).unwrap_or_default()
            );
            let _ = writeln!(text, "Task(\n    id: {},\n    category: \"app\",\n    apps: [{}],", lit(&id), lit(&model.package));
            let _ = writeln!(
                text,
                "    difficulty: {},\n    max_steps: {},\n    skills: [\"navigation\", \"form_filling\"],",
                lit(difficulty(steps.len())),
                steps.len() * 2 + 6
            );
            let _ = writeln!(
                text,
                "    instruction: {},",
                lit(&format!(
                    "In {}, go to the {} screen, enter \"{{value}}\" in {}{}.",
                    tlit(&model.label).trim_matches('"'),
                    tlit(&s.title).trim_matches('"'),
                    tlit(&hint).trim_matches('"'),
                    if submit.is_some() { " and submit" } else { "" }
                ))
            );
            let choices: Vec<String> = values.iter().map(|v| lit(v)).collect();
            let _ = writeln!(text, "    params: {{\"value\": Choice([{}])}},", choices.join(", "));
            let _ = writeln!(text, "    success: [{}],", success.join(", "));
            // The field, and what the taps on the way and the submit change besides.
            let mut allow: Vec<String> = std::iter::once(key.clone())
                .chain(
                    path.iter()
                        .chain(submit)
                        .chain(opener)
                        .flat_map(|h| state_key_of(model, h).into_iter().chain(keys_a_tap_may_change(model, h))),
                )
                .map(|k| lit(&format!("{}:{k}", model.package)))
                .collect();
            allow.sort();
            allow.dedup();
            let _ = writeln!(text, "    allow: [{}],", allow.join(", "));
            let _ = writeln!(text, "    solution: [{}],\n)", steps.join(", "));
            write(id, "input", &s.id, steps.len(), text)?;
            inputs += 1;
        }
    }
    Ok(out)
}
