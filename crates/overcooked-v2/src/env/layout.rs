//! V2 layouts: the ASCII grid with its possible recipes, parsed from the V2 layout
//! format, and the layouts of the OvercookedV2 paper (as JaxMARL ships them), each named.
//!
//! The format is a few `key: value` lines, then `grid:` and the rows:
//!
//! ```text
//! # comments start with '#'
//! name: cramped_room_v2
//! recipes: any                # or kinds by index or name: "0 0 1; onion tomato tomato"
//! ingredients: onion, tomato  # optional names for kinds 0, 1, ... (defaults: onion, tomato, lettuce, ...)
//! agent_order: reversed       # optional: number the agents from the last 'A' instead of the first
//! grid:
//! WWPWW
//! 0A A1
//! W   R
//! WBWXW
//! ```
//!
//! Grid characters: `W` counter, `A` an agent's start (floor), ` ` floor, `X` delivery,
//! `B` plate pile, `P` pot, `R` recipe indicator, `L` button recipe indicator, `0`–`9`
//! ingredient piles (`O` is read as `0`). A parsed layout is checked: rectangular, no floor
//! on the border, at least one agent, recipes of three kinds that have piles, and `recipes:
//! any` only with a recipe indicator (otherwise nobody could ever learn the recipe).

use super::item::{DEFAULT_INGREDIENT_NAMES, Recipe};
use proagent_overcooked::env::Pos;

/// Most agents a layout may have (per-step buffers are fixed arrays of this size).
pub const MAX_AGENTS: usize = 16;

/// What a grid cell is, for the whole episode.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Tile {
    /// Walkable floor.
    Floor,
    /// A counter: things can be put down and picked up.
    Counter,
    /// The delivery window.
    Goal,
    /// A pot.
    Pot,
    /// Shows the current recipe to whoever can see it.
    RecipeIndicator,
    /// Shows the current recipe for a while after someone presses it with empty hands.
    Button,
    /// An endless pile of plates.
    PlatePile,
    /// An endless pile of one ingredient kind.
    Pile(u8),
}

impl Tile {
    /// The grid character of a tile (`O` piles come back as `0`).
    pub fn to_char(self) -> char {
        match self {
            Tile::Floor => ' ',
            Tile::Counter => 'W',
            Tile::Goal => 'X',
            Tile::Pot => 'P',
            Tile::RecipeIndicator => 'R',
            Tile::Button => 'L',
            Tile::PlatePile => 'B',
            Tile::Pile(k) => (b'0' + k) as char,
        }
    }

    /// Agents can stand here.
    pub fn is_floor(self) -> bool {
        self == Tile::Floor
    }

    /// A short noun for prompts: "counter", "pot", "tomato pile", ….
    pub fn noun(self, names: &[String]) -> String {
        match self {
            Tile::Floor => "floor".into(),
            Tile::Counter => "counter".into(),
            Tile::Goal => "delivery window".into(),
            Tile::Pot => "pot".into(),
            Tile::RecipeIndicator => "recipe indicator".into(),
            Tile::Button => "recipe button".into(),
            Tile::PlatePile => "plate pile".into(),
            Tile::Pile(k) => format!("{} pile", super::item::kind_name(names, k)),
        }
    }
}

/// A layout that could not be read; `line` is 1-based in its source.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{source_name}:{line}: {message}")]
pub struct LayoutError {
    /// Where the text came from (a file path, or `builtin:NAME`).
    pub source_name: String,
    /// 1-based line of the problem (0 when it concerns the whole layout).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// A V2 kitchen: the static grid, where agents start, and what may be ordered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The layout's name.
    pub name: String,
    /// Columns.
    pub width: u8,
    /// Rows.
    pub height: u8,
    /// Row-major tiles, `y * width + x`.
    pub tiles: Vec<Tile>,
    /// Each agent's start cell, in agent order.
    pub starts: Vec<Pos>,
    /// Ingredient kinds (highest pile index + 1).
    pub num_kinds: u8,
    /// The recipes an episode may draw, in draw order.
    pub recipes: Vec<Recipe>,
    /// Names of the ingredient kinds, by index.
    pub ingredient_names: Vec<String>,
    /// The grid rows as written (with `A` for starts).
    pub grid: Vec<String>,
    /// Per cell: the id of its room (connected floor area), or `u16::MAX` for non-floor.
    pub room: Vec<u16>,
    /// Whether the file asked for `recipes: any`.
    pub any_recipe: bool,
    /// Whether agents are numbered from the last `A` (`agent_order: reversed`).
    pub reversed_agents: bool,
}

