//! [`AdbPhone`]: a phone behind an adb server, with the mock phone's observations (screenshot,
//! UI elements, uiautomator XML, foreground app, screen size) and canonical actions, each
//! carried out with one shell round trip.

use std::time::Duration;

use base64::Engine;
use phoneworld_data::{Action, FinishStatus, Key, UiElement};
use phoneworld_render::Frame;

use crate::client::{AdbClient, AdbDevice, AdbError, ShellResult};
use crate::uixml::{extract_xml, ui_elements_from_xml};

/// Where `ui_xml` dumps the hierarchy on the device.
const DUMP_PATH: &str = "/sdcard/window_dump.xml";

/// Quotes one shell word with single quotes.
pub fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// A coordinate as `input` takes it: integers without a fraction.
fn num(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// The `input keyevent` code of a canonical key.
pub fn keycode(key: Key) -> u32 {
    match key {
        Key::Back => 4,
        Key::Home => 3,
        Key::Enter => 66,
        Key::Recents => 187,
        Key::Delete => 67,
        Key::Menu => 82,
    }
}

/// The shell command that performs `action` on an Android device, or why there is none.
/// `phoneworld`: the device is a PhoneWorld mock (answers and finishes go to its verifier).
pub fn action_command(action: &Action, phoneworld: bool) -> Result<String, AdbError> {
    Ok(match action {
        Action::Tap { x, y } => format!("input tap {} {}", num(*x), num(*y)),
        Action::DoubleTap { x, y } => format!("input tap {0} {1}; input tap {0} {1}", num(*x), num(*y)),
        Action::LongPress { x, y, ms } => format!("input swipe {0} {1} {0} {1} {ms}", num(*x), num(*y)),
        Action::Swipe { x1, y1, x2, y2, ms } => format!("input swipe {} {} {} {} {ms}", num(*x1), num(*y1), num(*x2), num(*y2)),
        Action::Drag { x1, y1, x2, y2, ms } => format!("input draganddrop {} {} {} {} {ms}", num(*x1), num(*y1), num(*x2), num(*y2)),
        Action::TypeText { text, clear } => {
            let mut parts = Vec::new();
            if *clear {
                // Needs ADBKeyboard as the input method on a real phone.
                parts.push("am broadcast -a ADB_CLEAR_TEXT".to_owned());
            }
            if text.is_ascii() {
                if !text.is_empty() {
                    // `input text` turns %s into a space; single quotes keep the rest literal.
                    parts.push(format!("input text {}", shell_quote(&text.replace(' ', "%s"))));
                }
            } else {
                let encoded = base64::engine::general_purpose::STANDARD.encode(text.as_bytes());
                parts.push(format!("am broadcast -a ADB_INPUT_B64 --es msg {encoded}"));
            }
            if parts.is_empty() {
                return Err(AdbError::Unsupported { action: "type_text".into(), reason: "the text is empty".into() });
            }
            parts.join("; ")
        }
        Action::Key { key } => format!("input keyevent {}", keycode(*key)),
        Action::OpenApp { app } => format!("monkey -p {} -c android.intent.category.LAUNCHER 1", shell_quote(app)),
        Action::CloseApp { app } => format!("am force-stop {}", shell_quote(app)),
        Action::Wait { ms } => format!("sleep {}", num(*ms as f64 / 1000.0)),
        Action::Answer { text } if phoneworld => format!("phoneworld answer {}", shell_quote(text)),
        Action::Finish { status, text } if phoneworld => {
            let status = match status {
                FinishStatus::Success => "success",
                FinishStatus::Infeasible => "infeasible",
            };
            if text.is_empty() {
                format!("phoneworld finish {status}")
            } else {
                format!("phoneworld finish {status} {}", shell_quote(text))
            }
        }
        Action::Answer { .. } | Action::Finish { .. } => {
            return Err(AdbError::Unsupported {
                action: action.kind().to_owned(),
                reason: "a real phone has no verifier; record the answer on the host".into(),
            })
        }
    })
}

/// What one action did on the device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdbStep {
    /// The shell command sent.
    pub command: String,
    pub result: ShellResult,
}

/// The foreground app as the window manager reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForegroundApp {
    pub package: String,
    pub activity: String,
}

