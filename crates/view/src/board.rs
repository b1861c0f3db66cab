//! The board drawing: one routine per game, behind one interface ([`Board`]), written
//! against plotters' `DrawingBackend`, that draws a state as the viewer shows it (SVG for
//! the browser and `render --out x.svg`, bitmaps for PNG and animated GIF). The frame
//! around it — the status line, hand-over marks, the shading of one player's view — is
//! drawn here once for every game. Same game + state + overlay → same picture.
//!
//! No text is drawn with fonts (bitmap backends would need a font file at run time):
//! the few numbers and words (timestep, score, player index) use a small built-in pixel font.
//!
//! Implemented for classic Overcooked (onions, tomatoes, dishes, soups) and OvercookedV2
//! (ingredients by name and colour, the recipe indicator and the button — lit or not —,
//! pot timers, plates and dishes of any recipe, any number of agents, and the current recipe
//! on a second status row). Both draw their grid through one kitchen helper (the `Kitchen`
//! trait): tiles in rows, what lies on them, chefs and what they hold; each game names its
//! tiles and draws only its own pieces. Their pictures are pinned by
//! `the_overcooked_pictures_are_pinned`.

use plotters::coord::Shift;
use plotters::prelude::*;
use proagent_core::Game;
use proagent_overcooked::env::{Dir, Ingredient, Object, Pos, State, Tile};
use proagent_overcooked::game::Overcooked;
use proagent_overcooked_v2::env::{self as v2, Item, PotPhase, Recipe, Tile as V2Tile};
use proagent_overcooked_v2::game::OvercookedV2;
use std::path::Path;

/// The picture formats, by file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// One frame as SVG (`.svg`).
    Svg,
    /// One frame as PNG (`.png`).
    Png,
    /// Frames as an animated GIF (`.gif`).
    Gif,
}

impl Format {
    /// The format a file name asks for by its extension (any case); `None` for another one.
    pub fn of(path: &Path) -> Option<Format> {
        let name = path.display().to_string().to_ascii_lowercase();
        [(".svg", Format::Svg), (".png", Format::Png), (".gif", Format::Gif)]
            .into_iter()
            .find_map(|(ext, f)| name.ends_with(ext).then_some(f))
    }
}

/// Pixels per grid cell unless asked otherwise.
pub const DEFAULT_CELL: u32 = 48;
/// Smallest and largest cell size accepted (a 20×20 grid at the largest is 2,560 px wide).
pub const CELL_RANGE: (u32, u32) = (12, 128);

/// Why a board could not be drawn or written.
#[derive(Debug, thiserror::Error)]
pub enum DrawError {
    /// The drawing backend failed (for files: the file could not be written).
    #[error("{target}: {message}")]
    Backend {
        /// What was being drawn or written (a file path, or "svg").
        target: String,
        /// The backend's error.
        message: String,
    },
    /// A state the game cannot draw (a room or player out of range, hands of another game).
    #[error("the state does not fit the game {game}: {message}")]
    State {
        /// The game's name.
        game: String,
        /// What does not fit.
        message: String,
    },
    /// The state does not fit the layout (object table of another size).
    #[error("the state does not match the layout {layout} ({cells} cells, {objects} object slots)")]
    Mismatch {
        /// The layout's name.
        layout: String,
        /// Its cell count.
        cells: usize,
        /// The state's object slots.
        objects: usize,
    },
}

/// A status line drawn above the grid: timestep (of how many) and score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Status {
    /// The frame's timestep.
    pub t: u32,
    /// The episode's length.
    pub horizon: u32,
    /// The score so far (negative after penalties).
    pub score: i64,
}

/// A marked cell: where an object was handed over between the players.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Highlight {
    /// The cell.
    pub at: Pos,
    /// Constructive hand-overs are drawn in the strong colour, the others dashed-looking pale.
    pub constructive: bool,
}

/// Whose view a picture is drawn from, for games where a player sees only part of the
/// board (OvercookedV2 with a view radius); other games ignore it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlayerView {
    /// The player.
    pub player: usize,
    /// `false`: what the player cannot see is shaded (the viewer, `render --view`);
    /// `true`: it is hidden, and so is anything the player could not know (a person
    /// playing in the browser: the current recipe appears only where an indicator in
    /// sight shows it).
    pub hide: bool,
}

/// What is drawn on top of the state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overlay {
    /// The status line; `None` draws the grid only (the viewer shows the status in the page).
    pub status: Option<Status>,
    /// Cells to outline.
    pub highlights: Vec<Highlight>,
    /// Whose view to show, if one player's.
    pub view: Option<PlayerView>,
}

/// Where the grid sits in a picture: pixels per cell and the height of the status rows
/// above it.
#[derive(Clone, Copy, Debug)]
pub struct Geom {
    /// Pixels per cell.
    pub c: i32,
    /// Pixels above the grid.
    pub top: i32,
}

impl Geom {
    /// The top-left pixel of cell `p`.
    pub fn corner(&self, p: Pos) -> (i32, i32) {
        (p.x as i32 * self.c, p.y as i32 * self.c + self.top)
    }
    /// The centre pixel of cell `p`.
    pub fn center(&self, p: Pos) -> (i32, i32) {
        let (x, y) = self.corner(p);
        (x + self.c / 2, y + self.c / 2)
    }
}

/// The result of a drawing call.
pub type Drawn<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// A game the viewer, `render` and human play can draw: a grid of cells with pieces and
/// players on it. The frame (status line, hand-over marks, view shading) is drawn by
/// [`draw`] around what the game draws.
pub trait Board: Game {
    /// Columns and rows of the grid.
    fn grid(&self) -> (u32, u32);
    /// The grid as the layout writes it, one string per row.
    fn grid_rows(&self) -> Vec<String>;
    /// Checks that a state can be drawn on this game's grid (a state of another layout cannot).
    fn check(&self, state: &Self::State) -> Result<(), DrawError>;
    /// Draws the cells and what lies on them (tiles, items, pots), below `g.top`; `view`
    /// is whose view the picture shows (games that hide something from a player, such as
    /// a card game's own hand, draw it hidden).
    fn draw_cells<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        g: &Geom,
        state: &Self::State,
        view: Option<PlayerView>,
    ) -> Drawn<DB>;
    /// Draws the players (with their facing and what they hold) over the cells.
    fn draw_players<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        g: &Geom,
        state: &Self::State,
        view: Option<PlayerView>,
    ) -> Drawn<DB>;
    /// Status rows above the grid (the first holds time and score).
    fn status_rows(&self) -> u32 {
        1
    }
    /// Draws the game's own status rows (from the second on; `g.top` is the first's top).
    fn draw_status<DB: DrawingBackend>(
        &self,
        _area: &DrawingArea<DB, Shift>,
        _g: &Geom,
        _state: &Self::State,
        _view: Option<PlayerView>,
    ) -> Drawn<DB> {
        Ok(())
    }
    /// Whether players see only part of the board (then a view can be chosen: what the
    /// player does not see is shaded, or hidden).
    fn partial_view(&self) -> bool {
        false
    }
    /// Whether `player` sees cell `p` in `state` (everything, unless [`Board::partial_view`]).
    fn sees(&self, _state: &Self::State, _player: usize, _p: Pos) -> bool {
        true
    }
    /// A line about the state for the viewer's page beside the picture (V2: the recipe).
    fn caption(&self, _state: &Self::State) -> Option<String> {
        None
    }
    /// An action in words, for the buttons of a person playing (default: its token).
    fn describe_action(&self, _state: &Self::State, action: Self::Action) -> String {
        self.action_token(action)
    }
}

/// The picture's size in pixels for a cell size.
pub fn frame_size<G: Board>(game: &G, cell: u32, with_status: bool) -> (u32, u32) {
    let (w, h) = game.grid();
    let top = if with_status { status_height(cell) * game.status_rows() } else { 0 };
    (w * cell, h * cell + top)
}

