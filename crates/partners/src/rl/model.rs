//! RL model files: safetensors weights with a small JSON header entry, and the models
//! shipped in the binary (`data/rl/<layout>_<algo>.safetensors`, each with its training
//! command and evaluations in the `.json` next to it).
//!
//! Tensor names, in the (out, in) convention of PyTorch / `candle_nn::Linear`:
//! `fc1.weight` (h1 × inputs), `fc1.bias`, …, `fcK.*` for the hidden layers (ReLU), then
//! `pi.weight` (6 × hK), `pi.bias` (action logits) and `v.weight` (1 × hK), `v.bias`
//! (value). Extra networks stored with a model (an SP run's `early` and `middle`
//! checkpoints, used by FCP) carry the same names behind a `<tag>.` prefix.
//!
//! The one `__metadata__` key, `proagent_rl`, holds `{"format", "encoder", "layout",
//! "algo", "hidden", "activation", "checkpoints"}` (and, for OvercookedV2 models, `game`
//! and `settings`).
//!
//! Model files are untrusted input. Reading one ([`RlModel::from_safetensors`]) checks
//! that the encoder is one this build computes, every tensor's dtype and shape (each
//! layer takes the previous one's width; at most 16 hidden layers of at most 4096), that
//! no weight is NaN or infinite, and that checkpoint tags are distinct and at most
//! [`MAX_CHECKPOINTS`] (so a file cannot make the reader build one network many times).
//! Seating one on a game ([`RlModel::encoder_for`]) checks the encoder belongs to that
//! game, that its width is the network's input width, and that the game (layout, V2
//! switches) is the one the model was trained on — the last check can be overridden.
//! Files are read through the bounded reader ([`MAX_RL_WEIGHTS_BYTES`]).

use super::game::RlGame;
use super::net::{HEAD_OUTPUTS, MAX_WIDTH, NUM_ACTIONS, Net};
use super::obs::{Encode, game_of};
use super::train::{Algo, MAX_HIDDEN_LAYERS};
use safetensors::{Dtype, SafeTensors, tensor::TensorView};
use std::collections::HashMap;

/// The metadata key of model files.
pub const META_KEY: &str = "proagent_rl";
/// The model-file format written in the metadata.
pub const FORMAT: &str = "proagent-rl/1";
/// The most extra networks (checkpoints) a model file may hold.
pub const MAX_CHECKPOINTS: usize = 16;
/// The largest RL model file read (the shipped ones are 35–70 KiB).
pub const MAX_RL_WEIGHTS_BYTES: u64 = 64 << 20;
/// The widest input a model file may declare.
pub const MAX_INPUTS: usize = 1 << 16;

/// A weight file that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {message}")]
pub struct ModelError {
    /// The file (or `shipped:<layout>_<algo>`).
    pub origin: String,
    /// What is wrong.
    pub message: String,
}

/// A loaded policy.
#[derive(Clone, Debug, PartialEq)]
pub struct RlModel {
    /// The network.
    pub net: Net,
    /// The encoding it reads (its model-file name, one this build computes).
    pub encoder: String,
    /// Where it came from (path or `shipped:<layout>_<algo>`).
    pub source: String,
    /// The header entry as stored (layout, algo, …).
    pub info: serde_json::Value,
    /// Extra networks stored with it, by tag.
    pub checkpoints: Vec<(String, Net)>,
}

fn layer_names(hidden: usize) -> Vec<String> {
    (1..=hidden).map(|k| format!("fc{k}")).collect()
}

