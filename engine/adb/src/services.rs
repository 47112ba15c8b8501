//! What an OPEN asks for: `shell:` / `shell,v2,...:` / `exec:` / `sync:` / `framebuffer:` and the
//! short text services. Each opened stream either answers once and closes, or keeps reading
//! the host's bytes (sync, interactive shells), one unit of work at a time so the server can
//! stop giving it work while its output waits to be read.

use crate::session::SharedPhone;
use crate::shell::{self, Budget, Channel, ShellOutput, ShellState, MAX_REQUEST_BYTES};
use crate::sync::SyncService;

/// An interactive shell line may be at most this long (bytes); a longer one is dropped with
/// `/system/bin/sh: line too long (at most 1048576 bytes)`, and the shell goes on.
pub const MAX_SHELL_LINE: usize = 1024 * 1024;
/// A shell protocol v2 packet from the host may carry at most this much; a larger one ends
/// the shell with `shell: a stdin packet of N bytes is over the limit of 1048576` and status 1.
pub const MAX_V2_PACKET: usize = 1024 * 1024;

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

    /// The length a partial packet at the front of `buf` announces.
    pub fn announced_len(buf: &[u8]) -> Option<usize> {
        (buf.len() >= 5).then(|| u32::from_le_bytes([buf[1], buf[2], buf[3], buf[4]]) as usize)
    }
}

/// A stream that keeps consuming the host's bytes after it opened.
pub(crate) trait StreamService: Send {
    /// Takes host bytes; they wait in the service until [`StreamService::step`] uses them.
    fn feed(&mut self, data: &[u8]);
    /// Is a unit of work ready (a whole line or request, output to produce)?
    fn has_work(&self) -> bool;
    /// Does one unit of work within `budget`, appending its output.
    fn step(&mut self, phone: &SharedPhone, budget: &mut Budget, out: &mut Vec<u8>);
    /// Done: no more input is read; the stream closes once its output is sent.
    fn finished(&self) -> bool;
    /// Host bytes held and not yet used.
    fn buffered(&self) -> usize;
}

/// The result of opening a service.
pub(crate) enum Opened {
    /// Send this, then close the stream.
    Reply(Vec<u8>),
    /// Send this, then keep the stream for the host's bytes.
    Stream(Box<dyn StreamService>, Vec<u8>),
    /// Send this, close, and drop the connection (a reboot).
    ReplyThenDisconnect(Vec<u8>),
    /// Not served: CLSE(0, L), with the reason to log when it is not just an unknown service.
    Refused(Option<String>),
}

impl StreamService for SyncService {
    fn feed(&mut self, data: &[u8]) {
        SyncService::feed(self, data);
    }

    fn has_work(&self) -> bool {
        SyncService::has_work(self)
    }

    fn step(&mut self, phone: &SharedPhone, _budget: &mut Budget, out: &mut Vec<u8>) {
        SyncService::step(self, phone, out);
    }

    fn finished(&self) -> bool {
        SyncService::finished(self)
    }

