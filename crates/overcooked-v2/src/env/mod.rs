//! The OvercookedV2 simulator (Gessler et al., "OvercookedV2: Rethinking Overcooked for
//! Zero-Shot Coordination", ICLR 2025), checked step for step against JaxMARL's
//! implementation by the reference traces in `tests/fixtures/v2_traces/`.
//!
//! Pure like [`proagent_overcooked::env`]: no I/O, no async, no clock. Its only random choices (the recipe
//! at the start and after a correct delivery when configured, and random start cells) come
//! from a [`Chance`] the caller passes in: a seeded [`rand_chacha::ChaCha8Rng`] in play, the
//! recorded draws when a trace is replayed. Stepping does not allocate.
//!
//! One step, in order (see docs/overcooked-v2.md for the rules in prose):
//! 1. moves: a move action turns the agent and moves it if the cell ahead is floor; agents
//!    that would end on the same cell stay (repeated until no two share a cell), then
//!    pairs that would swap cells stay;
//! 2. interacts, agent 0 first, each against the grid as the earlier agents left it;
//! 3. timers: every cooking pot counts down (cooked at 0), every lit button counts down;
//! 4. a new recipe is drawn if a correct dish was delivered and the settings say so;
//! 5. the step counter advances.

pub mod item;
pub mod layout;
pub mod obs;
pub mod render;
pub mod trace;

pub use item::{Item, MAX_KINDS, Recipe};
pub use layout::{Layout, LayoutError, MAX_AGENTS, Tile};

use proagent_overcooked::env::{Action, Dir, Pos};
use serde::{Deserialize, Serialize};

/// Steps a pot cooks (JaxMARL's `POT_COOK_TIME`).
pub const COOK_TIME: u8 = 20;
/// Steps a pressed button shows the recipe (`INDICATOR_ACTIVATION_TIME`).
pub const BUTTON_TIME: u8 = 10;
/// What pressing a button costs the team (`INDICATOR_ACTIVATION_COST`), always charged.
pub const BUTTON_COST: i32 = 5;
/// The reward of a correct delivery, and the penalty of a wrong one with negative rewards on.
pub const DELIVERY_REWARD: i32 = 20;
/// Shaped reward: an ingredient the recipe still needs goes into a pot.
pub const SHAPED_POTTING: i32 = 3;
/// Shaped reward: a pot holding exactly the recipe is started by interaction.
pub const SHAPED_START: i32 = 5;
/// Shaped reward: a cooked soup of the recipe is plated.
pub const SHAPED_DISH: i32 = 5;
/// Shaped reward: a plate is taken while there are fewer plates in hands than non-empty pots.
pub const SHAPED_PLATE: i32 = 3;

/// The environment switches (JaxMARL's constructor arguments of the same names).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Episode length; the state is done when its step counter reaches it.
    pub max_steps: u32,
    /// How many cells an agent sees in each direction (`agent_view_size`); `None` sees all.
    pub view_radius: Option<u8>,
    /// Start every agent on a random floor cell of its start's room, facing a random way.
    pub random_agent_positions: bool,
    /// Pots start cooking only when an empty-handed agent interacts with them (otherwise when
    /// the third ingredient goes in).
    pub start_cooking_interaction: bool,
    /// A wrong dish delivered costs [`DELIVERY_REWARD`] instead of nothing.
    pub negative_rewards: bool,
    /// Draw a new recipe after each correct delivery (otherwise only at the start).
    pub sample_recipe_on_delivery: bool,
    /// Add an observation layer that lights the delivery cells after a correct delivery.
    pub indicate_successful_delivery: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            max_steps: 400,
            view_radius: None,
            random_agent_positions: false,
            start_cooking_interaction: false,
            negative_rewards: false,
            sample_recipe_on_delivery: false,
            indicate_successful_delivery: false,
        }
    }
}

/// Where the simulator's random choices come from (the game interface's chance).
pub use proagent_core::game::Chance;

/// One agent.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub struct Agent {
    /// Its cell.
    pub pos: Pos,
    /// The way it faces (and interacts).
    pub dir: Dir,
    /// What it holds.
    pub held: Item,
}

impl Agent {
    /// The cell it faces.
    pub fn facing(&self) -> Pos {
        self.pos.step(self.dir).unwrap_or(self.pos)
    }
}

/// Everything that changes in an episode.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct State {
    /// The agents, in layout order.
    pub agents: Vec<Agent>,
    /// What lies on each cell (counters) or sits in it (pots), by cell index.
    pub items: Vec<Item>,
    /// Per cell: a pot's cooking steps left, or a button's lit steps left; 0 elsewhere.
    pub timers: Vec<u8>,
    /// The recipe being ordered.
    pub recipe: Recipe,
    /// Steps played.
    pub step: u32,
    /// A correct dish was delivered in the last step.
    pub new_correct_delivery: bool,
}

