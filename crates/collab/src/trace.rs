//! Reference rollouts recorded from the LLM-Coordination repository's own game code by
//! `scripts/collab_traces.py` (format: tests/fixtures/collab_traces/SCHEMA.md), and their
//! replay: each rollout is played on the maze its header defines (rooms, doors, starts,
//! turn limit: [`header_maze`], checked by the same [`Maze::parse`] as a maze file, so a
//! rollout from any start rooms can be checked, not only the six built-in scenarios), its
//! recorded actions (in the original's own terms) and the killer's recorded random picks
//! are fed to our game turn for turn, and every state is compared with the recording.
//!
//! Guarantees: parsing never panics (a bad file is a [`TraceError`] naming file and line;
//! a header whose maze a maze file could not hold is refused there, naming the header
//! field); [`verify`] names the first difference (turn, field, expected, got) or passes; it
//! passes only if every recorded turn was replayed and matched, every recorded pick was in
//! range and used with the same number of choices, and the game ended (or not) exactly as
//! the recording says. No early stop passes: a report with fewer turns matched than
//! recorded is a failure.

use crate::capture::{Capture, CaptureAction};
use crate::escape::{Escape, EscapeAction, EscapeResult};
use crate::maze::{GameKind, Maze, Room};
use proagent_core::{Chance, Game};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::fmt::Write as _;

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
    /// Where the header's maze differs from the built-in scenario its `scenario` names
    /// (header fields, e.g. `maze.players, maze.adversary`; `scenario` when there is no
    /// built-in of that name); `None` when it is that scenario. The replay always uses the
    /// header's maze.
    pub maze_differs: Option<String>,
    /// The first difference, if any.
    pub divergence: Option<Divergence>,
}

/// Why a header's maze cannot be played: the header field at fault and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("header field `{field}`: {message}")]
pub struct HeaderMazeError {
    /// The header field, as a path (`maze.players`, `maze.rooms.3`, `maze.doors[1]`, `turns`).
    pub field: String,
    /// What is wrong with it.
    pub message: String,
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
                header_maze(&h).map_err(|e| err(line, e.to_string()))?;
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
        if want != n {
            self.problem.get_or_insert((json!([want, i]), json!([n, i])));
        } else if i >= n {
            // Out of range: what we got is the range an index must be in, never the
            // recording's own pair (equal to the expected value, so no difference at all).
            self.problem.get_or_insert((json!([want, i]), json!([n, format!("an index below {n}")])));
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
        self.fail(t, field, expected, got);
        true
    }

    /// Records a failure whatever the two values are.
    fn fail(&mut self, t: Option<u32>, field: &str, expected: Value, got: Value) {
        if self.report.divergence.is_none() {
            self.report.divergence = Some(Divergence { t, field: field.to_string(), expected, got });
        }
    }

    /// The report after the replay: passed only when nothing differed and every recorded
    /// turn was replayed and matched; a replay that stopped early without naming a
    /// difference is a failure too, never a pass.
    fn done(mut self) -> Report {
        if self.report.divergence.is_none() && self.report.steps_matched != self.report.steps {
            let (matched, steps) = (self.report.steps_matched, self.report.steps);
            self.fail(None, "steps", json!(steps), json!(format!("{matched} replayed")));
        }
        self.report.passed = self.report.divergence.is_none() && self.report.steps_matched == self.report.steps;
        self.report
    }
}

/// Replays one rollout through our game, on the maze its header defines, and compares it
/// with the recording.
pub fn verify(r: &Rollout) -> Report {
    let mut check = Check {
        report: Report {
            passed: false,
            steps: r.steps.len(),
            steps_matched: 0,
            result: r.end.result.clone(),
            draws_replayed: 0,
            maze_differs: None,
            divergence: None,
        },
    };
    let maze = match header_maze(&r.header) {
        Ok(m) => m,
        Err(e) => {
            check.fail(None, &e.field, json!("a maze a maze file could hold"), json!(e.message));
            return check.done();
        }
    };
    check.report.maze_differs = differs_from_builtin(&r.header, &maze);
    match maze.kind {
        GameKind::Capture => match Capture::new(maze, &r.header.scenario) {
            Ok(game) => replay_capture(&game, r, check),
            Err(e) => {
                check.fail(None, "game", json!(r.header.game), json!(e.to_string()));
                check.done()
            }
        },
        GameKind::Escape => match Escape::new(maze, &r.header.scenario) {
            Ok(game) => replay_escape(&game, r, check),
            Err(e) => {
                check.fail(None, "game", json!(r.header.game), json!(e.to_string()));
                check.done()
            }
        },
    }
}

