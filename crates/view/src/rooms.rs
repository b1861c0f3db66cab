//! The maze games as the viewer, `render` and human play draw them ([`Board`] for
//! CollabCapture and CollabEscape): the rooms (numbered as in the maze file) and the
//! passages between them (an arrow on a one-way exit), the doors on passages — red bar
//! when closed, green posts when open, with the door's number — and the buttons that work
//! them (in the button's room, green when its door is open), the generators with their
//! repair progress (green once repaired), the exit gate (green once open), the adversary
//! (the thief `T` or the killer `K`, with a red ring on the player the killer goes after),
//! the two players (blue 0 = Alice, green 1 = Bob) and a top line with the turn and how the
//! game stands.
//!
//! Mazes carry no coordinates, so the rooms are placed by a layered drawing computed from
//! the passages alone (pure and deterministic: the same maze gives the same places):
//! breadth-first layers from the lowest-numbered room become columns, each column ordered by
//! the mean row of its neighbours in the column before; a maze too wide or tall for that
//! (more than [`MAX_LAYERED`] columns or rows) is drawn on a square grid in room order.

use super::board::{
    BAR_BG, Board, COOKING, COUNTER_EDGE, DrawError, Drawn, FLOOR, FLOOR_LINE, Geom, PlayerView, READY, chef_color,
    disc, pixel_text, rect,
};
use plotters::coord::Shift;
use plotters::prelude::*;
use proagent_collab::maze::{Maze, Room};
use proagent_collab::{Capture, CaptureAction, CaptureState, Escape, EscapeAction, EscapeResult, EscapeState};
use std::collections::BTreeSet;

/// Most columns or rows of the layered drawing before the square grid is used instead.
pub const MAX_LAYERED: usize = 10;
/// Cells from one room's corner to the next one's (a room is 2 cells wide, a passage 1).
const PITCH: i32 = 3;

const ROOM_EDGE: RGBColor = RGBColor(0x8d, 0x6a, 0x3d);
const PASSAGE: RGBColor = RGBColor(0x9a, 0x94, 0x8a);
const DOOR_CLOSED: RGBColor = RGBColor(0xc6, 0x28, 0x28);
const DOOR_OPEN: RGBColor = RGBColor(0x2e, 0xa0, 0x43);
const ADVERSARY: RGBColor = RGBColor(0x8e, 0x1b, 0x1b);
const GATE_SHUT: RGBColor = RGBColor(0x6a, 0x6f, 0x78);
const GENERATOR: RGBColor = RGBColor(0x55, 0x5a, 0x63);

/// Where the rooms go: for each room (index = room number; 0 unused) its column and its
/// row in half rows (columns with fewer rooms are centred).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoomPlaces {
    /// Column and half-row of each room.
    pub at: Vec<(i32, i32)>,
    /// Columns used.
    pub cols: i32,
    /// Rows used.
    pub rows: i32,
}

/// The passages of a maze, both ways: `(a, b)` with `a < b`, with whether `a → b` and
/// `b → a` are exits.
fn passages(maze: &Maze) -> Vec<(Room, Room, bool, bool)> {
    let mut pairs: BTreeSet<(Room, Room)> = BTreeSet::new();
    for a in 1..=maze.rooms {
        for &b in maze.exits(a as Room) {
            if b as usize != a {
                pairs.insert((a.min(b as usize) as Room, a.max(b as usize) as Room));
            }
        }
    }
    pairs.into_iter().map(|(a, b)| (a, b, maze.exits(a).contains(&b), maze.exits(b).contains(&a))).collect()
}

