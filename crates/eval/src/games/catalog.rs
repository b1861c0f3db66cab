//! The catalog of games: the one list of the games a run can play, and everything the
//! layers above ask about a game before they hold one.
//!
//! Every game registers once, as one line of the [`catalog!`] invocation at the bottom of
//! this file. That line generates its [`AnyGame`] and [`AnyEpisode`] variants, its arms of
//! [`on_game!`](crate::on_game) and [`on_episode!`](crate::on_episode), and its
//! [`GameEntry`] in [`entries`]. What the entry knows comes from the game's
//! [`Catalogued`] implementation, which lives beside its [`Playable`] one in the game's own
//! file of this folder: which `--layout` specs name it, its built-in layouts, its `…:all`
//! expansion, its own settings (parsed from [`GameOptions::settings`], written into
//! transcript headers under its [`Playable::SETTINGS_KEY`]), how a transcript header's game is rebuilt and how its
//! trajectory records read back.
//!
//! Guarantees: a spec is claimed by the first entry whose [`Catalogued::claims`] says yes,
//! in the order of the list (classic Overcooked, which takes any layout name or file, comes
//! last); commands, the viewer and the bindings ask these functions and never look at a
//! spec's text themselves.

use super::playable::{GameError, GameOptions, Playable, RecordError};
use super::saved::SavedEpisode;
use proagent_core::files::FileAccess;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A loaded game with its layout file's text (`None`: built in), or why it did not load.
pub type Loaded = Result<(AnyGame, Option<String>), GameError>;

/// A game as a transcript header records it, for [`Catalogued::load_recorded`].
#[derive(Clone, Copy, Debug)]
pub struct RecordedGame<'a> {
    /// The layout as it was given (`layout_spec`).
    pub spec: &'a str,
    /// The game's report name (`layout`).
    pub name: &'a str,
    /// The layout file's text, when the header keeps one (`layout_file`).
    pub file: Option<&'a str>,
    /// How errors name where the text came from (`FILE (recorded layout)`).
    pub source: &'a str,
    /// The horizon and the game's own settings as the header records them.
    pub options: &'a GameOptions,
}

