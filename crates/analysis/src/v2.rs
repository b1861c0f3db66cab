//! Interdependence in OvercookedV2 episodes, from the players' interact events: a
//! **hand-over** is an item one player puts on a counter and another picks up; it is
//! **constructive** when that item ends up in a correct delivery (an ingredient through the
//! pot it went into, a plate through the soup it carried, a dish directly). Soups whose pot
//! got ingredients from two or more players count as **shared-pot** soups. The kinds are
//! V2's: ingredients of any kind (also counted by ingredient name), plates and dishes
//! (also counted by their combination of ingredients, with the correct and wrong
//! deliveries of each combination).
//!
//! The **button** that lights a recipe indicator is a signal from one player to the
//! others: a press is **constructive** when the next delivery after it (before another
//! press) is correct and made by another player. Indicators without a button show the
//! recipe to whoever looks, so they make no event to count.
//!
//! [`summarize`] groups episodes by layout (`analyze --summary`).

use crate::Distribution;
use proagent_overcooked::env::Pos;
use proagent_overcooked_v2::env::{Event, Layout};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

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
    /// Wrong deliveries.
    #[serde(default)]
    pub wrong_dishes: u32,
    /// Ingredient hand-overs by ingredient name.
    #[serde(default)]
    pub ingredient_kinds: BTreeMap<String, Handovers>,
    /// Dishes by their ingredients ("onion, onion, tomato"): hand-overs and deliveries.
    #[serde(default)]
    pub dishes_by_recipe: BTreeMap<String, DishCounts>,
    /// Button presses as signals: `constructive` when the next delivery after the press
    /// (before another press) is correct and by another player.
    #[serde(default)]
    pub signals: Handovers,
}

/// One combination of ingredients served as a dish.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DishCounts {
    /// Dishes of it delivered when it was the recipe.
    pub correct: u32,
    /// Dishes of it delivered when it was not.
    pub wrong: u32,
    /// Dishes of it handed over on a counter.
    pub handed_over: u32,
}

impl TeamworkV2 {
    /// Constructive interactions: hand-overs that ended in a correct dish plus constructive
    /// button signals (the "constructive" count of sweep reports).
    pub fn constructive_total(&self) -> u32 {
        self.constructive + self.signals.constructive
    }

    /// The other hand-overs and button presses.
    pub fn non_constructive_total(&self) -> u32 {
        (self.handovers - self.constructive) + (self.signals.total - self.signals.constructive)
    }
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

/// One hand-over of an episode: who put what down where and when, who picked it up when,
/// and whether the item ended in a correct delivery.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HandOver {
    /// The player who put the item down.
    pub giver: usize,
    /// The player who picked it up.
    pub receiver: usize,
    /// The step in which it was put down (`None` when it lay there from the start).
    pub t_give: Option<u32>,
    /// The step in which it was picked up.
    pub t_receive: u32,
    /// The counter.
    pub at: Pos,
    /// What it was ("tomato", "plate", "dish of onion, onion, tomato").
    pub object: String,
    /// `ingredient`, `plate` or `dish`.
    pub kind: &'static str,
    /// The item ended in a correct delivery.
    pub constructive: bool,
}

/// The teamwork of an episode given each step's events by player.
pub fn teamwork(layout: &Layout, steps: &[Vec<Option<Event>>]) -> TeamworkV2 {
    walk(layout, steps).0
}

/// Every hand-over of an episode, in the order the items were picked up (the viewer marks
/// their counters on the board).
pub fn handovers(layout: &Layout, steps: &[Vec<Option<Event>>]) -> Vec<HandOver> {
    walk(layout, steps).1
}

