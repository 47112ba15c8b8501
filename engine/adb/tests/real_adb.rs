//! Real clients on loopback: Debian's `adb` (its own server on a free port, an isolated HOME)
//! drives the mock phone served by `AdbServer`; the Rust client and `AdbPhone` go through that
//! adb server and must see exactly what the device shows directly. Timeouts, unauthorized keys
//! and a device vanishing mid-session give their typed errors.

mod common;

use std::time::{Duration, Instant};

use common::adb::{temp_dir, AdbHost};
use phoneworld_adb::{
    decode_png, AdbClient, AdbError, AdbPhone, AdbPublicKey, AdbServer, AuthPolicy, ServerHandle, ServerOptions, SharedPhone,
};
use phoneworld_data::{Action, Key, UiElement};

const T: Duration = Duration::from_secs(20);

fn serve(phone: SharedPhone, options: ServerOptions) -> (ServerHandle, String) {
    let server = AdbServer::bind("127.0.0.1:0", phone, options).expect("serve");
    let addr = server.local_addr().to_string();
    (server, addr)
}

#[test]
fn adb_cli_drives_the_mock_phone() {
    let phone = SharedPhone::from_session(common::session(0));
    let (server, addr) = serve(phone.clone(), ServerOptions::default());
    let host = AdbHost::start();
    let serial = host.connect(&addr);

    let devices = host.adb(&["devices"], T).text();
    assert!(devices.lines().any(|l| l == format!("{serial}\tdevice")), "{devices}");

    let run = host.adb(&["-s", &serial, "shell", "wm", "size"], T);
    assert_eq!((run.status, run.text().as_str()), (0, "Physical size: 1080x2400\n"));
    assert_eq!(host.adb(&["-s", &serial, "shell", "false"], T).status, 1, "exit codes come back through shell v2");
    assert_eq!(host.adb(&["-s", &serial, "shell", "exit 7"], T).status, 7);
    let run = host.adb(&["-s", &serial, "shell", "cat /nope"], T);
    assert_eq!((run.status, run.stderr.as_str()), (1, "cat: /nope: No such file or directory\n"));

    let png = host.adb(&["-s", &serial, "exec-out", "screencap", "-p"], T).stdout;
    let frame = phone.lock().device_mut().frame();
    assert_eq!(decode_png(&png).expect("a PNG"), *frame, "exec-out screencap -p is the engine's frame");

    let scratch = temp_dir("push");
    let local = scratch.join("in.bin");
    let content: Vec<u8> = (0..300_000u32).map(|i| (i * 7 % 256) as u8).collect();
    std::fs::write(&local, &content).unwrap();
    let run = host.adb(&["-s", &serial, "push", local.to_str().unwrap(), "/sdcard/Download/deep/in.bin"], T);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(phone.lock().files().read("/sdcard/Download/deep/in.bin").unwrap().as_slice(), content.as_slice());
    let back = scratch.join("out.bin");
    let run = host.adb(&["-s", &serial, "pull", "/sdcard/Download/deep/in.bin", back.to_str().unwrap()], T);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(std::fs::read(&back).unwrap(), content);
    assert_ne!(host.adb(&["-s", &serial, "pull", "/sdcard/missing.txt", back.to_str().unwrap()], T).status, 0);
    let _ = std::fs::remove_dir_all(&scratch);

    let run = host.adb(&["-s", &serial, "shell", "uiautomator", "dump"], T);
    assert_eq!(run.text(), "UI hierchary dumped to: /sdcard/window_dump.xml\n");
    let xml = host.adb(&["-s", &serial, "shell", "cat", "/sdcard/window_dump.xml"], T).text();
    assert_eq!(xml, phone.lock().device_mut().ui_xml());

    // What the device shell changed is what the phone shows.
    let run = host.adb(&["-s", &serial, "shell", "monkey -p com.phoneworld.clock -c android.intent.category.LAUNCHER 1"], T);
    assert_eq!(run.status, 0, "{}", run.stderr);
    assert_eq!(phone.lock().device().foreground().0, "com.phoneworld.clock");
    assert_eq!(host.adb(&["-s", &serial, "root"], T).text(), "adbd is already running as root\n");
    assert!(server.errors().is_empty(), "{:?}", server.errors());
}

/// UI elements as uiautomator's XML can carry them (it has no hint texts).
fn as_in_xml(mut elements: Vec<UiElement>) -> Vec<UiElement> {
    for e in &mut elements {
        e.hint_text = None;
    }
    elements
}

