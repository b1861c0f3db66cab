//! Reference games recorded from HLE 0.0.4 by `scripts/hanabi_traces.py` (format:
//! tests/fixtures/hanabi_traces/SCHEMA.md): reading them and replaying them move for move.
//!
//! The recorded deal is turned into [`Chance`](proagent_core::Chance) picks
//! ([`crate::rules::deal_picks`]) so our simulator draws exactly HLE's cards; every state is
//! then compared field by field with HLE's (current player, hands, each player's card
//! knowledge, fireworks, tokens, score, deck size, discards, legal move uids, end status,
//! every player's canonical observation vector) and the first difference is named.
//! Pure functions over text; the CLI does the file I/O. Malformed input is an error with
//! its line number, never a panic.

use crate::encode;
use crate::rules::{Card, EndReason, Hanabi, RecordedChance, State, deal_picks};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The `schema` string of a game's header line.
pub const SCHEMA: &str = "proagent-hanabi-trace/1";

/// A game's header line.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TraceHeader {
    /// [`SCHEMA`].
    pub schema: String,
    /// The game's name in its file.
    pub game: String,
    /// The policy that chose the moves (`random`, `cautious`, `simple`, `cheat`).
    pub policy: String,
    /// Players.
    pub players: usize,
    /// Cards per hand.
    pub hand_size: usize,
    /// HLE's seed.
    pub seed: i64,
    /// The HLE version recorded.
    pub hle_version: String,
    /// Every card dealt, in order (the initial hands player by player, then each draw).
    pub deal: Vec<String>,
}

/// One recorded state.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TraceState {
    /// Moves made before this state.
    pub t: u32,
    /// HLE's current player.
    pub cur_player: i64,
    /// Every hand, oldest card first.
    pub hands: Vec<Vec<String>>,
    /// Each player's knowledge of their own cards, in HLE's text form (`RX|R12345`).
    pub knowledge: Vec<Vec<String>>,
    /// Firework heights by colour (R, Y, G, W, B).
    pub fireworks: Vec<u8>,
    /// Information tokens.
    pub info_tokens: u8,
    /// Life tokens.
    pub life_tokens: u8,
    /// HLE's score.
    pub score: u8,
    /// Cards left in the deck.
    pub deck_size: usize,
    /// The discard pile.
    pub discards: Vec<String>,
    /// The current player's legal move uids (empty once the game is over).
    pub legal: Vec<usize>,
    /// HLE's end-of-game status.
    pub status: String,
    /// Each player's canonical observation vector as hex.
    pub encoded: Vec<String>,
}

/// One recorded move.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TraceMove {
    /// Moves made before it.
    pub t: u32,
    /// The mover.
    pub player: usize,
    /// HLE's move uid.
    pub uid: usize,
    /// HLE's text of the move.
    #[serde(rename = "move")]
    pub text: String,
}

/// A game's last line.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TraceEnd {
    /// Moves in the game.
    pub moves: usize,
    /// HLE's final score.
    pub score: u8,
    /// Cards on the fireworks at the end.
    pub cards_played: u8,
    /// HLE's end status.
    pub status: String,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Line {
    Game(TraceHeader),
    State(TraceState),
    Move(TraceMove),
    End(TraceEnd),
}

/// One recorded game with the line number of each record (1-based).
#[derive(Clone, Debug)]
pub struct TraceGame {
    /// Line of the header.
    pub line: usize,
    /// The header.
    pub header: TraceHeader,
    /// States in order, with their lines.
    pub states: Vec<(usize, TraceState)>,
    /// Moves in order (move `k` is taken in state `k`), with their lines.
    pub moves: Vec<(usize, TraceMove)>,
    /// The end line.
    pub end: (usize, TraceEnd),
}

/// Why a trace file could not be read.
#[derive(Debug, Clone, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct TraceError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong there.
    pub message: String,
}

fn err(line: usize, message: impl Into<String>) -> TraceError {
    TraceError { line, message: message.into() }
}

