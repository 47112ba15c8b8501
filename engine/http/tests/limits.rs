//! What untrusted clients cannot do to serve-http: hold connections with slow or idle sockets,
//! send huge or endless bodies, or take the other devices down with one.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use phoneworld_adb::SharedPhone;
use phoneworld_http::{Families, HttpDevice, HttpOptions, HttpServer};
use phoneworld_phone::{project_root, Catalog, Device, DeviceConfig};

fn catalog() -> Arc<Catalog> {
    static CATALOG: OnceLock<Arc<Catalog>> = OnceLock::new();
    Arc::clone(CATALOG.get_or_init(|| Catalog::load_default(&[]).expect("bundled apps load")))
}

fn server(devices: usize, options: HttpOptions) -> HttpServer {
    let catalog = catalog();
    let families = Arc::new(Families::load("phoneworld-v0", &[project_root().join("verifiers")], &catalog).expect("suite"));
    let devices = (0..devices)
        .map(|_| {
            HttpDevice::new(SharedPhone::new(Device::new(catalog.clone(), DeviceConfig::default()).expect("device")), Arc::clone(&families))
        })
        .collect();
    HttpServer::bind("127.0.0.1:0", devices, options).expect("server starts")
}

/// One request on a fresh connection: the status code and body.
fn request(addr: SocketAddr, raw: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
    stream.write_all(raw.as_bytes()).expect("send");
    read_response(&mut stream)
}

fn read_response(stream: &mut TcpStream) -> (u16, String) {
    let mut reply = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => reply.extend_from_slice(&buf[..n]),
        }
        let text = String::from_utf8_lossy(&reply);
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse::<usize>().unwrap_or(0)));
            if length.is_some_and(|n| body.len() >= n) {
                break;
            }
        }
    }
    let text = String::from_utf8_lossy(&reply).into_owned();
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    (status, body)
}

fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    request(addr, &format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
}

/// Is the connection closed by the server (reads end) within `within`?
fn closed_within(stream: &mut TcpStream, within: Duration) -> bool {
    stream.set_read_timeout(Some(within)).expect("timeout");
    let mut buf = [0u8; 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) => return matches!(e.kind(), std::io::ErrorKind::ConnectionReset | std::io::ErrorKind::BrokenPipe),
        }
    }
}

#[test]
fn slow_headers_are_cut_off_and_others_are_served_meanwhile() {
    let options = HttpOptions { header_timeout: Duration::from_millis(300), ..HttpOptions::default() };
    let server = server(1, options);
    let addr = server.local_addr();
    let mut slow = TcpStream::connect(addr).expect("connect");
    slow.write_all(b"GET /health HTTP/1.1\r\nHost: x\r\n").expect("part of the headers");
    assert_eq!(get(addr, "/health"), (200, r#"{"status":"success"}"#.to_owned()), "a normal client is served while one is slow");
    let started = Instant::now();
    assert!(closed_within(&mut slow, Duration::from_secs(5)), "a client that never finishes its headers is disconnected");
    assert!(started.elapsed() < Duration::from_secs(3), "cut off after about the header timeout, not {:?}", started.elapsed());
}

#[test]
fn idle_sockets_cannot_exhaust_the_connection_cap() {
    let options = HttpOptions { max_connections: 4, ..HttpOptions::default() };
    let server = server(1, options);
    let addr = server.local_addr();
    let idle: Vec<TcpStream> = (0..12).map(|_| TcpStream::connect(addr).expect("connect")).collect();
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(get(addr, "/health").0, 200, "a new client is served although idle sockets fill the cap");
    assert!(server.connections() <= 4, "{} connections open with a cap of 4", server.connections());
    assert!(server.log().iter().any(|l| l.contains("closed the longest idle")), "evictions are logged: {:?}", server.log());
    drop(idle);
}

#[test]
fn idle_connections_time_out() {
    let options = HttpOptions { idle_timeout: Duration::from_millis(300), ..HttpOptions::default() };
    let server = server(1, options);
    let mut idle = TcpStream::connect(server.local_addr()).expect("connect");
    assert!(closed_within(&mut idle, Duration::from_secs(5)), "an idle keep-alive connection is closed");
}

#[test]
fn bodies_are_bounded_in_size_and_time() {
    let options = HttpOptions { body_timeout: Duration::from_millis(300), ..HttpOptions::default() };
    let server = server(1, options);
    let addr = server.local_addr();
    let huge = "x".repeat(phoneworld_http::MAX_BODY_BYTES + 1);
    let (status, body) =
        request(addr, &format!("POST /execute_action HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{huge}", huge.len()));
    assert_eq!(status, 413, "{body}");
    // Promises 100 bytes, sends 10.
    let (status, body) = request(addr, "POST /execute_action HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"action_\"");
    assert_eq!(status, 408, "{body}");
    assert_eq!(get(addr, "/health").0, 200, "the device still answers");
}

#[test]
fn a_closed_device_leaves_the_others_serving() {
    let server = server(2, HttpOptions::default());
    let addr = server.local_addr();
    let (status, _) = request(addr, "POST /emu1/close HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    assert_eq!(status, 200);
    assert_eq!(get(addr, "/emu1/suite/task_list?max_index=1"), (500, "Internal Server Error".to_owned()));
    assert_eq!(get(addr, "/emu1/health").0, 500);
    assert_eq!(get(addr, "/emu0/health").0, 200);
    assert_eq!(get(addr, "/suite/task_list?max_index=0"), (200, r#"{"task_list":[]}"#.to_owned()));
}
