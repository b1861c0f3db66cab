//! The record of one model exchange, shared by the agent's log, the transcript
//! and CoordinationQA: the request, what came back ([`Outcome`], which turns
//! into the same [`LlmError`] again for replay), and what the caller read from it.

use super::scrub::Scrubber;
use super::{ChatRequest, ChatResponse, Fault, LlmError, Usage};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::Duration;

/// A request's failure, in a form that round-trips to the same [`LlmError`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedError {
    /// `unreachable`, `bad_reply`, `refused`, `replay_miss` or `config` (`kind` in older QA transcripts).
    #[serde(alias = "kind")]
    pub error: String,
    /// What went wrong, in words (a bad reply's reason, without the display prefix).
    pub message: String,
    /// The body the server sent, for a bad reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    /// The status and endpoint of a `refused` error; `None` for the other kinds. Boxed:
    /// most errors are not refusals, and transcript records stay small.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<Box<HttpRefusal>>,
    /// The faults of every attempt made before giving up.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<Fault>,
}

/// Where and how a server refused a request.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpRefusal {
    /// The HTTP status.
    pub status: u16,
    /// The endpoint, without credentials.
    pub url: String,
}

impl RecordedError {
    /// The error as recorded: its kind, its message, the raw reply of a bad reply, and the faults.
    pub fn from_error(e: &LlmError) -> RecordedError {
        let (error, message, raw) = match e {
            LlmError::Unreachable { .. } => ("unreachable", e.to_string(), None),
            LlmError::BadReply { reason, raw, .. } => ("bad_reply", reason.clone(), Some(raw.clone())),
            LlmError::Refused { message, .. } => ("refused", message.clone(), None),
            LlmError::ReplayMiss(m) => ("replay_miss", m.clone(), None),
            LlmError::Config(m) => ("config", m.clone(), None),
        };
        let http = match e {
            LlmError::Refused { status, url, .. } => Some(Box::new(HttpRefusal { status: *status, url: url.clone() })),
            _ => None,
        };
        RecordedError { error: error.into(), message, raw, http, faults: e.faults().to_vec() }
    }

    /// The error again (replay serves this). QA transcripts written before this
    /// type was shared stored a bad reply's message with its display prefix; it is
    /// removed so the error reads the same either way.
    pub fn to_error(&self) -> LlmError {
        match self.error.as_str() {
            "unreachable" => LlmError::Unreachable { faults: self.faults.clone() },
            "bad_reply" => LlmError::BadReply {
                reason: self.message.strip_prefix("unusable reply: ").unwrap_or(&self.message).to_string(),
                raw: self.raw.clone().unwrap_or_default(),
                faults: self.faults.clone(),
            },
            "refused" => LlmError::Refused {
                status: self.http.as_ref().map_or(0, |h| h.status),
                url: self.http.as_ref().map(|h| h.url.clone()).unwrap_or_default(),
                message: self.message.clone(),
                faults: self.faults.clone(),
            },
            "replay_miss" => LlmError::ReplayMiss(self.message.clone()),
            _ => LlmError::Config(self.message.clone()),
        }
    }
}

/// What a request produced: a reply (with its attempts and faults) or an error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    /// The model answered.
    Reply(ChatResponse),
    /// No usable reply.
    Error(RecordedError),
}

impl Outcome {
    /// The record of what a model call returned.
    pub fn from_result(result: &Result<ChatResponse, LlmError>) -> Self {
        match result {
            Ok(r) => Outcome::Reply(r.clone()),
            Err(e) => Outcome::Error(RecordedError::from_error(e)),
        }
    }

    /// The result the model returned, exactly (replay serves this).
    pub fn to_result(&self) -> Result<ChatResponse, LlmError> {
        match self {
            Outcome::Reply(r) => Ok(r.clone()),
            Outcome::Error(e) => Err(e.to_error()),
        }
    }

    /// Faults seen along the way, on success or failure.
    pub fn faults(&self) -> &[Fault] {
        match self {
            Outcome::Reply(r) => &r.faults,
            Outcome::Error(e) => &e.faults,
        }
    }

    /// Whether the model answered.
    pub fn is_reply(&self) -> bool {
        matches!(self, Outcome::Reply(_))
    }

