//! The targets. Each is `fn(&[u8])`: it may reject an input (an error is a fine answer) but
//! must never panic, abort or hang, and where it checks a property (determinism) a failed
//! check panics, which the fuzzer records as a crash.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};

use phoneworld_data::{Action, AppBundle, BoolExpr, LayoutModules, ModuleAnalysis, Rng, Scope, Template};
use phoneworld_phone::{Catalog, Device, DeviceConfig};
use phoneworld_reconstruct::fuzzing as recon;
use phoneworld_script::{EventCtx, Program, ScriptHost, ScriptLimits};
use serde_json::{json, Value};

use crate::choices::Choices;
use crate::lua_grammar::{self, HANDLERS};

/// A fuzz target: takes any bytes, must return.
pub type Target = fn(&[u8]);

/// Every target by name (the names of `fuzz/corpus/<name>/` and of the AFL++ binaries).
pub const TARGETS: &[(&str, Target)] = &[
    ("lua_handlers", lua_handlers),
    ("action_json", action_json),
    ("expression", expression),
    ("bundle", bundle),
    ("snapshot", snapshot),
    ("adb_packets", |data| {
        let _ = phoneworld_adb::fuzzing::packet_stream(data);
    }),
    ("adb_sync", |data| {
        let _ = phoneworld_adb::fuzzing::sync_stream(data);
    }),
    ("http_request", |data| {
        let _ = phoneworld_http::fuzzing::request(data);
    }),
    ("adb_shell", |data| {
        let _ = phoneworld_adb::fuzzing::shell_command(data);
    }),
    ("trace_droidbot", |data| trace_file(data, &[recon::droidbot_state, recon::droidbot_event])),
    ("trace_uiautomator", |data| trace_file(data, &[recon::uiautomator_xml, recon::uiautomator_log])),
    ("trace_llamatouch", |data| trace_file(data, &[recon::llamatouch, recon::llamatouch_vh, recon::llamatouch_elements])),
    ("trace_rico", |data| trace_file(data, &[recon::rico, recon::rico_gestures])),
    ("trace_phoneworld", |data| trace_file(data, &[recon::phoneworld_steps, recon::phoneworld_episode, recon::canonical])),
    ("trace_image", |data| {
        let _ = recon::image(data);
    }),
    ("image", image),
];

/// Reads one trace file from bytes (an entry point of `phoneworld_reconstruct::fuzzing`).
type TraceImporter = fn(&[u8]) -> Result<(), phoneworld_reconstruct::ReconError>;

/// An app's image asset: decoded within the limits, then scaled into small boxes with every fit
/// mode; scaling the same window twice must give the same pixels.
fn image(data: &[u8]) {
    use phoneworld_render::{scale_window, Fit, Image, Rect};
    let Ok(image) = Image::decode(data) else { return };
    for (fit, (w, h)) in [(Fit::Cover, (17, 9)), (Fit::Contain, (9, 17)), (Fit::Fill, (12, 12))] {
        let win = Rect::new(0.0, 0.0, w as f32, h as f32);
        let a = scale_window(&image, w, h, fit, win);
        assert_eq!(a, scale_window(&image, w, h, fit, win), "scaling is deterministic");
        assert!(a.pixels.chunks_exact(4).all(|p| p[0] <= p[3] && p[1] <= p[3] && p[2] <= p[3]), "premultiplied stays so");
    }
}

/// One importer of a trace format reads one file. The first byte picks which of the format's
/// files the rest is (a state or an event, a hierarchy or a log), so one target covers them all.
fn trace_file(data: &[u8], importers: &[TraceImporter]) {
    if let Some((&kind, file)) = data.split_first() {
        let _ = importers[usize::from(kind) % importers.len()](file);
    }
}

/// Runs the target called `name` on `data`; false when there is no such target.
pub fn run_target(name: &str, data: &[u8]) -> bool {
    match TARGETS.iter().find(|(n, _)| *n == name) {
        Some((_, f)) => {
            f(data);
            true
        }
        None => false,
    }
}

fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// A budget small enough that a fuzzer runs thousands of handlers a second.
/// (Each unit of work is several coverage callbacks under the fuzzer's instrumentation.)
fn fuzz_limits() -> ScriptLimits {
    ScriptLimits { memory_bytes: 4 << 20, instructions_per_event: 100_000, instructions_per_step: 200_000, max_value_bytes: 256 << 10 }
}

fn event_ctx(state: &Value, local: &Value, rng: &Rng, clipboard: &str) -> EventCtx {
    EventCtx {
        app: "com.fuzz".into(),
        state: state.clone(),
        local: local.clone(),
        system: json!({}),
        content: Arc::new(json!({"items": [{"name": "a"}, {"name": "b"}]})),
        clipboard: clipboard.to_owned(),
        now_ms: 9 * 3_600_000,
        rng: rng.clone(),
        next_timer_id: 1,
        effects: Vec::new(),
        host_profile: Value::Null,
        map: None,
        read: Default::default(),
        wrote_state: false,
    }
}

