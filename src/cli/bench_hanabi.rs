//! `proagent bench env --game hanabi[:Np]`: Hanabi simulator speed on one core, and beside
//! it HLE's (`pyhanabi` moves/s and `rl_env` steps/s, run by scripts/bench_hanabi.py) in
//! the same run, with the ratios. `proagent bench hanabi-bots`: self-play scores of the
//! rule-based bots.
//!
//! Both sides play uniformly random legal moves and start a new game whenever one ends:
//! - "moves": a random legal move applied, the replacement card dealt (HLE: `legal_moves`,
//!   `apply_move`, `deal_random_card`);
//! - "rl steps": the same, plus every player's canonical observation vector and the legal
//!   moves built after each step (HLE: `rl_env.HanabiEnv.step`).

use anyhow::{Context, Result, bail};
use proagent::hanabi::encode;
use proagent::hanabi::{Hanabi, Move};
use proagent::partners::hanabi::selfplay::evaluate;
use proagent::partners::hanabi::{BOT_NAMES, make_bot};
use proagent::seat::Seat;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// What `bench env --game hanabi` measures.
pub struct HanabiBenchConfig {
    pub moves: u64,
    pub rl_steps: u64,
    pub seed: u64,
    pub json: bool,
    pub hle: Option<PathBuf>,
    pub script: PathBuf,
    pub hle_moves: u64,
    pub hle_steps: u64,
}

/// The `n`-th set bit of `mask` (`n` < popcount).
fn nth_bit(mut mask: u64, n: u32) -> usize {
    for _ in 0..n {
        mask &= mask - 1;
    }
    mask.trailing_zeros() as usize
}

/// Random legal moves; with `rl`, every player's observation vector and the next legal
/// mask after each move. Returns (seconds, games, checksum).
fn rollout(game: &Hanabi, moves: u64, seed: u64, rl: bool) -> (f64, u64, u64) {
    let mut chance = ChaCha8Rng::seed_from_u64(seed);
    let mut pick = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let table: Vec<u32> = (0..1 << 16).map(|_| pick.random()).collect();
    let mut state = game.new_game(&mut chance);
    let mut buf = Vec::with_capacity(encode::encoded_len(game));
    let (mut games, mut check) = (0u64, 0u64);
    let t0 = Instant::now();
    for i in 0..moves {
        let mask = game.legal_mask(&state);
        let uid = nth_bit(mask, table[(i as usize) & 0xffff] % mask.count_ones().max(1));
        let m = game.move_from_uid(uid).unwrap_or(Move::Play(0));
        if game.apply(&mut state, m, &mut chance).is_err() {
            check += 1;
        }
        if rl {
            for p in 0..game.players() {
                encode::encode(game, &state, p, &mut buf);
                check += u64::from(buf[buf.len() / 2]);
            }
            check += u64::from(game.legal_mask(&state).count_ones());
        }
        if state.is_over() {
            check += u64::from(state.score());
            games += 1;
            state = game.new_game(&mut chance);
        }
    }
    (t0.elapsed().as_secs_f64(), games, check)
}

/// The same random play through the generic game interface (`legal_actions` into a Vec,
/// `step` with one slot per player). Returns seconds.
fn rollout_trait(game: &Hanabi, moves: u64, seed: u64) -> f64 {
    use proagent::game::Game;
    let mut chance = ChaCha8Rng::seed_from_u64(seed);
    let mut pick = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let mut state = game.initial_state(&mut chance);
    let mut actions = vec![None; game.players()];
    let t0 = Instant::now();
    for _ in 0..moves {
        let p = state.current_player();
        let legal = game.legal_actions(game.view(&state, p), p);
        actions.iter_mut().for_each(|a| *a = None);
        actions[p] = legal.get(pick.random_range(0..legal.len().max(1))).copied();
        game.step(&mut state, &actions, &mut chance);
        if game.is_over(&state) {
            state = game.initial_state(&mut chance);
        }
    }
    t0.elapsed().as_secs_f64()
}

/// Checks `--hle-script` before anything is timed: it must exist and be a regular file
/// (it is handed to Python, which would wait for ever on a FIFO).
fn check_hle_script(c: &HanabiBenchConfig) -> Result<()> {
    if !c.script.exists() {
        bail!("--hle-script {}: no such file (run from the repository root, or give its path)", c.script.display());
    }
    proagent::limits::check_regular(&c.script).with_context(|| format!("--hle-script {}", c.script.display()))?;
    Ok(())
}

fn run_hle(c: &HanabiBenchConfig, python: &PathBuf, players: usize) -> Result<Value> {
    check_hle_script(c)?;
    let out = std::process::Command::new(python)
        .arg(&c.script)
        .args(["--players", &players.to_string(), "--moves", &c.hle_moves.to_string()])
        .args(["--steps", &c.hle_steps.to_string(), "--seed", &c.seed.to_string()])
        .output()
        .with_context(|| format!("--hle: running {}", python.display()))?;
    if !out.status.success() {
        bail!(
            "--hle: {} exited with {}: {}",
            c.script.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().rev().find(|l| l.trim_start().starts_with('{')).unwrap_or("");
    serde_json::from_str(line).with_context(|| format!("--hle: the script printed no JSON result: {text:?}"))
}

pub fn run_env(spec: &str, c: &HanabiBenchConfig) -> Result<ExitCode> {
    let game = Hanabi::from_spec(spec).context("--game")?;
    if c.hle.is_some() {
        check_hle_script(c)?;
    }
    let (secs, games, check) = rollout(&game, c.moves, c.seed, false);
    let moves_rate = c.moves as f64 / secs;
    let (rl_secs, _, rl_check) = rollout(&game, c.rl_steps, c.seed, true);
    let rl_rate = c.rl_steps as f64 / rl_secs;
    let trait_rate = c.moves as f64 / rollout_trait(&game, c.moves, c.seed);
    let hle = match &c.hle {
        Some(py) => Some(run_hle(c, py, game.players())?),
        None => None,
    };
    let hle_moves = hle.as_ref().and_then(|h| h["pyhanabi"]["moves_per_sec"].as_f64());
    let hle_steps = hle.as_ref().and_then(|h| h["rl_env"]["steps_per_sec"].as_f64());
    if c.json {
        println!(
            "{}",
            json!({
                "game": game.spec(), "seed": c.seed,
                "proagent": {"moves": c.moves, "moves_per_sec": moves_rate, "games": games,
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
