//! What the Python environments need of a game beyond [`Playable`]: its observation
//! encodings by name (the encodings themselves live in the game crates; here they are
//! only chosen, shaped and laid out), its per-player rewards, its state as a dict and a
//! picture of it. Implemented for classic Overcooked and OvercookedV2 ([`PyGame`]).
//!
//! Observation kinds: classic `lossless` (20 channels, 23 with tomatoes; the 2019
//! encoding), `overcooked_ai` (overcooked_ai 1.x's 26-layer `lossless_state_encoding`),
//! `features` (the 62 BC features), `featurize` (overcooked_ai 1.x's 96
//! `featurize_state`), `none`; OvercookedV2 `grid` (JaxMARL's tensor), `none`. Grids come
//! as `(width, height, C)` (`order="whc"`, overcooked_ai's layout, the classic default) or
//! `(height, width, C)` (`order="hwc"`, JaxMARL's layout, the V2 default).

use crate::convert::{from_json, state_to_dict};
use proagent_eval::games::Playable;
use proagent_overcooked::env::Action;
use proagent_overcooked::env::ai_features::{AI_NUM_FEATURES, ai_feature_names, ai_featurize};
use proagent_overcooked::env::ai_lossless::{AI_CHANNEL_NAMES, AiLossless};
use proagent_overcooked::env::encoding::Encoder;
use proagent_overcooked::game::Overcooked;
use proagent_overcooked_v2::game::OvercookedV2;
use proagent_partners::bc::features::{NUM_FEATURES, featurize};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Which encoding.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ObsKind {
    /// The 2019 lossless grid (classic).
    Lossless,
    /// overcooked_ai 1.x's 26-layer grid (classic).
    OvercookedAi,
    /// The 62 BC features (classic).
    Features,
    /// overcooked_ai 1.x's 96 features (classic).
    Featurize,
    /// JaxMARL's V2 tensor.
    Grid,
    /// No observation.
    Nothing,
}

impl ObsKind {
    /// The kind's name as given from Python.
    pub fn name(self) -> &'static str {
        match self {
            ObsKind::Lossless => "lossless",
            ObsKind::OvercookedAi => "overcooked_ai",
            ObsKind::Features => "features",
            ObsKind::Featurize => "featurize",
            ObsKind::Grid => "grid",
            ObsKind::Nothing => "none",
        }
    }

    fn is_grid(self) -> bool {
        matches!(self, ObsKind::Lossless | ObsKind::OvercookedAi | ObsKind::Grid)
    }
}

/// A chosen encoding of one game: kind, layout of the axes, shape and names.
#[derive(Clone, Debug)]
pub struct Obs {
    /// The encoding.
    pub kind: ObsKind,
    /// Whether the grid axes are swapped from the game's native order.
    transpose: bool,
    /// Whether the grid comes as (height, width, C).
    pub hwc: bool,
    /// One player's observation shape.
    pub shape: Vec<usize>,
    /// Channel names (grids) or feature names (vectors).
    pub names: Vec<String>,
    /// Native grid dimensions (first, second, channels) for the transposition.
    native: [usize; 3],
    lossless: Option<Encoder>,
    ai: Option<AiLossless>,
}

impl Obs {
    /// Numbers in one player's observation.
    pub fn len(&self) -> usize {
        self.shape.iter().product::<usize>() * usize::from(self.kind != ObsKind::Nothing)
    }

    /// The encoding's name.
    pub fn kind_name(&self) -> &'static str {
        self.kind.name()
    }

    /// Writes a grid given in native order into `out` in the chosen order.
    fn put_grid(&self, native: &[f32], out: &mut [f32]) {
        if !self.transpose {
            out.copy_from_slice(native);
            return;
        }
        let [a, b, c] = self.native;
        for i in 0..a {
            for j in 0..b {
                let src = (i * b + j) * c;
                let dst = (j * a + i) * c;
                out[dst..dst + c].copy_from_slice(&native[src..src + c]);
            }
        }
    }
}

fn order_hwc(order: Option<&str>, native_hwc: bool) -> PyResult<bool> {
    match order {
        None => Ok(native_hwc),
        Some("hwc") => Ok(true),
        Some("whc") => Ok(false),
        Some(o) => Err(PyValueError::new_err(format!("order must be \"whc\" or \"hwc\", got {o:?}"))),
    }
}

