//! What `proagent serve` may read: the allow-list every path-bearing value from a request
//! is resolved against — file parameters (`/api/episode`, `/api/eval`), layout specs (a
//! game request's `layout`, and the `layout_spec` of a transcript header, uploaded or
//! not), and the paths inside seat specs (`bc:PATH`, `rl:PATH`).
//!
//! Guarantees:
//! - a path is readable only if, once every symbolic link is followed, it lies under a
//!   root given on the command line (or the games directory), or under the shipped data
//!   (`data/`, `layouts/` of the source tree the binary was built from), and is a regular
//!   file (a FIFO, a device or a socket is refused: `/dev/zero`, a pipe named as a layout);
//! - a missing path and a forbidden one get the same answer ([`AccessError::NotServed`]),
//!   so a page cannot tell which paths exist; nothing of a refused file is read or echoed;
//! - seat specs from a request are an allow-list too: the game's own names, `bc:`/`rl:`
//!   with a readable path (rewritten to its canonical form), and ProAgent options only
//!   from [`WEB_PROAGENT_OPTIONS`] (never `prompts=DIR`, never a model the server does not
//!   offer).
//!
//! Checks that touch the file system block: call them off the async workers.

use proagent_eval::runner::seats::{is_proagent, proagent_options};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Why a path or spec from a request is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccessError {
    /// Missing, or outside what the server may read: one answer for both.
    #[error(
        "{0}: not a file this server may open (it opens only existing files under the files and directories given to `proagent serve`, and the shipped data)"
    )]
    NotServed(String),
    /// Under a root, but not a regular file (a FIFO, a device, ...).
    #[error("{0}: not a regular file")]
    NotRegular(String),
    /// A directory where a file is wanted (or the other way round).
    #[error("{path}: {message}")]
    Kind {
        /// The path as given.
        path: String,
        /// What was expected.
        message: String,
    },
    /// A value that is refused whatever the file system holds.
    #[error("{0}")]
    Refused(String),
}

/// ProAgent options a request may set in `proagent[...]` (numbers and switches; `model`
/// only to a model the server offers).
pub const WEB_PROAGENT_OPTIONS: &[&str] = &[
    "model",
    "temperature",
    "top_p",
    "max_tokens",
    "memory_k",
    "max_replans",
    "verificator",
    "belief",
    "align",
    "analysis",
    "intention",
    "wait_interrupt",
];

/// A root given on the command line.
#[derive(Clone, Debug)]
pub struct Root {
    /// As given (for display).
    pub shown: String,
    /// Canonical.
    pub path: PathBuf,
    /// A directory (anything under it) or a single file.
    pub is_dir: bool,
}

/// The roots and the shipped data.
#[derive(Clone, Debug, Default)]
pub struct Access {
    /// Listed and readable.
    pub roots: Vec<Root>,
    /// Readable, not listed: the shipped data directories that exist.
    pub shipped: Vec<PathBuf>,
}

/// The shipped data directories of the source tree this binary was built from.
pub fn shipped_data() -> Vec<PathBuf> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR"));
    ["data", "layouts"].iter().filter_map(|d| base.join(d).canonicalize().ok()).filter(|p| p.is_dir()).collect()
}

impl Access {
    /// Whether a canonical path lies under a root or the shipped data.
    fn covers(&self, canon: &Path) -> bool {
        self.roots.iter().any(|r| if r.is_dir { canon.starts_with(&r.path) } else { canon == r.path })
            || self.shipped.iter().any(|d| canon.starts_with(d))
    }

    /// The canonical path of `p` if it exists under a root or the shipped data (file or
    /// directory); the one refusal otherwise.
    pub fn resolve(&self, p: &str) -> Result<PathBuf, AccessError> {
        if p.is_empty() {
            return Err(AccessError::Kind { path: "path".into(), message: "missing".into() });
        }
        let refused = || AccessError::NotServed(p.to_string());
        if p.contains('\0') {
            return Err(refused());
        }
        let canon = Path::new(p).canonicalize().map_err(|_| refused())?;
        if !self.covers(&canon) {
            return Err(refused());
        }
        Ok(canon)
    }

