//! `proagent qa`: CoordinationQA runs, `qa lint`, `qa baseline`, and `bench qa`.

use super::common::{self, usize_in};
use super::llm_args::HttpArgs;
use anyhow::{Context, Result, anyhow, bail};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use proagent::games::counted;
use proagent::limits::{MAX_BASELINE_SAMPLES, MAX_CONCURRENCY, MAX_MILLIS, MAX_TOKENS, MAX_TRIALS};
use proagent::llm::{LanguageModel, Sampling};
use proagent::qa::baseline::{self, Policy};
use proagent::qa::data::{self, Dataset, Filter, Question};
use proagent::qa::lint::{self, Kind};
use proagent::qa::models::{BUILTIN_NAMES, builtin_model};
use proagent::qa::prompt::Prompts;
use proagent::qa::score::{self, Report};
use proagent::qa::transcript::{self, Header, Line};
use proagent::qa::{self, Mode, RunConfig};
use proagent::runner::models::{ModelChoice, classify_model};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct QaArgs {
    #[command(subcommand)]
    command: Option<QaCommand>,
    #[command(flatten)]
    run: RunArgs,
}

#[derive(clap::Subcommand, Debug)]
enum QaCommand {
    /// List the defects of the benchmark file and how each scoring mode treats them.
    Lint(LintArgs),
    /// Random-choice baselines: exact expected accuracy and seeded sampling.
    Baseline(BaselineArgs),
}

#[derive(clap::Args, Debug)]
struct DataArgs {
    /// Use this copy of the benchmark CSV instead of the embedded one.
    #[arg(long, value_name = "PATH")]
    data: Option<PathBuf>,
    /// Only these questions: comma-separated key=value (game, group, category, id, row);
    /// several values of one key are alternatives, e.g. game=Overcooked,game=CollabEscape,category=ToM.
    #[arg(long)]
    filter: Option<String>,
}

#[derive(clap::Args, Debug)]
struct RunArgs {
    /// The model: oracle (answers with the key: a pipeline check), random, random-original
    /// (the original evaluator's random baseline), replay:FILE (a QA transcript), or a name
    /// an OpenAI-compatible server at --base-url serves.
    #[arg(long)]
    model: Option<String>,
    #[command(flatten)]
    data: DataArgs,
    /// Times each question is asked.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=MAX_TRIALS as i64))]
    trials: u32,
    /// Requests in flight at once.
    #[arg(long, default_value_t = 8, value_parser = usize_in(1..=MAX_CONCURRENCY as u64))]
    concurrency: usize,
    /// Sampling temperature [default: 0.6, the original's; not sent to reasoning models unless given].
    #[arg(long, value_parser = common::temperature)]
    temperature: Option<f32>,
    /// Nucleus sampling [default: 0.9, the original's; not sent to reasoning models unless given].
    #[arg(long, value_parser = common::top_p)]
    top_p: Option<f32>,
    /// Reply length limit [default: 1000, the original's limit for locally served models;
    /// 16384 for reasoning models].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=MAX_TOKENS as i64))]
    max_tokens: Option<u32>,
    /// Ask the server for answers in a JSON schema (`{"answer": "<letter>"}`, OpenAI's
    /// response_format, read strictly); a server that refuses it is asked for text instead,
    /// once, and for the rest of the run (recorded as a fault).
    #[arg(long)]
    structured: bool,
    /// Seed of the built-in random models.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Score with the original evaluator's rules (its letter regex, its unthresholded fuzzy
    /// fallback, its key splitting; failed requests count wrong), to compare with published figures.
    #[arg(long)]
    compat: bool,
    /// Prompt templates folder (default: prompts/qa when it exists, else the embedded copies).
    #[arg(long, value_name = "DIR")]
    prompts: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long, conflicts_with = "csv")]
    json: bool,
    /// Print the report as CSV (one line per game/group × category).
    #[arg(long)]
    csv: bool,
    /// Where to write the transcript (default: transcripts/qa-<model>-seed<seed>[-compat]-<unix time>.jsonl).
    #[arg(long, value_name = "PATH", conflicts_with = "no_transcript")]
    transcript: Option<PathBuf>,
    /// Do not write a transcript.
    #[arg(long)]
    no_transcript: bool,
    /// Overwrite an existing transcript file (by default an existing file is never replaced).
    #[arg(long)]
    force: bool,
    /// Stop once this many requests in a row have failed after their retries (the model
    /// is unreachable); what was asked so far stays in the transcript.
    #[arg(long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    max_failures_in_a_row: u32,
    /// Do not draw the progress bar.
    #[arg(long)]
    no_progress: bool,
    /// How a served model is reached (the same flags as `play` and `chat`).
    #[command(flatten)]
    http: HttpArgs,
    /// Ask nothing: print the requests (questions x trials) and their prompt and
    /// completion tokens, counted with the model's tokenizer when known, and stop.
    #[arg(long)]
    dry_run: bool,
    /// With --dry-run: USD per million prompt and completion tokens and, optionally, cached
    /// prompt tokens, e.g. `2.5,10,1.25`.
    #[arg(long, value_name = "IN,OUT[,CACHED]", value_parser = super::cost::parse_price, requires = "dry_run",
          allow_hyphen_values = true)]
    price_per_mtok: Option<super::cost::Price>,
}

