//! The results store: one JSON object per finished episode, appended to
//! `results.jsonl` (or `results.shard-<i>-of-<n>.jsonl`) and handed to the
//! kernel with one `write` per line, so a killed process loses nothing it had
//! reported finished; a writer thread fsyncs after each batch of lines that
//! arrived together (group commit), so an OS crash or power cut loses at most
//! the batch being written, and the fsync never blocks the episode runtime.
//!
//! Reading is strict in the middle and forgiving at the end: a malformed line
//! followed by more data is an error naming file and line; a final line without
//! its newline (or one that does not parse) is the mark of an interrupted
//! write — it is reported, ignored, and truncated away before new lines are
//! appended, and that episode is simply played again.
//!
//! Every line ends with its checksum, `"checksum":"sha256:<hex>"`: the sha256 of the
//! line's exact bytes without that field. Resuming and reporting verify it, so a line
//! edited or damaged after it was written is an error naming file and line, never a
//! result counted (delete the line and the episode is played again). Lines without the
//! field (written before records carried checksums, or with the field removed) still
//! load, marked unchecked ([`ResultSet::unchecked`]): they count as finished for a
//! resume, but [`ResultSet::for_means`] leaves them out of anything averaged unless the
//! caller asks for them.
//!
//! The checksum is unkeyed: it guards against accidents (a damaged disk block, a torn or
//! partial write, a tool that rewrites or reformats lines, a stray edit), not against a
//! user editing their own results on purpose — anyone can recompute a sha256.

use super::plan::EpisodeSpec;
use proagent_analysis::TeamworkTotals;
use proagent_core::limits::{MAX_HORIZON, MAX_RESULTS_BYTES, check_int, open_regular_with, read_file, read_limited};
use proagent_llm::sha256_hex;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread::JoinHandle;

/// The results file of an unsharded sweep.
pub const RESULTS_FILE: &str = "results.jsonl";

/// The results file a sweep writes in `dir`: shards write their own file, so
/// all shards of a job can share one output directory.
pub fn results_path(dir: &Path, shard: Option<super::plan::Shard>) -> PathBuf {
    match shard {
        Some(s) if s.count > 1 => dir.join(format!("results.shard-{}-of-{}.jsonl", s.index, s.count)),
        _ => dir.join(RESULTS_FILE),
    }
}

/// Every results file in a directory (`results*.jsonl`), sorted by name.
pub fn results_files_in(dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let rd = std::fs::read_dir(dir).map_err(|e| StoreError::io(dir, e))?;
    let mut out = Vec::new();
    for entry in rd {
        let entry = entry.map_err(|e| StoreError::io(dir, e))?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("results") && name.ends_with(".jsonl") {
            out.push(entry.path());
        }
    }
    out.sort();
    Ok(out)
}

/// What a runner reports about one episode; the scheduler adds the spec, key and wall time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EpisodeOutcome {
    /// Team score (sparse reward) of the episode, in the simulator's scale (20 per soup by default).
    pub score: f64,
    /// Soups served.
    pub deliveries: u32,
    /// Timesteps played.
    pub steps: u32,
    /// LLM requests of both seats together.
    pub llm_calls: u64,
    /// Of those, replies that named no usable action (both seats).
    pub parse_failures: u64,
    /// Prompt tokens of both seats together.
    pub prompt_tokens: u64,
    /// Completion tokens of both seats together.
    pub completion_tokens: u64,
    /// Of the completion tokens, reasoning tokens (as servers report them), both seats.
    pub reasoning_tokens: u64,
    /// Of the prompt tokens, those servers read from their prompt-prefix cache, both seats.
    pub cached_tokens: u64,
    /// Seconds spent waiting for LLM replies, summed over calls.
    pub llm_wall_s: f64,
    /// The `play --json` summary (agent metrics and the rest).
    pub metrics: serde_json::Value,
    /// The episode's headline teamwork counts, when they could be computed.
    pub teamwork: Option<TeamworkTotals>,
    /// The transcript actually written, if any.
    pub transcript: Option<PathBuf>,
    /// The longest run of steps in which the agent held an item and stood still (see
    /// [`crate::games::Playable::held_wait_max`]); `None` for games that do not measure it.
    pub held_wait_max: Option<u32>,
}

