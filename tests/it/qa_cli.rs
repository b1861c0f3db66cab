//! `proagent qa` end to end: built-in models, reports, transcripts and replay, lint,
//! baseline, and bad input.

use crate::support::Mock;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

fn bin() -> Command {
    crate::support::bin()
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("runs")
}

fn json_of(out: &Output) -> Value {
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

fn read_lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn oracle_scores_196_of_198_and_says_why() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("oracle.jsonl");
    let t = t.to_str().unwrap();
    let v = json_of(&run(&["qa", "--model", "oracle", "--json", "--no-progress", "--transcript", t]));
    assert_eq!(v["questions"], 198);
    assert_eq!(v["trials"], 3);
    assert_eq!(v["correct"], 588);
    assert_eq!(v["answered"], 594);
    assert_eq!(v["unmatched"], 0);
    assert_eq!(v["failed"], 0);
    assert_eq!(v["correct_per_trial"], serde_json::json!([196, 196, 196]));
    assert_eq!(v["by_category"]["ToM"], 1.0);
    assert_eq!(v["by_category"]["JP"], 1.0);
    assert!((v["by_category"]["EC"].as_f64().unwrap() - 64.0 / 66.0).abs() < 1e-12);
    assert!((v["accuracy"].as_f64().unwrap() - 196.0 / 198.0).abs() < 1e-12);
    assert_eq!(v["by_game"]["Hanabi"]["all"], 1.0);
    assert!(v["by_group"]["CollabGames"]["EC"].as_f64().unwrap() < 1.0);
    let un: Vec<&str> = v["unscorable"].as_array().unwrap().iter().map(|u| u["id"].as_str().unwrap()).collect();
    assert_eq!(un, ["50-EC", "56-EC"]);

    // The transcript: header, 594 exchanges, footer; the chat is the original's four turns.
    let lines = read_lines(Path::new(t));
    assert_eq!(lines.len(), 596);
    assert_eq!(lines[0]["type"], "header");
    assert_eq!(lines[0]["data_sha256"], "ac86ab2a2c1212d4bbdc1eef08b750a1e7322eeb34ba0842a71258ab95f667c4");
    assert_eq!(lines[0]["sampling"]["temperature"].as_f64().unwrap(), 0.6);
    assert_eq!(lines[595]["type"], "footer");
    assert_eq!(lines[595]["report"]["correct"], 588);
    let x = lines.iter().find(|l| l["type"] == "exchange" && l["id"] == "0-EC").unwrap();
    let m = x["request"]["messages"].as_array().unwrap();
    let roles: Vec<&str> = m.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["system", "user", "assistant", "user"]);
    assert!(
        m[0]["content"]
            .as_str()
            .unwrap()
            .starts_with("I'll provide the current state, a question about the environment")
    );
    assert!(m[1]["content"].as_str().unwrap().starts_with("The card game Hanabi has the following rules:"));
    assert_eq!(m[2]["content"], "Got it!");
    assert!(
        m[3]["content"]
            .as_str()
            .unwrap()
            .ends_with("Have any cards been played yet?\nAvailable Answers:\nA. Yes.\nB. No.")
    );
    assert_eq!(x["extracted"], "B");
    assert_eq!(x["correct"], true);
    assert!(x["usage"]["prompt_tokens"].as_u64().unwrap() > 100);

    // Replaying the transcript offline gives the same report.
    let w = run(&["qa", "--model", &format!("replay:{t}"), "--json", "--no-progress", "--no-transcript"]);
    let r = json_of(&w);
    for k in ["correct", "answered", "unmatched", "failed", "accuracy", "by_category", "by_game", "cells"] {
        assert_eq!(r[k], v[k], "{k}");
    }
    // The text report names the unscorable questions and why.
    let out = run(&["qa", "--model", "oracle", "--no-progress", "--no-transcript"]);
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("correct per trial: 196/198, 196/198, 196/198"), "{s}");
    assert!(s.contains("50-EC: the key \"C\" names no printed option (options A B)"), "{s}");
    // Writing the transcript over the recording being replayed is refused.
    let out = run(&["qa", "--model", &format!("replay:{t}"), "--transcript", t, "--no-progress"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("is the recording being replayed"));
}

