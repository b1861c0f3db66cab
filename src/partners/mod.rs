//! Partners: the scripted, greedy, random, stay, courier and BC policies that
//! sit in the other seat (or in either seat).

pub mod bc;
pub mod facts;
