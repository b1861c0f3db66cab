//! `proagent.VecEnv`: n environments of one game (classic Overcooked or OvercookedV2)
//! stepped in one call, numpy in and out, with built-in partner seats and Gymnasium 1.x
//! termination / truncation / auto-reset semantics.
//!
//! The whole batch is stepped and encoded in Rust with the interpreter released; Python
//! pays one call per batch. The game comes from the library's one loader
//! (`AnyGame::load`), the partners from its one seat factory, and the lanes
//! ([`crate::lanes`]) play episodes as `proagent play` does for the same seeds.

use crate::guard::{guarded, int_param, opt_int_param, seed_param, try_vec};
use crate::guard::{guarded_fns, guarded_methods};
use crate::lanes::{Lane, LaneOut};
use crate::obs::{Obs, PyGame};
use numpy::{PyArray1, PyArrayDyn, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use proagent_core::seat::Seat;
use proagent_eval::games::catalog::{self, Catalogued, RecordedGame};
use proagent_eval::games::{AnyGame, GameError, GameOptions};
use proagent_eval::runner::seats::{SeatFactory, is_proagent};
use proagent_overcooked::env::{Action, DEFAULT_HORIZON};
use proagent_overcooked::game::Overcooked;
use proagent_overcooked_v2::game::OvercookedV2;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::Arc;

/// Most environments in one `VecEnv`.
pub const MAX_ENVS: u64 = 1 << 20;

/// Most memory a `VecEnv`'s batch may need (its lanes and three copies of a step's
/// observations), estimated from its size before anything is allocated: a larger batch
/// is refused with a `ValueError` naming `n`.
pub const MAX_BATCH_BYTES: u64 = 4 << 30;

/// A file policy that opens nothing: a pickled environment's layout comes with its text.
struct NoFiles;

impl proagent_core::files::FileAccess for NoFiles {
    fn resolve(&self, named: &str) -> Result<std::path::PathBuf, proagent_core::files::FileRefusal> {
        Err(proagent_core::files::FileRefusal::Forbidden { path: named.to_string(), reason: "no file".into() })
    }
}

/// Loads a game through the library's loader. A layout path is read only if it is a
/// regular file no larger than the layout limit (never a FIFO or a device); `text`, when
/// given, is the layout file's content (a pickled environment carries it).
pub fn load_game(spec: &str, text: Option<&str>, options: &GameOptions) -> PyResult<(AnyGame, Option<String>)> {
    // The catalog says which game the spec names and where its file path starts (`v2:PATH`).
    let (_, path_part) = catalog::split_path(spec.trim());
    if let Some(text) = text {
        let entry = catalog::entry_for(spec).ok_or_else(|| PyValueError::new_err(format!("{spec:?} names no game")))?;
        let name = Path::new(path_part).file_stem().and_then(|s| s.to_str()).unwrap_or("custom");
        let rec = RecordedGame { spec, name, file: Some(text), source: path_part, options };
        let game = (entry.load_recorded)(&rec, &NoFiles).map_err(|e| PyValueError::new_err(e.to_string()))?;
        return Ok((game, Some(text.to_string())));
    }
    if !catalog::is_builtin(spec)
        && let Ok(meta) = std::fs::metadata(path_part)
    {
        if !meta.is_file() {
            return Err(PyValueError::new_err(format!(
                "layout {path_part:?} is not a regular file (a layout path must name a file)"
            )));
        }
        let cap = proagent_overcooked::env::layout::MAX_LAYOUT_TEXT_BYTES as u64;
        if meta.len() > cap {
            return Err(PyValueError::new_err(format!(
                "layout file {path_part:?} is {} bytes, more than the {cap}-byte limit for layout files",
                meta.len()
            )));
        }
    }
    AnyGame::load(spec, options).map_err(|e| match e {
        GameError::Unknown { .. } => PyFileNotFoundError::new_err(e.to_string()),
        GameError::Io { .. } => PyOSError::new_err(e.to_string()),
        GameError::Parse(_) | GameError::Refused(_) | GameError::BadSettings { .. } => {
            PyValueError::new_err(e.to_string())
        }
    })
}

/// The OvercookedV2 switches from Python (JaxMARL's names).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct V2Switches {
    /// `agent_view_size`.
    pub view_radius: Option<u8>,
    /// Wrong dishes cost.
    pub negative_rewards: bool,
    /// New recipe after each correct delivery.
    pub resample_recipe: bool,
    /// Random start cells and facings.
    pub random_starts: bool,
    /// Pots start on interaction.
    pub start_cooking_on_interact: bool,
    /// The delivery indicator layer.
    pub indicate_delivery: bool,
}

