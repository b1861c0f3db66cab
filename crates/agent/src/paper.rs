//! The pieces of the paper preset's loop that are not the step itself
//! ([`crate::ProAgent`]'s `step_paper`): its dialogue history, its messages (from the
//! grounding's paper-preset templates, `prompts/paper/` on classic Overcooked) and how it
//! reads a plan.
//!
//! Guarantees: the history holds only what the published agent keeps (scene + reply
//! when the reply does not mention "wait", the chosen skill unless it is a wait,
//! "completed" notes for finished skills, failure explanations) and hands out the
//! last K messages; [`read_plan`] always yields a skill — an unreadable reply or a
//! bare `wait` becomes `wait(1)` — and applies the layout's minimum wait. The reply
//! reader itself is the grounding's ([`crate::grounding::Grounding::read_reply`]),
//! called unchanged.

use crate::belief::{BeliefMode, BeliefTracker};
use crate::grounding::{AgentSkill, ReplyRead};
use crate::planner::{self, PlanReply};
use crate::prompts::{PromptError, PromptLibrary};
use minijinja::{Value, context};
use proagent_llm::Message;
use std::collections::VecDeque;

/// The planner's dialogue history: a bounded list of chat messages, newest last.
#[derive(Clone, Debug, Default)]
pub struct Dialogue {
    capacity: usize,
    messages: VecDeque<Message>,
}

impl Dialogue {
    /// A history that keeps the last `capacity` messages (at least one).
    pub fn new(capacity: usize) -> Dialogue {
        Dialogue { capacity: capacity.max(1), messages: VecDeque::new() }
    }

    /// Appends a message, dropping the oldest beyond the capacity.
    pub fn push(&mut self, m: Message) {
        if self.messages.len() == self.capacity {
            self.messages.pop_front();
        }
        self.messages.push_back(m);
    }

    /// The last `k` messages, oldest first.
    pub fn recent(&self, k: usize) -> impl Iterator<Item = &Message> {
        self.messages.iter().skip(self.messages.len().saturating_sub(k))
    }

    /// Messages held.
    pub fn len(&self) -> usize {
        self.messages.len()
    }

    /// Nothing recorded yet.
    pub fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }
}

/// The published agent leaves a scene and its reply out of the history when the reply
/// mentions "wait" anywhere (a plain substring test, case-sensitive, as there).
pub fn mentions_wait(reply: &str) -> bool {
    reply.contains("wait")
}

/// The planner's user message (`<dir>/scene.j2`): the belief block (empty when off), the
/// scene, and on a re-plan the request to plan again.
pub fn scene_message(
    lib: &PromptLibrary,
    dir: &str,
    me: usize,
    belief: &str,
    scene: &str,
    replan: bool,
    analysis: bool,
) -> Result<String, PromptError> {
    lib.render(&format!("{dir}/scene.j2"), &context! { me, belief, scene, replan, analysis })
}

/// The published agent revises beliefs only at the intention-asking prompt level: with
/// `intention` on and `mode` not off, what the teammate really did after each kept
/// prediction (`<dir>/belief.j2`); else the empty string. `text` writes a skill.
#[allow(clippy::too_many_arguments)]
pub fn belief_message<S: AgentSkill>(
    lib: &PromptLibrary,
    dir: &str,
    mode: BeliefMode,
    intention: bool,
    tracker: &BeliefTracker<S>,
    me: usize,
    mate: Option<usize>,
    text: &dyn Fn(S) -> String,
) -> Result<String, PromptError> {
    if !intention || mode == BeliefMode::Off || tracker.resolved.is_empty() {
        return Ok(String::new());
    }
    let records: Vec<Value> = tracker
        .resolved
        .iter()
        .map(|r| {
            context! {
                t => r.t, predicted => text(r.predicted), real => text(r.real),
                real_t => r.real_t, correct => r.correct,
            }
        })
        .collect();
    let mode = if mode == BeliefMode::Replace { "replace" } else { "annotate" };
    lib.render(&format!("{dir}/belief.j2"), &context! { me, mate, mode, records })
}

/// The history note recorded when a skill other than a wait has been carried out
/// (`<dir>/success.j2`; `skill` as prompts write it).
pub fn success_message(lib: &PromptLibrary, dir: &str, me: usize, skill: &str) -> Result<String, PromptError> {
    lib.render(&format!("{dir}/success.j2"), &context! { me, skill })
}

/// The explainer's system message (`<dir>/explain_system.j2`: preconditions of every
/// skill, the layout's explainer notes).
pub fn explainer_system(lib: &PromptLibrary, dir: &str, knowledge: &Value) -> Result<String, PromptError> {
    lib.render(&format!("{dir}/explain_system.j2"), knowledge)
}

/// The explainer's user message (`<dir>/explain.j2`): the current scene and the skill that
/// failed.
pub fn explain_message(
    lib: &PromptLibrary,
    dir: &str,
    me: usize,
    scene: &str,
    skill: &str,
) -> Result<String, PromptError> {
    lib.render(&format!("{dir}/explain.j2"), &context! { me, scene, skill })
}

/// Where a paper-preset plan came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlanSource {
    /// The reply parser read it.
    Parsed,
    /// The plan was `wait` without a usable number (`wait`, `wait()`, `wait(x)`): `wait(1)`.
    BareWait,
    /// No plan could be read; the agent waits one step without telling the model. The
    /// parser's reason is kept for the transcript.
    Unreadable(String),
}

