//! The ProAgent loop, written once for every game: [`ProAgent<G>`] over a grounding `G`
//! ([`Grounding`]) that says what the loop's parts mean on that game.
//!
//! Each step: perceive (the grounding's scene); observe the teammate (belief correction);
//! if there is no current skill or it has finished or failed, plan (one model call),
//! validate the skill's preconditions, on failure let the verificator explain and re-plan
//! (up to `max_replans` times, then `wait(1)`); then the controller turns the skill into
//! this step's action. Every part can be switched off for ablations and every part counts
//! what it does ([`AgentMetrics`]). Every model exchange is kept in an in-memory log
//! ([`ProAgent::exchanges`]) for transcripts, and appended to the configured sink.
//!
//! The paper preset ([`crate::preset::Preset::Paper`]) runs the published agent's step
//! instead (`step_paper`): the running skill is re-validated at every step, the explainer
//! makes one unchecked call, history goes only into re-plans, unreadable replies wait one
//! step; `docs/agent.md` lists every difference. It runs on every game whose grounding
//! has a paper-preset library ([`crate::prompts::Family::template_dir`]); on the others
//! the seat is refused when it is configured ([`check_prompts`]).
//!
//! A model call that fails after every retry falls back to `wait(1)` and is counted; a
//! model that cannot serve the run at all ([`LlmError::is_fatal`]) stops the agent with
//! [`AgentError::ModelUnusable`] at once (its exchange still reaches the sink). Only
//! planner calls are decisions in the episode's unread share; the verificator's and the
//! explainer's calls are helpers (see [`crate::call`]).

use crate::belief::{BeliefMode, BeliefTracker};
use crate::call::{self, CallFailure, Calls, Purpose, Reply};
use crate::config::ProAgentConfig;
use crate::grounding::{AgentSkill, Control, Grounding};
use crate::log::AgentMetrics;
use crate::memory::{EntryOutcome, Memory, MemoryEntry};
use crate::paper;
use crate::planner::{self, PlanReply, SceneParts};
use crate::preset::{Preset, ReplanCap};
use crate::prompts::PromptError;
use crate::verificator::{self, VerificatorMode};
use async_trait::async_trait;
use proagent_core::{
    AgentError, BeliefCorrection, Game, LlmUsage, Observation, Seat, SeatStatus, SkillEvent, SkillOutcome,
};
use proagent_llm::record::Exchange;
use proagent_llm::{ChatRequest, LlmError, Message};
use std::sync::Arc;
use std::time::Duration;

type Action<G> = <<G as Grounding>::Game as Game>::Action;

/// Per-episode state.
struct Episode<G: Grounding> {
    /// The grounding's own per-episode state (controller, reach, recall, ...).
    g: G::Episode,
    me: usize,
    /// Every other player, in order; the first is the teammate the planner predicts.
    mates: Vec<usize>,
    /// The template folder of the preset's knowledge library ("" when the game has none).
    dir: &'static str,
    memory: Memory<G::Skill>,
    belief: BeliefTracker<G::Skill>,
    /// Rendered system messages (planner, verificator or explainer), or why they could not be rendered.
    system: Result<(String, String), PromptError>,
    /// The scene's wait signature when the current wait started.
    wait_sig: Option<u64>,
    /// The paper preset's planner dialogue (unused by the default preset).
    dialogue: paper::Dialogue,
}

impl<G: Grounding> Episode<G> {
    fn mate(&self) -> Option<usize> {
        self.mates.first().copied()
    }
}

/// The ProAgent agent on the game of grounding `G`.
pub struct ProAgent<G: Grounding> {
    grounding: G,
    cfg: ProAgentConfig,
    ep: Option<Episode<G>>,
    calls: Calls,
    metrics: AgentMetrics,
    events: Vec<SkillEvent>,
    /// Belief corrections not yet handed to the runner.
    belief_events: Vec<BeliefCorrection>,
}

/// Which part of the agent sent a request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum CallKind {
    Planner,
    Verificator,
    /// The paper preset's one-call verificator (counted with the verificator's calls).
    Explainer,
}

impl call::CallKind for CallKind {
    /// The exchange kind recorded in transcripts.
    fn name(self) -> &'static str {
        match self {
            CallKind::Planner => "planner",
            CallKind::Verificator => "verificator",
            CallKind::Explainer => "explainer",
        }
    }

    /// Only the planner chooses skills; the verificator and the explainer say why a
    /// skill was rejected.
    fn purpose(self) -> Purpose {
        match self {
            CallKind::Planner => Purpose::Decision,
            CallKind::Verificator | CallKind::Explainer => Purpose::Helper,
        }
    }
}

/// A skill the paper preset's step has planned but not started yet.
struct Candidate<S> {
    skill: S,
    reply: Option<PlanReply<S>>,
    scene: String,
    outcome: EntryOutcome,
}

/// The skill the paper preset's validation looks at: the running one, or a fresh plan.
enum Current<S> {
    Running(S),
    Fresh(Candidate<S>),
}

