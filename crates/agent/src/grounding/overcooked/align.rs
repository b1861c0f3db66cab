//! State alignment: the simulator state as the text a language model reads.
//!
//! Two styles:
//! - [`AlignStyle::ProAgent`], the scene text of the ProAgent paper: what each
//!   player holds, each pot's state, what lies on the counters each player can
//!   reach, and the time. The phrases ("<Player 0> holds nothing.", "<Pot 0> is
//!   empty;", "has 1 onion;", "start cooking, the soup will be ready after N
//!   timesteps;", "soup is ready;") are the ones the original prompts and
//!   replies use.
//! - [`AlignStyle::Coordination`], in the manner of LLM-Coordination: the same
//!   holdings and pots, plus every player's shortest-path distance to every
//!   interactable object, marked "blocked by" the teammate when the teammate's
//!   body stands on every shortest path, or "inaccessible".
//!
//! Pure: no I/O. What each player can reach never changes during an episode
//! (players cannot cross counters), so it is computed once per layout.

use proagent_overcooked::env::motion::{MotionTable, interact_spots, move_once};
use proagent_overcooked::env::{Dir, Ingredient, Layout, ObjKind, Object, Pos, Soup, State};
use proagent_overcooked::skills::facts::Access;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;
use std::fmt::Write;

/// Which scene description the planner sees.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AlignStyle {
    /// The paper's scene text.
    #[default]
    #[serde(rename = "proagent")]
    ProAgent,
    /// LLM-Coordination style: distances, blocked and inaccessible locations.
    Coordination,
}

impl std::str::FromStr for AlignStyle {
    type Err = crate::names::UnknownName;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "proagent" => Ok(AlignStyle::ProAgent),
            "coordination" | "llm-coordination" | "llm_coordination" => Ok(AlignStyle::Coordination),
            _ => Err(crate::names::UnknownName::new("align style", s, "proagent or coordination")),
        }
    }
}

/// What one player can reach on this layout (its side of the kitchen).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerReach {
    /// An onion dispenser is interactable from this player's side.
    pub onion_source: bool,
    /// A tomato dispenser is interactable from this player's side.
    pub tomato_source: bool,
    /// A dish dispenser is interactable from this player's side.
    pub dish_source: bool,
    /// A serving window is interactable from this player's side.
    pub serving: bool,
    /// Per pot, in `layout.pots` order (the `<Pot k>` of the text).
    pub pots: Vec<bool>,
    /// Per counter, in `layout.counters` order.
    pub counters: Vec<bool>,
}

/// Per-layout facts the scene text needs, computed once.
#[derive(Clone, Debug)]
pub struct SceneInfo {
    /// What each seat can reach, indexed by player (0 and 1), measured from its start position.
    pub reach: [PlayerReach; 2],
    /// Counters both players can reach (hand-over places).
    pub shared_counters: Vec<bool>,
    /// The players reach different parts of the kitchen (e.g. forced_coordination),
    /// so the scene also says how many hand-over counters are free.
    pub split: bool,
}

impl SceneInfo {
    /// Computes reach from each player's start position; counters never move, so this holds for the whole episode.
    pub fn new(layout: &Layout, motion: &MotionTable) -> SceneInfo {
        let reach_of = |p: usize| {
            let from = (layout.starts[p], Dir::North);
            let can = |t: Pos| motion.cost_to_interact(layout, from, t).is_some();
            PlayerReach {
                onion_source: layout.onion_sources.iter().any(|&t| can(t)),
                tomato_source: layout.tomato_sources.iter().any(|&t| can(t)),
                dish_source: layout.dish_sources.iter().any(|&t| can(t)),
                serving: layout.serving.iter().any(|&t| can(t)),
                pots: layout.pots.iter().map(|&t| can(t)).collect(),
                counters: layout.counters.iter().map(|&t| can(t)).collect(),
            }
        };
        let reach = [reach_of(0), reach_of(1)];
        let shared_counters = reach[0].counters.iter().zip(&reach[1].counters).map(|(a, b)| *a && *b).collect();
        let (a, b) = (&reach[0], &reach[1]);
        let split =
            (a.onion_source, a.dish_source, a.serving, &a.pots) != (b.onion_source, b.dish_source, b.serving, &b.pots);
        SceneInfo { reach, shared_counters, split }
    }

