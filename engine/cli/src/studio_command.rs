//! `phoneworld studio APP_DIR...`: serves the studio page and prints its URL.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use phoneworld_phone::project_root;
use phoneworld_studio::{serve, StudioOptions};
use serde_json::json;

/// The options of `studio`.
pub(crate) struct StudioArgs<'a> {
    pub port: u16,
    pub bind: &'a str,
    pub seed: u64,
    pub appearance: &'a str,
}

pub(crate) fn studio(app_dirs: &[PathBuf], args: &StudioArgs<'_>, as_json: bool) -> Result<ExitCode> {
    let ip: std::net::IpAddr = args.bind.parse().with_context(|| format!("--bind {}: not an IP address", args.bind))?;
    let options =
        StudioOptions { app_dirs: app_dirs.to_vec(), root: project_root(), seed: args.seed, appearance: args.appearance.to_owned() };
    serve(options, (ip, args.port).into(), |studio| {
        if as_json {
            out!("{}", json!({ "url": studio.url(), "address": studio.addr().to_string(), "port": studio.addr().port() }));
        } else {
            out!("studio of {}: open {}", app_dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", "), studio.url());
            if !ip.is_loopback() {
                out!("listening on {ip}: other machines can reach it (with the token)");
            }
        }
        use std::io::Write as _;
        let _ = std::io::stdout().flush();
    })?;
    Ok(ExitCode::SUCCESS)
}
