//! `proagent.Env`: one episode of any game of the game catalog stepped from Python, one
//! class for every game (`proagent.GameEnv` is the same class under its older name).
//!
//! Guarantees:
//! - **One convention on every game** ([`Common`]): `act`, `movers`, `legal_actions`,
//!   `action_mask`, `observe(player)`, `num_players`, `num_actions`, `obs_len`,
//!   `max_steps`, `terminated`, `truncated`, `time`, `score`, `seed`, `state`, `render`,
//!   `rgb`, `action_token`, pickling and copying; each game's action indices and
//!   observation vector are its codec's ([`proagent_eval::games::Playable::vector_codec`]).
//! - **The Overcookeds' own conventions kept**: on a classic layout `reset`, `step` and
//!   `state` are overcooked_ai's (state dicts, its encodings: [`classic`]); on `v2:NAME`
//!   JaxMARL's (per-agent tensors: [`v2`]). On every other game (and on an Overcooked with
//!   built-in `partners`) `step` is `act`. A method of one Overcooked only raises
//!   `TypeError` naming the game elsewhere, never a panic.
//! - Which game a spec is comes from the catalog; the one place that tells the Overcookeds
//!   apart is [`layout::family`].

pub mod classic;
pub mod layout;
pub mod v2;

pub use classic::{ClassicEnv, check_horizon, check_seat, load_layout, load_layout_text};
pub use v2::V2Env;

use crate::games::{Common, GameSession, new_session, restore_session, stepped_info};
use crate::guard::{guarded_fns, guarded_methods, int_param, opt_int_param, seed_param};
use layout::Family;
use numpy::{PyArray1, PyArray3, PyArrayMethods};
use proagent_eval::games::GameOptions;
use proagent_overcooked::controller::Kitchen;
use pyo3::IntoPyObjectExt;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::sync::Arc;

/// One episode of any game of the catalog.
///
/// `Env(layout="cramped_room", horizon=None, view_radius=None, negative_rewards=False,
/// resample_recipe=False, random_starts=False, start_cooking_on_interact=False,
/// indicate_delivery=False, partners=None)`: `layout` is any spec `proagent play --layout`
/// takes (a classic name or layout file, `v2:NAME`, `capture:2`, ...); the
/// switches are OvercookedV2's; `partners` maps players to built-in seat names.
#[pyclass(module = "proagent._native")]
pub struct Env(EnvKind);

/// The episode an [`Env`] plays.
enum EnvKind {
    /// Classic Overcooked with overcooked_ai's conventions.
    Classic(Box<ClassicEnv>),
    /// OvercookedV2 with JaxMARL's conventions.
    V2(Box<V2Env>),
    /// Any game, with the one convention only.
    Game(GameSession),
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

impl From<GameSession> for Env {
    fn from(e: GameSession) -> Env {
        Env(EnvKind::Game(e))
    }
}

/// The options an episode of [`GameSession`] loads its game with (`horizon`: the
/// Overcookeds' episode length; other games keep their own limits).
pub fn session_options(horizon: Option<u32>) -> PyResult<GameOptions> {
    let mut o = GameOptions::default();
    if let Some(h) = horizon {
        o.horizon = check_horizon(h)?;
    }
    Ok(o)
}

guarded_fns! {
/// Rebuilds a pickled `Env` of [`GameSession`] (the target of its `__reduce__`): the same
/// game and partners, the episode re-played from its seed and the actions given.
#[pyfunction]
pub fn _restore_game_env(text: &str) -> PyResult<Env> {
    let bad = || PyValueError::new_err("not a pickled Env");
    let v: serde_json::Value = serde_json::from_str(text).map_err(|_| bad())?;
    let horizon = match v.get("horizon").and_then(serde_json::Value::as_u64) {
        Some(h) => Some(u32::try_from(h).map_err(|_| bad())?),
        None => None,
    };
    let options = session_options(horizon)?;
    Ok(Env::from(restore_session(&v, &options)?))
}
}

impl Env {
    /// The classic episode, or `TypeError` naming the game this one plays.
    pub fn classic(&self) -> PyResult<&ClassicEnv> {
        match &self.0 {
            EnvKind::Classic(e) => Ok(e),
            _ => Err(only_classic(&self.common().spec())),
        }
    }