#[test]
fn adb_phone_sees_what_the_device_shows() {
    let seed = 3;
    let mut direct = common::device(seed);
    let served = SharedPhone::from_session(common::session(seed));
    let (_server, addr) = serve(served.clone(), ServerOptions::default());
    let host = AdbHost::start();
    let serial = host.connect(&addr);
    let client = host.client();
    assert_eq!(client.version().unwrap(), 41);
    assert!(client.devices().unwrap().iter().any(|d| d.serial == serial && d.state == "device"));
    assert!(client.device(&serial).features().unwrap().contains(&"shell_v2".to_owned()));

    let phone = AdbPhone::connect(&client, &serial).unwrap();
    assert_eq!(phone.screen_size(), (1080, 2400));
    assert!(phone.is_phoneworld());

    let (cx, cy) = common::center_of(&mut direct, "Clock");
    let script = [
        Action::Tap { x: cx, y: cy },
        Action::Key { key: Key::Back },
        Action::OpenApp { app: "com.phoneworld.notes".into() },
        Action::Swipe { x1: 540.0, y1: 1600.0, x2: 540.0, y2: 900.0, ms: 300 },
        Action::Wait { ms: 1200 },
        Action::Key { key: Key::Home },
        Action::LongPress { x: cx, y: cy, ms: 800 },
        Action::Key { key: Key::Back },
        Action::CloseApp { app: "com.phoneworld.notes".into() },
        Action::Answer { text: "done, it's 9:00".into() },
    ];
    for action in &script {
        phone.step(action).unwrap_or_else(|e| panic!("{action:?}: {e}"));
        direct.step(action);
        assert_eq!(phone.ui_xml().unwrap(), direct.ui_xml(), "XML after {action:?}");
    }
    assert_eq!(phone.screenshot().unwrap(), *direct.frame());
    assert_eq!(phone.ui_elements().unwrap(), as_in_xml(direct.ui_elements()));
    assert_eq!(phone.foreground().unwrap().package, direct.foreground().0);
    // The in-process phone went through exactly the same states (ui_xml leaves no trace in them).
    assert_eq!(served.lock().device().state_hash(), direct.state_hash());

    let device = client.device(&serial);
    device.push(b"hello", "/sdcard/Documents/a.txt", 0o644, 1_700_000_000).unwrap();
    assert_eq!(device.pull("/sdcard/Documents/a.txt").unwrap(), b"hello");
    let stat = device.stat("/sdcard/Documents/a.txt").unwrap();
    assert_eq!((stat.size, stat.mtime, stat.mode & 0o777), (5, 1_700_000_000, 0o644));
    assert!(!device.stat("/sdcard/nope").unwrap().exists());
    assert!(matches!(device.pull("/sdcard/nope"), Err(AdbError::Sync { .. })));
    let result = device.shell("echo out; echo err >&2; exit 3").unwrap();
    assert_eq!((result.stdout_text().as_str(), result.stderr_text().as_str(), result.status), ("out\n", "err\n", 3));
    assert!(matches!(device.shell_ok("false"), Err(AdbError::CommandFailed { status: 1, .. })));
    assert_eq!(device.shell_v1("echo v1").unwrap(), b"v1\n");
    assert!(matches!(phone.step(&Action::OpenApp { app: "com.nope".into() }), Err(AdbError::CommandFailed { status: 251, .. })));
}

#[test]
fn unauthorized_hosts_are_refused_and_known_keys_let_in() {
    let host = AdbHost::start();
    // A key that is not this host's: made by `adb keygen` in another folder.
    let other_dir = temp_dir("otherkey");
    let key_file = other_dir.join("adbkey");
    assert_eq!(host.adb(&["keygen", key_file.to_str().unwrap()], T).status, 0);
    let other = AdbPublicKey::from_file(&other_dir.join("adbkey.pub")).unwrap();
    let (_strict, addr) = serve(
        SharedPhone::from_session(common::session(0)),
        ServerOptions { auth: AuthPolicy::Keys(vec![other]), ..ServerOptions::default() },
    );
    let client = host.client();
    let err = client.connect_device(&addr).unwrap_err();
    assert!(matches!(err, AdbError::DeviceUnauthorized { .. }), "{err}");
    let err = AdbPhone::connect(&client, &addr).unwrap_err();
    assert!(matches!(err, AdbError::DeviceUnauthorized { .. }), "{err}");
    assert!(err.to_string().contains("unauthorized"), "{err}");
    let _ = std::fs::remove_dir_all(&other_dir);

    // The host's own key (written when its server started) is let in.
    let mine = AdbPublicKey::from_file(&host.public_key_path()).unwrap();
    let (_open, addr) = serve(
        SharedPhone::from_session(common::session(0)),
        ServerOptions { auth: AuthPolicy::Keys(vec![mine]), ..ServerOptions::default() },
    );
    let serial = host.connect(&addr);
    assert_eq!(AdbPhone::connect(&client, &serial).unwrap().screen_size(), (1080, 2400));
}

#[test]
fn stalls_and_dropouts_give_typed_errors() {
    // Nothing listening: the adb server is unavailable.
    let nowhere = AdbClient::local(common::adb::free_port());
    assert!(matches!(nowhere.version(), Err(AdbError::ServerUnavailable { .. })));
    // A "server" that accepts and never answers: the timeout fires.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let started = Instant::now();
    let err = AdbClient::local(silent.local_addr().unwrap().port()).with_timeout(Duration::from_millis(400)).version().unwrap_err();
    assert!(matches!(err, AdbError::Timeout { after_ms: 400, .. }), "{err}");
    assert!(started.elapsed() < Duration::from_secs(3));

    let host = AdbHost::start();
    let client = host.client().with_timeout(Duration::from_secs(2));
    assert!(matches!(AdbPhone::connect(&client, "127.0.0.1:9"), Err(AdbError::DeviceNotFound { .. })));

    let (server, addr) = serve(SharedPhone::from_session(common::session(0)), ServerOptions::default());
    let serial = host.connect(&addr);
    let phone = AdbPhone::connect(&client, &serial).unwrap();
    // A hung device: the call times out instead of blocking.
    server.set_stalled(true);
    let started = Instant::now();
    let err = phone.step(&Action::Key { key: Key::Home }).unwrap_err();
    assert!(matches!(err, AdbError::Timeout { .. }), "{err}");
    assert!(started.elapsed() < Duration::from_secs(6));
    server.set_stalled(false);
    // The device goes away mid-session: a clear error, no hang.
    server.shutdown();
    let started = Instant::now();
    let err = phone.screenshot_png().unwrap_err();
    assert!(matches!(err, AdbError::DeviceOffline { .. } | AdbError::ConnectionClosed { .. } | AdbError::DeviceNotFound { .. }), "{err}");
    assert!(started.elapsed() < Duration::from_secs(6));
}
