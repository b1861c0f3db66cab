//! The HTTP server: the page (HTML, JS, CSS embedded in the binary; nothing is fetched
//! from elsewhere) and the JSON API it uses. Every request first passes [`super::guard`]
//! (Host, Origin, the per-start token, content types); every path in a request is resolved
//! by [`super::access`] (the roots given on the command line, the games directory and the
//! shipped data; a missing path and a forbidden one get the same 403). File reads happen
//! off the async workers, and what files and uploads hold in memory at once is bounded
//! ([`ServeLimits`]). Every error is a JSON object `{"error": "..."}` with a 4xx/5xx status
//! that says what was wrong.
//!
//! | method | path | what |
//! |---|---|---|
//! | GET | `/`, `/app.js`, `/app.css` | the page |
//! | GET | `/api/files` | the roots and the episode files and eval directories under them |
//! | GET | `/api/episode?path=P&index=I` | open episode I of file P: the step-by-step view |
//! | POST | `/api/upload?name=N&index=I` | the same for a file's text sent as the body |
//! | GET | `/api/board/{id}/{frame}?status=1&cell=48&view=P` | a frame of an opened episode, SVG (`view`: shade what player P does not see, for games with a view radius) |
//! | GET | `/api/eval?path=DIR&include_unchecked=true` | an eval directory's episodes grouped by cell (records without a checksum are listed but left out of the means unless `include_unchecked`) |
//! | GET | `/api/play/options` | layouts, seats, models and defaults for a new game |
//! | POST | `/api/play` | start a game (JSON [`GameRequest`]) |
//! | GET | `/api/play/{id}` | the game's state and board |
//! | POST | `/api/play/{id}/key` | `{"action": "N"\|"S"\|"E"\|"W"\|"I"\|"X"}` |
//! | POST | `/api/play/{id}/stop` | end the game now (what was played is saved) |

use super::access::{Access, AccessError, Root, shipped_data};
use super::guard::{Guard, new_token};
use super::play::{GameRequest, PlayConfig, PlayError, Sessions};
use super::view::EpisodeView;
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use proagent_eval::games::{AnyGame, GameOptions};
use proagent_eval::runner::files::{FileError, read_episode_text_in, text_of_bytes};
use proagent_eval::sweep::store::{ResultSet, results_files_in};
use proagent_listen::ConnLimits;
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const APP_CSS: &str = include_str!("assets/app.css");
/// Where the page's HTML receives the token.
const TOKEN_SLOT: &str = "{{TOKEN}}";
/// What the page may load: only from this server; no framing by other pages.
const PAGE_POLICY: &str =
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'";

/// Episodes kept open at once (the oldest is dropped first).
const OPEN_EPISODES: usize = 16;
/// Most files listed under one root.
const MAX_LISTED: usize = 2000;
/// Largest game request or key body.
const MAX_JSON_BODY: usize = 64 << 10;
/// Units of the memory budget (bytes per permit).
const BUDGET_UNIT: u64 = 1 << 10;

/// The server's own limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServeLimits {
    /// Connections, and header, body and write time-outs.
    pub conn: ConnLimits,
    /// Largest upload accepted (`/api/upload`).
    pub max_upload: u64,
    /// Bytes of episode text (files opened, uploads, after gunzip) being read and parsed at
    /// once; also the largest single file the viewer opens. A request that would pass it
    /// waits (up to [`ServeLimits::budget_wait`]), then gets 503.
    pub read_budget: u64,
    /// How long a request waits for the read budget.
    pub budget_wait: Duration,
    /// Memory the episodes kept open may hold at once (oldest dropped first): each counted
    /// as the heap its parsed form holds, measured when it is opened (see
    /// [`super::memory`]). An episode that alone holds more is refused (413).
    pub keep_budget: u64,
}

impl Default for ServeLimits {
    fn default() -> Self {
        ServeLimits {
            conn: ConnLimits::default(),
            max_upload: 64 << 20,
            read_budget: 64 << 20,
            budget_wait: Duration::from_secs(30),
            keep_budget: 192 << 20,
        }
    }
}

