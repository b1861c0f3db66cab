//! What the CollabCapture and CollabEscape seats share: a uniform random seat, the
//! `Seat` implementation of a stateless rule, and shortest paths through the maze.

use async_trait::async_trait;
use proagent_collab::maze::{Maze, Room};
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
