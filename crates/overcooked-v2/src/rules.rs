//! The rule-based V2 skill choice shared by the scripted partner and the built-in scripted
//! model: what a sensible cook does with what it knows ([`Knowledge`]).
//!
//! In short: deliver a dish; plate a soup that is cooking or cooked; put a held ingredient
//! into a pot that still needs it; learn the recipe when it is unknown (look at an
//! indicator, or press a button); fetch what the recipe still needs; and when the pots are
//! out of reach, supply the teammate through shared counters (and light the button for a
//! teammate who cannot see the recipe).

use crate::env::item::{Item, POT_CAPACITY, Recipe};
use crate::knowledge::{Knowledge, PotSeen};
use crate::skills::{Skill, Target};

/// Whether pot contents `c` can still become `recipe`.
pub fn fits(c: Item, recipe: Recipe) -> bool {
    (0..crate::env::MAX_KINDS as u8).all(|k| c.count(k) <= recipe.count(k))
}

/// The kinds a pot holding `c` still needs for `recipe`, each once per missing unit.
fn missing(c: Item, recipe: Recipe) -> Vec<u8> {
    let mut out = Vec::new();
    for &k in &recipe.0 {
        let have = c.count(k) + out.iter().filter(|&&x| x == k).count() as u32;
        if have < recipe.count(k) {
            out.push(k);
        }
    }
    out
}

/// A counter this agent may take from: not one it stocks for a teammate (when it reaches no pot).
fn takeable(k: &Knowledge, c: &crate::knowledge::CounterView) -> bool {
    c.mine && !(k.reach.pots.is_empty() && c.mates)
}

fn can_get(k: &Knowledge, kind: u8) -> bool {
    k.reach.piles.contains(&kind) || k.counters.iter().any(|c| takeable(k, c) && c.item == Item::ingredient(kind))
}

fn plate_available(k: &Knowledge) -> bool {
    k.reach.plate_pile || k.counters.iter().any(|c| takeable(k, c) && c.item.is_plate())
}

fn free_counter(k: &Knowledge) -> bool {
    k.reach.counters > k.counters.iter().filter(|c| c.mine).count()
}

/// Hand-over counters (ones that also touch another room) that may still be free.
fn shared_free_count(k: &Knowledge) -> usize {
    k.reach.shared.len().saturating_sub(k.counters.iter().filter(|c| c.mine && c.mates).count())
}

/// Whether a hand-over counter may still be free.
fn free_shared(k: &Knowledge) -> bool {
    shared_free_count(k) > 0
}

/// The recipe to cook for: the known one; else the only possible recipe that fits what the
/// pots in sight hold and what teammates in sight carry; else, when this agent has no way to
/// learn it (no indicator in view of its room, no button), a guess (the first that fits).
pub fn working_recipe(k: &Knowledge) -> Option<Recipe> {
    if let Some(r) = k.recipe() {
        return Some(r);
    }
    // What teammates carry, or hand over on shared counters, hints at what they know.
    let mut carried: Vec<u8> =
        k.mates.iter().filter_map(|m| m.held.is_raw().then(|| m.held.first_kind()).flatten()).collect();
    carried
        .extend(k.counters.iter().filter(|c| c.mine && c.mates && c.item.is_raw()).filter_map(|c| c.item.first_kind()));
    let consistent: Vec<Recipe> = k
        .possible
        .iter()
        .copied()
        .filter(|r| !k.ruled_out.contains(r))
        .filter(|r| {
            k.pots.iter().all(|p| match p.seen {
                Some(PotSeen::Idle(c)) | Some(PotSeen::Cooking(c, _)) | Some(PotSeen::Ready(c)) => fits(c, *r),
                None => true,
            }) && carried.iter().all(|&kind| r.count(kind) > 0)
        })
        .collect();
    // A teammate who can see the recipe and cooks at a pot this agent reaches, or can light a
    // button, will show it: better wait for that than guess.
    let useful = |m: &crate::knowledge::Reach| m.piles.iter().any(|&kind| k.possible.iter().any(|r| r.count(kind) > 0));
    let informed = |m: &&crate::knowledge::Reach| m.indicator_visible_from_room && useful(m);
    let signaller = k.mate_reach.iter().any(|m| m.indicator_visible_from_room && m.button);
    let supplier = k.mate_reach.iter().filter(informed).any(|m| m.shared.iter().any(|p| k.reach.shared.contains(p)));
    let co_cook = k.mate_reach.iter().filter(informed).any(|m| m.pots.iter().any(|p| k.reach.pots.contains(p)));
    // Waiting for an informed co-cook helps until it has put something in: if the pots
    // still leave several recipes open after that, guess. An informed teammate handing
    // ingredients over is trusted: what it brings is cooked, nothing is guessed.
    let mate_acted = k.pots.iter().any(|p| matches!(p.seen, Some(PotSeen::Idle(c)) if !c.is_empty()));
    match consistent.as_slice() {
        [one] => Some(*one),
        _ if k.reach.indicator_visible_from_room
            || k.reach.button
            || !k.lit_buttons.is_empty()
            || signaller
            || supplier
            || (co_cook && !mate_acted) =>
        {
            None
        }
        [first, ..] => Some(*first),
        [] => k.possible.first().copied(),
    }
}