#[test]
fn compat_oracle_and_random_runs_are_reproducible() {
    let v = json_of(&run(&[
        "qa",
        "--model",
        "oracle",
        "--compat",
        "--trials",
        "1",
        "--json",
        "--no-progress",
        "--no-transcript",
    ]));
    assert_eq!(v["correct"], 198);
    assert_eq!(v["mode"], "compat");
    let args = ["qa", "--model", "random", "--seed", "5", "--json", "--no-progress", "--no-transcript"];
    let a = run(&args);
    let b = run(&args);
    assert_eq!(a.stdout, b.stdout, "same command and seed, same bytes");
    let v = json_of(&a);
    let e = &v["expected"]["by_category"];
    assert!((e["EC"].as_f64().unwrap() - 0.2763).abs() < 5e-4, "{e}");
    assert!((e["ToM"].as_f64().unwrap() - 0.2289).abs() < 5e-4, "{e}");
    assert!((e["JP"].as_f64().unwrap() - 0.1738).abs() < 5e-4, "{e}");
    for c in ["EC", "ToM", "JP"] {
        let (acc, p) = (v["by_category"][c].as_f64().unwrap(), e[c].as_f64().unwrap());
        assert!((acc - p).abs() < 4.0 * (p * (1.0 - p) / 198.0).sqrt(), "{c}: {acc} vs {p}");
    }
    let c = run(&["qa", "--model", "random", "--seed", "6", "--json", "--no-progress", "--no-transcript"]);
    assert_ne!(a.stdout, c.stdout);
    // The text report prints the exact expectation beside the accuracies.
    let out = run(&["qa", "--model", "random", "--no-progress", "--no-transcript"]);
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("expected") && s.contains("0.276") && s.contains("0.229") && s.contains("0.174"), "{s}");
}

