//! phoneworld-text: bundled fonts, text measurement and line breaking, colour emoji, Material
//! icons and a process-wide glyph coverage cache. Everything is in device pixels and
//! deterministic.

mod cache;
mod emoji;
mod fonts;
mod icons;
mod layout;

pub use cache::{glyph_bitmap, GlyphBitmap};
pub use emoji::emoji_png;
pub use fonts::{FontFace, Weight};
pub use icons::{icon_codepoint, icon_exists};
pub use layout::{layout_icon, layout_text, line_height, PlacedEmoji, PlacedGlyph, Placeholder, TextLayout, TextStyle, MAX_LAID_OUT_CHARS};

#[cfg(test)]
mod tests;