    /// A regular file under the roots or the shipped data.
    pub fn file(&self, p: &str) -> Result<PathBuf, AccessError> {
        let canon = self.resolve(p)?;
        let meta = std::fs::metadata(&canon).map_err(|_| AccessError::NotServed(p.to_string()))?;
        if meta.is_dir() {
            return Err(AccessError::Kind {
                path: p.to_string(),
                message: "a directory (open an eval directory with /api/eval)".into(),
            });
        }
        if !meta.is_file() {
            return Err(AccessError::NotRegular(p.to_string()));
        }
        Ok(canon)
    }

    /// A directory under the roots.
    pub fn dir(&self, p: &str) -> Result<PathBuf, AccessError> {
        let canon = self.resolve(p)?;
        if !canon.is_dir() {
            return Err(AccessError::Kind {
                path: p.to_string(),
                message: "not a directory (an eval directory holds results.jsonl)".into(),
            });
        }
        Ok(canon)
    }

    /// A layout spec from a request or a transcript header: a built-in game by name
    /// (`None`), or a layout file (optionally `v2:`-prefixed) the server may read, as the
    /// spec to load (`Some`, with the canonical path).
    pub fn layout(&self, spec: &str) -> Result<Option<String>, AccessError> {
        if builtin_layout(spec) {
            return Ok(None);
        }
        let (prefix, path) = match proagent_overcooked_v2::env::layout::strip_v2_prefix(spec) {
            Some(rest) => (proagent_eval::games::V2_PREFIX, rest),
            None => ("", spec),
        };
        let canon = self.file(path).map_err(|e| match e {
            AccessError::Kind { .. } => AccessError::NotRegular(path.to_string()),
            other => other,
        })?;
        Ok(Some(format!("{prefix}{}", canon.display())))
    }

    /// A seat spec from a request, as the server will build it: the game's own names as
    /// they are, `bc:PATH` and `rl:PATH` with the path made canonical, `proagent[...]`
    /// with only [`WEB_PROAGENT_OPTIONS`] and a `model` from `models`.
    pub fn seat_spec(&self, spec: &str, known: &[&str], models: &[&str]) -> Result<String, AccessError> {
        let s = spec.trim();
        let named = known.iter().any(|k| *k == s && !k.contains("PATH") && !k.contains('['));
        if named {
            return Ok(s.to_string());
        }
        if is_proagent(s) {
            let options = proagent_options(s).map_err(|e| AccessError::Refused(format!("partner: {e}")))?;
            for (k, v) in &options {
                if !WEB_PROAGENT_OPTIONS.contains(&k.as_str()) {
                    return Err(AccessError::Refused(format!(
                        "partner: the option {k:?} cannot be set from the page (it may: {})",
                        WEB_PROAGENT_OPTIONS.join(", ")
                    )));
                }
                if k == "model" && !models.contains(&v.as_str()) {
                    return Err(AccessError::Refused(format!(
                        "partner: model {v:?} is not one this server offers ({})",
                        models.join(", ")
                    )));
                }
            }
            return Ok(s.to_string());
        }
        for prefix in ["bc:", "rl:"] {
            if let Some(path) = s.strip_prefix(prefix) {
                if known.contains(&s) {
                    return Ok(s.to_string());
                }
                if !known.contains(&&*format!("{prefix}PATH")) {
                    break;
                }
                let canon = self.file(path).map_err(|e| match e {
                    AccessError::Kind { .. } => AccessError::NotRegular(path.to_string()),
                    other => other,
                })?;
                return Ok(format!("{prefix}{}", canon.display()));
            }
        }
        // Anything else (an unknown name, a form with a path this check does not know) is
        // left to the seat factory only if it names no file.
        if s.contains('/') || s.contains('\\') || s.contains('.') {
            return Err(AccessError::NotServed(s.to_string()));
        }
        Ok(s.to_string())
    }

