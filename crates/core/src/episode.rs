//! One seeded episode of any game: the seats act when [`Game::turn`] says so, the game
//! steps, and everything is recorded — every action, outcome and state, each seat's skill
//! events, belief corrections, metrics and model use — into an [`EpisodeResult`].
//!
//! Guarantees:
//! - **Seeded.** Each seat is reset with [`seat_seed`]`(seed, player)`; the game's own
//!   chance is a ChaCha8 stream seeded with [`env_seed`]`(seed)`, apart from the seats' seeds,
//!   so the same seed plays the same episode whatever the seats do with their randomness.
//! - **An episode whose model failed is never passed off as a played one.** When a seat
//!   cannot go on (its model refused the configuration), or the seats' model calls failed
//!   after every retry more often than [`EpisodeOptions::max_llm_failures`] allows, the
//!   episode stops at once and [`play_episode`] returns an [`EpisodeFailed`] holding what
//!   was played, never a score.
//! - **An episode whose decisions were not read is no result either.** When more than
//!   [`EpisodeOptions::max_parse_failure_share`] of the seats' decisions (the model calls
//!   whose reply chooses an action, [`LlmUsage::decisions`]) were not read as an action
//!   ([`LlmUsage::decisions_unread`]), the episode is played to its end and then returned
//!   as an [`EpisodeFailed`] (its score measures the fallback, not the model). Calls that
//!   only help a decision (Theory of Mind, verification, explanations) are in neither
//!   count, whatever their replies say: the agents' shared call maker classifies every
//!   call, and a decision counts as unread until its agent read an action from it.
//! - Seats are asked in player order; a seat is asked only on its player's turn.

use crate::game::{Chance, Game};
use crate::seat::{BeliefCorrection, EpisodeAbort, LlmUsage, Observation, Seat, SkillEvent, derive_seed, seat_seed};
use rand::SeedableRng;
use std::sync::Arc;

/// An episode ends in a deadlock when nothing happened this long at its end.
pub const DEADLOCK_TAIL: u32 = 50;

/// How many model calls of an episode may fail after every retry before the episode
/// counts as failed: none. A call that exhausted its retries means the model was not
/// there for that decision, and the agent's fallback is not its play.
pub const DEFAULT_MAX_LLM_FAILURES: u64 = 0;

/// The largest share of an episode's decisions (the model calls whose reply chooses an
/// action) that may go unread ([`LlmUsage::unread_share`]) before the episode counts as
/// failed: half. Past it the model's choices were mostly not read, and the score measures
/// the fallback (`wait(1)`, or the grounding's fallback action).
pub const DEFAULT_MAX_PARSE_FAILURE_SHARE: f64 = 0.5;

/// The stream of [`derive_seed`] the game's chance uses.
pub const ENV_STREAM: u64 = 0x0e2;

/// The seed of the game's own chance in an episode with `seed`.
pub fn env_seed(seed: u64) -> u64 {
    derive_seed(seed, ENV_STREAM)
}

/// The game's chance (recipes drawn, random starts, the deck) of an episode with `seed`,
/// as [`play_episode`] uses it: the same seed gives the same draws wherever it is used.
pub fn env_chance(seed: u64) -> rand_chacha::ChaCha8Rng {
    rand_chacha::ChaCha8Rng::seed_from_u64(env_seed(seed))
}

/// What an observer sees after each step.
pub struct StepView<'a, G: Game> {
    /// The step just played (0 for the first).
    pub t: u32,
    /// The game.
    pub game: &'a G,
    /// The state after the step.
    pub state: &'a G::State,
    /// Every player's action (`None` for a player who did not move).
    pub actions: &'a [Option<G::Action>],
    /// What the step did.
    pub outcome: &'a G::Outcome,
    /// Skill events of this step, all players.
    pub skill_events: &'a [SkillEvent],
    /// Belief corrections the seats made this step.
    pub beliefs: &'a [BeliefCorrection],
    /// Team score so far, this step's reward included.
    pub score: i64,
    /// The seats, by player, for what they are doing ([`Seat::status`], [`Seat::llm_usage`]).
    pub seats: &'a [Box<dyn Seat<G>>],
}

/// A callback run after every step.
pub type StepObserver<'a, G> = Box<dyn FnMut(&StepView<'_, G>) + Send + 'a>;

/// A check run after every step: `true` ends the episode there.
pub type StopCheck<'a> = Box<dyn Fn() -> bool + Send + 'a>;

