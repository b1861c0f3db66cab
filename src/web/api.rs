//! The HTTP server: the page (HTML, JS, CSS embedded in the binary; nothing is fetched
//! from elsewhere) and the JSON API it uses. Files are served only from the roots given
//! on the command line (and the games directory); every error is a JSON object
//! `{"error": "..."}` with a 4xx status that says what was wrong.
//!
//! | method | path | what |
//! |---|---|---|
//! | GET | `/`, `/app.js`, `/app.css` | the page |
//! | GET | `/api/files` | the roots and the episode files and eval directories under them |
//! | GET | `/api/episode?path=P&index=I` | open episode I of file P: the step-by-step view |
//! | POST | `/api/upload?name=N&index=I` | the same for a file's text sent as the body |
//! | GET | `/api/board/{id}/{frame}?status=1&cell=48&view=P` | a frame of an opened episode, SVG (`view`: shade what player P does not see, for games with a view radius) |
//! | GET | `/api/eval?path=DIR` | an eval directory's episodes grouped by cell |
//! | GET | `/api/play/options` | layouts, seats, models and defaults for a new game |
//! | POST | `/api/play` | start a game (JSON [`GameRequest`]) |
//! | GET | `/api/play/{id}` | the game's state and board |
//! | POST | `/api/play/{id}/key` | `{"action": "N"\|"S"\|"E"\|"W"\|"I"\|"X"}` |
//! | POST | `/api/play/{id}/stop` | end the game now (what was played is saved) |

use super::play::{GameRequest, PlayConfig, PlayError, Sessions};
use super::view::EpisodeView;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path as UrlPath, Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use proagent_eval::games::{AnyGame, GameOptions, V2_PREFIX};
use proagent_eval::runner::files::{read_episode_file, read_episode_text, text_of_bytes};
use proagent_eval::sweep::store::{ResultSet, results_files_in};
use serde::Deserialize;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

const INDEX_HTML: &str = include_str!("assets/index.html");
const APP_JS: &str = include_str!("assets/app.js");
const APP_CSS: &str = include_str!("assets/app.css");

/// Episodes kept open at once (the oldest is dropped first).
const OPEN_EPISODES: usize = 16;
/// Largest upload accepted.
const MAX_UPLOAD: usize = 64 << 20;
/// Most files listed under one root.
const MAX_LISTED: usize = 2000;

/// What a server serves.
pub struct ServeConfig {
    /// Files and directories the viewer may open (anything under a directory).
    pub roots: Vec<PathBuf>,
    /// Human play.
    pub play: PlayConfig,
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
}

struct Root {
    /// As given (for display).
    shown: String,
    /// Canonical.
    path: PathBuf,
    is_dir: bool,
}

/// The server's state, shared by all requests.
pub struct AppState {
    roots: Vec<Root>,
    episodes: Mutex<Vec<Arc<EpisodeView>>>,
    next_id: AtomicU64,
    play: PlayConfig,
    /// The running and finished games.
    pub sessions: Sessions,
}

