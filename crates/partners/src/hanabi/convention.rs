//! A hat-free heuristic Hanabi player after the rule list of Van den Bergh, Hommelberg,
//! Kosters and Spieksma, "Aspects of the Cooperative Card Game Hanabi" (BNAIC 2016), in the
//! order in which Walton-Rivers, Williams, Bartle, Perez-Liebana and Lucas, "Evaluating and
//! Modelling Hanabi-Playing Agents" (IEEE CEC 2017), encode it as the "Van den Bergh"
//! production-rule agent. Our own rendition of those published rules: the first rule that
//! applies gives the move.
//!
//! Probabilities are over the card kinds a card's hint knowledge allows, weighted by the
//! copies the player cannot see (not on the fireworks, not discarded, not in another hand).
//!
//! 1. **Last round.** The deck is empty and more than one life is left: play the card most
//!    likely playable, if any chance at all.
//! 2. **Play safe.** Play a card that is playable for certain.
//! 3. **Play probably safe.** More than one life left: play the card most likely playable
//!    if that probability is at least 0.6.
//! 4. **Tell about a playable card.** With a token: the nearest teammate holding a playable
//!    card they would not play yet gets the hint (its colour or its rank) that marks the
//!    most of their playable cards and the fewest of their other live cards.
//! 5. **Tell about a dispensable card.** With fewer than 4 tokens (and at least one): a
//!    teammate's card that can never be played, which they do not know to be useless, gets
//!    the hint that touches only such cards.
//! 6. **Discard useless.** Below the maximum of tokens: discard a card that is useless for
//!    certain, else the card most likely useless, preferring cards without hints and then
//!    the oldest.
//! 7. **Tell anything.** A hint that tells the next teammates the most new facts.
//! 8. Otherwise the first legal move.

use super::common::{RANKS, candidates, discard_counts, fallback, is_dead, probability};
use async_trait::async_trait;
use proagent_core::{AgentError, Observation, Seat};
use proagent_hanabi::rules::{Card, CardKnowledge, Hanabi, MAX_INFO_TOKENS, Move, NUM_COLORS};
use proagent_hanabi::view::HanabiView;

/// The Van den Bergh-style convention bot.
#[derive(Copy, Clone, Debug, Default)]
pub struct ConventionBot;

/// Probability threshold of rule 3.
pub const PLAY_THRESHOLD: f64 = 0.6;

struct Ctx<'v, 'a> {
    view: &'v HanabiView<'a>,
    unseen: [u8; 25],
    discarded: [u8; 25],
}

impl Ctx<'_, '_> {
    fn dead(&self, c: Card) -> bool {
        is_dead(self.view, c, &self.discarded)
    }
    /// (p playable, p useless) of one of the observer's cards.
    fn own_odds(&self, k: &CardKnowledge) -> (f64, f64) {
        let w = candidates(k, &self.unseen);
        (probability(&w, |c| self.view.playable(c)), probability(&w, |c| self.dead(c)))
    }
    /// What `player` can't see of their own cards, from the observer's side: the
    /// observer's unseen counts plus `player`'s own cards (the observer's hand, which
    /// `player` does see, cannot be taken out).
    fn unseen_by(&self, player: usize) -> [u8; 25] {
        let mut u = self.unseen;
        if let Some(cards) = self.view.cards(player) {
            for c in cards {
                u[c.index()] += 1;
            }
        }
        u
    }
    /// (p playable, p useless) of `player`'s card with knowledge `k`, as they would judge it.
    fn their_odds(&self, player: usize, k: &CardKnowledge) -> (f64, f64) {
        let w = candidates(k, &self.unseen_by(player));
        (probability(&w, |c| self.view.playable(c)), probability(&w, |c| self.dead(c)))
    }
}

