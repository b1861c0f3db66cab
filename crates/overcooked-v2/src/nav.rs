//! The V2 controller: grounds a skill into one move per step. It picks the nearest target
//! the agent knows to be suitable (hidden cells count as possibly suitable), walks there by
//! breadth-first search around the teammates it sees, turns to face the target and
//! interacts. A skill succeeds when the agent's own interaction did what the skill means
//! (or, for `check_recipe()`, when the recipe is in sight; for `wait(n)`, after n steps),
//! and fails with a first-person reason when no target is left or it stops making progress.

use crate::env::item::{Item, POT_CAPACITY};
use crate::env::{Event, Layout, Settings, Tile, obs};
use crate::knowledge::{Knowledge, PotSeen};
use crate::rules::fits;
use crate::skills::{Skill, Target};
use proagent_overcooked::env::{Action, Dir, Pos};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::VecDeque;

/// Steps without getting closer after which a skill fails.
pub const PATIENCE: u32 = 25;
/// Interacts with no effect (the target changed under the agent) after which a skill fails.
const MAX_MISSES: u32 = 3;

/// Where a skill stands after this step's decision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// Still running: do this action.
    Running(Action),
    /// The skill's goal was reached (decide anew this step).
    Succeeded,
    /// Gave up, with a first-person reason.
    Failed(String),
}

/// The per-seat controller.
pub struct Nav {
    skill: Option<Skill>,
    waited: u8,
    best: u32,
    stall: u32,
    misses: u32,
    last_interact: bool,
    /// Where the agent was when it last chose a move, to see whether the move happened.
    last_move_from: Option<Pos>,
    rng: ChaCha8Rng,
}

/// Whether `e` (the agent's own interaction) completes `skill`.
pub fn completes(skill: Skill, e: &Event) -> bool {
    match (skill, e) {
        (Skill::Pickup(Target::Ingredient(k)), Event::TakeFromPile { item, .. } | Event::PickUp { item, .. }) => {
            *item == Item::ingredient(k)
        }
        (Skill::Pickup(Target::Plate), Event::TakeFromPile { item, .. } | Event::PickUp { item, .. }) => {
            item.is_plate()
        }
        (Skill::Pickup(Target::Dish), Event::PickUp { item, .. }) => item.is_dish(),
        (Skill::PutInPot(k), Event::AddToPot { kind, .. }) => *kind == k,
        (Skill::StartCooking, Event::StartCooking { .. }) => true,
        (Skill::PlateSoup, Event::PlateSoup { .. }) => true,
        (Skill::Deliver, Event::Deliver { .. }) => true,
        (Skill::PlaceOnCounter, Event::Place { .. }) => true,
        (Skill::PressButton, Event::PressButton { .. }) => true,
        _ => false,
    }
}

