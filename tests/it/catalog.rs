//! The game catalog (`proagent_eval::games::catalog`): every registered game has the
//! surfaces the commands rely on, and per-game knowledge stays in the catalog.
//!
//! Surfaces, per registered game: its specs are claimed by its own entry, every built-in
//! layout or scenario loads and draws its start frame (its board), its default partner
//! builds in every seat, an episode played with it is recorded as a trajectory record that
//! reads back and opens in the viewer (the replay surface of `show`, `analyze` and
//! `serve`), and a transcript of its default agent replays exactly (`replay`).
//!
//! Figures, counted over the shared source: the Rust and Python sources and the viewer's
//! script under `src/`, `crates/*/src`, `python/src` and `python/proagent`. A game's own
//! code is left out: its crate (`crates/hanabi`, `crates/overcooked`, `crates/overcooked-v2`,
//! `crates/collab`), the catalog and the game files of the evaluation layer
//! (`crates/eval/src/games/`), and every file or folder whose path names the game (for
//! Hanabi: `crates/partners/src/hanabi/`, `crates/agent/src/llmco/hanabi/`, ...). Test
//! modules at the end of a file (from its first `#[cfg(test)]` on) are left out of the
//! spec checks and the matches, which count code paths, not examples.
//! - [`hanabi_is_named_in_few_shared_files`]: files naming `hanabi` (any case) anywhere.
//! - [`spec_strings_are_read_only_by_the_catalog`]: checks on a spec's text that pick a
//!   game: `starts_with("hanabi`/`"v2:`/`"capture`/`"escape` (and `startsWith`),
//!   `strip_prefix("v2:`, `strip_v2_prefix(`, `is_maze_spec(`, `_is_v2`, `== "hanabi"`
//!   (and `===`), `starts_with(V2_PREFIX`: each occurrence counts.
//! - [`per_game_matches_stay_in_the_catalog`]: files that name a variant of `AnyGame` or
//!   `AnyEpisode` (`AnyGame::V2(`, ...): each is a per-game dispatch outside the catalog.
//!
//! The bounds are ratchets, never to grow. The targets are 12 files, 2 checks and 2
//! matches; all three are at the target (0 checks; 12 files naming Hanabi; 1 match file:
//! `python/src/env/layout.rs`, where `proagent.Env` tells the two Overcookeds apart to keep
//! overcooked_ai's and JaxMARL's conventions beside the one convention of every game).
//! The files naming Hanabi declare its modules (`llmco/mod.rs` with the stand-in list,
//! `partners`, `view`), hold what exists for it alone (LLM-Co's Table 3 protocol and report
//! tables, the CoordinationQA groups, `bench hanabi-bots` and HLE's benchmark, the Python
//! card-game wrappers), or use it as the example game of the LLM-Co loop's tests and the
//! Python wrappers' docs. Its templates, trace check, timed loop, Gymnasium ids, stand-in
//! routing and help texts come from the catalog or its own folders.

use proagent::games::catalog::{self, GameEntry};
use proagent::games::{AnyGame, GameOptions, Playable};
use proagent_core::files::LocalFiles;
use proagent_core::game::Game as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Shared source files naming `hanabi` (the target: 12, reached).
const MAX_HANABI_FILES: usize = 12;
/// Spec string checks outside the catalog (the target: 2).
const MAX_SPEC_CHECKS: usize = 2;
/// Files with per-game matches outside the catalog (the target: 2). At 1: the
/// Python package's one `Env` and one `Policy` over every game leave only the Overcookeds'
/// own conventions (`python/src/env/layout.rs`).
const MAX_MATCH_FILES: usize = 1;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The game crates: a game's own code.
const GAME_CRATES: &[&str] = &["crates/hanabi", "crates/overcooked", "crates/overcooked-v2", "crates/collab"];

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs" || x == "py" || x == "pyi" || x == "js") {
            out.push(p);
        }
    }
}

