//! Motion costs over (cell, facing) states, computed per target on first use.
//!
//! A motion state is a floor cell plus a facing. Each move action costs 1: it
//! turns the player and, when the next cell is floor, moves it there. The cost
//! of *interacting* with a tile is the cheapest way to stand next to it facing
//! it, plus one for the interact. This is the cost model of the original's
//! motion planner, used by the BC features, the greedy partner and the
//! controller's heuristics.
//!
//! Building a table is linear in the grid: the costs *to* a motion state are
//! found by one breadth-first search backwards from it the first time anyone
//! asks, and kept. Every caller asks for costs to a few interact spots, so the
//! memory used is (spots asked about) x (motion states), never the square of the
//! grid; a kitchen whose seats never ask (e.g. two `stay` partners) costs nothing.

use super::{Action, Dir, Layout, Pos};
use std::collections::VecDeque;
use std::sync::OnceLock;

/// Unreachable marker in the distance table.
pub const UNREACHABLE: u16 = u16::MAX;

/// Motion costs of one layout, filled in per target motion state.
#[derive(Clone, Debug)]
pub struct MotionTable {
    width: usize,
    /// Motion-state id of (cell index * 4 + facing), or `u32::MAX` for non-floor cells.
    ids: Vec<u32>,
    states: Vec<(Pos, Dir)>,
    /// The states one move leads *into* each state: `pred[pred_start[s]..pred_start[s + 1]]`.
    pred_start: Vec<u32>,
    pred: Vec<u32>,
    /// Per target state: the move count from every state to it, once asked for.
    to: Vec<OnceLock<Box<[u16]>>>,
}

impl MotionTable {
    /// The motion states and their moves; costs are computed when first asked for.
    pub fn new(layout: &Layout) -> MotionTable {
        let mut ids = vec![u32::MAX; layout.width * layout.height * 4];
        let mut states = Vec::new();
        for p in layout.floor_cells() {
            for d in Dir::ALL {
                let Some(i) = layout.index(p) else { continue };
                ids[i * 4 + d.index()] = states.len() as u32;
                states.push((p, d));
            }
        }
        let n = states.len();
        // Every state has exactly 4 moves out; count the moves into each, then place them.
        let mut edges: Vec<(u32, u32)> = Vec::with_capacity(n * 4);
        for (s, &(p, _)) in states.iter().enumerate() {
            for d in Dir::ALL {
                if let Some(t) = id_of(&ids, layout, move_once(layout, p, d)) {
                    edges.push((t as u32, s as u32));
                }
            }
        }
        let mut pred_start = vec![0u32; n + 1];
        for &(t, _) in &edges {
            pred_start[t as usize + 1] += 1;
        }
        for i in 0..n {
            pred_start[i + 1] += pred_start[i];
        }
        let mut fill = pred_start.clone();
        let mut pred = vec![0u32; edges.len()];
        for &(t, s) in &edges {
            pred[fill[t as usize] as usize] = s;
            fill[t as usize] += 1;
        }
        let to = (0..n).map(|_| OnceLock::new()).collect();
        MotionTable { width: layout.width, ids, states, pred_start, pred, to }
    }

    /// Moves from every state to `target`: one breadth-first search over the moves
    /// backwards (all moves cost 1).
    fn costs_to(&self, target: usize) -> Box<[u16]> {
        let mut dist = vec![UNREACHABLE; self.states.len()].into_boxed_slice();
        dist[target] = 0;
        let mut queue = VecDeque::from([target]);
        while let Some(v) = queue.pop_front() {
            let next = dist[v].saturating_add(1).min(UNREACHABLE - 1);
            let (a, b) = (self.pred_start[v] as usize, self.pred_start[v + 1] as usize);
            for &u in &self.pred[a..b] {
                let u = u as usize;
                if dist[u] == UNREACHABLE {
                    dist[u] = next;
                    queue.push_back(u);
                }
            }
        }
        dist
    }

    /// How many target states have had their costs computed (memory use is this
    /// times [`MotionTable::num_states`] times 2 bytes).
    pub fn computed_targets(&self) -> usize {
        self.to.iter().filter(|c| c.get().is_some()).count()
    }

    /// How many motion states (floor cells x 4 facings) the layout has.
    pub fn num_states(&self) -> usize {
        self.states.len()
    }

    fn id(&self, p: Pos, d: Dir) -> Option<usize> {
        let i = (p.y as usize * self.width + p.x as usize) * 4 + d.index();
        self.ids.get(i).copied().filter(|&v| v != u32::MAX).map(|v| v as usize)
    }

