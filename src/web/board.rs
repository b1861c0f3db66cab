//! The board drawing: one routine, written against plotters' `DrawingBackend`, that
//! draws a state as the viewer shows it (SVG for the browser and `render --out x.svg`,
//! bitmaps for PNG and animated GIF). Same layout + state + overlay → same picture.
//!
//! No text is drawn with fonts (bitmap backends would need a font file at run time):
//! the few numbers (timestep, score, player index) use a small built-in pixel font.

use plotters::coord::Shift;
use plotters::prelude::*;
use proagent_overcooked::env::{Dir, Ingredient, Layout, Object, Player, Pos, State, Tile};
use std::path::Path;

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
    /// The score so far.
    pub score: u32,
}

/// A marked cell: where an object was handed over between the players.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Highlight {
    /// The cell.
    pub at: Pos,
    /// Constructive hand-overs are drawn in the strong colour, the others dashed-looking pale.
    pub constructive: bool,
}

/// What is drawn on top of the state.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Overlay {
    /// The status line; `None` draws the grid only (the viewer shows the status in the page).
    pub status: Option<Status>,
    /// Cells to outline.
    pub highlights: Vec<Highlight>,
}

/// The picture's size in pixels for a cell size.
pub fn frame_size(layout: &Layout, cell: u32, with_status: bool) -> (u32, u32) {
    let top = if with_status { status_height(cell) } else { 0 };
    (layout.width as u32 * cell, layout.height as u32 * cell + top)
}

fn status_height(cell: u32) -> u32 {
    (cell / 2).max(10)
}

const FLOOR: RGBColor = RGBColor(0xf4, 0xef, 0xe4);
const FLOOR_LINE: RGBColor = RGBColor(0xe3, 0xdc, 0xcc);
const COUNTER: RGBColor = RGBColor(0xc9, 0xa2, 0x6b);
const COUNTER_EDGE: RGBColor = RGBColor(0x8d, 0x6a, 0x3d);
const POT: RGBColor = RGBColor(0x45, 0x47, 0x4d);
const ONION: RGBColor = RGBColor(0xe8, 0xc5, 0x47);
const ONION_EDGE: RGBColor = RGBColor(0x9c, 0x7a, 0x12);
const TOMATO: RGBColor = RGBColor(0xd9, 0x3b, 0x2b);
const DISH: RGBColor = RGBColor(0xfb, 0xfb, 0xfb);
const DISH_EDGE: RGBColor = RGBColor(0x8a, 0x8a, 0x8a);
const SOUP: RGBColor = RGBColor(0xe0, 0x7b, 0x39);
const CRATE: RGBColor = RGBColor(0x7b, 0x50, 0x2a);
const SERVE: RGBColor = RGBColor(0x8b, 0xc3, 0x4a);
const SERVE_EDGE: RGBColor = RGBColor(0x4e, 0x7d, 0x1c);
const COOKING: RGBColor = RGBColor(0xef, 0x8a, 0x17);
const READY: RGBColor = RGBColor(0x2e, 0xa0, 0x43);
const BAR_BG: RGBColor = RGBColor(0x2b, 0x2b, 0x2b);
const CHEF: [RGBColor; 2] = [RGBColor(0x2f, 0x6b, 0xd8), RGBColor(0x2a, 0x9d, 0x5c)];
const HAND_OVER: RGBColor = RGBColor(0xd8, 0x1b, 0x60);
const HAND_OVER_WEAK: RGBColor = RGBColor(0xf0, 0x9a, 0xbb);
const STATUS_BG: RGBColor = RGBColor(0x26, 0x2b, 0x33);

/// The board as an SVG document.
pub fn svg(layout: &Layout, state: &State, overlay: &Overlay, cell: u32) -> Result<String, DrawError> {
    let mut out = String::new();
    {
        let size = frame_size(layout, cell, overlay.status.is_some());
        let area = SVGBackend::with_string(&mut out, size).into_drawing_area();
        draw(&area, layout, state, overlay, cell).map_err(|e| backend("svg", e))?;
        area.present().map_err(|e| backend("svg", e))?;
    }
    Ok(out)
}

/// Writes one frame as a PNG file.
pub fn write_png(path: &Path, layout: &Layout, state: &State, overlay: &Overlay, cell: u32) -> Result<(), DrawError> {
    let target = path.display().to_string();
    let size = frame_size(layout, cell, overlay.status.is_some());
    let area = BitMapBackend::new(path, size).into_drawing_area();
    draw(&area, layout, state, overlay, cell).map_err(|e| backend(&target, e))?;
    area.present().map_err(|e| backend(&target, e))
}