/// The name a belief mode is recorded under.
fn mode_name(mode: BeliefMode) -> &'static str {
    match mode {
        BeliefMode::Replace => "replace",
        BeliefMode::Annotate => "annotate",
        BeliefMode::Off => "off",
    }
}

/// The planner's and the verificator's (or, in the paper preset, the explainer's) system
/// messages for the episode's layout and seat, from template folder `dir`.
pub(crate) fn render_systems<G: Grounding>(
    g: &G,
    ep: &G::Episode,
    cfg: &ProAgentConfig,
    dir: &str,
    me: usize,
) -> Result<(String, String), PromptError> {
    let ctx = g.knowledge(ep, cfg, dir, me);
    let checker = match cfg.settings.preset {
        Preset::Default => verificator::system_message(&cfg.prompts, dir, &ctx)?,
        Preset::Paper => paper::explainer_system(&cfg.prompts, dir, &ctx)?,
    };
    Ok((cfg.prompts.render(&format!("{dir}/system.j2"), &ctx)?, checker))
}

/// Renders every template a ProAgent with `cfg` uses on `game` in `seat` (with sample
/// scenes, memories, beliefs and every sample skill of the grounding), so bad prompts —
/// or a preset the game has no templates for — are reported before a run.
pub fn check_prompts<G: Grounding>(
    g: &G,
    cfg: &ProAgentConfig,
    game: &G::Game,
    seat: usize,
) -> Result<(), PromptError> {
    let preset = cfg.settings.preset;
    let dir = G::FAMILY.template_dir(preset).ok_or_else(|| G::FAMILY.no_preset(preset))?;
    let n = game.num_players();
    let me = seat.min(n.saturating_sub(1));
    let mut ep = g.begin(game, me, 0, cfg);
    render_systems(g, &ep, cfg, dir, me)?;
    let mut chance = proagent_core::episode::env_chance(0);
    let state = game.initial_state(&mut chance);
    let obs = Observation::new(game, game.view(&state, me), me, 0);
    let scene = {
        let s = g.perceive(&mut ep, &obs);
        g.scene_text(&ep, &s)
    };
    let lib = &cfg.prompts;
    let mates: Vec<usize> = (0..n).filter(|&i| i != me).collect();
    let mate = mates.first().copied();
    let samples = g.sample_skills(&ep);
    let text = |s: G::Skill| g.skill_text(&ep, s);
    let (Some(&a), Some(&b)) = (samples.first(), samples.get(1)) else { return Ok(()) };
    let mut tracker = BeliefTracker::new(2);
    tracker.predict(0, a);
    tracker.observe(1, Some(b));
    if preset == Preset::Paper {
        for mode in [BeliefMode::Replace, BeliefMode::Annotate] {
            let belief = paper::belief_message(lib, dir, mode, true, &tracker, me, mate, &text)?;
            for replan in [false, true] {
                paper::scene_message(lib, dir, me, &belief, &scene, replan, cfg.settings.analysis)?;
            }
        }
        for s in samples {
            paper::success_message(lib, dir, me, &text(s))?;
            paper::explain_message(lib, dir, me, &scene, &text(s))?;
        }
        return Ok(());
    }
    let mut memory = Memory::new(String::new(), 4);
    for mode in [BeliefMode::Replace, BeliefMode::Annotate] {
        let belief = planner::belief_block(lib, dir, mode, &tracker, me, mate, 2, &text)?;
        memory.push(MemoryEntry {
            t: 0,
            scene: scene.clone(),
            analysis: Some("a".into()),
            predicted: Some(a),
            real: Some(b),
            real_t: Some(1),
            skill: a,
            outcome: EntryOutcome::Succeeded,
        });
        let parts = SceneParts {
            memory: &memory,
            k: 2,
            mode,
            belief: &belief,
            scene: &scene,
            me,
            mates: &mates,
            level: cfg.level(),
        };
        planner::scene_message(lib, dir, &parts, &text)?;
    }
    planner::replan_message(lib, dir, me, Some(&text(a)), "r", 1, 3)?;
    planner::replan_message(lib, dir, me, None, "r", 1, 3)?;
    for s in samples {
        verificator::check_message(lib, dir, me, &scene, &text(s), &g.conditions(&ep, s))?;
        verificator::double_check_message(lib, dir, me, &text(s))?;
    }
    Ok(())
}

impl<G: Grounding + Default> ProAgent<G> {
    /// A fresh agent with the grounding's default value; the per-episode state is built by
    /// the first `reset` (or the first `act`). `cfg.prompts` must be the grounding's family.
    pub fn new(cfg: ProAgentConfig) -> ProAgent<G> {
        ProAgent::with_grounding(cfg, G::default())
    }

    /// Renders every template this game and seat use ([`check_prompts`]).
    pub fn check_prompts(cfg: &ProAgentConfig, game: &G::Game, seat: usize) -> Result<(), PromptError> {
        check_prompts(&G::default(), cfg, game, seat)
    }
}

