//! The pieces a state is made of: grid positions, facings, actions,
//! ingredients, soups, held objects and players. Plain values with no
//! knowledge of a layout.

use serde::{Deserialize, Serialize};

/// Largest number of ingredients a pot can hold (the original's `MAX_NUM_INGREDIENTS`).
pub const MAX_INGREDIENTS: usize = 3;

/// A grid cell. `x` is the column, `y` the row, both from the top-left corner.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Pos {
    /// Column, 0 at the left edge.
    pub x: u8,
    /// Row, 0 at the top edge; grows southwards.
    pub y: u8,
}

impl Pos {
    /// The cell at column `x`, row `y`.
    pub const fn new(x: u8, y: u8) -> Self {
        Pos { x, y }
    }

    /// The neighbouring cell in `dir`, or `None` when it would leave the grid's
    /// top or left edge (the right and bottom edges are checked by the layout).
    pub fn step(self, dir: Dir) -> Option<Pos> {
        let (dx, dy) = dir.delta();
        let x = self.x as i16 + dx as i16;
        let y = self.y as i16 + dy as i16;
        if x < 0 || y < 0 || x > u8::MAX as i16 || y > u8::MAX as i16 {
            return None;
        }
        Some(Pos::new(x as u8, y as u8))
    }

    /// Grid distance to `other`: |dx| + |dy|, ignoring walls and counters.
    pub fn manhattan(self, other: Pos) -> u32 {
        (self.x as i32 - other.x as i32).unsigned_abs() + (self.y as i32 - other.y as i32).unsigned_abs()
    }
}

impl std::fmt::Display for Pos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

/// A facing direction. North is up one row.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Dir {
    /// Up one row (y − 1).
    North,
    /// Down one row (y + 1).
    South,
    /// Right one column (x + 1).
    East,
    /// Left one column (x − 1).
    West,
}

impl Dir {
    /// All four directions in index order: N, S, E, W.
    pub const ALL: [Dir; 4] = [Dir::North, Dir::South, Dir::East, Dir::West];

    /// The `(dx, dy)` one step in this direction moves by; y grows southwards.
    pub const fn delta(self) -> (i8, i8) {
        match self {
            Dir::North => (0, -1),
            Dir::South => (0, 1),
            Dir::East => (1, 0),
            Dir::West => (-1, 0),
        }
    }

    /// The direction of a unit step `(dx, dy)`; `None` unless exactly one axis moves by 1.
    pub fn from_delta(dx: i64, dy: i64) -> Option<Dir> {
        match (dx, dy) {
            (0, -1) => Some(Dir::North),
            (0, 1) => Some(Dir::South),
            (1, 0) => Some(Dir::East),
            (-1, 0) => Some(Dir::West),
            _ => None,
        }
    }

    /// Stable index 0..4 in the order of [`Dir::ALL`], used for array lookups.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The direction pointing the other way.
    pub const fn opposite(self) -> Dir {
        match self {
            Dir::North => Dir::South,
            Dir::South => Dir::North,
            Dir::East => Dir::West,
            Dir::West => Dir::East,
        }
    }

    /// The arrow used by the ASCII renderer.
    pub const fn arrow(self) -> char {
        match self {
            Dir::North => '↑',
            Dir::South => '↓',
            Dir::East => '→',
            Dir::West => '←',
        }
    }

    /// Lower-case name used in prompts and JSON ("north", …).
    pub const fn name(self) -> &'static str {
        match self {
            Dir::North => "north",
            Dir::South => "south",
            Dir::East => "east",
            Dir::West => "west",
        }
    }
}

/// One player's primitive action. The index order is the one of the original
/// `Action.ALL_ACTIONS` and of BC logits: N, S, E, W, stay, interact.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Action {
    /// Move (or turn) up one row.
    North,
    /// Move (or turn) down one row.
    South,
    /// Move (or turn) right one column.
    East,
    /// Move (or turn) left one column.
    West,
    /// Do nothing this tick.
    Stay,
    /// Interact with the cell faced: take, put down, add to a pot, plate a ready soup, serve.
    Interact,
}

