//! `proagent bench agent`: the ProAgent's own CPU cost per environment step
//! (model wait excluded) and the wall time of whole episodes with the
//! in-process scripted model.

use super::agent_args::ProAgentArgs;
use super::common::{EpisodeArgs, JsonArg, load_layout};
use anyhow::{Context, Result, bail};
use proagent::agent::{OvercookedGrounding, ProAgent};
use proagent::env::{Action, Event};
use proagent::overcooked_game::Overcooked;
use proagent::runner::seats::SeatFactory;
use proagent::runner::{seat_seed, unread_decisions};
use proagent::seat::{Observation, Seat};
use serde_json::json;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

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
    let layout = Arc::clone(&game.layout);
    let cpu0 = proagent_eval::bench::cpu_seconds();
    let (mut agent_time, mut llm_time, mut episode_time) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut worst_episode = Duration::ZERO;
    let (mut steps, mut calls, mut score) = (0u64, 0u64, 0u64);
    for e in 0..a.run.episodes {
        let seed = a.run.seed_of(e);
        let mut agent = ProAgent::<OvercookedGrounding>::new(cfg.clone());
        let mut partner = factory.build(&a.partner, &*game)?.seat;
        let t_episode = Instant::now();
        let t_reset = Instant::now();
        agent.reset(&game, seat, seat_seed(seed, seat));
        let mut this_agent = t_reset.elapsed();
        partner.reset(&game, 1 - seat, seat_seed(seed, 1 - seat));
        let mut state = layout.start_state();
        let mut last_joint: Vec<Option<Action>> = Vec::new();
        let mut last_events: [Option<Event>; 2] = [None, None];
        for t in 0..a.run.horizon {
            let mut joint = [Action::Stay; 2];
            for (i, slot) in joint.iter_mut().enumerate() {
                let obs = Observation {
                    last_actions: &last_joint,
                    last_events: &last_events,
                    ..Observation::new(&*game, &state, i, t)
                };
                if i == seat {
                    let t0 = Instant::now();
                    *slot = rt.block_on(agent.act(&obs))?;
                    this_agent += t0.elapsed();
                    // Timings of an agent whose model is failing measure the fallback, not the agent.
                    let failures = u64::from(agent.agent_metrics().llm_failures);
                    if failures > a.proagent.max_llm_failures {
                        bail!(
                            "episode seed {seed}: {failures} model calls failed after every retry (--max-llm-failures {}); last: {}",
                            a.proagent.max_llm_failures,
                            agent.last_llm_failure().unwrap_or_default()
                        );
                    }
                } else {
                    *slot = rt.block_on(partner.act(&obs))?;
                }
            }
            let out = layout.step(&mut state, joint);
            score += out.reward as u64;
            last_joint = joint.map(Some).to_vec();
            last_events = out.events;
        }
        // Likewise an agent whose decisions were mostly not read (the runner's one rule).
        let usage = agent.llm_usage();
        if let Some(abort) = unread_decisions(&usage, a.proagent.max_parse_failure_share, a.run.horizon) {
            bail!("episode seed {seed}: {abort}");
        }
        let this_episode = t_episode.elapsed();
        worst_episode = worst_episode.max(this_episode);
        episode_time += this_episode;
        agent_time += this_agent;
        llm_time += agent.llm_wait();
        steps += a.run.horizon as u64;
        calls = calls.saturating_add(u64::from(agent.agent_metrics().llm_calls));
    }
    let cpu = cpu0.zip(proagent_eval::bench::cpu_seconds()).map(|(a, b)| b - a);
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