/// The shared source files (relative paths, `/`-separated), the game's own left out;
/// `own` names the game whose own files and folders are left out (`hanabi`).
fn shared_files(own: Option<&str>) -> Vec<(String, String)> {
    let root = root();
    let mut files = Vec::new();
    for top in ["src", "python/src", "python/proagent"] {
        walk(&root.join(top), &mut files);
    }
    if let Ok(crates) = std::fs::read_dir(root.join("crates")) {
        for c in crates.flatten() {
            walk(&c.path().join("src"), &mut files);
        }
    }
    let mut out: Vec<(String, String)> = files
        .into_iter()
        .filter_map(|p| {
            let rel = p.strip_prefix(&root).ok()?.to_string_lossy().replace('\\', "/");
            let game_crate = GAME_CRATES.iter().any(|c| rel.starts_with(&format!("{c}/")));
            let own_file = own.is_some_and(|g| rel.to_ascii_lowercase().contains(g));
            if game_crate || own_file || rel.starts_with("crates/eval/src/games/") {
                return None;
            }
            Some((rel, std::fs::read_to_string(&p).ok()?))
        })
        .collect();
    out.sort();
    out
}

/// The code of a file before its test module.
fn before_tests(text: &str) -> &str {
    text.split("#[cfg(test)]").next().unwrap_or(text)
}

#[test]
fn hanabi_is_named_in_few_shared_files() {
    let naming: Vec<String> = shared_files(Some("hanabi"))
        .into_iter()
        .filter(|(_, text)| text.to_ascii_lowercase().contains("hanabi"))
        .map(|(rel, _)| rel)
        .collect();
    assert!(
        naming.len() <= MAX_HANABI_FILES,
        "{} shared files name hanabi (at most {MAX_HANABI_FILES}): {naming:#?}",
        naming.len()
    );
}

#[test]
fn spec_strings_are_read_only_by_the_catalog() {
    let patterns = [
        "starts_with(\"hanabi",
        "starts_with(\"v2:",
        "starts_with(\"capture",
        "starts_with(\"escape",
        "startsWith(\"hanabi",
        "startsWith(\"v2:",
        "strip_prefix(\"v2:",
        "strip_v2_prefix(",
        "is_maze_spec(",
        "_is_v2",
        "== \"hanabi\"",
        "starts_with(V2_PREFIX",
    ];
    let mut found = Vec::new();
    for (rel, text) in shared_files(None) {
        for (i, line) in before_tests(&text).lines().enumerate() {
            // `==` also finds `===`.
            let n: usize = patterns.iter().map(|p| line.matches(p).count()).sum();
            for _ in 0..n {
                found.push(format!("{rel}:{}: {}", i + 1, line.trim()));
            }
        }
    }
    assert!(
        found.len() <= MAX_SPEC_CHECKS,
        "{} spec string checks outside the catalog (at most {MAX_SPEC_CHECKS}): {found:#?}",
        found.len()
    );
}

#[test]
fn per_game_matches_stay_in_the_catalog() {
    let variants = catalog::variants();
    assert_eq!(variants.len(), catalog::entries().len(), "{variants:?}");
    let files: Vec<String> = shared_files(None)
        .into_iter()
        .filter(|(_, text)| {
            let code = before_tests(text);
            variants
                .iter()
                .any(|v| code.contains(&format!("AnyGame::{v}(")) || code.contains(&format!("AnyEpisode::{v}(")))
        })
        .map(|(rel, _)| rel)
        .collect();
    assert!(
        files.len() <= MAX_MATCH_FILES,
        "{} files dispatch per game outside the catalog (at most {MAX_MATCH_FILES}): {files:#?}",
        files.len()
    );
}

