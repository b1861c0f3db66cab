//! `proagent replay FILE`: re-run a recorded `play` episode offline, serving the
//! recorded model replies, and check that the re-run says and does exactly what
//! the recording says (wall-clock fields aside).

use super::agent_args::ProAgentArgs;
use super::common::load_layout;
use super::play::run_episode;
use anyhow::{Context, Result, bail};
use async_trait::async_trait;
use proagent::agent::ExchangeSink;
use proagent::controller::Kitchen;
use proagent::env::Layout;
use proagent::llm::replay::ReplayModel;
use proagent::llm::{ChatRequest, ChatResponse, LanguageModel, LlmError};
use proagent::transcript::{Header, Outcome, Scrubber, Transcript, TranscriptWriter, WriterOptions, first_divergence};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// A transcript written by `proagent play`.
    pub file: PathBuf,
    /// Print one JSON object (identical, divergence, counts) instead of text.
    #[arg(long)]
    pub json: bool,
}

/// The replayer under the recorded model's name, so the agent reports the same name
/// (and so the same summary) as in the recording.
struct AsRecorded {
    inner: Arc<ReplayModel>,
    name: String,
}

#[async_trait]
impl LanguageModel for AsRecorded {
    fn name(&self) -> String {
        self.name.clone()
    }
    async fn chat(&self, request: &ChatRequest) -> Result<ChatResponse, LlmError> {
        self.inner.chat(request).await
    }
}

fn field<'a>(cfg: &'a Value, key: &str, file: &str) -> Result<&'a Value> {
    cfg.get(key).with_context(|| format!("{file}: the header's config has no {key:?}"))
}

pub fn run(a: ReplayArgs) -> Result<ExitCode> {
    let file = a.file.display().to_string();
    let rec = Transcript::read(&a.file)?;
    rec.require_complete()?;
    let cfg = &rec.header.config;
    if cfg.get("command").and_then(Value::as_str) != Some("play") {
        bail!("{file}: not a `proagent play` transcript (header config.command is {:?})", cfg.get("command"));
    }
    let str_of = |k: &str| -> Result<String> {
        field(cfg, k, &file)?
            .as_str()
            .map(str::to_string)
            .with_context(|| format!("{file}: config.{k} is not a string"))
    };
    let num_of = |k: &str| -> Result<u64> {
        field(cfg, k, &file)?.as_u64().with_context(|| format!("{file}: config.{k} is not a number"))
    };
    let layout = match cfg.get("layout_file").and_then(Value::as_str) {
        Some(text) => Layout::parse(&str_of("layout")?, text, &format!("{file} (recorded layout)"))?,
        None => load_layout(&str_of("layout_spec")?)?,
    };
    let (agent, partner) = (str_of("agent")?, str_of("partner")?);
    let seat = num_of("seat")?.min(1) as usize;
    let seed = num_of("seed")?;
    let horizon = u32::try_from(num_of("horizon")?).context("config.horizon")?;
    let model_desc = field(cfg, "model", &file)?;
    let pa = ProAgentArgs::from_switches(field(cfg, "proagent", &file)?, model_desc)
        .with_context(|| format!("{file}: header config"))?;
    let recorded_name = model_desc.get("model").and_then(Value::as_str).unwrap_or("scripted").to_string();
    // The agent names itself after its model; an HTTP model's name is the model id.
    let recorded_name = match recorded_name.as_str() {
        "scripted" => "scripted".to_string(),
        n if n.starts_with("replay:") => "replay".to_string(),
        n => n.to_string(),
    };
    let replayer = Arc::new(ReplayModel::from_transcript(&rec));
    let model: Arc<dyn LanguageModel> = Arc::new(AsRecorded { inner: Arc::clone(&replayer), name: recorded_name });

    let kitchen = Arc::new(Kitchen::new(Arc::new(layout)));
    let seats = if seat == 0 { [agent.as_str(), partner.as_str()] } else { [partner.as_str(), agent.as_str()] };
    let mut factory = pa.factory_with(seats, &kitchen, horizon, Some(model))?;
    let sink: ExchangeSink = Arc::default();
    factory.set_sink(Arc::clone(&sink));
    let hashes = factory.config().map(|c| c.prompts.hashes()).unwrap_or_default();
    let opts = WriterOptions { scrubber: Scrubber::from_env(), wall_clock: false };
    let (mut writer, buf) = TranscriptWriter::in_memory("the re-run", opts);
    writer.write_header(&Header::new(cfg.clone(), hashes))?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let result =
        run_episode(&rt, &kitchen, &factory, [&agent, &partner], seat, seed, horizon, false, Some(&mut writer), &sink)?;
    let rerun = Transcript::parse(&buf.text(), "the re-run")?;

    let miss = rerun.exchanges.iter().find_map(|e| match &e.outcome {
        Outcome::Error(err) if err.error == "replay_miss" => {
            Some(format!("replay miss at t={} ({} exchange #{}): {}", e.t, e.kind, e.seq, err.message))
        }
        _ => None,
    });
    let divergence = first_divergence(&rec, &rerun);
    let unserved = replayer.unserved();
    let recorded_score = rec.footer.as_ref().and_then(|f| f.data.get("score")).and_then(Value::as_u64);
    let score_problem = (recorded_score != Some(result.score as u64))
        .then(|| format!("score: recorded {recorded_score:?}, re-run {}", result.score));
    let unserved_problem = (!unserved.is_empty()).then(|| {
        let (seq, t, kind) = &unserved[0];
        format!("{} recorded replies were never asked for (first: #{seq} at t={t}, {kind})", unserved.len())
    });
    let problems: Vec<String> = [miss, divergence, score_problem, unserved_problem].into_iter().flatten().collect();
    let identical = problems.is_empty();
    if a.json {
        let v = json!({
            "file": file,
            "identical": identical,
            "problems": problems,
            "exchanges": rec.exchanges.len(),
            "steps": rec.steps.len(),
            "score": result.score,
            "served": replayer.served(),
        });
        println!("{v}");
    } else if identical {
        println!(
            "identical: {file} ({} exchanges, {} steps, score {}) re-runs exactly",
            rec.exchanges.len(),
            rec.steps.len(),
            result.score
        );
    } else {
        println!("DIVERGED: {file}");
        for p in &problems {
            println!("  {p}");
        }
    }
    if !identical {
        eprintln!("error: the re-run of {file} diverges: {}", problems[0]);
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}
