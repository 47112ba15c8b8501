//! Touch, keys and the screen: `input`, `screencap`, `uiautomator dump`, `wm`. Input commands
//! become canonical actions on the mock device.

use phoneworld_data::{Action, Key};

use super::Ctx;

const INPUT_USAGE: &str = "Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The sources are:
      dpad keyboard mouse touchpad gamepad touchnavigation joystick touchscreen stylus trackball

The commands and default sources are:
      text <string> (Default: touchscreen)
      keyevent [--longpress|--doubletap] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)";

const SOURCES: [&str; 10] =
    ["dpad", "keyboard", "mouse", "touchpad", "gamepad", "touchnavigation", "joystick", "touchscreen", "stylus", "trackball"];

/// Android's long-press timeout: a swipe that stays put at least this long is a long press.
const LONG_PRESS_MS: u64 = 400;
/// `input swipe` without a duration lasts this long.
const DEFAULT_SWIPE_MS: u64 = 300;

/// Android key code names (without `KEYCODE_`) and numbers the input command accepts.
const KEYCODES: &[(&str, u32)] = &[
    ("SOFT_LEFT", 1),
    ("SOFT_RIGHT", 2),
    ("HOME", 3),
    ("BACK", 4),
    ("CALL", 5),
    ("ENDCALL", 6),
    ("STAR", 17),
    ("POUND", 18),
    ("DPAD_UP", 19),
    ("DPAD_DOWN", 20),
    ("DPAD_LEFT", 21),
    ("DPAD_RIGHT", 22),
    ("DPAD_CENTER", 23),
    ("VOLUME_UP", 24),
    ("VOLUME_DOWN", 25),
    ("POWER", 26),
    ("CAMERA", 27),
    ("CLEAR", 28),
    ("COMMA", 55),
    ("PERIOD", 56),
    ("TAB", 61),
    ("SPACE", 62),
    ("ENTER", 66),
    ("DEL", 67),
    ("MINUS", 69),
    ("EQUALS", 70),
    ("AT", 77),
    ("MENU", 82),
    ("NOTIFICATION", 83),
    ("SEARCH", 84),
    ("MEDIA_PLAY_PAUSE", 85),
    ("PAGE_UP", 92),
    ("PAGE_DOWN", 93),
    ("ESCAPE", 111),
    ("FORWARD_DEL", 112),
    ("MOVE_HOME", 122),
    ("MOVE_END", 123),
    ("VOLUME_MUTE", 164),
    ("NUMPAD_ENTER", 160),
    ("APP_SWITCH", 187),
    ("SLEEP", 223),
    ("WAKEUP", 224),
];

/// A key code from its number or name (`4`, `BACK`, `KEYCODE_BACK`, `KEYCODE_A`, `KEYCODE_7`).
fn keycode(arg: &str) -> Option<u32> {
    if let Ok(n) = arg.parse::<u32>() {
        return (n <= 288).then_some(n);
    }
    let name = arg.strip_prefix("KEYCODE_").unwrap_or(arg);
    if let Some((_, n)) = KEYCODES.iter().find(|(k, _)| *k == name) {
        return Some(*n);
    }
    let mut chars = name.chars();
    match (chars.next(), chars.next()) {
        (Some(c @ '0'..='9'), None) => Some(7 + (c as u32 - '0' as u32)),
        (Some(c @ 'A'..='Z'), None) => Some(29 + (c as u32 - 'A' as u32)),
        _ => None,
    }
}

/// What a key code does on the mock phone: a system key, a typed character, or nothing
/// (volume, power and the like have no effect here).
fn key_action(code: u32) -> Option<Action> {
    let key = |key| Some(Action::Key { key });
    let text = |t: &str| Some(Action::TypeText { text: t.to_owned(), clear: false });
    match code {
        3 => key(Key::Home),
        4 => key(Key::Back),
        23 | 66 | 160 => key(Key::Enter),
        67 => key(Key::Delete),
        82 => key(Key::Menu),
        187 => key(Key::Recents),
        7..=16 => text(&char::from(b'0' + (code - 7) as u8).to_string()),
        29..=54 => text(&char::from(b'a' + (code - 29) as u8).to_string()),
        55 => text(","),
        56 => text("."),
        62 => text(" "),
        69 => text("-"),
        70 => text("="),
        77 => text("@"),
        _ => None,
    }
}

