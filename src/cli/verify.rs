//! `proagent verify-trace FILE...`: replays reference games recorded from the original
//! implementations and compares every step. The game catalog tells each file's game
//! from its content and replays it (`catalog::verify_trace`: each game's own trace
//! format, any other file a classic Overcooked trajectory file); this prints the lines
//! and the summary.

use super::common::read_text;
use anyhow::Result;
use proagent::games::{catalog, counted};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    // Trace files: each game's, as the catalog lists them.
    #[arg(required = true, help = catalog::trace_help())]
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
        let (entry, checks) = catalog::verify_trace(&path.display().to_string(), &text)?;
        for c in checks {
            if let Some((key, what)) = entry.trace_tally {
                t.count(key, what, c.matched);
            }
            t.record(c.passed, c.line, c.report);
        }
    }
    if a.json {
        let mut v = json!({"passed": t.passed, "failed": t.failed, "trajectories": t.reports});
        for (key, _) in catalog::entries().iter().filter_map(|e| e.trace_tally) {
            v[key] = json!(0);
        }
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
