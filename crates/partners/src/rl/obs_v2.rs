//! The OvercookedV2 observation of the learned partners (`v2-view/1`): compact features
//! of what one agent sees, in the spirit of the 62 classic features, computed only from
//! the cells inside its view (the whole grid without a view radius; the
//! (2r+1)×(2r+1) square around it with `--view-radius r`, as JaxMARL crops its tensor).
//!
//! With `n` ingredient kinds and the `T = n + 11` targets — a pile of each kind, the plate
//! pile, the delivery window, a pot that is empty / holds ingredients / cooks / is ready,
//! a counter holding a plate / a dish / raw ingredients, a recipe indicator or button, an
//! empty counter — the vector is, in order:
//!
//! | block | width | contents |
//! |---|---|---|
//! | self | 4 + (2 + n) + 2T + 4 | facing (one-hot N, S, E, W); held item (plate, cooked, count of each kind); for each target, (dx, dy) from the agent to the closest visible one by walking distance (to a floor cell beside it), (0, 0) if none is visible and reachable; whether each of the four neighbouring cells is blocked (not floor, or another agent) |
//! | partner | 1 + 2 + 4 + (2 + n) | the closest other agent if visible: a flag, its (dx, dy), facing, held item; zeros otherwise |
//! | pots | 2 × (5 + 2n) | the two closest visible pots: (dx, dy), contents by kind, cooking progress (steps left / 20), ready, holds something the recipe does not want, and per kind what the recipe still needs (0 while the recipe is unknown) |
//! | recipe | 1 + n | known (a recipe indicator or lit button in view, or the layout lists one recipe only), and its count of each kind |
//! | position | 2 | the agent's own cell (x, y), only without a view radius (zeros with one) |
//! | delivery | 1 | the delivery indicator (`--indicate-delivery`) when a delivery window is in view |
//!
//! Walking distances are precomputed per layout (a breadth-first search from every
//! non-floor cell), so layouts of at most [`MAX_CELLS`] cells are supported.
//!
//! Guarantees: a pure function of (layout, settings, state, agent); nothing outside the
//! view radius changes it (tested); the length is [`V2View::dim`] for every state.

use super::obs::Encode;
use proagent_overcooked::env::{Dir, Pos};
use proagent_overcooked_v2::env::obs::visible;
use proagent_overcooked_v2::env::{COOK_TIME, Item, Layout, Settings, State, Tile};
use proagent_overcooked_v2::game::OvercookedV2;
use std::collections::VecDeque;
use std::sync::Arc;

/// The name of this encoding in model files.
pub use super::obs::V2_VIEW;

/// Largest layout (in cells) the encoding precomputes walking distances for.
pub const MAX_CELLS: usize = 1024;

/// Pots described in the pot block.
const POTS: usize = 2;

/// Why a layout cannot be encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("layout {layout:?} has {cells} cells; the {V2_VIEW} encoding supports at most {MAX_CELLS}")]
pub struct TooLarge {
    /// The layout's name.
    pub layout: String,
    /// Its cells.
    pub cells: usize,
}

/// The encoding bound to one V2 game (layout and settings).
#[derive(Clone, Debug)]
pub struct V2View {
    layout: Arc<Layout>,
    settings: Settings,
    kinds: usize,
    /// Per non-floor cell (by cell index): walking steps from each cell to a floor cell
    /// beside it (`u16::MAX`: unreachable, or not a floor cell). Empty for floor cells.
    dist: Vec<Vec<u16>>,
    /// The non-floor cells that can be interacted with from some floor cell.
    targets: Vec<usize>,
}

/// What a target cell is at this moment (its slot in the target block), if anything.
fn slot(tile: Tile, item: Item, timer: u8, kinds: usize) -> Option<usize> {
    let n = kinds;
    Some(match tile {
        Tile::Pile(k) => (k as usize).min(n.saturating_sub(1)),
        Tile::PlatePile => n,
        Tile::Goal => n + 1,
        Tile::Pot if item.is_cooked() => n + 5,
        Tile::Pot if timer > 0 => n + 4,
        Tile::Pot if item.is_empty() => n + 2,
        Tile::Pot => n + 3,
        Tile::Counter if item.is_empty() => n + 10,
        Tile::Counter if item.is_plate() => n + 6,
        Tile::Counter if item.is_dish() => n + 7,
        Tile::Counter => n + 8,
        Tile::RecipeIndicator | Tile::Button => n + 9,
        Tile::Floor => return None,
    })
}

