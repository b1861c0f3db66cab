//! The OvercookedV2 half of `proagent.Env`: one episode (JaxMARL's dynamics, any number
//! of players), stepped from Python, with each agent's observation tensor as a numpy array.

use super::classic::check_horizon;
use crate::convert::{action_from_py, json_to_py};
use crate::games::{Compat, Vectors};
use crate::guard::{opt_int_param, seed_param};
use numpy::{PyArray, PyArrayMethods};
use proagent_overcooked::env::Action;
use proagent_overcooked_v2::env::{Chance, Layout, Settings, State, obs};
use proagent_overcooked_v2::game::OvercookedV2;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::sync::Arc;

/// An OvercookedV2 layout: `v2:NAME` (built in) or `v2:PATH` (a V2 `.layout` file, read
/// only if it is a regular file under the size limit), through the library's loader; with
/// the file's text for a layout that is not built in.
fn load_v2_layout(spec: &str, text: Option<&str>) -> PyResult<(Layout, Option<String>)> {
    match super::layout::load_overcooked(spec, text)? {
        (super::layout::OvercookedLayout::V2(l), text) => Ok((l, text)),
        _ => Err(PyValueError::new_err(format!("{spec:?} is not an OvercookedV2 layout"))),
    }
}

/// One OvercookedV2 episode. `reset(seed)` draws the start (recipe, and start cells with
/// `random_starts`) from the seed as `proagent play --layout v2:NAME --seed S` does.
pub struct V2Env {
    layout: Layout,
    settings: Settings,
    state: State,
    chance: Box<dyn Chance + Send + Sync>,
    score: i32,
    correct: u32,
    wrong: u32,
    seed: u64,
    base: u64,
    episode: u64,
    /// Every joint action of this episode (action indices), for exact copies.
    history: Vec<u8>,
    /// What each player's action did in the last step (for policies, as in the runner).
    last_events: Vec<Option<proagent_overcooked_v2::env::Event>>,
    /// The constructor's layout spec and file text, for pickling.
    spec: (String, Option<String>),
    /// The game and its codec, for the one convention of `proagent.Env`.
    vectors: Vectors<OvercookedV2>,
}

impl V2Env {
    /// The layout as a spec (`v2:NAME`), for messages.
    pub fn spec_name(&self) -> String {
        format!("v2:{}", self.layout.name)
    }

    /// Episode length in ticks.
    pub fn horizon(&self) -> u32 {
        self.settings.max_steps
    }

    /// The layout, the switches, the state and the last joint action (for policies).
    pub fn parts(&self) -> (&Layout, &Settings, &State, Vec<Action>, &[Option<proagent_overcooked_v2::env::Event>]) {
        let n = self.state.agents.len();
        let last = if self.history.len() >= n {
            self.history[self.history.len() - n..].iter().filter_map(|&i| Action::from_index(usize::from(i))).collect()
        } else {
            Vec::new()
        };
        (&self.layout, &self.settings, &self.state, last, &self.last_events)
    }

    fn build(layout: &str, text: Option<&str>, settings: Settings) -> PyResult<V2Env> {
        let (layout_v, text) = load_v2_layout(layout, text)?;
        let mut chance = Box::new(proagent_eval::runner::env_chance(0));
        let state = layout_v.start_state(&settings, &mut *chance);
        let vectors = Vectors::new(Arc::new(OvercookedV2::new(Arc::new(layout_v.clone()), settings.clone())));
        let mut env = V2Env {
            vectors,
            layout: layout_v,
            settings,
            state,
            chance,
            score: 0,
            correct: 0,
            wrong: 0,
            seed: 0,
            base: 0,
            episode: 0,
            history: Vec::new(),
            last_events: Vec::new(),
            spec: (layout.to_string(), text),
        };
        env.start();
        Ok(env)
    }

