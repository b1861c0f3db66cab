//! proagent-core: the bottom layer of proagent. The game interface every game implements
//! ([`game`]), what sits in a seat ([`seat`]), the policy every file named by input is
//! opened through ([`files`]), and every size and count limit with the bounded readers all
//! files go through ([`limits`]). Nothing here knows a particular game.

#![warn(missing_docs)]

pub mod episode;
pub mod files;
pub mod game;
pub mod limits;
pub mod seat;

pub use game::{Chance, Game, NoChance, Turn};
pub use seat::{
    AgentError, BeliefCorrection, EpisodeAbort, LlmUsage, Observation, Seat, SeatStatus, SkillEvent, SkillOutcome,
    derive_seed, seat_seed,
};
