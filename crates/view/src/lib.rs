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