/// The header fields whose maze differs from the built-in scenario the header names
/// (`None`: it is that scenario). The capture rule is the loop's, not the maze's, and an
/// escape rollout's cut (`cap`) is the script's, so neither counts.
fn differs_from_builtin(h: &Header, maze: &Maze) -> Option<String> {
    let Some(b) = Maze::builtin(&h.scenario) else {
        return Some("scenario".to_string());
    };
    let open = |m: &Maze| m.doors.iter().map(|d| d.open).collect::<Vec<_>>();
    let doors = |m: &Maze| m.doors.iter().map(|d| (d.rooms, d.button)).collect::<Vec<_>>();
    let checks = [
        ("game", b.kind == maze.kind),
        ("maze.rooms", b.exits == maze.exits),
        ("maze.doors", doors(&b) == doors(maze)),
        ("maze.doors_open", open(&b) == open(maze)),
        ("maze.players", b.players == maze.players),
        ("maze.adversary", b.adversary == maze.adversary),
        ("turns", maze.kind == GameKind::Escape || b.turns == maze.turns),
        ("maze.generators", b.generators == maze.generators),
        ("maze.fixes", b.fixes == maze.fixes),
        ("maze.exit", b.exit == maze.exit),
    ];
    let differ: Vec<&str> = checks.iter().filter(|(_, same)| !same).map(|(f, _)| *f).collect();
    (!differ.is_empty()).then(|| differ.join(", "))
}

/// The fields a header's `maze` may hold, per game.
const CAPTURE_MAZE_FIELDS: &[&str] = &["rooms", "doors", "doors_open", "players", "adversary"];
const ESCAPE_MAZE_FIELDS: &[&str] = &["rooms", "generators", "fixes", "exit", "players", "adversary"];

/// A whole number from a header field, as the decimal text a maze file would hold.
fn number_at(v: &Value, field: &str) -> Result<u64, HeaderMazeError> {
    v.as_u64()
        .ok_or_else(|| HeaderMazeError { field: field.to_string(), message: format!("{v} is not a whole number") })
}

