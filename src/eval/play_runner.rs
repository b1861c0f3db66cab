//! The episode runner of real sweeps: seats built by [`crate::runner::seats`],
//! episodes played by [`crate::runner::play_seated`], and for every episode
//! with a `proagent` seat a transcript in the format of `proagent play` (so
//! `proagent replay` re-runs it), written as the episode is played. Layouts named
//! `v2:NAME` are OvercookedV2 kitchens, played through [`crate::runner::v2`] with the
//! sweep's V2 switches.

use super::plan::EpisodeSpec;
use super::scheduler::{EpisodeContext, EpisodeError, EpisodeRunner};
use super::store::EpisodeOutcome;
use crate::agent::{ModelSettings, ProAgentConfig, config};
use crate::analysis::TeamworkTotals;
use crate::controller::Kitchen;
use crate::env::Layout;
use crate::runner::record::{EpisodeRecorder, PLAY_COMMAND, RunConfig};
use crate::runner::seats::{SeatFactory, is_proagent};
use crate::runner::v2::{V2SeatFactory, play_seated_v2};
use crate::runner::{EpisodeResult, RunError, play_seated};
use crate::transcript::{Scrubber, WriterOptions};
use async_trait::async_trait;
use std::collections::HashMap;
use std::sync::Arc;

/// How the sweep's `proagent` seats are configured and recorded.
#[derive(Clone)]
pub struct ProAgentSeats {
    /// The configuration every `proagent` seat gets.
    pub config: ProAgentConfig,
    /// The model as a transcript header records it.
    pub model: ModelSettings,
    /// Secrets kept out of the transcripts.
    pub scrubber: Scrubber,
}

/// The OvercookedV2 part of a sweep: its layouts (by report name `v2:NAME`), the switches
/// every V2 episode uses, and the `proagent` seats' configuration with the V2 prompts.
#[derive(Clone)]
pub struct V2Sweep {
    /// Layouts by report name (`v2:NAME`).
    pub layouts: HashMap<String, Arc<crate::env_v2::Layout>>,
    /// The environment switches (`max_steps` is replaced by each episode's horizon).
    pub settings: crate::env_v2::Settings,
    /// `proagent` seats on V2 layouts (prompts from `prompts/v2`).
    pub proagent: Option<ProAgentSeats>,
}

/// Plays real episodes; `proagent` seats use the sweep's ProAgent options.
pub struct PlayRunner {
    kitchens: HashMap<String, Arc<Kitchen>>,
    factory: SeatFactory,
    proagent: Option<ProAgentSeats>,
    fingerprint: String,
    v2: Option<(V2Sweep, V2SeatFactory)>,
}

impl PlayRunner {
    /// A runner for these layouts (by name); one kitchen (motion tables etc.) per layout
    /// is shared by all its episodes.
    pub fn new(layouts: &HashMap<String, Arc<Layout>>, proagent: Option<ProAgentSeats>) -> PlayRunner {
        let kitchens = layouts.iter().map(|(name, l)| (name.clone(), Arc::new(Kitchen::new(Arc::clone(l))))).collect();
        let fingerprint = proagent
            .as_ref()
            .map(|p| config::fingerprint(&p.config.settings, &p.model, &p.config.prompts))
            .unwrap_or_default();
        let factory = SeatFactory::new(proagent.as_ref().map(|p| p.config.clone()));
        PlayRunner { kitchens, factory, proagent, fingerprint, v2: None }
    }

    /// Adds OvercookedV2 layouts. The `proagent` fingerprint then also covers the V2
    /// templates and switches (sweeps without V2 layouts keep their keys).
    pub fn with_v2(mut self, v2: V2Sweep) -> PlayRunner {
        if let Some(p) = &v2.proagent {
            let v2_fp = config::fingerprint(&p.config.settings, &p.model, &p.config.prompts);
            let settings = serde_json::to_string(&v2.settings).unwrap_or_default();
            let joined = format!("{}|{v2_fp}|{settings}", self.fingerprint);
            self.fingerprint = crate::llm::sha256_hex(joined.as_bytes());
        }
        let factory = V2SeatFactory::new(v2.proagent.as_ref().map(|p| p.config.clone()));
        self.v2 = Some((v2, factory));
        self
    }