impl State {
    /// The item on cell `p`.
    pub fn item_at(&self, layout: &Layout, p: Pos) -> Item {
        layout.index(p).map_or(Item::EMPTY, |i| self.items[i])
    }

    /// The timer of cell `p`.
    pub fn timer_at(&self, layout: &Layout, p: Pos) -> u8 {
        layout.index(p).map_or(0, |i| self.timers[i])
    }

    /// The episode is over under `settings`.
    pub fn done(&self, settings: &Settings) -> bool {
        self.step >= settings.max_steps
    }

    /// What a pot at `p` is doing.
    pub fn pot(&self, layout: &Layout, p: Pos) -> PotPhase {
        let item = self.item_at(layout, p);
        let timer = self.timer_at(layout, p);
        if item.is_cooked() {
            PotPhase::Ready(item.contents())
        } else if timer > 0 {
            PotPhase::Cooking { contents: item.contents(), left: timer }
        } else {
            PotPhase::Idle(item.contents())
        }
    }

    /// A lit button (or any recipe indicator) shows the recipe at `p`.
    pub fn shows_recipe_at(&self, layout: &Layout, p: Pos) -> bool {
        match layout.tile(p) {
            Tile::RecipeIndicator => true,
            Tile::Button => self.timer_at(layout, p) > 0,
            _ => false,
        }
    }
}

/// A pot's phase.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum PotPhase {
    /// Not cooking: empty, or 1–3 ingredients waiting.
    Idle(Item),
    /// Cooking, `left` steps to go.
    Cooking {
        /// What is cooking.
        contents: Item,
        /// Steps until cooked.
        left: u8,
    },
    /// Cooked; a plate takes it out.
    Ready(Item),
}

/// What one agent's interact did.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    /// Took a plate or an ingredient from a pile.
    TakeFromPile {
        /// The item taken.
        item: Item,
        /// The pile.
        at: Pos,
    },
    /// Picked an item up from a counter.
    PickUp {
        /// The item.
        item: Item,
        /// The counter.
        at: Pos,
    },
    /// Put the held item on an empty counter.
    Place {
        /// The item.
        item: Item,
        /// The counter.
        at: Pos,
    },
    /// Put an ingredient into an idle pot.
    AddToPot {
        /// The ingredient kind.
        kind: u8,
        /// The pot.
        at: Pos,
        /// Ingredients in the pot now.
        count: u8,
        /// The pot started cooking by itself (it is full and pots start automatically).
        started: bool,
    },
    /// Started an idle, non-empty pot by interacting with empty hands.
    StartCooking {
        /// The pot.
        at: Pos,
    },
    /// Took a cooked soup out of a pot onto the held plate.
    PlateSoup {
        /// The dish now held.
        dish: Item,
        /// The pot.
        at: Pos,
    },
    /// Delivered a dish.
    Deliver {
        /// The dish.
        dish: Item,
        /// The delivery window.
        at: Pos,
        /// It was the recipe ordered.
        correct: bool,
    },
    /// Pressed a button recipe indicator.
    PressButton {
        /// The button.
        at: Pos,
    },
}

impl Event {
    /// The cell acted on.
    pub fn at(&self) -> Pos {
        match *self {
            Event::TakeFromPile { at, .. }
            | Event::PickUp { at, .. }
            | Event::Place { at, .. }
            | Event::AddToPot { at, .. }
            | Event::StartCooking { at }
            | Event::PlateSoup { at, .. }
            | Event::Deliver { at, .. }
            | Event::PressButton { at } => at,
        }
    }
}

/// What a step produced.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct StepOutcome {
    /// The team reward (every agent gets it): ±[`DELIVERY_REWARD`] per delivery, −[`BUTTON_COST`] per press.
    pub reward: i32,
    /// Shaped reward per agent (only the first `num_agents` entries are used).
    pub shaped: [i32; MAX_AGENTS],
    /// What each agent's interact did, if anything.
    pub events: [Option<Event>; MAX_AGENTS],
    /// Correct dishes delivered.
    pub correct_deliveries: u32,
    /// Wrong dishes delivered.
    pub wrong_deliveries: u32,
    /// The index (in the layout's recipe list) of a recipe drawn this step, if one was.
    pub drawn: Option<usize>,
}

impl Default for StepOutcome {
    fn default() -> Self {
        StepOutcome {
            reward: 0,
            shaped: [0; MAX_AGENTS],
            events: [None; MAX_AGENTS],
            correct_deliveries: 0,
            wrong_deliveries: 0,
            drawn: None,
        }
    }
}

