//! One seeded OvercookedV2 episode with any number of seats: the seat trait
//! ([`V2Agent`]), the loop ([`play_episode`]) and what it records ([`V2EpisodeResult`]):
//! every joint action, reward and state, the seats' skill events and model use, the
//! one-line summary (`play --json`) and the trajectory (for `analyze`).
//!
//! The environment's own chance (the recipe, random starts, recipes drawn after a delivery)
//! comes from a ChaCha8 generator seeded from the episode seed, apart from the seats' seeds,
//! so the same seed plays the same episode whatever the seats do with their randomness.

use proagent_analysis::v2::{TeamworkV2, teamwork};
use proagent_overcooked::env::Action;
use proagent_overcooked::policy::{BeliefCorrection, EpisodeAbort, LlmUsage, SkillEvent, derive_seed, seat_seed};
use proagent_overcooked_v2::env::trace::trace_state;
use proagent_overcooked_v2::env::{Event, Layout, Settings, State, StepOutcome};
use proagent_overcooked_v2::policy::{V2Agent, V2Observation};
use rand::SeedableRng;
use serde_json::{Value, json};
use std::sync::Arc;

/// An episode ends in a deadlock when nobody moved or interacted with effect this long at its end.
pub const DEADLOCK_TAIL: u32 = 50;

/// The stream of [`derive_seed`] the environment's chance uses.
pub const ENV_STREAM: u64 = 0x0e2;

/// A V2 episode that stopped before its horizon, with what was played until then (never
/// a score).
#[derive(Debug, thiserror::Error)]
#[error("{abort}")]
pub struct V2EpisodeFailed {
    /// Why it stopped.
    pub abort: EpisodeAbort,
    /// The steps played before it stopped.
    pub partial: Box<V2EpisodeResult>,
}

impl V2EpisodeFailed {
    /// The summary of the partial episode, marked `"failed": true` with the `error` and the
    /// timestep it `failed_at` (the footer of a failed transcript).
    pub fn summary_json(&self, seat: usize) -> Value {
        let mut v = self.partial.summary_json(seat);
        if let Some(obj) = v.as_object_mut() {
            obj.insert("failed".into(), json!(true));
            obj.insert("error".into(), json!(self.abort.to_string()));
            obj.insert("failed_at".into(), json!(self.abort.t()));
            obj.insert("stops_run".into(), json!(self.abort.stops_run()));
        }
        v
    }
}

/// What an observer sees after each step.
pub struct V2StepView<'a> {
    /// The step just played.
    pub t: u32,
    /// The kitchen.
    pub layout: &'a Layout,
    /// The state after the step.
    pub state: &'a State,
    /// Every player's action.
    pub actions: &'a [Action],
    /// Rewards and events.
    pub outcome: &'a StepOutcome,
    /// Skill events of this step.
    pub skill_events: &'a [SkillEvent],
    /// Belief corrections of this step.
    pub beliefs: &'a [BeliefCorrection],
}

impl V2StepView<'_> {
    /// The body of a transcript step record (the classic record's fields, one action letter
    /// per player, plus this step's interact events).
    pub fn transcript_json(&self) -> Value {
        let joint: Vec<String> = self.actions.iter().map(|a| a.letter().to_string()).collect();
        let events: Vec<Value> = self.outcome.events[..self.actions.len()].iter().map(|e| json!(e)).collect();
        json!({
            "joint": joint,
            "reward": self.outcome.reward,
            "skill_events": self.skill_events,
            "belief": self.beliefs,
            "events": events,
        })
    }
}

/// A callback run after every step.
pub type V2StepObserver<'a> = Box<dyn FnMut(&V2StepView<'_>) + Send + 'a>;

/// One recorded step.
#[derive(Clone, Debug)]
pub struct V2StepRecord {
    /// Every player's action.
    pub actions: Vec<Action>,
    /// The team reward.
    pub reward: i32,
    /// Shaped reward per player.
    pub shaped: Vec<i32>,
    /// Each player's interact event.
    pub events: Vec<Option<Event>>,
    /// The state after the step.
    pub state: State,
}

/// A finished episode.
#[derive(Clone, Debug)]
pub struct V2EpisodeResult {
    /// The kitchen.
    pub layout: Arc<Layout>,
    /// The switches.
    pub settings: Settings,
    /// The seats' names by player.
    pub agents: Vec<String>,
    /// The episode seed.
    pub seed: u64,
    /// The start state.
    pub start: State,
    /// One record per step.
    pub steps: Vec<V2StepRecord>,
    /// All skill events in order.
    pub skill_events: Vec<SkillEvent>,
    /// Each seat's metrics at the end.
    pub metrics: Vec<Value>,
    /// Each seat's model use.
    pub llm: Vec<LlmUsage>,
    /// Sum of the team rewards (deliveries ±20, button presses −5).
    pub score: i32,
    /// Correct dishes delivered.
    pub correct: u32,
    /// Wrong dishes delivered.
    pub wrong: u32,
    /// Button presses.
    pub presses: u32,
    /// Steps in which nobody moved or interacted with effect.
    pub stuck_steps: u32,
    /// How many such steps end the episode.
    pub idle_tail: u32,
}

