//! The LLM-Coordination agent (Agashe et al.): one loop ([`agent::LlmCo`]) over per-game
//! groundings ([`grounding::LlmcoGrounding`]) — Hanabi ([`hanabi`]), CollabCapture
//! ([`capture`]), CollabEscape ([`escape`]), classic Overcooked ([`overcooked`]) and the lever game
//! ([`lever`]).
//!
//! The game-independent parts: the switches ([`settings`]: the Theory-of-Mind and
//! verification steps, their paper defaults per game, labels and fingerprints), the running
//! configuration ([`config`]), reply reading and grounding into an offered action
//! ([`reply`]), the counters ([`metrics`]), the frame of the `scripted` stand-ins
//! ([`standin`]) and the stand-in that serves every game's prompts ([`router`], for the
//! mock server). Prompt templates live in `prompts/llmco/` (docs/llmco.md).

pub mod agent;
pub mod capture;
pub mod config;
pub mod escape;
pub mod grounding;
pub mod hanabi;
pub mod lever;
pub mod maze_text;
pub mod metrics;
pub mod overcooked;
pub mod reply;
pub mod router;
pub mod settings;
pub mod standin;

#[cfg(test)]
mod tests;

/// Every grounding's `scripted` stand-in, one line per game: the router (`LlmcoStandIns`)
/// tells a request's game by the openings listed here.
pub const STAND_INS: &[standin::Route] = &[
    standin::Route::of::<hanabi::HanabiStandIn>(),
    standin::Route::of::<capture::CaptureStandIn>(),
    standin::Route::of::<escape::EscapeStandIn>(),
    standin::Route::of::<lever::LeverStandIn>(),
    standin::Route::of::<overcooked::OvercookedStandIn>(),
];

pub use agent::{LlmCo, check_prompts};
pub use config::LlmcoConfig;
pub use grounding::{Exec, LlmcoGrounding};
pub use settings::LlmcoSettings;
