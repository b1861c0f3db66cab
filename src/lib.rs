//! proagent: a Rust runtime for LLM-driven cooperative agents — the ProAgent
//! agent (Zhang et al.) on the Overcooked-AI game, with CoordinationQA scoring,
//! behaviour-cloned partners and teamwork metrics.
//!
//! Layering (a line means "uses"; nothing knows what sits above it):
//! `cli` → `web` (the viewer and human play of `proagent serve`) → `eval` → `runner` →
//! `agent` (planner, verificator, belief, memory, align, llm, controller) and `partners`
//! → `controller` → `skills` → `env`.

#![warn(missing_docs)]
#![allow(clippy::needless_range_loop, clippy::collapsible_match, clippy::collapsible_if)]

pub mod agent;
pub mod analysis;
pub mod controller;
pub mod env;
pub mod env_v2;
pub mod eval;
pub mod limits;
pub mod llm;
pub mod partners;
pub mod policy;
pub mod qa;
pub mod rl;
pub mod runner;
pub mod skills;
pub mod transcript;
pub mod v2;
pub mod web;
