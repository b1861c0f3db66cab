//! Interdependencies between the two players' STRIPS actions, after Biswas et al.,
//! "Who is Helping Whom? Analyzing Inter-dependencies to Evaluate Cooperation in
//! Human-AI Teaming".
//!
//! An interdependence is a causal link between players: the giver's action adds a
//! predicate about an object, the predicate still holds when the receiver (the other
//! player) acts at the same step or later, and it is one of the receiver's preconditions.
//! Only predicates that name an object count, so freeing a counter or walking out of the
//! way is not a hand-over. Each precondition has one supporter: the action that last made
//! it true. In Overcooked this leaves the hand-overs through a counter: an onion, a dish
//! or a plated soup put down by one player and picked up by the other.
//!
//! - goal-reaching: the linked object ends in a delivered soup;
//! - non-looping: the giver never holds the object again after the receiver took it, and
//!   the receiver did not hold it before the giver gave it (an object held by a player
//!   is always in one state: raw onion, empty dish, plated soup);
//! - constructive: both.
//!
//! Triggers: a player's actions whose object-bearing add effects the partner could use,
//! i.e. putting something on a counter the partner can reach. A trigger is accepted when
//! the partner acted on it (it is the giver side of an interdependence).
//!
//! Sharing a pot is reported apart, as indirect links: the soup-ready precondition of
//! plating is made true by the cooking clock, not by the player who potted the onions,
//! so "one player's onions in the soup the other plated" is a two-step dependence through
//! the environment and is not counted in the constructive totals (it would swamp them on
//! every layout with a shared pot, whatever the players do).

use super::symbolic::{ActionKind, ObjId, Pred, SymbolicTrace};
use proagent_overcooked::env::{Layout, ObjKind, Pos, State};
use serde::Serialize;
use std::collections::{HashMap, VecDeque};

/// What an interdependence passed from the giver to the receiver.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkKind {
    /// An onion left on a counter and picked up by the partner.
    OnionCounter,
    /// A dish left on a counter and picked up by the partner.
    DishCounter,
    /// A plated soup left on a counter and picked up by the partner.
    SoupCounter,
    /// An onion put into a pot whose soup the partner plated (indirect, see the module docs).
    Pot,
}

impl LinkKind {
    /// The direct links, which make up the constructive totals.
    pub const DIRECT: [LinkKind; 3] = [LinkKind::OnionCounter, LinkKind::DishCounter, LinkKind::SoupCounter];

    /// snake_case name used as the key in reports (`onion_counter`, …, `pot`).
    pub const fn name(self) -> &'static str {
        match self {
            LinkKind::OnionCounter => "onion_counter",
            LinkKind::DishCounter => "dish_counter",
            LinkKind::SoupCounter => "soup_counter",
            LinkKind::Pot => "pot",
        }
    }

    fn of(p: &Pred) -> Option<LinkKind> {
        match *p {
            Pred::OnCounter { kind: ObjKind::Onion | ObjKind::Tomato, .. } => Some(LinkKind::OnionCounter),
            Pred::OnCounter { kind: ObjKind::Dish, .. } => Some(LinkKind::DishCounter),
            Pred::OnCounter { kind: ObjKind::Soup, .. } => Some(LinkKind::SoupCounter),
            _ => None,
        }
    }
}

/// One interdependence: the giver's action enabled the receiver's.
#[derive(Clone, PartialEq, Eq, Debug, Serialize)]
pub struct Interdependence {
    /// The player whose action made the predicate true, 0 or 1.
    pub giver: usize,
    /// The other player, whose action needed it.
    pub receiver: usize,
    /// Indices into [`SymbolicTrace::actions`].
    pub give: usize,
    /// Index of the receiver's action in [`SymbolicTrace::actions`].
    pub receive: usize,
    /// Transition index of the giver's action.
    pub t_give: u32,
    /// Transition index of the receiver's action (same or later).
    pub t_receive: u32,
    /// The object handed over.
    pub obj: ObjId,
    /// What the object is.
    pub obj_kind: ObjKind,
    /// Which kind of hand-over it was.
    pub link: LinkKind,
    /// The object ends in a delivered soup.
    pub goal_reaching: bool,
    /// The giver never held the object again and the receiver did not hold it before.
    pub non_looping: bool,
}

impl Interdependence {
    /// True when the link is both goal-reaching and non-looping (it counts in the constructive totals).
    pub fn constructive(&self) -> bool {
        self.goal_reaching && self.non_looping
    }
}

/// Per-player counts.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize)]
pub struct PlayerStats {
    /// Actions whose effects the partner could use.
    pub triggered: u32,
    /// Triggers the partner acted on.
    pub accepted: u32,
    /// Accepted triggers whose interdependence is constructive.
    pub accepted_constructive: u32,
    /// Constructive interdependencies where this player is the giver.
    pub given_constructive: u32,
    /// Non-constructive interdependencies where this player is the giver.
    pub given_non_constructive: u32,
    /// Constructive interdependencies where this player is the receiver.
    pub received_constructive: u32,
    /// Non-constructive interdependencies where this player is the receiver.
    pub received_non_constructive: u32,
}

impl PlayerStats {
    /// Accepted triggers as a share of all triggers (`None` without triggers).
    pub fn accepted_share(&self) -> Option<f64> {
        (self.triggered > 0).then(|| self.accepted as f64 / self.triggered as f64)
    }
}

