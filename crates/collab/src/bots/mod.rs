//! Seats that need no model, for both games: random players, scripted partners (a greedy
//! chaser and a door operator for CollabCapture; a runner and a generator fixer for
//! CollabEscape) and the paper's greedy baseline. Each implements
//! `proagent_core::Seat` for its game and sees only its observation.
//!
//! Guarantees: deterministic given the seed passed to `reset` (only [`capture::Random`]
//! and [`escape::Random`] draw, from a seeded ChaCha8); every action returned is one of
//! the game's legal actions for the seat's player in the observed state.

pub mod capture;
pub mod escape;

use crate::capture::Capture;
use crate::escape::Escape;
use crate::maze::{Maze, Room};
use proagent_core::Seat;

/// The CollabCapture seat names [`capture_seat`] knows.
pub const CAPTURE_SEATS: &[&str] = &["random", "chaser", "door_operator", "greedy_baseline"];
/// The CollabEscape seat names [`escape_seat`] knows.
pub const ESCAPE_SEATS: &[&str] = &["random", "runner", "fixer", "greedy_baseline"];

/// A CollabCapture seat by name (see [`CAPTURE_SEATS`]).
pub fn capture_seat(name: &str) -> Option<Box<dyn Seat<Capture>>> {
    Some(match name {
        "random" => Box::new(capture::Random::default()),
        "chaser" => Box::new(capture::Chaser),
        "door_operator" => Box::new(capture::DoorOperator),
        "greedy_baseline" => Box::new(capture::GreedyBaseline),
        _ => return None,
    })
}

/// A CollabEscape seat by name (see [`ESCAPE_SEATS`]).
pub fn escape_seat(name: &str) -> Option<Box<dyn Seat<Escape>>> {
    Some(match name {
        "random" => Box::new(escape::Random::default()),
        "runner" => Box::new(escape::Runner),
        "fixer" => Box::new(escape::Fixer),
        "greedy_baseline" => Box::new(escape::GreedyBaseline),
        _ => return None,
    })
}

/// Breadth-first search from `from` along the exits `open` allows, exits taken in maze
/// order: for every room its distance (`u32::MAX` when unreachable) and the first move
/// of the first shortest path found to it (0 for `from` and unreachable rooms).
pub fn paths_from(maze: &Maze, from: Room, open: impl Fn(Room, Room) -> bool) -> (Vec<u32>, Vec<Room>) {
    let mut dist = vec![u32::MAX; maze.rooms + 1];
    let mut first = vec![0 as Room; maze.rooms + 1];
    if from as usize == 0 || from as usize > maze.rooms {
        return (dist, first);
    }
    let mut queue = std::collections::VecDeque::from([from]);
    dist[from as usize] = 0;
    while let Some(r) = queue.pop_front() {
        for &n in maze.exits(r) {
            if dist[n as usize] == u32::MAX && open(r, n) {
                dist[n as usize] = dist[r as usize] + 1;
                first[n as usize] = if r == from { n } else { first[r as usize] };
                queue.push_back(n);
            }
        }
    }
    (dist, first)
}
