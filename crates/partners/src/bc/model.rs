//! A trained BC policy: an MLP from the 62 features to the six action logits,
//! stored as safetensors and evaluated in plain Rust at play time (a few
//! thousand multiply-adds, far cheaper than building tensors per step).
//!
//! Tensor names: `fc1.weight` (h1 × 62), `fc1.bias` (h1), `fc2.weight` (h2 × h1),
//! `fc2.bias` (h2), `out.weight` (6 × h2), `out.bias` (6), all f32, weights in
//! the (out, in) convention of `candle_nn::Linear`. Hidden layers use tanh.

use super::features::{FEATURE_SET, NUM_FEATURES};
use safetensors::{Dtype, SafeTensors, tensor::TensorView};
use std::collections::HashMap;

/// Number of outputs: N, S, E, W, stay, interact.
pub const NUM_ACTIONS: usize = 6;
/// The one `__metadata__` key we write (a single key keeps the header byte-stable).
pub const META_KEY: &str = "proagent_bc";
/// Layer names in forward order.
pub const LAYERS: [&str; 3] = ["fc1", "fc2", "out"];
const MAX_HIDDEN: usize = 4096;

/// A weight file that cannot be used; `source` names the file (or shipped model).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{origin}: {message}")]
pub struct ModelError {
    /// The file (or `shipped:<layout>_<split>`) the weights came from.
    pub origin: String,
    /// What is wrong with the weights (missing tensor, wrong shape, non-finite value, …).
    pub message: String,
}

/// One dense layer, weights row-major (out × in).
#[derive(Clone, Debug, PartialEq)]
pub struct Dense {
    /// Length of the input vector.
    pub inputs: usize,
    /// Length of the output vector.
    pub outputs: usize,
    /// Row-major `outputs × inputs` weights.
    pub weight: Vec<f32>,
    /// One bias per output.
    pub bias: Vec<f32>,
}

impl Dense {
    fn apply(&self, x: &[f32], y: &mut [f32], tanh: bool) {
        for (o, out) in y.iter_mut().enumerate().take(self.outputs) {
            let row = &self.weight[o * self.inputs..(o + 1) * self.inputs];
            let mut acc = self.bias[o];
            for (w, v) in row.iter().zip(x) {
                acc += w * v;
            }
            *out = if tanh { acc.tanh() } else { acc };
        }
    }
}

/// The MLP of a BC policy.
#[derive(Clone, Debug, PartialEq)]
pub struct BcModel {
    /// Input → hidden (tanh) → hidden (tanh) → six action logits.
    pub layers: [Dense; 3],
    /// Where the weights came from (file path or `shipped:<layout>_<split>`).
    pub source: String,
}

impl BcModel {
    /// Widths of the two hidden layers.
    pub fn hidden(&self) -> [usize; 2] {
        [self.layers[0].outputs, self.layers[1].outputs]
    }

    /// The six action logits for one feature vector.
    pub fn logits(&self, x: &[f32; NUM_FEATURES]) -> [f32; NUM_ACTIONS] {
        let [h1, h2] = self.hidden();
        let mut a = vec![0f32; h1];
        let mut b = vec![0f32; h2];
        let mut out = [0f32; NUM_ACTIONS];
        self.layers[0].apply(x, &mut a, true);
        self.layers[1].apply(&a, &mut b, true);
        self.layers[2].apply(&b, &mut out, false);
        out
    }

    /// Softmax of the logits, in f64.
    pub fn probabilities(&self, x: &[f32; NUM_FEATURES]) -> [f64; NUM_ACTIONS] {
        softmax(&self.logits(x))
    }

