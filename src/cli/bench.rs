//! `proagent bench`: every benchmark subcommand. `bench env` times any game's simulator
//! with the loops of `proagent_eval::bench` (classic Overcooked, OvercookedV2 beside
//! JaxMARL, Hanabi beside HLE, CollabCapture/CollabEscape beside the LLM-Coordination
//! repository's loop) and prints the figures; `bench hanabi-bots` the rule-based bots'
//! self-play scores.

use super::common::{load_layout, load_v2_layout};
use anyhow::{Context, Result, bail};
use proagent::collab::{Capture, Escape, load_capture, load_escape};
use proagent::env_v2::Settings;
use proagent::limits::{MAX_BENCH_STEPS, MAX_EPISODES, MAX_REPEATS};
use proagent::partners::hanabi::selfplay::evaluate;
use proagent::partners::hanabi::{BOT_NAMES, make_bot};
use proagent::seat::Seat;
use proagent_eval::bench::{self as timed, MazeBench, Reference, check_script};
use proagent_eval::games::{catalog, counted};
use proagent_hanabi::{Hanabi, encode};
use serde_json::json;
use std::process::ExitCode;

#[derive(clap::Subcommand, Debug)]
pub enum BenchCommand {
    /// Simulator steps per second with seeded, interact-heavy random joint actions
    /// (`--game hanabi[:Np]`: Hanabi random legal moves/s, beside HLE with `--hle`).
    Env(EnvBenchArgs),
    /// Hanabi: self-play scores of the rule-based bots (random, simple, convention).
    HanabiBots(HanabiBotsArgs),
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
        BenchCommand::HanabiBots(a) => run_bots(a),
        BenchCommand::Eval(a) => super::eval::bench(a),
        BenchCommand::Qa(a) => super::qa::bench(a),
        BenchCommand::Agent(a) => super::bench_agent::run(a),
        BenchCommand::Controller(a) => bench_controller(a),
        BenchCommand::Partners(a) => super::bench_partners::run(a),
        BenchCommand::Rl(a) => super::bench_rl::run(a),
    }
}

