//! `proagent play`: one or more seeded episodes of an agent with a partner.
//!
//! An episode whose model failed (a call that failed after every retry, beyond
//! `--max-llm-failures`) prints no result: the command says why on stderr, keeps its
//! transcript with a footer marked `"failed": true`, plays no further episode and
//! exits 1. A model server that refuses the configuration (wrong key, unknown model,
//! ...) stops the command with exit 2.

use super::board::{self, SeatLine};
use super::common::{EpisodeArgs, GameSwitches, JsonArg};
use super::progress::{self, EpisodeProgress};
use anyhow::{Context, Result, anyhow, bail};
use proagent::eval::report::Stat;
use proagent::on_game;
use proagent::run::{PlayFailure, Run, TranscriptTarget};
use proagent::runner::seats::{SeatFactory, is_language_agent};
use proagent::runner::{EpisodeOptions, StepObserver, StepView};
use proagent::transcript::{WriterOptions, default_path};
use proagent_eval::games::{AnyGame, GameOptions, Playable, counted};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// Where transcripts go without `--transcript`: relative to the working directory.
pub const TRANSCRIPT_DIR: &str = "transcripts";

#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// The game: a layout name or a layout file, or another game's spec (`v2:NAME`, ...;
    /// `--help` lists them all).
    #[arg(long, default_value = "cramped_room", long_help = proagent::games::catalog::layout_help())]
    layout: String,
    /// The agent under test: proagent, proagent[model=NAME,key=value,...] (a ProAgent with
    /// its own model or switches), llmco, llmco[model=NAME,tom=on|off,verify=on|off,...] (the
    /// LLM-Coordination agent), scripted, greedy, random, random4, stay, courier, bc, bc:test,
    /// bc:train, bc:PATH, sp, pbt, fcp, mep, cole or rl:PATH (OvercookedV2: proagent, scripted,
    /// random, stay, sp, fcp, rl:PATH); the games without a ProAgent grounding take llmco
    /// and their own partners. Default: the game's (proagent, else llmco).
    #[arg(long)]
    agent: Option<String>,
    /// The partner in every other seat (same choices; two ProAgents can play together).
    /// Default: the game's (`--help` lists each game's partners and defaults).
    #[arg(long, long_help = proagent::games::catalog::partner_help())]
    partner: Option<String>,
    /// The player index the agent controls (0 or 1; up to 4 in games with more players);
    /// the partner plays every other seat.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=4))]
    seat: u8,
    #[command(flatten)]
    run: EpisodeArgs<1>,
    /// Print the ASCII board after every step, with a legend, the score and each seat's
    /// current skill and plan beside it.
    #[arg(long)]
    render: bool,
    /// With --render: wait this many milliseconds after each frame (to watch it play).
    #[arg(long, value_name = "MS", requires = "render")]
    render_delay_ms: Option<u64>,
    /// `--json`: one JSON summary object per episode (one per line).
    #[command(flatten)]
    out: JsonArg,
    /// Write each episode's trajectory (reference trace schema, JSON Lines) to this file.
    #[arg(long)]
    trajectory: Option<PathBuf>,
    /// --dry-run, --price-per-mtok, --confirm-above, --yes.
    #[command(flatten)]
    cost: super::cost::CostArgs,
    /// Where to write the transcript of a run with a ProAgent seat (default:
    /// transcripts/<layout>-<agent>-<partner>-seat<k>-seed<s>-<time>.jsonl under the
    /// working directory); with --episodes N, `-seed<s>` is added to the file name.
    #[arg(long, value_name = "PATH", conflicts_with = "no_transcript")]
    transcript: Option<PathBuf>,
    /// Write no transcript.
    #[arg(long)]
    no_transcript: bool,
    /// Overwrite an existing --transcript or --trajectory file.
    #[arg(long)]
    force: bool,
    /// Leave wall-clock fields (times, latencies) out of the transcript, so the same
    /// command and seed give a byte-identical file.
    #[arg(long)]
    no_wall_clock: bool,
    /// No progress on stderr (a live line on a terminal, else a line every --progress-every seconds).
    #[arg(long)]
    no_progress: bool,
    /// When stderr is not a terminal: seconds between progress lines.
    #[arg(long, value_name = "SECS", default_value_t = 30.0)]
    progress_every: f64,
    #[command(flatten)]
    pub(super) proagent: super::agent_args::ProAgentArgs,
    #[command(flatten)]
    v2: GameSwitches,
    #[command(flatten)]
    models: super::common::ModelFileArgs,
}

/// The transcript file of each episode.
fn transcript_paths(a: &PlayArgs, layout: &str, agent: &str, partner: &str) -> Vec<PathBuf> {
    let seat = a.seat as usize;
    (0..a.run.episodes)
        .map(|e| {
            let seed = a.run.seed_of(e);
            match &a.transcript {
                Some(p) if a.run.episodes == 1 => p.clone(),
                Some(p) => {
                    let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("transcript");
                    p.with_file_name(format!("{stem}-seed{seed}.jsonl"))
                }
                None => default_path(Path::new(TRANSCRIPT_DIR), layout, agent, partner, seat, seed),
            }
        })
        .collect()
}

