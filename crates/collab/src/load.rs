//! From a spec to a game: a built-in scenario name (`capture:1` … `capture:4`,
//! `escape:1`, `escape:2`) or the path of a maze file. This is the crate's only I/O.
//!
//! Guarantees: a spec that is not a built-in name is opened only through a file-access
//! policy ([`proagent_core::files::FileAccess`]: the `_in` functions take the caller's;
//! [`load`], [`load_maze`], [`load_capture`] and [`load_escape`] are the command line's,
//! [`LocalFiles`]), so a spec from an uploaded episode never reaches the file system
//! unchecked, and a refused file is never opened (nor quoted). Files are read through the
//! bounded reader of `proagent_core::limits`. Every failure is a [`LoadError`] that names
//! the spec or file (and, for a bad file, the line); nothing panics.

use crate::capture::Capture;
use crate::escape::Escape;
use crate::maze::{GameKind, MAX_MAZE_TEXT_BYTES, Maze, MazeError};
use proagent_core::files::{FileAccess, FileRefusal, LocalFiles, NamedReadError, read_named_text};

/// Why a spec gave no game.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Neither a built-in name nor an existing file.
    #[error("unknown collab scenario {spec:?}: not a built-in name ({names}) nor an existing maze file")]
    Unknown {
        /// The spec.
        spec: String,
        /// The built-in names.
        names: String,
    },
    /// The caller's file-access policy refused the path: nothing was opened.
    #[error(transparent)]
    Refused(FileRefusal),
    /// The file could not be read.
    #[error("reading maze file {path}: {error}")]
    Read {
        /// The path.
        path: String,
        /// What went wrong.
        error: std::io::Error,
    },
    /// The file is not a valid maze (names file and line).
    #[error(transparent)]
    Maze(#[from] MazeError),
    /// The maze is for the other game.
    #[error("{spec} is a maze for {found}, not {wanted}")]
    WrongGame {
        /// The spec.
        spec: String,
        /// The game asked for.
        wanted: &'static str,
        /// The game of the maze.
        found: &'static str,
    },
}

/// One of the two games, as a spec names it.
#[derive(Clone, Debug)]
pub enum CollabGame {
    /// CollabCapture.
    Capture(Capture),
    /// CollabEscape.
    Escape(Escape),
}

/// A maze game taken out of a loaded [`CollabGame`].
pub trait FromCollab: Sized {
    /// This game (`None`: the loaded game is the other one).
    fn from_collab(game: CollabGame) -> Option<Self>;
}

impl FromCollab for Capture {
    fn from_collab(game: CollabGame) -> Option<Capture> {
        match game {
            CollabGame::Capture(g) => Some(g),
            CollabGame::Escape(_) => None,
        }
    }
}

impl FromCollab for Escape {
    fn from_collab(game: CollabGame) -> Option<Escape> {
        match game {
            CollabGame::Escape(g) => Some(g),
            CollabGame::Capture(_) => None,
        }
    }
}

/// The maze a spec names (a built-in name, or a maze file on this machine: the command
/// line's policy, [`LocalFiles`]).
pub fn load_maze(spec: &str) -> Result<Maze, LoadError> {
    load_maze_in(spec, &LocalFiles).map(|(maze, _)| maze)
}

/// The maze a spec names, a file opened only as `files` allows, with the file's text
/// (`None` for a built-in scenario). A path `files` says is missing is an unknown spec;
/// any other refusal is [`LoadError::Refused`].
pub fn load_maze_in(spec: &str, files: &dyn FileAccess) -> Result<(Maze, Option<String>), LoadError> {
    if let Some(m) = Maze::builtin(spec) {
        return Ok((m, None));
    }
    let text = read_named_text(files, spec, MAX_MAZE_TEXT_BYTES as u64, "maze files").map_err(|e| match e {
        NamedReadError::Refused(FileRefusal::Missing(_)) => {
            let names: Vec<&str> = Maze::builtin_names().collect();
            LoadError::Unknown { spec: spec.to_string(), names: names.join(", ") }
        }
        NamedReadError::Refused(refusal) => LoadError::Refused(refusal),
        NamedReadError::Io { path, source } => LoadError::Read { path, error: source },
    })?;
    let maze = Maze::parse(&text, spec)?;
    Ok((maze, Some(text)))
}

/// The game a spec names (its maze says which), a maze file on this machine as the command
/// line reads it ([`LocalFiles`]).
pub fn load(spec: &str) -> Result<CollabGame, LoadError> {
    load_in(spec, &LocalFiles).map(|(game, _)| game)
}

