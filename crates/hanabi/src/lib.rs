//! proagent-hanabi: Hanabi exactly as DeepMind's Hanabi Learning Environment (HLE 0.0.4)
//! plays it, behind the runtime's game interface.
//!
//! - [`rules`]: cards, knowledge, moves with HLE's indices, legality, dealing, scoring.
//! - [`view`]: one player's view, which cannot show that player's own cards.
//! - [`game`]: the [`proagent_core::Game`] implementation (events, tally, text, JSON).
//! - [`encode`]: HLE's canonical observation vector.
//! - [`trace`]: reference games recorded from HLE, replayed move for move.
//!
//! Its rule-based bots (random, HLE's simple agent, a convention bot) and a self-play loop
//! are partners: `proagent_partners::hanabi`.
//!
//! Pure Rust: no I/O, no clock; every random draw goes through [`proagent_core::Chance`]
//! or a seeded generator.

#![warn(missing_docs)]

pub mod encode;
pub mod game;
pub mod rules;
pub mod trace;
pub mod view;

pub use game::{HanabiEvent, HanabiOutcome, HanabiTally};
pub use rules::{Card, CardKnowledge, EndReason, Hanabi, HanabiError, Move, MoveRecord, Scoring, State};
pub use view::HanabiView;

#[cfg(test)]
mod tests;
