//! End-to-end checks of the OvercookedV2 commands: verify-trace on the JaxMARL traces,
//! play/replay/eval/analyze with `--layout v2:NAME`, and bench env.

use crate::support::bin;
use std::path::PathBuf;

fn v2_traces() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v2_traces");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    v.sort();
    v
}

#[test]
fn all_v2_reference_trajectories_pass() {
    let files = v2_traces();
    assert_eq!(files.len(), 23);
    let out = bin().arg("verify-trace").arg("--json").args(&files).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["passed"], 46);
    assert_eq!(v["failed"], 0);
    assert_eq!(v["v2_steps_matched"], 46 * 250);
}

#[test]
fn a_tampered_v2_trace_fails_and_a_broken_one_names_the_line() {
    let text = std::fs::read_to_string(&v2_traces()[0]).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut step: serde_json::Value = serde_json::from_str(&lines[11]).unwrap();
    step["state"]["agents"][0][0] = serde_json::json!(step["state"]["agents"][0][0].as_u64().unwrap() + 1);
    lines[11] = step.to_string();
    let path = dir.path().join("bad.jsonl");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let out = bin().arg("verify-trace").arg(&path).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("FAIL") && stdout.contains("t=10 field=state"), "{stdout}");
    std::fs::write(&path, format!("{}\n{{\"kind\":\"step\"}}\n", lines[0])).unwrap();
    let out = bin().arg("verify-trace").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.jsonl") && stderr.contains("line 2"), "{stderr}");
}

fn run_ok(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{args:?}\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

#[test]
fn play_v2_with_proagent_records_a_transcript_that_replays_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.jsonl");
    let traj = dir.path().join("traj.jsonl");
    let t_s = t.to_str().unwrap();
    let out = run_ok(&[
        "play",
        "--layout",
        "v2:two_rooms",
        "--agent",
        "proagent",
        "--partner",
        "scripted",
        "--seat",
        "1",
        "--view-radius",
        "2",
        "--negative-rewards",
        "--resample-recipe",
        "--random-starts",
        "--horizon",
        "120",
        "--transcript",
        t_s,
        "--no-wall-clock",
        "--trajectory",
        traj.to_str().unwrap(),
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["layout"], "v2:two_rooms");
    assert_eq!(v["agent"], "proagent[rule-based]");
    assert_eq!(v["seat"], 1);
    for key in ["score", "deliveries", "wrong_deliveries", "button_presses", "llm_calls", "teamwork", "settings"] {
        assert!(v.get(key).is_some(), "{key}: {v}");
    }
    assert_eq!(v["settings"]["view_radius"], 2);
    let replay = run_ok(&["replay", "--json", t_s]);
    let r: serde_json::Value = serde_json::from_str(replay.trim()).unwrap();
    assert_eq!(r["identical"], true, "{r}");
    assert!(r["exchanges"].as_u64().unwrap() > 0);
    // The same command writes the same transcript, byte for byte.
    let t2 = dir.path().join("t2.jsonl");
    run_ok(&[
        "play",
        "--layout",
        "v2:two_rooms",
        "--agent",
        "proagent",
        "--partner",
        "scripted",
        "--seat",
        "1",
        "--view-radius",
        "2",
        "--negative-rewards",
        "--resample-recipe",
        "--random-starts",
        "--horizon",
        "120",
        "--transcript",
        t2.to_str().unwrap(),
        "--no-wall-clock",
    ]);
    assert_eq!(std::fs::read(&t).unwrap(), std::fs::read(&t2).unwrap());
    let analyze = run_ok(&["analyze", "--json", traj.to_str().unwrap()]);
    let a: serde_json::Value = serde_json::from_str(analyze.lines().next().unwrap()).unwrap();
    assert_eq!(a["kind"], "overcooked_v2");
    assert!(a["teamwork"]["handovers"].as_u64().is_some());
}

#[test]
fn eval_sweeps_v2_layouts_beside_classic_ones() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let o = out.to_str().unwrap();
    run_ok(&[
        "eval",
        "--layouts",
        "v2:cramped_room_v2,v2:long_room,cramped_room",
        "--agents",
        "proagent",
        "--partners",
        "scripted",
        "--seats",
        "0,1",
        "--horizon",
        "60",
        "--out",
        o,
        "--quiet",
        "--no-report",
    ]);
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let layouts: Vec<String> = text
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["layout"].as_str().unwrap().to_string())
        .collect();
    assert!(layouts.iter().any(|l| l == "v2:cramped_room_v2"), "{layouts:?}");
    assert!(layouts.iter().any(|l| l == "cramped_room"), "{layouts:?}");
    // Resuming plays nothing new; other V2 switches are a different sweep.
    let again = bin()
        .args(["eval", "--layouts", "v2:cramped_room_v2", "--agents", "proagent", "--partners", "scripted"])
        .args(["--seats", "0", "--horizon", "60", "--out", o, "--quiet", "--no-report"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&again.stderr).contains("to play: 0"),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    let other = bin()
        .args(["eval", "--layouts", "v2:cramped_room_v2", "--agents", "proagent", "--partners", "scripted"])
        .args(["--seats", "0", "--horizon", "60", "--out", o, "--quiet", "--no-report", "--view-radius", "1"])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&other.stderr).contains("to play: 1"),
        "{}",
        String::from_utf8_lossy(&other.stderr)
    );
}

