//! Teamwork beyond reward: how the two players of a trajectory build on each other's
//! actions (constructive interdependence, Biswas et al., "Who is Helping Whom?").
//!
//! Pipeline: a neutral [`Trajectory`] (states + joint actions, from any source, see
//! [`readers`]) → a [`symbolic::SymbolicTrace`] (tracked objects and STRIPS actions) →
//! [`interdep::interdependencies`] → a [`Report`] with the counts per player.
//!
//! Pure: no I/O. The CLI (`proagent analyze`) reads and unzips files.
//!
//! To analyse an episode you just ran (e.g. for `play --json`):
//! ```
//! use proagent::analysis::{Trajectory, analyze, metrics_json};
//! use proagent::env::{Action, Layout};
//! let layout = Layout::builtin("cramped_room").unwrap();
//! let start = layout.start_state();
//! let actions = vec![[Action::Stay, Action::Interact]; 10];
//! let traj = Trajectory::from_actions("episode 0", layout, start, actions);
//! let report = analyze(&traj).unwrap();
//! let metrics = metrics_json(&report); // {"constructive": .., "players": [..], ..}
//! assert_eq!(metrics["deliveries"], 0);
//! // The same in one call:
//! let layout = Layout::builtin("cramped_room").unwrap();
//! let r = proagent::analysis::episode_report(&layout, &layout.start_state(), &[[Action::Stay, Action::Interact]; 10]).unwrap();
//! assert_eq!(metrics_json(&r), metrics);
//! ```
//!
//! A recorded episode in the reference-trace schema (what the runner writes) goes
//! through [`readers::read_reference`] / [`readers::from_reference`] instead, which keep
//! the recorded states.

#![warn(missing_docs)]
#![allow(clippy::needless_range_loop, clippy::collapsible_match, clippy::collapsible_if)]

pub mod interdep;
pub mod readers;
pub mod symbolic;
pub mod v2;

pub use interdep::{Interdependence, LinkKind, PlayerStats};
pub use symbolic::SymbolicTrace;

use proagent_overcooked::env::{Action, Layout, State};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// A trajectory from any source: `states` holds the T+1 states, `joint_actions` and
/// `rewards` the T transitions between them (`rewards` may be empty when unknown).
#[derive(Clone, Debug)]
pub struct Trajectory {
    /// Label for reports: the trial id, `file:line layout policy` for a trace, or the caller's episode name.
    pub name: String,
    /// The kitchen the trajectory was played in.
    pub layout: Layout,
    /// The T+1 states, from the start state to the state after the last joint action.
    pub states: Vec<State>,
    /// The T joint actions; `joint_actions[t]` leads from `states[t]` to `states[t + 1]`.
    pub joint_actions: Vec<[Action; 2]>,
    /// Sparse team reward of each transition, in the source's own scale; empty when unknown.
    pub rewards: Vec<u32>,
}

impl Trajectory {
    /// Rebuilds the states by stepping the (deterministic) simulator from `start`: for any
    /// source that records actions but not states, such as transcripts and live episodes.
    pub fn from_actions(name: &str, layout: Layout, start: State, joint_actions: Vec<[Action; 2]>) -> Trajectory {
        let mut states = Vec::with_capacity(joint_actions.len() + 1);
        let mut rewards = Vec::with_capacity(joint_actions.len());
        let mut s = start;
        states.push(s.clone());
        for &joint in &joint_actions {
            rewards.push(layout.step(&mut s, joint).reward);
            states.push(s.clone());
        }
        Trajectory { name: name.to_string(), layout, states, joint_actions, rewards }
    }

    /// The layout's name.
    pub fn layout_name(&self) -> &str {
        &self.layout.name
    }
}

/// Why a trajectory could not be analysed.
#[derive(Debug, thiserror::Error)]
pub enum AnalysisError {
    /// The trajectory's parts do not fit together (state and action counts, grid size).
    #[error("{name}: {message}")]
    Inconsistent {
        /// The trajectory's name.
        name: String,
        /// What does not fit.
        message: String,
    },
}

/// Constructive and non-constructive counts of one kind of link.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize)]
pub struct LinkCounts {
    /// Links that are goal-reaching and non-looping.
    pub constructive: u32,
    /// Links that are not.
    pub non_constructive: u32,
}

/// Everything measured on one trajectory.
#[derive(Clone, Debug)]
pub struct Report {
    /// The trajectory's name.
    pub trajectory: String,
    /// The layout's name.
    pub layout: String,
    /// Number of transitions (joint actions).
    pub steps: usize,
    /// Sum of the recorded rewards, in the source's own scale (the 2019 human games pay 5
    /// per soup, the simulator 20).
    pub reward: u64,
    /// Soups served, counted from the trace's `deliver` actions.
    pub deliveries: usize,
    /// Direct interdependencies (counter hand-overs) that are constructive.
    pub constructive: u32,
    /// Direct interdependencies that are not constructive.
    pub non_constructive: u32,
    /// The direct links by what was handed over (they add up to the totals above).
    pub links: BTreeMap<&'static str, LinkCounts>,
    /// Indirect links through a shared pot (not in the totals; see [`interdep`]).
    pub pot_links: LinkCounts,
    /// Per-player trigger and link counts, indexed by player.
    pub players: [PlayerStats; 2],
    /// Every direct interdependence, in receiver-action order.
    pub interdependencies: Vec<Interdependence>,
    /// Every indirect link through a shared pot.
    pub indirect: Vec<Interdependence>,
    /// The symbolic trace the links were found in.
    pub trace: SymbolicTrace,
}

