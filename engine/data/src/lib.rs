//! The data PhoneWorld reads and writes: canonical actions, app bundles (manifest, RON screen
//! layouts, read-only content), reusable layout modules, binding expressions and the UI element
//! type of observations. Nothing here runs scripts or draws pixels.

mod action;
mod bundle;
mod confine;
mod error;
mod expansion;
mod expr;
mod files;
mod library;
mod manifest;
mod node;
mod options;
mod rng;
mod ron_outline;
mod ron_util;
pub mod scaffold;
mod ui_element;
pub mod valuepath;
mod vtime;

pub use action::{Action, FinishStatus, Key, MAX_ACTION_MS, MAX_ACTION_TEXT_CHARS};
pub use bundle::{AppBundle, LayoutModule, LayoutModules, Screen, ScriptSource, SystemBars, MAX_CONTENT_STRING_BYTES};
pub use error::{DataError, Problem};
pub use expansion::{Expansion, Limit, ModuleAnalysis, MAX_MODULE_DEPTH, MAX_VIEW_DEPTH, MAX_VIEW_NODES};
pub use expr::{
    note_read, reads_during, truthy, Args, BoolExpr, Path, PathRoot, Reads, Scope, Template, MAX_COMPARED_PARTS, MAX_EXPR_BYTES,
    MAX_EXPR_DEPTH, MAX_EXPR_PARTS, MAX_TEXT_BYTES,
};
pub use files::{read_bounded, read_text_bounded, MAX_BUNDLE_FILE_BYTES};
pub use library::LuaLibrary;
pub use manifest::{HostServices, Manifest, MapSpec};
pub use node::{Node, NodeKind, Props, Spacing, TabItem, MAX_DP, MAX_GRID_COLUMNS, MAX_SIZE};
pub use options::{did_you_mean, Align, Fit, Justify, Keyboard, TextAlign, Variant, Weight};
pub use rng::Rng;
pub use ron_outline::{line_and_column, Outline, Shape};
pub use ron_util::MAX_RON_DEPTH;
pub use ui_element::{BBox, UiElement};
pub use vtime::{
    civil_from_days, clock_24h, days_from_civil, days_in_month, format_minutes, parse_date, weekday_of, CivilTime, MONTH_NAMES,
    WEEKDAY_NAMES,
};
