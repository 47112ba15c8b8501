//! Reconstruction: real GUI traces become a GUI-usage graph and a runnable mock app.
//!
//! The pipeline: [`import`] traces of any supported format into the canonical [`Trace`];
//! [`abstraction`] merges concrete screens into abstract screens; [`graph`] builds the
//! GUI-usage graph; [`generate`] writes an app bundle and [`tasks`] its task suite;
//! [`replay`] measures how faithfully the generated app reproduces a trace.

pub mod abstraction;
pub mod demo_tasks;
mod error;
pub mod fuzzing;
mod gaps;
pub mod generate;
pub mod graph;
pub mod import;
pub mod limits;
mod memory;
pub mod ocr;
mod pipeline;
pub mod replay;
mod report;
pub mod see;
mod split;
pub mod tasks;
mod trace;
mod trace_stack;
mod unseen;
pub mod visual;

pub use error::ReconError;
pub use memory::Memory;
pub use pipeline::{analyze, analyze_traces, fidelity_json, reconstruct, Analysis, ReconOptions, Reconstruction};
pub use report::fidelity_markdown;
pub use trace::{Screen, ScreenKind, Target, Trace, TraceAction, TraceStep, UiNode, TRACE_FORMAT};
