//! The lossless grid encoding of a state: one stack of per-cell channels per player,
//! with the channels of the 2019 Overcooked-AI work (Carroll et al.) so that
//! convolutional policies and code written for that encoding read ours unchanged.
//!
//! The tensor of player `seat` has shape `(width, height, channels)` (x first, as the
//! original's arrays), stored C-order in a flat slice: cell `(x, y)` channel `c` is at
//! `(x * height + y) * channels + c`. Channels, in order:
//!
//! | index | name | value on a cell |
//! |---|---|---|
//! | 0 | `player_self_loc` | 1 where the encoded player stands |
//! | 1 | `player_other_loc` | 1 where the teammate stands |
//! | 2..6 | `player_self_orientation_{N,S,E,W}` | 1 on the encoded player's cell, in the channel of its facing |
//! | 6..10 | `player_other_orientation_{N,S,E,W}` | the same for the teammate |
//! | 10 | `pot_loc` | 1 on pots |
//! | 11 | `counter_loc` | 1 on counters |
//! | 12 | `onion_disp_loc` | 1 on onion dispensers |
//! | 13 | `dish_disp_loc` | 1 on dish dispensers |
//! | 14 | `serve_loc` | 1 on serving windows |
//! | 15 | `onions_in_pot` | onions in the pot's soup (idle, cooking or ready) |
//! | 16 | `onions_cook_time` | ticks the pot's soup has cooked (0 while idle) |
//! | 17 | `onion_soup_loc` | 1 where a soup lies outside a pot (on a counter or in a hand) |
//! | 18 | `dishes` | 1 where an empty dish lies or is held |
//! | 19 | `onions` | 1 where a raw onion lies or is held |
//!
//! A held object is placed on its holder's cell, as in the original. On a layout with
//! tomato dispensers three channels follow, so tomato kitchens stay lossless:
//! 20 `tomato_disp_loc`, 21 `tomatoes_in_pot`, 22 `tomatoes` (raw tomatoes lying or held).
//! The 2019 layouts have none, so their tensors have exactly the original 20 channels.
//!
//! Pure: the static channels are computed once per layout ([`Encoder::new`]); encoding a
//! state writes into a caller's buffer and allocates nothing.

use super::State;
use super::layout::{Layout, Tile};
use super::pieces::{Ingredient, Object, Pos};

/// Channels of the 2019 encoding (layouts without tomatoes).
pub const BASE_CHANNELS: usize = 20;
/// Channels added on layouts with a tomato dispenser.
pub const TOMATO_CHANNELS: usize = 3;

/// The names of the 2019 channels, in order (see the module documentation).
pub const CHANNEL_NAMES: [&str; BASE_CHANNELS] = [
    "player_self_loc",
    "player_other_loc",
    "player_self_orientation_north",
    "player_self_orientation_south",
    "player_self_orientation_east",
    "player_self_orientation_west",
    "player_other_orientation_north",
    "player_other_orientation_south",
    "player_other_orientation_east",
    "player_other_orientation_west",
    "pot_loc",
    "counter_loc",
    "onion_disp_loc",
    "dish_disp_loc",
    "serve_loc",
    "onions_in_pot",
    "onions_cook_time",
    "onion_soup_loc",
    "dishes",
    "onions",
];

/// The names of the tomato channels, appended on layouts with a tomato dispenser.
pub const TOMATO_CHANNEL_NAMES: [&str; TOMATO_CHANNELS] = ["tomato_disp_loc", "tomatoes_in_pot", "tomatoes"];

const SELF_LOC: usize = 0;
const OTHER_LOC: usize = 1;
const SELF_DIR: usize = 2;
const OTHER_DIR: usize = 6;
const POT_LOC: usize = 10;
const COUNTER_LOC: usize = 11;
const ONION_DISP: usize = 12;
const DISH_DISP: usize = 13;
const SERVE_LOC: usize = 14;
const ONIONS_IN_POT: usize = 15;
const COOK_TIME: usize = 16;
const SOUP_LOC: usize = 17;
const DISHES: usize = 18;
const ONIONS: usize = 19;
const TOMATO_DISP: usize = 20;
const TOMATOES_IN_POT: usize = 21;
const TOMATOES: usize = 22;

/// The per-layout part of the encoding: shape and the static channels.
#[derive(Clone, Debug)]
pub struct Encoder {
    width: usize,
    height: usize,
    channels: usize,
    /// The terrain channels of every cell, ready to copy into an output.
    statics: Vec<f32>,
}

