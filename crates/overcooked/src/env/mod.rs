//! The Overcooked-AI simulator with the "old dynamics" of the ProAgent era.
//!
//! Pure Rust: no I/O, no async, no randomness. A [`Layout`] holds the static
//! grid and the rules; a [`State`] holds everything that changes; [`Layout::step`]
//! advances a state by one joint action in place without touching the heap.
//!
//! Order inside a step (as in the Python original with `old_dynamics=True`):
//! 1. interacts, player 0 then player 1, against the pre-step positions;
//! 2. movement, with same-cell and swap collisions cancelling both moves
//!    (orientations still change);
//! 3. timestep += 1; a pot holding a full recipe starts cooking by itself,
//!    then every cooking soup advances one tick.

pub mod ai_features;
pub mod ai_lossless;
pub mod encoding;
pub mod layout;
pub mod motion;
pub mod render;
pub mod trace;

pub mod pieces;

pub use layout::{Layout, LayoutError, Rules, Tile};
pub use pieces::{Action, Dir, Ingredient, MAX_INGREDIENTS, ObjKind, Object, Player, Pos, Soup};

use serde::{Deserialize, Serialize};

/// Default episode length of the ProAgent and 2019 evaluations.
pub const DEFAULT_HORIZON: u32 = 400;

/// Everything that changes during an episode. `objects` is indexed by cell
/// (`y * width + x`) and is allocated once, so stepping never allocates.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct State {
    /// Player 0 and player 1; the seat index is the player index everywhere.
    pub players: [Player; 2],
    /// The object lying on each cell, indexed by `y * width + x`; pots hold their soup here.
    pub objects: Vec<Option<Object>>,
    /// Ticks played so far; 0 in the start state, +1 per [`Layout::step`].
    pub timestep: u32,
}

impl State {
    /// The object lying on cell `p` (a pot's soup counts); `None` off the grid.
    pub fn object_at(&self, layout: &Layout, p: Pos) -> Option<&Object> {
        layout.index(p).and_then(|i| self.objects[i].as_ref())
    }

    /// The soup in (or on) the cell, if any.
    pub fn soup_at(&self, layout: &Layout, p: Pos) -> Option<&Soup> {
        self.object_at(layout, p).and_then(Object::soup)
    }

    /// All objects lying on the grid, sorted by (y, x) as in the reference traces.
    pub fn objects_sorted<'a>(&'a self, layout: &'a Layout) -> impl Iterator<Item = (Pos, &'a Object)> + 'a {
        self.objects.iter().enumerate().filter_map(move |(i, o)| o.as_ref().map(|o| (layout.pos_of(i), o)))
    }

    /// The partner of player `i` (`i` must be 0 or 1).
    pub fn other(&self, i: usize) -> &Player {
        &self.players[1 - i]
    }
}

/// What a player's interact did in a step.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// Took a fresh object from a dispenser at `at`.
    Dispense {
        /// What the dispenser gave: onion, tomato or dish.
        kind: ObjKind,
        /// The dispenser cell.
        at: Pos,
    },
    /// Took an object from the counter at `at`.
    PickupCounter {
        /// What was lying on the counter.
        kind: ObjKind,
        /// The counter cell.
        at: Pos,
    },
    /// Put the held object on the empty counter at `at`.
    PlaceCounter {
        /// What was put down.
        kind: ObjKind,
        /// The counter cell.
        at: Pos,
    },
    /// Added an ingredient to the pot at `at`; `count` is the pot's new count.
    Potting {
        /// The ingredient added (onion or tomato).
        kind: ObjKind,
        /// The pot cell.
        at: Pos,
        /// Ingredients in the pot after this one, 1..=[`MAX_INGREDIENTS`].
        count: u8,
    },
    /// Plated the ready soup of the pot at `at`.
    PickupSoup {
        /// The pot cell, now empty.
        at: Pos,
    },
    /// Served a soup at the window `at`, earning `reward`.
    Deliver {
        /// The serving-window cell.
        at: Pos,
        /// Sparse reward of the soup served: its recipe value, or 0 when the recipe is not on the order list.
        reward: u32,
    },
}

