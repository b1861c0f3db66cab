//! ProAgent and its partners on OvercookedV2 (the simulator is [`crate::env_v2`]).
//!
//! Children, lowest first: [`skills`] (the vocabulary that names ingredients, the parser,
//! the preconditions), [`knowledge`] (what one agent knows within its view radius, and the
//! scene text), [`rules`] (the rule-based skill choice), [`nav`] (the controller),
//! [`analysis`] (hand-overs), [`episode`] (the seat trait and the episode loop),
//! [`partner`] (scripted, random, stay), [`model`] (the built-in scripted model that reads
//! only the prompt) and [`agent`] (the ProAgent loop: planner, validator, verificator,
//! belief, memory). Pure except [`agent`] and [`model`], which talk to a language model.

pub mod agent;
pub mod analysis;
pub mod episode;
pub mod knowledge;
pub mod model;
pub mod nav;
pub mod partner;
pub mod rules;
pub mod skills;

#[cfg(test)]
mod tests;