/// Plays one episode of `game` with its default partner in every seat, reads its
/// trajectory record back through the catalog entry, and opens it in the viewer's episode
/// view (`proagent serve`), drawing every frame.
async fn replay_surface<G: Playable>(game: &Arc<G>, entry: &GameEntry) -> Result<(), String> {
    let partner = game.default_partner();
    let seats = (0..game.num_players())
        .map(|_| game.partner(partner).map_err(|e| format!("{}: partner {partner}: {e}", entry.kind)))
        .collect::<Result<Vec<_>, _>>()?;
    let result = proagent_core::episode::play_episode(Arc::clone(game), seats, 7, Default::default())
        .await
        .map_err(|e| format!("{}: the episode failed: {:?}", entry.kind, e.abort))?;
    let record = game.trajectory_json(&result);
    let episode = (entry.read_trajectory)("catalog-test", 1, &record, &LocalFiles)
        .map_err(|e| format!("{}: its trajectory record does not read back: {e}", entry.kind))?;
    if episode.steps() != result.steps.len() || episode.game().kind() != entry.kind {
        return Err(format!(
            "{}: read back {} steps of {}, played {}",
            entry.kind,
            episode.steps(),
            episode.game().kind(),
            result.steps.len()
        ));
    }
    // The viewer: the file opens as an episode and every frame draws.
    let file = proagent::runner::files::read_episode_text("catalog-test", &format!("{record}\n"))
        .map_err(|e| format!("{}: the viewer does not read its trajectory: {e}", entry.kind))?;
    let view = proagent_web::view::EpisodeView::new("catalog".into(), file, 0)
        .map_err(|e| format!("{}: the viewer does not open it: {e}", entry.kind))?;
    if view.frames() != result.steps.len() + 1 {
        return Err(format!(
            "{}: the viewer shows {} frames of {} steps",
            entry.kind,
            view.frames(),
            result.steps.len()
        ));
    }
    for f in 0..view.frames() {
        let svg = view.svg(f, true, None, 16).map_err(|e| format!("{}: frame {f} does not draw: {e}", entry.kind))?;
        if !svg.starts_with("<svg") {
            return Err(format!("{}: frame {f} is not an SVG", entry.kind));
        }
    }
    Ok(())
}

/// Plays one episode of `game` with its default agent (a language-model seat, on the
/// `scripted` model as `play` sets it up) writing a transcript; gives the transcript and
/// the score played.
async fn transcript_surface<G: Playable>(
    game: &Arc<G>,
    entry: &GameEntry,
    dir: &Path,
) -> Result<(PathBuf, Option<i64>), String> {
    use proagent::run::TranscriptTarget;
    use proagent::runner::seats::{ProAgentSeat, SeatFactory};
    use proagent::transcript::{Scrubber, WriterOptions};
    let factory = SeatFactory::new(Some(ProAgentSeat::new("scripted")));
    let agent = game.default_agent();
    let run = proagent::run::Run::new(Arc::clone(game), agent, game.default_partner(), 0, factory);
    let path = dir.join(format!("{}.jsonl", entry.kind));
    let target = TranscriptTarget {
        path: path.clone(),
        options: WriterOptions { scrubber: Scrubber::from_env(), wall_clock: false },
        partial_until_done: false,
    };
    let played =
        run.play(11, Some(&target), Default::default()).await.map_err(|e| format!("{}: {agent}: {e}", entry.kind))?;
    let written = played.transcript.ok_or_else(|| format!("{}: {agent} wrote no transcript", entry.kind))?;
    Ok((written, played.summary["score"].as_i64()))
}

/// Re-runs the transcript `written` offline from its recorded replies (as `proagent
/// replay` does): the re-run matches the recording exchange for exchange, every recorded
/// reply is asked for, and it scores `recorded`.
fn replays_exactly(entry: &GameEntry, written: &Path, recorded: Option<i64>) -> Result<(), String> {
    use proagent::transcript::{Scrubber, Transcript, first_divergence};
    let file = written.display().to_string();
    let text = std::fs::read_to_string(written).map_err(|e| format!("{file}: {e}"))?;
    let rec = Transcript::parse(&text, &file).map_err(|e| format!("{file}: {e}"))?;
    let cfg = proagent::runner::record::RunConfig::from_header(&rec.header, &file, rec.header_line)
        .map_err(|e| format!("{file}: {e}"))?;
    let replayer = Arc::new(rec.replayer(Scrubber::from_env()));
    let rerun = proagent::replay::rerun(&file, &rec, &cfg, &replayer, Scrubber::from_env())
        .map_err(|e| format!("{}: its transcript does not replay: {e}", entry.kind))?;
    let again = Transcript::parse(&rerun.transcript, "the re-run").map_err(|e| format!("{file}: {e}"))?;
    if let Some(d) = first_divergence(&rec, &again) {
        return Err(format!("{}: the replay diverges: {d}", entry.kind));
    }
    if recorded != Some(rerun.score) || !replayer.unserved().is_empty() {
        return Err(format!("{}: replay scored {} (recorded {recorded:?})", entry.kind, rerun.score));
    }
    Ok(())
}