/// A dish worth delivering: the recipe's, or any when a wrong one costs nothing, the recipe
/// is unknown, or a teammate who fills a pot cannot see the recipe (a delivery frees the
/// counter, and the team reward tells whoever sees it how the guess went).
pub fn deliverable(k: &Knowledge, recipe: Option<Recipe>, item: Item) -> bool {
    let mates_informed = k.mate_reach.iter().all(|m| m.pots.is_empty() || m.indicator_visible_from_room);
    item.is_dish() && (!k.negative_rewards || !mates_informed || recipe.is_none_or(|r| item == r.dish()))
}

/// The next skill for the agent that knows `k`.
pub fn choose(k: &Knowledge) -> Skill {
    let held = k.held;
    let recipe = working_recipe(k);
    let my_pots: Vec<_> = k.pots.iter().filter(|p| p.mine).collect();
    let soup_coming = |p: &&crate::knowledge::PotView| match p.seen {
        Some(PotSeen::Cooking(c, _)) | Some(PotSeen::Ready(c)) => recipe.is_none_or(|r| c == r.contents()),
        Some(PotSeen::Idle(c)) => k.start_on_interact && c.total() == POT_CAPACITY,
        None => false,
    };
    let mate_has_plate = k.mates.iter().any(|m| m.held.is_plate());

    if held.is_dish() {
        // A wrong dish that would cost points is better left on a counter of this room —
        // unless a teammate who cannot see the recipe cooked it: delivering it is how that
        // teammate learns its guess was wrong.
        let wrong = recipe.is_some_and(|r| held != r.dish());
        let mates_informed = k.mate_reach.iter().all(|m| m.pots.is_empty() || m.indicator_visible_from_room);
        if wrong && k.negative_rewards && mates_informed && free_counter(k) && k.reach.goal {
            return Skill::PlaceOnCounter;
        }
        if k.reach.goal {
            return Skill::Deliver;
        }
        return if free_shared(k) { Skill::PlaceOnCounter } else { Skill::Wait(2) };
    }
    if held.is_plate() {
        if my_pots.iter().any(soup_coming)
            || my_pots.iter().any(|p| matches!(p.seen, Some(PotSeen::Cooking(..) | PotSeen::Ready(_))))
        {
            return Skill::PlateSoup;
        }
        if my_pots.is_empty() {
            return if free_shared(k) { Skill::PlaceOnCounter } else { Skill::Wait(2) };
        }
        if my_pots.iter().all(|p| p.seen.is_none()) {
            return Skill::PlateSoup;
        }
        // The pots still need filling and nobody in sight brings ingredients: free the hands.
        let someone_filling = k.mates.iter().any(|m| m.held.is_raw());
        if !someone_filling && free_counter(k) {
            return Skill::PlaceOnCounter;
        }
        return Skill::Wait(2);
    }
    if let Some(kind) = held.is_raw().then(|| held.first_kind()).flatten() {
        // Judged against the recipe this agent knows; a guessed one does not veto what it
        // (or a teammate handing over) brought.
        let known = k.recipe();
        let wanted = my_pots.iter().any(|p| match p.seen {
            None => true,
            Some(PotSeen::Idle(c)) => {
                c.total() < POT_CAPACITY && known.is_none_or(|r| !fits(c, r) || c.count(kind) < r.count(kind))
            }
            _ => false,
        });
        if wanted {
            return Skill::PutInPot(kind);
        }
        let room = if my_pots.is_empty() { free_shared(k) } else { free_counter(k) };
        return if room { Skill::PlaceOnCounter } else { Skill::Wait(2) };
    }

    // Empty hands.
    if let Some(r) = k.recipe()
        && let Some(s) = signal(k, r)
    {
        return s;
    }
    if k.start_on_interact
        && my_pots.iter().any(|p| match p.seen {
            Some(PotSeen::Idle(c)) => c.total() == POT_CAPACITY || recipe.is_some_and(|r| c == r.contents()),
            _ => false,
        })
    {
        return Skill::StartCooking;
    }
    if recipe.is_none() {
        if k.reach.indicator_visible_from_room {
            return Skill::CheckRecipe;
        }
        if k.reach.button && k.lit_buttons.is_empty() {
            return Skill::PressButton;
        }
        // A teammate can light a button this agent can watch: stand where it is in sight.
        let signaller = k.mate_reach.iter().any(|m| m.button && m.indicator_visible_from_room);
        let button_in_sight = k.lit_buttons.len() + usize::from(k.sees_any_button()) > 0;
        if signaller && k.reach.button_visible_from_room && !button_in_sight {
            return Skill::CheckRecipe;
        }
    }
    // Not knowing the recipe, and the pots out of sight: go where the pots can be seen (their
    // contents may tell the recipe; a lit button near them will).
    if recipe.is_none() && !my_pots.is_empty() && my_pots.iter().all(|p| p.seen.is_none()) {
        return Skill::CheckPot;
    }
    if k.reach.goal && k.counters.iter().any(|c| c.mine && deliverable(k, recipe, c.item)) {
        return Skill::Pickup(Target::Dish);
    }
    if my_pots.iter().any(soup_coming) && !mate_has_plate && plate_available(k) {
        return Skill::Pickup(Target::Plate);
    }
    // The recipe unknown, but a teammate hands ingredients over: trust it, cook what arrives.
    if k.recipe().is_none()
        && my_pots.iter().any(|p| match p.seen {
            None => true,
            Some(PotSeen::Idle(c)) => c.total() < POT_CAPACITY,
            _ => false,
        })
        && let Some(c) = k.counters.iter().find(|c| c.mine && c.mates && c.item.is_raw())
        && let Some(kind) = c.item.first_kind()
    {
        return Skill::Pickup(Target::Ingredient(kind));
    }
    // A pot stuck with a wrong mix (the recipe changed, or a mistake): cook it out of the way.
    // Not when a teammate who cannot see the recipe fills it: that is its guess, and
    // letting it finish (and fail) is how it learns.
    let mates_informed = k.mate_reach.iter().all(|m| m.pots.is_empty() || m.indicator_visible_from_room);
    if let Some(r) = recipe.filter(|_| k.recipe().is_some() && mates_informed) {
        for p in &my_pots {
            if let Some(PotSeen::Idle(c)) = p.seen
                && !c.is_empty()
                && !fits(c, r)
            {
                if k.start_on_interact {
                    return Skill::StartCooking;
                }
                let kinds = r.0.iter().copied().chain(k.reach.piles.iter().copied());
                if let Some(kind) = kinds.into_iter().find(|&kind| can_get(k, kind)) {
                    return Skill::Pickup(Target::Ingredient(kind));
                }
            }
        }
    }
    if let Some(r) = recipe {
        // A pot this agent fills: the one that fits the recipe (or is out of sight: go and see).
        let in_hands: Vec<u8> =
            k.mates.iter().filter_map(|m| m.held.is_raw().then(|| m.held.first_kind()).flatten()).collect();
        for p in &my_pots {
            let contents = match p.seen {
                Some(PotSeen::Idle(c)) if fits(c, r) => c,
                None => Item::EMPTY,
                _ => continue,
            };
            let mut need = missing(contents, r);
            for h in &in_hands {
                if let Some(i) = need.iter().position(|x| x == h) {
                    need.remove(i);
                }
            }
            if let Some(&kind) = need.iter().find(|&&kind| can_get(k, kind)) {
                return Skill::Pickup(Target::Ingredient(kind));
            }
        }
        if my_pots.is_empty() && k.mate_reaches_pot() {
            return supply(k, r);
        }
    } else if my_pots.is_empty() && k.mate_reaches_pot() {
        if !k.reach.shared.iter().any(|&p| k.sees(p)) {
            return Skill::CheckCounters;
        }
        // Nothing to cook with, no recipe: a plate on the shared counter still helps.
        if !k.counters.iter().any(|c| c.mates && c.item.is_plate()) && plate_available(k) && free_shared(k) {
            return Skill::Pickup(Target::Plate);
        }
    }
    if my_pots.iter().any(|p| matches!(p.seen, Some(PotSeen::Cooking(..) | PotSeen::Ready(_))))
        && plate_available(k)
        && !mate_has_plate
    {
        return Skill::Pickup(Target::Plate);
    }
    // A pot about to be full (the teammates in sight carry the rest): fetch the plate now.
    let carried = k.mates.iter().filter(|m| m.held.is_raw()).count() as u32;
    let nearly = my_pots
        .iter()
        .any(|p| matches!(p.seen, Some(PotSeen::Idle(c)) if c.total() > 0 && c.total() + carried >= POT_CAPACITY));
    if nearly && plate_available(k) && !mate_has_plate {
        return Skill::Pickup(Target::Plate);
    }
    // Nothing to do here: look at the hand-over counters if none is in sight.
    if !k.reach.shared.is_empty() && !k.reach.shared.iter().any(|&p| k.sees(p)) {
        return Skill::CheckCounters;
    }
    Skill::Wait(2)
}

