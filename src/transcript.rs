//! Transcripts: everything a run said to and heard from its language model, and
//! what happened in the game, as JSON Lines — one record per line, appended and
//! flushed as it happens, so a crashed run still leaves a readable prefix.
//!
//! Records carry a `"type"` tag: one `header` (format version, proagent version,
//! the run config and the sha256 of each prompt template), then `exchange` and
//! `step` records as they happen, then one `footer`. A system prompt is written
//! in full the first time it is used and by its sha256 afterwards; the reader
//! puts the full text back, so a transcript alone is enough to replay a run.
//!
//! Wall-clock values (start time, latencies) live only in a `"wall"` object at
//! the end of a record: everything else is a pure function of the run's
//! command and seed, and [`without_wall_clock`] removes them for comparisons.

use crate::llm::{ChatRequest, ChatResponse, Fault, LlmError, Message, Role, Sampling, sha256_hex};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The format this build writes; the reader accepts this version and older ones.
pub const FORMAT_VERSION: u32 = 1;

/// What replaces a secret in anything written.
pub const REDACTED: &str = "[REDACTED]";

/// Object keys whose values are always redacted, whatever they hold.
const SECRET_KEYS: &[&str] = &["api_key", "apikey", "openai_api_key", "authorization", "proxy-authorization"];

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

/// A request's failure, in a form that round-trips to the same [`LlmError`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecordedError {
    /// `unreachable`, `bad_reply`, `replay_miss` or `config`.
    pub error: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faults: Vec<Fault>,
}

/// What a request produced: a reply (with its attempts and faults) or an error.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Outcome {
    Reply(ChatResponse),
    Error(RecordedError),
}

impl Outcome {
    pub fn from_result(result: &Result<ChatResponse, LlmError>) -> Self {
        match result {
            Ok(r) => Outcome::Reply(r.clone()),
            Err(e) => {
                let (error, message, raw) = match e {
                    LlmError::Unreachable { .. } => ("unreachable", e.to_string(), None),
                    LlmError::BadReply { reason, raw, .. } => ("bad_reply", reason.clone(), Some(raw.clone())),
                    LlmError::ReplayMiss(m) => ("replay_miss", m.clone(), None),
                    LlmError::Config(m) => ("config", m.clone(), None),
                };
                Outcome::Error(RecordedError { error: error.into(), message, raw, faults: e.faults().to_vec() })
            }
        }
    }

    /// The result the model returned, exactly (replay serves this).
    pub fn to_result(&self) -> Result<ChatResponse, LlmError> {
        match self {
            Outcome::Reply(r) => Ok(r.clone()),
            Outcome::Error(e) => Err(match e.error.as_str() {
                "unreachable" => LlmError::Unreachable { faults: e.faults.clone() },
                "bad_reply" => LlmError::BadReply {
                    reason: e.message.clone(),
                    raw: e.raw.clone().unwrap_or_default(),
                    faults: e.faults.clone(),
                },
                "replay_miss" => LlmError::ReplayMiss(e.message.clone()),
                _ => LlmError::Config(e.message.clone()),
            }),
        }
    }

    /// Faults seen along the way, on success or failure.
    pub fn faults(&self) -> &[Fault] {
        match self {
            Outcome::Reply(r) => &r.faults,
            Outcome::Error(e) => &e.faults,
        }
    }

    pub fn is_reply(&self) -> bool {
        matches!(self, Outcome::Reply(_))
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
    pub request: ChatRequest,
    pub outcome: Outcome,
    /// What the caller made of the reply (e.g. the parsed skill), if it parsed.
    pub parsed: Option<Value>,
    /// Why the reply did not parse, if it did not; the reply text stays in `outcome`.
    pub parse_error: Option<String>,
    /// Wall-clock time of the exchange (not part of the deterministic content).
    pub latency: Option<Duration>,
}

impl Exchange {
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
        }
    }

    pub fn with_parsed(mut self, parsed: Value) -> Self {
        self.parsed = Some(parsed);
        self
    }

    pub fn with_parse_error(mut self, error: impl Into<String>) -> Self {
        self.parse_error = Some(error.into());
        self
    }

    pub fn request_hash(&self) -> String {
        self.request.canonical_hash()
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

/// Removes secrets from everything a writer writes: configured strings (API keys)
/// wherever they occur, `Bearer` tokens, and the values of keys such as `api_key`
/// or `authorization`.
#[derive(Clone, Default)]
pub struct Scrubber {
    secrets: Vec<String>,
}

impl std::fmt::Debug for Scrubber {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Scrubber({} secrets)", self.secrets.len())
    }
}

impl Scrubber {
    pub fn new() -> Self {
        Scrubber::default()
    }

