//! `proagent eval`: concurrent, resumable evaluation sweeps, and `proagent eval
//! report`: tables, CSV/JSON and heatmaps from one or many result files.

use super::agent_args::SeatSetup;
use super::common::usize_in;
use anyhow::{Context, Result, bail};
use proagent::eval::llmco_protocol::ProtocolRun;
use proagent::eval::scheduler::{self, SweepSummary};
use proagent::eval::store::{self, TornTail};
use proagent::eval::{
    EpisodeRunner, FakeRunner, LayoutRef, PlayRunner, Report, ResultWriter, SchedulerOptions, Shard, SweepGame,
    SweepSeat, SweepSpec, cross_product,
};
use proagent::games::{AnyGame, GameOptions, catalog};
use proagent::limits::{MAX_BENCH_LLM_CALLS, MAX_CONCURRENCY, MAX_EPISODES, MAX_MILLIS, MAX_SWEEP_EPISODES};
use proagent::llm::sha256_hex;
use proagent::on_game;
use proagent::runner::models::model_identity;
use proagent::runner::seats::{LlmcoSeat, is_llmco, is_proagent, split_specs};
use proagent_core::Game;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct EvalArgs {
    #[command(subcommand)]
    command: Option<EvalCommand>,
    #[command(flatten)]
    sweep: SweepArgs,
}

#[derive(clap::Subcommand, Debug)]
enum EvalCommand {
    /// Tables (Markdown on stdout), report.csv, table1.csv, report.json and
    /// heatmap-<layout>.svg from the results of one or more sweep directories or
    /// results files (e.g. all shards of a job); identical episodes count once.
    Report(ReportArgs),
}

#[derive(clap::Args, Debug)]
struct SweepArgs {
    // A published protocol (the LLM-Coordination tables described by their own module).
    #[arg(long, value_parser = ["table1", "llmco-table1", "llmco-table2", "llmco-table3"], help = format!(
        "A published protocol: `table1` is ProAgent's Table 1 — every agent with each of the partners sp, pbt, \
         fcp, mep, cole (the shipped RL partners; override with --partners), both seats, 10 episodes each, all \
         five layouts unless --layouts is given; the report adds the paper-shaped table with the published \
         ProAgent figures beside ours. With --episodes N it is a pilot of N episodes per pairing and seat, \
         labelled as such. {}", proagent::eval::llmco_protocol::PROTOCOL_HELP))]
    protocol: Option<String>,
    /// Layouts, comma-separated: every game's specs as `play --layout` takes them, and each
    /// game's `…:all` (`all` for the classic layouts).
    #[arg(long, value_delimiter = ',', required_unless_present = "protocol", long_help = proagent::games::catalog::layout_help())]
    layouts: Vec<String>,
    /// Agents to evaluate, comma-separated (commas inside [...] do not split; the flag may
    /// be repeated): the specs of `play --agent`, e.g.
    /// "proagent[model=gpt-4o],proagent[model=llama3.1:8b,memory_k=3],scripted". Each
    /// ProAgent setting is its own row, named by its model and changed options.
    #[arg(long, required_unless_present = "protocol")]
    agents: Vec<String>,
    /// Partners to pair each agent with, comma-separated like --agents (ProAgents included).
    #[arg(long, required_unless_present = "protocol")]
    partners: Vec<String>,
    /// Seats the evaluated agent plays (0 = player 0).
    #[arg(long, value_delimiter = ',', default_value = "0,1", value_parser = clap::value_parser!(u8).range(0..=1))]
    seats: Vec<u8>,
    /// Episodes per layout × agent × partner × seat (episode i uses seed S+i), and their length.
    #[command(flatten)]
    run: SweepEpisodes,
    /// Episodes in flight at once.
    #[arg(long, default_value_t = 4, value_parser = usize_in(1..=MAX_CONCURRENCY as u64))]
    concurrency: usize,
    /// Output directory: results, transcripts and reports. Re-running the same
    /// command with the same directory resumes.
    #[arg(long, required = true)]
    out: Option<PathBuf>,
    /// Run only shard i of n (0-based), e.g. `--shard $SLURM_ARRAY_TASK_ID/8`.
    #[arg(long)]
    shard: Option<Shard>,
    /// No progress: neither the terminal bar nor the plain lines.
    #[arg(long)]
    quiet: bool,
    /// When stderr is not a terminal (batch logs such as Slurm's): seconds between plain
    /// progress lines.
    #[arg(long, value_name = "SECS", default_value_t = 60.0)]
    progress_every: f64,
    /// Do not print or write the report at the end.
    #[arg(long)]
    no_report: bool,
    /// Count result records without a checksum (written before records had one, or with
    /// the field removed) in the report at the end; by default they are left out of it,
    /// and the report says how many.
    #[arg(long)]
    include_unchecked: bool,
    /// Also keep every episode's trajectory (reference-trace schema) in
    /// <out>/trajectories/<key>.jsonl, for `verify-trace`, `analyze` and `serve`.
    /// Episodes already recorded by an earlier run are not re-played for it.
    #[arg(long)]
    keep_trajectories: bool,
    /// Testing and benchmarking only: instead of playing, every episode waits this many
    /// milliseconds and gets a score derived from its key (runner name "fake").
    #[arg(long, hide = true, value_parser = clap::value_parser!(u64).range(0..=MAX_MILLIS))]
    fake_episode_ms: Option<u64>,
    /// Options of every ProAgent seat (as in `proagent play`); `proagent[key=value,...]`
    /// overrides them for one seat.
    #[command(flatten)]
    proagent: super::agent_args::ProAgentArgs,
    /// The OvercookedV2 switches of every `v2:` layout.
    #[command(flatten)]
    v2: super::common::GameSwitches,
    #[command(flatten)]
    models: super::common::ModelFileArgs,
    /// --dry-run, --price-per-mtok, --confirm-above, --yes.
    #[command(flatten)]
    cost: super::cost::CostArgs,
}

