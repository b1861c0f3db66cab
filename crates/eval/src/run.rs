//! The library entry point: one run of any game — the game, a seat spec per player, the
//! seat under test and the seat factory — and its episodes, each played, recorded and
//! summarised. `play`, `eval`, `replay`, the viewer's games and the Python `play()` all
//! come here, so an episode means the same thing everywhere.
//!
//! A transcript header ([`RunConfig`]) is assembled in exactly one place,
//! [`Run::header`]; [`Run::recorder`] starts a transcript with it, and [`Run::play`] plays
//! one episode with everything attached. An episode whose model failed is never a result:
//! [`Run::play`] returns [`PlayFailure`] with what was played and where its transcript
//! (marked failed) went.

use crate::games::{Playable, Teamwork};
use crate::runner::record::{EpisodeRecorder, PLAY_COMMAND, RunConfig, SeatConfig};
use crate::runner::seats::{SeatError, SeatFactory, is_language_agent};
use crate::runner::summary::{failed_summary, summary_with};
use crate::runner::{RunError, play_seated};
use crate::transcript::{TranscriptError, TranscriptWriter, WriterOptions};
use proagent_core::episode::{EpisodeFailed, EpisodeOptions, EpisodeResult};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// One run: a game, who sits where, and how seats are built.
#[derive(Clone)]
pub struct Run<G: Playable> {
    /// The game.
    pub game: Arc<G>,
    /// The layout as given (a built-in name, a path, `v2:NAME`), for transcript headers.
    pub layout_spec: String,
    /// The layout file's text, for a layout that is not built in (headers keep it, so a
    /// transcript replays on any machine).
    pub layout_file: Option<String>,
    /// One seat spec per player.
    pub specs: Vec<String>,
    /// The player of the seat under test (the agent; the others are its partners).
    pub seat: usize,
    /// Builds the seats.
    pub factory: SeatFactory,
}

/// Where and how an episode's transcript is written.
#[derive(Clone, Debug)]
pub struct TranscriptTarget {
    /// The file.
    pub path: PathBuf,
    /// Secrets to scrub, wall-clock fields or not.
    pub options: WriterOptions,
    /// Write it as `<path>.partial` and rename it when the episode ends (sweeps: an
    /// interrupted episode never leaves a file that looks finished).
    pub partial_until_done: bool,
}

/// A played episode with its summary, teamwork and where its transcript went.
pub struct Played<G: Playable> {
    /// Everything that happened.
    pub result: EpisodeResult<G>,
    /// The `play --json` summary from the seat under test (the transcript footer).
    pub summary: Value,
    /// The episode's teamwork (computed once; also inside `summary`).
    pub teamwork: Teamwork,
    /// The transcript file, if one was written.
    pub transcript: Option<PathBuf>,
}

/// An episode that could not be played to its end, or not recorded.
#[derive(Debug, thiserror::Error)]
pub enum PlayFailure<G: Playable> {
    /// A seat could not be built or the transcript could not be written.
    #[error("{0}")]
    Setup(String),
    /// The episode stopped because of its model; nothing of it is a result. `kept` says
    /// where its transcript (marked failed) went, or why it could not be written.
    #[error("{failed}{}", kept_note(.kept))]
    Failed {
        /// What was played and why it stopped.
        failed: Box<EpisodeFailed<G>>,
        /// The failed transcript's path, or why writing it failed.
        kept: Option<Result<PathBuf, String>>,
    },
}

fn kept_note(kept: &Option<Result<PathBuf, String>>) -> String {
    match kept {
        Some(Ok(p)) => format!("; its transcript (marked failed) is {}", p.display()),
        Some(Err(e)) => format!("; writing its transcript failed too: {e}"),
        None => String::new(),
    }
}

impl<G: Playable> PlayFailure<G> {
    /// Whether the whole run must stop (the model refused the configuration): every other
    /// episode would fail the same way.
    pub fn stops_run(&self) -> bool {
        match self {
            PlayFailure::Setup(_) => true,
            PlayFailure::Failed { failed, .. } => failed.abort.stops_run(),
        }
    }
}

impl<G: Playable> Run<G> {
    /// A run of `game` with `agent` in player `seat` and `partner` in every other seat.
    pub fn new(game: Arc<G>, agent: &str, partner: &str, seat: usize, factory: SeatFactory) -> Self {
        let n = game.num_players();
        let specs = (0..n).map(|i| if i == seat { agent.trim() } else { partner.trim() }.to_string()).collect();
        let layout_spec = game.report_name();
        Run { game, layout_spec, layout_file: None, specs, seat, factory }
    }

    /// The same run with the layout named as given on the command line (and the file's
    /// text for a layout that is not built in).
    pub fn with_layout(mut self, spec: &str, file: Option<String>) -> Self {
        self.layout_spec = spec.to_string();
        self.layout_file = file;
        self
    }

