//! Layouts: the static grid and the rules of an Overcooked kitchen.
//!
//! Two input formats are read from text (the caller does the file I/O):
//! - the original overcooked_ai `.layout` files: a Python-literal dict whose
//!   `grid` is a (usually triple-quoted) string, plus rule keys;
//! - plain text grids: one row of tiles per line (`#` lines are comments).
//!
//! Errors name the source, line and column, and parsing never panics. The work
//! and memory of parsing are linear in the text, whose size, grid and nesting
//! are bounded ([`MAX_LAYOUT_TEXT_BYTES`], [`MAX_LAYOUT_SIDE`], [`MAX_NESTING`]),
//! so everything built from a layout (the motion costs, the scene text) stays small.

use super::pieces::{Ingredient, MAX_INGREDIENTS, Pos, Soup};
use std::collections::HashSet;
use std::fmt;

/// Longest layout text (a file, or one recorded in a transcript header). A 32 x 32
/// grid with every rule key is about 2 KiB.
pub const MAX_LAYOUT_TEXT_BYTES: usize = 1 << 20;

/// Most rows and columns of a grid. The published kitchens are at most 9 x 5 and
/// overcooked_ai's largest about 15 wide; the per-layout motion costs grow with the
/// square of the floor cells, so the grid is bounded.
pub const MAX_LAYOUT_SIDE: usize = 32;

/// Deepest nesting of brackets in a `.layout` dict (the real files nest 4 deep).
pub const MAX_NESTING: usize = 32;

/// Default cook time and soup value of the original's recipe defaults.
pub const DEFAULT_COOK_TIME: u16 = 20;
/// Sparse reward of a served soup when the layout sets no value (the original's default of 20).
pub const DEFAULT_SOUP_VALUE: u32 = 20;

/// One static grid cell.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Tile {
    /// Walkable cell; the players' start digits `1` and `2` sit on floor.
    Floor,
    /// Counter `X`: not walkable, holds at most one object.
    Counter,
    /// Onion dispenser `O`: gives an onion to an empty-handed player.
    OnionSource,
    /// Tomato dispenser `T`: gives a tomato to an empty-handed player.
    TomatoSource,
    /// Dish dispenser `D`: gives an empty plate to an empty-handed player.
    DishSource,
    /// Pot `P`: takes ingredients, cooks, and gives its ready soup to a player holding a dish.
    Pot,
    /// Serving window `S`: takes a plated soup and pays its value.
    Serve,
}

impl Tile {
    /// The tile for a layout grid character (`X O T D P S`, space, or a start digit); `None` for anything else.
    pub fn from_char(c: char) -> Option<Tile> {
        Some(match c {
            ' ' | '1' | '2' => Tile::Floor,
            'X' => Tile::Counter,
            'O' => Tile::OnionSource,
            'T' => Tile::TomatoSource,
            'D' => Tile::DishSource,
            'P' => Tile::Pot,
            'S' => Tile::Serve,
            _ => return None,
        })
    }

    /// The grid character of this tile; floor is a space (start digits are not restored).
    pub fn to_char(self) -> char {
        match self {
            Tile::Floor => ' ',
            Tile::Counter => 'X',
            Tile::OnionSource => 'O',
            Tile::TomatoSource => 'T',
            Tile::DishSource => 'D',
            Tile::Pot => 'P',
            Tile::Serve => 'S',
        }
    }
}

/// A recipe as a multiset of ingredients.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Recipe {
    /// Number of onions in the recipe.
    pub onions: u8,
    /// Number of tomatoes in the recipe.
    pub tomatoes: u8,
}

/// The rules a layout file may set. Lookups go through small tables indexed by
/// (onions, tomatoes) so that the step never searches a list.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Rules {
    /// Orders that pay on delivery; empty means every recipe pays (as the original).
    pub orders: Vec<Recipe>,
    /// Pot capacity; a pot starts cooking by itself when it holds this many.
    pub num_items: usize,
    value_table: [[u32; MAX_INGREDIENTS + 1]; MAX_INGREDIENTS + 1],
    time_table: [[u16; MAX_INGREDIENTS + 1]; MAX_INGREDIENTS + 1],
}

