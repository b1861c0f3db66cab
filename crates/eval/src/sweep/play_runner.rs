//! The episode runner of real sweeps: every episode is a [`Run`] of its cell (the game,
//! the agent in its seat, the partner in the others), played with the sweep's seat
//! factory, and for every episode with a ProAgent seat a transcript in the format of
//! `proagent play` (so `proagent replay` re-runs it), written as the episode is played.
//! Every game goes through the same code.
//!
//! An episode whose model failed (more failed calls than the factory allows, or more
//! than its share of replies naming no usable action) is an [`EpisodeError::Failed`]:
//! not recorded, retried by the next run; its transcript stays under the `.partial`
//! name with a footer saying why. A model that refuses the
//! configuration (wrong key, unknown model, ...) is an [`EpisodeError::Fatal`], which
//! stops the sweep.
//!
//! On request it also writes every episode's trajectory (`eval --keep-trajectories`).
//!
//! Every seat's key fingerprint covers what decides its play: the code version
//! ([`CODE_VERSION`]) for all, plus a ProAgent's model, sampling, switches, prompt
//! texts and server identity, or a `bc:PATH` file's sha256. When a sweep has
//! OvercookedV2 layouts, a ProAgent seat's fingerprint also covers its V2 templates and
//! the V2 switches (sweeps without them keep their keys).

use super::plan::EpisodeSpec;
use super::scheduler::{EpisodeContext, EpisodeError, EpisodeRunner};
use super::store::EpisodeOutcome;
use crate::games::{AnyGame, Playable};
use crate::run::{PlayFailure, Run, TranscriptTarget};
use crate::runner::CODE_VERSION;
use crate::runner::seats::{LlmcoSeat, ProAgentSeat, SeatFactory, is_llmco};
use crate::transcript::{Scrubber, WriterOptions};
use async_trait::async_trait;
use proagent_agent::prompts::{Family, PromptLibrary};
use proagent_core::Game;
use proagent_core::episode::EpisodeOptions;
use proagent_llm::sha256_hex;
use proagent_partners::bc::BcSpec;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One ProAgent seat of a sweep: how it is configured and what identifies its model.
#[derive(Clone)]
pub struct SweepSeat {
    /// The seat (its `label` is the seat's name in the sweep).
    pub seat: ProAgentSeat,
    /// What identifies the model beyond its name (see `runner::models::model_identity`):
    /// part of the key of every episode with this seat.
    pub server: serde_json::Value,
}

/// One layout of a sweep: its game and how the command line named it.
#[derive(Clone, Debug)]
pub struct SweepGame {
    /// The game (its horizon is replaced by each episode's).
    pub game: AnyGame,
    /// The layout as given (`cramped_room`, a path, `v2:NAME`).
    pub spec: String,
    /// The layout file's text for a layout that is not built in.
    pub file: Option<String>,
}

/// Plays real episodes. ProAgent seats are named by their labels
/// (`agent::config::label`), each with its own configuration; other specs are built as
/// `play` builds them.
pub struct PlayRunner {
    games: HashMap<String, SweepGame>,
    factory: SeatFactory,
    seats: HashMap<String, SweepSeat>,
    scrubber: Scrubber,
    /// Per spec: the fingerprint that goes into the key, and the settings records keep.
    known: Mutex<HashMap<String, (String, serde_json::Value)>>,
    keep_trajectories: bool,
    /// LLM-Coordination seats resolved against the command line, by label.
    llmco: HashMap<String, LlmcoSeat>,
    /// What identifies each LLM-Coordination seat's model server, by label (see
    /// [`SweepSeat::server`]); a seat without one is keyed as before.
    llmco_servers: HashMap<String, serde_json::Value>,
}

impl PlayRunner {
    /// A runner for these games (by report name) and ProAgent seats (by label), with at
    /// most `max_llm_failures` failed model calls per episode; transcripts are scrubbed
    /// with `scrubber`.
    pub fn new(
        games: HashMap<String, SweepGame>,
        seats: HashMap<String, SweepSeat>,
        max_llm_failures: Option<u64>,
        scrubber: Scrubber,
    ) -> PlayRunner {
        let mut factory = SeatFactory::new(None).with_max_llm_failures(max_llm_failures);
        for (label, s) in &seats {
            factory = factory.with_seat(label, s.seat.clone());
        }
        PlayRunner {
            games,
            factory,
            seats,
            scrubber,
            known: Mutex::new(HashMap::new()),
            keep_trajectories: false,
            llmco: HashMap::new(),
            llmco_servers: HashMap::new(),
        }
    }

    /// Seats these LLM-Coordination seats (by label; their models resolved against the
    /// command line). An `llmco[...]` spec not given here is built from the spec itself,
    /// with the `scripted` model unless it names one.
    pub fn with_llmco_seats(mut self, seats: HashMap<String, LlmcoSeat>) -> Self {
        for (label, s) in &seats {
            self.factory = self.factory.with_llmco_seat(label, s.clone());
        }
        self.llmco = seats;
        self
    }

