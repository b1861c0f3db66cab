//! Unit tests of the Hanabi crate: HLE fidelity on the fixture traces, rules, views,
//! the game interface and the bots.

use crate::rules::*;
use crate::trace;
use std::path::PathBuf;

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/hanabi_traces")
}

fn fixture_games() -> Vec<(String, trace::TraceGame)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture_dir())
        .expect("fixture dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read");
        assert!(trace::is_hanabi_trace(&text), "{}", f.display());
        for g in trace::parse_trace_file(&text).unwrap_or_else(|e| panic!("{}: {e}", f.display())) {
            out.push((f.display().to_string(), g));
        }
    }
    out
}

#[test]
fn every_fixture_replays_move_for_move() {
    let games = fixture_games();
    assert!(games.len() >= 30, "only {} fixture games", games.len());
    let (mut lost, mut out_of_cards, mut perfect) = (0, 0, 0);
    for (file, g) in &games {
        let r = trace::verify(g).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(r.passed, "{file} {}: {:?}", r.game, r.divergence);
        assert_eq!(r.states_matched, g.states.len());
        assert_eq!(r.vectors_compared, g.states.len() * g.header.players);
        match r.status.as_str() {
            "out_of_life_tokens" => lost += 1,
            "out_of_cards" => out_of_cards += 1,
            "completed_fireworks" => perfect += 1,
            s => panic!("{file}: status {s}"),
        }
    }
    assert!(lost > 0 && out_of_cards > 0 && perfect > 0, "{lost} {out_of_cards} {perfect}");
}