impl Default for Rules {
    fn default() -> Self {
        let mut r = Rules {
            orders: vec![Recipe { onions: 3, tomatoes: 0 }],
            num_items: MAX_INGREDIENTS,
            value_table: [[0; MAX_INGREDIENTS + 1]; MAX_INGREDIENTS + 1],
            time_table: [[DEFAULT_COOK_TIME; MAX_INGREDIENTS + 1]; MAX_INGREDIENTS + 1],
        };
        r.fill_tables(&RuleKeys::default());
        r
    }
}

/// The raw rule keys read from a layout file, before they are turned into tables.
#[derive(Clone, Debug, Default)]
struct RuleKeys {
    orders: Option<Vec<Recipe>>,
    cook_time: Option<u16>,
    delivery_reward: Option<u32>,
    recipe_values: Option<Vec<u32>>,
    recipe_times: Option<Vec<u16>>,
    onion_value: Option<u32>,
    tomato_value: Option<u32>,
    onion_time: Option<u16>,
    tomato_time: Option<u16>,
    num_items: Option<usize>,
}

impl Rules {
    fn fill_tables(&mut self, k: &RuleKeys) {
        for o in 0..=MAX_INGREDIENTS {
            for t in 0..=MAX_INGREDIENTS - o {
                let recipe = Recipe { onions: o as u8, tomatoes: t as u8 };
                let order_idx = k.orders.as_ref().and_then(|os| os.iter().position(|r| *r == recipe));
                let listed_value = order_idx.and_then(|i| k.recipe_values.as_ref().map(|v| v[i]));
                let listed_time = order_idx.and_then(|i| k.recipe_times.as_ref().map(|v| v[i]));
                // Precedence follows the original Recipe: a global value/time first,
                // then the per-order lists, then per-ingredient sums, then 20.
                let value = if let Some(v) = k.delivery_reward {
                    v
                } else if let Some(v) = listed_value {
                    v
                } else if let (Some(ov), Some(tv)) = (k.onion_value, k.tomato_value) {
                    ov * o as u32 + tv * t as u32
                } else {
                    DEFAULT_SOUP_VALUE
                };
                let time = if let Some(c) = k.cook_time {
                    c
                } else if let Some(t) = listed_time {
                    t
                } else if let (Some(ot), Some(tt)) = (k.onion_time, k.tomato_time) {
                    ot * o as u16 + tt * t as u16
                } else {
                    DEFAULT_COOK_TIME
                };
                self.value_table[o][t] = value;
                self.time_table[o][t] = time;
            }
        }
    }

    fn recipe_of(soup: &Soup) -> (usize, usize) {
        (soup.num_onions() as usize, soup.num_tomatoes() as usize)
    }

    /// What serving this soup pays: its value if it is an order, else 0.
    pub fn value_of(&self, soup: &Soup) -> u32 {
        let (o, t) = Self::recipe_of(soup);
        let recipe = Recipe { onions: o as u8, tomatoes: t as u8 };
        if self.orders.is_empty() || self.orders.contains(&recipe) { self.value_table[o][t] } else { 0 }
    }

    /// The value of a recipe regardless of the order list.
    pub fn recipe_value(&self, onions: usize, tomatoes: usize) -> u32 {
        self.value_table[onions.min(MAX_INGREDIENTS)][tomatoes.min(MAX_INGREDIENTS - onions.min(MAX_INGREDIENTS))]
    }

    /// Ticks a soup with this soup's ingredients cooks before it is ready.
    pub fn cook_time_of(&self, soup: &Soup) -> u16 {
        let (o, t) = Self::recipe_of(soup);
        self.time_table[o][t]
    }

    /// Cook time of the soup with these ingredients.
    pub fn cook_time_for(&self, ings: &[Ingredient]) -> u16 {
        let o = ings.iter().filter(|&&i| i == Ingredient::Onion).count().min(MAX_INGREDIENTS);
        let t = (ings.len().min(MAX_INGREDIENTS)).saturating_sub(o);
        self.time_table[o][t]
    }
}

