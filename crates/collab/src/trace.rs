//! Reference rollouts recorded from the LLM-Coordination repository's own game code by
//! `scripts/collab_traces.py` (format: tests/fixtures/collab_traces/SCHEMA.md), and their
//! replay: each rollout's maze is checked against ours, then its recorded actions (in the
//! original's own terms) and the killer's recorded random picks are fed to our game turn
//! for turn, and every state is compared with the recording.
//!
//! Guarantees: parsing never panics (a bad file is a [`TraceError`] naming file and line);
//! [`verify`] names the first difference (turn, field, expected, got) or passes; it passes
//! only if every recorded turn matched, every recorded pick was used with the same number
//! of choices, and the game ended (or not) exactly as the recording says.

use crate::capture::{Capture, CaptureAction};
use crate::escape::{Escape, EscapeAction, EscapeResult};
use crate::maze::{CatchRule, Maze, Room};
use proagent_core::{Chance, Game};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The `schema` of every header line.
pub const SCHEMA: &str = "proagent-collab-trace/1";

/// Why a trace file cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{origin}:{line}: {message}")]
pub struct TraceError {
    /// The file.
    pub origin: String,
    /// The 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// The first line of a rollout.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Header {
    /// [`SCHEMA`].
    pub schema: String,
    /// `capture` or `escape`.
    pub game: String,
    /// The scenario, as our spec (`capture:2`).
    pub scenario: String,
    /// Who played (`kind`, `seed`).
    pub policy: Value,
    /// The published loop that ran.
    #[serde(rename = "loop")]
    pub loop_name: String,
    /// The capture rule of that loop (`same_room`, `same_room_or_swap`; capture only).
    #[serde(default)]
    pub catch: Option<String>,
    /// The loop's turn limit (capture).
    #[serde(default)]
    pub turns: Option<u32>,
    /// Where the script cut an unlimited rollout (escape).
    #[serde(default)]
    pub cap: Option<u32>,
    /// The maze as the Python objects held it.
    pub maze: Value,
    /// The state before the first turn.
    pub start: Value,
    /// Which code recorded it.
    #[serde(default)]
    pub generator: Option<Value>,
}

/// One recorded turn.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct Step {
    /// The 0-based turn.
    pub t: u32,
    /// Each player's action as the original's loop received it.
    pub actions: Vec<Value>,
    /// The state after the turn.
    pub state: Value,
    /// `continue`, or how the game ended in this turn (`caught`; `win`, `loss`).
    pub result: String,
    /// The killer's random picks in this turn: `[number of choices, index]`.
    #[serde(default)]
    pub draws: Vec<[usize; 2]>,
}

/// The last line of a rollout.
#[derive(Clone, Debug, Deserialize, Serialize)]
pub struct End {
    /// Turns played, as the loop counted them.
    pub turns: u32,
    /// `caught` / `timeout` (capture), `win` / `loss` / `cap` (escape).
    pub result: String,
}

#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Record {
    Header(Box<Header>),
    Step(Box<Step>),
    End(End),
}

/// One recorded rollout.
#[derive(Clone, Debug)]
pub struct Rollout {
    /// The line of its header.
    pub line: usize,
    /// The header.
    pub header: Header,
    /// The turns, in order, with their lines.
    pub steps: Vec<(usize, Step)>,
    /// The end line.
    pub end: End,
}

/// The first difference between a recording and our replay.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Divergence {
    /// The 0-based turn (`None`: the maze or the start state).
    pub t: Option<u32>,
    /// What differs (`state.thief`, `maze.room 7`, `draws`, `end.result`).
    pub field: String,
    /// The recording's value.
    pub expected: Value,
    /// Ours.
    pub got: Value,
}

/// The result of replaying one rollout.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// Whether everything matched.
    pub passed: bool,
    /// Turns in the recording.
    pub steps: usize,
    /// Turns replayed without a difference.
    pub steps_matched: usize,
    /// How the rollout ended (the recording's word).
    pub result: String,
    /// Random picks fed to the game.
    pub draws_replayed: usize,
    /// The first difference, if any.
    pub divergence: Option<Divergence>,
}

