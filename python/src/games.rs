//! `proagent.GameEnv`: one episode of any game of the catalog, with one convention for
//! every game, built from the catalog's loader, with the built-in seats of the game, for the
//! PettingZoo and Gymnasium adapters of `proagent.games`. No game is named here: each
//! game's action indices, observation vectors and seats are its codec's.
//!
//! Guarantees:
//! - **Fixed action indices**, the codec's ([`VectorCodec`]); [`GameEnv::action_mask`]
//!   marks the legal ones of a player.
//! - **Observations** are float32 vectors of a fixed length per game (the codec's
//!   encoding; a game of hidden information never shows the observer what it may not see).
//! - **Seeded as the runner.** An episode with seed `s` draws the game's chance (deals,
//!   wanders) from `env_chance(s)`, and seats a built-in partner with
//!   `seat_seed(s, player)`, as `play_episode` does: same seed, same episode.
//! - **Total.** An action that is not legal is the game's own business (a turn game
//!   refuses it and the same player moves again; a maze keeps the player where it is) and
//!   is reported as refused; nothing here panics on input from Python.

use crate::guard::{guarded_fns, guarded_methods};
use crate::guard::{int_param, seed_param};
use crate::render::Board;
use numpy::{PyArray1, PyArray3, PyArrayMethods};
use proagent_core::game::{Game, Turn};
use proagent_core::seat::{Observation, Seat, seat_seed};
use proagent_eval::games::Playable;
use proagent_eval::games::playable::VectorCodec;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rand_chacha::ChaCha8Rng;
use std::sync::{Arc, Mutex};

/// One episode of one game, with optional built-in seats.
struct Session<G: Game> {
    game: Arc<G>,
    codec: Box<dyn VectorCodec<G>>,
    state: G::State,
    chance: ChaCha8Rng,
    /// The built-in seats (in a mutex only so that the class is `Sync`; `&mut self`
    /// reaches them without locking).
    seats: Vec<Option<Mutex<Box<dyn Seat<G>>>>>,
    seat_names: Vec<Option<String>>,
    last_actions: Vec<Option<G::Action>>,
    last_events: Vec<Option<G::Event>>,
    /// Joint steps applied (refused ones included).
    steps: u32,
    score: i64,
}

/// What one call to [`Session::step`] did.
struct Stepped {
    reward: i64,
    refused: Vec<usize>,
    partner_moves: Vec<(usize, usize)>,
}

impl<G: Game + Board> Session<G> {
    fn new(game: Arc<G>, codec: Box<dyn VectorCodec<G>>, partners: &[(usize, String)]) -> PyResult<Self> {
        let n = game.num_players();
        let mut seats: Vec<Option<Mutex<Box<dyn Seat<G>>>>> = (0..n).map(|_| None).collect();
        let mut seat_names = vec![None; n];
        for (p, name) in partners {
            if *p >= n {
                return Err(PyValueError::new_err(format!("partner seat {p}: {} has {n} players", game.spec())));
            }
            let seat = codec.seat(&game, name).map_err(|e| PyValueError::new_err(e.to_string()))?;
            seats[*p] = Some(Mutex::new(seat));
            seat_names[*p] = Some(name.clone());
        }
        let mut chance = proagent_eval::runner::env_chance(0);
        let state = game.initial_state(&mut chance);
        Ok(Session {
            game,
            codec,
            state,
            chance,
            seats,
            seat_names,
            last_actions: Vec::new(),
            last_events: Vec::new(),
            steps: 0,
            score: 0,
        })
    }

    fn reset(&mut self, seed: u64) -> PyResult<Stepped> {
        self.chance = proagent_eval::runner::env_chance(seed);
        self.state = self.game.initial_state(&mut self.chance);
        for (p, s) in self.seats.iter_mut().enumerate() {
            if let Some(s) = s {
                let s = s.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
                s.reset(&*self.game, p, seat_seed(seed, p));
            }
        }
        self.last_actions.clear();
        self.last_events.clear();
        self.steps = 0;
        self.score = 0;
        self.advance_partners()
    }

    fn over(&self) -> bool {
        self.game.is_over(&self.state)
    }