/// Options of one episode.
pub struct EpisodeOptions<'a, G: Game> {
    /// Called after every step (a transcript recorder, `--render`).
    pub on_step: Option<StepObserver<'a, G>>,
    /// Asked after every step (after `on_step`); `true` ends the episode early, with
    /// fewer steps than the horizon (e.g. `replay` after the first request that is not
    /// in the recording: nothing after it can match).
    pub stop: Option<StopCheck<'a>>,
    /// The most model calls (all seats together) that may fail after every retry;
    /// one more stops the episode as failed. `None`: no limit (e.g. replaying a
    /// recording). Default [`DEFAULT_MAX_LLM_FAILURES`].
    pub max_llm_failures: Option<u64>,
    /// The largest share of the seats' decisions whose replies may go unread (naming no
    /// usable action, or never coming); an episode over it fails when it ends (its steps
    /// are played, its score is no result). `None`: no limit. Default
    /// [`DEFAULT_MAX_PARSE_FAILURE_SHARE`].
    pub max_parse_failure_share: Option<f64>,
}

impl<G: Game> Default for EpisodeOptions<'_, G> {
    fn default() -> Self {
        EpisodeOptions {
            on_step: None,
            stop: None,
            max_llm_failures: Some(DEFAULT_MAX_LLM_FAILURES),
            max_parse_failure_share: Some(DEFAULT_MAX_PARSE_FAILURE_SHARE),
        }
    }
}

/// One recorded step.
#[derive(Clone, Debug)]
pub struct StepRecord<G: Game> {
    /// Every player's action (`None` for a player who did not move).
    pub actions: Vec<Option<G::Action>>,
    /// What the step did.
    pub outcome: G::Outcome,
    /// The state after the step.
    pub state: G::State,
}

/// A played episode (or, inside an [`EpisodeFailed`], the part played before it stopped).
#[derive(Clone, Debug)]
pub struct EpisodeResult<G: Game> {
    /// The game played.
    pub game: Arc<G>,
    /// The seats' names, by player.
    pub agents: Vec<String>,
    /// The episode seed.
    pub seed: u64,
    /// The start state.
    pub start: G::State,
    /// One record per step, in order.
    pub steps: Vec<StepRecord<G>>,
    /// All players' skill events, in the order they happened.
    pub skill_events: Vec<SkillEvent>,
    /// [`Seat::metrics`] of each player at the end.
    pub metrics: Vec<serde_json::Value>,
    /// [`Seat::llm_usage`] of each player at the end.
    pub llm: Vec<LlmUsage>,
    /// Team score: the sum of the steps' rewards.
    pub score: i64,
    /// The game's own counters ([`Game::tally`]).
    pub tally: G::Tally,
    /// Steps in which nothing happened ([`Game::idle`]).
    pub stuck_steps: u32,
    /// How many such steps end the episode.
    pub idle_tail: u32,
}

impl<G: Game> EpisodeResult<G> {
    /// Nothing happened for the last [`DEADLOCK_TAIL`] steps or more.
    pub fn deadlocked(&self) -> bool {
        self.idle_tail >= DEADLOCK_TAIL
    }

    /// Every seat's model use together (sums saturate).
    pub fn llm_total(&self) -> LlmUsage {
        self.llm.iter().fold(LlmUsage::default(), |a, b| a.plus(*b))
    }

    /// The actions of every step.
    pub fn actions(&self) -> impl Iterator<Item = &[Option<G::Action>]> {
        self.steps.iter().map(|s| s.actions.as_slice())
    }
}

/// An episode that stopped before its horizon, with what was played until then.
#[derive(Debug, thiserror::Error)]
#[error("{abort}")]
pub struct EpisodeFailed<G: Game> {
    /// Why it stopped.
    pub abort: EpisodeAbort,
    /// The steps played before it stopped (its score is no result).
    pub partial: Box<EpisodeResult<G>>,
}

