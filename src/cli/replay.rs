//! `proagent replay FILE`: re-run a recorded `play` episode offline, serving the
//! recorded model replies, and check that the re-run says and does exactly what
//! the recording says (wall-clock fields aside).

use super::common::{load_layout, load_v2_layout};
use anyhow::{Context, Result, bail};
use proagent::agent::ProAgentConfig;
use proagent::agent::prompts::{Family, PromptLibrary};
use proagent::controller::Kitchen;
use proagent::env::Action;
use proagent::env::Layout;
use proagent::llm::LanguageModel;
use proagent::policy::{Agent, Observation};
use proagent::runner::files::{EpisodeKind, looks_like_transcript, read_episode_text, read_text_maybe_gz};
use proagent::runner::record::{EpisodeRecorder, RunConfig, SeatConfig};
use proagent::runner::seats::{SeatFactory, is_proagent};
use proagent::runner::{EpisodeOptions, StepView, play_episode, play_seated_with};
use proagent::transcript::{Header, Outcome, Scrubber, Transcript, TranscriptWriter, WriterOptions, first_divergence};
use proagent::web::play::HUMAN;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct ReplayArgs {
    /// A transcript written by `proagent play` or `proagent eval` (a trajectory file is
    /// refused with a message saying which commands read it).
    pub file: PathBuf,
    /// Print one JSON object (identical, divergence, counts) instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: ReplayArgs) -> Result<ExitCode> {
    let file = a.file.display().to_string();
    let text = read_text_maybe_gz(&a.file)?;
    if !looks_like_transcript(&text) {
        // A trajectory holds the joint actions but not what the model was asked and said,
        // so there is nothing to re-run offline; say what the file is and what reads it.
        if let Ok(f) = read_episode_text(&file, &text) {
            bail!(
                "{file} is a {} ({} episode{}), not a transcript: replay re-runs a recorded model \
                 conversation. Measure it with `proagent analyze {file}`, watch it with \
                 `proagent serve {file}`{}",
                f.kind.name(),
                f.trajectories.len(),
                if f.trajectories.len() == 1 { "" } else { "s" },
                if f.kind == EpisodeKind::ReferenceTrace {
                    format!(", or check its states with `proagent verify-trace {file}`")
                } else {
                    String::new()
                }
            );
        }
    }
    let rec = Transcript::parse(&text, &file)?;
    let footer = rec.require_complete()?;
    if footer.data.get("failed").and_then(Value::as_bool) == Some(true) {
        let why = footer.data.get("error").and_then(Value::as_str).unwrap_or("no reason recorded");
        bail!("{file} records a failed episode ({why}); only finished episodes can be replayed");
    }
    let cfg = RunConfig::from_header(&rec.header, &file, rec.header_line)?;
    if let Some(settings) = cfg.v2.clone() {
        let secrets = Scrubber::from_env();
        let replayer = Arc::new(rec.replayer(secrets.clone()));
        let (score, rerun_text) = rerun_v2(&file, &rec, &cfg, &settings, &replayer, secrets)?;
        return compare(&a, &file, &rec, &replayer, score, &rerun_text);
    }
    let layout = match &cfg.layout_file {
        Some(text) => Layout::parse(&cfg.layout, text, &format!("{file} (recorded layout)"))?,
        None => load_layout(&cfg.layout_spec)?,
    };
    let seat = cfg.seat.min(1);
    // The recording was scrubbed before hashing: the re-run's requests are scrubbed the
    // same way before lookup, and so is the re-run's own transcript.
    let secrets = Scrubber::from_env();
    let replayer = Arc::new(rec.replayer(secrets.clone()));
    let kitchen = Arc::new(Kitchen::new(Arc::new(layout)));
    let specs = if seat == 0 { [&*cfg.agent, &*cfg.partner] } else { [&*cfg.partner, &*cfg.agent] };
    // Every ProAgent seat gets its recorded settings; all of them are served the recording.
    let mut factory = SeatFactory::new(None);
    let mut hashes = None;
    for (player, spec) in specs.iter().enumerate() {
        if !is_proagent(spec) {
            continue;
        }
        let pa = recorded_seat(file.as_str(), &cfg.seat(player), Family::Classic, cfg.horizon, &replayer)?;
        hashes.get_or_insert_with(|| pa.prompt_hashes());
        factory = factory.with_seat(spec, pa);
    }
    // A finished recording stayed within its failure limit; the re-run meets the same
    // failures, so it needs none of its own.
    let factory = factory.with_max_llm_failures(None);
    for (player, spec) in specs.iter().enumerate() {
        if *spec == HUMAN {
            continue;
        }
        factory.check(spec, &kitchen, player).with_context(|| format!("{file}: seat {player}"))?;
    }
    let hashes = hashes.unwrap_or_default();
    let opts = WriterOptions { scrubber: secrets, wall_clock: false };
    let (writer, buf) = TranscriptWriter::in_memory("the re-run", opts);
    let mut recorder = EpisodeRecorder::start(writer, &Header::new(rec.header.config.clone(), hashes))?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let result = if specs.contains(&HUMAN) {
        // A game played in `proagent serve`: the human's recorded keys take their seat.
        let mut seats: Vec<Box<dyn Agent>> = Vec::new();
        let mut sinks = Vec::new();
        for (player, spec) in specs.iter().enumerate() {
            if *spec == HUMAN {
                seats.push(Box::new(RecordedSeat::new(&rec, player, &file)?));
            } else {
                let s = factory.build(spec, &kitchen).with_context(|| format!("{file}: seat {player}"))?;
                sinks.extend(s.exchanges);
                seats.push(s.agent);
            }
        }
        recorder.set_sinks(sinks);
        let seats: [Box<dyn Agent>; 2] = seats.try_into().map_err(|_| anyhow::anyhow!("two seats expected"))?;
        let options = EpisodeOptions {
            on_step: Some(Box::new(|v: &StepView<'_>| recorder.on_step(v))),
            ..EpisodeOptions::default()
        };
        // A game stopped early recorded fewer steps than its horizon (the model was told the full one).
        let steps = rec.steps.len() as u32;
        rt.block_on(play_episode(Arc::clone(&kitchen.layout), seats, cfg.seed, steps.min(cfg.horizon), options))?
    } else {
        // The first request that is not in the recording ends the re-run: nothing after it
        // can match, and going on would only pile up more misses.
        let stop_check = Arc::clone(&replayer);
        let options = EpisodeOptions {
            stop: Some(Box::new(move || stop_check.first_miss().is_some())),
            ..EpisodeOptions::default()
        };
        rt.block_on(play_seated_with(&kitchen, &factory, specs, cfg.seed, cfg.horizon, Some(&mut recorder), options))?
    };
    recorder.finish(result.summary_json(seat))?;
    compare(&a, &file, &rec, &replayer, i64::from(result.score), &buf.text())
}

/// A ProAgent seat as recorded in `file` (its settings, sampling, prompts of `family` and
/// label), served the recording.
fn recorded_seat(
    file: &str,
    recorded: &SeatConfig,
    family: Family,
    horizon: u32,
    replayer: &Arc<proagent::llm::replay::ReplayModel>,
) -> Result<ProAgentConfig> {
    let prompts = PromptLibrary::load_or_embedded_family(recorded.proagent.prompts.as_deref(), family)
        .with_context(|| format!("{file}: the recorded prompts directory"))?;
    // Older transcripts have no label: the agent named itself after its model (an HTTP
    // model's name is the model id), so the replayer takes the recorded name.
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
    pa.horizon = horizon;
    pa.label = (!recorded.label.is_empty()).then(|| recorded.label.clone());
    Ok(pa)
}

/// Re-runs a recorded OvercookedV2 episode (every ProAgent seat with its recorded settings,
/// the V2 prompts, served the recording); returns the score and the re-run's transcript.
fn rerun_v2(
    file: &str,
    rec: &Transcript,
    cfg: &RunConfig,
    settings: &proagent::env_v2::Settings,
    replayer: &Arc<proagent::llm::replay::ReplayModel>,
    secrets: Scrubber,
) -> Result<(i64, String)> {
    use proagent::runner::v2::{V2SeatFactory, play_seated_v2};
    let layout = match &cfg.layout_file {
        Some(text) => proagent::env_v2::Layout::parse(text, &format!("{file} (recorded layout)"))?,
        None => {
            let spec = proagent::env_v2::layout::strip_v2_prefix(&cfg.layout_spec).unwrap_or(&cfg.layout_spec);
            load_v2_layout(spec)?.0
        }
    };
    let layout = Arc::new(layout);
    let n = layout.num_agents();
    let seat = cfg.seat.min(n.saturating_sub(1));
    let specs: Vec<String> = (0..n).map(|i| if i == seat { cfg.agent.clone() } else { cfg.partner.clone() }).collect();
    // A finished recording stayed within its failure limit; the re-run meets the same failures.
    let mut factory = V2SeatFactory::new(None).with_max_llm_failures(None);
    let mut hashes = None;
    for (player, spec) in specs.iter().enumerate() {
        if !is_proagent(spec) {
            continue;
        }
        // The header records two seats: the agent's, and the partner's for every other player.
        let recorded = cfg.seat(if player == seat { seat.min(1) } else { 1 - seat.min(1) });
        let pa = recorded_seat(file, &recorded, Family::V2, cfg.horizon, replayer)?;
        hashes.get_or_insert_with(|| pa.prompt_hashes());
        factory = factory.with_seat(spec, pa);
    }
    for (player, spec) in specs.iter().enumerate() {
        factory.check(spec, &layout, settings, player).with_context(|| format!("{file}: seat {player}"))?;
    }
    let opts = WriterOptions { scrubber: secrets, wall_clock: false };
    let (writer, buf) = TranscriptWriter::in_memory("the re-run", opts);
    let mut recorder =
        EpisodeRecorder::start(writer, &Header::new(rec.header.config.clone(), hashes.unwrap_or_default()))?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let result =
        rt.block_on(play_seated_v2(&layout, settings, &factory, &specs, cfg.seed, Some(&mut recorder), None))?;
    recorder.finish(result.summary_json(seat))?;
    Ok((i64::from(result.score), buf.text()))
}

/// Compares a re-run with its recording and reports (exit 1 when they differ).
fn compare(
    a: &ReplayArgs,
    file: &str,
    rec: &Transcript,
    replayer: &proagent::llm::replay::ReplayModel,
    score: i64,
    rerun_text: &str,
) -> Result<ExitCode> {
    let rerun = Transcript::parse(rerun_text, "the re-run")?;

    let miss = rerun.exchanges.iter().find_map(|e| match &e.outcome {
        Outcome::Error(err) if err.error == "replay_miss" => Some(format!(
            "replay miss at t={} ({} exchange #{}): {}; the re-run stopped there",
            e.t, e.kind, e.seq, err.message
        )),
        _ => None,
    });
    let divergence = first_divergence(rec, &rerun);
    let unserved = replayer.unserved();
    let recorded_score = rec.footer.as_ref().and_then(|f| f.data.get("score")).and_then(Value::as_i64);
    let score_problem =
        (recorded_score != Some(score)).then(|| format!("score: recorded {recorded_score:?}, re-run {score}"));
    let unserved_problem = (!unserved.is_empty()).then(|| {
        let (seq, t, kind) = &unserved[0];
        format!("{} recorded replies were never asked for (first: #{seq} at t={t}, {kind})", unserved.len())
    });
    // After a miss the re-run stopped early, so the other differences are its consequences.
    let problems: Vec<String> = match miss {
        Some(m) => vec![m],
        None => [divergence, score_problem, unserved_problem].into_iter().flatten().collect(),
    };
    let identical = problems.is_empty();
    if a.json {
        let v = json!({
            "file": file,
            "identical": identical,
            "problems": problems,
            "exchanges": rec.exchanges.len(),
            "steps": rec.steps.len(),
            "score": score,
            "served": replayer.served(),
        });
        println!("{v}");
    } else if identical {
        println!(
            "identical: {file} ({} exchanges, {} steps, score {}) re-runs exactly",
            rec.exchanges.len(),
            rec.steps.len(),
            score
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

/// The human seat of a game played in `proagent serve`, played back from the recorded
/// joint actions. (A game whose model seat answered late in real time — `llm: proceed` —
/// does not re-run exactly: the model saw other states than the re-run shows it.)
struct RecordedSeat {
    actions: Vec<Action>,
}

impl RecordedSeat {
    fn new(rec: &Transcript, player: usize, file: &str) -> Result<Self> {
        let mut actions = Vec::with_capacity(rec.steps.len());
        for s in &rec.steps {
            let letter = s.data.get("joint").and_then(|j| j.get(player)).and_then(Value::as_str).unwrap_or("");
            let a = letter
                .chars()
                .next()
                .and_then(Action::from_letter)
                .with_context(|| format!("{file}: step t = {}: no action of player {player}", s.t))?;
            actions.push(a);
        }
        Ok(RecordedSeat { actions })
    }
}

#[async_trait::async_trait]
impl Agent for RecordedSeat {
    fn name(&self) -> String {
        HUMAN.to_string()
    }
    fn reset(&mut self, _layout: &proagent::env::Layout, _seat: usize, _seed: u64) {}
    async fn act(&mut self, obs: &Observation<'_>) -> Result<Action, proagent::policy::AgentError> {
        Ok(self.actions.get(obs.state.timestep as usize).copied().unwrap_or(Action::Stay))
    }
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
