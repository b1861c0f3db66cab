//! The facts the scripted planner's skill choice looks at.
//!
//! They are deliberately few and textual in nature, so that the same rules can
//! run on a simulator state (the `scripted` partner) and on the facts a model
//! can read off the scene text of a prompt (the built-in `scripted` LLM).

use super::vocabulary::Skill;
use crate::env::ObjKind;
use serde::{Deserialize, Serialize};

/// One pot as the planner sees it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PotStatus {
    /// Holds `n` onions (0 = empty) and is not cooking.
    Filling(u8),
    /// Cooking; ready after this many more steps.
    Cooking(u16),
    /// Holds a soup that has finished cooking and waits for a dish.
    Ready,
}

/// One pot's state and who can reach it, for one decision.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PotFact {
    /// Filling, cooking (with steps left) or ready.
    pub status: PotStatus,
    /// Whether this player / the teammate can stand at the pot (ignoring bodies).
    pub reachable_by_me: bool,
    /// Whether the teammate can stand at the pot facing it (ignoring bodies).
    pub reachable_by_partner: bool,
}

/// What each side of the kitchen can reach. On most layouts everything is true;
/// on forced_coordination each side reaches only part of the kitchen.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    /// Can reach some onion dispenser.
    pub onion_source: bool,
    /// Can reach some dish dispenser.
    pub dish_source: bool,
    /// Can reach some serving window.
    pub serving: bool,
    /// A counter both players can reach (for hand-overs).
    pub shared_counter: bool,
}

/// Moves plus the interact from a player to the nearest place of each kind
/// (ignoring the teammate's body); `None` when out of its reach.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Steps {
    /// An onion dispenser or a counter with an onion.
    pub onion: Option<u16>,
    /// A dish dispenser or a counter with a dish.
    pub dish: Option<u16>,
    /// A pot that still takes onions.
    pub pot: Option<u16>,
    /// A pot that is cooking or holds a ready soup.
    pub soup_pot: Option<u16>,
    /// A serving window.
    pub serving: Option<u16>,
}

/// Facts for one decision of player `me`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillFacts {
    /// Index (0 or 1) of the player deciding.
    pub me: usize,
    /// Held object kind; `Some(Soup)` is a dish with soup.
    pub my_held: Option<ObjKind>,
    /// What the teammate holds, same encoding as `my_held`.
    pub partner_held: Option<ObjKind>,
    /// Every pot of the layout, in layout order (the "Pot k" of the scene text).
    pub pots: Vec<PotFact>,
    /// Which dispensers, window and shared counter this player reaches.
    pub my_access: Access,
    /// Which dispensers, window and shared counter the teammate reaches.
    pub partner_access: Access,
    /// Objects lying on counters that this player can reach.
    pub counter_onions_for_me: u8,
    /// Dishes lying on counters that this player can reach.
    pub counter_dishes_for_me: u8,
    /// Plated soups lying on counters that this player can reach.
    pub counter_soups_for_me: u8,
    /// The teammate's current (or predicted) skill, when known.
    pub partner_skill: Option<Skill>,
    /// Timesteps left in the episode.
    pub time_left: u32,
    /// Onions a soup needs (0 is read as 3, the classic recipe).
    #[serde(default)]
    pub soup_size: u8,
    /// Objects lying on counters that the teammate can reach (hand-overs on forced_coordination).
    #[serde(default)]
    pub counter_onions_for_partner: u8,
    /// Dishes lying on counters that the teammate can reach.
    #[serde(default)]
    pub counter_dishes_for_partner: u8,
    /// Plated soups lying on counters that the teammate can reach.
    #[serde(default)]
    pub counter_soups_for_partner: u8,
    /// Empty counters both players can reach.
    #[serde(default)]
    pub empty_shared_counters: u8,
    /// Empty counters this player can reach.
    #[serde(default)]
    pub empty_counters_for_me: u8,
    /// Cost from this player to the nearest place of each kind.
    #[serde(default)]
    pub my_steps: Steps,
    /// Cost from the teammate to the nearest place of each kind.
    #[serde(default)]
    pub partner_steps: Steps,
    /// This player's last skill failed because the teammate was in the way.
    #[serde(default)]
    pub blocked: bool,
}