/// eval's episode flags: those of every command that plays (`EpisodeArgs`), except that
/// `--episodes` keeps whether it was given: a protocol plays its own count unless it is.
#[derive(clap::Args, Debug)]
struct SweepEpisodes {
    /// Episodes to play per layout × agent × partner × seat; episode i uses seed + i.
    /// Default 1, or the protocol's own count with --protocol (given, a labelled pilot).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=super::common::MAX_EPISODES as i64))]
    episodes: Option<u32>,
    /// Seed of the first episode.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Steps per episode.
    #[arg(long, default_value_t = proagent::env::DEFAULT_HORIZON,
          value_parser = clap::value_parser!(u32).range(1..=super::common::MAX_HORIZON as i64))]
    horizon: u32,
}

impl SweepEpisodes {
    /// Episodes per cell: as given, else 1 (a protocol fills in its own before this is read).
    fn count(&self) -> u32 {
        self.episodes.unwrap_or(1)
    }
}

#[derive(clap::Args, Debug)]
struct ReportArgs {
    /// Sweep directories (every results*.jsonl inside) or results files.
    #[arg(required = true)]
    inputs: Vec<PathBuf>,
    /// Where to write the report files (default: the input directory when there is one).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also print and write the paper-shaped table of a protocol (`table1`).
    #[arg(long, value_parser = ["table1"])]
    protocol: Option<String>,
    /// The heatmaps' format: svg (always written), png or pdf (also written, converted from
    /// the same SVG drawing; they need an installed font for the labels).
    #[arg(long, default_value = "svg", value_parser = ["svg", "png", "pdf"])]
    format: String,
    /// Count result records without a checksum (written before records had one, or with
    /// the field removed) in the report, unverified; by default they are left out of every
    /// mean, table and heatmap, and the report says how many.
    #[arg(long)]
    include_unchecked: bool,
}

pub fn run(a: EvalArgs) -> Result<ExitCode> {
    match a.command {
        Some(EvalCommand::Report(r)) => report(r),
        None => sweep(a.sweep),
    }
}

/// A game of the sweep: its key reference, the game, how it was given (the spec) and, for
/// a layout file, its text.
type Resolved = (LayoutRef, AnyGame, String, Option<String>);

/// The games of `--layouts`, in order, each once: every `…:all` expanded and every spec
/// loaded through the catalog, with the game's switches. A game's key hashes what defines
/// it (its layout or scenario text; V2: with its switches), so changing either never
/// reuses old results.
fn resolve_games(specs: &[String], switches: &super::common::GameSwitches, horizon: u32) -> Result<Vec<Resolved>> {
    let options = GameOptions { horizon, settings: switches.settings() };
    let mut out: Vec<Resolved> = Vec::new();
    for spec in catalog::expand_specs(specs) {
        let (game, text) = AnyGame::load(&spec, &options).context("--layouts")?;
        let name = game.report_name();
        let sha256 = sha256_hex(game.definition(text.as_deref()).as_bytes());
        if let Some((other, ..)) = out.iter().find(|(o, ..)| o.name == name) {
            if other.sha256 != sha256 {
                bail!("two different layouts are both named {name:?} (rename one of the files)");
            }
            continue;
        }
        // A built-in game is recorded by its name; headers keep a file's text, so its
        // transcripts replay anywhere.
        let spec = if text.is_some() { spec } else { name.clone() };
        out.push((LayoutRef { name, sha256 }, game, spec, text));
    }
    // A switch no game of the sweep takes is a mistake on the command line.
    if !out.iter().any(|(_, g, ..)| !g.entry().settings.is_empty()) {
        switches.refuse(&[], "the classic layouts of --layouts")?;
    }
    Ok(out)
}

