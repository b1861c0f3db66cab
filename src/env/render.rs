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
