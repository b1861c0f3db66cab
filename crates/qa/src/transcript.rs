//! The QA transcript: JSON Lines with a header (configuration, data and prompt hashes),
//! one record per exchange, and a footer with the report. `replay:FILE` serves the
//! recorded replies from it.

use super::data::{Category, Game};
use super::extract::Method;
use proagent_llm::{ChatRequest, ChatResponse, Fault, LlmError, Sampling, Usage};
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;

/// The header's `kind`: a file of any other kind is refused.
pub const KIND: &str = "coordination_qa";
/// The format version this build writes and reads.
pub const VERSION: u32 = 1;

/// The first line: everything needed to re-run or check the run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Header {
    /// Always [`KIND`].
    pub kind: String,
    /// The format version ([`VERSION`]).
    pub version: u32,
    /// The version of proagent that wrote the file.
    pub proagent_version: String,
    /// The model's name as reported by the backend.
    pub model: String,
    /// The scorer used.
    pub mode: super::extract::Mode,
    /// Times each question was asked.
    pub trials: u32,
    /// Requests in flight at once.
    pub concurrency: usize,
    /// `--seed`, the seed of the built-in random models.
    pub seed: u64,
    /// Sampling sent with every request.
    pub sampling: Sampling,
    /// Whether the answers were asked for in a JSON schema (`--structured`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub structured: bool,
    /// The `--filter` text as given (empty: every question).
    pub filter: String,
    /// The benchmark file's path, or the embedded copy's name.
    pub data_source: String,
    /// sha256 (hex) of the benchmark file's bytes.
    pub data_sha256: String,
    /// Questions selected by the filter.
    pub questions: usize,
    /// sha256 over the four prompt templates' names and texts.
    pub prompts_sha256: String,
    /// Per template: its name and where it came from ("embedded" or a file path).
    pub prompt_sources: Vec<(String, String)>,
}

/// Why a request produced no reply: the record the agent's transcripts use too
/// (older QA transcripts stored its `error` field as `kind`, which still reads).
pub type Failure = proagent_llm::record::RecordedError;

/// One question asked once.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    /// The question's id, e.g. `50-EC`.
    pub id: String,
    /// The question's 0-based data row.
    pub row: usize,
    /// The question's category.
    pub category: Category,
    /// The question's game.
    pub game: Game,
    /// 0-based trial number; a question's trials are asked in this order.
    pub trial: u32,
    /// [`ChatRequest::canonical_hash`] of `request`, checked on read; replay looks replies up by it.
    pub request_hash: String,
    /// The request exactly as sent.
    pub request: ChatRequest,
    /// The reply text (absent when the request failed).
    #[serde(default)]
    pub reply: Option<String>,
    /// The finish reason the server reported, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_reason: Option<String>,
    /// The model's reasoning, kept apart from the reply and never scored
    /// ([`ChatResponse::reasoning`]); absent when the model sent none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
    /// Token counts of the reply (zero when the request failed).
    #[serde(default)]
    pub usage: Usage,
    /// Attempts the backend made; for a failure, the number of faults it recorded.
    #[serde(default)]
    pub attempts: u32,
    /// Faults of the failed attempts, on success or failure.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<Fault>,
    /// The request asked for a structured answer and the server refused it: the reply is
    /// free text ([`ChatResponse::text_fallback`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub text_fallback: bool,
    /// Why the request produced no reply (absent when it did).
    #[serde(default)]
    pub failure: Option<Failure>,
    /// The letter read from the reply (absent: unmatched or failed).
    #[serde(default)]
    pub extracted: Option<char>,
    /// Which rule found the letter.
    pub method: Method,
    /// Similarity of the fuzzy match, when one decided (0–1 by default, 0–100 in compat).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fuzzy_score: Option<f64>,
    /// Whether the extracted letter was scored correct under the run's mode.
    pub correct: bool,
    /// Wall-clock time of the request in milliseconds, retries included (not deterministic).
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
                reasoning: self.reasoning.clone(),
                text_fallback: self.text_fallback,
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
    /// The first line: the run's configuration.
    Header(Box<Header>),
    /// One question asked once.
    Exchange(Box<Exchange>),
    /// The last line of a completed run.
    Footer {
        /// The score report ([`crate::score::Report`] as JSON); not read back.
        report: serde_json::Value,
    },
}

/// A QA transcript that could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    /// The file could not be created, written or read.
    #[error("{path}: {message}")]
    Io {
        /// The transcript's path.
        path: String,
        /// The operating system's (or serialiser's) error.
        message: String,
    },
    /// A line is not a valid transcript line, or the lines are out of order.
    #[error("{path}:{line}: {message}")]
    Parse {
        /// The transcript's path.
        path: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong with that line.
        message: String,
    },
}

/// Writes transcript lines as they come, flushed one by one so an interrupted run keeps
/// what it did.
pub struct Writer {
    path: String,
    out: std::io::BufWriter<std::fs::File>,
}

impl Writer {
    /// Creates (truncating) the file and any missing parent folders.
    pub fn create(path: &Path) -> Result<Writer, TranscriptError> {
        let io = |e: std::io::Error| TranscriptError::Io { path: path.display().to_string(), message: e.to_string() };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = std::fs::File::create(path).map_err(io)?;
        Ok(Writer { path: path.display().to_string(), out: std::io::BufWriter::new(file) })
    }

    /// Appends one line and flushes it.
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
    /// The first line.
    pub header: Header,
    /// Every exchange, in file order (the footer is skipped).
    pub exchanges: Vec<Exchange>,
}

/// Reads a QA transcript; every exchange's stored hash is checked against its request.
pub fn read(path: &Path) -> Result<Transcript, TranscriptError> {
    let p = path.display().to_string();
    let text = proagent_core::limits::read_file_text(path, proagent_core::limits::MAX_TRANSCRIPT_BYTES, "transcripts")
        .map_err(|e| TranscriptError::Io { path: p.clone(), message: e.to_string() })?;
    parse(&text, &p)
}

/// Parses the text of a QA transcript (`source` names it in errors); every exchange's
/// stored hash is checked against its request. Total: any text is a transcript or an
/// error naming its line, in time linear in its length.
pub fn parse(text: &str, source: &str) -> Result<Transcript, TranscriptError> {
    let p = source.to_string();
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
