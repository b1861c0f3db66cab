//! From states to a symbolic trace: objects with identities, and every object-handling
//! step of a player as a STRIPS action with preconditions, add and delete effects.
//!
//! Identities: an onion or a dish gets an id when it is dispensed (or when it is first
//! seen, for objects present at the start or appearing without an explaining action).
//! The first onion put into an empty pot creates a soup object in that pot; every onion
//! potted afterwards becomes one of its ingredients. A dish that picks up the soup joins
//! it: from then on the plated soup carries the soup's id. An object's story ends when it
//! is delivered (soups), merged into a soup (onions, dishes), or vanishes from the
//! recorded states without an action that explains it.
//!
//! Where the actions come from: each transition is re-stepped with [`Layout::step`]; if
//! that reproduces the recorded next state, the simulator's interact events are used.
//! Otherwise (the 2019 human games, whose clocks and timers differ a little) the recorded
//! states are authoritative and the interacts are read off the difference between them.
//! After every transition the tracked objects are reconciled with the recorded state, so
//! the trace can never drift away from the data; every repair is counted.

use proagent_overcooked::env::{Action, Event, Ingredient, Layout, ObjKind, Object, Pos, State, Tile};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// The identity of a tracked object (index into [`SymbolicTrace::objects`]).
pub type ObjId = u32;

/// A ground predicate of the Overcooked STRIPS model.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize)]
#[serde(tag = "pred", rename_all = "snake_case")]
pub enum Pred {
    /// `hand-empty(p)`: the player holds nothing.
    HandEmpty {
        /// The player, 0 or 1.
        player: u8,
    },
    /// `holding(p, o)`: the player holds the object.
    Holding {
        /// The player, 0 or 1.
        player: u8,
        /// The object held.
        obj: ObjId,
    },
    /// `onion-on-counter(c)`, `dish-on-counter(c)`, `soup-on-counter(c)`, with the object's id.
    OnCounter {
        /// The object on the counter.
        obj: ObjId,
        /// What the object is (onion, tomato, dish or plated soup).
        kind: ObjKind,
        /// The counter cell.
        at: Pos,
    },
    /// `counter-empty(c)`: nothing lies on the counter.
    CounterEmpty {
        /// The counter cell.
        at: Pos,
    },
    /// The onion `obj` is an ingredient of the soup in `pot`. Cooking (the environment,
    /// not a player) turns a full pot's in-pot facts into soup-ready.
    InPot {
        /// The ingredient's object id.
        obj: ObjId,
        /// The pot cell.
        pot: Pos,
    },
    /// The pot accepts another ingredient (not full, not cooking).
    PotOpen {
        /// The pot cell.
        pot: Pos,
    },
    /// Made true by the cooking clock, never by a player.
    SoupReady {
        /// The pot cell.
        pot: Pos,
    },
    /// `delivered(o)`: the soup was served.
    Delivered {
        /// The soup's object id.
        obj: ObjId,
    },
}

impl Pred {
    /// The object the predicate is about, if any: only those predicates can tie one
    /// player's action to the other's (a freed counter or an open pot is no hand-over).
    pub fn object(&self) -> Option<ObjId> {
        match *self {
            Pred::Holding { obj, .. } | Pred::OnCounter { obj, .. } | Pred::InPot { obj, .. } => Some(obj),
            Pred::Delivered { obj } => Some(obj),
            _ => None,
        }
    }
}

impl fmt::Display for Pred {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Pred::HandEmpty { player } => write!(f, "hand-empty(p{player})"),
            Pred::Holding { player, obj } => write!(f, "holding(p{player}, #{obj})"),
            Pred::OnCounter { obj, kind, at } => write!(f, "{}-on-counter({}, {}, #{obj})", kind.name(), at.x, at.y),
            Pred::CounterEmpty { at } => write!(f, "counter-empty({}, {})", at.x, at.y),
            Pred::InPot { obj, pot } => write!(f, "in-pot(#{obj}, pot({}, {}))", pot.x, pot.y),
            Pred::PotOpen { pot } => write!(f, "pot-open({}, {})", pot.x, pot.y),
            Pred::SoupReady { pot } => write!(f, "soup-ready({}, {})", pot.x, pot.y),
            Pred::Delivered { obj } => write!(f, "delivered(#{obj})"),
        }
    }
}

