//! Behaviour-cloned human-proxy partners (Carroll et al. 2019), trained by our
//! own code from the 2019 human-human games.
//!
//! - [`features`]: the 62 hand-made features of the 2019 work;
//! - [`data`]: the demonstration schema (reading the human data, writing ours);
//! - [`train`]: candle training and evaluation;
//! - [`model`]: the weights and the plain-Rust forward pass used at play time;
//! - [`BcAgent`]: the seat policy, which samples from the softmax and applies the
//!   2019 "unstuck" rule.
//!
//! Partner specs: `bc` (the shipped human proxy of the layout, trained on the
//! `test` split as ProAgent's `bc_test`), `bc:test` (the same), `bc:train` (the
//! shipped model trained on the `train` split, the 2019 "BC" agent), and
//! `bc:PATH` (a safetensors file written by `proagent bc train`).

pub mod data;
pub mod features;
pub mod model;
pub mod train;

use async_trait::async_trait;
use model::{BcModel, ModelError, NUM_ACTIONS};
use proagent_core::{AgentError, Observation, Seat};
use proagent_overcooked::env::motion::MotionTable;
use proagent_overcooked::env::{Action, Dir, Layout, Pos, State, Tile, layout};
use proagent_overcooked::game::Overcooked;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::Arc;

/// Which human-data split a model was trained on.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Split {
    /// The 2019 `train` split: the model used as the "BC" agent of Carroll et al.
    Train,
    /// The 2019 `test` split: the model used as the human proxy (ProAgent's `bc_test`).
    Test,
}

impl Split {
    /// The split's name in specs, file names and metadata: `train` or `test`.
    pub fn name(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Test => "test",
        }
    }

    /// Inverse of [`Split::name`]; `None` for anything but `train` and `test`.
    pub fn parse(s: &str) -> Option<Split> {
        match s {
            "train" => Some(Split::Train),
            "test" => Some(Split::Test),
            _ => None,
        }
    }

    /// The other split (train ↔ test).
    pub fn other(self) -> Split {
        match self {
            Split::Train => Split::Test,
            Split::Test => Split::Train,
        }
    }
}

/// A parsed `bc…` partner spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BcSpec {
    /// A model shipped in the binary for the layout being played.
    Shipped(Split),
    /// A weight file.
    File(PathBuf),
}

impl BcSpec {
    /// `bc`, `bc:test`, `bc:train` or `bc:PATH`; `None` for specs of other partners.
    pub fn parse(spec: &str) -> Option<BcSpec> {
        let rest = match spec.strip_prefix("bc") {
            Some("") => return Some(BcSpec::Shipped(Split::Test)),
            Some(r) => r.strip_prefix(':')?,
            None => return None,
        };
        if rest.is_empty() {
            return None;
        }
        Some(match Split::parse(rest) {
            Some(split) => BcSpec::Shipped(split),
            None => BcSpec::File(PathBuf::from(rest)),
        })
    }
}

/// Why a BC partner could not be built.
#[derive(Debug, thiserror::Error)]
pub enum BcError {
    #[error(
        "no shipped BC model for layout {layout:?}: its terrain is not one of the five 2019 layouts; \
         train one with `proagent bc train` and use `bc:PATH`"
    )]
    /// The layout's terrain matches none of the five built-in layouts, so no model is shipped for it.
    NoShippedModel {
        /// Name of the layout that was asked for.
        layout: String,
    },
    /// A `bc:PATH` weight file could not be read.
    #[error("reading BC model {path}: {error}")]
    Read {
        /// The path as given in the spec.
        path: String,
        /// The I/O error from the read.
        error: std::io::Error,
    },
    /// The weights were read but are not a valid BC model.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// A model file trained on another layout than the one it would play.
    #[error("{path}: trained on layout {trained:?}, this is {layout:?}; pass --allow-model-mismatch to play it anyway")]
    Mismatch {
        /// The file.
        path: String,
        /// The layout its metadata records.
        trained: String,
        /// The layout being played.
        layout: String,
    },
    /// The spec is none of `bc`, `bc:test`, `bc:train`, `bc:PATH` (e.g. `bcx` or a bare `bc:`).
    #[error("{spec:?} is not a BC spec (expected bc, bc:test, bc:train or bc:PATH)")]
    BadSpec {
        /// The partner spec as given.
        spec: String,
    },
}

/// A model embedded in the binary, with its training metadata (JSON).
pub struct ShippedModel {
    /// Canonical name of the built-in layout the model plays.
    pub layout: &'static str,
    /// The human-data split it was trained on.
    pub split: Split,
    /// Its file name under `data/bc/` (without extension).
    pub file: &'static str,
    /// The safetensors file's bytes.
    pub weights: &'static [u8],
    /// The training metadata as JSON: the command, config, data file and its hash, …
    pub metadata: &'static str,
}

macro_rules! shipped {
    ($layout:literal, $split:ident, $file:literal) => {
        ShippedModel {
            layout: $layout,
            split: Split::$split,
            file: $file,
            weights: include_bytes!(concat!("../../../../data/bc/", $file, ".safetensors")),
            metadata: include_str!(concat!("../../../../data/bc/", $file, ".json")),
        }
    };
}

