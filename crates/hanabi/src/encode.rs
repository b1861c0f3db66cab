//! HLE's canonical vectorized observation (its `CanonicalObservationEncoder`, the vector
//! HLE's `rl_env` hands to learning agents): one 0/1 value per entry, observer-relative.
//!
//! Layout, in order (n players, hand size h, 25 card kinds):
//! 1. **Hands**: for each other player by seat offset 1..n, h slots of a one-hot card
//!    kind (25 each; empty slots stay 0); then n bits, by offset 0..n, set when that hand
//!    holds fewer than h cards.
//! 2. **Board**: the deck size as a thermometer over `50 - n*h` bits; per colour a one-hot
//!    of the firework height (5 bits, all 0 for an empty firework); information tokens
//!    (8-bit thermometer); life tokens (3-bit thermometer).
//! 3. **Discards**: per card kind, a thermometer over its copies (3/2/2/2/1), 50 bits.
//! 4. **Last move** (the most recent player move; all 0 before the first): mover (by
//!    offset, n bits), type (play, discard, colour hint, rank hint), hint target (by
//!    offset, n), colour (5), rank (5), cards the hint touched (h), index played or
//!    discarded (h), card played or discarded (25), play scored, play regained a token.
//! 5. **Card knowledge**: for every player by offset 0..n, h slots of: the 25 kinds still
//!    plausible (plausible colour and plausible rank), the hinted colour (5), the hinted
//!    rank (5).
//!
//! Guarantee: the same vector HLE 0.0.4 computes for the same observation (checked
//! against HLE's encoder on the fixture traces by the `trace` module).

use crate::rules::{COPIES, DECK_CARDS, Hanabi, MAX_INFO_TOKENS, MAX_LIFE_TOKENS, Move, NUM_COLORS, NUM_RANKS, State};

const BITS_PER_CARD: usize = NUM_COLORS * NUM_RANKS;

/// The length of the canonical vector for `game`.
pub fn encoded_len(game: &Hanabi) -> usize {
    let (n, h) = (game.players(), game.hand_size());
    let hands = (n - 1) * h * BITS_PER_CARD + n;
    let board = DECK_CARDS - n * h + BITS_PER_CARD + MAX_INFO_TOKENS as usize + MAX_LIFE_TOKENS as usize;
    let last = n + 4 + n + NUM_COLORS + NUM_RANKS + h + h + BITS_PER_CARD + 2;
    let know = n * h * (BITS_PER_CARD + NUM_COLORS + NUM_RANKS);
    hands + board + DECK_CARDS + last + know
}

/// Writes `observer`'s canonical vector of `s` into `out` (resized to [`encoded_len`]).
pub fn encode(game: &Hanabi, s: &State, observer: usize, out: &mut Vec<u8>) {
    let (n, h) = (game.players(), game.hand_size());
    out.clear();
    out.resize(encoded_len(game), 0);
    let o = observer % n;
    let mut at = 0;
    // 1. Hands of the others, then the "short hand" bits.
    for off in 1..n {
        for (i, c) in s.hand((o + off) % n).cards().iter().enumerate() {
            out[at + i * BITS_PER_CARD + c.index()] = 1;
        }
        at += h * BITS_PER_CARD;
    }
    for off in 0..n {
        if s.hand((o + off) % n).len() < h {
            out[at + off] = 1;
        }
    }
    at += n;
    // 2. Board.
    out[at..at + s.deck_size()].fill(1);
    at += DECK_CARDS - n * h;
    for (c, &height) in s.fireworks().iter().enumerate() {
        if height > 0 {
            out[at + c * NUM_RANKS + height as usize - 1] = 1;
        }
    }
    at += BITS_PER_CARD;
    out[at..at + s.info_tokens() as usize].fill(1);
    at += MAX_INFO_TOKENS as usize;
    out[at..at + s.life_tokens() as usize].fill(1);
    at += MAX_LIFE_TOKENS as usize;
    // 3. Discards.
    let mut counts = [0u8; BITS_PER_CARD];
    for d in s.discards() {
        counts[d.index()] += 1;
    }
    for (k, &cnt) in counts.iter().enumerate() {
        out[at..at + cnt as usize].fill(1);
        at += COPIES[k % NUM_RANKS] as usize;
    }
    // 4. Last move.
    let last_len = n + 4 + n + NUM_COLORS + NUM_RANKS + 2 * h + BITS_PER_CARD + 2;
    if let Some(r) = s.last_move() {
        let rel = (r.player as usize + n - o) % n;
        let mut a = at;
        out[a + rel] = 1;
        a += n;
        let kind = match r.mv {
            Move::Play(_) => 0,
            Move::Discard(_) => 1,
            Move::RevealColor { .. } => 2,
            Move::RevealRank { .. } => 3,
        };
        out[a + kind] = 1;
        a += 4;
        if let Move::RevealColor { offset, .. } | Move::RevealRank { offset, .. } = r.mv {
            out[a + (rel + offset as usize) % n] = 1;
        }
        a += n;
        if let Move::RevealColor { color, .. } = r.mv {
            out[a + color as usize] = 1;
        }
        a += NUM_COLORS;
        if let Move::RevealRank { rank, .. } = r.mv {
            out[a + rank as usize] = 1;
        }
        a += NUM_RANKS;
        if r.mv.is_hint() {
            for i in 0..h {
                if r.reveal_mask & (1 << i) != 0 {
                    out[a + i] = 1;
                }
            }
        }
        a += h;
        if let Move::Play(i) | Move::Discard(i) = r.mv {
            out[a + i as usize] = 1;
        }
        a += h;
        if let (Move::Play(_) | Move::Discard(_), Some(c)) = (r.mv, r.card) {
            out[a + c.index()] = 1;
        }
        a += BITS_PER_CARD;
        if let Move::Play(_) = r.mv {
            out[a] = u8::from(r.scored);
            out[a + 1] = u8::from(r.info_gained);
        }
    }
    at += last_len;
    // 5. Card knowledge, the observer's own first.
    let slot = BITS_PER_CARD + NUM_COLORS + NUM_RANKS;
    for off in 0..n {
        for (i, k) in s.hand((o + off) % n).knowledge().iter().enumerate() {
            let base = at + i * slot;
            for c in 0..NUM_COLORS as u8 {
                if k.color_plausible(c) {
                    for r in 0..NUM_RANKS as u8 {
                        if k.rank_plausible(r) {
                            out[base + c as usize * NUM_RANKS + r as usize] = 1;
                        }
                    }
                }
            }
            if let Some(c) = k.color() {
                out[base + BITS_PER_CARD + c as usize] = 1;
            }
            if let Some(r) = k.rank() {
                out[base + BITS_PER_CARD + NUM_COLORS + r as usize] = 1;
            }
        }
        at += h * slot;
    }
    debug_assert_eq!(at, out.len());
}

/// The vector as a hex string (bit `i` is bit `3 - i % 4` of hex digit `i / 4`), the form
/// the fixture traces record.
pub fn to_hex(bits: &[u8]) -> String {
    bits.chunks(4)
        .map(|ch| {
            let v = ch.iter().enumerate().fold(0u32, |v, (i, &b)| v | (u32::from(b != 0) << (3 - i)));
            char::from_digit(v, 16).unwrap_or('0')
        })
        .collect()
}