/// A buffer of the wrong length was passed to [`Encoder::encode`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("encoding buffer holds {got} numbers, the layout's encoding needs {want}")]
pub struct BufferSizeError {
    /// Length of the buffer passed.
    pub got: usize,
    /// [`Encoder::len`].
    pub want: usize,
}

impl Encoder {
    /// The encoder of `layout`: 20 channels, 23 when the layout has a tomato dispenser.
    pub fn new(layout: &Layout) -> Encoder {
        let channels = if layout.tomato_sources.is_empty() { BASE_CHANNELS } else { BASE_CHANNELS + TOMATO_CHANNELS };
        let (width, height) = (layout.width, layout.height);
        let mut statics = vec![0f32; width * height * channels];
        for y in 0..height {
            for x in 0..width {
                let c = match layout.tiles[y * width + x] {
                    Tile::Pot => POT_LOC,
                    Tile::Counter => COUNTER_LOC,
                    Tile::OnionSource => ONION_DISP,
                    Tile::DishSource => DISH_DISP,
                    Tile::Serve => SERVE_LOC,
                    Tile::TomatoSource => TOMATO_DISP,
                    Tile::Floor => continue,
                };
                statics[(x * height + y) * channels + c] = 1.0;
            }
        }
        Encoder { width, height, channels, statics }
    }

    /// `(width, height, channels)`.
    pub fn shape(&self) -> [usize; 3] {
        [self.width, self.height, self.channels]
    }

    /// Numbers in one player's tensor: width × height × channels.
    pub fn len(&self) -> usize {
        self.statics.len()
    }

    /// True only for a grid with no cells (which the layout parser never produces).
    pub fn is_empty(&self) -> bool {
        self.statics.is_empty()
    }

    /// The channel names of this layout's tensors, in order.
    pub fn channel_names(&self) -> Vec<&'static str> {
        CHANNEL_NAMES.iter().chain(TOMATO_CHANNEL_NAMES.iter()).take(self.channels).copied().collect()
    }

    fn at(&self, p: Pos, c: usize) -> usize {
        (p.x as usize * self.height + p.y as usize) * self.channels + c
    }

    /// Writes player `seat`'s tensor of `state` into `out` (length [`Encoder::len`]),
    /// overwriting every number. `state` must belong to the layout this encoder was built for.
    pub fn encode(&self, state: &State, seat: usize, out: &mut [f32]) -> Result<(), BufferSizeError> {
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
        for p in &state.players {
            if let Some(o) = &p.held {
                self.put_loose(out, p.pos, o);
            }
        }
        for (i, o) in state.objects.iter().enumerate() {
            let Some(o) = o else { continue };
            let p = Pos::new((i % self.width) as u8, (i / self.width) as u8);
            match o {
                Object::Soup(s) if state_is_pot(self, p) => {
                    out[self.at(p, ONIONS_IN_POT)] += s.num_onions() as f32;
                    out[self.at(p, COOK_TIME)] += s.cooking_tick.max(0) as f32;
                    if self.channels > BASE_CHANNELS {
                        out[self.at(p, TOMATOES_IN_POT)] += s.num_tomatoes() as f32;
                    }
                }
                _ => self.put_loose(out, p, o),
            }
        }
        Ok(())
    }

    /// An object outside a pot: on a counter or in a hand.
    fn put_loose(&self, out: &mut [f32], p: Pos, o: &Object) {
        let c = match o {
            Object::Soup(_) => SOUP_LOC,
            Object::Dish => DISHES,
            Object::Ingredient(Ingredient::Onion) => ONIONS,
            Object::Ingredient(Ingredient::Tomato) if self.channels > BASE_CHANNELS => TOMATOES,
            // A tomato on a layout without tomato dispensers (only possible in a hand-made
            // state): the nearest 2019 channel is the raw-ingredient one.
            Object::Ingredient(Ingredient::Tomato) => ONIONS,
        };
        out[self.at(p, c)] += 1.0;
    }
}

