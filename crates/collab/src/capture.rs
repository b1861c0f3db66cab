//! CollabCapture: two players catch a thief in a maze of rooms whose doors are worked by
//! buttons in other rooms, with the rules of the LLM-Coordination paper's own
//! implementation (docs/collab.md lists them with their sources).
//!
//! Guarantees: [`Capture`] implements [`Game`] with simultaneous moves ([`Turn::All`]);
//! it is pure and total (an action that is not legal leaves the player where it is, as in
//! the original) and never draws from the [`Chance`] (the thief is deterministic).

use crate::game_core::{MazeAction, MazeCore, MazeRules, maze_game};
use crate::maze::{CatchRule, Flee, GameKind, Maze, Room};
use proagent_core::Chance;
use serde::Serialize;
use serde_json::json;
use std::fmt::Write as _;

/// One player's move in CollabCapture.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum CaptureAction {
    /// Stay in the current room (`Stay in current room`).
    Stay,
    /// Move to a room reached through an open door (a bare room number in the original).
    Move(Room),
    /// Press the button in the current room (`Press button in room N`): its door opens or
    /// closes at the end of the turn.
    Press,
}

impl MazeAction for CaptureAction {
    const STAY: Self = CaptureAction::Stay;
    const ACT: Self = CaptureAction::Press;
    const STAY_TOKEN: &'static str = "S";
    const ACT_TOKEN: &'static str = "P";
    fn to(room: Room) -> Self {
        CaptureAction::Move(room)
    }
    fn room(self) -> Option<Room> {
        match self {
            CaptureAction::Move(r) => Some(r),
            _ => None,
        }
    }
}

/// The state of a CollabCapture episode.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CaptureState {
    /// Turns played.
    pub t: u32,
    /// The rooms of player 0 (Alice) and player 1 (Bob).
    pub players: [Room; 2],
    /// The thief's room.
    pub thief: Room,
    /// Bit `i` set: door `i` of the maze is open.
    pub doors: u64,
    /// Whether the thief has been caught (the game is over).
    pub caught: bool,
}

impl CaptureState {
    /// Whether door `i` is open.
    pub fn door_open(&self, i: usize) -> bool {
        i < 64 && self.doors & (1 << i) != 0
    }
}

/// What one player's action did in a step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum CaptureEvent {
    /// Moved from one room to another.
    Moved {
        /// The room left.
        from: Room,
        /// The room entered.
        to: Room,
    },
    /// Stayed.
    Stayed {
        /// The room.
        room: Room,
    },
    /// Asked to move where it could not (no passage, or a closed door) and stayed.
    Blocked {
        /// The room.
        room: Room,
        /// The room asked for.
        to: Room,
    },
    /// Pressed a button: the door is now open or closed.
    Pressed {
        /// The room of the button.
        room: Room,
        /// The two rooms of the door.
        door: [Room; 2],
        /// Whether the door is open after the press.
        open: bool,
    },
    /// Pressed where there is no button; nothing happened.
    NoButton {
        /// The room.
        room: Room,
    },
}

/// Everything one step did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CaptureOutcome {
    /// What each player's action did.
    pub events: [CaptureEvent; 2],
    /// The thief's room before the step.
    pub thief_from: Room,
    /// The thief's room after it.
    pub thief_to: Room,
    /// Whether the thief was caught in this step.
    pub caught: bool,
}

/// Counters of a CollabCapture episode.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CaptureTally {
    /// Whether the thief was caught.
    pub caught: bool,
    /// The turn of the capture (1-based: turns played when it happened).
    pub turns_to_capture: Option<u32>,
    /// Moves made, per player.
    pub moves: [u32; 2],
    /// Button presses that worked a door, per player.
    pub presses: [u32; 2],
    /// Moves refused (no passage or a closed door), per player.
    pub blocked: [u32; 2],
}