/// The specs of a list flag, split on the commas outside brackets, each ProAgent spec
/// resolved to its label (its name in the results) against the ProAgent flags.
fn seat_list(
    flag: &str,
    v: &[String],
    a: &SweepArgs,
    seats: &mut Vec<SeatSetup>,
    llmco: &mut HashMap<String, LlmcoSeat>,
) -> Result<Vec<String>> {
    let mut out = Vec::new();
    for spec in v.iter().flat_map(|s| split_specs(s)) {
        if is_llmco(&spec) {
            // Named by its label (model and changed switches), like a ProAgent seat.
            let seat = a.proagent.llmco_seat(&spec, a.run.seed).context(flag.to_string())?;
            out.push(seat.label.clone());
            llmco.entry(seat.label.clone()).or_insert(seat);
            continue;
        }
        if !is_proagent(&spec) {
            out.push(spec);
            continue;
        }
        let setup = a.proagent.resolve(&spec).context(flag.to_string())?;
        out.push(setup.label.clone());
        if !seats.iter().any(|s| s.label == setup.label) {
            seats.push(setup);
        }
    }
    if out.is_empty() {
        bail!("{flag} is empty");
    }
    Ok(out)
}

/// The episode runner for this command line: ProAgent seats resolved, their models'
/// servers identified (part of the episode keys).
fn make_runner(
    a: &SweepArgs,
    games: HashMap<String, SweepGame>,
    seats: &[SeatSetup],
    llmco_seats: HashMap<String, LlmcoSeat>,
    rt: &tokio::runtime::Runtime,
) -> Result<Arc<dyn EpisodeRunner>> {
    if let Some(ms) = a.fake_episode_ms {
        return Ok(Arc::new(FakeRunner { episode_ms: ms }));
    }
    let mut sweep_seats = HashMap::new();
    for setup in seats {
        let seat = a.proagent.seat(&setup.spec, a.run.seed)?;
        // A dry run contacts no server (its keys then match finished served-model episodes
        // only by chance: it counts them as still to play). A configuration that
        // contradicts itself is refused when the seat's model is built, naming its flag:
        // no server is asked first, and no warning comes before that error.
        let identity = if a.cost.dry_run || seat.model.check_params().is_err() {
            Ok(serde_json::Value::Null)
        } else {
            rt.block_on(model_identity(&seat.model))
        };
        let server = match identity {
            Ok(v) => v,
            Err(e) => {
                eprintln!(
                    "warning: {}: {e}; its episode keys name the model but not the server, so results \
                     from another server under the same model name would be reused",
                    setup.label
                );
                serde_json::Value::Null
            }
        };
        sweep_seats.insert(setup.label.clone(), SweepSeat { seat, server });
    }
    // LLM-Coordination seats are keyed by their server's identity too, so a resumed sweep
    // never reuses results another server produced under the same model name.
    let mut llmco_servers = HashMap::new();
    let mut labels: Vec<&String> = llmco_seats.keys().collect();
    labels.sort();
    for label in labels {
        let seat = &llmco_seats[label];
        if a.cost.dry_run || seat.model.check_params().is_err() {
            continue;
        }
        match rt.block_on(model_identity(&seat.model)) {
            Ok(v) => {
                llmco_servers.insert(label.clone(), v);
            }
            Err(e) => eprintln!(
                "warning: {label}: {e}; its episode keys name the model but not the server, so results \
                 from another server under the same model name would be reused"
            ),
        }
    }
    let runner = PlayRunner::new(games, sweep_seats, Some(a.proagent.max_llm_failures), a.proagent.scrubber())
        .max_parse_failure_share(Some(a.proagent.max_parse_failure_share))
        .keep_trajectories(a.keep_trajectories)
        .with_llmco_seats(llmco_seats)
        .with_llmco_servers(llmco_servers)
        .partner_options(a.models.options());
    Ok(Arc::new(runner))
}

