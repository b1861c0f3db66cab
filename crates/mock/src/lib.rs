//! A mock OpenAI-compatible server: `POST /v1/chat/completions` and
//! `GET /v1/models` in the OpenAI wire format (async-openai's types), answered
//! by any [`LanguageModel`] (the CLI plugs in a built-in one). It can add
//! latency and inject seeded faults — the failures real endpoints produce — so
//! the HTTP backend and the agent's degradation can be tested over loopback.
//!
//! Its resources are bounded however long it runs and whatever clients do: a
//! connection that sends no request for [`MockConfig::idle_timeout`] is closed (so
//! is one whose request body stalls that long), request bodies are capped at
//! [`MAX_REQUEST_BYTES`], and `/v1/stats` keeps counters plus only the last
//! [`MockConfig::sequence_cap`] per-request entries.

#![warn(missing_docs)]

use async_openai::types::chat::{
    ChatChoice, ChatCompletionRequestAssistantMessageContent, ChatCompletionRequestAssistantMessageContentPart,
    ChatCompletionRequestDeveloperMessageContent, ChatCompletionRequestDeveloperMessageContentPart,
    ChatCompletionRequestMessage, ChatCompletionRequestSystemMessageContent,
    ChatCompletionRequestSystemMessageContentPart, ChatCompletionRequestUserMessageContent,
    ChatCompletionRequestUserMessageContentPart, ChatCompletionResponseMessage, CompletionUsage,
    CreateChatCompletionRequest, CreateChatCompletionResponse, FinishReason, ResponseFormat, Role as WireRole,
    StopConfiguration,
};
use async_openai::types::models::{ListModelResponse, Model};
use async_trait::async_trait;
use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use proagent_listen::ConnLimits;
use proagent_llm::structured::fill_schema;
use proagent_llm::{ChatRequest, ChatResponse, LanguageModel, Message, ResponseSchema, Sampling, estimate_tokens};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use std::net::SocketAddr;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The largest request body the mock reads (8 MiB); a larger one is refused with 413.
pub const MAX_REQUEST_BYTES: usize = 8 * 1024 * 1024;

/// How long a connection may stay silent by default (see [`MockConfig::idle_timeout`]).
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// How many per-request entries `/v1/stats` keeps by default (see [`MockConfig::sequence_cap`]).
pub const DEFAULT_SEQUENCE_CAP: usize = 1024;

/// A failure the mock can inject.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MockFault {
    /// 429 with a `Retry-After` header.
    RateLimited,
    /// 500 with an error body.
    ServerError,
    /// No answer for longer than a client's timeout (then a normal, late reply).
    Hang,
    /// 200 with a JSON body cut in half.
    Truncated,
    /// 200 with an empty `choices` list.
    EmptyChoices,
    /// 200 with prose that names no skill.
    Prose,
}

impl MockFault {
    /// Every fault, in declaration order (also the default `fault_kinds`).
    pub const ALL: [MockFault; 6] = [
        MockFault::RateLimited,
        MockFault::ServerError,
        MockFault::Hang,
        MockFault::Truncated,
        MockFault::EmptyChoices,
        MockFault::Prose,
    ];

    /// The fault's name on the command line and in [`MockStats`] (snake_case).
    pub fn name(self) -> &'static str {
        match self {
            MockFault::RateLimited => "rate_limited",
            MockFault::ServerError => "server_error",
            MockFault::Hang => "hang",
            MockFault::Truncated => "truncated",
            MockFault::EmptyChoices => "empty_choices",
            MockFault::Prose => "prose",
        }
    }

    /// The `Fault::kind` the HTTP backend records for this fault (`None`: the reply is
    /// well-formed HTTP, the agent's parser deals with it).
    pub fn client_kind(self) -> Option<&'static str> {
        match self {
            MockFault::RateLimited => Some("status_429"),
            MockFault::ServerError => Some("status_500"),
            MockFault::Hang => Some("timeout"),
            MockFault::Truncated => Some("bad_body"),
            MockFault::EmptyChoices => Some("empty_choices"),
            MockFault::Prose => None,
        }
    }
}

