//! proagent: a Rust runtime for LLM-driven cooperative agents. This package is the top of
//! the crate graph (docs/architecture.md): the `proagent` binary (the command line: argument
//! parsing and printing). It holds no run logic; episodes, seats, transcripts and sweeps come
//! from `proagent-eval`, the boards from `proagent-view`, the web viewer from `proagent-web`
//! and the mock model server from `proagent-mock`.
//!
//! The crates below are re-exported under the names the command line and the tests use.

#![warn(missing_docs)]
#![allow(clippy::needless_range_loop, clippy::collapsible_match, clippy::collapsible_if)]

pub use proagent_agent as agent;
pub use proagent_analysis as analysis;
pub use proagent_collab as collab;
pub use proagent_core::{game, limits, seat};
pub use proagent_eval::{games, on_episode, on_game, on_rl_game, replay, run, runner, sweep as eval, transcript};
pub use proagent_llm as llm;
pub use proagent_overcooked::{controller, env, game as overcooked_game, skills};
pub use proagent_overcooked_v2 as overcooked_v2;
pub use proagent_overcooked_v2::env as env_v2;
pub use proagent_partners as partners;
pub use proagent_partners::rl;
pub use proagent_qa as qa;
