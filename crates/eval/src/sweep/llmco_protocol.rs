//! The LLM-Coordination paper's three agentic tables as sweep protocols
//! (`eval --protocol llmco-table1|llmco-table2|llmco-table3`): what each one plays, and its
//! table with the published rows (model names as published) beside ours. Pure: records in,
//! Markdown out.
//!
//! What the protocols fix, from the paper (Agashe et al.) and its released benchmark scripts:
//! - **llmco-table1**: self-play on the five classic layouts, 400 ticks, 3 trials per layout
//!   (the release's Overcooked loop and trial count). The score is the team's (20 a soup).
//! - **llmco-table2**: self-play on every CollabCapture and CollabEscape scenario, 3 trials
//!   each, with and without the Theory-of-Mind step; success rate and mean turns of the
//!   successful episodes. Each scenario ends by its own turn limit.
//! - **llmco-table3**: two-player Hanabi self-play on the release's self-play seeds
//!   321, 212 and 628 (one game each); cards played and HLE's score.
//!
//! Every protocol seats `llmco[preset=paper]` in both seats and scores every episode, as the
//! paper did: no episode is dropped for replies the agent could not read. A table names the
//! model, the preset and the trials on both sides, marks a pilot (fewer trials than the
//! protocol's) and labels replies from the rule-based stand-in or the built-in mock server.

use super::llmco_report::{PAPER_TABLE2, PAPER_TABLE3, record_model_words};
use super::store::EpisodeRecord;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The seat every protocol plays: the LLM-Co agent as released.
pub const PAPER_SEAT: &str = "llmco[preset=paper]";

/// Table 2's ablation: the same agent without its Theory-of-Mind step.
pub const PAPER_SEAT_NO_TOM: &str = "llmco[preset=paper,tom=off]";

/// The release's Hanabi self-play seeds (one game each).
pub const HANABI_SEEDS: [u64; 3] = [321, 212, 628];

/// Trials per layout (Table 1) or scenario (Table 2), as the release's scripts run them.
pub const TRIALS: u32 = 3;

/// The Overcooked episode length of the release's benchmark loop, in ticks.
pub const OVERCOOKED_TICKS: u32 = 400;

/// Table 1's layouts in the paper's column order (CR, AA, Ring, FC, CC).
pub const TABLE1_LAYOUTS: [&str; 5] =
    ["cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination", "counter_circuit"];

/// A published Table 1 row: the method as published and, per layout of [`TABLE1_LAYOUTS`],
/// the mean and the ± exactly as the paper prints them.
pub type PaperTable1Row = (&'static str, [(&'static str, &'static str); 5]);

/// The published rows of the paper's Table 1 (self-play, score per episode).
pub const PAPER_TABLE1: [PaperTable1Row; 6] = [
    (
        "Self-Play (PPO)",
        [("198.8", "4.06"), ("167.2", "3.63"), ("190.8", "4.25"), ("151.9", "3.28"), ("122.3", "3.80")],
    ),
    ("PBT", [("216.9", "1.31"), ("190.1", "8.64"), ("173.8", "18.27"), ("169.5", "10.09"), ("140.1", "13.86")]),
    ("GPT-3.5-turbo", [("33.3", "10.88"), ("46.6", "10.88"), ("40.0", "0.00"), ("66.6", "14.40"), ("53.3", "5.44")]),
    ("Mixtral8x7B", [("46.6", "14.40"), ("200.0", "9.42"), ("113.3", "5.44"), ("46.6", "14.40"), ("100.0", "9.42")]),
    ("GPT-4o", [("160", "0.00"), ("166.66", "5.44"), ("66.66", "21.77"), ("120.0", "9.42"), ("160.0", "0.00")]),
    ("GPT-4-turbo", [("173.3", "6.67"), ("260.0", "11.55"), ("140.0", "0.00"), ("180.0", "11.55"), ("160.0", "0.00")]),
];

/// What `eval --protocol` says of these protocols (its help, after ProAgent's `table1`).
pub const PROTOCOL_HELP: &str = "`llmco-table1`, `llmco-table2`, `llmco-table3` are the LLM-Coordination paper's \
     Tables 1-3 (`llmco[preset=paper]` in self-play; docs/llmco.md#the-papers-tables): classic Overcooked, \
     CollabCapture and CollabEscape with and without ToM, Hanabi on the release's seeds; every episode scored; \
     `--episodes N` below the protocol's trials is a labelled pilot";

/// One of the three protocols.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LlmcoTable {
    /// Classic Overcooked self-play (the paper's Table 1).
    Table1,
    /// CollabCapture and CollabEscape, with and without ToM (Table 2).
    Table2,
    /// Hanabi self-play on the release's seeds (Table 3).
    Table3,
}

