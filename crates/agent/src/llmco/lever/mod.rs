//! The lever game for the LLM-Coordination agent: the grounding ([`grounding`]) and the
//! built-in `scripted` stand-in ([`standin`], a rule-based reader of those prompts, not a
//! language model).

pub mod grounding;
pub mod standin;

pub use grounding::LeverLlmco;
pub use standin::LeverStandIn;
