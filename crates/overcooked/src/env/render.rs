//! ASCII rendering in the style of the ProAgent / overcooked_ai logs.
//!
//! Every cell is a fixed-width field. Players are an arrow for their facing,
//! their index, and what they hold (`o` onion, `t` tomato, `d` dish, or the soup);
//! soups are written `{øøø 12}` with one `ø` per onion (`†` per tomato) and the
//! cooking tick, or `{øøø ✓}` when ready.

use super::{Ingredient, Layout, Object, Soup, State, Tile};
use std::fmt::Write;

const CELL: usize = 9;

fn soup_text(s: &Soup) -> String {
    let mut t = String::from("{");
    for i in s.ingredients() {
        t.push(match i {
            Ingredient::Onion => 'ø',
            Ingredient::Tomato => '†',
        });
    }
    if s.is_ready() {
        t.push_str(" ✓");
    } else if s.is_cooking() {
        let _ = write!(t, " {}", s.cooking_tick);
    }
    t.push('}');
    t
}

/// Short text for an object: `o`, `t`, `d` or the soup.
pub fn object_text(o: &Object) -> String {
    match o {
        Object::Ingredient(Ingredient::Onion) => "o".into(),
        Object::Ingredient(Ingredient::Tomato) => "t".into(),
        Object::Dish => "d".into(),
        Object::Soup(s) => soup_text(s),
    }
}

/// The board as text, one grid row per line, followed by a status line.
pub fn render(layout: &Layout, state: &State) -> String {
    let mut out = String::new();
    for y in 0..layout.height {
        let mut line = String::new();
        for x in 0..layout.width {
            let p = super::Pos::new(x as u8, y as u8);
            let mut cell = String::new();
            if let Some(i) = state.players.iter().position(|pl| pl.pos == p) {
                let pl = &state.players[i];
                cell.push(pl.dir.arrow());
                let _ = write!(cell, "{i}");
                if let Some(o) = &pl.held {
                    cell.push_str(&object_text(o));
                }
            } else {
                let tile = layout.tile(p);
                cell.push(if tile == Tile::Floor { '.' } else { tile.to_char() });
                if let Some(o) = state.object_at(layout, p) {
                    cell.push_str(&object_text(o));
                }
            }
            let width = cell.chars().count();
            line.push_str(&cell);
            line.extend(std::iter::repeat_n(' ', CELL.saturating_sub(width).max(1)));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    let _ = writeln!(out, "t={}", state.timestep);
    out
}

/// What the symbols of [`render`] mean.
pub const LEGEND: &str = "legend: X counter · O onion dispenser · T tomato dispenser · D dish dispenser · P pot · \
S serving counter · . floor\n        ↑0 ↓1 ←0 →1 a player facing that way (its index) · held or lying: o onion, t tomato, \
d dish, {øø† 12} soup (ø onion, † tomato; cooking tick, ✓ ready)\n        \
actions: N north (up) · S south (down) · E east (right) · W west (left) · X stay · I interact";

/// `board` with `panel` beside it: each panel line after the board line of the same
/// index (the board is padded to its widest line, plus a `│` separator). Lines beyond
/// either column are kept.
pub fn beside(board: &str, panel: &[String]) -> String {
    let rows: Vec<&str> = board.lines().collect();
    let width = rows.iter().map(|r| r.chars().count()).max().unwrap_or(0);
    let mut out = String::new();
    for i in 0..rows.len().max(panel.len()) {
        let row = rows.get(i).copied().unwrap_or("");
        match panel.get(i) {
            Some(p) => {
                out.push_str(row);
                out.extend(std::iter::repeat_n(' ', width - row.chars().count()));
                out.push_str("  │ ");
                out.push_str(p);
            }
            None => out.push_str(row),
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panel_goes_beside_the_board_and_legend_names_every_tile() {
        let text = beside("ab\nabcd\n", &["one".into(), "two".into(), "three".into()]);
        assert_eq!(text, "ab    │ one\nabcd  │ two\n      │ three\n");
        assert_eq!(beside("ab\n", &[]), "ab\n");
        for c in ['X', 'O', 'T', 'D', 'P', 'S'] {
            assert!(LEGEND.contains(&format!("{c} ")), "{c}");
        }
    }
}
