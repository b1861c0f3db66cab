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

use proagent_collab::MazeRules;
use proagent_collab::capture::Capture;
use proagent_collab::escape::Escape;
use proagent_core::{Game, Seat};

/// What a maze game adds to the seats every maze game has ([`common::Random`]): its
/// scripted seats by name.
pub trait MazeSeats: MazeRules + Game {
    /// The seat names [`maze_seat`] knows for the game, `random` first.
    const SEATS: &'static [&'static str];
    /// The game's own scripted seat by name (not `random`).
    fn scripted_seat(name: &str) -> Option<Box<dyn Seat<Self>>>;
}

/// A seat of maze game `G` by name (see [`MazeSeats::SEATS`]): `random`, uniform over the
/// legal actions, or one of the game's scripted seats.
pub fn maze_seat<G: MazeSeats>(name: &str) -> Option<Box<dyn Seat<G>>> {
    match name {
        "random" => Some(Box::new(common::Random::<G>::default())),
        other => G::scripted_seat(other),
    }
}

impl MazeSeats for Capture {
    const SEATS: &'static [&'static str] = &["random", "chaser", "door_operator", "greedy_baseline"];
    fn scripted_seat(name: &str) -> Option<Box<dyn Seat<Capture>>> {
        Some(match name {
            "chaser" => Box::new(capture::Chaser),
            "door_operator" => Box::new(capture::DoorOperator),
            "greedy_baseline" => Box::new(capture::GreedyBaseline),
            _ => return None,
        })
    }
}

impl MazeSeats for Escape {
    const SEATS: &'static [&'static str] = &["random", "runner", "fixer", "greedy_baseline"];
    fn scripted_seat(name: &str) -> Option<Box<dyn Seat<Escape>>> {
        Some(match name {
            "runner" => Box::new(escape::Runner),
            "fixer" => Box::new(escape::Fixer),
            "greedy_baseline" => Box::new(escape::GreedyBaseline),
            _ => return None,
        })
    }
}

/// The CollabCapture seat names [`capture_seat`] knows.
pub const CAPTURE_SEATS: &[&str] = <Capture as MazeSeats>::SEATS;
/// The CollabEscape seat names [`escape_seat`] knows.
pub const ESCAPE_SEATS: &[&str] = <Escape as MazeSeats>::SEATS;

/// A CollabCapture seat by name (see [`CAPTURE_SEATS`]): [`maze_seat`] for CollabCapture.
pub fn capture_seat(name: &str) -> Option<Box<dyn Seat<Capture>>> {
    maze_seat::<Capture>(name)
}

/// A CollabEscape seat by name (see [`ESCAPE_SEATS`]): [`maze_seat`] for CollabEscape.
pub fn escape_seat(name: &str) -> Option<Box<dyn Seat<Escape>>> {
    maze_seat::<Escape>(name)
}