/// The object-handling actions of the model (moves and no-op interacts carry no object
/// and are left out of the trace).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionKind {
    /// Take a fresh onion, tomato or dish from a dispenser.
    PickFromDispenser,
    /// Take an object lying on a counter.
    PickFromCounter,
    /// Put the held object on an empty counter.
    PlaceOnCounter,
    /// Put the held ingredient into a pot.
    PutInPot,
    /// Plate a ready soup out of a pot with the held dish.
    PickUpSoup,
    /// Serve the held soup at a window.
    Deliver,
}

impl ActionKind {
    /// Hyphenated STRIPS name used in reports, e.g. `pick-from-counter`.
    pub const fn name(self) -> &'static str {
        match self {
            ActionKind::PickFromDispenser => "pick-from-dispenser",
            ActionKind::PickFromCounter => "pick-from-counter",
            ActionKind::PlaceOnCounter => "place-on-counter",
            ActionKind::PutInPot => "put-in-pot",
            ActionKind::PickUpSoup => "pick-up-soup",
            ActionKind::Deliver => "deliver",
        }
    }

    /// Actions after which the player holds `obj` (its "acquisitions").
    pub const fn acquires(self) -> bool {
        matches!(self, ActionKind::PickFromDispenser | ActionKind::PickFromCounter | ActionKind::PickUpSoup)
    }
}

/// One player's object-handling step as a ground STRIPS action.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct SymAction {
    /// Index of the transition (state `t` to state `t + 1`).
    pub t: u32,
    /// The acting player, 0 or 1.
    pub player: usize,
    /// Which of the six object-handling actions it is.
    pub kind: ActionKind,
    /// The object acted on: the one picked, placed, potted, or the soup plated or served.
    pub obj: ObjId,
    /// What the acted-on object is, at the time of the action.
    pub obj_kind: ObjKind,
    /// The cell interacted with.
    pub at: Pos,
    /// Preconditions: the predicates that had to hold.
    pub pre: Vec<Pred>,
    /// Add effects: the predicates the action made true.
    pub add: Vec<Pred>,
    /// Delete effects: the predicates the action made false.
    pub del: Vec<Pred>,
}

/// Where a tracked object came from.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize)]
#[serde(tag = "origin", rename_all = "snake_case")]
pub enum Origin {
    /// Taken from a dispenser by `player`.
    Dispenser {
        /// The player who took it, 0 or 1.
        player: usize,
    },
    /// A soup started by the first onion put into an empty pot.
    Pot,
    /// Present in the first state.
    Initial,
    /// Seen in a recorded state without an action explaining it.
    Appeared,
}

/// How a tracked object's story ended.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Serialize)]
#[serde(tag = "fate", rename_all = "snake_case")]
pub enum Fate {
    /// Still somewhere at the end of the trajectory.
    InPlay,
    /// Served at a window.
    Delivered {
        /// The transition in which it was served.
        t: u32,
        /// The player who served it.
        player: usize,
    },
    /// Became part of a soup (an onion potted, a dish that plated a soup).
    Merged {
        /// The transition in which it was merged.
        t: u32,
        /// The soup it became part of.
        into: ObjId,
    },
    /// Gone from the recorded states without an action explaining it.
    Vanished {
        /// The transition after which it was gone.
        t: u32,
    },
}

/// One tracked object: what it is, where it came from and how its story ended.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct ObjectInfo {
    /// Its identity, equal to its index in [`SymbolicTrace::objects`].
    pub id: ObjId,
    /// What it is; never changes (a soup stays `soup` from pot to plate).
    pub kind: ObjKind,
    /// The transition in which it appeared (0 for the first state).
    pub born: u32,
    /// Where it came from.
    pub origin: Origin,
    /// How its story ended.
    pub fate: Fate,
    /// For soups: the ids of the onions (and tomatoes) that went into it, in order.
    pub ingredients: Vec<ObjId>,
    /// For soups: the dish that plated it.
    pub dish: Option<ObjId>,
}

