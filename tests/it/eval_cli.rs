//! End-to-end checks of `proagent eval` and `proagent eval report` with the
//! built-in test runner (`--fake-episode-ms`): sweeps, resume after `kill -9`,
//! torn lines, shards, merging, hand-checked report numbers, malformed files.

use proagent::eval::store::EpisodeOutcome;
use proagent::eval::{EpisodeRecord, EpisodeSpec};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    crate::support::bin()
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "status {:?}\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// One layout × 2 agents × 2 partners × 2 seats × `episodes`.
fn sweep_args(out: &Path, episodes: u32, ms: u64, concurrency: u32) -> Vec<String> {
    [
        "eval",
        "--layouts",
        "cramped_room",
        "--agents",
        "scripted,greedy",
        "--partners",
        "greedy,stay",
        "--seats",
        "0,1",
        "--episodes",
        &episodes.to_string(),
        "--seed",
        "5",
        "--concurrency",
        &concurrency.to_string(),
        "--fake-episode-ms",
        &ms.to_string(),
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// config_hash → score, checking there are no duplicate lines.
fn results(path: &Path) -> BTreeMap<String, f64> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut m = BTreeMap::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let prev = m.insert(v["config_hash"].as_str().unwrap().to_string(), v["score"].as_f64().unwrap());
        assert!(prev.is_none(), "duplicate line for {}", v["config_hash"]);
    }
    m
}

fn line_count(path: &Path) -> usize {
    std::fs::read_to_string(path).map(|t| t.lines().count()).unwrap_or(0)
}

#[test]
fn small_sweep_writes_results_and_reports_and_a_rerun_plays_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let o = bin().args(sweep_args(&out, 2, 0, 4)).output().unwrap();
    let md = ok(&o);
    assert!(stderr(&o).contains("plan: 16 episodes; already finished: 0; to play: 16"), "{}", stderr(&o));
    assert!(md.contains("## Table 1 view"), "{md}");
    assert!(md.contains("## cramped_room: agent (player 0) × partner (player 1)"), "{md}");
    assert!(md.contains("## Cost per cell"), "{md}");
    for f in ["results.jsonl", "report.md", "report.csv", "table1.csv", "report.json", "heatmap-cramped_room.svg"] {
        assert!(out.join(f).exists(), "{f} missing");
    }
    let r = results(&out.join("results.jsonl"));
    assert_eq!(r.len(), 16);
    // Every line has the documented fields.
    let first: Value =
        serde_json::from_str(std::fs::read_to_string(out.join("results.jsonl")).unwrap().lines().next().unwrap())
            .unwrap();
    for k in [
        "layout",
        "agent",
        "partner",
        "seat",
        "seed",
        "config_hash",
        "score",
        "deliveries",
        "steps",
        "llm_calls",
        "prompt_tokens",
        "completion_tokens",
        "llm_wall_s",
        "episode_wall_s",
        "metrics",
        "transcript",
    ] {
        assert!(first.get(k).is_some(), "field {k} missing in {first}");
    }
    let svg = std::fs::read_to_string(out.join("heatmap-cramped_room.svg")).unwrap();
    assert!(svg.contains("scripted") && svg.contains("stay") && svg.contains("±"), "{svg}");
    // Both seats, one panel each, with the episode counts and a labelled colour bar.
    assert!(svg.contains("agent as player 0 × partner as player 1"), "{svg}");
    assert!(svg.contains("agent as player 1 × partner as player 0"), "{svg}");
    assert_eq!(svg.matches("\nn=2\n").count(), 8, "2 agents × 2 partners × 2 seats, 2 episodes each");
    assert!(svg.contains("mean score"), "{svg}");

    let o = bin().args(sweep_args(&out, 2, 0, 4)).output().unwrap();
    ok(&o);
    assert!(stderr(&o).contains("already finished: 16; to play: 0"), "{}", stderr(&o));
    assert_eq!(line_count(&out.join("results.jsonl")), 16);
    // Raising --episodes plays only the new episodes.
    let o = bin().args(sweep_args(&out, 3, 0, 4)).output().unwrap();
    ok(&o);
    assert!(stderr(&o).contains("plan: 24 episodes; already finished: 16; to play: 8"), "{}", stderr(&o));
    assert_eq!(results(&out.join("results.jsonl")).len(), 24);
}

#[test]
fn resume_after_kill_matches_an_uninterrupted_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let full = dir.path().join("full");
    let killed = dir.path().join("killed");
    ok(&bin().args(sweep_args(&full, 3, 0, 4)).output().unwrap());
    let reference = results(&full.join("results.jsonl"));
    assert_eq!(reference.len(), 24);

    // 24 episodes of 150 ms, 2 at a time: 1.8 s. Kill once a few have been recorded.
    let results_path = killed.join("results.jsonl");
    let mut child =
        bin().args(sweep_args(&killed, 3, 150, 2)).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let t0 = Instant::now();
    while line_count(&results_path) < 4 {
        assert!(t0.elapsed() < Duration::from_secs(60), "the sweep never recorded 4 episodes");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert!(!status.success());
    let partial = results(&results_path);
    assert!(partial.len() >= 4 && partial.len() < 24, "killed after {} episodes", partial.len());
    for (k, s) in &partial {
        assert_eq!(reference.get(k), Some(s));
    }

    // A write cut short by the kill: half of the line of an episode not yet recorded.
    let full_text = std::fs::read_to_string(full.join("results.jsonl")).unwrap();
    let missing = full_text
        .lines()
        .find(|l| {
            let v: Value = serde_json::from_str(l).unwrap();
            !partial.contains_key(v["config_hash"].as_str().unwrap())
        })
        .unwrap();
    let mut text = std::fs::read_to_string(&results_path).unwrap();
    text.push_str(&missing[..missing.len() / 2]);
    std::fs::write(&results_path, text).unwrap();

    let o = bin().args(sweep_args(&killed, 3, 0, 4)).output().unwrap();
    ok(&o);
    let err = stderr(&o);
    assert!(err.contains(&format!("results.jsonl:{}: last line is incomplete", partial.len() + 1)), "{err}");
    assert!(err.contains(&format!("already finished: {}; to play: {}", partial.len(), 24 - partial.len())), "{err}");
    let resumed = results(&results_path);
    assert_eq!(resumed, reference, "same keys, same scores, no duplicates");

    // The resumed report equals the uninterrupted one apart from wall times.
    assert_eq!(report_without_times(&killed), report_without_times(&full));
}