    /// A scrubber that knows the values of `OPENAI_API_KEY` and any other `*_API_KEY`
    /// or `*_TOKEN` environment variable.
    pub fn from_env() -> Self {
        let mut s = Scrubber::new();
        for (name, value) in std::env::vars_os() {
            let name = name.to_string_lossy().to_ascii_uppercase();
            if name.ends_with("_API_KEY") || name.ends_with("_TOKEN") {
                if let Some(v) = value.to_str() {
                    s.add(v);
                }
            }
        }
        s
    }

    /// Adds a secret. Very short values are ignored: redacting every "abc" in
    /// prompts would destroy the transcript, and no real key is that short.
    pub fn add(&mut self, secret: &str) {
        let secret = secret.trim();
        if secret.chars().count() < 8 {
            return;
        }
        // Inside JSON text a secret with quotes or backslashes appears escaped.
        let escaped = serde_json::to_string(secret).map(|q| q[1..q.len() - 1].to_string()).unwrap_or_default();
        for form in [secret.to_string(), escaped] {
            if !form.is_empty() && !self.secrets.contains(&form) {
                self.secrets.push(form);
            }
        }
    }

    pub fn with(mut self, secret: &str) -> Self {
        self.add(secret);
        self
    }

    /// The text with every known secret and every bearer token replaced.
    pub fn scrub<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let mut out = Cow::Borrowed(text);
        for s in &self.secrets {
            if out.contains(s.as_str()) {
                out = Cow::Owned(out.replace(s.as_str(), REDACTED));
            }
        }
        if contains_ignore_case(&out, "bearer ") {
            out = Cow::Owned(redact_bearer(&out));
        }
        out
    }

    /// Scrubs every string of a JSON value, and blanks secret-named keys.
    pub fn scrub_value(&self, v: &mut Value) {
        match v {
            Value::String(s) => {
                if let Cow::Owned(clean) = self.scrub(s) {
                    *s = clean;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|i| self.scrub_value(i)),
            Value::Object(map) => {
                for (k, val) in map.iter_mut() {
                    if SECRET_KEYS.contains(&k.to_ascii_lowercase().as_str()) && !val.is_null() {
                        *val = Value::String(REDACTED.into());
                    } else {
                        self.scrub_value(val);
                    }
                }
            }
            _ => {}
        }
    }
}

fn contains_ignore_case(hay: &str, needle: &str) -> bool {
    hay.to_ascii_lowercase().contains(needle)
}

/// "Bearer sk-abc" → "Bearer [REDACTED]" (case-insensitive scheme).
fn redact_bearer(text: &str) -> String {
    let lower = text.to_ascii_lowercase();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while let Some(found) = lower[i..].find("bearer ") {
        let start = i + found + "bearer ".len();
        out.push_str(&text[i..start]);
        let token_len = text[start..]
            .find(|c: char| !(c.is_ascii_alphanumeric() || "-._~+/=".contains(c)))
            .unwrap_or(text.len() - start);
        if token_len > 0 {
            out.push_str(REDACTED);
        }
        i = start + token_len;
    }
    out.push_str(&text[i..]);
    out
}

/// How a writer behaves.
#[derive(Clone, Debug)]
pub struct WriterOptions {
    pub scrubber: Scrubber,
    /// Record start times and latencies (in `"wall"` objects). Off gives files that are
    /// byte-identical across runs of the same command and seed.
    pub wall_clock: bool,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions { scrubber: Scrubber::from_env(), wall_clock: true }
    }
}

/// Writes a transcript: append-only, one record per line, each line flushed as written.
pub struct TranscriptWriter {
    out: Box<dyn Write + Send>,
    name: String,
    path: Option<PathBuf>,
    opts: WriterOptions,
    seen_system: HashSet<String>,
    exchanges: u64,
    steps: u64,
    header_written: bool,
    footer_written: bool,
    started: Instant,
}

impl std::fmt::Debug for TranscriptWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranscriptWriter").field("name", &self.name).field("exchanges", &self.exchanges).finish()
    }
}

impl TranscriptWriter {
    /// Creates (or truncates) `path`, creating its parent directories.
    pub fn create(path: &Path, opts: WriterOptions) -> Result<Self, TranscriptError> {
        let io = |source| TranscriptError::Io { path: path.display().to_string(), source };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let file = std::fs::File::create(path).map_err(io)?;
        let mut w = TranscriptWriter::new(Box::new(file), path.display().to_string(), opts);
        w.path = Some(path.to_path_buf());
        Ok(w)
    }

    /// A writer into memory (for re-running a recorded episode and comparing);
    /// read the text back from the returned buffer at any time.
    pub fn in_memory(name: impl Into<String>, opts: WriterOptions) -> (Self, MemoryBuffer) {
        let buf = MemoryBuffer::default();
        (TranscriptWriter::new(Box::new(buf.clone()), name, opts), buf)
    }

