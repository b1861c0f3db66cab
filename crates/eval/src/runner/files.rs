//! Episode files of every kind and every game, read into one typed form, a
//! [`SavedEpisode`] of its game ([`AnyEpisode`]): the game, the start state and per step
//! every player's action, the reward, the state after it and — where the states were
//! re-simulated — what the step did. `show`, `render`, `serve` and `analyze` all read
//! episodes here.
//!
//! - `play`/`eval` transcripts of any game (and games played in `proagent serve`): the
//!   game is rebuilt from the header, the episode re-played from its seed with the
//!   recorded actions, and each recorded reward is checked against the simulator's;
//! - trajectories: the classic reference-trace schema (`play --trajectory`, `eval
//!   --keep-trajectories`, `verify-trace` fixtures; the recorded states are used as they
//!   are), and OvercookedV2 trajectories (re-played from their seed, and every recorded
//!   state and reward checked);
//! - OvercookedV2 reference traces recorded from JaxMARL (`tests/fixtures/v2_traces`):
//!   checked as `verify-trace` checks them, re-played with their recorded draws;
//! - classic human-game files (the 2019 schema, and games played in `proagent serve`).
//!
//! The kind is told from the content, never from the file name; gzipped files are
//! unpacked. Every error names the file (and the line or step where there is one).
//!
//! A file that an episode file names in turn (a transcript header's layout, a maze
//! trajectory's `spec`) is opened only through the caller's file-access policy
//! ([`FileAccess`]: `proagent serve` passes its allow-list to [`read_episode_text_in`], the
//! command line [`LocalFiles`]); a refusal is [`FileError::Refused`], which names the field
//! and the path as given, never anything of the file.

pub use crate::games::AnyEpisode;
pub use crate::games::saved::{SavedEpisode, SavedStep, skill_events_of};

use super::record::RunConfig;
use crate::games::{AnyGame, GameError, GameOptions, Playable, RecordError, RecordedGame};
use crate::transcript::{Transcript, TranscriptError};
use proagent_analysis::readers::{self, FileKind, ReadError};
use proagent_core::episode::{EpisodeResult, env_chance};
use proagent_core::files::{FileAccess, FileRefusal, LocalFiles};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

/// What an episode file holds.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum EpisodeKind {
    /// A `proagent play` / `eval` transcript (header, exchanges, steps, footer).
    Transcript,
    /// Reference trajectories: classic ones in the reference-trace schema, one per line
    /// (also our own `play --trajectory` files), or OvercookedV2 traces recorded from JaxMARL.
    ReferenceTrace,
    /// Trajectories in a game's own schema (OvercookedV2), one per line.
    Trajectory,
    /// Human-game timesteps, one per line (several trials per file).
    HumanGames,
}

impl EpisodeKind {
    /// The kind's name in messages and in the viewer: `transcript`, `reference trace`,
    /// `trajectory`, `human games`.
    pub const fn name(self) -> &'static str {
        match self {
            EpisodeKind::Transcript => "transcript",
            EpisodeKind::ReferenceTrace => FileKind::ReferenceTrace.name(),
            EpisodeKind::Trajectory => "trajectory",
            EpisodeKind::HumanGames => FileKind::HumanGames.name(),
        }
    }
}

/// A file read: its episodes (one for a transcript) and, for a transcript, the transcript.
#[derive(Clone, Debug)]
pub struct EpisodeFile {
    /// What kind of file it was.
    pub kind: EpisodeKind,
    /// The file's name as given (for messages).
    pub source: String,
    /// The episodes it holds, in file order; never empty.
    pub episodes: Vec<AnyEpisode>,
    /// The transcript itself, when the file is one (model exchanges, skill events, beliefs).
    pub transcript: Option<Transcript>,
}

/// Why an episode file could not be read; every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file could not be read or unzipped, or is not UTF-8.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// What went wrong.
        message: String,
    },
    /// A malformed transcript.
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    /// A malformed trajectory or human-game file.
    #[error("{path}: {source}")]
    Trajectory {
        /// The file.
        path: String,
        /// The problem, with its line.
        #[source]
        source: ReadError,
    },
    /// An episode that does not play out as recorded (missing step, unknown action,
    /// unknown layout, a reward or state the simulator does not give).
    #[error("{path}: {message}")]
    Episode {
        /// The file.
        path: String,
        /// What does not fit.
        message: String,
    },
    /// The file names another file (a layout, a maze) that the caller's file-access policy
    /// refuses: nothing of it was opened.
    #[error("{path}: {what}: {refusal}")]
    Refused {
        /// The episode file.
        path: String,
        /// Where the name stands (`line 3: `spec` names a maze`, `the transcript's header
        /// names a layout (config.layout_spec)`).
        what: String,
        /// Why the named file is not opened.
        refusal: FileRefusal,
    },
}

