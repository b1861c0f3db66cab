//! overcooked_ai 1.x's hand-made features (`OvercookedGridworld.featurize_state` of
//! overcooked-ai 1.1.0 with two pots, as `OvercookedEnv.featurize_state_mdp` calls it): 96
//! numbers per player, value for value.
//!
//! Player `i`'s vector is `[player i's 46, the other player's 46, other − i (dx, dy),
//! i's (x, y)]`. The 46 of a player P, in order:
//!
//! | offset | what |
//! |---|---|
//! | 0..4 | facing, one-hot N, S, E, W |
//! | 4..8 | held object, one-hot onion, soup, dish, tomato |
//! | 8..18 | (dx, dy) to the closest onion source, tomato source, dish source, soup on a counter (then that soup's onions, tomatoes), serving window, empty counter |
//! | 22..42 | the closest and second-closest pot: exists, is_empty, is_full, is_cooking, is_ready, onions, tomatoes, cook time left, (dx, dy) |
//! | 42..46 | for the cells north, south, east, west of P: 1 unless floor |
//!
//! (Offsets 8..22 hold the six pairs and the two soup counts: onion 8, tomato 10, dish
//! 12, soup 14, soup onions 16, soup tomatoes 17, serving 18, empty counter 20.)
//!
//! "Closest" is by the motion planner's cost: moves to stand next to the target facing
//! it, plus the interact (P's facing counts, the other player does not); ties go to the
//! first target in list order (terrain in row-major order, then objects on counters in
//! row-major order). A pair is (0, 0) when P holds that kind of object or nothing is
//! reachable. As in overcooked_ai's environment (its motion planner built with no
//! `counter_goals`), counters are never planning goals: objects lying on counters and
//! empty counters are never "closest", so those pairs stay (0, 0) unless `counter_goals`
//! is set, which makes every counter a goal.

use super::State;
use super::layout::{Layout, Tile};
use super::motion::MotionTable;
use super::pieces::{Dir, Ingredient, MAX_INGREDIENTS, Object, Player, Pos};

/// Features per player block.
pub const AI_PLAYER_FEATURES: usize = 46;
/// Length of one player's vector.
pub const AI_NUM_FEATURES: usize = 2 * AI_PLAYER_FEATURES + 4;

const POT_FEATURES: [&str; 8] =
    ["exists", "is_empty", "is_full", "is_cooking", "is_ready", "num_onions", "num_tomatoes", "cook_time"];

/// The features' names, as overcooked_ai keys them for player 0 (a pair is `KEY_dx`,
/// `KEY_dy`; a one-hot is `KEY_NAME`). Player 1's vector has the same layout with its
/// own block first.
pub fn ai_feature_names() -> Vec<String> {
    let mut out = Vec::with_capacity(AI_NUM_FEATURES);
    for p in ["p0", "p1"] {
        for d in ["north", "south", "east", "west"] {
            out.push(format!("{p}_orientation_{d}"));
        }
        for o in ["onion", "soup", "dish", "tomato"] {
            out.push(format!("{p}_objs_{o}"));
        }
        for k in ["onion", "tomato", "dish", "soup"] {
            out.push(format!("{p}_closest_{k}_dx"));
            out.push(format!("{p}_closest_{k}_dy"));
        }
        out.push(format!("{p}_closest_soup_n_onions"));
        out.push(format!("{p}_closest_soup_n_tomatoes"));
        for k in ["serving", "empty_counter"] {
            out.push(format!("{p}_closest_{k}_dx"));
            out.push(format!("{p}_closest_{k}_dy"));
        }
        for j in 0..2 {
            for f in POT_FEATURES {
                out.push(format!("{p}_closest_pot_{j}_{f}"));
            }
            out.push(format!("{p}_closest_pot_{j}_dx"));
            out.push(format!("{p}_closest_pot_{j}_dy"));
        }
        for d in ["north", "south", "east", "west"] {
            out.push(format!("{p}_wall_{d}"));
        }
    }
    out.extend(["p1_rel_p0_dx", "p1_rel_p0_dy", "p0_x", "p0_y"].map(String::from));
    out
}

