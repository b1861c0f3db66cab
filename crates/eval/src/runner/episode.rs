//! One seeded episode of two seats: every joint action, reward and state is
//! recorded, with each player's skill events, belief corrections and model use,
//! and turned into the reference trajectory schema and a one-line summary.
//!
//! An episode whose model failed is never passed off as a played one: when a seat's
//! agent cannot go on (its model refused the configuration), or the seats' model
//! calls failed after every retry more often than [`EpisodeOptions::max_llm_failures`]
//! allows, the episode stops at once and [`play_episode`] returns an
//! [`EpisodeFailed`] holding what was played, never a score.

use proagent_overcooked::env::trace::state_json;
use proagent_overcooked::env::{Action, Event, Layout, State, StepOutcome};
use proagent_overcooked::policy::{Agent, BeliefCorrection, LlmUsage, Observation, SkillEvent, seat_seed};
use serde_json::{Value, json};
use std::sync::Arc;

/// An episode ends in a deadlock when both players stood still this long at its end.
pub const DEADLOCK_TAIL: u32 = 50;

/// What an observer sees after each step.
pub struct StepView<'a> {
    /// The timestep that was just played.
    pub t: u32,
    /// The layout.
    pub layout: &'a Layout,
    /// The state after the step.
    pub state: &'a State,
    /// Both players' actions.
    pub joint: [Action; 2],
    /// Rewards and interact events of the step.
    pub outcome: &'a StepOutcome,
    /// Skill events of this step, both players.
    pub skill_events: &'a [SkillEvent],
    /// Belief corrections the agents made this step (see `Agent::drain_belief_events`).
    pub beliefs: &'a [BeliefCorrection],
    /// Team score so far, this step's reward included.
    pub score: u32,
    /// The seats, by player, for what they are doing (`Agent::status`, `Agent::llm_usage`).
    pub agents: [&'a dyn Agent; 2],
}

impl StepView<'_> {
    /// The body of a transcript step record: joint action letters, reward, skill events
    /// and belief corrections of this step.
    pub fn transcript_json(&self) -> Value {
        json!({
            "joint": [self.joint[0].letter().to_string(), self.joint[1].letter().to_string()],
            "reward": self.outcome.reward,
            "skill_events": self.skill_events,
            "belief": self.beliefs,
        })
    }
}

/// The seat of a [`StepView`] built outside [`play_episode`] (a browser game, a Python
/// loop): the real seats live elsewhere, and whoever reads the view (the transcript
/// recorder) needs nothing of them. It names itself "" and stays put.
pub struct Unseen;

#[async_trait::async_trait]
impl Agent for Unseen {
    fn name(&self) -> String {
        String::new()
    }
    fn reset(&mut self, _layout: &Layout, _seat: usize, _seed: u64) {}
    async fn act(&mut self, _obs: &Observation<'_>) -> Result<Action, proagent_overcooked::policy::AgentError> {
        Ok(Action::Stay)
    }
}

/// A callback run after every step.
pub type StepObserver<'a> = Box<dyn FnMut(&StepView<'_>) + Send + 'a>;

/// A check run after every step: `true` ends the episode there.
pub type StopCheck<'a> = Box<dyn Fn() -> bool + Send + 'a>;

/// How many model calls of an episode may fail after every retry before the episode
/// counts as failed: none. A call that exhausted its retries means the model was not
/// there for that decision, and the agent's fallback (`wait(1)`) is not its play.
pub const DEFAULT_MAX_LLM_FAILURES: u64 = 0;

/// Options of one episode.
pub struct EpisodeOptions<'a> {
    /// Called after every step (e.g. the CLI's `--render`).
    pub on_step: Option<StepObserver<'a>>,
    /// Asked after every step (after `on_step`); `true` ends the episode early, with
    /// fewer steps than the horizon (e.g. `replay` after the first request that is not
    /// in the recording: nothing after it can match).
    pub stop: Option<StopCheck<'a>>,
    /// The most model calls (both seats together) that may fail after every retry;
    /// one more stops the episode as failed. `None`: no limit (e.g. replaying a
    /// recording). Default [`DEFAULT_MAX_LLM_FAILURES`].
    pub max_llm_failures: Option<u64>,
}