fn numbers(args: &[String]) -> Option<Vec<f64>> {
    args.iter().map(|a| a.parse::<f64>().ok().filter(|v| v.is_finite())).collect()
}

fn invalid(ctx: &mut Ctx<'_>, command: &str) -> u8 {
    ctx.fail(1, &format!("Error: Invalid arguments for command: {command}\n{INPUT_USAGE}"))
}

/// `input [SOURCE] [-d N] COMMAND ARGS`.
pub(crate) fn input(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let mut args = args;
    if args.first().is_some_and(|a| SOURCES.contains(&a.as_str())) {
        args = &args[1..];
    }
    if args.first().is_some_and(|a| a == "-d") {
        args = args.get(2..).unwrap_or(&[]);
    }
    let Some((command, rest)) = args.split_first() else {
        return ctx.fail(1, INPUT_USAGE);
    };
    let px_per_dp = f64::from(ctx.session.device().config().density) / 160.0;
    match command.as_str() {
        "tap" => match numbers(rest).as_deref() {
            Some(&[x, y]) => match ctx.act(&Action::Tap { x, y }) {
                Ok(_) => 0,
                Err(status) => status,
            },
            _ => invalid(ctx, "tap"),
        },
        "swipe" | "draganddrop" => {
            let Some(v) = numbers(rest).filter(|v| v.len() == 4 || v.len() == 5) else {
                return invalid(ctx, command);
            };
            let ms = v.get(4).map_or(DEFAULT_SWIPE_MS, |&ms| ms.max(0.0).round() as u64);
            let (x1, y1, x2, y2) = (v[0], v[1], v[2], v[3]);
            // Within the touch slop (8 dp) the finger did not move: a tap or a long press.
            let still = (x2 - x1).hypot(y2 - y1) <= 8.0 * px_per_dp;
            let action = if still {
                if ms >= LONG_PRESS_MS {
                    Action::LongPress { x: x1, y: y1, ms }
                } else {
                    Action::Tap { x: x1, y: y1 }
                }
            } else if command == "draganddrop" {
                Action::Drag { x1, y1, x2, y2, ms }
            } else {
                Action::Swipe { x1, y1, x2, y2, ms }
            };
            match ctx.act(&action) {
                Ok(_) => 0,
                Err(status) => status,
            }
        }
        "text" => {
            let Some(text) = rest.first() else {
                return invalid(ctx, "text");
            };
            let text = text.replace("%s", " ");
            if !text.is_empty() {
                if let Err(status) = ctx.act(&Action::TypeText { text, clear: false }) {
                    return status;
                }
            }
            0
        }
        "keyevent" => {
            let codes: Vec<&String> = rest.iter().filter(|a| !a.starts_with("--")).collect();
            if codes.is_empty() {
                return invalid(ctx, "keyevent");
            }
            let mut status = 0;
            for arg in codes {
                match keycode(arg) {
                    Some(code) => {
                        if let Some(action) = key_action(code) {
                            if let Err(status) = ctx.act(&action) {
                                return status;
                            }
                            ctx.pause();
                        }
                    }
                    None => status = ctx.fail(1, &format!("Error: Unknown keycode: {arg}")),
                }
            }
            status
        }
        "press" => match ctx.act(&Action::Key { key: Key::Enter }) {
            Ok(_) => 0,
            Err(status) => status,
        },
        other => ctx.fail(1, &format!("Error: Unknown command: {other}\n{INPUT_USAGE}")),
    }
}