/// One configured CollabCapture game: a maze and its rules.
#[derive(Clone, Debug)]
pub struct Capture {
    core: MazeCore,
    /// The door (index, or [`NO_DOOR`]) on each exit of [`ExitTable::flat`].
    link_door: Vec<u8>,
    /// For every pair `from * (rooms + 1) + to`, the door between them (or [`NO_DOOR`]).
    door_between: Vec<u8>,
    /// For every room, the door its button works (or [`NO_DOOR`]).
    button: Vec<u8>,
}

/// No door (in the lookup tables).
const NO_DOOR: u8 = u8::MAX;

/// Why a maze cannot be played as CollabCapture.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{spec}: this is an escape maze, not a capture maze")]
pub struct NotCapture {
    /// The spec of the maze.
    pub spec: String,
}

impl Capture {
    /// The game on `maze`, named `spec` in records (`capture:1`, a file path).
    pub fn new(maze: Maze, spec: &str) -> Result<Capture, NotCapture> {
        if maze.kind != GameKind::Capture {
            return Err(NotCapture { spec: spec.to_string() });
        }
        let n = maze.rooms + 1;
        let mut door_between = vec![NO_DOOR; n * n];
        let mut button = vec![NO_DOOR; n];
        for (i, d) in maze.doors.iter().enumerate() {
            let [a, b] = d.rooms.map(usize::from);
            door_between[a * n + b] = i as u8;
            door_between[b * n + a] = i as u8;
            button[d.button as usize] = i as u8;
        }
        let core = MazeCore::new(maze, spec);
        let mut link_door = Vec::with_capacity(core.exits.flat().len());
        for r in 0..n {
            for &to in core.exits.exits(r as Room) {
                link_door.push(door_between[r * n + to as usize]);
            }
        }
        Ok(Capture { core, link_door, door_between, button })
    }

    /// A built-in scenario (`capture:1` … `capture:4`).
    pub fn builtin(spec: &str) -> Option<Capture> {
        Capture::new(Maze::builtin(spec)?, spec).ok()
    }

    /// The maze.
    pub fn maze(&self) -> &Maze {
        &self.core.maze
    }

    /// The same game with another catch rule (the published greedy-baseline loop counts
    /// only same-room captures).
    pub fn with_catch(mut self, catch: CatchRule) -> Capture {
        self.core.maze.catch = catch;
        self
    }

    /// The rooms reachable from `room` in one move with the doors of `doors`, in exit order.
    #[inline]
    pub fn accessible(&self, room: Room, doors: u64) -> impl Iterator<Item = Room> + '_ {
        let exits = self.core.exits.exits(room);
        let off = self.core.exits.offset(room);
        let ds = &self.link_door[off..off + exits.len()];
        exits.iter().zip(ds).filter(move |(_, d)| **d == NO_DOOR || doors & (1 << **d) != 0).map(|(&r, _)| r)
    }

    /// Whether `room` can be reached from `from` in one move with the doors of `doors`.
    #[inline]
    pub fn can_move(&self, from: Room, to: Room, doors: u64) -> bool {
        if !self.core.exits.has(from, to) {
            return false;
        }
        let d = self.door_between[from as usize * (self.core.maze.rooms + 1) + to as usize];
        d == NO_DOOR || doors & (1 << d) != 0
    }

    /// The door (index) whose button is in `room`.
    #[inline]
    pub fn button_in(&self, room: Room) -> Option<usize> {
        self.button.get(room as usize).copied().filter(|&d| d != NO_DOOR).map(usize::from)
    }

    /// The room a player ends up in when taking `action` from `room` (the original's
    /// `plan_move`: a move that is not possible keeps the player where it is).
    pub fn planned_room(&self, room: Room, action: Option<CaptureAction>, doors: u64) -> Room {
        match action {
            Some(CaptureAction::Move(to)) if self.can_move(room, to, doors) => to,
            _ => room,
        }
    }

    /// Where the thief goes this turn when the players end up in `targets`: among the
    /// rooms it can reach, the one farthest from the nearer player (by room-number
    /// difference, or by moves with `flee: graph`), the first in exit order on a tie; it
    /// stays only when it cannot move.
    pub fn thief_move(&self, state: &CaptureState, targets: [Room; 2]) -> Room {
        self.flee(state.thief, state.doors, targets)
    }

    fn flee(&self, thief: Room, doors: u64, targets: [Room; 2]) -> Room {
        let mut best: Option<(Room, u32)> = None;
        match self.core.maze.flee {
            Flee::Label => {
                for r in self.accessible(thief, doors) {
                    let s = (r.abs_diff(targets[0]).min(r.abs_diff(targets[1]))) as u32;
                    if best.is_none_or(|(_, b)| s > b) {
                        best = Some((r, s));
                    }
                }
            }
            Flee::Graph => {
                let open = |a: Room, b: Room| self.can_move(a, b, doors);
                let d = [self.maze().distances(targets[0], open), self.maze().distances(targets[1], open)];
                for r in self.accessible(thief, doors) {
                    let s = d[0][r as usize].min(d[1][r as usize]);
                    if best.is_none_or(|(_, b)| s > b) {
                        best = Some((r, s));
                    }
                }
            }
        }
        best.map_or(thief, |(r, _)| r)
    }

    /// [`Game::legal_actions`] into a buffer the caller keeps (cleared first): stay, the
    /// rooms reachable through open doors in exit order, and press in a button room.
    pub fn legal_actions_into(&self, state: &CaptureState, player: usize, out: &mut Vec<CaptureAction>) {
        out.clear();
        if state.caught || player > 1 {
            return;
        }
        let room = state.players[player];
        out.push(CaptureAction::Stay);
        out.extend(self.accessible(room, state.doors).map(CaptureAction::Move));
        if self.button_in(room).is_some() {
            out.push(CaptureAction::Press);
        }
    }

    /// The doors as they are at the start.
    pub fn start_doors(&self) -> u64 {
        self.core.maze.doors.iter().enumerate().filter(|(_, d)| d.open).fold(0, |m, (i, _)| m | (1 << i))
    }
}