impl Default for EpisodeOptions<'_> {
    fn default() -> Self {
        EpisodeOptions { on_step: None, stop: None, max_llm_failures: Some(DEFAULT_MAX_LLM_FAILURES) }
    }
}

pub use proagent_overcooked::policy::EpisodeAbort;

/// An episode that stopped before its horizon, with what was played until then.
#[derive(Debug, thiserror::Error)]
#[error("{abort}")]
pub struct EpisodeFailed {
    /// Why it stopped.
    pub abort: EpisodeAbort,
    /// The steps played before it stopped (its score is no result).
    pub partial: Box<EpisodeResult>,
}

impl EpisodeFailed {
    /// The summary of the partial episode, marked `"failed": true` with the `error`
    /// and the timestep it `failed_at` (the footer of a failed transcript).
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

/// One recorded step.
#[derive(Clone, Debug)]
pub struct StepRecord {
    /// Player 0's and player 1's actions.
    pub joint: [Action; 2],
    /// Rewards and interact events of the step.
    pub outcome: StepOutcome,
    /// The state after the step.
    pub state: State,
}

/// A finished episode.
#[derive(Clone, Debug)]
pub struct EpisodeResult {
    /// The layout played.
    pub layout: Arc<Layout>,
    /// The agents' names, by player.
    pub agents: [String; 2],
    /// The episode seed; each seat is reset with a seed derived from it.
    pub seed: u64,
    /// Episode length in ticks; every episode plays all of them.
    pub horizon: u32,
    /// The start state (timestep 0).
    pub start: State,
    /// One record per timestep, in order.
    pub steps: Vec<StepRecord>,
    /// Both players' skill events, in the order they happened.
    pub skill_events: Vec<SkillEvent>,
    /// `Agent::metrics()` of each player at the end.
    pub metrics: [Value; 2],
    /// `Agent::llm_usage()` of each player at the end.
    pub llm: [LlmUsage; 2],
    /// Team score: sum of the sparse rewards (20 per soup on the default recipe).
    pub score: u32,
    /// Soups served by either player.
    pub deliveries: u32,
    /// Steps in which neither player moved nor interacted with effect.
    pub stuck_steps: u32,
    /// How many such steps end the episode.
    pub idle_tail: u32,
}

/// Plays one episode. `agents[i]` controls player `i`; each is reset with a
/// seed derived from `seed`, so the same seed gives the same episode. Fails (with
/// the steps played so far) when a seat's agent cannot go on or the model calls
/// failed more often than `options.max_llm_failures` allows.
pub async fn play_episode(
    layout: Arc<Layout>,
    mut agents: [Box<dyn Agent>; 2],
    seed: u64,
    horizon: u32,
    mut options: EpisodeOptions<'_>,
) -> Result<EpisodeResult, EpisodeFailed> {
    for (i, a) in agents.iter_mut().enumerate() {
        a.reset(&layout, i, seat_seed(seed, i));
    }
    let start = layout.start_state();
    let mut state = start.clone();
    let mut steps = Vec::with_capacity(horizon as usize);
    let mut skill_events = Vec::new();
    let mut last_joint = None;
    let mut last_events: [Option<Event>; 2] = [None, None];
    let (mut score, mut deliveries, mut stuck, mut tail) = (0u32, 0u32, 0u32, 0u32);
    for t in 0..horizon {
        let mut joint = [Action::Stay; 2];
        for i in 0..2 {
            let obs = Observation { layout: &layout, state: &state, seat: i, last_joint, last_events };
            let abort = match agents[i].act(&obs).await {
                Ok(action) => {
                    joint[i] = action;
                    too_many_failures(&agents, i, t, options.max_llm_failures)
                }
                Err(error) => Some(EpisodeAbort::Agent { t, player: i, agent: agents[i].name(), error }),
            };
            if let Some(abort) = abort {
                for a in agents.iter_mut() {
                    skill_events.extend(a.drain_skill_events());
                }
                let partial = EpisodeResult {
                    agents: [agents[0].name(), agents[1].name()],
                    metrics: [agents[0].metrics(), agents[1].metrics()],
                    llm: [agents[0].llm_usage(), agents[1].llm_usage()],
                    layout,
                    seed,
                    horizon,
                    start,
                    steps,
                    skill_events,
                    score,
                    deliveries,
                    stuck_steps: stuck,
                    idle_tail: tail,
                };
                return Err(EpisodeFailed { abort, partial: Box::new(partial) });
            }
        }
        let before = [state.players[0].pos, state.players[1].pos];
        let outcome = layout.step(&mut state, joint);
        let first_event = skill_events.len();
        let mut beliefs = Vec::new();
        for a in agents.iter_mut() {
            skill_events.extend(a.drain_skill_events());
            beliefs.extend(a.drain_belief_events());
        }
        score += outcome.reward;
        deliveries += outcome.events.iter().filter(|e| matches!(e, Some(Event::Deliver { .. }))).count() as u32;
        let still =
            before == [state.players[0].pos, state.players[1].pos] && outcome.events.iter().all(Option::is_none);
        if still {
            stuck += 1;
            tail += 1;
        } else {
            tail = 0;
        }
        if let Some(f) = options.on_step.as_mut() {
            f(&StepView {
                t,
                layout: &layout,
                state: &state,
                joint,
                outcome: &outcome,
                skill_events: &skill_events[first_event..],
                beliefs: &beliefs,
                score,
                agents: [&*agents[0], &*agents[1]],
            });
        }
        last_joint = Some(joint);
        last_events = outcome.events;
        steps.push(StepRecord { joint, outcome, state: state.clone() });
        if options.stop.as_ref().is_some_and(|stop| stop()) {
            break;
        }
    }
    Ok(EpisodeResult {
        agents: [agents[0].name(), agents[1].name()],
        metrics: [agents[0].metrics(), agents[1].metrics()],
        llm: [agents[0].llm_usage(), agents[1].llm_usage()],
        layout,
        seed,
        horizon,
        start,
        steps,
        skill_events,
        score,
        deliveries,
        stuck_steps: stuck,
        idle_tail: tail,
    })
}

/// The abort for an episode whose seats' failed model calls passed `limit` once player
/// `i` acted, if they did.
fn too_many_failures(agents: &[Box<dyn Agent>; 2], i: usize, t: u32, limit: Option<u64>) -> Option<EpisodeAbort> {
    let limit = limit?;
    let failures = agents[0].llm_usage().failures.saturating_add(agents[1].llm_usage().failures);
    (failures > limit).then(|| EpisodeAbort::LlmFailures {
        t,
        failures,
        limit,
        last: agents[i].last_llm_failure().or_else(|| agents[1 - i].last_llm_failure()),
    })
}

impl EpisodeResult {
    /// Both players stood still (no move, no effective interact) for the last
    /// [`DEADLOCK_TAIL`] steps or more.
    pub fn deadlocked(&self) -> bool {
        self.idle_tail >= DEADLOCK_TAIL
    }

