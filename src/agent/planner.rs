//! The planner: renders the prompt (knowledge + recent-K memory + belief block +
//! scene) and parses the model's reply into analysis, intention and plan.
//!
//! Replies are untrusted text. The parser strips `<think>` blocks, markdown,
//! code fences and quotes, accepts every skill spelling the skills parser
//! accepts, and takes the first skill when several are given. A reply that
//! yields no skill is a [`ReplyParseError`] that keeps the raw text; it is
//! never turned into a wait.

use crate::agent::align::SceneInfo;
use crate::agent::belief::{BeliefMode, BeliefTracker};
use crate::agent::memory::Memory;
use crate::agent::prompts::{PromptError, PromptLibrary};
use crate::env::Layout;
use crate::skills::Skill;
use minijinja::{Value, context};
use serde::{Deserialize, Serialize};

/// Which reply fields the planner asks for (the paper's three prompt levels).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptLevel {
    /// Ask for an "Analysis" of the scene before the plan.
    pub analysis: bool,
    /// Ask for the teammate's "Intention" (the prediction belief correction scores).
    pub intention: bool,
}

impl PromptLevel {
    /// "l1-p", "l2-ap", "l3-aip" in the original's naming (intention without analysis is "l2-ip").
    pub fn name(&self) -> &'static str {
        match (self.analysis, self.intention) {
            (false, false) => "l1-p",
            (true, false) => "l2-ap",
            (false, true) => "l2-ip",
            (true, true) => "l3-aip",
        }
    }
}

/// The knowledge library's variables for one layout and seat; the per-layout parts
/// (task, rules, strategy, demos, explainer notes) resolve in the template folder `dir`.
#[allow(clippy::too_many_arguments)]
pub fn knowledge_context(
    lib: &PromptLibrary,
    dir: &str,
    layout: &Layout,
    info: &SceneInfo,
    me: usize,
    horizon: u32,
    level: PromptLevel,
    wait_interrupt: bool,
) -> Value {
    let mate = 1 - me;
    let (my_can, my_cannot) = crate::agent::align::reach_lines(info, me);
    let (mate_can, mate_cannot) = crate::agent::align::reach_lines(info, mate);
    let rules = &layout.rules;
    let recipe = crate::env::Ingredient::Onion;
    let full = vec![recipe; rules.num_items];
    context! {
        me, mate,
        layout => layout.name.clone(),
        task_template => lib.resolve_in(dir, "task", &layout.name, me),
        rules_template => lib.resolve_in(dir, "rules", &layout.name, me),
        demos_template => lib.resolve_in(dir, "demos", &layout.name, me),
        strategy_template => lib.resolve_in(dir, "strategy", &layout.name, me),
        explainer_template => lib.resolve_in(dir, "explainer", &layout.name, me),
        my_can, my_cannot, mate_can, mate_cannot,
        num_items => rules.num_items,
        num_pots => layout.pots.len(),
        cook_time => rules.cook_time_for(&full),
        soup_value => rules.recipe_value(rules.num_items, 0),
        horizon,
        analysis => level.analysis,
        intention => level.intention,
        wait_interrupt,
    }
}

/// The planner's system message (the persistent knowledge) from folder `dir`.
pub fn system_message(lib: &PromptLibrary, dir: &str, knowledge: &Value) -> Result<String, PromptError> {
    lib.render(&format!("{dir}/system.j2"), knowledge)
}

/// The belief block: recent scored predictions and the teammate's last observed skill.
pub fn belief_block(
    lib: &PromptLibrary,
    mode: BeliefMode,
    tracker: &BeliefTracker,
    me: usize,
    k: usize,
) -> Result<String, PromptError> {
    if mode == BeliefMode::Off {
        return Ok(String::new());
    }
    let records: Vec<Value> = tracker
        .resolved
        .iter()
        .skip(tracker.resolved.len().saturating_sub(k))
        .map(|r| {
            context! {
                t => r.t, predicted => r.predicted.to_string(), real => r.real.to_string(),
                real_t => r.real_t, correct => r.correct,
            }
        })
        .collect();
    let last = tracker.last_real.map(|(s, t)| context! { skill => s.to_string(), t });
    let mode = if mode == BeliefMode::Replace { "replace" } else { "annotate" };
    lib.render("agent/belief.j2", &context! { me, mate => 1 - me, mode, records, last })
}

