//! Resource limits: the largest input of each kind that proagent accepts, and
//! the bounded reader that every file goes through.
//!
//! Guarantees: no file (a gzip bomb, `/dev/zero`, a runaway log, a FIFO that
//! never ends) makes a reader allocate more than its limit plus one buffer, or
//! read forever. A regular file that is too large is refused from its size
//! before a byte is read; anything else is read through `Read::take` and
//! refused as soon as it passes the limit. Going over a limit is an
//! `io::ErrorKind::FileTooLarge` error that names the limit, so every caller's
//! existing "path: error" reporting names the file too.
//!
//! The limits on layouts (grid size, nesting) live in `env::layout`, which must
//! stay free of I/O; the table of every limit is in `docs/limits.md`.

use std::io::{self, Read};
use std::path::Path;

const MIB: u64 = 1 << 20;

/// Largest prompt template file (agent or CoordinationQA).
pub const MAX_PROMPT_FILE_BYTES: u64 = MIB;

/// Largest episode or QA transcript. A 400-step episode with a model call every
/// few steps is a few MiB.
pub const MAX_TRANSCRIPT_BYTES: u64 = 512 * MIB;

/// Largest eval results file (about 2 KiB per episode, so a few hundred thousand episodes).
pub const MAX_RESULTS_BYTES: u64 = 1024 * MIB;

/// Largest trajectory or demonstration file, after decompression (the human data's
/// largest file is 3.7 MiB unzipped; a 100 000-step episode is about 40 MiB).
pub const MAX_TRAJECTORY_BYTES: u64 = 256 * MIB;

/// Largest small JSON side file (e.g. the human data's `layouts.json`).
pub const MAX_SIDE_FILE_BYTES: u64 = 16 * MIB;

/// Largest CoordinationQA benchmark CSV (the shipped one is 0.8 MiB).
pub const MAX_QA_DATA_BYTES: u64 = 64 * MIB;

/// Largest BC weights file (the shipped models are about 40 KiB).
pub const MAX_WEIGHTS_BYTES: u64 = 256 * MIB;

/// Largest prompt read from standard input by `proagent chat -`.
pub const MAX_STDIN_PROMPT_BYTES: u64 = 16 * MIB;

/// Longest episode any command plays: far beyond any published setting (400),
/// and small enough that an episode's recorded states fit in memory.
pub const MAX_HORIZON: u32 = 100_000;

/// Most episodes one command plays (per cell of a sweep).
pub const MAX_EPISODES: u32 = 1_000_000;

/// Most episodes one `eval` sweep plans, all cells together (the plan is held in memory).
pub const MAX_SWEEP_EPISODES: usize = 1_000_000;

/// Most requests or episodes in flight at once.
pub const MAX_CONCURRENCY: usize = 1024;

/// Most recent trajectory entries a ProAgent planner may be shown (`--memory-k`).
pub const MAX_MEMORY_K: usize = 1_000;

/// Most tokens one reply may be asked for (`--max-tokens`); larger than any
/// model's context window.
pub const MAX_TOKENS: u32 = 1_000_000;

/// Most retries of one model request (`--retries`).
pub const MAX_RETRIES: u32 = 100;

/// Longest wait of any millisecond flag (latencies, backoffs, hangs): one hour.
pub const MAX_MILLIS: u64 = 3_600_000;

/// Most times a CoordinationQA question is asked (`--trials`).
pub const MAX_TRIALS: u32 = 1_000;

/// Most sampled trials of `qa baseline --samples`.
pub const MAX_BASELINE_SAMPLES: u32 = 10_000_000;

/// Most BC training epochs.
pub const MAX_EPOCHS: usize = 100_000;

/// Most simulator steps of `bench env --steps`.
pub const MAX_BENCH_STEPS: u64 = 10_000_000_000;

/// Most repetitions of a benchmark's timed part (`bench controller --repeats`).
pub const MAX_REPEATS: u32 = 100_000;

/// Most chat calls per fake episode in `bench eval --llm-calls`.
pub const MAX_BENCH_LLM_CALLS: u32 = 100_000;

/// Longest Retry-After the mock server may send, in seconds (one day).
pub const MAX_RETRY_AFTER_SECS: u64 = 86_400;

/// A number outside its allowed range: which field (or flag), the value, and the range.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{field} is {value}, but must be {range}")]
pub struct RangeError {
    /// The field as the input names it (e.g. `proagent.memory_k`, `--horizon`).
    pub field: String,
    /// The value as read.
    pub value: String,
    /// The allowed range in words (e.g. `from 1 to 100000`).
    pub range: String,
}

impl RangeError {
    /// The same error with `prefix.` in front of the field name (for nested records).
    pub fn within(mut self, prefix: &str) -> Self {
        self.field = format!("{prefix}.{}", self.field);
        self
    }
}

