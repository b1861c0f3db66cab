//! Maze files: the rooms and their exits, doors and the buttons that work them,
//! generators, the exit gate, the start rooms and the turn limit of one CollabCapture or
//! CollabEscape scenario, in the text format of docs/collab.md; and the six built-in
//! scenarios (`capture:1` … `capture:4`, `escape:1`, `escape:2`, from `layouts/collab/`).
//!
//! Guarantees: [`Maze::parse`] is pure and total. Any text gives either a [`Maze`] that
//! the games can play without panicking (every room number in range, no door without a
//! passage, at most one button per room, every escape room with an exit) or a
//! [`MazeError`] naming the source and the line. [`Maze::to_text`] writes a maze back in
//! the same format, and parsing that text gives the same maze.

use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A room, numbered from 1 as in the files.
pub type Room = u8;

/// Most rooms a maze may have.
pub const MAX_ROOMS: usize = 64;
/// Most generators an escape maze may have.
pub const MAX_GENERATORS: usize = 8;
/// Largest maze file accepted.
pub const MAX_MAZE_TEXT_BYTES: usize = 1 << 20;
/// Most fixes a generator may need.
pub const MAX_FIXES: u32 = 1_000;

/// Which of the two games a maze is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GameKind {
    /// CollabCapture: catch a thief that flees.
    Capture,
    /// CollabEscape: fix the generators and escape a killer that chases.
    Escape,
}

/// When the thief counts as caught (CollabCapture).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CatchRule {
    /// Only when the thief ends a turn in a player's room (the published greedy-baseline loop).
    SameRoom,
    /// Also when a player and the thief swap rooms, from the second turn on (the published
    /// LLM benchmark loop; in its first turn the swap check has no previous rooms yet).
    SameRoomOrSwap,
}

/// How the thief measures distance when it flees (CollabCapture).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Flee {
    /// The difference of room numbers, as published (`|room - player room|`).
    Label,
    /// The number of moves through open doors (ours, for mazes whose numbers mean nothing).
    Graph,
}

/// A door on the passage between two rooms (both ways), worked by a button in a third.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Door {
    /// The two rooms the door stands between.
    pub rooms: [Room; 2],
    /// The room whose button opens and closes it.
    pub button: Room,
    /// Whether it is open at the start.
    pub open: bool,
}

/// One scenario of one of the two games.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Maze {
    /// The game it is for.
    pub kind: GameKind,
    /// How many rooms (numbered 1 to `rooms`).
    pub rooms: usize,
    /// The exits of every room in order (index 0 unused). Exits are one-way: a two-way
    /// passage is listed under both rooms. The order breaks the thief's ties, the greedy
    /// baseline's choices and the killer's random picks.
    pub exits: Vec<Vec<Room>>,
    /// Doors (CollabCapture), in file order.
    pub doors: Vec<Door>,
    /// The start rooms of player 0 (Alice) and player 1 (Bob).
    pub players: [Room; 2],
    /// The start room of the adversary (the thief or the killer).
    pub adversary: Room,
    /// The turn limit.
    pub turns: u32,
    /// When the thief is caught (CollabCapture).
    pub catch: CatchRule,
    /// How the thief flees (CollabCapture).
    pub flee: Flee,
    /// Rooms with a generator (CollabEscape), in file order.
    pub generators: Vec<Room>,
    /// Consecutive fixes a generator needs (CollabEscape).
    pub fixes: u32,
    /// The room of the exit gate (CollabEscape; 0 in capture mazes).
    pub exit: Room,
}

