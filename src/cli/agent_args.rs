//! The ProAgent options shared by the subcommands that can seat a ProAgent
//! (`play`, `eval`, `bench agent`), turned into each seat's one configuration. The
//! flags set every `proagent` seat; a `proagent[key=value,...]` spec overrides them for
//! its seat (see `agent::config::SEAT_OPTIONS`).

use super::llm_args::LlmArgs;
use anyhow::{Context, Result, anyhow, bail};
use proagent::agent::belief::BeliefMode;
use proagent::agent::config::{self, MAX_REPLANS};
use proagent::agent::grounding::overcooked::align::AlignStyle;
use proagent::agent::preset::Preset;
use proagent::agent::verificator::VerificatorMode;
use proagent::agent::{AgentSettings, ModelSpec};
use proagent::limits::MAX_MEMORY_K;
use proagent::runner::seats::{
    LlmcoSeat, ProAgentSeat, SeatFactory, is_llmco, is_proagent, llmco_options, proagent_options,
};
use proagent::transcript::Scrubber;
use std::path::PathBuf;

/// What `--model` means wherever a ProAgent is seated.
pub const AGENT_MODEL_HELP: &str = "The language model of every `proagent` seat: `rule-based` (the built-in \
rule-based stand-in, offline, not an LLM; `scripted` is its old name), `replay:FILE` (the replies recorded in a transcript) or a name an \
OpenAI-compatible server at --base-url serves (gpt-4o, llama3.1:8b, ...). One seat can use another: \
proagent[model=NAME]. (oracle and random are CoordinationQA's, for `qa`.)";

#[derive(clap::Args, Debug, Clone)]
#[command(mut_arg("model", |a| a.help(AGENT_MODEL_HELP)))]
pub struct ProAgentArgs {
    /// The language model of a `proagent` seat, its sampling and its HTTP settings.
    #[command(flatten)]
    pub llm: LlmArgs,
    /// Which agent loop runs: default (this runtime's) or paper (the published ProAgent,
    /// point by point; see docs/agent.md). The switches below start from the preset's values.
    #[arg(long, default_value = "default", value_parser = parse_preset)]
    pub preset: Preset,
    /// How many recent trajectory entries the planner sees (paper: dialogue messages a re-plan
    /// carries) [default: 1].
    #[arg(long, value_parser = super::common::usize_in(0..=MAX_MEMORY_K as u64))]
    pub memory_k: Option<usize>,
    /// Re-plans after a rejected skill before falling back to wait(1) [default: 3; paper: 4].
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=MAX_REPLANS as i64))]
    pub max_replans: Option<u32>,
    /// How a rejected skill is explained: llm (two model rounds; paper: one explainer call),
    /// rules (precondition sentences), off [default: llm].
    #[arg(long, value_parser = parse_verificator)]
    pub verificator: Option<VerificatorMode>,
    /// Belief correction: replace the predicted intention with the real behaviour, annotate
    /// it, or off [default: replace; paper: off].
    #[arg(long, value_parser = parse_belief)]
    pub belief: Option<BeliefMode>,
    /// Do not ask the planner for an analysis.
    #[arg(long, conflicts_with = "analysis")]
    pub no_analysis: bool,
    /// Ask the planner for an analysis (the default in both presets).
    #[arg(long)]
    pub analysis: bool,
    /// Do not ask the planner for the teammate's intention (the paper preset's default).
    #[arg(long, conflicts_with = "intention")]
    pub no_intention: bool,
    /// Ask the planner for the teammate's intention (the default preset's default).
    #[arg(long)]
    pub intention: bool,
    /// Scene description: proagent (the paper's text) or coordination (distances, blocked,
    /// inaccessible) [default: proagent].
    #[arg(long = "align", value_parser = parse_align)]
    pub align: Option<AlignStyle>,
    /// Prompt templates directory (default: ./prompts if it has agent/, else the embedded copies).
    #[arg(long)]
    pub prompts: Option<PathBuf>,
    /// Let wait(n) run its full n steps even when the kitchen changes (the paper preset's way).
    #[arg(long, conflicts_with = "wait_interrupt")]
    pub no_wait_interrupt: bool,
    /// Model calls (both seats) that may fail after every retry before an episode
    /// counts as failed: it is then stopped, not scored, and (in `eval`) retried by the
    /// next run. The default 0 tolerates none.
    #[arg(long, value_name = "N", default_value_t = proagent::runner::DEFAULT_MAX_LLM_FAILURES)]
    pub max_llm_failures: u64,
    /// The largest share (0 to 1) of an episode's decisions (the model calls whose reply
    /// chooses an action: planner calls, LLM-Co action proposals; never ToM, verification
    /// or explanations) whose reply may name no usable action (prose, another language, no
    /// skill) or never come: an episode over it is played to its end but counts as failed,
    /// not scored, and (in `eval`) is retried by the next run. 1 turns the check off.
    #[arg(long, value_name = "SHARE", default_value_t = proagent::runner::DEFAULT_MAX_PARSE_FAILURE_SHARE,
          value_parser = share_in_unit)]
    pub max_parse_failure_share: f64,
    /// End wait(n) early when the kitchen changes (the default preset's way).
    #[arg(long)]
    pub wait_interrupt: bool,
}

/// A share from 0 to 1.
fn share_in_unit(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        Ok(x) => Err(format!("{x} is not a share from 0 to 1")),
        Err(e) => Err(format!("{s:?} is not a number: {e}")),
    }
}

