//! Tasks from the people's own demonstrations: a trace that says what it was doing (its
//! `instruction`) becomes a task of the rebuilt app. The instruction is the person's sentence;
//! the reference solution is what they did, step by step, on the rebuilt app's widgets; the
//! verifier checks the screen they ended on and the controls they changed, as the
//! demonstration's last screens show them, and nothing else may change. Where the real app
//! went back by itself and the rebuilt one does not, the solution adds the Back presses.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

use phoneworld_data::{Action, Key};
use phoneworld_phone::Catalog;
use phoneworld_tasks::{Step, TaskTemplate};
use serde_json::{json, Value};

use crate::abstraction::{snake, Role};
use crate::error::ReconError;
use crate::generate::{checked_in, saved_key, AppModel, Handler, Mapper, ScreenModel, Widget, WidgetKind};
use crate::tasks::{difficulty, lit, path_to, solution_steps, tlit, TaskSummary};
use crate::trace::{Trace, TraceAction, UiNode};

/// A widget a demonstration step acted on, found on the rebuilt screen.
fn widget_for<'m>(screen: &'m ScreenModel, node: &UiNode, size: (u32, u32), eligible: &dyn Fn(&Widget) -> bool) -> Option<&'m Widget> {
    let m = Mapper::for_size(size);
    crate::generate::best_match(&screen.widgets, node, &m, eligible)
}

/// The toggle a tap changed (its id and state key) and the state keys of every toggle the tap
/// may change: the tapped widget if it is one, else one inside the tapped row (a settings row
/// takes the tap for the checkbox it holds), but only when the tap stayed on the screen (a row
/// that opens another screen does not toggle the switch drawn on it). Every toggle of the
/// screen may change with it: choosing one of a group unchecks the others.
fn toggles_of(screen: &ScreenModel, tapped: &Widget, stayed: bool) -> Option<((String, String), Vec<String>)> {
    let b = tapped.source_box;
    let within = |c: [f64; 4]| c[0] >= b[0] - 0.01 && c[2] <= b[2] + 0.01 && c[1] >= b[1] - 0.01 && c[3] <= b[3] + 0.01;
    let mut first: Option<(String, String)> = None;
    let mut keys = Vec::new();
    for w in &screen.widgets {
        w.walk(&mut |w| {
            if let (true, Some(key)) = (w.is_toggle(), &w.state_key) {
                let hit = w.id == tapped.id || (stayed && within(w.source_box));
                if hit && first.is_none() {
                    first = Some((w.id.clone(), key.clone()));
                }
                keys.push(key.clone());
            }
        });
    }
    first.map(|f| (f, keys))
}

/// Whether a handler of `screen` always leaves it, whatever was done there before.
fn leads_away_plainly(h: &Handler, screen: &str) -> bool {
    h.target != screen
        && !h.stays
        && h.opens.is_empty()
        && h.selects_first.is_none()
        && h.requires.is_empty()
        && h.requires_number.is_empty()
        && h.routes.is_empty()
        && h.when_checked.is_none()
}

/// Whether the demonstration's hierarchy shows the toggle checked.
fn shown_checked(screen: &ScreenModel, toggle_id: &str, root: &UiNode, size: (u32, u32)) -> Option<bool> {
    checked_in(screen.widget(toggle_id)?, root, &Mapper::for_size(size))
}

