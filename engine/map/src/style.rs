//! Map colours, light and dark, after the common palette of phone map apps.

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Theme {
    #[default]
    Light,
    Dark,
}

pub(crate) type Rgb = [u8; 3];

pub(crate) struct Palette {
    pub land: Rgb,
    pub block: Rgb,
    pub park: Rgb,
    pub square: Rgb,
    pub water: Rgb,
    pub road: Rgb,
    pub road_casing: Rgb,
    pub avenue: Rgb,
    pub avenue_casing: Rgb,
    pub route: Rgb,
    pub route_casing: Rgb,
    pub street_label: Rgb,
    pub park_label: Rgb,
    pub water_label: Rgb,
    pub halo: Rgb,
}

pub(crate) fn palette(theme: Theme) -> Palette {
    match theme {
        Theme::Light => Palette {
            land: [0xF1, 0xF3, 0xF4],
            block: [0xE8, 0xEA, 0xED],
            park: [0xC5, 0xE8, 0xCF],
            square: [0xEA, 0xE6, 0xDA],
            water: [0xAA, 0xDA, 0xFF],
            road: [0xFF, 0xFF, 0xFF],
            road_casing: [0xD6, 0xD9, 0xDE],
            avenue: [0xFF, 0xEF, 0xB0],
            avenue_casing: [0xF0, 0xC4, 0x4C],
            route: [0x42, 0x85, 0xF4],
            route_casing: [0x15, 0x57, 0xB0],
            street_label: [0x5F, 0x63, 0x68],
            park_label: [0x1E, 0x7E, 0x3E],
            water_label: [0x3B, 0x6E, 0xB5],
            halo: [0xFF, 0xFF, 0xFF],
        },
        Theme::Dark => Palette {
            land: [0x24, 0x2F, 0x3E],
            block: [0x2B, 0x36, 0x45],
            park: [0x26, 0x3C, 0x3F],
            square: [0x30, 0x3A, 0x48],
            water: [0x17, 0x26, 0x3C],
            road: [0x38, 0x41, 0x4E],
            road_casing: [0x21, 0x2A, 0x37],
            avenue: [0x74, 0x68, 0x55],
            avenue_casing: [0x1F, 0x28, 0x35],
            route: [0x66, 0x9D, 0xF6],
            route_casing: [0x1A, 0x4C, 0x9C],
            street_label: [0x9C, 0xA5, 0xB3],
            park_label: [0x6B, 0x9A, 0x76],
            water_label: [0x6F, 0x8B, 0xAD],
            halo: [0x1C, 0x25, 0x31],
        },
    }
}
