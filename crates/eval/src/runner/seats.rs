//! Seats: a spec from the command line (`greedy`, `scripted`, `bc:train`, `sp`,
//! `rl:PATH`, `proagent`, ...) → a boxed [`Agent`]. This is the one place that knows every
//! kind of seat; `play`, `eval`, `replay` and the benches all build their agents
//! here, so a spec means the same thing everywhere.

use proagent_agent::prompts::PromptError;
use proagent_agent::scripted_model::ScriptedModel;
use proagent_agent::{ExchangeSink, ProAgent, ProAgentConfig};
use proagent_overcooked::controller::Kitchen;
use proagent_overcooked::policy::Agent;
use proagent_partners::rl::{RlAgent, RlSpec};
use proagent_partners::{basic, bc, courier, greedy, scripted};
use std::collections::HashMap;
use std::sync::Arc;

/// The specs a seat understands.
pub const KNOWN_SPECS: [&str; 17] = [
    "greedy",
    "random",
    "random4",
    "stay",
    "courier",
    "scripted",
    "proagent",
    "proagent[model=NAME,key=value,...]",
    "bc",
    "bc:test",
    "bc:train",
    "bc:PATH",
    "sp",
    "pbt",
    "fcp",
    "mep",
    "rl:PATH",
];

/// Why a seat could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SeatError {
    /// A spec no seat answers to.
    #[error("unknown agent {spec:?} (known: {known}){hint}")]
    Unknown {
        /// The spec as given.
        spec: String,
        /// The specs that exist.
        known: String,
        /// A hint when the spec looks like a model name.
        hint: String,
    },
    /// A `proagent[...]` spec that does not parse.
    #[error("{spec:?}: {message}")]
    BadProAgentSpec {
        /// The spec as given.
        spec: String,
        /// What is wrong with it.
        message: String,
    },
    /// A `proagent[...]` seat whose settings were not resolved by the caller (a
    /// programming error: the caller must register every such spec).
    #[error("{0:?}: this command cannot seat a configured ProAgent here")]
    Unresolved(String),
    /// A BC model that could not be loaded.
    #[error(transparent)]
    Bc(#[from] bc::BcError),
    /// An RL policy that could not be loaded.
    #[error(transparent)]
    Rl(#[from] proagent_partners::rl::model::LoadError),
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

/// Whether a spec seats the ProAgent agent: `proagent`, or `proagent[...]` with options.
pub fn is_proagent(spec: &str) -> bool {
    let s = spec.trim();
    s == "proagent" || s.starts_with("proagent[")
}

/// The `key=value` options of a ProAgent spec, in the order given: none for `proagent`;
/// for `proagent[gpt-4o,memory_k=3]` the model (a first item without `=` is the model)
/// and `memory_k`. The keys are checked when the options are applied
/// ([`proagent_agent::config::apply_option`]); here only the shape.
pub fn proagent_options(spec: &str) -> Result<Vec<(String, String)>, SeatError> {
    let s = spec.trim();
    let bad = |message: &str| SeatError::BadProAgentSpec { spec: s.to_string(), message: message.to_string() };
    if s == "proagent" {
        return Ok(Vec::new());
    }
    let Some(inner) = s.strip_prefix("proagent[").and_then(|r| r.strip_suffix(']')) else {
        return Err(bad("expected proagent or proagent[key=value,...]"));
    };
    let mut out: Vec<(String, String)> = Vec::new();
    for (i, item) in inner.split(',').enumerate() {
        let item = item.trim();
        if item.is_empty() {
            if inner.trim().is_empty() {
                break;
            }
            return Err(bad("an empty option between commas"));
        }
        let (k, v) = match item.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None if i == 0 => ("model", item),
            None => {
                return Err(bad(&format!("option {item:?} has no '=' (only the first item may be a bare model name)")));
            }
        };
        if out.iter().any(|(seen, _)| seen == k) {
            return Err(bad(&format!("option {k:?} is given twice")));
        }
        out.push((k.to_string(), v.to_string()));
    }
    Ok(out)
}

/// Splits a comma-separated list of seat specs, keeping the commas inside `[...]`:
/// `proagent[model=a,memory_k=3],greedy` is two specs. Empty items are dropped.
pub fn split_specs(list: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut cur = String::new();
    for c in list.chars() {
        match c {
            '[' => depth += 1,
            ']' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter().map(|s| s.trim().to_string()).filter(|s| !s.is_empty()).collect()
}

/// A built seat: the agent, and for a ProAgent the list its model exchanges go to.
pub struct Seat {
    /// The agent.
    pub agent: Box<dyn Agent>,
    /// Where a ProAgent's finished exchanges are appended (`None` for other agents).
    pub exchanges: Option<ExchangeSink>,
}

/// Builds the agents of a run. A ProAgent spec registered with
/// [`SeatFactory::with_seat`] gets its own configuration; plain `proagent` gets the
/// configuration given to [`SeatFactory::new`] (or, without one, the defaults with the
/// built-in scripted model). Each seat gets its own exchange sink. The factory also
/// carries how many of the seats' model calls may fail in an episode.
#[derive(Clone)]
pub struct SeatFactory {
    proagent: Option<ProAgentConfig>,
    seats: HashMap<String, ProAgentConfig>,
    max_llm_failures: Option<u64>,
}

impl Default for SeatFactory {
    fn default() -> Self {
        SeatFactory::new(None)
    }
}

impl SeatFactory {
    /// A factory whose `proagent` seats use `proagent` (`None`: the defaults), with
    /// the default failure limit ([`crate::runner::episode::DEFAULT_MAX_LLM_FAILURES`]).
    pub fn new(proagent: Option<ProAgentConfig>) -> Self {
        SeatFactory {
            proagent,
            seats: HashMap::new(),
            max_llm_failures: Some(crate::runner::episode::DEFAULT_MAX_LLM_FAILURES),
        }
    }

    /// Sets how many model calls of an episode (both seats) may fail after every retry
    /// before the episode fails; `None`: no limit.
    pub fn with_max_llm_failures(mut self, limit: Option<u64>) -> Self {
        self.max_llm_failures = limit;
        self
    }

    /// How many model calls of an episode may fail (see [`SeatFactory::with_max_llm_failures`]).
    pub fn max_llm_failures(&self) -> Option<u64> {
        self.max_llm_failures
    }

    /// Seats `spec` (e.g. `proagent[gpt-4o,memory_k=3]`) with `cfg`.
    pub fn with_seat(mut self, spec: &str, cfg: ProAgentConfig) -> Self {
        self.seats.insert(spec.trim().to_string(), cfg);
        self
    }

    /// The configuration of plain `proagent` seats, if one was given.
    pub fn proagent_config(&self) -> Option<&ProAgentConfig> {
        self.proagent.as_ref()
    }

    /// The configuration a ProAgent spec gets (`None` for the defaults); an error for a
    /// `proagent[...]` spec that was not registered.
    pub fn config_of(&self, spec: &str) -> Result<Option<&ProAgentConfig>, SeatError> {
        let spec = spec.trim();
        match self.seats.get(spec) {
            Some(c) => Ok(Some(c)),
            None if spec == "proagent" => Ok(self.proagent.as_ref()),
            None => {
                proagent_options(spec)?;
                Err(SeatError::Unresolved(spec.to_string()))
            }
        }
    }

    /// Builds the seat a spec names on `kitchen`'s layout.
    pub fn build(&self, spec: &str, kitchen: &Arc<Kitchen>) -> Result<Seat, SeatError> {
        if !is_proagent(spec) {
            return Ok(Seat { agent: build_partner(spec, kitchen)?, exchanges: None });
        }
        let mut cfg = match self.config_of(spec)? {
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
        let cfg = match self.config_of(spec)? {
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
        "random4" => Box::new(basic::RandomPartner::moves_only()),
        "stay" => Box::new(basic::StayPartner),
        "courier" => Box::new(courier::CourierPartner::new(k)),
        "scripted" => Box::new(scripted::ScriptedPartner::new(k)),
        "proagent" => Box::new(ProAgent::new(ProAgentConfig::new(Arc::new(ScriptedModel::new()))).with_kitchen(k)),
        other if bc::BcSpec::parse(other).is_some() => Box::new(bc::BcAgent::from_spec(other, &kitchen.layout)?),
        other if let Some(rl) = RlSpec::parse(other) => Box::new(RlAgent::from_spec(&rl, other, &kitchen.layout)?),
        // A configured ProAgent needs its model built by the caller (`SeatFactory::with_seat`).
        other if other.starts_with("proagent[") => return Err(SeatError::Unresolved(other.to_string())),
        other => return Err(unknown(other)),
    })
}

/// The error for a spec no seat answers to, with a hint when it looks like a model name.
fn unknown(spec: &str) -> SeatError {
    let looks_like_a_model = ["gpt", "llama", "qwen", "mistral", "claude", "gemma", "phi", "o1", "o3", "deepseek"]
        .iter()
        .any(|m| spec.to_ascii_lowercase().starts_with(m))
        || spec.contains(':') && !spec.starts_with("bc");
    let hint = if looks_like_a_model {
        format!("; to seat a language model, use proagent[model={spec}] (or proagent with --model {spec})")
    } else {
        String::new()
    };
    SeatError::Unknown { spec: spec.to_string(), known: KNOWN_SPECS.join(", "), hint }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proagent_specs_parse() {
        assert!(is_proagent("proagent") && is_proagent(" proagent[gpt-4o] ") && !is_proagent("proagents"));
        assert_eq!(proagent_options("proagent").unwrap(), vec![]);
        assert_eq!(proagent_options("proagent[]").unwrap(), vec![]);
        let o = proagent_options("proagent[gpt-4o, memory_k=3]").unwrap();
        assert_eq!(o, vec![("model".into(), "gpt-4o".into()), ("memory_k".into(), "3".into())]);
        assert_eq!(proagent_options("proagent[model=llama3.1:8b]").unwrap()[0].1, "llama3.1:8b");
        for bad in ["proagent[gpt", "proagent[a,b]", "proagent[model=a,model=b]", "proagent[a,,memory_k=1]"] {
            let e = proagent_options(bad).unwrap_err().to_string();
            assert!(e.contains(bad.trim()), "{e}");
        }
    }

    #[test]
    fn lists_split_outside_brackets_only() {
        assert_eq!(
            split_specs("proagent[model=gpt-4o],proagent[model=llama3.1:8b,memory_k=3], greedy,,bc:train"),
            vec!["proagent[model=gpt-4o]", "proagent[model=llama3.1:8b,memory_k=3]", "greedy", "bc:train"]
        );
    }

    #[test]
    fn unknown_specs_say_agent_and_hint_at_models() {
        let k = Kitchen::shared(proagent_overcooked::env::Layout::builtin("cramped_room").unwrap());
        let e = build_partner("gpt4", &k).err().unwrap().to_string();
        assert!(e.starts_with("unknown agent \"gpt4\"") && e.contains("proagent[model=gpt4]"), "{e}");
        let e = build_partner("nobody", &k).err().unwrap().to_string();
        assert!(!e.contains("partner") && !e.contains("to seat a language model"), "{e}");
        let f = SeatFactory::new(None);
        assert!(matches!(f.build("proagent[gpt-4o]", &k), Err(SeatError::Unresolved(_))));
        assert!(matches!(build_partner("proagent[gpt-4o]", &k), Err(SeatError::Unresolved(_))));
    }
}
