//! Seats: a spec from the command line (`greedy`, `scripted`, `bc:train`, `sp`,
//! `rl:PATH`, `proagent`, ...) → a boxed [`Agent`]. This is the one place that knows every
//! kind of seat; `play`, `eval`, `replay` and the benches all build their agents
//! here, so a spec means the same thing everywhere.

use crate::agent::prompts::PromptError;
use crate::agent::scripted_model::ScriptedModel;
use crate::agent::{ExchangeSink, ProAgent, ProAgentConfig};
use crate::controller::Kitchen;
use crate::partners::{basic, bc, courier, greedy, scripted};
use crate::policy::Agent;
use crate::rl::{RlAgent, RlSpec};
use std::sync::Arc;

/// The specs a seat understands.
pub const KNOWN_SPECS: [&str; 14] = [
    "greedy", "random", "stay", "courier", "scripted", "proagent", "bc", "bc:train", "bc:PATH", "sp", "pbt", "fcp",
    "mep", "rl:PATH",
];

/// Why a seat could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SeatError {
    /// A spec no seat answers to.
    #[error("unknown partner {spec:?} (known: {known})")]
    Unknown {
        /// The spec as given.
        spec: String,
        /// The specs that exist.
        known: String,
    },
    /// A BC model that could not be loaded.
    #[error(transparent)]
    Bc(#[from] bc::BcError),
    /// An RL policy that could not be loaded.
    #[error(transparent)]
    Rl(#[from] crate::rl::model::LoadError),
    /// A prompt template that does not render for this layout and seat.
    #[error("prompt templates for {layout}, seat {seat}: {source}")]
    Prompts {
        /// The layout's name.
        layout: String,
        /// The seat (player index).
        seat: usize,
        /// What went wrong.
        #[source]
        source: PromptError,
    },
}

/// Whether a spec seats the ProAgent agent.
pub fn is_proagent(spec: &str) -> bool {
    spec.trim() == "proagent"
}

/// A built seat: the agent, and for a ProAgent the list its model exchanges go to.
pub struct Seat {
    /// The agent.
    pub agent: Box<dyn Agent>,
    /// Where a ProAgent's finished exchanges are appended (`None` for other agents).
    pub exchanges: Option<ExchangeSink>,
}

/// Builds the agents of a run. `proagent` seats get the configuration given here (or,
/// without one, the defaults with the built-in scripted model), each with its own sink.
#[derive(Clone, Default)]
pub struct SeatFactory {
    proagent: Option<ProAgentConfig>,
}

impl SeatFactory {
    /// A factory whose `proagent` seats use `proagent` (`None`: the defaults).
    pub fn new(proagent: Option<ProAgentConfig>) -> Self {
        SeatFactory { proagent }
    }

    /// The configuration of `proagent` seats, if one was given.
    pub fn proagent_config(&self) -> Option<&ProAgentConfig> {
        self.proagent.as_ref()
    }

    /// Builds the seat a spec names on `kitchen`'s layout.
    pub fn build(&self, spec: &str, kitchen: &Arc<Kitchen>) -> Result<Seat, SeatError> {
        if !is_proagent(spec) {
            return Ok(Seat { agent: build_partner(spec, kitchen)?, exchanges: None });
        }
        let mut cfg = match &self.proagent {
            Some(c) => c.clone(),
            None => ProAgentConfig::new(Arc::new(ScriptedModel::new())),
        };
        let sink: ExchangeSink = Arc::default();
        cfg.exchange_sink = Some(Arc::clone(&sink));
        let agent = ProAgent::new(cfg).with_kitchen(Arc::clone(kitchen));
        Ok(Seat { agent: Box::new(agent), exchanges: Some(sink) })
    }

    /// Checks, before anything runs, that `spec` can be built on this layout in
    /// `seat` (for a ProAgent: that every prompt template renders).
    pub fn check(&self, spec: &str, kitchen: &Arc<Kitchen>, seat: usize) -> Result<(), SeatError> {
        if !is_proagent(spec) {
            build_partner(spec, kitchen)?;
            return Ok(());
        }
        let default;
        let cfg = match &self.proagent {
            Some(c) => c,
            None => {
                default = ProAgentConfig::new(Arc::new(ScriptedModel::new()));
                &default
            }
        };
        ProAgent::check_prompts(cfg, &kitchen.layout, seat).map_err(|source| SeatError::Prompts {
            layout: kitchen.layout.name.clone(),
            seat,
            source,
        })
    }
}

/// Builds a seat that talks to no model: the partners, and `proagent` with its
/// defaults and the built-in scripted model.
pub fn build_partner(spec: &str, kitchen: &Arc<Kitchen>) -> Result<Box<dyn Agent>, SeatError> {
    let k = Arc::clone(kitchen);
    Ok(match spec.trim() {
        "greedy" => Box::new(greedy::GreedyPartner::new(k)),
        "random" => Box::new(basic::RandomPartner::new()),
        "stay" => Box::new(basic::StayPartner),
        "courier" => Box::new(courier::CourierPartner::new(k)),
        "scripted" => Box::new(scripted::ScriptedPartner::new(k)),
        "proagent" => Box::new(ProAgent::new(ProAgentConfig::new(Arc::new(ScriptedModel::new()))).with_kitchen(k)),
        other if bc::BcSpec::parse(other).is_some() => Box::new(bc::BcAgent::from_spec(other, &kitchen.layout)?),
        other if let Some(rl) = RlSpec::parse(other) => Box::new(RlAgent::from_spec(&rl, other, &kitchen.layout)?),
        other => {
            return Err(SeatError::Unknown { spec: other.to_string(), known: KNOWN_SPECS.join(", ") });
        }
    })
}