/// A `--faults` name that is not one of [`MockFault::ALL`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown fault {given:?} (known: {})", MockFault::ALL.map(|f| f.name()).join(", "))]
pub struct UnknownFault {
    /// The name as given.
    pub given: String,
}

impl FromStr for MockFault {
    type Err = UnknownFault;
    fn from_str(s: &str) -> Result<Self, UnknownFault> {
        MockFault::ALL.into_iter().find(|f| f.name() == s.trim()).ok_or_else(|| UnknownFault { given: s.to_string() })
    }
}

/// How the mock treats structured answers (OpenAI's `response_format` with a JSON schema).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StructuredMode {
    /// A request with a schema is answered in it (the responder's labelled reply turned
    /// into the schema's JSON); one without is answered in text.
    #[default]
    Auto,
    /// As `auto`, but a request without a schema is refused (400), like a deployment that
    /// only serves structured answers: shows that every request of a run carries one.
    Enforce,
    /// A request with a schema is refused (400 naming `response_format`), like a server
    /// without structured output: shows the client's fall-back to text.
    Refuse,
}

impl StructuredMode {
    /// Every mode, in declaration order.
    pub const ALL: [StructuredMode; 3] = [StructuredMode::Auto, StructuredMode::Enforce, StructuredMode::Refuse];

    /// The mode's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            StructuredMode::Auto => "auto",
            StructuredMode::Enforce => "enforce",
            StructuredMode::Refuse => "refuse",
        }
    }
}

impl FromStr for StructuredMode {
    type Err = UnknownMode;
    fn from_str(s: &str) -> Result<Self, UnknownMode> {
        StructuredMode::ALL.into_iter().find(|m| m.name() == s.trim()).ok_or_else(|| {
            UnknownMode(format!(
                "unknown structured mode {s:?} (known: {})",
                StructuredMode::ALL.map(|m| m.name()).join(", ")
            ))
        })
    }
}

/// A mode name the mock does not know; the message lists the known ones.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct UnknownMode(pub String);

/// A request body the mock cannot serve: it is answered with HTTP 400 and this text.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidRequest(pub String);

impl From<&str> for InvalidRequest {
    fn from(message: &str) -> Self {
        InvalidRequest(message.to_string())
    }
}

impl From<String> for InvalidRequest {
    fn from(message: String) -> Self {
        InvalidRequest(message)
    }
}

/// How the mock shows a model's reasoning in its replies.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MockReasoning {
    /// No reasoning text (reasoning tokens are still counted for reasoning models under
    /// [`MockConfig::reasoning_rules`]).
    #[default]
    None,
    /// In the message's `reasoning_content` field, as vLLM and DeepSeek send it.
    Field,
    /// In a `<think>…</think>` block before the answer, as Qwen3 and DeepSeek-R1 write it.
    Think,
}

impl FromStr for MockReasoning {
    type Err = UnknownMode;
    fn from_str(s: &str) -> Result<Self, UnknownMode> {
        match s.trim() {
            "none" => Ok(MockReasoning::None),
            "field" => Ok(MockReasoning::Field),
            "think" => Ok(MockReasoning::Think),
            other => Err(UnknownMode(format!("unknown reasoning mode {other:?} (known: none, field, think)"))),
        }
    }
}

/// The mock's reasoning text. It names answers of every agent's format on purpose
/// (a skill, a lettered option, an action), none of them what the reply then answers,
/// so a client that read reasoning as the answer would play differently.
pub const REASONING_TEXT: &str = "Let me think. A first idea: Plan for Player 0: \"place_obj_on_counter()\", \
Plan for Player 1: \"place_obj_on_counter()\", Answer: Z, Action: Z. No, I should read the scene again before answering.";

/// What prose replies say: no skill in it, on purpose.
pub const PROSE_REPLY: &str = "Honestly, I am not sure what we should do next. Let us keep cooperating \
and see how the kitchen develops; teamwork is what matters most.";