impl RlModel {
    /// Serialises the model: the main network, then each checkpoint under its tag.
    pub fn to_safetensors(&self) -> Vec<u8> {
        let mut bufs: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
        push_net(&mut bufs, "", &self.net);
        for (tag, net) in &self.checkpoints {
            push_net(&mut bufs, &format!("{tag}."), net);
        }
        let views: Vec<(String, TensorView<'_>)> = bufs
            .iter()
            .map(|(n, shape, data)| {
                let view = TensorView::new(Dtype::F32, shape.clone(), data)
                    .unwrap_or_else(|_| unreachable!("tensor {n}: data length matches its shape by construction"));
                (n.clone(), view)
            })
            .collect();
        let mut info = self.info.clone();
        if let Some(m) = info.as_object_mut() {
            m.insert("format".into(), FORMAT.into());
            m.insert("encoder".into(), self.encoder.clone().into());
            m.insert("hidden".into(), serde_json::json!(self.net.hidden()));
            m.insert("activation".into(), "relu".into());
            m.insert(
                "checkpoints".into(),
                serde_json::json!(self.checkpoints.iter().map(|(t, _)| t).collect::<Vec<_>>()),
            );
        }
        let meta = HashMap::from([(META_KEY.to_string(), info.to_string())]);
        safetensors::serialize(views, Some(meta))
            .unwrap_or_else(|e| unreachable!("serialising in-memory f32 tensors cannot fail: {e}"))
    }

    /// Reads and checks a model file's bytes.
    pub fn from_safetensors(bytes: &[u8], source: &str) -> Result<RlModel, ModelError> {
        let err = |message: String| ModelError { origin: source.to_string(), message };
        let st = SafeTensors::deserialize(bytes).map_err(|e| err(format!("not a safetensors file: {e}")))?;
        let (_, meta) = SafeTensors::read_metadata(bytes).map_err(|e| err(format!("bad safetensors header: {e}")))?;
        let raw = meta
            .metadata()
            .as_ref()
            .and_then(|m| m.get(META_KEY))
            .ok_or_else(|| err(format!("no `{META_KEY}` metadata: not a model written by `proagent rl train`")))?;
        let info: serde_json::Value =
            serde_json::from_str(raw).map_err(|e| err(format!("`{META_KEY}` metadata is not JSON: {e}")))?;
        let enc_name = info.get("encoder").and_then(|v| v.as_str()).unwrap_or("");
        if game_of(enc_name).is_none() {
            let known: Vec<&str> = super::obs::KNOWN.iter().map(|(n, _)| *n).collect();
            return Err(err(format!(
                "trained on observation encoder {enc_name:?}, but this build computes only {}",
                known.join(", ")
            )));
        }
        let encoder = enc_name.to_string();
        let net = read_net(&st, "", source)?;
        let mut checkpoints = Vec::new();
        if let Some(tags) = info.get("checkpoints").and_then(|v| v.as_array()) {
            if tags.len() > MAX_CHECKPOINTS {
                return Err(err(format!("{} checkpoints listed; at most {MAX_CHECKPOINTS}", tags.len())));
            }
            for t in tags {
                let tag = t.as_str().ok_or_else(|| err("`checkpoints` must list strings".into()))?;
                if checkpoints.iter().any(|(seen, _): &(String, Net)| seen == tag) {
                    return Err(err(format!("checkpoint `{tag}` is listed twice")));
                }
                let ck = read_net(&st, &format!("{tag}."), source)?;
                if ck.sizes != net.sizes {
                    return Err(err(format!(
                        "checkpoint `{tag}` has layer sizes {:?}, the model {:?}",
                        ck.sizes, net.sizes
                    )));
                }
                checkpoints.push((tag.to_string(), ck));
            }
        }
        Ok(RlModel { net, encoder, source: source.to_string(), info, checkpoints })
    }

    /// The algorithm recorded in the header, if any.
    pub fn algo(&self) -> Option<Algo> {
        self.info.get("algo").and_then(|v| v.as_str()).and_then(Algo::parse)
    }

    /// The layout recorded in the header, if any.
    pub fn layout(&self) -> Option<&str> {
        self.info.get("layout").and_then(|v| v.as_str())
    }

    /// The game kind the model's encoder belongs to (`overcooked`, `overcooked_v2`).
    pub fn game(&self) -> &'static str {
        game_of(&self.encoder).unwrap_or("unknown")
    }

