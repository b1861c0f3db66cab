//! The classic half of `proagent.Env`: one episode of the old-dynamics simulator, stepped
//! from Python, with overcooked_ai's state dicts and encodings.

use super::layout::OvercookedLayout;
use crate::convert::{joint_from_py, json_to_py, state_from_dict, state_to_dict};
use crate::games::{Compat, Vectors};
use crate::guard::{opt_int_param, seed_param};
use numpy::{PyArray, PyArrayMethods};
use proagent_core::game::Game as _;
use proagent_overcooked::controller::Kitchen;
use proagent_overcooked::env::encoding::Encoder;
use proagent_overcooked::env::render::render;
use proagent_overcooked::env::{Action, DEFAULT_HORIZON, Layout, State, StepOutcome};
use proagent_overcooked::game::Overcooked;
use proagent_partners::bc::features::{NUM_FEATURES, featurize};
use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::Arc;

/// A classic layout by built-in name or alias, or a path to a `.layout` / plain grid file
/// (read only if it is a regular file under the layout size limit), through the library's
/// loader; also the file's text for a layout that is not built in.
pub fn load_layout_text(spec: &str, text: Option<&str>) -> PyResult<(Layout, Option<String>)> {
    match super::layout::load_overcooked(spec, text)? {
        (OvercookedLayout::Classic(l), text) => Ok((l, text)),
        (OvercookedLayout::V2(_), _) => Err(PyValueError::new_err(format!(
            "{spec:?} is an OvercookedV2 layout: proagent.Env, VecEnv and the wrappers take it, this call does not"
        ))),
    }
}

/// A classic layout by built-in name or alias, or a path to a layout file.
pub fn load_layout(spec: &str) -> PyResult<Layout> {
    Ok(load_layout_text(spec, None)?.0)
}

/// Checks a horizon the way the CLI does.
pub fn check_horizon(horizon: u32) -> PyResult<u32> {
    if horizon == 0 || horizon > 100_000 {
        return Err(PyValueError::new_err(format!("horizon must be in 1..=100000, got {horizon}")));
    }
    Ok(horizon)
}

/// One episode of the Overcooked-AI simulator with the old dynamics (the ProAgent era's).
///
/// `Env(layout="cramped_room", horizon=400)`: `layout` is a built-in name
/// (cramped_room, asymmetric_advantages, coordination_ring, forced_coordination,
/// counter_circuit, or their 2019 aliases) or the path of a `.layout` / plain grid file.
pub struct ClassicEnv {
    pub(crate) kitchen: Arc<Kitchen>,
    pub(crate) encoder: Encoder,
    pub(crate) state: State,
    pub(crate) horizon: u32,
    pub(crate) last_joint: Option<[Action; 2]>,
    pub(crate) last_outcome: StepOutcome,
    pub(crate) score: u32,
    /// The episode seed (what the wrappers seed partners with).
    pub(crate) seed: u64,
    /// Episodes started since the last seeded reset.
    pub(crate) episode: u64,
    /// The layout as given and, for a file, its text (for pickling).
    pub(crate) spec: (String, Option<String>),
    /// The game and its codec, for the one convention of `proagent.Env`.
    vectors: Vectors<Overcooked>,
}

impl ClassicEnv {
    /// An episode of `layout` (a spec; `text`: a file's content) lasting `horizon` steps.
    pub fn build(layout: &str, text: Option<&str>, horizon: u32) -> PyResult<ClassicEnv> {
        let (l, text) = load_layout_text(layout, text)?;
        let kitchen = Arc::new(Kitchen::new(Arc::new(l)));
        let encoder = Encoder::new(&kitchen.layout);
        let state = kitchen.layout.start_state();
        let horizon = check_horizon(horizon)?;
        let vectors = Vectors::new(Arc::new(Overcooked::with_kitchen(Arc::clone(&kitchen), horizon)));
        Ok(ClassicEnv {
            kitchen,
            encoder,
            state,
            vectors,
            horizon,
            last_joint: None,
            last_outcome: StepOutcome::default(),
            score: 0,
            seed: 0,
            episode: 0,
            spec: (layout.to_string(), text),
        })
    }

    /// The kitchen (layout and motion table) this episode is played in.
    pub fn kitchen(&self) -> &Arc<Kitchen> {
        &self.kitchen
    }
}

