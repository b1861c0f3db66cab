//! Interdependence in OvercookedV2 episodes, from the players' interact events: a
//! **hand-over** is an item one player puts on a counter and another picks up; it is
//! **constructive** when that item ends up in a correct delivery (an ingredient through the
//! pot it went into, a plate through the soup it carried, a dish directly). Soups whose pot
//! got ingredients from two or more players count as **shared-pot** soups. The kinds are
//! V2's: ingredients of any kind, plates and dishes.

use crate::env::Pos;
use crate::env_v2::{Event, Layout};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};

/// Hand-overs of one kind of item.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Handovers {
    /// Items handed over.
    pub total: u32,
    /// Of those, items that ended in a correct delivery.
    pub constructive: u32,
}

/// The teamwork figures of one episode.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamworkV2 {
    /// All hand-overs.
    pub handovers: u32,
    /// Hand-overs that ended in a correct delivery.
    pub constructive: u32,
    /// Ingredients handed over.
    pub ingredients: Handovers,
    /// Empty plates handed over.
    pub plates: Handovers,
    /// Dishes handed over.
    pub dishes: Handovers,
    /// Correct deliveries.
    pub correct_dishes: u32,
    /// Correct deliveries whose pot was filled by two or more players.
    pub shared_pot_soups: u32,
    /// Button presses.
    pub button_presses: u32,
}

/// What an item carries along: the hand-overs it went through and who put ingredients in.
#[derive(Clone, Debug, Default)]
struct Token {
    handovers: BTreeSet<usize>,
    fillers: BTreeSet<usize>,
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Kind {
    Ingredient,
    Plate,
    Dish,
}

/// The teamwork of an episode given each step's events by player.
pub fn teamwork(_layout: &Layout, steps: &[Vec<Option<Event>>]) -> TeamworkV2 {
    let players = steps.first().map_or(0, Vec::len);
    let mut held: Vec<Token> = vec![Token::default(); players];
    let mut lying: HashMap<Pos, (usize, Token)> = HashMap::new();
    let mut pots: HashMap<Pos, Token> = HashMap::new();
    let mut handover_kind: Vec<Kind> = Vec::new();
    let mut constructive: BTreeSet<usize> = BTreeSet::new();
    let mut out = TeamworkV2::default();
    for events in steps {
        for (p, e) in events.iter().enumerate() {
            let Some(e) = e else { continue };
            match *e {
                Event::TakeFromPile { .. } => held[p] = Token::default(),
                Event::Place { at, .. } => {
                    lying.insert(at, (p, std::mem::take(&mut held[p])));
                }
                Event::PickUp { item, at } => {
                    let (giver, mut token) = lying.remove(&at).unwrap_or_default();
                    if giver != p {
                        let kind = if item.is_dish() {
                            Kind::Dish
                        } else if item.is_plate() {
                            Kind::Plate
                        } else {
                            Kind::Ingredient
                        };
                        token.handovers.insert(handover_kind.len());
                        handover_kind.push(kind);
                    }
                    held[p] = token;
                }
                Event::AddToPot { at, .. } => {
                    let token = std::mem::take(&mut held[p]);
                    let pot = pots.entry(at).or_default();
                    pot.handovers.extend(token.handovers);
                    pot.fillers.insert(p);
                }
                Event::StartCooking { .. } => {}
                Event::PlateSoup { at, .. } => {
                    let pot = pots.remove(&at).unwrap_or_default();
                    let plate = std::mem::take(&mut held[p]);
                    held[p] = Token {
                        handovers: pot.handovers.union(&plate.handovers).copied().collect(),
                        fillers: pot.fillers,
                    };
                }
                Event::Deliver { correct, .. } => {
                    let token = std::mem::take(&mut held[p]);
                    if correct {
                        out.correct_dishes += 1;
                        constructive.extend(token.handovers);
                        if token.fillers.len() >= 2 {
                            out.shared_pot_soups += 1;
                        }
                    }
                }
                Event::PressButton { .. } => out.button_presses += 1,
            }
        }
    }
    for (i, kind) in handover_kind.iter().enumerate() {
        let c = u32::from(constructive.contains(&i));
        let h = match kind {
            Kind::Ingredient => &mut out.ingredients,
            Kind::Plate => &mut out.plates,
            Kind::Dish => &mut out.dishes,
        };
        h.total += 1;
        h.constructive += c;
        out.handovers += 1;
        out.constructive += c;
    }
    out
}

/// A V2 trajectory whose events cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum EventsError {
    /// The trajectory has no `steps` array.
    #[error("no `steps` array")]
    NoSteps,
    /// A step's `events` are not a list of player events.
    #[error("steps[{t}].events: {source}")]
    BadEvents {
        /// The step's index.
        t: usize,
        /// The JSON error.
        #[source]
        source: serde_json::Error,
    },
}

/// Reads the `events` of a V2 trajectory's steps (as written by
/// `V2EpisodeResult::to_trajectory_json`) for [`teamwork`].
pub fn events_of_trajectory(v: &serde_json::Value) -> Result<Vec<Vec<Option<Event>>>, EventsError> {
    let steps = v.get("steps").and_then(|s| s.as_array()).ok_or(EventsError::NoSteps)?;
    steps
        .iter()
        .enumerate()
        .map(|(t, s)| {
            serde_json::from_value(s.get("events").cloned().unwrap_or_default())
                .map_err(|source| EventsError::BadEvents { t, source })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env_v2::{Item, Recipe};

    #[test]
    fn a_handed_over_tomato_in_a_correct_dish_is_constructive() {
        let layout = Layout::builtin("two_rooms").unwrap();
        let c = Pos::new(4, 2);
        let pot = Pos::new(0, 2);
        let dish = Recipe::new([1, 1, 1]).dish();
        let ev = |p: usize, e: Event| {
            let mut v = vec![None, None];
            v[p] = Some(e);
            v
        };
        let mut steps = Vec::new();
        for _ in 0..3 {
            steps.push(ev(1, Event::TakeFromPile { item: Item::ingredient(1), at: Pos::new(6, 0) }));
            steps.push(ev(1, Event::Place { item: Item::ingredient(1), at: c }));
            steps.push(ev(0, Event::PickUp { item: Item::ingredient(1), at: c }));
            steps.push(ev(0, Event::AddToPot { kind: 1, at: pot, count: 1, started: false }));
        }
        steps.push(ev(0, Event::TakeFromPile { item: Item::PLATE, at: Pos::new(5, 0) }));
        steps.push(ev(0, Event::PlateSoup { dish, at: pot }));
        steps.push(ev(0, Event::Place { item: dish, at: c }));
        steps.push(ev(1, Event::PickUp { item: dish, at: c }));
        steps.push(ev(1, Event::Deliver { dish, at: Pos::new(8, 3), correct: true }));
        steps.push(ev(1, Event::Place { item: Item::PLATE, at: c }));
        steps.push(ev(0, Event::PickUp { item: Item::PLATE, at: c }));
        let t = teamwork(&layout, &steps);
        assert_eq!(t.ingredients, Handovers { total: 3, constructive: 3 });
        assert_eq!(t.dishes, Handovers { total: 1, constructive: 1 });
        assert_eq!(t.plates, Handovers { total: 1, constructive: 0 });
        assert_eq!((t.handovers, t.constructive, t.correct_dishes, t.shared_pot_soups), (5, 4, 1, 0));
    }
}