/// One demonstration's task text, or why it cannot be a task.
fn task_text(model: &AppModel, trace_index: usize, trace: &Trace, id: &str) -> Result<(String, usize, String), String> {
    let instruction = trace.instruction.as_deref().unwrap_or_default();
    let abs = &model.abstraction;
    // A screen of the rebuilt app: one of the app's own, or (`foreign`) one of another app the
    // app opened (a dialer, a messenger, a file picker), rebuilt inside it.
    let screen_of = |concrete: &str, foreign: bool| -> Option<&ScreenModel> {
        let s = trace.screens.get(concrete)?;
        let i = abs.classify(trace_index, s)?;
        let role = abs.screens[i].role;
        (role == Role::App || (foreign && role == Role::Foreign)).then(|| model.screen(&abs.screens[i].id)).flatten()
    };
    // Steps before the app's first screen are the way into it (the launcher, another app):
    // the solution opens the app instead.
    let skip = trace.steps.iter().position(|s| screen_of(&s.screen, false).is_some()).ok_or("no step is on a screen of the app")?;
    let start = screen_of(&trace.steps[skip].screen, false).ok_or("no step is on a screen of the app")?;
    let Some(prefix) = path_to(model, &start.id) else {
        return Err(format!("its first screen `{}` is not reached from the app's entry", start.id));
    };
    let mut steps = solution_steps(model, &prefix);
    // Toggles changed, by state key: (widget, screen model, the step after which it shows).
    let mut toggled: BTreeMap<String, (String, String, usize)> = BTreeMap::new();
    let mut typed: BTreeMap<String, String> = BTreeMap::new();
    let mut may_change: BTreeSet<String> = BTreeSet::new();
    let mut scrolled = false;
    let mut keyboard_on: Option<String> = None;
    for (k, step) in trace.steps.iter().enumerate().skip(skip) {
        let here = screen_of(&step.screen, true).ok_or_else(|| format!("step {}: its screen {} is not in the app", k + 1, step.screen))?;
        let size = trace.screens.get(&step.screen).map(|s| (s.width, s.height)).unwrap_or((1080, 2400));
        let node = step.target.as_ref().map(|t| &t.node);
        let missing = || format!("step {}: the element acted on is not a widget of `{}`", k + 1, here.id);
        let stayed = step.next.as_deref().and_then(|next| screen_of(next, true)).is_some_and(|next| next.id == here.id);
        // The screen the keyboard is up on since the last step typed there.
        let keyboard = keyboard_on.take();
        match (&step.action, node) {
            (TraceAction::Key { key }, _) if key == "back" => steps.push("Back".into()),
            (TraceAction::Key { key }, _) if key == "enter" => steps.push("Enter".into()),
            // Time passing (a recording's last look at the screen) is no step of a solution.
            (TraceAction::Wait, _) => keyboard_on = keyboard,
            (TraceAction::TypeText { text }, None) => steps.push(format!("Type({})", tlit(text))),
            // The person scrolled to what they tap next: the next tap scrolls to it too.
            (TraceAction::Swipe { .. }, _) => scrolled = true,
            (TraceAction::TypeText { text }, Some(node)) => {
                let field = widget_for(here, node, size, &|w| w.kind == WidgetKind::TextField).ok_or_else(missing)?;
                if std::mem::take(&mut scrolled) || field.below_the_fold() {
                    steps.push(format!("ScrollTo({})", lit(&field.id)));
                }
                steps.push(format!("Fill({}, {})", lit(&field.id), tlit(text)));
                keyboard_on = stayed.then(|| here.id.clone());
                if let Some(key) = &field.state_key {
                    typed.insert(key.clone(), text.replace(['{', '}'], ""));
                    may_change.insert(lit(&format!("{}:{key}", model.package)));
                }
                // Typing into a search field carries the text into the results screen's field.
                let typed_handler = field.on_change.as_deref().and_then(|name| here.handlers.iter().find(|h| h.name == name));
                may_change.extend(typed_handler.and_then(|h| h.carry.as_deref()).map(|key| lit(&format!("{}:{key}", model.package))));
            }
            (TraceAction::Tap { .. } | TraceAction::LongPress { .. }, Some(node)) => {
                let w = widget_for(here, node, size, &|_| true).ok_or_else(missing)?;
                // A tap on a plain container that left the person on the same screen (it
                // opened a tooltip, or nothing): the rebuilt app has nothing there to tap, and
                // the step changes nothing a verifier sees.
                let inert = w.kind == WidgetKind::Container && w.on_tap.is_none() && w.on_long_press.is_none();
                let toggles = toggles_of(here, w, stayed);
                if stayed && inert && toggles.is_none() {
                    continue;
                }
                // The person stayed on the screen (one of a row of alike confirmations, a
                // wizard's pages), where the rebuilt control plainly leads away: only the tap
                // that left the screen is the rebuilt app's step.
                let ran = if matches!(step.action, TraceAction::LongPress { .. }) { &w.on_long_press } else { &w.on_tap };
                let handler = ran.as_deref().and_then(|name| here.handlers.iter().find(|h| h.name == name));
                if stayed && toggles.is_none() && handler.is_some_and(|h| leads_away_plainly(h, &here.id)) {
                    continue;
                }
                // A plain row holding the box the tap toggled (a contact picker's row): the
                // rebuilt row takes no taps, its box does.
                let w = match &toggles {
                    Some(((toggle, _), _)) if inert => here.widget(toggle).unwrap_or(w),
                    _ => w,
                };
                // The real app made room above the keyboard; the rebuilt one's keyboard covers
                // the screen's bottom (a message's send button), so it goes first.
                if keyboard.as_deref() == Some(here.id.as_str()) && w.kind != WidgetKind::TextField {
                    steps.push("Back".into());
                }
                let verb = match step.action {
                    TraceAction::LongPress { .. } => "LongPress",
                    _ if std::mem::take(&mut scrolled) || w.below_the_fold() => "ScrollTap",
                    _ => "Tap",
                };
                steps.push(format!("{verb}({})", lit(&w.id)));
                // A form's submit control saves what was typed (and may clear the field): the
                // text is then where it was saved.
                if let Some(h) = handler {
                    for save in &h.saves {
                        if let Some(text) = typed.remove(&save.key) {
                            typed.insert(saved_key(&save.key), text);
                        }
                    }
                }
                may_change.extend(model.keys_a_tap_may_change(&here.id, &w.id).iter().map(|key| lit(&format!("{}:{key}", model.package))));
                if let Some(((toggle, key), keys)) = toggles {
                    may_change.extend(keys.iter().map(|key| lit(&format!("{}:{key}", model.package))));
                    toggled.insert(key, (toggle, here.id.clone(), k));
                }
            }
            (action, _) => return Err(format!("step {}: a `{}` is not a step a task solution takes", k + 1, action.name())),
        }
    }
    let last = trace.steps.last().ok_or("no step")?;
    // Where the last step led, or, when the trace ends without saying (a recording's last
    // look), the screen it was on.
    let end_id = last.next.as_deref().unwrap_or(last.screen.as_str());
    let end = screen_of(end_id, true).ok_or_else(|| format!("it ends outside the app (state {end_id})"))?;
    let mut success = vec![format!("Screen(app: {}, screen: {})", lit(&model.package), lit(&end.id))];
    for (key, (toggle, screen_id, k)) in &toggled {
        // As the demonstration last showed it: its final screen if that is the toggle's, else
        // the screen right after the tap.
        let screen = model.screen(screen_id).ok_or("a toggle's screen is gone")?;
        let shown = [end_id, trace.steps[*k].next.as_deref().unwrap_or_default()].into_iter().find_map(|id| {
            let s = trace.screens.get(id)?;
            let same = screen_of(id, true).is_some_and(|m| m.id == *screen_id);
            same.then(|| shown_checked(screen, toggle, s.root.as_ref()?, (s.width, s.height))).flatten()
        });
        if let Some(checked) = shown {
            success.push(format!("Equals(app: {}, path: {}, value: {checked})", lit(&model.package), lit(key)));
        }
    }
    for (key, text) in &typed {
        success.push(format!("Equals(app: {}, path: {}, value: {})", lit(&model.package), lit(key), lit(text)));
        may_change.insert(lit(&format!("{}:{key}", model.package)));
    }
    let allow: Vec<String> = may_change.into_iter().collect();
    if steps.len() <= 1 && success.len() == 1 && end.id == model.entry {
        return Err("opening the app already does it: nothing for an agent to do".into());
    }
    let mut text = String::new();
    let _ = writeln!(text, "// Demonstration: {} ({} step(s) by a person).", crate::generate::one_line(&trace.source), trace.steps.len());
    let _ = writeln!(text, "Task(\n    id: {},\n    category: \"app\",\n    apps: [{}],", lit(id), lit(&model.package));
    let _ = writeln!(
        text,
        "    difficulty: {},\n    max_steps: {},\n    skills: [\"navigation\", \"demonstration\"],",
        lit(difficulty(steps.len())),
        steps.len() * 2 + 6
    );
    let _ = writeln!(text, "    instruction: {},", tlit(instruction));
    let _ = writeln!(text, "    success: [{}],", success.join(", "));
    if !allow.is_empty() {
        let _ = writeln!(text, "    allow: [{}],", allow.join(", "));
    }
    let _ = writeln!(text, "    solution: [{}],\n)", steps.join(", "));
    Ok((text, steps.len(), end.id.clone()))
}