    /// Moves needed to go from one motion state to another, if reachable.
    pub fn cost(&self, from: (Pos, Dir), to: (Pos, Dir)) -> Option<u16> {
        let (a, b) = (self.id(from.0, from.1)?, self.id(to.0, to.1)?);
        let c = self.to[b].get_or_init(|| self.costs_to(b))[a];
        (c != UNREACHABLE).then_some(c)
    }

    /// Moves needed to reach a cell with any facing.
    pub fn cost_to_cell(&self, from: (Pos, Dir), cell: Pos) -> Option<u16> {
        Dir::ALL.iter().filter_map(|&d| self.cost(from, (cell, d))).min()
    }

    /// Cost (moves + 1 interact) to interact with `target`, and the best standing state.
    pub fn cost_to_interact(&self, layout: &Layout, from: (Pos, Dir), target: Pos) -> Option<(u16, (Pos, Dir))> {
        interact_spots(layout, target)
            .filter_map(|spot| self.cost(from, spot).map(|c| (c + 1, spot)))
            .min_by_key(|&(c, (p, d))| (c, p, d))
    }

    /// The cheapest target among `targets` to interact with, with its cost.
    pub fn closest<'a>(
        &self,
        layout: &Layout,
        from: (Pos, Dir),
        targets: impl IntoIterator<Item = &'a Pos>,
    ) -> Option<(Pos, u16)> {
        targets
            .into_iter()
            .filter_map(|&t| self.cost_to_interact(layout, from, t).map(|(c, _)| (t, c)))
            .min_by_key(|&(t, c)| (c, t))
    }
}

fn id_of(ids: &[u32], layout: &Layout, (p, d): (Pos, Dir)) -> Option<usize> {
    let i = layout.index(p)?;
    ids.get(i * 4 + d.index()).copied().filter(|&v| v != u32::MAX).map(|v| v as usize)
}

/// Where a move action takes a player standing on `p` (ignoring the other player).
pub fn move_once(layout: &Layout, p: Pos, d: Dir) -> (Pos, Dir) {
    match p.step(d) {
        Some(q) if layout.is_walkable(q) => (q, d),
        _ => (p, d),
    }
}

/// The motion states from which `target` can be interacted with: a floor
/// neighbour of the tile, facing it.
pub fn interact_spots(layout: &Layout, target: Pos) -> impl Iterator<Item = (Pos, Dir)> + '_ {
    Dir::ALL.into_iter().filter_map(move |d| {
        let stand = target.step(d)?;
        layout.is_walkable(stand).then_some((stand, d.opposite()))
    })
}

