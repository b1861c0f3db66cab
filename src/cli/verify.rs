use super::common::read_text;
use anyhow::{Context, Result};
use proagent::env::trace::{parse_trace_file, verify};
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// Trace files (JSON Lines, one trajectory per line).
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print a machine-readable JSON report instead of text.
    #[arg(long)]
    json: bool,
}

pub fn run(a: VerifyArgs) -> Result<ExitCode> {
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut reports = Vec::new();
    for path in &a.files {
        let text = read_text(path)?;
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
        println!("{}", json!({"passed": passed, "failed": failed, "trajectories": reports}));
    } else {
        println!("{passed} passed, {failed} failed");
    }
    Ok(if failed == 0 { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
