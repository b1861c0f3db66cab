//! CollabCapture and CollabEscape as games of the evaluation layer: their seats (the
//! partners of `proagent_partners::collab`, the LLM-Coordination agent), summaries with the
//! paper's measures (success, turns to success), and trajectories re-played from their seed.
//! The turn limit is the scenario's (the maze file's `turns`), not `--horizon`.
//!
//! A trajectory's `spec` names a built-in scenario or a maze file; the file is opened only
//! through the reader's file-access policy ([`load_collab_in`]), never as the record gives it.

use super::catalog::{AnyGame, Catalogued, GymId, TraceCheck, TraceError};
use super::hooks::{LlmcoHooks, LlmcoOn};
use super::playable::VectorCodec;
use super::playable::{
    GameError, GameOptions, Playable, RecordError, SavedTeamwork, SeatError, Teamwork, counted, default_llmco_config,
    unknown_spec,
};
use super::replayed::{read_replayed, trajectory_json};
use super::saved::SavedEpisode;
use proagent_agent::llmco::capture::CaptureLlmco;
use proagent_agent::llmco::escape::EscapeLlmco;
use proagent_collab::capture::CaptureState;
use proagent_collab::escape::EscapeState;
use proagent_collab::{Capture, CaptureOutcome, CollabGame, Escape, EscapeOutcome, FromCollab, LoadError};
use proagent_collab::{MazeAction, MazeRules};
use proagent_core::episode::EpisodeResult;
use proagent_core::files::{FileAccess, LocalFiles};
use proagent_core::{Game, Seat};
use proagent_partners::collab::{MazeSeats, maze_seat};
use serde_json::{Map, Value, json};
use std::sync::Arc;

/// The seat specs a CollabCapture game knows.
pub const CAPTURE_SPECS: &[&str] =
    &["random", "chaser", "door_operator", "greedy_baseline", "llmco", "llmco[model=NAME,tom=on|off,...]"];
/// The seat specs a CollabEscape game knows.
pub const ESCAPE_SPECS: &[&str] =
    &["random", "runner", "fixer", "greedy_baseline", "llmco", "llmco[model=NAME,tom=on|off,...]"];

const CAPTURE_LEGEND: &str = "CollabCapture: one line per room: who is in it (A Alice, B Bob, T the thief), the \
rooms it leads to and its button; then every door and whether it is open";
const ESCAPE_LEGEND: &str = "CollabEscape: one line per room: who is in it (A Alice, B Bob, K the killer), the \
rooms it leads to, its generator and the exit gate";

/// Whether a `--layout` spec names a maze game: a built-in scenario (`capture:1` ...
/// `escape:2`) or a `.maze` file.
pub fn is_maze_spec(spec: &str) -> bool {
    let s = spec.trim();
    proagent_collab::Maze::builtin(s).is_some() || s.ends_with(".maze")
}

/// The maze game a spec names (a maze file on this machine: the command line's policy,
/// [`LocalFiles`]).
pub fn load_collab(spec: &str) -> Result<proagent_collab::CollabGame, GameError> {
    load_collab_in(spec, &LocalFiles).map(|(game, _)| game)
}

/// The maze game a spec names, a maze file opened only as `files` allows, with the file's
/// text (`None` for a built-in scenario).
pub fn load_collab_in(
    spec: &str,
    files: &dyn FileAccess,
) -> Result<(proagent_collab::CollabGame, Option<String>), GameError> {
    proagent_collab::load_in(spec.trim(), files).map_err(|e| match e {
        LoadError::Unknown { spec, names } => GameError::Unknown { what: "maze scenario", spec, known: names },
        LoadError::Refused(refusal) => GameError::Refused(refusal),
        other => GameError::Parse(other.to_string()),
    })
}

/// Turns to success of an episode that succeeded.
fn turns_of(success: bool, turns: Option<u32>, steps: usize) -> Value {
    if success { json!(turns.unwrap_or(steps as u32)) } else { Value::Null }
}

fn record_game(v: &Value, files: &dyn FileAccess) -> Result<CollabGame, RecordError> {
    let spec = v.get("spec").and_then(Value::as_str).ok_or("no `spec`")?;
    match load_collab_in(spec, files) {
        Ok((game, _)) => Ok(game),
        Err(GameError::Refused(refusal)) => Err(RecordError::Refused { field: "spec", refusal }),
        Err(e) => Err(RecordError::Bad(format!("`spec`: {e}"))),
    }
}

