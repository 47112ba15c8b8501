//! Apps and windows: `am`, `monkey`, `pm`, `cmd`, `dumpsys`. Starting and stopping apps become
//! canonical actions; the dumps describe the mock's foreground app the way Android words it,
//! so the regular expressions agent frameworks use on real phones match.

use base64::Engine;
use phoneworld_agents::Monkey;
use phoneworld_data::{Action, Key};
use phoneworld_phone::{Device, Foreground};

use super::{system, Ctx, MAX_MONKEY_EVENTS};

/// The launcher's package on the mock phone.
pub(crate) const LAUNCHER: &str = "com.phoneworld.launcher";
/// The keyboard whose broadcasts type text (ADBKeyboard), listed as installed.
pub(crate) const ADB_KEYBOARD: &str = "com.android.adbkeyboard";

/// The activity class the mock reports for a package.
pub(crate) fn activity_of(package: &str, recents: bool) -> String {
    if package == LAUNCHER {
        format!("{LAUNCHER}.{}", if recents { "RecentsActivity" } else { "Launcher" })
    } else {
        format!("{package}.MainActivity")
    }
}

/// A short stable hex id for a window or record, as Android prints object hashes.
fn object_id(what: &str) -> String {
    blake3::hash(what.as_bytes()).to_hex()[..7].to_owned()
}

/// The foreground package and activity.
pub(crate) fn focused(device: &Device) -> (String, String) {
    match &device.store().session.foreground {
        Foreground::Home => (LAUNCHER.to_owned(), activity_of(LAUNCHER, false)),
        Foreground::Recents => (LAUNCHER.to_owned(), activity_of(LAUNCHER, true)),
        Foreground::App(p) => (p.clone(), activity_of(p, false)),
    }
}

/// Running apps with task ids, most recent first (the launcher's task is 1).
fn tasks(device: &Device) -> Vec<(u32, String)> {
    let catalog = device.catalog();
    let mut out: Vec<(u32, String)> = device
        .store()
        .session
        .recents
        .iter()
        .filter(|p| device.store().session.tasks.contains_key(*p))
        .map(|p| (catalog.apps.iter().position(|a| a.package() == p).map_or(99, |i| i as u32 + 10), p.clone()))
        .collect();
    if let Some(i) = device.store().foreground_app().and_then(|fg| out.iter().position(|(_, p)| p == fg)) {
        let front = out.remove(i);
        out.insert(0, front);
    }
    out.push((1, LAUNCHER.to_owned()));
    out
}

fn installed(device: &Device, package: &str) -> bool {
    package == LAUNCHER || device.catalog().get(package).is_some()
}

/// Options and extras of an intent on the `am` command line.
#[derive(Debug, Default)]
struct Intent {
    action: Option<String>,
    categories: Vec<String>,
    component: Option<String>,
    package: Option<String>,
    data: Option<String>,
    extras: Vec<(String, String)>,
    wait: bool,
    stop_first: bool,
}

impl Intent {
    fn parse(args: &[String]) -> Result<Intent, String> {
        let mut intent = Intent::default();
        let mut i = 0;
        let value = |i: usize| args.get(i + 1).cloned().ok_or_else(|| format!("Error: No argument for option {}", args[i]));
        while i < args.len() {
            let arg = args[i].as_str();
            match arg {
                "-a" | "-c" | "-n" | "-p" | "-d" => {
                    let v = value(i)?;
                    match arg {
                        "-a" => intent.action = Some(v),
                        "-c" => intent.categories.push(v),
                        "-n" => intent.component = Some(v),
                        "-p" => intent.package = Some(v),
                        _ => intent.data = Some(v),
                    }
                    i += 1;
                }
                "-t" | "-f" | "--user" | "-R" | "-P" | "--start-profiler" | "--display" | "--windowingMode" | "--activityType" => {
                    i += 1;
                }
                "-W" => intent.wait = true,
                "-S" => intent.stop_first = true,
                "-D"
                | "-N"
                | "--receiver-foreground"
                | "--activity-clear-top"
                | "--activity-new-task"
                | "--activity-single-top"
                | "--activity-clear-task" => {}
                "-e" | "--es" | "--ez" | "--ei" | "--el" | "--ef" | "--eu" | "--ecn" | "--eia" | "--ela" | "--efa" | "--esa" => {
                    let key = value(i)?;
                    let v = args.get(i + 2).cloned().ok_or_else(|| format!("Error: No value for extra {key}"))?;
                    intent.extras.push((key, v));
                    i += 2;
                }
                "--esn" => {
                    intent.extras.push((value(i)?, String::new()));
                    i += 1;
                }
                a if a.starts_with('-') => return Err(format!("Error: Unknown option: {a}")),
                a if a.contains('/') && !a.contains(':') && intent.component.is_none() => intent.component = Some(a.to_owned()),
                a => intent.data = Some(a.to_owned()),
            }
            i += 1;
        }
        Ok(intent)
    }