/// Checks `lo <= value <= hi` for an integer `field`.
pub fn check_int<T>(field: &str, value: T, lo: T, hi: T) -> Result<(), RangeError>
where
    T: PartialOrd + std::fmt::Display + Copy,
{
    if value < lo || value > hi {
        return Err(RangeError {
            field: field.to_string(),
            value: value.to_string(),
            range: format!("from {lo} to {hi}"),
        });
    }
    Ok(())
}

/// Checks that a floating-point `field` is finite and within `lo..=hi` (or
/// `lo < value` when `open_low`).
pub fn check_float(field: &str, value: f64, lo: f64, hi: f64, open_low: bool) -> Result<(), RangeError> {
    let low_ok = if open_low { value > lo } else { value >= lo };
    if !(value.is_finite() && low_ok && value <= hi) {
        let range = format!("a number in {}{lo}, {hi}]", if open_low { "(" } else { "[" });
        return Err(RangeError { field: field.to_string(), value: value.to_string(), range });
    }
    Ok(())
}

/// `1 MiB`, `512 MiB`, `1 GiB`: a limit as people say it.
pub fn human_bytes(n: u64) -> String {
    if n >= 1 << 30 && n.is_multiple_of(1 << 30) {
        format!("{} GiB", n >> 30)
    } else if n >= MIB && n.is_multiple_of(MIB) {
        format!("{} MiB", n >> 20)
    } else {
        format!("{n} bytes")
    }
}

fn too_large(limit: u64, what: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::FileTooLarge,
        format!("larger than {}, the limit for {what} (see docs/limits.md)", human_bytes(limit)),
    )
}

/// Reads at most `limit` bytes from `r`; more is a `FileTooLarge` error naming
/// `what` (e.g. "layout files"). Never reads more than `limit + 1` bytes.
pub fn read_limited(r: impl Read, limit: u64, what: &str) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    r.take(limit.saturating_add(1)).read_to_end(&mut out)?;
    if out.len() as u64 > limit {
        return Err(too_large(limit, what));
    }
    Ok(out)
}

/// The bytes of the file at `path`, refused when larger than `limit`.
pub fn read_file(path: &Path, limit: u64, what: &str) -> io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory, not a file"));
    }
    if meta.is_file() && meta.len() > limit {
        return Err(too_large(limit, what));
    }
    read_limited(file, limit, what)
}

/// The UTF-8 text of the file at `path`, refused when larger than `limit`.
pub fn read_file_text(path: &Path, limit: u64, what: &str) -> io::Result<String> {
    let bytes = read_file(path, limit, what)?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let line = e.as_bytes()[..at].iter().filter(|&&b| b == b'\n').count() + 1;
        io::Error::new(io::ErrorKind::InvalidData, format!("not UTF-8 text (line {line}, byte {at})"))
    })
}

/// Whether `bytes` start with the gzip magic number.
pub fn is_gzip(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0x1f, 0x8b])
}

/// Decompresses gzip data (one or more members), refusing more than `limit`
/// bytes of output: a small bomb stops at the limit instead of filling memory.
pub fn gunzip(bytes: &[u8], limit: u64, what: &str) -> io::Result<Vec<u8>> {
    read_limited(flate2::read::MultiGzDecoder::new(bytes), limit, what)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn limits_are_enforced_for_files_streams_and_gzip() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"0123456789").unwrap();
        assert_eq!(read_file(&p, 10, "x").unwrap().len(), 10);
        let e = read_file(&p, 9, "test files").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(e.to_string(), "larger than 9 bytes, the limit for test files (see docs/limits.md)");
        // An endless stream stops one byte past the limit.
        let e = read_limited(io::repeat(0), MIB, "streams").unwrap_err();
        assert!(e.to_string().contains("larger than 1 MiB"), "{e}");
        // A gzip bomb: 64 MiB of zeros in a few KiB, refused at 1 MiB of output.
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![0u8; MIB as usize];
        for _ in 0..64 {
            enc.write_all(&zeros).unwrap();
        }
        let bomb = enc.finish().unwrap();
        assert!(bomb.len() < 200_000 && is_gzip(&bomb));
        assert_eq!(gunzip(&bomb, MIB, "x").unwrap_err().kind(), io::ErrorKind::FileTooLarge);
        assert_eq!(gunzip(&bomb, 64 * MIB, "x").unwrap().len(), 64 * MIB as usize);
        // Not UTF-8: the line is named.
        std::fs::write(&p, b"ok\n\xff").unwrap();
        assert!(read_file_text(&p, 10, "x").unwrap_err().to_string().contains("line 2"));
        assert_eq!(read_file(dir.path(), 10, "x").unwrap_err().kind(), io::ErrorKind::IsADirectory);
        assert_eq!(human_bytes(1 << 30), "1 GiB");
    }
}
