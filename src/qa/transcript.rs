//! The QA transcript: JSON Lines with a header (configuration, data and prompt hashes),
//! one record per exchange, and a footer with the report. `replay:FILE` serves the
//! recorded replies from it.

use super::data::{Category, Game};
use super::extract::Method;
use crate::llm::{ChatRequest, ChatResponse, Fault, LlmError, Sampling, Usage};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;

pub const KIND: &str = "coordination_qa";
pub const VERSION: u32 = 1;

/// The first line: everything needed to re-run or check the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    pub kind: String,
    pub version: u32,
    pub proagent_version: String,
    pub model: String,
    pub mode: super::extract::Mode,
    pub trials: u32,
    pub concurrency: usize,
    pub seed: u64,
    pub sampling: Sampling,
    pub filter: String,
    pub data_source: String,
    pub data_sha256: String,
    pub questions: usize,
    pub prompts_sha256: String,
    pub prompt_sources: Vec<(String, String)>,
}

/// Why a request produced no reply: the record the agent's transcripts use too
/// (older QA transcripts stored its `error` field as `kind`, which still reads).
pub type Failure = crate::llm::record::RecordedError;

/// One question asked once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    pub id: String,
    pub row: usize,
    pub category: Category,
    pub game: Game,
    pub trial: u32,
    pub request_hash: String,
    pub request: ChatRequest,
    /// The reply text (absent when the request failed).
    #[serde(default)]
    pub reply: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    #[serde(default)]
    pub usage: Usage,
    #[serde(default)]
    pub attempts: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<Fault>,
    #[serde(default)]
    pub failure: Option<Failure>,
    /// The letter read from the reply (absent: unmatched or failed).
    #[serde(default)]
    pub extracted: Option<char>,
    pub method: Method,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fuzzy_score: Option<f64>,
    pub correct: bool,
    pub latency_ms: f64,
}

impl Exchange {
    /// The reply as the model returned it, or its error.
    pub fn outcome(&self) -> Result<ChatResponse, LlmError> {
        match (&self.failure, &self.reply) {
            (Some(f), _) => Err(f.to_error()),
            (None, Some(text)) => Ok(ChatResponse {
                text: text.clone(),
                usage: self.usage,
                attempts: self.attempts.max(1),
                faults: self.faults.clone(),
                finish_reason: self.finish_reason.clone(),
            }),
            (None, None) => Err(LlmError::BadReply {
                reason: "recorded exchange has neither reply nor failure".into(),
                raw: String::new(),
                faults: Vec::new(),
            }),
        }
    }
}

/// One line of the transcript.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Line {
    Header(Box<Header>),
    Exchange(Box<Exchange>),
    Footer { report: serde_json::Value },
}

#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    #[error("{path}:{line}: {message}")]
    Parse { path: String, line: usize, message: String },
}

/// Writes transcript lines as they come, flushed one by one so an interrupted run keeps
/// what it did.
pub struct Writer {
    path: String,
    out: std::io::BufWriter<std::fs::File>,
}

impl Writer {
    pub fn create(path: &Path) -> Result<Writer, TranscriptError> {
        let io = |e: std::io::Error| TranscriptError::Io { path: path.display().to_string(), message: e.to_string() };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = std::fs::File::create(path).map_err(io)?;
        Ok(Writer { path: path.display().to_string(), out: std::io::BufWriter::new(file) })
    }

    pub fn write(&mut self, line: &Line) -> Result<(), TranscriptError> {
        let io = |e: std::io::Error| TranscriptError::Io { path: self.path.clone(), message: e.to_string() };
        let text = serde_json::to_string(line)
            .map_err(|e| TranscriptError::Io { path: self.path.clone(), message: e.to_string() })?;
        self.out.write_all(text.as_bytes()).map_err(io)?;
        self.out.write_all(b"\n").map_err(io)?;
        self.out.flush().map_err(io)
    }
}

/// A transcript read back.
#[derive(Clone, Debug)]
pub struct Transcript {
    pub header: Header,
    pub exchanges: Vec<Exchange>,
}

/// Reads a QA transcript; every exchange's stored hash is checked against its request.
pub fn read(path: &Path) -> Result<Transcript, TranscriptError> {
    let p = path.display().to_string();
    let text = crate::limits::read_file_text(path, crate::limits::MAX_TRANSCRIPT_BYTES, "transcripts")
        .map_err(|e| TranscriptError::Io { path: p.clone(), message: e.to_string() })?;
    let mut header = None;
    let mut exchanges = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let err = |message: String| TranscriptError::Parse { path: p.clone(), line: i + 1, message };
        let parsed: Line = serde_json::from_str(line).map_err(|e| err(e.to_string()))?;
        match parsed {
            Line::Header(h) => {
                if h.kind != KIND {
                    return Err(err(format!("transcript kind {:?}, expected {KIND:?}", h.kind)));
                }
                if h.version != VERSION {
                    return Err(err(format!("transcript version {}, this build reads {VERSION}", h.version)));
                }
                header = Some(*h);
            }
            Line::Exchange(x) => {
                if header.is_none() {
                    return Err(err("exchange before the header".into()));
                }
                let h = x.request.canonical_hash();
                if h != x.request_hash {
                    return Err(err(format!("request_hash {} does not match the request (hash {h})", x.request_hash)));
                }
                exchanges.push(*x);
            }
            Line::Footer { .. } => {}
        }
    }
    let header =
        header.ok_or_else(|| TranscriptError::Parse { path: p.clone(), line: 1, message: "no header line".into() })?;
    Ok(Transcript { header, exchanges })
}
