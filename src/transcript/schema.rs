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
    /// The format version the file was written in ([`FORMAT_VERSION`] for this build).
    pub format_version: u32,
    /// The version of proagent that wrote the file.
    pub proagent_version: String,
    /// The full run config (layout, seat, partner, model, seed, horizon, switches, ...).
    pub config: Value,
    /// Template name → sha256 of its text.
    #[serde(default)]
    pub prompt_hashes: BTreeMap<String, String>,
    /// When the run started (only when the writer records wall-clock values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall: Option<Wall>,
}

impl Header {
    /// A header of this build's format and proagent version; the writer fills in `wall`.
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
    /// Who wrote the message.
    pub role: Role,
    /// The full text; omitted for a system prompt already stored in full on an earlier line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// sha256 (hex) of the text; set for system prompts only, the key later lines refer to them by.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// A chat request as stored: its messages (system prompts possibly by hash) and the sampling.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoredRequest {
    /// The messages in order.
    pub messages: Vec<StoredMessage>,
    /// The sampling settings, flattened into the record as in [`crate::llm::ChatRequest`].
    #[serde(flatten)]
    pub sampling: Sampling,
}

/// An exchange as stored on one line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ExchangeRecord {
    /// 0-based position among the file's exchanges; the reader requires 0, 1, 2, ... in order.
    pub seq: u64,
    /// The game timestep the request was made at.
    pub t: u32,
    /// What the request was for: "planner", "verificator", ...
    pub kind: String,
    /// sha256 of the canonical full request: the key replay serves replies by.
    pub request_hash: String,
    /// The request, system prompts after their first use stored by hash.
    pub request: StoredRequest,
    /// The reply (with attempts and faults) or the recorded error.
    pub outcome: Outcome,
    /// What the caller read from the reply (e.g. the plan), scrubbed of secret-named keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parsed: Option<Value>,
    /// Why the reply could not be read, if it could not; the reply text stays in `outcome`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parse_error: Option<String>,
    /// When it was written and how long it took (only when the writer records wall-clock values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall: Option<Wall>,
}

/// One game step; the payload is up to the runner (joint action, reward, skill events, belief, ...).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StepRecord {
    /// The game timestep.
    pub t: u32,
    /// The step's payload as the runner built it.
    pub data: Value,
}

/// The last record: the result (score, the `--json` metrics) and the record counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Footer {
    /// Exchange records in the file; the reader checks it.
    pub exchanges: u64,
    /// Step records in the file; the reader checks it.
    pub steps: u64,
    /// The run's result, as the runner built it (score, `--json` metrics).
    pub data: Value,
    /// When it was written and how long the run took (only when the writer records wall-clock values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wall: Option<Wall>,
}

/// One line of a transcript.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Record {
    /// The first record.
    Header(Header),
    /// One model exchange.
    Exchange(ExchangeRecord),
    /// One game step.
    Step(StepRecord),
    /// The last record, written when the run completes.
    Footer(Footer),
}

/// Why a transcript could not be written or read; every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    /// The file could not be created, written or read.
    #[error("{path}: {source}")]
    Io {
        /// The file (or the in-memory writer's name).
        path: String,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A line is malformed or breaks the format's rules (order, sequence, hashes, counts).
    #[error("{path}:{line}: {message}")]
    Bad {
        /// The file's path.
        path: String,
        /// 1-based line number of the first problem.
        line: usize,
        /// What is wrong with that line.
        message: String,
    },
    /// The file holds no header, or (when a complete transcript is required) no footer.
    #[error("{path}: {message}")]
    Incomplete {
        /// The file's path.
        path: String,
        /// What is missing.
        message: String,
    },
    /// The writer was misused (a record before the header or after the footer, a second header), or a record could not be serialised.
    #[error("transcript writer: {0}")]
    Usage(String),
}
