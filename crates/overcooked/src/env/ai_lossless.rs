//! overcooked_ai 1.x's lossless grid encoding (`OvercookedGridworld.lossless_state_encoding`
//! of overcooked-ai 1.1.0, the version on PyPI): 26 layers per cell, so policies trained
//! on that encoding read ours value for value.
//!
//! The tensor of player `seat` has shape `(width, height, 26)`, indexed `[x][y][c]` as
//! overcooked_ai's arrays are, stored C-order in a flat slice. Layers, in order (the
//! names are overcooked_ai's, as seen by player 0; in player 1's tensor the first ten are
//! its own first, exactly as overcooked_ai orders them):
//!
//! | index | name | value on a cell |
//! |---|---|---|
//! | 0 | `player_0_loc` | 1 where the encoded player stands |
//! | 1 | `player_1_loc` | 1 where the other player stands |
//! | 2..6 | `player_0_orientation_{0..3}` | 1 on the encoded player's cell, in the layer of its facing (N, S, E, W) |
//! | 6..10 | `player_1_orientation_{0..3}` | the same for the other player |
//! | 10..16 | `pot_loc`, `counter_loc`, `onion_disp_loc`, `tomato_disp_loc`, `dish_disp_loc`, `serve_loc` | 1 on that terrain |
//! | 16, 17 | `onions_in_pot`, `tomatoes_in_pot` | ingredients of a soup in a pot that has not started cooking |
//! | 18, 19 | `onions_in_soup`, `tomatoes_in_soup` | ingredients of a cooking or ready soup in a pot, or of a soup outside a pot |
//! | 20 | `soup_cook_time_remaining` | `cook_time − cooking_tick` of a cooking or ready soup in a pot |
//! | 21 | `soup_done` | 1 on a ready soup in a pot, and on every soup outside a pot |
//! | 22, 23, 24 | `dishes`, `onions`, `tomatoes` | 1 where that object lies or is held |
//! | 25 | `urgency` | 1 on every cell once fewer than 40 steps of the horizon remain |
//!
//! A held object counts on its holder's cell. Pure: the terrain layers are computed once
//! per layout ([`AiLossless::new`]); encoding writes into a caller's buffer.

use super::State;
use super::encoding::BufferSizeError;
use super::layout::{Layout, Tile};
use super::pieces::{Ingredient, Object, Pos};

/// Layers of the encoding.
pub const AI_CHANNELS: usize = 26;

/// The layers' names, as overcooked_ai names them for player 0.
pub const AI_CHANNEL_NAMES: [&str; AI_CHANNELS] = [
    "player_0_loc",
    "player_1_loc",
    "player_0_orientation_0",
    "player_0_orientation_1",
    "player_0_orientation_2",
    "player_0_orientation_3",
    "player_1_orientation_0",
    "player_1_orientation_1",
    "player_1_orientation_2",
    "player_1_orientation_3",
    "pot_loc",
    "counter_loc",
    "onion_disp_loc",
    "tomato_disp_loc",
    "dish_disp_loc",
    "serve_loc",
    "onions_in_pot",
    "tomatoes_in_pot",
    "onions_in_soup",
    "tomatoes_in_soup",
    "soup_cook_time_remaining",
    "soup_done",
    "dishes",
    "onions",
    "tomatoes",
    "urgency",
];

/// Steps before the horizon from which the `urgency` layer is lit.
pub const URGENCY_STEPS: u32 = 40;

const SELF_LOC: usize = 0;
const OTHER_LOC: usize = 1;
const SELF_DIR: usize = 2;
const OTHER_DIR: usize = 6;
const ONIONS_IN_POT: usize = 16;
const TOMATOES_IN_POT: usize = 17;
const ONIONS_IN_SOUP: usize = 18;
const TOMATOES_IN_SOUP: usize = 19;
const COOK_REMAINING: usize = 20;
const SOUP_DONE: usize = 21;
const DISHES: usize = 22;
const ONIONS: usize = 23;
const TOMATOES: usize = 24;
const URGENCY: usize = 25;

/// The per-layout part of the encoding: shape and the terrain layers.
#[derive(Clone, Debug)]
pub struct AiLossless {
    width: usize,
    height: usize,
    statics: Vec<f32>,
}

impl AiLossless {
    /// The encoder of `layout`.
    pub fn new(layout: &Layout) -> AiLossless {
        let (width, height) = (layout.width, layout.height);
        let mut statics = vec![0f32; width * height * AI_CHANNELS];
        for y in 0..height {
            for x in 0..width {
                let c = match layout.tiles[y * width + x] {
                    Tile::Pot => 10,
                    Tile::Counter => 11,
                    Tile::OnionSource => 12,
                    Tile::TomatoSource => 13,
                    Tile::DishSource => 14,
                    Tile::Serve => 15,
                    Tile::Floor => continue,
                };
                statics[(x * height + y) * AI_CHANNELS + c] = 1.0;
            }
        }
        AiLossless { width, height, statics }
    }