/// The surfaces of every registered game: a game that misses one fails here or does not
/// compile. Its board: the start frame of every built-in spec is drawn through
/// proagent-view inside an `on_game!` body, so a game without an `impl Board` is a compile
/// error of this test (and of the viewer's `on_episode!`); its viewer, trajectory
/// read-back and seat: [`replay_surface`]; its transcript and offline replay:
/// [`transcript_surface`]. (Its Python env is checked by the Python package's tests.)
#[test]
fn every_registered_game_has_its_surfaces() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let options = GameOptions { horizon: 30, ..GameOptions::default() };
    let dir = tempfile::tempdir().unwrap();
    for entry in catalog::entries() {
        let builtins = (entry.builtin_specs)();
        assert!(!builtins.is_empty(), "{} lists no built-in layout", entry.kind);
        for spec in &builtins {
            // The spec names this game, and loads as it.
            assert_eq!(catalog::entry_for(spec).map(|e| e.kind), Some(entry.kind), "{spec} is claimed by another game");
            let (game, text) = catalog::load_in(spec, &options, &LocalFiles).unwrap_or_else(|e| panic!("{spec}: {e}"));
            assert!(text.is_none(), "{spec} is built in, yet read from a file");
            assert_eq!(game.kind(), entry.kind, "{spec}");
            assert_eq!(game.entry().kind, entry.kind, "{spec}");
            assert!(catalog::is_builtin(spec), "{spec}");
            // Its seat, and its board (a game without `impl Board` does not compile here).
            proagent::on_game!(&game, |g| {
                let partner = g.default_partner();
                assert!(g.partner(partner).is_ok(), "{spec}: the default partner {partner} does not build");
                let start = g.initial_state(&mut proagent_core::episode::env_chance(1));
                let svg = proagent_view::board::svg(&**g, &start, &Default::default(), 16)
                    .unwrap_or_else(|e| panic!("{spec}: the start frame does not draw: {e}"));
                assert!(svg.starts_with("<svg"), "{spec}");
            });
        }
        let (game, _) = catalog::load_in(&builtins[0], &options, &LocalFiles).unwrap();
        let checked = rt.block_on(async { proagent::on_game!(&game, |g| replay_surface(g, entry).await) });
        checked.unwrap_or_else(|e| panic!("{e}"));
        let written =
            rt.block_on(async { proagent::on_game!(&game, |g| transcript_surface(g, entry, dir.path()).await) });
        let (path, score) = written.unwrap_or_else(|e| panic!("{e}"));
        replays_exactly(entry, &path, score).unwrap_or_else(|e| panic!("{e}"));
    }
}

/// The learning surface of a game (`proagent.GameEnv`): over a played episode, every
/// legal action has an index that reads back as it, every observation has the codec's
/// length, and the default partner seats through the codec.
fn codec_surface<G: Playable>(game: &G, entry: &GameEntry) -> Result<(), String> {
    let codec = game.vector_codec();
    let n = codec.n_actions(game);
    let mut chance = proagent_core::episode::env_chance(3);
    let mut state = game.initial_state(&mut chance);
    let mut out = Vec::new();
    codec.seat(game, game.default_partner()).map_err(|e| format!("{}: {e}", entry.kind))?;
    for _ in 0..20 {
        if game.is_over(&state) {
            break;
        }
        let mut joint = vec![None; game.num_players()];
        for (p, slot) in joint.iter_mut().enumerate() {
            codec.encode(game, &state, p, &[], &mut out);
            if out.len() != codec.obs_len(game) {
                return Err(format!(
                    "{}: an observation of {} values, not {}",
                    entry.kind,
                    out.len(),
                    codec.obs_len(game)
                ));
            }
            let legal = game.legal_actions(game.view(&state, p), p);
            for &a in &legal {
                let i = codec.action_index(game, a);
                if i >= n || codec.action_at(game, i) != Some(a) {
                    return Err(format!(
                        "{}: action {a:?} has index {i} of {n}, which reads back otherwise",
                        entry.kind
                    ));
                }
            }
            *slot = legal.first().copied();
        }
        let movers = match game.turn(&state) {
            proagent_core::game::Turn::Player(p) => vec![p],
            _ => (0..game.num_players()).collect(),
        };
        let joint: Vec<_> =
            joint.iter().enumerate().map(|(p, a)| if movers.contains(&p) { *a } else { None }).collect();
        game.step(&mut state, &joint, &mut chance);
    }
    Ok(())
}