impl Event {
    /// The cell the interact acted on.
    pub fn at(&self) -> Pos {
        match *self {
            Event::Dispense { at, .. }
            | Event::PickupCounter { at, .. }
            | Event::PlaceCounter { at, .. }
            | Event::Potting { at, .. }
            | Event::PickupSoup { at }
            | Event::Deliver { at, .. } => at,
        }
    }
}

/// What one call to [`Layout::step`] produced.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Default)]
pub struct StepOutcome {
    /// Sparse team reward: the value of the soups served this step.
    pub reward: u32,
    /// Sparse reward split by who served the soup; sums to `reward`.
    pub sparse_by_player: [u32; 2],
    /// The original's default shaping (+3 potting, +3 useful dish pickup, +5 soup pickup).
    pub shaped_by_player: [u32; 2],
    /// The effect of each player's interact, if it did anything.
    pub events: [Option<Event>; 2],
}

/// Shaping constants of the original's default `rew_shaping_params`.
pub const PLACEMENT_IN_POT_REW: u32 = 3;
/// Shaped reward for taking a dish when fewer dishes are held than pots are non-empty and none lies on a counter.
pub const DISH_PICKUP_REWARD: u32 = 3;
/// Shaped reward for plating a ready soup out of a pot.
pub const SOUP_PICKUP_REWARD: u32 = 5;

impl Layout {
    /// The start state: both players on their start cells facing north, no objects.
    pub fn start_state(&self) -> State {
        State {
            players: [
                Player { pos: self.starts[0], dir: Dir::North, held: None },
                Player { pos: self.starts[1], dir: Dir::North, held: None },
            ],
            objects: vec![None; self.width * self.height],
            timestep: 0,
        }
    }

    /// Advances `state` by one joint action. Never allocates.
    #[inline]
    pub fn step(&self, state: &mut State, joint: [Action; 2]) -> StepOutcome {
        let mut out = StepOutcome::default();
        if joint[0] == Action::Interact || joint[1] == Action::Interact {
            // The dish-pickup shaping looks at the pots as they were before any interact.
            let nonempty_pots = self.count_nonempty_pots(state);
            for i in 0..2 {
                if joint[i] == Action::Interact {
                    self.interact(state, i, nonempty_pots, &mut out);
                }
            }
        }
        self.move_players(state, joint);
        state.timestep += 1;
        for &p in &self.pots {
            if let Some(idx) = self.index(p)
                && let Some(Object::Soup(s)) = &mut state.objects[idx]
            {
                if s.is_idle() && s.len() == self.rules.num_items {
                    s.cooking_tick = 0;
                }
                if s.is_cooking() {
                    s.cooking_tick += 1;
                }
            }
        }
        out
    }

    fn count_nonempty_pots(&self, state: &State) -> u32 {
        self.pots.iter().filter(|&&p| matches!(state.soup_at(self, p), Some(s) if !s.is_empty())).count() as u32
    }

    fn dish_pickup_useful(&self, state: &State, nonempty_pots: u32) -> bool {
        let dish_on_counter = self.counters.iter().any(|&c| matches!(state.object_at(self, c), Some(Object::Dish)));
        if dish_on_counter {
            return false;
        }
        let held_dishes = state.players.iter().filter(|p| matches!(p.held, Some(Object::Dish))).count() as u32;
        held_dishes < nonempty_pots
    }

