//! Training a BC policy with candle: softmax cross-entropy over the six
//! actions, Adam, mini-batches, a seeded 85/15 train/validation split, and a
//! choice of which epoch to keep ([`Keep`]).
//!
//! Everything random (split, initial weights, batch order) comes from one
//! ChaCha8 stream seeded by the caller, so the same data and seed give the same
//! weights bit for bit on the same machine.

use super::data::DemoStep;
use super::features::{NUM_FEATURES, featurize};
use super::model::{BcModel, Dense, NUM_ACTIONS, softmax};
use candle_core::{DType, Device, Tensor, Var};
use candle_nn::optim::{AdamW, Optimizer, ParamsAdamW};
use proagent_overcooked::env::Layout;
use proagent_overcooked::env::motion::MotionTable;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// Feature vectors and action labels, one sample per (step, player).
#[derive(Clone, Debug, Default)]
pub struct Dataset {
    /// Row-major `len() × 62`.
    pub x: Vec<f32>,
    /// Action label of each sample: the index in [`proagent_overcooked::env::Action::ALL`] (0..6).
    pub y: Vec<u32>,
}

impl Dataset {
    /// Both players' samples of every step, player 0 first.
    pub fn from_steps(layout: &Layout, steps: &[DemoStep]) -> Dataset {
        let motion = MotionTable::new(layout);
        let mut d = Dataset { x: Vec::with_capacity(steps.len() * 2 * NUM_FEATURES), y: Vec::new() };
        for s in steps {
            for seat in 0..2 {
                d.x.extend_from_slice(&featurize(layout, &motion, &s.state, seat));
                d.y.push(s.actions[seat].index() as u32);
            }
        }
        d
    }

    /// Number of samples.
    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// True when there is no sample.
    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }

    fn row(&self, i: usize) -> &[f32; NUM_FEATURES] {
        self.x[i * NUM_FEATURES..(i + 1) * NUM_FEATURES].try_into().unwrap_or_else(|_| unreachable!("row width"))
    }

    fn subset(&self, idx: &[usize]) -> Dataset {
        let mut d = Dataset { x: Vec::with_capacity(idx.len() * NUM_FEATURES), y: Vec::with_capacity(idx.len()) };
        for &i in idx {
            d.x.extend_from_slice(self.row(i));
            d.y.push(self.y[i]);
        }
        d
    }
}

/// Which epoch's weights training returns.
///
/// The shipped models keep the last epoch, as the 2019 code did: the
/// best-validation checkpoints come early (epoch 5 to 30) and are much more
/// hesitant policies, whose BC+BC self-play scores fall far below the 2019
/// figures (see docs/bc.md and docs/results.md, "BC human proxies").
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Keep {
    /// The epoch with the lowest validation loss.
    BestLoss,
    /// The epoch with the highest validation accuracy (ties: the earlier one).
    BestAccuracy,
    /// The last epoch (what the 2019 code shipped).
    Last,
}

impl Keep {
    /// Every rule, in the order the CLI lists them.
    pub const ALL: [Keep; 3] = [Keep::BestLoss, Keep::BestAccuracy, Keep::Last];

    /// The rule's name on the command line and in metadata (`best-loss`, `best-accuracy`, `last`).
    pub fn name(self) -> &'static str {
        match self {
            Keep::BestLoss => "best-loss",
            Keep::BestAccuracy => "best-accuracy",
            Keep::Last => "last",
        }
    }

    /// Inverse of [`Keep::name`]; `None` for an unknown name.
    pub fn parse(s: &str) -> Option<Keep> {
        Keep::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// Hyper-parameters; the defaults are the ones of the shipped models.
#[derive(Clone, Debug, Serialize)]
pub struct TrainConfig {
    /// Passes over the training samples; at least 1.
    pub epochs: usize,
    /// Seed of the one RNG stream behind the split, the initial weights and the batch order.
    pub seed: u64,
    /// Samples per optimiser step; at least 1.
    pub batch_size: usize,
    /// AdamW learning rate.
    pub learning_rate: f64,
    /// Share of samples held out for validation; strictly between 0 and 1.
    pub validation_fraction: f64,
    /// Widths of the two tanh hidden layers; each at least 1.
    pub hidden: [usize; 2],
    /// Which epoch's weights to return.
    pub keep: Keep,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            epochs: DEFAULT_EPOCHS,
            seed: 0,
            batch_size: 64,
            learning_rate: 1e-3,
            validation_fraction: 0.15,
            hidden: [64, 64],
            keep: Keep::Last,
        }
    }
}