pub(crate) fn status_height(cell: u32) -> u32 {
    (cell / 2).max(10)
}

pub(crate) const FLOOR: RGBColor = RGBColor(0xf4, 0xef, 0xe4);
pub(crate) const FLOOR_LINE: RGBColor = RGBColor(0xe3, 0xdc, 0xcc);
pub(crate) const COUNTER: RGBColor = RGBColor(0xc9, 0xa2, 0x6b);
pub(crate) const COUNTER_EDGE: RGBColor = RGBColor(0x8d, 0x6a, 0x3d);
pub(crate) const POT: RGBColor = RGBColor(0x45, 0x47, 0x4d);
pub(crate) const ONION: RGBColor = RGBColor(0xe8, 0xc5, 0x47);
pub(crate) const ONION_EDGE: RGBColor = RGBColor(0x9c, 0x7a, 0x12);
pub(crate) const TOMATO: RGBColor = RGBColor(0xd9, 0x3b, 0x2b);
pub(crate) const DISH: RGBColor = RGBColor(0xfb, 0xfb, 0xfb);
pub(crate) const DISH_EDGE: RGBColor = RGBColor(0x8a, 0x8a, 0x8a);
pub(crate) const SOUP: RGBColor = RGBColor(0xe0, 0x7b, 0x39);
pub(crate) const CRATE: RGBColor = RGBColor(0x7b, 0x50, 0x2a);
pub(crate) const SERVE: RGBColor = RGBColor(0x8b, 0xc3, 0x4a);
pub(crate) const SERVE_EDGE: RGBColor = RGBColor(0x4e, 0x7d, 0x1c);
pub(crate) const COOKING: RGBColor = RGBColor(0xef, 0x8a, 0x17);
pub(crate) const READY: RGBColor = RGBColor(0x2e, 0xa0, 0x43);
pub(crate) const BAR_BG: RGBColor = RGBColor(0x2b, 0x2b, 0x2b);
pub(crate) const CHEF: [RGBColor; 2] = [RGBColor(0x2f, 0x6b, 0xd8), RGBColor(0x2a, 0x9d, 0x5c)];
/// Colours of agents 2, 3, ... of games with more than two (V2 layouts may have up to 16).
const MORE_CHEFS: [RGBColor; 6] = [
    RGBColor(0xc2, 0x41, 0x0c),
    RGBColor(0x7e, 0x3f, 0xb5),
    RGBColor(0xb8, 0x86, 0x0b),
    RGBColor(0x0e, 0x86, 0x8c),
    RGBColor(0xad, 0x1f, 0x5b),
    RGBColor(0x55, 0x5a, 0x63),
];
pub(crate) const HAND_OVER: RGBColor = RGBColor(0xd8, 0x1b, 0x60);
pub(crate) const HAND_OVER_WEAK: RGBColor = RGBColor(0xf0, 0x9a, 0xbb);
pub(crate) const STATUS_BG: RGBColor = RGBColor(0x26, 0x2b, 0x33);
pub(crate) const INDICATOR: RGBColor = RGBColor(0x1f, 0x24, 0x2b);
pub(crate) const BUTTON_OFF: RGBColor = RGBColor(0x8e, 0x2a, 0x22);
pub(crate) const BUTTON_LIT: RGBColor = RGBColor(0xff, 0xd4, 0x3b);
pub(crate) const SHADE: RGBColor = RGBColor(0x10, 0x14, 0x1c);
pub(crate) const VIEW_EDGE: RGBColor = RGBColor(0xff, 0xff, 0xff);

/// The colour of player `i`: blue and green for the first two, as the viewer's text says.
pub(crate) fn chef_color(i: usize) -> RGBColor {
    match i {
        0 | 1 => CHEF[i],
        _ => MORE_CHEFS[(i - 2) % MORE_CHEFS.len()],
    }
}

/// The board as an SVG document.
pub fn svg<G: Board>(game: &G, state: &G::State, overlay: &Overlay, cell: u32) -> Result<String, DrawError> {
    let mut out = String::new();
    {
        let size = frame_size(game, cell, overlay.status.is_some());
        let area = SVGBackend::with_string(&mut out, size).into_drawing_area();
        draw(&area, game, state, overlay, cell).map_err(|e| failed("svg", e))?;
        area.present().map_err(|e| failed("svg", e))?;
    }
    Ok(out)
}

/// Writes one frame as a PNG file (8-bit RGB, fast deflate, adaptive filters).
pub fn write_png<G: Board>(
    path: &Path,
    game: &G,
    state: &G::State,
    overlay: &Overlay,
    cell: u32,
) -> Result<(), DrawError> {
    let target = path.display().to_string();
    let size = frame_size(game, cell, overlay.status.is_some());
    let mut pixels = blank(size);
    draw_rgb(&mut pixels, size, game, state, overlay, cell, &target)?;
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).map_err(|e| failed(&target, e))?);
    {
        let mut enc = png::Encoder::new(&mut out, size.0, size.1);
        enc.set_color(png::ColorType::Rgb);
        enc.set_depth(png::BitDepth::Eight);
        enc.set_compression(png::Compression::Fast);
        enc.set_filter(png::FilterType::Sub);
        enc.set_adaptive_filter(png::AdaptiveFilterType::Adaptive);
        enc.write_header().and_then(|mut w| w.write_image_data(&pixels)).map_err(|e| failed(&target, e))?;
    }
    std::io::Write::flush(&mut out).map_err(|e| failed(&target, e))
}

/// Writes the frames as an animated GIF, `delay_ms` per frame (GIF counts in 10 ms units),
/// looping forever; each frame's colours are quantised on their own (no global palette).
pub fn write_gif<'a, G: Board>(
    path: &Path,
    game: &G,
    frames: impl IntoIterator<Item = (&'a G::State, Overlay)>,
    cell: u32,
    delay_ms: u32,
) -> Result<usize, DrawError> {
    let target = path.display().to_string();
    let fail = |e: &dyn std::fmt::Display| failed(&target, e);
    let mut frames = frames.into_iter().peekable();
    let with_status = frames.peek().is_some_and(|(_, o)| o.status.is_some());
    let size = frame_size(game, cell, with_status);
    let (w, h) = (
        u16::try_from(size.0).map_err(|_| fail(&format!("{} px is too wide for a GIF", size.0)))?,
        u16::try_from(size.1).map_err(|_| fail(&format!("{} px is too tall for a GIF", size.1)))?,
    );
    let delay = u16::try_from(delay_ms.max(10).saturating_add(5) / 10).unwrap_or(u16::MAX);
    let file = std::fs::File::create(path).map_err(|e| fail(&e))?;
    let mut enc = gif::Encoder::new(std::io::BufWriter::new(file), w, h, &[]).map_err(|e| fail(&e))?;
    enc.set_repeat(gif::Repeat::Infinite).map_err(|e| fail(&e))?;
    // One canvas for the whole animation: a frame is drawn over the one before it.
    let mut pixels = blank(size);
    let mut n = 0;
    for (state, overlay) in frames {
        draw_rgb(&mut pixels, size, game, state, &overlay, cell, &target)?;
        let mut frame = gif::Frame::from_rgb_speed(w, h, &pixels, 10);
        frame.delay = delay;
        enc.write_frame(&frame).map_err(|e| fail(&e))?;
        n += 1;
    }
    Ok(n)
}

/// One frame as 8-bit RGB pixels, row by row (what a PNG file holds and Gymnasium's
/// `rgb_array` returns), with its size in pixels (width, height).
pub fn rgb<G: Board>(
    game: &G,
    state: &G::State,
    overlay: &Overlay,
    cell: u32,
) -> Result<(Vec<u8>, (u32, u32)), DrawError> {
    let size = frame_size(game, cell, overlay.status.is_some());
    let mut pixels = blank(size);
    draw_rgb(&mut pixels, size, game, state, overlay, cell, "bitmap")?;
    Ok((pixels, size))
}

