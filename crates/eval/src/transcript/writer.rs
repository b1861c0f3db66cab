//! The transcript writer: append-only, one record per line, each line flushed
//! as written; system prompts are stored in full once and by sha256 after.
//! Everything is scrubbed of secrets before it is hashed or written (see
//! [`super::scrub`]), so every stored hash is that of the stored text.

use super::schema::{
    ExchangeRecord, Footer, Header, Record, StepRecord, StoredMessage, StoredRequest, TranscriptError, Wall,
};
use super::scrub::{Scrubber, scrub_payload};
use proagent_llm::record::Exchange;
use proagent_llm::{Role, sha256_hex};
use serde_json::Value;
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How a writer behaves.
#[derive(Clone, Debug)]
pub struct WriterOptions {
    /// The secrets kept out of the file (see [`super::scrub`]).
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

    /// The file written, for a writer made by [`TranscriptWriter::create`].
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// How many exchange records were written.
    pub fn exchanges_written(&self) -> u64 {
        self.exchanges
    }

    /// How many step records were written.
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
        // Exchanges were scrubbed before they were hashed (write_exchange); the other
        // records' payloads are scrubbed here, field by field, so the count is exact.
        let scrubber = &self.opts.scrubber;
        scrub_payload(scrubber, &mut record);
        let line = serde_json::to_string(&record)
            .map_err(|e| TranscriptError::Usage(format!("{}: cannot serialise a record: {e}", self.name)))?;
        let mut line = match scrubber.scrub_counted(&line) {
            (clean, 0) => clean.into_owned(),
            (clean, n) => {
                // Only a secret that matches JSON escape sequences gets here; never writing
                // it matters more than this line's hashes.
                tracing::warn!(
                    "{}: {n} secret(s) found only in the serialised record; scrubbed as text, so its hashes may not verify",
                    self.name
                );
                clean.into_owned()
            }
        };
        line.push('\n');
        let io = |source| TranscriptError::Io { path: self.name.clone(), source };
        self.out.write_all(line.as_bytes()).map_err(io)?;
        self.out.flush().map_err(io)?;
        self.header_written = true;
        Ok(())
    }

    /// Writes the header (the first record), scrubbed, with the wall clock if enabled.
    pub fn write_header(&mut self, header: &Header) -> Result<(), TranscriptError> {
        let mut h = header.clone();
        h.wall = self.wall(None);
        self.write_record(Record::Header(h))
    }

    /// Writes an exchange and returns the sequence number it was given. The exchange is
    /// scrubbed first; its hashes are those of the scrubbed text.
    pub fn write_exchange(&mut self, ex: &Exchange) -> Result<u64, TranscriptError> {
        let seq = self.exchanges;
        let mut ex = ex.clone();
        ex.scrub(&self.opts.scrubber);
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
            request: StoredRequest {
                messages,
                sampling: ex.request.sampling.clone(),
                response_format: ex.request.response_format.clone().map(Box::new),
            },
            outcome: ex.outcome,
            parsed: ex.parsed,
            parse_error: ex.parse_error,
            scrubbed: ex.scrubbed,
            seat: ex.seat,
            wall: self.wall(ex.latency),
        };
        self.write_record(Record::Exchange(Box::new(record)))?;
        // Only once the full text is on disk may later records refer to it by hash.
        self.seen_system.extend(new_system);
        self.exchanges += 1;
        Ok(seq)
    }

    /// Writes one step record (its payload scrubbed).
    pub fn write_step(&mut self, t: u32, data: Value) -> Result<(), TranscriptError> {
        self.write_record(Record::Step(StepRecord { t, data, scrubbed: 0 }))?;
        self.steps += 1;
        Ok(())
    }

    /// Writes the footer (the last record) with the record counts.
    pub fn write_footer(&mut self, data: Value) -> Result<(), TranscriptError> {
        let elapsed = self.started.elapsed();
        let footer =
            Footer { exchanges: self.exchanges, steps: self.steps, data, scrubbed: 0, wall: self.wall(Some(elapsed)) };
        self.write_record(Record::Footer(footer))?;
        self.footer_written = true;
        Ok(())
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
