//! What each agent can see: the view window ([`visible`]) and the layered observation
//! tensor JaxMARL gives learning agents ([`encode`]), built layer for layer the same way so
//! the trace digests match (see tests/fixtures/v2_traces/SCHEMA.md).
//!
//! With a view radius `r`, an agent sees the (2r+1)×(2r+1) square centred on itself;
//! everything outside it is zero in the tensor and absent from the agent's scene text.
//!
//! Layers, for `n` ingredient kinds (C = 25 + 5n, +1 with the delivery indicator):
//! the agent itself (position, 4 facing layers, held item: plate, cooked, n counts), the
//! other agents summed the same way, 6 static layers (counter, delivery, pot, recipe
//! indicator, button, plate pile), n pile layers, the items on cells (plate, cooked, n
//! counts), the recipe where it is shown (recipe indicators, lit buttons), the pot timers,
//! and optionally a layer lighting the delivery cells after a correct delivery.

use super::{Item, Layout, Settings, State, Tile};
use proagent_overcooked::env::Pos;
use sha2::{Digest, Sha256};

/// Whether an agent at `viewer` sees cell `p` under `settings`.
pub fn visible(settings: &Settings, viewer: Pos, p: Pos) -> bool {
    match settings.view_radius {
        None => true,
        Some(r) => {
            let r = r as i32;
            (viewer.x as i32 - p.x as i32).abs() <= r && (viewer.y as i32 - p.y as i32).abs() <= r
        }
    }
}

/// Layers per cell for a layout under `settings`.
pub fn channels(layout: &Layout, settings: &Settings) -> usize {
    25 + 5 * layout.num_kinds as usize + usize::from(settings.indicate_successful_delivery)
}

/// The tensor's shape (rows, columns, layers) for one agent.
pub fn shape(layout: &Layout, settings: &Settings) -> (usize, usize, usize) {
    let c = channels(layout, settings);
    match settings.view_radius {
        Some(r) => (2 * r as usize + 1, 2 * r as usize + 1, c),
        None => (layout.height as usize, layout.width as usize, c),
    }
}

/// Writes `item`'s layers (plate, cooked, one count per kind) from `out[0]`.
fn item_layers(item: Item, kinds: u8, out: &mut [i32]) {
    out[0] = i32::from(item.has_plate());
    out[1] = i32::from(item.is_cooked());
    for k in 0..kinds {
        out[2 + k as usize] = item.count(k) as i32;
    }
}

/// Agent `me`'s observation, row-major and channel-last, into `out` (resized to fit).
pub fn encode(layout: &Layout, settings: &Settings, state: &State, me: usize, out: &mut Vec<i32>) {
    let (h, w, c) = shape(layout, settings);
    out.clear();
    out.resize(h * w * c, 0);
    let kinds = layout.num_kinds;
    let n = kinds as usize;
    let per_agent = 7 + n;
    let static_at = 2 * per_agent;
    let piles_at = static_at + 6;
    let items_at = piles_at + n;
    let recipe_at = items_at + 2 + n;
    let timer_at = recipe_at + 2 + n;
    let origin = state.agents.get(me).map(|a| a.pos);
    // Grid cell → offset in `out`, or None when outside the window.
    let slot = |p: Pos| -> Option<usize> {
        let (row, col) = match (settings.view_radius, origin) {
            (Some(r), Some(o)) => {
                let row = p.y as i32 - o.y as i32 + r as i32;
                let col = p.x as i32 - o.x as i32 + r as i32;
                if row < 0 || col < 0 || row >= h as i32 || col >= w as i32 {
                    return None;
                }
                (row as usize, col as usize)
            }
            _ => (p.y as usize, p.x as usize),
        };
        Some((row * w + col) * c)
    };
    for (i, a) in state.agents.iter().enumerate() {
        let Some(s) = slot(a.pos) else { continue };
        let base = s + if i == me { 0 } else { per_agent };
        out[base] += 1;
        out[base + 1 + a.dir.index()] += 1;
        let mut inv = [0i32; 2 + super::MAX_KINDS];
        item_layers(a.held, kinds, &mut inv);
        for (k, v) in inv[..2 + n].iter().enumerate() {
            out[base + 5 + k] += v;
        }
    }
    for idx in 0..layout.cells() {
        let p = layout.pos_of(idx);
        let Some(s) = slot(p) else { continue };
        let tile = layout.tiles[idx];
        let static_layer = match tile {
            Tile::Counter => Some(0),
            Tile::Goal => Some(1),
            Tile::Pot => Some(2),
            Tile::RecipeIndicator => Some(3),
            Tile::Button => Some(4),
            Tile::PlatePile => Some(5),
            _ => None,
        };
        if let Some(l) = static_layer {
            out[s + static_at + l] = 1;
        }
        if let Tile::Pile(k) = tile {
            out[s + piles_at + k as usize] = 1;
        }
        item_layers(state.items[idx], kinds, &mut out[s + items_at..s + items_at + 2 + n]);
        if state.shows_recipe_at(layout, p) {
            item_layers(state.recipe.contents(), kinds, &mut out[s + recipe_at..s + recipe_at + 2 + n]);
        }
        if tile == Tile::Pot {
            out[s + timer_at] = state.timers[idx] as i32;
        }
        if settings.indicate_successful_delivery && tile == Tile::Goal {
            out[s + timer_at + 1] = i32::from(state.new_correct_delivery);
        }
    }
}

/// The trace digest of an observation: the first 16 hex digits of the SHA-256 of its
/// values as little-endian 32-bit integers.
pub fn digest(values: &[i32]) -> String {
    let mut h = Sha256::new();
    for v in values {
        h.update(v.to_le_bytes());
    }
    let full = h.finalize();
    hex::encode(&full[..8])
}
