//! A seat of the library's seat factory (the one `play` and the runner use: built-in
//! partners, or the ProAgent agent with the CLI's options) as the game-generic half of
//! the Python `Policy`: what a policy needs of a seat on any game, whatever the
//! game's state is. `Policy` uses it for every game but classic Overcooked; it acts on an
//! `Env` of its game, whose state and last step it reads through the one convention
//! ([`crate::games::Common::snapshot`]); its actions are the game codec's indices.
//!
//! Guarantees: the seat is reset with `seat_seed(seed, seat)`, as the runner resets it for
//! episode `seed`; `act` gives the seat the last joint action and the last step's events,
//! as inside the runner, so a Python loop plays the episode `play` plays for the same seed
//! (tested).

use crate::driving::{block_interruptible, checked_action, factory_of, runtime};
use crate::env::Env;
use crate::games::Snapshot;
use crate::options::AgentOptions;
use proagent_agent::ExchangeSink;
use proagent_core::game::Game;
use proagent_core::seat::{Observation, Seat, seat_seed};
use proagent_eval::games::playable::VectorCodec;
use proagent_eval::games::{AnyGame, GameOptions, Playable};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use std::sync::Arc;

type SharedSeat<G> = Arc<tokio::sync::Mutex<Box<dyn Seat<G>>>>;

/// A seat of a game `G` as a policy.
pub struct SeatPolicy<G: Game> {
    agent: SharedSeat<G>,
    game: Arc<G>,
    seat: usize,
    seed: u64,
    spec: String,
    name: String,
    sink: Option<ExchangeSink>,
    rt: tokio::runtime::Runtime,
    max_llm_failures: Option<u64>,
    /// The game's action indices.
    codec: Box<dyn VectorCodec<G>>,
}

/// The game a `layout` argument names (an `Env`, or a spec as the catalog loads it with
/// `horizon`) when a [`SeatPolicy`] plays it: every game but classic Overcooked, whose
/// policies (transcripts from a Python loop, pickling, state dicts) are
/// [`crate::policy::OvercookedPolicy`]; `None` for classic Overcooked or no layout.
pub fn game_of(layout: Option<&Bound<'_, PyAny>>, horizon: u32) -> PyResult<Option<AnyGame>> {
    let Some(l) = layout else { return Ok(None) };
    let game = if let Ok(e) = l.cast::<Env>() {
        e.borrow().common().any_game()
    } else {
        let Ok(spec) = l.extract::<String>() else { return Ok(None) };
        let horizon = crate::env::check_horizon(horizon)?;
        let opts: GameOptions = crate::vec_env::V2Switches::default().options(horizon);
        match crate::vec_env::load_game(&spec, None, &opts) {
            Ok((game, _)) => game,
            // An error is the classic loader's to judge.
            Err(_) => return Ok(None),
        }
    };
    Ok(match crate::env::layout::family(&game) {
        crate::env::layout::Family::Classic(_) => None,
        _ => Some(game),
    })
}