/// The planner's user message for the current scene.
#[allow(clippy::too_many_arguments)]
pub fn scene_message(
    lib: &PromptLibrary,
    memory: &Memory,
    k: usize,
    mode: BeliefMode,
    belief: &str,
    scene: &str,
    me: usize,
    level: PromptLevel,
) -> Result<String, PromptError> {
    let entries: Vec<Value> = memory
        .recent(k)
        .map(|e| {
            // Without belief correction the stored prediction is all the planner ever sees.
            let real = if mode == BeliefMode::Off { None } else { e.real.map(|s| s.to_string()) };
            context! {
                t => e.t, scene => e.scene.clone(),
                analysis => if level.analysis { e.analysis.clone() } else { None },
                predicted => if level.intention { e.predicted.map(|s| s.to_string()) } else { None },
                real, skill => e.skill.to_string(), outcome => e.outcome.phrase(),
            }
        })
        .collect();
    let belief_mode = match mode {
        BeliefMode::Replace => "replace",
        BeliefMode::Annotate => "annotate",
        BeliefMode::Off => "off",
    };
    lib.render(
        "agent/scene.j2",
        &context! {
            me, mate => 1 - me, scene, memory => entries, belief_mode, belief,
            analysis => level.analysis, intention => level.intention,
        },
    )
}

/// The re-plan suffix after a rejected plan (`skill` is `None` when no skill could be read).
pub fn replan_message(
    lib: &PromptLibrary,
    me: usize,
    skill: Option<&str>,
    reason: &str,
    attempt: u32,
    max_replans: u32,
) -> Result<String, PromptError> {
    lib.render("agent/replan.j2", &context! { me, skill, reason, attempt, max_replans })
}

/// A planner reply, parsed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanReply {
    /// The "Analysis" section, whitespace-collapsed; `None` when missing or empty.
    pub analysis: Option<String>,
    /// The teammate's predicted skill from the "Intention" field, when it named one.
    pub intention: Option<Skill>,
    /// Why the intention field could not be read, when it was present but unreadable.
    pub intention_error: Option<String>,
    /// This player's skill: the first one in the "Plan for Player k" field, or a bare skill line.
    pub plan: Skill,
}

/// A reply that yields no plan. `raw` is the reply as received.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error, Serialize, Deserialize)]
#[error("{reason}")]
pub struct ReplyParseError {
    /// The reply text exactly as the model sent it, before cleaning.
    pub raw: String,
    /// Why no plan could be read (one sentence, shown to the planner when it re-plans).
    pub reason: String,
}

/// Removes reasoning blocks, code fences, markdown emphasis and heading marks.
pub fn clean_reply(text: &str) -> String {
    let mut s = text.to_string();
    // Reasoning models: <think>...</think> (also <thinking>); an unclosed block runs to the end,
    // a lone closing tag means the opening one was part of the chat template.
    for (open, close) in [("<think>", "</think>"), ("<thinking>", "</thinking>")] {
        loop {
            let lower = s.to_ascii_lowercase();
            match (lower.find(open), lower.find(close)) {
                (Some(a), Some(b)) if a < b => s.replace_range(a..b + close.len(), ""),
                (Some(a), _) => s.truncate(a),
                (None, Some(b)) => s.replace_range(..b + close.len(), ""),
                (None, None) => break,
            }
        }
    }
    let mut out = String::with_capacity(s.len());
    for line in s.lines() {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            // The fence goes, its content stays.
            continue;
        }
        let t = t.trim_start_matches(['#', '>']).trim_start();
        let t = t.strip_prefix("- ").unwrap_or(t);
        let cleaned: String = t.chars().filter(|&c| c != '*' && c != '`').collect();
        out.push_str(cleaned.trim());
        out.push('\n');
    }
    out
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum FieldKind {
    Analysis,
    Intention,
    Plan,
}

/// A field header found in the cleaned text.
#[derive(Copy, Clone, Debug)]
struct Field {
    kind: FieldKind,
    player: Option<usize>,
    start: usize,
    content: usize,
}

