//! Hanabi for the LLM-Coordination agent: the grounding ([`grounding`]: state and actions
//! in words, from the player's own view) and the built-in `scripted` stand-in
//! ([`standin`], a rule-based reader of those prompts, not a language model).

pub mod grounding;
pub mod standin;

pub use grounding::HanabiLlmco;
pub use standin::HanabiStandIn;