/// `screencap [-p] [-d ID] [FILE]`: PNG with `-p` or a `.png` file name, else the raw format
/// (width, height, pixel format 1 = RGBA_8888, dataspace sRGB, then the pixels).
pub(crate) fn screencap(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let mut png = false;
    let mut file: Option<&str> = None;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "-p" => png = true,
            "-d" => i += 1,
            "-h" => {
                ctx.eprint("usage: screencap [-hp] [-d display-id] [FILENAME]\n   -h: this message\n   -p: save the file as a png.\n   -d: specify the physical display ID to capture (default: 0)\nIf FILENAME ends with .png it will be saved as a png.\nIf FILENAME is not given, the results will be printed to stdout.\n");
                return 0;
            }
            a if a.starts_with('-') => return ctx.fail(1, &format!("screencap: unknown option '{a}'")),
            a => file = Some(a),
        }
        i += 1;
    }
    if file.is_some_and(|f| f.ends_with(".png")) {
        png = true;
    }
    if let Err(status) = ctx.capture() {
        return status;
    }
    let bytes: Vec<u8> = if png {
        ctx.session.screenshot_png().to_vec()
    } else {
        let frame = ctx.session.device_mut().frame();
        let mut raw = Vec::with_capacity(16 + frame.pixels.len());
        for v in [frame.width, frame.height, 1, 0x0881_0000] {
            raw.extend_from_slice(&v.to_le_bytes());
        }
        raw.extend_from_slice(&frame.pixels);
        raw
    };
    match file {
        None | Some("/dev/stdout" | "/dev/tty" | "-") => {
            if ctx.write(&bytes) {
                0
            } else {
                1
            }
        }
        Some(name) => {
            if let Err(status) = ctx.charge(bytes.len()) {
                return status;
            }
            let now = ctx.session.clock_secs();
            match ctx.path(name).and_then(|p| ctx.session.files_mut().write(&p, &bytes, false, 0o660, now)) {
                Ok(()) => 0,
                Err(e) => ctx.fail(1, &format!("Error opening file: {name} ({})", e.to_string().rsplit(": ").next().unwrap_or(""))),
            }
        }
    }
}

/// `uiautomator dump [--compressed] [FILE]` (default `/sdcard/window_dump.xml`; `/dev/tty`
/// prints the XML).
pub(crate) fn uiautomator(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let Some((verb, rest)) = args.split_first() else {
        return ctx.fail(1, "Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help message\n\nruntest: executes UI automation tests\n\ndump: creates an XML dump of current UI hierarchy");
    };
    if verb != "dump" {
        return ctx.fail(1, &format!("Unknown command: {verb} (PhoneWorld supports `uiautomator dump`)"));
    }
    let file = rest.iter().find(|a| !a.starts_with("--")).map(String::as_str).unwrap_or("/sdcard/window_dump.xml");
    if let Err(status) = ctx.capture() {
        return status;
    }
    let xml = ctx.session.device_mut().ui_xml();
    if matches!(file, "/dev/tty" | "/dev/stdout") {
        ctx.print(&xml);
    } else {
        if let Err(status) = ctx.charge(xml.len()) {
            return status;
        }
        let now = ctx.session.clock_secs();
        if let Err(e) = ctx.path(file).and_then(|p| ctx.session.files_mut().write(&p, xml.as_bytes(), false, 0o660, now)) {
            return ctx.fail(1, &format!("ERROR: could not write {file}: {}", e.to_string().rsplit(": ").next().unwrap_or("")));
        }
    }
    // (sic): uiautomator's own spelling, which clients match.
    ctx.print(&format!("UI hierchary dumped to: {file}\n"));
    0
}

/// `wm size` / `wm density` (the mock's screen is fixed when the phone is created).
pub(crate) fn wm(ctx: &mut Ctx<'_>, args: &[String]) -> u8 {
    let config = *ctx.session.device().config();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["size"] => {
            ctx.print(&format!("Physical size: {}x{}\n", config.width, config.height));
            0
        }
        ["density"] => {
            ctx.print(&format!("Physical density: {}\n", config.density));
            0
        }
        ["size" | "density", "reset"] => 0,
        [what @ ("size" | "density"), value] => ctx.fail(
            1,
            &format!(
                "wm {what} {value}: PhoneWorld's screen is {}x{} at {} dpi, fixed when the phone is created",
                config.width, config.height, config.density
            ),
        ),
        _ => ctx.fail(1, "usage: wm size [reset|WxH]\n       wm density [reset|DENSITY]"),
    }
}
