//! How a phone looks: screen size and density, font scale, light or dark theme, accent colour,
//! wallpaper and 12/24-hour clock. Named profiles, and a draw from the episode seed, so an
//! agent meets the variety of real phones. Opt-in: without one a phone looks like `default`.
//!
//! The screen goes into the [`DeviceConfig`]; the rest are system settings (`system.*`), the
//! same ones the Settings app changes, so a snapshot carries them.

use std::sync::Arc;

use phoneworld_data::Rng;
use phoneworld_render::Color;
use phoneworld_ui::wallpaper::Wallpaper;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Catalog, Device, DeviceConfig, PhoneError};

/// One complete look of a phone.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Appearance {
    /// The profile's name, or `random` for a seeded draw.
    pub name: String,
    pub width: u32,
    pub height: u32,
    /// Dots per inch: with the width it sets the display size in dp.
    pub density: u32,
    /// 0.85 to 1.3 (Settings → Display → Font size).
    pub font_scale: f64,
    pub dark: bool,
    /// Seed colour of the accent roles (`#RRGGBB`); None keeps the built-in blue.
    pub accent: Option<String>,
    pub wallpaper: Wallpaper,
    pub clock_24h: bool,
}

/// Why an appearance cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AppearanceError {
    #[error("unknown appearance `{name}` (valid: {})", valid_names().join(", "))]
    Unknown { name: String },
    #[error("appearance `{name}`: field `{field}`: {message}")]
    Field { name: String, field: &'static str, message: String },
}

/// The screens appearances use: (width, height, density of the default display size).
pub const SCREENS: [(u32, u32, u32); 3] = [(720, 1600, 320), (1080, 2400, 420), (1440, 3120, 560)];

/// Named accent seeds.
pub const ACCENTS: [(&str, &str); 5] =
    [("green", "#386A20"), ("purple", "#6750A4"), ("orange", "#E65100"), ("teal", "#00897B"), ("red", "#C62828")];

fn accent(name: &str) -> Option<String> {
    ACCENTS.iter().find(|(n, _)| *n == name).map(|(_, hex)| (*hex).to_owned())
}

/// The named profiles, in the order `all` plays them.
pub const PROFILES: [&str; 8] =
    ["default", "dark", "large_text", "small_phone", "large_phone", "compact", "accent_green_24h", "dark_large"];

/// Every name `--appearance` accepts.
pub fn valid_names() -> Vec<&'static str> {
    PROFILES.iter().copied().chain(["random"]).collect()
}

impl Default for Appearance {
    fn default() -> Self {
        Appearance {
            name: "default".into(),
            width: 1080,
            height: 2400,
            density: 420,
            font_scale: 1.0,
            dark: false,
            accent: None,
            wallpaper: Wallpaper::Plain,
            clock_24h: true,
        }
    }
}

impl Appearance {
    /// A named profile.
    pub fn profile(name: &str) -> Result<Appearance, AppearanceError> {
        let d = Appearance { name: name.to_owned(), ..Appearance::default() };
        Ok(match name {
            "default" => d,
            "dark" => Appearance { dark: true, ..d },
            "large_text" => Appearance { font_scale: 1.3, wallpaper: Wallpaper::Dawn, clock_24h: false, ..d },
            "small_phone" => Appearance { width: 720, height: 1600, density: 320, wallpaper: Wallpaper::Dunes, clock_24h: false, ..d },
            "large_phone" => {
                Appearance { width: 1440, height: 3120, density: 560, accent: accent("purple"), wallpaper: Wallpaper::Bubbles, ..d }
            }
            // Small font and small display size: the most on one screen.
            "compact" => Appearance { font_scale: 0.85, density: 360, accent: accent("teal"), ..d },
            "accent_green_24h" => Appearance { accent: accent("green"), wallpaper: Wallpaper::Dunes, clock_24h: true, ..d },
            // Dark, largest font and large display size: the least on one screen.
            "dark_large" => Appearance {
                dark: true,
                font_scale: 1.3,
                density: 480,
                accent: accent("orange"),
                wallpaper: Wallpaper::Bubbles,
                clock_24h: false,
                ..d
            },
            _ => return Err(AppearanceError::Unknown { name: name.to_owned() }),
        })
    }

    /// A look drawn from the episode seed: the same seed gives the same look.
    pub fn random(seed: u64) -> Appearance {
        // Its own stream, so drawing a look does not shift the phone's data.
        let mut rng = Rng::new(seed ^ 0xA99E_A2A2_CE00_0001);
        let (width, height, density) = SCREENS[rng.below(SCREENS.len())];
        // Display size small / default / large, as Android's setting scales the density.
        let density = (f64::from(density) * [0.875, 1.0, 1.15][rng.below(3)]).round() as u32;
        let font_scale = f64::from(17 + rng.range(0, 9) as u32) * 0.05; // 0.85 ..= 1.30
        let font_scale = (font_scale * 100.0).round() / 100.0;
        let dark = rng.below(2) == 1;
        let accent = match rng.below(ACCENTS.len() + 1) {
            0 => None,
            i => Some(ACCENTS[i - 1].1.to_owned()),
        };
        let wallpaper = Wallpaper::ALL[rng.below(Wallpaper::ALL.len())];
        let clock_24h = rng.below(2) == 1;
        Appearance { name: "random".into(), width, height, density, font_scale, dark, accent, wallpaper, clock_24h }
    }