impl V2Switches {
    /// The game options of these switches with `horizon`.
    pub fn options(&self, horizon: u32) -> GameOptions {
        let settings = proagent_overcooked_v2::env::Settings {
            max_steps: horizon,
            view_radius: self.view_radius,
            random_agent_positions: self.random_starts,
            start_cooking_interaction: self.start_cooking_on_interact,
            negative_rewards: self.negative_rewards,
            sample_recipe_on_delivery: self.resample_recipe,
            indicate_successful_delivery: self.indicate_delivery,
        };
        // The game's settings by name (the catalog hands them to the game the spec names).
        let settings = match serde_json::to_value(settings) {
            Ok(serde_json::Value::Object(m)) => m,
            _ => Default::default(),
        };
        GameOptions { horizon, settings }
    }
}

/// Everything a `VecEnv` was built from (kept for pickling and `repr`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Spec {
    layout: String,
    layout_text: Option<String>,
    n: usize,
    horizon: u32,
    obs: String,
    order: Option<String>,
    partner: Option<String>,
    seat: usize,
    threads: usize,
    autoreset: bool,
    seed: u64,
    v2: V2Switches,
}

/// One lane's recorded episode, for pickling.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct LaneRecord {
    base: u64,
    episode: u64,
    history: Vec<u8>,
    done: bool,
}

#[derive(Serialize, Deserialize)]
struct Pickled {
    spec: Spec,
    lanes: Vec<LaneRecord>,
}

/// The lanes of one game.
pub struct Core<G: PyGame> {
    /// The game.
    pub game: Arc<G>,
    /// The environments.
    pub lanes: Vec<Lane<G>>,
    /// The observation encoding.
    pub obs: Obs,
    /// The players driven from Python, in order.
    pub learners: Vec<usize>,
}

impl<G: PyGame> Core<G> {
    fn build(game: Arc<G>, spec: &Spec) -> PyResult<Core<G>> {
        let np = game.num_players();
        if np > crate::lanes::MAX_PLAYERS {
            return Err(PyValueError::new_err(format!(
                "{np} players: a VecEnv takes at most {}",
                crate::lanes::MAX_PLAYERS
            )));
        }
        let learners: Vec<usize> = match &spec.partner {
            None => (0..np).collect(),
            Some(_) => {
                if spec.seat >= np {
                    return Err(PyValueError::new_err(format!("seat must be in 0..{np}, got {}", spec.seat)));
                }
                vec![spec.seat]
            }
        };
        let factory = SeatFactory::new(None);
        if let Some(p) = &spec.partner {
            if is_proagent(p) {
                return Err(PyValueError::new_err(
                    "partner: the ProAgent agent waits for a model and cannot sit inside a VecEnv; \
                     use proagent.agent(...) with the Gymnasium wrapper or play()",
                ));
            }
            for player in (0..np).filter(|q| !learners.contains(q)) {
                factory.check(p, &*game, player).map_err(|e| PyValueError::new_err(format!("partner: {e}")))?;
            }
        }
        let obs = game.make_obs(&spec.obs, spec.order.as_deref())?;
        // Everything the batch will hold (lanes, their states and the observation arrays
        // of a step) is reserved once up front: an amount the machine cannot give raises
        // MemoryError here instead of aborting the process in the middle of the build.
        // Per lane: three copies of its observations (the step's array, the final
        // observation, numpy's copy) and about 5 KiB of state, seats and history.
        let per_lane = obs.len() * learners.len() * 4 * 3 + 5 * 1024;
        let total = per_lane.saturating_mul(spec.n) as u64;
        if total > MAX_BATCH_BYTES {
            return Err(PyValueError::new_err(format!(
                "n: {} environments of {} with obs={:?} need about {}, more than the VecEnv limit of {} \
                 (docs/limits.md); use fewer environments (at most {} here) or a smaller observation",
                spec.n,
                game.spec(),
                spec.obs,
                proagent_core::limits::human_bytes(total),
                proagent_core::limits::human_bytes(MAX_BATCH_BYTES),
                MAX_BATCH_BYTES as usize / per_lane.max(1)
            )));
        }
        let mut probe: Vec<u8> = Vec::new();
        probe.try_reserve_exact(per_lane.saturating_mul(spec.n)).map_err(|_| {
            pyo3::exceptions::PyMemoryError::new_err(format!(
                "not enough memory for {} environments (about {} MiB)",
                spec.n,
                per_lane.saturating_mul(spec.n) >> 20
            ))
        })?;
        drop(probe);
        let mut lanes = Vec::new();
        lanes.try_reserve_exact(spec.n).map_err(|_| {
            pyo3::exceptions::PyMemoryError::new_err(format!("cannot allocate {} environments", spec.n))
        })?;
        for i in 0..spec.n {
            let mut partners: Vec<Option<Box<dyn Seat<G>>>> = Vec::with_capacity(np);
            for player in 0..np {
                partners.push(match (&spec.partner, learners.contains(&player)) {
                    (Some(p), false) => {
                        Some(factory.build(p, &*game).map_err(|e| PyValueError::new_err(format!("partner: {e}")))?.seat)
                    }
                    _ => None,
                });
            }
            lanes.push(Lane::new(&*game, spec.seed.wrapping_add(i as u64), partners));
        }
        Ok(Core { game, lanes, obs, learners })
    }

