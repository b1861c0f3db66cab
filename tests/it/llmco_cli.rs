//! The LLM-Coordination agent and its games end to end: `play` on Hanabi, CollabCapture and
//! CollabEscape with the `llmco` seat and the partners (transcripts, trajectories), `replay`
//! offline, `show`, `render`, an `eval` sweep with its table beside the published rows, the
//! seats refused where the agent has no grounding, and an `llmco` seat served by
//! `proagent mock-server` over loopback.

use crate::support::{bin, ok, scratch, text};
use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::Stdio;

fn file(name: &str) -> PathBuf {
    let dir = scratch().join("llmco_cli");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn play(layout: &str, agent: &str, partner: &str, transcript: &PathBuf) -> String {
    ok(&bin()
        .args(["play", "--layout", layout, "--agent", agent, "--partner", partner, "--no-wall-clock", "--force"])
        .arg("--transcript")
        .arg(transcript)
        .output()
        .unwrap())
}

#[test]
fn every_game_plays_replays_shows_and_renders_with_the_llmco_seat() {
    for (layout, partner, outcome) in [
        ("hanabi", "llmco", "cards played"),
        ("hanabi:3p", "convention", "cards played"),
        ("capture:1", "greedy_baseline", "thief caught"),
        ("capture:4", "door_operator", "thief"),
        ("escape:1", "fixer", "generators repaired"),
        ("escape:2", "llmco[tom=off]", "generators repaired"),
    ] {
        let t = file(&format!("{}.jsonl", layout.replace(':', "_")));
        let out = play(layout, "llmco", partner, &t);
        assert!(out.contains("llmco[rule-based]") && out.contains(outcome), "{layout}: {out}");
        let again = file(&format!("{}-again.jsonl", layout.replace(':', "_")));
        play(layout, "llmco", partner, &again);
        assert_eq!(std::fs::read(&t).unwrap(), std::fs::read(&again).unwrap(), "{layout}: same seed, same bytes");
        let header = std::fs::read_to_string(&t).unwrap();
        assert!(
            header.contains("\"llmco\":{") && header.contains("llmco/rules/"),
            "{layout}: the header records the seat"
        );
        let replay = ok(&bin().arg("replay").arg(&t).output().unwrap());
        assert!(replay.contains("re-runs exactly"), "{layout}: {replay}");
        let shown = ok(&bin().arg("show").arg("--transcript").arg(&t).args(["--step", "1"]).output().unwrap());
        assert!(shown.contains("P0 llmco[rule-based]"), "{layout}: {shown}");
        let gif = file(&format!("{}.gif", layout.replace(':', "_")));
        let r = ok(&bin().arg("render").arg(&t).arg("--out").arg(&gif).output().unwrap());
        assert!(r.contains("frames"), "{r}");
        assert!(std::fs::read(&gif).unwrap().starts_with(b"GIF89a"));
    }
}

#[test]
fn trajectories_are_written_and_read_back_by_replaying_the_seed() {
    let traj = file("capture2.traj.jsonl");
    ok(&bin()
        .args(["play", "--layout", "capture:2", "--episodes", "2", "--no-transcript", "--force", "--trajectory"])
        .arg(&traj)
        .output()
        .unwrap());
    let shown = ok(&bin().arg("show").arg("--trajectory").arg(&traj).args(["--episode", "2"]).output().unwrap());
    assert!(shown.contains("capture:2 turn"), "{shown}");
    // A state that the actions do not lead to is refused, naming the line and the step.
    let text0 = std::fs::read_to_string(&traj).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(text0.lines().next().unwrap()).unwrap();
    v["steps"][0]["state"]["thief"] = serde_json::json!(9);
    let bad = file("capture2.bad.jsonl");
    std::fs::write(&bad, format!("{v}\n")).unwrap();
    let out = bin().arg("show").arg("--trajectory").arg(&bad).output().unwrap();
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("line 1") && err.contains("step 0"), "{err}");
}

#[test]
fn the_games_default_to_their_agent_and_refuse_proagent() {
    let out = ok(&bin().args(["play", "--layout", "escape:2", "--no-transcript"]).output().unwrap());
    assert!(out.contains("llmco[rule-based] (player 0) + fixer"), "{out}");
    let out = bin().args(["play", "--layout", "hanabi", "--agent", "proagent", "--no-transcript"]).output().unwrap();
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("proagent cannot play hanabi") && err.contains("seat llmco"), "{err}");
    let out = bin().args(["play", "--layout", "capture:1", "--partner", "greedy", "--no-transcript"]).output().unwrap();
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("greedy_baseline"), "names the known seats: {}", text(&out.stderr));
    let out =
        bin().args(["play", "--layout", "hanabi", "--agent", "llmco[tom=maybe]", "--no-transcript"]).output().unwrap();
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("tom"), "{}", text(&out.stderr));
    let out = ok(&bin().args(["show", "--layout", "hanabi:3p"]).output().unwrap());
    assert!(out.contains("player 2"), "{out}");
    let out = ok(&bin()
        .args(["play", "--layout", "hanabi:3p", "--seat", "2", "--partner", "convention", "--no-transcript"])
        .output()
        .unwrap());
    assert!(out.contains("llmco[rule-based] (player 2)"), "{out}");
    let out = bin().args(["play", "--layout", "hanabi", "--seat", "2", "--no-transcript"]).output().unwrap();
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("--seat 2: hanabi has 2 players"), "{}", text(&out.stderr));
    let out = bin().args(["play", "--layout", "hanabi", "--partner", "gpt-4o", "--no-transcript"]).output().unwrap();
    assert!(text(&out.stderr).contains("use llmco[model=gpt-4o]"), "{}", text(&out.stderr));
}

