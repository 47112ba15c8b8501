//! A client of the adb server's smart socket (port 5037 by default): host requests
//! (`host:version`, `host:devices`, `host:connect`), and per-device services through
//! `host:transport:<serial>` — shell protocol v2 with exit codes, `exec:` for binary output and
//! `sync:` for push and pull. One TCP connection per request, no `adb` process per action, and
//! every call bounded by a timeout.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use crate::services::shell_v2;

/// The adb server's default address.
pub const DEFAULT_SERVER: &str = "127.0.0.1:5037";
/// How long a call may take unless told otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// What went wrong talking to the adb server or a device. Offline, unauthorized and missing
/// devices are distinct variants, so a trainer can retry, re-key or drop the device.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AdbError {
    #[error("adb server at {addr} is not reachable: {message} (is `adb start-server` running?)")]
    ServerUnavailable { addr: String, message: String },
    #[error("{operation}: no answer within {after_ms} ms")]
    Timeout { operation: String, after_ms: u64 },
    #[error("device {serial} not found (see `adb devices`; connect TCP devices with `adb connect HOST:PORT`)")]
    DeviceNotFound { serial: String },
    #[error("device {serial} is offline (the connection to it was lost or is not up yet)")]
    DeviceOffline { serial: String },
    #[error("device {serial} is unauthorized: it did not accept this host's ADB key (~/.android/adbkey.pub)")]
    DeviceUnauthorized { serial: String },
    #[error("{request}: the adb server refused: {message}")]
    Failed { request: String, message: String },
    #[error("{operation}: the connection closed early (the device or the adb server went away)")]
    ConnectionClosed { operation: String },
    #[error("{operation}: {message}")]
    Io { operation: String, message: String },
    #[error("{operation}: unexpected reply: {message}")]
    Protocol { operation: String, message: String },
    #[error("`{command}` exited with status {status}: {stderr}")]
    CommandFailed { command: String, status: u8, stderr: String },
    #[error("{path}: {message}")]
    Sync { path: String, message: String },
    #[error("screenshot: {0}")]
    Image(String),
    #[error("uiautomator XML: {0}")]
    Xml(String),
    #[error("{action} is not supported on this device: {reason}")]
    Unsupported { action: String, reason: String },
}

/// Maps a transport refusal to the device error it means.
fn device_error(serial: &str, request: &str, message: &str) -> AdbError {
    let serial = serial.to_owned();
    let lower = message.to_lowercase();
    if lower.contains("unauthorized") {
        AdbError::DeviceUnauthorized { serial }
    } else if lower.contains("offline") || lower.contains("connecting") || lower.contains("authorizing") {
        AdbError::DeviceOffline { serial }
    } else if lower.contains("not found") || lower.contains("no devices") {
        AdbError::DeviceNotFound { serial }
    } else if lower.trim() == "closed" {
        // The device closed the stream before answering: it went away, or refused the service.
        AdbError::ConnectionClosed { operation: request.to_owned() }
    } else {
        AdbError::Failed { request: request.to_owned(), message: message.trim().to_owned() }
    }
}

/// One smart-socket connection with a deadline.
struct Conn {
    stream: TcpStream,
    deadline: Instant,
    timeout: Duration,
    operation: String,
}