    /// A writer over any sink.
    pub fn new(out: Box<dyn Write + Send>, name: impl Into<String>, opts: WriterOptions) -> Self {
        TranscriptWriter {
            out,
            name: name.into(),
            path: None,
            opts,
            seen_system: HashSet::new(),
            exchanges: 0,
            steps: 0,
            header_written: false,
            footer_written: false,
            started: Instant::now(),
        }
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    pub fn exchanges_written(&self) -> u64 {
        self.exchanges
    }

    pub fn steps_written(&self) -> u64 {
        self.steps
    }

    fn wall(&self, latency: Option<Duration>) -> Option<Wall> {
        self.opts.wall_clock.then(|| Wall {
            unix_ms: SystemTime::now().duration_since(UNIX_EPOCH).ok().map(|d| d.as_millis() as u64),
            latency_ms: latency.map(|d| d.as_millis() as u64),
        })
    }

    fn write_record(&mut self, mut record: Record) -> Result<(), TranscriptError> {
        if self.footer_written {
            return Err(TranscriptError::Usage(format!("{}: record written after the footer", self.name)));
        }
        let is_header = matches!(record, Record::Header(_));
        if is_header == self.header_written {
            let why = if is_header { "a second header" } else { "a record before the header" };
            return Err(TranscriptError::Usage(format!("{}: {why}", self.name)));
        }
        // Free-form payloads may hold secret-named keys; everything else is scrubbed as
        // text, which keeps the records' field order (a JSON Value would sort the keys).
        let scrubber = &self.opts.scrubber;
        match &mut record {
            Record::Header(h) => scrubber.scrub_value(&mut h.config),
            Record::Exchange(e) => {
                if let Some(p) = e.parsed.as_mut() {
                    scrubber.scrub_value(p);
                }
            }
            Record::Step(s) => scrubber.scrub_value(&mut s.data),
            Record::Footer(f) => scrubber.scrub_value(&mut f.data),
        }
        let line = serde_json::to_string(&record)
            .map_err(|e| TranscriptError::Usage(format!("{}: cannot serialise a record: {e}", self.name)))?;
        let mut line = scrubber.scrub(&line).into_owned();
        line.push('\n');
        let io = |source| TranscriptError::Io { path: self.name.clone(), source };
        self.out.write_all(line.as_bytes()).map_err(io)?;
        self.out.flush().map_err(io)?;
        self.header_written = true;
        Ok(())
    }

    pub fn write_header(&mut self, header: &Header) -> Result<(), TranscriptError> {
        let mut h = header.clone();
        h.wall = self.wall(None);
        self.write_record(Record::Header(h))
    }

    /// Writes an exchange and returns the sequence number it was given.
    pub fn write_exchange(&mut self, ex: &Exchange) -> Result<u64, TranscriptError> {
        let seq = self.exchanges;
        let mut new_system = Vec::new();
        let messages = ex
            .request
            .messages
            .iter()
            .map(|m| {
                if m.role != Role::System {
                    return StoredMessage { role: m.role, content: Some(m.content.clone()), sha256: None };
                }
                let hash = sha256_hex(m.content.as_bytes());
                if self.seen_system.contains(&hash) || new_system.contains(&hash) {
                    StoredMessage { role: m.role, content: None, sha256: Some(hash) }
                } else {
                    new_system.push(hash.clone());
                    StoredMessage { role: m.role, content: Some(m.content.clone()), sha256: Some(hash) }
                }
            })
            .collect();
        let record = ExchangeRecord {
            seq,
            t: ex.t,
            kind: ex.kind.clone(),
            request_hash: ex.request.canonical_hash(),
            request: StoredRequest { messages, sampling: ex.request.sampling.clone() },
            outcome: ex.outcome.clone(),
            parsed: ex.parsed.clone(),
            parse_error: ex.parse_error.clone(),
            wall: self.wall(ex.latency),
        };
        self.write_record(Record::Exchange(record))?;
        // Only once the full text is on disk may later records refer to it by hash.
        self.seen_system.extend(new_system);
        self.exchanges += 1;
        Ok(seq)
    }

    pub fn write_step(&mut self, t: u32, data: Value) -> Result<(), TranscriptError> {
        self.write_record(Record::Step(StepRecord { t, data }))?;
        self.steps += 1;
        Ok(())
    }

    pub fn write_footer(&mut self, data: Value) -> Result<(), TranscriptError> {
        let elapsed = self.started.elapsed();
        let footer = Footer { exchanges: self.exchanges, steps: self.steps, data, wall: self.wall(Some(elapsed)) };
        self.write_record(Record::Footer(footer))?;
        self.footer_written = true;
        Ok(())
    }
}

/// A parsed transcript.
#[derive(Clone, Debug)]
pub struct Transcript {
    /// The file it came from (for messages).
    pub source: String,
    pub header: Header,
    pub exchanges: Vec<Exchange>,
    pub steps: Vec<StepRecord>,
    pub footer: Option<Footer>,
    /// Number of lines read.
    pub lines: usize,
}

impl Transcript {
    pub fn read(path: &Path) -> Result<Self, TranscriptError> {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| TranscriptError::Io { path: name.clone(), source })?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
            TranscriptError::Bad { path: name.clone(), line, message: "not valid UTF-8".into() }
        })?;
        Transcript::parse(&text, &name)
    }

    /// Parses transcript text; `name` is used in error messages.
    pub fn parse(text: &str, name: &str) -> Result<Self, TranscriptError> {
        let bad = |line: usize, message: String| TranscriptError::Bad { path: name.to_string(), line, message };
        let mut header: Option<Header> = None;
        let mut exchanges = Vec::new();
        let mut steps = Vec::new();
        let mut footer: Option<(usize, Footer)> = None;
        let mut system_texts: HashMap<String, String> = HashMap::new();
        let ends_with_newline = text.ends_with('\n');
        let lines: Vec<&str> = text.lines().collect();
        let last_line = lines.len();
        for (idx, raw) in lines.iter().enumerate() {
            let n = idx + 1;
            if raw.trim().is_empty() {
                continue;
            }
            let record: Record = match serde_json::from_str(raw) {
                Ok(r) => r,
                Err(e) if n == last_line && !ends_with_newline && e.is_eof() => {
                    return Err(bad(n, format!("truncated record: the file ends in the middle of this line ({e})")));
                }
                Err(e) => return Err(bad(n, format!("malformed record: {e}"))),
            };
            if let Some((fl, _)) = &footer {
                return Err(bad(n, format!("record after the footer (line {fl})")));
            }
            match record {
                Record::Header(h) => {
                    if header.is_some() {
                        return Err(bad(n, "a second header".into()));
                    }
                    if n != 1 && exchanges.len() + steps.len() > 0 {
                        return Err(bad(n, "the header must be the first record".into()));
                    }
                    if h.format_version > FORMAT_VERSION || h.format_version == 0 {
                        return Err(bad(
                            n,
                            format!(
                                "transcript format version {} is not supported (this proagent reads 1..={FORMAT_VERSION})",
                                h.format_version
                            ),
                        ));
                    }
                    header = Some(h);
                }
                other if header.is_none() => {
                    let kind = match other {
                        Record::Exchange(_) => "an exchange",
                        Record::Step(_) => "a step",
                        _ => "a footer",
                    };
                    return Err(bad(n, format!("{kind} record before the header (is this a transcript?)")));
                }
                Record::Exchange(r) => {
                    if r.seq != exchanges.len() as u64 {
                        return Err(bad(n, format!("exchange seq {} where {} was expected", r.seq, exchanges.len())));
                    }
                    let mut messages = Vec::with_capacity(r.request.messages.len());
                    for (i, m) in r.request.messages.into_iter().enumerate() {
                        let content = match (m.content, m.sha256) {
                            (Some(c), Some(h)) => {
                                if sha256_hex(c.as_bytes()) != h {
                                    return Err(bad(n, format!("message {i}: content does not match its sha256")));
                                }
                                system_texts.insert(h, c.clone());
                                c
                            }
                            (Some(c), None) => c,
                            (None, Some(h)) => match system_texts.get(&h) {
                                Some(c) => c.clone(),
                                None => {
                                    return Err(bad(
                                        n,
                                        format!("message {i} refers to system prompt {h} that no earlier line holds"),
                                    ));
                                }
                            },
                            (None, None) => return Err(bad(n, format!("message {i} has neither content nor sha256"))),
                        };
                        messages.push(Message { role: m.role, content });
                    }
                    let request = ChatRequest { messages, sampling: r.request.sampling };
                    let hash = request.canonical_hash();
                    if hash != r.request_hash {
                        return Err(bad(
                            n,
                            format!(
                                "the request does not match its request_hash ({} recorded, {hash} computed)",
                                r.request_hash
                            ),
                        ));
                    }
                    exchanges.push(Exchange {
                        seq: r.seq,
                        t: r.t,
                        kind: r.kind,
                        request,
                        outcome: r.outcome,
                        parsed: r.parsed,
                        parse_error: r.parse_error,
                        latency: r.wall.and_then(|w| w.latency_ms).map(Duration::from_millis),
                    });
                }
                Record::Step(s) => steps.push(s),
                Record::Footer(f) => {
                    if f.exchanges != exchanges.len() as u64 || f.steps != steps.len() as u64 {
                        return Err(bad(
                            n,
                            format!(
                                "the footer counts {} exchanges and {} steps but the file holds {} and {}",
                                f.exchanges,
                                f.steps,
                                exchanges.len(),
                                steps.len()
                            ),
                        ));
                    }
                    footer = Some((n, f));
                }
            }
        }
        let Some(header) = header else {
            return Err(TranscriptError::Incomplete {
                path: name.to_string(),
                message: "empty transcript (no header record)".into(),
            });
        };
        Ok(Transcript {
            source: name.to_string(),
            header,
            exchanges,
            steps,
            footer: footer.map(|(_, f)| f),
            lines: last_line,
        })
    }

    /// The footer, or an error saying the run did not finish writing this transcript.
    pub fn require_complete(&self) -> Result<&Footer, TranscriptError> {
        self.footer.as_ref().ok_or_else(|| TranscriptError::Incomplete {
            path: self.source.clone(),
            message: format!(
                "no footer after line {} (the run was interrupted, or the file was cut short)",
                self.lines
            ),
        })
    }
}

