//! The HTTP side: hyper serving HTTP/1.1 on a tokio runtime of its own thread, the routes
//! (`/emuN` prefixes), and the limits that keep untrusted clients from hanging or exhausting
//! it: bounded bodies, header and body read timeouts, idle connections closed, and a
//! connection cap that evicts the longest-idle connection rather than refusing a new one.

use std::collections::{BTreeMap, VecDeque};
use std::convert::Infallible;
use std::net::{SocketAddr, TcpListener as StdListener, ToSocketAddrs};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, ALLOW, CONTENT_TYPE, LOCATION};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::json;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::{watch, Notify};

use crate::device::{Endpoint, HttpDevice, Reply};
use crate::query::{FieldError, Query};

/// At most this many connections at once; a new one past it evicts the longest-idle
/// connection, or is closed at once when every connection is in a request.
pub const MAX_CONNECTIONS: usize = 256;
/// Largest request body (an action is a few hundred bytes).
pub const MAX_BODY_BYTES: usize = 64 * 1024;
/// A request's headers must arrive within this.
pub const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
/// A request's body must arrive within this.
pub const BODY_TIMEOUT: Duration = Duration::from_secs(10);
/// A connection with no request in flight and no bytes moving for this long is closed.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// The server keeps this many log lines (refusals, evictions, internal errors), newest last.
const LOG_LINES: usize = 256;

/// The server's limits; the defaults are the constants above.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub max_connections: usize,
    pub max_body_bytes: usize,
    pub header_timeout: Duration,
    pub body_timeout: Duration,
    pub idle_timeout: Duration,
    /// Threads answering HTTP (device work runs on tokio's blocking pool beside them).
    pub threads: usize,
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            max_connections: MAX_CONNECTIONS,
            max_body_bytes: MAX_BODY_BYTES,
            header_timeout: HEADER_TIMEOUT,
            body_timeout: BODY_TIMEOUT,
            idle_timeout: IDLE_TIMEOUT,
            threads: 2,
        }
    }
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    #[error("cannot listen on {addr}: {source}")]
    Bind { addr: String, source: std::io::Error },
    #[error("cannot start the server: {0}")]
    Start(std::io::Error),
    #[error("a server needs at least one device")]
    NoDevices,
}

/// The routes: path, method, endpoint. Upstream's 13, then the extensions.
const ROUTES: [(&str, Method, Endpoint); 17] = [
    ("/health", Method::GET, Endpoint::Health),
    ("/reset", Method::POST, Endpoint::Reset),
    ("/screenshot", Method::GET, Endpoint::Screenshot),
    ("/execute_action", Method::POST, Endpoint::ExecuteAction),
    ("/suite/task_list", Method::GET, Endpoint::TaskList),
    ("/suite/task_length", Method::GET, Endpoint::TaskLength),
    ("/suite/reinitialize", Method::GET, Endpoint::Reinitialize),
    ("/task/initialize", Method::POST, Endpoint::Initialize),
    ("/task/tear_down", Method::POST, Endpoint::TearDown),
    ("/task/score", Method::GET, Endpoint::Score),
    ("/task/goal", Method::GET, Endpoint::Goal),
    ("/task/template", Method::GET, Endpoint::Template),
    ("/close", Method::POST, Endpoint::Close),
    ("/ui_elements", Method::GET, Endpoint::UiElements),
    ("/state_hash", Method::GET, Endpoint::StateHash),
    ("/task/expert_action", Method::POST, Endpoint::ExpertAction),
    ("/eval_report", Method::GET, Endpoint::EvalReport),
];

