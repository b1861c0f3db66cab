//! Hanabi as a game of the evaluation layer: its seats (the rule-based bots of
//! `proagent_partners::hanabi`, the LLM-Coordination agent), summaries that name both
//! score rules (HLE's score, 0 once all lives are lost; the LLM-Coordination paper's
//! cards played), and trajectories re-played from their seed.

use super::catalog::{AnyGame, Catalogued, GymId, TraceCheck, TraceError};
use super::hooks::{LlmcoHooks, LlmcoOn};
use super::playable::VectorCodec;
use super::playable::{
    GameError, GameOptions, Playable, RecordError, SavedTeamwork, SeatError, Teamwork, default_llmco_config,
    unknown_spec,
};
use super::replayed::{read_replayed, trajectory_json};
use super::saved::SavedEpisode;
use proagent_agent::llmco::hanabi::HanabiLlmco;
use proagent_core::Seat;
use proagent_core::episode::EpisodeResult;
use proagent_core::files::FileAccess;
use proagent_hanabi::{Hanabi, HanabiOutcome, Move, State as HanabiState, encode};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value, json};
use std::sync::Arc;
use std::time::Instant;

/// The seat specs a Hanabi game knows.
pub const KNOWN_SPECS: &[&str] =
    &["random", "simple", "convention", "llmco", "llmco[model=NAME,tom=on|off,verify=on|off,...]"];

/// What the text table shows.
const LEGEND: &str = "Hanabi: fireworks per colour (R Y G W B), info and life tokens, deck; each hand as \
card [knowledge] in HLE's notation (XX|RYGWB12345: hinted colour and rank, then what the card can still be); \
> marks the player to move";

/// The game a `--layout` spec names: `hanabi` (2 players) or `hanabi:2p` ... `hanabi:5p`.
pub fn load_hanabi(spec: &str) -> Result<Hanabi, GameError> {
    Hanabi::from_spec(spec).map_err(|_| GameError::Unknown {
        what: "Hanabi game",
        spec: spec.to_string(),
        known: "hanabi, hanabi:2p, hanabi:3p, hanabi:4p, hanabi:5p".into(),
    })
}

fn end_word(r: &EpisodeResult<Hanabi>) -> String {
    r.tally.end.and_then(|e| serde_json::to_value(e).ok()).and_then(|v| v.as_str().map(String::from)).unwrap_or_else(
        || {
            if r.steps.len() as u32 >= proagent_hanabi::game::MAX_MOVES {
                "move_limit".into()
            } else {
                "unfinished".into()
            }
        },
    )
}

impl Playable for Hanabi {
    fn report_name(&self) -> String {
        self.spec()
    }