/// The knowledge a hint would leave on each of `cards`.
fn after_hint(cards: &[Card], know: &[CardKnowledge], hint: Move) -> Vec<CardKnowledge> {
    cards
        .iter()
        .zip(know)
        .map(|(c, k)| {
            let (mut colors, mut ranks) = (k.color_mask(), k.rank_mask());
            let (mut kc, mut kr) = (k.color(), k.rank());
            match hint {
                Move::RevealColor { color, .. } if c.color == color => {
                    colors = 1 << color;
                    kc = Some(color);
                }
                Move::RevealColor { color, .. } => colors &= !(1 << color),
                Move::RevealRank { rank, .. } if c.rank == rank => {
                    ranks = 1 << rank;
                    kr = Some(rank);
                }
                Move::RevealRank { rank, .. } => ranks &= !(1 << rank),
                _ => {}
            }
            CardKnowledge::from_parts(kc, kr, colors, ranks)
        })
        .collect()
}

fn touches(card: Card, hint: Move) -> bool {
    match hint {
        Move::RevealColor { color, .. } => card.color == color,
        Move::RevealRank { rank, .. } => card.rank == rank,
        _ => false,
    }
}

impl ConventionBot {
    /// The move the rules give in `view`.
    pub fn choose(view: &HanabiView<'_>) -> Move {
        if !view.my_turn() {
            return fallback(view);
        }
        let ctx = Ctx { view, unseen: view.unseen_counts(), discarded: discard_counts(view) };
        let legal = |m: Move| view.is_legal(m);
        let odds: Vec<(f64, f64)> = view.my_knowledge().iter().map(|k| ctx.own_odds(k)).collect();
        let best_play =
            odds.iter().enumerate().max_by(|a, b| a.1.0.total_cmp(&b.1.0).then(b.0.cmp(&a.0))).map(|(i, o)| (i, o.0));
        let lives = view.life_tokens();
        let info = view.info_tokens();

        // 1. Last round.
        if view.deck_size() == 0
            && lives > 1
            && let Some((i, _)) = best_play.filter(|&(_, p)| p > 0.0)
        {
            return Move::Play(i as u8);
        }
        // 2. Play safe.
        if let Some((i, p)) = best_play {
            if p >= 1.0 {
                return Move::Play(i as u8);
            }
            // 3. Play probably safe.
            if lives > 1 && p >= PLAY_THRESHOLD {
                return Move::Play(i as u8);
            }
        }
        // 4. Tell about a playable card.
        if info > 0
            && let Some(m) = Self::tell_playable(&ctx, lives)
            && legal(m)
        {
            return m;
        }
        // 5. Tell about a dispensable card.
        if info > 0
            && info < 4
            && let Some(m) = Self::tell_dispensable(&ctx)
            && legal(m)
        {
            return m;
        }
        // 6. Discard useless.
        if info < MAX_INFO_TOKENS && !odds.is_empty() {
            let know = view.my_knowledge();
            let i = (0..odds.len())
                .max_by(|&a, &b| {
                    odds[a]
                        .1
                        .total_cmp(&odds[b].1)
                        .then_with(|| {
                            let ha = know[a].color().is_some() || know[a].rank().is_some();
                            let hb = know[b].color().is_some() || know[b].rank().is_some();
                            hb.cmp(&ha)
                        })
                        .then(b.cmp(&a))
                })
                .unwrap_or(0);
            return Move::Discard(i as u8);
        }
        // 7. Tell anything.
        if info > 0
            && let Some(m) = Self::tell_most(&ctx)
        {
            return m;
        }
        fallback(view)
    }

