//! `serve-http`: mock phones behind AndroidWorld's HTTP env-server API.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, Result};
use phoneworld_adb::SharedPhone;
use phoneworld_http::{scaled_config, Families, HttpDevice, HttpOptions, HttpServer};
use phoneworld_phone::{project_root, Device};
use serde_json::json;

use crate::commands::{catalog, parse_size};

/// What `serve-http` was asked for.
pub(crate) struct ServeHttp<'a> {
    pub(crate) port: u16,
    pub(crate) bind: &'a str,
    pub(crate) seed: u64,
    pub(crate) suite: &'a str,
    pub(crate) devices: usize,
    pub(crate) size: Option<&'a str>,
    pub(crate) threads: usize,
}

pub(crate) fn serve_http(apps_dirs: &[PathBuf], suite_dirs: &[PathBuf], args: &ServeHttp<'_>, as_json: bool) -> Result<ExitCode> {
    anyhow::ensure!(args.devices >= 1, "--devices must be at least 1");
    let catalog = catalog(apps_dirs)?;
    let mut dirs = vec![project_root().join("verifiers")];
    dirs.extend(suite_dirs.iter().cloned());
    let families = Arc::new(Families::load(args.suite, &dirs, &catalog).context("loading the suite")?);
    let (width, height) = parse_size(args.size)?;
    let config = scaled_config(width, height, args.seed);
    let devices = (0..args.devices)
        .map(|_| Ok(HttpDevice::new(SharedPhone::new(Device::new(catalog.clone(), config)?), Arc::clone(&families))))
        .collect::<Result<Vec<_>>>()?;
    let options = HttpOptions { threads: args.threads, ..HttpOptions::default() };
    let server = HttpServer::bind((args.bind, args.port), devices, options)
        .with_context(|| format!("serving HTTP on {}:{}", args.bind, args.port))?;
    let addr = server.local_addr();
    if as_json {
        out!(
            "{}",
            json!({ "address": addr.to_string(), "url": format!("http://{addr}"), "port": addr.port(), "devices": args.devices,
                    "suite": families.main().name, "seed": args.seed })
        );
    } else {
        out!("serving {} mock phone(s) over AndroidWorld's HTTP API on http://{addr}", args.devices);
        if args.devices > 1 {
            out!("devices: http://{addr}/emu0 ... http://{addr}/emu{}", args.devices - 1);
        }
    }
    use std::io::Write;
    std::io::stdout().flush()?;
    while server.running() {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    Ok(ExitCode::SUCCESS)
}