impl Report {
    /// Constructive interdependencies per delivered soup (`None` without deliveries).
    pub fn constructive_per_soup(&self) -> Option<f64> {
        (self.deliveries > 0).then(|| self.constructive as f64 / self.deliveries as f64)
    }

    /// Non-constructive interdependencies per delivered soup (`None` without deliveries).
    pub fn non_constructive_per_soup(&self) -> Option<f64> {
        (self.deliveries > 0).then(|| self.non_constructive as f64 / self.deliveries as f64)
    }
}

/// Runs the whole analysis on one trajectory.
pub fn analyze(traj: &Trajectory) -> Result<Report, AnalysisError> {
    let bad = |message: String| AnalysisError::Inconsistent { name: traj.name.clone(), message };
    let Some(start) = traj.states.first() else { return Err(bad("the trajectory has no state".into())) };
    if traj.states.len() != traj.joint_actions.len() + 1 {
        return Err(bad(format!(
            "{} states but {} joint actions (expected one state more than actions)",
            traj.states.len(),
            traj.joint_actions.len()
        )));
    }
    let cells = traj.layout.width * traj.layout.height;
    if let Some(t) = traj.states.iter().position(|s| s.objects.len() != cells) {
        return Err(bad(format!("state {t} does not match the layout's {cells} cells")));
    }
    let trace = symbolic::build(&traj.layout, &traj.states, &traj.joint_actions);
    let (interdependencies, players) = interdep::interdependencies(&traj.layout, start, &trace);
    let indirect = interdep::pot_links(&trace);
    let mut pot_links = LinkCounts::default();
    for l in &indirect {
        if l.constructive() {
            pot_links.constructive += 1;
        } else {
            pot_links.non_constructive += 1;
        }
    }
    let mut links: BTreeMap<&'static str, LinkCounts> =
        LinkKind::DIRECT.iter().map(|k| (k.name(), LinkCounts::default())).collect();
    let (mut constructive, mut non_constructive) = (0, 0);
    for l in &interdependencies {
        let c = links.entry(l.link.name()).or_default();
        if l.constructive() {
            constructive += 1;
            c.constructive += 1;
        } else {
            non_constructive += 1;
            c.non_constructive += 1;
        }
    }
    Ok(Report {
        trajectory: traj.name.clone(),
        layout: traj.layout.name.clone(),
        steps: traj.joint_actions.len(),
        reward: traj.rewards.iter().map(|&r| r as u64).sum(),
        deliveries: trace.deliveries(),
        constructive,
        non_constructive,
        links,
        pot_links,
        players,
        interdependencies,
        indirect,
        trace,
    })
}

fn share(x: Option<f64>) -> Value {
    x.map_or(Value::Null, |v| json!(v))
}

/// The teamwork metrics of a report, for embedding (e.g. in `play --json`, sweep reports).
pub fn metrics_json(r: &Report) -> Value {
    let players: Vec<Value> = r
        .players
        .iter()
        .map(|p| {
            json!({
                "triggered": p.triggered,
                "accepted": p.accepted,
                "accepted_share": share(p.accepted_share()),
                "accepted_constructive": p.accepted_constructive,
                "given_constructive": p.given_constructive,
                "given_non_constructive": p.given_non_constructive,
                "received_constructive": p.received_constructive,
                "received_non_constructive": p.received_non_constructive,
            })
        })
        .collect();
    json!({
        "deliveries": r.deliveries,
        "constructive": r.constructive,
        "non_constructive": r.non_constructive,
        "constructive_per_soup": share(r.constructive_per_soup()),
        "links": r.links,
        "pot_links": r.pot_links,
        "players": players,
    })
}

/// The headline teamwork counts of one episode, as sweep records keep them (typed, so
/// reports never dig them out of JSON by key).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TeamworkTotals {
    /// Soups served.
    pub deliveries: usize,
    /// Direct interdependencies (counter hand-overs) that are constructive.
    pub constructive: u32,
    /// Direct interdependencies that are not constructive.
    pub non_constructive: u32,
}

impl From<&Report> for TeamworkTotals {
    fn from(r: &Report) -> Self {
        TeamworkTotals { deliveries: r.deliveries, constructive: r.constructive, non_constructive: r.non_constructive }
    }
}

/// The teamwork report of an episode given by its start state and joint actions (the
/// states are rebuilt with the simulator). For `play --json` and sweep reports.
pub fn episode_report(layout: &Layout, start: &State, joint_actions: &[[Action; 2]]) -> Result<Report, AnalysisError> {
    let traj = Trajectory::from_actions("episode", layout.clone(), start.clone(), joint_actions.to_vec());
    analyze(&traj)
}

