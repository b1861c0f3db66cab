//! What ties the game-independent ProAgent loop ([`crate::ProAgent`]) to one game: a
//! [`Grounding`]. The loop (alignment → knowledge → planner → validator → verificator →
//! re-plan → fallback, belief correction, memory, controller) is written once; everything
//! it needs to know about a game comes through this trait:
//!
//! - **alignment**: what a step works from ([`Grounding::Scene`], built by
//!   [`Grounding::perceive`]: the full state on classic Overcooked, what the player knows
//!   within its view radius on OvercookedV2) and its text ([`Grounding::scene_text`]);
//! - **knowledge**: the templates ([`Grounding::FAMILY`], one folder per preset) and the
//!   variables of the knowledge library ([`Grounding::knowledge`]);
//! - **skills**: the vocabulary ([`Grounding::Skill`], written by
//!   [`Grounding::skill_text`]), the reply reader ([`Grounding::read_reply`]), the
//!   preconditions the validator checks ([`Grounding::check`], with their reasons) and
//!   the ones the verificator's prompt lists ([`Grounding::conditions`]);
//! - **the controller**: a skill into moves ([`Grounding::start`], [`Grounding::control`],
//!   [`Grounding::stop`]), and what ends a wait early ([`Grounding::wait_signature`]);
//! - **belief correction**: the teammate's skill as this player saw it done
//!   ([`Grounding::teammate_skill`]);
//! - the built-in `scripted` stand-in model that answers the grounding's prompts.
//!
//! A grounding is a plain value (the built-in ones are unit structs); what it keeps per
//! episode (controller, precomputed reach, what the player remembers) is its
//! [`Grounding::Episode`]. The loop owns that value and hands it back on every call.
//! Putting the agent on a new game means implementing this trait in a module beside
//! [`overcooked`] and [`overcooked_v2`] (docs/agent.md, "A new game").

pub mod overcooked;
pub mod overcooked_v2;

use crate::ProAgentConfig;
use crate::planner::PlanReply;
use crate::prompts::Family;
use minijinja::Value;
use proagent_core::{Game, Observation};
use proagent_llm::{ChatRequest, ChatResponse, LanguageModel, Usage, estimate_tokens};
use std::fmt::Debug;
use std::sync::Arc;

pub use crate::skill::AgentSkill;
pub(crate) use crate::skill::wait_variant_skill;

/// What a served model returns for `text` as the reply to `request`, for the built-in
/// stand-in models: cut before the first stop sequence (which is left out), token counts
/// estimated from the texts ([`estimate_tokens`]).
pub fn stand_in_response(request: &ChatRequest, mut text: String) -> ChatResponse {
    if let Some(at) = request.sampling.stop.iter().filter(|s| !s.is_empty()).filter_map(|s| text.find(s.as_str())).min()
    {
        text.truncate(at);
    }
    let prompt_tokens = request.messages.iter().map(|m| estimate_tokens(&m.content)).sum();
    let usage = Usage::new(prompt_tokens, estimate_tokens(&text));
    ChatResponse::simple(text, usage)
}

/// One precondition that does not hold, as the validator reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unmet {
    /// Short machine name, e.g. `hand_empty`.
    pub condition: String,
    /// The sentence the `rules` verificator gives the planner.
    pub reason: String,
}

/// Where the running skill stands after the controller's decision for this step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Control<A> {
    /// Still running: play this action.
    Running(A),
    /// The skill's goal was reached (the loop plans again within the same step).
    Succeeded,
    /// The controller gave up, with a first-person reason for the planner's memory.
    Failed(String),
}

