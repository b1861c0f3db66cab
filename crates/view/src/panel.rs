//! The side panel printed beside a game's text board (`play --render`, `show`): the score
//! and model calls, then per seat its name, current skill, what it expects of its partner
//! and its analysis (cut to a fixed length). Pure: lines of text, printed by the caller.

use proagent_core::seat::SeatStatus;

/// Longest text kept of an analysis in the panel.
const ANALYSIS_CHARS: usize = 70;

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