/// `qa --dry-run`: every request is known before the run (one per question and trial),
/// so calls and prompt tokens are exact (up to the server's own framing); completions
/// are given at their `--max-tokens` bound.
fn qa_dry_run(a: &RunArgs, model: &str, questions: &[Question], prompts: &Prompts, sampling: &Sampling) -> Result<()> {
    let counter = proagent::llm::tokens::TokenCounter::for_model(model);
    let requests = qa::requests(questions, prompts, sampling)?;
    let per_trial: u64 = requests.iter().map(|r| counter.prompt(&r.messages)).sum();
    let trials = a.trials as u64;
    let calls = requests.len() as u64 * trials;
    let prompt = per_trial * trials;
    let completion = calls * sampling.max_tokens as u64;
    // The requests in the order they are asked: every question once per trial; each
    // request's tokens that repeat a recent request's beginning can be cached.
    let mut cached = 0u64;
    let mut recent = proagent::llm::tokens::RecentPrompts::default();
    for _ in 0..trials {
        for r in &requests {
            cached += recent.cached(&counter, &r.messages);
        }
    }
    let served = proagent::eval::cost::is_served(model);
    println!(
        "dry run: {} x {} = {} to {model}; nothing was sent",
        counted(requests.len() as u64, "question", "questions"),
        counted(trials, "trial", "trials"),
        counted(calls as u64, "request", "requests")
    );
    println!(
        "prompt tokens: {prompt} ({}); completion tokens: at most {completion} (--max-tokens {})",
        counter.describe(),
        sampling.max_tokens
    );
    println!(
        "cacheable prompt tokens: {cached} ({}), those that repeat the beginning of one of the last 16 requests (asked in order)",
        proagent::eval::cost::percent(cached, prompt)
    );
    match (served, a.price_per_mtok) {
        (false, _) => println!("price: none ({model} is answered offline)"),
        (true, Some(p)) => println!(
            "price: {:.2} USD at {} (completions at the bound)",
            p.of(prompt, cached, completion),
            p.describe()
        ),
        (true, None) => println!("price: give --price-per-mtok IN,OUT[,CACHED]"),
    }
    Ok(())
}

