//! What a hostile or careless client can do to the server, and the limits that stop it: idle
//! sockets, slow handshakes, clients that never read, long and greedy requests, unbounded
//! device state, and arbitrary bytes fed to every parser (the fuzzing entry points).

mod common;

use common::host::Host;

use std::net::TcpStream;
use std::time::{Duration, Instant};

use phoneworld_adb::fs::{MAX_ENTRIES, MAX_FILE_BYTES, MAX_TOTAL_BYTES};
use phoneworld_adb::protocol::{command, Packet, MAX_PAYLOAD, VERSION};
use phoneworld_adb::shell::{
    run, MAX_ACTIONS_PER_REQUEST, MAX_CAPTURES_PER_REQUEST, MAX_COMMANDS_PER_REQUEST, MAX_MONKEY_EVENTS, MAX_PATTERNS_PER_REQUEST,
    MAX_REQUEST_BYTES,
};
use phoneworld_adb::sync::SyncService;
use phoneworld_adb::{
    fuzzing, AdbServer, AuthPolicy, PhoneSession, ServerHandle, ServerOptions, SharedPhone, MAX_CONNECTIONS, MAX_CONNECTION_INPUT,
    MAX_CONNECTION_PENDING, MAX_DEFERRED_OPENS, MAX_SERVER_PENDING,
};

fn serve(options: ServerOptions) -> ServerHandle {
    AdbServer::bind("127.0.0.1:0", SharedPhone::from_session(common::session(0)), options).unwrap()
}

/// Polls `done` until it holds (a generous deadline: the machine may be loaded).
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn logged(server: &ServerHandle, needle: &str) -> bool {
    server.errors().iter().any(|e| e.contains(needle))
}

#[test]
fn idle_sockets_never_lock_clients_out() {
    let server = serve(ServerOptions::default());
    let idle: Vec<TcpStream> = (0..200).map(|_| TcpStream::connect(server.local_addr()).unwrap()).collect();
    let mut host = Host::online(&server, 4096);
    assert_eq!(host.request(1, "shell:echo served"), b"served\n");
    assert!(server.connection_count() <= MAX_CONNECTIONS, "{} connections", server.connection_count());
    assert!(
        logged(&server, "closed to make room for connection") && logged(&server, "had not finished its handshake"),
        "{:?}",
        server.errors()
    );
    drop(idle);
}

#[test]
fn handshakes_time_out() {
    let timeout = Duration::from_millis(200);
    let server = serve(ServerOptions { handshake_timeout: timeout, ..ServerOptions::default() });
    let mut silent = Host::connect(&server);
    assert!(silent.closed_by_server());
    wait_until("the timeout is logged", || logged(&server, "closed: no handshake within 200 ms"));

    // A host that gets the AUTH challenge and never answers is closed the same way.
    let strict = serve(ServerOptions { auth: AuthPolicy::Keys(Vec::new()), handshake_timeout: timeout, ..ServerOptions::default() });
    let mut mute = Host::connect(&strict);
    mute.send(Packet::new(command::CNXN, VERSION, MAX_PAYLOAD, b"host::".to_vec()));
    assert_eq!(mute.recv().command, command::AUTH);
    assert!(mute.closed_by_server());
    // Once online, a connection stays open however long it is idle.
    let mut online = Host::online(&server, 4096);
    std::thread::sleep(timeout * 2);
    assert_eq!(online.request(1, "shell:echo still open"), b"still open\n");
}

#[test]
fn a_full_server_makes_room_from_idle_connections_only() {
    let server = serve(ServerOptions { max_connections: 2, ..ServerOptions::default() });
    let mut first = Host::online(&server, 4096);
    let mut second = Host::online(&server, 4096);
    // A third client takes the place of the one idle longest.
    let mut third = Host::online(&server, 4096);
    assert!(first.closed_by_server());
    assert!(logged(&server, "closed to make room for connection 3"), "{:?}", server.errors());
    // With a stream open on every connection, a newcomer is refused instead.
    for host in [&mut second, &mut third] {
        host.send(Packet::new(command::OPEN, 5, 0, b"shell:\0".to_vec()));
        assert_eq!(host.recv_command(command::OKAY).arg1, 5);
    }
    let mut fourth = Host::connect(&server);
    assert!(fourth.closed_by_server());
    wait_until("the refusal is logged", || logged(&server, "refused: 2 connections are open and all have open streams"));
    assert_eq!(second.request(7, "shell:echo busy but served"), b"busy but served\n");
}