/// What the catalog needs of a game beyond [`Playable`]. Implemented in the game's own
/// file of `games/`; registered by one line of [`catalog!`].
pub trait Catalogued: Playable + 'static {
    /// The game's family, as [`proagent_core::Game::kind`] names it and trajectory records
    /// write it in their `game` field (`overcooked_v2`, `hanabi`).
    const KIND: &'static str;
    /// The game's name in help texts (`OvercookedV2`).
    const TITLE: &'static str;
    /// How a `--layout` spec names the game, for help texts (`v2:NAME`).
    const SPEC: &'static str;
    /// The names of the game's own settings ([`GameOptions::settings`]).
    const SETTINGS: &'static [&'static str] = &[];
    /// Steps without progress ([`Playable::held_wait_max`]) beyond which an episode is
    /// flagged stuck in reports: 100 steps of a 400-step Overcooked episode; a turn game
    /// sets its own, in moves.
    const STUCK_AFTER: u32 = 100;

    /// Whether a `--layout` spec names this game (before anything is loaded).
    fn claims(spec: &str) -> bool;
    /// Whether `text` is a reference trace of this game (games recorded from the original
    /// implementation, which `verify-trace` replays), told from its content; the default:
    /// the game has no trace format of its own.
    fn is_reference_trace(text: &str) -> bool {
        let _ = text;
        false
    }
    /// What `verify-trace` counts as matched in this game's reference traces: the JSON
    /// report's key (`v2_steps_matched`) and the summary's words (`V2 steps`); `None`: it
    /// counts nothing beyond the games passed.
    const TRACE_TALLY: Option<(&'static str, (&'static str, &'static str))> = None;
    /// What `verify-trace`'s help says of the game's trace files (`None`: it has none of
    /// its own, or another entry reads them).
    const TRACE_FORMAT: Option<&'static str> = None;
    /// Replays every game of a reference trace file of this game (`verify-trace`; `file`
    /// names it in lines and errors): each game's verdict, line and report. The default:
    /// the game has no trace format of its own, and the file holds nothing to replay.
    fn verify_trace(file: &str, text: &str) -> Result<Vec<TraceCheck>, TraceError> {
        let _ = (file, text);
        Ok(Vec::new())
    }
    /// The Gymnasium ids the Python package registers for the game ([`GymId`]); the
    /// default: none.
    fn gym_ids() -> Vec<GymId> {
        Vec::new()
    }
    /// The specs of its built-in layouts or scenarios, for help and listings.
    fn builtin_specs() -> Vec<String>;
    /// The specs a list spec (`v2:all`, `capture:all`) stands for; `None` for any other.
    fn expand_all(spec: &str) -> Option<Vec<String>> {
        let _ = spec;
        None
    }
    /// A spec that names a file, split into the game's prefix and the path (`v2:PATH` is
    /// `("v2:", PATH)`); the default has no prefix.
    fn split_path(spec: &str) -> (&'static str, &str) {
        ("", spec)
    }
    /// The game a claimed spec names, with the layout file's text when it is not built in
    /// (a file opened only as `files` allows); its settings come from `options`.
    fn load(spec: &str, options: &GameOptions, files: &dyn FileAccess) -> Result<(AnyGame, Option<String>), GameError>;
    /// The game a transcript header records. The default loads the spec, else (a file
    /// that is gone) the report name as a built-in one.
    fn load_recorded(rec: &RecordedGame<'_>, files: &dyn FileAccess) -> Result<AnyGame, GameError> {
        Self::load(rec.spec, rec.options, files)
            .or_else(|e| Self::load(rec.name, rec.options, files).map_err(|_| e))
            .map(|(g, _)| g)
    }
    /// What an evaluation key hashes for this game: the text that defines it (the layout
    /// file's `file` text when there is one).
    fn definition(&self, file: Option<&str>) -> String;
}

/// One registered game, as the catalog lists it: its [`Catalogued`] answers as plain
/// values and functions.
#[derive(Clone, Copy)]
pub struct GameEntry {
    /// [`Catalogued::KIND`].
    pub kind: &'static str,
    /// [`Catalogued::TITLE`].
    pub title: &'static str,
    /// [`Catalogued::SPEC`].
    pub spec: &'static str,
    /// [`Playable::SETTINGS_KEY`].
    pub settings_key: Option<&'static str>,
    /// [`Catalogued::SETTINGS`].
    pub settings: &'static [&'static str],
    /// [`Catalogued::STUCK_AFTER`].
    pub stuck_after: u32,
    /// [`Catalogued::claims`].
    pub claims: fn(&str) -> bool,
    /// [`Catalogued::builtin_specs`].
    pub builtin_specs: fn() -> Vec<String>,
    /// [`Catalogued::TRACE_TALLY`].
    pub trace_tally: Option<(&'static str, (&'static str, &'static str))>,
    /// [`Catalogued::gym_ids`].
    pub gym_ids: fn() -> Vec<GymId>,
    /// [`Catalogued::TRACE_FORMAT`].
    pub trace_format: Option<&'static str>,
    /// [`Catalogued::verify_trace`].
    pub verify_trace: fn(&str, &str) -> Result<Vec<TraceCheck>, TraceError>,
    /// [`Catalogued::is_reference_trace`].
    pub is_reference_trace: fn(&str) -> bool,
    /// [`Catalogued::expand_all`].
    pub expand_all: fn(&str) -> Option<Vec<String>>,
    /// [`Catalogued::split_path`].
    pub split_path: fn(&str) -> (&'static str, &str),
    /// [`Catalogued::load`].
    pub load: fn(&str, &GameOptions, &dyn FileAccess) -> Loaded,
    /// [`Catalogued::load_recorded`].
    pub load_recorded: fn(&RecordedGame<'_>, &dyn FileAccess) -> Result<AnyGame, GameError>,
    /// [`Playable::read_trajectory`], the episode as an [`AnyEpisode`].
    pub read_trajectory: fn(&str, usize, &Value, &dyn FileAccess) -> Result<AnyEpisode, RecordError>,
}

impl std::fmt::Debug for GameEntry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GameEntry").field("kind", &self.kind).field("title", &self.title).finish_non_exhaustive()
    }
}