    fn classic_mut(&mut self) -> PyResult<&mut ClassicEnv> {
        match &mut self.0 {
            EnvKind::Classic(e) => Ok(e),
            other => Err(only_classic(&spec_of(other))),
        }
    }

    /// The OvercookedV2 episode, or `TypeError` naming the game this one plays.
    pub fn v2(&self) -> PyResult<&V2Env> {
        match &self.0 {
            EnvKind::V2(e) => Ok(e),
            _ => Err(only_v2(&self.common().spec())),
        }
    }

    /// The episode as the one convention sees it.
    pub fn common(&self) -> &dyn Common {
        common_of(&self.0)
    }

    fn common_mut(&mut self) -> &mut dyn Common {
        match &mut self.0 {
            EnvKind::Classic(e) => &mut **e,
            EnvKind::V2(e) => &mut **e,
            EnvKind::Game(e) => &mut **e,
        }
    }

    /// The one convention's step: checks and applies one entry per player.
    fn act_on<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<(i64, bool, bool, Bound<'py, PyDict>)> {
        let n = self.common().num_players();
        let given: Vec<Bound<'py, PyAny>> = actions.try_iter()?.collect::<PyResult<_>>()?;
        if given.len() != n {
            return Err(PyValueError::new_err(format!(
                "{} has {n} players: act() takes {n} entries (None for a player who does not move), got {}",
                self.common().spec(),
                given.len()
            )));
        }
        if self.common().movers().is_empty() {
            return Err(PyValueError::new_err("the episode is over; call reset()"));
        }
        let mut idx = Vec::with_capacity(n);
        for (p, a) in given.iter().enumerate() {
            idx.push(if a.is_none() {
                None
            } else {
                Some(int_param(a, &format!("action of player {p}"), 0, 1 << 16)? as usize)
            });
        }
        let common = self.common_mut();
        let s = common.act(&idx)?;
        let (term, trunc) = (common.over(), common.truncated());
        Ok((s.reward, term, trunc, stepped_info(py, &s)?))
    }