/// `--dry-run`: each cell still to play is played once offline with the stand-in in every
/// ProAgent's model's place; the table of calls, tokens and price goes to stdout.
fn dry_run(
    a: &SweepArgs,
    games: &HashMap<String, SweepGame>,
    setups: &[SeatSetup],
    llmco_seats: &HashMap<String, LlmcoSeat>,
    todo: &[&proagent::eval::PlannedEpisode],
    rt: &tokio::runtime::Runtime,
) -> Result<ExitCode> {
    use proagent::eval::cost::{CostEstimate, measure};
    use proagent::run::Run;
    use proagent::runner::seats::SeatFactory;
    let mut factory = SeatFactory::new(None);
    for s in setups {
        factory = factory.with_seat(&s.label, a.proagent.seat(&s.spec, a.run.seed)?);
    }
    for (label, seat) in llmco_seats {
        factory = factory.with_llmco_seat(label, seat.clone());
    }
    // Cells in plan order, each with its episodes and its first seed.
    let mut cells: Vec<(&proagent::eval::EpisodeSpec, u64)> = Vec::new();
    for p in todo {
        let s = &p.spec;
        match cells
            .iter_mut()
            .find(|(c, _)| (&c.layout, &c.agent, &c.partner, c.seat) == (&s.layout, &s.agent, &s.partner, s.seat))
        {
            Some((_, n)) => *n += 1,
            None => cells.push((s, 1)),
        }
    }
    let labels: Vec<&str> =
        setups.iter().map(|s| s.label.as_str()).chain(llmco_seats.keys().map(String::as_str)).collect();
    let mut estimate = CostEstimate::with_reasoning_tokens_per_call(a.cost.reasoning_tokens_per_call);
    for (spec, episodes) in cells {
        if !labels.contains(&spec.agent.as_str()) && !labels.contains(&spec.partner.as_str()) {
            estimate.add_cell(episodes, &[]);
            continue;
        }
        let layout =
            games.get(&spec.layout).with_context(|| format!("layout {} is not part of this sweep", spec.layout))?;
        let game = layout.game.with_horizon(spec.horizon);
        let used = on_game!(game, |g| {
            let seat = (spec.seat as usize).min(g.num_players().saturating_sub(1));
            let run = Run::new(g, &spec.agent, &spec.partner, seat, factory.clone())
                .with_layout(&layout.spec, layout.file.clone());
            rt.block_on(measure(&run, spec.seed))
        })
        .map_err(|e| {
            anyhow::anyhow!("measuring {} {} vs {} seat {}: {e}", spec.layout, spec.agent, spec.partner, spec.seat)
        })?;
        estimate.add_cell(episodes, &used);
    }
    print!("{}", estimate.render(a.cost.price_per_mtok));
    Ok(ExitCode::SUCCESS)
}

fn report_torn(torn: &[TornTail]) {
    for t in torn {
        eprintln!("warning: {t}");
    }
}

/// Says how many records were loaded without a checksum to verify (resuming: they count
/// as finished episodes).
fn report_unchecked(set: &proagent::eval::ResultSet) {
    if set.unchecked() > 0 {
        eprintln!(
            "note: {} result records carry no checksum (written before records had one, or the field was removed); \
             they count as finished, unverified",
            set.unchecked()
        );
    }
}

/// Says what a report did with records without a checksum.
fn report_unchecked_count(n: proagent::eval::UncheckedCount) {
    if n.excluded > 0 {
        eprintln!(
            "note: {} result records carry no checksum (written before records had one, or the field was removed): \
             they are left out of the report; --include-unchecked counts them",
            n.excluded
        );
    }
    if n.included > 0 {
        eprintln!("note: {} result records carry no checksum: counted unverified (--include-unchecked)", n.included);
    }
}

/// Fills in what a protocol fixes; errors name the flag that conflicts with it.
fn apply_protocol(mut a: SweepArgs) -> Result<SweepArgs> {
    let Some(p) = a.protocol.as_deref() else { return Ok(a) };
    if p != "table1" {
        return Ok(a);
    }
    if a.agents.is_empty() {
        bail!("--agents: the table1 protocol evaluates the agents --agents names");
    }
    use proagent::eval::report::{TABLE1_EPISODES, TABLE1_PARTNERS};
    if a.layouts.is_empty() {
        a.layouts = vec!["all".into()];
    }
    if a.partners.is_empty() {
        a.partners = TABLE1_PARTNERS.iter().map(|s| s.to_string()).collect();
    }
    let mut seats = a.seats.clone();
    seats.sort_unstable();
    seats.dedup();
    if seats != [0, 1] {
        bail!("--seats: the table1 protocol plays both seats (leave --seats out)");
    }
    // `--episodes N` runs the protocol as a pilot of N episodes per pairing and seat; its
    // table says so (`Report::table1_paper_markdown`). Without the flag: the protocol's own.
    match a.run.episodes {
        Some(n) if n != TABLE1_EPISODES => eprintln!(
            "pilot: the table1 protocol with {} per pairing and seat (the protocol plays {TABLE1_EPISODES}); \
             its table is labelled as a pilot",
            proagent::games::counted(n as u64, "episode", "episodes")
        ),
        _ => a.run.episodes = Some(TABLE1_EPISODES),
    }
    Ok(a)
}

