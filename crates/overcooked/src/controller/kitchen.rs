//! The per-layout precompute that controllers and partners share: the layout,
//! its all-pairs motion table and which floor region can reach which tile.
//!
//! Built once per layout and shared through an `Arc`, so a controller or a
//! partner costs nothing to create.

use crate::env::motion::{MotionTable, interact_spots};
use crate::env::{Dir, Layout, ObjKind, Object, Pos, State};
use std::sync::Arc;

/// Marker for non-floor cells in the region table.
const NO_REGION: u16 = u16::MAX;

/// A layout with everything the controllers precompute about it.
#[derive(Debug)]
pub struct Kitchen {
    /// The layout, shared with the controllers and partners built on it.
    pub layout: Arc<Layout>,
    /// All-pairs motion costs of `layout`.
    pub motion: MotionTable,
    /// Connected floor region of every cell (`NO_REGION` for non-floor cells).
    region: Vec<u16>,
}

/// The phase of one pot, as the controllers and planners see it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum PotPhase {
    /// Not cooking, holding this many ingredients (0 = empty).
    Filling(u8),
    /// Cooking, ready after this many more ticks.
    Cooking(u16),
    /// Holds a soup that has finished cooking; a dish can take it.
    Ready,
}

impl Kitchen {
    /// The kitchen for `layout`: `cached` when it was built for the same grid and
    /// rules (the motion table is the costly part), else a new one.
    pub fn reuse_or_build(cached: Option<&Arc<Kitchen>>, layout: &Layout) -> Arc<Kitchen> {
        match cached {
            Some(k) if k.layout.grid == layout.grid && k.layout.rules == layout.rules => Arc::clone(k),
            _ => Arc::new(Kitchen::new(Arc::new(layout.clone()))),
        }
    }

    /// Precomputes the motion table and the floor regions of `layout`.
    pub fn new(layout: Arc<Layout>) -> Kitchen {
        let motion = MotionTable::new(&layout);
        let mut region = vec![NO_REGION; layout.width * layout.height];
        let mut next = 0u16;
        let mut stack = Vec::new();
        for start in layout.floor_cells() {
            let Some(si) = layout.index(start) else { continue };
            if region[si] != NO_REGION {
                continue;
            }
            region[si] = next;
            stack.push(start);
            while let Some(p) = stack.pop() {
                for d in Dir::ALL {
                    if let Some(q) = p.step(d)
                        && layout.is_walkable(q)
                        && let Some(qi) = layout.index(q)
                        && region[qi] == NO_REGION
                    {
                        region[qi] = next;
                        stack.push(q);
                    }
                }
            }
            // Regions past u16 range would need a grid far larger than the 32 x 32 limit.
            next = next.saturating_add(1).min(NO_REGION - 1);
        }
        Kitchen { layout, motion, region }
    }

    /// Convenience for a layout that is not yet shared.
    pub fn shared(layout: Layout) -> Arc<Kitchen> {
        Arc::new(Kitchen::new(Arc::new(layout)))
    }

    /// The floor region of a cell, if it is floor.
    pub fn region(&self, p: Pos) -> Option<u16> {
        self.layout.index(p).map(|i| self.region[i]).filter(|&r| r != NO_REGION)
    }

    /// The floor region the player stands in (`None` only if it is off the floor).
    pub fn player_region(&self, state: &State, player: usize) -> Option<u16> {
        self.region(state.players[player].pos)
    }

    /// Whether someone standing in `region` can interact with `target`.
    pub fn region_reaches(&self, region: Option<u16>, target: Pos) -> bool {
        let Some(r) = region else { return false };
        interact_spots(&self.layout, target).any(|(s, _)| self.region(s) == Some(r))
    }

    /// Whether `player` can interact with `target` (ignoring the teammate's body).
    pub fn reaches(&self, state: &State, player: usize, target: Pos) -> bool {
        self.region_reaches(self.player_region(state, player), target)
    }