    fn check_player(&self, player: usize) -> PyResult<usize> {
        let n = self.common().num_players();
        if player >= n {
            return Err(PyValueError::new_err(format!("player must be in 0..{n}, got {player}")));
        }
        Ok(player)
    }
}

fn common_of(k: &EnvKind) -> &dyn Common {
    match k {
        EnvKind::Classic(e) => &**e,
        EnvKind::V2(e) => &**e,
        EnvKind::Game(e) => &**e,
    }
}

fn spec_of(k: &EnvKind) -> String {
    common_of(k).spec()
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
        partners = None,
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
        partners: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Env> {
        let mut ps = Vec::new();
        if let Some(d) = partners {
            for (k, v) in d.iter() {
                let p = int_param(&k, "partner seat", 0, 63)? as usize;
                let name: String = v.extract()?;
                ps.push((p, name.trim().to_string()));
            }
        }
        let switches = view_radius.is_some_and(|v| !v.is_none())
            || negative_rewards
            || resample_recipe
            || random_starts
            || start_cooking_on_interact
            || indicate_delivery;
        // The catalog decides which game the layout is; its errors are the loaders'.
        let (game, _) = crate::vec_env::load_game(layout, None, &GameOptions::default())?;
        let family = layout::family(&game);
        if switches && !matches!(family, Family::V2(_)) {
            return Err(PyValueError::new_err(format!(
                "view_radius, negative_rewards, resample_recipe, random_starts, start_cooking_on_interact \
                 and indicate_delivery are OvercookedV2 switches; {layout:?} is a {} game",
                game.kind()
            )));
        }
        match family {
            Family::V2(_) if ps.is_empty() => Ok(Env::from(V2Env::new(
                layout,
                horizon,
                view_radius,
                negative_rewards,
                resample_recipe,
                random_starts,
                start_cooking_on_interact,
                indicate_delivery,
            )?)),
            Family::Classic(_) if ps.is_empty() => Ok(Env::from(ClassicEnv::new(layout, horizon)?)),
            Family::V2(_) if switches => Err(PyValueError::new_err(
                "the OvercookedV2 switches are not taken with built-in partners",
            )),
            _ => {
                let horizon = opt_int_param(horizon, "horizon", 1, u64::from(proagent_core::limits::MAX_HORIZON))?;
                let options = session_options(horizon.map(|h| h as u32))?;
                Ok(Env::from(new_session(layout, ps, &options)?))
            }
        }
    }

    /// Starts an episode (`seed`: the episode seed; without one the next episode's seed is
    /// derived from the last, `Env.seed`). Classic: returns the start state dict (the
    /// old-dynamics start is fixed); V2: draws the recipe (and random starts) from the seed
    /// and returns every agent's observation tensor; any other game: draws the episode from
    /// the seed, plays the partners' turns until a player driven from Python moves, and
    /// returns the info dict of those moves.
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(&mut self, py: Python<'py>, seed: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyAny>> {
        match &mut self.0 {
            EnvKind::Classic(e) => Ok(e.reset(py, seed)?.into_any()),
            EnvKind::V2(e) => Ok(e.reset(py, seed)?.into_any()),
            EnvKind::Game(e) => {
                let s = e.reset(seed_param(seed)?)?;
                Ok(stepped_info(py, &s)?.into_any())
            }
        }
    }

    /// The episode seed.
    #[getter]
    fn seed(&self) -> PyResult<u64> {
        Ok(self.common().seed())
    }

    /// Advances one step. Classic Overcooked: one action per player (ints 0..6 in the
    /// order N, S, E, W, stay, interact, names, or overcooked_ai's (dx, dy)); returns
    /// `(state, reward, done, info)` as overcooked_ai's `OvercookedEnv.step`. V2: returns
    /// `(observations, reward, done, info)` with `shaped_r_by_agent`, `correct_deliveries`,
    /// `wrong_deliveries` and `events`. Any other game: as `act`.
    fn step<'py>(&mut self, py: Python<'py>, joint_action: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        match &mut self.0 {
            EnvKind::Classic(e) => return e.step(py, joint_action)?.into_bound_py_any(py),
            EnvKind::V2(e) => return e.step(py, joint_action)?.into_bound_py_any(py),
            EnvKind::Game(_) => {}
        }
        self.act_on(py, joint_action)?.into_bound_py_any(py)
    }

    /// The one convention's step, on every game: one action index per player (`None` for
    /// players who do not move now, or who are partners; ints only); plays the partners'
    /// turns that follow. Returns `(reward, terminated, truncated, info)`: the team reward
    /// of everything applied, the end by the game's rules, the end by its step limit, and
    /// `info` with `refused` (players whose action was not legal) and `partner_moves`
    /// (`(player, action)` pairs).
    fn act<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<(i64, bool, bool, Bound<'py, PyDict>)> {
        self.act_on(py, actions)
    }