impl Layout {
    /// The start state: agents on their start cells facing up with empty hands (or on random
    /// cells of the same rooms, facing random ways, with `random_agent_positions`), nothing on
    /// the grid, and a recipe drawn from the layout's list.
    pub fn start_state<C: Chance + ?Sized>(&self, settings: &Settings, chance: &mut C) -> State {
        let recipe = self.recipes[chance.pick(self.recipes.len())];
        let mut agents: Vec<Agent> =
            self.starts.iter().map(|&pos| Agent { pos, dir: Dir::North, held: Item::EMPTY }).collect();
        if settings.random_agent_positions {
            let mut taken: Vec<Pos> = Vec::with_capacity(agents.len());
            for a in agents.iter_mut() {
                let room = self.room_of(a.pos);
                let free: Vec<Pos> = (0..self.cells())
                    .map(|i| self.pos_of(i))
                    .filter(|&p| self.room_of(p) == room && !taken.contains(&p))
                    .collect();
                if !free.is_empty() {
                    a.pos = free[chance.pick(free.len())];
                }
                taken.push(a.pos);
            }
            for a in agents.iter_mut() {
                a.dir = Dir::ALL[chance.pick(4)];
            }
        }
        State {
            agents,
            items: vec![Item::EMPTY; self.cells()],
            timers: vec![0; self.cells()],
            recipe,
            step: 0,
            new_correct_delivery: false,
        }
    }

    /// Advances `state` by one joint action (`actions[i]` for agent `i`; missing entries
    /// stay). Draws a new recipe from `chance` only when a correct delivery calls for one.
    pub fn step<C: Chance + ?Sized>(
        &self,
        settings: &Settings,
        state: &mut State,
        actions: &[Action],
        chance: &mut C,
    ) -> StepOutcome {
        let n = state.agents.len().min(MAX_AGENTS);
        let act = |i: usize| actions.get(i).copied().unwrap_or(Action::Stay);
        let mut out = StepOutcome::default();

        // 1. Moves.
        let mut old = [Pos::new(0, 0); MAX_AGENTS];
        let mut new = [Pos::new(0, 0); MAX_AGENTS];
        for i in 0..n {
            let a = &mut state.agents[i];
            old[i] = a.pos;
            new[i] = a.pos;
            if let Some(d) = act(i).dir() {
                a.dir = d;
                if let Some(t) = a.pos.step(d)
                    && self.index(t).is_some()
                    && self.tile(t).is_floor()
                {
                    new[i] = t;
                }
            }
        }
        // Agents bound for a shared cell stay where they were; staying can make a new clash
        // with someone moving into the vacated cell, so repeat until no cell is shared.
        let mut stay = [false; MAX_AGENTS];
        loop {
            let cur = |i: usize| if stay[i] { old[i] } else { new[i] };
            let mut clash = [false; MAX_AGENTS];
            let mut any = false;
            for i in 0..n {
                for j in 0..n {
                    if i != j && cur(i) == cur(j) {
                        clash[i] = true;
                        any |= !stay[i];
                    }
                }
            }
            if !any {
                break;
            }
            for i in 0..n {
                stay[i] |= clash[i];
            }
        }
        let mut pos = [Pos::new(0, 0); MAX_AGENTS];
        for i in 0..n {
            pos[i] = if stay[i] { old[i] } else { new[i] };
        }
        let mut swapped = [false; MAX_AGENTS];
        for i in 0..n {
            for j in 0..n {
                if i != j && pos[i] == old[j] && pos[j] == old[i] {
                    swapped[i] = true;
                }
            }
        }
        for i in 0..n {
            state.agents[i].pos = if swapped[i] { old[i] } else { pos[i] };
        }

        // 2. Interacts.
        let plates_in_hands = state.agents[..n].iter().filter(|a| a.held.is_plate()).count();
        for i in 0..n {
            if act(i) == Action::Interact {
                let (event, reward, shaped) = self.interact(settings, state, i, plates_in_hands);
                out.events[i] = event;
                out.reward += reward;
                out.shaped[i] = shaped;
                if let Some(Event::Deliver { correct, .. }) = event {
                    if correct {
                        out.correct_deliveries += 1;
                    } else {
                        out.wrong_deliveries += 1;
                    }
                }
            }
        }

        // 3. Timers.
        for (i, tile) in self.tiles.iter().enumerate() {
            match tile {
                Tile::Pot if state.timers[i] > 0 => {
                    state.timers[i] -= 1;
                    if state.timers[i] == 0 {
                        state.items[i] = state.items[i].cooked();
                    }
                }
                Tile::Button => state.timers[i] = state.timers[i].saturating_sub(1),
                _ => {}
            }
        }

        // 4. A new order.
        let correct = out.correct_deliveries > 0;
        if correct && settings.sample_recipe_on_delivery {
            let k = chance.pick(self.recipes.len());
            state.recipe = self.recipes[k.min(self.recipes.len() - 1)];
            out.drawn = Some(k);
        }
        state.new_correct_delivery = correct;
        state.step += 1;
        out
    }

