//! What a device holds and does per step at most, so a hostile app cannot grow the host or
//! stall a step. Each limit counts things (bytes, timers, screens), never time. The script
//! limits (instructions, memory, value sizes) are in `phoneworld_script`; `docs/limits.md`
//! lists them all with the error each gives.

use phoneworld_script::value_size;
use serde_json::Value;

/// Timers that may fire in one step (an hour's `wait` over a one-second tick fires 3,600; a
/// timer re-arming itself at 0 ms would fire forever): the rest stay due and fire, late, in
/// the next steps.
pub const MAX_TIMERS_PER_STEP: usize = 10_000;
/// Timers pending on a device at once; more are not set (a script error says so).
pub const MAX_PENDING_TIMERS: usize = 1024;
/// Screens on one app's back stack; a push beyond fails with a script error.
pub const MAX_BACK_STACK: usize = 64;
/// Notifications kept in the shade; the oldest go first, as on Android.
pub const MAX_NOTIFICATIONS: usize = 100;
/// Size of one app's data, of one screen's UI state and of the system settings, in bytes (as
/// `value_size` counts them); a handler that would grow them past it fails.
pub const MAX_APP_DATA_BYTES: usize = 8 << 20;
/// Characters a text field holds; typing or pasting beyond is a no-op with a note.
pub const MAX_FIELD_CHARS: usize = 10_000;

/// Upper bounds of sizes, so that most events need not measure the whole store: a size grows
/// by at most what was written into it, and is measured only when its bound passes the limit.
/// Not part of the store: a restored device starts with no bounds and measures when needed.
#[derive(Debug, Default, Clone)]
pub(crate) struct SizeBounds {
    bounds: std::collections::BTreeMap<String, usize>,
}

impl SizeBounds {
    /// Whether `value` (named `key`), after `written` more bytes were written into it, is
    /// within `limit`; its exact size when it had to be measured and is over.
    pub(crate) fn check(&mut self, key: &str, value: &Value, written: usize, limit: usize) -> Result<(), usize> {
        let bound = self.bounds.get(key).map(|b| b.saturating_add(written));
        if let Some(bound) = bound.filter(|b| *b <= limit) {
            self.bounds.insert(key.to_owned(), bound);
            return Ok(());
        }
        let exact = value_size(value);
        if exact > limit {
            return Err(exact);
        }
        self.bounds.insert(key.to_owned(), exact);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn bounds_grow_with_writes_and_measure_only_past_the_limit() {
        let mut bounds = SizeBounds::default();
        let small = json!({"a": "x"});
        assert_eq!(bounds.check("s", &small, 0, 100), Ok(()));
        // The bound says 12 + 80 <= 100: no measuring needed.
        assert_eq!(bounds.check("s", &small, 80, 100), Ok(()));
        // The bound passes the limit: measured, and the small value is fine.
        assert_eq!(bounds.check("s", &small, 80, 100), Ok(()));
        let big = json!({"a": "x".repeat(200)});
        assert_eq!(bounds.check("s", &big, 200, 100), Err(value_size(&big)));
    }
}