impl GameEntry {
    /// The entry of game `G`.
    pub const fn of<G: Catalogued>() -> GameEntry
    where
        AnyEpisode: From<SavedEpisode<G>>,
    {
        GameEntry {
            kind: G::KIND,
            title: G::TITLE,
            spec: G::SPEC,
            settings_key: G::SETTINGS_KEY,
            settings: G::SETTINGS,
            stuck_after: G::STUCK_AFTER,
            claims: G::claims,
            builtin_specs: G::builtin_specs,
            trace_tally: G::TRACE_TALLY,
            trace_format: G::TRACE_FORMAT,
            gym_ids: G::gym_ids,
            verify_trace: G::verify_trace,
            is_reference_trace: G::is_reference_trace,
            expand_all: G::expand_all,
            split_path: G::split_path,
            load: G::load,
            load_recorded: G::load_recorded,
            read_trajectory: read_any::<G>,
        }
    }
}

/// [`Playable::read_trajectory`] of `G`, the episode as an [`AnyEpisode`].
fn read_any<G: Catalogued>(
    source: &str,
    line: usize,
    v: &Value,
    files: &dyn FileAccess,
) -> Result<AnyEpisode, RecordError>
where
    AnyEpisode: From<SavedEpisode<G>>,
{
    G::read_trajectory(source, line, v, files).map(AnyEpisode::from)
}

/// The entry of the game a `--layout` spec names (the first that claims it).
pub fn entry_for(spec: &str) -> Option<&'static GameEntry> {
    let spec = spec.trim();
    entries().iter().find(|e| (e.claims)(spec))
}

/// The entry of the game whose reference-trace format `text` is in (the first that
/// recognises it); `None` for any other file (classic Overcooked's traces are trajectory
/// files).
pub fn entry_of_trace(text: &str) -> Option<&'static GameEntry> {
    entries().iter().find(|e| (e.is_reference_trace)(text))
}

/// A Gymnasium id of a game (`proagent/NAME-v0`, which `import proagent` registers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GymId {
    /// The id between `proagent/` and `-v0` (`Overcooked-cramped_room`).
    pub name: String,
    /// The game spec it plays.
    pub spec: String,
    /// The partner the id promises when it is not the game's default (`None`: the default).
    pub partner: Option<&'static str>,
}

impl GymId {
    /// The id `proagent/{family}-{suffix}-v0` of `spec`, with the game's default partner.
    pub fn new(family: &str, suffix: &str, spec: impl Into<String>) -> GymId {
        GymId { name: format!("{family}-{suffix}"), spec: spec.into(), partner: None }
    }
}

/// One game of a reference trace file replayed (`verify-trace`).
#[derive(Clone, Debug)]
pub struct TraceCheck {
    /// Whether every step matched the recording.
    pub passed: bool,
    /// The game's line of the text report, after its PASS/FAIL mark.
    pub line: String,
    /// The game's entry of the JSON report.
    pub report: Value,
    /// What matched, counted under the game's [`Catalogued::TRACE_TALLY`].
    pub matched: usize,
}

/// Why a reference trace file could not be replayed; every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    /// The file is not in the trace format (the cause names the line).
    #[error("{file}")]
    Parse {
        /// The file.
        file: String,
        /// Why it does not parse.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The file is not in the trace format, in words that name the file and line.
    #[error(transparent)]
    Named(Box<dyn std::error::Error + Send + Sync>),
    /// A game of the file could not be replayed at all (`FILE:LINE: why`).
    #[error("{0}")]
    Replay(String),
}

