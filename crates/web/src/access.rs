//! What `proagent serve` may read: the allow-list every path-bearing value from a request
//! is resolved against — file parameters (`/api/episode`, `/api/eval`), layout specs (a
//! game request's `layout`), the paths inside seat specs (`bc:PATH`, `rl:PATH`), and every
//! file an opened or uploaded episode names in turn (a transcript header's `layout_spec`, a
//! maze trajectory's `spec`). [`Access`] is the server's
//! [`FileAccess`](proagent_core::files::FileAccess) policy: the library's loaders take it
//! and open only the paths it returns, so the check and the open are one step.
//!
//! Guarantees:
//! - a path is readable only if, once every symbolic link is followed, it lies under a
//!   root given on the command line (or the games directory), or under the shipped data
//!   (`data/`, `layouts/` of the source tree the binary was built from), is not under
//!   `/proc`, `/sys` or `/dev` (even with `/` as a root), and is a regular file (a FIFO, a
//!   device or a socket is refused before it is opened: `/dev/zero`, a pipe named as a
//!   layout or a maze);
//! - a missing path and a forbidden one get the same answer ([`AccessError::NotServed`]),
//!   so a page cannot tell which paths exist; nothing of a refused file is read or echoed;
//! - seat specs from a request are data, never commands: the game's own names, `bc:`/`rl:`
//!   with a readable path (rewritten to its canonical form), and the options of a language
//!   agent only from [`WEB_PROAGENT_OPTIONS`] (`proagent[...]`) or [`WEB_LLMCO_OPTIONS`]
//!   (`llmco[...]`): never a prompts directory, never a model the server does not offer
//!   (the seat is then built on that offered model's own address and key,
//!   [`super::play`]); any other bracketed or path-like spec is refused.
//!
//! Checks that touch the file system block: call them off the async workers.

use proagent_core::files::{FileAccess, FileRefusal, is_kernel_path};
use proagent_eval::runner::seats::{is_llmco, is_proagent, llmco_options, proagent_options};
use proagent_llm::without_option;
use std::path::{Path, PathBuf};

/// What a missing or forbidden path is told (after the path).
pub const NOT_SERVED: &str = "not a file this server may open (it opens only existing files under the files and directories given to `proagent serve`, and the shipped data)";

/// Why a path or spec from a request is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccessError {
    /// Missing, or outside what the server may read: one answer for both.
    #[error("{0}: {NOT_SERVED}")]
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

/// ProAgent options a request may set in `proagent[...]`: the seat options of
/// [`proagent_agent::config::SEAT_OPTIONS`] (the model options among them: sampling,
/// `effort`, `family`, `token_param`, `structured`) except `prompts`; `model` only to a
/// model the server offers.
pub const WEB_PROAGENT_OPTIONS: [&str; 17] = without_option(&proagent_agent::config::SEAT_OPTIONS, "prompts");

