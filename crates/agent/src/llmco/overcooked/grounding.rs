//! Classic Overcooked as the LLM-Coordination agent sees it (the paper's Appendix A, in our
//! words): every interactable place has a name — onion dispensers `o0`, `o1`, ...,
//! cookers `c0`, ..., plate dispensers `p0`, ..., delivery areas `d0`, ..., shared counters
//! `s0`, ... (the released agent's storage counters: those both cooks can reach in a kitchen
//! split in two, and Counter Circuit's island `s0`–`s3`, [`ISLAND_COUNTERS`]) and kitchen
//! counters `k0`, ... — and the actions are target-specific, in the released agent's words:
//! "pick up onion from o0", "place onion in c0", "load soup on plate from c1", "place soup
//! for delivery in d0", "place plate on k3", "place onion in s1", "pick up a plate from
//! s0", "wait", "move away". Onions and plates go on and come off a shared counter; soups
//! do not (the released agent offers no soup actions there).
//!
//! The game description names the layout's places; a kitchen split in two also says who
//! reaches what (the released agent's partition sentence, for Asymmetric Advantages and
//! Forced Coordination), and Counter Circuit's says what the island's shared counters are
//! for.
//!
//! The state description gives what both cooks hold, each cook's distance to every place
//! ("N units away", "blocked by Bob" when the partner's body stands on every shortest way,
//! "inaccessible"), every cooker's onions and cooking state, what lies on the counters and
//! the closest empty kitchen counter. Actions are offered only when feasible: what can be
//! done with what the cook holds, at places it can reach (a full cooker takes no onion, an
//! empty counter offers nothing to pick up; to put something down only the closest empty
//! kitchen counter is offered, as in the paper).
//!
//! Execution: the target-specific action walks to the place (around the partner) and
//! interacts once there, then the agent decides again; "wait" stays one step and "move
//! away" steps aside one step, each followed by a new decision, as in the published agent.
//! An action whose place cannot be reached, or that makes no progress for 25 steps, ends
//! and a new decision is made.
//!
//! Fallback for a reply that names no offered action: a seeded random offered action, as
//! the published agent does.

use super::standin::OvercookedStandIn;
use crate::llmco::grounding::{Exec, LlmcoGrounding, player_name};
use crate::llmco::settings::{LlmcoPreset, PaperSteps};
use proagent_core::Observation;
use proagent_llm::LanguageModel;
use proagent_overcooked::controller::kitchen::{Kitchen, PotPhase};
use proagent_overcooked::controller::{Goal, Navigator};
use proagent_overcooked::env::layout::DEFAULT_COOK_TIME;
use proagent_overcooked::env::motion::interact_spots;
use proagent_overcooked::env::{Action, Dir, Event, ObjKind, Object, Pos, State};
use proagent_overcooked::game::Overcooked;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde_json::json;
use std::collections::VecDeque;
use std::fmt::Write as _;
use std::sync::Arc;

/// An action that runs this many steps without finishing ends.
pub const MAX_STEPS_PER_ACTION: u32 = 25;

/// The counters the released agent names as shared (`s0`, ...) on a kitchen that is not
/// split, per layout: Counter Circuit's island in the middle, which both cooks reach from
/// either side of the ring ((x, y) cells, its `storage_counter_locations`).
pub const ISLAND_COUNTERS: &[(&str, &[(u8, u8)])] = &[
    ("counter_circuit", &[(2, 2), (3, 2), (4, 2), (5, 2)]),
    ("counter_circuit_o_1order", &[(2, 2), (3, 2), (4, 2), (5, 2)]),
];

/// The kinds of named places.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Place {
    /// An onion dispenser (`o`).
    Onions,
    /// A cooker (`c`).
    Cooker,
    /// A plate dispenser (`p`).
    Plates,
    /// A delivery area (`d`).
    Delivery,
    /// A counter both cooks can reach in a split kitchen, or on Counter Circuit's island (`s`).
    Shared,
    /// Any other counter (`k`).
    Counter,
}