/// The file's bytes as text, gunzipped when they start with the gzip magic bytes.
pub fn read_text_maybe_gz(path: &Path) -> Result<String, FileError> {
    let name = path.display().to_string();
    let bytes = proagent_core::limits::read_file(path, proagent_core::limits::MAX_TRAJECTORY_BYTES, "trajectory files")
        .map_err(|e| FileError::Io { path: name.clone(), message: e.to_string() })?;
    text_of_bytes(&name, bytes)
}

/// Bytes as text, gunzipped when they start with the gzip magic bytes; `name` is for messages.
pub fn text_of_bytes(name: &str, bytes: Vec<u8>) -> Result<String, FileError> {
    if proagent_core::limits::is_gzip(&bytes) {
        // Bounded: a small gzip file can decompress to anything (a "gzip bomb").
        let plain = proagent_core::limits::gunzip(
            &bytes,
            proagent_core::limits::MAX_TRAJECTORY_BYTES,
            "decompressed trajectory files",
        )
        .map_err(|e| FileError::Io { path: name.to_string(), message: format!("reading the gzip data: {e}") })?;
        String::from_utf8(plain).map_err(|e| FileError::Io {
            path: name.to_string(),
            message: format!("the gzip data is not UTF-8 text: {e}"),
        })
    } else {
        String::from_utf8(bytes).map_err(|e| {
            let upto = &e.as_bytes()[..e.utf8_error().valid_up_to()];
            let line = upto.iter().filter(|&&b| b == b'\n').count() + 1;
            FileError::Io { path: name.to_string(), message: format!("line {line}: not valid UTF-8") }
        })
    }
}

/// The first non-blank line as JSON, if it is JSON.
fn first_record(text: &str) -> Option<Value> {
    let line = text.lines().find(|l| !l.trim().is_empty())?;
    serde_json::from_str(line).ok()
}

/// Whether the first non-blank line is a transcript header.
pub fn looks_like_transcript(text: &str) -> bool {
    first_record(text).is_some_and(|v| v.get("type").and_then(Value::as_str) == Some("header"))
}

/// The game of a file of trajectories in a game's own schema (their `game` field), if the
/// first record names one other than the classic game.
fn trajectory_game(text: &str) -> Option<String> {
    let v = first_record(text)?;
    let g = v.get("game")?.as_str()?;
    (g != "overcooked").then(|| g.to_string())
}

/// Reads an episode file of any kind from disk (files it names are opened as the command
/// line opens them: [`LocalFiles`]).
pub fn read_episode_file(path: &Path) -> Result<EpisodeFile, FileError> {
    let text = read_text_maybe_gz(path)?;
    read_episode_text(&path.display().to_string(), &text)
}

/// Reads an episode file of any kind and game from its text; `source` names it in messages.
/// Files it names are opened as the command line opens them ([`LocalFiles`]).
pub fn read_episode_text(source: &str, text: &str) -> Result<EpisodeFile, FileError> {
    read_episode_text_in(source, text, &LocalFiles)
}