#[test]
fn shards_partition_the_sweep_and_report_merges_them() {
    let dir = tempfile::tempdir().unwrap();
    let whole = dir.path().join("whole");
    let shared = dir.path().join("shared");
    ok(&bin().args(sweep_args(&whole, 2, 0, 4)).output().unwrap());
    let mut total = 0;
    for i in 0..3 {
        let mut args = sweep_args(&shared, 2, 0, 4);
        args.extend(["--shard".to_string(), format!("{i}/3")]);
        let o = bin().args(&args).output().unwrap();
        assert!(ok(&o).is_empty(), "a shard prints no report");
        assert!(stderr(&o).contains("when every shard has finished"), "{}", stderr(&o));
        total += results(&shared.join(format!("results.shard-{i}-of-3.jsonl"))).len();
    }
    assert_eq!(total, 16, "the shards cover the plan exactly once");
    let merged = dir.path().join("merged");
    let o = bin().args(["eval", "report"]).arg(&shared).arg("--out").arg(&merged).output().unwrap();
    let md = ok(&o);
    let whole_md = std::fs::read_to_string(whole.join("report.md")).unwrap();
    assert_eq!(before_cost_table(&md), before_cost_table(&whole_md));
    assert_eq!(report_without_times(&merged), report_without_times(&whole));
    // Merging the whole sweep with the shards: every episode twice, identical, counted once.
    let o = bin().args(["eval", "report"]).arg(&whole).arg(&shared).arg("--out").arg(&merged).output().unwrap();
    ok(&o);
    assert!(stderr(&o).contains("16 identical duplicate episodes counted once"), "{}", stderr(&o));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(merged.join("report.json")).unwrap()).unwrap();
    assert_eq!(v["totals"]["episodes"], 16);
    // Several inputs need --out.
    let o = bin().args(["eval", "report"]).arg(&whole).arg(&shared).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--out"), "{}", stderr(&o));
}

/// The Markdown report up to the cost table (which holds wall times, different in every run).
fn before_cost_table(md: &str) -> String {
    md[..md.find("## Cost per cell").unwrap()].to_string()
}

/// `report.json` without wall times.
fn report_without_times(dir: &Path) -> Value {
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    for c in v["cells"].as_array_mut().unwrap() {
        c.as_object_mut().unwrap().remove("episode_wall_s");
        c.as_object_mut().unwrap().remove("llm_wall_s");
    }
    v.as_object_mut().unwrap().remove("totals");
    v
}

fn record(agent: &str, partner: &str, seat: u8, seed: u64, score: f64, calls: u64) -> EpisodeRecord {
    let spec = EpisodeSpec {
        runner: "play".into(),
        runner_config: String::new(),
        layout: "cramped_room".into(),
        layout_sha256: "0".into(),
        agent: agent.into(),
        partner: partner.into(),
        seat,
        seed,
        horizon: 400,
    };
    let outcome = EpisodeOutcome {
        score,
        deliveries: (score / 20.0) as u32,
        steps: 400,
        llm_calls: calls,
        parse_failures: 0,
        prompt_tokens: calls * 1000,
        completion_tokens: calls * 50,
        reasoning_tokens: 0,
        cached_tokens: 0,
        llm_wall_s: calls as f64 * 0.5,
        metrics: Value::Null,
        teamwork: None,
        transcript: None,
        held_wait_max: None,
    };
    EpisodeRecord::new(&spec, spec.config_hash(), outcome, 10.0, None)
}

