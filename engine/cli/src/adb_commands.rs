//! `serve-adb`: the mock phone answering the ADB device protocol.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use phoneworld_adb::{AdbPublicKey, AdbServer, AuthPolicy, ServerOptions, SharedPhone};
use phoneworld_phone::{project_root, Device, DeviceConfig};
use phoneworld_tasks::{Instance, Suite};
use serde_json::json;

use crate::commands::catalog;

/// What `serve-adb` was asked for.
pub(crate) struct ServeAdb<'a> {
    pub(crate) port: u16,
    pub(crate) bind: &'a str,
    pub(crate) seed: u64,
    pub(crate) task: Option<&'a str>,
    pub(crate) suite: &'a str,
    /// `adbkey.pub` files of hosts allowed in; none means no authentication.
    pub(crate) auth_keys: &'a [PathBuf],
    /// Interruptions of the task's episode.
    pub(crate) interruptions: &'a phoneworld_phone::InterruptionSetting,
}

pub(crate) fn serve_adb(apps_dirs: &[PathBuf], suite_dirs: &[PathBuf], args: &ServeAdb<'_>, as_json: bool) -> Result<ExitCode> {
    let catalog = catalog(apps_dirs)?;
    let phone = match args.task {
        Some(id) => {
            let mut dirs = vec![project_root().join("verifiers")];
            dirs.extend(suite_dirs.iter().cloned());
            let suite = Suite::find(args.suite, &dirs, &catalog).context("loading the suite")?;
            let template = suite.get(id).with_context(|| format!("--task {id}: no such task in suite {}", suite.name))?;
            let instance = Instance::new(template.clone(), args.seed, &catalog)?.with_interruptions(args.interruptions.clone());
            let device = instance.device(catalog.clone())?;
            SharedPhone::with_task(device, instance)
        }
        None => SharedPhone::new(Device::new(catalog, DeviceConfig { seed: args.seed, ..DeviceConfig::default() })?),
    };
    let auth = if args.auth_keys.is_empty() {
        AuthPolicy::Disabled
    } else {
        AuthPolicy::Keys(args.auth_keys.iter().map(|p| AdbPublicKey::from_file(Path::new(p))).collect::<Result<_, _>>()?)
    };
    let server = AdbServer::bind((args.bind, args.port), phone, ServerOptions { auth, ..ServerOptions::default() })
        .with_context(|| format!("serving ADB on {}:{}", args.bind, args.port))?;
    let addr = server.local_addr();
    if as_json {
        out!(
            "{}",
            json!({ "address": addr.to_string(), "host": addr.ip().to_string(), "port": addr.port(), "task": args.task, "seed": args.seed })
        );
    } else {
        out!("serving a mock phone over ADB on {addr}");
        out!("connect with: adb connect {addr}");
    }
    // Flush before blocking, so a parent reading the first line sees it now.
    use std::io::Write;
    std::io::stdout().flush()?;
    loop {
        std::thread::park();
    }
}