    fn per_lane(&self) -> usize {
        self.obs.len() * self.learners.len()
    }

    fn write_obs(&self, out: &mut [f32]) {
        let len = self.obs.len();
        if len == 0 {
            return;
        }
        for (lane, chunk) in self.lanes.iter().zip(out.chunks_mut(self.per_lane())) {
            for (k, &p) in self.learners.iter().enumerate() {
                self.game.encode(&self.obs, &lane.state, p, &mut chunk[k * len..(k + 1) * len]);
            }
        }
    }

    fn step(&mut self, acts: &[Action], obs_out: &mut [f32], autoreset: bool, threads: usize) -> Vec<LaneOut> {
        let n = self.lanes.len();
        let nl = self.learners.len();
        let per = self.per_lane();
        let len = self.obs.len();
        let mut outs = vec![LaneOut::default(); n];
        let (game, obs, learners) = (&*self.game, &self.obs, &self.learners[..]);
        let work = |lanes: &mut [Lane<G>], acts: &[Action], ob: &mut [f32], outs: &mut [LaneOut]| {
            for (i, lane) in lanes.iter_mut().enumerate() {
                outs[i] = lane.step(game, obs, learners, &acts[i * nl..(i + 1) * nl], autoreset);
                if len > 0 {
                    let chunk = &mut ob[i * per..(i + 1) * per];
                    for (k, &p) in learners.iter().enumerate() {
                        game.encode(obs, &lane.state, p, &mut chunk[k * len..(k + 1) * len]);
                    }
                }
            }
        };
        if threads <= 1 || n < 2 * threads {
            work(&mut self.lanes, acts, obs_out, &mut outs);
        } else {
            let chunk = n.div_ceil(threads);
            std::thread::scope(|s| {
                let mut ob_rest: &mut [f32] = obs_out;
                for ((lanes, acts), outs) in
                    self.lanes.chunks_mut(chunk).zip(acts.chunks(chunk * nl)).zip(outs.chunks_mut(chunk))
                {
                    let take = if per > 0 { lanes.len() * per } else { 0 };
                    let (mine, rest) = std::mem::take(&mut ob_rest).split_at_mut(take);
                    ob_rest = rest;
                    let work = &work;
                    s.spawn(move || work(lanes, acts, mine, outs));
                }
            });
        }
        outs
    }
}

/// The game behind a `VecEnv`.
pub enum Batch {
    /// Classic Overcooked.
    Classic(Core<Overcooked>),
    /// OvercookedV2.
    V2(Core<OvercookedV2>),
}

impl From<Core<Overcooked>> for Batch {
    fn from(c: Core<Overcooked>) -> Batch {
        Batch::Classic(c)
    }
}

impl From<Core<OvercookedV2>> for Batch {
    fn from(c: Core<OvercookedV2>) -> Batch {
        Batch::V2(c)
    }
}

macro_rules! on_batch {
    ($b:expr, |$c:ident| $body:expr) => {
        match $b {
            Batch::Classic($c) => $body,
            Batch::V2($c) => $body,
        }
    };
}

/// n environments of one layout, stepped together from numpy action arrays.
///
/// `VecEnv(layout, n, horizon=400, obs=None, threads=1, partner=None, seat=0, order=None,
/// autoreset=True, seed=0, **v2_switches)`; see docs/python.md.
#[pyclass(module = "proagent._native")]
pub struct VecEnv {
    batch: Batch,
    spec: Spec,
    squeeze: bool,
}