/// The first action of a cheapest path from `from` to the motion state `to`
/// (`Interact` if already there), using the precomputed table. Ignores the other player.
pub fn first_step(table: &MotionTable, layout: &Layout, from: (Pos, Dir), to: (Pos, Dir)) -> Option<Action> {
    if from == to {
        return Some(Action::Interact);
    }
    let total = table.cost(from, to)?;
    Dir::ALL.into_iter().find_map(|d| {
        let next = move_once(layout, from.0, d);
        let rest = table.cost(next, to)?;
        (rest + 1 == total).then_some(Action::from_dir(d))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn costs_on_cramped_room() {
        let l = Layout::builtin("cramped_room").unwrap();
        let t = MotionTable::new(&l);
        assert_eq!(t.num_states(), l.floor_cells().count() * 4);
        let p0 = (Pos::new(1, 2), Dir::North);
        // Turning in place costs one move when the next cell is not floor.
        assert_eq!(t.cost(p0, (Pos::new(1, 2), Dir::West)), Some(1));
        assert_eq!(t.cost(p0, p0), Some(0));
        // Onion dispenser at (0,1): stand on (1,1) facing west: move N then W = 2, + interact.
        let (c, spot) = t.cost_to_interact(&l, p0, Pos::new(0, 1)).unwrap();
        assert_eq!((c, spot), (3, (Pos::new(1, 1), Dir::West)));
        // Pot at (2,0): E to (2,2), N to (2,1) (already facing north), + interact.
        let (c, _) = t.cost_to_interact(&l, p0, Pos::new(2, 0)).unwrap();
        assert_eq!(c, 3);
        assert_eq!(first_step(&t, &l, p0, (Pos::new(1, 1), Dir::West)), Some(Action::North));
        assert_eq!(
            first_step(&t, &l, (Pos::new(1, 1), Dir::West), (Pos::new(1, 1), Dir::West)),
            Some(Action::Interact)
        );
    }

    type State = (Pos, Dir);

    /// The all-pairs costs as the table used to precompute them: one forward
    /// Dijkstra per motion state.
    fn forward_costs(layout: &Layout) -> Vec<(State, State, u32)> {
        use pathfinding::prelude::dijkstra_all;
        let states: Vec<State> = layout.floor_cells().flat_map(|p| Dir::ALL.map(|d| (p, d))).collect();
        let mut out = Vec::new();
        for &s in &states {
            let reached =
                dijkstra_all(&s, |&(p, _)| Dir::ALL.into_iter().map(move |d| (move_once(layout, p, d), 1u32)));
            for &t in &states {
                let c = if t == s { Some(0) } else { reached.get(&t).map(|(_, c)| *c) };
                out.push((s, t, c.unwrap_or(u32::MAX)));
            }
        }
        out
    }

    #[test]
    fn lazy_backward_costs_equal_forward_all_pairs() {
        let mut layouts: Vec<Layout> =
            crate::env::layout::BUILTIN.iter().filter_map(|(n, _)| Layout::builtin(n)).collect();
        // Irregular grids with walls inside, pockets and one-cell corridors.
        use rand::{Rng, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        while layouts.len() < 5 + 12 {
            let (w, h) = (rng.random_range(4..10), rng.random_range(4..8));
            let mut rows: Vec<Vec<char>> = (0..h)
                .map(|y| {
                    (0..w)
                        .map(|x| {
                            if x == 0 || y == 0 || x == w - 1 || y == h - 1 || rng.random_bool(0.25) {
                                'X'
                            } else {
                                ' '
                            }
                        })
                        .collect()
                })
                .collect();
            for (k, c) in ['P', 'S', 'O', 'D'].into_iter().enumerate() {
                rows[0][1 + k % (w - 2)] = c;
            }
            let floor: Vec<(usize, usize)> =
                (1..h - 1).flat_map(|y| (1..w - 1).map(move |x| (x, y))).filter(|&(x, y)| rows[y][x] == ' ').collect();
            if floor.len() < 2 {
                continue;
            }
            rows[floor[0].1][floor[0].0] = '1';
            rows[floor[floor.len() - 1].1][floor[floor.len() - 1].0] = '2';
            let text: Vec<String> = rows.iter().map(|r| r.iter().collect()).collect();
            let refs: Vec<&str> = text.iter().map(String::as_str).collect();
            if let Ok(l) = Layout::from_grid("random", &refs) {
                layouts.push(l);
            }
        }
        for l in &layouts {
            let t = MotionTable::new(l);
            assert_eq!(t.computed_targets(), 0, "nothing is computed before it is asked for");
            for (from, to, want) in forward_costs(l) {
                let want = (want != u32::MAX).then_some(want as u16);
                assert_eq!(t.cost(from, to), want, "{} {from:?} -> {to:?}\n{}", l.name, l.grid.join("\n"));
            }
            assert_eq!(t.computed_targets(), t.num_states());
        }
    }

    #[test]
    fn the_largest_open_grid_is_cheap_until_asked() {
        // 32 x 32 with a counter border: 900 floor cells, 3600 motion states. The old
        // all-pairs table was 3600² u16 = 26 MB, computed up front.
        let side = crate::env::layout::MAX_LAYOUT_SIDE;
        let mut rows = vec!["X".repeat(side); side];
        rows[0] = format!("XPSOD{}", "X".repeat(side - 5));
        for row in rows.iter_mut().take(side - 1).skip(1) {
            *row = format!("X{}X", " ".repeat(side - 2));
        }
        rows[1] = format!("X12{}X", " ".repeat(side - 4));
        let refs: Vec<&str> = rows.iter().map(String::as_str).collect();
        let l = Layout::from_grid("open", &refs).unwrap();
        let t = MotionTable::new(&l);
        assert_eq!(t.num_states(), 900 * 4);
        assert_eq!(t.computed_targets(), 0);
        let from = (Pos::new(30, 30), Dir::North);
        let (c, _) = t.cost_to_interact(&l, from, Pos::new(1, 0)).unwrap();
        assert_eq!(c, 29 + 29 + 1, "29 moves west, 29 north (ending facing the pot), the interact");
        assert_eq!(t.computed_targets(), 1, "one spot below the pot");
    }

    #[test]
    fn forced_coordination_sides_are_separate() {
        let l = Layout::builtin("forced_coordination").unwrap();
        let t = MotionTable::new(&l);
        let left = (l.starts[1], Dir::North);
        let right = (l.starts[0], Dir::North);
        assert_eq!(t.cost_to_cell(left, l.starts[0]), None);
        // The left player can reach the onions but not the pots.
        assert!(t.closest(&l, left, &l.onion_sources).is_some());
        assert!(t.closest(&l, left, &l.pots).is_none());
        assert!(t.closest(&l, right, &l.pots).is_some());
        assert!(t.closest(&l, right, &l.onion_sources).is_none());
    }
}