fn grid_shape(native: [usize; 3], transpose: bool) -> Vec<usize> {
    if transpose { vec![native[1], native[0], native[2]] } else { native.to_vec() }
}

/// What the Python environments need of a game (see the module documentation).
pub trait PyGame: Playable<Action = Action> {
    /// The observation kinds this game offers (the first is the default).
    const OBS_KINDS: &'static [&'static str];
    /// Builds the encoding `kind` in axis order `order`.
    fn make_obs(&self, kind: &str, order: Option<&str>) -> PyResult<Obs>;
    /// Writes `player`'s observation of `state` into `out` (length [`Obs::len`]).
    fn encode(&self, obs: &Obs, state: &Self::State, player: usize, out: &mut [f32]);
    /// A full-information encoding for centralised critics (PettingZoo's `state()`).
    fn state_obs(&self) -> PyResult<Obs>;
    /// Writes the full-information state into `out`.
    fn encode_state(&self, obs: &Obs, state: &Self::State, out: &mut [f32]);
    /// `player`'s sparse reward of a step (classic: its own deliveries; V2: the team reward).
    fn sparse(&self, outcome: &Self::Outcome, player: usize) -> f32;
    /// `player`'s shaped reward of a step.
    fn shaped(&self, outcome: &Self::Outcome, player: usize) -> f32;
    /// The state as a Python dict.
    fn state_dict<'py>(&self, py: Python<'py>, state: &Self::State) -> PyResult<Bound<'py, PyAny>>;
}

fn unknown_kind(kind: &str, known: &[&str], game: &str) -> PyErr {
    PyValueError::new_err(format!("obs must be one of {} for {game}, got {kind:?}", known.join(", ")))
}

impl PyGame for Overcooked {
    const OBS_KINDS: &'static [&'static str] = &["lossless", "overcooked_ai", "features", "featurize", "none"];

    fn make_obs(&self, kind: &str, order: Option<&str>) -> PyResult<Obs> {
        let kind = match kind {
            "lossless" => ObsKind::Lossless,
            "overcooked_ai" | "lossless26" => ObsKind::OvercookedAi,
            "features" => ObsKind::Features,
            "featurize" | "features96" => ObsKind::Featurize,
            "none" => ObsKind::Nothing,
            other => return Err(unknown_kind(other, Self::OBS_KINDS, "classic Overcooked")),
        };
        let hwc = order_hwc(order, false)?;
        let mut o = Obs {
            kind,
            transpose: hwc && kind.is_grid(),
            hwc,
            shape: Vec::new(),
            names: Vec::new(),
            native: [0; 3],
            lossless: None,
            ai: None,
        };
        match kind {
            ObsKind::Lossless => {
                let e = Encoder::new(&self.layout);
                o.native = e.shape();
                o.names = e.channel_names().into_iter().map(String::from).collect();
                o.lossless = Some(e);
            }
            ObsKind::OvercookedAi => {
                let e = AiLossless::new(&self.layout);
                o.native = e.shape();
                o.names = AI_CHANNEL_NAMES.iter().map(|s| s.to_string()).collect();
                o.ai = Some(e);
            }
            ObsKind::Features => {
                o.shape = vec![NUM_FEATURES];
                o.names = (0..NUM_FEATURES).map(|i| format!("f{i}")).collect();
            }
            ObsKind::Featurize => {
                o.shape = vec![AI_NUM_FEATURES];
                o.names = ai_feature_names();
            }
            _ => o.shape = vec![0],
        }
        if kind.is_grid() {
            o.shape = grid_shape(o.native, o.transpose);
        }
        Ok(o)
    }

    fn encode(&self, obs: &Obs, state: &Self::State, player: usize, out: &mut [f32]) {
        match obs.kind {
            ObsKind::Lossless | ObsKind::OvercookedAi => {
                let mut native = Vec::new();
                let buf: &mut [f32] = if obs.transpose {
                    native.resize(out.len(), 0.0);
                    &mut native
                } else {
                    out
                };
                // The buffer has exactly one encoding's length by construction.
                let _ = match (&obs.lossless, &obs.ai) {
                    (Some(e), _) => e.encode(state, player, buf),
                    (_, Some(e)) => e.encode(state, player, self.horizon, buf),
                    _ => Ok(()),
                };
                if obs.transpose {
                    obs.put_grid(&native, out);
                }
            }
            ObsKind::Features => {
                let k = self.kitchen();
                out.copy_from_slice(&featurize(&k.layout, &k.motion, state, player));
            }
            ObsKind::Featurize => {
                let k = self.kitchen();
                out.copy_from_slice(&ai_featurize(&k.layout, &k.motion, state, player, false));
            }
            ObsKind::Grid | ObsKind::Nothing => {}
        }
    }

    fn state_obs(&self) -> PyResult<Obs> {
        self.make_obs("lossless", None)
    }

    fn encode_state(&self, obs: &Obs, state: &Self::State, out: &mut [f32]) {
        self.encode(obs, state, 0, out);
    }

    fn sparse(&self, outcome: &Self::Outcome, player: usize) -> f32 {
        outcome.sparse_by_player.get(player).map_or(0.0, |&v| v as f32)
    }

    fn shaped(&self, outcome: &Self::Outcome, player: usize) -> f32 {
        outcome.shaped_by_player.get(player).map_or(0.0, |&v| v as f32)
    }

    fn state_dict<'py>(&self, py: Python<'py>, state: &Self::State) -> PyResult<Bound<'py, PyAny>> {
        Ok(state_to_dict(py, &self.layout, state)?.into_any())
    }
}