/// The protocol names `--protocol` takes for these tables.
pub const PROTOCOL_NAMES: [&str; 3] = ["llmco-table1", "llmco-table2", "llmco-table3"];

impl LlmcoTable {
    /// The protocol `name` stands for (`llmco-table1` …); `None` for any other.
    pub fn parse(name: &str) -> Option<LlmcoTable> {
        match name {
            "llmco-table1" => Some(LlmcoTable::Table1),
            "llmco-table2" => Some(LlmcoTable::Table2),
            "llmco-table3" => Some(LlmcoTable::Table3),
            _ => None,
        }
    }

    /// The protocol's name.
    pub fn name(self) -> &'static str {
        match self {
            LlmcoTable::Table1 => PROTOCOL_NAMES[0],
            LlmcoTable::Table2 => PROTOCOL_NAMES[1],
            LlmcoTable::Table3 => PROTOCOL_NAMES[2],
        }
    }

    /// The `--layouts` it plays.
    pub fn layouts(self) -> Vec<String> {
        match self {
            LlmcoTable::Table1 => vec!["all".into()],
            LlmcoTable::Table2 => vec!["capture:all".into(), "escape:all".into()],
            LlmcoTable::Table3 => vec!["hanabi".into()],
        }
    }

    /// The seats it evaluates, each in self-play.
    pub fn agents(self) -> Vec<String> {
        match self {
            LlmcoTable::Table2 => vec![PAPER_SEAT.into(), PAPER_SEAT_NO_TOM.into()],
            _ => vec![PAPER_SEAT.into()],
        }
    }

    /// Trials per layout, scenario or (Hanabi) seed list.
    pub fn trials(self) -> u32 {
        match self {
            LlmcoTable::Table3 => HANABI_SEEDS.len() as u32,
            _ => TRIALS,
        }
    }

    /// The seeds of a pilot of `trials` (at most [`LlmcoTable::trials`]) from the first
    /// seed `seed`: Table 3 plays the release's seeds in order, the others `seed + i`.
    pub fn seeds(self, trials: u32, seed: u64) -> Vec<u64> {
        match self {
            LlmcoTable::Table3 => HANABI_SEEDS.iter().take(trials as usize).copied().collect(),
            _ => (0..trials as u64).map(|i| seed.wrapping_add(i)).collect(),
        }
    }

    /// What the protocol plays, in one sentence.
    pub fn describe(self) -> &'static str {
        match self {
            LlmcoTable::Table1 => {
                "self-play on the five classic layouts, 400 ticks with the old dynamics (a full pot cooks by itself, \
                 20 ticks, 20 a soup), 3 trials per layout"
            }
            LlmcoTable::Table2 => {
                "self-play on every CollabCapture and CollabEscape scenario, 3 trials each, with and without the \
                 Theory-of-Mind step"
            }
            LlmcoTable::Table3 => {
                "two-player Hanabi self-play, one game on each of the release's seeds 321, 212 and 628"
            }
        }
    }
}

