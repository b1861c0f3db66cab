//! `proagent bench partners`: mean scores over seeded episodes of an agent
//! with the greedy partner in both seats and in self-play, on the five
//! layouts, next to the published reference figures.

use super::common::{EpisodeArgs, JsonArg};
use anyhow::{Context, Result, bail};
use proagent::env::{Layout, layout::BUILTIN};
use proagent::overcooked_game::Overcooked;
use proagent::runner::seats::SeatFactory;
use proagent::runner::{EpisodeOptions, EpisodeResult, play_seated};
use serde_json::{Value, json};
use std::process::ExitCode;
use std::sync::Arc;

/// ProAgent (GPT-3.5), Table 1 of Zhang et al. (published, not measured here).
use proagent::eval::report::PROAGENT_TABLE1_GPT35 as PROAGENT_GPT35;

/// PPO self-play of Carroll et al. (2019), same layout order.
const PPO_SELF_PLAY: [f64; 5] = [199.0, 167.0, 191.0, 152.0, 122.0];

#[derive(clap::Args, Debug)]
pub struct PartnersBenchArgs {
    /// The agent whose scores are measured.
    #[arg(long, default_value = "scripted")]
    agent: String,
    /// The partner of the two cross-play columns.
    #[arg(long, default_value = "greedy")]
    partner: String,
    /// Episodes per cell, their seeds and length.
    #[command(flatten)]
    run: EpisodeArgs<10>,
    /// `--json`: one JSON object instead of a Markdown table.
    #[command(flatten)]
    out: JsonArg,
}

struct Cell {
    mean: f64,
    min: i64,
    max: i64,
    deadlocks: usize,
}

fn cell(results: &[EpisodeResult<Overcooked>]) -> Cell {
    let n = results.len().max(1) as f64;
    Cell {
        mean: results.iter().map(|r| r.score as f64).sum::<f64>() / n,
        min: results.iter().map(|r| r.score).min().unwrap_or(0),
        max: results.iter().map(|r| r.score).max().unwrap_or(0),
        deadlocks: results.iter().filter(|r| r.deadlocked()).count(),
    }
}

fn cell_json(c: &Cell) -> Value {
    json!({"mean": c.mean, "min": c.min, "max": c.max, "deadlocks": c.deadlocks})
}

pub fn run(a: PartnersBenchArgs) -> Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let mut rows = Vec::new();
    for (i, (name, _)) in BUILTIN.iter().enumerate() {
        let Some(layout) = Layout::builtin(name) else { bail!("built-in layout {name} does not parse") };
        let game = Arc::new(Overcooked::new(Arc::new(layout), a.run.horizon));
        let factory = SeatFactory::default();
        factory.check(&a.agent, &*game, 0).context("--agent")?;
        factory.check(&a.partner, &*game, 1).context("--partner")?;
        let play = |seat: Option<usize>| -> Result<Vec<EpisodeResult<Overcooked>>> {
            let mut out = Vec::new();
            for e in 0..a.run.episodes {
                let other = if seat.is_some() { a.partner.as_str() } else { a.agent.as_str() };
                let specs = if seat == Some(1) { [other, a.agent.as_str()] } else { [a.agent.as_str(), other] };
                let seed = a.run.seed_of(e);
                out.push(rt.block_on(play_seated(&game, &factory, &specs, seed, None, EpisodeOptions::default()))?);
            }
            Ok(out)
        };
        let p0 = cell(&play(Some(0))?);
        let p1 = cell(&play(Some(1))?);
        let sp = cell(&play(None)?);
        let (_, ref0, ref1) = PROAGENT_GPT35[i];
        rows.push((name.to_string(), p0, p1, sp, ref0, ref1, PPO_SELF_PLAY[i]));
    }
    if a.out.json {
        let layouts: Vec<Value> = rows
            .iter()
            .map(|(name, p0, p1, sp, r0, r1, ppo)| {
                json!({
                    "layout": name,
                    "with_partner_p0": cell_json(p0),
                    "with_partner_p1": cell_json(p1),
                    "self_play": cell_json(sp),
                    "reference_proagent_gpt35": [r0, r1],
                    "reference_ppo_self_play": ppo,
                })
            })
            .collect();
        println!(
            "{}",
            json!({"agent": a.agent, "partner": a.partner, "episodes": a.run.episodes, "seed": a.run.seed,
                   "horizon": a.run.horizon, "layouts": layouts})
        );
    } else {
        println!(
            "| layout | {a} + {p} (P0) | {a} + {p} (P1) | {a} self-play | published: ProAgent, GPT-3.5, mean over SP/PBT/FCP/MEP/COLE partners (P0/P1) | published: PPO self-play (Carroll et al. 2019) |",
            a = a.agent,
            p = a.partner
        );
        println!("|---|---|---|---|---|---|");
        for (name, p0, p1, sp, r0, r1, ppo) in &rows {
            let f = |c: &Cell| {
                let dl = if c.deadlocks > 0 { format!(", {} deadlocks", c.deadlocks) } else { String::new() };
                format!("{:.1} ({}–{}{dl})", c.mean, c.min, c.max)
            };
            println!("| {name} | {} | {} | {} | {r0:.1} / {r1:.1} | {ppo:.0} |", f(p0), f(p1), f(sp));
        }
        println!(
            "\n{} episodes per cell, seeds {}..{}, horizon {}; mean (min–max) score. The two published \
             columns are not measured here and come from other set-ups (other partners and models); \
             a `scripted` agent uses the rule-based stand-in, not a language model.",
            a.run.episodes,
            a.run.seed,
            a.run.seed_of(a.run.episodes - 1),
            a.run.horizon
        );
    }
    Ok(ExitCode::SUCCESS)
}