impl<G: Grounding> ProAgent<G> {
    /// A fresh agent on `grounding`.
    pub fn with_grounding(cfg: ProAgentConfig, grounding: G) -> ProAgent<G> {
        ProAgent {
            grounding,
            cfg,
            ep: None,
            calls: Calls::default(),
            metrics: AgentMetrics::default(),
            events: Vec::new(),
            belief_events: Vec::new(),
        }
    }

    /// The configuration this agent was built with (model, settings, prompts, sampling).
    pub fn config(&self) -> &ProAgentConfig {
        &self.cfg
    }

    /// This episode's model exchanges, in order (cleared by `reset`).
    pub fn exchanges(&self) -> &[Exchange] {
        self.calls.exchanges.all()
    }

    /// Takes this episode's exchanges out of the agent.
    pub fn drain_exchanges(&mut self) -> Vec<Exchange> {
        self.calls.exchanges.drain(self.cfg.exchange_sink.as_ref())
    }

    /// This episode's counters so far (zeroed by `reset`).
    pub fn agent_metrics(&self) -> &AgentMetrics {
        &self.metrics
    }

    /// Wall time spent waiting for the model this episode (excluded from agent CPU time).
    pub fn llm_wait(&self) -> Duration {
        self.calls.wait()
    }

    /// The trajectory memory of the current episode (oldest first).
    pub fn memory_entries(&self) -> Vec<MemoryEntry<G::Skill>> {
        self.ep.as_ref().map(|e| e.memory.recent(usize::MAX).cloned().collect()).unwrap_or_default()
    }

    /// A skill as this episode's prompts write it.
    fn text(&self, skill: G::Skill) -> String {
        match &self.ep {
            Some(ep) => self.grounding.skill_text(&ep.g, skill),
            None => format!("{skill:?}"),
        }
    }

    fn event(&mut self, t: u32, skill: G::Skill, outcome: SkillOutcome) {
        let Some(ep) = &self.ep else { return };
        let skill = self.grounding.skill_text(&ep.g, skill);
        self.events.push(SkillEvent { t, player: ep.me, skill, outcome });
    }

    /// Sends one request, logs the exchange and counts it.
    async fn call(&mut self, t: u32, kind: CallKind, request: ChatRequest) -> Result<Reply, CallFailure> {
        let m = &mut self.metrics;
        m.llm_calls = m.llm_calls.saturating_add(1);
        match kind {
            CallKind::Planner => m.llm_calls_planner = m.llm_calls_planner.saturating_add(1),
            CallKind::Verificator | CallKind::Explainer => {
                m.llm_calls_verificator = m.llm_calls_verificator.saturating_add(1)
            }
        }
        let log = self.cfg.log_exchanges;
        self.calls.make(&*self.cfg.model, request, t, kind, log, &mut self.metrics).await
    }

    fn note(&mut self, idx: usize, parsed: Option<String>, parse_error: Option<String>) {
        self.calls.exchanges.note(idx, parsed, parse_error);
    }

    /// Starts `skill` (or the wait fallback) and records the decision in memory.
    fn commit(
        &mut self,
        scene: &G::Scene<'_>,
        text: String,
        reply: Option<PlanReply<G::Skill>>,
        skill: G::Skill,
        outcome: EntryOutcome,
    ) {
        let g = &self.grounding;
        let Some(ep) = self.ep.as_mut() else { return };
        let t = g.time(scene);
        let predicted = reply.as_ref().and_then(|r| r.intention).filter(|_| self.cfg.settings.intention);
        if let Some(p) = predicted {
            ep.belief.predict(t, p);
        }
        ep.memory.push(MemoryEntry {
            t,
            scene: text,
            analysis: reply.and_then(|r| r.analysis),
            predicted,
            real: None,
            real_t: None,
            skill,
            outcome,
        });
        g.start(&mut ep.g, skill, scene);
        ep.wait_sig = (self.cfg.settings.wait_interrupt && skill.is_wait()).then(|| g.wait_signature(&ep.g, scene));
        self.event(t, skill, SkillOutcome::Started);
    }

    fn fallback(&mut self, scene: &G::Scene<'_>, text: String, reply: Option<PlanReply<G::Skill>>, reason: String) {
        self.metrics.fallbacks += 1;
        self.commit(scene, text, reply, G::Skill::wait(1), EntryOutcome::Fallback { reason });
    }

    /// Ends the running skill: its memory entry and event say how, and the controller drops it.
    fn end_skill(&mut self, t: u32, skill: G::Skill, outcome: EntryOutcome) {
        let Some(ep) = self.ep.as_mut() else { return };
        self.grounding.stop(&mut ep.g);
        ep.wait_sig = None;
        if let Some(e) = ep.memory.last_mut()
            && e.outcome == EntryOutcome::Running
        {
            e.outcome = outcome.clone();
        }
        let event = match outcome {
            EntryOutcome::Failed { reason } => SkillOutcome::Failed { reason },
            _ => SkillOutcome::Succeeded,
        };
        self.event(t, skill, event);
    }