/// The ten shipped models: a `test`-split human proxy and a `train`-split BC
/// agent for each of the five 2019 layouts (see `data/bc/*.json` for how each
/// was trained).
pub const SHIPPED: &[ShippedModel] = &[
    shipped!("cramped_room", Test, "cramped_room_test"),
    shipped!("cramped_room", Train, "cramped_room_train"),
    shipped!("asymmetric_advantages", Test, "asymmetric_advantages_test"),
    shipped!("asymmetric_advantages", Train, "asymmetric_advantages_train"),
    shipped!("coordination_ring", Test, "coordination_ring_test"),
    shipped!("coordination_ring", Train, "coordination_ring_train"),
    shipped!("forced_coordination", Test, "forced_coordination_test"),
    shipped!("forced_coordination", Train, "forced_coordination_train"),
    shipped!("counter_circuit", Test, "counter_circuit_test"),
    shipped!("counter_circuit", Train, "counter_circuit_train"),
];

/// The built-in 2019 layout with the same terrain as `l` (start cells may differ).
pub fn matching_builtin(l: &Layout) -> Option<&'static str> {
    layout::BUILTIN
        .iter()
        .map(|(n, _)| *n)
        .find(|n| Layout::builtin(n).is_some_and(|b| b.width == l.width && b.height == l.height && b.tiles == l.tiles))
}

/// The shipped model of a built-in layout name (or alias) and split.
pub fn shipped_by_name(name: &str, split: Split) -> Option<&'static ShippedModel> {
    let canon = layout::canonical_name(name)?;
    SHIPPED.iter().find(|m| m.layout == canon && m.split == split)
}

/// Loads the shipped model for a layout's terrain.
pub fn shipped_model(l: &Layout, split: Split) -> Result<BcModel, BcError> {
    let name = matching_builtin(l).ok_or_else(|| BcError::NoShippedModel { layout: l.name.clone() })?;
    let m = shipped_by_name(name, split).ok_or_else(|| BcError::NoShippedModel { layout: l.name.clone() })?;
    Ok(BcModel::from_safetensors(m.weights, &format!("shipped:{}_{}", m.layout, split.name()))?)
}

/// Loads the model a spec names. `bc:PATH` reads the file (the only I/O here) and, unless
/// `allow_mismatch`, refuses a file whose metadata records another layout than `l`
/// (compared by terrain for built-in layouts, by name otherwise).
pub fn load_model_with(spec: &BcSpec, l: &Layout, allow_mismatch: bool) -> Result<BcModel, BcError> {
    match spec {
        BcSpec::Shipped(split) => shipped_model(l, *split),
        BcSpec::File(path) => {
            let shown = path.display().to_string();
            let bytes =
                proagent_core::limits::read_file(path, proagent_core::limits::MAX_WEIGHTS_BYTES, "BC weights files")
                    .map_err(|error| BcError::Read { path: shown.clone(), error })?;
            let model = BcModel::from_safetensors(&bytes, &shown)?;
            if let Some(trained) = model::recorded_layout(&bytes).filter(|_| !allow_mismatch) {
                let same = match Layout::builtin(&trained) {
                    Some(b) => b.width == l.width && b.height == l.height && b.tiles == l.tiles,
                    None => trained == l.name,
                };
                if !same {
                    return Err(BcError::Mismatch { path: shown, trained, layout: l.name.clone() });
                }
            }
            Ok(model)
        }
    }
}

/// [`load_model_with`] refusing a model of another layout.
pub fn load_model(spec: &BcSpec, l: &Layout) -> Result<BcModel, BcError> {
    load_model_with(spec, l, false)
}

/// How many past decisions the unstuck rule looks at (the 2019 `stuck_time`).
pub const STUCK_TIME: usize = 3;

/// A BC policy in a seat: features → MLP → softmax → seeded sample, with the
/// 2019 unstuck rule.
pub struct BcAgent {
    model: Arc<BcModel>,
    label: String,
    motion: Option<(usize, Vec<Tile>, MotionTable)>,
    rng: ChaCha8Rng,
    /// (position, facing, action) of the last `STUCK_TIME + 1` decisions, oldest first.
    history: VecDeque<(Pos, Dir, Action)>,
    unstuck_interventions: u32,
    decisions: u32,
}

impl BcAgent {
    /// A BC seat playing `model`, reported under `label` (usually the spec); RNG seed 0 until [`Agent::reset`].
    pub fn new(model: Arc<BcModel>, label: impl Into<String>) -> BcAgent {
        BcAgent {
            model,
            label: label.into(),
            motion: None,
            rng: ChaCha8Rng::seed_from_u64(0),
            history: VecDeque::with_capacity(STUCK_TIME + 1),
            unstuck_interventions: 0,
            decisions: 0,
        }
    }

