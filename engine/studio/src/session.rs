//! The phone the studio shows, and what happens to it: the author's actions, a reload when the
//! app's files change (keeping the phone's state when the change allows), the problems `check`
//! and the app's Lua report, and what the inspector reads (UI elements, state, computed view).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use phoneworld_data::{Action, LayoutModules, LuaLibrary, Problem};
use phoneworld_phone::{check_app, Appearance, Catalog, Device, DeviceConfig, ScriptError};
use serde::Serialize;
use serde_json::{json, Value};

use crate::desk::Desk;
use crate::watch::Snapshot;
use crate::StudioError;

/// Script errors kept for the page, newest last.
const KEPT_SCRIPT_ERRORS: usize = 20;

/// An app the author works on.
#[derive(Debug, Clone, Serialize)]
pub struct AuthorApp {
    pub dir: PathBuf,
    pub package: String,
    pub label: String,
}

/// How the studio was started.
#[derive(Debug, Clone)]
pub struct StudioOptions {
    /// The author's app folders.
    pub app_dirs: Vec<PathBuf>,
    /// The project whose `apps/`, `layouts/`, `lib/` and `verifiers/` the phone also has.
    pub root: PathBuf,
    pub seed: u64,
    /// An appearance profile (`default`, `dark`, `small_phone`, ...).
    pub appearance: String,
}

/// The studio's phone and everything the page shows about it.
pub struct Session {
    pub(crate) options: StudioOptions,
    pub(crate) apps: Vec<AuthorApp>,
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) device: Device,
    /// Each author app's data on a fresh phone of the loaded version (a reload that changes it
    /// starts that app's data afresh).
    initial: BTreeMap<String, Value>,
    problems: Vec<Problem>,
    script_errors: Vec<String>,
    /// What the last reload did, in words ("main.ron changed: reloaded, state kept").
    notice: Option<String>,
    /// Changes with every change the page should show.
    pub(crate) version: u64,
    watched: Snapshot,
    png: Option<(String, Arc<Vec<u8>>)>,
    pub(crate) desk: Desk,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session").field("apps", &self.apps).field("version", &self.version).finish()
    }
}

impl Session {
    /// Loads the author's apps beside the project's and starts a fresh phone on them.
    pub fn open(options: StudioOptions) -> Result<Session, StudioError> {
        let mut dirs = Vec::new();
        for dir in &options.app_dirs {
            if !dir.join("app.ron").is_file() {
                return Err(StudioError::NotAnApp(dir.clone()));
            }
            dirs.push(std::fs::canonicalize(dir).map_err(|e| StudioError::Io(format!("{}: {e}", dir.display())))?);
        }
        Appearance::resolve(&options.appearance, options.seed).map_err(|e| StudioError::Appearance(e.to_string()))?;
        let options = StudioOptions { app_dirs: dirs, ..options };
        let catalog = load_catalog(&options)?;
        let apps = author_apps(&options.app_dirs, &catalog);
        let device = fresh_device(&options, &catalog)?;
        let initial = initial_data(&apps, &device);
        let mut session = Session {
            watched: Snapshot::take(&watched_dirs(&options)),
            options,
            apps,
            catalog,
            device,
            initial,
            problems: Vec::new(),
            script_errors: Vec::new(),
            notice: None,
            version: 1,
            png: None,
            desk: Desk::default(),
        };
        session.problems = session.check();
        if let Some(package) = session.apps.first().map(|a| a.package.clone()) {
            session.step(&Action::OpenApp { app: package });
        }
        Ok(session)
    }

    /// Every problem `check` finds in the author's apps, with file, line and suggestion.
    fn check(&self) -> Vec<Problem> {
        let root = &self.options.root;
        let (modules, module_errors) = LayoutModules::load(&[root.join("layouts")]);
        let (library, library_errors) = LuaLibrary::load(&[root.join("lib")]);
        let mut problems: Vec<Problem> = module_errors.iter().chain(&library_errors).map(Problem::from).collect();
        for dir in &self.options.app_dirs {
            problems.extend(check_app(dir, &modules, &library));
        }
        problems
    }

    /// Looks at the watched files; when any changed, reloads. True when it did.
    pub fn poll_files(&mut self) -> bool {
        let now = Snapshot::take(&watched_dirs(&self.options));
        let changed = now.changed_since(&self.watched);
        self.watched = now;
        if changed.is_empty() {
            return false;
        }
        self.reload(&changed);
        true
    }

