//! Bad input for the flags and seat options of reasoning models, structured answers and
//! the cost guard, swept table by table over `play`, `eval`, `qa`, `serve` and
//! `mock-server`: each is a clear error that names the flag or seat option, exit 2, no
//! panic, and nothing written (each case runs in an empty directory that must stay
//! empty). And a model server that refuses the request twice stops the seat with the
//! server's message, never a score, for both agents in `play` and `eval`.

use crate::support::{Mock, bin, text};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `cmd` with at most `limit` of wall time (a flag that is wrongly accepted may start
/// a server or a long run): killed and reported past it.
fn bounded(mut cmd: Command, limit: Duration) -> Result<Output, String> {
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(|e| e.to_string())?;
    let start = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(_)) => return child.wait_with_output().map_err(|e| e.to_string()),
            Ok(None) if start.elapsed() > limit => {
                let _ = child.kill();
                let out = child.wait_with_output().map_err(|e| e.to_string())?;
                return Err(format!("still running after {limit:?}; stderr: {}", text(&out.stderr)));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(e.to_string()),
        }
    }
}

/// Every entry under `dir`, for the "nothing written" check.
fn entries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir).unwrap().flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect()
}

/// Runs each case (arguments, then the words its error must contain) in an empty
/// directory; returns the failures, one line each.
fn sweep(cases: &[(Vec<String>, Vec<&str>)]) -> Vec<String> {
    let mut failures = Vec::new();
    for (args, words) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = bin();
        cmd.current_dir(dir.path()).args(args).env("RUST_BACKTRACE", "0");
        let shown = format!("proagent {}", args.iter().map(|a| format!("{a:?}")).collect::<Vec<_>>().join(" "));
        let out = match bounded(cmd, Duration::from_secs(60)) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{shown}: {e}"));
                continue;
            }
        };
        let err = text(&out.stderr);
        // The error itself: clap adds a usage hint after a blank line.
        let message = err.split("\n\n").next().unwrap_or_default();
        let problems: Vec<String> = [
            (out.status.code() != Some(2)).then(|| format!("exit {:?}", out.status.code())),
            err.contains("panicked").then(|| "a panic".to_string()),
            (!message.starts_with("error: ")).then(|| "no `error:` first".to_string()),
            (message.trim_end().lines().count() != 1).then(|| "more than one line".to_string()),
            words.iter().find(|w| !message.contains(*w)).map(|w| format!("does not name {w:?}")),
            (!out.stdout.is_empty()).then(|| format!("stdout: {}", text(&out.stdout))),
            (!entries(dir.path()).is_empty()).then(|| format!("wrote {:?}", entries(dir.path()))),
        ]
        .into_iter()
        .flatten()
        .collect();
        if !problems.is_empty() {
            failures.push(format!("{shown}: {} (stderr: {err:?})", problems.join("; ")));
        }
    }
    failures
}

/// `base` followed by `extra`, as owned arguments.
fn args(base: &[&str], extra: &[&str]) -> Vec<String> {
    base.iter().chain(extra).map(|s| s.to_string()).collect()
}

/// Values `--price-per-mtok` refuses: empty, one or four fields, negative, not a number,
/// infinite, or beyond any provider's price.
const BAD_PRICES: &[&str] = &["", "1", "1,2,3,4", "-1,2", "1,2,-0.5", "NaN,2", "1,inf", "1e300,2", "1,2,x", ",,"];