/// A black RGB canvas of `size` pixels.
fn blank(size: (u32, u32)) -> Vec<u8> {
    vec![0; size.0 as usize * size.1 as usize * 3]
}

/// Draws one frame onto an RGB canvas of `size` pixels.
fn draw_rgb<G: Board>(
    pixels: &mut [u8],
    size: (u32, u32),
    game: &G,
    state: &G::State,
    overlay: &Overlay,
    cell: u32,
    target: &str,
) -> Result<(), DrawError> {
    let area = BitMapBackend::with_buffer(pixels, size).into_drawing_area();
    draw(&area, game, state, overlay, cell).map_err(|e| failed(target, e))?;
    area.present().map_err(|e| failed(target, e))
}

/// The backend or encoder error `e` met while drawing or writing `target`.
fn failed(target: &str, e: impl std::fmt::Display) -> DrawError {
    DrawError::Backend { target: target.to_string(), message: e.to_string() }
}

/// Draws `state` on `area` (which must be [`frame_size`] large): the status rows, the
/// game's cells, hand-over marks, the players, and the shading of one player's view.
pub fn draw<G: Board, DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    game: &G,
    state: &G::State,
    overlay: &Overlay,
    cell: u32,
) -> Drawn<DB> {
    if game.check(state).is_err() {
        // Draw nothing rather than index out of bounds; callers check with `Board::check`.
        return Ok(());
    }
    let c = cell as i32;
    let (w, h) = game.grid();
    let top = if let Some(st) = overlay.status {
        let row = status_height(cell) as i32;
        let h = row * game.status_rows() as i32;
        area.draw(&Rectangle::new([(0, 0), (w as i32 * c, h)], STATUS_BG.filled()))?;
        let text = format!("T {}/{}  SCORE {}", st.t, st.horizon, st.score);
        // The row's letter size, smaller where the line would not fit a narrow board (a
        // margin of two letter pixels on each side).
        let chars = text.chars().count() as i32;
        let mut px = (row / 7).max(1);
        while px > 1 && (4 * chars - 1 + 4) * px > w as i32 * c {
            px -= 1;
        }
        pixel_text(area, &text, (px * 2, (row - 5 * px) / 2), px, &WHITE)?;
        game.draw_status(area, &Geom { c, top: 0 }, state, overlay.view)?;
        h
    } else {
        0
    };
    let g = Geom { c, top };
    game.draw_cells(area, &g, state, overlay.view)?;
    for hl in &overlay.highlights {
        let (x0, y0) = g.corner(hl.at);
        let color = if hl.constructive { HAND_OVER } else { HAND_OVER_WEAK };
        let w = (c / 14).max(2);
        for k in 0..w {
            area.draw(&Rectangle::new([(x0 + k, y0 + k), (x0 + c - 1 - k, y0 + c - 1 - k)], color.stroke_width(1)))?;
        }
    }
    game.draw_players(area, &g, state, overlay.view)?;
    if let Some(v) = overlay.view
        && game.partial_view()
        && (0..h).any(|y| (0..w).any(|x| !game.sees(state, v.player, Pos::new(x as u8, y as u8))))
    {
        let shade = if v.hide { SHADE.mix(1.0) } else { SHADE.mix(0.45) };
        for y in 0..h {
            for x in 0..w {
                let p = Pos::new(x as u8, y as u8);
                if !game.sees(state, v.player, p) {
                    let (x0, y0) = g.corner(p);
                    area.draw(&Rectangle::new([(x0, y0), (x0 + c, y0 + c)], shade.filled()))?;
                }
            }
        }
        // The edge of the window, so the view reads at a glance.
        let seen: Vec<Pos> = (0..h)
            .flat_map(|y| (0..w).map(move |x| Pos::new(x as u8, y as u8)))
            .filter(|&p| game.sees(state, v.player, p))
            .collect();
        if let (Some(x0), Some(x1), Some(y0), Some(y1)) = (
            seen.iter().map(|p| p.x).min(),
            seen.iter().map(|p| p.x).max(),
            seen.iter().map(|p| p.y).min(),
            seen.iter().map(|p| p.y).max(),
        ) {
            let (ax, ay) = g.corner(Pos::new(x0, y0));
            let (bx, by) = g.corner(Pos::new(x1, y1));
            let edge = chef_color(v.player);
            area.draw(&Rectangle::new([(ax, ay), (bx + c - 1, by + c - 1)], VIEW_EDGE.stroke_width(3)))?;
            area.draw(&Rectangle::new([(ax + 1, ay + 1), (bx + c - 2, by + c - 2)], edge.stroke_width(1)))?;
        }
    }
    Ok(())
}

pub(crate) fn rect<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    a: (i32, i32),
    b: (i32, i32),
    fill: &RGBColor,
    edge: Option<&RGBColor>,
) -> Drawn<DB> {
    area.draw(&Rectangle::new([a, b], fill.filled()))?;
    if let Some(e) = edge {
        area.draw(&Rectangle::new([a, b], e.stroke_width(1)))?;
    }
    Ok(())
}

pub(crate) fn disc<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    at: (i32, i32),
    r: i32,
    fill: &RGBColor,
    edge: Option<&RGBColor>,
) -> Drawn<DB> {
    let r = r.max(1);
    area.draw(&Circle::new(at, r, fill.filled()))?;
    if let Some(e) = edge {
        area.draw(&Circle::new(at, r, e.stroke_width(1)))?;
    }
    Ok(())
}

/// Shared pieces of the two Overcooked games' tiles.
fn floor<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, g: &Geom, p: Pos) -> Drawn<DB> {
    let (x0, y0) = g.corner(p);
    rect(area, (x0, y0), (x0 + g.c - 1, y0 + g.c - 1), &FLOOR, Some(&FLOOR_LINE))
}

fn counter<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, g: &Geom, p: Pos) -> Drawn<DB> {
    let (x0, y0) = g.corner(p);
    rect(area, (x0, y0), (x0 + g.c - 1, y0 + g.c - 1), &COUNTER, Some(&COUNTER_EDGE))
}

fn pot_tile<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, g: &Geom, p: Pos) -> Drawn<DB> {
    let c = g.c;
    let (x0, _) = g.corner(p);
    let x1 = x0 + c - 1;
    let (cx, cy) = g.center(p);
    counter(area, g, p)?;
    disc(area, (cx, cy), c * 2 / 5, &POT, None)?;
    // Handles.
    let hw = c / 12;
    rect(area, (x0 + c / 14, cy - hw), (x0 + c / 6, cy + hw), &POT, None)?;
    rect(area, (x1 - c / 6, cy - hw), (x1 - c / 14, cy + hw), &POT, None)
}

/// A crate of an ingredient: three of them on a dark box.
fn crate_tile<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    g: &Geom,
    p: Pos,
    fill: &RGBColor,
    edge: &RGBColor,
) -> Drawn<DB> {
    let c = g.c;
    let (x0, y0) = g.corner(p);
    let (x1, y1) = (x0 + c - 1, y0 + c - 1);
    let (cx, cy) = g.center(p);
    counter(area, g, p)?;
    let m = c / 8;
    rect(area, (x0 + m, y0 + m), (x1 - m, y1 - m), &CRATE, None)?;
    let r = c / 8;
    for (dx, dy) in [(-1, -1), (1, -1), (0, 1)] {
        disc(area, (cx + dx * c / 6, cy + dy * c / 7), r, fill, Some(edge))?;
    }
    Ok(())
}

fn plate_stack<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, g: &Geom, p: Pos) -> Drawn<DB> {
    let c = g.c;
    let (cx, cy) = g.center(p);
    counter(area, g, p)?;
    for k in 0..3 {
        disc(area, (cx - c / 10 + k * c / 10, cy + c / 10 - k * c / 10), c / 4, &DISH, Some(&DISH_EDGE))?;
    }
    Ok(())
}

