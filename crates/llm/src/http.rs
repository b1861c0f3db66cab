//! The OpenAI-compatible chat backend: OpenAI itself, or a local vLLM, Ollama,
//! llama.cpp or LM Studio server — any model name at any base URL.
//!
//! The wire format is async-openai's (`CreateChatCompletionRequest` /
//! `CreateChatCompletionResponse`), but the HTTP exchange is done here with
//! reqwest rather than through `async_openai::Client`, for two reasons read
//! from async-openai 0.43's source: its client wraps every request in a
//! built-in retry layer (up to 3 silent retries) whose attempts we could not
//! see or record, and on a non-2xx reply it drops the response headers, so a
//! `Retry-After` value never reaches the caller. Both contradict the rule that
//! every attempt and every fault is recorded and that the server's
//! `Retry-After` is honoured. (reqwest's own default retries are switched off for the
//! same reason.)

use super::family::{Effort, ParamRules, TokenParam};
use super::scrub::{Scrubber, redact_url};
use super::{
    ChatRequest, ChatResponse, Fault, LanguageModel, LlmError, Role, STRUCTURED_FALLBACK, Usage, estimate_tokens,
    split_reasoning,
};
use async_openai::types::chat::ReasoningEffort;
use async_openai::types::chat::{
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestMessage, ChatCompletionRequestSystemMessage,
    ChatCompletionRequestUserMessage, CreateChatCompletionRequest, CreateChatCompletionResponse, ResponseFormat,
    ResponseFormatJsonSchema, StopConfiguration,
};
use async_trait::async_trait;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue, RETRY_AFTER};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

/// OpenAI's own endpoint, used when neither `--base-url` nor `OPENAI_BASE_URL` is given.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// The base URL of a served model: `given`, else `$OPENAI_BASE_URL` when it is set and not
/// blank, else [`DEFAULT_BASE_URL`]. The only place that default is applied.
pub fn default_base_url(given: Option<&str>) -> String {
    match given {
        Some(url) => url.to_string(),
        None => std::env::var("OPENAI_BASE_URL")
            .ok()
            .filter(|s| !s.trim().is_empty())
            .unwrap_or_else(|| DEFAULT_BASE_URL.to_string()),
    }
}

/// Finish reasons of the OpenAI chat API. Anything else is a reply we do not understand.
pub const KNOWN_FINISH_REASONS: &[&str] = &["stop", "length", "tool_calls", "content_filter", "function_call"];

/// How much of a reply body goes into a fault's one-line detail (the whole body is kept in `BadReply.raw`).
const EXCERPT_CHARS: usize = 200;

/// The largest reply body read (8 MiB; [`HttpConfig::max_reply_bytes`] defaults to it).
/// A chat reply of `max_tokens` tokens is a few kilobytes; a server that sends more is
/// broken or hostile, and reading on would only fill memory. The body is read chunk by
/// chunk and the attempt fails as soon as it passes the limit (a `Content-Length`
/// above it fails before anything is read).
pub const MAX_REPLY_BYTES: usize = 8 * 1024 * 1024;

/// How much of an oversized body is kept in the error, for diagnosis.
const OVERSIZED_KEEP_BYTES: usize = 4096;

/// The longest wait a `Retry-After` (or `retry-after-ms`) header is read as: larger
/// values, however absurd (`1e300`, a date in the year 9999), count as one day, and
/// [`HttpConfig::retry_after_max`] then caps the actual wait.
pub const RETRY_AFTER_CEILING: Duration = Duration::from_secs(86_400);

/// The longest backoff a configuration may ask for (one hour), for the first backoff
/// and for the cap alike.
pub const MAX_BACKOFF: Duration = Duration::from_secs(3600);

/// An API key. It has no `Display` and no `Serialize`, and its `Debug` is redacted,
/// so it cannot end up in a transcript, a log line or a config dump by accident.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// `None` for an empty or blank key (local servers usually need none).
    pub fn new(key: impl Into<String>) -> Option<Self> {
        let key = key.into();
        if key.trim().is_empty() { None } else { Some(ApiKey(key.trim().to_string())) }
    }

    /// The key itself, for the Authorization header and for secret scrubbing only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// Everything the HTTP backend needs. `Debug` is safe to print: the key is redacted,
/// and so are the credentials of the base URL.
#[derive(Clone)]
pub struct HttpConfig {
    /// Base URL up to and including the version segment, e.g. `http://127.0.0.1:8000/v1`.
    pub base_url: String,
    /// Sent as `Authorization: Bearer <key>` when set; `None` sends no header.
    pub api_key: Option<ApiKey>,
    /// Time allowed to open the TCP (and TLS) connection.
    pub connect_timeout: Duration,
    /// Time allowed for one whole attempt: connect, send, wait, read the body.
    pub request_timeout: Duration,
    /// Retries after the first attempt (so at most `max_retries + 1` attempts).
    pub max_retries: u32,
    /// The first backoff; it doubles per retry up to `backoff_max`, then jitter scales it into [50 %, 100 %].
    pub backoff_base: Duration,
    /// Upper bound of the doubling backoff (before jitter).
    pub backoff_max: Duration,
    /// A server's `Retry-After` is honoured up to this long (a misconfigured server could ask for hours).
    pub retry_after_max: Duration,
    /// Seeds the jitter, so the same run waits the same delays.
    pub seed: u64,
    /// The largest reply body accepted (default [`MAX_REPLY_BYTES`]).
    pub max_reply_bytes: usize,
    /// Which request parameters the model is sent beyond its sampling (the family table,
    /// forced families and token-cap names, the reasoning effort, what the user set).
    pub params: ParamRules,
}

impl std::fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpConfig")
            .field("base_url", &redact_url(&self.base_url))
            .field("api_key", &self.api_key)
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("max_retries", &self.max_retries)
            .field("backoff_base", &self.backoff_base)
            .field("backoff_max", &self.backoff_max)
            .field("retry_after_max", &self.retry_after_max)
            .field("seed", &self.seed)
            .field("params", &self.params)
            .finish()
    }
}

impl HttpConfig {
    /// Everything secret in this configuration (the key, the base URL's credentials),
    /// for scrubbing what servers send back and what gets recorded.
    pub fn secrets(&self) -> Scrubber {
        let mut s = Scrubber::new();
        if let Some(k) = &self.api_key {
            s.add_credential(k.expose());
        }
        s.add_url_credentials(&self.base_url);
        s
    }

    /// Defaults: OpenAI's endpoint, no key, 10 s to connect, 120 s per attempt (local
    /// models on a CPU are slow), 4 retries, backoff 0.5 s doubling up to 30 s,
    /// `Retry-After` honoured up to 60 s.
    pub fn new() -> Self {
        HttpConfig {
            base_url: DEFAULT_BASE_URL.to_string(),
            api_key: None,
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(120),
            max_retries: 4,
            backoff_base: Duration::from_millis(500),
            backoff_max: Duration::from_secs(30),
            retry_after_max: Duration::from_secs(60),
            seed: 0,
            max_reply_bytes: MAX_REPLY_BYTES,
            params: ParamRules::default(),
        }
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        HttpConfig::new()
    }
}