/// A plan read the paper preset's way.
#[derive(Clone, Debug, PartialEq)]
pub struct ReadPlan<S> {
    /// The skill to validate and run (a wait already raised to the layout's minimum).
    pub skill: S,
    /// The parsed reply, when the parser read one.
    pub reply: Option<PlanReply<S>>,
    /// Parsed, bare wait or unreadable.
    pub source: PlanSource,
}

/// Reads the plan for player `me` from a raw reply with the grounding's reader `read`;
/// never fails. Waits last at least `min_wait` steps (3 on forced_coordination in the
/// paper preset), which also applies to the `wait(1)` of a bare or unreadable reply, as
/// in the published agent.
pub fn read_plan<S: AgentSkill>(
    raw: &str,
    me: usize,
    min_wait: u8,
    read: impl FnOnce(&str) -> ReplyRead<S>,
) -> ReadPlan<S> {
    let (skill, reply, source) = match read(raw) {
        Ok(r) => (r.plan, Some(r), PlanSource::Parsed),
        Err(reason) => match wait_without_number(raw, me) {
            Some(n) => (S::wait(n), None, PlanSource::BareWait),
            None => (S::wait(1), None, PlanSource::Unreadable(reason)),
        },
    };
    let skill = match skill.wait_steps() {
        Some(n) => S::wait(n.max(min_wait)),
        None => skill,
    };
    // The parsed reply names the skill actually taken (after the minimum wait).
    let reply = reply.map(|r| PlanReply { plan: skill, ..r });
    ReadPlan { skill, reply, source }
}

/// A plan field (or a whole reply) whose first word is `wait` that the parser refused: the
/// number of steps it names, 1 without a number, or the out-of-range number itself (so
/// validation rejects it and the agent re-plans, as the published agent does).
fn wait_without_number(raw: &str, me: usize) -> Option<u8> {
    let clean = planner::clean_reply(raw).to_ascii_lowercase();
    let field = [format!("plan for player {me}"), format!("plan for <player {me}>")]
        .iter()
        .filter_map(|h| clean.rfind(h.as_str()).map(|at| at + h.len()))
        .max();
    let (text, whole) = match field {
        Some(at) => {
            let rest = &clean[at..];
            (rest.split_once(':').map_or(rest, |(_, r)| r), false)
        }
        None => (clean.as_str(), true),
    };
    let words: Vec<&str> = text.split(|c: char| !c.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).collect();
    if words.first() != Some(&"wait") {
        return None;
    }
    let number = words.get(1).and_then(|w| w.parse::<u64>().ok());
    // Without a plan field, only a reply that is nothing but the wait counts.
    if whole && words.len() > 1 + usize::from(number.is_some()) {
        return None;
    }
    Some(number.map_or(1, |n| n.min(u8::MAX as u64) as u8))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::skills::Skill;

    /// Reads with the classic reader.
    fn read_plan(raw: &str, me: usize, min_wait: u8) -> ReadPlan<Skill> {
        super::read_plan(raw, me, min_wait, |r| {
            crate::grounding::overcooked::reply::parse_reply(r, me).map_err(|e| e.reason)
        })
    }

    #[test]
    fn bare_and_unreadable_replies_wait() {
        let p = read_plan("Analysis: nothing to do.\nPlan for Player 0: wait", 0, 1);
        assert_eq!((p.skill, p.source), (Skill::Wait(1), PlanSource::BareWait));
        assert_eq!(read_plan("Plan for Player 1: \"wait()\"", 1, 1).skill, Skill::Wait(1));
        assert_eq!(read_plan("wait", 0, 1).skill, Skill::Wait(1));
        let p = read_plan("I would rather cook something nice.", 0, 1);
        assert_eq!(p.skill, Skill::Wait(1));
        assert!(matches!(p.source, PlanSource::Unreadable(ref r) if r.contains("Plan for Player 0")), "{p:?}");
        // Out of range: kept, so the validator rejects it and the agent re-plans.
        assert_eq!(read_plan("Plan for Player 0: wait(50)", 0, 1).skill, Skill::Wait(50));
        // A real plan is taken as parsed.
        let p = read_plan("Analysis: go.\nPlan for Player 0: pickup(onion)", 0, 3);
        assert_eq!((p.skill, p.source), (Skill::PickupOnion, PlanSource::Parsed));
    }

    #[test]
    fn minimum_wait_applies_to_every_wait_read_from_the_model() {
        assert_eq!(read_plan("Plan for Player 0: wait(1)", 0, 3).skill, Skill::Wait(3));
        assert_eq!(read_plan("Plan for Player 0: wait(5)", 0, 3).skill, Skill::Wait(5));
        assert_eq!(read_plan("Plan for Player 0: wait", 0, 3).skill, Skill::Wait(3));
        assert_eq!(read_plan("no idea", 0, 3).skill, Skill::Wait(3));
        let p = read_plan("Plan for Player 0: wait(2)", 0, 3);
        assert_eq!(p.reply.unwrap().plan, Skill::Wait(3));
    }

    #[test]
    fn dialogue_keeps_the_last_messages() {
        let mut d = Dialogue::new(2);
        for i in 0..5 {
            d.push(Message::user(format!("m{i}")));
        }
        assert_eq!(d.len(), 2);
        let last: Vec<&str> = d.recent(1).map(|m| m.content.as_str()).collect();
        assert_eq!(last, ["m4"]);
        assert_eq!(d.recent(9).count(), 2);
        assert!(mentions_wait("Plan for Player 0: wait(2)") && !mentions_wait("Plan: Wait"));
    }
}
