//! Simulator speed measurements of `proagent bench env`, written once for the command line:
//! the timed random-play loops of every game and the runner of the reference scripts that
//! time the original implementations beside them (JaxMARL's OvercookedV2, DeepMind's HLE,
//! the LLM-Coordination repository's maze games). A game timed through its own rules API
//! rather than [`Game`] has that loop beside it in [`crate::games`].
//!
//! Guarantees: every loop draws its random choices from the seed given (most from a table
//! drawn up front, so the timing measures the simulator, not the RNG) and restarts an
//! episode when it ends; the same seed plays the same moves, so the checksums and counts
//! it returns are reproducible (the times are not). Nothing is printed here.

use proagent_collab::{Capture, Escape, EscapeResult};
use proagent_core::game::Game;
use proagent_overcooked::env::{Action, DEFAULT_HORIZON, Layout};
use proagent_overcooked::game::Overcooked;
use proagent_overcooked_v2::env::{Layout as V2Layout, Settings, obs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Why a reference run could not start or gave no result. Every message names the flag.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The script does not exist.
    #[error("{flag}-script {}: no such file (run from the repository root, or give its path)", script.display())]
    NoScript {
        /// The flag of the Python (`--hle`, `--jaxmarl`, `--reference`).
        flag: &'static str,
        /// The script.
        script: PathBuf,
    },
    /// The script is not a regular file (it is handed to Python, which would wait for ever
    /// on a FIFO).
    #[error("{flag}-script {}: {err}", script.display())]
    NotRegular {
        /// The flag of the Python.
        flag: &'static str,
        /// The script.
        script: PathBuf,
        /// What the check found.
        err: std::io::Error,
    },
    /// The Python could not be started.
    #[error("{flag}: running {}: {err}", python.display())]
    Start {
        /// The flag of the Python.
        flag: &'static str,
        /// The Python.
        python: PathBuf,
        /// Why.
        err: std::io::Error,
    },
    /// The script failed.
    #[error("{flag}: {} exited with {status}: {stderr}", script.display())]
    Failed {
        /// The flag of the Python.
        flag: &'static str,
        /// The script.
        script: PathBuf,
        /// Its exit status.
        status: std::process::ExitStatus,
        /// Its standard error, trimmed.
        stderr: String,
    },
    /// The script's last line that looks like JSON is not.
    #[error("{flag}: the script printed no JSON result: {text:?}: {err}")]
    NoResult {
        /// The flag of the Python.
        flag: &'static str,
        /// What it printed.
        text: String,
        /// The parse error.
        err: serde_json::Error,
    },
}

/// A reference benchmark: a Python script run with a Python named by a flag.
pub struct Reference<'a> {
    /// The flag that names the Python (`--hle`, `--jaxmarl`, `--reference`); the script's
    /// flag is this with `-script` appended.
    pub flag: &'static str,
    /// The Python.
    pub python: &'a Path,
    /// The script.
    pub script: &'a Path,
}

/// Checks a reference script before anything is timed: it must exist and be a regular file.
pub fn check_script(flag: &'static str, script: &Path) -> Result<(), BenchError> {
    if !script.exists() {
        return Err(BenchError::NoScript { flag, script: script.to_path_buf() });
    }
    proagent_core::limits::check_regular(script).map_err(|err| BenchError::NotRegular {
        flag,
        script: script.to_path_buf(),
        err,
    })?;
    Ok(())
}

impl Reference<'_> {
    /// Runs the script with `args` and returns the last JSON line it printed.
    pub fn run(&self, args: &[String]) -> Result<Value, BenchError> {
        check_script(self.flag, self.script)?;
        let out = std::process::Command::new(self.python)
            .arg(self.script)
            .args(args)
            .output()
            .map_err(|err| BenchError::Start { flag: self.flag, python: self.python.to_path_buf(), err })?;
        if !out.status.success() {
            return Err(BenchError::Failed {
                flag: self.flag,
                script: self.script.to_path_buf(),
                status: out.status,
                stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
            });
        }
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text.lines().rev().find(|l| l.trim_start().starts_with('{')).unwrap_or("");
        serde_json::from_str(line).map_err(|err| BenchError::NoResult { flag: self.flag, text: text.clone(), err })
    }
}