/// Whether `text` looks like a collab trace (its first line is a header of [`SCHEMA`]).
pub fn is_collab_trace(text: &str) -> bool {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    serde_json::from_str::<Value>(first).is_ok_and(|v| v["schema"] == SCHEMA)
}

/// Reads a trace file: rollouts of a header, steps and an end line each.
pub fn parse(text: &str, origin: &str) -> Result<Vec<Rollout>, TraceError> {
    let err = |line: usize, message: String| TraceError { origin: origin.to_string(), line, message };
    let mut out = Vec::new();
    let mut open: Option<Rollout> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let record: Record = serde_json::from_str(raw).map_err(|e| err(line, format!("not a trace record: {e}")))?;
        match record {
            Record::Header(h) => {
                if open.is_some() {
                    return Err(err(line, "a header before the previous rollout's end line".to_string()));
                }
                if h.schema != SCHEMA {
                    return Err(err(line, format!("schema {:?}, expected {SCHEMA:?}", h.schema)));
                }
                if h.game != "capture" && h.game != "escape" {
                    return Err(err(line, format!("game {:?}: expected capture or escape", h.game)));
                }
                open =
                    Some(Rollout { line, header: *h, steps: Vec::new(), end: End { turns: 0, result: String::new() } });
            }
            Record::Step(s) => {
                let Some(Rollout { steps, .. }) = open.as_mut() else {
                    return Err(err(line, "a step line outside a rollout (no header before it)".to_string()));
                };
                if s.t as usize != steps.len() {
                    return Err(err(line, format!("step t={} where t={} was expected", s.t, steps.len())));
                }
                if s.actions.len() != 2 {
                    return Err(err(line, format!("{} actions, expected 2", s.actions.len())));
                }
                steps.push((line, *s));
            }
            Record::End(end) => {
                let Some(rollout) = open.take() else {
                    return Err(err(line, "an end line outside a rollout".to_string()));
                };
                out.push(Rollout { end, ..rollout });
            }
        }
    }
    if let Some(r) = open {
        return Err(err(r.line, "this rollout has no end line".to_string()));
    }
    Ok(out)
}

/// Our action for a capture action as the published loop received it: a room number is a
/// move, a string starting `Press` a press, anything else (`Stay in current room`) a stay.
pub fn capture_action_of(v: &Value) -> CaptureAction {
    match v {
        Value::Number(n) => match n.as_u64() {
            Some(r) if (1..=u64::from(Room::MAX)).contains(&r) => CaptureAction::Move(r as Room),
            _ => CaptureAction::Stay,
        },
        Value::String(s) if s.starts_with("Press") => CaptureAction::Press,
        _ => CaptureAction::Stay,
    }
}

/// Our action for an escape action string as `Game.play` received it: `move to room N`
/// is a move, anything else with `fix` in it a fix, the rest (`wait`) a wait.
pub fn escape_action_of(v: &Value) -> EscapeAction {
    let s = v.as_str().unwrap_or("");
    if s.contains("move") {
        let room = s.rsplit(' ').next().and_then(|n| n.parse::<u64>().ok());
        match room {
            Some(r) if (1..=u64::from(Room::MAX)).contains(&r) => EscapeAction::Move(r as Room),
            _ => EscapeAction::Wait,
        }
    } else if s.contains("fix") {
        EscapeAction::Fix
    } else {
        EscapeAction::Wait
    }
}

/// Feeds recorded picks to the game and notes the first one that does not fit.
struct Recorded<'a> {
    draws: &'a [[usize; 2]],
    used: usize,
    problem: Option<(Value, Value)>,
}

impl Chance for Recorded<'_> {
    fn pick(&mut self, n: usize) -> usize {
        let Some(&[want, i]) = self.draws.get(self.used) else {
            self.problem.get_or_insert((json!(null), json!([n, "?"])));
            return 0;
        };
        self.used += 1;
        if want != n || i >= n {
            self.problem.get_or_insert((json!([want, i]), json!([n, i])));
        }
        i.min(n.saturating_sub(1))
    }
}