/// A chat model behind an OpenAI-compatible `POST {base_url}/chat/completions`.
pub struct OpenAiModel {
    /// The model name sent to the server (any name: `gpt-4o`, `llama3.1:8b`, ...).
    model: String,
    cfg: HttpConfig,
    client: reqwest::Client,
    /// The endpoint requests go to (with any credentials of the base URL).
    endpoint: String,
    /// The endpoint without credentials, for logs and messages.
    url: String,
    /// The key and the URL's credentials, scrubbed from every reply body and error text.
    secrets: Scrubber,
    headers: HeaderMap,
    /// The server refused a structured answer once: later requests of the run ask for text.
    text_only: AtomicBool,
    /// What the run learnt from the server's refusals: parameters left out and a swapped
    /// token-cap name, kept for every later request.
    learnt: std::sync::Mutex<Learnt>,
}

/// Parameters the server refused (400 `unsupported_parameter` / `unsupported_value`)
/// and how the run works around them from then on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Learnt {
    /// Parameters left out of every request.
    omit: std::collections::BTreeSet<String>,
    /// The token-cap parameter used instead of the rules' one, once the server refused that.
    token_param: Option<TokenParam>,
}

/// The parameters a refusal may name and the run may leave out or rename.
const ADJUSTABLE: &[&str] = &["temperature", "top_p", "max_tokens", "max_completion_tokens", "stop"];

/// The parameter a 400 body says the server does not support: OpenAI's error object
/// with `code` (or `type`) `unsupported_parameter` or `unsupported_value` and the
/// parameter in `param`. `None` for any other body.
pub fn unsupported_param(body: &str) -> Option<String> {
    let v: serde_json::Value = serde_json::from_str(body).ok()?;
    let err = v.get("error")?;
    let is = |k: &str| {
        err.get(k).and_then(|c| c.as_str()).is_some_and(|c| c == "unsupported_parameter" || c == "unsupported_value")
    };
    if !(is("code") || is("type")) {
        return None;
    }
    let param = err.get("param")?.as_str()?.trim();
    (!param.is_empty()).then(|| param.to_string())
}

/// How one attempt ended when it did not produce a reply.
#[derive(Debug)]
struct AttemptFailure {
    kind: String,
    detail: String,
    retryable: bool,
    retry_after: Option<Duration>,
    /// The body, when the server sent one we could not use.
    raw: Option<String>,
    /// The status of a non-retryable HTTP error: the server refused the configuration.
    refused: Option<u16>,
    /// Why a refused parameter was not worked around (added to the refusal's message).
    refusal_note: Option<String>,
}

impl AttemptFailure {
    fn retry(kind: impl Into<String>, detail: impl Into<String>) -> Self {
        AttemptFailure {
            kind: kind.into(),
            detail: detail.into(),
            retryable: true,
            retry_after: None,
            raw: None,
            refused: None,
            refusal_note: None,
        }
    }
    fn no_retry(kind: impl Into<String>, detail: impl Into<String>, raw: String) -> Self {
        AttemptFailure {
            kind: kind.into(),
            detail: detail.into(),
            retryable: false,
            retry_after: None,
            raw: Some(raw),
            refused: None,
            refusal_note: None,
        }
    }
    fn with_raw(mut self, raw: String) -> Self {
        self.raw = Some(raw);
        self
    }
}