    fn extra(&self, key: &str) -> Option<&str> {
        self.extras.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// `Intent { act=… cat=[…] dat=… cmp=… }` as am prints it.
    fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(a) = &self.action {
            parts.push(format!("act={a}"));
        }
        if !self.categories.is_empty() {
            parts.push(format!("cat=[{}]", self.categories.join(",")));
        }
        if let Some(d) = &self.data {
            parts.push(format!("dat={d}"));
        }
        if let Some(p) = &self.package {
            parts.push(format!("pkg={p}"));
        }
        if let Some(c) = &self.component {
            parts.push(format!("cmp={c}"));
        }
        format!("Intent {{ {} }}", parts.join(" "))
    }
}

/// Opens the app and screen a deep link names (the longest matching prefix of any app's
/// `deep_links`); the query string becomes the screen's parameters.
fn open_deep_link(device: &mut Device, uri: &str) -> Option<Result<String, String>> {
    let (base, query) = uri.split_once('?').unwrap_or((uri, ""));
    let mut best: Option<(String, String, usize)> = None;
    for app in &device.catalog().apps {
        for (prefix, screen) in &app.bundle.manifest.deep_links {
            if base.starts_with(prefix.as_str()) && best.as_ref().is_none_or(|b| prefix.len() > b.2) {
                best = Some((app.package().to_owned(), screen.clone(), prefix.len()));
            }
        }
    }
    let (package, screen, prefix_len) = best?;
    let mut params = serde_json::Map::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        params.insert(k.to_owned(), serde_json::Value::String(v.replace("%20", " ").replace('+', " ")));
    }
    let rest = base[prefix_len..].trim_matches('/');
    if !rest.is_empty() {
        params.insert("path".into(), serde_json::Value::String(rest.to_owned()));
    }
    Some(device.open_screen(&package, &screen, serde_json::Value::Object(params)).map(|()| package))
}