fn parse_preset(s: &str) -> Result<Preset, String> {
    s.parse().map_err(|e: proagent::agent::names::UnknownName| e.to_string())
}
fn parse_verificator(s: &str) -> Result<VerificatorMode, String> {
    s.parse().map_err(|e: proagent::agent::names::UnknownName| e.to_string())
}
fn parse_belief(s: &str) -> Result<BeliefMode, String> {
    s.parse().map_err(|e: proagent::agent::names::UnknownName| e.to_string())
}
fn parse_align(s: &str) -> Result<AlignStyle, String> {
    s.parse().map_err(|e: proagent::agent::names::UnknownName| e.to_string())
}

/// `Some(true)` for `--x`, `Some(false)` for `--no-x`, `None` for neither.
fn switch(on: bool, off: bool) -> Option<bool> {
    if on {
        Some(true)
    } else if off {
        Some(false)
    } else {
        None
    }
}

/// One ProAgent seat, resolved: the flags with the spec's own options on top.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatSetup {
    /// The spec as given (`proagent`, `proagent[gpt-4o,memory_k=3]`).
    pub spec: String,
    /// The seat's name in every output: `agent::config::label`.
    pub label: String,
    /// The switches.
    pub settings: AgentSettings,
    /// The model, its sampling and (served models) its address.
    pub model: ModelSpec,
}

impl ProAgentArgs {
    /// The switches these flags set: the preset's, with every flag given replacing its value.
    pub fn settings(&self) -> AgentSettings {
        let mut s = AgentSettings::for_preset(self.preset);
        s.memory_k = self.memory_k.unwrap_or(s.memory_k);
        s.max_replans = self.max_replans.unwrap_or(s.max_replans);
        s.verificator = self.verificator.unwrap_or(s.verificator);
        s.belief = self.belief.unwrap_or(s.belief);
        s.analysis = switch(self.analysis, self.no_analysis).unwrap_or(s.analysis);
        s.intention = switch(self.intention, self.no_intention).unwrap_or(s.intention);
        s.align = self.align.unwrap_or(s.align);
        s.prompts.clone_from(&self.prompts);
        s.wait_interrupt = switch(self.wait_interrupt, self.no_wait_interrupt).unwrap_or(s.wait_interrupt);
        s
    }

    /// Checks the flags every seat starts from.
    fn check_flags(&self) -> Result<()> {
        if let Some(n) = self.max_replans.filter(|n| *n > MAX_REPLANS) {
            bail!("--max-replans must be at most {MAX_REPLANS}, got {n}");
        }
        if let Some(k) = self.memory_k.filter(|k| *k > MAX_MEMORY_K) {
            bail!("--memory-k must be at most {MAX_MEMORY_K}, got {k}");
        }
        self.llm.sampling()?;
        Ok(())
    }

    /// A ProAgent spec resolved against these flags; errors name the spec.
    pub fn resolve(&self, spec: &str) -> Result<SeatSetup> {
        self.check_flags()?;
        let spec = spec.trim();
        let options = proagent_options(spec)?;
        let name = options.iter().find(|(k, _)| k == "model").map_or(self.llm.model.as_str(), |(_, v)| v.as_str());
        let mut model = self.llm.seat_model(name, 0)?;
        // A seat's own preset starts it from that preset's switches, with the switch flags
        // given on the command line applied on top (as --preset does for every seat).
        let mut settings = match options.iter().find(|(k, _)| k == "preset") {
            Some((_, p)) => {
                let preset = parse_preset(p).map_err(|e| anyhow!("{spec}: preset={p:?}: {e}"))?;
                ProAgentArgs { preset, ..self.clone() }.settings()
            }
            None => self.settings(),
        };
        for (k, v) in options.iter().filter(|(k, _)| k != "preset") {
            config::apply_option(&mut settings, &mut model, k, v).map_err(|e| anyhow!("{spec}: {e}"))?;
        }
        Ok(SeatSetup { spec: spec.to_string(), label: config::label(&settings, &model), settings, model })
    }

    /// A ProAgent spec resolved against these flags into the seat every game builds from
    /// (`seed` seeds an HTTP backend's retry jitter); errors name the spec.
    pub fn seat(&self, spec: &str, seed: u64) -> Result<ProAgentSeat> {
        let mut setup = self.resolve(spec)?;
        setup.model.seed = seed;
        Ok(ProAgentSeat { label: setup.label, settings: setup.settings, model: setup.model })
    }

    /// An LLM-Coordination spec (`llmco`, `llmco[gpt-4o,tom=off]`) resolved against the
    /// model flags (`--model`, `--base-url`, sampling); errors name the spec.
    pub fn llmco_seat(&self, spec: &str, seed: u64) -> Result<LlmcoSeat> {
        self.check_flags()?;
        let options = llmco_options(spec)?;
        let name = options.iter().find(|(k, _)| k == "model").map_or(self.llm.model.as_str(), |(_, v)| v.as_str());
        let mut base = self.llm.seat_model(name, 0)?;
        base.seed = seed;
        Ok(LlmcoSeat::from_spec(spec, &base)?)
    }

    /// Registers every ProAgent spec of `specs` in `factory` (resolved against these flags);
    /// errors name the flag that gave the spec.
    pub fn register(&self, mut factory: SeatFactory, specs: &[(&str, &str)], seed: u64) -> Result<SeatFactory> {
        for (flag, spec) in specs {
            if is_proagent(spec) {
                factory = factory.with_seat(spec, self.seat(spec, seed).context(flag.to_string())?);
            } else if is_llmco(spec) {
                factory = factory.with_llmco_seat(spec, self.llmco_seat(spec, seed).context(flag.to_string())?);
            }
        }
        Ok(factory)
    }

    /// Everything that must never reach a transcript: the API key, the base URL's
    /// credentials and the usual environment secrets.
    pub fn scrubber(&self) -> Scrubber {
        match self.llm.model_spec(0) {
            Ok(spec) => spec.scrubber(),
            Err(_) => Scrubber::from_env(),
        }
    }
}