impl VecEnv {
    fn from_spec(spec: Spec) -> PyResult<VecEnv> {
        if let Some(p) = &spec.partner {
            crate::guard::check_spec_path(p, "partner")?;
        }
        let (game, text) = load_game(&spec.layout, spec.layout_text.as_deref(), &spec.v2.options(spec.horizon))?;
        let mut spec = spec;
        spec.layout_text = text;
        // The games that train with PPO (the two Overcookeds) batch; every other game has
        // its own Python environment (`proagent.GameEnv`, `proagent.games`).
        let batch = proagent_eval::on_rl_game!(game, |g| Batch::from(Core::build(g, &spec)?), |_other| {
            return Err(PyValueError::new_err(format!(
                "{:?}: a VecEnv plays Overcooked and OvercookedV2; use proagent.games for this game",
                spec.layout
            )));
        });
        let squeeze = spec.partner.is_some();
        Ok(VecEnv { batch, spec, squeeze })
    }

    fn n(&self) -> usize {
        on_batch!(&self.batch, |c| c.lanes.len())
    }

    fn batch_shape(&self, n: usize) -> Vec<usize> {
        on_batch!(&self.batch, |c| {
            let mut s = vec![n];
            if !self.squeeze {
                s.push(c.learners.len());
            }
            if c.obs.len() == 0 {
                return vec![n, 0];
            }
            s.extend_from_slice(&c.obs.shape);
            s
        })
    }

    fn lane_check(&self, i: usize) -> PyResult<usize> {
        if i >= self.n() {
            return Err(PyValueError::new_err(format!("no environment {i} (there are {})", self.n())));
        }
        Ok(i)
    }

    /// Classic lane `i`'s game, state, last joint action and last events (for policies).
    #[allow(clippy::type_complexity)]
    pub fn classic_lane(
        &self,
        i: usize,
    ) -> Option<(
        Arc<Overcooked>,
        proagent_overcooked::env::State,
        Option<[Action; 2]>,
        [Option<proagent_overcooked::env::Event>; 2],
    )> {
        let Batch::Classic(c) = &self.batch else { return None };
        let lane = c.lanes.get(i)?;
        let joint = match lane.last_actions.as_slice() {
            [Some(a), Some(b)] => Some([*a, *b]),
            _ => None,
        };
        let ev = [lane.last_events.first().cloned().flatten(), lane.last_events.get(1).cloned().flatten()];
        Some((Arc::clone(&c.game), lane.state.clone(), joint, ev))
    }

    /// Reads the actions array: integers only, of shape (n, learners) (or (n,) with one learner).
    fn read_actions(&self, py: Python<'_>, actions: &Bound<'_, PyAny>) -> PyResult<Vec<Action>> {
        let n = self.n();
        let nl = on_batch!(&self.batch, |c| c.learners.len());
        let np = py.import(intern!(py, "numpy"))?;
        let arr = np.call_method1(intern!(py, "asarray"), (actions,))?;
        let kind: String = arr.getattr(intern!(py, "dtype"))?.getattr(intern!(py, "kind"))?.extract()?;
        if kind != "i" && kind != "u" {
            let dt = arr.getattr(intern!(py, "dtype"))?.str()?.to_string();
            return Err(PyTypeError::new_err(format!(
                "actions must be integers (action indices 0..6), got an array of {dt}"
            )));
        }
        let arr = arr.call_method1(intern!(py, "astype"), (intern!(py, "int64"),))?;
        let a: PyReadonlyArrayDyn<'_, i64> = arr.extract()?;
        let shape = a.shape().to_vec();
        let ok = shape == [n, nl] || (nl == 1 && shape == [n]);
        if !ok {
            let want = if nl == 1 { format!("({n},) or ({n}, 1)") } else { format!("({n}, {nl})") };
            return Err(PyValueError::new_err(format!("actions must have shape {want}, got {shape:?}")));
        }
        let mut out = Vec::with_capacity(n * nl);
        for (k, &v) in a.as_slice()?.iter().enumerate() {
            let act = usize::try_from(v).ok().and_then(Action::from_index).ok_or_else(|| {
                PyValueError::new_err(format!(
                    "actions[{}]{} holds {v}, not an action index in 0..6",
                    k / nl,
                    if nl > 1 { format!("[{}]", k % nl) } else { String::new() }
                ))
            })?;
            out.push(act);
        }
        Ok(out)
    }

    fn pickled(&self) -> PyResult<String> {
        let lanes = on_batch!(&self.batch, |c| c
            .lanes
            .iter()
            .map(|l| LaneRecord { base: l.base, episode: l.episode, history: l.history.clone(), done: l.done })
            .collect::<Vec<_>>());
        serde_json::to_string(&Pickled { spec: self.spec.clone(), lanes })
            .map_err(|e| PyRuntimeError::new_err(format!("pickling a VecEnv: {e}")))
    }