    /// Checks, before anything runs, that every seat can be built in its place (for a
    /// ProAgent: that its model builds and every prompt template renders); the error
    /// names the player.
    pub fn check(&self) -> Result<(), (usize, SeatError)> {
        for (player, spec) in self.specs.iter().enumerate() {
            self.factory.check(spec, &*self.game, player).map_err(|e| (player, e))?;
        }
        Ok(())
    }

    /// Each player's name in outputs: a ProAgent seat's label, else its spec.
    pub fn names(&self) -> Vec<String> {
        self.specs.iter().map(|s| self.factory.record_of(s).map_or_else(|| s.trim().to_string(), |r| r.label)).collect()
    }

    /// The name of the seat under test.
    pub fn agent_name(&self) -> String {
        self.names().get(self.seat).cloned().unwrap_or_default()
    }

    /// The partners' name (the first partner's; `""` for a one-player game).
    pub fn partner_name(&self) -> String {
        let names = self.names();
        names.iter().enumerate().find(|(i, _)| *i != self.seat).map(|(_, n)| n.clone()).unwrap_or_default()
    }

    /// Whether any seat asks a language model (only those runs have transcripts).
    pub fn has_proagent(&self) -> bool {
        self.specs.iter().any(|s| is_language_agent(s))
    }

    /// The transcript header of the episode with `seed`: the one place a header is
    /// assembled. `None` when no seat asks a model.
    pub fn header(&self, seed: u64) -> Option<RunConfig> {
        let records: Vec<_> = self.specs.iter().map(|s| self.factory.record_of(s)).collect();
        // The shared settings are the agent's (else the first asking partner's) seat.
        let main = records.get(self.seat).cloned().flatten().or_else(|| records.iter().flatten().next().cloned())?;
        Some(RunConfig {
            command: PLAY_COMMAND.into(),
            layout: self.game.report_name(),
            layout_spec: self.layout_spec.clone(),
            layout_file: self.layout_file.clone(),
            agent: self.agent_name(),
            partner: self.partner_name(),
            seat: self.seat,
            seed,
            horizon: self.game.max_steps(),
            proagent: main.settings.clone(),
            model: main.model.clone(),
            game_settings: self.game.header_settings().into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
            seats: records
                .into_iter()
                .map(|r| r.map(|r| SeatConfig { label: r.label, proagent: r.settings, model: r.model, llmco: r.llmco }))
                .collect(),
        })
    }

    /// The sha256 of each prompt template the run's main ProAgent seat reads (for headers).
    pub fn prompt_hashes(&self) -> BTreeMap<String, String> {
        let main = self
            .specs
            .get(self.seat)
            .filter(|s| is_language_agent(s))
            .or_else(|| self.specs.iter().find(|s| is_language_agent(s)));
        main.map(|s| self.factory.prompt_hashes_of(s, &*self.game)).unwrap_or_default()
    }

    /// Starts the transcript of the episode with `seed` (its header written); `None` when no
    /// seat asks a model.
    pub fn recorder(&self, seed: u64, target: &TranscriptTarget) -> Result<Option<EpisodeRecorder>, TranscriptError> {
        let Some(cfg) = self.header(seed) else { return Ok(None) };
        let header = cfg.header(self.prompt_hashes())?;
        let r = if target.partial_until_done {
            EpisodeRecorder::start_file(target.path.clone(), target.options.clone(), &header)?
        } else {
            EpisodeRecorder::start(TranscriptWriter::create(&target.path, target.options.clone())?, &header)?
        };
        Ok(Some(r))
    }

    /// Plays the episode with `seed`: seats built, the transcript (if `transcript` is given
    /// and a seat asks a model) written as it is played and finished with the summary;
    /// `options.on_step` sees every step, `options.stop` may end it early.
    pub async fn play(
        &self,
        seed: u64,
        transcript: Option<&TranscriptTarget>,
        options: EpisodeOptions<'_, G>,
    ) -> Result<Played<G>, PlayFailure<G>> {
        let mut recorder = match transcript {
            Some(t) => {
                self.recorder(seed, t).map_err(|e| PlayFailure::Setup(format!("writing the transcript: {e}")))?
            }
            None => None,
        };
        let specs: Vec<&str> = self.specs.iter().map(String::as_str).collect();
        let played = play_seated(&self.game, &self.factory, &specs, seed, recorder.as_mut(), options).await;
        let result = match played {
            Ok(r) => r,
            Err(RunError::Failed(failed)) => {
                let kept = recorder.map(|r| match r.finish_failed(failed_summary(&failed, self.seat)) {
                    Ok(Some(p)) => Ok(p),
                    Ok(None) => Err("no file".to_string()),
                    Err(e) => Err(e.to_string()),
                });
                return Err(PlayFailure::Failed { failed, kept });
            }
            Err(e) => return Err(PlayFailure::Setup(e.to_string())),
        };
        let teamwork = self.game.teamwork(&result);
        let summary = summary_with(&result, self.seat, &teamwork);
        let transcript = match recorder {
            Some(r) => {
                r.finish(summary.clone()).map_err(|e| PlayFailure::Setup(format!("writing the transcript: {e}")))?
            }
            None => None,
        };
        Ok(Played { result, summary, teamwork, transcript })
    }
}