    /// The episode in the reference trace schema (one JSON Lines record), plus
    /// `agents`, `seed` and `skill_events`.
    pub fn to_trajectory_json(&self) -> Value {
        let layout = &*self.layout;
        let players: Vec<Value> = self
            .start
            .players
            .iter()
            .map(|p| {
                let (dx, dy) = p.dir.delta();
                json!({"pos": [p.pos.x, p.pos.y], "or": [dx, dy]})
            })
            .collect();
        let steps: Vec<Value> = self
            .steps
            .iter()
            .enumerate()
            .map(|(t, s)| {
                json!({
                    "t": t,
                    "actions": [s.joint[0].letter().to_string(), s.joint[1].letter().to_string()],
                    "reward": s.outcome.reward,
                    "sparse_by_player": s.outcome.sparse_by_player,
                    "shaped_by_player": s.outcome.shaped_by_player,
                    "state": state_json(layout, &s.state),
                })
            })
            .collect();
        json!({
            "layout": layout.name,
            "old_dynamics": true,
            "horizon": self.horizon,
            "grid": layout.grid,
            "policy": {"kind": "play", "agents": self.agents, "seed": self.seed},
            "agents": self.agents,
            "seed": self.seed,
            "start": {"players": players},
            "total_reward": self.score,
            "deliveries": self.deliveries,
            "steps": steps,
            "skill_events": self.skill_events,
        })
    }