/// Whether `text` looks like a Hanabi trace (its first non-empty line is a header with
/// [`SCHEMA`]).
pub fn is_hanabi_trace(text: &str) -> bool {
    text.lines()
        .find(|l| !l.trim().is_empty())
        .and_then(|l| serde_json::from_str::<Value>(l).ok())
        .is_some_and(|v| v.get("schema").and_then(Value::as_str) == Some(SCHEMA))
}

/// Reads every game of a trace file.
pub fn parse_trace_file(text: &str) -> Result<Vec<TraceGame>, TraceError> {
    struct Open {
        line: usize,
        header: TraceHeader,
        states: Vec<(usize, TraceState)>,
        moves: Vec<(usize, TraceMove)>,
    }
    let mut games = Vec::new();
    let mut open: Option<Open> = None;
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        last_line = line;
        if raw.trim().is_empty() {
            continue;
        }
        let rec: Line = serde_json::from_str(raw).map_err(|e| err(line, format!("not a trace record: {e}")))?;
        match rec {
            Line::Game(h) => {
                if let Some(g) = &open {
                    return Err(err(line, format!("game '{}' (line {}) has no end line", g.header.game, g.line)));
                }
                if h.schema != SCHEMA {
                    return Err(err(line, format!("schema '{}' is not {SCHEMA}", h.schema)));
                }
                open = Some(Open { line, header: h, states: Vec::new(), moves: Vec::new() });
            }
            Line::State(s) => {
                let g = open.as_mut().ok_or_else(|| err(line, "a state before any game header"))?;
                if g.states.len() != g.moves.len() {
                    return Err(err(line, "two states without a move between them"));
                }
                if s.t as usize != g.states.len() {
                    return Err(err(line, format!("state t={} where t={} was expected", s.t, g.states.len())));
                }
                g.states.push((line, s));
            }
            Line::Move(m) => {
                let g = open.as_mut().ok_or_else(|| err(line, "a move before any game header"))?;
                if g.moves.len() + 1 != g.states.len() {
                    return Err(err(line, "a move that does not follow a state"));
                }
                if m.t as usize != g.moves.len() {
                    return Err(err(line, format!("move t={} where t={} was expected", m.t, g.moves.len())));
                }
                g.moves.push((line, m));
            }
            Line::End(e) => {
                let g = open.take().ok_or_else(|| err(line, "an end line before any game header"))?;
                if g.states.len() != g.moves.len() + 1 {
                    return Err(err(line, "the game does not end with a state"));
                }
                games.push(TraceGame {
                    line: g.line,
                    header: g.header,
                    states: g.states,
                    moves: g.moves,
                    end: (line, e),
                });
            }
        }
    }
    if let Some(g) = open {
        return Err(err(last_line, format!("game '{}' (line {}) has no end line", g.header.game, g.line)));
    }
    if games.is_empty() {
        return Err(err(last_line.max(1), "no games in the file"));
    }
    Ok(games)
}

/// Where a replay first differed from HLE.
#[derive(Clone, Debug, Serialize)]
pub struct Divergence {
    /// Moves made before the state (or move) that differed.
    pub t: u32,
    /// The line of the record.
    pub line: usize,
    /// The field, e.g. `hands[1][3]`, `knowledge[0][2]`, `encoded[1][212]`, `legal`.
    pub field: String,
    /// HLE's value.
    pub expected: Value,
    /// Ours.
    pub got: Value,
}

/// The result of replaying one game.
#[derive(Clone, Debug, Serialize)]
pub struct TraceReport {
    /// The game's name.
    pub game: String,
    /// Its policy.
    pub policy: String,
    /// Players.
    pub players: usize,
    /// Whether every state matched.
    pub passed: bool,
    /// Moves in the recording.
    pub moves: usize,
    /// States that matched before any difference.
    pub states_matched: usize,
    /// HLE's final score (0 when the lives ran out).
    pub score: u8,
    /// Cards on the fireworks at the end (the LLM-Coordination paper's score).
    pub cards_played: u8,
    /// HLE's end status.
    pub status: String,
    /// Observation vectors compared.
    pub vectors_compared: usize,
    /// The first difference.
    pub divergence: Option<Divergence>,
}