#[test]
fn v2_flags_and_specs_are_checked_before_anything_runs() {
    let cases: &[(&[&str], &str)] = &[
        (&["play", "--layout", "cramped_room", "--negative-rewards"], "--negative-rewards applies to OvercookedV2"),
        (&["play", "--layout", "v2:nowhere"], "unknown OvercookedV2 layout"),
        (
            &["play", "--layout", "v2:cramped_room_v2", "--partner", "greedy"],
            "unknown agent \"greedy\" for v2:cramped_room_v2",
        ),
        (&["play", "--layout", "v2:long_room", "--seat", "1"], "has 1 player"),
        (&["play", "--layout", "v2:cramped_room_v2", "--view-radius", "99"], "--view-radius"),
        // The paper preset's knowledge library is classic Overcooked's: refused, not run as another loop.
        (
            &["play", "--layout", "v2:cramped_room_v2", "--preset", "paper"],
            "--preset paper: OvercookedV2 has no knowledge library for this preset (available: default)",
        ),
        (
            &[
                "eval",
                "--layouts",
                "v2:two_rooms",
                "--agents",
                "proagent",
                "--partners",
                "scripted",
                "--preset",
                "paper",
                "--out",
                "/nonexistent/x",
            ],
            "OvercookedV2 has no knowledge library",
        ),
    ];
    for (args, want) in cases {
        let out = bin().args(*args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.layout");
    std::fs::write(&bad, "name: bad\nrecipes: 0 0 0\ngrid:\nWWPWW\nWA AW\nW0BX\n").unwrap();
    let out = bin().args(["play", "--layout", &format!("v2:{}", bad.display())]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.layout:6"), "{err}");
}

#[test]
fn play_v2_without_a_partner_pairs_the_agent_with_the_scripted_one() {
    let out =
        bin().args(["play", "--layout", "v2:cramped_room_v2", "--horizon", "60", "--no-transcript"]).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("(player 0) + scripted ->"), "{text}");
}

#[test]
fn show_and_bench_know_v2_layouts() {
    let list = run_ok(&["show", "--v2-list"]);
    assert_eq!(list.lines().count(), 23);
    let v: serde_json::Value =
        serde_json::from_str(run_ok(&["show", "--layout", "v2:fun_coordination", "--json"]).trim()).unwrap();
    assert_eq!(v["players"], 2);
    assert_eq!(v["recipes"].as_array().unwrap().len(), 2);
    let board = run_ok(&["show", "--layout", "v2:grounded_coord_simple"]);
    assert!(board.contains("possible recipes: onion, onion, onion; tomato, tomato, tomato"), "{board}");
    let out = run_ok(&[
        "bench",
        "env",
        "--layout",
        "v2:cramped_room_v2",
        "--steps",
        "2000",
        "--batch",
        "4",
        "--batch-steps",
        "50",
        "--json",
    ]);
    let b: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert!(b["proagent"]["single_state_steps_per_sec"].as_f64().unwrap() > 0.0);
    assert!(b["jaxmarl"].is_null());
    let bad = bin().args(["bench", "env", "--layout", "cramped_room", "--view-radius", "2"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn analyze_summarizes_v2_transcripts_and_trajectories_and_eval_reports_their_teamwork() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.jsonl");
    let traj = dir.path().join("traj.jsonl");
    // The cat-dog layout with a short view: the informed player lights the button.
    let play = run_ok(&[
        "play",
        "--layout",
        "v2:grounded_coord_simple",
        "--agent",
        "proagent",
        "--partner",
        "scripted",
        "--view-radius",
        "2",
        "--horizon",
        "200",
        "--transcript",
        t.to_str().unwrap(),
        "--trajectory",
        traj.to_str().unwrap(),
        "--no-wall-clock",
        "--json",
    ]);
    let p: serde_json::Value = serde_json::from_str(play.trim()).unwrap();
    let deliveries = p["deliveries"].as_u64().unwrap();
    assert!(deliveries > 0 && p["button_presses"].as_u64().unwrap() > 0, "{p}");

    // One transcript: its recorded events give the play's figures.
    let one = run_ok(&["analyze", "--json", t.to_str().unwrap()]);
    let a: serde_json::Value = serde_json::from_str(one.trim()).unwrap();
    assert_eq!(a["kind"], "overcooked_v2");
    assert_eq!(a["layout"], "v2:grounded_coord_simple");
    assert_eq!(a["teamwork"], p["teamwork"], "the transcript's events and the episode agree");
    assert_eq!(a["teamwork"]["correct_dishes"].as_u64(), Some(deliveries));
    assert_eq!(a["teamwork"]["button_presses"], p["button_presses"]);
    assert!(a["teamwork"]["dishes_by_recipe"].as_object().is_some_and(|m| !m.is_empty()), "{a}");

    // --summary over the trajectory and the transcript of the same episode: one layout, two episodes.
    let sum = run_ok(&["analyze", "--summary", "--json", traj.to_str().unwrap(), t.to_str().unwrap()]);
    let lines: Vec<&str> = sum.lines().collect();
    assert_eq!(lines.len(), 1, "{sum}");
    let s: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(s["kind"], "overcooked_v2");
    assert_eq!(s["episodes"], 2);
    assert_eq!(s["totals"]["correct_dishes"].as_u64(), Some(2 * deliveries));
    assert_eq!(s["constructive_signal_share"]["n"], 2);
    let text = run_ok(&["analyze", "--summary", t.to_str().unwrap()]);
    assert!(text.starts_with("v2:grounded_coord_simple: 1 episode ("), "{text}");
    assert!(text.contains("constructive share of button presses"), "{text}");

    // A transcript whose events disagree with its footer is refused, naming the file.
    let body = std::fs::read_to_string(&t).unwrap();
    let mut lines: Vec<String> = body.lines().map(String::from).collect();
    let last = lines.len() - 1;
    let mut footer: serde_json::Value = serde_json::from_str(&lines[last]).unwrap();
    footer["data"]["deliveries"] = serde_json::json!(deliveries + 1);
    lines[last] = footer.to_string();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    let out = bin().args(["analyze", "--summary"]).arg(&bad).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.jsonl"), "{err}");

    // Sweep reports show V2 teamwork, not "—".
    let sweep = dir.path().join("sweep");
    run_ok(&[
        "eval",
        "--layouts",
        "v2:grounded_coord_simple",
        "--agents",
        "scripted",
        "--partners",
        "scripted",
        "--seats",
        "0",
        "--horizon",
        "200",
        "--view-radius",
        "2",
        "--out",
        sweep.to_str().unwrap(),
        "--quiet",
    ]);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(sweep.join("report.json")).unwrap()).unwrap();
    let cells = report["cells"].as_array().unwrap();
    assert!(!cells.is_empty());
    for c in cells {
        assert!(c["constructive"].as_f64().is_some() && c["non_constructive"].as_f64().is_some(), "{c}");
    }
    let md = std::fs::read_to_string(sweep.join("report.md")).unwrap();
    let row = md.lines().find(|l| l.starts_with("| v2:grounded_coord_simple | scripted | scripted | P0 |")).unwrap();
    assert!(!row.contains('—'), "{row}");
}

/// `play --layout v2:...` and `eval` of V2 layouts with a served model at `base_url`.
fn v2_play(base_url: &str, transcript: &std::path::Path) -> std::process::Command {
    let mut c = bin();
    c.args(["play", "--layout", "v2:cramped_room_v2", "--horizon", "30", "--json", "--no-wall-clock"])
        .args(["--model", "m", "--base-url", base_url, "--retries", "1", "--backoff-ms", "1", "--backoff-max-ms", "2"])
        .args(["--partner", "scripted", "--episodes", "2", "--transcript"])
        .arg(transcript);
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_v2_episode_whose_model_fails_has_no_score() {
    use crate::fake_server::{Canned, CannedServer, dead_port};
    let dir = tempfile::tempdir().unwrap();
    let dead = format!("http://127.0.0.1:{}/v1", dead_port());
    // A dead server: the first failed call ends the episode (--max-llm-failures 0), exit 1.
    let t = dir.path().join("dead.jsonl");
    let mut cmd = v2_play(&dead, &t);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(out.stdout.is_empty(), "no score: {}", String::from_utf8_lossy(&out.stdout));
    assert!(err.contains("seed 0 failed, no score") && err.contains("--max-llm-failures"), "{err}");
    assert!(!err.contains("seed 1"), "{err}");
    let kept = dir.path().join("dead-seed0.jsonl");
    let footer: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&kept).unwrap().lines().last().unwrap()).unwrap();
    assert_eq!(footer["data"]["failed"], true, "{footer}");
    // A server that refuses the key stops the command at once, exit 2.
    let server = CannedServer::start(vec![Canned::openai_error(401, "Incorrect API key provided.")]).await;
    let mut cmd = v2_play(&server.base_url(), &dir.path().join("refused.jsonl"));
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("401") && out.stdout.is_empty(), "{err}");
    assert_eq!(server.hits(), 1, "no request after the refusal");
    // A sweep records no V2 episode whose model failed.
    let sweep = dir.path().join("sweep");
    let mut cmd = bin();
    cmd.args(["eval", "--layouts", "v2:cramped_room_v2", "--agents", "proagent", "--partners", "scripted"])
        .args(["--seats", "0", "--episodes", "2", "--horizon", "30", "--quiet", "--concurrency", "1"])
        .args(["--model", "m", "--base-url", &dead, "--retries", "1", "--backoff-ms", "1", "--backoff-max-ms", "2"])
        .arg("--out")
        .arg(&sweep);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("2 failed, 0 results written"), "{err}");
    assert!(std::fs::read_to_string(sweep.join("results.jsonl")).unwrap_or_default().is_empty());
}

