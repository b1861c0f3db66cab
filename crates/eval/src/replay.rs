//! Re-running a recorded episode offline, on any game: the header is read back as a
//! [`RunConfig`], the game and every seat are rebuilt as recorded, every ProAgent seat is
//! served the recorded replies, a person's recorded moves take their seat again, and the
//! re-run's own transcript is written in memory for comparison
//! ([`crate::transcript::first_divergence`]).
//!
//! The first request that is not in the recording ends the re-run: nothing after it can
//! match, and going on would only pile up more misses.

use crate::games::{GameError, Playable};
use crate::run::Run;
use crate::runner::files::recorded_game;
use crate::runner::record::{EpisodeRecorder, RunConfig, SeatConfig};
use crate::runner::seats::{SeatError, SeatFactory, is_llmco, is_proagent};
use crate::runner::summary::summary_json;
use crate::transcript::{Header, Scrubber, Transcript, TranscriptError, TranscriptWriter, WriterOptions};
use async_trait::async_trait;
use proagent_agent::ProAgentConfig;
use proagent_agent::llmco::{LlmcoConfig, LlmcoSettings};
use proagent_agent::prompts::{Family, PromptError, PromptLibrary};
use proagent_core::episode::{EpisodeOptions, StepView, play_episode};
use proagent_core::{AgentError, Game, Observation, Seat};
use proagent_llm::LanguageModel;
use proagent_llm::replay::ReplayModel;
use std::sync::Arc;

/// The name of a person's seat in transcripts of games played in `proagent serve`.
pub const HUMAN: &str = "human";

/// Why a recording could not be re-run.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The recorded game could not be rebuilt.
    #[error("{file}: the recorded layout: {source}")]
    Game {
        /// The transcript.
        file: String,
        /// Why.
        #[source]
        source: GameError,
    },
    /// The recorded prompts directory could not be read.
    #[error("{file}: the recorded prompts directory: {source}")]
    Prompts {
        /// The transcript.
        file: String,
        /// Why.
        #[source]
        source: PromptError,
    },
    /// A seat could not be rebuilt.
    #[error("{file}: seat {player}: {source}")]
    Seat {
        /// The transcript.
        file: String,
        /// The player.
        player: usize,
        /// Why.
        #[source]
        source: Box<SeatError>,
    },
    /// A person's recorded move is missing or unreadable.
    #[error("{file}: step t = {t}: no action of player {player}")]
    Moves {
        /// The transcript.
        file: String,
        /// The step.
        t: u32,
        /// The player.
        player: usize,
    },
    /// The re-run's transcript could not be written.
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    /// The re-run stopped (its seats failed in a way the recording did not).
    #[error("the re-run stopped: {0}")]
    Stopped(String),
}

/// What a re-run produced.
pub struct Rerun {
    /// Its score.
    pub score: i64,
    /// Its own transcript (JSON Lines), to compare with the recording.
    pub transcript: String,
}

/// Re-runs the recorded episode `rec` (read from `file`, whose header is `cfg`), serving
/// `replayer`'s recorded replies to every ProAgent seat; `secrets` scrubs the re-run's
/// requests and transcript as the recording was scrubbed.
pub fn rerun(
    file: &str,
    rec: &Transcript,
    cfg: &RunConfig,
    replayer: &Arc<ReplayModel>,
    secrets: Scrubber,
) -> Result<Rerun, ReplayError> {
    let game = recorded_game(file, cfg).map_err(|source| ReplayError::Game { file: file.to_string(), source })?;
    on_game!(&game, |g| rerun_game(file, rec, cfg, g, replayer, secrets))
}

/// The header's record of `player`'s ProAgent seat. Headers of multi-player games written
/// before every player had an entry name two seats: the agent's and (every other) partner's.
fn recorded_seat_of(cfg: &RunConfig, player: usize, players: usize) -> SeatConfig {
    if player < cfg.seats.len() || cfg.seats.is_empty() {
        return cfg.seat(player);
    }
    let partner = (0..players.min(cfg.seats.len())).find(|&i| i != cfg.seat).unwrap_or(player);
    cfg.seat(if player == cfg.seat { cfg.seat } else { partner })
}