/// One finished episode, one line of a results file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EpisodeRecord {
    /// The layout's report name.
    pub layout: String,
    /// The evaluated agent's spec.
    pub agent: String,
    /// The partner's spec.
    pub partner: String,
    /// The seat the evaluated agent played (0 = player 0); the partner had the other one.
    pub seat: u8,
    /// Episode seed.
    pub seed: u64,
    /// Episode length in ticks.
    pub horizon: u32,
    /// Which episode runner played it (`play` for real episodes).
    pub runner: String,
    /// See [`super::plan::episode_runner_config`].
    #[serde(default)]
    pub runner_config: String,
    /// sha256 (hex) of the layout's source text.
    pub layout_sha256: String,
    /// The episode's key, [`EpisodeSpec::config_hash`]; unique within a result set.
    pub config_hash: String,
    /// Team score (sparse reward) of the episode.
    pub score: f64,
    /// Soups served.
    pub deliveries: u32,
    /// Timesteps played.
    pub steps: u32,
    /// LLM use of both seats together.
    pub llm_calls: u64,
    /// Of those, replies that named no usable action (both seats); `None` in records
    /// written before it was counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parse_failures: Option<u64>,
    /// Prompt tokens of both seats together.
    pub prompt_tokens: u64,
    /// Completion tokens of both seats together.
    pub completion_tokens: u64,
    /// Of the completion tokens, a reasoning model's reasoning tokens (both seats, as the
    /// servers report them); absent when zero, so records without any read as before.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
    /// Of the prompt tokens, those the servers read from their prompt-prefix cache (both
    /// seats, where reported); absent when zero.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cached_tokens: u64,
    /// Seconds spent waiting for LLM replies (summed over calls).
    pub llm_wall_s: f64,
    /// Wall time of the whole episode.
    pub episode_wall_s: f64,
    /// The episode summary of `play --json` (agent metrics etc.), as the runner reported it.
    #[serde(default)]
    pub metrics: serde_json::Value,
    /// The episode's headline teamwork counts (`None` when they could not be computed,
    /// e.g. for a runner that keeps no trajectory).
    #[serde(default)]
    pub teamwork: Option<TeamworkTotals>,
    /// The transcript file, relative to the output directory when inside it.
    #[serde(default)]
    pub transcript: Option<String>,
    /// The agent's full settings (see `EpisodeRunner::seat_settings`); `null` when the
    /// spec says it all.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub agent_settings: serde_json::Value,
    /// The partner's full settings, like `agent_settings`.
    #[serde(default, skip_serializing_if = "serde_json::Value::is_null")]
    pub partner_settings: serde_json::Value,
    /// The longest run of steps in which the agent held an item and stood still; `None`
    /// in records written before it was measured and for games that do not measure it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_wait_max: Option<u32>,
}

impl EpisodeRecord {
    /// The record of a finished episode: its spec and key, what the runner reported, and
    /// the transcript path as it should be stored (relative to the output directory).
    pub fn new(
        spec: &EpisodeSpec,
        config_hash: String,
        o: EpisodeOutcome,
        episode_wall_s: f64,
        transcript: Option<String>,
    ) -> EpisodeRecord {
        EpisodeRecord {
            layout: spec.layout.clone(),
            agent: spec.agent.clone(),
            partner: spec.partner.clone(),
            seat: spec.seat,
            seed: spec.seed,
            horizon: spec.horizon,
            runner: spec.runner.clone(),
            runner_config: spec.runner_config.clone(),
            layout_sha256: spec.layout_sha256.clone(),
            config_hash,
            score: o.score,
            deliveries: o.deliveries,
            steps: o.steps,
            llm_calls: o.llm_calls,
            parse_failures: Some(o.parse_failures),
            prompt_tokens: o.prompt_tokens,
            completion_tokens: o.completion_tokens,
            reasoning_tokens: o.reasoning_tokens,
            cached_tokens: o.cached_tokens,
            llm_wall_s: o.llm_wall_s,
            episode_wall_s,
            metrics: o.metrics,
            teamwork: o.teamwork,
            transcript,
            agent_settings: serde_json::Value::Null,
            partner_settings: serde_json::Value::Null,
            held_wait_max: o.held_wait_max,
        }
    }

    /// The spec this record claims to be the result of.
    pub fn spec(&self) -> EpisodeSpec {
        EpisodeSpec {
            runner: self.runner.clone(),
            runner_config: self.runner_config.clone(),
            layout: self.layout.clone(),
            layout_sha256: self.layout_sha256.clone(),
            agent: self.agent.clone(),
            partner: self.partner.clone(),
            seat: self.seat,
            seed: self.seed,
            horizon: self.horizon,
        }
    }

    /// The fields a re-run of a deterministic episode must reproduce. Wall times and
    /// free-form metrics are left out: they differ between identical runs.
    fn outcome_differs(&self, other: &EpisodeRecord) -> Option<String> {
        let pairs: [(&str, String, String); 6] = [
            ("score", self.score.to_string(), other.score.to_string()),
            ("deliveries", self.deliveries.to_string(), other.deliveries.to_string()),
            ("steps", self.steps.to_string(), other.steps.to_string()),
            ("llm_calls", self.llm_calls.to_string(), other.llm_calls.to_string()),
            ("prompt_tokens", self.prompt_tokens.to_string(), other.prompt_tokens.to_string()),
            ("completion_tokens", self.completion_tokens.to_string(), other.completion_tokens.to_string()),
        ];
        pairs.into_iter().find(|(_, a, b)| a != b).map(|(f, a, b)| format!("{f} {a} vs {b}"))
    }

