//! Episode files of every kind, read into one neutral form: `play` transcripts (the
//! states are rebuilt by stepping the simulator with the recorded joint actions, and
//! each recorded reward is checked against it), trajectories in the reference-trace
//! schema (`play --trajectory`, `eval --keep-trajectories`, `verify-trace` fixtures) and
//! human-game files (the 2019 schema, and games played in `proagent serve`).
//!
//! The kind is told from the content, never from the file name; gzipped files are
//! unpacked. Every error names the file (and the line where there is one).

use super::record::RunConfig;
use crate::transcript::{Transcript, TranscriptError};
use proagent_analysis::Trajectory;
use proagent_analysis::readers::{self, FileKind, ReadError};
use proagent_overcooked::env::{Action, Layout};
use serde_json::Value;
use std::path::Path;

/// What an episode file holds.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum EpisodeKind {
    /// A `proagent play` / `eval` transcript (header, exchanges, steps, footer).
    Transcript,
    /// Trajectories in the reference-trace schema, one per line.
    ReferenceTrace,
    /// Human-game timesteps, one per line (several trials per file).
    HumanGames,
}

impl EpisodeKind {
    /// The kind's name in messages and in the viewer: `transcript`, `reference trace`, `human games`.
    pub const fn name(self) -> &'static str {
        match self {
            EpisodeKind::Transcript => "transcript",
            EpisodeKind::ReferenceTrace => FileKind::ReferenceTrace.name(),
            EpisodeKind::HumanGames => FileKind::HumanGames.name(),
        }
    }
}