    /// Explains why `skill` was rejected; `Err` when the model is down. `rules` and `off`
    /// give the precondition sentences or only "rejected"; `llm` asks the model: in the
    /// default preset two rounds (check each precondition, then double-check and name the
    /// failed one: when none is named the rule reason is used), in the paper preset one
    /// explainer call whose reply is used as it is.
    async fn explain(
        &mut self,
        t: u32,
        scene: &str,
        skill: G::Skill,
        rule_reason: String,
    ) -> Result<String, CallFailure> {
        let Some(ep) = &self.ep else { return Ok(rule_reason) };
        let (me, dir) = (ep.me, ep.dir);
        let system = ep.system.as_ref().map(|s| s.1.clone()).unwrap_or_default();
        let skill_text = self.grounding.skill_text(&ep.g, skill);
        match self.cfg.settings.verificator {
            VerificatorMode::Rules => return Ok(rule_reason),
            VerificatorMode::Off => return Ok(verificator::off_reason(&skill_text)),
            VerificatorMode::Llm => {}
        }
        let lib = Arc::clone(&self.cfg.prompts);
        if self.cfg.settings.preset == Preset::Paper {
            let user = match paper::explain_message(&lib, dir, me, scene, &skill_text) {
                Ok(u) => u,
                Err(e) => {
                    self.metrics.prompt_errors += 1;
                    tracing::error!("explainer prompt: {e}");
                    return Ok(rule_reason);
                }
            };
            let req = ChatRequest::new(vec![Message::system(system), Message::user(user)], self.cfg.sampling.clone());
            let Reply { text, idx, .. } = self.call(t, CallKind::Explainer, req).await?;
            self.note(idx, Some(text.clone()), None);
            return Ok(text);
        }
        let conditions = self.grounding.conditions(&ep.g, skill);
        let (check, double) = match (
            verificator::check_message(&lib, dir, me, scene, &skill_text, &conditions),
            verificator::double_check_message(&lib, dir, me, &skill_text),
        ) {
            (Ok(c), Ok(d)) => (c, d),
            (Err(e), _) | (_, Err(e)) => {
                self.metrics.prompt_errors += 1;
                tracing::error!("verificator prompt: {e}");
                return Ok(rule_reason);
            }
        };
        let mut messages = vec![Message::system(system), Message::user(check)];
        let req = ChatRequest::new(messages.clone(), self.cfg.sampling.clone());
        let first = self.call(t, CallKind::Verificator, req).await?.text;
        messages.push(Message::assistant(first));
        messages.push(Message::user(double));
        let req = ChatRequest::new(messages, self.cfg.sampling.clone());
        let Reply { text: second, idx: i2, .. } = self.call(t, CallKind::Verificator, req).await?;
        match verificator::extract_failed_condition(&second) {
            Some(reason) => {
                self.note(i2, Some(reason.clone()), None);
                Ok(reason)
            }
            None => {
                // The model found nothing wrong: the planner still gets the true reason.
                self.metrics.parse_failures += 1;
                self.metrics.parse_failures_verificator += 1;
                self.note(i2, None, Some("no failed condition named".into()));
                Ok(rule_reason)
            }
        }
    }

    /// The planner's user message for `scene` (default preset): the memory, the belief
    /// block and the scene.
    fn user_message(&self, scene: &str) -> Result<String, PromptError> {
        let Some(ep) = &self.ep else { return Ok(String::new()) };
        let s = &self.cfg.settings;
        let lib = &self.cfg.prompts;
        let text = |k: G::Skill| self.grounding.skill_text(&ep.g, k);
        let belief =
            planner::belief_block(lib, ep.dir, s.belief, &ep.belief, ep.me, ep.mate(), s.memory_k.max(1), &text)?;
        let parts = SceneParts {
            memory: &ep.memory,
            k: s.memory_k,
            mode: s.belief,
            belief: &belief,
            scene,
            me: ep.me,
            mates: &ep.mates,
            level: s.level(),
        };
        planner::scene_message(lib, ep.dir, &parts, &text)
    }

