//! `eval --ray ADDRESS` and `rollouts --ray ADDRESS`: the run goes to the Python package's
//! Ray runner (`python -m phoneworld.ray`), which plays it on the cluster and prints what this
//! command prints. The interpreter is `$PHONEWORLD_PYTHON`, else `python3`; without the
//! package or its `ray` extra there, the error says how to install them.

use std::fmt::Display;
use std::process::{Command, ExitCode};

use anyhow::{bail, Context, Result};
use phoneworld_phone::InterruptionSetting;

use crate::Cli;

/// The options handed over, as `python -m phoneworld.ray` spells them.
pub(crate) struct Args(Vec<String>);

impl Args {
    /// The options every run has: the global ones, the suite, the seeds, the interruptions.
    pub(crate) fn new(cli: &Cli, suite: &str, seeds: u64, interruptions: &InterruptionSetting) -> Args {
        let mut args = Args(Vec::new());
        args.push("--suite", suite);
        args.push("--seeds", seeds);
        args.push("--interruptions", interruptions);
        for dir in &cli.apps_dir {
            args.push("--apps-dir", dir.display());
        }
        for dir in &cli.suite_dir {
            args.push("--suite-dir", dir.display());
        }
        if cli.json {
            args.0.push("--json".into());
        }
        args
    }

    pub(crate) fn push(&mut self, flag: &str, value: impl Display) {
        self.0.extend([flag.to_owned(), value.to_string()]);
    }

    pub(crate) fn push_some(&mut self, flag: &str, value: Option<impl Display>) {
        if let Some(value) = value {
            self.push(flag, value);
        }
    }
}

fn python() -> String {
    std::env::var("PHONEWORLD_PYTHON").ok().filter(|p| !p.trim().is_empty()).unwrap_or_else(|| "python3".to_owned())
}

/// Runs `python -m phoneworld.ray COMMAND --address ADDRESS ARGS...` with this terminal, and
/// exits as it does.
pub(crate) fn hand_over(command: &str, address: &str, args: Args) -> Result<ExitCode> {
    let python = python();
    let install = "pip install 'phoneworld[ray]' into it, or set PHONEWORLD_PYTHON to an interpreter that has it";
    let probe = Command::new(&python).args(["-c", "import phoneworld.ray"]).output();
    match probe {
        Err(err) => bail!("--ray needs Python with PhoneWorld's package and its ray extra; `{python}` does not run ({err}): {install}"),
        Ok(out) if !out.status.success() => {
            let stderr = String::from_utf8_lossy(&out.stderr);
            let why = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("it failed");
            bail!("--ray needs PhoneWorld's Python package with its ray extra, and `{python}` cannot import phoneworld.ray ({why}): {install}")
        }
        Ok(_) => {}
    }
    let status = Command::new(&python)
        .args(["-m", "phoneworld.ray", command, "--address", address])
        .args(&args.0)
        .status()
        .with_context(|| format!("running {python} -m phoneworld.ray"))?;
    Ok(ExitCode::from(status.code().map_or(1, |c| u8::try_from(c).unwrap_or(1))))
}