fn am_start(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let intent = match Intent::parse(args) {
        Ok(i) => i,
        Err(e) => return ctx.fail(1, &e),
    };
    ctx.print(&format!("Starting: {}\n", intent.describe()));
    let home = intent.categories.iter().any(|c| c == "android.intent.category.HOME");
    let component_pkg = intent.component.as_deref().map(|c| c.split('/').next().unwrap_or(c).to_owned());
    let target = component_pkg.clone().or_else(|| intent.package.clone());
    let launched: Result<String, String> = if home || target.as_deref() == Some(LAUNCHER) {
        if let Err(status) = ctx.act(&Action::Key { key: Key::Home }) {
            return status;
        }
        Ok(LAUNCHER.to_owned())
    } else if let Some(package) = target {
        if !installed(ctx.session.device(), &package) {
            Err(match &intent.component {
                Some(c) => format!("Error type 3\nError: Activity class {{{c}}} does not exist."),
                None => format!("Error: Activity not started, unable to resolve {}", intent.describe()),
            })
        } else {
            if intent.stop_first {
                if let Err(status) = ctx.act(&Action::CloseApp { app: package.clone() }) {
                    return status;
                }
            }
            let linked = match intent.data.as_deref() {
                Some(uri) => match ctx.spend_action(0) {
                    Ok(()) => open_deep_link(ctx.session.device_mut(), uri),
                    Err(status) => return status,
                },
                None => None,
            };
            match linked {
                Some(r) => r,
                None => match ctx.act(&Action::OpenApp { app: package.clone() }) {
                    Ok(_) => Ok(package.clone()),
                    Err(status) => return status,
                },
            }
        }
    } else if let Some(uri) = intent.data.clone() {
        if let Err(status) = ctx.spend_action(0) {
            return status;
        }
        open_deep_link(ctx.session.device_mut(), &uri)
            .unwrap_or_else(|| Err(format!("Error: Activity not started, unable to resolve {}", intent.describe())))
    } else if intent.action.as_deref().is_some_and(|a| a.starts_with("android.settings.")) {
        match ctx.session.device().catalog().find("Settings").map(|a| a.package().to_owned()) {
            Some(settings) => match ctx.act(&Action::OpenApp { app: settings.clone() }) {
                Ok(_) => Ok(settings),
                Err(status) => return status,
            },
            None => Err(format!("Error: Activity not started, unable to resolve {}", intent.describe())),
        }
    } else {
        Err(format!("Error: Activity not started, unable to resolve {}", intent.describe()))
    };
    match launched {
        Ok(package) => {
            if intent.wait {
                let activity = activity_of(&package, false);
                ctx.print(&format!("Status: ok\nLaunchState: COLD\nActivity: {package}/{activity}\nTotalTime: 0\nWaitTime: 0\nComplete\n"));
            }
            0
        }
        Err(e) => ctx.fail(1, &e),
    }
}

/// Is ADBKeyboard the current input method (its broadcasts only work then)?
fn adb_keyboard_active(ctx: &Ctx<'_>) -> bool {
    ctx.session.settings().get(&("secure".to_owned(), "default_input_method".to_owned())).is_none_or(|ime| ime.starts_with(ADB_KEYBOARD))
}

fn am_broadcast(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let intent = match Intent::parse(args) {
        Ok(i) => i,
        Err(e) => return ctx.fail(1, &e),
    };
    let action = intent.action.clone().unwrap_or_default();
    ctx.print(&format!("Broadcasting: {}\n", intent.describe().replace(" }", " flg=0x400000 }")));
    let keyboard = adb_keyboard_active(ctx);
    let typed = |text: String| Action::TypeText { text, clear: false };
    match action.as_str() {
        "ADB_INPUT_TEXT" | "ADB_INPUT_B64" | "ADB_INPUT_CHARS" | "ADB_INPUT_CODE" | "ADB_EDITOR_CODE" | "ADB_CLEAR_TEXT" if keyboard => {
            let step = match action.as_str() {
                "ADB_INPUT_TEXT" => intent.extra("msg").map(|m| typed(m.to_owned())),
                "ADB_INPUT_B64" => match intent.extra("msg").map(|m| base64::engine::general_purpose::STANDARD.decode(m.trim())) {
                    Some(Ok(bytes)) => Some(typed(String::from_utf8_lossy(&bytes).into_owned())),
                    Some(Err(e)) => return ctx.fail(1, &format!("ADB_INPUT_B64: msg is not base64: {e}")),
                    None => None,
                },
                "ADB_INPUT_CHARS" => intent
                    .extra("chars")
                    .map(|c| typed(c.split(',').filter_map(|n| n.trim().parse::<u32>().ok()).filter_map(char::from_u32).collect())),
                "ADB_INPUT_CODE" | "ADB_EDITOR_CODE" => match intent.extra("code").and_then(|c| c.parse::<u32>().ok()) {
                    Some(4) => Some(Action::Key { key: Key::Back }),
                    Some(3) => Some(Action::Key { key: Key::Home }),
                    Some(67) => Some(Action::Key { key: Key::Delete }),
                    Some(_) => Some(Action::Key { key: Key::Enter }),
                    None => None,
                },
                _ => Some(Action::TypeText { text: String::new(), clear: true }),
            };
            if let Some(step) = step {
                if let Err(status) = ctx.act(&step) {
                    return status;
                }
            }
            ctx.print("Broadcast completed: result=0\n");
        }
        "clipper.get" => {
            let clip = ctx.session.device().store().session.clipboard.clone();
            ctx.print(&format!("Broadcast completed: result=-1, data=\"{clip}\"\n"));
        }
        "clipper.set" => match intent.extra("text") {
            Some(text) => {
                ctx.session.device_mut().store_mut().session.clipboard = text.to_owned();
                ctx.print("Broadcast completed: result=-1, data=\"Text is copied into clipboard.\"\n");
            }
            None => ctx.print("Broadcast completed: result=0, data=\"Text is not specified.\"\n"),
        },
        _ => ctx.print("Broadcast completed: result=0\n"),
    }
    0
}

