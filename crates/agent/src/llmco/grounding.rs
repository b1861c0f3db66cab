//! What ties the one LLM-Coordination loop ([`crate::llmco::agent::LlmCo`]) to one game: an
//! [`LlmcoGrounding`]. The loop (Theory of Mind, action proposal, answer verification,
//! grounding, fallback) is written once; a grounding says what the game looks like in
//! words and how a chosen action is carried out:
//!
//! - **game description** (the paper's long-term memory): the template variables of the
//!   rules and the map ([`LlmcoGrounding::game_vars`]), rendered by `llmco/game/<KEY>.j2`;
//! - **state description** (working memory), from this player's own view only
//!   ([`LlmcoGrounding::state_text`]);
//! - **the action space**: the feasible actions in words ([`LlmcoGrounding::options`]);
//!   infeasible ones are never offered, and a reply is grounded into one of them;
//! - **the partner's last action** as the Theory-of-Mind step reads it
//!   ([`LlmcoGrounding::partner_action`]);
//! - **execution**: one chosen action into this step's move, possibly over several steps
//!   (Overcooked's "pick up onion from o0" walks there first: [`LlmcoGrounding::execute`]);
//! - **the fallback** when a reply names no usable action ([`LlmcoGrounding::fallback`]);
//! - the built-in `scripted` stand-in model that reads these prompts (not a language model).

use super::settings::{LlmcoPreset, PaperSteps};
use proagent_core::{Game, Observation};
use proagent_llm::LanguageModel;
use rand_chacha::ChaCha8Rng;
use std::fmt::Debug;
use std::sync::Arc;

/// The players' names in every prompt: player 0 is Alice, player 1 Bob, and so on.
pub const PLAYER_NAMES: [&str; 5] = ["Alice", "Bob", "Charlie", "Dana", "Eve"];

/// The name of player `p` in prompts.
pub fn player_name(p: usize) -> &'static str {
    PLAYER_NAMES.get(p).copied().unwrap_or("Someone")
}

/// What carrying out a chosen action does this step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exec<A> {
    /// Play this move; the action goes on next step.
    Act(A),
    /// Play this move; the action is finished (the next step decides again).
    ActAndFinish(A),
    /// The action is over (done, or impossible now) before this step: decide again.
    Finished,
}

/// A game as the LLM-Coordination loop sees it (see the module documentation).
pub trait LlmcoGrounding: Send + Sync + 'static {
    /// The game played.
    type Game: Game;
    /// One action as the model chooses it (a move, or a target-specific task).
    type Choice: Copy + Eq + Debug + Send + Sync + 'static;
    /// What the grounding keeps for one episode (its own action history, the controller).
    type Episode: Send + Sync;

    /// The game's name in template paths: parts resolve to `llmco/<part>/<KEY>.j2`, then
    /// `llmco/<part>/default.j2`.
    const KEY: &'static str;
    /// How the paper ran this game (which optional steps were on).
    const PAPER: PaperSteps;
    /// The nucleus-sampling mass the released agent used on this game (the paper preset
    /// sends it): 0.9 unless a grounding says otherwise (docs/llmco.md#presets).
    const PAPER_TOP_P: f32 = 0.9;

    /// Starts an episode as player `me` (every random choice comes from `seed`).
    fn begin(&self, game: &Self::Game, me: usize, seed: u64) -> Self::Episode;

    /// Tells the episode which version of the agent runs, before anything is rendered (the
    /// paper preset leaves out the lines the released agent did not have, such as the turn
    /// count). The default does nothing.
    fn set_preset(&self, _ep: &mut Self::Episode, _preset: LlmcoPreset) {}

    /// The variables of the game description and the other templates (the rules' numbers,
    /// the map, the layout's facilities), as a JSON object.
    fn game_vars(&self, ep: &Self::Episode) -> serde_json::Value;

    /// Called once per step before anything else reads the observation.
    fn observe(&self, _ep: &mut Self::Episode, _obs: &Observation<'_, Self::Game>) {}

    /// The state as this player knows it, from its view only.
    fn state_text(&self, ep: &Self::Episode, obs: &Observation<'_, Self::Game>) -> String;

    /// The state with the action history (`history`, oldest first) placed inside it, for a
    /// game whose paper prompt puts the history there (the paper preset's card game: after
    /// the discard pile, before the next playable cards); every request of the decision then
    /// shows this state and no separate history. `None` (the default): [`Self::state_text`],
    /// with the history where the templates put it.
    fn state_with_history(
        &self,
        _ep: &Self::Episode,
        _obs: &Observation<'_, Self::Game>,
        _history: &[&String],
    ) -> Option<String> {
        None
    }

    /// The feasible actions now, with the words each is offered in, in the order shown.
    fn options(&self, ep: &Self::Episode, obs: &Observation<'_, Self::Game>) -> Vec<(Self::Choice, String)>;

    /// The partner's last action as one sentence ("Bob's last action: ..."): what the
    /// Theory-of-Mind step interprets, and what the action request states plainly when the
    /// step is off; `None` before the partner has acted.
    fn partner_action(&self, ep: &Self::Episode, obs: &Observation<'_, Self::Game>) -> Option<String>;

    /// The option to play when a reply names none of the options: `rng` is the seat's own
    /// seeded stream. Documented per game in docs/llmco.md.
    fn fallback(&self, ep: &Self::Episode, options: &[(Self::Choice, String)], rng: &mut ChaCha8Rng) -> usize;

    /// Carries out `choice` for this step.
    fn execute(
        &self,
        ep: &mut Self::Episode,
        choice: Self::Choice,
        obs: &Observation<'_, Self::Game>,
    ) -> Exec<<Self::Game as Game>::Action>;

    /// A move for a step in which the agent could decide nothing (a legal one).
    fn idle(&self, obs: &Observation<'_, Self::Game>) -> Option<<Self::Game as Game>::Action> {
        obs.game.idle_action().or_else(|| obs.legal_actions().first().copied())
    }

    /// The built-in `scripted` stand-in model for this game's prompts: rule-based, it reads
    /// only the prompt text and answers in the reply format. Not a language model.
    fn scripted_model(&self) -> Arc<dyn LanguageModel>;
}
