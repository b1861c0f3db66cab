//! `proagent.Env`: one Overcooked episode stepped from Python, classic (the old dynamics,
//! overcooked_ai's state dicts and encodings: [`classic`]) or OvercookedV2 (JaxMARL's
//! dynamics, per-agent tensors: [`v2`]), whichever the game catalog says the layout is.
//!
//! Guarantees: one class for both games; the methods they share (`reset`, `step`,
//! `state`, `render`, `seed`, `timestep`, `score`, `done`, `layout_name`, pickling) work
//! on both, each with its game's values; a method of one game only (`lossless`,
//! `set_state`, ... on classic; `recipe`, `visible`, ... on V2) raises `TypeError` naming
//! the game on the other, never a panic.

pub mod classic;
pub mod layout;
pub mod v2;

pub use classic::{ClassicEnv, check_horizon, check_seat, load_layout, load_layout_text};
pub use v2::V2Env;

use crate::guard::{guarded_fns, guarded_methods};
use proagent_eval::games::{AnyGame, GameOptions};
use proagent_overcooked::controller::Kitchen;
use pyo3::IntoPyObjectExt;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::sync::Arc;

/// One Overcooked episode, classic or OvercookedV2.
///
/// `Env(layout="cramped_room", horizon=400, view_radius=None, negative_rewards=False,
/// resample_recipe=False, random_starts=False, start_cooking_on_interact=False,
/// indicate_delivery=False)`: `layout` is a classic built-in name or layout file, or
/// `v2:NAME` / `v2:PATH` for OvercookedV2 (whose switches the keywords are).
#[pyclass(module = "proagent._native")]
pub struct Env(EnvKind);

/// The game an [`Env`] plays.
enum EnvKind {
    /// Classic Overcooked.
    Classic(Box<ClassicEnv>),
    /// OvercookedV2.
    V2(Box<V2Env>),
}

impl From<ClassicEnv> for Env {
    fn from(e: ClassicEnv) -> Env {
        Env(EnvKind::Classic(Box::new(e)))
    }
}

impl From<V2Env> for Env {
    fn from(e: V2Env) -> Env {
        Env(EnvKind::V2(Box::new(e)))
    }
}

impl Env {
    /// The classic episode, or `TypeError` naming `what` for a V2 one.
    pub fn classic(&self) -> PyResult<&ClassicEnv> {
        match &self.0 {
            EnvKind::Classic(e) => Ok(e),
            EnvKind::V2(e) => Err(only_classic(&e.spec_name())),
        }
    }

    fn classic_mut(&mut self) -> PyResult<&mut ClassicEnv> {
        match &mut self.0 {
            EnvKind::Classic(e) => Ok(e),
            EnvKind::V2(e) => Err(only_classic(&e.spec_name())),
        }
    }

    /// The OvercookedV2 episode, or `TypeError` for a classic one.
    pub fn v2(&self) -> PyResult<&V2Env> {
        match &self.0 {
            EnvKind::V2(e) => Ok(e),
            EnvKind::Classic(e) => Err(only_v2(&e.kitchen().layout.name)),
        }
    }
}

fn only_classic(layout: &str) -> PyErr {
    PyTypeError::new_err(format!("this is for classic Overcooked layouts; this Env plays {layout}"))
}

fn only_v2(layout: &str) -> PyErr {
    PyTypeError::new_err(format!("this is for OvercookedV2 layouts (v2:NAME); this Env plays {layout}"))
}