    /// The encoder this model reads on `game`, after checking that the model can play it:
    /// an encoder of this game, whose width is the input width of the network and of every
    /// checkpoint, and (unless `allow_mismatch`) the layout and switches it was trained on.
    pub fn encoder_for<G: RlGame>(&self, game: &G, allow_mismatch: bool) -> Result<G::Encoder, ModelError> {
        let err = |message: String| ModelError { origin: self.source.clone(), message };
        if self.game() != game.kind() {
            return Err(err(format!(
                "a {} policy (encoder {}) cannot play {} ({})",
                self.game(),
                self.encoder,
                game.spec(),
                game.kind()
            )));
        }
        let enc = game.encoder(&self.encoder).map_err(|e| err(e.to_string()))?;
        let dim = enc.dim();
        for (tag, net) in
            std::iter::once(("main", &self.net)).chain(self.checkpoints.iter().map(|(t, n)| (t.as_str(), n)))
        {
            if net.inputs() != dim {
                return Err(err(format!(
                    "the {tag} network takes {} inputs, but {} on {} gives {dim}",
                    net.inputs(),
                    self.encoder,
                    game.spec()
                )));
            }
        }
        if !allow_mismatch {
            game.check_model(&self.info).map_err(|why| {
                err(format!("{why}; pass --allow-model-mismatch to play it on {} anyway", game.spec()))
            })?;
        }
        Ok(enc)
    }
}

fn push_net(bufs: &mut Vec<(String, Vec<usize>, Vec<u8>)>, prefix: &str, net: &Net) {
    let hidden = net.layers() - 1;
    let names = layer_names(hidden);
    for k in 0..net.layers() {
        let (n_in, n_out) = (net.sizes[k], net.sizes[k + 1]);
        let (wo, bo) = net.offsets(k);
        let w = &net.params[wo..bo];
        let b = &net.params[bo..bo + n_out];
        // Stored (out, in): transpose our (in, out) block.
        let t = |rows: std::ops::Range<usize>| -> Vec<u8> {
            let mut v = Vec::with_capacity(rows.len() * n_in * 4);
            for o in rows {
                for i in 0..n_in {
                    v.extend_from_slice(&w[i * n_out + o].to_le_bytes());
                }
            }
            v
        };
        let bytes = |x: &[f32]| x.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>();
        if k < hidden {
            bufs.push((format!("{prefix}{}.weight", names[k]), vec![n_out, n_in], t(0..n_out)));
            bufs.push((format!("{prefix}{}.bias", names[k]), vec![n_out], bytes(b)));
        } else {
            bufs.push((format!("{prefix}pi.weight"), vec![NUM_ACTIONS, n_in], t(0..NUM_ACTIONS)));
            bufs.push((format!("{prefix}pi.bias"), vec![NUM_ACTIONS], bytes(&b[..NUM_ACTIONS])));
            bufs.push((format!("{prefix}v.weight"), vec![1, n_in], t(NUM_ACTIONS..HEAD_OUTPUTS)));
            bufs.push((format!("{prefix}v.bias"), vec![1], bytes(&b[NUM_ACTIONS..])));
        }
    }
}

fn f32s(st: &SafeTensors<'_>, name: &str, shape: &[usize], source: &str) -> Result<Vec<f32>, ModelError> {
    let err = |message: String| ModelError { origin: source.to_string(), message };
    let v = st.tensor(name).map_err(|_| err(format!("missing tensor `{name}`")))?;
    if v.dtype() != Dtype::F32 {
        return Err(err(format!("`{name}` is {:?}, expected F32", v.dtype())));
    }
    if v.shape() != shape {
        return Err(err(format!("`{name}` has shape {:?}, expected {shape:?}", v.shape())));
    }
    let out: Vec<f32> = v.data().chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    if let Some(i) = out.iter().position(|x| !x.is_finite()) {
        return Err(err(format!("`{name}` holds a non-finite value at index {i}")));
    }
    Ok(out)
}