    /// One planning round: prompt, parse, validate, verify, re-plan; leaves a skill set,
    /// unless the model cannot serve the run at all (then that error).
    async fn plan(&mut self, scene: &G::Scene<'_>) -> Result<(), LlmError> {
        let Some(ep) = self.ep.as_ref() else { return Ok(()) };
        let t = self.grounding.time(scene);
        let (me, mate, dir) = (ep.me, ep.mate(), ep.dir);
        let text = self.grounding.scene_text(&ep.g, scene);
        let system = match &ep.system {
            Ok((s, _)) => s.clone(),
            Err(e) => {
                let e = e.to_string();
                self.metrics.prompt_errors += 1;
                self.fallback(scene, text, None, format!("prompt error: {e}"));
                return Ok(());
            }
        };
        let user = match self.user_message(&text) {
            Ok(u) => u,
            Err(e) => {
                self.metrics.prompt_errors += 1;
                tracing::error!("planner prompt: {e}");
                self.fallback(scene, text, None, format!("prompt error: {e}"));
                return Ok(());
            }
        };
        let lib = Arc::clone(&self.cfg.prompts);
        let max_replans = self.cfg.settings.max_replans;
        self.metrics.plans += 1;
        let mut messages = vec![Message::system(system), Message::user(user)];
        let mut attempt = 0u32;
        loop {
            let req = ChatRequest::new(messages.clone(), self.cfg.sampling.clone())
                .with_schema(|| planner::plan_schema(G::PLAN_FIELD));
            let Reply { text: reply_text, idx, unread } = match self.call(t, CallKind::Planner, req).await {
                Ok(r) => r,
                Err(CallFailure::Down(e)) => {
                    self.fallback(scene, text, None, format!("the model is unreachable ({e})"));
                    return Ok(());
                }
                Err(CallFailure::Unusable(e)) => return Err(e),
            };
            // A structured reply is read strictly, then as the labelled text it stands for.
            let fields = match self.calls.structured() {
                true => planner::structured_plan_text(&reply_text, me, mate),
                false => Ok(reply_text.clone()),
            };
            let read = match (&self.ep, fields) {
                (Some(ep), Ok(fields)) => self.grounding.read_reply(&ep.g, &fields, me, mate),
                (Some(_), Err(why)) => Err(why.to_string()),
                (None, _) => return Ok(()),
            };
            let (rejected, reason, reply) = match read {
                Err(reason) => {
                    self.metrics.parse_failures += 1;
                    self.note(idx, None, Some(reason.clone()));
                    (None, reason, None)
                }
                Ok(r) => {
                    // A skill was read (whether its preconditions hold is the check's matter).
                    if let Some(u) = unread {
                        self.calls.read(u);
                    }
                    let parsed = format!(
                        "plan={}{}",
                        self.text(r.plan),
                        r.intention.map(|i| format!(", intention={}", self.text(i))).unwrap_or_default()
                    );
                    self.note(idx, Some(parsed), r.intention_error.clone());
                    let failed = match &self.ep {
                        Some(ep) => self.grounding.check(&ep.g, scene, r.plan),
                        None => return Ok(()),
                    };
                    if failed.is_empty() {
                        let plan = r.plan;
                        self.commit(scene, text, Some(r), plan, EntryOutcome::Running);
                        return Ok(());
                    }
                    let rule_reason = verificator::rules_reason(&failed);
                    let reason = match self.explain(t, &text, r.plan, rule_reason).await {
                        Ok(reason) => reason,
                        Err(CallFailure::Down(e)) => {
                            self.fallback(scene, text, Some(r), format!("the model is unreachable ({e})"));
                            return Ok(());
                        }
                        Err(CallFailure::Unusable(e)) => return Err(e),
                    };
                    (Some(r.plan), reason, Some(r))
                }
            };
            if attempt >= max_replans {
                self.fallback(scene, text, reply, reason);
                return Ok(());
            }
            attempt += 1;
            self.metrics.replans += 1;
            let rejected = rejected.map(|s| self.text(s));
            let suffix =
                match planner::replan_message(&lib, dir, me, rejected.as_deref(), &reason, attempt, max_replans) {
                    Ok(s) => s,
                    Err(e) => {
                        self.metrics.prompt_errors += 1;
                        self.fallback(scene, text, reply, format!("prompt error: {e}"));
                        return Ok(());
                    }
                };
            messages.push(Message::assistant(reply_text));
            messages.push(Message::user(suffix));
        }
    }

    /// One step of the default preset: plan at skill boundaries, end waits early when the
    /// scene changes, let the controller fail a skill that stalls.
    async fn step_default(&mut self, scene: &G::Scene<'_>) -> Result<Action<G>, LlmError> {
        let t = self.grounding.time(scene);
        let mut action = self.grounding.idle();
        // A skill can end and the next one start within the same step; two rounds are enough
        // (a fresh skill that ends at once is retried at the next step).
        for _ in 0..2 {
            let needs_plan = self.ep.as_ref().is_some_and(|e| self.grounding.running(&e.g).is_none());
            if needs_plan {
                self.plan(scene).await?;
            }
            let g = &self.grounding;
            let Some(ep) = self.ep.as_mut() else { break };
            let Some(skill) = g.running(&ep.g) else { break };
            if ep.wait_sig.is_some_and(|sig| sig != g.wait_signature(&ep.g, scene)) {
                self.metrics.skills_completed += 1;
                self.metrics.waits_interrupted += 1;
                self.end_skill(t, skill, EntryOutcome::Interrupted);
                continue;
            }
            match g.control(&mut ep.g, scene) {
                Control::Running(a) => {
                    action = a;
                    break;
                }
                Control::Succeeded => {
                    self.metrics.skills_completed += 1;
                    self.end_skill(t, skill, EntryOutcome::Succeeded);
                }
                Control::Failed(reason) => {
                    self.metrics.skills_failed += 1;
                    self.end_skill(t, skill, EntryOutcome::Failed { reason });
                }
            }
        }
        Ok(action)
    }

