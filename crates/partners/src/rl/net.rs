//! The policy-value network: a small MLP in plain Rust with a hand-written backward pass.
//!
//! Input → hidden layers (ReLU) → one head of seven outputs: the six action logits
//! (N, S, E, W, stay, interact) and the state value. The trunk is shared by the policy
//! and the value, as in the 2019 PPO agents.
//!
//! All parameters live in one flat vector (Adam, gradient clipping, PBT's weight copies
//! and serialisation are then one loop each). Layer `k` stores its weight as an
//! `inputs × outputs` row-major block (so a sample's forward pass is a sequence of
//! contiguous `y += x_i · w_i` updates that the compiler vectorises), then its bias.
//!
//! Determinism: every sum runs in a fixed order that does not depend on the batch a
//! sample is in, the number of threads or the CPU's vector width (vector lanes only ever
//! split independent outputs; the one reduction, [`dot`], uses eight fixed lanes). No
//! fused multiply-adds are generated without target flags, so the same parameters and
//! inputs give bit-identical outputs and gradients on every x86-64 machine.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Number of actions (the first six outputs).
pub const NUM_ACTIONS: usize = 6;
/// Outputs of the head: six logits and the value.
pub const HEAD_OUTPUTS: usize = NUM_ACTIONS + 1;
/// Largest hidden width a model file may declare.
pub const MAX_WIDTH: usize = 4096;

/// An MLP's shape and parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct Net {
    /// Layer widths from the input to the head: `[inputs, h1, …, hk, 7]`.
    pub sizes: Vec<usize>,
    /// All weights and biases, layer by layer (weight `inputs × outputs` row-major, then bias).
    pub params: Vec<f32>,
}

/// Scratch space for a batch: each layer's output (post-activation for hidden layers).
#[derive(Clone, Debug, Default)]
pub struct Workspace {
    acts: Vec<Vec<f32>>,
    dy: Vec<f32>,
    dx: Vec<f32>,
    batch: usize,
}

impl Net {
    /// A network with `inputs` inputs and the given hidden widths, initialised from `seed`:
    /// weights uniform in ±√(6 / (fan_in + fan_out)) · gain (ReLU gain √2 for the trunk,
    /// 0.01 for the logits and 1 for the value, so the first policy is near uniform),
    /// biases zero.
    pub fn new(inputs: usize, hidden: &[usize], seed: u64) -> Net {
        let mut sizes = vec![inputs];
        sizes.extend_from_slice(hidden);
        sizes.push(HEAD_OUTPUTS);
        let total: usize = sizes.windows(2).map(|w| w[0] * w[1] + w[1]).sum();
        let mut params = vec![0f32; total];
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut off = 0;
        let layers = sizes.len() - 1;
        for k in 0..layers {
            let (n_in, n_out) = (sizes[k], sizes[k + 1]);
            let limit = (6.0 / (n_in + n_out) as f64).sqrt();
            for i in 0..n_in {
                for o in 0..n_out {
                    let gain = if k + 1 < layers {
                        std::f64::consts::SQRT_2
                    } else if o < NUM_ACTIONS {
                        0.01
                    } else {
                        1.0
                    };
                    let u: f64 = rng.random_range(-1.0..1.0);
                    params[off + i * n_out + o] = (u * limit * gain) as f32;
                }
            }
            off += n_in * n_out + n_out;
        }
        Net { sizes, params }
    }

    /// Input length.
    pub fn inputs(&self) -> usize {
        self.sizes[0]
    }

    /// Hidden widths.
    pub fn hidden(&self) -> &[usize] {
        &self.sizes[1..self.sizes.len() - 1]
    }

    /// Number of layers (hidden layers + the head).
    pub fn layers(&self) -> usize {
        self.sizes.len() - 1
    }

    /// Offsets of layer `k`'s weight and bias in [`Net::params`].
    pub fn offsets(&self, k: usize) -> (usize, usize) {
        let mut off = 0;
        for j in 0..k {
            off += self.sizes[j] * self.sizes[j + 1] + self.sizes[j + 1];
        }
        (off, off + self.sizes[k] * self.sizes[k + 1])
    }

    /// Forward pass over `batch` samples (`x` is `batch × inputs`). The head's outputs
    /// (`batch × 7`) are [`Workspace::output`] afterwards.
    pub fn forward(&self, x: &[f32], batch: usize, ws: &mut Workspace) {
        let layers = self.layers();
        ws.batch = batch;
        ws.acts.resize_with(layers, Vec::new);
        for k in 0..layers {
            let (n_in, n_out) = (self.sizes[k], self.sizes[k + 1]);
            let (wo, bo) = self.offsets(k);
            let w = &self.params[wo..bo];
            let b = &self.params[bo..bo + n_out];
            let mut y = std::mem::take(&mut ws.acts[k]);
            y.resize(batch * n_out, 0.0);
            let input: &[f32] = if k == 0 { x } else { &ws.acts[k - 1] };
            dense_forward(w, b, input, &mut y, n_in, n_out, batch, k + 1 < layers);
            ws.acts[k] = y;
        }
    }