impl ClassicEnv {
    pub(crate) fn new(layout: &str, horizon: Option<&Bound<'_, PyAny>>) -> PyResult<ClassicEnv> {
        let horizon = opt_int_param(horizon, "horizon", 1, u64::from(proagent_core::limits::MAX_HORIZON))?
            .unwrap_or(u64::from(DEFAULT_HORIZON)) as u32;
        ClassicEnv::build(layout, None, horizon)
    }

    /// Puts the episode back to the start state and returns it (a dict). `seed` is the
    /// episode seed (the old-dynamics start state is fixed, so it changes the state
    /// nothing; the wrappers seed the partners with it); without one the next episode's
    /// seed is derived from the last (`Env.seed`).
    pub(crate) fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        match seed_param(seed)? {
            Some(s) => {
                self.seed = s;
                self.episode = 0;
            }
            None => {
                self.episode += 1;
                self.seed = crate::lanes::episode_seed(self.seed, self.episode);
            }
        }
        self.state = self.kitchen.layout.start_state();
        self.last_joint = None;
        self.last_outcome = StepOutcome::default();
        self.score = 0;
        state_to_dict(py, &self.kitchen.layout, &self.state)
    }

    /// Any observation kind of classic Overcooked (`lossless`, `overcooked_ai`,
    /// `features`, `featurize`) for both players (`(2, ...)`) or `seat`, float32;
    /// `order` `"whc"`/`"hwc"` for grids; `counter_goals=True` makes counters planning
    /// goals for `featurize` (overcooked_ai's environment has none).
    pub(crate) fn observe<'py>(
        &self,
        py: Python<'py>,
        kind: &str,
        seat: Option<usize>,
        order: Option<&str>,
        counter_goals: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        use crate::obs::PyGame;
        let game = proagent_overcooked::game::Overcooked::with_kitchen(Arc::clone(&self.kitchen), self.horizon);
        let obs = game.make_obs(kind, order)?;
        let seats: Vec<usize> = match seat {
            Some(s) => vec![check_seat(s)?],
            None => vec![0, 1],
        };
        let len = obs.len();
        let mut buf = vec![0f32; len * seats.len()];
        for (k, &p) in seats.iter().enumerate() {
            let out = &mut buf[k * len..(k + 1) * len];
            if counter_goals && obs.kind == crate::obs::ObsKind::Featurize {
                let f = proagent_overcooked::env::ai_features::ai_featurize(
                    &self.kitchen.layout,
                    &self.kitchen.motion,
                    &self.state,
                    p,
                    true,
                );
                out.copy_from_slice(&f);
            } else {
                game.encode(&obs, &self.state, p, out);
            }
        }
        let mut shape = if seat.is_some() { vec![] } else { vec![2] };
        shape.extend_from_slice(&obs.shape);
        Ok(PyArray::from_vec(py, buf).reshape(shape)?.into_any())
    }

    /// The channel or feature names of an observation kind.
    pub(crate) fn obs_names(&self, kind: &str) -> PyResult<Vec<String>> {
        use crate::obs::PyGame;
        let game = proagent_overcooked::game::Overcooked::with_kitchen(Arc::clone(&self.kitchen), self.horizon);
        Ok(game.make_obs(kind, None)?.names)
    }

    pub(crate) fn reduce<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, pyo3::types::PyTuple>)> {
        let f = py.import("proagent._native")?.getattr("_restore_env")?;
        let state = state_to_dict(py, &self.kitchen.layout, &self.state)?;
        // A tuple, as `_restore_env` takes it (a list would not convert back).
        let joint = self.last_joint.map(|j| (j[0].index(), j[1].index()));
        let args = pyo3::types::PyTuple::new(
            py,
            [
                self.spec.0.clone().into_pyobject(py)?.into_any(),
                self.spec.1.clone().into_pyobject(py)?.into_any(),
                self.horizon.into_pyobject(py)?.into_any(),
                state.into_any(),
                self.score.into_pyobject(py)?.into_any(),
                self.seed.into_pyobject(py)?.into_any(),
                self.episode.into_pyobject(py)?.into_any(),
                joint.into_pyobject(py)?.into_any(),
            ],
        )?;
        Ok((f, args))
    }

    /// Advances one tick by `joint_action` (player 0's, player 1's action; each an int
    /// 0..6 in the order N, S, E, W, stay, interact, a name, or an overcooked_ai
    /// (dx, dy) / "interact"). Returns `(state, reward, done, info)`: the new state dict,
    /// the sparse team reward, whether the horizon is reached, and `info` with
    /// `sparse_r_by_agent` and `shaped_r_by_agent` (as overcooked_ai's env_info).
    pub(crate) fn step<'py>(
        &mut self,
        py: Python<'py>,
        joint_action: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyDict>, u32, bool, Bound<'py, PyDict>)> {
        let joint = joint_from_py(joint_action)?;
        if self.state.timestep >= self.horizon {
            return Err(PyValueError::new_err(format!(
                "the episode is over (timestep {} = horizon); call reset()",
                self.state.timestep
            )));
        }
        let out = self.kitchen.layout.step(&mut self.state, joint);
        self.last_joint = Some(joint);
        self.last_outcome = out;
        self.score += out.reward;
        let info = PyDict::new(py);
        info.set_item(intern!(py, "sparse_r_by_agent"), PyList::new(py, out.sparse_by_player)?)?;
        info.set_item(intern!(py, "shaped_r_by_agent"), PyList::new(py, out.shaped_by_player)?)?;
        let state = state_to_dict(py, &self.kitchen.layout, &self.state)?;
        Ok((state, out.reward, self.state.timestep >= self.horizon, info))
    }

    /// Steps without building the state dict: returns `(reward, done)`. For loops that
    /// read observations with `lossless()` / `features()` instead of dicts.
    pub(crate) fn step_fast(&mut self, a0: usize, a1: usize) -> PyResult<(u32, bool)> {
        let get =
            |i: usize| Action::from_index(i).ok_or_else(|| PyValueError::new_err(format!("action {i} is not in 0..6")));
        let joint = [get(a0)?, get(a1)?];
        let reward = self.advance(joint)?;
        Ok((reward, self.state.timestep >= self.horizon))
    }

    /// Applies `joint` with the episode's bookkeeping; the team reward.
    fn advance(&mut self, joint: [Action; 2]) -> PyResult<u32> {
        if self.state.timestep >= self.horizon {
            return Err(PyValueError::new_err("the episode is over; call reset()"));
        }
        let out = self.kitchen.layout.step(&mut self.state, joint);
        self.last_joint = Some(joint);
        self.last_outcome = out;
        self.score += out.reward;
        Ok(out.reward)
    }

    /// The current state as a dict in overcooked_ai's `OvercookedState.to_dict()` shape.
    pub(crate) fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        state_to_dict(py, &self.kitchen.layout, &self.state)
    }

    /// Replaces the current state with a dict (overcooked_ai's shape or the trace schema);
    /// every field is checked against the layout.
    pub(crate) fn set_state(&mut self, state: &Bound<'_, PyAny>) -> PyResult<()> {
        self.state = state_from_dict(&self.kitchen.layout, state)?;
        self.last_joint = None;
        self.last_outcome = StepOutcome::default();
        Ok(())
    }

    /// The lossless grid encoding, float32: shape (2, width, height, channels) for both
    /// players (each from its own point of view), or (width, height, channels) for `seat`.
    pub(crate) fn lossless<'py>(&self, py: Python<'py>, seat: Option<usize>) -> PyResult<Bound<'py, PyAny>> {
        let [w, h, c] = self.encoder.shape();
        let n = self.encoder.len();
        match seat {
            Some(s) => {
                let seat = check_seat(s)?;
                let mut buf = vec![0f32; n];
                self.encoder.encode(&self.state, seat, &mut buf).map_err(|e| PyValueError::new_err(e.to_string()))?;
                Ok(PyArray::from_vec(py, buf).reshape([w, h, c])?.into_any())
            }
            None => {
                let mut buf = vec![0f32; 2 * n];
                for (seat, chunk) in buf.chunks_mut(n).enumerate() {
                    self.encoder.encode(&self.state, seat, chunk).map_err(|e| PyValueError::new_err(e.to_string()))?;
                }
                Ok(PyArray::from_vec(py, buf).reshape([2, w, h, c])?.into_any())
            }
        }
    }

    /// The 62 BC features (float32) of the BC partners: shape (2, 62), or (62,) for `seat`.
    pub(crate) fn features<'py>(&self, py: Python<'py>, seat: Option<usize>) -> PyResult<Bound<'py, PyAny>> {
        let k = &self.kitchen;
        match seat {
            Some(s) => {
                let f = featurize(&k.layout, &k.motion, &self.state, check_seat(s)?);
                Ok(PyArray::from_slice(py, &f).into_any())
            }
            None => {
                let mut buf = Vec::with_capacity(2 * NUM_FEATURES);
                for seat in 0..2 {
                    buf.extend_from_slice(&featurize(&k.layout, &k.motion, &self.state, seat));
                }
                Ok(PyArray::from_vec(py, buf).reshape([2, NUM_FEATURES])?.into_any())
            }
        }
    }

    /// The shape of one player's lossless encoding: (width, height, channels).
    pub(crate) fn lossless_shape(&self) -> PyResult<(usize, usize, usize)> {
        Ok({
            let [w, h, c] = self.encoder.shape();
            (w, h, c)
        })
    }

    /// The names of the lossless encoding's channels, in order.
    pub(crate) fn channel_names(&self) -> PyResult<Vec<&'static str>> {
        Ok(self.encoder.channel_names())
    }

    /// The interact events of the last step, one per player (None where nothing happened).
    pub(crate) fn last_events(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        json_to_py(py, &self.last_outcome.events)
    }

    /// The ASCII board of the current state.
    pub(crate) fn render(&self) -> PyResult<String> {
        Ok(render(&self.kitchen.layout, &self.state))
    }

    /// The layout's canonical name.
    pub(crate) fn layout_name(&self) -> PyResult<String> {
        Ok(self.kitchen.layout.name.clone())
    }

    /// The layout grid rows (start digits 1 and 2 kept).
    pub(crate) fn grid(&self) -> PyResult<Vec<String>> {
        Ok(self.kitchen.layout.grid.clone())
    }

    /// Grid width (columns).
    pub(crate) fn width(&self) -> PyResult<usize> {
        Ok(self.kitchen.layout.width)
    }

    /// Grid height (rows).
    pub(crate) fn height(&self) -> PyResult<usize> {
        Ok(self.kitchen.layout.height)
    }

    pub(crate) fn repr(&self) -> PyResult<String> {
        Ok({
            format!(
                "Env(layout={:?}, horizon={}, timestep={})",
                self.kitchen.layout.name, self.horizon, self.state.timestep
            )
        })
    }
}