impl TraceError {
    /// A parse error of `file`.
    pub fn parse(file: &str, source: impl std::error::Error + Send + Sync + 'static) -> TraceError {
        TraceError::Parse { file: file.to_string(), source: Box::new(source) }
    }
}

/// The game whose reference trace `text` is ([`entry_of_trace`]), else classic Overcooked
/// (the last entry, whose traces are trajectory files), with every game of the file
/// replayed ([`Catalogued::verify_trace`]; `file` names it in lines and errors).
pub fn verify_trace(file: &str, text: &str) -> Result<(&'static GameEntry, Vec<TraceCheck>), TraceError> {
    // The list is never empty: the catalog's invocation has one game or more.
    let entry = entry_of_trace(text).unwrap_or(&entries()[entries().len() - 1]);
    Ok((entry, (entry.verify_trace)(file, text)?))
}

/// The entry of the game family `kind` (a record's `game` field).
pub fn entry_of_kind(kind: &str) -> Option<&'static GameEntry> {
    entries().iter().find(|e| e.kind == kind)
}

/// The entry of the game that takes the setting `name`.
pub fn entry_of_setting(name: &str) -> Option<&'static GameEntry> {
    entries().iter().find(|e| e.settings.contains(&name))
}

/// The game a `--layout` spec names, with the layout file's text when it is not built in,
/// a file opened only as `files` allows.
pub fn load_in(
    spec: &str,
    options: &GameOptions,
    files: &dyn FileAccess,
) -> Result<(AnyGame, Option<String>), GameError> {
    match entry_for(spec) {
        Some(e) => (e.load)(spec.trim(), options, files),
        None => Err(GameError::Unknown { what: "game", spec: spec.to_string(), known: all_builtin_specs().join(", ") }),
    }
}

/// A file policy that opens nothing.
struct NoFiles;

impl FileAccess for NoFiles {
    fn resolve(&self, named: &str) -> Result<std::path::PathBuf, proagent_core::files::FileRefusal> {
        Err(proagent_core::files::FileRefusal::Forbidden { path: named.to_string(), reason: "no file".into() })
    }
}

/// Whether a spec names a built-in game (layout, scenario, variant) of some entry, found
/// without touching the file system.
pub fn is_builtin(spec: &str) -> bool {
    entry_for(spec)
        .is_some_and(|e| (e.load)(spec.trim(), &GameOptions::default(), &NoFiles).is_ok_and(|(_, t)| t.is_none()))
}

/// A spec that names a file, split into its game's prefix and the path (`v2:PATH` is
/// `("v2:", PATH)`, a classic layout file `("", PATH)`).
pub fn split_path(spec: &str) -> (&'static str, &str) {
    match entry_for(spec) {
        Some(e) => (e.split_path)(spec),
        None => ("", spec),
    }
}

/// The specs a list of `--layouts` entries stands for, in order: each `…:all` expanded by
/// its game, every other spec as given (trimmed; empty ones dropped).
pub fn expand_specs(specs: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for s in specs.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        match entries().iter().find_map(|e| (e.expand_all)(s)) {
            Some(list) => out.extend(list),
            None => out.push(s.to_string()),
        }
    }
    out
}

/// Every built-in layout or scenario of every game, in catalog order.
pub fn all_builtin_specs() -> Vec<String> {
    entries().iter().flat_map(|e| (e.builtin_specs)()).collect()
}

/// The help text of a `--layout` flag: how each game of the catalog is named, with its
/// built-in layouts or scenarios.
pub fn layout_help() -> String {
    let games: Vec<String> = entries()
        .iter()
        .rev()
        .map(|e| format!("{} ({}: {})", e.spec, e.title, (e.builtin_specs)().join(", ")))
        .collect();
    format!("The game: {}. A list flag also takes each game's `…:all`.", games.join("; "))
}

