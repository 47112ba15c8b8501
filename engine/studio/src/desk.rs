//! The task desk: the app's task templates, a template's reference solution played one action
//! at a time with its checks shown after each, and a new task recorded by doing it.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use phoneworld_data::{Action, Key, UiElement};
use phoneworld_phone::InterruptionSetting;
use phoneworld_tasks::{app_data, changed_paths, find, find_field, holds, judge, parse_template, Instance, Oracle, Suite, TaskTemplate};
use serde::Serialize;
use serde_json::{json, Value};

use crate::session::{fresh_device, Session};
use crate::StudioError;

/// What the desk is doing: nothing, playing a template, or recording a new one.
#[derive(Debug, Default)]
pub(crate) struct Desk {
    player: Option<Player>,
    recording: Option<Recording>,
    /// The checks the last recording offers, once it stopped.
    offered: Vec<Offer>,
    /// The last `verify` of a template from the page.
    verified: Option<Value>,
}

#[derive(Debug)]
struct Player {
    instance: Instance,
    oracle: Oracle,
    baseline: Value,
    actions: Vec<String>,
    /// Why the solution cannot go on (an element it names is not on screen), or that it ended.
    ended: Option<String>,
}

/// The steps of a recording, as a reference solution, and what they were done on.
#[derive(Debug)]
struct Recording {
    baseline: Value,
    steps: Vec<String>,
    /// Actions no step can say (a tap on nothing nameable), which the saved task would lack.
    unsaid: Vec<String>,
    /// A swipe waits for the tap after it: scrolling to an element is how solutions say it.
    swiped: bool,
    answers: Vec<String>,
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
fn ron_str(s: &str) -> String {
    ron::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
}

fn ron_value(v: &Value) -> String {
    ron::to_string(v).unwrap_or_else(|_| "()".into())
}

impl Session {
    /// The suite folders the desk reads and writes: the project's, then each app's own
    /// (`APP_DIR/verifiers/<suite>/`).
    fn suite_dirs(&self) -> Vec<PathBuf> {
        let mut parents = vec![self.options.root.join("verifiers")];
        parents.extend(self.options.app_dirs.iter().map(|d| d.join("verifiers")));
        let mut dirs = Vec::new();
        for parent in parents {
            let Ok(entries) = std::fs::read_dir(&parent) else { continue };
            let mut found: Vec<PathBuf> = entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
            found.sort();
            dirs.extend(found);
        }
        dirs
    }

    fn involves_author_app(&self, t: &TaskTemplate) -> bool {
        t.apps.iter().any(|p| self.apps.iter().any(|a| &a.package == p))
    }

    /// The templates of the suites that involve the author's apps, and the suites that did not
    /// load (with their error).
    pub fn templates(&self) -> (Vec<Listed>, Vec<String>) {
        let (mut listed, mut errors) = (Vec::new(), Vec::new());
        for dir in self.suite_dirs() {
            match Suite::load(&dir, &self.catalog) {
                Ok(suite) => {
                    for t in suite.templates.iter().filter(|t| self.involves_author_app(t)) {
                        listed.push(Listed {
                            id: t.id.clone(),
                            suite: suite.name.clone(),
                            instruction: t.instruction.clone(),
                            apps: t.apps.clone(),
                            file: dir.join(format!("{}.ron", t.id)),
                        });
                    }
                }
                Err(err) => errors.push(err.to_string()),
            }
        }
        (listed, errors)
    }

    fn template(&self, id: &str) -> Result<(Arc<TaskTemplate>, PathBuf), StudioError> {
        let (listed, _) = self.templates();
        let found =
            listed.into_iter().find(|l| l.id == id).ok_or_else(|| StudioError::Task(format!("no template `{id}` of these apps")))?;
        let text = std::fs::read_to_string(&found.file).map_err(|e| StudioError::Io(format!("{}: {e}", found.file.display())))?;
        let template = parse_template(&found.file, &text).map_err(|e| StudioError::Task(e.to_string()))?;
        Ok((Arc::new(template), found.file))
    }