/// How the mock answers: latency, the fault mix and its seed, authentication, model id.
#[derive(Clone, Debug)]
pub struct MockConfig {
    /// Added to every answer (an async sleep: concurrent requests wait in parallel).
    pub latency: Duration,
    /// Share of requests that fail, drawn per request from a seeded RNG.
    pub fault_rate: f64,
    /// Seeds the fault draw, so the same requests in the same order meet the same faults.
    pub seed: u64,
    /// The faults the seeded draw picks from (uniformly).
    pub fault_kinds: Vec<MockFault>,
    /// Forced outcomes of the first requests, in arrival order (`None` = answer
    /// normally); the seeded draw takes over afterwards.
    pub fault_plan: Vec<Option<MockFault>>,
    /// The `Retry-After` value (seconds) of a 429.
    pub retry_after_secs: u64,
    /// How long a hang lasts.
    pub hang: Duration,
    /// When set, requests must carry `Authorization: Bearer <key>` (else 401).
    pub api_key: Option<String>,
    /// The model id listed by `GET /v1/models`.
    pub model_id: String,
    /// A connection that has not sent a complete request head for this long (an idle
    /// keep-alive connection, or a client that stalls) is closed; so is a request whose
    /// body does not arrive within it.
    pub idle_timeout: Duration,
    /// How many of the most recent per-request entries [`MockStats::sequence`] keeps.
    pub sequence_cap: usize,
    /// Enforce OpenAI's rules for reasoning models on the names the family table calls
    /// reasoning ([`proagent_llm::family::family_of`]): `max_tokens`, `top_p` and a
    /// `temperature` other than 1 are refused with OpenAI's 400 error object (`param`,
    /// `code` `unsupported_parameter` / `unsupported_value`), so is `reasoning_effort`
    /// for a chat model; reasoning models' replies count reasoning tokens in `usage`.
    pub reasoning_rules: bool,
    /// Parameters refused (400 `unsupported_parameter`) for every model, whatever the rules.
    pub reject_params: Vec<String>,
    /// Where replies carry reasoning text ([`REASONING_TEXT`]).
    pub reasoning: MockReasoning,
    /// How requests for structured answers are treated (default [`StructuredMode::Auto`]).
    pub structured: StructuredMode,
}

impl Default for MockConfig {
    fn default() -> Self {
        MockConfig {
            latency: Duration::ZERO,
            fault_rate: 0.0,
            seed: 0,
            fault_kinds: MockFault::ALL.to_vec(),
            fault_plan: Vec::new(),
            retry_after_secs: 1,
            hang: Duration::from_secs(600),
            api_key: None,
            model_id: "proagent-mock".into(),
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            sequence_cap: DEFAULT_SEQUENCE_CAP,
            reasoning_rules: false,
            reject_params: Vec::new(),
            reasoning: MockReasoning::None,
            structured: StructuredMode::Auto,
        }
    }
}

/// Counters of what the server did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MockStats {
    /// Chat completion requests received.
    pub requests: u64,
    /// Requests answered with a normal reply (prose counts as a fault, not here).
    pub ok: u64,
    /// Injected faults by name.
    pub faults: BTreeMap<String, u64>,
    /// Requests rejected as malformed or unauthorised, or for a parameter the model does not take.
    pub rejected: u64,
    /// Of the `rejected`, those refused for a parameter (reasoning rules, rejected parameters).
    #[serde(default)]
    pub param_refusals: u64,
    /// Requests the responder model failed on (answered with 500).
    pub responder_errors: u64,
    /// Replies given in a request's JSON schema.
    #[serde(default)]
    pub structured: u64,
    /// The injected fault of each of the most recent requests, in arrival order ("ok"
    /// for none); at most [`MockConfig::sequence_cap`] entries.
    pub sequence: VecDeque<String>,
    /// Older entries dropped from `sequence` to keep it bounded.
    pub sequence_dropped: u64,
}

struct Shared {
    responder: Arc<dyn LanguageModel>,
    cfg: MockConfig,
    rng: Mutex<(usize, ChaCha8Rng)>,
    stats: Mutex<MockStats>,
    ids: AtomicU64,
}

impl Shared {
    /// The fault for the next request: the plan first, then the seeded draw.
    fn draw(&self) -> Option<MockFault> {
        let mut guard = self.rng.lock().unwrap_or_else(|p| p.into_inner());
        let (planned, rng) = &mut *guard;
        if *planned < self.cfg.fault_plan.len() {
            *planned += 1;
            return self.cfg.fault_plan[*planned - 1];
        }
        if self.cfg.fault_rate <= 0.0 || self.cfg.fault_kinds.is_empty() {
            return None;
        }
        if rng.random::<f64>() < self.cfg.fault_rate {
            Some(self.cfg.fault_kinds[rng.random_range(0..self.cfg.fault_kinds.len())])
        } else {
            None
        }
    }