/// Light the button for a teammate who fills a pot but cannot see a recipe indicator: once
/// per recipe, and again when a pot it fills (in sight) goes wrong.
fn signal(k: &Knowledge, r: Recipe) -> Option<Skill> {
    let mate_blind = k.mate_reach.iter().any(|m| !m.pots.is_empty() && !m.indicator_visible_from_room);
    if !(mate_blind && k.reach.button && k.lit_buttons.is_empty() && k.held.is_empty()) {
        return None;
    }
    // A pot the teammate fills, in sight, going wrong — or empty and idle, which is how it
    // looks after a delivery (when a new recipe may have been drawn unseen by the teammate).
    let needs_it = k.pots.iter().filter(|p| p.mates).any(|p| match p.seen {
        Some(PotSeen::Idle(c)) => !fits(c, r) || c.is_empty(),
        _ => false,
    });
    let press = match k.last_press {
        None => true,
        Some((_, Some(pressed))) if pressed != r => true,
        Some((t, _)) => needs_it && k.step >= t + 25,
    };
    press.then_some(Skill::PressButton)
}

/// An agent that cannot reach a pot: light the button for a teammate who cannot see the
/// recipe, then keep the shared counters stocked with what the recipe needs and a plate.
fn supply(k: &Knowledge, r: Recipe) -> Skill {
    if let Some(s) = signal(k, r) {
        return s;
    }
    // What lies on the hand-over counters decides what to bring: look first.
    if !k.reach.shared.is_empty() && !k.reach.shared.iter().any(|&p| k.sees(p)) {
        return Skill::CheckCounters;
    }
    // Keep one hand-over counter free for what comes back (a dish to deliver).
    if !free_shared(k) || shared_free_count(k) < 2 && k.reach.shared.len() > 1 {
        return Skill::Wait(2);
    }
    let mut shared: Vec<Item> = k.counters.iter().filter(|c| c.mates).map(|c| c.item).collect();
    // A plate first: the teammate cannot plate anything without one.
    let mate_has_plate = k.mates.iter().any(|m| m.held.is_plate());
    if !shared.iter().any(|i| i.is_plate()) && !mate_has_plate && plate_available(k) {
        return Skill::Pickup(Target::Plate);
    }
    // What a teammate in sight already carries counts as supplied.
    shared.extend(k.mates.iter().map(|m| m.held).filter(|h| !h.is_empty()));
    let mut pot_contents = Item::EMPTY;
    if let Some(p) = k.pots.iter().find(|p| p.mates) {
        match p.seen {
            Some(PotSeen::Idle(c)) if fits(c, r) => pot_contents = c,
            Some(PotSeen::Cooking(..) | PotSeen::Ready(_)) => {
                if !shared.iter().any(|i| i.is_plate()) && plate_available(k) {
                    return Skill::Pickup(Target::Plate);
                }
            }
            _ => {}
        }
    }
    // The pot out of sight: what this agent handed over since the last dish is on its way.
    let pot_seen = k.pots.iter().any(|p| p.mates && p.seen.is_some());
    let mut need = missing(pot_contents, r);
    if !pot_seen {
        for kind in &k.supplied {
            if let Some(i) = need.iter().position(|x| x == kind) {
                need.remove(i);
            }
        }
        shared.retain(|i| !i.is_raw());
    }
    for item in &shared {
        if let Some(kind) = item.first_kind().filter(|_| item.is_raw())
            && let Some(i) = need.iter().position(|&x| x == kind)
        {
            need.remove(i);
        }
    }
    if let Some(&kind) = need.iter().find(|&&kind| can_get(k, kind)) {
        return Skill::Pickup(Target::Ingredient(kind));
    }
    if !shared.iter().any(|i| i.is_plate()) && plate_available(k) {
        return Skill::Pickup(Target::Plate);
    }
    Skill::Wait(3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_and_fits() {
        let r = Recipe::new([0, 0, 1]);
        assert_eq!(missing(Item::EMPTY, r), vec![0, 0, 1]);
        assert_eq!(missing(Item::ingredient(0), r), vec![0, 1]);
        assert!(fits(Item::ingredient(1), r));
        assert!(!fits(Item::ingredient(1).plus(Item::ingredient(1)), r));
    }
}
