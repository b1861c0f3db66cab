//! Validator and verificator.
//!
//! The validator checks a planned skill's preconditions on the true state
//! ([`crate::skills::check_preconditions`]). When it fails, the verificator
//! explains why, so the planner can re-plan with that reason:
//! - `llm`: the model checks each precondition step by step, then double-checks
//!   and names the failed condition (the two rounds of the paper's Figure 4);
//! - `rules`: the precondition reason sentences, without a model call;
//! - `off`: no explanation, only that the skill was rejected.

use crate::agent::prompts::{PromptError, PromptLibrary};
use crate::skills::{FailedCondition, Skill};
use minijinja::{Value, context};
use serde::{Deserialize, Serialize};

/// How a rejected plan is explained to the planner before it re-plans.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerificatorMode {
    /// Two model rounds: check each precondition, then name the failed one (the paper's verificator).
    #[default]
    Llm,
    /// The failed preconditions' own reason sentences; no model call.
    Rules,
    /// Only `the game rejected <skill>`, no reason: the ablation without a verificator.
    Off,
}

impl std::str::FromStr for VerificatorMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "llm" => Ok(VerificatorMode::Llm),
            "rules" => Ok(VerificatorMode::Rules),
            "off" | "none" => Ok(VerificatorMode::Off),
            _ => Err(format!("unknown verificator {s:?} (expected llm, rules or off)")),
        }
    }
}

/// The reason the `rules` verificator gives: the failed preconditions' sentences.
pub fn rules_reason(failed: &[FailedCondition]) -> String {
    failed.iter().map(|f| f.reason.as_str()).collect::<Vec<_>>().join(" ")
}

/// The reason the `off` verificator gives.
pub fn off_reason(skill: Skill) -> String {
    format!("the game rejected {skill}.")
}

/// The verificator's system message.
pub fn system_message(lib: &PromptLibrary, knowledge: &Value) -> Result<String, PromptError> {
    lib.render("agent/verify_system.j2", knowledge)
}

/// Round one: check each precondition step by step.
pub fn check_message(lib: &PromptLibrary, me: usize, scene: &str, skill: Skill) -> Result<String, PromptError> {
    lib.render("agent/verify_check.j2", &context! { me, scene, skill => skill.to_string() })
}

/// Round two: double-check and name the failed condition.
pub fn double_check_message(lib: &PromptLibrary, me: usize, skill: Skill) -> Result<String, PromptError> {
    lib.render("agent/verify_double.j2", &context! { me, skill => skill.to_string() })
}

/// The failed condition named in a double-check reply (`Failed condition: <name>: <why>`).
/// `None` when the reply names none (or says "none").
pub fn extract_failed_condition(reply: &str) -> Option<String> {
    let clean = crate::agent::planner::clean_reply(reply);
    let lower = clean.to_ascii_lowercase();
    let key = "failed condition";
    let at = lower.find(key)?;
    let rest = &clean[at + key.len()..];
    let rest = rest.trim_start_matches([' ', 's', 'S']).trim_start();
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    let line = rest.lines().map(str::trim).find(|l| !l.is_empty())?;
    let line = line.trim_matches(['"', '\'', ' ']);
    let lower = line.to_ascii_lowercase();
    if line.is_empty() || lower.starts_with("none") || lower.starts_with("no condition") {
        return None;
    }
    Some(line.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extraction() {
        assert_eq!(
            extract_failed_condition(
                "Double-check: ok.\nFailed condition: hand_empty: <Player 0> holds one onion, so it cannot pick up."
            )
            .as_deref(),
            Some("hand_empty: <Player 0> holds one onion, so it cannot pick up.")
        );
        assert_eq!(
            extract_failed_condition("**Failed condition:**\n`pot_not_full`: the pot is cooking").as_deref(),
            Some("pot_not_full: the pot is cooking")
        );
        assert_eq!(extract_failed_condition("failed conditions: none"), None);
        assert_eq!(extract_failed_condition("Everything is fine."), None);
        assert_eq!(extract_failed_condition("<think>Failed condition: x</think>Failed condition: none"), None);
    }

    #[test]
    fn messages_render() {
        let lib = PromptLibrary::embedded();
        for s in Skill::TASK_SKILLS.into_iter().chain([Skill::Wait(3)]) {
            let m = check_message(&lib, 1, "Scene 3: ...", s).unwrap();
            assert!(m.contains(&format!("Planned skill for <Player 1>: {s}.")), "{m}");
            assert!(m.contains("Condition <name>:"));
            let d = double_check_message(&lib, 1, s).unwrap();
            assert!(d.contains("Failed condition:"));
        }
        let m = check_message(&lib, 0, "Scene 3: ...", Skill::PutOnionInPot).unwrap();
        for c in ["holding_onion", "pot_reachable", "pot_not_full"] {
            assert!(m.contains(&format!("- {c}:")), "{m}");
        }
    }
}
