//! Resource limits: the largest input of each kind that proagent accepts, and
//! the bounded reader that every file goes through.
//!
//! Guarantees: no file (a gzip bomb, `/dev/zero`, a runaway log, a FIFO with no
//! writer) makes a reader allocate more than its limit plus one buffer, block, or
//! read forever. Only regular files are read: anything else at the path (a FIFO,
//! a device, a socket, a directory) is refused from its metadata before it is
//! opened, and the file is opened without blocking (`O_NONBLOCK` on Unix) and
//! checked again once open, so a FIFO swapped in between is refused too rather
//! than waited on. A regular file that is too large is refused from its size
//! before a byte is read, and its read stops one byte past the limit even if it
//! grows meanwhile. Going over a limit is an `io::ErrorKind::FileTooLarge`
//! error that names the limit; a special file is an `io::ErrorKind::InvalidInput`
//! error that says what it is (see [`NotRegular`]); so every caller's existing
//! "path: error" reporting names the file too.
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

/// What a path that is not a regular file turned out to be; the payload of the
/// `io::ErrorKind::InvalidInput` error [`read_file`] and [`open_regular`] return for it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("is {}, not a regular file; proagent reads input only from regular files (see docs/limits.md)", .0)]
pub struct NotRegular(
    /// The kind of file in words (`a FIFO (named pipe)`, `a character device`, ...).
    pub &'static str,
);

/// The kind of a file that is not regular, in words; `None` for a regular file.
fn special_kind(meta: &std::fs::Metadata) -> Option<&'static str> {
    let ft = meta.file_type();
    if ft.is_file() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if ft.is_char_device() {
            return Some("a character device");
        }
        if ft.is_block_device() {
            return Some("a block device");
        }
        if ft.is_socket() {
            return Some("a socket");
        }
    }
    Some("not a regular file")
}

/// Refuses metadata that is not a regular file's: a directory is an
/// `IsADirectory` error, anything else an `InvalidInput` error holding [`NotRegular`].
fn ensure_regular(meta: &std::fs::Metadata) -> io::Result<()> {
    if meta.is_dir() {
        return Err(io::Error::new(io::ErrorKind::IsADirectory, "is a directory, not a file"));
    }
    match special_kind(meta) {
        None => Ok(()),
        Some(kind) => Err(io::Error::new(io::ErrorKind::InvalidInput, NotRegular(kind))),
    }
}

/// Whether `e` is the refusal of a path that is not a regular file (a FIFO, a device,
/// a socket; not a directory).
pub fn is_not_regular(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::InvalidInput && e.get_ref().is_some_and(|inner| inner.is::<NotRegular>())
}

/// Checks that `path` is a regular file (following symbolic links) without opening it:
/// a FIFO, a device, a socket or a directory is an error (see [`open_regular`]).
pub fn check_regular(path: &Path) -> io::Result<std::fs::Metadata> {
    let meta = std::fs::metadata(path)?;
    ensure_regular(&meta)?;
    Ok(meta)
}

/// Opens `path` with `options` after checking that it is a regular file, without ever
/// blocking on a FIFO: the path's metadata is checked before opening (so a device is never
/// opened), the open does not wait for a writer (`O_NONBLOCK` on Unix, which changes
/// nothing for a regular file), and the open file is checked again. A missing file is
/// left to `options`: created if they say so, else a `NotFound` error.
pub fn open_regular_with(options: &std::fs::OpenOptions, path: &Path) -> io::Result<std::fs::File> {
    match std::fs::metadata(path) {
        // A directory cannot block: it is left to the open (which fails with the system's
        // error when writing) or to the check after it, so its error stays what it was.
        Ok(meta) if meta.is_dir() => {}
        Ok(meta) => ensure_regular(&meta)?,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut options = options.clone();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    ensure_regular(&file.metadata()?)?;
    Ok(file)
}

/// Opens the regular file at `path` for reading (see [`open_regular_with`]).
pub fn open_regular(path: &Path) -> io::Result<std::fs::File> {
    open_regular_with(std::fs::OpenOptions::new().read(true), path)
}

/// The bytes of the regular file at `path`, refused when larger than `limit`, and
/// refused without blocking when it is not a regular file (a FIFO, a device).
pub fn read_file(path: &Path, limit: u64, what: &str) -> io::Result<Vec<u8>> {
    let file = open_regular(path)?;
    if file.metadata()?.len() > limit {
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

    /// A FIFO with no writer and a device are refused at once, neither opened for a read
    /// that would block nor read as a stream; a regular file passes the same check.
    #[cfg(unix)]
    #[test]
    fn special_files_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
        // SAFETY: `c` is a valid NUL-terminated path that outlives the call.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let (tx, rx) = std::sync::mpsc::channel();
        let p = fifo.clone();
        std::thread::spawn(move || tx.send(read_file(&p, 10, "x")).unwrap());
        let e = rx.recv_timeout(std::time::Duration::from_secs(10)).expect("read_file blocked on a FIFO").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(is_not_regular(&e));
        assert!(e.to_string().starts_with("is a FIFO (named pipe), not a regular file"), "{e}");
        assert!(is_not_regular(&open_regular(&fifo).unwrap_err()));
        for dev in ["/dev/null", "/dev/zero"] {
            let e = read_file(Path::new(dev), MIB, "x").unwrap_err();
            assert!(e.to_string().starts_with("is a character device, not a regular file"), "{dev}: {e}");
            assert!(is_not_regular(&e));
        }
        let e = check_regular(dir.path()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::IsADirectory);
        assert!(!is_not_regular(&e));
        let f = dir.path().join("f");
        std::fs::write(&f, b"ok").unwrap();
        assert_eq!(check_regular(&f).unwrap().len(), 2);
        // A symbolic link to a regular file is followed; one to a FIFO is refused.
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&fifo, &link).unwrap();
        assert!(is_not_regular(&read_file(&link, 10, "x").unwrap_err()));
    }
}
