//! Seats that need no model, for both games: random players, scripted partners (a greedy
//! chaser and a door operator for CollabCapture; a runner and a generator fixer for
//! CollabEscape) and the paper's greedy baseline. Each implements
//! `proagent_core::Seat` for its game and sees only its observation.
//!
//! Guarantees: deterministic given the seed passed to `reset` (only [`capture::Random`]
//! and [`escape::Random`] draw, from a seeded ChaCha8); every action returned is one of
//! the game's legal actions for the seat's player in the observed state.

pub mod capture;
pub mod common;
pub mod escape;
pub mod selfplay;

#[cfg(test)]
mod tests;

use proagent_collab::capture::Capture;
use proagent_collab::escape::Escape;
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