/// The targets of one state, each list in tie-break order.
struct Lists {
    onion: Vec<Pos>,
    tomato: Vec<Pos>,
    dish: Vec<Pos>,
    soup: Vec<Pos>,
    serving: Vec<Pos>,
    empty_counter: Vec<Pos>,
    pots: Vec<Pos>,
}

fn row_major(cells: &[Pos]) -> Vec<Pos> {
    let mut v = cells.to_vec();
    v.sort_by_key(|p| (p.y, p.x));
    v
}

impl Lists {
    fn collect(layout: &Layout, state: &State) -> Lists {
        let mut l = Lists {
            onion: row_major(&layout.onion_sources),
            tomato: row_major(&layout.tomato_sources),
            dish: row_major(&layout.dish_sources),
            soup: Vec::new(),
            serving: row_major(&layout.serving),
            empty_counter: Vec::new(),
            pots: row_major(&layout.pots),
        };
        for (p, o) in state.objects_sorted(layout) {
            if layout.tile(p) != Tile::Counter {
                continue;
            }
            match o {
                Object::Ingredient(Ingredient::Onion) => l.onion.push(p),
                Object::Ingredient(Ingredient::Tomato) => l.tomato.push(p),
                Object::Dish => l.dish.push(p),
                Object::Soup(_) => l.soup.push(p),
            }
        }
        l.empty_counter =
            row_major(&layout.counters).into_iter().filter(|&p| state.object_at(layout, p).is_none()).collect();
        l
    }
}

/// The first target of `list` that is cheapest to reach and interact with (counters
/// count only with `counter_goals`).
fn closest(layout: &Layout, motion: &MotionTable, from: (Pos, Dir), list: &[Pos], counter_goals: bool) -> Option<Pos> {
    let mut best: Option<(u16, Pos)> = None;
    for &t in list {
        if !counter_goals && layout.tile(t) == Tile::Counter {
            continue;
        }
        if let Some((c, _)) = motion.cost_to_interact(layout, from, t)
            && best.is_none_or(|(b, _)| c < b)
        {
            best = Some((c, t));
        }
    }
    best.map(|(_, t)| t)
}

fn delta(to: Pos, from: Pos) -> (f32, f32) {
    (f32::from(to.x) - f32::from(from.x), f32::from(to.y) - f32::from(from.y))
}

fn player_block(
    layout: &Layout,
    motion: &MotionTable,
    state: &State,
    lists: &Lists,
    p: &Player,
    counter_goals: bool,
    out: &mut [f32],
) {
    out[p.dir.index()] = 1.0;
    let held = p.held.as_ref();
    if let Some(o) = held {
        let slot = match o {
            Object::Ingredient(Ingredient::Onion) => 0,
            Object::Soup(_) => 1,
            Object::Dish => 2,
            Object::Ingredient(Ingredient::Tomato) => 3,
        };
        out[4 + slot] = 1.0;
    }
    let from = (p.pos, p.dir);
    let mut pair = |at: usize, held_kind: bool, list: &[Pos]| -> Option<Pos> {
        if held_kind {
            return None;
        }
        let t = closest(layout, motion, from, list, counter_goals)?;
        (out[at], out[at + 1]) = delta(t, p.pos);
        Some(t)
    };
    pair(8, matches!(held, Some(Object::Ingredient(Ingredient::Onion))), &lists.onion);
    pair(10, matches!(held, Some(Object::Ingredient(Ingredient::Tomato))), &lists.tomato);
    pair(12, matches!(held, Some(Object::Dish)), &lists.dish);
    let soup = match held {
        Some(Object::Soup(s)) => Some(*s),
        _ => pair(14, false, &lists.soup).and_then(|t| state.soup_at(layout, t).copied()),
    };
    pair(18, false, &lists.serving);
    pair(20, false, &lists.empty_counter);
    if let Some(s) = soup {
        out[16] = f32::from(s.num_onions());
        out[17] = f32::from(s.num_tomatoes());
    }
    let mut pots = lists.pots.clone();
    for j in 0..2 {
        let Some(pot) = closest(layout, motion, from, &pots, true) else { break };
        pots.retain(|&q| q != pot);
        let f = &mut out[22 + 10 * j..32 + 10 * j];
        f[0] = 1.0;
        match state.soup_at(layout, pot) {
            None => f[1] = 1.0,
            Some(s) => {
                let full = !s.is_idle() || s.len() == MAX_INGREDIENTS;
                f[2] = f32::from(u8::from(full));
                f[3] = f32::from(u8::from(s.is_cooking()));
                f[4] = f32::from(u8::from(s.is_ready()));
                f[5] = f32::from(s.num_onions());
                f[6] = f32::from(s.num_tomatoes());
                f[7] = f32::from(s.remaining());
            }
        }
        (f[8], f[9]) = delta(pot, p.pos);
    }
    for d in Dir::ALL {
        let floor = p.pos.step(d).is_some_and(|q| layout.tile(q) == Tile::Floor);
        out[42 + d.index()] = if floor { 0.0 } else { 1.0 };
    }
}

