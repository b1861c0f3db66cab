//! Validator and verificator.
//!
//! The validator checks a planned skill's preconditions (a grounding's
//! [`crate::grounding::Grounding::check`]: on classic Overcooked the true state, on
//! OvercookedV2 what the player knows). When it fails, the verificator explains why, so
//! the planner can re-plan with that reason:
//! - `llm`: the model checks each precondition step by step, then double-checks
//!   and names the failed condition (the two rounds of the paper's Figure 4);
//! - `rules`: the precondition reason sentences, without a model call;
//! - `off`: no explanation, only that the skill was rejected.
//!
//! The double-check reply is read by [`read_failed_condition`]: the last
//! `Failed condition` line (bold, dashed, plural, in JSON, or with the name
//! straight after the label) outside `<think>` blocks, else a sentence such as
//! "the failed condition is holding_dish". It yields the condition's name — a
//! known precondition name even when written with spaces or dashes, else the
//! snake_case name the line leads with, as written — and the line as the reason
//! for the re-planner. "none", "N/A", "all conditions are satisfied" name none.
//! `tests/reply_corpus.rs` holds it to a corpus of model-style replies.

use crate::grounding::Unmet;
use crate::prompts::{PromptError, PromptLibrary};
use minijinja::{Value, context};
use serde::{Deserialize, Serialize};

/// How a rejected plan is explained to the planner.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerificatorMode {
    /// Two model rounds: check each precondition, then double-check and name the failed one.
    #[default]
    Llm,
    /// The precondition reason sentences, without a model call.
    Rules,
    /// Only that the game rejected the skill.
    Off,
}

impl std::str::FromStr for VerificatorMode {
    type Err = crate::names::UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "llm" => Ok(VerificatorMode::Llm),
            "rules" => Ok(VerificatorMode::Rules),
            "off" | "none" => Ok(VerificatorMode::Off),
            _ => Err(crate::names::UnknownName::new("verificator", s, "llm, rules or off")),
        }
    }
}

/// The reason the `rules` verificator gives: the failed preconditions' sentences.
pub fn rules_reason(failed: &[Unmet]) -> String {
    failed.iter().map(|f| f.reason.as_str()).collect::<Vec<_>>().join(" ")
}

/// The reason the `off` verificator gives (`skill` as prompts write it).
pub fn off_reason(skill: &str) -> String {
    format!("the game rejected {skill}.")
}

/// The verificator's system message, from `<dir>/verify_system.j2`.
pub fn system_message(lib: &PromptLibrary, dir: &str, knowledge: &Value) -> Result<String, PromptError> {
    lib.render(&format!("{dir}/verify_system.j2"), knowledge)
}

/// Round one: check each precondition step by step (`<dir>/verify_check.j2`). `conditions`
/// are the skill's preconditions as (name, sentence), for templates that list them.
pub fn check_message(
    lib: &PromptLibrary,
    dir: &str,
    me: usize,
    scene: &str,
    skill: &str,
    conditions: &[(String, String)],
) -> Result<String, PromptError> {
    let conditions: Vec<Value> = conditions.iter().map(|(name, text)| context! { name, text }).collect();
    lib.render(&format!("{dir}/verify_check.j2"), &context! { me, scene, skill, conditions })
}

/// Round two: double-check and name the failed condition (`<dir>/verify_double.j2`).
pub fn double_check_message(lib: &PromptLibrary, dir: &str, me: usize, skill: &str) -> Result<String, PromptError> {
    lib.render(&format!("{dir}/verify_double.j2"), &context! { me, skill })
}

/// The names of the preconditions (see `prompts/agent/verify_check.j2` and
/// [`proagent_overcooked::skills::check_preconditions`]).
pub const CONDITION_NAMES: [&str; 13] = [
    "hand_empty",
    "onion_reachable",
    "dish_reachable",
    "holding_onion",
    "pot_reachable",
    "pot_not_full",
    "holding_object",
    "empty_counter",
    "holding_dish",
    "soup_cooking_or_ready",
    "holding_soup",
    "serving_reachable",
    "wait_range",
];

/// The failed condition a double-check reply states.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FailedConditionReply {
    /// The condition's name: one of [`CONDITION_NAMES`] when the reply names one (also
    /// written with spaces or dashes), else a snake_case name the reply leads with, as
    /// written (`soup_cooking`); `None` when the reply only describes the failure.
    pub condition: Option<String>,
    /// The failed-condition line without its label: the reason handed to the re-planner.
    pub text: String,
}