/// What a server serves.
pub struct ServeConfig {
    /// Files and directories the viewer may open (anything under a directory).
    pub roots: Vec<PathBuf>,
    /// Human play.
    pub play: PlayConfig,
    /// The server's own limits.
    pub limits: ServeLimits,
    /// Host names accepted in the Host header besides `localhost` and IP literals.
    pub allow_hosts: Vec<String>,
}

/// Why a server could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// A root that does not exist.
    #[error("{path}: {message}")]
    Root {
        /// The path as given.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// No token could be drawn from the operating system's random source.
    #[error("drawing the server's token: {0}")]
    Token(String),
}

/// An opened episode and the memory it holds (for the keep budget).
struct Kept {
    view: Arc<EpisodeView>,
    bytes: u64,
}

/// The server's state, shared by all requests.
pub struct AppState {
    access: Access,
    episodes: Mutex<Vec<Kept>>,
    next_id: AtomicU64,
    play: PlayConfig,
    limits: ServeLimits,
    /// Read budget, in [`BUDGET_UNIT`]s.
    budget: Arc<Semaphore>,
    /// The running and finished games.
    pub sessions: Sessions,
}

/// The router of `proagent serve` over these roots (the games directory is created and
/// added as a root), for a server listening on `port`; every request passes the guard.
pub fn router(cfg: ServeConfig, port: u16) -> Result<Router, ServeError> {
    let mut roots = Vec::new();
    std::fs::create_dir_all(&cfg.play.games_dir).map_err(|e| ServeError::Root {
        path: cfg.play.games_dir.display().to_string(),
        message: format!("cannot create the games directory: {e}"),
    })?;
    for p in cfg.roots.iter().chain(std::iter::once(&cfg.play.games_dir)) {
        let path =
            p.canonicalize().map_err(|e| ServeError::Root { path: p.display().to_string(), message: e.to_string() })?;
        if roots.iter().any(|r: &Root| r.path == path) {
            continue;
        }
        roots.push(Root { shown: p.display().to_string(), is_dir: path.is_dir(), path });
    }
    let token = new_token().map_err(|e| ServeError::Token(e.to_string()))?;
    let units = (cfg.limits.read_budget / BUDGET_UNIT).clamp(1, u32::MAX as u64 / 2) as usize;
    let state = Arc::new(AppState {
        access: Access { roots, shipped: shipped_data() },
        episodes: Mutex::new(Vec::new()),
        next_id: AtomicU64::new(1),
        play: cfg.play,
        limits: cfg.limits,
        budget: Arc::new(Semaphore::new(units)),
        sessions: Sessions::default(),
    });
    let guard = Arc::new(Guard { token: token.clone(), port, hosts: cfg.allow_hosts });
    let page = INDEX_HTML.replace(TOKEN_SLOT, &token);
    let asset = |ct: &'static str, body: String| {
        move || {
            let body = body.clone();
            async move {
                (
                    [
                        (header::CONTENT_TYPE, ct),
                        (header::CONTENT_SECURITY_POLICY, PAGE_POLICY),
                        (header::X_FRAME_OPTIONS, "DENY"),
                        (header::CACHE_CONTROL, "no-store"),
                    ],
                    body,
                )
            }
        }
    };
    Ok(Router::new()
        .route("/", get(asset("text/html; charset=utf-8", page)))
        .route("/app.js", get(asset("text/javascript; charset=utf-8", APP_JS.to_string())))
        .route("/app.css", get(asset("text/css; charset=utf-8", APP_CSS.to_string())))
        .route("/api/files", get(files))
        .route("/api/episode", get(episode))
        .route("/api/upload", post(upload))
        .route("/api/board/{id}/{frame}", get(board))
        .route("/api/eval", get(eval_dir))
        .route("/api/play/options", get(play_options))
        .route("/api/play", post(play_start))
        .route("/api/play/{id}", get(play_status))
        .route("/api/play/{id}/key", post(play_key))
        .route("/api/play/{id}/stop", post(play_stop))
        .fallback(|| async { ApiError::new(StatusCode::NOT_FOUND, "no such page or API endpoint") })
        .layer(axum::middleware::from_fn_with_state(guard, super::guard::guard))
        .with_state(state))
}