struct Check {
    report: Report,
}

impl Check {
    fn differ(&mut self, t: Option<u32>, field: &str, expected: Value, got: Value) -> bool {
        if expected == got {
            return false;
        }
        self.report.divergence = Some(Divergence { t, field: field.to_string(), expected, got });
        true
    }

    fn done(mut self) -> Report {
        self.report.passed = self.report.divergence.is_none();
        self.report
    }
}

fn exits_json(maze: &Maze) -> Value {
    let mut rooms = serde_json::Map::new();
    for r in 1..=maze.rooms {
        rooms.insert(r.to_string(), json!(maze.exits[r]));
    }
    Value::Object(rooms)
}

/// Replays one rollout through our game and compares it with the recording.
pub fn verify(r: &Rollout) -> Report {
    let mut check = Check {
        report: Report {
            passed: false,
            steps: r.steps.len(),
            steps_matched: 0,
            result: r.end.result.clone(),
            draws_replayed: 0,
            divergence: None,
        },
    };
    let Some(maze) = Maze::builtin(&r.header.scenario) else {
        check.differ(None, "scenario", json!(r.header.scenario), json!("no such built-in scenario"));
        return check.done();
    };
    if check.differ(None, "game", json!(r.header.game), json!(format!("{:?}", maze.kind).to_lowercase())) {
        return check.done();
    }
    let m = &r.header.maze;
    if check.differ(None, "maze.rooms", m["rooms"].clone(), exits_json(&maze))
        || check.differ(None, "maze.players", m["players"].clone(), json!(maze.players))
        || check.differ(None, "maze.adversary", m["adversary"].clone(), json!(maze.adversary))
    {
        return check.done();
    }
    if r.header.game == "capture" {
        let doors: Vec<Value> = maze.doors.iter().map(|d| json!({"rooms": d.rooms, "button": d.button})).collect();
        let open: Vec<bool> = maze.doors.iter().map(|d| d.open).collect();
        if check.differ(None, "maze.doors", m["doors"].clone(), json!(doors))
            || check.differ(None, "maze.doors_open", m["doors_open"].clone(), json!(open))
            || check.differ(None, "turns", json!(r.header.turns), json!(maze.turns))
        {
            return check.done();
        }
        let catch = match r.header.catch.as_deref() {
            Some("same_room") => CatchRule::SameRoom,
            Some("same_room_or_swap") => CatchRule::SameRoomOrSwap,
            other => {
                check.differ(None, "catch", json!(other), json!("same_room or same_room_or_swap"));
                return check.done();
            }
        };
        let Ok(game) = Capture::new(maze, &r.header.scenario) else {
            return check.done();
        };
        replay_capture(&game.with_catch(catch), r, check)
    } else {
        if check.differ(None, "maze.generators", m["generators"].clone(), json!(maze.generators))
            || check.differ(None, "maze.fixes", m["fixes"].clone(), json!(maze.fixes))
            || check.differ(None, "maze.exit", m["exit"].clone(), json!(maze.exit))
        {
            return check.done();
        }
        let Ok(game) = Escape::new(maze, &r.header.scenario) else {
            return check.done();
        };
        replay_escape(&game, r, check)
    }
}

/// Compares the listed fields of a recorded state with ours; true at the first difference.
fn compare(check: &mut Check, t: Option<u32>, recorded: &Value, ours: &Value, fields: &[&str]) -> bool {
    fields.iter().any(|f| check.differ(t, &format!("state.{f}"), recorded[*f].clone(), ours[*f].clone()))
}

const CAPTURE_FIELDS: &[&str] = &["players", "thief", "doors"];
const ESCAPE_FIELDS: &[&str] =
    &["players", "adversary", "target", "seen", "fix_counts", "fixed", "gate", "last_fixing"];

