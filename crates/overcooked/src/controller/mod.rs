//! The controller: turns one ProAgent skill ("pickup(onion)", ...) into
//! primitive moves, and says when the skill succeeded or failed.
//!
//! A skill's motion goals are the standing cells and facings from which its
//! target tiles can be interacted with (a [`Goal`] per target, with a bias that
//! ranks targets: nearly full pots first, counters the teammate can use when
//! handing over, ...). Every step the controller searches (A* over (cell,
//! facing) states, with the precomputed all-pairs table as the heuristic) a path
//! that treats the teammate's current cell as blocked, so it re-routes as soon
//! as the teammate gets in the way; when the detour is much longer than the
//! free path it first waits a few (seeded) steps for the teammate to move, and
//! when there is no path at all it waits or steps aside.
//!
//! Pure Rust: no I/O, every random choice from the seeded RNG.

pub mod kitchen;

pub use kitchen::{Kitchen, PotPhase};

use crate::env::motion::move_once;
use crate::env::{Action, Dir, ObjKind, Object, Pos, State, Tile};
use crate::skills::{Reach, Skill, check_preconditions};
use pathfinding::prelude::astar;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::sync::Arc;

/// A skill fails after this many consecutive steps without getting closer to its goal
/// (the default [`ControllerOptions`]).
pub const STALL_LIMIT: u32 = 12;
/// A detour around the teammate is taken at once when it costs at most this many extra moves.
const DETOUR_SLACK: u32 = 2;
/// Bias that sends the controller elsewhere unless nothing else is left.
const AVOID: u16 = 40;
/// Heuristic value of states from which no goal can be reached.
const FAR: u32 = 1 << 20;

/// How the current skill stands after a step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SkillStatus {
    /// The skill is still under way; `action` is a real move.
    Running,
    /// The skill's goal was reached (e.g. the onion is in hand, the soup served).
    Succeeded,
    /// The skill cannot go on; the controller drops it.
    Failed {
        /// First-person sentence for the prompt, e.g. "I cannot pickup(onion), since my hand is not empty."
        reason: String,
    },
}

impl SkillStatus {
    /// The feedback sentence of the ProAgent prompts, or `None` while running.
    pub fn feedback(&self, player: usize, skill: Skill) -> Option<String> {
        match self {
            SkillStatus::Running => None,
            SkillStatus::Succeeded => Some(format!("Player {player} succeeded at {skill}.")),
            SkillStatus::Failed { reason } => Some(format!("Player {player} failed at {skill}: {reason}")),
        }
    }

    /// True once the skill succeeded or failed.
    pub fn is_done(&self) -> bool {
        !matches!(self, SkillStatus::Running)
    }
}

/// What a `wait(n)` does on each of its steps.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum WaitMoves {
    /// Stay put, but step off a cell the teammate needs when it is close (breaks jams).
    #[default]
    StayOrUnjam,
    /// A seeded uniform choice among staying and moving to each neighbouring floor
    /// cell (the teammate's cell is not excluded), as the original ProAgent's waits do.
    RandomValid,
}

/// The controller's switches that the agent's presets set differently.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ControllerOptions {
    /// Consecutive steps without progress after which a skill fails; `None`: never.
    pub stall_limit: Option<u32>,
    /// What each step of a wait does.
    pub wait_moves: WaitMoves,
}

impl Default for ControllerOptions {
    fn default() -> Self {
        ControllerOptions { stall_limit: Some(STALL_LIMIT), wait_moves: WaitMoves::StayOrUnjam }
    }
}

/// One controller decision. When `status` is `Succeeded` or `Failed`, `action`
/// is a `Stay` placeholder: the caller picks the next skill and calls
/// [`Controller::step`] again for the same state, so no timestep is lost.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControlStep {
    /// The primitive action to play this step (`Stay` once the skill is done).
    pub action: Action,
    /// Whether the skill is still running, succeeded or failed after this decision.
    pub status: SkillStatus,
}

