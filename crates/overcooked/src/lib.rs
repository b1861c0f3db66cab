//! proagent-overcooked: classic Overcooked-AI with the old dynamics. The simulator
//! ([`env`]: pure, no I/O, no randomness, no allocation per step), the paper's skills
//! ([`skills`]: vocabulary, parser, preconditions, facts, the rule-based choice) and the
//! best-first-search controller that grounds a skill into moves ([`controller`]).

#![warn(missing_docs)]
#![allow(clippy::needless_range_loop, clippy::collapsible_match, clippy::collapsible_if)]

pub mod controller;
pub mod env;
pub mod game;
pub mod skills;