/// Reads an optional "player k" / "<Player k>" / "player_k" after a header word; returns (player, end).
fn read_player(lower: &[u8], mut i: usize) -> (Option<usize>, usize) {
    let skip_ws = |i: &mut usize| {
        while *i < lower.len() && (lower[*i] == b' ' || lower[*i] == b'\t') {
            *i += 1;
        }
    };
    skip_ws(&mut i);
    let save = i;
    if lower[i..].starts_with(b"for") {
        i += 3;
        skip_ws(&mut i);
    }
    if i < lower.len() && lower[i] == b'<' {
        i += 1;
    }
    if lower[i..].starts_with(b"player") {
        i += 6;
        while i < lower.len() && matches!(lower[i], b' ' | b'_' | b'-') {
            i += 1;
        }
        let d0 = i;
        while i < lower.len() && lower[i].is_ascii_digit() {
            i += 1;
        }
        let player = std::str::from_utf8(&lower[d0..i]).ok().and_then(|d| d.parse().ok());
        if i < lower.len() && lower[i] == b'>' {
            i += 1;
        }
        if player.is_some() {
            return (player, i);
        }
    }
    (None, save)
}

fn find_fields(clean: &str) -> Vec<Field> {
    let lower = clean.to_ascii_lowercase();
    let b = lower.as_bytes();
    let mut fields = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let at_word_start = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        let kind = if !at_word_start {
            None
        } else if b[i..].starts_with(b"analysis") {
            Some((FieldKind::Analysis, 8))
        } else if b[i..].starts_with(b"intention") {
            Some((FieldKind::Intention, 9))
        } else if b[i..].starts_with(b"plan") {
            Some((FieldKind::Plan, 4))
        } else {
            None
        };
        if let Some((kind, len)) = kind {
            let (player, mut j) = read_player(b, i + len);
            while j < b.len() && (b[j] == b' ' || b[j] == b'\t') {
                j += 1;
            }
            if j < b.len() && b[j] == b':' {
                fields.push(Field { kind, player, start: i, content: j + 1 });
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    fields
}

/// Parses a planner reply for player `me` (whose teammate is `1 - me`).
pub fn parse_reply(raw: &str, me: usize) -> Result<PlanReply, ReplyParseError> {
    let clean = clean_reply(raw);
    let fields = find_fields(&clean);
    let section = |k: usize| {
        let end = fields.get(k + 1).map_or(clean.len(), |f| f.start);
        clean[fields[k].content..end].trim()
    };
    let err = |reason: String| ReplyParseError { raw: raw.to_string(), reason };
    let mate = 1 - me;
    let mut analysis = None;
    let mut intention = None;
    let mut intention_error = None;
    let mut plan_text = None;
    for (k, f) in fields.iter().enumerate() {
        match f.kind {
            FieldKind::Analysis if analysis.is_none() => analysis = Some(section(k).to_string()),
            FieldKind::Intention if intention.is_none() && intention_error.is_none() => {
                if f.player.is_none_or(|p| p == mate) {
                    match Skill::find_first(section(k)) {
                        Ok(s) => intention = Some(s),
                        Err(e) => intention_error = Some(e.reason),
                    }
                }
            }
            FieldKind::Plan if plan_text.is_none() && f.player.is_none_or(|p| p == me) => {
                plan_text = Some(section(k));
            }
            _ => {}
        }
    }
    let plan = match plan_text {
        Some(t) => Skill::find_first(t).map_err(|e| {
            err(if e.reason == "no skill found" {
                format!("the 'Plan for Player {me}:' field names no allowed skill")
            } else {
                format!("the 'Plan for Player {me}:' field: {}", e.reason)
            })
        })?,
        None => {
            // No plan field: accept only a line that is a skill and nothing else (a bare reply
            // such as `pickup(onion)`), never a skill mentioned in the analysis or intention.
            let outside: Vec<&str> =
                if fields.is_empty() { clean.lines().collect() } else { clean[..fields[0].start].lines().collect() };
            outside
                .iter()
                .find_map(|l| Skill::parse(l).ok())
                .ok_or_else(|| err(format!("the reply has no 'Plan for Player {me}:' field")))?
        }
    };
    let analysis = analysis.filter(|a| !a.is_empty()).map(|a| a.split_whitespace().collect::<Vec<_>>().join(" "));
    Ok(PlanReply { analysis, intention, intention_error, plan })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Skill::*;

    #[test]
    fn messy_replies() {
        let table: &[(&str, Result<Skill, &str>)] = &[
            (
                "Analysis: pot empty.\nIntention for Player 1: \"pickup(onion)\".\nPlan for Player 0: \"pickup(onion)\".",
                Ok(PickupOnion),
            ),
            ("<think>Maybe pickup(dish)? No.</think>\nPlan for Player 0: put_onion_in_pot()", Ok(PutOnionInPot)),
            (
                "<THINK>long thoughts\nPlan for Player 0: deliver_soup()</THINK>Plan for Player 0: pickup(dish)",
                Ok(PickupDish),
            ),
            ("thinking about it...</think>\nPlan for Player 0: wait(3)", Ok(Wait(3))),
            (
                "<think>I was cut off before answering. Plan for Player 0: pickup(onion)",
                Err("no 'Plan for Player 0:' field"),
            ),
            (
                "**Analysis:** the soup is ready.\n**Intention for Player 1:** *pickup(onion)*\n**Plan for Player 0:** **fill_dish_with_soup()**",
                Ok(FillDishWithSoup),
            ),
            ("analysis: ok\nplan for player 0: pick up dish", Ok(PickupDish)),
            ("PLAN FOR PLAYER 0: DELIVER_SOUP()", Ok(DeliverSoup)),
            ("```\nAnalysis: x\nPlan for Player 0: \"place_obj_on_counter()\"\n```", Ok(PlaceObjOnCounter)),
            ("Plan for Player 0: I think the best is to deliver the soup now, i.e. deliver_soup().", Ok(DeliverSoup)),
            ("Plan for Player 0: \"wait(20)\" or \"pickup(dish)\".", Ok(Wait(20))),
            ("Plan for Player 0: \"deliver_soup(), pickup(onion)\".", Ok(DeliverSoup)),
            ("Plan for <Player 0>: 'pickup(onion)'", Ok(PickupOnion)),
            ("### Plan for Player 0:\npickup(onion)", Ok(PickupOnion)),
            ("Plan for Player 0:\n\n  put_onion_in_pot()\n", Ok(PutOnionInPot)),
            (
                "Intention for Player 1: pickup(onion)\nPlan for Player 1: pickup(dish)\nPlan for Player 0: pickup(onion)",
                Ok(PickupOnion),
            ),
            ("pickup(onion)", Ok(PickupOnion)),
            ("\"fill_dish_with_soup()\"", Ok(FillDishWithSoup)),
            ("Plan for Player 0: wait(50)", Err("0 < n <= 20")),
            ("Plan for Player 0: cook the soup", Err("names no allowed skill")),
            (
                "Analysis: Player 1 should pickup(onion) and I should deliver_soup().",
                Err("no 'Plan for Player 0:' field"),
            ),
            ("I think we should coordinate better.", Err("no 'Plan for Player 0:' field")),
            ("", Err("no 'Plan for Player 0:' field")),
            ("Intention for Player 1: \"put_onion_in_pot()\"", Err("no 'Plan for Player 0:' field")),
        ];
        for (text, want) in table {
            match (parse_reply(text, 0), want) {
                (Ok(r), Ok(s)) => assert_eq!(r.plan, *s, "{text:?}"),
                (Err(e), Err(frag)) => {
                    assert!(e.reason.contains(frag), "{text:?}: {}", e.reason);
                    assert_eq!(e.raw, *text);
                }
                (got, want) => panic!("{text:?}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn fields_and_seat_one() {
        let r = parse_reply(
            "Analysis: The pot has 2 onions.\n  Player 0 holds one.\nIntention for Player 0: \"put_onion_in_pot()\".\nPlan for Player 1: \"pickup(dish)\".",
            1,
        )
        .unwrap();
        assert_eq!(r.analysis.as_deref(), Some("The pot has 2 onions. Player 0 holds one."));
        assert_eq!(r.intention, Some(PutOnionInPot));
        assert_eq!(r.plan, PickupDish);
        let r = parse_reply("Intention for Player 0: who knows\nPlan for Player 1: wait(2)", 1).unwrap();
        assert_eq!(r.intention, None);
        assert!(r.intention_error.is_some());
        // "Plan for Player 0" is not seat 1's plan.
        assert!(parse_reply("Plan for Player 0: pickup(onion)", 1).is_err());
        // A field-like word inside a sentence is not a header.
        let r = parse_reply("Analysis: my plan is simple.\nPlan for Player 0: pickup(dish)", 0).unwrap();
        assert_eq!(r.plan, PickupDish);
    }
}