    fn default_agent(&self) -> &'static str {
        "llmco"
    }

    /// `convention`: the `simple` bot plays only cards it knows to be playable and hints
    /// without a convention the LLM-Co agent reads, so beside it the default agent lost all
    /// three lives on every seed; `convention` scores in every player count.
    fn default_partner(&self) -> &'static str {
        "convention"
    }

    fn known_specs(&self) -> &'static [&'static str] {
        KNOWN_SPECS
    }

    /// The longest run of moves (anyone's) in which no card was played to a firework:
    /// hints and discards that lead to no play are the table's way of being stuck.
    fn held_wait_max(&self, r: &EpisodeResult<Hanabi>, _seat: usize) -> Option<u32> {
        Some(super::playable::longest_run(r.steps.iter().map(|s| proagent_core::Game::reward(self, &s.outcome) <= 0)))
    }

    fn llmco_hooks(&self) -> Option<&'static dyn LlmcoHooks<Hanabi>> {
        Some(&LlmcoOn::<HanabiLlmco>::HOOKS)
    }

    fn partner(&self, spec: &str) -> Result<Box<dyn Seat<Hanabi>>, SeatError> {
        match spec.trim() {
            "llmco" => Ok(self.llmco_or_refuse()?.seat(default_llmco_config(self)?)),
            "proagent" => Err(self.proagent_or_refuse().err().unwrap_or(SeatError::Unresolved(spec.into()))),
            s if s.starts_with("llmco[") || s.starts_with("proagent[") => Err(SeatError::Unresolved(s.to_string())),
            s => {
                proagent_partners::hanabi::make_bot(s).ok_or_else(|| unknown_spec(s, &self.report_name(), KNOWN_SPECS))
            }
        }
    }

    fn summary_fields(&self, r: &EpisodeResult<Hanabi>) -> Map<String, Value> {
        let t = &r.tally;
        let mut m = Map::new();
        m.insert("game".into(), json!("hanabi"));
        m.insert("layout".into(), json!(self.report_name()));
        m.insert("players".into(), json!(self.players()));
        m.insert("cards_played".into(), json!(t.cards_played));
        m.insert("hle_score".into(), json!(t.score));
        m.insert("lives_lost".into(), json!(t.lives_lost));
        m.insert("hints".into(), json!(t.hints()));
        m.insert("discards".into(), json!(t.discards));
        m.insert("refused".into(), json!(t.refused));
        m.insert("end".into(), json!(end_word(r)));
        m
    }

    /// The LLM-Coordination paper's measure: cards on the fireworks (kept when the last
    /// life is lost, unlike HLE's score).
    fn deliveries(&self, r: &EpisodeResult<Hanabi>) -> u32 {
        u32::from(r.tally.cards_played)
    }

    fn teamwork(&self, r: &EpisodeResult<Hanabi>) -> Teamwork {
        let t = &r.tally;
        Teamwork {
            json: json!({
                "hints": t.hints(), "color_hints": t.color_hints, "rank_hints": t.rank_hints,
                "good_plays": t.good_plays, "lives_lost": t.lives_lost, "discards": t.discards,
            }),
            totals: None,
        }
    }

    fn trajectory_json(&self, r: &EpisodeResult<Hanabi>) -> Value {
        let mut extra = Map::new();
        extra.insert("cards_played".into(), json!(r.tally.cards_played));
        extra.insert("hle_score".into(), json!(r.tally.score));
        trajectory_json(self, r, extra)
    }

    fn step_fields(&self, outcome: &HanabiOutcome) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("event".into(), json!(outcome.event));
        m
    }

    fn env_settings(&self) -> Option<Value> {
        None
    }

    /// A Hanabi game ends by its rules (at most [`proagent_hanabi::game::MAX_MOVES`]
    /// moves): the horizon does not change it.
    fn vector_codec(&self) -> Box<dyn VectorCodec<Self>> {
        Box::new(HanabiCodec)
    }
    fn with_horizon(&self, _horizon: u32) -> Hanabi {
        *self
    }

    fn legend(&self) -> &'static str {
        LEGEND
    }

    fn outcome_text(&self, r: &EpisodeResult<Hanabi>) -> String {
        let t = &r.tally;
        format!(
            "{} played (HLE score {}), {} lost, {}, end: {}",
            super::plural::counted(t.cards_played, "card", "cards"),
            t.score,
            super::plural::counted(t.lives_lost, "life", "lives"),
            super::plural::counted(t.hints(), "hint", "hints"),
            end_word(r)
        )
    }

    /// A Hanabi record's `spec` is a game (`hanabi:3p`), never a file: `files` is not asked.
    fn read_trajectory(
        source: &str,
        line: usize,
        v: &Value,
        _files: &dyn FileAccess,
    ) -> Result<SavedEpisode<Hanabi>, RecordError> {
        let spec = v.get("spec").and_then(Value::as_str).ok_or("no `spec`")?;
        let game = load_hanabi(spec).map_err(|e| RecordError::Bad(e.to_string()))?;
        read_replayed(Arc::new(game), source, line, v)
    }

    fn saved_teamwork(&self, e: &SavedEpisode<Hanabi>) -> SavedTeamwork {
        match e.result() {
            Some(r) => {
                let tw = self.teamwork(&r);
                SavedTeamwork { line: self.outcome_text(&r), json: tw.json, handovers: Vec::new() }
            }
            None => SavedTeamwork {
                json: json!({"error": "the episode was not re-played"}),
                line: String::new(),
                handovers: Vec::new(),
            },
        }
    }
}

