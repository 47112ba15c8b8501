//! The `sync:` service: file transfer requests (STAT, STA2/LST2, LIST, LIS2, RECV, SEND, QUIT)
//! over the device's in-memory files. Requests arrive as a byte stream cut at arbitrary points,
//! so they are parsed incrementally.

use std::sync::Arc;

use crate::fs::{resolve_strict, FsError, Stat};
use crate::session::{SharedPhone, UploadReservation};

/// A request's path may be at most this long.
pub const MAX_PATH: usize = 1024;
/// A DATA chunk carries at most this much.
pub const MAX_CHUNK: usize = 64 * 1024;
/// `S_IFLNK`: symlinks cannot be pushed into the in-memory tree.
const S_IFLNK: u32 = 0o120_000;
/// The requests that carry a path.
const REQUESTS: [&[u8; 4]; 7] = [b"STAT", b"STA2", b"LST2", b"LIST", b"LIS2", b"RECV", b"SEND"];

fn id(tag: &[u8; 4]) -> u32 {
    u32::from_le_bytes(*tag)
}

/// Appends `FAIL len msg`.
pub fn fail(out: &mut Vec<u8>, message: &str) {
    out.extend_from_slice(b"FAIL");
    out.extend_from_slice(&(message.len() as u32).to_le_bytes());
    out.extend_from_slice(message.as_bytes());
}

/// The 16-byte v1 STAT reply (all zero when the file is missing).
pub fn stat_v1(stat: Option<Stat>) -> [u8; 16] {
    let mut out = [0u8; 16];
    out[..4].copy_from_slice(b"STAT");
    if let Some(s) = stat {
        out[4..8].copy_from_slice(&s.mode.to_le_bytes());
        out[8..12].copy_from_slice(&(s.size.min(u64::from(u32::MAX)) as u32).to_le_bytes());
        out[12..16].copy_from_slice(&s.mtime.to_le_bytes());
    }
    out
}

/// The v2 stat fields after the id: error, dev, ino, mode, nlink, uid, gid, size, atime, mtime,
/// ctime (68 bytes).
fn stat_v2_fields(out: &mut Vec<u8>, stat: Result<Stat, u32>) {
    match stat {
        Ok(s) => {
            out.extend_from_slice(&0u32.to_le_bytes());
            out.extend_from_slice(&0x0803u64.to_le_bytes());
            out.extend_from_slice(&s.ino.to_le_bytes());
            out.extend_from_slice(&s.mode.to_le_bytes());
            out.extend_from_slice(&(if s.mode & 0o040_000 != 0 { 2u32 } else { 1 }).to_le_bytes());
            out.extend_from_slice(&0u32.to_le_bytes());
            out.extend_from_slice(&1015u32.to_le_bytes());
            out.extend_from_slice(&s.size.to_le_bytes());
            for _ in 0..3 {
                out.extend_from_slice(&i64::from(s.mtime).to_le_bytes());
            }
        }
        Err(errno) => {
            out.extend_from_slice(&errno.to_le_bytes());
            out.extend_from_slice(&[0u8; 64]);
        }
    }
}

/// The 72-byte STA2/LST2 reply.
pub fn stat_v2(tag: &[u8; 4], stat: Result<Stat, u32>) -> Vec<u8> {
    let mut out = Vec::with_capacity(72);
    out.extend_from_slice(tag);
    stat_v2_fields(&mut out, stat);
    out
}

#[derive(Debug)]
enum State {
    /// Waiting for a request header and path.
    Request,
    /// Receiving the DATA chunks of a SEND; the bytes held are set aside from the files' space.
    Receiving { path: String, mode: u32, data: Vec<u8>, error: Option<String>, reserved: Option<UploadReservation> },
    /// Sending a RECV's file, one DATA chunk per step.
    Sending { data: Arc<Vec<u8>>, at: usize },
    /// After QUIT or a failure: nothing more is read.
    Finished,
}

/// One `sync:` stream. The server feeds it the host's bytes and runs it one unit of work at
/// a time (one request, one DATA chunk received or sent), so a big RECV is sent as the host
/// takes it instead of all at once.
#[derive(Debug)]
pub struct SyncService {
    buf: Vec<u8>,
    /// Bytes of `buf` already used.
    at: usize,
    state: State,
}

impl Default for SyncService {
    fn default() -> Self {
        SyncService::new()
    }
}

/// What the unit at the start of the buffer is, once enough of it has arrived.
enum Unit {
    /// `8 + len` bytes: a request with its path, or a DATA chunk.
    Whole(usize),
    /// A header alone (QUIT, DONE) or a malformed one that ends the stream.
    Header,
}

impl SyncService {
    pub fn new() -> SyncService {
        SyncService { buf: Vec::new(), at: 0, state: State::Request }
    }

    /// Has the client quit (or did a failure end the stream)?
    pub fn finished(&self) -> bool {
        matches!(self.state, State::Finished)
    }