    /// Agent `i` interacts with the cell it faces. Returns the event, the team reward and
    /// the agent's shaped reward.
    fn interact(
        &self,
        settings: &Settings,
        state: &mut State,
        i: usize,
        plates_in_hands: usize,
    ) -> (Option<Event>, i32, i32) {
        let agent = state.agents[i];
        let at = agent.facing();
        let Some(c) = self.index(at) else { return (None, 0, 0) };
        let held = agent.held;
        let here = state.items[c];
        let recipe = state.recipe;
        let tile = self.tiles[c];
        // The plate bonus is judged on the grid as it is before this interact.
        let plate_bonus = |state: &State| -> i32 {
            let busy_pots = self.cells_of_pots_nonempty(state);
            let plates_lying = state.items.iter().any(|it| it.is_plate());
            if plates_in_hands < busy_pots && !plates_lying { SHAPED_PLATE } else { 0 }
        };
        match tile {
            Tile::PlatePile | Tile::Pile(_) if held.is_empty() => {
                let item = match tile {
                    Tile::Pile(k) => Item::ingredient(k),
                    _ => Item::PLATE,
                };
                let shaped = if item.is_plate() { plate_bonus(state) } else { 0 };
                state.agents[i].held = item;
                (Some(Event::TakeFromPile { item, at }), 0, shaped)
            }
            Tile::Counter if held.is_empty() && !here.is_empty() => {
                let shaped = if here.is_plate() { plate_bonus(state) } else { 0 };
                state.agents[i].held = here;
                state.items[c] = Item::EMPTY;
                (Some(Event::PickUp { item: here, at }), 0, shaped)
            }
            Tile::Counter if !held.is_empty() && here.is_empty() => {
                state.items[c] = held;
                state.agents[i].held = Item::EMPTY;
                (Some(Event::Place { item: held, at }), 0, 0)
            }
            Tile::Pot => {
                let cooking = state.timers[c] > 0;
                if here.is_cooked() {
                    if !held.is_plate() {
                        return (None, 0, 0);
                    }
                    let dish = here.plated();
                    state.agents[i].held = dish;
                    state.items[c] = Item::EMPTY;
                    let shaped = if dish == recipe.dish() { SHAPED_DISH } else { 0 };
                    return (Some(Event::PlateSoup { dish, at }), 0, shaped);
                }
                if cooking {
                    return (None, 0, 0);
                }
                if held.is_raw() && here.total() < item::POT_CAPACITY {
                    let Some(kind) = held.first_kind() else { return (None, 0, 0) };
                    let shaped = if here.count(kind) < recipe.count(kind) { SHAPED_POTTING } else { 0 };
                    let now = here.plus(held);
                    state.items[c] = now;
                    state.agents[i].held = Item::EMPTY;
                    let started = !settings.start_cooking_interaction && now.total() == item::POT_CAPACITY;
                    if started {
                        state.timers[c] = COOK_TIME;
                    }
                    let count = now.total() as u8;
                    return (Some(Event::AddToPot { kind, at, count, started }), 0, shaped);
                }
                if settings.start_cooking_interaction {
                    if held.is_empty() && !here.is_empty() {
                        state.timers[c] = COOK_TIME;
                        let shaped = if here == recipe.contents() { SHAPED_START } else { 0 };
                        return (Some(Event::StartCooking { at }), 0, shaped);
                    }
                } else if here.total() == item::POT_CAPACITY {
                    // A full idle pot (only possible in a recorded random start) starts on any touch.
                    state.timers[c] = COOK_TIME;
                    return (Some(Event::StartCooking { at }), 0, 0);
                }
                (None, 0, 0)
            }
            Tile::Goal if held.is_dish() => {
                state.agents[i].held = Item::EMPTY;
                let correct = held == recipe.dish();
                let reward = if correct {
                    DELIVERY_REWARD
                } else if settings.negative_rewards {
                    -DELIVERY_REWARD
                } else {
                    0
                };
                (Some(Event::Deliver { dish: held, at, correct }), reward, 0)
            }
            Tile::Button if held.is_empty() => {
                state.timers[c] = BUTTON_TIME;
                (Some(Event::PressButton { at }), -BUTTON_COST, 0)
            }
            _ => (None, 0, 0),
        }
    }

    /// Pots with anything in them (waiting, cooking or cooked).
    fn cells_of_pots_nonempty(&self, state: &State) -> usize {
        self.tiles.iter().zip(&state.items).filter(|(t, it)| **t == Tile::Pot && !it.is_empty()).count()
    }
}

#[cfg(test)]
mod tests;
