//! `proagent bench rl`: the speed of PPO training's two halves — rollouts (environment
//! steps per second, features and forward passes included) and updates (samples per
//! second through forward + backward + Adam) — and the same network's forward + backward
//! in candle on the same minibatch, to justify the plain-Rust choice with a measurement.
//! Classic and OvercookedV2 layouts (`v2:NAME`, with the V2 switches).

use super::common::GameSwitches;
use anyhow::{Context, Result, bail};
use candle_core::{DType, Device, Tensor, Var};
use proagent::rl::RlGame;
use proagent::rl::net::{HEAD_OUTPUTS, Net, Workspace};
use proagent::rl::obs::Encode;
use proagent::rl::ppo::{PpoConfig, update};
use proagent::rl::rollout::{EnvSlot, SeatPolicy, collect_parallel};
use proagent::rl::train::to_batch;
use proagent_eval::games::{AnyGame, GameOptions};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct RlBenchArgs {
    /// A built-in layout name or a layout file; `v2:NAME` for OvercookedV2.
    #[arg(long, default_value = "cramped_room")]
    layout: String,
    /// Environments per rollout (each plays one episode of --horizon steps).
    #[arg(long, default_value_t = 30)]
    envs: usize,
    /// Steps per episode.
    #[arg(long, default_value_t = 400)]
    horizon: usize,
    /// Hidden-layer widths.
    #[arg(long, value_delimiter = ',', default_value = "64,64")]
    hidden: Vec<usize>,
    /// PPO passes of the timed update.
    #[arg(long, default_value_t = 4)]
    epochs: usize,
    /// Minibatches per pass of the timed update.
    #[arg(long, default_value_t = 4)]
    minibatches: usize,
    /// Threads for rollouts and gradients.
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Repetitions of the forward + backward comparison.
    #[arg(long, default_value_t = 5)]
    repeats: usize,
    /// Print the measurements as JSON.
    #[arg(long)]
    json: bool,
    /// The OvercookedV2 switches (`--layout v2:NAME`).
    #[command(flatten)]
    v2: GameSwitches,
}

/// candle: the same MLP (ReLU trunk, 7 outputs), forward + backward of Σ c·out.
fn candle_fwd_bwd(sizes: &[usize], x: &[f32], batch: usize, repeats: usize) -> candle_core::Result<f64> {
    let dev = Device::Cpu;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut params = Vec::new();
    for w in sizes.windows(2) {
        let (i, o) = (w[0], w[1]);
        let lim = (6.0 / (i + o) as f64).sqrt() as f32;
        let v: Vec<f32> = (0..i * o).map(|_| rand::Rng::random_range(&mut rng, -lim..lim)).collect();
        params.push(Var::from_tensor(&Tensor::from_vec(v, (o, i), &dev)?)?);
        params.push(Var::from_tensor(&Tensor::zeros(o, DType::F32, &dev)?)?);
    }
    let xt = Tensor::from_slice(x, (batch, sizes[0]), &dev)?;
    let coef = Tensor::ones((batch, HEAD_OUTPUTS), DType::F32, &dev)?;
    let layers = sizes.len() - 1;
    let t = Instant::now();
    for _ in 0..repeats {
        let mut h = xt.clone();
        for k in 0..layers {
            h = h.matmul(&params[2 * k].as_tensor().t()?)?.broadcast_add(params[2 * k + 1].as_tensor())?;
            if k + 1 < layers {
                h = h.relu()?;
            }
        }
        let loss = (h * &coef)?.sum_all()?;
        let grads = loss.backward()?;
        std::hint::black_box(grads.get(params[0].as_tensor()).map(|g| g.dims().len()));
    }
    Ok(t.elapsed().as_secs_f64())
}

pub fn run(a: RlBenchArgs) -> Result<ExitCode> {
    a.v2.check(&a.layout, &format!("{:?}", a.layout))?;
    if a.envs > 10_000 || a.horizon > 100_000 {
        bail!("--envs takes at most 10000 and --horizon at most 100000");
    }
    let horizon = u32::try_from(a.horizon).unwrap_or(u32::MAX);
    let options = GameOptions { horizon, settings: a.v2.settings() };
    let (game, _) = AnyGame::load(&a.layout, &options).context("--layout")?;
    match game {
        AnyGame::Overcooked(g) => bench(&a, &*g),
        AnyGame::V2(g) => bench(&a, &*g),
        other => bail!("--layout {}: PPO runs on the Overcooked games only", other.report_name()),
    }
}