    /// Checks the layout a transcript header names before the file is read: a header
    /// without the layout's text must name a built-in layout or a file the server may read.
    /// Files of other kinds name no layout file.
    pub fn episode_text(&self, text: &str) -> Result<(), AccessError> {
        let Some(first) = text.lines().find(|l| !l.trim().is_empty()) else { return Ok(()) };
        let Ok(v) = serde_json::from_str::<Value>(first) else { return Ok(()) };
        if v.get("type").and_then(Value::as_str) != Some("header") {
            return Ok(());
        }
        let Some(cfg) = v.get("config") else { return Ok(()) };
        if cfg.get("layout_file").and_then(Value::as_str).is_some() {
            return Ok(());
        }
        // The reader loads `layout_spec` (with `v2:` in front for a V2 game), and only if
        // that fails, `layout`.
        let v2 = cfg.get("v2").is_some_and(|v| !v.is_null());
        let spec_of = |key: &str| {
            cfg.get(key).and_then(Value::as_str).map(|s| {
                if v2 && proagent_overcooked_v2::env::layout::strip_v2_prefix(s).is_none() {
                    format!("{}{s}", proagent_eval::games::V2_PREFIX)
                } else {
                    s.to_string()
                }
            })
        };
        let refuse = |key: &str| {
            AccessError::Refused(format!(
                "the transcript's header names a layout (config.{key}) that is neither built in nor a file this server may open"
            ))
        };
        if let Some(spec) = spec_of("layout_spec") {
            if self.layout(&spec).map_err(|_| refuse("layout_spec"))?.is_none() {
                return Ok(());
            }
        }
        if let Some(name) = spec_of("layout") {
            self.layout(&name).map_err(|_| refuse("layout"))?;
        }
        Ok(())
    }
}

