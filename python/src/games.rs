//! The one convention of `proagent.Env` over every game of the catalog ([`Common`]): an
//! episode of any game built from the catalog's loader with the built-in seats of the game
//! ([`GameSession`]), and the same answers from the two Overcooked episodes that keep
//! their own state ([`Compat`]). No game is named here: each game's action indices,
//! observation vectors and seats are its codec's.
//!
//! Guarantees:
//! - **Fixed action indices**, the codec's ([`VectorCodec`]); `Env.action_mask` marks
//!   the legal ones of a player.
//! - **Observations** are float32 vectors of a fixed length per game (the codec's
//!   encoding; a game of hidden information never shows the observer what it may not see).
//! - **Seeded as the runner.** An episode with seed `s` draws the game's chance (deals,
//!   wanders) from `env_chance(s)`, and seats a built-in partner with
//!   `seat_seed(s, player)`, as `play_episode` does: same seed, same episode.
//! - **Total.** An action that is not legal is the game's own business (a turn game
//!   refuses it and the same player moves again; a maze keeps the player where it is) and
//!   is reported as refused; nothing here panics on input from Python.

use crate::guard::guarded_fns;
use crate::render::Board;
use proagent_core::game::{Game, Turn};
use proagent_core::seat::{Observation, Seat, seat_seed};
use proagent_eval::games::playable::VectorCodec;
use proagent_eval::games::{AnyGame, Playable};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rand_chacha::ChaCha8Rng;
use std::any::Any;
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
    book: Book,
}

/// What a [`Session`] keeps to start its episodes from seeds and to be pickled.
struct Book {
    /// The spec the game was loaded from.
    spec: String,
    /// The horizon the game was loaded with (the Overcookeds' episode length).
    horizon: u32,
    partners: Vec<(usize, String)>,
    /// The current episode's seed, drawn from `base` and `episode`.
    seed: u64,
    base: u64,
    episode: u64,
    /// Whether an episode was started, and the actions given to `act` since (for exact
    /// copies: a pickled env re-plays them; the partners' moves follow from the seed).
    started: bool,
    history: Vec<Vec<Option<usize>>>,
}

/// What one call to [`Session::step`] (or [`Common::act`]) did.
pub struct Stepped {
    /// The team reward of everything applied.
    pub reward: i64,
    /// Players whose action was not legal.
    pub refused: Vec<usize>,
    /// The partners' moves, `(player, action index)`.
    pub partner_moves: Vec<(usize, usize)>,
}

