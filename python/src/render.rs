//! Pictures of a state as RGB arrays (Gymnasium's `render_mode="rgb_array"`), drawn by the
//! viewer's one drawing routine (`proagent_view::board::draw`) for every game it draws.
//!
//! The only module of the package that reaches the boards: every other module names the
//! [`Board`] trait through this one, so the boards' crate is named in one line below.

pub use proagent_view::board::Board;
use proagent_view::board::{Overlay, rgb};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// A board of any game the viewer draws, `cell` pixels per grid cell: (pixels, height,
/// width). The viewer's one drawing routine (`proagent_view::board::draw`) makes it.
pub fn board_rgb<G: Board>(game: &G, state: &G::State, cell: u32) -> PyResult<(Vec<u8>, usize, usize)> {
    let (buf, (w, h)) = rgb(game, state, &Overlay::default(), cell)
        .map_err(|e| PyRuntimeError::new_err(format!("drawing the board: {e}")))?;
    Ok((buf, h as usize, w as usize))
}