fn read_net(st: &SafeTensors<'_>, prefix: &str, source: &str) -> Result<Net, ModelError> {
    let err = |message: String| ModelError { origin: source.to_string(), message };
    // Hidden layers: fc1, fc2, … as long as they exist.
    let mut sizes = Vec::new();
    let mut k = 1;
    while let Ok(w) = st.tensor(&format!("{prefix}fc{k}.weight")) {
        let &[o, i] = w.shape() else {
            return Err(err(format!("`{prefix}fc{k}.weight` has shape {:?}, expected 2 dimensions", w.shape())));
        };
        if sizes.is_empty() {
            sizes.push(i);
        } else if sizes.last() != Some(&i) {
            return Err(err(format!(
                "`{prefix}fc{k}.weight` takes {i} inputs, the layer before gives {:?}",
                sizes.last()
            )));
        }
        if o == 0 || o > MAX_WIDTH || i == 0 || i > MAX_INPUTS {
            return Err(err(format!("`{prefix}fc{k}.weight` has shape {:?}, out of range", w.shape())));
        }
        sizes.push(o);
        k += 1;
        if sizes.len() - 1 > MAX_HIDDEN_LAYERS {
            return Err(err(format!("more than {MAX_HIDDEN_LAYERS} hidden layers")));
        }
    }
    if sizes.is_empty() {
        return Err(err(format!("missing tensor `{prefix}fc1.weight` (an RL model has fc1…fcK, pi and v layers)")));
    }
    let last = *sizes.last().unwrap_or(&0);
    sizes.push(HEAD_OUTPUTS);
    let total: usize = sizes.windows(2).map(|w| w[0] * w[1] + w[1]).sum();
    let mut params = vec![0f32; total];
    let mut net = Net { sizes: sizes.clone(), params: Vec::new() };
    let layers = sizes.len() - 1;
    let mut put = |k: usize, rows: std::ops::Range<usize>, w: &[f32], b: &[f32]| {
        let (n_in, n_out) = (sizes[k], sizes[k + 1]);
        let off: usize = sizes[..=k].windows(2).map(|w| w[0] * w[1] + w[1]).sum();
        for (r, o) in rows.clone().enumerate() {
            for i in 0..n_in {
                params[off + i * n_out + o] = w[r * n_in + i];
            }
            params[off + n_in * n_out + o] = b[r];
        }
    };
    for k in 0..layers - 1 {
        let name = format!("{prefix}fc{}", k + 1);
        let w = f32s(st, &format!("{name}.weight"), &[sizes[k + 1], sizes[k]], source)?;
        let b = f32s(st, &format!("{name}.bias"), &[sizes[k + 1]], source)?;
        put(k, 0..sizes[k + 1], &w, &b);
    }
    let pw = f32s(st, &format!("{prefix}pi.weight"), &[NUM_ACTIONS, last], source)?;
    let pb = f32s(st, &format!("{prefix}pi.bias"), &[NUM_ACTIONS], source)?;
    put(layers - 1, 0..NUM_ACTIONS, &pw, &pb);
    let vw = f32s(st, &format!("{prefix}v.weight"), &[1, last], source)?;
    let vb = f32s(st, &format!("{prefix}v.bias"), &[1], source)?;
    put(layers - 1, NUM_ACTIONS..HEAD_OUTPUTS, &vw, &vb);
    net.params = params;
    Ok(net)
}

/// A model embedded in the binary.
pub struct ShippedModel {
    /// The game kind (`overcooked`, `overcooked_v2`).
    pub game: &'static str,
    /// Canonical name of the built-in layout.
    pub layout: &'static str,
    /// The algorithm that trained it.
    pub algo: Algo,
    /// Its file name under `data/rl/` (without extension).
    pub file: &'static str,
    /// The safetensors bytes.
    pub weights: &'static [u8],
    /// The training metadata (JSON): command, configuration, history, evaluations.
    pub metadata: &'static str,
}

macro_rules! shipped {
    ($layout:literal, $algo:ident, $file:literal) => {
        ShippedModel {
            game: "overcooked",
            layout: $layout,
            algo: Algo::$algo,
            file: $file,
            weights: include_bytes!(concat!("../../../../data/rl/", $file, ".safetensors")),
            metadata: include_str!(concat!("../../../../data/rl/", $file, ".json")),
        }
    };
    (v2 $layout:literal, $algo:ident, $file:literal) => {
        ShippedModel {
            game: "overcooked_v2",
            layout: $layout,
            algo: Algo::$algo,
            file: $file,
            weights: include_bytes!(concat!("../../../../data/rl/v2/", $file, ".safetensors")),
            metadata: include_str!(concat!("../../../../data/rl/v2/", $file, ".json")),
        }
    };
}