    fn truncated(&self) -> bool {
        !self.over() && self.game.time(&self.state) >= self.game.max_steps()
    }

    /// The players who move now (none once the game is over or at its turn limit).
    fn movers(&self) -> Vec<usize> {
        if self.over() || self.truncated() {
            return Vec::new();
        }
        let n = self.game.num_players();
        match self.game.turn(&self.state) {
            Turn::All => (0..n).collect(),
            Turn::Player(p) => vec![p],
            Turn::Over => Vec::new(),
        }
    }

    fn legal(&self, player: usize) -> Vec<G::Action> {
        if !self.movers().contains(&player) {
            return Vec::new();
        }
        self.game.legal_actions(self.game.view(&self.state, player), player)
    }

    fn partner_action(&mut self, p: usize) -> PyResult<Option<G::Action>> {
        let Some(seat) = self.seats.get_mut(p).and_then(Option::as_mut) else { return Ok(None) };
        let seat = seat.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        let obs = Observation {
            game: &*self.game,
            view: self.game.view(&self.state, p),
            seat: p,
            t: self.game.time(&self.state),
            last_actions: &self.last_actions,
            last_events: &self.last_events,
        };
        proagent_partners::collab::selfplay::block_on(seat.act(&obs))
            .map(Some)
            .map_err(|e| PyValueError::new_err(format!("partner seat {p}: {e}")))
    }

    /// Applies `given` (by player) with the partners' moves filled in, then plays the
    /// partners' own turns until a player driven from Python must move.
    fn step(&mut self, given: &[Option<usize>]) -> PyResult<Stepped> {
        let mut out = self.apply(given)?;
        let more = self.advance_partners()?;
        out.reward += more.reward;
        out.partner_moves.extend(more.partner_moves);
        Ok(out)
    }

    fn apply(&mut self, given: &[Option<usize>]) -> PyResult<Stepped> {
        let n = self.game.num_players();
        let movers = self.movers();
        let mut joint: Vec<Option<G::Action>> = vec![None; n];
        let mut refused = Vec::new();
        let mut partner_moves = Vec::new();
        for &p in &movers {
            if self.seats[p].is_some() {
                let a = self.partner_action(p)?;
                if let Some(a) = a {
                    partner_moves.push((p, self.codec.action_index(&self.game, a)));
                }
                joint[p] = a;
                continue;
            }
            let Some(i) = given.get(p).copied().flatten() else {
                return Err(PyValueError::new_err(format!("player {p} moves now: give its action")));
            };
            let a = self.codec.action_at(&self.game, i).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "action {i} of player {p} is not an action of {} (0..{})",
                    self.game.spec(),
                    self.codec.n_actions(&self.game)
                ))
            })?;
            if !self.legal(p).contains(&a) {
                refused.push(p);
            }
            joint[p] = Some(a);
        }
        let outcome = self.game.step(&mut self.state, &joint, &mut self.chance);
        let reward = i64::from(self.game.reward(&outcome));
        self.score += reward;
        self.steps += 1;
        self.last_events = (0..n).map(|p| self.game.event(&outcome, p).cloned()).collect();
        self.last_actions = joint;
        Ok(Stepped { reward, refused, partner_moves })
    }

    /// Plays every turn in which only built-in seats move.
    fn advance_partners(&mut self) -> PyResult<Stepped> {
        let mut out = Stepped { reward: 0, refused: Vec::new(), partner_moves: Vec::new() };
        // Bounded: each applied step advances the game (a bot plays legal moves only), and
        // the bound stops a bot that did not.
        let mut budget = self.game.max_steps() as usize + 1;
        loop {
            let movers = self.movers();
            if movers.is_empty() || movers.iter().any(|&p| self.seats[p].is_none()) || budget == 0 {
                return Ok(out);
            }
            budget -= 1;
            let s = self.apply(&[])?;
            out.reward += s.reward;
            out.partner_moves.extend(s.partner_moves);
        }
    }
}