/// CPU time used by this process so far (user + system), from `/proc/self/stat` in clock
/// ticks of 1/100 s; `None` where that file does not exist. On a busy machine wall time
/// depends on the other jobs, CPU time much less, so a benchmark can report both.
pub fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) as f64 / 100.0)
}

/// Classic Overcooked: `steps` steps of seeded, interact-heavy random joint actions (40 %
/// interact), restarting at the default horizon. Returns (seconds, total reward).
pub fn overcooked(layout: &Layout, steps: u64, seed: u64) -> (f64, u64) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
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
    for i in 0..steps {
        let out = layout.step(&mut state, table[(i as usize) & 0xffff]);
        reward += out.reward as u64;
        if state.timestep >= DEFAULT_HORIZON {
            state.clone_from(&start);
        }
    }
    (t0.elapsed().as_secs_f64(), reward)
}

/// The random joint actions of an OvercookedV2 layout with `agents` agents, drawn from `seed`.
pub fn v2_actions(agents: usize, seed: u64) -> Vec<Vec<Action>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..1 << 16).map(|_| (0..agents).map(|_| Action::ALL[rng.random_range(0..6)]).collect()).collect()
}

/// OvercookedV2: `steps` steps of one environment on the joint actions `table` (with
/// `with_obs`, every agent's observation tensor built and consumed after each step),
/// restarting when an episode is done. Returns (seconds, checksum).
pub fn v2(
    layout: &V2Layout,
    settings: &Settings,
    table: &[Vec<Action>],
    steps: u64,
    seed: u64,
    with_obs: bool,
) -> (f64, i64) {
    let mut chance = ChaCha8Rng::seed_from_u64(seed);
    let mut state = layout.start_state(settings, &mut chance);
    let mut buf = Vec::new();
    let mut check: i64 = 0;
    let t0 = Instant::now();
    for i in 0..steps {
        let out = layout.step(settings, &mut state, &table[(i as usize) & 0xffff], &mut chance);
        check += i64::from(out.reward);
        if with_obs {
            for a in 0..state.agents.len() {
                obs::encode(layout, settings, &state, a, &mut buf);
                check += buf.iter().map(|&v| i64::from(v)).sum::<i64>() & 1;
            }
        }
        if state.done(settings) {
            state = layout.start_state(settings, &mut chance);
        }
    }
    (t0.elapsed().as_secs_f64(), check)
}

/// OvercookedV2: `batch` environments of `steps` steps each, spread over all cores.
/// Returns environment steps per second.
pub fn v2_batched(
    layout: &V2Layout,
    settings: &Settings,
    table: &[Vec<Action>],
    batch: u32,
    steps: u32,
    seed: u64,
    with_obs: bool,
) -> f64 {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(batch as usize);
    let t0 = Instant::now();
    std::thread::scope(|s| {
        for t in 0..threads {
            s.spawn(move || {
                let mut e = t as u32;
                while e < batch {
                    v2(layout, settings, table, steps as u64, seed ^ u64::from(e), with_obs);
                    e += threads as u32;
                }
            });
        }
    });
    f64::from(batch) * f64::from(steps) / t0.elapsed().as_secs_f64()
}

/// Any turn-based game through the generic interface (`legal_actions` into a Vec, `step`
/// with one slot per player): `moves` uniformly random legal moves. Returns seconds.
pub fn turns<G: Game>(game: &G, moves: u64, seed: u64) -> f64 {
    let mut chance = ChaCha8Rng::seed_from_u64(seed);
    let mut pick = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let mut state = game.initial_state(&mut chance);
    let mut actions = vec![None; game.num_players()];
    let t0 = Instant::now();
    for _ in 0..moves {
        let p = match game.turn(&state) {
            proagent_core::game::Turn::Player(p) => p,
            _ => 0,
        };
        let legal = game.legal_actions(game.view(&state, p), p);
        actions.iter_mut().for_each(|a| *a = None);
        actions[p] = legal.get(pick.random_range(0..legal.len().max(1))).cloned();
        game.step(&mut state, &actions, &mut chance);
        if game.is_over(&state) {
            state = game.initial_state(&mut chance);
        }
    }
    t0.elapsed().as_secs_f64()
}