/// `--protocol llmco-table1|llmco-table2|llmco-table3` (the LLM-Coordination paper's
/// tables; what each plays: `proagent::eval::llmco_protocol`). Fills in what an LLM-Coordination protocol fixes (`None`: not one of them); errors name
/// the flag that conflicts with it.
fn apply_llmco_protocol(a: &mut SweepArgs) -> Result<Option<ProtocolRun>> {
    let Some(table) = a.protocol.as_deref().and_then(proagent::eval::llmco_protocol::LlmcoTable::parse) else {
        return Ok(None);
    };
    let name = table.name();
    let seats = table.agents().join(" and ");
    if !a.agents.is_empty() || !a.partners.is_empty() {
        bail!(
            "--agents/--partners: the {name} protocol seats {seats} in self-play (leave them out; \
             name the model with --model)"
        );
    }
    if !a.layouts.is_empty() {
        bail!("--layouts: the {name} protocol plays {} (leave --layouts out)", table.layouts().join(","));
    }
    let mut chosen = a.seats.clone();
    chosen.sort_unstable();
    chosen.dedup();
    if chosen != [0, 1] && chosen != [0] {
        bail!("--seats: the {name} protocol is self-play, both seats one agent (leave --seats out)");
    }
    let ticks = proagent::eval::llmco_protocol::OVERCOOKED_TICKS;
    if a.run.horizon != ticks {
        bail!("--horizon: the {name} protocol plays the release's {ticks} ticks (leave --horizon out)");
    }
    let full = table.trials();
    let trials = a.run.episodes.unwrap_or(full);
    if trials > full {
        bail!("--episodes: the {name} protocol plays {full} trials per cell; fewer is a labelled pilot (got {trials})");
    }
    a.layouts = table.layouts();
    a.agents = table.agents();
    a.partners = table.agents();
    a.seats = vec![0];
    a.run.episodes = Some(trials);
    // The paper scored every episode, however few of its replies the agent could read.
    a.proagent.max_parse_failure_share = 1.0;
    Ok(Some(ProtocolRun { table, trials }))
}