/// An episode of any game behind one Python class: what [`GameEnv`] asks of it.
trait Episode: Send + Sync {
    fn kind(&self) -> &'static str;
    fn num_players(&self) -> usize;
    fn n_actions(&self) -> usize;
    fn obs_len(&self) -> usize;
    fn max_steps(&self) -> u32;
    fn turn_based(&self) -> bool;
    fn partner_players(&self) -> Vec<usize>;
    fn reset(&mut self, seed: u64) -> PyResult<Stepped>;
    fn movers(&self) -> Vec<usize>;
    fn legal_indices(&self, player: usize) -> Vec<usize>;
    fn observe(&self, player: usize, out: &mut Vec<f32>);
    fn step(&mut self, given: &[Option<usize>]) -> PyResult<Stepped>;
    fn score(&self) -> i64;
    fn time(&self) -> u32;
    fn over(&self) -> bool;
    fn truncated(&self) -> bool;
    fn action_token(&self, index: usize) -> Option<String>;
    fn state_json(&self) -> serde_json::Value;
    fn render_text(&self) -> String;
    fn rgb(&self, cell: u32) -> PyResult<(Vec<u8>, usize, usize)>;
}

impl<G: Game + Board> Episode for Session<G> {
    fn kind(&self) -> &'static str {
        self.game.kind()
    }
    fn num_players(&self) -> usize {
        self.game.num_players()
    }
    fn n_actions(&self) -> usize {
        self.codec.n_actions(&self.game)
    }
    fn obs_len(&self) -> usize {
        self.codec.obs_len(&self.game)
    }
    fn max_steps(&self) -> u32 {
        self.game.max_steps()
    }
    fn turn_based(&self) -> bool {
        let start = self.game.initial_state(&mut proagent_eval::runner::env_chance(0));
        matches!(self.game.turn(&start), Turn::Player(_))
    }
    fn partner_players(&self) -> Vec<usize> {
        self.seat_names.iter().enumerate().filter(|(_, n)| n.is_some()).map(|(p, _)| p).collect()
    }
    fn reset(&mut self, seed: u64) -> PyResult<Stepped> {
        Session::reset(self, seed)
    }
    fn movers(&self) -> Vec<usize> {
        Session::movers(self)
    }
    fn legal_indices(&self, player: usize) -> Vec<usize> {
        self.legal(player).into_iter().map(|a| self.codec.action_index(&self.game, a)).collect()
    }
    fn observe(&self, player: usize, out: &mut Vec<f32>) {
        self.codec.encode(&self.game, &self.state, player, &self.last_actions, out);
    }
    fn step(&mut self, given: &[Option<usize>]) -> PyResult<Stepped> {
        Session::step(self, given)
    }
    fn score(&self) -> i64 {
        self.score
    }
    fn time(&self) -> u32 {
        self.game.time(&self.state)
    }
    fn over(&self) -> bool {
        Session::over(self)
    }
    fn truncated(&self) -> bool {
        Session::truncated(self)
    }
    fn action_token(&self, index: usize) -> Option<String> {
        self.codec.action_at(&self.game, index).map(|a| self.game.action_token(a))
    }
    fn state_json(&self) -> serde_json::Value {
        self.game.state_json(&self.state)
    }
    fn render_text(&self) -> String {
        self.game.render_text(&self.state)
    }
    fn rgb(&self, cell: u32) -> PyResult<(Vec<u8>, usize, usize)> {
        crate::render::board_rgb(&*self.game, &self.state, cell)
    }
}

/// One episode of any game of the catalog (a spec as `proagent play --layout` takes it),
/// with built-in partner seats where asked; the game's action indices and observations
/// are its codec's ([`Playable::vector_codec`]).
#[pyclass(module = "proagent._native")]
pub struct GameEnv {
    any: Box<dyn Episode>,
    spec: String,
    partners: Vec<(usize, String)>,
    seed: u64,
    base: u64,
    episode: u64,
    /// Whether an episode was started, and the actions given to `step` since (for exact
    /// copies: a pickled env re-plays them; the partners' moves follow from the seed).
    started: bool,
    history: Vec<Vec<Option<usize>>>,
}

impl GameEnv {
    /// Starts episode `episode` of base seed `base`.
    fn start(&mut self) -> PyResult<Stepped> {
        self.seed =
            if self.episode == 0 { self.base } else { proagent_core::seat::derive_seed(self.base, self.episode) };
        self.started = true;
        self.history.clear();
        let seed = self.seed;
        self.any.reset(seed)
    }

