//! Sweep reports: the ProAgent Table 1 view (per layout and seat, each agent's
//! mean ± standard error over all partners' episodes), the agent × partner
//! matrix per layout and seat, and per-cell cost (LLM calls, tokens, LLM wall
//! time, episode wall time). Pure: records in, tables out; the caller writes files.
//!
//! Standard error = sample standard deviation (n − 1 denominator) / √n; it is
//! undefined (shown as "–", `null` in JSON) for a single episode.

use super::llmco_report::LlmcoTables;
use super::store::{EpisodeRecord, UncheckedCount};
use crate::games::counted;
use proagent_analysis::TeamworkTotals;
use proagent_overcooked::env::layout::BUILTIN;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// ProAgent (GPT-3.5) in Table 1 of Zhang et al.: the mean over five learned partners (SP,
/// PBT, FCP, MEP, COLE), as (layout, agent as player 0, agent as player 1). Published
/// figures, not measured here.
pub const PROAGENT_TABLE1_GPT35: [(&str, f64, f64); 5] = [
    ("cramped_room", 197.3, 194.2),
    ("asymmetric_advantages", 228.7, 229.8),
    ("coordination_ring", 175.3, 183.0),
    ("forced_coordination", 49.7, 31.0),
    ("counter_circuit", 126.3, 128.5),
];

/// The baseline columns of Table 1 of Zhang et al.: each learned partner algorithm's mean
/// score when paired with all the others, as (algorithm, layout, as player 0, as player 1).
/// Published figures (trained by the COLE authors), not measured here.
pub const PUBLISHED_TABLE1_BASELINES: [(&str, &str, f64, f64); 25] = [
    ("sp", "cramped_room", 168.5, 172.8),
    ("pbt", "cramped_room", 178.8, 179.8),
    ("fcp", "cramped_room", 196.3, 196.0),
    ("mep", "cramped_room", 185.0, 178.2),
    ("cole", "cramped_room", 163.8, 169.2),
    ("sp", "asymmetric_advantages", 183.3, 177.8),
    ("pbt", "asymmetric_advantages", 182.2, 152.3),
    ("fcp", "asymmetric_advantages", 185.7, 167.8),
    ("mep", "asymmetric_advantages", 155.7, 184.0),
    ("cole", "asymmetric_advantages", 201.3, 165.5),
    ("sp", "coordination_ring", 122.0, 133.3),
    ("pbt", "coordination_ring", 141.3, 141.3),
    ("fcp", "coordination_ring", 148.8, 145.7),
    ("mep", "coordination_ring", 167.2, 159.3),
    ("cole", "coordination_ring", 168.8, 158.3),
    ("sp", "forced_coordination", 6.7, 30.2),
    ("pbt", "forced_coordination", 15.3, 61.7),
    ("fcp", "forced_coordination", 44.7, 32.2),
    ("mep", "forced_coordination", 23.3, 39.3),
    ("cole", "forced_coordination", 24.0, 57.3),
    ("sp", "counter_circuit", 64.7, 60.7),
    ("pbt", "counter_circuit", 64.7, 54.3),
    ("fcp", "counter_circuit", 58.3, 60.0),
    ("mep", "counter_circuit", 74.3, 81.5),
    ("cole", "counter_circuit", 95.5, 100.8),
];

/// The published baseline column value of `algo` on `layout` as player `seat`.
pub fn published_baseline(algo: &str, layout: &str, seat: u8) -> Option<f64> {
    PUBLISHED_TABLE1_BASELINES
        .iter()
        .find(|(a, l, _, _)| *a == algo && *l == layout)
        .map(|(_, _, p0, p1)| if seat == 0 { *p0 } else { *p1 })
}

/// The partners of the Table 1 protocol here: the shipped RL partners, the paper's five.
pub const TABLE1_PARTNERS: [&str; 5] = ["sp", "pbt", "fcp", "mep", "cole"];

/// Episodes per agent × partner × seat × layout in the Table 1 protocol.
pub const TABLE1_EPISODES: u32 = 10;

/// Mean, sample standard deviation and standard error of a sample.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Stat {
    /// Sample size.
    pub n: usize,
    /// Sample mean (NaN for an empty sample).
    pub mean: f64,
    /// Sample standard deviation (n − 1 denominator); `None` below two values.
    pub sd: Option<f64>,
    /// Standard error of the mean, `sd / √n`; `None` below two values.
    pub se: Option<f64>,
}

impl Stat {
    /// The statistics of `xs`.
    pub fn of(xs: &[f64]) -> Stat {
        let n = xs.len();
        if n == 0 {
            return Stat { n, mean: f64::NAN, sd: None, se: None };
        }
        let mean = xs.iter().sum::<f64>() / n as f64;
        if n == 1 {
            return Stat { n, mean, sd: None, se: None };
        }
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
        let sd = var.sqrt();
        Stat { n, mean, sd: Some(sd), se: Some(sd / (n as f64).sqrt()) }
    }

    /// "mean ± se" with one decimal.
    pub fn show(&self) -> String {
        match self.se {
            Some(se) => format!("{:.1} ± {:.1}", self.mean, se),
            None => format!("{:.1} ± –", self.mean),
        }
    }
}

/// One agent × partner × seat cell of one layout.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// The layout's report name.
    pub layout: String,
    /// The evaluated agent's spec.
    pub agent: String,
    /// The partner's spec.
    pub partner: String,
    /// The seat the agent played (0 or 1).
    pub seat: u8,
    /// Team score over the cell's episodes; flattened into the cell's JSON.
    #[serde(flatten)]
    pub score: Stat,
    /// LLM requests, summed over the cell's episodes.
    pub llm_calls: u64,
    /// Prompt tokens, summed over the cell's episodes.
    pub prompt_tokens: u64,
    /// Completion tokens, summed over the cell's episodes.
    pub completion_tokens: u64,
    /// Of the completion tokens, reasoning tokens (as servers report them), summed over
    /// the cell's episodes; absent from the JSON when zero.
    #[serde(skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
    /// Of the prompt tokens, those served from a prompt-prefix cache (where servers report
    /// them), summed over the cell's episodes; absent from the JSON when zero.
    #[serde(skip_serializing_if = "is_zero")]
    pub cached_tokens: u64,
    /// Seconds waiting for LLM replies, summed over the cell's episodes.
    pub llm_wall_s: f64,
    /// Episode wall time in seconds, summed over the cell's episodes.
    pub episode_wall_s: f64,
    /// Mean constructive / non-constructive interdependencies per episode (the `teamwork`
    /// metrics of `play --json`), over the episodes that report them; `None` if none does.
    pub constructive: Option<f64>,
    /// Mean non-constructive interdependencies per episode, like `constructive`.
    pub non_constructive: Option<f64>,
    /// The share of the cell's LLM calls whose reply named no usable action, over the
    /// episodes that count them; `None` without such episodes or calls. (Episodes over
    /// `--max-parse-failure-share` are failed, not recorded: they are not in here.)
    pub parse_failure_share: Option<f64>,
    /// Episodes in which the agent held an item and stood still for more than
    /// [`STUCK_AFTER`] steps in a row, over the episodes that measure it; `None` if none does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stuck: Option<u32>,
}