/// A tile to interact with, and how much worse than its motion cost it is ranked.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Goal {
    /// The tile to interact with (pot, dispenser, counter, window).
    pub target: Pos,
    /// Extra cost in moves added to the target's motion cost when ranking goals; higher means less wanted.
    pub bias: u16,
}

/// A standing state from which a goal's tile can be interacted with.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Spot {
    stand: Pos,
    face: Dir,
    target: Pos,
    /// The interact itself plus the goal's bias.
    extra: u32,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Node {
    At(Pos, Dir),
    Done,
}

/// The first action of a cheapest way (moves + interact + bias) to any spot,
/// treating `blocked` as an obstacle. Returns the action, the total cost and the target.
fn search(kitchen: &Kitchen, from: (Pos, Dir), spots: &[Spot], blocked: Option<Pos>) -> Option<(Action, u32, Pos)> {
    let layout = &*kitchen.layout;
    let table = &kitchen.motion;
    let succ = |n: &Node| {
        let mut out = [None; 5];
        if let Node::At(p, d) = *n {
            for (k, dir) in Dir::ALL.into_iter().enumerate() {
                let (q, e) = move_once(layout, p, dir);
                let q = if Some(q) == blocked { p } else { q };
                out[k] = Some((Node::At(q, e), 1u32));
            }
            if let Some(s) = spots.iter().filter(|s| s.stand == p && s.face == d).min_by_key(|s| s.extra) {
                out[4] = Some((Node::Done, s.extra));
            }
        }
        out.into_iter().flatten()
    };
    let heur = |n: &Node| match *n {
        Node::Done => 0,
        Node::At(p, d) => spots
            .iter()
            .filter_map(|s| table.cost((p, d), (s.stand, s.face)).map(|c| c as u32 + s.extra))
            .min()
            .unwrap_or(FAR),
    };
    let (path, cost) = astar(&Node::At(from.0, from.1), succ, heur, |n| *n == Node::Done)?;
    if cost >= FAR {
        return None;
    }
    let last = path.iter().rev().nth(1).copied()?;
    let target = match last {
        Node::At(p, d) => p.step(d)?,
        Node::Done => return None,
    };
    let action = match path.get(1)? {
        Node::Done => Action::Interact,
        Node::At(_, d) => Action::from_dir(*d),
    };
    Some((action, cost, target))
}

/// The cheapest cost to any spot ignoring the teammate (from the table).
fn free_cost(kitchen: &Kitchen, from: (Pos, Dir), spots: &[Spot], with_bias: bool) -> Option<u32> {
    spots
        .iter()
        .filter_map(|s| {
            let c = kitchen.motion.cost(from, (s.stand, s.face))? as u32;
            Some(if with_bias { c + s.extra } else { c + 1 })
        })
        .min()
}

/// Moves one player towards goals around the teammate. Shared by the
/// controller and the scripted partners that pick their own targets.
#[derive(Clone, Debug)]
pub struct Navigator {
    kitchen: Arc<Kitchen>,
    player: usize,
    rng: ChaCha8Rng,
    blocked_for: u32,
    patience: u32,
    spots: Vec<Spot>,
    /// Where this player stood, what it did and where the teammate stood, last step.
    last: Option<(Pos, Action, Pos)>,
    /// A cell both players tried to enter at once, and for how many more steps
    /// that conflict counts.
    contested: Option<(Pos, u8)>,
}

/// What a navigation step decided.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct NavStep {
    /// The first action of the chosen path (`Interact` when at the goal facing it).
    pub action: Action,
    /// The tile the chosen path ends at, if any path was found.
    pub target: Option<Pos>,
    /// Moves + interact to the nearest goal ignoring the teammate; `None` if unreachable.
    pub free_cost: Option<u32>,
    /// Cost (with goal biases) of the path around the teammate, if there is one.
    pub path_cost: Option<u32>,
}

