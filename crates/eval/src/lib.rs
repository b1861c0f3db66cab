//! proagent-eval: everything that plays and records episodes. The episode runner, the
//! seat factory and the model factory ([`runner`]), JSONL transcripts and their
//! reader ([`transcript`]), and evaluation sweeps with reports ([`sweep`]). The binary and
//! the Python bindings call this crate.

#![warn(missing_docs)]
#![allow(clippy::needless_range_loop, clippy::collapsible_match, clippy::collapsible_if)]

pub mod bench;
#[macro_use]
pub mod games;
pub mod replay;
pub mod run;
pub mod runner;
pub mod sweep;
pub mod transcript;
