use super::common::load_layout;
use anyhow::{Result, bail};
use proagent::env::{Action, DEFAULT_HORIZON};
use proagent::limits::{MAX_BENCH_STEPS, MAX_EPISODES, MAX_REPEATS};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Subcommand, Debug)]
pub enum BenchCommand {
    /// Simulator steps per second with seeded, interact-heavy random joint actions
    /// (`--game hanabi[:Np]`: Hanabi random legal moves/s, beside HLE with `--hle`).
    Env(EnvBenchArgs),
    /// Hanabi: self-play scores of the rule-based bots (random, simple, convention).
    HanabiBots(super::bench_hanabi::HanabiBotsArgs),
    /// Eval scheduler overhead: N fake episodes of a fixed wait at concurrency C,
    /// compared with the ideal ceil(N/C) x wait.
    Eval(super::eval::BenchEvalArgs),
    /// CoordinationQA runner throughput against a built-in model with a fixed latency.
    Qa(super::qa::BenchQaArgs),
    /// ProAgent CPU time per step (model wait excluded) and whole episodes with the scripted model.
    Agent(super::bench_agent::AgentBenchArgs),
    /// Controller precompute per layout and the cost of one controller decision.
    Controller(ControllerBenchArgs),
    /// Mean scores of an agent with the greedy partner (both seats) and in self-play, per layout.
    Partners(super::bench_partners::PartnersBenchArgs),
    /// PPO training speed: rollout env steps/s and update samples/s (plain Rust vs candle).
    Rl(super::bench_rl::RlBenchArgs),
}