fn serve_tile<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, g: &Geom, p: Pos) -> Drawn<DB> {
    let c = g.c;
    let (x0, y0) = g.corner(p);
    let (x1, y1) = (x0 + c - 1, y0 + c - 1);
    let (cx, cy) = g.center(p);
    rect(area, (x0, y0), (x1, y1), &SERVE, Some(&SERVE_EDGE))?;
    let m = c / 5;
    rect(area, (x0 + m, y0 + m), (x1 - m, y1 - m), &SERVE, Some(&SERVE_EDGE))?;
    // An arrow into the window.
    let a = c / 6;
    area.draw(&Polygon::new(vec![(cx - a, cy - a), (cx + a, cy), (cx - a, cy + a)], SERVE_EDGE.filled()))
}

/// A cooking bar along the bottom of a pot cell: `frac` done, green when ready.
pub(crate) fn cooking_bar<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    g: &Geom,
    p: Pos,
    frac: f64,
    ready: bool,
) -> Drawn<DB> {
    let c = g.c;
    let (x0, y0) = g.corner(p);
    let (bx0, bx1) = (x0 + c / 10, x0 + c - c / 10);
    let (by0, by1) = (y0 + c - c / 6, y0 + c - c / 14);
    rect(area, (bx0, by0), (bx1, by1), &BAR_BG, None)?;
    let w = ((bx1 - bx0) as f64 * frac).round() as i32;
    if w > 0 {
        rect(area, (bx0, by0), (bx0 + w, by1), if ready { &READY } else { &COOKING }, None)?;
    }
    Ok(())
}

/// A row of ingredient dots centred on `(cx, cy)`, each of radius `r`.
pub(crate) fn dots<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (cx, cy): (i32, i32),
    r: i32,
    colors: &[(RGBColor, RGBColor)],
) -> Drawn<DB> {
    let n = colors.len() as i32;
    for (k, (fill, edge)) in colors.iter().enumerate() {
        let x = cx + (2 * k as i32 - (n - 1)) * (r * 2 + 1) / 2;
        disc(area, (x, cy), r, fill, Some(edge))?;
    }
    Ok(())
}

/// A player: a disc in its colour with a nose towards its facing and its index (the
/// picture matches "Player 0" / "Player 1" in the prompts); returns where its hand is.
fn chef<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    g: &Geom,
    i: usize,
    pos: Pos,
    dir: Dir,
    label: &str,
) -> Result<(i32, i32), DrawingAreaErrorKind<DB::ErrorType>> {
    let c = g.c;
    let (cx, cy) = g.center(pos);
    let (dx, dy) = dir.delta();
    let (dx, dy) = (dx as i32, dy as i32);
    let body = c * 3 / 10;
    let color = chef_color(i);
    // The nose: a triangle pointing where the chef faces.
    let tip = (cx + dx * (body + c / 7), cy + dy * (body + c / 7));
    let side = (-dy, dx);
    let base =
        |s: i32| (cx + dx * body / 2 + s * side.0 * body * 3 / 4, cy + dy * body / 2 + s * side.1 * body * 3 / 4);
    area.draw(&Polygon::new(vec![tip, base(1), base(-1)], color.filled()))?;
    disc(area, (cx, cy), body, &color, Some(&BLACK))?;
    let px = (c / 16).max(1);
    let chars = label.chars().count() as i32;
    pixel_text(area, label, (cx - px * (4 * chars - 1) / 2, cy - px * 5 / 2), px, &WHITE)?;
    let at = (cx + dx * c * 2 / 5, cy + dy * c * 2 / 5);
    Ok(if dir == Dir::North || dir == Dir::South { (at.0 + c / 6, at.1) } else { (at.0, at.1 + c / 6) })
}

// ---------- the Overcooked kitchens ----------

/// A tile of an Overcooked kitchen as both Overcookeds' boards draw it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KitchenTile {
    /// Floor, where chefs walk.
    Floor,
    /// A counter (also under V2's indicator and button, which draw on it).
    Counter,
    /// A pot with its handles.
    Pot,
    /// An ingredient crate, in the ingredient's colours (fill, edge).
    Crate(RGBColor, RGBColor),
    /// The plate stack.
    Plates,
    /// The serving window.
    Serve,
}

/// The grid board both Overcookeds are: kitchen tiles in rows, what lies on them, and
/// chefs facing a way with what they hold. [`kitchen_check`], [`kitchen_cells`] and
/// [`kitchen_chefs`] draw it in one shape; a game says what its tiles are and draws its
/// own pieces (the classic game's soups and objects, V2's items, indicator and button).
trait Kitchen: Board {
    /// The layout's name, as a drawing error names it.
    fn kitchen_name(&self) -> String;
    /// Whether `state`'s per-cell tables fit the grid, and how many object slots it has.
    fn slots(&self, state: &Self::State) -> (bool, usize);
    /// The tile at `p`, as the kitchen draws it.
    fn tile_at(&self, p: Pos) -> KitchenTile;
    /// Draws what the game shows on cell `p` right after its tile (default: nothing).
    fn draw_on_cell<DB: DrawingBackend>(
        &self,
        _area: &DrawingArea<DB, Shift>,
        _g: &Geom,
        _state: &Self::State,
        _p: Pos,
    ) -> Drawn<DB> {
        Ok(())
    }
    /// Draws the game's pieces after every tile (default: nothing).
    fn draw_loose<DB: DrawingBackend>(
        &self,
        _area: &DrawingArea<DB, Shift>,
        _g: &Geom,
        _state: &Self::State,
    ) -> Drawn<DB> {
        Ok(())
    }
    /// Each chef's cell and facing, by player index (its colour and label).
    fn chefs(&self, state: &Self::State) -> Vec<(Pos, Dir)>;
    /// Draws what chef `i` holds, centred on `hand`, of radius `r`.
    fn draw_held<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        state: &Self::State,
        i: usize,
        hand: (i32, i32),
        r: i32,
    ) -> Drawn<DB>;
}

/// [`Board::check`] of a kitchen: its state's tables have one slot per cell.
fn kitchen_check<K: Kitchen>(k: &K, state: &K::State) -> Result<(), DrawError> {
    let (w, h) = k.grid();
    let cells = (w * h) as usize;
    match k.slots(state) {
        (true, _) => Ok(()),
        (false, objects) => Err(DrawError::Mismatch { layout: k.kitchen_name(), cells, objects }),
    }
}

/// [`Board::draw_cells`] of a kitchen: row by row, each cell's tile and what the game
/// draws on it, then the game's loose pieces.
fn kitchen_cells<K: Kitchen, DB: DrawingBackend>(
    k: &K,
    area: &DrawingArea<DB, Shift>,
    g: &Geom,
    state: &K::State,
) -> Drawn<DB> {
    let (w, h) = k.grid();
    for y in 0..h {
        for x in 0..w {
            let p = Pos::new(x as u8, y as u8);
            match k.tile_at(p) {
                KitchenTile::Floor => floor(area, g, p)?,
                KitchenTile::Counter => counter(area, g, p)?,
                KitchenTile::Pot => pot_tile(area, g, p)?,
                KitchenTile::Crate(fill, edge) => crate_tile(area, g, p, &fill, &edge)?,
                KitchenTile::Plates => plate_stack(area, g, p)?,
                KitchenTile::Serve => serve_tile(area, g, p)?,
            }
            k.draw_on_cell(area, g, state, p)?;
        }
    }
    k.draw_loose(area, g, state)
}

/// [`Board::draw_players`] of a kitchen: each chef (labelled with its index) and what it
/// holds.
fn kitchen_chefs<K: Kitchen, DB: DrawingBackend>(
    k: &K,
    area: &DrawingArea<DB, Shift>,
    g: &Geom,
    state: &K::State,
) -> Drawn<DB> {
    for (i, (pos, dir)) in k.chefs(state).into_iter().enumerate() {
        let hand = chef(area, g, i, pos, dir, &i.to_string())?;
        k.draw_held(area, state, i, hand, g.c / 5)?;
    }
    Ok(())
}

// ---------- classic Overcooked ----------