    /// The interact spots of `target` that lie in `region`.
    pub fn spots_in(&self, region: Option<u16>, target: Pos) -> impl Iterator<Item = (Pos, Dir)> + '_ {
        interact_spots(&self.layout, target).filter(move |(s, _)| region.is_some() && self.region(*s) == region)
    }

    /// Whether both players can reach this tile (a hand-over place when it is a counter).
    pub fn shared_by_players(&self, state: &State, target: Pos) -> bool {
        self.reaches(state, 0, target) && self.reaches(state, 1, target)
    }

    /// The phase of the pot at `pot`; a cell with no soup reads as an empty pot.
    pub fn pot_phase(&self, state: &State, pot: Pos) -> PotPhase {
        match state.soup_at(&self.layout, pot) {
            None => PotPhase::Filling(0),
            Some(s) if s.is_ready() => PotPhase::Ready,
            Some(s) if s.is_cooking() => PotPhase::Cooking(s.remaining()),
            Some(s) => PotPhase::Filling(s.len() as u8),
        }
    }

    /// Whether the pot takes another ingredient now.
    pub fn pot_accepts(&self, state: &State, pot: Pos) -> bool {
        matches!(self.pot_phase(state, pot), PotPhase::Filling(n) if (n as usize) < self.layout.rules.num_items)
    }

    /// Whether the pot at `pot` holds a soup that is cooking or ready (something a dish can wait for).
    pub fn pot_cooking_or_ready(&self, state: &State, pot: Pos) -> bool {
        matches!(self.pot_phase(state, pot), PotPhase::Cooking(_) | PotPhase::Ready)
    }

    /// Counters holding an object of `kind`.
    pub fn counters_with<'a>(&'a self, state: &'a State, kind: ObjKind) -> impl Iterator<Item = Pos> + 'a {
        let layout = &self.layout;
        layout.counters.iter().copied().filter(move |&c| state.object_at(layout, c).is_some_and(|o| o.kind() == kind))
    }

    /// Counters with nothing on them.
    pub fn empty_counters<'a>(&'a self, state: &'a State) -> impl Iterator<Item = Pos> + 'a {
        let layout = &self.layout;
        layout.counters.iter().copied().filter(move |&c| state.object_at(layout, c).is_none())
    }

    /// Sources (dispensers) of `kind`.
    pub fn sources(&self, kind: ObjKind) -> &[Pos] {
        match kind {
            ObjKind::Onion => &self.layout.onion_sources,
            ObjKind::Tomato => &self.layout.tomato_sources,
            ObjKind::Dish => &self.layout.dish_sources,
            ObjKind::Soup => &[],
        }
    }

    /// Cheapest motion cost (moves + interact) for `player` to interact with any of `targets`.
    pub fn cost_to_any(&self, state: &State, player: usize, targets: impl IntoIterator<Item = Pos>) -> Option<u16> {
        let p = &state.players[player];
        targets
            .into_iter()
            .filter_map(|t| self.motion.cost_to_interact(&self.layout, (p.pos, p.dir), t).map(|(c, _)| c))
            .min()
    }

    /// Kind of the object a player holds.
    pub fn held_kind(state: &State, player: usize) -> Option<ObjKind> {
        state.players[player].held.as_ref().map(Object::kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_and_shared_counters() {
        let k = Kitchen::shared(Layout::builtin("forced_coordination").unwrap());
        let s = k.layout.start_state();
        assert_ne!(k.player_region(&s, 0), k.player_region(&s, 1));
        // The middle column of counters is the only hand-over place.
        assert!(k.shared_by_players(&s, Pos::new(2, 2)));
        assert!(!k.shared_by_players(&s, Pos::new(1, 0)));
        assert!(k.reaches(&s, 0, k.layout.pots[0]));
        assert!(!k.reaches(&s, 1, k.layout.pots[0]));
        let k = Kitchen::shared(Layout::builtin("counter_circuit").unwrap());
        let s = k.layout.start_state();
        assert_eq!(k.player_region(&s, 0), k.player_region(&s, 1));
        assert_eq!(k.pot_phase(&s, k.layout.pots[0]), PotPhase::Filling(0));
        assert!(k.pot_accepts(&s, k.layout.pots[0]));
    }
}