impl Conn {
    fn io_error(&self, e: std::io::Error) -> AdbError {
        match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                AdbError::Timeout { operation: self.operation.clone(), after_ms: self.timeout.as_millis() as u64 }
            }
            std::io::ErrorKind::UnexpectedEof
            | std::io::ErrorKind::ConnectionReset
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::BrokenPipe => AdbError::ConnectionClosed { operation: self.operation.clone() },
            _ => AdbError::Io { operation: self.operation.clone(), message: e.to_string() },
        }
    }

    fn remaining(&self) -> Result<Duration, AdbError> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(AdbError::Timeout { operation: self.operation.clone(), after_ms: self.timeout.as_millis() as u64 });
        }
        Ok(left)
    }

    fn write_all(&mut self, bytes: &[u8]) -> Result<(), AdbError> {
        let left = self.remaining()?;
        let _ = self.stream.set_write_timeout(Some(left));
        self.stream.write_all(bytes).map_err(|e| self.io_error(e))
    }

    /// Reads some bytes (0 at the end of the stream).
    fn read_some(&mut self, buf: &mut [u8]) -> Result<usize, AdbError> {
        loop {
            let left = self.remaining()?;
            let _ = self.stream.set_read_timeout(Some(left));
            match self.stream.read(buf) {
                Ok(n) => return Ok(n),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(self.io_error(e)),
            }
        }
    }

    fn read_exact(&mut self, buf: &mut [u8]) -> Result<(), AdbError> {
        let mut have = 0;
        while have < buf.len() {
            let n = self.read_some(&mut buf[have..])?;
            if n == 0 {
                return Err(AdbError::ConnectionClosed { operation: self.operation.clone() });
            }
            have += n;
        }
        Ok(())
    }

    fn read_to_end(&mut self) -> Result<Vec<u8>, AdbError> {
        let mut out = Vec::new();
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            let n = self.read_some(&mut buf)?;
            if n == 0 {
                return Ok(out);
            }
            out.extend_from_slice(&buf[..n]);
        }
    }

    /// Sends `%04x<request>`.
    fn request(&mut self, request: &str) -> Result<(), AdbError> {
        if request.len() > 0xffff {
            return Err(AdbError::Protocol {
                operation: self.operation.clone(),
                message: format!("request of {} bytes is too long", request.len()),
            });
        }
        self.write_all(format!("{:04x}{request}", request.len()).as_bytes())
    }

    fn read_hex_len(&mut self) -> Result<usize, AdbError> {
        let mut len = [0u8; 4];
        self.read_exact(&mut len)?;
        let text = String::from_utf8_lossy(&len).into_owned();
        usize::from_str_radix(&text, 16)
            .map_err(|_| AdbError::Protocol { operation: self.operation.clone(), message: format!("bad length prefix {text:?}") })
    }

    /// A `%04x`-prefixed string.
    fn read_string(&mut self) -> Result<String, AdbError> {
        let len = self.read_hex_len()?;
        let mut buf = vec![0u8; len];
        self.read_exact(&mut buf)?;
        Ok(String::from_utf8_lossy(&buf).into_owned())
    }

    /// Reads `OKAY`, or `FAIL` and its message.
    fn status(&mut self) -> Result<Result<(), String>, AdbError> {
        let mut tag = [0u8; 4];
        self.read_exact(&mut tag)?;
        match &tag {
            b"OKAY" => Ok(Ok(())),
            b"FAIL" => Ok(Err(self.read_string()?)),
            other => Err(AdbError::Protocol {
                operation: self.operation.clone(),
                message: format!("expected OKAY or FAIL, got {:?}", String::from_utf8_lossy(other)),
            }),
        }
    }
}

/// One device as `adb devices` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceEntry {
    pub serial: String,
    /// `device`, `offline`, `unauthorized`, `authorizing`, `connecting`, ...
    pub state: String,
}

/// The adb server's smart socket.
#[derive(Debug, Clone)]
pub struct AdbClient {
    addr: SocketAddr,
    timeout: Duration,
}

impl AdbClient {
    /// A client of the adb server at `addr` (e.g. `127.0.0.1:5037`).
    pub fn new(addr: impl ToSocketAddrs) -> Result<AdbClient, AdbError> {
        let shown = || "the given address".to_owned();
        let addr = addr
            .to_socket_addrs()
            .map_err(|e| AdbError::ServerUnavailable { addr: shown(), message: e.to_string() })?
            .next()
            .ok_or_else(|| AdbError::ServerUnavailable { addr: shown(), message: "no address".into() })?;
        Ok(AdbClient { addr, timeout: DEFAULT_TIMEOUT })
    }

    /// The server on 127.0.0.1 at `port` (5037 for the default server).
    pub fn local(port: u16) -> AdbClient {
        AdbClient { addr: SocketAddr::from(([127, 0, 0, 1], port)), timeout: DEFAULT_TIMEOUT }
    }