#[test]
fn filters_csv_and_prompt_overrides() {
    let out = run(&[
        "qa",
        "--model",
        "oracle",
        "--filter",
        "game=CollabCapture,category=EC",
        "--csv",
        "--no-progress",
        "--no-transcript",
    ]);
    assert!(out.status.success());
    let s = String::from_utf8_lossy(&out.stdout);
    let mut lines = s.lines();
    assert!(lines.next().unwrap().starts_with("model,mode,scope,name,category,questions,trials"));
    let all = s.lines().find(|l| l.starts_with("oracle,default,all,all,all,")).unwrap();
    // 6 questions x 3 trials, 15 correct (50-EC cannot be).
    assert!(all.starts_with("oracle,default,all,all,all,6,3,18,15,18,0,0,"), "{all}");
    assert!(s.lines().any(|l| l.starts_with("oracle,default,group,CollabGames,EC,6,")), "{s}");

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("ack.j2"), "Understood. Game: {{ game }}\n").unwrap();
    let t = dir.path().join("t.jsonl");
    let out = bin()
        .args(["qa", "--model", "oracle", "--filter", "row=0", "--trials", "1", "--no-progress", "--prompts"])
        .arg(dir.path())
        .arg("--transcript")
        .arg(&t)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines = read_lines(&t);
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[1]["request"]["messages"][2]["content"], "Understood. Game: Hanabi");
    let sources = lines[0]["prompt_sources"].as_array().unwrap();
    assert!(sources.iter().any(|s| s[0] == "ack.j2" && s[1].as_str().unwrap().ends_with("ack.j2")));
    assert!(sources.iter().any(|s| s[0] == "system.j2" && s[1] == "embedded"));
    // A template with an unknown variable is an error, not an empty string.
    std::fs::write(dir.path().join("ack.j2"), "{{ nothing }}").unwrap();
    let out = bin()
        .args(["qa", "--model", "oracle", "--no-progress", "--no-transcript", "--prompts"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ack.j2"));
}

#[test]
fn lint_and_baseline_commands() {
    let v = json_of(&run(&["qa", "lint", "--json"]));
    let f = v["report"]["findings"].as_array().unwrap();
    let has = |id: &str, kind: &str| f.iter().any(|x| x["id"] == id && x["kind"] == kind);
    assert!(has("50-EC", "key_missing_option") && has("56-EC", "key_missing_option"));
    assert!(has("7-ToM", "key_stray_space"));
    assert!(has("54-JP", "skipped_letter") && has("12-EC", "repeated_letter"));
    let out = run(&["qa", "lint"]);
    let s = String::from_utf8_lossy(&out.stdout);
    assert!(s.contains("7-ToM   key-stray-space") && s.contains("default: key parts are trimmed"), "{s}");

    let v = json_of(&run(&["qa", "baseline", "--samples", "200", "--json"]));
    let b = v["baselines"].as_array().unwrap();
    let orig = b.iter().find(|x| x["policy"] == "original" && x["mode"] == "compat").unwrap();
    assert!((orig["exact"]["EC"].as_f64().unwrap() - 0.2185).abs() < 5e-4);
    assert!((v["published_convention"]["exact"]["EC"].as_f64().unwrap() - 0.286).abs() < 5e-4);
}

#[test]
fn bad_input_gets_clear_errors() {
    let out = run(&["qa", "--no-progress"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--model is required"));
    // A served model whose server is down, with the breaker set above the number of
    // questions: every request fails fast, is counted, and the exit is non-zero.
    let out = run(&[
        "qa",
        "--model",
        "gpt-4o",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--retries",
        "0",
        "--max-failures-in-a-row",
        "100",
        "--filter",
        "game=Hanabi,category=EC",
        "--trials",
        "1",
        "--json",
        "--no-progress",
        "--no-transcript",
    ]);
    assert!(!out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["failed"], 28, "{v}");
    assert_eq!(v["answered"], 0, "{v}");
    let out = run(&["qa", "--model", "oracle", "--filter", "game=chess", "--no-progress"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown game \"chess\""));
    let out = run(&["qa", "--model", "oracle", "--filter", "game=Hanabi,row=50", "--no-progress"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("matches none"));
    let out = run(&["qa", "--model", "replay:/nonexistent/x.jsonl", "--no-progress", "--no-transcript"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/x.jsonl"));

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.csv");
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/data/coordination_qa/single_turn_trials.csv"))
            .unwrap();
    std::fs::write(&bad, text.replacen("\"D, F\"", "\"D, 7\"", 1)).unwrap();
    let out = bin().args(["qa", "lint", "--data"]).arg(&bad).output().unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2));
    assert!(e.contains("bad.csv: row 7 (line ") && e.contains("\"TOM Answer Ordinal\"") && e.contains("\"7\""), "{e}");
    // The other copy of the data is used when it parses.
    std::fs::write(&bad, &text).unwrap();
    let out = bin()
        .args(["qa", "--model", "oracle", "--json", "--no-progress", "--no-transcript", "--trials", "1", "--data"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(json_of(&out)["correct"], 196);
}

#[test]
fn bench_qa_reports_a_time() {
    let v = json_of(&run(&["bench", "qa", "--latency-ms", "5", "--concurrency", "16", "--trials", "1", "--json"]));
    assert_eq!(v["requests"], 198);
    assert_eq!(v["correct"], 196);
    assert!(v["seconds"].as_f64().unwrap() > 0.0);
}

fn qa_against(m: &Mock, extra: &[&str]) -> Output {
    bin()
        .args(["qa", "--model", "any-served-name", "--base-url", &m.url, "--json", "--no-progress", "--no-transcript"])
        .args(["--backoff-ms", "5"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn the_mock_server_answers_coordination_qa_by_its_policy() {
    // The answer key: the pipeline through HTTP scores exactly what the oracle scores.
    let key = Mock::start(&[]);
    let v = json_of(&qa_against(&key, &["--trials", "1"]));
    let oracle =
        json_of(&run(&["qa", "--model", "oracle", "--json", "--no-progress", "--no-transcript", "--trials", "1"]));
    assert_eq!((v["correct"].as_u64(), v["answered"].as_u64()), (oracle["correct"].as_u64(), Some(198)));
    assert_eq!(v["by_category"], oracle["by_category"]);
    // A fixed letter: every reply is read as that letter.
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("b.jsonl");
    let fixed = Mock::start(&["--qa-answer", "B"]);
    let out = bin()
        .args(["qa", "--model", "m", "--base-url", &fixed.url, "--json", "--no-progress", "--trials", "1"])
        .arg("--transcript")
        .arg(&t)
        .output()
        .unwrap();
    json_of(&out);
    let letters: Vec<Value> =
        read_lines(&t).into_iter().filter(|l| l["type"] == "exchange").map(|l| l["extracted"].clone()).collect();
    assert_eq!(letters.len(), 198);
    assert!(letters.iter().all(|l| l == "B"), "{letters:?}");
    // Random: seeded, so two servers with the same seed agree, and it is not the key.
    let r1 = json_of(&qa_against(&Mock::start(&["--qa-answer", "random", "--seed", "4"]), &["--trials", "1"]));
    let r2 = json_of(&qa_against(&Mock::start(&["--qa-answer", "random", "--seed", "4"]), &["--trials", "1"]));
    assert_eq!(r1["correct"], r2["correct"]);
    assert!(r1["correct"].as_u64().unwrap() < oracle["correct"].as_u64().unwrap() / 2, "{}", r1["correct"]);
    assert_eq!(r1["answered"], 198);
    // A bad policy is refused.
    let o = run(&["mock-server", "--qa-answer", "maybe"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a QA answer policy"));
}

#[test]
fn qa_fails_loudly_when_no_reply_names_a_letter() {
    // Every reply is prose (as from a server that is not running a chat model).
    let prose = Mock::start(&["--fault-rate", "1", "--faults", "prose"]);
    let o = qa_against(&prose, &["--trials", "1", "--filter", "game=Hanabi"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("error: none of the") && err.contains("replies named an option letter"), "{err}");
    assert!(err.contains("Honestly, I am not sure"), "shows a reply: {err}");
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((v["answered"].as_u64(), v["failed"].as_u64()), (Some(0), Some(0)));
}

#[test]
fn qa_names_what_it_takes_instead_of_leaking_internal_messages() {
    let o = run(&["qa", "--model", "scripted", "--no-transcript"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--model scripted") && err.contains("oracle, random, random-original, replay:FILE"), "{err}");
    assert!(!err.contains("not available here"), "{err}");
    // qa takes the same HTTP flags as play.
    let o = run(&["qa", "--model", "m", "--connect-timeout", "0", "--no-transcript"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--connect-timeout"));
}

#[test]
fn an_existing_transcript_is_never_replaced_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("qa.jsonl");
    std::fs::write(&t, "precious\n").unwrap();
    let ts = t.to_str().unwrap();
    let args = ["qa", "--model", "oracle", "--json", "--no-progress", "--trials", "1", "--transcript", ts];
    let out = run(&args);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("already exists") && err.contains("--force"), "{err}");
    assert_eq!(std::fs::read_to_string(&t).unwrap(), "precious\n");
    let mut forced = args.to_vec();
    forced.push("--force");
    json_of(&run(&forced));
    assert!(read_lines(&t).len() > 100);
}

#[test]
fn a_second_run_never_stops_on_the_first_runs_default_transcript() {
    // docs/coordination-qa.md runs `qa --model random` twice in one directory.
    let dir = tempfile::tempdir().unwrap();
    let args = ["qa", "--model", "random", "--trials", "1", "--filter", "game=Hanabi", "--json", "--no-progress"];
    for _ in 0..2 {
        json_of(&bin().current_dir(dir.path()).args(args).output().expect("runs"));
    }
    let mut names: Vec<String> = std::fs::read_dir(dir.path().join("transcripts"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.iter().all(|n| n.starts_with("qa-random-seed0-") && n.ends_with(".jsonl")), "{names:?}");
}

#[test]
fn an_unreachable_server_stops_the_run_after_failures_in_a_row() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("qa.jsonl");
    let url = format!("http://127.0.0.1:{}/v1", crate::fake_server::dead_port());
    let out = bin()
        .args(["qa", "--model", "m", "--base-url", &url, "--no-progress", "--retries", "0"])
        .args(["--concurrency", "1", "--max-failures-in-a-row", "3", "--transcript"])
        .arg(&t)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("3 requests in a row failed"), "{err}");
    // What was asked before the stop is kept: the header and the three failed exchanges.
    let lines = read_lines(&t);
    assert_eq!(lines.len(), 4, "{lines:?}");
    assert!(lines[1..].iter().all(|l| l["type"] == "exchange" && !l["failure"].is_null()), "{lines:?}");
}

#[test]
fn qa_dry_run_counts_every_request_exactly_and_asks_nothing() {
    let run = |trials: &str| {
        let out = crate::support::bin()
            .args(["qa", "--model", "gpt-4o", "--dry-run", "--trials", trials, "--price-per-mtok", "1,0"])
            .output()
            .unwrap();
        let s = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(out.status.success(), "{s}{}", String::from_utf8_lossy(&out.stderr));
        let num = |after: &str| -> u64 {
            let rest = &s[s.find(after).unwrap_or_else(|| panic!("{after}: {s}")) + after.len()..];
            rest.split_whitespace().next().unwrap().parse().unwrap()
        };
        (num("= "), num("prompt tokens: "), s)
    };
    let (calls1, prompt1, s) = run("1");
    let (calls2, prompt2, _) = run("2");
    assert_eq!(calls1, 198, "{s}");
    assert_eq!((calls2, prompt2), (2 * calls1, 2 * prompt1));
    assert!(s.contains("o200k_base") && s.contains("nothing was sent"), "{s}");
    // 1 USD per million prompt tokens, completions free.
    assert!(s.contains(&format!("price: {:.2} USD", prompt1 as f64 / 1e6)), "{s}");
    assert!(!crate::support::scratch().join("transcripts/qa-gpt-4o-seed0.jsonl").exists());
}
