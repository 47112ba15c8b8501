//! One served device: a phone, the suite drawn for it, the tasks initialized on it, and what
//! each endpoint does to them. No HTTP here: [`HttpDevice::handle`] takes an endpoint, its
//! query and body and gives a [`Reply`].

use std::collections::BTreeMap;
use std::sync::{Arc, Weak};

use bytes::Bytes;
use phoneworld_adb::SharedPhone;
use phoneworld_data::{Action, Key};
use phoneworld_phone::{Catalog, DeviceConfig};
use phoneworld_render::Frame;
use phoneworld_tasks::{app_data, judge, report, EpisodeResult, Failure, Instance};
use serde_json::{json, Value};

use crate::expert::Expert;
use crate::json_action::JsonAction;
use crate::pixels::pixels_json;
use crate::pyjson::python_json_error;
use crate::query::{FieldError, Query};
use crate::suite::{Draw, Families, ANDROID_WORLD};

/// What the server answers.
#[derive(Debug)]
pub enum Reply {
    /// A JSON body (compact), with this status.
    Json(u16, Value),
    /// A JSON body already written (keys in upstream's order).
    JsonText(u16, String),
    /// A body already encoded, with its content type.
    Bytes(&'static str, Bytes),
    /// FastAPI's 422: every parameter problem.
    Invalid(Vec<FieldError>),
    /// Upstream's bare 500 (`Internal Server Error`); the reason is logged, not sent.
    Internal(String),
}

impl Reply {
    fn success(message: String) -> Reply {
        Reply::JsonText(200, format!("{{\"status\":\"success\",\"message\":{}}}", json!(message)))
    }
}

/// The endpoints, upstream's and the extensions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Endpoint {
    Health,
    Reset,
    Screenshot,
    ExecuteAction,
    TaskList,
    TaskLength,
    Reinitialize,
    Initialize,
    TearDown,
    Score,
    Goal,
    Template,
    Close,
    UiElements,
    StateHash,
    ExpertAction,
    EvalReport,
}

/// A phone of `width` × `height` pixels with the density that keeps a 1080-pixel-wide phone's
/// layout (420 dpi there), so a smaller screen shows the same screens, only smaller.
pub fn scaled_config(width: u32, height: u32, seed: u64) -> DeviceConfig {
    let density = (420.0 * f64::from(width) / 1080.0).round().max(1.0) as u32;
    DeviceConfig { width, height, density, seed, ..DeviceConfig::default() }
}

/// The upstream suite at startup: `reinitialize(2, 42, android_world)`.
pub const START_COMBINATIONS: i128 = 2;
pub const START_SEED: i128 = 42;

/// A task initialized on the device.
#[derive(Debug)]
struct Played {
    instance: Instance,
    baseline: Value,
    expert: Expert,
    /// The device's executed actions when the task was initialized: its steps are the rest.
    actions_at_start: u32,
}

/// One device behind the API.
pub struct HttpDevice {
    phone: SharedPhone,
    families: Arc<Families>,
    draw: Draw,
    initialized: BTreeMap<(String, u64), Played>,
    /// The last score of each task instance since the suite was drawn, as an eval reports it.
    scored: BTreeMap<(String, u64), EpisodeResult>,
    /// Actions executed on this device (each `execute_action` that stepped the phone).
    actions: u32,
    closed: bool,
    /// The last `status` action's `goal_status`.
    goal_status: Option<String>,
    /// The last screenshot sent as JSON, and the frame it shows (weak: holding the frame would
    /// keep the device from drawing the next one into its buffer).
    pixels_cache: Option<(Weak<Frame>, Bytes)>,
}

impl std::fmt::Debug for HttpDevice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpDevice")
            .field("initialized", &self.initialized.keys().collect::<Vec<_>>())
            .field("closed", &self.closed)
            .finish()
    }
}

impl HttpDevice {
    pub fn new(phone: SharedPhone, families: Arc<Families>) -> HttpDevice {
        let draw = Draw::new(families.templates(ANDROID_WORLD).unwrap_or_default(), START_COMBINATIONS, START_SEED);
        HttpDevice {
            phone,
            families,
            draw,
            initialized: BTreeMap::new(),
            scored: BTreeMap::new(),
            actions: 0,
            closed: false,
            goal_status: None,
            pixels_cache: None,
        }
    }