/// A seat index, checked.
pub fn check_seat(seat: usize) -> PyResult<usize> {
    if seat > 1 {
        return Err(PyValueError::new_err(format!("seat must be 0 or 1, got {seat}")));
    }
    Ok(seat)
}

/// Rebuilds a pickled classic episode (for `_restore_env`, the target of `Env.__reduce__`).
#[allow(clippy::too_many_arguments)]
pub fn restore(
    layout: &str,
    text: Option<String>,
    horizon: u32,
    state: &Bound<'_, PyAny>,
    score: u32,
    seed: u64,
    episode: u64,
    joint: Option<(usize, usize)>,
) -> PyResult<ClassicEnv> {
    let mut env = ClassicEnv::build(layout, text.as_deref(), horizon)?;
    env.state = state_from_dict(&env.kitchen.layout, state)?;
    env.score = score;
    env.seed = seed;
    env.episode = episode;
    if let Some((a, b)) = joint {
        let get = |i: usize| Action::from_index(i).ok_or_else(|| PyValueError::new_err("bad action in a pickled Env"));
        let j = [get(a)?, get(b)?];
        // The last step's events are recomputed from the state before it is unknown; they
        // are only read by a ProAgent's belief correction, once.
        env.last_joint = Some(j);
    }
    Ok(env)
}

impl Compat for ClassicEnv {
    type G = Overcooked;
    fn vectors(&self) -> &Vectors<Overcooked> {
        &self.vectors
    }
    fn spec_text(&self) -> String {
        self.spec.0.clone()
    }
    fn game_state(&self) -> &State {
        &self.state
    }
    fn last_joint(&self) -> Vec<Option<Action>> {
        self.last_joint.map(|j| j.map(Some).to_vec()).unwrap_or_default()
    }
    fn last_events(&self) -> Vec<Option<proagent_overcooked::env::Event>> {
        if self.last_joint.is_none() {
            return Vec::new();
        }
        (0..2).map(|p| self.vectors.game.event(&self.last_outcome, p).cloned()).collect()
    }
    fn episode_seed(&self) -> u64 {
        self.seed
    }
    fn total(&self) -> i64 {
        i64::from(self.score)
    }
    fn apply(&mut self, joint: &[Action]) -> PyResult<i64> {
        let [a0, a1] = joint else {
            return Err(PyValueError::new_err(format!(
                "classic Overcooked has 2 players, got {} actions",
                joint.len()
            )));
        };
        self.advance([*a0, *a1]).map(i64::from)
    }
}
