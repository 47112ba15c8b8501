//! Limits on what a trace may hold. Traces come from elsewhere: a hostile or broken one must
//! end in an error naming the file (or a warning, where the file is optional), never in a
//! process that runs out of stack, memory or time. Real traces stay far below every limit.

/// Largest hierarchy file: a uiautomator XML dump, a DroidBot state, a Rico or LlamaTouch
/// hierarchy (real ones are well under 1 MiB).
pub const MAX_HIERARCHY_FILE_BYTES: u64 = 16 << 20;

/// Largest DroidBot event file (real ones are a few KiB).
pub const MAX_EVENT_FILE_BYTES: u64 = 1 << 20;

/// Largest small side file: a LlamaTouch `.activity`, an `instruction.txt`.
pub const MAX_SIDE_FILE_BYTES: u64 = 64 << 10;

/// Largest action log: `steps.jsonl`, a uiautomator action log, `eventStructs.txt`,
/// `gestures.json`, `episode.json`.
pub const MAX_LOG_FILE_BYTES: u64 = 64 << 20;

/// Largest canonical trace file (`phoneworld-trace/1`).
pub const MAX_CANONICAL_FILE_BYTES: u64 = 64 << 20;

/// Largest `reconstruction.json`, the model `replay` reads from a generated app.
pub const MAX_MODEL_FILE_BYTES: u64 = 64 << 20;

/// Largest screenshot file (PNG or JPEG).
pub const MAX_IMAGE_FILE_BYTES: u64 = 32 << 20;

/// Largest screenshot, in pixels (width times height): 8 Mpx, e.g. 2048 x 4096. A decoded image takes
/// 3 bytes a pixel, whatever its file size.
pub const MAX_IMAGE_PIXELS: u64 = 8 << 20;

/// All the files of one trace together, in bytes: what is kept of them (texts, hierarchies)
/// stays in memory until the reconstruction ends.
pub const MAX_TRACE_BYTES: u64 = 128 << 20;

/// Most JSON values one JSON text (a file, or one line of a JSONL file) may hold, counted
/// before parsing: a parsed value takes 32 bytes or more, far more than its text.
pub const MAX_JSON_VALUES: usize = 2_000_000;

/// Most JSON objects one JSON text may hold (a parsed object takes several hundred bytes).
pub const MAX_JSON_OBJECTS: usize = 100_000;

/// Most attributes one XML element may have (a uiautomator node has about 20).
pub const MAX_XML_ATTRIBUTES: usize = 64;

/// Deepest hierarchy, in levels below its root (real ones are under 100).
pub const MAX_TREE_DEPTH: usize = 200;

/// Most nodes one screen's hierarchy may have (real ones have hundreds, rarely thousands).
pub const MAX_SCREEN_NODES: usize = 20_000;

/// Most nodes all the screens of one trace may have together.
pub const MAX_TRACE_NODES: usize = 250_000;

/// Most steps (actions) one trace may have.
pub const MAX_STEPS: usize = 200_000;

/// Most abstract screens all the traces of one reconstruction may show (each new one is
/// compared with all before it; real apps show tens).
pub const MAX_ABSTRACT_SCREENS: usize = 1_000;

/// Largest coordinate, in pixels, of a bound, a point or a screen size (either sign).
/// Real screens are a few thousand pixels; a node scrolled far off screen may be further.
pub const MAX_COORD: i64 = 1_000_000;

/// Most containers nested in a generated layout (a list that scrolls counts twice). The app
/// loader reads RON nested at most `phoneworld_data::MAX_RON_DEPTH` (64) deep, and each
/// container level takes about seven of that; widgets below are lifted into the container at
/// this depth (their boxes are absolute, so they stay where they were).
pub const MAX_WIDGET_DEPTH: usize = 8;

/// Most widgets a generated screen builds: what the phone builds on one screen
/// (`phoneworld_data::MAX_VIEW_NODES`), less a few for the screen's own. A screen with more
/// keeps its controls only (a warning says so).
pub const MAX_SCREEN_WIDGETS: usize = phoneworld_data::MAX_VIEW_NODES - 16;