    /// Answers one request.
    pub fn handle(&mut self, endpoint: Endpoint, query: &Query, body: &[u8]) -> Reply {
        if self.closed {
            return match endpoint {
                Endpoint::Health => Reply::Json(500, json!({"detail": "Environment not initialized"})),
                _ => Reply::Internal("the device was closed".into()),
            };
        }
        let mut params = query.reader();
        match endpoint {
            Endpoint::Health => Reply::Json(200, json!({"status": "success"})),
            Endpoint::Reset => {
                let go_home = params.boolean("go_home");
                if let Err(e) = params.finish() {
                    return Reply::Invalid(e);
                }
                let go_home = go_home.unwrap_or_default();
                self.reset(go_home);
                Reply::success(format!("Environment reset with go_home={}.", py_bool(go_home)))
            }
            Endpoint::Screenshot => {
                params.boolean("wait_to_stabilize");
                let format = params.choice_or("format", &["json", "png"], "json");
                if let Err(e) = params.finish() {
                    return Reply::Invalid(e);
                }
                self.screenshot(format == "png")
            }
            Endpoint::ExecuteAction => match body_object(body) {
                Ok(object) => self.execute(&object),
                Err(e) => Reply::Invalid(vec![e]),
            },
            Endpoint::TaskList => {
                let max_index = params.integer("max_index");
                if let Err(e) = params.finish() {
                    return Reply::Invalid(e);
                }
                let names = self.draw.names();
                let max_index = max_index.unwrap_or(-1);
                let names = if max_index < 0 || max_index > names.len() as i128 {
                    names
                } else {
                    names.into_iter().take(max_index as usize).collect()
                };
                Reply::Json(200, json!({ "task_list": names }))
            }
            Endpoint::TaskLength => {
                let task_type = params.string("task_type");
                if let Err(e) = params.finish() {
                    return Reply::Invalid(e);
                }
                match self.draw.length(task_type.as_deref().unwrap_or_default()) {
                    Some(n) => Reply::Json(200, json!({ "length": n })),
                    None => Reply::Internal(format!("task_length: no task `{}`", task_type.unwrap_or_default())),
                }
            }
            Endpoint::Reinitialize => {
                let n = params.integer_or("n_task_combinations", START_COMBINATIONS);
                let seed = params.integer_or("seed", START_SEED);
                let family = params.string_or("task_family", ANDROID_WORLD);
                if let Err(e) = params.finish() {
                    return Reply::Invalid(e);
                }
                let Some(templates) = self.families.templates(&family) else {
                    return Reply::Json(400, json!({ "detail": format!("Invalid task family: {family}") }));
                };
                self.draw = Draw::new(templates, n, seed);
                // Upstream makes new task objects: none of them is initialized, and a new draw is
                // a new run.
                self.initialized.clear();
                self.scored.clear();
                Reply::success(format!("Task suite re-initialized with n_task_combinations={n}, seed={seed}."))
            }
            Endpoint::Initialize | Endpoint::TearDown | Endpoint::Score | Endpoint::Goal | Endpoint::Template | Endpoint::ExpertAction => {
                let task_type = params.string("task_type");
                let task_idx = params.integer("task_idx");
                let upstream = (endpoint == Endpoint::ExpertAction).then(|| params.boolean_or("upstream", false));
                if let Err(e) = params.finish() {
                    return Reply::Invalid(e);
                }
                let (Some(task_type), Some(task_idx)) = (task_type, task_idx) else {
                    return Reply::Internal("unreachable: parameters checked".into());
                };
                self.task_endpoint(endpoint, &task_type, task_idx, upstream.unwrap_or(false))
            }
            Endpoint::Close => {
                self.closed = true;
                self.initialized.clear();
                self.pixels_cache = None;
                Reply::Json(200, json!({"status": "success"}))
            }
            Endpoint::UiElements => {
                let elements = self.phone.lock().device_mut().ui_elements();
                Reply::Json(200, json!({ "ui_elements": elements }))
            }
            Endpoint::StateHash => Reply::Json(200, json!({ "state_hash": self.phone.lock().device().state_hash() })),
            Endpoint::EvalReport => self.eval_report(),
        }
    }

    /// The eval report (the schema `phoneworld eval --json` prints) of every task instance
    /// scored since the suite was drawn, in task then instance order; `seeds` is the most
    /// instances scored of one task.
    fn eval_report(&self) -> Reply {
        let apps_hash = self.phone.lock().device().catalog().hash.clone();
        let mut per_task: BTreeMap<&str, u64> = BTreeMap::new();
        for (task, _) in self.scored.keys() {
            *per_task.entry(task).or_default() += 1;
        }
        let seeds = per_task.values().copied().max().unwrap_or(0);
        let results = self.scored.values().cloned().collect();
        let report = report(self.families.main(), &apps_hash, "http", seeds, results);
        match serde_json::to_string(&report) {
            Ok(text) => Reply::JsonText(200, text),
            Err(e) => Reply::Internal(format!("eval report: {e}")),
        }
    }