/// A trajectory turned into objects and STRIPS actions.
#[derive(Clone, Debug, Serialize)]
pub struct SymbolicTrace {
    /// Every object-handling action of both players, in transition order (player 0 first within a step).
    pub actions: Vec<SymAction>,
    /// Every tracked object, indexed by [`ObjId`].
    pub objects: Vec<ObjectInfo>,
    /// Transitions whose events came from re-stepping the simulator.
    pub simulated_steps: usize,
    /// Transitions where re-stepping did not reproduce the recorded next state, so the
    /// interacts were read off the state difference.
    pub diffed_steps: usize,
    /// Objects that appeared or vanished in the recorded states without an action that
    /// explains them (0 on any trajectory our simulator produced).
    pub repairs: usize,
}

impl SymbolicTrace {
    /// The object an id ends up in: itself, or the soup it was merged into.
    pub fn root(&self, mut id: ObjId) -> ObjId {
        // Merges only go from onions/dishes into soups, so this ends after one hop;
        // the bound guards against a malformed chain anyway.
        for _ in 0..self.objects.len() {
            match self.objects.get(id as usize).map(|o| o.fate) {
                Some(Fate::Merged { into, .. }) => id = into,
                _ => break,
            }
        }
        id
    }

    /// Whether the object ends in a delivered soup.
    pub fn ends_delivered(&self, id: ObjId) -> bool {
        let r = self.root(id);
        matches!(self.objects.get(r as usize).map(|o| o.fate), Some(Fate::Delivered { .. }))
    }

    /// Number of soups served (`deliver` actions).
    pub fn deliveries(&self) -> usize {
        self.actions.iter().filter(|a| a.kind == ActionKind::Deliver).count()
    }

    /// Who does what: each player's object-handling actions counted by action and object,
    /// keyed like `"put-in-pot onion"` or `"pick-from-counter dish"` (players 0 and 1).
    pub fn action_counts(&self) -> [BTreeMap<String, u32>; 2] {
        let mut counts: [BTreeMap<String, u32>; 2] = Default::default();
        for a in &self.actions {
            if let Some(c) = counts.get_mut(a.player) {
                *c.entry(format!("{} {}", a.kind.name(), a.obj_kind.name())).or_default() += 1;
            }
        }
        counts
    }
}

/// The interact events of one transition, by re-stepping when that reproduces the
/// recorded next state, else by diffing the two states. The flag tells which.
pub fn transition_events(
    layout: &Layout,
    before: &State,
    joint: [Action; 2],
    after: &State,
) -> ([Option<Event>; 2], bool) {
    let mut s = before.clone();
    let out = layout.step(&mut s, joint);
    // The recorded clock is not part of what the players did.
    s.timestep = after.timestep;
    if s == *after { (out.events, true) } else { (diff_events(layout, before, after), false) }
}