/// Why a maze file was refused: the source (file name or spec), the line (when one line
/// is at fault) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}{}: {}", .origin, .line.map(|l| format!(":{l}")).unwrap_or_default(), .message)]
pub struct MazeError {
    /// The file or spec the text came from.
    pub origin: String,
    /// The 1-based line at fault, if one is.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

const BUILTIN: &[(&str, &str)] = &[
    ("capture:1", include_str!("../../../layouts/collab/capture_1.maze")),
    ("capture:2", include_str!("../../../layouts/collab/capture_2.maze")),
    ("capture:3", include_str!("../../../layouts/collab/capture_3.maze")),
    ("capture:4", include_str!("../../../layouts/collab/capture_4.maze")),
    ("escape:1", include_str!("../../../layouts/collab/escape_1.maze")),
    ("escape:2", include_str!("../../../layouts/collab/escape_2.maze")),
];

const KEYS: &str = "game, rooms, room N, door, players, adversary, turns, catch, flee, generator, fixes, exit";

/// One `key: value` line.
struct Entry<'t> {
    line: usize,
    key: &'t str,
    value: &'t str,
}

impl Maze {
    /// The built-in scenario `spec` (`capture:1` … `capture:4`, `escape:1`, `escape:2`).
    pub fn builtin(spec: &str) -> Option<Maze> {
        let text = BUILTIN.iter().find(|(n, _)| *n == spec)?.1;
        Maze::parse(text, spec).ok()
    }