/// Where a request goes: a device and an endpoint, or why not.
#[derive(Debug, PartialEq, Eq)]
pub enum Route {
    To(usize, Endpoint),
    NotFound,
    /// The path exists for another method (the `Allow` header's value).
    MethodNotAllowed(&'static str),
    /// The path with a trailing slash: Starlette redirects (307) to it without the slash.
    Redirect(String),
}

/// Routes `path` for `devices` devices: `/emuN/...` is device N, a path without a prefix is
/// device 0. GET routes answer HEAD too, as Starlette's do.
pub fn route(method: &Method, path: &str, devices: usize) -> Route {
    let (device, rest) = match path.strip_prefix("/emu") {
        Some(after) => {
            let digits_end = after.find('/').unwrap_or(after.len());
            let (digits, rest) = after.split_at(digits_end);
            match digits.parse::<usize>() {
                // One spelling per device: `/emu01` is not `/emu1`.
                Ok(n) if n < devices && n.to_string() == digits => (n, rest),
                _ => return Route::NotFound,
            }
        }
        None => (0, path),
    };
    let Some((_, want, endpoint)) = ROUTES.iter().find(|(p, _, _)| *p == rest) else {
        let trimmed = rest.trim_end_matches('/');
        if trimmed.len() < rest.len() && ROUTES.iter().any(|(p, _, _)| *p == trimmed) {
            return Route::Redirect(path.trim_end_matches('/').to_owned());
        }
        return Route::NotFound;
    };
    if method == want || (*want == Method::GET && method == Method::HEAD) {
        Route::To(device, *endpoint)
    } else if *want == Method::GET {
        Route::MethodNotAllowed("GET")
    } else {
        Route::MethodNotAllowed("POST")
    }
}

/// One open connection, as the cap and the idle sweep see it.
struct Conn {
    /// Milliseconds since the server started when bytes last moved.
    last_active: AtomicU64,
    /// Requests being answered.
    busy: AtomicUsize,
    close: Notify,
    peer: SocketAddr,
}

struct Shared {
    devices: Vec<Arc<tokio::sync::Mutex<HttpDevice>>>,
    options: HttpOptions,
    conns: Mutex<BTreeMap<u64, Arc<Conn>>>,
    started: Instant,
    log: Mutex<VecDeque<String>>,
}

impl Shared {
    fn now_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    fn log(&self, line: String) {
        let mut log = self.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if log.len() == LOG_LINES {
            log.pop_front();
        }
        log.push_back(line);
    }