guarded_methods! {
#[pymethods]
impl Env {
    #[new]
    #[pyo3(signature = (
        layout = "cramped_room",
        horizon = None,
        view_radius = None,
        negative_rewards = false,
        resample_recipe = false,
        random_starts = false,
        start_cooking_on_interact = false,
        indicate_delivery = false,
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        layout: &str,
        horizon: Option<&Bound<'_, PyAny>>,
        view_radius: Option<&Bound<'_, PyAny>>,
        negative_rewards: bool,
        resample_recipe: bool,
        random_starts: bool,
        start_cooking_on_interact: bool,
        indicate_delivery: bool,
    ) -> PyResult<Env> {
        // The catalog decides which game the layout is; its errors are the loaders'.
        match crate::vec_env::load_game(layout, None, &GameOptions::default())?.0 {
            AnyGame::V2(_) => Ok(Env::from(V2Env::new(
                layout,
                horizon,
                view_radius,
                negative_rewards,
                resample_recipe,
                random_starts,
                start_cooking_on_interact,
                indicate_delivery,
            )?)),
            AnyGame::Overcooked(_) => {
                let switches = view_radius.is_some_and(|v| !v.is_none())
                    || negative_rewards
                    || resample_recipe
                    || random_starts
                    || start_cooking_on_interact
                    || indicate_delivery;
                if switches {
                    return Err(PyValueError::new_err(format!(
                        "view_radius, negative_rewards, resample_recipe, random_starts, start_cooking_on_interact \
                         and indicate_delivery are OvercookedV2 switches; {layout:?} is a classic layout"
                    )));
                }
                Ok(Env::from(ClassicEnv::new(layout, horizon)?))
            }
            other => Err(PyValueError::new_err(format!(
                "{layout:?} is a {} game: proagent.Env plays the Overcookeds; use proagent.GameEnv \
                 (or the Gymnasium / PettingZoo wrappers, which take every game)",
                other.kind()
            ))),
        }
    }

    /// Starts an episode (`seed`: the episode seed; without one the next episode's seed is
    /// derived from the last, `Env.seed`). Classic: returns the start state dict (the
    /// old-dynamics start is fixed); V2: draws the recipe (and random starts) from the seed
    /// and returns every agent's observation tensor.
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(&mut self, py: Python<'py>, seed: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        match &mut self.0 {
            EnvKind::Classic(e) => Ok(e.reset(py, seed)?.into_any()),
            EnvKind::V2(e) => Ok(e.reset(py, seed)?.into_any()),
        }
    }

    /// The episode seed.
    #[getter]
    fn seed(&self) -> PyResult<u64> {
        match &self.0 {
            EnvKind::Classic(e) => e.seed(),
            EnvKind::V2(e) => e.seed(),
        }
    }

    /// Advances one tick by one action per player (ints 0..6 in the order N, S, E, W,
    /// stay, interact, or names; classic also overcooked_ai's (dx, dy)). Classic returns
    /// `(state, reward, done, info)` with overcooked_ai's `sparse_r_by_agent` /
    /// `shaped_r_by_agent`; V2 `(observations, reward, done, info)` with
    /// `shaped_r_by_agent`, `correct_deliveries`, `wrong_deliveries` and `events`.
    fn step<'py>(&mut self, py: Python<'py>, joint_action: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        match &mut self.0 {
            EnvKind::Classic(e) => e.step(py, joint_action)?.into_bound_py_any(py),
            EnvKind::V2(e) => e.step(py, joint_action)?.into_bound_py_any(py),
        }
    }

    /// The current state: classic, a dict in overcooked_ai's `OvercookedState.to_dict()`
    /// shape; V2, the V2 trajectory record.
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.0 {
            EnvKind::Classic(e) => Ok(e.state(py)?.into_any()),
            EnvKind::V2(e) => e.state(py),
        }
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        match &self.0 {
            EnvKind::Classic(e) => e.reduce(py),
            EnvKind::V2(e) => {
                let (f, args) = e.reduce(py)?;
                Ok((f, args.into_pyobject(py)?))
            }
        }
    }

    /// The board as text.
    fn render(&self) -> PyResult<String> {
        match &self.0 {
            EnvKind::Classic(e) => e.render(),
            EnvKind::V2(e) => e.render(),
        }
    }

    /// Ticks played so far.
    #[getter]
    fn timestep(&self) -> PyResult<u32> {
        match &self.0 {
            EnvKind::Classic(e) => e.timestep(),
            EnvKind::V2(e) => e.timestep(),
        }
    }

    /// The team's score since the last reset (V2's may be negative).
    #[getter]
    fn score(&self) -> PyResult<i64> {
        match &self.0 {
            EnvKind::Classic(e) => Ok(i64::from(e.score()?)),
            EnvKind::V2(e) => Ok(i64::from(e.score()?)),
        }
    }

    /// True once the horizon is reached.
    #[getter]
    fn done(&self) -> PyResult<bool> {
        match &self.0 {
            EnvKind::Classic(e) => e.done(),
            EnvKind::V2(e) => e.done(),
        }
    }

    /// The layout's name.
    #[getter]
    fn layout_name(&self) -> PyResult<String> {
        match &self.0 {
            EnvKind::Classic(e) => e.layout_name(),
            EnvKind::V2(e) => e.layout_name(),
        }
    }

    /// The game's family: `overcooked` or `overcooked_v2`.
    #[getter]
    fn kind(&self) -> PyResult<&'static str> {
        Ok(match &self.0 {
            EnvKind::Classic(_) => "overcooked",
            EnvKind::V2(_) => "overcooked_v2",
        })
    }

    /// How many players take part.
    #[getter]
    fn n_agents(&self) -> PyResult<usize> {
        match &self.0 {
            EnvKind::Classic(_) => Ok(2),
            EnvKind::V2(e) => e.n_agents(),
        }
    }

    /// Episode length in ticks.
    #[getter]
    fn horizon(&self) -> PyResult<u32> {
        match &self.0 {
            EnvKind::Classic(e) => e.horizon(),
            EnvKind::V2(e) => Ok(e.horizon()),
        }
    }

    // Classic Overcooked only.

    /// Any observation kind of classic Overcooked (`lossless`, `overcooked_ai`,
    /// `features`, `featurize`) for both players (`(2, ...)`) or `seat`, float32;
    /// `order` `"whc"`/`"hwc"` for grids; `counter_goals=True` makes counters planning
    /// goals for `featurize` (overcooked_ai's environment has none).
    #[pyo3(signature = (kind = "lossless", seat = None, order = None, counter_goals = false))]
    fn observe<'py>(
        &self,
        py: Python<'py>,
        kind: &str,
        seat: Option<usize>,
        order: Option<&str>,
        counter_goals: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.classic()?.observe(py, kind, seat, order, counter_goals)
    }

    /// The channel or feature names of an observation kind (classic).
    #[pyo3(signature = (kind = "lossless"))]
    fn obs_names(&self, kind: &str) -> PyResult<Vec<String>> {
        self.classic()?.obs_names(kind)
    }

    /// Steps without building the state dict: returns `(reward, done)` (classic).
    fn step_fast(&mut self, a0: usize, a1: usize) -> PyResult<(u32, bool)> {
        self.classic_mut()?.step_fast(a0, a1)
    }

    /// Replaces the current state with a dict (overcooked_ai's shape or the trace schema;
    /// classic); every field is checked against the layout.
    fn set_state(&mut self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        self.classic_mut()?.set_state(state)
    }

    /// The lossless grid encoding (classic), float32: (2, width, height, channels), or
    /// (width, height, channels) for `seat`.
    #[pyo3(signature = (seat = None))]
    fn lossless<'py>(&self, py: Python<'py>, seat: Option<usize>) -> PyResult<Bound<'py, PyAny>> {
        self.classic()?.lossless(py, seat)
    }

    /// The 62 BC features (float32, classic): shape (2, 62), or (62,) for `seat`.
    #[pyo3(signature = (seat = None))]
    fn features<'py>(&self, py: Python<'py>, seat: Option<usize>) -> PyResult<Bound<'py, PyAny>> {
        self.classic()?.features(py, seat)
    }

    /// The shape of one player's lossless encoding: (width, height, channels) (classic).
    #[getter]
    fn lossless_shape(&self) -> PyResult<(usize, usize, usize)> {
        self.classic()?.lossless_shape()
    }

    /// The names of the lossless encoding's channels, in order (classic).
    #[getter]
    fn channel_names(&self) -> PyResult<Vec<&'static str>> {
        self.classic()?.channel_names()
    }

    /// The interact events of the last step, one per player (None where nothing happened).
    #[getter]
    fn last_events(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.classic()?.last_events(py)
    }

    /// The layout grid rows (classic; start digits 1 and 2 kept).
    #[getter]
    fn grid(&self) -> PyResult<Vec<String>> {
        self.classic()?.grid()
    }

    /// Grid width (columns; classic).
    #[getter]
    fn width(&self) -> PyResult<usize> {
        self.classic()?.width()
    }

    /// Grid height (rows; classic).
    #[getter]
    fn height(&self) -> PyResult<usize> {
        self.classic()?.height()
    }

    // OvercookedV2 only.

    /// Every agent's current observation tensor (V2).
    fn observations_now<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, pyo3::types::PyList>> {
        self.v2()?.observations_now(py)
    }

    /// The shape of one agent's observation tensor (V2): (height, width, channels).
    #[getter]
    fn observation_shape(&self) -> PyResult<(usize, usize, usize)> {
        self.v2()?.observation_shape()
    }

    /// Whether `viewer` sees cell (x, y) (V2's view radius).
    fn visible(&self, viewer: usize, x: u8, y: u8) -> PyResult<bool> {
        self.v2()?.visible(viewer, x, y)
    }

    /// The current recipe (V2).
    #[getter]
    fn recipe(&self) -> PyResult<String> {
        self.v2()?.recipe()
    }

    /// Correct and wrong deliveries so far (V2).
    #[getter]
    fn deliveries(&self) -> PyResult<(u32, u32)> {
        self.v2()?.deliveries()
    }

    /// Each player's position `(x, y)` (V2).
    fn positions(&self) -> PyResult<Vec<(u8, u8)>> {
        self.v2()?.positions()
    }

    fn __repr__(&self) -> PyResult<String> {
        match &self.0 {
            EnvKind::Classic(e) => e.repr(),
            EnvKind::V2(e) => e.repr(),
        }
    }
}
}

