//! The subcommands. Each prints a human summary, or one JSON object with `--json`.

use std::io::{BufRead, IsTerminal};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use phoneworld_agents::{step_recorded, TrajectoryWriter, Walker};
use phoneworld_data::{Action, LayoutModules, LuaLibrary};
use phoneworld_phone::{check_app, project_root, Catalog, Device, DeviceConfig, EpisodeOptions};
use serde_json::{json, Value};

pub(crate) fn catalog(apps_dirs: &[PathBuf]) -> Result<Arc<Catalog>> {
    let catalog = Catalog::load_default(apps_dirs).context("loading apps")?;
    for (dir, err) in &catalog.broken {
        eprintln!("warning: {} is not installed: {err}", dir.display());
    }
    Ok(catalog)
}

pub(crate) fn parse_size(size: Option<&str>) -> Result<(u32, u32)> {
    let Some(size) = size else { return Ok((1080, 2400)) };
    let (w, h) = size.split_once(['x', 'X']).with_context(|| format!("--size `{size}`: expected WIDTHxHEIGHT"))?;
    Ok((
        w.trim().parse().with_context(|| format!("--size `{size}`: bad width"))?,
        h.trim().parse().with_context(|| format!("--size `{size}`: bad height"))?,
    ))
}

/// The screen options of a command: `--size`, or `--appearance` (which sets the size too).
pub(crate) struct Screen<'a> {
    pub size: Option<&'a str>,
    pub appearance: Option<&'a str>,
}

impl Screen<'_> {
    fn options(&self, seed: u64) -> Result<EpisodeOptions> {
        match self.appearance {
            Some(name) => EpisodeOptions::with_appearance(name, seed).with_context(|| format!("--appearance {name}")),
            None => Ok(EpisodeOptions::default()),
        }
    }
}

fn device(catalog: Arc<Catalog>, seed: u64, screen: &Screen<'_>) -> Result<(Device, EpisodeOptions)> {
    let (width, height) = parse_size(screen.size)?;
    let options = screen.options(seed)?;
    let device = options.device(catalog, DeviceConfig { width, height, seed, ..DeviceConfig::default() })?;
    Ok((device, options))
}