    /// One V2 episode.
    async fn run_v2(&self, spec: &EpisodeSpec, ctx: &EpisodeContext) -> Result<EpisodeOutcome, EpisodeError> {
        let Some((v2, factory)) = &self.v2 else {
            return Err(EpisodeError(format!("layout {} is not part of this sweep", spec.layout)));
        };
        let layout = v2
            .layouts
            .get(&spec.layout)
            .ok_or_else(|| EpisodeError(format!("layout {} is not part of this sweep", spec.layout)))?;
        let settings = crate::env_v2::Settings { max_steps: spec.horizon, ..v2.settings.clone() };
        let n = layout.num_agents();
        let seat = (spec.seat as usize).min(n - 1);
        let specs: Vec<String> =
            (0..n).map(|i| if i == seat { spec.agent.clone() } else { spec.partner.clone() }).collect();
        let mut recorder = match &v2.proagent {
            Some(p) if specs.iter().any(|s| is_proagent(s)) => {
                let run = RunConfig {
                    command: PLAY_COMMAND.into(),
                    layout: spec.layout.clone(),
                    layout_spec: spec.layout.clone(),
                    layout_file: (!crate::env_v2::Layout::builtin_names().any(|b| format!("v2:{b}") == spec.layout))
                        .then(|| layout.to_text()),
                    agent: spec.agent.clone(),
                    partner: spec.partner.clone(),
                    seat,
                    seed: spec.seed,
                    horizon: spec.horizon,
                    proagent: p.config.settings.clone(),
                    model: p.model.clone(),
                    v2: Some(settings.clone()),
                };
                let fail = |e: crate::transcript::TranscriptError| {
                    EpisodeError(format!("writing the transcript {}: {e}", ctx.transcript_path.display()))
                };
                let header = run.header(p.config.prompts.hashes()).map_err(fail)?;
                let opts = WriterOptions { scrubber: p.scrubber.clone(), wall_clock: true };
                Some(EpisodeRecorder::start_file(ctx.transcript_path.clone(), opts, &header).map_err(fail)?)
            }
            _ => None,
        };
        let r = play_seated_v2(layout, &settings, factory, &specs, spec.seed, recorder.as_mut(), None)
            .await
            .map_err(|e| EpisodeError(e.to_string()))?;
        let llm = r.llm_total();
        let metrics = r.summary_json(seat);
        let mut out = EpisodeOutcome {
            score: f64::from(r.score),
            deliveries: r.correct,
            steps: r.steps.len() as u32,
            llm_calls: llm.calls,
            prompt_tokens: llm.prompt_tokens,
            completion_tokens: llm.completion_tokens,
            llm_wall_s: llm.wait_us as f64 / 1e6,
            metrics,
            teamwork: None,
            transcript: None,
        };
        if let Some(rec) = recorder {
            out.transcript = rec
                .finish(out.metrics.clone())
                .map_err(|e| EpisodeError(format!("writing the transcript {}: {e}", ctx.transcript_path.display())))?;
        }
        Ok(out)
    }

    fn kitchen(&self, layout: &str) -> Result<&Arc<Kitchen>, EpisodeError> {
        self.kitchens.get(layout).ok_or_else(|| EpisodeError(format!("layout {layout} is not part of this sweep")))
    }

    /// Checks a spec in both seats on every layout (prompt templates included).
    pub fn check_seats(&self, spec: &str) -> Result<(), EpisodeError> {
        let mut names: Vec<&String> = self.kitchens.keys().collect();
        names.sort();
        for name in names {
            for seat in 0..2 {
                self.factory.check(spec, &self.kitchens[name], seat).map_err(|e| EpisodeError(e.to_string()))?;
            }
        }
        if let Some((v2, factory)) = &self.v2 {
            let mut names: Vec<&String> = v2.layouts.keys().collect();
            names.sort();
            for name in names {
                let layout = &v2.layouts[name];
                for seat in 0..layout.num_agents() {
                    factory.check(spec, layout, &v2.settings, seat).map_err(|e| EpisodeError(e.to_string()))?;
                }
            }
        }
        Ok(())
    }

    /// The recorder of an episode whose seats include a ProAgent.
    fn recorder(
        &self,
        spec: &EpisodeSpec,
        k: &Kitchen,
        ctx: &EpisodeContext,
    ) -> Result<Option<EpisodeRecorder>, EpisodeError> {
        let Some(p) = &self.proagent else { return Ok(None) };
        if !is_proagent(&spec.agent) && !is_proagent(&spec.partner) {
            return Ok(None);
        }
        let run = RunConfig {
            command: PLAY_COMMAND.into(),
            layout: k.layout.name.clone(),
            layout_spec: spec.layout.clone(),
            layout_file: None,
            agent: spec.agent.clone(),
            partner: spec.partner.clone(),
            seat: spec.seat.min(1) as usize,
            seed: spec.seed,
            horizon: spec.horizon,
            proagent: p.config.settings.clone(),
            model: p.model.clone(),
            v2: None,
        };
        let fail = |e: crate::transcript::TranscriptError| {
            EpisodeError(format!("writing the transcript {}: {e}", ctx.transcript_path.display()))
        };
        let header = run.header(p.config.prompts.hashes()).map_err(fail)?;
        let opts = WriterOptions { scrubber: p.scrubber.clone(), wall_clock: true };
        EpisodeRecorder::start_file(ctx.transcript_path.clone(), opts, &header).map(Some).map_err(fail)
    }
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
        if is_proagent(spec) { self.fingerprint.clone() } else { String::new() }
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
        let r = play_seated(k, &self.factory, specs, spec.seed, spec.horizon, recorder.as_mut(), None).await;
        let r = r.map_err(|e: RunError| EpisodeError(e.to_string()))?;
        let mut out = outcome(&r, seat);
        if let Some(rec) = recorder {
            out.transcript = rec
                .finish(out.metrics.clone())
                .map_err(|e| EpisodeError(format!("writing the transcript {}: {e}", ctx.transcript_path.display())))?;
        }
        Ok(out)
    }
}