impl Navigator {
    /// `player` is 0 or 1 (larger values are read as 1).
    pub fn new(kitchen: Arc<Kitchen>, player: usize, seed: u64) -> Navigator {
        Navigator {
            kitchen,
            player: player.min(1),
            rng: ChaCha8Rng::seed_from_u64(seed),
            blocked_for: 0,
            patience: 0,
            spots: Vec::new(),
            last: None,
            contested: None,
        }
    }

    /// The cell of last step's move into a free cell if that move was cancelled
    /// (both players stepped into the same cell).
    fn collided(&self, state: &State) -> Option<Pos> {
        let (pos, action, mate_was) = self.last?;
        let q = pos.step(action.dir()?)?;
        let me = state.players[self.player].pos;
        (q != mate_was && self.kitchen.layout.is_walkable(q) && me == pos).then_some(q)
    }

    /// Whether to hold back from moving into `next` because the teammate wants it too.
    /// A coin decides each step while the conflict lasts, so one of two such
    /// players soon goes first.
    fn yield_cell(&mut self, state: &State, next: Pos) -> bool {
        if let Some(q) = self.collided(state) {
            self.contested = Some((q, 3));
        }
        let mate = state.players[1 - self.player].pos;
        match self.contested {
            // Uneven odds by seat make "exactly one of us yields" likelier than a fair coin.
            Some((q, left)) if q == next && q != mate && left > 0 => {
                self.contested = Some((q, left - 1));
                self.rng.random_bool(if self.player == 0 { 0.25 } else { 0.75 })
            }
            _ => {
                self.contested = None;
                false
            }
        }
    }

    /// The shared per-layout precompute this navigator plans on.
    pub fn kitchen(&self) -> &Arc<Kitchen> {
        &self.kitchen
    }

    /// Index (0 or 1) of the player this navigator moves.
    pub fn player(&self) -> usize {
        self.player
    }

    /// The navigator's seeded RNG, for callers whose random choices must come from the same stream.
    pub fn rng(&mut self) -> &mut ChaCha8Rng {
        &mut self.rng
    }

    /// One step towards interacting with the best of `goals`. Returns `Interact`
    /// when already standing at a goal, facing it.
    pub fn toward(&mut self, state: &State, goals: &[Goal]) -> NavStep {
        let step = self.toward_inner(state, goals);
        let me = state.players[self.player].pos;
        self.last = Some((me, step.action, state.players[1 - self.player].pos));
        step
    }

    fn toward_inner(&mut self, state: &State, goals: &[Goal]) -> NavStep {
        let k = Arc::clone(&self.kitchen);
        let me = state.players[self.player];
        let mate = state.players[1 - self.player];
        let region = k.region(me.pos);
        self.spots.clear();
        for g in goals {
            for (stand, face) in k.spots_in(region, g.target) {
                self.spots.push(Spot { stand, face, target: g.target, extra: 1 + g.bias as u32 });
            }
        }
        if self.contested.is_some_and(|(q, _)| q == mate.pos || q == me.pos) {
            self.contested = None;
        }
        let from = (me.pos, me.dir);
        let free_plain = free_cost(&k, from, &self.spots, false);
        let Some(free) = free_cost(&k, from, &self.spots, true) else {
            return NavStep { action: self.idle_move(state), target: None, free_cost: None, path_cost: None };
        };
        let found = search(&k, from, &self.spots, Some(mate.pos));
        if let Some((action, cost, target)) = found
            && cost <= free + DETOUR_SLACK
        {
            self.blocked_for = 0;
            // Both stepped into the same cell last time: one of the two (by coin) lets the other pass.
            let next = action.dir().and_then(|d| me.pos.step(d)).filter(|&q| k.layout.is_walkable(q));
            let action = match next {
                Some(q) if self.yield_cell(state, q) => Action::Stay,
                _ => action,
            };
            return NavStep { action, target: Some(target), free_cost: free_plain, path_cost: Some(cost) };
        }
        // The teammate is in the way: give it a few steps to move on first.
        if self.blocked_for == 0 {
            self.patience = self.rng.random_range(1..=3);
        }
        self.blocked_for += 1;
        let mate_moved = self.last.is_none_or(|(_, _, mate_was)| mate_was != mate.pos);
        let action = if self.blocked_for <= self.patience {
            // Waiting, but pressing on into the teammate's cell when that is the way:
            // it costs nothing if the teammate stays and follows it at once if it leaves.
            match search(&k, from, &self.spots, None) {
                Some((a, _, _)) if a.dir().and_then(|d| me.pos.step(d)) == Some(mate.pos) => a,
                _ => Action::Stay,
            }
        } else if let Some((action, _, _)) = found {
            action
        } else if mate_moved && self.blocked_for <= self.patience + 4 {
            // No way round, but the teammate is on the move: it will likely clear the way.
            Action::Stay
        } else {
            self.step_aside(state)
        };
        NavStep { action, target: found.map(|f| f.2), free_cost: free_plain, path_cost: found.map(|f| f.1) }
    }

