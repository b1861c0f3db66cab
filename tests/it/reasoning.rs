//! Reasoning models end to end, against `proagent mock-server` on loopback: with
//! `--reasoning-rules` the mock refuses what OpenAI's reasoning models refuse (`max_tokens`,
//! `top_p`, a temperature other than 1), so `play`, `eval` and `qa` with `--model o4-mini`
//! run to the end only if the backend sends what the family table says; a refused
//! parameter is left out once and remembered, an explicit one or a second refusal stops
//! the run; reasoning text (`reasoning_content`, `<think>` blocks) is kept in transcripts
//! and never read as an answer.

use crate::support::{Mock, bin, json_line, text};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

/// `play` of `agent` on `layout` with `model` against `m`, plus `extra` flags.
pub(crate) fn play(m: &Mock, layout: &str, agent: &str, model: &str, extra: &[&str]) -> Output {
    bin()
        .args(["play", "--layout", layout, "--agent", agent, "--model", model, "--base-url", &m.url])
        .args(["--json", "--no-wall-clock", "--backoff-ms", "5"])
        .args(extra)
        .output()
        .unwrap()
}

/// The `--json` output of a successful `qa` run (one pretty-printed object).
fn json_doc(o: &Output) -> Value {
    assert!(o.status.success(), "exit {:?}: {}", o.status.code(), text(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn exchanges(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "exchange")
        .collect()
}

/// The games each agent has a grounding for, as `play --layout` names them.
const PROAGENT_GAMES: &[&str] = &["cramped_room", "v2:cramped_room"];
const LLMCO_GAMES: &[&str] = &["cramped_room", "hanabi", "capture:1", "escape:1", "lever"];

#[test]
fn o4_mini_plays_evals_and_answers_on_every_game_with_both_agents() {
    let m = Mock::start(&["--reasoning-rules"]);
    for (agent, games) in [("proagent", PROAGENT_GAMES), ("llmco", LLMCO_GAMES)] {
        for layout in games {
            let v = json_line(&play(&m, layout, agent, "o4-mini", &["--no-transcript"]));
            assert!(v["reasoning_tokens"].as_u64().unwrap_or(0) > 0, "{agent} on {layout}: {v}");
            assert_eq!(v["llm_failures"], 0, "{agent} on {layout}: {v}");
        }
    }
    let dir = tempfile::tempdir().unwrap();
    for (agent, partner, games) in [("proagent", "scripted", PROAGENT_GAMES), ("llmco", "llmco", LLMCO_GAMES)] {
        let out = dir.path().join(agent);
        let o = bin()
            .args(["eval", "--layouts", &games.join(","), "--agents", agent, "--partners", partner])
            .args(["--seats", "0", "--episodes", "1", "--model", "o4-mini", "--base-url", &m.url, "--quiet"])
            .arg("--out")
            .arg(&out)
            .output()
            .unwrap();
        assert!(o.status.success(), "eval {agent}: {}", text(&o.stderr));
        let records = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
        assert_eq!(records.lines().count(), games.len(), "{records}");
        for r in records.lines() {
            let v: Value = serde_json::from_str(r).unwrap();
            assert!(v["metrics"]["reasoning_tokens"].as_u64().unwrap_or(0) > 0, "{agent}: {v}");
        }
    }
    let t = dir.path().join("qa.jsonl");
    let o = bin()
        .args(["qa", "--model", "o4-mini", "--base-url", &m.url, "--json", "--no-progress", "--trials", "1"])
        .arg("--transcript")
        .arg(&t)
        .output()
        .unwrap();
    let v = json_doc(&o);
    assert_eq!((v["answered"].as_u64(), v["correct"].as_u64()), (Some(198), Some(196)), "{v}");
    let xs = exchanges(&t);
    assert!(xs.iter().all(|x| x["usage"]["reasoning_tokens"].as_u64().unwrap_or(0) > 0), "{}", xs[0]);
    // A reasoning model gets the larger cap and no sampling parameters it refuses.
    assert_eq!(xs[0]["request"]["max_tokens"], proagent::llm::family::REASONING_MAX_TOKENS);
}

#[test]
fn a_refused_parameter_is_left_out_once_and_remembered() {
    let m = Mock::start(&["--reject-params", "top_p"]);
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.jsonl");
    let v = json_line(&play(&m, "cramped_room", "proagent", "gpt-4o", &["--transcript", t.to_str().unwrap()]));
    assert_eq!(
        (v["score"].as_i64(), v["llm_calls"].as_u64(), v["llm_failures"].as_u64()),
        (Some(240), Some(64), Some(0))
    );
    let faults: Vec<Value> =
        exchanges(&t).iter().flat_map(|x| x["outcome"]["faults"].as_array().cloned().unwrap_or_default()).collect();
    assert_eq!(faults.len(), 1, "one retry for the whole run: {faults:?}");
    assert_eq!(faults[0]["kind"], "unsupported_parameter");
    let detail = faults[0]["detail"].as_str().unwrap();
    assert!(detail.contains("`top_p`") && detail.contains("rest of the run"), "{detail}");
    // The same with an LLM-Coordination seat.
    let v = json_line(&play(&m, "hanabi", "llmco", "gpt-4o", &["--no-transcript"]));
    assert_eq!(v["llm_failures"], 0, "{v}");
}

#[test]
fn an_explicit_parameter_or_a_second_refusal_stops_the_run() {
    let m = Mock::start(&["--reasoning-rules"]);
    // The user's temperature is never dropped: the server's refusal stands.
    for (layout, agent) in [("cramped_room", "proagent"), ("hanabi", "llmco")] {
        let o = play(&m, layout, agent, "o4-mini", &["--temperature", "0", "--no-transcript"]);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{agent}: {err}");
        assert!(err.contains("Only the default (1) value is supported") && err.contains("set explicitly"), "{err}");
        assert!(!text(&o.stdout).contains("\"score\""), "no score for a refused run");
    }
    // A server that refuses both token-cap names: the second refusal stops the seat.
    let both = Mock::start(&["--reject-params", "max_tokens,max_completion_tokens"]);
    let o = play(&both, "cramped_room", "proagent", "gpt-4o", &["--no-transcript"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("refused both token-cap parameters") && err.contains("is not supported"), "{err}");
    assert!(!text(&o.stdout).contains("\"score\""));
    // A forced token-cap name is the user's too.
    let o = play(&m, "cramped_room", "proagent", "o4-mini", &["--token-param", "max_tokens", "--no-transcript"]);
    let err = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("Use 'max_completion_tokens' instead") && err.contains("set explicitly"), "{err}");
}

#[test]
fn reasoning_flags_are_checked() {
    let m = Mock::start(&[]);
    for cmd in [&["play"][..], &["qa", "--trials", "1"], &["eval", "--layouts", "cramped_room"]] {
        let o = bin().args(cmd).args(["--model", "o4-mini", "--reasoning-effort", "extreme"]).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{cmd:?}");
        assert!(text(&o.stderr).contains("low, medium or high"), "{}", text(&o.stderr));
    }
    // An effort for a chat model contradicts the family table, for the run and for a seat.
    let o = play(&m, "cramped_room", "proagent", "gpt-4o", &["--reasoning-effort", "high", "--no-transcript"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("is a chat model by the family table"), "{}", text(&o.stderr));
    let o = play(&m, "hanabi", "llmco[model=gpt-4o,effort=low]", "gpt-4o", &["--no-transcript"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    let o = play(&m, "cramped_room", "proagent", "o4-mini", &["--reasoning-effort", "high", "--model-family", "chat"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("--model-family chat"), "{}", text(&o.stderr));
    // Forcing the family sends it, and the seat's label says so.
    let v = json_line(&play(
        &m,
        "cramped_room",
        "proagent",
        "qwen3:8b",
        &["--reasoning-effort", "high", "--model-family", "reasoning", "--no-transcript"],
    ));
    assert_eq!(v["agent"], "proagent[qwen3:8b,effort=high,family=reasoning]");
}

#[test]
fn reasoning_text_is_kept_apart_and_never_parsed() {
    let plain = Mock::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let base_pa = json_line(&play(&plain, "cramped_room", "proagent", "gpt-4o", &["--no-transcript"]));
    let base_co = json_line(&play(&plain, "hanabi", "llmco", "gpt-4o", &["--no-transcript"]));
    for mode in ["think", "field"] {
        let m = Mock::start(&["--reasoning", mode]);
        let t = dir.path().join(format!("{mode}.jsonl"));
        let v = json_line(&play(&m, "cramped_room", "proagent", "gpt-4o", &["--transcript", t.to_str().unwrap()]));
        for key in ["score", "deliveries", "llm_calls", "parse_failures"] {
            assert_eq!(v[key], base_pa[key], "{mode} {key}: {v}");
        }
        assert!(v["reasoning_tokens"].as_u64().unwrap() > 0);
        for x in exchanges(&t) {
            let reply = x["outcome"]["text"].as_str().unwrap();
            assert!(!reply.contains("<think>") && !reply.contains("A first idea"), "{mode}: {reply}");
            assert_eq!(x["outcome"]["reasoning"], proagent_mock::REASONING_TEXT, "{mode}");
        }
        // The transcript replays exactly, and `show` prints the reasoning beside the boards.
        let r = bin().arg("replay").arg(&t).output().unwrap();
        assert!(text(&r.stdout).contains("re-runs exactly"), "{}{}", text(&r.stdout), text(&r.stderr));
        let s = bin().arg("show").arg(&t).args(["--step", "1"]).output().unwrap();
        assert!(text(&s.stdout).contains("reasoning (planner): Let me think."), "{}", text(&s.stdout));
        let v = json_line(&play(&m, "hanabi", "llmco", "gpt-4o", &["--no-transcript"]));
        for key in ["score", "llm_calls", "parse_failures", "fallbacks"] {
            assert_eq!(v[key], base_co[key], "{mode} llmco {key}: {v}");
        }
        let q = bin()
            .args(["qa", "--model", "m", "--base-url", &m.url, "--json", "--no-progress", "--no-transcript"])
            .args(["--trials", "1"])
            .output()
            .unwrap();
        assert_eq!(json_doc(&q)["correct"], 196, "{mode}");
    }
}

/// The eval of `agent` with partner `partner` on cramped_room (40 ticks, seat 0) against
/// `m`, into `out`; its stdout.
fn eval_into(m: &Mock, agent: &str, partner: &str, model: &str, out: &Path) -> String {
    let o = bin()
        .args(["eval", "--layouts", "cramped_room", "--agents", agent, "--partners", partner, "--seats", "0"])
        .args(["--episodes", "1", "--horizon", "40", "--model", model, "--base-url", &m.url, "--quiet"])
        .arg("--out")
        .arg(out)
        .output()
        .unwrap();
    assert!(o.status.success(), "eval {agent}: {}", text(&o.stderr));
    text(&o.stdout)
}

/// The `report.csv` rows of `dir` as column name → value maps.
fn csv_rows(dir: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let text = std::fs::read_to_string(dir.join("report.csv")).unwrap();
    let mut lines = text.lines();
    let head: Vec<String> = lines.next().unwrap().split(',').map(str::to_string).collect();
    lines.map(|l| head.iter().cloned().zip(l.split(',').map(str::to_string)).collect()).collect()
}

#[test]
fn eval_records_reports_and_prices_show_reasoning_tokens_apart() {
    let m = Mock::start(&["--reasoning-rules", "--reasoning", "field"]);
    let dir = tempfile::tempdir().unwrap();
    for (agent, partner) in [("proagent", "greedy"), ("llmco", "llmco")] {
        let out = dir.path().join(agent);
        let stdout = eval_into(&m, agent, partner, "o4-mini", &out);
        // The record: its own count, the seats' metrics summed.
        let line = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
        let r: Value = serde_json::from_str(line.lines().next().unwrap()).unwrap();
        let reasoning = r["reasoning_tokens"].as_u64().unwrap_or(0);
        let seats = r["metrics"]["reasoning_tokens"].as_u64().unwrap_or(0)
            + r["metrics"]["partner_metrics"]["reasoning_tokens"].as_u64().unwrap_or(0);
        assert!(reasoning > 0 && reasoning == seats, "{agent}: {r}");
        assert!(reasoning < r["completion_tokens"].as_u64().unwrap(), "part of the completion tokens: {r}");
        // report.md (printed and written): a column of its own, cell and total.
        let md = std::fs::read_to_string(out.join("report.md")).unwrap();
        assert!(stdout.contains("| completion tokens | of which reasoning | cached prompt tokens |"), "{stdout}");
        let row = md.lines().find(|l| l.starts_with("| **total** |")).unwrap();
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        assert_eq!((cells[10], cells[11]), (reasoning.to_string().as_str(), "0"), "{agent}: {row}");
        // report.csv and report.json.
        let csv = csv_rows(&out);
        assert_eq!(csv[0]["reasoning_tokens"], reasoning.to_string(), "{agent}");
        assert_eq!(csv[0]["cached_tokens"], "0");
        let report: Value = serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
        assert_eq!(report["totals"]["reasoning_tokens"].as_u64(), Some(reasoning), "{agent}");
        assert_eq!(report["cells"][0]["reasoning_tokens"].as_u64(), Some(reasoning), "{agent}");
    }
    // A chat model reports none: the record, report.md, report.csv and report.json read as before.
    let chat = Mock::start(&[]);
    let out = dir.path().join("chat");
    let stdout = eval_into(&chat, "proagent", "greedy", "gpt-4o", &out);
    let line = std::fs::read_to_string(out.join("results.jsonl")).unwrap();
    assert!(!line.contains("reasoning_tokens") && !line.contains("cached_tokens"), "{line}");
    assert!(
        !stdout.contains("of which reasoning") && stdout.contains("| completion tokens | LLM wall s |"),
        "{stdout}"
    );
    assert!(!csv_rows(&out)[0].contains_key("reasoning_tokens"));
    let report = std::fs::read_to_string(out.join("report.json")).unwrap();
    assert!(!report.contains("reasoning_tokens"), "{report}");
    // The dry run's price shows the assumed reasoning tokens apart from the completion bound.
    let o = bin()
        .args(["eval", "--layouts", "cramped_room", "--agents", "proagent", "--partners", "greedy", "--seats", "0"])
        .args(["--horizon", "40", "--model", "o4-mini", "--dry-run", "--reasoning-tokens-per-call", "1000"])
        .args(["--price-per-mtok", "1.1,4.4", "--out"])
        .arg(dir.path().join("dry"))
        .output()
        .unwrap();
    let s = text(&o.stdout);
    assert!(o.status.success(), "{s}{}", text(&o.stderr));
    let calls: u64 = s
        .lines()
        .find(|l| l.starts_with("| o4-mini |"))
        .and_then(|l| l.split('|').nth(3))
        .and_then(|c| c.trim().parse().ok())
        .unwrap_or_else(|| panic!("no o4-mini row: {s}"));
    let want = format!(
        "o4-mini: {} reasoning tokens (1000 per call × {calls} calls), priced as completion tokens: {:.2} USD",
        calls * 1000,
        calls as f64 * 1000.0 * 4.4 / 1e6
    );
    assert!(s.contains(&want), "{want}\n{s}");
}
