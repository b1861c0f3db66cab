//! Partners: the scripted, greedy, random, stay, courier and BC policies that
//! sit in the other seat (or in either seat).
//!
//! Every partner implements [`proagent_core::seat::Agent`], is seeded through
//! `Agent::reset`, and is deterministic for a given seed. Turning a spec from
//! the command line into an agent is the runner's job (`runner::seats`).

#![warn(missing_docs)]
#![allow(clippy::needless_range_loop, clippy::collapsible_match, clippy::collapsible_if)]

pub mod basic;
pub mod bc;
pub mod collab;
pub mod courier;
pub mod greedy;
pub mod hanabi;
pub mod rl;
pub mod scripted;
pub mod v2;