/// The shipped models (see `data/rl/*.json` and `data/rl/v2/*.json` for how each was
/// trained; `scripts/rl_train_all.sh` re-trains them all).
pub const SHIPPED: &[ShippedModel] = &[
    shipped!("cramped_room", Sp, "cramped_room_sp"),
    shipped!("asymmetric_advantages", Sp, "asymmetric_advantages_sp"),
    shipped!("coordination_ring", Sp, "coordination_ring_sp"),
    shipped!("forced_coordination", Sp, "forced_coordination_sp"),
    shipped!("counter_circuit", Sp, "counter_circuit_sp"),
    shipped!("cramped_room", Pbt, "cramped_room_pbt"),
    shipped!("asymmetric_advantages", Pbt, "asymmetric_advantages_pbt"),
    shipped!("coordination_ring", Pbt, "coordination_ring_pbt"),
    shipped!("counter_circuit", Pbt, "counter_circuit_pbt"),
    shipped!("forced_coordination", Pbt, "forced_coordination_pbt"),
    shipped!("cramped_room", Fcp, "cramped_room_fcp"),
    shipped!("asymmetric_advantages", Fcp, "asymmetric_advantages_fcp"),
    shipped!("coordination_ring", Fcp, "coordination_ring_fcp"),
    shipped!("forced_coordination", Fcp, "forced_coordination_fcp"),
    shipped!("counter_circuit", Fcp, "counter_circuit_fcp"),
    shipped!("cramped_room", Mep, "cramped_room_mep"),
    shipped!("asymmetric_advantages", Mep, "asymmetric_advantages_mep"),
    shipped!("coordination_ring", Mep, "coordination_ring_mep"),
    shipped!("forced_coordination", Mep, "forced_coordination_mep"),
    shipped!("counter_circuit", Mep, "counter_circuit_mep"),
    shipped!("cramped_room", Cole, "cramped_room_cole"),
    shipped!("asymmetric_advantages", Cole, "asymmetric_advantages_cole"),
    shipped!("coordination_ring", Cole, "coordination_ring_cole"),
    shipped!("forced_coordination", Cole, "forced_coordination_cole"),
    shipped!("counter_circuit", Cole, "counter_circuit_cole"),
    // OvercookedV2, on the agent's own view (`v2-view/1`).
    shipped!(v2 "cramped_room", Sp, "cramped_room_sp"),
    shipped!(v2 "cramped_room_v2", Sp, "cramped_room_v2_sp"),
    shipped!(v2 "coord_ring", Sp, "coord_ring_sp"),
    shipped!(v2 "forced_coord", Sp, "forced_coord_sp"),
    shipped!(v2 "asymm_advantages", Sp, "asymm_advantages_r2_sp"),
    shipped!(v2 "cramped_room", Fcp, "cramped_room_fcp"),
    shipped!(v2 "cramped_room_v2", Fcp, "cramped_room_v2_fcp"),
    shipped!(v2 "forced_coord", Fcp, "forced_coord_fcp"),
    shipped!(v2 "coord_ring", Fcp, "coord_ring_fcp"),
    shipped!(v2 "asymm_advantages", Fcp, "asymm_advantages_r2_fcp"),
];

/// Shipped models known to be weak partners even on their own layout (docs/rl.md,
/// results.md "Held-out partners"): they load and play, but cook little with the layout's
/// SP policy. Shipped so the Table 1 protocol runs on every layout.
pub const KNOWN_WEAK: &[&str] = &[];

/// Why a partner's model could not be found or read.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// No shipped model for this algorithm on this layout.
    #[error(
        "no shipped {algo} model for layout {layout:?} (shipped: {shipped}); train one with \
         `proagent rl train --algo {algo} --layout {layout} --out FILE` and use `rl:FILE`"
    )]
    NotShipped {
        /// The algorithm asked for.
        algo: &'static str,
        /// The layout.
        layout: String,
        /// What is shipped.
        shipped: String,
    },
    /// A file that could not be read.
    #[error("reading RL model {path}: {error}")]
    Read {
        /// The path as given.
        path: String,
        /// The I/O error.
        error: std::io::Error,
    },
    /// Bytes that are not a usable model, or a model that cannot play this game.
    #[error(transparent)]
    Model(#[from] ModelError),
}