/// One trajectory's report as a JSON object: name, layout, steps, reward, the metrics,
/// how the trace was derived, and with `detail` every interdependence.
pub fn report_json(r: &Report, detail: bool) -> Value {
    let mut v = json!({
        "trajectory": r.trajectory,
        "layout": r.layout,
        "steps": r.steps,
        "reward": r.reward,
    });
    if let (Value::Object(o), Value::Object(m)) = (&mut v, metrics_json(r)) {
        o.extend(m);
        // Only here, not in `metrics_json`: that one is embedded in `play --json` lines and
        // transcripts, whose bytes old recordings pin.
        if let Some(Value::Array(players)) = o.get_mut("players") {
            for (p, actions) in players.iter_mut().zip(r.trace.action_counts()) {
                if let Value::Object(p) = p {
                    p.insert("actions".into(), json!(actions));
                }
            }
        }
        o.insert(
            "trace".into(),
            json!({
                "actions": r.trace.actions.len(),
                "objects": r.trace.objects.len(),
                "simulated_steps": r.trace.simulated_steps,
                "diffed_steps": r.trace.diffed_steps,
                "repairs": r.trace.repairs,
            }),
        );
        if detail {
            o.insert("interdependencies".into(), json!(r.interdependencies));
            o.insert("indirect".into(), json!(r.indirect));
        }
    }
    v
}

/// Mean, median, min and max of a list of values.
#[derive(Clone, Copy, PartialEq, Debug, Serialize)]
pub struct Distribution {
    /// Number of values.
    pub n: usize,
    /// Arithmetic mean.
    pub mean: f64,
    /// Median (mean of the two middle values for an even count).
    pub median: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

impl Distribution {
    /// The distribution of `values`; `None` when there are none.
    pub fn of(values: &[f64]) -> Option<Distribution> {
        if values.is_empty() {
            return None;
        }
        let mut v = values.to_vec();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
        Some(Distribution { n, mean: v.iter().sum::<f64>() / n as f64, median, min: v[0], max: v[n - 1] })
    }
}

/// Per-layout distributions over trajectories.
#[derive(Clone, Debug, Serialize)]
pub struct LayoutSummary {
    /// The layout's name.
    pub layout: String,
    /// Number of trajectories played on it.
    pub trajectories: usize,
    /// Trajectories without a delivery (left out of the per-soup distributions).
    pub without_delivery: usize,
    /// Soups served over all its trajectories.
    pub deliveries: usize,
    /// Constructive direct interdependencies over all its trajectories.
    pub constructive: u64,
    /// Non-constructive direct interdependencies over all its trajectories.
    pub non_constructive: u64,
    /// Per trajectory with a delivery: constructive interdependencies per soup.
    pub constructive_per_soup: Option<Distribution>,
    /// Per trajectory with a delivery: non-constructive interdependencies per soup.
    pub non_constructive_per_soup: Option<Distribution>,
    /// Share of each trajectory's triggers (both players) that were accepted.
    pub accepted_share: Option<Distribution>,
    /// Constructive indirect links through a shared pot, per soup (not in the constructive counts).
    pub pot_links_per_soup: Option<Distribution>,
}

/// Groups reports by layout (in order of first appearance).
pub fn summarize(reports: &[Report]) -> Vec<LayoutSummary> {
    let mut order: Vec<&str> = Vec::new();
    for r in reports {
        if !order.contains(&r.layout.as_str()) {
            order.push(&r.layout);
        }
    }
    order
        .into_iter()
        .map(|layout| {
            let rs: Vec<&Report> = reports.iter().filter(|r| r.layout == layout).collect();
            let per_soup: Vec<f64> = rs.iter().filter_map(|r| r.constructive_per_soup()).collect();
            let non_per_soup: Vec<f64> = rs.iter().filter_map(|r| r.non_constructive_per_soup()).collect();
            let pot_per_soup: Vec<f64> = rs
                .iter()
                .filter(|r| r.deliveries > 0)
                .map(|r| r.pot_links.constructive as f64 / r.deliveries as f64)
                .collect();
            let shares: Vec<f64> = rs
                .iter()
                .filter_map(|r| {
                    let trig: u32 = r.players.iter().map(|p| p.triggered).sum();
                    let acc: u32 = r.players.iter().map(|p| p.accepted).sum();
                    (trig > 0).then(|| acc as f64 / trig as f64)
                })
                .collect();
            LayoutSummary {
                layout: layout.to_string(),
                trajectories: rs.len(),
                without_delivery: rs.iter().filter(|r| r.deliveries == 0).count(),
                deliveries: rs.iter().map(|r| r.deliveries).sum(),
                constructive: rs.iter().map(|r| r.constructive as u64).sum(),
                non_constructive: rs.iter().map(|r| r.non_constructive as u64).sum(),
                constructive_per_soup: Distribution::of(&per_soup),
                non_constructive_per_soup: Distribution::of(&non_per_soup),
                accepted_share: Distribution::of(&shares),
                pot_links_per_soup: Distribution::of(&pot_per_soup),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests;