/// Steps an agent may hold an item without moving before an Overcooked episode is flagged
/// stuck (each game's limit: [`crate::games::Catalogued::STUCK_AFTER`]).
pub const STUCK_AFTER: u32 = 100;

/// Unread replies over calls, for the records that count them.
/// What marks a language-model seat played by the offline stand-in model in every table.
pub const STAND_IN_MARK: &str = "rule-based stand-in, not an LLM";

/// Whether a seat label is a language-model agent (ProAgent or LLM-Co) whose model is the
/// rule-based stand-in (`proagent[rule-based,...]`, `llmco[rule-based,...]`, or
/// `proagent[scripted,...]` in older records).
pub fn is_stand_in_seat(label: &str) -> bool {
    crate::runner::seats::proagent_options(label)
        .or_else(|_| crate::runner::seats::llmco_options(label))
        .ok()
        .and_then(|o| o.into_iter().find(|(k, _)| k == "model"))
        .is_some_and(|(_, m)| proagent_llm::is_stand_in(&m))
}

/// A seat label as tables show it: stand-in agent seats carry [`STAND_IN_MARK`].
pub fn shown(label: &str) -> String {
    if is_stand_in_seat(label) { format!("{label} ({STAND_IN_MARK})") } else { label.to_string() }
}

fn parse_failure_share(recs: &[&EpisodeRecord]) -> Option<f64> {
    let counted: Vec<&&EpisodeRecord> = recs.iter().filter(|r| r.parse_failures.is_some()).collect();
    let calls = saturating_sum(counted.iter().map(|r| r.llm_calls));
    let unread = saturating_sum(counted.iter().filter_map(|r| r.parse_failures));
    (calls > 0).then(|| unread.min(calls) as f64 / calls as f64)
}

/// A share as a percentage with one decimal, or "–" when it is undefined (as for a
/// standard error of one episode).
fn show_share(x: Option<f64>) -> String {
    x.map_or("–".to_string(), |x| format!("{:.1}%", 100.0 * x))
}

/// Mean of a teamwork count over the records that carry one.
fn teamwork_mean(recs: &[&EpisodeRecord], count: impl Fn(&TeamworkTotals) -> u32) -> Option<f64> {
    let xs: Vec<f64> = recs.iter().filter_map(|r| r.teamwork.as_ref()).map(|t| count(t) as f64).collect();
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

/// One entry of the Table 1 view: an agent in one seat of one layout, over all partners.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Table1Entry {
    /// The layout's report name.
    pub layout: String,
    /// The seat the agent played (0 or 1).
    pub seat: u8,
    /// The evaluated agent's spec.
    pub agent: String,
    /// How many distinct partners contributed episodes.
    pub partners: usize,
    /// Team score over all the agent's episodes in this layout and seat; flattened into the JSON.
    #[serde(flatten)]
    pub score: Stat,
    /// When the agent is also one of the partners: its score with the *other* partners
    /// only (the paper's baseline columns pair each algorithm with all the others).
    pub with_others: Option<Stat>,
}

/// Sums over every episode of the report.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Totals {
    /// Number of episode records.
    pub episodes: usize,
    /// LLM requests.
    pub llm_calls: u64,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens.
    pub completion_tokens: u64,
    /// Of the completion tokens, reasoning tokens; absent from the JSON when zero.
    #[serde(skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
    /// Of the prompt tokens, cached ones (where reported); absent from the JSON when zero.
    #[serde(skip_serializing_if = "is_zero")]
    pub cached_tokens: u64,
    /// Seconds waiting for LLM replies.
    pub llm_wall_s: f64,
    /// Episode wall time in seconds.
    pub episode_wall_s: f64,
    /// The share of LLM calls whose reply named no usable action (see [`Cell`]).
    pub parse_failure_share: Option<f64>,
}

/// A sweep report: Table 1, the agent × partner cells and totals, built from episode records.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Layouts, built-ins in their classic order, then others alphabetically.
    pub layouts: Vec<String>,
    /// Agent specs, alphabetically.
    pub agents: Vec<String>,
    /// Partner specs, alphabetically.
    pub partners: Vec<String>,
    /// Seats the agents played, ascending.
    pub seats: Vec<u8>,
    /// Table 1 entries, by layout, seat, then agent.
    pub table1: Vec<Table1Entry>,
    /// One cell per layout × agent × partner × seat that has episodes.
    pub cells: Vec<Cell>,
    /// Sums over all episodes.
    pub totals: Totals,
    /// Cells that pool episodes played under different settings (runner, ProAgent flags,
    /// horizon or layout file): their numbers mix experiments.
    pub warnings: Vec<String>,
    /// The full settings behind every agent and partner name, as the results recorded
    /// them (model, sampling, switches, prompt hashes, server identity, file hashes, code
    /// version); more than one entry under a name means the report pools settings.
    pub settings: BTreeMap<String, Vec<serde_json::Value>>,
    /// Per layout, the sha256 of each layout source its episodes were played on.
    pub layout_sha256: BTreeMap<String, Vec<String>>,
    /// Episode lengths played.
    pub horizons: Vec<u32>,
    /// Episode runners (`play` for real episodes).
    pub runners: Vec<String>,
    /// The LLM-Coordination games beside the published rows ([`LlmcoTables`]); empty when
    /// the sweep played none.
    pub llmco: LlmcoTables,
    /// Records without a checksum that the results held: how many were left out of every
    /// number above, or (asked for) counted in them unverified. See
    /// [`super::store::ResultSet::for_means`].
    pub unchecked: UncheckedCount,
}

/// Built-in layouts in their classic order, then any others alphabetically.
fn layout_order(name: &str) -> (usize, String) {
    let pos = BUILTIN.iter().position(|(n, _)| *n == name).unwrap_or(BUILTIN.len());
    (pos, name.to_string())
}

