//! The language-model interface. Every backend — the built-in scripted model,
//! the OpenAI-compatible HTTP client, the transcript replayer — implements
//! [`LanguageModel`], so the planner, the verificator and the QA runner never
//! know which one they talk to.

#![warn(missing_docs)]
#![allow(clippy::needless_range_loop, clippy::collapsible_match, clippy::collapsible_if)]

pub mod family;
pub mod http;
pub mod options;
pub mod record;
pub mod replay;
pub mod scrub;
pub mod spec;
pub mod structured;
pub mod tokens;

pub use http::default_base_url;
pub use options::{
    HTTP_OPTIONS, LABELLED_OPTIONS, MODEL_OPTIONS, ModelOptionError, SAMPLING_OPTIONS, join_options, served_model,
    without_option,
};
pub use spec::{
    MOCK_SERVER_HEADER, MOCK_SERVER_OWNER, ModelChoice, ModelSpec, STAND_IN, classify_model, is_mock_server,
    is_stand_in, mock_server_answered,
};
pub use structured::{ResponseSchema, STRUCTURED_FALLBACK};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Who wrote a chat message.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Instructions that frame the whole chat (the knowledge library, the QA system prompt).
    System,
    /// The caller's turn: scene, question, re-plan or double-check request.
    User,
    /// A model's earlier reply, sent back as context in multi-round chats (re-plans, verificator).
    Assistant,
}

/// One chat message, as sent on the wire (the OpenAI `messages` entry).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Message {
    /// Who wrote it.
    pub role: Role,
    /// The message text, verbatim.
    pub content: String,
}

impl Message {
    /// A system message with text `s`, verbatim.
    pub fn system(s: impl Into<String>) -> Self {
        Message { role: Role::System, content: s.into() }
    }
    /// A user message with text `s`, verbatim.
    pub fn user(s: impl Into<String>) -> Self {
        Message { role: Role::User, content: s.into() }
    }
    /// An assistant message: an earlier reply, sent back as context.
    pub fn assistant(s: impl Into<String>) -> Self {
        Message { role: Role::Assistant, content: s.into() }
    }
}

/// Sampling settings. The defaults are the ProAgent paper's (temperature 0, top_p 1, 256 tokens).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Sampling {
    /// Sampling temperature; 0 is greedy (the default).
    pub temperature: f32,
    /// Nucleus-sampling mass in (0, 1]; 1 keeps every token (the default).
    pub top_p: f32,
    /// Upper bound on the reply's length in tokens (sent as `max_tokens`).
    pub max_tokens: u32,
    /// Stop sequences; empty (the default) sends none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop: Vec<String>,
    /// Whether the seat asks for structured answers (the `structured=on` option): its
    /// decision requests then carry a [`ResponseSchema`]. Not serialised here: a request
    /// records the schema it asked for, a model spec records the option.
    #[serde(skip)]
    pub structured: bool,
    /// Leave the token cap out of the request, so the server's own limit applies (the
    /// LLM-Coordination paper preset: the released agent sends none). `max_tokens` then
    /// sends nothing; it is only the reply length a dry run assumes. Absent from the
    /// records of capped requests, so they are unchanged.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_cap: bool,
}

impl Default for Sampling {
    fn default() -> Self {
        Sampling { temperature: 0.0, top_p: 1.0, max_tokens: 256, stop: Vec::new(), structured: false, no_cap: false }
    }
}

/// One chat request.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatRequest {
    /// The chat so far, in order (usually system first).
    pub messages: Vec<Message>,
    /// Sampling settings (flattened into the request's JSON, so they are part of the hash).
    #[serde(flatten)]
    pub sampling: Sampling,
    /// The JSON schema the answer must follow (OpenAI's `response_format`), when the
    /// caller asks for a structured answer; absent (and not part of the hash) otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<ResponseSchema>,
}

impl ChatRequest {
    /// A request from messages and sampling settings.
    pub fn new(messages: Vec<Message>, sampling: Sampling) -> Self {
        ChatRequest { messages, sampling, response_format: None }
    }

    /// The request asking for an answer in `schema` when `sampling.structured` is set
    /// (the seat asked for structured answers), unchanged otherwise.
    pub fn with_schema(mut self, schema: impl FnOnce() -> ResponseSchema) -> Self {
        if self.sampling.structured {
            self.response_format = Some(schema());
        }
        self
    }