#[test]
fn a_client_that_never_reads_cannot_grow_the_server() {
    let server = serve(ServerOptions::default());
    let mut host = Host::online(&server, 4096);
    host.send(Packet::new(command::OPEN, 1, 0, b"shell:\0".to_vec()));
    let local = host.recv_command(command::OKAY).arg0;
    let line = |text: &str| Packet::new(command::WRTE, 1, local, text.as_bytes().to_vec());
    // Each line prints a raw screenshot (10 MB); the host never acknowledges any output.
    host.send(line("screencap\n"));
    assert_eq!(host.recv_command(command::OKAY).arg1, 1, "the first line is taken");
    host.send(line("screencap\n"));
    assert!(host.quiet(), "no OKAY while the first line's output waits to be read");
    let held = server.buffered_bytes();
    assert!(held < 2 * 10_500_000, "{held} bytes held for one unread screenshot");
    // A host that writes anyway loses the stream; the server does not buffer for it.
    host.send(line("screencap\n"));
    assert_eq!(host.recv_command(command::CLSE).arg1, 1);
    assert!(logged(&server, "wrote again before its last WRTE was acknowledged"), "{:?}", server.errors());

    // Many requests whose output is never read: a few run, some wait, the rest are refused.
    for remote in 10..(10 + 2 * MAX_DEFERRED_OPENS as u32) {
        host.send(Packet::new(command::OPEN, remote, 0, b"exec:screencap\0".to_vec()));
    }
    wait_until("the extra requests are refused", || logged(&server, "requests already wait for their output room"));
    let held = server.buffered_bytes();
    let bound = MAX_CONNECTION_PENDING + MAX_REQUEST_BYTES + MAX_CONNECTION_INPUT;
    assert!(held <= bound && held < 300 << 20, "{held} bytes held (bound {bound})");
    // Others are served meanwhile.
    let mut other = Host::online(&server, 4096);
    assert_eq!(other.request(1, "shell:echo unaffected"), b"unaffected\n");
    drop(host);
    wait_until("the reader's output is released", || server.buffered_bytes() == 0);
}

#[test]
fn unread_output_of_many_clients_does_not_block_others() {
    let server = serve(ServerOptions::default());
    // Seven clients ask for two raw screenshots each (10 MB apiece) and never read them:
    // together they fill the server's output room.
    let mut readers: Vec<Host> = Vec::new();
    for _ in 0..7 {
        let mut host = Host::online(&server, 4096);
        for remote in 1..=2 {
            host.send(Packet::new(command::OPEN, remote, 0, b"exec:screencap\0".to_vec()));
        }
        readers.push(host);
    }
    wait_until("the output room is full", || server.buffered_bytes() + (2 << 20) >= MAX_SERVER_PENDING);
    let held = server.buffered_bytes();
    assert!(held <= MAX_SERVER_PENDING + (1 << 20), "{held} bytes held, the room is {MAX_SERVER_PENDING}");
    // A newcomer's request waits for room, then the client whose output went unread longest
    // is closed to make it.
    let mut newcomer = Host::online(&server, 4096);
    assert_eq!(newcomer.request(1, "shell:echo served"), b"served\n");
    assert!(logged(&server, "went unread for"), "{:?}", server.errors());
    assert!(server.connection_count() < readers.len() + 1, "a reader that never read was closed");
}