#[test]
fn report_numbers_match_hand_computation() {
    let dir = tempfile::tempdir().unwrap();
    let recs = [
        record("proagent", "greedy", 0, 0, 200.0, 40),
        record("proagent", "greedy", 0, 1, 160.0, 38),
        record("proagent", "greedy", 0, 2, 180.0, 42),
        record("proagent", "stay", 0, 0, 40.0, 50),
        record("proagent", "stay", 0, 1, 60.0, 50),
        record("proagent", "greedy", 1, 0, 100.0, 30),
    ];
    let text: String = recs.iter().map(|r| r.to_line()).collect();
    std::fs::write(dir.path().join("results.jsonl"), text).unwrap();
    let o = bin().args(["eval", "report"]).arg(dir.path()).output().unwrap();
    let md = ok(&o);
    // proagent × greedy, seat 0: 200, 160, 180 → mean 180, sd 20, se 20/√3 = 11.547.
    // proagent × stay, seat 0: 40, 60 → mean 50, sd 14.142, se 10.
    // Table 1, seat 0, over both partners: 200,160,180,40,60 → mean 128;
    // deviations 72, 32, 52, -88, -68 → squares 5184+1024+2704+7744+4624 = 21280;
    // var 21280/4 = 5320, sd 72.938, se 72.938/√5 = 32.619.
    assert!(md.contains("| cramped_room | P0 | 128.0 ± 32.6 |"), "{md}");
    assert!(md.contains("| cramped_room | P1 | 100.0 ± – |"), "{md}");
    assert!(md.contains("| proagent | 180.0 ± 11.5 (n=3) | 50.0 ± 10.0 (n=2) |"), "{md}");
    assert!(
        md.contains(
            "| cramped_room | proagent | greedy | P0 | 3 | 180.0 ± 11.5 | 120 | 120000 | 6000 | 60.00 | 30.00 |"
        ),
        "{md}"
    );
    assert!(md.contains("| **total** | | | | 6 | | 250 | 250000 | 12500 | 125.00 | 60.00 |"), "{md}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap()).unwrap();
    let t1 = v["table1"].as_array().unwrap().iter().find(|e| e["seat"] == 0).unwrap();
    assert_eq!(t1["mean"], 128.0);
    assert_eq!(t1["n"], 5);
    assert_eq!(t1["partners"], 2);
    assert!((t1["se"].as_f64().unwrap() - (5320.0f64).sqrt() / 5f64.sqrt()).abs() < 1e-9);
    let csv = std::fs::read_to_string(dir.path().join("report.csv")).unwrap();
    let row = csv.lines().find(|l| l.starts_with("cramped_room,proagent,stay,0,")).unwrap();
    let f: Vec<&str> = row.split(',').collect();
    assert_eq!(f[4], "2");
    assert_eq!(f[5], "50");
    assert!((f[7].parse::<f64>().unwrap() - 10.0).abs() < 1e-9);
    assert_eq!(&f[8..11], ["100", "100000", "5000"]);
    let t1csv = std::fs::read_to_string(dir.path().join("table1.csv")).unwrap();
    assert!(t1csv.lines().any(|l| l.starts_with("cramped_room,1,proagent,1,1,100,,")), "{t1csv}");
}

/// Issue 25: every results line carries a checksum; an edited score is named, by
/// `eval report` and by a resumed sweep, instead of being counted. Issue 37: a line whose
/// checksum was removed (or written before checksums) still loads, but is left out of
/// every mean unless `--include-unchecked`, and the report says how many.
#[test]
fn an_edited_result_line_is_named_not_counted() {
    let dir = tempfile::tempdir().unwrap();
    ok(&bin().args(sweep_args(dir.path(), 1, 0, 2)).output().unwrap());
    let path = dir.path().join("results.jsonl");
    let good = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    assert_eq!(lines.len(), 8);
    assert!(lines.iter().all(|l| l.contains(r#","checksum":"sha256:"#)), "{good}");
    // Without checksums this edit would pass every other check: the key does not cover the score.
    let edited = lines[2].replacen(r#""score":"#, r#""score":1"#, 1);
    assert_ne!(edited, lines[2]);
    let mut text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    text[2] = edited;
    std::fs::write(&path, text.join("\n") + "\n").unwrap();
    let o = bin().args(["eval", "report"]).arg(dir.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("results.jsonl:3: malformed result record: checksum mismatch"), "{err}");
    assert!(err.contains("edited or damaged"), "{err}");
    let o = bin().args(sweep_args(dir.path(), 1, 0, 2)).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "resume refuses too: {}", stderr(&o));
    assert!(stderr(&o).contains("results.jsonl:3: malformed result record: checksum mismatch"), "{}", stderr(&o));

    // The edited record with its checksum removed, as a build before checksums wrote its
    // lines: it loads (a resume does not play it again), but no mean counts it unless asked.
    let mut old: Value = serde_json::from_str(&text[2]).unwrap();
    old.as_object_mut().unwrap().remove("checksum");
    let edited_score = old["score"].as_f64().unwrap();
    text[2] = old.to_string();
    std::fs::write(&path, text.join("\n") + "\n").unwrap();
    let report_json = || -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap()).unwrap()
    };
    let cell_of = |r: &Value| -> Option<Value> {
        r["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| ["layout", "agent", "partner", "seat"].iter().all(|k| c[*k] == old[*k]))
            .cloned()
    };
    let o = bin().args(["eval", "report"]).arg(dir.path()).output().unwrap();
    let md = ok(&o);
    assert!(
        stderr(&o).contains("note: 1 result records carry no checksum")
            && stderr(&o).contains("left out of the report"),
        "{}",
        stderr(&o)
    );
    assert!(
        md.contains("**Note:** 1 result records carry no checksum") && md.contains("left out of every number"),
        "{md}"
    );
    let r = report_json();
    assert_eq!((r["totals"]["episodes"].as_u64(), r["cells"].as_array().unwrap().len()), (Some(7), 7), "{r}");
    assert_eq!(r["unchecked"], serde_json::json!({"excluded": 1, "included": 0}));
    assert!(cell_of(&r).is_none(), "the unchecked record's cell is in the report: {r}");
    let o = bin().args(["eval", "report", "--include-unchecked"]).arg(dir.path()).output().unwrap();
    let md = ok(&o);
    assert!(md.contains("**Note:** 1 result records carry no checksum and are counted"), "{md}");
    let r = report_json();
    assert_eq!((r["totals"]["episodes"].as_u64(), r["unchecked"]["included"].as_u64()), (Some(8), Some(1)), "{r}");
    assert_eq!(cell_of(&r).unwrap()["mean"].as_f64(), Some(edited_score));
    // A resume counts it as finished; its report at the end leaves it out just the same.
    let o = bin().args(sweep_args(dir.path(), 1, 0, 2)).output().unwrap();
    ok(&o);
    assert!(stderr(&o).contains("already finished: 8; to play: 0"), "{}", stderr(&o));
    assert!(stderr(&o).contains("left out of the report; --include-unchecked counts them"), "{}", stderr(&o));
    assert_eq!(report_json()["totals"]["episodes"].as_u64(), Some(7));
    let o = bin().args(sweep_args(dir.path(), 1, 0, 2)).arg("--include-unchecked").output().unwrap();
    ok(&o);
    assert_eq!(report_json()["totals"]["episodes"].as_u64(), Some(8));
    // Only unchecked records: no report, and the flag to ask for one.
    std::fs::write(&path, text[2].clone() + "\n").unwrap();
    let o = bin().args(["eval", "report"]).arg(dir.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("all 1 carry none") && stderr(&o).contains("--include-unchecked"), "{}", stderr(&o));
}

#[test]
fn malformed_and_conflicting_result_files_give_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let a = record("x", "y", 0, 0, 20.0, 0).to_line();
    let b = record("x", "y", 0, 1, 40.0, 0).to_line();
    std::fs::write(dir.path().join("results.jsonl"), format!("{a}{{\"layout\": 3,\n{b}")).unwrap();
    let o = bin().args(["eval", "report"]).arg(dir.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("results.jsonl:2: malformed result record"), "{err}");
    assert!(err.contains("{\"layout\": 3,"), "{err}");
    // A sweep refuses to append to such a file.
    let o = bin().args(sweep_args(dir.path(), 1, 0, 1)).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("results.jsonl:2: malformed"), "{}", stderr(&o));

    let d1 = dir.path().join("one");
    let d2 = dir.path().join("two");
    std::fs::create_dir_all(&d1).unwrap();
    std::fs::create_dir_all(&d2).unwrap();
    std::fs::write(d1.join("results.jsonl"), &a).unwrap();
    std::fs::write(d2.join("results.jsonl"), record("x", "y", 0, 0, 60.0, 0).to_line()).unwrap();
    let o = bin().args(["eval", "report"]).arg(&d1).arg(&d2).arg("--out").arg(dir.path()).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("conflicting results") && err.contains("score 20 vs 60"), "{err}");
    assert!(err.contains("one/results.jsonl:1") && err.contains("two/results.jsonl:1"), "{err}");

    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = bin().args(["eval", "report"]).arg(&empty).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("no finished episodes"), "{}", stderr(&o));
}

