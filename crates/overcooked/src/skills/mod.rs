//! The ProAgent skill vocabulary: what the planner may ask a player to do,
//! a tolerant parser from text, and each skill's preconditions on a state.
//!
//! Pure Rust, no I/O. The controller grounds skills into moves; the validator
//! and verificator use the precondition reasons.

pub mod facts;
pub mod parser;
pub mod preconditions;
pub mod rules;
pub mod vocabulary;

pub use parser::SkillParseError;
pub use preconditions::{FailedCondition, Reach, check_preconditions, is_source_of};
pub use vocabulary::{MAX_WAIT, Skill};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::motion::MotionTable;
    use crate::env::{Dir, Layout, Object, Player, Pos, Soup, State};

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
