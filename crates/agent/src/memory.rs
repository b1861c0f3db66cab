//! The agent's memory: the knowledge library (persistent, the planner's system
//! message) plus a bounded FIFO of trajectory entries with recent-K retrieval.
//!
//! An entry is one planning decision: the scene it was made in, the analysis,
//! the predicted intention of the teammate and — once known — what the teammate
//! really did (the corrected belief), the skill chosen, and how it ended. Entries hold
//! the game's own skills (`S`, a grounding's [`crate::grounding::Grounding::Skill`]).

use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// How a planned skill ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum EntryOutcome {
    /// The skill is still being executed by the controller.
    Running,
    /// The controller finished the skill.
    Succeeded,
    /// A wait that ended early because the kitchen changed.
    Interrupted,
    /// The controller gave up: a precondition stopped holding, or the way stayed blocked.
    Failed {
        /// The controller's sentence for it, shown in later prompts' memory part.
        reason: String,
    },
    /// No valid plan came out of the planner; the agent waited one step instead.
    Fallback {
        /// Why no plan was accepted (parse error, rejected preconditions, unreachable model, prompt error).
        reason: String,
    },
}

impl EntryOutcome {
    /// The phrase the scene template shows after `<Player k> did <skill>:`.
    pub fn phrase(&self) -> String {
        match self {
            EntryOutcome::Running => "still running".into(),
            EntryOutcome::Succeeded => "succeeded".into(),
            EntryOutcome::Interrupted => "ended early, the kitchen changed".into(),
            EntryOutcome::Failed { reason } => format!("failed ({reason})"),
            EntryOutcome::Fallback { reason } => format!("no valid plan, waited instead ({reason})"),
        }
    }
}

/// One planning decision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemoryEntry<S> {
    /// The timestep the decision was made at.
    pub t: u32,
    /// The scene text the planner saw for this decision.
    pub scene: String,
    /// The reply's "Analysis" section, whitespace-collapsed; `None` when absent or not asked for.
    pub analysis: Option<String>,
    /// The teammate skill the planner predicted.
    pub predicted: Option<S>,
    /// What the teammate really did next (set by belief correction).
    pub real: Option<S>,
    /// The timestep `real` was observed at.
    pub real_t: Option<u32>,
    /// The skill the agent committed to (`wait(1)` for a fallback).
    pub skill: S,
    /// How the skill ended (`Running` until it does).
    pub outcome: EntryOutcome,
}

/// Persistent knowledge plus a bounded trajectory FIFO.
#[derive(Clone, Debug)]
pub struct Memory<S> {
    /// The rendered knowledge library (the planner's system message).
    pub knowledge: String,
    capacity: usize,
    entries: VecDeque<MemoryEntry<S>>,
}

impl<S: Copy + PartialEq> Memory<S> {
    /// Empty trajectory memory holding at most `capacity` entries (at least 1).
    pub fn new(knowledge: String, capacity: usize) -> Memory<S> {
        let capacity = capacity.max(1);
        // The capacity is a bound, not a size to reserve: entries arrive one per plan.
        Memory { knowledge, capacity, entries: VecDeque::with_capacity(capacity.min(64)) }
    }

    /// Adds an entry, dropping the oldest when full.
    pub fn push(&mut self, e: MemoryEntry<S>) {
        if self.entries.len() == self.capacity {
            self.entries.pop_front();
        }
        self.entries.push_back(e);
    }

    /// The `k` most recent entries, oldest first.
    pub fn recent(&self, k: usize) -> impl Iterator<Item = &MemoryEntry<S>> {
        self.entries.iter().skip(self.entries.len().saturating_sub(k))
    }

    /// The newest entry, where the agent records how the running skill ended.
    pub fn last_mut(&mut self) -> Option<&mut MemoryEntry<S>> {
        self.entries.back_mut()
    }

    /// Entries held (never more than the capacity).
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// No entry recorded yet (or all cleared).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Belief correction: the entry whose prediction (made at `t` of `predicted`) was just
    /// scored learns what the teammate really did. Returns whether such an entry was found.
    pub fn correct_belief(&mut self, t: u32, predicted: S, real: S, real_t: u32) -> bool {
        match self.entries.iter_mut().find(|e| e.t == t && e.predicted == Some(predicted) && e.real.is_none()) {
            Some(e) => {
                e.real = Some(real);
                e.real_t = Some(real_t);
                true
            }
            None => false,
        }
    }

    /// Drops every trajectory entry; the knowledge text stays.
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::skills::Skill;

    fn entry(t: u32, predicted: Option<Skill>) -> MemoryEntry<Skill> {
        MemoryEntry {
            t,
            scene: format!("Scene {t}"),
            analysis: None,
            predicted,
            real: None,
            real_t: None,
            skill: Skill::PickupOnion,
            outcome: EntryOutcome::Running,
        }
    }

    #[test]
    fn bounded_fifo_and_recent_k() {
        let mut m = Memory::new(String::new(), 3);
        for t in 0..5 {
            m.push(entry(t, None));
        }
        assert_eq!(m.len(), 3);
        let ts: Vec<u32> = m.recent(2).map(|e| e.t).collect();
        assert_eq!(ts, [3, 4]);
        let ts: Vec<u32> = m.recent(10).map(|e| e.t).collect();
        assert_eq!(ts, [2, 3, 4]);
        assert_eq!(m.recent(0).count(), 0);
    }

    #[test]
    fn correction_targets_the_scored_prediction() {
        let mut m = Memory::new(String::new(), 8);
        m.push(entry(1, Some(Skill::PickupOnion)));
        m.push(entry(5, Some(Skill::PutOnionInPot)));
        m.push(entry(6, None));
        assert!(m.correct_belief(5, Skill::PutOnionInPot, Skill::PlaceObjOnCounter, 9));
        assert!(!m.correct_belief(5, Skill::PutOnionInPot, Skill::PlaceObjOnCounter, 9));
        assert!(!m.correct_belief(6, Skill::PickupDish, Skill::PickupDish, 9));
        let reals: Vec<Option<Skill>> = m.recent(3).map(|e| e.real).collect();
        assert_eq!(reals, [None, Some(Skill::PlaceObjOnCounter), None]);
    }
}
