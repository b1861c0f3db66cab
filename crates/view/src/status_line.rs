//! The status band of a board's cells: one cell high, the width of the board, dark, with
//! a line of white pixel letters (a maze's turn and state across its top, the card
//! game's last move under its table). Drawn the same for every board that has one.

use super::board::{Drawn, STATUS_BG, pixel_text, rect};
use plotters::coord::Shift;
use plotters::prelude::*;

/// Draws the band from `(0, y)`, `width` pixels wide and one cell of `c` pixels high,
/// with `text` in white letters a twelfth of a cell per pixel, left-aligned.
pub(crate) fn status_line<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    y: i32,
    width: i32,
    c: i32,
    text: &str,
) -> Drawn<DB> {
    rect(area, (0, y), (width - 1, y + c - 1), &STATUS_BG, None)?;
    let px = (c / 12).max(1);
    pixel_text(area, text, (c / 6, y + (c - 5 * px) / 2), px, &WHITE)
}