/// Labels that introduce the failed condition ("Failed condition:", "failed preconditions -").
const FAILED_WORDS: [&str; 5] = ["failed", "failing", "unsatisfied", "unmet", "violated"];

/// Replies that say no condition fails.
const NOTHING_FAILS: [&str; 14] = [
    "none",
    "no condition",
    "no failed",
    "no precondition",
    "no unsatisfied",
    "nothing",
    "n/a",
    "na",
    "all conditions",
    "all preconditions",
    "all of them are satisfied",
    "every condition",
    "every precondition",
    "there is no",
];

/// A "failed condition" label at `i` in the normalised text; returns where its content starts.
/// `strong` labels begin a line and may go without a separator ("Failed condition soup_cooking").
fn condition_label(b: &[u8], i: usize, strong: bool) -> Option<usize> {
    let word_end = |j: usize| {
        let mut k = j;
        while k < b.len() && b[k].is_ascii_lowercase() {
            k += 1;
        }
        k
    };
    let w1 = word_end(i);
    if !FAILED_WORDS.iter().any(|w| w.as_bytes() == &b[i..w1]) {
        return None;
    }
    let mut j = w1;
    while j < b.len() && b[j] == b' ' {
        j += 1;
    }
    let w2 = word_end(j);
    let word = &b[j..w2];
    let known = [&b"condition"[..], b"conditions", b"precondition", b"preconditions"];
    if !known.contains(&word) {
        return None;
    }
    let mut j = w2;
    if b[j..].starts_with(b"(s)") {
        j += 3;
    }
    while j < b.len() && matches!(b[j], b' ' | b'"' | b'\'' | b')' | b']') {
        j += 1;
    }
    for sep in
        [":".as_bytes(), "：".as_bytes(), "->".as_bytes(), "→".as_bytes(), "—".as_bytes(), "–".as_bytes(), b"-", b"="]
    {
        if b[j..].starts_with(sep) {
            return Some(j + sep.len());
        }
    }
    for verb in ["is ", "was ", "would be ", "here is "] {
        if b[j..].starts_with(verb.as_bytes()) {
            return Some(j + verb.len());
        }
    }
    // "Failed condition soup_cooking": a line-start label, then directly a name.
    (strong && j > w2 && j < b.len() && b[j].is_ascii_alphabetic()).then_some(j)
}

/// The first name of [`CONDITION_NAMES`] in `text`, also written with spaces or dashes.
fn known_condition(text: &str) -> Option<&'static str> {
    let norm: Vec<u8> =
        text.bytes().map(|c| if matches!(c, b' ' | b'-') { b'_' } else { c.to_ascii_lowercase() }).collect();
    let bound = |i: usize| i >= norm.len() || !norm[i].is_ascii_alphanumeric();
    (0..norm.len()).filter(|&i| i == 0 || !norm[i - 1].is_ascii_alphanumeric()).find_map(|i| {
        CONDITION_NAMES
            .iter()
            .filter(|n| norm[i..].starts_with(n.as_bytes()) && bound(i + n.len()))
            .max_by_key(|n| n.len())
            .copied()
    })
}

/// Reads the failed condition a double-check reply names ("Failed condition: <name>: <why>").
/// `None` when the reply names none, says none fails, or gives no failed-condition line.
///
/// The label is read at a line start (also as `**Failed condition**`, `Failed
/// precondition -`, `failed_condition` in JSON, or without a separator before the
/// name); failing that, inside a sentence when `:` or `is` follows ("the failed
/// condition is holding_dish"). The last such label wins, as a model may revise
/// itself; `<think>` blocks are ignored. A reply that is nothing but a condition
/// name is read as that name.
pub fn read_failed_condition(reply: &str) -> Option<FailedConditionReply> {
    // A JSON answer ({"failed_condition": "hand_empty", "reason": "..."}) is read key by key.
    let answer = crate::planner::answer_part(reply);
    if let Some(lines) = crate::planner::json_as_lines(&answer) {
        let found = read_from_clean(&crate::planner::clean_lines(&lines), reply);
        if found.is_some() {
            return found;
        }
    }
    read_from_clean(&crate::planner::clean_lines(&answer), reply)
}

