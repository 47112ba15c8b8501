//! What an OPEN asks for: `shell:` / `shell,v2,...:` / `exec:` / `sync:` / `framebuffer:` and the
//! short text services. Each opened stream either answers once and closes, or keeps reading
//! the host's bytes (sync, interactive shells).

use crate::session::SharedPhone;
use crate::shell::{self, Channel, ShellOutput, ShellState};
use crate::sync::SyncService;

/// Shell protocol v2 packet ids.
pub mod shell_v2 {
    pub const STDIN: u8 = 0;
    pub const STDOUT: u8 = 1;
    pub const STDERR: u8 = 2;
    pub const EXIT: u8 = 3;
    pub const CLOSE_STDIN: u8 = 4;
    pub const WINDOW_SIZE: u8 = 5;

    /// `id | u32 LE length | data`.
    pub fn packet(id: u8, data: &[u8], out: &mut Vec<u8>) {
        out.push(id);
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(data);
    }

    /// Splits complete packets off the front of `buf`, leaving a partial one in place.
    pub fn take_packets(buf: &mut Vec<u8>) -> Vec<(u8, Vec<u8>)> {
        let mut packets = Vec::new();
        let mut at = 0;
        while buf.len() - at >= 5 {
            let len = u32::from_le_bytes([buf[at + 1], buf[at + 2], buf[at + 3], buf[at + 4]]) as usize;
            if buf.len() - at - 5 < len {
                break;
            }
            packets.push((buf[at], buf[at + 5..at + 5 + len].to_vec()));
            at += 5 + len;
        }
        buf.drain(..at);
        packets
    }
}

/// A stream that keeps consuming the host's bytes after it opened.
pub(crate) trait StreamService: Send {
    /// Consumes host bytes, appending output; returns true when the service is done.
    fn input(&mut self, data: &[u8], phone: &SharedPhone, out: &mut Vec<u8>) -> bool;
}

/// The result of opening a service.
pub(crate) enum Opened {
    /// Send this, then close the stream.
    Reply(Vec<u8>),
    /// Send this, then keep the stream for the host's bytes.
    Stream(Box<dyn StreamService>, Vec<u8>),
    /// Send this, close, and drop the connection (a reboot).
    ReplyThenDisconnect(Vec<u8>),
    /// Not a service this device offers: CLSE(0, L).
    Refused,
}

impl StreamService for SyncService {
    fn input(&mut self, data: &[u8], phone: &SharedPhone, out: &mut Vec<u8>) -> bool {
        SyncService::input(self, data, phone, out);
        self.finished()
    }
}

fn v2_output(output: &ShellOutput, out: &mut Vec<u8>) {
    for (channel, bytes) in &output.chunks {
        let id = if *channel == Channel::Stdout { shell_v2::STDOUT } else { shell_v2::STDERR };
        // Keep packets well under any maxdata so one never straddles too many WRTEs.
        for chunk in bytes.chunks(256 * 1024) {
            shell_v2::packet(id, chunk, out);
        }
    }
}

const PROMPT: &str = "phoneworld:/ # ";

/// `adb shell` with no command: a line-at-a-time shell that keeps its working folder and `$?`.
struct InteractiveShell {
    state: ShellState,
    line: Vec<u8>,
    v2: bool,
    v2_buf: Vec<u8>,
}

impl InteractiveShell {
    fn prompt(&self, out: &mut Vec<u8>) {
        let prompt = PROMPT.replace(":/ ", &format!(":{} ", self.state.cwd));
        if self.v2 {
            shell_v2::packet(shell_v2::STDOUT, prompt.as_bytes(), out);
        } else {
            out.extend_from_slice(prompt.as_bytes());
        }
    }

    fn finish(&self, out: &mut Vec<u8>) -> bool {
        if self.v2 {
            shell_v2::packet(shell_v2::EXIT, &[self.state.status], out);
        }
        true
    }