impl Action {
    /// All six actions in index order (N, S, E, W, stay, interact).
    pub const ALL: [Action; 6] =
        [Action::North, Action::South, Action::East, Action::West, Action::Stay, Action::Interact];
    /// The four movement actions, in the order of [`Dir::ALL`].
    pub const MOVES: [Action; 4] = [Action::North, Action::South, Action::East, Action::West];

    /// Stable index 0..6 in the order of [`Action::ALL`] (the BC logit index).
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The action at `i` in [`Action::ALL`]; `None` when `i >= 6`.
    pub fn from_index(i: usize) -> Option<Action> {
        Action::ALL.get(i).copied()
    }

    /// The direction of a movement action; `None` for stay and interact.
    pub const fn dir(self) -> Option<Dir> {
        match self {
            Action::North => Some(Dir::North),
            Action::South => Some(Dir::South),
            Action::East => Some(Dir::East),
            Action::West => Some(Dir::West),
            _ => None,
        }
    }

    /// The movement action towards `d`.
    pub const fn from_dir(d: Dir) -> Action {
        match d {
            Dir::North => Action::North,
            Dir::South => Action::South,
            Dir::East => Action::East,
            Dir::West => Action::West,
        }
    }

    /// The one-letter code of the reference traces: N S E W X I.
    pub const fn letter(self) -> char {
        match self {
            Action::North => 'N',
            Action::South => 'S',
            Action::East => 'E',
            Action::West => 'W',
            Action::Stay => 'X',
            Action::Interact => 'I',
        }
    }

    /// Inverse of [`Action::letter`]; upper-case only, `None` for any other char.
    pub fn from_letter(c: char) -> Option<Action> {
        Some(match c {
            'N' => Action::North,
            'S' => Action::South,
            'E' => Action::East,
            'W' => Action::West,
            'X' => Action::Stay,
            'I' => Action::Interact,
            _ => return None,
        })
    }

    /// Parses the letters of the traces and the upper-case names of the human data
    /// (NORTH, SOUTH, EAST, WEST, STAY, INTERACT).
    pub fn parse(s: &str) -> Option<Action> {
        let t = s.trim();
        let mut chars = t.chars();
        if let (Some(c), None) = (chars.next(), chars.next()) {
            return Action::from_letter(c.to_ascii_uppercase());
        }
        Some(match t.to_ascii_uppercase().as_str() {
            "NORTH" | "UP" => Action::North,
            "SOUTH" | "DOWN" => Action::South,
            "EAST" | "RIGHT" => Action::East,
            "WEST" | "LEFT" => Action::West,
            "STAY" | "NOOP" | "WAIT" => Action::Stay,
            "INTERACT" => Action::Interact,
            _ => return None,
        })
    }
}

impl std::fmt::Display for Action {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// An ingredient that goes into a pot.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Ingredient {
    /// An onion (the only ingredient of the standard layouts).
    Onion,
    /// A tomato.
    Tomato,
}

impl Ingredient {
    /// Lower-case name used in prompts and JSON ("onion", "tomato").
    pub const fn name(self) -> &'static str {
        match self {
            Ingredient::Onion => "onion",
            Ingredient::Tomato => "tomato",
        }
    }
}

/// A soup: in a pot, on a counter, or in a player's hand (then plated on a dish).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Soup {
    items: [Ingredient; MAX_INGREDIENTS],
    len: u8,
    /// -1 while idle (not started); counts up from 1 once cooking.
    pub cooking_tick: i16,
    /// Ticks this recipe needs; fixed from the rules when the soup is made.
    pub cook_time: u16,
}

impl Soup {
    /// A pot with nothing in it: no ingredients, idle, cooking `cook_time` ticks once started.
    pub fn empty(cook_time: u16) -> Soup {
        Soup { items: [Ingredient::Onion; MAX_INGREDIENTS], len: 0, cooking_tick: -1, cook_time }
    }

