//! The hand-made BC features of Carroll et al. 2019: 62 numbers describing a
//! state from one player's point of view.
//!
//! Layout of the vector for the acting player ("self"):
//!
//! | index | what |
//! |---|---|
//! | 0..29 | self's 29 player features (below) |
//! | 29..58 | the partner's 29 player features |
//! | 58..60 | partner position − self position (dx, dy) |
//! | 60..62 | self's absolute position (x, y) |
//!
//! The 29 player features of a player P:
//!
//! | offset | what |
//! |---|---|
//! | 0..4 | facing, one-hot in the order north, south, east, west |
//! | 4..7 | held object, one-hot in the order onion, soup, dish (all zero when empty-handed) |
//! | 7..25 | nine (dx, dy) pairs, see [`TARGETS`] |
//! | 25..29 | for the neighbouring cells north, south, east, west: 1 if the cell is not floor |
//!
//! Each (dx, dy) pair is the position of the closest target of one category
//! minus P's position, where "closest" is by the motion planner's cost of
//! walking to the target and interacting with it (P's own facing counts; the
//! other player's body does not). Ties go to the target that comes first in
//! the category's list: dispensers, pots and windows in row-major order
//! (y, then x), then objects on counters in row-major order. The pair is
//! (0, 0) when no target of the category exists, when none is reachable, or
//! for the onion / dish / soup categories while P already holds that object.
//!
//! Differences from the 2019 Python code (we train our own models, so only
//! internal consistency matters; these are documented for comparison):
//! - the one-onion and two-onion pot pairs are computed here. In the old
//!   overcooked_ai `featurize_state` they are looked up under dictionary keys
//!   that its `get_pot_states` never fills, so they were always (0, 0);
//! - the last two numbers of player 1's vector are player 1's own position;
//!   the old code put player 0's position there for both players;
//! - the 2019 wall flags and ours agree: only the terrain counts, not the other
//!   player. A held tomato (no 2019 layout has tomatoes) sets the onion slot, and
//!   pots are classified by their total number of ingredients.

use proagent_overcooked::env::motion::MotionTable;
use proagent_overcooked::env::{Dir, Layout, Object, Player, Pos, State, Tile};

/// Length of a feature vector.
pub const NUM_FEATURES: usize = 62;
/// Features per player.
pub const PLAYER_FEATURES: usize = 29;
/// Name of this feature set, stored with trained models.
pub const FEATURE_SET: &str = "carroll2019-62";

/// The nine target categories of the (dx, dy) pairs, in vector order.
pub const TARGETS: [&str; 9] = [
    "onion (dispenser or onion on a counter)",
    "empty pot",
    "pot with 1 ingredient",
    "pot with 2 ingredients",
    "cooking pot",
    "ready pot",
    "dish (dispenser or dish on a counter)",
    "plated soup on a counter",
    "serving window",
];

/// The features of `state` for player `seat`, given the layout's motion table.
pub fn featurize(layout: &Layout, motion: &MotionTable, state: &State, seat: usize) -> [f32; NUM_FEATURES] {
    let seat = seat.min(1);
    let targets = Targets::collect(layout, state);
    let mut out = [0f32; NUM_FEATURES];
    player_features(layout, motion, &targets, &state.players[seat], &mut out[..PLAYER_FEATURES]);
    player_features(layout, motion, &targets, &state.players[1 - seat], &mut out[PLAYER_FEATURES..2 * PLAYER_FEATURES]);
    let me = state.players[seat].pos;
    let other = state.players[1 - seat].pos;
    out[58] = other.x as f32 - me.x as f32;
    out[59] = other.y as f32 - me.y as f32;
    out[60] = me.x as f32;
    out[61] = me.y as f32;
    out
}

/// The candidate cells of each category, each list in tie-break order.
struct Targets {
    lists: [Vec<Pos>; 9],
}

impl Targets {
    fn collect(layout: &Layout, state: &State) -> Targets {
        let mut lists: [Vec<Pos>; 9] = Default::default();
        lists[0].extend(sorted(&layout.onion_sources));
        lists[6].extend(sorted(&layout.dish_sources));
        lists[8].extend(sorted(&layout.serving));
        for p in sorted(&layout.pots) {
            let soup = state.soup_at(layout, p);
            let slot = match soup {
                None => 1,
                Some(s) if s.is_empty() => 1,
                Some(s) if s.is_ready() => 5,
                Some(s) if s.is_cooking() || s.len() >= layout.rules.num_items => 4,
                Some(s) if s.len() == 1 => 2,
                Some(s) if s.len() == 2 => 3,
                // A partial pot of another capacity has no 2019 category.
                Some(_) => continue,
            };
            lists[slot].push(p);
        }
        // `objects_sorted` walks the cells in row-major order.
        for (p, o) in state.objects_sorted(layout) {
            if layout.tile(p) != Tile::Counter {
                continue;
            }
            match o {
                Object::Ingredient(_) => lists[0].push(p),
                Object::Dish => lists[6].push(p),
                Object::Soup(_) => lists[7].push(p),
            }
        }
        Targets { lists }
    }
}

