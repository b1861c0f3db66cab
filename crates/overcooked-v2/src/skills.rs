//! The OvercookedV2 skill vocabulary: skills that name ingredients (`pickup(tomato)`,
//! `put_ingredient_in_pot(onion)`), the recipe skills (`press_button()`, `check_recipe()`),
//! a tolerant parser for model replies, and the preconditions the validator checks against
//! what the agent knows ([`Knowledge`]) — never against what it cannot see.

use crate::env::Item;
use crate::knowledge::{Knowledge, PotSeen};
use serde::{Deserialize, Serialize};

/// The longest wait a plan may ask for.
pub const MAX_WAIT: u8 = 20;

/// What `pickup(...)` takes.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Target {
    /// One ingredient kind (by index).
    Ingredient(u8),
    /// An empty plate.
    Plate,
    /// A dish lying on a counter.
    Dish,
}

/// One V2 skill.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Skill {
    /// Take an ingredient, a plate or a dish (from a pile or a counter).
    Pickup(Target),
    /// Put the held ingredient of this kind into a pot.
    PutInPot(u8),
    /// Start a pot by interaction (when pots do not start by themselves).
    StartCooking,
    /// Take a cooked soup out of a pot onto the held plate.
    PlateSoup,
    /// Deliver the held dish.
    Deliver,
    /// Put the held item on an empty counter.
    PlaceOnCounter,
    /// Press a button recipe indicator.
    PressButton,
    /// Walk until the recipe indicator is in sight.
    CheckRecipe,
    /// Walk until a pot this agent can reach is in sight.
    CheckPot,
    /// Walk until a counter shared with a teammate in another room is in sight.
    CheckCounters,
    /// Stay for n steps.
    Wait(u8),
}

impl Skill {
    /// The skill as prompts write it, e.g. `pickup(tomato)`.
    pub fn text(&self, names: &[String]) -> String {
        let name = |k: u8| crate::env::item::kind_name(names, k);
        match *self {
            Skill::Pickup(Target::Ingredient(k)) => format!("pickup({})", name(k)),
            Skill::Pickup(Target::Plate) => "pickup(plate)".into(),
            Skill::Pickup(Target::Dish) => "pickup(dish)".into(),
            Skill::PutInPot(k) => format!("put_ingredient_in_pot({})", name(k)),
            Skill::StartCooking => "start_cooking()".into(),
            Skill::PlateSoup => "plate_soup()".into(),
            Skill::Deliver => "deliver_dish()".into(),
            Skill::PlaceOnCounter => "place_on_counter()".into(),
            Skill::PressButton => "press_button()".into(),
            Skill::CheckRecipe => "check_recipe()".into(),
            Skill::CheckPot => "check_pot()".into(),
            Skill::CheckCounters => "check_counters()".into(),
            Skill::Wait(n) => format!("wait({n})"),
        }
    }

    /// Whether the skill only moves the agent (no interaction with the kitchen).
    pub fn is_wait(&self) -> bool {
        matches!(self, Skill::Wait(_))
    }
}

/// A skill that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct SkillParseError {
    /// Why, in one sentence (shown to the planner when it re-plans).
    pub reason: String,
}

fn norm(s: &str) -> String {
    s.trim().trim_matches(['"', '\'', '.', ',', ';', '`', ' ']).to_ascii_lowercase().replace([' ', '-'], "_")
}