/// The router of `proagent serve` over these roots (the games directory is created and
/// added as a root).
pub fn router(cfg: ServeConfig) -> Result<Router, ServeError> {
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
    let state = Arc::new(AppState {
        roots,
        episodes: Mutex::new(Vec::new()),
        next_id: AtomicU64::new(1),
        play: cfg.play,
        sessions: Sessions::default(),
    });
    Ok(Router::new()
        .route("/", get(|| async { ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], INDEX_HTML) }))
        .route("/app.js", get(|| async { ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8")], APP_JS) }))
        .route("/app.css", get(|| async { ([(header::CONTENT_TYPE, "text/css; charset=utf-8")], APP_CSS) }))
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
        .layer(DefaultBodyLimit::max(MAX_UPLOAD))
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

type Shared = State<Arc<AppState>>;
type ApiResult<T> = Result<T, ApiError>;

impl AppState {
    /// The canonical path of `p` if it lies under a root; a clear error otherwise.
    fn allowed(&self, p: &str) -> ApiResult<PathBuf> {
        if p.is_empty() {
            return Err(ApiError::bad("path: missing"));
        }
        let canon =
            Path::new(p).canonicalize().map_err(|e| ApiError::new(StatusCode::NOT_FOUND, format!("{p}: {e}")))?;
        let ok = self.roots.iter().any(|r| if r.is_dir { canon.starts_with(&r.path) } else { canon == r.path });
        if !ok {
            return Err(ApiError::new(
                StatusCode::FORBIDDEN,
                format!(
                    "{p}: not under a file or directory this server was started with (give it to `proagent serve`)"
                ),
            ));
        }
        Ok(canon)
    }

    fn keep(&self, make: impl FnOnce(String) -> ApiResult<EpisodeView>) -> ApiResult<Arc<EpisodeView>> {
        let id = format!("e{}", self.next_id.fetch_add(1, Ordering::SeqCst));
        let view = Arc::new(make(id)?);
        let mut eps = self.episodes.lock().unwrap_or_else(|e| e.into_inner());
        if eps.len() >= OPEN_EPISODES {
            eps.remove(0);
        }
        eps.push(Arc::clone(&view));
        Ok(view)
    }

    fn opened(&self, id: &str) -> ApiResult<Arc<EpisodeView>> {
        let eps = self.episodes.lock().unwrap_or_else(|e| e.into_inner());
        eps.iter()
            .find(|e| e.id == id)
            .cloned()
            .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, format!("episode {id:?} is not open (open it again)")))
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

async fn files(State(st): Shared) -> axum::Json<Value> {
    let roots: Vec<Value> = st
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
        .collect();
    axum::Json(json!({"roots": roots, "games_dir": st.play.games_dir.display().to_string()}))
}

#[derive(Deserialize)]
struct EpisodeQuery {
    #[serde(default)]
    path: String,
    #[serde(default)]
    index: usize,
}

async fn episode(State(st): Shared, Query(q): Query<EpisodeQuery>) -> ApiResult<axum::Json<Value>> {
    let canon = st.allowed(&q.path)?;
    if canon.is_dir() {
        return Err(ApiError::bad(format!("{}: a directory (open an eval directory with /api/eval)", q.path)));
    }
    let shown = q.path.clone();
    let view = tokio::task::spawn_blocking(move || -> ApiResult<_> {
        let mut f = read_episode_file(&canon)
            .map_err(|e| ApiError::bad(e.to_string().replacen(&*canon.display().to_string(), &shown, 1)))?;
        f.source = shown;
        st.keep(|id| EpisodeView::new(id, f, q.index).map_err(ApiError::bad))
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))??;
    Ok(axum::Json(view.json()))
}

#[derive(Deserialize)]
struct UploadQuery {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    index: usize,
}

async fn upload(State(st): Shared, Query(q): Query<UploadQuery>, body: Bytes) -> ApiResult<axum::Json<Value>> {
    let name = q.name.unwrap_or_else(|| "upload".into());
    let view = tokio::task::spawn_blocking(move || -> ApiResult<_> {
        let text = text_of_bytes(&name, body.to_vec()).map_err(ApiError::bad)?;
        let f = read_episode_text(&name, &text).map_err(ApiError::bad)?;
        st.keep(|id| EpisodeView::new(id, f, q.index).map_err(ApiError::bad))
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))??;
    Ok(axum::Json(view.json()))
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
    let cell = q.cell.unwrap_or(super::board::DEFAULT_CELL);
    let (lo, hi) = super::board::CELL_RANGE;
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

async fn eval_dir(State(st): Shared, Query(q): Query<EpisodeQuery>) -> ApiResult<axum::Json<Value>> {
    let canon = st.allowed(&q.path)?;
    if !canon.is_dir() {
        return Err(ApiError::bad(format!("{}: not a directory (an eval directory holds results.jsonl)", q.path)));
    }
    let shown = PathBuf::from(&q.path);
    let out = tokio::task::spawn_blocking(move || -> ApiResult<Value> {
        let files = results_files_in(&canon).map_err(|e| ApiError::bad(format!("{}: {e}", shown.display())))?;
        if files.is_empty() {
            return Err(ApiError::bad(format!("{}: no results.jsonl here (not an eval directory)", shown.display())));
        }
        let mut set = ResultSet::new();
        for f in &files {
            set.load_file(f).map_err(|e| ApiError::bad(e.to_string()))?;
        }
        let mut cells: BTreeMap<(String, String, String, u8), Vec<Value>> = BTreeMap::new();
        for r in set.records() {
            let transcript = r.transcript.as_ref().map(|t| shown.join(t).display().to_string());
            let traj_rel = proagent_eval::sweep::scheduler::trajectory_path(Path::new(""), &r.config_hash);
            let trajectory =
                canon.join(&traj_rel).is_file().then(|| shown.join(&traj_rel).display().to_string());
            cells.entry((r.layout.clone(), r.agent.clone(), r.partner.clone(), r.seat)).or_default().push(json!({
                "seed": r.seed, "score": r.score, "deliveries": r.deliveries, "steps": r.steps,
                "transcript": transcript, "trajectory": trajectory, "key": r.config_hash,
            }));
        }
        let cells: Vec<Value> = cells
            .into_iter()
            .map(|((layout, agent, partner, seat), mut eps)| {
                eps.sort_by_key(|e| e["seed"].as_u64());
                let mean = eps.iter().filter_map(|e| e["score"].as_f64()).sum::<f64>() / eps.len().max(1) as f64;
                json!({"layout": layout, "agent": agent, "partner": partner, "seat": seat, "mean_score": mean, "episodes": eps})
            })
            .collect();
        Ok(json!({"path": shown.display().to_string(), "records": set.len(), "cells": cells}))
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))??;
    Ok(axum::Json(out))
}

async fn play_options(State(st): Shared) -> axum::Json<Value> {
    let mut layouts: Vec<String> =
        proagent_overcooked::env::layout::BUILTIN.iter().map(|(n, _)| n.to_string()).collect();
    layouts.extend(proagent_overcooked_v2::env::Layout::builtin_names().map(|n| format!("{V2_PREFIX}{n}")));
    let models: Vec<&str> = st.play.models.iter().map(|m| m.name.as_str()).collect();
    axum::Json(json!({
        "layouts": layouts,
        "partners": proagent_eval::games::overcooked::KNOWN_SPECS,
        "partners_by_game": {
            "overcooked": proagent_eval::games::overcooked::KNOWN_SPECS,
            "overcooked_v2": proagent_eval::games::overcooked_v2::KNOWN_SPECS,
        },
        "default_partner": {"overcooked": "greedy", "overcooked_v2": "scripted"},
        "v2_settings": proagent_overcooked_v2::env::Settings::default(),
        "models": models,
        "step_ms": st.play.limits.default_step_ms,
        "step_ms_range": super::play::STEP_MS_RANGE,
        "horizon": proagent_overcooked::env::DEFAULT_HORIZON,
        "max_horizon": super::play::MAX_HORIZON,
        "llm": ["wait", "proceed"],
    }))
}

/// The game a request's `layout` names: a built-in layout (`cramped_room`, `v2:two_rooms`)
/// or a layout file under the server's roots (`PATH`, `v2:PATH`), with the file's text.
fn requested_game(st: &AppState, req: &GameRequest) -> ApiResult<(AnyGame, Option<String>)> {
    let options = GameOptions { horizon: req.horizon, v2: req.v2.clone().unwrap_or_default() };
    let bad = |e: String| ApiError::bad(format!("layout: {e}"));
    let v2 = proagent_overcooked_v2::env::layout::strip_v2_prefix(&req.layout);
    let builtin = match v2 {
        Some(name) => proagent_overcooked_v2::env::Layout::builtin(name).is_some(),
        None => proagent_overcooked::env::Layout::builtin(&req.layout).is_some(),
    };
    if builtin {
        return AnyGame::load(&req.layout, &options).map_err(|e| bad(e.to_string()));
    }
    let path = v2.unwrap_or(&req.layout);
    let canon = st.allowed(path).map_err(|e| {
        ApiError::bad(format!("layout: not a built-in layout, nor a file this server may read ({})", e.message))
    })?;
    let spec = match v2 {
        Some(_) => format!("{V2_PREFIX}{}", canon.display()),
        None => canon.display().to_string(),
    };
    AnyGame::load(&spec, &options).map_err(|e| bad(e.to_string()))
}

async fn play_start(State(st): Shared, body: Bytes) -> ApiResult<axum::Json<Value>> {
    let req: GameRequest =
        serde_json::from_slice(&body).map_err(|e| ApiError::bad(format!("the game request is not valid: {e}")))?;
    let (game, text) = requested_game(&st, &req)?;
    let st2 = Arc::clone(&st);
    // Building a seat may load a BC model from disk.
    let session = tokio::task::spawn_blocking(move || {
        let handle = tokio::runtime::Handle::current();
        let _guard = handle.enter();
        st2.sessions.start(&st2.play, req, game, text)
    })
    .await
    .map_err(|e| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()))??;
    Ok(axum::Json(json!(session.status())))
}

async fn play_status(State(st): Shared, UrlPath(id): UrlPath<String>) -> ApiResult<axum::Json<Value>> {
    Ok(axum::Json(json!(st.sessions.get(&id)?.status())))
}

#[derive(Deserialize)]
struct KeyBody {
    action: String,
}

async fn play_key(State(st): Shared, UrlPath(id): UrlPath<String>, body: Bytes) -> ApiResult<axum::Json<Value>> {
    let session = st.sessions.get(&id)?;
    let k: KeyBody = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad(format!("expected {{\"action\": \"N\"|\"S\"|\"E\"|\"W\"|\"I\"|\"X\"}}: {e}")))?;
    session.key(&k.action)?;
    Ok(axum::Json(json!({"ok": true})))
}

async fn play_stop(State(st): Shared, UrlPath(id): UrlPath<String>) -> ApiResult<axum::Json<Value>> {
    st.sessions.get(&id)?.stop();
    Ok(axum::Json(json!({"ok": true})))
}
