//! A private adb server for tests: Debian's `adb` on a free loopback port, with its own HOME
//! (so its keys are its own), no vendor keys, no USB, emulator or mDNS discovery, a timeout on
//! every command, and `kill-server` when the guard is dropped, even when a test fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use phoneworld_adb::AdbClient;

/// Where `adb` is; a missing `adb` fails the test with what to do about it.
pub(crate) fn adb_binary() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        let candidate = dir.join("adb");
        if candidate.is_file() {
            return candidate;
        }
    }
    panic!(
        "Debian's `adb` is not installed, and these tests drive the mock phone with it: run `make setup` (it installs the `adb` package)"
    );
}

/// A port nothing listens on right now.
pub(crate) fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("local addr").port()
}

/// A fresh folder under the system temp folder, removed by [`AdbHost`]'s drop.
pub(crate) fn temp_dir(tag: &str) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!("phoneworld-adb-{tag}-{}-{}", std::process::id(), N.fetch_add(1, Ordering::SeqCst)));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create temp dir");
    dir
}

/// What a finished command printed.
#[derive(Debug)]
pub(crate) struct Run {
    pub(crate) status: i32,
    pub(crate) stdout: Vec<u8>,
    pub(crate) stderr: String,
}

impl Run {
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }
}

/// Runs a command with output in files (so a daemon it forks cannot hold a pipe open) and a
/// deadline; a command still running at the deadline is killed and the test fails.
pub(crate) fn run_with_timeout(mut command: Command, scratch: &Path, timeout: Duration) -> Run {
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::SeqCst);
    let (out_path, err_path) = (scratch.join(format!("cmd{n}.out")), scratch.join(format!("cmd{n}.err")));
    let shown = format!("{command:?}");
    command
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).expect("stdout file"))
        .stderr(std::fs::File::create(&err_path).expect("stderr file"));
    let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot run {shown}: {e}"));
    let deadline = Instant::now() + timeout;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{shown} did not finish within {timeout:?}");
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => panic!("waiting for {shown}: {e}"),
        }
    };
    Run {
        status: status.code().unwrap_or(-1),
        stdout: std::fs::read(&out_path).unwrap_or_default(),
        stderr: std::fs::read_to_string(&err_path).unwrap_or_default(),
    }
}

/// A private adb server, killed on drop.
pub(crate) struct AdbHost {
    pub(crate) port: u16,
    pub(crate) home: PathBuf,
    adb: PathBuf,
}

impl AdbHost {
    /// Starts `adb -P PORT start-server` with an isolated HOME.
    pub(crate) fn start() -> AdbHost {
        let adb = adb_binary();
        let home = temp_dir("home");
        let host = AdbHost { port: free_port(), home, adb };
        let run = host.adb(&["start-server"], Duration::from_secs(30));
        assert_eq!(run.status, 0, "adb start-server failed: {}", run.stderr);
        host
    }

    /// `adb -P PORT ARGS` with the isolated environment.
    pub(crate) fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.adb);
        command
            .arg("-P")
            .arg(self.port.to_string())
            .args(args)
            .env("HOME", &self.home)
            .env("TMPDIR", &self.home)
            .env("ADB_EMU", "0")
            .env("ADB_USB", "0")
            .env("ADB_MDNS", "0")
            .env_remove("ADB_VENDOR_KEYS")
            .env_remove("ANDROID_ADB_SERVER_PORT")
            .env_remove("ANDROID_SERIAL")
            .env_remove("ADB_TRACE");
        command
    }

    pub(crate) fn adb(&self, args: &[&str], timeout: Duration) -> Run {
        run_with_timeout(self.command(args), &self.home, timeout)
    }

    /// The Rust client of this server.
    pub(crate) fn client(&self) -> AdbClient {
        AdbClient::local(self.port).with_timeout(Duration::from_secs(10))
    }

    /// This host's public key (created by the server on start).
    pub(crate) fn public_key_path(&self) -> PathBuf {
        self.home.join(".android").join("adbkey.pub")
    }

    /// `adb connect ADDR`, waiting until the device is online.
    pub(crate) fn connect(&self, addr: &str) -> String {
        let run = self.adb(&["connect", addr], Duration::from_secs(20));
        assert!(run.text().contains("connected to"), "adb connect {addr}: {} {}", run.text(), run.stderr);
        self.client().wait_for_device(addr, Duration::from_secs(10)).expect("device online");
        addr.to_owned()
    }
}

impl Drop for AdbHost {
    fn drop(&mut self) {
        let _ = std::panic::catch_unwind(|| {
            run_with_timeout(self.command(&["kill-server"]), &self.home, Duration::from_secs(15));
        });
        let _ = std::fs::remove_dir_all(&self.home);
    }
}
