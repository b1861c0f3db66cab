//! How the two language-model agents sit in a game's seats: [`ProAgentHooks`] (the
//! ProAgent loop over a game's ProAgent grounding) and [`LlmcoHooks`] (the
//! LLM-Coordination loop over its LLM-Co grounding). A game offers either, both or none
//! ([`crate::games::Playable::proagent_hooks`], [`crate::games::Playable::llmco_hooks`]);
//! a seat asking for an agent the game does not offer is refused with a clear error.
//!
//! [`ProAgentOn`] and [`LlmcoOn`] are the hooks of any grounding, so a game names its
//! grounding once: `Some(&ProAgentOn::<OvercookedGrounding>::HOOKS)`.

use proagent_agent::llmco::{LlmCo, LlmcoConfig, LlmcoGrounding};
use proagent_agent::prompts::{Family, PromptError};
use proagent_agent::{Grounding, ProAgent, ProAgentConfig};
use proagent_core::{Game, Seat};
use proagent_llm::LanguageModel;
use std::marker::PhantomData;
use std::sync::Arc;

/// The ProAgent agent on one game.
pub trait ProAgentHooks<G: Game>: Send + Sync {
    /// The prompt templates a ProAgent reads on this game.
    fn family(&self) -> Family;
    /// The built-in `scripted` stand-in model for these prompts.
    fn scripted_model(&self) -> Arc<dyn LanguageModel>;
    /// A ProAgent seat with `cfg`.
    fn seat(&self, cfg: ProAgentConfig) -> Box<dyn Seat<G>>;
    /// Renders every template a ProAgent with `cfg` uses as player `seat`, before anything
    /// runs; refuses a preset the game has no templates for.
    fn check_prompts(&self, cfg: &ProAgentConfig, game: &G, seat: usize) -> Result<(), PromptError>;
}

/// The LLM-Coordination agent on one game.
pub trait LlmcoHooks<G: Game>: Send + Sync {
    /// The built-in `scripted` stand-in model for this game's LLM-Co prompts.
    fn scripted_model(&self) -> Arc<dyn LanguageModel>;
    /// An LLM-Co seat with `cfg`.
    fn seat(&self, cfg: LlmcoConfig) -> Box<dyn Seat<G>>;
    /// Renders every template an LLM-Co seat with `cfg` uses as player `seat`.
    fn check_prompts(&self, cfg: &LlmcoConfig, game: &G, seat: usize) -> Result<(), PromptError>;
}

/// The ProAgent hooks of grounding `Gr`.
pub struct ProAgentOn<Gr>(PhantomData<fn() -> Gr>);

impl<Gr> ProAgentOn<Gr> {
    /// The hooks (a constant, so a game can hand out a `&'static` to them).
    pub const HOOKS: ProAgentOn<Gr> = ProAgentOn(PhantomData);
}

impl<Gr: Grounding + Default> ProAgentHooks<Gr::Game> for ProAgentOn<Gr> {
    fn family(&self) -> Family {
        Gr::FAMILY
    }
    fn scripted_model(&self) -> Arc<dyn LanguageModel> {
        Gr::default().scripted_model()
    }
    fn seat(&self, cfg: ProAgentConfig) -> Box<dyn Seat<Gr::Game>> {
        Box::new(ProAgent::<Gr>::new(cfg))
    }
    fn check_prompts(&self, cfg: &ProAgentConfig, game: &Gr::Game, seat: usize) -> Result<(), PromptError> {
        ProAgent::<Gr>::check_prompts(cfg, game, seat)
    }
}

/// The LLM-Co hooks of grounding `Gr`.
pub struct LlmcoOn<Gr>(PhantomData<fn() -> Gr>);

impl<Gr> LlmcoOn<Gr> {
    /// The hooks (a constant, so a game can hand out a `&'static` to them).
    pub const HOOKS: LlmcoOn<Gr> = LlmcoOn(PhantomData);
}

impl<Gr: LlmcoGrounding + Default> LlmcoHooks<Gr::Game> for LlmcoOn<Gr> {
    fn scripted_model(&self) -> Arc<dyn LanguageModel> {
        Gr::default().scripted_model()
    }
    fn seat(&self, cfg: LlmcoConfig) -> Box<dyn Seat<Gr::Game>> {
        Box::new(LlmCo::<Gr>::new(cfg))
    }
    fn check_prompts(&self, cfg: &LlmcoConfig, game: &Gr::Game, seat: usize) -> Result<(), PromptError> {
        proagent_agent::llmco::check_prompts::<Gr>(cfg, game, seat)
    }
}