    fn stats(&self) -> std::sync::MutexGuard<'_, MockStats> {
        self.stats.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A running mock server.
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    task: JoinHandle<()>,
}

impl MockServer {
    /// Binds `addr` (port 0 picks a free port) and serves in the background on the current runtime.
    pub async fn start(addr: SocketAddr, responder: Arc<dyn LanguageModel>, cfg: MockConfig) -> std::io::Result<Self> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let shared = Arc::new(Shared {
            responder,
            cfg,
            rng: Mutex::new((0, rng)),
            stats: Mutex::new(MockStats::default()),
            ids: AtomicU64::new(0),
        });
        let app = router(shared.clone());
        let (tx, rx) = oneshot::channel::<()>();
        let idle = shared.cfg.idle_timeout;
        let task = tokio::spawn(serve(listener, app, idle, rx));
        Ok(MockServer { addr, shared, shutdown: Some(tx), task })
    }

    /// On 127.0.0.1 with a free port: what tests use.
    pub async fn start_local(responder: Arc<dyn LanguageModel>, cfg: MockConfig) -> std::io::Result<Self> {
        MockServer::start(SocketAddr::from(([127, 0, 0, 1], 0)), responder, cfg).await
    }

    /// The bound address (the real port when 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL for clients: `http://ADDR/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// A snapshot of the counters so far.
    pub fn stats(&self) -> MockStats {
        self.shared.stats().clone()
    }

    /// Stops accepting, lets in-flight requests finish for up to a second, then stops.
    pub async fn shutdown(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if tokio::time::timeout(Duration::from_secs(1), &mut self.task).await.is_err() {
            // Hanging requests would hold a graceful shutdown for as long as they hang.
            self.task.abort();
        }
    }

    /// Serves until `signal` completes, then shuts down.
    pub async fn run_until(self, signal: impl std::future::Future<Output = ()>) {
        signal.await;
        self.shutdown().await;
    }
}

/// Accepts connections until `stop` fires (or its sender is dropped), then lets open
/// connections finish their request (the caller aborts this task if they take too long;
/// dropping the task drops every connection). The loop is the one the viewer uses
/// ([`proagent_listen::run`]): a connection that sends no request head for `idle` is
/// closed, and so is one whose client leaves an answer unread that long; the number of
/// connections is not limited.
async fn serve(listener: tokio::net::TcpListener, app: Router, idle: Duration, stop: oneshot::Receiver<()>) {
    let limits =
        ConnLimits { max_connections: usize::MAX, header_timeout: idle, body_timeout: idle, write_timeout: idle };
    let stop = async move {
        let _ = stop.await;
    };
    if let Err(e) = proagent_listen::run(listener, app, limits, "mock server", stop).await {
        tracing::warn!("mock server: {e}");
    }
}

fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/v1/chat/completions", post(chat_completions))
        .route("/v1/models", get(list_models))
        .route("/v1/stats", get(stats))
        .with_state(shared)
        .layer(axum::middleware::map_response(mark_response))
}

/// Marks every answer as the mock server's ([`proagent_llm::MOCK_SERVER_HEADER`]), so a
/// client labels what it served as stand-in output without listing the models.
async fn mark_response(mut r: Response) -> Response {
    r.headers_mut()
        .insert(proagent_llm::MOCK_SERVER_HEADER, header::HeaderValue::from_static(proagent_llm::MOCK_SERVER_OWNER));
    r
}

async fn list_models(State(s): State<Arc<Shared>>) -> Response {
    let list = ListModelResponse {
        object: "list".into(),
        data: vec![Model {
            id: s.cfg.model_id.clone(),
            object: "model".into(),
            created: 0,
            // Marks the replies as the stand-ins' (reports label what this server served).
            owned_by: proagent_llm::MOCK_SERVER_OWNER.into(),
            shutdown_date: None,
        }],
    };
    json_response(StatusCode::OK, serde_json::to_string(&list).unwrap_or_default())
}