fn saved_line<G: Playable>(game: &G, e: &SavedEpisode<G>) -> SavedTeamwork {
    match e.result() {
        Some(r) => {
            let tw = game.teamwork(&r);
            SavedTeamwork { line: game.outcome_text(&r), json: tw.json, handovers: Vec::new() }
        }
        None => SavedTeamwork {
            json: json!({"error": "the episode was not re-played"}),
            line: String::new(),
            handovers: Vec::new(),
        },
    }
}

fn language_partner<G: Playable>(game: &G, spec: &str) -> Option<Result<Box<dyn Seat<G>>, SeatError>> {
    Some(match spec {
        "llmco" => game.llmco_or_refuse().and_then(|h| Ok(h.seat(default_llmco_config(game)?))),
        "proagent" => Err(game.proagent_or_refuse().err().unwrap_or(SeatError::Unresolved(spec.into()))),
        s if s.starts_with("llmco[") || s.starts_with("proagent[") => Err(SeatError::Unresolved(s.to_string())),
        _ => return None,
    })
}

/// A seat of a maze game: the language agents, else one of its scripted seats
/// (`scripted`, knowing `specs`).
fn maze_partner<G: Playable>(
    game: &G,
    spec: &str,
    scripted: fn(&str) -> Option<Box<dyn Seat<G>>>,
    specs: &[&str],
) -> Result<Box<dyn Seat<G>>, SeatError> {
    let s = spec.trim();
    if let Some(r) = language_partner(game, s) {
        return r;
    }
    scripted(s).ok_or_else(|| unknown_spec(s, &game.report_name(), specs))
}

/// The saved trajectory of a maze game, with whether it succeeded and in which turn.
fn maze_trajectory_json<G: Playable>(game: &G, r: &EpisodeResult<G>, success: bool, turns: Option<u32>) -> Value {
    let mut extra = Map::new();
    extra.insert("success".into(), json!(success));
    extra.insert("turns_to_success".into(), turns_of(success, turns, r.steps.len()));
    trajectory_json(game, r, extra)
}

/// A saved maze-game trajectory, re-played from its seed on the game its `spec` names
/// (which must be a scenario of this game).
fn read_maze_trajectory<G: FromCollab + Playable>(
    source: &str,
    line: usize,
    v: &Value,
    files: &dyn FileAccess,
) -> Result<SavedEpisode<G>, RecordError> {
    let game = record_game(v, files)?;
    let named = match &game {
        CollabGame::Capture(_) => Capture::NAME,
        CollabGame::Escape(_) => Escape::NAME,
    };
    match G::from_collab(game) {
        Some(g) => read_replayed(Arc::new(g), source, line, v),
        None => Err(format!("`spec` names a {named} scenario").into()),
    }
}