/// The built-in layouts: the OvercookedV2 paper's, as JaxMARL ships them.
pub const BUILTIN: &[(&str, &str)] = &[
    ("cramped_room", include_str!("../../../../layouts/v2/cramped_room.layout")),
    ("asymm_advantages", include_str!("../../../../layouts/v2/asymm_advantages.layout")),
    ("coord_ring", include_str!("../../../../layouts/v2/coord_ring.layout")),
    ("forced_coord", include_str!("../../../../layouts/v2/forced_coord.layout")),
    ("counter_circuit", include_str!("../../../../layouts/v2/counter_circuit.layout")),
    ("cramped_room_v2", include_str!("../../../../layouts/v2/cramped_room_v2.layout")),
    ("asymm_advantages_recipes_center", include_str!("../../../../layouts/v2/asymm_advantages_recipes_center.layout")),
    ("asymm_advantages_recipes_right", include_str!("../../../../layouts/v2/asymm_advantages_recipes_right.layout")),
    ("asymm_advantages_recipes_left", include_str!("../../../../layouts/v2/asymm_advantages_recipes_left.layout")),
    ("two_rooms", include_str!("../../../../layouts/v2/two_rooms.layout")),
    ("two_rooms_both", include_str!("../../../../layouts/v2/two_rooms_both.layout")),
    ("long_room", include_str!("../../../../layouts/v2/long_room.layout")),
    ("fun_coordination", include_str!("../../../../layouts/v2/fun_coordination.layout")),
    ("more_fun_coordination", include_str!("../../../../layouts/v2/more_fun_coordination.layout")),
    ("fun_symmetries", include_str!("../../../../layouts/v2/fun_symmetries.layout")),
    ("fun_symmetries_plates", include_str!("../../../../layouts/v2/fun_symmetries_plates.layout")),
    ("fun_symmetries1", include_str!("../../../../layouts/v2/fun_symmetries1.layout")),
    ("grounded_coord_simple", include_str!("../../../../layouts/v2/grounded_coord_simple.layout")),
    ("grounded_coord_ring", include_str!("../../../../layouts/v2/grounded_coord_ring.layout")),
    ("test_time_simple", include_str!("../../../../layouts/v2/test_time_simple.layout")),
    ("test_time_wide", include_str!("../../../../layouts/v2/test_time_wide.layout")),
    ("demo_cook_simple", include_str!("../../../../layouts/v2/demo_cook_simple.layout")),
    ("demo_cook_wide", include_str!("../../../../layouts/v2/demo_cook_wide.layout")),
];

impl Layout {
    /// A built-in layout by name.
    pub fn builtin(name: &str) -> Option<Layout> {
        let (_, text) = BUILTIN.iter().find(|(n, _)| *n == name)?;
        // The embedded files are parsed by the test suite, so this cannot fail in practice.
        Layout::parse(text, &format!("builtin:{name}")).ok()
    }