impl Place {
    fn letter(self) -> char {
        match self {
            Place::Onions => 'o',
            Place::Cooker => 'c',
            Place::Plates => 'p',
            Place::Delivery => 'd',
            Place::Shared => 's',
            Place::Counter => 'k',
        }
    }
}

/// What a target-specific action does at its place.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Task {
    /// Pick up what the place gives or holds.
    PickUp,
    /// Put the held item into or onto the place.
    PutDown,
    /// Load the cooker's soup onto the held plate.
    Load,
}

/// One action the agent can choose.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum OcChoice {
    /// Go to a named place (its index in the episode's list) and do the task there.
    At(Task, usize),
    /// Stay one step.
    Wait,
    /// Step aside one step.
    MoveAway,
}

/// A named place.
#[derive(Clone, Debug)]
pub struct Named {
    /// `o0`, `c1`, `k12`, ...
    pub name: String,
    /// What it is.
    pub place: Place,
    /// Its cell.
    pub pos: Pos,
}

/// The LLM-Coordination grounding of classic Overcooked.
#[derive(Clone, Copy, Debug, Default)]
pub struct OvercookedLlmco;

/// What the grounding keeps for an episode.
pub struct OcEpisode {
    me: usize,
    kitchen: Arc<Kitchen>,
    nav: Navigator,
    places: Vec<Named>,
    vars: serde_json::Value,
    /// Steps the running action has taken.
    running_for: u32,
    /// Show the timesteps left (not in the paper preset).
    show_time: bool,
}

/// The names of every interactable place of a kitchen, in the layout's order per kind.
pub fn name_places(kitchen: &Kitchen) -> Vec<Named> {
    let layout = &kitchen.layout;
    let state = layout.start_state();
    let split = kitchen.player_region(&state, 0) != kitchen.player_region(&state, 1);
    let mut out = Vec::new();
    let mut push = |place: Place, cells: &[Pos]| {
        for (i, &pos) in cells.iter().enumerate() {
            out.push(Named { name: format!("{}{i}", place.letter()), place, pos });
        }
    };
    push(Place::Onions, &layout.onion_sources);
    push(Place::Cooker, &layout.pots);
    push(Place::Plates, &layout.dish_sources);
    push(Place::Delivery, &layout.serving);
    let island: Vec<Pos> = ISLAND_COUNTERS
        .iter()
        .filter(|(name, _)| *name == layout.name)
        .flat_map(|(_, cells)| cells.iter().map(|&(x, y)| Pos { x, y }))
        .collect();
    let (shared, other): (Vec<Pos>, Vec<Pos>) = layout
        .counters
        .iter()
        .partition(|&&c| (split && kitchen.shared_by_players(&state, c)) || (!split && island.contains(&c)));
    push(Place::Shared, &shared);
    push(Place::Counter, &other);
    out
}

/// "nothing", "onion", "plate", "soup in plate" (the paper's words).
pub fn held_words(held: Option<&Object>) -> &'static str {
    match held.map(Object::kind) {
        None => "nothing",
        Some(ObjKind::Onion) => "onion",
        Some(ObjKind::Tomato) => "tomato",
        Some(ObjKind::Dish) => "plate",
        Some(ObjKind::Soup) => "soup in plate",
    }
}

/// How far `player` is from interacting with `target`: the motion cost, `Blocked` when every
/// way passes the partner's cell, `None` when unreachable.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reach {
    /// Moves (with turns) to face the place.
    Away(u16),
    /// Every way passes through the partner.
    Blocked,
}

