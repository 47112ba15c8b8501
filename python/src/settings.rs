//! Env settings as the Python side passes them: one dict, the same for single and vector envs.

use std::path::PathBuf;
use std::sync::Arc;

use phoneworld_phone::{Catalog, DeviceConfig};
use phoneworld_tasks::Suite;
use pyo3::prelude::*;

use crate::catalogs::catalog_and_suite;
use crate::episode::{Episode, RewardMode};
use crate::errors::ConfigError;
use crate::frame::obs_size;
use crate::observe::ObsConfig;

#[derive(FromPyObject)]
#[pyo3(from_item_all)]
pub(crate) struct SettingsArgs {
    suite: String,
    suite_dirs: Vec<PathBuf>,
    apps_dirs: Vec<PathBuf>,
    width: u32,
    height: u32,
    obs_width: Option<u32>,
    obs_height: Option<u32>,
    screenshot: bool,
    ui_tree: bool,
    ui_elements: bool,
    reward: String,
    max_steps: Option<u32>,
    appearance: Option<String>,
}

/// Everything needed to build episodes.
#[derive(Clone)]
pub(crate) struct Settings {
    pub(crate) catalog: Arc<Catalog>,
    pub(crate) suite: Arc<Suite>,
    pub(crate) device: phoneworld_phone::DeviceConfig,
    pub(crate) obs: ObsConfig,
    pub(crate) reward: RewardMode,
    pub(crate) max_steps: Option<u32>,
    /// The look of every episode (a profile or "random"), None for the plain phone.
    pub(crate) appearance: Option<String>,
}

impl Settings {
    pub(crate) fn load(args: SettingsArgs) -> PyResult<Settings> {
        let (catalog, suite) = catalog_and_suite(&args.suite, &args.suite_dirs, &args.apps_dirs)?;
        let device = device_config(0, args.width, args.height)?;
        let screenshot = if args.screenshot { Some(obs_size((args.width, args.height), args.obs_width, args.obs_height)?) } else { None };
        let reward = match args.reward.as_str() {
            "sparse" => RewardMode::Sparse,
            "shaped" => RewardMode::Shaped,
            other => return Err(ConfigError::new_err(format!("reward must be \"sparse\" or \"shaped\", not {other:?}"))),
        };
        if args.max_steps == Some(0) {
            return Err(ConfigError::new_err("max_steps must be at least 1"));
        }
        if let Some(name) = &args.appearance {
            phoneworld_phone::Appearance::resolve(name, 0).map_err(|e| ConfigError::new_err(e.to_string()))?;
        }
        let obs = ObsConfig { screenshot, ui_tree: args.ui_tree, ui_elements: args.ui_elements };
        Ok(Settings { catalog, suite, device, obs, reward, max_steps: args.max_steps, appearance: args.appearance })
    }

    pub(crate) fn episode(&self) -> Episode {
        let mut episode = Episode::new(Arc::clone(&self.catalog), Arc::clone(&self.suite), self.device, self.reward);
        episode.max_steps = self.max_steps;
        episode.appearance = self.appearance.clone();
        episode
    }

    /// Bytes of one screenshot, 0 when none is asked for.
    pub(crate) fn frame_len(&self) -> usize {
        self.obs.screenshot.map_or(0, |s| s.width as usize * s.height as usize * 3)
    }
}

/// A device of this size and seed, or a `ConfigError` naming the size out of range.
pub(crate) fn device_config(seed: u64, width: u32, height: u32) -> PyResult<DeviceConfig> {
    if !(240..=4096).contains(&width) || !(320..=8192).contains(&height) {
        return Err(ConfigError::new_err(format!("device size {width}x{height} is out of range (240..=4096 x 320..=8192)")));
    }
    Ok(DeviceConfig { width, height, seed, ..DeviceConfig::default() })
}