pub(crate) fn apps(apps_dirs: &[PathBuf], as_json: bool) -> Result<ExitCode> {
    let catalog = catalog(apps_dirs)?;
    let apps: Vec<Value> = catalog
        .apps
        .iter()
        .map(|a| json!({ "package": a.package(), "label": a.label(), "screens": a.bundle.screens.keys().collect::<Vec<_>>() }))
        .collect();
    if as_json {
        let broken: Vec<Value> = catalog.broken.iter().map(|(dir, err)| json!({ "dir": dir, "error": err.to_string() })).collect();
        out!("{}", json!({ "apps": apps, "count": apps.len(), "layout_modules": catalog.modules.modules.len(), "broken": broken }));
    } else {
        for a in &catalog.apps {
            out!(
                "{:<28} {:<12} {} screens: {}",
                a.package(),
                a.label(),
                a.bundle.screens.len(),
                a.bundle.screens.keys().cloned().collect::<Vec<_>>().join(", ")
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[allow(clippy::too_many_arguments, reason = "one argument per command-line option")]
pub(crate) fn render(
    apps_dirs: &[PathBuf],
    app: Option<&str>,
    seed: u64,
    screen: &Screen<'_>,
    dark: bool,
    out: &Path,
    xml: Option<&Path>,
    as_json: bool,
) -> Result<ExitCode> {
    let catalog = catalog(apps_dirs)?;
    let (mut device, _) = device(catalog, seed, screen)?;
    if dark {
        if let Value::Object(map) = &mut device.store_mut().system {
            map.insert("dark_theme".into(), Value::Bool(true));
        }
    }
    if let Some(app) = app {
        let result = device.step(&Action::OpenApp { app: app.to_owned() });
        if let Some(note) = result.note {
            bail!("--app {app}: {note}");
        }
        if let Some(err) = result.script_errors.first() {
            bail!("--app {app}: {err}");
        }
    }
    let frame = device.frame();
    std::fs::write(out, frame.to_png()).with_context(|| format!("writing {}", out.display()))?;
    if let Some(xml) = xml {
        std::fs::write(xml, device.ui_xml()).with_context(|| format!("writing {}", xml.display()))?;
    }
    let (package, screen) = device.foreground();
    if as_json {
        out!(
            "{}",
            json!({ "frame_hash": frame.hash(), "state_hash": device.state_hash(), "width": frame.width, "height": frame.height, "package": package, "screen": screen, "out": out })
        );
    } else {
        out!("wrote {} ({}x{}, {package}/{screen})", out.display(), frame.width, frame.height);
    }
    Ok(ExitCode::SUCCESS)
}

fn read_actions(path: &Path) -> Result<Vec<Action>> {
    let file = std::fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut actions = Vec::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.with_context(|| format!("{}:{}: cannot read", path.display(), i + 1))?;
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        actions.push(Action::from_json(&line).with_context(|| format!("{}:{}", path.display(), i + 1))?);
    }
    Ok(actions)
}

fn progress(done: u64, total: u64) {
    if std::io::stderr().is_terminal() && (done.is_multiple_of(50) || done == total) {
        eprint!("\r{done}/{total} steps");
        if done == total {
            eprintln!();
        }
    }
}

/// Plays actions on a device, optionally writing the trajectory; returns per-step JSON.
fn play(
    device: &mut Device,
    actions: impl Iterator<Item = Action>,
    total: u64,
    mut writer: Option<&mut TrajectoryWriter>,
) -> Result<Vec<Value>> {
    let mut steps = Vec::new();
    for (i, action) in actions.enumerate() {
        let result = step_recorded(device, &action, writer.as_deref_mut())?;
        steps.push(json!({
            "step": result.step,
            "action": action.to_json(),
            "ok": result.ok,
            "note": result.note,
            "script_errors": result.script_errors,
            "package": result.package,
            "screen": result.screen,
            "state_hash": device.state_hash(),
            "frame_hash": device.frame_hash(),
        }));
        progress(i as u64 + 1, total);
    }
    Ok(steps)
}

fn episode_json(device: &Device, kind: &str, seed: u64, options: &EpisodeOptions, extra: Value) -> Value {
    let cfg = device.config();
    let mut v = json!({
        "kind": kind,
        "seed": seed,
        "apps_hash": device.catalog().hash,
        "device": { "width": cfg.width, "height": cfg.height, "density": cfg.density },
        "options": options.to_json(),
        "final_state_hash": device.state_hash(),
    });
    if let (Value::Object(a), Value::Object(b)) = (&mut v, extra) {
        a.extend(b);
    }
    v
}

pub(crate) fn run(
    apps_dirs: &[PathBuf],
    actions: &Path,
    seed: u64,
    screen: &Screen<'_>,
    out_dir: Option<&Path>,
    as_json: bool,
) -> Result<ExitCode> {
    let actions = read_actions(actions)?;
    let catalog = catalog(apps_dirs)?;
    let (mut device, options) = device(catalog, seed, screen)?;
    let mut writer = out_dir.map(|d| TrajectoryWriter::create(d, true)).transpose().context("creating --out-dir")?;
    let total = actions.len() as u64;
    let steps = play(&mut device, actions.into_iter(), total, writer.as_mut())?;
    let noops: Vec<Value> =
        steps.iter().filter(|s| s["ok"] == json!(false)).map(|s| json!({ "step": s["step"], "note": s["note"] })).collect();
    if let Some(w) = writer {
        w.finish(&episode_json(&device, "run", seed, &options, json!({ "steps": total })))?;
    }
    let frame_hash = device.frame_hash();
    if as_json {
        out!("{}", json!({ "steps": steps, "noops": noops, "state_hash": device.state_hash(), "frame_hash": frame_hash }));
    } else {
        for s in &steps {
            let note = s["note"].as_str().map(|n| format!("  (no-op: {n})")).unwrap_or_default();
            out!(
                "{:>4} {:<10} {}/{}{note}",
                s["step"],
                s["action"]["type"].as_str().unwrap_or(""),
                s["package"].as_str().unwrap_or(""),
                s["screen"].as_str().unwrap_or("")
            );
        }
        out!("state {}\nframe {frame_hash}", device.state_hash());
    }
    Ok(ExitCode::SUCCESS)
}

/// A walk of `phoneworld monkey`.
pub(crate) struct Walk<'a> {
    pub app: Option<&'a str>,
    pub explore: bool,
    pub seed: u64,
    pub steps: u64,
}

pub(crate) fn monkey(
    apps_dirs: &[PathBuf],
    walk: &Walk<'_>,
    screen: &Screen<'_>,
    out_dir: Option<&Path>,
    as_json: bool,
) -> Result<ExitCode> {
    let &Walk { app, explore, seed, steps } = walk;
    let catalog = catalog(apps_dirs)?;
    let package = match app {
        Some(name) => Some(catalog.find(name).with_context(|| format!("--app {name}: no such app"))?.package().to_owned()),
        None => None,
    };
    let (mut device, options) = device(catalog, seed, screen)?;
    let mut writer = out_dir.map(|d| TrajectoryWriter::create(d, true)).transpose().context("creating --out-dir")?;
    let mut walker = Walker::new(seed, package.clone(), explore);
    let mut screens = std::collections::BTreeSet::new();
    let mut errors = Vec::new();
    let mut noops = 0u64;
    for i in 0..steps {
        let (pkg, screen) = device.foreground();
        screens.insert(format!("{pkg}/{screen}"));
        let action = walker.next_action(&mut device);
        let result = step_recorded(&mut device, &action, writer.as_mut())?;
        noops += u64::from(!result.ok);
        for e in result.script_errors {
            errors.push(json!({ "step": result.step, "app": e.app, "file": e.file, "line": e.line, "message": e.message }));
        }
        progress(i + 1, steps);
    }
    let (pkg, screen) = device.foreground();
    screens.insert(format!("{pkg}/{screen}"));
    let frame_hash = device.frame_hash();
    if let Some(w) = writer {
        w.finish(&episode_json(&device, walker.kind(), seed, &options, json!({ "steps": steps, "app": package })))?;
    }
    if as_json {
        out!(
            "{}",
            json!({ "steps": steps, "seed": seed, "state_hash": device.state_hash(), "frame_hash": frame_hash, "screens_visited": screens, "noops": noops, "script_errors": errors })
        );
    } else {
        out!("{steps} steps, {} screens visited, {noops} no-ops, {} script errors", screens.len(), errors.len());
        for s in &screens {
            out!("  {s}");
        }
        for e in &errors {
            out!(
                "  error at step {}: {}:{}: {}",
                e["step"],
                e["file"].as_str().unwrap_or(""),
                e["line"],
                e["message"].as_str().unwrap_or("")
            );
        }
        out!("state {}\nframe {frame_hash}", device.state_hash());
    }
    Ok(if errors.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

pub(crate) fn new_app(app_dir: &Path, label: Option<&str>, package: Option<&str>, as_json: bool) -> Result<ExitCode> {
    use phoneworld_data::scaffold;
    let label = label.map_or_else(|| scaffold::label_for(app_dir), str::to_owned);
    let package = package.map_or_else(|| scaffold::package_for(app_dir), str::to_owned);
    let written = scaffold::scaffold(app_dir, &label, &package)?;
    if !as_json {
        out!("{label} ({package}): wrote {}", written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
        out!("try it: phoneworld --apps-dir {} render --app \"{label}\" --out app.png", app_dir.display());
    }
    // What it wrote passes check, or the scaffold is broken: say so the same way check does.
    check(app_dir, as_json)
}

pub(crate) fn check(app_dir: &Path, as_json: bool) -> Result<ExitCode> {
    let root = project_root();
    let (modules, module_errors) = LayoutModules::load(&[root.join("layouts")]);
    let (library, library_errors) = LuaLibrary::load(&[root.join("lib")]);
    let mut problems: Vec<phoneworld_data::Problem> =
        module_errors.iter().chain(&library_errors).map(phoneworld_data::Problem::from).collect();
    if !app_dir.join("app.ron").is_file() {
        bail!("{}: not an app folder (no app.ron)", app_dir.display());
    }
    problems.extend(check_app(app_dir, &modules, &library));
    if as_json {
        out!("{}", json!({ "app": app_dir, "ok": problems.is_empty(), "problems": problems }));
    } else if problems.is_empty() {
        out!("{}: ok", app_dir.display());
    } else {
        for p in &problems {
            out!("{p}");
        }
        out!("{} problem(s)", problems.len());
    }
    Ok(if problems.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