/// An API error: a status and a message, sent as `{"error": message}`.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> Self {
        ApiError { status, message: message.into() }
    }
    fn bad(message: impl std::fmt::Display) -> Self {
        ApiError::new(StatusCode::BAD_REQUEST, message.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, axum::Json(json!({ "error": self.message }))).into_response()
    }
}

impl From<PlayError> for ApiError {
    fn from(e: PlayError) -> Self {
        let status = match e {
            PlayError::NoSuchGame(_) => StatusCode::NOT_FOUND,
            PlayError::Busy(_) => StatusCode::TOO_MANY_REQUESTS,
            PlayError::Io { .. } => StatusCode::INTERNAL_SERVER_ERROR,
            PlayError::Field { .. } => StatusCode::BAD_REQUEST,
        };
        ApiError::new(status, e.to_string())
    }
}

impl From<AccessError> for ApiError {
    fn from(e: AccessError) -> Self {
        let status = match e {
            AccessError::NotServed(_) => StatusCode::FORBIDDEN,
            AccessError::NotRegular(_) | AccessError::Kind { .. } => StatusCode::BAD_REQUEST,
            AccessError::Refused(_) => StatusCode::FORBIDDEN,
        };
        ApiError::new(status, e.to_string())
    }
}

fn internal(e: impl std::fmt::Display) -> ApiError {
    ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
}

/// Runs blocking work (file system, parsing) off the async workers.
async fn blocking<T: Send + 'static>(f: impl FnOnce() -> ApiResult<T> + Send + 'static) -> ApiResult<T> {
    tokio::task::spawn_blocking(f).await.map_err(internal)?
}

type Shared = State<Arc<AppState>>;
type ApiResult<T> = Result<T, ApiError>;

impl AppState {
    /// Holds `bytes` of the read budget (waiting for it up to the configured time).
    async fn reserve(&self, bytes: u64, what: &str) -> ApiResult<OwnedSemaphorePermit> {
        if bytes > self.limits.read_budget {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "{what}: {} is more than this server reads at once ({}; see docs/limits.md)",
                    proagent_core::limits::human_bytes(bytes),
                    proagent_core::limits::human_bytes(self.limits.read_budget)
                ),
            ));
        }
        let units = bytes.div_ceil(BUDGET_UNIT).max(1) as u32;
        let take = Arc::clone(&self.budget).acquire_many_owned(units);
        match tokio::time::timeout(self.limits.budget_wait, take).await {
            Ok(Ok(p)) => Ok(p),
            _ => Err(ApiError::new(
                StatusCode::SERVICE_UNAVAILABLE,
                format!("{what}: the server is busy reading other files; try again"),
            )),
        }
    }

    /// Keeps an opened episode that holds `bytes` of memory, dropping the oldest ones until
    /// it fits the keep budget; one that alone holds more than the budget is refused.
    fn keep(&self, source: &str, view: EpisodeView, bytes: u64) -> ApiResult<Arc<EpisodeView>> {
        let budget = self.limits.keep_budget;
        if bytes > budget {
            return Err(ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "{source}: this episode holds {} in memory once opened, more than this server keeps open \
                     ({}; see docs/limits.md)",
                    proagent_core::limits::human_bytes(bytes),
                    proagent_core::limits::human_bytes(budget)
                ),
            ));
        }
        let view = Arc::new(view);
        let dropped: Vec<Kept> = {
            let mut eps = self.episodes.lock().unwrap_or_else(|e| e.into_inner());
            let mut held: u64 = eps.iter().map(|k| k.bytes).sum();
            let mut n = 0;
            while n < eps.len() && (eps.len() - n >= OPEN_EPISODES || held.saturating_add(bytes) > budget) {
                held -= eps[n].bytes;
                n += 1;
            }
            let dropped = eps.drain(..n).collect();
            eps.push(Kept { view: Arc::clone(&view), bytes });
            dropped
        };
        // Freed outside the lock (a large episode takes a moment to free).
        drop(dropped);
        Ok(view)
    }

    fn opened(&self, id: &str) -> ApiResult<Arc<EpisodeView>> {
        let eps = self.episodes.lock().unwrap_or_else(|e| e.into_inner());
        eps.iter()
            .find(|e| e.view.id == id)
            .map(|k| Arc::clone(&k.view))
            .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("episode {id:?} is not open (open it again)")))
    }

    /// Reads an episode file's text (bounded) and opens it; a file it names in turn (a
    /// header's layout, a maze trajectory's `spec`) is opened only through [`Access`].
    fn open_text(&self, source: &str, bytes: Vec<u8>, index: usize) -> ApiResult<Arc<EpisodeView>> {
        // Whatever happens, what parsing freed goes back to the system: declared first, so
        // it runs last, after the text and everything dropped on the way out.
        let _release = super::memory::ReleaseOnDrop;
        let size = bytes.len() as u64;
        let text = if proagent_core::limits::is_gzip(&bytes) {
            let plain = proagent_core::limits::gunzip(
                &bytes,
                self.limits.read_budget,
                "episode text this server reads at once",
            )
            .map_err(|e| ApiError::bad(format!("{source}: reading the gzip data: {e}")))?;
            drop(bytes);
            String::from_utf8(plain)
                .map_err(|e| ApiError::bad(format!("{source}: the gzip data is not UTF-8 text: {e}")))?
        } else {
            text_of_bytes(source, bytes).map_err(ApiError::bad)?
        };
        let id = format!("e{}", self.next_id.fetch_add(1, Ordering::SeqCst));
        // What the parsed episode holds is measured while it is built (the text stays
        // alive meanwhile, so its freeing is not counted against it).
        let (view, held) = super::memory::measured(|| {
            let f = read_episode_text_in(source, &text, &self.access).map_err(|e| match e {
                // Refused like the path itself would be: one answer for missing and forbidden.
                FileError::Refused { .. } => ApiError::new(StatusCode::FORBIDDEN, e.to_string()),
                e => ApiError::bad(e),
            })?;
            EpisodeView::new(id, f, index).map_err(ApiError::bad)
        });
        let view = view?;
        // Without the counting allocator (a program embedding the server), the text's length.
        let weight = held.unwrap_or_else(|| size.max(text.len() as u64));
        drop(text);
        self.keep(source, view, weight)
    }
}

