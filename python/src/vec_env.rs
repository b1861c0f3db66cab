//! `proagent.VecEnv`: n episodes of one layout stepped in one call, numpy in and out.
//!
//! The whole batch is stepped and encoded in Rust with the interpreter released; Python
//! pays one call per batch, not per environment. Episodes reset themselves when they
//! reach the horizon (the returned observation is then the next episode's first).

use crate::env::{check_horizon, load_layout};
use numpy::{PyArray1, PyArrayDyn, PyArrayMethods, PyReadonlyArray2, PyUntypedArrayMethods};
use proagent::controller::Kitchen;
use proagent::env::encoding::Encoder;
use proagent::env::{Action, DEFAULT_HORIZON, State};
use proagent::partners::bc::features::{NUM_FEATURES, featurize};
use pyo3::exceptions::PyValueError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::Arc;

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum ObsKind {
    Lossless,
    Features,
    Nothing,
}

impl ObsKind {
    fn parse(s: &str) -> PyResult<ObsKind> {
        match s {
            "lossless" => Ok(ObsKind::Lossless),
            "features" => Ok(ObsKind::Features),
            "none" => Ok(ObsKind::Nothing),
            other => {
                Err(PyValueError::new_err(format!("obs must be \"lossless\", \"features\" or \"none\", got {other:?}")))
            }
        }
    }
}

/// n environments of one layout, stepped together from numpy action arrays.
///
/// `VecEnv(layout, n, horizon=400, obs="lossless", threads=1)`. `obs` is `"lossless"`
/// (float32, shape (n, 2, width, height, channels)), `"features"` (float32, (n, 2, 62))
/// or `"none"`. `threads` > 1 splits the batch over that many threads.
#[pyclass(module = "proagent._native")]
pub struct VecEnv {
    kitchen: Arc<Kitchen>,
    encoder: Encoder,
    states: Vec<State>,
    scores: Vec<u32>,
    horizon: u32,
    obs: ObsKind,
    threads: usize,
}

/// One environment's share of a batched step.
struct Lane<'a> {
    state: &'a mut State,
    score: &'a mut u32,
    obs: &'a mut [f32],
    out: &'a mut [f32; 6],
}

impl VecEnv {
    fn obs_len(&self) -> usize {
        match self.obs {
            ObsKind::Lossless => 2 * self.encoder.len(),
            ObsKind::Features => 2 * NUM_FEATURES,
            ObsKind::Nothing => 0,
        }
    }

    fn obs_shape(&self, n: usize) -> Vec<usize> {
        let [w, h, c] = self.encoder.shape();
        match self.obs {
            ObsKind::Lossless => vec![n, 2, w, h, c],
            ObsKind::Features => vec![n, 2, NUM_FEATURES],
            ObsKind::Nothing => vec![n, 0],
        }
    }

    fn write_obs(kitchen: &Kitchen, encoder: &Encoder, kind: ObsKind, state: &State, out: &mut [f32]) {
        match kind {
            ObsKind::Lossless => {
                let n = encoder.len();
                for (seat, chunk) in out.chunks_mut(n).enumerate() {
                    // The chunk is exactly one encoding long by construction.
                    let _ = encoder.encode(state, seat, chunk);
                }
            }
            ObsKind::Features => {
                for (seat, chunk) in out.chunks_mut(NUM_FEATURES).enumerate() {
                    chunk.copy_from_slice(&featurize(&kitchen.layout, &kitchen.motion, state, seat));
                }
            }
            ObsKind::Nothing => {}
        }
    }

