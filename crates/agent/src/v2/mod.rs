//! The ProAgent agent on OvercookedV2 and its built-in scripted model.

pub mod agent;
pub mod model;
