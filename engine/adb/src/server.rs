//! The device side of ADB over TCP: a listener thread, one thread per connection, the CNXN
//! handshake (optionally with AUTH), and streams with ADB's flow control (at most one
//! unacknowledged WRTE per stream, no delayed acks). A broken connection ends alone; the
//! server and the phone go on.
//!
//! Everything a client can make the server hold is bounded: connections (idle ones make room
//! for newcomers), the handshake's time, streams, output waiting to be read (per stream, per
//! connection and for the whole server, by withholding OKAYs and deferring new requests) and
//! host bytes waiting to be used. The limits are the constants below; each refusal or eviction
//! is logged in [`ServerHandle::errors`].

use std::collections::{BTreeMap, VecDeque};
use std::io::Write;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::auth::AuthPolicy;
use crate::protocol::{
    auth_type, command, strip_trailing_nuls, Banner, Packet, PacketReader, ProtocolError, MAX_PAYLOAD, MAX_PAYLOAD_V1, VERSION,
};
use crate::services::{self, Opened, StreamService};
use crate::session::SharedPhone;
use crate::shell::{Budget, OutputRoom};

/// The features this device advertises: shell protocol v2, `cmd`, stat/ls v2, and creating
/// parent folders on push. Newer-host features (delayed acks, send/recv v2) are left out, so
/// every host uses plain one-WRTE-per-OKAY flow control.
pub const DEFAULT_FEATURES: [&str; 5] = ["shell_v2", "cmd", "stat_v2", "ls_v2", "fixed_push_mkdir"];

/// At most this many connections at once ([`ServerOptions::max_connections`]'s default). When
/// full, a newcomer takes the place of the oldest connection still in its handshake, else of
/// the connection idle longest with no open stream; only when every connection has open
/// streams is the newcomer closed. Both are logged.
pub const MAX_CONNECTIONS: usize = 64;
/// A connection must be online (CNXN answered, AUTH passed when required) this soon after it
/// opens, or it is closed and logged ([`ServerOptions::handshake_timeout`]'s default).
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// A host that takes none of what the server writes for this long is dropped (logged).
pub const WRITE_TIMEOUT: Duration = Duration::from_secs(30);
/// At most this many open streams per connection; more OPENs get `CLSE(0, id)` (logged).
pub const MAX_STREAMS: usize = 1024;
/// While a stream has this much output the host has not taken, its service gets no more work
/// and the host's next WRTE on it is not acknowledged (adbd's flow control).
pub const MAX_STREAM_PENDING: usize = 1024 * 1024;
/// While a connection's streams hold this much unsent output, its new requests wait (see
/// [`MAX_DEFERRED_OPENS`]). One request may overshoot it by its own output, at most
/// [`crate::shell::MAX_REQUEST_BYTES`].
pub const MAX_CONNECTION_PENDING: usize = 16 * 1024 * 1024;
/// OPENs waiting for output room per connection; more are refused with `CLSE(0, id)` (logged).
pub const MAX_DEFERRED_OPENS: usize = 64;
/// Host bytes a connection may hold unused (partial shell lines, sync requests in progress,
/// waiting OPENs); a WRTE or OPEN past it closes or refuses that stream (logged).
pub const MAX_CONNECTION_INPUT: usize = 8 * 1024 * 1024;
/// Output the whole server holds for its clients (sent to no one yet), requests in flight
/// included. New work starts only while 1 MiB of it is free; requests take their output
/// from it as they write.
pub const MAX_SERVER_PENDING: usize = 128 * 1024 * 1024;
/// When new work has waited this long for the server's output room, the connection whose
/// output has gone unread longest is closed to make room (logged).
pub const PRESSURE_EVICT_AFTER: Duration = Duration::from_secs(2);
/// New work starts only while this much of the server's output room is free.
const MIN_ROOM_TO_START: usize = 1024 * 1024;
/// How often a connection with waiting work looks for room again.
const TICK: Duration = Duration::from_millis(50);
/// Connection errors kept for [`ServerHandle::errors`].
const MAX_ERRORS: usize = 200;

/// How the server presents itself.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    /// Whether hosts must authenticate, and with which keys.
    pub auth: AuthPolicy,
    /// Features listed in the CNXN banner.
    pub features: Vec<String>,
    /// `ro.product.name`, `ro.product.model`, `ro.product.device` of the banner.
    pub product: (String, String, String),
    /// Seeds the AUTH tokens (deterministic, for reproducible packet logs; this is a test
    /// device on loopback, not a security boundary).
    pub auth_seed: u64,
    /// How long a connection may take to come online ([`HANDSHAKE_TIMEOUT`]).
    pub handshake_timeout: Duration,
    /// Connections served at once ([`MAX_CONNECTIONS`]).
    pub max_connections: usize,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            auth: AuthPolicy::Disabled,
            features: DEFAULT_FEATURES.iter().map(|f| (*f).to_owned()).collect(),
            product: ("phoneworld".into(), "PhoneWorld".into(), "phoneworld".into()),
            auth_seed: 0,
            handshake_timeout: HANDSHAKE_TIMEOUT,
            max_connections: MAX_CONNECTIONS,
        }
    }
}

