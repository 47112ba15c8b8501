//! Per-episode options beyond the task and seed, opted into from the command line
//! (`--appearance`, `--interruptions`), Python (`reset(options=...)`) and recorded in `episode.json` so a replay
//! builds the same phone. One struct, so further options travel the same way.

use std::sync::Arc;

use phoneworld_ui::interruptions::{InterruptionSetting, InterruptionSettingError};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::appearance::{Appearance, AppearanceError};
use crate::{Catalog, Device, DeviceConfig, PhoneError};

/// What an episode asks for besides its task and seed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EpisodeOptions {
    /// How the phone looks; None is the plain default phone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub appearance: Option<Appearance>,
    /// Seeded interruptions (recorded as their text; off records nothing). The plan they
    /// draw depends on the task's step budget too, so the task side schedules them.
    #[serde(default, skip_serializing_if = "InterruptionSetting::is_off")]
    pub interruptions: InterruptionSetting,
}

/// Why episode options cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OptionsError {
    #[error(transparent)]
    Appearance(#[from] AppearanceError),
    #[error(transparent)]
    Interruptions(#[from] InterruptionSettingError),
    #[error("episode option `{key}`: {message}")]
    Field { key: String, message: String },
}

/// The option names `EpisodeOptions::from_json` knows.
pub const OPTION_NAMES: [&str; 2] = ["appearance", "interruptions"];

impl EpisodeOptions {
    /// Options with the appearance `name` (a profile or `random`, drawn from `seed`).
    pub fn with_appearance(name: &str, seed: u64) -> Result<EpisodeOptions, AppearanceError> {
        Ok(EpisodeOptions { appearance: Some(Appearance::resolve(name, seed)?), ..EpisodeOptions::default() })
    }

    /// These options, interrupted as `setting` says.
    pub fn with_interruptions(self, interruptions: InterruptionSetting) -> EpisodeOptions {
        EpisodeOptions { interruptions, ..self }
    }

    /// Options from JSON: `{"appearance": "dark"}` names a look, `{"appearance": {...}}` gives
    /// one in full (as `episode.json` records it); `{"interruptions": "on"}` (or a count,
    /// `kind@step,...`, a bool) opts in to seeded interruptions. Unknown keys are errors.
    pub fn from_json(value: &Value, seed: u64) -> Result<EpisodeOptions, OptionsError> {
        let Value::Object(map) = value else {
            return Err(OptionsError::Field { key: String::new(), message: "episode options must be an object".into() });
        };
        let mut options = EpisodeOptions::default();
        for (key, v) in map {
            match key.as_str() {
                "appearance" => {
                    options.appearance = match v {
                        Value::Null => None,
                        Value::String(name) => Some(Appearance::resolve(name, seed)?),
                        Value::Object(_) => {
                            let a: Appearance = serde_json::from_value(v.clone())
                                .map_err(|e| OptionsError::Field { key: key.clone(), message: e.to_string() })?;
                            a.validate()?;
                            Some(a)
                        }
                        other => {
                            return Err(OptionsError::Field {
                                key: key.clone(),
                                message: format!("expected a name or an object, not {other}"),
                            })
                        }
                    }
                }
                "interruptions" => options.interruptions = InterruptionSetting::from_json(v)?,
                _ => {
                    return Err(OptionsError::Field {
                        key: key.clone(),
                        message: format!("unknown option (known: {})", OPTION_NAMES.join(", ")),
                    })
                }
            }
        }
        Ok(options)
    }

    /// The JSON `episode.json` records (an empty object for no options).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// A fresh phone as these options ask.
    pub fn device(&self, catalog: Arc<Catalog>, config: DeviceConfig) -> Result<Device, PhoneError> {
        match &self.appearance {
            Some(a) => a.device(catalog, config),
            None => Device::new(catalog, config),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn options_round_trip_through_json() {
        let options = EpisodeOptions::from_json(&json!({ "appearance": "random" }), 11).unwrap();
        let recorded = options.to_json();
        assert_eq!(recorded["appearance"]["name"], "random");
        assert_eq!(EpisodeOptions::from_json(&recorded, 999).unwrap(), options, "a recorded look is replayed, not drawn again");
        assert_eq!(EpisodeOptions::default().to_json(), json!({}));
        let asked = json!({ "appearance": "dark", "interruptions": "permission@1,low_battery@4" });
        let options = EpisodeOptions::from_json(&asked, 3).unwrap();
        let recorded = options.to_json();
        assert_eq!(recorded["interruptions"], "permission@1,low_battery@4");
        assert_eq!(EpisodeOptions::from_json(&recorded, 3).unwrap(), options);
        assert_eq!(serde_json::from_value::<EpisodeOptions>(recorded).unwrap(), options);
        assert!(EpisodeOptions::from_json(&json!({ "interruptions": "off" }), 0).unwrap().to_json().get("interruptions").is_none());
    }

    #[test]
    fn bad_options_say_what_is_wrong() {
        let err = EpisodeOptions::from_json(&json!({ "apperance": "dark" }), 0).unwrap_err().to_string();
        assert!(err.contains("apperance") && err.contains("known: appearance, interruptions"), "{err}");
        let err = EpisodeOptions::from_json(&json!({ "appearance": "neon" }), 0).unwrap_err().to_string();
        assert!(err.contains("valid: default, dark"), "{err}");
        let mut a = serde_json::to_value(crate::Appearance::default()).unwrap();
        a["font_scale"] = json!(3.0);
        let err = EpisodeOptions::from_json(&json!({ "appearance": a }), 0).unwrap_err().to_string();
        assert!(err.contains("font_scale"), "{err}");
        let err = EpisodeOptions::from_json(&json!({ "interruptions": "popup@2" }), 0).unwrap_err().to_string();
        assert!(err.contains("popup"), "{err}");
    }
}