    /// Sets the phone up for a template's instance (its setup applied) and readies its
    /// reference solution.
    pub fn play_start(&mut self, id: &str, seed: u64) -> Result<(), StudioError> {
        let (template, _) = self.template(id)?;
        let instance = Instance::new(template, seed, &self.catalog).map_err(|e| StudioError::Task(e.to_string()))?;
        let phone = fresh_device(&self.options, &self.catalog)?;
        self.device = instance.device_with(Arc::clone(&self.catalog), *phone.config()).map_err(|e| StudioError::Task(e.to_string()))?;
        let baseline = app_data(&self.device);
        let oracle = Oracle::new(instance.template.solution.clone(), instance.params.clone());
        self.desk.recording = None;
        self.desk.player = Some(Player { instance, oracle, baseline, actions: Vec::new(), ended: None });
        self.bump();
        Ok(())
    }

    /// Plays the solution's next action; then every check of the template, held or not.
    pub fn play_step(&mut self) -> Result<Value, StudioError> {
        let mut player = self.desk.player.take().ok_or_else(|| StudioError::Task("no template is playing: pick one first".into()))?;
        if player.ended.is_none() {
            match player.oracle.next_action(&mut self.device) {
                Ok(Some(action)) => {
                    player.actions.push(serde_json::to_string(&action).unwrap_or_default());
                    self.step(&action);
                }
                Ok(None) => player.ended = Some("the solution is done".into()),
                Err(why) => player.ended = Some(why),
            }
        }
        let params = &player.instance.params;
        let checks: Vec<Value> = player
            .instance
            .template
            .success
            .iter()
            .map(|c| {
                let verdict = holds(c, &self.device, params);
                json!({ "check": format!("{c:?}"), "holds": verdict.as_ref().is_ok_and(|h| *h), "error": verdict.err() })
            })
            .collect();
        let verdict = judge(&player.instance, &self.device, &player.baseline);
        let answer = json!({
            "action": player.actions.last(),
            "ended": player.ended,
            "checks": checks,
            "success": verdict.success,
            "reason": verdict.reason,
        });
        self.desk.player = Some(player);
        self.bump();
        Ok(answer)
    }

    /// Starts recording on a fresh phone, in the first of the author's apps (the solution's
    /// first step opens it).
    pub fn record_start(&mut self) -> Result<(), StudioError> {
        self.reset()?;
        let baseline = app_data(&self.device);
        self.desk.player = None;
        self.desk.offered.clear();
        let mut recording = Recording { baseline, steps: Vec::new(), unsaid: Vec::new(), swiped: false, answers: Vec::new() };
        if let Some(app) = self.apps.first().cloned() {
            recording.steps.push(format!("Open({})", ron_str(&app.label)));
            self.desk.recording = Some(recording);
            self.step(&Action::OpenApp { app: app.package });
        } else {
            self.desk.recording = Some(recording);
        }
        Ok(())
    }

    /// Plays an action from the page; while recording, notes it as a solution step first
    /// (what it touches is read off the screen before it changes).
    pub fn act(&mut self, action: &Action) -> phoneworld_phone::StepResult {
        if self.desk.recording.is_some() {
            let elements = self.device.ui_elements();
            if let Some(recording) = self.desk.recording.as_mut() {
                recording.note(action, &elements);
            }
        }
        self.step(action)
    }

    /// Stops recording; offers a check for each change of app data since it started.
    pub fn record_stop(&mut self) -> Result<Vec<Offer>, StudioError> {
        let recording = self.desk.recording.as_ref().ok_or_else(|| StudioError::Task("not recording".into()))?;
        let after = app_data(&self.device);
        let mut offers = offer_checks(&recording.baseline, &after);
        offers.extend(recording.answers.iter().map(|a| Offer { check: format!("Answer({})", ron_str(a)), allow: String::new() }));
        self.desk.offered = offers.clone();
        self.bump();
        Ok(offers)
    }