impl ServerOptions {
    /// The CNXN banner: `device::ro.product.name=…;ro.product.model=…;ro.product.device=…;features=…`.
    pub fn banner(&self) -> Banner {
        Banner {
            kind: "device".into(),
            serial: String::new(),
            props: vec![
                ("ro.product.name".into(), self.product.0.clone()),
                ("ro.product.model".into(), self.product.1.clone()),
                ("ro.product.device".into(), self.product.2.clone()),
            ],
            features: self.features.clone(),
        }
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: String, source: std::io::Error },
    #[error("cannot start the listener thread: {0}")]
    Thread(std::io::Error),
}

/// What the listener and other connections know of one connection.
#[derive(Debug)]
struct ConnInfo {
    /// A clone of its socket, to close it from elsewhere (None when driven without one).
    socket: Option<TcpStream>,
    peer: String,
    online: AtomicBool,
    streams: AtomicUsize,
    /// Output its streams hold for the host.
    pending: AtomicUsize,
    /// Host bytes it holds unused.
    input: AtomicUsize,
    /// When a packet last arrived (ms since the server started).
    last_packet_ms: AtomicU64,
    /// Since when its output has waited without the host taking any (ms since the start).
    unread_since_ms: AtomicU64,
}

impl ConnInfo {
    fn close(&self) {
        if let Some(socket) = &self.socket {
            let _ = socket.shutdown(Shutdown::Both);
        }
    }
}

/// State shared by the listener, the connections and the handle.
#[derive(Debug)]
struct Shared {
    phone: SharedPhone,
    options: ServerOptions,
    stopping: AtomicBool,
    /// While true, connections read nothing and answer nothing (a hung device).
    stalled: Mutex<bool>,
    wake: Condvar,
    /// Open connections, to close them on stop or to make room.
    connections: Mutex<BTreeMap<u64, Arc<ConnInfo>>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    errors: Mutex<VecDeque<String>>,
    next_connection: AtomicU64,
    /// Output held for clients, server-wide ([`MAX_SERVER_PENDING`]).
    room: Arc<OutputRoom>,
    started: Instant,
}

impl Shared {
    fn new(phone: SharedPhone, options: ServerOptions) -> Shared {
        Shared {
            phone,
            options,
            stopping: AtomicBool::new(false),
            stalled: Mutex::new(false),
            wake: Condvar::new(),
            connections: Mutex::new(BTreeMap::new()),
            threads: Mutex::new(Vec::new()),
            errors: Mutex::new(VecDeque::new()),
            next_connection: AtomicU64::new(1),
            room: Arc::new(OutputRoom::new(MAX_SERVER_PENDING)),
            started: Instant::now(),
        }
    }