pub fn run(a: PlayArgs) -> Result<ExitCode> {
    a.v2.check(&a.layout, &format!("{:?}", a.layout))?;
    let options = GameOptions { horizon: a.run.horizon, settings: a.v2.settings() };
    let (game, file) = AnyGame::load(&a.layout, &options).context("--layout")?;
    on_game!(game, |g| play(a, g, file))
}

/// The episodes of one `play` command, on any game: the agent in `--seat`, the partner
/// in every other seat.
fn play<G: Playable>(a: PlayArgs, game: Arc<G>, file: Option<String>) -> Result<ExitCode> {
    let seat = a.seat as usize;
    let n = game.num_players();
    if seat >= n {
        bail!("--seat {seat}: {} has {}", game.report_name(), counted(n as u64, "player", "players"));
    }
    let partner = a.partner.clone().unwrap_or_else(|| game.default_partner().to_string());
    let agent = a.agent.clone().unwrap_or_else(|| game.default_agent().to_string());
    let delay = board::delay(a.render_delay_ms)?;
    let every = progress::every(a.progress_every)?;
    // Each ProAgent seat resolved (flags + its own options) and checked before anything runs.
    let factory = SeatFactory::new(None)
        .with_max_llm_failures(Some(a.proagent.max_llm_failures))
        .with_max_parse_failure_share(Some(a.proagent.max_parse_failure_share))
        .with_partner_options(a.models.options());
    let factory = a.proagent.register(factory, &[("--agent", &agent), ("--partner", &partner)], 0)?;
    let run = Run::new(Arc::clone(&game), &agent, &partner, seat, factory).with_layout(&a.layout, file);
    run.check().map_err(|(player, e)| anyhow!(e).context(if player == seat { "--agent" } else { "--partner" }))?;
    // Every seat that calls a model, ProAgent and LLM-Coordination alike.
    let models: Vec<String> = run.specs.iter().filter_map(|s| run.factory.model_of(s)).map(|m| m.model).collect();
    if a.cost.dry_run {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let used = rt.block_on(proagent::eval::cost::measure(&run, a.run.seed_of(0))).map_err(|e| anyhow!(e))?;
        let mut estimate =
            proagent::eval::cost::CostEstimate::with_reasoning_tokens_per_call(a.cost.reasoning_tokens_per_call);
        estimate.add_cell(a.run.episodes as u64, &used);
        print!("{}", estimate.render(a.cost.price_per_mtok));
        return Ok(ExitCode::SUCCESS);
    }
    let served: Vec<String> = models.into_iter().filter(|m| proagent::eval::cost::is_served(m)).collect();
    let mut served = served;
    served.dedup();
    let paid = if served.is_empty() { 0 } else { a.run.episodes as u64 };
    if !a.cost.confirm(paid, &served)? {
        eprintln!("not started");
        return Ok(ExitCode::from(1));
    }
    let names = run.names();
    let (agent_name, partner_name) = (run.agent_name(), run.partner_name());
    if a.transcript.is_some() && !run.has_proagent() {
        bail!("--transcript needs a ProAgent seat (only ProAgent runs talk to a model)");
    }
    let want_transcript = run.has_proagent() && !a.no_transcript;
    let file_label = game.report_name().replace(':', "-");
    // One-player games name the agent twice in file names, as they always have.
    let pair_partner = if n > 1 { partner_name.clone() } else { agent_name.clone() };
    let paths =
        if want_transcript { transcript_paths(&a, &file_label, &agent_name, &pair_partner) } else { Vec::new() };
    for p in &paths {
        super::common::refuse_overwrite(p, "--transcript", a.force)?;
    }
    let mut traj_out = match &a.trajectory {
        Some(p) => {
            super::common::refuse_overwrite(p, "--trajectory", a.force)?;
            Some(std::io::BufWriter::new(
                std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
            ))
        }
        None => None,
    };
    let stand_in_note = if [&agent_name, &partner_name].iter().any(|l| proagent::eval::report::is_stand_in_seat(l)) {
        format!(" ({})", proagent::eval::report::STAND_IN_MARK)
    } else {
        String::new()
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let mut progress = EpisodeProgress::new(!a.no_progress && !a.render, every, a.run.horizon, names.clone());
    let mut scores = Vec::new();
    for e in 0..a.run.episodes {
        let seed = a.run.seed_of(e);
        let target = paths.get(e as usize).map(|path| TranscriptTarget {
            path: path.clone(),
            options: WriterOptions { scrubber: a.proagent.scrubber(), wall_clock: !a.no_wall_clock },
            partial_until_done: false,
        });
        progress.start(format!("episode {}/{} seed {seed}", e + 1, a.run.episodes));
        if a.render {
            if e == 0 {
                board::print_legend(game.legend());
            }
            let seats: Vec<SeatLine<'_>> =
                names.iter().map(|name| SeatLine { name, status: Default::default() }).collect();
            let mut chance = proagent::runner::env_chance(seed);
            let state = game.initial_state(&mut chance);
            let header = format!("{} seed {seed}, t=0 (start)\n", game.report_name());
            board::print_frame(&game.render_text(&state), &header, &board::panel(0, None, &seats), delay);
        }
        let names_ref = &names;
        let render = a.render;
        let progress_ref = &mut progress;
        let observer: StepObserver<'_, G> = Box::new(move |v: &StepView<'_, G>| {
            if render {
                print_step(v, names_ref, delay);
            }
            progress_ref.on_step(v);
        });
        let options = EpisodeOptions { on_step: Some(observer), ..EpisodeOptions::default() };
        let played = rt.block_on(run.play(seed, target.as_ref(), options));
        progress.finish();
        let played = match played {
            Ok(p) => p,
            Err(failure @ PlayFailure::Failed { .. }) => {
                if failure.stops_run() {
                    bail!("{} seed {seed}: {failure}", game.report_name());
                }
                eprintln!("error: episode {} seed {seed} failed, no score: {failure}", game.report_name());
                if let Some(mut w) = traj_out {
                    w.flush().context("writing the trajectory")?;
                }
                return Ok(ExitCode::from(1));
            }
            Err(PlayFailure::Setup(m)) => bail!("{m}"),
        };
        let result = &played.result;
        if let Some(w) = traj_out.as_mut() {
            let line = serde_json::to_string(&game.trajectory_json(result))?;
            writeln!(w, "{line}").context("writing the trajectory")?;
        }
        scores.push(result.score as f64);
        let mock = proagent::runner::models::mock_served_note();
        let line = if a.out.json {
            let mut summary = played.summary.clone();
            if let (Some(o), Some(m)) = (summary.as_object_mut(), mock) {
                o.insert("stand_in".into(), m.into());
            }
            summary.to_string()
        } else {
            let partners = if n > 1 { format!(" + {partner_name}") } else { String::new() };
            format!(
                "{} seed {}: {} (player {seat}){partners} -> score {} ({}) in {}{}",
                game.report_name(),
                seed,
                agent_name,
                result.score,
                game.outcome_text(result),
                counted(result.steps.len() as u64, "step", "steps"),
                if result.deadlocked() { ", ended in a deadlock" } else { "" }
            ) + &stand_in_note
                + &mock.map(|m| format!(" ({m})")).unwrap_or_default()
        };
        if !print_episode(&line, played.transcript.as_deref())? {
            return Ok(ExitCode::SUCCESS);
        }
    }
    if let Some(mut w) = traj_out {
        w.flush().context("writing the trajectory")?;
    }
    if a.run.episodes > 1 {
        let s = Stat::of(&scores);
        let who = if n > 1 {
            format!("{agent_name} + {partner_name}")
        } else {
            format!("{}, {agent_name} alone", game.report_name())
        };
        let line = format!(
            "mean score over {}: {} (mean ± standard error; {who}, seeds {}..={})",
            counted(s.n as u64, "episode", "episodes"),
            s.show(),
            a.run.seed,
            a.run.seed_of(a.run.episodes - 1)
        );
        print_mean(&line, a.out.json);
    }
    Ok(ExitCode::SUCCESS)
}

