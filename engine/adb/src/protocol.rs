//! The ADB device protocol's packets: a 24-byte little-endian header (command, two arguments,
//! payload length, payload byte sum, magic) followed by the payload.

use std::io::Read;

/// The commands of the device protocol, as the u32 whose little-endian bytes spell the tag.
pub mod command {
    pub const CNXN: u32 = 0x4e58_4e43;
    pub const AUTH: u32 = 0x4854_5541;
    pub const OPEN: u32 = 0x4e45_504f;
    pub const OKAY: u32 = 0x5941_4b4f;
    pub const WRTE: u32 = 0x4554_5257;
    pub const CLSE: u32 = 0x4553_4c43;
    /// TLS upgrade of newer adbd; never sent by this server.
    pub const STLS: u32 = 0x534c_5453;
    /// Obsolete; refused like any unknown command.
    pub const SYNC: u32 = 0x434e_5953;
}

/// AUTH packet types (arg0).
pub mod auth_type {
    pub const TOKEN: u32 = 1;
    pub const SIGNATURE: u32 = 2;
    pub const RSA_PUBLIC_KEY: u32 = 3;
}

/// The oldest protocol version (hosts that checksum every packet, e.g. adb-shell).
pub const VERSION_MIN: u32 = 0x0100_0000;
/// The version this server speaks (checksums optional on receipt).
pub const VERSION: u32 = 0x0100_0001;
/// The largest payload either side may send.
pub const MAX_PAYLOAD: u32 = 1024 * 1024;
/// CNXN and AUTH payloads never exceed this, whatever was negotiated.
pub const MAX_PAYLOAD_V1: u32 = 4096;
/// Header size in bytes.
pub const HEADER_LEN: usize = 24;

/// A malformed packet: what was wrong and at which byte offset of the connection.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ProtocolError {
    #[error("byte {offset}: field `magic` is {found:#010x}, expected {expected:#010x} (command {command:#010x} inverted)")]
    BadMagic { offset: u64, command: u32, found: u32, expected: u32 },
    #[error("byte {offset}: field `command` {command:#010x} ({tag}) is not an ADB command")]
    UnknownCommand { offset: u64, command: u32, tag: String },
    #[error("byte {offset}: field `data_length` is {length}, above the limit of {max} bytes")]
    PayloadTooLarge { offset: u64, length: u32, max: u32 },
    #[error("byte {offset}: the connection ended inside a packet ({have} of {need} bytes)")]
    Truncated { offset: u64, have: usize, need: usize },
    #[error("byte {offset}: field `data_check` is {found:#x}, but the payload sums to {computed:#x}")]
    BadChecksum { offset: u64, found: u32, computed: u32 },
    #[error("reading the connection: {0}")]
    Io(String),
    /// The read timeout passed; the bytes read so far are kept and the next call goes on.
    #[error("no bytes within the read timeout")]
    TimedOut,
}

/// One packet.
#[derive(Clone, PartialEq, Eq)]
pub struct Packet {
    pub command: u32,
    pub arg0: u32,
    pub arg1: u32,
    pub payload: Vec<u8>,
}

impl std::fmt::Debug for Packet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shown: String = String::from_utf8_lossy(&self.payload[..self.payload.len().min(48)]).escape_debug().collect();
        write!(f, "{}({:#x}, {:#x}, {} bytes {:?})", tag(self.command), self.arg0, self.arg1, self.payload.len(), shown)
    }
}

/// The four ASCII letters of a command, or its hex value when they are not printable.
pub fn tag(command: u32) -> String {
    let bytes = command.to_le_bytes();
    if bytes.iter().all(|b| b.is_ascii_graphic()) {
        bytes.iter().map(|&b| b as char).collect()
    } else {
        format!("{command:#010x}")
    }
}

/// The unsigned byte sum that ADB calls `data_crc32`.
pub fn checksum(payload: &[u8]) -> u32 {
    payload.iter().fold(0u32, |sum, &b| sum.wrapping_add(u32::from(b)))
}

fn is_known(command: u32) -> bool {
    use command::*;
    matches!(command, CNXN | AUTH | OPEN | OKAY | WRTE | CLSE | STLS | SYNC)
}

