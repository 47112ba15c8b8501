//! The device side of ADB over TCP: a listener thread, one thread per connection, the CNXN
//! handshake (optionally with AUTH), and streams with ADB's flow control (at most one
//! unacknowledged WRTE per stream, no delayed acks). A broken connection ends alone; the
//! server and the phone go on.

use std::collections::{BTreeMap, VecDeque};
use std::io::Write;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use crate::auth::AuthPolicy;
use crate::protocol::{auth_type, command, strip_trailing_nuls, Banner, Packet, PacketReader, ProtocolError, MAX_PAYLOAD, VERSION};
use crate::services::{self, Opened, StreamService};
use crate::session::SharedPhone;

/// The features this device advertises: shell protocol v2, `cmd`, stat/ls v2, and creating
/// parent folders on push. Newer-host features (delayed acks, send/recv v2) are left out, so
/// every host uses plain one-WRTE-per-OKAY flow control.
pub const DEFAULT_FEATURES: [&str; 5] = ["shell_v2", "cmd", "stat_v2", "ls_v2", "fixed_push_mkdir"];

/// At most this many connections at once; more are closed on arrival.
const MAX_CONNECTIONS: usize = 64;
/// At most this many open streams per connection; more OPENs are refused.
const MAX_STREAMS: usize = 1024;
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
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            auth: AuthPolicy::Disabled,
            features: DEFAULT_FEATURES.iter().map(|f| (*f).to_owned()).collect(),
            product: ("phoneworld".into(), "PhoneWorld".into(), "phoneworld".into()),
            auth_seed: 0,
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

/// State shared by the listener, the connections and the handle.
#[derive(Debug)]
struct Shared {
    phone: SharedPhone,
    options: ServerOptions,
    stopping: AtomicBool,
    /// While true, connections read nothing and answer nothing (a hung device).
    stalled: Mutex<bool>,
    wake: Condvar,
    /// Open connections, to shut their sockets down on stop.
    connections: Mutex<BTreeMap<u64, TcpStream>>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    errors: Mutex<VecDeque<String>>,
    next_connection: AtomicU64,
}

impl Shared {
    fn log(&self, message: String) {
        let mut errors = self.errors.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if errors.len() >= MAX_ERRORS {
            errors.pop_front();
        }
        errors.push_back(message);
    }