/// Reads a request body: at most `limit` bytes, within the body time-out.
async fn read_body(body: Body, limit: usize, timeout: Duration) -> ApiResult<Bytes> {
    match tokio::time::timeout(timeout, axum::body::to_bytes(body, limit)).await {
        Ok(Ok(b)) => Ok(b),
        Ok(Err(e)) => Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("cannot read the request body (at most {}): {e}", proagent_core::limits::human_bytes(limit as u64)),
        )),
        Err(_) => Err(ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            format!("the request body did not arrive within {} s", timeout.as_secs()),
        )),
    }
}

fn kind_of_name(name: &str) -> Option<&'static str> {
    if name.ends_with(".jsonl") || name.ends_with(".jsonl.gz") || name.ends_with(".json") { Some("file") } else { None }
}

fn list_dir(dir: &Path, shown: &Path, depth: usize, out: &mut Vec<Value>) {
    if depth > 3 || out.len() >= MAX_LISTED {
        return;
    }
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = rd.filter_map(Result::ok).map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if out.len() >= MAX_LISTED {
            return;
        }
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("").to_string();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        let show = shown.join(&name);
        if p.is_dir() {
            if p.join("results.jsonl").is_file() || results_files_in(&p).is_ok_and(|f| !f.is_empty()) {
                out.push(json!({"path": show.display().to_string(), "kind": "eval"}));
            } else {
                list_dir(&p, &show, depth + 1, out);
            }
        } else if let Some(k) = kind_of_name(&name) {
            if name == "results.jsonl" || name.starts_with("results-") {
                continue;
            }
            out.push(json!({"path": show.display().to_string(), "kind": k}));
        }
    }
}

async fn files(State(st): Shared) -> ApiResult<axum::Json<Value>> {
    let st2 = Arc::clone(&st);
    let roots = blocking(move || {
        Ok(st2
            .access
            .roots
            .iter()
            .map(|r| {
                let mut entries = Vec::new();
                let kind = if !r.is_dir {
                    "file"
                } else if results_files_in(&r.path).is_ok_and(|f| !f.is_empty()) {
                    "eval"
                } else {
                    list_dir(&r.path, Path::new(&r.shown), 0, &mut entries);
                    "dir"
                };
                json!({"path": r.shown, "kind": kind, "entries": entries})
            })
            .collect::<Vec<Value>>())
    })
    .await?;
    Ok(axum::Json(json!({"roots": roots, "games_dir": st.play.games_dir.display().to_string()})))
}

