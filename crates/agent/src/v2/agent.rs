//! The ProAgent agent on OvercookedV2. The same loop as the classic agent
//! ([`crate`]): knowledge library + recent-K memory + the scene → planner (one model
//! call) → validator (the skill's preconditions, on what the agent knows) → on failure the
//! verificator explains and the planner re-plans (up to `max_replans`, then `wait(1)`) →
//! the controller grounds the skill. Belief correction scores the predicted teammate skill
//! against what the agent later *sees* the teammate do. The scene never mentions anything
//! outside the view radius ([`proagent_overcooked_v2::knowledge`]).
//!
//! It takes the classic [`ProAgentConfig`] (model, sampling, switches, exchange sink); its
//! `prompts` must be the V2 family (`prompts/v2/`).

use crate::ProAgentConfig;
use crate::belief::BeliefMode;
use crate::log::AgentMetrics;
use crate::memory::EntryOutcome;
use crate::planner::reply_fields;
use crate::prompts::{PromptError, PromptLibrary};
use crate::verificator::{VerificatorMode, extract_failed_condition};
use async_trait::async_trait;
use minijinja::{Value, context};
use proagent_core::{AgentError, BeliefCorrection, LlmUsage, Observation, Seat, SkillEvent, SkillOutcome};
use proagent_llm::record::{Exchange, Outcome};
use proagent_llm::{ChatRequest, Message};
use proagent_overcooked::env::{Action, Pos};
use proagent_overcooked_v2::env::{
    BUTTON_COST, BUTTON_TIME, COOK_TIME, DELIVERY_REWARD, Event, Item, Layout, Settings, Tile,
};
use proagent_overcooked_v2::game::OvercookedV2;
use proagent_overcooked_v2::knowledge::{Knowledge, PotSeen, Recall, reach_text, scene_text};
use proagent_overcooked_v2::nav::{Nav, Status};
use proagent_overcooked_v2::skills::{self, Skill, Target};
use std::collections::VecDeque;
use std::time::{Duration, Instant};

/// One planning decision kept in memory.
#[derive(Clone, Debug)]
struct Entry {
    t: u32,
    scene: String,
    analysis: Option<String>,
    predicted: Option<Skill>,
    real: Option<Skill>,
    skill: Skill,
    outcome: EntryOutcome,
}

struct Episode {
    layout: Layout,
    settings: Settings,
    me: usize,
    nav: Nav,
    recall: Recall,
    memory: VecDeque<Entry>,
    system: Result<(String, String), PromptError>,
    wait_sig: Option<u64>,
}

/// The ProAgent agent for OvercookedV2.
pub struct ProAgentV2 {
    cfg: ProAgentConfig,
    ep: Option<Episode>,
    exchanges: Vec<Exchange>,
    flushed: usize,
    metrics: AgentMetrics,
    events: Vec<SkillEvent>,
    belief_events: Vec<BeliefCorrection>,
    llm_wait: Duration,
    /// The last model call that failed after every retry.
    last_failure: Option<String>,
    /// A failure that makes the model unusable for this run (reported once).
    fatal: Option<proagent_llm::LlmError>,
}

/// The skill a teammate's interaction shows it was doing.
pub fn skill_of_event(e: &Event) -> Skill {
    let target = |item: Item| {
        if item.is_dish() {
            Target::Dish
        } else if item.is_plate() {
            Target::Plate
        } else {
            Target::Ingredient(item.first_kind().unwrap_or(0))
        }
    };
    match *e {
        Event::TakeFromPile { item, .. } | Event::PickUp { item, .. } => Skill::Pickup(target(item)),
        Event::Place { .. } => Skill::PlaceOnCounter,
        Event::AddToPot { kind, .. } => Skill::PutInPot(kind),
        Event::StartCooking { .. } => Skill::StartCooking,
        Event::PlateSoup { .. } => Skill::PlateSoup,
        Event::Deliver { .. } => Skill::Deliver,
        Event::PressButton { .. } => Skill::PressButton,
    }
}

fn xy(p: Pos) -> String {
    format!("({}, {})", p.x, p.y)
}