    /// Writes the recording as a template with the checks the author kept (positions in the
    /// offer), into the suite that already holds the app's tasks or `APP_DIR/verifiers/<app>/`.
    pub fn record_save(&mut self, id: &str, instruction: &str, keep: &[usize]) -> Result<PathBuf, StudioError> {
        let bad = |m: String| StudioError::Task(m);
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') {
            return Err(bad(format!("task id `{id}`: use lowercase letters, digits and `_` (it names the file)")));
        }
        if instruction.trim().is_empty() {
            return Err(bad("write the instruction an agent is given".into()));
        }
        let recording = self.desk.recording.as_ref().ok_or_else(|| bad("not recording".into()))?;
        if self.desk.offered.is_empty() {
            return Err(bad("stop the recording first: its checks come from what changed".into()));
        }
        let chosen: Vec<&Offer> = keep.iter().filter_map(|&i| self.desk.offered.get(i)).collect();
        if chosen.is_empty() {
            return Err(bad("keep at least one check".into()));
        }
        let app = self.apps.first().ok_or_else(|| bad("no app of yours is loaded".into()))?;
        let dir = self.record_dir(&app.package, &app.dir);
        let file = dir.join(format!("{id}.ron"));
        if file.exists() {
            return Err(bad(format!("{} exists: choose another id", file.display())));
        }
        let mut apps = vec![app.package.clone()];
        let mut allow: Vec<String> = Vec::new();
        for offer in &self.desk.offered {
            if offer.allow.is_empty() || allow.contains(&offer.allow) {
                continue;
            }
            allow.push(offer.allow.clone());
            if let Some((package, _)) = offer.allow.split_once(':') {
                if package != "system" && !apps.iter().any(|a| a == package) && self.catalog.get(package).is_some() {
                    apps.push(package.to_owned());
                }
            }
        }
        let category = if apps.len() > 1 { "cross_app" } else { "app" };
        let list = |items: Vec<String>| items.iter().map(|s| format!("        {s},\n")).collect::<String>();
        let text = format!(
            "Task(\n    id: {},\n    category: \"{category}\",\n    apps: [{}],\n    difficulty: \"easy\",\n    max_steps: {},\n    skills: [\"recorded\"],\n    instruction: {},\n    success: [\n{}    ],\n    allow: [{}],\n    solution: [\n{}    ],\n)\n",
            ron_str(id),
            apps.iter().map(|a| ron_str(a)).collect::<Vec<_>>().join(", "),
            recording.steps.len() * 2 + 5,
            ron_str(instruction.trim()),
            list(chosen.iter().map(|o| o.check.clone()).collect()),
            allow.iter().map(|a| ron_str(a)).collect::<Vec<_>>().join(", "),
            list(recording.steps.clone()),
        );
        // What is written must read back as a template.
        parse_template(&file, &text).map_err(|e| bad(format!("the recorded task does not read back (a bug): {e}")))?;
        std::fs::create_dir_all(&dir).map_err(|e| StudioError::Io(format!("{}: {e}", dir.display())))?;
        std::fs::write(&file, text).map_err(|e| StudioError::Io(format!("{}: {e}", file.display())))?;
        self.desk.recording = None;
        self.desk.offered.clear();
        self.bump();
        Ok(file)
    }

    fn record_dir(&self, package: &str, app_dir: &Path) -> PathBuf {
        let (listed, _) = self.templates();
        if let Some(found) = listed.iter().find(|l| l.apps.first().is_some_and(|a| a == package)) {
            if let Some(dir) = found.file.parent() {
                return dir.to_path_buf();
            }
        }
        let name = app_dir.file_name().map_or_else(|| "tasks".to_owned(), |n| n.to_string_lossy().into_owned());
        app_dir.join("verifiers").join(name)
    }

    /// `verify` of one template: the reference solution succeeds and doing nothing fails, on
    /// `seeds` seeds. The template is loaded with its suite, so its paths are checked too.
    pub fn verify(&mut self, id: &str, seeds: u64) -> Result<Value, StudioError> {
        let (template, file) = self.template(id)?;
        let dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
        let suite = Suite::load(&dir, &self.catalog).map_err(|e| StudioError::Task(e.to_string()))?;
        let one = Suite { name: suite.name.clone(), templates: vec![template], hash: suite.hash };
        let problems =
            phoneworld_tasks::verify_suite_each(Arc::clone(&self.catalog), &one, seeds, &InterruptionSetting::default(), &mut |_, _| {})
                .map_err(|e| StudioError::Task(e.to_string()))?;
        let answer = json!({
            "template": id,
            "file": file,
            "seeds": seeds,
            "ok": problems.is_empty(),
            "problems": problems.iter().map(|p| format!("seed {}: {}", p.seed, p.problem)).collect::<Vec<_>>(),
        });
        self.desk.verified = Some(answer.clone());
        self.bump();
        Ok(answer)
    }
}

impl Recording {
    fn note(&mut self, action: &Action, elements: &[UiElement]) {
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
fn offer_checks(before: &Value, after: &Value) -> Vec<Offer> {
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
