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
    Ready,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PotFact {
    pub status: PotStatus,
    /// Whether this player / the teammate can stand at the pot (ignoring bodies).
    pub reachable_by_me: bool,
    pub reachable_by_partner: bool,
}

/// What each side of the kitchen can reach. On most layouts everything is true;
/// on forced_coordination each side reaches only part of the kitchen.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Access {
    pub onion_source: bool,
    pub dish_source: bool,
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
    pub serving: Option<u16>,
}

/// Facts for one decision of player `me`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillFacts {
    pub me: usize,
    /// Held object kind; `Some(Soup)` is a dish with soup.
    pub my_held: Option<ObjKind>,
    pub partner_held: Option<ObjKind>,
    pub pots: Vec<PotFact>,
    pub my_access: Access,
    pub partner_access: Access,
    /// Objects lying on counters that this player can reach.
    pub counter_onions_for_me: u8,
    pub counter_dishes_for_me: u8,
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
    #[serde(default)]
    pub counter_dishes_for_partner: u8,
    #[serde(default)]
    pub counter_soups_for_partner: u8,
    /// Empty counters both players can reach.
    #[serde(default)]
    pub empty_shared_counters: u8,
    /// Empty counters this player can reach.
    #[serde(default)]
    pub empty_counters_for_me: u8,
    #[serde(default)]
    pub my_steps: Steps,
    #[serde(default)]
    pub partner_steps: Steps,
    /// This player's last skill failed because the teammate was in the way.
    #[serde(default)]
    pub blocked: bool,
}
