//! End-to-end checks of `proagent play` and the controller/partner benchmarks.

use std::process::Command;

fn bin() -> Command {
    crate::support::bin()
}

fn run_ok(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn play_json_summary_is_deterministic_per_seed() {
    let args =
        ["play", "--layout", "cramped_room", "--agent", "scripted", "--partner", "greedy", "--seed", "3", "--json"];
    let a = run_ok(&args);
    assert_eq!(a, run_ok(&args), "same command and seed, same output");
    let v: serde_json::Value = serde_json::from_str(a.trim()).unwrap();
    for key in ["layout", "agent", "partner", "seat", "seed", "score", "deliveries", "steps", "stuck_steps"] {
        assert!(v.get(key).is_some(), "missing {key}: {v}");
    }
    assert_eq!(v["layout"], "cramped_room");
    assert_eq!(v["agent"], "scripted");
    assert_eq!(v["partner"], "greedy");
    assert_eq!(v["seed"], 3);
    assert_eq!(v["steps"], 400);
    assert!(v["score"].as_u64().unwrap() >= 100, "{v}");
    assert_eq!(v["score"].as_u64().unwrap(), 20 * v["deliveries"].as_u64().unwrap());
    assert_eq!(v["deadlock"], false);
}

#[test]
fn episodes_seats_and_trajectory_file() {
    let dir = tempfile::tempdir().unwrap();
    let traj = dir.path().join("t.jsonl");
    let out = run_ok(&[
        "play",
        "--layout",
        "forced_coordination",
        "--agent",
        "scripted",
        "--partner",
        "scripted",
        "--seat",
        "1",
        "--seed",
        "5",
        "--episodes",
        "2",
        "--horizon",
        "150",
        "--json",
        "--trajectory",
        traj.to_str().unwrap(),
    ]);
    let lines: Vec<serde_json::Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["seed"], 5);
    assert_eq!(lines[1]["seed"], 6);
    assert_eq!(lines[0]["seat"], 1);
    assert_eq!(lines[0]["steps"], 150);
    // The recorded trajectories replay exactly on the simulator.
    let verify = run_ok(&["verify-trace", traj.to_str().unwrap()]);
    assert!(verify.contains("2 passed, 0 failed"), "{verify}");
    let first: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&traj).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(first["agents"], serde_json::json!(["scripted", "scripted"]));
    assert!(first["skill_events"].as_array().is_some_and(|e| !e.is_empty()));
    assert_eq!(first["total_reward"], lines[0]["score"]);
}

#[test]
fn render_prints_a_board_per_step_with_legend_and_panel() {
    let out = run_ok(&[
        "play",
        "--layout",
        "cramped_room",
        "--agent",
        "random",
        "--partner",
        "stay",
        "--horizon",
        "3",
        "--render",
    ]);
    assert_eq!(out.matches("t=0 actions=").count(), 1);
    assert_eq!(out.matches("t=2 actions=").count(), 1);
    assert_eq!(out.matches("legend: X counter").count(), 1, "the legend once: {out}");
    assert!(out.contains("│ score 0") && out.contains("│ P0 random") && out.contains("│ P1 stay"), "{out}");
    // A ProAgent's current skill and plan go beside the board.
    let out = run_ok(&["play", "--horizon", "4", "--render", "--no-transcript", "--partner", "scripted"]);
    assert!(out.contains("│ P0 proagent[rule-based]") && out.contains("│    skill: "), "{out}");
    assert!(out.contains("│    expects P1: ") && out.contains("│    analysis: "), "{out}");
    assert!(out.contains("LLM calls 1"), "{out}");
}