/// A [`SeatPolicy`] of any game, as `proagent.Policy` holds it.
pub trait AnySeatPolicy: Send + Sync {
    /// The action index (the game's codec's) for this seat in `env`'s current state.
    fn act(&self, py: Python<'_>, env: &Bound<'_, PyAny>) -> PyResult<usize>;
    /// Starts a new episode for the seat.
    fn reset(&mut self, py: Python<'_>, seed: Option<u64>) -> PyResult<()>;
    /// Agent-specific metrics so far.
    fn metrics(&self, py: Python<'_>) -> serde_json::Value;
    /// Language-model use so far.
    fn llm_usage(&self, py: Python<'_>) -> serde_json::Value;
    /// Skill events since the last call.
    fn skill_events(&self, py: Python<'_>) -> serde_json::Value;
    /// Where a ProAgent's exchanges go.
    fn sink(&self) -> Option<&ExchangeSink>;
    /// The seat's name.
    fn name(&self) -> &str;
    /// The player it plays.
    fn seat(&self) -> usize;
    /// The spec it was built from.
    fn spec(&self) -> &str;
    /// The text of `repr()`.
    fn repr(&self) -> String;
}

/// A policy of `game` built by the seat factory, type-erased.
pub fn build_any(
    kind: &str,
    seat: usize,
    seed: u64,
    game: AnyGame,
    options: Option<&Bound<'_, PyAny>>,
    max_llm_failures: i64,
) -> PyResult<Box<dyn AnySeatPolicy>> {
    proagent_eval::on_game!(game, |g| {
        let p: Box<dyn AnySeatPolicy> = Box::new(SeatPolicy::build(kind, seat, seed, g, options, max_llm_failures)?);
        Ok(p)
    })
}

/// The title a game's catalog entry gives it (`OvercookedV2`), for messages.
fn title_of(kind: &str) -> &'static str {
    proagent_eval::games::catalog::entries().iter().find(|e| e.kind == kind).map_or("another game", |e| e.title)
}

impl<G: Playable> AnySeatPolicy for SeatPolicy<G> {
    fn act(&self, py: Python<'_>, env: &Bound<'_, PyAny>) -> PyResult<usize> {
        let title = title_of(self.game.kind());
        let env = env.cast::<Env>().map_err(|_| {
            PyTypeError::new_err(format!("a policy of {title} acts on an Env of its game (policy.act(env))"))
        })?;
        let e = env.borrow();
        let snap = e.common().snapshot().downcast::<Snapshot<G>>().map_err(|_| {
            PyTypeError::new_err(format!(
                "this policy plays {title} ({}); the Env plays {}",
                self.game.spec(),
                e.common().spec()
            ))
        })?;
        if snap.game.spec() != self.game.spec() {
            return Err(PyValueError::new_err(format!(
                "this policy plays {}, the Env is {}",
                self.game.spec(),
                snap.game.spec()
            )));
        }
        drop(e);
        let t = self.game.time(&snap.state);
        let a = self.act_in(py, &snap.state, t, &snap.last_actions, &snap.last_events)?;
        Ok(self.codec.action_index(&self.game, a))
    }
    fn reset(&mut self, py: Python<'_>, seed: Option<u64>) -> PyResult<()> {
        SeatPolicy::reset(self, py, seed)
    }
    fn metrics(&self, py: Python<'_>) -> serde_json::Value {
        SeatPolicy::metrics(self, py)
    }
    fn llm_usage(&self, py: Python<'_>) -> serde_json::Value {
        SeatPolicy::llm_usage(self, py)
    }
    fn skill_events(&self, py: Python<'_>) -> serde_json::Value {
        SeatPolicy::skill_events(self, py)
    }
    fn sink(&self) -> Option<&ExchangeSink> {
        SeatPolicy::sink(self)
    }
    fn name(&self) -> &str {
        SeatPolicy::name(self)
    }
    fn seat(&self) -> usize {
        SeatPolicy::seat(self)
    }
    fn spec(&self) -> &str {
        SeatPolicy::spec(self)
    }
    fn repr(&self) -> String {
        format!("Policy({:?}, layout={:?}, seat={})", self.spec, self.game.spec(), self.seat)
    }
}

impl<G: Playable> SeatPolicy<G> {
    /// Seats `kind` at `seat` of `game` for episode `seed`; `options` (for `proagent`) are
    /// the CLI's flags as a dict.
    pub fn build(
        kind: &str,
        seat: usize,
        seed: u64,
        game: Arc<G>,
        options: Option<&Bound<'_, PyAny>>,
        max_llm_failures: i64,
    ) -> PyResult<Self> {
        let n = game.num_players();
        if seat >= n {
            return Err(PyValueError::new_err(format!("seat must be in 0..{n}, got {seat}")));
        }
        let is_pa = proagent_eval::runner::seats::is_proagent(kind);
        let opts = match options {
            Some(o) if !o.is_none() => {
                if !is_pa {
                    return Err(PyValueError::new_err(format!("options are for the \"proagent\" agent, not {kind:?}")));
                }
                Some(AgentOptions::from_json(&crate::convert::to_json(o)?)?)
            }
            _ if is_pa => Some(AgentOptions::from_json(&serde_json::Value::Null)?),
            _ => None,
        };
        let factory = factory_of(opts.as_ref(), seed);
        factory.check(kind, &*game, seat).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let mut built = factory.build(kind, &*game).map_err(|e| PyValueError::new_err(e.to_string()))?;
        built.seat.reset(&*game, seat, seat_seed(seed, seat));
        let name = built.seat.name();
        Ok(SeatPolicy {
            agent: Arc::new(tokio::sync::Mutex::new(built.seat)),
            game: Arc::clone(&game),
            seat,
            seed,
            spec: kind.trim().to_string(),
            name,
            sink: built.exchanges,
            rt: runtime()?,
            max_llm_failures: if max_llm_failures < 0 { None } else { Some(max_llm_failures as u64) },
            codec: game.vector_codec(),
        })
    }

    /// The seat's action in `state` at step `t`, after `last_actions` / `last_events`.
    pub fn act_in(
        &self,
        py: Python<'_>,
        state: &G::State,
        t: u32,
        last_actions: &[Option<G::Action>],
        last_events: &[Option<G::Event>],
    ) -> PyResult<G::Action>
    where
        G::Action: Send + Sync,
        G::Event: Send + Sync,
        G::State: Send + Sync,
    {
        let (agent, game, seat) = (&self.agent, &*self.game, self.seat);
        let fut = async {
            let obs =
                Observation { last_actions, last_events, ..Observation::new(game, game.view(state, seat), seat, t) };
            let mut a = agent.lock().await;
            let action = a.act(&obs).await;
            (action, a.llm_usage().failures, a.last_llm_failure())
        };
        let (a, failures, last) = block_interruptible(py, &self.rt, fut)?;
        let a = checked_action(a, failures, last, self.max_llm_failures)?;
        Ok(a)
    }

    /// Starts a new episode for the seat (`seed`, the episode seed, defaults to the one
    /// given at construction).
    pub fn reset(&mut self, py: Python<'_>, seed: Option<u64>) -> PyResult<()> {
        if let Some(s) = seed {
            self.seed = s;
        }
        let (agent, game, seat) = (&self.agent, &*self.game, self.seat);
        let seed = seat_seed(self.seed, seat);
        py.detach(|| self.rt.block_on(async { agent.lock().await.reset(game, seat, seed) }));
        Ok(())
    }

    /// Agent-specific metrics so far.
    pub fn metrics(&self, py: Python<'_>) -> serde_json::Value {
        py.detach(|| self.rt.block_on(async { self.agent.lock().await.metrics() }))
    }

    /// Language-model use so far.
    pub fn llm_usage(&self, py: Python<'_>) -> serde_json::Value {
        let u = py.detach(|| self.rt.block_on(async { self.agent.lock().await.llm_usage() }));
        serde_json::to_value(u).unwrap_or(serde_json::Value::Null)
    }

    /// Skill events since the last call.
    pub fn skill_events(&self, py: Python<'_>) -> serde_json::Value {
        let ev = py.detach(|| self.rt.block_on(async { self.agent.lock().await.drain_skill_events() }));
        serde_json::to_value(ev).unwrap_or(serde_json::Value::Null)
    }

    /// Where a ProAgent's exchanges go.
    pub fn sink(&self) -> Option<&ExchangeSink> {
        self.sink.as_ref()
    }
    /// The seat's name.
    pub fn name(&self) -> &str {
        &self.name
    }
    /// The player it plays.
    pub fn seat(&self) -> usize {
        self.seat
    }
    /// The spec it was built from.
    pub fn spec(&self) -> &str {
        &self.spec
    }
}
