//! The ProAgent options shared by the subcommands that can seat a ProAgent
//! (`play`, `eval`, `bench agent`), turned into the agent's one configuration.

use super::llm_args::LlmArgs;
use anyhow::{Context, Result, bail};
use proagent::agent::align::AlignStyle;
use proagent::agent::belief::BeliefMode;
use proagent::agent::config::MAX_REPLANS;
use proagent::agent::prompts::PromptLibrary;
use proagent::agent::verificator::VerificatorMode;
use proagent::agent::{AgentSettings, ModelSettings, ProAgentConfig};
use proagent::limits::MAX_MEMORY_K;
use proagent::llm::LanguageModel;
use proagent::runner::models::{ModelChoice, ModelSpec, build_model, classify_model};
use proagent::transcript::Scrubber;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::Args, Debug, Clone)]
pub struct ProAgentArgs {
    /// The language model of a `proagent` seat (`--model`: `scripted` built in, `replay:FILE`,
    /// or a served model name with `--base-url`), its sampling and its HTTP settings.
    #[command(flatten)]
    pub llm: LlmArgs,
    /// How many recent trajectory entries the planner sees.
    #[arg(long, default_value_t = 1, value_parser = super::common::usize_in(0..=MAX_MEMORY_K as u64))]
    pub memory_k: usize,
    /// Re-plans after a rejected skill before falling back to wait(1).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(0..=MAX_REPLANS as i64))]
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
    /// Model calls (both seats) that may fail after every retry before an episode
    /// counts as failed: it is then stopped, not scored, and (in `eval`) retried by the
    /// next run. The default 0 tolerates none.
    #[arg(long, value_name = "N", default_value_t = proagent::runner::DEFAULT_MAX_LLM_FAILURES)]
    pub max_llm_failures: u64,
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

    /// The model named by `--model`; `seed` seeds an HTTP backend's retry jitter.
    pub fn model(&self, seed: u64) -> Result<Arc<dyn LanguageModel>> {
        build_model(&self.spec(seed)?).context("--model")
    }

    fn spec(&self, seed: u64) -> Result<ModelSpec> {
        let mut spec = self.llm.model_spec(seed)?;
        spec.name = self.llm.model.trim().to_string();
        Ok(spec)
    }

    /// Everything that must never reach a transcript: the API key, the base URL's
    /// credentials and the usual environment secrets.
    pub fn scrubber(&self) -> Scrubber {
        match self.spec(0) {
            Ok(spec) => spec.scrubber(),
            Err(_) => Scrubber::from_env(),
        }
    }

    /// The model as a transcript header records it (no key, no password).
    pub fn model_settings(&self) -> Result<ModelSettings> {
        let http = matches!(classify_model(self.llm.model.trim()), ModelChoice::Http(_));
        Ok(self.llm.model_settings(&self.spec(0)?, http))
    }

    /// The agent configuration these options describe; bad prompts are reported here.
    pub fn config(&self, horizon: u32, model: Arc<dyn LanguageModel>) -> Result<ProAgentConfig> {
        if self.max_replans > MAX_REPLANS {
            bail!("--max-replans must be at most {MAX_REPLANS}");
        }
        let prompts = PromptLibrary::load_or_embedded(self.prompts.as_deref()).context("--prompts")?;
        let mut cfg = ProAgentConfig::new(model);
        cfg.sampling = self.llm.sampling()?;
        cfg.settings = self.settings();
        cfg.prompts = Arc::new(prompts);
        cfg.horizon = horizon;
        Ok(cfg)
    }
}
