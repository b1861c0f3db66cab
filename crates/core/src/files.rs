//! Files named by input: the one question every loader asks before it opens a path that a
//! request, an uploaded or saved episode, a transcript header, a trajectory field or a spec
//! names — "may this be opened, and at which path?" ([`FileAccess`]). Loaders that read a
//! file named by their input take a policy and open only the path it returns: the command
//! line passes [`LocalFiles`] (any local regular file), `proagent serve` its allow-list.
//!
//! Guarantees:
//! - a policy answers before anything is opened, so a refused file is never read and no
//!   error can quote it ([`read_named_text`] opens only what the policy returned);
//! - [`LocalFiles`] refuses what is not a regular file (FIFOs, devices, sockets,
//!   directories) and anything that resolves under `/proc`, `/sys` or `/dev`, whose files
//!   are the kernel's views (a process's environment, its memory) rather than data;
//! - a policy may give one answer for "missing" and "not allowed" (a server does, so that a
//!   page cannot tell which paths exist): [`FileRefusal::Missing`] is only for policies that
//!   may say a file does not exist.

use std::io;
use std::path::{Path, PathBuf};

/// Why a path named by input is not opened. Every variant names the path as it was given,
/// never anything read from it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FileRefusal {
    /// Nothing there (only from a policy that may tell: the command line's).
    #[error("{0}: no such file")]
    Missing(String),
    /// Not a file this policy lets input name; `reason` says which files it does.
    #[error("{path}: {reason}")]
    Forbidden {
        /// The path as given.
        path: String,
        /// Why, in words that name no file content.
        reason: String,
    },
    /// A FIFO, a device, a socket, or a kernel view under `/proc`, `/sys`, `/dev`.
    #[error("{0}: not a regular file (FIFOs, devices, sockets and /proc, /sys, /dev are never read)")]
    NotRegular(String),
    /// A directory where a file is wanted.
    #[error("{0}: is a directory, not a file")]
    Directory(String),
    /// A FIFO, a device or a socket outside the kernel's views; `kind` says which, in the
    /// words of the bounded reader ([`crate::limits::NotRegular`]), so a special file is
    /// refused the same way whichever check meets it first.
    #[error("{path}: {kind}")]
    Special {
        /// The path as given.
        path: String,
        /// What the file is.
        kind: crate::limits::NotRegular,
    },
}

impl FileRefusal {
    /// The path as given.
    pub fn path(&self) -> &str {
        match self {
            FileRefusal::Missing(p) | FileRefusal::NotRegular(p) | FileRefusal::Directory(p) => p,
            FileRefusal::Forbidden { path, .. } | FileRefusal::Special { path, .. } => path,
        }
    }
}

/// What may be opened when input names a file.
pub trait FileAccess: Send + Sync {
    /// The path to open for the file `named` (as the input spells it), or why it may not
    /// be opened. Called before anything is opened; must not open the file itself.
    fn resolve(&self, named: &str) -> Result<PathBuf, FileRefusal>;
}

/// The command line's policy: any existing regular file on this machine, outside the
/// kernel's views (`/proc`, `/sys`, `/dev`). Returns the canonical path (symbolic links
/// followed), so the file checked is the file opened.
#[derive(Clone, Copy, Debug, Default)]
pub struct LocalFiles;

/// Whether a canonical path lies under `/proc`, `/sys` or `/dev`.
pub fn is_kernel_path(canonical: &Path) -> bool {
    ["/proc", "/sys", "/dev"].iter().any(|d| canonical.starts_with(d))
}

impl FileAccess for LocalFiles {
    fn resolve(&self, named: &str) -> Result<PathBuf, FileRefusal> {
        if named.is_empty() {
            return Err(FileRefusal::Missing(named.to_string()));
        }
        if named.contains('\0') {
            return Err(FileRefusal::Forbidden { path: named.to_string(), reason: "a path with a NUL byte".into() });
        }
        let canon = match Path::new(named).canonicalize() {
            Ok(c) => c,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(FileRefusal::Missing(named.to_string())),
            Err(e) => return Err(FileRefusal::Forbidden { path: named.to_string(), reason: e.to_string() }),
        };
        if is_kernel_path(&canon) {
            // A device there is refused in the bounded reader's words, as anywhere else.
            if let Err(e) = crate::limits::check_regular(&canon)
                && let Some(kind) = e.get_ref().and_then(|inner| inner.downcast_ref::<crate::limits::NotRegular>())
            {
                return Err(FileRefusal::Special { path: named.to_string(), kind: *kind });
            }
            return Err(FileRefusal::NotRegular(named.to_string()));
        }
        // The bounded reader's own check, so its refusal reads the same here.
        match crate::limits::check_regular(&canon) {
            Ok(_) => Ok(canon),
            Err(e) if e.kind() == io::ErrorKind::IsADirectory => Err(FileRefusal::Directory(named.to_string())),
            Err(e) => match e.get_ref().and_then(|inner| inner.downcast_ref::<crate::limits::NotRegular>()) {
                Some(kind) => Err(FileRefusal::Special { path: named.to_string(), kind: *kind }),
                None => Err(FileRefusal::Forbidden { path: named.to_string(), reason: e.to_string() }),
            },
        }
    }
}

