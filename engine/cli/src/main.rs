//! `phoneworld`: the command line of the mock phone.

mod commands;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "phoneworld", version, about = "A deterministic mock Android phone for training and evaluating phone-use agents")]
struct Cli {
    /// Print one machine-readable JSON object.
    #[arg(long, global = true)]
    json: bool,
    /// Add a folder of app bundles beside the bundled apps/ (repeatable).
    #[arg(long = "apps-dir", global = true)]
    apps_dir: Vec<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the installed apps: package, label, screens.
    Apps,
    /// Render the home screen, or an app's entry screen, to a PNG.
    Render {
        /// App to open, by package or label.
        #[arg(long)]
        app: Option<String>,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Screen size, e.g. 1080x2400.
        #[arg(long)]
        size: Option<String>,
        /// Render in dark theme.
        #[arg(long)]
        dark: bool,
        #[arg(long)]
        out: PathBuf,
        /// Also write the uiautomator XML here.
        #[arg(long)]
        xml: Option<PathBuf>,
    },
    /// Apply canonical actions from a JSONL file (one action per line).
    Run {
        #[arg(long)]
        actions: PathBuf,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[arg(long)]
        size: Option<String>,
        /// Write the trajectory (steps.jsonl, episode.json, a PNG and XML per step).
        #[arg(long = "out-dir")]
        out_dir: Option<PathBuf>,
    },
    /// Seeded random exploration.
    Monkey {
        /// Keep the walk in this app.
        #[arg(long)]
        app: Option<String>,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[arg(long, default_value_t = 200)]
        steps: u64,
        #[arg(long)]
        size: Option<String>,
        /// Write the trajectory with a PNG and XML per step.
        #[arg(long = "out-dir")]
        out_dir: Option<PathBuf>,
    },
    /// Validate an app bundle and list every problem with file and line.
    Check {
        app_dir: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Apps => commands::apps(&cli.apps_dir, cli.json),
        Command::Render { app, seed, size, dark, out, xml } => {
            commands::render(&cli.apps_dir, app.as_deref(), *seed, size.as_deref(), *dark, out, xml.as_deref(), cli.json)
        }
        Command::Run { actions, seed, size, out_dir } => {
            commands::run(&cli.apps_dir, actions, *seed, size.as_deref(), out_dir.as_deref(), cli.json)
        }
        Command::Monkey { app, seed, steps, size, out_dir } => {
            commands::monkey(&cli.apps_dir, app.as_deref(), *seed, *steps, size.as_deref(), out_dir.as_deref(), cli.json)
        }
        Command::Check { app_dir } => commands::check(app_dir, cli.json),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            if cli.json {
                println!("{}", serde_json::json!({ "error": format!("{err:#}") }));
            } else {
                eprintln!("error: {err:#}");
            }
            ExitCode::from(2)
        }
    }
}