    /// The names of the built-in layouts, in the paper's order.
    pub fn builtin_names() -> impl Iterator<Item = &'static str> {
        BUILTIN.iter().map(|(n, _)| *n)
    }

    /// Reads a layout in the V2 format; `source_name` names it in errors.
    pub fn parse(text: &str, source_name: &str) -> Result<Layout, LayoutError> {
        let err = |line: usize, message: String| LayoutError { source_name: source_name.to_string(), line, message };
        let mut name = None;
        let mut recipes_spec = None;
        let mut names_spec = None;
        let mut reversed = false;
        let mut grid: Vec<(usize, String)> = Vec::new();
        let mut in_grid = false;
        for (i, raw) in text.lines().enumerate() {
            let line_no = i + 1;
            let line = raw.trim_end_matches('\r');
            if in_grid {
                if !line.trim().is_empty() {
                    grid.push((line_no, line.to_string()));
                }
                continue;
            }
            let t = line.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let Some((key, value)) = t.split_once(':') else {
                return Err(err(line_no, format!("expected `key: value` or `grid:`, found {t:?}")));
            };
            let value = value.split('#').next().unwrap_or("").trim();
            match key.trim() {
                "name" => name = Some(value.to_string()),
                "recipes" => recipes_spec = Some((line_no, value.to_string())),
                "ingredients" => names_spec = Some((line_no, value.to_string())),
                "agent_order" => match value {
                    "reversed" => reversed = true,
                    "reading" | "" => reversed = false,
                    other => {
                        return Err(err(
                            line_no,
                            format!("agent_order must be `reading` or `reversed`, not {other:?}"),
                        ));
                    }
                },
                "grid" => {
                    if !value.is_empty() {
                        return Err(err(line_no, "the grid starts on the line after `grid:`".into()));
                    }
                    in_grid = true;
                }
                other => {
                    return Err(err(
                        line_no,
                        format!("unknown key {other:?} (known: name, recipes, ingredients, agent_order, grid)"),
                    ));
                }
            }
        }
        if grid.is_empty() {
            return Err(err(0, "no `grid:` section (or it is empty)".into()));
        }
        let name = name.unwrap_or_else(|| {
            source_name.rsplit('/').next().unwrap_or(source_name).trim_end_matches(".layout").to_string()
        });
        let width = grid[0].1.chars().count();
        let height = grid.len();
        if width > u8::MAX as usize || height > u8::MAX as usize {
            return Err(err(grid[0].0, format!("the grid is {width}×{height}; at most 255×255")));
        }
        let mut tiles = Vec::with_capacity(width * height);
        let mut starts = Vec::new();
        let mut num_kinds = 0u8;
        let mut has_indicator = false;
        for (y, (line_no, row)) in grid.iter().enumerate() {
            let n = row.chars().count();
            if n != width {
                return Err(err(*line_no, format!("row {} has {n} cells; the first row has {width}", y + 1)));
            }
            for (x, c) in row.chars().enumerate() {
                let tile = match c {
                    ' ' | 'A' => Tile::Floor,
                    'W' => Tile::Counter,
                    'X' => Tile::Goal,
                    'B' => Tile::PlatePile,
                    'P' => Tile::Pot,
                    'R' => Tile::RecipeIndicator,
                    'L' => Tile::Button,
                    'O' => Tile::Pile(0),
                    d @ '0'..='9' => Tile::Pile(d as u8 - b'0'),
                    other => {
                        return Err(err(
                            *line_no,
                            format!(
                                "unknown grid character {other:?} at column {} (known: W A X B P R L O 0-9 and space)",
                                x + 1
                            ),
                        ));
                    }
                };
                let on_border = x == 0 || y == 0 || x + 1 == width || y + 1 == height;
                if tile == Tile::Floor && on_border {
                    return Err(err(
                        *line_no,
                        format!("floor on the border at column {}: agents could face off the grid", x + 1),
                    ));
                }
                if c == 'A' {
                    starts.push(Pos::new(x as u8, y as u8));
                }
                if let Tile::Pile(k) = tile {
                    num_kinds = num_kinds.max(k + 1);
                }
                has_indicator |= tile == Tile::RecipeIndicator;
                tiles.push(tile);
            }
        }
        if starts.is_empty() {
            return Err(err(grid[0].0, "no agent start (`A`) in the grid".into()));
        }
        if starts.len() > MAX_AGENTS {
            return Err(err(grid[0].0, format!("{} agents; at most {MAX_AGENTS}", starts.len())));
        }
        if num_kinds == 0 {
            return Err(err(grid[0].0, "no ingredient pile (`0`-`9` or `O`) in the grid".into()));
        }
        if reversed {
            starts.reverse();
        }
        let mut ingredient_names: Vec<String> =
            DEFAULT_INGREDIENT_NAMES.iter().take(num_kinds as usize).map(|s| s.to_string()).collect();
        if let Some((line_no, spec)) = names_spec {
            let given: Vec<String> =
                spec.split(',').map(|s| s.trim().to_lowercase()).filter(|s| !s.is_empty()).collect();
            if given.len() != num_kinds as usize {
                return Err(err(line_no, format!("{} ingredient names for {num_kinds} kinds", given.len())));
            }
            for (i, n) in given.iter().enumerate() {
                if !n.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                    return Err(err(line_no, format!("ingredient name {n:?}: use letters and '_' only")));
                }
                if given[..i].contains(n) {
                    return Err(err(line_no, format!("ingredient name {n:?} given twice")));
                }
            }
            ingredient_names = given;
        }
        let (recipes, any_recipe) = match recipes_spec {
            None => {
                return Err(err(0, "no `recipes:` line (write `recipes: any` to draw from every combination)".into()));
            }
            Some((line_no, spec)) if spec == "any" => {
                if !has_indicator {
                    return Err(err(
                        line_no,
                        "`recipes: any` needs a recipe indicator (`R`) in the grid; list the recipes instead".into(),
                    ));
                }
                (Recipe::all(num_kinds), true)
            }
            Some((line_no, spec)) => {
                let mut out = Vec::new();
                for part in spec.split(';').map(str::trim).filter(|p| !p.is_empty()) {
                    let mut kinds = Vec::new();
                    for word in part.split([' ', ',']).filter(|w| !w.is_empty()) {
                        let k = match word.parse::<u8>() {
                            Ok(k) => k,
                            Err(_) => match ingredient_names.iter().position(|n| n == &word.to_lowercase()) {
                                Some(k) => k as u8,
                                None => {
                                    return Err(err(line_no, format!("recipe {part:?}: unknown ingredient {word:?}")));
                                }
                            },
                        };
                        if k >= num_kinds {
                            return Err(err(
                                line_no,
                                format!("recipe {part:?}: ingredient {k} has no pile in the grid"),
                            ));
                        }
                        kinds.push(k);
                    }
                    let Ok(three) = <[u8; 3]>::try_from(kinds.as_slice()) else {
                        return Err(err(
                            line_no,
                            format!("recipe {part:?} has {} ingredients; recipes have 3", kinds.len()),
                        ));
                    };
                    out.push(Recipe::new(three));
                }
                if out.is_empty() {
                    return Err(err(line_no, "no recipe listed".into()));
                }
                (out, false)
            }
        };
        let rows: Vec<String> = grid.into_iter().map(|(_, r)| r).collect();
        let room = rooms(&tiles, width, height);
        Ok(Layout {
            name,
            width: width as u8,
            height: height as u8,
            tiles,
            starts,
            num_kinds,
            recipes,
            ingredient_names,
            grid: rows,
            room,
            any_recipe,
            reversed_agents: reversed,
        })
    }

    /// Agents in this layout.
    pub fn num_agents(&self) -> usize {
        self.starts.len()
    }

    /// Cells in the grid.
    pub fn cells(&self) -> usize {
        self.tiles.len()
    }

    /// The cell index of `p` (`y * width + x`), or `None` off the grid.
    pub fn index(&self, p: Pos) -> Option<usize> {
        (p.x < self.width && p.y < self.height).then(|| p.y as usize * self.width as usize + p.x as usize)
    }

    /// The position of cell index `i`.
    pub fn pos_of(&self, i: usize) -> Pos {
        Pos::new((i % self.width as usize) as u8, (i / self.width as usize) as u8)
    }

    /// The tile at `p` (a counter off the grid, which never happens for a neighbour of floor).
    pub fn tile(&self, p: Pos) -> Tile {
        self.index(p).map_or(Tile::Counter, |i| self.tiles[i])
    }

    /// Every cell holding `tile`, in reading order.
    pub fn cells_of(&self, tile: Tile) -> impl Iterator<Item = Pos> + '_ {
        self.tiles.iter().enumerate().filter(move |(_, t)| **t == tile).map(|(i, _)| self.pos_of(i))
    }

    /// The cells of every pot, in reading order.
    pub fn pots(&self) -> Vec<Pos> {
        self.cells_of(Tile::Pot).collect()
    }

    /// The room id of a floor cell (`None` for anything else).
    pub fn room_of(&self, p: Pos) -> Option<u16> {
        self.index(p).map(|i| self.room[i]).filter(|&r| r != u16::MAX)
    }

    /// Whether the layout has a recipe indicator or a button recipe indicator.
    pub fn shows_recipe(&self) -> bool {
        self.tiles.iter().any(|t| matches!(t, Tile::RecipeIndicator | Tile::Button))
    }

    /// The layout in the V2 format (parsing it gives the same layout back).
    pub fn to_text(&self) -> String {
        let mut s = format!("name: {}\n", self.name);
        if self.any_recipe {
            s.push_str("recipes: any\n");
        } else {
            let list: Vec<String> =
                self.recipes.iter().map(|r| r.0.iter().map(|k| k.to_string()).collect::<Vec<_>>().join(" ")).collect();
            s.push_str(&format!("recipes: {}\n", list.join("; ")));
        }
        s.push_str(&format!("ingredients: {}\n", self.ingredient_names.join(", ")));
        if self.reversed_agents {
            s.push_str("agent_order: reversed\n");
        }
        s.push_str("grid:\n");
        for r in &self.grid {
            s.push_str(r);
            s.push('\n');
        }
        s
    }
}