/// A parsed kitchen: static tiles, start cells, and rules.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The layout's canonical name (e.g. `cramped_room`), as passed to the parser.
    pub name: String,
    /// Number of columns.
    pub width: usize,
    /// Number of rows.
    pub height: usize,
    /// The static tile of every cell, indexed by `y * width + x`.
    pub tiles: Vec<Tile>,
    /// Start cells of player 0 (digit `1`) and player 1 (digit `2`).
    pub starts: [Pos; 2],
    /// Every pot, row by row; the order is that of "Pot 0", "Pot 1", … in prompts.
    pub pots: Vec<Pos>,
    /// Every counter cell, row by row.
    pub counters: Vec<Pos>,
    /// Every onion dispenser, row by row.
    pub onion_sources: Vec<Pos>,
    /// Every tomato dispenser, row by row.
    pub tomato_sources: Vec<Pos>,
    /// Every dish dispenser, row by row.
    pub dish_sources: Vec<Pos>,
    /// Every serving window, row by row.
    pub serving: Vec<Pos>,
    /// Orders, pot capacity and the value and cook-time tables.
    pub rules: Rules,
    /// The grid rows as text (players' digits kept), for rendering and export.
    pub grid: Vec<String>,
}

/// A layout that could not be read. `line` and `column` are 1-based.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct LayoutError {
    /// Name of the file (or other source) the text came from.
    pub source_name: String,
    /// 1-based line of the fault in the source.
    pub line: usize,
    /// 1-based column of the fault in the source.
    pub column: usize,
    /// What is wrong, for a human reader.
    pub message: String,
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.source_name, self.line, self.column, self.message)
    }
}

/// The five classic layouts, embedded so the binary works from any directory.
pub const BUILTIN: [(&str, &str); 5] = [
    ("cramped_room", include_str!("../../../../layouts/cramped_room.layout")),
    ("asymmetric_advantages", include_str!("../../../../layouts/asymmetric_advantages.layout")),
    ("coordination_ring", include_str!("../../../../layouts/coordination_ring.layout")),
    ("forced_coordination", include_str!("../../../../layouts/forced_coordination.layout")),
    ("counter_circuit", include_str!("../../../../layouts/counter_circuit.layout")),
];

/// The names used by the 2019 code and by overcooked_ai for the same grids.
pub const ALIASES: [(&str, &str); 6] = [
    ("simple", "cramped_room"),
    ("unident_s", "asymmetric_advantages"),
    ("random1", "coordination_ring"),
    ("random0", "forced_coordination"),
    ("random3", "counter_circuit"),
    ("counter_circuit_o_1order", "counter_circuit"),
];

/// Resolves a built-in layout name or alias to its canonical name.
pub fn canonical_name(name: &str) -> Option<&'static str> {
    if let Some((n, _)) = BUILTIN.iter().find(|(n, _)| *n == name) {
        return Some(n);
    }
    ALIASES.iter().find(|(a, _)| *a == name).map(|(_, n)| *n)
}

impl Layout {
    /// A built-in layout by name or alias.
    pub fn builtin(name: &str) -> Option<Layout> {
        let canon = canonical_name(name)?;
        let (_, text) = BUILTIN.iter().find(|(n, _)| *n == canon)?;
        // The embedded files are checked by the test suite, so this cannot fail in practice;
        // still, an error becomes `None` rather than a panic.
        Layout::parse(canon, text, canon).ok()
    }

    /// Parses a layout file's text. `source_name` is used in errors, `name` is the layout's name.
    pub fn parse(name: &str, text: &str, source_name: &str) -> Result<Layout, LayoutError> {
        if text.len() > MAX_LAYOUT_TEXT_BYTES {
            return Err(LayoutError {
                source_name: source_name.to_string(),
                line: 1,
                column: 1,
                message: format!(
                    "the layout is {} bytes long; layouts may be at most {MAX_LAYOUT_TEXT_BYTES} bytes (see docs/limits.md)",
                    text.len()
                ),
            });
        }
        let first = text.trim_start();
        if first.starts_with('{') {
            parse_layout_dict(name, text, source_name)
        } else {
            let mut rows = Vec::new();
            for (i, line) in text.lines().enumerate() {
                let line = line.trim_end_matches('\r');
                if line.trim().is_empty() || line.trim_start().starts_with('#') {
                    continue;
                }
                rows.push(GridRow { text: line.to_string(), line: i + 1, column: 1 });
            }
            Layout::from_rows(name, &rows, Rules::default(), source_name, (1, 1))
        }
    }