    /// Constructive interdependence and accepted hand-overs (see `analysis`) of the
    /// episode, or why they could not be computed.
    pub fn teamwork(&self) -> Result<proagent_analysis::Report, proagent_analysis::AnalysisError> {
        let joint: Vec<[proagent_overcooked::env::Action; 2]> = self.steps.iter().map(|s| s.joint).collect();
        proagent_analysis::episode_report(&self.layout, &self.start, &joint)
    }

    /// The one-object summary of `proagent play --json`, from the point of view
    /// of the agent in `seat`; see [`EpisodeResult::summary_with`].
    pub fn summary_json(&self, seat: usize) -> Value {
        self.summary_with(seat, &self.teamwork())
    }

    /// The one-object summary of `proagent play --json`, from the point of view of the
    /// agent in `seat`, with the episode's [`EpisodeResult::teamwork`] already computed.
    /// The agent's metrics are merged in (without overriding the fields here); the
    /// partner's go under `partner_metrics`.
    pub fn summary_with(
        &self,
        seat: usize,
        teamwork: &Result<proagent_analysis::Report, proagent_analysis::AnalysisError>,
    ) -> Value {
        let seat = seat.min(1);
        let teamwork = match teamwork {
            Ok(r) => proagent_analysis::metrics_json(r),
            Err(e) => json!({ "error": e.to_string() }),
        };
        let mut v = json!({
            "layout": self.layout.name,
            "agent": self.agents[seat],
            "partner": self.agents[1 - seat],
            "seat": seat,
            "seed": self.seed,
            "horizon": self.horizon,
            "score": self.score,
            "deliveries": self.deliveries,
            "steps": self.steps.len(),
            "stuck_steps": self.stuck_steps,
            "idle_tail": self.idle_tail,
            "deadlock": self.deadlocked(),
            "partner_metrics": self.metrics[1 - seat],
            "teamwork": teamwork,
        });
        if let (Some(obj), Value::Object(m)) = (v.as_object_mut(), &self.metrics[seat]) {
            for (key, val) in m {
                obj.entry(key.clone()).or_insert_with(|| val.clone());
            }
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runner::seats::build_partner as build;
    use proagent_overcooked::controller::Kitchen;
    use proagent_overcooked::env::trace::{Trajectory, verify};

    fn run(layout: &str, a: &str, b: &str, seed: u64, horizon: u32) -> EpisodeResult {
        let k = Kitchen::shared(Layout::builtin(layout).unwrap());
        let agents = [build(a, &k).unwrap(), build(b, &k).unwrap()];
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        rt.block_on(play_episode(Arc::clone(&k.layout), agents, seed, horizon, EpisodeOptions::default())).unwrap()
    }

    #[test]
    fn same_seed_same_trajectory_and_it_replays() {
        for (a, b) in [("scripted", "greedy"), ("random", "courier")] {
            let x = run("cramped_room", a, b, 4, 120);
            let y = run("cramped_room", a, b, 4, 120);
            assert_eq!(x.to_trajectory_json(), y.to_trajectory_json());
            let traj: Trajectory = serde_json::from_value(x.to_trajectory_json()).unwrap();
            let report = verify(&traj).unwrap();
            assert!(report.passed, "{report:?}");
            assert_eq!(report.total_reward, x.score);
        }
        let z = run("cramped_room", "random", "random", 5, 120);
        let w = run("cramped_room", "random", "random", 6, 120);
        assert_ne!(z.to_trajectory_json()["steps"], w.to_trajectory_json()["steps"]);
    }

    #[test]
    fn summary_has_the_fields_and_detects_a_deadlock() {
        let r = run("cramped_room", "stay", "stay", 0, 80);
        let s = r.summary_json(0);
        for key in ["layout", "agent", "partner", "seat", "seed", "score", "deliveries", "steps", "stuck_steps"] {
            assert!(s.get(key).is_some(), "{key}");
        }
        assert_eq!(s["steps"], 80);
        assert_eq!(s["deadlock"], true);
        assert_eq!(r.stuck_steps, 80);
        let r = run("cramped_room", "scripted", "greedy", 0, 80);
        assert!(!r.deadlocked());
        let s = r.summary_json(1);
        assert_eq!(s["agent"], "greedy");
        assert_eq!(s["partner_metrics"]["skills_started"].as_u64().map(|n| n > 0), Some(true));
    }
}