/// The interact events that explain the change from `before` to `after`, worked out
/// from held objects and the objects on the cells the players faced before the step.
/// Players are taken in the simulator's order (0 then 1) on a working copy, so a
/// counter used by both in the same step (one drops, the other takes) is explained.
pub fn diff_events(layout: &Layout, before: &State, after: &State) -> [Option<Event>; 2] {
    let mut cells: Vec<Option<ObjKind>> = before.objects.iter().map(|o| o.as_ref().map(Object::kind)).collect();
    let mut pot_count: Vec<u8> =
        before.objects.iter().map(|o| o.as_ref().and_then(Object::soup).map_or(0, |s| s.len() as u8)).collect();
    let mut events = [None; 2];
    for i in 0..2 {
        let p = &before.players[i];
        let held0 = p.held.as_ref().map(Object::kind);
        let held1 = after.players[i].held.as_ref().map(Object::kind);
        if held0 == held1 {
            continue;
        }
        let Some(target) = p.pos.step(p.dir) else { continue };
        let Some(idx) = layout.index(target) else { continue };
        let tile = layout.tiles[idx];
        let ev = match (tile, held0, held1) {
            (Tile::OnionSource, None, Some(ObjKind::Onion)) => {
                Some(Event::Dispense { kind: ObjKind::Onion, at: target })
            }
            (Tile::TomatoSource, None, Some(ObjKind::Tomato)) => {
                Some(Event::Dispense { kind: ObjKind::Tomato, at: target })
            }
            (Tile::DishSource, None, Some(ObjKind::Dish)) => Some(Event::Dispense { kind: ObjKind::Dish, at: target }),
            (Tile::Counter, None, Some(k)) if cells[idx] == Some(k) => {
                cells[idx] = None;
                Some(Event::PickupCounter { kind: k, at: target })
            }
            (Tile::Counter, Some(k), None) if cells[idx].is_none() => {
                cells[idx] = Some(k);
                Some(Event::PlaceCounter { kind: k, at: target })
            }
            (Tile::Pot, Some(k @ (ObjKind::Onion | ObjKind::Tomato)), None) => {
                cells[idx] = Some(ObjKind::Soup);
                pot_count[idx] = pot_count[idx].saturating_add(1);
                Some(Event::Potting { kind: k, at: target, count: pot_count[idx] })
            }
            (Tile::Pot, Some(ObjKind::Dish), Some(ObjKind::Soup)) if cells[idx] == Some(ObjKind::Soup) => {
                cells[idx] = None;
                pot_count[idx] = 0;
                Some(Event::PickupSoup { at: target })
            }
            (Tile::Serve, Some(ObjKind::Soup), None) => Some(Event::Deliver { at: target, reward: 0 }),
            // Anything else is not a legal interact; reconciliation repairs the objects.
            _ => None,
        };
        events[i] = ev;
    }
    events
}

/// Builds the symbolic trace of a trajectory given by its states and joint actions
/// (`states.len() == joint_actions.len() + 1`; the caller checks this).
pub fn build(layout: &Layout, states: &[State], joint_actions: &[[Action; 2]]) -> SymbolicTrace {
    let mut tr = Tracker::new(layout);
    if let Some(s0) = states.first() {
        tr.seed(s0);
    }
    let mut simulated_steps = 0;
    let mut diffed_steps = 0;
    for (t, (w, joint)) in states.windows(2).zip(joint_actions).enumerate() {
        let (events, simulated) = transition_events(layout, &w[0], *joint, &w[1]);
        if simulated {
            simulated_steps += 1;
        } else {
            diffed_steps += 1;
        }
        for (i, ev) in events.iter().enumerate() {
            if let Some(ev) = ev {
                tr.apply(t as u32, i, ev);
            }
        }
        tr.reconcile(t as u32, &w[1]);
    }
    SymbolicTrace { actions: tr.actions, objects: tr.objects, simulated_steps, diffed_steps, repairs: tr.repairs }
}

/// Where every tracked object is while the trace is built.
struct Tracker<'a> {
    layout: &'a Layout,
    held: [Option<ObjId>; 2],
    cells: Vec<Option<ObjId>>,
    objects: Vec<ObjectInfo>,
    actions: Vec<SymAction>,
    repairs: usize,
}

fn kind_of(o: &Object) -> ObjKind {
    o.kind()
}

impl<'a> Tracker<'a> {
    fn new(layout: &'a Layout) -> Self {
        Tracker {
            layout,
            held: [None; 2],
            cells: vec![None; layout.width * layout.height],
            objects: Vec::new(),
            actions: Vec::new(),
            repairs: 0,
        }
    }

    fn new_object(&mut self, kind: ObjKind, born: u32, origin: Origin) -> ObjId {
        let id = self.objects.len() as ObjId;
        self.objects.push(ObjectInfo {
            id,
            kind,
            born,
            origin,
            fate: Fate::InPlay,
            ingredients: Vec::new(),
            dish: None,
        });
        id
    }

