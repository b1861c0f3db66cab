//! The rule-based skill choice of the `scripted` partner and the built-in
//! `scripted` model: a pure function of [`SkillFacts`], so the same rules run on
//! facts read off a simulator state and on facts read off a prompt's scene text.

use super::facts::{PotFact, PotStatus, SkillFacts};
use super::vocabulary::Skill;
use crate::env::ObjKind;

fn b(x: bool) -> u32 {
    x as u32
}

/// The rule-based skill choice.
pub fn choose_skill(f: &SkillFacts) -> Skill {
    match rules(f) {
        // Nowhere to put it down: hold on to it.
        Skill::PlaceObjOnCounter if f.empty_counters_for_me == 0 => Skill::Wait(1),
        s => s,
    }
}

fn rules(f: &SkillFacts) -> Skill {
    let cap = if f.soup_size == 0 { 3 } else { f.soup_size };
    let cooking_or_ready = |p: &PotFact| matches!(p.status, PotStatus::Cooking(_) | PotStatus::Ready);
    let missing = |p: &PotFact| match p.status {
        PotStatus::Filling(n) if n < cap => (cap - n) as u32,
        _ => 0,
    };
    let usable = |p: &&PotFact| p.reachable_by_me || p.reachable_by_partner;
    let i_reach_pot = f.pots.iter().any(|p| p.reachable_by_me);
    let partner_reaches_pot = f.pots.iter().any(|p| p.reachable_by_partner);
    let partner_free = f.partner_held.is_none();
    let partner_on = |s: Skill| partner_free && f.partner_skill == Some(s);

    // What the pots still need, and what is already on its way to them.
    let onion_demand: u32 = f.pots.iter().filter(usable).map(missing).sum();
    // Objects on counters are on their way only when handed over to a teammate
    // who reaches the pots; for a player who reaches them they are just sources.
    let counter_onions = if i_reach_pot { 0 } else { f.counter_onions_for_partner } as u32;
    // A teammate's onion counts once it is on its way to a pot (not to a counter).
    let partner_potting =
        f.partner_held == Some(ObjKind::Onion) && matches!(f.partner_skill, None | Some(Skill::PutOnionInPot));
    let held_onions = b(f.my_held == Some(ObjKind::Onion)) + b(partner_potting);
    let onion_supply = held_onions + b(partner_on(Skill::PickupOnion)) + counter_onions;
    let about_to_cook = (f.pots.iter().filter(usable).filter(|p| missing(p) == 1).count() as u32).min(held_onions);
    let soups = f.pots.iter().filter(usable).filter(|p| cooking_or_ready(p)).count() as u32;
    let dish_demand = soups + about_to_cook;
    let counter_dishes = if i_reach_pot { 0 } else { f.counter_dishes_for_partner } as u32;
    let dish_supply = b(f.my_held == Some(ObjKind::Dish))
        + b(f.partner_held == Some(ObjKind::Dish))
        + b(partner_on(Skill::PickupDish))
        + counter_dishes;
    let need_dish = dish_demand > dish_supply;
    let need_onion = onion_demand > onion_supply;
    // Soonest soup: 0 when one is ready.
    let soonest = f
        .pots
        .iter()
        .filter(usable)
        .filter_map(|p| match p.status {
            PotStatus::Ready => Some(0u32),
            PotStatus::Cooking(r) => Some(r as u32),
            PotStatus::Filling(_) => None,
        })
        .min();

    if f.blocked {
        // The teammate stands in the way. With an onion and a soup waiting for a
        // dish, put the onion down and see to the soup; otherwise give way a moment.
        if f.my_held == Some(ObjKind::Onion) && need_dish && f.my_steps.dish.is_some() {
            return Skill::PlaceObjOnCounter;
        }
        return Skill::Wait(2);
    }
    match f.my_held {
        Some(ObjKind::Soup) => {
            if f.my_access.serving {
                Skill::DeliverSoup
            } else {
                Skill::PlaceObjOnCounter
            }
        }
        Some(ObjKind::Dish) => {
            if f.pots.iter().any(|p| p.reachable_by_me && cooking_or_ready(p)) {
                Skill::FillDishWithSoup
            } else if !i_reach_pot {
                if f.empty_shared_counters > 0 { Skill::PlaceObjOnCounter } else { Skill::Wait(1) }
            } else if f.pots.iter().any(|p| p.reachable_by_me && missing(p) > 0 && missing(p) <= onion_supply) {
                // The onions that start a soup are on their way: keep the dish.
                Skill::Wait(1)
            } else {
                Skill::PlaceObjOnCounter
            }
        }
        Some(ObjKind::Onion) | Some(ObjKind::Tomato) => {
            if f.pots.iter().any(|p| p.reachable_by_me && missing(p) > 0) {
                Skill::PutOnionInPot
            } else if !i_reach_pot {
                if f.empty_shared_counters > 0 && partner_reaches_pot {
                    Skill::PlaceObjOnCounter
                } else {
                    Skill::Wait(1)
                }
            } else if need_dish && !partner_free && f.partner_held != Some(ObjKind::Dish) {
                // Free the hands: the soup needs a dish and the teammate is busy.
                Skill::PlaceObjOnCounter
            } else {
                Skill::Wait(1)
            }
        }
        None => {
            let hand_over_ok = |reserve: u8| f.empty_shared_counters > reserve;
            let dish_useful = i_reach_pot || (partner_reaches_pot && hand_over_ok(0));
            let can_dish = f.my_steps.dish.is_some() && dish_useful;
            // Leave one hand-over counter free for a dish when one will be needed.
            let onion_reserve = u8::from(!i_reach_pot && (soups > 0 || f.pots.iter().any(|p| missing(p) < cap as u32)));
            let can_onion =
                f.my_steps.onion.is_some() && (i_reach_pot || (partner_reaches_pot && hand_over_ok(onion_reserve)));
            // The teammate takes the dish when it is free, can use one and is closer.
            let partner_takes_dish = partner_free
                && partner_reaches_pot
                && matches!(f.partner_skill, None | Some(Skill::PickupDish))
                && match (f.partner_steps.dish, f.my_steps.dish) {
                    (Some(p), Some(m)) => p < m || (p == m && f.me == 1),
                    (Some(_), None) => true,
                    _ => false,
                };
            let want_dish = need_dish && can_dish && !partner_takes_dish;
            let want_onion = need_onion && can_onion;
            if want_dish && want_onion {
                let trip = f.my_steps.dish.unwrap_or(0) as u32 + f.my_steps.soup_pot.unwrap_or(0) as u32;
                let r = soonest.unwrap_or(20);
                return if r <= trip + 2 { Skill::PickupDish } else { Skill::PickupOnion };
            }
            if want_dish {
                return Skill::PickupDish;
            }
            if want_onion {
                return Skill::PickupOnion;
            }
            // Nothing urgent: get an onion ready for the next soup.
            let spare = onion_supply < cap as u32;
            if can_onion && spare && (i_reach_pot || counter_onions < cap as u32) {
                return Skill::PickupOnion;
            }
            Skill::Wait(1)
        }
    }
}
