//! What can be held, put on a counter or cooked: plates, ingredients, pot contents and
//! dishes, all one [`Item`] value, and the [`Recipe`]s a layout asks for.
//!
//! An item is a small bit set with the layout the reference traces use (so traces compare
//! without conversion): bit 0 a plate, bit 1 cooked, and for ingredient `i` a two-bit count
//! at bits `2 + 2i`. Three ingredients at most go into a pot, so no count overflows.

use serde::{Deserialize, Serialize};

/// Most ingredient kinds a layout can have (piles `0`–`9`).
pub const MAX_KINDS: usize = 10;

/// Ingredients a pot holds when full, and the size of every recipe.
pub const POT_CAPACITY: u32 = 3;

/// The names we give ingredient kinds 0, 1, 2, … in prompts and on the board, unless a
/// layout file names its own. JaxMARL only numbers them; 0 and 1 follow the classic game.
pub const DEFAULT_INGREDIENT_NAMES: [&str; MAX_KINDS] =
    ["onion", "tomato", "lettuce", "carrot", "potato", "mushroom", "pepper", "garlic", "corn", "bean"];

const PLATE_BIT: u32 = 1;
const COOKED_BIT: u32 = 2;

/// Anything held, lying on a counter or sitting in a pot (see the module doc for the bits).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Item(u32);

/// A code that is not an item.
#[derive(Copy, Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("item code {code} is not an item: {why}")]
pub struct ItemCodeError {
    /// The code as given.
    pub code: u64,
    /// What is wrong with it.
    pub why: &'static str,
}

impl Item {
    /// Nothing.
    pub const EMPTY: Item = Item(0);
    /// An empty plate.
    pub const PLATE: Item = Item(PLATE_BIT);

    /// One raw ingredient of kind `kind` (0-based).
    pub const fn ingredient(kind: u8) -> Item {
        Item(4 << (2 * kind as u32))
    }

    /// The item's code (the trace format's integer).
    pub const fn code(self) -> u32 {
        self.0
    }

    /// The item a trace code stands for, checked: known bits only, at most three
    /// ingredients, a plate or cooked bit only with ingredients or alone as a plate.
    pub fn from_code(code: u64) -> Result<Item, ItemCodeError> {
        let bad = |why| Err(ItemCodeError { code, why });
        if code >> (2 + 2 * MAX_KINDS) != 0 {
            return bad("bits beyond the ten ingredient kinds are set");
        }
        let item = Item(code as u32);
        if item.total() > POT_CAPACITY {
            return bad("more than three ingredients");
        }
        if item.is_cooked() && item.total() == 0 {
            return bad("cooked without ingredients");
        }
        Ok(item)
    }

    /// Nothing at all.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Carries a plate (an empty plate or a dish).
    pub const fn has_plate(self) -> bool {
        self.0 & PLATE_BIT != 0
    }

    /// Has been cooked (a finished pot, or a dish).
    pub const fn is_cooked(self) -> bool {
        self.0 & COOKED_BIT != 0
    }

    /// A plated cooked soup.
    pub const fn is_dish(self) -> bool {
        self.is_cooked()
    }

    /// An empty plate and nothing else.
    pub const fn is_plate(self) -> bool {
        self.0 == PLATE_BIT
    }

    /// Ingredients without a plate (what a hand holds after taking from a pile).
    pub const fn is_raw(self) -> bool {
        self.0 >> 2 != 0 && !self.has_plate()
    }

    /// How many of ingredient `kind` it contains.
    pub const fn count(self, kind: u8) -> u32 {
        (self.0 >> (2 + 2 * kind as u32)) & 3
    }

    /// How many ingredients it contains in all.
    pub const fn total(self) -> u32 {
        let mut rest = self.0 >> 2;
        let mut n = 0;
        while rest != 0 {
            n += rest & 3;
            rest >>= 2;
        }
        n
    }

    /// The ingredient part only (plate and cooked bits cleared): what a pot holds.
    pub const fn contents(self) -> Item {
        Item(self.0 & !(PLATE_BIT | COOKED_BIT))
    }

    /// The kind of the first ingredient it contains, if any.
    pub fn first_kind(self) -> Option<u8> {
        (0..MAX_KINDS as u8).find(|&k| self.count(k) > 0)
    }

    /// Its ingredients as kinds in ascending order, e.g. `[0, 0, 1]`.
    pub fn kinds(self) -> Vec<u8> {
        let mut out = Vec::with_capacity(3);
        for k in 0..MAX_KINDS as u8 {
            for _ in 0..self.count(k) {
                out.push(k);
            }
        }
        out
    }

    /// These contents plus `other`'s (a pot receiving an ingredient).
    pub const fn plus(self, other: Item) -> Item {
        Item(self.0 + other.0)
    }

    /// The same contents, cooked.
    pub const fn cooked(self) -> Item {
        Item(self.0 | COOKED_BIT)
    }