/// The knowledge library's variables for a layout, settings and seat.
pub fn knowledge_context(cfg: &ProAgentConfig, layout: &Layout, settings: &Settings, me: usize) -> Value {
    let lib = &cfg.prompts;
    let names = &layout.ingredient_names;
    let mates: Vec<usize> = (0..layout.num_agents()).filter(|&i| i != me).collect();
    let mut kitchen = Vec::new();
    for i in 0..layout.cells() {
        let p = layout.pos_of(i);
        let t = layout.tiles[i];
        if !matches!(t, Tile::Floor | Tile::Counter) {
            kitchen.push(format!("{} at {}", t.noun(names), xy(p)));
        }
    }
    kitchen.push(format!("{} counters (the W cells of the grid)", layout.cells_of(Tile::Counter).count()));
    kitchen.push(format!(
        "grid, one row per line (W counter, P pot, X delivery window, B plate pile, R recipe indicator, L recipe button, digits ingredient piles, A a start cell): {}",
        layout.grid.join(" / ")
    ));
    let room = |i: usize| layout.room_of(layout.starts[i]);
    let my_reach = reach_text(&proagent_overcooked_v2::knowledge::reach_of(layout, settings, room(me)), names);
    let mate_reach: Vec<Value> = mates
        .iter()
        .map(|&m| context! { index => m, text => reach_text(&proagent_overcooked_v2::knowledge::reach_of(layout, settings, room(m)), names) })
        .collect();
    let level = cfg.settings.level();
    context! {
        me, mates, num_agents => layout.num_agents(),
        layout => layout.name.clone(),
        task_template => lib.resolve("task", &layout.name, me),
        rules_template => lib.resolve("rules", &layout.name, me),
        demos_template => lib.resolve("demos", &layout.name, me),
        ingredients => names.join(", "),
        first_ingredient => names.first().cloned().unwrap_or_default(),
        recipes => layout.recipes.iter().map(|r| r.describe(names)).collect::<Vec<_>>(),
        view_radius => settings.view_radius,
        buttons => layout.cells_of(Tile::Button).next().is_some(),
        indicators => layout.cells_of(Tile::RecipeIndicator).next().is_some(),
        button_time => BUTTON_TIME, button_cost => BUTTON_COST,
        reward => DELIVERY_REWARD, negative => settings.negative_rewards,
        resample => settings.sample_recipe_on_delivery,
        start_on_interact => settings.start_cooking_interaction,
        cook_time => COOK_TIME, horizon => settings.max_steps,
        width => layout.width, height => layout.height,
        kitchen, my_reach, mate_reach,
        analysis => level.analysis, intention => level.intention,
    }
}

/// The planner's and the verificator's system messages.
fn render_systems(
    cfg: &ProAgentConfig,
    layout: &Layout,
    settings: &Settings,
    me: usize,
) -> Result<(String, String), PromptError> {
    let ctx = knowledge_context(cfg, layout, settings, me);
    Ok((cfg.prompts.render("v2/system.j2", &ctx)?, cfg.prompts.render("v2/verify_system.j2", &ctx)?))
}

/// A fingerprint of what the agent sees apart from the time: hands, pots, counters. A wait
/// ends early when it changes.
fn signature(k: &Knowledge) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut mix = |v: u64| h = (h ^ v).wrapping_mul(0x100_0000_01b3);
    mix(k.held.code() as u64);
    for m in &k.mates {
        mix(m.held.code() as u64 + 1000);
    }
    for p in &k.pots {
        let code = match p.seen {
            None => 1,
            Some(PotSeen::Idle(c)) => 2 + c.code() as u64 * 4,
            Some(PotSeen::Cooking(c, _)) => 3 + c.code() as u64 * 4,
            Some(PotSeen::Ready(c)) => c.code() as u64 * 4,
        };
        mix(code);
    }
    for c in &k.counters {
        mix(((c.pos.x as u64) << 40) | ((c.pos.y as u64) << 32) | c.item.code() as u64);
    }
    h
}

impl ProAgentV2 {
    /// A fresh agent; `cfg.prompts` should hold the V2 family.
    pub fn new(cfg: ProAgentConfig) -> ProAgentV2 {
        ProAgentV2 {
            cfg,
            ep: None,
            exchanges: Vec::new(),
            flushed: 0,
            metrics: AgentMetrics::default(),
            events: Vec::new(),
            belief_events: Vec::new(),
            llm_wait: Duration::ZERO,
            last_failure: None,
            fatal: None,
        }
    }