    /// A profile name or `random` (drawn from `seed`).
    pub fn resolve(name: &str, seed: u64) -> Result<Appearance, AppearanceError> {
        match name.trim() {
            "random" => Ok(Appearance::random(seed)),
            other => Appearance::profile(other),
        }
    }

    /// Checks a look read from outside (an `episode.json`): sizes the phone supports, a font
    /// scale in range, an accent that parses.
    pub fn validate(&self) -> Result<(), AppearanceError> {
        let field = |field, message: String| Err(AppearanceError::Field { name: self.name.clone(), field, message });
        if !(200..=8192).contains(&self.width) || !(300..=8192).contains(&self.height) {
            return field("width", format!("unsupported screen size {}x{}", self.width, self.height));
        }
        if !(80..=1000).contains(&self.density) {
            return field("density", format!("unsupported density {}", self.density));
        }
        if !(0.85..=1.3).contains(&self.font_scale) {
            return field("font_scale", format!("{} is outside 0.85 to 1.3", self.font_scale));
        }
        if let Some(hex) = &self.accent {
            if hex.len() != 7 || Color::parse_hex(hex).is_none() {
                return field("accent", format!("`{hex}` is not a #RRGGBB colour"));
            }
        }
        Ok(())
    }

    /// `config` with this look's screen.
    pub fn device_config(&self, config: DeviceConfig) -> DeviceConfig {
        DeviceConfig { width: self.width, height: self.height, density: self.density, ..config }
    }

    /// Writes this look's settings into `system.*`. Settings equal to a fresh phone's are left
    /// as they are, so `default` is the same state as no appearance at all.
    pub fn apply_settings(&self, system: &mut Value) {
        let Value::Object(map) = system else { return };
        map.insert("dark_theme".into(), Value::Bool(self.dark));
        map.insert("font_scale".into(), Value::from(self.font_scale));
        let mut set = |key: &str, value: Option<Value>| match value {
            Some(v) => {
                map.insert(key.into(), v);
            }
            None => {
                map.remove(key);
            }
        };
        set("accent", self.accent.clone().map(Value::String));
        set("wallpaper", (self.wallpaper != Wallpaper::Plain).then(|| Value::String(self.wallpaper.name().into())));
        set("clock_24h", (!self.clock_24h).then_some(Value::Bool(false)));
    }

    /// A fresh phone with this look.
    pub fn device(&self, catalog: Arc<Catalog>, config: DeviceConfig) -> Result<Device, PhoneError> {
        self.validate().map_err(|e| PhoneError::Config(e.to_string()))?;
        let mut device = Device::new(catalog, self.device_config(config))?;
        self.apply_settings(&mut device.store_mut().system);
        Ok(device)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_profile_is_valid_and_named() {
        for name in PROFILES {
            let a = Appearance::profile(name).unwrap();
            assert_eq!(a.name, name);
            a.validate().unwrap();
        }
        assert_eq!(Appearance::profile("default").unwrap(), Appearance::default());
    }

    #[test]
    fn an_unknown_name_lists_the_valid_ones() {
        let err = Appearance::resolve("neon", 0).unwrap_err().to_string();
        assert!(err.contains("unknown appearance `neon`"), "{err}");
        assert!(err.contains("default, dark, large_text") && err.contains("random"), "{err}");
    }

    #[test]
    fn random_draws_are_seeded_and_vary() {
        assert_eq!(Appearance::random(7), Appearance::random(7));
        let looks: Vec<Appearance> = (0..40).map(Appearance::random).collect();
        for a in &looks {
            a.validate().unwrap();
        }
        let distinct = |f: fn(&Appearance) -> String| looks.iter().map(f).collect::<std::collections::BTreeSet<_>>().len();
        assert_eq!(distinct(|a| a.width.to_string()), 3, "every screen size is drawn");
        assert!(distinct(|a| a.font_scale.to_string()) >= 5);
        assert_eq!(distinct(|a| a.dark.to_string()), 2);
        assert_eq!(distinct(|a| a.clock_24h.to_string()), 2);
        assert_eq!(distinct(|a| a.wallpaper.name().to_string()), 4);
    }

    #[test]
    fn default_settings_change_nothing() {
        let mut system = phoneworld_ui::store::default_system();
        Appearance::default().apply_settings(&mut system);
        assert_eq!(system, phoneworld_ui::store::default_system());
    }
}
