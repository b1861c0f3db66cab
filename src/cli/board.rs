//! The ASCII board of `play --render` and `show`: any game's board with a side panel
//! (score, each seat's name, current skill and plan), a legend, and an optional delay
//! between frames.

use proagent::env::render::beside;
use proagent::seat::SeatStatus;
use std::io::Write;
use std::time::Duration;

/// Longest text kept of an analysis in the panel.
const ANALYSIS_CHARS: usize = 70;

/// Longest `--render-delay-ms`.
pub const MAX_DELAY_MS: u64 = 60_000;

/// One seat as the panel shows it.
pub struct SeatLine<'a> {
    /// The seat's name (e.g. `proagent[gpt-4o]`).
    pub name: &'a str,
    /// What it is doing.
    pub status: SeatStatus,
}

/// The side panel: score and LLM calls, then per player its name, skill and plan.
pub fn panel(score: i64, llm_calls: Option<u64>, seats: &[SeatLine<'_>]) -> Vec<String> {
    let mut lines = vec![match llm_calls {
        Some(n) => format!("score {score} · LLM calls {n}"),
        None => format!("score {score}"),
    }];
    for (i, s) in seats.iter().enumerate() {
        lines.push(format!("P{i} {}", s.name));
        if let Some(skill) = &s.status.skill {
            lines.push(format!("   skill: {skill}"));
        }
        if let Some(int) = &s.status.intention {
            match seats.len() {
                2 => lines.push(format!("   expects P{}: {int}", 1 - i)),
                _ => lines.push(format!("   expects: {int}")),
            }
        }
        if let Some(a) = &s.status.analysis {
            let mut short: String = a.chars().take(ANALYSIS_CHARS).collect();
            if a.chars().count() > ANALYSIS_CHARS {
                short.push('…');
            }
            lines.push(format!("   analysis: {short}"));
        }
    }
    lines
}

/// Prints one frame on stdout: `header` lines, then `board` with the panel beside it;
/// then waits `delay`. A closed pipe (e.g. `| head`) is not an error for a board printout.
pub fn print_frame(board: &str, header: &str, panel: &[String], delay: Option<Duration>) {
    let mut text = String::from(header);
    text.push_str(&beside(board, panel));
    let _ = writeln!(std::io::stdout().lock(), "{text}");
    if let Some(d) = delay {
        std::thread::sleep(d);
    }
}

/// Prints a legend once, before the first frame.
pub fn print_legend(legend: &str) {
    let _ = writeln!(std::io::stdout().lock(), "{legend}\n");
}

/// `--render-delay-ms`, checked.
pub fn delay(ms: Option<u64>) -> anyhow::Result<Option<Duration>> {
    match ms {
        Some(ms) if ms > MAX_DELAY_MS => anyhow::bail!("--render-delay-ms must be at most {MAX_DELAY_MS}, got {ms}"),
        Some(ms) => Ok(Some(Duration::from_millis(ms))),
        None => Ok(None),
    }
}
