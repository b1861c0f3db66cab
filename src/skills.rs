//! The ProAgent skill vocabulary: what the planner may ask a player to do,
//! a tolerant parser from text, and each skill's preconditions on a state.
//!
//! Pure Rust, no I/O. The controller grounds skills into moves; the validator
//! and verificator use the precondition reasons.

use crate::env::motion::MotionTable;
use crate::env::{Layout, ObjKind, Object, Pos, State, Tile};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Longest wait a plan may ask for.
pub const MAX_WAIT: u8 = 20;

/// One high-level skill.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Skill {
    PickupOnion,
    PickupDish,
    PutOnionInPot,
    PlaceObjOnCounter,
    FillDishWithSoup,
    DeliverSoup,
    Wait(u8),
}

impl Skill {
    /// The non-wait skills, in the order the prompts list them.
    pub const TASK_SKILLS: [Skill; 6] = [
        Skill::PickupOnion,
        Skill::PickupDish,
        Skill::PutOnionInPot,
        Skill::PlaceObjOnCounter,
        Skill::FillDishWithSoup,
        Skill::DeliverSoup,
    ];
}

impl fmt::Display for Skill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skill::PickupOnion => write!(f, "pickup(onion)"),
            Skill::PickupDish => write!(f, "pickup(dish)"),
            Skill::PutOnionInPot => write!(f, "put_onion_in_pot()"),
            Skill::PlaceObjOnCounter => write!(f, "place_obj_on_counter()"),
            Skill::FillDishWithSoup => write!(f, "fill_dish_with_soup()"),
            Skill::DeliverSoup => write!(f, "deliver_soup()"),
            Skill::Wait(n) => write!(f, "wait({n})"),
        }
    }
}

/// Text that does not name a skill. The raw text is kept for transcripts and reports.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}: {raw:?}")]
pub struct SkillParseError {
    pub raw: String,
    pub reason: String,
}

/// Lower-case words and numbers of a text; everything else separates tokens.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            cur.push(c.to_ascii_lowercase());
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    // Split glued forms such as "pickup" stays, but "putoniononpot" is not guessed.
    out
}

/// Tries to read a skill at the start of `t`; returns the skill and how many tokens it used.
/// `Err` is a wait whose number is out of range.
fn match_at(t: &[String]) -> Option<Result<(Skill, usize), String>> {
    let w = |i: usize| t.get(i).map(String::as_str);
    let is = |i: usize, s: &[&str]| w(i).is_some_and(|x| s.contains(&x));
    let obj_words = ["obj", "object", "item", "onion", "dish", "soup", "it"];
    // pickup(onion) / pickup_onion / pick up onion / pick_up(dish)
    let pick_len = if is(0, &["pickup", "pickupobj"]) {
        Some(1)
    } else if is(0, &["pick"]) && is(1, &["up"]) {
        Some(2)
    } else {
        None
    };
    if let Some(k) = pick_len {
        let k = if is(k, &["a", "an", "the", "one"]) { k + 1 } else { k };
        return match w(k) {
            Some("onion" | "onions") => Some(Ok((Skill::PickupOnion, k + 1))),
            Some("dish" | "dishes" | "plate") => Some(Ok((Skill::PickupDish, k + 1))),
            _ => None,
        };
    }
    // put_onion_in_pot() / put onion in pot / put an onion into the pot
    if is(0, &["put", "add", "drop"]) {
        let mut k = 1;
        if is(k, &["a", "an", "the", "one"]) {
            k += 1;
        }
        if is(k, &["onion"]) {
            k += 1;
            if is(k, &["in", "into", "to"]) {
                k += 1;
                if is(k, &["a", "the"]) {
                    k += 1;
                }
                if is(k, &["pot"]) {
                    return Some(Ok((Skill::PutOnionInPot, k + 1)));
                }
            }
        }
        return None;
    }
    // place_obj_on_counter() / place onion on counter / place the dish on the counter
    if is(0, &["place", "putdown"]) {
        let mut k = 1;
        if is(k, &["a", "an", "the", "one", "my"]) {
            k += 1;
        }
        if is(k, &obj_words) {
            k += 1;
        }
        if is(k, &["on", "onto"]) {
            k += 1;
            if is(k, &["a", "the"]) {
                k += 1;
            }
            if is(k, &["counter", "counters"]) {
                return Some(Ok((Skill::PlaceObjOnCounter, k + 1)));
            }
        }
        return None;
    }
    // fill_dish_with_soup()
    if is(0, &["fill"]) {
        let mut k = 1;
        if is(k, &["a", "the", "my"]) {
            k += 1;
        }
        if is(k, &["dish"]) && is(k + 1, &["with"]) {
            k += 2;
            if is(k, &["the", "a"]) {
                k += 1;
            }
            if is(k, &["soup"]) {
                return Some(Ok((Skill::FillDishWithSoup, k + 1)));
            }
        }
        return None;
    }
    // deliver_soup()
    if is(0, &["deliver", "serve"]) {
        let k = if is(1, &["the", "a"]) { 2 } else { 1 };
        if is(k, &["soup"]) {
            return Some(Ok((Skill::DeliverSoup, k + 1)));
        }
        return None;
    }
    // wait(n) / wait 3 / wait(n=3)
    if is(0, &["wait"]) {
        let mut k = 1;
        if is(k, &["n", "for"]) {
            k += 1;
        }
        let n: u32 = w(k)?.parse().ok()?;
        if n == 0 || n > MAX_WAIT as u32 {
            return Some(Err(format!("wait(n) needs 0 < n <= {MAX_WAIT}, got {n}")));
        }
        let k = if is(k + 1, &["step", "steps", "timestep", "timesteps"]) { k + 2 } else { k + 1 };
        return Some(Ok((Skill::Wait(n as u8), k)));
    }
    None
}

