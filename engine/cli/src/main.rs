//! `phoneworld`: the command line of the mock phone.

/// Like `println!`, but a closed stdout (`phoneworld tasks | head`) ends the program quietly
/// instead of panicking.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if let Err(err) = writeln!(std::io::stdout().lock(), $($arg)*) {
            if err.kind() == std::io::ErrorKind::BrokenPipe {
                std::process::exit(0);
            }
            eprintln!("phoneworld: writing the output: {err}");
            std::process::exit(1);
        }
    }};
}

mod adb_commands;
mod commands;
mod http_commands;
mod progress;
mod ray_handover;
mod reconstruct_commands;
mod studio_command;
mod task_commands;

/// Steps allocate many small values (view nodes, layouts, Lua tables): mimalloc serves them
/// faster than the system allocator (`make bench-report`).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use phoneworld_phone::InterruptionSetting;

#[derive(Parser)]
#[command(name = "phoneworld", version, about = "A deterministic mock Android phone for training and evaluating phone-use agents")]
struct Cli {
    /// Print one machine-readable JSON object.
    #[arg(long, global = true)]
    json: bool,
    /// Add a folder of app bundles beside the bundled apps/ (repeatable).
    #[arg(long = "apps-dir", global = true)]
    apps_dir: Vec<PathBuf>,
    /// Add a folder of task suites beside the bundled verifiers/ (repeatable).
    #[arg(long = "suite-dir", global = true)]
    suite_dir: Vec<PathBuf>,
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
        /// The phone's look: a profile (default, dark, large_text, small_phone, large_phone,
        /// compact, accent_green_24h, dark_large) or `random` (drawn from the seed).
        #[arg(long, conflicts_with = "size")]
        appearance: Option<String>,
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
        /// The phone's look: a profile (default, dark, large_text, small_phone, large_phone,
        /// compact, accent_green_24h, dark_large) or `random` (drawn from the seed).
        #[arg(long, conflicts_with = "size")]
        appearance: Option<String>,
        /// Write the trajectory (steps.jsonl, episode.json, a PNG and XML per step).
        #[arg(long = "out-dir")]
        out_dir: Option<PathBuf>,
    },
    /// Seeded random exploration (or, with --explore, systematic).
    Monkey {
        /// Keep the walk in this app.
        #[arg(long)]
        app: Option<String>,
        /// Try every widget of every screen once, scroll lists to their end and open their
        /// rows, go back where something is left; random actions only once nothing is.
        #[arg(long)]
        explore: bool,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[arg(long, default_value_t = 200)]
        steps: u64,
        #[arg(long)]
        size: Option<String>,
        /// The phone's look: a profile (default, dark, large_text, small_phone, large_phone,
        /// compact, accent_green_24h, dark_large) or `random` (drawn from the seed).
        #[arg(long, conflicts_with = "size")]
        appearance: Option<String>,
        /// Write the trajectory with a PNG and XML per step.
        #[arg(long = "out-dir")]
        out_dir: Option<PathBuf>,
    },
    /// Validate an app bundle and list every problem with file and line.
    Check { app_dir: PathBuf },
    /// Write a new app to start from (a screen with a computed view, handlers using the shared
    /// library), then check it.
    New {
        app_dir: PathBuf,
        /// The name on the launcher (default: from the folder's name).
        #[arg(long)]
        label: Option<String>,
        /// The package (default: com.example.<folder name>).
        #[arg(long)]
        package: Option<String>,
    },
    /// List the task templates of a suite.
    Tasks {
        #[arg(long, default_value = "phoneworld-v0")]
        suite: String,
        /// Print the Markdown catalog (docs/tasks.md) instead.
        #[arg(long)]
        markdown: bool,
    },
    /// Run every template of a suite for N seeds with a built-in agent.
    Eval {
        #[arg(long, default_value = "phoneworld-v0")]
        suite: String,
        /// oracle (plays the reference solutions), noop, random, or tree-only (the solution, but
        /// choosing pictures from the accessibility tree alone).
        #[arg(long, default_value = "oracle")]
        agent: String,
        #[arg(long, default_value_t = 1)]
        seeds: u64,
        /// Write each episode's trajectory here.
        #[arg(long = "out-dir")]
        out_dir: Option<PathBuf>,
        /// Play under these looks: a profile, `random` (drawn from each seed), a comma-separated
        /// list, or `all` (every profile); success is reported per appearance.
        #[arg(long)]
        appearance: Option<String>,
        /// Exit with status 1 when the success rate (overall or of any appearance) is below this.
        #[arg(long = "min-success")]
        min_success: Option<f64>,
        /// Seeded interruptions: off, on (1-2 per episode), a count, or kind@step,...
        #[arg(long, default_value = "off", value_parser = parse_interruptions)]
        interruptions: InterruptionSetting,
        /// Run on the Ray cluster at this address (`auto`, HOST:PORT, ray://HOST:PORT) through
        /// the Python package (`pip install 'phoneworld[ray]'`): the same output.
        #[arg(long)]
        ray: Option<String>,
        /// Also write the run's HTML report here (charts and a step viewer; see `report`).
        #[arg(long)]
        report: Option<PathBuf>,
    },
    /// One self-contained HTML page of an eval run folder (`eval --out-dir RUN_DIR`): success
    /// by category, app, difficulty and skill, steps per episode, failure reasons, and a step
    /// viewer with each action drawn over its frame.
    Report {
        run_dir: PathBuf,
        #[arg(long)]
        out: PathBuf,
        /// Width in pixels of the frames the page embeds.
        #[arg(long = "frame-width", default_value_t = 240)]
        frame_width: u32,
    },
    /// Verifier-confirmed trajectories for fine-tuning, played by the oracle (with detours).
    Rollouts {
        #[arg(long, default_value = "phoneworld-v0")]
        suite: String,
        #[arg(long, default_value_t = 1)]
        seeds: u64,
        #[arg(long = "out-dir")]
        out_dir: PathBuf,
        /// Probability of a plausible wrong step (then Back) before each step.
        #[arg(long, default_value_t = 0.0)]
        detours: f64,
        /// jpeg (quality 90) or png.
        #[arg(long = "image-format", default_value = "jpeg")]
        image_format: String,
        /// Screenshot size, e.g. 540x1200 (default: the device size).
        #[arg(long = "image-size")]
        image_size: Option<String>,
        /// The phone's look in every episode: a profile, or `random` (drawn from each seed).
        #[arg(long)]
        appearance: Option<String>,
        /// Seeded interruptions: off, on (1-2 per episode), a count, or kind@step,...
        #[arg(long, default_value = "off", value_parser = parse_interruptions)]
        interruptions: InterruptionSetting,
        /// Run on the Ray cluster at this address (`auto`, HOST:PORT, ray://HOST:PORT) through
        /// the Python package (`pip install 'phoneworld[ray]'`): the same output.
        #[arg(long)]
        ray: Option<String>,
    },
    /// Reconstruct a runnable app, its tasks and a fidelity report from real GUI traces.
    Reconstruct {
        #[command(flatten)]
        traces: reconstruct_commands::TraceArgs,
        /// The app folder to write.
        #[arg(long)]
        out: PathBuf,
        /// Write into `--out` even when it holds other files than an earlier reconstruction.
        #[arg(long)]
        force: bool,
    },
    /// The GUI-usage graph of traces, as DOT or JSON.
    Graph {
        #[command(flatten)]
        traces: reconstruct_commands::TraceArgs,
        /// FILE.dot or FILE.json.
        #[arg(long)]
        out: PathBuf,
    },
    /// Replay traces on a reconstructed app: transition accuracy, coverage, element recall.
    Replay {
        #[arg(required = true)]
        traces: Vec<PathBuf>,
        #[arg(long, default_value = "auto")]
        format: String,
        /// The reconstructed app folder.
        #[arg(long)]
        app: PathBuf,
        /// Write, for every judged step with a screenshot, the original and the rebuilt frame
        /// at the same size (one sub-folder per trace), and the pairs visual similarity scores.
        #[arg(long)]
        out_dir: Option<PathBuf>,
    },
    /// Serve a mock phone over the ADB device protocol until killed (`adb connect ADDR:PORT`).
    ServeAdb {
        #[arg(long)]
        port: u16,
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1")]
        bind: String,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Play this task (its setup applied; `phoneworld verdict` judges it).
        #[arg(long)]
        task: Option<String>,
        /// The suite the task is in.
        #[arg(long, default_value = "phoneworld-v0")]
        suite: String,
        /// Require ADB authentication with this host key (adbkey.pub; repeatable).
        #[arg(long = "auth-key")]
        auth_key: Vec<PathBuf>,
        /// Seeded interruptions: off, on (1-2 per episode) for --task, a count, or kind@step,...
        #[arg(long, default_value = "off", value_parser = parse_interruptions)]
        interruptions: InterruptionSetting,
    },
    /// Serve mock phones behind AndroidWorld's HTTP env-server API (/emuN for each device).
    ServeHttp {
        #[arg(long, default_value_t = 5000)]
        port: u16,
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1")]
        bind: String,
        /// The seed of every device's phone.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The suite the `android_world` family serves.
        #[arg(long, default_value = "phoneworld-v0")]
        suite: String,
        /// Independent phones, each under /emuN (device 0 also at /).
        #[arg(long, default_value_t = 1)]
        devices: usize,
        /// Screen size, e.g. 1080x2400.
        #[arg(long)]
        size: Option<String>,
        /// Threads answering HTTP.
        #[arg(long, default_value_t = 2)]
        threads: usize,
    },
    /// A live phone in the browser for app authors: drive it, see each save of the app's files
    /// reloaded and its problems as they happen, inspect its elements, state and computed
    /// view, play and record tasks.
    Studio {
        /// The app folders to work on (the project's apps are on the phone too).
        #[arg(required = true)]
        app_dirs: Vec<PathBuf>,
        /// 0 chooses a free port.
        #[arg(long, default_value_t = 8750)]
        port: u16,
        /// Address to listen on; only 127.0.0.1 (the default) keeps the studio to this machine.
        #[arg(long, default_value = "127.0.0.1")]
        bind: String,
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// The phone's look: a profile (default, dark, large_text, small_phone, large_phone,
        /// compact, accent_green_24h, dark_large); the page can change it.
        #[arg(long, default_value = "default")]
        appearance: String,
    },
    /// Prove every template: its solution passes, doing nothing and wrong variants fail.
    Verify {
        #[arg(long, default_value = "phoneworld-v0")]
        suite: String,
        #[arg(long, default_value_t = 5)]
        seeds: u64,
        /// Seeded interruptions: off, on (1-2 per episode), a count, or kind@step,...
        #[arg(long, default_value = "off", value_parser = parse_interruptions)]
        interruptions: InterruptionSetting,
    },
}

