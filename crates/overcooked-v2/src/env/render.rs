//! ASCII board of a V2 state: the grid with agents drawn as their index, then one line per
//! agent, pot, lit indicator and non-empty counter.

use super::{Layout, PotPhase, State, Tile};

/// The board as text (ends with a newline).
pub fn render(layout: &Layout, state: &State) -> String {
    let names = &layout.ingredient_names;
    let mut s = String::new();
    for y in 0..layout.height {
        for x in 0..layout.width {
            let p = proagent_overcooked::env::Pos::new(x, y);
            let ch = match state.agents.iter().position(|a| a.pos == p) {
                Some(i) => std::char::from_digit(i as u32 % 36, 36).unwrap_or('A'),
                None => {
                    let tile = layout.tile(p);
                    if tile == Tile::Counter && !state.item_at(layout, p).is_empty() { '*' } else { tile.to_char() }
                }
            };
            s.push(ch);
        }
        s.push('\n');
    }
    s.push_str(&format!("step {}  recipe: {}\n", state.step, state.recipe.describe(names)));
    for (i, a) in state.agents.iter().enumerate() {
        s.push_str(&format!(
            "agent {i} at ({}, {}) facing {} holds {}\n",
            a.pos.x,
            a.pos.y,
            a.dir.name(),
            a.held.describe(names)
        ));
    }
    for p in layout.pots() {
        let line = match state.pot(layout, p) {
            PotPhase::Idle(c) if c.is_empty() => "empty".to_string(),
            PotPhase::Idle(c) => format!("holds {} (not cooking)", c.ingredient_list(names)),
            PotPhase::Cooking { contents, left } => {
                format!("cooking {} ({left} steps left)", contents.ingredient_list(names))
            }
            PotPhase::Ready(c) => format!("cooked {}", c.ingredient_list(names)),
        };
        s.push_str(&format!("pot ({}, {}): {line}\n", p.x, p.y));
    }
    for p in layout.cells_of(Tile::Button) {
        let t = state.timer_at(layout, p);
        if t > 0 {
            s.push_str(&format!("button ({}, {}) lit for {t} more steps\n", p.x, p.y));
        }
    }
    for i in 0..layout.cells() {
        let p = layout.pos_of(i);
        if layout.tiles[i] == Tile::Counter && !state.items[i].is_empty() {
            s.push_str(&format!("counter ({}, {}): {}\n", p.x, p.y, state.items[i].describe(names)));
        }
    }
    s
}