#[derive(Deserialize)]
struct EpisodeQuery {
    #[serde(default)]
    path: String,
    #[serde(default)]
    index: usize,
}

async fn episode(State(st): Shared, Query(q): Query<EpisodeQuery>) -> ApiResult<Response> {
    // Resolve and size the file off the async workers (a FIFO is refused, never opened).
    let st2 = Arc::clone(&st);
    let path = q.path.clone();
    let (canon, size, gz) = blocking(move || {
        let canon = st2.access.file(&path)?;
        let size = std::fs::metadata(&canon).map_err(|_| AccessError::NotServed(path.clone()))?.len();
        let mut head = [0u8; 2];
        let gz = std::fs::File::open(&canon)
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
            .is_ok_and(|_| proagent_core::limits::is_gzip(&head));
        Ok((canon, size, gz))
    })
    .await?;
    // A gzipped file may expand up to the whole budget.
    let _held = st.reserve(if gz { st.limits.read_budget } else { size }, &q.path).await?;
    let shown = q.path.clone();
    blocking(move || {
        let limit = st.limits.read_budget;
        let bytes = proagent_core::limits::read_file(&canon, limit, "episode files this server reads at once")
            .map_err(|e| ApiError::bad(format!("{shown}: {e}")))?;
        let view = st.open_text(&shown, bytes, q.index)?;
        Ok(episode_answer(&view))
    })
    .await
}

/// The answer to opening an episode: the view's JSON, built and serialized off the async
/// workers, after which what building it freed goes back to the system (it can be large).
fn episode_answer(view: &EpisodeView) -> Response {
    let _release = super::memory::ReleaseOnDrop;
    let body = serde_json::to_vec(&view.json());
    match body {
        Ok(body) => ([(header::CONTENT_TYPE, "application/json")], body).into_response(),
        Err(e) => internal(e).into_response(),
    }
}

#[derive(Deserialize)]
struct UploadQuery {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    index: usize,
}

async fn upload(
    State(st): Shared,
    Query(q): Query<UploadQuery>,
    headers: HeaderMap,
    body: Body,
) -> ApiResult<Response> {
    let name: String =
        q.name.unwrap_or_else(|| "upload".into()).chars().filter(|c| !c.is_control()).take(200).collect();
    let max = st.limits.max_upload;
    let length = headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if let Some(n) = length
        && n > max
    {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!(
                "{name}: {} is larger than the largest upload ({})",
                proagent_core::limits::human_bytes(n),
                proagent_core::limits::human_bytes(max)
            ),
        ));
    }
    // Held while the body arrives and is parsed; without a length, the largest upload.
    let mut held = st.reserve(length.unwrap_or(max), &name).await?;
    let bytes = read_body(body, max as usize, st.limits.conn.body_timeout).await?;
    if proagent_core::limits::is_gzip(&bytes) {
        // Unpacked, it may take the whole budget.
        drop(held);
        held = st.reserve(st.limits.read_budget, &name).await?;
    }
    blocking(move || {
        let _held = held;
        let view = st.open_text(&name, bytes.to_vec(), q.index)?;
        drop(bytes);
        Ok(episode_answer(&view))
    })
    .await
}

#[derive(Deserialize)]
struct BoardQuery {
    #[serde(default)]
    status: Option<u8>,
    #[serde(default)]
    cell: Option<u32>,
    #[serde(default)]
    view: Option<usize>,
}

