//! CollabEscape: two players repair generators that power an exit gate and escape a
//! killer who chases whoever it sees, with the rules of the LLM-Coordination paper's own
//! implementation (docs/collab.md lists them with their sources).
//!
//! Guarantees: [`Escape`] implements [`Game`] with simultaneous moves ([`Turn::All`]); it
//! is pure and total (a move to a room that is not an exit keeps the player where it is,
//! as in the original). Its only randomness is the killer's wandering when it sees nobody:
//! one [`Chance::pick`] over the exits of its room, drawn before the players' actions
//! apply, so a recorded stream of picks replays an episode.

use crate::game_core::{MazeAction, MazeCore, MazeRules, maze_game};
use crate::maze::{GameKind, MAX_GENERATORS, Maze, Room};
use proagent_core::Chance;
use serde::Serialize;
use serde_json::json;
use std::fmt::Write as _;

/// One player's move in CollabEscape.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EscapeAction {
    /// Stay (`wait`).
    Wait,
    /// Move to an exit of the current room (`move to room N`).
    Move(Room),
    /// Work on the generator in the current room (`fix generator in room N`).
    Fix,
}

impl MazeAction for EscapeAction {
    const STAY: Self = EscapeAction::Wait;
    const ACT: Self = EscapeAction::Fix;
    const STAY_TOKEN: &'static str = "W";
    const ACT_TOKEN: &'static str = "F";
    fn to(room: Room) -> Self {
        EscapeAction::Move(room)
    }
    fn room(self) -> Option<Room> {
        match self {
            EscapeAction::Move(r) => Some(r),
            _ => None,
        }
    }
}

/// How an episode stands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EscapeResult {
    /// Still going.
    Ongoing,
    /// A player reached the open exit gate: both win.
    Escaped,
    /// The killer ended a turn in a player's room: both lose.
    Caught,
}

/// The state of a CollabEscape episode.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EscapeState {
    /// Turns played.
    pub t: u32,
    /// The rooms of player 0 (Alice) and player 1 (Bob).
    pub players: [Room; 2],
    /// The killer's room.
    pub adversary: Room,
    /// Which players the killer saw when it last chose (the original's `can_see`); it
    /// decides whom the killer follows when both are next to it.
    pub seen: [bool; 2],
    /// Whom the killer went after in the last turn (`None`: it wandered).
    pub target: Option<u8>,
    /// Fixes counted on each generator, in maze order (slots past the maze's are 0).
    pub fix_counts: [u32; MAX_GENERATORS],
    /// Bit `i` set: generator `i` is repaired.
    pub fixed: u8,
    /// Whether each player's last action counted as fixing (shown to the players).
    pub last_fixing: [bool; 2],
    /// How the episode stands.
    pub result: EscapeResult,
}

/// What the killer will do this turn, as the players are told before they act.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "plan", content = "player", rename_all = "snake_case")]
pub enum KillerPlan {
    /// It moves into the room this player is in now.
    Chase(usize),
    /// It sees nobody and moves to a random exit of its room.
    Wander,
}

/// What one player's action did in a step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EscapeEvent {
    /// Moved from one room to another.
    Moved {
        /// The room left.
        from: Room,
        /// The room entered.
        to: Room,
    },
    /// Waited.
    Waited {
        /// The room.
        room: Room,
    },
    /// Asked to move to a room that is not an exit of its room, and stayed.
    Blocked {
        /// The room.
        room: Room,
        /// The room asked for.
        to: Room,
    },
    /// Worked on the generator in its room.
    Fixed {
        /// The room.
        room: Room,
        /// The generator's count of consecutive fixes after this one.
        count: u32,
        /// Whether the generator is repaired now.
        repaired: bool,
    },
    /// Tried to fix where there is no generator; nothing happened.
    NoGenerator {
        /// The room.
        room: Room,
    },
}