    fn log(&self, message: String) {
        let mut errors = self.errors.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if errors.len() >= MAX_ERRORS {
            errors.pop_front();
        }
        errors.push_back(message);
    }

    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    fn connections(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Arc<ConnInfo>>> {
        self.connections.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Blocks while the server is stalled; false once it is stopping.
    fn wait_unstalled(&self) -> bool {
        let mut stalled = self.stalled.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        while *stalled && !self.stopping.load(Ordering::SeqCst) {
            stalled = self.wake.wait(stalled).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        !self.stopping.load(Ordering::SeqCst)
    }

    /// Registers a new connection, making room when the server is full. Err: why it was refused.
    fn admit(&self, id: u64, info: Arc<ConnInfo>) -> Result<(), String> {
        let mut connections = self.connections();
        if connections.len() >= self.options.max_connections {
            let Some((victim, why)) = self.victim_for_newcomer(&connections) else {
                return Err(format!("refused: {} connections are open and all have open streams", connections.len()));
            };
            if let Some(old) = connections.remove(&victim) {
                old.close();
                self.log(format!(
                    "connection {victim} from {}: closed to make room for connection {id} ({} connections open; {why})",
                    old.peer,
                    connections.len() + 1
                ));
            }
        }
        connections.insert(id, info);
        Ok(())
    }

    /// The connection a newcomer replaces: the oldest still in its handshake, else the one
    /// idle longest with no open stream and no output waiting.
    fn victim_for_newcomer(&self, connections: &BTreeMap<u64, Arc<ConnInfo>>) -> Option<(u64, String)> {
        if let Some((id, _)) = connections.iter().find(|(_, c)| !c.online.load(Ordering::SeqCst)) {
            return Some((*id, "it had not finished its handshake".into()));
        }
        let now = self.now_ms();
        connections
            .iter()
            .filter(|(_, c)| c.streams.load(Ordering::SeqCst) == 0 && c.pending.load(Ordering::SeqCst) == 0)
            .min_by_key(|(_, c)| c.last_packet_ms.load(Ordering::SeqCst))
            .map(|(id, c)| {
                let idle = now.saturating_sub(c.last_packet_ms.load(Ordering::SeqCst));
                (*id, format!("it was idle for {idle} ms with no open stream"))
            })
    }

    /// Closes the connection (other than `asking`) whose output has gone unread longest, when
    /// that is at least [`PRESSURE_EVICT_AFTER`]: the server's output room is full.
    fn evict_for_room(&self, asking: u64) -> bool {
        let now = self.now_ms();
        let limit = PRESSURE_EVICT_AFTER.as_millis() as u64;
        let mut connections = self.connections();
        let victim = connections
            .iter()
            .filter(|(id, c)| **id != asking && c.pending.load(Ordering::SeqCst) > 0)
            .filter(|(_, c)| now.saturating_sub(c.unread_since_ms.load(Ordering::SeqCst)) >= limit)
            .min_by_key(|(_, c)| c.unread_since_ms.load(Ordering::SeqCst))
            .map(|(id, _)| *id);
        let Some(victim) = victim else { return false };
        if let Some(old) = connections.remove(&victim) {
            old.close();
            let unread = now.saturating_sub(old.unread_since_ms.load(Ordering::SeqCst));
            self.log(format!(
                "connection {victim} from {}: closed: {} bytes of its output went unread for {unread} ms while the server's output room ({MAX_SERVER_PENDING} bytes) was full",
                old.peer,
                old.pending.load(Ordering::SeqCst)
            ));
        }
        true
    }
}

/// Entry point: `AdbServer::bind(addr, phone, options)` starts serving and returns the handle.
#[derive(Debug)]
pub struct AdbServer;

impl AdbServer {
    /// Listens on `addr` (port 0 picks a free port) and serves `phone` until the handle is
    /// shut down or dropped.
    pub fn bind(
        addr: impl ToSocketAddrs + std::fmt::Debug,
        phone: SharedPhone,
        options: ServerOptions,
    ) -> Result<ServerHandle, ServerError> {
        let shown = format!("{addr:?}");
        let listener = TcpListener::bind(&addr).map_err(|source| ServerError::Bind { addr: shown.clone(), source })?;
        let local_addr = listener.local_addr().map_err(|source| ServerError::Bind { addr: shown, source })?;
        let shared = Arc::new(Shared::new(phone, options));
        let for_thread = Arc::clone(&shared);
        let accept = std::thread::Builder::new()
            .name(format!("adb-listen-{}", local_addr.port()))
            .spawn(move || accept_loop(listener, for_thread))
            .map_err(ServerError::Thread)?;
        Ok(ServerHandle { shared, local_addr, accept: Mutex::new(Some(accept)) })
    }

    /// Listens on 127.0.0.1:`port`.
    pub fn bind_local(port: u16, phone: SharedPhone, options: ServerOptions) -> Result<ServerHandle, ServerError> {
        AdbServer::bind(("127.0.0.1", port), phone, options)
    }
}

/// A running server. Dropping it shuts the server down. `Send + Sync`: shut it down or stall it
/// from any thread.
#[derive(Debug)]
pub struct ServerHandle {
    shared: Arc<Shared>,
    local_addr: SocketAddr,
    accept: Mutex<Option<JoinHandle<()>>>,
}

impl ServerHandle {
    /// The address it listens on (with the port picked when binding port 0).
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The phone it serves.
    pub fn phone(&self) -> &SharedPhone {
        &self.shared.phone
    }

    /// Stops accepting, closes every connection and joins every thread. Idempotent.
    pub fn shutdown(&self) {
        self.shared.stopping.store(true, Ordering::SeqCst);
        self.shared.wake.notify_all();
        // Wake the listener out of accept() by connecting to it.
        let wake_addr = if self.local_addr.ip().is_unspecified() {
            SocketAddr::new(std::net::Ipv4Addr::LOCALHOST.into(), self.local_addr.port())
        } else {
            self.local_addr
        };
        let _ = TcpStream::connect_timeout(&wake_addr, Duration::from_millis(200));
        if let Some(accept) = self.accept.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take() {
            let _ = accept.join();
        }
        for (_, info) in std::mem::take(&mut *self.shared.connections()) {
            info.close();
        }
        let threads = std::mem::take(&mut *self.shared.threads.lock().unwrap_or_else(std::sync::PoisonError::into_inner));
        for thread in threads {
            let _ = thread.join();
        }
    }

    /// Stalls (true) or resumes (false) every connection: while stalled the device reads and
    /// answers nothing, like a hung phone. For testing clients' timeouts.
    pub fn set_stalled(&self, stalled: bool) {
        *self.shared.stalled.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = stalled;
        self.shared.wake.notify_all();
    }

    /// Connection errors so far (malformed packets, oversized payloads, resets, refusals,
    /// evictions, limits), oldest first.
    pub fn errors(&self) -> Vec<String> {
        self.shared.errors.lock().unwrap_or_else(std::sync::PoisonError::into_inner).iter().cloned().collect()
    }

    /// Connections open now.
    pub fn connection_count(&self) -> usize {
        self.shared.connections().len()
    }

    /// Bytes the server holds for its clients now: output not yet sent (and the output of
    /// requests in flight) plus host bytes not yet used. Bounded by the limits above.
    pub fn buffered_bytes(&self) -> usize {
        let input: usize = self.shared.connections().values().map(|c| c.input.load(Ordering::SeqCst)).sum();
        self.shared.room.held() + input
    }

    pub fn is_running(&self) -> bool {
        !self.shared.stopping.load(Ordering::SeqCst)
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    for incoming in listener.incoming() {
        if shared.stopping.load(Ordering::SeqCst) {
            break;
        }
        let stream = match incoming {
            Ok(s) => s,
            Err(e) => {
                shared.log(format!("accept: {e}"));
                continue;
            }
        };
        let id = shared.next_connection.fetch_add(1, Ordering::SeqCst);
        let peer = stream.peer_addr().map(|a| a.to_string()).unwrap_or_else(|_| "?".into());
        let info = match stream.try_clone() {
            Ok(clone) => Arc::new(ConnInfo::new(Some(clone), peer.clone(), shared.now_ms())),
            Err(e) => {
                shared.log(format!("connection {id} from {peer}: {e}"));
                continue;
            }
        };
        if let Err(why) = shared.admit(id, Arc::clone(&info)) {
            shared.log(format!("connection {id} from {peer}: {why}"));
            let _ = stream.shutdown(Shutdown::Both);
            continue;
        }
        let for_thread = Arc::clone(&shared);
        let spawned = std::thread::Builder::new().name(format!("adb-conn-{id}")).spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| serve_connection(stream, id, &info, &for_thread)));
            if result.is_err() {
                for_thread.log(format!("connection {id} from {}: internal error; the connection was closed", info.peer));
            }
            let mut connections = for_thread.connections();
            if connections.get(&id).is_some_and(|c| Arc::ptr_eq(c, &info)) {
                connections.remove(&id);
            }
            info.close();
        });
        let mut threads = shared.threads.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        threads.retain(|t| !t.is_finished());
        match spawned {
            Ok(t) => threads.push(t),
            Err(e) => {
                shared.log(format!("connection {id}: cannot start its thread: {e}"));
                shared.connections().remove(&id);
            }
        }
    }
}