/// The help text of `verify-trace`'s files: each game's trace files, in the order of the
/// other help texts (classic Overcooked's trajectory files first).
pub fn trace_help() -> String {
    let formats: Vec<&str> = entries().iter().rev().filter_map(|e| e.trace_format).collect();
    let list = match formats.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => formats.join(""),
    };
    format!("Trace files: {list}; all but the first are recognised by their header line")
}

/// The help text of a `--partner` flag: per game of the catalog, the seat specs it knows
/// and its default partner, with the built-in layouts or scenarios whose default differs
/// from the game's usual one. Generated from each game's [`Playable`] answers, so it names
/// exactly what a run accepts and seats.
pub fn partner_help() -> String {
    let mut games = Vec::new();
    for e in entries().iter().rev() {
        let mut specs: Vec<&str> = Vec::new();
        let mut defaults: Vec<(String, &str)> = Vec::new();
        for spec in (e.builtin_specs)() {
            let Ok((game, _)) = (e.load)(&spec, &GameOptions::default(), &NoFiles) else { continue };
            for s in game.known_specs() {
                if !specs.contains(s) {
                    specs.push(s);
                }
            }
            defaults.push((spec, game.default_partner()));
        }
        let Some(usual) = most_common(defaults.iter().map(|(_, p)| *p)) else { continue };
        let others: Vec<String> =
            defaults.iter().filter(|(_, p)| *p != usual).map(|(l, p)| format!("{p} on {l}")).collect();
        let default = if others.is_empty() {
            format!("default {usual}")
        } else {
            format!("default {usual}; {}", others.join(", "))
        };
        games.push(format!("{}: {} ({default})", e.title, specs.join(", ")));
    }
    format!(
        "The partner in every other seat (same choices as --agent; two ProAgents can play together). Per game, \
         the specs it takes and the partner seated when none is named: {}.",
        games.join("; ")
    )
}

/// The value that occurs most often (the first of equals), `None` for no values.
fn most_common<'a>(values: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for v in values {
        match counts.iter_mut().find(|(k, _)| *k == v) {
            Some((_, n)) => *n += 1,
            None => counts.push((v, 1)),
        }
    }
    let best = counts.iter().map(|(_, n)| *n).max()?;
    counts.into_iter().find(|(_, n)| *n == best).map(|(k, _)| k)
}

/// [`Catalogued::STUCK_AFTER`] of the game a spec names (100 for a spec no game claims).
pub fn stuck_after(spec: &str) -> u32 {
    entry_for(spec).map_or(100, |e| e.stuck_after)
}

/// The keys transcript headers record game settings under.
pub fn settings_keys() -> impl Iterator<Item = &'static str> {
    entries().iter().filter_map(|e| e.settings_key)
}

/// The game a transcript header records: the entry whose settings key the header has, else
/// the one its spec names.
pub fn load_recorded(
    rec_settings: &BTreeMap<String, Value>,
    rec: &RecordedGame<'_>,
    files: &dyn FileAccess,
) -> Result<AnyGame, GameError> {
    let by_key = entries().iter().find(|e| e.settings_key.is_some_and(|k| rec_settings.contains_key(k)));
    match by_key.or_else(|| entry_for(rec.spec)) {
        Some(e) => (e.load_recorded)(rec, files),
        None => {
            Err(GameError::Unknown { what: "game", spec: rec.spec.to_string(), known: all_builtin_specs().join(", ") })
        }
    }
}