/// A shared in-memory sink for [`TranscriptWriter::in_memory`].
#[derive(Clone, Debug, Default)]
pub struct MemoryBuffer(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl MemoryBuffer {
    /// Everything written so far.
    pub fn text(&self) -> String {
        let bytes = self.0.lock().unwrap_or_else(|p| p.into_inner());
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

impl Write for MemoryBuffer {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Where a re-run first departs from its recording, ignoring wall-clock fields:
/// prompt templates, then exchanges and steps in order, then the footer. `None`
/// when they agree.
pub fn first_divergence(recorded: &Transcript, rerun: &Transcript) -> Option<String> {
    for (name, hash) in &recorded.header.prompt_hashes {
        match rerun.header.prompt_hashes.get(name) {
            Some(h) if h == hash => {}
            Some(h) => return Some(format!("prompt template {name:?} changed (sha256 {hash} recorded, {h} now)")),
            None => return Some(format!("prompt template {name:?} is recorded but not used now")),
        }
    }
    if recorded.header.config != rerun.header.config {
        return Some(format!(
            "run config differs: {}",
            value_difference(&recorded.header.config, &rerun.header.config, "config")
        ));
    }
    for (a, b) in recorded.exchanges.iter().zip(&rerun.exchanges) {
        let at = format!("exchange #{} (t={}, {})", a.seq, a.t, a.kind);
        if (a.t, &a.kind) != (b.t, &b.kind) {
            return Some(format!("{at}: the re-run made exchange #{} at t={} ({}) instead", b.seq, b.t, b.kind));
        }
        if a.request != b.request {
            return Some(format!("{at}: {}", crate::llm::replay::first_difference(&a.request, &b.request)));
        }
        if a.outcome != b.outcome {
            let (x, y) = (serde_json::to_value(&a.outcome), serde_json::to_value(&b.outcome));
            let diff = match (x, y) {
                (Ok(x), Ok(y)) => value_difference(&x, &y, "outcome"),
                _ => "the outcome differs".into(),
            };
            return Some(format!("{at}: {diff}"));
        }
        if a.parsed != b.parsed || a.parse_error != b.parse_error {
            return Some(format!(
                "{at}: the reply was parsed differently: recorded {:?} / {:?}, now {:?} / {:?}",
                a.parsed, a.parse_error, b.parsed, b.parse_error
            ));
        }
    }
    if recorded.exchanges.len() != rerun.exchanges.len() {
        let n = recorded.exchanges.len().min(rerun.exchanges.len());
        let first_extra = recorded.exchanges.get(n).or(rerun.exchanges.get(n)).map(|e| e.t).unwrap_or(0);
        return Some(format!(
            "the recording has {} exchanges, the re-run {} (first unmatched at t={first_extra})",
            recorded.exchanges.len(),
            rerun.exchanges.len()
        ));
    }
    for (a, b) in recorded.steps.iter().zip(&rerun.steps) {
        if a.t != b.t || a.data != b.data {
            let diff = if a.t != b.t { format!("t={} now", b.t) } else { value_difference(&a.data, &b.data, "step") };
            return Some(format!("step t={}: {diff}", a.t));
        }
    }
    if recorded.steps.len() != rerun.steps.len() {
        return Some(format!("the recording has {} steps, the re-run {}", recorded.steps.len(), rerun.steps.len()));
    }
    match (&recorded.footer, &rerun.footer) {
        (Some(a), Some(b)) if a.data != b.data => {
            Some(format!("footer: {}", value_difference(&a.data, &b.data, "footer")))
        }
        (Some(_), None) => Some("the re-run wrote no footer".into()),
        (None, Some(_)) => Some("the recording has no footer".into()),
        _ => None,
    }
}

/// The path and values of the first difference between two JSON values.
pub fn value_difference(a: &Value, b: &Value, path: &str) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) if p == q => {}
                    (Some(p), Some(q)) => return value_difference(p, q, &format!("{path}.{k}")),
                    (Some(p), None) => return format!("{path}.{k}: recorded {}, missing now", short(p)),
                    (None, Some(q)) => return format!("{path}.{k}: not recorded, now {}", short(q)),
                    (None, None) => {}
                }
            }
            format!("{path}: equal")
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                if p != q {
                    return value_difference(p, q, &format!("{path}[{i}]"));
                }
            }
            if x.len() != y.len() {
                return format!("{path}: {} items recorded, {} now", x.len(), y.len());
            }
            format!("{path}: equal")
        }
        _ => format!("{path}: recorded {}, now {}", short(a), short(b)),
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 120 { format!("{}…", s.chars().take(120).collect::<String>()) } else { s }
}