/// A file read: its trajectories (one for a transcript) and, for a transcript, the transcript.
#[derive(Clone, Debug)]
pub struct EpisodeFile {
    /// What kind of file it was.
    pub kind: EpisodeKind,
    /// The file's name as given (for messages).
    pub source: String,
    /// The episodes it holds, in file order; never empty.
    pub trajectories: Vec<Trajectory>,
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
    /// A transcript whose steps do not make an episode (missing step, unknown action,
    /// unknown layout, a reward the simulator does not give).
    #[error("{path}: {message}")]
    Episode {
        /// The file.
        path: String,
        /// What does not fit.
        message: String,
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

/// Whether the first non-blank line is a transcript header.
pub fn looks_like_transcript(text: &str) -> bool {
    let Some(line) = text.lines().find(|l| !l.trim().is_empty()) else { return false };
    serde_json::from_str::<Value>(line).is_ok_and(|v| v.get("type").and_then(Value::as_str) == Some("header"))
}

/// Reads an episode file of any kind from disk.
pub fn read_episode_file(path: &Path) -> Result<EpisodeFile, FileError> {
    let text = read_text_maybe_gz(path)?;
    read_episode_text(&path.display().to_string(), &text)
}

/// Whether the first non-blank line is an OvercookedV2 trajectory (`play --layout v2:...
/// --trajectory`).
pub fn looks_like_v2_trajectory(text: &str) -> bool {
    let Some(line) = text.lines().find(|l| !l.trim().is_empty()) else { return false };
    serde_json::from_str::<Value>(line).is_ok_and(|v| v.get("game").and_then(Value::as_str) == Some("overcooked_v2"))
}

/// The message for an OvercookedV2 episode given where only classic episodes are read.
fn v2_not_here(source: &str, what: &str) -> FileError {
    FileError::Episode {
        path: source.to_string(),
        message: format!(
            "an OvercookedV2 {what}: read it with `proagent analyze`, `proagent show --{}` (boards as text) \
             or `proagent replay` (transcripts); the viewer and the classic readers show classic episodes only",
            if what == "transcript" { "transcript" } else { "trajectory" }
        ),
    }
}

/// Reads an episode file of any kind from its text; `source` names it in messages.
/// OvercookedV2 episodes are refused with a message naming the commands that read them.
pub fn read_episode_text(source: &str, text: &str) -> Result<EpisodeFile, FileError> {
    if looks_like_v2_trajectory(text) {
        return Err(v2_not_here(source, "trajectory"));
    }
    if looks_like_transcript(text) {
        let t = Transcript::parse(text, source)?;
        if RunConfig::from_header(&t.header, source, t.header_line).is_ok_and(|c| c.v2.is_some()) {
            return Err(v2_not_here(source, "transcript"));
        }
        let traj = transcript_trajectory(&t)?;
        return Ok(EpisodeFile {
            kind: EpisodeKind::Transcript,
            source: source.to_string(),
            trajectories: vec![traj],
            transcript: Some(t),
        });
    }
    let (kind, trajectories) =
        readers::read(source, text).map_err(|e| FileError::Trajectory { path: source.to_string(), source: e })?;
    let kind = match kind {
        FileKind::ReferenceTrace => EpisodeKind::ReferenceTrace,
        FileKind::HumanGames => EpisodeKind::HumanGames,
    };
    Ok(EpisodeFile { kind, source: source.to_string(), trajectories, transcript: None })
}

/// The layout a recorded run was played on: the recorded layout text when there is one,
/// else the built-in layout, else the layout file the run named (read from disk).
pub fn run_layout(cfg: &RunConfig, file: &str) -> Result<Layout, FileError> {
    let bad = |message: String| FileError::Episode { path: file.to_string(), message };
    if let Some(text) = &cfg.layout_file {
        return Layout::parse(&cfg.layout, text, &format!("{file} (recorded layout)"))
            .map_err(|e| bad(format!("the recorded layout: {e}")));
    }
    if let Some(l) = Layout::builtin(&cfg.layout_spec).or_else(|| Layout::builtin(&cfg.layout)) {
        return Ok(l);
    }
    let text = proagent_core::limits::read_file_text(
        std::path::Path::new(&cfg.layout_spec),
        proagent_overcooked::env::layout::MAX_LAYOUT_TEXT_BYTES as u64 + 1,
        "layout files",
    )
    .map_err(|e| bad(format!("layout {:?} is not built in and its file cannot be read: {e}", cfg.layout_spec)))?;
    Layout::parse(&cfg.layout, &text, &cfg.layout_spec).map_err(|e| bad(e.to_string()))
}

/// The episode a transcript records: its start state and joint actions, with the states
/// rebuilt by the simulator. Every step from 0 on must be there, in order, and each
/// recorded reward must be the one the simulator gives.
pub fn transcript_trajectory(t: &Transcript) -> Result<Trajectory, FileError> {
    let file = t.source.as_str();
    let bad = |message: String| FileError::Episode { path: file.to_string(), message };
    let cfg = RunConfig::from_header(&t.header, file, t.header_line)?;
    let layout = run_layout(&cfg, file)?;
    let mut joint_actions = Vec::with_capacity(t.steps.len());
    let mut recorded_rewards = Vec::with_capacity(t.steps.len());
    for (k, step) in t.steps.iter().enumerate() {
        if step.t as usize != k {
            return Err(bad(format!(
                "step record {k} has t = {} (expected {k}: the steps must be 0, 1, 2, ...)",
                step.t
            )));
        }
        let letters = step.data.get("joint").and_then(Value::as_array).filter(|a| a.len() == 2).ok_or_else(|| {
            bad(format!("step t = {}: `data.joint` must hold the two players' action letters", step.t))
        })?;
        let mut joint = [Action::Stay; 2];
        for (i, l) in letters.iter().enumerate() {
            let s = l.as_str().unwrap_or("");
            let mut chars = s.chars();
            joint[i] = match (chars.next(), chars.next()) {
                (Some(c), None) => Action::from_letter(c),
                _ => Action::parse(s),
            }
            .ok_or_else(|| bad(format!("step t = {}: unknown action {l} for player {i}", step.t)))?;
        }
        joint_actions.push(joint);
        recorded_rewards.push(step.data.get("reward").and_then(Value::as_u64));
    }
    let name = format!("{file} {} {}+{} seed {}", cfg.layout, cfg.agent, cfg.partner, cfg.seed);
    let start = layout.start_state();
    let traj = Trajectory::from_actions(&name, layout, start, joint_actions);
    for (k, (rec, sim)) in recorded_rewards.iter().zip(&traj.rewards).enumerate() {
        if let Some(r) = rec
            && *r != *sim as u64
        {
            return Err(bad(format!(
                "step t = {k} records reward {r}, but the simulator gives {sim} for its joint action"
            )));
        }
    }
    Ok(traj)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TRANSCRIPT: &str = include_str!("../../../../transcripts/committed/cramped_room.jsonl");

    #[test]
    fn a_transcript_rebuilds_its_episode() {
        let f = read_episode_text("cr.jsonl", TRANSCRIPT).unwrap();
        assert_eq!(f.kind, EpisodeKind::Transcript);
        let t = &f.trajectories[0];
        assert_eq!(t.joint_actions.len(), 60);
        assert_eq!(t.states.len(), 61);
        assert_eq!(t.rewards.iter().sum::<u32>(), 20, "the footer's score");
        let footer = f.transcript.as_ref().unwrap().footer.as_ref().unwrap();
        assert_eq!(footer.data["score"], 20);
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
    }

    #[test]
    fn other_kinds_and_bad_files() {
        let e = read_episode_text("x.jsonl", "").unwrap_err().to_string();
        assert!(e.starts_with("x.jsonl: "), "{e}");
        let e = read_episode_text("x.jsonl", "{\"a\": 1}\n").unwrap_err().to_string();
        assert!(e.contains("line 1"), "{e}");
        let e = text_of_bytes("b.bin", vec![b'a', b'\n', 0xff]).unwrap_err().to_string();
        assert_eq!(e, "b.bin: line 2: not valid UTF-8");
    }
}