impl Skill {
    /// Parses one skill written on its own, tolerating quotes, spaces, case,
    /// `pickup_onion`, `pick up onion`, and trailing punctuation.
    pub fn parse(text: &str) -> Result<Skill, SkillParseError> {
        let t = tokens(text);
        let err = |reason: &str| SkillParseError { raw: text.to_string(), reason: reason.to_string() };
        if t.is_empty() {
            return Err(err("empty skill"));
        }
        match match_at(&t) {
            Some(Ok((s, used))) if used == t.len() => Ok(s),
            Some(Ok(_)) => Err(err("unexpected words after the skill")),
            Some(Err(e)) => Err(err(&e)),
            None => Err(err("not a known skill")),
        }
    }

    /// Finds the first skill mentioned anywhere in a text (e.g. a plan line with prose).
    /// A wait out of range is reported as an error rather than skipped.
    pub fn find_first(text: &str) -> Result<Skill, SkillParseError> {
        let t = tokens(text);
        for i in 0..t.len() {
            match match_at(&t[i..]) {
                Some(Ok((s, _))) => return Ok(s),
                Some(Err(e)) => return Err(SkillParseError { raw: text.to_string(), reason: e }),
                None => {}
            }
        }
        Err(SkillParseError { raw: text.to_string(), reason: "no skill found".into() })
    }
}

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
    pub layout: &'a Layout,
    pub motion: &'a MotionTable,
    pub state: &'a State,
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

    pub fn any(&self, targets: &[Pos]) -> bool {
        targets.iter().any(|&t| self.can_interact(t))
    }

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::{Dir, Player, Soup};

    #[test]
    fn tolerant_parsing() {
        let ok = [
            ("pickup(onion)", Skill::PickupOnion),
            ("'pickup(onion)'", Skill::PickupOnion),
            ("\"Pickup( Onion )\".", Skill::PickupOnion),
            ("pickup_onion", Skill::PickupOnion),
            ("pick up onion", Skill::PickupOnion),
            ("pick_up(dish)", Skill::PickupDish),
            ("PICKUP(DISH)!", Skill::PickupDish),
            ("put_onion_in_pot()", Skill::PutOnionInPot),
            ("put onion in pot", Skill::PutOnionInPot),
            ("place_obj_on_counter()", Skill::PlaceObjOnCounter),
            ("place onion on counter", Skill::PlaceObjOnCounter),
            ("fill_dish_with_soup()", Skill::FillDishWithSoup),
            ("`deliver_soup()`", Skill::DeliverSoup),
            ("wait(3)", Skill::Wait(3)),
            ("wait(n=20)", Skill::Wait(20)),
            ("wait 5 steps", Skill::Wait(5)),
        ];
        for (text, want) in ok {
            assert_eq!(Skill::parse(text), Ok(want), "{text}");
        }
        for bad in ["", "pickup(tomato)", "cook()", "wait(0)", "wait(21)", "pickup(onion) then deliver", "wait"] {
            let e = Skill::parse(bad).unwrap_err();
            assert_eq!(e.raw, bad);
        }
        assert!(Skill::parse("wait(21)").unwrap_err().reason.contains("0 < n <= 20"));
    }

    #[test]
    fn display_round_trips() {
        for s in Skill::TASK_SKILLS.into_iter().chain([Skill::Wait(7)]) {
            assert_eq!(Skill::parse(&s.to_string()), Ok(s));
        }
    }

    #[test]
    fn find_first_in_prose() {
        assert_eq!(Skill::find_first("I will first pickup(dish), then deliver_soup()."), Ok(Skill::PickupDish));
        assert_eq!(Skill::find_first("Plan for Player 0: **put_onion_in_pot()**"), Ok(Skill::PutOnionInPot));
        assert!(Skill::find_first("I think we should coordinate better.").is_err());
        assert!(Skill::find_first("wait(99)").is_err());
    }

    fn reach_setup(held: Option<Object>) -> (Layout, MotionTable, State) {
        let l = Layout::builtin("cramped_room").unwrap();
        let m = MotionTable::new(&l);
        let mut s = l.start_state();
        s.players[0] = Player { pos: Pos::new(1, 2), dir: Dir::North, held };
        (l, m, s)
    }

    #[test]
    fn preconditions_with_reasons() {
        let (l, m, s) = reach_setup(Some(Object::Dish));
        let r = Reach { layout: &l, motion: &m, state: &s, player: 0 };
        let f = check_preconditions(Skill::PickupOnion, &r);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].reason, "I cannot pickup(onion), since my hand is not empty.");
        let f = check_preconditions(Skill::FillDishWithSoup, &r);
        assert_eq!(f[0].condition, "soup_cooking_or_ready");
        assert!(check_preconditions(Skill::PlaceObjOnCounter, &r).is_empty());
        assert_eq!(check_preconditions(Skill::DeliverSoup, &r)[0].condition, "holding_soup");
        let (l, m, mut s) = reach_setup(Some(Object::ONION));
        let i = l.index(l.pots[0]).unwrap();
        s.objects[i] = Some(Object::Soup(Soup::with_ingredients(&[crate::env::Ingredient::Onion; 3], 4, 20).unwrap()));
        let r = Reach { layout: &l, motion: &m, state: &s, player: 0 };
        assert_eq!(check_preconditions(Skill::PutOnionInPot, &r)[0].condition, "pot_not_full");
        assert!(check_preconditions(Skill::Wait(3), &r).is_empty());
    }

    #[test]
    fn forced_coordination_reach() {
        let l = Layout::builtin("forced_coordination").unwrap();
        let m = MotionTable::new(&l);
        let mut s = l.start_state();
        // Player 1 (left side) holding an onion cannot reach any pot.
        s.players[1].held = Some(Object::ONION);
        let r = Reach { layout: &l, motion: &m, state: &s, player: 1 };
        assert_eq!(check_preconditions(Skill::PutOnionInPot, &r)[0].condition, "pot_reachable");
        assert!(check_preconditions(Skill::PlaceObjOnCounter, &r).is_empty());
        // Player 0 (right side) can only take an onion once one is on the shared counter.
        let r = Reach { layout: &l, motion: &m, state: &s, player: 0 };
        assert_eq!(check_preconditions(Skill::PickupOnion, &r)[0].condition, "onion_reachable");
        let c = Pos::new(2, 1);
        s.objects[l.index(c).unwrap()] = Some(Object::ONION);
        let r = Reach { layout: &l, motion: &m, state: &s, player: 0 };
        assert!(check_preconditions(Skill::PickupOnion, &r).is_empty());
    }
}