/// The maze a rollout's header defines: its `maze` (rooms and their exits in order, doors
/// and whether each is open, generators, fixes, exit, the players' and the adversary's
/// start rooms), its turn limit (`turns` for capture; `cap`, else `turns`, for escape) and
/// its capture rule (`catch`), written as a maze file and read by [`Maze::parse`], so the
/// header passes exactly the checks a maze file does. The thief flees by room-number
/// difference, as in the published code the traces come from. An error names the header
/// field at fault.
pub fn header_maze(h: &Header) -> Result<Maze, HeaderMazeError> {
    let bad = |field: &str, message: String| HeaderMazeError { field: field.to_string(), message };
    let kind = match h.game.as_str() {
        "capture" => GameKind::Capture,
        "escape" => GameKind::Escape,
        g => return Err(bad("game", format!("{g:?}: expected capture or escape"))),
    };
    let Some(m) = h.maze.as_object() else {
        return Err(bad("maze", "not an object".to_string()));
    };
    let allowed = if kind == GameKind::Capture { CAPTURE_MAZE_FIELDS } else { ESCAPE_MAZE_FIELDS };
    if let Some(k) = m.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(bad(
            &format!("maze.{k}"),
            format!("not a field of a {} maze (fields: {})", h.game, allowed.join(", ")),
        ));
    }
    let get = |k: &str| m.get(k).ok_or_else(|| bad(&format!("maze.{k}"), "missing".to_string()));
    // Each line of the maze text, with the header field it comes from.
    let mut lines: Vec<(String, String)> = vec![(format!("game: {}", h.game), "game".to_string())];
    let Some(rooms) = get("rooms")?.as_object() else {
        return Err(bad("maze.rooms", "not an object of room number -> exits".to_string()));
    };
    let n = rooms.len();
    lines.push((format!("rooms: {n}"), "maze.rooms".to_string()));
    for (key, _) in rooms.iter() {
        if !key.parse::<usize>().is_ok_and(|r| (1..=n).contains(&r) && r.to_string() == *key) {
            return Err(bad(&format!("maze.rooms.{key}"), format!("not a room number from 1 to {n}")));
        }
    }
    for r in 1..=n.min(crate::maze::MAX_ROOMS) {
        let field = format!("maze.rooms.{r}");
        let exits =
            rooms.get(&r.to_string()).and_then(Value::as_array).ok_or_else(|| bad(&field, "not a list".into()))?;
        let mut line = format!("room {r}:");
        for (i, x) in exits.iter().enumerate() {
            let _ = write!(line, " {}", number_at(x, &format!("{field}[{i}]"))?);
        }
        lines.push((line, field));
    }
    if kind == GameKind::Capture {
        let doors = get("doors")?.as_array().ok_or_else(|| bad("maze.doors", "not a list".into()))?;
        let open = get("doors_open")?.as_array().ok_or_else(|| bad("maze.doors_open", "not a list".into()))?;
        if open.len() != doors.len() {
            return Err(bad("maze.doors_open", format!("{} entries for {} doors", open.len(), doors.len())));
        }
        for (i, (d, o)) in doors.iter().zip(open).enumerate() {
            let field = format!("maze.doors[{i}]");
            let pair = d.get("rooms").and_then(Value::as_array).filter(|p| p.len() == 2);
            let pair = pair.ok_or_else(|| bad(&field, "`rooms` is not a pair of rooms".into()))?;
            let (a, b) = (number_at(&pair[0], &field)?, number_at(&pair[1], &field)?);
            let button = number_at(d.get("button").unwrap_or(&Value::Null), &format!("{field}.button"))?;
            let state = match o.as_bool() {
                Some(true) => "open",
                Some(false) => "closed",
                None => return Err(bad(&format!("maze.doors_open[{i}]"), format!("{o} is not true or false"))),
            };
            lines.push((format!("door: {a} {b} button {button} {state}"), field));
        }
    } else {
        let gens = get("generators")?.as_array().ok_or_else(|| bad("maze.generators", "not a list".into()))?;
        for (i, g) in gens.iter().enumerate() {
            let field = format!("maze.generators[{i}]");
            lines.push((format!("generator: {}", number_at(g, &field)?), field));
        }
        lines.push((format!("fixes: {}", number_at(get("fixes")?, "maze.fixes")?), "maze.fixes".to_string()));
        lines.push((format!("exit: {}", number_at(get("exit")?, "maze.exit")?), "maze.exit".to_string()));
    }
    let players = get("players")?.as_array().ok_or_else(|| bad("maze.players", "not a list".into()))?;
    let mut line = "players:".to_string();
    for (i, p) in players.iter().enumerate() {
        let _ = write!(line, " {}", number_at(p, &format!("maze.players[{i}]"))?);
    }
    lines.push((line, "maze.players".to_string()));
    lines.push((
        format!("adversary: {}", number_at(get("adversary")?, "maze.adversary")?),
        "maze.adversary".to_string(),
    ));
    let (limit, limit_field) = match kind {
        GameKind::Capture => (h.turns, "turns"),
        GameKind::Escape => (h.cap.or(h.turns), if h.cap.is_none() && h.turns.is_some() { "turns" } else { "cap" }),
    };
    let limit = limit.ok_or_else(|| bad(limit_field, "missing: the turn limit of the rollout".into()))?;
    lines.push((format!("turns: {limit}"), limit_field.to_string()));
    if kind == GameKind::Capture {
        let catch = match h.catch.as_deref() {
            Some(c @ ("same_room" | "same_room_or_swap")) => c,
            other => return Err(bad("catch", format!("{other:?}: expected same_room or same_room_or_swap"))),
        };
        lines.push((format!("catch: {catch}"), "catch".to_string()));
        lines.push(("flee: label".to_string(), "maze".to_string()));
    }
    let text: String = lines.iter().map(|(l, _)| format!("{l}\n")).collect();
    Maze::parse(&text, "header").map_err(|e| {
        let field = match e.line.and_then(|l| l.checked_sub(1)).and_then(|i| lines.get(i)) {
            Some((_, f)) => f.clone(),
            None if e.message.contains("`generator:`") => "maze.generators".to_string(),
            None if e.message.contains("`exit:`") => "maze.exit".to_string(),
            None => "maze".to_string(),
        };
        HeaderMazeError { field, message: e.message }
    })
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
        check.report.draws_replayed += chance.used;
        if let Some((expected, got)) = chance.problem.take() {
            check.fail(t, "draws", expected, got);
            return check.done();
        }
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
            check.fail(t, "draws", expected, got);
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
        // A header maze a maze file could not hold (changed after parsing): refused, named.
        let (_, mut r) = first_rollout("capture_1.jsonl");
        r.header.maze["rooms"]["8"] = json!([7, 99]);
        let report = verify(&r);
        let d = report.divergence.unwrap();
        assert_eq!((d.t, d.field.as_str(), report.passed), (None, "maze.rooms.8", false));
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

    /// A killer pick outside its room's exits (`[2, 5]`) is a failure naming the turn; it
    /// used to pass with none of the rollout's turns replayed.
    #[test]
    fn an_out_of_range_draw_fails_naming_the_turn() {
        let (_, mut r) = first_rollout("escape_1.jsonl");
        let (i, _) = r.steps.iter().enumerate().find(|(_, (_, s))| !s.draws.is_empty()).unwrap();
        let n = r.steps[i].1.draws[0][0];
        r.steps[i].1.draws[0][1] = n + 3;
        let report = verify(&r);
        assert!(!report.passed, "{report:?}");
        let d = report.divergence.unwrap();
        assert_eq!((d.t, d.field.as_str()), (Some(i as u32), "draws"));
        assert_eq!(d.expected, json!([n, n + 3]));
        assert_ne!(d.expected, d.got);
        assert!(report.steps_matched < report.steps);
    }

    /// A report never passes with fewer turns matched than recorded, whatever stopped it.
    #[test]
    fn a_pass_means_every_turn_was_replayed() {
        for (path, text) in fixtures() {
            for r in parse(&text, &path.display().to_string()).unwrap() {
                let report = verify(&r);
                assert!(report.passed && report.steps_matched == r.steps.len() && report.maze_differs.is_none());
            }
        }
        let check = Check {
            report: Report {
                passed: false,
                steps: 3,
                steps_matched: 1,
                result: "win".into(),
                draws_replayed: 0,
                maze_differs: None,
                divergence: None,
            },
        };
        let report = check.done();
        assert!(!report.passed);
        assert_eq!(report.divergence.unwrap().field, "steps");
    }

    /// A deterministic stand-in for the recorder's `random`: picks from a small generator
    /// and writes each one down as the trace does.
    struct Picks {
        state: u64,
        drawn: Vec<[usize; 2]>,
    }

    impl Chance for Picks {
        fn pick(&mut self, n: usize) -> usize {
            self.state = self.state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let i = ((self.state >> 33) as usize) % n.max(1);
            self.drawn.push([n, i]);
            i
        }
    }

    /// The header `maze` object of `maze`, as the recording script writes it.
    fn maze_json(maze: &Maze) -> Value {
        let mut rooms = serde_json::Map::new();
        for r in 1..=maze.rooms {
            rooms.insert(r.to_string(), json!(maze.exits[r]));
        }
        match maze.kind {
            GameKind::Capture => json!({
                "rooms": rooms,
                "doors": maze.doors.iter().map(|d| json!({"rooms": d.rooms, "button": d.button})).collect::<Vec<_>>(),
                "doors_open": maze.doors.iter().map(|d| d.open).collect::<Vec<_>>(),
                "players": maze.players, "adversary": maze.adversary}),
            GameKind::Escape => json!({
                "rooms": rooms, "generators": maze.generators, "fixes": maze.fixes, "exit": maze.exit,
                "players": maze.players, "adversary": maze.adversary}),
        }
    }

    /// A rollout in the trace format played by our own game on `maze` (players moving at
    /// random from `seed`): a stand-in for a reference rollout from other start rooms.
    fn record(maze: &Maze, scenario: &str, seed: u64) -> String {
        let mut rng = Picks { state: seed, drawn: Vec::new() };
        let mut roll = |n: usize| {
            let i = rng.pick(n);
            rng.drawn.clear();
            i
        };
        let mut lines = Vec::new();
        let mut header = json!({"kind": "header", "schema": SCHEMA, "scenario": scenario,
            "policy": {"kind": "random", "seed": seed}, "maze": maze_json(maze)});
        match maze.kind {
            GameKind::Capture => {
                let game = Capture::new(maze.clone(), scenario).unwrap();
                let mut state = game.initial_state(&mut Picks { state: 0, drawn: Vec::new() });
                header["game"] = json!("capture");
                header["loop"] = json!("game_loop");
                header["catch"] = json!("same_room_or_swap");
                header["turns"] = json!(maze.turns);
                header["start"] = game.state_json(&state);
                lines.push(header);
                while !game.is_over(&state) && state.t < maze.turns {
                    let mut acts = Vec::new();
                    let mut ours = [CaptureAction::Stay; 2];
                    for (p, our) in ours.iter_mut().enumerate() {
                        let room = state.players[p];
                        let exits = maze.exits(room);
                        let k = roll(exits.len() + 2);
                        acts.push(if k < exits.len() {
                            *our = CaptureAction::Move(exits[k]);
                            json!(exits[k])
                        } else if k == exits.len() {
                            *our = CaptureAction::Press;
                            json!(format!("Press button in room {room}"))
                        } else {
                            json!("Stay in current room")
                        });
                    }
                    let t = state.t;
                    game.step(&mut state, &[Some(ours[0]), Some(ours[1])], &mut Picks { state: 0, drawn: Vec::new() });
                    let result = if state.caught { "caught" } else { "continue" };
                    lines.push(json!({"kind": "step", "t": t, "actions": acts, "state": game.state_json(&state),
                        "result": result}));
                }
                let result = if state.caught { "caught" } else { "timeout" };
                lines.push(json!({"kind": "end", "turns": state.t, "result": result}));
            }
            GameKind::Escape => {
                let game = Escape::new(maze.clone(), scenario).unwrap();
                let mut state = game.initial_state(&mut Picks { state: 0, drawn: Vec::new() });
                header["game"] = json!("escape");
                header["loop"] = json!("CollabEscapeMDP.Game.play");
                header["cap"] = json!(maze.turns);
                header["start"] = game.state_json(&state);
                lines.push(header);
                let mut killer = Picks { state: seed ^ 0x5eed, drawn: Vec::new() };
                while !game.is_over(&state) && state.t < maze.turns {
                    let mut acts = Vec::new();
                    let mut ours = [EscapeAction::Wait; 2];
                    for (p, our) in ours.iter_mut().enumerate() {
                        let room = state.players[p];
                        let exits = maze.exits(room);
                        let k = roll(exits.len() + 2);
                        acts.push(if k < exits.len() {
                            *our = EscapeAction::Move(exits[k]);
                            json!(format!("move to room {}", exits[k]))
                        } else if k == exits.len() {
                            *our = EscapeAction::Fix;
                            json!(format!("fix generator in room {room}"))
                        } else {
                            json!("wait")
                        });
                    }
                    let t = state.t;
                    game.step(&mut state, &[Some(ours[0]), Some(ours[1])], &mut killer);
                    let result = match state.result {
                        EscapeResult::Ongoing => "continue",
                        EscapeResult::Escaped => "win",
                        EscapeResult::Caught => "loss",
                    };
                    lines.push(json!({"kind": "step", "t": t, "actions": acts, "state": game.state_json(&state),
                        "result": result, "draws": std::mem::take(&mut killer.drawn)}));
                }
                let result = match state.result {
                    EscapeResult::Ongoing => "cap",
                    EscapeResult::Escaped => "win",
                    EscapeResult::Caught => "loss",
                };
                lines.push(json!({"kind": "end", "turns": state.t, "result": result}));
            }
        }
        lines.iter().map(|l| format!("{l}\n")).collect()
    }

    /// Rollouts from start rooms no built-in scenario has are replayed on the header's maze:
    /// they pass when they match, fail naming the turn when a step is altered, and the
    /// report says where the maze differs from the scenario named.
    #[test]
    fn a_header_maze_from_other_start_rooms_is_replayed() {
        let mut capture = Maze::builtin("capture:2").unwrap();
        capture.players = [3, 8];
        capture.adversary = 5;
        let mut escape = Maze::builtin("escape:1").unwrap();
        escape.players = [9, 4];
        escape.adversary = 2;
        escape.turns = 40;
        let (mut draws, mut turns) = (0, 0);
        for (maze, scenario) in [(capture, "capture:2"), (escape, "escape:1")] {
            for seed in 0..6 {
                let text = record(&maze, scenario, seed);
                let rollouts = parse(&text, "own.jsonl").unwrap();
                let report = verify(&rollouts[0]);
                assert!(report.passed, "{scenario} seed {seed}: {:?}", report.divergence);
                assert_eq!(report.steps_matched, rollouts[0].steps.len());
                assert_eq!(report.maze_differs.as_deref(), Some("maze.players, maze.adversary"), "{scenario}");
                draws += report.draws_replayed;
                turns += report.steps;
                // An altered turn fails, named.
                let mut r = rollouts[0].clone();
                let last = r.steps.len() - 1;
                r.steps[last].1.state["players"] = json!([1, 1]);
                let d = verify(&r).divergence.unwrap();
                assert_eq!((d.t, d.field.as_str()), (Some(last as u32), "state.players"));
                // The same rollout told it started where the built-in scenario starts fails.
                let mut r = rollouts[0].clone();
                r.header.maze["players"] = json!(Maze::builtin(scenario).unwrap().players);
                r.header.maze["adversary"] = json!(Maze::builtin(scenario).unwrap().adversary);
                let report = verify(&r);
                assert!(!report.passed && report.maze_differs.is_none(), "{scenario} seed {seed}");
            }
        }
        assert!(draws > 10 && turns > 50, "{draws} draws, {turns} turns");
    }

    /// A header maze that a maze file could not hold is refused when the file is read,
    /// naming the line and the header field.
    #[test]
    fn an_invalid_header_maze_is_refused_naming_the_field() {
        let (text, _) = first_rollout("capture_2.jsonl");
        let first = text.lines().next().unwrap();
        let mut h: Value = serde_json::from_str(first).unwrap();
        let cases: Vec<(&str, Value, &str)> = vec![
            ("/maze/players", json!([1, 11]), "maze.players"),
            ("/maze/players", json!([1]), "maze.players"),
            ("/maze/players", json!(["1", 6]), "maze.players[0]"),
            ("/maze/adversary", json!(1), "maze.adversary"),
            ("/maze/rooms/8", json!([8]), "maze.rooms.8"),
            ("/maze/rooms/8", json!([7, 70]), "maze.rooms.8"),
            ("/maze/doors/0/button", json!(99), "maze.doors[0]"),
            ("/maze/doors_open", json!([true]), "maze.doors_open"),
            ("/turns", json!(0), "turns"),
            ("/turns", Value::Null, "turns"),
            ("/catch", json!("near"), "catch"),
            ("/maze/generators", json!([1]), "maze.generators"),
        ];
        for (at, value, field) in cases {
            let mut bad = h.clone();
            if at == "/maze/generators" {
                bad["maze"]["generators"] = value.clone();
            } else {
                *bad.pointer_mut(at).unwrap() = value.clone();
            }
            let e = parse(&format!("{bad}\n"), "x.jsonl").unwrap_err();
            assert_eq!(e.line, 1, "{e}");
            assert!(e.message.starts_with(&format!("header field `{field}`: ")), "{at}={value}: {e}");
        }
        // Escape: a room with no exit, a generator out of range, no cut and no limit.
        let (text, _) = first_rollout("escape_1.jsonl");
        h = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        for (at, value, field) in [
            ("/maze/rooms/4", json!([]), "maze.rooms.4"),
            ("/maze/generators/1", json!(12), "maze.generators[1]"),
            ("/maze/exit", json!(0), "maze.exit"),
            ("/cap", Value::Null, "cap"),
        ] {
            let mut bad = h.clone();
            *bad.pointer_mut(at).unwrap() = value.clone();
            let e = parse(&format!("{bad}\n"), "x.jsonl").unwrap_err();
            assert!(e.message.starts_with(&format!("header field `{field}`: ")), "{at}={value}: {e}");
        }
        let e = header_maze(&Header {
            maze: json!({"rooms": {"1": [2], "3": [1]}}),
            ..first_rollout("escape_2.jsonl").1.header
        })
        .unwrap_err();
        assert_eq!(e.field, "maze.rooms.3");
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
