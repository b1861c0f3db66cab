//! A small episode harness for the two maze games until the generic runner takes them
//! over: two seats play N seeded episodes of one scenario, and the summary gives the
//! success rate (capture or escape) and the mean turns, as the paper's Table 2 reports.
//!
//! Guarantees: deterministic (episode `i` of a run with seed `s` uses the chance stream
//! `derive_seed(s + i, 1)` and seat seeds `seat_seed(s + i, player)`), no clock, no I/O.
//! An episode ends when the game says it is over or after the maze's turn limit.

use proagent_collab::capture::Capture;
use proagent_collab::escape::{Escape, EscapeResult};
use proagent_core::{AgentError, Game, Observation, Seat, derive_seed, seat_seed};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

/// What counts as success in a game.
pub trait Goal: Game {
    /// Whether the players reached their goal in `state` (caught the thief, escaped).
    fn succeeded(&self, state: &Self::State) -> bool;
}

impl Goal for Capture {
    fn succeeded(&self, state: &Self::State) -> bool {
        state.caught
    }
}

impl Goal for Escape {
    fn succeeded(&self, state: &Self::State) -> bool {
        state.result == EscapeResult::Escaped
    }
}

/// How one episode ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EpisodeEnd {
    /// The episode seed.
    pub seed: u64,
    /// Whether the players succeeded.
    pub success: bool,
    /// Turns played.
    pub turns: u32,
    /// The actions of every turn, as tokens (player 0, player 1).
    pub actions: Vec<[String; 2]>,
}

/// Success rate and turns over the episodes of one scenario.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Summary {
    /// The game (`collab_capture`, `collab_escape`).
    pub game: String,
    /// The scenario.
    pub spec: String,
    /// The seats' names (player 0, player 1).
    pub seats: [String; 2],
    /// Episodes played.
    pub episodes: usize,
    /// Episodes won.
    pub successes: usize,
    /// `successes / episodes`.
    pub success_rate: f64,
    /// Mean turns of the won episodes (`None` when none was won), as the paper reports.
    pub mean_turns_success: Option<f64>,
    /// Mean turns of all episodes (a lost or timed-out episode counts its turns).
    pub mean_turns_all: f64,
    /// Every episode.
    pub runs: Vec<EpisodeEnd>,
}

/// Runs a future that never waits on I/O (the bots', or any that only yields) to its end
/// on this thread.
pub fn block_on<F: Future>(fut: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut fut = std::pin::pin!(fut);
    loop {
        match fut.as_mut().poll(&mut cx) {
            Poll::Ready(v) => return v,
            Poll::Pending => std::thread::park(),
        }
    }
}

/// Plays one episode of `game` with `seats` (player 0, player 1) from episode seed `seed`.
pub fn play_episode<G: Goal>(game: &G, seats: &mut [Box<dyn Seat<G>>; 2], seed: u64) -> Result<EpisodeEnd, AgentError> {
    let mut chance = ChaCha8Rng::seed_from_u64(derive_seed(seed, 1));
    let mut state = game.initial_state(&mut chance);
    for (p, seat) in seats.iter_mut().enumerate() {
        seat.reset(game, p, seat_seed(seed, p));
    }
    let mut last_actions: Vec<Option<G::Action>> = Vec::new();
    let mut last_events: Vec<Option<G::Event>> = vec![None, None];
    let mut actions = Vec::new();
    while !game.is_over(&state) && game.time(&state) < game.max_steps() {
        let turn = game.turn(&state);
        let mut joint: Vec<Option<G::Action>> = vec![None, None];
        for (p, seat) in seats.iter_mut().enumerate() {
            if !turn.includes(p) {
                continue;
            }
            let obs = Observation {
                game,
                view: game.view(&state, p),
                seat: p,
                t: game.time(&state),
                last_actions: &last_actions,
                last_events: &last_events,
            };
            joint[p] = Some(block_on(seat.act(&obs))?);
        }
        let outcome = game.step(&mut state, &joint, &mut chance);
        actions.push([0, 1].map(|p| joint[p].map_or_else(|| "-".to_string(), |a| game.action_token(a))));
        last_events = (0..2).map(|p| game.event(&outcome, p).cloned()).collect();
        last_actions = joint;
    }
    Ok(EpisodeEnd { seed, success: game.succeeded(&state), turns: game.time(&state), actions })
}

/// Plays `episodes` episodes (seeds `seed`, `seed + 1`, …) and sums them up.
pub fn run<G: Goal>(
    game: &G,
    seats: &mut [Box<dyn Seat<G>>; 2],
    episodes: usize,
    seed: u64,
) -> Result<Summary, AgentError> {
    let mut runs = Vec::with_capacity(episodes);
    for i in 0..episodes {
        runs.push(play_episode(game, seats, seed.wrapping_add(i as u64))?);
    }
    let won: Vec<&EpisodeEnd> = runs.iter().filter(|r| r.success).collect();
    let n = runs.len().max(1) as f64;
    Ok(Summary {
        game: game.kind().to_string(),
        spec: game.spec(),
        seats: [seats[0].name(), seats[1].name()],
        episodes: runs.len(),
        successes: won.len(),
        success_rate: won.len() as f64 / n,
        mean_turns_success: (!won.is_empty())
            .then(|| won.iter().map(|r| f64::from(r.turns)).sum::<f64>() / won.len() as f64),
        mean_turns_all: runs.iter().map(|r| f64::from(r.turns)).sum::<f64>() / n,
        runs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collab::{capture_seat, escape_seat};

    #[test]
    fn runs_are_deterministic_and_summed_up() {
        let g = Escape::builtin("escape:1").unwrap();
        let mut seats = [escape_seat("random").unwrap(), escape_seat("fixer").unwrap()];
        let a = run(&g, &mut seats, 20, 7).unwrap();
        let b = run(&g, &mut seats, 20, 7).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.episodes, 20);
        assert_eq!(a.successes, a.runs.iter().filter(|r| r.success).count());
        assert!(a.runs.iter().all(|r| r.turns >= 1 && r.turns <= g.max_steps()));
        assert_eq!(a.seats, ["random".to_string(), "fixer".to_string()]);
        // Different seeds give different episodes (the killer wanders and random plays).
        let c = run(&g, &mut seats, 20, 8).unwrap();
        assert_ne!(a.runs, c.runs);
    }

    #[test]
    fn the_capture_greedy_baseline_is_deterministic() {
        let g = Capture::builtin("capture:3").unwrap();
        let mut seats = [capture_seat("greedy_baseline").unwrap(), capture_seat("greedy_baseline").unwrap()];
        let s = run(&g, &mut seats, 3, 0).unwrap();
        assert!(s.runs.windows(2).all(|w| w[0].actions == w[1].actions));
        // The opening of the published loop with doors 1-2 open, 3-4 closed.
        assert_eq!(s.runs[0].actions[0], ["M2".to_string(), "M5".to_string()]);
    }
}
