//! `proagent rl …`: train the SP / PBT / FCP / MEP / COLE partners with PPO on classic
//! Overcooked or OvercookedV2 layouts, and evaluate them.

use super::common::{EpisodeArgs, GameSwitches, ModelFileArgs};
use anyhow::{Context, Result, anyhow, bail};
use indicatif::{ProgressBar, ProgressStyle};
use proagent::on_game;
use proagent::rl::RlGame;
use proagent::rl::model::{RlModel, load_file};
use proagent::rl::ppo::PpoConfig;
use proagent::rl::train::{self, Algo, IterRecord, PoolEntry, TrainConfig};
use proagent::runner::seats::SeatFactory;
use proagent::runner::{EpisodeOptions, play_seated};
use proagent_eval::games::{AnyGame, GameOptions, Playable};
use serde_json::{Value, json};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Subcommand, Debug)]
pub enum RlCommand {
    /// Train a policy with PPO (writes FILE and FILE's .json metadata).
    Train(Box<TrainArgs>),
    /// Play a policy in self-play or with a partner, both seats, and report the scores.
    Eval(EvalArgs),
}

#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// sp (self-play), pbt (population-based training), fcp (fictitious co-play), mep
    /// (maximum-entropy population) or cole (cooperative open-ended learning, COLE_SV).
    #[arg(long, value_parser = ["sp", "pbt", "fcp", "mep", "cole"])]
    algo: String,
    /// A built-in layout name (or alias) or a layout file; `v2:NAME` or `v2:PATH` for an
    /// OvercookedV2 layout (with the V2 switches below).
    #[arg(long)]
    layout: String,
    /// Seed of every random choice (weights, environments, minibatches, mutations, draws).
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Where to write the weights (safetensors); the metadata goes next to it as `.json`.
    #[arg(long)]
    out: PathBuf,
    /// Overwrite an existing --out file and its metadata.
    #[arg(long)]
    force: bool,
    /// Environment steps of the final policy's training (per member for pbt).
    #[arg(long, default_value_t = 3_000_000)]
    steps: u64,
    /// Environments per rollout; each plays one whole episode per iteration.
    #[arg(long, default_value_t = 30)]
    envs: usize,
    /// Episode length.
    #[arg(long, default_value_t = 400)]
    horizon: usize,
    /// Hidden-layer widths, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "64,64")]
    hidden: Vec<usize>,
    /// Adam step size.
    #[arg(long)]
    lr: Option<f64>,
    /// PPO clipping range.
    #[arg(long)]
    clip: Option<f64>,
    /// Entropy bonus coefficient.
    #[arg(long)]
    ent_coef: Option<f64>,
    /// Value-loss coefficient.
    #[arg(long)]
    vf_coef: Option<f64>,
    /// Global gradient-norm limit.
    #[arg(long)]
    max_grad_norm: Option<f64>,
    /// Passes over each batch.
    #[arg(long)]
    epochs: Option<usize>,
    /// Minibatches per pass.
    #[arg(long)]
    minibatches: Option<usize>,
    /// Discount factor γ.
    #[arg(long)]
    gamma: Option<f64>,
    /// GAE λ.
    #[arg(long)]
    lambda: Option<f64>,
    /// Environment steps over which the shaped-reward factor falls from 1 to 0
    /// (default: half of --steps).
    #[arg(long)]
    shaping_horizon: Option<u64>,
    /// Whose shaped reward a sample is credited with: auto (the team's in self-play, the
    /// seat's own when paired with another network), team or own.
    #[arg(long, default_value = "auto", value_parser = ["auto", "team", "own"])]
    shaping_credit: String,
    /// Population size (pbt, mep), number of SP runs in the FCP pool, or COLE's largest
    /// population of past learners [default: 3; cole: 25].
    #[arg(long)]
    population: Option<usize>,
    /// Environment steps of each FCP pool run and each MEP population member (default: --steps).
    #[arg(long)]
    pool_steps: Option<u64>,
    /// FCP: use these SP model files (their final weights and their stored early/middle
    /// checkpoints) as the pool instead of training one; comma-separated.
    #[arg(long, value_delimiter = ',')]
    pool: Vec<PathBuf>,
    /// FCP, MEP, COLE: the learner starts from this model file's final weights (same
    /// encoder and layer sizes) instead of random ones.
    #[arg(long, value_name = "FILE")]
    init: Option<PathBuf>,
    /// PBT: iterations between exploit/explore rounds.
    #[arg(long, default_value_t = 10)]
    pbt_interval: usize,
    /// MEP: weight of the population-entropy bonus.
    #[arg(long, default_value_t = 0.01)]
    mep_alpha: f64,
    /// MEP: prioritised-sampling exponent.
    #[arg(long, default_value_t = 3.0)]
    mep_beta: f64,
    /// COLE: learner iterations per generation (between payoff-matrix updates).
    #[arg(long, default_value_t = 10)]
    cole_inner: usize,
    /// COLE: episodes per pair and seat when the payoff matrix is updated.
    #[arg(long, default_value_t = 3)]
    cole_eval_episodes: u32,
    /// COLE: A:B — of every A + B environments, A are self-play and B pair the learner
    /// with a population member.
    #[arg(long, default_value = "1:1")]
    cole_ratio: String,
    /// FCP: A:B — of every A + B environments, A are self-play and B pair the learner
    /// with a pool member (0:1 is the published FCP).
    #[arg(long, default_value = "0:1")]
    fcp_ratio: String,
    /// Self-play episodes of the final evaluation.
    #[arg(long, default_value_t = 100)]
    eval_episodes: u32,
    /// Worker threads for rollouts and gradients (the weights do not depend on it).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// No progress bar or progress lines.
    #[arg(long)]
    quiet: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// The OvercookedV2 switches (`--layout v2:NAME`); recorded in the model file.
    #[command(flatten)]
    v2: GameSwitches,
}

