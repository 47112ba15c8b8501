//! The device shell: the interpreter's language, file commands, and Android's device commands
//! acting on the mock phone the way the same canonical actions do.

mod common;

use phoneworld_adb::shell::run;
use phoneworld_adb::{action_command, decode_png, PhoneSession};
use phoneworld_data::{Action, Key};
use phoneworld_tasks::Oracle;

fn sh(session: &mut PhoneSession, line: &str) -> (String, String, u8) {
    let out = run(session, line);
    (String::from_utf8_lossy(&out.stdout()).into_owned(), String::from_utf8_lossy(&out.stderr()).into_owned(), out.status)
}

fn stdout(session: &mut PhoneSession, line: &str) -> String {
    let (out, err, status) = sh(session, line);
    assert_eq!(status, 0, "`{line}` failed: {err}");
    out
}

#[test]
fn quoting_lists_and_exit_status() {
    let mut s = common::session(0);
    assert_eq!(stdout(&mut s, r#"echo 'a  b' "c $? d" e\ f"#), "a  b c 0 d e f\n");
    assert_eq!(stdout(&mut s, "false; echo $?; true && echo yes || echo no; false || echo fallback"), "1\nyes\nfallback\n");
    assert_eq!(stdout(&mut s, "false && echo skipped; echo $?"), "1\n");
    // adbutils' shell2 appends this to every command.
    assert_eq!(stdout(&mut s, "ls /nope; echo X4EXIT:$?"), "X4EXIT:1\n");
    assert_eq!(sh(&mut s, "nosuchcmd"), (String::new(), "/system/bin/sh: nosuchcmd: inaccessible or not found\n".into(), 127));
    assert_eq!(sh(&mut s, "exit 3; echo unreachable").2, 3);
    assert_eq!(sh(&mut s, "echo 'open").2, 1);
    assert_eq!(sh(&mut s, "echo a &&").2, 2);
    assert_eq!(stdout(&mut s, "! false && echo negated"), "negated\n");
    assert_eq!(stdout(&mut s, "sh -c 'echo inner; exit 4'; echo $?"), "inner\n4\n");
}

#[test]
fn pipes_grep_and_redirections() {
    let mut s = common::session(0);
    assert_eq!(stdout(&mut s, "printf 'one\\ntwo\\nthree\\n' | grep -E 't(wo|hree)'"), "two\nthree\n");
    assert_eq!(stdout(&mut s, "printf 'a+b\\nab\\n' | grep 'a+b'"), "a+b\n", "basic regex: + is literal");
    assert_eq!(sh(&mut s, "echo hi | grep -q nope").2, 1);
    assert_eq!(stdout(&mut s, "echo first > /sdcard/f.txt; echo second >> /sdcard/f.txt; cat /sdcard/f.txt"), "first\nsecond\n");
    assert_eq!(stdout(&mut s, "cat < /sdcard/f.txt | wc -l"), "2\n");
    assert_eq!(sh(&mut s, "cat /missing 2>/dev/null"), (String::new(), String::new(), 1));
    assert_eq!(stdout(&mut s, "cat /missing 2>&1 | grep -c 'No such file'"), "1\n");
    assert_eq!(stdout(&mut s, "cat /missing > /sdcard/err.txt 2>&1; cat /sdcard/err.txt"), "cat: /missing: No such file or directory\n");
    let (_, err, status) = sh(&mut s, "echo x > /no/such/dir/file");
    assert_eq!(status, 1);
    assert!(err.contains("can't open /no/such/dir/file"), "{err}");
    assert_eq!(stdout(&mut s, "echo a b c | head -n 1; printf '1\\n2\\n3\\n' | tail -n 2"), "a b c\n2\n3\n");
}

#[test]
fn file_commands_work_on_the_devices_files_only() {
    let mut s = common::session(0);
    assert_eq!(stdout(&mut s, "mkdir -p /sdcard/a/b && cd /sdcard/a && pwd && ls"), "/sdcard/a\nb\n");
    let (_, err, status) = sh(&mut s, "mkdir /sdcard/a");
    assert_eq!((err.as_str(), status), ("mkdir: '/sdcard/a': File exists\n", 1));
    assert_eq!(sh(&mut s, "rm /sdcard/a").1, "rm: /sdcard/a: Is a directory\n");
    assert_eq!(stdout(&mut s, "rm -r /sdcard/a; ls /sdcard/a 2>&1; echo $?"), "ls: /sdcard/a: No such file or directory\n1\n");
    assert_eq!(stdout(&mut s, "rm -f /sdcard/never; echo $?"), "0\n");
    // Climbing out of / is refused; host paths do not exist on the device.
    assert_eq!(sh(&mut s, "cat /../../etc/passwd").2, 1);
    assert_eq!(sh(&mut s, "cat /etc/passwd").1, "cat: /etc/passwd: No such file or directory\n");
    assert_eq!(stdout(&mut s, "echo data > /data/local/tmp/x; cp /data/local/tmp/x /sdcard/; mv /sdcard/x /sdcard/y; cat /sdcard/y; ls /sdcard/x 2>/dev/null || echo moved"), "data\nmoved\n");
    assert!(
        std::fs::metadata("/data/local/tmp/x").is_err() || !std::path::Path::new("/sdcard/y").exists(),
        "nothing was written to the host"
    );
}

#[test]
fn input_commands_are_the_canonical_actions() {
    let mut via_shell = common::session(2);
    let mut direct = common::device(2);
    let (x, y) = common::center_of(&mut direct, "Clock");
    let script = [
        (format!("input tap {x} {y}"), Action::Tap { x, y }),
        ("input keyevent KEYCODE_BACK".to_owned(), Action::Key { key: Key::Back }),
        ("input swipe 540 1800 540 600 300".to_owned(), Action::Swipe { x1: 540.0, y1: 1800.0, x2: 540.0, y2: 600.0, ms: 300 }),
        ("input touchscreen swipe 540 600 540 1800".to_owned(), Action::Swipe { x1: 540.0, y1: 600.0, x2: 540.0, y2: 1800.0, ms: 300 }),
        (format!("input swipe {x} {y} {x} {y} 1000"), Action::LongPress { x, y, ms: 1000 }),
        ("input keyevent 3".to_owned(), Action::Key { key: Key::Home }),
        (
            "monkey -p com.phoneworld.notes -c android.intent.category.LAUNCHER 1".to_owned(),
            Action::OpenApp { app: "com.phoneworld.notes".into() },
        ),
        ("am force-stop com.phoneworld.notes".to_owned(), Action::CloseApp { app: "com.phoneworld.notes".into() }),
        ("sleep 2".to_owned(), Action::Wait { ms: 2000 }),
    ];
    for (command, action) in &script {
        let (_, err, status) = sh(&mut via_shell, command);
        assert_eq!(status, 0, "{command}: {err}");
        direct.step(action);
        assert_eq!(via_shell.device().state_hash(), direct.state_hash(), "after `{command}`");
    }
    assert_eq!(sh(&mut via_shell, "input tap 1").2, 1);
    assert!(sh(&mut via_shell, "input keyevent KEYCODE_NOPE").1.contains("Unknown keycode"));
}

#[test]
fn every_canonical_action_round_trips_through_its_shell_command() {
    // The commands AdbPhone sends, run by the mock's shell, do what the action does directly.
    let mut via_shell = common::session(5);
    let mut direct = common::device(5);
    let notes = "com.phoneworld.notes";
    let actions = [
        Action::OpenApp { app: notes.into() },
        Action::Key { key: Key::Back },
        Action::OpenApp { app: notes.into() },
        Action::Swipe { x1: 540.0, y1: 1500.0, x2: 540.0, y2: 900.0, ms: 250 },
        Action::Drag { x1: 540.0, y1: 1500.0, x2: 540.0, y2: 1000.0, ms: 900 },
        Action::Wait { ms: 700 },
        Action::Key { key: Key::Recents },
        Action::Key { key: Key::Home },
        Action::CloseApp { app: notes.into() },
        Action::Answer { text: "it's 42 $HOME; `x`".into() },
        Action::Finish { status: phoneworld_data::FinishStatus::Success, text: String::new() },
    ];
    for action in &actions {
        let command = action_command(action, true).unwrap();
        let (_, err, status) = sh(&mut via_shell, &command);
        assert_eq!(status, 0, "{command}: {err}");
        direct.step(action);
        assert_eq!(via_shell.device().state_hash(), direct.state_hash(), "after {action:?} as `{command}`");
    }
    assert_eq!(via_shell.device().store().session.answer.as_deref(), Some("it's 42 $HOME; `x`"));
}

#[test]
fn screencap_uiautomator_and_wm() {
    let mut s = common::session(0);
    let frame = s.device_mut().frame();
    let png = run(&mut s, "screencap -p").stdout();
    assert_eq!(decode_png(&png).unwrap(), *frame, "screencap -p is the frame, losslessly");
    assert_eq!(stdout(&mut s, "screencap -p /sdcard/s.png; echo $?"), "0\n");
    assert_eq!(s.files().read("/sdcard/s.png").unwrap().as_slice(), png.as_slice());
    let raw = run(&mut s, "screencap").stdout();
    assert_eq!(&raw[..12], [1080u32.to_le_bytes(), 2400u32.to_le_bytes(), 1u32.to_le_bytes()].concat());
    assert_eq!(&raw[16..], frame.pixels.as_slice());

    let xml = s.device_mut().ui_xml();
    assert_eq!(stdout(&mut s, "uiautomator dump"), "UI hierchary dumped to: /sdcard/window_dump.xml\n");
    assert_eq!(s.files().read("/sdcard/window_dump.xml").unwrap().as_slice(), xml.as_bytes());
    assert_eq!(stdout(&mut s, "uiautomator dump /dev/tty"), format!("{xml}UI hierchary dumped to: /dev/tty\n"));
    // adbutils' dump_hierarchy.
    assert_eq!(
        stdout(&mut s, "rm -f /data/local/tmp/uidump.xml; uiautomator dump /data/local/tmp/uidump.xml && echo success"),
        "UI hierchary dumped to: /data/local/tmp/uidump.xml\nsuccess\n"
    );
    // AppAgent takes `split(": ")[1]`, so there must be no Override line.
    assert_eq!(stdout(&mut s, "wm size"), "Physical size: 1080x2400\n");
    assert_eq!(stdout(&mut s, "wm density"), "Physical density: 420\n");
    assert_eq!(sh(&mut s, "wm size 720x1280").2, 1);
}

#[test]
fn system_properties_and_settings() {
    let mut s = common::session(0);
    assert_eq!(stdout(&mut s, "getprop ro.build.version.sdk"), "34\n");
    assert_eq!(stdout(&mut s, "getprop ro.product.model; getprop ro.sf.lcd_density; getprop no.such.prop"), "PhoneWorld\n420\n\n");
    assert_eq!(stdout(&mut s, "whoami"), "root\n");
    assert_eq!(
        stdout(&mut s, "settings get secure ui_night_mode; settings put secure ui_night_mode 2; settings get secure ui_night_mode"),
        "1\n2\n"
    );
    assert_eq!(s.device().store().system["dark_theme"], serde_json::json!(true), "settings put reaches the store");
    assert_eq!(stdout(&mut s, "settings get global nonexistent_key"), "null\n");
    assert_eq!(stdout(&mut s, "settings put global my_key 7; settings get global my_key"), "7\n");
    assert_eq!(stdout(&mut s, "settings get secure default_input_method"), "com.android.adbkeyboard/.AdbIME\n");
    assert_eq!(sh(&mut s, "settings get nowhere x").2, 1);
    assert_eq!(stdout(&mut s, "date +%Y-%m-%d"), "2025-10-15\n");
}

#[test]
fn activity_manager_package_manager_and_dumps() {
    let mut s = common::session(0);
    let packages = stdout(&mut s, "pm list packages");
    assert!(packages.lines().any(|l| l == "package:com.phoneworld.clock"), "{packages}");
    assert!(packages.lines().all(|l| l.starts_with("package:")));
    assert_eq!(stdout(&mut s, "pm list packages -f clock"), "package:/data/app/com.phoneworld.clock/base.apk=com.phoneworld.clock\n");

    let out = stdout(&mut s, "am start -W -n com.phoneworld.clock/.MainActivity");
    assert!(out.starts_with("Starting: Intent { cmp=com.phoneworld.clock/.MainActivity }\nStatus: ok\n"), "{out}");
    assert_eq!(s.device().foreground().0, "com.phoneworld.clock");
    // adbutils app_current and android_env's visible-task filter.
    let window = stdout(&mut s, "dumpsys window windows");
    assert!(regex::Regex::new(r"mCurrentFocus=Window\{.*\s+com\.phoneworld\.clock/[^\s]+\}").unwrap().is_match(&window), "{window}");
    assert_eq!(stdout(&mut s, "dumpsys window | grep mCurrentRotation"), "    mCurrentRotation=ROTATION_0\n");
    let visible = stdout(&mut s, "am stack list | grep -E visible=true");
    assert_eq!(visible.lines().count(), 1);
    assert!(visible.contains("topActivity=ComponentInfo{com.phoneworld.clock/com.phoneworld.clock.MainActivity}"), "{visible}");
    assert!(stdout(&mut s, "dumpsys activity activities").contains("mResumedActivity: ActivityRecord{"));
    assert_eq!(stdout(&mut s, "dumpsys input | grep logicalFrame").lines().count(), 2);
    assert!(stdout(&mut s, "dumpsys input").contains("SurfaceOrientation: 0"));
    let display = stdout(&mut s, "dumpsys display");
    assert!(regex::Regex::new(r"DisplayViewport\{valid=true, .*orientation=0, .*deviceWidth=1080, deviceHeight=2400")
        .unwrap()
        .is_match(&display));
    assert!(stdout(&mut s, "dumpsys input_method").contains("mInputShown=false"));

    let (out, err, status) = sh(&mut s, "am start -n com.nope/.Main");
    assert_eq!(status, 1);
    assert!(out.starts_with("Starting:") && err.contains("Error: Activity class {com.nope/.Main} does not exist."), "{err}");
    assert_eq!(sh(&mut s, "monkey -p com.nope -c android.intent.category.LAUNCHER 1").2, 251);
    stdout(&mut s, "am start -a android.intent.action.MAIN -c android.intent.category.HOME");
    assert_eq!(s.device().foreground().1, "home");
    stdout(&mut s, "am start -a android.intent.action.VIEW -d clock://alarm");
    assert_eq!(s.device().foreground(), ("com.phoneworld.clock".to_owned(), "alarm_edit".to_owned()), "deep link");
    assert_eq!(sh(&mut s, "am start -a android.intent.action.VIEW -d nowhere://x").2, 1);
    assert_eq!(sh(&mut s, "pm grant com.nope android.permission.CAMERA").2, 255);
    assert_eq!(stdout(&mut s, "pm grant com.phoneworld.clock android.permission.CAMERA; echo $?"), "0\n");
}

#[test]
fn keyboard_broadcasts_and_clipboard() {
    let mut s = common::session(0);
    stdout(&mut s, "am broadcast -a clipper.set -e text 'copied text'");
    assert_eq!(s.device().store().session.clipboard, "copied text");
    assert_eq!(
        stdout(&mut s, "am broadcast -a clipper.get"),
        "Broadcasting: Intent { act=clipper.get flg=0x400000 }\nBroadcast completed: result=-1, data=\"copied text\"\n"
    );
    // ADBKeyboard types into the focused field; a fresh phone has none, so these are no-op steps.
    let mut direct = common::device(0);
    direct.step(&Action::TypeText { text: "héllo wörld".into(), clear: false });
    direct.step(&Action::TypeText { text: "日本".into(), clear: false });
    stdout(&mut s, "am broadcast -a ADB_INPUT_TEXT --es msg 'héllo wörld'");
    stdout(&mut s, "am broadcast -a ADB_INPUT_B64 --es msg 5pel5pys");
    let mut direct_state = direct.store().clone();
    direct_state.session.clipboard = "copied text".into();
    assert_eq!(serde_json::to_value(s.device().store()).unwrap(), serde_json::to_value(&direct_state).unwrap());
    assert_eq!(sh(&mut s, "am broadcast -a ADB_INPUT_B64 --es msg '***'").2, 1);
}

#[test]
fn phoneworld_commands_finish_an_episode() {
    let mut bare = common::session(0);
    assert_eq!(sh(&mut bare, "phoneworld task").2, 1);
    assert_eq!(sh(&mut bare, "phoneworld verdict").2, 1);
    let hash = stdout(&mut bare, "phoneworld state-hash");
    assert_eq!(hash.trim(), bare.device().state_hash());

    let phone = common::task_phone("browser_settings", 1);
    let mut session = phone.lock();
    let instruction = stdout(&mut session, "phoneworld task");
    assert!(instruction.starts_with("In the Browser, switch the search engine to"), "{instruction}");
    let verdict: serde_json::Value = serde_json::from_str(&stdout(&mut session, "phoneworld verdict")).unwrap();
    assert_eq!(verdict["success"], false, "nothing done yet");
    // Play the reference solution as the ADB commands an agent would send.
    let instance = session.task().unwrap().instance.clone();
    let mut oracle = Oracle::new(instance.template.solution.clone(), instance.params.clone());
    let mut sent = 0;
    while let Some(action) = oracle.next_action(session.device_mut()).unwrap() {
        let command = action_command(&action, true).unwrap();
        let (_, err, status) = sh(&mut session, &command);
        assert_eq!(status, 0, "{command}: {err}");
        sent += 1;
        assert!(sent < 50);
    }
    stdout(&mut session, "phoneworld finish success");
    let verdict: serde_json::Value = serde_json::from_str(&stdout(&mut session, "phoneworld verdict")).unwrap();
    assert_eq!(verdict["success"], true, "{verdict}");
    assert_eq!(verdict["finished"], "success");
    assert_eq!(verdict["task"], "browser_settings");
}
