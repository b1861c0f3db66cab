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
//! "algo", "hidden", "activation", "checkpoints"}`; loading checks the encoder against
//! the ones this build computes.

use super::net::{HEAD_OUTPUTS, MAX_WIDTH, NUM_ACTIONS, Net};
use super::obs::ObsEncoder;
use super::train::Algo;
use crate::bc::matching_builtin;
use proagent_overcooked::env::Layout;
use safetensors::{Dtype, SafeTensors, tensor::TensorView};
use std::collections::HashMap;

/// The metadata key of model files.
pub const META_KEY: &str = "proagent_rl";
/// The model-file format written in the metadata.
pub const FORMAT: &str = "proagent-rl/1";
const MAX_LAYERS: usize = 16;

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
    /// The encoding it reads.
    pub encoder: ObsEncoder,
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
            m.insert("encoder".into(), self.encoder.name().into());
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
        let encoder = ObsEncoder::parse(enc_name).ok_or_else(|| {
            err(format!(
                "trained on observation encoder {enc_name:?}, but this build computes only {:?}",
                ObsEncoder::Features62.name()
            ))
        })?;
        let net = read_net(&st, "", source)?;
        let mut checkpoints = Vec::new();
        if let Some(tags) = info.get("checkpoints").and_then(|v| v.as_array()) {
            for t in tags {
                let tag = t.as_str().ok_or_else(|| err("`checkpoints` must list strings".into()))?;
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
        if o == 0 || o > MAX_WIDTH || i == 0 || i > 1 << 20 {
            return Err(err(format!("`{prefix}fc{k}.weight` has shape {:?}, out of range", w.shape())));
        }
        sizes.push(o);
        k += 1;
        if k > MAX_LAYERS {
            return Err(err(format!("more than {MAX_LAYERS} hidden layers")));
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
    /// Canonical name of the built-in layout.
    pub layout: &'static str,
    /// The algorithm that trained it.
    pub algo: Algo,
    /// The safetensors bytes.
    pub weights: &'static [u8],
    /// The training metadata (JSON): command, configuration, history, evaluations.
    pub metadata: &'static str,
}

macro_rules! shipped {
    ($layout:literal, $algo:ident, $file:literal) => {
        ShippedModel {
            layout: $layout,
            algo: Algo::$algo,
            weights: include_bytes!(concat!("../../../../data/rl/", $file, ".safetensors")),
            metadata: include_str!(concat!("../../../../data/rl/", $file, ".json")),
        }
    };
}

/// The shipped models (see `data/rl/*.json` for how each was trained; docs/rl.md lists
/// which layouts and algorithms are still missing).
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
];

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
    /// Bytes that are not a usable model.
    #[error(transparent)]
    Model(#[from] ModelError),
}

/// The list of shipped models as `layout/algo` names.
pub fn shipped_names() -> String {
    if SHIPPED.is_empty() {
        return "none".into();
    }
    SHIPPED.iter().map(|m| format!("{}/{}", m.layout, m.algo.name())).collect::<Vec<_>>().join(", ")
}

/// The shipped model of `algo` for a layout's terrain.
pub fn shipped_model(l: &Layout, algo: Algo) -> Result<RlModel, LoadError> {
    // By terrain, as for the BC models: a layout file named like a built-in but drawn
    // differently gets no model.
    let found = matching_builtin(l).and_then(|n| SHIPPED.iter().find(|m| m.layout == n && m.algo == algo));
    let m = found.ok_or_else(|| LoadError::NotShipped {
        algo: algo.name(),
        layout: l.name.clone(),
        shipped: shipped_names(),
    })?;
    Ok(RlModel::from_safetensors(m.weights, &format!("shipped:{}_{}", m.layout, algo.name()))?)
}

/// Reads a model file.
pub fn load_file(path: &std::path::Path) -> Result<RlModel, LoadError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|error| LoadError::Read { path: shown.clone(), error })?;
    Ok(RlModel::from_safetensors(&bytes, &shown)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> RlModel {
        let net = Net::new(62, &[8, 5], 4);
        let early = Net::new(62, &[8, 5], 5);
        RlModel {
            net,
            encoder: ObsEncoder::Features62,
            source: "t".into(),
            info: serde_json::json!({"layout": "cramped_room", "algo": "sp"}),
            checkpoints: vec![("early".into(), early)],
        }
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

    /// Shipped learners that barely score with the layout's SP policy.
    const KNOWN_WEAK: &[&str] = &["counter_circuit_fcp"];

    #[test]
    fn shipped_models_load_match_their_metadata_and_play() {
        use super::super::obs::ObsEncoder;
        use super::super::train::play;
        assert!(!SHIPPED.is_empty());
        for m in SHIPPED {
            let name = format!("{}_{}", m.layout, m.algo.name());
            assert!(m.weights.len() < 1 << 20, "{name}: {} bytes", m.weights.len());
            let l = Layout::builtin(m.layout).unwrap();
            let model = shipped_model(&l, m.algo).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!((model.layout(), model.algo()), (Some(m.layout), Some(m.algo)), "{name}");
            assert_eq!(model.encoder, ObsEncoder::Features62);
            let meta: serde_json::Value =
                serde_json::from_str(m.metadata).unwrap_or_else(|e| panic!("{name}.json: {e}"));
            let cmd = meta["command"].as_str().unwrap_or_default();
            let want = format!("proagent rl train --algo {} --layout {} ", m.algo.name(), m.layout);
            assert!(cmd.starts_with(&want) && cmd.ends_with(&format!("--out data/rl/{name}.safetensors")), "{cmd}");
            assert_eq!(meta["architecture"]["parameters"].as_u64(), Some(model.net.params.len() as u64), "{name}");
            // Two seeded episodes: every shipped policy cooks on its own layout. SP and PBT
            // policies play themselves; FCP and MEP learners were trained to partner a
            // pool, not themselves (coordination_ring's FCP scores 0 in self-play, see
            // docs/rl.md), so they play the layout's SP policy, in both seats.
            let enc = ObsEncoder::Features62.for_layout(&l);
            let sp = shipped_model(&l, Algo::Sp).unwrap_or_else(|e| panic!("{name}: {e}"));
            let scores = match m.algo {
                Algo::Sp | Algo::Pbt => play(&l, &enc, 62, &model.net, &model.net, 2, 400, 5, 1),
                Algo::Fcp | Algo::Mep => {
                    let mut s = play(&l, &enc, 62, &model.net, &sp.net, 1, 400, 5, 1);
                    s.extend(play(&l, &enc, 62, &sp.net, &model.net, 1, 400, 5, 1));
                    s
                }
            };
            // Known weak with the SP policy (docs/results.md says so): it must at least
            // have cooked with its own training partners, as its metadata records.
            if KNOWN_WEAK.contains(&name.as_str()) {
                let best = meta["evaluations"].as_array().into_iter().flatten().filter_map(|e| e["mean"].as_f64());
                assert!(best.fold(0.0, f64::max) >= 40.0, "{name}: no evaluation of 40 or more");
                assert!(
                    scores.iter().sum::<u32>() < 40,
                    "{name} now cooks with sp ({scores:?}): drop it from KNOWN_WEAK"
                );
            } else {
                assert!(scores.iter().sum::<u32>() >= 40, "{name}: scores {scores:?}");
            }
        }
        // A layout with another terrain has none.
        let other = Layout::from_grid("tiny", &["XXPXX", "O1 2O", "XDXSX"]).unwrap();
        let e = shipped_model(&other, Algo::Sp).unwrap_err().to_string();
        assert!(e.contains("no shipped sp model for layout \"tiny\""), "{e}");
    }

    #[test]
    fn malformed_files_are_clear_errors() {
        let good = model().to_safetensors();
        let e = RlModel::from_safetensors(&good[..good.len() / 2], "half.safetensors").unwrap_err();
        assert!(e.to_string().starts_with("half.safetensors: "), "{e}");
        let mut m = model();
        m.encoder = ObsEncoder::Features62;
        m.net.params[3] = f32::NAN;
        let e = RlModel::from_safetensors(&m.to_safetensors(), "x").unwrap_err();
        assert!(e.message.contains("non-finite"), "{e}");
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
    }
}