/// Why a file named by input could not be read.
#[derive(Debug, thiserror::Error)]
pub enum NamedReadError {
    /// The policy refused it: nothing was opened.
    #[error(transparent)]
    Refused(#[from] FileRefusal),
    /// The policy allowed it, but reading failed (too large, not UTF-8, ...).
    #[error("{path}: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// What went wrong.
        source: io::Error,
    },
}

/// The text of the file `named`, read through `files` and the bounded reader
/// ([`crate::limits::read_file_text`]): refused before opening anything the policy refuses,
/// and refused when larger than `limit` (`what` names the kind of file in that message).
pub fn read_named_text(files: &dyn FileAccess, named: &str, limit: u64, what: &str) -> Result<String, NamedReadError> {
    let path = files.resolve(named)?;
    crate::limits::read_file_text(&path, limit, what)
        .map_err(|source| NamedReadError::Io { path: named.to_string(), source })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_files_are_regular_files_outside_the_kernel_views() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.txt");
        std::fs::write(&f, "hello\n").unwrap();
        let named = f.display().to_string();
        assert_eq!(LocalFiles.resolve(&named).unwrap(), f.canonicalize().unwrap());
        assert_eq!(read_named_text(&LocalFiles, &named, 100, "x").unwrap(), "hello\n");
        let missing = dir.path().join("none").display().to_string();
        assert_eq!(LocalFiles.resolve(&missing), Err(FileRefusal::Missing(missing.clone())));
        let d = dir.path().display().to_string();
        assert_eq!(LocalFiles.resolve(&d), Err(FileRefusal::Directory(d.clone())));
        for kernel in ["/proc/self/environ", "/sys/kernel"] {
            if Path::new(kernel).exists() {
                let e = LocalFiles.resolve(kernel).unwrap_err();
                assert_eq!(e, FileRefusal::NotRegular(kernel.into()), "{kernel}");
                assert!(!e.to_string().contains('='), "{e}");
            }
        }
        // A device under /dev is named as the bounded reader names it.
        for dev in ["/dev/null", "/dev/zero"] {
            if Path::new(dev).exists() {
                let e = LocalFiles.resolve(dev).unwrap_err();
                let kind = crate::limits::NotRegular("a character device");
                assert_eq!(e, FileRefusal::Special { path: dev.into(), kind }, "{dev}");
            }
        }
        assert!(matches!(LocalFiles.resolve("a\0b"), Err(FileRefusal::Forbidden { .. })));
        #[cfg(unix)]
        {
            let fifo = dir.path().join("fifo");
            assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
            let named = fifo.display().to_string();
            // Refused at once: the FIFO is never opened (opening it would wait for a writer).
            let e = LocalFiles.resolve(&named).unwrap_err();
            let kind = crate::limits::NotRegular("a FIFO (named pipe)");
            assert_eq!(e, FileRefusal::Special { path: named.clone(), kind });
            assert_eq!(
                e.to_string(),
                format!(
                    "{named}: is a FIFO (named pipe), not a regular file; proagent reads input only from regular files (see docs/limits.md)"
                )
            );
            assert!(matches!(read_named_text(&LocalFiles, &named, 100, "x"), Err(NamedReadError::Refused(_))));
            // A link to a kernel view is judged by where it leads.
            let link = dir.path().join("env");
            std::os::unix::fs::symlink("/proc/self/environ", &link).unwrap();
            let named = link.display().to_string();
            assert_eq!(LocalFiles.resolve(&named), Err(FileRefusal::NotRegular(named.clone())));
        }
        let big = dir.path().join("big.txt");
        std::fs::write(&big, "x".repeat(200)).unwrap();
        let e = read_named_text(&LocalFiles, &big.display().to_string(), 100, "test files").unwrap_err();
        assert!(matches!(e, NamedReadError::Io { .. }) && e.to_string().contains("test files"), "{e}");
    }
}