    /// Blocks while the server is stalled; false once it is stopping.
    fn wait_unstalled(&self) -> bool {
        let mut stalled = self.stalled.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        while *stalled && !self.stopping.load(Ordering::SeqCst) {
            stalled = self.wake.wait(stalled).unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        !self.stopping.load(Ordering::SeqCst)
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
        let shared = Arc::new(Shared {
            phone,
            options,
            stopping: AtomicBool::new(false),
            stalled: Mutex::new(false),
            wake: Condvar::new(),
            connections: Mutex::new(BTreeMap::new()),
            threads: Mutex::new(Vec::new()),
            errors: Mutex::new(VecDeque::new()),
            next_connection: AtomicU64::new(1),
        });
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
        if self.shared.stopping.swap(true, Ordering::SeqCst) {
            // Already stopping: still wait for the threads below.
        }
        self.shared.wake.notify_all();
        // Wake the listener out of accept() by connecting to it.
        let wake_addr = if self.local_addr.ip().is_unspecified() {
            SocketAddr::new(std::net::Ipv4Addr::LOCALHOST.into(), self.local_addr.port())
        } else {
            self.local_addr
        };
        let _ = TcpStream::connect_timeout(&wake_addr, std::time::Duration::from_millis(200));
        if let Some(accept) = self.accept.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take() {
            let _ = accept.join();
        }
        for (_, stream) in std::mem::take(&mut *self.shared.connections.lock().unwrap_or_else(std::sync::PoisonError::into_inner)) {
            let _ = stream.shutdown(Shutdown::Both);
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

    /// Connection errors so far (malformed packets, oversized payloads, resets), oldest first.
    pub fn errors(&self) -> Vec<String> {
        self.shared.errors.lock().unwrap_or_else(std::sync::PoisonError::into_inner).iter().cloned().collect()
    }

    /// Connections open now.
    pub fn connection_count(&self) -> usize {
        self.shared.connections.lock().unwrap_or_else(std::sync::PoisonError::into_inner).len()
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
        {
            let mut connections = shared.connections.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if connections.len() >= MAX_CONNECTIONS {
                shared.log(format!("connection {id} from {peer}: refused, {MAX_CONNECTIONS} connections already open"));
                let _ = stream.shutdown(Shutdown::Both);
                continue;
            }
            match stream.try_clone() {
                Ok(clone) => {
                    connections.insert(id, clone);
                }
                Err(e) => {
                    shared.log(format!("connection {id} from {peer}: {e}"));
                    continue;
                }
            }
        }
        let for_thread = Arc::clone(&shared);
        let spawned = std::thread::Builder::new().name(format!("adb-conn-{id}")).spawn(move || {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| serve_connection(stream, id, &peer, &for_thread)));
            if result.is_err() {
                for_thread.log(format!("connection {id} from {peer}: internal error; the connection was closed"));
            }
            if let Some(s) = for_thread.connections.lock().unwrap_or_else(std::sync::PoisonError::into_inner).remove(&id) {
                let _ = s.shutdown(Shutdown::Both);
            }
        });
        let mut threads = shared.threads.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        threads.retain(|t| !t.is_finished());
        match spawned {
            Ok(t) => threads.push(t),
            Err(e) => shared.log(format!("connection {id}: cannot start its thread: {e}")),
        }
    }
}

/// One open stream: the host's id, output waiting to be sent, and the service reading input.
struct Stream {
    remote: u32,
    pending: VecDeque<u8>,
    /// A WRTE is out and its OKAY has not come back.
    awaiting_ack: bool,
    /// Still reading host bytes (None: the output is final; close once it is sent).
    service: Option<Box<dyn StreamService>>,
    /// Drop the whole connection once this stream is closed (reboot).
    disconnect_after: bool,
}

/// Why a connection ends.
enum End {
    Write(std::io::Error),
    Disconnect,
}

struct Connection<'a> {
    writer: TcpStream,
    shared: &'a Shared,
    online: bool,
    /// Largest payload we may send (the peer's maxdata, capped).
    max_data: usize,
    streams: BTreeMap<u32, Stream>,
    next_id: u32,
    token: [u8; 20],
    tokens_sent: u64,
    id: u64,
}

fn serve_connection(stream: TcpStream, id: u64, peer: &str, shared: &Shared) {
    let _ = stream.set_nodelay(true);
    let writer = match stream.try_clone() {
        Ok(w) => w,
        Err(e) => return shared.log(format!("connection {id} from {peer}: {e}")),
    };
    let mut reader = PacketReader::new(stream);
    let mut conn = Connection {
        writer,
        shared,
        online: false,
        max_data: MAX_PAYLOAD as usize,
        streams: BTreeMap::new(),
        next_id: 1,
        token: [0; 20],
        tokens_sent: 0,
        id,
    };
    loop {
        if !shared.wait_unstalled() {
            break;
        }
        match reader.read_packet() {
            Ok(Some(packet)) => {
                if !shared.wait_unstalled() {
                    break;
                }
                match conn.handle(packet) {
                    Ok(()) => {}
                    Err(End::Disconnect) => break,
                    Err(End::Write(e)) => {
                        if !shared.stopping.load(Ordering::SeqCst) {
                            shared.log(format!("connection {id} from {peer}: writing: {e}"));
                        }
                        break;
                    }
                }
            }
            Ok(None) => break,
            Err(ProtocolError::Io(e)) => {
                if !shared.stopping.load(Ordering::SeqCst) {
                    shared.log(format!("connection {id} from {peer}: {e}"));
                }
                break;
            }
            Err(e) => {
                // adbd drops a connection with a bad header; so does this server, alone.
                shared.log(format!("connection {id} from {peer}: {e}"));
                break;
            }
        }
    }
    let _ = conn.writer.shutdown(Shutdown::Both);
}

