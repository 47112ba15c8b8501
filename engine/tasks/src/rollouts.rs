//! Verifier-confirmed trajectories for supervised fine-tuning: the oracle plays every
//! template and seed, now and then taking a plausible wrong step and recovering (Back), and
//! only episodes whose verifier passes are kept.

use std::path::Path;
use std::sync::Arc;

use phoneworld_agents::{ImageOptions, TrajectoryWriter};
use phoneworld_data::{Action, Key, Rng};
use phoneworld_phone::{Catalog, Device, InterruptionSetting};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::episode::play;
use crate::eval::{device_size, episode_record, run_instance};
use crate::parallel::play_all;
use crate::solve::Oracle;
use crate::suite::Suite;
use crate::TaskError;

/// What the agent sees, reduced to a fingerprint: equal fingerprints, same screen.
fn fingerprint(device: &mut Device) -> String {
    serde_json::to_string(&device.ui_elements()).unwrap_or_default()
}

/// A wrong but plausible tap that Back undoes: tried on a fork first, it must open something
/// (a screen, a dialog, a sheet), change no app data, and Back must return to this very screen.
fn detour(device: &mut Device, rng: &mut Rng) -> Option<Action> {
    let (package, _) = device.foreground();
    let mut candidates: Vec<(f64, f64)> = device
        .ui_elements()
        .into_iter()
        .filter(|e| e.is_clickable == Some(true) && e.is_checkable != Some(true) && e.is_editable != Some(true))
        .filter(|e| e.package_name.as_deref() == Some(package.as_str()))
        .filter_map(|e| e.bbox_pixels.map(|b| ((b.x_min + b.x_max) / 2.0, (b.y_min + b.y_max) / 2.0)))
        .collect();
    let here = fingerprint(device);
    let data = crate::verify::app_data(device);
    for _ in 0..4 {
        if candidates.is_empty() {
            return None;
        }
        let (x, y) = candidates.swap_remove(rng.below(candidates.len()));
        let tap = Action::Tap { x, y };
        let mut trial = device.fork();
        trial.step(&tap);
        let moved = fingerprint(&mut trial) != here;
        let unchanged = crate::verify::app_data(&trial) == data;
        trial.step(&Action::Key { key: Key::Back });
        if moved && unchanged && crate::verify::app_data(&trial) == data && fingerprint(&mut trial) == here {
            return Some(tap);
        }
    }
    None
}

/// What `rollouts` plays and how it records it.
#[derive(Debug, Clone)]
pub struct RolloutSpec {
    /// Seeds 0..seeds of every template.
    pub seeds: u64,
    /// Probability of a plausible wrong step (then Back) before each step.
    pub detours: f64,
    pub images: ImageOptions,
    /// An appearance profile, or `random` (drawn from each episode's seed); None: the default phone.
    pub appearance: Option<String>,
    /// Seeded interruptions in every episode (the oracle answers them from the screen).
    pub interruptions: InterruptionSetting,
}

/// How one rollout episode ended: kept (its folder written) or dropped (and why).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RolloutOutcome {
    pub task: String,
    pub seed: u64,
    pub category: String,
    pub kept: bool,
    pub steps: u64,
    pub detoured: bool,
    /// Why a dropped episode failed: `step N: reason`.
    pub reason: Option<String>,
}