fn reach(kitchen: &Kitchen, state: &State, player: usize, target: Pos) -> Option<Reach> {
    let layout = &*kitchen.layout;
    let me = state.players[player];
    let (cost, _) = kitchen.motion.cost_to_interact(layout, (me.pos, me.dir), target)?;
    let mate = state.players[1 - player].pos;
    // Breadth-first over floor cells, the partner's cell a wall.
    let goals: Vec<Pos> = interact_spots(layout, target).map(|(p, _)| p).filter(|&p| p != mate).collect();
    if goals.is_empty() {
        return Some(Reach::Blocked);
    }
    let mut seen = vec![false; layout.width * layout.height];
    let mut queue = VecDeque::from([me.pos]);
    if let Some(i) = layout.index(me.pos) {
        seen[i] = true;
    }
    while let Some(p) = queue.pop_front() {
        if goals.contains(&p) {
            return Some(Reach::Away(cost));
        }
        for d in Dir::ALL {
            if let Some(q) = p.step(d)
                && q != mate
                && layout.is_walkable(q)
                && let Some(i) = layout.index(q)
                && !seen[i]
            {
                seen[i] = true;
                queue.push_back(q);
            }
        }
    }
    Some(Reach::Blocked)
}

fn reach_words(r: Option<Reach>, mate: &str) -> String {
    match r {
        Some(Reach::Away(n)) => format!("{n} units away"),
        Some(Reach::Blocked) => format!("blocked by {mate}"),
        None => "inaccessible".to_string(),
    }
}

/// A sentence on the kitchen's places for the game description.
fn environment(kitchen: &Kitchen, places: &[Named]) -> String {
    let layout = &kitchen.layout;
    let state = layout.start_state();
    let list = |kind: Place| places.iter().filter(|n| n.place == kind).map(|n| n.name.clone()).collect::<Vec<_>>();
    let count = |kind: Place, one: &str, many: &str| {
        let l = list(kind);
        match l.len() {
            0 => None,
            1 => Some(format!("1 {one} ({})", l[0])),
            n => Some(format!("{n} {many} ({})", l.join(", "))),
        }
    };
    let parts: Vec<String> = [
        count(Place::Onions, "onion dispenser", "onion dispensers"),
        count(Place::Cooker, "cooker", "cookers"),
        count(Place::Plates, "plate dispenser", "plate dispensers"),
        count(Place::Delivery, "delivery area", "delivery areas"),
    ]
    .into_iter()
    .flatten()
    .collect();
    let mut s = format!("The kitchen ({}) has {}.", layout.name, parts.join(", "));
    let k = list(Place::Counter);
    if !k.is_empty() {
        let _ = write!(s, " Kitchen counters ({} to {}) can hold an item put down for later.", k[0], k[k.len() - 1]);
    }
    let shared = list(Place::Shared);
    let split = kitchen.player_region(&state, 0) != kitchen.player_region(&state, 1);
    let fixed = |n: &&Named| n.place != Place::Shared && n.place != Place::Counter;
    if split {
        let reach_of = |p: usize| {
            places
                .iter()
                .filter(fixed)
                .filter(|n| kitchen.reaches(&state, p, n.pos))
                .map(|n| n.name.clone())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let _ = write!(
            s,
            " The kitchen is split in two parts: {} can reach {}; {} can reach {}.",
            player_name(0),
            reach_of(0),
            player_name(1),
            reach_of(1),
        );
        let both: Vec<String> = places
            .iter()
            .filter(fixed)
            .filter(|n| kitchen.reaches(&state, 0, n.pos) && kitchen.reaches(&state, 1, n.pos))
            .map(|n| n.name.clone())
            .collect();
        if !both.is_empty() {
            let _ = write!(s, " {} on the line between the parts can be reached from both sides.", both.join(", "));
        }
        if !shared.is_empty() {
            let _ =
                write!(s, " Items are passed on the shared counters ({}), which both can reach.", shared.join(", "));
        }
    } else if !shared.is_empty() {
        let _ = write!(
            s,
            " The shared counters ({}) on the island in the middle can be used to pass onions and plates from one cook to the other.",
            shared.join(", ")
        );
    }
    s
}

impl OcEpisode {
    fn name_at(&self, pos: Pos) -> String {
        self.places.iter().find(|n| n.pos == pos).map_or_else(|| format!("({}, {})", pos.x, pos.y), |n| n.name.clone())
    }
}

/// The state description from `me`'s seat.
pub fn state_words(ep: &OcEpisode, game: &Overcooked, s: &State) -> String {
    let k = &ep.kitchen;
    let layout = &*k.layout;
    let (me, mate) = (ep.me, 1 - ep.me);
    let mate_name = player_name(mate);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<Inventory>: I am holding {}. {mate_name} is holding {}.",
        held_words(s.players[me].held.as_ref()),
        held_words(s.players[mate].held.as_ref())
    );
    let fixed = |p: &Named| !matches!(p.place, Place::Counter | Place::Shared);
    for (who, label) in
        [(me, "My location information".to_string()), (mate, format!("{mate_name}'s location information"))]
    {
        let other = player_name(1 - who);
        let _ = write!(out, "<{label}>:");
        for p in ep.places.iter().filter(|p| fixed(p) || p.place == Place::Shared) {
            let _ = write!(out, " {} is {}.", p.name, reach_words(reach(k, s, who, p.pos), other));
        }
        let _ = writeln!(out);
    }
    let _ = write!(out, "<Environment details>:");
    for p in ep.places.iter().filter(|p| p.place == Place::Cooker) {
        match k.pot_phase(s, p.pos) {
            PotPhase::Filling(n) => {
                let _ =
                    write!(out, " {0} contains {n} out of 3 onions. {0} is off. Soup in {0} is not cooking.", p.name);
            }
            PotPhase::Cooking(left) => {
                let _ = write!(
                    out,
                    " {0} contains 3 out of 3 onions. {0} is on. Soup in {0} is still cooking, ready in {left} timesteps.",
                    p.name
                );
            }
            PotPhase::Ready => {
                let _ = write!(out, " {0} contains 3 out of 3 onions. {0} is off. Soup in {0} is cooked.", p.name);
            }
        }
    }
    for p in ep.places.iter().filter(|p| p.place == Place::Shared) {
        match s.object_at(layout, p.pos) {
            None => {
                let _ = write!(out, " {} is empty.", p.name);
            }
            Some(o) => {
                let _ = write!(out, " {} contains {}.", p.name, held_words(Some(o)));
            }
        }
    }
    let mut closest: Option<(u16, &str)> = None;
    for p in ep.places.iter().filter(|p| p.place == Place::Counter) {
        let r = reach(k, s, me, p.pos);
        match s.object_at(layout, p.pos) {
            Some(o) => {
                let _ =
                    write!(out, " {} contains {} and is {}.", p.name, held_words(Some(o)), reach_words(r, mate_name));
            }
            None => {
                if let Some(Reach::Away(n)) = r
                    && closest.is_none_or(|(c, _)| n < c)
                {
                    closest = Some((n, &p.name));
                }
            }
        }
    }
    if let Some((n, name)) = closest {
        let _ = write!(out, " Closest empty kitchen counter {name} is {n} units away.");
    }
    let _ = writeln!(out);
    if ep.show_time {
        let _ = write!(out, "Timesteps left: {}.", game.horizon.saturating_sub(s.timestep));
    }
    out
}