fn status_name(s: &State) -> &'static str {
    match s.end_reason() {
        None => "not_finished",
        Some(EndReason::OutOfLifeTokens) => "out_of_life_tokens",
        Some(EndReason::CompletedFireworks) => "completed_fireworks",
        Some(EndReason::OutOfCards) => "out_of_cards",
    }
}

/// Compares our state with a recorded one; the first differing field.
fn compare(game: &Hanabi, s: &State, want: &TraceState, vectors: &mut usize) -> Option<(String, Value, Value)> {
    fn cmp<T: Serialize + PartialEq>(field: &str, want: &T, got: &T) -> Option<(String, Value, Value)> {
        (want != got).then(|| (field.to_string(), serde_json::json!(want), serde_json::json!(got)))
    }
    let n = game.players();
    if let Some(d) = cmp("cur_player", &want.cur_player, &(s.current_player() as i64)) {
        return Some(d);
    }
    if want.hands.len() != n {
        return Some(("hands".into(), serde_json::json!(want.hands.len()), serde_json::json!(n)));
    }
    for p in 0..n {
        let got: Vec<String> = s.hand(p).cards().iter().map(Card::to_string).collect();
        if let Some(d) = cmp(&format!("hands[{p}]"), &want.hands[p], &got) {
            return Some(d);
        }
    }
    if want.knowledge.len() != n {
        return Some(("knowledge".into(), serde_json::json!(want.knowledge.len()), serde_json::json!(n)));
    }
    for p in 0..n {
        let got: Vec<String> = s.hand(p).knowledge().iter().map(|k| k.hle_string()).collect();
        if want.knowledge[p].len() != got.len() {
            return cmp(&format!("knowledge[{p}]"), &want.knowledge[p], &got);
        }
        for (i, (w, g)) in want.knowledge[p].iter().zip(&got).enumerate() {
            if let Some(d) = cmp(&format!("knowledge[{p}][{i}]"), w, g) {
                return Some(d);
            }
        }
    }
    let checks = [
        cmp("fireworks", &want.fireworks, &s.fireworks().to_vec()),
        cmp("info_tokens", &want.info_tokens, &s.info_tokens()),
        cmp("life_tokens", &want.life_tokens, &s.life_tokens()),
        cmp("score", &want.score, &s.score()),
        cmp("deck_size", &want.deck_size, &s.deck_size()),
        cmp("discards", &want.discards, &s.discards().iter().map(Card::to_string).collect::<Vec<_>>()),
    ];
    if let Some(d) = checks.into_iter().flatten().next() {
        return Some(d);
    }
    let legal: Vec<usize> = game.legal_moves(s, s.current_player()).iter().filter_map(|&m| game.move_uid(m)).collect();
    if let Some(d) = cmp("legal", &want.legal, &legal) {
        return Some(d);
    }
    if let Some(d) = cmp("status", &want.status.as_str(), &status_name(s)) {
        return Some(d);
    }
    if want.encoded.len() != n {
        return Some(("encoded".into(), serde_json::json!(want.encoded.len()), serde_json::json!(n)));
    }
    let mut buf = Vec::new();
    for p in 0..n {
        encode::encode(game, s, p, &mut buf);
        let got = encode::to_hex(&buf);
        *vectors += 1;
        if got != want.encoded[p] {
            // Name the first differing bit.
            let bit = first_bit_diff(&want.encoded[p], &got);
            return Some((
                format!("encoded[{p}][bit {bit}]"),
                Value::String(want.encoded[p].clone()),
                Value::String(got),
            ));
        }
    }
    None
}

fn first_bit_diff(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (a.get(i).copied().unwrap_or(b'-'), b.get(i).copied().unwrap_or(b'-'));
        if x != y {
            let (vx, vy) = ((x as char).to_digit(16).unwrap_or(16), (y as char).to_digit(16).unwrap_or(16));
            let diff = vx ^ vy;
            let k = (0..4).find(|k| diff & (8 >> k) != 0).unwrap_or(0);
            return i * 4 + k as usize;
        }
    }
    0
}