impl MazeRules for Capture {
    type State = CaptureState;
    type Action = CaptureAction;
    type Event = CaptureEvent;
    type Outcome = CaptureOutcome;
    type Tally = CaptureTally;
    const KIND: &'static str = "collab_capture";
    const NAME: &'static str = "CollabCapture";
    const ADVERSARY: char = 'T';

    fn core(&self) -> &MazeCore {
        &self.core
    }

    fn start(&self) -> CaptureState {
        let maze = &self.core.maze;
        CaptureState { t: 0, players: maze.players, thief: maze.adversary, doors: self.start_doors(), caught: false }
    }

    fn players(s: &CaptureState) -> [Room; 2] {
        s.players
    }

    fn adversary(s: &CaptureState) -> Room {
        s.thief
    }

    fn turns(s: &CaptureState) -> u32 {
        s.t
    }

    fn over(s: &CaptureState) -> bool {
        s.caught
    }

    fn legal(&self, s: &CaptureState, player: usize, out: &mut Vec<CaptureAction>) {
        self.legal_actions_into(s, player, out);
    }

    fn play(
        &self,
        state: &mut CaptureState,
        acts: [Option<CaptureAction>; 2],
        _chance: &mut dyn Chance,
    ) -> CaptureOutcome {
        let (rooms, thief, doors) = (state.players, state.thief, state.doors);
        if state.caught {
            let events = [CaptureEvent::Stayed { room: rooms[0] }, CaptureEvent::Stayed { room: rooms[1] }];
            return CaptureOutcome { events, thief_from: thief, thief_to: thief, caught: false };
        }
        // Plans are made on the doors as they stand at the start of the turn; the thief
        // sees where the players will be and flees from there.
        let targets = [self.planned_room(rooms[0], acts[0], doors), self.planned_room(rooms[1], acts[1], doors)];
        let thief_to = self.flee(thief, doors, targets);
        let mut events = [CaptureEvent::Stayed { room: rooms[0] }, CaptureEvent::Stayed { room: rooms[1] }];
        for p in 0..2 {
            let room = rooms[p];
            events[p] = match acts[p] {
                Some(CaptureAction::Move(to)) if targets[p] != room => CaptureEvent::Moved { from: room, to },
                Some(CaptureAction::Move(to)) => CaptureEvent::Blocked { room, to },
                // Presses take effect in player order, after every plan is made.
                Some(CaptureAction::Press) => match self.button_in(room) {
                    Some(d) => {
                        state.doors ^= 1 << d;
                        CaptureEvent::Pressed { room, door: self.core.maze.doors[d].rooms, open: state.door_open(d) }
                    }
                    None => CaptureEvent::NoButton { room },
                },
                _ => CaptureEvent::Stayed { room },
            };
        }
        state.players = targets;
        state.thief = thief_to;
        let same = targets[0] == thief_to || targets[1] == thief_to;
        let swap = self.core.maze.catch == CatchRule::SameRoomOrSwap
            && state.t >= 1
            && ((rooms[0] == thief_to && thief == targets[0]) || (rooms[1] == thief_to && thief == targets[1]));
        state.caught = same || swap;
        state.t += 1;
        CaptureOutcome { events, thief_from: thief, thief_to, caught: state.caught }
    }