impl Board for Overcooked {
    fn grid(&self) -> (u32, u32) {
        (self.layout.width as u32, self.layout.height as u32)
    }

    fn grid_rows(&self) -> Vec<String> {
        self.layout.grid.clone()
    }

    fn check(&self, state: &State) -> Result<(), DrawError> {
        kitchen_check(self, state)
    }

    fn draw_cells<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        g: &Geom,
        state: &State,
        _view: Option<PlayerView>,
    ) -> Drawn<DB> {
        kitchen_cells(self, area, g, state)
    }

    fn draw_players<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        g: &Geom,
        state: &State,
        _view: Option<PlayerView>,
    ) -> Drawn<DB> {
        kitchen_chefs(self, area, g, state)
    }
}

impl Kitchen for Overcooked {
    fn kitchen_name(&self) -> String {
        self.layout.name.clone()
    }

    fn slots(&self, state: &State) -> (bool, usize) {
        (state.objects.len() == self.layout.width * self.layout.height, state.objects.len())
    }

    fn tile_at(&self, p: Pos) -> KitchenTile {
        match self.layout.tile(p) {
            Tile::Floor => KitchenTile::Floor,
            Tile::Counter => KitchenTile::Counter,
            Tile::Pot => KitchenTile::Pot,
            Tile::OnionSource => KitchenTile::Crate(ONION, ONION_EDGE),
            Tile::TomatoSource => KitchenTile::Crate(TOMATO, CRATE),
            Tile::DishSource => KitchenTile::Plates,
            Tile::Serve => KitchenTile::Serve,
        }
    }

    /// The soups in the pots (ingredients, cooking bar) and the objects on counters.
    fn draw_loose<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>, g: &Geom, state: &State) -> Drawn<DB> {
        let layout = &*self.layout;
        for (p, o) in state.objects_sorted(layout) {
            if layout.tile(p) == Tile::Pot {
                if let Object::Soup(s) = o {
                    let (cx, cy) = g.center(p);
                    let cooking = s.cooking_tick >= 0;
                    if cooking {
                        disc(area, (cx, cy), g.c * 3 / 10, &SOUP, None)?;
                    }
                    let colors: Vec<_> = s.ingredients().iter().map(|i| classic_colors(*i)).collect();
                    dots(area, (cx, cy), (g.c / 9).max(1), &colors)?;
                    if cooking {
                        let frac = if s.is_ready() || s.cook_time == 0 {
                            1.0
                        } else {
                            (s.cooking_tick as f64 / s.cook_time as f64).clamp(0.0, 1.0)
                        };
                        cooking_bar(area, g, p, frac, s.is_ready())?;
                    }
                }
            } else {
                classic_object(area, o, g.center(p), g.c * 3 / 10)?;
            }
        }
        Ok(())
    }

    fn chefs(&self, state: &State) -> Vec<(Pos, Dir)> {
        state.players.iter().map(|p| (p.pos, p.dir)).collect()
    }

    fn draw_held<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        state: &State,
        i: usize,
        hand: (i32, i32),
        r: i32,
    ) -> Drawn<DB> {
        match state.players.get(i).and_then(|p| p.held.as_ref()) {
            Some(o) => classic_object(area, o, hand, r),
            None => Ok(()),
        }
    }
}

fn classic_colors(i: Ingredient) -> (RGBColor, RGBColor) {
    if i == Ingredient::Onion { (ONION, ONION_EDGE) } else { (TOMATO, CRATE) }
}

fn classic_object<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, o: &Object, at: (i32, i32), r: i32) -> Drawn<DB> {
    match o {
        Object::Ingredient(Ingredient::Onion) => disc(area, at, r * 3 / 4, &ONION, Some(&ONION_EDGE)),
        Object::Ingredient(Ingredient::Tomato) => disc(area, at, r * 3 / 4, &TOMATO, Some(&CRATE)),
        Object::Dish => disc(area, at, r, &DISH, Some(&DISH_EDGE)),
        Object::Soup(s) => {
            disc(area, at, r, &DISH, Some(&DISH_EDGE))?;
            let fill = if s.num_tomatoes() > s.num_onions() { TOMATO } else { SOUP };
            disc(area, at, r * 2 / 3, &fill, None)
        }
    }
}

// ---------- OvercookedV2 ----------

/// The colour (fill, edge) of an ingredient by its name (the layout's names; onion and
/// tomato as in the classic game), else by its kind.
pub fn ingredient_color(names: &[String], kind: u8) -> (RGBColor, RGBColor) {
    let name = v2::item::kind_name(names, kind).to_ascii_lowercase();
    let name = name.trim().trim_end_matches('s');
    let by_name = match name {
        "onion" => Some((ONION, ONION_EDGE)),
        "tomato" | "tomatoe" => Some((TOMATO, CRATE)),
        "lettuce" => Some((RGBColor(0x6a, 0xbf, 0x4b), RGBColor(0x3b, 0x7a, 0x26))),
        "carrot" => Some((RGBColor(0xf0, 0x8a, 0x24), RGBColor(0xa0, 0x52, 0x0c))),
        "potato" => Some((RGBColor(0xe3, 0xcd, 0xa4), RGBColor(0x8d, 0x6a, 0x3d))),
        "mushroom" => Some((RGBColor(0xa8, 0x98, 0x8a), RGBColor(0x5e, 0x50, 0x45))),
        "pepper" => Some((RGBColor(0x8e, 0x3b, 0xd9), RGBColor(0x55, 0x22, 0x88))),
        "garlic" => Some((RGBColor(0xf7, 0xf3, 0xea), RGBColor(0x9a, 0x94, 0x8a))),
        "corn" => Some((RGBColor(0xc8, 0xe0, 0x3c), RGBColor(0x76, 0x85, 0x1c))),
        "bean" => Some((RGBColor(0x5b, 0x3a, 0x29), RGBColor(0x2e, 0x1d, 0x14))),
        _ => None,
    };
    by_name.unwrap_or_else(|| {
        let palette = [
            (ONION, ONION_EDGE),
            (TOMATO, CRATE),
            (RGBColor(0x6a, 0xbf, 0x4b), RGBColor(0x3b, 0x7a, 0x26)),
            (RGBColor(0x2f, 0x9f, 0xd8), RGBColor(0x1b, 0x5e, 0x80)),
            (RGBColor(0x8e, 0x3b, 0xd9), RGBColor(0x55, 0x22, 0x88)),
        ];
        palette[kind as usize % palette.len()]
    })
}

/// The colours of an item's ingredients, in kind order.
fn colors_of(game: &OvercookedV2, item: Item) -> Vec<(RGBColor, RGBColor)> {
    item.kinds().into_iter().map(|k| ingredient_color(&game.layout.ingredient_names, k)).collect()
}

/// The colours of a recipe's ingredients.
fn recipe_colors(game: &OvercookedV2, recipe: Recipe) -> Vec<(RGBColor, RGBColor)> {
    recipe.0.iter().map(|&k| ingredient_color(&game.layout.ingredient_names, k)).collect()
}

/// An item held or lying on a counter: a plate, a raw ingredient, a dish (a plate
/// holding its soup's ingredients), or anything else as its ingredients.
fn v2_item<DB: DrawingBackend>(
    game: &OvercookedV2,
    area: &DrawingArea<DB, Shift>,
    item: Item,
    at: (i32, i32),
    r: i32,
) -> Drawn<DB> {
    if item.is_empty() {
        return Ok(());
    }
    let colors = colors_of(game, item.contents());
    if item.has_plate() {
        disc(area, at, r, &DISH, Some(&DISH_EDGE))?;
    }
    if item.is_cooked() {
        disc(area, at, r * 2 / 3, &SOUP, None)?;
    }
    match colors.as_slice() {
        [] => Ok(()),
        [one] if !item.has_plate() && !item.is_cooked() => disc(area, at, r * 3 / 4, &one.0, Some(&one.1)),
        many => dots(area, at, (r / 3).max(1), many),
    }
}