/// Prints one episode's line and where its transcript went; `false` when stdout was
/// closed (e.g. piped into `head`), which ends the run quietly.
fn print_episode(line: &str, transcript: Option<&Path>) -> Result<bool> {
    match writeln!(std::io::stdout().lock(), "{line}") {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(false),
        other => other.context("writing to stdout")?,
    }
    if let Some(p) = transcript {
        eprintln!("transcript: {}", p.display());
    }
    Ok(true)
}

/// Prints the mean over episodes: with --json stdout holds one object per episode, so the
/// summary goes beside it on stderr.
fn print_mean(line: &str, json: bool) {
    if json {
        eprintln!("{line}");
    } else {
        let _ = writeln!(std::io::stdout().lock(), "{line}");
    }
}

/// `--render`: the step's actions, skill events, and the board with its side panel.
fn print_step<G: Playable>(v: &StepView<'_, G>, names: &[String], delay: Option<Duration>) {
    let tokens: Vec<String> =
        v.actions.iter().map(|a| a.map_or_else(|| "-".to_string(), |a| v.game.action_token(a))).collect();
    // The actions chosen at t lead to the board at t+1, which is drawn below them.
    let mut header = format!(
        "t={} actions=[{}] reward={} -> board at t={}\n",
        v.t,
        tokens.join(", "),
        v.game.reward(v.outcome),
        v.t + 1
    );
    for ev in v.skill_events {
        header.push_str(&format!("  player {} {}: {:?}\n", ev.player, ev.skill, ev.outcome));
    }
    let calls: u64 = v.seats.iter().map(|a| a.llm_usage().calls).sum();
    let seats: Vec<SeatLine<'_>> =
        names.iter().zip(v.seats).map(|(name, s)| SeatLine { name, status: s.status() }).collect();
    let any_llm = names.iter().any(|n| is_language_agent(n));
    board::print_frame(
        &v.game.render_text(v.state),
        &header,
        &board::panel(v.score, any_llm.then_some(calls), &seats),
        delay,
    );
}
