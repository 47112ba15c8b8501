//! What one request may do. A request is one command line: a `shell:` / `exec:` service, or
//! one line of an interactive shell. Every limit is a count of deterministic work (actions,
//! captures, virtual time, bytes), never wall time, so the phone ends in the same state
//! however loaded the machine is. Once a request passes a limit, the command that passed it
//! prints why on stderr and exits with status 1, and the rest of the request is not run.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Device actions (taps, keys, app starts, `sleep`, monkey events, ...) one request may apply.
/// Beyond: `input: at most 500 device actions per request`. (A monkey event takes a few ms.)
pub const MAX_ACTIONS_PER_REQUEST: u32 = 500;
/// Events one `monkey` command may inject; a larger count is refused before any event with
/// `monkey: at most 500 events per command`.
pub const MAX_MONKEY_EVENTS: u64 = 500;
/// Captures one request may take: `screencap`, `uiautomator dump` and `phoneworld frame-hash`,
/// `state-hash`, `verdict` each render, lay out or hash the whole phone (milliseconds each).
/// Beyond: `screencap: at most 50 captures and state dumps per request`.
pub const MAX_CAPTURES_PER_REQUEST: u32 = 50;
/// Simple commands one request may run (`sh -c` and pipelines included), however cheap.
/// Beyond: `/system/bin/sh: at most 1000 commands per request`.
pub const MAX_COMMANDS_PER_REQUEST: u32 = 1000;
/// Regular expressions one request may compile (`grep`). Beyond:
/// `grep: at most 20 regular expressions per request`.
pub const MAX_PATTERNS_PER_REQUEST: u32 = 20;
/// Compiled size of one regular expression (the regex crate's `size_limit`): 1 MiB. Beyond:
/// `grep: bad regex '…': Compiled regex exceeds size limit of 1048576 bytes.`, status 2.
pub const MAX_PATTERN_BYTES: usize = 1024 * 1024;
/// Bytes `grep` may search per request: 4 MiB (matching costs far more per byte than
/// copying). Beyond: `grep: at most 4194304 bytes searched per request`.
pub const MAX_SEARCHED_BYTES_PER_REQUEST: usize = 4 * 1024 * 1024;
/// Virtual time one request may ask for, in ms (`sleep`, gesture durations, `wait` actions):
/// one hour. Apps' timers fire as virtual time passes, so this bounds their work too.
/// Beyond: `sleep: at most 3600 s of virtual time per request`.
pub const MAX_VIRTUAL_MS_PER_REQUEST: u64 = 3_600_000;
/// Bytes one request's commands may write (stdout, stderr, pipes, files) or copy (`cp`, `<`,
/// file inputs): 96 MiB, room for a whole 64 MiB file and more. Beyond, the output stops there
/// and `cat: output limit: a request may write at most 100663296 bytes`.
pub const MAX_REQUEST_BYTES: usize = 96 * 1024 * 1024;
/// Text one action may type or answer (`input text`, ADBKeyboard broadcasts, `phoneworld
/// answer`): 64 KiB. Beyond: `input: text of N bytes is over the limit of 65536 bytes`.
pub const MAX_ACTION_TEXT_BYTES: usize = 64 * 1024;

/// Output room shared by every request a server runs at once: requests take bytes from it as
/// they write, and give them back when done.
#[derive(Debug)]
pub struct OutputRoom {
    held: AtomicUsize,
    limit: usize,
}

impl OutputRoom {
    pub fn new(limit: usize) -> OutputRoom {
        OutputRoom { held: AtomicUsize::new(0), limit }
    }

    /// Takes up to `bytes`; returns how many it got.
    pub fn take(&self, bytes: usize) -> usize {
        let mut held = self.held.load(Ordering::SeqCst);
        loop {
            let got = bytes.min(self.limit.saturating_sub(held));
            if got == 0 {
                return 0;
            }
            match self.held.compare_exchange(held, held + got, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => return got,
                Err(now) => held = now,
            }
        }
    }

    /// Takes exactly `bytes` or nothing.
    pub fn take_all(&self, bytes: usize) -> bool {
        let mut held = self.held.load(Ordering::SeqCst);
        loop {
            if held.saturating_add(bytes) > self.limit {
                return false;
            }
            match self.held.compare_exchange(held, held + bytes, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => return true,
                Err(now) => held = now,
            }
        }
    }

    /// Counts bytes already held elsewhere (output waiting to be sent), even past the limit.
    pub fn hold(&self, bytes: usize) {
        self.held.fetch_add(bytes, Ordering::SeqCst);
    }

    pub fn give_back(&self, bytes: usize) {
        let _ = self.held.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |h| Some(h.saturating_sub(bytes)));
    }

    /// Bytes held now.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::SeqCst)
    }

    pub fn free(&self) -> usize {
        self.limit.saturating_sub(self.held())
    }

    pub fn limit(&self) -> usize {
        self.limit
    }
}

