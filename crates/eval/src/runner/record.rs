//! Episode transcripts, one way for `play`, `eval` and `replay`: the typed run
//! configuration a header records ([`RunConfig`]), and an [`EpisodeRecorder`]
//! that writes, after every step, the model exchanges the seats made during it
//! (in player order) and then the step itself, and at the end the footer.

use crate::games::Playable;
use crate::transcript::{Header, TranscriptError, TranscriptWriter};
use proagent_agent::log::drain_sink;
use proagent_agent::{AgentSettings, ExchangeSink, ModelSpec};
use proagent_core::episode::StepView;
use proagent_core::limits::{MAX_HORIZON, RangeError, check_int};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The value of `config.command` in episode transcripts.
pub const PLAY_COMMAND: &str = "play";

/// Everything needed to re-run a recorded episode: the header's `config` object.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    /// Always [`PLAY_COMMAND`] (eval episodes are recorded as plays).
    pub command: String,
    /// The layout's name.
    pub layout: String,
    /// The layout as given on the command line (a built-in name or a file path).
    pub layout_spec: String,
    /// The layout file's text, when it is not a built-in layout.
    pub layout_file: Option<String>,
    /// The spec of the agent under test.
    pub agent: String,
    /// The spec of its partner.
    pub partner: String,
    /// The player index the agent controls.
    pub seat: usize,
    /// The episode seed.
    pub seed: u64,
    /// Steps in the episode.
    pub horizon: u32,
    /// The switches of every `proagent` seat.
    pub proagent: AgentSettings,
    /// The model of every `proagent` seat.
    pub model: ModelSpec,
    /// The game's own settings, under the key its catalog entry names
    /// ([`crate::games::Catalogued::SETTINGS_KEY`]: `v2` for OvercookedV2, as every header
    /// has written them); empty for a game without settings, so its headers have no such key.
    /// Reading a header keeps only the catalog's keys.
    #[serde(flatten)]
    pub game_settings: BTreeMap<String, Value>,
    /// Each player's own ProAgent configuration (`None` for other seats), one entry per
    /// player. Transcripts written before seats could differ have none: every `proagent`
    /// seat then used `proagent` and `model`.
    #[serde(default, skip_serializing_if = "no_seats")]
    pub seats: Vec<Option<SeatConfig>>,
}

/// One ProAgent seat as a transcript header records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeatConfig {
    /// The seat's name (`agent::config::label`).
    pub label: String,
    /// Its switches.
    pub proagent: AgentSettings,
    /// Its model.
    pub model: ModelSpec,
    /// For an LLM-Coordination seat: its switches (then `proagent` is unused). Absent for
    /// a ProAgent seat, so ProAgent headers are unchanged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub llmco: Option<proagent_agent::llmco::LlmcoSettings>,
}

fn no_seats(s: &[Option<SeatConfig>]) -> bool {
    s.iter().all(Option::is_none)
}

impl RunConfig {
    /// The recorded configuration of player `player`'s ProAgent seat: its own, or (older
    /// transcripts) the shared one.
    pub fn seat(&self, player: usize) -> SeatConfig {
        match self.seats.get(player).cloned().flatten() {
            Some(s) => s,
            None => SeatConfig {
                label: String::new(),
                proagent: self.proagent.clone(),
                model: self.model.clone(),
                llmco: None,
            },
        }
    }
}

impl RunConfig {
    /// The header that records this run, with the sha256 of each prompt template in use.
    pub fn header(&self, prompt_hashes: BTreeMap<String, String>) -> Result<Header, TranscriptError> {
        let config = serde_json::to_value(self)
            .map_err(|e| TranscriptError::Usage(format!("cannot serialise the run config: {e}")))?;
        Ok(Header::new(config, prompt_hashes))
    }