#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    /// The policy: sp, pbt, fcp, mep, cole (shipped), rl:PATH, or a path to a model file.
    #[arg(long)]
    policy: Option<String>,
    /// Deprecated name of --policy.
    #[arg(long, hide = true)]
    model: Option<String>,
    /// The partner (any partner spec: sp, rl:PATH, greedy, bc, …); default: self-play.
    #[arg(long)]
    partner: Option<String>,
    /// A built-in layout name or a layout file; `v2:NAME` for OvercookedV2.
    #[arg(long)]
    layout: String,
    #[command(flatten)]
    run: EpisodeArgs<100>,
    /// Print the scores as JSON.
    #[arg(long)]
    json: bool,
    /// The OvercookedV2 switches (`--layout v2:NAME`).
    #[command(flatten)]
    v2: GameSwitches,
    #[command(flatten)]
    models: ModelFileArgs,
}

pub fn run(c: RlCommand) -> Result<ExitCode> {
    match c {
        RlCommand::Train(a) => train_cmd(*a),
        RlCommand::Eval(a) => eval_cmd(a),
    }
}

fn sidecar(out: &Path) -> PathBuf {
    out.with_extension("json")
}

/// The validated configuration of a `train` command line.
fn config(a: &TrainArgs) -> Result<TrainConfig> {
    let algo = Algo::parse(&a.algo).ok_or_else(|| anyhow!("--algo must be sp, pbt, fcp, mep or cole"))?;
    let population = a.population.unwrap_or(if algo == Algo::Cole { 25 } else { 3 });
    let d = PpoConfig::default();
    let ppo = PpoConfig {
        lr: a.lr.unwrap_or(d.lr),
        clip: a.clip.unwrap_or(d.clip),
        ent_coef: a.ent_coef.unwrap_or(d.ent_coef),
        vf_coef: a.vf_coef.unwrap_or(d.vf_coef),
        max_grad_norm: a.max_grad_norm.unwrap_or(d.max_grad_norm),
        epochs: a.epochs.unwrap_or(d.epochs),
        minibatches: a.minibatches.unwrap_or(d.minibatches),
        gamma: a.gamma.unwrap_or(d.gamma),
        lambda: a.lambda.unwrap_or(d.lambda),
    };
    let range = |flag: &str, ok: bool, what: &str| -> Result<()> { if ok { Ok(()) } else { bail!("{flag} {what}") } };
    range("--steps", a.steps >= 1 && a.steps <= 10_000_000_000, "must be between 1 and 1e10")?;
    range("--envs", (1..=10_000).contains(&a.envs), "must be between 1 and 10000")?;
    range("--horizon", (1..=100_000).contains(&a.horizon), "must be between 1 and 100000")?;
    range(
        "--hidden",
        !a.hidden.is_empty() && a.hidden.iter().all(|&h| (1..=4096).contains(&h)),
        "takes widths between 1 and 4096",
    )?;
    range("--lr", ppo.lr.is_finite() && ppo.lr > 0.0 && ppo.lr < 1.0, "must be in (0, 1)")?;
    range("--clip", ppo.clip.is_finite() && ppo.clip > 0.0 && ppo.clip < 1.0, "must be in (0, 1)")?;
    range("--ent-coef", ppo.ent_coef.is_finite() && ppo.ent_coef >= 0.0, "must be a non-negative number")?;
    range("--vf-coef", ppo.vf_coef.is_finite() && ppo.vf_coef >= 0.0, "must be a non-negative number")?;
    range("--max-grad-norm", ppo.max_grad_norm.is_finite() && ppo.max_grad_norm > 0.0, "must be positive")?;
    range("--epochs", (1..=1000).contains(&ppo.epochs), "must be between 1 and 1000")?;
    range("--minibatches", (1..=10_000).contains(&ppo.minibatches), "must be between 1 and 10000")?;
    range("--gamma", (0.0..=1.0).contains(&ppo.gamma), "must be in [0, 1]")?;
    range("--lambda", (0.0..=1.0).contains(&ppo.lambda), "must be in [0, 1]")?;
    range("--population", (1..=64).contains(&population), "must be between 1 and 64")?;
    range("--cole-inner", (1..=10_000).contains(&a.cole_inner), "must be between 1 and 10000")?;
    range("--cole-eval-episodes", (1..=1000).contains(&a.cole_eval_episodes), "must be between 1 and 1000")?;
    let cole_ratio = ratio(&a.cole_ratio, 0)
        .ok_or_else(|| anyhow!("--cole-ratio takes A:B, two counts of environments (e.g. 1:1, 1:3)"))?;
    let fcp_ratio = ratio(&a.fcp_ratio, 1).ok_or_else(|| {
        anyhow!("--fcp-ratio takes A:B, two counts of environments with B at least 1 (e.g. 0:1, 1:3)")
    })?;
    if fcp_ratio != [0, 1] && algo != Algo::Fcp {
        bail!("--fcp-ratio is only used by --algo fcp");
    }
    range("--pbt-interval", a.pbt_interval >= 1, "must be at least 1")?;
    range("--mep-alpha", a.mep_alpha.is_finite() && a.mep_alpha >= 0.0, "must be a non-negative number")?;
    range("--mep-beta", a.mep_beta.is_finite() && a.mep_beta >= 0.0, "must be a non-negative number")?;
    range("--eval-episodes", (1..=100_000).contains(&a.eval_episodes), "must be between 1 and 100000")?;
    range("--threads", (1..=256).contains(&a.threads), "must be between 1 and 256")?;
    if !a.pool.is_empty() && algo != Algo::Fcp {
        bail!("--pool is only used by --algo fcp");
    }
    if a.init.is_some() && matches!(algo, Algo::Sp | Algo::Pbt) {
        bail!("--init is for the learner of --algo fcp, mep or cole");
    }
    Ok(TrainConfig {
        algo,
        seed: a.seed,
        steps: a.steps,
        envs: a.envs,
        horizon: a.horizon,
        hidden: a.hidden.clone(),
        encoder: String::new(),
        ppo,
        shaping_horizon: a.shaping_horizon.unwrap_or(a.steps / 2),
        shaping_credit: train::ShapingCredit::parse(&a.shaping_credit)
            .ok_or_else(|| anyhow!("--shaping-credit must be auto, team or own"))?,
        population,
        pool_steps: a.pool_steps.unwrap_or(a.steps),
        pbt_interval: a.pbt_interval,
        mep_alpha: a.mep_alpha,
        mep_beta: a.mep_beta,
        cole_inner: a.cole_inner,
        cole_eval_episodes: a.cole_eval_episodes,
        cole_ratio,
        fcp_ratio,
        eval_episodes: a.eval_episodes,
        threads: a.threads,
    })
}