/// The environment's chance (recipes drawn, random starts) of an episode with `seed`, as
/// [`play_episode`] uses it: the same seed gives the same draws wherever it is used.
pub fn env_chance(seed: u64) -> rand_chacha::ChaCha8Rng {
    rand_chacha::ChaCha8Rng::seed_from_u64(derive_seed(seed, ENV_STREAM))
}

/// Plays one episode (see the parameters below); fails, with the steps played so far, when
/// a seat's model refused the configuration or the seats' model calls failed after every
/// retry more than `max_llm_failures` times (`None`: no limit).
/// `agents[i]` controls player `i` (there must be one per layout start).
pub async fn play_episode(
    layout: Arc<Layout>,
    settings: Settings,
    mut agents: Vec<Box<dyn V2Agent>>,
    seed: u64,
    mut on_step: Option<V2StepObserver<'_>>,
    max_llm_failures: Option<u64>,
) -> Result<V2EpisodeResult, V2EpisodeFailed> {
    let n = layout.num_agents();
    for (i, a) in agents.iter_mut().enumerate() {
        a.reset(&layout, &settings, i, seat_seed(seed, i));
    }
    let mut chance = env_chance(seed);
    let start = layout.start_state(&settings, &mut chance);
    let mut state = start.clone();
    let mut steps = Vec::with_capacity(settings.max_steps as usize);
    let mut skill_events = Vec::new();
    let mut last_events: Vec<Option<Event>> = vec![None; n];
    let (mut score, mut correct, mut wrong, mut presses, mut stuck, mut tail) = (0, 0, 0, 0, 0, 0);
    let mut actions = vec![Action::Stay; n];
    for t in 0..settings.max_steps {
        for i in 0..n.min(agents.len()) {
            let a = &mut agents[i];
            let obs = V2Observation {
                layout: &layout,
                settings: &settings,
                state: &state,
                seat: i,
                last_events: &last_events,
            };
            actions[i] = a.act(&obs).await;
            let abort = a.take_failure().map(|error| EpisodeAbort::Agent { t, player: i, agent: a.name(), error });
            if let Some(abort) = abort.or_else(|| too_many_failures(&agents, i, t, max_llm_failures)) {
                for a in agents.iter_mut() {
                    skill_events.extend(a.drain_skill_events());
                }
                let partial = V2EpisodeResult {
                    agents: agents.iter().map(|a| a.name()).collect(),
                    metrics: agents.iter().map(|a| a.metrics()).collect(),
                    llm: agents.iter().map(|a| a.llm_usage()).collect(),
                    layout,
                    settings,
                    seed,
                    start,
                    steps,
                    skill_events,
                    score,
                    correct,
                    wrong,
                    presses,
                    stuck_steps: stuck,
                    idle_tail: tail,
                };
                return Err(V2EpisodeFailed { abort, partial: Box::new(partial) });
            }
        }
        let before: Vec<_> = state.agents.iter().map(|a| a.pos).collect();
        let outcome = layout.step(&settings, &mut state, &actions, &mut chance);
        let first = skill_events.len();
        let mut beliefs = Vec::new();
        for a in agents.iter_mut() {
            skill_events.extend(a.drain_skill_events());
            beliefs.extend(a.drain_belief_events());
        }
        score += outcome.reward;
        correct += outcome.correct_deliveries;
        wrong += outcome.wrong_deliveries;
        presses += outcome.events[..n].iter().filter(|e| matches!(e, Some(Event::PressButton { .. }))).count() as u32;
        let still = before.iter().zip(&state.agents).all(|(b, a)| *b == a.pos)
            && outcome.events[..n].iter().all(Option::is_none);
        if still {
            stuck += 1;
            tail += 1;
        } else {
            tail = 0;
        }
        if let Some(f) = on_step.as_mut() {
            f(&V2StepView {
                t,
                layout: &layout,
                state: &state,
                actions: &actions,
                outcome: &outcome,
                skill_events: &skill_events[first..],
                beliefs: &beliefs,
            });
        }
        last_events.copy_from_slice(&outcome.events[..n]);
        steps.push(V2StepRecord {
            actions: actions.clone(),
            reward: outcome.reward,
            shaped: outcome.shaped[..n].to_vec(),
            events: outcome.events[..n].to_vec(),
            state: state.clone(),
        });
    }
    Ok(V2EpisodeResult {
        agents: agents.iter().map(|a| a.name()).collect(),
        metrics: agents.iter().map(|a| a.metrics()).collect(),
        llm: agents.iter().map(|a| a.llm_usage()).collect(),
        layout,
        settings,
        seed,
        start,
        steps,
        skill_events,
        score,
        correct,
        wrong,
        presses,
        stuck_steps: stuck,
        idle_tail: tail,
    })
}

