//! Hanabi as the LLM-Coordination agent sees it: the state description of the paper's
//! Appendix B (stacks, the next playable card of each stack, the agent's knowledge of its
//! own cards, the others' cards and their knowledge, tokens, lives, deck, discards), built
//! from the agent's [`HanabiView`] only — its own cards are never in it — and the legal
//! moves as actions ("Reveal Bob's Red color cards", "Play my Card 3").
//!
//! The paper preset states the same facts in the order of the paper's Appendix B and the
//! released agent: turn, stacks, own knowledge, the others' cards and knowledge, tokens,
//! lives, deck, discards, then the action history and the next playable card of each
//! stack (the default puts the history first and the next playable cards beside the
//! stacks), and without marking which cards a clue pointed at (the released agent shows
//! only the narrowed colours and ranks).
//!
//! Fallback for a reply that names no offered action: a seeded random legal move, as the
//! published agent does.

use super::super::grounding::{Exec, LlmcoGrounding, player_name};
use super::super::settings::{LlmcoPreset, PaperSteps};
use super::standin::HanabiStandIn;
use proagent_core::Observation;
use proagent_hanabi::rules::{COLOR_NAMES, NUM_COLORS};
use proagent_hanabi::{Card, CardKnowledge, Hanabi, HanabiView, Move, MoveRecord};
use proagent_llm::LanguageModel;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use std::fmt::Write as _;
use std::sync::Arc;

/// The LLM-Coordination grounding of Hanabi.
#[derive(Clone, Copy, Debug, Default)]
pub struct HanabiLlmco;

/// What the grounding keeps for an episode.
#[derive(Clone, Debug)]
pub struct HanabiEpisode {
    me: usize,
    players: usize,
    hand_size: usize,
    /// The paper preset: the released agent's order, no clue marks.
    paper: bool,
}

/// A colour's name with a capital ("Red").
pub fn color_name(c: u8) -> String {
    let n = COLOR_NAMES[c as usize % NUM_COLORS];
    let mut s = n[..1].to_uppercase();
    s.push_str(&n[1..]);
    s
}

/// A card in words ("Red 3").
pub fn card_words(c: Card) -> String {
    format!("{} {}", color_name(c.color), c.rank + 1)
}

/// What a card's holder knows of it: "[Red, Yellow] [1, 2, 3]", with the clues it was
/// given marked ("(clued Red)").
pub fn knowledge_words(k: &CardKnowledge) -> String {
    let mut clued = Vec::new();
    if let Some(c) = k.color() {
        clued.push(color_name(c));
    }
    if let Some(r) = k.rank() {
        clued.push((r + 1).to_string());
    }
    let mark = if clued.is_empty() { String::new() } else { format!(" (clued {})", clued.join(" ")) };
    format!("{}{mark}", plausible_words(k))
}

/// The colours and ranks a card may still have: "[Red, Yellow] [1, 2, 3]" (the paper
/// preset's knowledge, without clue marks).
pub fn plausible_words(k: &CardKnowledge) -> String {
    let colors: Vec<String> = (0..NUM_COLORS as u8).filter(|&c| k.color_plausible(c)).map(color_name).collect();
    let ranks: Vec<String> = (0..5u8).filter(|&r| k.rank_plausible(r)).map(|r| (r + 1).to_string()).collect();
    format!("[{}] [{}]", colors.join(", "), ranks.join(", "))
}

/// The indices of a bit mask, in words: "1 and 3", "0, 2 and 4".
fn indices(mask: u8) -> String {
    let v: Vec<String> = (0..8).filter(|i| mask & (1 << i) != 0).map(|i: u8| i.to_string()).collect();
    match v.len() {
        0 => "none".into(),
        1 => v[0].clone(),
        n => format!("{} and {}", v[..n - 1].join(", "), v[n - 1]),
    }
}

/// A legal move as the action it is offered as, from `me`'s seat.
pub fn move_words(view: &HanabiView<'_>, m: Move) -> String {
    match m {
        Move::Play(i) => format!("Play my Card {i}"),
        Move::Discard(i) => format!("Discard my Card {i}"),
        Move::RevealColor { offset, color } => {
            format!("Reveal {}'s {} color cards", player_name(view.player_at(offset as usize)), color_name(color))
        }
        Move::RevealRank { offset, rank } => {
            format!("Reveal {}'s rank {} cards", player_name(view.player_at(offset as usize)), rank + 1)
        }
    }
}