    /// Reads and checks a safetensors file's bytes.
    pub fn from_safetensors(bytes: &[u8], source: &str) -> Result<BcModel, ModelError> {
        let err = |message: String| ModelError { origin: source.to_string(), message };
        let st = SafeTensors::deserialize(bytes).map_err(|e| err(format!("not a safetensors file: {e}")))?;
        let (_, meta) = SafeTensors::read_metadata(bytes).map_err(|e| err(format!("bad safetensors header: {e}")))?;
        if let Some(v) = meta.metadata().as_ref().and_then(|m| m.get(META_KEY)) {
            let info: serde_json::Value =
                serde_json::from_str(v).map_err(|e| err(format!("`{META_KEY}` metadata is not JSON: {e}")))?;
            if let Some(fs) = info.get("features").and_then(|f| f.as_str())
                && fs != FEATURE_SET
            {
                return Err(err(format!("trained on feature set {fs:?}, but this build computes {FEATURE_SET:?}")));
            }
        }
        let mut inputs = NUM_FEATURES;
        let mut layers = Vec::with_capacity(3);
        for (k, name) in LAYERS.iter().enumerate() {
            let w = tensor(&st, &format!("{name}.weight"), source)?;
            let b = tensor(&st, &format!("{name}.bias"), source)?;
            let (outputs, w_in) = match w.shape() {
                &[o, i] => (o, i),
                s => return Err(err(format!("`{name}.weight` has shape {s:?}, expected 2 dimensions"))),
            };
            if w_in != inputs {
                return Err(err(format!("`{name}.weight` takes {w_in} inputs, expected {inputs}")));
            }
            let last = k == LAYERS.len() - 1;
            if last && outputs != NUM_ACTIONS {
                return Err(err(format!("`{name}.weight` has {outputs} outputs, expected {NUM_ACTIONS} actions")));
            }
            if outputs == 0 || outputs > MAX_HIDDEN {
                return Err(err(format!("`{name}.weight` has {outputs} outputs (expected 1 to {MAX_HIDDEN})")));
            }
            if b.shape() != [outputs] {
                return Err(err(format!("`{name}.bias` has shape {:?}, expected [{outputs}]", b.shape())));
            }
            let weight = f32s(&w, &format!("{name}.weight"), source)?;
            let bias = f32s(&b, &format!("{name}.bias"), source)?;
            layers.push(Dense { inputs, outputs, weight, bias });
            inputs = outputs;
        }
        let layers: [Dense; 3] = layers.try_into().map_err(|_| err("expected three layers".into()))?;
        Ok(BcModel { layers, source: source.to_string() })
    }

    /// The weights as safetensors bytes, with `info` as the one metadata entry.
    pub fn to_safetensors(&self, info: &serde_json::Value) -> Vec<u8> {
        let mut bufs: Vec<(String, Vec<usize>, Vec<u8>)> = Vec::new();
        for (name, l) in LAYERS.iter().zip(&self.layers) {
            bufs.push((format!("{name}.weight"), vec![l.outputs, l.inputs], bytes_of(&l.weight)));
            bufs.push((format!("{name}.bias"), vec![l.outputs], bytes_of(&l.bias)));
        }
        let views: Vec<(String, TensorView<'_>)> = bufs
            .iter()
            .map(|(n, shape, data)| {
                // Shapes and lengths come from the layers themselves, so the view is valid.
                let view = TensorView::new(Dtype::F32, shape.clone(), data)
                    .unwrap_or_else(|_| unreachable!("tensor {n}: data length matches its shape by construction"));
                (n.clone(), view)
            })
            .collect();
        let meta = HashMap::from([(META_KEY.to_string(), info.to_string())]);
        safetensors::serialize(views, Some(meta))
            .unwrap_or_else(|e| unreachable!("serialising in-memory f32 tensors cannot fail: {e}"))
    }
}

/// The layout a BC model file's metadata records, if it records one.
pub fn recorded_layout(bytes: &[u8]) -> Option<String> {
    let (_, meta) = SafeTensors::read_metadata(bytes).ok()?;
    let raw = meta.metadata().as_ref()?.get(META_KEY)?;
    let info: serde_json::Value = serde_json::from_str(raw).ok()?;
    info.get("layout")?.as_str().map(str::to_string)
}

fn tensor<'a>(st: &SafeTensors<'a>, name: &str, source: &str) -> Result<TensorView<'a>, ModelError> {
    st.tensor(name).map_err(|_| ModelError {
        origin: source.to_string(),
        message: format!("missing tensor `{name}` (a BC model has {})", expected_names()),
    })
}

