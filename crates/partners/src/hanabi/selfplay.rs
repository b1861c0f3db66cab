//! A small self-play loop for Hanabi seats, without the generic episode runner: one game at
//! a time on the calling thread, each seat's `act` polled to completion in place.
//!
//! Guarantees: deterministic (the deal comes from `derive_seed(seed, 0)`, each seat is
//! reset with `seat_seed(seed, player)`); a seat only ever gets its own player's view; a
//! seat that answers with an illegal move has it refused (counted in the tally's
//! `refused`) and the first legal move is played in its place, so a game always ends.

use proagent_core::{AgentError, Game, Observation, Seat, derive_seed, seat_seed};
use proagent_hanabi::game::HanabiTally;
use proagent_hanabi::rules::{Hanabi, Move};
use proagent_hanabi::view::HanabiView;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;
use std::future::Future;
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// Why a self-play game could not be played.
#[derive(Debug, thiserror::Error)]
pub enum SelfPlayError {
    /// A seat's agent cannot go on.
    #[error("seat {seat} ({name}): {source}")]
    Agent {
        /// The player.
        seat: usize,
        /// The seat's name.
        name: String,
        /// Why.
        source: AgentError,
    },
    /// A seat waited on something (a model): this loop only runs seats that answer at once.
    #[error("seat {seat} ({name}) did not answer at once; play it through the episode runner")]
    Pending {
        /// The player.
        seat: usize,
        /// The seat's name.
        name: String,
    },
    /// Not one seat per player.
    #[error("{got} seats for a {want}-player game")]
    Seats {
        /// Seats given.
        got: usize,
        /// Players.
        want: usize,
    },
}

/// One finished self-play game.
#[derive(Clone, Debug, Serialize)]
pub struct SelfPlayGame {
    /// The game's seed.
    pub seed: u64,
    /// The tally (both scores, lives lost, hints, end reason).
    pub tally: HanabiTally,
    /// The moves as tokens.
    pub moves: Vec<String>,
}

fn poll_now<F: Future>(f: F) -> Option<F::Output> {
    let mut f = pin!(f);
    let mut cx = Context::from_waker(Waker::noop());
    match f.as_mut().poll(&mut cx) {
        Poll::Ready(v) => Some(v),
        Poll::Pending => None,
    }
}

/// Plays one game with `seats[p]` in seat `p`.
pub fn play_hanabi_selfplay(
    game: &Hanabi,
    seats: &mut [Box<dyn Seat<Hanabi>>],
    seed: u64,
) -> Result<SelfPlayGame, SelfPlayError> {
    let n = game.players();
    if seats.len() != n {
        return Err(SelfPlayError::Seats { got: seats.len(), want: n });
    }
    for (p, s) in seats.iter_mut().enumerate() {
        s.reset(game, p, seat_seed(seed, p));
    }
    let mut chance = ChaCha8Rng::seed_from_u64(derive_seed(seed, 0));
    let mut state = game.initial_state(&mut chance);
    let mut tally = HanabiTally::default();
    let mut last_actions: Vec<Option<Move>> = Vec::new();
    let mut last_events = vec![None; n];
    let mut moves = Vec::new();
    while !game.is_over(&state) && game.time(&state) < game.max_steps() {
        let p = state.current_player();
        let view: HanabiView<'_> = game.view(&state, p);
        let obs = Observation {
            game,
            view,
            seat: p,
            t: game.time(&state),
            last_actions: &last_actions,
            last_events: &last_events,
        };
        let chosen = match poll_now(seats[p].act(&obs)) {
            None => return Err(SelfPlayError::Pending { seat: p, name: seats[p].name() }),
            Some(Err(source)) => return Err(SelfPlayError::Agent { seat: p, name: seats[p].name(), source }),
            Some(Ok(m)) => m,
        };
        let before = state.clone();
        let mut actions = vec![None; n];
        actions[p] = Some(chosen);
        let mut outcome = game.step(&mut state, &actions, &mut chance);
        if outcome.record.is_none() {
            game.tally(&mut tally, &before, &state, &outcome);
            let fallback = game.legal_moves(&state, p).first().copied().unwrap_or(Move::Play(0));
            actions[p] = Some(fallback);
            outcome = game.step(&mut state, &actions, &mut chance);
        }
        game.tally(&mut tally, &before, &state, &outcome);
        moves.push(actions[p].map(|m| m.token()).unwrap_or_default());
        last_events = (0..n).map(|q| game.event(&outcome, q).cloned()).collect();
        last_actions = actions;
    }
    Ok(SelfPlayGame { seed, tally, moves })
}

/// Mean results of many self-play games.
#[derive(Clone, Debug, Serialize)]
pub struct SelfPlaySummary {
    /// The seats' names.
    pub bots: String,
    /// Players.
    pub players: usize,
    /// Games played.
    pub games: usize,
    /// Mean HLE score (0 for games lost on lives).
    pub mean_score: f64,
    /// Standard error of the mean HLE score.
    pub sem_score: f64,
    /// Mean cards played (the LLM-Coordination paper's score).
    pub mean_cards_played: f64,
    /// Standard error of the mean cards played.
    pub sem_cards_played: f64,
    /// Fraction of games scoring 25.
    pub perfect: f64,
    /// Fraction of games lost on lives.
    pub lost_on_lives: f64,
    /// Mean moves per game.
    pub mean_moves: f64,
    /// Refused (illegal) moves over all games.
    pub refused: u64,
}

fn mean_sem(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (0.0, 0.0);
    }
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, 0.0);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

/// Plays `games` games (seeds `seed`, `seed + 1`, ...) with seats made by `make` and sums
/// them up.
pub fn evaluate(
    game: &Hanabi,
    make: &dyn Fn() -> Vec<Box<dyn Seat<Hanabi>>>,
    games: usize,
    seed: u64,
) -> Result<SelfPlaySummary, SelfPlayError> {
    let mut seats = make();
    let bots = seats.iter().map(|s| s.name()).collect::<Vec<_>>().join("+");
    let (mut scores, mut played, mut moves) = (Vec::new(), Vec::new(), Vec::new());
    let (mut perfect, mut lost, mut refused) = (0usize, 0usize, 0u64);
    for g in 0..games {
        let r = play_hanabi_selfplay(game, &mut seats, seed.wrapping_add(g as u64))?;
        scores.push(f64::from(r.tally.score));
        played.push(f64::from(r.tally.cards_played));
        moves.push(f64::from(r.tally.moves));
        perfect += usize::from(r.tally.cards_played == 25);
        lost += usize::from(r.tally.end == Some(proagent_hanabi::rules::EndReason::OutOfLifeTokens));
        refused += u64::from(r.tally.refused);
    }
    let (mean_score, sem_score) = mean_sem(&scores);
    let (mean_cards_played, sem_cards_played) = mean_sem(&played);
    let d = games.max(1) as f64;
    Ok(SelfPlaySummary {
        bots,
        players: game.players(),
        games,
        mean_score,
        sem_score,
        mean_cards_played,
        sem_cards_played,
        perfect: perfect as f64 / d,
        lost_on_lives: lost as f64 / d,
        mean_moves: mean_sem(&moves).0,
        refused,
    })
}