    /// Rebuilds a `VecEnv` from [`VecEnv::pickled`]'s text.
    pub fn restore(text: &str) -> PyResult<VecEnv> {
        let p: Pickled =
            serde_json::from_str(text).map_err(|e| PyValueError::new_err(format!("not a pickled VecEnv: {e}")))?;
        let mut env = VecEnv::from_spec(p.spec)?;
        if p.lanes.len() != env.n() {
            return Err(PyValueError::new_err("a pickled VecEnv with the wrong number of lanes"));
        }
        on_batch!(&mut env.batch, |c| {
            for (lane, rec) in c.lanes.iter_mut().zip(&p.lanes) {
                lane.replay(&*c.game, rec.base, rec.episode, &rec.history, rec.done).map_err(PyValueError::new_err)?;
            }
        });
        Ok(env)
    }
}

guarded_methods! {
#[pymethods]
impl VecEnv {
    #[new]
    #[pyo3(signature = (layout = "cramped_room", n = None, horizon = None, obs = None, threads = None,
        partner = None, seat = None, order = None, autoreset = true, seed = None, view_radius = None,
        negative_rewards = false, resample_recipe = false, random_starts = false,
        start_cooking_on_interact = false, indicate_delivery = false))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        layout: &str,
        n: Option<&Bound<'_, PyAny>>,
        horizon: Option<&Bound<'_, PyAny>>,
        obs: Option<&str>,
        threads: Option<&Bound<'_, PyAny>>,
        partner: Option<&str>,
        seat: Option<&Bound<'_, PyAny>>,
        order: Option<&str>,
        autoreset: bool,
        seed: Option<&Bound<'_, PyAny>>,
        view_radius: Option<&Bound<'_, PyAny>>,
        negative_rewards: bool,
        resample_recipe: bool,
        random_starts: bool,
        start_cooking_on_interact: bool,
        indicate_delivery: bool,
    ) -> PyResult<VecEnv> {
        let n = opt_int_param(n, "n", 1, MAX_ENVS)?.unwrap_or(1) as usize;
        let horizon = opt_int_param(horizon, "horizon", 1, u64::from(proagent_core::limits::MAX_HORIZON))?
            .unwrap_or(u64::from(DEFAULT_HORIZON)) as u32;
        let threads = opt_int_param(threads, "threads", 1, 256)?.unwrap_or(1) as usize;
        let seat = opt_int_param(seat, "seat", 0, 63)?.unwrap_or(0) as usize;
        let seed = seed_param(seed)?.unwrap_or(0);
        let view_radius = opt_int_param(view_radius, "view_radius", 0, 30)?.map(|r| r as u8);
        let is_v2 = catalog::entry_for(layout).is_some_and(|e| e.kind == <OvercookedV2 as Catalogued>::KIND);
        let obs = obs.map(str::to_string).unwrap_or_else(|| if is_v2 { "grid" } else { "lossless" }.to_string());
        let partner = partner.map(|p| p.trim().to_string()).filter(|p| !p.is_empty());
        let spec = Spec {
            layout: layout.to_string(),
            layout_text: None,
            n,
            horizon,
            obs,
            order: order.map(str::to_string),
            partner,
            seat,
            threads,
            autoreset,
            seed,
            v2: V2Switches {
                view_radius,
                negative_rewards,
                resample_recipe,
                random_starts,
                start_cooking_on_interact,
                indicate_delivery,
            },
        };
        VecEnv::from_spec(spec)
    }

    /// Number of environments.
    #[getter]
    fn num_envs(&self) -> PyResult<usize> {
        Ok(self.n())
    }

    /// Players in the game.
    #[getter]
    fn num_players(&self) -> PyResult<usize> {
        Ok(on_batch!(&self.batch, |c| proagent_core::game::Game::num_players(&*c.game)))
    }

    /// The players driven by the actions array, in column order.
    #[getter]
    fn learners(&self) -> PyResult<Vec<usize>> {
        Ok(on_batch!(&self.batch, |c| c.learners.clone()))
    }

    /// The built-in partner's spec (None: every player is driven from Python).
    #[getter]
    fn partner(&self) -> PyResult<Option<String>> {
        Ok(self.spec.partner.clone())
    }

    /// Episode length in steps.
    #[getter]
    fn horizon(&self) -> PyResult<u32> {
        Ok(self.spec.horizon)
    }

    /// Whether finished environments reset themselves.
    #[getter]
    fn autoreset(&self) -> PyResult<bool> {
        Ok(self.spec.autoreset)
    }

    /// `overcooked` or `overcooked_v2`.
    #[getter]
    fn game_kind(&self) -> PyResult<&'static str> {
        Ok(on_batch!(&self.batch, |c| proagent_core::game::Game::kind(&*c.game)))
    }

    /// The layout as given.
    #[getter]
    fn layout(&self) -> PyResult<String> {
        Ok(self.spec.layout.clone())
    }

    /// The game's report name (`cramped_room`, `v2:grounded_coord_simple`).
    #[getter]
    fn layout_name(&self) -> PyResult<String> {
        Ok(on_batch!(&self.batch, |c| proagent_eval::games::Playable::report_name(&*c.game)))
    }

    /// The observation kind.
    #[getter]
    fn obs_kind(&self) -> PyResult<&'static str> {
        Ok(on_batch!(&self.batch, |c| c.obs.kind_name()))
    }

    /// Whether grids come as (height, width, C).
    #[getter]
    fn hwc(&self) -> PyResult<bool> {
        Ok(on_batch!(&self.batch, |c| c.obs.hwc))
    }

    /// Shape of the observation array `step` and `reset` return.
    #[getter]
    fn observation_shape(&self) -> PyResult<Vec<usize>> {
        Ok(self.batch_shape(self.n()))
    }

    /// Shape of one player's observation.
    #[getter]
    fn single_observation_shape(&self) -> PyResult<Vec<usize>> {
        Ok({
            on_batch!(&self.batch, |c| if c.obs.len() == 0 { vec![0] } else { c.obs.shape.clone() })
        })
    }

    /// The names of the observation's channels (grids) or features (vectors).
    #[getter]
    fn obs_names(&self) -> PyResult<Vec<String>> {
        Ok(on_batch!(&self.batch, |c| c.obs.names.clone()))
    }

    /// Alias of `obs_names` for grid encodings.
    #[getter]
    fn channel_names(&self) -> PyResult<Vec<String>> {
        self.obs_names()
    }

    /// The observation kinds this game offers.
    #[getter]
    fn obs_kinds(&self) -> PyResult<Vec<&'static str>> {
        Ok({
            match &self.batch {
                Batch::Classic(_) => <Overcooked as PyGame>::OBS_KINDS.to_vec(),
                Batch::V2(_) => <OvercookedV2 as PyGame>::OBS_KINDS.to_vec(),
            }
        })
    }

    /// Each environment's current episode seed.
    fn episode_seeds(&self) -> PyResult<Vec<u64>> {
        Ok(on_batch!(&self.batch, |c| c.lanes.iter().map(|l| l.seed).collect()))
    }

    /// Each environment's steps played this episode.
    fn timesteps(&self) -> PyResult<Vec<u32>> {
        Ok(on_batch!(&self.batch, |c| c.lanes.iter().map(|l| proagent_core::game::Game::time(&*c.game, &l.state)).collect()))
    }

    /// Each environment's score this episode.
    fn scores(&self) -> PyResult<Vec<i64>> {
        Ok(on_batch!(&self.batch, |c| c.lanes.iter().map(|l| l.score).collect()))
    }

    /// Starts every environment's next episode and returns the observations. `seed=S`
    /// seeds environment i with S + i (its episode then has exactly that seed, as in
    /// `proagent play --seed`); without a seed each environment goes on to its next
    /// episode (an episode not yet stepped is not skipped).
    #[pyo3(signature = (seed = None, options = None))]
    fn reset<'py>(
        &mut self,
        py: Python<'py>,
        seed: Option<&Bound<'py, PyAny>>,
        options: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        let _ = options;
        let seed = seed_param(seed)?;
        let n = self.n();
        let arr = PyArrayDyn::<f32>::zeros(py, self.batch_shape(n), false);
        guarded(|| {
            // SAFETY: the array was just created here and no other reference to it exists.
            let buf = unsafe { arr.as_slice_mut()? };
            on_batch!(&mut self.batch, |c| {
                let game = Arc::clone(&c.game);
                py.detach(|| {
                    for (i, lane) in c.lanes.iter_mut().enumerate() {
                        match seed {
                            Some(s) => lane.reseed(&*game, s.wrapping_add(i as u64)),
                            None if lane.history.is_empty() && !lane.done => {
                                let (b, e) = (lane.base, lane.episode);
                                let _ = lane.replay(&*game, b, e, &[], false);
                            }
                            None => lane.next_episode(&*game),
                        }
                    }
                    c.write_obs(buf);
                });
            });
            Ok(())
        })?;
        Ok(arr)
    }

    /// Steps every environment by `actions` (ints 0..6, shape (n, learners), or (n,) with a
    /// built-in partner). Returns `(obs, reward, terminated, truncated, info)` as
    /// Gymnasium's vector environments do (see docs/python.md for `info`).
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<(
        Bound<'py, PyArrayDyn<f32>>,
        Bound<'py, PyArray1<f32>>,
        Bound<'py, PyArray1<bool>>,
        Bound<'py, PyArray1<bool>>,
        Bound<'py, PyDict>,
    )> {
        let acts = self.read_actions(py, actions)?;
        let n = self.n();
        // SAFETY: uninitialised, but every element is written below before the array is
        // returned (each lane's step encodes all of its learners' observations in full);
        // on an error the array is dropped unread.
        let obs = unsafe { PyArrayDyn::<f32>::new(py, self.batch_shape(n), false) };
        let (autoreset, threads) = (self.spec.autoreset, self.spec.threads);
        let outs = guarded(|| {
            // SAFETY: the array was just created here; nothing else refers to it until it is returned.
            let buf = unsafe { obs.as_slice_mut()? };
            Ok(on_batch!(&mut self.batch, |c| py.detach(|| c.step(&acts, buf, autoreset, threads))))
        })?;
        if let Some((i, e)) = outs.iter().enumerate().find_map(|(i, o)| o.error.as_ref().map(|e| (i, e))) {
            let msg = if n > 1 { format!("environment {i}: {e}") } else { e.clone() };
            return Err(if e.contains("episode is over") {
                PyValueError::new_err(msg)
            } else {
                PyRuntimeError::new_err(msg)
            });
        }
        let np_players = self.num_players()?;
        let rewards = PyArray1::from_iter(py, outs.iter().map(|o| o.reward));
        let term = PyArray1::from_iter(py, outs.iter().map(|o| o.terminated));
        let trunc = PyArray1::from_iter(py, outs.iter().map(|o| o.truncated));
        let grid = |f: &dyn Fn(&LaneOut) -> &[f32]| -> PyResult<Bound<'py, PyAny>> {
            let flat: Vec<f32> = outs.iter().flat_map(|o| f(o)[..np_players].iter().copied()).collect();
            Ok(PyArray1::from_vec(py, flat).reshape([n, np_players])?.into_any())
        };
        let info = PyDict::new(py);
        info.set_item(intern!(py, "sparse_r_by_agent"), grid(&|o| &o.sparse)?)?;
        info.set_item(intern!(py, "shaped_r_by_agent"), grid(&|o| &o.shaped)?)?;
        let joint: Vec<i64> = outs.iter().flat_map(|o| o.actions[..np_players].iter().map(|&a| i64::from(a))).collect();
        info.set_item(intern!(py, "joint_actions"), PyArray1::from_vec(py, joint).reshape([n, np_players])?)?;
        info.set_item(intern!(py, "score"), PyArray1::from_iter(py, outs.iter().map(|o| o.final_score)))?;
        if outs.iter().any(|o| o.final_obs.is_some()) {
            let fin = obs.call_method0(intern!(py, "copy"))?.cast_into::<PyArrayDyn<f32>>()?;
            {
                // SAFETY: `fin` is a fresh copy owned here.
                let buf = unsafe { fin.as_slice_mut()? };
                let per = on_batch!(&self.batch, |c| c.per_lane());
                for (i, o) in outs.iter().enumerate() {
                    if let Some(f) = &o.final_obs {
                        buf[i * per..(i + 1) * per].copy_from_slice(f);
                    }
                }
            }
            info.set_item(intern!(py, "final_obs"), fin)?;
            info.set_item(
                intern!(py, "_final_obs"),
                PyArray1::from_iter(py, outs.iter().map(|o| o.final_obs.is_some())),
            )?;
        }
        Ok((obs, rewards, term, trunc, info))
    }

    /// The state of environment `i` as a dict (classic: overcooked_ai's `to_dict()` shape;
    /// V2: the trajectory record).
    #[pyo3(signature = (i = 0))]
    fn state<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyAny>> {
        let i = self.lane_check(i)?;
        on_batch!(&self.batch, |c| c.game.state_dict(py, &c.lanes[i].state))
    }

    /// The full-information state of every environment (classic: the lossless grid of
    /// player 0; V2: the whole-kitchen tensor), float32 (n, *state_shape).
    fn global_state<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        on_batch!(&self.batch, |c| {
            let so = c.game.state_obs()?;
            let n = c.lanes.len();
            let len = so.len();
            let mut buf = try_vec(n * len, 0f32, "the global state")?;
            for (lane, chunk) in c.lanes.iter().zip(buf.chunks_mut(len.max(1))) {
                c.game.encode_state(&so, &lane.state, chunk);
            }
            let mut shape = vec![n];
            shape.extend_from_slice(&so.shape);
            Ok(PyArray1::from_vec(py, buf).reshape(shape)?)
        })
    }

    /// The shape of one environment's `global_state`.
    #[getter]
    fn state_shape(&self) -> PyResult<Vec<usize>> {
        on_batch!(&self.batch, |c| Ok(c.game.state_obs()?.shape))
    }

    /// The board of environment `i` as text.
    #[pyo3(signature = (i = 0))]
    fn render(&self, i: usize) -> PyResult<String> {
        let i = self.lane_check(i)?;
        Ok(on_batch!(&self.batch, |c| proagent_core::game::Game::render_text(&*c.game, &c.lanes[i].state)))
    }

    /// The board of environment `i` as an RGB picture, uint8 (height, width, 3).
    #[pyo3(signature = (i = 0, cell = 32))]
    fn rgb<'py>(&self, py: Python<'py>, i: usize, cell: u32) -> PyResult<Bound<'py, PyAny>> {
        let i = self.lane_check(i)?;
        if !(8..=128).contains(&cell) {
            return Err(PyValueError::new_err(format!("cell must be in 8..=128, got {cell}")));
        }
        let (buf, h, w) = match &self.batch {
            Batch::Classic(c) => crate::render::board_rgb(&*c.game, &c.lanes[i].state, cell)?,
            Batch::V2(c) => crate::render::board_rgb(&*c.game, &c.lanes[i].state, cell)?,
        };
        Ok(PyArray1::from_vec(py, buf).reshape([h, w, 3])?.into_any())
    }

    /// The last step's actions of environment `i`, by player (None before the first).
    #[pyo3(signature = (i = 0))]
    fn last_actions(&self, i: usize) -> PyResult<Vec<Option<usize>>> {
        let i = self.lane_check(i)?;
        Ok(on_batch!(&self.batch, |c| c.lanes[i].last_actions.iter().map(|a| a.map(Action::index)).collect()))
    }

    /// The last step's interact events of environment `i`, by player.
    #[pyo3(signature = (i = 0))]
    fn last_events(&self, py: Python<'_>, i: usize) -> PyResult<Py<PyAny>> {
        let i = self.lane_check(i)?;
        on_batch!(&self.batch, |c| crate::convert::json_to_py(py, &c.lanes[i].last_events))
    }

    /// Whether environment `i`'s episode is over (only without auto-reset).
    #[pyo3(signature = (i = 0))]
    fn is_done(&self, i: usize) -> PyResult<bool> {
        let i = self.lane_check(i)?;
        Ok(on_batch!(&self.batch, |c| c.lanes[i].done))
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let f = py.import(intern!(py, "proagent._native"))?.getattr(intern!(py, "_restore_vec_env"))?;
        Ok((f, (self.pickled()?,)))
    }

    fn __len__(&self) -> PyResult<usize> {
        Ok(self.n())
    }

    fn __repr__(&self) -> PyResult<String> {
        Ok({
            format!(
                "VecEnv(layout={:?}, n={}, horizon={}, obs={:?}, partner={:?})",
                self.spec.layout,
                self.n(),
                self.spec.horizon,
                self.spec.obs,
                self.spec.partner
            )
        })
    }
}
}