impl ConnInfo {
    fn new(socket: Option<TcpStream>, peer: String, now_ms: u64) -> ConnInfo {
        ConnInfo {
            socket,
            peer,
            online: AtomicBool::new(false),
            streams: AtomicUsize::new(0),
            pending: AtomicUsize::new(0),
            input: AtomicUsize::new(0),
            last_packet_ms: AtomicU64::new(now_ms),
            unread_since_ms: AtomicU64::new(now_ms),
        }
    }
}

/// Output waiting to be sent, as the pieces it was produced in (no copy until a WRTE).
#[derive(Default)]
struct Pending {
    pieces: VecDeque<Vec<u8>>,
    /// Bytes of the front piece already sent.
    front_used: usize,
    len: usize,
}

impl Pending {
    fn push(&mut self, bytes: Vec<u8>) {
        if !bytes.is_empty() {
            self.len += bytes.len();
            self.pieces.push_back(bytes);
        }
    }

    /// Takes up to `max` bytes from the front.
    fn take(&mut self, max: usize) -> Vec<u8> {
        let mut chunk = Vec::with_capacity(max.min(self.len));
        while chunk.len() < max {
            let Some(front) = self.pieces.front() else { break };
            let n = (front.len() - self.front_used).min(max - chunk.len());
            chunk.extend_from_slice(&front[self.front_used..self.front_used + n]);
            self.front_used += n;
            if self.front_used == front.len() {
                self.pieces.pop_front();
                self.front_used = 0;
            }
        }
        self.len -= chunk.len();
        chunk
    }
}