    fn new_env(spec: &str, partners: Vec<(usize, String)>) -> PyResult<GameEnv> {
        Ok(GameEnv {
            any: build(spec, &partners)?,
            spec: spec.trim().to_string(),
            partners,
            seed: 0,
            base: 0,
            episode: 0,
            started: false,
            history: Vec::new(),
        })
    }
}

/// The episode of the game a spec names, as the catalog loads it, with the codec the game
/// picks ([`Playable::vector_codec`]).
fn build(spec: &str, partners: &[(usize, String)]) -> PyResult<Box<dyn Episode>> {
    let options = proagent_eval::games::GameOptions::default();
    // A spec that names no game is bad input here (`ValueError`), as it always was.
    let loaded = crate::vec_env::load_game(spec.trim(), None, &options).map_err(|e| {
        Python::attach(|py| {
            if e.is_instance_of::<pyo3::exceptions::PyFileNotFoundError>(py) {
                PyValueError::new_err(e.value(py).to_string())
            } else {
                e
            }
        })
    })?;
    // The game picks its codec.
    proagent_eval::on_game!(loaded.0, |g| {
        let codec = g.vector_codec();
        let episode: Box<dyn Episode> = Box::new(Session::new(g, codec, partners)?);
        Ok(episode)
    })
}

fn stepped_info<'py>(py: Python<'py>, s: &Stepped) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("refused", PyList::new(py, &s.refused)?)?;
    d.set_item("partner_moves", PyList::new(py, &s.partner_moves)?)?;
    Ok(d)
}