/// The transcript text with every `"wall"` object removed, one canonical JSON
/// record per line: two runs of the same command and seed give equal results.
pub fn without_wall_clock(text: &str, name: &str) -> Result<String, TranscriptError> {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut v: Value = serde_json::from_str(line).map_err(|e| TranscriptError::Bad {
            path: name.to_string(),
            line: i + 1,
            message: format!("malformed record: {e}"),
        })?;
        if let Some(obj) = v.as_object_mut() {
            obj.remove("wall");
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    Ok(out)
}

/// The default transcript file for a run:
/// `<dir>/<layout>-<agent>-<partner>-seat<k>-seed<s>-<unix seconds>.jsonl`, with a
/// counter appended if that name is taken. Only the name depends on the clock.
pub fn default_path(dir: &Path, layout: &str, agent: &str, partner: &str, seat: usize, seed: u64) -> PathBuf {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let stem =
        format!("{}-{}-{}-seat{seat}-seed{seed}-{secs}", file_safe(layout), file_safe(agent), file_safe(partner));
    let mut path = dir.join(format!("{stem}.jsonl"));
    let mut n = 2;
    while path.exists() {
        path = dir.join(format!("{stem}-{n}.jsonl"));
        n += 1;
    }
    path
}

fn file_safe(s: &str) -> String {
    let cleaned: String =
        s.chars().map(|c| if c.is_ascii_alphanumeric() || "_.-".contains(c) { c } else { '_' }).collect();
    if cleaned.is_empty() { "x".into() } else { cleaned }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Usage;

    type Buf = MemoryBuffer;

    fn request(sys: &str, user: &str) -> ChatRequest {
        ChatRequest::new(vec![Message::system(sys), Message::user(user)], Sampling::default())
    }

    fn write_sample(wall_clock: bool, scrubber: Scrubber) -> String {
        let buf = Buf::default();
        let mut w = TranscriptWriter::new(Box::new(buf.clone()), "mem", WriterOptions { scrubber, wall_clock });
        let mut hashes = BTreeMap::new();
        hashes.insert("planner".to_string(), sha256_hex(b"template"));
        w.write_header(&Header::new(serde_json::json!({"layout": "cramped_room", "seed": 7}), hashes)).unwrap();
        let ok: Result<ChatResponse, LlmError> = Ok(ChatResponse::simple("Plan: a", Usage::default()));
        w.write_exchange(
            &Exchange::new(0, "plan", request("SYS", "state 0"), &ok, Duration::from_millis(12))
                .with_parsed(serde_json::json!({"skill": "pickup(onion)"})),
        )
        .unwrap();
        w.write_step(0, serde_json::json!({"joint_action": ["N", "S"], "reward": 0})).unwrap();
        let err: Result<ChatResponse, LlmError> = Err(LlmError::Unreachable {
            faults: vec![Fault { attempt: 1, kind: "status_500".into(), detail: "HTTP 500".into() }],
        });
        w.write_exchange(&Exchange::new(1, "plan", request("SYS", "state 1"), &err, Duration::from_millis(30)))
            .unwrap();
        let bad: Result<ChatResponse, LlmError> =
            Err(LlmError::BadReply { reason: "no content".into(), raw: "{}".into(), faults: vec![] });
        w.write_exchange(
            &Exchange::new(1, "verify", request("OTHER", "check"), &bad, Duration::ZERO).with_parse_error("nothing"),
        )
        .unwrap();
        w.write_step(1, serde_json::json!({"joint_action": ["E", "W"], "reward": 20})).unwrap();
        w.write_footer(serde_json::json!({"score": 20})).unwrap();
        buf.text()
    }

    #[test]
    fn roundtrip_with_system_prompt_dedup() {
        let text = write_sample(true, Scrubber::new());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 7);
        assert!(lines[0].starts_with(r#"{"type":"header","format_version":1,"#), "{}", lines[0]);
        assert!(lines[1].ends_with(r#""wall":{"unix_ms":"#) || lines[1].contains(r#","wall":{"unix_ms":"#));
        // First use: full text; second use: hash only.
        assert!(lines[1].contains(r#""content":"SYS""#));
        assert!(!lines[3].contains(r#""content":"SYS""#), "{}", lines[3]);
        assert!(lines[3].contains(&sha256_hex(b"SYS")));
        let t = Transcript::parse(&text, "mem").unwrap();
        assert_eq!(t.header.config["layout"], "cramped_room");
        assert_eq!(t.exchanges.len(), 3);
        assert_eq!(t.steps.len(), 2);
        assert_eq!(t.exchanges[1].request, request("SYS", "state 1"));
        assert_eq!(t.exchanges[1].seq, 1);
        assert_eq!(t.exchanges[0].latency, Some(Duration::from_millis(12)));
        assert_eq!(t.exchanges[0].parsed, Some(serde_json::json!({"skill": "pickup(onion)"})));
        assert!(
            matches!(t.exchanges[1].outcome.to_result(), Err(LlmError::Unreachable { faults }) if faults.len() == 1)
        );
        assert!(matches!(t.exchanges[2].outcome.to_result(), Err(LlmError::BadReply { raw, .. }) if raw == "{}"));
        assert_eq!(t.exchanges[2].parse_error.as_deref(), Some("nothing"));
        assert_eq!(t.require_complete().unwrap().data["score"], 20);
    }

    #[test]
    fn outcome_roundtrips_every_error() {
        let faults = vec![Fault { attempt: 1, kind: "timeout".into(), detail: "d".into() }];
        for e in [
            LlmError::Unreachable { faults: faults.clone() },
            LlmError::BadReply { reason: "r".into(), raw: "raw".into(), faults: faults.clone() },
            LlmError::ReplayMiss("m".into()),
            LlmError::Config("c".into()),
        ] {
            let r = Err(e.clone());
            let o = Outcome::from_result(&r);
            let back: Outcome = serde_json::from_str(&serde_json::to_string(&o).unwrap()).unwrap();
            assert_eq!(back.to_result(), r);
        }
    }

    #[test]
    fn same_run_same_bytes() {
        let a = write_sample(false, Scrubber::new());
        let b = write_sample(false, Scrubber::new());
        assert_eq!(a, b);
        assert!(!a.contains("wall"));
        let c = write_sample(true, Scrubber::new());
        assert_ne!(a, c);
        assert_eq!(without_wall_clock(&a, "a").unwrap(), without_wall_clock(&c, "c").unwrap());
    }

    #[test]
    fn torn_last_line_names_the_line() {
        let text = write_sample(true, Scrubber::new());
        let cut = &text[..text.len() - 25];
        let e = Transcript::parse(cut, "x.jsonl").unwrap_err().to_string();
        assert!(e.starts_with("x.jsonl:7: truncated record"), "{e}");
        // Cut exactly at a line end: parses, but is incomplete.
        let upto_step: String = text.lines().take(5).map(|l| format!("{l}\n")).collect();
        let t = Transcript::parse(&upto_step, "x.jsonl").unwrap();
        assert_eq!(t.exchanges.len(), 3);
        let e = t.require_complete().unwrap_err().to_string();
        assert!(e.contains("no footer after line 5"), "{e}");
    }

    #[test]
    fn malformed_records_name_the_line() {
        let text = write_sample(true, Scrubber::new());
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines[2] = "{not json".into();
        let e = Transcript::parse(&lines.join("\n"), "x").unwrap_err().to_string();
        assert!(e.starts_with("x:3: malformed record"), "{e}");

        let no_header: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
        let e = Transcript::parse(&no_header, "x").unwrap_err().to_string();
        assert!(e.contains("x:1: an exchange record before the header"), "{e}");

        // The later exchange refers to a system prompt whose full text was removed.
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines.remove(1);
        let e = Transcript::parse(&lines.join("\n"), "x").unwrap_err().to_string();
        assert!(e.contains("exchange seq 1 where 0 was expected"), "{e}");

        let edited = text.replace("state 1", "state 9");
        let e = Transcript::parse(&edited, "x").unwrap_err().to_string();
        assert!(e.contains("x:4: the request does not match its request_hash"), "{e}");

        let future = text.replacen(r#""format_version":1"#, r#""format_version":99"#, 1);
        let e = Transcript::parse(&future, "x").unwrap_err().to_string();
        assert!(e.contains("x:1: transcript format version 99 is not supported"), "{e}");

        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines.push(lines[2].clone());
        let e = Transcript::parse(&lines.join("\n"), "x").unwrap_err().to_string();
        assert!(e.contains("x:8: record after the footer"), "{e}");

        let e = Transcript::parse("", "x").unwrap_err().to_string();
        assert!(e.contains("no header"), "{e}");
    }

    #[test]
    fn unknown_system_hash_is_an_error() {
        let text = write_sample(false, Scrubber::new());
        let fake = sha256_hex(b"never seen");
        let edited = text.replacen(&sha256_hex(b"SYS"), &fake, 2);
        // The first occurrence now fails the content check.
        let e = Transcript::parse(&edited, "x").unwrap_err().to_string();
        assert!(e.contains("x:2: message 0: content does not match its sha256"), "{e}");
    }

    #[test]
    fn secrets_never_written() {
        let canary = "sk-canary-7f3a9c1e";
        let buf = Buf::default();
        let opts = WriterOptions { scrubber: Scrubber::new().with(canary), wall_clock: false };
        let mut w = TranscriptWriter::new(Box::new(buf.clone()), "mem", opts);
        let config = serde_json::json!({
            "model": "gpt", "api_key": "whatever-it-is", "note": format!("key={canary}"),
            "headers": {"Authorization": "Bearer abc.def-123"}, "log": "sent Authorization: Bearer xyz987"
        });
        w.write_header(&Header::new(config, BTreeMap::new())).unwrap();
        let err: Result<ChatResponse, LlmError> = Err(LlmError::BadReply {
            reason: "echo".into(),
            raw: format!("{{\"echo\":\"{canary}\"}}"),
            faults: vec![],
        });
        w.write_exchange(&Exchange::new(0, "plan", request("s", "u"), &err, Duration::ZERO)).unwrap();
        let text = buf.text();
        for leak in [canary, "whatever-it-is", "abc.def-123", "xyz987"] {
            assert!(!text.contains(leak), "{leak} leaked: {text}");
        }
        assert!(text.contains("Bearer [REDACTED]"));
        assert!(text.contains(r#""api_key":"[REDACTED]""#));
        assert_eq!(Scrubber::new().with("short").scrub("short"), "short", "short values are not secrets");
    }

    #[test]
    fn divergences_are_located() {
        let a = Transcript::parse(&write_sample(true, Scrubber::new()), "a").unwrap();
        let b = Transcript::parse(&write_sample(false, Scrubber::new()), "b").unwrap();
        assert_eq!(first_divergence(&a, &b), None, "wall-clock fields are ignored");
        let text = write_sample(false, Scrubber::new());
        let c = Transcript::parse(&text.replace(r#""reward":20"#, r#""reward":0"#), "c").unwrap();
        assert_eq!(first_divergence(&a, &c).unwrap(), "step t=1: step.reward: recorded 20, now 0");
        let mut d = b.clone();
        d.exchanges[0].outcome = Outcome::Reply(ChatResponse::simple("Plan: b", Usage::default()));
        let msg = first_divergence(&a, &d).unwrap();
        assert!(msg.starts_with("exchange #0 (t=0, plan): outcome.text: recorded \"Plan: a\""), "{msg}");
        let mut e = b.clone();
        e.exchanges[1].request.messages[1].content = "state 2".into();
        let msg = first_divergence(&a, &e).unwrap();
        assert!(msg.contains("exchange #1 (t=1, plan): message 1 (user) differs at character 6"), "{msg}");
        let mut f = b.clone();
        f.steps.pop();
        assert!(first_divergence(&a, &f).unwrap().contains("2 steps, the re-run 1"));
        let mut g = b.clone();
        g.header.prompt_hashes.insert("planner".into(), "0".repeat(64));
        assert!(first_divergence(&a, &g).unwrap().starts_with("prompt template \"planner\" changed"));
    }

    #[test]
    fn in_memory_writer_reads_back() {
        let (mut w, buf) =
            TranscriptWriter::in_memory("rerun", WriterOptions { scrubber: Scrubber::new(), wall_clock: false });
        w.write_header(&Header::new(Value::Null, BTreeMap::new())).unwrap();
        w.write_footer(serde_json::json!({"score": 0})).unwrap();
        let t = Transcript::parse(&buf.text(), "rerun").unwrap();
        assert_eq!(t.require_complete().unwrap().data["score"], 0);
    }

    #[test]
    fn writer_enforces_record_order() {
        let mut w = TranscriptWriter::new(Box::new(Buf::default()), "mem", WriterOptions::default());
        assert!(w.write_step(0, Value::Null).is_err());
        w.write_header(&Header::new(Value::Null, BTreeMap::new())).unwrap();
        assert!(w.write_header(&Header::new(Value::Null, BTreeMap::new())).is_err());
        w.write_footer(Value::Null).unwrap();
        assert!(w.write_step(0, Value::Null).is_err());
    }

    #[test]
    fn default_path_is_unique_and_safe() {
        let dir = tempfile::tempdir().unwrap();
        let p = default_path(dir.path(), "cramped_room", "proagent[gpt-4o]", "greedy", 0, 42);
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        assert!(name.starts_with("cramped_room-proagent_gpt-4o_-greedy-seat0-seed42-"), "{name}");
        std::fs::write(&p, "").unwrap();
        let q = default_path(dir.path(), "cramped_room", "proagent[gpt-4o]", "greedy", 0, 42);
        assert_ne!(p, q);
    }

    #[test]
    fn file_writer_creates_dirs_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/run.jsonl");
        let mut w = TranscriptWriter::create(&path, WriterOptions::default()).unwrap();
        w.write_header(&Header::new(serde_json::json!({"k": 1}), BTreeMap::new())).unwrap();
        // Flushed as written: readable before the writer is dropped.
        let t = Transcript::read(&path).unwrap();
        assert_eq!(t.header.config["k"], 1);
        assert!(t.footer.is_none());
        let e = Transcript::read(&dir.path().join("missing.jsonl")).unwrap_err().to_string();
        assert!(e.contains("missing.jsonl"), "{e}");
    }
}