/// Writes the frames as an animated GIF, `delay_ms` per frame (GIF counts in 10 ms units).
pub fn write_gif<'a>(
    path: &Path,
    layout: &Layout,
    frames: impl IntoIterator<Item = (&'a State, Overlay)>,
    cell: u32,
    delay_ms: u32,
) -> Result<usize, DrawError> {
    let target = path.display().to_string();
    let mut frames = frames.into_iter().peekable();
    let with_status = frames.peek().is_some_and(|(_, o)| o.status.is_some());
    let size = frame_size(layout, cell, with_status);
    let area = BitMapBackend::gif(path, size, delay_ms.max(10))
        .map_err(|e| DrawError::Backend { target: target.clone(), message: e.to_string() })?
        .into_drawing_area();
    let mut n = 0;
    for (state, overlay) in frames {
        draw(&area, layout, state, &overlay, cell).map_err(|e| backend(&target, e))?;
        area.present().map_err(|e| backend(&target, e))?;
        n += 1;
    }
    Ok(n)
}

fn backend<E: std::error::Error + Send + Sync>(target: &str, e: DrawingAreaErrorKind<E>) -> DrawError {
    DrawError::Backend { target: target.to_string(), message: e.to_string() }
}

type Drawn<DB> = Result<(), DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

/// Draws `state` on `area` (which must be [`frame_size`] large): the grid, the objects,
/// the pots' contents and progress, the chefs with their facing and what they hold,
/// hand-over marks and the status line.
pub fn draw<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    layout: &Layout,
    state: &State,
    overlay: &Overlay,
    cell: u32,
) -> Drawn<DB> {
    if state.objects.len() != layout.width * layout.height {
        // Draw nothing rather than index out of bounds; callers check with `check`.
        return Ok(());
    }
    let c = cell as i32;
    let top = if let Some(st) = overlay.status {
        let h = status_height(cell) as i32;
        area.draw(&Rectangle::new([(0, 0), (layout.width as i32 * c, h)], STATUS_BG.filled()))?;
        let px = (h / 7).max(1);
        let text = format!("T {}/{}  SCORE {}", st.t, st.horizon, st.score);
        pixel_text(area, &text, (px * 2, (h - 5 * px) / 2), px, &WHITE)?;
        h
    } else {
        0
    };
    let g = Geom { c, top };
    for y in 0..layout.height {
        for x in 0..layout.width {
            let p = Pos::new(x as u8, y as u8);
            tile(area, &g, layout.tile(p), p)?;
        }
    }
    for (p, o) in state.objects_sorted(layout) {
        let (cx, cy) = g.center(p);
        if layout.tile(p) == Tile::Pot {
            if let Object::Soup(s) = o {
                pot_contents(area, &g, p, s.ingredients(), s.cooking_tick, s.cook_time, s.is_ready())?;
            }
        } else {
            object(area, o, (cx, cy), c * 3 / 10)?;
        }
    }
    for h in &overlay.highlights {
        let (x0, y0) = g.corner(h.at);
        let color = if h.constructive { HAND_OVER } else { HAND_OVER_WEAK };
        let w = (c / 14).max(2);
        for k in 0..w {
            area.draw(&Rectangle::new([(x0 + k, y0 + k), (x0 + c - 1 - k, y0 + c - 1 - k)], color.stroke_width(1)))?;
        }
    }
    for (i, p) in state.players.iter().enumerate() {
        chef(area, &g, i, p)?;
    }
    Ok(())
}

/// Checks that a state can be drawn on a layout.
pub fn check(layout: &Layout, state: &State) -> Result<(), DrawError> {
    let cells = layout.width * layout.height;
    if state.objects.len() != cells {
        return Err(DrawError::Mismatch { layout: layout.name.clone(), cells, objects: state.objects.len() });
    }
    Ok(())
}

struct Geom {
    c: i32,
    top: i32,
}

impl Geom {
    fn corner(&self, p: Pos) -> (i32, i32) {
        (p.x as i32 * self.c, p.y as i32 * self.c + self.top)
    }
    fn center(&self, p: Pos) -> (i32, i32) {
        let (x, y) = self.corner(p);
        (x + self.c / 2, y + self.c / 2)
    }
}