    /// sha256 (hex) of the canonical JSON of the request: the key replay looks replies up by.
    /// The model name is deliberately not part of it, so a recording can be replayed by any backend.
    pub fn canonical_hash(&self) -> String {
        // serde_json writes struct fields in declaration order and floats in a fixed form,
        // so this text is stable for equal requests.
        let text = serde_json::to_string(self).unwrap_or_default();
        sha256_hex(text.as_bytes())
    }
}

/// sha256 of bytes, as lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// Token counts, from the server or (for built-in models) a deterministic estimate.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Tokens in the whole request (every message), as the server counts them.
    pub prompt_tokens: u64,
    /// Tokens in the reply text (a reasoning model's reasoning tokens included, as
    /// servers count and bill them).
    pub completion_tokens: u64,
    /// Of the `completion_tokens`, the reasoning tokens (OpenAI's
    /// `usage.completion_tokens_details.reasoning_tokens`); 0, and absent from records,
    /// when the server reports none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
    /// Of the `prompt_tokens`, those the server read from its prompt-prefix cache (OpenAI's
    /// `usage.prompt_tokens_details.cached_tokens`, DeepSeek's `prompt_cache_hit_tokens`);
    /// 0, and absent from records, when the server reports none. The dry run's counting
    /// model puts here the tokens a prefix cache could serve
    /// ([`tokens::TokenCounter::shared_prefix`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_tokens: u64,
}

/// Whether a count is zero (serde's test for leaving a field out).
fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// Prompt and completion counts, with no reasoning or cached tokens.
    pub const fn new(prompt_tokens: u64, completion_tokens: u64) -> Self {
        Usage { prompt_tokens, completion_tokens, reasoning_tokens: 0, cached_tokens: 0 }
    }

    /// Adds another reply's counts. Counts come from servers (untrusted), so the sum
    /// saturates at `u64::MAX` instead of wrapping or panicking.
    pub fn add(&mut self, o: Usage) {
        self.prompt_tokens = self.prompt_tokens.saturating_add(o.prompt_tokens);
        self.completion_tokens = self.completion_tokens.saturating_add(o.completion_tokens);
        self.reasoning_tokens = self.reasoning_tokens.saturating_add(o.reasoning_tokens);
        self.cached_tokens = self.cached_tokens.saturating_add(o.cached_tokens);
    }
}

/// A fault seen on one attempt of a request that was retried.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fault {
    /// 1-based attempt number.
    pub attempt: u32,
    /// Short kind: "status_429", "status_500", "timeout", "connect", "bad_body", "empty_choices", ...
    pub kind: String,
    /// One line for humans: HTTP status, an excerpt of the body, the retry delay (API key redacted).
    pub detail: String,
}

/// A model's reply.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChatResponse {
    /// The reply's message content, verbatim; it is untrusted text for callers to parse.
    pub text: String,
    /// Token counts: the server's, or [`estimate_tokens`] when it reports none.
    pub usage: Usage,
    /// How many attempts the backend made (1 when the first one worked).
    pub attempts: u32,
    /// Faults of the failed attempts before the one that worked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<Fault>,
    /// The finish reason reported by the server, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// The model's reasoning, kept apart from `text`: a reply's `reasoning_content` (vLLM,
    /// DeepSeek) or `reasoning` field, and the `<think>…</think>` blocks taken out of its
    /// content ([`split_reasoning`]). Never parsed as the answer; absent from records of
    /// replies without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// The request asked for a structured answer but the server refused the schema (now
    /// or earlier in the run), so this reply is free text, asked for without it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub text_fallback: bool,
}

impl ChatResponse {
    /// A first-attempt reply with finish reason "stop" and no faults (built-in models).
    pub fn simple(text: impl Into<String>, usage: Usage) -> Self {
        ChatResponse {
            text: text.into(),
            usage,
            attempts: 1,
            faults: Vec::new(),
            finish_reason: Some("stop".into()),
            reasoning: None,
            text_fallback: false,
        }
    }

    /// Whether this reply answers `request` in its schema: the request asked for one and
    /// the server did not fall back to text.
    pub fn is_structured(&self, request: &ChatRequest) -> bool {
        request.response_format.is_some() && !self.text_fallback
    }
}

