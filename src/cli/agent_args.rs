//! The ProAgent options shared by the subcommands that can seat a ProAgent
//! (`play`, `eval`, `bench agent`), turned into each seat's one configuration. The
//! flags set every `proagent` seat; a `proagent[key=value,...]` spec overrides them for
//! its seat (see `agent::config::SEAT_OPTIONS`).

use super::llm_args::LlmArgs;
use anyhow::{Context, Result, anyhow, bail};
use proagent::agent::align::AlignStyle;
use proagent::agent::belief::BeliefMode;
use proagent::agent::config::{self, MAX_MEMORY_K, MAX_REPLANS};
use proagent::agent::prompts::PromptLibrary;
use proagent::agent::verificator::VerificatorMode;
use proagent::agent::{AgentSettings, ModelSettings, ProAgentConfig};
use proagent::runner::models::{ModelChoice, build_model, classify_model};
use proagent::runner::seats::proagent_options;
use proagent::transcript::Scrubber;
use std::path::PathBuf;
use std::sync::Arc;

/// What `--model` means wherever a ProAgent is seated.
pub const AGENT_MODEL_HELP: &str = "The language model of every `proagent` seat: `scripted` (the built-in \
rule-based planner, offline), `replay:FILE` (the replies recorded in a transcript) or a name an \
OpenAI-compatible server at --base-url serves (gpt-4o, llama3.1:8b, ...). One seat can use another: \
proagent[model=NAME]. (oracle and random are CoordinationQA's, for `qa`.)";

#[derive(clap::Args, Debug, Clone)]
#[command(mut_arg("model", |a| a.help(AGENT_MODEL_HELP)))]
pub struct ProAgentArgs {
    /// The language model of a `proagent` seat, its sampling and its HTTP settings.
    #[command(flatten)]
    pub llm: LlmArgs,
    /// How many recent trajectory entries the planner sees.
    #[arg(long, default_value_t = 1)]
    pub memory_k: usize,
    /// Re-plans after a rejected skill before falling back to wait(1).
    #[arg(long, default_value_t = 3)]
    pub max_replans: u32,
    /// How a rejected skill is explained: llm (two model rounds), rules (precondition sentences), off.
    #[arg(long, default_value = "llm", value_parser = parse_verificator)]
    pub verificator: VerificatorMode,
    /// Belief correction: replace the predicted intention with the real behaviour, annotate it, or off.
    #[arg(long, default_value = "replace", value_parser = parse_belief)]
    pub belief: BeliefMode,
    /// Do not ask the planner for an analysis.
    #[arg(long)]
    pub no_analysis: bool,
    /// Do not ask the planner for the teammate's intention.
    #[arg(long)]
    pub no_intention: bool,
    /// Scene description: proagent (the paper's text) or coordination (distances, blocked, inaccessible).
    #[arg(long = "align", default_value = "proagent", value_parser = parse_align)]
    pub align: AlignStyle,
    /// Prompt templates directory (default: ./prompts if it has agent/, else the embedded copies).
    #[arg(long)]
    pub prompts: Option<PathBuf>,
    /// Let wait(n) run its full n steps even when the kitchen changes.
    #[arg(long)]
    pub no_wait_interrupt: bool,
}

fn parse_verificator(s: &str) -> Result<VerificatorMode, String> {
    s.parse()
}
fn parse_belief(s: &str) -> Result<BeliefMode, String> {
    s.parse()
}
fn parse_align(s: &str) -> Result<AlignStyle, String> {
    s.parse()
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
    pub model: ModelSettings,
}

impl ProAgentArgs {
    /// The switches these flags set.
    pub fn settings(&self) -> AgentSettings {
        AgentSettings {
            memory_k: self.memory_k,
            max_replans: self.max_replans,
            verificator: self.verificator,
            belief: self.belief,
            analysis: !self.no_analysis,
            intention: !self.no_intention,
            align: self.align,
            prompts: self.prompts.clone(),
            wait_interrupt: !self.no_wait_interrupt,
        }
    }

    /// Checks the flags every seat starts from.
    fn check_flags(&self) -> Result<()> {
        if self.max_replans > MAX_REPLANS {
            bail!("--max-replans must be at most {MAX_REPLANS}, got {}", self.max_replans);
        }
        if self.memory_k > MAX_MEMORY_K {
            bail!("--memory-k must be at most {MAX_MEMORY_K}, got {}", self.memory_k);
        }
        self.llm.sampling()?;
        Ok(())
    }

    /// The model settings of model `name` under these flags (served models: with their address).
    fn model_settings_of(&self, name: &str) -> Result<ModelSettings> {
        let spec = self.llm.http.model_spec(name, 0)?;
        let http = matches!(classify_model(name.trim()), ModelChoice::Http(_));
        Ok(self.llm.model_settings(&spec, http))
    }

    /// A ProAgent spec resolved against these flags; errors name the spec.
    pub fn resolve(&self, spec: &str) -> Result<SeatSetup> {
        self.check_flags()?;
        let spec = spec.trim();
        let options = proagent_options(spec)?;
        let name = options.iter().find(|(k, _)| k == "model").map_or(self.llm.model.as_str(), |(_, v)| v.as_str());
        let mut model = self.model_settings_of(name)?;
        let mut settings = self.settings();
        for (k, v) in &options {
            config::apply_option(&mut settings, &mut model, k, v).map_err(|e| anyhow!("{spec}: {e}"))?;
        }
        Ok(SeatSetup { spec: spec.to_string(), label: config::label(&settings, &model), settings, model })
    }

    /// The model and prompts of a resolved seat, loaded; `seed` seeds an HTTP backend's
    /// retry jitter. Bad prompts and unusable model names are reported here.
    pub fn build(&self, seat: &SeatSetup, horizon: u32, seed: u64) -> Result<ProAgentConfig> {
        let spec = self.llm.http.model_spec(&seat.model.model, seed)?;
        let model = build_model(&spec).with_context(|| format!("{}: --model", seat.label))?;
        let prompts = PromptLibrary::load_or_embedded(seat.settings.prompts.as_deref()).context("--prompts")?;
        let mut cfg = ProAgentConfig::new(model);
        cfg.sampling = seat.model.sampling();
        cfg.settings = seat.settings.clone();
        cfg.prompts = Arc::new(prompts);
        cfg.horizon = horizon;
        cfg.label = Some(seat.label.clone());
        Ok(cfg)
    }

    /// Everything that must never reach a transcript (the API key, and the usual env secrets).
    pub fn scrubber(&self) -> Scrubber {
        let mut s = Scrubber::from_env();
        if let Ok(spec) = self.llm.model_spec(0)
            && let Some(k) = &spec.http.api_key
        {
            s.add(k.expose());
        }
        s
    }
}
