//! `proagent bench env --layout v2:NAME`: OvercookedV2 simulator speed, and beside it
//! JaxMARL's (single jitted environment and vmapped batch, run by
//! scripts/bench_jaxmarl_v2.py) on the same machine, with the ratios.
//!
//! Both sides step random joint actions with an auto-reset every 400 steps and JaxMARL's
//! default switches; each is timed without observations ("state") and with every agent's
//! observation tensor built and consumed ("obs").

use super::common::load_v2_layout;
use anyhow::{Context, Result, bail};
use proagent::env::Action;
use proagent::env_v2::{Layout, Settings, obs};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// What to measure.
pub struct V2BenchConfig {
    pub steps: u64,
    pub seed: u64,
    pub json: bool,
    pub jaxmarl: Option<PathBuf>,
    pub script: PathBuf,
    pub batch: u32,
    pub batch_steps: u32,
    pub jax_steps: u64,
    pub view_radius: Option<u8>,
}

/// Steps `steps` times on one environment; returns (seconds, checksum).
fn rollout(
    layout: &Layout,
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

/// `batch` environments of `steps` steps each, spread over all cores; env-steps per second.
fn batched(
    layout: &Layout,
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
                    rollout(layout, settings, table, steps as u64, seed ^ u64::from(e), with_obs);
                    e += threads as u32;
                }
            });
        }
    });
    f64::from(batch) * f64::from(steps) / t0.elapsed().as_secs_f64()
}

/// Checks `--jaxmarl-script` before anything is timed: it must exist and be a regular file
/// (it is handed to Python, which would wait for ever on a FIFO).
fn check_script(script: &Path) -> Result<()> {
    if !script.exists() {
        bail!("--jaxmarl-script {}: no such file (run from the repository root, or give its path)", script.display());
    }
    proagent::limits::check_regular(script).with_context(|| format!("--jaxmarl-script {}", script.display()))?;
    Ok(())
}

fn run_jaxmarl(python: &PathBuf, script: &PathBuf, layout: &str, c: &V2BenchConfig) -> Result<Value> {
    check_script(script)?;
    let mut cmd = std::process::Command::new(python);
    cmd.arg(script)
        .args(["--layout", layout, "--steps", &c.jax_steps.to_string()])
        .args(["--batch", &c.batch.to_string(), "--batch-steps", &c.batch_steps.to_string()])
        .args(["--seed", &c.seed.to_string()]);
    if let Some(r) = c.view_radius {
        cmd.args(["--view-radius", &r.to_string()]);
    }
    let out = cmd.output().with_context(|| format!("--jaxmarl: running {}", python.display()))?;
    if !out.status.success() {
        bail!(
            "--jaxmarl: {} exited with {}: {}",
            script.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().rev().find(|l| l.trim_start().starts_with('{')).unwrap_or("");
    serde_json::from_str(line).with_context(|| format!("--jaxmarl: the script printed no JSON result: {text:?}"))
}

pub fn run(spec: &str, c: &V2BenchConfig) -> Result<ExitCode> {
    let (layout, _) = load_v2_layout(spec).context("--layout")?;
    if c.jaxmarl.is_some() {
        check_script(&c.script)?;
    }
    let settings = Settings { view_radius: c.view_radius, ..Settings::default() };
    let n = layout.num_agents();
    let mut rng = ChaCha8Rng::seed_from_u64(c.seed);
    let table: Vec<Vec<Action>> =
        (0..1 << 16).map(|_| (0..n).map(|_| Action::ALL[rng.random_range(0..6)]).collect()).collect();
    let (t_state, check) = rollout(&layout, &settings, &table, c.steps, c.seed, false);
    let obs_steps = (c.steps / 10).max(1);
    let (t_obs, _) = rollout(&layout, &settings, &table, obs_steps, c.seed, true);
    let single_state = c.steps as f64 / t_state;
    let single_obs = obs_steps as f64 / t_obs;
    let batch_state = batched(&layout, &settings, &table, c.batch, c.batch_steps, c.seed, false);
    let batch_obs = batched(&layout, &settings, &table, c.batch, c.batch_steps, c.seed, true);
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
        Some(python) => Some(run_jaxmarl(python, &c.script, &layout.name, c)?),
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