async fn board(
    State(st): Shared,
    UrlPath((id, frame)): UrlPath<(String, String)>,
    Query(q): Query<BoardQuery>,
) -> ApiResult<Response> {
    let view = st.opened(&id)?;
    let f: usize = frame
        .trim_end_matches(".svg")
        .parse()
        .map_err(|_| ApiError::bad(format!("frame: {frame:?} is not a frame number")))?;
    if f >= view.frames() {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            format!("frame {f} does not exist (the episode has frames 0..={})", view.frames() - 1),
        ));
    }
    let cell = q.cell.unwrap_or(proagent_view::board::DEFAULT_CELL);
    let (lo, hi) = proagent_view::board::CELL_RANGE;
    if !(lo..=hi).contains(&cell) {
        return Err(ApiError::bad(format!("cell: must be {lo}..={hi}, not {cell}")));
    }
    if let Some(p) = q.view
        && p >= view.players()
    {
        return Err(ApiError::bad(format!("view: player {p} does not exist (the episode has {})", view.players())));
    }
    let svg = view
        .svg(f, q.status.unwrap_or(0) != 0, q.view, cell)
        .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))?;
    Ok(([(header::CONTENT_TYPE, "image/svg+xml"), (header::CACHE_CONTROL, "max-age=3600")], svg).into_response())
}

#[derive(Deserialize)]
struct EvalQuery {
    #[serde(default)]
    path: String,
    /// Count records without a checksum in the means.
    #[serde(default)]
    include_unchecked: bool,
}

async fn eval_dir(State(st): Shared, Query(q): Query<EvalQuery>) -> ApiResult<axum::Json<Value>> {
    let st2 = Arc::clone(&st);
    let path = q.path.clone();
    let canon = blocking(move || Ok(st2.access.dir(&path)?)).await?;
    let shown = PathBuf::from(&q.path);
    let st3 = Arc::clone(&st);
    let out = blocking(move || -> ApiResult<Value> {
        let files = results_files_in(&canon).map_err(|e| ApiError::bad(format!("{}: {e}", shown.display())))?;
        if files.is_empty() {
            return Err(ApiError::bad(format!("{}: no results.jsonl here (not an eval directory)", shown.display())));
        }
        let mut set = ResultSet::new();
        for f in &files {
            set.load_file(f).map_err(|e| ApiError::bad(e.to_string()))?;
        }
        let mut cells: BTreeMap<(String, String, String, u8), Vec<Value>> = BTreeMap::new();
        for (i, r) in set.records().iter().enumerate() {
            let transcript = r.transcript.as_ref().map(|t| shown.join(t).display().to_string());
            let traj_rel = proagent_eval::sweep::scheduler::trajectory_path(Path::new(""), &r.config_hash);
            // The key comes from the file: the path it makes is looked at only through the
            // allow-list (a key of `../..` must not tell which files exist elsewhere).
            let listed = st3.access.file(&canon.join(&traj_rel).display().to_string()).is_ok();
            let trajectory = listed.then(|| shown.join(&traj_rel).display().to_string());
            cells.entry((r.layout.clone(), r.agent.clone(), r.partner.clone(), r.seat)).or_default().push(json!({
                "seed": r.seed, "score": r.score, "deliveries": r.deliveries, "steps": r.steps,
                "transcript": transcript, "trajectory": trajectory, "key": r.config_hash,
                "checked": set.is_checked(i),
            }));
        }
        // Records without a checksum are listed (marked) but averaged only when asked for.
        let include = q.include_unchecked;
        let (_, unchecked) = set.for_means(include, |_| true);
        let cells: Vec<Value> = cells
            .into_iter()
            .map(|((layout, agent, partner, seat), mut eps)| {
                eps.sort_by_key(|e| e["seed"].as_u64());
                let counted: Vec<f64> = eps
                    .iter()
                    .filter(|e| include || e["checked"] == true)
                    .filter_map(|e| e["score"].as_f64())
                    .collect();
                let mean = (!counted.is_empty()).then(|| counted.iter().sum::<f64>() / counted.len() as f64);
                let without = eps.iter().filter(|e| e["checked"] != true).count();
                json!({"layout": layout, "agent": agent, "partner": partner, "seat": seat, "mean_score": mean,
                       "mean_of": counted.len(), "unchecked": without, "episodes": eps})
            })
            .collect();
        Ok(json!({"path": shown.display().to_string(), "records": set.len(), "unchecked": unchecked, "cells": cells}))
    })
    .await?;
    Ok(axum::Json(out))
}