    fn interact(&self, state: &mut State, i: usize, nonempty_pots: u32, out: &mut StepOutcome) {
        let player = state.players[i];
        let Some(target) = player.pos.step(player.dir) else { return };
        let Some(idx) = self.index(target) else { return };
        let held = player.held;
        match (self.tiles[idx], held) {
            (Tile::Counter, Some(obj)) => {
                if state.objects[idx].is_none() {
                    state.objects[idx] = Some(obj);
                    state.players[i].held = None;
                    out.events[i] = Some(Event::PlaceCounter { kind: obj.kind(), at: target });
                }
            }
            (Tile::Counter, None) => {
                if let Some(obj) = state.objects[idx].take() {
                    state.players[i].held = Some(obj);
                    out.events[i] = Some(Event::PickupCounter { kind: obj.kind(), at: target });
                }
            }
            (Tile::OnionSource, None) => {
                state.players[i].held = Some(Object::ONION);
                out.events[i] = Some(Event::Dispense { kind: ObjKind::Onion, at: target });
            }
            (Tile::TomatoSource, None) => {
                state.players[i].held = Some(Object::Ingredient(Ingredient::Tomato));
                out.events[i] = Some(Event::Dispense { kind: ObjKind::Tomato, at: target });
            }
            (Tile::DishSource, None) => {
                if self.dish_pickup_useful(state, nonempty_pots) {
                    out.shaped_by_player[i] += DISH_PICKUP_REWARD;
                }
                state.players[i].held = Some(Object::Dish);
                out.events[i] = Some(Event::Dispense { kind: ObjKind::Dish, at: target });
            }
            (Tile::Pot, Some(Object::Dish)) => {
                if let Some(Object::Soup(s)) = state.objects[idx]
                    && s.is_ready()
                {
                    state.objects[idx] = None;
                    state.players[i].held = Some(Object::Soup(s));
                    out.shaped_by_player[i] += SOUP_PICKUP_REWARD;
                    out.events[i] = Some(Event::PickupSoup { at: target });
                }
            }
            (Tile::Pot, Some(Object::Ingredient(ing))) => {
                let slot = &mut state.objects[idx];
                let soup = match slot {
                    Some(Object::Soup(s)) => s,
                    Some(_) => return,
                    None => slot.insert(Object::Soup(Soup::empty(0))).soup_mut(),
                };
                let full = !soup.is_idle() || soup.len() >= self.rules.num_items;
                if !full {
                    soup.push(ing);
                    soup.cook_time = self.rules.cook_time_of(soup);
                    let count = soup.len() as u8;
                    state.players[i].held = None;
                    out.shaped_by_player[i] += PLACEMENT_IN_POT_REW;
                    let kind = Object::Ingredient(ing).kind();
                    out.events[i] = Some(Event::Potting { kind, at: target, count });
                }
            }
            (Tile::Serve, Some(Object::Soup(s))) => {
                let value = self.rules.value_of(&s);
                state.players[i].held = None;
                out.sparse_by_player[i] += value;
                out.reward += value;
                out.events[i] = Some(Event::Deliver { at: target, reward: value });
            }
            _ => {}
        }
    }

    fn move_players(&self, state: &mut State, joint: [Action; 2]) {
        let mut new_pos = [state.players[0].pos, state.players[1].pos];
        for i in 0..2 {
            if let Some(d) = joint[i].dir() {
                state.players[i].dir = d;
                if let Some(p) = state.players[i].pos.step(d)
                    && self.is_walkable(p)
                {
                    new_pos[i] = p;
                }
            }
        }
        let old = [state.players[0].pos, state.players[1].pos];
        let same_cell = new_pos[0] == new_pos[1];
        let swap = new_pos[0] == old[1] && new_pos[1] == old[0];
        if !(same_cell || swap) {
            state.players[0].pos = new_pos[0];
            state.players[1].pos = new_pos[1];
        }
    }
}

impl Object {
    fn soup_mut(&mut self) -> &mut Soup {
        match self {
            Object::Soup(s) => s,
            // Only called right after inserting a soup.
            _ => unreachable!("soup_mut on a non-soup object"),
        }
    }
}

/// A layout plus a state plus a horizon: one episode.
#[derive(Clone, Debug)]
pub struct Env {
    /// The static grid and rules, shared between episodes.
    pub layout: std::sync::Arc<Layout>,
    /// The current state; starts as [`Layout::start_state`].
    pub state: State,
    /// Episode length in ticks; the episode is done once `state.timestep` reaches it.
    pub horizon: u32,
}

impl Env {
    /// A fresh episode at the start state of `layout`.
    pub fn new(layout: std::sync::Arc<Layout>, horizon: u32) -> Env {
        let state = layout.start_state();
        Env { layout, state, horizon }
    }

    /// Puts the state back to the start state; the horizon stays.
    pub fn reset(&mut self) {
        self.state = self.layout.start_state();
    }

    /// True once the horizon has been reached.
    pub fn is_done(&self) -> bool {
        self.state.timestep >= self.horizon
    }

    /// Advances the episode by one joint action (see [`Layout::step`]).
    pub fn step(&mut self, joint: [Action; 2]) -> StepOutcome {
        self.layout.step(&mut self.state, joint)
    }
}

#[cfg(test)]
mod tests;