/// The feasible actions of `me` now, in the order the paper lists them.
pub fn feasible(ep: &OcEpisode, s: &State) -> Vec<(OcChoice, String)> {
    let k = &ep.kitchen;
    let layout = &*k.layout;
    let me = ep.me;
    let mut out = Vec::new();
    let reachable = |p: &Named| reach(k, s, me, p.pos).is_some();
    let at = |kind: Place| ep.places.iter().enumerate().filter(move |(_, p)| p.place == kind);
    let on = |p: &Named| s.object_at(layout, p.pos).map(Object::kind);
    let closest_empty = ep
        .places
        .iter()
        .enumerate()
        .filter(|(_, p)| p.place == Place::Counter && on(p).is_none())
        .filter_map(|(i, p)| match reach(k, s, me, p.pos) {
            Some(Reach::Away(n)) => Some((n, i)),
            _ => None,
        })
        .min()
        .map(|(_, i)| i);
    let counters = |want: Option<ObjKind>| {
        ep.places
            .iter()
            .enumerate()
            .filter(move |(_, p)| matches!(p.place, Place::Counter | Place::Shared) && on(p) == want)
            .filter(|(_, p)| reachable(p))
    };
    match s.players[me].held.as_ref().map(Object::kind) {
        None => {
            for (i, p) in at(Place::Onions).filter(|(_, p)| reachable(p)) {
                out.push((OcChoice::At(Task::PickUp, i), format!("pick up onion from {}", p.name)));
            }
            for (i, p) in at(Place::Plates).filter(|(_, p)| reachable(p)) {
                out.push((OcChoice::At(Task::PickUp, i), format!("pick up plate from {}", p.name)));
            }
            for (kind, word) in [(ObjKind::Onion, "onion"), (ObjKind::Dish, "plate"), (ObjKind::Soup, "cooked soup")] {
                for (i, p) in counters(Some(kind)) {
                    let words = match (p.place, kind) {
                        // The released agent's words on a shared counter; it offers no soup there.
                        (Place::Shared, ObjKind::Dish) => format!("pick up a plate from {}", p.name),
                        (Place::Shared, ObjKind::Soup) => continue,
                        _ => format!("pick up {word} from {}", p.name),
                    };
                    out.push((OcChoice::At(Task::PickUp, i), words));
                }
            }
        }
        Some(kind @ (ObjKind::Onion | ObjKind::Tomato)) => {
            for (i, p) in at(Place::Cooker).filter(|(_, p)| reachable(p) && k.pot_accepts(s, p.pos)) {
                out.push((OcChoice::At(Task::PutDown, i), format!("place {} in {}", kind.name(), p.name)));
            }
            let word = kind.name();
            for (i, p) in counters(None).filter(|(i, p)| p.place == Place::Shared || Some(*i) == closest_empty) {
                let prep = if p.place == Place::Shared { "in" } else { "on" };
                out.push((OcChoice::At(Task::PutDown, i), format!("place {word} {prep} {}", p.name)));
            }
        }
        Some(ObjKind::Dish) => {
            for (i, p) in at(Place::Cooker).filter(|(_, p)| reachable(p) && k.pot_cooking_or_ready(s, p.pos)) {
                out.push((OcChoice::At(Task::Load, i), format!("load soup on plate from {}", p.name)));
            }
            for (i, p) in counters(None).filter(|(i, p)| p.place == Place::Shared || Some(*i) == closest_empty) {
                let prep = if p.place == Place::Shared { "in" } else { "on" };
                out.push((OcChoice::At(Task::PutDown, i), format!("place plate {prep} {}", p.name)));
            }
        }
        Some(ObjKind::Soup) => {
            for (i, p) in at(Place::Delivery).filter(|(_, p)| reachable(p)) {
                out.push((OcChoice::At(Task::PutDown, i), format!("place soup for delivery in {}", p.name)));
            }
            for (i, p) in counters(None).filter(|(i, _)| Some(*i) == closest_empty) {
                out.push((OcChoice::At(Task::PutDown, i), format!("place soup on {}", p.name)));
            }
        }
    }
    out.push((OcChoice::Wait, "wait".to_string()));
    out.push((OcChoice::MoveAway, "move away".to_string()));
    out
}

