//! The skills a plan may name, as the paper lists them, and how each is written.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Longest wait a plan may ask for.
pub const MAX_WAIT: u8 = 20;

/// One high-level skill.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Skill {
    /// Take an onion from a dispenser or a counter; needs an empty hand. Written `pickup(onion)`.
    PickupOnion,
    /// Take a dish from a dispenser or a counter; needs an empty hand. Written `pickup(dish)`.
    PickupDish,
    /// Carry the held onion to a pot that still takes ingredients. Written `put_onion_in_pot()`.
    PutOnionInPot,
    /// Put the held object on an empty counter (hand-overs, freeing the hands). Written `place_obj_on_counter()`.
    PlaceObjOnCounter,
    /// Plate a cooking or ready soup with the held dish (waiting until it is ready). Written `fill_dish_with_soup()`.
    FillDishWithSoup,
    /// Carry the plated soup to a serving window. Written `deliver_soup()`.
    DeliverSoup,
    /// Stay put for `n` steps, 1..=[`MAX_WAIT`]. Written `wait(n)`.
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