    /// One line of a results file, newline included, ending with its checksum (see the
    /// module doc).
    pub fn to_line(&self) -> String {
        // A record holds only strings, numbers and JSON values, so this cannot fail.
        let body = serde_json::to_string(self).unwrap_or_default();
        let sum = sha256_hex(body.as_bytes());
        // The body is a non-empty JSON object: the checksum becomes its last field.
        let open = body.strip_suffix('}').unwrap_or(&body);
        format!("{open},\"{CHECKSUM_FIELD}\":\"{CHECKSUM_PREFIX}{sum}\"}}\n")
    }
}

/// The field of a results line that holds its checksum.
const CHECKSUM_FIELD: &str = "checksum";

/// What a checksum value starts with (the algorithm).
const CHECKSUM_PREFIX: &str = "sha256:";

/// Verifies the checksum of a results line whose top-level object has a `checksum`
/// field: the line must end with that field, and the sha256 of the line without it
/// must be the one it names.
/// Serde's test for counts left out of records when zero.
fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn verify_checksum(text: &[u8], claimed: &serde_json::Value) -> Result<(), BadLine> {
    let edited = "the line was edited or damaged after it was written; delete it and the episode is played again";
    let Some(claimed) = claimed.as_str() else {
        return Err(BadLine::Data(format!("its {CHECKSUM_FIELD} is not a string: {edited}")));
    };
    let text = text.trim_ascii_end();
    let suffix = format!(",\"{CHECKSUM_FIELD}\":{}}}", serde_json::Value::from(claimed));
    let Some(open) = text.strip_suffix(suffix.as_bytes()) else {
        return Err(BadLine::Data(format!("its {CHECKSUM_FIELD} is not the last field as written: {edited}")));
    };
    let mut body = open.to_vec();
    body.push(b'}');
    let actual = format!("{CHECKSUM_PREFIX}{}", sha256_hex(&body));
    if actual != claimed {
        return Err(BadLine::Data(format!(
            "checksum mismatch (recorded {claimed}, the line hashes to {actual}): {edited}"
        )));
    }
    Ok(())
}

/// Why results could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Reading, writing, locking or syncing a results file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A results line that is not a record, with more data after it (so not a torn write).
    #[error("{path}:{line}: malformed result record: {message}\n  the line: {excerpt}")]
    Malformed {
        /// The results file.
        path: String,
        /// 1-based line of the bad record.
        line: usize,
        /// What is wrong with it.
        message: String,
        /// The line itself, trimmed and cut to 160 characters.
        excerpt: String,
    },
    #[error(
        "conflicting results for episode {config_hash} ({what}): {first} and {second} disagree on {difference}; \
         keep one of the two lines and delete the other"
    )]
    /// Two records with the same key but different outcomes (score, deliveries, steps, LLM counts).
    Conflict {
        /// The shared key.
        config_hash: String,
        /// The episode in words: layout, agent vs partner, seat and seed.
        what: String,
        /// `path:line` of the record read first.
        first: String,
        /// `path:line` of the conflicting record.
        second: String,
        /// The first field that differs, with both values.
        difference: String,
    },
    /// Another `proagent eval` holds the results file's lock.
    #[error("{path} is in use by another running `proagent eval` (file lock held)")]
    Locked {
        /// The results file.
        path: String,
    },
}

impl StoreError {
    fn io(path: &Path, source: std::io::Error) -> Self {
        StoreError::Io { path: path.display().to_string(), source }
    }
}

/// A final line cut short by an interrupted write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TornTail {
    /// The results file.
    pub path: PathBuf,
    /// 1-based line number.
    pub line: usize,
    /// Byte offset where the torn line starts (the file is truncated here).
    pub offset: u64,
    /// Length of the torn line in bytes.
    pub bytes: usize,
}

impl std::fmt::Display for TornTail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: last line is incomplete ({} bytes, an interrupted write); it is ignored and that episode will be played again",
            self.path.display(),
            self.line,
            self.bytes
        )
    }
}

/// Where a record came from, for error messages.
#[derive(Clone, Debug)]
struct Source {
    path: PathBuf,
    line: usize,
}

/// Records keyed by `config_hash`: identical duplicates count once, conflicting ones are an error.
#[derive(Default, Debug)]
pub struct ResultSet {
    records: Vec<EpisodeRecord>,
    sources: Vec<Source>,
    index: HashMap<String, usize>,
    /// Per record: whether a line carrying it had a checksum (verified).
    checked: Vec<bool>,
    /// Identical duplicate lines that were skipped.
    pub duplicates: usize,
}

/// How many records without a checksum a selection for means left out or let in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct UncheckedCount {
    /// Records without a checksum left out of the means.
    pub excluded: usize,
    /// Records without a checksum counted in the means (the caller asked for them).
    pub included: usize,
}