async fn stats(State(s): State<Arc<Shared>>) -> Response {
    let snapshot = s.stats().clone();
    json_response(StatusCode::OK, serde_json::to_string(&snapshot).unwrap_or_default())
}

fn json_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// OpenAI's 400 for a parameter a model does not take.
fn param_refusal(param: &str, code: &str, message: &str) -> Response {
    let body = serde_json::json!({"error": {"message": message, "type": "invalid_request_error",
        "param": param, "code": code}});
    json_response(StatusCode::BAD_REQUEST, body.to_string())
}

/// The refusal the rules give a request for model `model` with JSON body `body`, if any.
fn check_params(cfg: &MockConfig, model: &str, body: &serde_json::Value) -> Option<Response> {
    let has = |p: &str| body.get(p).is_some_and(|v| !v.is_null());
    for p in &cfg.reject_params {
        if has(p) {
            let msg = format!("Unsupported parameter: '{p}' is not supported with this model.");
            return Some(param_refusal(p, "unsupported_parameter", &msg));
        }
    }
    if !cfg.reasoning_rules {
        return None;
    }
    let reasoning = proagent_llm::family::family_of(model) == proagent_llm::family::Family::Reasoning;
    if !reasoning {
        if has("reasoning_effort") {
            let msg = "Unsupported parameter: 'reasoning_effort' is not supported with this model.";
            return Some(param_refusal("reasoning_effort", "unsupported_parameter", msg));
        }
        return None;
    }
    if has("max_tokens") {
        let msg = "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.";
        return Some(param_refusal("max_tokens", "unsupported_parameter", msg));
    }
    if let Some(t) = body.get("temperature").filter(|v| !v.is_null())
        && t.as_f64() != Some(1.0)
    {
        let msg = format!(
            "Unsupported value: 'temperature' does not support {t} with this model. Only the default (1) value is supported."
        );
        return Some(param_refusal("temperature", "unsupported_value", &msg));
    }
    if has("top_p") {
        return Some(param_refusal(
            "top_p",
            "unsupported_parameter",
            "Unsupported parameter: 'top_p' is not supported with this model.",
        ));
    }
    None
}

fn error_response(status: StatusCode, kind: &str, message: &str) -> Response {
    let body = serde_json::json!({"error": {"message": message, "type": kind, "param": null, "code": null}});
    json_response(status, body.to_string())
}

