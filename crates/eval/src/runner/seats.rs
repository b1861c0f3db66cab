//! Seats: a spec from the command line (`greedy`, `scripted`, `bc:train`, `sp`,
//! `rl:PATH`, `proagent`, `proagent[model=NAME,key=value,...]`, ...) → a boxed
//! [`Seat`] of any game. This is the one place that builds seats: `play`, `eval`,
//! `replay`, the viewer, the benches and the Python bindings all come here, so a spec means
//! the same thing everywhere. Which partners a game knows is the game's
//! ([`Playable::partner`]); how a ProAgent seat is configured is written down once
//! ([`ProAgentSeat`]) and built for whichever game it sits in.

use super::models::build_model_with;
use crate::games::PartnerOptions;
pub use crate::games::playable::{default_llmco_config, default_proagent_config};
pub use crate::games::{Playable, SeatError, unknown_spec};
use proagent_agent::llmco::settings::LlmcoPreset;
use proagent_agent::llmco::{LlmcoConfig, LlmcoSettings};
use proagent_agent::prompts::{Family, PromptLibrary};
use proagent_agent::{AgentSettings, ExchangeSink, ModelSpec, ProAgentConfig};
use proagent_core::Seat;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Whether a spec seats the ProAgent agent: `proagent`, or `proagent[...]` with options.
pub fn is_proagent(spec: &str) -> bool {
    let s = spec.trim();
    s == "proagent" || s.starts_with("proagent[")
}

/// Whether a spec seats the LLM-Coordination agent: `llmco`, or `llmco[...]` with options.
pub fn is_llmco(spec: &str) -> bool {
    let s = spec.trim();
    s == "llmco" || s.starts_with("llmco[")
}

/// Whether a spec seats an agent that asks a language model (`proagent...` or `llmco...`).
pub fn is_language_agent(spec: &str) -> bool {
    is_proagent(spec) || is_llmco(spec)
}

/// The `key=value` options of a ProAgent spec, in the order given: none for `proagent`;
/// for `proagent[gpt-4o,memory_k=3]` the model (a first item without `=` is the model)
/// and `memory_k`. The keys are checked when the options are applied
/// ([`proagent_agent::config::apply_option`]); here only the shape.
pub fn proagent_options(spec: &str) -> Result<Vec<(String, String)>, SeatError> {
    agent_options("proagent", spec)
}

/// The `key=value` options of an LLM-Coordination spec (`llmco[gpt-4o,tom=false]`), as
/// [`proagent_options`] reads a ProAgent's; the keys are checked by
/// [`proagent_agent::llmco::settings::apply_option`].
pub fn llmco_options(spec: &str) -> Result<Vec<(String, String)>, SeatError> {
    agent_options("llmco", spec)
}