    /// The planner-facing summary of what `player` can reach.
    pub fn access(&self, player: usize) -> Access {
        let r = &self.reach[player];
        Access {
            onion_source: r.onion_source,
            dish_source: r.dish_source,
            serving: r.serving,
            shared_counter: self.shared_counters.iter().any(|&b| b),
        }
    }
}

/// "nothing", "one onion", "one dish", "a dish with soup".
pub fn held_phrase(held: Option<&Object>) -> &'static str {
    match held {
        None => "nothing",
        Some(Object::Ingredient(Ingredient::Onion)) => "one onion",
        Some(Object::Ingredient(Ingredient::Tomato)) => "one tomato",
        Some(Object::Dish) => "one dish",
        Some(Object::Soup(_)) => "a dish with soup",
    }
}

/// "1 onion", "2 onions", "2 onions and 1 tomato", "nothing".
fn contents(s: &Soup) -> String {
    let (o, t) = (s.num_onions(), s.num_tomatoes());
    let part = |n: u8, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    match (o, t) {
        (0, 0) => "nothing".into(),
        (o, 0) => part(o, "onion"),
        (0, t) => part(t, "tomato"),
        (o, t) => format!("{} and {}", part(o, "onion"), part(t, "tomato")),
    }
}

/// One pot's clause, ending with ';'.
pub fn pot_phrase(k: usize, soup: Option<&Soup>, num_items: usize) -> String {
    match soup {
        None => format!("<Pot {k}> is empty;"),
        Some(s) if s.is_empty() => format!("<Pot {k}> is empty;"),
        Some(s) if s.is_ready() => format!("<Pot {k}> has {}, soup is ready;", contents(s)),
        Some(s) if s.is_cooking() => format!(
            "<Pot {k}> has {}, start cooking, the soup will be ready after {} timesteps;",
            contents(s),
            s.remaining()
        ),
        Some(s) if s.len() >= num_items => format!("<Pot {k}> has {} and is full;", contents(s)),
        Some(s) => format!("<Pot {k}> has {};", contents(s)),
    }
}

/// Counts of the objects that matter on the counters a player can reach.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct CounterCounts {
    /// Loose onions.
    pub onions: u8,
    /// Loose tomatoes.
    pub tomatoes: u8,
    /// Empty dishes.
    pub dishes: u8,
    /// Dishes holding soup.
    pub soups: u8,
}

/// What lies on the counters `player` can reach, by kind (each count saturates at 255).
pub fn counter_counts(info: &SceneInfo, layout: &Layout, state: &State, player: usize) -> CounterCounts {
    let mut c = CounterCounts::default();
    for (i, &pos) in layout.counters.iter().enumerate() {
        if !info.reach[player].counters[i] {
            continue;
        }
        let slot = match state.object_at(layout, pos).map(Object::kind) {
            Some(ObjKind::Onion) => &mut c.onions,
            Some(ObjKind::Tomato) => &mut c.tomatoes,
            Some(ObjKind::Dish) => &mut c.dishes,
            Some(ObjKind::Soup) => &mut c.soups,
            None => continue,
        };
        *slot = slot.saturating_add(1);
    }
    c
}

/// Empty counters `player` can reach (places to put something down).
pub fn empty_counters(info: &SceneInfo, layout: &Layout, state: &State, player: usize) -> usize {
    layout
        .counters
        .iter()
        .zip(&info.reach[player].counters)
        .filter(|&(&c, &reach)| reach && state.object_at(layout, c).is_none())
        .count()
}