/// Hanabi for learning code: HLE's move uids as action indices and HLE's canonical
/// encoding (which never shows the observer's own cards) as the observation; its seats
/// are the rule-based bots.
struct HanabiCodec;

impl VectorCodec<Hanabi> for HanabiCodec {
    fn n_actions(&self, game: &Hanabi) -> usize {
        game.max_moves()
    }
    fn action_index(&self, game: &Hanabi, a: Move) -> usize {
        game.move_uid(a).unwrap_or(0)
    }
    fn action_at(&self, game: &Hanabi, i: usize) -> Option<Move> {
        game.move_from_uid(i)
    }
    fn obs_len(&self, game: &Hanabi) -> usize {
        proagent_hanabi::encode::encoded_len(game)
    }
    fn encode(&self, game: &Hanabi, state: &HanabiState, player: usize, _last: &[Option<Move>], out: &mut Vec<f32>) {
        let mut bits = Vec::new();
        proagent_hanabi::encode::encode(game, state, player, &mut bits);
        out.clear();
        out.extend(bits.iter().map(|&b| f32::from(b)));
    }
    fn seat(&self, game: &Hanabi, name: &str) -> Result<Box<dyn Seat<Hanabi>>, super::playable::UnknownSeat> {
        proagent_partners::hanabi::make_bot(name).ok_or_else(|| {
            super::playable::UnknownSeat(format!(
                "unknown partner {name:?} for {} (known: {})",
                game.spec(),
                proagent_partners::hanabi::BOT_NAMES.join(", ")
            ))
        })
    }
}

impl Catalogued for Hanabi {
    const KIND: &'static str = "hanabi";
    const TITLE: &'static str = "Hanabi";
    const SPEC: &'static str = "hanabi or hanabi:Np";
    /// Moves in a row without a card played: a 2-player game lasts about 80 moves, and
    /// working pairings (the stand-in with `convention`) went up to 44 without a play,
    /// discarding at the end of the deck.
    const STUCK_AFTER: u32 = 60;