/// Reads one skill written alone (`pickup(tomato)`, `Pickup( tomato )`, `press_button`).
pub fn parse(text: &str, names: &[String]) -> Result<Skill, SkillParseError> {
    let t = norm(text);
    let bad = |reason: String| Err(SkillParseError { reason });
    let (head, arg) = match t.split_once('(') {
        Some((h, rest)) => {
            let Some(inner) = rest.strip_suffix(')') else {
                return bad(format!("{text:?} has no closing parenthesis"));
            };
            (h.trim_matches('_').to_string(), inner.trim_matches('_').to_string())
        }
        None => (t.clone(), String::new()),
    };
    let kind = |a: &str| -> Option<u8> {
        let a = a.trim_start_matches("a_").trim_start_matches("an_").trim_end_matches('s');
        names.iter().position(|n| n == a || n.trim_end_matches('s') == a).map(|k| k as u8)
    };
    let no_arg =
        |s: Skill| if arg.is_empty() { Ok(s) } else { bad(format!("{head}() takes no argument, got {arg:?}")) };
    match head.as_str() {
        "pickup" | "pick_up" | "get" => match arg.as_str() {
            "plate" | "a_plate" | "dish_plate" | "empty_plate" => Ok(Skill::Pickup(Target::Plate)),
            "dish" | "a_dish" | "soup" => Ok(Skill::Pickup(Target::Dish)),
            "" => bad("pickup needs what to pick up, e.g. pickup(onion) or pickup(plate)".into()),
            a => match kind(a) {
                Some(k) => Ok(Skill::Pickup(Target::Ingredient(k))),
                None => {
                    bad(format!("pickup({a}): unknown item (ingredients here: {}, or plate, dish)", names.join(", ")))
                }
            },
        },
        "put_ingredient_in_pot" | "put_in_pot" | "put_into_pot" => match kind(&arg) {
            Some(k) => Ok(Skill::PutInPot(k)),
            None if arg.is_empty() => {
                bad("put_ingredient_in_pot needs the ingredient, e.g. put_ingredient_in_pot(onion)".into())
            }
            None => bad(format!("put_ingredient_in_pot({arg}): unknown ingredient (here: {})", names.join(", "))),
        },
        "start_cooking" | "cook" | "start_pot" => no_arg(Skill::StartCooking),
        "plate_soup" | "fill_dish_with_soup" | "plate" => no_arg(Skill::PlateSoup),
        "deliver_dish" | "deliver" | "deliver_soup" | "serve" => no_arg(Skill::Deliver),
        "place_on_counter" | "place_obj_on_counter" | "put_on_counter" => no_arg(Skill::PlaceOnCounter),
        "press_button" | "press" => no_arg(Skill::PressButton),
        "check_recipe" | "look_at_recipe" | "read_recipe" => no_arg(Skill::CheckRecipe),
        "check_pot" | "look_at_pot" => no_arg(Skill::CheckPot),
        "check_counters" | "look_at_counters" => no_arg(Skill::CheckCounters),
        "wait" => match arg.parse::<u32>() {
            Ok(n) if (1..=MAX_WAIT as u32).contains(&n) => Ok(Skill::Wait(n as u8)),
            Ok(n) => bad(format!("wait({n}): need 0 < n <= {MAX_WAIT}")),
            Err(_) if arg.is_empty() => Ok(Skill::Wait(1)),
            Err(_) => bad(format!("wait({arg}): n must be a number")),
        },
        other => bad(format!("{other:?} is not a skill")),
    }
}

/// The first skill written anywhere in `text` (a reply field), e.g. in
/// `"I will pickup(tomato) now"`.
pub fn find_first(text: &str, names: &[String]) -> Result<Skill, SkillParseError> {
    let lower = text.to_ascii_lowercase();
    let mut first_error = None;
    let mut i = 0;
    // Each `(` is read up to the next `(` or `)`: a candidate whose argument holds another
    // `(` is no skill, and stopping there keeps the search linear in the text's length.
    while let Some(off) = lower[i..].find('(') {
        let open = i + off;
        let Some(next_off) = lower[open + 1..].find(['(', ')']) else { break };
        let next = open + 1 + next_off;
        if lower.as_bytes()[next] == b')' {
            // The word before `(` starts after the last character that is not part of it
            // (which may be several bytes long: `İpickup(tomato)`).
            let start = lower[..open]
                .char_indices()
                .rev()
                .find(|&(_, c)| !(c.is_ascii_alphanumeric() || c == '_'))
                .map_or(0, |(p, c)| p + c.len_utf8());
            let candidate = &lower[start..=next];
            if start < open {
                match parse(candidate, names) {
                    Ok(s) => return Ok(s),
                    Err(e) if first_error.is_none() && !e.reason.contains("is not a skill") => first_error = Some(e),
                    Err(_) => {}
                }
            }
        }
        i = next;
    }
    Err(first_error.unwrap_or(SkillParseError { reason: "no skill found".into() }))
}

/// A precondition that does not hold, with its name and a first-person reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Failed {
    /// Short name, e.g. `hand_empty`.
    pub name: String,
    /// Why, e.g. "I hold a plate, so I cannot pick anything up."
    pub reason: String,
}

fn fail(name: &str, reason: String) -> Vec<Failed> {
    vec![Failed { name: name.into(), reason }]
}

