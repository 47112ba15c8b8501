//! The device shell: a small POSIX-ish interpreter over the shared phone. Command lines are
//! parsed ([`syntax`]), then each pipeline runs its commands in order, feeding one's output to
//! the next; redirections write to the device's in-memory files. Device commands (`input`,
//! `screencap`, `am`, ...) turn into canonical actions on the mock device. Each command line
//! runs within a [`Budget`]; served phones are handed to waiting clients between commands and
//! between the events of long commands.

mod activity;
mod budget;
mod files;
mod input;
mod phoneworld;
mod syntax;
mod system;
mod text;

use std::collections::BTreeMap;
use std::ops::{Deref, DerefMut};
use std::sync::MutexGuard;

use phoneworld_data::Action;
use phoneworld_phone::StepResult;

use crate::fs::{resolve, FsError};
use crate::session::{PhoneSession, SharedPhone};
use budget::Tripped;
pub use budget::{
    Budget, OutputRoom, MAX_ACTIONS_PER_REQUEST, MAX_ACTION_TEXT_BYTES, MAX_CAPTURES_PER_REQUEST, MAX_COMMANDS_PER_REQUEST,
    MAX_MONKEY_EVENTS, MAX_PATTERNS_PER_REQUEST, MAX_PATTERN_BYTES, MAX_REQUEST_BYTES, MAX_SEARCHED_BYTES_PER_REQUEST,
    MAX_VIRTUAL_MS_PER_REQUEST,
};
use syntax::{Joint, Piece, Redirect, Word};

/// The shell's name in its error messages, as on Android.
pub(crate) const SH: &str = "/system/bin/sh";

/// Which stream a piece of output went to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Channel {
    Stdout,
    Stderr,
}

/// What a command line printed, in order, and its exit status.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShellOutput {
    pub chunks: Vec<(Channel, Vec<u8>)>,
    pub status: u8,
}

impl ShellOutput {
    fn push(&mut self, channel: Channel, bytes: Vec<u8>) {
        if bytes.is_empty() {
            return;
        }
        match self.chunks.last_mut() {
            Some((c, b)) if *c == channel => b.extend_from_slice(&bytes),
            _ => self.chunks.push((channel, bytes)),
        }
    }

    fn collect(&self, channel: Channel) -> Vec<u8> {
        self.chunks.iter().filter(|(c, _)| *c == channel).flat_map(|(_, b)| b.iter().copied()).collect()
    }

    pub fn stdout(&self) -> Vec<u8> {
        self.collect(Channel::Stdout)
    }

    pub fn stderr(&self) -> Vec<u8> {
        self.collect(Channel::Stderr)
    }

    /// Both streams interleaved, as `shell:` (protocol v1) delivers them.
    pub fn combined(&self) -> Vec<u8> {
        self.chunks.iter().flat_map(|(_, b)| b.iter().copied()).collect()
    }

    /// [`ShellOutput::combined`] without a copy when there is one chunk.
    pub fn into_combined(self) -> Vec<u8> {
        let mut chunks = self.chunks.into_iter();
        let mut all = chunks.next().map(|(_, b)| b).unwrap_or_default();
        for (_, bytes) in chunks {
            all.extend_from_slice(&bytes);
        }
        all
    }
}

/// The shell's own state across the lines of one session: working folder, `$?`, variables.
#[derive(Debug, Clone)]
pub struct ShellState {
    pub cwd: String,
    pub status: u8,
    vars: BTreeMap<String, String>,
    /// Set by `exit`: the rest of the input is not run.
    pub exited: bool,
}

impl Default for ShellState {
    fn default() -> Self {
        let vars = [
            ("HOME", "/"),
            ("PATH", "/product/bin:/apex/com.android.runtime/bin:/system/bin:/system/xbin"),
            ("USER", "root"),
            ("SHELL", SH),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        ShellState { cwd: "/".into(), status: 0, vars, exited: false }
    }
}

/// The phone as a command line sees it: locked for the whole line, or handed over between
/// commands when it is shared.
pub(crate) trait PhoneAccess: DerefMut<Target = PhoneSession> {
    /// Lets other clients waiting for the phone take their turn.
    fn pause(&mut self);
}

impl PhoneAccess for &mut PhoneSession {
    fn pause(&mut self) {}
}

/// A [`SharedPhone`] locked by a request, handed over while it pauses.
struct Lease<'a> {
    phone: &'a SharedPhone,
    /// Always `Some` except inside [`Lease::pause`].
    guard: Option<MutexGuard<'a, PhoneSession>>,
}