/// The floor cells each player can reach from where it stands (players do not block).
fn reachable(layout: &Layout, from: Pos) -> Vec<bool> {
    let mut seen = vec![false; layout.width * layout.height];
    let mut queue = VecDeque::new();
    if let Some(i) = layout.index(from) {
        seen[i] = true;
        queue.push_back(from);
    }
    while let Some(p) = queue.pop_front() {
        for d in proagent_overcooked::env::Dir::ALL {
            if let Some(q) = p.step(d)
                && layout.is_walkable(q)
                && let Some(i) = layout.index(q)
                && !seen[i]
            {
                seen[i] = true;
                queue.push_back(q);
            }
        }
    }
    seen
}

/// Which non-floor cells each player can interact with (stand next to).
pub fn accessible_cells(layout: &Layout, start: &State) -> [Vec<bool>; 2] {
    let acc = |from: Pos| {
        let floor = reachable(layout, from);
        let mut out = vec![false; floor.len()];
        for (i, o) in out.iter_mut().enumerate() {
            let p = layout.pos_of(i);
            *o = proagent_overcooked::env::Dir::ALL
                .iter()
                .any(|&d| p.step(d).and_then(|q| layout.index(q)).is_some_and(|j| floor[j]));
        }
        out
    };
    [acc(start.players[0].pos), acc(start.players[1].pos)]
}

/// The interdependencies and per-player trigger counts of a symbolic trace.
pub fn interdependencies(
    layout: &Layout,
    start: &State,
    trace: &SymbolicTrace,
) -> (Vec<Interdependence>, [PlayerStats; 2]) {
    let access = accessible_cells(layout, start);
    let can_use = |player: usize, at: Pos| layout.index(at).is_some_and(|i| access[player][i]);

    // When each player came to hold each object, in action order.
    let mut acquired: HashMap<ObjId, Vec<(usize, usize)>> = HashMap::new();
    for (k, a) in trace.actions.iter().enumerate() {
        if a.kind.acquires() {
            acquired.entry(a.obj).or_default().push((k, a.player));
        }
    }

    let mut links = Vec::new();
    let mut supporter: HashMap<Pred, usize> = HashMap::new();
    for (k, b) in trace.actions.iter().enumerate() {
        for pre in &b.pre {
            let (Some(obj), Some(link)) = (pre.object(), LinkKind::of(pre)) else { continue };
            let Some(&g) = supporter.get(pre) else { continue };
            let a = &trace.actions[g];
            if a.player == b.player {
                continue;
            }
            let looping = acquired
                .get(&obj)
                .is_some_and(|v| v.iter().any(|&(j, p)| (p == a.player && j > k) || (p == b.player && j < g)));
            links.push(Interdependence {
                giver: a.player,
                receiver: b.player,
                give: g,
                receive: k,
                t_give: a.t,
                t_receive: b.t,
                obj,
                obj_kind: trace.objects.get(obj as usize).map_or(a.obj_kind, |o| o.kind),
                link,
                goal_reaching: trace.ends_delivered(obj),
                non_looping: !looping,
            });
        }
        for d in &b.del {
            supporter.remove(d);
        }
        for ad in &b.add {
            supporter.insert(*ad, k);
        }
    }

    let mut stats = [PlayerStats::default(); 2];
    let mut accepted: HashMap<usize, bool> = HashMap::new();
    for l in &links {
        let c = accepted.entry(l.give).or_insert(false);
        *c |= l.constructive();
        let constructive = l.constructive();
        let g = &mut stats[l.giver];
        if constructive {
            g.given_constructive += 1;
        } else {
            g.given_non_constructive += 1;
        }
        let rc = &mut stats[l.receiver];
        if constructive {
            rc.received_constructive += 1;
        } else {
            rc.received_non_constructive += 1;
        }
    }
    for (k, a) in trace.actions.iter().enumerate() {
        let partner = 1 - a.player;
        let is_trigger = a.add.iter().any(|p| match *p {
            Pred::OnCounter { at, .. } => can_use(partner, at),
            _ => false,
        });
        if !is_trigger {
            continue;
        }
        let s = &mut stats[a.player];
        s.triggered += 1;
        if let Some(&c) = accepted.get(&k) {
            s.accepted += 1;
            if c {
                s.accepted_constructive += 1;
            }
        }
    }
    (links, stats)
}

/// Indirect links through a shared pot: an onion potted by one player in a soup that the
/// other player plated. Goal-reaching when the soup is delivered; never looping (a potted
/// onion is never held again).
pub fn pot_links(trace: &SymbolicTrace) -> Vec<Interdependence> {
    let potted: HashMap<ObjId, usize> = trace
        .actions
        .iter()
        .enumerate()
        .filter(|(_, a)| a.kind == ActionKind::PutInPot)
        .map(|(k, a)| (a.obj, k))
        .collect();
    let mut out = Vec::new();
    for (k, b) in trace.actions.iter().enumerate() {
        if b.kind != ActionKind::PickUpSoup {
            continue;
        }
        let Some(soup) = trace.objects.get(b.obj as usize) else { continue };
        for o in &soup.ingredients {
            let Some(&g) = potted.get(o) else { continue };
            let a = &trace.actions[g];
            if a.player == b.player {
                continue;
            }
            out.push(Interdependence {
                giver: a.player,
                receiver: b.player,
                give: g,
                receive: k,
                t_give: a.t,
                t_receive: b.t,
                obj: *o,
                obj_kind: a.obj_kind,
                link: LinkKind::Pot,
                goal_reaching: trace.ends_delivered(*o),
                non_looping: true,
            });
        }
    }
    out
}