guarded_methods! {
#[pymethods]
impl GameEnv {
    /// A game by spec; `partners` maps players to built-in seat names (the game's own, as
    /// `proagent play --partner` names them).
    #[new]
    #[pyo3(signature = (spec = "hanabi:2p", partners = None))]
    fn new(spec: &str, partners: Option<&Bound<'_, PyDict>>) -> PyResult<GameEnv> {
        let mut ps = Vec::new();
        if let Some(d) = partners {
            for (k, v) in d.iter() {
                let p = int_param(&k, "partner seat", 0, 63)? as usize;
                let name: String = v.extract()?;
                ps.push((p, name.trim().to_string()));
            }
        }
        GameEnv::new_env(spec, ps)
    }

    /// The game's family (its catalog kind: `overcooked`, `collab_capture`, ...).
    #[getter]
    fn kind(&self) -> PyResult<&'static str> {
        Ok(self.any.kind())
    }

    /// The spec this game was built from.
    #[getter]
    fn spec(&self) -> PyResult<String> {
        Ok(self.spec.clone())
    }

    /// Players in the game.
    #[getter]
    fn num_players(&self) -> PyResult<usize> {
        Ok(self.any.num_players())
    }

    /// Size of the action index space.
    #[getter]
    fn num_actions(&self) -> PyResult<usize> {
        Ok(self.any.n_actions())
    }

    /// Length of one player's observation vector.
    #[getter]
    fn obs_len(&self) -> PyResult<usize> {
        Ok(self.any.obs_len())
    }

    /// The game's own step limit (Hanabi: 256 moves; a maze: its turn limit).
    #[getter]
    fn max_steps(&self) -> PyResult<u32> {
        Ok(self.any.max_steps())
    }

    /// Whether players move one at a time (Hanabi) rather than all at once (the mazes).
    #[getter]
    fn turn_based(&self) -> PyResult<bool> {
        Ok(self.any.turn_based())
    }

    /// The players seated by built-in partners.
    #[getter]
    fn partner_players(&self) -> PyResult<Vec<usize>> {
        Ok(self.any.partner_players())
    }

    /// The episode seed.
    #[getter]
    fn seed(&self) -> PyResult<u64> {
        Ok(self.seed)
    }

    /// Starts an episode drawn from `seed` (without one, the next episode of the last
    /// seed's sequence) and plays the partners' turns until a Python player moves.
    /// Returns the info dict of those partner moves.
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(&mut self, py: Python<'py>, seed: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyDict>> {
        match seed_param(seed)? {
            Some(s) => {
                self.base = s;
                self.episode = 0;
            }
            None => self.episode += 1,
        }
        let s = self.start()?;
        stepped_info(py, &s)
    }

    /// The players to move now (all players in a maze turn, one in Hanabi, none once the
    /// episode is over or at its step limit).
    fn movers(&self) -> PyResult<Vec<usize>> {
        Ok(self.any.movers())
    }

    /// The legal action indices of `player` now (empty when it does not move).
    fn legal_actions(&self, player: usize) -> PyResult<Vec<usize>> {
        Ok(self.any.legal_indices(player))
    }

    /// The legal actions of `player` as a 0/1 int8 mask over the action indices.
    fn action_mask<'py>(&self, py: Python<'py>, player: usize) -> PyResult<Bound<'py, PyArray1<i8>>> {
        Ok({
            let mut mask = vec![0i8; self.num_actions()?];
            for i in self.legal_actions(player)? {
                if let Some(m) = mask.get_mut(i) {
                    *m = 1;
                }
            }
            PyArray1::from_vec(py, mask)
        })
    }

    /// `player`'s observation (float32, `obs_len` long).
    fn observe<'py>(&self, py: Python<'py>, player: usize) -> PyResult<Bound<'py, PyArray1<f32>>> {
        let n = self.num_players()?;
        if player >= n {
            return Err(PyValueError::new_err(format!("player must be in 0..{n}, got {player}")));
        }
        let mut out = Vec::new();
        self.any.observe(player, &mut out);
        Ok(PyArray1::from_vec(py, out))
    }

    /// Applies one action index per player (`None` for players who do not move now, or
    /// who are partners) and plays the partners' turns that follow. Returns `(reward,
    /// terminated, truncated, info)`: the team reward of everything applied, the end by
    /// the game's rules, the end by its step limit, and `info` with `refused` (players
    /// whose action was not legal) and `partner_moves` (`(player, action)` pairs).
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<(i64, bool, bool, Bound<'py, PyDict>)> {
        let n = self.num_players()?;
        let given: Vec<Bound<'py, PyAny>> = actions.try_iter()?.collect::<PyResult<_>>()?;
        if given.len() != n {
            return Err(PyValueError::new_err(format!(
                "{} has {n} players: step() takes {n} entries (None for a player who does not move), got {}",
                self.spec,
                given.len()
            )));
        }
        if self.movers()?.is_empty() {
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
        let s = self.any.step(&idx)?;
        self.history.push(idx);
        let (term, trunc) = (self.any.over(), self.any.truncated());
        Ok((s.reward, term, trunc, stepped_info(py, &s)?))
    }

    /// The episode's return so far.
    #[getter]
    fn score(&self) -> PyResult<i64> {
        Ok(self.any.score())
    }

    /// Steps of the game played (Hanabi: moves made; a maze: turns).
    #[getter]
    fn time(&self) -> PyResult<u32> {
        Ok(self.any.time())
    }

    /// Whether the game has ended by its rules.
    #[getter]
    fn terminated(&self) -> PyResult<bool> {
        Ok(self.any.over())
    }

    /// Whether the game stopped at its step limit without ending by its rules.
    #[getter]
    fn truncated(&self) -> PyResult<bool> {
        Ok(self.any.truncated())
    }

    /// An action index as the game's token (`P3`, `H1R`, `M4`, ...).
    fn action_token(&self, index: usize) -> PyResult<String> {
        self.any
            .action_token(index)
            .ok_or_else(|| PyValueError::new_err(format!("{index} is not an action index of {}", self.spec)))
    }

    /// The state as the game's trajectory record (a dict; Hanabi's shows every hand).
    fn state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v = self.any.state_json();
        crate::convert::from_json(py, &v)
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let f = py.import("proagent._native")?.getattr("_restore_game_env")?;
        let v = serde_json::json!({
            "spec": self.spec, "partners": self.partners, "base": self.base, "episode": self.episode,
            "started": self.started, "history": self.history,
        });
        Ok((f, (v.to_string(),)))
    }

    /// The state as text.
    fn render(&self) -> PyResult<String> {
        Ok(self.any.render_text())
    }

    /// The state as an RGB array (height, width, 3), drawn by the viewer's board
    /// drawing; `cell` pixels per grid cell.
    #[pyo3(signature = (cell = None))]
    fn rgb<'py>(&self, py: Python<'py>, cell: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyArray3<u8>>> {
        let cell = crate::guard::opt_int_param(cell, "cell", 8, 256)?.unwrap_or(48) as u32;
        let (buf, h, w) = self.any.rgb(cell)?;
        PyArray1::from_vec(py, buf).reshape([h, w, 3])
    }
}
}