    fn reset(&mut self, go_home: bool) {
        let mut session = self.phone.lock();
        if go_home {
            session.step(&Action::Key { key: Key::Home });
        }
        let recorded = &mut session.device_mut().store_mut().session;
        recorded.answer = None;
        recorded.finished = None;
        self.goal_status = None;
    }

    fn screenshot(&mut self, png: bool) -> Reply {
        let mut session = self.phone.lock();
        if png {
            return Reply::Bytes("image/png", Bytes::from_owner(Shared(session.screenshot_png())));
        }
        let frame = session.device_mut().frame();
        if let Some((cached, body)) = &self.pixels_cache {
            // The weak reference keeps the old allocation's address from being reused.
            if std::ptr::eq(cached.as_ptr(), Arc::as_ptr(&frame)) {
                return Reply::Bytes("application/json", body.clone());
            }
        }
        let body = Bytes::from(pixels_json(&frame));
        self.pixels_cache = Some((Arc::downgrade(&frame), body.clone()));
        Reply::Bytes("application/json", body)
    }

    fn execute(&mut self, object: &serde_json::Map<String, Value>) -> Reply {
        let action = match JsonAction::parse(object) {
            Ok(a) => a,
            Err(e) => return Reply::Internal(format!("execute_action: {e}")),
        };
        let mut session = self.phone.lock();
        match action.action_type.as_str() {
            // Both only record (upstream keeps them beside the phone): no step is taken, the
            // virtual clock does not move. The answer is where verifiers read it, and a status
            // that means done or impossible is recorded as the finish verifiers read.
            "status" => {
                self.goal_status = action.goal_status.clone();
                if let Some(status) = action.goal_status.as_deref().and_then(finish_status) {
                    session.device_mut().store_mut().session.finished = Some(status.to_owned());
                }
            }
            "answer" => {
                session.device_mut().store_mut().session.answer = Some(action.text.clone().unwrap_or_default());
            }
            _ => {
                let device = session.device_mut();
                let size = (device.config().width, device.config().height);
                let elements = if action.index.is_some() { device.ui_elements() } else { Vec::new() };
                let catalog = Arc::clone(device.catalog());
                let actions = match action.to_actions(&elements, size, &|name| open_app_match(&catalog, name)) {
                    Ok(a) => a,
                    Err(e) => return Reply::Internal(format!("execute_action: {e}")),
                };
                for a in &actions {
                    session.step(a);
                }
                self.actions = self.actions.saturating_add(1);
            }
        }
        Reply::success(format!("Action {} executed.", action.repr()))
    }

    fn task_endpoint(&mut self, endpoint: Endpoint, task_type: &str, task_idx: i128, upstream: bool) -> Reply {
        let catalog = Arc::clone(self.phone.lock().device().catalog());
        let instance = match self.draw.instance(task_type, task_idx, &catalog) {
            Ok(i) => i,
            Err(e) => return Reply::Internal(format!("{task_type} {task_idx}: {e}")),
        };
        let key = (task_type.to_owned(), self.draw.position(task_idx));
        match endpoint {
            Endpoint::Goal => Reply::Json(200, json!({ "goal": instance.instruction })),
            Endpoint::Template => Reply::Json(200, json!({ "template": instance.template.instruction })),
            Endpoint::Initialize => {
                if self.initialized.contains_key(&key) {
                    return Reply::Internal(format!("{task_type} {task_idx}: the task is already initialized"));
                }
                let mut session = self.phone.lock();
                let config = *session.device().config();
                let device = match instance.device_with(catalog, DeviceConfig { seed: instance.seed, ..config }) {
                    Ok(d) => d,
                    Err(e) => return Reply::Internal(format!("{task_type} {task_idx}: {e}")),
                };
                session.replace_device(device);
                session.set_task(Some(instance.clone()));
                let baseline = app_data(session.device());
                drop(session);
                self.goal_status = None;
                let expert = Expert::new(&instance);
                self.initialized.insert(key, Played { instance, baseline, expert, actions_at_start: self.actions });
                Reply::success(format!("Task {task_type} {task_idx} initialized."))
            }
            Endpoint::TearDown => {
                if self.initialized.remove(&key).is_some() {
                    let mut session = self.phone.lock();
                    if session.task().is_some_and(|t| t.instance.template.id == task_type) {
                        session.set_task(None);
                    }
                }
                Reply::success(format!("Task {task_type} {task_idx} torn down."))
            }
            Endpoint::Score => match self.initialized.get(&key) {
                Some(played) => {
                    let session = self.phone.lock();
                    let verdict = judge(&played.instance, session.device(), &played.baseline);
                    let steps = self.actions - played.actions_at_start;
                    let instance = &played.instance;
                    let result = EpisodeResult {
                        template: instance.template.id.clone(),
                        category: instance.template.category.name().to_owned(),
                        seed: instance.seed,
                        instruction: instance.instruction.clone(),
                        success: verdict.success,
                        steps,
                        failure: verdict.reason.map(|reason| Failure { step: steps, reason }),
                        subgoals: verdict.subgoals,
                        collateral: verdict.collateral,
                        state_hash: session.device().state_hash(),
                    };
                    drop(session);
                    self.scored.insert(key, result);
                    Reply::Json(200, json!({ "score": if verdict.success { 1.0 } else { 0.0 } }))
                }
                None => Reply::Internal(format!("{task_type} {task_idx}: score before initialize")),
            },
            Endpoint::ExpertAction => match self.initialized.get_mut(&key) {
                Some(played) => {
                    let mut session = self.phone.lock();
                    match played.expert.next(session.device_mut(), upstream) {
                        Ok(action) => Reply::Json(200, json!({ "action": action })),
                        Err(e) => Reply::Internal(format!("{task_type} {task_idx}: expert: {e}")),
                    }
                }
                None => Reply::Internal(format!("{task_type} {task_idx}: expert_action before initialize")),
            },
            _ => Reply::Internal(format!("{endpoint:?} is not a task endpoint")),
        }
    }
}