#[test]
fn interactive_input_is_bounded() {
    let server = serve(ServerOptions::default());
    let mut host = Host::online(&server, MAX_PAYLOAD);
    host.send(Packet::new(command::OPEN, 1, 0, b"shell:\0".to_vec()));
    let local = host.recv_command(command::OKAY).arg0;
    let typed = |host: &mut Host, bytes: Vec<u8>| {
        host.send(Packet::new(command::WRTE, 1, local, bytes));
        loop {
            let p = host.recv();
            if p.command == command::WRTE {
                host.send(Packet::new(command::OKAY, 1, local, Vec::new()));
            }
            if p.command == command::OKAY {
                return;
            }
        }
    };
    // Over a megabyte with no newline: the line is dropped with a message, the shell goes on.
    typed(&mut host, vec![b'a'; MAX_PAYLOAD as usize]);
    typed(&mut host, b"aaaa".to_vec());
    host.send(Packet::new(command::WRTE, 1, local, b"tail of the long line\necho fine\n".to_vec()));
    let mut seen = Vec::new();
    while !String::from_utf8_lossy(&seen).contains("fine\n") {
        let p = host.recv();
        if p.command == command::WRTE {
            seen.extend_from_slice(&p.payload);
            host.send(Packet::new(command::OKAY, 1, local, Vec::new()));
        }
    }
    let seen = String::from_utf8_lossy(&seen);
    assert!(seen.contains("line too long (at most 1048576 bytes)"), "{seen}");
    assert!(!seen.contains("tail of the long line"), "{seen}");

    // Shell protocol v2: a packet announcing 2 MiB ends the shell with status 1.
    host.send(Packet::new(command::OPEN, 2, 0, b"shell,v2,pty:\0".to_vec()));
    let local = host.recv_command(command::OKAY).arg0;
    let mut header = vec![0u8];
    header.extend_from_slice(&(2u32 << 20).to_le_bytes());
    host.send(Packet::new(command::WRTE, 2, local, header));
    let mut seen = Vec::new();
    loop {
        let p = host.recv();
        match p.command {
            command::WRTE => {
                seen.extend_from_slice(&p.payload);
                host.send(Packet::new(command::OKAY, 2, local, Vec::new()));
            }
            command::CLSE if p.arg1 == 2 => break,
            _ => {}
        }
    }
    assert!(String::from_utf8_lossy(&seen).contains("a stdin packet of 2097152 bytes is over the limit"));
    assert_eq!(&seen[seen.len() - 6..], [3, 1, 0, 0, 0, 1], "exit packet, status 1");
}