    /// The same client with another per-call timeout.
    pub fn with_timeout(mut self, timeout: Duration) -> AdbClient {
        self.timeout = timeout;
        self
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    fn open(&self, operation: &str, timeout: Duration) -> Result<Conn, AdbError> {
        let stream = TcpStream::connect_timeout(&self.addr, timeout.min(Duration::from_secs(5)))
            .map_err(|e| AdbError::ServerUnavailable { addr: self.addr.to_string(), message: e.to_string() })?;
        let _ = stream.set_nodelay(true);
        Ok(Conn { stream, deadline: Instant::now() + timeout, timeout, operation: operation.to_owned() })
    }

    /// A host request whose reply is OKAY plus a `%04x` string.
    fn host_query(&self, request: &str) -> Result<String, AdbError> {
        let mut conn = self.open(request, self.timeout)?;
        conn.request(request)?;
        match conn.status()? {
            Ok(()) => conn.read_string(),
            Err(message) => Err(AdbError::Failed { request: request.to_owned(), message }),
        }
    }

    /// The adb server's version (41 for adb 29).
    pub fn version(&self) -> Result<u32, AdbError> {
        let text = self.host_query("host:version")?;
        u32::from_str_radix(text.trim(), 16)
            .map_err(|_| AdbError::Protocol { operation: "host:version".into(), message: format!("{text:?}") })
    }

    /// The devices the server knows.
    pub fn devices(&self) -> Result<Vec<DeviceEntry>, AdbError> {
        let text = self.host_query("host:devices")?;
        Ok(text
            .lines()
            .filter_map(|line| {
                let mut parts = line.split_whitespace();
                Some(DeviceEntry { serial: parts.next()?.to_owned(), state: parts.next().unwrap_or("unknown").to_owned() })
            })
            .collect())
    }

    /// `adb connect HOST:PORT`: the server's message on success (`connected to …`).
    pub fn connect_device(&self, host_port: &str) -> Result<String, AdbError> {
        let message = self.host_query(&format!("host:connect:{host_port}"))?;
        let lower = message.to_lowercase();
        if lower.contains("failed to authenticate") || lower.contains("unauthorized") {
            Err(AdbError::DeviceUnauthorized { serial: host_port.to_owned() })
        } else if lower.starts_with("failed") || lower.contains("cannot") || lower.contains("unable") {
            Err(AdbError::Failed { request: format!("host:connect:{host_port}"), message })
        } else {
            Ok(message)
        }
    }

    /// `adb disconnect HOST:PORT`.
    pub fn disconnect_device(&self, host_port: &str) -> Result<String, AdbError> {
        self.host_query(&format!("host:disconnect:{host_port}"))
    }

    /// The device's state as the server sees it (`device`, `offline`, `unauthorized`, ...).
    pub fn state(&self, serial: &str) -> Result<String, AdbError> {
        let request = format!("host-serial:{serial}:get-state");
        let mut conn = self.open(&request, self.timeout)?;
        conn.request(&request)?;
        match conn.status()? {
            Ok(()) => conn.read_string(),
            Err(message) => Err(device_error(serial, &request, &message)),
        }
    }

    /// Waits until the device is online (`device`); offline, unauthorized and missing devices
    /// give their own errors once `timeout` has passed.
    pub fn wait_for_device(&self, serial: &str, timeout: Duration) -> Result<(), AdbError> {
        let deadline = Instant::now() + timeout;
        loop {
            let result: Result<(), AdbError> = match self.state(serial) {
                Ok(state) if state == "device" => return Ok(()),
                Ok(state) => Err(device_error(serial, "get-state", &state)),
                Err(e) => Err(e),
            };
            match result {
                Err(e @ (AdbError::ServerUnavailable { .. } | AdbError::Timeout { .. })) => return Err(e),
                Err(e) if Instant::now() >= deadline => return Err(e),
                _ => std::thread::sleep(Duration::from_millis(25)),
            }
        }
    }

    /// A handle for one device (nothing is sent until it is used).
    pub fn device(&self, serial: &str) -> AdbDevice {
        AdbDevice { client: self.clone(), serial: serial.to_owned() }
    }
}

/// What a shell command printed and its exit status.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ShellResult {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub status: u8,
}

impl ShellResult {
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// What `sync:` STAT reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RemoteStat {
    pub mode: u32,
    pub size: u32,
    pub mtime: u32,
}

impl RemoteStat {
    pub fn exists(&self) -> bool {
        self.mode != 0
    }
}

/// One device behind the adb server.
#[derive(Debug, Clone)]
pub struct AdbDevice {
    client: AdbClient,
    serial: String,
}

impl AdbDevice {
    pub fn serial(&self) -> &str {
        &self.serial
    }

    pub fn client(&self) -> &AdbClient {
        &self.client
    }