/// The id of the task of the `index`-th trace: the app's name and the trace's file name.
pub(crate) fn demonstration_id(model: &AppModel, index: usize, trace: &Trace) -> String {
    let prefix = snake(model.package.rsplit('.').next().unwrap_or_default());
    let prefix = if prefix.is_empty() { "app".to_owned() } else { prefix };
    let stem = Path::new(&trace.source).file_stem().map(|s| snake(&s.to_string_lossy())).unwrap_or_default();
    format!("{prefix}_{}", if stem.is_empty() { format!("demo_{index}") } else { stem })
}

/// Writes one task per trace with an instruction into `dir`; returns the tasks written and,
/// for each demonstration left out, its trace and why.
pub fn write_demonstration_tasks(model: &AppModel, traces: &[Trace], dir: &Path) -> Result<(Vec<TaskSummary>, Vec<Value>), ReconError> {
    let (mut written, mut left_out) = (Vec::new(), Vec::new());
    for (i, trace) in traces.iter().enumerate() {
        if trace.instruction.is_none() {
            continue;
        }
        let id = demonstration_id(model, i, trace);
        match task_text(model, i, trace, &id) {
            Ok((text, steps, screen)) => {
                let file = dir.join(format!("{id}.ron"));
                std::fs::write(&file, text).map_err(|e| ReconError::io(&file, e))?;
                written.push(TaskSummary { id, kind: "demonstration".into(), screen, steps, file: file.display().to_string() });
            }
            Err(why) => left_out.push(json!({ "task": id, "trace": trace.source, "reason": why })),
        }
    }
    Ok((written, left_out))
}

