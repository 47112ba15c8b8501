//! The device shell: a small POSIX-ish interpreter over the shared phone. Command lines are
//! parsed ([`syntax`]), then each pipeline runs its commands in order, feeding one's output to
//! the next; redirections write to the device's in-memory files. Device commands (`input`,
//! `screencap`, `am`, ...) turn into canonical actions on the mock device.

mod activity;
mod files;
mod input;
mod phoneworld;
mod syntax;
mod system;
mod text;

use std::collections::BTreeMap;

use crate::fs::{resolve, FsError};
use crate::session::PhoneSession;
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

/// One running command: the session, the shell, its standard input and what it prints.
pub(crate) struct Ctx<'a> {
    pub(crate) session: &'a mut PhoneSession,
    pub(crate) shell: &'a mut ShellState,
    pub(crate) stdin: Vec<u8>,
    pub(crate) out: Vec<u8>,
    pub(crate) err: Vec<u8>,
}

impl Ctx<'_> {
    pub(crate) fn print(&mut self, text: &str) {
        self.out.extend_from_slice(text.as_bytes());
    }

    pub(crate) fn eprint(&mut self, text: &str) {
        self.err.extend_from_slice(text.as_bytes());
    }

    /// Prints `text` and a newline to stderr; returns `status` for `return ctx.fail(..)`.
    pub(crate) fn fail(&mut self, status: u8, text: &str) -> u8 {
        self.eprint(text);
        self.eprint("\n");
        status
    }

    /// A path argument resolved against the working folder.
    pub(crate) fn path(&self, arg: &str) -> Result<String, FsError> {
        resolve(&self.shell.cwd, arg)
    }
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

/// `sh -c 'LINE'` runs a line in a child shell.
fn sh(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let Some(line) = args.iter().position(|a| a == "-c").and_then(|i| args.get(i + 1)) else {
        return ctx.fail(2, &format!("{SH}: only `sh -c COMMAND` is supported"));
    };
    let mut child = ctx.shell.clone();
    child.exited = false;
    let out = run_in(ctx.session, &mut child, line);
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
pub fn run_in(session: &mut PhoneSession, shell: &mut ShellState, line: &str) -> ShellOutput {
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
        if shell.exited {
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
            let (out, code) = run_command(session, shell, command, std::mem::take(&mut stdin), &mut output);
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
        shell.status = status;
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
    session: &mut PhoneSession,
    shell: &mut ShellState,
    command: &syntax::Command,
    stdin: Vec<u8>,
    output: &mut ShellOutput,
) -> (Vec<u8>, u8) {
    let mut sinks = [Sink::Out, Sink::Err];
    let mut stdin = stdin;
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
                    resolve(&shell.cwd, &name).and_then(|p| session.files().read(&p)).map(|data| stdin = data.to_vec())
                }
            }
        };
        if let Err(err) = result {
            output.push(Channel::Stderr, format!("{SH}: can't open {err}\n").into_bytes());
            return (Vec::new(), 1);
        }
    }
    let args: Vec<String> = command.words.iter().map(|w| expand(w, shell)).collect();
    let mut ctx = Ctx { session, shell, stdin, out: Vec::new(), err: Vec::new() };
    let status = match args.first() {
        None => 0,
        Some(name) => match lookup(name) {
            Some(builtin) => builtin(&mut ctx, &args[1..]),
            None => ctx.fail(127, &format!("{SH}: {name}: inaccessible or not found")),
        },
    };
    let Ctx { session, out, err, .. } = ctx;
    let mut to_pipe = Vec::new();
    for (bytes, sink) in [(out, &sinks[0]), (err, &sinks[1])] {
        match sink {
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