fn am_stack_list(ctx: &mut Ctx<'_>) -> u8 {
    let device = ctx.session.device();
    let config = device.config();
    let (fg, fg_activity) = focused(device);
    let mut out = String::new();
    for (id, package) in tasks(device) {
        let visible = package == fg;
        let activity = if visible { fg_activity.clone() } else { activity_of(&package, false) };
        out.push_str(&format!(
            "RootTask id={id} bounds=[0,0][{w},{h}] displayId=0 userId=0\n configuration={{1.0 ?mcc?mnc [en_US] ldltr sw411dp w411dp h914dp {d}dpi nrml port finger qwerty/v/v -nav/h}}\n  taskId={id}: {package}/{activity} bounds=[0,0][{w},{h}] userId=0 visible={visible} topActivity=ComponentInfo{{{package}/{activity}}}\n",
            w = config.width,
            h = config.height,
            d = config.density
        ));
    }
    ctx.print(&out);
    0
}

pub(crate) fn am(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let Some((verb, rest)) = args.split_first() else {
        return ctx.fail(1, "usage: am [start|broadcast|force-stop|kill|stack list|get-current-user] ...");
    };
    match verb.as_str() {
        "start" | "start-activity" => am_start(ctx, rest),
        "broadcast" => am_broadcast(ctx, rest),
        "force-stop" | "kill" | "stop-app" => {
            let Some(package) = rest.iter().find(|a| !a.starts_with("--") && a.parse::<u32>().is_err()) else {
                return ctx.fail(1, &format!("Error: no package given to {verb}"));
            };
            let known = ctx.session.device().catalog().find(package).map(|a| a.package().to_owned());
            if let (Some(package), "force-stop") = (known, verb.as_str()) {
                if let Err(status) = ctx.act(&Action::CloseApp { app: package }) {
                    return status;
                }
            }
            0
        }
        "kill-all" => 0,
        "stack" | "task" if rest.first().is_some_and(|a| a == "list") => am_stack_list(ctx),
        "get-current-user" => {
            ctx.print("0\n");
            0
        }
        other => ctx.fail(1, &format!("Error: Unknown command: {other}")),
    }
}