    /// Builds a layout from grid rows (e.g. a trace's `grid`), with default rules.
    pub fn from_grid(name: &str, rows: &[&str]) -> Result<Layout, LayoutError> {
        let rows: Vec<GridRow> =
            rows.iter().enumerate().map(|(i, r)| GridRow { text: r.to_string(), line: i + 1, column: 1 }).collect();
        Layout::from_rows(name, &rows, Rules::default(), name, (1, 1))
    }

    fn from_rows(
        name: &str,
        rows: &[GridRow],
        rules: Rules,
        source_name: &str,
        grid_at: (usize, usize),
    ) -> Result<Layout, LayoutError> {
        let err = |line: usize, column: usize, message: String| LayoutError {
            source_name: source_name.to_string(),
            line,
            column,
            message,
        };
        if rows.is_empty() {
            return Err(err(grid_at.0, grid_at.1, "the grid has no rows".into()));
        }
        let width = rows[0].text.chars().count();
        if width == 0 {
            return Err(err(rows[0].line, rows[0].column, "the grid's first row is empty".into()));
        }
        if width > MAX_LAYOUT_SIDE || rows.len() > MAX_LAYOUT_SIDE {
            return Err(err(
                grid_at.0,
                grid_at.1,
                format!(
                    "the grid is {width} wide and {} high; layouts may be at most {MAX_LAYOUT_SIDE} x {MAX_LAYOUT_SIDE} \
                     (see docs/limits.md)",
                    rows.len()
                ),
            ));
        }
        let height = rows.len();
        let mut tiles = Vec::with_capacity(width * height);
        let mut starts: [Option<Pos>; 2] = [None, None];
        let mut l = Layout {
            name: name.to_string(),
            width,
            height,
            tiles: Vec::new(),
            starts: [Pos::new(0, 0); 2],
            pots: vec![],
            counters: vec![],
            onion_sources: vec![],
            tomato_sources: vec![],
            dish_sources: vec![],
            serving: vec![],
            rules,
            grid: rows.iter().map(|r| r.text.clone()).collect(),
        };
        for (y, row) in rows.iter().enumerate() {
            let n = row.text.chars().count();
            if n != width {
                return Err(err(
                    row.line,
                    row.column + n.min(width),
                    format!("ragged grid: row {} has {} cells but the first row has {}", y + 1, n, width),
                ));
            }
            for (x, c) in row.text.chars().enumerate() {
                let col = row.column + x;
                let Some(tile) = Tile::from_char(c) else {
                    return Err(err(
                        row.line,
                        col,
                        format!("unknown tile {c:?} (expected one of X O T D P S, space, 1, 2)"),
                    ));
                };
                let p = Pos::new(x as u8, y as u8);
                if c == '1' || c == '2' {
                    let k = (c as u8 - b'1') as usize;
                    if starts[k].is_some() {
                        return Err(err(row.line, col, format!("duplicate start for player {c}")));
                    }
                    starts[k] = Some(p);
                }
                match tile {
                    Tile::Pot => l.pots.push(p),
                    Tile::Counter => l.counters.push(p),
                    Tile::OnionSource => l.onion_sources.push(p),
                    Tile::TomatoSource => l.tomato_sources.push(p),
                    Tile::DishSource => l.dish_sources.push(p),
                    Tile::Serve => l.serving.push(p),
                    Tile::Floor => {}
                }
                tiles.push(tile);
            }
        }
        l.tiles = tiles;
        for (k, s) in starts.iter().enumerate() {
            match s {
                Some(p) => l.starts[k] = *p,
                None => {
                    return Err(err(grid_at.0, grid_at.1, format!("missing start for player {} (digit {})", k, k + 1)));
                }
            }
        }
        let missing = [
            (l.pots.is_empty(), "no pot (P)"),
            (l.serving.is_empty(), "no serving window (S)"),
            (l.onion_sources.is_empty() && l.tomato_sources.is_empty(), "no onion source (O)"),
            (l.dish_sources.is_empty(), "no dish source (D)"),
        ];
        for (is_missing, what) in missing {
            if is_missing {
                return Err(err(grid_at.0, grid_at.1, format!("the grid has {what}")));
            }
        }
        Ok(l)
    }