impl Playable for Capture {
    fn report_name(&self) -> String {
        self.spec()
    }
    fn default_agent(&self) -> &'static str {
        "llmco"
    }
    fn default_partner(&self) -> &'static str {
        "greedy_baseline"
    }
    fn known_specs(&self) -> &'static [&'static str] {
        CAPTURE_SPECS
    }
    /// The longest run of turns in which nothing changed.
    fn held_wait_max(&self, r: &EpisodeResult<Capture>, _seat: usize) -> Option<u32> {
        Some(super::playable::idle_run(r))
    }
    fn llmco_hooks(&self) -> Option<&'static dyn LlmcoHooks<Capture>> {
        Some(&LlmcoOn::<CaptureLlmco>::HOOKS)
    }
    fn partner(&self, spec: &str) -> Result<Box<dyn Seat<Capture>>, SeatError> {
        maze_partner(self, spec, proagent_partners::collab::capture_seat, CAPTURE_SPECS)
    }
    fn summary_fields(&self, r: &EpisodeResult<Capture>) -> Map<String, Value> {
        let t = &r.tally;
        let mut m = Map::new();
        m.insert("game".into(), json!("collab_capture"));
        m.insert("layout".into(), json!(self.report_name()));
        m.insert("success".into(), json!(t.caught));
        m.insert("turns_to_success".into(), turns_of(t.caught, t.turns_to_capture, r.steps.len()));
        m.insert("turns".into(), json!(r.steps.len()));
        m.insert("presses".into(), json!(t.presses));
        m.insert("blocked".into(), json!(t.blocked));
        m
    }
    /// 1 when the thief was caught.
    fn deliveries(&self, r: &EpisodeResult<Capture>) -> u32 {
        u32::from(r.tally.caught)
    }
    fn teamwork(&self, r: &EpisodeResult<Capture>) -> Teamwork {
        Teamwork { json: json!({"moves": r.tally.moves, "presses": r.tally.presses}), totals: None }
    }
    fn trajectory_json(&self, r: &EpisodeResult<Capture>) -> Value {
        maze_trajectory_json(self, r, r.tally.caught, r.tally.turns_to_capture)
    }
    fn step_fields(&self, o: &CaptureOutcome) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("events".into(), json!(o.events));
        m.insert("thief".into(), json!(o.thief_to));
        m.insert("caught".into(), json!(o.caught));
        m
    }
    fn env_settings(&self) -> Option<Value> {
        None
    }
    /// The scenario's own turn limit (its maze file's `turns`, as the paper ran it) holds
    /// whatever the horizon: `--horizon` does not change it.
    fn vector_codec(&self) -> Box<dyn VectorCodec<Self>> {
        Box::new(MazeCodec)
    }
    fn with_horizon(&self, _horizon: u32) -> Capture {
        self.clone()
    }
    fn legend(&self) -> &'static str {
        CAPTURE_LEGEND
    }
    fn outcome_text(&self, r: &EpisodeResult<Capture>) -> String {
        match (r.tally.caught, r.tally.turns_to_capture) {
            (true, t) => format!("thief caught in {}", counted(t.unwrap_or(r.steps.len() as u32), "turn", "turns")),
            (false, _) => format!("thief not caught in {}", counted(r.steps.len() as u64, "turn", "turns")),
        }
    }
    fn read_trajectory(
        source: &str,
        line: usize,
        v: &Value,
        files: &dyn FileAccess,
    ) -> Result<SavedEpisode<Capture>, RecordError> {
        read_maze_trajectory(source, line, v, files)
    }
    fn saved_teamwork(&self, e: &SavedEpisode<Capture>) -> SavedTeamwork {
        saved_line(self, e)
    }
}

impl Playable for Escape {
    fn report_name(&self) -> String {
        self.spec()
    }
    fn default_agent(&self) -> &'static str {
        "llmco"
    }
    fn default_partner(&self) -> &'static str {
        "fixer"
    }
    fn known_specs(&self) -> &'static [&'static str] {
        ESCAPE_SPECS
    }
    /// The longest run of turns in which nothing changed.
    fn held_wait_max(&self, r: &EpisodeResult<Escape>, _seat: usize) -> Option<u32> {
        Some(super::playable::idle_run(r))
    }
    fn llmco_hooks(&self) -> Option<&'static dyn LlmcoHooks<Escape>> {
        Some(&LlmcoOn::<EscapeLlmco>::HOOKS)
    }
    fn partner(&self, spec: &str) -> Result<Box<dyn Seat<Escape>>, SeatError> {
        maze_partner(self, spec, proagent_partners::collab::escape_seat, ESCAPE_SPECS)
    }
    fn summary_fields(&self, r: &EpisodeResult<Escape>) -> Map<String, Value> {
        let t = &r.tally;
        let mut m = Map::new();
        m.insert("game".into(), json!("collab_escape"));
        m.insert("layout".into(), json!(self.report_name()));
        m.insert("success".into(), json!(t.escaped));
        m.insert("caught".into(), json!(t.caught));
        m.insert("turns_to_success".into(), turns_of(t.escaped, t.turns, r.steps.len()));
        m.insert("turns".into(), json!(r.steps.len()));
        m.insert("generators_repaired".into(), json!(t.generators_repaired));
        m.insert("fixes".into(), json!(t.fixes));
        m
    }
    /// 1 when the players escaped.
    fn deliveries(&self, r: &EpisodeResult<Escape>) -> u32 {
        u32::from(r.tally.escaped)
    }
    fn teamwork(&self, r: &EpisodeResult<Escape>) -> Teamwork {
        Teamwork {
            json: json!({"fixes": r.tally.fixes, "moves": r.tally.moves, "chases": r.tally.chases}),
            totals: None,
        }
    }
    fn trajectory_json(&self, r: &EpisodeResult<Escape>) -> Value {
        maze_trajectory_json(self, r, r.tally.escaped, r.tally.turns)
    }
    fn step_fields(&self, o: &EscapeOutcome) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("events".into(), json!(o.events));
        m.insert("killer".into(), json!(o.killer_to));
        m.insert("result".into(), json!(o.result));
        m
    }
    fn env_settings(&self) -> Option<Value> {
        None
    }
    /// The scenario's own turn limit (its maze file's `turns`, as the paper ran it) holds
    /// whatever the horizon: `--horizon` does not change it.
    fn vector_codec(&self) -> Box<dyn VectorCodec<Self>> {
        Box::new(MazeCodec)
    }
    fn with_horizon(&self, _horizon: u32) -> Escape {
        self.clone()
    }
    fn legend(&self) -> &'static str {
        ESCAPE_LEGEND
    }
    fn outcome_text(&self, r: &EpisodeResult<Escape>) -> String {
        let t = &r.tally;
        let turns = t.turns.unwrap_or(r.steps.len() as u32);
        let fixed = counted(t.generators_repaired, "generator", "generators");
        if t.escaped {
            format!("escaped in {} ({fixed} repaired)", counted(turns, "turn", "turns"))
        } else if t.caught {
            format!("caught by the killer in turn {turns} ({fixed} repaired)")
        } else {
            format!("no escape in {} ({fixed} repaired)", counted(turns, "turn", "turns"))
        }
    }
    fn read_trajectory(
        source: &str,
        line: usize,
        v: &Value,
        files: &dyn FileAccess,
    ) -> Result<SavedEpisode<Escape>, RecordError> {
        read_maze_trajectory(source, line, v, files)
    }
    fn saved_teamwork(&self, e: &SavedEpisode<Escape>) -> SavedTeamwork {
        saved_line(self, e)
    }
}