/// `monkey -p PKG [-c CATEGORY] [-s SEED] [COUNT]`: the first event launches the app, the rest
/// are seeded random gestures inside it.
pub(crate) fn monkey(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let mut packages: Vec<String> = Vec::new();
    let mut seed = 0u64;
    let mut count: Option<u64> = None;
    let mut verbose = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i].as_str();
        match a {
            "-p" | "-c" | "-s" | "--throttle" | "--pct-touch" | "--pct-motion" | "--pct-trackball" | "--pct-nav" | "--pct-majornav"
            | "--pct-syskeys" | "--pct-appswitch" | "--pct-anyevent" => {
                let Some(v) = args.get(i + 1) else {
                    return ctx.fail(1, &format!("** Error: Missing argument for option: {a}"));
                };
                match a {
                    "-p" => packages.push(v.clone()),
                    "-s" => seed = v.parse().unwrap_or(0),
                    _ => {}
                }
                i += 2;
                continue;
            }
            "-v" => verbose = true,
            a if a.starts_with('-') && !a.starts_with("--") && a.len() > 1 && a[1..].chars().all(|c| c == 'v') => verbose = true,
            a if a.starts_with('-') => {}
            a => match a.parse::<u64>() {
                Ok(n) => count = Some(n),
                Err(_) => return ctx.fail(1, &format!("** Error: Invalid argument: {a}")),
            },
        }
        i += 1;
    }
    let Some(count) = count else {
        return ctx.fail(1, "** Error: Count not specified\nusage: monkey [-p ALLOWED_PACKAGE [-p ALLOWED_PACKAGE] ...] [-c MAIN_CATEGORY] [-s SEED] [-v] COUNT");
    };
    if count > MAX_MONKEY_EVENTS {
        return ctx.fail(1, &format!("monkey: at most {MAX_MONKEY_EVENTS} events per command"));
    }
    // The mock also takes an app's label where Android needs its package.
    let catalog = std::sync::Arc::clone(ctx.session.device().catalog());
    let package = match packages.iter().find_map(|p| catalog.find(p).map(|a| a.package().to_owned())) {
        Some(p) => p,
        None if packages.is_empty() => {
            let apps = &ctx.session.device().catalog().apps;
            if apps.is_empty() {
                return ctx.fail(251, "** No activities found to run, monkey aborted.");
            }
            apps[(seed % apps.len() as u64) as usize].package().to_owned()
        }
        None => return ctx.fail(251, "** No activities found to run, monkey aborted."),
    };
    if verbose {
        ctx.print(&format!(
            ":Monkey: seed={seed} count={count}\n:AllowPackage: {package}\n:IncludeCategory: android.intent.category.LAUNCHER\n"
        ));
    }
    if count > 0 {
        if let Err(status) = ctx.act(&Action::OpenApp { app: package.clone() }) {
            return status;
        }
    }
    let mut random = Monkey::new(seed, Some(package));
    for _ in 1..count {
        // Other clients may use the phone between events.
        ctx.pause();
        let action = random.next_action(ctx.session.device_mut());
        if let Err(status) = ctx.act(&action) {
            return status;
        }
    }
    ctx.print(&format!("Events injected: {count}\n## Network stats: elapsed time=0ms (0ms mobile, 0ms wifi, 0ms not connected)\n"));
    0
}

fn packages(device: &Device) -> Vec<(String, bool)> {
    let mut all: Vec<(String, bool)> = device.catalog().apps.iter().map(|a| (a.package().to_owned(), false)).collect();
    all.push((LAUNCHER.to_owned(), true));
    all.push((ADB_KEYBOARD.to_owned(), false));
    all.sort();
    all
}

pub(crate) fn pm(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let unknown = |ctx: &mut Ctx<'_>, verb: &str, pkg: &str| {
        ctx.fail(255, &format!("Exception occurred while executing '{verb}':\njava.lang.IllegalArgumentException: Unknown package: {pkg}"))
    };
    match args.as_slice() {
        ["list", "packages", rest @ ..] => {
            let mut show_path = false;
            let (mut only_system, mut only_third) = (false, false);
            let mut filter = None;
            let mut skip = false;
            for (k, a) in rest.iter().enumerate() {
                if skip {
                    skip = false;
                    continue;
                }
                match *a {
                    "-f" => show_path = true,
                    "-s" => only_system = true,
                    "-3" => only_third = true,
                    "--user" => skip = k + 1 < rest.len(),
                    a if a.starts_with('-') => {}
                    a => filter = Some(a),
                }
            }
            for (package, system) in packages(ctx.session.device()) {
                if (only_system && !system) || (only_third && system) || filter.is_some_and(|f| !package.contains(f)) {
                    continue;
                }
                if show_path {
                    ctx.print(&format!("package:/data/app/{package}/base.apk={package}\n"));
                } else {
                    ctx.print(&format!("package:{package}\n"));
                }
            }
            0
        }
        ["path", package] => {
            if packages(ctx.session.device()).iter().any(|(p, _)| p == package) {
                ctx.print(&format!("package:/data/app/{package}/base.apk\n"));
                0
            } else {
                1
            }
        }
        ["clear", .., package] => {
            if ctx.session.device().catalog().get(package).is_none() {
                ctx.print("Failed\n");
                return 1;
            }
            if let Err(status) = ctx.act(&Action::CloseApp { app: (*package).to_owned() }) {
                return status;
            }
            let device = ctx.session.device();
            let fresh = Device::new(std::sync::Arc::clone(device.catalog()), *device.config());
            match fresh.ok().and_then(|d| d.store().apps.get(*package).cloned()) {
                Some(data) => {
                    ctx.session.device_mut().store_mut().apps.insert((*package).to_owned(), data);
                    ctx.print("Success\n");
                    0
                }
                None => {
                    ctx.print("Failed\n");
                    1
                }
            }
        }
        [verb @ ("grant" | "revoke"), rest @ ..] => {
            let operands: Vec<&&str> = rest.iter().filter(|a| !a.starts_with("--") && a.parse::<u32>().is_err()).collect();
            let [package, _permission] = operands[..] else {
                return ctx.fail(1, &format!("Error: {verb} needs a package and a permission"));
            };
            if installed(ctx.session.device(), package) {
                0
            } else {
                unknown(ctx, verb, package)
            }
        }
        ["install" | "install-create", ..] => {
            ctx.fail(1, "Failure [INSTALL_FAILED_INVALID_APK: PhoneWorld installs apps from app bundles (app.ron), not APKs]")
        }
        ["dump", package] => dump_package(ctx, package),
        _ => ctx.fail(
            1,
            "usage: pm [list packages [-f] [-3] [-s] [FILTER] | path PKG | clear PKG | grant PKG PERM | revoke PKG PERM | dump PKG]",
        ),
    }
}