/// How `verify` says a solution ended on another screen than the task's (a demonstration's
/// first check is the screen it ended on).
const ENDED_ELSEWHERE: &str = "success[0] does not hold: Screen";

/// The Back presses (at most 3) that bring the rebuilt app, after the reference solution, to
/// where the task wants it, if any do: the real app went back by itself (a messenger opened
/// from a contact returns to it once the message is sent), the rebuilt one stays. Only when
/// the solution's last tap does something on the rebuilt app (changes its screen or data): a
/// tap that does nothing there is one the rebuilt app does not model, and Back presses would
/// make the task pass without it.
fn backs_to_the_end(catalog: &Arc<Catalog>, template: &Arc<TaskTemplate>) -> Option<usize> {
    let instance = phoneworld_tasks::Instance::new(Arc::clone(template), 0, catalog).ok()?;
    let play = |steps: &[Step]| -> Option<(phoneworld_phone::Device, Value)> {
        let mut device = instance.device(Arc::clone(catalog)).ok()?;
        let baseline = phoneworld_tasks::app_data(&device);
        let mut oracle = phoneworld_tasks::Oracle::new(steps.to_vec(), instance.params.clone());
        for _ in 0..instance.max_steps() {
            match oracle.next_action(&mut device) {
                Ok(Some(action)) => {
                    device.step(&action);
                }
                Ok(None) => break,
                Err(_) => return None,
            }
        }
        Some((device, baseline))
    };
    let last_tap = template.solution.iter().rposition(|s| matches!(s, Step::Tap(_) | Step::ScrollTap(_) | Step::LongPress(_)))?;
    let mut without = template.solution.clone();
    without.remove(last_tap);
    let (mut device, baseline) = play(&template.solution)?;
    let (skipped, _) = play(&without)?;
    let outcome = |d: &phoneworld_phone::Device| (d.foreground(), phoneworld_tasks::app_data(d));
    if outcome(&device) == outcome(&skipped) {
        return None;
    }
    (1..=3).find(|_| {
        device.step(&Action::Key { key: Key::Back });
        phoneworld_tasks::judge(&instance, &device, &baseline).success
    })
}