/// Parses `A:B` (two environment counts, each at most 1000, summing to at least 1, B at
/// least `min_b`).
fn ratio(s: &str, min_b: usize) -> Option<[usize; 2]> {
    let (x, y) = s.split_once(':')?;
    let r = [x.trim().parse::<usize>().ok()?, y.trim().parse::<usize>().ok()?];
    (r[0] + r[1] >= 1 && r[1] >= min_b && r[0] <= 1000 && r[1] <= 1000).then_some(r)
}

fn a_credit(c: train::ShapingCredit) -> &'static str {
    match c {
        train::ShapingCredit::Auto => "auto",
        train::ShapingCredit::Team => "team",
        train::ShapingCredit::Own => "own",
    }
}

/// The full command line that reproduces a run (every setting spelled out).
fn command_line(c: &TrainConfig, layout: &str, v2: &str, pool: &[PathBuf], init: Option<&Path>, out: &Path) -> String {
    let p = &c.ppo;
    let hidden: Vec<String> = c.hidden.iter().map(|h| h.to_string()).collect();
    let mut s = format!(
        "proagent rl train --algo {} --layout {layout} --seed {} --steps {} --envs {} --horizon {} --hidden {} \
         --lr {} --clip {} --ent-coef {} --vf-coef {} --max-grad-norm {} --epochs {} --minibatches {} --gamma {} \
         --lambda {} --shaping-horizon {} --shaping-credit {}{v2}",
        c.algo.name(),
        c.seed,
        c.steps,
        c.envs,
        c.horizon,
        hidden.join(","),
        p.lr,
        p.clip,
        p.ent_coef,
        p.vf_coef,
        p.max_grad_norm,
        p.epochs,
        p.minibatches,
        p.gamma,
        p.lambda,
        c.shaping_horizon,
        a_credit(c.shaping_credit)
    );
    match c.algo {
        Algo::Sp => {}
        Algo::Pbt => s += &format!(" --population {} --pbt-interval {}", c.population, c.pbt_interval),
        Algo::Fcp => {
            if pool.is_empty() {
                s += &format!(" --population {} --pool-steps {}", c.population, c.pool_steps);
            } else {
                let files: Vec<String> = pool.iter().map(|p| p.display().to_string()).collect();
                s += &format!(" --pool {}", files.join(","));
            }
            // Only when not the default 0:1, as in the configuration written beside it.
            if c.fcp_ratio != [0, 1] {
                s += &format!(" --fcp-ratio {}:{}", c.fcp_ratio[0], c.fcp_ratio[1]);
            }
        }
        Algo::Mep => {
            s += &format!(
                " --population {} --pool-steps {} --mep-alpha {} --mep-beta {}",
                c.population, c.pool_steps, c.mep_alpha, c.mep_beta
            )
        }
        Algo::Cole => {
            s += &format!(
                " --population {} --cole-inner {} --cole-eval-episodes {}",
                c.population, c.cole_inner, c.cole_eval_episodes
            );
            // Only when not the default 1:1, as in the configuration written beside it.
            if c.cole_ratio != [1, 1] {
                s += &format!(" --cole-ratio {}:{}", c.cole_ratio[0], c.cole_ratio[1]);
            }
        }
    }
    if let Some(f) = init {
        s += &format!(" --init {}", f.display());
    }
    s += &format!(" --eval-episodes {} --out {}", c.eval_episodes, out.display());
    s
}