#[test]
fn bad_arguments_are_rejected_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let run = |extra: &[&str]| {
        let mut args = sweep_args(&out, 1, 0, 1);
        args.extend(extra.iter().map(|s| s.to_string()));
        bin().args(&args).output().unwrap()
    };
    let o = run(&["--shard", "3/3"]);
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("i must be smaller than n"), "{}", stderr(&o));
    let o = run(&["--seats", "2"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("'--seats <SEATS>': 2 is not in 0..=1"), "{}", stderr(&o));
    let o = run(&["--layouts", "no_such_kitchen"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown layout \"no_such_kitchen\""), "{}", stderr(&o));
    assert!(!out.join("results.jsonl").exists());
}

#[test]
fn real_episodes_with_scripted_partners_match_play() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("real");
    let o = bin()
        .args(["eval", "--layouts", "all", "--agents", "scripted", "--partners", "greedy,scripted", "--seats", "0,1"])
        .args(["--episodes", "2", "--concurrency", "4", "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let md = ok(&o);
    assert!(md.contains("40 episodes · 5 layouts · 1 agent · 2 partners"), "{md}");
    for layout in
        ["cramped_room", "asymmetric_advantages", "coordination_ring", "forced_coordination", "counter_circuit"]
    {
        assert!(out.join(format!("heatmap-{layout}.svg")).exists());
    }
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert_eq!(text.lines().count(), 40);
    // Every recorded episode is the episode `proagent play` plays with the same arguments.
    for line in
        text.lines().filter(|l| l.contains("\"layout\":\"forced_coordination\"") || l.contains("\"seed\":1,")).take(4)
    {
        let r: Value = serde_json::from_str(line).unwrap();
        let seat = r["seat"].as_u64().unwrap().to_string();
        let seed = r["seed"].as_u64().unwrap().to_string();
        let p = bin()
            .args([
                "play",
                "--json",
                "--layout",
                r["layout"].as_str().unwrap(),
                "--agent",
                r["agent"].as_str().unwrap(),
            ])
            .args(["--partner", r["partner"].as_str().unwrap(), "--seat", &seat, "--seed", &seed])
            .output()
            .unwrap();
        let play: Value = serde_json::from_str(ok(&p).trim()).unwrap();
        assert_eq!(play, r["metrics"], "{line}");
        assert_eq!(play["score"].as_f64(), r["score"].as_f64());
    }
    // An unknown partner spec is refused before anything runs.
    let o = bin()
        .args(["eval", "--layouts", "cramped_room", "--agents", "scripted", "--partners", "grredy", "--out"])
        .arg(dir.path().join("bad"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--partners: unknown agent \"grredy\""), "{}", stderr(&o));
}

#[test]
fn bench_eval_runs_the_scheduler_and_reports_json() {
    let o = bin()
        .args(["bench", "eval", "--episodes", "8", "--concurrency", "4", "--episode-ms", "0", "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(ok(&o).trim()).unwrap();
    assert_eq!(v["records"], 8);
    assert_eq!(v["episodes"], 8);
    let o = bin()
        .args([
            "bench",
            "eval",
            "--episodes",
            "4",
            "--concurrency",
            "4",
            "--llm-calls",
            "2",
            "--mock-latency-ms",
            "50",
            "--json",
        ])
        .output()
        .unwrap();
    let v: Value = serde_json::from_str(ok(&o).trim()).unwrap();
    assert!(v["one_episode_s"].as_f64().unwrap() >= 0.1, "{v}");
    assert!(v["ratio"].as_f64().unwrap() > 0.5, "{v}");
}

#[test]
fn proagent_seats_take_the_proagent_flags_and_changing_them_replays_only_their_episodes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pa");
    let sweep = |extra: &[&str]| {
        bin()
            .args(["eval", "--layouts", "cramped_room", "--agents", "proagent,scripted", "--partners", "greedy"])
            .args(["--seats", "0", "--episodes", "1", "--horizon", "100", "--concurrency", "2", "--quiet", "--out"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    let o = sweep(&[]);
    let md = ok(&o);
    assert!(!md.contains("Warning"), "{md}");
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let recs: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // A ProAgent is named by its model in every record.
    let pa = recs.iter().find(|r| r["agent"] == "proagent[rule-based]").unwrap();
    let sc = recs.iter().find(|r| r["agent"] == "scripted").unwrap();
    assert!(pa["llm_calls"].as_u64().unwrap() > 0 && pa["prompt_tokens"].as_u64().unwrap() > 0, "{pa}");
    assert_eq!(pa["runner_config"].as_str().unwrap().len(), 64);
    // Every real episode's key covers the code version, so a non-LLM one has a fingerprint too.
    assert_eq!(sc["runner_config"].as_str().unwrap().len(), 64);
    assert_ne!(sc["runner_config"], pa["runner_config"]);
    assert_eq!(sc["llm_calls"], 0);
    assert_eq!(pa["agent_settings"]["model"]["model"], "rule-based");
    assert_eq!(pa["agent_settings"]["settings"]["memory_k"], 1);
    assert!(pa["agent_settings"]["code"].as_str().unwrap().starts_with("0.1.0+"));
    assert_eq!(sc["partner_settings"]["code"], pa["agent_settings"]["code"]);
    // The same episode as `proagent play`.
    let p = bin()
        .args(["play", "--json", "--layout", "cramped_room", "--agent", "proagent", "--partner", "greedy"])
        .args(["--seat", "0", "--seed", "0", "--horizon", "100"])
        .output()
        .unwrap();
    let play: Value = serde_json::from_str(ok(&p).trim()).unwrap();
    assert_eq!(play, pa["metrics"]);

    // Another ProAgent setting: only the ProAgent episode is played again, under its own name.
    let o = sweep(&["--memory-k", "2"]);
    let md = ok(&o);
    assert!(stderr(&o).contains("already finished: 1; to play: 1"), "{}", stderr(&o));
    assert!(md.contains("| proagent[rule-based,memory_k=2] (rule-based stand-in, not an LLM) |"), "{md}");
    // The same switch as an option of the spec is the same seat: nothing to play.
    let o = bin()
        .args([
            "eval",
            "--layouts",
            "cramped_room",
            "--agents",
            "proagent[memory_k=2],scripted",
            "--partners",
            "greedy",
        ])
        .args(["--seats", "0", "--episodes", "1", "--horizon", "100", "--concurrency", "2", "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    ok(&o);
    assert!(stderr(&o).contains("already finished: 2; to play: 0"), "{}", stderr(&o));
    // An edited template in the same prompts directory: same name, new key, replayed,
    // and the two settings pooled in one directory are flagged by `eval report`.
    let prompts = dir.path().join("prompts");
    std::fs::create_dir_all(prompts.join("agent")).unwrap();
    let scene = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/prompts/agent/scene.j2")).unwrap();
    std::fs::write(prompts.join("agent/scene.j2"), format!("{scene}{{# version 1 #}}")).unwrap();
    let flag = ["--prompts", prompts.to_str().unwrap()];
    ok(&sweep(&flag));
    std::fs::write(prompts.join("agent/scene.j2"), format!("{scene}{{# version 2 #}}")).unwrap();
    let o = sweep(&flag);
    ok(&o);
    assert!(stderr(&o).contains("already finished: 1; to play: 1"), "{}", stderr(&o));
    let o = bin().args(["eval", "report"]).arg(&out).output().unwrap();
    ok(&o);
    let label = format!("proagent[rule-based,prompts={}]", prompts.display());
    assert!(
        stderr(&o).contains(&format!("cramped_room {label} × greedy seat 0: 2 episodes pool 2 different settings")),
        "{}",
        stderr(&o)
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_eq!(v["settings"][&label].as_array().unwrap().len(), 2, "both settings are on record");
    // A bad ProAgent flag is refused up front.
    let o = sweep(&["--max-replans", "99"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--max-replans"), "{}", stderr(&o));
}

#[test]
fn proagent_episodes_write_transcripts_that_replay() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sweep");
    let run = bin()
        .args(["eval", "--layouts", "cramped_room,forced_coordination", "--agents", "proagent", "--partners"])
        .args(["greedy,scripted", "--seats", "0,1", "--episodes", "1", "--horizon", "40", "--concurrency", "2"])
        .args(["--quiet", "--no-report", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    ok(&run);
    let results = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let mut replayed = 0;
    for line in results.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let rel = v["transcript"].as_str().expect("a proagent episode records its transcript");
        let replay = bin().arg("replay").arg(out.join(rel)).output().unwrap();
        assert!(replay.status.success(), "{}", String::from_utf8_lossy(&replay.stdout));
        assert!(String::from_utf8_lossy(&replay.stdout).starts_with("identical"));
        replayed += 1;
    }
    assert_eq!(replayed, 8);
}

#[test]
fn sweeps_over_models_and_switches_name_every_row_and_pair_two_proagents() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("models");
    let o = bin()
        .args(["eval", "--layouts", "cramped_room", "--agents"])
        .arg("proagent[model=scripted],proagent[scripted,memory_k=3,verificator=rules]")
        .args(["--agents", "scripted", "--partners", "greedy,proagent[belief=off]", "--seats", "0,1"])
        .args(["--horizon", "40", "--concurrency", "4", "--quiet", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let md = ok(&o);
    assert!(stderr(&o).contains("plan: 12 episodes"), "3 agents × 2 partners × 2 seats: {}", stderr(&o));
    let names = ["proagent[scripted]", "proagent[scripted,memory_k=3,verificator=rules]", "scripted"];
    for name in names {
        let mark = if name.starts_with("proagent") { " (rule-based stand-in, not an LLM)" } else { "" };
        assert!(md.contains(&format!("| {name}{mark} |")), "row {name}: {md}");
    }
    assert!(
        md.contains(
            "| agent \\ partner | greedy | proagent[rule-based,belief=off] (rule-based stand-in, not an LLM) |"
        ),
        "{md}"
    );
    let text = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    let recs: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let keys: std::collections::HashSet<&str> = recs.iter().map(|r| r["config_hash"].as_str().unwrap()).collect();
    assert_eq!(keys.len(), 12, "every row and seat keyed separately");
    // Two ProAgents together: both seats talk to their model, each with its own settings.
    let pair = recs
        .iter()
        .find(|r| r["agent"] == names[1] && r["partner"] == "proagent[rule-based,belief=off]" && r["seat"] == 1)
        .unwrap();
    assert_eq!(pair["agent_settings"]["settings"]["verificator"], "rules");
    assert_eq!(pair["partner_settings"]["settings"]["belief"], "off");
    assert_eq!(pair["metrics"]["agent"], names[1]);
    assert_eq!(pair["metrics"]["partner"], "proagent[rule-based,belief=off]");
    // The transcript records each seat's settings and replays.
    let t = out.join(pair["transcript"].as_str().unwrap());
    let replay = bin().arg("replay").arg(&t).output().unwrap();
    assert!(ok(&replay).starts_with("identical"));
    // Every exchange says which seat asked.
    let lines: Vec<Value> =
        std::fs::read_to_string(&t).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let seats: std::collections::BTreeSet<u64> = lines
        .iter()
        .filter(|l| l["type"] == "exchange")
        .map(|x| x["seat"].as_u64().unwrap_or_else(|| panic!("no seat: {x}")))
        .collect();
    assert_eq!(seats.into_iter().collect::<Vec<_>>(), vec![0, 1]);
    // report.json carries the full settings of every name; the heatmap names the models.
    let v: Value = serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    let s = &v["settings"][names[1]][0];
    assert_eq!((s["settings"]["memory_k"].as_u64(), s["model"]["model"].as_str()), (Some(3), Some("scripted")));
    assert!(s["prompts_sha256"].as_str().is_some_and(|h| h.len() == 64), "{s}");
    assert_eq!(v["settings"]["greedy"][0]["code"], s["code"]);
    assert_eq!(v["horizons"], serde_json::json!([40]));
    let svg = std::fs::read_to_string(out.join("heatmap-cramped_room.svg")).unwrap();
    assert!(svg.contains("proagent[scripted,memory_k=3,verificator=rules]"), "{svg}");
    // A list whose brackets do not close is refused, naming the spec.
    let o = bin()
        .args(["eval", "--layouts", "cramped_room", "--agents", "proagent[model=a,memory_k=3", "--partners"])
        .args(["greedy", "--out"])
        .arg(dir.path().join("bad"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--agents: \"proagent[model=a,memory_k=3\""), "{}", stderr(&o));
}

#[test]
fn plain_progress_lines_when_stderr_is_not_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let mut args = sweep_args(&dir.path().join("p"), 2, 40, 1);
    args.retain(|a| a != "--quiet");
    let o = bin().args(&args).args(["--progress-every", "0.1", "--no-report"]).output().unwrap();
    ok(&o);
    let err = stderr(&o);
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("progress: ")).collect();
    // 16 episodes of 40 ms one at a time: about 0.64 s, a line every 0.1 s.
    assert!(lines.len() >= 3, "{err}");
    assert!(lines.iter().all(|l| l.contains("/16 episodes (0 failed, ") && l.contains(" elapsed")), "{err}");
    assert!(!err.contains('\u{1b}'), "no terminal codes: {err:?}");
    let o = bin().args(sweep_args(&dir.path().join("q"), 2, 40, 1)).args(["--progress-every", "0.1"]).output().unwrap();
    assert!(!stderr(&ok_status(o)).contains("progress: "), "--quiet means none");
}

fn ok_status(o: Output) -> Output {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    o
}

#[test]
fn an_os_error_is_reported_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    // results.jsonl is a directory: opening it fails with the OS's message.
    std::fs::create_dir_all(out.join("results.jsonl")).unwrap();
    let o = bin().args(sweep_args(&out, 1, 0, 1)).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    let line = err.lines().find(|l| l.starts_with("error: ")).unwrap();
    assert!(line.contains("results.jsonl"), "{err}");
    let os = line.rsplit(": ").next().unwrap();
    assert!(os.contains("os error"), "{line}");
    assert_eq!(line.matches(os).count(), 1, "the OS message once: {line}");
}

#[test]
fn dry_run_counts_calls_and_tokens_per_model_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("sweep");
    let out = crate::support::bin()
        .args([
            "eval",
            "--layouts",
            "cramped_room",
            "--agents",
            "proagent[model=gpt-4o],proagent[model=llama3.1:8b],greedy",
        ])
        .args(["--partners", "greedy", "--seats", "0", "--episodes", "3", "--horizon", "60", "--dry-run"])
        .args(["--price-per-mtok", "2.5,10"])
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{s}\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(!out_dir.exists(), "a dry run wrote {}", out_dir.display());
    assert!(s.contains("dry run: 9 episodes, 6 with a language-model seat"), "{s}");
    let row = |m: &str| {
        s.lines().find(|l| l.starts_with(&format!("| {m} |"))).unwrap_or_else(|| panic!("{m}: {s}")).to_string()
    };
    let cols = |l: &str| l.split('|').map(|c| c.trim().to_string()).collect::<Vec<_>>();
    let gpt = cols(&row("gpt-4o"));
    let llama = cols(&row("llama3.1:8b"));
    assert_eq!(gpt[2], "3");
    assert_eq!(gpt[6], "o200k_base");
    assert!(llama[6].contains("estimate"), "{s}");
    // Same plays (the stand-in plans the same for both), counted by two tokenizers.
    assert_eq!(gpt[3], llama[3]);
    let calls: u64 = gpt[3].parse().unwrap();
    let prompt: u64 = gpt[4].parse().unwrap();
    assert!(calls > 0 && calls.is_multiple_of(3) && prompt > calls * 500, "{s}");
    let bound: u64 = gpt[5].split('/').nth(1).unwrap().trim().parse().unwrap();
    assert_eq!(bound, calls * 256);
    let price: f64 = gpt[7].parse().unwrap();
    let want = (prompt as f64 * 2.5 + bound as f64 * 10.0) / 1e6;
    assert!((price - want).abs() < 0.006, "{price} vs {want}");
    // The same command gives the same figures.
    let again = crate::support::bin()
        .args([
            "eval",
            "--layouts",
            "cramped_room",
            "--agents",
            "proagent[model=gpt-4o],proagent[model=llama3.1:8b],greedy",
        ])
        .args(["--partners", "greedy", "--seats", "0", "--episodes", "3", "--horizon", "60", "--dry-run"])
        .args(["--price-per-mtok", "2.5,10"])
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&again.stdout), s);
}

#[test]
fn a_large_served_run_without_a_terminal_needs_yes() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("sweep");
    let out = crate::support::bin()
        .args(["eval", "--layouts", "cramped_room", "--agents", "proagent[model=gpt-4o]", "--partners", "greedy"])
        .args(["--episodes", "2", "--confirm-above", "3"])
        .arg("--out")
        .arg(&out_dir)
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{e}");
    assert!(e.contains("4 episodes with a served model (gpt-4o)") && e.contains("pass --yes"), "{e}");
    assert!(!out_dir.exists());
    let out = crate::support::bin()
        .args(["play", "--agent", "proagent[model=gpt-4o]", "--episodes", "2", "--confirm-above", "1"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains("pass --yes"), "{e}");
    // The stand-in costs nothing and never asks.
    let out = crate::support::bin()
        .args(["play", "--episodes", "2", "--horizon", "20", "--confirm-above", "0", "--no-transcript", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn presets_are_per_seat_and_stand_in_rows_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::support::bin()
        .args(["eval", "--layouts", "cramped_room", "--agents", "proagent,proagent[preset=paper],proagent[scripted]"])
        .args(["--partners", "greedy", "--seats", "0", "--episodes", "1", "--horizon", "30", "--quiet", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{md}{}", String::from_utf8_lossy(&out.stderr));
    for row in ["proagent[rule-based]", "proagent[rule-based,preset=paper]", "proagent[scripted]"] {
        assert!(md.contains(&format!("| {row} (rule-based stand-in, not an LLM) |")), "{row}: {md}");
    }
    let recs = std::fs::read_to_string(dir.path().join("results.jsonl")).unwrap();
    let paper: serde_json::Value = recs
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|r| r["agent"] == "proagent[rule-based,preset=paper]")
        .unwrap();
    assert_eq!(paper["agent_settings"]["settings"]["preset"], "paper");
    assert_eq!(paper["agent_settings"]["settings"]["belief"], "off");
    // A bad preset names the seat.
    let out = crate::support::bin()
        .args([
            "eval",
            "--layouts",
            "cramped_room",
            "--agents",
            "proagent[preset=fast]",
            "--partners",
            "greedy",
            "--out",
        ])
        .arg(dir.path().join("bad"))
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains("preset=fast") && e.contains("default or paper"), "{e}");
}

#[test]
fn an_agent_waiting_with_a_dish_is_flagged_stuck_per_cell() {
    // Issue 28: the stand-in with `courier` on cramped_room holds a dish and waits for the
    // last ~345 steps; with `greedy` it keeps cooking.
    let dir = tempfile::tempdir().unwrap();
    let out = crate::support::bin()
        .args(["eval", "--layouts", "cramped_room", "--agents", "proagent", "--partners", "courier,greedy"])
        .args(["--seats", "0", "--quiet", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    let md = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{md}{}", String::from_utf8_lossy(&out.stderr));
    let section = &md[md.find("## Stuck agents").unwrap_or_else(|| panic!("{md}"))..];
    assert!(section.contains("more than 100 steps"), "{section}");
    assert!(section.contains("| courier | P0 | 1 | 1 |"), "{section}");
    assert!(!section.contains("| greedy |"), "{section}");
    let recs: Vec<Value> = std::fs::read_to_string(dir.path().join("results.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let wait = |p: &str| recs.iter().find(|r| r["partner"] == p).unwrap()["held_wait_max"].as_u64().unwrap();
    assert!(wait("courier") > 300 && wait("greedy") < 100, "{} {}", wait("courier"), wait("greedy"));
    let json: Value = serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap()).unwrap();
    assert!(json.to_string().contains("\"stuck\":1"), "{json}");
}

#[test]
fn turn_games_without_progress_are_flagged_stuck() {
    // The LLM-Co stand-in with itself on capture:4 walks nowhere for 28 of its 30 turns;
    // with the greedy baseline it catches the thief. Hanabi with `convention` keeps playing.
    let sweep = |layout: &str, partners: &str| {
        let dir = tempfile::tempdir().unwrap();
        let out = crate::support::bin()
            .args(["eval", "--layouts", layout, "--agents", "llmco", "--partners", partners])
            .args(["--seats", "0", "--quiet", "--out"])
            .arg(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let recs: Vec<Value> = std::fs::read_to_string(dir.path().join("results.jsonl"))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        (String::from_utf8_lossy(&out.stdout).into_owned(), recs)
    };
    let (md, recs) = sweep("capture:4", "llmco,greedy_baseline");
    let section = &md[md.find("## Stuck agents").unwrap_or_else(|| panic!("{md}"))..];
    let section = &section[..section.find("\nUnparsed replies").unwrap_or(section.len())];
    assert!(section.contains("CollabCapture 8") && section.contains("Hanabi 60"), "{section}");
    assert!(section.contains("| capture:4 | llmco[rule-based]"), "{section}");
    assert!(!section.contains("greedy_baseline"), "{section}");
    let wait = |p: &str| {
        let r = recs.iter().find(|r| r["partner"].as_str().is_some_and(|x| x.starts_with(p))).unwrap();
        r["held_wait_max"].as_u64().unwrap()
    };
    assert!(wait("llmco") > 8 && wait("greedy_baseline") <= 8, "{} {}", wait("llmco"), wait("greedy_baseline"));
    let (md, recs) = sweep("hanabi", "convention");
    assert!(!md.contains("## Stuck agents"), "{md}");
    assert!(recs[0]["held_wait_max"].as_u64().is_some_and(|w| w <= 60), "{}", recs[0]);
}

#[test]
fn report_heatmaps_as_png_and_pdf() {
    let dir = tempfile::tempdir().unwrap();
    let out = crate::support::bin()
        .args([
            "eval",
            "--layouts",
            "cramped_room",
            "--agents",
            "scripted",
            "--partners",
            "greedy,stay",
            "--seats",
            "0",
        ])
        .args(["--horizon", "30", "--quiet", "--no-report", "--out"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for (format, magic) in [("png", &b"\x89PNG"[..]), ("pdf", &b"%PDF-"[..])] {
        let o =
            crate::support::bin().args(["eval", "report"]).arg(dir.path()).args(["--format", format]).output().unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        if e.contains("no fonts found") {
            // A machine without fonts: a clear refusal, never a figure without labels.
            assert!(!o.status.success(), "{e}");
            continue;
        }
        assert!(o.status.success(), "{e}");
        let bytes = std::fs::read(dir.path().join(format!("heatmap-cramped_room.{format}"))).unwrap();
        assert!(bytes.starts_with(magic), "{format}");
        assert!(dir.path().join("heatmap-cramped_room.svg").exists());
    }
    let o = crate::support::bin().args(["eval", "report"]).arg(dir.path()).args(["--format", "jpg"]).output().unwrap();
    assert!(!o.status.success());
}

/// Whether `--episodes` was given decides a protocol's count (the flag's value cannot:
/// `--episodes 1` is also eval's default): left out, the protocol's own; given, in either
/// spelling and even equal to the default, a labelled pilot of that many; given as the
/// protocol's own count, no pilot.
#[test]
fn a_protocol_plays_its_own_count_unless_episodes_is_given() {
    let dir = tempfile::tempdir().unwrap();
    let table1 = |extra: &[&str]| {
        let mut args = vec!["eval", "--protocol", "table1", "--agents", "greedy", "--partners", "stay,random"];
        args.extend(["--layouts", "cramped_room", "--horizon", "20", "--dry-run", "--out"]);
        let o = bin().args(&args).arg(dir.path().join("t1")).args(extra).output().unwrap();
        let planned = ok(&o).lines().next().unwrap_or_default().to_string();
        (planned, stderr(&o))
    };
    // 2 partners × 2 seats × the protocol's 10 episodes.
    let (planned, err) = table1(&[]);
    assert!(planned.starts_with("dry run: 40 episodes,") && !err.contains("pilot"), "{planned}\n{err}");
    let (planned, err) = table1(&["--episodes=10"]);
    assert!(planned.starts_with("dry run: 40 episodes,") && !err.contains("pilot"), "{planned}\n{err}");
    for (given, n) in [(&["--episodes", "1"][..], 4), (&["--episodes=2"], 8)] {
        let (planned, err) = table1(given);
        assert!(planned.starts_with(&format!("dry run: {n} episodes,")), "{given:?}: {planned}");
        assert!(err.contains("pilot: the table1 protocol with"), "{given:?}: {err}");
    }
    // The LLM-Coordination tables: more trials than the protocol's is refused, in either spelling.
    for given in [&["--episodes", "4"][..], &["--episodes=4"]] {
        let o = bin()
            .args(["eval", "--protocol", "llmco-table3", "--dry-run", "--out"])
            .arg(dir.path().join("t3"))
            .args(given)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2), "{given:?}");
        assert!(stderr(&o).contains("--episodes: the llmco-table3 protocol plays 3 trials"), "{}", stderr(&o));
    }
}
