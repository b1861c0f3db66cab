//! `proagent bench env --game capture|escape`: CollabCapture / CollabEscape turns per
//! second, and beside them the LLM-Coordination repository's own game loops (run by
//! scripts/bench_collab.py on the same machine) with the ratio.
//!
//! Both sides play random legal joint actions (the options the game offers each player),
//! start a new episode when one ends or reaches the turn limit (30 capture, 50 escape),
//! and count turns.

use anyhow::{Context, Result, bail};
use proagent::collab::{Capture, Escape, load_capture, load_escape};
use proagent::game::Game;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Which game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum BenchGame {
    /// Classic Overcooked (or OvercookedV2 with `--layout v2:NAME`).
    Overcooked,
    /// CollabCapture (`--layout capture:1` … `capture:4` or a maze file).
    Capture,
    /// CollabEscape (`--layout escape:1`, `escape:2` or a maze file).
    Escape,
}

/// What to measure.
pub struct CollabBenchConfig {
    pub game: BenchGame,
    pub layout: Option<String>,
    pub steps: u64,
    pub seed: u64,
    pub json: bool,
    pub reference: Option<PathBuf>,
    pub reference_src: Option<PathBuf>,
    pub script: PathBuf,
    pub reference_steps: u64,
}

struct Run {
    seconds: f64,
    cpu_seconds: Option<f64>,
    episodes: u64,
    successes: u64,
}

/// CPU time used by this process so far (user + system), from `/proc/self/stat` in clock
/// ticks of 1/100 s; `None` where that file does not exist. On a busy machine wall time
/// depends on the other jobs, CPU time much less, so the benchmark reports both.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces).
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: u64 = fields.get(11)?.parse().ok()?;
    let stime: u64 = fields.get(12)?.parse().ok()?;
    Some((utime + stime) as f64 / 100.0)
}

/// The legal actions of a player into a reused buffer (no allocation per turn).
trait LegalInto: Game {
    fn legal_into(&self, state: &Self::State, player: usize, out: &mut Vec<Self::Action>);
}

impl LegalInto for Capture {
    fn legal_into(&self, state: &Self::State, player: usize, out: &mut Vec<Self::Action>) {
        self.legal_actions_into(state, player, out);
    }
}

impl LegalInto for Escape {
    fn legal_into(&self, state: &Self::State, player: usize, out: &mut Vec<Self::Action>) {
        self.legal_actions_into(state, player, out);
    }
}

/// Plays `steps` turns of random legal joint actions, restarting finished episodes.
fn rollout<G: LegalInto>(game: &G, steps: u64, seed: u64, success: impl Fn(&G::State) -> bool) -> Run {
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
            *slot = legal.get(table[(2 * i + p) & 0xffff] as usize % legal.len().max(1)).copied();
        }
        game.step(&mut state, &joint, &mut chance);
        if game.is_over(&state) || game.time(&state) >= game.max_steps() {
            episodes += 1;
            successes += u64::from(success(&state));
            state = game.initial_state(&mut chance);
        }
    }
    let seconds = t0.elapsed().as_secs_f64();
    let cpu_seconds = cpu_seconds().zip(cpu0).map(|(b, a)| b - a).filter(|&c| c > 0.0);
    Run { seconds, cpu_seconds, episodes, successes }
}

/// Refuses a reference run that cannot start, before anything is timed.
fn check_reference(c: &CollabBenchConfig) -> Result<()> {
    if c.reference.is_none() {
        return Ok(());
    }
    if c.reference_src.is_none() {
        bail!("--reference needs --reference-src: the `src` folder of an eric-ai-lab/llm_coordination checkout");
    }
    if !c.script.exists() {
        bail!(
            "--reference-script {}: no such file (run from the repository root, or give its path)",
            c.script.display()
        );
    }
    // The script is handed to Python, which would wait for ever on a FIFO.
    proagent::limits::check_regular(&c.script).with_context(|| format!("--reference-script {}", c.script.display()))?;
    Ok(())
}

fn run_reference(python: &PathBuf, c: &CollabBenchConfig, game: &str, spec: &str) -> Result<Value> {
    let Some(src) = &c.reference_src else {
        bail!("--reference needs --reference-src: the `src` folder of an eric-ai-lab/llm_coordination checkout");
    };
    let out = std::process::Command::new(python)
        .arg(&c.script)
        .args(["--src".as_ref(), src.as_os_str()])
        .args(["--game", game, "--scenario", spec])
        .args(["--steps", &c.reference_steps.to_string(), "--seed", &c.seed.to_string()])
        .output()
        .with_context(|| format!("--reference: running {}", python.display()))?;
    if !out.status.success() {
        bail!(
            "--reference: {} exited with {}: {}",
            c.script.display(),
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().rev().find(|l| l.trim_start().starts_with('{')).unwrap_or("");
    serde_json::from_str(line).with_context(|| format!("--reference: the script printed no JSON result: {text:?}"))
}

pub fn run(c: CollabBenchConfig) -> Result<ExitCode> {
    let (name, default) = match c.game {
        BenchGame::Capture => ("capture", "capture:1"),
        BenchGame::Escape => ("escape", "escape:1"),
        BenchGame::Overcooked => bail!("bench_collab runs CollabCapture and CollabEscape only"),
    };
    let spec = c.layout.clone().unwrap_or_else(|| default.to_string());
    check_reference(&c)?;
    let (ours, limit) = match c.game {
        BenchGame::Capture => {
            let g: Capture = load_capture(&spec).context("--layout")?;
            (rollout(&g, c.steps, c.seed, |s| s.caught), g.max_steps())
        }
        _ => {
            let g: Escape = load_escape(&spec).context("--layout")?;
            (rollout(&g, c.steps, c.seed, |s| s.result == proagent::collab::EscapeResult::Escaped), g.max_steps())
        }
    };
    let rate = c.steps as f64 / ours.seconds;
    let cpu_rate = ours.cpu_seconds.map(|cpu| c.steps as f64 / cpu);
    let reference = match &c.reference {
        Some(python) => Some(run_reference(python, &c, name, &spec)?),
        None => None,
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
        "{spec}: {} turns in {:.3} s = {:.3} M turns/s{} ({} episodes, {} won; random legal actions, turn limit {limit})",
        c.steps,
        ours.seconds,
        rate / 1e6,
        per_cpu(cpu_rate),
        ours.episodes,
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