impl V2View {
    /// The encoder of `layout` under `settings`.
    pub fn new(layout: Arc<Layout>, settings: &Settings) -> Result<V2View, TooLarge> {
        let cells = layout.cells();
        if cells > MAX_CELLS {
            return Err(TooLarge { layout: layout.name.clone(), cells });
        }
        let mut dist = vec![Vec::new(); cells];
        let mut targets = Vec::new();
        for (c, tile) in layout.tiles.iter().enumerate() {
            if tile.is_floor() {
                continue;
            }
            let d = bfs_to(&layout, c);
            if d.iter().any(|&v| v != u16::MAX) {
                targets.push(c);
            }
            dist[c] = d;
        }
        Ok(V2View { kinds: layout.num_kinds as usize, layout, settings: settings.clone(), dist, targets })
    }

    /// Targets in the target block.
    fn num_targets(&self) -> usize {
        self.kinds + 11
    }

    /// Length of the vector.
    pub fn dim(&self) -> usize {
        let n = self.kinds;
        let self_block = 4 + (2 + n) + 2 * self.num_targets() + 4;
        let partner = 1 + 2 + 4 + (2 + n);
        let pots = POTS * (5 + 2 * n);
        self_block + partner + pots + (1 + n) + 2 + 1
    }

    fn held(&self, item: Item, out: &mut [f32]) {
        out[0] = f32::from(u8::from(item.has_plate()));
        out[1] = f32::from(u8::from(item.is_cooked()));
        for k in 0..self.kinds {
            out[2 + k] = item.count(k as u8) as f32;
        }
    }

    /// Writes agent `me`'s features of `state` into `out` (length [`V2View::dim`]).
    pub fn features(&self, state: &State, me: usize, out: &mut [f32]) {
        out.fill(0.0);
        let Some(agent) = state.agents.get(me) else { return };
        let l = &*self.layout;
        let n = self.kinds;
        let here = agent.pos;
        let at = l.index(here).unwrap_or(0);
        let sees = |p: Pos| visible(&self.settings, here, p);
        let offset = |p: Pos| (p.x as f32 - here.x as f32, p.y as f32 - here.y as f32);
        let mut o = 0;
        // Self: facing, held item.
        out[o + agent.dir.index()] = 1.0;
        o += 4;
        self.held(agent.held, &mut out[o..o + 2 + n]);
        o += 2 + n;
        // Closest visible target of each kind; the two closest visible pots.
        let t_count = self.num_targets();
        let mut best = vec![(u16::MAX, 0usize); t_count];
        let mut pots: Vec<(u16, usize)> = Vec::new();
        for &c in &self.targets {
            let p = l.pos_of(c);
            if !sees(p) {
                continue;
            }
            let d = self.dist[c][at];
            if d == u16::MAX {
                continue;
            }
            if let Some(s) = slot(l.tiles[c], state.items[c], state.timers[c], n)
                && d < best[s].0
            {
                best[s] = (d, c);
            }
            if l.tiles[c] == Tile::Pot {
                pots.push((d, c));
            }
        }
        for (d, c) in &best {
            if *d != u16::MAX {
                let (dx, dy) = offset(l.pos_of(*c));
                out[o] = dx;
                out[o + 1] = dy;
            }
            o += 2;
        }
        // Blocked neighbours.
        for dir in Dir::ALL {
            let blocked = match here.step(dir) {
                Some(p) if l.index(p).is_some() && l.tile(p).is_floor() => state.agents.iter().any(|a| a.pos == p),
                _ => true,
            };
            out[o + dir.index()] = f32::from(u8::from(blocked));
        }
        o += 4;
        // Partner: the closest other agent in view.
        let other = state
            .agents
            .iter()
            .enumerate()
            .filter(|(i, a)| *i != me && sees(a.pos))
            .min_by_key(|(i, a)| (a.pos.manhattan(here), *i))
            .map(|(_, a)| a);
        if let Some(a) = other {
            let (dx, dy) = offset(a.pos);
            out[o] = 1.0;
            out[o + 1] = dx;
            out[o + 2] = dy;
            out[o + 3 + a.dir.index()] = 1.0;
            self.held(a.held, &mut out[o + 7..o + 9 + n]);
        }
        o += 1 + 2 + 4 + (2 + n);
        // The recipe, if this agent can know it.
        let recipe_seen = l.recipes.len() == 1
            || self.targets.iter().any(|&c| sees(l.pos_of(c)) && state.shows_recipe_at(l, l.pos_of(c)));
        // Pots, closest first.
        pots.sort_unstable();
        for &(_, c) in pots.iter().take(POTS) {
            let item = state.items[c];
            let (dx, dy) = offset(l.pos_of(c));
            out[o] = dx;
            out[o + 1] = dy;
            for k in 0..n {
                out[o + 2 + k] = item.count(k as u8) as f32;
            }
            out[o + 2 + n] = f32::from(state.timers[c]) / f32::from(COOK_TIME);
            out[o + 3 + n] = f32::from(u8::from(item.is_cooked()));
            if recipe_seen {
                let wrong = (0..n).any(|k| item.count(k as u8) > state.recipe.count(k as u8));
                out[o + 4 + n] = f32::from(u8::from(wrong));
                for k in 0..n {
                    let need = state.recipe.count(k as u8).saturating_sub(item.count(k as u8));
                    out[o + 5 + n + k] = if item.is_cooked() || state.timers[c] > 0 { 0.0 } else { need as f32 };
                }
            }
            o += 5 + 2 * n;
        }
        o = self.dim() - (1 + n) - 3;
        if recipe_seen {
            out[o] = 1.0;
            for k in 0..n {
                out[o + 1 + k] = state.recipe.count(k as u8) as f32;
            }
        }
        o += 1 + n;
        if self.settings.view_radius.is_none() {
            out[o] = here.x as f32;
            out[o + 1] = here.y as f32;
        }
        o += 2;
        if self.settings.indicate_successful_delivery
            && state.new_correct_delivery
            && self.targets.iter().any(|&c| l.tiles[c] == Tile::Goal && sees(l.pos_of(c)))
        {
            out[o] = 1.0;
        }
    }
}

