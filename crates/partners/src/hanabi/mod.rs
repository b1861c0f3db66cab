//! Rule-based Hanabi partners, each a [`proagent_core::Seat<Hanabi>`] that sees only its
//! [`HanabiView`] (never its own cards):
//!
//! - [`RandomBot`] (`random`): a uniformly random legal move from a seeded generator.
//! - [`SimpleBot`] (`simple`): HLE's simple agent, from its published rules (see
//!   [`simple`]); checked move for move against HLE's own agent on the fixture traces.
//! - [`ConventionBot`] (`convention`): a hat-free heuristic player after the rule list of
//!   Van den Bergh et al. (see [`convention`]).
//!
//! Every bot's decision is a pure function of the view (plus the random bot's seeded
//! generator), so the same seed gives the same game.

pub mod common;
pub mod convention;
pub mod selfplay;
pub mod simple;

#[cfg(test)]
mod tests;

pub use convention::ConventionBot;
pub use simple::SimpleBot;

use async_trait::async_trait;
use proagent_core::{AgentError, Observation, Seat};
use proagent_hanabi::rules::{Hanabi, Move};
use proagent_hanabi::view::HanabiView;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// The names [`make_bot`] knows.
pub const BOT_NAMES: [&str; 3] = ["random", "simple", "convention"];

/// A bot by name (`random`, `simple`, `convention`).
pub fn make_bot(name: &str) -> Option<Box<dyn Seat<Hanabi>>> {
    match name {
        "random" => Some(Box::new(RandomBot::default())),
        "simple" => Some(Box::new(SimpleBot)),
        "convention" => Some(Box::new(ConventionBot)),
        _ => None,
    }
}

/// A uniformly random legal move.
#[derive(Clone, Debug)]
pub struct RandomBot {
    rng: ChaCha8Rng,
}

impl Default for RandomBot {
    fn default() -> Self {
        RandomBot { rng: ChaCha8Rng::seed_from_u64(0) }
    }
}

impl RandomBot {
    /// A random move of the view's legal moves.
    pub fn choose(&mut self, view: &HanabiView<'_>) -> Move {
        use rand::Rng;
        let legal = view.legal_moves();
        if legal.is_empty() {
            return Move::Play(0);
        }
        legal[self.rng.random_range(0..legal.len())]
    }
}

#[async_trait]
impl Seat<Hanabi> for RandomBot {
    fn name(&self) -> String {
        "random".into()
    }
    fn reset(&mut self, _game: &Hanabi, _seat: usize, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }
    async fn act(&mut self, obs: &Observation<'_, Hanabi>) -> Result<Move, AgentError> {
        Ok(self.choose(&obs.view))
    }
}
