//! What the CollabCapture and CollabEscape seats share: a uniform random seat and the
//! `Seat` implementation of a stateless rule (shortest paths are the maze's own,
//! `Maze::shortest_paths`).

use async_trait::async_trait;
use proagent_core::{AgentError, Game, Observation, Seat};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::marker::PhantomData;

/// Uniform over the legal actions of game `G`, from a ChaCha8 seeded by `reset`.
pub struct Random<G> {
    rng: ChaCha8Rng,
    game: PhantomData<fn() -> G>,
}

impl<G> Default for Random<G> {
    fn default() -> Self {
        Random { rng: ChaCha8Rng::seed_from_u64(0), game: PhantomData }
    }
}

#[async_trait]
impl<G: Game> Seat<G> for Random<G> {
    fn name(&self) -> String {
        "random".to_string()
    }

    fn reset(&mut self, _game: &G, _seat: usize, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    async fn act(&mut self, obs: &Observation<'_, G>) -> Result<G::Action, AgentError> {
        let legal = obs.legal_actions();
        // Both maze games always offer staying put; an empty list would be a game bug.
        legal.get(self.rng.random_range(0..legal.len().max(1))).copied().ok_or(AgentError::NoLegalAction(obs.seat))
    }
}

/// `Seat<$game>` for a stateless rule type `$rule` whose `decide(game, state, player)`
/// gives the action, named `$name`.
macro_rules! rule_seat {
    ($game:ty, $rule:ty, $name:literal) => {
        #[async_trait::async_trait]
        impl proagent_core::Seat<$game> for $rule {
            fn name(&self) -> String {
                $name.to_string()
            }

            fn reset(&mut self, _game: &$game, _seat: usize, _seed: u64) {}

            async fn act(
                &mut self,
                obs: &proagent_core::Observation<'_, $game>,
            ) -> Result<<$game as proagent_core::Game>::Action, proagent_core::AgentError> {
                Ok(<$rule>::decide(obs.game, obs.view, obs.seat))
            }
        }
    };
}
pub(crate) use rule_seat;