    /// What identifies each LLM-Coordination seat's model server (by label;
    /// `runner::models::model_identity`): part of the key of every episode with that seat,
    /// as a ProAgent's is, so a resumed sweep never reuses results of another server.
    pub fn with_llmco_servers(mut self, servers: HashMap<String, serde_json::Value>) -> Self {
        self.llmco_servers = servers;
        self
    }

    /// Builds partner seats with `options` (e.g. `--allow-model-mismatch`).
    pub fn partner_options(mut self, options: crate::games::PartnerOptions) -> Self {
        self.factory = self.factory.with_partner_options(options);
        self
    }

    /// The largest share of an episode's model calls whose replies may name no usable
    /// action (see [`SeatFactory::with_max_parse_failure_share`]); an episode over it is
    /// an [`EpisodeError::Failed`], not recorded, and retried by the next run.
    pub fn max_parse_failure_share(mut self, limit: Option<f64>) -> Self {
        self.factory = self.factory.with_max_parse_failure_share(limit);
        self
    }

    /// Also write every episode's trajectory (one JSON line) to its
    /// [`EpisodeContext::trajectory_path`], for `verify-trace`, `analyze` and the viewer.
    pub fn keep_trajectories(mut self, keep: bool) -> Self {
        self.keep_trajectories = keep;
        self
    }

    fn game(&self, layout: &str) -> Result<&SweepGame, EpisodeError> {
        self.games.get(layout).ok_or_else(|| EpisodeError::Failed(format!("layout {layout} is not part of this sweep")))
    }

    /// Checks a spec in every seat of every layout (prompt templates included).
    pub fn check_seats(&self, spec: &str) -> Result<(), EpisodeError> {
        let mut names: Vec<&String> = self.games.keys().collect();
        names.sort();
        for name in names {
            on_game!(&self.games[name].game, |g| {
                for seat in 0..g.num_players() {
                    self.factory.check(spec, &**g, seat).map_err(|e| EpisodeError::Failed(e.to_string()))?;
                }
            });
        }
        Ok(())
    }

    /// The settings of the sweep's first game (by name) that has settings of its own: the
    /// key headers record them under, the settings and the game's ProAgent prompt family.
    fn game_settings(&self) -> Option<(&'static str, serde_json::Value, Option<Family>)> {
        let mut names: Vec<&String> = self.games.keys().collect();
        names.sort();
        names.into_iter().find_map(|n| {
            let game = &self.games[n].game;
            let (key, env) = game.header_settings()?;
            Some((key, env, on_game!(game, |g| g.proagent_hooks().map(|h| h.family()))))
        })
    }

    /// The settings of a spec as records keep them, and the key fingerprint (their sha256).
    fn describe(&self, spec: &str) -> (String, serde_json::Value) {
        let spec = spec.trim();
        let mut known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(d) = known.get(spec) {
            return d.clone();
        }
        let prompts_sha = |s: &ProAgentSeat, family: Family| {
            let hashes = PromptLibrary::load_or_embedded_family(s.settings.prompts.as_deref(), family)
                .map(|l| l.hashes())
                .unwrap_or_default();
            // One hash over every template's sha256 (the transcripts list them one by one).
            sha256_hex(serde_json::to_string(&hashes).unwrap_or_default().as_bytes())
        };
        let settings = match self.seats.get(spec) {
            Some(p) => {
                let mut v = serde_json::json!({
                    "code": CODE_VERSION,
                    "model": p.seat.model,
                    "settings": p.seat.settings,
                    "prompts_sha256": prompts_sha(&p.seat, Family::Classic),
                    "server": p.server,
                });
                // Only sweeps with a game that has settings (V2) add this, so classic sweeps
                // keep their keys.
                if let Some((key, env, family)) = self.game_settings() {
                    let family = family.unwrap_or(Family::Classic);
                    v[key] = serde_json::json!({ "prompts_sha256": prompts_sha(&p.seat, family), "env": env });
                }
                v
            }
            None if is_llmco(spec) => {
                let seat = self
                    .llmco
                    .get(spec)
                    .cloned()
                    .or_else(|| LlmcoSeat::from_spec(spec, &proagent_llm::ModelSpec::new("scripted")).ok());
                match seat {
                    Some(s) => {
                        let hashes =
                            PromptLibrary::load_or_embedded_family(s.settings.prompts.as_deref(), Family::Llmco)
                                .map(|l| l.hashes())
                                .unwrap_or_default();
                        let mut v = serde_json::json!({
                            "code": CODE_VERSION,
                            "agent": "llmco",
                            "model": s.model,
                            "settings": s.settings,
                            "prompts_sha256": sha256_hex(serde_json::to_string(&hashes).unwrap_or_default().as_bytes()),
                        });
                        // Only a served (or replayed) model has an identity; the stand-in's
                        // sweeps keep their keys.
                        if let Some(server) = self.llmco_servers.get(spec).filter(|v| !v.is_null()) {
                            v["server"] = server.clone();
                        }
                        v
                    }
                    None => serde_json::json!({"code": CODE_VERSION}),
                }
            }
            None => match BcSpec::parse(spec) {
                Some(BcSpec::File(path)) => {
                    let sha = proagent_core::limits::read_file(
                        &path,
                        proagent_core::limits::MAX_WEIGHTS_BYTES,
                        "BC weights files",
                    )
                    .map(|b| sha256_hex(&b))
                    .unwrap_or_else(|e| format!("unreadable: {e}"));
                    serde_json::json!({"code": CODE_VERSION, "file": path.display().to_string(), "sha256": sha})
                }
                _ => serde_json::json!({"code": CODE_VERSION}),
            },
        };
        // The key hashes what plays, not where it was served from or how patiently.
        let mut keyed = settings.clone();
        if let Some(m) = keyed.get_mut("model").and_then(|m| m.as_object_mut()) {
            m.retain(|k, _| matches!(k.as_str(), "model" | "temperature" | "top_p" | "max_tokens"));
        }
        if let Some(s) = keyed.get_mut("settings").and_then(|s| s.as_object_mut()) {
            s.remove("prompts");
        }
        let d = (sha256_hex(keyed.to_string().as_bytes()), settings);
        known.insert(spec.to_string(), d.clone());
        d
    }