guarded_fns! {
/// Rebuilds a pickled `GameEnv` (the target of `GameEnv.__reduce__`): the same game and
/// partners, the episode re-played from its seed and the actions given to `step`.
#[pyfunction]
pub fn _restore_game_env(text: &str) -> PyResult<GameEnv> {
    let bad = || PyValueError::new_err("not a pickled GameEnv");
    let v: serde_json::Value = serde_json::from_str(text).map_err(|_| bad())?;
    let partners: Vec<(usize, String)> = serde_json::from_value(v["partners"].clone()).map_err(|_| bad())?;
    let mut env = GameEnv::new_env(v["spec"].as_str().ok_or_else(bad)?, partners)?;
    env.base = v["base"].as_u64().ok_or_else(bad)?;
    env.episode = v["episode"].as_u64().ok_or_else(bad)?;
    if v["started"].as_bool().ok_or_else(bad)? {
        env.start()?;
        let history: Vec<Vec<Option<usize>>> = serde_json::from_value(v["history"].clone()).map_err(|_| bad())?;
        for idx in history {
            env.any.step(&idx)?;
            env.history.push(idx);
        }
    }
    Ok(env)
}
}

guarded_fns! {
/// What the game catalog knows of a spec (any game: a classic layout, `v2:NAME`,
/// `hanabi:Np`, `capture:K`, `escape:K`, a layout or maze file): a dict with `kind` (the
/// game's family), `name` (its name in reports), `num_players`, `horizon` (steps in an
/// episode) and `default_partner` (the partner a command seats when none is named). The
/// Python wrappers pick their family and their default partner from it, so a game the
/// catalog gains is described here without edits.
#[pyfunction]
pub fn game_info<'py>(py: Python<'py>, spec: &str) -> PyResult<Bound<'py, PyDict>> {
    let options = proagent_eval::games::GameOptions::default();
    let (game, _) = crate::vec_env::load_game(spec, None, &options)?;
    let d = PyDict::new(py);
    d.set_item("kind", game.kind())?;
    d.set_item("name", game.report_name())?;
    d.set_item("num_players", game.num_players())?;
    d.set_item("horizon", game.horizon())?;
    d.set_item("default_partner", game.default_partner())?;
    Ok(d)
}
}

guarded_fns! {
/// Every game of the catalog, in the order it claims specs: a list of dicts with `kind`
/// (the game's family), `title`, `spec` (how a spec names it, for help) and `builtin`
/// (the specs of its built-in layouts, scenarios or variants), and `gym_ids` (the
/// Gymnasium ids `import proagent` registers: pairs of the id and its keyword arguments,
/// `game` and, where the id promises one, `partner`). The wrappers and the tests go
/// through this list, so a game the catalog gains is listed without edits.
#[pyfunction]
pub fn catalog_games<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    let out = PyList::empty(py);
    for e in proagent_eval::games::catalog::entries() {
        let d = PyDict::new(py);
        d.set_item("kind", e.kind)?;
        d.set_item("title", e.title)?;
        d.set_item("spec", e.spec)?;
        d.set_item("builtin", (e.builtin_specs)())?;
        let ids = PyList::empty(py);
        for id in (e.gym_ids)() {
            let kwargs = PyDict::new(py);
            kwargs.set_item("game", id.spec)?;
            if let Some(p) = id.partner {
                kwargs.set_item("partner", p)?;
            }
            ids.append((format!("proagent/{}-v0", id.name), kwargs))?;
        }
        d.set_item("gym_ids", ids)?;
        out.append(d)?;
    }
    Ok(out)
}
}