    /// Reads the run configuration back from a header at `line` of `file` (both name
    /// it in errors). Every number is range-checked ([`RunConfig::check`]), so a
    /// hand-edited or corrupt header is an error, never a huge allocation.
    pub fn from_header(header: &Header, file: &str, line: usize) -> Result<RunConfig, TranscriptError> {
        let bad = |message: String| TranscriptError::Bad { path: file.to_string(), line, message };
        let mut cfg: RunConfig = serde_json::from_value(header.config.clone())
            .map_err(|e| bad(format!("the header's config is not an episode's: {e}")))?;
        // The flattened map holds every key the struct does not name: keep the games'.
        cfg.game_settings.retain(|k, _| crate::games::catalog::settings_keys().any(|s| s == k));
        if cfg.command != PLAY_COMMAND {
            return Err(bad(format!("not a `proagent play` transcript (config.command is {:?})", cfg.command)));
        }
        cfg.check().map_err(|e| bad(format!("{}", e.within("config"))))?;
        // The shared settings repeat the main ProAgent seat's (the agent's, else the
        // partner's); a header where they disagree was edited by hand, and which to trust is unclear.
        let main = cfg.seats.get(cfg.seat).into_iter().chain(cfg.seats.iter()).find_map(Option::as_ref);
        if let Some(m) = main
            && (m.proagent != cfg.proagent || m.model != cfg.model)
        {
            return Err(bad(format!(
                "the header's config.proagent/config.model disagree with the seat they repeat (config.seats, {})",
                m.label
            )));
        }
        Ok(cfg)
    }

    /// Checks every number against its limit: the seat, the horizon (1 to
    /// [`MAX_HORIZON`]), the agent's switches and the model's settings.
    pub fn check(&self) -> Result<(), RangeError> {
        check_int("seat", self.seat, 0, proagent_overcooked_v2::env::MAX_AGENTS - 1)?;
        check_int("horizon", self.horizon, 1, MAX_HORIZON)?;
        self.proagent.check().map_err(|e| e.within("proagent"))?;
        self.model.check().map_err(|e| e.within("model"))?;
        for (i, seat) in self.seats.iter().enumerate() {
            if let Some(s) = seat {
                s.proagent.check().map_err(|e| e.within(&format!("seats[{i}].proagent")))?;
                s.model.check().map_err(|e| e.within(&format!("seats[{i}].model")))?;
            }
        }
        Ok(())
    }
}

/// Writes one episode's transcript as it is played.
pub struct EpisodeRecorder {
    writer: TranscriptWriter,
    /// Each sink with the seat its exchanges are stamped with (`None`: not stamped).
    sinks: Vec<(Option<u8>, ExchangeSink)>,
    error: Option<TranscriptError>,
    /// For a file written under a temporary name: (temporary, final).
    rename: Option<(PathBuf, PathBuf)>,
}

impl EpisodeRecorder {
    /// Writes the header; exchanges and steps follow as the episode is played.
    pub fn start(mut writer: TranscriptWriter, header: &Header) -> Result<Self, TranscriptError> {
        writer.write_header(header)?;
        Ok(EpisodeRecorder { writer, sinks: Vec::new(), error: None, rename: None })
    }

    /// Like [`EpisodeRecorder::start`], for a file first written as `<path>.partial` and
    /// renamed to `path` by [`EpisodeRecorder::finish`]: an interrupted episode never
    /// leaves a file that looks finished.
    pub fn start_file(
        path: PathBuf,
        opts: crate::transcript::WriterOptions,
        header: &Header,
    ) -> Result<Self, TranscriptError> {
        let mut tmp = path.clone().into_os_string();
        tmp.push(".partial");
        let tmp = PathBuf::from(tmp);
        let writer = TranscriptWriter::create(&tmp, opts)?;
        let mut r = EpisodeRecorder::start(writer, header)?;
        r.rename = Some((tmp, path));
        Ok(r)
    }