/// Mean and standard error as the release reports it (population standard deviation / √n).
fn mean_se(xs: &[f64]) -> Option<(f64, f64)> {
    if xs.is_empty() {
        return None;
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n;
    Some((mean, (var / n).sqrt()))
}

fn show(v: Option<(f64, f64)>) -> String {
    v.map_or("–".into(), |(m, se)| format!("{m:.1} ± {se:.2}"))
}

fn num(r: &EpisodeRecord, k: &str) -> f64 {
    r.metrics.get(k).and_then(Value::as_f64).unwrap_or(0.0)
}

/// Where a seed comes in the protocol's order: the release's Hanabi seeds first, in their
/// order, then any other by value.
fn seed_order(seed: u64) -> (usize, u64) {
    (HANABI_SEEDS.iter().position(|s| *s == seed).unwrap_or(HANABI_SEEDS.len()), seed)
}

/// The records of a protocol's self-play episodes by agent label: the full agent before
/// its ablations (labels naming a `tom` switch), each group by layout and seed, so the
/// tables do not depend on the order the episodes finished in.
fn by_agent(records: &[EpisodeRecord]) -> Vec<(String, Vec<&EpisodeRecord>)> {
    let mut out: BTreeMap<(bool, String), Vec<&EpisodeRecord>> = BTreeMap::new();
    for r in records.iter().filter(|r| r.agent == r.partner) {
        out.entry((r.agent.contains("tom="), r.agent.clone())).or_default().push(r);
    }
    out.into_iter()
        .map(|((_, a), mut v)| {
            v.sort_by(|x, y| (&x.layout, seed_order(x.seed)).cmp(&(&y.layout, seed_order(y.seed))));
            (a, v)
        })
        .collect()
}

/// The models of an agent's episodes in words (several when records disagree).
fn models(rs: &[&EpisodeRecord]) -> String {
    let mut m: Vec<String> = rs.iter().map(|r| record_model_words(r)).collect();
    m.sort();
    m.dedup();
    m.join("; ")
}

/// The protocol's table: its header (what it plays, model, preset, trials, scoring, pilot
/// and stand-in labels), the published rows and ours. `planned` is the trials per cell this
/// run planned (a pilot plays fewer than [`LlmcoTable::trials`]).
pub fn markdown(table: LlmcoTable, records: &[EpisodeRecord], planned: u32) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "# LLM-Coordination protocol {}\n", table.name());
    let _ = writeln!(s, "Plays {}. Seat: `{PAPER_SEAT}` (preset paper) in both seats.", table.describe());
    let _ = writeln!(
        s,
        "Every episode is scored, as the paper scored its runs: none is dropped for replies the agent could not read \
         (the unread share is shown instead)."
    );
    if planned < table.trials() {
        let _ = writeln!(
            s,
            "\n**Pilot:** {planned} of the protocol's {} trials per cell; not the protocol's figures.",
            table.trials()
        );
    }
    let agents = by_agent(records);
    let stand_in: Vec<String> = agents
        .iter()
        .map(|(a, rs)| (a, models(rs)))
        .filter(|(_, m)| m.contains("not an LLM"))
        .map(|(a, m)| format!("`{a}`: {m}"))
        .collect();
    if !stand_in.is_empty() {
        let _ = writeln!(
            s,
            "\n**Stand-in output:** {}. These rows check the pipeline; they measure no language model.",
            stand_in.join("; ")
        );
    }
    let _ = writeln!(s);
    match table {
        LlmcoTable::Table1 => table1(&mut s, &agents),
        LlmcoTable::Table2 => table2(&mut s, &agents),
        LlmcoTable::Table3 => table3(&mut s, &agents),
    }
    let _ = writeln!(
        s,
        "\nPublished rows: Agashe et al., LLM-Coordination, copied as published (model names as the paper gives \
         them), not measured here."
    );
    s
}

fn unread(rs: &[&EpisodeRecord]) -> String {
    let calls: u64 = rs.iter().map(|r| r.llm_calls).sum();
    let bad: u64 = rs.iter().filter_map(|r| r.parse_failures).sum();
    if calls == 0 { "–".into() } else { format!("{:.1}%", 100.0 * bad.min(calls) as f64 / calls as f64) }
}