    fn step_reward(&self, outcome: &CaptureOutcome) -> i32 {
        i32::from(outcome.caught)
    }

    fn events(outcome: &CaptureOutcome) -> &[CaptureEvent; 2] {
        &outcome.events
    }

    fn stayed(event: &CaptureEvent) -> bool {
        matches!(event, CaptureEvent::Stayed { .. })
    }

    fn count(&self, tally: &mut CaptureTally, after: &CaptureState, outcome: &CaptureOutcome) {
        for (p, e) in outcome.events.iter().enumerate() {
            match e {
                CaptureEvent::Moved { .. } => tally.moves[p] += 1,
                CaptureEvent::Pressed { .. } => tally.presses[p] += 1,
                CaptureEvent::Blocked { .. } => tally.blocked[p] += 1,
                _ => {}
            }
        }
        if outcome.caught {
            tally.caught = true;
            tally.turns_to_capture = Some(after.t);
        }
    }

    fn changed_nothing(&self, before: &CaptureState, after: &CaptureState, _outcome: &CaptureOutcome) -> bool {
        before.players == after.players && before.doors == after.doors
    }

    fn status(&self, s: &CaptureState) -> &'static str {
        if s.caught { "  THIEF CAUGHT" } else { "" }
    }

    fn room_notes(&self, _s: &CaptureState, r: Room, out: &mut String) {
        if let Some(d) = self.button_in(r) {
            let [a, b] = self.core.maze.doors[d].rooms;
            let _ = write!(out, "  button: door {a}-{b}");
        }
    }

    fn footer(&self, s: &CaptureState, out: &mut String) {
        for (i, d) in self.core.maze.doors.iter().enumerate() {
            let state = if s.door_open(i) { "open" } else { "closed" };
            let _ = writeln!(out, "door {}-{}: {state} (button in room {})", d.rooms[0], d.rooms[1], d.button);
        }
    }

    fn to_json(&self, s: &CaptureState) -> serde_json::Value {
        let doors: Vec<bool> = (0..self.core.maze.doors.len()).map(|i| s.door_open(i)).collect();
        json!({"t": s.t, "players": s.players, "thief": s.thief, "doors": doors, "caught": s.caught})
    }
}

maze_game!(Capture);

#[cfg(test)]
mod tests {
    use super::*;
    use CaptureAction::*;
    use proagent_core::{Game, NoChance, Turn};

    fn game(spec: &str) -> Capture {
        Capture::builtin(spec).unwrap()
    }

    fn play(g: &Capture, s: &mut CaptureState, a: [CaptureAction; 2]) -> CaptureOutcome {
        g.step(s, &[Some(a[0]), Some(a[1])], &mut NoChance)
    }

    #[test]
    fn start_and_legal_actions() {
        let g = game("capture:2");
        let s = g.initial_state(&mut NoChance);
        assert_eq!((s.players, s.thief, s.doors), ([1, 6], 2, 0b10));
        // Door 1-2 is closed: Alice can only go to 6.
        assert_eq!(g.legal_actions(&s, 0), vec![Stay, Move(6)]);
        assert_eq!(g.legal_actions(&s, 1), vec![Stay, Move(5), Move(9), Move(1)]);
    }