fn bench<G: RlGame>(a: &RlBenchArgs, game: &G) -> Result<ExitCode> {
    if a.envs == 0 || a.horizon == 0 || a.repeats == 0 || a.epochs == 0 || a.minibatches == 0 || a.threads == 0 {
        bail!("--envs, --horizon, --epochs, --minibatches, --threads and --repeats must be at least 1");
    }
    if a.hidden.is_empty() || a.hidden.iter().any(|&h| h == 0 || h > 4096) {
        bail!("--hidden takes widths between 1 and 4096");
    }
    let cfg = proagent::rl::TrainConfig {
        envs: a.envs,
        horizon: a.horizon,
        hidden: a.hidden.clone(),
        encoder: G::ENCODERS[0].to_string(),
        threads: a.threads,
        ..proagent::rl::TrainConfig::new(proagent::rl::Algo::Sp, 0)
    };
    let lenc = proagent::rl::train::run_encoder(game, &cfg)?;
    let dim = lenc.dim();
    let budget = cfg.memory_estimate(dim);
    if budget > proagent::rl::train::MAX_TRAIN_BYTES {
        bail!("these flags would allocate about {} (docs/limits.md)", proagent::limits::human_bytes(budget));
    }
    let net = Net::new(dim, &a.hidden, 7);
    let both = [SeatPolicy { net: 0, record: true }; 2];
    let mut slots: Vec<EnvSlot> = (0..a.envs)
        .map(|e| EnvSlot {
            seats: both,
            rng: ChaCha8Rng::seed_from_u64(e as u64),
            chance: ChaCha8Rng::seed_from_u64(e as u64 + 1_000_000),
            own_shaping: false,
        })
        .collect();

    let t = Instant::now();
    let r = collect_parallel(game, &lenc, &[&net], &mut slots, a.horizon, 1.0, a.threads);
    let rollout_s = t.elapsed().as_secs_f64();
    let env_steps = (a.envs * a.horizon) as f64;

    // The features alone, for the split of rollout time.
    let mut x = vec![0f32; dim];
    let state = game.initial_state(&mut ChaCha8Rng::seed_from_u64(0));
    let t = Instant::now();
    let n_feat = 20_000;
    for i in 0..n_feat {
        lenc.encode(game.view(&state, i & 1), i & 1, &mut x);
    }
    let feature_us = t.elapsed().as_secs_f64() * 1e6 / n_feat as f64;

    let cfg = PpoConfig { epochs: a.epochs, minibatches: a.minibatches, ..PpoConfig::default() };
    let batch = to_batch(&r, cfg.gamma as f32, cfg.lambda as f32);
    let mut upd_net = net.clone();
    let mut opt = proagent::rl::net::Adam::new(net.params.len());
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let t = Instant::now();
    update(&mut upd_net, &mut opt, &batch, &cfg, &mut rng, a.threads);
    let update_s = t.elapsed().as_secs_f64();
    let samples = batch.len();
    let update_rate = (samples * cfg.epochs) as f64 / update_s;

    // Forward + backward only, one minibatch, plain Rust vs candle.
    let mb = (samples / cfg.minibatches).max(1);
    let xs = &batch.obs[..mb * dim];
    let mut ws = Workspace::default();
    let mut grad = vec![0f32; net.params.len()];
    let dout = vec![1f32; mb * HEAD_OUTPUTS];
    let t = Instant::now();
    for _ in 0..a.repeats {
        net.forward(xs, mb, &mut ws);
        net.backward(xs, &mut ws, &dout, &mut grad);
    }
    let plain_s = t.elapsed().as_secs_f64();
    let candle_s = candle_fwd_bwd(&net.sizes, xs, mb, a.repeats).context("candle forward/backward")?;
    let per = (mb * a.repeats) as f64;

    let rollout_rate = env_steps / rollout_s;
    // Env steps per second of training as a whole (each env step gives two samples in self-play).
    let per_step = rollout_s / env_steps + update_s / env_steps;
    if a.json {
        println!(
            "{}",
            json!({
                "layout": game.spec(), "encoder": lenc.name(), "inputs": dim, "envs": a.envs, "horizon": a.horizon, "hidden": a.hidden, "threads": a.threads,
                "parameters": net.params.len(),
                "rollout_env_steps_per_s": rollout_rate.round(), "feature_us": feature_us,
                "update_samples_per_s": update_rate.round(), "samples": samples, "epochs": cfg.epochs,
                "minibatches": cfg.minibatches, "selfplay_env_steps_per_s": (1.0 / per_step).round(),
                "minibatch": mb, "plain_fwd_bwd_samples_per_s": (per / plain_s).round(),
                "candle_fwd_bwd_samples_per_s": (per / candle_s).round(),
            })
        );
    } else {
        println!(
            "{} · {} · MLP {:?} ({} parameters) · {} envs × {} steps · {} thread(s)",
            game.spec(),
            lenc.name(),
            net.sizes,
            net.params.len(),
            a.envs,
            a.horizon,
            a.threads
        );
        println!(
            "rollout: {rollout_rate:.0} env steps/s ({:.2} s for {env_steps:.0} steps; features {feature_us:.2} µs per seat)",
            rollout_s
        );
        println!(
            "update:  {update_rate:.0} samples/s ({} samples × {} epochs in {update_s:.2} s, {} minibatches)",
            samples, cfg.epochs, cfg.minibatches
        );
        println!("self-play training overall: {:.0} env steps/s", 1.0 / per_step);
        println!(
            "forward+backward of one {mb}-sample minibatch: plain Rust {:.0} samples/s, candle {:.0} samples/s",
            per / plain_s,
            per / candle_s
        );
    }
    Ok(ExitCode::SUCCESS)
}