fn table1(s: &mut String, agents: &[(String, Vec<&EpisodeRecord>)]) {
    let _ = writeln!(s, "Score per episode (20 a soup), mean ± standard error.\n");
    let _ = writeln!(s, "| source | agent | model | trials | {} | unread replies |", TABLE1_LAYOUTS.join(" | "));
    let _ = writeln!(s, "|---|---|---|---|{}---|", "---|".repeat(TABLE1_LAYOUTS.len()));
    for (method, cells) in PAPER_TABLE1 {
        let agent = if method.starts_with("GPT") || method.starts_with("Mixtral") { "LLM-Co agent" } else { "RL" };
        let row: Vec<String> = cells.iter().map(|(m, pm)| format!("{m} ± {pm}")).collect();
        let _ =
            writeln!(s, "| paper, Table 1 | {agent} | {method} | 3 (the release's script) | {} | – |", row.join(" | "));
    }
    for (agent, rs) in agents {
        let mut trials: Vec<usize> = Vec::new();
        let row: Vec<String> = TABLE1_LAYOUTS
            .iter()
            .map(|l| {
                let xs: Vec<f64> = rs.iter().filter(|r| r.layout == *l).map(|r| r.score).collect();
                trials.push(xs.len());
                show(mean_se(&xs))
            })
            .collect();
        let _ = writeln!(
            s,
            "| ours | {agent} | {} | {} | {} | {} |",
            models(rs),
            trial_range(&trials),
            row.join(" | "),
            unread(rs)
        );
    }
}

fn trial_range(ns: &[usize]) -> String {
    let lo = ns.iter().min().copied().unwrap_or(0);
    let hi = ns.iter().max().copied().unwrap_or(0);
    if lo == hi { lo.to_string() } else { format!("{lo} to {hi}") }
}

fn table2(s: &mut String, agents: &[(String, Vec<&EpisodeRecord>)]) {
    let _ = writeln!(
        s,
        "Success = a capture or an escape; turns = mean turns of the successful episodes (N.A.: none). The paper's \
         columns read as in docs/collab.md (\"Reading the published Table 2\").\n"
    );
    let _ = writeln!(
        s,
        "| source | agent | model | trials | capture success | capture turns | escape success | escape turns | unread replies |"
    );
    let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
    let t = |x: Option<f64>| x.map_or("N.A.".to_string(), |v| format!("{v:.2}"));
    for (agent, model, cs, ct, es, et) in PAPER_TABLE2 {
        let _ = writeln!(
            s,
            "| paper, Table 2 | {agent} | {model} | 3 per scenario | {cs:.2} | {} | {es:.2} | {} | – |",
            t(ct),
            t(et)
        );
    }
    let success = |r: &EpisodeRecord| r.metrics.get("success").and_then(Value::as_bool).unwrap_or(false);
    for (agent, rs) in agents {
        let mut cols = Vec::new();
        let mut trials = Vec::new();
        for game in ["collab_capture", "collab_escape"] {
            let g: Vec<&&EpisodeRecord> =
                rs.iter().filter(|r| r.metrics.get("game").and_then(Value::as_str) == Some(game)).collect();
            let mut per: BTreeMap<&str, usize> = BTreeMap::new();
            for r in &g {
                *per.entry(r.layout.as_str()).or_default() += 1;
            }
            trials.extend(per.values().copied());
            if g.is_empty() {
                cols.extend(["–".to_string(), "–".to_string()]);
                continue;
            }
            let won: Vec<f64> = g.iter().filter(|r| success(r)).map(|r| num(r, "turns_to_success")).collect();
            let turns = (!won.is_empty()).then(|| won.iter().sum::<f64>() / won.len() as f64);
            cols.push(format!("{:.2}", won.len() as f64 / g.len() as f64));
            cols.push(t(turns));
        }
        let _ = writeln!(
            s,
            "| ours | {agent} | {} | {} per scenario | {} | {} |",
            models(rs),
            trial_range(&trials),
            cols.join(" | "),
            unread(rs)
        );
    }
}