/// The list of shipped models of a game kind as `layout/algo` names.
pub fn shipped_names(game: &str) -> String {
    let names: Vec<String> =
        SHIPPED.iter().filter(|m| m.game == game).map(|m| format!("{}/{}", m.layout, m.algo.name())).collect();
    if names.is_empty() { "none".into() } else { names.join(", ") }
}

/// The shipped model of `algo` for a game's terrain (start cells may differ). When several
/// are shipped for one layout (OvercookedV2 models trained with and without a view
/// radius), the one trained under the game's switches; failing that the first, which the
/// seat then refuses with an error naming the switches it was trained with.
pub fn shipped_model<G: RlGame>(game: &G, algo: Algo) -> Result<RlModel, LoadError> {
    // By terrain, as for the BC models: a layout file named like a built-in but drawn
    // differently gets no model.
    let layout = game.shipped_layout();
    let candidates: Vec<&ShippedModel> = SHIPPED
        .iter()
        .filter(|m| m.game == game.kind() && Some(m.layout) == layout.as_deref() && m.algo == algo)
        .collect();
    let mut first = None;
    for m in candidates {
        let prefix = if m.game == "overcooked" { "" } else { "v2:" };
        let model = RlModel::from_safetensors(m.weights, &format!("shipped:{prefix}{}", m.file))?;
        if game.check_model(&model.info).is_ok() {
            return Ok(model);
        }
        first.get_or_insert(model);
    }
    first.ok_or_else(|| LoadError::NotShipped {
        algo: algo.name(),
        layout: game.spec(),
        shipped: shipped_names(game.kind()),
    })
}