/// `bench controller`: prints the report of [`timed::controller`] (JSON, or one line).
fn bench_controller(a: ControllerBenchArgs) -> Result<ExitCode> {
    let report = timed::controller(a.episodes, a.repeats, a.seed);
    if a.json {
        println!("{report}");
    } else {
        println!(
            "precompute: {:.3} ms for the five layouts; controller decision: {:.2} µs mean, {:.2} µs p99 ({})",
            report["precompute_ms_total"].as_f64().unwrap_or(0.0),
            report["decision_us"].as_f64().unwrap_or(0.0),
            report["decision_us_p99"].as_f64().unwrap_or(0.0),
            counted(report["decisions"].as_u64().unwrap_or(0), "decision", "decisions")
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn bench_env(a: EnvBenchArgs) -> Result<ExitCode> {
    if a.steps == 0 {
        bail!("--steps must be at least 1");
    }
    let game = a.game.trim().to_string();
    // The catalog reads the spec (the game's kind picks the loop to time).
    if let Some("hanabi") = catalog::entry_for(&game).map(|e| e.kind) {
        return bench_hanabi(&game, &a);
    }
    if a.hle.is_some() {
        bail!("--hle applies to Hanabi (--game hanabi)");
    }
    let maze = match game.as_str() {
        "capture" => Some(("capture", "capture:1")),
        "escape" => Some(("escape", "escape:1")),
        "overcooked" => None,
        other => bail!("--game {other}: unknown game (overcooked, capture, escape, hanabi, hanabi:3p .. hanabi:5p)"),
    };
    if let Some((name, default)) = maze {
        if a.jaxmarl.is_some() || a.view_radius.is_some() {
            bail!("--jaxmarl and --view-radius apply to OvercookedV2 layouts (--layout v2:NAME)");
        }
        let spec = a.layout.clone().unwrap_or_else(|| default.to_string());
        return match name {
            "capture" => bench_maze::<Capture>(name, &spec, load_capture(&spec).context("--layout")?, &a),
            _ => bench_maze::<Escape>(name, &spec, load_escape(&spec).context("--layout")?, &a),
        };
    }
    if a.reference.is_some() || a.reference_src.is_some() {
        bail!("--reference and --reference-src apply to --game capture and --game escape");
    }
    let layout_name = a.layout.clone().unwrap_or_else(|| "cramped_room".to_string());
    if let ("v2:", spec) = catalog::split_path(&layout_name) {
        return bench_v2(spec, &a);
    }
    if a.jaxmarl.is_some() || a.view_radius.is_some() {
        bail!("--jaxmarl and --view-radius apply to OvercookedV2 layouts (--layout v2:NAME)");
    }
    let layout = load_layout(&layout_name)?;
    let (secs, reward) = timed::overcooked(&layout, a.steps, a.seed);
    let rate = a.steps as f64 / secs;
    if a.json {
        println!(
            "{}",
            json!({"layout": layout.name, "steps": a.steps, "seconds": secs, "steps_per_sec": rate, "total_reward": reward, "seed": a.seed})
        );
    } else {
        println!(
            "{}: {} in {:.3} s = {:.2} M steps/s (total reward {reward})",
            layout.name,
            counted(a.steps, "step", "steps"),
            secs,
            rate / 1e6
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `bench env --game capture|escape`: turns per second of random legal joint actions, and
/// beside them the LLM-Coordination repository's own game loop (scripts/bench_collab.py).
fn bench_maze<G: MazeBench>(name: &str, spec: &str, g: G, c: &EnvBenchArgs) -> Result<ExitCode> {
    let reference_src = match (&c.reference, &c.reference_src) {
        (Some(_), None) => {
            bail!("--reference needs --reference-src: the `src` folder of an eric-ai-lab/llm_coordination checkout")
        }
        (Some(_), Some(src)) => {
            check_script("--reference", &c.reference_script)?;
            Some(src)
        }
        _ => None,
    };
    let (ours, limit) = (timed::maze(&g, c.steps, c.seed), g.max_steps());
    let rate = c.steps as f64 / ours.seconds;
    let cpu_rate = ours.cpu_seconds.map(|cpu| c.steps as f64 / cpu);
    let reference = match (&c.reference, reference_src) {
        (Some(python), Some(src)) => {
            let script = Reference { flag: "--reference", python, script: &c.reference_script };
            let src = src.display().to_string();
            let args = ["--src", &src, "--game", name, "--scenario", spec, "--steps"];
            let mut args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
            args.extend([c.reference_steps.to_string(), "--seed".into(), c.seed.to_string()]);
            Some(script.run(&args)?)
        }
        _ => None,
    };
    let theirs = reference.as_ref().and_then(|r| r["turns_per_sec"].as_f64());
    let theirs_cpu = reference.as_ref().and_then(|r| r["turns_per_cpu_sec"].as_f64());
    let cpu_ratio = cpu_rate.zip(theirs_cpu).map(|(o, t)| o / t);
    if c.json {
        println!(
            "{}",
            json!({"game": name, "layout": spec, "steps": c.steps, "seed": c.seed, "turn_limit": limit,
                   "proagent": {"seconds": ours.seconds, "cpu_seconds": ours.cpu_seconds, "turns_per_sec": rate,
                                "turns_per_cpu_sec": cpu_rate, "episodes": ours.episodes, "successes": ours.successes},
                   "reference": reference, "ratio": theirs.map(|t| rate / t), "cpu_ratio": cpu_ratio})
        );
        return Ok(ExitCode::SUCCESS);
    }
    let per_cpu = |r: Option<f64>| r.map_or(String::new(), |r| format!(", {:.3} M per CPU second", r / 1e6));
    println!(
        "{spec}: {} in {:.3} s = {:.3} M turns/s{} ({}, {} won; random legal actions, turn limit {limit})",
        counted(c.steps, "turn", "turns"),
        ours.seconds,
        rate / 1e6,
        per_cpu(cpu_rate),
        counted(ours.episodes, "episode", "episodes"),
        ours.successes
    );
    match (&reference, theirs) {
        (Some(r), Some(t)) => {
            println!(
                "  reference (llm_coordination's own loop, {}): {} turns in {:.3} s = {:.0} turns/s{}",
                r["loop"].as_str().unwrap_or("?"),
                r["turns"],
                r["seconds"].as_f64().unwrap_or(0.0),
                t,
                theirs_cpu.map_or(String::new(), |c| format!(", {c:.0} per CPU second"))
            );
            println!(
                "  ratio {:.0}x (wall){}",
                rate / t,
                cpu_ratio.map_or(String::new(), |r| format!(", {r:.0}x (CPU time)"))
            );
        }
        _ => println!("  (give --reference PYTHON --reference-src DIR to time llm_coordination's own loop beside it)"),
    }
    Ok(ExitCode::SUCCESS)
}

/// `bench env --layout v2:NAME`: OvercookedV2 steps per second (one environment and a batch
/// over all cores, each without and with observations), and beside them JaxMARL's
/// (scripts/bench_jaxmarl_v2.py) with the ratios.
fn bench_v2(spec: &str, c: &EnvBenchArgs) -> Result<ExitCode> {
    let (layout, _) = load_v2_layout(spec).context("--layout")?;
    if c.jaxmarl.is_some() {
        check_script("--jaxmarl", &c.jaxmarl_script)?;
    }
    let settings = Settings { view_radius: c.view_radius, ..Settings::default() };
    let n = layout.num_agents();
    let table = timed::v2_actions(n, c.seed);
    let (t_state, check) = timed::v2(&layout, &settings, &table, c.steps, c.seed, false);
    let obs_steps = (c.steps / 10).max(1);
    let (t_obs, _) = timed::v2(&layout, &settings, &table, obs_steps, c.seed, true);
    let single_state = c.steps as f64 / t_state;
    let single_obs = obs_steps as f64 / t_obs;
    let batch_state = timed::v2_batched(&layout, &settings, &table, c.batch, c.batch_steps, c.seed, false);
    let batch_obs = timed::v2_batched(&layout, &settings, &table, c.batch, c.batch_steps, c.seed, true);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let ours = json!({
        "single_state_steps_per_sec": single_state,
        "single_obs_steps_per_sec": single_obs,
        "batch_state_env_steps_per_sec": batch_state,
        "batch_obs_env_steps_per_sec": batch_obs,
        "threads": threads,
        "checksum": check,
    });
    let jax = match &c.jaxmarl {
        Some(python) => {
            let script = Reference { flag: "--jaxmarl", python, script: &c.jaxmarl_script };
            let mut args = vec!["--layout".to_string(), layout.name.clone(), "--steps".into(), c.jax_steps.to_string()];
            args.extend(["--batch".into(), c.batch.to_string(), "--batch-steps".into(), c.batch_steps.to_string()]);
            args.extend(["--seed".into(), c.seed.to_string()]);
            if let Some(r) = c.view_radius {
                args.extend(["--view-radius".into(), r.to_string()]);
            }
            Some(script.run(&args)?)
        }
        None => None,
    };
    let ratio = |ours: f64, key: &str| jax.as_ref().and_then(|j| j[key].as_f64()).map(|v| ours / v);
    let ratios = json!({
        "single_state": ratio(single_state, "single_state_steps_per_sec"),
        "single_obs": ratio(single_obs, "single_obs_steps_per_sec"),
        "batch_state": ratio(batch_state, "batch_state_env_steps_per_sec"),
        "batch_obs": ratio(batch_obs, "batch_obs_env_steps_per_sec"),
    });
    if c.json {
        println!(
            "{}",
            json!({"layout": format!("v2:{}", layout.name), "steps": c.steps, "batch": c.batch, "batch_steps": c.batch_steps,
                   "view_radius": c.view_radius, "seed": c.seed, "proagent": ours, "jaxmarl": jax, "ratio": ratios})
        );
        return Ok(ExitCode::SUCCESS);
    }
    let m = |v: f64| format!("{:.3} M/s", v / 1e6);
    let radius = c.view_radius.map_or("all".to_string(), |r| r.to_string());
    println!("v2:{} ({n} agents, view radius {radius})", layout.name);
    let row = |what: &str, o: f64, key: &str| {
        let theirs = jax.as_ref().and_then(|j| j[key].as_f64());
        match theirs {
            Some(t) => println!("  {what:<34} proagent {:>12}   jaxmarl {:>12}   ratio {:>7.1}x", m(o), m(t), o / t),
            None => println!("  {what:<34} proagent {:>12}", m(o)),
        }
    };
    row("single env, state only", single_state, "single_state_steps_per_sec");
    row("single env, + observations", single_obs, "single_obs_steps_per_sec");
    row(
        &format!("batch {}x{} (ours on {threads} threads)", c.batch, c.batch_steps),
        batch_state,
        "batch_state_env_steps_per_sec",
    );
    row("batch, + observations", batch_obs, "batch_obs_env_steps_per_sec");
    if jax.is_none() {
        println!("  (give --jaxmarl PYTHON to run JaxMARL's OvercookedV2 beside it)");
    }
    Ok(ExitCode::SUCCESS)
}

/// `bench env --game hanabi[:Np]`: Hanabi moves and RL steps per second on one core, and
/// beside them HLE's (`pyhanabi` moves, `rl_env` steps; scripts/bench_hanabi.py) with the ratios.
fn bench_hanabi(spec: &str, c: &EnvBenchArgs) -> Result<ExitCode> {
    let game = Hanabi::from_spec(spec).context("--game")?;
    if c.hle.is_some() {
        check_script("--hle", &c.hle_script)?;
    }
    let moves = c.steps;
    let (secs, games, check) = proagent::games::hanabi::timed_moves(&game, moves, c.seed, false);
    let moves_rate = moves as f64 / secs;
    let (rl_secs, _, rl_check) = proagent::games::hanabi::timed_moves(&game, c.rl_steps, c.seed, true);
    let rl_rate = c.rl_steps as f64 / rl_secs;
    let trait_rate = moves as f64 / timed::turns(&game, moves, c.seed);
    let hle = match &c.hle {
        Some(python) => {
            let script = Reference { flag: "--hle", python, script: &c.hle_script };
            let args = [("--players", game.players() as u64), ("--moves", c.hle_moves), ("--steps", c.hle_steps)];
            let mut args: Vec<String> = args.iter().flat_map(|(k, v)| [k.to_string(), v.to_string()]).collect();
            args.extend(["--seed".into(), c.seed.to_string()]);
            Some(script.run(&args)?)
        }
        None => None,
    };
    let hle_moves = hle.as_ref().and_then(|h| h["pyhanabi"]["moves_per_sec"].as_f64());
    let hle_steps = hle.as_ref().and_then(|h| h["rl_env"]["steps_per_sec"].as_f64());
    if c.json {
        println!(
            "{}",
            json!({
                "game": game.spec(), "seed": c.seed,
                "proagent": {"moves": moves, "moves_per_sec": moves_rate, "games": games,
                             "game_trait_moves_per_sec": trait_rate,
                             "rl_steps": c.rl_steps, "rl_steps_per_sec": rl_rate,
                             "vector_len": encode::encoded_len(&game), "checksum": check.wrapping_add(rl_check)},
                "hle": hle,
                "ratio": {"moves": hle_moves.map(|h| moves_rate / h), "rl_steps": hle_steps.map(|h| rl_rate / h)},
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!("{} on one core, uniformly random legal moves (seed {}):", game.spec(), c.seed);
    let line = |what: &str, ours: f64, theirs: Option<f64>, who: &str| match theirs {
        Some(t) => println!("  {what:<44} proagent {:>12.0}   {who} {:>9.0}   ratio {:>6.1}x", ours, t, ours / t),
        None => println!("  {what:<44} proagent {:>12.0}", ours),
    };
    line("moves/s (rules API)", moves_rate, hle_moves, "pyhanabi");
    line("moves/s (Game trait: legal_actions + step)", trait_rate, hle_moves, "pyhanabi");
    line(
        &format!("rl steps/s (+ {} obs of {} + legal)", game.players(), encode::encoded_len(&game)),
        rl_rate,
        hle_steps,
        "rl_env  ",
    );
    if hle.is_none() {
        println!("  (give --hle PYTHON, a Python with hanabi-learning-environment, to run HLE beside it)");
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args, Debug)]
pub struct HanabiBotsArgs {
    /// Bots to play in self-play (every seat the same bot).
    #[arg(long, value_delimiter = ',', default_value = "random,simple,convention")]
    bots: Vec<String>,
    /// Player counts.
    #[arg(long, value_delimiter = ',', default_value = "2,3,4,5")]
    players: Vec<usize>,
    /// Games per bot and player count.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    games: u32,
    /// Seed of the first game.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print the results as JSON lines.
    #[arg(long)]
    json: bool,
}

pub fn run_bots(a: HanabiBotsArgs) -> Result<ExitCode> {
    for b in &a.bots {
        if make_bot(b).is_none() {
            bail!("--bots: unknown bot '{b}' (known: {})", BOT_NAMES.join(", "));
        }
    }
    if !a.json {
        println!(
            "{:<11} {:>7} {:>6}  {:>15}  {:>15}  {:>8} {:>8} {:>7}",
            "bot", "players", "games", "HLE score", "cards played", "25s", "lost", "moves"
        );
    }
    for &n in &a.players {
        let game = Hanabi::new(n).with_context(|| format!("--players {n}"))?;
        for b in &a.bots {
            let make = || -> Vec<Box<dyn Seat<Hanabi>>> { (0..n).filter_map(|_| make_bot(b)).collect() };
            let s = evaluate(&game, &make, a.games as usize, a.seed)?;
            if a.json {
                println!("{}", serde_json::to_string(&s)?);
            } else {
                println!(
                    "{:<11} {:>7} {:>6}  {:>7.2} ± {:<5.2}  {:>7.2} ± {:<5.2}  {:>7.1}% {:>7.1}% {:>7.1}",
                    b,
                    n,
                    s.games,
                    s.mean_score,
                    s.sem_score,
                    s.mean_cards_played,
                    s.sem_cards_played,
                    100.0 * s.perfect,
                    100.0 * s.lost_on_lives,
                    s.mean_moves
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