/// LLM-Coordination options a request may set in `llmco[...]`: the seat options of
/// [`proagent_agent::llmco::settings::LLMCO_OPTIONS`] except `prompts`; `model` only to a
/// model the server offers.
pub const WEB_LLMCO_OPTIONS: [&str; 13] = without_option(&proagent_agent::llmco::settings::LLMCO_OPTIONS, "prompts");

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
        if !self.covers(&canon) || is_kernel_path(&canon) {
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
        let (prefix, path) = proagent_eval::games::catalog::split_path(spec);
        let canon = self.file(path).map_err(|e| match e {
            AccessError::Kind { .. } => AccessError::NotRegular(path.to_string()),
            other => other,
        })?;
        Ok(Some(format!("{prefix}{}", canon.display())))
    }

    /// A seat spec from a request, as the server will build it: the game's own names as
    /// they are, `bc:PATH` and `rl:PATH` with the path made canonical, `proagent[...]`
    /// with only [`WEB_PROAGENT_OPTIONS`] and `llmco[...]` with only [`WEB_LLMCO_OPTIONS`],
    /// a `model` only from `models`. Any other spec that is not a plain name (letters,
    /// digits, `_`, `-`) is refused: it could only be a form this check does not know.
    pub fn seat_spec(&self, spec: &str, known: &[&str], models: &[&str]) -> Result<String, AccessError> {
        let s = spec.trim();
        let named = known.iter().any(|k| *k == s && !k.contains("PATH") && !k.contains('['));
        if named {
            return Ok(s.to_string());
        }
        if is_proagent(s) || is_llmco(s) {
            let (options, allowed) = if is_llmco(s) {
                (llmco_options(s), &WEB_LLMCO_OPTIONS[..])
            } else {
                (proagent_options(s), &WEB_PROAGENT_OPTIONS[..])
            };
            let options = options.map_err(|e| AccessError::Refused(format!("partner: {e}")))?;
            for (k, v) in &options {
                if !allowed.contains(&k.as_str()) {
                    return Err(AccessError::Refused(format!(
                        "partner: the option {k:?} cannot be set from the page (it may: {})",
                        allowed.join(", ")
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
        // Anything else is left to the seat factory only if it is a plain name: a path is
        // refused like a file the server may not open, any other form (brackets, `key=`,
        // `kind:`) as a spec the page may not send.
        if s.contains('/') || s.contains('\\') || s.contains('.') {
            return Err(AccessError::NotServed(s.to_string()));
        }
        if !s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') {
            return Err(AccessError::Refused(format!(
                "partner: {s:?} is not a seat the page may ask for (the game's own names, or {})",
                known.join(", ")
            )));
        }
        Ok(s.to_string())
    }
}

/// The server's policy for files that input names in turn (a transcript header's layout, a
/// maze trajectory's `spec`, a layout or maze a request names): [`Access::file`], so the
/// library's loaders open only what a request could open itself, and a missing file and a
/// forbidden one are one answer.
impl FileAccess for Access {
    fn resolve(&self, named: &str) -> Result<PathBuf, FileRefusal> {
        if named.is_empty() {
            return Err(FileRefusal::Forbidden { path: String::new(), reason: NOT_SERVED.into() });
        }
        self.file(named).map_err(|e| match e {
            AccessError::NotServed(path) => FileRefusal::Forbidden { path, reason: NOT_SERVED.into() },
            AccessError::NotRegular(path) => FileRefusal::NotRegular(path),
            AccessError::Kind { path, .. } => FileRefusal::Directory(path),
            AccessError::Refused(reason) => FileRefusal::Forbidden { path: named.to_string(), reason },
        })
    }
}

/// Whether a spec names a built-in game of the catalog without touching the file system.
pub fn builtin_layout(spec: &str) -> bool {
    proagent_eval::games::catalog::is_builtin(spec)
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
        for spec in proagent_eval::games::catalog::all_builtin_specs() {
            assert_eq!(a.layout(&spec), Ok(None), "{spec}");
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
        // Every model option of a seat spec may be set from the page, as the seat lists say.
        let all = "proagent[cheap,preset=paper,top_p=0.9,effort=low,family=chat,token_param=max_completion_tokens,structured=on]";
        assert_eq!(a.seat_spec(all, &known, &models).unwrap(), all);
        for (list, seat) in [
            (&WEB_PROAGENT_OPTIONS[..], &proagent_agent::config::SEAT_OPTIONS[..]),
            (&WEB_LLMCO_OPTIONS[..], &proagent_agent::llmco::settings::LLMCO_OPTIONS[..]),
        ] {
            let others: Vec<&str> = seat.iter().copied().filter(|k| *k != "prompts").collect();
            assert_eq!(list, others);
        }
        let e = a.seat_spec("proagent[base_url=http://127.0.0.1:9/v1]", &known, &models).unwrap_err().to_string();
        assert!(e.contains("cannot be set from the page") && e.contains("effort, family, token_param"), "{e}");
        let e = a.seat_spec("proagent[model=gpt-4o]", &known, &models).unwrap_err().to_string();
        assert!(e.contains("not one this server offers"), "{e}");
        let e = a.seat_spec("proagent[prompts=/etc]", &known, &models).unwrap_err().to_string();
        assert!(e.contains("cannot be set from the page"), "{e}");
        // LLM-Coordination specs get the same checks, with their own options.
        let collab = ["chaser", "llmco", "llmco[model=NAME,tom=on|off,...]"];
        assert_eq!(a.seat_spec("llmco", &collab, &models).unwrap(), "llmco");
        for ok in [
            "llmco[cheap,tom=off]",
            "llmco[model=scripted,verify=on,history=3,max_verify=2,temperature=1]",
            "llmco[cheap,effort=high,family=reasoning,token_param=max_tokens,structured=on]",
        ] {
            assert_eq!(a.seat_spec(ok, &collab, &models).unwrap(), ok);
        }
        for (bad, want) in [
            ("llmco[model=replay:x]", "not one this server offers"),
            ("llmco[any-name]", "not one this server offers"),
            ("llmco[prompts=/etc]", "cannot be set from the page"),
            ("llmco[cheap,prompts=p]", "cannot be set from the page"),
            ("llmco[memory_k=3]", "cannot be set from the page"),
            ("llmco[model=a,model=b]", "given twice"),
            ("chaser[tom=off]", "not a seat the page may ask for"),
            ("simple:x", "not a seat the page may ask for"),
        ] {
            let e = a.seat_spec(bad, &collab, &models).unwrap_err();
            assert!(matches!(e, AccessError::Refused(_)) && e.to_string().contains(want), "{bad}: {e}");
        }
        std::fs::write(dir.path().join("root/m.safetensors"), "x").unwrap();
        let m = dir.path().join("root/m.safetensors").display().to_string();
        assert!(a.seat_spec(&format!("rl:{m}"), &known, &models).unwrap().starts_with("rl:/"));
    }

    #[test]
    fn files_named_inside_episodes_go_through_the_same_allow_list() {
        use proagent_eval::runner::files::{FileError, read_episode_text_in};
        let dir = tempfile::tempdir().unwrap();
        let a = access(dir.path());
        // The server's policy: the kernel's views are refused even under a root of `/`.
        let everything = Access {
            roots: vec![Root { shown: "/".into(), path: PathBuf::from("/"), is_dir: true }],
            shipped: Vec::new(),
        };
        for kernel in ["/proc/self/environ", "/dev/zero", "/proc/self/cmdline"] {
            let e = FileAccess::resolve(&everything, kernel).unwrap_err();
            assert_eq!(e, FileRefusal::Forbidden { path: kernel.into(), reason: NOT_SERVED.into() });
        }
        // A transcript header naming a file outside the roots.
        let header = |spec: &str| {
            let t = include_str!("../../../transcripts/committed/cramped_room.jsonl");
            let (head, rest) = t.split_once('\n').unwrap();
            let mut h: serde_json::Value = serde_json::from_str(head).unwrap();
            h["config"]["layout_spec"] = serde_json::json!(spec);
            h["config"]["layout"] = serde_json::json!("x");
            h["config"].as_object_mut().unwrap().remove("layout_file");
            format!("{h}\n{rest}")
        };
        let outside = dir.path().join("outside.layout");
        std::fs::write(&outside, "XXPXX\nO  2O\nX1  X\nXDXSX\n").unwrap();
        let e = read_episode_text_in("t.jsonl", &header(&outside.display().to_string()), &a).unwrap_err();
        assert!(matches!(e, FileError::Refused { .. }), "{e}");
        assert!(e.to_string().contains("names a layout") && e.to_string().contains(NOT_SERVED), "{e}");
        assert!(!e.to_string().contains("XXPXX"), "{e}");
        // A built-in layout by name, and a layout file under a root, are read as before.
        assert!(read_episode_text_in("t.jsonl", &header("cramped_room"), &a).is_ok());
        let inside = dir.path().join("root/mine.layout");
        std::fs::write(&inside, include_str!("../../../layouts/cramped_room.layout")).unwrap();
        assert!(read_episode_text_in("t.jsonl", &header(&inside.display().to_string()), &a).is_ok());
        // A maze trajectory whose `spec` names the process environment, a file outside the
        // roots, or nothing at all: one answer, nothing of any file in it.
        let record = |spec: &str| {
            use proagent_core::Game;
            let g = proagent_collab::load_capture("capture:1").unwrap();
            let start = g.state_json(&g.initial_state(&mut proagent_core::episode::env_chance(0)));
            let v = serde_json::json!({"game": "collab_capture", "spec": spec, "seed": 0, "start": start, "steps": []});
            format!("{v}\n")
        };
        let answer = |spec: &str| {
            let e = read_episode_text_in("c.jsonl", &record(spec), &a).unwrap_err();
            assert!(matches!(e, FileError::Refused { .. }), "{e}");
            e.to_string().replace(spec, "SPEC")
        };
        let missing = dir.path().join("root/none.maze").display().to_string();
        let want = answer(&missing);
        assert_eq!(want, format!("c.jsonl: line 1: `spec` names a file: SPEC: {NOT_SERVED}"));
        assert_eq!(answer("/proc/self/environ"), want);
        assert_eq!(answer("/etc/passwd"), want);
        assert_eq!(answer(&outside.display().to_string()), want);
        // The built-in scenario it was recorded on is read as before.
        assert!(read_episode_text_in("c.jsonl", &record("capture:1"), &a).is_ok());
        #[cfg(unix)]
        {
            // A FIFO under a root: refused without being opened (this would block otherwise).
            let fifo = dir.path().join("root/pipe.maze");
            assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
            let e = read_episode_text_in("c.jsonl", &record(&fifo.display().to_string()), &a).unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{e}");
        }
    }
}