fn sorted_unique<T: Ord + Clone>(it: impl Iterator<Item = T>) -> Vec<T> {
    let mut v: Vec<T> = it.collect();
    v.sort();
    v.dedup();
    v
}

impl Report {
    /// Builds the report. Rows and columns are ordered deterministically (layouts in
    /// the classic order, agents and partners alphabetically), whatever order the
    /// episodes finished in.
    pub fn build(records: &[EpisodeRecord]) -> Report {
        let mut layouts = sorted_unique(records.iter().map(|r| layout_order(&r.layout)));
        layouts.dedup();
        let layouts: Vec<String> = layouts.into_iter().map(|(_, n)| n).collect();
        let agents = sorted_unique(records.iter().map(|r| r.agent.clone()));
        let partners = sorted_unique(records.iter().map(|r| r.partner.clone()));
        let seats = sorted_unique(records.iter().map(|r| r.seat));

        // Records sorted by seed within a group, so float sums do not depend on finishing order.
        let mut by_cell: BTreeMap<(usize, &str, &str, u8), Vec<&EpisodeRecord>> = BTreeMap::new();
        for r in records {
            let li = layouts.iter().position(|l| *l == r.layout).unwrap_or(0);
            by_cell.entry((li, r.agent.as_str(), r.partner.as_str(), r.seat)).or_default().push(r);
        }
        for v in by_cell.values_mut() {
            v.sort_by(|a, b| a.seed.cmp(&b.seed).then_with(|| a.config_hash.cmp(&b.config_hash)));
        }

        let mut warnings = Vec::new();
        for ((li, agent, partner, seat), recs) in &by_cell {
            let mut settings: Vec<(&str, &str, u32, &str)> = recs
                .iter()
                .map(|r| (r.runner.as_str(), r.runner_config.as_str(), r.horizon, r.layout_sha256.as_str()))
                .collect();
            settings.sort();
            settings.dedup();
            if settings.len() > 1 {
                warnings.push(format!(
                    "{} {agent} × {partner} seat {seat}: {} episodes pool {} different settings (runner, ProAgent flags, \
                     horizon or layout file); report such results from separate directories",
                    layouts[*li],
                    recs.len(),
                    settings.len()
                ));
            }
        }

        let mut cells = Vec::new();
        for ((li, agent, partner, seat), recs) in &by_cell {
            let scores: Vec<f64> = recs.iter().map(|r| r.score).collect();
            cells.push(Cell {
                layout: layouts[*li].clone(),
                agent: agent.to_string(),
                partner: partner.to_string(),
                seat: *seat,
                score: Stat::of(&scores),
                llm_calls: saturating_sum(recs.iter().map(|r| r.llm_calls)),
                prompt_tokens: saturating_sum(recs.iter().map(|r| r.prompt_tokens)),
                completion_tokens: saturating_sum(recs.iter().map(|r| r.completion_tokens)),
                reasoning_tokens: saturating_sum(recs.iter().map(|r| r.reasoning_tokens)),
                cached_tokens: saturating_sum(recs.iter().map(|r| r.cached_tokens)),
                llm_wall_s: recs.iter().map(|r| r.llm_wall_s).sum(),
                episode_wall_s: recs.iter().map(|r| r.episode_wall_s).sum(),
                constructive: teamwork_mean(recs, |t| t.constructive),
                non_constructive: teamwork_mean(recs, |t| t.non_constructive),
                parse_failure_share: parse_failure_share(recs),
                stuck: {
                    let measured: Vec<u32> = recs.iter().filter_map(|r| r.held_wait_max).collect();
                    let limit = crate::games::catalog::stuck_after(&layouts[*li]);
                    (!measured.is_empty()).then(|| measured.iter().filter(|w| **w > limit).count() as u32)
                },
            });
        }

        let mut table1 = Vec::new();
        for (li, layout) in layouts.iter().enumerate() {
            for &seat in &seats {
                for agent in &agents {
                    let mut scores = Vec::new();
                    let mut others = Vec::new();
                    let mut with_self = false;
                    let mut partners_seen = 0;
                    for ((l, a, p, s), recs) in &by_cell {
                        if *l == li && *a == agent && *s == seat {
                            partners_seen += 1;
                            scores.extend(recs.iter().map(|r| r.score));
                            if p == a {
                                with_self = true;
                            } else {
                                others.extend(recs.iter().map(|r| r.score));
                            }
                        }
                    }
                    if !scores.is_empty() {
                        table1.push(Table1Entry {
                            layout: layout.clone(),
                            seat,
                            agent: agent.clone(),
                            partners: partners_seen,
                            score: Stat::of(&scores),
                            with_others: (with_self && !others.is_empty()).then(|| Stat::of(&others)),
                        });
                    }
                }
            }
        }

        let totals = Totals {
            episodes: records.len(),
            llm_calls: saturating_sum(cells.iter().map(|c| c.llm_calls)),
            prompt_tokens: saturating_sum(cells.iter().map(|c| c.prompt_tokens)),
            completion_tokens: saturating_sum(cells.iter().map(|c| c.completion_tokens)),
            reasoning_tokens: saturating_sum(cells.iter().map(|c| c.reasoning_tokens)),
            cached_tokens: saturating_sum(cells.iter().map(|c| c.cached_tokens)),
            llm_wall_s: cells.iter().map(|c| c.llm_wall_s).sum(),
            episode_wall_s: cells.iter().map(|c| c.episode_wall_s).sum(),
            parse_failure_share: parse_failure_share(&records.iter().collect::<Vec<_>>()),
        };
        let mut settings: BTreeMap<String, Vec<serde_json::Value>> = BTreeMap::new();
        let mut layout_sha256: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for r in records {
            for (name, v) in [(&r.agent, &r.agent_settings), (&r.partner, &r.partner_settings)] {
                let list = settings.entry(name.clone()).or_default();
                if !v.is_null() && !list.contains(v) {
                    list.push(v.clone());
                }
            }
            let shas = layout_sha256.entry(r.layout.clone()).or_default();
            if !shas.contains(&r.layout_sha256) {
                shas.push(r.layout_sha256.clone());
            }
        }
        for list in settings.values_mut() {
            list.sort_by_key(|v| v.to_string());
        }
        for list in layout_sha256.values_mut() {
            list.sort();
        }
        let horizons = sorted_unique(records.iter().map(|r| r.horizon));
        let runners = sorted_unique(records.iter().map(|r| r.runner.clone()));
        Report {
            layouts,
            agents,
            partners,
            seats,
            table1,
            cells,
            totals,
            warnings,
            settings,
            layout_sha256,
            horizons,
            runners,
            llmco: LlmcoTables::build(records),
            unchecked: UncheckedCount::default(),
        }
    }