/// Reads a model file (at most [`MAX_RL_WEIGHTS_BYTES`], through the bounded reader).
pub fn load_file(path: &std::path::Path) -> Result<RlModel, LoadError> {
    let shown = path.display().to_string();
    let bytes = proagent_core::limits::read_file(path, MAX_RL_WEIGHTS_BYTES, "RL weights files")
        .map_err(|error| LoadError::Read { path: shown.clone(), error })?;
    Ok(RlModel::from_safetensors(&bytes, &shown)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rl::obs::FEATURES62;
    use crate::rl::train::play;
    use proagent_overcooked::env::Layout;
    use proagent_overcooked::game::Overcooked;
    use std::sync::Arc;

    fn model() -> RlModel {
        let net = Net::new(62, &[8, 5], 4);
        let early = Net::new(62, &[8, 5], 5);
        RlModel {
            net,
            encoder: FEATURES62.into(),
            source: "t".into(),
            info: serde_json::json!({"layout": "cramped_room", "algo": "sp"}),
            checkpoints: vec![("early".into(), early)],
        }
    }

    fn classic(name: &str) -> Overcooked {
        Overcooked::new(Arc::new(Layout::builtin(name).unwrap()), 400)
    }

    #[test]
    fn round_trip_with_checkpoints() {
        let m = model();
        let bytes = m.to_safetensors();
        let back = RlModel::from_safetensors(&bytes, "t").unwrap();
        assert_eq!(back.net, m.net);
        assert_eq!(back.checkpoints, m.checkpoints);
        assert_eq!(back.algo(), Some(Algo::Sp));
        assert_eq!(back.layout(), Some("cramped_room"));
        assert_eq!(back.info["hidden"], serde_json::json!([8, 5]));
        // The stored (out, in) weight of fc1 row 2, column 7 is our (in, out) entry (7, 2).
        let st = SafeTensors::deserialize(&bytes).unwrap();
        let w = st.tensor("fc1.weight").unwrap();
        assert_eq!(w.shape(), &[8, 62]);
        let k = 2 * 62 + 7;
        let v = f32::from_le_bytes(w.data()[k * 4..k * 4 + 4].try_into().unwrap());
        assert_eq!(v, m.net.params[7 * 8 + 2]);
        assert_eq!(st.tensor("v.weight").unwrap().shape(), &[1, 5]);
    }

    #[test]
    fn shipped_models_load_match_their_metadata_and_play() {
        assert!(!SHIPPED.is_empty());
        for m in SHIPPED.iter().filter(|m| m.game == "overcooked") {
            let name = format!("{}_{}", m.layout, m.algo.name());
            assert!(m.weights.len() < 1 << 20, "{name}: {} bytes", m.weights.len());
            let g = classic(m.layout);
            let model = shipped_model(&g, m.algo).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!((model.layout(), model.algo()), (Some(m.layout), Some(m.algo)), "{name}");
            assert_eq!(model.encoder, FEATURES62);
            let meta: serde_json::Value =
                serde_json::from_str(m.metadata).unwrap_or_else(|e| panic!("{name}.json: {e}"));
            let cmd = meta["command"].as_str().unwrap_or_default();
            let want = format!("proagent rl train --algo {} --layout {} ", m.algo.name(), m.layout);
            assert!(cmd.starts_with(&want) && cmd.ends_with(&format!("--out data/rl/{name}.safetensors")), "{cmd}");
            assert_eq!(meta["architecture"]["parameters"].as_u64(), Some(model.net.params.len() as u64), "{name}");
            // Two seeded episodes: every shipped policy cooks on its own layout. SP, PBT and
            // COLE policies play themselves; FCP and MEP learners were trained to partner a
            // pool, not themselves, so they play the layout's SP policy, in both seats (how
            // each does with partners it never met is measured in docs/results.md).
            let enc = model.encoder_for(&g, false).unwrap();
            let sp = shipped_model(&g, Algo::Sp).unwrap_or_else(|e| panic!("{name}: {e}"));
            let scores = match m.algo {
                Algo::Sp | Algo::Pbt | Algo::Cole => play(&g, &enc, &model.net, &model.net, 2, 400, 5, 1),
                Algo::Fcp | Algo::Mep => {
                    let mut s = play(&g, &enc, &model.net, &sp.net, 1, 400, 5, 1);
                    s.extend(play(&g, &enc, &sp.net, &model.net, 1, 400, 5, 1));
                    s
                }
            };
            if KNOWN_WEAK.contains(&name.as_str()) {
                continue;
            }
            assert!(scores.iter().sum::<i32>() >= 40, "{name}: scores {scores:?}");
        }
        // A layout with another terrain has none.
        let other = Overcooked::new(Arc::new(Layout::from_grid("tiny", &["XXPXX", "O1 2O", "XDXSX"]).unwrap()), 400);
        let e = shipped_model(&other, Algo::Sp).unwrap_err().to_string();
        assert!(e.contains("no shipped sp model for layout \"tiny\""), "{e}");
    }

    #[test]
    fn shipped_v2_models_load_under_their_switches_and_play() {
        use proagent_overcooked_v2::env::{Layout as V2Layout, Settings};
        use proagent_overcooked_v2::game::OvercookedV2;
        let v2: Vec<&ShippedModel> = SHIPPED.iter().filter(|m| m.game == "overcooked_v2").collect();
        assert!(v2.len() >= 6);
        for m in v2 {
            let name = format!("v2/{}", m.file);
            let meta: serde_json::Value = serde_json::from_str(m.metadata).unwrap();
            let radius = meta["settings"]["view_radius"].as_u64().map(|r| r as u8);
            let settings = Settings { view_radius: radius, ..Settings::default() };
            let g = OvercookedV2::new(Arc::new(V2Layout::builtin(m.layout).unwrap()), settings);
            let model = shipped_model(&g, m.algo).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!((model.layout(), model.algo()), (Some(m.layout), Some(m.algo)), "{name}");
            let cmd = meta["command"].as_str().unwrap_or_default();
            assert!(cmd.ends_with(&format!("--out data/rl/v2/{}.safetensors", m.file)), "{cmd}");
            let enc = model.encoder_for(&g, false).unwrap();
            let sp = shipped_model(&g, Algo::Sp).unwrap();
            let scores = play(&g, &enc, &model.net, &sp.net, 1, 400, 5, 1);
            assert!(scores.iter().sum::<i32>() >= 40, "{name}: scores {scores:?}");
            // Under other switches the model is refused, naming them.
            if radius.is_some() {
                let full = OvercookedV2::new(Arc::new(V2Layout::builtin(m.layout).unwrap()), Settings::default());
                assert!(model.encoder_for(&full, false).is_err() || full.check_model(&model.info).is_err(), "{name}");
            }
        }
    }

    #[test]
    fn a_model_plays_only_the_game_and_layout_it_was_trained_on() {
        let m = model();
        let cramped = classic("cramped_room");
        assert!(m.encoder_for(&cramped, false).is_ok());
        let e = m.encoder_for(&classic("counter_circuit"), false).unwrap_err().to_string();
        assert!(e.contains("trained on layout \"cramped_room\"") && e.contains("--allow-model-mismatch"), "{e}");
        assert!(m.encoder_for(&classic("counter_circuit"), true).is_ok(), "the override");
        // A network that does not take 62 inputs is refused, never run.
        let mut wide = model();
        wide.net = Net::new(100, &[8], 1);
        let e = wide.encoder_for(&cramped, true).unwrap_err().to_string();
        assert!(e.contains("takes 100 inputs") && e.contains("gives 62"), "{e}");
        let mut ck = model();
        ck.checkpoints[0].1 = Net::new(61, &[8, 5], 1);
        assert!(ck.encoder_for(&cramped, true).unwrap_err().to_string().contains("early network takes 61"));
        // A classic model on an OvercookedV2 game.
        let v2 = proagent_overcooked_v2::game::OvercookedV2::new(
            Arc::new(proagent_overcooked_v2::env::Layout::builtin("cramped_room").unwrap()),
            Default::default(),
        );
        let e = m.encoder_for(&v2, true).unwrap_err().to_string();
        assert!(e.contains("cannot play v2:cramped_room"), "{e}");
    }

    #[test]
    fn malformed_files_are_clear_errors() {
        let good = model().to_safetensors();
        let e = RlModel::from_safetensors(&good[..good.len() / 2], "half.safetensors").unwrap_err();
        assert!(e.to_string().starts_with("half.safetensors: "), "{e}");
        let mut m = model();
        m.net.params[3] = f32::NAN;
        let e = RlModel::from_safetensors(&m.to_safetensors(), "x").unwrap_err();
        assert!(e.message.contains("non-finite"), "{e}");
        m.net.params[3] = f32::INFINITY;
        assert!(RlModel::from_safetensors(&m.to_safetensors(), "x").unwrap_err().message.contains("non-finite"));
        let only: Vec<(String, TensorView<'_>)> = vec![];
        let empty = safetensors::serialize(
            only,
            Some(HashMap::from([(META_KEY.to_string(), "{\"encoder\":\"carroll2019-62\"}".to_string())])),
        )
        .unwrap();
        let e = RlModel::from_safetensors(&empty, "x").unwrap_err();
        assert!(e.message.contains("missing tensor `fc1.weight`"), "{e}");
        let bc_like: Vec<(String, TensorView<'_>)> = vec![];
        let e = RlModel::from_safetensors(&safetensors::serialize(bc_like, None).unwrap(), "x").unwrap_err();
        assert!(e.message.contains("not a model written by"), "{e}");
        let other = serde_json::json!({"encoder": "pixels"}).to_string();
        let e = RlModel::from_safetensors(
            &safetensors::serialize(
                Vec::<(String, TensorView<'_>)>::new(),
                Some(HashMap::from([(META_KEY.to_string(), other)])),
            )
            .unwrap(),
            "x",
        )
        .unwrap_err();
        assert!(e.message.contains("pixels"), "{e}");
        // One checkpoint listed many times is refused before any network is built twice.
        let bytes = model().to_safetensors();
        let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
        let header = String::from_utf8(bytes[8..8 + n].to_vec()).unwrap();
        let twice = header.replace(r#"[\"early\"]"#, r#"[\"early\",\"early\"]"#);
        assert_ne!(twice, header);
        let mut file = (twice.len() as u64).to_le_bytes().to_vec();
        file.extend_from_slice(twice.as_bytes());
        file.extend_from_slice(&bytes[8 + n..]);
        let e = RlModel::from_safetensors(&file, "x").unwrap_err();
        assert!(e.message.contains("listed twice"), "{e}");
        let mut many = model();
        many.checkpoints = (0..=MAX_CHECKPOINTS).map(|i| (format!("c{i}"), Net::new(62, &[8, 5], i as u64))).collect();
        let e = RlModel::from_safetensors(&many.to_safetensors(), "x").unwrap_err();
        assert!(e.message.contains("checkpoints listed"), "{e}");
    }
}