impl<G: Game + Board> Session<G> {
    /// `book.partners` names the built-in seats.
    fn new(game: Arc<G>, codec: Box<dyn VectorCodec<G>>, book: Book) -> PyResult<Self> {
        let n = game.num_players();
        let mut seats: Vec<Option<Mutex<Box<dyn Seat<G>>>>> = (0..n).map(|_| None).collect();
        let mut seat_names = vec![None; n];
        for (p, name) in &book.partners {
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
            book,
        })
    }

    /// Starts episode `book.episode` of base seed `book.base`.
    fn start(&mut self) -> PyResult<Stepped> {
        let b = &mut self.book;
        b.seed = if b.episode == 0 { b.base } else { proagent_core::seat::derive_seed(b.base, b.episode) };
        b.started = true;
        b.history.clear();
        let seed = b.seed;
        self.restart(seed)
    }

    fn restart(&mut self, seed: u64) -> PyResult<Stepped> {
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

/// An episode of any game behind `proagent.Env` with built-in seats: the one convention
/// ([`Common`]) and the bookkeeping that starts episodes from seeds and pickles them.
pub trait GameEpisode: Common {
    /// Starts an episode drawn from `seed` (without one, the next episode of the last
    /// seed's sequence) and plays the partners' turns until a Python player moves.
    fn reset(&mut self, seed: Option<u64>) -> PyResult<Stepped>;
    /// The text `__reduce__` hands to `_restore_game_env`.
    fn pickled(&self) -> String;
    /// Puts a fresh episode where a pickled one was: episode `episode` of base seed
    /// `base`, started and re-played through `history` when it is given.
    fn replay(&mut self, base: u64, episode: u64, history: Option<Vec<Vec<Option<usize>>>>) -> PyResult<()>;
}

/// The episode of a `proagent.Env` of a game other than the two Overcookeds, or of any
/// game with built-in partners ([`new_session`], [`restore_session`]).
pub type GameSession = Box<dyn GameEpisode>;

impl<G: Game + Board> GameEpisode for Session<G>
where
    AnyGame: From<Arc<G>>,
{
    fn reset(&mut self, seed: Option<u64>) -> PyResult<Stepped> {
        match seed {
            Some(s) => {
                self.book.base = s;
                self.book.episode = 0;
            }
            None => self.book.episode += 1,
        }
        self.start()
    }
    fn pickled(&self) -> String {
        let b = &self.book;
        serde_json::json!({
            "spec": b.spec, "horizon": b.horizon, "partners": b.partners, "base": b.base,
            "episode": b.episode, "started": b.started, "history": b.history,
        })
        .to_string()
    }
    fn replay(&mut self, base: u64, episode: u64, history: Option<Vec<Vec<Option<usize>>>>) -> PyResult<()> {
        self.book.base = base;
        self.book.episode = episode;
        if let Some(history) = history {
            self.start()?;
            for idx in history {
                self.act(&idx)?;
            }
        }
        Ok(())
    }
}

impl<G: Game + Board> Common for Session<G>
where
    AnyGame: From<Arc<G>>,
{
    fn kind(&self) -> &'static str {
        self.game.kind()
    }
    fn spec(&self) -> String {
        self.book.spec.clone()
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
    fn seed(&self) -> u64 {
        self.book.seed
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
    fn act(&mut self, given: &[Option<usize>]) -> PyResult<Stepped> {
        let s = self.step(given)?;
        self.book.history.push(given.to_vec());
        Ok(s)
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
    fn snapshot(&self) -> Box<dyn Any> {
        Box::new(Snapshot {
            game: Arc::clone(&self.game),
            state: self.state.clone(),
            last_actions: self.last_actions.clone(),
            last_events: self.last_events.clone(),
        })
    }
    fn any_game(&self) -> AnyGame {
        AnyGame::from(Arc::clone(&self.game))
    }
}

/// An episode's game, state and last step ([`Common::snapshot`]), as a policy of its game
/// reads them.
pub struct Snapshot<G: Game> {
    /// The game.
    pub game: Arc<G>,
    /// The current state.
    pub state: G::State,
    /// The last joint action (empty before the first).
    pub last_actions: Vec<Option<G::Action>>,
    /// The last step's events, one per player (empty before the first).
    pub last_events: Vec<Option<G::Event>>,
}

/// What every episode behind `proagent.Env` answers, whatever its game: the one
/// convention of the class (fixed action indices, float32 observation vectors, one team
/// reward per applied step). Implemented by [`GameSession`] (any game, with built-in
/// partners) and, through [`Compat`], by the two Overcooked episodes that also speak
/// overcooked_ai's and JaxMARL's conventions.
pub trait Common: Send + Sync {
    /// The game's family (its catalog kind).
    fn kind(&self) -> &'static str;
    /// The spec the episode was built from.
    fn spec(&self) -> String;
    /// Players in the game.
    fn num_players(&self) -> usize;
    /// Size of the action index space.
    fn n_actions(&self) -> usize;
    /// Length of one player's observation vector.
    fn obs_len(&self) -> usize;
    /// The game's own step limit.
    fn max_steps(&self) -> u32;
    /// Whether players move one at a time.
    fn turn_based(&self) -> bool;
    /// The players seated by built-in partners.
    fn partner_players(&self) -> Vec<usize>;
    /// The episode seed.
    fn seed(&self) -> u64;
    /// The players to move now.
    fn movers(&self) -> Vec<usize>;
    /// The legal action indices of `player` now.
    fn legal_indices(&self, player: usize) -> Vec<usize>;
    /// `player`'s observation vector, written into `out`.
    fn observe(&self, player: usize, out: &mut Vec<f32>);
    /// Applies one action index per player (`None`: a player who does not move now, or a
    /// partner) and the partners' turns that follow.
    fn act(&mut self, given: &[Option<usize>]) -> PyResult<Stepped>;
    /// The episode's return so far.
    fn score(&self) -> i64;
    /// Steps of the game played.
    fn time(&self) -> u32;
    /// Whether the game has ended by its rules.
    fn over(&self) -> bool;
    /// Whether the game stopped at its step limit without ending by its rules.
    fn truncated(&self) -> bool;
    /// An action index as the game's token.
    fn action_token(&self, index: usize) -> Option<String>;
    /// The state as the game's trajectory record.
    fn state_json(&self) -> serde_json::Value;
    /// The state as text.
    fn render_text(&self) -> String;
    /// The state drawn as RGB pixels: `(buffer, height, width)`.
    fn rgb(&self, cell: u32) -> PyResult<(Vec<u8>, usize, usize)>;
    /// The game, state and last step, as a [`Snapshot`] of the game's type.
    fn snapshot(&self) -> Box<dyn Any>;
    /// The game, as the catalog holds it.
    fn any_game(&self) -> AnyGame;
}

/// A game with the codec it picks ([`Playable::vector_codec`]): what an Overcooked
/// episode of its own ([`Compat`]) needs to answer [`Common`].
pub struct Vectors<G: Game> {
    /// The game.
    pub game: Arc<G>,
    codec: Box<dyn VectorCodec<G>>,
}

impl<G: Playable> Vectors<G> {
    /// `game` with its codec.
    pub fn new(game: Arc<G>) -> Self {
        let codec = game.vector_codec();
        Vectors { game, codec }
    }
}

/// An episode that keeps its own state and bookkeeping (the two Overcooked episodes of
/// `proagent.Env`, with overcooked_ai's and JaxMARL's conventions) and so answers
/// [`Common`] through its game's codec.
pub trait Compat: Send + Sync {
    /// The game played.
    type G: Playable + Board;
    /// The game and its codec.
    fn vectors(&self) -> &Vectors<Self::G>;
    /// The spec the episode was built from.
    fn spec_text(&self) -> String;
    /// The current state.
    fn game_state(&self) -> &<Self::G as Game>::State;
    /// The last joint action (empty before the first).
    fn last_joint(&self) -> Vec<Option<<Self::G as Game>::Action>>;
    /// The last step's events, one per player (empty before the first).
    fn last_events(&self) -> Vec<Option<<Self::G as Game>::Event>>;
    /// The episode seed.
    fn episode_seed(&self) -> u64;
    /// The score so far.
    fn total(&self) -> i64;
    /// Applies one joint action with the episode's own bookkeeping; the team reward.
    fn apply(&mut self, joint: &[<Self::G as Game>::Action]) -> PyResult<i64>;
}

impl<T: Compat> Common for T
where
    AnyGame: From<Arc<T::G>>,
{
    fn kind(&self) -> &'static str {
        self.vectors().game.kind()
    }
    fn spec(&self) -> String {
        self.spec_text()
    }
    fn num_players(&self) -> usize {
        self.vectors().game.num_players()
    }
    fn n_actions(&self) -> usize {
        let v = self.vectors();
        v.codec.n_actions(&v.game)
    }
    fn obs_len(&self) -> usize {
        let v = self.vectors();
        v.codec.obs_len(&v.game)
    }
    fn max_steps(&self) -> u32 {
        self.vectors().game.max_steps()
    }
    fn turn_based(&self) -> bool {
        false
    }
    fn partner_players(&self) -> Vec<usize> {
        Vec::new()
    }
    fn seed(&self) -> u64 {
        self.episode_seed()
    }
    fn movers(&self) -> Vec<usize> {
        if self.over() || self.truncated() { Vec::new() } else { (0..self.num_players()).collect() }
    }
    fn legal_indices(&self, player: usize) -> Vec<usize> {
        if !self.movers().contains(&player) {
            return Vec::new();
        }
        let v = self.vectors();
        let state = self.game_state();
        v.game
            .legal_actions(v.game.view(state, player), player)
            .into_iter()
            .map(|a| v.codec.action_index(&v.game, a))
            .collect()
    }
    fn observe(&self, player: usize, out: &mut Vec<f32>) {
        let v = self.vectors();
        v.codec.encode(&v.game, self.game_state(), player, &self.last_joint(), out);
    }
    fn act(&mut self, given: &[Option<usize>]) -> PyResult<Stepped> {
        let mut joint = Vec::with_capacity(given.len());
        let mut refused = Vec::new();
        for (p, g) in given.iter().enumerate() {
            let Some(i) = *g else {
                return Err(PyValueError::new_err(format!("player {p} moves now: give its action")));
            };
            let v = self.vectors();
            let a = v.codec.action_at(&v.game, i).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "action {i} of player {p} is not an action of {} (0..{})",
                    v.game.spec(),
                    v.codec.n_actions(&v.game)
                ))
            })?;
            if !v.game.legal_actions(v.game.view(self.game_state(), p), p).contains(&a) {
                refused.push(p);
            }
            joint.push(a);
        }
        let reward = self.apply(&joint)?;
        Ok(Stepped { reward, refused, partner_moves: Vec::new() })
    }
    fn score(&self) -> i64 {
        self.total()
    }
    fn time(&self) -> u32 {
        self.vectors().game.time(self.game_state())
    }
    fn over(&self) -> bool {
        self.vectors().game.is_over(self.game_state())
    }
    fn truncated(&self) -> bool {
        let g = &self.vectors().game;
        !self.over() && g.time(self.game_state()) >= g.max_steps()
    }
    fn action_token(&self, index: usize) -> Option<String> {
        let v = self.vectors();
        v.codec.action_at(&v.game, index).map(|a| v.game.action_token(a))
    }
    fn state_json(&self) -> serde_json::Value {
        self.vectors().game.state_json(self.game_state())
    }
    fn render_text(&self) -> String {
        self.vectors().game.render_text(self.game_state())
    }
    fn rgb(&self, cell: u32) -> PyResult<(Vec<u8>, usize, usize)> {
        crate::render::board_rgb(&*self.vectors().game, self.game_state(), cell)
    }
    fn snapshot(&self) -> Box<dyn Any> {
        Box::new(Snapshot {
            game: Arc::clone(&self.vectors().game),
            state: self.game_state().clone(),
            last_actions: self.last_joint(),
            last_events: self.last_events(),
        })
    }
    fn any_game(&self) -> AnyGame {
        AnyGame::from(Arc::clone(&self.vectors().game))
    }
}