impl OpenAiModel {
    /// Builds the HTTP client for model `model` (the name sent to the server). Fails
    /// (before any request) on a malformed base URL or key.
    pub fn new(model: impl Into<String>, cfg: HttpConfig) -> Result<Self, LlmError> {
        let model = model.into();
        let base = cfg.base_url.trim();
        // Messages show the URL without its credentials.
        let shown = redact_url(base);
        let parsed = reqwest::Url::parse(base)
            .map_err(|e| LlmError::Config(format!("base URL {shown:?} is not a valid URL: {e}")))?;
        if parsed.scheme() != "http" && parsed.scheme() != "https" {
            return Err(LlmError::Config(format!("base URL {shown:?} must start with http:// or https://")));
        }
        if cfg.backoff_base > cfg.backoff_max {
            return Err(LlmError::Config(format!(
                "the first backoff ({} ms) is longer than the longest backoff ({} ms)",
                cfg.backoff_base.as_millis(),
                cfg.backoff_max.as_millis()
            )));
        }
        if cfg.backoff_max > MAX_BACKOFF {
            return Err(LlmError::Config(format!(
                "the longest backoff ({} ms) is above the limit of {} ms",
                cfg.backoff_max.as_millis(),
                MAX_BACKOFF.as_millis()
            )));
        }
        if cfg.max_reply_bytes == 0 {
            return Err(LlmError::Config("the reply size limit must be at least one byte".into()));
        }
        // The endpoint path goes before a query (`...?api-version=...` on Azure-style servers).
        let (path, query) = base.split_at(base.find(['?', '#']).unwrap_or(base.len()));
        let url = format!("{}/chat/completions{query}", path.trim_end_matches('/'));
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if let Some(key) = &cfg.api_key {
            let mut value = HeaderValue::from_str(&format!("Bearer {}", key.expose())).map_err(|_| {
                LlmError::Config("the API key contains characters not allowed in an HTTP header".into())
            })?;
            // Sensitive values are printed as "Sensitive" by the http crate's Debug.
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
        install_tls_provider();
        let client = reqwest::Client::builder()
            .connect_timeout(cfg.connect_timeout)
            .timeout(cfg.request_timeout)
            // reqwest 0.13 silently retries HTTP/2 protocol NACKs by default; every
            // attempt must be ours, so it can be recorded.
            .retry(reqwest::retry::never())
            .build()
            .map_err(|e| LlmError::Config(format!("cannot build the HTTP client: {e}")))?;
        cfg.params.check(&model).map_err(|e| LlmError::Config(e.0))?;
        let secrets = cfg.secrets();
        Ok(OpenAiModel {
            model,
            cfg,
            client,
            url: redact_url(&url),
            endpoint: url,
            secrets,
            headers,
            learnt: Default::default(),
            text_only: AtomicBool::new(false),
        })
    }

    /// The configuration the model was built with (the key stays redacted in `Debug`).
    pub fn config(&self) -> &HttpConfig {
        &self.cfg
    }

    /// The endpoint requests go to, without the credentials of the base URL.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// What the server says this model is: its entry in `GET {base_url}/models` (the
    /// entry whose `id` is the model name, or the only entry of a one-model server),
    /// reduced to the fields that do not change between calls (`id`, `owned_by`, and
    /// vLLM's `root` and `parent`; not `created`, which some servers set to the time of
    /// the request). Eval keys include it, so results are not reused across servers that
    /// serve different weights under one name, as far as the server tells.
    pub async fn server_identity(&self) -> Result<serde_json::Value, LlmError> {
        // The path goes before any query, as for the chat endpoint; only the redacted form
        // is ever shown.
        let base = self.cfg.base_url.as_str();
        let (path, query) = base.split_at(base.find(['?', '#']).unwrap_or(base.len()));
        let url = format!("{}/models{query}", path.trim_end_matches('/'));
        let shown = redact_url(&url);
        let fail = |what: String| LlmError::Config(format!("identifying the model server ({shown}): {what}"));
        let mut headers = self.headers.clone();
        headers.remove(CONTENT_TYPE);
        let resp = self
            .client
            .get(&url)
            .headers(headers)
            .send()
            .await
            .map_err(|e| fail(self.redact(error_chain(&e.without_url()))))?;
        let status = resp.status();
        let text = resp.text().await.map_err(|e| fail(self.redact(error_chain(&e.without_url()))))?;
        if !status.is_success() {
            return Err(fail(format!("HTTP {status}: {}", excerpt(&self.redact(text)))));
        }
        let v: serde_json::Value =
            serde_json::from_str(&text).map_err(|e| fail(format!("not JSON ({e}): {}", excerpt(&text))))?;
        let list = v.get("data").and_then(|d| d.as_array()).ok_or_else(|| fail("no `data` list".into()))?;
        let id = |e: &serde_json::Value| e.get("id").and_then(|i| i.as_str()).map(str::to_string);
        let entry = match list.iter().find(|e| id(e).as_deref() == Some(self.model.as_str())) {
            Some(e) => e,
            None if list.len() == 1 => &list[0],
            None => {
                let ids: Vec<String> = list.iter().filter_map(id).collect();
                return Err(fail(format!("it does not list model {:?} (it lists: {})", self.model, ids.join(", "))));
            }
        };
        let mut out = serde_json::Map::new();
        for key in ["id", "owned_by", "root", "parent"] {
            if let Some(x) = entry.get(key).filter(|x| !x.is_null()) {
                out.insert(key.to_string(), x.clone());
            }
        }
        Ok(serde_json::Value::Object(out))
    }

    /// Our request in the OpenAI wire format (async-openai's type), with the parameters
    /// the model's family takes ([`crate::family`]) and without those the server refused
    /// earlier in the run.
    pub fn wire_request(&self, req: &ChatRequest) -> CreateChatCompletionRequest {
        let learnt = self.learnt();
        self.wire_request_with(req, &learnt)
    }

    fn learnt(&self) -> Learnt {
        self.learnt.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// [`OpenAiModel::wire_request`] under what the run has learnt so far.
    #[allow(deprecated)] // `max_tokens` is deprecated by OpenAI but it is what vLLM, Ollama and llama.cpp read.
    fn wire_request_with(&self, req: &ChatRequest, learnt: &Learnt) -> CreateChatCompletionRequest {
        let rules = &self.cfg.params;
        let send = |p: &str| !learnt.omit.contains(p);
        let sampling = |p: &str| rules.sends_sampling(&self.model, p) && send(p);
        let cap = learnt.token_param.unwrap_or_else(|| rules.token_param(&self.model));
        let effort = rules.effort.map(|e| match e {
            Effort::Low => ReasoningEffort::Low,
            Effort::Medium => ReasoningEffort::Medium,
            Effort::High => ReasoningEffort::High,
        });
        let messages = req
            .messages
            .iter()
            .map(|m| match m.role {
                Role::System => ChatCompletionRequestSystemMessage::from(m.content.as_str()).into(),
                Role::User => ChatCompletionRequestUserMessage::from(m.content.as_str()).into(),
                Role::Assistant => ChatCompletionRequestAssistantMessage::from(m.content.as_str()).into(),
            })
            .collect::<Vec<ChatCompletionRequestMessage>>();
        CreateChatCompletionRequest {
            model: self.model.clone(),
            messages,
            temperature: sampling("temperature").then_some(req.sampling.temperature),
            top_p: sampling("top_p").then_some(req.sampling.top_p),
            // No cap at all when the request asks for none (`Sampling::no_cap`).
            max_tokens: (cap == TokenParam::MaxTokens && send("max_tokens") && !req.sampling.no_cap)
                .then_some(req.sampling.max_tokens),
            max_completion_tokens: (cap == TokenParam::MaxCompletionTokens
                && send("max_completion_tokens")
                && !req.sampling.no_cap)
                .then_some(req.sampling.max_tokens),
            reasoning_effort: effort,
            stop: (!req.sampling.stop.is_empty() && send("stop"))
                .then(|| StopConfiguration::StringArray(req.sampling.stop.clone())),
            response_format: req.response_format.as_ref().map(|f| ResponseFormat::JsonSchema {
                json_schema: ResponseFormatJsonSchema {
                    description: None,
                    name: f.name.clone(),
                    schema: f.schema.clone(),
                    strict: Some(true),
                },
            }),
            ..Default::default()
        }
    }

    /// Works around a server's refusal of parameter `param` in a request built under
    /// `sent`: leaves it out (or, for the token cap, sends the other name) from now on and
    /// says what changed. Refused (the server's answer stands) when the user set the
    /// parameter explicitly, when the request already worked around it (the server
    /// refused twice), or when it is not a parameter the run may change.
    fn work_around(&self, param: &str, sent: &Learnt) -> Result<String, crate::family::ParamRuleError> {
        let rules = &self.cfg.params;
        if !ADJUSTABLE.contains(&param) {
            return Err(crate::family::ParamRuleError(format!(
                "`{param}` is not a parameter the client may leave out"
            )));
        }
        let mut learnt = self.learnt.lock().unwrap_or_else(|p| p.into_inner());
        let cap = sent.token_param.unwrap_or_else(|| rules.token_param(&self.model));
        if param == "max_tokens" || param == "max_completion_tokens" {
            if param != cap.name() {
                return Err(crate::family::ParamRuleError(format!("`{param}` was not sent")));
            }
            if sent.token_param.is_some() {
                return Err(crate::family::ParamRuleError(format!(
                    "the server refused both token-cap parameters (`{}` and `{param}`)",
                    cap.other().name()
                )));
            }
            if rules.token_param.is_some() {
                return Err(crate::family::ParamRuleError(format!(
                    "`{param}` was set explicitly (--token-param, token_param=), so it is not changed"
                )));
            }
            if learnt.token_param.is_none() {
                learnt.token_param = Some(cap.other());
            }
            return Ok(format!("sending `{}` instead of `{param}` for the rest of the run", cap.other().name()));
        }
        if rules.is_explicit(param) {
            return Err(crate::family::ParamRuleError(format!("`{param}` was set explicitly, so it is not left out")));
        }
        if sent.omit.contains(param) {
            return Err(crate::family::ParamRuleError(format!("`{param}` was refused again after it was left out")));
        }
        learnt.omit.insert(param.to_string());
        Ok(format!("leaving `{param}` out for the rest of the run"))
    }

    /// The wait before attempt `attempt + 1`: exponential backoff with seeded jitter,
    /// and never shorter than the server's `Retry-After` (capped).
    pub fn backoff_delay(&self, request_hash: &str, attempt: u32, retry_after: Option<Duration>) -> Duration {
        let exp = attempt.saturating_sub(1).min(30);
        let raw = self.cfg.backoff_base.saturating_mul(1u32 << exp).min(self.cfg.backoff_max);
        // The jitter depends on the request and the attempt only, so concurrent requests
        // do not race for one RNG and a re-run waits exactly the same.
        let mut seed_bytes = [0u8; 8];
        for (i, b) in request_hash.bytes().take(8).enumerate() {
            seed_bytes[i] = b;
        }
        let mut rng =
            ChaCha8Rng::seed_from_u64(self.cfg.seed ^ u64::from_le_bytes(seed_bytes) ^ (u64::from(attempt) << 48));
        let jittered = raw.mul_f64(rng.random_range(0.5..=1.0));
        match retry_after {
            Some(ra) => jittered.max(ra.min(self.cfg.retry_after_max)),
            None => jittered,
        }
    }

    /// Replaces the key and the URL's credentials wherever a server (or an error) might
    /// have echoed them, before text is stored or logged.
    fn redact(&self, text: String) -> String {
        match self.secrets.scrub(&text) {
            std::borrow::Cow::Borrowed(_) => text,
            std::borrow::Cow::Owned(clean) => clean,
        }
    }

    async fn attempt(&self, body: &[u8], req: &ChatRequest) -> Result<ChatResponse, AttemptFailure> {
        let sent = self.client.post(&self.endpoint).headers(self.headers.clone()).body(body.to_vec()).send().await;
        let resp = match sent {
            Ok(r) => r,
            Err(e) => return Err(self.transport_failure(e)),
        };
        let status = resp.status();
        let retry_after = retry_after(resp.headers());
        if status.is_success() && resp.headers().contains_key(MOCK_SERVER_HEADER) {
            note_mock_server_answer();
        }
        let bytes = self.read_body(resp).await?;
        let text = self.redact(String::from_utf8_lossy(&bytes).into_owned());
        if !status.is_success() {
            // 408, 409, 429 and 5xx are the server's trouble and may pass; any other
            // status (400, 401, 403, 404, 413, 422, ...) says the request or the
            // configuration is wrong, and asking again gets the same answer.
            let retryable = matches!(status.as_u16(), 408 | 409 | 429) || status.is_server_error();
            let mut detail = format!("HTTP {status}");
            if let Some(ra) = retry_after {
                detail.push_str(&format!(" (Retry-After {} ms)", ra.as_millis()));
            }
            if !text.trim().is_empty() {
                detail.push_str(&format!(": {}", excerpt(&text)));
            }
            return Err(AttemptFailure {
                kind: format!("status_{}", status.as_u16()),
                detail,
                retryable,
                retry_after,
                raw: Some(text),
                refused: (!retryable).then_some(status.as_u16()),
                refusal_note: None,
            });
        }
        interpret_reply(&text, req)
    }

    /// Reads a reply body chunk by chunk, at most `max_reply_bytes` of it.
    async fn read_body(&self, mut resp: reqwest::Response) -> Result<Vec<u8>, AttemptFailure> {
        let limit = self.cfg.max_reply_bytes;
        let too_large = |what: String, kept: &[u8]| {
            let keep = &kept[..kept.len().min(OVERSIZED_KEEP_BYTES)];
            AttemptFailure::no_retry(
                "body_too_large",
                format!("{what}, more than the {limit}-byte limit on a reply"),
                self.redact(String::from_utf8_lossy(keep).into_owned()),
            )
        };
        if let Some(len) = resp.content_length()
            && len > limit as u64
        {
            return Err(too_large(format!("the server announced a {len}-byte reply"), &[]));
        }
        let mut buf: Vec<u8> = Vec::with_capacity(resp.content_length().map_or(16 * 1024, |n| n as usize).min(1 << 20));
        loop {
            match resp.chunk().await {
                Ok(Some(chunk)) => {
                    if buf.len().saturating_add(chunk.len()) > limit {
                        let read = buf.len() + chunk.len();
                        buf.extend_from_slice(&chunk[..chunk.len().min(OVERSIZED_KEEP_BYTES)]);
                        return Err(too_large(format!("the reply went on past {read} bytes"), &buf));
                    }
                    buf.extend_from_slice(&chunk);
                }
                Ok(None) => return Ok(buf),
                Err(e) => return Err(self.transport_failure(e)),
            }
        }
    }

    fn transport_failure(&self, e: reqwest::Error) -> AttemptFailure {
        if e.is_timeout() {
            return AttemptFailure::retry(
                "timeout",
                format!("no complete reply within {} ms", self.cfg.request_timeout.as_millis()),
            );
        }
        let kind = if e.is_connect() {
            "connect"
        } else if e.is_body() || e.is_decode() {
            "bad_body"
        } else {
            "transport"
        };
        AttemptFailure::retry(kind, self.redact(error_chain(&e.without_url())))
    }
}

/// Checks a 2xx body and turns it into a reply. Truncated or non-JSON bodies and empty
/// `choices` are retryable (a flaky proxy or server); a well-formed reply we cannot use
/// (no text, an unknown finish reason, a schema mismatch) is not: asking again at
/// temperature 0 would most likely get the same.
fn interpret_reply(text: &str, req: &ChatRequest) -> Result<ChatResponse, AttemptFailure> {
    let value: serde_json::Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            return Err(AttemptFailure::retry("bad_body", format!("reply is not valid JSON ({e}): {}", excerpt(text)))
                .with_raw(text.to_string()));
        }
    };
    let choices = value.get("choices").and_then(|c| c.as_array());
    if choices.is_none_or(|c| c.is_empty()) {
        return Err(AttemptFailure::retry("empty_choices", format!("reply has no choices: {}", excerpt(text)))
            .with_raw(text.to_string()));
    }
    if let Some(reason) = choices.and_then(|c| c[0].get("finish_reason")).and_then(|r| r.as_str()) {
        if !KNOWN_FINISH_REASONS.contains(&reason) {
            return Err(AttemptFailure::no_retry(
                "unknown_finish_reason",
                format!("unknown finish reason {reason:?}"),
                text.to_string(),
            ));
        }
    }
    let reply = match serde_json::from_value::<CreateChatCompletionResponse>(value.clone()) {
        Ok(parsed) => ReplyParts::from_typed(&parsed),
        // Local servers add, omit or rename fields the OpenAI schema types strictly (a
        // missing `id`, a new `service_tier`, ...); the few fields we need are read
        // directly then, and only a reply without a message object is refused.
        Err(e) => ReplyParts::from_value(&value).ok_or_else(|| {
            AttemptFailure::no_retry(
                "schema",
                format!("reply does not match the chat completion schema: {e}"),
                text.to_string(),
            )
        })?,
    };
    let content = reply.content.unwrap_or_default();
    // The reasoning is kept apart: a `reasoning_content` (vLLM, DeepSeek) or `reasoning`
    // field of the message, and `<think>` blocks in the content, which no parser sees.
    let message = value.pointer("/choices/0/message");
    let field = ["reasoning_content", "reasoning"]
        .iter()
        .find_map(|k| message.and_then(|m| m.get(*k)).and_then(|r| r.as_str()))
        .map(str::trim)
        .filter(|r| !r.is_empty());
    let (answer, think) = split_reasoning(&content);
    let reasoning = match (field, think) {
        (Some(f), Some(t)) => Some(format!("{f}\n\n{t}")),
        (Some(f), None) => Some(f.to_string()),
        (None, t) => t,
    };
    if answer.trim().is_empty() {
        let why = match &reply.refusal {
            Some(r) => format!("the model refused: {}", excerpt(r)),
            None if reply.tool_call => "the reply is a tool call, not text".to_string(),
            None if reasoning.is_some() => format!(
                "the reply has reasoning but no answer (finish reason {}; a larger --max-tokens leaves room for both)",
                reply.finish_reason.as_deref().unwrap_or("none")
            ),
            None => "the reply has no content".to_string(),
        };
        return Err(AttemptFailure::no_retry("no_content", why, text.to_string()));
    }
    let mut usage = reply.usage.unwrap_or_else(|| {
        // Servers that report no usage get the same estimate as the built-in models
        // (reasoning they send is output too).
        Usage::new(
            req.messages.iter().map(|m| estimate_tokens(&m.content)).sum(),
            estimate_tokens(&content)
                + if field.is_some() { reasoning.as_deref().map_or(0, estimate_tokens) } else { 0 },
        )
    });
    // The details OpenAI (and servers copying it) report: reasoning tokens billed as
    // output, prompt tokens read from the prompt cache.
    usage.reasoning_tokens =
        value.pointer("/usage/completion_tokens_details/reasoning_tokens").and_then(|n| n.as_u64()).unwrap_or(0);
    usage.cached_tokens = cached_prompt_tokens(&value).min(usage.prompt_tokens);
    Ok(ChatResponse {
        text: answer,
        usage,
        attempts: 1,
        faults: Vec::new(),
        finish_reason: reply.finish_reason,
        reasoning,
        text_fallback: false,
    })
}

