//! Belief correction: a tracker that scores the planner's predicted teammate skills
//! against what the teammate was then seen doing (a grounding's
//! [`crate::grounding::Grounding::teammate_skill`]), and keeps the recent verdicts for
//! the belief block. A prediction is resolved by the teammate's next completed skill; a
//! predicted `wait(n)` is right when the teammate completes nothing for n steps.
//!
//! Pure: no I/O.

use crate::skill::AgentSkill;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// What the agent does with the teammate's observed behaviour.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BeliefMode {
    /// The stored prediction is replaced by the real behaviour.
    #[default]
    Replace,
    /// The prediction is kept, flagged right or wrong, with the real behaviour beside it.
    Annotate,
    /// No correction: predictions stay as they were (accuracy is still measured).
    Off,
}

impl std::str::FromStr for BeliefMode {
    type Err = crate::names::UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "replace" => Ok(BeliefMode::Replace),
            "annotate" => Ok(BeliefMode::Annotate),
            "off" | "none" => Ok(BeliefMode::Off),
            _ => Err(crate::names::UnknownName::new("belief mode", s, "replace, annotate or off")),
        }
    }
}

/// A prediction scored against the teammate's next real skill.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BeliefRecord<S> {
    /// When the prediction was made.
    pub t: u32,
    /// The teammate skill the planner predicted (its "Intention" field).
    pub predicted: S,
    /// The teammate's next real skill (for a wait prediction that expired quietly: the wait itself).
    pub real: S,
    /// The timestep the real skill was observed (for an expired wait prediction: when it expired).
    pub real_t: u32,
    /// `predicted == real`; an expired wait prediction always counts as correct.
    pub correct: bool,
}

/// Scores predictions and keeps the recent resolved ones for the belief block.
#[derive(Clone, Debug)]
pub struct BeliefTracker<S> {
    pending: Vec<(u32, S)>,
    /// The most recent resolved predictions, oldest first; at most `keep` (the tracker's capacity) are kept.
    pub resolved: VecDeque<BeliefRecord<S>>,
    keep: usize,
    /// Predictions resolved so far this episode (the denominator of [`BeliefTracker::accuracy`]).
    pub predictions_scored: u32,
    /// Resolved predictions that matched what the teammate did.
    pub predictions_correct: u32,
    /// The teammate's last observed skill and when.
    pub last_real: Option<(S, u32)>,
    /// Records made during the current `observe` call.
    batch: Vec<BeliefRecord<S>>,
}

impl<S: AgentSkill> BeliefTracker<S> {
    /// An empty tracker that keeps the last `keep` resolved predictions (at least 1).
    pub fn new(keep: usize) -> BeliefTracker<S> {
        BeliefTracker {
            pending: Vec::new(),
            resolved: VecDeque::new(),
            keep: keep.max(1),
            predictions_scored: 0,
            predictions_correct: 0,
            last_real: None,
            batch: Vec::new(),
        }
    }

    /// Registers a prediction made at timestep `t`; it stays pending until [`BeliefTracker::observe`] sees the teammate's next completed skill.
    pub fn predict(&mut self, t: u32, skill: S) {
        self.pending.push((t, skill));
    }

    fn record(&mut self, r: BeliefRecord<S>) {
        self.batch.push(r.clone());
        self.predictions_scored += 1;
        self.predictions_correct += r.correct as u32;
        if self.resolved.len() == self.keep {
            self.resolved.pop_front();
        }
        self.resolved.push_back(r);
    }

    /// Advances to timestep `t`, with the teammate's skill completed in the last step, if any.
    /// Returns the predictions resolved now (usually none, so nothing is allocated).
    pub fn observe(&mut self, t: u32, real: Option<S>) -> Vec<BeliefRecord<S>> {
        let before = self.predictions_scored;
        if let Some(r) = real {
            self.last_real = Some((r, t));
            for (pt, p) in std::mem::take(&mut self.pending) {
                self.record(BeliefRecord { t: pt, predicted: p, real: r, real_t: t, correct: p == r });
            }
        } else {
            // A wait prediction is right when the teammate completes nothing while it lasts.
            let pending = std::mem::take(&mut self.pending);
            for (pt, p) in pending {
                match p.wait_steps() {
                    Some(n) if t >= pt + n as u32 => {
                        self.record(BeliefRecord { t: pt, predicted: p, real: p, real_t: t, correct: true })
                    }
                    _ => self.pending.push((pt, p)),
                }
            }
        }
        debug_assert_eq!((self.predictions_scored - before) as usize, self.batch.len());
        std::mem::take(&mut self.batch)
    }

    /// Share of scored predictions that matched; `None` before any was scored.
    pub fn accuracy(&self) -> Option<f64> {
        (self.predictions_scored > 0).then(|| self.predictions_correct as f64 / self.predictions_scored as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::skills::Skill;

    #[test]
    fn accuracy_counts_next_real_skill() {
        let mut b = BeliefTracker::new(4);
        assert_eq!(b.accuracy(), None);
        b.predict(0, Skill::PickupOnion);
        b.observe(1, None);
        assert_eq!(b.observe(3, Some(Skill::PickupOnion)).len(), 1);
        b.predict(4, Skill::PutOnionInPot);
        b.predict(6, Skill::PutOnionInPot);
        let r = b.observe(8, Some(Skill::PlaceObjOnCounter));
        assert_eq!(r.iter().map(|r| (r.t, r.correct)).collect::<Vec<_>>(), [(4, false), (6, false)]);
        // A wait prediction that expires with no skill is right; one broken by a skill is wrong.
        b.predict(10, Skill::Wait(3));
        assert!(b.observe(12, None).is_empty());
        let r = b.observe(13, None);
        assert_eq!((r.len(), r[0].real, r[0].correct), (1, Skill::Wait(3), true));
        b.predict(14, Skill::Wait(5));
        b.observe(15, Some(Skill::PickupDish));
        assert_eq!(b.predictions_scored, 5);
        assert_eq!(b.predictions_correct, 2);
        assert_eq!(b.accuracy(), Some(0.4));
        assert_eq!(b.last_real, Some((Skill::PickupDish, 15)));
        assert_eq!(b.resolved.len(), 4);
        assert!(!b.resolved.back().unwrap().correct);
    }
}