    /// Backward pass after [`Net::forward`] on the same `x`: `dout` is ∂loss/∂output
    /// (`batch × 7`); the parameter gradient is added into `grad` (same layout as `params`).
    pub fn backward(&self, x: &[f32], ws: &mut Workspace, dout: &[f32], grad: &mut [f32]) {
        let layers = self.layers();
        let batch = ws.batch;
        let mut dy = std::mem::take(&mut ws.dy);
        let mut dx = std::mem::take(&mut ws.dx);
        dy.clear();
        dy.extend_from_slice(&dout[..batch * HEAD_OUTPUTS]);
        for k in (0..layers).rev() {
            let (n_in, n_out) = (self.sizes[k], self.sizes[k + 1]);
            let (wo, bo) = self.offsets(k);
            let input: &[f32] = if k == 0 { x } else { &ws.acts[k - 1] };
            let (gw, gb) = grad[wo..bo + n_out].split_at_mut(n_in * n_out);
            for s in 0..batch {
                let d = &dy[s * n_out..(s + 1) * n_out];
                for (g, &v) in gb.iter_mut().zip(d) {
                    *g += v;
                }
                let xs = &input[s * n_in..(s + 1) * n_in];
                for (i, &xi) in xs.iter().enumerate() {
                    if xi == 0.0 {
                        continue;
                    }
                    let row = &mut gw[i * n_out..(i + 1) * n_out];
                    for (g, &v) in row.iter_mut().zip(d) {
                        *g += xi * v;
                    }
                }
            }
            if k == 0 {
                break;
            }
            // ∂loss/∂(layer k's input), through the ReLU of layer k - 1 (zero where it was off).
            dx.clear();
            dx.resize(batch * n_in, 0.0);
            let w = &self.params[wo..bo];
            for s in 0..batch {
                let d = &dy[s * n_out..(s + 1) * n_out];
                let a = &input[s * n_in..(s + 1) * n_in];
                let out = &mut dx[s * n_in..(s + 1) * n_in];
                for i in 0..n_in {
                    if a[i] > 0.0 {
                        out[i] = dot(&w[i * n_out..(i + 1) * n_out], d);
                    }
                }
            }
            std::mem::swap(&mut dy, &mut dx);
        }
        ws.dy = dy;
        ws.dx = dx;
    }
}

impl Workspace {
    /// The head's outputs of the last forward pass: `batch × 7` (six logits, then the value).
    pub fn output(&self) -> &[f32] {
        self.acts.last().map_or(&[], |v| &v[..self.batch * HEAD_OUTPUTS])
    }
}

/// `y = x · w + b` for a batch (optionally followed by ReLU); `w` is `n_in × n_out`.
#[allow(clippy::too_many_arguments)]
fn dense_forward(w: &[f32], b: &[f32], x: &[f32], y: &mut [f32], n_in: usize, n_out: usize, batch: usize, relu: bool) {
    for s in 0..batch {
        let xs = &x[s * n_in..(s + 1) * n_in];
        let ys = &mut y[s * n_out..(s + 1) * n_out];
        ys.copy_from_slice(b);
        for (i, &xi) in xs.iter().enumerate() {
            // Features are sparse and half the ReLU outputs are zero: skipping them is exact.
            if xi == 0.0 {
                continue;
            }
            let row = &w[i * n_out..(i + 1) * n_out];
            for (v, &wv) in ys.iter_mut().zip(row) {
                *v += xi * wv;
            }
        }
        if relu {
            for v in ys.iter_mut() {
                *v = v.max(0.0);
            }
        }
    }
}

/// Dot product with eight fixed accumulator lanes (vectorisable, same result everywhere).
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    let mut s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

/// Softmax of six logits in f32, with the log-probabilities (numerically stable).
pub fn log_softmax(logits: &[f32]) -> [f32; NUM_ACTIONS] {
    let max = logits[..NUM_ACTIONS].iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0f32;
    for &z in &logits[..NUM_ACTIONS] {
        sum += (z - max).exp();
    }
    let lse = max + sum.ln();
    let mut out = [0f32; NUM_ACTIONS];
    for (o, &z) in out.iter_mut().zip(&logits[..NUM_ACTIONS]) {
        *o = z - lse;
    }
    out
}

/// Adam with bias correction (Kingma & Ba), over a flat parameter vector.
#[derive(Clone, Debug, PartialEq)]
pub struct Adam {
    /// First-moment estimates.
    pub m: Vec<f32>,
    /// Second-moment estimates.
    pub v: Vec<f32>,
    /// Steps taken.
    pub t: u32,
}