/// Plays one rollout episode of `template` and `seed`; a kept one is written under
/// `out_dir/<template>-<seed>/`, a dropped one leaves nothing.
pub fn rollout_episode(
    catalog: &Arc<Catalog>,
    suite: &Suite,
    template: &str,
    seed: u64,
    out_dir: &Path,
    spec: &RolloutSpec,
) -> Result<RolloutOutcome, TaskError> {
    let io = |e: std::io::Error| TaskError::Io(e.to_string());
    let instance = run_instance(catalog, suite, template, seed, spec.appearance.as_deref(), &spec.interruptions)?;
    let template = &instance.template;
    let dir = out_dir.join(format!("{}-{seed}", template.id));
    let mut writer = TrajectoryWriter::with_images(&dir, Some(spec.images)).map_err(io)?;
    let mut oracle = Oracle::new(template.solution.clone(), instance.params.clone());
    let mut rng = Rng::new(seed.wrapping_mul(0x9E37_79B9) ^ template.id.len() as u64);
    let mut pending_back = false;
    let mut detoured = false;
    let detours = spec.detours;
    let mut next = |device: &mut Device| -> Result<Option<Action>, String> {
        if pending_back {
            pending_back = false;
            return Ok(Some(Action::Key { key: Key::Back }));
        }
        if detours > 0.0 && rng.next_f64() < detours {
            if let Some(wrong) = detour(device, &mut rng) {
                pending_back = true;
                detoured = true;
                return Ok(Some(wrong));
            }
        }
        oracle.next_action(device)
    };
    let result = play(Arc::clone(catalog), &instance, &mut next, true, Some(&mut writer))?;
    let mut outcome = RolloutOutcome {
        task: template.id.clone(),
        seed,
        category: template.category.name().to_owned(),
        kept: result.success,
        steps: u64::from(result.steps),
        detoured,
        reason: None,
    };
    if result.success {
        let mut episode = episode_record(suite, &catalog.hash, &instance, &result, device_size(&instance));
        episode["outcome"]["detour"] = json!(detoured);
        writer.finish(&episode).map_err(io)?;
    } else {
        drop(writer);
        std::fs::remove_dir_all(&dir).map_err(io)?;
        outcome.reason = result.failure.map(|f| format!("step {}: {}", f.step, f.reason));
    }
    Ok(outcome)
}

/// Writes kept episodes under `out_dir/<template>-<seed>/` and `out_dir/manifest.json`.
pub fn rollouts(catalog: Arc<Catalog>, suite: &Suite, out_dir: &Path, spec: &RolloutSpec) -> Result<Value, TaskError> {
    rollouts_each(catalog, suite, out_dir, spec, &mut |_| {})
}

/// [`rollouts`], telling `on_done` of each episode as it ends (for a progress display).
pub fn rollouts_each(
    catalog: Arc<Catalog>,
    suite: &Suite,
    out_dir: &Path,
    spec: &RolloutSpec,
    on_done: &mut dyn FnMut(&RolloutOutcome),
) -> Result<Value, TaskError> {
    std::fs::create_dir_all(out_dir).map_err(|e| TaskError::Io(format!("{}: {e}", out_dir.display())))?;
    let episodes: Vec<(&str, u64)> = suite.templates.iter().flat_map(|t| (0..spec.seeds).map(move |seed| (t.id.as_str(), seed))).collect();
    let play = |&(template, seed): &(&str, u64)| rollout_episode(&catalog, suite, template, seed, out_dir, spec);
    let outcomes = play_all(&episodes, play, &mut |_, outcome| on_done(outcome))?;
    write_manifest(suite, &catalog.hash, out_dir, spec, &outcomes)
}

/// The manifest of a rollout run from its outcomes in run order (every template, each seed),
/// wherever they were played; written to `out_dir/manifest.json` and returned.
pub fn write_manifest(
    suite: &Suite,
    apps_hash: &str,
    out_dir: &Path,
    spec: &RolloutSpec,
    outcomes: &[RolloutOutcome],
) -> Result<Value, TaskError> {
    let kept: Vec<&RolloutOutcome> = outcomes.iter().filter(|o| o.kept).collect();
    let mut by_category = std::collections::BTreeMap::<String, usize>::new();
    for o in &kept {
        *by_category.entry(o.category.clone()).or_default() += 1;
    }
    let drops: Vec<Value> =
        outcomes.iter().filter(|o| !o.kept).map(|o| json!({ "task": o.task, "seed": o.seed, "reason": o.reason })).collect();
    let images = spec.images;
    let manifest = json!({
        "suite": suite.name, "suite_hash": suite.hash, "apps_hash": apps_hash,
        "seeds": spec.seeds, "detours": spec.detours,
        "appearance": spec.appearance, "interruptions": spec.interruptions.to_string(),
        "attempted": outcomes.len(), "episodes": kept.len(), "dropped": outcomes.len() - kept.len(),
        "with_detours": kept.iter().filter(|o| o.detoured).count(), "steps": kept.iter().map(|o| o.steps).sum::<u64>(),
        "by_category": by_category, "drops": drops,
        "images": { "format": match images.format { phoneworld_agents::ImageFormat::Png => "png".to_owned(), phoneworld_agents::ImageFormat::Jpeg(q) => format!("jpeg q{q}") }, "size": images.size },
    });
    std::fs::write(out_dir.join("manifest.json"), serde_json::to_vec_pretty(&manifest).unwrap_or_default())
        .map_err(|e| TaskError::Io(e.to_string()))?;
    Ok(manifest)
}