#[test]
fn a_long_command_does_not_stall_other_clients() {
    let server = serve(ServerOptions::default());
    let steps = |server: &ServerHandle| server.phone().lock().device().store().session.steps;
    let mut long = Host::online(&server, MAX_PAYLOAD);
    let mut quick = Host::online(&server, MAX_PAYLOAD);
    let start = steps(&server);
    let events = MAX_MONKEY_EVENTS;
    long.send(Packet::new(command::OPEN, 1, 0, format!("shell:monkey -p Clock -s 3 {events}\0").into_bytes()));
    wait_until("the monkey runs", || steps(&server) > start + 3);
    let reply = quick.request(1, r#"shell:phoneworld action '{"type":"wait","ms":0}'"#);
    let result: serde_json::Value = serde_json::from_slice(&reply).unwrap();
    let at = result["step"].as_u64().unwrap();
    assert!(at < start + events, "answered at step {at}, after the monkey's {events} events from {start}");
    // The monkey still finishes, all its events applied.
    long.recv_command(command::OKAY);
    let out = long.recv_command(command::WRTE);
    assert!(String::from_utf8_lossy(&out.payload).contains(&format!("Events injected: {events}")));
    assert_eq!(steps(&server), start + events + 1);
}

fn sh(session: &mut PhoneSession, line: &str) -> (Vec<u8>, String, u8) {
    let out = run(session, line);
    (out.stdout(), String::from_utf8_lossy(&out.stderr()).into_owned(), out.status)
}

#[test]
fn long_requests_stop_at_their_limits() {
    let mut s = common::session(0);
    let steps = |s: &PhoneSession| s.device().store().session.steps;
    let start = steps(&s);
    let (_, err, status) = sh(&mut s, "monkey -p Clock 100000");
    assert_eq!((err.as_str(), status), ("monkey: at most 500 events per command\n", 1));
    assert_eq!(steps(&s), start, "nothing was injected");

    let keys = vec!["4"; MAX_ACTIONS_PER_REQUEST as usize + 100].join(" ");
    let (_, err, status) = sh(&mut s, &format!("input keyevent {keys}; echo unreachable"));
    assert_eq!((err.as_str(), status), ("input: at most 500 device actions per request\n", 1));
    assert_eq!(steps(&s), start + u64::from(MAX_ACTIONS_PER_REQUEST));

    let taps = "input tap 5 5; ".repeat(MAX_ACTIONS_PER_REQUEST as usize + 1);
    let (out, err, status) = sh(&mut s, &format!("{taps} echo unreachable"));
    assert!(out.is_empty() && status == 1 && err.ends_with("device actions per request\n"), "{err}");

    let (_, err, status) = sh(&mut s, "sleep 1800; sleep 1800; sleep 1");
    assert_eq!((err.as_str(), status), ("sleep: at most 3600 s of virtual time per request\n", 1));
    let clock = s.device().store().session.clock_ms;
    assert_eq!(sh(&mut s, "sleep 2h").2, 1);
    assert_eq!(s.device().store().session.clock_ms, clock, "a refused sleep does not wait");

    let captures = "screencap -p > /dev/null; ".repeat(MAX_CAPTURES_PER_REQUEST as usize + 1);
    let (_, err, status) = sh(&mut s, &captures);
    assert_eq!((err.as_str(), status), ("screencap: at most 50 captures and state dumps per request\n", 1));
    let dumps = "uiautomator dump > /dev/null; phoneworld state-hash > /dev/null; ".repeat(MAX_CAPTURES_PER_REQUEST as usize);
    assert!(sh(&mut s, &dumps).1.ends_with("at most 50 captures and state dumps per request\n"));

    // However cheap each command, a request runs a bounded number of them.
    let (out, err, status) = sh(&mut s, &"true; ".repeat(MAX_COMMANDS_PER_REQUEST as usize + 1));
    assert_eq!((out.len(), err.as_str(), status), (0, "/system/bin/sh: at most 1000 commands per request\n", 1));
    assert_eq!(sh(&mut s, &"sh -c 'true; true'; ".repeat(MAX_COMMANDS_PER_REQUEST as usize / 3 + 1)).2, 1, "sh -c counts too");
    // Regular expressions: few per request, of bounded size, over bounded input.
    let (_, err, status) = sh(&mut s, &"echo a | grep -c a; ".repeat(MAX_PATTERNS_PER_REQUEST as usize + 1));
    assert_eq!((err.as_str(), status), ("grep: at most 20 regular expressions per request\n", 1));
    let (_, err, status) = sh(&mut s, r"grep -E '(\w+){250}' /sdcard/nothing");
    assert!(status == 2 && err.contains("exceeds size limit of 1048576"), "{err}");
    s.files_mut().write("/sdcard/text", &b"line\n".repeat(1 << 20), false, 0o644, 0).unwrap();
    let (_, err, status) = sh(&mut s, "grep -c x /sdcard/text");
    assert_eq!((err.as_str(), status), ("grep: at most 4194304 bytes searched per request\n", 1));
    // Each request has its own limits.
    assert_eq!(sh(&mut s, "input tap 5 5 && echo ok").0, b"ok\n");
}

#[test]
fn greedy_output_stops_at_the_request_limit() {
    let mut s = common::session(0);
    s.files_mut().write("/sdcard/big", &vec![b'x'; MAX_FILE_BYTES], false, 0o644, 0).unwrap();
    let (out, err, status) = sh(&mut s, "cat /sdcard/big /sdcard/big /sdcard/big; echo unreachable");
    assert_eq!(out.len(), MAX_REQUEST_BYTES);
    assert_eq!((err.as_str(), status), (format!("cat: output limit: a request may write at most {MAX_REQUEST_BYTES} bytes\n").as_str(), 1));
    // Pipes, copies and file inputs count too: a megabyte of command line cannot multiply a file.
    let line = "cat /sdcard/big | cat > /dev/null; cp /sdcard/big /sdcard/copy; ".repeat(16 * 1024);
    let (out, err, status) = sh(&mut s, &line);
    assert!(out.is_empty() && status == 1 && err.contains("output limit"), "{err}");
    let (_, err, status) = sh(&mut s, &"wc -c /sdcard/big; ".repeat(3));
    assert!(status == 1 && err.starts_with("wc: output limit"), "{err}");
    // Touching a big file does not copy it.
    assert_eq!(sh(&mut s, &"touch /sdcard/big; ".repeat(1000)).2, 0);
}

#[test]
fn device_state_a_client_can_grow_is_bounded() {
    let mut s = common::session(0);
    let puts: String = (0..1000).map(|i| format!("settings put global key{i} 1; ")).collect();
    assert_eq!(sh(&mut s, &puts).2, 0);
    let puts: String = (1000..1100).map(|i| format!("settings put global key{i} 1; ")).collect();
    let (_, err, status) = sh(&mut s, &puts);
    assert_eq!(status, 1);
    assert!(err.contains("settings: at most 1024 extra settings on this device"), "{err}");
    let (_, err, status) = sh(&mut s, &format!("setprop debug.x {}", "v".repeat(200)));
    assert!(status == 1 && err.contains("the value is 200 bytes, at most 91"), "{err}");
    let (_, err, status) = sh(&mut s, &format!("touch /sdcard/{}", "n".repeat(5000)));
    assert!(status == 1 && err.contains("File name too long"), "{err}");
    let dirs: String = (0..MAX_ENTRIES).map(|i| format!(" /data/local/tmp/d{i}")).collect();
    let (_, err, status) = sh(&mut s, &format!("mkdir{dirs}"));
    assert!(status == 1 && err.contains("No space left on device"), "{err}");

    // Pushes held in memory count against the files' space.
    let phone = SharedPhone::from_session(common::session(0));
    let held = phone.lock().reserve_upload("/elsewhere", MAX_TOTAL_BYTES - 100_000).unwrap();
    let mut push = b"SEND".to_vec();
    let path = "/sdcard/f.bin,33188";
    push.extend_from_slice(&(path.len() as u32).to_le_bytes());
    push.extend_from_slice(path.as_bytes());
    for _ in 0..4 {
        push.extend_from_slice(b"DATA");
        push.extend_from_slice(&65536u32.to_le_bytes());
        push.extend_from_slice(&[7u8; 65536]);
    }
    push.extend_from_slice(b"DONE\0\0\0\0");
    let mut out = Vec::new();
    SyncService::new().input(&push, &phone, &mut out);
    assert!(String::from_utf8_lossy(&out).starts_with("FAIL") && String::from_utf8_lossy(&out).contains("No space left"));
    drop(held);
    assert_eq!(phone.lock().upload_bytes(), 0, "a failed push gives its space back");
}

/// A small deterministic generator (xorshift) for the fuzz inputs.
struct Bytes(u64);

impl Bytes {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// A copy of `seed` with a few random edits: flips, inserts, deletions, splices.
    fn mutate(&mut self, seed: &[u8], corpus: &[Vec<u8>]) -> Vec<u8> {
        const SPECIAL: &[u8] = b"\0\n\r'\"\\$|&;<>!{}()# -9\xff";
        let mut out = seed.to_vec();
        for _ in 0..1 + self.below(4) {
            let at = self.below(out.len() + 1);
            match self.below(6) {
                0 if at < out.len() => out[at] ^= 1 << self.below(8),
                1 => out.insert(at, SPECIAL[self.below(SPECIAL.len())]),
                2 if at < out.len() => {
                    out.remove(at);
                }
                3 => out.insert(at, self.next() as u8),
                4 => {
                    let other = &corpus[self.below(corpus.len())];
                    let from = self.below(other.len() + 1);
                    out.splice(at..at, other[from..].iter().copied());
                }
                _ => out.truncate(at),
            }
        }
        out
    }
}

fn packet(cmd: u32, arg0: u32, arg1: u32, payload: &[u8]) -> Vec<u8> {
    Packet::new(cmd, arg0, arg1, payload.to_vec()).encode()
}

fn sync_request(tag: &[u8; 4], arg: &[u8]) -> Vec<u8> {
    let mut out = tag.to_vec();
    out.extend_from_slice(&(arg.len() as u32).to_le_bytes());
    out.extend_from_slice(arg);
    out
}

#[test]
fn fuzz_entry_points_take_any_bytes() {
    let mut rng = Bytes(0x9e37_79b9_7f4a_7c15);
    let shell_corpus: Vec<Vec<u8>> = [
        "echo 'a  b' \"c $? d\" e\\ f | grep -E 'a|c' && echo yes || echo no",
        "printf '%s %d %%\\n' x 12 | tail -n 1; wc -lwc < /sdcard/nope",
        "ls -la /sdcard > /sdcard/x 2>&1; cat /sdcard/x | head -3; rm -rf /sdcard/x",
        "mkdir -p /data/local/tmp/a/b && cd /data/local/tmp/a && pwd; touch f; cp f g; mv g h; ls",
        "sh -c 'echo ${HOME} $0; exit 4'; echo $?; ! false",
        "getprop ro.product.model; setprop debug.k v; settings put global wifi_on 0; settings list global",
        "date +%Y-%m-%dT%T; id; whoami; wm size; wm density 300; dumpsys window | grep mCurrentFocus",
        "input tap 540 1200; input swipe 1 2 3 4 5; input text hello%sworld; input keyevent BACK 67 KEYCODE_A",
        "am start -n com.phoneworld.clock/.MainActivity; am broadcast -a clipper.set -e text hi; pm list packages -3",
        "grep -c -w -i -e x -e 'y\\+' /sdcard/nope; echo -e 'a\\tb\\c'; exit 300",
        r#"phoneworld action '{"type":"swipe","x1":1e300,"y1":-5,"x2":3,"y2":1e-300,"ms":9}'; phoneworld verdict; phoneworld state-hash"#,
        "input swipe 0 0 1e300 1e300 99999999; input draganddrop 540 1200 540 -3 1; input keyevent 999 KEYCODE_Z",
        "monkey -p Settings -s 18446744073709551615 3; uiautomator dump /dev/tty | head -c 10; dumpsys input_method",
        "am start -W -S -d 'https://x?y=1&z' -a android.settings.WIFI; am force-stop Clock; pm clear com.phoneworld.clock",
        "date '+%s %a %b %e %j %U %Z %% %'; sleep 1.5m; date; printf '%d %s' 99999999999999999999 \\",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    let mut sync_corpus = vec![
        [sync_request(b"STAT", b"/sdcard"), sync_request(b"LIS2", b"/"), sync_request(b"QUIT", b"")].concat(),
        [
            sync_request(b"SEND", b"/sdcard/a,33188"),
            sync_request(b"DATA", b"hello"),
            b"DONE\x01\0\0\0".to_vec(),
            sync_request(b"RECV", b"/sdcard/a"),
        ]
        .concat(),
        [sync_request(b"STA2", b"/sdcard/../x"), sync_request(b"LST2", b"sdcard/Download"), sync_request(b"LIST", b"/data")].concat(),
    ];
    let cnxn = packet(command::CNXN, VERSION, 4096, b"host::features=shell_v2");
    let mut packet_corpus = vec![
        [cnxn.clone(), packet(command::OPEN, 1, 0, b"shell:echo hi\0"), packet(command::OKAY, 1, 1, b""), packet(command::CLSE, 1, 1, b"")]
            .concat(),
        [
            cnxn.clone(),
            packet(command::OPEN, 2, 0, b"shell:\0"),
            packet(command::WRTE, 2, 1, b"ls\necho x\n"),
            packet(command::OKAY, 2, 1, b""),
        ]
        .concat(),
        [
            cnxn.clone(),
            packet(command::OPEN, 3, 0, b"sync:\0"),
            packet(command::WRTE, 3, 1, &sync_corpus[1]),
            packet(command::OKAY, 3, 1, b""),
        ]
        .concat(),
        [cnxn.clone(), packet(command::OPEN, 4, 0, b"shell,v2,pty:\0"), packet(command::WRTE, 4, 1, b"\0\x03\0\0\0ls\n\x04\0\0\0\0")]
            .concat(),
        [cnxn, packet(command::OPEN, 5, 0, b"tcpip:5555\0"), packet(command::AUTH, 2, 0, b"sig"), packet(command::OPEN, 0, 0, b"")]
            .concat(),
    ];
    // PHONEWORLD_FUZZ_ROUNDS runs a longer campaign (each round is six inputs).
    let rounds: usize = std::env::var("PHONEWORLD_FUZZ_ROUNDS").ok().and_then(|n| n.parse().ok()).unwrap_or(1500);
    let started = Instant::now();
    for i in 0..rounds {
        let seed = shell_corpus[i % shell_corpus.len()].clone();
        let input = rng.mutate(&seed, &shell_corpus);
        let _ = fuzzing::shell_command(&input);
        let seed = sync_corpus[i % sync_corpus.len()].clone();
        let input = rng.mutate(&seed, &sync_corpus);
        let _ = fuzzing::sync_stream(&input);
        let seed = packet_corpus[i % packet_corpus.len()].clone();
        let input = rng.mutate(&seed, &packet_corpus);
        let _ = fuzzing::packet_stream(&input);
        // Random bytes too, not only near-valid ones.
        let noise: Vec<u8> = (0..rng.below(200)).map(|_| rng.next() as u8).collect();
        let _ = fuzzing::shell_command(&noise);
        let _ = fuzzing::sync_stream(&noise);
        let _ = fuzzing::packet_stream(&noise);
        if i % 100 == 0 {
            // Grow the corpora with inputs that went deeper.
            sync_corpus.push(rng.mutate(&sync_corpus[0], &sync_corpus));
            packet_corpus.push(rng.mutate(&packet_corpus[1], &packet_corpus));
        }
    }
    eprintln!("fuzzed {} inputs in {:?}", rounds * 6, started.elapsed());
}
