//! What the Hanabi bots share: the legal fallback move and the card arithmetic of
//! what is dead, discarded and still possible.

use proagent_hanabi::rules::{Card, Move, NUM_COLORS, NUM_RANKS};
use proagent_hanabi::view::HanabiView;

/// The move a seat falls back on when its rule gives none that is legal: the first legal
/// move in HLE's order (or playing card 0 when it is not the seat's turn at all).
pub(crate) fn fallback(view: &HanabiView<'_>) -> Move {
    view.legal_moves().first().copied().unwrap_or(Move::Play(0))
}

/// Whether a card kind can never be played again: its firework is past it, or a lower
/// card of its colour has had every copy discarded.
pub fn is_dead(view: &HanabiView<'_>, card: Card, discarded: &[u8; 25]) -> bool {
    let h = view.fireworks()[card.color as usize % NUM_COLORS];
    if card.rank < h {
        return true;
    }
    (h..card.rank).any(|r| discarded[Card::new(card.color, r).index()] >= proagent_hanabi::rules::COPIES[r as usize])
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
pub fn candidates(knowledge: &proagent_hanabi::rules::CardKnowledge, unseen: &[u8; 25]) -> [u8; 25] {
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