impl Board for OvercookedV2 {
    fn grid(&self) -> (u32, u32) {
        (self.layout.width as u32, self.layout.height as u32)
    }

    fn grid_rows(&self) -> Vec<String> {
        self.layout.grid.clone()
    }

    fn check(&self, state: &v2::State) -> Result<(), DrawError> {
        kitchen_check(self, state)
    }

    fn draw_cells<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        g: &Geom,
        state: &v2::State,
        _view: Option<PlayerView>,
    ) -> Drawn<DB> {
        kitchen_cells(self, area, g, state)
    }

    fn draw_players<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        g: &Geom,
        state: &v2::State,
        _view: Option<PlayerView>,
    ) -> Drawn<DB> {
        kitchen_chefs(self, area, g, state)
    }

    fn status_rows(&self) -> u32 {
        2
    }

    fn draw_status<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        g: &Geom,
        state: &v2::State,
        view: Option<PlayerView>,
    ) -> Drawn<DB> {
        let row = (g.c / 2).max(10);
        let px = (row / 7).max(1);
        let y = g.top + row;
        // A person playing sees the recipe only where an indicator in sight shows it.
        let known = match view {
            Some(v) if v.hide => self
                .layout
                .cells_of(V2Tile::RecipeIndicator)
                .chain(self.layout.cells_of(V2Tile::Button))
                .any(|p| state.shows_recipe_at(&self.layout, p) && self.sees(state, v.player, p)),
            _ => true,
        };
        pixel_text(area, "RECIPE", (px * 2, y + (row - 5 * px) / 2), px, &WHITE)?;
        let x = px * 2 + 6 * 4 * px + row / 2;
        if known {
            let r = (row / 4).max(2);
            let colors = recipe_colors(self, state.recipe);
            dots(area, (x + 2 * r + 2, y + row / 2), r, &colors)
        } else {
            pixel_text(area, "?", (x, y + (row - 5 * px) / 2), px, &WHITE)
        }
    }

    fn partial_view(&self) -> bool {
        self.settings.view_radius.is_some()
    }

    fn sees(&self, state: &v2::State, player: usize, p: Pos) -> bool {
        match state.agents.get(player) {
            Some(a) => v2::obs::visible(&self.settings, a.pos, p),
            None => true,
        }
    }

    fn caption(&self, state: &v2::State) -> Option<String> {
        let names = &self.layout.ingredient_names;
        let mut text = format!("recipe: {}", state.recipe.describe(names));
        for p in self.layout.cells_of(V2Tile::Button) {
            let t = state.timer_at(&self.layout, p);
            if t > 0 {
                text.push_str(&format!("; button ({}, {}) lit for {t} more steps", p.x, p.y));
            }
        }
        Some(text)
    }
}

impl Kitchen for OvercookedV2 {
    fn kitchen_name(&self) -> String {
        format!("v2:{}", self.layout.name)
    }

    fn slots(&self, state: &v2::State) -> (bool, usize) {
        let cells = self.layout.cells();
        (state.items.len() == cells && state.timers.len() == cells, state.items.len())
    }

    fn tile_at(&self, p: Pos) -> KitchenTile {
        match self.layout.tile(p) {
            V2Tile::Floor => KitchenTile::Floor,
            V2Tile::Counter | V2Tile::RecipeIndicator | V2Tile::Button => KitchenTile::Counter,
            V2Tile::Goal => KitchenTile::Serve,
            V2Tile::PlatePile => KitchenTile::Plates,
            V2Tile::Pile(k) => {
                let (fill, edge) = ingredient_color(&self.layout.ingredient_names, k);
                KitchenTile::Crate(fill, edge)
            }
            V2Tile::Pot => KitchenTile::Pot,
        }
    }

    /// A pile's kind digit, a pot's contents and timer, the recipe indicator, the button
    /// (lit or not), and the item on a counter.
    fn draw_on_cell<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        g: &Geom,
        state: &v2::State,
        p: Pos,
    ) -> Drawn<DB> {
        let layout = &*self.layout;
        let c = g.c;
        let (cx, cy) = g.center(p);
        let (x0, y0) = g.corner(p);
        match layout.tile(p) {
            V2Tile::Pile(k) => {
                // The kind's digit, as in the text board and the layout file.
                let px = (c / 24).max(1);
                pixel_text(area, &k.to_string(), (x0 + c / 8 + px, y0 + c / 8 + px), px, &WHITE)
            }
            V2Tile::Pot => {
                let r = (c / 9).max(1);
                match state.pot(layout, p) {
                    PotPhase::Idle(contents) => dots(area, (cx, cy), r, &colors_of(self, contents)),
                    PotPhase::Cooking { contents, left } => {
                        disc(area, (cx, cy), c * 3 / 10, &SOUP, None)?;
                        dots(area, (cx, cy), r, &colors_of(self, contents))?;
                        let total = f64::from(v2::COOK_TIME);
                        let frac = ((total - f64::from(left)) / total).clamp(0.0, 1.0);
                        cooking_bar(area, g, p, frac, false)
                    }
                    PotPhase::Ready(contents) => {
                        disc(area, (cx, cy), c * 3 / 10, &SOUP, None)?;
                        dots(area, (cx, cy), r, &colors_of(self, contents))?;
                        cooking_bar(area, g, p, 1.0, true)
                    }
                }
            }
            V2Tile::RecipeIndicator => {
                let m = c / 8;
                rect(area, (x0 + m, y0 + c / 4), (x0 + c - 1 - m, y0 + c - 1 - c / 4), &INDICATOR, Some(&BLACK))?;
                dots(area, (cx, cy), (c / 10).max(1), &recipe_colors(self, state.recipe))
            }
            V2Tile::Button => {
                let left = state.timer_at(layout, p);
                if left > 0 {
                    disc(area, (cx, cy), c * 2 / 5, &BUTTON_LIT, Some(&ONION_EDGE))?;
                    dots(area, (cx, cy), (c / 10).max(1), &recipe_colors(self, state.recipe))?;
                    // Steps it stays lit, as a bar like a pot's.
                    let frac = (f64::from(left) / f64::from(v2::BUTTON_TIME)).clamp(0.0, 1.0);
                    cooking_bar(area, g, p, frac, true)
                } else {
                    disc(area, (cx, cy), c / 4, &BUTTON_OFF, Some(&BLACK))
                }
            }
            V2Tile::Counter => match layout.index(p) {
                Some(i) => v2_item(self, area, state.items[i], (cx, cy), c * 3 / 10),
                None => Ok(()),
            },
            V2Tile::Floor | V2Tile::Goal | V2Tile::PlatePile => Ok(()),
        }
    }

    fn chefs(&self, state: &v2::State) -> Vec<(Pos, Dir)> {
        state.agents.iter().map(|a| (a.pos, a.dir)).collect()
    }

    fn draw_held<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        state: &v2::State,
        i: usize,
        hand: (i32, i32),
        r: i32,
    ) -> Drawn<DB> {
        match state.agents.get(i) {
            Some(a) => v2_item(self, area, a.held, hand, r),
            None => Ok(()),
        }
    }
}