fn load_pool<G: RlGame>(files: &[PathBuf], game: &G) -> Result<Vec<PoolEntry>> {
    let mut pool = Vec::new();
    for f in files {
        let m: RlModel = load_file(f)?;
        m.encoder_for(game, false).with_context(|| format!("--pool {}", f.display()))?;
        let stem = f.file_stem().map_or_else(|| f.display().to_string(), |s| s.to_string_lossy().into_owned());
        for (tag, net) in &m.checkpoints {
            pool.push(PoolEntry { label: format!("{stem}.{tag}"), net: net.clone() });
        }
        pool.push(PoolEntry { label: format!("{stem}.final"), net: m.net.clone() });
    }
    Ok(pool)
}

fn r2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// The iteration history as columns (compact JSON).
fn history_json(h: &[IterRecord]) -> Value {
    let col = |f: &dyn Fn(&IterRecord) -> Value| Value::Array(h.iter().map(f).collect());
    json!({
        "phase": col(&|r| json!(r.phase)),
        "steps": col(&|r| json!(r.steps)),
        "score": col(&|r| json!(r2(r.score))),
        "shaped": col(&|r| json!(r2(r.shaped))),
        "train_return": col(&|r| json!(r2(r.train_return))),
        "entropy": col(&|r| json!((r.entropy * 1000.0).round() / 1000.0)),
        "shaping": col(&|r| json!((r.shaping as f64 * 1000.0).round() / 1000.0)),
        "lr": col(&|r| json!(r.lr)),
        "value_loss": col(&|r| json!(r2(r.update.value_loss))),
        "approx_kl": col(&|r| json!((r.update.approx_kl * 1e5).round() / 1e5)),
        "clip_fraction": col(&|r| json!((r.update.clip_fraction * 1000.0).round() / 1000.0)),
    })
}

