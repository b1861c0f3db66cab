//! The episode runner of real sweeps: seats built by [`crate::runner::seats`],
//! episodes played by [`crate::runner::play_seated`], and for every episode
//! with a ProAgent seat a transcript in the format of `proagent play` (so
//! `proagent replay` re-runs it), written as the episode is played.
//!
//! An episode whose model failed (more failed calls than
//! [`ProAgentSeats::max_llm_failures`] allows) is an [`EpisodeError::Failed`]: not
//! recorded, retried by the next run; its transcript stays under the `.partial` name
//! with a footer saying why. A model that refuses the configuration (wrong key,
//! unknown model, ...) is an [`EpisodeError::Fatal`], which stops the sweep.
//!
//! On request it also writes every episode's trajectory (`eval --keep-trajectories`).
//!
//! Every seat's key fingerprint covers what decides its play: the code version
//! ([`CODE_VERSION`]) for all, plus a ProAgent's model, sampling, switches, prompt
//! texts and server identity, or a `bc:PATH` file's sha256.
//!
//! Layouts named `v2:NAME` are OvercookedV2 kitchens, played through
//! [`crate::runner::v2`] with the sweep's V2 switches; when a sweep has any, a ProAgent
//! seat's fingerprint also covers its V2 templates and those switches.

use super::plan::EpisodeSpec;
use super::scheduler::{EpisodeContext, EpisodeError, EpisodeRunner};
use super::store::EpisodeOutcome;
use crate::runner::record::{EpisodeRecorder, PLAY_COMMAND, RunConfig, SeatConfig};
use crate::runner::seats::{SeatFactory, is_proagent};
use crate::runner::v2::{V2RunError, V2SeatFactory, play_seated_v2};
use crate::runner::{CODE_VERSION, EpisodeResult, RunError, play_seated};
use crate::transcript::{Scrubber, WriterOptions};
use async_trait::async_trait;
use proagent_agent::{ModelSettings, ProAgentConfig};
use proagent_analysis::TeamworkTotals;
use proagent_llm::sha256_hex;
use proagent_overcooked::controller::Kitchen;
use proagent_overcooked::env::Layout;
use proagent_partners::bc::BcSpec;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// One ProAgent seat of a sweep: how it is configured, recorded and identified.
#[derive(Clone)]
pub struct ProAgentSeats {
    /// The seat's configuration (its `label` is the seat's name in the sweep).
    pub config: ProAgentConfig,
    /// The model as a transcript header records it.
    pub model: ModelSettings,
    /// Secrets kept out of the transcripts.
    pub scrubber: Scrubber,
    /// How many model calls of an episode may fail after every retry before the
    /// episode fails (`None`: no limit).
    pub max_llm_failures: Option<u64>,
    /// What identifies the model beyond its name (see `runner::models::model_identity`):
    /// part of the key of every episode with this seat.
    pub server: serde_json::Value,
}

/// The OvercookedV2 part of a sweep: its layouts (by report name `v2:NAME`), the switches
/// every V2 episode uses, and the ProAgent seats' configurations with the V2 prompts.
#[derive(Clone)]
pub struct V2Sweep {
    /// Layouts by report name (`v2:NAME`).
    pub layouts: HashMap<String, Arc<proagent_overcooked_v2::env::Layout>>,
    /// The environment switches (`max_steps` is replaced by each episode's horizon).
    pub settings: proagent_overcooked_v2::env::Settings,
    /// ProAgent seats on V2 layouts, by label (prompts from `prompts/v2`).
    pub proagent: HashMap<String, ProAgentSeats>,
}

/// Plays real episodes. ProAgent seats are named by their labels
/// (`agent::config::label`), each with its own configuration; other specs are built as
/// `play` builds them.
pub struct PlayRunner {
    kitchens: HashMap<String, Arc<Kitchen>>,
    factory: SeatFactory,
    proagent: HashMap<String, ProAgentSeats>,
    /// Per spec: the fingerprint that goes into the key, and the settings records keep.
    known: Mutex<HashMap<String, (String, serde_json::Value)>>,
    keep_trajectories: bool,
    v2: Option<(V2Sweep, V2SeatFactory)>,
}