    #[test]
    fn the_thief_flees_from_planned_rooms_by_number_first_on_ties() {
        let g = game("capture:3");
        let mut s = g.initial_state(&mut NoChance);
        // Alice goes to 2 (the thief's room), Bob to 5: from 2 the thief can reach 1 and 3,
        // both at distance 1 from the nearer player; 1 comes first.
        let out = play(&g, &mut s, [Move(2), Move(5)]);
        assert_eq!((s.players, s.thief), ([2, 5], 1));
        // Alice and the thief swapped rooms in the first turn: not a capture (the swap
        // check has no previous rooms in the first turn).
        assert!(!out.caught && !s.caught);
        play(&g, &mut s, [Move(1), Move(4)]);
        assert_eq!((s.players, s.thief), ([1, 4], 6));
        // From the second turn on a swap is a capture.
        let out = play(&g, &mut s, [Move(6), Move(5)]);
        assert_eq!(s.thief, 1);
        assert!(out.caught && s.caught && g.is_over(&s));
        assert_eq!(g.turn(&s), Turn::Over);
        // Same rule set without swaps: no capture.
        let g = game("capture:3").with_catch(CatchRule::SameRoom);
        let mut s = g.initial_state(&mut NoChance);
        for a in [[Move(2), Move(5)], [Move(1), Move(4)], [Move(6), Move(5)]] {
            play(&g, &mut s, a);
        }
        assert!(!s.caught);
    }

    #[test]
    fn presses_toggle_doors_after_the_moves_are_planned() {
        let g = game("capture:1");
        let mut s = CaptureState { t: 3, players: [9, 3], thief: 5, doors: g.start_doors(), caught: false };
        // Bob asks for 4 while Alice closes door 1-2: moves use the doors at the start.
        let out = play(&g, &mut s, [Press, Move(4)]);
        assert_eq!(s.doors, 0b10);
        assert_eq!(out.events[0], CaptureEvent::Pressed { room: 9, door: [1, 2], open: false });
        assert_eq!(s.players, [9, 4]);
        // Pressing where there is no button does nothing; pressing again reopens.
        let out = play(&g, &mut s, [Press, Press]);
        assert_eq!(out.events[1], CaptureEvent::NoButton { room: 4 });
        assert_eq!(s.doors, 0b11);
    }

    #[test]
    fn blocked_moves_stay() {
        let g = game("capture:4");
        let mut s = g.initial_state(&mut NoChance);
        let out = play(&g, &mut s, [Move(2), Move(7)]);
        assert_eq!(s.players, [1, 6]);
        assert_eq!(out.events[0], CaptureEvent::Blocked { room: 1, to: 2 });
        assert!(g.idle(&CaptureState { thief: 2, ..s.clone() }, &s, &out));
    }

    #[test]
    fn tokens_round_trip() {
        let g = game("capture:1");
        for a in [Stay, Press, Move(1), Move(9)] {
            assert_eq!(g.parse_action(&g.action_token(a)), Some(a));
        }
        for bad in ["M0", "M10", "X", "", "M", "M-1"] {
            assert_eq!(g.parse_action(bad), None, "{bad}");
        }
    }

    #[test]
    fn steps_after_the_end_change_nothing() {
        let g = game("capture:3");
        let mut s = CaptureState { t: 5, players: [1, 6], thief: 1, doors: 1, caught: true };
        let before = s.clone();
        let out = play(&g, &mut s, [Move(2), Press]);
        assert_eq!(s, before);
        assert!(!out.caught);
        assert!(g.legal_actions(&s, 0).is_empty());
    }

    #[test]
    fn render_and_json() {
        let g = game("capture:2");
        let s = g.initial_state(&mut NoChance);
        let text = g.render_text(&s);
        assert!(text.contains("room  1 [A  ] -> 2 6"), "{text}");
        assert!(text.contains("door 1-2: closed (button in room 9)"), "{text}");
        assert_eq!(g.state_json(&s)["doors"], json!([false, true]));
    }
}