    /// Starts episode `episode` of base seed `base`.
    fn start(&mut self) {
        self.seed = crate::lanes::episode_seed(self.base, self.episode);
        self.chance = Box::new(proagent_eval::runner::env_chance(self.seed));
        self.state = self.layout.start_state(&self.settings, &mut *self.chance);
        self.score = 0;
        self.correct = 0;
        self.wrong = 0;
        self.history.clear();
        self.last_events.clear();
    }

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

impl V2Env {
    /// A V2 episode on `layout` (`v2:NAME`, `NAME` or a `.layout` file) with JaxMARL's
    /// switches (their defaults when not given).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        layout: &str,
        horizon: Option<&Bound<'_, PyAny>>,
        view_radius: Option<&Bound<'_, PyAny>>,
        negative_rewards: bool,
        resample_recipe: bool,
        random_starts: bool,
        start_cooking_on_interact: bool,
        indicate_delivery: bool,
    ) -> PyResult<V2Env> {
        let horizon =
            opt_int_param(horizon, "horizon", 1, u64::from(proagent_core::limits::MAX_HORIZON))?.unwrap_or(400) as u32;
        let view_radius = opt_int_param(view_radius, "view_radius", 0, 30)?.map(|r| r as u8);
        let settings = Settings {
            max_steps: check_horizon(horizon)?,
            view_radius,
            random_agent_positions: random_starts,
            start_cooking_interaction: start_cooking_on_interact,
            negative_rewards,
            sample_recipe_on_delivery: resample_recipe,
            indicate_successful_delivery: indicate_delivery,
        };
        V2Env::build(layout, None, settings)
    }

    /// Starts a new episode drawn from `seed` (without one, the next episode's seed is
    /// derived from the last, so successive episodes differ); returns every agent's
    /// observation tensor (int32, height × width × channels), in player order.
    pub(crate) fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        match seed_param(seed)? {
            Some(s) => {
                self.base = s;
                self.episode = 0;
            }
            None => self.episode += 1,
        }
        self.start();
        self.observations(py)
    }

    /// The state as the trajectory record's dict.
    pub(crate) fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let t = proagent_overcooked_v2::env::trace::trace_state(&self.layout, &self.settings, &self.state);
        crate::convert::from_json(py, &serde_json::to_value(t).map_err(|e| PyValueError::new_err(e.to_string()))?)
    }

    pub(crate) fn reduce<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let f = py.import("proagent._native")?.getattr("_restore_env_v2")?;
        let v = serde_json::json!({
            "layout": self.spec.0, "text": self.spec.1, "settings": self.settings,
            "base": self.base, "episode": self.episode, "history": self.history,
        });
        Ok((f, (v.to_string(),)))
    }

    /// Advances one tick by `actions` (one per player: an int 0..6 in the order N, S, E, W,
    /// stay, interact, or a name). Returns `(observations, reward, done, info)`: the team
    /// reward (±20 per delivery, −5 per button press), and `info` with
    /// `shaped_r_by_agent`, `correct_deliveries`, `wrong_deliveries` and each player's
    /// interact `events` (None or a dict).
    pub(crate) fn step<'py>(
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
        let out = self.advance(&actions)?;
        let info = PyDict::new(py);
        info.set_item("shaped_r_by_agent", PyList::new(py, &out.shaped[..n])?)?;
        info.set_item("correct_deliveries", out.correct_deliveries)?;
        info.set_item("wrong_deliveries", out.wrong_deliveries)?;
        info.set_item("events", json_to_py(py, &out.events[..n].to_vec())?)?;
        let done = self.state.done(&self.settings);
        Ok((self.observations(py)?, out.reward, done, info))
    }

    /// Applies one action per player with the episode's bookkeeping.
    fn advance(&mut self, actions: &[Action]) -> PyResult<proagent_overcooked_v2::env::StepOutcome> {
        let n = self.state.agents.len();
        if actions.len() != n {
            return Err(PyValueError::new_err(format!(
                "{} has {n} player(s), got {} action(s)",
                self.layout.name,
                actions.len()
            )));
        }
        if self.state.done(&self.settings) {
            return Err(PyValueError::new_err("the episode is over; call reset()"));
        }
        self.history.extend(actions.iter().map(|a| a.index() as u8));
        let out = self.layout.step(&self.settings, &mut self.state, actions, &mut *self.chance);
        self.last_events = out.events[..n].to_vec();
        self.score += out.reward;
        self.correct += out.correct_deliveries;
        self.wrong += out.wrong_deliveries;
        Ok(out)
    }

    /// Every agent's observation tensor now (as `reset` and `step` return them).
    pub(crate) fn observations_now<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.observations(py)
    }

    /// The shape of one observation tensor: (height, width, channels).
    pub(crate) fn observation_shape(&self) -> PyResult<(usize, usize, usize)> {
        Ok(obs::shape(&self.layout, &self.settings))
    }

    /// Whether `viewer`'s view radius covers cell `(x, y)` (always true with full view).
    pub(crate) fn visible(&self, viewer: usize, x: u8, y: u8) -> PyResult<bool> {
        let a = self
            .state
            .agents
            .get(viewer)
            .ok_or_else(|| PyValueError::new_err(format!("no player {viewer} on {}", self.layout.name)))?;
        Ok(obs::visible(&self.settings, a.pos, proagent_overcooked::env::Pos::new(x, y)))
    }

    /// The board as text.
    pub(crate) fn render(&self) -> PyResult<String> {
        Ok(proagent_overcooked_v2::env::render::render(&self.layout, &self.state))
    }

    /// The recipe being ordered, e.g. "onion, onion, tomato".
    pub(crate) fn recipe(&self) -> PyResult<String> {
        Ok(self.state.recipe.describe(&self.layout.ingredient_names))
    }

    /// Correct and wrong deliveries so far.
    pub(crate) fn deliveries(&self) -> PyResult<(u32, u32)> {
        Ok((self.correct, self.wrong))
    }

    /// The layout's name (`v2:NAME`).
    pub(crate) fn layout_name(&self) -> PyResult<String> {
        Ok(format!("v2:{}", self.layout.name))
    }

    /// Each player's position `(x, y)`.
    pub(crate) fn positions(&self) -> PyResult<Vec<(u8, u8)>> {
        Ok(self.state.agents.iter().map(|a| (a.pos.x, a.pos.y)).collect())
    }

    pub(crate) fn repr(&self) -> PyResult<String> {
        Ok({
            format!(
                "Env(layout='v2:{}', players={}, step={})",
                self.layout.name,
                self.state.agents.len(),
                self.state.step
            )
        })
    }
}