    /// The built-in scenario names, in order.
    pub fn builtin_names() -> impl Iterator<Item = &'static str> {
        BUILTIN.iter().map(|(n, _)| *n)
    }

    /// The built-in scenarios of one game, in order.
    pub fn builtin_names_of(kind: GameKind) -> impl Iterator<Item = &'static str> {
        let prefix = match kind {
            GameKind::Capture => "capture:",
            GameKind::Escape => "escape:",
        };
        BUILTIN.iter().map(|(n, _)| *n).filter(move |n| n.starts_with(prefix))
    }

    /// The text of a built-in scenario, as shipped in `layouts/collab/`.
    pub fn builtin_text(spec: &str) -> Option<&'static str> {
        BUILTIN.iter().find(|(n, _)| *n == spec).map(|(_, t)| *t)
    }

    /// The exits of `room`, in order (empty for a room out of range).
    pub fn exits(&self, room: Room) -> &[Room] {
        self.exits.get(room as usize).map_or(&[], Vec::as_slice)
    }

    /// Reads a maze file. `origin` names the text in errors (a path or a spec).
    pub fn parse(text: &str, origin: &str) -> Result<Maze, MazeError> {
        let err = |line: Option<usize>, message: String| MazeError { origin: origin.to_string(), line, message };
        if text.len() > MAX_MAZE_TEXT_BYTES {
            return Err(err(None, format!("larger than {MAX_MAZE_TEXT_BYTES} bytes, the limit for maze files")));
        }
        let mut entries = Vec::new();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let Some((key, value)) = content.split_once(':') else {
                return Err(err(Some(line), format!("expected `key: value`, got {content:?} (keys: {KEYS})")));
            };
            entries.push(Entry { line, key: key.trim(), value: value.trim() });
        }
        // Singletons first: the game and the number of rooms decide how the rest is read.
        let mut single: BTreeMap<&str, &Entry> = BTreeMap::new();
        for e in &entries {
            let name = if e.key.starts_with("room ") { "room" } else { e.key };
            match name {
                "game" | "rooms" | "players" | "adversary" | "turns" | "catch" | "flee" | "fixes" | "exit" => {
                    if let Some(prev) = single.insert(e.key, e) {
                        return Err(err(Some(e.line), format!("`{}` given twice (also on line {})", e.key, prev.line)));
                    }
                }
                "room" | "door" | "generator" => {}
                _ => return Err(err(Some(e.line), format!("unknown key `{}` (keys: {KEYS})", e.key))),
            }
        }
        let need = |key: &str| single.get(key).copied().ok_or_else(|| err(None, format!("missing `{key}:`")));
        let game = need("game")?;
        let kind = match game.value {
            "capture" => GameKind::Capture,
            "escape" => GameKind::Escape,
            v => return Err(err(Some(game.line), format!("`game: {v}`: expected `capture` or `escape`"))),
        };
        let rooms_e = need("rooms")?;
        let rooms: usize = match rooms_e.value.parse() {
            Ok(n) if (2..=MAX_ROOMS).contains(&n) => n,
            _ => {
                return Err(err(
                    Some(rooms_e.line),
                    format!("`rooms: {}`: expected a whole number from 2 to {MAX_ROOMS}", rooms_e.value),
                ));
            }
        };
        let room_of = |line: usize, what: &str, tok: &str| -> Result<Room, MazeError> {
            match tok.parse::<usize>() {
                Ok(r) if (1..=rooms).contains(&r) => Ok(r as Room),
                _ => Err(err(Some(line), format!("{what}: {tok:?} is not a room (rooms are 1 to {rooms})"))),
            }
        };
        let only = |e: &Entry, k: GameKind| -> Result<(), MazeError> {
            if k == kind {
                Ok(())
            } else {
                let (this, that) = match kind {
                    GameKind::Capture => ("capture", "escape"),
                    GameKind::Escape => ("escape", "capture"),
                };
                Err(err(Some(e.line), format!("`{}` belongs in {that} mazes, not in a {this} maze", e.key)))
            }
        };

        let mut exits: Vec<Vec<Room>> = vec![Vec::new(); rooms + 1];
        let mut exits_line: Vec<Option<usize>> = vec![None; rooms + 1];
        let mut doors: Vec<Door> = Vec::new();
        let mut door_lines: Vec<usize> = Vec::new();
        let mut generators: Vec<Room> = Vec::new();
        for e in &entries {
            if let Some(num) = e.key.strip_prefix("room ") {
                let r = room_of(e.line, "`room N:`", num.trim())?;
                if let Some(prev) = exits_line[r as usize] {
                    return Err(err(
                        Some(e.line),
                        format!("the exits of room {r} are given twice (also on line {prev})"),
                    ));
                }
                exits_line[r as usize] = Some(e.line);
                let mut list = Vec::new();
                for tok in e.value.split(|c: char| c == ',' || c.is_whitespace()).filter(|t| !t.is_empty()) {
                    let to = room_of(e.line, &format!("exits of room {r}"), tok)?;
                    if to == r {
                        return Err(err(Some(e.line), format!("room {r} lists itself as an exit")));
                    }
                    if list.contains(&to) {
                        return Err(err(Some(e.line), format!("room {r} lists exit {to} twice")));
                    }
                    list.push(to);
                }
                exits[r as usize] = list;
            } else if e.key == "door" {
                only(e, GameKind::Capture)?;
                let toks: Vec<&str> = e.value.split_whitespace().collect();
                let [a, b, word, button, state] = toks[..] else {
                    return Err(err(
                        Some(e.line),
                        format!("`door: {}`: expected `door: A B button R open|closed`", e.value),
                    ));
                };
                if word != "button" {
                    return Err(err(
                        Some(e.line),
                        format!("`door: {}`: expected `door: A B button R open|closed`", e.value),
                    ));
                }
                let a = room_of(e.line, "door", a)?;
                let b = room_of(e.line, "door", b)?;
                let button = room_of(e.line, "door button", button)?;
                let open = match state {
                    "open" => true,
                    "closed" => false,
                    s => return Err(err(Some(e.line), format!("door state {s:?}: expected `open` or `closed`"))),
                };
                if a == b {
                    return Err(err(Some(e.line), format!("a door needs two different rooms, got {a} and {b}")));
                }
                if let Some(i) = doors.iter().position(|d| d.rooms.contains(&a) && d.rooms.contains(&b)) {
                    return Err(err(
                        Some(e.line),
                        format!("rooms {a} and {b} already have a door (line {})", door_lines[i]),
                    ));
                }
                if let Some(i) = doors.iter().position(|d| d.button == button) {
                    return Err(err(
                        Some(e.line),
                        format!(
                            "room {button} already has a button (line {}); a room holds at most one",
                            door_lines[i]
                        ),
                    ));
                }
                doors.push(Door { rooms: [a, b], button, open });
                door_lines.push(e.line);
            } else if e.key == "generator" {
                only(e, GameKind::Escape)?;
                let g = room_of(e.line, "generator", e.value)?;
                if generators.contains(&g) {
                    return Err(err(Some(e.line), format!("room {g} already has a generator")));
                }
                if generators.len() == MAX_GENERATORS {
                    return Err(err(Some(e.line), format!("more than {MAX_GENERATORS} generators")));
                }
                generators.push(g);
            }
        }
        for (d, &line) in doors.iter().zip(&door_lines) {
            let [a, b] = d.rooms;
            if !exits[a as usize].contains(&b) && !exits[b as usize].contains(&a) {
                return Err(err(
                    Some(line),
                    format!(
                        "there is no passage between rooms {a} and {b} to put a door on (list one under `room {a}:` or `room {b}:`)"
                    ),
                ));
            }
        }

        let players_e = need("players")?;
        let toks: Vec<&str> =
            players_e.value.split(|c: char| c == ',' || c.is_whitespace()).filter(|t| !t.is_empty()).collect();
        let [p0, p1] = toks[..] else {
            return Err(err(
                Some(players_e.line),
                format!("`players: {}`: expected two start rooms (Alice's, then Bob's)", players_e.value),
            ));
        };
        let players = [room_of(players_e.line, "players", p0)?, room_of(players_e.line, "players", p1)?];
        let adv_e = need("adversary")?;
        let adversary = room_of(adv_e.line, "adversary", adv_e.value)?;
        if players.contains(&adversary) {
            return Err(err(Some(adv_e.line), format!("the adversary cannot start in a player's room ({adversary})")));
        }
        let turns_e = need("turns")?;
        let max_turns = proagent_core::limits::MAX_HORIZON;
        let turns = match turns_e.value.parse::<u32>() {
            Ok(t) if (1..=max_turns).contains(&t) => t,
            _ => {
                return Err(err(
                    Some(turns_e.line),
                    format!("`turns: {}`: expected a whole number from 1 to {max_turns}", turns_e.value),
                ));
            }
        };
        let mut catch = CatchRule::SameRoomOrSwap;
        if let Some(e) = single.get("catch") {
            only(e, GameKind::Capture)?;
            catch = match e.value {
                "same_room" => CatchRule::SameRoom,
                "same_room_or_swap" => CatchRule::SameRoomOrSwap,
                v => {
                    return Err(err(
                        Some(e.line),
                        format!("`catch: {v}`: expected `same_room` or `same_room_or_swap`"),
                    ));
                }
            };
        }
        let mut flee = Flee::Label;
        if let Some(e) = single.get("flee") {
            only(e, GameKind::Capture)?;
            flee = match e.value {
                "label" => Flee::Label,
                "graph" => Flee::Graph,
                v => return Err(err(Some(e.line), format!("`flee: {v}`: expected `label` or `graph`"))),
            };
        }
        let mut fixes = 2;
        if let Some(e) = single.get("fixes") {
            only(e, GameKind::Escape)?;
            fixes = match e.value.parse::<u32>() {
                Ok(f) if (1..=MAX_FIXES).contains(&f) => f,
                _ => {
                    return Err(err(
                        Some(e.line),
                        format!("`fixes: {}`: expected a whole number from 1 to {MAX_FIXES}", e.value),
                    ));
                }
            };
        }
        let mut exit = 0;
        if let Some(e) = single.get("exit") {
            only(e, GameKind::Escape)?;
            exit = room_of(e.line, "exit", e.value)?;
        }
        if kind == GameKind::Escape {
            if exit == 0 {
                return Err(err(None, "missing `exit:` (the room of the exit gate)".to_string()));
            }
            if generators.is_empty() {
                return Err(err(None, "missing `generator:` (an escape maze needs at least one)".to_string()));
            }
            for r in 1..=rooms {
                if exits[r].is_empty() {
                    return Err(err(
                        exits_line[r],
                        format!("room {r} has no exits; in an escape maze the killer must be able to leave every room"),
                    ));
                }
            }
        }
        Ok(Maze { kind, rooms, exits, doors, players, adversary, turns, catch, flee, generators, fixes, exit })
    }

    /// The maze in the file format (comments dropped); [`Maze::parse`] reads it back.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let game = match self.kind {
            GameKind::Capture => "capture",
            GameKind::Escape => "escape",
        };
        let _ = writeln!(s, "game: {game}\nrooms: {}", self.rooms);
        for r in 1..=self.rooms {
            let list: Vec<String> = self.exits[r].iter().map(|x| x.to_string()).collect();
            let _ = writeln!(s, "room {r}: {}", list.join(" "));
        }
        for d in &self.doors {
            let state = if d.open { "open" } else { "closed" };
            let _ = writeln!(s, "door: {} {} button {} {state}", d.rooms[0], d.rooms[1], d.button);
        }
        for g in &self.generators {
            let _ = writeln!(s, "generator: {g}");
        }
        if self.kind == GameKind::Escape {
            let _ = writeln!(s, "fixes: {}\nexit: {}", self.fixes, self.exit);
        }
        let _ = writeln!(
            s,
            "players: {} {}\nadversary: {}\nturns: {}",
            self.players[0], self.players[1], self.adversary, self.turns
        );
        if self.kind == GameKind::Capture {
            let catch = match self.catch {
                CatchRule::SameRoom => "same_room",
                CatchRule::SameRoomOrSwap => "same_room_or_swap",
            };
            let flee = match self.flee {
                Flee::Label => "label",
                Flee::Graph => "graph",
            };
            let _ = writeln!(s, "catch: {catch}\nflee: {flee}");
        }
        s
    }

    /// The transcript token of a move into room `r` (`M<r>`), shared by both games.
    pub fn move_token(r: Room) -> String {
        format!("M{r}")
    }

    /// Reads a move token (`M<r>`) into its room, `None` when it is not one or names no room
    /// of this maze.
    pub fn parse_move(&self, token: &str) -> Option<Room> {
        let r: usize = token.strip_prefix('M')?.parse().ok()?;
        (1..=self.rooms).contains(&r).then_some(r as Room)
    }

    /// Shortest numbers of moves from `from` to every room along exits that `open` allows
    /// (`u32::MAX` where unreachable); index 0 unused.
    pub fn distances(&self, from: Room, open: impl Fn(Room, Room) -> bool) -> Vec<u32> {
        self.shortest_paths(from, open).0
    }

    /// Breadth-first search from `from` along the exits `open` allows, exits taken in maze
    /// order: for every room its distance (`u32::MAX` when unreachable) and the first move
    /// of the first shortest path found to it (0 for `from` and unreachable rooms); index 0
    /// unused.
    pub fn shortest_paths(&self, from: Room, open: impl Fn(Room, Room) -> bool) -> (Vec<u32>, Vec<Room>) {
        let mut dist = vec![u32::MAX; self.rooms + 1];
        let mut first = vec![0 as Room; self.rooms + 1];
        if from as usize == 0 || from as usize > self.rooms {
            return (dist, first);
        }
        let mut queue = std::collections::VecDeque::from([from]);
        dist[from as usize] = 0;
        while let Some(r) = queue.pop_front() {
            for &n in self.exits(r) {
                if dist[n as usize] == u32::MAX && open(r, n) {
                    dist[n as usize] = dist[r as usize] + 1;
                    first[n as usize] = if r == from { n } else { first[r as usize] };
                    queue.push_back(n);
                }
            }
        }
        (dist, first)
    }
}

