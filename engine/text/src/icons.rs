//! Material icon names → codepoints, from the bundled codepoints file.

use std::collections::HashMap;
use std::sync::OnceLock;

static CODEPOINTS: &str = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/fonts/MaterialIcons-codepoints.txt"));

fn table() -> &'static HashMap<&'static str, char> {
    static TABLE: OnceLock<HashMap<&'static str, char>> = OnceLock::new();
    TABLE.get_or_init(|| {
        CODEPOINTS
            .lines()
            .filter_map(|line| {
                let (name, hex) = line.trim().split_once(' ')?;
                let c = char::from_u32(u32::from_str_radix(hex.trim(), 16).ok()?)?;
                Some((name, c))
            })
            .collect()
    })
}

/// The codepoint of a Material icon, if the name is known.
pub fn icon_codepoint(name: &str) -> Option<char> {
    table().get(name).copied()
}

/// Whether `name` is a known Material icon.
pub fn icon_exists(name: &str) -> bool {
    icon_codepoint(name).is_some()
}