impl Packet {
    pub fn new(command: u32, arg0: u32, arg1: u32, payload: impl Into<Vec<u8>>) -> Packet {
        Packet { command, arg0, arg1, payload: payload.into() }
    }

    /// Header and payload as sent on the wire; the byte sum is always filled, since hosts that
    /// negotiated the oldest version verify it.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN + self.payload.len());
        self.encode_into(&mut out);
        out
    }

    pub fn encode_into(&self, out: &mut Vec<u8>) {
        for field in [self.command, self.arg0, self.arg1, self.payload.len() as u32, checksum(&self.payload), self.command ^ 0xffff_ffff] {
            out.extend_from_slice(&field.to_le_bytes());
        }
        out.extend_from_slice(&self.payload);
    }
}

/// A decoded header: the command, its arguments and how much payload follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Header {
    pub command: u32,
    pub arg0: u32,
    pub arg1: u32,
    pub data_length: u32,
    pub data_check: u32,
}

/// Checks and decodes a header that starts at byte `offset` of the connection.
pub fn decode_header(bytes: &[u8; HEADER_LEN], offset: u64, max_payload: u32) -> Result<Header, ProtocolError> {
    let field = |i: usize| u32::from_le_bytes([bytes[i * 4], bytes[i * 4 + 1], bytes[i * 4 + 2], bytes[i * 4 + 3]]);
    let (command, arg0, arg1, data_length, data_check, magic) = (field(0), field(1), field(2), field(3), field(4), field(5));
    if magic != command ^ 0xffff_ffff {
        return Err(ProtocolError::BadMagic { offset: offset + 20, command, found: magic, expected: command ^ 0xffff_ffff });
    }
    if !is_known(command) {
        return Err(ProtocolError::UnknownCommand { offset, command, tag: tag(command) });
    }
    let limit = if matches!(command, command::CNXN | command::AUTH) { max_payload.max(MAX_PAYLOAD_V1) } else { max_payload };
    if data_length > limit {
        return Err(ProtocolError::PayloadTooLarge { offset: offset + 12, length: data_length, max: limit });
    }
    Ok(Header { command, arg0, arg1, data_length, data_check })
}

/// Reads packets from a byte stream, keeping count of the offset for error messages. A read
/// timeout on the stream gives [`ProtocolError::TimedOut`] and keeps the partial packet, so
/// the next call resumes where it stopped.
#[derive(Debug)]
pub struct PacketReader<R> {
    inner: R,
    offset: u64,
    /// The largest payload accepted; MAX_PAYLOAD until the handshake says otherwise.
    pub max_payload: u32,
    /// Verify `data_check` (the host side of adb-shell does; adbd does not).
    pub verify_checksum: bool,
    /// The packet being read: its start offset, header bytes, decoded header and payload so far.
    start: u64,
    header: [u8; HEADER_LEN],
    header_len: usize,
    decoded: Option<Header>,
    payload: Vec<u8>,
    payload_len: usize,
}

impl<R: Read> PacketReader<R> {
    pub fn new(inner: R) -> PacketReader<R> {
        PacketReader {
            inner,
            offset: 0,
            max_payload: MAX_PAYLOAD,
            verify_checksum: false,
            start: 0,
            header: [0; HEADER_LEN],
            header_len: 0,
            decoded: None,
            payload: Vec::new(),
            payload_len: 0,
        }
    }

    /// Bytes consumed so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// Bytes of a packet read but not yet complete.
    pub fn partial_len(&self) -> usize {
        self.header_len + self.payload_len
    }