fn counter_sentence(out: &mut String, c: CounterCounts, player: usize) {
    let mut parts = Vec::new();
    let mut add = |n: u8, one: &str, many: &str| {
        if n == 1 {
            parts.push(format!("1 {one}"));
        } else if n > 1 {
            parts.push(format!("{n} {many}"));
        }
    };
    add(c.onions, "onion", "onions");
    add(c.tomatoes, "tomato", "tomatoes");
    add(c.dishes, "dish", "dishes");
    add(c.soups, "dish with soup", "dishes with soup");
    if parts.is_empty() {
        let _ = write!(out, "On counters <Player {player}> can reach: nothing.");
    } else {
        let _ = write!(out, "On counters <Player {player}> can reach: {}.", parts.join(", "));
    }
}

/// The scene message for `me`: `Scene t: <Player me> holds ... Kitchen states: ...`.
pub fn scene_text(
    style: AlignStyle,
    info: &SceneInfo,
    layout: &Layout,
    motion: &MotionTable,
    state: &State,
    me: usize,
    horizon: u32,
) -> String {
    let mut s = String::with_capacity(512);
    let other = 1 - me;
    let left = horizon.saturating_sub(state.timestep);
    let _ = write!(s, "Scene {}: ", state.timestep);
    for p in [me, other] {
        let pl = &state.players[p];
        if style == AlignStyle::Coordination {
            let _ = write!(s, "<Player {p}> is at ({}, {}) facing {}. ", pl.pos.x, pl.pos.y, pl.dir.name());
        }
        let _ = write!(s, "<Player {p}> holds {}. ", held_phrase(pl.held.as_ref()));
    }
    s.push_str("Kitchen states:");
    for (k, &pos) in layout.pots.iter().enumerate() {
        s.push(' ');
        s.push_str(&pot_phrase(k, state.soup_at(layout, pos), layout.rules.num_items));
    }
    s.push(' ');
    for p in [me, other] {
        counter_sentence(&mut s, counter_counts(info, layout, state, p), p);
        s.push(' ');
    }
    for p in [me, other] {
        let _ = write!(s, "Empty counters <Player {p}> can reach: {}. ", empty_counters(info, layout, state, p));
    }
    if info.split {
        let free = layout
            .counters
            .iter()
            .zip(&info.shared_counters)
            .filter(|&(&c, &shared)| shared && state.object_at(layout, c).is_none())
            .count();
        let _ = write!(s, "Empty counters both players can reach: {free}. ");
    }
    let _ = write!(s, "Time left: {left} timesteps.");
    if style == AlignStyle::Coordination {
        for p in [me, other] {
            s.push('\n');
            distances_block(&mut s, layout, motion, state, p);
        }
    }
    s
}

/// The interactable objects of a layout, with their names in the text.
fn interactables(layout: &Layout, state: &State) -> Vec<(String, Pos)> {
    let mut v = Vec::new();
    let mut named = |name: &str, list: &[Pos]| {
        for (k, &p) in list.iter().enumerate() {
            v.push((format!("<{name} {k}>"), p));
        }
    };
    named("Onion Dispenser", &layout.onion_sources);
    named("Tomato Dispenser", &layout.tomato_sources);
    named("Dish Dispenser", &layout.dish_sources);
    named("Pot", &layout.pots);
    named("Serving Loc", &layout.serving);
    for &c in &layout.counters {
        if let Some(o) = state.object_at(layout, c) {
            v.push((format!("<Counter ({}, {}) with {}>", c.x, c.y, held_phrase(Some(o))), c));
        }
    }
    v
}

/// Moves from `from` to every motion state, treating `block` as a wall.
fn bfs_with_block(layout: &Layout, from: (Pos, Dir), block: Pos) -> impl Fn((Pos, Dir)) -> Option<u16> {
    let w = layout.width;
    let idx = move |(p, d): (Pos, Dir)| (p.y as usize * w + p.x as usize) * 4 + d.index();
    let mut dist = vec![u16::MAX; layout.width * layout.height * 4];
    let mut q = VecDeque::new();
    dist[idx(from)] = 0;
    q.push_back(from);
    while let Some(cur) = q.pop_front() {
        let c = dist[idx(cur)];
        for d in Dir::ALL {
            let mut next = move_once(layout, cur.0, d);
            if next.0 == block {
                next = (cur.0, d);
            }
            if dist[idx(next)] == u16::MAX {
                dist[idx(next)] = c + 1;
                q.push_back(next);
            }
        }
    }
    move |s| dist.get(idx(s)).copied().filter(|&v| v != u16::MAX)
}