    /// Loads the apps again after `changed` files changed. A version that does not load
    /// leaves the phone on the last one that did; one that does keeps the phone's state
    /// unless the app's initial data changed (that app's data starts afresh) or a screen the
    /// phone shows is gone (the phone starts afresh), and says which.
    pub fn reload(&mut self, changed: &[PathBuf]) {
        let names = changed.iter().map(|p| short_name(p)).collect::<Vec<_>>().join(", ");
        self.problems = self.check();
        self.bump();
        let catalog = match load_catalog(&self.options) {
            Ok(catalog) => catalog,
            Err(err) => {
                self.notice = Some(format!("{names} changed; not reloaded: {err}"));
                return;
            }
        };
        let apps = author_apps(&self.options.app_dirs, &catalog);
        let missing: Vec<String> =
            self.options.app_dirs.iter().filter(|d| !apps.iter().any(|a| &a.dir == *d)).map(|d| d.display().to_string()).collect();
        if !missing.is_empty() {
            self.notice = Some(format!(
                "{names} changed; not reloaded: {} does not load (see the problems); the phone runs the last version that did",
                missing.join(", ")
            ));
            return;
        }
        let fresh = match fresh_device(&self.options, &catalog) {
            Ok(device) => device,
            Err(err) => {
                self.notice = Some(format!("{names} changed; not reloaded: {err}"));
                return;
            }
        };
        let initial = initial_data(&apps, &fresh);
        let gone = self.screens_gone(&catalog);
        let restarted = gone.is_some();
        let (device, kept) = if let Some(gone) = gone {
            (fresh, format!("the phone started afresh: {gone}"))
        } else {
            let mut store = self.device.store().clone();
            let mut reset = Vec::new();
            for app in &apps {
                if self.initial.get(&app.package) != initial.get(&app.package) {
                    if let Some(data) = fresh.store().apps.get(&app.package) {
                        store.apps.insert(app.package.clone(), Arc::clone(data));
                    }
                    reset.push(app.label.clone());
                }
            }
            let mut device = fresh;
            *device.store_mut() = store;
            if !reset.is_empty() {
                self.end_recording();
            }
            let kept = if reset.is_empty() {
                "state kept".to_owned()
            } else {
                format!("state kept, but {}'s data started afresh: its initial data changed", reset.join(", "))
            };
            (device, kept)
        };
        self.catalog = catalog;
        self.apps = apps;
        self.device = device;
        self.initial = initial;
        self.png = None;
        self.desk.forget_player();
        if restarted {
            self.end_recording();
        }
        // Errors of the version just replaced: the new one reports its own as they happen.
        self.script_errors.clear();
        self.notice = Some(format!("{names} changed: reloaded, {kept}"));
    }

    /// A screen on an app's back stack that the new version does not have, named.
    fn screens_gone(&self, catalog: &Catalog) -> Option<String> {
        for (package, stack) in &self.device.store().session.tasks {
            let Some(app) = catalog.get(package) else {
                return Some(format!("`{package}` is not installed any more"));
            };
            if let Some(entry) = stack.iter().find(|e| !app.bundle.screens.contains_key(&e.screen)) {
                return Some(format!("{} has no screen `{}` any more", app.label(), entry.screen));
            }
        }
        None
    }

    pub(crate) fn bump(&mut self) {
        self.version += 1;
    }

    /// Plays one action on the phone; the app's script errors are kept for the page.
    pub fn step(&mut self, action: &Action) -> phoneworld_phone::StepResult {
        let result = self.device.step(action);
        for err in &result.script_errors {
            self.note_script_error(err);
        }
        self.bump();
        result
    }

    fn note_script_error(&mut self, err: &ScriptError) {
        let dir = self.apps.iter().find(|a| a.package == err.app).map(|a| a.dir.clone());
        let file = dir.map_or_else(|| err.file.clone(), |d| d.join(&err.file).display().to_string());
        let place = err.line.map_or(file.clone(), |l| format!("{file}:{l}"));
        self.script_errors.push(format!("{place}: {}", err.message));
        if self.script_errors.len() > KEPT_SCRIPT_ERRORS {
            self.script_errors.remove(0);
        }
    }

    /// A fresh phone on the loaded apps (the task desk's player and recording end).
    pub fn reset(&mut self) -> Result<(), StudioError> {
        self.device = fresh_device(&self.options, &self.catalog)?;
        self.script_errors.clear();
        self.png = None;
        // What they were doing was on the phone just replaced.
        self.desk.player = None;
        self.end_recording();
        self.bump();
        Ok(())
    }

    /// Ends a recording (and its offered checks): the phone it was done on is gone.
    fn end_recording(&mut self) {
        self.desk.recording = None;
        self.desk.offered.clear();
    }