    /// Plays one episode of `game` (its horizon set to the episode's).
    async fn run_game<G: Playable>(
        &self,
        game: Arc<G>,
        layout: &SweepGame,
        spec: &EpisodeSpec,
        ctx: &EpisodeContext,
    ) -> Result<EpisodeOutcome, EpisodeError> {
        let seat = (spec.seat as usize).min(game.num_players().saturating_sub(1));
        let run = Run::new(game, &spec.agent, &spec.partner, seat, self.factory.clone())
            .with_layout(&layout.spec, layout.file.clone());
        let target = TranscriptTarget {
            path: ctx.transcript_path.clone(),
            options: WriterOptions { scrubber: self.scrubber.clone(), wall_clock: true },
            partial_until_done: true,
        };
        let played = match run.play(spec.seed, Some(&target), EpisodeOptions::default()).await {
            Ok(p) => p,
            Err(e @ PlayFailure::Failed { .. }) if !e.stops_run() => return Err(EpisodeError::Failed(e.to_string())),
            Err(e @ PlayFailure::Failed { .. }) => return Err(EpisodeError::Fatal(e.to_string())),
            Err(PlayFailure::Setup(m)) => return Err(EpisodeError::Failed(m)),
        };
        let r = &played.result;
        if self.keep_trajectories {
            write_json_line(&r.game.trajectory_json(r), &ctx.trajectory_path)?;
        }
        let llm = r.llm_total();
        Ok(EpisodeOutcome {
            score: r.score as f64,
            deliveries: r.game.deliveries(r),
            steps: r.steps.len() as u32,
            llm_calls: llm.calls,
            parse_failures: llm.parse_failures,
            prompt_tokens: llm.prompt_tokens,
            completion_tokens: llm.completion_tokens,
            reasoning_tokens: llm.reasoning_tokens,
            cached_tokens: llm.cached_tokens,
            llm_wall_s: llm.wait_us as f64 / 1e6,
            metrics: played.summary,
            teamwork: played.teamwork.totals,
            transcript: played.transcript,
            held_wait_max: game_held_wait(r, seat),
        })
    }
}

/// The agent's longest held wait in `r` (the game measures it, or not).
fn game_held_wait<G: Playable>(r: &proagent_core::episode::EpisodeResult<G>, seat: usize) -> Option<u32> {
    r.game.held_wait_max(r, seat)
}

/// Writes one JSON line to `path` under a temporary name first, so an interrupted write
/// never leaves a file that looks complete.
fn write_json_line(v: &serde_json::Value, path: &std::path::Path) -> Result<(), EpisodeError> {
    let fail = |e: std::io::Error| EpisodeError::Failed(format!("writing the trajectory {}: {e}", path.display()));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let mut tmp = path.as_os_str().to_os_string();
    tmp.push(".partial");
    std::fs::write(&tmp, format!("{v}\n")).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(fail)
}

#[async_trait]
impl EpisodeRunner for PlayRunner {
    fn name(&self) -> &str {
        "play"
    }

    fn config_fingerprint(&self, spec: &str) -> String {
        self.describe(spec).0
    }

    fn seat_settings(&self, spec: &str) -> serde_json::Value {
        self.describe(spec).1
    }

    fn check_spec(&self, spec: &str) -> Result<(), EpisodeError> {
        self.check_seats(spec)
    }

    async fn run(&self, spec: &EpisodeSpec, ctx: &EpisodeContext) -> Result<EpisodeOutcome, EpisodeError> {
        let layout = self.game(&spec.layout)?;
        let game = layout.game.with_horizon(spec.horizon);
        on_game!(game, |g| self.run_game(g, layout, spec, ctx).await)
    }
}
