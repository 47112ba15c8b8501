//! Material 3 color roles in light and dark, and dp/sp to pixel conversion.

use phoneworld_render::Color;

/// The color roles layouts may name.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Theme {
    pub(crate) dark: bool,
    pub(crate) background: Color,
    pub(crate) surface: Color,
    pub(crate) surface_variant: Color,
    pub(crate) on_surface: Color,
    pub(crate) on_surface_variant: Color,
    pub(crate) outline: Color,
    pub(crate) outline_variant: Color,
    pub(crate) primary: Color,
    pub(crate) on_primary: Color,
    pub(crate) primary_container: Color,
    pub(crate) on_primary_container: Color,
    pub(crate) secondary_container: Color,
    pub(crate) error: Color,
    pub(crate) scrim: Color,
    pub(crate) inverse_surface: Color,
    pub(crate) inverse_on_surface: Color,
}

const fn hex(v: u32) -> Color {
    Color::rgb((v >> 16) as u8, (v >> 8) as u8, v as u8)
}

pub(crate) const LIGHT: Theme = Theme {
    dark: false,
    background: hex(0xF8FAFD),
    surface: hex(0xFFFFFF),
    surface_variant: hex(0xE9EEF6),
    on_surface: hex(0x1F1F1F),
    on_surface_variant: hex(0x444746),
    outline: hex(0x747775),
    outline_variant: hex(0xC4C7C5),
    primary: hex(0x0B57D0),
    on_primary: hex(0xFFFFFF),
    primary_container: hex(0xD3E3FD),
    on_primary_container: hex(0x041E49),
    secondary_container: hex(0xC2E7FF),
    error: hex(0xB3261E),
    scrim: Color::rgba(0, 0, 0, 0x66),
    inverse_surface: hex(0x303030),
    inverse_on_surface: hex(0xF2F2F2),
};

pub(crate) const DARK: Theme = Theme {
    dark: true,
    background: hex(0x131314),
    surface: hex(0x1E1F20),
    surface_variant: hex(0x282A2C),
    on_surface: hex(0xE3E3E3),
    on_surface_variant: hex(0xC4C7C5),
    outline: hex(0x8E918F),
    outline_variant: hex(0x444746),
    primary: hex(0xA8C7FA),
    on_primary: hex(0x062E6F),
    primary_container: hex(0x0842A0),
    on_primary_container: hex(0xD3E3FD),
    secondary_container: hex(0x004A77),
    error: hex(0xF2B8B5),
    scrim: Color::rgba(0, 0, 0, 0x99),
    inverse_surface: hex(0xE3E3E3),
    inverse_on_surface: hex(0x303030),
};

impl Theme {
    pub(crate) fn get(dark: bool) -> Theme {
        if dark {
            DARK
        } else {
            LIGHT
        }
    }

    /// A role name or `#RRGGBB` / `#AARRGGBB`.
    pub(crate) fn color(&self, name: &str) -> Option<Color> {
        Some(match name {
            "background" => self.background,
            "surface" => self.surface,
            "surface_variant" => self.surface_variant,
            "on_surface" => self.on_surface,
            "on_surface_variant" => self.on_surface_variant,
            "outline" => self.outline,
            "outline_variant" => self.outline_variant,
            "primary" => self.primary,
            "on_primary" => self.on_primary,
            "primary_container" => self.primary_container,
            "on_primary_container" => self.on_primary_container,
            "secondary_container" => self.secondary_container,
            "error" => self.error,
            "inverse_surface" => self.inverse_surface,
            "inverse_on_surface" => self.inverse_on_surface,
            "transparent" => Color::rgba(0, 0, 0, 0),
            other => return Color::parse_hex(other),
        })
    }

    pub(crate) const ROLES: &'static [&'static str] = &[
        "background",
        "surface",
        "surface_variant",
        "on_surface",
        "on_surface_variant",
        "outline",
        "outline_variant",
        "primary",
        "on_primary",
        "primary_container",
        "on_primary_container",
        "secondary_container",
        "error",
        "inverse_surface",
        "inverse_on_surface",
        "transparent",
    ];
}

/// Android's minimum touch target side.
pub const MIN_TOUCH_DP: f32 = 48.0;

/// Pixel metrics of the device.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Metrics {
    /// Pixels per dp (density / 160).
    pub px_per_dp: f32,
    /// User font scale (Settings → Display → Font size).
    pub font_scale: f32,
}

impl Metrics {
    pub(crate) fn dp(&self, v: f32) -> f32 {
        (v * self.px_per_dp).round()
    }

    pub(crate) fn sp(&self, v: f32) -> f32 {
        (v * self.px_per_dp * self.font_scale).round()
    }
}