fn sweep(a: SweepArgs) -> Result<ExitCode> {
    let mut a = apply_protocol(a)?;
    let llmco_protocol = apply_llmco_protocol(&mut a)?;
    let out = a.out.clone().context("--out is required")?;
    if a.concurrency == 0 || a.concurrency > MAX_CONCURRENCY {
        bail!("--concurrency must be between 1 and {MAX_CONCURRENCY}, got {}", a.concurrency);
    }
    if let Some(bad) = a.seats.iter().find(|s| **s > 1) {
        bail!("--seats takes 0 and/or 1, got {bad}");
    }
    let every = super::progress::every(a.progress_every)?;
    let mut setups = Vec::new();
    let mut llmco_seats = HashMap::new();
    let agents = seat_list("--agents", &a.agents, &a, &mut setups, &mut llmco_seats)?;
    let partners = seat_list("--partners", &a.partners, &a, &mut setups, &mut llmco_seats)?;
    let resolved = resolve_games(&a.layouts, &a.v2, a.run.horizon)?;
    if resolved.is_empty() {
        bail!("--layouts is empty");
    }
    let cells = [resolved.len(), agents.len(), partners.len(), a.seats.len(), a.run.count() as usize];
    let total = cells.iter().try_fold(1usize, |acc, &n| acc.checked_mul(n));
    if total.is_none_or(|t| t > MAX_SWEEP_EPISODES) {
        bail!(
            "the sweep plans {} episodes (layouts x agents x partners x seats x --episodes = {}); \
             one sweep may plan at most {MAX_SWEEP_EPISODES} (see docs/limits.md)",
            total.map_or("too many".to_string(), |t| t.to_string()),
            cells.map(|n| n.to_string()).join(" x ")
        );
    }
    let games: HashMap<String, SweepGame> = resolved
        .iter()
        .map(|(r, game, spec, file)| {
            (r.name.clone(), SweepGame { game: game.clone(), spec: spec.clone(), file: file.clone() })
        })
        .collect();
    let specs: Vec<&str> = agents.iter().chain(&partners).map(String::as_str).collect();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        // Every in-flight episode holds one blocking-pool thread (see eval::scheduler).
        .max_blocking_threads(a.concurrency + 16)
        .build()
        .context("starting the async runtime")?;
    let runner = make_runner(&a, games.clone(), &setups, llmco_seats.clone(), &rt)?;
    for (flag, list) in [("--agents", &agents), ("--partners", &partners)] {
        for s in list {
            runner.check_spec(s).map_err(|e| anyhow::anyhow!("{flag}: {e}"))?;
        }
    }
    let spec_configs =
        specs.iter().map(|s| (s.to_string(), runner.config_fingerprint(s))).filter(|(_, f)| !f.is_empty()).collect();

    let spec = SweepSpec {
        layouts: resolved.iter().map(|(r, ..)| r.clone()).collect(),
        agents,
        partners,
        seats: a.seats.clone(),
        episodes: a.run.count(),
        seed: a.run.seed,
        horizon: a.run.horizon,
        runner: runner.name().to_string(),
        spec_configs,
    };
    let mut plan = match &llmco_protocol {
        Some(p) => p.plan(&spec),
        None => cross_product(&spec),
    };
    // A one-player layout has no seat 1: its agent is player 0 whatever --seats says.
    let players: HashMap<String, usize> =
        games.iter().map(|(name, g)| (name.clone(), on_game!(&g.game, |g| g.num_players()))).collect();
    let skipped: Vec<String> = {
        let mut v: Vec<String> = players.iter().filter(|(_, n)| **n < 2).map(|(l, _)| l.clone()).collect();
        v.sort();
        v
    };
    plan.retain(|p| (p.spec.seat as usize) < players.get(&p.spec.layout).copied().unwrap_or(2));
    if !skipped.is_empty() && a.seats.contains(&1) {
        let verb = if skipped.len() == 1 { "has" } else { "have" };
        eprintln!("note: {} {verb} one player: seat 1 is not played there", skipped.join(", "));
    }
    let planned = plan.len();
    let plan_keys: std::collections::HashSet<String> = plan.iter().map(|p| p.config_hash.clone()).collect();
    let mine: Vec<_> = match a.shard {
        Some(sh) => plan.into_iter().filter(|p| sh.contains(&p.config_hash)).collect(),
        None => plan,
    };
    let in_shard = mine.len();
    if let Some(p) = llmco_protocol.as_ref().filter(|_| a.cost.dry_run) {
        print!("{}", p.dry_run_header(in_shard, &a.proagent.llm.model));
    }

    if a.cost.dry_run || a.fake_episode_ms.is_none() {
        // What is finished already is not played again (nor counted); a dry run writes nothing.
        let done = if out.exists() { store::load_all(std::slice::from_ref(&out))?.0 } else { Default::default() };
        let todo: Vec<_> = mine.iter().filter(|p| !done.contains(&p.config_hash)).collect();
        if a.cost.dry_run {
            return dry_run(&a, &games, &setups, &llmco_seats, &todo, &rt);
        }
        // Every seat that calls a served model, ProAgent and LLM-Coordination alike.
        let mut served: Vec<(&str, &str)> = setups
            .iter()
            .map(|s| (s.label.as_str(), s.model.model.as_str()))
            .chain(llmco_seats.iter().map(|(label, s)| (label.as_str(), s.model.model.as_str())))
            .filter(|(_, model)| proagent::eval::cost::is_served(model))
            .collect();
        served.sort_unstable();
        let labels: Vec<&str> = served.iter().map(|(label, _)| *label).collect();
        let paid = todo
            .iter()
            .filter(|p| labels.contains(&p.spec.agent.as_str()) || labels.contains(&p.spec.partner.as_str()))
            .count();
        let mut models: Vec<String> = Vec::new();
        for (_, m) in &served {
            if !models.iter().any(|x| x == m) {
                models.push(m.to_string());
            }
        }
        if !a.cost.confirm(paid as u64, &models)? {
            eprintln!("not started");
            return Ok(ExitCode::from(1));
        }
    }

    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let results_path = store::results_path(&out, a.shard);
    let (writer, torn) = ResultWriter::open(&results_path)?;
    if let Some(t) = &torn {
        eprintln!("warning: {t} (truncated)");
    }
    // Finished keys from every results file in the directory, so shards sharing a
    // directory (or a changed shard count) never replay each other's episodes.
    let (done, other_torn) = store::load_all(std::slice::from_ref(&out))?;
    report_torn(&other_torn);
    report_unchecked(&done);
    let todo: Vec<_> = mine.into_iter().filter(|p| !done.contains(&p.config_hash)).collect();
    let shard_note = a.shard.map(|s| format!(" (shard {s}: {in_shard})")).unwrap_or_default();
    eprintln!(
        "plan: {}{shard_note}; already finished: {}; to play: {} at concurrency {}",
        proagent::games::counted(planned as u64, "episode", "episodes"),
        in_shard - todo.len(),
        todo.len(),
        a.concurrency
    );

    let opts = SchedulerOptions {
        concurrency: a.concurrency,
        out_dir: out.clone(),
        progress: !a.quiet,
        progress_every: every,
    };
    let summary: SweepSummary = rt.block_on(scheduler::run_episodes(todo, runner, writer.spawn(), &opts, async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }))?;
    // Episodes cancelled by Ctrl-C may still hold blocking threads for a moment; do not wait.
    rt.shutdown_background();

    eprintln!(
        "played {} of {} in {:.2} s ({} failed, {} results written, {} fsyncs)",
        summary.completed,
        proagent::games::counted(summary.scheduled as u64, "episode", "episodes"),
        summary.wall_s,
        summary.failures.len(),
        summary.write.records,
        summary.write.fsyncs
    );
    for f in &summary.failures {
        eprintln!(
            "  failed: {} {} vs {} seat {} seed {}: {}",
            f.spec.layout, f.spec.agent, f.spec.partner, f.spec.seat, f.spec.seed, f.error
        );
    }
    let unread = summary.failures.iter().filter(|f| f.error.contains("named no usable action")).count();
    if unread > 0 {
        eprintln!(
            "  {unread} of them: the model's replies named no usable action in more than --max-parse-failure-share \
             of its decisions (prose, another language, a format the agent does not read); see their transcripts"
        );
    }
    if let Some(why) = &summary.stopped {
        // A configuration error: no episode can be played until it is fixed.
        bail!(
            "the sweep was stopped: {why}\nfix this and run the same command again; nothing was recorded for the failed episodes"
        );
    }
    if summary.interrupted {
        eprintln!("interrupted: run the same command again to play the remaining episodes");
        return Ok(ExitCode::from(130));
    }
    if !a.no_report {
        if a.shard.is_some_and(|s| s.count > 1) {
            eprintln!("shard done; when every shard has finished: proagent eval report {}", out.display());
        } else {
            // This command's episodes only: DIR may also hold other sweeps' results.
            let (all, _) = store::load_all(std::slice::from_ref(&out))?;
            let (mine, unchecked) = all.for_means(a.include_unchecked, |r| plan_keys.contains(&r.config_hash));
            report_unchecked_count(unchecked);
            if mine.is_empty() {
                eprintln!("no finished episodes: no report written");
            } else {
                write_report(&mine, unchecked, &out, a.protocol.as_deref() == Some("table1"), None)?;
                if let Some(p) = &llmco_protocol {
                    let (md, path) = (p.markdown(&mine), out.join(format!("{}.md", p.table.name())));
                    println!("\n{md}");
                    proagent::eval::write_atomic(&path, md.as_bytes())
                        .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
                    eprintln!("wrote {}", path.display());
                }
            }
        }
    }
    if !summary.failures.is_empty() {
        eprintln!(
            "{} episodes failed and were not recorded; run the same command again to retry them",
            summary.failures.len()
        );
        return Ok(ExitCode::from(1));
    }
    Ok(ExitCode::SUCCESS)
}

