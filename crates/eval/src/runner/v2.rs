//! OvercookedV2 seats and seated episodes: a spec (`proagent`, `scripted`, `random`,
//! `stay`) → a boxed [`V2Agent`], the `scripted` model for V2 prompts, and one episode
//! played with a transcript recorder — the V2 counterparts of [`super::seats`] and
//! [`super::play_seated`], shared by `play`, `replay` and `eval`.

use super::models::{ModelChoice, ModelError, ModelSpec, build_model, classify_model};
use super::record::EpisodeRecorder;
use crate::runner::v2_episode::{V2EpisodeFailed, V2EpisodeResult, V2StepObserver, V2StepView, play_episode};
use proagent_agent::ProAgentConfig;
use proagent_agent::log::ExchangeSink;
use proagent_agent::prompts::{Family, PromptError};
use proagent_agent::v2::agent::ProAgentV2;
use proagent_agent::v2::model::ScriptedV2Model;
use proagent_llm::LanguageModel;
use proagent_overcooked_v2::env::{Layout, Settings};
use proagent_overcooked_v2::policy::V2Agent;
use proagent_partners::v2::{RandomV2, ScriptedV2, StayV2};
use std::sync::Arc;

/// The specs a V2 seat understands.
pub const KNOWN_V2_SPECS: [&str; 4] = ["proagent", "scripted", "random", "stay"];

/// Why a V2 seat could not be built.
#[derive(Debug, thiserror::Error)]
pub enum V2SeatError {
    /// A spec no V2 seat answers to.
    #[error("unknown OvercookedV2 seat {spec:?} (known: {known})")]
    Unknown {
        /// The spec as given.
        spec: String,
        /// The specs that exist.
        known: String,
    },
    /// The ProAgent's templates are not the V2 family.
    #[error("the prompt library holds the {0:?} templates; OvercookedV2 needs prompts/v2")]
    WrongPrompts(Family),
    /// A template that does not render for this layout and seat.
    #[error("prompt templates for v2:{layout}, seat {seat}: {source}")]
    Prompts {
        /// The layout's name.
        layout: String,
        /// The seat.
        seat: usize,
        /// What went wrong.
        #[source]
        source: PromptError,
    },
}

/// Why a V2 episode could not be played to its horizon.
#[derive(Debug, thiserror::Error)]
pub enum V2RunError {
    /// A seat could not be built.
    #[error(transparent)]
    Seat(#[from] V2SeatError),
    /// The episode stopped because of its model (never a score).
    #[error(transparent)]
    Failed(Box<V2EpisodeFailed>),
}

/// The backend for `--model` on V2: `scripted` is the V2 scripted model (it reads V2
/// prompts); `replay:FILE` and served models are the same as for the classic game.
pub fn v2_model(spec: &ModelSpec) -> Result<Arc<dyn LanguageModel>, ModelError> {
    match classify_model(spec.name.trim()) {
        ModelChoice::Builtin(n) if n == "scripted" => Ok(Arc::new(ScriptedV2Model)),
        _ => build_model(spec),
    }
}

/// A built seat and, for a ProAgent, where its exchanges go.
pub struct V2Seat {
    /// The agent.
    pub agent: Box<dyn V2Agent>,
    /// A ProAgent's exchange list.
    pub exchanges: Option<ExchangeSink>,
}

/// Builds V2 seats; ProAgent seats (`proagent`, `proagent[...]`) get the configuration
/// given for their spec, else the default one (its prompts must be V2's).
#[derive(Clone)]
pub struct V2SeatFactory {
    proagent: Option<ProAgentConfig>,
    seats: std::collections::HashMap<String, ProAgentConfig>,
    max_llm_failures: Option<u64>,
}

impl Default for V2SeatFactory {
    fn default() -> Self {
        V2SeatFactory::new(None)
    }
}

impl V2SeatFactory {
    /// A factory; `None`: `proagent` seats use the V2 scripted model and embedded prompts.
    pub fn new(proagent: Option<ProAgentConfig>) -> Self {
        V2SeatFactory {
            proagent,
            seats: Default::default(),
            max_llm_failures: Some(super::episode::DEFAULT_MAX_LLM_FAILURES),
        }
    }