fn distances_block(out: &mut String, layout: &Layout, motion: &MotionTable, state: &State, p: usize) {
    let me = &state.players[p];
    let mate = state.players[1 - p].pos;
    let from = (me.pos, me.dir);
    let blocked = bfs_with_block(layout, from, mate);
    let _ = write!(out, "Distances for <Player {p}> (steps to face it and interact):");
    let items = interactables(layout, state);
    for (i, (name, pos)) in items.iter().enumerate() {
        let sep = if i == 0 { " " } else { "; " };
        let free = motion.cost_to_interact(layout, from, *pos).map(|(c, _)| c);
        let around = interact_spots(layout, *pos).filter_map(|s| blocked(s).map(|c| c + 1)).min();
        let _ = match (free, around) {
            (None, _) => write!(out, "{sep}{name}: inaccessible"),
            (Some(f), Some(a)) if a <= f => write!(out, "{sep}{name}: {f}"),
            (Some(f), Some(a)) => write!(out, "{sep}{name}: {f} (blocked by <Player {}>, {a} around)", 1 - p),
            (Some(f), None) => write!(out, "{sep}{name}: {f} (blocked by <Player {}>)", 1 - p),
        };
    }
    out.push('.');
}

/// The reach statement of the knowledge block, e.g.
/// "<Player 0> can reach: onion dispenser, dish dispenser, <Pot 0>, serving location, shared counter."
/// The built-in scripted model reads these two lines to learn each side's skills.
pub fn reach_lines(info: &SceneInfo, player: usize) -> (Vec<String>, Vec<String>) {
    let r = &info.reach[player];
    let mut can = Vec::new();
    let mut cannot = Vec::new();
    let mut put = |ok: bool, name: String| if ok { can.push(name) } else { cannot.push(name) };
    put(r.onion_source, "onion dispenser".into());
    put(r.dish_source, "dish dispenser".into());
    for (k, &ok) in r.pots.iter().enumerate() {
        put(ok, format!("<Pot {k}>"));
    }
    put(r.serving, "serving location".into());
    put(info.shared_counters.iter().any(|&b| b), "shared counter".into());
    (can, cannot)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(name: &str) -> (Layout, MotionTable, SceneInfo) {
        let l = Layout::builtin(name).unwrap();
        let m = MotionTable::new(&l);
        let i = SceneInfo::new(&l, &m);
        (l, m, i)
    }

    #[test]
    fn proagent_scene_phrases() {
        let (l, m, info) = setup("cramped_room");
        let mut s = l.start_state();
        s.players[1].held = Some(Object::ONION);
        let text = scene_text(AlignStyle::ProAgent, &info, &l, &m, &s, 0, 400);
        assert_eq!(
            text,
            "Scene 0: <Player 0> holds nothing. <Player 1> holds one onion. Kitchen states: <Pot 0> is empty; \
             On counters <Player 0> can reach: nothing. On counters <Player 1> can reach: nothing. \
             Empty counters <Player 0> can reach: 5. Empty counters <Player 1> can reach: 5. \
             Time left: 400 timesteps."
        );
        let pot = l.index(l.pots[0]).unwrap();
        let ings = [Ingredient::Onion; 3];
        s.objects[pot] = Some(Object::Soup(Soup::with_ingredients(&ings[..1], -1, 20).unwrap()));
        s.players[0].held = Some(Object::Dish);
        s.timestep = 7;
        let text = scene_text(AlignStyle::ProAgent, &info, &l, &m, &s, 1, 400);
        assert!(text.starts_with("Scene 7: <Player 1> holds one onion. <Player 0> holds one dish."), "{text}");
        assert!(text.contains("<Pot 0> has 1 onion;"), "{text}");
        assert!(text.contains("Time left: 393 timesteps."));
        s.objects[pot] = Some(Object::Soup(Soup::with_ingredients(&ings, 5, 20).unwrap()));
        let text = scene_text(AlignStyle::ProAgent, &info, &l, &m, &s, 0, 400);
        assert!(text.contains("<Pot 0> has 3 onions, start cooking, the soup will be ready after 15 timesteps;"));
        s.objects[pot] = Some(Object::Soup(Soup::with_ingredients(&ings, 20, 20).unwrap()));
        s.players[1].held = Some(Object::Soup(Soup::with_ingredients(&ings, 20, 20).unwrap()));
        let c = l.counters[info.reach[0].counters.iter().position(|&b| b).unwrap()];
        s.objects[l.index(c).unwrap()] = Some(Object::ONION);
        let text = scene_text(AlignStyle::ProAgent, &info, &l, &m, &s, 0, 400);
        assert!(text.contains("<Pot 0> has 3 onions, soup is ready;"), "{text}");
        assert!(text.contains("<Player 1> holds a dish with soup."));
        assert!(text.contains("On counters <Player 0> can reach: 1 onion."), "{text}");
        assert!(text.contains("Empty counters <Player 0> can reach: 4."), "{text}");
    }

    #[test]
    fn forced_coordination_reach_and_counters() {
        let (l, m, info) = setup("forced_coordination");
        // Player 0 is on the right (pots, serving), player 1 on the left (onions, dishes).
        assert_eq!(
            info.access(0),
            Access { onion_source: false, dish_source: false, serving: true, shared_counter: true }
        );
        assert_eq!(
            info.access(1),
            Access { onion_source: true, dish_source: true, serving: false, shared_counter: true }
        );
        let (can, cannot) = reach_lines(&info, 1);
        assert_eq!(can, ["onion dispenser", "dish dispenser", "shared counter"]);
        assert_eq!(cannot, ["<Pot 0>", "<Pot 1>", "serving location"]);
        let mut s = l.start_state();
        s.objects[l.index(Pos::new(2, 1)).unwrap()] = Some(Object::ONION);
        s.objects[l.index(Pos::new(2, 2)).unwrap()] = Some(Object::Dish);
        let c0 = counter_counts(&info, &l, &s, 0);
        assert_eq!((c0.onions, c0.dishes), (1, 1));
        let text = scene_text(AlignStyle::ProAgent, &info, &l, &m, &s, 0, 400);
        assert!(text.contains("On counters <Player 0> can reach: 1 onion, 1 dish."), "{text}");
        assert!(text.contains("Empty counters both players can reach: 1. Time left"), "{text}");
        assert!(info.split);
        assert!(!setup("cramped_room").2.split);
    }

    #[test]
    fn coordination_style_distances() {
        let (l, m, info) = setup("cramped_room");
        let mut s = l.start_state();
        let text = scene_text(AlignStyle::Coordination, &info, &l, &m, &s, 0, 400);
        assert!(text.contains("<Player 0> is at (1, 2) facing north. <Player 0> holds nothing."), "{text}");
        // From (1,2) facing north: onion dispenser (0,1) costs N, W + interact = 3.
        assert!(
            text.contains("Distances for <Player 0> (steps to face it and interact): <Onion Dispenser 0>: 3;"),
            "{text}"
        );
        // Put the teammate on (1,1): the way to the onion dispenser at (0,1) is blocked.
        s.players[1].pos = Pos::new(1, 1);
        let text = scene_text(AlignStyle::Coordination, &info, &l, &m, &s, 0, 400);
        assert!(text.contains("<Onion Dispenser 0>: 3 (blocked by <Player 1>"), "{text}");
        let (l, m, info) = setup("forced_coordination");
        let s = l.start_state();
        let text = scene_text(AlignStyle::Coordination, &info, &l, &m, &s, 1, 400);
        assert!(text.contains("<Pot 0>: inaccessible"), "{text}");
    }
}
