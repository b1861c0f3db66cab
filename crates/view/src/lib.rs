//! proagent-view: how every game looks. One drawing interface ([`board::Board`]) with the
//! frame drawn around it once (status line, hand-over marks, one player's view), implemented
//! for classic Overcooked and OvercookedV2 ([`board`]), the card game ([`hanabi`]) and the maze games
//! CollabCapture and CollabEscape ([`rooms`]), the text side panel of a printed board
//! ([`panel`]), and the encoders of a frame or an episode as
//! SVG, PNG and animated GIF.
//!
//! Guarantees: pure (no I/O beyond writing the encoded bytes to the file asked for) and
//! deterministic: the same game, state and overlay give the same picture. The command line
//! (`render`, `show`), the web server and the Python bindings all draw through this crate.

#![warn(missing_docs)]
#![allow(clippy::needless_range_loop, clippy::collapsible_match, clippy::collapsible_if)]

pub mod board;
pub mod hanabi;
pub mod lever;
pub mod panel;
pub mod rooms;
mod status_line;

pub use board::{Board, DrawError, Overlay};

/// Every game's board at the default cell size: its text fits the picture.
#[cfg(test)]
mod text_fits {
    use crate::board::{Board, DEFAULT_CELL, Overlay, Status, frame_size, svg};
    use proagent_overcooked::env::Layout;
    use proagent_overcooked::game::Overcooked;
    use proagent_overcooked_v2::env as v2;
    use proagent_overcooked_v2::game::OvercookedV2;
    use std::sync::Arc;

    /// Draws `game` at the default cell size with a status row (its horizon reached, a
    /// three-digit score), at its start and after
    /// `moves` steps of its first legal moves cycled by a counter (so the last-move line,
    /// discards and held items appear), and checks every text: inside the picture, clear
    /// of every other text, and either inside a solid box (a card's digit) or off it.
    fn text_fits<G: Board>(game: &G, moves: usize) {
        text_fits_at(game, moves, DEFAULT_CELL);
    }

    fn text_fits_at<G: Board>(game: &G, moves: usize, cell: u32) {
        let mut chance = proagent_core::episode::env_chance(1);
        let mut state = game.initial_state(&mut chance);
        let mut k = 0usize;
        for step in 0..=moves {
            // The longest status of a real episode: its last step, three-digit scores.
            let horizon = game.max_steps();
            let overlay = Overlay { status: Some(Status { t: horizon, horizon, score: 240 }), ..Overlay::default() };
            let (w, h) = frame_size(game, cell, true);
            let _ = crate::board::bounds::take();
            svg(game, &state, &overlay, cell).unwrap();
            let (texts, solids) = crate::board::bounds::take();
            let name = format!("{} at cell {cell} after {step} steps", game.spec());
            assert!(!texts.is_empty(), "{name}: nothing recorded");
            let meets = |a: crate::board::bounds::Box4, b: crate::board::bounds::Box4| {
                a.0 <= b.2 && b.0 <= a.2 && a.1 <= b.3 && b.1 <= a.3
            };
            let inside = |a: crate::board::bounds::Box4, b: crate::board::bounds::Box4| {
                a.0 >= b.0 && a.2 <= b.2 && a.1 >= b.1 && a.3 <= b.3
            };
            for (i, (t, b)) in texts.iter().enumerate() {
                assert!(
                    b.0 >= 0 && b.1 >= 0 && b.2 < w as i32 && b.3 < h as i32,
                    "{name}: {t:?} at {b:?} is clipped by the {w}x{h} picture"
                );
                for (u, c) in &texts[i + 1..] {
                    assert!(!meets(*b, *c), "{name}: {t:?} at {b:?} overlaps {u:?} at {c:?}");
                }
                for s in &solids {
                    assert!(!meets(*b, *s) || inside(*b, *s), "{name}: {t:?} at {b:?} runs over a card at {s:?}");
                }
            }
            if step == moves {
                break;
            }
            let turn = game.turn(&state);
            let actions: Vec<Option<G::Action>> = (0..game.num_players())
                .map(|p| {
                    if !turn.includes(p) {
                        return None;
                    }
                    let legal = game.legal_actions(game.view(&state, p), p);
                    k += 1;
                    (!legal.is_empty()).then(|| legal[k % legal.len()])
                })
                .collect();
            if matches!(turn, proagent_core::game::Turn::Over) {
                break;
            }
            game.step(&mut state, &actions, &mut chance);
        }
    }

    #[test]
    fn the_card_table_fits_at_every_cell_from_24_pixels() {
        // Its labels once ran over the cards and "DECK" lost its K at small cells.
        for cell in 24..=128 {
            text_fits_at(&proagent_hanabi::Hanabi::new(2).unwrap(), 40, cell);
        }
    }

    #[test]
    fn every_game_draws_its_text_inside_the_picture_and_off_its_cards() {
        for (name, _) in proagent_overcooked::env::layout::BUILTIN {
            text_fits(&Overcooked::new(Arc::new(Layout::builtin(name).unwrap()), 400), 30);
        }
        for name in v2::Layout::builtin_names() {
            let layout = v2::Layout::builtin(name).unwrap();
            text_fits(&OvercookedV2::new(Arc::new(layout), v2::Settings::default()), 30);
        }
        for players in 2..=5 {
            text_fits(&proagent_hanabi::Hanabi::new(players).unwrap(), 40);
        }
        for name in proagent_collab::maze::Maze::builtin_names() {
            if let Some(g) = proagent_collab::Capture::builtin(name) {
                text_fits(&g, 10);
            }
            if let Some(g) = proagent_collab::Escape::builtin(name) {
                text_fits(&g, 10);
            }
        }
        for rounds in [1, 10] {
            text_fits(&proagent_lever::Lever::new(rounds), 10);
        }
    }
}
