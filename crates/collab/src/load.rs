//! From a spec to a game: a built-in scenario name (`capture:1` … `capture:4`,
//! `escape:1`, `escape:2`) or the path of a maze file. This is the crate's only I/O; files
//! are read through the bounded reader of `proagent_core::limits`.
//!
//! Guarantees: every failure is a [`LoadError`] that names the spec or file (and, for a
//! bad file, the line); nothing panics.

use crate::capture::Capture;
use crate::escape::Escape;
use crate::maze::{GameKind, MAX_MAZE_TEXT_BYTES, Maze, MazeError};
use std::path::Path;

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

/// The maze a spec names.
pub fn load_maze(spec: &str) -> Result<Maze, LoadError> {
    if let Some(m) = Maze::builtin(spec) {
        return Ok(m);
    }
    let path = Path::new(spec);
    if !path.exists() {
        let names: Vec<&str> = Maze::builtin_names().collect();
        return Err(LoadError::Unknown { spec: spec.to_string(), names: names.join(", ") });
    }
    let text = proagent_core::limits::read_file_text(path, MAX_MAZE_TEXT_BYTES as u64, "maze files")
        .map_err(|error| LoadError::Read { path: path.display().to_string(), error })?;
    Ok(Maze::parse(&text, &path.display().to_string())?)
}

/// The game a spec names (its maze says which).
pub fn load(spec: &str) -> Result<CollabGame, LoadError> {
    let maze = load_maze(spec)?;
    Ok(match maze.kind {
        GameKind::Capture => CollabGame::Capture(Capture::new(maze, spec).map_err(|_| wrong(spec, GameKind::Escape))?),
        GameKind::Escape => CollabGame::Escape(Escape::new(maze, spec).map_err(|_| wrong(spec, GameKind::Capture))?),
    })
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
        assert!(e.to_string().starts_with("reading maze file"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