/// The metadata file: pretty JSON with the `history` columns one per line (a per-iteration
/// array printed one number per line would be most of the file).
fn metadata_text(meta: &Value, history: &Value) -> Result<String> {
    let pretty = serde_json::to_string_pretty(meta)?;
    let body = pretty.trim_end().strip_suffix('}').context("metadata is a JSON object")?.trim_end();
    let mut s = format!("{body},\n  \"history\": {{\n");
    if let Some(cols) = history.as_object() {
        let n = cols.len();
        for (i, (k, v)) in cols.iter().enumerate() {
            s += &format!("    {}: {}{}\n", serde_json::to_string(k)?, v, if i + 1 < n { "," } else { "" });
        }
    }
    s += "  }\n}\n";
    Ok(s)
}

fn train_cmd(a: TrainArgs) -> Result<ExitCode> {
    let mut cfg = config(&a)?;
    a.v2.check(&a.layout, &format!("{:?}", a.layout))?;
    let horizon = u32::try_from(a.horizon).unwrap_or(u32::MAX);
    let options = GameOptions { horizon, settings: a.v2.settings() };
    let (game, _) = AnyGame::load(&a.layout, &options).context("--layout")?;
    if sidecar(&a.out) == a.out {
        bail!("--out {} must not end in .json (the metadata is written there)", a.out.display());
    }
    super::common::refuse_to_replace_model(&a.out, a.force)?;
    // Runs name a classic built-in layout by its canonical name (aliases resolved), any
    // other by its game's spec (`v2:NAME`).
    let canonical = proagent::env::layout::canonical_name(&a.layout);
    proagent::on_rl_game!(
        game,
        |g| {
            cfg.encoder = first_encoder(&*g);
            let name = canonical.map_or_else(|| proagent::game::Game::spec(&*g), str::to_string);
            train_on(&a, cfg, &*g, &name, &a.v2.flags())
        },
        |other| bail!("--layout {}: PPO runs on the Overcooked games only", other.report_name())
    )
}

/// The encoder a game's runs train with unless told otherwise (its first).
fn first_encoder<G: RlGame>(_: &G) -> String {
    G::ENCODERS[0].to_string()
}