    /// How many model calls of an episode may fail after every retry before the episode
    /// fails (`None`: no limit; default [`super::episode::DEFAULT_MAX_LLM_FAILURES`]).
    pub fn with_max_llm_failures(mut self, limit: Option<u64>) -> Self {
        self.max_llm_failures = limit;
        self
    }

    /// The configuration of the ProAgent seat named `spec` (as written on the command line,
    /// or its label).
    pub fn with_seat(mut self, spec: &str, cfg: ProAgentConfig) -> Self {
        self.seats.insert(spec.trim().to_string(), cfg);
        self
    }

    /// The configuration a ProAgent spec gets.
    pub fn config_of(&self, spec: &str) -> ProAgentConfig {
        match self.seats.get(spec.trim()) {
            Some(c) => c.clone(),
            None => self.config(),
        }
    }

    fn config(&self) -> ProAgentConfig {
        match &self.proagent {
            Some(c) => c.clone(),
            None => {
                let mut c = ProAgentConfig::new(Arc::new(ScriptedV2Model));
                c.prompts = Arc::new(proagent_agent::prompts::PromptLibrary::embedded_family(Family::V2));
                c
            }
        }
    }

    /// Builds the seat a spec names.
    pub fn build(&self, spec: &str) -> Result<V2Seat, V2SeatError> {
        let agent: Box<dyn V2Agent> = match spec.trim() {
            "scripted" => Box::new(ScriptedV2::new()),
            "random" => Box::new(RandomV2::default()),
            "stay" => Box::new(StayV2),
            s if super::seats::is_proagent(s) => {
                let mut cfg = self.config_of(s);
                if cfg.prompts.family() != Family::V2 {
                    return Err(V2SeatError::WrongPrompts(cfg.prompts.family()));
                }
                let sink: ExchangeSink = Arc::default();
                cfg.exchange_sink = Some(Arc::clone(&sink));
                return Ok(V2Seat { agent: Box::new(ProAgentV2::new(cfg)), exchanges: Some(sink) });
            }
            other => {
                return Err(V2SeatError::Unknown { spec: other.to_string(), known: KNOWN_V2_SPECS.join(", ") });
            }
        };
        Ok(V2Seat { agent, exchanges: None })
    }

    /// Checks, before anything runs, that `spec` can sit in `seat` (prompts render).
    pub fn check(&self, spec: &str, layout: &Layout, settings: &Settings, seat: usize) -> Result<(), V2SeatError> {
        self.build(spec)?;
        if super::seats::is_proagent(spec) {
            ProAgentV2::check_prompts(&self.config_of(spec), layout, settings, seat)
                .map_err(|source| V2SeatError::Prompts { layout: layout.name.clone(), seat, source })?;
        }
        Ok(())
    }
}

/// Plays one V2 episode with seats built from `specs` (one per player); with a recorder,
/// every step's exchanges and the step are written as they happen.
pub async fn play_seated_v2(
    layout: &Arc<Layout>,
    settings: &Settings,
    factory: &V2SeatFactory,
    specs: &[String],
    seed: u64,
    mut recorder: Option<&mut EpisodeRecorder>,
    mut observer: Option<V2StepObserver<'_>>,
) -> Result<V2EpisodeResult, V2RunError> {
    let mut agents = Vec::with_capacity(specs.len());
    let mut sinks = Vec::new();
    for spec in specs {
        let seat = factory.build(spec)?;
        sinks.extend(seat.exchanges);
        agents.push(seat.agent);
    }
    if let Some(r) = recorder.as_deref_mut() {
        r.set_sinks(sinks);
    }
    let on_step: Option<V2StepObserver<'_>> = if recorder.is_some() || observer.is_some() {
        Some(Box::new(move |v: &V2StepView<'_>| {
            if let Some(r) = recorder.as_deref_mut() {
                r.on_step_value(v.t, v.transcript_json());
            }
            if let Some(o) = observer.as_mut() {
                o(v);
            }
        }))
    } else {
        None
    };
    play_episode(Arc::clone(layout), settings.clone(), agents, seed, on_step, factory.max_llm_failures)
        .await
        .map_err(|e| V2RunError::Failed(Box::new(e)))
}