impl ResultSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of distinct records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// True when the set holds no record.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Whether an episode with this key has a record.
    pub fn contains(&self, config_hash: &str) -> bool {
        self.index.contains_key(config_hash)
    }

    /// The records in the order they were first read.
    pub fn records(&self) -> &[EpisodeRecord] {
        &self.records
    }

    /// The records, consuming the set.
    pub fn into_records(self) -> Vec<EpisodeRecord> {
        self.records
    }

    /// Distinct records none of whose lines carried a checksum (written before records
    /// had one, or with the field removed): loaded unverified.
    pub fn unchecked(&self) -> usize {
        self.checked.iter().filter(|c| !**c).count()
    }

    /// Whether the record `i` (in [`ResultSet::records`] order) was read from a line with
    /// a verified checksum.
    pub fn is_checked(&self, i: usize) -> bool {
        self.checked.get(i).copied().unwrap_or(false)
    }

    /// The records to average, of those `keep` selects: every record with a verified
    /// checksum, and the unchecked ones only when `include_unchecked`; with how many
    /// unchecked records were left out or let in.
    pub fn for_means(
        &self,
        include_unchecked: bool,
        keep: impl Fn(&EpisodeRecord) -> bool,
    ) -> (Vec<EpisodeRecord>, UncheckedCount) {
        let mut count = UncheckedCount::default();
        let mut out = Vec::new();
        for (rec, &checked) in self.records.iter().zip(&self.checked) {
            if !keep(rec) {
                continue;
            }
            if !checked {
                if !include_unchecked {
                    count.excluded += 1;
                    continue;
                }
                count.included += 1;
            }
            out.push(rec.clone());
        }
        (out, count)
    }

    /// Adds a record; returns whether it was new. A record read again from a line with a
    /// checksum becomes checked.
    fn insert(&mut self, rec: EpisodeRecord, src: Source, checked: bool) -> Result<bool, StoreError> {
        if let Some(&i) = self.index.get(&rec.config_hash) {
            if let Some(difference) = self.records[i].outcome_differs(&rec) {
                let first = &self.sources[i];
                return Err(StoreError::Conflict {
                    config_hash: rec.config_hash.clone(),
                    what: format!(
                        "{} {} vs {} seat {} seed {}",
                        rec.layout, rec.agent, rec.partner, rec.seat, rec.seed
                    ),
                    first: format!("{}:{}", first.path.display(), first.line),
                    second: format!("{}:{}", src.path.display(), src.line),
                    difference,
                });
            }
            self.duplicates += 1;
            self.checked[i] |= checked;
            return Ok(false);
        }
        self.index.insert(rec.config_hash.clone(), self.records.len());
        self.records.push(rec);
        self.sources.push(src);
        self.checked.push(checked);
        Ok(true)
    }

    /// Reads one results file into the set. A torn last line is returned, not an error.
    pub fn load_file(&mut self, path: &Path) -> Result<Option<TornTail>, StoreError> {
        let bytes = read_file(path, MAX_RESULTS_BYTES, "results files").map_err(|e| StoreError::io(path, e))?;
        self.load_bytes(path, &bytes)
    }

    /// Reads the bytes of a results file (already in memory) into the set, exactly as
    /// [`ResultSet::load_file`] does; `path` names it in errors and torn tails.
    pub fn load_bytes(&mut self, path: &Path, bytes: &[u8]) -> Result<Option<TornTail>, StoreError> {
        let lines = split_lines(bytes);
        let last_with_data = lines.iter().rposition(|l| !is_blank(l.text));
        for (k, l) in lines.iter().enumerate() {
            if is_blank(l.text) {
                if !l.complete {
                    // Trailing bytes of pure whitespace: harmless, but still cut before appending.
                    return Ok(Some(TornTail {
                        path: path.to_path_buf(),
                        line: l.number,
                        offset: l.offset,
                        bytes: l.text.len(),
                    }));
                }
                continue;
            }
            let is_last = Some(k) == last_with_data;
            match parse_record(l.text) {
                Ok((rec, checked)) if l.complete => {
                    self.insert(rec, Source { path: path.to_path_buf(), line: l.number }, checked)?;
                }
                // The last line is torn when its newline is missing (even if the JSON happens
                // to be whole: the write that would have finished it never completed) or when
                // it is cut-off/garbage JSON, as a crash of the machine can leave behind.
                // A well-formed record with wrong content is an error wherever it is.
                Ok(_) | Err(BadLine::Syntax(_)) if is_last => {
                    return Ok(Some(TornTail {
                        path: path.to_path_buf(),
                        line: l.number,
                        offset: l.offset,
                        bytes: l.text.len() + usize::from(l.complete),
                    }));
                }
                Ok(_) => {
                    // Only the final segment of a file can lack its newline, and it is the last line.
                    return Ok(None);
                }
                Err(BadLine::Syntax(message) | BadLine::Data(message)) => {
                    return Err(StoreError::Malformed {
                        path: path.display().to_string(),
                        line: l.number,
                        message,
                        excerpt: excerpt(l.text),
                    });
                }
            }
        }
        Ok(None)
    }
}

struct Line<'a> {
    number: usize,
    offset: u64,
    text: &'a [u8],
    complete: bool,
}

fn split_lines(bytes: &[u8]) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    let mut start = 0usize;
    let mut number = 1;
    while start < bytes.len() {
        match bytes[start..].iter().position(|&b| b == b'\n') {
            Some(p) => {
                out.push(Line { number, offset: start as u64, text: &bytes[start..start + p], complete: true });
                start += p + 1;
            }
            None => {
                out.push(Line { number, offset: start as u64, text: &bytes[start..], complete: false });
                start = bytes.len();
            }
        }
        number += 1;
    }
    out
}