/// Everything one step did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EscapeOutcome {
    /// What each player's action did.
    pub events: [EscapeEvent; 2],
    /// The killer's room before the step.
    pub killer_from: Room,
    /// The killer's room after it.
    pub killer_to: Room,
    /// Whom the killer chased (`None`: it wandered).
    pub chased: Option<usize>,
    /// Generator progress lost because nobody kept fixing it (maze order).
    pub reset: u8,
    /// How the episode stands after the step.
    pub result: EscapeResult,
    /// Whether the episode ended in this step.
    pub ended: bool,
}

/// Counters of a CollabEscape episode.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct EscapeTally {
    /// Whether the players escaped.
    pub escaped: bool,
    /// Whether the killer caught a player.
    pub caught: bool,
    /// The turn the episode ended in (1-based), if it ended by the rules.
    pub turns: Option<u32>,
    /// Fix actions on a generator, per player.
    pub fixes: [u32; 2],
    /// Moves made, per player.
    pub moves: [u32; 2],
    /// Generators repaired by the end.
    pub generators_repaired: u32,
    /// Turns the killer chased someone.
    pub chases: u32,
}

/// One configured CollabEscape game: a maze and its rules.
#[derive(Clone, Debug)]
pub struct Escape {
    core: MazeCore,
    /// For every room, its generator (index), if any.
    generator: Vec<Option<u8>>,
    all_fixed: u8,
}

/// Why a maze cannot be played as CollabEscape.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{spec}: this is a capture maze, not an escape maze")]
pub struct NotEscape {
    /// The spec of the maze.
    pub spec: String,
}

impl Escape {
    /// The game on `maze`, named `spec` in records (`escape:1`, a file path).
    pub fn new(maze: Maze, spec: &str) -> Result<Escape, NotEscape> {
        if maze.kind != GameKind::Escape {
            return Err(NotEscape { spec: spec.to_string() });
        }
        let mut generator = vec![None; maze.rooms + 1];
        for (i, &g) in maze.generators.iter().enumerate() {
            generator[g as usize] = Some(i as u8);
        }
        let all_fixed = ((1u16 << maze.generators.len()) - 1) as u8;
        Ok(Escape { core: MazeCore::new(maze, spec), generator, all_fixed })
    }

    /// A built-in scenario (`escape:1`, `escape:2`).
    pub fn builtin(spec: &str) -> Option<Escape> {
        Escape::new(Maze::builtin(spec)?, spec).ok()
    }

    /// The maze.
    pub fn maze(&self) -> &Maze {
        &self.core.maze
    }

    /// The generator (index) in `room`, if any.
    #[inline]
    pub fn generator_in(&self, room: Room) -> Option<usize> {
        self.generator.get(room as usize).copied().flatten().map(usize::from)
    }

    /// Whether generator `i` is repaired.
    #[inline]
    pub fn is_fixed(&self, s: &EscapeState, i: usize) -> bool {
        i < MAX_GENERATORS && s.fixed & (1 << i) != 0
    }

    /// Whether the exit gate is open (every generator repaired).
    #[inline]
    pub fn gate_open(&self, s: &EscapeState) -> bool {
        s.fixed & self.all_fixed == self.all_fixed
    }

    /// Whether `to` is an exit of `from`.
    #[inline]
    pub fn can_move(&self, from: Room, to: Room) -> bool {
        self.core.exits.has(from, to)
    }

    /// What the killer does this turn and whom it has seen afterwards. It looks at the
    /// rooms its exits lead to: one player there is chased; with both there it keeps the
    /// one it was chasing if it had seen both, switches to the one it had not seen if it
    /// had seen one, and takes Alice if it had seen neither; with nobody there it wanders.
    #[inline]
    pub fn killer_plan(&self, s: &EscapeState) -> (KillerPlan, [bool; 2]) {
        let near = [self.core.exits.has(s.adversary, s.players[0]), self.core.exits.has(s.adversary, s.players[1])];
        match near {
            [true, true] => match s.seen {
                [true, true] => (KillerPlan::Chase(s.target.map_or(0, usize::from).min(1)), [true, true]),
                [true, false] => (KillerPlan::Chase(1), [true, true]),
                [false, true] => (KillerPlan::Chase(0), [true, true]),
                [false, false] => (KillerPlan::Chase(0), [true, true]),
            },
            [true, false] => (KillerPlan::Chase(0), [true, false]),
            [false, true] => (KillerPlan::Chase(1), [false, true]),
            [false, false] => (KillerPlan::Wander, [false, false]),
        }
    }