#[derive(clap::Args, Debug)]
struct LintArgs {
    /// Check this copy of the benchmark CSV instead of the embedded one.
    #[arg(long, value_name = "PATH")]
    data: Option<PathBuf>,
    /// Print the findings as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(clap::Args, Debug)]
struct BaselineArgs {
    #[command(flatten)]
    data: DataArgs,
    /// Number of sampled trials.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=MAX_BASELINE_SAMPLES as i64))]
    samples: u32,
    /// Seed of the sampling.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print the baselines as JSON.
    #[arg(long)]
    json: bool,
}

/// `proagent bench qa`: the runner's throughput against a model with a fixed latency.
#[derive(clap::Args, Debug)]
pub struct BenchQaArgs {
    /// Built-in model behind the latency (oracle, random, random-original).
    #[arg(long, default_value = "oracle")]
    model: String,
    /// Latency added to every request, in milliseconds.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(0..=MAX_MILLIS))]
    latency_ms: u64,
    /// Requests in flight at once.
    #[arg(long, default_value_t = 16, value_parser = usize_in(1..=MAX_CONCURRENCY as u64))]
    concurrency: usize,
    /// Times each question is asked.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=MAX_TRIALS as i64))]
    trials: u32,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: QaArgs) -> Result<ExitCode> {
    match a.command {
        Some(QaCommand::Lint(l)) => run_lint(l),
        Some(QaCommand::Baseline(b)) => run_baseline(b),
        None => run_qa(a.run),
    }
}

fn load_dataset(path: Option<&Path>) -> Result<Dataset> {
    match path {
        None => Ok(data::embedded()?),
        Some(p) => {
            let text =
                proagent::limits::read_file_text(p, proagent::limits::MAX_QA_DATA_BYTES, "CoordinationQA data files")
                    .with_context(|| format!("reading {}", p.display()))?;
            Ok(data::parse(&text, &p.display().to_string())?)
        }
    }
}

fn select(ds: &Dataset, filter: Option<&str>) -> Result<(Vec<Question>, String)> {
    let spec = filter.unwrap_or("");
    let f = Filter::parse(spec).map_err(|e| anyhow!("--filter: {e}"))?;
    let qs: Vec<Question> = ds.questions.iter().filter(|q| f.matches(q)).cloned().collect();
    if qs.is_empty() {
        bail!("--filter {spec:?} matches none of the {}", counted(ds.questions.len() as u64, "question", "questions"));
    }
    Ok((qs, spec.to_string()))
}

fn load_prompts(dir: Option<&Path>) -> Result<Prompts> {
    match dir {
        Some(d) => {
            if !d.is_dir() {
                bail!("--prompts {}: not a folder", d.display());
            }
            Ok(Prompts::load(d)?)
        }
        None => {
            let d = Path::new("prompts/qa");
            Ok(if d.is_dir() { Prompts::load(d)? } else { Prompts::embedded()? })
        }
    }
}

/// The model for `--model`. Built-ins and replay live in `proagent::qa::models`; served
/// models need the HTTP backend.
fn make_model(a: &RunArgs, name: &str, questions: &[Question], prompts: &Prompts) -> Result<Arc<dyn LanguageModel>> {
    if let Some(m) = builtin_model(name, questions, prompts, a.seed) {
        let m = m.map_err(|e| anyhow!("--model {name}: {e}"))?;
        // A built-in answers a structured run in the schema; a replay serves what was recorded.
        return Ok(match classify_model(name.trim()) {
            ModelChoice::Builtin(_) if a.structured => Arc::new(proagent::llm::structured::SchemaAnswers::new(m)),
            _ => m,
        });
    }
    if let ModelChoice::Builtin(b) = classify_model(name.trim()) {
        bail!(
            "--model {b}: that is the ProAgent agent's built-in planner, which answers only Overcooked prompts; \
             qa takes {BUILTIN_NAMES}, or a name an OpenAI-compatible server at --base-url serves"
        );
    }
    // Any other name is a model served over the OpenAI-compatible HTTP API; the sampling
    // flags given count as set explicitly (a reasoning model is sent them).
    let mut spec = a.http.model_spec(name, a.seed)?;
    for (key, given) in
        [("temperature", a.temperature.is_some()), ("top_p", a.top_p.is_some()), ("max_tokens", a.max_tokens.is_some())]
    {
        if given {
            spec.explicit.insert(key.to_string());
        }
    }
    proagent::runner::models::build_model(&spec).map_err(|e| anyhow!("--model {name}: {e}"))
}

/// The sampling of every question: the flags given, else the original's settings, with
/// the larger token cap of a reasoning model ([`proagent::llm::family`]) when none is given.
fn qa_sampling(a: &RunArgs, model: &str) -> Result<Sampling> {
    let d = proagent::qa::default_sampling();
    let temperature = a.temperature.unwrap_or(d.temperature);
    let top_p = a.top_p.unwrap_or(d.top_p);
    if !(0.0..=2.0).contains(&temperature) || !(0.0..=1.0).contains(&top_p) || a.max_tokens == Some(0) {
        bail!("sampling out of range: --temperature 0..2, --top-p 0..1, --max-tokens at least 1");
    }
    let reasoning = matches!(classify_model(model.trim()), ModelChoice::Http(_)) && {
        let rules = proagent::llm::family::ParamRules {
            family: a.http.model_family.as_deref().and_then(|f| f.parse().ok()),
            ..Default::default()
        };
        rules.family(model) == proagent::llm::family::Family::Reasoning
    };
    let max_tokens =
        a.max_tokens.unwrap_or(if reasoning { proagent::llm::family::REASONING_MAX_TOKENS } else { d.max_tokens });
    Ok(Sampling { temperature, top_p, max_tokens, stop: Vec::new(), structured: a.structured, no_cap: false })
}

fn policy_of(model: &str) -> Option<Policy> {
    match model {
        "random" => Some(Policy::Uniform),
        "random-original" => Some(Policy::Original),
        _ => None,
    }
}

fn slug(s: &str) -> String {
    let name = s.strip_prefix("replay:").map_or(s, |_| "replay");
    name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect()
}

/// The default transcript file, named like `play`'s:
/// `transcripts/qa-<model>-seed<seed>[-compat]-<unix seconds>.jsonl`, with a counter appended
/// if that name is taken, so a second run never stops on the first one's file.
fn default_transcript(model_name: &str, seed: u64, compat: bool) -> PathBuf {
    let suffix = if compat { "-compat" } else { "" };
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let stem = format!("transcripts/qa-{}-seed{seed}{suffix}-{secs}", slug(model_name));
    let mut path = PathBuf::from(format!("{stem}.jsonl"));
    let mut n = 2;
    while path.exists() {
        path = PathBuf::from(format!("{stem}-{n}.jsonl"));
        n += 1;
    }
    path
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the async runtime")
}

fn run_qa(a: RunArgs) -> Result<ExitCode> {
    let Some(model_name) = a.model.clone() else {
        bail!("--model is required ({BUILTIN_NAMES}, or a served model's name)");
    };
    if a.trials == 0 {
        bail!("--trials must be at least 1");
    }
    if a.concurrency == 0 {
        bail!("--concurrency must be at least 1");
    }
    let sampling = qa_sampling(&a, &model_name)?;
    let ds = load_dataset(a.data.data.as_deref())?;
    let (questions, filter) = select(&ds, a.data.filter.as_deref())?;
    let prompts = load_prompts(a.prompts.as_deref())?;
    if a.dry_run {
        // The dry run sends nothing, but refuses what the real run would: options that
        // contradict each other for this model.
        if matches!(classify_model(model_name.trim()), ModelChoice::Http(_)) {
            let spec = a.http.model_spec(&model_name, a.seed)?;
            spec.check_params().map_err(|e| anyhow!("--model {model_name}: model configuration: {e}"))?;
        }
        qa_dry_run(&a, &model_name, &questions, &prompts, &sampling)?;
        return Ok(ExitCode::SUCCESS);
    }
    let model = make_model(&a, &model_name, &questions, &prompts)?;
    let mode = if a.compat { Mode::Compat } else { Mode::Default };
    let cfg = RunConfig {
        trials: a.trials,
        concurrency: a.concurrency,
        sampling: sampling.clone(),
        mode,
        max_failures_in_a_row: Some(a.max_failures_in_a_row),
    };

    let transcript_path = if a.no_transcript {
        None
    } else {
        Some(a.transcript.clone().unwrap_or_else(|| default_transcript(&model_name, a.seed, a.compat)))
    };
    if let (Some(out), Some(input)) = (&transcript_path, model_name.strip_prefix("replay:")) {
        let same = match (std::fs::canonicalize(out), std::fs::canonicalize(input)) {
            (Ok(x), Ok(y)) => x == y,
            _ => false,
        };
        if same {
            bail!("--transcript {} is the recording being replayed; choose another path", out.display());
        }
    }
    if let Some(p) = &transcript_path {
        super::common::refuse_overwrite(p, "--transcript", a.force)?;
    }
    let mut writer = match &transcript_path {
        Some(p) => Some(transcript::Writer::create(p)?),
        None => None,
    };
    if let Some(w) = writer.as_mut() {
        w.write(&Line::Header(Box::new(Header {
            kind: transcript::KIND.into(),
            version: transcript::VERSION,
            proagent_version: env!("CARGO_PKG_VERSION").into(),
            model: model.name(),
            mode,
            trials: a.trials,
            concurrency: a.concurrency,
            seed: a.seed,
            structured: sampling.structured,
            sampling,
            filter: filter.clone(),
            data_source: ds.source.clone(),
            data_sha256: ds.sha256.clone(),
            questions: questions.len(),
            prompts_sha256: prompts.sha256.clone(),
            prompt_sources: prompts.sources.clone(),
        })))?;
    }

    let total = questions.len() as u64 * a.trials as u64;
    let bar = if a.no_progress {
        ProgressBar::hidden()
    } else {
        let b = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} {elapsed} (eta {eta})") {
            b.set_style(style.progress_chars("=> "));
        }
        b.set_message(format!("qa {}", model.name()));
        b
    };
    let started = Instant::now();
    let mut sink = |x: &transcript::Exchange| -> Result<(), transcript::TranscriptError> {
        bar.inc(1);
        match writer.as_mut() {
            Some(w) => w.write(&Line::Exchange(Box::new(x.clone()))),
            None => Ok(()),
        }
    };
    let records = runtime()?.block_on(qa::run(&questions, &prompts, model.clone(), &cfg, &mut sink));
    bar.finish_and_clear();
    let records = records?;
    tracing::info!(seconds = started.elapsed().as_secs_f64(), "qa run finished");

    let report = score::build_report(&model.name(), &questions, &records, a.trials, mode, policy_of(&model_name));
    if let Some(w) = writer.as_mut() {
        w.write(&Line::Footer { report: serde_json::to_value(&report)? })?;
    }
    print_report(&report, a.json, a.csv)?;
    if let Some(p) = &transcript_path {
        eprintln!("transcript: {}", p.display());
    }
    let replied = report.exchanges - report.failed;
    if replied > 0 && report.answered == 0 {
        let first = records.iter().find_map(|x| x.reply.as_deref()).unwrap_or("");
        let excerpt: String = first.chars().take(200).collect();
        eprintln!(
            "error: none of the {} named an option letter, so every one scored wrong: \
             the accuracy above measures the reply format, not the model. Is --model a chat model that \
             answers in the asked format, and --base-url a server that runs it? The first reply was: {excerpt:?}",
            counted(replied as u64, "reply", "replies")
        );
        return Ok(ExitCode::from(1));
    }
    if report.unmatched * 2 > replied {
        eprintln!(
            "warning: {} of {} named no option letter (scored wrong); see the transcript",
            report.unmatched,
            counted(replied as u64, "reply", "replies")
        );
    }
    Ok(if report.failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

fn print_report(report: &Report, json: bool, csv: bool) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(report)?);
    } else if csv {
        print!("{}", score::render_csv(report)?);
    } else {
        print!("{}", score::render_table(report));
    }
    Ok(())
}

