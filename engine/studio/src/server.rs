//! The studio's HTTP and WebSocket server: the page and its assets, a JSON API over the
//! session, and `/api/live`, a WebSocket that says when there is something new to show.
//! Every request passes the [`Guard`] first.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::extract::{Query, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use phoneworld_data::Action;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::watch;

use crate::guard::{Credentials, Guard, TOKEN_HEADER};
use crate::session::{Session, StudioOptions};
use crate::StudioError;

/// How often the app's files are looked at.
const POLL_FILES: Duration = Duration::from_millis(250);

#[derive(Clone)]
struct Shared {
    session: Arc<Mutex<Session>>,
    guard: Arc<Guard>,
    /// The session's version, sent to every live page when it changes.
    changes: watch::Sender<u64>,
}

impl Shared {
    /// Runs `work` on the session off the async threads, then tells the live pages. A panic in
    /// it (a bug of ours) fails this request only: the server, and the file poller, go on.
    async fn with<T: Send + 'static>(&self, work: impl FnOnce(&mut Session) -> T + Send + 'static) -> Result<T, Response> {
        let session = Arc::clone(&self.session);
        let done = tokio::task::spawn_blocking(move || {
            let mut session = session.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let answer = work(&mut session);
            (answer, session.version)
        })
        .await;
        let (answer, version) = done.map_err(|e| {
            let message = format!("internal error in the studio: {e}");
            eprintln!("{message}");
            (StatusCode::INTERNAL_SERVER_ERROR, Json(json!({ "error": message }))).into_response()
        })?;
        self.changes.send_if_modified(|v| std::mem::replace(v, version) != version);
        Ok(answer)
    }
}

/// A running studio.
pub struct Studio {
    addr: SocketAddr,
    token: String,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Studio {
    /// Loads the apps, listens on `addr` (port 0: any free port) and serves on a thread of its
    /// own.
    pub fn start(options: StudioOptions, addr: SocketAddr) -> Result<Studio, StudioError> {
        let session = Session::open(options)?;
        let bind_error = |e: std::io::Error| StudioError::Bind { addr: addr.to_string(), message: e.to_string() };
        let listener = std::net::TcpListener::bind(addr).map_err(bind_error)?;
        listener.set_nonblocking(true).map_err(bind_error)?;
        let addr = listener.local_addr().map_err(bind_error)?;
        let guard = Arc::new(Guard::new(addr));
        let token = guard.token().to_owned();
        let (changes, _) = watch::channel(session.version);
        let shared = Shared { session: Arc::new(Mutex::new(session)), guard, changes };
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| StudioError::Io(e.to_string()))?;
        let thread = std::thread::spawn(move || {
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).expect("a listening socket");
                tokio::spawn(poll_files(shared.clone()));
                let _ = axum::serve(listener, router(shared)).await;
            });
        });
        Ok(Studio { addr, token, thread: Some(thread) })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The page's URL, with the token.
    pub fn url(&self) -> String {
        format!("http://{}/?token={}", self.addr, self.token)
    }

    /// Serves until the process ends.
    pub fn wait(mut self) {
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Starts a studio and serves until the process ends, after `on_listen` has the URL.
pub fn serve(options: StudioOptions, addr: SocketAddr, on_listen: impl FnOnce(&Studio)) -> Result<(), StudioError> {
    let studio = Studio::start(options, addr)?;
    on_listen(&studio);
    studio.wait();
    Ok(())
}

async fn poll_files(shared: Shared) {
    let mut tick = tokio::time::interval(POLL_FILES);
    loop {
        tick.tick().await;
        // A failed look (reported by `with`) is tried again at the next tick.
        let _ = shared.with(Session::poll_files).await;
    }
}

fn router(shared: Shared) -> Router {
    Router::new()
        .route("/", get(page))
        .route("/studio.js", get(|| async { asset("text/javascript", crate::assets::SCRIPT) }))
        .route("/studio.css", get(|| async { asset("text/css", crate::assets::STYLE) }))
        .route("/api/frame.png", get(frame))
        .route("/api/panels", get(panels))
        .route("/api/file", get(app_file))
        .route("/api/tasks", get(tasks))
        .route("/api/action", post(action))
        .route("/api/reset", post(reset))
        .route("/api/appearance", post(appearance))
        .route("/api/play", post(play))
        .route("/api/play/step", post(play_step))
        .route("/api/record/start", post(record_start))
        .route("/api/record/stop", post(record_stop))
        .route("/api/record/save", post(record_save))
        .route("/api/verify", post(verify))
        .route("/api/live", get(live))
        .layer(middleware::from_fn_with_state(shared.clone(), admit))
        .with_state(shared)
}

/// The page's script and style: the same for every studio, so they need no token (Host and
/// Origin are still checked); everything else does.
const PUBLIC: [&str; 2] = ["/studio.js", "/studio.css"];

/// The guard, before every route.
async fn admit(State(shared): State<Shared>, request: Request, next: Next) -> Response {
    let headers = request.headers();
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).filter(|v| !v.is_empty());
    let query_token = request.uri().query().and_then(|q| q.split('&').find_map(|kv| kv.strip_prefix("token="))).filter(|t| !t.is_empty());
    let token = if PUBLIC.contains(&request.uri().path()) { Some(shared.guard.token()) } else { query_token.or(text(TOKEN_HEADER)) };
    let credentials = Credentials { host: text(header::HOST.as_str()), origin: text(header::ORIGIN.as_str()), token };
    match shared.guard.check(&credentials) {
        Ok(()) => next.run(request).await,
        Err(refusal) => (StatusCode::FORBIDDEN, Json(json!({ "error": refusal.to_string() }))).into_response(),
    }
}