fn sorted(cells: &[Pos]) -> Vec<Pos> {
    let mut v = cells.to_vec();
    v.sort_by_key(|p| (p.y, p.x));
    v
}

/// Which of the three held-object slots an object sets.
fn held_slot(o: &Object) -> usize {
    match o {
        Object::Ingredient(_) => 0,
        Object::Soup(_) => 1,
        Object::Dish => 2,
    }
}

fn player_features(layout: &Layout, motion: &MotionTable, targets: &Targets, p: &Player, out: &mut [f32]) {
    out[p.dir.index()] = 1.0;
    let held = p.held.as_ref().map(held_slot);
    if let Some(slot) = held {
        out[4 + slot] = 1.0;
    }
    for (k, list) in targets.lists.iter().enumerate() {
        // While holding the object a category is about, its pair is left at (0, 0).
        let skip = matches!((k, held), (0, Some(0)) | (6, Some(2)) | (7, Some(1)));
        if skip {
            continue;
        }
        if let Some(t) = closest(layout, motion, (p.pos, p.dir), list) {
            out[7 + 2 * k] = t.x as f32 - p.pos.x as f32;
            out[8 + 2 * k] = t.y as f32 - p.pos.y as f32;
        }
    }
    for d in Dir::ALL {
        let floor = p.pos.step(d).is_some_and(|q| layout.is_walkable(q));
        out[25 + d.index()] = if floor { 0.0 } else { 1.0 };
    }
}