impl PlayRunner {
    /// A runner for these layouts (by name) and ProAgent seats (by label); one kitchen
    /// (motion tables etc.) per layout is shared by all its episodes.
    pub fn new(layouts: &HashMap<String, Arc<Layout>>, proagent: HashMap<String, ProAgentSeats>) -> PlayRunner {
        let kitchens = layouts.iter().map(|(name, l)| (name.clone(), Arc::new(Kitchen::new(Arc::clone(l))))).collect();
        let limit = proagent
            .values()
            .map(|p| p.max_llm_failures)
            .next()
            .unwrap_or(Some(crate::runner::DEFAULT_MAX_LLM_FAILURES));
        let mut factory = SeatFactory::new(None).with_max_llm_failures(limit);
        for (label, seat) in &proagent {
            factory = factory.with_seat(label, seat.config.clone());
        }
        PlayRunner {
            kitchens,
            factory,
            proagent,
            known: Mutex::new(HashMap::new()),
            keep_trajectories: false,
            v2: None,
        }
    }

    /// Also write every episode's trajectory (reference-trace schema, one line) to its
    /// [`EpisodeContext::trajectory_path`], for `verify-trace`, `analyze` and the viewer.
    pub fn keep_trajectories(mut self, keep: bool) -> Self {
        self.keep_trajectories = keep;
        self
    }

    /// Adds OvercookedV2 layouts (sweeps without them keep their keys).
    pub fn with_v2(mut self, v2: V2Sweep) -> PlayRunner {
        let limit = v2
            .proagent
            .values()
            .map(|p| p.max_llm_failures)
            .next()
            .unwrap_or(Some(crate::runner::DEFAULT_MAX_LLM_FAILURES));
        let mut factory = V2SeatFactory::new(None).with_max_llm_failures(limit);
        for (label, seat) in &v2.proagent {
            factory = factory.with_seat(label, seat.config.clone());
        }
        self.v2 = Some((v2, factory));
        self
    }

    /// One V2 episode: the agent in `spec.seat` (clamped to the layout's players), the
    /// partner spec in every other seat.
    async fn run_v2(&self, spec: &EpisodeSpec, ctx: &EpisodeContext) -> Result<EpisodeOutcome, EpisodeError> {
        let missing = || EpisodeError::Failed(format!("layout {} is not part of this sweep", spec.layout));
        let (v2, factory) = self.v2.as_ref().ok_or_else(missing)?;
        let layout = v2.layouts.get(&spec.layout).ok_or_else(missing)?;
        let settings = proagent_overcooked_v2::env::Settings { max_steps: spec.horizon, ..v2.settings.clone() };
        let n = layout.num_agents();
        let seat = (spec.seat as usize).min(n.saturating_sub(1));
        let specs: Vec<String> =
            (0..n).map(|i| if i == seat { spec.agent.clone() } else { spec.partner.clone() }).collect();
        let fail = |e: crate::transcript::TranscriptError| {
            EpisodeError::Failed(format!("writing the transcript {}: {e}", ctx.transcript_path.display()))
        };
        let main = v2.proagent.get(spec.agent.trim()).or_else(|| v2.proagent.get(spec.partner.trim()));
        let mut recorder = match main {
            Some(p) if specs.iter().any(|s| is_proagent(s)) => {
                let seat_of = |s: &str| {
                    v2.proagent.get(s.trim()).map(|p| SeatConfig {
                        label: p.config.label.clone().unwrap_or_default(),
                        proagent: p.config.settings.clone(),
                        model: p.model.clone(),
                    })
                };
                // Transcript headers name two seats: the agent's and (every other) partner's.
                let seats = if seat == 0 {
                    [seat_of(&spec.agent), seat_of(&spec.partner)]
                } else {
                    [seat_of(&spec.partner), seat_of(&spec.agent)]
                };
                let run = RunConfig {
                    command: PLAY_COMMAND.into(),
                    layout: spec.layout.clone(),
                    layout_spec: spec.layout.clone(),
                    layout_file: (!proagent_overcooked_v2::env::Layout::builtin_names()
                        .any(|b| format!("v2:{b}") == spec.layout))
                    .then(|| layout.to_text()),
                    agent: spec.agent.clone(),
                    partner: spec.partner.clone(),
                    seat,
                    seed: spec.seed,
                    horizon: spec.horizon,
                    proagent: p.config.settings.clone(),
                    model: p.model.clone(),
                    v2: Some(settings.clone()),
                    seats,
                };
                let header = run.header(p.config.prompt_hashes()).map_err(fail)?;
                let opts = WriterOptions { scrubber: p.scrubber.clone(), wall_clock: true };
                Some(EpisodeRecorder::start_file(ctx.transcript_path.clone(), opts, &header).map_err(fail)?)
            }
            _ => None,
        };
        let r = match play_seated_v2(layout, &settings, factory, &specs, spec.seed, recorder.as_mut(), None).await {
            Ok(r) => r,
            Err(V2RunError::Failed(failed)) => {
                let mut message = failed.to_string();
                if let Some(rec) = recorder {
                    match rec.finish_failed(failed.summary_json(seat)) {
                        Ok(Some(path)) => message.push_str(&format!(" (transcript: {})", path.display())),
                        Ok(None) => {}
                        Err(e) => message.push_str(&format!("; writing the transcript failed too: {e}")),
                    }
                }
                return Err(if failed.abort.stops_run() {
                    EpisodeError::Fatal(message)
                } else {
                    EpisodeError::Failed(message)
                });
            }
            Err(e) => return Err(EpisodeError::Failed(e.to_string())),
        };
        let llm = r.llm_total();
        let teamwork = r.teamwork();
        let mut metrics = r.summary_json(seat);
        metrics["teamwork"] = serde_json::json!(teamwork);
        let mut out = EpisodeOutcome {
            score: f64::from(r.score),
            deliveries: r.correct,
            steps: r.steps.len() as u32,
            llm_calls: llm.calls,
            prompt_tokens: llm.prompt_tokens,
            completion_tokens: llm.completion_tokens,
            llm_wall_s: llm.wait_us as f64 / 1e6,
            metrics,
            teamwork: Some(TeamworkTotals {
                deliveries: r.correct as usize,
                constructive: teamwork.constructive_total(),
                non_constructive: teamwork.non_constructive_total(),
            }),
            transcript: None,
        };
        if self.keep_trajectories {
            write_json_line(&r.to_trajectory_json(), &ctx.trajectory_path)?;
        }
        if let Some(rec) = recorder {
            out.transcript = rec.finish(out.metrics.clone()).map_err(fail)?;
        }
        Ok(out)
    }

