//! The lever game (the sixth game, docs/lever.md) from the
//! command line: `play --json` with a rule bot and with the `llmco` seat on its stand-in
//! model, transcripts that `replay` re-runs byte for byte, `show`, `render`, trajectories
//! read back by re-playing the seed, an `eval` sweep, a bad spec refused with exit 2, and
//! the viewer's episode view drawing a lever transcript.

use crate::support::{bin, ok, scratch, text};
use std::path::PathBuf;

fn file(name: &str) -> PathBuf {
    let dir = scratch().join("lever_cli");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn play_json(args: &[&str]) -> serde_json::Value {
    let out = ok(&bin().args(["play", "--json", "--no-transcript"]).args(args).output().unwrap());
    serde_json::from_str(out.lines().next().unwrap()).unwrap()
}

#[test]
fn rule_bots_and_the_llmco_stand_in_score_as_their_rules_say() {
    // Two players who always pull the special lever meet in every round: 10 × 9.
    let v = play_json(&["--layout", "lever", "--agent", "special", "--partner", "special"]);
    assert_eq!((v["game"].as_str(), v["layout"].as_str()), (Some("lever"), Some("lever")));
    assert_eq!(
        (v["score"].as_i64(), v["coordinated"].as_u64(), v["first_match"].as_u64()),
        (Some(90), Some(10), Some(1))
    );
    assert_eq!(v["steps"].as_u64(), Some(10));
    // The special lever against an arbitrary convention: never.
    let v = play_json(&["--layout", "lever:5r", "--agent", "special", "--partner", "first"]);
    assert_eq!((v["score"].as_i64(), v["rounds"].as_u64()), (Some(0), Some(5)));
    // The LLM-Co agent (the default agent) on its stand-in: with itself on the special lever from the
    // first round; against `first` it joins lever 1 once the partner has pulled it twice.
    let v = play_json(&["--layout", "lever", "--partner", "llmco"]);
    assert_eq!((v["agent"].as_str(), v["score"].as_i64()), (Some("llmco[rule-based]"), Some(90)));
    let v = play_json(&["--layout", "lever", "--partner", "first"]);
    assert_eq!((v["score"].as_i64(), v["first_match"].as_u64()), (Some(80), Some(3)));
    // The default partner copies: the pair meets in the second round.
    let v = play_json(&["--layout", "lever"]);
    assert_eq!((v["partner"].as_str(), v["first_match"].as_u64()), (Some("copy"), Some(2)));
    let out = bin().args(["play", "--layout", "lever", "--partner", "greedy", "--no-transcript"]).output().unwrap();
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("special, first, copy"), "{}", text(&out.stderr));
}

#[test]
fn a_transcript_replays_exactly_and_shows_and_renders() {
    let t = file("lever.jsonl");
    let play = |path: &PathBuf| {
        ok(&bin()
            .args(["play", "--layout", "lever:5r", "--partner", "copy", "--no-wall-clock", "--force", "--transcript"])
            .arg(path)
            .output()
            .unwrap())
    };
    let out = play(&t);
    assert!(out.contains("lever:5r seed 0: llmco[rule-based] (player 0) + copy"), "{out}");
    let again = file("lever-again.jsonl");
    play(&again);
    assert_eq!(std::fs::read(&t).unwrap(), std::fs::read(&again).unwrap(), "same seed, same bytes");
    let header = std::fs::read_to_string(&t).unwrap();
    assert!(
        header.contains("llmco/rules/lever.j2") && header.contains("llmco/tom/lever.j2"),
        "the header records the templates"
    );
    let replay = ok(&bin().arg("replay").arg(&t).output().unwrap());
    assert!(replay.contains("re-runs exactly"), "{replay}");
    let shown = ok(&bin().arg("show").arg("--transcript").arg(&t).args(["--step", "2"]).output().unwrap());
    assert!(shown.contains("lever:5r round 2/5") && shown.contains("P1 copy"), "{shown}");
    assert!(shown.contains("round   2: A"), "{shown}");
    let gif = file("lever.gif");
    let r = ok(&bin().arg("render").arg(&t).arg("--out").arg(&gif).output().unwrap());
    assert!(r.contains("6 frames"), "{r}");
    assert!(std::fs::read(&gif).unwrap().starts_with(b"GIF89a"));
    let svg = file("lever.svg");
    ok(&bin().arg("render").arg(&t).arg("--out").arg(&svg).output().unwrap());
    assert!(std::fs::read_to_string(&svg).unwrap().starts_with("<svg"));
    // The start board of a spec.
    let start = ok(&bin().args(["show", "--layout", "lever:5r"]).output().unwrap());
    assert!(start.contains("lever:5r round 0/5  score 0") && start.contains("pays "), "{start}");
}