fn run_lint(a: LintArgs) -> Result<ExitCode> {
    let ds = load_dataset(a.data.as_deref())?;
    let r = lint::lint(&ds.questions);
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "data_source": ds.source, "data_sha256": ds.sha256, "rows": ds.rows, "report": r
            }))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "CoordinationQA lint: {} ({}, {}, sha256 {})",
        ds.source,
        counted(ds.rows as u64, "row", "rows"),
        counted(r.questions as u64, "question", "questions"),
        ds.sha256
    );
    println!();
    for f in &r.findings {
        let mark = if f.kind.certain() { "" } else { " (advisory)" };
        println!("{:<7} {}{mark}: {}", f.id, f.kind.name(), f.detail);
        println!("        default: {}", f.default_scoring);
        println!("        compat:  {}", f.compat_scoring);
    }
    println!();
    let kinds = [
        Kind::KeyMissingOption,
        Kind::RepeatedLetter,
        Kind::SkippedLetter,
        Kind::KeyStraySpace,
        Kind::CompatLetterShift,
        Kind::AnswerTextDisagrees,
    ];
    let counts: Vec<String> =
        kinds.iter().map(|k| format!("{} {}", k.name(), r.findings.iter().filter(|f| f.kind == *k).count())).collect();
    println!("{}: {}", counted(r.findings.len() as u64, "finding", "findings"), counts.join(", "));
    println!(
        "the original's random baseline draws from extra letters (blank lines after the header) in {} of {} ({} in all)",
        r.baseline_inflated,
        counted(r.questions as u64, "question", "questions"),
        counted(r.baseline_extra_letters as u64, "extra letter", "extra letters")
    );
    Ok(ExitCode::SUCCESS)
}