    /// Cell index of `p`, or `None` outside the grid.
    #[inline]
    pub fn index(&self, p: Pos) -> Option<usize> {
        let (x, y) = (p.x as usize, p.y as usize);
        if x < self.width && y < self.height { Some(y * self.width + x) } else { None }
    }

    /// The cell at `index` (inverse of [`Layout::index`]); `index` must be below `width * height`.
    #[inline]
    pub fn pos_of(&self, index: usize) -> Pos {
        Pos::new((index % self.width) as u8, (index / self.width) as u8)
    }

    /// The tile at `p`; outside the grid counts as a counter (never walkable, never useful).
    #[inline]
    pub fn tile(&self, p: Pos) -> Tile {
        self.index(p).map_or(Tile::Counter, |i| self.tiles[i])
    }

    /// True for floor cells inside the grid; players can only stand on floor.
    #[inline]
    pub fn is_walkable(&self, p: Pos) -> bool {
        self.index(p).is_some_and(|i| self.tiles[i] == Tile::Floor)
    }

    /// All floor cells, row by row.
    pub fn floor_cells(&self) -> impl Iterator<Item = Pos> + '_ {
        (0..self.tiles.len()).filter(|&i| self.tiles[i] == Tile::Floor).map(|i| self.pos_of(i))
    }

    /// Index of the pot at `p` in `pots` (the "Pot k" of the scene text).
    pub fn pot_index(&self, p: Pos) -> Option<usize> {
        self.pots.iter().position(|&q| q == p)
    }
}

/// One grid row with where it sits in the source (1-based line and column of its first cell).
#[derive(Clone, Debug)]
struct GridRow {
    text: String,
    line: usize,
    column: usize,
}

// ---------------------------------------------------------------------------
// The `.layout` format: a small reader for Python literals.
// ---------------------------------------------------------------------------

/// A Python literal value with the source position where it starts.
#[derive(Clone, Debug)]
enum Py {
    Dict(Vec<(Py, Py)>, usize, usize),
    List(Vec<Py>, usize, usize),
    Str(String, usize, usize),
    Int(i64, usize, usize),
    Float(f64, usize, usize),
    #[allow(dead_code)] // The value is parsed for completeness; no rule key is boolean yet.
    Bool(bool, usize, usize),
    None(usize, usize),
}

impl Py {
    fn at(&self) -> (usize, usize) {
        match self {
            Py::Dict(_, l, c)
            | Py::List(_, l, c)
            | Py::Str(_, l, c)
            | Py::Int(_, l, c)
            | Py::Float(_, l, c)
            | Py::Bool(_, l, c)
            | Py::None(l, c) => (*l, *c),
        }
    }
    fn kind(&self) -> &'static str {
        match self {
            Py::Dict(..) => "a dict",
            Py::List(..) => "a list",
            Py::Str(..) => "a string",
            Py::Int(..) => "an integer",
            Py::Float(..) => "a number",
            Py::Bool(..) => "a boolean",
            Py::None(..) => "None",
        }
    }
}

struct PyReader<'a> {
    chars: Vec<char>,
    i: usize,
    line: usize,
    col: usize,
    source: &'a str,
    /// Open brackets around the value being read (bounded by [`MAX_NESTING`], so the
    /// recursion cannot overflow the stack).
    depth: usize,
}

