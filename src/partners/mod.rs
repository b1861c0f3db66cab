//! Partners: the scripted, greedy, random, stay, courier and BC policies that
//! sit in the other seat (or in either seat).
//!
//! Every partner implements [`crate::policy::Agent`], is seeded through
//! `Agent::reset`, and is deterministic for a given seed. Turning a spec from
//! the command line into an agent is the runner's job (`runner::seats`).

pub mod basic;
pub mod bc;
pub mod courier;
pub mod greedy;
pub mod scripted;
