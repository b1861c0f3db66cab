//! Classic Overcooked for the LLM-Coordination agent: the grounding ([`grounding`]: named
//! places, target-specific actions, their execution with the skill controller's navigator)
//! and the built-in `scripted` stand-in ([`standin`], a rule-based reader of those prompts,
//! not a language model).

pub mod grounding;
pub mod standin;

pub use grounding::OvercookedLlmco;
pub use standin::OvercookedStandIn;