    /// [`Game::legal_actions`] into a buffer the caller keeps (cleared first): a move to
    /// each exit in order, fix where there is a generator, and wait.
    pub fn legal_actions_into(&self, state: &EscapeState, player: usize, out: &mut Vec<EscapeAction>) {
        out.clear();
        if state.result != EscapeResult::Ongoing || player > 1 {
            return;
        }
        let room = state.players[player];
        out.extend(self.core.exits.exits(room).iter().map(|&r| EscapeAction::Move(r)));
        if self.generator_in(room).is_some() {
            out.push(EscapeAction::Fix);
        }
        out.push(EscapeAction::Wait);
    }

    /// Whom the killer will go after this turn (what the players are told), or `None`
    /// when it sees nobody and will wander.
    pub fn intent(&self, s: &EscapeState) -> Option<usize> {
        match self.killer_plan(s).0 {
            KillerPlan::Chase(p) => Some(p),
            KillerPlan::Wander => None,
        }
    }
}

impl MazeRules for Escape {
    type State = EscapeState;
    type Action = EscapeAction;
    type Event = EscapeEvent;
    type Outcome = EscapeOutcome;
    type Tally = EscapeTally;
    const KIND: &'static str = "collab_escape";
    const NAME: &'static str = "CollabEscape";
    const ADVERSARY: char = 'K';

    fn core(&self) -> &MazeCore {
        &self.core
    }

    fn start(&self) -> EscapeState {
        EscapeState {
            t: 0,
            players: self.core.maze.players,
            adversary: self.core.maze.adversary,
            seen: [false; 2],
            target: None,
            fix_counts: [0; MAX_GENERATORS],
            fixed: 0,
            last_fixing: [false; 2],
            result: EscapeResult::Ongoing,
        }
    }

    fn players(s: &EscapeState) -> [Room; 2] {
        s.players
    }

    fn adversary(s: &EscapeState) -> Room {
        s.adversary
    }

    fn turns(s: &EscapeState) -> u32 {
        s.t
    }

    fn over(s: &EscapeState) -> bool {
        s.result != EscapeResult::Ongoing
    }

    fn legal(&self, s: &EscapeState, player: usize, out: &mut Vec<EscapeAction>) {
        self.legal_actions_into(s, player, out);
    }