fn is_blank(text: &[u8]) -> bool {
    text.iter().all(|b| b.is_ascii_whitespace())
}

fn excerpt(text: &[u8]) -> String {
    let s = String::from_utf8_lossy(text);
    let s = s.trim();
    if s.chars().count() > 160 { format!("{}…", s.chars().take(160).collect::<String>()) } else { s.to_string() }
}

enum BadLine {
    /// Not JSON at all, or cut off.
    Syntax(String),
    /// JSON, but not a valid record.
    Data(String),
}

/// A record and whether it carried a checksum (verified).
fn parse_record(text: &[u8]) -> Result<(EpisodeRecord, bool), BadLine> {
    let value: serde_json::Value = serde_json::from_slice(text).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => BadLine::Data(e.to_string()),
        _ => BadLine::Syntax(e.to_string()),
    })?;
    let claimed = value.get(CHECKSUM_FIELD);
    if let Some(claimed) = claimed {
        verify_checksum(text, claimed)?;
    }
    let checked = claimed.is_some();
    let mut rec = EpisodeRecord::deserialize(value).map_err(|e| BadLine::Data(e.to_string()))?;
    if rec.teamwork.is_none() {
        // Results written before records had a typed `teamwork` field kept it only
        // inside the summary; read it from there once, with the same type.
        rec.teamwork = rec.metrics.get("teamwork").and_then(|t| TeamworkTotals::deserialize(t).ok());
    }
    if rec.seat > 1 {
        return Err(BadLine::Data(format!("seat must be 0 or 1, got {}", rec.seat)));
    }
    check_int("horizon", rec.horizon, 1, MAX_HORIZON).map_err(|e| BadLine::Data(e.to_string()))?;
    if !rec.score.is_finite() {
        return Err(BadLine::Data("score is not a finite number".into()));
    }
    let expected = rec.spec().config_hash();
    if rec.config_hash != expected {
        return Err(BadLine::Data(format!(
            "config_hash {} does not match the record's layout/agent/partner/seat/seed/horizon (expected {expected})",
            rec.config_hash
        )));
    }
    Ok((rec, checked))
}

/// Reads several results files (or directories of them) into one deduplicated set.
/// Torn last lines are returned so the caller can report them.
pub fn load_all(paths: &[PathBuf]) -> Result<(ResultSet, Vec<TornTail>), StoreError> {
    let mut set = ResultSet::new();
    let mut torn = Vec::new();
    for p in paths {
        let files = if p.is_dir() { results_files_in(p)? } else { vec![p.clone()] };
        for f in files {
            if let Some(t) = set.load_file(&f)? {
                torn.push(t);
            }
        }
    }
    Ok((set, torn))
}

/// How long [`ResultWriter::open`] waits for a results file's lock before reporting
/// [`StoreError::Locked`].
const LOCK_PATIENCE: std::time::Duration = std::time::Duration::from_secs(2);

/// How often [`ResultWriter::open`] retries a held lock.
const LOCK_POLL: std::time::Duration = std::time::Duration::from_millis(20);

/// The append side of one results file, held under an exclusive file lock.
pub struct ResultWriter {
    file: File,
    path: PathBuf,
}

impl ResultWriter {
    /// Opens (creating) a results file for appending, takes its lock, and cuts off a
    /// torn last line so the next record starts on a fresh line. The file is then
    /// re-read by the caller like any other.
    pub fn open(path: &Path) -> Result<(ResultWriter, Option<TornTail>), StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| StoreError::io(dir, e))?;
        }
        // A results file that exists must be a regular file: a FIFO would block the read
        // below for ever (this process holds both ends), a device would be read as a stream.
        let mut file = open_regular_with(OpenOptions::new().read(true).append(true).create(true), path)
            .map_err(|e| StoreError::io(path, e))?;
        // A lock can be held for an instant by a child process forked elsewhere in this
        // process (it shares the open file until it execs); only a lock that outlasts a
        // short wait is another sweep writing this file.
        let mut waited = std::time::Duration::ZERO;
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if waited < LOCK_PATIENCE => {
                    std::thread::sleep(LOCK_POLL);
                    waited += LOCK_POLL;
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    return Err(StoreError::Locked { path: path.display().to_string() });
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(StoreError::io(path, e)),
            }
        }
        let bytes = read_limited(&mut file, MAX_RESULTS_BYTES, "results files").map_err(|e| StoreError::io(path, e))?;
        // Parse to find a torn tail; malformed middle lines fail here, before anything is written.
        let torn = ResultSet::new().load_bytes(path, &bytes)?;
        if let Some(t) = &torn {
            file.set_len(t.offset).map_err(|e| StoreError::io(path, e))?;
            file.sync_all().map_err(|e| StoreError::io(path, e))?;
        }
        Ok((ResultWriter { file, path: path.to_path_buf() }, torn))
    }

    /// The results file this writer appends to.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record with a single write of the whole line.
    pub fn append(&mut self, rec: &EpisodeRecord) -> Result<(), StoreError> {
        self.file.write_all(rec.to_line().as_bytes()).map_err(|e| StoreError::io(&self.path, e))
    }

    /// Forces the appended lines to stable storage.
    pub fn sync(&mut self) -> Result<(), StoreError> {
        self.file.sync_data().map_err(|e| StoreError::io(&self.path, e))
    }

    /// Moves the writer to its own thread (see the module docs for the flush policy).
    pub fn spawn(self) -> WriterHandle {
        let (tx, rx) = mpsc::channel::<EpisodeRecord>();
        let thread =
            std::thread::Builder::new().name("eval-results-writer".into()).spawn(move || writer_loop(self, rx));
        match thread {
            Ok(t) => WriterHandle { tx: Some(tx), thread: Some(t), spawn_error: None },
            Err(e) => WriterHandle { tx: None, thread: None, spawn_error: Some(e) },
        }
    }
}

