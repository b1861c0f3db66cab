//! The ProAgent agent: state alignment, knowledge library, planner, validator,
//! verificator, belief correction and memory around a skill controller.
//!
//! Each step: observe the teammate (belief correction); if there is no current
//! skill or it has finished or failed, plan (one model call), validate the
//! skill's preconditions, on failure let the verificator explain and re-plan
//! (up to `max_replans` times, then `wait(1)`); then the controller turns the
//! skill into this step's action. Every part can be switched off for ablations
//! and every part counts what it does ([`AgentMetrics`]). Every model exchange
//! is kept in an in-memory log ([`ProAgent::exchanges`]) for transcripts.
//!
//! The paper preset ([`preset::Preset::Paper`]) runs the published agent's step
//! instead (`step_paper`): the running skill is re-validated at every step, the
//! explainer makes one unchecked call, history goes only into re-plans, unreadable
//! replies wait one step; `docs/agent.md` lists every difference.

#![warn(missing_docs)]
#![allow(clippy::needless_range_loop, clippy::collapsible_match, clippy::collapsible_if)]

pub mod align;
pub mod belief;
pub mod config;
pub mod log;
pub mod memory;
pub mod names;
pub mod paper;
pub mod planner;
pub mod preset;
pub mod prompts;
pub mod scripted_model;
pub mod v2;
pub mod verificator;

use align::{SceneInfo, scene_text};
use async_trait::async_trait;
use belief::{BeliefMode, BeliefTracker};
pub use config::{AgentSettings, ProAgentConfig};
pub use log::{AgentMetrics, ExchangeSink};
use memory::{EntryOutcome, Memory, MemoryEntry};
use preset::{LoopRules, Preset, ReplanCap};
use proagent_core::{AgentError, BeliefCorrection, LlmUsage, Observation, Seat, SeatStatus, SkillEvent, SkillOutcome};
pub use proagent_llm::ModelSpec;
use proagent_llm::record::{Exchange, Outcome};
use proagent_llm::{ChatRequest, LlmError, Message};
use proagent_overcooked::controller::{Controller, ControllerOptions, Kitchen, SkillStatus, WaitMoves};
use proagent_overcooked::env::{Action, Layout, State};
use proagent_overcooked::game::Overcooked;
use proagent_overcooked::skills::{Reach, Skill, check_preconditions};
use prompts::PromptError;
use std::sync::Arc;
use std::time::{Duration, Instant};
use verificator::VerificatorMode;

/// Per-episode state.
struct Episode {
    kitchen: Arc<Kitchen>,
    info: SceneInfo,
    me: usize,
    controller: Controller,
    memory: Memory,
    belief: BeliefTracker,
    /// Rendered system messages (planner, verificator), or why they could not be rendered.
    system: Result<(String, String), PromptError>,
    prev_state: Option<State>,
    /// The kitchen's fingerprint when the current wait started.
    wait_sig: Option<u64>,
    /// The timestep the current skill started at.
    skill_started: Option<u32>,
    /// The paper preset's planner dialogue (unused by the default preset).
    dialogue: paper::Dialogue,
}

/// The ProAgent agent.
pub struct ProAgent {
    cfg: ProAgentConfig,
    ep: Option<Episode>,
    kitchen_cache: Option<Arc<Kitchen>>,
    exchanges: Vec<Exchange>,
    metrics: AgentMetrics,
    events: Vec<SkillEvent>,
    /// Belief corrections not yet handed to the runner.
    belief_events: Vec<BeliefCorrection>,
    llm_wait: Duration,
    /// How many exchanges of `exchanges` went to the sink already.
    flushed: usize,
    /// The last model failure this episode.
    last_failure: Option<String>,
}

/// Which part of the agent sent a request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum CallKind {
    Planner,
    Verificator,
    /// The paper preset's one-call verificator (counted with the verificator's calls).
    Explainer,
}

impl CallKind {
    /// The exchange kind recorded in transcripts.
    fn name(self) -> &'static str {
        match self {
            CallKind::Planner => "planner",
            CallKind::Verificator => "verificator",
            CallKind::Explainer => "explainer",
        }
    }
}

/// Why a model call produced no reply.
enum CallFailure {
    /// The request failed after every retry: the agent falls back to `wait(1)` and the
    /// runner counts the failure against the episode's limit.
    Down(String),
    /// The model cannot serve this run at all (see [`LlmError::is_fatal`]): the agent stops.
    Unusable(LlmError),
}

/// A skill the paper preset's step has planned but not started yet.
struct Candidate {
    skill: Skill,
    reply: Option<planner::PlanReply>,
    scene: String,
    outcome: EntryOutcome,
}

/// The skill the paper preset's validation looks at: the running one, or a fresh plan.
enum Current {
    Running(Skill),
    Fresh(Candidate),
}