    /// One step of the paper preset, as the published agent takes it: report a finished
    /// skill and plan the next one; then re-check the current skill's preconditions (every
    /// step, also midway through a skill) and, while they fail, explain and re-plan, forcing
    /// `wait(1)` once `max_replans` re-plans were made; then the controller moves.
    async fn step_paper(&mut self, scene: &G::Scene<'_>) -> Result<Action<G>, LlmError> {
        let idle = self.grounding.idle();
        let t = self.grounding.time(scene);
        let Some(ep) = self.ep.as_ref() else { return Ok(idle) };
        let g = &self.grounding;
        if let Some(skill) = g.running(&ep.g) {
            let interrupted = ep.wait_sig.is_some_and(|sig| sig != g.wait_signature(&ep.g, scene));
            if interrupted || g.skill_done(&ep.g, scene) {
                self.metrics.skills_completed += 1;
                let outcome = if interrupted {
                    self.metrics.waits_interrupted += 1;
                    EntryOutcome::Interrupted
                } else {
                    EntryOutcome::Succeeded
                };
                self.end_skill(t, skill, outcome);
                if !skill.is_wait() {
                    self.paper_note_success(skill);
                }
            }
        }
        let running = self.ep.as_ref().and_then(|e| self.grounding.running(&e.g));
        let mut current = match running {
            Some(skill) => Current::Running(skill),
            None => Current::Fresh(self.paper_plan(scene, false).await?),
        };
        let mut count = 0u32;
        loop {
            let (skill, text) = match &current {
                Current::Running(s) => (*s, None),
                Current::Fresh(c) => (c.skill, Some(c.scene.clone())),
            };
            let Some(ep) = self.ep.as_ref() else { return Ok(idle) };
            let failed = self.grounding.check(&ep.g, scene, skill);
            if failed.is_empty() {
                break;
            }
            let rule_reason = verificator::rules_reason(&failed);
            if let Current::Running(_) = current {
                // A skill that became invalid midway is dropped, explained and re-planned.
                self.metrics.skills_invalidated += 1;
                self.metrics.skills_failed += 1;
                self.end_skill(t, skill, EntryOutcome::Failed { reason: rule_reason.clone() });
            }
            let text = text.unwrap_or_else(|| self.scene_now(scene));
            if count >= self.cfg.settings.max_replans {
                current = Current::Fresh(self.forced_wait(text, None, rule_reason));
                break;
            }
            let explanation = match self.explain(t, &text, skill, rule_reason).await {
                Ok(e) => e,
                Err(CallFailure::Unusable(e)) => return Err(e),
                Err(CallFailure::Down(e)) => {
                    let reason = format!("the model is unreachable ({e})");
                    current = Current::Fresh(self.forced_wait(text, None, reason));
                    break;
                }
            };
            if let Some(ep) = self.ep.as_mut() {
                ep.dialogue.push(Message::user(explanation.clone()));
            }
            let replanned = self.paper_plan(scene, true).await?;
            count += 1;
            let rules = self.cfg.settings.preset.rules();
            if rules.replan_cap == ReplanCap::ForceWaitOnCount && count >= self.cfg.settings.max_replans {
                // The published agent forces the wait on the count alone: the last re-plan's
                // answer is not even validated.
                let reason = format!("{count} re-plans; the last explanation: {explanation}");
                current = Current::Fresh(self.forced_wait(replanned.scene, replanned.reply, reason));
                break;
            }
            current = Current::Fresh(replanned);
        }
        if let Current::Fresh(c) = current {
            self.commit(scene, c.scene, c.reply, c.skill, c.outcome);
        }
        let g = &self.grounding;
        let Some(ep) = self.ep.as_mut() else { return Ok(idle) };
        let Some(skill) = g.running(&ep.g) else { return Ok(idle) };
        Ok(match g.control(&mut ep.g, scene) {
            Control::Running(a) => a,
            Control::Succeeded => {
                self.metrics.skills_completed += 1;
                self.end_skill(t, skill, EntryOutcome::Succeeded);
                idle
            }
            Control::Failed(reason) => {
                // The published agent's controller, finding no way to its goal, switches to
                // wait(1) and stays this step.
                self.metrics.skills_failed += 1;
                self.end_skill(t, skill, EntryOutcome::Failed { reason });
                let text = self.scene_now(scene);
                self.commit(scene, text, None, G::Skill::wait(1), EntryOutcome::Running);
                idle
            }
        })
    }