/// A ProAgent seat as recorded (its settings, sampling, prompts of `family` and label),
/// served the recording.
fn recorded_config(
    file: &str,
    recorded: &SeatConfig,
    family: Family,
    horizon: u32,
    replayer: &Arc<ReplayModel>,
) -> Result<ProAgentConfig, ReplayError> {
    let prompts = PromptLibrary::load_or_embedded_family(recorded.proagent.prompts.as_deref(), family)
        .map_err(|source| ReplayError::Prompts { file: file.to_string(), source })?;
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

/// An LLM-Coordination seat as recorded (its switches, sampling, `llmco/` prompts and
/// label), served the recording.
fn recorded_llmco_config(
    file: &str,
    recorded: &SeatConfig,
    settings: &LlmcoSettings,
    replayer: &Arc<ReplayModel>,
) -> Result<LlmcoConfig, ReplayError> {
    let prompts = PromptLibrary::load_or_embedded_family(settings.prompts.as_deref(), Family::Llmco)
        .map_err(|source| ReplayError::Prompts { file: file.to_string(), source })?;
    let mut c = LlmcoConfig::new(replayer.clone());
    c.sampling = recorded.model.sampling();
    c.settings = settings.clone();
    c.prompts = Arc::new(prompts);
    c.label = (!recorded.label.is_empty()).then(|| recorded.label.clone());
    Ok(c)
}

fn rerun_game<G: Playable>(
    file: &str,
    rec: &Transcript,
    cfg: &RunConfig,
    game: &Arc<G>,
    replayer: &Arc<ReplayModel>,
    secrets: Scrubber,
) -> Result<Rerun, ReplayError> {
    let n = game.num_players();
    let seat = cfg.seat.min(n.saturating_sub(1));
    let seat_err = |player: usize, source: SeatError| ReplayError::Seat {
        file: file.to_string(),
        player,
        source: Box::new(source),
    };
    // Every ProAgent seat gets its recorded settings; all of them are served the recording.
    // A finished recording stayed within its failure limit; the re-run meets the same
    // failures, so it needs none of its own.
    let mut factory = SeatFactory::new(None).with_max_llm_failures(None).with_max_parse_failure_share(None);
    let mut hashes = None;
    let run = Run::new(Arc::clone(game), &cfg.agent, &cfg.partner, seat, SeatFactory::new(None));
    for (player, spec) in run.specs.iter().enumerate() {
        if is_llmco(spec) {
            let recorded = recorded_seat_of(cfg, player, n);
            let settings = recorded.llmco.clone().unwrap_or_default();
            let c = recorded_llmco_config(file, &recorded, &settings, replayer)?;
            hashes.get_or_insert_with(|| c.prompt_hashes());
            factory = factory.with_llmco_config(spec, c, recorded.model.clone());
            continue;
        }
        if !is_proagent(spec) {
            continue;
        }
        let recorded = recorded_seat_of(cfg, player, n);
        let family = game.proagent_or_refuse().map_err(|e| seat_err(player, e))?.family();
        let pa = recorded_config(file, &recorded, family, cfg.horizon, replayer)?;
        hashes.get_or_insert_with(|| pa.prompt_hashes());
        let model = recorded.model.clone();
        factory = factory.with_config(spec, pa, model);
    }
    for (player, spec) in run.specs.iter().enumerate() {
        if spec != HUMAN {
            factory.check(spec, &**game, player).map_err(|e| seat_err(player, e))?;
        }
    }
    let opts = WriterOptions { scrubber: secrets, wall_clock: false };
    let (writer, buf) = TranscriptWriter::in_memory("the re-run", opts);
    let mut recorder =
        EpisodeRecorder::start(writer, &Header::new(rec.header.config.clone(), hashes.unwrap_or_default()))?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| ReplayError::Stopped(format!("no async runtime: {e}")))?;
    let mut seats: Vec<Box<dyn Seat<G>>> = Vec::with_capacity(n);
    let mut sinks = Vec::with_capacity(n);
    for (player, spec) in run.specs.iter().enumerate() {
        if spec == HUMAN {
            // A game played in `proagent serve`: the person's recorded moves take their seat.
            let mut recorded = RecordedSeat::new(&**game, rec, player, file)?;
            // A seat re-played from its moves keeps the name the recording's summary gives
            // it (a rule bot beside the person in a game of more than two players).
            if let Some(name) = recorded_partner_names(rec, n, seat).and_then(|names| names.get(&player).cloned()) {
                recorded.name = name;
            }
            seats.push(Box::new(recorded));
            sinks.push(None);
        } else {
            let s = factory.build(spec, &**game).map_err(|e| seat_err(player, e))?;
            seats.push(s.seat);
            sinks.push(s.exchanges);
        }
    }
    recorder.set_seat_sinks(sinks);
    let stop_check = Arc::clone(replayer);
    // A game stopped early in the viewer recorded fewer steps than its horizon: the re-run
    // plays the same game (the horizon its seats were told) and stops after as many steps
    // as were recorded.
    let stop_after = (run.specs.iter().any(|s| s == HUMAN) && (rec.steps.len() as u32) < game.max_steps())
        .then_some(rec.steps.len() as u32);
    let played = std::sync::atomic::AtomicU32::new(0);
    let options = EpisodeOptions {
        on_step: Some(Box::new(|v: &StepView<'_, G>| {
            played.store(v.t + 1, std::sync::atomic::Ordering::SeqCst);
            recorder.on_step(v)
        })),
        stop: Some(Box::new(|| {
            stop_check.first_miss().is_some()
                || stop_after.is_some_and(|n| played.load(std::sync::atomic::Ordering::SeqCst) >= n)
        })),
        max_llm_failures: None,
        max_parse_failure_share: None,
    };
    let played_game = Arc::clone(game);
    let result = rt
        .block_on(play_episode(played_game, seats, cfg.seed, options))
        .map_err(|e| ReplayError::Stopped(e.to_string()))?;
    recorder.finish(summary_json(&result, seat))?;
    Ok(Rerun { score: result.score, transcript: buf.text() })
}