/// Places the rooms of `maze` (see the module's doc).
pub fn place_rooms(maze: &Maze) -> RoomPlaces {
    let n = maze.rooms;
    let mut adj: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n + 1];
    for (a, b, _, _) in passages(maze) {
        adj[a as usize].insert(b as usize);
        adj[b as usize].insert(a as usize);
    }
    // Breadth-first layers; rooms not reached start further layers of their own.
    let mut layer = vec![usize::MAX; n + 1];
    let mut layers: Vec<Vec<usize>> = Vec::new();
    for start in 1..=n {
        if layer[start] != usize::MAX {
            continue;
        }
        let base = layers.len();
        let mut frontier = vec![start];
        layer[start] = base;
        while !frontier.is_empty() {
            let depth = layer[frontier[0]];
            if layers.len() <= depth {
                layers.push(Vec::new());
            }
            layers[depth].extend(&frontier);
            let mut next = Vec::new();
            for &r in &frontier {
                for &m in &adj[r] {
                    if layer[m] == usize::MAX {
                        layer[m] = depth + 1;
                        next.push(m);
                    }
                }
            }
            next.sort_unstable();
            frontier = next;
        }
    }
    let tallest = layers.iter().map(Vec::len).max().unwrap_or(1);
    let mut at = vec![(0, 0); n + 1];
    if layers.len() > MAX_LAYERED || tallest > MAX_LAYERED {
        let cols = (1..=n).find(|k| k * k >= n).unwrap_or(1);
        for r in 1..=n {
            at[r] = (((r - 1) % cols) as i32, 2 * ((r - 1) / cols) as i32);
        }
        return RoomPlaces { at, cols: cols as i32, rows: n.div_ceil(cols) as i32 };
    }
    // Order each column by the mean row of its neighbours in the column before.
    let mut row = vec![0f64; n + 1];
    for (k, rooms) in layers.iter_mut().enumerate() {
        if k > 0 {
            let key = |r: &usize| {
                let before: Vec<f64> = adj[*r].iter().filter(|&&m| layer[m] + 1 == k).map(|&m| row[m]).collect();
                if before.is_empty() { f64::MAX } else { before.iter().sum::<f64>() / before.len() as f64 }
            };
            let mut keyed: Vec<(f64, usize)> = rooms.iter().map(|r| (key(r), *r)).collect();
            keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
            *rooms = keyed.into_iter().map(|(_, r)| r).collect();
        }
        let shift = (tallest - rooms.len()) as i32;
        for (i, &r) in rooms.iter().enumerate() {
            row[r] = i as f64 + shift as f64 / 2.0;
            at[r] = (k as i32, 2 * i as i32 + shift);
        }
    }
    RoomPlaces { at, cols: layers.len() as i32, rows: tallest as i32 }
}

/// Pixel geometry of a maze picture.
struct Plan<'a> {
    maze: &'a Maze,
    places: RoomPlaces,
    c: i32,
    top: i32,
}