fn replay_capture(game: &Capture, r: &Rollout, mut check: Check) -> Report {
    let mut none = Recorded { draws: &[], used: 0, problem: None };
    let mut state = game.initial_state(&mut none);
    if compare(&mut check, None, &r.header.start, &game.state_json(&state), CAPTURE_FIELDS) {
        return check.done();
    }
    for (_, step) in &r.steps {
        let t = Some(step.t);
        if game.is_over(&state) {
            check.differ(t, "result", json!("a turn after the capture"), json!("caught already"));
            return check.done();
        }
        let actions = [capture_action_of(&step.actions[0]), capture_action_of(&step.actions[1])];
        let mut chance = Recorded { draws: &step.draws, used: 0, problem: None };
        game.step(&mut state, &[Some(actions[0]), Some(actions[1])], &mut chance);
        if check.differ(t, "draws", json!(step.draws.len()), json!(chance.used))
            || compare(&mut check, t, &step.state, &game.state_json(&state), CAPTURE_FIELDS)
        {
            return check.done();
        }
        let ours = if state.caught { "caught" } else { "continue" };
        if check.differ(t, "result", json!(step.result), json!(ours)) {
            return check.done();
        }
        check.report.steps_matched += 1;
    }
    let ours = if state.caught {
        "caught"
    } else if state.t >= game.max_steps() {
        "timeout"
    } else {
        "unfinished"
    };
    if !check.differ(None, "end.result", json!(r.end.result), json!(ours)) {
        check.differ(None, "end.turns", json!(r.end.turns), json!(state.t));
    }
    check.done()
}

