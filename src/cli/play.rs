//! `proagent play`: one or more seeded episodes of an agent with a partner.

use super::common::{EpisodeArgs, JsonArg, load_layout};
use anyhow::{Context, Result, bail};
use proagent::controller::Kitchen;
use proagent::env::Layout;
use proagent::env::render::render;
use proagent::runner::record::{EpisodeRecorder, PLAY_COMMAND, RunConfig};
use proagent::runner::seats::{SeatFactory, is_proagent};
use proagent::runner::{StepObserver, StepView, play_seated};
use proagent::transcript::{TranscriptWriter, WriterOptions, default_path};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// Layout name or path to a layout file.
    #[arg(long, default_value = "cramped_room")]
    layout: String,
    /// The agent under test (proagent, scripted, greedy, random, stay, courier, bc, bc:train, bc:PATH,
    /// sp, pbt, fcp, mep, rl:PATH).
    #[arg(long, default_value = "proagent")]
    agent: String,
    /// The partner in the other seat (same choices).
    #[arg(long, default_value = "greedy")]
    partner: String,
    /// The player index the agent controls; the partner plays the other one.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=1))]
    seat: u8,
    #[command(flatten)]
    run: EpisodeArgs<1>,
    /// Print the ASCII board after every step.
    #[arg(long)]
    render: bool,
    /// `--json`: one JSON summary object per episode (one per line).
    #[command(flatten)]
    out: JsonArg,
    /// Write each episode's trajectory (reference trace schema, JSON Lines) to this file.
    #[arg(long)]
    trajectory: Option<PathBuf>,
    /// Where to write the transcript of a `proagent` run (default:
    /// transcripts/<layout>-<agent>-<partner>-seat<k>-seed<s>-<time>.jsonl); with
    /// --episodes N, `-seed<s>` is added to the file name.
    #[arg(long, value_name = "PATH", conflicts_with = "no_transcript")]
    transcript: Option<PathBuf>,
    /// Write no transcript.
    #[arg(long)]
    no_transcript: bool,
    /// Leave wall-clock fields (times, latencies) out of the transcript, so the same
    /// command and seed give a byte-identical file.
    #[arg(long)]
    no_wall_clock: bool,
    #[command(flatten)]
    pub(super) proagent: super::agent_args::ProAgentArgs,
}

pub fn run(a: PlayArgs) -> Result<ExitCode> {
    let layout = load_layout(&a.layout)?;
    let kitchen = Arc::new(Kitchen::new(Arc::new(layout)));
    let seat = a.seat as usize;
    let specs = if seat == 0 { [a.agent.as_str(), a.partner.as_str()] } else { [a.partner.as_str(), a.agent.as_str()] };
    let has_proagent = specs.iter().any(|s| is_proagent(s));
    // Fail on a bad spec, model or prompt before anything runs.
    let factory = if has_proagent {
        SeatFactory::new(Some(a.proagent.config(a.run.horizon, a.proagent.model(0)?)?))
    } else {
        SeatFactory::new(None)
    };
    for (player, spec) in specs.iter().enumerate() {
        let flag = if player == seat { "--agent" } else { "--partner" };
        factory.check(spec, &kitchen, player).context(flag)?;
    }
    let mut traj_out = match &a.trajectory {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        )),
        None => None,
    };
    if a.transcript.is_some() && !has_proagent {
        bail!("--transcript needs a `proagent` seat (only ProAgent runs talk to a model)");
    }
    let want_transcript = has_proagent && !a.no_transcript;
    let layout_file = if Layout::builtin(&a.layout).is_none() {
        Some(std::fs::read_to_string(&a.layout).with_context(|| format!("reading {}", a.layout))?)
    } else {
        None
    };
    let prompt_hashes = factory.proagent_config().map(|c| c.prompts.hashes()).unwrap_or_default();
    let model_settings = a.proagent.model_settings()?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    for e in 0..a.run.episodes {
        let seed = a.run.seed_of(e);
        let mut recorder = if want_transcript {
            let path = match &a.transcript {
                Some(p) if a.run.episodes == 1 => p.clone(),
                Some(p) => {
                    let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("transcript");
                    p.with_file_name(format!("{stem}-seed{seed}.jsonl"))
                }
                None => default_path(Path::new("transcripts"), &kitchen.layout.name, &a.agent, &a.partner, seat, seed),
            };
            let opts = WriterOptions { scrubber: a.proagent.scrubber(), wall_clock: !a.no_wall_clock };
            let run = RunConfig {
                command: PLAY_COMMAND.into(),
                layout: kitchen.layout.name.clone(),
                layout_spec: a.layout.clone(),
                layout_file: layout_file.clone(),
                agent: a.agent.clone(),
                partner: a.partner.clone(),
                seat,
                seed,
                horizon: a.run.horizon,
                proagent: a.proagent.settings(),
                model: model_settings.clone(),
            };
            let w = TranscriptWriter::create(&path, opts)?;
            tracing::info!("writing the transcript to {}", path.display());
            Some(EpisodeRecorder::start(w, &run.header(prompt_hashes.clone())?)?)
        } else {
            None
        };
        let observer: Option<StepObserver<'_>> = a.render.then(|| {
            let start = render(&kitchen.layout, &kitchen.layout.start_state());
            // A closed pipe (e.g. `| head`) is not an error for a board printout.
            let _ = writeln!(std::io::stdout().lock(), "{start}");
            Box::new(|v: &StepView<'_>| print_step(v)) as StepObserver<'_>
        });
        let result =
            rt.block_on(play_seated(&kitchen, &factory, specs, seed, a.run.horizon, recorder.as_mut(), observer))?;
        let summary = result.summary_json(seat);
        if let Some(r) = recorder {
            r.finish(summary.clone())?;
        }
        if let Some(w) = traj_out.as_mut() {
            let line = serde_json::to_string(&result.to_trajectory_json())?;
            writeln!(w, "{line}").context("writing the trajectory")?;
        }
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
        match writeln!(std::io::stdout().lock(), "{line}") {
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(ExitCode::SUCCESS),
            other => other.context("writing to stdout")?,
        }
    }
    if let Some(mut w) = traj_out {
        w.flush().context("writing the trajectory")?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `--render`: the step's actions, skill events and the board.
fn print_step(v: &StepView<'_>) {
    let mut text =
        format!("t={} actions=[{}, {}] reward={}\n", v.t, v.joint[0].letter(), v.joint[1].letter(), v.outcome.reward);
    for ev in v.skill_events {
        text.push_str(&format!("  player {} {}: {:?}\n", ev.player, ev.skill, ev.outcome));
    }
    text.push_str(&render(v.layout, v.state));
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}