/// The preconditions of `skill` that do not hold for what the agent knows (empty: valid).
/// Cells the agent cannot see count as possibly fine: the validator never uses hidden facts.
pub fn check(skill: Skill, k: &Knowledge) -> Vec<Failed> {
    let names = &k.names;
    let held = k.held;
    let holds = held.describe(names);
    let empty_hands = || -> Vec<Failed> {
        if held.is_empty() {
            Vec::new()
        } else {
            fail("hand_empty", format!("I hold {holds}, so my hands are not empty."))
        }
    };
    let pots_mine: Vec<&crate::knowledge::PotView> = k.pots.iter().filter(|p| p.mine).collect();
    match skill {
        Skill::Pickup(t) => {
            let hands = empty_hands();
            if !hands.is_empty() {
                return hands;
            }
            let ok = match t {
                Target::Ingredient(kind) => {
                    k.reach.piles.contains(&kind)
                        || k.counters.iter().any(|c| c.mine && c.item == Item::ingredient(kind))
                }
                Target::Plate => k.reach.plate_pile || k.counters.iter().any(|c| c.mine && c.item.is_plate()),
                Target::Dish => k.counters.iter().any(|c| c.mine && c.item.is_dish()),
            };
            if ok {
                Vec::new()
            } else {
                let what = skill.text(names);
                fail("source_reachable", format!("I can reach no pile or counter with what {what} takes."))
            }
        }
        Skill::PutInPot(kind) => {
            if held != Item::ingredient(kind) {
                let want = crate::env::item::kind_name(names, kind);
                return fail("holding_ingredient", format!("I hold {holds}, not a {want}."));
            }
            if pots_mine.is_empty() {
                return fail("pot_reachable", "I cannot reach any pot.".into());
            }
            let open = pots_mine.iter().any(|p| match p.seen {
                None => true,
                Some(PotSeen::Idle(c)) => c.total() < crate::env::item::POT_CAPACITY,
                _ => false,
            });
            if open { Vec::new() } else { fail("pot_not_full", "Every pot I can reach is full or cooking.".into()) }
        }
        Skill::StartCooking => {
            if !k.start_on_interact {
                return fail("pots_start_by_hand", "Pots here start by themselves when full.".into());
            }
            let hands = empty_hands();
            if !hands.is_empty() {
                return hands;
            }
            let any = pots_mine.iter().any(|p| match p.seen {
                None => true,
                Some(PotSeen::Idle(c)) => !c.is_empty(),
                _ => false,
            });
            if any {
                Vec::new()
            } else {
                fail("pot_has_ingredients", "No pot I can reach holds ingredients waiting to cook.".into())
            }
        }
        Skill::PlateSoup => {
            if !held.is_plate() {
                return fail("holding_plate", format!("I hold {holds}, not an empty plate."));
            }
            // An idle pot only counts when it will be started: by hand, once it holds something.
            let any = pots_mine.iter().any(|p| match p.seen {
                None => true,
                Some(PotSeen::Idle(c)) => k.start_on_interact && !c.is_empty(),
                Some(_) => true,
            });
            if any { Vec::new() } else { fail("soup_coming", "No pot I can reach is cooking or cooked.".into()) }
        }
        Skill::Deliver => {
            if !held.is_dish() {
                return fail("holding_dish", format!("I hold {holds}, not a dish."));
            }
            if !k.reach.goal {
                return fail("goal_reachable", "I cannot reach a delivery window.".into());
            }
            Vec::new()
        }
        Skill::PlaceOnCounter => {
            if held.is_empty() {
                return fail("holding_something", "My hands are empty.".into());
            }
            let known_full = k.reach.counters > 0 && k.counters.iter().filter(|c| c.mine).count() >= k.reach.counters;
            if k.reach.counters == 0 || known_full {
                return fail("free_counter", "I can reach no empty counter.".into());
            }
            Vec::new()
        }
        Skill::PressButton => {
            let hands = empty_hands();
            if !hands.is_empty() {
                return hands;
            }
            if !k.reach.button {
                return fail("button_reachable", "I cannot reach a recipe button.".into());
            }
            Vec::new()
        }
        Skill::CheckRecipe => {
            if !k.reach.indicator_visible_from_room && !k.reach.button_visible_from_room {
                return fail(
                    "indicator_visible",
                    "No recipe indicator or button can be seen from where I can walk.".into(),
                );
            }
            Vec::new()
        }
        Skill::CheckPot => {
            if pots_mine.is_empty() {
                return fail("pot_reachable", "I cannot reach any pot.".into());
            }
            Vec::new()
        }
        Skill::CheckCounters => {
            if k.reach.shared.is_empty() {
                return fail("shared_counter", "No counter I reach touches another room.".into());
            }
            Vec::new()
        }
        Skill::Wait(_) => Vec::new(),
    }
}