    /// The scene text of `scene` from this seat.
    fn scene_now(&self, scene: &G::Scene<'_>) -> String {
        match &self.ep {
            Some(ep) => self.grounding.scene_text(&ep.g, scene),
            None => String::new(),
        }
    }

    /// `wait(1)` in place of a plan (no minimum wait applies), counted as a fallback.
    fn forced_wait(
        &mut self,
        scene: String,
        reply: Option<PlanReply<G::Skill>>,
        reason: String,
    ) -> Candidate<G::Skill> {
        self.metrics.fallbacks += 1;
        Candidate { skill: G::Skill::wait(1), reply, scene, outcome: EntryOutcome::Fallback { reason } }
    }

    /// Records "<Player k> completed <skill>." in the paper preset's dialogue.
    fn paper_note_success(&mut self, skill: G::Skill) {
        let Some(ep) = self.ep.as_mut() else { return };
        let text = self.grounding.skill_text(&ep.g, skill);
        match paper::success_message(&self.cfg.prompts, ep.dir, ep.me, &text) {
            Ok(m) => ep.dialogue.push(Message::user(m)),
            Err(e) => {
                self.metrics.prompt_errors += 1;
                tracing::error!("paper success note: {e}");
            }
        }
    }

    /// One paper-preset planner call. A normal call sends the knowledge and the scene only;
    /// a re-plan also sends the last K dialogue messages and asks to plan again. The reply
    /// always yields a skill ([`paper::read_plan`]); the dialogue keeps what the published
    /// agent keeps.
    async fn paper_plan(&mut self, scene: &G::Scene<'_>, replan: bool) -> Result<Candidate<G::Skill>, LlmError> {
        let t = self.grounding.time(scene);
        let text = self.scene_now(scene);
        let Some(ep) = self.ep.as_ref() else {
            return Ok(Candidate {
                skill: G::Skill::wait(1),
                reply: None,
                scene: text,
                outcome: EntryOutcome::Running,
            });
        };
        let (me, mate, dir) = (ep.me, ep.mate(), ep.dir);
        let rules = self.cfg.settings.preset.rules();
        let min_wait = rules.min_wait_on(self.grounding.layout_name(&ep.g));
        let system = ep.system.as_ref().map(|s| s.0.clone()).map_err(|e| e.to_string());
        let settings = &self.cfg.settings;
        let skill_text = |s: G::Skill| self.grounding.skill_text(&ep.g, s);
        let lib = &self.cfg.prompts;
        let user =
            paper::belief_message(lib, dir, settings.belief, settings.intention, &ep.belief, me, mate, &skill_text)
                .and_then(|b| paper::scene_message(lib, dir, me, &b, &text, replan, settings.analysis));
        let (system, user) = match (system, user) {
            (Ok(s), Ok(u)) => (s, u),
            (Err(e), _) => {
                self.metrics.prompt_errors += 1;
                return Ok(self.forced_wait(text, None, format!("prompt error: {e}")));
            }
            (_, Err(e)) => {
                self.metrics.prompt_errors += 1;
                tracing::error!("paper planner prompt: {e}");
                return Ok(self.forced_wait(text, None, format!("prompt error: {e}")));
            }
        };
        let mut messages = vec![Message::system(system)];
        if replan {
            messages.extend(ep.dialogue.recent(self.cfg.settings.memory_k).cloned());
            self.metrics.replans += 1;
        } else {
            self.metrics.plans += 1;
        }
        messages.push(Message::user(user.clone()));
        let mut sampling = self.cfg.sampling.clone();
        sampling.stop = rules.planner_stop.iter().map(|s| s.to_string()).collect();
        let Reply { text: reply, idx, unread } =
            match self.call(t, CallKind::Planner, ChatRequest::new(messages, sampling)).await {
                Ok(r) => r,
                Err(CallFailure::Unusable(e)) => return Err(e),
                Err(CallFailure::Down(e)) => {
                    return Ok(self.forced_wait(text, None, format!("the model is unreachable ({e})")));
                }
            };
        let read = match &self.ep {
            Some(ep) => paper::read_plan(&reply, me, min_wait, |r| self.grounding.read_reply(&ep.g, r, me, mate)),
            None => return Ok(self.forced_wait(text, None, "no episode".into())),
        };
        let planned = self.text(read.skill);
        if let (paper::PlanSource::Parsed | paper::PlanSource::BareWait, Some(u)) = (&read.source, unread) {
            self.calls.read(u);
        }
        match &read.source {
            paper::PlanSource::Parsed => self.note(idx, Some(format!("plan={planned}")), None),
            paper::PlanSource::BareWait => self.note(idx, Some(format!("plan={planned} (a bare wait)")), None),
            paper::PlanSource::Unreadable(reason) => {
                self.metrics.parse_failures += 1;
                self.note(idx, Some(format!("plan={planned}")), Some(format!("{reason}; waiting instead")));
            }
        }
        if let Some(ep) = self.ep.as_mut() {
            if !paper::mentions_wait(&reply) {
                ep.dialogue.push(Message::user(user));
                ep.dialogue.push(Message::assistant(reply));
            }
            if !read.skill.is_wait() {
                ep.dialogue.push(Message::assistant(planned));
            }
        }
        Ok(Candidate { skill: read.skill, reply: read.reply, scene: text, outcome: EntryOutcome::Running })
    }