/// 3×5 glyphs of the characters the status lines, labels and pieces need (digits, capital
/// letters, a few signs); lower-case letters are drawn as capitals.
fn glyph(ch: char) -> Option<[&'static str; 5]> {
    Some(match ch {
        '0' | 'O' => ["###", "#.#", "#.#", "#.#", "###"],
        '1' => [".#.", "##.", ".#.", ".#.", "###"],
        '2' => ["###", "..#", "###", "#..", "###"],
        '3' => ["###", "..#", "###", "..#", "###"],
        '4' => ["#.#", "#.#", "###", "..#", "..#"],
        '5' | 'S' => ["###", "#..", "###", "..#", "###"],
        '6' => ["###", "#..", "###", "#.#", "###"],
        '7' => ["###", "..#", "..#", "..#", "..#"],
        '8' => ["###", "#.#", "###", "#.#", "###"],
        '9' => ["###", "#.#", "###", "..#", "###"],
        'T' => ["###", ".#.", ".#.", ".#.", ".#."],
        'C' => ["###", "#..", "#..", "#..", "###"],
        'R' => ["##.", "#.#", "##.", "#.#", "#.#"],
        'E' => ["###", "#..", "##.", "#..", "###"],
        'I' => ["###", ".#.", ".#.", ".#.", "###"],
        'P' => ["##.", "#.#", "##.", "#..", "#.."],
        '?' => ["##.", "..#", ".#.", "...", ".#."],
        '-' => ["...", "...", "###", "...", "..."],
        '/' => ["..#", "..#", ".#.", "#..", "#.."],
        ' ' => ["...", "...", "...", "...", "..."],
        'A' => [".#.", "#.#", "###", "#.#", "#.#"],
        'B' => ["##.", "#.#", "##.", "#.#", "##."],
        'D' => ["##.", "#.#", "#.#", "#.#", "##."],
        'F' => ["###", "#..", "##.", "#..", "#.."],
        'G' => ["###", "#..", "#.#", "#.#", "###"],
        'H' => ["#.#", "#.#", "###", "#.#", "#.#"],
        'J' => ["..#", "..#", "..#", "#.#", "###"],
        'K' => ["#.#", "##.", "#..", "##.", "#.#"],
        'L' => ["#..", "#..", "#..", "#..", "###"],
        'M' => ["#.#", "###", "###", "#.#", "#.#"],
        'N' => ["##.", "#.#", "#.#", "#.#", "#.#"],
        'Q' => ["###", "#.#", "#.#", "###", "..#"],
        'U' => ["#.#", "#.#", "#.#", "#.#", "###"],
        'V' => ["#.#", "#.#", "#.#", "#.#", ".#."],
        'W' => ["#.#", "#.#", "###", "###", "#.#"],
        'X' => ["#.#", "#.#", ".#.", "#.#", "#.#"],
        'Y' => ["#.#", "#.#", ".#.", ".#.", ".#."],
        'Z' => ["###", "..#", ".#.", "#..", "###"],
        '>' => ["#..", ".#.", "..#", ".#.", "#.."],
        '+' => ["...", ".#.", "###", ".#.", "..."],
        ':' => ["...", ".#.", "...", ".#.", "..."],
        '.' => ["...", "...", "...", "...", ".#."],
        _ => return None,
    })
}

pub(crate) fn pixel_text<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    at: (i32, i32),
    px: i32,
    color: &RGBColor,
) -> Drawn<DB> {
    #[cfg(test)]
    bounds::text(text, at, px);
    let mut x = at.0;
    for ch in text.chars() {
        let Some(rows) = glyph(ch.to_ascii_uppercase()) else { continue };
        for (ry, row) in rows.iter().enumerate() {
            for (rx, b) in row.bytes().enumerate() {
                if b == b'#' {
                    let (px0, py0) = (x + rx as i32 * px, at.1 + ry as i32 * px);
                    // One pixel of overlap: SVG rectangles end before their corner, bitmaps on it.
                    area.draw(&Rectangle::new([(px0, py0), (px0 + px, py0 + px)], color.filled()))?;
                }
            }
        }
        x += 4 * px;
    }
    Ok(())
}

/// What was drawn where, recorded while a test draws a picture: every text's box (from
/// [`pixel_text`]) and every box a game marks as solid (a card), so a test can check that
/// text stays inside the picture and off what it would hide.
#[cfg(test)]
pub(crate) mod bounds {
    use std::cell::RefCell;

    /// A box, left, top, right, bottom (inclusive), in picture pixels.
    pub type Box4 = (i32, i32, i32, i32);

    thread_local! {
        static TEXTS: RefCell<Vec<(String, Box4)>> = const { RefCell::new(Vec::new()) };
        static SOLIDS: RefCell<Vec<Box4>> = const { RefCell::new(Vec::new()) };
    }

    /// Records a text drawn by `pixel_text` (glyphs 3 px wide, 5 high, 4 apart).
    pub fn text(text: &str, at: (i32, i32), px: i32) {
        let n = text.chars().filter(|c| super::glyph(c.to_ascii_uppercase()).is_some()).count() as i32;
        if n > 0 {
            let b = (at.0, at.1, at.0 + (4 * n - 1) * px - 1, at.1 + 5 * px - 1);
            TEXTS.with(|t| t.borrow_mut().push((text.to_string(), b)));
        }
    }

    /// Records a solid box (a card) that text must not partly cover.
    pub fn solid(b: Box4) {
        SOLIDS.with(|s| s.borrow_mut().push(b));
    }