/// A reply's content split into the answer and the reasoning: every `<think>…</think>`
/// block (the tags case-insensitive; Qwen3, DeepSeek-R1 and other local reasoning models
/// write them) is taken out of the answer, and an unclosed `<think>` (a reply cut by its
/// token cap) takes the rest of the text with it. A lone `</think>` with no opening tag
/// (servers whose chat template opens the block in the prompt) ends reasoning that began
/// at the start. The answer is trimmed; the reasoning is `None` when there was none.
pub fn split_reasoning(content: &str) -> (String, Option<String>) {
    const OPEN: &str = "<think>";
    const CLOSE: &str = "</think>";
    let lower = content.to_ascii_lowercase();
    let mut answer = String::new();
    let mut thoughts: Vec<&str> = Vec::new();
    let mut pos = 0;
    // A closing tag before any opening one: everything before it is reasoning.
    if let Some(close) = lower.find(CLOSE)
        && lower.find(OPEN).is_none_or(|open| open > close)
    {
        thoughts.push(content[..close].trim());
        pos = close + CLOSE.len();
    }
    while let Some(rel) = lower[pos..].find(OPEN) {
        let start = pos + rel;
        answer.push_str(&content[pos..start]);
        let inner = start + OPEN.len();
        match lower[inner..].find(CLOSE) {
            Some(rel_close) => {
                thoughts.push(content[inner..inner + rel_close].trim());
                pos = inner + rel_close + CLOSE.len();
            }
            None => {
                thoughts.push(content[inner..].trim());
                pos = content.len();
            }
        }
    }
    answer.push_str(&content[pos..]);
    if thoughts.is_empty() {
        return (content.to_string(), None);
    }
    (answer.trim().to_string(), Some(thoughts.join("\n\n")))
}

/// Why a request produced no usable reply.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LlmError {
    /// The server could not be reached or kept failing; every attempt's fault is kept.
    #[error("model unreachable after {} attempts: {}", .faults.len(), .faults.last().map(|f| f.detail.as_str()).unwrap_or("no attempt made"))]
    Unreachable {
        /// One per attempt, in order; empty when no attempt could be made.
        faults: Vec<Fault>,
    },
    /// The server answered, but not with a usable reply (no content, unknown finish reason, ...).
    #[error("unusable reply: {reason}")]
    BadReply {
        /// What was wrong with it, one line (the last attempt's fault detail).
        reason: String,
        /// The reply body as received (API key redacted), for diagnosis and transcripts.
        raw: String,
        /// Every attempt's fault, the unusable reply's last.
        faults: Vec<Fault>,
    },
    /// The server refused the request with a status no retry can fix (400, 401, 403,
    /// 404, 413, 422, ...): the key, the model name, the base URL or the request itself
    /// is wrong, and every later request of the run would be refused the same way.
    #[error(
        "the model server refused the request (HTTP {status}{}) at {url}: {message} ({})",
        status_reason(*.status).map(|r| format!(" {r}")).unwrap_or_default(),
        refusal_hint(*.status)
    )]
    Refused {
        /// The HTTP status.
        status: u16,
        /// The endpoint, without any credentials in it.
        url: String,
        /// The server's error text (its `error.message` when it sent OpenAI's error
        /// object), with secrets removed.
        message: String,
        /// Every attempt's fault (one: a refusal is not retried).
        faults: Vec<Fault>,
    },
    /// A replayed request that is not in the recording.
    #[error("replay miss: {0}")]
    ReplayMiss(String),
    /// A misconfiguration found before any request was sent.
    #[error("model configuration: {0}")]
    Config(String),
}

impl LlmError {
    /// The faults recorded along the way (empty for configuration errors).
    pub fn faults(&self) -> &[Fault] {
        match self {
            LlmError::Unreachable { faults } | LlmError::BadReply { faults, .. } | LlmError::Refused { faults, .. } => {
                faults
            }
            _ => &[],
        }
    }

    /// Whether the error condemns the whole run, not just this request: the server
    /// refused the configuration ([`LlmError::Refused`]) or the backend is misconfigured
    /// ([`LlmError::Config`]). Callers stop at once instead of counting a failure, so a
    /// wrong key or model name never turns into a run of zero scores.
    pub fn is_fatal(&self) -> bool {
        matches!(self, LlmError::Refused { .. } | LlmError::Config(_))
    }
}

/// The reason phrase of an HTTP status ("Unauthorized"), if it has a standard one.
fn status_reason(status: u16) -> Option<&'static str> {
    reqwest::StatusCode::from_u16(status).ok().and_then(|s| s.canonical_reason())
}