    /// Opens `service` on the device; the connection then carries the service's bytes.
    fn open_service(&self, service: &str, timeout: Duration) -> Result<Conn, AdbError> {
        let operation = format!("{} on {}", service.chars().take(80).collect::<String>(), self.serial);
        let mut conn = self.client.open(&operation, timeout)?;
        let transport = format!("host:transport:{}", self.serial);
        conn.request(&transport)?;
        if let Err(message) = conn.status()? {
            return Err(device_error(&self.serial, &transport, &message));
        }
        conn.request(service)?;
        if let Err(message) = conn.status()? {
            return Err(device_error(&self.serial, service, &message));
        }
        Ok(conn)
    }

    /// The features the device and the server share.
    pub fn features(&self) -> Result<Vec<String>, AdbError> {
        let request = format!("host-serial:{}:features", self.serial);
        let mut conn = self.client.open(&request, self.client.timeout)?;
        conn.request(&request)?;
        match conn.status()? {
            Ok(()) => Ok(conn.read_string()?.split(',').filter(|f| !f.is_empty()).map(str::to_owned).collect()),
            Err(message) => Err(device_error(&self.serial, &request, &message)),
        }
    }

    /// Runs a command with shell protocol v2: stdout, stderr and the exit status.
    pub fn shell(&self, command: &str) -> Result<ShellResult, AdbError> {
        self.shell_with_timeout(command, self.client.timeout)
    }

    pub fn shell_with_timeout(&self, command: &str, timeout: Duration) -> Result<ShellResult, AdbError> {
        let mut conn = self.open_service(&format!("shell,v2,raw:{command}"), timeout)?;
        let mut result = ShellResult::default();
        let mut buf = Vec::new();
        let mut chunk = vec![0u8; 256 * 1024];
        loop {
            let n = conn.read_some(&mut chunk)?;
            if n == 0 {
                return Err(AdbError::ConnectionClosed { operation: format!("`{command}` on {} (no exit status)", self.serial) });
            }
            buf.extend_from_slice(&chunk[..n]);
            for (id, data) in shell_v2::take_packets(&mut buf) {
                match id {
                    shell_v2::STDOUT => result.stdout.extend_from_slice(&data),
                    shell_v2::STDERR => result.stderr.extend_from_slice(&data),
                    shell_v2::EXIT => {
                        result.status = data.first().copied().unwrap_or(0);
                        return Ok(result);
                    }
                    _ => {}
                }
            }
        }
    }

    /// Like [`AdbDevice::shell`], but a non-zero status is an error.
    pub fn shell_ok(&self, command: &str) -> Result<ShellResult, AdbError> {
        let result = self.shell(command)?;
        if result.status != 0 {
            return Err(AdbError::CommandFailed {
                command: command.to_owned(),
                status: result.status,
                stderr: result.stderr_text().trim().to_owned(),
            });
        }
        Ok(result)
    }

    /// The legacy `shell:` service: stdout and stderr together, no exit status.
    pub fn shell_v1(&self, command: &str) -> Result<Vec<u8>, AdbError> {
        self.open_service(&format!("shell:{command}"), self.client.timeout)?.read_to_end()
    }

    /// `exec:`: the command's raw, binary-safe output.
    pub fn exec(&self, command: &str) -> Result<Vec<u8>, AdbError> {
        self.open_service(&format!("exec:{command}"), self.client.timeout)?.read_to_end()
    }

    fn sync(&self, path: &str) -> Result<Conn, AdbError> {
        let mut conn = self.open_service("sync:", self.client.timeout)?;
        conn.operation = format!("sync {path} on {}", self.serial);
        Ok(conn)
    }

    fn sync_request(conn: &mut Conn, tag: &[u8; 4], arg: &str) -> Result<(), AdbError> {
        if arg.len() > crate::sync::MAX_PATH {
            return Err(AdbError::Sync { path: arg.to_owned(), message: format!("path longer than {} bytes", crate::sync::MAX_PATH) });
        }
        let mut req = Vec::with_capacity(8 + arg.len());
        req.extend_from_slice(tag);
        req.extend_from_slice(&(arg.len() as u32).to_le_bytes());
        req.extend_from_slice(arg.as_bytes());
        conn.write_all(&req)
    }