fn expected_names() -> String {
    LAYERS.iter().map(|l| format!("{l}.weight, {l}.bias")).collect::<Vec<_>>().join(", ")
}

fn f32s(v: &TensorView<'_>, name: &str, source: &str) -> Result<Vec<f32>, ModelError> {
    let err = |message: String| ModelError { origin: source.to_string(), message };
    if v.dtype() != Dtype::F32 {
        return Err(err(format!("`{name}` is {:?}, expected F32", v.dtype())));
    }
    let out: Vec<f32> = v.data().chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    if let Some(i) = out.iter().position(|x| !x.is_finite()) {
        return Err(err(format!("`{name}` holds a non-finite value at index {i}")));
    }
    Ok(out)
}

fn bytes_of(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Numerically stable softmax in f64.
pub fn softmax(logits: &[f32; NUM_ACTIONS]) -> [f64; NUM_ACTIONS] {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max) as f64;
    let mut p = [0f64; NUM_ACTIONS];
    let mut sum = 0.0;
    for (o, &l) in p.iter_mut().zip(logits) {
        *o = (l as f64 - max).exp();
        sum += *o;
    }
    for o in &mut p {
        *o /= sum;
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> BcModel {
        let dense = |inputs: usize, outputs: usize, seed: f32| Dense {
            inputs,
            outputs,
            weight: (0..inputs * outputs).map(|i| ((i as f32 * 0.37 + seed).sin()) * 0.3).collect(),
            bias: (0..outputs).map(|i| (i as f32 - seed) * 0.01).collect(),
        };
        BcModel { layers: [dense(62, 5, 1.0), dense(5, 4, 2.0), dense(4, 6, 3.0)], source: "t".into() }
    }

    #[test]
    fn safetensors_round_trip_and_probabilities() {
        let m = tiny();
        let bytes = m.to_safetensors(&serde_json::json!({"features": FEATURE_SET}));
        let back = BcModel::from_safetensors(&bytes, "t").unwrap();
        assert_eq!(back, m);
        let x = [0.5f32; NUM_FEATURES];
        let p = back.probabilities(&x);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!(p.iter().all(|&v| v > 0.0));
    }

    #[test]
    fn malformed_weight_files_are_clear_errors() {
        let m = tiny();
        let good = m.to_safetensors(&serde_json::json!({}));
        let e = BcModel::from_safetensors(&good[..good.len() / 2], "half.safetensors").unwrap_err();
        assert!(e.to_string().starts_with("half.safetensors: "), "{e}");
        let e = BcModel::from_safetensors(b"hello", "x").unwrap_err();
        assert!(e.message.contains("not a safetensors file"), "{e}");
        let other = m.to_safetensors(&serde_json::json!({"features": "pixels-v9"}));
        assert!(BcModel::from_safetensors(&other, "x").unwrap_err().message.contains("pixels-v9"));
        // Missing layer and wrong input width.
        let mut wrong = m.clone();
        wrong.layers[0] = Dense { inputs: 61, outputs: 5, weight: vec![0.0; 305], bias: vec![0.0; 5] };
        let e = BcModel::from_safetensors(&wrong.to_safetensors(&serde_json::json!({})), "x").unwrap_err();
        assert!(e.message.contains("takes 61 inputs, expected 62"), "{e}");
        let only: Vec<(String, TensorView<'_>)> = vec![];
        let empty = safetensors::serialize(only, None).unwrap();
        let e = BcModel::from_safetensors(&empty, "x").unwrap_err();
        assert!(e.message.contains("missing tensor `fc1.weight`"), "{e}");
        let mut nan = m.clone();
        nan.layers[2].bias[3] = f32::NAN;
        let e = BcModel::from_safetensors(&nan.to_safetensors(&serde_json::json!({})), "x").unwrap_err();
        assert!(e.message.contains("non-finite"), "{e}");
    }
}