fn table3(s: &mut String, agents: &[(String, Vec<&EpisodeRecord>)]) {
    let _ = writeln!(
        s,
        "Cards played = cards on the fireworks at the end, kept when the last life is lost (the paper's measure); \
         HLE score = 0 once all three lives are lost. Mean ± standard error. Our seeds are the release's numbers; \
         our dealer draws from its own generator, so the decks are not HLE's decks for those seeds.\n"
    );
    let _ = writeln!(s, "| source | agent | model | games (seeds) | cards played | HLE score | unread replies |");
    let _ = writeln!(s, "|---|---|---|---|---|---|---|");
    for (agent, model, mean, pm) in PAPER_TABLE3 {
        let _ = writeln!(s, "| paper, Table 3 | {agent} | {model} | 3 | {mean:.2} ± {pm:.2} | – | – |");
    }
    for (agent, rs) in agents {
        let cards: Vec<f64> = rs.iter().map(|r| num(r, "cards_played")).collect();
        let hle: Vec<f64> = rs.iter().map(|r| num(r, "hle_score")).collect();
        let mut seeds: Vec<u64> = rs.iter().map(|r| r.seed).collect();
        seeds.sort_by_key(|s| seed_order(*s));
        seeds.dedup();
        let seeds: Vec<String> = seeds.iter().map(u64::to_string).collect();
        let _ = writeln!(
            s,
            "| ours | {agent} | {} | {} ({}) | {} | {} | {} |",
            models(rs),
            rs.len(),
            seeds.join(", "),
            show(mean_se(&cards)),
            show(mean_se(&hle)),
            unread(rs)
        );
    }
}

/// A protocol as one run plays it: its table and the trials per cell this run plays
/// (fewer than the protocol's: a pilot, labelled as one in every table).
#[derive(Clone, Copy, Debug)]
pub struct ProtocolRun {
    /// Which table.
    pub table: LlmcoTable,
    /// Trials per cell this run plays.
    pub trials: u32,
}

impl ProtocolRun {
    /// The protocol's episodes: self-play only (agent and partner the same seat), on its
    /// seeds (Table 3: the release's; the others from `spec.seed` on).
    pub fn plan(&self, spec: &super::plan::SweepSpec) -> Vec<super::plan::PlannedEpisode> {
        let mut plan = Vec::new();
        for seed in self.table.seeds(self.trials, spec.seed) {
            let one = super::plan::SweepSpec { seed, episodes: 1, ..spec.clone() };
            plan.extend(super::plan::cross_product(&one).into_iter().filter(|p| p.spec.agent == p.spec.partner));
        }
        plan
    }

    /// The dry run's first line: what the protocol would play, and how many episodes it plans.
    pub fn dry_run_header(&self, episodes: usize, model: &str) -> String {
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

    /// The protocol's table (published rows beside ours) from `records`.
    pub fn markdown(&self, records: &[EpisodeRecord]) -> String {
        markdown(self.table, records, self.trials)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocols_parse_by_name_and_table3_plays_the_release_seeds() {
        for n in PROTOCOL_NAMES {
            assert_eq!(LlmcoTable::parse(n).map(LlmcoTable::name), Some(n));
        }
        assert_eq!(LlmcoTable::parse("table1"), None);
        assert_eq!(LlmcoTable::Table3.seeds(3, 0), vec![321, 212, 628]);
        assert_eq!(LlmcoTable::Table3.seeds(1, 7), vec![321]);
        assert_eq!(LlmcoTable::Table1.seeds(3, 5), vec![5, 6, 7]);
        assert_eq!(LlmcoTable::Table2.agents(), vec![PAPER_SEAT.to_string(), PAPER_SEAT_NO_TOM.to_string()]);
        assert_eq!((PAPER_SEAT, PAPER_SEAT_NO_TOM), ("llmco[preset=paper]", "llmco[preset=paper,tom=off]"));
    }

    #[test]
    fn the_release_reports_the_population_standard_error() {
        let (m, se) = mean_se(&[160.0, 180.0, 140.0]).unwrap();
        assert_eq!(m, 160.0);
        assert!((se - (800.0f64 / 3.0 / 3.0).sqrt()).abs() < 1e-9);
        assert_eq!(mean_se(&[]), None);
    }
}