/// Walking steps from every cell to a floor cell beside `target` (`u16::MAX` where there is
/// no way, and on every non-floor cell).
fn bfs_to(l: &Layout, target: usize) -> Vec<u16> {
    let mut d = vec![u16::MAX; l.cells()];
    let mut queue = VecDeque::new();
    let tp = l.pos_of(target);
    for dir in Dir::ALL {
        if let Some(p) = tp.step(dir)
            && let Some(i) = l.index(p)
            && l.tiles[i].is_floor()
            && d[i] == u16::MAX
        {
            d[i] = 0;
            queue.push_back(i);
        }
    }
    while let Some(i) = queue.pop_front() {
        let p = l.pos_of(i);
        for dir in Dir::ALL {
            if let Some(q) = p.step(dir)
                && let Some(j) = l.index(q)
                && l.tiles[j].is_floor()
                && d[j] == u16::MAX
            {
                d[j] = d[i].saturating_add(1);
                queue.push_back(j);
            }
        }
    }
    d
}

impl Encode<OvercookedV2> for V2View {
    fn name(&self) -> &'static str {
        V2_VIEW
    }

    fn dim(&self) -> usize {
        V2View::dim(self)
    }

    fn encode(&self, view: &State, seat: usize, out: &mut [f32]) {
        self.features(view, seat, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::env::Action;
    use proagent_overcooked_v2::env::Recipe;

    fn enc(name: &str, radius: Option<u8>) -> (Arc<Layout>, Settings, V2View) {
        let l = Arc::new(Layout::builtin(name).unwrap());
        let s = Settings { view_radius: radius, ..Settings::default() };
        let e = V2View::new(Arc::clone(&l), &s).unwrap();
        (l, s, e)
    }

    #[test]
    fn features_of_cramped_room_v2_by_hand() {
        // WWPWW / 0A A1 / W   R / WBWXW: agent 0 at (1,1), agent 1 at (3,1), both facing north.
        let (l, s, e) = enc("cramped_room_v2", None);
        assert_eq!(l.num_kinds, 2);
        assert_eq!(e.dim(), 73);
        let mut st = l.start_state(&s, &mut proagent_core::game::NoChance);
        st.recipe = Recipe::new([0, 0, 1]);
        let mut x = vec![9f32; e.dim()];
        e.features(&st, 0, &mut x);
        assert_eq!(&x[0..4], &[1.0, 0.0, 0.0, 0.0], "facing north");
        assert_eq!(&x[4..8], &[0.0; 4], "empty hands");
        let t = |k: usize| (x[8 + 2 * k], x[9 + 2 * k]);
        assert_eq!(t(0), (-1.0, 0.0), "onion pile (kind 0) at (0,1)");
        assert_eq!(t(1), (3.0, 0.0), "kind 1 pile at (4,1)");
        assert_eq!(t(2), (0.0, 2.0), "plate pile at (1,3)");
        assert_eq!(t(3), (2.0, 2.0), "delivery at (3,3)");
        assert_eq!(t(4), (1.0, -1.0), "the empty pot at (2,0)");
        assert_eq!(t(5), (0.0, 0.0), "no pot with ingredients");
        assert_eq!(t(11), (3.0, 1.0), "recipe indicator at (4,2)");
        // The closest empty counter is the one north of the agent.
        assert_eq!(t(12), (0.0, -1.0));
        let o = 8 + 2 * 13;
        assert_eq!(&x[o..o + 4], &[1.0, 0.0, 0.0, 1.0], "counter north and pile west are blocked");
        let p = o + 4;
        assert_eq!(&x[p..p + 3], &[1.0, 2.0, 0.0], "partner two cells east");
        // The pot block: one pot, empty; the recipe is seen on the indicator: two of kind 0, one of kind 1.
        let pot = p + 11;
        assert_eq!(&x[pot..pot + 2], &[1.0, -1.0]);
        assert_eq!(&x[pot + 7..pot + 9], &[2.0, 1.0], "still needed");
        assert_eq!(&x[pot + 9..pot + 18], &[0.0; 9], "no second pot");
        let r = pot + 18;
        assert_eq!(&x[r..r + 3], &[1.0, 2.0, 1.0]);
        assert_eq!(&x[r + 3..r + 5], &[1.0, 1.0], "own position");
        assert_eq!(x[r + 5], 0.0);
        assert_eq!(r + 6, e.dim());
    }

    #[test]
    fn nothing_outside_the_view_radius_matters() {
        // cramped_room_v2 seen from (1,1) with radius 1: columns 0-2, rows 0-2.
        let (l, s, e) = enc("cramped_room_v2", Some(1));
        let mut st = l.start_state(&s, &mut proagent_core::game::NoChance);
        let mut a = vec![0f32; e.dim()];
        e.features(&st, 0, &mut a);
        // The partner (two cells away), the indicator, the delivery window: out of view.
        let o = 8 + 2 * 13 + 4;
        assert_eq!(a[o], 0.0, "partner not visible");
        assert_eq!(a[8 + 2 * 11], 0.0, "indicator not visible");
        // Changing what lies outside the window changes nothing.
        let recipe_before = st.recipe;
        st.recipe = Recipe::new([1, 1, 1]);
        st.items[l.index(Pos::new(3, 3)).unwrap()] = Item::PLATE;
        let mut b = vec![0f32; e.dim()];
        e.features(&st, 0, &mut b);
        assert_eq!(a, b, "recipe {recipe_before:?} → {:?} is not seen", st.recipe);
        assert_eq!(&b[b.len() - 3..], &[0.0; 3], "no absolute position under a view radius");
        // Walking into view of the partner shows it.
        l.step(&s, &mut st, &[Action::East, Action::Stay], &mut proagent_core::game::NoChance);
        e.features(&st, 0, &mut b);
        assert_eq!(&b[o..o + 3], &[1.0, 1.0, 0.0]);
    }

    #[test]
    fn every_built_in_layout_encodes() {
        for name in Layout::builtin_names() {
            for r in [None, Some(2)] {
                let (l, s, e) = enc(name, r);
                let st = l.start_state(&s, &mut proagent_core::game::NoChance);
                let mut x = vec![0f32; e.dim()];
                for me in 0..l.num_agents() {
                    e.features(&st, me, &mut x);
                    assert!(x.iter().all(|v| v.is_finite()), "{name}");
                }
            }
        }
    }
}