/// Whether the task can be done at the place with what the cook holds now.
fn doable(ep: &OcEpisode, s: &State, task: Task, i: usize) -> bool {
    let k = &ep.kitchen;
    let Some(p) = ep.places.get(i) else { return false };
    let held = s.players[ep.me].held.as_ref().map(Object::kind);
    let on = s.object_at(&k.layout, p.pos);
    match task {
        Task::PickUp => held.is_none() && (matches!(p.place, Place::Onions | Place::Plates) || on.is_some()),
        Task::PutDown => match p.place {
            Place::Cooker => k.pot_accepts(s, p.pos) && matches!(held, Some(ObjKind::Onion | ObjKind::Tomato)),
            Place::Delivery => held == Some(ObjKind::Soup),
            Place::Counter | Place::Shared => held.is_some() && on.is_none(),
            _ => false,
        },
        Task::Load => held == Some(ObjKind::Dish) && k.pot_cooking_or_ready(s, p.pos),
    }
}

impl LlmcoGrounding for OvercookedLlmco {
    type Game = Overcooked;
    type Choice = OcChoice;
    type Episode = OcEpisode;

    const KEY: &'static str = "overcooked";
    const PAPER: PaperSteps = PaperSteps { tom: false, verify: false, history: 5 };

    fn begin(&self, game: &Overcooked, me: usize, seed: u64) -> OcEpisode {
        let kitchen = game.kitchen();
        let places = name_places(&kitchen);
        let vars = json!({
            "game_name": "Overcooked",
            "layout": kitchen.layout.name,
            "environment": environment(&kitchen, &places),
            "cook_time": DEFAULT_COOK_TIME,
            "delivery_reward": proagent_overcooked::env::layout::DEFAULT_SOUP_VALUE,
            "horizon": game.horizon,
        });
        let nav = Navigator::new(Arc::clone(&kitchen), me.min(1), seed);
        OcEpisode { me: me.min(1), kitchen, nav, places, vars, running_for: 0, show_time: true }
    }