impl ProAgent {
    /// A fresh agent; the per-episode state is built by the first `reset` (or the first `act`).
    pub fn new(cfg: ProAgentConfig) -> ProAgent {
        ProAgent {
            cfg,
            ep: None,
            kitchen_cache: None,
            exchanges: Vec::new(),
            metrics: AgentMetrics::default(),
            events: Vec::new(),
            belief_events: Vec::new(),
            llm_wait: Duration::ZERO,
            flushed: 0,
            last_failure: None,
        }
    }

    /// Uses a precomputed kitchen for layouts with the same grid (saves the motion table per episode).
    pub fn with_kitchen(mut self, kitchen: Arc<Kitchen>) -> ProAgent {
        self.kitchen_cache = Some(kitchen);
        self
    }

    /// The configuration this agent was built with (model, settings, prompts, sampling).
    pub fn config(&self) -> &ProAgentConfig {
        &self.cfg
    }

    /// This episode's model exchanges, in order (cleared by `reset`).
    pub fn exchanges(&self) -> &[Exchange] {
        &self.exchanges
    }

    /// Takes this episode's exchanges out of the agent.
    pub fn drain_exchanges(&mut self) -> Vec<Exchange> {
        self.flush_sink();
        self.flushed = 0;
        std::mem::take(&mut self.exchanges)
    }

    /// Appends the exchanges finished since the last flush to the configured sink.
    fn flush_sink(&mut self) {
        if self.flushed >= self.exchanges.len() {
            return;
        }
        if let Some(sink) = &self.cfg.exchange_sink {
            // A poisoned lock only means another holder panicked; the list itself is still usable.
            let mut list = sink.lock().unwrap_or_else(|e| e.into_inner());
            list.extend(self.exchanges[self.flushed..].iter().cloned());
        }
        self.flushed = self.exchanges.len();
    }

    /// This episode's counters so far (zeroed by `reset`).
    pub fn agent_metrics(&self) -> &AgentMetrics {
        &self.metrics
    }

    /// Wall time spent waiting for the model this episode (excluded from agent CPU time).
    pub fn llm_wait(&self) -> Duration {
        self.llm_wait
    }

    /// The trajectory memory of the current episode (oldest first).
    pub fn memory_entries(&self) -> Vec<MemoryEntry> {
        self.ep.as_ref().map(|e| e.memory.recent(usize::MAX).cloned().collect()).unwrap_or_default()
    }

    /// Renders every template this layout and seat use, so bad prompts are reported before a run.
    pub fn check_prompts(cfg: &ProAgentConfig, layout: &Layout, seat: usize) -> Result<(), PromptError> {
        let kitchen = Kitchen::new(Arc::new(layout.clone()));
        let info = SceneInfo::new(layout, &kitchen.motion);
        render_systems(cfg, layout, &info, seat)?;
        let lib = &cfg.prompts;
        let state = layout.start_state();
        let scene = scene_text(cfg.settings.align, &info, layout, &kitchen.motion, &state, seat, cfg.horizon);
        if cfg.settings.preset == Preset::Paper {
            let mut tracker = BeliefTracker::new(2);
            tracker.predict(0, Skill::PickupOnion);
            tracker.observe(1, Some(Skill::PickupDish));
            for mode in [BeliefMode::Replace, BeliefMode::Annotate] {
                let b = paper::belief_message(lib, mode, true, &tracker, seat)?;
                for replan in [false, true] {
                    paper::scene_message(lib, seat, &b, &scene, replan, cfg.settings.analysis)?;
                }
            }
            for s in Skill::TASK_SKILLS.into_iter().chain([Skill::Wait(3)]) {
                paper::success_message(lib, seat, s)?;
                paper::explain_message(lib, seat, &scene, s)?;
            }
            return Ok(());
        }
        let mut tracker = BeliefTracker::new(2);
        tracker.predict(0, Skill::PickupOnion);
        tracker.observe(1, Some(Skill::PickupDish));
        let mut mem = Memory::new(String::new(), 4);
        for mode in [BeliefMode::Replace, BeliefMode::Annotate] {
            let b = planner::belief_block(lib, mode, &tracker, seat, 2)?;
            mem.push(MemoryEntry {
                t: 0,
                scene: scene.clone(),
                analysis: Some("a".into()),
                predicted: Some(Skill::PickupOnion),
                real: Some(Skill::PickupDish),
                real_t: Some(1),
                skill: Skill::PickupOnion,
                outcome: EntryOutcome::Succeeded,
            });
            planner::scene_message(lib, &mem, 2, mode, &b, &scene, seat, cfg.level())?;
        }
        planner::replan_message(lib, seat, Some("pickup(onion)"), "r", 1, 3)?;
        planner::replan_message(lib, seat, None, "r", 1, 3)?;
        for s in Skill::TASK_SKILLS {
            verificator::check_message(lib, seat, &scene, s)?;
            verificator::double_check_message(lib, seat, s)?;
        }
        Ok(())
    }

