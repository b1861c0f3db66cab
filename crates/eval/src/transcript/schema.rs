//! The transcript's records as they are stored, one per line, and the errors of
//! reading or writing them.

use proagent_llm::record::Outcome;
use proagent_llm::{Role, Sampling};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The format this build writes; the reader accepts this version and older ones.
pub const FORMAT_VERSION: u32 = 1;

/// Wall-clock values, kept apart from the deterministic content of a record.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Wall {
    /// Milliseconds since the Unix epoch when the record was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unix_ms: Option<u64>,
    /// How long the exchange took (all attempts and waits), or the run (footer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<u64>,
}

/// The first record: enough to re-run the episode.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// The transcript format ([`FORMAT_VERSION`] when written by this build).
    pub format_version: u32,
    /// The proagent version that wrote the file.
    pub proagent_version: String,
    /// The full run config (layout, seat, partner, model, seed, horizon, switches, ...).
    pub config: Value,
    /// Template name → sha256 of its text.
    #[serde(default)]
    pub prompt_hashes: BTreeMap<String, String>,
    /// How many secrets were replaced by `[REDACTED]` in this record (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub scrubbed: u64,
    /// When the run started (absent without the wall clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall: Option<Wall>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Header {
    /// A header of this build's format and version.
    pub fn new(config: Value, prompt_hashes: BTreeMap<String, String>) -> Self {
        Header {
            format_version: FORMAT_VERSION,
            proagent_version: env!("CARGO_PKG_VERSION").to_string(),
            config,
            prompt_hashes,
            scrubbed: 0,
            wall: None,
        }
    }
}

/// A message as stored: full text, or (a system prompt seen before) only its sha256.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredMessage {
    /// Who wrote the message.
    pub role: Role,
    /// The text (absent for a system prompt already stored on an earlier line).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// sha256 of the text (system prompts only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// A request as stored: its messages and, flattened, its sampling settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredRequest {
    /// The messages, system prompts possibly by hash only.
    pub messages: Vec<StoredMessage>,
    /// Temperature, top_p, max_tokens, stop.
    #[serde(flatten)]
    pub sampling: Sampling,
    /// The schema a structured answer was asked in (absent for free-text requests; boxed:
    /// most requests have none, and records stay small).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<Box<proagent_llm::ResponseSchema>>,
}

/// An exchange as stored on one line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExchangeRecord {
    /// 0-based position among the exchanges.
    pub seq: u64,
    /// The game timestep of the request.
    pub t: u32,
    /// What the request was for (`planner`, `verificator`, `chat`, ...).
    pub kind: String,
    /// sha256 of the canonical full request: the key replay serves replies by.
    pub request_hash: String,
    /// The request.
    pub request: StoredRequest,
    /// The reply or the error.
    pub outcome: Outcome,
    /// What the caller read from the reply.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parsed: Option<Value>,
    /// Why the reply did not parse.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parse_error: Option<String>,
    /// How many secrets were replaced by `[REDACTED]` in this exchange before its
    /// hashes were computed (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub scrubbed: u64,
    /// The player whose agent asked, when both seats talk to a model (absent otherwise,
    /// and in transcripts written before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<u8>,
    /// When it was written and how long it took (absent without the wall clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall: Option<Wall>,
}

/// One game step; the payload is up to the runner (joint action, reward, skill events, belief, ...).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// The timestep.
    pub t: u32,
    /// The runner's payload.
    pub data: Value,
    /// How many secrets were replaced by `[REDACTED]` in this record (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub scrubbed: u64,
}

/// The last record: the result (score, the `--json` metrics) and the record counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Footer {
    /// Exchange records in the file.
    pub exchanges: u64,
    /// Step records in the file.
    pub steps: u64,
    /// The result: score and metrics.
    pub data: Value,
    /// How many secrets were replaced by `[REDACTED]` in this record (absent when none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub scrubbed: u64,
    /// When the run ended and how long it took (absent without the wall clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall: Option<Wall>,
}

/// One line of a transcript.
// Records are read and written one line at a time, never kept in bulk by variant, so the
// exchange's size (its request now carries an optional schema) costs nothing to box away.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    /// The first line.
    Header(Header),
    /// One model exchange (boxed: it is by far the largest record).
    Exchange(Box<ExchangeRecord>),
    /// One game step.
    Step(StepRecord),
    /// The last line.
    Footer(Footer),
}

/// Why a transcript could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    /// The file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A line is malformed or fails a check.
    #[error("{path}:{line}: {message}")]
    Bad {
        /// The file.
        path: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The file is empty or ends before its footer.
    #[error("{path}: {message}")]
    Incomplete {
        /// The file.
        path: String,
        /// What is missing.
        message: String,
    },
    /// Records written in the wrong order, or a record that cannot be serialised.
    #[error("transcript writer: {0}")]
    Usage(String),
}
