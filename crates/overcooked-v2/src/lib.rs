//! proagent-overcooked-v2: OvercookedV2 with JaxMARL's dynamics. The simulator ([`env`]:
//! pure; its only randomness comes from a `Chance` passed in), and the pieces the agents
//! and partners share, lowest first: [`skills`] (the vocabulary that names ingredients,
//! the parser, the preconditions), [`knowledge`] (what one agent knows within its view
//! radius, and the scene text), [`rules`] (the rule-based skill choice) and [`nav`] (the
//! controller).

#![warn(missing_docs)]
#![allow(clippy::needless_range_loop, clippy::collapsible_match, clippy::collapsible_if)]

pub mod env;
pub mod game;
pub mod knowledge;
pub mod nav;
pub mod rules;
pub mod skills;