fn dump_package(ctx: &mut Ctx<'_>, package: &str) -> u8 {
    if !packages(ctx.session.device()).iter().any(|(p, _)| p == package) {
        ctx.print(&format!("Unable to find package: {package}\n"));
        return 0;
    }
    ctx.print(&format!(
        "Packages:\n  Package [{package}] ({}):\n    codePath=/data/app/{package}\n    versionCode=1 minSdk=24 targetSdk=34\n    versionName=1.0\n    enabled=true\n",
        object_id(package)
    ));
    0
}

/// `cmd SERVICE ARGS`: the service shell commands that have a classic equivalent.
pub(crate) fn cmd(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let Some((service, rest)) = args.split_first() else {
        return ctx.fail(1, "cmd: No service specified; use -l to list all running services.");
    };
    match service.as_str() {
        "package" => pm(ctx, rest),
        "activity" => am(ctx, rest),
        "window" => super::input::wm(ctx, rest),
        "input" => super::input::input(ctx, rest),
        "settings" => system::settings(ctx, rest),
        "input_method" => system::ime(ctx, rest),
        "-l" => {
            ctx.print("Currently running services:\n  activity\n  input\n  input_method\n  package\n  settings\n  window\n");
            0
        }
        other => ctx.fail(20, &format!("cmd: Can't find service: {other}")),
    }
}

fn dump_window(ctx: &mut Ctx<'_>) -> String {
    let device = ctx.session.device();
    let config = device.config();
    let (package, activity) = focused(device);
    let short = activity.strip_prefix(&format!("{package}.")).map(|a| format!(".{a}")).unwrap_or(activity.clone());
    let task = tasks(device).first().map_or(1, |(id, _)| *id);
    let window = format!("Window{{{} u0 {package}/{activity}}}", object_id(&format!("window {package}")));
    let record = format!("ActivityRecord{{{} u0 {package}/{short} t{task}}}", object_id(&format!("record {package}")));
    let ime_shown = device.store().session.focus.is_some();
    format!(
        "WINDOW MANAGER WINDOWS (dumpsys window windows)\n  Window #0 {window}:\n    mDisplayId=0 rootTaskId={task} mSession=Session{{4242 u0a100}} mClient=android.os.BinderProxy\n    mOwnerUid=10100 showForAllUsers=false package={package} appop=NONE\n    mHasSurface=true isReadyForDisplay()=true mWindowRemovalAllowed=false\n\n  mGlobalConfiguration={{1.0 ?mcc?mnc [en_US] ldltr sw411dp w411dp h914dp {d}dpi nrml port finger qwerty/v/v -nav/h}}\n  mHasPermanentDpad=false\n  mTopFocusedDisplayId=0\n  mInputMethodTarget={window}\n  mInputMethodInputTarget={window}\n  mInputMethodWindow=Window{{{ime} u0 InputMethod}} mInputMethodShown={ime_shown}\n  mCurrentFocus={window}\n  mFocusedApp={record}\n\nWINDOW MANAGER DISPLAY CONTENTS (dumpsys window displays)\n  Display: mDisplayId=0 rootTasks={task}\n    init={w}x{h} {d}dpi cur={w}x{h} app={w}x{h} rng={w}x{w}-{h}x{h}\n    deferred=false mLayoutNeeded=false mTouchExcludeRegion=SkRegion((0,0,{w},{h}))\n    mCurrentRotation=ROTATION_0\n    mDisplayRotation=ROTATION_0\n\nWINDOW MANAGER POLICY STATE (dumpsys window policy)\n    mScreenOnEarly=true mScreenOnFully=true\n    mKeyguardDrawComplete=true mWindowManagerDrawComplete=true\n    isStatusBarKeyguard=false mShowingLockscreen=false mShowingDream=false mDreamingLockscreen=false\n",
        w = config.width,
        h = config.height,
        d = config.density,
        ime = object_id("ime"),
    )
}