    /// The texts and solid boxes recorded since the last call (and forgets them).
    pub fn take() -> (Vec<(String, Box4)>, Vec<Box4>) {
        (TEXTS.with(|t| std::mem::take(&mut *t.borrow_mut())), SOLIDS.with(|s| std::mem::take(&mut *s.borrow_mut())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::env::{Action, Layout};
    use std::sync::Arc;

    fn classic() -> Overcooked {
        Overcooked::new(Arc::new(Layout::builtin("cramped_room").unwrap()), 400)
    }

    #[test]
    fn svg_is_deterministic_and_shows_what_changes() {
        let game = classic();
        let l = &game.layout;
        let s0 = l.start_state();
        let a = svg(&game, &s0, &Overlay::default(), 40).unwrap();
        assert_eq!(a, svg(&game, &s0, &Overlay::default(), 40).unwrap());
        assert!(a.starts_with("<svg") && a.contains("width=\"200\"") && a.contains("height=\"160\""), "{a}");
        let mut s1 = s0.clone();
        l.step(&mut s1, [Action::West, Action::Stay]);
        assert_ne!(a, svg(&game, &s1, &Overlay::default(), 40).unwrap(), "a turn changes the picture");
        let with = Overlay {
            status: Some(Status { t: 3, horizon: 400, score: 20 }),
            highlights: vec![Highlight { at: Pos::new(0, 1), constructive: true }],
            view: None,
        };
        let b = svg(&game, &s0, &with, 40).unwrap();
        assert!(b.contains("height=\"180\""), "status line on top");
        assert!(b.contains("#D81B60") || b.contains("#d81b60"), "hand-over colour");
        // The classic game has no partial view: asking for one changes nothing.
        let viewed = Overlay { view: Some(PlayerView { player: 0, hide: true }), ..Overlay::default() };
        assert_eq!(a, svg(&game, &s0, &viewed, 40).unwrap());
    }

    #[test]
    fn png_and_gif_files() {
        let dir = tempfile::tempdir().unwrap();
        let game = classic();
        let l = &game.layout;
        let s = l.start_state();
        let png = dir.path().join("a.png");
        write_png(&png, &game, &s, &Overlay::default(), 20).unwrap();
        assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
        let gif = dir.path().join("a.gif");
        let mut s2 = s.clone();
        l.step(&mut s2, [Action::Interact, Action::North]);
        let n = write_gif(&gif, &game, [(&s, Overlay::default()), (&s2, Overlay::default())], 20, 100).unwrap();
        assert_eq!(n, 2);
        assert!(std::fs::read(&gif).unwrap().starts_with(b"GIF89a"));
        // The encoders' settings are pinned. When the view crate took the encoding over from
        // plotters' file encoders (the `image` crate), 18 renders of six games came out
        // byte for byte the same.
        let file_hash = |p: &Path| {
            let mut h = 0xcbf2_9ce4_8422_2325_u64;
            fnv(&mut h, &std::fs::read(p).unwrap());
            h
        };
        assert_eq!(
            [file_hash(&png), file_hash(&gif)],
            [7218321093256372324, 17271089150629668420],
            "the encoded files changed"
        );
        let bad = write_png(Path::new("/nonexistent/dir/a.png"), &game, &s, &Overlay::default(), 20).unwrap_err();
        assert!(bad.to_string().starts_with("/nonexistent/dir/a.png"), "{bad}");
    }

    /// 64-bit FNV-1a of everything drawn: a pin of the pictures, not a security measure.
    fn fnv(hash: &mut u64, bytes: &[u8]) {
        for b in bytes {
            *hash ^= u64::from(*b);
            *hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// Every 7th frame of `steps` seeded pseudo-random steps of `game` drawn as SVG (at two
    /// cell sizes, bare and with the status line, a hand-over mark and each view of player
    /// 0) and as a bitmap (the pixels PNG and GIF files encode), hashed together.
    fn pictures_hash<G: Board>(game: &G, steps: usize, tweak: impl Fn(&mut G::State, usize)) -> u64 {
        let mut chance = proagent_core::episode::env_chance(11);
        let mut state = game.initial_state(&mut chance);
        let (mut hash, mut rng) = (0xcbf2_9ce4_8422_2325_u64, 0x2545_f491_4f6c_dd1d_u64);
        for t in 0..steps {
            if t % 7 == 0 {
                tweak(&mut state, t);
                let status = Some(Status { t: t as u32, horizon: 400, score: t as i64 - 20 });
                let views =
                    [None, Some(PlayerView { player: 0, hide: false }), Some(PlayerView { player: 0, hide: true })];
                for (k, view) in views.into_iter().enumerate() {
                    let highlights = vec![Highlight { at: Pos::new(1, 1), constructive: k == 1 }];
                    for overlay in [Overlay { view, ..Overlay::default() }, Overlay { status, highlights, view }] {
                        for cell in [20, 48] {
                            fnv(&mut hash, svg(game, &state, &overlay, cell).unwrap().as_bytes());
                        }
                        fnv(&mut hash, &rgb(game, &state, &overlay, 16).unwrap().0);
                    }
                }
            }
            if game.is_over(&state) {
                break;
            }
            let joint: Vec<Option<G::Action>> = (0..game.num_players())
                .map(|p| {
                    rng ^= rng << 13;
                    rng ^= rng >> 7;
                    rng ^= rng << 17;
                    let legal = game.legal_actions(game.view(&state, p), p);
                    legal.get((rng % legal.len().max(1) as u64) as usize).copied()
                })
                .collect();
            game.step(&mut state, &joint, &mut chance);
        }
        hash
    }

    /// The two Overcookeds' pictures, pinned (hashes taken before their boards were drawn
    /// through one kitchen helper): any change to a pixel or an SVG byte fails here.
    #[test]
    fn the_overcooked_pictures_are_pinned() {
        let classic_hash = pictures_hash(&classic(), 300, |s, t| {
            // Pieces random play seldom makes: a dish and a soup in hand, items on counters.
            if t == 140 {
                s.players[0].held = Some(Object::Dish);
                s.players[1].held = Some(Object::Ingredient(Ingredient::Tomato));
                s.objects[0] = Some(Object::Ingredient(Ingredient::Onion));
                s.objects[1] = Some(Object::Dish);
            }
        });
        let game = v2_game("grounded_coord_simple", None);
        let (button, counter, pot) = (
            game.layout.index(game.layout.cells_of(V2Tile::Button).next().unwrap()).unwrap(),
            game.layout.index(game.layout.cells_of(V2Tile::Counter).next().unwrap()).unwrap(),
            game.layout.index(game.layout.pots()[0]).unwrap(),
        );
        let v2_hash = pictures_hash(&game, 200, |s, t| {
            if t == 70 {
                s.timers[button] = 5;
                s.items[counter] = Item::ingredient(1);
                s.items[pot] = Item::ingredient(0).plus(Item::ingredient(0)).plus(Item::ingredient(1));
                s.timers[pot] = 7;
                s.agents[0].held = Item::ingredient(0).plus(Item::ingredient(1)).cooked().plated();
                s.agents[1].held = Item::ingredient(1);
            }
        });
        let radius_hash = pictures_hash(&v2_game("two_rooms", Some(1)), 60, |_, _| ());
        assert_eq!(
            [classic_hash, v2_hash, radius_hash],
            [15016975011205892596, 16060038284147589182, 18386818806600726377],
            "the pictures changed"
        );
    }

    fn v2_game(name: &str, radius: Option<u8>) -> OvercookedV2 {
        let layout = v2::Layout::builtin(name).unwrap();
        OvercookedV2::new(Arc::new(layout), v2::Settings { view_radius: radius, ..v2::Settings::default() })
    }

    #[test]
    fn a_v2_board_shows_ingredients_pots_the_button_and_the_recipe() {
        let game = v2_game("grounded_coord_simple", None);
        let mut s = game.initial_state(&mut proagent_core::game::NoChance);
        let (w, h) = game.grid();
        let plain = svg(&game, &s, &Overlay::default(), 20).unwrap();
        assert!(plain.contains(&format!("width=\"{}\"", w * 20)) && plain.contains(&format!("height=\"{}\"", h * 20)));
        // Two status rows: time and score, then the recipe.
        let status = Overlay { status: Some(Status { t: 0, horizon: 400, score: -5 }), ..Overlay::default() };
        let with = svg(&game, &s, &status, 20).unwrap();
        assert!(with.contains(&format!("height=\"{}\"", h * 20 + 20)), "{}", &with[..200]);
        // A lit button, a tomato on a counter and a cooking pot each change the picture.
        let button = game.layout.cells_of(V2Tile::Button).next().expect("the layout has a button");
        let bi = game.layout.index(button).unwrap();
        s.timers[bi] = 5;
        let lit = svg(&game, &s, &Overlay::default(), 20).unwrap();
        assert_ne!(plain, lit);
        assert!(lit.contains("#FFD43B") || lit.contains("#ffd43b"), "the lit button's colour");
        let counter = game.layout.cells_of(V2Tile::Counter).next().unwrap();
        s.items[game.layout.index(counter).unwrap()] = Item::ingredient(1);
        let pot = game.layout.pots()[0];
        let pi = game.layout.index(pot).unwrap();
        s.items[pi] = Item::ingredient(0).plus(Item::ingredient(0)).plus(Item::ingredient(1));
        s.timers[pi] = 7;
        let busy = svg(&game, &s, &Overlay::default(), 20).unwrap();
        assert_ne!(lit, busy);
        assert!(busy.contains("#EF8A17") || busy.contains("#ef8a17"), "the cooking bar");
        // The caption names the recipe and the lit button.
        let cap = game.caption(&s).unwrap();
        assert!(cap.starts_with("recipe: ") && cap.contains("lit for 5 more steps"), "{cap}");
        // A state of another layout is refused by the check and drawn as nothing.
        let other = v2_game("cramped_room", None);
        let wrong = other.initial_state(&mut proagent_core::game::NoChance);
        assert!(game.check(&wrong).is_err());
    }

    #[test]
    fn a_view_radius_shades_what_the_player_does_not_see() {
        let game = v2_game("two_rooms", Some(1));
        let s = game.initial_state(&mut proagent_core::game::NoChance);
        let all = svg(&game, &s, &Overlay::default(), 20).unwrap();
        let shaded = Overlay { view: Some(PlayerView { player: 0, hide: false }), ..Overlay::default() };
        let hidden = Overlay { view: Some(PlayerView { player: 0, hide: true }), ..Overlay::default() };
        let a = svg(&game, &s, &shaded, 20).unwrap();
        let b = svg(&game, &s, &hidden, 20).unwrap();
        assert!(a != all && b != all && a != b);
        assert!(a.contains("opacity=\"0.45\""), "translucent shade");
        let me = s.agents[0].pos;
        assert!(game.sees(&s, 0, me) && !game.sees(&s, 0, Pos::new(me.x + 3, me.y)));
        // Without a radius there is nothing to shade.
        let full = v2_game("two_rooms", None);
        assert_eq!(svg(&full, &s, &Overlay::default(), 20).unwrap(), svg(&full, &s, &hidden, 20).unwrap());
    }
}
