use super::common::read_text;
use anyhow::{Context, Result};
use proagent::collab::trace as collab_trace;
use proagent::env::trace::{parse_trace_file, verify};
use proagent::env_v2::trace as v2trace;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// Trace files: classic (JSON Lines, one trajectory per line), OvercookedV2
    /// (tests/fixtures/v2_traces/SCHEMA.md) or CollabCapture / CollabEscape
    /// (tests/fixtures/collab_traces/SCHEMA.md); the last two are recognised by their header line.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print a machine-readable JSON report instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(a: VerifyArgs) -> Result<ExitCode> {
    let (mut passed, mut failed, mut v2_steps, mut collab_steps) = (0usize, 0usize, 0usize, 0usize);
    let mut reports = Vec::new();
    for path in &a.files {
        let text = read_text(path)?;
        if collab_trace::is_collab_trace(&text) {
            let rollouts = collab_trace::parse(&text, &path.display().to_string())?;
            for r in rollouts {
                let policy = r.header.policy.get("kind").and_then(|k| k.as_str()).unwrap_or("?");
                let seed = r.header.policy.get("seed").map_or(String::new(), |s| format!(" seed {s}"));
                let name = format!("{}:{} {} {policy}{seed}", path.display(), r.line, r.header.scenario);
                let report = collab_trace::verify(&r);
                collab_steps += report.steps_matched;
                if report.passed {
                    passed += 1;
                    if !a.json {
                        println!(
                            "PASS {name} ({} turns, {}, {} killer picks replayed)",
                            report.steps, report.result, report.draws_replayed
                        );
                    }
                } else {
                    failed += 1;
                    if !a.json {
                        let d = report.divergence.as_ref();
                        println!(
                            "FAIL {name}: t={} field={} expected={} got={} ({} turns matched)",
                            d.and_then(|d| d.t).map_or("start".to_string(), |t| t.to_string()),
                            d.map_or("?", |d| d.field.as_str()),
                            d.map_or(String::new(), |d| d.expected.to_string()),
                            d.map_or(String::new(), |d| d.got.to_string()),
                            report.steps_matched,
                        );
                    }
                }
                reports.push(
                    json!({"file": path.display().to_string(), "line": r.line, "collab": true, "report": report}),
                );
            }
            continue;
        }
        if v2trace::is_v2_trace(&text) {
            let trajs = v2trace::parse_v2_trace_file(&text).with_context(|| format!("{}", path.display()))?;
            for traj in trajs {
                let name = format!("{}:{} v2:{} {}", path.display(), traj.line, traj.header.layout, v2_policy(&traj));
                let report = v2trace::verify(&traj);
                v2_steps += report.steps_matched;
                if report.passed {
                    passed += 1;
                    if !a.json {
                        println!(
                            "PASS {name} ({} steps, reward {}, {} correct / {} wrong deliveries, {} recipe draws replayed)",
                            report.steps,
                            report.total_reward,
                            report.correct_deliveries,
                            report.wrong_deliveries,
                            report.draws_replayed
                        );
                    }
                } else {
                    failed += 1;
                    if !a.json {
                        let d = report.divergence.as_ref();
                        println!(
                            "FAIL {name}: t={} field={} expected={} got={} ({} steps matched)",
                            d.and_then(|d| d.t).map_or("start".to_string(), |t| t.to_string()),
                            d.map_or("?", |d| d.field.as_str()),
                            d.map_or(String::new(), |d| d.expected.to_string()),
                            d.map_or(String::new(), |d| d.got.to_string()),
                            report.steps_matched,
                        );
                    }
                }
                reports
                    .push(json!({"file": path.display().to_string(), "line": traj.line, "v2": true, "report": report}));
            }
            continue;
        }
        let trajs = parse_trace_file(&text).with_context(|| format!("{}", path.display()))?;
        for (line, traj) in trajs {
            let name = format!(
                "{}:{} {} {}",
                path.display(),
                line,
                traj.layout,
                traj.policy.get("kind").and_then(|k| k.as_str()).unwrap_or("?")
            );
            let report = verify(&traj).map_err(|e| anyhow::anyhow!("{}:{line}: {e}", path.display()))?;
            if report.passed {
                passed += 1;
                if !a.json {
                    println!("PASS {name} ({} steps, reward {})", report.steps, report.total_reward);
                }
            } else {
                failed += 1;
                if !a.json {
                    let d = report.divergence.as_ref();
                    println!(
                        "FAIL {name}: t={} field={} expected={} got={}",
                        d.map_or(0, |d| d.t),
                        d.map_or("?", |d| d.field.as_str()),
                        d.map_or(String::new(), |d| d.expected.to_string()),
                        d.map_or(String::new(), |d| d.got.to_string()),
                    );
                }
            }
            reports.push(json!({"file": path.display().to_string(), "line": line, "report": report}));
        }
    }
    if a.json {
        println!(
            "{}",
            json!({"passed": passed, "failed": failed, "v2_steps_matched": v2_steps, "collab_turns_matched": collab_steps, "trajectories": reports})
        );
    } else {
        let mut extra = Vec::new();
        if v2_steps > 0 {
            extra.push(format!("{v2_steps} V2 steps matched"));
        }
        if collab_steps > 0 {
            extra.push(format!("{collab_steps} collab turns matched"));
        }
        let extra = if extra.is_empty() { String::new() } else { format!(" ({})", extra.join(", ")) };
        println!("{passed} passed, {failed} failed{extra}");
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn v2_policy(traj: &v2trace::V2Trajectory) -> String {
    traj.header.policy.get("kind").and_then(|k| k.as_str()).unwrap_or("?").to_string()
}