/// The prompt tokens a reply says its server read from the prompt-prefix cache: OpenAI's
/// (and vLLM's) `usage.prompt_tokens_details.cached_tokens`, or DeepSeek's
/// `usage.prompt_cache_hit_tokens`; 0 when the reply reports neither.
fn cached_prompt_tokens(reply: &serde_json::Value) -> u64 {
    let usage = reply.get("usage");
    let openai = usage.and_then(|u| u.get("prompt_tokens_details")).and_then(|d| d.get("cached_tokens"));
    let deepseek = usage.and_then(|u| u.get("prompt_cache_hit_tokens"));
    openai.or(deepseek).and_then(serde_json::Value::as_u64).unwrap_or(0)
}

/// What we use of a reply's first choice.
struct ReplyParts {
    content: Option<String>,
    refusal: Option<String>,
    tool_call: bool,
    finish_reason: Option<String>,
    usage: Option<Usage>,
}

impl ReplyParts {
    fn from_typed(parsed: &CreateChatCompletionResponse) -> Self {
        let choice = parsed.choices.first();
        ReplyParts {
            content: choice.and_then(|c| c.message.content.clone()),
            refusal: choice.and_then(|c| c.message.refusal.clone()),
            tool_call: choice.is_some_and(|c| c.message.tool_calls.as_ref().is_some_and(|t| !t.is_empty())),
            finish_reason: choice
                .and_then(|c| c.finish_reason)
                .and_then(|r| serde_json::to_value(r).ok().and_then(|v| v.as_str().map(str::to_string))),
            usage: parsed
                .usage
                .as_ref()
                .map(|u| Usage::new(u64::from(u.prompt_tokens), u64::from(u.completion_tokens))),
        }
    }