#[test]
fn show_and_render_replay_a_v2_transcript_and_trajectory_through_the_generic_reader() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.jsonl");
    let traj = dir.path().join("traj.jsonl");
    run_ok(&[
        "play",
        "--layout",
        "v2:grounded_coord_simple",
        "--agent",
        "proagent",
        "--partner",
        "scripted",
        "--view-radius",
        "2",
        "--random-starts",
        "--resample-recipe",
        "--horizon",
        "60",
        "--seed",
        "3",
        "--transcript",
        t.to_str().unwrap(),
        "--trajectory",
        traj.to_str().unwrap(),
    ]);
    let from_transcript = run_ok(&["show", "--transcript", t.to_str().unwrap()]);
    let from_trajectory = run_ok(&["show", "--trajectory", traj.to_str().unwrap()]);
    assert_eq!(from_transcript, from_trajectory);
    // The classic layout of `show`: the legend, then the start with the seats beside it.
    assert!(from_transcript.starts_with("legend: W counter"), "{from_transcript}");
    assert!(from_transcript.contains("\nv2:grounded_coord_simple seed 3, t=0 (start)\n"), "{from_transcript}");
    assert!(from_transcript.contains("│ P0 proagent[rule-based]") && from_transcript.contains("│ P1 scripted"));
    assert!(from_transcript.contains("recipe: ") && from_transcript.contains("t=59 actions=["), "{from_transcript}");
    let last = run_ok(&["show", "--trajectory", traj.to_str().unwrap(), "--step", "60"]);
    assert!(last.contains("\nt=59 ") && !last.contains("t=58 ") && !last.contains("t=0 (start)"), "{last}");
    // The same pictures as the viewer: SVG and PNG frames (with a player's view shaded),
    // and an animated GIF of the whole episode.
    let out = |n: &str| dir.path().join(n).display().to_string();
    let o = run_ok(&["render", t.to_str().unwrap(), "--out", &out("a.svg"), "--step", "30", "--cell", "20"]);
    assert!(o.contains("frame 30"), "{o}");
    let svg = std::fs::read_to_string(out("a.svg")).unwrap();
    // 8x5 cells, and two status rows: time and score, then the recipe.
    assert!(svg.contains("width=\"160\"") && svg.contains("height=\"120\""), "{}", &svg[..200]);
    run_ok(&["render", traj.to_str().unwrap(), "--out", &out("b.svg"), "--step", "30", "--cell", "20"]);
    assert_eq!(svg, std::fs::read_to_string(out("b.svg")).unwrap(), "transcript and trajectory draw the same");
    run_ok(&["render", t.to_str().unwrap(), "--out", &out("v.svg"), "--step", "30", "--cell", "20", "--view", "1"]);
    let viewed = std::fs::read_to_string(out("v.svg")).unwrap();
    assert!(viewed != svg && viewed.contains("opacity=\"0.45\""), "player 1's view is shaded");
    run_ok(&["render", t.to_str().unwrap(), "--out", &out("a.png"), "--view", "0"]);
    assert!(std::fs::read(out("a.png")).unwrap().starts_with(b"\x89PNG"));
    let o = run_ok(&["render", traj.to_str().unwrap(), "--out", &out("a.gif"), "--cell", "16", "--fps", "12"]);
    assert!(o.contains("61 frames (0..=60)"), "{o}");
    assert!(std::fs::read(out("a.gif")).unwrap().starts_with(b"GIF89a"));
    let bad = bin().args(["render", t.to_str().unwrap(), "--out", &out("x.svg"), "--view", "2"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--view 2: the episode has players 0..=1"));
    // The generic reader: both files are the same V2 episode.
    for f in [&t, &traj] {
        let file = proagent::runner::files::read_episode_file(f).unwrap();
        match &file.episodes[0] {
            proagent::runner::files::AnyEpisode::V2(e) => {
                assert_eq!(
                    (e.steps.len(), e.seed, e.game.layout.name.as_str()),
                    (60, Some(3), "grounded_coord_simple")
                );
            }
            _ => panic!("{}: not read as OvercookedV2", f.display()),
        }
    }
    // A transcript whose rewards the re-play does not give is refused, naming the file and step.
    let text = std::fs::read_to_string(&t).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let k = lines.iter().position(|l| l.contains("\"type\":\"step\"")).unwrap();
    let mut step: serde_json::Value = serde_json::from_str(&lines[k]).unwrap();
    step["data"]["reward"] = serde_json::json!(20);
    lines[k] = step.to_string();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, lines.join("\n") + "\n").unwrap();
    for cmd in [&["show", "--transcript"][..], &["render", "--out", "/dev/null/x.svg"][..]] {
        let out = bin().args(cmd).arg(&bad).output().unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("bad.jsonl: step t = 0 records reward 20, but the simulator gives 0"), "{err}");
    }
    // So is a trajectory whose recorded state the actions do not lead to.
    let mut v: serde_json::Value = serde_json::from_str(std::fs::read_to_string(&traj).unwrap().trim()).unwrap();
    v["steps"][5]["state"]["agents"][0][0] = serde_json::json!(7);
    let bad = dir.path().join("bad-traj.jsonl");
    std::fs::write(&bad, format!("{v}\n")).unwrap();
    let out = bin().args(["show", "--trajectory"]).arg(&bad).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad-traj.jsonl: line 1: step 5: the recorded state is not the one the actions lead to"),
        "{err}"
    );
}

#[test]
fn sweeps_skip_seat_1_on_one_player_layouts() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::support::bin()
        .args([
            "eval",
            "--layouts",
            "v2:long_room,v2:cramped_room_v2",
            "--agents",
            "scripted",
            "--partners",
            "scripted",
        ])
        .args(["--seats", "0,1", "--horizon", "20", "--quiet", "--no-report", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{e}");
    assert!(
        e.contains("v2:long_room has one player: seat 1 is not played there") && e.contains("plan: 3 episodes"),
        "{e}"
    );
    let recs = std::fs::read_to_string(dir.path().join("results.jsonl")).unwrap();
    let seats: Vec<(String, u64)> = recs
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|r| (r["layout"].as_str().unwrap().to_string(), r["seat"].as_u64().unwrap()))
        .collect();
    assert!(seats.contains(&("v2:long_room".into(), 0)) && !seats.contains(&("v2:long_room".into(), 1)), "{seats:?}");
    assert!(seats.contains(&("v2:cramped_room_v2".into(), 1)), "{seats:?}");
}