/// A maze game of the catalog: its spec loads either game (a `.maze` file says which).
fn load_maze(spec: &str, files: &dyn FileAccess) -> Result<(AnyGame, Option<String>), GameError> {
    let (game, text) = load_collab_in(spec, files)?;
    let game = match game {
        proagent_collab::CollabGame::Capture(g) => AnyGame::from(Arc::new(g)),
        proagent_collab::CollabGame::Escape(g) => AnyGame::from(Arc::new(g)),
    };
    Ok((game, text))
}

/// What an evaluation key hashes for a maze game: its file's text, else the built-in
/// scenario's, else its name.
fn maze_definition(name: String, file: Option<&str>) -> String {
    match file.or_else(|| proagent_collab::Maze::builtin_text(&name)) {
        Some(text) => text.to_string(),
        None => name,
    }
}

/// CollabCapture claims its scenarios and every `.maze` file (whose `game` line may make
/// it a CollabEscape game); `collab:all` stands for every scenario of both games.
/// The mazes for learning code: action `0` stay/wait, `1` press the button / fix the
/// generator, `1 + r` move to room `r`; the observation is one-hot rooms of the observer,
/// the other player and the adversary (each `rooms` long), then the game's
/// [`MazeFeatures`], then the share of the turn limit played (the games are fully
/// observable); the seats are [`maze_seat`]'s.
struct MazeCodec;

/// What a maze game's observation adds after the rooms.
trait MazeFeatures: MazeSeats {
    /// How many values.
    fn features_len(&self) -> usize;
    /// The values for state `s`, appended to `out`.
    fn features(&self, s: &<Self as MazeRules>::State, out: &mut Vec<f32>);
}

impl MazeFeatures for Capture {
    /// Each door: open.
    fn features_len(&self) -> usize {
        self.maze().doors.len()
    }
    fn features(&self, s: &CaptureState, out: &mut Vec<f32>) {
        out.extend((0..self.maze().doors.len()).map(|i| f32::from(u8::from(s.door_open(i)))));
    }
}

impl MazeFeatures for Escape {
    /// Each generator: fixed, and its share of the fixes it needs; then the gate: open.
    fn features_len(&self) -> usize {
        2 * self.maze().generators.len() + 1
    }
    fn features(&self, s: &EscapeState, out: &mut Vec<f32>) {
        let maze = self.maze();
        for i in 0..maze.generators.len() {
            out.push(f32::from(u8::from(self.is_fixed(s, i))));
            let count = s.fix_counts.get(i).copied().unwrap_or(0);
            out.push((count as f32 / maze.fixes.max(1) as f32).clamp(0.0, 1.0));
        }
        out.push(f32::from(u8::from(self.gate_open(s))));
    }
}