/// Counts of what the writer did.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Records appended.
    pub records: usize,
    /// fsyncs issued (one per batch of records that arrived together).
    pub fsyncs: usize,
}

fn writer_loop(mut w: ResultWriter, rx: mpsc::Receiver<EpisodeRecord>) -> Result<WriteStats, StoreError> {
    let mut stats = WriteStats::default();
    while let Ok(rec) = rx.recv() {
        w.append(&rec)?;
        stats.records += 1;
        while let Ok(rec) = rx.try_recv() {
            w.append(&rec)?;
            stats.records += 1;
        }
        w.sync()?;
        stats.fsyncs += 1;
    }
    Ok(stats)
}

/// The sending side of a writer thread. Sending never blocks.
pub struct WriterHandle {
    tx: Option<mpsc::Sender<EpisodeRecord>>,
    thread: Option<JoinHandle<Result<WriteStats, StoreError>>>,
    spawn_error: Option<std::io::Error>,
}

impl WriterHandle {
    /// Queues a record; `false` if the writer has stopped (its error comes from [`WriterHandle::finish`]).
    pub fn send(&self, rec: EpisodeRecord) -> bool {
        self.tx.as_ref().is_some_and(|tx| tx.send(rec).is_ok())
    }

    /// Waits until every queued record is written and synced.
    pub fn finish(mut self) -> Result<WriteStats, StoreError> {
        self.tx = None;
        if let Some(e) = self.spawn_error.take() {
            return Err(StoreError::Io { path: "results writer thread".into(), source: e });
        }
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(StoreError::Io {
                path: "results writer thread".into(),
                source: std::io::Error::other("the writer thread panicked"),
            }),
            None => Ok(WriteStats::default()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn record(agent: &str, partner: &str, seat: u8, seed: u64, score: f64) -> EpisodeRecord {
        let spec = EpisodeSpec {
            runner: "fake".into(),
            runner_config: String::new(),
            layout: "cramped_room".into(),
            layout_sha256: "ab".into(),
            agent: agent.into(),
            partner: partner.into(),
            seat,
            seed,
            horizon: 400,
        };
        let outcome = crate::sweep::store::EpisodeOutcome {
            score,
            deliveries: (score / 20.0) as u32,
            steps: 400,
            llm_calls: 3,
            parse_failures: 0,
            prompt_tokens: 100,
            reasoning_tokens: 0,
            cached_tokens: 0,
            completion_tokens: 10,
            llm_wall_s: 0.5,
            metrics: serde_json::json!({"x": 1}),
            teamwork: None,
            transcript: None,
            held_wait_max: None,
        };
        EpisodeRecord::new(&spec, spec.config_hash(), outcome, 1.0, None)
    }

    #[test]
    fn append_then_read_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RESULTS_FILE);
        let (w, torn) = ResultWriter::open(&path).unwrap();
        assert!(torn.is_none());
        let h = w.spawn();
        let recs: Vec<_> = (0..5).map(|i| record("a", "b", 0, i, 20.0 * i as f64)).collect();
        for r in &recs {
            assert!(h.send(r.clone()));
        }
        let stats = h.finish().unwrap();
        assert_eq!(stats.records, 5);
        assert!(stats.fsyncs >= 1 && stats.fsyncs <= 5);
        let (set, torn) = load_all(std::slice::from_ref(&path)).unwrap();
        assert!(torn.is_empty());
        assert_eq!(set.records(), &recs[..]);
    }

