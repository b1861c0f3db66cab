//! CollabCapture / CollabEscape from the command line: `verify-trace` on the reference
//! rollouts recorded from the LLM-Coordination code, and `bench env --game capture|escape`.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    crate::support::bin()
}

fn fixtures() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/collab_traces");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    v.sort();
    v
}

fn count_lines(kind: &str) -> usize {
    let needle = format!("\"kind\": \"{kind}\"");
    fixtures().iter().map(|p| std::fs::read_to_string(p).unwrap().lines().filter(|l| l.contains(&needle)).count()).sum()
}

#[test]
fn every_collab_reference_rollout_passes() {
    let files = fixtures();
    assert_eq!(files.len(), 6);
    let (rollouts, turns) = (count_lines("header"), count_lines("step"));
    let out = bin().arg("verify-trace").args(&files).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains(&format!("{rollouts} passed, 0 failed ({turns} collab turns matched)")), "{stdout}");
    assert_eq!(stdout.lines().filter(|l| l.starts_with("PASS ")).count(), rollouts);
    assert!(stdout.contains("escape:1 scripted seed 4") && stdout.contains("killer picks replayed"), "{stdout}");
}

#[test]
fn a_tampered_rollout_fails_and_names_the_turn() {
    let text = std::fs::read_to_string(&fixtures()[1]).unwrap();
    // The thief of the first recorded turn moved elsewhere.
    let bad = text.replacen("\"thief\": 3,", "\"thief\": 7,", 1);
    assert_ne!(bad, text);
    let path = crate::support::scratch().join("tampered_capture.jsonl");
    std::fs::write(&path, bad).unwrap();
    let out = bin().arg("verify-trace").arg(&path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL") && stdout.contains("field=state.thief expected=7 got=3"), "{stdout}");
    // A broken line is an error naming the file and line.
    let lines: Vec<&str> = text.lines().collect();
    std::fs::write(&path, format!("{}\n{{not json\n", lines[0])).unwrap();
    let out = bin().arg("verify-trace").arg(&path).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("tampered_capture.jsonl:2: not a trace record"), "{stderr}");
}