    fn from_value(v: &serde_json::Value) -> Option<Self> {
        let choice = v.get("choices")?.get(0)?;
        let message = choice.get("message").filter(|m| m.is_object())?;
        let text = |x: Option<&serde_json::Value>| x.and_then(|s| s.as_str()).map(str::to_string);
        let usage = v
            .get("usage")
            .and_then(|u| Some(Usage::new(u.get("prompt_tokens")?.as_u64()?, u.get("completion_tokens")?.as_u64()?)));
        Some(ReplyParts {
            content: text(message.get("content")),
            refusal: text(message.get("refusal")),
            tool_call: message.get("tool_calls").and_then(|t| t.as_array()).is_some_and(|t| !t.is_empty()),
            finish_reason: text(choice.get("finish_reason")),
            usage,
        })
    }
}

#[async_trait]
impl LanguageModel for OpenAiModel {
    fn name(&self) -> String {
        self.model.clone()
    }

    /// Sends `request`; a request with a schema the server refuses (see
    /// [`crate::structured::is_schema_refusal`]) is sent once more without it, the refusal
    /// recorded as a [`STRUCTURED_FALLBACK`] fault, and every later request of this model
    /// asks for text (its reply marked [`ChatResponse::text_fallback`]).
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        if request.response_format.is_none() {
            return self.send(request).await;
        }
        let plain = ChatRequest { response_format: None, ..request.clone() };
        if self.text_only.load(Ordering::Relaxed) {
            let mut reply = self.send(&plain).await?;
            reply.text_fallback = true;
            return Ok(reply);
        }
        match self.send(request).await {
            Err(LlmError::Refused { status, message, mut faults, .. })
                if crate::structured::is_schema_refusal(status, &message) =>
            {
                self.text_only.store(true, Ordering::Relaxed);
                tracing::warn!(model = %self.model, "the server refused the answer schema; asking for text from now on");
                let attempt = faults.last().map_or(1, |f| f.attempt);
                faults.push(Fault {
                    attempt,
                    kind: STRUCTURED_FALLBACK.into(),
                    detail: format!("HTTP {status}: {}; asking for text for the rest of the run", excerpt(&message)),
                });
                match self.send(&plain).await {
                    Ok(mut reply) => {
                        reply.faults.splice(0..0, faults);
                        reply.attempts = reply.attempts.saturating_add(attempt);
                        reply.text_fallback = true;
                        Ok(reply)
                    }
                    Err(e) => Err(with_earlier_faults(e, faults)),
                }
            }
            other => other,
        }
    }
}

/// `e` with `earlier` faults before its own.
fn with_earlier_faults(mut e: LlmError, earlier: Vec<Fault>) -> LlmError {
    match &mut e {
        LlmError::Unreachable { faults } | LlmError::BadReply { faults, .. } | LlmError::Refused { faults, .. } => {
            faults.splice(0..0, earlier);
        }
        _ => {}
    }
    e
}

impl OpenAiModel {
    /// Sends one request as it is, with retries.
    async fn send(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let serialise = |learnt: &Learnt| {
            serde_json::to_vec(&self.wire_request_with(request, learnt))
                .map_err(|e| LlmError::Config(format!("cannot serialise the chat request: {e}")))
        };
        let mut sent = self.learnt();
        let mut body = serialise(&sent)?;
        let hash = request.canonical_hash();
        let mut faults: Vec<Fault> = Vec::new();
        let mut attempt = 1u32;
        loop {
            tracing::debug!(model = %self.model, attempt, url = %self.url, "chat request");
            match self.attempt(&body, request).await {
                Ok(mut reply) => {
                    reply.attempts = attempt;
                    reply.faults = faults;
                    return Ok(reply);
                }
                Err(mut f) => {
                    // A parameter the server does not take is left out (or renamed) and the
                    // request sent again at once, unless the user set it or this request
                    // already tried that; then the refusal stands, with the reason.
                    if f.refused == Some(400)
                        && let Some(param) = f.raw.as_deref().and_then(unsupported_param)
                    {
                        match self.work_around(&param, &sent) {
                            Ok(change) => {
                                let message = server_error_text(f.raw.as_deref().unwrap_or(""));
                                let detail =
                                    format!("HTTP 400: the server does not take `{param}` ({message}); {change}");
                                tracing::warn!(model = %self.model, attempt, "{detail}");
                                faults.push(Fault { attempt, kind: "unsupported_parameter".into(), detail });
                                sent = self.learnt();
                                body = serialise(&sent)?;
                                attempt += 1;
                                continue;
                            }
                            Err(why) => f.refusal_note = Some(why.0),
                        }
                    }
                    let last = !f.retryable || attempt > self.cfg.max_retries;
                    let mut detail = f.detail;
                    let delay = (!last).then(|| self.backoff_delay(&hash, attempt, f.retry_after));
                    if let Some(d) = delay {
                        detail.push_str(&format!("; retrying in {} ms", d.as_millis()));
                    }
                    tracing::warn!(model = %self.model, attempt, kind = %f.kind, "{detail}");
                    let http_status = f.kind.starts_with("status_");
                    faults.push(Fault { attempt, kind: f.kind, detail: detail.clone() });
                    match delay {
                        Some(d) => {
                            tokio::time::sleep(d).await;
                            attempt += 1;
                        }
                        None => {
                            return Err(match (f.refused, f.raw) {
                                (Some(status), raw) => LlmError::Refused {
                                    status,
                                    url: self.url.clone(),
                                    message: match f.refusal_note {
                                        Some(note) => {
                                            format!("{} ({note})", server_error_text(raw.as_deref().unwrap_or("")))
                                        }
                                        None => server_error_text(raw.as_deref().unwrap_or("")),
                                    },
                                    faults,
                                },
                                // The server answered but not usably: that is a bad reply, not an outage.
                                (None, Some(raw)) if !http_status => LlmError::BadReply { reason: detail, raw, faults },
                                _ => LlmError::Unreachable { faults },
                            });
                        }
                    }
                }
            }
        }
    }
}

