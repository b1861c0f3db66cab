//! `proagent play`: one or more seeded episodes of an agent with a partner.
//!
//! An episode whose model failed (a call that failed after every retry, beyond
//! `--max-llm-failures`) prints no result: the command says why on stderr, keeps its
//! transcript with a footer marked `"failed": true`, plays no further episode and
//! exits 1. A model server that refuses the configuration (wrong key, unknown model,
//! ...) stops the command with exit 2.

use super::agent_args::SeatSetup;
use super::board::{self, SeatLine};
use super::common::{EpisodeArgs, JsonArg, V2Args, load_layout_with_text, load_v2_layout};
use super::progress::{self, EpisodeProgress};
use anyhow::{Context, Result, bail};
use proagent::controller::Kitchen;
use proagent::eval::report::Stat;
use proagent::runner::record::{EpisodeRecorder, PLAY_COMMAND, RunConfig, SeatConfig};
use proagent::runner::seats::{SeatFactory, is_proagent};
use proagent::runner::{RunError, StepObserver, StepView, play_seated};
use proagent::transcript::{TranscriptWriter, WriterOptions, default_path};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

/// Where transcripts go without `--transcript`: relative to the working directory.
pub const TRANSCRIPT_DIR: &str = "transcripts";

#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// Layout name or path to a layout file; `v2:NAME` (or `v2:PATH`) for an OvercookedV2 layout.
    #[arg(long, default_value = "cramped_room")]
    layout: String,
    /// The agent under test: proagent, proagent[model=NAME,key=value,...] (a ProAgent with
    /// its own model or switches), scripted, greedy, random, stay, courier, bc, bc:test,
    /// bc:train, bc:PATH, sp, pbt, fcp, mep or rl:PATH.
    #[arg(long, default_value = "proagent")]
    agent: String,
    /// The partner in the other seat (same choices; two ProAgents can play together).
    /// Default: greedy; on OvercookedV2 layouts (which have no greedy partner) scripted.
    #[arg(long)]
    partner: Option<String>,
    /// The player index the agent controls; the partner plays the other one.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=1))]
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
    v2: V2Args,
}

/// The transcript file of each episode.
fn transcript_paths(a: &PlayArgs, layout: &str, names: &[String; 2]) -> Vec<PathBuf> {
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
                None => default_path(Path::new(TRANSCRIPT_DIR), layout, &names[seat], &names[1 - seat], seat, seed),
            }
        })
        .collect()
}

