//! `proagent bc …`: train, evaluate and self-play the behaviour-cloned human proxies.

use super::common::{EpisodeArgs, load_layout, usize_in};
use anyhow::{Context, Result, anyhow, bail};
use indicatif::{ProgressBar, ProgressStyle};
use proagent::env::{Layout, layout};
use proagent::limits::{MAX_EPOCHS, MAX_SIDE_FILE_BYTES, MAX_TRAJECTORY_BYTES, gunzip, read_file, read_file_text};
use proagent::partners::bc::data::{self, DemoStep};
use proagent::partners::bc::features::FEATURE_SET;
use proagent::partners::bc::model::BcModel;
use proagent::partners::bc::train::{self, Dataset, EpochReport, Keep, TrainConfig};
use proagent::partners::bc::{BcAgent, BcSpec, Split, load_model, matching_builtin};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Subcommand, Debug)]
pub enum BcCommand {
    /// Train a BC policy on one layout's human games (writes FILE and FILE's .json metadata).
    Train(TrainArgs),
    /// Accuracy and cross-entropy of a BC policy on a demonstration file.
    Eval(EvalArgs),
    /// Play BC against BC (or another BC model) and report the scores.
    Selfplay(SelfplayArgs),
}

#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// One of the five 2019 layouts (or an alias such as `simple`).
    #[arg(long)]
    layout: String,
    /// Which half of the human data to train on: train (the 2019 "BC" agent) or test (the "H_proxy").
    #[arg(long, value_parser = ["train", "test"])]
    split: String,
    /// Directory with `<layout>_<split>.jsonl.gz` (and optionally `layouts.json`).
    #[arg(long, default_value = "human_data")]
    data: PathBuf,
    /// Passes over the training data.
    #[arg(long, default_value_t = train::DEFAULT_EPOCHS, value_parser = usize_in(1..=MAX_EPOCHS as u64))]
    epochs: usize,
    /// Seed of the weight initialisation, shuffling and validation split.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Which epoch's weights to keep: the last one (as the 2019 code), or the one with
    /// the best validation loss or accuracy.
    #[arg(long, default_value = "last", value_parser = ["last", "best-loss", "best-accuracy"])]
    keep: String,
    /// Where to write the weights (safetensors); the metadata goes next to it as `.json`.
    #[arg(long)]
    out: PathBuf,
    /// Overwrite an existing --out file and its metadata.
    #[arg(long)]
    force: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
