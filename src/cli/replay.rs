//! `proagent replay FILE`: re-run a recorded `play` episode offline, serving the
//! recorded model replies, and check that the re-run says and does exactly what
//! the recording says (wall-clock fields aside).

use super::common::load_layout;
use anyhow::{Context, Result};
use proagent::agent::ProAgentConfig;
use proagent::agent::prompts::PromptLibrary;
use proagent::controller::Kitchen;
use proagent::env::Layout;
use proagent::llm::LanguageModel;
use proagent::runner::play_seated;
use proagent::runner::record::{EpisodeRecorder, RunConfig};
use proagent::runner::seats::{SeatFactory, is_proagent};
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

pub fn run(a: ReplayArgs) -> Result<ExitCode> {
    let file = a.file.display().to_string();
    let rec = Transcript::read(&a.file)?;
    rec.require_complete()?;
    let cfg = RunConfig::from_header(&rec.header, &file)?;
    let layout = match &cfg.layout_file {
        Some(text) => Layout::parse(&cfg.layout, text, &format!("{file} (recorded layout)"))?,
        None => load_layout(&cfg.layout_spec)?,
    };
    let seat = cfg.seat.min(1);
    let replayer = Arc::new(rec.replayer());
    let kitchen = Arc::new(Kitchen::new(Arc::new(layout)));
    let specs = if seat == 0 { [&*cfg.agent, &*cfg.partner] } else { [&*cfg.partner, &*cfg.agent] };
    // Every ProAgent seat gets its recorded settings; all of them are served the recording.
    let mut factory = SeatFactory::new(None);
    let mut hashes = None;
    for (player, spec) in specs.iter().enumerate() {
        if !is_proagent(spec) {
            continue;
        }
        let recorded = cfg.seat(player);
        let prompts = PromptLibrary::load_or_embedded(recorded.proagent.prompts.as_deref())
            .with_context(|| format!("{file}: the recorded prompts directory"))?;
        // Older transcripts have no label: the agent named itself after its model (an
        // HTTP model's name is the model id), so the replayer takes the recorded name.
        let model: Arc<dyn LanguageModel> = if recorded.label.is_empty() {
            let name = match recorded.model.model.as_str() {
                n if n.starts_with("replay:") => "replay".to_string(),
                n => n.to_string(),
            };
            Arc::new(Named { inner: replayer.clone(), name })
        } else {
            replayer.clone()
        };
        let mut pa = ProAgentConfig::new(model);
        pa.sampling = recorded.model.sampling();
        pa.settings = recorded.proagent.clone();
        pa.prompts = Arc::new(prompts);
        pa.horizon = cfg.horizon;
        pa.label = (!recorded.label.is_empty()).then(|| recorded.label.clone());
        hashes.get_or_insert_with(|| pa.prompts.hashes());
        factory = factory.with_seat(spec, pa);
    }
    for (player, spec) in specs.iter().enumerate() {
        factory.check(spec, &kitchen, player).with_context(|| format!("{file}: seat {player}"))?;
    }
    let hashes = hashes.unwrap_or_default();
    let opts = WriterOptions { scrubber: Scrubber::from_env(), wall_clock: false };
    let (writer, buf) = TranscriptWriter::in_memory("the re-run", opts);
    let mut recorder = EpisodeRecorder::start(writer, &Header::new(rec.header.config.clone(), hashes))?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let result =
        rt.block_on(play_seated(&kitchen, &factory, specs, cfg.seed, cfg.horizon, Some(&mut recorder), None))?;
    recorder.finish(result.summary_json(seat))?;
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

/// A model under another name (the replayer as the recorded model, for older transcripts).
struct Named {
    inner: Arc<proagent::llm::replay::ReplayModel>,
    name: String,
}

#[async_trait::async_trait]
impl LanguageModel for Named {
    fn name(&self) -> String {
        self.name.clone()
    }
    async fn chat(
        &self,
        request: &proagent::llm::ChatRequest,
    ) -> Result<proagent::llm::ChatResponse, proagent::llm::LlmError> {
        self.inner.chat(request).await
    }
}