/// Reads the episode once: its teamwork figures and its hand-overs.
fn walk(layout: &Layout, steps: &[Vec<Option<Event>>]) -> (TeamworkV2, Vec<HandOver>) {
    let names = &layout.ingredient_names;
    // Presses waiting for the next delivery: (presser).
    let mut open_presses: Vec<usize> = Vec::new();
    let mut ingredient_of: Vec<Option<String>> = Vec::new();
    let players = steps.first().map_or(0, Vec::len);
    let mut held: Vec<Token> = vec![Token::default(); players];
    // What lies on a counter: (who put it there, when, what it carries along).
    let mut lying: HashMap<Pos, (usize, Option<u32>, Token)> = HashMap::new();
    let mut list: Vec<HandOver> = Vec::new();
    let mut pots: HashMap<Pos, Token> = HashMap::new();
    let mut handover_kind: Vec<Kind> = Vec::new();
    let mut constructive: BTreeSet<usize> = BTreeSet::new();
    let mut out = TeamworkV2::default();
    for (t, events) in steps.iter().enumerate() {
        let t = t as u32;
        for (p, e) in events.iter().enumerate() {
            let Some(e) = e else { continue };
            match *e {
                Event::TakeFromPile { .. } => held[p] = Token::default(),
                Event::Place { at, .. } => {
                    lying.insert(at, (p, Some(t), std::mem::take(&mut held[p])));
                }
                Event::PickUp { item, at } => {
                    let (giver, t_give, mut token) = lying.remove(&at).unwrap_or_default();
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
                        ingredient_of.push(
                            (kind == Kind::Ingredient)
                                .then(|| item.first_kind().map(|k| item_kind(names, k)))
                                .flatten(),
                        );
                        if kind == Kind::Dish {
                            out.dishes_by_recipe.entry(item.ingredient_list(names)).or_default().handed_over += 1;
                        }
                        list.push(HandOver {
                            giver,
                            receiver: p,
                            t_give,
                            t_receive: t,
                            at,
                            object: item.describe(names),
                            kind: match kind {
                                Kind::Ingredient => "ingredient",
                                Kind::Plate => "plate",
                                Kind::Dish => "dish",
                            },
                            constructive: false,
                        });
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
                Event::Deliver { correct, dish, .. } => {
                    let token = std::mem::take(&mut held[p]);
                    let counts = out.dishes_by_recipe.entry(dish.ingredient_list(names)).or_default();
                    if correct {
                        counts.correct += 1;
                    } else {
                        counts.wrong += 1;
                        out.wrong_dishes += 1;
                    }
                    for presser in open_presses.drain(..) {
                        out.signals.total += 1;
                        out.signals.constructive += u32::from(correct && presser != p);
                    }
                    if correct {
                        out.correct_dishes += 1;
                        constructive.extend(token.handovers);
                        if token.fillers.len() >= 2 {
                            out.shared_pot_soups += 1;
                        }
                    }
                }
                Event::PressButton { .. } => {
                    out.button_presses += 1;
                    // A press before the previous one was answered by a delivery: that one
                    // signalled nothing.
                    out.signals.total += open_presses.len() as u32;
                    open_presses.clear();
                    open_presses.push(p);
                }
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
        if let Some(name) = &ingredient_of[i] {
            let e = out.ingredient_kinds.entry(name.clone()).or_default();
            e.total += 1;
            e.constructive += c;
        }
        out.handovers += 1;
        out.constructive += c;
    }
    out.signals.total += open_presses.len() as u32;
    for (i, h) in list.iter_mut().enumerate() {
        h.constructive = constructive.contains(&i);
    }
    (out, list)
}

fn item_kind(names: &[String], k: u8) -> String {
    proagent_overcooked_v2::env::item::kind_name(names, k)
}

/// The teamwork of the episodes played on one V2 layout.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct V2LayoutSummary {
    /// The layout (`v2:NAME`).
    pub layout: String,
    /// Episodes on it.
    pub episodes: usize,
    /// Episodes without a correct dish (left out of the per-dish distributions).
    pub without_correct_dish: usize,
    /// The episodes' figures added up (hand-overs by kind, dishes by combination, signals).
    pub totals: TeamworkV2,
    /// Per episode with a correct dish: constructive hand-overs per correct dish.
    pub constructive_per_dish: Option<Distribution>,
    /// Per episode with a correct dish: the share of its correct dishes from a shared pot.
    pub shared_pot_share: Option<Distribution>,
    /// Per episode with a button press: the share of constructive presses.
    pub constructive_signal_share: Option<Distribution>,
}

/// Adds one episode's figures to a running total.
fn add(into: &mut TeamworkV2, t: &TeamworkV2) {
    let plus = |a: &mut Handovers, b: &Handovers| {
        a.total += b.total;
        a.constructive += b.constructive;
    };
    into.handovers += t.handovers;
    into.constructive += t.constructive;
    plus(&mut into.ingredients, &t.ingredients);
    plus(&mut into.plates, &t.plates);
    plus(&mut into.dishes, &t.dishes);
    into.correct_dishes += t.correct_dishes;
    into.shared_pot_soups += t.shared_pot_soups;
    into.button_presses += t.button_presses;
    into.wrong_dishes += t.wrong_dishes;
    for (k, v) in &t.ingredient_kinds {
        plus(into.ingredient_kinds.entry(k.clone()).or_default(), v);
    }
    for (k, v) in &t.dishes_by_recipe {
        let e = into.dishes_by_recipe.entry(k.clone()).or_default();
        e.correct += v.correct;
        e.wrong += v.wrong;
        e.handed_over += v.handed_over;
    }
    plus(&mut into.signals, &t.signals);
}

/// Groups episodes `(layout name, teamwork)` by layout, in order of first appearance.
pub fn summarize(episodes: &[(String, TeamworkV2)]) -> Vec<V2LayoutSummary> {
    let mut order: Vec<&str> = Vec::new();
    for (l, _) in episodes {
        if !order.contains(&l.as_str()) {
            order.push(l);
        }
    }
    order
        .into_iter()
        .map(|layout| {
            let ts: Vec<&TeamworkV2> = episodes.iter().filter(|(l, _)| l == layout).map(|(_, t)| t).collect();
            let mut totals = TeamworkV2::default();
            for t in &ts {
                add(&mut totals, t);
            }
            let served: Vec<&&TeamworkV2> = ts.iter().filter(|t| t.correct_dishes > 0).collect();
            let per_dish: Vec<f64> =
                served.iter().map(|t| f64::from(t.constructive) / f64::from(t.correct_dishes)).collect();
            let shared: Vec<f64> =
                served.iter().map(|t| f64::from(t.shared_pot_soups) / f64::from(t.correct_dishes)).collect();
            let signals: Vec<f64> = ts
                .iter()
                .filter(|t| t.signals.total > 0)
                .map(|t| f64::from(t.signals.constructive) / f64::from(t.signals.total))
                .collect();
            V2LayoutSummary {
                layout: layout.to_string(),
                episodes: ts.len(),
                without_correct_dish: ts.len() - served.len(),
                totals,
                constructive_per_dish: Distribution::of(&per_dish),
                shared_pot_share: Distribution::of(&shared),
                constructive_signal_share: Distribution::of(&signals),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked_v2::env::{Item, Recipe};

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
        // The same hand-overs one by one, with their counter, steps and fate.
        let list = handovers(&layout, &steps);
        assert_eq!(list.len(), 5);
        assert_eq!((list[0].giver, list[0].receiver, list[0].t_give, list[0].t_receive), (1, 0, Some(1), 2));
        assert_eq!((list[0].at, list[0].kind, list[0].object.as_str()), (c, "ingredient", "a tomato"));
        assert!(list[..4].iter().all(|h| h.constructive), "{list:?}");
        assert_eq!((list[3].kind, list[3].t_give, list[3].t_receive), ("dish", Some(14), 15));
        assert_eq!((list[4].kind, list[4].constructive), ("plate", false));
    }

    #[test]
    fn dishes_by_combination_ingredient_kinds_and_button_signals() {
        let layout = Layout::builtin("two_rooms").unwrap();
        let c = Pos::new(4, 2);
        let pot = Pos::new(0, 2);
        let right = Recipe::new([0, 0, 1]).dish();
        let wrong = Recipe::new([0, 0, 0]).dish();
        let window = Pos::new(8, 3);
        let button = Pos::new(3, 0);
        let ev = |p: usize, e: Event| {
            let mut v = vec![None, None];
            v[p] = Some(e);
            v
        };
        let steps = vec![
            // Player 1 hands over a tomato (kind 1) and an onion (kind 0).
            ev(1, Event::TakeFromPile { item: Item::ingredient(1), at: Pos::new(6, 0) }),
            ev(1, Event::Place { item: Item::ingredient(1), at: c }),
            ev(0, Event::PickUp { item: Item::ingredient(1), at: c }),
            ev(0, Event::AddToPot { kind: 1, at: pot, count: 1, started: false }),
            ev(1, Event::TakeFromPile { item: Item::ingredient(0), at: Pos::new(6, 0) }),
            ev(1, Event::Place { item: Item::ingredient(0), at: c }),
            ev(0, Event::PickUp { item: Item::ingredient(0), at: c }),
            ev(0, Event::AddToPot { kind: 0, at: pot, count: 2, started: false }),
            ev(0, Event::AddToPot { kind: 0, at: pot, count: 3, started: true }),
            // Player 1 presses the button; player 0 serves the right dish: a constructive signal.
            ev(1, Event::PressButton { at: button }),
            ev(0, Event::TakeFromPile { item: Item::PLATE, at: Pos::new(5, 0) }),
            ev(0, Event::PlateSoup { dish: right, at: pot }),
            ev(0, Event::Deliver { dish: right, at: window, correct: true }),
            // Player 0 presses twice (the first press is answered by nothing), then serves a
            // wrong dish of onions itself: no constructive signal.
            ev(0, Event::PressButton { at: button }),
            ev(0, Event::PressButton { at: button }),
            ev(0, Event::Deliver { dish: wrong, at: window, correct: false }),
            // A press nobody answers before the end.
            ev(1, Event::PressButton { at: button }),
        ];
        let t = teamwork(&layout, &steps);
        let names = &layout.ingredient_names;
        let tomato = proagent_overcooked_v2::env::item::kind_name(names, 1);
        let onion = proagent_overcooked_v2::env::item::kind_name(names, 0);
        assert_eq!(t.ingredient_kinds[&tomato], Handovers { total: 1, constructive: 1 });
        assert_eq!(t.ingredient_kinds[&onion], Handovers { total: 1, constructive: 1 });
        assert_eq!(
            t.dishes_by_recipe[&right.ingredient_list(names)],
            DishCounts { correct: 1, wrong: 0, handed_over: 0 }
        );
        assert_eq!(
            t.dishes_by_recipe[&wrong.ingredient_list(names)],
            DishCounts { correct: 0, wrong: 1, handed_over: 0 }
        );
        assert_eq!((t.correct_dishes, t.wrong_dishes, t.button_presses), (1, 1, 4));
        assert_eq!(t.signals, Handovers { total: 4, constructive: 1 });
        assert_eq!((t.constructive_total(), t.non_constructive_total()), (3, 3));

        let s = summarize(&[("v2:two_rooms".into(), t.clone()), ("v2:two_rooms".into(), TeamworkV2::default())]);
        assert_eq!(s.len(), 1);
        assert_eq!((s[0].episodes, s[0].without_correct_dish), (2, 1));
        assert_eq!(s[0].totals.signals, t.signals);
        let per_dish = s[0].constructive_per_dish.unwrap();
        assert_eq!((per_dish.n, per_dish.mean), (1, 2.0));
        assert_eq!(s[0].constructive_signal_share.unwrap().mean, 0.25);
    }
}