/// Trains on one game; `layout_name` is how the command line names its layout, `v2` its
/// V2 flags.
fn train_on<G: RlGame>(a: &TrainArgs, cfg: TrainConfig, game: &G, layout_name: &str, v2: &str) -> Result<ExitCode> {
    // Configuration, game and memory budget, before anything is allocated.
    train::check(game, &cfg)?;
    let pool = if a.pool.is_empty() { None } else { Some(load_pool(&a.pool, game)?) };
    let init = match &a.init {
        None => None,
        Some(f) => {
            let m: RlModel = load_file(f)?;
            m.encoder_for(game, false).with_context(|| format!("--init {}", f.display()))?;
            let stem = f.file_stem().map_or_else(|| f.display().to_string(), |s| s.to_string_lossy().into_owned());
            Some(PoolEntry { label: format!("{stem}.final"), net: m.net })
        }
    };
    let total = cfg.total_steps(pool.is_some());
    let bar = if a.quiet { ProgressBar::hidden() } else { ProgressBar::new(total) };
    if let Ok(style) = ProgressStyle::with_template("{prefix} [{bar:25}] {percent:>3}% {msg} ({elapsed}, eta {eta})") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(format!("{layout_name} {}", cfg.algo.name()));
    let tty = std::io::stderr().is_terminal();
    let t0 = Instant::now();
    let mut last_line = Instant::now();
    let mut on_iter = |r: &IterRecord| {
        let secs = t0.elapsed().as_secs_f64().max(1e-9);
        let msg = format!(
            "{} it {} | score {:.1} | return {:.1} | entropy {:.3} | shaping {:.2} | {:.0} steps/s (rollout {:.0}/s, update {:.0} samples/s)",
            r.phase,
            r.iteration,
            r.score,
            r.train_return,
            r.entropy,
            r.shaping,
            r.run_steps as f64 / secs,
            (cfg.envs * cfg.horizon) as f64 / r.rollout_s.max(1e-9),
            (r.samples * cfg.ppo.epochs) as f64 / r.update_s.max(1e-9),
        );
        bar.set_position(r.run_steps);
        if a.quiet {
            return;
        }
        if tty {
            bar.set_message(msg);
        } else if last_line.elapsed().as_secs_f64() >= 5.0 || r.run_steps >= total {
            eprintln!("[{:>7.1}s] {:>10}/{total} steps  {msg}", t0.elapsed().as_secs_f64(), r.run_steps);
            last_line = Instant::now();
        }
    };
    let outcome = proagent::rl::run::train_from(game, &cfg, pool, init, &mut on_iter)?;
    let wall = t0.elapsed().as_secs_f64();
    bar.finish_and_clear();

    let command = command_line(&cfg, layout_name, v2, &a.pool, a.init.as_deref(), &a.out);
    let samples: usize = outcome.history.iter().map(|r| r.samples).sum();
    let evals: Vec<Value> = outcome.evals.iter().map(|e| json!(e)).collect();
    let self_play = outcome.evals.iter().find(|e| e.partner == "self");
    let recorded = game.layout_name();
    let mut meta = json!({
        "format": "proagent-rl/1",
        "layout": recorded,
        "algo": cfg.algo.name(),
        "encoder": cfg.encoder,
        "architecture": {"inputs": outcome.net.inputs(), "hidden": cfg.hidden, "outputs": {"logits": 6, "value": 1},
                          "activation": "relu", "parameters": outcome.net.params.len()},
        "command": command,
        "config": cfg,
        "env_steps": outcome.env_steps,
        "wall_s": r2(wall),
        "rollout_s": r2(outcome.rollout_s),
        "update_s": r2(outcome.update_s),
        "rollout_steps_per_s": (outcome.env_steps as f64 / outcome.rollout_s.max(1e-9)).round(),
        "update_samples_per_s": ((samples * cfg.ppo.epochs) as f64 / outcome.update_s.max(1e-9)).round(),
        "threads": cfg.threads,
        "self_play": self_play.map(|e| json!({"episodes": e.scores.len(), "mean": r2(e.mean), "se": r2(e.se)})),
        "evaluations": evals,
        "notes": outcome.notes,
    });
    if let (Some(m), Some(f)) = (meta.as_object_mut(), &a.init) {
        m.insert("init".into(), json!(f.display().to_string()));
    }
    let mut info = json!({"layout": recorded, "algo": cfg.algo.name(), "seed": cfg.seed, "steps": outcome.env_steps});
    for (k, v) in game.model_fields() {
        if let (Some(m), Some(i)) = (meta.as_object_mut(), info.as_object_mut()) {
            m.insert(k.clone(), v.clone());
            i.insert(k, v);
        }
    }
    let model = RlModel {
        net: outcome.net.clone(),
        encoder: cfg.encoder.clone(),
        source: a.out.display().to_string(),
        info,
        checkpoints: outcome.checkpoints.clone(),
    };
    if let Some(dir) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(&a.out, model.to_safetensors()).with_context(|| format!("writing {}", a.out.display()))?;
    let meta_path = sidecar(&a.out);
    let history = history_json(&outcome.history);
    std::fs::write(&meta_path, metadata_text(&meta, &history)?)
        .with_context(|| format!("writing {}", meta_path.display()))?;

    if a.json {
        let mut summary = meta.clone();
        if let Some(m) = summary.as_object_mut() {
            m.insert("out".into(), json!(a.out.display().to_string()));
        }
        println!("{summary}");
    } else {
        println!(
            "{layout_name} {}: {} env steps in {:.1} s (rollouts {:.1} s = {:.0} steps/s; updates {:.1} s = {:.0} samples/s)",
            cfg.algo.name(),
            outcome.env_steps,
            wall,
            outcome.rollout_s,
            outcome.env_steps as f64 / outcome.rollout_s.max(1e-9),
            outcome.update_s,
            (samples * cfg.ppo.epochs) as f64 / outcome.update_s.max(1e-9)
        );
        for e in &outcome.evals {
            let who = match e.seat {
                None => "self-play".to_string(),
                Some(s) => format!("with {} (policy in seat {s})", e.partner),
            };
            println!("  {who}: {:.1} ± {:.1} (mean ± standard error) over {} episodes", e.mean, e.se, e.scores.len());
        }
        println!("wrote {} and {}", a.out.display(), meta_path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// A `--model` value: an RL spec, or else a path to a model file.
fn model_spec(s: &str) -> String {
    if proagent::rl::RlSpec::parse(s).is_some() { s.to_string() } else { format!("rl:{s}") }
}

fn eval_cmd(a: EvalArgs) -> Result<ExitCode> {
    a.v2.check(&a.layout, &format!("{:?}", a.layout))?;
    let options = GameOptions { horizon: a.run.horizon, settings: a.v2.settings() };
    let (game, _) = AnyGame::load(&a.layout, &options).context("--layout")?;
    on_game!(game, |g| eval_on(&a, g))
}

fn eval_on<G: Playable>(a: &EvalArgs, game: Arc<G>) -> Result<ExitCode> {
    let factory = SeatFactory::default().with_partner_options(a.models.options());
    let model = model_spec(&super::common::policy_flag(&a.policy, &a.model, None)?);
    let partner = a.partner.clone().unwrap_or_else(|| model.clone());
    factory.check(&model, &*game, 0).context("--policy")?;
    factory.check(&partner, &*game, 1).context("--partner")?;
    let self_play = a.partner.is_none();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let seats: Vec<usize> = if self_play { vec![0] } else { vec![0, 1] };
    let mut rows = Vec::new();
    for seat in seats {
        let mut scores = Vec::new();
        for e in 0..a.run.episodes {
            let specs = if seat == 0 { [model.as_str(), partner.as_str()] } else { [partner.as_str(), model.as_str()] };
            let r = rt
                .block_on(play_seated(&game, &factory, &specs, a.run.seed_of(e), None, EpisodeOptions::default()))
                .map_err(|f| anyhow::anyhow!("episode {e} (seat {seat}) failed: {f}"))?;
            scores.push(i32::try_from(r.score).unwrap_or(0));
        }
        let (mean, se) = train::mean_se(&scores);
        rows.push((seat, scores, mean, se));
    }
    if a.json {
        let v: Vec<Value> = rows
            .iter()
            .map(|(seat, scores, mean, se)| {
                json!({"seat": if self_play { Value::Null } else { json!(seat) }, "scores": scores, "mean": mean, "se": se})
            })
            .collect();
        println!(
            "{}",
            json!({"layout": game.report_name(), "model": model, "partner": partner, "episodes": a.run.episodes,
                   "seed": a.run.seed, "horizon": a.run.horizon, "results": v})
        );
    } else {
        for (seat, scores, mean, se) in &rows {
            let who =
                if self_play { "self-play".to_string() } else { format!("{model} in seat {seat} with {partner}") };
            println!(
                "{} {who}: {mean:.1} ± {se:.1} (mean ± standard error) over {} episodes (min {}, max {})",
                game.report_name(),
                scores.len(),
                scores.iter().min().unwrap_or(&0),
                scores.iter().max().unwrap_or(&0)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