#[test]
fn every_reasoning_structured_and_cost_flag_refuses_bad_values_by_name() {
    let eval: &[&str] =
        &["eval", "--layouts", "cramped_room", "--agents", "proagent", "--partners", "greedy", "--out", "o"];
    let mut cases: Vec<(Vec<String>, Vec<&str>)> = Vec::new();
    for cmd in [&["play"][..], eval, &["qa"], &["serve", "--addr", "127.0.0.1:0"]] {
        // Unknown levels, families and parameter names, the empty value included.
        for (flag, value) in [
            ("--reasoning-effort", "extreme"),
            ("--reasoning-effort", ""),
            ("--reasoning-effort", "none"),
            ("--model-family", "fast"),
            ("--model-family", ""),
            ("--token-param", "max_length"),
            ("--token-param", "MAX_TOKENS "),
        ] {
            cases.push((args(cmd, &["--model", "o4-mini", flag, value]), vec![flag]));
        }
        // A pair that contradicts itself: an effort for a chat model, by the table or forced.
        cases.push((
            args(cmd, &["--model", "gpt-4o", "--reasoning-effort", "high"]),
            vec!["--reasoning-effort", "chat model"],
        ));
        cases.push((
            args(cmd, &["--model", "o4-mini", "--model-family", "chat", "--reasoning-effort", "low"]),
            vec!["--reasoning-effort", "--model-family chat"],
        ));
    }
    // The cost flags, where each command takes them (qa prices its dry run only).
    for cmd in [&["play"][..], eval] {
        for price in BAD_PRICES {
            cases.push((args(cmd, &["--dry-run", "--price-per-mtok", price]), vec!["--price-per-mtok"]));
        }
        for n in ["-5", "1000001", "99999999999999999999", "many"] {
            cases.push((
                args(cmd, &["--dry-run", "--reasoning-tokens-per-call", n]),
                vec!["--reasoning-tokens-per-call"],
            ));
        }
        for n in ["-1", "many", "1.5", "99999999999999999999"] {
            cases.push((args(cmd, &["--confirm-above", n]), vec!["--confirm-above"]));
        }
    }
    for price in BAD_PRICES {
        cases.push((
            args(&["qa", "--model", "gpt-4o", "--dry-run", "--price-per-mtok"], &[price]),
            vec!["--price-per-mtok"],
        ));
    }
    // A dry run refuses what the real run would, though it sends nothing.
    for cmd in [&["play"][..], eval, &["qa"]] {
        cases.push((
            args(cmd, &["--model", "gpt-4o", "--reasoning-effort", "high", "--dry-run"]),
            vec!["--reasoning-effort", "chat model"],
        ));
    }
    let failures = sweep(&cases);
    assert!(failures.is_empty(), "{} of {} cases:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn seat_options_of_both_agents_refuse_bad_values_by_name() {
    let mut cases: Vec<(Vec<String>, Vec<&str>)> = Vec::new();
    let bad = [
        ("effort", "extreme"),
        ("effort", ""),
        ("family", "fast"),
        ("family", ""),
        ("token_param", "max_len"),
        ("token_param", ""),
        ("structured", "maybe"),
        ("structured", ""),
    ];
    for (agent, layout, partner) in [("proagent", "cramped_room", "greedy"), ("llmco", "hanabi", "convention")] {
        for (key, value) in bad {
            let spec = format!("{agent}[model=o4-mini,{key}={value}]");
            // The seat the spec is given to: the agent, the partner, and eval's lists.
            cases.push((args(&["play", "--layout", layout, "--agent", &spec], &[]), vec!["--agent", key]));
            cases.push((
                args(&["play", "--layout", layout, "--agent", agent, "--partner", &spec, "--model", "o4-mini"], &[]),
                vec!["--partner", key],
            ));
            cases.push((
                args(&["eval", "--layouts", layout, "--agents", &spec, "--partners", partner, "--out", "o"], &[]),
                vec!["--agents", key],
            ));
            cases.push((
                args(&["eval", "--layouts", layout, "--agents", partner, "--partners", &spec, "--out", "o"], &[]),
                vec!["--partners", key],
            ));
        }
        // The contradictory pair as seat options, in a real run and a dry run.
        let spec = format!("{agent}[model=gpt-4o,effort=high]");
        for dry in [&[][..], &["--dry-run"]] {
            cases.push((args(&["play", "--layout", layout, "--agent", &spec], dry), vec!["--agent", "chat model"]));
            cases.push((
                args(&["eval", "--layouts", layout, "--agents", &spec, "--partners", partner, "--out", "o"], dry),
                vec!["--agents", "chat model"],
            ));
        }
    }
    let failures = sweep(&cases);
    assert!(failures.is_empty(), "{} of {} cases:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

#[test]
fn the_mock_servers_modes_refuse_bad_values_by_name() {
    let cases: Vec<(Vec<String>, Vec<&str>)> = vec![
        (args(&["mock-server", "--reasoning", "bogus"], &[]), vec!["--reasoning"]),
        (args(&["mock-server", "--reasoning", ""], &[]), vec!["--reasoning"]),
        (args(&["mock-server", "--structured", "bogus"], &[]), vec!["--structured"]),
        (args(&["mock-server", "--structured", ""], &[]), vec!["--structured"]),
        (args(&["mock-server", "--reject-params", ""], &[]), vec!["--reject-params"]),
        (args(&["mock-server", "--reject-params", "top_p,,max_tokens"], &[]), vec!["--reject-params"]),
        (args(&["mock-server", "--reject-params", "top p"], &[]), vec!["--reject-params"]),
        (args(&["mock-server", "--reasoning-rules=yes"], &[]), vec!["--reasoning-rules"]),
    ];
    let failures = sweep(&cases);
    assert!(failures.is_empty(), "{} of {} cases:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

/// A server that refuses both token-cap parameters: the parameter is left out once, the
/// second refusal stops the seat with the server's words, and no score is printed or
/// recorded, for both agents, in `play` and in `eval`.
#[test]
fn a_model_that_refuses_twice_stops_the_seat_with_the_servers_message_never_a_score() {
    let m = Mock::start(&["--reject-params", "max_tokens,max_completion_tokens"]);
    let server_words = "'max_completion_tokens' is not supported with this model";
    for (agent, layout, partner) in [("proagent", "cramped_room", "greedy"), ("llmco", "hanabi", "convention")] {
        let o = bin()
            .args(["play", "--layout", layout, "--agent", agent, "--partner", partner, "--model", "gpt-4o"])
            .args(["--base-url", &m.url, "--json", "--no-transcript", "--backoff-ms", "5"])
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "play {agent}: {err}");
        assert!(err.contains(server_words) && err.contains("refused both token-cap parameters"), "play {agent}: {err}");
        assert!(!text(&o.stdout).contains("\"score\""), "play {agent} printed a score: {}", text(&o.stdout));

        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("sweep");
        let o = bin()
            .args(["eval", "--layouts", layout, "--agents", agent, "--partners", partner, "--seats", "0"])
            .args(["--episodes", "2", "--model", "gpt-4o", "--base-url", &m.url, "--quiet", "--backoff-ms", "5"])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "eval {agent}: {err}");
        assert!(err.contains(server_words) && err.contains("the sweep was stopped"), "eval {agent}: {err}");
        let records = std::fs::read_to_string(out.join("results.jsonl")).unwrap_or_default();
        assert_eq!(records, "", "eval {agent} recorded a score");
        assert!(!out.join("report.md").exists(), "eval {agent} wrote a report");
        assert!(!text(&o.stdout).contains("score"), "eval {agent}: {}", text(&o.stdout));
    }
}
