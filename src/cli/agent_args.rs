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

use super::llm_args::LlmArgs;
use proagent::llm::factory::{ModelChoice, classify_model};
use proagent::llm::{ModelSpec, build_model};
use proagent::transcript::Scrubber;
use serde_json::{Value, json};

#[derive(clap::Args, Debug, Clone)]
pub struct ProAgentArgs {
    /// The language model of a `proagent` seat (`--model`: `scripted` built in, `replay:FILE`,
    /// or a served model name with `--base-url`), its sampling and its HTTP settings.
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

impl ProAgentArgs {
    /// The model named by `--model`; `seed` seeds an HTTP backend's retry jitter.
    pub fn model(&self, seed: u64) -> Result<Arc<dyn LanguageModel>> {
        match classify_model(self.llm.model.trim()) {
            ModelChoice::Builtin(n) if n == "scripted" => Ok(Arc::new(ScriptedModel::new())),
            ModelChoice::Builtin(n) => {
                bail!("--model {n:?} is not available to the agent: use scripted, replay:FILE or a served model")
            }
            _ => build_model(&self.spec(seed)?).map_err(anyhow::Error::msg).context("--model"),
        }
    }

    fn spec(&self, seed: u64) -> Result<ModelSpec> {
        let mut spec = self.llm.model_spec(seed)?;
        spec.name = self.llm.model.trim().to_string();
        Ok(spec)
    }

    /// Everything that must never reach a transcript (the API key, and the usual env secrets).
    pub fn scrubber(&self) -> Scrubber {
        let mut s = Scrubber::from_env();
        if let Ok(spec) = self.spec(0)
            && let Some(k) = &spec.http.api_key
        {
            s.add(k.expose());
        }
        s
    }

    /// The model description for a transcript header (no key).
    pub fn describe_model(&self) -> Value {
        match self.spec(0) {
            Ok(spec) if matches!(classify_model(self.llm.model.trim()), ModelChoice::Http(_)) => {
                self.llm.describe(&spec)
            }
            _ => json!({
                "model": self.llm.model.trim(),
                "temperature": self.llm.temperature,
                "top_p": self.llm.top_p,
                "max_tokens": self.llm.max_tokens,
            }),
        }
    }

    /// The agent switches, as recorded in a transcript header; [`ProAgentArgs::from_switches`] reads them back.
    pub fn switches(&self) -> Value {
        json!({
            "memory_k": self.memory_k,
            "max_replans": self.max_replans,
            "verificator": match self.verificator {
                VerificatorMode::Llm => "llm",
                VerificatorMode::Rules => "rules",
                VerificatorMode::Off => "off",
            },
            "belief": match self.belief {
                BeliefMode::Replace => "replace",
                BeliefMode::Annotate => "annotate",
                BeliefMode::Off => "off",
            },
            "analysis": !self.no_analysis,
            "intention": !self.no_intention,
            "align": match self.align {
                AlignStyle::ProAgent => "proagent",
                AlignStyle::Coordination => "coordination",
            },
            "prompts": self.prompts.as_ref().map(|p| p.display().to_string()),
            "wait_interrupt": !self.no_wait_interrupt,
        })
    }

    /// The options a transcript header recorded (`switches` and the model description).
    pub fn from_switches(sw: &Value, model: &Value) -> Result<ProAgentArgs> {
        let str_of = |k: &str| -> Result<String> {
            sw.get(k).and_then(Value::as_str).map(str::to_string).with_context(|| format!("switch {k:?} missing"))
        };
        let bool_of = |k: &str| -> Result<bool> {
            sw.get(k).and_then(Value::as_bool).with_context(|| format!("switch {k:?} missing"))
        };
        let num_of = |v: &Value, k: &str| -> Result<f64> {
            v.get(k).and_then(Value::as_f64).with_context(|| format!("model setting {k:?} missing"))
        };
        let llm = LlmArgs {
            model: model.get("model").and_then(Value::as_str).unwrap_or("scripted").to_string(),
            base_url: None,
            temperature: num_of(model, "temperature")? as f32,
            top_p: num_of(model, "top_p")? as f32,
            max_tokens: num_of(model, "max_tokens")? as u32,
            connect_timeout: 10.0,
            request_timeout: 120.0,
            retries: 0,
            backoff_ms: 1,
            backoff_max_ms: 1,
        };
        Ok(ProAgentArgs {
            llm,
            memory_k: sw.get("memory_k").and_then(Value::as_u64).context("switch \"memory_k\" missing")? as usize,
            max_replans: sw.get("max_replans").and_then(Value::as_u64).context("switch \"max_replans\" missing")?
                as u32,
            verificator: str_of("verificator")?.parse().map_err(anyhow::Error::msg)?,
            belief: str_of("belief")?.parse().map_err(anyhow::Error::msg)?,
            no_analysis: !bool_of("analysis")?,
            no_intention: !bool_of("intention")?,
            align: str_of("align")?.parse().map_err(anyhow::Error::msg)?,
            prompts: sw.get("prompts").and_then(Value::as_str).map(PathBuf::from),
            no_wait_interrupt: !bool_of("wait_interrupt")?,
        })
    }

    /// The agent configuration these options describe; bad prompts are reported here.
    pub fn config(&self, horizon: u32, model: Arc<dyn LanguageModel>) -> Result<ProAgentConfig> {
        if self.max_replans > 20 {
            bail!("--max-replans must be at most 20");
        }
        let prompts = PromptLibrary::load_or_embedded(self.prompts.as_deref()).context("--prompts")?;
        let mut cfg = ProAgentConfig::new(model);
        cfg.sampling = self.llm.sampling()?;
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
        self.factory_with(seats, kitchen, horizon, None)
    }

    /// [`ProAgentArgs::factory`] with the model given (e.g. a replayer) instead of `--model`.
    pub fn factory_with(
        &self,
        seats: [&str; 2],
        kitchen: &Arc<Kitchen>,
        horizon: u32,
        model: Option<Arc<dyn LanguageModel>>,
    ) -> Result<SeatFactory> {
        let mut cfg = None;
        for (seat, spec) in seats.iter().enumerate() {
            if spec.trim() == "proagent" {
                let c = match cfg.take() {
                    Some(c) => c,
                    None => {
                        let m = match &model {
                            Some(m) => Arc::clone(m),
                            None => self.model(0)?,
                        };
                        self.config(horizon, m)?
                    }
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

    /// Every ProAgent built from now on also appends its exchanges to `sink`.
    pub fn set_sink(&mut self, sink: proagent::agent::ExchangeSink) {
        if let Some(c) = self.cfg.as_mut() {
            c.exchange_sink = Some(sink);
        }
    }
}