    fn kitchen_for(&mut self, layout: &Layout) -> Arc<Kitchen> {
        let k = Kitchen::reuse_or_build(self.kitchen_cache.as_ref(), layout);
        self.kitchen_cache = Some(Arc::clone(&k));
        k
    }

    fn event(&mut self, t: u32, player: usize, skill: Skill, outcome: SkillOutcome) {
        self.events.push(SkillEvent { t, player, skill: skill.to_string(), outcome });
    }

    /// Sends one request, logs the exchange and counts it.
    async fn call(&mut self, t: u32, kind: CallKind, request: ChatRequest) -> Result<(String, usize), CallFailure> {
        let m = &mut self.metrics;
        m.llm_calls = m.llm_calls.saturating_add(1);
        match kind {
            CallKind::Planner => m.llm_calls_planner = m.llm_calls_planner.saturating_add(1),
            CallKind::Verificator | CallKind::Explainer => {
                m.llm_calls_verificator = m.llm_calls_verificator.saturating_add(1)
            }
        }
        let t0 = Instant::now();
        let res = self.cfg.model.chat(&request).await;
        let latency = t0.elapsed();
        self.llm_wait += latency;
        let logged = self.cfg.log_exchanges.then(|| Exchange {
            seq: 0,
            t,
            kind: kind.name().into(),
            request,
            outcome: Outcome::from_result(&res),
            parsed: None,
            parse_error: None,
            latency: Some(latency),
            scrubbed: 0,
            seat: None,
        });
        let out = match res {
            Ok(r) => {
                // Token counts come from the server: saturate rather than wrap.
                let m = &mut self.metrics;
                m.prompt_tokens = m.prompt_tokens.saturating_add(r.usage.prompt_tokens);
                m.completion_tokens = m.completion_tokens.saturating_add(r.usage.completion_tokens);
                Ok(r.text)
            }
            Err(e) => {
                self.metrics.llm_failures = self.metrics.llm_failures.saturating_add(1);
                self.last_failure = Some(e.to_string());
                if e.is_fatal() {
                    tracing::error!("model call refused at t={t}: {e}");
                    Err(CallFailure::Unusable(e))
                } else {
                    tracing::warn!("model call failed at t={t}: {e}");
                    Err(CallFailure::Down(e.to_string()))
                }
            }
        };
        let Some(ex) = logged else {
            return out.map(|text| (text, usize::MAX));
        };
        self.exchanges.push(ex);
        out.map(|text| (text, self.exchanges.len() - 1))
    }

    fn note(&mut self, idx: usize, parsed: Option<String>, parse_error: Option<String>) {
        if let Some(ex) = self.exchanges.get_mut(idx) {
            ex.parsed = parsed.map(serde_json::Value::String);
            ex.parse_error = parse_error;
        }
    }

    /// Starts `skill` (or the wait fallback) and records the decision in memory.
    fn commit(
        &mut self,
        state: &State,
        scene: String,
        reply: Option<planner::PlanReply>,
        skill: Skill,
        outcome: EntryOutcome,
    ) {
        let Some(ep) = self.ep.as_mut() else { return };
        let t = state.timestep;
        let predicted = reply.as_ref().and_then(|r| r.intention).filter(|_| self.cfg.settings.intention);
        if let Some(p) = predicted {
            ep.belief.predict(t, p);
        }
        ep.memory.push(MemoryEntry {
            t,
            scene,
            analysis: reply.and_then(|r| r.analysis),
            predicted,
            real: None,
            real_t: None,
            skill,
            outcome,
        });
        ep.controller.set_skill(skill, state);
        ep.skill_started = Some(t);
        ep.wait_sig = (self.cfg.settings.wait_interrupt && matches!(skill, Skill::Wait(_)))
            .then(|| kitchen_signature(&ep.kitchen.layout, state));
        let me = ep.me;
        self.event(t, me, skill, SkillOutcome::Started);
    }

    fn fallback(&mut self, state: &State, scene: String, reply: Option<planner::PlanReply>, reason: String) {
        self.metrics.fallbacks += 1;
        self.commit(state, scene, reply, Skill::Wait(1), EntryOutcome::Fallback { reason });
    }