    fn set_preset(&self, ep: &mut OcEpisode, preset: LlmcoPreset) {
        ep.show_time = preset == LlmcoPreset::Default;
    }

    fn game_vars(&self, ep: &OcEpisode) -> serde_json::Value {
        ep.vars.clone()
    }

    fn state_text(&self, ep: &OcEpisode, obs: &Observation<'_, Overcooked>) -> String {
        state_words(ep, obs.game, obs.view)
    }

    fn options(&self, ep: &OcEpisode, obs: &Observation<'_, Overcooked>) -> Vec<(OcChoice, String)> {
        feasible(ep, obs.view)
    }

    fn partner_action(&self, ep: &OcEpisode, obs: &Observation<'_, Overcooked>) -> Option<String> {
        let mate = 1 - ep.me;
        let who = player_name(mate);
        let action = obs.last_actions.get(mate).copied().flatten()?;
        let what = match obs.last_events.get(mate).cloned().flatten() {
            Some(Event::Dispense { kind, at }) => {
                format!("picked up {} from {}", held_words(Some(&kind_object(kind))), ep.name_at(at))
            }
            Some(Event::PickupCounter { kind, at }) => {
                format!("picked up {} from {}", held_words(Some(&kind_object(kind))), ep.name_at(at))
            }
            Some(Event::PlaceCounter { kind, at }) => {
                format!("placed {} on {}", held_words(Some(&kind_object(kind))), ep.name_at(at))
            }
            Some(Event::Potting { at, count, .. }) => format!("put an onion in {} ({count} in it now)", ep.name_at(at)),
            Some(Event::PickupSoup { at }) => format!("loaded the soup of {} on a plate", ep.name_at(at)),
            Some(Event::Deliver { at, .. }) => format!("delivered a soup at {}", ep.name_at(at)),
            None => match action {
                Action::Stay => "stayed in place".to_string(),
                Action::Interact => "interacted with nothing".to_string(),
                a => format!("moved {}", format!("{a:?}").to_lowercase()),
            },
        };
        Some(format!(
            "{who}'s last action: {who} {what}; {who} is holding {}.",
            held_words(obs.view.players[mate].held.as_ref())
        ))
    }

    fn fallback(&self, _ep: &OcEpisode, options: &[(OcChoice, String)], rng: &mut ChaCha8Rng) -> usize {
        rng.random_range(0..options.len().max(1))
    }

    fn execute(&self, ep: &mut OcEpisode, choice: OcChoice, obs: &Observation<'_, Overcooked>) -> Exec<Action> {
        let s = obs.view;
        match choice {
            OcChoice::Wait => Exec::ActAndFinish(Action::Stay),
            OcChoice::MoveAway => Exec::ActAndFinish(ep.nav.step_aside(s)),
            OcChoice::At(task, i) => {
                if !doable(ep, s, task, i) || ep.running_for >= MAX_STEPS_PER_ACTION {
                    ep.running_for = 0;
                    return Exec::Finished;
                }
                let Some(target) = ep.places.get(i).map(|p| p.pos) else { return Exec::Finished };
                let step = ep.nav.toward(s, &[Goal { target, bias: 0 }]);
                if step.free_cost.is_none() {
                    ep.running_for = 0;
                    return Exec::Finished;
                }
                if step.action == Action::Interact {
                    ep.running_for = 0;
                    // Loading waits at the cooker until the soup is cooked, deciding again each step.
                    if task == Task::Load && k_ready(ep, s, target).is_none() {
                        return Exec::ActAndFinish(Action::Stay);
                    }
                    return Exec::ActAndFinish(Action::Interact);
                }
                ep.running_for += 1;
                Exec::Act(step.action)
            }
        }
    }