impl<'a> Plan<'a> {
    fn new(maze: &'a Maze, g: &Geom) -> Plan<'a> {
        Plan { maze, places: place_rooms(maze), c: g.c, top: g.top }
    }

    /// The top-left pixel of a room's box (2 × 2 cells).
    fn corner(&self, r: Room) -> (i32, i32) {
        let (col, half) = self.places.at.get(r as usize).copied().unwrap_or((0, 0));
        let c = self.c;
        (c / 2 + col * PITCH * c, self.top + c + c / 2 + half * PITCH * c / 2)
    }

    fn center(&self, r: Room) -> (i32, i32) {
        let (x, y) = self.corner(r);
        (x + self.c, y + self.c)
    }

    /// The points of the passage between two rooms, and the point where its door goes.
    /// Rooms of one column that are not next to each other are joined around the right.
    fn route(&self, a: Room, b: Room) -> (Vec<(i32, i32)>, (i32, i32)) {
        let (pa, pb) = (self.center(a), self.center(b));
        let (ca, cb) = (self.places.at[a as usize], self.places.at[b as usize]);
        if ca.0 == cb.0 && (ca.1 - cb.1).abs() > 2 {
            let x = self.corner(a).0 + 2 * self.c + self.c / 2;
            let mid = (x, (pa.1 + pb.1) / 2);
            return (vec![pa, (x, pa.1), (x, pb.1), pb], mid);
        }
        (vec![pa, pb], ((pa.0 + pb.0) / 2, (pa.1 + pb.1) / 2))
    }

    fn size(&self) -> (u32, u32) {
        ((self.places.cols * PITCH) as u32, (1 + self.places.rows * PITCH) as u32)
    }
}

/// The grid a maze is drawn on.
fn maze_grid(maze: &Maze) -> (u32, u32) {
    let places = place_rooms(maze);
    ((places.cols * PITCH) as u32, (1 + places.rows * PITCH) as u32)
}

/// The floor, passages (with arrows on one-way exits) and room boxes with their numbers.
fn draw_maze<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: &Plan<'_>) -> Drawn<DB> {
    let c = p.c;
    let (w, h) = p.size();
    rect(area, (0, p.top), (w as i32 * c - 1, p.top + h as i32 * c - 1), &FLOOR_LINE, None)?;
    let thick = (c / 8).max(2) as u32;
    for (a, b, ab, ba) in passages(p.maze) {
        let (pts, mid) = p.route(a, b);
        area.draw(&PathElement::new(pts.clone(), PASSAGE.stroke_width(thick)))?;
        if ab != ba {
            // One way: an arrowhead pointing where the exit leads.
            let (from, to) = if ab { (pts[pts.len() - 2], pts[pts.len() - 1]) } else { (pts[1], pts[0]) };
            let (dx, dy) = ((to.0 - from.0) as f64, (to.1 - from.1) as f64);
            let len = dx.hypot(dy).max(1.0);
            let (ux, uy) = (dx / len, dy / len);
            let s = c as f64 / 3.0;
            let tip = (mid.0 + (ux * s) as i32, mid.1 + (uy * s) as i32);
            let back =
                |side: f64| (mid.0 + (-ux * s + -uy * s * side) as i32, mid.1 + (-uy * s + ux * s * side) as i32);
            area.draw(&Polygon::new(vec![tip, back(0.8), back(-0.8)], BAR_BG.filled()))?;
        }
    }
    for r in 1..=p.maze.rooms as Room {
        let (x0, y0) = p.corner(r);
        rect(area, (x0, y0), (x0 + 2 * c - 1, y0 + 2 * c - 1), &FLOOR, Some(&ROOM_EDGE))?;
        let px = (c / 16).max(1);
        pixel_text(area, &r.to_string(), (x0 + c / 8, y0 + c / 8), px, &COUNTER_EDGE)?;
    }
    Ok(())
}

/// The line across the top of the maze: the turn and how the game stands.
fn top_line<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, p: &Plan<'_>, text: &str) -> Drawn<DB> {
    let (w, _) = p.size();
    super::status_line::status_line(area, p.top, w as i32 * p.c, p.c, text)
}

/// A door on a passage: a bar across it when closed, two posts when open; its number beside.
fn door<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    p: &Plan<'_>,
    i: usize,
    rooms: [Room; 2],
    open: bool,
) -> Drawn<DB> {
    let c = p.c;
    let (pts, (mx, my)) = p.route(rooms[0], rooms[1]);
    // The segment the door sits on.
    let k = if pts.len() == 4 { 1 } else { 0 };
    let (a, b) = (pts[k], pts[k + 1]);
    let horizontal = (b.0 - a.0).abs() >= (b.1 - a.1).abs();
    let (hl, hw) = (c * 2 / 5, (c / 10).max(2));
    if open {
        for s in [-1, 1] {
            let (cx, cy) = if horizontal { (mx, my + s * hl) } else { (mx + s * hl, my) };
            rect(area, (cx - hw, cy - hw), (cx + hw, cy + hw), &DOOR_OPEN, Some(&BAR_BG))?;
        }
    } else if horizontal {
        rect(area, (mx - hw, my - hl), (mx + hw, my + hl), &DOOR_CLOSED, Some(&BAR_BG))?;
    } else {
        rect(area, (mx - hl, my - hw), (mx + hl, my + hw), &DOOR_CLOSED, Some(&BAR_BG))?;
    }
    let px = (c / 16).max(1);
    let (lx, ly) = if horizontal { (mx + hw + px * 2, my - hl - 5 * px) } else { (mx + hl + px * 2, my - hw - 6 * px) };
    pixel_text(area, &(i + 1).to_string(), (lx, ly), px, &BAR_BG)
}

