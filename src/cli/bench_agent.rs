//! `proagent bench agent`: the ProAgent's own CPU cost per environment step
//! (model wait excluded) and the wall time of whole episodes with the
//! in-process scripted model.

use super::agent_args::ProAgentArgs;
use super::common::{EpisodeArgs, JsonArg, load_layout};
use anyhow::{Context, Result};
use proagent::overcooked_game::Overcooked;
use proagent::runner::seats::SeatFactory;
use serde_json::json;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct AgentBenchArgs {
    /// Layout name or path to a layout file.
    #[arg(long, default_value = "cramped_room")]
    layout: String,
    /// The teammate in the other seat.
    #[arg(long, default_value = "greedy")]
    partner: String,
    /// The player index the ProAgent controls.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u8).range(0..=1))]
    seat: u8,
    #[command(flatten)]
    run: EpisodeArgs<20>,
    #[command(flatten)]
    out: JsonArg,
    #[command(flatten)]
    proagent: ProAgentArgs,
}

pub fn run(a: AgentBenchArgs) -> Result<ExitCode> {
    let layout = load_layout(&a.layout)?;
    let game = Arc::new(Overcooked::new(Arc::new(layout), a.run.horizon));
    let seat = a.seat as usize;
    let pa = a.proagent.seat("proagent", 0)?;
    let label = pa.label.clone();
    let factory = SeatFactory::new(Some(pa));
    factory.check("proagent", &*game, seat).context("prompt templates")?;
    factory.check(&a.partner, &*game, 1 - seat).context("--partner")?;
    let cfg = factory.config_of("proagent", &*game)?;
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let limits = (a.proagent.max_llm_failures, a.proagent.max_parse_failure_share);
    let seeds: Vec<u64> = (0..a.run.episodes).map(|e| a.run.seed_of(e)).collect();
    let t = rt.block_on(proagent_eval::bench::agent(&game, &factory, &cfg, &a.partner, seat, &seeds, limits))?;
    let layout = Arc::clone(&game.layout);
    let (agent_time, llm_time, episode_time, worst_episode) = (t.agent, t.llm, t.episodes, t.worst_episode);
    let (steps, calls, score, cpu) = (t.steps, t.calls, t.score, t.cpu_seconds);
    let n = a.run.episodes as f64;
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let per_step_excl = us(agent_time.saturating_sub(llm_time)) / steps as f64;
    let per_step_incl = us(agent_time) / steps as f64;
    let episode_ms = episode_time.as_secs_f64() * 1e3 / n;
    let agent_episode_ms = agent_time.as_secs_f64() * 1e3 / n;
    let report = json!({
        "layout": layout.name,
        "partner": a.partner,
        "seat": seat,
        "agent": label,
        "model": a.proagent.llm.model,
        "episodes": a.run.episodes,
        "horizon": a.run.horizon,
        "agent_us_per_step_excl_llm": per_step_excl,
        "agent_us_per_step_incl_llm": per_step_incl,
        "llm_us_per_call": if calls > 0 { us(llm_time) / calls as f64 } else { 0.0 },
        "agent_ms_per_episode": agent_episode_ms,
        "episode_ms": episode_ms,
        "episode_ms_max": worst_episode.as_secs_f64() * 1e3,
        "process_cpu_ms_per_episode": cpu.map(|c| c * 1e3 / n),
        "llm_calls_per_episode": calls as f64 / n,
        "score_mean": score as f64 / n,
    });
    if a.out.json {
        println!("{report}");
    } else {
        println!(
            "{}: agent {per_step_excl:.2} µs/step without model wait ({per_step_incl:.2} µs with the scripted model), \
             whole episode {episode_ms:.2} ms (max {:.2}), {:.1} model calls/episode, mean score {:.1}",
            layout.name,
            worst_episode.as_secs_f64() * 1e3,
            calls as f64 / n,
            score as f64 / n
        );
    }
    Ok(ExitCode::SUCCESS)
}