    /// Belief correction: the teammate's skill of the last step (as the grounding saw it)
    /// scores the pending predictions; with correction on, memory learns the real skill.
    fn observe_teammate(&mut self, obs: &Observation<'_, G::Game>, t: u32) {
        let Some(ep) = self.ep.as_mut() else { return };
        let real = self.grounding.teammate_skill(&mut ep.g, obs);
        let resolved = ep.belief.observe(t, real);
        if resolved.is_empty() {
            return;
        }
        self.metrics.belief_predictions = ep.belief.predictions_scored;
        self.metrics.belief_correct = ep.belief.predictions_correct;
        let mode = self.cfg.settings.belief;
        for r in &resolved {
            self.belief_events.push(BeliefCorrection {
                predicted_at: r.t,
                predicted: self.grounding.skill_text(&ep.g, r.predicted),
                real: self.grounding.skill_text(&ep.g, r.real),
                real_at: r.real_t,
                correct: r.correct,
                correction: mode_name(mode).into(),
            });
        }
        if mode != BeliefMode::Off {
            for r in resolved {
                ep.memory.correct_belief(r.t, r.predicted, r.real, r.real_t);
            }
        }
    }
}

#[async_trait]
impl<G: Grounding> Seat<G::Game> for ProAgent<G> {
    fn name(&self) -> String {
        match &self.cfg.label {
            Some(l) => l.clone(),
            None => format!("proagent[{}]", self.cfg.model.name()),
        }
    }

    fn reset(&mut self, game: &G::Game, seat: usize, seed: u64) {
        self.belief_events.clear();
        let n = game.num_players();
        let me = seat.min(n.saturating_sub(1));
        let g = self.grounding.begin(game, me, seed, &self.cfg);
        let preset = self.cfg.settings.preset;
        let dir = G::FAMILY.template_dir(preset);
        let system = match dir {
            Some(dir) => render_systems(&self.grounding, &g, &self.cfg, dir, me),
            None => Err(G::FAMILY.no_preset(preset)),
        }
        .inspect_err(|e| tracing::error!("{e}"));
        let knowledge = system.as_ref().map(|s| s.0.clone()).unwrap_or_default();
        let k = self.cfg.settings.memory_k;
        self.ep = Some(Episode {
            g,
            me,
            mates: (0..n).filter(|&i| i != me).collect(),
            dir: dir.unwrap_or_default(),
            memory: Memory::new(knowledge, k.max(32)),
            belief: BeliefTracker::new(k.max(1)),
            system,
            wait_sig: None,
            dialogue: paper::Dialogue::new(k),
        });
        self.calls.reset(self.cfg.exchange_sink.as_ref());
        self.metrics = AgentMetrics::default();
        self.events.clear();
    }

    async fn act(&mut self, obs: &Observation<'_, G::Game>) -> Result<Action<G>, AgentError> {
        if self.ep.is_none() {
            self.reset(obs.game, obs.seat, 0);
        }
        let Some(ep) = self.ep.as_mut() else { return Ok(self.grounding.idle()) };
        let scene = self.grounding.perceive(&mut ep.g, obs);
        self.observe_teammate(obs, self.grounding.time(&scene));
        let action = match self.cfg.settings.preset {
            Preset::Default => self.step_default(&scene).await,
            Preset::Paper => self.step_paper(&scene).await,
        };
        // The exchanges of this step reach the transcript, also those of a failing call.
        self.calls.exchanges.flush(self.cfg.exchange_sink.as_ref());
        action.map_err(|e| AgentError::ModelUnusable(Box::new(e)))
    }

    fn drain_skill_events(&mut self) -> Vec<SkillEvent> {
        std::mem::take(&mut self.events)
    }

    fn drain_belief_events(&mut self) -> Vec<BeliefCorrection> {
        std::mem::take(&mut self.belief_events)
    }

    fn metrics(&self) -> serde_json::Value {
        self.metrics.to_json()
    }

    fn status(&self) -> SeatStatus {
        let Some(ep) = &self.ep else { return SeatStatus::default() };
        let last = ep.memory.recent(1).next();
        let text = |s: G::Skill| self.grounding.skill_text(&ep.g, s);
        SeatStatus {
            skill: self.grounding.running(&ep.g).map(text),
            intention: last.and_then(|e| e.predicted).map(text),
            analysis: last.and_then(|e| e.analysis.clone()),
        }
    }

    fn llm_usage(&self) -> LlmUsage {
        self.calls.usage()
    }

    fn last_llm_failure(&self) -> Option<String> {
        self.calls.last_failure()
    }
}