    /// A random move into a free floor cell, or a stay.
    pub fn step_aside(&mut self, state: &State) -> Action {
        let layout = &self.kitchen.layout;
        let me = state.players[self.player].pos;
        let mate = state.players[1 - self.player].pos;
        let mut options = [Action::Stay; 5];
        let mut n = 1;
        for d in Dir::ALL {
            if let Some(q) = me.step(d)
                && q != mate
                && layout.is_walkable(q)
            {
                options[n] = Action::from_dir(d);
                n += 1;
            }
        }
        options[self.rng.random_range(0..n)]
    }

    /// One step of a wait: stay put, but next to the teammate take a seeded
    /// random non-interact move or stay, which breaks up jams.
    pub fn wait_move(&mut self, state: &State) -> Action {
        let me = state.players[self.player].pos;
        let mate = state.players[1 - self.player].pos;
        if me.manhattan(mate) > 3 || !self.needed_by_mate(state, me) {
            return Action::Stay;
        }
        // Standing where the teammate needs to stand: move off, to a cell it does not need if possible.
        let layout = &self.kitchen.layout;
        let mut free = [Action::Stay; 4];
        let mut spare = [Action::Stay; 4];
        let (mut nf, mut ns) = (0, 0);
        for d in Dir::ALL {
            if let Some(q) = me.step(d)
                && q != mate
                && layout.is_walkable(q)
            {
                free[nf] = Action::from_dir(d);
                nf += 1;
                if !self.needed_by_mate(state, q) {
                    spare[ns] = Action::from_dir(d);
                    ns += 1;
                }
            }
        }
        if ns > 0 {
            spare[self.rng.random_range(0..ns)]
        } else if nf > 0 {
            free[self.rng.random_range(0..nf)]
        } else {
            Action::Stay
        }
    }

    /// Whether `cell` is next to a tile the teammate needs for what it holds
    /// (the window for a soup, a pot for an onion or a dish, a dispenser when empty-handed).
    fn needed_by_mate(&self, state: &State, cell: Pos) -> bool {
        let layout = &self.kitchen.layout;
        let held = state.players[1 - self.player].held;
        Dir::ALL.into_iter().filter_map(|d| cell.step(d)).any(|t| {
            matches!(
                (layout.tile(t), held),
                (Tile::Serve, Some(Object::Soup(_)))
                    | (Tile::Pot, Some(Object::Ingredient(_) | Object::Dish))
                    | (Tile::OnionSource | Tile::TomatoSource | Tile::DishSource, None)
            )
        })
    }