/// [`read_episode_text`] for text from elsewhere (an upload, a file a request names): a
/// file the text names (a transcript header's layout, a trajectory's maze) is opened only
/// as `files` allows.
pub fn read_episode_text_in(source: &str, text: &str, files: &dyn FileAccess) -> Result<EpisodeFile, FileError> {
    if looks_like_transcript(text) {
        let t = Transcript::parse(text, source)?;
        let episode = transcript_episode_in(&t, files)?;
        return Ok(EpisodeFile {
            kind: EpisodeKind::Transcript,
            source: source.to_string(),
            episodes: vec![episode],
            transcript: Some(t),
        });
    }
    if proagent_overcooked_v2::env::trace::is_v2_trace(text) {
        let episodes = crate::games::overcooked_v2::read_reference_traces(source, text)
            .map_err(|e| FileError::Episode { path: source.to_string(), message: e.to_string() })?;
        let episodes = episodes.into_iter().map(AnyEpisode::from).collect();
        return Ok(EpisodeFile {
            kind: EpisodeKind::ReferenceTrace,
            source: source.to_string(),
            episodes,
            transcript: None,
        });
    }
    if let Some(game) = trajectory_game(text) {
        let bad = |message: String| FileError::Episode { path: source.to_string(), message };
        let Some(entry) = crate::games::catalog::entry_of_kind(&game) else {
            let known: Vec<&str> = crate::games::entries().iter().map(|e| e.kind).collect();
            return Err(bad(format!(
                "line {}: trajectories of an unknown game {game:?} (known: {})",
                text.lines().position(|l| !l.trim().is_empty()).unwrap_or(0) + 1,
                known.join(", ")
            )));
        };
        let mut episodes = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let at = |m: String| bad(format!("line {}: {m}", i + 1));
            let v: Value = serde_json::from_str(line).map_err(|e| at(format!("not a JSON object: {e}")))?;
            let this = v.get("game").and_then(Value::as_str).unwrap_or("overcooked");
            if this != game {
                return Err(at(format!(
                    "a trajectory of {this:?} after ones of {game:?}: a file holds one game's episodes"
                )));
            }
            let record = |e: RecordError| match e {
                RecordError::Bad(m) => at(m),
                RecordError::Refused { field, refusal } => FileError::Refused {
                    path: source.to_string(),
                    what: format!("line {}: `{field}` names a file", i + 1),
                    refusal,
                },
            };
            let episode = (entry.read_trajectory)(source, i + 1, &v, files).map_err(record)?;
            episodes.push(episode);
        }
        return Ok(EpisodeFile {
            kind: EpisodeKind::Trajectory,
            source: source.to_string(),
            episodes,
            transcript: None,
        });
    }
    let (kind, trajectories) =
        readers::read(source, text).map_err(|e| FileError::Trajectory { path: source.to_string(), source: e })?;
    let (kind, raws): (EpisodeKind, Vec<(usize, Value)>) = match kind {
        FileKind::ReferenceTrace => (
            EpisodeKind::ReferenceTrace,
            text.lines()
                .enumerate()
                .filter(|(_, l)| !l.trim().is_empty())
                .map(|(i, l)| (i + 1, serde_json::from_str(l).unwrap_or(Value::Null)))
                .collect(),
        ),
        FileKind::HumanGames => (EpisodeKind::HumanGames, Vec::new()),
    };
    let episodes = trajectories
        .into_iter()
        .enumerate()
        .map(|(k, t)| {
            let raw = raws.get(k);
            crate::games::overcooked::saved_from_trajectory(t, raw.map(|(l, _)| *l), raw.map(|(_, v)| v)).into()
        })
        .collect();
    Ok(EpisodeFile { kind, source: source.to_string(), episodes, transcript: None })
}

/// The episode a transcript records, on the game its header records: re-played from the
/// seed with the recorded actions. Every step from 0 on must be there, in order, each
/// recorded reward must be the one the simulator gives, and the footer's score and the
/// game's own counts (deliveries, ...) must be the episode's. A layout file the header
/// names is opened as the command line opens it ([`LocalFiles`]).
pub fn transcript_episode(t: &Transcript) -> Result<AnyEpisode, FileError> {
    transcript_episode_in(t, &LocalFiles)
}

/// [`transcript_episode`], a layout file the header names opened only as `files` allows.
pub fn transcript_episode_in(t: &Transcript, files: &dyn FileAccess) -> Result<AnyEpisode, FileError> {
    let file = t.source.as_str();
    let cfg = RunConfig::from_header(&t.header, file, t.header_line)?;
    let game = recorded_game_in(file, &cfg, files).map_err(|e| match e {
        GameError::Refused(refusal) => FileError::Refused {
            path: file.to_string(),
            what: "the transcript's header names a layout (config.layout_spec)".into(),
            refusal,
        },
        e => FileError::Episode { path: file.to_string(), message: e.to_string() },
    })?;
    Ok(on_game!(&game, |g| AnyEpisode::from(replay_transcript(g, t, &cfg)?)))
}