#[test]
fn every_registered_game_has_a_learning_codec() {
    for entry in catalog::entries() {
        let (game, _) = catalog::load_in(&(entry.builtin_specs)()[0], &GameOptions::default(), &LocalFiles).unwrap();
        proagent::on_game!(&game, |g| codec_surface(&**g, entry)).unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn the_list_specs_expand_through_the_catalog() {
    let v2 = catalog::expand_specs(&["v2:all".into()]);
    assert!(v2.len() > 1 && v2.iter().all(|s| catalog::entry_for(s).is_some_and(|e| e.kind == "overcooked_v2")));
    let classic = catalog::expand_specs(&["all".into(), " ".into()]);
    assert_eq!(classic.len(), 5, "{classic:?}");
    let mazes = catalog::expand_specs(&["collab:all".into()]);
    let both = [catalog::expand_specs(&["capture:all".into()]), catalog::expand_specs(&["escape:all".into()])].concat();
    assert_eq!(mazes, both);
    assert_eq!(catalog::expand_specs(&["cramped_room".into()]), vec!["cramped_room".to_string()]);
}

#[test]
fn game_settings_go_through_the_catalog() {
    // V2's switches are settings by name; other games take none.
    let mut settings = proagent::games::GameSettings::new();
    settings.insert("view_radius".into(), serde_json::json!(2));
    let options = GameOptions { horizon: 40, settings };
    let (game, _) = AnyGame::load("v2:two_rooms", &options).unwrap();
    let (key, value) = game.header_settings().unwrap();
    assert_eq!(
        (key, &value["view_radius"], &value["max_steps"]),
        ("v2", &serde_json::json!(2), &serde_json::json!(40))
    );
    assert_eq!(catalog::entry_of_setting("view_radius").map(|e| e.kind), Some("overcooked_v2"));
    let (classic, _) = AnyGame::load("cramped_room", &options).unwrap();
    assert!(classic.header_settings().is_none());
    // A bad value is an error naming the game, not a panic.
    let mut bad = proagent::games::GameSettings::new();
    bad.insert("view_radius".into(), serde_json::json!("far"));
    let e = AnyGame::load("v2:two_rooms", &GameOptions { horizon: 40, settings: bad }).unwrap_err().to_string();
    assert!(e.starts_with("OvercookedV2 settings:"), "{e}");
}

#[test]
fn reference_traces_are_told_by_the_catalog() {
    let fixtures = root().join("tests/fixtures");
    let kind_of = |rel: &str| {
        let text = std::fs::read_to_string(fixtures.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        catalog::entry_of_trace(&text).map(|e| e.kind)
    };
    assert_eq!(kind_of("hanabi_traces/random_2p.jsonl"), Some("hanabi"));
    assert_eq!(kind_of("collab_traces/capture_1.jsonl"), Some("collab_capture"));
    // The maze games share one trace format: the first maze game's entry reads it.
    assert_eq!(kind_of("collab_traces/escape_1.jsonl"), Some("collab_capture"));
    let v2 = std::fs::read_dir(fixtures.join("v2_traces"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .unwrap();
    let text = std::fs::read_to_string(&v2).unwrap();
    assert_eq!(catalog::entry_of_trace(&text).map(|e| e.kind), Some("overcooked_v2"), "{}", v2.display());
    // Classic Overcooked's traces are trajectory files, which no entry claims.
    assert_eq!(kind_of("traces/coordination_ring.jsonl"), None);
}