    #[test]
    fn torn_last_line_is_reported_and_truncated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RESULTS_FILE);
        let good = record("a", "b", 0, 1, 40.0).to_line();
        let torn_line = &record("a", "b", 0, 2, 60.0).to_line()[..50];
        std::fs::write(&path, format!("{good}{torn_line}")).unwrap();
        // Read-only loading ignores it.
        let (set, torn) = load_all(std::slice::from_ref(&path)).unwrap();
        assert_eq!(set.len(), 1);
        assert_eq!(torn.len(), 1);
        assert_eq!(torn[0].line, 2);
        assert!(torn[0].to_string().contains("results.jsonl:2: last line is incomplete"), "{}", torn[0]);
        // Opening for append cuts it off.
        let (mut w, torn) = ResultWriter::open(&path).unwrap();
        assert_eq!(torn.unwrap().offset, good.len() as u64);
        w.append(&record("a", "b", 0, 2, 60.0)).unwrap();
        drop(w);
        let (set, torn) = load_all(std::slice::from_ref(&path)).unwrap();
        assert!(torn.is_empty());
        assert_eq!(set.len(), 2);
    }

    #[test]
    fn a_complete_record_without_newline_is_still_torn() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RESULTS_FILE);
        let line = record("a", "b", 0, 1, 40.0).to_line();
        std::fs::write(&path, line.trim_end()).unwrap();
        let (set, torn) = load_all(std::slice::from_ref(&path)).unwrap();
        assert_eq!(set.len(), 0);
        assert_eq!(torn[0].offset, 0);
    }

    #[test]
    fn malformed_middle_line_names_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RESULTS_FILE);
        let a = record("a", "b", 0, 1, 40.0).to_line();
        let c = record("a", "b", 0, 3, 40.0).to_line();
        std::fs::write(&path, format!("{a}\n{{\"layout\": \"x\", oops}}\n{c}")).unwrap();
        let e = load_all(std::slice::from_ref(&path)).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("results.jsonl:3: malformed result record"), "{msg}");
        assert!(msg.contains("oops"), "{msg}");
        // The writer refuses too, before writing anything.
        assert!(matches!(ResultWriter::open(&path), Err(StoreError::Malformed { line: 3, .. })));
    }

    #[test]
    fn a_well_formed_but_invalid_last_line_is_an_error_not_a_torn_write() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RESULTS_FILE);
        let ok = record("a", "b", 0, 5, 40.0).to_line();
        std::fs::write(&path, format!("{ok}{{\"layout\": \"cramped_room\"}}\n")).unwrap();
        let msg = load_all(std::slice::from_ref(&path)).unwrap_err().to_string();
        assert!(msg.contains("results.jsonl:2: malformed result record: missing field"), "{msg}");
    }

    #[test]
    fn a_record_whose_hash_does_not_match_is_malformed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RESULTS_FILE);
        let mut r = record("a", "b", 0, 1, 40.0);
        r.seed = 2;
        let ok = record("a", "b", 0, 5, 40.0).to_line();
        std::fs::write(&path, format!("{}{ok}", r.to_line())).unwrap();
        let msg = load_all(std::slice::from_ref(&path)).unwrap_err().to_string();
        assert!(msg.contains(":1: malformed") && msg.contains("does not match"), "{msg}");
    }

    #[test]
    fn identical_duplicates_count_once_conflicts_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let p1 = dir.path().join("results.shard-0-of-2.jsonl");
        let p2 = dir.path().join("results.shard-1-of-2.jsonl");
        let a = record("a", "b", 0, 1, 40.0);
        let mut a_again = a.clone();
        a_again.episode_wall_s = 9.0; // timing differs between runs; not a conflict
        std::fs::write(&p1, a.to_line() + &record("a", "b", 1, 1, 0.0).to_line()).unwrap();
        std::fs::write(&p2, a_again.to_line()).unwrap();
        let (set, _) = load_all(&[dir.path().to_path_buf()]).unwrap();
        assert_eq!(set.len(), 2);
        assert_eq!(set.duplicates, 1);
        let mut bad = a.clone();
        bad.score = 60.0;
        std::fs::write(&p2, bad.to_line()).unwrap();
        let msg = load_all(&[dir.path().to_path_buf()]).unwrap_err().to_string();
        assert!(msg.contains("conflicting results") && msg.contains("score 40 vs 60"), "{msg}");
        assert!(msg.contains("results.shard-0-of-2.jsonl:1") && msg.contains("results.shard-1-of-2.jsonl:1"), "{msg}");
    }

    #[test]
    fn every_line_carries_a_checksum_that_reading_verifies() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RESULTS_FILE);
        let (a, b, c) = (record("a", "b", 0, 1, 40.0), record("a", "b", 0, 2, 60.0), record("a", "b", 0, 3, 0.0));
        let line = a.to_line();
        assert!(line.contains(r#","checksum":"sha256:"#) && line.ends_with("\"}\n"), "{line}");
        std::fs::write(&path, a.to_line() + &b.to_line() + &c.to_line()).unwrap();
        let (set, _) = load_all(std::slice::from_ref(&path)).unwrap();
        assert_eq!((set.len(), set.unchecked()), (3, 0));
        assert_eq!(set.records(), &[a.clone(), b.clone(), c.clone()][..]);
        // An edited score: valid JSON, a valid record, the right key, but not what was written.
        let edited = b.to_line().replace(r#""score":60.0"#, r#""score":80.0"#);
        assert_ne!(edited, b.to_line());
        for tail in [c.to_line(), String::new()] {
            std::fs::write(&path, a.to_line() + &edited + &tail).unwrap();
            let msg = load_all(std::slice::from_ref(&path)).unwrap_err().to_string();
            assert!(msg.contains("results.jsonl:2: malformed result record: checksum mismatch"), "{msg}");
            assert!(msg.contains("edited or damaged") && msg.contains("delete it"), "{msg}");
            assert!(matches!(ResultWriter::open(&path), Err(StoreError::Malformed { line: 2, .. })), "resume refuses");
        }
        // A flipped byte inside a string, and a reformatted line, are named too.
        let damaged = b.to_line().replacen("cramped_room", "cramped_roon", 1);
        let pretty = serde_json::to_string_pretty(&serde_json::from_str::<serde_json::Value>(&b.to_line()).unwrap())
            .unwrap()
            .replace('\n', " ")
            + "\n";
        for bad in [damaged, pretty] {
            std::fs::write(&path, a.to_line() + &bad + &c.to_line()).unwrap();
            let msg = load_all(std::slice::from_ref(&path)).unwrap_err().to_string();
            assert!(msg.contains("results.jsonl:2: malformed result record"), "{msg}");
        }
        // Lines from before checksums still load, counted as unchecked.
        let old = serde_json::to_string(&b).unwrap() + "\n";
        assert!(!old.contains("checksum"));
        std::fs::write(&path, a.to_line() + &old + &c.to_line()).unwrap();
        let (set, _) = load_all(std::slice::from_ref(&path)).unwrap();
        assert_eq!((set.len(), set.unchecked()), (3, 1));
        // Windows line ends from an editor that changed nothing else are not an edit.
        std::fs::write(&path, a.to_line().replace('\n', "\r\n")).unwrap();
        assert_eq!(load_all(std::slice::from_ref(&path)).unwrap().0.len(), 1);
    }

    /// The line of a record with its checksum field cut out, as an editor (or a tool that
    /// drops unknown fields) leaves it.
    fn without_checksum(line: &str) -> String {
        let at = line.find(r#","checksum":"#).unwrap();
        format!("{}}}\n", &line[..at])
    }

    #[test]
    fn records_without_a_checksum_are_left_out_of_means_unless_asked_for() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RESULTS_FILE);
        let (a, b, c) = (record("a", "b", 0, 1, 40.0), record("a", "b", 0, 2, 60.0), record("a", "b", 0, 3, 0.0));
        // An edited score with the checksum removed: it loads (as an old line would), unchecked.
        let edited = without_checksum(&b.to_line().replace(r#""score":60.0"#, r#""score":200.0"#));
        assert!(!edited.contains("checksum"), "{edited}");
        std::fs::write(&path, a.to_line() + &edited + &c.to_line()).unwrap();
        let (set, _) = load_all(std::slice::from_ref(&path)).unwrap();
        assert_eq!((set.len(), set.unchecked()), (3, 1));
        assert_eq!((set.is_checked(0), set.is_checked(1), set.is_checked(2)), (true, false, true));
        // A resume still counts it as finished.
        assert!(set.contains(&b.config_hash));
        // Means: left out by default, counted when asked for; both say how many.
        let (recs, n) = set.for_means(false, |_| true);
        assert_eq!(recs, vec![a.clone(), c.clone()]);
        assert_eq!(n, UncheckedCount { excluded: 1, included: 0 });
        let (recs, n) = set.for_means(true, |_| true);
        assert_eq!(recs.len(), 3);
        assert_eq!(recs[1].score, 200.0);
        assert_eq!(n, UncheckedCount { excluded: 0, included: 1 });
        // A selection counts only the unchecked records it selects.
        let (recs, n) = set.for_means(false, |r| r.seed != 2);
        assert_eq!((recs.len(), n), (2, UncheckedCount::default()));
        // The same record also read from a line with its checksum is checked.
        let p2 = dir.path().join("results.shard-1-of-2.jsonl");
        std::fs::write(&path, without_checksum(&b.to_line())).unwrap();
        std::fs::write(&p2, b.to_line()).unwrap();
        let (set, _) = load_all(&[dir.path().to_path_buf()]).unwrap();
        assert_eq!((set.len(), set.duplicates, set.unchecked()), (1, 1, 0));
        assert_eq!(set.for_means(false, |_| true).0, vec![b]);
    }

    #[test]
    fn records_without_parse_failure_counts_still_load() {
        let mut v: serde_json::Value = serde_json::to_value(record("a", "b", 0, 1, 40.0)).unwrap();
        assert_eq!(v["parse_failures"], 0);
        v.as_object_mut().unwrap().remove("parse_failures");
        let (rec, checked) = parse_record(v.to_string().as_bytes()).ok().unwrap();
        assert_eq!((rec.parse_failures, checked), (None, false));
    }

    #[test]
    fn a_second_writer_is_locked_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RESULTS_FILE);
        let (_w, _) = ResultWriter::open(&path).unwrap();
        assert!(matches!(ResultWriter::open(&path), Err(StoreError::Locked { .. })));
    }
}