/// One open stream: the host's id, output waiting to be sent, and the service reading input.
struct Stream {
    remote: u32,
    pending: Pending,
    /// A WRTE is out and its OKAY has not come back.
    awaiting_ack: bool,
    /// The host's last WRTE is not acknowledged yet (withheld while output waits).
    owe_okay: bool,
    /// Still reading host bytes (None: the output is final; close once it is sent).
    service: Option<Box<dyn StreamService>>,
    /// Drop the whole connection once this stream is closed (reboot).
    disconnect_after: bool,
}

/// Why a connection ends.
pub(crate) enum End {
    Write(std::io::Error),
    Disconnect,
}

/// One connection's protocol state, writing its packets to `W`.
pub(crate) struct Connection<'a, W: Write> {
    writer: W,
    shared: &'a Shared,
    info: Arc<ConnInfo>,
    online: bool,
    opened: Instant,
    /// Largest payload we may send (the peer's maxdata, capped).
    max_data: usize,
    streams: BTreeMap<u32, Stream>,
    /// OPENs waiting for output room: the host's id and the service name.
    deferred: VecDeque<(u32, Vec<u8>)>,
    next_id: u32,
    token: [u8; 20],
    tokens_sent: u64,
    id: u64,
    /// Output of this connection counted in the server's room.
    held: usize,
    /// Since when new work has waited for the server's output room.
    starved_since: Option<Instant>,
}

fn serve_connection(stream: TcpStream, id: u64, info: &Arc<ConnInfo>, shared: &Shared) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_write_timeout(Some(WRITE_TIMEOUT));
    let writer = match stream.try_clone() {
        Ok(w) => w,
        Err(e) => return shared.log(format!("connection {id} from {}: {e}", info.peer)),
    };
    let peer = info.peer.clone();
    let mut reader = PacketReader::new(stream);
    let mut conn = Connection::new(writer, shared, Arc::clone(info), id);
    let mut timeout: Option<Duration> = None;
    loop {
        if !shared.wait_unstalled() {
            break;
        }
        let wanted = conn.read_timeout();
        if wanted != timeout {
            timeout = wanted;
            let _ = reader.get_ref().set_read_timeout(timeout);
        }
        reader.max_payload = conn.max_payload();
        let outcome = match reader.read_packet() {
            Ok(Some(packet)) => {
                if !shared.wait_unstalled() {
                    break;
                }
                conn.handle(packet)
            }
            Ok(None) => break,
            Err(ProtocolError::TimedOut) => conn.tick(),
            Err(ProtocolError::Io(e)) => {
                if !shared.stopping.load(Ordering::SeqCst) && !conn.evicted() {
                    shared.log(format!("connection {id} from {peer}: {e}"));
                }
                break;
            }
            Err(e) => {
                // adbd drops a connection with a bad header; so does this server, alone.
                shared.log(format!("connection {id} from {peer}: {e}"));
                break;
            }
        };
        match outcome {
            Ok(()) => {}
            Err(End::Disconnect) => break,
            Err(End::Write(e)) => {
                if !shared.stopping.load(Ordering::SeqCst) && !conn.evicted() {
                    shared.log(format!("connection {id} from {peer}: writing: {e}"));
                }
                break;
            }
        }
    }
    let _ = conn.writer.shutdown(Shutdown::Both);
}