impl<'a> Lease<'a> {
    fn new(phone: &'a SharedPhone) -> Lease<'a> {
        Lease { phone, guard: Some(phone.lock()) }
    }
}

impl Deref for Lease<'_> {
    type Target = PhoneSession;
    fn deref(&self) -> &PhoneSession {
        self.guard.as_ref().expect("the phone is locked outside pause")
    }
}

impl DerefMut for Lease<'_> {
    fn deref_mut(&mut self) -> &mut PhoneSession {
        self.guard.as_mut().expect("the phone is locked outside pause")
    }
}

impl PhoneAccess for Lease<'_> {
    fn pause(&mut self) {
        if let Some(guard) = self.guard.take() {
            self.guard = Some(self.phone.yield_to_waiters(guard));
        }
    }
}

/// One running command: the session, the shell, its standard input and what it prints.
pub(crate) struct Ctx<'a> {
    pub(crate) session: &'a mut dyn PhoneAccess,
    pub(crate) shell: &'a mut ShellState,
    pub(crate) budget: &'a mut Budget,
    /// The command's name, for the messages of the limits it runs into.
    pub(crate) name: &'a str,
    pub(crate) stdin: Vec<u8>,
    pub(crate) out: Vec<u8>,
    pub(crate) err: Vec<u8>,
}

impl Ctx<'_> {
    /// Writes to stdout within the request's byte budget; false once the budget is spent
    /// (the output is cut there and the limit's message printed).
    pub(crate) fn write(&mut self, bytes: &[u8]) -> bool {
        if self.stopped() {
            return false;
        }
        let got = self.budget.bytes(bytes.len());
        self.out.extend_from_slice(&bytes[..got]);
        if got < bytes.len() {
            let tripped = self.budget.output_limit();
            self.report(&tripped);
            return false;
        }
        true
    }

    pub(crate) fn print(&mut self, text: &str) {
        self.write(text.as_bytes());
    }

    pub(crate) fn eprint(&mut self, text: &str) {
        if self.stopped() {
            return;
        }
        let got = self.budget.bytes(text.len());
        self.err.extend_from_slice(&text.as_bytes()[..got]);
        if got < text.len() {
            let tripped = self.budget.output_limit();
            self.report(&tripped);
        }
    }

    /// Prints `text` and a newline to stderr; returns `status` for `return ctx.fail(..)`.
    pub(crate) fn fail(&mut self, status: u8, text: &str) -> u8 {
        self.eprint(text);
        self.eprint("\n");
        status
    }

    /// Prints a limit's message (outside the budget: it is short) and gives the status.
    fn report(&mut self, tripped: &Tripped) -> u8 {
        report(&mut self.err, self.name, tripped)
    }

    /// Has the request passed a limit? Commands that loop stop then.
    pub(crate) fn stopped(&self) -> bool {
        self.budget.exhausted()
    }

    /// Applies a device action within the request's limits (actions, virtual time, text);
    /// `Err(status)` once a limit is passed, its message printed.
    pub(crate) fn act(&mut self, action: &Action) -> Result<StepResult, u8> {
        if self.stopped() {
            return Err(1);
        }
        let text = match action {
            Action::TypeText { text, .. } | Action::Answer { text } | Action::Finish { text, .. } => text.len(),
            _ => 0,
        };
        if text > MAX_ACTION_TEXT_BYTES {
            return Err(self.fail(1, &format!("{}: text of {text} bytes is over the limit of {MAX_ACTION_TEXT_BYTES} bytes", self.name)));
        }
        self.spend_action(action.duration_ms())?;
        Ok(self.session.step(action))
    }

    /// Counts one device change that does not go through [`Ctx::act`] (a deep link).
    pub(crate) fn spend_action(&mut self, duration_ms: u64) -> Result<(), u8> {
        if self.stopped() {
            return Err(1);
        }
        self.budget.action(duration_ms).map_err(|t| self.report(&t))
    }

    /// Counts one screen capture.
    pub(crate) fn capture(&mut self) -> Result<(), u8> {
        if self.stopped() {
            return Err(1);
        }
        self.budget.capture().map_err(|t| self.report(&t))
    }

    /// Counts one regular expression compiled.
    pub(crate) fn pattern(&mut self) -> Result<(), u8> {
        if self.stopped() {
            return Err(1);
        }
        self.budget.pattern().map_err(|t| self.report(&t))
    }

    /// Counts `n` bytes about to be searched.
    pub(crate) fn search(&mut self, n: usize) -> Result<(), u8> {
        if self.stopped() {
            return Err(1);
        }
        self.budget.search(n).map_err(|t| self.report(&t))
    }

    /// Counts `n` bytes a command copies (a file read into memory, a file written).
    pub(crate) fn charge(&mut self, n: usize) -> Result<(), u8> {
        if self.stopped() {
            return Err(1);
        }
        self.budget.all_bytes(n).map_err(|t| self.report(&t))
    }

    /// Lets other clients use the phone between the events of a long command.
    pub(crate) fn pause(&mut self) {
        self.session.pause();
    }

    /// A path argument resolved against the working folder.
    pub(crate) fn path(&self, arg: &str) -> Result<String, FsError> {
        resolve(&self.shell.cwd, arg)
    }
}

