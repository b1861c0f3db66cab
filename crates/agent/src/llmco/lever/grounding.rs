//! The lever game as the LLM-Coordination agent sees it: the rules and the payoffs in the
//! game description; in the state description the round, the score, which lever is the
//! special one and every earlier round's pulls; the ten actions as "pull lever N". The game
//! is fully observable, so the view is the state. The Theory-of-Mind step (on by default)
//! asks which lever the partner will pull next.
//!
//! Fallback for a reply that names no offered action: the special lever, the one lever a
//! stranger can single out without a convention.

use super::standin::LeverStandIn;
use crate::llmco::grounding::{Exec, LlmcoGrounding, player_name};
use crate::llmco::settings::PaperSteps;
use proagent_core::{Game, Observation};
use proagent_lever::{LEVERS, Lever, LeverState, PAYOFF, Pull, SPECIAL_PAYOFF};
use proagent_llm::LanguageModel;
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use std::fmt::Write as _;
use std::sync::Arc;

/// The LLM-Coordination grounding of the lever game.
#[derive(Clone, Copy, Debug, Default)]
pub struct LeverLlmco;

/// What the grounding keeps for an episode.
#[derive(Clone, Debug)]
pub struct LeverEpisode {
    me: usize,
    rounds: u32,
    /// The special lever (0-based), as last observed.
    special: u8,
}

/// An action as it is offered.
pub fn action_words(a: Pull) -> String {
    format!("pull lever {}", a.number())
}

fn pulled(p: Option<u8>) -> String {
    p.map_or_else(|| "pulled no lever".to_string(), |l| format!("pulled lever {}", l + 1))
}

/// The state from `me`'s seat: the round, the score, the special lever and every round played.
pub fn state_words(me: usize, rounds: u32, s: &LeverState) -> String {
    let mate = 1 - me.min(1);
    let mut out = String::new();
    let _ = writeln!(out, "Round {} of {}. Our score: {}.", (s.t() + 1).min(rounds), rounds, s.score);
    let _ = writeln!(
        out,
        "The special lever is lever {}: it pays {SPECIAL_PAYOFF} points; the other {} levers pay {PAYOFF}.",
        s.special + 1,
        LEVERS - 1
    );
    if s.rounds.is_empty() {
        let _ = writeln!(out, "No round has been played yet.");
    }
    for (i, r) in s.rounds.iter().enumerate() {
        let result = match r {
            [Some(a), Some(b)] if a == b => format!("a match, {} points", Lever::payoff(*a, s.special)),
            _ => "no match, 0 points".to_string(),
        };
        let _ = writeln!(
            out,
            "Round {}: I ({}) {}, {} {}: {result}.",
            i + 1,
            player_name(me.min(1)),
            pulled(r[me.min(1)]),
            player_name(mate),
            pulled(r[mate])
        );
    }
    out.trim_end().to_string()
}

impl LlmcoGrounding for LeverLlmco {
    type Game = Lever;
    type Choice = Pull;
    type Episode = LeverEpisode;

    const KEY: &'static str = "lever";
    const PAPER: PaperSteps = PaperSteps { tom: true, verify: false, history: 0 };

    fn begin(&self, game: &Lever, me: usize, _seed: u64) -> LeverEpisode {
        LeverEpisode { me: me.min(1), rounds: game.max_steps(), special: 0 }
    }

    fn game_vars(&self, ep: &LeverEpisode) -> serde_json::Value {
        json!({
            "game_name": "the lever game",
            "levers": LEVERS,
            "payoff": PAYOFF,
            "special_payoff": SPECIAL_PAYOFF,
            "rounds": ep.rounds,
        })
    }

    fn observe(&self, ep: &mut LeverEpisode, obs: &Observation<'_, Lever>) {
        ep.special = obs.view.special;
    }

    fn state_text(&self, ep: &LeverEpisode, obs: &Observation<'_, Lever>) -> String {
        state_words(ep.me, ep.rounds, obs.view)
    }

    fn options(&self, _ep: &LeverEpisode, obs: &Observation<'_, Lever>) -> Vec<(Pull, String)> {
        obs.legal_actions().into_iter().map(|a| (a, action_words(a))).collect()
    }

    fn partner_action(&self, ep: &LeverEpisode, obs: &Observation<'_, Lever>) -> Option<String> {
        let mate = 1 - ep.me;
        let who = player_name(mate);
        let last = obs.view.last()?;
        Some(format!("{who}'s last action: {who} {}.", pulled(last[mate])))
    }

    fn fallback(&self, ep: &LeverEpisode, options: &[(Pull, String)], _rng: &mut ChaCha8Rng) -> usize {
        options.iter().position(|(a, _)| a.0 == ep.special).unwrap_or(0)
    }

    fn execute(&self, _ep: &mut LeverEpisode, choice: Pull, _obs: &Observation<'_, Lever>) -> Exec<Pull> {
        Exec::ActAndFinish(choice)
    }

    fn scripted_model(&self) -> Arc<dyn LanguageModel> {
        Arc::new(LeverStandIn::model())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_state_lists_every_round_from_my_seat() {
        let s =
            LeverState { special: 3, rounds: vec![[Some(3), Some(6)], [Some(3), Some(3)], [None, Some(0)]], score: 9 };
        let text = state_words(1, 10, &s);
        assert!(
            text.starts_with("Round 4 of 10. Our score: 9.\nThe special lever is lever 4: it pays 9 points"),
            "{text}"
        );
        assert!(text.contains("Round 1: I (Bob) pulled lever 7, Alice pulled lever 4: no match, 0 points."), "{text}");
        assert!(text.contains("Round 2: I (Bob) pulled lever 4, Alice pulled lever 4: a match, 9 points."), "{text}");
        assert!(text.contains("Round 3: I (Bob) pulled lever 1, Alice pulled no lever: no match"), "{text}");
        let fresh = LeverState { special: 0, rounds: Vec::new(), score: 0 };
        assert!(state_words(0, 5, &fresh).contains("No round has been played yet."));
        assert_eq!(action_words(Pull(9)), "pull lever 10");
    }

    #[test]
    fn every_template_renders_and_the_router_knows_the_prompts() {
        use proagent_llm::{ChatRequest, Message, Sampling};
        let cfg = crate::llmco::LlmcoConfig::new(LeverLlmco.scripted_model());
        for seat in 0..2 {
            crate::llmco::check_prompts::<LeverLlmco>(&cfg, &Lever::new(5), seat).unwrap();
        }
        let m = vec![
            Message::system(crate::llmco::router::SYSTEM_PREFIX),
            Message::user("The lever game: Alice and Bob play 10 rounds."),
        ];
        assert_eq!(crate::llmco::router::game_of(&ChatRequest::new(m, Sampling::default())), Some("lever"));
    }
}