/// Whether cell `p` is a pot, read off the static pot channel.
fn state_is_pot(e: &Encoder, p: Pos) -> bool {
    e.statics[e.at(p, POT_LOC)] == 1.0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::env::{Action, Dir, Soup};

    fn cell(e: &Encoder, buf: &[f32], x: u8, y: u8) -> Vec<f32> {
        let i = e.at(Pos::new(x, y), 0);
        buf[i..i + e.channels].to_vec()
    }

    #[test]
    fn cramped_room_start_has_terrain_and_players() {
        let l = Layout::builtin("cramped_room").unwrap();
        let e = Encoder::new(&l);
        assert_eq!(e.shape(), [l.width, l.height, 20]);
        let s = l.start_state();
        let mut buf = vec![f32::NAN; e.len()];
        e.encode(&s, 0, &mut buf).unwrap();
        // Every terrain cell is in exactly one terrain channel, floor in none.
        for y in 0..l.height {
            for x in 0..l.width {
                let c = cell(&e, &buf, x as u8, y as u8);
                let terrain: f32 = c[POT_LOC..=SERVE_LOC].iter().sum();
                assert_eq!(terrain, if l.tiles[y * l.width + x] == Tile::Floor { 0.0 } else { 1.0 });
            }
        }
        let p0 = l.starts[0];
        let p1 = l.starts[1];
        assert_eq!(cell(&e, &buf, p0.x, p0.y)[SELF_LOC], 1.0);
        assert_eq!(cell(&e, &buf, p0.x, p0.y)[SELF_DIR + Dir::North.index()], 1.0);
        assert_eq!(cell(&e, &buf, p1.x, p1.y)[OTHER_LOC], 1.0);
        // Seat 1's view swaps the player channels.
        let mut b1 = vec![0f32; e.len()];
        e.encode(&s, 1, &mut b1).unwrap();
        assert_eq!(cell(&e, &b1, p1.x, p1.y)[SELF_LOC], 1.0);
        assert_eq!(cell(&e, &b1, p0.x, p0.y)[OTHER_LOC], 1.0);
        assert_eq!(buf.iter().sum::<f32>(), b1.iter().sum::<f32>());
    }

    #[test]
    fn pots_held_objects_and_counters_are_encoded() {
        let l = Layout::builtin("cramped_room").unwrap();
        let e = Encoder::new(&l);
        let mut s = l.start_state();
        let pot = l.pots[0];
        let soup = Soup::with_ingredients(&[Ingredient::Onion; 3], 7, 20).unwrap();
        s.objects[l.index(pot).unwrap()] = Some(Object::Soup(soup));
        s.players[0].held = Some(Object::Dish);
        s.players[1].held = Some(Object::Soup(soup));
        let counter = l.counters[0];
        s.objects[l.index(counter).unwrap()] = Some(Object::ONION);
        let mut buf = vec![0f32; e.len()];
        e.encode(&s, 0, &mut buf).unwrap();
        assert_eq!(cell(&e, &buf, pot.x, pot.y)[ONIONS_IN_POT], 3.0);
        assert_eq!(cell(&e, &buf, pot.x, pot.y)[COOK_TIME], 7.0);
        let (p0, p1) = (s.players[0].pos, s.players[1].pos);
        assert_eq!(cell(&e, &buf, p0.x, p0.y)[DISHES], 1.0);
        assert_eq!(cell(&e, &buf, p1.x, p1.y)[SOUP_LOC], 1.0);
        assert_eq!(cell(&e, &buf, counter.x, counter.y)[ONIONS], 1.0);
        assert_eq!(e.encode(&s, 0, &mut [0.0; 3]), Err(BufferSizeError { got: 3, want: e.len() }));
    }

    #[test]
    fn the_encoding_tells_states_apart_along_an_episode() {
        // Lossless on the fields the game uses: two states of a played episode that
        // differ encode differently.
        let l = Layout::builtin("cramped_room").unwrap();
        let e = Encoder::new(&l);
        let mut s = l.start_state();
        let script = "WNIEESISWWNIEESISWWNIEESISXXXXXXXXXXXXXXXXXXXXNEESI";
        let mut seen: Vec<(State, Vec<f32>)> = Vec::new();
        for c in script.chars() {
            let a = Action::from_letter(c).unwrap();
            l.step(&mut s, [a, Action::Stay]);
            let mut buf = vec![0f32; e.len()];
            e.encode(&s, 0, &mut buf).unwrap();
            for (other, ob) in &seen {
                let same_game = other.players == s.players && other.objects == s.objects;
                assert_eq!(same_game, *ob == buf, "at t={}", s.timestep);
            }
            seen.push((s.clone(), buf));
        }
    }
}
