//! `proagent verify-trace FILE...`: replays reference games recorded from the original
//! implementations and compares every step. The game catalog tells each file's game
//! from its content (its header line: `catalog::entry_of_trace`; any other file is a
//! classic Overcooked trajectory file); each game's own `trace` module replays it and
//! names the first field that differs.

use super::common::read_text;
use anyhow::{Context, Result};
use proagent::collab::trace as collab_trace;
use proagent::env::trace::{parse_trace_file, verify};
use proagent::env_v2::trace as v2trace;
use proagent::games::{catalog, counted};
use proagent_hanabi::trace as hanabi_trace;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// Trace files: classic Overcooked (JSON Lines, one trajectory per line), OvercookedV2
    /// (tests/fixtures/v2_traces/SCHEMA.md), Hanabi (tests/fixtures/hanabi_traces/SCHEMA.md)
    /// or CollabCapture / CollabEscape (tests/fixtures/collab_traces/SCHEMA.md); all but the
    /// first are recognised by their header line.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print a machine-readable JSON report instead of text.
    #[arg(long)]
    json: bool,
}

/// What the files checked so far came to.
#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    reports: Vec<Value>,
    /// Steps (or states) matched per game family, for the summary line, with what is
    /// counted (singular, plural).
    matched: Vec<(&'static str, (&'static str, &'static str), usize)>,
    json: bool,
}

impl Tally {
    /// Records one replayed game: PASS/FAIL line (text mode) and its JSON report.
    fn record(&mut self, ok: bool, line: String, report: Value) {
        if ok {
            self.passed += 1;
        } else {
            self.failed += 1;
        }
        if !self.json {
            println!("{} {line}", if ok { "PASS" } else { "FAIL" });
        }
        self.reports.push(report);
    }

    fn count(&mut self, key: &'static str, what: (&'static str, &'static str), n: usize) {
        match self.matched.iter_mut().find(|(k, _, _)| *k == key) {
            Some(e) => e.2 += n,
            None => self.matched.push((key, what, n)),
        }
    }
}