#[derive(clap::Args, Debug)]
pub struct ControllerBenchArgs {
    /// Scripted self-play episodes per layout whose controller decisions are timed.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=MAX_EPISODES as i64))]
    episodes: u32,
    /// Times each layout's precompute is repeated (the mean is reported).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=MAX_REPEATS as i64))]
    repeats: u32,
    /// Seed of the first self-play episode.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
pub struct EnvBenchArgs {
    /// Which game: `overcooked` (classic; OvercookedV2 with `--layout v2:NAME`), `capture`
    /// or `escape` (CollabCapture, CollabEscape), `hanabi` (2 players) or `hanabi:3p` ..
    /// `hanabi:5p` (`--steps` then counts random legal moves).
    #[arg(long, default_value = "overcooked")]
    game: String,
    /// A classic layout (name or file; default cramped_room), `v2:NAME` for OvercookedV2,
    /// or with --game capture|escape a scenario (`capture:1` … `capture:4`, `escape:1`,
    /// `escape:2`; default the first) or maze file.
    #[arg(long)]
    layout: Option<String>,
    /// Simulator steps to time (random joint actions).
    #[arg(long, default_value_t = 20_000_000, value_parser = clap::value_parser!(u64).range(1..=MAX_BENCH_STEPS))]
    steps: u64,
    /// Seed of the random actions.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
    /// OvercookedV2: also run JaxMARL's OvercookedV2 with this Python (one that has `jaxmarl`)
    /// through scripts/bench_jaxmarl_v2.py, and print the speed ratios.
    #[arg(long, value_name = "PYTHON")]
    jaxmarl: Option<std::path::PathBuf>,
    /// The JaxMARL benchmark script.
    #[arg(long, default_value = "scripts/bench_jaxmarl_v2.py")]
    jaxmarl_script: std::path::PathBuf,
    /// OvercookedV2: environments in the batched runs (JaxMARL's vmap; ours across all cores).
    #[arg(long, default_value_t = 1024, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    batch: u32,
    /// OvercookedV2: steps of every environment in the batched runs.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    batch_steps: u32,
    /// OvercookedV2: steps of JaxMARL's single-environment run.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    jax_steps: u64,
    /// OvercookedV2: how far agents see (the observation window).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=30))]
    view_radius: Option<u8>,
    /// Hanabi: observation steps to time (a move, every player's canonical vector, the legal moves).
    #[arg(long, default_value_t = 2_000_000, value_parser = clap::value_parser!(u64).range(1..=MAX_BENCH_STEPS))]
    rl_steps: u64,
    /// Hanabi: also run DeepMind's Hanabi Learning Environment with this Python (one that has
    /// `hanabi-learning-environment`) through scripts/bench_hanabi.py, and print the ratios.
    #[arg(long, value_name = "PYTHON")]
    hle: Option<std::path::PathBuf>,
    /// The HLE benchmark script.
    #[arg(long, default_value = "scripts/bench_hanabi.py")]
    hle_script: std::path::PathBuf,
    /// Hanabi: pyhanabi moves timed on HLE's side.
    #[arg(long, default_value_t = 200_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    hle_moves: u64,
    /// Hanabi: rl_env steps timed on HLE's side.
    #[arg(long, default_value_t = 20_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    hle_steps: u64,
    /// CollabCapture / CollabEscape: also time the LLM-Coordination repository's own game
    /// loop with this Python (one with numpy), through scripts/bench_collab.py.
    #[arg(long, value_name = "PYTHON")]
    reference: Option<std::path::PathBuf>,
    /// The `src` folder of an eric-ai-lab/llm_coordination checkout (for --reference).
    #[arg(long, value_name = "DIR")]
    reference_src: Option<std::path::PathBuf>,
    /// The reference benchmark script.
    #[arg(long, default_value = "scripts/bench_collab.py")]
    reference_script: std::path::PathBuf,
    /// Turns of the reference run.
    #[arg(long, default_value_t = 200_000, value_parser = clap::value_parser!(u64).range(1..=100_000_000))]
    reference_steps: u64,
}

pub fn run(c: BenchCommand) -> Result<ExitCode> {
    match c {
        BenchCommand::Env(a) => bench_env(a),
        BenchCommand::HanabiBots(a) => super::bench_hanabi::run_bots(a),
        BenchCommand::Eval(a) => super::eval::bench(a),
        BenchCommand::Qa(a) => super::qa::bench(a),
        BenchCommand::Agent(a) => super::bench_agent::run(a),
        BenchCommand::Controller(a) => super::bench_controller::run(a.episodes, a.repeats, a.seed, a.json),
        BenchCommand::Partners(a) => super::bench_partners::run(a),
        BenchCommand::Rl(a) => super::bench_rl::run(a),
    }
}

fn bench_env(a: EnvBenchArgs) -> Result<ExitCode> {
    if a.steps == 0 {
        bail!("--steps must be at least 1");
    }
    use super::bench_collab::{BenchGame, CollabBenchConfig};
    let game = a.game.trim().to_string();
    if game.starts_with("hanabi") {
        let c = super::bench_hanabi::HanabiBenchConfig {
            moves: a.steps,
            rl_steps: a.rl_steps,
            seed: a.seed,
            json: a.json,
            hle: a.hle.clone(),
            script: a.hle_script.clone(),
            hle_moves: a.hle_moves,
            hle_steps: a.hle_steps,
        };
        return super::bench_hanabi::run_env(&game, &c);
    }
    if a.hle.is_some() {
        bail!("--hle applies to Hanabi (--game hanabi)");
    }
    let collab = match game.as_str() {
        "capture" => Some(BenchGame::Capture),
        "escape" => Some(BenchGame::Escape),
        "overcooked" => None,
        other => bail!("--game {other}: unknown game (overcooked, capture, escape, hanabi, hanabi:3p .. hanabi:5p)"),
    };
    if let Some(collab) = collab {
        if a.jaxmarl.is_some() || a.view_radius.is_some() {
            bail!("--jaxmarl and --view-radius apply to OvercookedV2 layouts (--layout v2:NAME)");
        }
        return super::bench_collab::run(CollabBenchConfig {
            game: collab,
            layout: a.layout,
            steps: a.steps,
            seed: a.seed,
            json: a.json,
            reference: a.reference,
            reference_src: a.reference_src,
            script: a.reference_script,
            reference_steps: a.reference_steps,
        });
    }
    if a.reference.is_some() || a.reference_src.is_some() {
        bail!("--reference and --reference-src apply to --game capture and --game escape");
    }
    let layout_name = a.layout.clone().unwrap_or_else(|| "cramped_room".to_string());
    if let Some(spec) = proagent::env_v2::layout::strip_v2_prefix(&layout_name) {
        let spec = spec.to_string();
        return super::bench_v2::run(&spec, &a.into_v2());
    }
    if a.jaxmarl.is_some() || a.view_radius.is_some() {
        bail!("--jaxmarl and --view-radius apply to OvercookedV2 layouts (--layout v2:NAME)");
    }
    let layout = load_layout(&layout_name)?;
    // Actions are drawn up front so the timing measures the simulator, not the RNG.
    let mut rng = ChaCha8Rng::seed_from_u64(a.seed);
    let table: Vec<[Action; 2]> = (0..1 << 16)
        .map(|_| {
            let mut pick = || {
                if rng.random_bool(0.4) { Action::Interact } else { Action::ALL[rng.random_range(0..5)] }
            };
            [pick(), pick()]
        })
        .collect();
    let mut state = layout.start_state();
    let start = layout.start_state();
    let mut reward: u64 = 0;
    let t0 = Instant::now();
    for i in 0..a.steps {
        let out = layout.step(&mut state, table[(i as usize) & 0xffff]);
        reward += out.reward as u64;
        if state.timestep >= DEFAULT_HORIZON {
            state.clone_from(&start);
        }
    }
    let secs = t0.elapsed().as_secs_f64();
    let rate = a.steps as f64 / secs;
    if a.json {
        println!(
            "{}",
            json!({"layout": layout.name, "steps": a.steps, "seconds": secs, "steps_per_sec": rate, "total_reward": reward, "seed": a.seed})
        );
    } else {
        println!(
            "{}: {} steps in {:.3} s = {:.2} M steps/s (total reward {reward})",
            layout.name,
            a.steps,
            secs,
            rate / 1e6
        );
    }
    Ok(ExitCode::SUCCESS)
}

impl EnvBenchArgs {
    fn into_v2(self) -> super::bench_v2::V2BenchConfig {
        super::bench_v2::V2BenchConfig {
            steps: self.steps,
            seed: self.seed,
            json: self.json,
            jaxmarl: self.jaxmarl,
            script: self.jaxmarl_script,
            batch: self.batch,
            batch_steps: self.batch_steps,
            jax_steps: self.jax_steps,
            view_radius: self.view_radius,
        }
    }
}