    /// The report, saying how many records without a checksum were left out of it or
    /// counted in it (`records` must be the selection that count describes).
    pub fn with_unchecked(mut self, unchecked: UncheckedCount) -> Report {
        self.unchecked = unchecked;
        self
    }

    /// The notes on records without a checksum, one Markdown paragraph each (none when the
    /// results held none).
    fn unchecked_notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        let u = self.unchecked;
        if u.excluded > 0 {
            notes.push(format!(
                "**Note:** {} result records carry no checksum (written before records had one, or the field \
                 was removed), so nothing shows they are as written: they are left out of every number in \
                 this report. `proagent eval report --include-unchecked` counts them.",
                u.excluded
            ));
        }
        if u.included > 0 {
            notes.push(format!(
                "**Note:** {} result records carry no checksum and are counted in this report unverified \
                 (`--include-unchecked`).",
                u.included
            ));
        }
        notes
    }

    /// The names whose recorded server identity is the built-in mock server's
    /// (`proagent mock-server`): their replies came from the rule-based stand-ins.
    pub fn mock_served(&self) -> Vec<&str> {
        self.settings
            .iter()
            .filter(|(_, v)| v.iter().any(|s| s.get("server").is_some_and(proagent_llm::is_mock_server)))
            .map(|(k, _)| k.as_str())
            .collect()
    }

    /// The stand-in label of the seats the built-in mock server served, if any.
    fn mock_served_note(&self) -> Option<String> {
        let names = self.mock_served();
        (!names.is_empty()).then(|| {
            format!(
                "**Stand-in output:** {} {}. Their figures check the pipeline; they measure no language model.",
                names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "),
                crate::runner::models::MOCK_SERVED_MARK
            )
        })
    }

    /// The cell of this layout, agent, partner and seat, if it has episodes.
    pub fn cell(&self, layout: &str, agent: &str, partner: &str, seat: u8) -> Option<&Cell> {
        self.cells.iter().find(|c| c.layout == layout && c.agent == agent && c.partner == partner && c.seat == seat)
    }

    /// The Table 1 entry of this layout, seat and agent, if it has episodes.
    pub fn table1_entry(&self, layout: &str, seat: u8, agent: &str) -> Option<&Table1Entry> {
        self.table1.iter().find(|e| e.layout == layout && e.seat == seat && e.agent == agent)
    }

    /// The report as Markdown (for the terminal and `report.md`).
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        let t = &self.totals;
        let _ = writeln!(s, "# Evaluation report\n");
        let _ = writeln!(
            s,
            "{} · {} · {} · {}. Scores are mean ± standard error (sample standard deviation / √n).\n",
            counted(t.episodes as u64, "episode", "episodes"),
            counted(self.layouts.len() as u64, "layout", "layouts"),
            counted(self.agents.len() as u64, "agent", "agents"),
            counted(self.partners.len() as u64, "partner", "partners")
        );
        for w in &self.warnings {
            let _ = writeln!(s, "**Warning:** {w}\n");
        }
        for n in self.unchecked_notes() {
            let _ = writeln!(s, "{n}\n");
        }
        if let Some(n) = self.mock_served_note() {
            let _ = writeln!(s, "{n}\n");
        }
        let _ = writeln!(s, "## Table 1 view: each agent's score over all partners\n");
        let _ = writeln!(
            s,
            "| layout | agent seat | {} |",
            self.agents.iter().map(|a| shown(a)).collect::<Vec<_>>().join(" | ")
        );
        let _ = writeln!(s, "|---|---|{}", "---|".repeat(self.agents.len()));
        for layout in &self.layouts {
            for &seat in &self.seats {
                let row: Vec<String> = self
                    .agents
                    .iter()
                    .map(|a| self.table1_entry(layout, seat, a).map(|e| e.score.show()).unwrap_or_else(|| "".into()))
                    .collect();
                if row.iter().all(|c| c.is_empty()) {
                    continue;
                }
                let _ = writeln!(s, "| {layout} | P{seat} | {} |", row.join(" | "));
            }
        }
        for layout in &self.layouts {
            for &seat in &self.seats {
                let present = self.cells.iter().any(|c| c.layout == *layout && c.seat == seat);
                if !present {
                    continue;
                }
                let other = 1 - seat.min(1);
                let _ = writeln!(
                    s,
                    "\n## {layout}: agent (player {seat}) × partner (player {other})\n\n| agent \\ partner | {} |",
                    self.partners.iter().map(|p| shown(p)).collect::<Vec<_>>().join(" | ")
                );
                let _ = writeln!(s, "|---|{}", "---|".repeat(self.partners.len()));
                for agent in &self.agents {
                    let row: Vec<String> = self
                        .partners
                        .iter()
                        .map(|p| {
                            self.cell(layout, agent, p, seat)
                                .map(|c| format!("{} (n={})", c.score.show(), c.score.n))
                                .unwrap_or_default()
                        })
                        .collect();
                    if row.iter().any(|c| !c.is_empty()) {
                        let _ = writeln!(s, "| {} | {} |", shown(agent), row.join(" | "));
                    }
                }
            }
        }
        let _ = writeln!(s, "\n## Cost per cell\n");
        // Reasoning and cached tokens get columns of their own only when some episode has
        // them, so reports of runs without any read as they always have.
        let apart = t.reasoning_tokens > 0 || t.cached_tokens > 0;
        let (apart_head, apart_rule) =
            if apart { (" of which reasoning | cached prompt tokens |", "---|---|") } else { ("", "") };
        let apart_cells = |reasoning: u64, cached: u64| {
            if apart { format!(" {reasoning} | {cached} |") } else { String::new() }
        };
        let _ = writeln!(
            s,
            "| layout | agent | partner | seat | n | score | LLM calls | prompt tokens | completion tokens |{apart_head} LLM wall s | episode wall s | constructive / ep | non-constructive / ep | unparsed replies |"
        );
        let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|{apart_rule}---|---|---|---|---|");
        for c in &self.cells {
            let _ = writeln!(
                s,
                "| {} | {} | {} | P{} | {} | {} | {} | {} | {} |{} {:.2} | {:.2} | {} | {} | {} |",
                c.layout,
                shown(&c.agent),
                shown(&c.partner),
                c.seat,
                c.score.n,
                c.score.show(),
                c.llm_calls,
                c.prompt_tokens,
                c.completion_tokens,
                apart_cells(c.reasoning_tokens, c.cached_tokens),
                c.llm_wall_s,
                c.episode_wall_s,
                c.constructive.map_or("—".to_string(), |x| format!("{x:.1}")),
                c.non_constructive.map_or("—".to_string(), |x| format!("{x:.1}")),
                show_share(c.parse_failure_share),
            );
        }
        let _ = writeln!(
            s,
            "| **total** | | | | {} | | {} | {} | {} |{} {:.2} | {:.2} | | | {} |",
            t.episodes,
            t.llm_calls,
            t.prompt_tokens,
            t.completion_tokens,
            apart_cells(t.reasoning_tokens, t.cached_tokens),
            t.llm_wall_s,
            t.episode_wall_s,
            show_share(t.parse_failure_share)
        );
        let stuck: Vec<&Cell> = self.cells.iter().filter(|c| c.stuck.is_some_and(|n| n > 0)).collect();
        if !stuck.is_empty() {
            let limits: Vec<String> = crate::games::entries()
                .iter()
                .filter(|e| e.stuck_after != STUCK_AFTER)
                .map(|e| format!("{} {}", e.title, e.stuck_after))
                .collect();
            let _ = writeln!(
                s,
                "\n## Stuck agents\n\n**Flag:** in these cells the agent held an item and stood still for more than \
                 {STUCK_AFTER} steps in a row in some episodes (e.g. holding a dish, waiting for a soup that \
                 never comes; in the turn games, more moves in a row without progress (no card played, nothing \
                 changed) than the game's limit: {}); their scores measure that wait, not play.\n\n| layout | agent | partner | seat | stuck episodes | n |\n|---|---|---|---|---|---|",
                limits.join(", ")
            );
            for c in stuck {
                let _ = writeln!(
                    s,
                    "| {} | {} | {} | P{} | {} | {} |",
                    c.layout,
                    shown(&c.agent),
                    shown(&c.partner),
                    c.seat,
                    c.stuck.unwrap_or(0),
                    c.score.n
                );
            }
        }
        let _ = writeln!(
            s,
            "\nUnparsed replies: the share of LLM calls whose reply named no usable action. An episode \
             over `--max-parse-failure-share` (default 50%) is failed, not recorded, and played again \
             by the next run, so it is in no mean above."
        );
        s.push_str(&self.llmco.markdown());
        s
    }

    /// The Table 1 view in the paper's shape: one table per seat of the agent under test,
    /// a row per agent and a column per layout, each cell the mean ± standard error over all
    /// its partners' episodes, and below them the published ProAgent (GPT-3.5) row, labelled.
    pub fn table1_paper_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# Table 1 protocol\n");
        let lo = self.cells.iter().map(|c| c.score.n).min().unwrap_or(0);
        let hi = self.cells.iter().map(|c| c.score.n).max().unwrap_or(0);
        let per = if lo == hi { lo.to_string() } else { format!("{lo} to {hi}") };
        let _ = writeln!(
            s,
            "Each agent with each partner ({}), {per} episodes per pairing and seat; mean ± standard error \
             over all pairings' episodes per layout and seat (the paper's Table 1 statistic).\n",
            self.partners.join(", "),
        );
        if hi < TABLE1_EPISODES as usize {
            let _ = writeln!(
                s,
                "**Pilot:** {per} episodes per pairing and seat, fewer than the protocol's {TABLE1_EPISODES}: a \
                 cheap first look, not the Table 1 statistic; run without --episodes for the protocol.\n"
            );
        }
        for w in &self.warnings {
            let _ = writeln!(s, "**Warning:** {w}\n");
        }
        for n in self.unchecked_notes() {
            let _ = writeln!(s, "{n}\n");
        }
        let layouts: Vec<&String> = self.layouts.iter().collect();
        for &seat in &self.seats {
            let _ = writeln!(s, "## Agent as player {seat}\n");
            let _ = writeln!(s, "| agent | {} |", layouts.iter().map(|l| l.as_str()).collect::<Vec<_>>().join(" | "));
            let _ = writeln!(s, "|---|{}", "---|".repeat(layouts.len()));
            for agent in &self.agents {
                let row: Vec<String> = layouts
                    .iter()
                    .map(|l| {
                        self.table1_entry(l, seat, agent)
                            .map(|e| match &e.with_others {
                                Some(o) => format!("{} (n={}, the {} other partners)", o.show(), o.n, e.partners - 1),
                                None => format!("{} (n={}, {} partners)", e.score.show(), e.score.n, e.partners),
                            })
                            .unwrap_or_default()
                    })
                    .collect();
                if row.iter().any(|c| !c.is_empty()) {
                    let _ = writeln!(s, "| ours: {} | {} |", shown(agent), row.join(" | "));
                }
                let published: Vec<String> = layouts
                    .iter()
                    .map(|l| published_baseline(agent, l, seat).map(|v| format!("{v:.1}")).unwrap_or_default())
                    .collect();
                if published.iter().any(|c| !c.is_empty()) {
                    let _ = writeln!(
                        s,
                        "| published: {} with all the others (Zhang et al., Table 1) | {} |",
                        agent.to_uppercase(),
                        published.join(" | ")
                    );
                }
            }
            let published: Vec<String> = layouts
                .iter()
                .map(|l| {
                    PROAGENT_TABLE1_GPT35
                        .iter()
                        .find(|(n, _, _)| n == l)
                        .map(|(_, p0, p1)| format!("{:.1}", if seat == 0 { *p0 } else { *p1 }))
                        .unwrap_or_else(|| "–".into())
                })
                .collect();
            let _ = writeln!(
                s,
                "| published: ProAgent, GPT-3.5, mean over SP/PBT/FCP/MEP/COLE (paper's partners) | {} |\n",
                published.join(" | ")
            );
        }
        let _ = writeln!(
            s,
            "The published rows are copied from Zhang et al. (Table 1), not measured here: another \
             language model, the authors' own trained partners (COLE-Platform's checkpoints) and their \
             settings. An agent that is also among the partners is shown with the other partners only, \
             as the paper's baseline columns pair each algorithm with all the others."
        );
        s
    }

    /// The cells as CSV (`report.csv`).
    pub fn cells_csv(&self) -> Result<String, csv::Error> {
        let mut w = csv::Writer::from_writer(Vec::new());
        // Reasoning and cached tokens get two columns after the completion tokens only when
        // some episode has them, as in `report.md`: files of runs without any keep their shape.
        let apart = self.totals.reasoning_tokens > 0 || self.totals.cached_tokens > 0;
        let with_apart = |mut row: Vec<String>, reasoning: String, cached: String| {
            if apart {
                let at = CSV_COMPLETION_COLUMN + 1;
                row.splice(at..at, [reasoning, cached]);
            }
            row
        };
        let head = [
            "layout",
            "agent",
            "partner",
            "seat",
            "n",
            "mean",
            "sd",
            "se",
            "llm_calls",
            "prompt_tokens",
            "completion_tokens",
            "llm_wall_s",
            "episode_wall_s",
            "constructive",
            "non_constructive",
            "parse_failure_share",
            "stuck_episodes",
            "note",
        ];
        debug_assert_eq!(head[CSV_COMPLETION_COLUMN], "completion_tokens");
        w.write_record(with_apart(
            head.iter().map(|h| h.to_string()).collect(),
            "reasoning_tokens".into(),
            "cached_tokens".into(),
        ))?;
        for c in &self.cells {
            let note = [&c.agent, &c.partner]
                .iter()
                .filter(|l| is_stand_in_seat(l))
                .map(|l| format!("{l}: {STAND_IN_MARK}"))
                .collect::<Vec<_>>()
                .join("; ");
            let row = vec![
                c.layout.clone(),
                c.agent.clone(),
                c.partner.clone(),
                c.seat.to_string(),
                c.score.n.to_string(),
                fixed(c.score.mean, SCORE_PLACES),
                opt(c.score.sd),
                opt(c.score.se),
                c.llm_calls.to_string(),
                c.prompt_tokens.to_string(),
                c.completion_tokens.to_string(),
                fixed(c.llm_wall_s, SECONDS_PLACES),
                fixed(c.episode_wall_s, SECONDS_PLACES),
                opt(c.constructive),
                opt(c.non_constructive),
                opt(c.parse_failure_share),
                c.stuck.map_or(String::new(), |n| n.to_string()),
                note,
            ];
            w.write_record(with_apart(row, c.reasoning_tokens.to_string(), c.cached_tokens.to_string()))?;
        }
        finish_csv(w)
    }

    /// The Table 1 view as CSV (`table1.csv`).
    pub fn table1_csv(&self) -> Result<String, csv::Error> {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record([
            "layout",
            "seat",
            "agent",
            "partners",
            "n",
            "mean",
            "sd",
            "se",
            "others_n",
            "others_mean",
            "others_se",
        ])?;
        for e in &self.table1 {
            let o = e.with_others.as_ref();
            w.write_record([
                e.layout.clone(),
                e.seat.to_string(),
                e.agent.clone(),
                e.partners.to_string(),
                e.score.n.to_string(),
                fixed(e.score.mean, SCORE_PLACES),
                opt(e.score.sd),
                opt(e.score.se),
                o.map_or(String::new(), |s| s.n.to_string()),
                o.map_or(String::new(), |s| fixed(s.mean, SCORE_PLACES)),
                opt(o.and_then(|s| s.se)),
            ])?;
        }
        finish_csv(w)
    }

    /// The whole report as pretty JSON (`report.json`).
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// Decimals a CSV writes for scores, their spread and shares (means of whole-number
/// scores over a few hundred episodes at most: four places hold every digit they carry).
const SCORE_PLACES: usize = 4;
/// Decimals a CSV writes for seconds: milliseconds (wall-clock times jitter by more).
const SECONDS_PLACES: usize = 3;

