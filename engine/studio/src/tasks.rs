//! What the task desk does to the phone: lists the templates of the author's apps, sets one
//! up and plays its reference solution one action at a time with its checks shown after each,
//! records a new task by doing it, and verifies a template.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use phoneworld_data::Action;
use phoneworld_phone::InterruptionSetting;
use phoneworld_tasks::{app_data, holds, judge, parse_template, Instance, Oracle, Suite, TaskTemplate};
use serde_json::{json, Value};

use crate::desk::{offer_checks, ron_str, Listed, Offer, Player, RecordedStep, Recording};
use crate::session::{fresh_device, Session};
use crate::StudioError;

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
        let mut recording =
            Recording { baseline, steps: Vec::new(), unsaid: Vec::new(), swiped: false, answers: Vec::new(), stopped: false };
        if let Some(app) = self.apps.first().cloned() {
            recording.steps.push(RecordedStep::Open(app.label.clone()));
            self.desk.recording = Some(recording);
            self.step(&Action::OpenApp { app: app.package });
        } else {
            self.desk.recording = Some(recording);
        }
        Ok(())
    }

    /// Plays an action from the page; while recording, notes it as a solution step (what it
    /// touches is read off the screen before it changes), unless the phone refused it.
    pub fn act(&mut self, action: &Action) -> phoneworld_phone::StepResult {
        let mut before = None;
        if self.desk.recording.as_ref().is_some_and(|r| !r.stopped) {
            let elements = self.device.ui_elements();
            if let Some(recording) = self.desk.recording.as_mut() {
                before = Some(recording.clone());
                recording.note(action, &elements);
            }
        }
        let result = self.step(action);
        if let (false, Some(before)) = (result.ok, before) {
            self.desk.recording = Some(before);
        }
        result
    }

    /// Stops recording; offers a check for each change of app data since it started.
    pub fn record_stop(&mut self) -> Result<Vec<Offer>, StudioError> {
        let after = app_data(&self.device);
        let recording = self.desk.recording.as_mut().ok_or_else(|| StudioError::Task("not recording".into()))?;
        recording.stopped = true;
        let mut offers = offer_checks(&recording.baseline, &after);
        offers.extend(recording.answers.iter().map(|a| Offer {
            check: format!("Answer({})", ron_str(a)),
            allow: String::new(),
            holes: a.contains(['{', '}']),
        }));
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
        // Task files read `{name}` as a parameter's hole and have no escape for a brace.
        let braces = |what: &str| bad(format!("{what} holds `{{` or `}}`, which a task file reads as a parameter's hole: leave them out"));
        if instruction.contains(['{', '}']) {
            return Err(braces("the instruction"));
        }
        if recording.steps.iter().any(|step| step.texts().iter().any(|t| t.contains(['{', '}']))) {
            return Err(braces("a step (a label or typed text)"));
        }
        if chosen.iter().any(|o| o.holes) {
            return Err(braces("a kept check"));
        }
        let app = self.apps.first().ok_or_else(|| bad("no app of yours is loaded".into()))?;
        let (listed, _) = self.templates();
        if let Some(taken) = listed.iter().find(|l| l.id == id) {
            return Err(bad(format!("`{id}` is a task of suite `{}` already ({}): choose another id", taken.suite, taken.file.display())));
        }
        let dir = record_dir(&listed, &app.package, &app.dir);
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
            list(recording.steps.iter().map(RecordedStep::ron).collect()),
        );
        // What is written must read back as a template, and one an instance can be drawn of.
        let template = parse_template(&file, &text).map_err(|e| bad(format!("the recorded task does not read back (a bug): {e}")))?;
        Instance::new(Arc::new(template), 0, &self.catalog).map_err(|e| bad(format!("the recorded task does not play (a bug): {e}")))?;
        std::fs::create_dir_all(&dir).map_err(|e| StudioError::Io(format!("{}: {e}", dir.display())))?;
        std::fs::write(&file, text).map_err(|e| StudioError::Io(format!("{}: {e}", file.display())))?;
        self.desk.recording = None;
        self.desk.offered.clear();
        self.bump();
        Ok(file)
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

/// Where a recorded task of `package` goes: the suite folder that holds its tasks already, or
/// `APP_DIR/verifiers/<app folder name>/`.
fn record_dir(listed: &[Listed], package: &str, app_dir: &Path) -> PathBuf {
    if let Some(found) = listed.iter().find(|l| l.apps.first().is_some_and(|a| a == package)) {
        if let Some(dir) = found.file.parent() {
            return dir.to_path_buf();
        }
    }
    let name = app_dir.file_name().map_or_else(|| "tasks".to_owned(), |n| n.to_string_lossy().into_owned());
    app_dir.join("verifiers").join(name)
}