/// The server's requested wait: `retry-after-ms` (OpenAI), else `Retry-After` as
/// seconds or as an HTTP date. Header values are untrusted: anything unreadable,
/// negative or NaN is ignored, and anything longer than [`RETRY_AFTER_CEILING`]
/// (infinity included) counts as that long; this never panics.
pub fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let ms = headers.get("retry-after-ms").and_then(|v| v.to_str().ok()).and_then(|s| s.trim().parse::<f64>().ok());
    if let Some(d) = ms.and_then(|ms| seconds_to_wait(ms / 1000.0)) {
        return Some(d);
    }
    let value = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    parse_retry_after(value, SystemTime::now())
}

/// `Retry-After` as delta-seconds (fractions tolerated) or an HTTP date relative to `now`,
/// read as in [`retry_after`].
pub fn parse_retry_after(value: &str, now: SystemTime) -> Option<Duration> {
    if let Ok(secs) = value.parse::<f64>() {
        return seconds_to_wait(secs);
    }
    let when = httpdate::parse_http_date(value).ok()?;
    Some(when.duration_since(now).unwrap_or(Duration::ZERO).min(RETRY_AFTER_CEILING))
}

/// A wait in seconds from a header: `None` for NaN or a negative value, at most
/// [`RETRY_AFTER_CEILING`] otherwise.
fn seconds_to_wait(secs: f64) -> Option<Duration> {
    if secs.is_nan() || secs < 0.0 {
        return None;
    }
    // The cap comes first: `Duration::from_secs_f64` panics on values it cannot hold.
    let capped = secs.min(RETRY_AFTER_CEILING.as_secs_f64());
    Some(Duration::try_from_secs_f64(capped).unwrap_or(RETRY_AFTER_CEILING))
}

/// The error text of a refusal: OpenAI's `error.message`, else the `error`, `message` or
/// `detail` string other servers (Ollama, vLLM, llama.cpp) send, else the start of the body.
fn server_error_text(body: &str) -> String {
    let text = serde_json::from_str::<serde_json::Value>(body).ok().and_then(|v| {
        let s = |x: Option<&serde_json::Value>| x.and_then(|m| m.as_str()).map(str::to_string);
        s(v.pointer("/error/message"))
            .or_else(|| s(v.get("error")))
            .or_else(|| s(v.get("message")))
            .or_else(|| s(v.get("detail")).or_else(|| v.get("detail").filter(|d| !d.is_null()).map(|d| d.to_string())))
    });
    match text {
        Some(t) if !t.trim().is_empty() => excerpt(t.trim()),
        _ if body.trim().is_empty() => "(no error text)".to_string(),
        _ => excerpt(body.trim()),
    }
}

/// Makes rustls' ring provider the process's TLS crypto provider (a no-op when one is
/// installed already). reqwest is built without a provider of its own (ring builds far
/// faster than the default aws-lc), so call this before building any other
/// `reqwest::Client`; [`OpenAiModel::new`] does.
pub fn install_tls_provider() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

fn excerpt(text: &str) -> String {
    let one_line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let mut out: String = one_line.chars().take(EXCERPT_CHARS).collect();
    if one_line.chars().count() > EXCERPT_CHARS {
        out.push('…');
    }
    out
}

/// An error and its causes on one line ("error sending request: ...: Connection refused").
fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let s_text = s.to_string();
        if !out.contains(&s_text) {
            out.push_str(": ");
            out.push_str(&s_text);
        }
        source = s.source();
    }
    out
}

/// The response header the built-in mock server puts on every answer (its value is
/// [`MOCK_SERVER_OWNER`](crate::MOCK_SERVER_OWNER)), so a client that never lists the server's models (`play`) still
/// knows its replies came from the stand-ins ([`mock_server_answered`]). No real server
/// sends it.
pub const MOCK_SERVER_HEADER: &str = "x-proagent-mock-server";

static MOCK_ANSWERED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Records that a reply carrying [`MOCK_SERVER_HEADER`] arrived (the HTTP client calls it).
pub fn note_mock_server_answer() {
    MOCK_ANSWERED.store(true, std::sync::atomic::Ordering::Relaxed);
}