fn run_baseline(a: BaselineArgs) -> Result<ExitCode> {
    if a.samples == 0 {
        bail!("--samples must be at least 1");
    }
    let ds = load_dataset(a.data.data.as_deref())?;
    let (qs, filter) = select(&ds, a.data.filter.as_deref())?;
    let (rows, published) = baseline::table(&qs, a.samples, a.seed);
    if a.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json!({
                "data_sha256": ds.sha256, "filter": filter, "questions": qs.len(), "baselines": rows, "published_convention": published
            }))?
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "Random baselines on {} (exact expectation; sampled mean ± s.e. over {}, seed {})",
        counted(qs.len() as u64, "question", "questions"),
        counted(a.samples as u64, "trial", "trials"),
        a.seed
    );
    println!();
    println!("{:<10} {:>13} {:>13} {:>13} {:>13}", "", "EC", "ToM", "JP", "all");
    let f = |v: &serde_json::Value| v.as_f64().map_or("-".to_string(), |x| format!("{x:.3}"));
    let fs = |s: &serde_json::Value, k: &str| format!("{}±{}", f(&s[k]), f(&s["stderr"][k]));
    for r in &rows {
        let e = &r["exact"];
        let s = &r["sampled"];
        println!("{}", r["label"].as_str().unwrap_or(""));
        println!("{:<10} {:>13} {:>13} {:>13} {:>13}", "  exact", f(&e["EC"]), f(&e["ToM"]), f(&e["JP"]), f(&e["all"]));
        println!(
            "{:<10} {:>13} {:>13} {:>13} {:>13}",
            "  sampled",
            fs(s, "EC"),
            fs(s, "ToM"),
            fs(s, "JP"),
            fs(s, "all")
        );
    }
    let e = &published["exact"];
    println!("{}", published["label"].as_str().unwrap_or(""));
    println!("{:<10} {:>13} {:>13} {:>13} {:>13}", "  exact", f(&e["EC"]), f(&e["ToM"]), f(&e["JP"]), f(&e["all"]));
    Ok(ExitCode::SUCCESS)
}

