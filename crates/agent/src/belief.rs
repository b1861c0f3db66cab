//! Belief correction: a watcher that infers the teammate's actual skill from
//! consecutive states (what it picked up, put in a pot, placed, filled,
//! delivered), and a tracker that scores the planner's predicted intentions
//! against it.
//!
//! Pure: no I/O.

use proagent_overcooked::env::{Event, Layout, ObjKind, Object, State, Tile};
use proagent_overcooked::skills::Skill;
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

/// The skill an interact event completes. Taking a plated soup from a counter
/// matches no planner skill, so it is not reported.
pub fn skill_of_event(e: &Event) -> Option<Skill> {
    match *e {
        Event::Dispense { kind: ObjKind::Onion, .. } | Event::PickupCounter { kind: ObjKind::Onion, .. } => {
            Some(Skill::PickupOnion)
        }
        Event::Dispense { kind: ObjKind::Dish, .. } | Event::PickupCounter { kind: ObjKind::Dish, .. } => {
            Some(Skill::PickupDish)
        }
        Event::PlaceCounter { .. } => Some(Skill::PlaceObjOnCounter),
        Event::Potting { kind: ObjKind::Onion, .. } => Some(Skill::PutOnionInPot),
        Event::PickupSoup { .. } => Some(Skill::FillDishWithSoup),
        Event::Deliver { .. } => Some(Skill::DeliverSoup),
        _ => None,
    }
}

/// The skill player `who` completed between two consecutive states, read from
/// what it held before and after and what it was facing. Used when no event is
/// available; agrees with [`skill_of_event`] on every step of the simulator.
pub fn skill_from_states(layout: &Layout, prev: &State, cur: &State, who: usize) -> Option<Skill> {
    let before = prev.players[who].held.map(|o| o.kind());
    let after = cur.players[who].held.map(|o| o.kind());
    if before == after {
        return None;
    }
    let p = &prev.players[who];
    let facing = p.pos.step(p.dir).map(|t| layout.tile(t));
    match (before, after) {
        (None, Some(ObjKind::Onion)) => Some(Skill::PickupOnion),
        (None, Some(ObjKind::Dish)) => Some(Skill::PickupDish),
        (Some(ObjKind::Dish), Some(ObjKind::Soup)) => Some(Skill::FillDishWithSoup),
        (Some(k), None) => match facing {
            Some(Tile::Counter) => Some(Skill::PlaceObjOnCounter),
            Some(Tile::Pot) if k == ObjKind::Onion => Some(Skill::PutOnionInPot),
            Some(Tile::Serve) if k == ObjKind::Soup => Some(Skill::DeliverSoup),
            _ => None,
        },
        _ => None,
    }
}

/// The watcher's answer for one step: the event if the runner gave one, else the state diff.
pub fn observe_step(
    layout: &Layout,
    prev: Option<&State>,
    cur: &State,
    event: Option<&Event>,
    who: usize,
) -> Option<Skill> {
    if let Some(e) = event {
        return skill_of_event(e);
    }
    prev.and_then(|p| skill_from_states(layout, p, cur, who))
}

/// A prediction scored against the teammate's next real skill.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BeliefRecord {
    /// When the prediction was made.
    pub t: u32,
    /// The teammate skill the planner predicted (its "Intention" field).
    pub predicted: Skill,
    /// The teammate's next real skill (for a wait prediction that expired quietly: the wait itself).
    pub real: Skill,
    /// The timestep the real skill was observed (for an expired wait prediction: when it expired).
    pub real_t: u32,
    /// `predicted == real`; an expired wait prediction always counts as correct.
    pub correct: bool,
}

