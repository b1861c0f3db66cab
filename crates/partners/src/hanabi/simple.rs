//! HLE's simple agent (`agents/simple_agent.py` of hanabi-learning-environment), written
//! from its published rules, applied in order:
//!
//! 1. Play the first of one's cards that has had its colour or its rank hinted directly.
//! 2. With an information token, for the other players in seat order and their cards in
//!    hand order: the first card that is playable now and whose colour has not been hinted
//!    to its holder gets a colour hint.
//! 3. Below the maximum of information tokens, discard card 0; otherwise play card 0.
//!
//! Guarantee: the same move as HLE's agent in every state (checked against HLE's own agent
//! on the `simple_*` fixture traces).

use super::common::fallback;
use async_trait::async_trait;
use proagent_core::{AgentError, Observation, Seat};
use proagent_hanabi::rules::{Hanabi, MAX_INFO_TOKENS, Move};
use proagent_hanabi::view::HanabiView;

/// HLE's simple agent.
#[derive(Copy, Clone, Debug, Default)]
pub struct SimpleBot;

impl SimpleBot {
    /// The move the rules give in `view` (a legal one whenever it is the observer's turn).
    pub fn choose(view: &HanabiView<'_>) -> Move {
        if let Some(i) = view.my_knowledge().iter().position(|k| k.color().is_some() || k.rank().is_some()) {
            return Move::Play(i as u8);
        }
        if view.info_tokens() > 0 {
            for offset in 1..view.num_players() {
                let p = view.player_at(offset);
                let (Some(cards), know) = (view.cards(p), view.knowledge(p)) else { continue };
                for (card, k) in cards.iter().zip(know) {
                    if view.playable(*card) && k.color().is_none() {
                        return Move::RevealColor { offset: offset as u8, color: card.color };
                    }
                }
            }
        }
        let m = if view.info_tokens() < MAX_INFO_TOKENS { Move::Discard(0) } else { Move::Play(0) };
        if view.is_legal(m) { m } else { fallback(view) }
    }
}

#[async_trait]
impl Seat<Hanabi> for SimpleBot {
    fn name(&self) -> String {
        "simple".into()
    }
    fn reset(&mut self, _game: &Hanabi, _seat: usize, _seed: u64) {}
    async fn act(&mut self, obs: &Observation<'_, Hanabi>) -> Result<Move, AgentError> {
        Ok(SimpleBot::choose(&obs.view))
    }
}