    /// Explains why `skill` was rejected; `Err` when the model is down.
    async fn verify(
        &mut self,
        state: &State,
        scene: &str,
        skill: Skill,
        rule_reason: String,
    ) -> Result<String, CallFailure> {
        let (me, verify_system) = match &self.ep {
            Some(ep) => (ep.me, ep.system.as_ref().map(|s| s.1.clone()).unwrap_or_default()),
            None => return Ok(rule_reason),
        };
        match self.cfg.settings.verificator {
            VerificatorMode::Rules => return Ok(rule_reason),
            VerificatorMode::Off => return Ok(verificator::off_reason(skill)),
            VerificatorMode::Llm => {}
        }
        let lib = Arc::clone(&self.cfg.prompts);
        let (check, double) = match (
            verificator::check_message(&lib, me, scene, skill),
            verificator::double_check_message(&lib, me, skill),
        ) {
            (Ok(c), Ok(d)) => (c, d),
            (Err(e), _) | (_, Err(e)) => {
                self.metrics.prompt_errors += 1;
                tracing::error!("verificator prompt: {e}");
                return Ok(rule_reason);
            }
        };
        let t = state.timestep;
        let mut messages = vec![Message::system(verify_system), Message::user(check)];
        let req = ChatRequest::new(messages.clone(), self.cfg.sampling.clone());
        let (first, i1) = self.call(t, CallKind::Verificator, req).await?;
        self.note(i1, None, None);
        messages.push(Message::assistant(first));
        messages.push(Message::user(double));
        let req = ChatRequest::new(messages, self.cfg.sampling.clone());
        let (second, i2) = self.call(t, CallKind::Verificator, req).await?;
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

    /// One planning round: prompt, parse, validate, verify, re-plan; leaves a skill set,
    /// unless the model cannot serve the run at all (then that error).
    async fn plan(&mut self, obs: &Observation<'_, Overcooked>) -> Result<(), LlmError> {
        let state = obs.view;
        let t = state.timestep;
        let Some(ep) = self.ep.as_ref() else { return Ok(()) };
        let me = ep.me;
        let k = Arc::clone(&ep.kitchen);
        let scene = scene_text(self.cfg.settings.align, &ep.info, &k.layout, &k.motion, state, me, self.cfg.horizon);
        let system = match &ep.system {
            Ok((s, _)) => s.clone(),
            Err(e) => {
                let e = e.to_string();
                self.metrics.prompt_errors += 1;
                self.fallback(state, scene, None, format!("prompt error: {e}"));
                return Ok(());
            }
        };
        let lib = Arc::clone(&self.cfg.prompts);
        let user =
            planner::belief_block(&lib, self.cfg.settings.belief, &ep.belief, me, self.cfg.settings.memory_k.max(1))
                .and_then(|b| {
                    planner::scene_message(
                        &lib,
                        &ep.memory,
                        self.cfg.settings.memory_k,
                        self.cfg.settings.belief,
                        &b,
                        &scene,
                        me,
                        self.cfg.level(),
                    )
                });
        let user = match user {
            Ok(u) => u,
            Err(e) => {
                self.metrics.prompt_errors += 1;
                tracing::error!("planner prompt: {e}");
                self.fallback(state, scene, None, format!("prompt error: {e}"));
                return Ok(());
            }
        };
        self.metrics.plans += 1;
        let mut messages = vec![Message::system(system), Message::user(user)];
        let mut attempt = 0u32;
        loop {
            let req = ChatRequest::new(messages.clone(), self.cfg.sampling.clone());
            let (text, idx) = match self.call(t, CallKind::Planner, req).await {
                Ok(r) => r,
                Err(CallFailure::Down(e)) => {
                    self.fallback(state, scene, None, format!("the model is unreachable ({e})"));
                    return Ok(());
                }
                Err(CallFailure::Unusable(e)) => return Err(e),
            };
            let (rejected, reason, reply) = match planner::parse_reply(&text, me) {
                Err(pe) => {
                    self.metrics.parse_failures += 1;
                    self.note(idx, None, Some(pe.reason.clone()));
                    (None, pe.reason, None)
                }
                Ok(r) => {
                    let parsed = format!(
                        "plan={}{}",
                        r.plan,
                        r.intention.map(|i| format!(", intention={i}")).unwrap_or_default()
                    );
                    self.note(idx, Some(parsed), r.intention_error.clone());
                    let failed = {
                        let reach = Reach { layout: &k.layout, motion: &k.motion, state, player: me };
                        check_preconditions(r.plan, &reach)
                    };
                    if failed.is_empty() {
                        let plan = r.plan;
                        self.commit(state, scene, Some(r), plan, EntryOutcome::Running);
                        return Ok(());
                    }
                    let rule_reason = verificator::rules_reason(&failed);
                    let reason = match self.verify(state, &scene, r.plan, rule_reason).await {
                        Ok(reason) => reason,
                        Err(CallFailure::Down(e)) => {
                            self.fallback(state, scene, Some(r), format!("the model is unreachable ({e})"));
                            return Ok(());
                        }
                        Err(CallFailure::Unusable(e)) => return Err(e),
                    };
                    (Some(r.plan), reason, Some(r))
                }
            };
            if attempt >= self.cfg.settings.max_replans {
                self.fallback(state, scene, reply, reason);
                return Ok(());
            }
            attempt += 1;
            self.metrics.replans += 1;
            let rejected = rejected.map(|s| s.to_string());
            let suffix = match planner::replan_message(
                &lib,
                me,
                rejected.as_deref(),
                &reason,
                attempt,
                self.cfg.settings.max_replans,
            ) {
                Ok(s) => s,
                Err(e) => {
                    self.metrics.prompt_errors += 1;
                    self.fallback(state, scene, reply, format!("prompt error: {e}"));
                    return Ok(());
                }
            };
            messages.push(Message::assistant(text));
            messages.push(Message::user(suffix));
        }
    }

    /// One step of the default preset: plan at skill boundaries, end waits early when the
    /// kitchen changes, let the controller fail a skill that stalls.
    async fn step_default(&mut self, obs: &Observation<'_, Overcooked>) -> Result<Action, LlmError> {
        let state = obs.view;
        let mut action = Action::Stay;
        // A skill can end and the next one start within the same step; two rounds are enough
        // (a fresh skill that ends at once is retried at the next step).
        for _ in 0..2 {
            let needs_plan = self.ep.as_ref().is_some_and(|e| e.controller.skill().is_none());
            if needs_plan {
                self.plan(obs).await?;
            }
            let Some(ep) = self.ep.as_mut() else { break };
            let Some(skill) = ep.controller.skill() else { break };
            let t = state.timestep;
            let me = ep.me;
            if let Some(sig) = ep.wait_sig
                && sig != kitchen_signature(&ep.kitchen.layout, state)
            {
                ep.wait_sig = None;
                ep.controller.clear();
                self.metrics.skills_completed += 1;
                self.metrics.waits_interrupted += 1;
                if let Some(e) = ep.memory.last_mut()
                    && e.outcome == EntryOutcome::Running
                {
                    e.outcome = EntryOutcome::Interrupted;
                }
                self.event(t, me, skill, SkillOutcome::Succeeded);
                continue;
            }
            let cs = ep.controller.step(state);
            match cs.status {
                SkillStatus::Running => {
                    action = cs.action;
                    break;
                }
                SkillStatus::Succeeded => {
                    self.metrics.skills_completed += 1;
                    if let Some(e) = ep.memory.last_mut()
                        && e.outcome == EntryOutcome::Running
                    {
                        e.outcome = EntryOutcome::Succeeded;
                    }
                    self.event(t, me, skill, SkillOutcome::Succeeded);
                }
                SkillStatus::Failed { reason } => {
                    self.metrics.skills_failed += 1;
                    if let Some(e) = ep.memory.last_mut()
                        && e.outcome == EntryOutcome::Running
                    {
                        e.outcome = EntryOutcome::Failed { reason: reason.clone() };
                    }
                    self.event(t, me, skill, SkillOutcome::Failed { reason });
                }
            }
        }
        Ok(action)
    }

    /// Ends the running skill: its memory entry and event say how, and the controller drops it.
    fn end_skill(&mut self, t: u32, skill: Skill, outcome: EntryOutcome) {
        let Some(ep) = self.ep.as_mut() else { return };
        ep.controller.clear();
        ep.wait_sig = None;
        if let Some(e) = ep.memory.last_mut()
            && e.outcome == EntryOutcome::Running
        {
            e.outcome = outcome.clone();
        }
        let me = ep.me;
        let event = match outcome {
            EntryOutcome::Failed { reason } => SkillOutcome::Failed { reason },
            _ => SkillOutcome::Succeeded,
        };
        self.event(t, me, skill, event);
    }

    /// One step of the paper preset, as the published agent takes it: report a finished
    /// skill and plan the next one; then re-check the current skill's preconditions (every
    /// step, also midway through a skill) and, while they fail, explain and re-plan, forcing
    /// `wait(1)` once `max_replans` re-plans were made; then the controller moves.
    async fn step_paper(&mut self, obs: &Observation<'_, Overcooked>) -> Result<Action, LlmError> {
        let state = obs.view;
        let t = state.timestep;
        let Some(ep) = self.ep.as_ref() else { return Ok(Action::Stay) };
        let me = ep.me;
        if let Some(skill) = ep.controller.skill() {
            let interrupted = ep.wait_sig.is_some_and(|sig| sig != kitchen_signature(&ep.kitchen.layout, state));
            if interrupted || ep.controller.is_done(state) {
                self.metrics.skills_completed += 1;
                let outcome = if interrupted {
                    self.metrics.waits_interrupted += 1;
                    EntryOutcome::Interrupted
                } else {
                    EntryOutcome::Succeeded
                };
                self.end_skill(t, skill, outcome);
                if !matches!(skill, Skill::Wait(_)) {
                    self.paper_note_success(me, skill);
                }
            }
        }
        let running = self.ep.as_ref().and_then(|e| e.controller.skill());
        let mut current = match running {
            Some(skill) => Current::Running(skill),
            None => Current::Fresh(self.paper_plan(obs, false).await?),
        };
        let mut count = 0u32;
        loop {
            let (skill, scene) = match &current {
                Current::Running(s) => (*s, None),
                Current::Fresh(c) => (c.skill, Some(c.scene.clone())),
            };
            let Some(ep) = self.ep.as_ref() else { return Ok(Action::Stay) };
            let failed = {
                let k = &ep.kitchen;
                check_preconditions(skill, &Reach { layout: &k.layout, motion: &k.motion, state, player: me })
            };
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
            let scene = scene.unwrap_or_else(|| self.scene_now(state));
            if count >= self.cfg.settings.max_replans {
                current = Current::Fresh(self.forced_wait(scene, None, rule_reason));
                break;
            }
            let explanation = match self.paper_explain(state, &scene, skill, rule_reason).await {
                Ok(e) => e,
                Err(CallFailure::Unusable(e)) => return Err(e),
                Err(CallFailure::Down(e)) => {
                    let reason = format!("the model is unreachable ({e})");
                    current = Current::Fresh(self.forced_wait(scene, None, reason));
                    break;
                }
            };
            if let Some(ep) = self.ep.as_mut() {
                ep.dialogue.push(Message::user(explanation.clone()));
            }
            let replanned = self.paper_plan(obs, true).await?;
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
            self.commit(state, c.scene, c.reply, c.skill, c.outcome);
        }
        let Some(ep) = self.ep.as_mut() else { return Ok(Action::Stay) };
        let Some(skill) = ep.controller.skill() else { return Ok(Action::Stay) };
        let cs = ep.controller.step(state);
        Ok(match cs.status {
            SkillStatus::Running => cs.action,
            SkillStatus::Succeeded => {
                self.metrics.skills_completed += 1;
                self.end_skill(t, skill, EntryOutcome::Succeeded);
                Action::Stay
            }
            SkillStatus::Failed { reason } => {
                // The published agent's controller, finding no way to its goal, switches to
                // wait(1) and stays this step.
                self.metrics.skills_failed += 1;
                self.end_skill(t, skill, EntryOutcome::Failed { reason });
                let scene = self.scene_now(state);
                self.commit(state, scene, None, Skill::Wait(1), EntryOutcome::Running);
                Action::Stay
            }
        })
    }

    /// The scene text of `state` from this seat.
    fn scene_now(&self, state: &State) -> String {
        match &self.ep {
            Some(ep) => {
                let k = &ep.kitchen;
                scene_text(self.cfg.settings.align, &ep.info, &k.layout, &k.motion, state, ep.me, self.cfg.horizon)
            }
            None => String::new(),
        }
    }

    /// `wait(1)` in place of a plan (no minimum wait applies), counted as a fallback.
    fn forced_wait(&mut self, scene: String, reply: Option<planner::PlanReply>, reason: String) -> Candidate {
        self.metrics.fallbacks += 1;
        Candidate { skill: Skill::Wait(1), reply, scene, outcome: EntryOutcome::Fallback { reason } }
    }

    /// Records "<Player k> completed <skill>." in the paper preset's dialogue.
    fn paper_note_success(&mut self, me: usize, skill: Skill) {
        match paper::success_message(&self.cfg.prompts, me, skill) {
            Ok(m) => {
                if let Some(ep) = self.ep.as_mut() {
                    ep.dialogue.push(Message::user(m));
                }
            }
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
    async fn paper_plan(&mut self, obs: &Observation<'_, Overcooked>, replan: bool) -> Result<Candidate, LlmError> {
        let state = obs.view;
        let t = state.timestep;
        let scene = self.scene_now(state);
        let Some(ep) = self.ep.as_ref() else {
            return Ok(Candidate { skill: Skill::Wait(1), reply: None, scene, outcome: EntryOutcome::Running });
        };
        let me = ep.me;
        let rules = self.cfg.settings.preset.rules();
        let min_wait = rules.min_wait_on(&ep.kitchen.layout.name);
        let system = ep.system.as_ref().map(|s| s.0.clone()).map_err(|e| e.to_string());
        let settings = &self.cfg.settings;
        let user = paper::belief_message(&self.cfg.prompts, settings.belief, settings.intention, &ep.belief, me)
            .and_then(|b| paper::scene_message(&self.cfg.prompts, me, &b, &scene, replan, settings.analysis));
        let (system, user) = match (system, user) {
            (Ok(s), Ok(u)) => (s, u),
            (Err(e), _) => {
                self.metrics.prompt_errors += 1;
                return Ok(self.forced_wait(scene, None, format!("prompt error: {e}")));
            }
            (_, Err(e)) => {
                self.metrics.prompt_errors += 1;
                tracing::error!("paper planner prompt: {e}");
                return Ok(self.forced_wait(scene, None, format!("prompt error: {e}")));
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
        let (text, idx) = match self.call(t, CallKind::Planner, ChatRequest::new(messages, sampling)).await {
            Ok(r) => r,
            Err(CallFailure::Unusable(e)) => return Err(e),
            Err(CallFailure::Down(e)) => {
                return Ok(self.forced_wait(scene, None, format!("the model is unreachable ({e})")));
            }
        };
        let read = paper::read_plan(&text, me, min_wait);
        match &read.source {
            paper::PlanSource::Parsed => self.note(idx, Some(format!("plan={}", read.skill)), None),
            paper::PlanSource::BareWait => self.note(idx, Some(format!("plan={} (a bare wait)", read.skill)), None),
            paper::PlanSource::Unreadable(reason) => {
                self.metrics.parse_failures += 1;
                self.note(idx, Some(format!("plan={}", read.skill)), Some(format!("{reason}; waiting instead")));
            }
        }
        if let Some(ep) = self.ep.as_mut() {
            if !paper::mentions_wait(&text) {
                ep.dialogue.push(Message::user(user));
                ep.dialogue.push(Message::assistant(text));
            }
            if !matches!(read.skill, Skill::Wait(_)) {
                ep.dialogue.push(Message::assistant(read.skill.to_string()));
            }
        }
        Ok(Candidate { skill: read.skill, reply: read.reply, scene, outcome: EntryOutcome::Running })
    }

    /// The paper preset's explanation of a rejected skill: with `--verificator llm`, one
    /// explainer call whose reply is used as it is; otherwise the rule or "rejected" reason.
    async fn paper_explain(
        &mut self,
        state: &State,
        scene: &str,
        skill: Skill,
        rule_reason: String,
    ) -> Result<String, CallFailure> {
        let (me, system) = match &self.ep {
            Some(ep) => (ep.me, ep.system.as_ref().map(|s| s.1.clone()).unwrap_or_default()),
            None => return Ok(rule_reason),
        };
        match self.cfg.settings.verificator {
            VerificatorMode::Rules => return Ok(rule_reason),
            VerificatorMode::Off => return Ok(verificator::off_reason(skill)),
            VerificatorMode::Llm => {}
        }
        let user = match paper::explain_message(&self.cfg.prompts, me, scene, skill) {
            Ok(u) => u,
            Err(e) => {
                self.metrics.prompt_errors += 1;
                tracing::error!("explainer prompt: {e}");
                return Ok(rule_reason);
            }
        };
        let req = ChatRequest::new(vec![Message::system(system), Message::user(user)], self.cfg.sampling.clone());
        let (text, idx) = self.call(state.timestep, CallKind::Explainer, req).await?;
        self.note(idx, Some(text.clone()), None);
        Ok(text)
    }

    fn observe_teammate(&mut self, obs: &Observation<'_, Overcooked>) {
        let Some(ep) = self.ep.as_mut() else { return };
        let mate = 1 - ep.me;
        let real = belief::observe_step(
            &obs.game.layout,
            ep.prev_state.as_ref(),
            obs.view,
            obs.last_events.get(mate).and_then(Option::as_ref),
            mate,
        );
        let t = obs.view.timestep;
        let resolved = ep.belief.observe(t, real);
        if resolved.is_empty() {
            return;
        }
        self.metrics.belief_predictions = ep.belief.predictions_scored;
        self.metrics.belief_correct = ep.belief.predictions_correct;
        let mode = match self.cfg.settings.belief {
            BeliefMode::Replace => "replace",
            BeliefMode::Annotate => "annotate",
            BeliefMode::Off => "off",
        };
        for r in &resolved {
            self.belief_events.push(BeliefCorrection {
                predicted_at: r.t,
                predicted: r.predicted.to_string(),
                real: r.real.to_string(),
                real_at: r.real_t,
                correct: r.correct,
                correction: mode.into(),
            });
        }
        if self.cfg.settings.belief != BeliefMode::Off {
            for r in resolved {
                ep.memory.correct_belief(r.t, r.predicted, r.real, r.real_t);
            }
        }
    }
}

/// A fingerprint of what the scene text says apart from the time: both hands,
/// every pot's contents and phase, every counter's object. A wait ends early when it changes.
pub fn kitchen_signature(layout: &Layout, state: &State) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |v: u64| h = (h ^ v).wrapping_mul(0x100_0000_01b3);
    let code = |o: Option<&proagent_overcooked::env::Object>| -> u64 {
        match o {
            None => 0,
            Some(proagent_overcooked::env::Object::Soup(s)) => {
                let phase = if s.is_ready() {
                    2
                } else if s.is_cooking() {
                    1
                } else {
                    0
                };
                16 + s.num_onions() as u64 * 4 + s.num_tomatoes() as u64 * 32 + phase * 256
            }
            Some(o) => 1 + o.kind() as u64,
        }
    };
    for p in &state.players {
        mix(code(p.held.as_ref()));
    }
    for &p in layout.pots.iter().chain(&layout.counters) {
        mix(code(state.object_at(layout, p)));
    }
    h
}

/// The planner's and the verificator's (or, in the paper preset, the explainer's)
/// system messages for a layout and seat.
fn render_systems(
    cfg: &ProAgentConfig,
    layout: &Layout,
    info: &SceneInfo,
    seat: usize,
) -> Result<(String, String), PromptError> {
    let dir = cfg.settings.preset.template_dir();
    let ctx = planner::knowledge_context(
        &cfg.prompts,
        dir,
        layout,
        info,
        seat,
        cfg.horizon,
        cfg.level(),
        cfg.settings.wait_interrupt,
    );
    let checker = match cfg.settings.preset {
        Preset::Default => verificator::system_message(&cfg.prompts, &ctx)?,
        Preset::Paper => paper::explainer_system(&cfg.prompts, &ctx)?,
    };
    Ok((planner::system_message(&cfg.prompts, dir, &ctx)?, checker))
}

/// The controller switches a preset's loop rules ask for.
fn controller_options(rules: &LoopRules) -> ControllerOptions {
    ControllerOptions {
        stall_limit: rules.stall_limit,
        wait_moves: if rules.random_wait_moves { WaitMoves::RandomValid } else { WaitMoves::StayOrUnjam },
    }
}

#[async_trait]
impl Seat<Overcooked> for ProAgent {
    fn name(&self) -> String {
        match &self.cfg.label {
            Some(l) => l.clone(),
            None => format!("proagent[{}]", self.cfg.model.name()),
        }
    }

    fn reset(&mut self, game: &Overcooked, seat: usize, seed: u64) {
        let layout: &Layout = &game.layout;
        self.belief_events.clear();
        let kitchen = self.kitchen_for(layout);
        let info = SceneInfo::new(layout, &kitchen.motion);
        let system = render_systems(&self.cfg, layout, &info, seat).inspect_err(|e| tracing::error!("{e}"));
        let knowledge = system.as_ref().map(|s| s.0.clone()).unwrap_or_default();
        let me = seat.min(1);
        let options = controller_options(&self.cfg.settings.preset.rules());
        self.ep = Some(Episode {
            controller: Controller::new(Arc::clone(&kitchen), me, seed).with_options(options),
            kitchen,
            info,
            me,
            memory: Memory::new(knowledge, self.cfg.settings.memory_k.max(32)),
            belief: BeliefTracker::new(self.cfg.settings.memory_k.max(1)),
            system,
            prev_state: None,
            wait_sig: None,
            skill_started: None,
            dialogue: paper::Dialogue::new(self.cfg.settings.memory_k),
        });
        self.flush_sink();
        self.exchanges.clear();
        self.flushed = 0;
        self.metrics = AgentMetrics::default();
        self.events.clear();
        self.llm_wait = Duration::ZERO;
        self.last_failure = None;
    }

    async fn act(&mut self, obs: &Observation<'_, Overcooked>) -> Result<Action, AgentError> {
        if self.ep.is_none() {
            self.reset(obs.game, obs.seat, 0);
        }
        self.observe_teammate(obs);
        let action = match self.cfg.settings.preset {
            Preset::Default => self.step_default(obs).await,
            Preset::Paper => self.step_paper(obs).await,
        };
        let action = match action {
            Ok(a) => a,
            Err(e) => {
                // The failing exchange still reaches the transcript.
                self.flush_sink();
                return Err(AgentError::ModelUnusable(Box::new(e)));
            }
        };
        self.flush_sink();
        if let Some(ep) = self.ep.as_mut() {
            match &mut ep.prev_state {
                Some(p) => p.clone_from(obs.view),
                None => ep.prev_state = Some(obs.view.clone()),
            }
        }
        Ok(action)
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
        SeatStatus {
            skill: ep.controller.skill().map(|s| s.to_string()),
            intention: last.and_then(|e| e.predicted).map(|s| s.to_string()),
            analysis: last.and_then(|e| e.analysis.clone()),
        }
    }

    fn llm_usage(&self) -> LlmUsage {
        self.metrics.usage(self.llm_wait)
    }

    fn last_llm_failure(&self) -> Option<String> {
        self.last_failure.clone()
    }
}

#[cfg(test)]
mod tests;