/// What a refusal most likely means, for the error message.
pub fn refusal_hint(status: u16) -> &'static str {
    match status {
        401 => "check the API key in $OPENAI_API_KEY",
        403 => "the API key may not use this model or endpoint",
        404 => "check --model and --base-url: the endpoint or the model does not exist there",
        400 | 413 | 422 => {
            "the server rejected the request itself, e.g. a prompt longer than the model's context or a sampling setting it does not accept"
        }
        _ => "a configuration error that no retry can fix",
    }
}

/// One interface for every backend.
#[async_trait]
pub trait LanguageModel: Send + Sync {
    /// A short name for reports and transcripts (e.g. "scripted", "gpt-4o", "replay").
    fn name(&self) -> String;
    /// Sends one chat request and returns the reply.
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError>;
}

/// A rough, deterministic token estimate (about 4 characters a token) for models
/// that have no tokenizer of their own.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.chars().count() as u64).div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_hash_is_stable_and_sensitive() {
        let a = ChatRequest::new(vec![Message::system("s"), Message::user("u")], Sampling::default());
        let b = a.clone();
        assert_eq!(a.canonical_hash(), b.canonical_hash());
        assert_eq!(a.canonical_hash().len(), 64);
        let mut c = a.clone();
        c.messages[1].content.push('!');
        assert_ne!(a.canonical_hash(), c.canonical_hash());
        let mut d = a.clone();
        d.sampling.temperature = 0.5;
        assert_ne!(a.canonical_hash(), d.canonical_hash());
    }

    #[test]
    fn usage_sums_saturate() {
        let mut u = Usage { reasoning_tokens: 2, cached_tokens: u64::MAX, ..Usage::new(u64::MAX - 1, 5) };
        u.add(Usage { reasoning_tokens: 3, cached_tokens: 1, ..Usage::new(10, u64::MAX) });
        assert_eq!(u, Usage { reasoning_tokens: 5, cached_tokens: u64::MAX, ..Usage::new(u64::MAX, u64::MAX) });
    }

    #[test]
    fn usage_records_leave_out_counts_servers_did_not_report() {
        assert_eq!(serde_json::to_string(&Usage::new(3, 4)).unwrap(), r#"{"prompt_tokens":3,"completion_tokens":4}"#);
        let u = Usage { reasoning_tokens: 2, cached_tokens: 1, ..Usage::new(3, 4) };
        let text = serde_json::to_string(&u).unwrap();
        assert_eq!(text, r#"{"prompt_tokens":3,"completion_tokens":4,"reasoning_tokens":2,"cached_tokens":1}"#);
        assert_eq!(serde_json::from_str::<Usage>(&text).unwrap(), u);
    }

    #[test]
    fn think_blocks_are_reasoning_not_answer() {
        let (a, r) = split_reasoning("<think>Maybe Plan: \"wait(1)\"?</think>\nPlan: \"pickup(onion)\"");
        assert_eq!((a.as_str(), r.as_deref()), ("Plan: \"pickup(onion)\"", Some("Maybe Plan: \"wait(1)\"?")));
        let (a, r) = split_reasoning("A<THINK>x</Think>B<think>y</think>C");
        assert_eq!((a.as_str(), r.as_deref()), ("ABC", Some("x\n\ny")));
        // Cut by the cap inside the block: no answer at all.
        let (a, r) = split_reasoning("<think>still thinking");
        assert_eq!((a.as_str(), r.as_deref()), ("", Some("still thinking")));
        // The template opened the block: only the closing tag is in the reply.
        let (a, r) = split_reasoning("thinking hard</think> Answer: B");
        assert_eq!((a.as_str(), r.as_deref()), ("Answer: B", Some("thinking hard")));
        // No tags: the text is untouched, untrimmed.
        assert_eq!(split_reasoning(" Plan: x \n"), (" Plan: x \n".to_string(), None));
    }

    #[test]
    fn only_refusals_and_configuration_errors_are_fatal() {
        let refused = LlmError::Refused { status: 404, url: "u".into(), message: "m".into(), faults: vec![] };
        assert!(refused.is_fatal());
        assert!(refused.to_string().contains("HTTP 404 Not Found"), "{refused}");
        assert!(LlmError::Config("c".into()).is_fatal());
        assert!(!LlmError::Unreachable { faults: vec![] }.is_fatal());
        assert!(!LlmError::BadReply { reason: "r".into(), raw: String::new(), faults: vec![] }.is_fatal());
        assert!(!LlmError::ReplayMiss("x".into()).is_fatal());
    }

    #[test]
    fn token_estimate() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcd"), 1);
        assert_eq!(estimate_tokens("abcde"), 2);
    }
}
