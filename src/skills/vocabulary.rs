//! The skills a plan may name, as the paper lists them, and how each is written.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Longest wait a plan may ask for.
pub const MAX_WAIT: u8 = 20;

/// One high-level skill.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Skill {
    PickupOnion,
    PickupDish,
    PutOnionInPot,
    PlaceObjOnCounter,
    FillDishWithSoup,
    DeliverSoup,
    Wait(u8),
}

impl Skill {
    /// The non-wait skills, in the order the prompts list them.
    pub const TASK_SKILLS: [Skill; 6] = [
        Skill::PickupOnion,
        Skill::PickupDish,
        Skill::PutOnionInPot,
        Skill::PlaceObjOnCounter,
        Skill::FillDishWithSoup,
        Skill::DeliverSoup,
    ];
}

impl fmt::Display for Skill {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Skill::PickupOnion => write!(f, "pickup(onion)"),
            Skill::PickupDish => write!(f, "pickup(dish)"),
            Skill::PutOnionInPot => write!(f, "put_onion_in_pot()"),
            Skill::PlaceObjOnCounter => write!(f, "place_obj_on_counter()"),
            Skill::FillDishWithSoup => write!(f, "fill_dish_with_soup()"),
            Skill::DeliverSoup => write!(f, "deliver_soup()"),
            Skill::Wait(n) => write!(f, "wait({n})"),
        }
    }
}
