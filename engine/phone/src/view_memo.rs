//! The answers of screens' view functions, kept while what they read stays the same.

use std::collections::VecDeque;
use std::sync::{Arc, Weak};

use phoneworld_data::Rng;
use phoneworld_script::{ClockRead, Reads};
use phoneworld_ui::store::{ScreenEntry, Store};
use serde_json::Value;

/// Answers kept: a few screens visited back and forth (a list, an item, the list again) each
/// keep theirs.
const KEPT: usize = 4;

/// A view's answer: what the layout reads as `vm.*`, and the problem when it failed.
pub(crate) type Answer = (Arc<Value>, Option<String>);

/// What a view of `package` reads from the store (the app's data, its host's for a mini-app,
/// the screen's entry, the settings, clipboard, clock and generator).
pub(crate) struct Inputs<'a> {
    pub package: &'a str,
    pub host: Option<&'a str>,
    pub entry: &'a ScreenEntry,
    pub store: &'a Store,
}

impl Inputs<'_> {
    fn state(&self) -> Option<&Arc<Value>> {
        self.store.apps.get(self.package)
    }

    fn host_state(&self) -> Option<&Arc<Value>> {
        self.host.and_then(|h| self.store.apps.get(h))
    }
}

/// What a view function read, and what it answered. The answer stands while the inputs are
/// the same: the app's data and its host's (the same allocation: a commit or an edit in place
/// moves them), the screen's parameters and `local.*`, the settings and the clipboard, the
/// clock as finely as the view read it (a view showing the date runs again the next day, not
/// every step) and the random generator if it drew from it.
#[derive(Debug)]
struct Memo {
    package: String,
    screen: String,
    params: Value,
    local: Value,
    state: Weak<Value>,
    host_state: Weak<Value>,
    system: Value,
    clipboard: String,
    /// How the view read the clock, and what of the time it read.
    clock: (ClockRead, Option<i64>),
    /// The generator, when the view drew a random number.
    chance: Option<Rng>,
    answer: Answer,
}

/// The same allocation as `current`, still alive (a weak reference cannot be fooled by a new
/// value at the same address: it keeps the old allocation reserved).
fn same(weak: &Weak<Value>, current: Option<&Arc<Value>>) -> bool {
    match (weak.upgrade(), current) {
        (Some(kept), Some(now)) => Arc::ptr_eq(&kept, now),
        // No data then and now (a weak reference made from nothing).
        (None, None) => weak.ptr_eq(&Weak::new()),
        _ => false,
    }
}

impl Memo {
    fn holds_for(&self, now: &Inputs<'_>) -> bool {
        let session = &now.store.session;
        self.package == now.package
            && self.screen == now.entry.screen
            && self.params == now.entry.params
            && self.local == now.entry.local
            && same(&self.state, now.state())
            && same(&self.host_state, now.host_state())
            && self.system == now.store.system
            && self.clipboard == session.clipboard
            && self.clock.0.key(session.clock_ms) == self.clock.1
            && self.chance.as_ref().is_none_or(|rng| *rng == session.rng)
    }
}

/// The last few answers, the most recently used last.
#[derive(Debug, Default)]
pub(crate) struct ViewMemos(VecDeque<Memo>);

impl ViewMemos {
    /// The answer kept for these inputs, if nothing the view read has changed.
    pub(crate) fn find(&mut self, now: &Inputs<'_>) -> Option<Answer> {
        let i = self.0.iter().position(|memo| memo.holds_for(now))?;
        let memo = self.0.remove(i)?;
        let answer = (Arc::clone(&memo.answer.0), memo.answer.1.clone());
        self.0.push_back(memo);
        Some(answer)
    }

    /// Keeps `answer` of a view that ran on `then` and read what `read` says.
    pub(crate) fn keep(&mut self, then: &Inputs<'_>, read: Reads, answer: &Answer) {
        let session = &then.store.session;
        if self.0.len() >= KEPT {
            self.0.pop_front();
        }
        self.0.push_back(Memo {
            package: then.package.to_owned(),
            screen: then.entry.screen.clone(),
            params: then.entry.params.clone(),
            local: then.entry.local.clone(),
            state: then.state().map_or_else(Weak::new, Arc::downgrade),
            host_state: then.host_state().map_or_else(Weak::new, Arc::downgrade),
            system: then.store.system.clone(),
            clipboard: session.clipboard.clone(),
            clock: (read.clock, read.clock.key(session.clock_ms)),
            chance: read.chance.then(|| session.rng.clone()),
            answer: (Arc::clone(&answer.0), answer.1.clone()),
        });
    }

    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }
}
