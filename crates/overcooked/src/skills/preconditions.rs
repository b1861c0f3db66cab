//! Each skill's preconditions on a state, with the sentence the verificator
//! uses when one does not hold. Pure: reads the state, changes nothing.

use super::vocabulary::{MAX_WAIT, Skill};
use crate::env::motion::MotionTable;
use crate::env::{Layout, ObjKind, Object, Pos, State, Tile};
use serde::{Deserialize, Serialize};

/// One precondition that does not hold, with the sentence the verificator uses.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FailedCondition {
    /// Short machine name, e.g. "hand_empty".
    pub condition: String,
    /// "I cannot pickup(onion), since my hand is not empty."
    pub reason: String,
}

/// What a player can reach from where it stands (ignoring the teammate's body).
pub struct Reach<'a> {
    /// The kitchen the player is in.
    pub layout: &'a Layout,
    /// Motion costs of `layout`, precomputed once.
    pub motion: &'a MotionTable,
    /// The state the player stands in.
    pub state: &'a State,
    /// Index (0 or 1) of the player whose reach this is.
    pub player: usize,
}

impl Reach<'_> {
    fn from(&self) -> (Pos, crate::env::Dir) {
        let p = &self.state.players[self.player];
        (p.pos, p.dir)
    }

    /// Whether the player can stand next to `target` facing it.
    pub fn can_interact(&self, target: Pos) -> bool {
        self.motion.cost_to_interact(self.layout, self.from(), target).is_some()
    }

    /// Reachable counters that hold an object of `kind`.
    pub fn counters_with(&self, kind: ObjKind) -> Vec<Pos> {
        self.layout
            .counters
            .iter()
            .copied()
            .filter(|&c| self.state.object_at(self.layout, c).is_some_and(|o| o.kind() == kind) && self.can_interact(c))
            .collect()
    }

    /// Whether the player can interact with at least one of `targets`.
    pub fn any(&self, targets: &[Pos]) -> bool {
        targets.iter().any(|&t| self.can_interact(t))
    }

    /// Reachable counters with nothing on them.
    pub fn empty_counters(&self) -> Vec<Pos> {
        self.layout
            .counters
            .iter()
            .copied()
            .filter(|&c| self.state.object_at(self.layout, c).is_none() && self.can_interact(c))
            .collect()
    }

    /// Reachable pots that can take another onion.
    pub fn pots_accepting_onion(&self) -> Vec<Pos> {
        let cap = self.layout.rules.num_items;
        self.layout
            .pots
            .iter()
            .copied()
            .filter(|&p| match self.state.soup_at(self.layout, p) {
                None => true,
                Some(s) => s.is_idle() && s.len() < cap,
            })
            .filter(|&p| self.can_interact(p))
            .collect()
    }

    /// Reachable pots whose soup is cooking or ready.
    pub fn pots_cooking_or_ready(&self) -> Vec<Pos> {
        self.layout
            .pots
            .iter()
            .copied()
            .filter(|&p| self.state.soup_at(self.layout, p).is_some_and(|s| !s.is_idle()))
            .filter(|&p| self.can_interact(p))
            .collect()
    }
}

fn fail(skill: Skill, condition: &str, why: &str) -> FailedCondition {
    FailedCondition { condition: condition.into(), reason: format!("I cannot {skill}, since {why}.") }
}

/// Checks a skill's preconditions for `player`; an empty list means it may run.
pub fn check_preconditions(skill: Skill, reach: &Reach<'_>) -> Vec<FailedCondition> {
    let held = reach.state.players[reach.player].held;
    let mut out = Vec::new();
    let need_empty = |out: &mut Vec<FailedCondition>| {
        if held.is_some() {
            out.push(fail(skill, "hand_empty", "my hand is not empty"));
        }
    };
    let need_holding = |out: &mut Vec<FailedCondition>, kind: ObjKind, what: &str| {
        if held.map(|o| o.kind()) != Some(kind) {
            out.push(fail(skill, &format!("holding_{}", kind.name()), &format!("I am not holding {what}")));
        }
    };
    match skill {
        Skill::PickupOnion => {
            need_empty(&mut out);
            let l = reach.layout;
            if !reach.any(&l.onion_sources) && reach.counters_with(ObjKind::Onion).is_empty() {
                out.push(fail(skill, "onion_reachable", "I cannot reach any onion dispenser or onion on a counter"));
            }
        }
        Skill::PickupDish => {
            need_empty(&mut out);
            let l = reach.layout;
            if !reach.any(&l.dish_sources) && reach.counters_with(ObjKind::Dish).is_empty() {
                out.push(fail(skill, "dish_reachable", "I cannot reach any dish dispenser or dish on a counter"));
            }
        }
        Skill::PutOnionInPot => {
            need_holding(&mut out, ObjKind::Onion, "an onion");
            if !reach.any(&reach.layout.pots) {
                out.push(fail(skill, "pot_reachable", "I cannot reach any pot"));
            } else if reach.pots_accepting_onion().is_empty() {
                out.push(fail(skill, "pot_not_full", "every pot I can reach is full or cooking"));
            }
        }
        Skill::PlaceObjOnCounter => {
            if held.is_none() {
                out.push(fail(skill, "holding_object", "I am not holding anything"));
            }
            if reach.empty_counters().is_empty() {
                out.push(fail(skill, "empty_counter", "there is no empty counter I can reach"));
            }
        }
        Skill::FillDishWithSoup => {
            need_holding(&mut out, ObjKind::Dish, "a dish");
            if !reach.any(&reach.layout.pots) {
                out.push(fail(skill, "pot_reachable", "I cannot reach any pot"));
            } else if reach.pots_cooking_or_ready().is_empty() {
                out.push(fail(skill, "soup_cooking_or_ready", "no pot I can reach is cooking or has a ready soup"));
            }
        }
        Skill::DeliverSoup => {
            if !matches!(held, Some(Object::Soup(_))) {
                out.push(fail(skill, "holding_soup", "I am not holding a dish with soup"));
            }
            if !reach.any(&reach.layout.serving) {
                out.push(fail(skill, "serving_reachable", "I cannot reach the serving location"));
            }
        }
        Skill::Wait(n) => {
            if n == 0 || n > MAX_WAIT {
                out.push(fail(skill, "wait_range", &format!("n must be from 1 to {MAX_WAIT}")));
            }
        }
    }
    out
}

/// Whether a tile kind is a source of `kind` (used by pickups that may also take from counters).
pub fn is_source_of(tile: Tile, kind: ObjKind) -> bool {
    matches!((tile, kind), (Tile::OnionSource, ObjKind::Onion) | (Tile::DishSource, ObjKind::Dish))
}