#[test]
fn render_delay_waits_between_frames_and_is_range_checked() {
    let t0 = std::time::Instant::now();
    run_ok(&["play", "--agent", "stay", "--partner", "stay", "--horizon", "3", "--render", "--render-delay-ms", "40"]);
    // Four frames (the start and three steps), each followed by the delay.
    assert!(t0.elapsed() >= std::time::Duration::from_millis(160), "{:?}", t0.elapsed());
    let out = bin().args(["play", "--agent", "stay", "--render", "--render-delay-ms", "600000"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--render-delay-ms must be at most"));
    let out = bin().args(["play", "--agent", "stay", "--render-delay-ms", "10"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "the delay needs --render");
}

/// The board columns of a rendered frame (everything left of the side panel).
fn boards(text: &str) -> Vec<String> {
    let mut frames = Vec::new();
    for chunk in text.split("\n\n").filter(|c| c.contains("│")) {
        let rows: Vec<&str> = chunk
            .lines()
            .filter(|l| !l.starts_with("t=") && !l.starts_with("  ") && !l.contains(" -> score "))
            .map(|l| l.split('│').next().unwrap().trim_end())
            .collect();
        frames.push(rows.join("\n"));
    }
    frames
}

#[test]
fn show_renders_a_saved_trajectory_and_transcript_as_play_rendered_it() {
    let dir = tempfile::tempdir().unwrap();
    let traj = dir.path().join("t.jsonl");
    let tr = dir.path().join("x.jsonl");
    let live = run_ok(&[
        "play",
        "--layout",
        "coordination_ring",
        "--partner",
        "scripted",
        "--horizon",
        "12",
        "--episodes",
        "2",
        "--render",
        "--trajectory",
        traj.to_str().unwrap(),
        "--transcript",
        tr.to_str().unwrap(),
    ]);
    let live = boards(&live);
    assert_eq!(live.len(), 2 * 13, "a start frame and 12 steps per episode");
    let one = run_ok(&["show", "--trajectory", traj.to_str().unwrap(), "--episode", "2", "--step", "7"]);
    assert!(one.starts_with("legend:"), "{one}");
    assert!(
        one.contains("t=6 actions=") && one.contains("│ P0 proagent[rule-based]") && one.contains("│    skill: "),
        "{one}"
    );
    assert_eq!(boards(&one), vec![live[13 + 7].clone()], "the second episode after 7 steps");
    let all = run_ok(&["show", "--trajectory", traj.to_str().unwrap()]);
    assert_eq!(boards(&all), live[..13].to_vec());
    // The transcript of the second episode (seed 1) re-plays its recorded actions.
    let second = dir.path().join("x-seed1.jsonl");
    let from_transcript = run_ok(&["show", "--transcript", second.to_str().unwrap()]);
    assert_eq!(boards(&from_transcript), live[13..].to_vec());
    let bad = bin().args(["show", "--trajectory", traj.to_str().unwrap(), "--episode", "3"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("holds 2 episodes"));
}

#[test]
fn episodes_end_with_the_mean_and_standard_error() {
    let args = ["play", "--agent", "scripted", "--partner", "random", "--episodes", "4", "--horizon", "200"];
    let out = run_ok(&args);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 5, "{out}");
    let scores: Vec<f64> = lines[..4]
        .iter()
        .map(|l| l.split("score ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap())
        .collect();
    let mean = scores.iter().sum::<f64>() / 4.0;
    let sd = (scores.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 3.0).sqrt();
    let expected = format!(
        "mean score over 4 episodes: {mean:.1} ± {:.1} (mean ± standard error; scripted + random, seeds 0..=3)",
        sd / 2.0
    );
    assert_eq!(lines[4], expected);
    // With --json, stdout keeps one object per episode and the summary goes to stderr.
    let o = bin().args(args).arg("--json").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout).lines().count(), 4);
    assert!(String::from_utf8_lossy(&o.stderr).contains(&expected));
    // One episode: no summary line.
    assert_eq!(run_ok(&["play", "--agent", "scripted", "--horizon", "20"]).lines().count(), 1);
}

#[test]
fn play_says_where_the_transcript_went_and_never_overwrites_without_force() {
    let o = bin().args(["play", "--horizon", "10"]).output().unwrap();
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    let rel = err.lines().find_map(|l| l.strip_prefix("transcript: ")).expect("the transcript's path on stderr");
    assert!(rel.starts_with("transcripts/cramped_room-proagent_rule-based_-greedy-seat0-seed0-"), "{rel}");
    // The default is relative to the working directory: the tests' scratch one, not the repository.
    assert!(crate::support::scratch().join(rel).is_file());
    assert!(!std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(rel).exists());
    assert!(
        String::from_utf8_lossy(&o.stdout).starts_with("cramped_room seed 0: proagent[rule-based] (player 0) + greedy")
    );

    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.jsonl");
    let play =
        |extra: &[&str]| bin().args(["play", "--horizon", "10", "--transcript"]).arg(&t).args(extra).output().unwrap();
    assert!(play(&[]).status.success());
    let before = std::fs::read(&t).unwrap();
    let o = play(&["--seed", "1"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("t.jsonl already exists; pass --force to overwrite it"), "{err}");
    assert!(o.stdout.is_empty(), "nothing ran");
    assert_eq!(std::fs::read(&t).unwrap(), before, "the file is untouched");
    let o = play(&["--seed", "1", "--force"]);
    assert!(o.status.success());
    assert_ne!(std::fs::read(&t).unwrap(), before);
    // The per-episode files of --episodes N are checked before the first episode runs.
    std::fs::write(dir.path().join("t-seed3.jsonl"), "keep").unwrap();
    let o = play(&["--episodes", "2", "--seed", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!dir.path().join("t-seed2.jsonl").exists());
    assert_eq!(std::fs::read_to_string(dir.path().join("t-seed3.jsonl")).unwrap(), "keep");
}

#[test]
fn progress_lines_off_a_terminal() {
    let o = bin().args(["play", "--horizon", "60", "--no-transcript", "--progress-every", "0.001"]).output().unwrap();
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    let line = err.lines().find(|l| l.starts_with("progress: ")).unwrap_or_else(|| panic!("no progress line: {err}"));
    assert!(line.starts_with("progress: episode 1/1 seed 0 · step "), "{line}");
    assert!(line.contains("/60 · score ") && line.contains(" · LLM calls "), "{line}");
    assert!(line.contains("P0 proagent[rule-based]: "), "the current skill: {line}");
    assert!(!err.contains('\u{1b}'), "no terminal codes off a terminal: {err}");
    let o = bin()
        .args(["play", "--horizon", "60", "--no-transcript", "--progress-every", "0.001", "--no-progress"])
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&o.stderr).contains("progress:"));
    let o = bin().args(["play", "--progress-every", "0"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--progress-every"));
}

#[test]
fn logs_carry_no_colour_codes_off_a_terminal() {
    // RUST_LOG=info makes the run log; stderr is a pipe here, so no ANSI colours.
    let o = bin()
        .env("RUST_LOG", "info")
        .args(["eval", "--layouts", "cramped_room", "--agents", "scripted"])
        .args(["--partners", "stay", "--seats", "0", "--horizon", "5", "--quiet", "--no-report", "--out"])
        .arg(tempfile::tempdir().unwrap().path().join("o"))
        .output()
        .unwrap();
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("INFO") && err.contains("episode finished"), "{err}");
    assert!(!err.contains('\u{1b}'), "{err:?}");
}

#[test]
fn unknown_agents_are_named_as_agents_with_a_hint_for_model_names() {
    let out = bin().args(["play", "--partner", "nobody"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--partner: unknown agent \"nobody\"") && err.contains("greedy"), "{err}");
    let out = bin().args(["play", "--agent", "gpt4"]).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--agent: unknown agent \"gpt4\"") && !err.contains("partner"), "{err}");
    assert!(err.contains("proagent[model=gpt4]"), "{err}");
    // A bad option inside a ProAgent spec names the spec and the option.
    let out = bin().args(["play", "--agent", "proagent[memory_k=-2]"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("proagent[memory_k=-2]: memory_k=\"-2\""));
}

#[test]
fn two_proagents_with_their_own_settings_play_together_and_replay() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("pair.jsonl");
    let out = run_ok(&[
        "play",
        "--horizon",
        "40",
        "--agent",
        "proagent[memory_k=2,verificator=rules]",
        "--partner",
        "proagent[scripted,belief=off]",
        "--transcript",
        t.to_str().unwrap(),
    ]);
    assert!(
        out.starts_with(
            "cramped_room seed 0: proagent[rule-based,memory_k=2,verificator=rules] (player 0) + proagent[scripted,belief=off]"
        ),
        "{out}"
    );
    let header: serde_json::Value =
        serde_json::from_str(std::fs::read_to_string(&t).unwrap().lines().next().unwrap()).unwrap();
    let seats = &header["config"]["seats"];
    assert_eq!(seats[0]["proagent"]["memory_k"], 2);
    assert_eq!(seats[1]["proagent"]["belief"], "off");
    assert_eq!(seats[1]["label"], "proagent[scripted,belief=off]");
    let r = run_ok(&["replay", t.to_str().unwrap()]);
    assert!(r.starts_with("identical"), "{r}");
}

#[test]
fn bench_controller_reports_the_fields() {
    let out = run_ok(&["bench", "controller", "--episodes", "1", "--repeats", "1", "--json"]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["precompute_ms"].as_object().unwrap().len(), 5);
    assert!(v["precompute_ms_total"].as_f64().unwrap() > 0.0);
    assert!(v["decision_us"].as_f64().unwrap() > 0.0);
    assert!(v["decisions"].as_u64().unwrap() >= 800);
}

/// Runs `args` on a pseudo-terminal (util-linux `script`), returning everything it
/// printed; `None` where `script` is not installed.
fn on_a_terminal(args: &[&str], env: &[(&str, &str)]) -> Option<String> {
    if !std::path::Path::new("/usr/bin/script").exists() {
        eprintln!("skipped: /usr/bin/script (util-linux) is not installed");
        return None;
    }
    let cmd = std::iter::once(env!("CARGO_BIN_EXE_proagent"))
        .chain(args.iter().copied())
        .map(|a| format!("'{a}'"))
        .collect::<Vec<_>>()
        .join(" ");
    let out = std::process::Command::new("/usr/bin/script")
        .args(["-qec", &cmd, "/dev/null"])
        .current_dir(crate::support::scratch())
        .env_remove("NO_COLOR")
        .env_remove("RUST_LOG")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn on_a_terminal_a_live_progress_line_and_colour_unless_no_color() {
    let Some(out) = on_a_terminal(&["play", "--agent", "scripted", "--horizon", "30"], &[]) else { return };
    assert!(out.contains("episode 1/1 seed 0 [") && out.contains("/30 "), "{out}");
    assert!(out.contains("P0 scripted: "), "the current skill: {out}");
    assert!(!out.contains("progress: "), "no plain lines on a terminal: {out}");
    let sweep = ["eval", "--layouts", "cramped_room", "--agents", "scripted", "--partners", "stay", "--seats", "0"];
    let dir = tempfile::tempdir().unwrap();
    let args = |name: &str| -> Vec<String> {
        let out = dir.path().join(name).display().to_string();
        sweep
            .iter()
            .map(|s| s.to_string())
            .chain(["--horizon", "5", "--quiet", "--no-report", "--out"].map(String::from))
            .chain([out])
            .collect()
    };
    let a = args("a");
    let coloured = on_a_terminal(&a.iter().map(String::as_str).collect::<Vec<_>>(), &[("RUST_LOG", "info")]).unwrap();
    assert!(coloured.contains("episode finished") && coloured.contains('\u{1b}'), "{coloured:?}");
    let b = args("b");
    let plain =
        on_a_terminal(&b.iter().map(String::as_str).collect::<Vec<_>>(), &[("RUST_LOG", "info"), ("NO_COLOR", "1")])
            .unwrap();
    assert!(plain.contains("episode finished") && !plain.contains('\u{1b}'), "{plain:?}");
}

/// The `--json` summary of `play` with the game's default agent and partner (no `--agent`,
/// no `--partner`) on `layout`, the agent in `seat`.
fn default_pairing(layout: &str, seat: &str) -> serde_json::Value {
    let out = run_ok(&["play", "--layout", layout, "--seat", seat, "--no-transcript", "--no-progress", "--json"]);
    serde_json::from_str(out.trim()).unwrap()
}

#[test]
fn first_tries_with_the_defaults_score() {
    // The two first tries of issue 41: forced_coordination beside `greedy` scored 0 (it
    // never passes anything across the counter), Hanabi beside `simple` lost all lives.
    for seat in ["0", "1"] {
        let v = default_pairing("forced_coordination", seat);
        assert_eq!(v["partner"], "scripted", "{v}");
        assert!(v["score"].as_i64().unwrap() > 0, "forced_coordination, seat {seat}: {v}");
        let v = default_pairing("hanabi", seat);
        assert_eq!(v["partner"], "convention", "{v}");
        assert!(v["score"].as_i64().unwrap() > 0 && v["lives_lost"].as_u64().unwrap() < 3, "hanabi, seat {seat}: {v}");
    }
    // The README's main job keeps its partner and its figures.
    let v = default_pairing("cramped_room", "0");
    assert_eq!((v["partner"].as_str(), v["score"].as_i64()), (Some("greedy"), Some(240)), "{v}");
}

#[test]
fn every_builtin_layout_scores_with_its_default_pairing() {
    // Every game of the catalog, every built-in layout or scenario, seed 0, the agent in
    // seat 0: the default partner cooperates with the default agent well enough to score.
    for spec in proagent::games::catalog::all_builtin_specs() {
        let v = default_pairing(&spec, "0");
        assert!(v["score"].as_i64().unwrap() > 0, "{spec}: the default pairing scored nothing: {v}");
    }
}

#[test]
fn partner_help_lists_every_game_with_its_partners_and_defaults() {
    let help = run_ok(&["play", "--help"]);
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    let part = help.split("--partner <PARTNER>").nth(1).unwrap().split("--seat <SEAT>").next().unwrap();
    for spec in proagent::games::catalog::all_builtin_specs() {
        let (game, _) = proagent::games::AnyGame::load(&spec, &Default::default()).unwrap();
        let title = game.entry().title;
        let at = part.find(&format!("{title}: ")).unwrap_or_else(|| panic!("{title} missing: {part}"));
        let own = &part[at..];
        let own = &own[..own.find("); ").map_or(own.len(), |e| e + 1)];
        for s in game.known_specs() {
            assert!(own.contains(s), "{spec}: partner {s} is not listed: {own}");
        }
        let default = game.default_partner();
        assert!(
            own.contains(&format!("(default {default}")) || own.contains(&format!("{default} on {spec}")),
            "{spec}: its default {default} is not named: {own}"
        );
    }
}

#[test]
fn the_llmco_stand_in_cooks_with_scripted_and_with_itself_on_cramped_room() {
    // It used to idle in front of the pot its partner had to load: 0 or 60 beside
    // `scripted`, 0 in self-play, on every seed.
    for (partner, seat) in [("scripted", "0"), ("scripted", "1"), ("llmco", "0")] {
        let out = run_ok(&[
            "play",
            "--layout",
            "cramped_room",
            "--agent",
            "llmco",
            "--partner",
            partner,
            "--seat",
            seat,
            "--episodes",
            "3",
            "--no-transcript",
            "--no-progress",
            "--json",
        ]);
        for line in out.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert!(v["score"].as_i64().unwrap() >= 100, "{partner}, seat {seat}: {v}");
        }
    }
}