async fn chat_completions(State(s): State<Arc<Shared>>, headers: HeaderMap, body: Body) -> Response {
    if let Some(key) = &s.cfg.api_key {
        let sent = headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok());
        if sent != Some(format!("Bearer {key}").as_str()) {
            s.stats().rejected += 1;
            return error_response(StatusCode::UNAUTHORIZED, "invalid_request_error", "Incorrect API key provided.");
        }
    }
    // The body must arrive within the idle timeout and stay under the size limit.
    let body = match tokio::time::timeout(s.cfg.idle_timeout, axum::body::to_bytes(body, MAX_REQUEST_BYTES)).await {
        Ok(Ok(b)) => b,
        Ok(Err(e)) => {
            s.stats().rejected += 1;
            return error_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                "invalid_request_error",
                &format!("cannot read the request body (at most {MAX_REQUEST_BYTES} bytes): {e}"),
            );
        }
        Err(_) => {
            s.stats().rejected += 1;
            return error_response(
                StatusCode::REQUEST_TIMEOUT,
                "invalid_request_error",
                "the request body did not arrive in time",
            );
        }
    };
    let wire: CreateChatCompletionRequest = match serde_json::from_slice(&body) {
        Ok(w) => w,
        Err(e) => {
            s.stats().rejected += 1;
            return error_response(
                StatusCode::BAD_REQUEST,
                "invalid_request_error",
                &format!("invalid JSON body: {e}"),
            );
        }
    };
    let request = match to_chat_request(&wire) {
        Ok(r) => r,
        Err(e) => {
            s.stats().rejected += 1;
            return error_response(StatusCode::BAD_REQUEST, "invalid_request_error", &e.0);
        }
    };
    let raw: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    if let Some(refusal) = check_params(&s.cfg, &wire.model, &raw) {
        let mut st = s.stats();
        st.rejected += 1;
        st.param_refusals += 1;
        return refusal;
    }
    let schema_problem = match (s.cfg.structured, &request.response_format) {
        (StructuredMode::Enforce, None) => {
            Some("this server answers only in a JSON schema: send response_format of type json_schema")
        }
        (StructuredMode::Refuse, Some(_)) => {
            Some("Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model (mock).")
        }
        _ => None,
    };
    if let Some(message) = schema_problem {
        s.stats().rejected += 1;
        return error_response(StatusCode::BAD_REQUEST, "invalid_request_error", message);
    }
    let fault = s.draw();
    let n = s.ids.fetch_add(1, Ordering::Relaxed);
    {
        let mut st = s.stats();
        st.requests += 1;
        match fault {
            Some(f) => *st.faults.entry(f.name().to_string()).or_insert(0) += 1,
            None => st.ok += 1,
        }
        st.sequence.push_back(fault.map(MockFault::name).unwrap_or("ok").to_string());
        while st.sequence.len() > s.cfg.sequence_cap {
            st.sequence.pop_front();
            st.sequence_dropped += 1;
        }
    }
    tracing::info!(request = n, fault = fault.map(MockFault::name).unwrap_or("none"), "mock chat completion");
    if fault == Some(MockFault::Hang) {
        tokio::time::sleep(s.cfg.hang).await;
    } else if !s.cfg.latency.is_zero() {
        tokio::time::sleep(s.cfg.latency).await;
    }
    match fault {
        Some(MockFault::RateLimited) => {
            let body = serde_json::json!({"error": {"message": "Rate limit reached (mock).", "type": "rate_limit_error",
                "param": null, "code": "rate_limit_exceeded"}});
            return (
                StatusCode::TOO_MANY_REQUESTS,
                [
                    (header::CONTENT_TYPE, "application/json".to_string()),
                    (header::RETRY_AFTER, s.cfg.retry_after_secs.to_string()),
                ],
                body.to_string(),
            )
                .into_response();
        }
        Some(MockFault::ServerError) => {
            return error_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                "The server had an error (mock).",
            );
        }
        _ => {}
    }
    let reply = match s.responder.chat(&request).await {
        Ok(r) => r,
        Err(e) => {
            s.stats().responder_errors += 1;
            return error_response(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                &format!("responder failed: {e}"),
            );
        }
    };
    let answer = if fault == Some(MockFault::Prose) { PROSE_REPLY.to_string() } else { reply.text.clone() };
    // A structured request is answered in its schema: the responder's labelled reply as
    // the schema's JSON (a prose fault stays prose, which a strict client cannot read).
    let answer = match (&request.response_format, fault) {
        (Some(schema), f) if f != Some(MockFault::Prose) => match fill_schema(&answer, schema) {
            Some(json) => {
                s.stats().structured += 1;
                json
            }
            None => {
                s.stats().responder_errors += 1;
                return error_response(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "server_error",
                    &format!("the responder's reply does not fit the schema {:?}", schema.name),
                );
            }
        },
        _ => answer,
    };
    let text = match s.cfg.reasoning {
        MockReasoning::Think => format!("<think>\n{REASONING_TEXT}\n</think>\n\n{answer}"),
        _ => answer,
    };
    let mut response = completion(n, &wire.model, &text, &reply, &request);
    if fault == Some(MockFault::EmptyChoices) {
        response.choices.clear();
    }
    // Reasoning models (under the rules) and reasoning text count reasoning tokens, as
    // OpenAI reports them: part of the completion tokens.
    let reasons = s.cfg.reasoning != MockReasoning::None
        || (s.cfg.reasoning_rules
            && proagent_llm::family::family_of(&wire.model) == proagent_llm::family::Family::Reasoning);
    let mut value = serde_json::to_value(&response).unwrap_or_default();
    if reasons {
        let thought = estimate_tokens(REASONING_TEXT);
        if let Some(u) = value.get_mut("usage").and_then(|u| u.as_object_mut()) {
            let completion = u.get("completion_tokens").and_then(|c| c.as_u64()).unwrap_or(0);
            let prompt = u.get("prompt_tokens").and_then(|c| c.as_u64()).unwrap_or(0);
            // A think block is in the text already, so counted; other reasoning is added.
            let completion = if s.cfg.reasoning == MockReasoning::Think { completion } else { completion + thought };
            u.insert("completion_tokens".into(), completion.into());
            u.insert("total_tokens".into(), (prompt + completion).into());
            u.insert("completion_tokens_details".into(), serde_json::json!({"reasoning_tokens": thought}));
        }
    }
    if s.cfg.reasoning == MockReasoning::Field
        && let Some(m) = value.pointer_mut("/choices/0/message").and_then(|m| m.as_object_mut())
    {
        m.insert("reasoning_content".into(), REASONING_TEXT.into());
    }
    let body = value.to_string();
    let body = if fault == Some(MockFault::Truncated) { body[..body.len() / 2].to_string() } else { body };
    json_response(StatusCode::OK, body)
}

