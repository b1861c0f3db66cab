//! PPO's arithmetic: generalised advantage estimation, the clipped surrogate loss with
//! its gradient with respect to the network's outputs, and one update (epochs ×
//! shuffled minibatches, global gradient-norm clipping, Adam).
//!
//! Loss per sample (averaged over a minibatch), as in the 2019 baselines' PPO2:
//! `−min(ρ·A, clip(ρ, 1−ε, 1+ε)·A) + c_v · ½(V − R)² − c_H · H(π)`, where
//! `ρ = π(a|s) / π_old(a|s)`, advantages are normalised per minibatch, `R = A_GAE + V_old`.
//!
//! Determinism: minibatches are drawn by a seeded shuffle; a minibatch's gradient is the
//! sum, in a fixed order, of the gradients of fixed chunks of [`CHUNK`] samples, each
//! computed from zero — so the result is the same for any number of threads.

use super::net::{Adam, HEAD_OUTPUTS, NUM_ACTIONS, Net, Workspace, log_softmax};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Samples per gradient chunk (the unit of work of a thread).
pub const CHUNK: usize = 256;

/// PPO hyper-parameters (the ones PBT mutates are marked).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PpoConfig {
    /// Adam step size (mutated by PBT).
    pub lr: f64,
    /// Clipping range ε of the probability ratio (mutated by PBT).
    pub clip: f64,
    /// Entropy bonus coefficient c_H (mutated by PBT).
    pub ent_coef: f64,
    /// Value-loss coefficient c_v (mutated by PBT).
    pub vf_coef: f64,
    /// Global gradient-norm limit.
    pub max_grad_norm: f64,
    /// Passes over each batch.
    pub epochs: usize,
    /// Minibatches per pass.
    pub minibatches: usize,
    /// Discount γ.
    pub gamma: f64,
    /// GAE λ (mutated by PBT).
    pub lambda: f64,
}

impl Default for PpoConfig {
    fn default() -> Self {
        // Tuned on cramped_room SP (docs/rl.md, "Tuning"): the small value coefficient keeps
        // the value loss from swamping the shared trunk's gradient, which stalled learning
        // at the 2019 value of 0.5.
        PpoConfig {
            lr: 3e-3,
            clip: 0.1,
            ent_coef: 0.005,
            vf_coef: 0.02,
            max_grad_norm: 5.0,
            epochs: 4,
            minibatches: 4,
            gamma: 0.99,
            lambda: 0.98,
        }
    }
}

/// GAE(γ, λ) over one trajectory that ends in a terminal state (the episode's horizon):
/// writes the advantages and the value targets `adv + value`.
pub fn gae(rewards: &[f32], values: &[f32], gamma: f32, lambda: f32, adv: &mut [f32], ret: &mut [f32]) {
    let mut next_value = 0f32;
    let mut last = 0f32;
    for t in (0..rewards.len()).rev() {
        let delta = rewards[t] + gamma * next_value - values[t];
        last = delta + gamma * lambda * last;
        adv[t] = last;
        ret[t] = last + values[t];
        next_value = values[t];
    }
}

/// The loss terms of one sample.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SampleLoss {
    /// The clipped surrogate (to be minimised).
    pub policy: f32,
    /// ½ (V − R)².
    pub value: f32,
    /// Entropy of the current policy.
    pub entropy: f32,
    /// Whether the clipped term was the binding one (no policy gradient).
    pub clipped: bool,
    /// old log-prob − new log-prob of the action taken (for the approximate KL).
    pub log_ratio_neg: f32,
}