/// Generates, from one list of `Variant(GameType)` lines, [`AnyGame`], [`AnyEpisode`],
/// their conversions, [`on_game!`](crate::on_game), [`on_episode!`](crate::on_episode) and
/// [`entries`]. The first argument is `$` (so the generated macros can have arguments).
macro_rules! catalog {
    ($d:tt; $($(#[$doc:meta])* $variant:ident($ty:ty)),+ $(,)?) => {
        /// A game chosen on the command line (or from Python, or in a transcript header):
        /// one variant per registered game.
        #[derive(Clone, Debug)]
        pub enum AnyGame {
            $($(#[$doc])* $variant(Arc<$ty>),)+
        }

        /// A saved episode of any game.
        // A file holds a handful of episodes, each with all its steps on the heap: the size
        // of the largest start state inline costs nothing worth a box at every match.
        #[allow(clippy::large_enum_variant)]
        #[derive(Clone, Debug)]
        pub enum AnyEpisode {
            $($(#[$doc])* $variant(SavedEpisode<$ty>),)+
        }

        $(
            impl From<Arc<$ty>> for AnyGame {
                fn from(g: Arc<$ty>) -> Self {
                    AnyGame::$variant(g)
                }
            }

            impl From<SavedEpisode<$ty>> for AnyEpisode {
                fn from(e: SavedEpisode<$ty>) -> Self {
                    AnyEpisode::$variant(e)
                }
            }
        )+

        /// Runs `$body` with `$g` bound to the concrete game (`&Arc<G>`) inside an
        /// [`AnyGame`](AnyGame): the one place generic code meets the list of games.
        #[macro_export]
        macro_rules! on_game {
            ($d any:expr, |$d g:ident| $d body:expr) => {
                match $d any {
                    $($crate::games::catalog::AnyGame::$variant($d g) => $d body,)+
                }
            };
        }

        /// Runs `$body` with `$e` bound to the typed saved episode (`&SavedEpisode<G>`)
        /// inside an [`AnyEpisode`](AnyEpisode), as
        /// [`on_game!`](crate::on_game) does for games.
        #[macro_export]
        macro_rules! on_episode {
            ($d any:expr, |$d e:ident| $d body:expr) => {
                match $d any {
                    $($crate::games::catalog::AnyEpisode::$variant($d e) => $d body,)+
                }
            };
        }

        /// The names of the [`AnyGame`] and [`AnyEpisode`] variants, in [`entries`] order.
        pub fn variants() -> &'static [&'static str] {
            &[$(stringify!($variant),)+]
        }

        /// Every registered game, in the order specs are claimed.
        pub fn entries() -> &'static [GameEntry] {
            const ENTRIES: &[GameEntry] = &[$(GameEntry::of::<$ty>(),)+];
            ENTRIES
        }
    };
}

/// Runs `$body` with `$g` bound to the concrete game (`Arc<G>`, the [`AnyGame`] moved in)
/// when the game trains with PPO (implements `proagent_partners::rl::RlGame`: the two
/// Overcooked games), else `$other` with `$o` the [`AnyGame`]. The one place the RL
/// commands meet the list of games.
#[macro_export]
macro_rules! on_rl_game {
    ($any:expr, |$g:ident| $body:expr, |$o:ident| $other:expr) => {
        match $any {
            $crate::games::catalog::AnyGame::Overcooked($g) => $body,
            $crate::games::catalog::AnyGame::V2($g) => $body,
            $o => $other,
        }
    };
}

// The games, one line each, in the order they claim specs (classic Overcooked last: it
// takes any layout name or file). Adding a game: docs/architecture.md, "Adding a game".
catalog!($;
    /// Hanabi (`hanabi`, `hanabi:3p`, ...).
    Hanabi(proagent_hanabi::Hanabi),
    /// CollabCapture (`capture:1` ... `capture:4`, a `.maze` file).
    Capture(proagent_collab::Capture),
    /// CollabEscape (`escape:1`, `escape:2`).
    Escape(proagent_collab::Escape),
    /// The lever game of Other-Play (`lever`, `lever:Nr`).
    Lever(proagent_lever::Lever),
    /// OvercookedV2 (`v2:NAME`, `v2:PATH`).
    V2(proagent_overcooked_v2::game::OvercookedV2),
    /// Classic Overcooked-AI (old dynamics): a built-in layout name or a layout file.
    Overcooked(proagent_overcooked::game::Overcooked),
);

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    /// Each game's reference traces go to its own entry, which replays every game in them
    /// and counts under its tally; any other file is a classic trajectory file.
    #[test]
    fn the_catalog_replays_each_games_reference_traces() {
        let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
        let v2 = std::fs::read_dir(fixtures.join("v2_traces"))
            .unwrap()
            .flatten()
            .map(|e| e.path())
            .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
            .unwrap();
        let cases = [
            (fixtures.join("traces/cramped_room.jsonl"), "overcooked", None),
            (fixtures.join("hanabi_traces/random_2p.jsonl"), "hanabi", Some("hanabi_states_matched")),
            (fixtures.join("collab_traces/escape_1.jsonl"), "collab_capture", Some("collab_turns_matched")),
            (v2, "overcooked_v2", Some("v2_steps_matched")),
        ];
        for (path, kind, tally) in cases {
            let name = path.display().to_string();
            let text = std::fs::read_to_string(&path).unwrap();
            let (entry, checks) = verify_trace(&name, &text).unwrap();
            assert_eq!(entry.kind, kind, "{name}");
            assert_eq!(entry.trace_tally.map(|t| t.0), tally, "{name}");
            assert!(!checks.is_empty(), "{name}: nothing replayed");
            for c in &checks {
                assert!(c.passed && c.line.starts_with(&name), "{name}: {}", c.line);
                assert_eq!(c.report["file"], name.as_str());
                assert!(tally.is_none() || c.matched > 0, "{name}: {}", c.line);
            }
        }
        // A file no game's format claims and that is no trajectory file names itself.
        let e = verify_trace("torn.jsonl", "{\"layout\": ").unwrap_err().to_string();
        assert!(e.starts_with("torn.jsonl"), "{e}");
    }

    /// The Gymnasium ids: unique, each playing a spec its own entry claims, the maze chase
    /// with the door operator, and the ids the Python package has always registered.
    #[test]
    fn the_gym_ids_come_from_the_entries() {
        let mut all = Vec::new();
        for e in entries() {
            for id in (e.gym_ids)() {
                assert_eq!(entry_for(&id.spec).map(|x| x.kind), Some(e.kind), "{id:?}");
                assert_eq!(id.partner.is_some(), e.kind == "collab_capture", "{id:?}");
                all.push(id);
            }
        }
        let names: std::collections::BTreeSet<&str> = all.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names.len(), all.len(), "an id twice");
        let want = [
            "Overcooked-cramped_room",
            "Overcooked-forced_coordination",
            "OvercookedV2-two_rooms",
            "Hanabi-2p",
            "Hanabi-5p",
            "CollabCapture-4",
            "CollabEscape-2",
        ];
        for w in want {
            assert!(names.contains(w), "{w} missing from {names:?}");
        }
        let hanabi = all.iter().find(|i| i.name == "Hanabi-3p").map(|i| i.spec.as_str());
        assert_eq!(hanabi, Some("hanabi:3p"));
        let v2 = all.iter().find(|i| i.name == "OvercookedV2-two_rooms").map(|i| i.spec.as_str());
        assert_eq!(v2, Some("v2:two_rooms"));
        assert_eq!(all.iter().filter(|i| i.name.starts_with("CollabCapture-")).count(), 4);
    }

    /// `verify-trace`'s help names every game's trace files, the classic ones first.
    #[test]
    fn the_trace_help_names_every_format() {
        let help = trace_help();
        assert!(help.starts_with("Trace files: classic Overcooked (JSON Lines, one trajectory per line), "), "{help}");
        assert!(help.ends_with("; all but the first are recognised by their header line"), "{help}");
        let formats: Vec<&str> = entries().iter().filter_map(|e| e.trace_format).collect();
        assert!(formats.len() >= 4, "{formats:?}");
        for f in formats {
            assert!(help.contains(f), "{help} lacks {f}");
        }
    }
}
