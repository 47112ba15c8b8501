//! The AFL++ harness: one binary for every target of `phoneworld-fuzz`.
//!
//! - `phoneworld-fuzz-afl --list` prints the target names, one a line (`fuzz/run.py` asks it, so
//!   a target added to `TARGETS` is fuzzed without touching this file).
//! - `phoneworld-fuzz-afl <target>` under `cargo afl fuzz` runs the target in persistent mode;
//!   outside AFL++ it reads one input from standard input and runs it once (how the runner
//!   replays a crash to show its panic message).
//! - `phoneworld-fuzz-afl --replay <target> FILE...` runs files once each and prints how long
//!   each took (for hangs and slow inputs).
//! - `phoneworld-fuzz-afl --lua-source < FILE` prints the Lua program the `lua_handlers` target
//!   builds from an input.
//!
//! Any panic is a finding, also one the phone itself would catch and turn into an error (the
//! script host reports a panic in its Lua library as a failed handler; it is still a bug).

use std::io::Read;
use std::process::ExitCode;
use std::time::Instant;

use phoneworld_fuzz::choices::Choices;
use phoneworld_fuzz::{lua_grammar, TARGETS};

fn usage() -> ExitCode {
    let names: Vec<&str> = TARGETS.iter().map(|(name, _)| *name).collect();
    eprintln!(
        "usage: phoneworld-fuzz-afl --list | <target> | --replay <target> FILE... | --lua-source < FILE\ntargets: {}",
        names.join(", ")
    );
    ExitCode::from(2)
}

fn find(name: &str) -> Option<fn(&[u8])> {
    TARGETS.iter().find(|(n, _)| *n == name).map(|(_, f)| *f)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [flag] if flag == "--list" => {
            for (name, _) in TARGETS {
                println!("{name}");
            }
            ExitCode::SUCCESS
        }
        [flag] if flag == "--lua-source" => {
            let mut data = Vec::new();
            if std::io::stdin().read_to_end(&mut data).is_err() {
                return ExitCode::FAILURE;
            }
            print!("{}", lua_grammar::program(&mut Choices::new(&data)));
            ExitCode::SUCCESS
        }
        [flag, name, files @ ..] if flag == "--replay" => {
            let Some(target) = find(name) else { return usage() };
            for file in files {
                let Ok(data) = std::fs::read(file) else {
                    eprintln!("{file}: cannot read");
                    return ExitCode::FAILURE;
                };
                let start = Instant::now();
                target(&data);
                println!("{file}: {:.3} s", start.elapsed().as_secs_f64());
            }
            ExitCode::SUCCESS
        }
        [name] => match find(name) {
            Some(target) => fuzz(target),
            None => usage(),
        },
        _ => usage(),
    }
}

fn fuzz(target: fn(&[u8])) -> ExitCode {
    // One run before the fork server starts: what a target loads once (the bundled apps of the
    // snapshot target, the Lua runtime) is then loaded in the parent, not in every child, and the
    // first input of each child is not slower than the rest.
    target(&[]);
    afl::fuzz!(|data: &[u8]| target(data));
    ExitCode::SUCCESS
}