fn dump_activities(ctx: &mut Ctx<'_>, top_only: bool) -> String {
    let device = ctx.session.device();
    let (fg, fg_activity) = focused(device);
    if top_only {
        let task = tasks(device).first().map_or(1, |(id, _)| *id);
        return format!("TASK {fg} id={task} userId=0\n  ACTIVITY {fg}/{fg_activity} {} pid=4242\n", object_id(&format!("record {fg}")));
    }
    let mut out = String::from("ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\nDisplay #0 (activities from top to bottom):\n");
    let mut resumed = String::new();
    for (id, package) in tasks(device) {
        let visible = package == fg;
        let activity = if visible { fg_activity.clone() } else { activity_of(&package, false) };
        let short = activity.strip_prefix(&format!("{package}.")).map(|a| format!(".{a}")).unwrap_or(activity.clone());
        let record = format!("ActivityRecord{{{} u0 {package}/{short} t{id}}}", object_id(&format!("record {package}")));
        out.push_str(&format!(
            "  * Task{{{} #{id} type=standard A=10100:{package} U=0 visible={visible} mode=fullscreen translucent=false sz=1}}\n    * Hist #0: {record}\n",
            object_id(&format!("task {package}"))
        ));
        if visible {
            resumed = record;
        }
    }
    out.push_str(&format!("\n  mResumedActivity: {resumed}\n  ResumedActivity: {resumed}\n  mFocusedApp={resumed}\n"));
    out
}