impl<'a, W: Write> Connection<'a, W> {
    fn new(writer: W, shared: &'a Shared, info: Arc<ConnInfo>, id: u64) -> Connection<'a, W> {
        Connection {
            writer,
            shared,
            info,
            online: false,
            opened: Instant::now(),
            max_data: MAX_PAYLOAD as usize,
            streams: BTreeMap::new(),
            deferred: VecDeque::new(),
            next_id: 1,
            token: [0; 20],
            tokens_sent: 0,
            id,
            held: 0,
            starved_since: None,
        }
    }

    /// Was this connection closed by the server to make room (its socket errors are expected)?
    fn evicted(&self) -> bool {
        !self.shared.connections().contains_key(&self.id)
    }

    /// The largest packet the host may send now: a handshake's packets are small (adb's
    /// CNXN banner, a 2048-bit key or signature), so a stranger cannot make the server set
    /// aside a megabyte before it is online.
    fn max_payload(&self) -> u32 {
        if self.online {
            MAX_PAYLOAD
        } else {
            MAX_PAYLOAD_V1
        }
    }

    /// How long the next read may block: until the handshake deadline, a tick while work
    /// waits for room, else forever.
    fn read_timeout(&self) -> Option<Duration> {
        if !self.online {
            let left = self.shared.options.handshake_timeout.saturating_sub(self.opened.elapsed());
            return Some(left.max(Duration::from_millis(1)));
        }
        self.starved_since.map(|_| TICK)
    }

    /// Periodic work: the handshake deadline, and work waiting for the server's room.
    fn tick(&mut self) -> Result<(), End> {
        if !self.online {
            if self.opened.elapsed() >= self.shared.options.handshake_timeout {
                self.shared.log(format!(
                    "connection {} from {}: closed: no handshake within {} ms",
                    self.id,
                    self.info.peer,
                    self.shared.options.handshake_timeout.as_millis()
                ));
                return Err(End::Disconnect);
            }
            return Ok(());
        }
        if let Some(since) = self.starved_since {
            if since.elapsed() >= PRESSURE_EVICT_AFTER && self.shared.evict_for_room(self.id) {
                self.starved_since = Some(Instant::now());
            }
        }
        self.resume()
    }

    fn send(&mut self, packet: &Packet) -> Result<(), End> {
        self.writer.write_all(&packet.encode()).map_err(End::Write)
    }

    fn new_token(&mut self) -> [u8; 20] {
        self.tokens_sent += 1;
        let mut hasher = blake3::Hasher::new();
        hasher.update(b"phoneworld adb auth token");
        hasher.update(&self.shared.options.auth_seed.to_le_bytes());
        hasher.update(&self.id.to_le_bytes());
        hasher.update(&self.tokens_sent.to_le_bytes());
        let mut token = [0u8; 20];
        token.copy_from_slice(&hasher.finalize().as_bytes()[..20]);
        self.token = token;
        token
    }

    fn go_online(&mut self, version: u32) -> Result<(), End> {
        self.online = true;
        self.info.online.store(true, Ordering::SeqCst);
        let banner = self.shared.options.banner().encode();
        self.send(&Packet::new(command::CNXN, version.min(VERSION), self.max_data as u32, banner))
    }

    pub(crate) fn handle(&mut self, p: Packet) -> Result<(), End> {
        self.info.last_packet_ms.store(self.shared.now_ms(), Ordering::SeqCst);
        let result = self.dispatch(p);
        self.account();
        result
    }

    fn dispatch(&mut self, p: Packet) -> Result<(), End> {
        match p.command {
            command::CNXN => {
                // A (re)connect resets every stream, as adbd does; a connection that was online
                // gets a new handshake deadline.
                if self.online {
                    self.opened = Instant::now();
                }
                self.streams.clear();
                self.deferred.clear();
                self.online = false;
                self.info.online.store(false, Ordering::SeqCst);
                self.max_data = (p.arg1 as usize).clamp(256, MAX_PAYLOAD as usize);
                if self.shared.options.auth.is_enabled() {
                    let token = self.new_token();
                    self.send(&Packet::new(command::AUTH, auth_type::TOKEN, 0, token.to_vec()))
                } else {
                    self.go_online(p.arg0)
                }
            }
            command::AUTH if !self.online => match p.arg0 {
                auth_type::SIGNATURE => {
                    if self.shared.options.auth.accepts_signature(&self.token, &p.payload) {
                        self.go_online(VERSION)
                    } else {
                        let token = self.new_token();
                        self.send(&Packet::new(command::AUTH, auth_type::TOKEN, 0, token.to_vec()))
                    }
                }
                auth_type::RSA_PUBLIC_KEY => {
                    if self.shared.options.auth.accepts_offered_key(&p.payload) {
                        self.go_online(VERSION)
                    } else {
                        // A phone would now ask its user; this one's answer is no, so the host
                        // stays `unauthorized` (until the handshake timeout closes it).
                        self.shared.log(format!("connection {}: refused an unknown public key", self.id));
                        Ok(())
                    }
                }
                _ => Ok(()),
            },
            _ if !self.online => Ok(()),
            command::OPEN => self.open(p.arg0, p.payload),
            command::OKAY => {
                // OKAY(remote, local): the host took our last WRTE on stream `local`.
                if let Some(stream) = self.streams.get_mut(&p.arg1) {
                    if stream.remote == p.arg0 && stream.awaiting_ack {
                        stream.awaiting_ack = false;
                        self.info.unread_since_ms.store(self.shared.now_ms(), Ordering::SeqCst);
                    }
                }
                self.pump(p.arg1)?;
                self.resume()
            }
            command::WRTE => self.write_from_host(p.arg1, p.payload),
            command::CLSE => {
                if p.arg1 == 0 {
                    // The host gave up on an OPEN still waiting for room.
                    self.deferred.retain(|(remote, _)| *remote != p.arg0);
                    return Ok(());
                }
                // Echo a CLSE on a live stream (clients wait for it), ignore it on a dead one.
                if let Some(stream) = self.streams.remove(&p.arg1) {
                    self.send(&Packet::new(command::CLSE, p.arg1, stream.remote, Vec::new()))?;
                }
                self.resume()
            }
            // AUTH once online, and the obsolete SYNC/STLS, are ignored.
            _ => Ok(()),
        }
    }

    /// Host bytes for stream `local`: kept by its service, acknowledged once it has used them.
    fn write_from_host(&mut self, local: u32, payload: Vec<u8>) -> Result<(), End> {
        let input = self.input_bytes();
        let Some(stream) = self.streams.get_mut(&local) else { return Ok(()) };
        let remote = stream.remote;
        let problem = if stream.owe_okay {
            Some("the host wrote again before its last WRTE was acknowledged".to_owned())
        } else if stream.service.is_some() && input + payload.len() > MAX_CONNECTION_INPUT {
            Some(format!("the connection would hold more than {MAX_CONNECTION_INPUT} bytes of unused input"))
        } else {
            None
        };
        if let Some(problem) = problem {
            self.shared.log(format!("connection {} stream {local}: closed: {problem}", self.id));
            self.streams.remove(&local);
            return self.send(&Packet::new(command::CLSE, local, remote, Vec::new()));
        }
        match stream.service.as_mut() {
            Some(service) => {
                service.feed(&payload);
                stream.owe_okay = true;
                self.pump(local)
            }
            // The output is final: the input goes nowhere, as when a command ignores stdin.
            None => self.send(&Packet::new(command::OKAY, local, remote, Vec::new())),
        }
    }

    /// Host bytes held by services and waiting OPENs.
    fn input_bytes(&self) -> usize {
        let services: usize = self.streams.values().filter_map(|s| s.service.as_ref()).map(|s| s.buffered()).sum();
        services + self.deferred.iter().map(|(_, name)| name.len()).sum::<usize>()
    }

    fn pending_bytes(&self) -> usize {
        self.streams.values().map(|s| s.pending.len).sum()
    }

    /// Brings the server's count of this connection's output (and the listener's view of it)
    /// up to date.
    fn account(&mut self) {
        let pending = self.pending_bytes();
        if pending > self.held {
            self.shared.room.hold(pending - self.held);
        } else {
            self.shared.room.give_back(self.held - pending);
        }
        if self.held == 0 && pending > 0 {
            self.info.unread_since_ms.store(self.shared.now_ms(), Ordering::SeqCst);
        }
        self.held = pending;
        self.info.pending.store(pending, Ordering::SeqCst);
        self.info.input.store(self.input_bytes(), Ordering::SeqCst);
        self.info.streams.store(self.streams.len() + self.deferred.len(), Ordering::SeqCst);
    }

    /// May new work start? Not while this connection's output waits, nor while the server's
    /// room is short (then it waits and looks again each tick).
    fn may_start(&mut self) -> bool {
        self.account();
        if self.held >= MAX_CONNECTION_PENDING {
            return false;
        }
        if self.shared.room.free() < MIN_ROOM_TO_START {
            self.starved_since.get_or_insert_with(Instant::now);
            return false;
        }
        true
    }

    /// Retries what waits: deferred OPENs, then streams with work. Work still short of room
    /// keeps the time it started waiting.
    fn resume(&mut self) -> Result<(), End> {
        let waiting_since = self.starved_since.take();
        while !self.deferred.is_empty() && self.may_start() {
            let Some((remote, name)) = self.deferred.pop_front() else { break };
            self.open_now(remote, &name)?;
        }
        let ready: Vec<u32> =
            self.streams.iter().filter(|(_, s)| s.service.as_ref().is_some_and(|v| v.has_work())).map(|(id, _)| *id).collect();
        for local in ready {
            self.pump(local)?;
        }
        if self.starved_since.is_some() {
            self.starved_since = waiting_since.or(self.starved_since);
        }
        Ok(())
    }

    fn refuse(&mut self, remote: u32, why: Option<String>) -> Result<(), End> {
        if let Some(why) = why {
            self.shared.log(format!("connection {}: refused OPEN {remote}: {why}", self.id));
        }
        self.send(&Packet::new(command::CLSE, 0, remote, Vec::new()))
    }

    fn open(&mut self, remote: u32, payload: Vec<u8>) -> Result<(), End> {
        if remote == 0 {
            return self.refuse(remote, None);
        }
        if self.streams.len() + self.deferred.len() >= MAX_STREAMS {
            return self.refuse(remote, Some(format!("{MAX_STREAMS} streams are already open")));
        }
        if self.deferred.is_empty() && self.may_start() {
            return self.open_now(remote, &payload);
        }
        // Wait for the host to read what it asked for before (or for server room).
        if self.deferred.len() >= MAX_DEFERRED_OPENS {
            return self.refuse(remote, Some(format!("{MAX_DEFERRED_OPENS} requests already wait for their output room")));
        }
        if self.input_bytes() + payload.len() > MAX_CONNECTION_INPUT {
            return self.refuse(remote, Some(format!("the connection would hold more than {MAX_CONNECTION_INPUT} bytes of unused input")));
        }
        self.deferred.push_back((remote, payload));
        Ok(())
    }

    fn open_now(&mut self, remote: u32, payload: &[u8]) -> Result<(), End> {
        let service = String::from_utf8_lossy(strip_trailing_nuls(payload)).into_owned();
        let opened = {
            let mut budget = Budget::new(Some(Arc::clone(&self.shared.room)));
            services::open(&service, &self.shared.phone, &mut budget)
        };
        let (service, first, disconnect_after) = match opened {
            Opened::Refused(why) => return self.refuse(remote, why),
            Opened::Reply(bytes) => (None, bytes, false),
            Opened::Stream(service, bytes) => (Some(service), bytes, false),
            Opened::ReplyThenDisconnect(bytes) => (None, bytes, true),
        };
        let local = self.allocate_id();
        let mut pending = Pending::default();
        pending.push(first);
        self.streams.insert(local, Stream { remote, pending, awaiting_ack: false, owe_okay: false, service, disconnect_after });
        self.account();
        self.send(&Packet::new(command::OKAY, local, remote, Vec::new()))?;
        self.flush(local)
    }

    fn allocate_id(&mut self) -> u32 {
        loop {
            let id = self.next_id;
            self.next_id = self.next_id.wrapping_add(1).max(1);
            if !self.streams.contains_key(&id) {
                return id;
            }
        }
    }

    /// Runs the stream's service while its output is read and there is room, acknowledges the
    /// host's last WRTE once the service has used it, and sends what it can.
    fn pump(&mut self, local: u32) -> Result<(), End> {
        loop {
            let Some(stream) = self.streams.get(&local) else { return Ok(()) };
            let ready = stream.service.as_ref().is_some_and(|s| s.has_work());
            if !ready || stream.pending.len >= MAX_STREAM_PENDING || !self.may_start() {
                break;
            }
            let Some(stream) = self.streams.get_mut(&local) else { return Ok(()) };
            let Some(service) = stream.service.as_mut() else { break };
            let mut out = Vec::new();
            {
                let mut budget = Budget::new(Some(Arc::clone(&self.shared.room)));
                service.step(&self.shared.phone, &mut budget, &mut out);
            }
            if service.finished() {
                stream.service = None;
            }
            stream.pending.push(out);
            self.account();
        }
        let Some(stream) = self.streams.get_mut(&local) else { return Ok(()) };
        if stream.owe_okay && !stream.service.as_ref().is_some_and(|s| s.has_work()) {
            stream.owe_okay = false;
            let remote = stream.remote;
            self.send(&Packet::new(command::OKAY, local, remote, Vec::new()))?;
        }
        self.flush(local)
    }

    /// Sends the stream's next chunk if the host has acknowledged the last one; closes the
    /// stream once its final output is all acknowledged.
    fn flush(&mut self, local: u32) -> Result<(), End> {
        let max = self.max_data;
        let Some(stream) = self.streams.get_mut(&local) else { return Ok(()) };
        if stream.awaiting_ack {
            return Ok(());
        }
        let remote = stream.remote;
        if stream.pending.len > 0 {
            let chunk = stream.pending.take(max);
            stream.awaiting_ack = true;
            self.account();
            return self.send(&Packet::new(command::WRTE, local, remote, chunk));
        }
        if stream.service.is_none() {
            let disconnect = stream.disconnect_after;
            self.streams.remove(&local);
            self.account();
            self.send(&Packet::new(command::CLSE, local, remote, Vec::new()))?;
            if disconnect {
                return Err(End::Disconnect);
            }
        }
        Ok(())
    }
}

impl<W: Write> Drop for Connection<'_, W> {
    fn drop(&mut self) {
        self.shared.room.give_back(self.held);
        self.info.pending.store(0, Ordering::SeqCst);
        self.info.input.store(0, Ordering::SeqCst);
    }
}

/// Drives one connection over in-memory bytes (for fuzzing): `input` is what the host sends;
/// what the server answers is discarded. Returns the server's log.
pub(crate) fn drive(phone: SharedPhone, input: &[u8]) -> Vec<String> {
    let shared = Shared::new(phone, ServerOptions::default());
    let info = Arc::new(ConnInfo::new(None, "fuzz".into(), 0));
    shared.connections().insert(1, Arc::clone(&info));
    {
        let mut conn = Connection::new(std::io::sink(), &shared, info, 1);
        let mut reader = PacketReader::new(input);
        loop {
            reader.max_payload = conn.max_payload();
            let Ok(Some(packet)) = reader.read_packet() else { break };
            if conn.handle(packet).is_err() {
                break;
            }
        }
        let _ = conn.tick();
    }
    let log = shared.errors.lock().unwrap_or_else(std::sync::PoisonError::into_inner).iter().cloned().collect();
    log
}