/// One episode of any game of the catalog (a spec as `proagent play --layout` takes it),
/// loaded with `options` (the horizon and settings), with built-in `partners` (player,
/// seat name); the game's action indices and observations are its codec's
/// ([`Playable::vector_codec`]).
pub fn new_session(
    spec: &str,
    partners: Vec<(usize, String)>,
    options: &proagent_eval::games::GameOptions,
) -> PyResult<GameSession> {
    // A spec that names no game is bad input here (`ValueError`), as it always was.
    let loaded = crate::vec_env::load_game(spec.trim(), None, options).map_err(|e| {
        Python::attach(|py| {
            if e.is_instance_of::<pyo3::exceptions::PyFileNotFoundError>(py) {
                PyValueError::new_err(e.value(py).to_string())
            } else {
                e
            }
        })
    })?;
    let book = Book {
        spec: spec.trim().to_string(),
        horizon: options.horizon,
        partners,
        seed: 0,
        base: 0,
        episode: 0,
        started: false,
        history: Vec::new(),
    };
    // The game picks its codec.
    proagent_eval::on_game!(loaded.0, |g| {
        let codec = g.vector_codec();
        let episode: GameSession = Box::new(Session::new(g, codec, book)?);
        Ok(episode)
    })
}

/// Rebuilds a pickled session from the record its `__reduce__` wrote (`v`, read by
/// `proagent.Env`'s restore function): the same game and partners, loaded with
/// `options`, the episode re-played from its seed and the actions given.
pub fn restore_session(v: &serde_json::Value, options: &proagent_eval::games::GameOptions) -> PyResult<GameSession> {
    let bad = || PyValueError::new_err("not a pickled Env");
    let partners: Vec<(usize, String)> = serde_json::from_value(v["partners"].clone()).map_err(|_| bad())?;
    let mut env = new_session(v["spec"].as_str().ok_or_else(bad)?, partners, options)?;
    let base = v["base"].as_u64().ok_or_else(bad)?;
    let episode = v["episode"].as_u64().ok_or_else(bad)?;
    let history = if v["started"].as_bool().ok_or_else(bad)? {
        Some(serde_json::from_value(v["history"].clone()).map_err(|_| bad())?)
    } else {
        None
    };
    env.replay(base, episode, history)?;
    Ok(env)
}

/// The info dict of a step: `refused` and `partner_moves`.
pub fn stepped_info<'py>(py: Python<'py>, s: &Stepped) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("refused", PyList::new(py, &s.refused)?)?;
    d.set_item("partner_moves", PyList::new(py, &s.partner_moves)?)?;
    Ok(d)
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