impl<G> VectorCodec<G> for MazeCodec
where
    G: MazeFeatures + Game<Action = <G as MazeRules>::Action, State = <G as MazeRules>::State>,
{
    fn n_actions(&self, game: &G) -> usize {
        2 + game.core().maze.rooms
    }
    fn action_index(&self, _game: &G, a: <G as Game>::Action) -> usize {
        match a.room() {
            Some(r) => 1 + usize::from(r),
            None if a == <<G as MazeRules>::Action as MazeAction>::ACT => 1,
            None => 0,
        }
    }
    fn action_at(&self, game: &G, i: usize) -> Option<<G as Game>::Action> {
        match i {
            0 => Some(<<G as MazeRules>::Action as MazeAction>::STAY),
            1 => Some(<<G as MazeRules>::Action as MazeAction>::ACT),
            i if i < VectorCodec::<G>::n_actions(self, game) => {
                Some(<<G as MazeRules>::Action as MazeAction>::to((i - 1) as u8))
            }
            _ => None,
        }
    }
    fn obs_len(&self, game: &G) -> usize {
        3 * game.core().maze.rooms + game.features_len() + 1
    }
    fn encode(
        &self,
        game: &G,
        s: &<G as Game>::State,
        player: usize,
        _last: &[Option<<G as Game>::Action>],
        out: &mut Vec<f32>,
    ) {
        let maze = &game.core().maze;
        let n = maze.rooms;
        let (p, players) = (player.min(1), <G as MazeRules>::players(s));
        out.clear();
        out.resize(3 * n, 0.0);
        for (k, r) in [players[p], players[1 - p], <G as MazeRules>::adversary(s)].iter().enumerate() {
            if (1..=n).contains(&usize::from(*r)) {
                out[k * n + usize::from(*r) - 1] = 1.0;
            }
        }
        game.features(s, out);
        out.push((<G as MazeRules>::turns(s) as f32 / maze.turns.max(1) as f32).clamp(0.0, 1.0));
    }
    fn seat(&self, game: &G, name: &str) -> Result<Box<dyn Seat<G>>, super::playable::UnknownSeat> {
        maze_seat::<G>(name).ok_or_else(|| {
            super::playable::UnknownSeat(format!(
                "unknown partner {name:?} for {} (known: {})",
                game.spec(),
                G::SEATS.join(", ")
            ))
        })
    }
}

/// `FAMILY-K` for each built-in scenario `game:K`.
fn maze_gym_ids(family: &str, specs: &[String]) -> Vec<GymId> {
    specs.iter().map(|s| GymId::new(family, s.rsplit(':').next().unwrap_or(s), s.as_str())).collect()
}

/// What `verify-trace` counts in the maze games' traces.
const COLLAB_TRACE_TALLY: Option<(&str, (&str, &str))> =
    Some(("collab_turns_matched", ("collab turn", "collab turns")));

/// The LLM-Coordination repository's maze games (tests/fixtures/collab_traces/SCHEMA.md),
/// replayed turn by turn on the header's maze.
fn verify_collab_trace(file: &str, text: &str) -> Result<Vec<TraceCheck>, TraceError> {
    use proagent_collab::trace;
    let rollouts = trace::parse(text, file).map_err(|e| TraceError::Named(Box::new(e)))?;
    let mut checks = Vec::new();
    for r in rollouts {
        let policy = r.header.policy.get("kind").and_then(|k| k.as_str()).unwrap_or("?");
        let seed = r.header.policy.get("seed").map_or(String::new(), |s| format!(" seed {s}"));
        let name = format!("{file}:{} {} {policy}{seed}", r.line, r.header.scenario);
        let report = trace::verify(&r);
        // The replay is always on the header's maze; say so when it is not the built-in one.
        let maze = match report.maze_differs.as_deref() {
            None => String::new(),
            Some("scenario") => format!("; the header's maze ({} is not a built-in scenario)", r.header.scenario),
            Some(f) => format!("; the header's maze, not the built-in {} ({f} differ)", r.header.scenario),
        };
        let line = if report.passed {
            format!(
                "{name} ({}, {}, {} replayed{maze})",
                super::plural::counted(report.steps as u64, "turn", "turns"),
                report.result,
                super::plural::counted(report.draws_replayed as u64, "killer pick", "killer picks")
            )
        } else {
            let d = report.divergence.as_ref();
            format!(
                "{name}: t={} field={} expected={} got={} ({} of {} matched{maze})",
                d.and_then(|d| d.t).map_or("start".to_string(), |t| t.to_string()),
                d.map_or("?", |d| d.field.as_str()),
                d.map_or(String::new(), |d| d.expected.to_string()),
                d.map_or(String::new(), |d| d.got.to_string()),
                report.steps_matched,
                super::plural::counted(report.steps as u64, "turn", "turns"),
            )
        };
        let json = json!({"file": file, "line": r.line, "collab": true, "report": report});
        checks.push(TraceCheck { passed: report.passed, line, report: json, matched: report.steps_matched });
    }
    Ok(checks)
}

