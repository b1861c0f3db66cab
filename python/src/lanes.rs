//! The engine under `VecEnv` and the Gymnasium / PettingZoo wrappers: lanes of one game,
//! each an episode with its own seed, chance stream and built-in partner seats, stepped
//! in place (over threads if asked) with the interpreter released.
//!
//! Guarantees:
//! - **Seeds mean something.** A lane's episode with seed `s` draws the game's chance from
//!   `env_chance(s)` and resets partner seat `p` with `seat_seed(s, p)`, exactly as
//!   `proagent play --seed s` does, so the same seed plays the same episode here and in
//!   the runner. A lane seeded `b` plays episodes `b`, `derive_seed(b, 1)`,
//!   `derive_seed(b, 2)`, … so successive episodes (auto-reset or not) differ.
//! - **Exact copies.** Every lane keeps its episode's seed and the joint actions played
//!   since; re-playing them (partners asked again, so their own state follows) rebuilds
//!   the lane exactly. Pickling and deep copies go through it.
//! - Partner seats answer at once (no model is awaited inside a step); one that cannot is
//!   an error, not a hang.

use crate::obs::{Obs, PyGame};
use proagent_core::game::{Chance, Game};
use proagent_core::seat::{Observation, Seat, derive_seed, seat_seed};
use proagent_overcooked::env::Action;
use rand_chacha::ChaCha8Rng;
use std::future::Future;
use std::sync::Mutex;
use std::task::{Context, Poll, Waker};

/// The seed of episode `k` of a lane seeded `base`.
pub fn episode_seed(base: u64, k: u64) -> u64 {
    if k == 0 { base } else { derive_seed(base, k) }
}

/// Asks a seat for its action and insists on an immediate answer.
fn act_now<G: Game>(seat: &mut Box<dyn Seat<G>>, obs: &Observation<'_, G>) -> Result<G::Action, String> {
    let name = seat.name();
    let mut fut = std::pin::pin!(seat.act(obs));
    match fut.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(Ok(a)) => Ok(a),
        Poll::Ready(Err(e)) => Err(format!("partner {name} stopped: {e}")),
        Poll::Pending => {
            Err(format!("partner {name} waits for a model; built-in partners of an environment must answer at once"))
        }
    }
}

/// One episode of a lane.
pub struct Lane<G: PyGame> {
    /// The state.
    pub state: G::State,
    chance: ChaCha8Rng,
    /// This episode's seed.
    pub seed: u64,
    /// The lane's base seed.
    pub base: u64,
    /// Episodes started since the lane was seeded (this one is `episode`).
    pub episode: u64,
    /// Built-in seats by player (`None`: the learner's player). The mutex makes the lane
    /// shareable; it is only ever reached through `&mut` (`get_mut`, no locking).
    pub partners: Vec<Option<Mutex<Box<dyn Seat<G>>>>>,
    /// The last step's actions by player.
    pub last_actions: Vec<Option<Action>>,
    /// The last step's events by player.
    pub last_events: Vec<Option<G::Event>>,
    /// The last step's outcome.
    pub last_outcome: Option<G::Outcome>,
    /// The episode's score so far.
    pub score: i64,
    /// Every joint action played this episode, flattened (action indices).
    pub history: Vec<u8>,
    /// Whether the episode has ended (without auto-reset).
    pub done: bool,
}

/// Most players a lane reports per-player figures for (OvercookedV2's agent limit).
pub const MAX_PLAYERS: usize = 16;

/// What one lane's step produced (fixed-size: a step allocates nothing).
#[derive(Clone, Debug, Default)]
pub struct LaneOut {
    /// The team reward.
    pub reward: f32,
    /// The game ended by its own rules.
    pub terminated: bool,
    /// The episode reached its step limit.
    pub truncated: bool,
    /// Sparse reward per player (the first `players` entries).
    pub sparse: [f32; MAX_PLAYERS],
    /// Shaped reward per player.
    pub shaped: [f32; MAX_PLAYERS],
    /// The joint action played, by player.
    pub actions: [u8; MAX_PLAYERS],
    /// The finished episode's score (set on the step that ends an episode).
    pub final_score: f32,
    /// The finished episode's last observation (auto-reset only).
    pub final_obs: Option<Vec<f32>>,
    /// The lane could not step (a partner failed).
    pub error: Option<String>,
}

impl<G: PyGame> Lane<G> {
    /// A lane whose first episode has seed `base`; `partners[p]` plays player `p`.
    pub fn new(game: &G, base: u64, partners: Vec<Option<Box<dyn Seat<G>>>>) -> Lane<G> {
        let partners = partners.into_iter().map(|p| p.map(Mutex::new)).collect();
        let mut chance = proagent_eval::runner::env_chance(base);
        let state = game.initial_state(&mut chance as &mut dyn Chance);
        let mut lane = Lane {
            state,
            chance,
            seed: base,
            base,
            episode: 0,
            partners,
            last_actions: Vec::new(),
            last_events: Vec::new(),
            last_outcome: None,
            score: 0,
            history: Vec::new(),
            done: false,
        };
        lane.start(game, base);
        lane
    }