pub fn run(a: PlayArgs) -> Result<ExitCode> {
    if let Some(spec) = proagent::env_v2::layout::strip_v2_prefix(&a.layout) {
        let spec = spec.to_string();
        return run_v2(a, &spec);
    }
    a.v2.require_v2(&a.layout)?;
    let (layout, layout_file) = load_layout_with_text(&a.layout)?;
    let kitchen = Arc::new(Kitchen::new(Arc::new(layout)));
    let seat = a.seat as usize;
    let partner = a.partner.clone().unwrap_or_else(|| "greedy".into());
    let specs = if seat == 0 { [a.agent.as_str(), partner.as_str()] } else { [partner.as_str(), a.agent.as_str()] };
    let flag = |player: usize| if player == seat { "--agent" } else { "--partner" };
    let delay = board::delay(a.render_delay_ms)?;
    let every = progress::every(a.progress_every)?;
    // Each ProAgent seat resolved (flags + its own options) and built, before anything runs.
    let mut setups: [Option<SeatSetup>; 2] = [None, None];
    let mut factory = SeatFactory::new(None).with_max_llm_failures(Some(a.proagent.max_llm_failures));
    for (player, spec) in specs.iter().enumerate() {
        if is_proagent(spec) {
            let setup = a.proagent.resolve(spec).context(flag(player))?;
            let cfg = a.proagent.build(&setup, a.run.horizon, 0).context(flag(player))?;
            factory = factory.with_seat(spec, cfg);
            setups[player] = Some(setup);
        }
    }
    for (player, spec) in specs.iter().enumerate() {
        factory.check(spec, &kitchen, player).context(flag(player))?;
    }
    let names: [String; 2] =
        std::array::from_fn(|p| setups[p].as_ref().map_or_else(|| specs[p].trim().to_string(), |s| s.label.clone()));
    let has_proagent = setups.iter().any(Option::is_some);
    if a.transcript.is_some() && !has_proagent {
        bail!("--transcript needs a ProAgent seat (only ProAgent runs talk to a model)");
    }
    let want_transcript = has_proagent && !a.no_transcript;
    let paths = if want_transcript { transcript_paths(&a, &kitchen.layout.name, &names) } else { Vec::new() };
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
    // The header's shared settings are the agent's (else the partner's) ProAgent seat.
    let main_seat = setups[seat].as_ref().or(setups[1 - seat].as_ref());
    let prompt_hashes = specs
        .iter()
        .find(|s| is_proagent(s))
        .and_then(|s| factory.config_of(s).ok().flatten())
        .map(|c| c.prompt_hashes())
        .unwrap_or_default();
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let mut progress = EpisodeProgress::new(!a.no_progress && !a.render, every, a.run.horizon, names.clone());
    let mut scores = Vec::new();
    for e in 0..a.run.episodes {
        let seed = a.run.seed_of(e);
        let mut recorder = match (want_transcript, main_seat) {
            (true, Some(main)) => {
                let path = &paths[e as usize];
                let opts = WriterOptions { scrubber: a.proagent.scrubber(), wall_clock: !a.no_wall_clock };
                let run = RunConfig {
                    command: PLAY_COMMAND.into(),
                    layout: kitchen.layout.name.clone(),
                    layout_spec: a.layout.clone(),
                    layout_file: layout_file.clone(),
                    agent: names[seat].clone(),
                    partner: names[1 - seat].clone(),
                    seat,
                    seed,
                    horizon: a.run.horizon,
                    proagent: main.settings.clone(),
                    model: main.model.clone(),
                    v2: None,
                    seats: std::array::from_fn(|p| {
                        setups[p].as_ref().map(|s| SeatConfig {
                            label: s.label.clone(),
                            proagent: s.settings.clone(),
                            model: s.model.clone(),
                        })
                    }),
                };
                let w = TranscriptWriter::create(path, opts)?;
                Some(EpisodeRecorder::start(w, &run.header(prompt_hashes.clone())?)?)
            }
            _ => None,
        };
        progress.start(format!("episode {}/{} seed {seed}", e + 1, a.run.episodes));
        if a.render {
            if e == 0 {
                board::print_legend();
            }
            let seats = [
                SeatLine { name: &names[0], status: Default::default() },
                SeatLine { name: &names[1], status: Default::default() },
            ];
            let state = kitchen.layout.start_state();
            let header = format!("{} seed {seed}, t=0 (start)\n", kitchen.layout.name);
            board::print_frame(&kitchen.layout, &state, &header, &board::panel(0, None, &seats), delay);
        }
        let names_ref = &names;
        let render = a.render;
        let progress_ref = &mut progress;
        let observer: StepObserver<'_> = Box::new(move |v: &StepView<'_>| {
            if render {
                print_step(v, names_ref, delay);
            }
            progress_ref.on_step(v);
        });
        let played =
            rt.block_on(play_seated(&kitchen, &factory, specs, seed, a.run.horizon, recorder.as_mut(), Some(observer)));
        progress.finish();
        let result = match played {
            Ok(r) => r,
            Err(RunError::Failed(failed)) => {
                let kept = match recorder.map(|r| r.finish_failed(failed.summary_json(seat))) {
                    Some(Ok(Some(path))) => format!("; its transcript (marked failed) is {}", path.display()),
                    Some(Err(e)) => format!("; writing its transcript failed too: {e}"),
                    _ => String::new(),
                };
                if failed.abort.stops_run() {
                    bail!("{} seed {seed}: {failed}{kept}", kitchen.layout.name);
                }
                eprintln!("error: episode {} seed {seed} failed, no score: {failed}{kept}", kitchen.layout.name);
                if let Some(mut w) = traj_out {
                    w.flush().context("writing the trajectory")?;
                }
                return Ok(ExitCode::from(1));
            }
            Err(e) => return Err(e.into()),
        };
        let summary = result.summary_json(seat);
        let written = match recorder {
            Some(r) => r.finish(summary.clone())?,
            None => None,
        };
        if let Some(w) = traj_out.as_mut() {
            let line = serde_json::to_string(&result.to_trajectory_json())?;
            writeln!(w, "{line}").context("writing the trajectory")?;
        }
        scores.push(f64::from(result.score));
        let line = if a.out.json {
            summary.to_string()
        } else {
            format!(
                "{} seed {}: {} (player {}) + {} -> score {} ({} deliveries) in {} steps{}",
                kitchen.layout.name,
                seed,
                result.agents[seat],
                seat,
                result.agents[1 - seat],
                result.score,
                result.deliveries,
                result.steps.len(),
                if result.deadlocked() { ", ended in a deadlock" } else { "" }
            )
        };
        if !print_episode(&line, written.as_deref())? {
            return Ok(ExitCode::SUCCESS);
        }
    }
    if let Some(mut w) = traj_out {
        w.flush().context("writing the trajectory")?;
    }
    if a.run.episodes > 1 {
        let s = Stat::of(&scores);
        let line = format!(
            "mean score over {} episodes: {} (mean ± standard error; {} + {}, seeds {}..={})",
            s.n,
            s.show(),
            names[seat],
            names[1 - seat],
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
fn print_step(v: &StepView<'_>, names: &[String; 2], delay: Option<Duration>) {
    let mut header =
        format!("t={} actions=[{}, {}] reward={}\n", v.t, v.joint[0].letter(), v.joint[1].letter(), v.outcome.reward);
    for ev in v.skill_events {
        header.push_str(&format!("  player {} {}: {:?}\n", ev.player, ev.skill, ev.outcome));
    }
    let calls: u64 = v.agents.iter().map(|a| a.llm_usage().calls).sum();
    let seats = [
        SeatLine { name: &names[0], status: v.agents[0].status() },
        SeatLine { name: &names[1], status: v.agents[1].status() },
    ];
    let any_llm = names.iter().any(|n| is_proagent(n));
    board::print_frame(v.layout, v.state, &header, &board::panel(v.score, any_llm.then_some(calls), &seats), delay);
}

/// `play --layout v2:NAME`: OvercookedV2 episodes; the agent sits in `--seat`, the partner
/// spec fills every other seat. A ProAgent seat is resolved and built as on the classic
/// game, with the V2 prompts and the V2 `scripted` model.
fn run_v2(a: PlayArgs, spec: &str) -> Result<ExitCode> {
    use proagent::runner::v2::{V2SeatFactory, play_seated_v2};
    use proagent::runner::v2_episode::{V2StepObserver, V2StepView};
    let (layout, layout_file) = load_v2_layout(spec).context("--layout")?;
    let layout = Arc::new(layout);
    let settings = a.v2.settings(a.run.horizon);
    let seat = a.seat as usize;
    let n = layout.num_agents();
    if seat >= n {
        bail!("--seat {seat}: v2:{} has {n} player(s)", layout.name);
    }
    let partner = a.partner.clone().unwrap_or_else(|| "scripted".into());
    let specs: Vec<String> = (0..n).map(|i| if i == seat { a.agent.clone() } else { partner.clone() }).collect();
    let flag = |player: usize| if player == seat { "--agent" } else { "--partner" };
    let mut setups: Vec<Option<SeatSetup>> = vec![None; n];
    let mut factory = V2SeatFactory::new(None).with_max_llm_failures(Some(a.proagent.max_llm_failures));
    for (player, s) in specs.iter().enumerate() {
        if is_proagent(s) {
            let setup = a.proagent.resolve(s).context(flag(player))?;
            let cfg = a.proagent.build_v2(&setup, a.run.horizon, 0).context(flag(player))?;
            factory = factory.with_seat(s, cfg);
            setups[player] = Some(setup);
        }
    }
    for (player, s) in specs.iter().enumerate() {
        factory.check(s, &layout, &settings, player).context(flag(player))?;
    }
    let names: Vec<String> =
        (0..n).map(|p| setups[p].as_ref().map_or_else(|| specs[p].trim().to_string(), |s| s.label.clone())).collect();
    let has_proagent = setups.iter().any(Option::is_some);
    if a.transcript.is_some() && !has_proagent {
        bail!("--transcript needs a ProAgent seat (only ProAgent runs talk to a model)");
    }
    let want_transcript = has_proagent && !a.no_transcript;
    let label = format!("v2-{}", layout.name);
    let other = if n > 1 { names[if seat == 0 { 1 } else { 0 }].clone() } else { names[seat].clone() };
    let pair = [names[0].clone(), names.get(1).cloned().unwrap_or_else(|| other.clone())];
    let paths = if want_transcript { transcript_paths(&a, &label, &pair) } else { Vec::new() };
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
    let main_seat = setups[seat].as_ref().or_else(|| setups.iter().flatten().next());
    let prompt_hashes =
        specs.iter().find(|s| is_proagent(s)).map(|s| factory.config_of(s).prompt_hashes()).unwrap_or_default();
    let seat_config = |p: usize| {
        setups.get(p).cloned().flatten().map(|s| SeatConfig { label: s.label, proagent: s.settings, model: s.model })
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let mut scores = Vec::new();
    for e in 0..a.run.episodes {
        let seed = a.run.seed_of(e);
        let mut recorder = match (want_transcript, main_seat) {
            (true, Some(main)) => {
                let opts = WriterOptions { scrubber: a.proagent.scrubber(), wall_clock: !a.no_wall_clock };
                let run = RunConfig {
                    command: PLAY_COMMAND.into(),
                    layout: format!("v2:{}", layout.name),
                    layout_spec: a.layout.clone(),
                    layout_file: layout_file.clone(),
                    agent: names[seat].clone(),
                    partner: other.clone(),
                    seat,
                    seed,
                    horizon: a.run.horizon,
                    proagent: main.settings.clone(),
                    model: main.model.clone(),
                    v2: Some(settings.clone()),
                    seats: [seat_config(0), seat_config(1)],
                };
                let w = TranscriptWriter::create(&paths[e as usize], opts)?;
                Some(EpisodeRecorder::start(w, &run.header(prompt_hashes.clone())?)?)
            }
            _ => None,
        };
        let observer: Option<V2StepObserver<'_>> = a.render.then(|| {
            Box::new(|v: &V2StepView<'_>| {
                let letters: String = v.actions.iter().map(|x| x.letter()).collect();
                let mut text = format!("t={} actions={letters} reward={}\n", v.t, v.outcome.reward);
                for ev in v.skill_events {
                    text.push_str(&format!("  player {} {}: {:?}\n", ev.player, ev.skill, ev.outcome));
                }
                text.push_str(&proagent::env_v2::render::render(v.layout, v.state));
                let _ = writeln!(std::io::stdout().lock(), "{text}");
            }) as V2StepObserver<'_>
        });
        let played =
            rt.block_on(play_seated_v2(&layout, &settings, &factory, &specs, seed, recorder.as_mut(), observer));
        let result = match played {
            Ok(r) => r,
            Err(proagent::runner::v2::V2RunError::Failed(failed)) => {
                let kept = match recorder.map(|r| r.finish_failed(failed.summary_json(seat))) {
                    Some(Ok(Some(path))) => format!("; its transcript (marked failed) is {}", path.display()),
                    Some(Err(e)) => format!("; writing its transcript failed too: {e}"),
                    _ => String::new(),
                };
                if failed.abort.stops_run() {
                    bail!("v2:{} seed {seed}: {failed}{kept}", layout.name);
                }
                eprintln!("error: episode v2:{} seed {seed} failed, no score: {failed}{kept}", layout.name);
                if let Some(mut w) = traj_out {
                    w.flush().context("writing the trajectory")?;
                }
                return Ok(ExitCode::from(1));
            }
            Err(e) => return Err(e.into()),
        };
        let summary = result.summary_json(seat);
        let written = match recorder {
            Some(r) => r.finish(summary.clone())?,
            None => None,
        };
        if let Some(w) = traj_out.as_mut() {
            let line = serde_json::to_string(&result.to_trajectory_json())?;
            writeln!(w, "{line}").context("writing the trajectory")?;
        }
        scores.push(f64::from(result.score));
        let line = if a.out.json {
            summary.to_string()
        } else {
            let partners = if n > 1 { format!(" + {other}") } else { String::new() };
            format!(
                "v2:{} seed {}: {} (player {seat}){partners} -> score {} ({} correct, {} wrong deliveries, {} button presses) in {} steps{}",
                layout.name,
                seed,
                result.agents[seat],
                result.score,
                result.correct,
                result.wrong,
                result.presses,
                result.steps.len(),
                if result.deadlocked() { ", ended in a deadlock" } else { "" }
            )
        };
        if !print_episode(&line, written.as_deref())? {
            return Ok(ExitCode::SUCCESS);
        }
    }
    if let Some(mut w) = traj_out {
        w.flush().context("writing the trajectory")?;
    }
    if a.run.episodes > 1 {
        let s = Stat::of(&scores);
        let line = format!(
            "mean score over {} episodes: {} (mean ± standard error; v2:{}, {} in seat {seat}, seeds {}..={})",
            s.n,
            s.show(),
            layout.name,
            names[seat],
            a.run.seed,
            a.run.seed_of(a.run.episodes - 1)
        );
        print_mean(&line, a.out.json);
    }
    Ok(ExitCode::SUCCESS)
}