/// Player `seat`'s 96 features of `state` (see the module documentation); `counter_goals`
/// makes counters planning goals (overcooked_ai's environment has none).
pub fn ai_featurize(
    layout: &Layout,
    motion: &MotionTable,
    state: &State,
    seat: usize,
    counter_goals: bool,
) -> [f32; AI_NUM_FEATURES] {
    let seat = seat.min(1);
    let lists = Lists::collect(layout, state);
    let mut out = [0f32; AI_NUM_FEATURES];
    let (me, other) = (&state.players[seat], &state.players[1 - seat]);
    player_block(layout, motion, state, &lists, me, counter_goals, &mut out[..AI_PLAYER_FEATURES]);
    player_block(
        layout,
        motion,
        state,
        &lists,
        other,
        counter_goals,
        &mut out[AI_PLAYER_FEATURES..2 * AI_PLAYER_FEATURES],
    );
    let n = 2 * AI_PLAYER_FEATURES;
    (out[n], out[n + 1]) = delta(other.pos, me.pos);
    out[n + 2] = f32::from(me.pos.x);
    out[n + 3] = f32::from(me.pos.y);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_the_length_and_the_start_of_cramped_room() {
        assert_eq!(ai_feature_names().len(), AI_NUM_FEATURES);
        let l = Layout::builtin("cramped_room").unwrap();
        let m = MotionTable::new(&l);
        let s = l.start_state();
        let f = ai_featurize(&l, &m, &s, 0, false);
        let names = ai_feature_names();
        let get = |n: &str| f[names.iter().position(|x| x == n).unwrap()];
        assert_eq!(get("p0_orientation_north"), 1.0);
        // Onion dispenser (0,1) from (1,2): dx -1, dy -1.
        assert_eq!((get("p0_closest_onion_dx"), get("p0_closest_onion_dy")), (-1.0, -1.0));
        assert_eq!(get("p0_closest_pot_0_exists"), 1.0);
        assert_eq!(get("p0_closest_pot_0_is_empty"), 1.0);
        assert_eq!(get("p0_closest_pot_1_exists"), 0.0);
        assert_eq!((get("p0_x"), get("p0_y")), (1.0, 2.0));
        assert_eq!((get("p1_rel_p0_dx"), get("p1_rel_p0_dy")), (2.0, -1.0));
        // Counters are no goals: the empty-counter pair stays (0, 0), unless asked.
        assert_eq!((get("p0_closest_empty_counter_dx"), get("p0_closest_empty_counter_dy")), (0.0, 0.0));
        let g = ai_featurize(&l, &m, &s, 0, true);
        assert_ne!((g[20], g[21]), (0.0, 0.0));
    }
}