/// One sample's loss and its gradient with respect to the seven outputs, scaled by
/// `scale` (1 / minibatch size), written into `dout`.
#[allow(clippy::too_many_arguments)]
pub fn sample_grad(
    out: &[f32],
    action: usize,
    old_logp: f32,
    adv: f32,
    ret: f32,
    cfg: &PpoConfig,
    scale: f32,
    dout: &mut [f32],
) -> SampleLoss {
    let logp = log_softmax(out);
    let mut p = [0f32; NUM_ACTIONS];
    let mut entropy = 0f32;
    for j in 0..NUM_ACTIONS {
        p[j] = logp[j].exp();
        entropy -= p[j] * logp[j];
    }
    let ratio = (logp[action] - old_logp).exp();
    let unclipped = ratio * adv;
    let clip = cfg.clip as f32;
    let clipped_ratio = ratio.clamp(1.0 - clip, 1.0 + clip);
    let clipped_obj = clipped_ratio * adv;
    // min(unclipped, clipped): the gradient flows only when the unclipped term is the minimum.
    let (objective, active) = if unclipped <= clipped_obj { (unclipped, true) } else { (clipped_obj, false) };
    // ∂(−objective)/∂log π(a) = −ρ A when active; ∂log π(a)/∂z_j = 1[j = a] − p_j.
    let g_logp = if active { -ratio * adv } else { 0.0 };
    for j in 0..NUM_ACTIONS {
        let ind = if j == action { 1.0 } else { 0.0 };
        let policy = g_logp * (ind - p[j]);
        // ∂(−c_H H)/∂z_j = c_H p_j (log p_j + H).
        let ent = cfg.ent_coef as f32 * p[j] * (logp[j] + entropy);
        dout[j] = scale * (policy + ent);
    }
    let v = out[NUM_ACTIONS];
    dout[NUM_ACTIONS] = scale * cfg.vf_coef as f32 * (v - ret);
    SampleLoss {
        policy: -objective,
        value: 0.5 * (v - ret) * (v - ret),
        entropy,
        clipped: !active,
        log_ratio_neg: old_logp - logp[action],
    }
}

/// The training data of one update: `n` samples.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    /// Input length.
    pub dim: usize,
    /// `n × dim` observations.
    pub obs: Vec<f32>,
    /// Actions taken (index into `Action::ALL`).
    pub actions: Vec<u8>,
    /// Log-probability of the action under the policy that acted.
    pub logp: Vec<f32>,
    /// GAE advantages.
    pub adv: Vec<f32>,
    /// Value targets.
    pub ret: Vec<f32>,
}

impl Batch {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.actions.len()
    }

    /// True without samples.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }
}

/// Means over an update's minibatch steps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct UpdateStats {
    /// Mean clipped surrogate loss.
    pub policy_loss: f64,
    /// Mean ½(V − R)².
    pub value_loss: f64,
    /// Mean policy entropy (nats).
    pub entropy: f64,
    /// Fraction of samples whose ratio was clipped.
    pub clip_fraction: f64,
    /// Mean old − new log-probability (approximate KL).
    pub approx_kl: f64,
    /// Mean gradient norm before clipping.
    pub grad_norm: f64,
    /// Minibatch steps taken.
    pub steps: usize,
}

#[derive(Clone, Copy, Default)]
struct Sums {
    policy: f64,
    value: f64,
    entropy: f64,
    clipped: f64,
    kl: f64,
}

/// One minibatch chunk: gradient from zero and loss sums.
fn chunk_grad(
    net: &Net,
    mb: &MiniBatch,
    range: std::ops::Range<usize>,
    cfg: &PpoConfig,
    scale: f32,
) -> (Vec<f32>, Sums) {
    let mut grad = vec![0f32; net.params.len()];
    let n = range.len();
    let dim = mb.dim;
    let x = &mb.obs[range.start * dim..range.end * dim];
    let mut ws = Workspace::default();
    net.forward(x, n, &mut ws);
    let mut dout = vec![0f32; n * HEAD_OUTPUTS];
    let mut sums = Sums::default();
    for (k, i) in range.enumerate() {
        let out = &ws.output()[k * HEAD_OUTPUTS..(k + 1) * HEAD_OUTPUTS];
        let l = sample_grad(
            out,
            mb.actions[i] as usize,
            mb.logp[i],
            mb.adv[i],
            mb.ret[i],
            cfg,
            scale,
            &mut dout[k * HEAD_OUTPUTS..(k + 1) * HEAD_OUTPUTS],
        );
        sums.policy += l.policy as f64;
        sums.value += l.value as f64;
        sums.entropy += l.entropy as f64;
        sums.clipped += l.clipped as u8 as f64;
        sums.kl += l.log_ratio_neg as f64;
    }
    net.backward(x, &mut ws, &dout, &mut grad);
    (grad, sums)
}