impl PyGame for OvercookedV2 {
    const OBS_KINDS: &'static [&'static str] = &["grid", "none"];

    fn make_obs(&self, kind: &str, order: Option<&str>) -> PyResult<Obs> {
        let kind = match kind {
            "grid" => ObsKind::Grid,
            "none" => ObsKind::Nothing,
            other => return Err(unknown_kind(other, Self::OBS_KINDS, "OvercookedV2")),
        };
        let hwc = order_hwc(order, true)?;
        let (h, w, c) = proagent_overcooked_v2::env::obs::shape(&self.layout, &self.settings);
        let native = [h, w, c];
        let transpose = !hwc && kind == ObsKind::Grid;
        Ok(Obs {
            kind,
            transpose,
            hwc,
            shape: if kind == ObsKind::Grid { grid_shape(native, transpose) } else { vec![0] },
            names: (0..c).map(|i| format!("layer_{i}")).collect(),
            native,
            lossless: None,
            ai: None,
        })
    }

    fn encode(&self, obs: &Obs, state: &Self::State, player: usize, out: &mut [f32]) {
        if obs.kind != ObsKind::Grid {
            return;
        }
        let mut ints = Vec::with_capacity(out.len());
        proagent_overcooked_v2::env::obs::encode(&self.layout, &self.settings, state, player, &mut ints);
        if obs.transpose {
            let native: Vec<f32> = ints.iter().map(|&v| v as f32).collect();
            obs.put_grid(&native, out);
        } else {
            for (o, v) in out.iter_mut().zip(&ints) {
                *o = *v as f32;
            }
        }
    }

    fn state_obs(&self) -> PyResult<Obs> {
        let full = OvercookedV2::new(
            self.layout.clone(),
            proagent_overcooked_v2::env::Settings { view_radius: None, ..self.settings.clone() },
        );
        full.make_obs("grid", Some("hwc"))
    }

    fn encode_state(&self, obs: &Obs, state: &Self::State, out: &mut [f32]) {
        let full = proagent_overcooked_v2::env::Settings { view_radius: None, ..self.settings.clone() };
        let mut ints = Vec::with_capacity(out.len());
        proagent_overcooked_v2::env::obs::encode(&self.layout, &full, state, 0, &mut ints);
        let _ = obs;
        for (o, v) in out.iter_mut().zip(&ints) {
            *o = *v as f32;
        }
    }

    fn sparse(&self, outcome: &Self::Outcome, _player: usize) -> f32 {
        outcome.reward as f32
    }

    fn shaped(&self, outcome: &Self::Outcome, player: usize) -> f32 {
        outcome.shaped.get(player).map_or(0.0, |&v| v as f32)
    }

    fn state_dict<'py>(&self, py: Python<'py>, state: &Self::State) -> PyResult<Bound<'py, PyAny>> {
        from_json(py, &proagent_core::game::Game::state_json(self, state))
    }
}
