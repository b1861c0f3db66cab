//! The planner's prompt: what it asks for ([`PromptLevel`], the paper's three levels) and
//! the messages it sends, rendered from a game's templates: the belief block
//! ([`belief_block`]), the scene with the recent memory ([`scene_message`]) and the
//! re-plan suffix after a rejected plan ([`replan_message`]).
//!
//! Guarantees: the messages depend only on the templates and the values passed in (no
//! game is named here; a game's skills are written by the `text` callback it passes), so
//! a prompt is byte for byte the same for the same inputs.

use crate::belief::{BeliefMode, BeliefTracker};
use crate::memory::Memory;
use crate::prompts::{PromptError, PromptLibrary};
use crate::skill::AgentSkill;
use minijinja::{Value, context};
use serde::{Deserialize, Serialize};

/// Which reply fields the planner asks for (the paper's three prompt levels).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptLevel {
    /// Ask for an `Analysis:` field.
    pub analysis: bool,
    /// Ask for an `Intention for Player m:` field (the teammate's predicted skill).
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

/// The belief block from template folder `dir` (empty when belief correction is off or the
/// folder has no `belief.j2`): the K most recent scored predictions and the teammate's
/// last observed skill. `text` writes a skill as prompts do.
#[allow(clippy::too_many_arguments)]
pub fn belief_block<S: AgentSkill>(
    lib: &PromptLibrary,
    dir: &str,
    mode: BeliefMode,
    tracker: &BeliefTracker<S>,
    me: usize,
    mate: Option<usize>,
    k: usize,
    text: &dyn Fn(S) -> String,
) -> Result<String, PromptError> {
    let name = format!("{dir}/belief.j2");
    if mode == BeliefMode::Off || !lib.has(&name) {
        return Ok(String::new());
    }
    let records: Vec<Value> = tracker
        .resolved
        .iter()
        .skip(tracker.resolved.len().saturating_sub(k))
        .map(|r| {
            context! {
                t => r.t, predicted => text(r.predicted), real => text(r.real),
                real_t => r.real_t, correct => r.correct,
            }
        })
        .collect();
    let last = tracker.last_real.map(|(s, t)| context! { skill => text(s), t });
    let mode = if mode == BeliefMode::Replace { "replace" } else { "annotate" };
    lib.render(&name, &context! { me, mate, mode, records, last })
}

/// What the planner's user message is made of, besides the templates.
pub struct SceneParts<'a, S> {
    /// The trajectory memory (its K most recent entries are shown).
    pub memory: &'a Memory<S>,
    /// How many entries to show.
    pub k: usize,
    /// What belief correction does with the entries' real teammate skills.
    pub mode: BeliefMode,
    /// The rendered belief block ("" for none).
    pub belief: &'a str,
    /// The current scene text.
    pub scene: &'a str,
    /// This player.
    pub me: usize,
    /// Every other player, in order (the first is the one predicted).
    pub mates: &'a [usize],
    /// Which reply fields are asked for.
    pub level: PromptLevel,
}

/// The planner's user message for the current scene, from `<dir>/scene.j2`. `text` writes
/// a skill as prompts do.
pub fn scene_message<S: Copy + PartialEq>(
    lib: &PromptLibrary,
    dir: &str,
    parts: &SceneParts<'_, S>,
    text: &dyn Fn(S) -> String,
) -> Result<String, PromptError> {
    let level = parts.level;
    let mode = parts.mode;
    let entries: Vec<Value> = parts
        .memory
        .recent(parts.k)
        .map(|e| {
            // Without belief correction the stored prediction is all the planner ever sees.
            let real = if mode == BeliefMode::Off { None } else { e.real.map(text) };
            context! {
                t => e.t, scene => e.scene.clone(),
                analysis => if level.analysis { e.analysis.clone() } else { None },
                predicted => if level.intention { e.predicted.map(text) } else { None },
                real, skill => text(e.skill), outcome => e.outcome.phrase(),
            }
        })
        .collect();
    let belief_mode = match mode {
        BeliefMode::Replace => "replace",
        BeliefMode::Annotate => "annotate",
        BeliefMode::Off => "off",
    };
    lib.render(
        &format!("{dir}/scene.j2"),
        &context! {
            me => parts.me, mate => parts.mates.first().copied(), mates => parts.mates.to_vec(),
            scene => parts.scene, memory => entries, belief_mode, belief => parts.belief,
            analysis => level.analysis, intention => level.intention,
        },
    )
}

/// The re-plan suffix after a rejected plan, from `<dir>/replan.j2` (`skill` is `None`
/// when no skill could be read).
pub fn replan_message(
    lib: &PromptLibrary,
    dir: &str,
    me: usize,
    skill: Option<&str>,
    reason: &str,
    attempt: u32,
    max_replans: u32,
) -> Result<String, PromptError> {
    lib.render(&format!("{dir}/replan.j2"), &context! { me, skill, reason, attempt, max_replans })
}