/// The preconditions of a skill as (name, sentence) pairs, for the verificator's prompt.
pub fn conditions(skill: Skill, names: &[String]) -> Vec<(&'static str, String)> {
    let name = |k: u8| crate::env::item::kind_name(names, k);
    match skill {
        Skill::Pickup(t) => {
            let what = match t {
                Target::Ingredient(k) => format!("a {} pile or a {} on a counter", name(k), name(k)),
                Target::Plate => "the plate pile or an empty plate on a counter".into(),
                Target::Dish => "a dish on a counter".into(),
            };
            vec![("hand_empty", "I hold nothing.".into()), ("source_reachable", format!("I can reach {what}."))]
        }
        Skill::PutInPot(k) => vec![
            ("holding_ingredient", format!("I hold a {}.", name(k))),
            ("pot_reachable", "I can reach a pot.".into()),
            ("pot_not_full", "A pot I can reach is neither full nor cooking (or out of sight).".into()),
        ],
        Skill::StartCooking => vec![
            ("pots_start_by_hand", "Pots here start when a player starts them.".into()),
            ("hand_empty", "I hold nothing.".into()),
            ("pot_has_ingredients", "A pot I can reach holds ingredients and is not cooking.".into()),
        ],
        Skill::PlateSoup => vec![
            ("holding_plate", "I hold an empty plate.".into()),
            ("soup_coming", "A pot I can reach is cooking or cooked (or out of sight).".into()),
        ],
        Skill::Deliver => {
            vec![("holding_dish", "I hold a dish.".into()), ("goal_reachable", "I can reach a delivery window.".into())]
        }
        Skill::PlaceOnCounter => vec![
            ("holding_something", "I hold something.".into()),
            ("free_counter", "I can reach an empty counter.".into()),
        ],
        Skill::PressButton => {
            vec![("hand_empty", "I hold nothing.".into()), ("button_reachable", "I can reach a recipe button.".into())]
        }
        Skill::CheckRecipe => {
            vec![("indicator_visible", "A recipe indicator or button can be seen from a cell I can walk to.".into())]
        }
        Skill::CheckPot => vec![("pot_reachable", "I can reach a pot.".into())],
        Skill::CheckCounters => vec![("shared_counter", "A counter I reach touches another room.".into())],
        Skill::Wait(_) => vec![("wait_range", "n is a whole number from 1 to 20.".into())],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        ["onion", "tomato", "lettuce"].iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_skill_after_a_multi_byte_character_is_found() {
        let n = names();
        assert_eq!(find_first("İpickup(tomato)", &n), Ok(Skill::Pickup(Target::Ingredient(1))));
        assert_eq!(find_first("Plan: ΣΊΣΥΦΟΣwait(2) İ", &n), Ok(Skill::Wait(2)));
        assert_eq!(find_first("→start_cooking() then ((((", &n), Ok(Skill::StartCooking));
    }

    #[test]
    fn parses_tolerantly() {
        let n = names();
        let table: &[(&str, Skill)] = &[
            ("pickup(tomato)", Skill::Pickup(Target::Ingredient(1))),
            ("\"Pickup( Onions )\".", Skill::Pickup(Target::Ingredient(0))),
            ("pick_up(plate)", Skill::Pickup(Target::Plate)),
            ("pickup(dish)", Skill::Pickup(Target::Dish)),
            ("put_ingredient_in_pot(lettuce)", Skill::PutInPot(2)),
            ("start_cooking()", Skill::StartCooking),
            ("plate_soup()", Skill::PlateSoup),
            ("deliver_dish()", Skill::Deliver),
            ("place_on_counter()", Skill::PlaceOnCounter),
            ("press_button()", Skill::PressButton),
            ("press_button", Skill::PressButton),
            ("check_recipe()", Skill::CheckRecipe),
            ("check_pot()", Skill::CheckPot),
            ("check_counters()", Skill::CheckCounters),
            ("wait(5)", Skill::Wait(5)),
        ];
        for (text, want) in table {
            assert_eq!(parse(text, &n).as_ref(), Ok(want), "{text}");
            assert_eq!(parse(&want.text(&n), &n).as_ref(), Ok(want));
        }
        assert!(parse("pickup(carrot)", &n).unwrap_err().reason.contains("unknown item"));
        assert!(parse("put_ingredient_in_pot()", &n).is_err());
        assert!(parse("wait(50)", &n).is_err());
        assert!(parse("dance()", &n).is_err());
        assert_eq!(
            find_first("I will pickup(tomato), then put_ingredient_in_pot(tomato).", &n),
            Ok(Skill::Pickup(Target::Ingredient(1)))
        );
        assert_eq!(find_first("(see above) then press_button()", &n), Ok(Skill::PressButton));
        assert!(find_first("cook it", &n).is_err());
        assert!(find_first("wait(99)", &n).unwrap_err().reason.contains("0 < n"));
    }
}