/// What a run of random play of a maze game gave.
pub struct MazeRun {
    /// Wall time.
    pub seconds: f64,
    /// CPU time of the process over the run, where the system reports it.
    pub cpu_seconds: Option<f64>,
    /// Episodes finished (ended or at the turn limit).
    pub episodes: u64,
    /// Episodes the players won.
    pub successes: u64,
}

/// A maze game as the benchmark plays it: its legal actions into a reused buffer (no
/// allocation per turn) and whether a finished episode was won.
pub trait MazeBench: Game {
    /// The legal actions of `player` into `out`.
    fn legal_into(&self, state: &Self::State, player: usize, out: &mut Vec<Self::Action>);
    /// Whether the players won the finished episode.
    fn won(&self, state: &Self::State) -> bool;
}

impl MazeBench for Capture {
    fn legal_into(&self, state: &Self::State, player: usize, out: &mut Vec<Self::Action>) {
        self.legal_actions_into(state, player, out);
    }
    fn won(&self, state: &Self::State) -> bool {
        state.caught
    }
}

impl MazeBench for Escape {
    fn legal_into(&self, state: &Self::State, player: usize, out: &mut Vec<Self::Action>) {
        self.legal_actions_into(state, player, out);
    }
    fn won(&self, state: &Self::State) -> bool {
        state.result == EscapeResult::Escaped
    }
}

/// A maze game: `steps` turns of random legal joint actions, restarting an episode when it
/// ends or reaches the turn limit.
pub fn maze<G: MazeBench>(game: &G, steps: u64, seed: u64) -> MazeRun {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let table: Vec<u32> = (0..1 << 16).map(|_| rng.random()).collect();
    let mut chance = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let mut state = game.initial_state(&mut chance);
    let (mut episodes, mut successes) = (0, 0);
    let mut legal = Vec::new();
    let cpu0 = cpu_seconds();
    let t0 = Instant::now();
    for i in 0..steps as usize {
        let mut joint = [None, None];
        for (p, slot) in joint.iter_mut().enumerate() {
            game.legal_into(&state, p, &mut legal);
            *slot = legal.get(table[(2 * i + p) & 0xffff] as usize % legal.len().max(1)).cloned();
        }
        game.step(&mut state, &joint, &mut chance);
        if game.is_over(&state) || game.time(&state) >= game.max_steps() {
            episodes += 1;
            successes += u64::from(game.won(&state));
            state = game.initial_state(&mut chance);
        }
    }
    let seconds = t0.elapsed().as_secs_f64();
    let cpu_seconds = cpu_seconds().zip(cpu0).map(|(b, a)| b - a).filter(|&c| c > 0.0);
    MazeRun { seconds, cpu_seconds, episodes, successes }
}