    /// A tracked object for something seen in a state, with ingredient ids for soups.
    fn object_for(&mut self, o: &Object, born: u32, origin: Origin) -> ObjId {
        let id = self.new_object(kind_of(o), born, origin);
        if let Object::Soup(s) = o {
            for ing in s.ingredients() {
                let k = match ing {
                    Ingredient::Onion => ObjKind::Onion,
                    Ingredient::Tomato => ObjKind::Tomato,
                };
                let i = self.new_object(k, born, origin);
                self.objects[i as usize].fate = Fate::Merged { t: born, into: id };
                self.objects[id as usize].ingredients.push(i);
            }
        }
        id
    }

    fn seed(&mut self, s: &State) {
        for i in 0..2 {
            if let Some(o) = &s.players[i].held {
                self.held[i] = Some(self.object_for(o, 0, Origin::Initial));
            }
        }
        for (idx, o) in s.objects.iter().enumerate() {
            if let Some(o) = o {
                self.cells[idx] = Some(self.object_for(o, 0, Origin::Initial));
            }
        }
    }

    fn kind(&self, id: ObjId) -> ObjKind {
        self.objects[id as usize].kind
    }

    fn vanish(&mut self, id: ObjId, t: u32) {
        self.objects[id as usize].fate = Fate::Vanished { t };
        self.repairs += 1;
    }

    /// The object in player `i`'s hand, creating one if the tracker lost it.
    fn take_held(&mut self, t: u32, i: usize, kind: ObjKind) -> ObjId {
        match self.held[i].take() {
            Some(id) if self.kind(id) == kind => id,
            other => {
                if let Some(id) = other {
                    self.vanish(id, t);
                }
                self.repairs += 1;
                self.new_object(kind, t, Origin::Appeared)
            }
        }
    }

    fn give(&mut self, t: u32, i: usize, id: ObjId) {
        if let Some(old) = self.held[i].replace(id) {
            self.vanish(old, t);
        }
    }

    fn push(&mut self, t: u32, player: usize, kind: ActionKind, obj: ObjId, at: Pos, effects: [Vec<Pred>; 3]) {
        let obj_kind = self.kind(obj);
        let [pre, add, del] = effects;
        self.actions.push(SymAction { t, player, kind, obj, obj_kind, at, pre, add, del });
    }

