//! proagent: a Rust runtime for LLM-driven cooperative agents — the ProAgent
//! agent (Zhang et al.) on the Overcooked-AI game, with CoordinationQA scoring,
//! behaviour-cloned partners and teamwork metrics.
//!
//! Layering (a line means "uses"; nothing knows what sits above it):
//! `cli` → `runner` → `agent` (planner, verificator, belief, memory, align, llm,
//! controller) and `partners` → `controller` → `skills` → `env`.

#![allow(clippy::needless_range_loop, clippy::collapsible_match, clippy::collapsible_if)]

pub mod agent;
pub mod align;
pub mod analysis;
pub mod belief;
pub mod controller;
pub mod env;
pub mod eval;
pub mod llm;
pub mod memory;
pub mod partners;
pub mod planner;
pub mod policy;
pub mod prompts;
pub mod qa;
pub mod reference;
pub mod runner;
pub mod skills;
pub mod transcript;
pub mod verificator;
