//! The ProAgent agent and the LLM-Coordination agent ([`llmco`]). ProAgent: state alignment, knowledge library, planner, validator,
//! verificator, belief correction and memory around a skill controller — one loop
//! ([`ProAgent`], in [`agent`]) for every game, tied to a game by a [`Grounding`]
//! ([`grounding`]: classic Overcooked's [`OvercookedGrounding`], OvercookedV2's
//! [`OvercookedV2Grounding`]).
//!
//! The game-independent parts: the switches ([`config`], [`preset`]), the memory
//! ([`memory`]), belief tracking ([`belief`]), the planner's prompts and reply reading
//! ([`planner`]), the verificator ([`verificator`]), the paper preset's dialogue and
//! messages ([`paper`]), the template loader ([`prompts`]) and the per-episode counters
//! ([`log`]). What differs per game (scene text, skills, preconditions, controller,
//! templates, the `scripted` stand-in model) lives in the groundings.

#![warn(missing_docs)]
#![allow(clippy::needless_range_loop, clippy::collapsible_match, clippy::collapsible_if)]

pub mod agent;
pub mod belief;
mod call;
pub mod config;
pub mod grounding;
pub mod llmco;
pub mod log;
pub mod memory;
pub mod names;
pub mod paper;
pub mod planner;
pub mod preset;
pub mod prompts;
pub mod skill;
pub mod verificator;

pub use agent::{ProAgent, check_prompts};
pub use config::{AgentSettings, ProAgentConfig};
pub use grounding::Grounding;
pub use grounding::overcooked::OvercookedGrounding;
pub use grounding::overcooked_v2::OvercookedV2Grounding;
pub use log::{AgentMetrics, ExchangeSink};
pub use proagent_llm::ModelSpec;

#[cfg(test)]
mod tests;