fn read_from_clean(clean: &str, reply: &str) -> Option<FailedConditionReply> {
    let norm: Vec<u8> = clean.bytes().map(|c| if c == b'_' { b' ' } else { c.to_ascii_lowercase() }).collect();
    // Where each label's content starts, line-start labels apart; the last label with
    // content wins. (Contents are read afterwards, from the last label back, so that a
    // line of many labels is not read once per label.)
    let mut strong_at = Vec::new();
    let mut inline_at = Vec::new();
    let mut at_line_start = true;
    for i in 0..norm.len() {
        if i > 0 && norm[i - 1] == b'\n' {
            at_line_start = true;
        }
        if i == 0 || !norm[i - 1].is_ascii_alphanumeric() {
            if let Some(c) = condition_label(&norm, i, at_line_start) {
                if at_line_start { strong_at.push(c) } else { inline_at.push(c) }
            }
        }
        if !matches!(norm[i], b' ' | b'"' | b'\'' | b'{' | b',' | b'(' | b'[' | b'\n') {
            at_line_start = false;
        }
    }
    let last_content = |at: &[usize]| at.iter().rev().find_map(|&c| content_after(clean, c));
    let Some(content) = last_content(&strong_at).or_else(|| last_content(&inline_at)) else {
        // A reply that is only a condition name.
        let name = clean.lines().map(str::trim).find(|l| !l.is_empty())?;
        let name = name.trim_matches(['"', '\'', '.', ' ']);
        let known = known_condition(name).filter(|k| k.len() == name.len())?;
        return Some(FailedConditionReply { condition: Some(known.to_string()), text: name.to_string() });
    };
    let lower = content.to_ascii_lowercase();
    let says_nothing = NOTHING_FAILS.iter().any(|n| {
        lower.starts_with(n) && !lower[n.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
    });
    if says_nothing {
        return None;
    }
    Some(FailedConditionReply { condition: condition_name(&content, reply), text: content })
}

/// The text after a label at byte `c`: the rest of its line, else the next non-empty line.
fn content_after(clean: &str, c: usize) -> Option<String> {
    let quotes = ['"', '\'', ' ', ','];
    let line = clean[c..].lines().map(str::trim).find(|l| !l.trim_matches(quotes).is_empty())?;
    let line = line.trim_start_matches(['"', '\'', ' ', '-', ':']).trim_end_matches(['"', '\'', ' ', ',', '}']);
    let line = line.trim_matches(['"', '\'', ' ']);
    (!line.is_empty()).then(|| line.to_string())
}

/// The condition's name in a failed-condition line.
fn condition_name(content: &str, reply: &str) -> Option<String> {
    if let Some(known) = known_condition(content) {
        return Some(known.to_string());
    }
    // Otherwise a snake_case name the line leads with ("soup_cooking"), as written.
    let lead = content.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
    let lead = lead
        .strip_prefix("Condition ")
        .or_else(|| lead.strip_prefix("condition "))
        .or_else(|| lead.strip_prefix("Precondition "))
        .unwrap_or(lead);
    let len = lead.bytes().take_while(|c| c.is_ascii_alphanumeric() || *c == b'_').count();
    let name = lead[..len].to_ascii_lowercase();
    if !name.contains('_') || name.starts_with('_') || name.ends_with('_') {
        return None;
    }
    // A name cut off mid-word with the reply ("pot_no" for pot_not_full) is not a name; one
    // that ends at a word of a known name ("soup_cooking") is the model's short form.
    let cut_off = reply.trim_end().ends_with(&lead[..len])
        && CONDITION_NAMES.iter().any(|n| n.starts_with(&name) && n.as_bytes().get(name.len()) != Some(&b'_'));
    (!cut_off).then_some(name)
}

/// The failed condition named in a double-check reply, as the line the re-planner gets
/// ("pot_not_full: the pot is cooking"); see [`read_failed_condition`].
pub fn extract_failed_condition(reply: &str) -> Option<String> {
    read_failed_condition(reply).map(|f| f.text)
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
        use proagent_overcooked::skills::Skill;
        let lib = PromptLibrary::embedded();
        for s in Skill::TASK_SKILLS.into_iter().chain([Skill::Wait(3)]) {
            let m = check_message(&lib, "agent", 1, "Scene 3: ...", &s.to_string(), &[]).unwrap();
            assert!(m.contains(&format!("Planned skill for <Player 1>: {s}.")), "{m}");
            assert!(m.contains("Condition <name>:"));
            let d = double_check_message(&lib, "agent", 1, &s.to_string()).unwrap();
            assert!(d.contains("Failed condition:"));
        }
        let m = check_message(&lib, "agent", 0, "Scene 3: ...", "put_onion_in_pot()", &[]).unwrap();
        for c in ["holding_onion", "pot_reachable", "pot_not_full"] {
            assert!(m.contains(&format!("- {c}:")), "{m}");
        }
    }
}