/// Connected floor areas (4-neighbour), one id per area in reading order of first cell.
fn rooms(tiles: &[Tile], width: usize, height: usize) -> Vec<u16> {
    let mut room = vec![u16::MAX; tiles.len()];
    let mut next = 0u16;
    let mut stack = Vec::new();
    for start in 0..tiles.len() {
        if !tiles[start].is_floor() || room[start] != u16::MAX {
            continue;
        }
        room[start] = next;
        stack.push(start);
        while let Some(i) = stack.pop() {
            let (x, y) = (i % width, i / width);
            let mut visit = |j: usize| {
                if tiles[j].is_floor() && room[j] == u16::MAX {
                    room[j] = next;
                    stack.push(j);
                }
            };
            if x > 0 {
                visit(i - 1);
            }
            if x + 1 < width {
                visit(i + 1);
            }
            if y > 0 {
                visit(i - width);
            }
            if y + 1 < height {
                visit(i + width);
            }
        }
        next += 1;
    }
    room
}

/// A layout spec of the command line: `v2:NAME` (built-in) or `v2:PATH` (a `.layout` file's
/// text already read by the caller). Returns the part after `v2:`, or `None` for classic specs.
pub fn strip_v2_prefix(spec: &str) -> Option<&str> {
    spec.strip_prefix("v2:")
}