impl Connection<'_> {
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
        let banner = self.shared.options.banner().encode();
        self.send(&Packet::new(command::CNXN, version.min(VERSION), self.max_data as u32, banner))
    }

    fn handle(&mut self, p: Packet) -> Result<(), End> {
        match p.command {
            command::CNXN => {
                // A (re)connect resets every stream, as adbd does.
                self.streams.clear();
                self.online = false;
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
                        // stays `unauthorized`.
                        self.shared.log(format!("connection {}: refused an unknown public key", self.id));
                        Ok(())
                    }
                }
                _ => Ok(()),
            },
            _ if !self.online => Ok(()),
            command::OPEN => self.open(p),
            command::OKAY => {
                // OKAY(remote, local): the host took our last WRTE on stream `local`.
                if let Some(stream) = self.streams.get_mut(&p.arg1) {
                    if stream.remote == p.arg0 {
                        stream.awaiting_ack = false;
                    }
                }
                self.flush(p.arg1)
            }
            command::WRTE => {
                let local = p.arg1;
                let Some(stream) = self.streams.get_mut(&local) else { return Ok(()) };
                let remote = stream.remote;
                let mut out = Vec::new();
                let mut finished = false;
                if let Some(service) = stream.service.as_mut() {
                    finished = service.input(&p.payload, &self.shared.phone, &mut out);
                }
                stream.pending.extend(out);
                if finished {
                    stream.service = None;
                }
                self.send(&Packet::new(command::OKAY, local, remote, Vec::new()))?;
                self.flush(local)
            }
            command::CLSE => {
                // Echo a CLSE on a live stream (clients wait for it), ignore it on a dead one.
                if let Some(stream) = self.streams.remove(&p.arg1) {
                    self.send(&Packet::new(command::CLSE, p.arg1, stream.remote, Vec::new()))?;
                }
                Ok(())
            }
            // AUTH once online, and the obsolete SYNC/STLS, are ignored.
            _ => Ok(()),
        }
    }

    fn open(&mut self, p: Packet) -> Result<(), End> {
        let remote = p.arg0;
        let service = String::from_utf8_lossy(strip_trailing_nuls(&p.payload)).into_owned();
        if remote == 0 || self.streams.len() >= MAX_STREAMS {
            return self.send(&Packet::new(command::CLSE, 0, remote, Vec::new()));
        }
        let opened = services::open(&service, &self.shared.phone);
        let (service, first, disconnect_after) = match opened {
            Opened::Refused => return self.send(&Packet::new(command::CLSE, 0, remote, Vec::new())),
            Opened::Reply(bytes) => (None, bytes, false),
            Opened::Stream(service, bytes) => (Some(service), bytes, false),
            Opened::ReplyThenDisconnect(bytes) => (None, bytes, true),
        };
        let local = self.allocate_id();
        self.streams.insert(local, Stream { remote, pending: first.into(), awaiting_ack: false, service, disconnect_after });
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

    /// Sends the stream's next chunk if the host has acknowledged the last one; closes the
    /// stream once its final output is all acknowledged.
    fn flush(&mut self, local: u32) -> Result<(), End> {
        let max = self.max_data;
        let Some(stream) = self.streams.get_mut(&local) else { return Ok(()) };
        if stream.awaiting_ack {
            return Ok(());
        }
        let remote = stream.remote;
        if !stream.pending.is_empty() {
            let n = stream.pending.len().min(max);
            let chunk: Vec<u8> = stream.pending.drain(..n).collect();
            stream.awaiting_ack = true;
            return self.send(&Packet::new(command::WRTE, local, remote, chunk));
        }
        if stream.service.is_none() {
            let disconnect = stream.disconnect_after;
            self.streams.remove(&local);
            self.send(&Packet::new(command::CLSE, local, remote, Vec::new()))?;
            if disconnect {
                return Err(End::Disconnect);
            }
        }
        Ok(())
    }
}