fn rect<DB: DrawingBackend>(
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

fn disc<DB: DrawingBackend>(
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

fn tile<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, g: &Geom, t: Tile, p: Pos) -> Drawn<DB> {
    let c = g.c;
    let (x0, y0) = g.corner(p);
    let (x1, y1) = (x0 + c - 1, y0 + c - 1);
    let (cx, cy) = g.center(p);
    match t {
        Tile::Floor => rect(area, (x0, y0), (x1, y1), &FLOOR, Some(&FLOOR_LINE)),
        Tile::Counter => rect(area, (x0, y0), (x1, y1), &COUNTER, Some(&COUNTER_EDGE)),
        Tile::Pot => {
            rect(area, (x0, y0), (x1, y1), &COUNTER, Some(&COUNTER_EDGE))?;
            disc(area, (cx, cy), c * 2 / 5, &POT, None)?;
            // Handles.
            let hw = c / 12;
            rect(area, (x0 + c / 14, cy - hw), (x0 + c / 6, cy + hw), &POT, None)?;
            rect(area, (x1 - c / 6, cy - hw), (x1 - c / 14, cy + hw), &POT, None)
        }
        Tile::OnionSource | Tile::TomatoSource => {
            rect(area, (x0, y0), (x1, y1), &COUNTER, Some(&COUNTER_EDGE))?;
            let m = c / 8;
            rect(area, (x0 + m, y0 + m), (x1 - m, y1 - m), &CRATE, None)?;
            let (fill, edge) = if t == Tile::OnionSource { (ONION, ONION_EDGE) } else { (TOMATO, CRATE) };
            let r = c / 8;
            for (dx, dy) in [(-1, -1), (1, -1), (0, 1)] {
                disc(area, (cx + dx * c / 6, cy + dy * c / 7), r, &fill, Some(&edge))?;
            }
            Ok(())
        }
        Tile::DishSource => {
            rect(area, (x0, y0), (x1, y1), &COUNTER, Some(&COUNTER_EDGE))?;
            for k in 0..3 {
                disc(area, (cx - c / 10 + k * c / 10, cy + c / 10 - k * c / 10), c / 4, &DISH, Some(&DISH_EDGE))?;
            }
            Ok(())
        }
        Tile::Serve => {
            rect(area, (x0, y0), (x1, y1), &SERVE, Some(&SERVE_EDGE))?;
            let m = c / 5;
            rect(area, (x0 + m, y0 + m), (x1 - m, y1 - m), &SERVE, Some(&SERVE_EDGE))?;
            // An arrow into the window.
            let a = c / 6;
            area.draw(&Polygon::new(vec![(cx - a, cy - a), (cx + a, cy), (cx - a, cy + a)], SERVE_EDGE.filled()))
        }
    }
}

fn object<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, o: &Object, at: (i32, i32), r: i32) -> Drawn<DB> {
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

fn pot_contents<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    g: &Geom,
    p: Pos,
    ings: &[Ingredient],
    tick: i16,
    cook_time: u16,
    ready: bool,
) -> Drawn<DB> {
    let c = g.c;
    let (cx, cy) = g.center(p);
    let (x0, y0) = g.corner(p);
    if tick >= 0 {
        disc(area, (cx, cy), c * 3 / 10, &SOUP, None)?;
    }
    // One dot per ingredient, in a row across the pot.
    let n = ings.len() as i32;
    let r = (c / 9).max(1);
    for (k, ing) in ings.iter().enumerate() {
        let x = cx + (2 * k as i32 - (n - 1)) * (r * 2 + 1) / 2;
        let (fill, edge) = if *ing == Ingredient::Onion { (ONION, ONION_EDGE) } else { (TOMATO, CRATE) };
        disc(area, (x, cy), r, &fill, Some(&edge))?;
    }
    if tick >= 0 {
        // Cooking progress along the bottom of the cell; full and green when ready.
        let (bx0, bx1) = (x0 + c / 10, x0 + c - c / 10);
        let (by0, by1) = (y0 + c - c / 6, y0 + c - c / 14);
        rect(area, (bx0, by0), (bx1, by1), &BAR_BG, None)?;
        let frac = if ready || cook_time == 0 { 1.0 } else { (tick as f64 / cook_time as f64).clamp(0.0, 1.0) };
        let w = ((bx1 - bx0) as f64 * frac).round() as i32;
        if w > 0 {
            rect(area, (bx0, by0), (bx0 + w, by1), if ready { &READY } else { &COOKING }, None)?;
        }
    }
    Ok(())
}