/// Runs events on a fresh host, committing what succeeds as the phone does; returns a trace
/// of every outcome.
fn play(program: &Program, events: &[&str]) -> Vec<String> {
    let mut host = ScriptHost::new(fuzz_limits()).expect("a host starts");
    let (mut state, mut local, mut rng, mut clipboard) = (json!({"list": []}), json!({}), Rng::new(7), String::new());
    let mut trace = Vec::new();
    for handler in events {
        match host.call(program, handler, &json!({"params": {"k": 1}}), event_ctx(&state, &local, &rng, &clipboard)) {
            Ok(ctx) => {
                trace.push(format!("ok {} {} {:?}", ctx.state, ctx.local, ctx.effects));
                (state, local, rng, clipboard) = (ctx.state, ctx.local, ctx.rng, ctx.clipboard);
            }
            Err(err) => trace.push(format!("error {err}")),
        }
    }
    trace
}

/// A program from the grammar, its handlers run in an order the input chooses, twice on two
/// hosts: both runs must agree exactly.
fn lua_handlers(data: &[u8]) {
    let mut choices = Choices::new(data);
    let source = lua_grammar::program(&mut choices);
    let Ok(program) = Program::from_sources("com.fuzz", &[("main.lua", &source)]) else { return };
    let events: Vec<&str> = (0..6).map(|_| *choices.pick(&HANDLERS)).collect();
    let first = play(&program, &events);
    let second = play(&program, &events);
    assert_eq!(first, second, "two runs of the same events differ:\n{source}");
}

fn action_json(data: &[u8]) {
    if let Ok(action) = Action::from_json(&text(data)) {
        let _ = action.check_limits();
        let _ = Action::from_value(&action.to_json());
    }
}

/// Binding expressions: the first line is a template, the second a condition, evaluated
/// against a fixed scope.
fn expression(data: &[u8]) {
    let text = text(data);
    let (template, condition) = text.split_once('\n').unwrap_or((&text, &text));
    let state = json!({"a": 1, "s": "text", "list": [1, 2, {"x": "y"}], "deep": {"x": {"y": true}}, "date": "2026-12-01"});
    let empty = json!({});
    let scope = Scope {
        state: &state,
        local: &empty,
        content: &state,
        params: &empty,
        system: &empty,
        vm: &state,
        item: Some(&state),
        index: Some(2),
        args: None,
    };
    if let Ok(t) = Template::parse(template) {
        let _ = (t.render(&scope), t.value(&scope), t.paths());
    }
    if let Ok(c) = BoolExpr::parse(condition) {
        let _ = (c.eval(&scope), c.paths());
    }
}

/// An app bundle from memory: files separated by lines `--- <path>`; loaded, its modules
/// analysed and expanded.
fn bundle(data: &[u8]) {
    let text = text(data);
    let mut files = BTreeMap::new();
    let mut current: Option<(String, String)> = None;
    for line in text.split_inclusive('\n') {
        if let Some(path) = line.strip_prefix("--- ") {
            if let Some((p, body)) = current.take() {
                files.insert(p, body);
            }
            current = Some((path.trim().to_owned(), String::new()));
        } else if let Some((_, body)) = current.as_mut() {
            body.push_str(line);
        }
    }
    if let Some((p, body)) = current {
        files.insert(p, body);
    }
    let (modules_files, app_files): (BTreeMap<_, _>, BTreeMap<_, _>) = files.into_iter().partition(|(p, _)| p.starts_with("layouts/"));
    let modules_files: BTreeMap<String, String> =
        modules_files.into_iter().map(|(p, b)| (p.trim_start_matches("layouts/").to_owned(), b)).collect();
    let (modules, _) = LayoutModules::from_memory(&modules_files);
    let analysis = ModuleAnalysis::new(&modules);
    for module in modules.modules.values() {
        let _ = analysis.expand(&module.root).over_limits();
    }
    let (bundle, _) = AppBundle::from_memory(Path::new("/fuzz/app"), &app_files);
    if let Some(bundle) = bundle {
        for screen in bundle.screens.values() {
            let _ = analysis.expand(&screen.root).over_limits();
        }
        let _ = Program::compile(&bundle);
    }
}

/// The bundled Settings and Clock apps, loaded once.
fn core_catalog() -> Arc<Catalog> {
    static CATALOG: OnceLock<Arc<Catalog>> = OnceLock::new();
    Arc::clone(CATALOG.get_or_init(|| {
        let root = phoneworld_phone::project_root();
        Catalog::load(&[root.join("apps/settings"), root.join("apps/clock")], &[root.join("layouts")]).expect("core apps load")
    }))
}

/// Snapshot bytes: refused with a reason, or restored into a phone that then works.
fn snapshot(data: &[u8]) {
    if let Ok(mut device) = Device::restore(core_catalog(), data, DeviceConfig::default().limits) {
        device.step(&Action::Tap { x: 540.0, y: 1200.0 });
        let _ = device.ui_elements();
        let _ = device.state_hash();
    }
}