    /// The same contents on a plate.
    pub const fn plated(self) -> Item {
        Item(self.0 | PLATE_BIT)
    }

    /// A human phrase: "nothing", "a plate", "a tomato", "a pot soup of onion, onion,
    /// tomato", "a dish of onion, onion, tomato", using `names` for the kinds.
    pub fn describe(self, names: &[String]) -> String {
        if self.is_empty() {
            return "nothing".into();
        }
        if self.is_plate() {
            return "an empty plate".into();
        }
        let list = self.ingredient_list(names);
        if self.is_dish() && self.has_plate() {
            format!("a dish of {list}")
        } else if self.is_cooked() {
            format!("a cooked soup of {list}")
        } else if self.total() == 1 {
            format!("a {list}")
        } else {
            list
        }
    }

    /// The ingredients as "onion, onion, tomato".
    pub fn ingredient_list(self, names: &[String]) -> String {
        self.kinds().iter().map(|&k| kind_name(names, k)).collect::<Vec<_>>().join(", ")
    }
}

/// The name of ingredient `kind` in `names`, or `ingredient<k>` past its end.
pub fn kind_name(names: &[String], kind: u8) -> String {
    names.get(kind as usize).cloned().unwrap_or_else(|| format!("ingredient{kind}"))
}

impl std::fmt::Debug for Item {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Item({}", self.0)?;
        if self.has_plate() {
            write!(f, " plate")?;
        }
        if self.is_cooked() {
            write!(f, " cooked")?;
        }
        let kinds = self.kinds();
        if !kinds.is_empty() {
            write!(f, " {kinds:?}")?;
        }
        write!(f, ")")
    }
}

/// Three ingredients, sorted by kind; the order of ingredients in a pot does not matter.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Recipe(pub [u8; 3]);

impl Recipe {
    /// A recipe from three kinds in any order.
    pub fn new(mut kinds: [u8; 3]) -> Recipe {
        kinds.sort_unstable();
        Recipe(kinds)
    }

    /// The pot contents that make it.
    pub fn contents(self) -> Item {
        self.0.iter().fold(Item::EMPTY, |acc, &k| acc.plus(Item::ingredient(k)))
    }

    /// The dish that delivers it: its contents, cooked, on a plate.
    pub fn dish(self) -> Item {
        self.contents().cooked().plated()
    }

    /// How many of `kind` it needs.
    pub fn count(self, kind: u8) -> u32 {
        self.0.iter().filter(|&&k| k == kind).count() as u32
    }

    /// Every recipe of three ingredients over `kinds` kinds (with repeats), in ascending order.
    pub fn all(kinds: u8) -> Vec<Recipe> {
        let mut out = Vec::new();
        for a in 0..kinds {
            for b in a..kinds {
                for c in b..kinds {
                    out.push(Recipe([a, b, c]));
                }
            }
        }
        out
    }

    /// "onion, onion, tomato".
    pub fn describe(self, names: &[String]) -> String {
        self.contents().ingredient_list(names)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_match_the_trace_format() {
        assert_eq!(Item::ingredient(0).code(), 4);
        assert_eq!(Item::ingredient(1).code(), 16);
        let three_onions = Item::ingredient(0).plus(Item::ingredient(0)).plus(Item::ingredient(0));
        assert_eq!(three_onions.code(), 12);
        assert_eq!(three_onions.cooked().plated().code(), 15);
        assert_eq!(Recipe::new([1, 0, 0]).contents().code(), 24);
        assert_eq!(Recipe::new([1, 0, 0]).0, [0, 0, 1]);
        assert_eq!(Item::from_code(51).unwrap().kinds(), vec![1, 1, 1]);
        assert!(Item::from_code(51).unwrap().is_dish());
        assert!(Item::from_code(4 * 4 * 4 * 4).is_ok());
        assert!(Item::from_code(2).is_err());
        assert!(Item::from_code(4 + 16 + 64 + 256).is_err());
        assert!(Item::from_code(1 << 30).is_err());
    }

    #[test]
    fn predicates_and_phrases() {
        let names: Vec<String> = DEFAULT_INGREDIENT_NAMES.iter().map(|s| s.to_string()).collect();
        assert!(Item::PLATE.is_plate() && !Item::PLATE.is_raw() && !Item::PLATE.is_dish());
        assert!(Item::ingredient(2).is_raw());
        assert_eq!(Item::ingredient(2).first_kind(), Some(2));
        let dish = Recipe::new([0, 1, 1]).dish();
        assert_eq!(dish.describe(&names), "a dish of onion, tomato, tomato");
        assert_eq!(Item::ingredient(1).describe(&names), "a tomato");
        assert_eq!(Item::EMPTY.describe(&names), "nothing");
        assert_eq!(Recipe::all(2).len(), 4);
        assert_eq!(Recipe::all(1), vec![Recipe([0, 0, 0])]);
        assert_eq!(Recipe::all(4).len(), 20);
        assert_eq!(kind_name(&names[..1], 3), "ingredient3");
    }
}