    fn tell_playable(ctx: &Ctx<'_, '_>, lives: u8) -> Option<Move> {
        let view = ctx.view;
        for offset in 1..view.num_players() {
            let p = view.player_at(offset);
            let (Some(cards), know) = (view.cards(p), view.knowledge(p)) else { continue };
            let would_play = |k: &CardKnowledge| {
                let (pp, _) = ctx.their_odds(p, k);
                pp >= 1.0 || (lives > 1 && pp >= PLAY_THRESHOLD)
            };
            let targets: Vec<usize> =
                (0..cards.len()).filter(|&i| view.playable(cards[i]) && !would_play(&know[i])).collect();
            if targets.is_empty() {
                continue;
            }
            let mut best: Option<(i32, Move)> = None;
            for &i in &targets {
                let c = cards[i];
                for hint in [
                    Move::RevealRank { offset: offset as u8, rank: c.rank },
                    Move::RevealColor { offset: offset as u8, color: c.color },
                ] {
                    let new = after_hint(cards, know, hint);
                    let mut score = 0i32;
                    for (j, card) in cards.iter().enumerate() {
                        let now = would_play(&new[j]);
                        if view.playable(*card) {
                            if now && !would_play(&know[j]) {
                                score += 10;
                            } else if touches(*card, hint) {
                                score += 3;
                            }
                        } else if now {
                            // A misplay waiting to happen.
                            score -= 20;
                        } else if touches(*card, hint) && !ctx.dead(*card) {
                            score -= 1;
                        }
                    }
                    if best.is_none_or(|(s, _)| score > s) {
                        best = Some((score, hint));
                    }
                }
            }
            if let Some((s, m)) = best
                && s > 0
            {
                return Some(m);
            }
        }
        None
    }

    fn tell_dispensable(ctx: &Ctx<'_, '_>) -> Option<Move> {
        let view = ctx.view;
        for offset in 1..view.num_players() {
            let p = view.player_at(offset);
            let (Some(cards), know) = (view.cards(p), view.knowledge(p)) else { continue };
            for (i, c) in cards.iter().enumerate() {
                if !ctx.dead(*c) || ctx.their_odds(p, &know[i]).1 >= 1.0 {
                    continue;
                }
                for hint in [
                    Move::RevealColor { offset: offset as u8, color: c.color },
                    Move::RevealRank { offset: offset as u8, rank: c.rank },
                ] {
                    let new = after_hint(cards, know, hint);
                    let only_useless = cards.iter().all(|d| !touches(*d, hint) || ctx.dead(*d));
                    if only_useless && ctx.their_odds(p, &new[i]).1 >= 1.0 {
                        return Some(hint);
                    }
                }
            }
        }
        None
    }

    fn tell_most(ctx: &Ctx<'_, '_>) -> Option<Move> {
        let view = ctx.view;
        let mut best: Option<(i32, Move)> = None;
        for offset in 1..view.num_players() {
            let p = view.player_at(offset);
            let (Some(cards), know) = (view.cards(p), view.knowledge(p)) else { continue };
            let mut hints: Vec<Move> = Vec::new();
            for c in 0..NUM_COLORS as u8 {
                hints.push(Move::RevealColor { offset: offset as u8, color: c });
            }
            for r in 0..RANKS {
                hints.push(Move::RevealRank { offset: offset as u8, rank: r });
            }
            for hint in hints {
                if !cards.iter().any(|c| touches(*c, hint)) {
                    continue;
                }
                let new = after_hint(cards, know, hint);
                let mut score = 0i32;
                for (j, card) in cards.iter().enumerate() {
                    let gained = (know[j].color_mask() ^ new[j].color_mask()).count_ones()
                        + (know[j].rank_mask() ^ new[j].rank_mask()).count_ones();
                    score += gained as i32;
                    let (pp, _) = ctx.their_odds(p, &new[j]);
                    if !view.playable(*card) && pp >= PLAY_THRESHOLD {
                        score -= 100;
                    }
                }
                // Nearer teammates first on ties.
                score = score * 8 - offset as i32;
                if best.is_none_or(|(s, _)| score > s) {
                    best = Some((score, hint));
                }
            }
        }
        best.filter(|(s, _)| *s > -400).map(|(_, m)| m)
    }
}

#[async_trait]
impl Seat<Hanabi> for ConventionBot {
    fn name(&self) -> String {
        "convention".into()
    }
    fn reset(&mut self, _game: &Hanabi, _seat: usize, _seed: u64) {}
    async fn act(&mut self, obs: &Observation<'_, Hanabi>) -> Result<Move, AgentError> {
        Ok(ConventionBot::choose(&obs.view))
    }
}