    fn sync_fail(conn: &mut Conn, path: &str) -> AdbError {
        let mut len = [0u8; 4];
        if let Err(e) = conn.read_exact(&mut len) {
            return e;
        }
        let mut msg = vec![0u8; (u32::from_le_bytes(len) as usize).min(64 * 1024)];
        if let Err(e) = conn.read_exact(&mut msg) {
            return e;
        }
        AdbError::Sync { path: path.to_owned(), message: String::from_utf8_lossy(&msg).into_owned() }
    }

    /// STAT of a file on the device (all zero when it does not exist).
    pub fn stat(&self, remote: &str) -> Result<RemoteStat, AdbError> {
        let mut conn = self.sync(remote)?;
        Self::sync_request(&mut conn, b"STAT", remote)?;
        let mut reply = [0u8; 16];
        conn.read_exact(&mut reply)?;
        if &reply[..4] != b"STAT" {
            return Err(AdbError::Protocol {
                operation: conn.operation.clone(),
                message: format!("expected STAT, got {:?}", String::from_utf8_lossy(&reply[..4])),
            });
        }
        let word = |i: usize| u32::from_le_bytes([reply[i], reply[i + 1], reply[i + 2], reply[i + 3]]);
        let _ = Self::sync_request(&mut conn, b"QUIT", "");
        Ok(RemoteStat { mode: word(4), size: word(8), mtime: word(12) })
    }

    /// Reads a file from the device.
    pub fn pull(&self, remote: &str) -> Result<Vec<u8>, AdbError> {
        let mut conn = self.sync(remote)?;
        Self::sync_request(&mut conn, b"RECV", remote)?;
        let mut data = Vec::new();
        loop {
            let mut header = [0u8; 8];
            conn.read_exact(&mut header)?;
            let len = u32::from_le_bytes([header[4], header[5], header[6], header[7]]) as usize;
            match &header[..4] {
                b"DATA" => {
                    if len > crate::sync::MAX_CHUNK {
                        return Err(AdbError::Protocol {
                            operation: conn.operation.clone(),
                            message: format!("DATA chunk of {len} bytes"),
                        });
                    }
                    let start = data.len();
                    data.resize(start + len, 0);
                    conn.read_exact(&mut data[start..])?;
                }
                b"DONE" => break,
                b"FAIL" => {
                    let mut msg = vec![0u8; len.min(64 * 1024)];
                    conn.read_exact(&mut msg)?;
                    return Err(AdbError::Sync { path: remote.to_owned(), message: String::from_utf8_lossy(&msg).into_owned() });
                }
                other => {
                    return Err(AdbError::Protocol {
                        operation: conn.operation.clone(),
                        message: format!("expected DATA, DONE or FAIL, got {:?}", String::from_utf8_lossy(other)),
                    })
                }
            }
        }
        let _ = Self::sync_request(&mut conn, b"QUIT", "");
        Ok(data)
    }

    /// Writes a file on the device with permission bits `mode` (e.g. 0o644) and mtime.
    pub fn push(&self, data: &[u8], remote: &str, mode: u32, mtime: u32) -> Result<(), AdbError> {
        let mut conn = self.sync(remote)?;
        Self::sync_request(&mut conn, b"SEND", &format!("{remote},{}", 0o100_000 | (mode & 0o7777)))?;
        for chunk in data.chunks(crate::sync::MAX_CHUNK) {
            let mut packet = Vec::with_capacity(8 + chunk.len());
            packet.extend_from_slice(b"DATA");
            packet.extend_from_slice(&(chunk.len() as u32).to_le_bytes());
            packet.extend_from_slice(chunk);
            conn.write_all(&packet)?;
        }
        let mut done = Vec::from(*b"DONE");
        done.extend_from_slice(&mtime.to_le_bytes());
        conn.write_all(&done)?;
        let mut reply = [0u8; 4];
        conn.read_exact(&mut reply)?;
        match &reply {
            b"OKAY" => {
                let mut zero = [0u8; 4];
                conn.read_exact(&mut zero)?;
                let _ = Self::sync_request(&mut conn, b"QUIT", "");
                Ok(())
            }
            b"FAIL" => Err(Self::sync_fail(&mut conn, remote)),
            other => Err(AdbError::Protocol {
                operation: conn.operation.clone(),
                message: format!("expected OKAY or FAIL, got {:?}", String::from_utf8_lossy(other)),
            }),
        }
    }
}
