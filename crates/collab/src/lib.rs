//! proagent-collab: CollabCapture and CollabEscape, the two maze games of the
//! LLM-Coordination benchmark (Agashe et al.), with the rules of the paper's own
//! implementation (eric-ai-lab/llm_coordination); see docs/collab.md.
//!
//! Lowest first: [`maze`] (the maze file format and the six built-in scenarios),
//! [`game_core`] (what both games share: the maze core, the moves, one `proagent_core::Game`
//! implementation over a game's [`MazeRules`]), [`capture`] and [`escape`] (the two
//! games' own rules),
//! [`load`] (spec or file to a game: the only I/O), [`trace`] (replaying reference
//! rollouts recorded from the Python implementation). Its seats (random, scripted partners,
//! the paper's greedy baseline) and a self-play loop are partners:
//! `proagent_partners::collab`.

#![warn(missing_docs)]
#![allow(clippy::needless_range_loop)]

pub mod capture;
pub mod escape;
pub mod game_core;
pub mod load;
pub mod maze;
pub mod trace;

pub use capture::{Capture, CaptureAction, CaptureEvent, CaptureOutcome, CaptureState, CaptureTally};
pub use escape::{
    Escape, EscapeAction, EscapeEvent, EscapeOutcome, EscapeResult, EscapeState, EscapeTally, KillerPlan,
};
pub use game_core::{MazeAction, MazeCore, MazeRules};
pub use load::{CollabGame, FromCollab, LoadError, load, load_capture, load_escape, load_in, load_maze_in};
pub use maze::{CatchRule, Flee, GameKind, Maze, MazeError, Room};