    fn claims(spec: &str) -> bool {
        spec == "hanabi" || spec.starts_with("hanabi:")
    }
    fn is_reference_trace(text: &str) -> bool {
        proagent_hanabi::trace::is_hanabi_trace(text)
    }
    const TRACE_TALLY: Option<(&'static str, (&'static str, &'static str))> =
        Some(("hanabi_states_matched", ("Hanabi state", "Hanabi states")));
    const TRACE_FORMAT: Option<&'static str> = Some("Hanabi (tests/fixtures/hanabi_traces/SCHEMA.md)");
    /// HLE's games (tests/fixtures/hanabi_traces/SCHEMA.md): states and observation
    /// vectors compared move by move.
    fn verify_trace(file: &str, text: &str) -> Result<Vec<TraceCheck>, TraceError> {
        use proagent_hanabi::trace;
        let games = trace::parse_trace_file(text).map_err(|e| TraceError::parse(file, e))?;
        let mut checks = Vec::new();
        for g in games {
            let report = trace::verify(&g).map_err(|e| TraceError::Replay(format!("{file}:{e}")))?;
            let name = format!("{file}:{} {} {}p {}", g.line, report.game, report.players, report.policy);
            let line = if report.passed {
                format!(
                    "{name} ({}, {} and {} matched; HLE score {}, cards played {}, {})",
                    super::plural::counted(report.moves as u64, "move", "moves"),
                    super::plural::counted(report.states_matched as u64, "state", "states"),
                    super::plural::counted(report.vectors_compared as u64, "observation vector", "observation vectors"),
                    report.score,
                    report.cards_played,
                    report.status
                )
            } else {
                let d = report.divergence.as_ref();
                format!(
                    "{name}: line {} t={} field={} expected={} got={} ({} matched)",
                    d.map_or(0, |d| d.line),
                    d.map_or(0, |d| d.t),
                    d.map_or("?", |d| d.field.as_str()),
                    d.map_or(String::new(), |d| d.expected.to_string()),
                    d.map_or(String::new(), |d| d.got.to_string()),
                    super::plural::counted(report.states_matched as u64, "state", "states"),
                )
            };
            let json = json!({"file": file, "line": g.line, "hanabi": true, "report": report});
            checks.push(TraceCheck { passed: report.passed, line, report: json, matched: report.states_matched });
        }
        Ok(checks)
    }
    fn builtin_specs() -> Vec<String> {
        ["hanabi", "hanabi:3p", "hanabi:4p", "hanabi:5p"].map(String::from).to_vec()
    }
    /// `Hanabi-2p` … `Hanabi-5p`.
    fn gym_ids() -> Vec<GymId> {
        (2..=5).map(|n| GymId::new("Hanabi", &format!("{n}p"), format!("hanabi:{n}p"))).collect()
    }
    fn load(
        spec: &str,
        _options: &GameOptions,
        _files: &dyn FileAccess,
    ) -> Result<(AnyGame, Option<String>), GameError> {
        Ok((AnyGame::from(Arc::new(load_hanabi(spec)?)), None))
    }
    fn definition(&self, file: Option<&str>) -> String {
        file.map_or_else(|| self.report_name(), String::from)
    }
}

// ---- Speed ----

/// The `n`-th set bit of `mask` (`n` < popcount).
fn nth_bit(mut mask: u64, n: u32) -> usize {
    for _ in 0..n {
        mask &= mask - 1;
    }
    mask.trailing_zeros() as usize
}

/// Hanabi's speed through its rules API (`proagent bench env --game hanabi`): `moves` uniformly random legal moves (a move applied, the
/// replacement card dealt); with `rl`, also every player's canonical observation vector and
/// the next legal moves after each move. Returns (seconds, games, checksum).
pub fn timed_moves(game: &Hanabi, moves: u64, seed: u64, rl: bool) -> (f64, u64, u64) {
    let mut chance = ChaCha8Rng::seed_from_u64(seed);
    let mut pick = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
    let table: Vec<u32> = (0..1 << 16).map(|_| pick.random()).collect();
    let mut state = game.new_game(&mut chance);
    let mut buf = Vec::with_capacity(encode::encoded_len(game));
    let (mut games, mut check) = (0u64, 0u64);
    let t0 = Instant::now();
    for i in 0..moves {
        let mask = game.legal_mask(&state);
        let uid = nth_bit(mask, table[(i as usize) & 0xffff] % mask.count_ones().max(1));
        let m = game.move_from_uid(uid).unwrap_or(Move::Play(0));
        if game.apply(&mut state, m, &mut chance).is_err() {
            check += 1;
        }
        if rl {
            for p in 0..game.players() {
                encode::encode(game, &state, p, &mut buf);
                check += u64::from(buf[buf.len() / 2]);
            }
            check += u64::from(game.legal_mask(&state).count_ones());
        }
        if state.is_over() {
            check += u64::from(state.score());
            games += 1;
            state = game.new_game(&mut chance);
        }
    }
    (t0.elapsed().as_secs_f64(), games, check)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_timed_loop_is_reproducible_from_the_seed() {
        let game = Hanabi::new(2).unwrap();
        assert_eq!(timed_moves(&game, 5_000, 3, true).2, timed_moves(&game, 5_000, 3, true).2);
        assert_ne!(timed_moves(&game, 5_000, 3, true).2, timed_moves(&game, 5_000, 4, true).2);
    }
}