/// Appends `NAME: message` to stderr; the status of a passed limit.
fn report(err: &mut Vec<u8>, name: &str, tripped: &Tripped) -> u8 {
    err.extend_from_slice(format!("{name}: {}\n", tripped.0).as_bytes());
    1
}

type Builtin = fn(&mut Ctx<'_>, &[String]) -> u8;

fn lookup(name: &str) -> Option<Builtin> {
    Some(match name {
        "echo" => text::echo,
        "printf" => text::printf,
        "grep" | "egrep" | "fgrep" => text::grep,
        "head" => text::head,
        "tail" => text::tail,
        "wc" => text::wc,
        "cat" => files::cat,
        "ls" => files::ls,
        "rm" => files::rm,
        "rmdir" => files::rmdir,
        "mkdir" => files::mkdir,
        "touch" => files::touch,
        "cp" => files::cp,
        "mv" => files::mv,
        "cd" => files::cd,
        "pwd" => files::pwd,
        "true" => |_, _| 0,
        "false" => |_, _| 1,
        "exit" => system::exit,
        "sleep" => system::sleep,
        "date" => system::date,
        "id" => system::id,
        "whoami" => system::whoami,
        "getprop" => system::getprop,
        "setprop" => system::setprop,
        "settings" => system::settings,
        "ime" => system::ime,
        "sh" => sh,
        "input" => input::input,
        "screencap" => input::screencap,
        "uiautomator" => input::uiautomator,
        "wm" => input::wm,
        "am" => activity::am,
        "monkey" => activity::monkey,
        "pm" => activity::pm,
        "cmd" => activity::cmd,
        "dumpsys" => activity::dumpsys,
        "phoneworld" => phoneworld::phoneworld,
        _ => return None,
    })
}

/// `sh -c 'LINE'` runs a line in a child shell, within the same request's limits.
fn sh(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let Some(line) = args.iter().position(|a| a == "-c").and_then(|i| args.get(i + 1)) else {
        return ctx.fail(2, &format!("{SH}: only `sh -c COMMAND` is supported"));
    };
    let mut child = ctx.shell.clone();
    child.exited = false;
    let out = run_script(ctx.session, &mut child, line, ctx.budget);
    for (channel, bytes) in out.chunks {
        match channel {
            Channel::Stdout => ctx.out.extend_from_slice(&bytes),
            Channel::Stderr => ctx.err.extend_from_slice(&bytes),
        }
    }
    out.status
}

/// Runs one command line in a fresh shell (what each `adb shell` invocation gets).
pub fn run(session: &mut PhoneSession, line: &str) -> ShellOutput {
    run_in(session, &mut ShellState::default(), line)
}

/// Runs one command line in an existing shell (an interactive session keeps its state).
pub fn run_in(mut session: &mut PhoneSession, shell: &mut ShellState, line: &str) -> ShellOutput {
    run_script(&mut session, shell, line, &mut Budget::default())
}

/// Runs one command line on a shared phone within `budget`, handing the phone to waiting
/// clients between commands and between the events of long commands.
pub fn run_shared(phone: &SharedPhone, shell: &mut ShellState, line: &str, budget: &mut Budget) -> ShellOutput {
    run_script(&mut Lease::new(phone), shell, line, budget)
}

fn run_script(session: &mut dyn PhoneAccess, shell: &mut ShellState, line: &str, budget: &mut Budget) -> ShellOutput {
    let mut output = ShellOutput::default();
    let script = match syntax::parse(line) {
        Ok(script) => script,
        Err(err) => {
            output.push(Channel::Stderr, format!("{SH}: {err}\n").into_bytes());
            output.status = if matches!(err, syntax::SyntaxError::UnclosedQuote) { 1 } else { 2 };
            shell.status = output.status;
            return output;
        }
    };
    for (joint, pipeline) in script {
        if shell.exited || budget.exhausted() {
            break;
        }
        let go = match joint {
            Joint::Always => true,
            Joint::IfOk => shell.status == 0,
            Joint::IfFailed => shell.status != 0,
        };
        if !go {
            continue;
        }
        let mut stdin = Vec::new();
        let mut status = 0;
        let last = pipeline.commands.len().saturating_sub(1);
        for (i, command) in pipeline.commands.iter().enumerate() {
            if budget.exhausted() {
                break;
            }
            if let Err(tripped) = budget.command() {
                let mut err = Vec::new();
                report(&mut err, SH, &tripped);
                output.push(Channel::Stderr, err);
                break;
            }
            let (out, code) = run_command(session, shell, command, std::mem::take(&mut stdin), &mut output, budget);
            session.pause();
            status = code;
            if i == last {
                output.push(Channel::Stdout, out);
            } else {
                stdin = out;
            }
        }
        if pipeline.negated {
            status = u8::from(status == 0);
        }
        // A request that passed a limit fails, whatever its last command did.
        shell.status = if budget.exhausted() { 1 } else { status };
    }
    output.status = shell.status;
    output
}

fn expand(word: &Word, shell: &ShellState) -> String {
    let mut out = String::new();
    for piece in &word.pieces {
        match piece {
            Piece::Lit(s) => out.push_str(s),
            Piece::Var(name) => match name.as_str() {
                "?" => out.push_str(&shell.status.to_string()),
                "$" => out.push_str("4242"),
                "#" => out.push('0'),
                "0" => out.push_str(SH),
                other => out.push_str(shell.vars.get(other).map(String::as_str).unwrap_or("")),
            },
        }
    }
    out
}

/// Where fd 1 or fd 2 of a command goes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Sink {
    /// The pipe or the client (fd 1's default).
    Out,
    /// The client's stderr (fd 2's default).
    Err,
    Null,
    File(String),
}