fn too_many_failures(agents: &[Box<dyn V2Agent>], i: usize, t: u32, limit: Option<u64>) -> Option<EpisodeAbort> {
    let limit = limit?;
    let failures = agents.iter().fold(0u64, |n, a| n.saturating_add(a.llm_usage().failures));
    (failures > limit).then(|| EpisodeAbort::LlmFailures {
        t,
        failures,
        limit,
        last: agents[i].last_llm_failure().or_else(|| agents.iter().find_map(|a| a.last_llm_failure())),
    })
}

impl V2EpisodeResult {
    /// Nobody moved or interacted with effect for the last [`DEADLOCK_TAIL`] steps or more.
    pub fn deadlocked(&self) -> bool {
        self.idle_tail >= DEADLOCK_TAIL
    }

    /// The hand-overs of the episode (see [`proagent_analysis::v2`]).
    pub fn teamwork(&self) -> TeamworkV2 {
        teamwork(&self.layout, &self.trajectory_events())
    }

    /// Each step's interact events, by player.
    pub fn trajectory_events(&self) -> Vec<Vec<Option<Event>>> {
        self.steps.iter().map(|s| s.events.clone()).collect()
    }

    /// Every seat's model use together.
    pub fn llm_total(&self) -> LlmUsage {
        self.llm.iter().fold(LlmUsage::default(), |a, b| a.plus(*b))
    }

    /// The `play --json` summary from the point of view of the seat `seat`; the seat's
    /// metrics are merged in, the others' go under `partner_metrics`.
    pub fn summary_json(&self, seat: usize) -> Value {
        let seat = seat.min(self.agents.len().saturating_sub(1));
        let partners: Vec<&String> =
            self.agents.iter().enumerate().filter(|(i, _)| *i != seat).map(|(_, a)| a).collect();
        let partner_metrics: Vec<&Value> =
            self.metrics.iter().enumerate().filter(|(i, _)| *i != seat).map(|(_, m)| m).collect();
        let mut v = json!({
            "game": "overcooked_v2",
            "layout": format!("v2:{}", self.layout.name),
            "agent": self.agents[seat],
            "partner": partners.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(","),
            "seat": seat,
            "seed": self.seed,
            "horizon": self.settings.max_steps,
            "score": self.score,
            "deliveries": self.correct,
            "wrong_deliveries": self.wrong,
            "button_presses": self.presses,
            "steps": self.steps.len(),
            "stuck_steps": self.stuck_steps,
            "idle_tail": self.idle_tail,
            "deadlock": self.deadlocked(),
            "settings": self.settings,
            "partner_metrics": if partner_metrics.len() == 1 { partner_metrics[0].clone() } else { json!(partner_metrics) },
            "teamwork": self.teamwork(),
        });
        if let (Some(obj), Some(Value::Object(m))) = (v.as_object_mut(), self.metrics.get(seat)) {
            for (key, val) in m {
                obj.entry(key.clone()).or_insert_with(|| val.clone());
            }
        }
        v
    }

    /// The episode as a V2 trajectory (one JSON Lines record; `proagent analyze` reads it).
    pub fn to_trajectory_json(&self) -> Value {
        let layout = &*self.layout;
        let steps: Vec<Value> = self
            .steps
            .iter()
            .enumerate()
            .map(|(t, s)| {
                json!({
                    "t": t,
                    "actions": s.actions.iter().map(|a| a.letter().to_string()).collect::<Vec<_>>(),
                    "reward": s.reward,
                    "shaped": s.shaped,
                    "events": s.events,
                    "state": trace_state(layout, &self.settings, &s.state),
                })
            })
            .collect();
        json!({
            "game": "overcooked_v2",
            "layout": layout.name,
            "layout_text": layout.to_text(),
            "settings": self.settings,
            "agents": self.agents,
            "seed": self.seed,
            "start": trace_state(layout, &self.settings, &self.start),
            "total_reward": self.score,
            "correct_deliveries": self.correct,
            "wrong_deliveries": self.wrong,
            "steps": steps,
            "skill_events": self.skill_events,
        })
    }
}