/// Epochs of the shipped models (the 2019 runs used 90 to 120 per layout).
pub const DEFAULT_EPOCHS: usize = 100;

/// Loss and accuracy of a model on a set of samples.
#[derive(Copy, Clone, Debug, Default, PartialEq, Serialize)]
pub struct Eval {
    /// Number of samples evaluated.
    pub samples: usize,
    /// Share of samples whose most likely action (first maximum) is the label, 0..=1.
    pub accuracy: f64,
    /// Mean cross-entropy (natural log).
    pub loss: f64,
}

/// One epoch's figures.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct EpochReport {
    /// 1-based epoch number.
    pub epoch: usize,
    /// Mean training cross-entropy over the epoch's mini-batches (weights changing as it goes).
    pub train_loss: f64,
    /// Validation cross-entropy at the end of the epoch.
    pub val_loss: f64,
    /// Validation accuracy at the end of the epoch, 0..=1.
    pub val_accuracy: f64,
}

/// What training produced: the kept checkpoint and its figures.
#[derive(Clone, Debug)]
pub struct TrainOutcome {
    /// The kept checkpoint's weights.
    pub model: BcModel,
    /// The 1-based epoch the weights come from.
    pub kept_epoch: usize,
    /// The kept model on the training samples.
    pub train: Eval,
    /// The kept model on the validation samples.
    pub validation: Eval,
    /// Every epoch's figures, in order.
    pub history: Vec<EpochReport>,
}

/// Why training could not run.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// The data holds fewer than 10 samples (the count is given).
    #[error("too few samples: {0} (need at least 10)")]
    TooFewSamples(usize),
    /// A configuration value is out of range; the message names it.
    #[error("bad training configuration: {0}")]
    Config(String),
    /// candle failed in a tensor operation.
    #[error("tensor computation failed: {0}")]
    Tensor(#[from] candle_core::Error),
}

/// Accuracy and mean cross-entropy of `model` on `data`, with the play-time forward pass.
pub fn evaluate(model: &BcModel, data: &Dataset) -> Eval {
    let n = data.len();
    if n == 0 {
        return Eval::default();
    }
    let (mut correct, mut loss) = (0usize, 0f64);
    for i in 0..n {
        let logits = model.logits(data.row(i));
        let y = data.y[i] as usize;
        // First maximum wins, as argmax does.
        let best = (0..NUM_ACTIONS).fold(0, |b, a| if logits[a] > logits[b] { a } else { b });
        correct += usize::from(best == y);
        loss -= softmax(&logits)[y].max(f64::MIN_POSITIVE).ln();
    }
    Eval { samples: n, accuracy: correct as f64 / n as f64, loss: loss / n as f64 }
}

struct Net {
    params: Vec<Var>,
}

impl Net {
    /// Glorot-uniform weights and zero biases, drawn from `rng`.
    fn init(rng: &mut ChaCha8Rng, hidden: [usize; 2], dev: &Device) -> candle_core::Result<Net> {
        let dims = [NUM_FEATURES, hidden[0], hidden[1], NUM_ACTIONS];
        let mut params = Vec::new();
        for k in 0..3 {
            let (i, o) = (dims[k], dims[k + 1]);
            let limit = (6.0 / (i + o) as f64).sqrt() as f32;
            let w: Vec<f32> = (0..i * o).map(|_| rng.random_range(-limit..limit)).collect();
            params.push(Var::from_tensor(&Tensor::from_vec(w, (o, i), dev)?)?);
            params.push(Var::from_tensor(&Tensor::zeros(o, DType::F32, dev)?)?);
        }
        Ok(Net { params })
    }

    fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let mut h = x.clone();
        for k in 0..3 {
            let (w, b) = (self.params[2 * k].as_tensor(), self.params[2 * k + 1].as_tensor());
            h = h.matmul(&w.t()?)?.broadcast_add(b)?;
            if k < 2 {
                h = h.tanh()?;
            }
        }
        Ok(h)
    }

    fn snapshot(&self, source: &str) -> candle_core::Result<BcModel> {
        let mut layers = Vec::new();
        for k in 0..3 {
            let w = self.params[2 * k].as_tensor();
            let (outputs, inputs) = w.dims2()?;
            layers.push(Dense {
                inputs,
                outputs,
                weight: w.flatten_all()?.to_vec1::<f32>()?,
                bias: self.params[2 * k + 1].as_tensor().to_vec1::<f32>()?,
            });
        }
        let layers: [Dense; 3] = layers.try_into().unwrap_or_else(|_| unreachable!("three layers"));
        Ok(BcModel { layers, source: source.to_string() })
    }
}

fn tensors(d: &Dataset, dev: &Device) -> candle_core::Result<(Tensor, Tensor)> {
    Ok((Tensor::from_slice(&d.x, (d.len(), NUM_FEATURES), dev)?, Tensor::from_slice(&d.y, d.len(), dev)?))
}