    /// Renders every template this layout and seat use, so bad prompts are reported before a run.
    pub fn check_prompts(
        cfg: &ProAgentConfig,
        layout: &Layout,
        settings: &Settings,
        seat: usize,
    ) -> Result<(), PromptError> {
        render_systems(cfg, layout, settings, seat)?;
        let lib: &PromptLibrary = &cfg.prompts;
        let mates: Vec<usize> = (0..layout.num_agents()).filter(|&i| i != seat).collect();
        let mem = vec![
            context! { t => 0, scene => "Scene 0", analysis => "a", predicted => "wait(1)", real => "wait(1)", skill => "wait(1)", outcome => "succeeded" },
        ];
        lib.render(
            "v2/scene.j2",
            &context! { me => seat, mates, scene => "Scene 0", memory => mem, belief_mode => "annotate", analysis => true, intention => true },
        )?;
        lib.render(
            "v2/replan.j2",
            &context! { me => seat, skill => "wait(1)", reason => "r", attempt => 1, max_replans => 3 },
        )?;
        lib.render(
            "v2/replan.j2",
            &context! { me => seat, skill => Value::from(()), reason => "r", attempt => 1, max_replans => 3 },
        )?;
        lib.render(
            "v2/verify_check.j2",
            &context! { me => seat, scene => "Scene 0", skill => "wait(1)", conditions => Vec::<Value>::new() },
        )?;
        lib.render("v2/verify_double.j2", &context! { me => seat, skill => "wait(1)" })?;
        Ok(())
    }

    fn flush_sink(&mut self) {
        if self.flushed >= self.exchanges.len() {
            return;
        }
        if let Some(sink) = &self.cfg.exchange_sink {
            let mut list = sink.lock().unwrap_or_else(|e| e.into_inner());
            list.extend(self.exchanges[self.flushed..].iter().cloned());
        }
        self.flushed = self.exchanges.len();
    }

    async fn call(
        &mut self,
        t: u32,
        kind: &str,
        request: ChatRequest,
    ) -> Result<(String, usize), proagent_llm::LlmError> {
        self.metrics.llm_calls += 1;
        if kind == "planner" {
            self.metrics.llm_calls_planner += 1;
        } else {
            self.metrics.llm_calls_verificator += 1;
        }
        let t0 = Instant::now();
        let res = self.cfg.model.chat(&request).await;
        let latency = t0.elapsed();
        self.llm_wait += latency;
        let logged = self.cfg.log_exchanges.then(|| Exchange {
            seq: 0,
            t,
            kind: kind.into(),
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
                self.metrics.prompt_tokens += r.usage.prompt_tokens;
                self.metrics.completion_tokens += r.usage.completion_tokens;
                Ok(r.text)
            }
            Err(e) => {
                self.metrics.llm_failures += 1;
                tracing::warn!("model call failed at t={t}: {e}");
                self.last_failure = Some(e.to_string());
                if e.is_fatal() && self.fatal.is_none() {
                    self.fatal = Some(e.clone());
                }
                Err(e)
            }
        };
        match logged {
            Some(ex) => {
                self.exchanges.push(ex);
                out.map(|text| (text, self.exchanges.len() - 1))
            }
            None => out.map(|text| (text, usize::MAX)),
        }
    }

    fn note(&mut self, idx: usize, parsed: Option<String>, error: Option<String>) {
        if let Some(ex) = self.exchanges.get_mut(idx) {
            ex.parsed = parsed.map(serde_json::Value::String);
            ex.parse_error = error;
        }
    }

    fn commit(
        &mut self,
        k: &Knowledge,
        scene: String,
        analysis: Option<String>,
        predicted: Option<Skill>,
        skill: Skill,
        outcome: EntryOutcome,
    ) {
        let Some(ep) = self.ep.as_mut() else { return };
        ep.memory.push_back(Entry { t: k.step, scene, analysis, predicted, real: None, skill, outcome });
        while ep.memory.len() > self.cfg.settings.memory_k.max(32) {
            ep.memory.pop_front();
        }
        ep.nav.set(skill);
        ep.wait_sig = (self.cfg.settings.wait_interrupt && skill.is_wait()).then(|| signature(k));
        self.events.push(SkillEvent {
            t: k.step,
            player: ep.me,
            skill: skill.text(&k.names),
            outcome: SkillOutcome::Started,
        });
    }

    fn fallback(&mut self, k: &Knowledge, scene: String, reason: String) {
        self.metrics.fallbacks += 1;
        self.commit(k, scene, None, None, Skill::Wait(1), EntryOutcome::Fallback { reason });
    }