    fn buffered(&self) -> usize {
        SyncService::buffered(self)
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
/// Each line is one request with its own [`Budget`].
struct InteractiveShell {
    state: ShellState,
    v2: bool,
    /// Shell protocol v2 bytes not yet split into packets.
    v2_buf: Vec<u8>,
    /// The host's typed bytes not yet run.
    stdin: Vec<u8>,
    /// Dropping the rest of a line that was too long.
    discarding: bool,
    /// A prompt is owed (after a dropped line ended).
    prompt_due: bool,
    /// The host closed stdin: run what is complete, then exit.
    closing: bool,
    /// A protocol error to report before exiting.
    broken: Option<String>,
    done: bool,
}

impl InteractiveShell {
    fn new(v2: bool) -> InteractiveShell {
        InteractiveShell {
            state: ShellState::default(),
            v2,
            v2_buf: Vec::new(),
            stdin: Vec::new(),
            discarding: false,
            prompt_due: false,
            closing: false,
            broken: None,
            done: false,
        }
    }

    fn emit(&self, channel: Channel, bytes: &[u8], out: &mut Vec<u8>) {
        if bytes.is_empty() {
            return;
        }
        if self.v2 {
            let id = if channel == Channel::Stdout { shell_v2::STDOUT } else { shell_v2::STDERR };
            shell_v2::packet(id, bytes, out);
        } else {
            out.extend_from_slice(bytes);
        }
    }

    fn prompt(&self, out: &mut Vec<u8>) {
        let prompt = PROMPT.replace(":/ ", &format!(":{} ", self.state.cwd));
        self.emit(Channel::Stdout, prompt.as_bytes(), out);
    }

    fn finish(&mut self, out: &mut Vec<u8>) {
        if self.v2 {
            shell_v2::packet(shell_v2::EXIT, &[self.state.status], out);
        }
        self.done = true;
        self.stdin = Vec::new();
        self.v2_buf = Vec::new();
    }

    /// Keeps typed bytes, dropping what is left of a line too long.
    fn take_stdin(&mut self, bytes: &[u8]) {
        let bytes = if self.discarding {
            match bytes.iter().position(|&b| b == b'\n' || b == b'\r') {
                None => return,
                Some(end) => {
                    self.discarding = false;
                    self.prompt_due = true;
                    &bytes[end + 1..]
                }
            }
        } else {
            bytes
        };
        self.stdin.extend_from_slice(bytes);
    }

    /// Where the first line of `stdin` ends (`\n` or `\r`).
    fn line_end(&self) -> Option<usize> {
        self.stdin.iter().position(|&b| b == b'\n' || b == b'\r')
    }

    fn run_line(&mut self, line: &[u8], phone: &SharedPhone, budget: &mut Budget, out: &mut Vec<u8>) {
        let line = String::from_utf8_lossy(line).into_owned();
        let output = shell::run_shared(phone, &mut self.state, &line, budget);
        if self.v2 {
            v2_output(&output, out);
        } else {
            out.extend_from_slice(&output.into_combined());
        }
        if self.state.exited {
            self.finish(out);
        } else {
            self.prompt(out);
        }
    }
}

impl StreamService for InteractiveShell {
    fn feed(&mut self, data: &[u8]) {
        if self.done || self.closing {
            return;
        }
        if !self.v2 {
            return self.take_stdin(data);
        }
        self.v2_buf.extend_from_slice(data);
        for (id, payload) in shell_v2::take_packets(&mut self.v2_buf) {
            match id {
                shell_v2::STDIN => self.take_stdin(&payload),
                shell_v2::CLOSE_STDIN => self.closing = true,
                _ => {}
            }
        }
        if let Some(len) = shell_v2::announced_len(&self.v2_buf).filter(|&len| len > MAX_V2_PACKET) {
            self.broken = Some(format!("shell: a stdin packet of {len} bytes is over the limit of {MAX_V2_PACKET}\n"));
            self.v2_buf = Vec::new();
        }
    }

    fn has_work(&self) -> bool {
        !self.done
            && (self.closing
                || self.broken.is_some()
                || self.prompt_due
                || self.stdin.first() == Some(&4)
                || self.line_end().is_some()
                || self.stdin.len() > MAX_SHELL_LINE)
    }

    fn step(&mut self, phone: &SharedPhone, budget: &mut Budget, out: &mut Vec<u8>) {
        if self.done {
            return;
        }
        if let Some(message) = self.broken.take() {
            self.emit(Channel::Stderr, message.as_bytes(), out);
            self.state.status = 1;
            return self.finish(out);
        }
        if std::mem::take(&mut self.prompt_due) {
            return self.prompt(out);
        }
        // A terminal's Ctrl-D on an empty line ends the shell.
        if self.stdin.first() == Some(&4) {
            return self.finish(out);
        }
        if let Some(end) = self.line_end() {
            let line: Vec<u8> = self.stdin.drain(..=end).take(end).collect();
            return self.run_line(&line, phone, budget, out);
        }
        if self.stdin.len() > MAX_SHELL_LINE {
            self.stdin = Vec::new();
            self.discarding = true;
            let message = format!("{}: line too long (at most {MAX_SHELL_LINE} bytes)\n", shell::SH);
            return self.emit(Channel::Stderr, message.as_bytes(), out);
        }
        if self.closing {
            self.finish(out);
        }
    }

    fn finished(&self) -> bool {
        self.done
    }

    fn buffered(&self) -> usize {
        self.stdin.len() + self.v2_buf.len()
    }
}

/// The `framebuffer:` reply: a version-2 header (14 u32) describing RGBA8888, then the pixels.
fn framebuffer(phone: &SharedPhone, budget: &mut Budget) -> Opened {
    let (width, height) = {
        let session = phone.lock();
        let config = session.device().config();
        (config.width, config.height)
    };
    let size = width as usize * height as usize * 4;
    if size + 56 > MAX_REQUEST_BYTES {
        return Opened::Refused(Some(format!(
            "framebuffer: {width}x{height} takes {} bytes, over the limit of {MAX_REQUEST_BYTES} bytes per reply",
            size + 56
        )));
    }
    if budget.all_bytes(size + 56).is_err() {
        return Opened::Refused(Some(format!("framebuffer: no room for {} bytes of output right now", size + 56)));
    }
    let frame = phone.lock().device_mut().frame();
    let mut out = Vec::with_capacity(56 + frame.pixels.len());
    // version, bpp, colorSpace, size, width, height, then offset/length of red, blue, green, alpha.
    for v in [2, 32, 1, frame.pixels.len() as u32, frame.width, frame.height, 0, 8, 16, 8, 8, 8, 24, 8] {
        out.extend_from_slice(&u32::to_le_bytes(v));
    }
    out.extend_from_slice(&frame.pixels);
    Opened::Reply(out)
}

/// Opens `service` (the OPEN payload without its trailing NULs); a command runs within `budget`.
pub(crate) fn open(service: &str, phone: &SharedPhone, budget: &mut Budget) -> Opened {
    if let Some(rest) = service.strip_prefix("shell") {
        let Some((args, command)) = rest.split_once(':') else { return Opened::Refused(None) };
        if !args.is_empty() && !args.starts_with(',') {
            return Opened::Refused(None);
        }
        let v2 = args.split(',').any(|a| a == "v2");
        if command.is_empty() {
            let shell = InteractiveShell::new(v2);
            let mut out = Vec::new();
            shell.prompt(&mut out);
            return Opened::Stream(Box::new(shell), out);
        }
        let output = shell::run_shared(phone, &mut ShellState::default(), command, budget);
        if !v2 {
            return Opened::Reply(output.into_combined());
        }
        let mut out = Vec::new();
        v2_output(&output, &mut out);
        shell_v2::packet(shell_v2::EXIT, &[output.status], &mut out);
        return Opened::Reply(out);
    }
    if let Some(command) = service.strip_prefix("exec:") {
        return Opened::Reply(shell::run_shared(phone, &mut ShellState::default(), command, budget).into_combined());
    }
    match service {
        "sync:" => Opened::Stream(Box::new(SyncService::new()), Vec::new()),
        "framebuffer:" => framebuffer(phone, budget),
        "root:" => Opened::Reply(b"adbd is already running as root\n".to_vec()),
        "unroot:" => Opened::Reply(b"adbd not running as root\n".to_vec()),
        "usb:" => Opened::Reply(b"restarting in USB mode\n".to_vec()),
        s if s.starts_with("tcpip:") => Opened::Reply(format!("restarting in TCP mode port: {}\n", &s[6..]).into_bytes()),
        s if s.starts_with("reboot:") => match phone.lock().reboot() {
            Ok(()) => Opened::ReplyThenDisconnect(Vec::new()),
            Err(e) => Opened::Reply(format!("reboot failed: {e}\n").into_bytes()),
        },
        _ => Opened::Refused(None),
    }
}