/// What a recorded move did, as seen by `me` (it never shows a card still in a hand).
pub fn record_words(view: &HanabiView<'_>, r: &MoveRecord) -> String {
    let who = player_name(r.player as usize);
    let me = view.observer();
    let card = r.card.map(card_words).unwrap_or_default();
    match r.mv {
        Move::Play(i) if r.scored => format!("{who} played their Card {i}, a {card}, onto its stack"),
        Move::Play(i) => format!("{who} played their Card {i}, a {card}, which was not playable: we lost a life"),
        Move::Discard(i) => format!("{who} discarded their Card {i}, a {card}"),
        Move::RevealColor { color, .. } | Move::RevealRank { rank: color, .. } => {
            let target = r.target(view.num_players()).unwrap_or(me);
            let what = match r.mv {
                Move::RevealColor { .. } => format!("{} cards", color_name(color)),
                _ => format!("rank {} cards", color + 1),
            };
            if target == me {
                format!("{who} revealed my {what}: my Card{} {}", plural(r.reveal_mask), indices(r.reveal_mask))
            } else {
                let t = player_name(target);
                format!("{who} revealed {t}'s {what}: {t}'s Card{} {}", plural(r.reveal_mask), indices(r.reveal_mask))
            }
        }
    }
}

fn plural(mask: u8) -> &'static str {
    if mask.count_ones() == 1 { "" } else { "s" }
}

/// The state description of Appendix B, from `view` (the observer's own cards are only
/// described by what the observer knows of them), as the default preset shows it.
pub fn state_words(view: &HanabiView<'_>) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "It is my ({}'s) turn.", player_name(view.observer()));
    let _ = writeln!(s, "{}", stacks_line(view));
    let _ = writeln!(s, "{}", next_playable_line(view));
    s.push_str(&hands_and_table(view, knowledge_words));
    s
}

/// The paper preset's state description: the facts of [`state_words`] in the order of the
/// paper's Appendix B and the released agent (the action history, when there is one, and
/// the next playable cards last), with no clue marks.
pub fn paper_state_words(view: &HanabiView<'_>, history: &[&String]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "It is my ({}'s) turn.", player_name(view.observer()));
    let _ = writeln!(s, "{}", stacks_line(view));
    s.push_str(&hands_and_table(view, plausible_words));
    if !history.is_empty() {
        let h: Vec<&str> = history.iter().map(|h| h.as_str()).collect();
        let _ = write!(s, "\nMy action history: {}.", h.join(", "));
    }
    let _ = write!(s, "\n{}", next_playable_line(view));
    s
}

fn stacks_line(view: &HanabiView<'_>) -> String {
    let fw = view.fireworks();
    let stacks: Vec<String> = (0..NUM_COLORS).map(|c| format!("{} {}", color_name(c as u8), fw[c])).collect();
    format!("Current stacks (cards on each): {}.", stacks.join(", "))
}

fn next_playable_line(view: &HanabiView<'_>) -> String {
    let fw = view.fireworks();
    let next: Vec<String> = (0..NUM_COLORS)
        .map(|c| {
            if fw[c] >= 5 {
                format!("the {} stack is complete", color_name(c as u8))
            } else {
                format!(
                    "only {} can be played on the {} stack",
                    card_words(Card::new(c as u8, fw[c])),
                    color_name(c as u8)
                )
            }
        })
        .collect();
    format!("Next playable cards: {}.", next.join("; "))
}