/// A gathered minibatch (contiguous copies, advantages normalised).
struct MiniBatch {
    dim: usize,
    obs: Vec<f32>,
    actions: Vec<u8>,
    logp: Vec<f32>,
    adv: Vec<f32>,
    ret: Vec<f32>,
}

impl MiniBatch {
    fn gather(b: &Batch, idx: &[usize]) -> MiniBatch {
        let dim = b.dim;
        let mut obs = Vec::with_capacity(idx.len() * dim);
        for &i in idx {
            obs.extend_from_slice(&b.obs[i * dim..(i + 1) * dim]);
        }
        let mut adv: Vec<f32> = idx.iter().map(|&i| b.adv[i]).collect();
        let n = adv.len().max(1) as f64;
        let mean = adv.iter().map(|&a| a as f64).sum::<f64>() / n;
        let var = adv.iter().map(|&a| (a as f64 - mean).powi(2)).sum::<f64>() / n;
        let sd = var.sqrt() + 1e-8;
        for a in &mut adv {
            *a = ((*a as f64 - mean) / sd) as f32;
        }
        MiniBatch {
            dim,
            obs,
            actions: idx.iter().map(|&i| b.actions[i]).collect(),
            logp: idx.iter().map(|&i| b.logp[i]).collect(),
            adv,
            ret: idx.iter().map(|&i| b.ret[i]).collect(),
        }
    }
}

/// The minibatch's gradient (chunks in order, each on some thread) and loss sums.
fn minibatch_grad(net: &Net, mb: &MiniBatch, cfg: &PpoConfig, threads: usize) -> (Vec<f32>, Sums) {
    let n = mb.actions.len();
    let scale = 1.0 / n as f32;
    let chunks: Vec<std::ops::Range<usize>> = (0..n).step_by(CHUNK).map(|s| s..(s + CHUNK).min(n)).collect();
    let results: Vec<(Vec<f32>, Sums)> = if threads <= 1 || chunks.len() <= 1 {
        chunks.iter().map(|r| chunk_grad(net, mb, r.clone(), cfg, scale)).collect()
    } else {
        let mut slots: Vec<Option<(Vec<f32>, Sums)>> = vec![None; chunks.len()];
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads.min(chunks.len()))
                .map(|t| {
                    let chunks = &chunks;
                    s.spawn(move || {
                        (t..chunks.len())
                            .step_by(threads)
                            .map(|c| (c, chunk_grad(net, mb, chunks[c].clone(), cfg, scale)))
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            for h in handles {
                // A worker only panics on a bug in this module; re-raise it here.
                for (c, r) in h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)) {
                    slots[c] = Some(r);
                }
            }
        });
        slots.into_iter().flatten().collect()
    };
    let mut grad = vec![0f32; net.params.len()];
    let mut sums = Sums::default();
    for (g, s) in &results {
        for (a, b) in grad.iter_mut().zip(g) {
            *a += b;
        }
        sums.policy += s.policy;
        sums.value += s.value;
        sums.entropy += s.entropy;
        sums.clipped += s.clipped;
        sums.kl += s.kl;
    }
    (grad, sums)
}

