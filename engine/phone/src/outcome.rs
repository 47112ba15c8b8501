//! What one step collects on its way through handlers and effects.

use phoneworld_script::ScriptError;

/// What a step collects on the way: a note when it did nothing, and script errors.
#[derive(Debug, Default)]
pub(crate) struct Outcome {
    pub(crate) note: Option<String>,
    pub(crate) errors: Vec<ScriptError>,
}

impl Outcome {
    pub(crate) fn noop(&mut self, why: impl Into<String>) {
        if self.note.is_none() {
            self.note = Some(why.into());
        }
    }
}