    fn apply(&mut self, t: u32, i: usize, ev: &Event) {
        let p = i as u8;
        let Some(idx) = self.layout.index(ev.at()) else { return };
        match *ev {
            Event::Dispense { kind, at } => {
                let x = self.new_object(kind, t, Origin::Dispenser { player: i });
                self.give(t, i, x);
                self.push(
                    t,
                    i,
                    ActionKind::PickFromDispenser,
                    x,
                    at,
                    [
                        vec![Pred::HandEmpty { player: p }],
                        vec![Pred::Holding { player: p, obj: x }],
                        vec![Pred::HandEmpty { player: p }],
                    ],
                );
            }
            Event::PickupCounter { kind, at } => {
                let x = match self.cells[idx].take() {
                    Some(id) if self.kind(id) == kind => id,
                    other => {
                        if let Some(id) = other {
                            self.vanish(id, t);
                        }
                        self.repairs += 1;
                        self.new_object(kind, t, Origin::Appeared)
                    }
                };
                self.give(t, i, x);
                let on = Pred::OnCounter { obj: x, kind, at };
                self.push(
                    t,
                    i,
                    ActionKind::PickFromCounter,
                    x,
                    at,
                    [
                        vec![Pred::HandEmpty { player: p }, on],
                        vec![Pred::Holding { player: p, obj: x }, Pred::CounterEmpty { at }],
                        vec![on, Pred::HandEmpty { player: p }],
                    ],
                );
            }
            Event::PlaceCounter { kind, at } => {
                let x = self.take_held(t, i, kind);
                if let Some(old) = self.cells[idx].replace(x) {
                    self.vanish(old, t);
                }
                let holding = Pred::Holding { player: p, obj: x };
                self.push(
                    t,
                    i,
                    ActionKind::PlaceOnCounter,
                    x,
                    at,
                    [
                        vec![holding, Pred::CounterEmpty { at }],
                        vec![Pred::OnCounter { obj: x, kind, at }, Pred::HandEmpty { player: p }],
                        vec![holding, Pred::CounterEmpty { at }],
                    ],
                );
            }
            Event::Potting { kind, at, count } => {
                let o = self.take_held(t, i, kind);
                let soup = match self.cells[idx] {
                    Some(s) if self.kind(s) == ObjKind::Soup => s,
                    other => {
                        if let Some(id) = other {
                            self.vanish(id, t);
                        }
                        let s = self.new_object(ObjKind::Soup, t, Origin::Pot);
                        self.cells[idx] = Some(s);
                        s
                    }
                };
                self.objects[soup as usize].ingredients.push(o);
                self.objects[o as usize].fate = Fate::Merged { t, into: soup };
                let holding = Pred::Holding { player: p, obj: o };
                let mut del = vec![holding];
                if count as usize >= self.layout.rules.num_items {
                    del.push(Pred::PotOpen { pot: at });
                }
                self.push(
                    t,
                    i,
                    ActionKind::PutInPot,
                    o,
                    at,
                    [
                        vec![holding, Pred::PotOpen { pot: at }],
                        vec![Pred::InPot { obj: o, pot: at }, Pred::HandEmpty { player: p }],
                        del,
                    ],
                );
            }
            Event::PickupSoup { at } => {
                let d = self.take_held(t, i, ObjKind::Dish);
                let soup = match self.cells[idx].take() {
                    Some(s) if self.kind(s) == ObjKind::Soup => s,
                    other => {
                        if let Some(id) = other {
                            self.vanish(id, t);
                        }
                        self.repairs += 1;
                        self.new_object(ObjKind::Soup, t, Origin::Appeared)
                    }
                };
                self.objects[d as usize].fate = Fate::Merged { t, into: soup };
                self.objects[soup as usize].dish = Some(d);
                self.held[i] = Some(soup);
                let holding_dish = Pred::Holding { player: p, obj: d };
                let pre = vec![holding_dish, Pred::SoupReady { pot: at }];
                // The onions' in-pot facts were consumed by the cooking (an environment
                // step that made soup-ready); they end here, with the soup leaving the pot.
                let mut del = vec![holding_dish, Pred::SoupReady { pot: at }];
                for &o in &self.objects[soup as usize].ingredients {
                    del.push(Pred::InPot { obj: o, pot: at });
                }
                self.push(
                    t,
                    i,
                    ActionKind::PickUpSoup,
                    soup,
                    at,
                    [pre, vec![Pred::Holding { player: p, obj: soup }, Pred::PotOpen { pot: at }], del],
                );
            }
            Event::Deliver { at, .. } => {
                let s = self.take_held(t, i, ObjKind::Soup);
                self.objects[s as usize].fate = Fate::Delivered { t, player: i };
                let holding = Pred::Holding { player: p, obj: s };
                self.push(
                    t,
                    i,
                    ActionKind::Deliver,
                    s,
                    at,
                    [vec![holding], vec![Pred::Delivered { obj: s }, Pred::HandEmpty { player: p }], vec![holding]],
                );
            }
        }
    }

    /// Makes the tracked objects agree with the recorded state after transition `t`.
    fn reconcile(&mut self, t: u32, s: &State) {
        for i in 0..2 {
            let want = s.players[i].held.as_ref();
            let have = self.held[i].map(|id| self.kind(id));
            if have != want.map(kind_of) {
                if let Some(id) = self.held[i].take() {
                    self.vanish(id, t);
                }
                if let Some(o) = want {
                    self.repairs += 1;
                    self.held[i] = Some(self.object_for(o, t, Origin::Appeared));
                }
            }
        }
        for idx in 0..self.cells.len().min(s.objects.len()) {
            let want = s.objects[idx].as_ref();
            let have = self.cells[idx].map(|id| self.kind(id));
            if have != want.map(kind_of) {
                if let Some(id) = self.cells[idx].take() {
                    self.vanish(id, t);
                }
                if let Some(o) = want {
                    self.repairs += 1;
                    self.cells[idx] = Some(self.object_for(o, t, Origin::Appeared));
                }
            }
        }
    }
}