/// One PPO update of `net` on `batch`: `cfg.epochs` passes of `cfg.minibatches` shuffled
/// minibatches, each clipped to `cfg.max_grad_norm` and applied with Adam at `cfg.lr`.
pub fn update(
    net: &mut Net,
    opt: &mut Adam,
    batch: &Batch,
    cfg: &PpoConfig,
    rng: &mut ChaCha8Rng,
    threads: usize,
) -> UpdateStats {
    let n = batch.len();
    let mut stats = UpdateStats::default();
    if n == 0 {
        return stats;
    }
    let mut order: Vec<usize> = (0..n).collect();
    let mbs = cfg.minibatches.clamp(1, n);
    let mut samples = 0f64;
    for _ in 0..cfg.epochs {
        // Fisher–Yates with the trainer's RNG.
        for i in (1..n).rev() {
            let j = rng.random_range(0..=i);
            order.swap(i, j);
        }
        for m in 0..mbs {
            let idx = &order[m * n / mbs..(m + 1) * n / mbs];
            if idx.is_empty() {
                continue;
            }
            let mb = MiniBatch::gather(batch, idx);
            let (mut grad, sums) = minibatch_grad(net, &mb, cfg, threads);
            let norm = grad.iter().map(|&g| (g as f64) * (g as f64)).sum::<f64>().sqrt();
            if norm > cfg.max_grad_norm && norm > 0.0 {
                let f = (cfg.max_grad_norm / norm) as f32;
                grad.iter_mut().for_each(|g| *g *= f);
            }
            opt.step(&mut net.params, &grad, cfg.lr as f32);
            stats.policy_loss += sums.policy;
            stats.value_loss += sums.value;
            stats.entropy += sums.entropy;
            stats.clip_fraction += sums.clipped;
            stats.approx_kl += sums.kl;
            stats.grad_norm += norm;
            stats.steps += 1;
            samples += idx.len() as f64;
        }
    }
    stats.policy_loss /= samples;
    stats.value_loss /= samples;
    stats.entropy /= samples;
    stats.clip_fraction /= samples;
    stats.approx_kl /= samples;
    stats.grad_norm /= stats.steps.max(1) as f64;
    stats
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn gae_on_a_three_step_episode() {
        // r = [1, 0, 2], V = [0.5, 1, 1], γ = 0.9, λ = 0.5, terminal after step 3:
        // δ3 = 2 − 1 = 1;        A3 = 1
        // δ2 = 0 + 0.9·1 − 1 = −0.1; A2 = −0.1 + 0.45·1 = 0.35
        // δ1 = 1 + 0.9·1 − 0.5 = 1.4; A1 = 1.4 + 0.45·0.35 = 1.5575
        let (mut adv, mut ret) = ([0f32; 3], [0f32; 3]);
        gae(&[1.0, 0.0, 2.0], &[0.5, 1.0, 1.0], 0.9, 0.5, &mut adv, &mut ret);
        let want = [1.5575, 0.35, 1.0];
        for t in 0..3 {
            assert!((adv[t] - want[t]).abs() < 1e-6, "A{t}: {} vs {}", adv[t], want[t]);
        }
        assert!((ret[0] - 2.0575).abs() < 1e-6 && (ret[1] - 1.35).abs() < 1e-6 && (ret[2] - 2.0).abs() < 1e-6);
        // λ = 1, γ = 1: advantages are returns-to-go minus values.
        gae(&[1.0, 0.0, 2.0], &[0.5, 1.0, 1.0], 1.0, 1.0, &mut adv, &mut ret);
        assert_eq!(ret, [3.0, 2.0, 2.0]);
    }

    fn cfg() -> PpoConfig {
        PpoConfig { clip: 0.2, ent_coef: 0.0, vf_coef: 0.5, ..PpoConfig::default() }
    }

    #[test]
    fn clipped_loss_on_a_hand_computed_sample() {
        // Uniform logits: π(a) = 1/6 for all a. Old log-prob ln(1/6) − ln 2 makes ρ = 2,
        // outside [0.8, 1.2]. With A = +1, min(2·1, 1.2·1) = 1.2: clipped, no policy gradient.
        let out = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 3.0];
        let old = (1.0f32 / 6.0).ln() - 2f32.ln();
        let mut d = [0f32; 7];
        let l = sample_grad(&out, 2, old, 1.0, 1.0, &cfg(), 1.0, &mut d);
        assert!((l.policy + 1.2).abs() < 1e-5, "{l:?}");
        assert!(l.clipped);
        assert!(d[..6].iter().all(|&g| g.abs() < 1e-7), "{d:?}");
        // Value: ½(3 − 1)² = 2; gradient c_v (V − R) = 0.5 · 2 = 1.
        assert!((l.value - 2.0).abs() < 1e-6 && (d[6] - 1.0).abs() < 1e-6);
        // With A = −1, min(−2, −1.2) = −2: unclipped; ∂(−ρA)/∂z_j = ρ (1[j=a] − p_j) = 2 (1[j=2] − 1/6).
        let l = sample_grad(&out, 2, old, -1.0, 3.0, &cfg(), 1.0, &mut d);
        assert!((l.policy - 2.0).abs() < 1e-5 && !l.clipped);
        for j in 0..6 {
            let want = 2.0 * (if j == 2 { 1.0 } else { 0.0 } - 1.0 / 6.0);
            assert!((d[j] - want).abs() < 1e-5, "z{j}: {} vs {want}", d[j]);
        }
        assert!(d[6].abs() < 1e-7);
        // Entropy of the uniform policy is ln 6, and its gradient vanishes there.
        assert!((l.entropy - 6f32.ln()).abs() < 1e-6);
    }

    #[test]
    fn sample_gradient_matches_finite_differences() {
        let c = PpoConfig { clip: 0.2, ent_coef: 0.05, vf_coef: 0.7, ..PpoConfig::default() };
        let out = [0.3f32, -0.2, 0.8, 0.1, -0.5, 0.4, 1.5];
        let old = log_softmax(&out)[2] + 0.05; // ρ ≈ 0.95, inside the clip range
        let loss = |o: &[f32]| {
            let mut d = [0f32; 7];
            let l = sample_grad(o, 2, old, 0.7, 2.0, &c, 1.0, &mut d);
            l.policy as f64 + c.vf_coef * l.value as f64 - c.ent_coef * l.entropy as f64
        };
        let mut d = [0f32; 7];
        sample_grad(&out, 2, old, 0.7, 2.0, &c, 1.0, &mut d);
        for j in 0..7 {
            let h = 1e-3;
            let (mut a, mut b) = (out, out);
            a[j] += h;
            b[j] -= h;
            let fd = (loss(&a) - loss(&b)) / (2.0 * h as f64);
            assert!((fd - d[j] as f64).abs() < 2e-3, "output {j}: {fd} vs {}", d[j]);
        }
    }

    #[test]
    fn updates_raise_the_probability_of_advantaged_actions_and_do_not_depend_on_threads() {
        let dim = 4;
        let n = 600;
        let mut b = Batch { dim, ..Batch::default() };
        for i in 0..n {
            let x = [(i % 3) as f32, 1.0, 0.0, ((i * 7) % 5) as f32 - 2.0];
            b.obs.extend_from_slice(&x);
            let a = i % 6;
            b.actions.push(a as u8);
            b.logp.push((1.0f32 / 6.0).ln());
            // Action 5 is good, the others are not.
            b.adv.push(if a == 5 { 1.0 } else { -0.2 });
            b.ret.push(1.0);
        }
        let net0 = Net::new(dim, &[8], 1);
        let probs = |net: &Net| {
            let mut ws = Workspace::default();
            net.forward(&b.obs[..dim], 1, &mut ws);
            log_softmax(ws.output())[5].exp()
        };
        let c = PpoConfig { lr: 3e-3, ..PpoConfig::default() };
        let mut runs = Vec::new();
        for threads in [1, 3] {
            let mut net = net0.clone();
            let mut opt = Adam::new(net.params.len());
            let mut rng = ChaCha8Rng::seed_from_u64(9);
            let s = update(&mut net, &mut opt, &b, &c, &mut rng, threads);
            assert_eq!(s.steps, c.epochs * c.minibatches);
            runs.push(net);
        }
        assert_eq!(runs[0], runs[1], "1 and 3 threads give identical weights");
        assert!(probs(&runs[0]) > probs(&net0) + 0.01, "{} vs {}", probs(&runs[0]), probs(&net0));
    }
}