    /// `(width, height, 26)`.
    pub fn shape(&self) -> [usize; 3] {
        [self.width, self.height, AI_CHANNELS]
    }

    /// Numbers in one player's tensor.
    pub fn len(&self) -> usize {
        self.statics.len()
    }

    /// True only for a grid with no cells (which the layout parser never produces).
    pub fn is_empty(&self) -> bool {
        self.statics.is_empty()
    }

    fn at(&self, p: Pos, c: usize) -> usize {
        (p.x as usize * self.height + p.y as usize) * AI_CHANNELS + c
    }

    /// Writes player `seat`'s tensor of `state` into `out` (length [`AiLossless::len`]),
    /// for an episode of `horizon` steps (the `urgency` layer).
    pub fn encode(&self, state: &State, seat: usize, horizon: u32, out: &mut [f32]) -> Result<(), BufferSizeError> {
        if out.len() != self.len() {
            return Err(BufferSizeError { got: out.len(), want: self.len() });
        }
        out.copy_from_slice(&self.statics);
        let seat = seat.min(1);
        let me = &state.players[seat];
        let mate = &state.players[1 - seat];
        out[self.at(me.pos, SELF_LOC)] = 1.0;
        out[self.at(mate.pos, OTHER_LOC)] = 1.0;
        out[self.at(me.pos, SELF_DIR + me.dir.index())] = 1.0;
        out[self.at(mate.pos, OTHER_DIR + mate.dir.index())] = 1.0;
        if horizon.saturating_sub(state.timestep) < URGENCY_STEPS {
            for cell in out.chunks_mut(AI_CHANNELS) {
                cell[URGENCY] = 1.0;
            }
        }
        for (i, o) in state.objects.iter().enumerate() {
            let Some(o) = o else { continue };
            let p = Pos::new((i % self.width) as u8, (i / self.width) as u8);
            let in_pot = self.statics[self.at(p, 10)] == 1.0;
            self.put(out, p, o, in_pot);
        }
        for p in &state.players {
            if let Some(o) = &p.held {
                self.put(out, p.pos, o, false);
            }
        }
        Ok(())
    }

    fn put(&self, out: &mut [f32], p: Pos, o: &Object, in_pot: bool) {
        match o {
            Object::Soup(s) => {
                let (onions, tomatoes) = (s.num_onions() as f32, s.num_tomatoes() as f32);
                if in_pot && s.is_idle() {
                    out[self.at(p, ONIONS_IN_POT)] += onions;
                    out[self.at(p, TOMATOES_IN_POT)] += tomatoes;
                } else {
                    out[self.at(p, ONIONS_IN_SOUP)] += onions;
                    out[self.at(p, TOMATOES_IN_SOUP)] += tomatoes;
                    if in_pot {
                        out[self.at(p, COOK_REMAINING)] += f32::from(s.cook_time) - f32::from(s.cooking_tick);
                    }
                    if !in_pot || s.is_ready() {
                        out[self.at(p, SOUP_DONE)] += 1.0;
                    }
                }
            }
            Object::Dish => out[self.at(p, DISHES)] += 1.0,
            Object::Ingredient(Ingredient::Onion) => out[self.at(p, ONIONS)] += 1.0,
            Object::Ingredient(Ingredient::Tomato) => out[self.at(p, TOMATOES)] += 1.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::Soup;

    #[test]
    fn cramped_room_layers() {
        let l = Layout::builtin("cramped_room").unwrap();
        let e = AiLossless::new(&l);
        assert_eq!(e.shape(), [5, 4, 26]);
        let mut s = l.start_state();
        let pot = l.pots[0];
        s.objects[l.index(pot).unwrap()] =
            Some(Object::Soup(Soup::with_ingredients(&[Ingredient::Onion; 3], 5, 20).unwrap()));
        s.players[1].held = Some(Object::Soup(Soup::with_ingredients(&[Ingredient::Onion; 3], 20, 20).unwrap()));
        let mut buf = vec![0f32; e.len()];
        e.encode(&s, 1, 400, &mut buf).unwrap();
        let cell = |p: Pos| buf[e.at(p, 0)..e.at(p, 0) + AI_CHANNELS].to_vec();
        assert_eq!(cell(pot)[ONIONS_IN_SOUP], 3.0);
        assert_eq!(cell(pot)[COOK_REMAINING], 15.0);
        assert_eq!(cell(pot)[SOUP_DONE], 0.0);
        let p1 = s.players[1].pos;
        assert_eq!(cell(p1)[SELF_LOC], 1.0);
        assert_eq!(cell(p1)[SOUP_DONE], 1.0);
        assert!(buf.iter().skip(URGENCY).step_by(AI_CHANNELS).all(|&v| v == 0.0));
        s.timestep = 361;
        e.encode(&s, 0, 400, &mut buf).unwrap();
        assert!(buf.iter().skip(URGENCY).step_by(AI_CHANNELS).all(|&v| v == 1.0));
        assert!(e.encode(&s, 0, 400, &mut [0.0; 2]).is_err());
    }
}