#[allow(deprecated)] // `system_fingerprint` is deprecated upstream; the struct literal must still name it.
fn completion(
    n: u64,
    model: &str,
    text: &str,
    reply: &ChatResponse,
    req: &ChatRequest,
) -> CreateChatCompletionResponse {
    let prompt_tokens = if reply.usage.prompt_tokens > 0 {
        reply.usage.prompt_tokens
    } else {
        req.messages.iter().map(|m| estimate_tokens(&m.content)).sum()
    };
    let completion_tokens = estimate_tokens(text);
    let finish_reason = match reply.finish_reason.as_deref() {
        Some("length") => FinishReason::Length,
        _ => FinishReason::Stop,
    };
    CreateChatCompletionResponse {
        id: format!("chatcmpl-mock-{n}"),
        object: "chat.completion".into(),
        // A fixed timestamp keeps the mock's replies a pure function of the requests.
        created: 0,
        model: model.to_string(),
        choices: vec![ChatChoice {
            index: 0,
            message: ChatCompletionResponseMessage {
                content: Some(text.to_string()),
                role: WireRole::Assistant,
                ..Default::default()
            },
            finish_reason: Some(finish_reason),
            logprobs: None,
        }],
        usage: Some(CompletionUsage {
            prompt_tokens: prompt_tokens.min(u64::from(u32::MAX)) as u32,
            completion_tokens: completion_tokens.min(u64::from(u32::MAX)) as u32,
            total_tokens: prompt_tokens.saturating_add(completion_tokens).min(u64::from(u32::MAX)) as u32,
            prompt_tokens_details: None,
            completion_tokens_details: None,
        }),
        service_tier: None,
        system_fingerprint: None,
        metadata: None,
        moderation: None,
    }
}

