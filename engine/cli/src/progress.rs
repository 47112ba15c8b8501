//! Progress of long commands (`eval`, `rollouts`, `verify`): on a terminal, a bar on stderr with
//! the rate, the ETA and per-category counts as episodes finish; nothing at all with `--json`
//! or when stderr is not a terminal (a log file, CI), so output stays what scripts read.

use std::collections::BTreeMap;
use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

pub(crate) struct Progress {
    bar: Option<ProgressBar>,
    /// Per category: (ok, done).
    counts: BTreeMap<String, (u64, u64)>,
}

impl Progress {
    /// A bar of `len` items named `what`, shown only when `as_json` is off and stderr is a terminal.
    pub(crate) fn new(len: usize, what: &str, as_json: bool) -> Progress {
        let shown = !as_json && std::io::stderr().is_terminal();
        let bar = shown.then(|| {
            let style = ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {rate} ETA {eta} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .with_key("rate", |state: &ProgressState, out: &mut dyn std::fmt::Write| {
                    let _ = write!(out, "{:.1}/s", state.per_sec());
                })
                .progress_chars("=> ");
            let bar = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::stderr()).with_style(style);
            bar.set_prefix(what.to_owned());
            bar
        });
        Progress { bar, counts: BTreeMap::new() }
    }

    /// One item of `category` finished, `ok` or not.
    pub(crate) fn done(&mut self, category: &str, ok: bool) {
        let Some(bar) = &self.bar else { return };
        let entry = self.counts.entry(category.to_owned()).or_default();
        entry.0 += u64::from(ok);
        entry.1 += 1;
        let text: Vec<String> = self.counts.iter().map(|(c, (ok, all))| format!("{c} {ok}/{all}")).collect();
        bar.set_message(text.join(" "));
        bar.inc(1);
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