    fn play(&self, state: &mut EscapeState, acts: [Option<EscapeAction>; 2], chance: &mut dyn Chance) -> EscapeOutcome {
        let rooms = state.players;
        let killer_from = state.adversary;
        let mut events = [EscapeEvent::Waited { room: rooms[0] }, EscapeEvent::Waited { room: rooms[1] }];
        if state.result != EscapeResult::Ongoing {
            return EscapeOutcome {
                events,
                killer_from,
                killer_to: killer_from,
                chased: None,
                reset: 0,
                result: state.result,
                ended: false,
            };
        }
        // The killer decides first, on the rooms as they are.
        let (plan, seen) = self.killer_plan(state);
        state.seen = seen;
        let (killer_to, chased) = match plan {
            KillerPlan::Chase(p) => {
                state.target = Some(p as u8);
                (rooms[p], Some(p))
            }
            KillerPlan::Wander => {
                state.target = None;
                let exits = self.core.exits.exits(killer_from);
                let i = chance.pick(exits.len());
                (exits.get(i).or(exits.first()).copied().unwrap_or(killer_from), None)
            }
        };
        // Progress on a generator that nobody fixes this turn is lost.
        let fixing = [acts[0] == Some(EscapeAction::Fix), acts[1] == Some(EscapeAction::Fix)];
        let mut reset = 0u8;
        for (i, &g) in self.core.maze.generators.iter().enumerate() {
            let worked = (fixing[0] && rooms[0] == g) || (fixing[1] && rooms[1] == g);
            if !worked && state.fixed & (1 << i) == 0 && state.fix_counts[i] != 0 {
                state.fix_counts[i] = 0;
                reset |= 1 << i;
            }
        }
        // Bob fixing in Alice's room alongside her does not count as "his" fixing.
        state.last_fixing = [fixing[0], fixing[1] && !(fixing[0] && rooms[0] == rooms[1])];
        for p in 0..2 {
            let room = rooms[p];
            events[p] = match acts[p] {
                Some(EscapeAction::Move(to)) if self.core.exits.has(room, to) => {
                    state.players[p] = to;
                    EscapeEvent::Moved { from: room, to }
                }
                Some(EscapeAction::Move(to)) => EscapeEvent::Blocked { room, to },
                Some(EscapeAction::Fix) => match self.generator_in(room) {
                    Some(i) => {
                        state.fix_counts[i] = state.fix_counts[i].saturating_add(1);
                        if state.fix_counts[i] >= self.core.maze.fixes {
                            state.fixed |= 1 << i;
                        }
                        EscapeEvent::Fixed { room, count: state.fix_counts[i], repaired: self.is_fixed(state, i) }
                    }
                    None => EscapeEvent::NoGenerator { room },
                },
                Some(EscapeAction::Wait) | None => EscapeEvent::Waited { room },
            };
        }
        state.adversary = killer_to;
        state.t += 1;
        state.result = if state.players[0] == killer_to || state.players[1] == killer_to {
            EscapeResult::Caught
        } else if self.gate_open(state)
            && (state.players[0] == self.core.maze.exit || state.players[1] == self.core.maze.exit)
        {
            EscapeResult::Escaped
        } else {
            EscapeResult::Ongoing
        };
        EscapeOutcome {
            events,
            killer_from,
            killer_to,
            chased,
            reset,
            result: state.result,
            ended: state.result != EscapeResult::Ongoing,
        }
    }

    fn step_reward(&self, outcome: &EscapeOutcome) -> i32 {
        i32::from(outcome.ended && outcome.result == EscapeResult::Escaped)
    }

    fn events(outcome: &EscapeOutcome) -> &[EscapeEvent; 2] {
        &outcome.events
    }

    fn stayed(event: &EscapeEvent) -> bool {
        matches!(event, EscapeEvent::Waited { .. })
    }

    fn count(&self, tally: &mut EscapeTally, after: &EscapeState, outcome: &EscapeOutcome) {
        for (p, e) in outcome.events.iter().enumerate() {
            match e {
                EscapeEvent::Moved { .. } => tally.moves[p] += 1,
                EscapeEvent::Fixed { .. } => tally.fixes[p] += 1,
                _ => {}
            }
        }
        if outcome.chased.is_some() {
            tally.chases += 1;
        }
        tally.generators_repaired = after.fixed.count_ones();
        if outcome.ended {
            tally.escaped = after.result == EscapeResult::Escaped;
            tally.caught = after.result == EscapeResult::Caught;
            tally.turns = Some(after.t);
        }
    }

    fn changed_nothing(&self, before: &EscapeState, after: &EscapeState, outcome: &EscapeOutcome) -> bool {
        before.players == after.players && !outcome.events.iter().any(|e| matches!(e, EscapeEvent::Fixed { .. }))
    }