    fn user_message(&self, scene: &str) -> Result<String, PromptError> {
        let Some(ep) = &self.ep else { return Ok(String::new()) };
        let level = self.cfg.settings.level();
        let names = &ep.layout.ingredient_names;
        let k = self.cfg.settings.memory_k;
        let mode = self.cfg.settings.belief;
        let entries: Vec<Value> = ep
            .memory
            .iter()
            .skip(ep.memory.len().saturating_sub(k))
            .map(|e| {
                let real = if mode == BeliefMode::Off { None } else { e.real.map(|s| s.text(names)) };
                context! {
                    t => e.t, scene => e.scene.clone(),
                    analysis => if level.analysis { e.analysis.clone() } else { None },
                    predicted => if level.intention { e.predicted.map(|s| s.text(names)) } else { None },
                    real, skill => e.skill.text(names), outcome => e.outcome.phrase(),
                }
            })
            .collect();
        let belief_mode = match mode {
            BeliefMode::Replace => "replace",
            BeliefMode::Annotate => "annotate",
            BeliefMode::Off => "off",
        };
        let mates: Vec<usize> = (0..ep.layout.num_agents()).filter(|&i| i != ep.me).collect();
        self.cfg.prompts.render(
            "v2/scene.j2",
            &context! {
                me => ep.me, mates, scene, memory => entries, belief_mode,
                analysis => level.analysis, intention => level.intention,
            },
        )
    }