    fn kitchen(&self, layout: &str) -> Result<&Arc<Kitchen>, EpisodeError> {
        self.kitchens
            .get(layout)
            .ok_or_else(|| EpisodeError::Failed(format!("layout {layout} is not part of this sweep")))
    }

    /// Checks a spec in both seats on every layout (prompt templates included).
    pub fn check_seats(&self, spec: &str) -> Result<(), EpisodeError> {
        let mut names: Vec<&String> = self.kitchens.keys().collect();
        names.sort();
        for name in names {
            for seat in 0..2 {
                self.factory
                    .check(spec, &self.kitchens[name], seat)
                    .map_err(|e| EpisodeError::Failed(e.to_string()))?;
            }
        }
        if let Some((v2, factory)) = &self.v2 {
            let mut names: Vec<&String> = v2.layouts.keys().collect();
            names.sort();
            for name in names {
                let layout = &v2.layouts[name];
                for seat in 0..layout.num_agents() {
                    factory.check(spec, layout, &v2.settings, seat).map_err(|e| EpisodeError::Failed(e.to_string()))?;
                }
            }
        }
        Ok(())
    }

    /// The settings of a spec as records keep them, and the key fingerprint (their sha256).
    fn describe(&self, spec: &str) -> (String, serde_json::Value) {
        let spec = spec.trim();
        let mut known = self.known.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(d) = known.get(spec) {
            return d.clone();
        }
        let settings = match self.proagent.get(spec) {
            Some(p) => {
                let mut v = serde_json::json!({
                    "code": CODE_VERSION,
                    "model": p.model,
                    "settings": p.config.settings,
                    // One hash over every template's sha256 (the transcripts list them one by one).
                    "prompts_sha256": sha256_hex(serde_json::to_string(&p.config.prompts.hashes()).unwrap_or_default().as_bytes()),
                    "server": p.server,
                });
                // Only sweeps with V2 layouts add this, so classic sweeps keep their keys.
                if let Some(q) = self.v2.as_ref().and_then(|(v2, _)| v2.proagent.get(spec).map(|q| (v2, q))) {
                    v["v2"] = serde_json::json!({
                        "prompts_sha256": sha256_hex(serde_json::to_string(&q.1.config.prompts.hashes()).unwrap_or_default().as_bytes()),
                        "env": q.0.settings,
                    });
                }
                v
            }
            None => match BcSpec::parse(spec) {
                Some(BcSpec::File(path)) => {
                    let sha =
                        std::fs::read(&path).map(|b| sha256_hex(&b)).unwrap_or_else(|e| format!("unreadable: {e}"));
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

    /// The recorder of an episode whose seats include a ProAgent.
    fn recorder(
        &self,
        spec: &EpisodeSpec,
        k: &Kitchen,
        ctx: &EpisodeContext,
    ) -> Result<Option<EpisodeRecorder>, EpisodeError> {
        let seat = spec.seat.min(1) as usize;
        let by_player = if seat == 0 { [&spec.agent, &spec.partner] } else { [&spec.partner, &spec.agent] };
        let seats: [Option<&ProAgentSeats>; 2] = by_player.map(|s| self.proagent.get(s.trim()));
        let Some(main) = seats[seat].or(seats[1 - seat]) else { return Ok(None) };
        let run = RunConfig {
            command: PLAY_COMMAND.into(),
            layout: k.layout.name.clone(),
            layout_spec: spec.layout.clone(),
            layout_file: None,
            agent: spec.agent.clone(),
            partner: spec.partner.clone(),
            seat,
            seed: spec.seed,
            horizon: spec.horizon,
            proagent: main.config.settings.clone(),
            model: main.model.clone(),
            v2: None,
            seats: seats.map(|s| {
                s.map(|p| SeatConfig {
                    label: p.config.label.clone().unwrap_or_default(),
                    proagent: p.config.settings.clone(),
                    model: p.model.clone(),
                })
            }),
        };
        let fail = |e: crate::transcript::TranscriptError| {
            EpisodeError::Failed(format!("writing the transcript {}: {e}", ctx.transcript_path.display()))
        };
        let header = run.header(main.config.prompt_hashes()).map_err(fail)?;
        let opts = WriterOptions { scrubber: main.scrubber.clone(), wall_clock: true };
        EpisodeRecorder::start_file(ctx.transcript_path.clone(), opts, &header).map(Some).map_err(fail)
    }
}

/// Writes the trajectory under a temporary name first, so an interrupted write never
/// leaves a file that looks complete.
fn write_trajectory(r: &EpisodeResult, path: &std::path::Path) -> Result<(), EpisodeError> {
    write_json_line(&r.to_trajectory_json(), path)
}

/// Writes one JSON line to `path` under a temporary name first.
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

/// What the sweep records of a played episode.
fn outcome(r: &EpisodeResult, seat: usize) -> EpisodeOutcome {
    let llm = r.llm[0].plus(r.llm[1]);
    let teamwork = r.teamwork();
    EpisodeOutcome {
        score: r.score as f64,
        deliveries: r.deliveries,
        steps: r.steps.len() as u32,
        llm_calls: llm.calls,
        prompt_tokens: llm.prompt_tokens,
        completion_tokens: llm.completion_tokens,
        llm_wall_s: llm.wait_us as f64 / 1e6,
        metrics: r.summary_with(seat, &teamwork),
        teamwork: teamwork.as_ref().ok().map(TeamworkTotals::from),
        transcript: None,
    }
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
        if spec.layout.starts_with("v2:") {
            return self.run_v2(spec, ctx).await;
        }
        let k = self.kitchen(&spec.layout)?;
        let seat = spec.seat.min(1) as usize;
        let specs = if seat == 0 { [&*spec.agent, &*spec.partner] } else { [&*spec.partner, &*spec.agent] };
        let mut recorder = self.recorder(spec, k, ctx)?;
        let played = play_seated(k, &self.factory, specs, spec.seed, spec.horizon, recorder.as_mut(), None).await;
        let transcript_error = |e: crate::transcript::TranscriptError| {
            format!("writing the transcript {}: {e}", ctx.transcript_path.display())
        };
        let r = match played {
            Ok(r) => r,
            Err(RunError::Failed(failed)) => {
                let mut message = failed.to_string();
                if let Some(rec) = recorder {
                    match rec.finish_failed(failed.summary_json(seat)) {
                        Ok(Some(path)) => message.push_str(&format!(" (transcript: {})", path.display())),
                        Ok(None) => {}
                        Err(e) => message.push_str(&format!("; {}", transcript_error(e))),
                    }
                }
                return Err(if failed.abort.stops_run() {
                    EpisodeError::Fatal(message)
                } else {
                    EpisodeError::Failed(message)
                });
            }
            Err(e) => return Err(EpisodeError::Failed(e.to_string())),
        };
        if self.keep_trajectories {
            write_trajectory(&r, &ctx.trajectory_path)?;
        }
        let mut out = outcome(&r, seat);
        if let Some(rec) = recorder {
            out.transcript = rec.finish(out.metrics.clone()).map_err(|e| EpisodeError::Failed(transcript_error(e)))?;
        }
        Ok(out)
    }
}