/// The exits of every room of a maze in one flat table, with a bit mask per room, for
/// the games' per-turn lookups (no nested vectors, constant-time "is `to` an exit").
#[derive(Clone, Debug)]
pub struct ExitTable {
    start: Vec<u32>,
    list: Vec<Room>,
    mask: Vec<u64>,
}

impl ExitTable {
    /// The table of `maze`.
    pub fn new(maze: &Maze) -> ExitTable {
        let mut start = Vec::with_capacity(maze.rooms + 2);
        let mut list = Vec::new();
        let mut mask = vec![0u64; maze.rooms + 1];
        start.push(0);
        for r in 0..=maze.rooms {
            for &to in maze.exits(r as Room) {
                list.push(to);
                mask[r] |= 1 << (to - 1);
            }
            start.push(list.len() as u32);
        }
        ExitTable { start, list, mask }
    }

    /// The exits of `room` in order (empty out of range).
    #[inline]
    pub fn exits(&self, room: Room) -> &[Room] {
        let r = room as usize;
        match (self.start.get(r), self.start.get(r + 1)) {
            (Some(&a), Some(&b)) => &self.list[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The position of `room`'s first exit in [`ExitTable::flat`].
    #[inline]
    pub fn offset(&self, room: Room) -> usize {
        self.start.get(room as usize).map_or(0, |&a| a as usize)
    }

    /// Every exit of every room, room by room.
    pub fn flat(&self) -> &[Room] {
        &self.list
    }

    /// Whether `to` is an exit of `from`.
    #[inline]
    pub fn has(&self, from: Room, to: Room) -> bool {
        to != 0 && to <= 64 && self.mask.get(from as usize).is_some_and(|m| m & (1 << (to - 1)) != 0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exit_table_matches_the_maze() {
        for name in Maze::builtin_names() {
            let m = Maze::builtin(name).unwrap();
            let t = ExitTable::new(&m);
            for r in 0..=m.rooms as Room + 1 {
                assert_eq!(t.exits(r), m.exits(r), "{name} room {r}");
                for to in 0..=m.rooms as Room + 1 {
                    assert_eq!(t.has(r, to), m.exits(r).contains(&to), "{name} {r}->{to}");
                }
            }
        }
    }

    fn err_of(text: &str) -> MazeError {
        match Maze::parse(text, "t.maze") {
            Ok(m) => panic!("parsed: {m:?}"),
            Err(e) => e,
        }
    }

    const ESCAPE: &str = "game: escape\nrooms: 3\nroom 1: 2\nroom 2: 1 3\nroom 3: 2\ngenerator: 1\nexit: 3\nplayers: 1 1\nadversary: 3\nturns: 9\n";

    #[test]
    fn every_builtin_parses_and_round_trips() {
        for name in Maze::builtin_names() {
            let text = Maze::builtin_text(name).unwrap();
            let m = Maze::parse(text, name).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(Maze::parse(&m.to_text(), "again").unwrap(), m, "{name}");
            assert_eq!(Maze::builtin(name).as_ref(), Some(&m));
        }
        assert_eq!(Maze::builtin_names().count(), 6);
        assert!(Maze::builtin("capture:5").is_none());
    }

    #[test]
    fn the_published_maps() {
        let c = Maze::builtin("capture:2").unwrap();
        assert_eq!(c.exits(6), &[5, 9, 1]);
        assert_eq!(c.doors[0], Door { rooms: [1, 2], button: 9, open: false });
        assert_eq!((c.players, c.adversary, c.turns), ([1, 6], 2, 30));
        let e = Maze::builtin("escape:1").unwrap();
        assert_eq!(e.exits(7), &[3, 6]);
        assert_eq!((e.generators.as_slice(), e.exit, e.fixes), (&[1, 6][..], 7, 2));
        assert_eq!((e.players, e.adversary), ([1, 2], 6));
    }

    #[test]
    fn errors_name_the_line() {
        let e = err_of(&ESCAPE.replace("room 2: 1 3", "room 2: 1 4"));
        assert_eq!(e.line, Some(4));
        assert!(e.to_string().starts_with("t.maze:4: exits of room 2: \"4\" is not a room"), "{e}");
        let e = err_of(&ESCAPE.replace("turns: 9", "turns: 0"));
        assert_eq!(e.line, Some(10));
        let e = err_of(&ESCAPE.replace("players: 1 1", "players: 1"));
        assert!(e.to_string().contains("expected two start rooms"), "{e}");
        let e = err_of(&ESCAPE.replace("exit: 3\n", ""));
        assert_eq!(e.to_string(), "t.maze: missing `exit:` (the room of the exit gate)");
        let e = err_of(&format!("{ESCAPE}door: 1 2 button 3 open\n"));
        assert!(e.to_string().contains("belongs in capture mazes"), "{e}");
        let e = err_of(&ESCAPE.replace("room 3: 2", "room 3:"));
        assert!(e.message.contains("room 3 has no exits"), "{e}");
        let e = err_of(&ESCAPE.replace("adversary: 3", "adversary: 1"));
        assert!(e.message.contains("cannot start in a player's room"), "{e}");
        let e = err_of(&format!("{ESCAPE}colour: red\n"));
        assert!(e.message.starts_with("unknown key `colour`"), "{e}");
        let e = err_of(&format!("{ESCAPE}turns: 3\n"));
        assert!(e.message.contains("given twice (also on line 10)"), "{e}");
        let e = err_of("just words\n");
        assert_eq!(e.line, Some(1));
        let e = err_of(&ESCAPE.replace("room 1: 2", "room 1: 1"));
        assert!(e.message.contains("lists itself"), "{e}");
        let e = err_of(&ESCAPE.replace("rooms: 3", "rooms: 300"));
        assert!(e.message.contains("from 2 to 64"), "{e}");
        let e = err_of(&" ".repeat(MAX_MAZE_TEXT_BYTES + 1));
        assert_eq!(e.line, None);
    }

    #[test]
    fn capture_doors_are_checked() {
        let base = Maze::builtin_text("capture:1").unwrap();
        let e = err_of(&base.replace("door: 3 4 button 8 open", "door: 3 5 button 8 open"));
        assert!(e.message.contains("no passage between rooms 3 and 5"), "{e}");
        let e = err_of(&base.replace("door: 3 4 button 8 open", "door: 3 4 button 9 open"));
        assert!(e.message.contains("already has a button"), "{e}");
        let e = err_of(&base.replace("door: 3 4 button 8 open", "door: 2 1 button 8 open"));
        assert!(e.message.contains("already have a door"), "{e}");
        let e = err_of(&base.replace("door: 3 4 button 8 open", "door: 3 4 button 8 ajar"));
        assert!(e.message.contains("\"ajar\""), "{e}");
        let e = err_of(&format!("{base}generator: 3\n"));
        assert!(e.message.contains("belongs in escape mazes"), "{e}");
        let e = err_of(&base.replace("flee: label", "flee: fast"));
        assert!(e.message.contains("`flee: fast`"), "{e}");
    }

    #[test]
    fn any_text_is_refused_or_playable() {
        // Small mutations of a valid file never panic; what parses has rooms in range.
        let base = Maze::builtin_text("capture:1").unwrap();
        let bytes = base.as_bytes();
        for i in 0..bytes.len() {
            for rep in [b'0', b'9', b':', b'\n', b' ', b'x'] {
                let mut b = bytes.to_vec();
                b[i] = rep;
                let Ok(text) = String::from_utf8(b) else { continue };
                if let Ok(m) = Maze::parse(&text, "m") {
                    for r in 1..=m.rooms {
                        assert!(m.exits[r].iter().all(|&x| (1..=m.rooms).contains(&(x as usize))));
                    }
                    assert!(m.players.iter().chain([&m.adversary]).all(|&x| (1..=m.rooms).contains(&(x as usize))));
                }
            }
        }
    }

    #[test]
    fn distances_follow_open_exits() {
        let m = Maze::builtin("escape:1").unwrap();
        let d = m.distances(7, |_, _| true);
        assert_eq!((d[3], d[6], d[8], d[1]), (1, 1, 2, 3));
        // Room 7 does not lead to 8 (one-way in the published map).
        let d = m.distances(3, |_, _| true);
        assert_eq!(d[7], 2);
    }
}