/// A task file's text with `steps` added at the end of its solution (its last field, as
/// [`task_text`] writes it).
fn with_steps_appended(text: &str, steps: &[&str]) -> Option<String> {
    let end = text.rfind("],\n)")?;
    let at = text[..end].rfind("solution: [")?;
    (at < end).then(|| format!("{}, {}{}", &text[..end], steps.join(", "), &text[end..]))
}

/// Runs `verify` on the written suite and takes out every task the rebuilt app does not prove
/// (its solution fails, or doing nothing passes): each is removed from `tasks` and its file,
/// and listed in `left_out` with the first problem found.
pub fn keep_proven(
    catalog: Arc<Catalog>,
    dir: &Path,
    tasks: &mut Vec<TaskSummary>,
    left_out: &mut Vec<Value>,
    seeds: u64,
) -> Result<(), ReconError> {
    let load = || phoneworld_tasks::Suite::load(dir, &catalog).map_err(|e| ReconError::Input(format!("{}: {e}", dir.display())));
    let verify = |suite: &phoneworld_tasks::Suite| {
        phoneworld_tasks::verify_suite(Arc::clone(&catalog), suite, seeds).map_err(|e| ReconError::Input(format!("{}: {e}", dir.display())))
    };
    let suite = load()?;
    let mut problems = verify(&suite)?;
    // Demonstrations whose rebuilt app ends elsewhere than the person did: the ones Back
    // brings to their last screen are proven again with those presses added.
    let ended_elsewhere: BTreeSet<&str> =
        problems.iter().filter(|p| p.problem.contains(ENDED_ELSEWHERE)).map(|p| p.template.as_str()).collect();
    let mut repaired = BTreeSet::new();
    for task in tasks.iter_mut().filter(|t| t.kind == "demonstration" && ended_elsewhere.contains(t.id.as_str())) {
        let Some(backs) = suite.templates.iter().find(|t| t.id == task.id).and_then(|t| backs_to_the_end(&catalog, t)) else { continue };
        let file = Path::new(&task.file);
        let text = std::fs::read_to_string(file).map_err(|e| ReconError::io(file, e))?;
        if let Some(text) = with_steps_appended(&text, &vec!["Back"; backs]) {
            std::fs::write(file, text).map_err(|e| ReconError::io(file, e))?;
            repaired.insert(task.id.clone());
            task.steps += backs;
        }
    }
    if !repaired.is_empty() {
        let mut again = load()?;
        again.templates.retain(|t| repaired.contains(&t.id));
        problems.retain(|p| !repaired.contains(&p.template));
        problems.extend(verify(&again)?);
    }
    let mut first: BTreeMap<&str, &str> = BTreeMap::new();
    for p in &problems {
        first.entry(p.template.as_str()).or_insert(p.problem.as_str());
    }
    let mut kept = Vec::new();
    for task in tasks.drain(..) {
        match first.get(task.id.as_str()) {
            Some(problem) => {
                std::fs::remove_file(&task.file).map_err(|e| ReconError::io(Path::new(&task.file), e))?;
                left_out.push(json!({ "task": task.id, "kind": task.kind, "reason": format!("verify: {problem}") }));
            }
            None => kept.push(task),
        }
    }
    *tasks = kept;
    Ok(())
}