/// `bench controller`: the mean time of each built-in layout's precompute (over `repeats`
/// builds) and the cost of every controller decision on `episodes` seeded scripted
/// self-play episodes per layout (two controllers driven by the scripted skill choice).
/// Returns the JSON report (precompute per layout and in total, mean and p99 decision
/// time, overall and per layout).
pub fn controller(episodes: u32, repeats: u32, seed: u64) -> Value {
    use proagent_overcooked::controller::{Controller, Kitchen};
    use proagent_overcooked::env::layout::BUILTIN;
    use serde_json::{Map, json};
    use std::sync::Arc;
    let repeats = repeats.max(1);
    let mut pre = Map::new();
    let mut pre_total = 0.0;
    let mut per_layout_us = Map::new();
    let (mut decisions, mut decision_ns) = (0u64, 0u128);
    let mut all: Vec<u32> = Vec::new();
    for (name, _) in BUILTIN {
        let Some(layout) = Layout::builtin(name) else { continue };
        let layout = Arc::new(layout);
        let t0 = Instant::now();
        let mut kitchen = Kitchen::new(Arc::clone(&layout));
        for _ in 1..repeats {
            kitchen = Kitchen::new(Arc::clone(&layout));
        }
        let ms = t0.elapsed().as_secs_f64() * 1e3 / repeats as f64;
        pre.insert(name.to_string(), json!(ms));
        pre_total += ms;
        let kitchen = Arc::new(kitchen);
        let (mut n, mut ns) = (0u64, 0u128);
        for e in 0..episodes {
            let ep_seed = seed.wrapping_add(e as u64);
            let mut ctrl = [0, 1]
                .map(|i| Controller::new(Arc::clone(&kitchen), i, proagent_core::seat::derive_seed(ep_seed, i as u64)));
            let mut state = layout.start_state();
            for _ in 0..DEFAULT_HORIZON {
                let mut joint = [Action::Stay; 2];
                for i in 0..2 {
                    for _ in 0..4 {
                        if ctrl[i].skill().is_none() {
                            let facts = proagent_partners::scripted::facts_from_state(
                                &kitchen,
                                &state,
                                i,
                                None,
                                DEFAULT_HORIZON,
                            );
                            ctrl[i].set_skill(proagent_overcooked::skills::rules::choose_skill(&facts), &state);
                        }
                        let t = Instant::now();
                        let step = ctrl[i].step(&state);
                        let dt = t.elapsed().as_nanos();
                        ns += dt;
                        n += 1;
                        all.push(dt.min(u32::MAX as u128) as u32);
                        if !step.status.is_done() {
                            joint[i] = step.action;
                            break;
                        }
                    }
                }
                layout.step(&mut state, joint);
            }
        }
        per_layout_us.insert(name.to_string(), json!(if n == 0 { 0.0 } else { ns as f64 / n as f64 / 1e3 }));
        decisions += n;
        decision_ns += ns;
    }
    all.sort_unstable();
    let p99 = all.get(all.len().saturating_sub(1) * 99 / 100).copied().unwrap_or(0) as f64 / 1e3;
    let mean_us = if decisions == 0 { 0.0 } else { decision_ns as f64 / decisions as f64 / 1e3 };
    json!({
        "precompute_ms": Value::Object(pre),
        "precompute_ms_total": pre_total,
        "decision_us": mean_us,
        "decision_us_p99": p99,
        "decision_us_by_layout": Value::Object(per_layout_us),
        "decisions": decisions,
        "episodes_per_layout": episodes,
        "seed": seed,
    })
}