pub struct EvalArgs {
    /// The policy: `bc`, `bc:test`, `bc:train`, `bc:PATH` or a path to a safetensors file.
    #[arg(long)]
    policy: Option<String>,
    /// Deprecated name of --policy.
    #[arg(long, hide = true)]
    model: Option<String>,
    /// A demonstration file (`.jsonl` or `.jsonl.gz`), or a directory (then give --layout and --split).
    #[arg(long)]
    data: PathBuf,
    /// With a --data directory: the layout whose demonstrations to read.
    #[arg(long)]
    layout: Option<String>,
    /// With a --data directory: which split's demonstrations to read.
    #[arg(long, value_parser = ["train", "test"])]
    split: Option<String>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
pub struct SelfplayArgs {
    /// A built-in layout name or a layout file.
    #[arg(long)]
    layout: String,
    /// The policy in seat 0: `bc`, `bc:test`, `bc:train` (the 2019 "BC" agent) or `bc:PATH`
    /// (default: bc:train).
    #[arg(long)]
    policy: Option<String>,
    /// Deprecated name of --policy.
    #[arg(long, hide = true)]
    model: Option<String>,
    /// The policy in seat 1 (default: the same as --policy).
    #[arg(long)]
    partner: Option<String>,
    /// Episodes (episode i is played with seed + i) and their length.
    #[command(flatten)]
    run: EpisodeArgs<10>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(c: BcCommand) -> Result<ExitCode> {
    match c {
        BcCommand::Train(a) => train_cmd(a),
        BcCommand::Eval(a) => eval_cmd(a),
        BcCommand::Selfplay(a) => selfplay_cmd(a),
    }
}

/// The demonstration file of a layout and split in `dir` (gzipped or plain). Whatever is
/// there is returned, not only a regular file: the bounded reader then refuses a FIFO or a
/// device by name instead of it being passed over as absent.
fn data_file(dir: &Path, layout: &str, split: &str) -> Option<PathBuf> {
    [format!("{layout}_{split}.jsonl.gz"), format!("{layout}_{split}.jsonl")]
        .into_iter()
        .map(|f| dir.join(f))
        .find(|p| p.exists())
}

/// The layout the data was recorded on: its grid in `layouts.json` next to the
/// data if present, else the built-in layout.
fn data_layout(dir: &Path, name: &str) -> Result<Layout> {
    let path = dir.join("layouts.json");
    // Present but not a regular file (a FIFO, a device): refused by the reader, by name.
    if path.exists() {
        let text = read_file_text(&path, MAX_SIDE_FILE_BYTES, "layouts.json files")
            .with_context(|| format!("reading {}", path.display()))?;
        let v: Value = serde_json::from_str(&text).with_context(|| format!("{}: not JSON", path.display()))?;
        if let Some(entry) = v.get(name) {
            let rows: Vec<&str> = entry
                .get("grid")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .ok_or_else(|| anyhow!("{}: `{name}.grid` must be a list of strings", path.display()))?;
            let l = Layout::from_grid(name, &rows).with_context(|| format!("{}: layout {name}", path.display()))?;
            if let Some(b) = Layout::builtin(name)
                && matching_builtin(&l) != layout::canonical_name(&b.name)
            {
                tracing::warn!("{}: the terrain of {name} differs from the built-in layout", path.display());
            }
            return Ok(l);
        }
    }
    Layout::builtin(name)
        .ok_or_else(|| anyhow!("layout {name:?} is neither in {} nor a built-in layout", path.display()))
}

/// Reads a demonstration file: its text (un-gzipped) and the sha256 of its bytes. The
/// file and its decompressed text are bounded by [`MAX_TRAJECTORY_BYTES`].
fn read_demo_file(path: &Path) -> Result<(String, String)> {
    let what = "demonstration files";
    let bytes = read_file(path, MAX_TRAJECTORY_BYTES, what).with_context(|| format!("reading {}", path.display()))?;
    let sha = hex::encode(Sha256::digest(&bytes));
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        gunzip(&bytes, MAX_TRAJECTORY_BYTES, "decompressed demonstration files")
            .with_context(|| format!("{}: reading the gzip data", path.display()))?
    } else {
        bytes
    };
    let text = String::from_utf8(bytes).with_context(|| format!("{}: not UTF-8 text", path.display()))?;
    Ok((text, sha))
}

fn load_steps(path: &Path, layout: &Layout) -> Result<(Vec<DemoStep>, String)> {
    let (text, sha) = read_demo_file(path)?;
    let steps = data::parse(&text, layout).map_err(|e| anyhow!("{}: {e}", path.display()))?;
    Ok((steps, sha))
}

fn trials(steps: &[DemoStep]) -> usize {
    let mut names: Vec<&str> = steps.iter().map(|s| s.trial.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    names.len()
}

fn round4(x: f64) -> f64 {
    (x * 1e4).round() / 1e4
}

fn sidecar(out: &Path) -> PathBuf {
    out.with_extension("json")
}

fn train_cmd(a: TrainArgs) -> Result<ExitCode> {
    super::common::refuse_to_replace_model(&a.out, a.force)?;
    let name = layout::canonical_name(&a.layout)
        .ok_or_else(|| anyhow!("--layout {:?} is not one of the five 2019 layouts", a.layout))?;
    let split = Split::parse(&a.split).ok_or_else(|| anyhow!("--split must be train or test"))?;
    let file = data_file(&a.data, name, split.name()).ok_or_else(|| {
        anyhow!(
            "no human data for {name} ({}) in {}: expected {name}_{}.jsonl.gz \
             (see docs/bc.md, \"BC human proxies\", for how to obtain it)",
            split.name(),
            a.data.display(),
            split.name()
        )
    })?;
    if sidecar(&a.out) == a.out {
        bail!("--out {} must not end in .json (the metadata is written there)", a.out.display());
    }
    let layout = data_layout(&a.data, name)?;
    let (steps, sha) = load_steps(&file, &layout)?;
    let dataset = Dataset::from_steps(&layout, &steps);
    let keep = Keep::parse(&a.keep).ok_or_else(|| anyhow!("--keep must be last, best-loss or best-accuracy"))?;
    let cfg = TrainConfig { epochs: a.epochs, seed: a.seed, keep, ..TrainConfig::default() };

    let bar = ProgressBar::new(cfg.epochs as u64);
    if let Ok(style) = ProgressStyle::with_template("{prefix} [{bar:30}] epoch {pos}/{len} {msg} ({elapsed})") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_prefix(format!("{name} {}", split.name()));
    let show = |r: &EpochReport| {
        let line = format!(
            "epoch {:>3}: train loss {:.4}  val loss {:.4}  val accuracy {:.4}",
            r.epoch, r.train_loss, r.val_loss, r.val_accuracy
        );
        if bar.is_hidden() {
            eprintln!("{line}");
        } else {
            bar.println(line);
        }
        bar.set_message(format!("val acc {:.3}", r.val_accuracy));
        bar.inc(1);
    };
    let t0 = Instant::now();
    let outcome =
        train::train(&dataset, &cfg, &mut |r| show(r)).with_context(|| format!("training on {}", file.display()))?;
    let secs = t0.elapsed().as_secs_f64();
    bar.finish_and_clear();
    eprintln!("trained {name} ({}) in {secs:.1} s", split.name());

    let other = split.other();
    let held_out = match data_file(&a.data, name, other.name()) {
        Some(f) => {
            let (steps, sha) = load_steps(&f, &layout)?;
            let e = train::evaluate(&outcome.model, &Dataset::from_steps(&layout, &steps));
            json!({"split": other.name(), "data_file": file_name(&f), "data_sha256": sha,
                   "samples": e.samples, "accuracy": round4(e.accuracy), "loss": round4(e.loss)})
        }
        None => Value::Null,
    };
    let command = format!(
        "proagent bc train --layout {name} --split {} --data {} --epochs {} --seed {} --keep {} --out {}",
        split.name(),
        a.data.display(),
        cfg.epochs,
        cfg.seed,
        keep.name(),
        a.out.display()
    );
    let meta = json!({
        "format": "proagent-bc/1",
        "layout": name,
        "split": split.name(),
        "features": FEATURE_SET,
        "architecture": {"inputs": 62, "hidden": cfg.hidden, "outputs": 6, "activation": "tanh"},
        "command": command,
        "data_file": file_name(&file),
        "data_sha256": sha,
        "trials": trials(&steps),
        "steps": steps.len(),
        "samples": dataset.len(),
        "config": cfg,
        "kept_epoch": outcome.kept_epoch,
        "train": {"samples": outcome.train.samples, "accuracy": round4(outcome.train.accuracy), "loss": round4(outcome.train.loss)},
        "validation": {"samples": outcome.validation.samples, "accuracy": round4(outcome.validation.accuracy), "loss": round4(outcome.validation.loss)},
        "held_out": held_out,
        "history": outcome.history.iter().map(|r| json!({
            "epoch": r.epoch, "train_loss": round4(r.train_loss), "val_loss": round4(r.val_loss), "val_accuracy": round4(r.val_accuracy)
        })).collect::<Vec<_>>(),
    });
    let weights =
        outcome.model.to_safetensors(&json!({"features": FEATURE_SET, "layout": name, "split": split.name()}));
    if let Some(dir) = a.out.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    std::fs::write(&a.out, &weights).with_context(|| format!("writing {}", a.out.display()))?;
    let meta_path = sidecar(&a.out);
    let pretty = serde_json::to_string_pretty(&meta)? + "\n";
    std::fs::write(&meta_path, pretty).with_context(|| format!("writing {}", meta_path.display()))?;

    if a.json {
        let mut summary = meta.clone();
        if let Some(m) = summary.as_object_mut() {
            m.remove("history");
            m.insert("out".into(), json!(a.out.display().to_string()));
            m.insert("metadata".into(), json!(meta_path.display().to_string()));
        }
        println!("{summary}");
    } else {
        println!(
            "{name} ({}): kept epoch {}/{}; train accuracy {:.4}, validation accuracy {:.4} (loss {:.4})",
            split.name(),
            outcome.kept_epoch,
            cfg.epochs,
            outcome.train.accuracy,
            outcome.validation.accuracy,
            outcome.validation.loss
        );
        if let Some(acc) = held_out.get("accuracy").and_then(Value::as_f64) {
            println!("held-out accuracy on the {} split: {acc:.4}", other.name());
        }
        println!("wrote {} and {}", a.out.display(), meta_path.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(|| p.display().to_string(), |n| n.to_string_lossy().into_owned())
}

/// A `--model` value: a BC spec, or else a path.
fn model_spec(s: &str) -> BcSpec {
    BcSpec::parse(s).unwrap_or_else(|| BcSpec::File(PathBuf::from(s)))
}

fn eval_cmd(a: EvalArgs) -> Result<ExitCode> {
    let file = if a.data.is_dir() {
        let (Some(l), Some(s)) = (&a.layout, &a.split) else {
            bail!("--data {} is a directory: give --layout and --split too", a.data.display());
        };
        let name = layout::canonical_name(l).unwrap_or(l);
        data_file(&a.data, name, s)
            .ok_or_else(|| anyhow!("no {name}_{s}.jsonl.gz (or .jsonl) in {}", a.data.display()))?
    } else {
        a.data.clone()
    };
    let (text, sha) = read_demo_file(&file)?;
    let name = match &a.layout {
        Some(l) => l.clone(),
        None => data::first_layout_name(&text)
            .ok_or_else(|| anyhow!("{}: line 1 has no readable `layout` field", file.display()))?,
    };
    let name = layout::canonical_name(&name).map_or(name.clone(), str::to_string);
    let dir = file.parent().unwrap_or(Path::new("."));
    let layout = data_layout(dir, &name)?;
    let steps = data::parse(&text, &layout).map_err(|e| anyhow!("{}: {e}", file.display()))?;
    let policy = super::common::policy_flag(&a.policy, &a.model, None)?;
    let model = load_model(&model_spec(&policy), &layout)?;
    let e = train::evaluate(&model, &Dataset::from_steps(&layout, &steps));
    if a.json {
        println!(
            "{}",
            json!({"model": model.source, "data_file": file.display().to_string(), "data_sha256": sha,
                   "layout": name, "steps": steps.len(), "samples": e.samples,
                   "accuracy": round4(e.accuracy), "loss": round4(e.loss)})
        );
    } else {
        println!(
            "{} on {} ({name}, {} samples): accuracy {:.4}, cross-entropy {:.4}",
            model.source,
            file.display(),
            e.samples,
            e.accuracy,
            e.loss
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn agent(spec: &str, layout: &Layout) -> Result<BcAgent> {
    let model: BcModel = load_model(&model_spec(spec), layout)?;
    Ok(BcAgent::new(Arc::new(model), spec))
}

fn selfplay_cmd(a: SelfplayArgs) -> Result<ExitCode> {
    let (episodes, horizon) = (a.run.episodes, a.run.horizon);
    let layout = load_layout(&a.layout)?;
    let policy = super::common::policy_flag(&a.policy, &a.model, Some("bc:train"))?;
    let partner = a.partner.clone().unwrap_or_else(|| policy.clone());
    let mut seats = [agent(&policy, &layout)?, agent(&partner, &layout)?];
    let mut scores = Vec::with_capacity(episodes as usize);
    for ep in 0..episodes {
        let seed = a.run.seed_of(ep);
        for (k, s) in seats.iter_mut().enumerate() {
            let game = proagent::overcooked_game::Overcooked::new(Arc::new(layout.clone()), horizon);
            proagent::seat::Seat::reset(s, &game, k, seed);
        }
        let mut state = layout.start_state();
        let mut total = 0u32;
        for _ in 0..horizon {
            let joint = [seats[0].choose(&layout, &state, 0), seats[1].choose(&layout, &state, 1)];
            total += layout.step(&mut state, joint).reward;
        }
        scores.push(total);
    }
    let n = scores.len() as f64;
    let mean = scores.iter().map(|&s| s as f64).sum::<f64>() / n;
    let var =
        if scores.len() > 1 { scores.iter().map(|&s| (s as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0) } else { 0.0 };
    let stderr = (var / n).sqrt();
    if a.json {
        println!(
            "{}",
            json!({"layout": layout.name, "model": policy, "partner": partner, "episodes": episodes,
                   "seed": a.run.seed, "horizon": horizon, "scores": scores, "mean": mean,
                   "stderr": round4(stderr)})
        );
    } else {
        println!(
            "{} + {} on {}: {:.1} ± {:.1} (mean ± standard error) over {} episodes of {} steps; scores {:?}",
            policy, partner, layout.name, mean, stderr, episodes, horizon, scores
        );
    }
    Ok(ExitCode::SUCCESS)
}