#[test]
fn bench_env_runs_both_games() {
    for (game, layout) in [("capture", "capture:3"), ("escape", "escape:2")] {
        let out = bin()
            .args(["bench", "env", "--game", game, "--layout", layout, "--steps", "20000", "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(
            (v["game"].as_str(), v["layout"].as_str(), v["steps"].as_u64()),
            (Some(game), Some(layout), Some(20000))
        );
        assert!(v["proagent"]["turns_per_sec"].as_f64().unwrap() > 0.0);
        assert!(v["proagent"]["episodes"].as_u64().unwrap() > 0);
    }
    let out =
        bin().args(["bench", "env", "--game", "escape", "--layout", "capture:1", "--steps", "10"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("maze for CollabCapture, not CollabEscape"));
    let maze = crate::support::scratch().join("bad.maze");
    std::fs::write(&maze, "game: capture\nrooms: 3\nroom 1: 2\nroom 2: 1 4\n").unwrap();
    let out =
        bin().args(["bench", "env", "--game", "capture", "--steps", "10", "--layout"]).arg(&maze).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("bad.maze:4: exits of room 2: \"4\" is not a room"), "{stderr}");
    let out =
        bin().args(["bench", "env", "--game", "capture", "--steps", "10", "--reference", "python3"]).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--reference-src"));
}

/// A killer pick out of its room's range (`[2, 5]`) fails naming the turn; `verify-trace`
/// used to pass such a rollout with none of its turns replayed.
#[test]
fn an_out_of_range_killer_pick_fails() {
    let path = fixtures().into_iter().find(|p| p.ends_with("escape_1.jsonl")).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    let first = text.lines().next().unwrap();
    let second = text.lines().nth(1).unwrap();
    assert!(second.contains("\"draws\": [[2, 0]]"), "{second}");
    let end = text.lines().find(|l| l.contains("\"kind\": \"end\"")).unwrap();
    let rollout: Vec<&str> = text.lines().take_while(|l| *l != end).chain([end]).collect();
    let bad = rollout.join("\n").replacen("\"draws\": [[2, 0]]", "\"draws\": [[2, 5]]", 1);
    assert!(bad.starts_with(first));
    let out_path = crate::support::scratch().join("escape_bad_draw.jsonl");
    std::fs::write(&out_path, bad).unwrap();
    let out = bin().arg("verify-trace").arg(&out_path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("FAIL") && stdout.contains("t=0 field=draws expected=[2,5]"), "{stdout}");
    assert!(stdout.contains("0 passed, 1 failed"), "{stdout}");
}

/// Plays CollabCapture on `maze` with fixed moves (Alice takes the first exit of her room,
/// Bob stays) and writes the rollout in the trace format: a rollout from start rooms no
/// built-in scenario has.
fn own_capture_rollout(maze: &proagent::collab::Maze) -> String {
    use proagent::collab::{Capture, CaptureAction};
    use proagent::game::{Game, NoChance};
    let game = Capture::new(maze.clone(), "capture:2").unwrap();
    let mut state = game.initial_state(&mut NoChance);
    let mut rooms = serde_json::Map::new();
    for r in 1..=maze.rooms {
        rooms.insert(r.to_string(), serde_json::json!(maze.exits[r]));
    }
    let mut lines = vec![serde_json::json!({"kind": "header", "schema": "proagent-collab-trace/1", "game": "capture",
        "scenario": "capture:2", "policy": {"kind": "scripted", "seed": 0}, "loop": "game_loop",
        "catch": "same_room_or_swap", "turns": maze.turns,
        "maze": {"rooms": rooms,
                 "doors": maze.doors.iter().map(|d| serde_json::json!({"rooms": d.rooms, "button": d.button})).collect::<Vec<_>>(),
                 "doors_open": maze.doors.iter().map(|d| d.open).collect::<Vec<_>>(),
                 "players": maze.players, "adversary": maze.adversary},
        "start": game.state_json(&state)})];
    while !game.is_over(&state) && state.t < maze.turns {
        let to = maze.exits(state.players[0])[0];
        let t = state.t;
        game.step(&mut state, &[Some(CaptureAction::Move(to)), Some(CaptureAction::Stay)], &mut NoChance);
        lines.push(serde_json::json!({"kind": "step", "t": t, "actions": [to, "Stay in current room"],
            "state": game.state_json(&state), "result": if state.caught { "caught" } else { "continue" }}));
    }
    lines.push(serde_json::json!({"kind": "end", "turns": state.t,
        "result": if state.caught { "caught" } else { "timeout" }}));
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// A rollout whose header defines a maze from other start rooms is replayed on that maze:
/// it passes when it matches, fails when a turn is altered, and a header maze a maze file
/// could not hold is refused naming the field. `verify-trace` used to refuse every collab
/// rollout whose maze was not one of the six built-in scenarios.
#[test]
fn a_rollout_from_other_start_rooms_is_checked() {
    let mut maze = proagent::collab::Maze::builtin("capture:2").unwrap();
    maze.players = [3, 8];
    maze.adversary = 5;
    let text = own_capture_rollout(&maze);
    assert!(text.lines().count() > 3, "{text}");
    let path = crate::support::scratch().join("capture_other_starts.jsonl");
    std::fs::write(&path, &text).unwrap();
    let out = bin().arg("verify-trace").arg(&path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(stdout.contains("PASS") && stdout.contains("1 passed, 0 failed"), "{stdout}");
    assert!(stdout.contains("the header's maze, not the built-in capture:2 (maze.players, maze.adversary differ)"));
    // An altered turn: the thief's room in the last step.
    let mut lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let last = lines.len() - 2;
    let thief = lines[last]["state"]["thief"].as_u64().unwrap();
    lines[last]["state"]["thief"] = serde_json::json!(if thief == 9 { 8 } else { 9 });
    let altered: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, altered).unwrap();
    let out = bin().arg("verify-trace").arg(&path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains(&format!("t={} field=state.thief", last - 1)), "{stdout}");
    // A start room the maze does not have: refused, naming the header field.
    let bad = text.replacen("\"players\":[3,8]", "\"players\":[3,80]", 1);
    assert_ne!(bad, text);
    std::fs::write(&path, bad).unwrap();
    let out = bin().arg("verify-trace").arg(&path).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("capture_other_starts.jsonl:1: header field `maze.players`"), "{stderr}");
    assert!(stderr.contains("\"80\" is not a room (rooms are 1 to 9)"), "{stderr}");
}