fn parse_interruptions(text: &str) -> Result<InterruptionSetting, String> {
    InterruptionSetting::parse(text).map_err(|e| e.to_string())
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Apps => commands::apps(&cli.apps_dir, cli.json),
        Command::Render { app, seed, size, dark, appearance, out, xml } => {
            let screen = commands::Screen { size: size.as_deref(), appearance: appearance.as_deref() };
            commands::render(&cli.apps_dir, app.as_deref(), *seed, &screen, *dark, out, xml.as_deref(), cli.json)
        }
        Command::Run { actions, seed, size, appearance, out_dir } => {
            let screen = commands::Screen { size: size.as_deref(), appearance: appearance.as_deref() };
            commands::run(&cli.apps_dir, actions, *seed, &screen, out_dir.as_deref(), cli.json)
        }
        Command::Monkey { app, explore, seed, steps, size, appearance, out_dir } => {
            let walk = commands::Walk { app: app.as_deref(), explore: *explore, seed: *seed, steps: *steps };
            let screen = commands::Screen { size: size.as_deref(), appearance: appearance.as_deref() };
            commands::monkey(&cli.apps_dir, &walk, &screen, out_dir.as_deref(), cli.json)
        }
        Command::Check { app_dir } => commands::check(app_dir, cli.json),
        Command::New { app_dir, label, package } => commands::new_app(app_dir, label.as_deref(), package.as_deref(), cli.json),
        Command::Tasks { suite, markdown } => task_commands::tasks(&cli.apps_dir, &cli.suite_dir, suite, *markdown, cli.json),
        Command::Eval { suite, agent, seeds, out_dir, appearance, min_success, interruptions, ray: Some(address), report } => {
            let mut args = ray_handover::Args::new(&cli, suite, *seeds, interruptions);
            args.push("--agent", agent);
            args.push_some("--out-dir", out_dir.as_ref().map(|d| d.display()));
            args.push_some("--report", report.as_ref().map(|d| d.display()));
            args.push_some("--appearance", appearance.as_ref());
            args.push_some("--min-success", min_success.as_ref());
            ray_handover::hand_over("eval", address, args)
        }
        Command::Rollouts { suite, seeds, out_dir, detours, image_format, image_size, appearance, interruptions, ray: Some(address) } => {
            let mut args = ray_handover::Args::new(&cli, suite, *seeds, interruptions);
            args.push("--out-dir", out_dir.display());
            args.push("--detours", detours);
            args.push("--image-format", image_format);
            args.push_some("--image-size", image_size.as_ref());
            args.push_some("--appearance", appearance.as_ref());
            ray_handover::hand_over("rollouts", address, args)
        }
        Command::Eval { suite, agent, seeds, out_dir, appearance, min_success, interruptions, ray: None, report } => task_commands::eval(
            &cli.apps_dir,
            &cli.suite_dir,
            &task_commands::EvalArgs {
                name: suite,
                agent,
                seeds: *seeds,
                out_dir: out_dir.as_deref(),
                appearance: appearance.as_deref(),
                min_success: *min_success,
                interruptions,
                report: report.as_deref(),
            },
            cli.json,
        ),
        Command::Report { run_dir, out, frame_width } => task_commands::report(run_dir, out, *frame_width, cli.json),
        Command::Rollouts { suite, seeds, out_dir, detours, image_format, image_size, appearance, interruptions, ray: None } => {
            task_commands::rollouts(
                &cli.apps_dir,
                &cli.suite_dir,
                &task_commands::Rollouts {
                    suite,
                    seeds: *seeds,
                    out_dir,
                    detours: *detours,
                    image_format,
                    image_size: image_size.as_deref(),
                    appearance: appearance.as_deref(),
                    interruptions,
                },
                cli.json,
            )
        }
        Command::Reconstruct { traces, out, force } => reconstruct_commands::reconstruct(traces, out, *force, cli.json),
        Command::Graph { traces, out } => reconstruct_commands::graph(traces, out, cli.json),
        Command::Replay { traces, format, app, out_dir } => {
            reconstruct_commands::replay_traces(traces, format, app, out_dir.as_deref(), cli.json)
        }
        Command::ServeAdb { port, bind, seed, task, suite, auth_key, interruptions } => adb_commands::serve_adb(
            &cli.apps_dir,
            &cli.suite_dir,
            &adb_commands::ServeAdb { port: *port, bind, seed: *seed, task: task.as_deref(), suite, auth_keys: auth_key, interruptions },
            cli.json,
        ),
        Command::ServeHttp { port, bind, seed, suite, devices, size, threads } => http_commands::serve_http(
            &cli.apps_dir,
            &cli.suite_dir,
            &http_commands::ServeHttp {
                port: *port,
                bind,
                seed: *seed,
                suite,
                devices: *devices,
                size: size.as_deref(),
                threads: *threads,
            },
            cli.json,
        ),
        Command::Studio { app_dirs, port, bind, seed, appearance } => {
            studio_command::studio(app_dirs, &studio_command::StudioArgs { port: *port, bind, seed: *seed, appearance }, cli.json)
        }
        Command::Verify { suite, seeds, interruptions } => {
            task_commands::verify(&cli.apps_dir, &cli.suite_dir, suite, *seeds, cli.json, interruptions)
        }
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            if cli.json {
                out!("{}", serde_json::json!({ "error": format!("{err:#}") }));
            } else {
                eprintln!("error: {err:#}");
            }
            ExitCode::from(2)
        }
    }
}
