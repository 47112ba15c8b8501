//! The back stack a trace's app had, estimated from the screens the trace went through, so a
//! replay that must put the phone back on a screen puts it there with the screens the person
//! had beneath it: Back, or a dialog's button that closes it, then goes where it went in the
//! trace rather than to the app's first screen.

/// The most screens kept, the top included (Android apps rarely stack deeper in one task).
const MAX_DEPTH: usize = 8;

/// Screens by index, bottom first: a screen seen again pops what was above it, a new one is
/// pushed (over the dialog it was opened from, or in its place when opening it dismissed the
/// dialog), and the home screen leaves the stack as it is.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct TraceStack {
    screens: Vec<usize>,
    /// Whether the top screen is a dialog.
    dialog_on_top: bool,
}

impl TraceStack {
    /// The trace was shown `screen`, a dialog or not; `dismisses`: opening it from a dialog
    /// closed the dialog.
    pub(crate) fn enter(&mut self, screen: usize, dialog: bool, dismisses: bool) {
        if let Some(at) = self.screens.iter().position(|&s| s == screen) {
            self.screens.truncate(at + 1);
            self.dialog_on_top = dialog;
            return;
        }
        if std::mem::replace(&mut self.dialog_on_top, dialog) && dismisses {
            self.screens.pop();
        }
        self.screens.push(screen);
        if self.screens.len() > MAX_DEPTH {
            self.screens.remove(0);
        }
    }

    /// Back showed `screen`: the top is gone, and what was beneath it is `screen` (the screen
    /// the stack had there when it holds it; else `screen` takes that place).
    pub(crate) fn back_to(&mut self, screen: usize, dialog: bool) {
        self.screens.pop();
        if !self.screens.contains(&screen) {
            self.screens.pop();
        }
        self.dialog_on_top = false;
        self.enter(screen, dialog, false);
    }

    /// The app's stack is gone (Back out of its last screen, or it was closed).
    pub(crate) fn clear(&mut self) {
        self.screens.clear();
        self.dialog_on_top = false;
    }

    /// The screens to open, bottom first, to stand on `screen` as the trace did: those beneath
    /// it when the trace's stack holds it, else the whole stack and then it.
    pub(crate) fn path_to(&self, screen: usize) -> Vec<usize> {
        let mut path: Vec<usize> = match self.screens.iter().position(|&s| s == screen) {
            Some(at) => self.screens[..at].to_vec(),
            None => self.screens.clone(),
        };
        path.push(screen);
        path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_screen_seen_again_pops_what_was_above_it() {
        let mut stack = TraceStack::default();
        for s in [0, 1, 2, 3] {
            stack.enter(s, false, true);
        }
        assert_eq!(stack.path_to(3), vec![0, 1, 2, 3]);
        stack.enter(1, false, true);
        assert_eq!(stack.path_to(1), vec![0, 1]);
        assert_eq!(stack.path_to(5), vec![0, 1, 5], "a screen not on the stack goes on top of it");
        stack.clear();
        stack.enter(4, false, true);
        assert_eq!(stack.path_to(4), vec![4]);
    }

    #[test]
    fn what_a_dialog_opens_takes_its_place() {
        let mut stack = TraceStack::default();
        stack.enter(0, false, true);
        stack.enter(1, true, true);
        assert_eq!(stack.path_to(1), vec![0, 1]);
        stack.enter(2, true, true);
        assert_eq!(stack.path_to(2), vec![0, 2], "a dialog its dialog's choice dismissed takes its place");
        stack.enter(3, false, true);
        assert_eq!(stack.path_to(3), vec![0, 3], "so does a screen");
        stack.enter(4, true, true);
        stack.enter(5, false, false);
        assert_eq!(stack.path_to(5), vec![0, 3, 4, 5], "a screen that leaves the dialog open goes over it");
        stack.enter(4, true, true);
        assert_eq!(stack.path_to(4), vec![0, 3, 4], "and Back from it finds the dialog");
    }

    #[test]
    fn back_pops_and_learns_what_was_beneath() {
        let mut stack = TraceStack::default();
        for s in [0, 1, 2] {
            stack.enter(s, false, true);
        }
        stack.back_to(1, false);
        assert_eq!(stack.path_to(1), vec![0, 1]);
        stack.enter(2, false, true);
        stack.back_to(5, false);
        assert_eq!(stack.path_to(5), vec![0, 5], "Back showed what was beneath: it takes that place");
        stack.clear();
        stack.enter(3, false, true);
        assert_eq!(stack.path_to(3), vec![3]);
    }

    #[test]
    fn the_stack_keeps_its_top_screens() {
        let mut stack = TraceStack::default();
        for s in 0..20 {
            stack.enter(s, false, true);
        }
        assert_eq!(stack.path_to(19), (12..20).collect::<Vec<_>>());
    }
}