    /// A seeded uniform choice among `Stay` and the moves into neighbouring floor
    /// cells. The teammate's cell counts as floor (moving into it just fails), as in
    /// the original ProAgent's waits.
    pub fn random_valid_move(&mut self, state: &State) -> Action {
        let me = state.players[self.player].pos;
        let mut options = [Action::Stay; 5];
        let mut n = 1;
        for d in Dir::ALL {
            if me.step(d).is_some_and(|q| self.kitchen.layout.is_walkable(q)) {
                options[n] = Action::from_dir(d);
                n += 1;
            }
        }
        options[self.rng.random_range(0..n)]
    }

    /// A random non-interact action that does not walk into the teammate.
    pub fn idle_move(&mut self, state: &State) -> Action {
        let me = state.players[self.player].pos;
        let mate = state.players[1 - self.player].pos;
        let mut options = [Action::Stay; 5];
        let mut n = 1;
        for d in Dir::ALL {
            if me.step(d) != Some(mate) {
                options[n] = Action::from_dir(d);
                n += 1;
            }
        }
        options[self.rng.random_range(0..n)]
    }
}

/// Grounds skills into moves for one player.
#[derive(Clone, Debug)]
pub struct Controller {
    nav: Navigator,
    skill: Option<Skill>,
    pending_failure: Option<String>,
    /// Steps executed of the current skill.
    steps: u32,
    /// Best costs seen since the goals last changed: progress means beating one of them.
    best_free: u32,
    best_path: u32,
    goal_sig: u64,
    stall: u32,
    /// Counters this player put something on (and what), so that it does not take it back.
    placed: Vec<(Pos, ObjKind)>,
    goals: Vec<Goal>,
    options: ControllerOptions,
}

impl Controller {
    /// A controller for `player` (0 or 1) with no skill; `seed` seeds its jitter RNG so runs repeat exactly.
    pub fn new(kitchen: Arc<Kitchen>, player: usize, seed: u64) -> Controller {
        Controller {
            nav: Navigator::new(kitchen, player, seed),
            skill: None,
            pending_failure: None,
            steps: 0,
            best_free: u32::MAX,
            best_path: u32::MAX,
            goal_sig: 0,
            stall: 0,
            placed: Vec::new(),
            goals: Vec::new(),
            options: ControllerOptions::default(),
        }
    }

    /// The same controller with other switches (stall limit, what waits do).
    pub fn with_options(mut self, options: ControllerOptions) -> Controller {
        self.options = options;
        self
    }

    /// Whether the current skill's effect has happened in `state` (the item is in hand,
    /// the hand is empty after a put, place or delivery, a wait has run its steps).
    /// `false` without a skill.
    pub fn is_done(&self, state: &State) -> bool {
        let Some(skill) = self.skill else { return false };
        let held = Kitchen::held_kind(state, self.nav.player);
        match skill {
            Skill::PickupOnion => held == Some(ObjKind::Onion),
            Skill::PickupDish => held == Some(ObjKind::Dish),
            Skill::FillDishWithSoup => held == Some(ObjKind::Soup),
            Skill::PutOnionInPot | Skill::PlaceObjOnCounter | Skill::DeliverSoup => held.is_none(),
            Skill::Wait(n) => self.steps >= n as u32,
        }
    }

    /// The shared per-layout precompute this controller plans on.
    pub fn kitchen(&self) -> &Arc<Kitchen> {
        self.nav.kitchen()
    }

    /// Index (0 or 1) of the player this controller moves.
    pub fn player(&self) -> usize {
        self.nav.player
    }

    /// The skill being run, or `None` before the first or after [`Controller::clear`].
    pub fn skill(&self) -> Option<Skill> {
        self.skill
    }