    /// Explains a rejected skill; `Err` when the model is down.
    async fn verify(
        &mut self,
        k: &Knowledge,
        scene: &str,
        skill: Skill,
        rule_reason: String,
    ) -> Result<String, proagent_llm::LlmError> {
        let names = k.names.clone();
        match self.cfg.settings.verificator {
            VerificatorMode::Rules => return Ok(rule_reason),
            VerificatorMode::Off => return Ok(format!("the game rejected {}.", skill.text(&names))),
            VerificatorMode::Llm => {}
        }
        let Some(ep) = &self.ep else { return Ok(rule_reason) };
        let system = ep.system.as_ref().map(|s| s.1.clone()).unwrap_or_default();
        let conditions: Vec<Value> =
            skills::conditions(skill, &names).into_iter().map(|(name, text)| context! { name, text }).collect();
        let lib = &self.cfg.prompts;
        let me = ep.me;
        let st = skill.text(&names);
        let (check, double) = match (
            lib.render("v2/verify_check.j2", &context! { me, scene, skill => st.clone(), conditions }),
            lib.render("v2/verify_double.j2", &context! { me, skill => st }),
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
        let (first, _) = self.call(k.step, "verificator", req).await?;
        messages.push(Message::assistant(first));
        messages.push(Message::user(double));
        let req = ChatRequest::new(messages, self.cfg.sampling.clone());
        let (second, i2) = self.call(k.step, "verificator", req).await?;
        match extract_failed_condition(&second) {
            Some(reason) => {
                self.note(i2, Some(reason.clone()), None);
                Ok(reason)
            }
            None => {
                self.metrics.parse_failures += 1;
                self.metrics.parse_failures_verificator += 1;
                self.note(i2, None, Some("no failed condition named".into()));
                Ok(rule_reason)
            }
        }
    }

    /// One planning round; always leaves a skill set.
    async fn plan(&mut self, k: &Knowledge) {
        let scene = scene_text(k);
        let Some(ep) = &self.ep else { return };
        let me = ep.me;
        let system = match &ep.system {
            Ok((s, _)) => s.clone(),
            Err(e) => {
                let e = e.to_string();
                self.metrics.prompt_errors += 1;
                self.fallback(k, scene, format!("prompt error: {e}"));
                return;
            }
        };
        let user = match self.user_message(&scene) {
            Ok(u) => u,
            Err(e) => {
                self.metrics.prompt_errors += 1;
                self.fallback(k, scene, format!("prompt error: {e}"));
                return;
            }
        };
        self.metrics.plans += 1;
        let names = k.names.clone();
        let mate = (0..k.num_agents).find(|&i| i != me);
        let mut messages = vec![Message::system(system), Message::user(user)];
        let mut attempt = 0u32;
        loop {
            let req = ChatRequest::new(messages.clone(), self.cfg.sampling.clone());
            let (text, idx) = match self.call(k.step, "planner", req).await {
                Ok(r) => r,
                Err(e) => {
                    self.fallback(k, scene, format!("the model is unreachable ({e})"));
                    return;
                }
            };
            let f = reply_fields(&text, me, mate);
            let intention = f.intention.as_deref().and_then(|t| skills::find_first(t, &names).ok());
            let plan = match &f.plan {
                Some(t) => skills::find_first(t, &names).map_err(|e| {
                    if e.reason == "no skill found" {
                        format!("the 'Plan for Player {me}:' field names no allowed skill")
                    } else {
                        format!("the 'Plan for Player {me}:' field: {}", e.reason)
                    }
                }),
                None => f
                    .outside
                    .iter()
                    .find_map(|l| skills::parse(l, &names).ok())
                    .ok_or_else(|| format!("the reply has no 'Plan for Player {me}:' field")),
            };
            let analysis =
                f.analysis.filter(|a| !a.is_empty()).map(|a| a.split_whitespace().collect::<Vec<_>>().join(" "));
            let (rejected, reason) = match plan {
                Err(reason) => {
                    self.metrics.parse_failures += 1;
                    self.note(idx, None, Some(reason.clone()));
                    (None, reason)
                }
                Ok(skill) => {
                    let parsed = format!(
                        "plan={}{}",
                        skill.text(&names),
                        intention.map(|i| format!(", intention={}", i.text(&names))).unwrap_or_default()
                    );
                    self.note(idx, Some(parsed), None);
                    let failed = skills::check(skill, k);
                    if failed.is_empty() {
                        let predicted = intention.filter(|_| self.cfg.settings.intention);
                        self.commit(k, scene, analysis, predicted, skill, EntryOutcome::Running);
                        return;
                    }
                    let rule_reason = failed.iter().map(|f| f.reason.as_str()).collect::<Vec<_>>().join(" ");
                    match self.verify(k, &scene, skill, rule_reason).await {
                        Ok(reason) => (Some(skill), reason),
                        Err(e) => {
                            self.fallback(k, scene, format!("the model is unreachable ({e})"));
                            return;
                        }
                    }
                }
            };
            if attempt >= self.cfg.settings.max_replans {
                self.fallback(k, scene, reason);
                return;
            }
            attempt += 1;
            self.metrics.replans += 1;
            let suffix = self.cfg.prompts.render(
                "v2/replan.j2",
                &context! {
                    me, skill => rejected.map(|s| s.text(&names)), reason,
                    attempt, max_replans => self.cfg.settings.max_replans,
                },
            );
            let suffix = match suffix {
                Ok(s) => s,
                Err(e) => {
                    self.metrics.prompt_errors += 1;
                    self.fallback(k, scene, format!("prompt error: {e}"));
                    return;
                }
            };
            messages.push(Message::assistant(text));
            messages.push(Message::user(suffix));
        }
    }

    /// Belief correction: a teammate seen interacting resolves the oldest open prediction.
    fn observe_teammates(&mut self, obs: &Observation<'_, OvercookedV2>) {
        let Some(ep) = self.ep.as_mut() else { return };
        let me_pos = obs.view.agents[ep.me].pos;
        let t = obs.view.step;
        for (i, e) in obs.last_events.iter().enumerate() {
            let Some(e) = e else { continue };
            if i == ep.me
                || !proagent_overcooked_v2::env::obs::visible(&obs.game.settings, me_pos, obs.view.agents[i].pos)
            {
                continue;
            }
            let real = skill_of_event(e);
            let Some(entry) = ep.memory.iter_mut().find(|m| m.predicted.is_some() && m.real.is_none()) else {
                continue;
            };
            let predicted = entry.predicted.unwrap_or(real);
            let correct = predicted == real;
            entry.real = Some(real);
            self.metrics.belief_predictions += 1;
            self.metrics.belief_correct += u32::from(correct);
            let names = &ep.layout.ingredient_names;
            let mode = match self.cfg.settings.belief {
                BeliefMode::Replace => "replace",
                BeliefMode::Annotate => "annotate",
                BeliefMode::Off => "off",
            };
            self.belief_events.push(BeliefCorrection {
                predicted_at: entry.t,
                predicted: predicted.text(names),
                real: real.text(names),
                real_at: t.saturating_sub(1),
                correct,
                correction: mode.into(),
            });
        }
    }
}

#[async_trait]
impl Seat<OvercookedV2> for ProAgentV2 {
    fn name(&self) -> String {
        match &self.cfg.label {
            Some(l) => l.clone(),
            None => format!("proagent[{}]", self.cfg.model.name()),
        }
    }

