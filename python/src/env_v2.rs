//! `proagent.EnvV2`: one OvercookedV2 episode (JaxMARL's dynamics, any number of
//! players), stepped from Python, with each agent's observation tensor as a numpy array.

use crate::convert::{action_from_py, json_to_py};
use crate::env::check_horizon;
use numpy::{PyArray, PyArrayMethods};
use proagent::env::Action;
use proagent::env_v2::{Chance, Layout, Settings, State, obs};
use pyo3::exceptions::{PyFileNotFoundError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::Path;

/// An OvercookedV2 layout: `v2:NAME` or `NAME` (built in), or a path to a V2 `.layout` file.
fn load_v2_layout(spec: &str) -> PyResult<Layout> {
    let spec = proagent::env_v2::layout::strip_v2_prefix(spec).unwrap_or(spec);
    if let Some(l) = Layout::builtin(spec) {
        return Ok(l);
    }
    let path = Path::new(spec);
    if !path.exists() {
        let names: Vec<&str> = Layout::builtin_names().collect();
        return Err(PyFileNotFoundError::new_err(format!(
            "unknown OvercookedV2 layout {spec:?}: not a built-in name ({}) nor an existing file",
            names.join(", ")
        )));
    }
    let text =
        proagent::limits::read_file_text(path, proagent::env::layout::MAX_LAYOUT_TEXT_BYTES as u64, "layout files")
            .map_err(|e| PyFileNotFoundError::new_err(format!("reading layout file {}: {e}", path.display())))?;
    Layout::parse(&text, &path.display().to_string()).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// One OvercookedV2 episode. `reset(seed)` draws the start (recipe, and start cells with
/// `random_starts`) from the seed as `proagent play --layout v2:NAME --seed S` does.
#[pyclass(module = "proagent._native")]
pub struct EnvV2 {
    layout: Layout,
    settings: Settings,
    state: State,
    chance: Box<dyn Chance + Send + Sync>,
    score: i32,
    correct: u32,
    wrong: u32,
}

impl EnvV2 {
    fn observations<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let (h, w, c) = obs::shape(&self.layout, &self.settings);
        let list = PyList::empty(py);
        for me in 0..self.state.agents.len() {
            let mut buf = Vec::with_capacity(h * w * c);
            obs::encode(&self.layout, &self.settings, &self.state, me, &mut buf);
            list.append(PyArray::from_vec(py, buf).reshape([h, w, c])?)?;
        }
        Ok(list)
    }
}

#[pymethods]
impl EnvV2 {
    /// A V2 episode on `layout` (`v2:NAME`, `NAME` or a `.layout` file) with JaxMARL's
    /// switches (their defaults when not given).
    #[new]
    #[pyo3(signature = (
        layout = "cramped_room_v2",
        horizon = 400,
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
        horizon: u32,
        view_radius: Option<u8>,
        negative_rewards: bool,
        resample_recipe: bool,
        random_starts: bool,
        start_cooking_on_interact: bool,
        indicate_delivery: bool,
    ) -> PyResult<EnvV2> {
        if view_radius.is_some_and(|r| r > 30) {
            return Err(PyValueError::new_err("view_radius must be in 0..=30"));
        }
        let layout = load_v2_layout(layout)?;
        let settings = Settings {
            max_steps: check_horizon(horizon)?,
            view_radius,
            random_agent_positions: random_starts,
            start_cooking_interaction: start_cooking_on_interact,
            negative_rewards,
            sample_recipe_on_delivery: resample_recipe,
            indicate_successful_delivery: indicate_delivery,
        };
        let mut chance = Box::new(proagent::runner::env_chance(0));
        let state = layout.start_state(&settings, &mut *chance);
        Ok(EnvV2 { layout, settings, state, chance, score: 0, correct: 0, wrong: 0 })
    }

    /// Starts a new episode drawn from `seed` (0 when not given); returns every agent's
    /// observation tensor (int32, height × width × channels), in player order.
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(&mut self, py: Python<'py>, seed: Option<u64>) -> PyResult<Bound<'py, PyList>> {
        self.chance = Box::new(proagent::runner::env_chance(seed.unwrap_or(0)));
        self.state = self.layout.start_state(&self.settings, &mut *self.chance);
        self.score = 0;
        self.correct = 0;
        self.wrong = 0;
        self.observations(py)
    }

    /// Advances one tick by `actions` (one per player: an int 0..6 in the order N, S, E, W,
    /// stay, interact, or a name). Returns `(observations, reward, done, info)`: the team
    /// reward (±20 per delivery, −5 per button press), and `info` with
    /// `shaped_r_by_agent`, `correct_deliveries`, `wrong_deliveries` and each player's
    /// interact `events` (None or a dict).
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyList>, i32, bool, Bound<'py, PyDict>)> {
        let n = self.state.agents.len();
        let given: Vec<Bound<'py, PyAny>> = actions.try_iter()?.collect::<PyResult<_>>()?;
        if given.len() != n {
            return Err(PyValueError::new_err(format!(
                "{} has {n} player(s): step() takes {n} action(s), got {}",
                self.layout.name,
                given.len()
            )));
        }
        if self.state.done(&self.settings) {
            return Err(PyValueError::new_err(format!(
                "the episode is over (step {} = horizon); call reset()",
                self.state.step
            )));
        }
        let actions: Vec<Action> = given.iter().map(action_from_py).collect::<PyResult<_>>()?;
        let out = self.layout.step(&self.settings, &mut self.state, &actions, &mut *self.chance);
        self.score += out.reward;
        self.correct += out.correct_deliveries;
        self.wrong += out.wrong_deliveries;
        let info = PyDict::new(py);
        info.set_item("shaped_r_by_agent", PyList::new(py, &out.shaped[..n])?)?;
        info.set_item("correct_deliveries", out.correct_deliveries)?;
        info.set_item("wrong_deliveries", out.wrong_deliveries)?;
        info.set_item("events", json_to_py(py, &out.events[..n].to_vec())?)?;
        let done = self.state.done(&self.settings);
        Ok((self.observations(py)?, out.reward, done, info))
    }

    /// Every agent's observation tensor now (as `reset` and `step` return them).
    fn observations_now<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.observations(py)
    }

    /// The shape of one observation tensor: (height, width, channels).
    #[getter]
    fn observation_shape(&self) -> (usize, usize, usize) {
        obs::shape(&self.layout, &self.settings)
    }

    /// Whether `viewer`'s view radius covers cell `(x, y)` (always true with full view).
    fn visible(&self, viewer: usize, x: u8, y: u8) -> PyResult<bool> {
        let a = self
            .state
            .agents
            .get(viewer)
            .ok_or_else(|| PyValueError::new_err(format!("no player {viewer} on {}", self.layout.name)))?;
        Ok(obs::visible(&self.settings, a.pos, proagent::env::Pos::new(x, y)))
    }

    /// The board as text.
    fn render(&self) -> String {
        proagent::env_v2::render::render(&self.layout, &self.state)
    }

    /// The recipe being ordered, e.g. "onion, onion, tomato".
    #[getter]
    fn recipe(&self) -> String {
        self.state.recipe.describe(&self.layout.ingredient_names)
    }

    /// The number of players.
    #[getter]
    fn n_agents(&self) -> usize {
        self.state.agents.len()
    }

    /// Steps played this episode.
    #[getter]
    fn timestep(&self) -> u32 {
        self.state.step
    }

    /// The episode's score so far (the sum of the team rewards).
    #[getter]
    fn score(&self) -> i32 {
        self.score
    }

    /// Correct and wrong deliveries so far.
    #[getter]
    fn deliveries(&self) -> (u32, u32) {
        (self.correct, self.wrong)
    }

    /// Whether the horizon is reached.
    #[getter]
    fn done(&self) -> bool {
        self.state.done(&self.settings)
    }

    /// The layout's name (`v2:NAME`).
    #[getter]
    fn layout_name(&self) -> String {
        format!("v2:{}", self.layout.name)
    }

    /// Each player's position `(x, y)`.
    fn positions(&self) -> Vec<(u8, u8)> {
        self.state.agents.iter().map(|a| (a.pos.x, a.pos.y)).collect()
    }

    fn __repr__(&self) -> String {
        format!(
            "EnvV2(layout='v2:{}', players={}, step={})",
            self.layout.name,
            self.state.agents.len(),
            self.state.step
        )
    }
}
