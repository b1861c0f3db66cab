//! Partners: the scripted, greedy, random, stay, courier and BC policies that
//! sit in the other seat (or in either seat).
//!
//! Every partner implements [`crate::policy::Agent`], is seeded through
//! `Agent::reset`, and is deterministic for a given seed. [`build`] turns a
//! partner spec from the command line into an agent.

pub mod basic;
pub mod bc;
pub mod courier;
pub mod facts;
pub mod greedy;
pub mod scripted;

use crate::controller::Kitchen;
use crate::env::Layout;
use crate::policy::Agent;
use std::sync::Arc;

/// The specs [`build`] understands.
pub const KNOWN_SPECS: [&str; 9] =
    ["greedy", "random", "stay", "courier", "scripted", "proagent", "bc", "bc:train", "bc:PATH"];

#[derive(Debug, thiserror::Error)]
pub enum PartnerError {
    #[error("unknown partner {spec:?} (known: {known})")]
    Unknown { spec: String, known: String },
    #[error(transparent)]
    Bc(#[from] bc::BcError),
}

/// Builds the agent a spec names, for the layout of `kitchen`.
///
/// `bc`, `bc:test`, `bc:train` and `bc:PATH` are the behaviour-cloned human
/// proxies of [`bc`]. Extension point: other model-backed partners (`proagent`)
/// add their arms here.
pub fn build(spec: &str, kitchen: &Arc<Kitchen>) -> Result<Box<dyn Agent>, PartnerError> {
    let k = Arc::clone(kitchen);
    Ok(match spec.trim() {
        "greedy" => Box::new(greedy::GreedyPartner::new(k)),
        "random" => Box::new(basic::RandomPartner::new()),
        "stay" => Box::new(basic::StayPartner),
        "courier" => Box::new(courier::CourierPartner::new(k)),
        "scripted" => Box::new(scripted::ScriptedPartner::new(k)),
        // The ProAgent agent with its defaults and the built-in scripted model.
        "proagent" => Box::new(
            crate::agent::ProAgent::new(crate::agent::ProAgentConfig::new(Arc::new(
                crate::llm::scripted::ScriptedModel::new(),
            )))
            .with_kitchen(k),
        ),
        other if bc::BcSpec::parse(other).is_some() => Box::new(bc::BcAgent::from_spec(other, &kitchen.layout)?),
        other => {
            return Err(PartnerError::Unknown { spec: other.to_string(), known: KNOWN_SPECS.join(", ") });
        }
    })
}

/// The kitchen for `layout`: `current` when it was built for the same grid, else a new one.
pub(crate) fn kitchen_for(current: &Arc<Kitchen>, layout: &Layout) -> Arc<Kitchen> {
    if current.layout.grid == layout.grid && current.layout.rules == layout.rules {
        Arc::clone(current)
    } else {
        Arc::new(Kitchen::new(Arc::new(layout.clone())))
    }
}

/// A seed for one part of an agent, derived from the agent's seed (SplitMix64 finaliser).
pub fn derive_seed(seed: u64, stream: u64) -> u64 {
    let mut z = seed ^ stream.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
