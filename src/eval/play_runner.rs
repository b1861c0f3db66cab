//! The episode runner of real sweeps: seats built by [`crate::runner::seats`],
//! episodes played by [`crate::runner::play_seated`], and for every episode
//! with a `proagent` seat a transcript in the format of `proagent play` (so
//! `proagent replay` re-runs it), written as the episode is played.

use super::plan::EpisodeSpec;
use super::scheduler::{EpisodeContext, EpisodeError, EpisodeRunner};
use super::store::EpisodeOutcome;
use crate::agent::{ModelSettings, ProAgentConfig, config};
use crate::analysis::TeamworkTotals;
use crate::controller::Kitchen;
use crate::env::Layout;
use crate::runner::record::{EpisodeRecorder, PLAY_COMMAND, RunConfig};
use crate::runner::seats::{SeatFactory, is_proagent};
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

/// Plays real episodes; `proagent` seats use the sweep's ProAgent options.
pub struct PlayRunner {
    kitchens: HashMap<String, Arc<Kitchen>>,
    factory: SeatFactory,
    proagent: Option<ProAgentSeats>,
    fingerprint: String,
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
        PlayRunner { kitchens, factory, proagent, fingerprint }
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
        };
        let fail = |e: crate::transcript::TranscriptError| {
            EpisodeError(format!("writing the transcript {}: {e}", ctx.transcript_path.display()))
        };
        let header = run.header(p.config.prompt_hashes()).map_err(fail)?;
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