    /// The phone in another look (a profile name); it starts afresh.
    pub fn set_appearance(&mut self, name: &str) -> Result<(), StudioError> {
        Appearance::resolve(name, self.options.seed).map_err(|e| StudioError::Appearance(e.to_string()))?;
        self.options.appearance = name.to_owned();
        self.reset()
    }

    /// The current frame as PNG (encoded once per distinct frame).
    pub fn frame_png(&mut self) -> Arc<Vec<u8>> {
        let frame = self.device.frame();
        let hash = frame.hash();
        if let Some((kept, png)) = &self.png {
            if *kept == hash {
                return Arc::clone(png);
            }
        }
        let png = Arc::new(frame.to_png());
        self.png = Some((hash, Arc::clone(&png)));
        png
    }

    /// Everything the page shows beside the phone.
    pub fn panels(&mut self) -> Value {
        let (package, screen) = self.device.foreground();
        let elements = self.device.ui_elements();
        let (vm, vm_problem) = self.device.view_model();
        let mut view_problems = self.device.view_problems();
        view_problems.extend(vm_problem);
        let store = self.device.store();
        let entry = store.top(&package).map(|e| json!({ "params": e.params, "local": e.local }));
        let data: serde_json::Map<String, Value> =
            self.apps.iter().map(|a| (a.package.clone(), store.apps.get(&a.package).map_or(Value::Null, |d| (**d).clone()))).collect();
        let config = self.device.config();
        json!({
            "version": self.version,
            "apps": self.apps,
            "size": { "width": config.width, "height": config.height },
            "appearance": self.options.appearance,
            "appearances": phoneworld_phone::PROFILES,
            "foreground": { "package": package, "screen": screen },
            "elements": elements,
            "state": data,
            "screen_state": entry,
            "vm": *vm,
            "problems": self.problems,
            "script_errors": self.script_errors,
            "view_problems": view_problems,
            "notice": self.notice,
            "desk": self.desk.panel(),
        })
    }

    /// The text of a file of an author's app (the page shows a problem's line in it); none
    /// outside the app folders.
    pub fn app_file(&self, path: &Path) -> Option<String> {
        let path = std::fs::canonicalize(path).ok()?;
        if !self.options.app_dirs.iter().any(|d| path.starts_with(d)) {
            return None;
        }
        let meta = std::fs::metadata(&path).ok()?;
        if !meta.is_file() || meta.len() > 1 << 20 {
            return None;
        }
        std::fs::read_to_string(&path).ok()
    }
}

fn short_name(path: &Path) -> String {
    path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// The folders whose changes reload the phone: the author's apps, the shared library and the
/// layout modules.
fn watched_dirs(options: &StudioOptions) -> Vec<PathBuf> {
    let mut dirs = options.app_dirs.clone();
    dirs.push(options.root.join("lib"));
    dirs.push(options.root.join("layouts"));
    dirs
}

fn load_catalog(options: &StudioOptions) -> Result<Arc<Catalog>, StudioError> {
    let mut roots = vec![options.root.join("apps")];
    roots.extend(options.app_dirs.iter().cloned());
    Catalog::load(&roots, &[options.root.join("layouts")]).map_err(|e| StudioError::Phone(e.to_string()))
}

pub(crate) fn fresh_device(options: &StudioOptions, catalog: &Arc<Catalog>) -> Result<Device, StudioError> {
    let appearance = Appearance::resolve(&options.appearance, options.seed).map_err(|e| StudioError::Appearance(e.to_string()))?;
    appearance
        .device(Arc::clone(catalog), DeviceConfig { seed: options.seed, ..DeviceConfig::default() })
        .map_err(|e| StudioError::Phone(e.to_string()))
}

/// The author's apps as the catalog loaded them (an app that did not load is left out).
fn author_apps(dirs: &[PathBuf], catalog: &Catalog) -> Vec<AuthorApp> {
    dirs.iter()
        .filter_map(|dir| {
            let app = catalog.apps.iter().find(|a| std::fs::canonicalize(&a.bundle.dir).is_ok_and(|d| &d == dir))?;
            Some(AuthorApp { dir: dir.clone(), package: app.package().to_owned(), label: app.label().to_owned() })
        })
        .collect()
}

fn initial_data(apps: &[AuthorApp], device: &Device) -> BTreeMap<String, Value> {
    apps.iter().filter_map(|a| Some((a.package.clone(), (**device.store().apps.get(&a.package)?).clone()))).collect()
}