/// Scores predictions and keeps the recent resolved ones for the belief block.
#[derive(Clone, Debug, Default)]
pub struct BeliefTracker {
    pending: Vec<(u32, Skill)>,
    /// The most recent resolved predictions, oldest first; at most `keep` (the tracker's capacity) are kept.
    pub resolved: VecDeque<BeliefRecord>,
    keep: usize,
    /// Predictions resolved so far this episode (the denominator of [`BeliefTracker::accuracy`]).
    pub predictions_scored: u32,
    /// Resolved predictions that matched what the teammate did.
    pub predictions_correct: u32,
    /// The teammate's last observed skill and when.
    pub last_real: Option<(Skill, u32)>,
    /// Records made during the current `observe` call.
    batch: Vec<BeliefRecord>,
}

impl BeliefTracker {
    /// An empty tracker that keeps the last `keep` resolved predictions (at least 1).
    pub fn new(keep: usize) -> BeliefTracker {
        BeliefTracker { keep: keep.max(1), ..Default::default() }
    }

    /// Registers a prediction made at timestep `t`; it stays pending until [`BeliefTracker::observe`] sees the teammate's next completed skill.
    pub fn predict(&mut self, t: u32, skill: Skill) {
        self.pending.push((t, skill));
    }

    fn record(&mut self, r: BeliefRecord) {
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
    pub fn observe(&mut self, t: u32, real: Option<Skill>) -> Vec<BeliefRecord> {
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
                match p {
                    Skill::Wait(n) if t >= pt + n as u32 => {
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

/// The held object kind, for diagnostics.
pub fn held_kind(o: Option<&Object>) -> Option<ObjKind> {
    o.map(Object::kind)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::env::{Action, Pos};

    #[test]
    fn events_map_to_skills() {
        let at = Pos::new(0, 0);
        assert_eq!(skill_of_event(&Event::Dispense { kind: ObjKind::Onion, at }), Some(Skill::PickupOnion));
        assert_eq!(skill_of_event(&Event::PickupCounter { kind: ObjKind::Dish, at }), Some(Skill::PickupDish));
        assert_eq!(skill_of_event(&Event::PickupCounter { kind: ObjKind::Soup, at }), None);
        assert_eq!(skill_of_event(&Event::PlaceCounter { kind: ObjKind::Soup, at }), Some(Skill::PlaceObjOnCounter));
        assert_eq!(skill_of_event(&Event::Potting { kind: ObjKind::Onion, at, count: 2 }), Some(Skill::PutOnionInPot));
        assert_eq!(skill_of_event(&Event::PickupSoup { at }), Some(Skill::FillDishWithSoup));
        assert_eq!(skill_of_event(&Event::Deliver { at, reward: 20 }), Some(Skill::DeliverSoup));
    }

    /// Drives player 1 through a whole soup on cramped_room and checks that the
    /// state-diff watcher and the event mapping agree at every step.
    #[test]
    fn state_diff_agrees_with_events() {
        use Action::*;
        let l = Layout::builtin("cramped_room").unwrap();
        let mut s = l.start_state();
        // Player 1 starts at (3,1). Onion dispenser (4,1): face east, interact; pot (2,0):
        // go west to (2,1), face north, interact. Three times, then the dish and the soup.
        let mut plan = Vec::new();
        for _ in 0..3 {
            plan.extend([East, Interact, West, North, Interact, East]);
        }
        // Then an onion onto the counter at (4,2) and back into the hand.
        plan.extend([East, Interact, South, East, Interact, Interact]);
        let mut seen = Vec::new();
        for a in plan {
            let prev = s.clone();
            let out = l.step(&mut s, [Stay, a]);
            let by_event = out.events[1].as_ref().and_then(skill_of_event);
            let by_state = skill_from_states(&l, &prev, &s, 1);
            assert_eq!(by_event, by_state, "t={} action {a:?} event {:?}", s.timestep, out.events[1]);
            if let Some(k) = by_event {
                seen.push(k);
            }
        }
        use Skill::*;
        let want = [PickupOnion, PutOnionInPot, PickupOnion, PutOnionInPot, PickupOnion, PutOnionInPot];
        assert_eq!(&seen[..6], &want);
        assert_eq!(&seen[6..], &[PickupOnion, PlaceObjOnCounter, PickupOnion]);
    }

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