    /// A soup with the given ingredients; `None` if there are too many.
    pub fn with_ingredients(ings: &[Ingredient], cooking_tick: i16, cook_time: u16) -> Option<Soup> {
        if ings.len() > MAX_INGREDIENTS {
            return None;
        }
        let mut s = Soup::empty(cook_time);
        for &i in ings {
            s.items[s.len as usize] = i;
            s.len += 1;
        }
        s.cooking_tick = cooking_tick;
        Some(s)
    }

    /// The ingredients added so far, in the order they went in.
    pub fn ingredients(&self) -> &[Ingredient] {
        &self.items[..self.len as usize]
    }

    /// How many of the ingredients are onions.
    pub fn num_onions(&self) -> u8 {
        self.ingredients().iter().filter(|&&i| i == Ingredient::Onion).count() as u8
    }

    /// How many of the ingredients are tomatoes.
    pub fn num_tomatoes(&self) -> u8 {
        self.len - self.num_onions()
    }

    /// Number of ingredients, 0..=[`MAX_INGREDIENTS`].
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// True when no ingredient has been added.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// True until cooking starts (`cooking_tick < 0`).
    pub fn is_idle(&self) -> bool {
        self.cooking_tick < 0
    }

    /// True once cooking has run for `cook_time` ticks; only then can it be plated.
    pub fn is_ready(&self) -> bool {
        !self.is_idle() && self.cooking_tick >= self.cook_time as i16
    }

    /// True while cooking has started but the soup is not ready yet.
    pub fn is_cooking(&self) -> bool {
        !self.is_idle() && !self.is_ready()
    }

    /// Ticks left until ready (0 when ready or idle).
    pub fn remaining(&self) -> u16 {
        if self.is_idle() { 0 } else { (self.cook_time as i16 - self.cooking_tick).max(0) as u16 }
    }

    /// Adds an ingredient; the caller (the simulator) has checked there is room.
    pub(super) fn push(&mut self, i: Ingredient) {
        self.items[self.len as usize] = i;
        self.len += 1;
    }
}

/// Anything a player can hold or a counter can carry.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Object {
    /// A raw onion or tomato.
    Ingredient(Ingredient),
    /// An empty plate, needed to pick a finished soup out of a pot.
    Dish,
    /// A soup; once out of the pot it is a plated dish ready to serve.
    Soup(Soup),
}

/// The kind of an object, without soup details.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ObjKind {
    /// A raw onion.
    Onion,
    /// A raw tomato.
    Tomato,
    /// An empty plate.
    Dish,
    /// A soup, in a pot or plated.
    Soup,
}

impl ObjKind {
    /// Lower-case name used in prompts, JSON and logs ("onion", "dish", …).
    pub const fn name(self) -> &'static str {
        match self {
            ObjKind::Onion => "onion",
            ObjKind::Tomato => "tomato",
            ObjKind::Dish => "dish",
            ObjKind::Soup => "soup",
        }
    }
}

impl Object {
    /// A raw onion, the object players most often carry.
    pub const ONION: Object = Object::Ingredient(Ingredient::Onion);

    /// The kind of this object, dropping a soup's contents and timer.
    pub fn kind(&self) -> ObjKind {
        match self {
            Object::Ingredient(Ingredient::Onion) => ObjKind::Onion,
            Object::Ingredient(Ingredient::Tomato) => ObjKind::Tomato,
            Object::Dish => ObjKind::Dish,
            Object::Soup(_) => ObjKind::Soup,
        }
    }

    /// Lower-case name of the object's kind ("onion", "dish", "soup", …).
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// The soup, when this object is one.
    pub fn soup(&self) -> Option<&Soup> {
        match self {
            Object::Soup(s) => Some(s),
            _ => None,
        }
    }
}

/// One player's position, facing and held object.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Player {
    /// The cell the player stands on.
    pub pos: Pos,
    /// The direction the player faces; interact acts on the cell in front.
    pub dir: Dir,
    /// The object in hand, if any (a player holds at most one).
    pub held: Option<Object>,
}