fn write_report(
    records: &[proagent::eval::EpisodeRecord],
    unchecked: proagent::eval::UncheckedCount,
    out: &Path,
    table1: bool,
    figures: Option<proagent::eval::figure::FigureFormat>,
) -> Result<()> {
    let report = Report::build(records).with_unchecked(unchecked);
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    print!("{}", report.markdown());
    let mut files = proagent::eval::write_report_files(&report, out)?;
    if let Some(format) = figures {
        files.extend(proagent::eval::write_heatmap_figures(&report, out, format)?);
    }
    if table1 {
        let md = report.table1_paper_markdown();
        println!("\n{md}");
        let path = out.join("table1-paper.md");
        proagent::eval::write_atomic(&path, md.as_bytes()).with_context(|| format!("writing {}", path.display()))?;
        files.push(path);
    }
    for f in files {
        eprintln!("wrote {}", f.display());
    }
    Ok(())
}

fn report(a: ReportArgs) -> Result<ExitCode> {
    for p in &a.inputs {
        if !p.exists() {
            bail!("{}: no such file or directory", p.display());
        }
    }
    let out = match (&a.out, a.inputs.as_slice()) {
        (Some(o), _) => o.clone(),
        (None, [one]) if one.is_dir() => one.clone(),
        (None, [one]) => one.parent().map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from(".")),
        (None, _) => bail!("several inputs: say where the merged report goes with --out DIR"),
    };
    let (set, torn) = store::load_all(&a.inputs)?;
    report_torn(&torn);
    let inputs = || a.inputs.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ");
    if set.is_empty() {
        bail!("no finished episodes in {}", inputs());
    }
    if set.duplicates > 0 {
        eprintln!("{} identical duplicate episodes counted once", set.duplicates);
    }
    let (records, unchecked) = set.for_means(a.include_unchecked, |_| true);
    report_unchecked_count(unchecked);
    if records.is_empty() {
        bail!(
            "no episode records with a checksum in {}: all {} carry none (written before records had one, or the \
             field was removed), so nothing shows they are as written; --include-unchecked reports them anyway",
            inputs(),
            unchecked.excluded
        );
    }
    let figures = match a.format.as_str() {
        "png" => Some(proagent::eval::figure::FigureFormat::Png),
        "pdf" => Some(proagent::eval::figure::FigureFormat::Pdf),
        _ => None,
    };
    write_report(&records, unchecked, &out, a.protocol.is_some(), figures)?;
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args, Debug)]
pub struct BenchEvalArgs {
    /// Stand-in episodes to run.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=MAX_EPISODES as i64))]
    episodes: u32,
    /// Episodes in flight at once.
    #[arg(long, default_value_t = 32, value_parser = usize_in(1..=MAX_CONCURRENCY as u64))]
    concurrency: usize,
    /// How long each fake episode waits (an LLM-bound episode spends its time waiting).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(0..=MAX_MILLIS))]
    episode_ms: u64,
    /// Instead of waiting, each episode makes this many chat calls, one after the other,
    /// through the HTTP backend to a mock server (first measuring one episode alone).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=MAX_BENCH_LLM_CALLS as i64))]
    llm_calls: u32,
    /// With --llm-calls: the latency of the in-process mock server.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(0..=MAX_MILLIS))]
    mock_latency_ms: u64,
    /// With --llm-calls: talk to this server (e.g. a running `proagent mock-server`) instead.
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
}

fn bench_plan(episodes: u32, runner: &str) -> Vec<proagent::eval::PlannedEpisode> {
    cross_product(&SweepSpec {
        layouts: vec![LayoutRef { name: "cramped_room".into(), sha256: "bench".into() }],
        agents: vec!["bench".into()],
        partners: vec!["bench".into()],
        seats: vec![0],
        episodes,
        seed: 0,
        horizon: proagent::env::DEFAULT_HORIZON,
        runner: runner.into(),
        spec_configs: Default::default(),
    })
}