pub fn run(a: VerifyArgs) -> Result<ExitCode> {
    let mut t = Tally { json: a.json, ..Tally::default() };
    for path in &a.files {
        let text = read_text(path)?;
        match catalog::entry_of_trace(&text).map(|e| e.kind) {
            Some("hanabi") => hanabi(path, &text, &mut t)?,
            Some("collab_capture" | "collab_escape") => collab(path, &text, &mut t)?,
            Some("overcooked_v2") => overcooked_v2(path, &text, &mut t)?,
            _ => overcooked(path, &text, &mut t)?,
        }
    }
    if a.json {
        let mut v = json!({"passed": t.passed, "failed": t.failed, "trajectories": t.reports,
            "v2_steps_matched": 0, "hanabi_states_matched": 0, "collab_turns_matched": 0});
        for (key, _, n) in &t.matched {
            v[*key] = json!(n);
        }
        println!("{v}");
    } else {
        let extra: Vec<String> =
            t.matched.iter().map(|(_, (one, many), n)| format!("{} matched", counted(*n as u64, one, many))).collect();
        let extra = if extra.is_empty() { String::new() } else { format!(" ({})", extra.join(", ")) };
        println!("{} passed, {} failed{extra}", t.passed, t.failed);
    }
    Ok(if t.failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn hanabi(path: &Path, text: &str, t: &mut Tally) -> Result<()> {
    let games = hanabi_trace::parse_trace_file(text).with_context(|| format!("{}", path.display()))?;
    for g in games {
        let report = hanabi_trace::verify(&g).map_err(|e| anyhow::anyhow!("{}:{e}", path.display()))?;
        let name = format!("{}:{} {} {}p {}", path.display(), g.line, report.game, report.players, report.policy);
        t.count("hanabi_states_matched", ("Hanabi state", "Hanabi states"), report.states_matched);
        let line = if report.passed {
            format!(
                "{name} ({}, {} and {} matched; HLE score {}, cards played {}, {})",
                counted(report.moves as u64, "move", "moves"),
                counted(report.states_matched as u64, "state", "states"),
                counted(report.vectors_compared as u64, "observation vector", "observation vectors"),
                report.score,
                report.cards_played,
                report.status
            )
        } else {
            let d = report.divergence.as_ref();
            format!(
                "{name}: line {} t={} field={} expected={} got={} ({} matched)",
                d.map_or(0, |d| d.line),
                d.map_or(0, |d| d.t),
                d.map_or("?", |d| d.field.as_str()),
                d.map_or(String::new(), |d| d.expected.to_string()),
                d.map_or(String::new(), |d| d.got.to_string()),
                counted(report.states_matched as u64, "state", "states"),
            )
        };
        let v = json!({"file": path.display().to_string(), "line": g.line, "hanabi": true, "report": report});
        t.record(report.passed, line, v);
    }
    Ok(())
}

fn collab(path: &Path, text: &str, t: &mut Tally) -> Result<()> {
    let rollouts = collab_trace::parse(text, &path.display().to_string())?;
    for r in rollouts {
        let policy = r.header.policy.get("kind").and_then(|k| k.as_str()).unwrap_or("?");
        let seed = r.header.policy.get("seed").map_or(String::new(), |s| format!(" seed {s}"));
        let name = format!("{}:{} {} {policy}{seed}", path.display(), r.line, r.header.scenario);
        let report = collab_trace::verify(&r);
        t.count("collab_turns_matched", ("collab turn", "collab turns"), report.steps_matched);
        // The replay is always on the header's maze; say so when it is not the built-in one.
        let maze = match report.maze_differs.as_deref() {
            None => String::new(),
            Some("scenario") => format!("; the header's maze ({} is not a built-in scenario)", r.header.scenario),
            Some(f) => format!("; the header's maze, not the built-in {} ({f} differ)", r.header.scenario),
        };
        let line = if report.passed {
            format!(
                "{name} ({}, {}, {} replayed{maze})",
                counted(report.steps as u64, "turn", "turns"),
                report.result,
                counted(report.draws_replayed as u64, "killer pick", "killer picks")
            )
        } else {
            let d = report.divergence.as_ref();
            format!(
                "{name}: t={} field={} expected={} got={} ({} of {} matched{maze})",
                d.and_then(|d| d.t).map_or("start".to_string(), |t| t.to_string()),
                d.map_or("?", |d| d.field.as_str()),
                d.map_or(String::new(), |d| d.expected.to_string()),
                d.map_or(String::new(), |d| d.got.to_string()),
                report.steps_matched,
                counted(report.steps as u64, "turn", "turns"),
            )
        };
        let v = json!({"file": path.display().to_string(), "line": r.line, "collab": true, "report": report});
        t.record(report.passed, line, v);
    }
    Ok(())
}

fn overcooked_v2(path: &Path, text: &str, t: &mut Tally) -> Result<()> {
    let trajs = v2trace::parse_v2_trace_file(text).with_context(|| format!("{}", path.display()))?;
    for traj in trajs {
        let policy = traj.header.policy.get("kind").and_then(|k| k.as_str()).unwrap_or("?").to_string();
        let name = format!("{}:{} v2:{} {policy}", path.display(), traj.line, traj.header.layout);
        let report = v2trace::verify(&traj);
        t.count("v2_steps_matched", ("V2 step", "V2 steps"), report.steps_matched);
        let line = if report.passed {
            format!(
                "{name} ({}, reward {}, {} correct / {} wrong {}, {} replayed)",
                counted(report.steps as u64, "step", "steps"),
                report.total_reward,
                report.correct_deliveries,
                report.wrong_deliveries,
                if report.correct_deliveries + report.wrong_deliveries == 1 { "delivery" } else { "deliveries" },
                counted(report.draws_replayed as u64, "recipe draw", "recipe draws")
            )
        } else {
            let d = report.divergence.as_ref();
            format!(
                "{name}: t={} field={} expected={} got={} ({} matched)",
                d.and_then(|d| d.t).map_or("start".to_string(), |t| t.to_string()),
                d.map_or("?", |d| d.field.as_str()),
                d.map_or(String::new(), |d| d.expected.to_string()),
                d.map_or(String::new(), |d| d.got.to_string()),
                counted(report.steps_matched as u64, "step", "steps"),
            )
        };
        let v = json!({"file": path.display().to_string(), "line": traj.line, "v2": true, "report": report});
        t.record(report.passed, line, v);
    }
    Ok(())
}

fn overcooked(path: &Path, text: &str, t: &mut Tally) -> Result<()> {
    let trajs = parse_trace_file(text).with_context(|| format!("{}", path.display()))?;
    for (line, traj) in trajs {
        let name = format!(
            "{}:{} {} {}",
            path.display(),
            line,
            traj.layout,
            traj.policy.get("kind").and_then(|k| k.as_str()).unwrap_or("?")
        );
        let report = verify(&traj).map_err(|e| anyhow::anyhow!("{}:{line}: {e}", path.display()))?;
        let text = if report.passed {
            format!("{name} ({}, reward {})", counted(report.steps as u64, "step", "steps"), report.total_reward)
        } else {
            let d = report.divergence.as_ref();
            format!(
                "{name}: t={} field={} expected={} got={}",
                d.map_or(0, |d| d.t),
                d.map_or("?", |d| d.field.as_str()),
                d.map_or(String::new(), |d| d.expected.to_string()),
                d.map_or(String::new(), |d| d.got.to_string()),
            )
        };
        let v = json!({"file": path.display().to_string(), "line": line, "report": report});
        t.record(report.passed, text, v);
    }
    Ok(())
}