    fn idle(&self, _obs: &Observation<'_, Overcooked>) -> Option<Action> {
        Some(Action::Stay)
    }

    fn scripted_model(&self) -> Arc<dyn LanguageModel> {
        Arc::new(OvercookedStandIn::model())
    }
}

/// `Some(())` when the cooker at `pot` holds a cooked soup.
fn k_ready(ep: &OcEpisode, s: &State, pot: Pos) -> Option<()> {
    (ep.kitchen.pot_phase(s, pot) == PotPhase::Ready).then_some(())
}

/// An object of a kind (for its words).
fn kind_object(kind: ObjKind) -> Object {
    match kind {
        ObjKind::Onion => Object::ONION,
        ObjKind::Tomato => Object::Ingredient(proagent_overcooked::env::Ingredient::Tomato),
        ObjKind::Dish => Object::Dish,
        ObjKind::Soup => Object::Soup(proagent_overcooked::env::Soup::empty(DEFAULT_COOK_TIME)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::env::layout::Layout;

    fn episode(layout: &str) -> (Overcooked, OcEpisode) {
        let l = Layout::builtin(layout).unwrap_or_else(|| panic!("{layout}"));
        let game = Overcooked::new(Arc::new(l), 400);
        let ep = OvercookedLlmco.begin(&game, 0, 0);
        (game, ep)
    }

    #[test]
    fn counter_circuit_names_its_island_counters_shared_and_offers_them() {
        let (game, ep) = episode("counter_circuit");
        let shared: Vec<(&str, Pos)> =
            ep.places.iter().filter(|p| p.place == Place::Shared).map(|p| (p.name.as_str(), p.pos)).collect();
        let island = [(2, 2), (3, 2), (4, 2), (5, 2)].map(|(x, y)| Pos { x, y });
        assert_eq!(shared.iter().map(|s| s.1).collect::<Vec<_>>(), island);
        assert_eq!(shared.iter().map(|s| s.0).collect::<Vec<_>>(), ["s0", "s1", "s2", "s3"]);
        let env = ep.vars["environment"].as_str().unwrap_or("");
        assert!(env.contains("shared counters (s0, s1, s2, s3) on the island"), "{env}");
        assert!(!env.contains("split in two"), "{env}");
        // Holding an onion: the cookers, the four island counters, the closest kitchen counter.
        let mut s = game.kitchen().layout.start_state();
        s.players[0].held = Some(Object::ONION);
        let offered: Vec<String> = feasible(&ep, &s).into_iter().map(|(_, t)| t).collect();
        for want in ["place onion in c0", "place onion in c1", "place onion in s0", "place onion in s3"] {
            assert!(offered.iter().any(|o| o == want), "{want}: {offered:?}");
        }
    }

    #[test]
    fn split_kitchens_say_who_reaches_what() {
        let (_, ep) = episode("asymmetric_advantages");
        let env = ep.vars["environment"].as_str().unwrap_or("");
        assert!(env.contains("The kitchen is split in two parts: Alice can reach"), "{env}");
        assert!(env.contains("c0, c1 on the line between the parts can be reached from both sides"), "{env}");
        let (_, ep) = episode("forced_coordination");
        let env = ep.vars["environment"].as_str().unwrap_or("");
        assert!(env.contains("Items are passed on the shared counters (s0, s1, s2)"), "{env}");
        let (_, ep) = episode("cramped_room");
        assert!(!ep.places.iter().any(|p| p.place == Place::Shared));
    }
}