#[test]
fn an_eval_sweep_reports_beside_the_published_tables() {
    let dir = file("sweep");
    let _ = std::fs::remove_dir_all(&dir);
    let out = ok(&bin()
        .args(["eval", "--layouts", "hanabi,capture:1,escape:2", "--agents", "llmco,llmco[tom=off,verify=off]"])
        .args(["--partners", "llmco", "--seats", "0", "--episodes", "2", "--quiet", "--out"])
        .arg(&dir)
        .output()
        .unwrap());
    for needle in [
        "LLM-Coordination games beside the published rows",
        "| paper, Table 3 | hanabi (2p) | LLM-Co agent | same kind (self-play) | GPT-4-turbo |",
        "| paper, Table 2 | Greedy Baseline |",
        "rule-based: rule-based stand-in, not an LLM",
        "cards played",
        "| capture:1 | llmco[rule-based] (rule-based stand-in, not an LLM) | llmco[rule-based] (rule-based stand-in, not an LLM) | P0 | 2 |",
    ] {
        assert!(out.contains(needle), "{needle}: {out}");
    }
    assert!(std::fs::read_to_string(dir.join("report.md")).unwrap().contains("Table 3"));
    // Resuming plays nothing again.
    let again = ok(&bin()
        .args(["eval", "--layouts", "hanabi,capture:1,escape:2", "--agents", "llmco,llmco[tom=off,verify=off]"])
        .args(["--partners", "llmco", "--seats", "0", "--episodes", "2", "--quiet", "--out"])
        .arg(&dir)
        .output()
        .unwrap());
    assert_eq!(out, again);
}

#[test]
fn an_llmco_seat_plays_against_the_mock_server_over_loopback() {
    let mut child = bin()
        .args(["mock-server", "--addr", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let addr = line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("{line:?}")).to_string();
    let served = file("served-hanabi.jsonl");
    let out = bin()
        .args(["play", "--layout", "hanabi", "--agent", "llmco", "--partner", "llmco", "--model", "proagent-mock"])
        .args(["--base-url", &format!("{addr}/v1"), "--no-wall-clock", "--force", "--transcript"])
        .arg(&served)
        .output()
        .unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let stdout = ok(&out);
    assert!(stdout.contains("llmco[proagent-mock]"), "{stdout}");
    // The mock answers with the same stand-in as the built-in model: the same game.
    let local = file("local-hanabi.jsonl");
    let local_out = play("hanabi", "llmco", "llmco", &local);
    let score = |s: &str| s.split("cards played").next().unwrap_or("").rsplit('(').next().unwrap_or("").to_string();
    assert_eq!(score(&stdout), score(&local_out), "{stdout}\n{local_out}");
    // The served transcript replays offline.
    let replay = ok(&bin().arg("replay").arg(&served).output().unwrap());
    assert!(replay.contains("re-runs exactly"), "{replay}");
}

/// The default preset sends what stays the same first (rules, every step's answer format,
/// the decision's one state message) and the step's question last, so at least 70 % of an
/// episode's prompt tokens repeat the beginning of a recent request, on every game
/// (docs/results.md, "the cacheable prompt share").
#[test]
fn the_default_preset_repeats_at_least_70_percent_of_its_prompt_tokens_on_every_game() {
    for layout in ["cramped_room", "hanabi", "capture:1", "escape:1", "lever"] {
        let out = ok(&bin()
            .args(["play", "--layout", layout, "--agent", "llmco", "--model", "gpt-4o", "--dry-run"])
            .output()
            .unwrap());
        let row = out.lines().find(|l| l.starts_with("| gpt-4o |")).unwrap_or_else(|| panic!("{layout}: {out}"));
        let cols: Vec<&str> = row.split('|').map(str::trim).collect();
        let number = |s: &str| s.split_whitespace().next().and_then(|n| n.parse::<u64>().ok()).unwrap_or(0);
        let (prompt, cacheable) = (number(cols[4]), number(cols[8]));
        assert!(prompt > 0 && cacheable * 10 >= prompt * 7, "{layout}: {cacheable} of {prompt} cacheable\n{row}");
    }
}