fn replay_escape(game: &Escape, r: &Rollout, mut check: Check) -> Report {
    let mut none = Recorded { draws: &[], used: 0, problem: None };
    let mut state = game.initial_state(&mut none);
    if compare(&mut check, None, &r.header.start, &game.state_json(&state), ESCAPE_FIELDS) {
        return check.done();
    }
    for (_, step) in &r.steps {
        let t = Some(step.t);
        if game.is_over(&state) {
            check.differ(t, "result", json!("a turn after the end"), json!("over already"));
            return check.done();
        }
        let actions = [escape_action_of(&step.actions[0]), escape_action_of(&step.actions[1])];
        let mut chance = Recorded { draws: &step.draws, used: 0, problem: None };
        game.step(&mut state, &[Some(actions[0]), Some(actions[1])], &mut chance);
        check.report.draws_replayed += chance.used;
        if let Some((expected, got)) = chance.problem.take() {
            check.differ(t, "draws", expected, got);
            return check.done();
        }
        if check.differ(t, "draws", json!(step.draws.len()), json!(chance.used))
            || compare(&mut check, t, &step.state, &game.state_json(&state), ESCAPE_FIELDS)
        {
            return check.done();
        }
        let ours = match state.result {
            EscapeResult::Ongoing => "continue",
            EscapeResult::Escaped => "win",
            EscapeResult::Caught => "loss",
        };
        if check.differ(t, "result", json!(step.result), json!(ours)) {
            return check.done();
        }
        check.report.steps_matched += 1;
    }
    let ours = match state.result {
        EscapeResult::Ongoing => "cap",
        EscapeResult::Escaped => "win",
        EscapeResult::Caught => "loss",
    };
    if !check.differ(None, "end.result", json!(r.end.result), json!(ours)) {
        check.differ(None, "end.turns", json!(r.end.turns), json!(state.t));
    }
    check.done()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn fixtures() -> Vec<(PathBuf, String)> {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/collab_traces");
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        files.into_iter().map(|p| (p.clone(), std::fs::read_to_string(&p).unwrap())).collect()
    }

    #[test]
    fn every_fixture_replays_turn_for_turn() {
        let files = fixtures();
        assert_eq!(files.len(), 6, "one file per scenario");
        let (mut rollouts, mut turns, mut draws) = (0, 0, 0);
        let mut results = std::collections::BTreeSet::new();
        for (path, text) in &files {
            assert!(is_collab_trace(text), "{}", path.display());
            for r in parse(text, &path.display().to_string()).unwrap() {
                let report = verify(&r);
                assert!(report.passed, "{}:{} {:?}: {:?}", path.display(), r.line, r.header.policy, report.divergence);
                assert_eq!(report.steps_matched, r.steps.len());
                rollouts += 1;
                turns += report.steps;
                draws += report.draws_replayed;
                results.insert(format!("{}:{}", r.header.game, r.end.result));
            }
        }
        assert!(rollouts >= 40 && turns >= 500 && draws >= 50, "{rollouts} rollouts, {turns} turns, {draws} draws");
        // Every way an episode ends is covered.
        for want in ["capture:caught", "capture:timeout", "escape:win", "escape:loss"] {
            assert!(results.contains(want), "no {want} rollout in {results:?}");
        }
    }

    fn first_rollout(name: &str) -> (String, Rollout) {
        let (path, text) = fixtures().into_iter().find(|(p, _)| p.ends_with(name)).unwrap();
        let r = parse(&text, &path.display().to_string()).unwrap().remove(0);
        (text, r)
    }

    #[test]
    fn a_changed_recording_is_named() {
        let (_, mut r) = first_rollout("capture_2.jsonl");
        r.steps[1].1.state["thief"] = json!(9);
        let d = verify(&r).divergence.unwrap();
        assert_eq!((d.t, d.field.as_str(), d.expected), (Some(1), "state.thief", json!(9)));
        let (_, mut r) = first_rollout("capture_1.jsonl");
        r.header.maze["rooms"]["8"] = json!([7, 9]);
        let d = verify(&r).divergence.unwrap();
        assert_eq!((d.t, d.field.as_str()), (None, "maze.rooms"));
        // An escape rollout with a draw over the wrong number of exits.
        let (_, mut r) = first_rollout("escape_1.jsonl");
        let (i, _) = r.steps.iter().enumerate().find(|(_, (_, s))| !s.draws.is_empty()).unwrap();
        r.steps[i].1.draws[0][0] += 1;
        let d = verify(&r).divergence.unwrap();
        assert_eq!((d.t, d.field.as_str()), (Some(i as u32), "draws"));
        // A changed ending.
        let (_, mut r) = first_rollout("escape_2.jsonl");
        r.end.result = "win".to_string();
        assert!(!verify(&r).passed);
    }

    #[test]
    fn bad_files_name_the_line() {
        let (text, _) = first_rollout("capture_3.jsonl");
        let lines: Vec<&str> = text.lines().collect();
        let e = parse(&lines[..3].join("\n"), "x.jsonl").unwrap_err();
        assert_eq!((e.line, e.message.as_str()), (1, "this rollout has no end line"));
        let e = parse(&format!("{}\n{{oops\n", lines[0]), "x.jsonl").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.to_string().starts_with("x.jsonl:2: not a trace record"), "{e}");
        let e = parse(lines[1], "x.jsonl").unwrap_err();
        assert!(e.message.contains("outside a rollout"), "{e}");
        let skipped = format!("{}\n{}\n", lines[0], lines[2]);
        let e = parse(&skipped, "x.jsonl").unwrap_err();
        assert!(e.message.contains("step t=1 where t=0"), "{e}");
        assert!(!is_collab_trace("{\"kind\": \"header\"}"));
    }

    #[test]
    fn reference_actions_map_as_the_loops_read_them() {
        assert_eq!(capture_action_of(&json!(4)), CaptureAction::Move(4));
        assert_eq!(capture_action_of(&json!("Press button in room 2")), CaptureAction::Press);
        assert_eq!(capture_action_of(&json!("Stay in current room")), CaptureAction::Stay);
        assert_eq!(capture_action_of(&json!(900)), CaptureAction::Stay);
        assert_eq!(escape_action_of(&json!("move to room 10")), EscapeAction::Move(10));
        assert_eq!(escape_action_of(&json!("fix generator in room 1")), EscapeAction::Fix);
        assert_eq!(escape_action_of(&json!("wait")), EscapeAction::Wait);
    }
}
