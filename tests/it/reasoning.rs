//! Reasoning models end to end, against `proagent mock-server` on loopback: with
//! `--reasoning-rules` the mock refuses what OpenAI's reasoning models refuse (`max_tokens`,
//! `top_p`, a temperature other than 1), so `play`, `eval` and `qa` with `--model o4-mini`
//! run to the end only if the backend sends what the family table says; a refused
//! parameter is left out once and remembered, an explicit one or a second refusal stops
//! the run; reasoning text (`reasoning_content`, `<think>` blocks) is kept in transcripts
//! and never read as an answer.

use crate::support::bin;
use serde_json::Value;
use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Output, Stdio};

/// A running `proagent mock-server` with these extra flags; killed on drop (the viewer's
/// tests record reasoning transcripts with it too).
pub(crate) struct Mock {
    child: Child,
    /// The base URL (`http://ADDR/v1`).
    pub(crate) url: String,
}

impl Mock {
    pub(crate) fn start(extra: &[&str]) -> Mock {
        let mut child = bin()
            .args(["mock-server", "--addr", "127.0.0.1:0"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let addr = line.trim().strip_prefix("listening on ").unwrap_or_else(|| panic!("{line:?}")).to_string();
        Mock { child, url: format!("{addr}/v1") }
    }
}

impl Drop for Mock {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

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

/// The `--json` line of a successful run.
fn json_line(o: &Output) -> Value {
    assert!(o.status.success(), "exit {:?}: {}", o.status.code(), text(&o.stderr));
    let out = text(&o.stdout);
    let line = out.lines().find(|l| l.starts_with('{')).unwrap_or_else(|| panic!("no JSON line: {out}"));
    serde_json::from_str(line).unwrap()
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