#[test]
fn trajectories_are_read_back_by_replaying_the_seed() {
    let traj = file("lever.traj.jsonl");
    ok(&bin()
        .args(["play", "--layout", "lever:5r", "--agent", "copy", "--partner", "random", "--episodes", "2"])
        .args(["--no-transcript", "--force", "--trajectory"])
        .arg(&traj)
        .output()
        .unwrap());
    let shown = ok(&bin().arg("show").arg("--trajectory").arg(&traj).args(["--episode", "2"]).output().unwrap());
    assert!(shown.contains("lever:5r seed 1") && shown.contains("round   5: A"), "{shown}");
    // A state the actions do not lead to is refused, naming the line and the step.
    let first = std::fs::read_to_string(&traj).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(first.lines().next().unwrap()).unwrap();
    v["steps"][1]["state"]["score"] = serde_json::json!(99);
    let bad = file("lever.bad.jsonl");
    std::fs::write(&bad, format!("{v}\n")).unwrap();
    let out = bin().arg("show").arg("--trajectory").arg(&bad).output().unwrap();
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("line 1") && err.contains("step 1"), "{err}");
}

#[test]
fn an_eval_sweep_plays_both_specs_and_a_bad_spec_is_an_input_error() {
    let dir = file("sweep");
    let _ = std::fs::remove_dir_all(&dir);
    let out = ok(&bin()
        .args(["eval", "--layouts", "lever,lever:5r", "--agents", "llmco,special", "--partners", "special,first"])
        .args(["--seats", "0", "--episodes", "2", "--quiet", "--out"])
        .arg(&dir)
        .output()
        .unwrap());
    for row in [
        "| lever | llmco[rule-based] (rule-based stand-in, not an LLM) | special | P0 | 2 | 90.0 ± 0.0 |",
        "| lever | llmco[rule-based] (rule-based stand-in, not an LLM) | first | P0 | 2 | 80.0 ± 0.0 |",
        "| lever:5r | special | first | P0 | 2 | 0.0 ± 0.0 |",
    ] {
        assert!(out.contains(row), "{row}: {out}");
    }
    assert!(dir.join("heatmap-lever_5r.svg").exists());
    for spec in ["lever:0r", "lever:500r", "lever:5"] {
        let out = bin().args(["play", "--layout", spec, "--no-transcript"]).output().unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{spec}: {err}");
        assert!(err.contains(&format!("unknown lever game \"{spec}\"")) && err.contains("lever:Nr"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// The viewer opens a lever transcript (the episode view `proagent serve` shows) and draws
/// every frame; the start and the last frame differ.
#[test]
fn the_viewer_opens_a_lever_transcript_and_draws_every_frame() {
    let t = file("lever-viewer.jsonl");
    ok(&bin()
        .args(["play", "--layout", "lever:3r", "--partner", "special", "--no-wall-clock", "--force", "--transcript"])
        .arg(&t)
        .output()
        .unwrap());
    let f = proagent::runner::files::read_episode_file(&t).unwrap();
    let view = proagent_web::view::EpisodeView::new("lever".into(), f, 0).unwrap();
    assert_eq!(view.frames(), 4);
    let frames: Vec<String> = (0..view.frames()).map(|k| view.svg(k, true, None, 24).unwrap()).collect();
    assert!(frames.iter().all(|s| s.starts_with("<svg")));
    assert_ne!(frames[0], frames[3]);
}