impl<'a> PyReader<'a> {
    fn err(&self, line: usize, column: usize, message: impl Into<String>) -> LayoutError {
        LayoutError { source_name: self.source.to_string(), line, column, message: message.into() }
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.chars.get(self.i).copied()?;
        self.i += 1;
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if c.is_whitespace() {
                self.bump();
            } else if c == '#' {
                while let Some(c) = self.peek() {
                    if c == '\n' {
                        break;
                    }
                    self.bump();
                }
            } else {
                break;
            }
        }
    }

    fn expect_end(&mut self) -> Result<(), LayoutError> {
        self.skip_ws();
        match self.peek() {
            None => Ok(()),
            Some(c) => Err(self.err(self.line, self.col, format!("unexpected {c:?} after the layout dict"))),
        }
    }

    /// Enters a bracket opened at (l, c); fails past [`MAX_NESTING`] levels.
    fn enter(&mut self, l: usize, c: usize) -> Result<(), LayoutError> {
        if self.depth >= MAX_NESTING {
            return Err(self.err(l, c, format!("brackets nested more than {MAX_NESTING} deep (see docs/limits.md)")));
        }
        self.depth += 1;
        Ok(())
    }

    fn value(&mut self) -> Result<Py, LayoutError> {
        self.skip_ws();
        let (l, c) = (self.line, self.col);
        match self.peek() {
            None => Err(self.err(l, c, "unexpected end of file (unbalanced brackets?)")),
            Some('{') => {
                self.enter(l, c)?;
                self.bump();
                let mut items = Vec::new();
                loop {
                    self.skip_ws();
                    if self.peek() == Some('}') {
                        self.bump();
                        self.depth -= 1;
                        return Ok(Py::Dict(items, l, c));
                    }
                    let k = self.value()?;
                    self.skip_ws();
                    if self.peek() != Some(':') {
                        return Err(self.err(self.line, self.col, "expected ':' in dict"));
                    }
                    self.bump();
                    let v = self.value()?;
                    items.push((k, v));
                    self.skip_ws();
                    match self.peek() {
                        Some(',') => {
                            self.bump();
                        }
                        Some('}') => {}
                        None => return Err(self.err(l, c, "unclosed '{' (unexpected end of file)")),
                        Some(ch) => {
                            return Err(self.err(self.line, self.col, format!("expected ',' or '}}', found {ch:?}")));
                        }
                    }
                }
            }
            Some(open @ ('[' | '(')) => {
                self.enter(l, c)?;
                self.bump();
                let close = if open == '[' { ']' } else { ')' };
                let mut items = Vec::new();
                loop {
                    self.skip_ws();
                    if self.peek() == Some(close) {
                        self.bump();
                        self.depth -= 1;
                        return Ok(Py::List(items, l, c));
                    }
                    items.push(self.value()?);
                    self.skip_ws();
                    match self.peek() {
                        Some(',') => {
                            self.bump();
                        }
                        Some(ch) if ch == close => {}
                        None => return Err(self.err(l, c, format!("unclosed '{open}' (unexpected end of file)"))),
                        Some(ch) => {
                            return Err(self.err(
                                self.line,
                                self.col,
                                format!("expected ',' or '{close}', found {ch:?}"),
                            ));
                        }
                    }
                }
            }
            Some(q @ ('"' | '\'')) => self.string(q),
            Some(ch) if ch.is_ascii_digit() || ch == '-' || ch == '+' || ch == '.' => {
                let mut s = String::new();
                while let Some(ch) = self.peek() {
                    if ch.is_ascii_alphanumeric() || ch == '.' || ch == '-' || ch == '+' || ch == '_' {
                        s.push(ch);
                        self.bump();
                    } else {
                        break;
                    }
                }
                let clean = s.replace('_', "");
                if let Ok(i) = clean.parse::<i64>() {
                    Ok(Py::Int(i, l, c))
                } else if let Ok(f) = clean.parse::<f64>() {
                    Ok(Py::Float(f, l, c))
                } else {
                    Err(self.err(l, c, format!("bad number {s:?}")))
                }
            }
            Some(ch) if ch.is_ascii_alphabetic() || ch == '_' => {
                let mut s = String::new();
                while let Some(ch) = self.peek() {
                    if ch.is_ascii_alphanumeric() || ch == '_' {
                        s.push(ch);
                        self.bump();
                    } else {
                        break;
                    }
                }
                match s.as_str() {
                    "None" => Ok(Py::None(l, c)),
                    "True" => Ok(Py::Bool(true, l, c)),
                    "False" => Ok(Py::Bool(false, l, c)),
                    _ => Err(self.err(l, c, format!("unsupported name {s:?} (only literals are allowed)"))),
                }
            }
            Some(ch) => Err(self.err(l, c, format!("unexpected {ch:?}"))),
        }
    }

    /// A quoted string; the returned position is that of its first content character.
    fn string(&mut self, q: char) -> Result<Py, LayoutError> {
        let (l, c) = (self.line, self.col);
        let triple = self.chars.get(self.i + 1) == Some(&q) && self.chars.get(self.i + 2) == Some(&q);
        let n_open = if triple { 3 } else { 1 };
        for _ in 0..n_open {
            self.bump();
        }
        let (cl, cc) = (self.line, self.col);
        let mut s = String::new();
        loop {
            let Some(ch) = self.bump() else {
                return Err(self.err(l, c, "unterminated string (unbalanced quotes)"));
            };
            if ch == q {
                if !triple {
                    return Ok(Py::Str(s, cl, cc));
                }
                if self.peek() == Some(q) && self.chars.get(self.i + 1) == Some(&q) {
                    self.bump();
                    self.bump();
                    return Ok(Py::Str(s, cl, cc));
                }
                s.push(ch);
            } else if ch == '\\' {
                match self.bump() {
                    Some('n') => s.push('\n'),
                    Some('t') => s.push('\t'),
                    Some('\n') => {}
                    Some(other) => s.push(other),
                    None => return Err(self.err(l, c, "unterminated string (unbalanced quotes)")),
                }
            } else if ch == '\n' && !triple {
                return Err(self.err(l, c, "unterminated string (unbalanced quotes)"));
            } else {
                s.push(ch);
            }
        }
    }
}