/// One timed sweep in a scratch directory.
async fn bench_sweep(runner: Arc<dyn EpisodeRunner>, episodes: u32, concurrency: usize) -> Result<SweepSummary> {
    let dir = std::env::temp_dir().join(format!("proagent-bench-eval-{}-{episodes}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let todo = bench_plan(episodes, runner.name());
    let (writer, _) = ResultWriter::open(&store::results_path(&dir, None))?;
    let opts = SchedulerOptions::quiet(concurrency, dir.clone());
    let summary = scheduler::run_episodes(todo, runner, writer.spawn(), &opts, std::future::pending()).await?;
    let _ = std::fs::remove_dir_all(&dir);
    if !summary.failures.is_empty() {
        bail!("{} bench episodes failed, e.g. {}", summary.failures.len(), summary.failures[0].error);
    }
    Ok(summary)
}

/// Runs the real scheduler and results writer (fsync included) on stand-in episodes in a
/// scratch directory, so the difference from the ideal time is the sweep machinery's cost.
pub fn bench(a: BenchEvalArgs) -> Result<ExitCode> {
    if a.episodes == 0 || a.concurrency == 0 {
        bail!("--episodes and --concurrency must be at least 1");
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .max_blocking_threads(a.concurrency + 16)
        .build()
        .context("starting the async runtime")?;
    if a.llm_calls > 0 {
        return rt.block_on(bench_llm(&a));
    }
    let runner: Arc<dyn EpisodeRunner> = Arc::new(FakeRunner { episode_ms: a.episode_ms });
    let summary = rt.block_on(bench_sweep(runner, a.episodes, a.concurrency))?;
    let rounds = (a.episodes as usize).div_ceil(a.concurrency) as f64;
    let ideal = rounds * a.episode_ms as f64 / 1000.0;
    let overhead = summary.wall_s - ideal;
    let per_episode_ms = overhead * 1000.0 / a.episodes as f64;
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "episodes": a.episodes, "concurrency": a.concurrency, "episode_ms": a.episode_ms,
                "wall_s": summary.wall_s, "ideal_s": ideal, "overhead_s": overhead,
                "overhead_per_episode_ms": per_episode_ms, "fsyncs": summary.write.fsyncs,
                "records": summary.write.records,
            })
        );
    } else {
        println!(
            "{} episodes of {} ms at concurrency {}: {:.3} s (ideal {:.3} s) → overhead {:.3} s, {:.3} ms per episode; {} records, {} fsyncs",
            a.episodes,
            a.episode_ms,
            a.concurrency,
            summary.wall_s,
            ideal,
            overhead,
            per_episode_ms,
            summary.write.records,
            summary.write.fsyncs
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// N stand-in episodes of K sequential HTTP chat calls at concurrency C, against one
/// such episode alone.
async fn bench_llm(a: &BenchEvalArgs) -> Result<ExitCode> {
    use proagent::llm::http::{HttpConfig, OpenAiModel};
    use proagent_mock::{EchoPlanner, MockConfig, MockServer};
    let mut server = None;
    let base_url = match &a.base_url {
        Some(u) => u.clone(),
        None => {
            let cfg =
                MockConfig { latency: std::time::Duration::from_millis(a.mock_latency_ms), ..MockConfig::default() };
            let s = MockServer::start_local(Arc::new(EchoPlanner), cfg).await.context("starting the mock server")?;
            let url = s.base_url();
            server = Some(s);
            url
        }
    };
    let mut cfg = HttpConfig::new();
    cfg.base_url = base_url.clone();
    let model = Arc::new(OpenAiModel::new("bench", cfg)?);
    let runner: Arc<dyn EpisodeRunner> = Arc::new(proagent::eval::ChatRunner { model, calls: a.llm_calls });
    let one = bench_sweep(Arc::clone(&runner), 1, 1).await?;
    let many = bench_sweep(runner, a.episodes, a.concurrency).await?;
    if let Some(s) = server {
        s.shutdown().await;
    }
    let ratio = many.wall_s / one.wall_s;
    if a.json {
        println!(
            "{}",
            serde_json::json!({
                "episodes": a.episodes, "concurrency": a.concurrency, "llm_calls_per_episode": a.llm_calls,
                "mock_latency_ms": if a.base_url.is_some() { None } else { Some(a.mock_latency_ms) },
                "base_url": proagent::llm::scrub::redact_url(&base_url), "one_episode_s": one.wall_s, "all_episodes_s": many.wall_s, "ratio": ratio,
            })
        );
    } else {
        println!(
            "{} episodes × {} chat calls at concurrency {}: {:.3} s; one episode alone: {:.3} s → {:.2} × one episode",
            a.episodes, a.llm_calls, a.concurrency, many.wall_s, one.wall_s, ratio
        );
    }
    Ok(ExitCode::SUCCESS)
}