fn replay_transcript<G: Playable>(
    game: &Arc<G>,
    t: &Transcript,
    cfg: &RunConfig,
) -> Result<SavedEpisode<G>, FileError> {
    let file = t.source.as_str();
    let bad = |message: String| FileError::Episode { path: file.to_string(), message };
    let n = game.num_players();
    let mut chance = env_chance(cfg.seed);
    let start = game.initial_state(&mut chance);
    let mut state = start.clone();
    let mut steps = Vec::with_capacity(t.steps.len());
    for (k, step) in t.steps.iter().enumerate() {
        if step.t as usize != k {
            return Err(bad(format!(
                "step record {k} has t = {} (expected {k}: the steps must be 0, 1, 2, ...)",
                step.t
            )));
        }
        let tokens = step
            .data
            .get("joint")
            .and_then(Value::as_array)
            .filter(|a| a.len() == n)
            .ok_or_else(|| bad(format!("step t = {}: `data.joint` must hold the {n} players' actions", step.t)))?;
        let mut actions = Vec::with_capacity(n);
        for (i, l) in tokens.iter().enumerate() {
            actions.push(match l {
                Value::Null => None,
                _ => Some(
                    l.as_str()
                        .and_then(|s| game.read_action(s))
                        .ok_or_else(|| bad(format!("step t = {}: unknown action {l} for player {i}", step.t)))?,
                ),
            });
        }
        let outcome = game.step(&mut state, &actions, &mut chance);
        let reward = i64::from(game.reward(&outcome));
        if let Some(r) = step.data.get("reward").and_then(Value::as_i64)
            && r != reward
        {
            return Err(bad(format!(
                "step t = {k} records reward {r}, but the simulator gives {reward} for its joint action"
            )));
        }
        let beliefs = step
            .data
            .get("belief")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(|b| serde_json::from_value(b.clone()).ok()).collect())
            .unwrap_or_default();
        steps.push(SavedStep {
            actions,
            reward,
            outcome: Some(outcome),
            state: state.clone(),
            skill_events: skill_events_of(step.data.get("skill_events")),
            beliefs,
        });
    }
    let agents = (0..n).map(|i| if i == cfg.seat { cfg.agent.clone() } else { cfg.partner.clone() }).collect();
    let name = format!("{file} {} {}+{} seed {}", cfg.layout, cfg.agent, cfg.partner, cfg.seed);
    let episode = SavedEpisode { game: Arc::clone(game), name, line: None, agents, seed: Some(cfg.seed), start, steps };
    if let (Some(footer), Some(result)) = (&t.footer, episode.result()) {
        check_footer(file, &footer.data, &**game, &result)?;
    }
    Ok(episode)
}

/// The footer's score and the game's own counts (deliveries, wrong deliveries, button
/// presses, ...) must be the re-played episode's.
fn check_footer<G: Playable>(file: &str, footer: &Value, game: &G, result: &EpisodeResult<G>) -> Result<(), FileError> {
    let mut expected = game.summary_fields(result);
    expected.insert("score".into(), Value::from(result.score));
    for (key, want) in expected {
        let (Some(want), Some(got)) = (want.as_i64(), footer.get(&key).and_then(Value::as_i64)) else { continue };
        if want != got {
            return Err(FileError::Episode {
                path: file.to_string(),
                message: format!("the footer records {key} {got}, but the re-played steps give {want}"),
            });
        }
    }
    Ok(())
}

/// The game a header records: its layout (the recorded file text, else the spec) and
/// switches. A layout file the header names is opened as the command line opens it
/// ([`LocalFiles`]).
pub fn recorded_game(file: &str, cfg: &RunConfig) -> Result<AnyGame, GameError> {
    recorded_game_in(file, cfg, &LocalFiles)
}