/// Trains on `data`; `on_epoch` sees each epoch's figures as they come.
pub fn train(
    data: &Dataset,
    cfg: &TrainConfig,
    on_epoch: &mut dyn FnMut(&EpochReport),
) -> Result<TrainOutcome, TrainError> {
    if data.len() < 10 {
        return Err(TrainError::TooFewSamples(data.len()));
    }
    if cfg.epochs == 0 || cfg.batch_size == 0 || cfg.hidden.contains(&0) {
        return Err(TrainError::Config("epochs, batch size and hidden sizes must be at least 1".into()));
    }
    if !(cfg.validation_fraction > 0.0 && cfg.validation_fraction < 1.0) {
        return Err(TrainError::Config("the validation fraction must lie strictly between 0 and 1".into()));
    }
    let dev = Device::Cpu;
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let mut order: Vec<usize> = (0..data.len()).collect();
    order.shuffle(&mut rng);
    let n_val = ((data.len() as f64 * cfg.validation_fraction).round() as usize).clamp(1, data.len() - 1);
    let (val_idx, train_idx) = order.split_at(n_val);
    let train_set = data.subset(train_idx);
    let val_set = data.subset(val_idx);
    let (val_x, val_y) = tensors(&val_set, &dev)?;

    let net = Net::init(&mut rng, cfg.hidden, &dev)?;
    let params = ParamsAdamW { lr: cfg.learning_rate, weight_decay: 0.0, ..ParamsAdamW::default() };
    let mut opt = AdamW::new(net.params.clone(), params)?;

    let mut best: Option<(f64, usize, BcModel)> = None;
    let mut history = Vec::with_capacity(cfg.epochs);
    let mut batch_order: Vec<usize> = (0..train_set.len()).collect();
    let mut bx = Vec::with_capacity(cfg.batch_size * NUM_FEATURES);
    let mut by = Vec::with_capacity(cfg.batch_size);
    for epoch in 1..=cfg.epochs {
        batch_order.shuffle(&mut rng);
        let (mut loss_sum, mut seen) = (0f64, 0usize);
        for chunk in batch_order.chunks(cfg.batch_size) {
            bx.clear();
            by.clear();
            for &i in chunk {
                bx.extend_from_slice(train_set.row(i));
                by.push(train_set.y[i]);
            }
            let x = Tensor::from_slice(&bx, (chunk.len(), NUM_FEATURES), &dev)?;
            let y = Tensor::from_slice(&by, chunk.len(), &dev)?;
            let loss = candle_nn::loss::cross_entropy(&net.forward(&x)?, &y)?;
            opt.backward_step(&loss)?;
            loss_sum += loss.to_scalar::<f32>()? as f64 * chunk.len() as f64;
            seen += chunk.len();
        }
        let logits = net.forward(&val_x)?;
        let val_loss = candle_nn::loss::cross_entropy(&logits, &val_y)?.to_scalar::<f32>()? as f64;
        let hits = logits.argmax(1)?.eq(&val_y)?.to_dtype(DType::F32)?.sum_all()?.to_scalar::<f32>()? as f64;
        let report = EpochReport {
            epoch,
            train_loss: loss_sum / seen.max(1) as f64,
            val_loss,
            val_accuracy: hits / val_set.len() as f64,
        };
        on_epoch(&report);
        history.push(report);
        let better = match (&best, cfg.keep) {
            (None, _) | (_, Keep::Last) => true,
            (Some((l, _, _)), Keep::BestLoss) => val_loss < *l,
            (Some((a, _, _)), Keep::BestAccuracy) => -report.val_accuracy < *a,
        };
        if better {
            // The score is "lower is better" for every rule.
            let score = if cfg.keep == Keep::BestAccuracy { -report.val_accuracy } else { val_loss };
            best = Some((score, epoch, net.snapshot("trained")?));
        }
    }
    let (_, kept_epoch, model) = best.ok_or_else(|| TrainError::Config("no epoch ran".into()))?;
    let train = evaluate(&model, &train_set);
    let validation = evaluate(&model, &val_set);
    Ok(TrainOutcome { model, kept_epoch, train, validation, history })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Samples whose label is a simple function of two features, plus noise features.
    fn synthetic(n: usize, seed: u64) -> Dataset {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut d = Dataset::default();
        for _ in 0..n {
            let row: Vec<f32> = (0..NUM_FEATURES).map(|_| rng.random_range(-3i32..=3) as f32).collect();
            let label = match (row[7].partial_cmp(&0.0), row[8].partial_cmp(&0.0)) {
                (Some(std::cmp::Ordering::Greater), _) => 2,
                (Some(std::cmp::Ordering::Less), _) => 3,
                (_, Some(std::cmp::Ordering::Greater)) => 1,
                (_, Some(std::cmp::Ordering::Less)) => 0,
                _ => 5,
            };
            d.x.extend(row);
            d.y.push(label);
        }
        d
    }

    #[test]
    fn learns_a_simple_rule_deterministically_and_candle_matches_plain_rust() {
        let data = synthetic(1500, 1);
        let cfg = TrainConfig { epochs: 12, seed: 7, ..TrainConfig::default() };
        let mut epochs = 0;
        let a = train(&data, &cfg, &mut |_| epochs += 1).unwrap();
        assert_eq!(epochs, 12);
        assert!(a.validation.accuracy > 0.85, "{:?}", a.validation);
        let b = train(&data, &cfg, &mut |_| {}).unwrap();
        assert_eq!(a.model, b.model, "same data and seed give the same weights");
        let c = train(&data, &TrainConfig { seed: 8, ..cfg.clone() }, &mut |_| {}).unwrap();
        assert_ne!(a.model, c.model);
        // The plain-Rust forward pass agrees with candle's.
        let dev = Device::Cpu;
        let mut params = Vec::new();
        for l in &a.model.layers {
            params
                .push(Var::from_tensor(&Tensor::from_slice(&l.weight, (l.outputs, l.inputs), &dev).unwrap()).unwrap());
            params.push(Var::from_tensor(&Tensor::from_slice(&l.bias, l.outputs, &dev).unwrap()).unwrap());
        }
        let net = Net { params };
        let sub = data.subset(&(0..50).collect::<Vec<_>>());
        let (x, _) = tensors(&sub, &dev).unwrap();
        let candle_logits = net.forward(&x).unwrap().to_vec2::<f32>().unwrap();
        for (i, row) in candle_logits.iter().enumerate() {
            let plain = a.model.logits(sub.row(i));
            for k in 0..NUM_ACTIONS {
                assert!((row[k] - plain[k]).abs() < 1e-4, "sample {i} action {k}: {} vs {}", row[k], plain[k]);
            }
        }
    }

    #[test]
    fn rejects_tiny_data_and_bad_config() {
        let data = synthetic(5, 1);
        assert!(matches!(train(&data, &TrainConfig::default(), &mut |_| {}), Err(TrainError::TooFewSamples(5))));
        let data = synthetic(50, 1);
        let cfg = TrainConfig { epochs: 0, ..TrainConfig::default() };
        assert!(matches!(train(&data, &cfg, &mut |_| {}), Err(TrainError::Config(_))));
    }
}
