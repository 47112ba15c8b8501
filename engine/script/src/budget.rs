//! The work one event may do, counted in units that do not depend on the machine: a Lua VM
//! instruction is one unit, and work done inside library functions (pattern matching steps,
//! elements moved or sorted, bytes of new strings) is charged in the same units. Nothing here
//! reads a clock, so a replay stops at the same point on every machine.

use std::sync::atomic::{AtomicU64, Ordering};

/// Marker in the error a budget overrun raises; `pcall` re-raises errors once the budget is
/// spent, whatever their text.
pub(crate) const BUDGET_MARKER: &str = "instruction budget";

/// Bytes of new strings that cost one unit (a copy of 16 bytes is cheaper than an instruction).
pub(crate) const STRING_BYTES_PER_UNIT: u64 = 16;

/// The shared counter of one device's Lua state.
#[derive(Debug)]
pub(crate) struct Budget {
    used: AtomicU64,
    /// The limit of the event running now (at most the configured one).
    limit: AtomicU64,
    configured: u64,
}

impl Budget {
    pub(crate) fn new(limit: u64) -> Budget {
        Budget { used: AtomicU64::new(0), limit: AtomicU64::new(limit), configured: limit }
    }

    pub(crate) fn limit(&self) -> u64 {
        self.limit.load(Ordering::Relaxed)
    }

    /// Starts a new event (or an app's loading) with the whole budget.
    pub(crate) fn reset(&self) {
        self.reset_within(u64::MAX);
    }

    /// Starts a new event with the configured budget or `allowance`, whichever is smaller.
    pub(crate) fn reset_within(&self, allowance: u64) {
        self.used.store(0, Ordering::Relaxed);
        self.limit.store(self.configured.min(allowance), Ordering::Relaxed);
    }

    /// Puts back what an event used (after the host did untimed work of its own).
    pub(crate) fn set_used(&self, units: u64) {
        self.used.store(units, Ordering::Relaxed);
    }

    /// Units used by the event so far (at most a little over its limit).
    pub(crate) fn used(&self) -> u64 {
        self.used.load(Ordering::Relaxed).min(self.limit().saturating_add(1))
    }

    /// Adds `units`; true while the event is still within its budget.
    pub(crate) fn charge(&self, units: u64) -> bool {
        let before = self.used.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |u| Some(u.saturating_add(units)));
        before.unwrap_or(u64::MAX).saturating_add(units) <= self.limit()
    }

    /// Whether this event has spent its budget (it then stops, and `pcall` cannot catch that).
    pub(crate) fn spent(&self) -> bool {
        self.used.load(Ordering::Relaxed) > self.limit()
    }

    /// Units left in this event.
    pub(crate) fn left(&self) -> u64 {
        self.limit().saturating_sub(self.used.load(Ordering::Relaxed))
    }

    /// The error a library function raises when `units` more would overrun the budget.
    pub(crate) fn charge_or_stop(&self, what: &str, units: u64) -> mlua::Result<()> {
        if self.charge(units) {
            Ok(())
        } else {
            Err(mlua::Error::runtime(self.stopped_message(what)))
        }
    }

    pub(crate) fn stopped_message(&self, what: &str) -> String {
        format!("stopped: {BUDGET_MARKER} of {} exceeded in {what} (an endless loop, or too much work in one event?)", self.limit())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_until_spent_and_saturates() {
        let budget = Budget::new(10);
        assert!(budget.charge(10));
        assert!(!budget.spent());
        assert!(!budget.charge(1));
        assert!(budget.spent());
        assert!(!budget.charge(u64::MAX));
        assert_eq!(budget.left(), 0);
        budget.reset();
        assert_eq!(budget.left(), 10);
    }
}
