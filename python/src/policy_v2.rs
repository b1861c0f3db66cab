//! `proagent.partner(...)` / `proagent.agent(...)` on OvercookedV2 layouts: a seat built
//! by the library's seat factory (the one `play` and the runner use: `scripted`, `random`,
//! `stay`, or the ProAgent agent with the CLI's options) as a policy with `.act(env)`.
//!
//! Guarantees: the seat is reset with `seat_seed(seed, seat)`, as the runner resets it for
//! episode `seed`; `act` takes an `EnvV2` of the same layout (anything else is refused) and
//! gives the seat the last joint action and the last step's events, as inside the
//! runner, so a Python loop plays the episode `play` plays for the same seed (tested).

use crate::env_v2::EnvV2;
use crate::guard::{guarded_fns, guarded_methods};
use crate::options::AgentOptions;
use crate::policy::{ModelFailure, block_interruptible, factory_of, runtime};
use proagent::env::Action;
use proagent::games::GameOptions;
use proagent::overcooked_v2::game::OvercookedV2;
use proagent::seat::{Observation, Seat, seat_seed};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use std::sync::Arc;

type SharedSeat = Arc<tokio::sync::Mutex<Box<dyn Seat<OvercookedV2>>>>;

/// A seat of an OvercookedV2 game as a policy.
#[pyclass(module = "proagent._native")]
pub struct PolicyV2 {
    agent: SharedSeat,
    game: Arc<OvercookedV2>,
    seat: usize,
    seed: u64,
    spec: String,
    name: String,
    rt: tokio::runtime::Runtime,
    max_llm_failures: Option<u64>,
}

guarded_methods! {
#[pymethods]
impl PolicyV2 {
    /// The action index (0..6) for this seat in `env`'s current state (an `EnvV2` of the
    /// policy's layout).
    fn act(&self, py: Python<'_>, env: &Bound<'_, PyAny>) -> PyResult<usize> {
        let env = env.cast::<EnvV2>().map_err(|_| {
            PyTypeError::new_err("an OvercookedV2 policy acts on an EnvV2 (policy.act(env))")
        })?;
        let e = env.borrow();
        let (layout, _, state, last, events) = e.parts();
        if layout.name != self.game.layout.name || layout.tiles != self.game.layout.tiles {
            return Err(PyValueError::new_err(format!(
                "this policy plays {}, the EnvV2 is {}",
                self.game.layout.name, layout.name
            )));
        }
        let state = state.clone();
        let last_events = events.to_vec();
        let last_actions: Vec<Option<Action>> = last.into_iter().map(Some).collect();
        let (agent, game, seat) = (&self.agent, &*self.game, self.seat);
        let fut = async {
            let obs = Observation {
                last_actions: &last_actions,
                last_events: &last_events,
                ..Observation::new(game, &state, seat, state.step)
            };
            let mut a = agent.lock().await;
            let action = a.act(&obs).await;
            (action, a.llm_usage().failures, a.last_llm_failure())
        };
        let (a, failures, last) = block_interruptible(py, &self.rt, fut)?;
        let a = a.map_err(|e| ModelFailure::new_err(e.to_string()))?;
        if let Some(limit) = self.max_llm_failures
            && failures > limit
        {
            return Err(ModelFailure::new_err(format!(
                "{failures} model call(s) failed after every retry, more than the {limit} allowed \
                 (max_llm_failures); last failure: {}",
                last.as_deref().unwrap_or("unknown")
            )));
        }
        Ok(a.index())
    }

    /// Starts a new episode for the seat (`seed`, the episode seed, defaults to the one
    /// given at construction).
    #[pyo3(signature = (seed = None))]
    fn reset(&mut self, py: Python<'_>, seed: Option<u64>) -> PyResult<()> {
        if let Some(s) = seed {
            self.seed = s;
        }
        let (agent, game, seat) = (&self.agent, &*self.game, self.seat);
        let seed = seat_seed(self.seed, seat);
        py.detach(|| self.rt.block_on(async { agent.lock().await.reset(game, seat, seed) }));
        Ok(())
    }

    /// The seat's name.
    #[getter]
    fn name(&self) -> PyResult<String> {
        Ok(self.name.clone())
    }

    /// The player it plays.
    #[getter]
    fn seat(&self) -> PyResult<usize> {
        Ok(self.seat)
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok(format!("PolicyV2({:?}, layout={:?}, seat={})", self.spec, self.game.layout.name, self.seat))
    }
}
}

guarded_fns! {
/// A seat of an OvercookedV2 game as a policy: `layout` is an `EnvV2` (its layout and
/// switches) or a `v2:NAME` spec; `options` (for `proagent`) the CLI's flags as a dict.
#[pyfunction]
#[pyo3(signature = (kind, seat = 1, seed = 0, layout = None, horizon = 400, options = None, max_llm_failures = 0))]
pub fn partner_v2(
    kind: &str,
    seat: usize,
    seed: u64,
    layout: Option<&Bound<'_, PyAny>>,
    horizon: u32,
    options: Option<&Bound<'_, PyAny>>,
    max_llm_failures: i64,
) -> PyResult<PolicyV2> {
    let horizon = crate::env::check_horizon(horizon)?;
    let game = match layout {
        Some(l) if l.cast::<EnvV2>().is_ok() => {
            let e = l.cast::<EnvV2>()?.borrow();
            let (layout, settings, _, _, _) = e.parts();
            Arc::new(OvercookedV2::new(Arc::new(layout.clone()), settings.clone()))
        }
        Some(l) => {
            let spec: String = l.extract().map_err(|_| PyTypeError::new_err("layout must be a v2:NAME spec or an EnvV2"))?;
            let opts: GameOptions = crate::vec_env::V2Switches::default().options(horizon);
            match crate::vec_env::load_game(&spec, None, &opts)? {
                (proagent::games::AnyGame::V2(g), _) => g,
                _ => return Err(PyValueError::new_err(format!("{spec:?} is not an OvercookedV2 layout"))),
            }
        }
        None => return Err(PyValueError::new_err("layout is needed (a v2:NAME spec or an EnvV2)")),
    };
    let n = proagent::game::Game::num_players(&*game);
    if seat >= n {
        return Err(PyValueError::new_err(format!("seat must be in 0..{n}, got {seat}")));
    }
    let is_pa = proagent::runner::seats::is_proagent(kind);
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
    Ok(PolicyV2 {
        agent: Arc::new(tokio::sync::Mutex::new(built.seat)),
        game,
        seat,
        seed,
        spec: kind.trim().to_string(),
        name,
        rt: runtime()?,
        max_llm_failures: if max_llm_failures < 0 { None } else { Some(max_llm_failures as u64) },
    })
}
}