/// A player (0 or 1) in its room: its colour and number, and a red ring when the killer
/// goes after it.
fn player<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    p: &Plan<'_>,
    i: usize,
    room: Room,
    chased: bool,
) -> Drawn<DB> {
    let c = p.c;
    let (x0, y0) = p.corner(room);
    let at = (x0 + c * 9 / 20 + i as i32 * c * 11 / 20, y0 + c * 7 / 5);
    let r = c / 4;
    if chased {
        disc(area, at, r + (c / 10).max(2), &DOOR_CLOSED, None)?;
    }
    disc(area, at, r, &chef_color(i), Some(&BLACK))?;
    let px = (c / 16).max(1);
    pixel_text(area, &i.to_string(), (at.0 - px * 3 / 2, at.1 - px * 5 / 2), px, &WHITE)
}

/// The adversary in its room: a dark red diamond with its letter; crossed out once caught.
fn adversary<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    p: &Plan<'_>,
    room: Room,
    letter: &str,
    caught: bool,
) -> Drawn<DB> {
    let c = p.c;
    let (x0, y0) = p.corner(room);
    let (cx, cy) = (x0 + c * 31 / 20, y0 + c * 7 / 5);
    let r = c * 3 / 10;
    area.draw(&Polygon::new(vec![(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)], ADVERSARY.filled()))?;
    let px = (c / 16).max(1);
    pixel_text(area, letter, (cx - px * 3 / 2, cy - px * 5 / 2), px, &WHITE)?;
    if caught {
        let w = (c / 12).max(2) as u32;
        area.draw(&PathElement::new(vec![(cx - r, cy - r), (cx + r, cy + r)], BLACK.stroke_width(w)))?;
        area.draw(&PathElement::new(vec![(cx - r, cy + r), (cx + r, cy - r)], BLACK.stroke_width(w)))?;
    }
    Ok(())
}

fn check_rooms(spec: &str, maze: &Maze, players: [Room; 2], adversary: Room) -> Result<(), DrawError> {
    for (who, r) in [("player 0", players[0]), ("player 1", players[1]), ("the adversary", adversary)] {
        if r == 0 || r as usize > maze.rooms {
            return Err(DrawError::State {
                game: spec.to_string(),
                message: format!("{who} is in room {r}, but the maze has rooms 1..={}", maze.rooms),
            });
        }
    }
    Ok(())
}

impl Board for Capture {
    fn grid(&self) -> (u32, u32) {
        maze_grid(self.maze())
    }

    fn grid_rows(&self) -> Vec<String> {
        self.maze().to_text().lines().map(String::from).collect()
    }

    fn check(&self, s: &CaptureState) -> Result<(), DrawError> {
        check_rooms(&proagent_core::Game::spec(self), self.maze(), s.players, s.thief)
    }

    fn draw_cells<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        g: &Geom,
        s: &CaptureState,
        _view: Option<PlayerView>,
    ) -> Drawn<DB> {
        let p = Plan::new(self.maze(), g);
        draw_maze(area, &p)?;
        let maze = self.maze();
        let mut line = format!("TURN {}/{}", s.t, maze.turns);
        if s.caught {
            line.push_str("  THIEF CAUGHT");
        }
        top_line(area, &p, &line)?;
        let c = g.c;
        for (i, d) in maze.doors.iter().enumerate() {
            door(area, &p, i, d.rooms, s.door_open(i))?;
            // Its button, in the button's room, coloured by the door it works.
            // A square push button on a dark plate (players are round), with the door's number.
            let (x0, y0) = p.corner(d.button);
            let at = (x0 + c * 3 / 2, y0 + c / 2);
            let fill = if s.door_open(i) { DOOR_OPEN } else { DOOR_CLOSED };
            let (r, m) = (c * 3 / 10, (c / 14).max(1));
            rect(area, (at.0 - r, at.1 - r), (at.0 + r, at.1 + r), &BAR_BG, None)?;
            rect(area, (at.0 - r + m, at.1 - r + m), (at.0 + r - m, at.1 + r - m), &fill, None)?;
            let px = (c / 16).max(1);
            pixel_text(area, &(i + 1).to_string(), (at.0 - px * 3 / 2, at.1 - px * 5 / 2), px, &WHITE)?;
        }
        Ok(())
    }

    fn draw_players<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        g: &Geom,
        s: &CaptureState,
        _view: Option<PlayerView>,
    ) -> Drawn<DB> {
        let p = Plan::new(self.maze(), g);
        adversary(area, &p, s.thief, "T", s.caught)?;
        for i in 0..2 {
            player(area, &p, i, s.players[i], false)?;
        }
        Ok(())
    }

    fn describe_action(&self, _s: &CaptureState, a: CaptureAction) -> String {
        match a {
            CaptureAction::Stay => "stay".into(),
            CaptureAction::Move(r) => format!("move to room {r}"),
            CaptureAction::Press => "press the button".into(),
        }
    }

    fn caption(&self, s: &CaptureState) -> Option<String> {
        let maze = self.maze();
        let doors: Vec<String> = maze
            .doors
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let state = if s.door_open(i) { "open" } else { "closed" };
                format!("door {} ({}–{}, button in room {}) {state}", i + 1, d.rooms[0], d.rooms[1], d.button)
            })
            .collect();
        let mut text = format!(
            "turn {}/{} · Alice (0) in room {}, Bob (1) in room {}, the thief in room {}",
            s.t, maze.turns, s.players[0], s.players[1], s.thief
        );
        if !doors.is_empty() {
            text.push_str(&format!(" · {}", doors.join(", ")));
        }
        if s.caught {
            text.push_str(" · the thief is caught");
        }
        Some(text)
    }
}

