//! Layout of a resolved view tree: taffy flexbox with text measured by the bundled fonts,
//! then a flat list of placed nodes (for hit-testing and the accessibility tree) and a
//! display list (for the renderer).

mod engine;
mod paint;
mod placed;
mod text_cache;
mod view;

pub use engine::Layouter;
pub use paint::paint;
pub use placed::{Placed, PlacedTree};
pub use view::{A11y, Align, BoxStyle, Content, Direction, ImagePaint, Justify, KnownHashes, Paint, SubtreeHashes, TextSpec, ViewNode};