impl Adam {
    /// Zero state for `n` parameters.
    pub fn new(n: usize) -> Adam {
        Adam { m: vec![0.0; n], v: vec![0.0; n], t: 0 }
    }

    /// One step of size `lr` along `grad` (β₁ = 0.9, β₂ = 0.999, ε = 1e-5 as in the 2019 baselines).
    pub fn step(&mut self, params: &mut [f32], grad: &[f32], lr: f32) {
        const B1: f32 = 0.9;
        const B2: f32 = 0.999;
        const EPS: f32 = 1e-5;
        self.t += 1;
        let c1 = 1.0 - B1.powi(self.t as i32);
        let c2 = 1.0 - B2.powi(self.t as i32);
        let step = lr * c2.sqrt() / c1;
        for i in 0..params.len() {
            let g = grad[i];
            self.m[i] = B1 * self.m[i] + (1.0 - B1) * g;
            self.v[i] = B2 * self.v[i] + (1.0 - B2) * g * g;
            params[i] -= step * self.m[i] / (self.v[i].sqrt() + EPS);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scalar loss of the outputs: Σ c_j · out_j with fixed coefficients.
    fn loss(net: &Net, x: &[f32], batch: usize) -> f64 {
        let mut ws = Workspace::default();
        net.forward(x, batch, &mut ws);
        ws.output().iter().enumerate().map(|(j, &o)| o as f64 * coef(j)).sum()
    }

    fn coef(j: usize) -> f64 {
        ((j as f64) * 0.7).sin()
    }

    #[test]
    fn gradients_match_finite_differences() {
        let mut net = Net::new(5, &[4, 3], 7);
        // Biases away from zero so no ReLU sits at its kink.
        for k in 0..net.layers() {
            let (_, bo) = net.offsets(k);
            for j in 0..net.sizes[k + 1] {
                net.params[bo + j] = 0.3 + 0.1 * j as f32;
            }
        }
        let batch = 3;
        let x: Vec<f32> = (0..batch * 5).map(|i| ((i as f32) * 1.3).cos()).collect();
        let mut ws = Workspace::default();
        net.forward(&x, batch, &mut ws);
        let dout: Vec<f32> = (0..batch * HEAD_OUTPUTS).map(|j| coef(j) as f32).collect();
        let mut grad = vec![0f32; net.params.len()];
        net.backward(&x, &mut ws, &dout, &mut grad);
        for p in 0..net.params.len() {
            let h = 1e-2f32;
            let mut a = net.clone();
            a.params[p] += h;
            let mut b = net.clone();
            b.params[p] -= h;
            let fd = (loss(&a, &x, batch) - loss(&b, &x, batch)) / (2.0 * h as f64);
            assert!((fd - grad[p] as f64).abs() < 2e-3, "param {p}: finite difference {fd}, backward {}", grad[p]);
        }
    }

    #[test]
    fn a_sample_gives_the_same_output_in_any_batch() {
        let net = Net::new(62, &[16, 16], 3);
        let x: Vec<f32> = (0..4 * 62).map(|i| (i % 7) as f32 - 3.0).collect();
        let mut ws = Workspace::default();
        net.forward(&x, 4, &mut ws);
        let all = ws.output().to_vec();
        net.forward(&x[2 * 62..3 * 62], 1, &mut ws);
        assert_eq!(ws.output(), &all[2 * HEAD_OUTPUTS..3 * HEAD_OUTPUTS]);
        // Near-uniform first policy: small logits.
        assert!(all.chunks(HEAD_OUTPUTS).all(|o| o[..NUM_ACTIONS].iter().all(|z| z.abs() < 0.5)));
    }

    #[test]
    fn dot_and_log_softmax() {
        let a: Vec<f32> = (0..19).map(|i| i as f32).collect();
        let b = vec![1f32; 19];
        assert_eq!(dot(&a, &b), 171.0);
        let l = log_softmax(&[0.0, 0.0, 0.0, 0.0, 0.0, 0.0]);
        assert!(l.iter().all(|v| (v - (1.0f32 / 6.0).ln()).abs() < 1e-6));
        let l = log_softmax(&[1000.0, 0.0, 0.0, 0.0, 0.0, 0.0, 5.0]);
        assert!(l[0].abs() < 1e-6 && l[1] < -999.0);
    }

    #[test]
    fn adam_moves_against_the_gradient() {
        let mut p = vec![1.0f32, -1.0];
        let mut opt = Adam::new(2);
        opt.step(&mut p, &[2.0, -3.0], 0.1);
        // The first bias-corrected step is lr · sign(g) (up to ε).
        assert!((p[0] - 0.9).abs() < 1e-4 && (p[1] + 0.9).abs() < 1e-4, "{p:?}");
    }
}
