//! Pictures of a state as RGB arrays (Gymnasium's `render_mode="rgb_array"`): classic
//! boards are drawn by the viewer's one drawing routine (`web::board::draw`); V2 boards
//! as flat coloured cells (tiles, items, agents with a mark on the side they face).

use plotters::prelude::*;
use proagent::env_v2::{Layout as V2Layout, State as V2State, Tile as V2Tile};
use proagent::web::board::{Overlay, draw, frame_size};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// A classic board, `cell` pixels per grid cell: (pixels, height, width).
pub fn classic_rgb(
    layout: &proagent::env::Layout,
    state: &proagent::env::State,
    cell: u32,
) -> PyResult<(Vec<u8>, usize, usize)> {
    let (w, h) = frame_size(layout, cell, false);
    let mut buf = vec![0u8; (w * h * 3) as usize];
    {
        let area = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
        draw(&area, layout, state, &Overlay::default(), cell)
            .map_err(|e| PyRuntimeError::new_err(format!("drawing the board: {e}")))?;
        area.present().map_err(|e| PyRuntimeError::new_err(format!("drawing the board: {e}")))?;
    }
    Ok((buf, h as usize, w as usize))
}

const AGENTS: [[u8; 3]; 4] = [[0x2f, 0x6b, 0xd8], [0x2a, 0x9d, 0x5c], [0xd8, 0x1b, 0x60], [0x8e, 0x44, 0xad]];

fn tile_color(t: V2Tile) -> [u8; 3] {
    match t {
        V2Tile::Floor => [0xf4, 0xef, 0xe4],
        V2Tile::Counter => [0xc9, 0xa2, 0x6b],
        V2Tile::Goal => [0x8b, 0xc3, 0x4a],
        V2Tile::Pot => [0x45, 0x47, 0x4d],
        V2Tile::RecipeIndicator => [0x6a, 0x5a, 0xcd],
        V2Tile::Button => [0xe0, 0x5a, 0x47],
        V2Tile::PlatePile => [0xfb, 0xfb, 0xfb],
        V2Tile::Pile(k) => [0xe8u8.wrapping_sub(k.wrapping_mul(40)), 0xc5, 0x47u8.wrapping_add(k.wrapping_mul(50))],
    }
}

/// An OvercookedV2 board, `cell` pixels per grid cell: (pixels, height, width).
pub fn v2_rgb(layout: &V2Layout, state: &V2State, cell: u32) -> (Vec<u8>, usize, usize) {
    let c = cell as usize;
    let (w, h) = (layout.width as usize * c, layout.height as usize * c);
    let mut buf = vec![0u8; w * h * 3];
    let mut fill = |x0: usize, y0: usize, x1: usize, y1: usize, rgb: [u8; 3]| {
        for y in y0..y1.min(h) {
            for x in x0..x1.min(w) {
                buf[(y * w + x) * 3..(y * w + x) * 3 + 3].copy_from_slice(&rgb);
            }
        }
    };
    for i in 0..layout.cells() {
        let p = layout.pos_of(i);
        let (x0, y0) = (p.x as usize * c, p.y as usize * c);
        fill(x0, y0, x0 + c, y0 + c, tile_color(layout.tile(p)));
        let item = state.items.get(i).copied().unwrap_or_default();
        if item != proagent::env_v2::Item::EMPTY {
            let rgb = if item.is_cooked() {
                [0xe0, 0x7b, 0x39]
            } else if item.has_plate() {
                [0xff, 0xff, 0xff]
            } else {
                [0xe8, 0xc5, 0x47]
            };
            fill(x0 + c / 4, y0 + c / 4, x0 + 3 * c / 4, y0 + 3 * c / 4, rgb);
        }
    }
    for (k, a) in state.agents.iter().enumerate() {
        let (x0, y0) = (a.pos.x as usize * c, a.pos.y as usize * c);
        fill(x0 + c / 8, y0 + c / 8, x0 + 7 * c / 8, y0 + 7 * c / 8, AGENTS[k % AGENTS.len()]);
        let m = c / 4;
        let (mx, my) = match a.dir {
            proagent::env::Dir::North => (x0 + c / 2 - m / 2, y0 + c / 8),
            proagent::env::Dir::South => (x0 + c / 2 - m / 2, y0 + 7 * c / 8 - m),
            proagent::env::Dir::East => (x0 + 7 * c / 8 - m, y0 + c / 2 - m / 2),
            proagent::env::Dir::West => (x0 + c / 8, y0 + c / 2 - m / 2),
        };
        fill(mx, my, mx + m, my + m, [0x20, 0x20, 0x20]);
        if a.held != proagent::env_v2::Item::EMPTY {
            fill(x0 + 3 * c / 8, y0 + 3 * c / 8, x0 + 5 * c / 8, y0 + 5 * c / 8, [0xff, 0xff, 0xff]);
        }
    }
    (buf, h, w)
}