/// A game as the ProAgent loop sees it (see the module documentation).
pub trait Grounding: Send + Sync + 'static {
    /// The game played.
    type Game: Game;
    /// The skill vocabulary.
    type Skill: AgentSkill;
    /// What the grounding keeps for one episode: the controller, precomputed facts of the
    /// layout, what the player remembers of earlier steps.
    type Episode: Send + Sync;
    /// What one step works from, as this player knows it.
    type Scene<'a>: Send + Sync;

    /// The prompt templates of this game: the folders the library loads and, per preset,
    /// the folder of its knowledge library ([`Family::template_dir`]). A preset without a
    /// folder is refused when the seat is configured.
    const FAMILY: Family;

    /// How a structured planner request's schema describes its plan field, with an example
    /// skill of this game's vocabulary (`your next skill, exactly one, e.g. pickup(onion)`).
    const PLAN_FIELD: &'static str;

    /// Starts an episode as player `me` (seeded: every random choice of the controller
    /// comes from `seed`).
    fn begin(&self, game: &Self::Game, me: usize, seed: u64, cfg: &ProAgentConfig) -> Self::Episode;

    /// The layout's name, for per-layout rules of a preset (the paper preset's minimum wait).
    fn layout_name<'e>(&self, ep: &'e Self::Episode) -> &'e str;

    /// The variables of the knowledge library (the planner's and the verificator's system
    /// messages) for player `me`; per-layout parts resolve in template folder `dir`.
    fn knowledge(&self, ep: &Self::Episode, cfg: &ProAgentConfig, dir: &str, me: usize) -> Value;

    /// What this step works from; called once per step, before anything else reads the
    /// observation (it may update what the player remembers).
    fn perceive<'a>(&self, ep: &mut Self::Episode, obs: &Observation<'a, Self::Game>) -> Self::Scene<'a>;

    /// The step a scene belongs to (the `t` of memory entries, events and exchanges).
    fn time(&self, scene: &Self::Scene<'_>) -> u32;

    /// The scene as the planner reads it.
    fn scene_text(&self, ep: &Self::Episode, scene: &Self::Scene<'_>) -> String;

    /// A fingerprint of what the scene says apart from the time: a wait ends early (with
    /// `wait_interrupt`) when it changes.
    fn wait_signature(&self, ep: &Self::Episode, scene: &Self::Scene<'_>) -> u64;

    /// The skill the teammate the planner predicts (the first other player) completed in the
    /// previous step, as far as this player can tell; `None` when it completed none (or
    /// nothing of it was seen). Called once per step, after [`Grounding::perceive`].
    fn teammate_skill(&self, ep: &mut Self::Episode, obs: &Observation<'_, Self::Game>) -> Option<Self::Skill>;

    /// A skill as prompts write it, e.g. `pickup(onion)`.
    fn skill_text(&self, ep: &Self::Episode, skill: Self::Skill) -> String;

    /// Reads a planner reply for player `me` whose teammate is `mate`; the error names
    /// why no skill for `me` could be read (it goes back to the planner when it re-plans).
    fn read_reply(&self, ep: &Self::Episode, raw: &str, me: usize, mate: Option<usize>) -> ReplyRead<Self::Skill>;

    /// The preconditions of `skill` that do not hold in `scene` (empty: the skill is valid).
    fn check(&self, ep: &Self::Episode, scene: &Self::Scene<'_>, skill: Self::Skill) -> Vec<Unmet>;

    /// The preconditions of `skill` as (name, sentence) pairs for a verificator template that
    /// lists them (`conditions`); a grounding whose template spells them out returns none.
    fn conditions(&self, ep: &Self::Episode, skill: Self::Skill) -> Vec<(String, String)>;

    /// Skills that cover every branch of the grounding's templates, for
    /// [`crate::ProAgent::check_prompts`].
    fn sample_skills(&self, ep: &Self::Episode) -> Vec<Self::Skill>;

    /// The skill the controller is running.
    fn running(&self, ep: &Self::Episode) -> Option<Self::Skill>;

    /// Hands the controller a skill (replacing any running one).
    fn start(&self, ep: &mut Self::Episode, skill: Self::Skill, scene: &Self::Scene<'_>);

    /// Drops the running skill.
    fn stop(&self, ep: &mut Self::Episode);

    /// The controller's decision for this step. After `Succeeded` or `Failed` the skill is
    /// dropped and the loop may start another and call again for the same scene.
    fn control(&self, ep: &mut Self::Episode, scene: &Self::Scene<'_>) -> Control<<Self::Game as Game>::Action>;

    /// Whether the running skill's effect shows in `scene` (the paper preset's loop asks
    /// this every step before it re-checks the skill's preconditions).
    fn skill_done(&self, ep: &Self::Episode, scene: &Self::Scene<'_>) -> bool;

    /// The action of a step the agent does nothing.
    fn idle(&self) -> <Self::Game as Game>::Action;

    /// The built-in `scripted` stand-in model: a rule-based reader of this grounding's
    /// prompts that answers in the reply format (not a language model).
    fn scripted_model(&self) -> Arc<dyn LanguageModel>;
}

/// A planner reply as a grounding reads it: the plan, or why none could be read.
pub type ReplyRead<S> = Result<PlanReply<S>, String>;