fn parse_layout_dict(name: &str, text: &str, source_name: &str) -> Result<Layout, LayoutError> {
    let mut r = PyReader { chars: text.chars().collect(), i: 0, line: 1, col: 1, source: source_name, depth: 0 };
    let top = r.value()?;
    r.expect_end()?;
    let Py::Dict(items, tl, tc) = top else {
        let (l, c) = top.at();
        return Err(r.err(l, c, format!("a .layout file must be a dict, found {}", top.kind())));
    };
    let mut grid: Option<Py> = None;
    let mut keys = RuleKeys::default();
    let err = |v: &Py, msg: String| {
        let (l, c) = v.at();
        LayoutError { source_name: source_name.to_string(), line: l, column: c, message: msg }
    };
    let as_uint = |v: &Py, key: &str, max: i64| -> Result<i64, LayoutError> {
        match v {
            Py::Int(i, ..) if *i >= 0 && *i <= max => Ok(*i),
            Py::Float(f, ..) if f.fract() == 0.0 && *f >= 0.0 && *f <= max as f64 => Ok(*f as i64),
            _ => Err(err(v, format!("`{key}` must be a whole number from 0 to {max}, found {}", v.kind()))),
        }
    };
    let uint_list = |v: &Py, key: &str, max: i64| -> Result<Vec<i64>, LayoutError> {
        match v {
            Py::List(xs, ..) => xs.iter().map(|x| as_uint(x, key, max)).collect(),
            _ => Err(err(v, format!("`{key}` must be a list, found {}", v.kind()))),
        }
    };
    let mut seen: HashSet<&str> = HashSet::new();
    for (k, v) in &items {
        let Py::Str(key, ..) = k else {
            return Err(err(k, format!("dict keys must be strings, found {}", k.kind())));
        };
        if !seen.insert(key.as_str()) {
            return Err(err(k, format!("duplicate key `{key}`")));
        }
        match key.as_str() {
            "grid" => grid = Some(v.clone()),
            "start_all_orders" => {
                let Py::List(orders, ..) = v else {
                    return Err(err(v, format!("`start_all_orders` must be a list, found {}", v.kind())));
                };
                let mut out = Vec::new();
                for o in orders {
                    out.push(parse_order(o, source_name)?);
                }
                keys.orders = Some(out);
            }
            "cook_time" => keys.cook_time = Some(as_uint(v, key, 10_000)? as u16),
            "delivery_reward" => keys.delivery_reward = Some(as_uint(v, key, 1_000_000)? as u32),
            "onion_value" => keys.onion_value = Some(as_uint(v, key, 1_000_000)? as u32),
            "tomato_value" => keys.tomato_value = Some(as_uint(v, key, 1_000_000)? as u32),
            "onion_time" => keys.onion_time = Some(as_uint(v, key, 10_000)? as u16),
            "tomato_time" => keys.tomato_time = Some(as_uint(v, key, 10_000)? as u16),
            "recipe_values" => {
                keys.recipe_values = Some(uint_list(v, key, 1_000_000)?.into_iter().map(|x| x as u32).collect())
            }
            "recipe_times" => {
                keys.recipe_times = Some(uint_list(v, key, 10_000)?.into_iter().map(|x| x as u16).collect())
            }
            "num_items_for_soup" | "max_num_ingredients" => {
                let n = as_uint(v, key, MAX_INGREDIENTS as i64)?;
                if n == 0 {
                    return Err(err(v, format!("`{key}` must be from 1 to {MAX_INGREDIENTS}")));
                }
                keys.num_items = Some(n as usize);
            }
            _ => {} // Unknown keys (rew_shaping_params, start_bonus_orders, ...) are ignored, as the original does.
        }
    }
    for (list_key, list) in [
        ("recipe_values", keys.recipe_values.as_ref().map(Vec::len)),
        ("recipe_times", keys.recipe_times.as_ref().map(Vec::len)),
    ] {
        if let Some(n) = list {
            let orders = keys.orders.as_ref().map_or(0, Vec::len);
            if n != orders {
                let at = items.iter().find(|(k, _)| matches!(k, Py::Str(s, ..) if s == list_key)).map(|(k, _)| k.at());
                let (l, c) = at.unwrap_or((tl, tc));
                return Err(LayoutError {
                    source_name: source_name.to_string(),
                    line: l,
                    column: c,
                    message: format!("`{list_key}` has {n} entries but `start_all_orders` has {orders}"),
                });
            }
        }
    }
    if (keys.onion_time.is_some()) != (keys.tomato_time.is_some()) {
        return Err(LayoutError {
            source_name: source_name.to_string(),
            line: tl,
            column: tc,
            message: "`onion_time` and `tomato_time` must be given together".into(),
        });
    }
    let Some(grid) = grid else {
        return Err(LayoutError {
            source_name: source_name.to_string(),
            line: tl,
            column: tc,
            message: "the layout dict has no `grid` key".into(),
        });
    };
    let Py::Str(text, gl, gc) = &grid else {
        return Err(err(&grid, format!("`grid` must be a string, found {}", grid.kind())));
    };
    // Like the original, every row is stripped of surrounding whitespace and blank rows are dropped.
    let mut rows = Vec::new();
    for (k, raw) in text.split('\n').enumerate() {
        let lead = raw.chars().take_while(|c| c.is_whitespace()).count();
        let stripped = raw.trim();
        if stripped.is_empty() {
            continue;
        }
        let base_col = if k == 0 { *gc } else { 1 };
        rows.push(GridRow { text: stripped.to_string(), line: gl + k, column: base_col + lead });
    }
    let mut rules = Rules::default();
    if let Some(n) = keys.num_items {
        rules.num_items = n;
    }
    rules.orders = keys.orders.clone().unwrap_or_default();
    rules.fill_tables(&keys);
    Layout::from_rows(name, &rows, rules, source_name, (*gl, *gc))
}