    /// Steps a run of lanes: out = [reward, done, sparse0, sparse1, shaped0, shaped1, score].
    fn step_lanes(
        kitchen: &Kitchen,
        encoder: &Encoder,
        kind: ObsKind,
        horizon: u32,
        lanes: &mut [(Lane<'_>, [Action; 2])],
        finals: &mut [f32],
    ) {
        for ((lane, joint), fin) in lanes.iter_mut().zip(finals.iter_mut()) {
            let out = kitchen.layout.step(lane.state, *joint);
            *lane.score += out.reward;
            let done = lane.state.timestep >= horizon;
            *lane.out = [
                out.reward as f32,
                if done { 1.0 } else { 0.0 },
                out.sparse_by_player[0] as f32,
                out.sparse_by_player[1] as f32,
                out.shaped_by_player[0] as f32,
                out.shaped_by_player[1] as f32,
            ];
            *fin = *lane.score as f32;
            if done {
                *lane.state = kitchen.layout.start_state();
                *lane.score = 0;
            }
            Self::write_obs(kitchen, encoder, kind, lane.state, lane.obs);
        }
    }
}

#[pymethods]
impl VecEnv {
    #[new]
    #[pyo3(signature = (layout = "cramped_room", n = 1, horizon = DEFAULT_HORIZON, obs = "lossless", threads = 1))]
    fn new(layout: &str, n: usize, horizon: u32, obs: &str, threads: usize) -> PyResult<VecEnv> {
        if n == 0 || n > 1 << 20 {
            return Err(PyValueError::new_err(format!("n must be in 1..=1048576, got {n}")));
        }
        if threads == 0 || threads > 256 {
            return Err(PyValueError::new_err(format!("threads must be in 1..=256, got {threads}")));
        }
        let kitchen = Arc::new(Kitchen::new(Arc::new(load_layout(layout)?)));
        let encoder = Encoder::new(&kitchen.layout);
        let start = kitchen.layout.start_state();
        Ok(VecEnv {
            encoder,
            states: vec![start; n],
            scores: vec![0; n],
            horizon: check_horizon(horizon)?,
            obs: ObsKind::parse(obs)?,
            threads,
            kitchen,
        })
    }

    /// Number of environments.
    #[getter]
    fn num_envs(&self) -> usize {
        self.states.len()
    }

    /// Episode length in ticks.
    #[getter]
    fn horizon(&self) -> u32 {
        self.horizon
    }

    /// Shape of the observation array `step` and `reset` return.
    #[getter]
    fn observation_shape(&self) -> Vec<usize> {
        self.obs_shape(self.states.len())
    }

    /// The names of the lossless encoding's channels, in order.
    #[getter]
    fn channel_names(&self) -> Vec<&'static str> {
        self.encoder.channel_names()
    }

    /// Every environment back to the start state; returns the observations.
    #[pyo3(signature = (seed = None))]
    fn reset<'py>(&mut self, py: Python<'py>, seed: Option<u64>) -> PyResult<Bound<'py, PyArrayDyn<f32>>> {
        let _ = seed;
        let start = self.kitchen.layout.start_state();
        for (s, sc) in self.states.iter_mut().zip(self.scores.iter_mut()) {
            *s = start.clone();
            *sc = 0;
        }
        let n = self.states.len();
        let arr = PyArrayDyn::<f32>::zeros(py, self.obs_shape(n), false);
        let len = self.obs_len();
        if len > 0 {
            // SAFETY: the array was just created here and no other reference to it exists.
            let buf = unsafe { arr.as_slice_mut()? };
            for (s, chunk) in self.states.iter().zip(buf.chunks_mut(len)) {
                Self::write_obs(&self.kitchen, &self.encoder, self.obs, s, chunk);
            }
        }
        Ok(arr)
    }

    /// Steps every environment by `actions` (an int array of shape (n, 2): player 0's and
    /// player 1's action index 0..6 per environment). Returns `(obs, reward, done, info)`:
    /// `reward` (n,) float32 sparse team reward, `done` (n,) bool, and `info` with
    /// `sparse_r_by_agent` and `shaped_r_by_agent` ((n, 2) float32) and `score` ((n,)
    /// float32: the episode's sparse return so far, the final one where `done`).
    /// Finished environments reset themselves: their `obs` is the next episode's first.
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        actions: &Bound<'py, PyAny>,
    ) -> PyResult<(
        Bound<'py, PyArrayDyn<f32>>,
        Bound<'py, PyArray1<f32>>,
        Bound<'py, PyArray1<bool>>,
        Bound<'py, PyDict>,
    )> {
        let n = self.states.len();
        // Any integer array-like (lists, int32 arrays, tensors) is converted once here.
        let actions: PyReadonlyArray2<'py, i64> = match actions.extract() {
            Ok(a) => a,
            Err(_) => {
                let np = py.import(intern!(py, "numpy"))?;
                let converted = np.call_method1(intern!(py, "asarray"), (actions, intern!(py, "int64")))?;
                converted
                    .extract()
                    .map_err(|_| PyValueError::new_err(format!("actions must be an integer array of shape ({n}, 2)")))?
            }
        };
        if actions.shape() != [n, 2] {
            return Err(PyValueError::new_err(format!("actions must have shape ({n}, 2), got {:?}", actions.shape())));
        }
        let acts = actions.as_array();
        let mut joints = Vec::with_capacity(n);
        for (i, row) in acts.outer_iter().enumerate() {
            let get = |a: i64| {
                usize::try_from(a).ok().and_then(Action::from_index).ok_or_else(|| {
                    PyValueError::new_err(format!("actions[{i}] holds {a}, not an action index in 0..6"))
                })
            };
            joints.push([get(row[0])?, get(row[1])?]);
        }
        let obs = PyArrayDyn::<f32>::zeros(py, self.obs_shape(n), false);
        let mut outs = vec![[0f32; 6]; n];
        let mut finals = vec![0f32; n];
        let len = self.obs_len();
        {
            // SAFETY: the array was just created here; nothing else refers to it until it is returned.
            let obs_buf = unsafe { obs.as_slice_mut()? };
            let mut chunks = obs_buf.chunks_mut(len.max(1));
            let mut lanes: Vec<(Lane<'_>, [Action; 2])> = Vec::with_capacity(n);
            for (((state, score), out), joint) in
                self.states.iter_mut().zip(self.scores.iter_mut()).zip(outs.iter_mut()).zip(joints)
            {
                let obs: &mut [f32] = if len > 0 { chunks.next().unwrap_or_default() } else { &mut [] };
                lanes.push((Lane { state, score, obs, out }, joint));
            }
            let (kitchen, encoder, kind, horizon, threads) =
                (&*self.kitchen, &self.encoder, self.obs, self.horizon, self.threads);
            let fin = &mut finals[..];
            py.detach(|| {
                if threads <= 1 || n < 2 * threads {
                    Self::step_lanes(kitchen, encoder, kind, horizon, &mut lanes, fin);
                } else {
                    let per = n.div_ceil(threads);
                    std::thread::scope(|s| {
                        for (lc, fc) in lanes.chunks_mut(per).zip(fin.chunks_mut(per)) {
                            s.spawn(move || Self::step_lanes(kitchen, encoder, kind, horizon, lc, fc));
                        }
                    });
                }
            });
        }
        let rewards = PyArray1::from_iter(py, outs.iter().map(|o| o[0]));
        let dones = PyArray1::from_iter(py, outs.iter().map(|o| o[1] != 0.0));
        let sparse = PyArray1::from_iter(py, outs.iter().flat_map(|o| [o[2], o[3]])).reshape([n, 2])?;
        let shaped = PyArray1::from_iter(py, outs.iter().flat_map(|o| [o[4], o[5]])).reshape([n, 2])?;
        let finals = PyArray1::from_vec(py, finals);
        let info = PyDict::new(py);
        info.set_item(intern!(py, "sparse_r_by_agent"), sparse)?;
        info.set_item(intern!(py, "shaped_r_by_agent"), shaped)?;
        info.set_item(intern!(py, "score"), finals)?;
        Ok((obs, rewards, dones, info))
    }

    /// The current state of environment `i` as a dict (overcooked_ai's shape).
    fn state<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyDict>> {
        let s = self.states.get(i).ok_or_else(|| PyValueError::new_err(format!("no environment {i}")))?;
        crate::convert::state_to_dict(py, &self.kitchen.layout, s)
    }

    fn __len__(&self) -> usize {
        self.states.len()
    }

    fn __repr__(&self) -> String {
        format!("VecEnv(layout={:?}, n={}, horizon={})", self.kitchen.layout.name, self.states.len(), self.horizon)
    }
}