/// Whether a spec names a built-in game without touching the file system: a classic
/// layout, `v2:NAME`, `hanabi`/`hanabi:Np`, a built-in maze scenario.
pub fn builtin_layout(spec: &str) -> bool {
    if let Some(name) = proagent_overcooked_v2::env::layout::strip_v2_prefix(spec) {
        return proagent_overcooked_v2::env::Layout::builtin(name).is_some();
    }
    proagent_overcooked::env::Layout::builtin(spec).is_some()
        || (spec.starts_with("hanabi") && proagent_hanabi::Hanabi::from_spec(spec).is_ok())
        || proagent_collab::Maze::builtin_text(spec).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn access(dir: &Path) -> Access {
        let root = dir.join("root");
        std::fs::create_dir_all(&root).unwrap();
        Access {
            roots: vec![Root { shown: "root".into(), path: root.canonicalize().unwrap(), is_dir: true }],
            shipped: shipped_data(),
        }
    }

    #[test]
    fn missing_and_forbidden_paths_get_one_answer() {
        let dir = tempfile::tempdir().unwrap();
        let a = access(dir.path());
        std::fs::write(dir.path().join("root/ok.jsonl"), "{}").unwrap();
        std::fs::write(dir.path().join("outside.jsonl"), "{}").unwrap();
        let ok = dir.path().join("root/ok.jsonl").display().to_string();
        assert!(a.file(&ok).is_ok());
        let outside = dir.path().join("outside.jsonl").display().to_string();
        let missing = dir.path().join("root/missing.jsonl").display().to_string();
        let e1 = a.file(&outside).unwrap_err().to_string().replace(&outside, "P");
        let e2 = a.file(&missing).unwrap_err().to_string().replace(&missing, "P");
        assert_eq!(e1, e2);
        // A way out through `..` and a symbolic link are followed before the check.
        let up = format!("{}/../outside.jsonl", dir.path().join("root").display());
        assert!(matches!(a.file(&up), Err(AccessError::NotServed(_))));
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc/hostname", dir.path().join("root/link")).unwrap();
            let link = dir.path().join("root/link").display().to_string();
            assert!(matches!(a.file(&link), Err(AccessError::NotServed(_))));
            // A FIFO under a root is refused without being opened.
            let fifo = dir.path().join("root/fifo");
            assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
            let f = fifo.display().to_string();
            assert_eq!(a.file(&f), Err(AccessError::NotRegular(f.clone())));
            assert_eq!(a.layout(&f), Err(AccessError::NotRegular(f.clone())));
            assert!(matches!(a.file("/dev/zero"), Err(AccessError::NotServed(_))));
        }
    }

    #[test]
    fn layouts_and_seat_specs_are_allow_listed() {
        let dir = tempfile::tempdir().unwrap();
        let a = access(dir.path());
        for spec in ["cramped_room", "v2:two_rooms", "hanabi", "hanabi:4p", "capture:2", "escape:1"] {
            assert_eq!(a.layout(spec), Ok(None), "{spec}");
        }
        assert!(matches!(a.layout("/etc/passwd"), Err(AccessError::NotServed(_))));
        assert!(matches!(a.layout("v2:/etc/passwd"), Err(AccessError::NotServed(_))));
        std::fs::write(dir.path().join("root/mine.layout"), "x").unwrap();
        let mine = dir.path().join("root/mine.layout").display().to_string();
        assert!(a.layout(&format!("v2:{mine}")).unwrap().unwrap().starts_with("v2:/"));
        let known =
            ["greedy", "bc", "bc:train", "bc:PATH", "rl:PATH", "proagent", "proagent[model=NAME,key=value,...]"];
        let models = ["scripted", "cheap"];
        assert_eq!(a.seat_spec(" greedy ", &known, &models).unwrap(), "greedy");
        assert_eq!(a.seat_spec("bc:train", &known, &models).unwrap(), "bc:train");
        for bad in ["rl:/dev/zero", "bc:/etc/passwd", "rl:../../x.safetensors"] {
            assert!(matches!(a.seat_spec(bad, &known, &models), Err(AccessError::NotServed(_))), "{bad}");
        }
        assert!(a.seat_spec("proagent[cheap,memory_k=3]", &known, &models).is_ok());
        let e = a.seat_spec("proagent[model=gpt-4o]", &known, &models).unwrap_err().to_string();
        assert!(e.contains("not one this server offers"), "{e}");
        let e = a.seat_spec("proagent[prompts=/etc]", &known, &models).unwrap_err().to_string();
        assert!(e.contains("cannot be set from the page"), "{e}");
        std::fs::write(dir.path().join("root/m.safetensors"), "x").unwrap();
        let m = dir.path().join("root/m.safetensors").display().to_string();
        assert!(a.seat_spec(&format!("rl:{m}"), &known, &models).unwrap().starts_with("rl:/"));
    }

    #[test]
    fn a_transcript_header_naming_a_file_outside_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = access(dir.path());
        let header =
            |spec: &str| format!("{{\"type\":\"header\",\"config\":{{\"layout\":\"x\",\"layout_spec\":{spec:?}}}}}\n");
        assert!(a.episode_text(&header("/etc/passwd")).is_err());
        let ok = "{\"type\":\"header\",\"config\":{\"layout\":\"cramped_room\",\"layout_spec\":\"cramped_room\"}}\n";
        assert!(a.episode_text(ok).is_ok());
        let recorded = "{\"type\":\"header\",\"config\":{\"layout\":\"x\",\"layout_spec\":\"/etc/passwd\",\"layout_file\":\"XXX\"}}";
        assert!(a.episode_text(recorded).is_ok(), "the recorded text is used, no file is read");
        assert!(a.episode_text("not json").is_ok());
    }
}