/// Either a layout spec (name or path) or an `Env` whose layout to share.
pub fn kitchen_of(layout: &Bound<'_, PyAny>) -> PyResult<Arc<Kitchen>> {
    if let Ok(env) = layout.cast::<Env>() {
        return Ok(Arc::clone(&env.borrow().classic()?.kitchen));
    }
    let spec: String = layout.extract().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err("layout must be a built-in name, a layout file path or an Env")
    })?;
    Ok(Arc::new(Kitchen::new(Arc::new(load_layout(&spec)?))))
}

guarded_fns! {
/// Rebuilds a pickled classic `Env` (the target of `Env.__reduce__`).
#[pyfunction]
#[pyo3(signature = (layout, text, horizon, state, score, seed, episode, joint))]
#[allow(clippy::too_many_arguments)]
pub fn _restore_env(
    layout: &str,
    text: Option<String>,
    horizon: u32,
    state: &Bound<'_, PyAny>,
    score: u32,
    seed: u64,
    episode: u64,
    joint: Option<(usize, usize)>,
) -> PyResult<Env> {
    classic::restore(layout, text, horizon, state, score, seed, episode, joint).map(Env::from)
}

/// Rebuilds a pickled OvercookedV2 `Env` by re-playing its episode (the target of
/// `Env.__reduce__` on a V2 layout).
#[pyfunction]
pub fn _restore_env_v2(py: Python<'_>, text: &str) -> PyResult<Env> {
    v2::restore(py, text).map(Env::from)
}
}