    /// Consumes bytes from the host, appending every reply to `out` (all the work at once).
    pub fn input(&mut self, data: &[u8], phone: &SharedPhone, out: &mut Vec<u8>) {
        self.feed(data);
        while self.has_work() {
            self.step(phone, out);
        }
    }

    /// Buffers bytes from the host; [`SyncService::step`] uses them.
    pub fn feed(&mut self, data: &[u8]) {
        if self.finished() {
            return;
        }
        if self.at > 0 {
            self.buf.drain(..self.at.min(self.buf.len()));
            self.at = 0;
        }
        self.buf.extend_from_slice(data);
    }

    /// Host bytes held and not yet used.
    pub fn buffered(&self) -> usize {
        self.buf.len().saturating_sub(self.at)
    }

    /// Is a unit of work ready (a whole request, a chunk to take or to send)?
    pub fn has_work(&self) -> bool {
        match self.state {
            State::Finished => false,
            State::Sending { .. } => true,
            _ => self.unit().is_some(),
        }
    }

    fn unit(&self) -> Option<Unit> {
        let buf = &self.buf[self.at.min(self.buf.len())..];
        if buf.len() < 8 {
            return None;
        }
        let tag: [u8; 4] = [buf[0], buf[1], buf[2], buf[3]];
        let len = u32::from_le_bytes([buf[4], buf[5], buf[6], buf[7]]) as usize;
        let with_body = match self.state {
            State::Receiving { .. } => &tag == b"DATA" && len <= MAX_CHUNK,
            _ => REQUESTS.contains(&&tag) && len <= MAX_PATH,
        };
        if !with_body {
            return Some(Unit::Header);
        }
        (buf.len() - 8 >= len).then_some(Unit::Whole(8 + len))
    }

    /// Does one unit of work, appending its reply to `out`.
    pub fn step(&mut self, phone: &SharedPhone, out: &mut Vec<u8>) {
        if self.finished() {
            return;
        }
        if let State::Sending { data, at } = &mut self.state {
            let end = (*at + MAX_CHUNK).min(data.len());
            if *at < end {
                out.extend_from_slice(b"DATA");
                out.extend_from_slice(&((end - *at) as u32).to_le_bytes());
                out.extend_from_slice(&data[*at..end]);
                *at = end;
            }
            if end >= data.len() {
                out.extend_from_slice(b"DONE\0\0\0\0");
                self.state = State::Request;
            }
            return;
        }
        let Some(unit) = self.unit() else { return };
        let start = self.at;
        let used = match unit {
            Unit::Whole(n) => n,
            Unit::Header => 8,
        };
        let buf = std::mem::take(&mut self.buf);
        self.at += used;
        self.handle(&buf[start..start + used], phone, out);
        if self.finished() {
            self.at = 0;
        } else {
            self.buf = buf;
        }
    }

    /// Handles one whole unit: a header and, for requests and DATA, its body.
    fn handle(&mut self, unit: &[u8], phone: &SharedPhone, out: &mut Vec<u8>) {
        let tag: [u8; 4] = [unit[0], unit[1], unit[2], unit[3]];
        let len = u32::from_le_bytes([unit[4], unit[5], unit[6], unit[7]]) as usize;
        let body = &unit[8..];
        if let State::Receiving { .. } = self.state {
            return self.receive(tag, len, body, phone, out);
        }
        if id(&tag) == id(b"QUIT") {
            self.state = State::Finished;
            return;
        }
        if !REQUESTS.contains(&&tag) {
            fail(out, &format!("unknown sync request {:?}", String::from_utf8_lossy(&tag)));
            self.state = State::Finished;
            return;
        }
        if len > MAX_PATH {
            fail(out, &format!("path too long: {len} bytes (at most {MAX_PATH})"));
            self.state = State::Finished;
            return;
        }
        let raw = String::from_utf8_lossy(body).into_owned();
        match &tag {
            b"STAT" => {
                let stat = resolve_strict(&raw).ok().and_then(|p| phone.lock().files().stat(&p).ok());
                out.extend_from_slice(&stat_v1(stat));
            }
            b"STA2" | b"LST2" => {
                let stat = resolve_strict(&raw).and_then(|p| phone.lock().files().stat(&p)).map_err(|e| e.errno());
                out.extend_from_slice(&stat_v2(&tag, stat));
            }
            b"LIST" | b"LIS2" => self.list(&raw, &tag == b"LIS2", phone, out),
            b"RECV" => match resolve_strict(&raw).and_then(|p| phone.lock().files().read(&p)) {
                Ok(data) => self.state = State::Sending { data, at: 0 },
                Err(e) => {
                    fail(out, &failure_text("open", &e));
                    self.state = State::Finished;
                }
            },
            _ => self.start_send(&raw),
        }
    }

