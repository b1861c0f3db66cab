//! A seat of the library's seat factory (the one `play` and the runner use: built-in
//! partners, or the ProAgent agent with the CLI's options) as the game-generic half of
//! the Python `Policy`: what a policy needs of a seat on any game, whatever the
//! game's state is. `Policy` uses it for OvercookedV2.
//!
//! Guarantees: the seat is reset with `seat_seed(seed, seat)`, as the runner resets it for
//! episode `seed`; `act` gives the seat the last joint action and the last step's events,
//! as inside the runner, so a Python loop plays the episode `play` plays for the same seed
//! (tested).

use crate::driving::{block_interruptible, checked_action, factory_of, runtime};
use crate::env::Env;
use crate::options::AgentOptions;
use proagent_agent::ExchangeSink;
use proagent_core::game::Game;
use proagent_core::seat::{Observation, Seat, seat_seed};
use proagent_eval::games::{AnyGame, GameOptions, Playable};
use proagent_overcooked::env::Action;
use proagent_overcooked_v2::game::OvercookedV2;
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
}

/// The OvercookedV2 game a `layout` argument names (a V2 `Env`, or a spec the catalog
/// files as OvercookedV2), or `None` for any other game.
pub fn v2_game_of(layout: Option<&Bound<'_, PyAny>>, horizon: u32) -> PyResult<Option<Arc<OvercookedV2>>> {
    let Some(l) = layout else { return Ok(None) };
    if let Ok(e) = l.cast::<Env>()
        && let Ok(e) = e.borrow().v2().map(|e| {
            let (layout, settings, _, _, _) = e.parts();
            (layout.clone(), settings.clone())
        })
    {
        let (layout, settings) = e;
        return Ok(Some(Arc::new(OvercookedV2::new(Arc::new(layout), settings))));
    }
    let Ok(spec) = l.extract::<String>() else { return Ok(None) };
    let horizon = crate::env::check_horizon(horizon)?;
    let opts: GameOptions = crate::vec_env::V2Switches::default().options(horizon);
    match crate::vec_env::load_game(&spec, None, &opts) {
        Ok((AnyGame::V2(g), _)) => Ok(Some(g)),
        // Anything else (a classic layout, or an error) is the classic loader's to judge.
        _ => Ok(None),
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
            game,
            seat,
            seed,
            spec: kind.trim().to_string(),
            name,
            sink: built.exchanges,
            rt: runtime()?,
            max_llm_failures: if max_llm_failures < 0 { None } else { Some(max_llm_failures as u64) },
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

impl SeatPolicy<OvercookedV2> {
    /// The action index (0..6) for this seat in `env`'s current state (a V2 `Env` of the
    /// policy's layout).
    pub fn act_v2(&self, py: Python<'_>, env: &Bound<'_, PyAny>) -> PyResult<usize> {
        let env = env.cast::<Env>().map_err(|_| {
            PyTypeError::new_err("an OvercookedV2 policy acts on an Env of its layout (policy.act(env))")
        })?;
        let e = env.borrow();
        let (layout, _, state, last, events) = e.v2()?.parts();
        if layout.name != self.game.layout.name || layout.tiles != self.game.layout.tiles {
            return Err(PyValueError::new_err(format!(
                "this policy plays {}, the Env is {}",
                self.game.layout.name, layout.name
            )));
        }
        let state = state.clone();
        let last_events = events.to_vec();
        let last_actions: Vec<Option<Action>> = last.into_iter().map(Some).collect();
        drop(e);
        Ok(self.act_in(py, &state, state.step, &last_actions, &last_events)?.index())
    }

    /// The text of `repr()`.
    pub fn repr(&self) -> String {
        format!("Policy({:?}, layout=\"v2:{}\", seat={})", self.spec, self.game.layout.name, self.seat)
    }
}