/// Own knowledge, the others' cards and knowledge, tokens, lives, deck and discards (no
/// newline after the discards), each card's knowledge in words by `know`.
fn hands_and_table(view: &HanabiView<'_>, know: fn(&CardKnowledge) -> String) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "My cards, as far as I know them:");
    for (i, k) in view.my_knowledge().iter().enumerate() {
        let _ = writeln!(s, "My Card {i} could be: {}", know(k));
    }
    for off in 1..view.num_players() {
        let p = view.player_at(off);
        let name = player_name(p);
        let cards = view.cards(p).unwrap_or_default();
        let shown: Vec<String> =
            cards.iter().enumerate().map(|(i, c)| format!("Card {i}: {}", card_words(*c))).collect();
        let _ = writeln!(s, "I can see {name}'s cards: {}.", shown.join(", "));
        let _ = writeln!(s, "What {name} knows of their cards:");
        for (i, k) in view.knowledge(p).iter().enumerate() {
            let _ = writeln!(s, "{name} thinks their Card {i} could be: {}", know(k));
        }
    }
    let _ = writeln!(s, "Remaining reveal tokens: {}", view.info_tokens());
    let _ = writeln!(s, "Remaining lives: {}", view.life_tokens());
    let _ = writeln!(s, "Deck size: {}", view.deck_size());
    let d: Vec<String> = view.discards().iter().map(|c| card_words(*c)).collect();
    let _ = write!(s, "The discard pile: {}.", if d.is_empty() { "empty".to_string() } else { d.join(", ") });
    s
}

/// The legal moves in the order the paper lists them: reveals (colours, then ranks), plays,
/// discards.
pub fn ordered_moves(view: &HanabiView<'_>) -> Vec<Move> {
    let mut moves = view.legal_moves();
    let key = |m: &Move| match m {
        Move::RevealColor { offset, color } => (0, *offset, *color),
        Move::RevealRank { offset, rank } => (1, *offset, *rank),
        Move::Play(i) => (2, 0, *i),
        Move::Discard(i) => (3, 0, *i),
    };
    moves.sort_by_key(key);
    moves
}

impl LlmcoGrounding for HanabiLlmco {
    type Game = Hanabi;
    type Choice = Move;
    type Episode = HanabiEpisode;

    const KEY: &'static str = "hanabi";
    const PAPER: PaperSteps = PaperSteps { tom: true, verify: true, history: usize::MAX };
    const PAPER_TOP_P: f32 = 1.0;

    fn begin(&self, game: &Hanabi, me: usize, _seed: u64) -> HanabiEpisode {
        HanabiEpisode { me, players: game.players(), hand_size: game.hand_size(), paper: false }
    }

    fn set_preset(&self, ep: &mut HanabiEpisode, preset: LlmcoPreset) {
        ep.paper = preset == LlmcoPreset::Paper;
    }

    fn game_vars(&self, ep: &HanabiEpisode) -> serde_json::Value {
        json!({"game_name": "Hanabi", "hand_size": ep.hand_size, "n_players": ep.players, "seat": ep.me})
    }

    fn state_text(&self, _ep: &HanabiEpisode, obs: &Observation<'_, Hanabi>) -> String {
        state_words(&obs.view)
    }

    fn state_with_history(
        &self,
        ep: &HanabiEpisode,
        obs: &Observation<'_, Hanabi>,
        history: &[&String],
    ) -> Option<String> {
        ep.paper.then(|| paper_state_words(&obs.view, history))
    }

    fn options(&self, _ep: &HanabiEpisode, obs: &Observation<'_, Hanabi>) -> Vec<(Move, String)> {
        ordered_moves(&obs.view).into_iter().map(|m| (m, move_words(&obs.view, m))).collect()
    }

    fn partner_action(&self, ep: &HanabiEpisode, obs: &Observation<'_, Hanabi>) -> Option<String> {
        let r = obs.view.last_move()?;
        (r.player as usize != ep.me)
            .then(|| format!("{}'s last action: {}.", player_name(r.player as usize), record_words(&obs.view, r)))
    }

    fn fallback(&self, _ep: &HanabiEpisode, options: &[(Move, String)], rng: &mut ChaCha8Rng) -> usize {
        rng.random_range(0..options.len().max(1))
    }

    fn execute(&self, _ep: &mut HanabiEpisode, choice: Move, _obs: &Observation<'_, Hanabi>) -> Exec<Move> {
        Exec::ActAndFinish(choice)
    }

    fn scripted_model(&self) -> Arc<dyn LanguageModel> {
        Arc::new(HanabiStandIn::model())
    }
}