fn chef<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, g: &Geom, i: usize, p: &Player) -> Drawn<DB> {
    let c = g.c;
    let (cx, cy) = g.center(p.pos);
    let (dx, dy) = p.dir.delta();
    let (dx, dy) = (dx as i32, dy as i32);
    let body = c * 3 / 10;
    let color = CHEF[i.min(1)];
    // The nose: a triangle pointing where the chef faces.
    let tip = (cx + dx * (body + c / 7), cy + dy * (body + c / 7));
    let side = (-dy, dx);
    let base =
        |s: i32| (cx + dx * body / 2 + s * side.0 * body * 3 / 4, cy + dy * body / 2 + s * side.1 * body * 3 / 4);
    area.draw(&Polygon::new(vec![tip, base(1), base(-1)], color.filled()))?;
    disc(area, (cx, cy), body, &color, Some(&BLACK))?;
    // The player index, so the picture matches "Player 0" / "Player 1" in the prompts.
    let px = (c / 16).max(1);
    let digit = if i == 0 { "0" } else { "1" };
    pixel_text(area, digit, (cx - px * 3 / 2, cy - px * 5 / 2), px, &WHITE)?;
    if let Some(o) = &p.held {
        let at = (cx + dx * c * 2 / 5, cy + dy * c * 2 / 5);
        let at = if p.dir == Dir::North || p.dir == Dir::South { (at.0 + c / 6, at.1) } else { (at.0, at.1 + c / 6) };
        object(area, o, at, c / 5)?;
    }
    Ok(())
}

/// 3×5 glyphs of the characters the status line and chefs need.
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
        '/' => ["..#", "..#", ".#.", "#..", "#.."],
        ' ' => ["...", "...", "...", "...", "..."],
        _ => return None,
    })
}

fn pixel_text<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    at: (i32, i32),
    px: i32,
    color: &RGBColor,
) -> Drawn<DB> {
    let mut x = at.0;
    for ch in text.chars() {
        let Some(rows) = glyph(ch) else { continue };
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

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::env::Action;

    #[test]
    fn svg_is_deterministic_and_shows_what_changes() {
        let l = Layout::builtin("cramped_room").unwrap();
        let s0 = l.start_state();
        let a = svg(&l, &s0, &Overlay::default(), 40).unwrap();
        assert_eq!(a, svg(&l, &s0, &Overlay::default(), 40).unwrap());
        assert!(a.starts_with("<svg") && a.contains("width=\"200\"") && a.contains("height=\"160\""), "{a}");
        let mut s1 = s0.clone();
        l.step(&mut s1, [Action::West, Action::Stay]);
        assert_ne!(a, svg(&l, &s1, &Overlay::default(), 40).unwrap(), "a turn changes the picture");
        let with = Overlay {
            status: Some(Status { t: 3, horizon: 400, score: 20 }),
            highlights: vec![Highlight { at: Pos::new(0, 1), constructive: true }],
        };
        let b = svg(&l, &s0, &with, 40).unwrap();
        assert!(b.contains("height=\"180\""), "status line on top");
        assert!(b.contains("#D81B60") || b.contains("#d81b60"), "hand-over colour");
    }

    #[test]
    fn png_and_gif_files() {
        let dir = tempfile::tempdir().unwrap();
        let l = Layout::builtin("cramped_room").unwrap();
        let s = l.start_state();
        let png = dir.path().join("a.png");
        write_png(&png, &l, &s, &Overlay::default(), 20).unwrap();
        assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
        let gif = dir.path().join("a.gif");
        let mut s2 = s.clone();
        l.step(&mut s2, [Action::Interact, Action::North]);
        let n = write_gif(&gif, &l, [(&s, Overlay::default()), (&s2, Overlay::default())], 20, 100).unwrap();
        assert_eq!(n, 2);
        assert!(std::fs::read(&gif).unwrap().starts_with(b"GIF89a"));
        let bad = write_png(Path::new("/nonexistent/dir/a.png"), &l, &s, &Overlay::default(), 20).unwrap_err();
        assert!(bad.to_string().starts_with("/nonexistent/dir/a.png"), "{bad}");
    }
}