    /// SEND "path,mode": the mode is the decimal after the last comma.
    fn start_send(&mut self, raw: &str) {
        let (path, mode) = match raw.rsplit_once(',') {
            Some((p, m)) => (p.to_owned(), m.trim().parse::<u32>().ok()),
            None => (raw.to_owned(), Some(0o100_644)),
        };
        let error = match (mode, resolve_strict(&path)) {
            (None, _) => Some(format!("bad mode in SEND request `{raw}`")),
            (Some(m), _) if m & 0o170_000 == S_IFLNK => Some(format!("{path}: symlinks are not supported on this device")),
            (_, Err(e)) => Some(failure_text("open", &e)),
            (Some(_), Ok(_)) => None,
        };
        let path = resolve_strict(&path).unwrap_or(path);
        self.state = State::Receiving { path, mode: mode.unwrap_or(0o644), data: Vec::new(), error, reserved: None };
    }

    fn receive(&mut self, tag: [u8; 4], len: usize, body: &[u8], phone: &SharedPhone, out: &mut Vec<u8>) {
        let State::Receiving { path, mode, data, error, reserved } = &mut self.state else { return };
        match &tag {
            b"DATA" if len > MAX_CHUNK => {
                fail(out, &format!("DATA chunk of {len} bytes is above the limit of {MAX_CHUNK}"));
                self.state = State::Finished;
            }
            b"DATA" => {
                if error.is_some() {
                    return;
                }
                let room = if data.len() + len > crate::fs::MAX_FILE_BYTES {
                    Err(crate::fs::FsError::NoSpace { path: path.clone() })
                } else {
                    phone.lock().reserve_upload(path, len)
                };
                match room {
                    Ok(more) => {
                        match reserved {
                            Some(held) => held.absorb(more),
                            None => *reserved = Some(more),
                        }
                        data.extend_from_slice(body);
                    }
                    Err(_) => {
                        *error = Some(format!("{path}: No space left on device"));
                        *data = Vec::new();
                        *reserved = None;
                    }
                }
            }
            b"DONE" => {
                // `len` is the file's mtime here.
                let result = match error.take() {
                    Some(e) => Err(e),
                    None => {
                        let mut session = phone.lock();
                        let files = session.files_mut();
                        let parent = path.rsplit_once('/').map_or("/", |(p, _)| if p.is_empty() { "/" } else { p }).to_owned();
                        files
                            .mkdir_all(&parent, len as u32)
                            .and_then(|()| files.write(path, data, false, *mode & 0o7777, len as u32))
                            .map_err(|e| failure_text("write", &e))
                    }
                };
                match result {
                    Ok(()) => {
                        out.extend_from_slice(b"OKAY\0\0\0\0");
                        self.state = State::Request;
                    }
                    Err(e) => {
                        fail(out, &e);
                        self.state = State::Finished;
                    }
                }
            }
            other => {
                fail(out, &format!("expected DATA or DONE during SEND, got {:?}", String::from_utf8_lossy(other)));
                self.state = State::Finished;
            }
        }
    }

    fn list(&mut self, raw: &str, v2: bool, phone: &SharedPhone, out: &mut Vec<u8>) {
        let session = phone.lock();
        let files = session.files();
        let listing: Vec<(String, Stat)> = match resolve_strict(raw) {
            Ok(dir) => match files.children(&dir) {
                Ok(children) => {
                    let mut rows = Vec::new();
                    for name in [".", ".."] {
                        let at = if name == "." {
                            dir.clone()
                        } else {
                            dir.rsplit_once('/').map_or("/".into(), |(p, _)| if p.is_empty() { "/".into() } else { p.to_owned() })
                        };
                        if let Ok(stat) = files.stat(&at) {
                            rows.push((name.to_owned(), stat));
                        }
                    }
                    for (name, _) in children {
                        let child = if dir == "/" { format!("/{name}") } else { format!("{dir}/{name}") };
                        if let Ok(stat) = files.stat(&child) {
                            rows.push((name, stat));
                        }
                    }
                    rows
                }
                Err(_) => Vec::new(),
            },
            Err(_) => Vec::new(),
        };
        for (name, stat) in listing {
            if v2 {
                out.extend_from_slice(b"DNT2");
                stat_v2_fields(out, Ok(stat));
            } else {
                out.extend_from_slice(&stat_v1(Some(stat)));
                let n = out.len();
                out[n - 16..n - 12].copy_from_slice(b"DENT");
            }
            out.extend_from_slice(&(name.len() as u32).to_le_bytes());
            out.extend_from_slice(name.as_bytes());
        }
        out.extend_from_slice(b"DONE");
        out.extend_from_slice(&vec![0u8; if v2 { 72 } else { 16 }]);
    }
}

/// `open failed: No such file or directory`, as adbd words it.
fn failure_text(op: &str, err: &FsError) -> String {
    let reason = err.to_string();
    let reason = reason.rsplit(": ").next().unwrap_or(&reason).to_owned();
    match err {
        FsError::Escapes { path } => format!("{op} failed: {path}: the path leaves the device's root"),
        _ => format!("{op} failed: {reason}"),
    }
}