    fn conns(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, Arc<Conn>>> {
        self.conns.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A running server. Dropping it stops it.
pub struct HttpServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    stop: watch::Sender<bool>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for HttpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpServer").field("addr", &self.addr).field("devices", &self.shared.devices.len()).finish()
    }
}

impl HttpServer {
    /// Listens on `addr` and serves `devices` (device 0 also without a prefix).
    pub fn bind(
        addr: impl ToSocketAddrs + std::fmt::Debug,
        devices: Vec<HttpDevice>,
        options: HttpOptions,
    ) -> Result<HttpServer, HttpError> {
        if devices.is_empty() {
            return Err(HttpError::NoDevices);
        }
        let shown = format!("{addr:?}");
        let listener = StdListener::bind(&addr).map_err(|source| HttpError::Bind { addr: shown.clone(), source })?;
        listener.set_nonblocking(true).map_err(|source| HttpError::Bind { addr: shown, source })?;
        let local = listener.local_addr().map_err(HttpError::Start)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(options.threads.max(1))
            .thread_name("phoneworld-http")
            .enable_all()
            .build()
            .map_err(HttpError::Start)?;
        let shared = Arc::new(Shared {
            devices: devices.into_iter().map(|d| Arc::new(tokio::sync::Mutex::new(d))).collect(),
            options,
            conns: Mutex::new(BTreeMap::new()),
            started: Instant::now(),
            log: Mutex::new(VecDeque::new()),
        });
        let (stop, stopped) = watch::channel(false);
        let for_thread = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("phoneworld-http-accept".into())
            .spawn(move || {
                runtime.block_on(async move {
                    match tokio::net::TcpListener::from_std(listener) {
                        Ok(listener) => accept_loop(listener, for_thread, stopped).await,
                        Err(e) => for_thread.log(format!("cannot listen: {e}")),
                    }
                });
                runtime.shutdown_timeout(Duration::from_secs(1));
            })
            .map_err(HttpError::Start)?;
        Ok(HttpServer { addr: local, shared, stop, thread: Some(thread) })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    pub fn devices(&self) -> usize {
        self.shared.devices.len()
    }

    pub fn running(&self) -> bool {
        self.thread.as_ref().is_some_and(|t| !t.is_finished())
    }

    /// Open connections now.
    pub fn connections(&self) -> usize {
        self.shared.conns().len()
    }

    /// What the server noted (refusals, evictions, internal errors), oldest first.
    pub fn log(&self) -> Vec<String> {
        self.shared.log.lock().unwrap_or_else(std::sync::PoisonError::into_inner).iter().cloned().collect()
    }

    /// Stops accepting, closes every connection and joins the server's thread. Idempotent.
    pub fn close(&mut self) {
        let _ = self.stop.send(true);
        for conn in self.shared.conns().values() {
            conn.close.notify_one();
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        self.close();
    }
}

async fn accept_loop(listener: tokio::net::TcpListener, shared: Arc<Shared>, mut stopped: watch::Receiver<bool>) {
    let sweeper = tokio::spawn(sweep_idle(Arc::clone(&shared)));
    let mut next_id = 0u64;
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stopped.changed() => break,
        };
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                // Out of file descriptors and the like: wait a moment rather than spin.
                shared.log(format!("accept failed: {e}"));
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        let conn = Arc::new(Conn { last_active: AtomicU64::new(shared.now_ms()), busy: AtomicUsize::new(0), close: Notify::new(), peer });
        {
            let mut conns = shared.conns();
            if conns.len() >= shared.options.max_connections {
                let idle = conns
                    .iter()
                    .filter(|(_, c)| c.busy.load(Ordering::SeqCst) == 0)
                    .min_by_key(|(_, c)| c.last_active.load(Ordering::SeqCst))
                    .map(|(id, _)| *id);
                match idle {
                    Some(id) => {
                        if let Some(victim) = conns.remove(&id) {
                            victim.close.notify_one();
                            shared.log(format!("{} connections open: closed the longest idle, from {}", conns.len() + 1, victim.peer));
                        }
                    }
                    None => {
                        shared.log(format!("{} connections open, all in requests: refused {peer}", conns.len()));
                        continue;
                    }
                }
            }
            conns.insert(next_id, Arc::clone(&conn));
        }
        tokio::spawn(serve_connection(stream, next_id, conn, Arc::clone(&shared)));
        next_id += 1;
    }
    sweeper.abort();
    for conn in shared.conns().values() {
        conn.close.notify_one();
    }
}

/// Closes connections that sit idle past the limit.
async fn sweep_idle(shared: Arc<Shared>) {
    let limit = shared.options.idle_timeout.as_millis() as u64;
    let mut tick = tokio::time::interval((shared.options.idle_timeout / 4).max(Duration::from_millis(10)));
    loop {
        tick.tick().await;
        let now = shared.now_ms();
        let mut conns = shared.conns();
        let stale: Vec<u64> = conns
            .iter()
            .filter(|(_, c)| c.busy.load(Ordering::SeqCst) == 0 && now.saturating_sub(c.last_active.load(Ordering::SeqCst)) >= limit)
            .map(|(id, _)| *id)
            .collect();
        for id in stale {
            if let Some(conn) = conns.remove(&id) {
                conn.close.notify_one();
            }
        }
    }
}

async fn serve_connection(stream: TcpStream, id: u64, conn: Arc<Conn>, shared: Arc<Shared>) {
    let io = TokioIo::new(Tracked { inner: stream, conn: Arc::clone(&conn), shared: Arc::clone(&shared) });
    let service_shared = Arc::clone(&shared);
    let service_conn = Arc::clone(&conn);
    let service = hyper::service::service_fn(move |request: Request<Incoming>| {
        let shared = Arc::clone(&service_shared);
        let conn = Arc::clone(&service_conn);
        async move {
            conn.busy.fetch_add(1, Ordering::SeqCst);
            let response = answer(&shared, request).await;
            conn.busy.fetch_sub(1, Ordering::SeqCst);
            conn.last_active.store(shared.now_ms(), Ordering::SeqCst);
            Ok::<_, Infallible>(response)
        }
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(TokioTimer::new())
        .header_read_timeout(shared.options.header_timeout)
        .max_buf_size(64 * 1024)
        .serve_connection(io, service);
    tokio::select! {
        result = connection => {
            if let Err(e) = result {
                if !e.is_incomplete_message() {
                    shared.log(format!("connection from {}: {e}", conn.peer));
                }
            }
        }
        _ = conn.close.notified() => {}
    }
    shared.conns().remove(&id);
}

/// A socket that notes when bytes last moved.
struct Tracked {
    inner: TcpStream,
    conn: Arc<Conn>,
    shared: Arc<Shared>,
}

impl Tracked {
    fn touch(&self) {
        self.conn.last_active.store(self.shared.now_ms(), Ordering::SeqCst);
    }
}

impl AsyncRead for Tracked {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.inner).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.touch();
        }
        poll
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, data: &[u8]) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, data);
        if matches!(poll, Poll::Ready(Ok(n)) if n > 0) {
            self.touch();
        }
        poll
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

fn json_response(status: StatusCode, body: &serde_json::Value) -> Response<Full<Bytes>> {
    bytes_response(status, "application/json", Bytes::from(body.to_string()))
}

fn bytes_response(status: StatusCode, content_type: &'static str, body: Bytes) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = status;
    response.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

fn internal_error() -> Response<Full<Bytes>> {
    bytes_response(StatusCode::INTERNAL_SERVER_ERROR, "text/plain; charset=utf-8", Bytes::from_static(b"Internal Server Error"))
}

async fn answer(shared: &Arc<Shared>, request: Request<Incoming>) -> Response<Full<Bytes>> {
    let (parts, body) = request.into_parts();
    let (device, endpoint) = match route(&parts.method, parts.uri.path(), shared.devices.len()) {
        Route::To(device, endpoint) => (device, endpoint),
        Route::NotFound => return json_response(StatusCode::NOT_FOUND, &json!({"detail": "Not Found"})),
        Route::Redirect(to) => {
            let location = match parts.uri.query() {
                Some(q) => format!("{to}?{q}"),
                None => to,
            };
            let mut response = bytes_response(StatusCode::TEMPORARY_REDIRECT, "text/plain; charset=utf-8", Bytes::new());
            if let Ok(value) = HeaderValue::from_str(&location) {
                response.headers_mut().insert(LOCATION, value);
            }
            return response;
        }
        Route::MethodNotAllowed(allow) => {
            let mut response = json_response(StatusCode::METHOD_NOT_ALLOWED, &json!({"detail": "Method Not Allowed"}));
            response.headers_mut().insert(ALLOW, HeaderValue::from_static(allow));
            return response;
        }
    };
    let limit = shared.options.max_body_bytes;
    let body = match tokio::time::timeout(shared.options.body_timeout, Limited::new(body, limit).collect()).await {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(e)) if e.downcast_ref::<http_body_util::LengthLimitError>().is_some() => {
            return json_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                &json!({"detail": format!("Request body too large: at most {limit} bytes")}),
            );
        }
        Ok(Err(e)) => {
            shared.log(format!("reading a request body: {e}"));
            return json_response(StatusCode::BAD_REQUEST, &json!({"detail": "The request body could not be read"}));
        }
        Err(_) => {
            return json_response(
                StatusCode::REQUEST_TIMEOUT,
                &json!({"detail": format!("The request body did not arrive within {} s", shared.options.body_timeout.as_secs())}),
            )
        }
    };
    let query = Query::parse(parts.uri.query());
    // One request at a time per device, in arrival order; the device's work runs off the
    // threads that answer HTTP.
    let slot = Arc::clone(&shared.devices[device]);
    let mut guard = slot.lock_owned().await;
    let reply = tokio::task::spawn_blocking(move || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| guard.handle(endpoint, &query, &body)))
            .unwrap_or_else(|_| Reply::Internal("the device panicked while answering".into()))
    })
    .await
    .unwrap_or_else(|e| Reply::Internal(format!("the device's worker failed: {e}")));
    match reply {
        Reply::Json(status, value) => json_response(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR), &value),
        Reply::JsonText(status, text) => {
            bytes_response(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR), "application/json", Bytes::from(text))
        }
        Reply::Bytes(content_type, body) => bytes_response(StatusCode::OK, content_type, body),
        Reply::Invalid(errors) => {
            bytes_response(StatusCode::UNPROCESSABLE_ENTITY, "application/json", Bytes::from(FieldError::detail_text(&errors)))
        }
        Reply::Internal(reason) => {
            shared.log(format!("/emu{device} {} {}: {reason}", parts.method, parts.uri.path()));
            internal_error()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_and_methods() {
        assert_eq!(route(&Method::GET, "/health", 1), Route::To(0, Endpoint::Health));
        assert_eq!(route(&Method::GET, "/emu1/task/goal", 2), Route::To(1, Endpoint::Goal));
        assert_eq!(route(&Method::HEAD, "/emu0/health", 2), Route::To(0, Endpoint::Health));
        assert_eq!(route(&Method::GET, "/emu2/health", 2), Route::NotFound);
        assert_eq!(route(&Method::GET, "/emu01/health", 2), Route::NotFound);
        assert_eq!(route(&Method::GET, "/nope", 2), Route::NotFound);
        assert_eq!(route(&Method::GET, "/emu1/health/", 2), Route::Redirect("/emu1/health".into()));
        assert_eq!(route(&Method::GET, "/reset", 1), Route::MethodNotAllowed("POST"));
        assert_eq!(route(&Method::POST, "/suite/reinitialize", 1), Route::MethodNotAllowed("GET"));
    }
}
