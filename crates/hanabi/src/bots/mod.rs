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

pub mod convention;
pub mod simple;

pub use convention::ConventionBot;
pub use simple::SimpleBot;

use crate::rules::{Card, Hanabi, Move, NUM_COLORS, NUM_RANKS};
use crate::view::HanabiView;
use async_trait::async_trait;
use proagent_core::{AgentError, Observation, Seat};
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

/// The move a seat falls back on when its rule gives none that is legal: the first legal
/// move in HLE's order (or playing card 0 when it is not the seat's turn at all).
pub(crate) fn fallback(view: &HanabiView<'_>) -> Move {
    view.legal_moves().first().copied().unwrap_or(Move::Play(0))
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

/// Whether a card kind can never be played again: its firework is past it, or a lower
/// card of its colour has had every copy discarded.
pub fn is_dead(view: &HanabiView<'_>, card: Card, discarded: &[u8; 25]) -> bool {
    let h = view.fireworks()[card.color as usize % NUM_COLORS];
    if card.rank < h {
        return true;
    }
    (h..card.rank).any(|r| discarded[Card::new(card.color, r).index()] >= crate::rules::COPIES[r as usize])
}

/// Discarded copies of each card kind.
pub fn discard_counts(view: &HanabiView<'_>) -> [u8; 25] {
    let mut d = [0u8; 25];
    for c in view.discards() {
        d[c.index()] += 1;
    }
    d
}

/// The card kinds `knowledge` allows, weighted by how many copies the observer cannot see.
pub fn candidates(knowledge: &crate::rules::CardKnowledge, unseen: &[u8; 25]) -> [u8; 25] {
    let mut w = [0u8; 25];
    for (i, x) in w.iter_mut().enumerate() {
        let c = Card::from_index(i);
        if knowledge.allows(c) {
            *x = unseen[i];
        }
    }
    w
}

/// Fraction of the weight of `w` on kinds satisfying `pred` (0 when `w` is empty).
pub fn probability(w: &[u8; 25], pred: impl Fn(Card) -> bool) -> f64 {
    let total: u32 = w.iter().map(|&x| u32::from(x)).sum();
    if total == 0 {
        return 0.0;
    }
    let hit: u32 = w.iter().enumerate().filter(|(i, _)| pred(Card::from_index(*i))).map(|(_, &x)| u32::from(x)).sum();
    f64::from(hit) / f64::from(total)
}

/// Number of ranks (for loops over ranks as `u8`).
pub(crate) const RANKS: u8 = NUM_RANKS as u8;