/// Parses `Physical size: WxH` (or the `Override size:` line, which wins).
pub fn parse_wm_size(text: &str) -> Option<(u32, u32)> {
    let pick = |prefix: &str| {
        text.lines().find_map(|l| l.trim().strip_prefix(prefix)).and_then(|s| {
            let (w, h) = s.trim().split_once('x')?;
            Some((w.trim().parse().ok()?, h.trim().parse().ok()?))
        })
    };
    pick("Override size:").or_else(|| pick("Physical size:"))
}

/// Finds the focused `package/activity` in `dumpsys window` output.
pub fn parse_focus(text: &str) -> Option<ForegroundApp> {
    let focus = regex::Regex::new(r"mCurrentFocus=Window\{\S+ \S+ ([^/\s}]+)/([^\s}]+)\}").ok()?;
    let app = regex::Regex::new(r"mFocusedApp=.*?\{\S+ \S+ ([^/\s}]+)/([^\s}]+)").ok()?;
    let caps = focus.captures(text).or_else(|| app.captures(text))?;
    Some(ForegroundApp { package: caps[1].to_owned(), activity: caps[2].to_owned() })
}

/// A phone driven through an adb server, with the mock phone's interface.
#[derive(Debug, Clone)]
pub struct AdbPhone {
    device: AdbDevice,
    size: (u32, u32),
    phoneworld: bool,
}

impl AdbPhone {
    /// Connects to the device `serial` of the server `client` talks to: checks that it is
    /// online (offline, unauthorized and missing devices are distinct errors) and reads its
    /// screen size.
    pub fn connect(client: &AdbClient, serial: &str) -> Result<AdbPhone, AdbError> {
        let state = client.state(serial)?;
        if state != "device" {
            return Err(match state.as_str() {
                "unauthorized" => AdbError::DeviceUnauthorized { serial: serial.to_owned() },
                _ => AdbError::DeviceOffline { serial: serial.to_owned() },
            });
        }
        let device = client.device(serial);
        let probe = device.shell_ok("wm size; getprop ro.product.manufacturer")?.stdout_text();
        let size = parse_wm_size(&probe).ok_or_else(|| AdbError::Protocol { operation: "wm size".into(), message: probe.clone() })?;
        let phoneworld = probe.lines().any(|l| l.trim() == "PhoneWorld");
        Ok(AdbPhone { device, size, phoneworld })
    }

    pub fn device(&self) -> &AdbDevice {
        &self.device
    }

    pub fn serial(&self) -> &str {
        self.device.serial()
    }

    /// Width and height in pixels.
    pub fn screen_size(&self) -> (u32, u32) {
        self.size
    }

    /// Is the device a PhoneWorld mock (so answers and finishes reach its verifier)?
    pub fn is_phoneworld(&self) -> bool {
        self.phoneworld
    }

    /// The screen as PNG bytes (`exec:screencap -p`).
    pub fn screenshot_png(&self) -> Result<Vec<u8>, AdbError> {
        let png = self.device.exec("screencap -p")?;
        if !png.starts_with(b"\x89PNG\r\n\x1a\n") {
            let head = String::from_utf8_lossy(&png[..png.len().min(120)]).into_owned();
            return Err(AdbError::Image(format!("screencap did not return a PNG: {head:?}")));
        }
        Ok(png)
    }

    /// The screen decoded to an RGBA frame.
    pub fn screenshot(&self) -> Result<Frame, AdbError> {
        decode_png(&self.screenshot_png()?)
    }

    /// The uiautomator dump XML (one round trip: dump, then cat).
    pub fn ui_xml(&self) -> Result<String, AdbError> {
        let command = format!("uiautomator dump {DUMP_PATH} && cat {DUMP_PATH}");
        let out = self.device.shell_with_timeout(&command, self.device.client().timeout().max(Duration::from_secs(20)))?;
        let text = out.stdout_text();
        if out.status != 0 {
            return Err(AdbError::CommandFailed {
                command,
                status: out.status,
                stderr: format!("{}{}", out.stderr_text(), text).trim().to_owned(),
            });
        }
        extract_xml(&text).map(str::to_owned).ok_or_else(|| {
            AdbError::Xml(format!("no hierarchy in the output of `{command}`: {:?}", text.chars().take(200).collect::<String>()))
        })
    }

    /// The UI elements of the current screen (see [`ui_elements_from_xml`]).
    pub fn ui_elements(&self) -> Result<Vec<UiElement>, AdbError> {
        let xml = self.ui_xml()?;
        ui_elements_from_xml(&xml, self.size.0, self.size.1).map_err(|e| AdbError::Xml(e.to_string()))
    }

