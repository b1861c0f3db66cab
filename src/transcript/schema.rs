//! The transcript's records as they are stored, one per line, and the errors of
//! reading or writing them.

use crate::llm::record::Outcome;
use crate::llm::{Role, Sampling};
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
    pub format_version: u32,
    pub proagent_version: String,
    /// The full run config (layout, seat, partner, model, seed, horizon, switches, ...).
    pub config: Value,
    /// Template name → sha256 of its text.
    #[serde(default)]
    pub prompt_hashes: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall: Option<Wall>,
}

impl Header {
    pub fn new(config: Value, prompt_hashes: BTreeMap<String, String>) -> Self {
        Header {
            format_version: FORMAT_VERSION,
            proagent_version: env!("CARGO_PKG_VERSION").to_string(),
            config,
            prompt_hashes,
            wall: None,
        }
    }
}

/// A message as stored: full text, or (a system prompt seen before) only its sha256.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredMessage {
    pub role: Role,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredRequest {
    pub messages: Vec<StoredMessage>,
    #[serde(flatten)]
    pub sampling: Sampling,
}

/// An exchange as stored on one line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExchangeRecord {
    pub seq: u64,
    pub t: u32,
    pub kind: String,
    /// sha256 of the canonical full request: the key replay serves replies by.
    pub request_hash: String,
    pub request: StoredRequest,
    pub outcome: Outcome,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parsed: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parse_error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall: Option<Wall>,
}

/// One game step; the payload is up to the runner (joint action, reward, skill events, belief, ...).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    pub t: u32,
    pub data: Value,
}

/// The last record: the result (score, the `--json` metrics) and the record counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Footer {
    pub exchanges: u64,
    pub steps: u64,
    pub data: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall: Option<Wall>,
}

/// One line of a transcript.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    Header(Header),
    Exchange(ExchangeRecord),
    Step(StepRecord),
    Footer(Footer),
}

#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Bad { path: String, line: usize, message: String },
    #[error("{path}: {message}")]
    Incomplete { path: String, message: String },
    #[error("transcript writer: {0}")]
    Usage(String),
}
