//! Fuzz targets: one function per kind of input PhoneWorld takes from outside, each taking
//! arbitrary bytes and returning normally whatever they hold (a panic, an abort or a hang is a
//! finding). The AFL++ harness in `fuzz/afl` runs them under coverage-guided fuzzing
//! (`make fuzz`); `tests/corpus.rs` replays every saved input in `make test`.

pub mod choices;
pub mod lua_grammar;
mod targets;

pub use targets::{run_target, Target, TARGETS};