/// `x` to `places` decimals without trailing zeros (`240`, `0.0137`), so a sum of floats
/// is not written with its rounding noise (`0.013718000000000001`).
fn fixed(x: f64, places: usize) -> String {
    let s = format!("{x:.places$}");
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { &s };
    if s == "-0" { "0".to_string() } else { s.to_string() }
}

fn opt(x: Option<f64>) -> String {
    x.map(|v| fixed(v, SCORE_PLACES)).unwrap_or_default()
}

fn finish_csv(w: csv::Writer<Vec<u8>>) -> Result<String, csv::Error> {
    let bytes = w.into_inner().map_err(|e| csv::Error::from(std::io::Error::other(e.to_string())))?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A sum of counts read from results files (untrusted): it stops at `u64::MAX`
/// instead of wrapping or panicking.
/// The index of `completion_tokens` among `report.csv`'s columns (reasoning and cached
/// tokens follow it when a report has them).
const CSV_COMPLETION_COLUMN: usize = 10;

/// Serde's test for token counts left out of the JSON when zero.
fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn saturating_sum(values: impl Iterator<Item = u64>) -> u64 {
    values.fold(0u64, u64::saturating_add)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::plan::EpisodeSpec;

    #[test]
    fn stand_in_seats_are_marked() {
        for l in ["proagent[rule-based]", "proagent[scripted,memory_k=2]", "proagent[model=rule-based,preset=paper]"] {
            assert!(is_stand_in_seat(l), "{l}");
            assert_eq!(shown(l), format!("{l} (rule-based stand-in, not an LLM)"));
            let co = l.replacen("proagent", "llmco", 1);
            assert_eq!(shown(&co), format!("{co} (rule-based stand-in, not an LLM)"));
        }
        for l in ["proagent[gpt-4o]", "scripted", "greedy", "proagent[replay:x.jsonl]"] {
            assert!(!is_stand_in_seat(l), "{l}");
            assert_eq!(shown(l), l);
        }
        let r = Report::build(&[rec("cramped_room", "proagent[rule-based]", "greedy", 0, 0, 10.0, 3)]);
        let md = r.markdown();
        assert!(md.contains("| proagent[rule-based] (rule-based stand-in, not an LLM) |"), "{md}");
        let csv = r.cells_csv().unwrap();
        assert!(
            csv.lines().nth(1).unwrap().ends_with(",\"proagent[rule-based]: rule-based stand-in, not an LLM\""),
            "{csv}"
        );
    }

    #[test]
    fn cost_sums_saturate() {
        assert_eq!(saturating_sum([u64::MAX, 1, u64::MAX].into_iter()), u64::MAX);
        assert_eq!(saturating_sum([2, 3].into_iter()), 5);
    }

    fn rec(layout: &str, agent: &str, partner: &str, seat: u8, seed: u64, score: f64, calls: u64) -> EpisodeRecord {
        let spec = EpisodeSpec {
            runner: "t".into(),
            runner_config: String::new(),
            layout: layout.into(),
            layout_sha256: "x".into(),
            agent: agent.into(),
            partner: partner.into(),
            seat,
            seed,
            horizon: 400,
        };
        let outcome = crate::sweep::store::EpisodeOutcome {
            score,
            steps: 400,
            llm_calls: calls,
            prompt_tokens: calls * 10,
            completion_tokens: calls,
            llm_wall_s: 0.25 * calls as f64,
            ..Default::default()
        };
        EpisodeRecord::new(&spec, spec.config_hash(), outcome, 2.0, None)
    }

    #[test]
    fn teamwork_means_per_cell() {
        let mut a = rec("cramped_room", "x", "y", 0, 0, 20.0, 0);
        let mut b = rec("cramped_room", "x", "y", 0, 1, 40.0, 0);
        let c = rec("cramped_room", "x", "z", 0, 0, 40.0, 0);
        a.teamwork = Some(TeamworkTotals { deliveries: 2, constructive: 4, non_constructive: 1 });
        b.teamwork = Some(TeamworkTotals { deliveries: 2, constructive: 8, non_constructive: 0 });
        let r = Report::build(&[a, b, c]);
        let cell = r.cell("cramped_room", "x", "y", 0).unwrap();
        // (4 + 8) / 2 and (1 + 0) / 2.
        assert_eq!((cell.constructive, cell.non_constructive), (Some(6.0), Some(0.5)));
        assert_eq!(r.cell("cramped_room", "x", "z", 0).unwrap().constructive, None);
        assert!(r.markdown().contains("| 6.0 | 0.5 |"));
        assert!(r.cells_csv().unwrap().contains(",6,0.5"));
    }

    #[test]
    fn csv_numbers_are_rounded_to_what_they_measure() {
        let mut a = rec("cramped_room", "x", "y", 0, 0, 20.0, 6);
        let mut b = rec("cramped_room", "x", "y", 0, 1, 40.0, 2);
        let mut c = rec("cramped_room", "x", "y", 0, 2, 40.0, 2);
        // Sums of floats carry rounding noise: 0.1 + 0.2 is 0.30000000000000004.
        (a.llm_wall_s, b.llm_wall_s, c.llm_wall_s) = (0.1, 0.2, 0.013718);
        let r = Report::build(&[a, b, c]);
        let csv = r.cells_csv().unwrap();
        let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
        // mean 100/3, sd 11.547..., se 6.666..., LLM wait 0.313718 s.
        assert_eq!(&row[5..8], ["33.3333", "11.547", "6.6667"], "{csv}");
        assert_eq!(row[11], "0.314", "{csv}");
        assert!(
            csv.lines().all(|l| l.split(',').all(|f| f.split_once('.').is_none_or(|(_, d)| d.len() <= 4))),
            "{csv}"
        );
        let t1 = r.table1_csv().unwrap();
        assert!(t1.contains(",33.3333,11.547,6.6667,"), "{t1}");
        assert_eq!((fixed(240.0, 4), fixed(-0.00001, 4), fixed(0.5, 3)), ("240".into(), "0".into(), "0.5".into()));
    }

    #[test]
    fn parse_failure_share_per_cell() {
        let mut a = rec("cramped_room", "x", "y", 0, 0, 20.0, 6);
        let mut b = rec("cramped_room", "x", "y", 0, 1, 40.0, 2);
        let mut old = rec("cramped_room", "x", "z", 0, 0, 40.0, 4);
        (a.parse_failures, b.parse_failures, old.parse_failures) = (Some(3), Some(1), None);
        let r = Report::build(&[a, b, old]);
        // (3 + 1) / (6 + 2); records written before the count have none.
        assert_eq!(r.cell("cramped_room", "x", "y", 0).unwrap().parse_failure_share, Some(0.5));
        assert_eq!(r.cell("cramped_room", "x", "z", 0).unwrap().parse_failure_share, None);
        assert_eq!(r.totals.parse_failure_share, Some(0.5));
        let md = r.markdown();
        assert!(md.contains("| 50.0% |") && md.contains("| – |") && md.contains("unparsed replies"), "{md}");
        let csv = r.cells_csv().unwrap();
        assert!(csv.lines().next().unwrap().ends_with(",parse_failure_share,stuck_episodes,note"), "{csv}");
        assert!(csv.lines().nth(1).unwrap().ends_with(",0.5,,"), "{csv}");
        let v: serde_json::Value = serde_json::from_str(&r.json()).unwrap();
        assert_eq!(v["cells"][0]["parse_failure_share"], 0.5);
    }

    #[test]
    fn stat_matches_hand_computation() {
        // 0, 20, 40: mean 20, sample sd sqrt((400+0+400)/2) = 20, se 20/sqrt(3).
        let s = Stat::of(&[0.0, 20.0, 40.0]);
        assert_eq!(s.n, 3);
        assert_eq!(s.mean, 20.0);
        assert!((s.sd.unwrap() - 20.0).abs() < 1e-12);
        assert!((s.se.unwrap() - 11.547005383792516).abs() < 1e-12);
        assert_eq!(s.show(), "20.0 ± 11.5");
        let one = Stat::of(&[60.0]);
        assert_eq!((one.mean, one.se), (60.0, None));
        assert_eq!(one.show(), "60.0 ± –");
    }

    #[test]
    fn table1_pools_all_partners_and_cells_split_them() {
        let records = vec![
            rec("cramped_room", "a", "p", 0, 0, 100.0, 2),
            rec("cramped_room", "a", "p", 0, 1, 140.0, 4),
            rec("cramped_room", "a", "q", 0, 0, 0.0, 1),
            rec("cramped_room", "a", "q", 0, 1, 20.0, 1),
            rec("cramped_room", "a", "p", 1, 0, 60.0, 0),
            rec("counter_circuit", "b", "p", 0, 0, 40.0, 0),
        ];
        let r = Report::build(&records);
        assert_eq!(r.layouts, vec!["cramped_room", "counter_circuit"]);
        assert_eq!(r.agents, vec!["a", "b"]);
        assert_eq!(r.partners, vec!["p", "q"]);
        // a, seat 0: 100, 140, 0, 20 → mean 65; deviations 35, 75, -65, -45;
        // squares 1225 + 5625 + 4225 + 2025 = 13100; var 13100/3; se = sqrt(13100/3)/2.
        let e = r.table1_entry("cramped_room", 0, "a").unwrap();
        assert_eq!(e.partners, 2);
        assert_eq!(e.score.n, 4);
        assert_eq!(e.score.mean, 65.0);
        assert!((e.score.se.unwrap() - (13100.0f64 / 3.0).sqrt() / 2.0).abs() < 1e-9);
        let c = r.cell("cramped_room", "a", "p", 0).unwrap();
        assert_eq!((c.score.mean, c.score.n), (120.0, 2));
        assert!((c.score.se.unwrap() - 20.0).abs() < 1e-12); // sd = 28.28…, /√2 = 20
        assert_eq!((c.llm_calls, c.prompt_tokens, c.completion_tokens), (6, 60, 6));
        assert_eq!((c.llm_wall_s, c.episode_wall_s), (1.5, 4.0));
        assert_eq!(r.totals.episodes, 6);
        assert_eq!(r.totals.llm_calls, 8);
        let md = r.markdown();
        assert!(md.contains("| cramped_room | P0 | 65.0 ± 33.0 |"), "{md}");
        assert!(md.contains("| a | 120.0 ± 20.0 (n=2) | 10.0 ± 10.0 (n=2) |"), "{md}");
        let csv = r.cells_csv().unwrap();
        assert_eq!(csv.lines().count(), 1 + r.cells.len());
        assert!(csv.contains("cramped_room,a,p,0,2,120,28.2843,20"), "{csv}");
        let v: serde_json::Value = serde_json::from_str(&r.json()).unwrap();
        assert_eq!(v["table1"][0]["mean"], 65.0);
    }

    #[test]
    fn table1_paper_shape_puts_the_published_row_under_ours() {
        let records = vec![
            rec("cramped_room", "proagent", "sp", 0, 0, 100.0, 0),
            rec("cramped_room", "proagent", "pbt", 0, 0, 60.0, 0),
            rec("cramped_room", "proagent", "sp", 1, 0, 40.0, 0),
            rec("forced_coordination", "proagent", "sp", 1, 0, 20.0, 0),
        ];
        let md = Report::build(&records).table1_paper_markdown();
        assert!(md.contains("## Agent as player 0\n\n| agent | cramped_room | forced_coordination |"), "{md}");
        assert!(md.contains("| ours: proagent | 80.0 ± 20.0 (n=2, 2 partners) |  |"), "{md}");
        assert!(
            md.contains(
                "| published: ProAgent, GPT-3.5, mean over SP/PBT/FCP/MEP/COLE (paper's partners) | 197.3 | 49.7 |"
            ),
            "{md}"
        );
        assert!(md.contains("| ours: proagent | 40.0 ± – (n=1, 1 partners) | 20.0 ± – (n=1, 1 partners) |"), "{md}");
        assert!(md.contains("| 194.2 | 31.0 |"), "{md}");
    }

    #[test]
    fn baseline_columns_pair_each_algorithm_with_the_others() {
        let records = vec![
            rec("cramped_room", "sp", "sp", 0, 0, 200.0, 0),
            rec("cramped_room", "sp", "pbt", 0, 0, 100.0, 0),
            rec("cramped_room", "sp", "fcp", 0, 0, 60.0, 0),
        ];
        let r = Report::build(&records);
        let e = r.table1_entry("cramped_room", 0, "sp").unwrap();
        assert_eq!((e.score.n, e.score.mean), (3, 120.0));
        let o = e.with_others.unwrap();
        assert_eq!((o.n, o.mean), (2, 80.0));
        let md = r.table1_paper_markdown();
        assert!(md.contains("| ours: sp | 80.0 ± 20.0 (n=2, the 2 other partners) |"), "{md}");
        assert!(md.contains("| published: SP with all the others (Zhang et al., Table 1) | 168.5 |"), "{md}");
        assert!(r.table1_csv().unwrap().contains(",2,80,20"), "{}", r.table1_csv().unwrap());
        assert_eq!(published_baseline("cole", "counter_circuit", 1), Some(100.8));
    }

    #[test]
    fn cells_mixing_settings_are_flagged() {
        let mut other = rec("cramped_room", "a", "p", 0, 1, 140.0, 4);
        other.runner_config = "f".into();
        let r = Report::build(&[rec("cramped_room", "a", "p", 0, 0, 100.0, 2), other]);
        assert_eq!(r.warnings.len(), 1);
        assert!(
            r.warnings[0].contains("cramped_room a × p seat 0: 2 episodes pool 2 different settings"),
            "{:?}",
            r.warnings
        );
        assert!(r.markdown().contains("**Warning:**"));
        assert!(Report::build(&[rec("cramped_room", "a", "p", 0, 0, 100.0, 2)]).warnings.is_empty());
    }

    #[test]
    fn records_without_a_checksum_are_reported_left_out_or_counted() {
        let records = [rec("cramped_room", "a", "p", 0, 0, 100.0, 2)];
        let plain = Report::build(&records);
        assert_eq!(plain.unchecked, UncheckedCount::default());
        assert!(!plain.markdown().contains("checksum"));
        let v: serde_json::Value = serde_json::from_str(&plain.json()).unwrap();
        assert_eq!(v["unchecked"], serde_json::json!({"excluded": 0, "included": 0}));
        let left_out = Report::build(&records).with_unchecked(UncheckedCount { excluded: 2, included: 0 });
        for md in [left_out.markdown(), left_out.table1_paper_markdown()] {
            assert!(md.contains("**Note:** 2 result records carry no checksum"), "{md}");
            assert!(md.contains("left out of every number") && md.contains("--include-unchecked"), "{md}");
        }
        let v: serde_json::Value = serde_json::from_str(&left_out.json()).unwrap();
        assert_eq!(v["unchecked"]["excluded"], 2);
        let counted = Report::build(&records).with_unchecked(UncheckedCount { excluded: 0, included: 1 });
        assert!(counted.markdown().contains("**Note:** 1 result records carry no checksum and are counted"));
        let v: serde_json::Value = serde_json::from_str(&counted.json()).unwrap();
        assert_eq!(v["unchecked"]["included"], 1);
    }

    #[test]
    fn report_is_independent_of_record_order() {
        let mut records = vec![
            rec("cramped_room", "a", "p", 0, 0, 100.0, 2),
            rec("cramped_room", "a", "p", 0, 1, 140.0, 4),
            rec("cramped_room", "b", "q", 1, 3, 0.1, 1),
            rec("cramped_room", "b", "q", 1, 2, 0.2, 1),
            rec("cramped_room", "b", "q", 1, 1, 0.3, 1),
        ];
        let a = Report::build(&records);
        records.reverse();
        let b = Report::build(&records);
        assert_eq!(a.json(), b.json());
    }
}