/// A PNG the session keeps, sent without copying it.
struct Shared(Arc<Vec<u8>>);

impl AsRef<[u8]> for Shared {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// `True`/`False`, as the reply messages print booleans.
fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// The finish (as the phone records one) of the goal statuses agents send for "done" and
/// "cannot be done".
fn finish_status(goal_status: &str) -> Option<&'static str> {
    let s = goal_status.to_ascii_lowercase();
    if s.contains("infeasible") {
        Some("infeasible")
    } else if matches!(s.as_str(), "complete" | "completed" | "task_complete" | "success" | "successful" | "done") {
        Some("success")
    } else {
        None
    }
}

/// The request body as FastAPI's `dict[str, Any]` reads it, or its 422 entry.
fn body_object(body: &[u8]) -> Result<serde_json::Map<String, Value>, FieldError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(FieldError { kind: "missing", loc: vec![json!("body")], msg: "Field required".into(), input: Value::Null, ctx: None });
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(map)) => Ok(map),
        // FastAPI reads a JSON `null` body as no body.
        Ok(Value::Null) => {
            Err(FieldError { kind: "missing", loc: vec![json!("body")], msg: "Field required".into(), input: Value::Null, ctx: None })
        }
        Ok(other) => Err(FieldError {
            kind: "dict_type",
            loc: vec![json!("body")],
            msg: "Input should be a valid dictionary".into(),
            input: other,
            ctx: None,
        }),
        Err(e) => {
            // FastAPI names where Python's JSON reader stopped, and why.
            let text = String::from_utf8_lossy(body);
            let (offset, why) = python_json_error(&text).unwrap_or_else(|| (offset_of(&text, e.line(), e.column()), "Expecting value"));
            Err(FieldError {
                kind: "json_invalid",
                loc: vec![json!("body"), json!(offset)],
                msg: "JSON decode error".into(),
                input: json!({}),
                ctx: Some(Box::new(json!({ "error": why }))),
            })
        }
    }
}

/// The character offset of a 1-based line and column (byte column, as serde_json counts).
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let before: usize = text.split('\n').take(line.saturating_sub(1)).map(|l| l.chars().count() + 1).sum();
    before + column.saturating_sub(1)
}

/// `open_app`'s loose match, as upstream's: case and spacing do not matter, and a name that
/// starts with an app's label or package (or the other way round) finds it.
pub fn open_app_match(catalog: &Catalog, name: &str) -> Option<String> {
    let norm = |s: &str| s.chars().filter(char::is_ascii_alphanumeric).collect::<String>().to_ascii_lowercase();
    let wanted = norm(name);
    if wanted.is_empty() {
        return None;
    }
    let apps = &catalog.apps;
    let last_segment = |p: &str| norm(p.rsplit('.').next().unwrap_or(p));
    let exact = apps.iter().find(|a| norm(a.label()) == wanted || norm(a.package()) == wanted || last_segment(a.package()) == wanted);
    let loose = || {
        apps.iter().find(|a| {
            let label = norm(a.label());
            !label.is_empty() && (wanted.starts_with(&label) || label.starts_with(&wanted) || wanted.contains(&label))
        })
    };
    exact.or_else(loose).map(|a| a.package().to_owned())
}