/// The catalog's games as the Play tab offers them: each with its built-in layouts or
/// scenarios, and each layout with its players, default partner, horizon and the seats it
/// can build. Built-in layouts and shipped models only, so the same for the whole run:
/// built once (building every learned partner of every layout takes a moment).
struct Offered {
    games: Vec<Value>,
    layouts: Vec<String>,
    layout_games: serde_json::Map<String, Value>,
}

static OFFERED: std::sync::OnceLock<Offered> = std::sync::OnceLock::new();

fn offered_games(access: &Access) -> Offered {
    // Every game of the catalog with its built-in layouts or scenarios, each loaded to ask
    // it its players, default partner and seats (the page never reads spec text).
    let mut layouts = Vec::new();
    let mut layout_games = serde_json::Map::new();
    let mut games = Vec::new();
    for entry in proagent_eval::games::catalog::entries() {
        let mut specs = Vec::new();
        // The game's seats: those of any of its layouts, in the order the game names them.
        let mut union: Vec<String> = Vec::new();
        for spec in (entry.builtin_specs)() {
            let Ok((game, _)) = AnyGame::load_in(&spec, &GameOptions::default(), access) else { continue };
            let (players, default_partner, playable, horizon) = proagent_eval::on_game!(&game, |g| {
                use proagent_core::Game;
                use proagent_eval::games::Playable;
                // Only the seats this layout can build: a learned partner without a
                // shipped model for it is not offered (the language agents are built
                // with a served model when a game starts).
                let playable: Vec<String> = page_seats(g.known_specs())
                    .into_iter()
                    .filter(|s| is_language_agent(s) || g.partner(s).is_ok())
                    .collect();
                (g.num_players(), g.default_partner(), playable, g.max_steps())
            });
            layout_games.insert(spec.clone(), Value::from(entry.kind));
            for p in &playable {
                if !union.contains(p) {
                    union.push(p.clone());
                }
            }
            specs.push(json!({"spec": spec, "players": players, "default_partner": default_partner,
                              "horizon": horizon, "partners": playable}));
            layouts.push(spec);
        }
        if !specs.is_empty() {
            games.push(json!({"kind": entry.kind, "title": entry.title, "partners": union, "layouts": specs}));
        }
    }
    Offered { games, layouts, layout_games }
}

async fn play_options(State(st): Shared) -> ApiResult<axum::Json<Value>> {
    let st2 = Arc::clone(&st);
    let offered: &'static Offered = blocking(move || Ok(OFFERED.get_or_init(|| offered_games(&st2.access)))).await?;
    let Offered { games, layouts, layout_games } = offered;
    let partners_by_game: serde_json::Map<String, Value> =
        games.iter().map(|g| (g["kind"].as_str().unwrap_or_default().to_string(), g["partners"].clone())).collect();
    let default_partner: serde_json::Map<String, Value> = games
        .iter()
        .filter_map(|g| Some((g["kind"].as_str()?.to_string(), g["layouts"].get(0)?["default_partner"].clone())))
        .collect();
    let models: Vec<&str> = st.play.models.iter().map(|m| m.name.as_str()).collect();
    Ok(axum::Json(json!({
        "games": games,
        "layouts": layouts,
        "layout_games": layout_games,
        "partners": proagent_eval::games::overcooked::KNOWN_SPECS,
        "partners_by_game": partners_by_game,
        "default_partner": default_partner,
        "v2_settings": proagent_overcooked_v2::env::Settings::default(),
        "models": models,
        "step_ms": st.play.limits.default_step_ms,
        "step_ms_range": super::play::STEP_MS_RANGE,
        "horizon": proagent_overcooked::env::DEFAULT_HORIZON,
        "max_horizon": super::play::MAX_HORIZON,
        "llm": ["wait", "proceed"],
    })))
}

/// The seats of a game's known specs the page offers by name: the plain ones (no
/// `NAME`/`PATH` placeholders, no options), with the language agents (`proagent`,
/// `llmco`) also offered once per served model is the page's business (it has the list).
fn page_seats(known: &[&str]) -> Vec<String> {
    known.iter().filter(|s| !s.contains('[') && !s.contains("PATH")).map(|s| s.to_string()).collect()
}