/// `bench rl`'s comparison: the same MLP as the plain-Rust PPO network (layer `sizes`, ReLU
/// trunk, 7 outputs) in candle, forward + backward of Σ out on the minibatch `x` of `batch`
/// rows, `repeats` times. Returns seconds.
pub fn candle_fwd_bwd(sizes: &[usize], x: &[f32], batch: usize, repeats: usize) -> candle_core::Result<f64> {
    use candle_core::{DType, Device, Tensor, Var};
    let dev = Device::Cpu;
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut params = Vec::new();
    for w in sizes.windows(2) {
        let (i, o) = (w[0], w[1]);
        let lim = (6.0 / (i + o) as f64).sqrt() as f32;
        let v: Vec<f32> = (0..i * o).map(|_| rng.random_range(-lim..lim)).collect();
        params.push(Var::from_tensor(&Tensor::from_vec(v, (o, i), &dev)?)?);
        params.push(Var::from_tensor(&Tensor::zeros(o, DType::F32, &dev)?)?);
    }
    let xt = Tensor::from_slice(x, (batch, sizes[0]), &dev)?;
    let coef = Tensor::ones((batch, proagent_partners::rl::net::HEAD_OUTPUTS), DType::F32, &dev)?;
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

/// PPO self-play scores of Carroll et al. (2019) on the five classic layouts, in the order of
/// the built-in layouts (published, not measured here).
pub const PPO_SELF_PLAY: [f64; 5] = [199.0, 167.0, 191.0, 152.0, 122.0];

/// One cell of `bench partners`: the scores of its episodes.
pub struct ScoreCell {
    /// Mean score.
    pub mean: f64,
    /// Lowest score.
    pub min: i64,
    /// Highest score.
    pub max: i64,
    /// Episodes that ended in a deadlock.
    pub deadlocks: usize,
}

impl ScoreCell {
    fn of(results: &[crate::runner::EpisodeResult<Overcooked>]) -> ScoreCell {
        let n = results.len().max(1) as f64;
        ScoreCell {
            mean: results.iter().map(|r| r.score as f64).sum::<f64>() / n,
            min: results.iter().map(|r| r.score).min().unwrap_or(0),
            max: results.iter().map(|r| r.score).max().unwrap_or(0),
            deadlocks: results.iter().filter(|r| r.deadlocked()).count(),
        }
    }

    /// The cell as JSON (`mean`, `min`, `max`, `deadlocks`).
    pub fn json(&self) -> Value {
        serde_json::json!({"mean": self.mean, "min": self.min, "max": self.max, "deadlocks": self.deadlocks})
    }
}

/// One layout of `bench partners`.
pub struct PartnersRow {
    /// The layout.
    pub layout: String,
    /// The agent with the partner, the agent in seat 0 and in seat 1.
    pub with_partner: [ScoreCell; 2],
    /// The agent in both seats.
    pub self_play: ScoreCell,
    /// ProAgent with GPT-3.5 in the paper's Table 1 (seat 0, seat 1), published.
    pub published_proagent: (f64, f64),
    /// PPO self-play of Carroll et al. (2019), published.
    pub published_ppo: f64,
}

/// Why `bench partners` stopped. The message names the flag of a refused seat.
#[derive(Debug, thiserror::Error)]
pub enum PartnersBenchError {
    /// The agent's spec builds no seat.
    #[error("--agent: {0}")]
    Agent(crate::runner::seats::SeatError),
    /// The partner's spec builds no seat.
    #[error("--partner: {0}")]
    Partner(crate::runner::seats::SeatError),
    /// An episode failed.
    #[error(transparent)]
    Run(#[from] crate::runner::RunError<Overcooked>),
}

/// `bench partners`: on each built-in classic layout, `episodes` episodes (seeds `seed`,
/// `seed + 1`, ...) of `agent` with `partner` (the agent in seat 0, then in seat 1) and of
/// the agent in self-play, beside the published figures.
pub async fn partners(
    agent: &str,
    partner: &str,
    episodes: u32,
    seed: u64,
    horizon: u32,
) -> Result<Vec<PartnersRow>, PartnersBenchError> {
    use crate::runner::seats::SeatFactory;
    use crate::runner::{EpisodeOptions, play_seated};
    use std::sync::Arc;
    let mut rows = Vec::new();
    let builtin = proagent_overcooked::env::layout::BUILTIN.iter();
    for (i, (name, _)) in builtin.enumerate() {
        let Some(layout) = Layout::builtin(name) else { continue };
        let game = Arc::new(Overcooked::new(Arc::new(layout), horizon));
        let factory = SeatFactory::default();
        factory.check(agent, &*game, 0).map_err(PartnersBenchError::Agent)?;
        factory.check(partner, &*game, 1).map_err(PartnersBenchError::Partner)?;
        let mut cells = Vec::new();
        for seat in [Some(0), Some(1), None] {
            let mut out = Vec::new();
            for e in 0..episodes {
                let other = if seat.is_some() { partner } else { agent };
                let specs = if seat == Some(1) { [other, agent] } else { [agent, other] };
                let seed = seed.wrapping_add(e as u64);
                out.push(play_seated(&game, &factory, &specs, seed, None, EpisodeOptions::default()).await?);
            }
            cells.push(ScoreCell::of(&out));
        }
        let (Some(self_play), Some(p1), Some(p0)) = (cells.pop(), cells.pop(), cells.pop()) else { continue };
        let (_, ref0, ref1) = crate::sweep::report::PROAGENT_TABLE1_GPT35[i];
        rows.push(PartnersRow {
            layout: name.to_string(),
            with_partner: [p0, p1],
            self_play,
            published_proagent: (ref0, ref1),
            published_ppo: PPO_SELF_PLAY[i],
        });
    }
    Ok(rows)
}

/// What `bench rl` measures with: the PPO set-up of the timed rollout and update.
pub struct RlBench {
    /// Environments per rollout (each plays one episode of `horizon` steps).
    pub envs: usize,
    /// Steps per episode.
    pub horizon: usize,
    /// Hidden-layer widths.
    pub hidden: Vec<usize>,
    /// PPO passes of the timed update.
    pub epochs: usize,
    /// Minibatches per pass.
    pub minibatches: usize,
    /// Threads for rollouts and gradients.
    pub threads: usize,
    /// Repetitions of the forward + backward comparison.
    pub repeats: usize,
}

/// What `bench rl` measured.
pub struct RlMeasured {
    /// The encoder's name.
    pub encoder: String,
    /// Inputs of the network.
    pub inputs: usize,
    /// Layer sizes of the network.
    pub sizes: Vec<usize>,
    /// Parameters of the network.
    pub parameters: usize,
    /// Seconds of the rollout.
    pub rollout_s: f64,
    /// Environment steps of the rollout.
    pub env_steps: f64,
    /// Microseconds of one seat's features.
    pub feature_us: f64,
    /// Seconds of the update.
    pub update_s: f64,
    /// Samples of the update.
    pub samples: usize,
    /// Samples per second through the update (all passes).
    pub update_rate: f64,
    /// Samples of the forward + backward comparison's minibatch.
    pub minibatch: usize,
    /// Seconds of the plain-Rust forward + backward.
    pub plain_s: f64,
    /// Seconds of candle's forward + backward.
    pub candle_s: f64,
    /// Samples in each of the two comparison timings.
    pub per: f64,
}

/// Why `bench rl` could not measure.
#[derive(Debug, thiserror::Error)]
pub enum RlBenchError {
    /// The trainer refused the set-up.
    #[error(transparent)]
    Train(#[from] proagent_partners::rl::train::TrainError),
    /// The set-up would allocate more than the trainer allows.
    #[error("these flags would allocate about {0} (docs/limits.md)")]
    Budget(String),
    /// candle failed.
    #[error("candle forward/backward: {0}")]
    Candle(#[from] candle_core::Error),
}

/// `bench rl`: the speed of PPO training's halves on `game` — a self-play rollout
/// (environment steps per second, features and forward passes included), the features
/// alone, one update (samples per second through forward + backward + Adam) — and the same
/// network's forward + backward on one minibatch in plain Rust and in candle.
pub fn rl<G: proagent_partners::rl::RlGame>(game: &G, p: &RlBench) -> Result<RlMeasured, RlBenchError> {
    use proagent_partners::rl::net::{HEAD_OUTPUTS, Net, Workspace};
    use proagent_partners::rl::obs::Encode;
    use proagent_partners::rl::ppo::{PpoConfig, update};
    use proagent_partners::rl::rollout::{EnvSlot, SeatPolicy, collect_parallel};
    use proagent_partners::rl::train::to_batch;
    let cfg = proagent_partners::rl::TrainConfig {
        envs: p.envs,
        horizon: p.horizon,
        hidden: p.hidden.clone(),
        encoder: G::ENCODERS[0].to_string(),
        threads: p.threads,
        ..proagent_partners::rl::TrainConfig::new(proagent_partners::rl::Algo::Sp, 0)
    };
    let lenc = proagent_partners::rl::train::run_encoder(game, &cfg)?;
    let dim = lenc.dim();
    let budget = cfg.memory_estimate(dim);
    if budget > proagent_partners::rl::train::MAX_TRAIN_BYTES {
        return Err(RlBenchError::Budget(proagent_core::limits::human_bytes(budget)));
    }
    let net = Net::new(dim, &p.hidden, 7);
    let both = [SeatPolicy { net: 0, record: true }; 2];
    let mut slots: Vec<EnvSlot> = (0..p.envs)
        .map(|e| EnvSlot {
            seats: both,
            rng: ChaCha8Rng::seed_from_u64(e as u64),
            chance: ChaCha8Rng::seed_from_u64(e as u64 + 1_000_000),
            own_shaping: false,
        })
        .collect();

    let t = Instant::now();
    let r = collect_parallel(game, &lenc, &[&net], &mut slots, p.horizon, 1.0, p.threads);
    let rollout_s = t.elapsed().as_secs_f64();
    let env_steps = (p.envs * p.horizon) as f64;

    // The features alone, for the split of rollout time.
    let mut x = vec![0f32; dim];
    let state = game.initial_state(&mut ChaCha8Rng::seed_from_u64(0));
    let t = Instant::now();
    let n_feat = 20_000;
    for i in 0..n_feat {
        lenc.encode(game.view(&state, i & 1), i & 1, &mut x);
    }
    let feature_us = t.elapsed().as_secs_f64() * 1e6 / n_feat as f64;

    let cfg = PpoConfig { epochs: p.epochs, minibatches: p.minibatches, ..PpoConfig::default() };
    let batch = to_batch(&r, cfg.gamma as f32, cfg.lambda as f32);
    let mut upd_net = net.clone();
    let mut opt = proagent_partners::rl::net::Adam::new(net.params.len());
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let t = Instant::now();
    update(&mut upd_net, &mut opt, &batch, &cfg, &mut rng, p.threads);
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
    for _ in 0..p.repeats {
        net.forward(xs, mb, &mut ws);
        net.backward(xs, &mut ws, &dout, &mut grad);
    }
    let plain_s = t.elapsed().as_secs_f64();
    let candle_s = candle_fwd_bwd(&net.sizes, xs, mb, p.repeats)?;
    let per = (mb * p.repeats) as f64;

    Ok(RlMeasured {
        encoder: lenc.name().to_string(),
        inputs: dim,
        sizes: net.sizes.clone(),
        parameters: net.params.len(),
        rollout_s,
        env_steps,
        feature_us,
        update_s,
        samples,
        update_rate,
        minibatch: mb,
        plain_s,
        candle_s,
        per,
    })
}

/// What `bench agent` timed over its episodes.
pub struct AgentTimes {
    /// Time in the agent's `reset` and `act` (model wait included).
    pub agent: std::time::Duration,
    /// Time the agent waited for its model.
    pub llm: std::time::Duration,
    /// Wall time of the whole episodes.
    pub episodes: std::time::Duration,
    /// The longest episode.
    pub worst_episode: std::time::Duration,
    /// Environment steps played.
    pub steps: u64,
    /// Model calls of the agent.
    pub calls: u64,
    /// Total score.
    pub score: u64,
    /// CPU time of the process over the episodes, where the system reports it.
    pub cpu_seconds: Option<f64>,
}

/// Why `bench agent` stopped: timings of an agent whose model is failing, or whose
/// decisions were mostly not read, would measure the fallback, not the agent.
#[derive(Debug, thiserror::Error)]
pub enum AgentBenchError {
    /// A seat could not be built.
    #[error(transparent)]
    Seat(#[from] crate::runner::seats::SeatError),
    /// A seat ended the run.
    #[error(transparent)]
    Agent(#[from] proagent_core::seat::AgentError),
    /// Too many model calls failed.
    #[error(
        "episode seed {seed}: {failures} model calls failed after every retry (--max-llm-failures {limit}); last: {last}"
    )]
    ModelFailures {
        /// The episode's seed.
        seed: u64,
        /// Calls that failed.
        failures: u64,
        /// The limit.
        limit: u64,
        /// The last failure.
        last: String,
    },
    /// Too many of the agent's decisions were not read.
    #[error("episode seed {seed}: {abort}")]
    Unread {
        /// The episode's seed.
        seed: u64,
        /// What the runner's rule says.
        abort: proagent_core::EpisodeAbort,
    },
}

/// `bench agent`: ProAgent (configuration `cfg`) in seat `seat` of classic Overcooked with
/// `partner` in the other, one episode per seed, timing the agent's own work apart from its
/// model wait; `limits` are the most failed model calls and the largest unread share of
/// decisions an episode may have (the runner's rules).
pub async fn agent(
    game: &std::sync::Arc<Overcooked>,
    factory: &crate::runner::seats::SeatFactory,
    cfg: &proagent_agent::ProAgentConfig,
    partner: &str,
    seat: usize,
    seeds: &[u64],
    limits: (u64, f64),
) -> Result<AgentTimes, AgentBenchError> {
    use crate::runner::{seat_seed, unread_decisions};
    use proagent_agent::{OvercookedGrounding, ProAgent};
    use proagent_core::seat::{Observation, Seat};
    use proagent_overcooked::env::Event;
    use std::sync::Arc;
    use std::time::Duration;
    let (max_llm_failures, max_parse_failure_share) = limits;
    let layout = Arc::clone(&game.layout);
    let cpu0 = cpu_seconds();
    let (mut agent_time, mut llm_time, mut episode_time) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut worst_episode = Duration::ZERO;
    let (mut steps, mut calls, mut score) = (0u64, 0u64, 0u64);
    for &seed in seeds {
        let mut agent = ProAgent::<OvercookedGrounding>::new(cfg.clone());
        let mut partner = factory.build(partner, &**game)?.seat;
        let t_episode = Instant::now();
        let t_reset = Instant::now();
        agent.reset(game, seat, seat_seed(seed, seat));
        let mut this_agent = t_reset.elapsed();
        partner.reset(game, 1 - seat, seat_seed(seed, 1 - seat));
        let mut state = layout.start_state();
        let mut last_joint: Vec<Option<Action>> = Vec::new();
        let mut last_events: [Option<Event>; 2] = [None, None];
        for t in 0..game.horizon {
            let mut joint = [Action::Stay; 2];
            for (i, slot) in joint.iter_mut().enumerate() {
                let obs = Observation {
                    last_actions: &last_joint,
                    last_events: &last_events,
                    ..Observation::new(&**game, &state, i, t)
                };
                if i == seat {
                    let t0 = Instant::now();
                    *slot = agent.act(&obs).await?;
                    this_agent += t0.elapsed();
                    // Timings of an agent whose model is failing measure the fallback, not the agent.
                    let failures = u64::from(agent.agent_metrics().llm_failures);
                    if failures > max_llm_failures {
                        let last = agent.last_llm_failure().unwrap_or_default();
                        return Err(AgentBenchError::ModelFailures { seed, failures, limit: max_llm_failures, last });
                    }
                } else {
                    *slot = partner.act(&obs).await?;
                }
            }
            let out = layout.step(&mut state, joint);
            score += out.reward as u64;
            last_joint = joint.map(Some).to_vec();
            last_events = out.events;
        }
        // Likewise an agent whose decisions were mostly not read (the runner's one rule).
        let usage = agent.llm_usage();
        if let Some(abort) = unread_decisions(&usage, max_parse_failure_share, game.horizon) {
            return Err(AgentBenchError::Unread { seed, abort });
        }
        let this_episode = t_episode.elapsed();
        worst_episode = worst_episode.max(this_episode);
        episode_time += this_episode;
        agent_time += this_agent;
        llm_time += agent.llm_wait();
        steps += game.horizon as u64;
        calls = calls.saturating_add(u64::from(agent.agent_metrics().llm_calls));
    }
    let cpu_seconds = cpu0.zip(cpu_seconds()).map(|(a, b)| b - a);
    let (agent, llm, episodes) = (agent_time, llm_time, episode_time);
    Ok(AgentTimes { agent, llm, episodes, worst_episode, steps, calls, score, cpu_seconds })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loops_are_reproducible_from_the_seed() {
        let layout = Layout::builtin("cramped_room").unwrap();
        assert_eq!(overcooked(&layout, 5_000, 3).1, overcooked(&layout, 5_000, 3).1);
        let capture = proagent_collab::load_capture("capture:1").unwrap();
        let (a, b) = (maze(&capture, 2_000, 3), maze(&capture, 2_000, 3));
        assert_eq!((a.episodes, a.successes), (b.episodes, b.successes));
        assert!(turns(&capture, 1_000, 3) >= 0.0);
    }

    #[test]
    fn a_missing_script_is_named_with_its_flag() {
        let e = check_script("--hle", Path::new("/nonexistent/bench.py")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "--hle-script /nonexistent/bench.py: no such file (run from the repository root, or give its path)"
        );
    }
}