    fn reset(&mut self, game: &OvercookedV2, seat: usize, seed: u64) {
        let (layout, settings) = (&*game.layout, &game.settings);
        self.last_failure = None;
        self.fatal = None;
        let system = render_systems(&self.cfg, layout, settings, seat).inspect_err(|e| tracing::error!("{e}"));
        self.ep = Some(Episode {
            layout: layout.clone(),
            settings: settings.clone(),
            me: seat,
            nav: Nav::new(seed),
            recall: Recall::default(),
            memory: VecDeque::new(),
            system,
            wait_sig: None,
        });
        self.flush_sink();
        self.exchanges.clear();
        self.flushed = 0;
        self.metrics = AgentMetrics::default();
        self.events.clear();
        self.belief_events.clear();
        self.llm_wait = Duration::ZERO;
    }

    async fn act(&mut self, obs: &Observation<'_, OvercookedV2>) -> Result<Action, AgentError> {
        if self.ep.is_none() {
            self.reset(obs.game, obs.seat, 0);
        }
        self.observe_teammates(obs);
        let k = {
            let Some(ep) = self.ep.as_mut() else { return Ok(Action::Stay) };
            let (layout, settings) = (&*obs.game.layout, &obs.game.settings);
            ep.recall.update(layout, settings, obs.view, ep.me, obs.last_events);
            Knowledge::observe(layout, settings, obs.view, ep.me, &mut ep.recall)
        };
        let mut last = self.ep.as_ref().and_then(|ep| obs.last_events.get(ep.me).and_then(|e| e.as_ref()));
        let mut action = Action::Stay;
        for _ in 0..2 {
            if self.ep.as_ref().is_some_and(|e| e.nav.skill().is_none()) {
                self.plan(&k).await;
            }
            let Some(ep) = self.ep.as_mut() else { break };
            let Some(skill) = ep.nav.skill() else { break };
            let text = skill.text(&k.names);
            if let Some(sig) = ep.wait_sig
                && sig != signature(&k)
            {
                ep.wait_sig = None;
                ep.nav.clear();
                self.metrics.skills_completed += 1;
                self.metrics.waits_interrupted += 1;
                if let Some(e) = ep.memory.back_mut()
                    && e.outcome == EntryOutcome::Running
                {
                    e.outcome = EntryOutcome::Interrupted;
                }
                self.events.push(SkillEvent {
                    t: k.step,
                    player: ep.me,
                    skill: text,
                    outcome: SkillOutcome::Succeeded,
                });
                last = None;
                continue;
            }
            match ep.nav.step(&ep.layout, &ep.settings, &k, last) {
                Status::Running(a) => {
                    action = a;
                    break;
                }
                Status::Succeeded => {
                    self.metrics.skills_completed += 1;
                    if let Some(e) = ep.memory.back_mut()
                        && e.outcome == EntryOutcome::Running
                    {
                        e.outcome = EntryOutcome::Succeeded;
                    }
                    self.events.push(SkillEvent {
                        t: k.step,
                        player: ep.me,
                        skill: text,
                        outcome: SkillOutcome::Succeeded,
                    });
                }
                Status::Failed(reason) => {
                    self.metrics.skills_failed += 1;
                    if let Some(e) = ep.memory.back_mut()
                        && e.outcome == EntryOutcome::Running
                    {
                        e.outcome = EntryOutcome::Failed { reason: reason.clone() };
                    }
                    self.events.push(SkillEvent {
                        t: k.step,
                        player: ep.me,
                        skill: text,
                        outcome: SkillOutcome::Failed { reason },
                    });
                }
            }
            ep.wait_sig = None;
            last = None;
        }
        self.flush_sink();
        // A model that refused the run's configuration ends the episode (after its exchange
        // reached the transcript).
        match self.fatal.take() {
            Some(e) => Err(AgentError::ModelUnusable(Box::new(e))),
            None => Ok(action),
        }
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

    fn llm_usage(&self) -> LlmUsage {
        self.metrics.usage(self.llm_wait)
    }

    fn last_llm_failure(&self) -> Option<String> {
        self.last_failure.clone()
    }
}