impl Catalogued for Capture {
    const KIND: &'static str = "collab_capture";
    /// Turns in a row in which nothing changed (nobody moved or pressed anything).
    const STUCK_AFTER: u32 = 8;
    const TITLE: &'static str = "CollabCapture";
    const SPEC: &'static str = "capture:N or a .maze file";

    /// The maze games share one trace format (its header names the scenario).
    fn is_reference_trace(text: &str) -> bool {
        proagent_collab::trace::is_collab_trace(text)
    }
    const TRACE_TALLY: Option<(&'static str, (&'static str, &'static str))> = COLLAB_TRACE_TALLY;
    /// Both maze games' traces: this entry, the first, reads them.
    const TRACE_FORMAT: Option<&'static str> =
        Some("CollabCapture / CollabEscape (tests/fixtures/collab_traces/SCHEMA.md)");
    fn verify_trace(file: &str, text: &str) -> Result<Vec<TraceCheck>, TraceError> {
        verify_collab_trace(file, text)
    }
    fn claims(spec: &str) -> bool {
        spec.starts_with("capture:") || is_maze_spec(spec) && !Escape::claims(spec)
    }
    fn builtin_specs() -> Vec<String> {
        proagent_collab::Maze::builtin_names_of(proagent_collab::GameKind::Capture).map(String::from).collect()
    }
    /// `CollabCapture-K` for every built-in scenario, with the door operator as partner
    /// (the learner chases the thief).
    fn gym_ids() -> Vec<GymId> {
        maze_gym_ids("CollabCapture", &Self::builtin_specs())
            .into_iter()
            .map(|id| GymId { partner: Some("door_operator"), ..id })
            .collect()
    }
    fn expand_all(spec: &str) -> Option<Vec<String>> {
        match spec {
            "capture:all" => Some(Self::builtin_specs()),
            "collab:all" => Some(proagent_collab::Maze::builtin_names().map(String::from).collect()),
            _ => None,
        }
    }
    fn load(
        spec: &str,
        _options: &GameOptions,
        files: &dyn FileAccess,
    ) -> Result<(AnyGame, Option<String>), GameError> {
        load_maze(spec, files)
    }
    fn definition(&self, file: Option<&str>) -> String {
        maze_definition(self.report_name(), file)
    }
}

impl Catalogued for Escape {
    const KIND: &'static str = "collab_escape";
    /// Turns in a row in which nothing changed (nobody moved or pressed anything).
    const STUCK_AFTER: u32 = 8;
    const TITLE: &'static str = "CollabEscape";
    const SPEC: &'static str = "escape:N or a .maze file";

    fn is_reference_trace(text: &str) -> bool {
        proagent_collab::trace::is_collab_trace(text)
    }
    const TRACE_TALLY: Option<(&'static str, (&'static str, &'static str))> = COLLAB_TRACE_TALLY;
    fn verify_trace(file: &str, text: &str) -> Result<Vec<TraceCheck>, TraceError> {
        verify_collab_trace(file, text)
    }
    fn claims(spec: &str) -> bool {
        spec.starts_with("escape:")
    }
    fn builtin_specs() -> Vec<String> {
        proagent_collab::Maze::builtin_names_of(proagent_collab::GameKind::Escape).map(String::from).collect()
    }
    /// `CollabEscape-K` for every built-in scenario.
    fn gym_ids() -> Vec<GymId> {
        maze_gym_ids("CollabEscape", &Self::builtin_specs())
    }
    fn expand_all(spec: &str) -> Option<Vec<String>> {
        (spec == "escape:all").then(Self::builtin_specs)
    }
    fn load(
        spec: &str,
        _options: &GameOptions,
        files: &dyn FileAccess,
    ) -> Result<(AnyGame, Option<String>), GameError> {
        load_maze(spec, files)
    }
    fn definition(&self, file: Option<&str>) -> String {
        maze_definition(self.report_name(), file)
    }
}
