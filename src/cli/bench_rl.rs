//! `proagent bench rl`: the speed of PPO training's two halves — rollouts (environment
//! steps per second, features and forward passes included) and updates (samples per
//! second through forward + backward + Adam) — and the same network's forward + backward
//! in candle on the same minibatch, to justify the plain-Rust choice with a measurement.
//! Classic and OvercookedV2 layouts (`v2:NAME`, with the V2 switches).

use super::common::GameSwitches;
use anyhow::{Context, Result, bail};
use proagent::rl::RlGame;
use proagent_eval::bench as timed;
use proagent_eval::games::{AnyGame, GameOptions, counted};
use serde_json::json;
use std::process::ExitCode;

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

pub fn run(a: RlBenchArgs) -> Result<ExitCode> {
    a.v2.check(&a.layout, &format!("{:?}", a.layout))?;
    if a.envs > 10_000 || a.horizon > 100_000 {
        bail!("--envs takes at most 10000 and --horizon at most 100000");
    }
    let horizon = u32::try_from(a.horizon).unwrap_or(u32::MAX);
    let options = GameOptions { horizon, settings: a.v2.settings() };
    let (game, _) = AnyGame::load(&a.layout, &options).context("--layout")?;
    proagent::on_rl_game!(game, |g| bench(&a, &*g), |other| bail!(
        "--layout {}: PPO runs on the Overcooked games only",
        other.report_name()
    ))
}

fn bench<G: RlGame>(a: &RlBenchArgs, game: &G) -> Result<ExitCode> {
    if a.envs == 0 || a.horizon == 0 || a.repeats == 0 || a.epochs == 0 || a.minibatches == 0 || a.threads == 0 {
        bail!("--envs, --horizon, --epochs, --minibatches, --threads and --repeats must be at least 1");
    }
    if a.hidden.is_empty() || a.hidden.iter().any(|&h| h == 0 || h > 4096) {
        bail!("--hidden takes widths between 1 and 4096");
    }
    let params = timed::RlBench {
        envs: a.envs,
        horizon: a.horizon,
        hidden: a.hidden.clone(),
        epochs: a.epochs,
        minibatches: a.minibatches,
        threads: a.threads,
        repeats: a.repeats,
    };
    let m = timed::rl(game, &params)?;
    let (rollout_s, env_steps, feature_us, update_s, samples, update_rate) =
        (m.rollout_s, m.env_steps, m.feature_us, m.update_s, m.samples, m.update_rate);
    let (mb, plain_s, candle_s, per, dim) = (m.minibatch, m.plain_s, m.candle_s, m.per, m.inputs);
    let rollout_rate = env_steps / rollout_s;
    // Env steps per second of training as a whole (each env step gives two samples in self-play).
    let per_step = rollout_s / env_steps + update_s / env_steps;
    if a.json {
        println!(
            "{}",
            json!({
                "layout": game.spec(), "encoder": m.encoder, "inputs": dim, "envs": a.envs, "horizon": a.horizon, "hidden": a.hidden, "threads": a.threads,
                "parameters": m.parameters,
                "rollout_env_steps_per_s": rollout_rate.round(), "feature_us": feature_us,
                "update_samples_per_s": update_rate.round(), "samples": samples, "epochs": a.epochs,
                "minibatches": a.minibatches, "selfplay_env_steps_per_s": (1.0 / per_step).round(),
                "minibatch": mb, "plain_fwd_bwd_samples_per_s": (per / plain_s).round(),
                "candle_fwd_bwd_samples_per_s": (per / candle_s).round(),
            })
        );
    } else {
        println!(
            "{} · {} · MLP {:?} ({}) · {} × {} · {}",
            game.spec(),
            m.encoder,
            m.sizes,
            counted(m.parameters as u64, "parameter", "parameters"),
            counted(a.envs as u64, "env", "envs"),
            counted(a.horizon as u64, "step", "steps"),
            counted(a.threads as u64, "thread", "threads")
        );
        println!(
            "rollout: {rollout_rate:.0} env steps/s ({:.2} s for {env_steps:.0} steps; features {feature_us:.2} µs per seat)",
            rollout_s
        );
        println!(
            "update:  {update_rate:.0} samples/s ({} × {} in {update_s:.2} s, {})",
            counted(samples as u64, "sample", "samples"),
            counted(a.epochs as u64, "epoch", "epochs"),
            counted(a.minibatches as u64, "minibatch", "minibatches")
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
