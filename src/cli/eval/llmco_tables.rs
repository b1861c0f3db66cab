//! `eval --protocol llmco-table1|llmco-table2|llmco-table3`: the LLM-Coordination paper's
//! agentic tables, one command each (what each plays: `proagent::eval::llmco_protocol`).
//! A protocol fixes the layouts, the seats (`llmco[preset=paper]` in self-play), the
//! trials (Table 3: the release's seeds) and the scoring (every episode counts); the
//! command line names the model. `--episodes N` below the protocol's trials is a pilot,
//! labelled as one in every table.

use super::SweepArgs;
use anyhow::{Result, bail};
use proagent::eval::llmco_protocol::{LlmcoTable, OVERCOOKED_TICKS, markdown};
use proagent::eval::{EpisodeRecord, PlannedEpisode, SweepSpec, cross_product};
use std::path::{Path, PathBuf};

/// A protocol as this command runs it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Protocol {
    /// Which table.
    pub table: LlmcoTable,
    /// Trials per cell this run plays (fewer than the protocol's: a pilot).
    pub trials: u32,
}

/// Whether `--episodes` was on the command line (its default cannot tell "not given" from 1).
fn episodes_given() -> bool {
    std::env::args_os().any(|a| a == "--episodes" || a.to_string_lossy().starts_with("--episodes="))
}

/// Fills in what an LLM-Coordination protocol fixes (`None`: not one of them); errors name
/// the flag that conflicts with it.
pub(super) fn apply(a: &mut SweepArgs) -> Result<Option<Protocol>> {
    let Some(table) = a.protocol.as_deref().and_then(LlmcoTable::parse) else { return Ok(None) };
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
    if a.run.horizon != OVERCOOKED_TICKS {
        bail!("--horizon: the {name} protocol plays the release's {OVERCOOKED_TICKS} ticks (leave --horizon out)");
    }
    let full = table.trials();
    let trials = if episodes_given() { a.run.episodes } else { full };
    if trials > full {
        bail!("--episodes: the {name} protocol plays {full} trials per cell; fewer is a labelled pilot (got {trials})");
    }
    a.layouts = table.layouts();
    a.agents = table.agents();
    a.partners = table.agents();
    a.seats = vec![0];
    a.run.episodes = trials;
    // The paper scored every episode, however few of its replies the agent could read.
    a.proagent.max_parse_failure_share = 1.0;
    Ok(Some(Protocol { table, trials }))
}

impl Protocol {
    /// The protocol's episodes: self-play only (agent and partner the same seat), on its
    /// seeds (Table 3: the release's; the others from `--seed` on).
    pub(super) fn plan(&self, spec: &SweepSpec) -> Vec<PlannedEpisode> {
        let mut plan = Vec::new();
        for seed in self.table.seeds(self.trials, spec.seed) {
            let one = SweepSpec { seed, episodes: 1, ..spec.clone() };
            plan.extend(cross_product(&one).into_iter().filter(|p| p.spec.agent == p.spec.partner));
        }
        plan
    }

    /// The dry run's first line: what the protocol would play, and how many episodes it plans.
    pub(super) fn dry_run_header(&self, episodes: usize, model: &str) -> String {
        let pilot = if self.trials < self.table.trials() {
            format!(" (pilot: {} of {} trials)", self.trials, self.table.trials())
        } else {
            String::new()
        };
        format!(
            "{} protocol, dry run: {}; model {model}, preset paper; {episodes} episodes{pilot}\n",
            self.table.name(),
            self.table.describe()
        )
    }

    /// Prints the protocol's table (published rows beside ours) and writes it to
    /// `<out>/<protocol>.md`; returns the file written.
    pub(super) fn write(&self, records: &[EpisodeRecord], out: &Path) -> Result<PathBuf> {
        let md = markdown(self.table, records, self.trials);
        println!("\n{md}");
        let path = out.join(format!("{}.md", self.table.name()));
        proagent::eval::write_atomic(&path, md.as_bytes())
            .map_err(|e| anyhow::anyhow!("writing {}: {e}", path.display()))?;
        Ok(path)
    }
}