fn sink_for(ctx_cwd: &str, target: &str) -> Result<Sink, FsError> {
    Ok(match target {
        "/dev/null" => Sink::Null,
        "/dev/stdout" | "/dev/tty" | "/proc/self/fd/1" => Sink::Out,
        "/dev/stderr" | "/proc/self/fd/2" => Sink::Err,
        path => Sink::File(resolve(ctx_cwd, path)?),
    })
}

/// Runs one simple command with its redirections; returns what it wrote to the pipe and its status.
fn run_command(
    session: &mut dyn PhoneAccess,
    shell: &mut ShellState,
    command: &syntax::Command,
    stdin: Vec<u8>,
    output: &mut ShellOutput,
    budget: &mut Budget,
) -> (Vec<u8>, u8) {
    let mut sinks = [Sink::Out, Sink::Err];
    let mut stdin = stdin;
    let mut cut = false;
    for redirect in &command.redirects {
        let result = match redirect {
            Redirect::Dup { from, to } => {
                let target = if *to == 2 { sinks[1].clone() } else { sinks[0].clone() };
                if *from == 2 {
                    sinks[1] = target;
                } else {
                    sinks[0] = target;
                }
                Ok(())
            }
            Redirect::Out { fd, target, append } => {
                let name = expand(target, shell);
                sink_for(&shell.cwd, &name).and_then(|sink| {
                    if let Sink::File(path) = &sink {
                        // The file is created (or emptied) before the command runs, as sh does.
                        let now = session.clock_secs();
                        if !*append || session.files().get(path).is_none() {
                            session.files_mut().write(path, b"", false, 0o644, now)?;
                        }
                    }
                    match fd {
                        2 => sinks[1] = sink,
                        255 => sinks = [sink.clone(), sink],
                        _ => sinks[0] = sink,
                    }
                    Ok(())
                })
            }
            Redirect::In { target } => {
                let name = expand(target, shell);
                if name == "/dev/null" {
                    stdin = Vec::new();
                    Ok(())
                } else {
                    resolve(&shell.cwd, &name).and_then(|p| session.files().read(&p)).map(|data| {
                        // Reading a file into memory is a copy the request pays for.
                        let got = budget.bytes(data.len());
                        cut |= got < data.len();
                        stdin = data[..got].to_vec();
                    })
                }
            }
        };
        if let Err(err) = result {
            output.push(Channel::Stderr, format!("{SH}: can't open {err}\n").into_bytes());
            return (Vec::new(), 1);
        }
    }
    if cut {
        let mut err = Vec::new();
        let tripped = budget.output_limit();
        report(&mut err, SH, &tripped);
        output.push(Channel::Stderr, err);
        return (Vec::new(), 1);
    }
    let args: Vec<String> = command.words.iter().map(|w| expand(w, shell)).collect();
    let name = args.first().map(String::as_str).unwrap_or(SH);
    let mut ctx = Ctx { session, shell, budget, name, stdin, out: Vec::new(), err: Vec::new() };
    let mut status = match args.first() {
        None => 0,
        Some(name) => match lookup(name) {
            Some(builtin) => builtin(&mut ctx, &args[1..]),
            None => ctx.fail(127, &format!("{SH}: {name}: inaccessible or not found")),
        },
    };
    if ctx.budget.exhausted() {
        status = 1;
    }
    let Ctx { session, out, err, .. } = ctx;
    let mut to_pipe = Vec::new();
    for (bytes, sink) in [(out, &sinks[0]), (err, &sinks[1])] {
        match sink {
            Sink::Out if to_pipe.is_empty() => to_pipe = bytes,
            Sink::Out => to_pipe.extend_from_slice(&bytes),
            Sink::Err => output.push(Channel::Stderr, bytes),
            Sink::Null => {}
            Sink::File(path) => {
                let now = session.clock_secs();
                if let Err(e) = session.files_mut().write(path, &bytes, true, 0o644, now) {
                    output.push(Channel::Stderr, format!("{SH}: write error: {e}\n").into_bytes());
                }
            }
        }
    }
    (to_pipe, status)
}

/// Splits `-abc` style flags from arguments: returns the set flags and the rest. Stops at `--`.
pub(crate) fn flags<'a>(args: &'a [String], known: &str) -> Result<(Vec<char>, Vec<&'a str>), char> {
    let mut set = Vec::new();
    let mut rest = Vec::new();
    let mut only_args = false;
    for arg in args {
        if !only_args && arg == "--" {
            only_args = true;
        } else if !only_args && arg.len() > 1 && arg.starts_with('-') && !arg[1..].starts_with(|c: char| c.is_ascii_digit()) {
            for c in arg[1..].chars() {
                if !known.contains(c) {
                    return Err(c);
                }
                set.push(c);
            }
        } else {
            rest.push(arg.as_str());
        }
    }
    Ok((set, rest))
}