/// Rebuilds a pickled OvercookedV2 episode by re-playing it (for `_restore_env_v2`, the
/// target of `Env.__reduce__` on a V2 layout).
pub fn restore(py: Python<'_>, text: &str) -> PyResult<V2Env> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| PyValueError::new_err(format!("not a pickled OvercookedV2 Env: {e}")))?;
    let bad = || PyValueError::new_err("not a pickled OvercookedV2 Env");
    let settings: Settings = serde_json::from_value(v["settings"].clone()).map_err(|_| bad())?;
    let layout = v["layout"].as_str().ok_or_else(bad)?;
    let mut env = V2Env::build(layout, v["text"].as_str(), settings)?;
    env.base = v["base"].as_u64().ok_or_else(bad)?;
    env.episode = v["episode"].as_u64().ok_or_else(bad)?;
    env.start();
    let history: Vec<u8> = serde_json::from_value(v["history"].clone()).map_err(|_| bad())?;
    let n = env.state.agents.len().max(1);
    for joint in history.chunks(n) {
        let acts = pyo3::types::PyList::new(py, joint.iter().map(|&a| a as usize))?;
        env.step(py, acts.as_any())?;
    }
    Ok(env)
}

impl Compat for V2Env {
    type G = OvercookedV2;
    fn vectors(&self) -> &Vectors<OvercookedV2> {
        &self.vectors
    }
    fn spec_text(&self) -> String {
        self.spec.0.clone()
    }
    fn game_state(&self) -> &State {
        &self.state
    }
    fn last_joint(&self) -> Vec<Option<Action>> {
        self.parts().3.into_iter().map(Some).collect()
    }
    fn last_events(&self) -> Vec<Option<proagent_overcooked_v2::env::Event>> {
        self.last_events.clone()
    }
    fn episode_seed(&self) -> u64 {
        self.seed
    }
    fn total(&self) -> i64 {
        i64::from(self.score)
    }
    fn apply(&mut self, joint: &[Action]) -> PyResult<i64> {
        self.advance(joint).map(|out| i64::from(out.reward))
    }
}