/// `dumpsys SERVICE [ARGS]` for the services agent frameworks read.
pub(crate) fn dumpsys(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let config = *ctx.session.device().config();
    let (w, h, d) = (config.width, config.height, config.density);
    let service = args.first().map(String::as_str).unwrap_or("");
    let text = match service {
        "window" => dump_window(ctx),
        "activity" => {
            let top = args.get(1).is_some_and(|a| a == "top");
            dump_activities(ctx, top)
        }
        "input" => format!(
            "INPUT MANAGER (dumpsys input)\n\nInput Manager State:\n  Interactive: true\n  System UI Lights Out: false\n  Pointer Speed: 0\n  Viewports:\n    DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, uniqueId='local:0', physicalPort=0, orientation=0, logicalFrame=[0, 0, {w}, {h}], physicalFrame=[0, 0, {w}, {h}], deviceSize=[{w}, {h}]}}\n\nInput Reader State:\n  Device 1: virtio_input_multi_touch\n    Touch Input Mapper (mode - DIRECT):\n      Viewport INTERNAL: displayId=0, uniqueId=local:0, port=0, orientation=0, logicalFrame=[0, 0, {w}, {h}], physicalFrame=[0, 0, {w}, {h}], deviceSize=[{w}, {h}], isActive=[true]\n      RawSurfaceWidth: {w}px\n      RawSurfaceHeight: {h}px\n      SurfaceOrientation: 0\n      SurfaceWidth: {w}px\n      SurfaceHeight: {h}px\n"
        ),
        "display" => format!(
            "DISPLAY MANAGER (dumpsys display)\n  mOnlyCode=false\n  mSafeMode=false\n\nDisplay Devices: size=1\n  DisplayDeviceInfo{{\"Built-in Screen\": uniqueId=\"local:0\", {w} x {h}, modeId 1, density {d}, {d}.0 x {d}.0 dpi, rotation 0, type INTERNAL, state ON}}\n    mViewports=[DisplayViewport{{type=INTERNAL, valid=true, isActive=true, displayId=0, uniqueId='local:0', physicalPort=0, orientation=0, logicalFrame=Rect(0, 0 - {w}, {h}), physicalFrame=Rect(0, 0 - {w}, {h}), deviceWidth={w}, deviceHeight={h}}}]\n\nLogical Displays: size=1\n  Display 0:\n    mBaseDisplayInfo=DisplayInfo{{\"Built-in Screen\", displayId 0, real {w} x {h}, largest app {w} x {h}, smallest app {w} x {h}, density {d} ({d}.0 x {d}.0) dpi, rotation 0, state ON}}\n    mOverrideDisplayInfo=DisplayInfo{{\"Built-in Screen\", displayId 0, real {w} x {h}, density {d}, rotation 0, state ON}}\n  DisplayViewport{{valid=true, type=INTERNAL, uniqueId='local:0', physicalPort=0, orientation=0, logicalFrame=Rect(0, 0 - {w}, {h}), physicalFrame=Rect(0, 0 - {w}, {h}), deviceWidth={w}, deviceHeight={h}, isActive=true, displayId=0}}\n"
        ),
        "input_method" => {
            let device = ctx.session.device_mut();
            let shown = device.store().session.focus.is_some();
            let hint = if shown { device.ui_elements().into_iter().find(|e| e.is_focused == Some(true)).and_then(|e| e.hint_text) } else { None };
            let ime = ctx
                .session
                .settings()
                .get(&("secure".to_owned(), "default_input_method".to_owned()))
                .cloned()
                .unwrap_or_else(|| format!("{ADB_KEYBOARD}/.AdbIME"));
            let mut text = format!(
                "Current Input Method Manager state:\n  Input Methods:\n    InputMethod #0:\n      mId={ADB_KEYBOARD}/.AdbIME\n  mCurMethodId={ime}\n  mCurrentUserId=0\n  mInputShown={shown}\n  mShowRequested={shown}\n  mShowExplicitlyRequested=false\n  mShowForced=false\n"
            );
            if shown {
                text.push_str(&format!("  mCurEditorInfo:\n    inputType=0x1 imeOptions=0x6 privateImeOptions=null\n    hintText={} label=null\n", hint.unwrap_or_else(|| "null".into())));
            }
            text
        }
        "package" => match args.get(1) {
            Some(package) => return dump_package(ctx, package),
            None => return ctx.fail(1, "dumpsys package: name a package"),
        },
        "power" => "POWER MANAGER (dumpsys power)\n  mWakefulness=Awake\n  mWakefulnessChanging=false\n  mIsPowered=true\n  mHoldingDisplaySuspendBlocker=true\nDisplay Power: state=ON\n".to_owned(),
        "battery" => "Current Battery Service state:\n  AC powered: true\n  USB powered: false\n  status: 2\n  health: 2\n  present: true\n  level: 100\n  scale: 100\n".to_owned(),
        "" => return ctx.fail(1, "dumpsys: name a service (window, activity, input, display, input_method, package, power, battery)"),
        other => return ctx.fail(1, &format!("Can't find service: {other}")),
    };
    // `dumpsys window windows` and `dumpsys window displays` print their own section.
    let section = match (service, args.get(1).map(String::as_str)) {
        ("window", Some(part @ ("windows" | "displays" | "policy"))) => {
            let header = format!("(dumpsys window {part})");
            text.split("\n\nWINDOW MANAGER ")
                .map(|s| s.to_owned())
                .find(|s| s.contains(&header))
                .map(|s| if s.starts_with("WINDOW") { s } else { format!("WINDOW MANAGER {s}") })
                .unwrap_or(text)
        }
        _ => text,
    };
    ctx.print(&section);
    if !section.ends_with('\n') {
        ctx.print("\n");
    }
    0
}