impl Nav {
    /// A controller with its own seeded randomness (used only to step aside when blocked).
    pub fn new(seed: u64) -> Nav {
        use rand::SeedableRng;
        Nav {
            skill: None,
            waited: 0,
            best: u32::MAX,
            stall: 0,
            misses: 0,
            last_interact: false,
            last_move_from: None,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The running skill.
    pub fn skill(&self) -> Option<Skill> {
        self.skill
    }

    /// Starts a skill.
    pub fn set(&mut self, skill: Skill) {
        self.skill = Some(skill);
        self.waited = 0;
        self.best = u32::MAX;
        self.stall = 0;
        self.misses = 0;
        self.last_interact = false;
    }

    /// Drops the running skill.
    pub fn clear(&mut self) {
        self.skill = None;
    }

    /// One step: `last` is what the agent's own interact did in the previous step.
    pub fn step(&mut self, layout: &Layout, settings: &Settings, k: &Knowledge, last: Option<&Event>) -> Status {
        let Some(skill) = self.skill else { return Status::Succeeded };
        if let Some(e) = last
            && completes(skill, e)
        {
            self.skill = None;
            return Status::Succeeded;
        }
        if self.last_interact && last.is_none() && !matches!(skill, Skill::PlateSoup) {
            self.misses += 1;
            if self.misses >= MAX_MISSES {
                self.skill = None;
                return Status::Failed("I interacted three times and nothing happened.".into());
            }
        }
        self.last_interact = false;
        match skill {
            Skill::Wait(n) => {
                self.waited += 1;
                if self.waited > n {
                    self.skill = None;
                    return Status::Succeeded;
                }
                // Waiting next to a teammate may block its way (one cell in front of a pot):
                // step onto a free floor cell that touches no teammate, if there is one.
                let near_mate = |p: Pos| k.mates.iter().any(|m| m.pos.manhattan(p) <= 1);
                if near_mate(k.pos) {
                    let free: Vec<Dir> = Dir::ALL
                        .into_iter()
                        .filter(|&d| {
                            k.pos.step(d).is_some_and(|q| {
                                layout.index(q).is_some() && layout.tile(q).is_floor() && !near_mate(q)
                            })
                        })
                        .collect();
                    if !free.is_empty() {
                        return Status::Running(Action::from_dir(free[self.rng.random_range(0..free.len())]));
                    }
                }
                return Status::Running(Action::Stay);
            }
            Skill::CheckRecipe
                if matches!(
                    k.recipe,
                    crate::knowledge::RecipeKnown::InSight(_) | crate::knowledge::RecipeKnown::Only(_)
                ) || (!k.reach.indicator_visible_from_room && k.sees_any_button()) =>
            {
                self.skill = None;
                return Status::Succeeded;
            }
            Skill::CheckCounters if k.reach.shared.iter().any(|&p| k.sees(p)) => {
                self.skill = None;
                return Status::Succeeded;
            }
            Skill::CheckPot if k.pots.iter().any(|p| p.mine && p.seen.is_some()) => {
                self.skill = None;
                return Status::Succeeded;
            }
            _ => {}
        }
        let (targets, stand_ok) = targets(layout, settings, skill, k);
        if targets.is_empty() && stand_ok.is_empty() {
            self.skill = None;
            return Status::Failed(format!("I see nowhere to {}.", skill.text(&k.names)));
        }
        let blocked: Vec<Pos> = k.mates.iter().map(|m| m.pos).collect();
        // Standing cells: next to a target, or (check_recipe) any cell that sees an indicator.
        let is_goal = |p: Pos| -> bool {
            if !stand_ok.is_empty() {
                return stand_ok.contains(&p);
            }
            Dir::ALL.iter().any(|&d| p.step(d).is_some_and(|q| targets.contains(&q)))
        };
        let path = bfs(layout, k.pos, &is_goal, &blocked).or_else(|| bfs(layout, k.pos, &is_goal, &[]));
        let Some((dist, first)) = path else {
            self.skill = None;
            return Status::Failed(format!("I cannot get to anywhere I could {}.", skill.text(&k.names)));
        };
        if dist < self.best {
            self.best = dist;
            self.stall = 0;
        } else {
            self.stall += 1;
        }
        let waiting_for_soup = skill == Skill::PlateSoup && dist == 0;
        if !waiting_for_soup && self.stall >= PATIENCE {
            self.skill = None;
            return Status::Failed(format!("I made no progress for {PATIENCE} steps; the way seems blocked."));
        }
        if dist > 0 {
            // The last move did not happen (two players wanted the same cell): give way with
            // probability one half, so that two blocked players do not keep clashing.
            let bumped = self.last_move_from == Some(k.pos);
            self.last_move_from = Some(k.pos);
            if bumped && self.rng.random_bool(0.5) {
                return Status::Running(Action::Stay);
            }
            // Blocked for a while by someone in the way: step aside at random once in a while.
            if self.stall > 3 && self.stall.is_multiple_of(4) {
                return Status::Running(Action::MOVES[self.rng.random_range(0..4)]);
            }
            return Status::Running(first.map_or(Action::Stay, Action::from_dir));
        }
        self.last_move_from = None;
        if !stand_ok.is_empty() {
            // check_recipe: arrived where an indicator is in view; the next observation shows it.
            return Status::Running(Action::Stay);
        }
        // Adjacent: face the best target, then interact.
        let facing = k.pos.step(k.dir);
        if facing.is_some_and(|f| targets.contains(&f)) {
            if skill == Skill::PlateSoup && !pot_ready(k, facing) {
                return Status::Running(Action::Stay);
            }
            self.last_interact = true;
            return Status::Running(Action::Interact);
        }
        let d = Dir::ALL.into_iter().find(|&d| k.pos.step(d).is_some_and(|q| targets.contains(&q)));
        Status::Running(d.map_or(Action::Stay, Action::from_dir))
    }
}

fn pot_ready(k: &Knowledge, p: Option<Pos>) -> bool {
    k.pots.iter().any(|v| Some(v.pos) == p && matches!(v.seen, Some(PotSeen::Ready(_))))
}

/// Breadth-first search over floor from `from` to a cell where `goal` holds, avoiding
/// `blocked`; returns the distance and the first direction (None when already there).
fn bfs(layout: &Layout, from: Pos, goal: &dyn Fn(Pos) -> bool, blocked: &[Pos]) -> Option<(u32, Option<Dir>)> {
    if goal(from) {
        return Some((0, None));
    }
    let mut seen = vec![false; layout.cells()];
    let mut queue = VecDeque::new();
    seen[layout.index(from)?] = true;
    for d in Dir::ALL {
        if let Some(q) = from.step(d) {
            queue.push_back((q, 1u32, d));
        }
    }
    while let Some((p, dist, first)) = queue.pop_front() {
        let Some(i) = layout.index(p) else { continue };
        if seen[i] || !layout.tiles[i].is_floor() || blocked.contains(&p) {
            continue;
        }
        seen[i] = true;
        if goal(p) {
            return Some((dist, Some(first)));
        }
        for d in Dir::ALL {
            if let Some(q) = p.step(d) {
                queue.push_back((q, dist + 1, first));
            }
        }
    }
    None
}

/// The cells to interact with for `skill`, or (check_recipe) the cells to stand on.
fn targets(layout: &Layout, settings: &Settings, skill: Skill, k: &Knowledge) -> (Vec<Pos>, Vec<Pos>) {
    let reachable = |p: Pos| {
        Dir::ALL.iter().any(|&d| {
            p.step(d).is_some_and(|q| layout.room_of(q).is_some() && layout.room_of(q) == layout.room_of(k.pos))
        })
    };
    let tiles = |t: Tile| layout.cells_of(t).filter(|&p| reachable(p)).collect::<Vec<_>>();
    // An agent that reaches no pot supplies its teammates through shared counters: it must not
    // take back what it put there for them.
    let supplier = k.reach.pots.is_empty();
    let counters_with = |f: &dyn Fn(Item) -> bool| {
        k.counters
            .iter()
            .filter(|c| c.mine && f(c.item) && !(supplier && c.mates && !c.item.is_dish()))
            .map(|c| c.pos)
            .collect::<Vec<_>>()
    };
    let recipe = k.recipe();
    let my_pots = || k.pots.iter().filter(|p| p.mine);
    let t = match skill {
        Skill::Pickup(Target::Ingredient(kind)) => {
            let mut v = tiles(Tile::Pile(kind));
            v.extend(counters_with(&|i| i == Item::ingredient(kind)));
            v
        }
        Skill::Pickup(Target::Plate) => {
            let mut v = tiles(Tile::PlatePile);
            v.extend(counters_with(&|i| i.is_plate()));
            v
        }
        Skill::Pickup(Target::Dish) => {
            let good = counters_with(&|i| crate::rules::deliverable(k, crate::rules::working_recipe(k), i));
            if good.is_empty() { counters_with(&|i| i.is_dish()) } else { good }
        }
        Skill::PutInPot(kind) => {
            let open: Vec<Pos> = my_pots()
                .filter(|p| match p.seen {
                    None => true,
                    Some(PotSeen::Idle(c)) => c.total() < POT_CAPACITY,
                    _ => false,
                })
                .map(|p| p.pos)
                .collect();
            // Prefer a pot where the ingredient fits the recipe.
            let good: Vec<Pos> = my_pots()
                .filter(|p| match (p.seen, recipe) {
                    // Where it is still needed, or a pot already gone wrong (being cleared).
                    (Some(PotSeen::Idle(c)), Some(r)) => {
                        c.total() < POT_CAPACITY && (!fits(c, r) || c.count(kind) < r.count(kind))
                    }
                    (None, Some(_)) => true,
                    _ => false,
                })
                .map(|p| p.pos)
                .collect();
            // With the recipe known, only a pot the ingredient fits (a teammate may just have
            // filled the last place for it); otherwise any open pot.
            if good.is_empty() && k.recipe().is_none() { open } else { good }
        }
        Skill::StartCooking => my_pots()
            .filter(|p| match p.seen {
                None => true,
                Some(PotSeen::Idle(c)) => !c.is_empty(),
                _ => false,
            })
            .map(|p| p.pos)
            .collect(),
        Skill::PlateSoup => {
            let ready: Vec<Pos> =
                my_pots().filter(|p| matches!(p.seen, Some(PotSeen::Ready(_)))).map(|p| p.pos).collect();
            if !ready.is_empty() {
                ready
            } else {
                my_pots()
                    .filter(|p| match p.seen {
                        None | Some(PotSeen::Cooking(..)) => true,
                        Some(PotSeen::Idle(c)) => !c.is_empty() && (k.start_on_interact || c.total() == POT_CAPACITY),
                        _ => false,
                    })
                    .map(|p| p.pos)
                    .collect()
            }
        }
        Skill::Deliver => tiles(Tile::Goal),
        Skill::PlaceOnCounter => {
            let taken: Vec<Pos> = k.counters.iter().map(|c| c.pos).collect();
            let free: Vec<Pos> = tiles(Tile::Counter).into_iter().filter(|p| !taken.contains(p)).collect();
            // Hand-overs: when a teammate reaches things this agent cannot, use counters it can reach too.
            // A wrong dish kept back goes on a counter of this room only.
            let keep = k.held.is_dish() && k.reach.goal;
            let handover = !keep && (k.reach.pots.is_empty() || !k.reach.goal);
            let shared: Vec<Pos> = free
                .iter()
                .copied()
                .filter(|&p| {
                    Dir::ALL.iter().any(|&d| {
                        p.step(d)
                            .is_some_and(|q| layout.room_of(q).is_some() && layout.room_of(q) != layout.room_of(k.pos))
                    })
                })
                .collect();
            if handover {
                shared
            } else if keep {
                let own: Vec<Pos> = free.iter().copied().filter(|p| !shared.contains(p)).collect();
                if own.is_empty() { free } else { own }
            } else {
                free
            }
        }
        Skill::PressButton => tiles(Tile::Button),
        Skill::CheckRecipe => {
            // Where an indicator can be seen; failing that, where a button (that a teammate
            // may light) can be seen.
            let mut indicators: Vec<Pos> = layout.cells_of(Tile::RecipeIndicator).collect();
            if !k.reach.indicator_visible_from_room {
                indicators = layout.cells_of(Tile::Button).collect();
            }
            let stand: Vec<Pos> = (0..layout.cells())
                .map(|i| layout.pos_of(i))
                .filter(|&c| layout.room_of(c).is_some() && layout.room_of(c) == layout.room_of(k.pos))
                .filter(|&c| indicators.iter().any(|&ind| obs::visible(settings, c, ind)))
                .collect();
            return (Vec::new(), stand);
        }
        Skill::CheckCounters => {
            let stand: Vec<Pos> = (0..layout.cells())
                .map(|i| layout.pos_of(i))
                .filter(|&c| layout.room_of(c).is_some() && layout.room_of(c) == layout.room_of(k.pos))
                .filter(|&c| k.reach.shared.iter().any(|&p| obs::visible(settings, c, p)))
                .collect();
            return (Vec::new(), stand);
        }
        Skill::CheckPot => {
            let pots: Vec<Pos> = k.pots.iter().filter(|p| p.mine).map(|p| p.pos).collect();
            let stand: Vec<Pos> = (0..layout.cells())
                .map(|i| layout.pos_of(i))
                .filter(|&c| layout.room_of(c).is_some() && layout.room_of(c) == layout.room_of(k.pos))
                .filter(|&c| pots.iter().any(|&p| obs::visible(settings, c, p)))
                .collect();
            return (Vec::new(), stand);
        }
        Skill::Wait(_) => Vec::new(),
    };
    (t, Vec::new())
}