fn agent_options(agent: &str, spec: &str) -> Result<Vec<(String, String)>, SeatError> {
    let s = spec.trim();
    let bad = |message: &str| SeatError::BadProAgentSpec { spec: s.to_string(), message: message.to_string() };
    if s == agent {
        return Ok(Vec::new());
    }
    let Some(inner) = s.strip_prefix(agent).and_then(|r| r.strip_prefix('[')).and_then(|r| r.strip_suffix(']')) else {
        return Err(bad(&format!("expected {agent} or {agent}[key=value,...]")));
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

/// One ProAgent seat of a run, whatever the game: its name, its switches and its model.
/// This is what a transcript header records of it, what an eval key hashes, and all the
/// seat factory needs to build it on any game.
#[derive(Clone, Debug)]
pub struct ProAgentSeat {
    /// The seat's name in every output ([`proagent_agent::config::label`]).
    pub label: String,
    /// The switches.
    pub settings: AgentSettings,
    /// The model: its name, sampling and (served models) address, time-outs and key.
    pub model: ModelSpec,
}

impl ProAgentSeat {
    /// A seat with the default switches and model `name` (no HTTP settings beyond the defaults).
    pub fn new(name: &str) -> Self {
        let model = ModelSpec::new(name);
        let settings = AgentSettings::default();
        ProAgentSeat { label: proagent_agent::config::label(&settings, &model), settings, model }
    }

    /// The running configuration of this seat on `game`: the model built (the game's own
    /// `scripted` stand-in for `scripted`), the game's prompt templates loaded, the
    /// horizon the game's episode length.
    pub fn config<G: Playable>(&self, game: &G) -> Result<ProAgentConfig, SeatError> {
        let hooks = game.proagent_or_refuse()?;
        let model = build_model_with(&self.model, || hooks.scripted_model())
            .map_err(|source| SeatError::Model { label: self.label.clone(), source })?;
        let prompts = PromptLibrary::load_or_embedded_family(self.settings.prompts.as_deref(), hooks.family())
            .map_err(|source| SeatError::Prompts { layout: game.report_name(), seat: 0, source })?;
        let mut cfg = ProAgentConfig::new(model);
        cfg.sampling = self.model.sampling();
        cfg.settings = self.settings.clone();
        cfg.prompts = Arc::new(prompts);
        cfg.horizon = game.max_steps();
        cfg.label = Some(self.label.clone());
        Ok(cfg)
    }
}

/// One LLM-Coordination seat of a run, whatever the game: its name, switches and model.
/// Its label is itself a spec that rebuilds it ([`proagent_agent::llmco::settings::label`]).
#[derive(Clone, Debug, PartialEq)]
pub struct LlmcoSeat {
    /// The seat's name in every output.
    pub label: String,
    /// The switches.
    pub settings: LlmcoSettings,
    /// The model.
    pub model: ModelSpec,
}

impl LlmcoSeat {
    /// The seat `spec` (`llmco`, `llmco[gpt-4o,tom=false]`) describes, its options applied
    /// over `base` (the command line's model settings; `llmco` alone keeps `base`'s model).
    pub fn from_spec(spec: &str, base: &ModelSpec) -> Result<LlmcoSeat, SeatError> {
        let mut model = base.clone();
        let mut settings = LlmcoSettings::default();
        for (k, v) in llmco_options(spec)? {
            proagent_agent::llmco::settings::apply_option(&mut settings, &mut model, &k, &v)
                .map_err(|e| SeatError::BadProAgentSpec { spec: spec.trim().to_string(), message: e.to_string() })?;
        }
        Ok(LlmcoSeat { label: proagent_agent::llmco::settings::label(&settings, &model), settings, model })
    }

    /// The running configuration of this seat on `game`: the model built (the game's own
    /// LLM-Co `scripted` stand-in for `scripted`), the `llmco/` templates loaded.
    pub fn config<G: Playable>(&self, game: &G) -> Result<LlmcoConfig, SeatError> {
        let hooks = game.llmco_or_refuse()?;
        let model = build_model_with(&self.model, || hooks.scripted_model())
            .map_err(|source| SeatError::Model { label: self.label.clone(), source })?;
        let prompts = PromptLibrary::load_or_embedded_family(self.settings.prompts.as_deref(), Family::Llmco)
            .map_err(|source| SeatError::Prompts { layout: game.report_name(), seat: 0, source })?;
        let mut cfg = LlmcoConfig::new(model);
        cfg.sampling = self.model.sampling();
        cfg.settings = self.settings.clone();
        cfg.prompts = Arc::new(prompts);
        cfg.label = Some(self.label.clone());
        Ok(cfg)
    }
}

/// What a transcript header and an eval record keep of a language-model seat.
#[derive(Clone, Debug, PartialEq)]
pub struct ProAgentRecord {
    /// The seat's name.
    pub label: String,
    /// Its switches (the defaults for an LLM-Coordination seat).
    pub settings: AgentSettings,
    /// Its model.
    pub model: ModelSpec,
    /// An LLM-Coordination seat's switches (`None` for a ProAgent).
    pub llmco: Option<LlmcoSettings>,
}

/// How a ProAgent spec is configured in a factory.
#[derive(Clone)]
enum Configured {
    /// Written down: built for each game on first use.
    Seat(ProAgentSeat),
    /// Built by the caller (a test's model, a Python callable, the viewer's model list):
    /// used as it is on any game, recorded with the model settings given.
    Config(ProAgentConfig, ModelSpec),
}

/// How an LLM-Coordination spec is configured in a factory.
#[derive(Clone)]
enum LlmcoConfigured {
    /// Written down: built for each game on first use.
    Seat(LlmcoSeat),
    /// Built by the caller (a replay's recorded seat): used as it is.
    Config(LlmcoConfig, ModelSpec),
}

/// A built seat: the seat, and for a ProAgent the list its model exchanges go to.
pub struct BuiltSeat<G> {
    /// The seat.
    pub seat: Box<dyn Seat<G>>,
    /// Where a ProAgent's finished exchanges are appended (`None` for other seats).
    pub exchanges: Option<ExchangeSink>,
}

/// Builds the seats of a run on any game. A ProAgent spec registered with
/// [`SeatFactory::with_seat`] (or [`SeatFactory::with_config`]) gets its own
/// configuration; plain `proagent` gets the one given to [`SeatFactory::new`] (or, without
/// one, the defaults with the game's built-in scripted model). Each seat gets its own
/// exchange sink. The factory also carries how many of the seats' model calls may fail in
/// an episode, and what share of them may name no usable action.
#[derive(Clone)]
pub struct SeatFactory {
    proagent: Option<Configured>,
    seats: HashMap<String, Configured>,
    llmco: HashMap<String, LlmcoConfigured>,
    max_llm_failures: Option<u64>,
    partner_options: PartnerOptions,
    max_parse_failure_share: Option<f64>,
    /// `--dry-run`: every configured ProAgent and LLM-Coordination seat plays with the
    /// game's offline stand-in, its prompts and replies counted with its own model's
    /// tokenizer.
    stand_in: bool,
    /// Configurations built from [`ProAgentSeat`]s, by game kind and spec.
    built: Arc<Mutex<HashMap<(&'static str, String), ProAgentConfig>>>,
}

impl Default for SeatFactory {
    fn default() -> Self {
        SeatFactory::new(None)
    }
}

impl SeatFactory {
    /// A factory whose `proagent` seats are `proagent` (`None`: the defaults with the
    /// game's scripted model), with the default failure limit
    /// ([`proagent_core::episode::DEFAULT_MAX_LLM_FAILURES`]).
    pub fn new(proagent: Option<ProAgentSeat>) -> Self {
        SeatFactory {
            proagent: proagent.map(Configured::Seat),
            seats: HashMap::new(),
            llmco: HashMap::new(),
            max_llm_failures: Some(proagent_core::episode::DEFAULT_MAX_LLM_FAILURES),
            partner_options: PartnerOptions::default(),
            max_parse_failure_share: Some(proagent_core::episode::DEFAULT_MAX_PARSE_FAILURE_SHARE),
            stand_in: false,
            built: Arc::default(),
        }
    }

    /// A factory whose `proagent` seats use a configuration built by the caller (recorded
    /// in transcript headers with the model settings `model`).
    pub fn with_default_config(cfg: ProAgentConfig, model: ModelSpec) -> Self {
        SeatFactory { proagent: Some(Configured::Config(cfg, model)), ..SeatFactory::new(None) }
    }

    /// For `--dry-run`: every ProAgent seat registered with [`SeatFactory::with_seat`] and
    /// every LLM-Coordination seat registered with [`SeatFactory::with_llmco_seat`] (or
    /// described by its spec) plays with the game's rule-based stand-in instead of its
    /// model (nothing is sent anywhere), and its usage counts the prompts and replies with
    /// its own model's tokenizer ([`proagent_llm::tokens::TokenCounter::for_model`]),
    /// the prompt tokens that repeat the seat's previous request as cached.
    pub fn with_stand_in_models(mut self) -> Self {
        if !self.stand_in {
            // Configurations built so far hold the real models (the cache is shared by clones).
            self.built = Arc::default();
        }
        self.stand_in = true;
        self
    }

    /// Sets how many model calls of an episode (all seats) may fail after every retry
    /// before the episode fails; `None`: no limit.
    pub fn with_max_llm_failures(mut self, limit: Option<u64>) -> Self {
        self.max_llm_failures = limit;
        self
    }

    /// Builds partner seats with `options` (e.g. letting model files of another layout play).
    pub fn with_partner_options(mut self, options: PartnerOptions) -> Self {
        self.partner_options = options;
        self
    }

    /// The options partner seats are built with.
    pub fn partner_options(&self) -> PartnerOptions {
        self.partner_options
    }

    /// How many model calls of an episode may fail (see [`SeatFactory::with_max_llm_failures`]).
    pub fn max_llm_failures(&self) -> Option<u64> {
        self.max_llm_failures
    }

    /// Sets the largest share of an episode's model calls (all seats) whose replies may
    /// name no usable action before the played episode counts as failed; `None`: no limit.
    pub fn with_max_parse_failure_share(mut self, limit: Option<f64>) -> Self {
        self.max_parse_failure_share = limit;
        self
    }

    /// The share of unread replies an episode may have (see
    /// [`SeatFactory::with_max_parse_failure_share`]).
    pub fn max_parse_failure_share(&self) -> Option<f64> {
        self.max_parse_failure_share
    }

    /// Seats `spec` (e.g. `proagent[gpt-4o,memory_k=3]`, or a seat's label) as `seat`.
    pub fn with_seat(mut self, spec: &str, seat: ProAgentSeat) -> Self {
        self.seats.insert(spec.trim().to_string(), Configured::Seat(seat));
        self
    }

    /// Seats `spec` with a configuration built by the caller (used as it is on any game),
    /// recorded in transcript headers with the model settings `model`.
    pub fn with_config(mut self, spec: &str, cfg: ProAgentConfig, model: ModelSpec) -> Self {
        self.seats.insert(spec.trim().to_string(), Configured::Config(cfg, model));
        self
    }

    /// Seats the LLM-Coordination spec `spec` as `seat` (its model settings, e.g. a served
    /// model's address, from the command line).
    pub fn with_llmco_seat(mut self, spec: &str, seat: LlmcoSeat) -> Self {
        self.llmco.insert(spec.trim().to_string(), LlmcoConfigured::Seat(seat));
        self
    }

    /// Seats the LLM-Coordination spec `spec` with a configuration built by the caller
    /// (used as it is on any game), recorded with the model settings `model`.
    pub fn with_llmco_config(mut self, spec: &str, cfg: LlmcoConfig, model: ModelSpec) -> Self {
        self.llmco.insert(spec.trim().to_string(), LlmcoConfigured::Config(cfg, model));
        self
    }

    fn llmco_configured(&self, spec: &str) -> Result<LlmcoConfigured, SeatError> {
        match self.llmco.get(spec.trim()) {
            Some(c) => Ok(c.clone()),
            // Unregistered: the spec describes the seat (the model defaults to the stand-in).
            None => LlmcoSeat::from_spec(spec, &ModelSpec::new(proagent_llm::STAND_IN)).map(LlmcoConfigured::Seat),
        }
    }

    /// The reply length a dry run assumes per call of the seat `spec` when it sends no
    /// token cap (a `llmco[preset=paper]` seat with `max_tokens` at our default, as the
    /// released agent: [`proagent_agent::llmco::agent::PAPER_MAX_TOKENS`]); `None` for a
    /// seat that sends its cap.
    pub fn uncapped_reply_tokens(&self, spec: &str) -> Option<u32> {
        use proagent_agent::llmco::agent::uncapped_reply_assumption;
        if !is_llmco(spec) {
            return None;
        }
        match self.llmco_configured(spec).ok()? {
            LlmcoConfigured::Seat(s) => uncapped_reply_assumption(s.settings.preset, &s.model.sampling()),
            LlmcoConfigured::Config(c, _) => uncapped_reply_assumption(c.settings.preset, &c.sampling),
        }
    }

    /// Whether an episode with the seat `spec` is scored however many of its replies went
    /// unread (`--max-parse-failure-share` does not apply): a `llmco[preset=paper]` seat,
    /// because the released agent scored every game it played (its weakest models' rows
    /// included), playing its fallback for an unreadable reply.
    pub fn scores_every_episode(&self, spec: &str) -> bool {
        if !is_llmco(spec) {
            return false;
        }
        match self.llmco_configured(spec) {
            Ok(LlmcoConfigured::Seat(s)) => s.settings.preset == LlmcoPreset::Paper,
            Ok(LlmcoConfigured::Config(c, _)) => c.settings.preset == LlmcoPreset::Paper,
            Err(_) => false,
        }
    }

    /// The configuration the LLM-Coordination spec `spec` gets on `game` (in a dry run
    /// ([`SeatFactory::with_stand_in_models`]), the stand-in behind a counting model).
    pub fn llmco_config_of<G: Playable>(&self, spec: &str, game: &G) -> Result<LlmcoConfig, SeatError> {
        match self.llmco_configured(spec)? {
            LlmcoConfigured::Seat(s) if self.stand_in => {
                let counter = proagent_llm::tokens::TokenCounter::for_model(&s.model.model);
                let offline = LlmcoSeat {
                    model: ModelSpec { model: proagent_llm::STAND_IN.into(), ..s.model.clone() },
                    ..s.clone()
                };
                let mut c = self.llmco_config_from(LlmcoConfigured::Seat(offline), game)?;
                c.model = Arc::new(proagent_llm::tokens::CountingModel::new(c.model, counter));
                Ok(c)
            }
            other => self.llmco_config_from(other, game),
        }
    }

    fn llmco_config_from<G: Playable>(&self, configured: LlmcoConfigured, game: &G) -> Result<LlmcoConfig, SeatError> {
        match configured {
            LlmcoConfigured::Config(c, _) => Ok(c),
            LlmcoConfigured::Seat(s)
                if proagent_llm::is_stand_in(&s.model.model)
                    && s.settings == LlmcoSettings::default()
                    && !s.model.structured =>
            {
                let mut c = default_llmco_config(game)?;
                c.label = Some(s.label.clone());
                Ok(c)
            }
            LlmcoConfigured::Seat(s) => s.config(game),
        }
    }

    /// What a transcript header records of the language-model seat `spec`: its label,
    /// switches and model (`None` for a spec that asks no model).
    pub fn record_of(&self, spec: &str) -> Option<ProAgentRecord> {
        if is_llmco(spec) {
            return Some(match self.llmco_configured(spec).ok()? {
                LlmcoConfigured::Seat(s) => ProAgentRecord {
                    label: s.label,
                    settings: AgentSettings::default(),
                    model: s.model,
                    llmco: Some(s.settings),
                },
                LlmcoConfigured::Config(c, m) => ProAgentRecord {
                    label: c.label.clone().unwrap_or_else(|| format!("llmco[{}]", c.model.name())),
                    settings: AgentSettings::default(),
                    model: m,
                    llmco: Some(c.settings),
                },
            });
        }
        if !is_proagent(spec) {
            return None;
        }
        Some(match self.configured(spec).ok().flatten() {
            Some(Configured::Seat(s)) => ProAgentRecord {
                label: s.label.clone(),
                settings: s.settings.clone(),
                model: s.model.clone(),
                llmco: None,
            },
            Some(Configured::Config(c, m)) => ProAgentRecord {
                label: c.label.clone().unwrap_or_else(|| format!("proagent[{}]", c.model.name())),
                settings: c.settings.clone(),
                model: m.clone(),
                llmco: None,
            },
            None => {
                let model = ModelSpec::new(proagent_llm::STAND_IN);
                let settings = AgentSettings::default();
                ProAgentRecord { label: proagent_agent::config::label(&settings, &model), settings, model, llmco: None }
            }
        })
    }

    /// The sha256 of each prompt template the language-model seat `spec` reads on `game`
    /// (empty for a seat that asks no model, or one that cannot be built).
    pub fn prompt_hashes_of<G: Playable>(&self, spec: &str, game: &G) -> std::collections::BTreeMap<String, String> {
        if is_llmco(spec) {
            return self.llmco_config_of(spec, game).map(|c| c.prompt_hashes()).unwrap_or_default();
        }
        if is_proagent(spec) {
            return self.config_of(spec, game).map(|c| c.prompt_hashes()).unwrap_or_default();
        }
        Default::default()
    }

    /// The written-down seat a ProAgent spec gets, if it has one (`None` for the
    /// defaults, or a configuration built by the caller).
    pub fn seat_of(&self, spec: &str) -> Option<&ProAgentSeat> {
        match self.configured(spec) {
            Ok(Some(Configured::Seat(s))) => Some(s),
            _ => None,
        }
    }

    /// The written-down model of the language-model seat `spec` (a ProAgent registered with
    /// [`SeatFactory::with_seat`], or an LLM-Coordination seat, registered or described by
    /// its spec); `None` for other seats and configurations built by the caller.
    pub fn model_of(&self, spec: &str) -> Option<ModelSpec> {
        if is_llmco(spec) {
            return match self.llmco_configured(spec).ok()? {
                LlmcoConfigured::Seat(s) => Some(s.model),
                LlmcoConfigured::Config(..) => None,
            };
        }
        self.seat_of(spec).map(|s| s.model.clone())
    }

    fn configured(&self, spec: &str) -> Result<Option<&Configured>, SeatError> {
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

    /// The configuration a ProAgent spec gets on `game`.
    pub fn config_of<G: Playable>(&self, spec: &str, game: &G) -> Result<ProAgentConfig, SeatError> {
        let spec = spec.trim();
        match self.configured(spec)? {
            Some(Configured::Config(c, _)) => Ok(c.clone()),
            Some(Configured::Seat(s)) => {
                let key = (game.kind(), spec.to_string());
                let mut built = self.built.lock().unwrap_or_else(|p| p.into_inner());
                if let Some(c) = built.get(&key) {
                    let mut c = c.clone();
                    c.horizon = game.max_steps();
                    return Ok(c);
                }
                let c = if self.stand_in {
                    let mut offline = s.clone();
                    offline.model = ModelSpec { model: proagent_llm::STAND_IN.into(), ..s.model.clone() };
                    let mut c = offline.config(game)?;
                    let counter = proagent_llm::tokens::TokenCounter::for_model(&s.model.model);
                    c.model = Arc::new(proagent_llm::tokens::CountingModel::new(c.model, counter));
                    c
                } else {
                    s.config(game)?
                };
                built.insert(key, c.clone());
                Ok(c)
            }
            None => default_proagent_config(game),
        }
    }

    /// Builds the seat a spec names on `game`.
    pub fn build<G: Playable>(&self, spec: &str, game: &G) -> Result<BuiltSeat<G>, SeatError> {
        if is_llmco(spec) {
            let hooks = game.llmco_or_refuse()?;
            let mut cfg = self.llmco_config_of(spec, game)?;
            let sink: ExchangeSink = Arc::default();
            cfg.exchange_sink = Some(Arc::clone(&sink));
            return Ok(BuiltSeat { seat: hooks.seat(cfg), exchanges: Some(sink) });
        }
        if !is_proagent(spec) {
            return Ok(BuiltSeat { seat: game.partner_with(spec, &self.partner_options)?, exchanges: None });
        }
        let hooks = game.proagent_or_refuse()?;
        if let Some(message) = game.proagent_unsupported() {
            return Err(SeatError::Unsupported { layout: game.report_name(), message });
        }
        let mut cfg = self.config_of(spec, game)?;
        let sink: ExchangeSink = Arc::default();
        cfg.exchange_sink = Some(Arc::clone(&sink));
        Ok(BuiltSeat { seat: hooks.seat(cfg), exchanges: Some(sink) })
    }

    /// Checks, before anything runs, that `spec` can be built on `game` in `seat` (for a
    /// ProAgent: that every prompt template renders).
    pub fn check<G: Playable>(&self, spec: &str, game: &G, seat: usize) -> Result<(), SeatError> {
        let prompts = |source| SeatError::Prompts { layout: game.report_name(), seat, source };
        if is_llmco(spec) {
            let hooks = game.llmco_or_refuse()?;
            let cfg = self.llmco_config_of(spec, game)?;
            return hooks.check_prompts(&cfg, game, seat).map_err(prompts);
        }
        if !is_proagent(spec) {
            game.partner_with(spec, &self.partner_options)?;
            return Ok(());
        }
        let hooks = game.proagent_or_refuse()?;
        if let Some(message) = game.proagent_unsupported() {
            return Err(SeatError::Unsupported { layout: game.report_name(), message });
        }
        let cfg = self.config_of(spec, game)?;
        hooks.check_prompts(&cfg, game, seat).map_err(prompts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::env::Layout;
    use proagent_overcooked::game::Overcooked;

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
        let g = Overcooked::new(Arc::new(Layout::builtin("cramped_room").unwrap()), 400);
        let e = g.partner("gpt4").err().unwrap().to_string();
        assert!(e.starts_with("unknown agent \"gpt4\"") && e.contains("proagent[model=gpt4]"), "{e}");
        let e = g.partner("nobody").err().unwrap().to_string();
        assert!(!e.contains("partner") && !e.contains("to seat a language model"), "{e}");
        let f = SeatFactory::new(None);
        assert!(matches!(f.build("proagent[gpt-4o]", &g), Err(SeatError::Unresolved(_))));
        assert!(matches!(g.partner("proagent[gpt-4o]"), Err(SeatError::Unresolved(_))));
    }
}