fn parse_order(o: &Py, source_name: &str) -> Result<Recipe, LayoutError> {
    let err = |v: &Py, msg: String| {
        let (l, c) = v.at();
        LayoutError { source_name: source_name.to_string(), line: l, column: c, message: msg }
    };
    let Py::Dict(fields, ..) = o else {
        return Err(err(o, format!("an order must be a dict with `ingredients`, found {}", o.kind())));
    };
    let ings = fields
        .iter()
        .find(|(k, _)| matches!(k, Py::Str(s, ..) if s == "ingredients"))
        .map(|(_, v)| v)
        .ok_or_else(|| err(o, "an order must have `ingredients`".into()))?;
    let Py::List(list, ..) = ings else {
        return Err(err(ings, "`ingredients` must be a list".into()));
    };
    let mut r = Recipe { onions: 0, tomatoes: 0 };
    for i in list {
        if (r.onions + r.tomatoes) as usize >= MAX_INGREDIENTS {
            return Err(err(ings, format!("an order must have 1 to {MAX_INGREDIENTS} ingredients")));
        }
        match i {
            Py::Str(s, ..) if s == "onion" => r.onions += 1,
            Py::Str(s, ..) if s == "tomato" => r.tomatoes += 1,
            _ => return Err(err(i, "an ingredient must be \"onion\" or \"tomato\"".into())),
        }
    }
    if (r.onions + r.tomatoes) as usize > MAX_INGREDIENTS || r.onions + r.tomatoes == 0 {
        return Err(err(ings, format!("an order must have 1 to {MAX_INGREDIENTS} ingredients")));
    }
    Ok(r)
}