    /// Scrubs every text of the outcome (reply, finish reason, error message, raw
    /// body, fault details); returns the number of replacements.
    pub fn scrub(&mut self, s: &Scrubber) -> u64 {
        let (faults, mut n) = match self {
            Outcome::Reply(r) => {
                let n = s.scrub_string(&mut r.text)
                    + r.finish_reason.as_mut().map_or(0, |f| s.scrub_string(f))
                    + r.reasoning.as_mut().map_or(0, |t| s.scrub_string(t));
                (&mut r.faults, n)
            }
            Outcome::Error(e) => {
                let n = s.scrub_string(&mut e.error)
                    + s.scrub_string(&mut e.message)
                    + e.raw.as_mut().map_or(0, |r| s.scrub_string(r));
                (&mut e.faults, n)
            }
        };
        for f in faults {
            n += s.scrub_string(&mut f.kind) + s.scrub_string(&mut f.detail);
        }
        n
    }
}

/// One LLM exchange, in memory: the full request, whatever the file stores.
#[derive(Clone, Debug, PartialEq)]
pub struct Exchange {
    /// 0-based position among the exchanges of the transcript (assigned by the writer).
    pub seq: u64,
    /// The game timestep the request was made at.
    pub t: u32,
    /// What the request was for: "plan", "verify", "qa", ...
    pub kind: String,
    /// The full request, as sent (until a transcript writer scrubs it).
    pub request: ChatRequest,
    /// What came back.
    pub outcome: Outcome,
    /// What the caller made of the reply (e.g. the parsed skill), if it parsed.
    pub parsed: Option<Value>,
    /// Why the reply did not parse, if it did not; the reply text stays in `outcome`.
    pub parse_error: Option<String>,
    /// Wall-clock time of the exchange (not part of the deterministic content).
    pub latency: Option<Duration>,
    /// How many secrets [`Exchange::scrub`] replaced by `[REDACTED]` in it so far
    /// (the transcript stores the count, never what was there).
    pub scrubbed: u64,
    /// The player whose agent asked, stamped by the episode recorder when both seats
    /// talk to a model (two ProAgents); `None` when only one seat asks.
    pub seat: Option<u8>,
}

impl Exchange {
    /// An exchange at timestep `t` (its `seq` is assigned by the writer).
    pub fn new(
        t: u32,
        kind: impl Into<String>,
        request: ChatRequest,
        result: &Result<ChatResponse, LlmError>,
        latency: Duration,
    ) -> Self {
        Exchange {
            seq: 0,
            t,
            kind: kind.into(),
            request,
            outcome: Outcome::from_result(result),
            parsed: None,
            parse_error: None,
            latency: Some(latency),
            scrubbed: 0,
            seat: None,
        }
    }

    /// The exchange with what the caller read from the reply.
    pub fn with_parsed(mut self, parsed: Value) -> Self {
        self.parsed = Some(parsed);
        self
    }

    /// The exchange with why the reply did not parse.
    pub fn with_parse_error(mut self, error: impl Into<String>) -> Self {
        self.parse_error = Some(error.into());
        self
    }

    /// sha256 of the canonical request (see [`ChatRequest::canonical_hash`]).
    pub fn request_hash(&self) -> String {
        self.request.canonical_hash()
    }

    /// Replaces every secret the scrubber knows, in every text of the exchange (the
    /// request, the reply or error, what was parsed), adds the number of replacements
    /// to [`Exchange::scrubbed`] and returns it. A transcript writer calls this before
    /// it hashes anything, so the stored hashes are those of the stored text.
    pub fn scrub(&mut self, s: &Scrubber) -> u64 {
        let mut n = s.scrub_string(&mut self.kind) + s.scrub_request(&mut self.request) + self.outcome.scrub(s);
        if let Some(p) = self.parsed.as_mut() {
            n += s.scrub_value(p);
        }
        if let Some(e) = self.parse_error.as_mut() {
            n += s.scrub_string(e);
        }
        self.scrubbed += n;
        n
    }
}

impl Exchange {
    /// The reply text, when the model answered.
    pub fn reply_text(&self) -> Option<&str> {
        match &self.outcome {
            Outcome::Reply(r) => Some(&r.text),
            Outcome::Error(_) => None,
        }
    }

    /// The model's error, when it did not answer.
    pub fn error(&self) -> Option<&RecordedError> {
        match &self.outcome {
            Outcome::Reply(_) => None,
            Outcome::Error(e) => Some(e),
        }
    }

    /// Token counts of the reply (zero when the model failed).
    pub fn usage(&self) -> Usage {
        match &self.outcome {
            Outcome::Reply(r) => r.usage,
            Outcome::Error(_) => Usage::default(),
        }
    }

    /// What the caller read from the reply, as text (the agent stores a string).
    pub fn parsed_text(&self) -> Option<&str> {
        self.parsed.as_ref().and_then(Value::as_str)
    }
}
