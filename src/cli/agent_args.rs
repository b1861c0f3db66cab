//! The ProAgent options shared by the subcommands that can seat a ProAgent
//! (`play`, `bench agent`), and the seat factory that knows about it.

use anyhow::{Context, Result, bail};
use proagent::agent::{ProAgent, ProAgentConfig};
use proagent::align::AlignStyle;
use proagent::belief::BeliefMode;
use proagent::controller::Kitchen;
use proagent::llm::LanguageModel;
use proagent::llm::scripted::ScriptedModel;
use proagent::partners;
use proagent::policy::Agent;
use proagent::prompts::PromptLibrary;
use proagent::verificator::VerificatorMode;
use std::path::PathBuf;
use std::sync::Arc;

#[derive(clap::Args, Debug, Clone)]
pub struct ProAgentArgs {
    /// The language model of a `proagent` seat: `scripted` (built in, offline, deterministic).
    #[arg(long, default_value = "scripted")]
    pub model: String,
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

impl ProAgentArgs {
    pub fn model(&self) -> Result<Arc<dyn LanguageModel>> {
        match self.model.trim() {
            "scripted" => Ok(Arc::new(ScriptedModel::new())),
            other => bail!("unknown --model {other:?}: the built-in model is `scripted`"),
        }
    }

    /// The agent configuration these options describe; bad prompts are reported here.
    pub fn config(&self, horizon: u32) -> Result<ProAgentConfig> {
        if self.max_replans > 20 {
            bail!("--max-replans must be at most 20");
        }
        let prompts = PromptLibrary::load_or_embedded(self.prompts.as_deref()).context("--prompts")?;
        let mut cfg = ProAgentConfig::new(self.model()?);
        cfg.memory_k = self.memory_k;
        cfg.max_replans = self.max_replans;
        cfg.verificator = self.verificator;
        cfg.belief = self.belief;
        cfg.analysis = !self.no_analysis;
        cfg.intention = !self.no_intention;
        cfg.align_style = self.align;
        cfg.prompts = Arc::new(prompts);
        cfg.horizon = horizon;
        cfg.interrupt_waits = !self.no_wait_interrupt;
        Ok(cfg)
    }

    /// A factory for the seats of a run: the ProAgent configuration is built (and its prompts
    /// checked for every seat it takes) once, before anything runs.
    pub fn factory(&self, seats: [&str; 2], kitchen: &Arc<Kitchen>, horizon: u32) -> Result<SeatFactory> {
        let mut cfg = None;
        for (seat, spec) in seats.iter().enumerate() {
            if spec.trim() == "proagent" {
                let c = match cfg.take() {
                    Some(c) => c,
                    None => self.config(horizon)?,
                };
                ProAgent::check_prompts(&c, &kitchen.layout, seat).context("prompt templates")?;
                cfg = Some(c);
            } else {
                partners::build(spec, kitchen).with_context(|| format!("seat {seat}"))?;
            }
        }
        Ok(SeatFactory { cfg, kitchen: Arc::clone(kitchen) })
    }
}

/// Builds the agents of a run.
pub struct SeatFactory {
    cfg: Option<ProAgentConfig>,
    kitchen: Arc<Kitchen>,
}

impl SeatFactory {
    pub fn build(&self, spec: &str) -> Result<Box<dyn Agent>> {
        if spec.trim() == "proagent"
            && let Some(cfg) = &self.cfg
        {
            return Ok(Box::new(self.proagent(cfg.clone())));
        }
        Ok(partners::build(spec, &self.kitchen)?)
    }

    pub fn proagent(&self, cfg: ProAgentConfig) -> ProAgent {
        ProAgent::new(cfg).with_kitchen(Arc::clone(&self.kitchen))
    }

    pub fn config(&self) -> Option<&ProAgentConfig> {
        self.cfg.as_ref()
    }
}