    /// Starts an episode with `seed` (chance, state, partners, counters).
    fn start(&mut self, game: &G, seed: u64) {
        self.seed = seed;
        self.chance = proagent_eval::runner::env_chance(seed);
        self.state = game.initial_state(&mut self.chance as &mut dyn Chance);
        for (p, s) in self.partners.iter_mut().enumerate() {
            if let Some(s) = s {
                s.get_mut().unwrap_or_else(|e| e.into_inner()).reset(game, p, seat_seed(seed, p));
            }
        }
        self.last_actions.clear();
        self.last_events.clear();
        self.last_outcome = None;
        self.score = 0;
        self.history.clear();
        self.done = false;
    }

    /// Seeds the lane with `base` (its next episode has that seed) and starts it.
    pub fn reseed(&mut self, game: &G, base: u64) {
        self.base = base;
        self.episode = 0;
        self.start(game, base);
    }

    /// Starts the lane's next episode.
    pub fn next_episode(&mut self, game: &G) {
        self.episode += 1;
        let seed = episode_seed(self.base, self.episode);
        self.start(game, seed);
    }

    /// The joint action of this step: the learners' given, the partners' asked.
    fn joint(
        &mut self,
        game: &G,
        learners: &[usize],
        acts: &[Action],
    ) -> Result<[Option<Action>; MAX_PLAYERS], String> {
        let turn = game.turn(&self.state);
        let mut actions = [None; MAX_PLAYERS];
        for (&p, &a) in learners.iter().zip(acts) {
            if turn.includes(p) {
                actions[p] = Some(a);
            }
        }
        let t = game.time(&self.state);
        for (p, seat) in self.partners.iter_mut().enumerate() {
            let Some(seat) = seat else { continue };
            let seat = seat.get_mut().unwrap_or_else(|e| e.into_inner());
            if !turn.includes(p) {
                continue;
            }
            let obs = Observation {
                game,
                view: game.view(&self.state, p),
                seat: p,
                t,
                last_actions: &self.last_actions,
                last_events: &self.last_events,
            };
            actions[p] = Some(act_now(seat, &obs)?);
        }
        Ok(actions)
    }

    fn apply(&mut self, game: &G, actions: &[Option<Action>; MAX_PLAYERS], out: &mut LaneOut) {
        let n = game.num_players().min(MAX_PLAYERS);
        let outcome = game.step(&mut self.state, &actions[..n], &mut self.chance as &mut dyn Chance);
        let reward = game.reward(&outcome);
        self.score = self.score.saturating_add(i64::from(reward));
        out.reward = reward as f32;
        for (p, a) in actions[..n].iter().enumerate() {
            out.sparse[p] = game.sparse(&outcome, p);
            out.shaped[p] = game.shaped(&outcome, p);
            out.actions[p] = a.map_or(Action::Stay.index(), Action::index) as u8;
        }
        self.history.extend_from_slice(&out.actions[..n]);
        // Reused buffers: no allocation after the first step.
        self.last_events.clear();
        self.last_events.extend((0..n).map(|p| game.event(&outcome, p).cloned()));
        self.last_actions.clear();
        self.last_actions.extend_from_slice(&actions[..n]);
        self.last_outcome = Some(outcome);
        // The step limit is a truncation even where a game reports it as its end (V2's
        // `done` is its step limit): only an end by the game's own rules terminates.
        out.truncated = game.time(&self.state) >= game.max_steps();
        out.terminated = !out.truncated && game.is_over(&self.state);
    }

    /// One step: `acts[k]` is learner `learners[k]`'s action. With `autoreset`, a finished
    /// episode is followed at once by the next (its last observation kept in the output).
    pub fn step(&mut self, game: &G, obs: &Obs, learners: &[usize], acts: &[Action], autoreset: bool) -> LaneOut {
        let mut out = LaneOut::default();
        if self.done {
            out.error = Some("the episode is over; call reset()".into());
            return out;
        }
        let actions = match self.joint(game, learners, acts) {
            Ok(a) => a,
            Err(e) => {
                out.error = Some(e);
                return out;
            }
        };
        self.apply(game, &actions, &mut out);
        if out.terminated || out.truncated {
            out.final_score = self.score as f32;
            if autoreset {
                if obs.len() > 0 {
                    let mut fin = vec![0f32; obs.len() * learners.len()];
                    for (k, &p) in learners.iter().enumerate() {
                        game.encode(obs, &self.state, p, &mut fin[k * obs.len()..(k + 1) * obs.len()]);
                    }
                    out.final_obs = Some(fin);
                }
                self.next_episode(game);
            } else {
                self.done = true;
            }
        } else {
            out.final_score = self.score as f32;
        }
        out
    }

    /// Re-plays the recorded joint actions of this lane's episode `episode` (seeded from
    /// `base`): the lane ends exactly where the recording was made.
    pub fn replay(&mut self, game: &G, base: u64, episode: u64, history: &[u8], done: bool) -> Result<(), String> {
        self.base = base;
        self.episode = episode;
        self.start(game, episode_seed(base, episode));
        let n = game.num_players().max(1);
        if !history.len().is_multiple_of(n) {
            return Err(format!("a recorded history of {} actions is not whole steps of {n}", history.len()));
        }
        for joint in history.chunks(n) {
            // The partners are asked again so that their own state follows the episode;
            // the recorded actions are the ones played.
            self.joint(game, &[], &[])?;
            let mut actions = [None; MAX_PLAYERS];
            for (slot, &i) in actions.iter_mut().zip(joint) {
                *slot = Some(Action::from_index(i as usize).ok_or("bad action in history")?);
            }
            let mut out = LaneOut::default();
            self.apply(game, &actions, &mut out);
        }
        self.done = done;
        Ok(())
    }
}