/// [`recorded_game`], a layout file the header names (`layout_spec`, else `layout`) opened
/// only as `files` allows: the header is input like any other.
pub fn recorded_game_in(file: &str, cfg: &RunConfig, files: &dyn FileAccess) -> Result<AnyGame, GameError> {
    // The game's settings: the one object under its key (a header records at most one game).
    let settings = match cfg.game_settings.values().next() {
        Some(serde_json::Value::Object(m)) => m.clone(),
        _ => Default::default(),
    };
    let options = GameOptions { horizon: cfg.horizon, settings };
    let source = format!("{file} (recorded layout)");
    let rec = RecordedGame {
        spec: &cfg.layout_spec,
        name: &cfg.layout,
        file: cfg.layout_file.as_deref(),
        source: &source,
        options: &options,
    };
    crate::games::catalog::load_recorded(&cfg.game_settings, &rec, files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_overcooked::game::Overcooked;

    const TRANSCRIPT: &str = include_str!("../../../../transcripts/committed/cramped_room.jsonl");

    fn classic(f: &EpisodeFile) -> &SavedEpisode<Overcooked> {
        match &f.episodes[0] {
            AnyEpisode::Overcooked(e) => e,
            other => panic!("not classic: {}", other.name()),
        }
    }

    #[test]
    fn a_transcript_rebuilds_its_episode() {
        let f = read_episode_text("cr.jsonl", TRANSCRIPT).unwrap();
        assert_eq!(f.kind, EpisodeKind::Transcript);
        let e = classic(&f);
        assert_eq!(e.steps.len(), 60);
        assert_eq!(e.frames(), 61);
        assert_eq!(e.scores()[60], 20, "the footer's score");
        assert!(e.skill_events().count() > 0);
        let footer = f.transcript.as_ref().unwrap().footer.as_ref().unwrap();
        assert_eq!(footer.data["score"], 20);
        assert_eq!(e.result().unwrap().tally.deliveries, 1);
    }

    #[test]
    fn a_tampered_transcript_is_refused_with_the_step() {
        // Change a recorded action so the recorded reward no longer follows; the reader's
        // hash checks do not cover step records, so the simulator is what notices.
        let bad = TRANSCRIPT.replace(r#""joint":["I","W"],"reward":20"#, r#""joint":["S","W"],"reward":20"#);
        assert_ne!(bad, TRANSCRIPT);
        let e = read_episode_text("cr.jsonl", &bad).unwrap_err().to_string();
        assert!(e.starts_with("cr.jsonl: step t = 34 records reward 20"), "{e}");
        let bad = TRANSCRIPT.replace(r#""joint":["N","E"]"#, r#""joint":["Q","E"]"#);
        let e = read_episode_text("cr.jsonl", &bad).unwrap_err().to_string();
        assert!(e.contains("step t = 0: unknown action \"Q\""), "{e}");
        // A footer that claims another score than the steps give.
        let bad = TRANSCRIPT.replace(r#""score":20"#, r#""score":40"#);
        assert_ne!(bad, TRANSCRIPT);
        let e = read_episode_text("cr.jsonl", &bad).unwrap_err().to_string();
        assert!(e.contains("the footer records score 40, but the re-played steps give 20"), "{e}");
    }

    #[test]
    fn jaxmarl_v2_traces_are_read_with_their_draws() {
        let text = include_str!("../../../../tests/fixtures/v2_traces/two_rooms.jsonl");
        let f = read_episode_text("two_rooms.jsonl", text).unwrap();
        assert_eq!(f.kind, EpisodeKind::ReferenceTrace);
        assert_eq!(f.episodes.len(), 2);
        let AnyEpisode::V2(e) = &f.episodes[1] else { panic!("not V2") };
        assert!(e.steps.len() > 100 && e.result().is_some());
        // A tampered reward is a divergence naming the line and step.
        let bad = text.replacen("\"reward\":0,", "\"reward\":7,", 1);
        let e = read_episode_text("t.jsonl", &bad).unwrap_err().to_string();
        assert!(e.starts_with("t.jsonl: line 1: step ") && e.contains("reward"), "{e}");
    }

    #[test]
    fn other_kinds_and_bad_files() {
        let e = read_episode_text("x.jsonl", "").unwrap_err().to_string();
        assert!(e.starts_with("x.jsonl: "), "{e}");
        let e = read_episode_text("x.jsonl", "{\"a\": 1}\n").unwrap_err().to_string();
        assert!(e.contains("line 1"), "{e}");
        let e = text_of_bytes("b.bin", vec![b'a', b'\n', 0xff]).unwrap_err().to_string();
        assert_eq!(e, "b.bin: line 2: not valid UTF-8");
        let e = read_episode_text("g.jsonl", "\n{\"game\": \"chess\"}\n").unwrap_err().to_string();
        assert!(e.starts_with("g.jsonl: line 2: trajectories of an unknown game \"chess\""), "{e}");
    }
}