/// Whether any model reply this process received came from the built-in mock server:
/// rule-based stand-in replies, not a language model's. Never true for a real server.
pub fn mock_server_answered() -> bool {
    MOCK_ANSWERED.load(std::sync::atomic::Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::family::Effort;
    use crate::{Message, Sampling};

    fn req() -> ChatRequest {
        ChatRequest::new(vec![Message::system("sys"), Message::user("hi")], Sampling::default())
    }

    #[test]
    fn api_key_is_never_printed() {
        let mut cfg = HttpConfig::new();
        cfg.api_key = ApiKey::new("sk-canary-123");
        let dbg = format!("{cfg:?}");
        assert!(!dbg.contains("sk-canary-123"), "{dbg}");
        assert!(dbg.contains("redacted"));
        assert!(ApiKey::new("  ").is_none());
    }

    #[test]
    fn url_credentials_are_never_printed() {
        let mut cfg = HttpConfig::new();
        cfg.base_url = "http://user:canarypass@127.0.0.1:9/v1?api_key=querycanary&api-version=1".into();
        let dbg = format!("{cfg:?}");
        assert!(!dbg.contains("canarypass") && !dbg.contains("querycanary"), "{dbg}");
        let m = OpenAiModel::new("m", cfg.clone()).unwrap();
        assert_eq!(m.url(), "http://127.0.0.1:9/v1/chat/completions?api_key=REDACTED&api-version=1");
        assert_eq!(
            m.endpoint,
            "http://user:canarypass@127.0.0.1:9/v1/chat/completions?api_key=querycanary&api-version=1"
        );
        assert_eq!(m.redact("echo canarypass querycanary".into()), "echo [REDACTED] [REDACTED]");
        cfg.base_url = "ftp://user:canarypass@host/v1".into();
        let e = OpenAiModel::new("m", cfg.clone()).err().unwrap().to_string();
        assert!(e.contains("ftp://host/v1") && !e.contains("canarypass"), "{e}");
        cfg.base_url = "user:canarypass@host:80/v1".into();
        let e = OpenAiModel::new("m", cfg).err().unwrap().to_string();
        assert!(!e.contains("canarypass"), "{e}");
    }

    #[test]
    fn retry_after_forms() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        assert_eq!(parse_retry_after("3", now), Some(Duration::from_secs(3)));
        assert_eq!(parse_retry_after("0.25", now), Some(Duration::from_millis(250)));
        assert_eq!(parse_retry_after("-1", now), None);
        let date = httpdate::fmt_http_date(now + Duration::from_secs(7));
        assert_eq!(parse_retry_after(&date, now), Some(Duration::from_secs(7)));
        let past = httpdate::fmt_http_date(now - Duration::from_secs(7));
        assert_eq!(parse_retry_after(&past, now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("soon", now), None);
        // Untrusted values: never a panic, NaN and negatives ignored, the rest capped.
        for huge in ["1e300", "1e400", "inf", "Infinity", "184467440737095516160000"] {
            assert_eq!(parse_retry_after(huge, now), Some(RETRY_AFTER_CEILING), "{huge}");
        }
        for bad in ["NaN", "-1e300", "-inf", "-0.5"] {
            assert_eq!(parse_retry_after(bad, now), None, "{bad}");
        }
        assert_eq!(parse_retry_after("Fri, 31 Dec 9999 23:59:59 GMT", now), Some(RETRY_AFTER_CEILING));
        let mut h = HeaderMap::new();
        h.insert("retry-after-ms", HeaderValue::from_static("1e300"));
        assert_eq!(retry_after(&h), Some(RETRY_AFTER_CEILING));
        h.insert("retry-after-ms", HeaderValue::from_static("NaN"));
        h.insert(RETRY_AFTER, HeaderValue::from_static("2"));
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)), "a bad retry-after-ms falls back to Retry-After");
        let mut h = HeaderMap::new();
        h.insert("retry-after-ms", HeaderValue::from_static("1500"));
        h.insert(RETRY_AFTER, HeaderValue::from_static("9"));
        assert_eq!(retry_after(&h), Some(Duration::from_millis(1500)));
    }

    #[test]
    fn backoff_is_seeded_bounded_and_honours_retry_after() {
        let mut cfg = HttpConfig::new();
        cfg.backoff_base = Duration::from_millis(100);
        cfg.backoff_max = Duration::from_millis(1000);
        let m = OpenAiModel::new("m", cfg.clone()).unwrap();
        let h = req().canonical_hash();
        for attempt in 1..10 {
            let d = m.backoff_delay(&h, attempt, None);
            let raw = Duration::from_millis(100 * (1u64 << (attempt - 1))).min(Duration::from_millis(1000));
            assert!(d >= raw / 2 && d <= raw, "attempt {attempt}: {d:?} vs {raw:?}");
            assert_eq!(d, m.backoff_delay(&h, attempt, None), "same seed, same delay");
        }
        assert!(m.backoff_delay(&h, 1, Some(Duration::from_secs(2))) >= Duration::from_secs(2));
        // Capped by retry_after_max.
        assert!(m.backoff_delay(&h, 1, Some(Duration::from_secs(3600))) <= Duration::from_secs(60));
        cfg.seed = 99;
        let other = OpenAiModel::new("m", cfg).unwrap();
        let differs = (1..10).any(|a| other.backoff_delay(&h, a, None) != m.backoff_delay(&h, a, None));
        assert!(differs, "the seed changes the jitter");
    }

    #[test]
    fn backoffs_are_checked_not_raised() {
        let mut cfg = HttpConfig::new();
        cfg.backoff_base = Duration::from_secs(5);
        cfg.backoff_max = Duration::from_secs(1);
        let Err(LlmError::Config(e)) = OpenAiModel::new("m", cfg.clone()) else { panic!("accepted base > max") };
        assert!(e.contains("5000 ms") && e.contains("1000 ms"), "{e}");
        cfg.backoff_max = MAX_BACKOFF + Duration::from_millis(1);
        assert!(matches!(OpenAiModel::new("m", cfg), Err(LlmError::Config(_))));
    }

    #[test]
    fn urls_lose_their_credentials() {
        assert_eq!(redact_url("http://alice:hunter2@host:8/v1"), "http://host:8/v1");
        assert!(!redact_url("https://tok@host/v1?api_key=s3cret").contains("s3cret"));
        assert_eq!(redact_url("http://127.0.0.1:9/v1"), "http://127.0.0.1:9/v1");
        // Not a URL at all: still no credentials.
        assert!(!redact_url("http://a:b@[bad/v1/@x").contains("a:b"));
        let mut cfg = HttpConfig::new();
        cfg.base_url = "http://alice:hunter2@127.0.0.1:9/v1".into();
        assert_eq!(OpenAiModel::new("m", cfg).unwrap().url(), "http://127.0.0.1:9/v1/chat/completions");
    }

    #[test]
    fn refusal_text_comes_from_the_servers_error_field() {
        assert_eq!(server_error_text(r#"{"error":{"message":"Incorrect API key"}}"#), "Incorrect API key");
        assert_eq!(server_error_text(r#"{"error":"model not found"}"#), "model not found");
        assert_eq!(server_error_text(r#"{"detail":"Not Found"}"#), "Not Found");
        assert_eq!(server_error_text(r#"{"detail":[{"msg":"x"}]}"#), r#"[{"msg":"x"}]"#);
        assert_eq!(server_error_text("<html>nope</html>"), "<html>nope</html>");
        assert_eq!(server_error_text("  "), "(no error text)");
        assert_eq!(server_error_text(&"y".repeat(500)).chars().count(), EXCERPT_CHARS + 1);
    }

    #[test]
    fn bad_base_url_is_a_config_error() {
        let mut cfg = HttpConfig::new();
        cfg.base_url = "localhost:8000".into();
        assert!(matches!(OpenAiModel::new("m", cfg), Err(LlmError::Config(_))));
        let mut cfg = HttpConfig::new();
        cfg.base_url = "not a url".into();
        assert!(matches!(OpenAiModel::new("m", cfg), Err(LlmError::Config(_))));
    }

    #[test]
    fn wire_request_carries_sampling() {
        let m = OpenAiModel::new("llama", HttpConfig::new()).unwrap();
        let v = serde_json::to_value(m.wire_request(&req())).unwrap();
        assert_eq!(v["model"], "llama");
        assert_eq!(v["temperature"], 0.0);
        assert_eq!(v["top_p"], 1.0);
        assert_eq!(v["max_tokens"], 256);
        assert_eq!(v["messages"][0]["role"], "system");
        assert_eq!(v["messages"][1]["content"], "hi");
        assert!(v.get("stop").is_none());
    }

    #[test]
    fn reply_interpretation() {
        let r = req();
        let ok = r#"{"id":"x","object":"chat.completion","created":0,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Plan: go"},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}"#;
        let reply = interpret_reply(ok, &r).unwrap();
        assert_eq!(reply.text, "Plan: go");
        assert_eq!(reply.usage, Usage::new(12, 3));
        assert_eq!(reply.finish_reason.as_deref(), Some("stop"));

        let truncated = &ok[..ok.len() / 2];
        let f = interpret_reply(truncated, &r).unwrap_err();
        assert!(f.retryable && f.kind == "bad_body", "{}", f.detail);

        let empty = r#"{"id":"x","object":"chat.completion","created":0,"model":"m","choices":[]}"#;
        let f = interpret_reply(empty, &r).unwrap_err();
        assert!(f.retryable && f.kind == "empty_choices");

        let weird = ok.replace("\"stop\"", "\"eaten_by_a_grue\"");
        let f = interpret_reply(&weird, &r).unwrap_err();
        assert!(!f.retryable && f.kind == "unknown_finish_reason", "{}", f.detail);
        assert_eq!(f.raw.as_deref(), Some(weird.as_str()));

        let blank = ok.replace("Plan: go", "  ");
        let f = interpret_reply(&blank, &r).unwrap_err();
        assert!(!f.retryable && f.kind == "no_content");

        let null_content = ok.replace("\"Plan: go\"", "null");
        assert_eq!(interpret_reply(&null_content, &r).unwrap_err().kind, "no_content");

        let no_usage = ok.replace(r#","usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}"#, "");
        let reply = interpret_reply(&no_usage, &r).unwrap();
        assert_eq!(reply.usage.completion_tokens, estimate_tokens("Plan: go"));

        let not_chat = r#"{"choices":[{"text":"hi"}]}"#;
        assert_eq!(interpret_reply(not_chat, &r).unwrap_err().kind, "schema");

        // A sparse local-server reply (no id/object/created, an unknown service tier) still works.
        let sparse = r#"{"service_tier":"standard","choices":[{"message":{"content":"Plan: x"},"finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":2}}"#;
        let reply = interpret_reply(sparse, &r).unwrap();
        assert_eq!(reply.text, "Plan: x");
        assert_eq!(reply.finish_reason.as_deref(), Some("length"));
        assert_eq!(reply.usage, Usage::new(5, 2));
        // Prompt-cache hits, as OpenAI and DeepSeek report them (never more than the prompt).
        let openai = ok.replace(
            r#""total_tokens":15}"#,
            r#""total_tokens":15,"prompt_tokens_details":{"cached_tokens":8,"audio_tokens":0}}"#,
        );
        assert_eq!(interpret_reply(&openai, &r).unwrap().usage.cached_tokens, 8);
        let deepseek =
            sparse.replace(r#""completion_tokens":2}"#, r#""completion_tokens":2,"prompt_cache_hit_tokens":9}"#);
        assert_eq!(interpret_reply(&deepseek, &r).unwrap().usage.cached_tokens, 5);
        let tool = r#"{"choices":[{"message":{"role":"assistant","content":null,"tool_calls":[{"id":"1"}]},"finish_reason":"tool_calls"}]}"#;
        let f = interpret_reply(tool, &r).unwrap_err();
        assert!(f.kind == "no_content" && f.detail.contains("tool call"), "{}", f.detail);
    }

    #[test]
    fn reasoning_models_get_their_parameters() {
        let m = OpenAiModel::new("o4-mini", HttpConfig::new()).unwrap();
        let v = serde_json::to_value(m.wire_request(&req())).unwrap();
        assert_eq!(v["max_completion_tokens"], 256);
        for absent in ["max_tokens", "temperature", "top_p", "reasoning_effort"] {
            assert!(v.get(absent).is_none(), "{absent}: {v}");
        }
        let mut cfg = HttpConfig::new();
        cfg.params.effort = Some(Effort::Low);
        cfg.params.explicit.insert("temperature".into());
        let m = OpenAiModel::new("openai/gpt-5-mini", cfg.clone()).unwrap();
        let v = serde_json::to_value(m.wire_request(&req())).unwrap();
        assert_eq!((v["reasoning_effort"].as_str(), v["temperature"].as_f64()), (Some("low"), Some(0.0)));
        assert!(v.get("top_p").is_none());
        // An effort for a chat model is a contradiction, refused before any request.
        let Err(LlmError::Config(e)) = OpenAiModel::new("gpt-4o", cfg.clone()) else { panic!("accepted") };
        assert!(e.contains("chat model"), "{e}");
        cfg.params.family = Some(crate::family::Family::Reasoning);
        assert!(OpenAiModel::new("gpt-4o", cfg).is_ok());
    }

    #[test]
    fn refused_parameters_are_worked_around_once_unless_explicit() {
        let body = |p: &str, code: &str| {
            format!(r#"{{"error":{{"message":"no","type":"invalid_request_error","param":"{p}","code":"{code}"}}}}"#)
        };
        assert_eq!(unsupported_param(&body("top_p", "unsupported_parameter")).as_deref(), Some("top_p"));
        assert_eq!(unsupported_param(&body("temperature", "unsupported_value")).as_deref(), Some("temperature"));
        assert_eq!(unsupported_param(&body("top_p", "invalid_api_key")), None);
        assert_eq!(unsupported_param("not json"), None);
        let m = OpenAiModel::new("gpt-4o", HttpConfig::new()).unwrap();
        let sent = m.learnt();
        assert!(m.work_around("top_p", &sent).is_ok());
        let v = serde_json::to_value(m.wire_request(&req())).unwrap();
        assert!(v.get("top_p").is_none() && v.get("temperature").is_some(), "{v}");
        // Refused again in a request that had left it out: the refusal stands.
        assert!(m.work_around("top_p", &m.learnt()).is_err());
        // The token cap is renamed once; the other name refused too stops.
        assert!(m.work_around("max_tokens", &m.learnt()).is_ok());
        let v = serde_json::to_value(m.wire_request(&req())).unwrap();
        assert_eq!((v.get("max_tokens"), v["max_completion_tokens"].as_u64()), (None, Some(256)));
        let e = m.work_around("max_completion_tokens", &m.learnt()).unwrap_err();
        assert!(e.0.contains("both"), "{e}");
        assert!(m.work_around("model", &m.learnt()).is_err());
        let mut cfg = HttpConfig::new();
        cfg.params.explicit.insert("temperature".into());
        let m = OpenAiModel::new("gpt-4o", cfg).unwrap();
        assert!(m.work_around("temperature", &m.learnt()).unwrap_err().0.contains("explicitly"));
    }

    #[test]
    fn reasoning_is_kept_apart_and_counted() {
        let r = req();
        let body = r#"{"choices":[{"message":{"role":"assistant","content":"<think>Plan: \"wait(1)\"</think>\nPlan: \"go\"","reasoning_content":"first"},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":30,"completion_tokens_details":{"reasoning_tokens":20},"prompt_tokens_details":{"cached_tokens":8}}}"#;
        let reply = interpret_reply(body, &r).unwrap();
        assert_eq!(reply.text, "Plan: \"go\"");
        assert_eq!(reply.reasoning.as_deref(), Some("first\n\nPlan: \"wait(1)\""));
        assert_eq!(reply.usage, Usage { reasoning_tokens: 20, cached_tokens: 8, ..Usage::new(9, 30) });
        let cut = r#"{"choices":[{"message":{"content":"<think>long thoughts"},"finish_reason":"length"}]}"#;
        let f = interpret_reply(cut, &r).unwrap_err();
        assert!(f.kind == "no_content" && f.detail.contains("reasoning but no answer"), "{}", f.detail);
    }
}