    /// The foreground app (`dumpsys window`).
    pub fn foreground(&self) -> Result<ForegroundApp, AdbError> {
        let out = self.device.shell_ok("dumpsys window")?.stdout_text();
        parse_focus(&out).ok_or_else(|| AdbError::Protocol {
            operation: "dumpsys window".into(),
            message: "no mCurrentFocus or mFocusedApp line".into(),
        })
    }

    /// Performs one canonical action. A failing command (non-zero status, or an app that does
    /// not exist) is an error.
    pub fn step(&self, action: &Action) -> Result<AdbStep, AdbError> {
        let command = action_command(action, self.phoneworld)?;
        let extra = Duration::from_millis(action.duration_ms());
        let result = self.device.shell_with_timeout(&command, self.device.client().timeout() + extra)?;
        let failed_launch =
            matches!(action, Action::OpenApp { .. }) && String::from_utf8_lossy(&result.stderr).contains("No activities found");
        if result.status != 0 || failed_launch {
            return Err(AdbError::CommandFailed { command, status: result.status, stderr: result.stderr_text().trim().to_owned() });
        }
        Ok(AdbStep { command, result })
    }
}

/// Decodes a PNG into an RGBA frame (gray, RGB and palette images are expanded).
pub fn decode_png(bytes: &[u8]) -> Result<Frame, AdbError> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(|e| AdbError::Image(e.to_string()))?;
    let mut buf = vec![0u8; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).map_err(|e| AdbError::Image(e.to_string()))?;
    buf.truncate(info.buffer_size());
    let pixels = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf.chunks_exact(3).flat_map(|p| [p[0], p[1], p[2], 255]).collect(),
        png::ColorType::GrayscaleAlpha => buf.chunks_exact(2).flat_map(|p| [p[0], p[0], p[0], p[1]]).collect(),
        png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => return Err(AdbError::Image("palette PNG was not expanded".into())),
    };
    Ok(Frame { width: info.width, height: info.height, pixels })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_become_shell_commands() {
        let cmd = |a: Action| action_command(&a, true).unwrap();
        assert_eq!(cmd(Action::Tap { x: 540.0, y: 1200.5 }), "input tap 540 1200.5");
        assert_eq!(cmd(Action::LongPress { x: 1.0, y: 2.0, ms: 800 }), "input swipe 1 2 1 2 800");
        assert_eq!(
            cmd(Action::TypeText { text: "it's a $test; rm -rf /".into(), clear: false }),
            r"input text 'it'\''s%sa%s$test;%srm%s-rf%s/'"
        );
        assert_eq!(
            cmd(Action::TypeText { text: "héllo".into(), clear: true }),
            "am broadcast -a ADB_CLEAR_TEXT; am broadcast -a ADB_INPUT_B64 --es msg aMOpbGxv"
        );
        assert_eq!(cmd(Action::Key { key: Key::Recents }), "input keyevent 187");
        assert_eq!(cmd(Action::Wait { ms: 1500 }), "sleep 1.5");
        assert_eq!(cmd(Action::OpenApp { app: "com.x".into() }), "monkey -p 'com.x' -c android.intent.category.LAUNCHER 1");
        let err = action_command(&Action::Answer { text: "4".into() }, false).unwrap_err();
        assert!(matches!(err, AdbError::Unsupported { .. }), "{err}");
    }

    #[test]
    fn parses_wm_size_and_focus() {
        assert_eq!(parse_wm_size("Physical size: 1080x2400\n"), Some((1080, 2400)));
        assert_eq!(parse_wm_size("Physical size: 1080x2400\nOverride size: 720x1600\n"), Some((720, 1600)));
        let f = parse_focus("  mCurrentFocus=Window{3c5a1f2 u0 com.android.settings/com.android.settings.Settings}\n").unwrap();
        assert_eq!((f.package.as_str(), f.activity.as_str()), ("com.android.settings", "com.android.settings.Settings"));
        let f = parse_focus("  mCurrentFocus=null\n  mFocusedApp=ActivityRecord{9f u0 com.x/.Main t12}\n").unwrap();
        assert_eq!(f.package, "com.x");
        assert!(parse_focus("nothing").is_none());
    }
}
