//! `proagent play`: one or more seeded episodes of an agent with a partner.

use super::common::load_layout;
use anyhow::{Context, Result, bail};
use proagent::controller::Kitchen;
use proagent::env::DEFAULT_HORIZON;
use proagent::env::render::render;
use proagent::partners::build;
use proagent::runner::{EpisodeOptions, StepView, play_episode};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

#[derive(clap::Args, Debug)]
pub struct PlayArgs {
    /// Layout name or path to a layout file.
    #[arg(long, default_value = "cramped_room")]
    layout: String,
    /// The agent under test (proagent, scripted, greedy, random, stay, courier, bc, bc:train, bc:PATH).
    #[arg(long, default_value = "proagent")]
    agent: String,
    /// The partner in the other seat (same choices).
    #[arg(long, default_value = "greedy")]
    partner: String,
    /// The player index the agent controls; the partner plays the other one.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=1))]
    seat: u8,
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[arg(long, default_value_t = DEFAULT_HORIZON)]
    horizon: u32,
    /// Episodes to play, with seeds seed, seed+1, ...
    #[arg(long, default_value_t = 1)]
    episodes: u32,
    /// Print the ASCII board after every step.
    #[arg(long)]
    render: bool,
    /// Print one JSON summary object per episode (one per line).
    #[arg(long)]
    json: bool,
    /// Write each episode's trajectory (reference trace schema, JSON Lines) to this file.
    #[arg(long)]
    trajectory: Option<PathBuf>,
    #[command(flatten)]
    proagent: super::agent_args::ProAgentArgs,
}

pub fn run(a: PlayArgs) -> Result<ExitCode> {
    if a.horizon == 0 {
        bail!("--horizon must be at least 1");
    }
    if a.episodes == 0 {
        bail!("--episodes must be at least 1");
    }
    let layout = load_layout(&a.layout)?;
    let kitchen = Arc::new(Kitchen::new(Arc::new(layout)));
    // Fail on a bad spec (or bad prompts) before anything runs.
    build(&a.agent, &kitchen).context("--agent")?;
    build(&a.partner, &kitchen).context("--partner")?;
    let seats =
        if a.seat == 0 { [a.agent.as_str(), a.partner.as_str()] } else { [a.partner.as_str(), a.agent.as_str()] };
    let factory = a.proagent.factory(seats, &kitchen, a.horizon)?;
    let mut traj_out = match &a.trajectory {
        Some(p) => Some(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        )),
        None => None,
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let seat = a.seat as usize;
    for e in 0..a.episodes {
        let seed = a.seed.wrapping_add(e as u64);
        let agent = factory.build(&a.agent)?;
        let partner = factory.build(&a.partner)?;
        let agents = if seat == 0 { [agent, partner] } else { [partner, agent] };
        let mut options = EpisodeOptions::default();
        if a.render {
            let start = render(&kitchen.layout, &kitchen.layout.start_state());
            // A closed pipe (e.g. `| head`) is not an error for a board printout.
            let _ = writeln!(std::io::stdout().lock(), "{start}");
            options.on_step = Some(Box::new(|v: &StepView<'_>| {
                let mut text = format!(
                    "t={} actions=[{}, {}] reward={}\n",
                    v.t,
                    v.joint[0].letter(),
                    v.joint[1].letter(),
                    v.outcome.reward
                );
                for ev in v.skill_events {
                    text.push_str(&format!("  player {} {}: {:?}\n", ev.player, ev.skill, ev.outcome));
                }
                text.push_str(&render(v.layout, v.state));
                let _ = writeln!(std::io::stdout().lock(), "{text}");
            }));
        }
        let result = rt.block_on(play_episode(Arc::clone(&kitchen.layout), agents, seed, a.horizon, options));
        if let Some(w) = traj_out.as_mut() {
            let line = serde_json::to_string(&result.to_trajectory_json())?;
            writeln!(w, "{line}").context("writing the trajectory")?;
        }
        let line = if a.json {
            result.summary_json(seat).to_string()
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