    fn stdin(&mut self, bytes: &[u8], phone: &SharedPhone, out: &mut Vec<u8>) -> bool {
        for &b in bytes {
            if b != b'\n' && b != b'\r' {
                // A terminal's Ctrl-D on an empty line ends the shell.
                if b == 4 && self.line.is_empty() {
                    return self.finish(out);
                }
                self.line.push(b);
                continue;
            }
            let line = String::from_utf8_lossy(&std::mem::take(&mut self.line)).into_owned();
            let output = shell::run_in(&mut phone.lock(), &mut self.state, &line);
            if self.v2 {
                v2_output(&output, out);
            } else {
                out.extend_from_slice(&output.combined());
            }
            if self.state.exited {
                return self.finish(out);
            }
            self.prompt(out);
        }
        false
    }
}

impl StreamService for InteractiveShell {
    fn input(&mut self, data: &[u8], phone: &SharedPhone, out: &mut Vec<u8>) -> bool {
        if !self.v2 {
            return self.stdin(data, phone, out);
        }
        self.v2_buf.extend_from_slice(data);
        for (id, payload) in shell_v2::take_packets(&mut self.v2_buf) {
            let done = match id {
                shell_v2::STDIN => self.stdin(&payload, phone, out),
                shell_v2::CLOSE_STDIN => self.finish(out),
                _ => false,
            };
            if done {
                return true;
            }
        }
        false
    }
}

/// The `framebuffer:` reply: a version-2 header (14 u32) describing RGBA8888, then the pixels.
fn framebuffer(phone: &SharedPhone) -> Vec<u8> {
    let frame = phone.lock().device_mut().frame();
    let size = frame.pixels.len() as u32;
    let mut out = Vec::with_capacity(56 + frame.pixels.len());
    // version, bpp, colorSpace, size, width, height, then offset/length of red, blue, green, alpha.
    for v in [2, 32, 1, size, frame.width, frame.height, 0, 8, 16, 8, 8, 8, 24, 8] {
        out.extend_from_slice(&u32::to_le_bytes(v));
    }
    out.extend_from_slice(&frame.pixels);
    out
}

/// Opens `service` (the OPEN payload without its trailing NULs).
pub(crate) fn open(service: &str, phone: &SharedPhone) -> Opened {
    if let Some(rest) = service.strip_prefix("shell") {
        let Some((args, command)) = rest.split_once(':') else { return Opened::Refused };
        if !args.is_empty() && !args.starts_with(',') {
            return Opened::Refused;
        }
        let v2 = args.split(',').any(|a| a == "v2");
        if command.is_empty() {
            let shell = InteractiveShell { state: ShellState::default(), line: Vec::new(), v2, v2_buf: Vec::new() };
            let mut out = Vec::new();
            shell.prompt(&mut out);
            return Opened::Stream(Box::new(shell), out);
        }
        let output = shell::run(&mut phone.lock(), command);
        let mut out = Vec::new();
        if v2 {
            v2_output(&output, &mut out);
            shell_v2::packet(shell_v2::EXIT, &[output.status], &mut out);
        } else {
            out = output.combined();
        }
        return Opened::Reply(out);
    }
    if let Some(command) = service.strip_prefix("exec:") {
        return Opened::Reply(shell::run(&mut phone.lock(), command).combined());
    }
    match service {
        "sync:" => Opened::Stream(Box::new(SyncService::new()), Vec::new()),
        "framebuffer:" => Opened::Reply(framebuffer(phone)),
        "root:" => Opened::Reply(b"adbd is already running as root\n".to_vec()),
        "unroot:" => Opened::Reply(b"adbd not running as root\n".to_vec()),
        "usb:" => Opened::Reply(b"restarting in USB mode\n".to_vec()),
        s if s.starts_with("tcpip:") => Opened::Reply(format!("restarting in TCP mode port: {}\n", &s[6..]).into_bytes()),
        s if s.starts_with("reboot:") => match phone.lock().reboot() {
            Ok(()) => Opened::ReplyThenDisconnect(Vec::new()),
            Err(e) => Opened::Reply(format!("reboot failed: {e}\n").into_bytes()),
        },
        _ => Opened::Refused,
    }
}
