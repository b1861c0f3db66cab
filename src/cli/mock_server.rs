//! `proagent mock-server`: an OpenAI-compatible endpoint for tests and for
//! pointing other tools at, with optional latency and seeded faults.

use anyhow::{Context, Result, bail};
use proagent::agent::grounding::overcooked::scripted::ScriptedModel;
use proagent::limits::{MAX_MILLIS, MAX_RETRY_AFTER_SECS};
use proagent::llm::LanguageModel;
use proagent::qa::models::{MockResponder, QaAnswer};
use proagent_mock::{MockConfig, MockFault, MockReasoning, MockServer, StructuredMode};
use std::io::Write;
use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct MockServerArgs {
    /// Address to listen on; port 0 picks a free port (the address is printed).
    #[arg(long, default_value = "127.0.0.1:0")]
    pub addr: SocketAddr,
    /// Delay added to every reply, in milliseconds.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=MAX_MILLIS))]
    pub latency_ms: u64,
    /// Share of requests that fail (0..1), drawn from a seeded RNG.
    #[arg(long, default_value_t = 0.0, value_parser = super::common::fraction)]
    pub fault_rate: f64,
    /// Seed of the fault draw.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Faults to draw from, comma-separated (rate_limited, server_error, hang,
    /// truncated, empty_choices, prose); default: all.
    #[arg(long, value_delimiter = ',')]
    pub faults: Vec<String>,
    /// Retry-After seconds sent with a 429.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(0..=MAX_RETRY_AFTER_SECS))]
    pub retry_after: u64,
    /// How long a "hang" fault holds the reply, in milliseconds (longer than the client timeout).
    #[arg(long, default_value_t = 600_000, value_parser = clap::value_parser!(u64).range(0..=MAX_MILLIS))]
    pub hang_ms: u64,
    /// How CoordinationQA questions are answered: key (the answer key, as `qa --model
    /// oracle`), random (a seeded random option), or one letter (always that letter).
    #[arg(long, value_name = "POLICY", default_value = "key")]
    pub qa_answer: QaAnswer,
    /// The model id `GET /v1/models` lists (clients identify the server by it).
    #[arg(long, default_value = "proagent-mock")]
    pub model_id: String,
    /// Enforce OpenAI's rules for reasoning models (o1, o3, o4-mini, gpt-5, ...): refuse
    /// max_tokens, top_p and a temperature other than 1 with OpenAI's 400 error, and count
    /// reasoning tokens in usage.
    #[arg(long)]
    pub reasoning_rules: bool,
    /// Parameters refused (400 unsupported_parameter) for every model, comma-separated.
    #[arg(long, value_delimiter = ',', value_name = "PARAMS")]
    pub reject_params: Vec<String>,
    /// Reasoning text in replies: none, field (reasoning_content, as vLLM sends it) or
    /// think (a <think> block before the answer).
    #[arg(long, value_name = "MODE", default_value = "none")]
    pub reasoning: MockReasoning,
    /// Structured answers (response_format json_schema): auto (answer a request that sends
    /// a schema in it), enforce (also refuse every request without one, 400), refuse
    /// (refuse every request with one, 400 naming response_format, as a server without
    /// structured output does).
    #[arg(long, value_name = "MODE", default_value = "auto")]
    pub structured: StructuredMode,
}

/// The model that answers requests: the LLM-Coordination agent's prompts (every game it
/// has a grounding for) by that game's rule-based `scripted` stand-in,
/// CoordinationQA questions by `--qa-answer`, every other request by the built-in scripted
/// planner, which reads the scene from the prompt, so a ProAgent or an `llmco` seat pointed
/// at the mock plays a real game.
fn responder(policy: QaAnswer, seed: u64) -> Result<Arc<dyn LanguageModel>> {
    let questions = proagent::qa::data::embedded()?.questions;
    // The LLM-Co prompts are recognised first (they offer lettered options too);
    // CoordinationQA questions, which may quote a game's rules, are asked in one message.
    let questions_first = Arc::new(MockResponder::new(policy, seed, questions, Arc::new(ScriptedModel::new())));
    Ok(Arc::new(proagent::agent::llmco::router::LlmcoStandIns::new(questions_first)))
}

pub fn run(args: MockServerArgs) -> Result<ExitCode> {
    if !(0.0..=1.0).contains(&args.fault_rate) {
        bail!("--fault-rate must be in [0, 1], got {}", args.fault_rate);
    }
    let fault_kinds = if args.faults.is_empty() {
        MockFault::ALL.to_vec()
    } else {
        args.faults.iter().map(|f| f.parse::<MockFault>()).collect::<Result<Vec<_>, _>>().map_err(anyhow::Error::msg)?
    };
    // A parameter name is a word of the request body: an empty one refuses nothing and is
    // a typo (`--reject-params ""`, `top_p,,max_tokens`).
    if let Some(bad) = args.reject_params.iter().find(|p| p.trim().is_empty() || p.trim().contains(char::is_whitespace))
    {
        bail!(
            "--reject-params: {:?} is not a parameter name (give request-body names, comma-separated, e.g. top_p,max_tokens)",
            bad
        );
    }
    let cfg = MockConfig {
        latency: Duration::from_millis(args.latency_ms),
        fault_rate: args.fault_rate,
        seed: args.seed,
        fault_kinds,
        retry_after_secs: args.retry_after,
        hang: Duration::from_millis(args.hang_ms),
        model_id: args.model_id.clone(),
        reasoning_rules: args.reasoning_rules,
        reject_params: args.reject_params.iter().map(|p| p.trim().to_string()).filter(|p| !p.is_empty()).collect(),
        reasoning: args.reasoning,
        structured: args.structured,
        ..MockConfig::default()
    };
    let responder = responder(args.qa_answer, args.seed)?;
    let rt = tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the async runtime")?;
    rt.block_on(async move {
        let server = MockServer::start(args.addr, responder, cfg)
            .await
            .with_context(|| format!("cannot listen on {}", args.addr))?;
        let mut out = std::io::stdout();
        writeln!(out, "listening on http://{}", server.addr())?;
        out.flush()?;
        let _ = tokio::signal::ctrl_c().await;
        let stats = server.stats();
        server.shutdown().await;
        let faults: u64 = stats.faults.values().sum();
        eprintln!(
            "served {} requests: {} ok, {faults} with injected faults {:?}",
            stats.requests, stats.ok, stats.faults
        );
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}