/// The first target of `list` with the lowest cost to reach and interact with.
fn closest(layout: &Layout, motion: &MotionTable, from: (Pos, Dir), list: &[Pos]) -> Option<Pos> {
    let mut best: Option<(u16, Pos)> = None;
    for &t in list {
        if let Some((c, _)) = motion.cost_to_interact(layout, from, t)
            && best.is_none_or(|(b, _)| c < b)
        {
            best = Some((c, t));
        }
    }
    best.map(|(_, t)| t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::env::{Ingredient, Soup};

    fn cramped() -> (Layout, MotionTable) {
        let l = Layout::builtin("cramped_room").unwrap();
        let m = MotionTable::new(&l);
        (l, m)
    }

    fn pair(f: &[f32], base: usize, k: usize) -> (f32, f32) {
        (f[base + 7 + 2 * k], f[base + 8 + 2 * k])
    }

    #[test]
    fn start_state_of_cramped_room() {
        // XXPXX / O  2O / X1  X / XDXSX ; player 0 at (1,2), player 1 at (3,1), both facing north.
        let (l, m) = cramped();
        let s = l.start_state();
        let f = featurize(&l, &m, &s, 0);
        assert_eq!(&f[0..4], &[1.0, 0.0, 0.0, 0.0]);
        assert_eq!(&f[4..7], &[0.0, 0.0, 0.0]);
        // Onion: the dispenser at (0,1) costs N, W, interact = 3; the one at (4,1) costs more.
        assert_eq!(pair(&f, 0, 0), (-1.0, -1.0));
        // The only pot (2,0) is empty: E to (2,2), N to (2,1), interact.
        assert_eq!(pair(&f, 0, 1), (1.0, -2.0));
        for k in 2..6 {
            assert_eq!(pair(&f, 0, k), (0.0, 0.0), "pot category {k}");
        }
        // Dish dispenser (1,3) is right below: turn south + interact.
        assert_eq!(pair(&f, 0, 6), (0.0, 1.0));
        assert_eq!(pair(&f, 0, 7), (0.0, 0.0));
        assert_eq!(pair(&f, 0, 8), (2.0, 1.0));
        // Neighbours of (1,2): north (1,1) floor, south (1,3) dish, east (2,2) floor, west (0,2) counter.
        assert_eq!(&f[25..29], &[0.0, 1.0, 0.0, 1.0]);
        // Partner block: player 1 at (3,1), the onion dispenser (4,1) is adjacent.
        assert_eq!(&f[29..33], &[1.0, 0.0, 0.0, 0.0]);
        assert_eq!(pair(&f, 29, 0), (1.0, 0.0));
        assert_eq!(&f[58..62], &[2.0, -1.0, 1.0, 2.0]);
        // From player 1's side the blocks swap and the relative position flips.
        let g = featurize(&l, &m, &s, 1);
        assert_eq!(&g[0..29], &f[29..58]);
        assert_eq!(&g[29..58], &f[0..29]);
        assert_eq!(&g[58..62], &[-2.0, 1.0, 3.0, 1.0]);
    }

    #[test]
    fn held_objects_pots_and_counters() {
        let (l, m) = cramped();
        let mut s = l.start_state();
        let pot = l.index(Pos::new(2, 0)).unwrap();
        let onions = |n: usize| vec![Ingredient::Onion; n];
        // Player 0 holds an onion; a 2-onion pot; a dish and a soup on counters.
        s.players[0].held = Some(Object::ONION);
        s.players[0].dir = Dir::East;
        s.objects[pot] = Some(Object::Soup(Soup::with_ingredients(&onions(2), -1, 20).unwrap()));
        let dish_counter = l.index(Pos::new(0, 2)).unwrap();
        s.objects[dish_counter] = Some(Object::Dish);
        let soup_counter = l.index(Pos::new(4, 2)).unwrap();
        s.objects[soup_counter] = Some(Object::Soup(Soup::with_ingredients(&onions(3), 20, 20).unwrap()));
        let f = featurize(&l, &m, &s, 0);
        assert_eq!(&f[0..4], &[0.0, 0.0, 1.0, 0.0]);
        assert_eq!(&f[4..7], &[1.0, 0.0, 0.0]);
        assert_eq!(pair(&f, 0, 0), (0.0, 0.0), "holding an onion hides the onion target");
        assert_eq!(pair(&f, 0, 1), (0.0, 0.0), "no empty pot any more");
        assert_eq!(pair(&f, 0, 3), (1.0, -2.0), "the two-onion pot");
        // Facing east at (1,2), the dish on counter (0,2) costs turn W + interact = 2, the
        // dispenser (1,3) costs turn S + interact = 2 as well: dispensers come first.
        assert_eq!(pair(&f, 0, 6), (0.0, 1.0));
        // The plated soup at (4,2): E to (2,2), E to (3,2), interact.
        assert_eq!(pair(&f, 0, 7), (3.0, 0.0));
        // Cooking, then ready.
        s.objects[pot] = Some(Object::Soup(Soup::with_ingredients(&onions(3), 5, 20).unwrap()));
        let f = featurize(&l, &m, &s, 0);
        assert_eq!(pair(&f, 0, 4), (1.0, -2.0));
        assert_eq!(pair(&f, 0, 5), (0.0, 0.0));
        s.objects[pot] = Some(Object::Soup(Soup::with_ingredients(&onions(3), 20, 20).unwrap()));
        s.players[0].held = Some(Object::Dish);
        let f = featurize(&l, &m, &s, 0);
        assert_eq!(pair(&f, 0, 4), (0.0, 0.0));
        assert_eq!(pair(&f, 0, 5), (1.0, -2.0));
        assert_eq!(&f[4..7], &[0.0, 0.0, 1.0]);
        assert_eq!(pair(&f, 0, 6), (0.0, 0.0), "holding a dish hides the dish target");
        assert_eq!(pair(&f, 0, 0), (-1.0, -1.0));
        // A player holding soup: soup slot, and the counter soup target is hidden. Facing
        // west, the counter dish at (0,2) (cost 1) beats the dispenser (cost 2).
        s.players[0].dir = Dir::West;
        s.players[0].held = Some(Object::Soup(Soup::with_ingredients(&onions(3), 20, 20).unwrap()));
        let f = featurize(&l, &m, &s, 0);
        assert_eq!(&f[4..7], &[0.0, 1.0, 0.0]);
        assert_eq!(pair(&f, 0, 7), (0.0, 0.0));
        assert_eq!(pair(&f, 0, 6), (-1.0, 0.0), "the counter dish is now the closest dish");
    }

    #[test]
    fn unreachable_targets_are_zero_on_forced_coordination() {
        // XXXPX / O X1P / O2X X / D X X / XXXSX: the left player (seat 1) reaches no pot
        // and no window; the right player reaches no onion or dish dispenser.
        let l = Layout::builtin("forced_coordination").unwrap();
        let m = MotionTable::new(&l);
        let s = l.start_state();
        let left = featurize(&l, &m, &s, 1);
        for k in [1, 8] {
            assert_eq!(pair(&left, 0, k), (0.0, 0.0), "category {k}");
        }
        assert_ne!(pair(&left, 0, 0), (0.0, 0.0));
        assert_ne!(pair(&left, 0, 6), (0.0, 0.0));
        let right = featurize(&l, &m, &s, 0);
        assert_eq!(pair(&right, 0, 0), (0.0, 0.0));
        assert_eq!(pair(&right, 0, 6), (0.0, 0.0));
        // Two empty pots at (3,0) and (4,1); from (3,1) facing north, (3,0) costs 1.
        assert_eq!(pair(&right, 0, 1), (0.0, -1.0));
        assert_eq!(pair(&right, 0, 8), (0.0, 3.0));
    }
}
