//! Motion costs over (cell, facing) states, precomputed once per layout.
//!
//! A motion state is a floor cell plus a facing. Each move action costs 1: it
//! turns the player and, when the next cell is floor, moves it there. The cost
//! of *interacting* with a tile is the cheapest way to stand next to it facing
//! it, plus one for the interact. This is the cost model of the original's
//! motion planner, used by the BC features, the greedy partner and the
//! controller's heuristics.

use super::{Action, Dir, Layout, Pos};
use pathfinding::prelude::dijkstra_all;

/// Unreachable marker in the distance table.
pub const UNREACHABLE: u16 = u16::MAX;

/// All-pairs motion costs of one layout.
#[derive(Clone, Debug)]
pub struct MotionTable {
    width: usize,
    /// Motion-state id of (cell index * 4 + facing), or `u32::MAX` for non-floor cells.
    ids: Vec<u32>,
    states: Vec<(Pos, Dir)>,
    /// Row-major `states.len()²` table of move counts.
    dist: Vec<u16>,
}

impl MotionTable {
    /// Precomputes all-pairs costs with one Dijkstra sweep (unit costs) per motion state.
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
        let mut dist = vec![UNREACHABLE; n * n];
        for (s, &start) in states.iter().enumerate() {
            dist[s * n + s] = 0;
            let reached =
                dijkstra_all(&start, |&(p, _)| Dir::ALL.into_iter().map(move |d| (move_once(layout, p, d), 1u32)));
            for (node, (_, cost)) in reached {
                if let Some(t) = id_of(&ids, layout, node) {
                    dist[s * n + t] = cost.min(UNREACHABLE as u32 - 1) as u16;
                }
            }
        }
        MotionTable { width: layout.width, ids, states, dist }
    }

    /// Number of motion states: floor cells × 4 facings.
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
        let c = self.dist[a * self.states.len() + b];
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