/// The game a spec names, a maze file opened only as `files` allows, with the file's text
/// (`None` for a built-in scenario).
pub fn load_in(spec: &str, files: &dyn FileAccess) -> Result<(CollabGame, Option<String>), LoadError> {
    let (maze, text) = load_maze_in(spec, files)?;
    let game = match maze.kind {
        GameKind::Capture => CollabGame::Capture(Capture::new(maze, spec).map_err(|_| wrong(spec, GameKind::Escape))?),
        GameKind::Escape => CollabGame::Escape(Escape::new(maze, spec).map_err(|_| wrong(spec, GameKind::Capture))?),
    };
    Ok((game, text))
}

/// The CollabCapture game a spec names.
pub fn load_capture(spec: &str) -> Result<Capture, LoadError> {
    match load(spec)? {
        CollabGame::Capture(g) => Ok(g),
        CollabGame::Escape(_) => Err(wrong(spec, GameKind::Capture)),
    }
}

/// The CollabEscape game a spec names.
pub fn load_escape(spec: &str) -> Result<Escape, LoadError> {
    match load(spec)? {
        CollabGame::Escape(g) => Ok(g),
        CollabGame::Capture(_) => Err(wrong(spec, GameKind::Escape)),
    }
}

fn wrong(spec: &str, wanted: GameKind) -> LoadError {
    let name = |k| match k {
        GameKind::Capture => "CollabCapture",
        GameKind::Escape => "CollabEscape",
    };
    let found = match wanted {
        GameKind::Capture => GameKind::Escape,
        GameKind::Escape => GameKind::Capture,
    };
    LoadError::WrongGame { spec: spec.to_string(), wanted: name(wanted), found: name(found) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_and_files() {
        assert!(matches!(load("capture:4"), Ok(CollabGame::Capture(_))));
        assert!(matches!(load("escape:2"), Ok(CollabGame::Escape(_))));
        let e = load("capture:9").unwrap_err();
        assert!(e.to_string().contains("capture:1, capture:2"), "{e}");
        let e = load_escape("capture:1").unwrap_err();
        assert_eq!(e.to_string(), "capture:1 is a maze for CollabCapture, not CollabEscape");
        let dir = std::env::temp_dir().join(format!("collab-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("bad.maze");
        std::fs::write(&f, "game: escape\nrooms: 2\nroom 1: 2\nroom 2: 1\ngenerator: 3\n").unwrap();
        let e = load(f.to_str().unwrap()).unwrap_err();
        assert_eq!(e.to_string(), format!("{}:5: generator: \"3\" is not a room (rooms are 1 to 2)", f.display()));
        let e = load(dir.to_str().unwrap()).unwrap_err();
        assert_eq!(e.to_string(), format!("{}: is a directory, not a file", dir.display()));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A policy that lets nothing be opened, and says so the same way for every path.
    struct Nothing;
    impl FileAccess for Nothing {
        fn resolve(&self, named: &str) -> Result<std::path::PathBuf, FileRefusal> {
            Err(FileRefusal::Forbidden { path: named.to_string(), reason: "not served".into() })
        }
    }

    #[test]
    fn a_path_is_opened_only_through_the_policy() {
        // The kernel's views are refused before anything is read: nothing of them is quoted.
        for spec in ["/proc/self/environ", "/dev/zero", "/proc/self/cmdline"] {
            let e = load(spec).unwrap_err();
            assert!(
                matches!(e, LoadError::Refused(FileRefusal::NotRegular(_) | FileRefusal::Special { .. })),
                "{spec}: {e}"
            );
            assert_eq!(e.to_string().split(':').next(), Some(spec), "{e}");
        }
        let dir = std::env::temp_dir().join(format!("collab-policy-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("ok.maze");
        std::fs::write(&f, crate::Maze::builtin_text("capture:1").unwrap()).unwrap();
        let named = f.display().to_string();
        let (game, text) = load_in(&named, &LocalFiles).unwrap();
        assert!(matches!(game, CollabGame::Capture(_)) && text.is_some());
        // A policy that refuses: an existing file and a missing one get the same answer.
        let missing = dir.join("no.maze").display().to_string();
        let a = load_in(&named, &Nothing).err().unwrap().to_string().replace(&named, "P");
        let b = load_in(&missing, &Nothing).err().unwrap().to_string().replace(&missing, "P");
        assert_eq!(a, b);
        assert_eq!(a, "P: not served");
        // Built-in names never ask the policy.
        assert!(load_in("escape:1", &Nothing).is_ok());
        #[cfg(unix)]
        {
            let fifo = dir.join("pipe.maze");
            assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
            let e = load(&fifo.display().to_string()).unwrap_err();
            assert!(e.to_string().contains("not a regular file"), "{e}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