    /// The current state: classic, a dict in overcooked_ai's `OvercookedState.to_dict()`
    /// shape; V2, the V2 trajectory record; any other game, its trajectory record (a dict;
    /// a card game's shows every hand).
    #[getter]
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        match &self.0 {
            EnvKind::Classic(e) => Ok(e.state(py)?.into_any()),
            EnvKind::V2(e) => e.state(py),
            EnvKind::Game(e) => crate::convert::from_json(py, &e.state_json()),
        }
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        match &self.0 {
            EnvKind::Classic(e) => e.reduce(py),
            EnvKind::V2(e) => {
                let (f, args) = e.reduce(py)?;
                Ok((f, args.into_pyobject(py)?))
            }
            EnvKind::Game(e) => {
                let f = py.import("proagent._native")?.getattr("_restore_game_env")?;
                Ok((f, (e.pickled(),).into_pyobject(py)?))
            }
        }
    }

    /// The board as text.
    fn render(&self) -> PyResult<String> {
        match &self.0 {
            EnvKind::Classic(e) => e.render(),
            EnvKind::V2(e) => e.render(),
            EnvKind::Game(e) => Ok(e.render_text()),
        }
    }

    /// The state as an RGB array (height, width, 3), drawn by the viewer's board
    /// drawing; `cell` pixels per grid cell.
    #[pyo3(signature = (cell = None))]
    fn rgb<'py>(&self, py: Python<'py>, cell: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyArray3<u8>>> {
        let cell = opt_int_param(cell, "cell", 8, 256)?.unwrap_or(48) as u32;
        let (buf, h, w) = self.common().rgb(cell)?;
        PyArray1::from_vec(py, buf).reshape([h, w, 3])
    }

    /// Ticks (steps) played so far.
    #[getter]
    fn timestep(&self) -> PyResult<u32> {
        Ok(self.common().time())
    }

    /// Steps of the game played (a turn game: moves made; a maze: turns); as `timestep`.
    #[getter]
    fn time(&self) -> PyResult<u32> {
        Ok(self.common().time())
    }

    /// The team's score since the last reset (V2's may be negative).
    #[getter]
    fn score(&self) -> PyResult<i64> {
        Ok(self.common().score())
    }

    /// True once the episode is over (by the game's rules or at its step limit).
    #[getter]
    fn done(&self) -> PyResult<bool> {
        let c = self.common();
        Ok(c.over() || c.truncated())
    }

    /// Whether the game has ended by its rules.
    #[getter]
    fn terminated(&self) -> PyResult<bool> {
        Ok(self.common().over())
    }

    /// Whether the game stopped at its step limit without ending by its rules (the
    /// Overcookeds' horizon).
    #[getter]
    fn truncated(&self) -> PyResult<bool> {
        Ok(self.common().truncated())
    }

    /// The layout's name (classic: its name; V2: `v2:NAME`; any other game: its spec).
    #[getter]
    fn layout_name(&self) -> PyResult<String> {
        match &self.0 {
            EnvKind::Classic(e) => e.layout_name(),
            EnvKind::V2(e) => e.layout_name(),
            EnvKind::Game(e) => Ok(e.spec()),
        }
    }

    /// The spec this episode was built from.
    #[getter]
    fn spec(&self) -> PyResult<String> {
        Ok(self.common().spec())
    }

    /// The game's family (its catalog kind: `overcooked`, `overcooked_v2`, `collab_capture`, ...).
    #[getter]
    fn kind(&self) -> PyResult<&'static str> {
        Ok(self.common().kind())
    }

    /// How many players take part.
    #[getter]
    fn n_agents(&self) -> PyResult<usize> {
        Ok(self.common().num_players())
    }

    /// Players in the game (as `n_agents`).
    #[getter]
    fn num_players(&self) -> PyResult<usize> {
        Ok(self.common().num_players())
    }

    /// Size of the action index space.
    #[getter]
    fn num_actions(&self) -> PyResult<usize> {
        Ok(self.common().n_actions())
    }

    /// Length of one player's observation vector (`observe(player)`).
    #[getter]
    fn obs_len(&self) -> PyResult<usize> {
        Ok(self.common().obs_len())
    }

    /// Episode length in steps (the game's own limit: the Overcookeds' horizon, a turn game's
    /// move limit, a maze's turn limit).
    #[getter]
    fn horizon(&self) -> PyResult<u32> {
        Ok(self.common().max_steps())
    }

    /// The game's own step limit (as `horizon`).
    #[getter]
    fn max_steps(&self) -> PyResult<u32> {
        Ok(self.common().max_steps())
    }

    /// Whether players move one at a time (a turn game) rather than all at once.
    #[getter]
    fn turn_based(&self) -> PyResult<bool> {
        Ok(self.common().turn_based())
    }

    /// The players seated by built-in partners.
    #[getter]
    fn partner_players(&self) -> PyResult<Vec<usize>> {
        Ok(self.common().partner_players())
    }

    /// The players to move now (all players in a simultaneous game, one in a turn game, none
    /// once the episode is over or at its step limit).
    fn movers(&self) -> PyResult<Vec<usize>> {
        Ok(self.common().movers())
    }

    /// The legal action indices of `player` now (empty when it does not move).
    fn legal_actions(&self, player: usize) -> PyResult<Vec<usize>> {
        Ok(self.common().legal_indices(player))
    }

    /// The legal actions of `player` as a 0/1 int8 mask over the action indices.
    fn action_mask<'py>(&self, py: Python<'py>, player: usize) -> PyResult<Bound<'py, PyArray1<i8>>> {
        let c = self.common();
        let mut mask = vec![0i8; c.n_actions()];
        for i in c.legal_indices(player) {
            if let Some(m) = mask.get_mut(i) {
                *m = 1;
            }
        }
        Ok(PyArray1::from_vec(py, mask))
    }

    /// An action index as the game's token (`P3`, `H1R`, `M4`, ...).
    fn action_token(&self, index: usize) -> PyResult<String> {
        let c = self.common();
        c.action_token(index)
            .ok_or_else(|| PyValueError::new_err(format!("{index} is not an action index of {}", c.spec())))
    }

    /// `observe(player)`, on every game: `player`'s observation vector (float32,
    /// `obs_len` long; classic Overcooked's is overcooked_ai's `featurize`, V2's its
    /// tensor flattened). `observe(kind, seat=None, order=None, counter_goals=False)`, on
    /// classic Overcooked: any of its observation kinds (`lossless`, `overcooked_ai`,
    /// `features`, `featurize`) for both players (`(2, ...)`) or `seat`, float32; `order`
    /// `"whc"`/`"hwc"` for grids; `counter_goals=True` makes counters planning goals for
    /// `featurize` (overcooked_ai's environment has none).
    #[pyo3(signature = (kind = None, seat = None, order = None, counter_goals = false))]
    fn observe<'py>(
        &self,
        py: Python<'py>,
        kind: Option<&Bound<'py, PyAny>>,
        seat: Option<usize>,
        order: Option<&str>,
        counter_goals: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let kind = kind.filter(|k| !k.is_none());
        match kind {
            Some(k) if k.extract::<String>().is_err() => {
                let n = self.common().num_players();
                let player = self.check_player(int_param(k, "player", 0, n.saturating_sub(1) as u64)? as usize)?;
                let mut out = Vec::new();
                self.common().observe(player, &mut out);
                Ok(PyArray1::from_vec(py, out).into_any())
            }
            _ => {
                let kind: String = match kind {
                    Some(k) => k.extract()?,
                    None => "lossless".to_string(),
                };
                self.classic()?.observe(py, &kind, seat, order, counter_goals)
            }
        }
    }

    /// The channel or feature names of an observation kind (classic).
    #[pyo3(signature = (kind = "lossless"))]
    fn obs_names(&self, kind: &str) -> PyResult<Vec<String>> {
        self.classic()?.obs_names(kind)
    }

    // Classic Overcooked only.

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

    /// The interact events of the last step, one per player (None where nothing happened;
    /// classic).
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
            EnvKind::Game(e) => Ok(format!("Env({:?}, players={}, time={})", e.spec(), e.num_players(), e.time())),
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