/// The names the recording's summary gives the seats other than `seat` (its `partner`
/// field, comma-separated), by player; `None` when it has no summary or the names cannot be
/// told apart (a name with a comma in it).
fn recorded_partner_names(
    rec: &Transcript,
    n: usize,
    seat: usize,
) -> Option<std::collections::BTreeMap<usize, String>> {
    let partner = rec.footer.as_ref()?.data.get("partner")?.as_str()?;
    let names: Vec<&str> = partner.split(',').collect();
    let others: Vec<usize> = (0..n).filter(|&p| p != seat).collect();
    (names.len() == others.len()).then(|| others.into_iter().zip(names.into_iter().map(str::to_string)).collect())
}

/// A person's seat of a game played in `proagent serve`, played back from the recorded
/// actions. (A game whose model seat answered late in real time — `llm: proceed` — does
/// not re-run exactly: the model saw other states than the re-run shows it.)
struct RecordedSeat<G: Game> {
    /// The seat's name in the re-run's summary (`human` unless the recording names it).
    name: String,
    actions: Vec<Option<G::Action>>,
}

impl<G: Game> RecordedSeat<G> {
    fn new(game: &G, rec: &Transcript, player: usize, file: &str) -> Result<Self, ReplayError> {
        let mut actions = Vec::with_capacity(rec.steps.len());
        for s in &rec.steps {
            let token = s.data.get("joint").and_then(|j| j.get(player));
            match token {
                Some(serde_json::Value::Null) => actions.push(None),
                Some(t) => {
                    let a = t.as_str().and_then(|t| game.parse_action(t)).ok_or_else(|| ReplayError::Moves {
                        file: file.to_string(),
                        t: s.t,
                        player,
                    })?;
                    actions.push(Some(a));
                }
                None => return Err(ReplayError::Moves { file: file.to_string(), t: s.t, player }),
            }
        }
        Ok(RecordedSeat { name: HUMAN.to_string(), actions })
    }
}

#[async_trait]
impl<G: Game> Seat<G> for RecordedSeat<G> {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn reset(&mut self, _game: &G, _seat: usize, _seed: u64) {}
    async fn act(&mut self, obs: &Observation<'_, G>) -> Result<G::Action, AgentError> {
        match self.actions.get(obs.t as usize).copied().flatten().or_else(|| obs.game.idle_action()) {
            Some(a) => Ok(a),
            None => Err(AgentError::NoLegalAction(obs.seat)),
        }
    }
}

/// A model under another name (the replayer as the recorded model, for older transcripts).
struct Named {
    inner: Arc<ReplayModel>,
    name: String,
}

#[async_trait]
impl LanguageModel for Named {
    fn name(&self) -> String {
        self.name.clone()
    }
    async fn chat(
        &self,
        request: &proagent_llm::ChatRequest,
    ) -> Result<proagent_llm::ChatResponse, proagent_llm::LlmError> {
        self.inner.chat(request).await
    }
}
