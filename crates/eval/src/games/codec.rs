//! How a game is numbered and encoded for learning code (the Python bindings' `GameEnv`):
//! the game's [`VectorCodec`], chosen by the game itself ([`Playable::vector_codec`]), so
//! the bindings name no game.
//!
//! Guarantees: a codec's action indices are fixed for a game (they do not depend on the
//! state), [`VectorCodec::action_at`] inverts [`VectorCodec::action_index`] on every action
//! of the game, and [`VectorCodec::encode`] writes exactly [`VectorCodec::obs_len`]
//! values. [`GenericCodec`] serves every game from [`proagent_core::Game`] and
//! [`Playable`] alone; a game with its own indices and encoding (Hanabi's move uids and
//! canonical encoding, the mazes' rooms) returns its own from [`Playable::vector_codec`].

use super::playable::Playable;
use proagent_core::{Game, Seat};

/// A game's action indices, observation vectors and built-in seats for learning code.
pub trait VectorCodec<G: Game>: Send + Sync {
    /// Size of the action index space.
    fn n_actions(&self, game: &G) -> usize;
    /// The index of an action.
    fn action_index(&self, game: &G, a: G::Action) -> usize;
    /// The action of an index (`None`: not an action of this game).
    fn action_at(&self, game: &G, i: usize) -> Option<G::Action>;
    /// Length of one player's observation vector.
    fn obs_len(&self, game: &G) -> usize;
    /// `player`'s observation of `state`, written into `out` (resized to
    /// [`VectorCodec::obs_len`]); `last` is the last joint action (empty before the first).
    fn encode(&self, game: &G, state: &G::State, player: usize, last: &[Option<G::Action>], out: &mut Vec<f32>);
    /// A built-in seat by name, or why not (in words that name the known seats).
    fn seat(&self, game: &G, name: &str) -> Result<Box<dyn Seat<G>>, String>;
}

/// The codec of any game, from [`Game`] and [`Playable`] alone.
///
/// - **Actions**: every action some player may take in the start state (seed 0), in the
///   order the game lists them; index `i` is the `i`-th of that list.
/// - **Observation**: for each player (the observer first, then the others in seat
///   order) a one-hot of its action in the last step over the action indices, then the
///   share of the step limit played. Built from what every player saw, so it hides
///   nothing a game's own view would show less of only for games that show all actions.
/// - **Partners**: the game's own seat factory ([`Playable::partner`]).
pub struct GenericCodec<A> {
    table: Vec<A>,
}

impl<A: PartialEq + Copy> GenericCodec<A> {
    /// The action table of `game`.
    pub fn of<G: Game<Action = A>>(game: &G) -> GenericCodec<A> {
        let state = game.initial_state(&mut crate::runner::env_chance(0));
        let mut table: Vec<A> = Vec::new();
        for p in 0..game.num_players() {
            for a in game.legal_actions(game.view(&state, p), p) {
                if !table.contains(&a) {
                    table.push(a);
                }
            }
        }
        GenericCodec { table }
    }
}

impl<G: Playable> VectorCodec<G> for GenericCodec<G::Action> {
    fn n_actions(&self, _game: &G) -> usize {
        self.table.len()
    }
    fn action_index(&self, _game: &G, a: G::Action) -> usize {
        self.table.iter().position(|&b| b == a).unwrap_or(0)
    }
    fn action_at(&self, _game: &G, i: usize) -> Option<G::Action> {
        self.table.get(i).copied()
    }
    fn obs_len(&self, game: &G) -> usize {
        game.num_players() * self.table.len() + 1
    }
    fn encode(&self, game: &G, state: &G::State, player: usize, last: &[Option<G::Action>], out: &mut Vec<f32>) {
        let (n, k) = (game.num_players(), self.table.len());
        out.clear();
        out.resize(n * k + 1, 0.0);
        for slot in 0..n {
            let p = (player + slot) % n;
            if let Some(i) = last.get(p).copied().flatten().and_then(|a| self.table.iter().position(|&b| b == a)) {
                out[slot * k + i] = 1.0;
            }
        }
        out[n * k] = (game.time(state) as f32 / game.max_steps().max(1) as f32).clamp(0.0, 1.0);
    }
    fn seat(&self, game: &G, name: &str) -> Result<Box<dyn Seat<G>>, String> {
        game.partner(name).map_err(|e| e.to_string())
    }
}