    /// Builds the partner a spec (`bc`, `bc:test`, `bc:train`, `bc:PATH`) names for `layout`.
    pub fn from_spec(spec: &str, l: &Layout) -> Result<BcAgent, BcError> {
        BcAgent::from_spec_with(spec, l, false)
    }

    /// [`BcAgent::from_spec`], letting a model file of another layout play when `allow_mismatch`.
    pub fn from_spec_with(spec: &str, l: &Layout, allow_mismatch: bool) -> Result<BcAgent, BcError> {
        let parsed = BcSpec::parse(spec).ok_or_else(|| BcError::BadSpec { spec: spec.to_string() })?;
        let model = load_model_with(&parsed, l, allow_mismatch)?;
        Ok(BcAgent::new(Arc::new(model), spec))
    }

    /// The model this seat samples from.
    pub fn model(&self) -> &BcModel {
        &self.model
    }

    fn motion_for(&mut self, l: &Layout) -> &MotionTable {
        let stale = !matches!(&self.motion, Some((w, tiles, _)) if *w == l.width && *tiles == l.tiles);
        if stale {
            self.motion = Some((l.width, l.tiles.clone(), MotionTable::new(l)));
        }
        match &self.motion {
            Some((_, _, m)) => m,
            None => unreachable!("set just above"),
        }
    }

    /// The action distribution for `seat` before the unstuck rule.
    pub fn policy(&mut self, l: &Layout, state: &State, seat: usize) -> [f64; NUM_ACTIONS] {
        let model = Arc::clone(&self.model);
        let x = features::featurize(l, self.motion_for(l), state, seat);
        model.probabilities(&x)
    }

    /// Chooses `seat`'s action: sample from the (possibly unstuck) distribution.
    pub fn choose(&mut self, l: &Layout, state: &State, seat: usize) -> Action {
        let mut probs = self.policy(l, state, seat);
        let me = state.players[seat.min(1)];
        if let Some(removed) = self.stuck_actions(me.pos, me.dir) {
            self.unstuck_interventions += 1;
            probs = remove_and_renormalise(probs, &removed);
        }
        let u: f64 = self.rng.random();
        let mut acc = 0.0;
        let mut pick = Action::Stay;
        for (k, &p) in probs.iter().enumerate() {
            if p <= 0.0 {
                continue;
            }
            acc += p;
            pick = Action::ALL[k];
            if u < acc {
                break;
            }
        }
        if self.history.len() == STUCK_TIME + 1 {
            self.history.pop_front();
        }
        self.history.push_back((me.pos, me.dir, pick));
        self.decisions += 1;
        pick
    }

    /// The actions to forbid when the player has stood still (same cell and
    /// facing) at its last `STUCK_TIME` decisions and now. As in the 2019 code
    /// the rule only applies once `STUCK_TIME + 1` decisions are on record.
    fn stuck_actions(&self, pos: Pos, dir: Dir) -> Option<Vec<Action>> {
        if self.history.len() < STUCK_TIME + 1 {
            return None;
        }
        let recent = self.history.iter().skip(self.history.len() - STUCK_TIME);
        let mut actions = Vec::with_capacity(STUCK_TIME);
        for &(p, d, a) in recent {
            if (p, d) != (pos, dir) {
                return None;
            }
            actions.push(a);
        }
        Some(actions)
    }
}

/// Zeroes the listed actions and renormalises; if nothing is left (the model
/// put all its mass there), the remaining actions become equally likely.
pub fn remove_and_renormalise(mut probs: [f64; NUM_ACTIONS], removed: &[Action]) -> [f64; NUM_ACTIONS] {
    for a in removed {
        probs[a.index()] = 0.0;
    }
    let sum: f64 = probs.iter().sum();
    if sum > 0.0 {
        probs.iter_mut().for_each(|p| *p /= sum);
    } else {
        let left = NUM_ACTIONS - removed.iter().map(|a| a.index()).collect::<std::collections::BTreeSet<_>>().len();
        for (k, p) in probs.iter_mut().enumerate() {
            *p = if removed.iter().any(|a| a.index() == k) { 0.0 } else { 1.0 / left as f64 };
        }
    }
    probs
}

#[async_trait]
impl Seat<Overcooked> for BcAgent {
    fn name(&self) -> String {
        self.label.clone()
    }

    fn reset(&mut self, game: &Overcooked, seat: usize, seed: u64) {
        let l: &Layout = &game.layout;
        // Each seat gets its own stream, so two BC agents given the same seed differ.
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        self.rng.set_stream(seat as u64);
        self.history.clear();
        self.unstuck_interventions = 0;
        self.decisions = 0;
        self.motion_for(l);
    }

    async fn act(&mut self, obs: &Observation<'_, Overcooked>) -> Result<Action, AgentError> {
        Ok(self.choose(&obs.game.layout, obs.view, obs.seat))
    }

    fn metrics(&self) -> serde_json::Value {
        serde_json::json!({
            "model": self.model.source,
            "decisions": self.decisions,
            "unstuck_interventions": self.unstuck_interventions,
        })
    }
}

#[cfg(test)]
mod tests;