    /// The next packet, `Ok(None)` at a clean end of stream (between packets).
    pub fn read_packet(&mut self) -> Result<Option<Packet>, ProtocolError> {
        if self.header_len == 0 && self.decoded.is_none() {
            self.start = self.offset;
        }
        while self.header_len < HEADER_LEN {
            let mut buf = [0u8; HEADER_LEN];
            let want = HEADER_LEN - self.header_len;
            let n = self.read_some(&mut buf[..want])?;
            if n == 0 {
                if self.header_len == 0 {
                    return Ok(None);
                }
                let have = std::mem::take(&mut self.header_len);
                return Err(ProtocolError::Truncated { offset: self.start, have, need: HEADER_LEN });
            }
            self.header[self.header_len..self.header_len + n].copy_from_slice(&buf[..n]);
            self.header_len += n;
        }
        let h = match self.decoded {
            Some(h) => h,
            None => {
                let h = decode_header(&self.header, self.start, self.max_payload).inspect_err(|_| self.reset())?;
                self.payload = vec![0u8; h.data_length as usize];
                self.payload_len = 0;
                self.decoded = Some(h);
                h
            }
        };
        while self.payload_len < self.payload.len() {
            let mut payload = std::mem::take(&mut self.payload);
            let read = self.read_some(&mut payload[self.payload_len..]);
            self.payload = payload;
            let n = read?;
            if n == 0 {
                let (have, need) = (HEADER_LEN + self.payload_len, HEADER_LEN + self.payload.len());
                self.reset();
                return Err(ProtocolError::Truncated { offset: self.start, have, need });
            }
            self.payload_len += n;
        }
        let payload = std::mem::take(&mut self.payload);
        self.reset();
        if self.verify_checksum {
            let computed = checksum(&payload);
            if computed != h.data_check {
                return Err(ProtocolError::BadChecksum { offset: self.start + 16, found: h.data_check, computed });
            }
        }
        Ok(Some(Packet { command: h.command, arg0: h.arg0, arg1: h.arg1, payload }))
    }

    /// Forgets the packet in progress.
    fn reset(&mut self) {
        self.header_len = 0;
        self.decoded = None;
        self.payload = Vec::new();
        self.payload_len = 0;
    }

    /// One read: the bytes read (0 at the end of the stream).
    fn read_some(&mut self, buf: &mut [u8]) -> Result<usize, ProtocolError> {
        loop {
            match self.inner.read(buf) {
                Ok(n) => {
                    self.offset += n as u64;
                    return Ok(n);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {
                    return Err(ProtocolError::TimedOut)
                }
                Err(e) => return Err(ProtocolError::Io(e.to_string())),
            }
        }
    }
}

/// The identity the host sends in CNXN (`host::features=a,b`) or the device's banner.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Banner {
    /// `device`, `host`, `recovery`, ...
    pub kind: String,
    pub serial: String,
    /// `key=value` properties in the order given (`ro.product.name`, ...).
    pub props: Vec<(String, String)>,
    pub features: Vec<String>,
}

impl Banner {
    /// Parses `<type>:<serial>:<k=v;k=v;features=a,b>` (trailing NULs ignored).
    pub fn parse(bytes: &[u8]) -> Banner {
        let text = String::from_utf8_lossy(bytes);
        let text = text.trim_end_matches('\0');
        let mut parts = text.splitn(3, ':');
        let kind = parts.next().unwrap_or("").to_owned();
        let serial = parts.next().unwrap_or("").to_owned();
        let mut banner = Banner { kind, serial, ..Banner::default() };
        for prop in parts.next().unwrap_or("").split(';').filter(|p| !p.is_empty()) {
            let (k, v) = prop.split_once('=').unwrap_or((prop, ""));
            if k == "features" {
                banner.features = v.split(',').filter(|f| !f.is_empty()).map(str::to_owned).collect();
            } else {
                banner.props.push((k.to_owned(), v.to_owned()));
            }
        }
        banner
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut props: Vec<String> = self.props.iter().map(|(k, v)| format!("{k}={v}")).collect();
        props.push(format!("features={}", self.features.join(",")));
        format!("{}:{}:{}", self.kind, self.serial, props.join(";")).into_bytes()
    }

    pub fn has_feature(&self, feature: &str) -> bool {
        self.features.iter().any(|f| f == feature)
    }
}

/// Strips the NULs OPEN payloads end with (adbd's `StripTrailingNulls`).
pub fn strip_trailing_nuls(bytes: &[u8]) -> &[u8] {
    let end = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    &bytes[..end]
}