/// The language agents (`proagent`, `llmco`), offered once per served model.
fn is_language_agent(spec: &str) -> bool {
    spec == "proagent" || spec == "llmco"
}

/// The game a request's `layout` names: a built-in layout (`cramped_room`, `v2:two_rooms`)
/// or a layout file the server may read (`PATH`, `v2:PATH`), with the file's text.
/// Blocking (it may read the file).
fn requested_game(st: &AppState, req: &GameRequest) -> ApiResult<(AnyGame, Option<String>)> {
    let options = GameOptions { horizon: req.horizon, settings: req.settings.clone().unwrap_or_default() };
    let bad = |e: String| ApiError::bad(format!("layout: {e}"));
    let spec = match st.access.layout(&req.layout) {
        Ok(None) => req.layout.clone(),
        Ok(Some(canonical)) => canonical,
        Err(AccessError::NotServed(_)) => {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                format!("layout: not a built-in layout, nor a layout file this server may open ({:?})", req.layout),
            ));
        }
        Err(e) => return Err(bad(e.to_string())),
    };
    AnyGame::load_in(&spec, &options, &st.access).map_err(|e| bad(e.to_string()))
}

async fn play_start(State(st): Shared, body: Body) -> ApiResult<axum::Json<Value>> {
    let body = read_body(body, MAX_JSON_BODY, st.limits.conn.body_timeout).await?;
    let mut req: GameRequest =
        serde_json::from_slice(&body).map_err(|e| ApiError::bad(format!("the game request is not valid: {e}")))?;
    let st2 = Arc::clone(&st);
    // Loading a layout file and building a seat (a BC or RL model from disk) block.
    let session = blocking(move || {
        let (game, text) = requested_game(&st2, &req)?;
        if let Some(partner) = &req.partner {
            let known = proagent_eval::on_game!(&game, |g| proagent_eval::games::Playable::known_specs(&**g));
            let models: Vec<&str> = st2.play.models.iter().map(|m| m.name.as_str()).collect();
            req.partner = Some(st2.access.seat_spec(partner, known, &models).map_err(|e| match e {
                AccessError::NotServed(_) => ApiError::new(StatusCode::FORBIDDEN, format!("partner: {e}")),
                other => ApiError::from(other),
            })?);
        }
        if let Some(list) = req.partners.take() {
            let known = proagent_eval::on_game!(&game, |g| proagent_eval::games::Playable::known_specs(&**g));
            let models: Vec<&str> = st2.play.models.iter().map(|m| m.name.as_str()).collect();
            let mut checked = Vec::with_capacity(list.len());
            for partner in &list {
                checked.push(st2.access.seat_spec(partner, known, &models).map_err(|e| match e {
                    AccessError::NotServed(_) => ApiError::new(StatusCode::FORBIDDEN, format!("partners: {e}")),
                    other => ApiError::from(other),
                })?);
            }
            req.partners = Some(checked);
        }
        let handle = tokio::runtime::Handle::current();
        let _guard = handle.enter();
        Ok(st2.sessions.start(&st2.play, req, game, text)?)
    })
    .await?;
    Ok(axum::Json(json!(session.status())))
}

async fn play_status(State(st): Shared, UrlPath(id): UrlPath<String>) -> ApiResult<axum::Json<Value>> {
    Ok(axum::Json(json!(st.sessions.get(&id)?.status())))
}

#[derive(Deserialize)]
struct KeyBody {
    action: String,
}

async fn play_key(State(st): Shared, UrlPath(id): UrlPath<String>, body: Body) -> ApiResult<axum::Json<Value>> {
    let session = st.sessions.get(&id)?;
    let body = read_body(body, MAX_JSON_BODY, st.limits.conn.body_timeout).await?;
    let k: KeyBody = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad(format!("expected {{\"action\": \"N\"|\"S\"|\"E\"|\"W\"|\"I\"|\"X\"}}: {e}")))?;
    session.key(&k.action)?;
    Ok(axum::Json(json!({"ok": true})))
}

async fn play_stop(State(st): Shared, UrlPath(id): UrlPath<String>) -> ApiResult<axum::Json<Value>> {
    st.sessions.get(&id)?.stop();
    Ok(axum::Json(json!({"ok": true})))
}