/// Plays one episode of `game`: `seats[i]` controls player `i` (one seat per player).
/// Fails, with the steps played so far, when a seat cannot go on or the seats' model
/// calls failed more often than `options.max_llm_failures` allows.
pub async fn play_episode<G: Game>(
    game: Arc<G>,
    mut seats: Vec<Box<dyn Seat<G>>>,
    seed: u64,
    mut options: EpisodeOptions<'_, G>,
) -> Result<EpisodeResult<G>, EpisodeFailed<G>> {
    let n = game.num_players().min(seats.len());
    for (i, s) in seats.iter_mut().enumerate() {
        s.reset(&game, i, seat_seed(seed, i));
    }
    let mut chance = env_chance(seed);
    let start = game.initial_state(&mut chance as &mut dyn Chance);
    let mut state = start.clone();
    let horizon = game.max_steps();
    let mut steps: Vec<StepRecord<G>> = Vec::with_capacity(horizon.min(100_000) as usize);
    let mut skill_events = Vec::new();
    let mut last_actions: Vec<Option<G::Action>> = Vec::new();
    let mut last_events: Vec<Option<G::Event>> = vec![None; n];
    let (mut score, mut stuck, mut tail) = (0i64, 0u32, 0u32);
    let mut tally = G::Tally::default();
    for t in 0..horizon {
        if game.is_over(&state) {
            break;
        }
        let turn = game.turn(&state);
        let mut actions: Vec<Option<G::Action>> = vec![None; n];
        for i in 0..n {
            if !turn.includes(i) {
                continue;
            }
            let obs = Observation {
                game: &*game,
                view: game.view(&state, i),
                seat: i,
                t,
                last_actions: &last_actions,
                last_events: &last_events,
            };
            let abort = match seats[i].act(&obs).await {
                Ok(action) => {
                    actions[i] = Some(action);
                    too_many_failures(&seats, i, t, options.max_llm_failures)
                }
                Err(error) => Some(EpisodeAbort::Agent { t, player: i, agent: seats[i].name(), error }),
            };
            if let Some(abort) = abort {
                for s in seats.iter_mut() {
                    skill_events.extend(s.drain_skill_events());
                }
                let partial = EpisodeResult {
                    agents: seats.iter().map(|s| s.name()).collect(),
                    metrics: seats.iter().map(|s| s.metrics()).collect(),
                    llm: seats.iter().map(|s| s.llm_usage()).collect(),
                    game,
                    seed,
                    start,
                    steps,
                    skill_events,
                    score,
                    tally,
                    stuck_steps: stuck,
                    idle_tail: tail,
                };
                return Err(EpisodeFailed { abort, partial: Box::new(partial) });
            }
        }
        let outcome = game.step(&mut state, &actions, &mut chance as &mut dyn Chance);
        // The state before this step is the last record's (or the start): no copy needed.
        let before = steps.last().map_or(&start, |r| &r.state);
        let first_event = skill_events.len();
        let mut beliefs = Vec::new();
        for s in seats.iter_mut() {
            skill_events.extend(s.drain_skill_events());
            beliefs.extend(s.drain_belief_events());
        }
        score = score.saturating_add(i64::from(game.reward(&outcome)));
        game.tally(&mut tally, before, &state, &outcome);
        if game.idle(before, &state, &outcome) {
            stuck += 1;
            tail += 1;
        } else {
            tail = 0;
        }
        if let Some(f) = options.on_step.as_mut() {
            f(&StepView {
                t,
                game: &game,
                state: &state,
                actions: &actions,
                outcome: &outcome,
                skill_events: &skill_events[first_event..],
                beliefs: &beliefs,
                score,
                seats: &seats,
            });
        }
        for (i, e) in last_events.iter_mut().enumerate() {
            *e = game.event(&outcome, i).cloned();
        }
        last_actions.clone_from(&actions);
        steps.push(StepRecord { actions, outcome, state: state.clone() });
        if options.stop.as_ref().is_some_and(|stop| stop()) {
            break;
        }
    }
    let result = EpisodeResult {
        agents: seats.iter().map(|s| s.name()).collect(),
        metrics: seats.iter().map(|s| s.metrics()).collect(),
        llm: seats.iter().map(|s| s.llm_usage()).collect(),
        game,
        seed,
        start,
        steps,
        skill_events,
        score,
        tally,
        stuck_steps: stuck,
        idle_tail: tail,
    };
    match unread_replies(&result, options.max_parse_failure_share) {
        Some(abort) => Err(EpisodeFailed { abort, partial: Box::new(result) }),
        None => Ok(result),
    }
}

/// The abort for a played episode whose seats' decisions went unread in more than
/// `limit` of them, if they did.
fn unread_replies<G: Game>(result: &EpisodeResult<G>, limit: Option<f64>) -> Option<EpisodeAbort> {
    unread_decisions(&result.llm_total(), limit?, result.steps.len() as u32)
}

/// The one rule for unread decisions, for the episode runner and for any caller that
/// plays its own loop: the abort (at step `t`) when more than `limit` of the decisions
/// in `usage` were not read as an action, else `None` (also without decisions).
pub fn unread_decisions(usage: &LlmUsage, limit: f64, t: u32) -> Option<EpisodeAbort> {
    let share = usage.unread_share()?;
    let unread = usage.decisions_unread.min(usage.decisions);
    (share > limit).then(|| EpisodeAbort::ParseFailures {
        t,
        unread,
        parse_failures: usage.parse_failures.min(unread),
        decisions: usage.decisions,
        limit,
    })
}

/// The abort for an episode whose seats' failed model calls passed `limit` once player
/// `i` acted, if they did.
fn too_many_failures<G: Game>(
    seats: &[Box<dyn Seat<G>>],
    i: usize,
    t: u32,
    limit: Option<u64>,
) -> Option<EpisodeAbort> {
    let limit = limit?;
    let failures = seats.iter().fold(0u64, |n, s| n.saturating_add(s.llm_usage().failures));
    (failures > limit).then(|| EpisodeAbort::LlmFailures {
        t,
        failures,
        limit,
        last: seats[i].last_llm_failure().or_else(|| seats.iter().find_map(|s| s.last_llm_failure())),
    })
}