    fn status(&self, s: &EscapeState) -> &'static str {
        match s.result {
            EscapeResult::Ongoing => "",
            EscapeResult::Escaped => "  ESCAPED",
            EscapeResult::Caught => "  CAUGHT",
        }
    }

    fn room_notes(&self, s: &EscapeState, r: Room, out: &mut String) {
        if let Some(i) = self.generator_in(r) {
            let state = if self.is_fixed(s, i) {
                "repaired".to_string()
            } else {
                format!("{}/{}", s.fix_counts[i], self.core.maze.fixes)
            };
            let _ = write!(out, "  generator {state}");
        }
        if r == self.core.maze.exit {
            let _ = write!(out, "  exit gate {}", if self.gate_open(s) { "open" } else { "closed" });
        }
    }

    fn footer(&self, s: &EscapeState, out: &mut String) {
        if s.result == EscapeResult::Ongoing {
            let _ = match self.intent(s) {
                Some(p) => writeln!(out, "killer will move to {}'s room", ["Alice", "Bob"][p]),
                None => writeln!(out, "killer sees nobody and wanders"),
            };
        }
    }

    fn to_json(&self, s: &EscapeState) -> serde_json::Value {
        let n = self.core.maze.generators.len();
        let fixed: Vec<bool> = (0..n).map(|i| self.is_fixed(s, i)).collect();
        json!({
            "t": s.t, "players": s.players, "adversary": s.adversary, "target": s.target, "seen": s.seen,
            "fix_counts": &s.fix_counts[..n], "fixed": fixed, "gate": self.gate_open(s),
            "last_fixing": s.last_fixing, "result": s.result, "intent": self.intent(s),
        })
    }
}

maze_game!(Escape);

#[cfg(test)]
mod tests {
    use super::*;
    use EscapeAction::*;
    use proagent_core::{Game, NoChance, Turn};

    /// Picks given in advance, checking that each draw is over the expected count.
    struct Picks(Vec<(usize, usize)>);

    impl Chance for Picks {
        fn pick(&mut self, n: usize) -> usize {
            let (want, i) = self.0.remove(0);
            assert_eq!(n, want);
            i
        }
    }

    fn game(spec: &str) -> Escape {
        Escape::builtin(spec).unwrap()
    }

    fn step(g: &Escape, s: &mut EscapeState, a: [EscapeAction; 2], c: &mut dyn Chance) -> EscapeOutcome {
        g.step(s, &[Some(a[0]), Some(a[1])], c)
    }

    #[test]
    fn fixing_together_repairs_at_once_and_stopping_resets() {
        let g = game("escape:1");
        let mut s = g.initial_state(&mut NoChance);
        assert_eq!(g.legal_actions(&s, 0), vec![Move(2), Move(10), Fix, Wait]);
        // The killer in 6 sees nobody (its exits are 5 and 7) and wanders: exit index 1 = 7.
        let out = step(&g, &mut s, [Fix, Move(1)], &mut Picks(vec![(2, 1)]));
        assert_eq!((s.adversary, s.fix_counts[0], out.chased), (7, 1, None));
        assert_eq!(s.last_fixing, [true, false]);
        // Both fix in room 1: the count goes 1 -> 3, repaired; Bob's fixing is not "his".
        let out = step(&g, &mut s, [Fix, Fix], &mut Picks(vec![(2, 0)]));
        assert_eq!((s.fix_counts[0], s.fixed, s.last_fixing), (3, 1, [true, false]));
        assert_eq!(out.events[1], EscapeEvent::Fixed { room: 1, count: 3, repaired: true });
        // A repaired generator keeps its count when nobody fixes it (the killer, now in 3,
        // draws among three exits).
        step(&g, &mut s, [Wait, Wait], &mut Picks(vec![(3, 0)]));
        assert_eq!(s.fix_counts[0], 3);
    }

    #[test]
    fn progress_is_lost_when_fixing_stops() {
        let g = game("escape:1");
        let mut s = g.initial_state(&mut NoChance);
        step(&g, &mut s, [Fix, Wait], &mut Picks(vec![(2, 0)]));
        assert_eq!(s.fix_counts[0], 1);
        let out = step(&g, &mut s, [Wait, Wait], &mut Picks(vec![(2, 0)]));
        assert_eq!((s.fix_counts[0], out.reset), (0, 1));
    }

