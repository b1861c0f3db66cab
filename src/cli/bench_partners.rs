//! `proagent bench partners`: mean scores over seeded episodes of an agent
//! with the greedy partner in both seats and in self-play, on the five
//! layouts, next to the published reference figures.

use super::common::{EpisodeArgs, JsonArg};
use anyhow::Result;
use proagent_eval::bench::{ScoreCell, partners};
use serde_json::{Value, json};
use std::process::ExitCode;

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

pub fn run(a: PartnersBenchArgs) -> Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let rows = rt.block_on(partners(&a.agent, &a.partner, a.run.episodes, a.run.seed, a.run.horizon))?;
    if a.out.json {
        let layouts: Vec<Value> = rows
            .iter()
            .map(|r| {
                json!({
                    "layout": r.layout,
                    "with_partner_p0": r.with_partner[0].json(),
                    "with_partner_p1": r.with_partner[1].json(),
                    "self_play": r.self_play.json(),
                    "reference_proagent_gpt35": [r.published_proagent.0, r.published_proagent.1],
                    "reference_ppo_self_play": r.published_ppo,
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
        for r in &rows {
            let f = |c: &ScoreCell| {
                let dl = if c.deadlocks > 0 {
                    format!(", {}", proagent_eval::games::counted(c.deadlocks as u64, "deadlock", "deadlocks"))
                } else {
                    String::new()
                };
                format!("{:.1} ({}–{}{dl})", c.mean, c.min, c.max)
            };
            let ((r0, r1), ppo) = (r.published_proagent, r.published_ppo);
            println!(
                "| {} | {} | {} | {} | {r0:.1} / {r1:.1} | {ppo:.0} |",
                r.layout,
                f(&r.with_partner[0]),
                f(&r.with_partner[1]),
                f(&r.self_play)
            );
        }
        println!(
            "\n{} per cell, seeds {}..{}, horizon {}; mean (min–max) score. The two published \
             columns are not measured here and come from other set-ups (other partners and models); \
             a `scripted` agent uses the rule-based stand-in, not a language model.",
            proagent_eval::games::counted(a.run.episodes as u64, "episode", "episodes"),
            a.run.seed,
            a.run.seed_of(a.run.episodes - 1),
            a.run.horizon
        );
    }
    Ok(ExitCode::SUCCESS)
}