/// What is left of one request's limits.
#[derive(Debug)]
pub struct Budget {
    actions: u32,
    captures: u32,
    commands: u32,
    patterns: u32,
    searched: usize,
    virtual_ms: u64,
    bytes: usize,
    /// The server's shared room, when serving; bytes taken from it are given back on drop.
    room: Option<Arc<OutputRoom>>,
    taken: usize,
    /// Set once a limit is passed: the request stops.
    exhausted: bool,
}

impl Default for Budget {
    fn default() -> Self {
        Budget::new(None)
    }
}

/// A limit a command ran into: the message it prints (after `NAME: `).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Tripped(pub(crate) String);

impl Budget {
    /// A request's full limits; with `room`, its bytes also come from the server's room.
    pub fn new(room: Option<Arc<OutputRoom>>) -> Budget {
        Budget {
            actions: MAX_ACTIONS_PER_REQUEST,
            captures: MAX_CAPTURES_PER_REQUEST,
            commands: MAX_COMMANDS_PER_REQUEST,
            patterns: MAX_PATTERNS_PER_REQUEST,
            searched: MAX_SEARCHED_BYTES_PER_REQUEST,
            virtual_ms: MAX_VIRTUAL_MS_PER_REQUEST,
            bytes: MAX_REQUEST_BYTES,
            room,
            taken: 0,
            exhausted: false,
        }
    }

    /// Has the request passed a limit?
    pub fn exhausted(&self) -> bool {
        self.exhausted
    }

    fn trip(&mut self, message: String) -> Tripped {
        self.exhausted = true;
        Tripped(message)
    }

    /// One device action lasting `duration_ms` of virtual time.
    pub(crate) fn action(&mut self, duration_ms: u64) -> Result<(), Tripped> {
        if self.actions == 0 {
            return Err(self.trip(format!("at most {MAX_ACTIONS_PER_REQUEST} device actions per request")));
        }
        if duration_ms > self.virtual_ms {
            return Err(self.trip(format!("at most {} s of virtual time per request", MAX_VIRTUAL_MS_PER_REQUEST / 1000)));
        }
        self.actions -= 1;
        self.virtual_ms -= duration_ms;
        Ok(())
    }

    /// One capture or whole-phone query.
    pub(crate) fn capture(&mut self) -> Result<(), Tripped> {
        if self.captures == 0 {
            return Err(self.trip(format!("at most {MAX_CAPTURES_PER_REQUEST} captures and state dumps per request")));
        }
        self.captures -= 1;
        Ok(())
    }

    /// One simple command.
    pub(crate) fn command(&mut self) -> Result<(), Tripped> {
        if self.commands == 0 {
            return Err(self.trip(format!("at most {MAX_COMMANDS_PER_REQUEST} commands per request")));
        }
        self.commands -= 1;
        Ok(())
    }

    /// One regular expression compiled.
    pub(crate) fn pattern(&mut self) -> Result<(), Tripped> {
        if self.patterns == 0 {
            return Err(self.trip(format!("at most {MAX_PATTERNS_PER_REQUEST} regular expressions per request")));
        }
        self.patterns -= 1;
        Ok(())
    }

    /// `n` bytes about to be searched by a regular expression.
    pub(crate) fn search(&mut self, n: usize) -> Result<(), Tripped> {
        if n > self.searched {
            return Err(self.trip(format!("at most {MAX_SEARCHED_BYTES_PER_REQUEST} bytes searched per request")));
        }
        self.searched -= n;
        Ok(())
    }

    /// Takes up to `n` bytes; returns how many the request may still write.
    pub(crate) fn bytes(&mut self, n: usize) -> usize {
        let mut got = n.min(self.bytes);
        if let Some(room) = &self.room {
            got = room.take(got);
            self.taken += got;
        }
        self.bytes -= got;
        got
    }

    /// Takes exactly `n` bytes, or passes the limit.
    pub(crate) fn all_bytes(&mut self, n: usize) -> Result<(), Tripped> {
        let got = self.bytes(n);
        if got < n {
            return Err(self.output_limit());
        }
        Ok(())
    }

    /// The message of the bytes limit (the server's room may be what ran out).
    pub(crate) fn output_limit(&mut self) -> Tripped {
        let message = match &self.room {
            Some(room) if self.bytes > 0 => format!(
                "output limit: the device holds {} bytes of output its clients have not read (at most {})",
                room.held(),
                room.limit()
            ),
            _ => format!("output limit: a request may write at most {MAX_REQUEST_BYTES} bytes"),
        };
        self.trip(message)
    }
}

impl Drop for Budget {
    fn drop(&mut self) {
        if let Some(room) = &self.room {
            room.give_back(self.taken);
        }
    }
}