pub fn bench(a: BenchQaArgs) -> Result<ExitCode> {
    if a.concurrency == 0 || a.trials == 0 {
        bail!("--concurrency and --trials must be at least 1");
    }
    let delay = Duration::from_millis(a.latency_ms);
    let t = runtime()?.block_on(qa::bench(&a.model, delay, a.concurrency, a.trials))?;
    let (requests, secs) = (t.requests, t.seconds);
    // With perfect overlap the run takes ceil(requests / concurrency) latencies.
    let ideal = (requests as f64 / a.concurrency as f64).ceil() * a.latency_ms as f64 / 1000.0;
    if a.json {
        println!(
            "{}",
            json!({"model": a.model, "latency_ms": a.latency_ms, "concurrency": a.concurrency, "trials": a.trials,
                   "requests": requests, "seconds": secs, "ideal_seconds": ideal, "requests_per_sec": requests as f64 / secs,
                   "correct": t.correct})
        );
    } else {
        println!(
            "{} ({} x {}) at {} ms latency, concurrency {}: {secs:.2} s (ideal {ideal:.1} s), {:.1} requests/s, {} correct",
            counted(requests as u64, "request", "requests"),
            counted(t.questions as u64, "question", "questions"),
            counted(a.trials as u64, "trial", "trials"),
            a.latency_ms,
            a.concurrency,
            requests as f64 / secs,
            t.correct
        );
    }
    Ok(ExitCode::SUCCESS)
}