    #[test]
    fn the_killer_chases_whom_it_sees() {
        let g = game("escape:1");
        let mut s = g.initial_state(&mut NoChance);
        s.players = [5, 1];
        assert_eq!(g.intent(&s), Some(0));
        step(&g, &mut s, [Move(4), Wait], &mut NoChance);
        // It moves into the room Alice was in, not where she went.
        assert_eq!((s.adversary, s.players, s.result), (5, [4, 1], EscapeResult::Ongoing));
        // Both next to it after it had seen only Alice: it switches to Bob.
        s.players = [4, 6];
        assert_eq!(s.seen, [true, false]);
        assert_eq!(g.intent(&s), Some(1));
        let out = step(&g, &mut s, [Wait, Wait], &mut NoChance);
        assert_eq!((s.adversary, s.result, out.ended), (6, EscapeResult::Caught, true));
        assert_eq!(g.turn(&s), Turn::Over);
    }

    #[test]
    fn both_seen_keeps_the_target() {
        let g = game("escape:1");
        let mut s = g.initial_state(&mut NoChance);
        s.adversary = 3;
        s.players = [2, 4];
        s.seen = [true, true];
        s.target = Some(1);
        assert_eq!(g.intent(&s), Some(1));
        s.seen = [false, false];
        assert_eq!(g.intent(&s), Some(0));
        s.seen = [false, true];
        assert_eq!(g.intent(&s), Some(0));
    }

    #[test]
    fn escaping_needs_the_gate_open_and_loss_comes_first() {
        let g = game("escape:1");
        let mut s = g.initial_state(&mut NoChance);
        s.fixed = 0b01;
        s.fix_counts = [2, 1, 0, 0, 0, 0, 0, 0];
        s.players = [6, 8];
        s.adversary = 10;
        // Alice finishes generator 6 while Bob steps into the exit room 7: they escape.
        let out = step(&g, &mut s, [Fix, Move(7)], &mut Picks(vec![(2, 0)]));
        assert!(g.gate_open(&s));
        assert_eq!((s.result, g.reward(&out)), (EscapeResult::Escaped, 1));
        // In the exit room with the gate open but caught in the same turn: a loss.
        let mut s = g.initial_state(&mut NoChance);
        s.fixed = 0b11;
        s.players = [6, 2];
        s.adversary = 3;
        let out = step(&g, &mut s, [Move(7), Wait], &mut NoChance);
        assert_eq!((s.result, g.reward(&out)), (EscapeResult::Caught, 0));
    }

    #[test]
    fn one_way_exits_and_bad_moves() {
        let g = game("escape:1");
        let mut s = g.initial_state(&mut NoChance);
        // Room 7 leads to 3, but 3 does not lead to 7.
        s.players = [7, 3];
        s.adversary = 10;
        let out = step(&g, &mut s, [Move(3), Move(7)], &mut Picks(vec![(2, 1)]));
        assert_eq!(s.players, [3, 3]);
        assert_eq!(out.events[1], EscapeEvent::Blocked { room: 3, to: 7 });
        let out = step(&g, &mut s, [Fix, Move(40)], &mut Picks(vec![(2, 1)]));
        assert_eq!(out.events[0], EscapeEvent::NoGenerator { room: 3 });
        assert_eq!(s.last_fixing, [true, false]);
    }

    #[test]
    fn tokens_round_trip_and_render() {
        let g = game("escape:2");
        for a in [Wait, Fix, Move(1), Move(10)] {
            assert_eq!(g.parse_action(&g.action_token(a)), Some(a));
        }
        assert_eq!(g.parse_action("M11"), None);
        let s = g.initial_state(&mut NoChance);
        let text = g.render_text(&s);
        assert!(text.contains("room  5 [A  ] -> 4 6"), "{text}");
        assert!(text.contains("room  6 [K  ] -> 5 7  generator 0/2"), "{text}");
        assert!(text.contains("killer will move to Alice's room"), "{text}");
        assert_eq!(g.state_json(&s)["fix_counts"], json!([0, 0]));
    }
}