    /// Starts a skill. Its preconditions are checked now; a skill that cannot
    /// run fails on the next [`Controller::step`].
    pub fn set_skill(&mut self, skill: Skill, state: &State) {
        self.skill = Some(skill);
        self.steps = 0;
        self.stall = 0;
        self.best_free = u32::MAX;
        self.best_path = u32::MAX;
        self.goal_sig = 0;
        self.nav.blocked_for = 0;
        let k = self.nav.kitchen();
        let reach = Reach { layout: &k.layout, motion: &k.motion, state, player: self.nav.player };
        self.pending_failure = check_preconditions(skill, &reach).into_iter().next().map(|f| f.reason);
    }

    /// Drops the current skill (the controller then stays until given another).
    pub fn clear(&mut self) {
        self.skill = None;
        self.pending_failure = None;
    }

    fn finish(&mut self, status: SkillStatus) -> ControlStep {
        self.skill = None;
        self.pending_failure = None;
        ControlStep { action: Action::Stay, status }
    }

    /// One decision for the current state.
    pub fn step(&mut self, state: &State) -> ControlStep {
        let Some(skill) = self.skill else {
            return ControlStep { action: Action::Stay, status: SkillStatus::Running };
        };
        if let Some(reason) = self.pending_failure.take() {
            return self.finish(SkillStatus::Failed { reason });
        }
        let me = self.nav.player;
        let k = Arc::clone(self.nav.kitchen());
        let held = Kitchen::held_kind(state, me);
        if self.is_done(state) {
            return self.finish(SkillStatus::Succeeded);
        }
        if let Skill::Wait(_) = skill {
            self.steps += 1;
            let action = match self.options.wait_moves {
                WaitMoves::StayOrUnjam => self.nav.wait_move(state),
                WaitMoves::RandomValid => self.nav.random_valid_move(state),
            };
            return ControlStep { action, status: SkillStatus::Running };
        }
        // A skill that needs an object fails once the hand holds something else.
        let wrong_hand = match skill {
            Skill::PickupOnion | Skill::PickupDish => held.is_some(),
            Skill::PutOnionInPot => held != Some(ObjKind::Onion),
            Skill::FillDishWithSoup => held != Some(ObjKind::Dish),
            _ => false,
        };
        if wrong_hand {
            let reason = self.precondition_reason(skill, state);
            return self.finish(SkillStatus::Failed { reason });
        }
        let mut goals = std::mem::take(&mut self.goals);
        goals.clear();
        self.skill_goals(skill, state, &mut goals);
        let nav = self.nav.toward(state, &goals);
        let sig = goals.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, g| {
            (h ^ ((g.target.x as u64) << 16 | (g.target.y as u64) << 8 | g.bias.min(255) as u64))
                .wrapping_mul(0x100_0000_01b3)
        });
        self.goals = goals;
        if sig != self.goal_sig {
            self.goal_sig = sig;
            self.best_free = u32::MAX;
            self.best_path = u32::MAX;
        }
        if nav.free_cost.is_none() {
            let reason = self.precondition_reason(skill, state);
            return self.finish(SkillStatus::Failed { reason });
        }
        let mut action = nav.action;
        let mut waiting_for_soup = false;
        if skill == Skill::FillDishWithSoup
            && let Some(t) = nav.target
            && matches!(k.pot_phase(state, t), PotPhase::Cooking(_))
            && action == Action::Interact
        {
            action = Action::Stay;
            waiting_for_soup = true;
        }
        if action == Action::Interact
            && skill == Skill::PlaceObjOnCounter
            && let (Some(t), Some(kind)) = (nav.target, held)
        {
            self.placed.retain(|&(p, _)| p != t);
            self.placed.push((t, kind));
        }
        let free = nav.free_cost.unwrap_or(u32::MAX);
        let path = nav.path_cost.unwrap_or(u32::MAX);
        let progressed = free < self.best_free || path < self.best_path;
        self.best_free = self.best_free.min(free);
        self.best_path = self.best_path.min(path);
        self.stall = if progressed || waiting_for_soup || action == Action::Interact { 0 } else { self.stall + 1 };
        self.steps += 1;
        if let Some(limit) = self.options.stall_limit
            && self.stall >= limit
        {
            return self.finish(SkillStatus::Failed {
                reason: format!("I made no progress for {limit} steps, since the way is blocked."),
            });
        }
        ControlStep { action, status: SkillStatus::Running }
    }

    fn precondition_reason(&self, skill: Skill, state: &State) -> String {
        let k = self.nav.kitchen();
        let reach = Reach { layout: &k.layout, motion: &k.motion, state, player: self.nav.player };
        check_preconditions(skill, &reach)
            .into_iter()
            .next()
            .map(|f| f.reason)
            .unwrap_or_else(|| format!("I cannot {skill}, since nothing I can reach is left for it."))
    }

    /// The targets of a skill in this state, ranked by bias.
    fn skill_goals(&mut self, skill: Skill, state: &State, out: &mut Vec<Goal>) {
        let k = Arc::clone(self.nav.kitchen());
        let layout = &*k.layout;
        let me = self.nav.player;
        let mate = 1 - me;
        let my_r = k.player_region(state, me);
        let mate_r = k.player_region(state, mate);
        self.placed.retain(|&(p, kind)| state.object_at(layout, p).is_some_and(|o| o.kind() == kind));
        match skill {
            Skill::PickupOnion | Skill::PickupDish => {
                let kind = if skill == Skill::PickupOnion { ObjKind::Onion } else { ObjKind::Dish };
                let me_p = state.players[me];
                let mate_p = state.players[mate];
                // Leave the teammate the sources it is closer to, when it is free to take them.
                let bias_for = |t: Pos| -> u16 {
                    if mate_p.held.is_some() {
                        return 0;
                    }
                    let mine = k.motion.cost_to_interact(layout, (me_p.pos, me_p.dir), t).map(|c| c.0);
                    let theirs = k.motion.cost_to_interact(layout, (mate_p.pos, mate_p.dir), t).map(|c| c.0);
                    match (mine, theirs) {
                        (Some(m), Some(t)) if t < m || (t == m && me == 1) => 2,
                        _ => 0,
                    }
                };
                let mut have_source = false;
                for &s in k.sources(kind) {
                    if k.region_reaches(my_r, s) {
                        have_source = true;
                        out.push(Goal { target: s, bias: bias_for(s) });
                    }
                }
                for c in k.counters_with(state, kind) {
                    if !k.region_reaches(my_r, c) {
                        continue;
                    }
                    let handed_over = self.placed.iter().any(|&(p, _)| p == c);
                    if handed_over && have_source && k.region_reaches(mate_r, c) {
                        continue;
                    }
                    out.push(Goal { target: c, bias: bias_for(c) });
                }
            }
            Skill::PutOnionInPot => {
                let cap = layout.rules.num_items as u16;
                let mate_p = &state.players[mate];
                let me_p = &state.players[me];
                // The pot the teammate is carrying its onion to, if it carries one.
                let mate_pot = if matches!(mate_p.held, Some(Object::Ingredient(_))) {
                    layout
                        .pots
                        .iter()
                        .copied()
                        .filter(|&p| k.pot_accepts(state, p))
                        .filter_map(|p| {
                            let (c, _) = k.motion.cost_to_interact(layout, (mate_p.pos, mate_p.dir), p)?;
                            let PotPhase::Filling(n) = k.pot_phase(state, p) else { return None };
                            Some((c + 2 * (cap - 1).saturating_sub(n as u16), p))
                        })
                        .min()
                        .map(|(_, p)| p)
                } else {
                    None
                };
                for &p in &layout.pots {
                    if !k.region_reaches(my_r, p) {
                        continue;
                    }
                    let PotPhase::Filling(n) = k.pot_phase(state, p) else { continue };
                    let mut n = n as u16;
                    if n >= cap {
                        continue;
                    }
                    if mate_pot == Some(p) {
                        let mine = k.motion.cost_to_interact(layout, (me_p.pos, me_p.dir), p).map(|c| c.0);
                        let theirs = k.motion.cost_to_interact(layout, (mate_p.pos, mate_p.dir), p).map(|c| c.0);
                        if theirs < mine {
                            n += 1;
                        }
                    }
                    let bias = if n >= cap { AVOID } else { 2 * (cap - 1 - n) };
                    out.push(Goal { target: p, bias });
                }
            }
            Skill::PlaceObjOnCounter => {
                let Some(held) = Kitchen::held_kind(state, me) else { return };
                let uses = self.uses_of(state, held);
                for c in k.empty_counters(state) {
                    if !k.region_reaches(my_r, c) {
                        continue;
                    }
                    // Rank a counter by how quickly the object is of use from its far side.
                    let use_cost = crate::env::motion::interact_spots(layout, c)
                        .filter_map(|spot| {
                            uses.iter().filter_map(|&u| k.motion.cost_to_interact(layout, spot, u).map(|x| x.0)).min()
                        })
                        .min();
                    out.push(Goal { target: c, bias: use_cost.map_or(AVOID, |u| u.min(AVOID)) });
                }
            }
            Skill::FillDishWithSoup => {
                let me_p = &state.players[me];
                let mate_p = &state.players[mate];
                let candidates: Vec<(Pos, u16)> = layout
                    .pots
                    .iter()
                    .copied()
                    .filter(|&p| k.region_reaches(my_r, p))
                    .filter_map(|p| match k.pot_phase(state, p) {
                        PotPhase::Ready => Some((p, 0)),
                        PotPhase::Cooking(r) => Some((p, r)),
                        PotPhase::Filling(_) => None,
                    })
                    .collect();
                let mate_has_dish = matches!(mate_p.held, Some(Object::Dish));
                for &(p, rem) in &candidates {
                    let mine = k.motion.cost_to_interact(layout, (me_p.pos, me_p.dir), p).map_or(u16::MAX, |c| c.0);
                    let mut bias = rem.saturating_sub(mine);
                    if mate_has_dish && candidates.len() > 1 {
                        let theirs =
                            k.motion.cost_to_interact(layout, (mate_p.pos, mate_p.dir), p).map_or(u16::MAX, |c| c.0);
                        if theirs < mine {
                            bias = bias.saturating_add(AVOID);
                        }
                    }
                    out.push(Goal { target: p, bias });
                }
            }
            Skill::DeliverSoup => {
                for &s in &layout.serving {
                    if k.region_reaches(my_r, s) {
                        out.push(Goal { target: s, bias: 0 });
                    }
                }
            }
            Skill::Wait(_) => {}
        }
    }

    /// Where an object of `kind` is used next: pots for ingredients and dishes, the window for soups.
    fn uses_of(&self, state: &State, kind: ObjKind) -> Vec<Pos> {
        let k = self.nav.kitchen();
        let layout = &k.layout;
        let pick = |f: &dyn Fn(Pos) -> bool| -> Vec<Pos> {
            let v: Vec<Pos> = layout.pots.iter().copied().filter(|&p| f(p)).collect();
            if v.is_empty() { layout.pots.clone() } else { v }
        };
        match kind {
            ObjKind::Onion | ObjKind::Tomato => pick(&|p| k.pot_accepts(state, p)),
            ObjKind::Dish => pick(&|p| k.pot_cooking_or_ready(state, p)),
            ObjKind::Soup => layout.serving.clone(),
        }
    }

    /// Steps towards the best of the given goals without a skill (for scripted partners).
    pub fn navigate(&mut self, state: &State, goals: &[Goal]) -> NavStep {
        self.nav.toward(state, goals)
    }

    /// The navigator under this controller, for scripted partners that need its RNG or helpers.
    pub fn navigator(&mut self) -> &mut Navigator {
        &mut self.nav
    }
}

#[cfg(test)]
mod tests;