impl Board for Escape {
    fn grid(&self) -> (u32, u32) {
        maze_grid(self.maze())
    }

    fn grid_rows(&self) -> Vec<String> {
        self.maze().to_text().lines().map(String::from).collect()
    }

    fn check(&self, s: &EscapeState) -> Result<(), DrawError> {
        check_rooms(&proagent_core::Game::spec(self), self.maze(), s.players, s.adversary)
    }

    fn draw_cells<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        g: &Geom,
        s: &EscapeState,
        _view: Option<PlayerView>,
    ) -> Drawn<DB> {
        let p = Plan::new(self.maze(), g);
        draw_maze(area, &p)?;
        let maze = self.maze();
        let fixed = (0..maze.generators.len()).filter(|&i| self.is_fixed(s, i)).count();
        let mut line = format!("TURN {}  GENERATORS {fixed}/{}", s.t, maze.generators.len());
        line.push_str(if self.gate_open(s) { "  GATE OPEN" } else { "  GATE SHUT" });
        match s.result {
            EscapeResult::Escaped => line.push_str("  ESCAPED"),
            EscapeResult::Caught => line.push_str("  CAUGHT"),
            EscapeResult::Ongoing => {}
        }
        top_line(area, &p, &line)?;
        let c = g.c;
        // The exit gate: a gate of bars, green once every generator is repaired.
        let (x0, y0) = p.corner(maze.exit);
        let gate = if self.gate_open(s) { READY } else { GATE_SHUT };
        rect(area, (x0 + c * 7 / 10, y0 + c / 5), (x0 + c * 11 / 10, y0 + c * 4 / 5), &gate, Some(&BAR_BG))?;
        for k in 1..3 {
            let x = x0 + c * 7 / 10 + k * (c * 2 / 15);
            area.draw(&PathElement::new(vec![(x, y0 + c / 5), (x, y0 + c * 4 / 5)], BAR_BG.stroke_width(1)))?;
        }
        // Generators: a box with a bar of the consecutive fixes it has (green once repaired).
        for (i, &room) in maze.generators.iter().enumerate() {
            let (x0, y0) = p.corner(room);
            let done = self.is_fixed(s, i);
            let (a, b) = ((x0 + c * 5 / 4, y0 + c / 5), (x0 + c * 7 / 4, y0 + c * 3 / 5));
            rect(area, a, b, if done { &READY } else { &GENERATOR }, Some(&BAR_BG))?;
            let px = (c / 16).max(1);
            pixel_text(area, "G", ((a.0 + b.0) / 2 - px * 3 / 2, (a.1 + b.1) / 2 - px * 5 / 2), px, &WHITE)?;
            let frac = if done { 1.0 } else { f64::from(s.fix_counts[i]) / f64::from(maze.fixes.max(1)) };
            let (bx0, bx1, by) = (a.0, b.0, b.1 + c / 12);
            rect(area, (bx0, by), (bx1, by + c / 10), &BAR_BG, None)?;
            let fw = ((bx1 - bx0) as f64 * frac.clamp(0.0, 1.0)).round() as i32;
            if fw > 0 {
                rect(area, (bx0, by), (bx0 + fw, by + c / 10), if done { &READY } else { &COOKING }, None)?;
            }
        }
        Ok(())
    }

    fn draw_players<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        g: &Geom,
        s: &EscapeState,
        _view: Option<PlayerView>,
    ) -> Drawn<DB> {
        let p = Plan::new(self.maze(), g);
        adversary(area, &p, s.adversary, "K", false)?;
        let chased = if s.result == EscapeResult::Ongoing { self.intent(s) } else { None };
        for i in 0..2 {
            player(area, &p, i, s.players[i], chased == Some(i))?;
        }
        Ok(())
    }

    fn describe_action(&self, _s: &EscapeState, a: EscapeAction) -> String {
        match a {
            EscapeAction::Wait => "wait".into(),
            EscapeAction::Move(r) => format!("move to room {r}"),
            EscapeAction::Fix => "fix the generator".into(),
        }
    }

    fn caption(&self, s: &EscapeState) -> Option<String> {
        let maze = self.maze();
        let gens: Vec<String> = maze
            .generators
            .iter()
            .enumerate()
            .map(|(i, r)| {
                if self.is_fixed(s, i) {
                    format!("generator in room {r} repaired")
                } else {
                    format!("generator in room {r} {}/{}", s.fix_counts[i], maze.fixes)
                }
            })
            .collect();
        let killer = match (s.result, self.intent(s)) {
            (EscapeResult::Ongoing, Some(p)) => format!("the killer in room {} goes after player {p}", s.adversary),
            _ => format!("the killer in room {}", s.adversary),
        };
        let gate = if self.gate_open(s) { "open" } else { "shut" };
        let mut text = format!(
            "turn {} · Alice (0) in room {}, Bob (1) in room {}, {killer} · {} · exit gate in room {} {gate}",
            s.t,
            s.players[0],
            s.players[1],
            gens.join(", "),
            maze.exit
        );
        match s.result {
            EscapeResult::Escaped => text.push_str(" · escaped"),
            EscapeResult::Caught => text.push_str(" · caught"),
            EscapeResult::Ongoing => {}
        }
        Some(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Overlay, svg, write_gif, write_png};
    use proagent_core::Game;
    use proagent_core::episode::env_chance;

    fn count(svg: &str, color: RGBColor) -> usize {
        let hex = format!("#{:02X}{:02X}{:02X}", color.0, color.1, color.2);
        svg.matches(&format!("fill=\"{hex}\"")).count()
    }

    #[test]
    fn rooms_get_distinct_places_in_layers() {
        for spec in Maze::builtin_names() {
            let maze = Maze::builtin(spec).unwrap();
            let places = place_rooms(&maze);
            assert_eq!(places, place_rooms(&maze), "deterministic");
            let used: BTreeSet<(i32, i32)> = (1..=maze.rooms).map(|r| places.at[r]).collect();
            assert_eq!(used.len(), maze.rooms, "{spec}: one place per room: {places:?}");
            assert!(places.cols <= MAX_LAYERED as i32 && places.rows <= MAX_LAYERED as i32);
        }
        // capture:1: room 1, then 2 and 6, then 3, 5 and 9, then 4 and 7, then 8.
        let places = place_rooms(&Maze::builtin("capture:1").unwrap());
        assert_eq!(places.cols, 5);
        let col = |r: usize| places.at[r].0;
        assert_eq!([1, 2, 6, 3, 5, 9, 4, 7, 8].map(col), [0, 1, 1, 2, 2, 2, 3, 3, 4]);
        // A long corridor of 40 rooms is drawn on a square grid instead.
        let mut text = "game: capture\nrooms: 40\nplayers: 1 2\nadversary: 40\nturns: 5\n".to_string();
        for r in 1..=40 {
            let exits: Vec<String> =
                [r - 1, r + 1].iter().filter(|&&x| (1..=40).contains(&x)).map(|x| x.to_string()).collect();
            text.push_str(&format!("room {r}: {}\n", exits.join(" ")));
        }
        let long = Maze::parse(&text, "long").unwrap_or_else(|e| panic!("{e}"));
        let places = place_rooms(&long);
        assert_eq!((places.cols, places.rows), (7, 6));
    }

    #[test]
    fn capture_shows_doors_buttons_the_thief_and_the_players() {
        let open = Capture::builtin("capture:1").unwrap();
        let shut = Capture::builtin("capture:4").unwrap();
        let s = open.initial_state(&mut env_chance(0));
        let (w, h) = open.grid();
        assert_eq!((w, h), (15, 10));
        let a = svg(&open, &s, &Overlay::default(), 20).unwrap();
        assert!(a.contains("width=\"300\"") && a.contains("height=\"200\""));
        assert_eq!(a, svg(&open, &s, &Overlay::default(), 20).unwrap());
        // Both doors open: two posts each and two green buttons; nothing red.
        assert_eq!(count(&a, DOOR_OPEN), 6, "two posts per door and two buttons");
        assert_eq!(count(&a, DOOR_CLOSED), 0);
        assert_eq!(count(&a, ADVERSARY), 1);
        let t = shut.initial_state(&mut env_chance(0));
        let b = svg(&shut, &t, &Overlay::default(), 20).unwrap();
        assert_eq!((count(&b, DOOR_CLOSED), count(&b, DOOR_OPEN)), (4, 0), "two bars, two red buttons");
        // A turn moves the pieces.
        let mut s1 = s.clone();
        open.step(&mut s1, &[Some(CaptureAction::Move(2)), Some(CaptureAction::Stay)], &mut env_chance(0));
        assert_ne!(a, svg(&open, &s1, &Overlay::default(), 20).unwrap());
        let cap = open.caption(&s1).unwrap();
        assert!(
            cap.starts_with("turn 1/30 · Alice (0) in room 2") && cap.contains("door 1 (1–2, button in room 9) open"),
            "{cap}"
        );
        // Out-of-range rooms are refused.
        let mut bad = s.clone();
        bad.thief = 12;
        assert!(open.check(&bad).unwrap_err().to_string().contains("room 12"));
    }

    #[test]
    fn escape_shows_generators_their_repair_the_gate_and_whom_the_killer_chases() {
        let game = Escape::builtin("escape:1").unwrap();
        let mut chance = env_chance(0);
        let mut s = game.initial_state(&mut chance);
        let start = svg(&game, &s, &Overlay::default(), 20).unwrap();
        assert_eq!(count(&start, READY), 0, "nothing repaired, the gate shut");
        assert_eq!(count(&start, GENERATOR), 2);
        // Alice fixes generator 1 (room 1): progress shows; a second fix repairs it.
        game.step(&mut s, &[Some(EscapeAction::Fix), Some(EscapeAction::Wait)], &mut chance);
        let one = svg(&game, &s, &Overlay::default(), 20).unwrap();
        assert!(count(&one, COOKING) >= 1, "a progress bar");
        if s.result == EscapeResult::Ongoing {
            game.step(&mut s, &[Some(EscapeAction::Fix), Some(EscapeAction::Wait)], &mut chance);
            if game.is_fixed(&s, 0) {
                let two = svg(&game, &s, &Overlay::default(), 20).unwrap();
                assert!(count(&two, READY) >= 2, "the repaired generator and its full bar");
            }
        }
        assert!(game.caption(&s).unwrap().contains("generator in room 1"));
        // Next to the killer, the player it goes after is ringed in red.
        let mut near = game.initial_state(&mut env_chance(0));
        near.players[0] = game.maze().exits(near.adversary)[0];
        assert_eq!(game.intent(&near), Some(0));
        let ringed = svg(&game, &near, &Overlay::default(), 20).unwrap();
        assert_eq!(count(&ringed, DOOR_CLOSED), 1);
        assert!(game.caption(&near).unwrap().contains("goes after player 0"));
        // Files.
        let dir = tempfile::tempdir().unwrap();
        let gif = dir.path().join("e.gif");
        let n = write_gif(&gif, &game, [(&near, Overlay::default()), (&s, Overlay::default())], 16, 100).unwrap();
        assert_eq!(n, 2);
        write_png(&dir.path().join("e.png"), &game, &s, &Overlay::default(), 16).unwrap();
    }
}