fn asset(kind: &'static str, body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, kind), (header::CACHE_CONTROL, "no-store")], body).into_response()
}

/// The page. Its script sends the token from the page's URL with every request; no cookie
/// carries it, as cookies would go to every other server on this host, whatever its port.
async fn page() -> Response {
    asset("text/html; charset=utf-8", crate::assets::PAGE)
}

fn failed(err: impl std::fmt::Display) -> Response {
    (StatusCode::BAD_REQUEST, Json(json!({ "error": err.to_string() }))).into_response()
}

fn answer(result: Result<Result<Value, StudioError>, Response>) -> Response {
    match result {
        Ok(Ok(value)) => Json(value).into_response(),
        Ok(Err(err)) => failed(err),
        Err(response) => response,
    }
}

async fn frame(State(shared): State<Shared>) -> Response {
    let png = match shared.with(Session::frame_png).await {
        Ok(png) => png,
        Err(response) => return response,
    };
    ([(header::CONTENT_TYPE, "image/png"), (header::CACHE_CONTROL, "no-store")], Body::from(png.to_vec())).into_response()
}

async fn panels(State(shared): State<Shared>) -> Response {
    match shared.with(Session::panels).await {
        Ok(panels) => Json(panels).into_response(),
        Err(response) => response,
    }
}

#[derive(Deserialize)]
struct FileQuery {
    path: String,
}

async fn app_file(State(shared): State<Shared>, Query(q): Query<FileQuery>) -> Response {
    let path = std::path::PathBuf::from(q.path);
    match shared.with(move |s| s.app_file(&path)).await {
        Err(response) => response,
        Ok(Some(text)) => ([(header::CONTENT_TYPE, "text/plain; charset=utf-8")], text).into_response(),
        Ok(None) => (StatusCode::NOT_FOUND, Json(json!({ "error": "not a file of the apps this studio serves" }))).into_response(),
    }
}

async fn tasks(State(shared): State<Shared>) -> Response {
    answer(shared.with(|s| s.templates()).await.map(|(templates, errors)| Ok(json!({ "templates": templates, "errors": errors }))))
}

/// A canonical action from the page (the body is its JSON).
async fn action(State(shared): State<Shared>, body: String) -> Response {
    let action: Action = match serde_json::from_str(&body) {
        Ok(a) => a,
        Err(e) => return failed(format!("action: {e}")),
    };
    answer(shared.with(move |s| s.act(&action)).await.map(|r| Ok(json!({ "ok": r.ok, "note": r.note, "screen": r.screen }))))
}

async fn reset(State(shared): State<Shared>) -> Response {
    answer(shared.with(|s| s.reset().map(|()| json!({ "ok": true }))).await)
}

#[derive(Deserialize)]
struct AppearanceBody {
    name: String,
}

async fn appearance(State(shared): State<Shared>, Json(body): Json<AppearanceBody>) -> Response {
    answer(shared.with(move |s| s.set_appearance(&body.name).map(|()| json!({ "ok": true }))).await)
}

#[derive(Deserialize)]
struct PlayBody {
    template: String,
    #[serde(default)]
    seed: u64,
}

async fn play(State(shared): State<Shared>, Json(body): Json<PlayBody>) -> Response {
    answer(shared.with(move |s| s.play_start(&body.template, body.seed).map(|()| json!({ "ok": true }))).await)
}

async fn play_step(State(shared): State<Shared>) -> Response {
    answer(shared.with(Session::play_step).await)
}

async fn record_start(State(shared): State<Shared>) -> Response {
    answer(shared.with(|s| s.record_start().map(|()| json!({ "ok": true }))).await)
}

async fn record_stop(State(shared): State<Shared>) -> Response {
    answer(shared.with(|s| s.record_stop().map(|offers| json!({ "offered": offers }))).await)
}

#[derive(Deserialize)]
struct SaveBody {
    id: String,
    instruction: String,
    keep: Vec<usize>,
}

async fn record_save(State(shared): State<Shared>, Json(body): Json<SaveBody>) -> Response {
    answer(shared.with(move |s| s.record_save(&body.id, &body.instruction, &body.keep).map(|file| json!({ "file": file }))).await)
}

#[derive(Deserialize)]
struct VerifyBody {
    template: String,
    #[serde(default = "default_seeds")]
    seeds: u64,
}

fn default_seeds() -> u64 {
    3
}

async fn verify(State(shared): State<Shared>, Json(body): Json<VerifyBody>) -> Response {
    answer(shared.with(move |s| s.verify(&body.template, body.seeds.clamp(1, 20))).await)
}

/// Sends `{"version": N}` now and whenever the session changes.
async fn live(State(shared): State<Shared>, upgrade: WebSocketUpgrade) -> Response {
    let changes = shared.changes.subscribe();
    upgrade.on_upgrade(move |socket| push_changes(socket, changes))
}

async fn push_changes(mut socket: WebSocket, mut changes: watch::Receiver<u64>) {
    loop {
        let version = *changes.borrow_and_update();
        if socket.send(Message::Text(json!({ "version": version }).to_string().into())).await.is_err() {
            return;
        }
        tokio::select! {
            changed = changes.changed() => if changed.is_err() { return },
            incoming = socket.recv() => match incoming {
                Some(Ok(_)) => {}
                _ => return,
            },
        }
    }
}