/// Replays a recorded game through our simulator and compares every state.
pub fn verify(g: &TraceGame) -> Result<TraceReport, TraceError> {
    let h = &g.header;
    let game = Hanabi::new(h.players).map_err(|e| err(g.line, e.to_string()))?;
    if game.hand_size() != h.hand_size {
        return Err(err(
            g.line,
            format!("hand_size {} for {} players (HLE deals {})", h.hand_size, h.players, game.hand_size()),
        ));
    }
    let mut deal = Vec::with_capacity(h.deal.len());
    for (i, c) in h.deal.iter().enumerate() {
        deal.push(Card::parse(c).ok_or_else(|| err(g.line, format!("deal[{i}]: '{c}' is not a card")))?);
    }
    let picks = deal_picks(&deal)
        .map_err(|i| err(g.line, format!("deal[{i}]: no copy of {} is left in the deck", h.deal[i])))?;
    let mut chance = RecordedChance::new(picks);
    let mut state = game.new_game(&mut chance);
    let mut report = TraceReport {
        game: h.game.clone(),
        policy: h.policy.clone(),
        players: h.players,
        passed: false,
        moves: g.moves.len(),
        states_matched: 0,
        score: g.end.1.score,
        cards_played: g.end.1.cards_played,
        status: g.end.1.status.clone(),
        vectors_compared: 0,
        divergence: None,
    };
    let diverge = |report: &mut TraceReport, t: u32, line: usize, d: (String, Value, Value)| {
        report.divergence = Some(Divergence { t, line, field: d.0, expected: d.1, got: d.2 });
    };
    for (k, (line, want)) in g.states.iter().enumerate() {
        if let Some(d) = compare(&game, &state, want, &mut report.vectors_compared) {
            diverge(&mut report, k as u32, *line, d);
            return Ok(report);
        }
        report.states_matched += 1;
        let Some((mline, m)) = g.moves.get(k) else { break };
        let Some(mv) = game.move_from_uid(m.uid) else {
            return Err(err(*mline, format!("uid {} is not a move of a {}-player game", m.uid, h.players)));
        };
        if mv.hle_string() != m.text {
            diverge(
                &mut report,
                k as u32,
                *mline,
                ("move".into(), Value::String(m.text.clone()), Value::String(mv.hle_string())),
            );
            return Ok(report);
        }
        if m.player != state.current_player() {
            diverge(&mut report, k as u32, *mline, ("player".into(), m.player.into(), state.current_player().into()));
            return Ok(report);
        }
        if let Err(e) = game.apply(&mut state, mv, &mut chance) {
            diverge(
                &mut report,
                k as u32,
                *mline,
                ("legal".into(), Value::String(m.text.clone()), Value::String(e.to_string())),
            );
            return Ok(report);
        }
    }
    let (eline, end) = &g.end;
    let t = g.moves.len() as u32;
    let checks = [
        ("end.moves", serde_json::json!(end.moves), serde_json::json!(state.moves())),
        ("end.score", serde_json::json!(end.score), serde_json::json!(state.score())),
        ("end.cards_played", serde_json::json!(end.cards_played), serde_json::json!(state.cards_played())),
        ("end.status", serde_json::json!(end.status), serde_json::json!(status_name(&state))),
        ("deal", serde_json::json!(deal.len()), serde_json::json!(chance.used())),
    ];
    for (field, want, got) in checks {
        if want != got {
            diverge(&mut report, t, *eline, (field.to_string(), want, got));
            return Ok(report);
        }
    }
    // Passed only when every recorded state was replayed and matched.
    if report.states_matched != g.states.len() {
        let (want, got) = (serde_json::json!(g.states.len()), serde_json::json!(report.states_matched));
        diverge(&mut report, t, *eline, ("states".to_string(), want, got));
        return Ok(report);
    }
    report.passed = true;
    Ok(report)
}