/// The OpenAI request as our [`ChatRequest`]. Developer messages count as system
/// messages; content-part arrays are joined; tools and function roles are refused.
#[allow(deprecated)] // reads `max_tokens`, which OpenAI deprecated but local servers still use
pub fn to_chat_request(wire: &CreateChatCompletionRequest) -> Result<ChatRequest, InvalidRequest> {
    if wire.messages.is_empty() {
        return Err("'messages' must not be empty".into());
    }
    let mut messages = Vec::with_capacity(wire.messages.len());
    for (i, m) in wire.messages.iter().enumerate() {
        let msg = match m {
            ChatCompletionRequestMessage::System(s) => Message::system(match &s.content {
                ChatCompletionRequestSystemMessageContent::Text(t) => t.clone(),
                ChatCompletionRequestSystemMessageContent::Array(parts) => parts
                    .iter()
                    .map(|p| match p {
                        ChatCompletionRequestSystemMessageContentPart::Text(t) => t.text.as_str(),
                    })
                    .collect::<String>(),
            }),
            ChatCompletionRequestMessage::Developer(d) => Message::system(match &d.content {
                ChatCompletionRequestDeveloperMessageContent::Text(t) => t.clone(),
                ChatCompletionRequestDeveloperMessageContent::Array(parts) => parts
                    .iter()
                    .map(|p| match p {
                        ChatCompletionRequestDeveloperMessageContentPart::Text(t) => t.text.as_str(),
                    })
                    .collect::<String>(),
            }),
            ChatCompletionRequestMessage::User(u) => Message::user(match &u.content {
                ChatCompletionRequestUserMessageContent::Text(t) => t.clone(),
                ChatCompletionRequestUserMessageContent::Array(parts) => {
                    let mut out = String::new();
                    for p in parts {
                        match p {
                            ChatCompletionRequestUserMessageContentPart::Text(t) => out.push_str(&t.text),
                            _ => return Err(format!("message {i}: only text content is supported by the mock").into()),
                        }
                    }
                    out
                }
            }),
            ChatCompletionRequestMessage::Assistant(a) => Message::assistant(match &a.content {
                Some(ChatCompletionRequestAssistantMessageContent::Text(t)) => t.clone(),
                Some(ChatCompletionRequestAssistantMessageContent::Array(parts)) => parts
                    .iter()
                    .filter_map(|p| match p {
                        ChatCompletionRequestAssistantMessageContentPart::Text(t) => Some(t.text.as_str()),
                        _ => None,
                    })
                    .collect::<String>(),
                None => String::new(),
            }),
            _ => return Err(format!("message {i}: tool and function messages are not supported by the mock").into()),
        };
        messages.push(msg);
    }
    let defaults = Sampling::default();
    let stop = match &wire.stop {
        Some(StopConfiguration::String(s)) => vec![s.clone()],
        Some(StopConfiguration::StringArray(v)) => v.clone(),
        None => Vec::new(),
    };
    let response_format = match &wire.response_format {
        Some(ResponseFormat::JsonSchema { json_schema }) => {
            Some(ResponseSchema { name: json_schema.name.clone(), schema: json_schema.schema.clone() })
        }
        Some(ResponseFormat::JsonObject) => {
            return Err("response_format json_object is not supported by the mock; \
             send a json_schema"
                .into());
        }
        Some(ResponseFormat::Text) | None => None,
    };
    let mut request = ChatRequest::new(
        messages,
        Sampling {
            temperature: wire.temperature.unwrap_or(defaults.temperature),
            top_p: wire.top_p.unwrap_or(defaults.top_p),
            max_tokens: wire.max_completion_tokens.or(wire.max_tokens).unwrap_or(defaults.max_tokens),
            stop,
            structured: response_format.is_some(),
            // The mock's view of a request is as it always was (its replies hash it).
            no_cap: false,
        },
    );
    request.response_format = response_format;
    Ok(request)
}

/// The built-in responder of `proagent mock-server`: a deterministic stand-in that
/// answers in the planner's reply format (analysis, partner intention, a skill for
/// the player the prompt asks about), choosing the skills from the request's hash.
pub struct EchoPlanner;

const SKILLS: &[&str] = &[
    "pickup(onion)",
    "put_onion_in_pot()",
    "pickup(dish)",
    "fill_dish_with_soup()",
    "deliver_soup()",
    "place_obj_on_counter()",
];

#[async_trait]
impl LanguageModel for EchoPlanner {
    fn name(&self) -> String {
        "mock-planner".into()
    }

    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, proagent_llm::LlmError> {
        let last = request.messages.iter().rev().find(|m| m.role == proagent_llm::Role::User);
        let prompt = last.map(|m| m.content.as_str()).unwrap_or("");
        let me = prompt
            .find("Plan for Player ")
            .and_then(|i| prompt[i + "Plan for Player ".len()..].chars().next())
            .and_then(|c| c.to_digit(10))
            .unwrap_or(0);
        let hash = request.canonical_hash();
        let pick = |k: usize| {
            let b = u8::from_str_radix(&hash[2 * k..2 * k + 2], 16).unwrap_or(0) as usize;
            SKILLS[b % SKILLS.len()]
        };
        let text = format!(
            "Analysis: the mock server keeps the kitchen busy.\nIntention for Player {}: \"{}\".\nPlan for Player {me}: \"{}\"",
            1 - me.min(1),
            pick(0),
            pick(1)
        );
        let usage = proagent_llm::Usage::new(
            request.messages.iter().map(|m| estimate_tokens(&m.content)).sum(),
            estimate_tokens(&text),
        );
        Ok(ChatResponse::simple(text, usage))
    }
}