    /// The exchange lists of the seats by player (`None` for a seat that asks no model).
    /// When more than one seat asks, every exchange is stamped with its seat, so a
    /// transcript of two ProAgents says who asked what; with one asking seat nothing is
    /// stamped (the seat is in the header).
    pub fn set_seat_sinks(&mut self, sinks: Vec<Option<ExchangeSink>>) {
        let several = sinks.iter().filter(|s| s.is_some()).count() > 1;
        self.sinks = sinks
            .into_iter()
            .enumerate()
            .filter_map(|(player, s)| s.map(|s| (several.then_some(player as u8), s)))
            .collect();
    }

    fn drain(&mut self) -> Result<(), TranscriptError> {
        for (seat, sink) in &self.sinks {
            for mut ex in drain_sink(sink) {
                ex.seat = *seat;
                self.writer.write_exchange(&ex)?;
            }
        }
        Ok(())
    }

    /// Writes the exchanges waiting in the seats' sinks that were made for a step before
    /// `steps` and drops the others: those of questions about steps that were never played
    /// (a game stopped while a seat was already thinking about its next step), which a
    /// re-run of the recorded steps never asks. Returns how many were dropped.
    pub fn discard_after(&mut self, steps: u32) -> usize {
        let mut dropped = 0;
        for (seat, sink) in &self.sinks {
            for mut ex in drain_sink(sink) {
                if ex.t >= steps {
                    dropped += 1;
                    continue;
                }
                ex.seat = *seat;
                if self.error.is_none()
                    && let Err(e) = self.writer.write_exchange(&ex)
                {
                    self.error = Some(e);
                }
            }
        }
        dropped
    }

    /// Writes the exchanges made during this step, then the step ([`step_json`]). A write
    /// error is kept and reported by [`EpisodeRecorder::finish`]; nothing more is written
    /// after it.
    pub fn on_step<G: Playable>(&mut self, v: &StepView<'_, G>) {
        self.on_step_value(v.t, step_json(v));
    }

    /// Like [`EpisodeRecorder::on_step`] for a step body built by the caller (a browser
    /// game, a Python loop).
    pub fn on_step_value(&mut self, t: u32, step: Value) {
        if self.error.is_some() {
            return;
        }
        if let Err(e) = self.drain().and_then(|_| self.writer.write_step(t, step)) {
            self.error = Some(e);
        }
    }

    /// Writes what is left and the footer of a failed episode (its summary says
    /// `"failed": true`, see [`crate::runner::EpisodeFailed::summary_json`]). A file
    /// started with [`EpisodeRecorder::start_file`] keeps its `.partial` name, so it is
    /// never taken for a finished episode; returns the file's path, if any.
    pub fn finish_failed(mut self, summary: Value) -> Result<Option<PathBuf>, TranscriptError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.drain()?;
        self.writer.write_footer(summary)?;
        Ok(match self.rename.take() {
            Some((tmp, _)) => Some(tmp),
            None => self.writer.path().map(PathBuf::from),
        })
    }

    /// Writes what is left and the footer (the episode summary); returns the file's path,
    /// if it was written to a file.
    pub fn finish(mut self, summary: Value) -> Result<Option<PathBuf>, TranscriptError> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.drain()?;
        self.writer.write_footer(summary)?;
        match self.rename.take() {
            Some((tmp, path)) => {
                std::fs::rename(&tmp, &path)
                    .map_err(|source| TranscriptError::Io { path: path.display().to_string(), source })?;
                Ok(Some(path))
            }
            None => Ok(self.writer.path().map(PathBuf::from)),
        }
    }
}

/// The body of a transcript step record: the action tokens by player (`null` for a player
/// who did not move), the reward, this step's skill events and belief corrections, and the
/// game's own fields ([`Playable::step_fields`]).
pub fn step_json<G: Playable>(v: &StepView<'_, G>) -> Value {
    let mut step = serde_json::json!({
        "joint": proagent_core::game::action_tokens(v.game, v.actions),
        "reward": v.game.reward(v.outcome),
        "skill_events": v.skill_events,
        "belief": v.beliefs,
    });
    if let Some(obj) = step.as_object_mut() {
        obj.extend(v.game.step_fields(v.outcome));
    }
    step
}