guarded_fns! {
/// Rebuilds a pickled `VecEnv` (the target of `VecEnv.__reduce__`).
#[pyfunction]
pub fn _restore_vec_env(text: &str) -> PyResult<VecEnv> {
    VecEnv::restore(text)
}
}

guarded_fns! {
/// The names of the observation kinds of each game, for documentation and errors.
#[pyfunction]
pub fn obs_kinds<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("overcooked", PyList::new(py, <Overcooked as PyGame>::OBS_KINDS)?)?;
    d.set_item("overcooked_v2", PyList::new(py, <OvercookedV2 as PyGame>::OBS_KINDS)?)?;
    let _ = int_param;
    Ok(d)
}
}

guarded_fns! {
/// The built-in layouts of each game.
#[pyfunction]
pub fn builtin_layouts<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let classic: Vec<&str> = proagent_overcooked::env::layout::BUILTIN.iter().map(|(n, _)| *n).collect();
    let v2: Vec<&str> = proagent_overcooked_v2::env::Layout::builtin_names().collect();
    d.set_item("overcooked", PyList::new(py, classic)?)?;
    d.set_item("overcooked_v2", PyList::new(py, v2)?)?;
    Ok(d)
}
}

guarded_fns! {
/// The cargo profile this extension was built with: `release` or `dev` (benchmarks name it).
#[pyfunction]
pub fn build_profile() -> PyResult<&'static str> {
    Ok({
        if cfg!(debug_assertions) { "dev" } else { "release" }
    })
}
}
