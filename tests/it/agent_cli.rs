//! End-to-end checks of the ProAgent commands: `play` with the default agent, its
//! options and metrics, `bench agent`, and errors for bad prompt templates.

use std::process::Command;

fn bin() -> Command {
    crate::support::bin()
}

fn json_lines(out: &std::process::Output) -> Vec<serde_json::Value> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

#[test]
fn play_defaults_to_proagent_with_metrics() {
    let out = bin().args(["play", "--layout", "cramped_room", "--horizon", "150", "--json"]).output().unwrap();
    let v = json_lines(&out);
    assert_eq!(v.len(), 1);
    let r = &v[0];
    assert_eq!(r["agent"], "proagent[rule-based]");
    for key in [
        "llm_calls",
        "replans",
        "fallbacks",
        "parse_failures",
        "belief_accuracy",
        "prompt_tokens",
        "completion_tokens",
        "skills_completed",
        "skills_failed",
    ] {
        assert!(r.get(key).is_some(), "{key} missing: {r}");
    }
    assert!(r["llm_calls_by_kind"]["planner"].as_u64().unwrap() > 0);
    assert!(r["llm_calls_by_kind"].get("verificator").is_some());
    assert!(r["score"].as_u64().unwrap() > 0, "{r}");
}

#[test]
fn same_command_same_output() {
    let args = ["play", "--layout", "counter_circuit", "--seat", "1", "--horizon", "120", "--episodes", "2", "--json"];
    let a = bin().args(args).output().unwrap();
    let b = bin().args(args).output().unwrap();
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
}

#[test]
fn options_are_honoured() {
    let out = bin()
        .args(["play", "--layout", "forced_coordination", "--seat", "1", "--horizon", "100", "--json"])
        .args(["--no-analysis", "--no-intention", "--verificator", "rules", "--belief", "annotate"])
        .args(["--align", "coordination", "--memory-k", "2", "--max-replans", "1"])
        .output()
        .unwrap();
    let r = &json_lines(&out)[0];
    assert!(r["belief_accuracy"].is_null(), "no intention, no prediction: {r}");
    assert!(r["llm_calls"].as_u64().unwrap() > 0);
    let bad = bin().args(["play", "--verificator", "maybe"]).output().unwrap();
    assert!(!bad.status.success());
    // `oracle` is built in but not a planner; a missing recording fails before the episode.
    for model in ["oracle", "replay:/nonexistent/gpt-17.jsonl"] {
        let bad = bin().args(["play", "--model", model]).output().unwrap();
        assert!(!bad.status.success());
        assert!(String::from_utf8_lossy(&bad.stderr).contains(model.trim_start_matches("replay:")));
    }
    let bad = bin().args(["play", "--model", "oracle"]).output().unwrap();
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("CoordinationQA built-in") && err.contains("scripted, replay:FILE"), "{err}");
    // chat has no default model that it would then refuse.
    let bad = bin().args(["chat", "hello"]).output().unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--model <MODEL>"));
    let bad = bin().args(["chat", "--model", "scripted", "hello"]).output().unwrap();
    assert!(String::from_utf8_lossy(&bad.stderr).contains("built in"), "{}", String::from_utf8_lossy(&bad.stderr));
}

#[test]
fn bad_prompt_templates_are_reported_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("agent")).unwrap();
    std::fs::write(dir.path().join("agent/scene.j2"), "{{ scene }}\n{{ no_such_variable }}\n").unwrap();
    let out = bin().args(["play", "--horizon", "5", "--prompts"]).arg(dir.path()).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("agent/scene.j2") && err.contains(":2"), "{err}");
    let out = bin().args(["play", "--horizon", "5", "--prompts", "/no/such/dir"]).output().unwrap();
    assert!(!out.status.success());
    // A good override is used.
    std::fs::write(dir.path().join("agent/scene.j2"), "{{ scene }}\nPlan for Player {{ me }}: \"<skill>\"\n").unwrap();
    let out = bin().args(["play", "--horizon", "40", "--json", "--prompts"]).arg(dir.path()).output().unwrap();
    assert!(json_lines(&out)[0]["llm_calls"].as_u64().unwrap() > 0);
}

#[test]
fn bench_agent_reports_its_figures() {
    let out = bin().args(["bench", "agent", "--episodes", "1", "--horizon", "50", "--json"]).output().unwrap();
    let r = &json_lines(&out)[0];
    for key in ["agent_us_per_step_excl_llm", "episode_ms", "llm_calls_per_episode", "score_mean"] {
        assert!(r[key].is_number(), "{key}: {r}");
    }
}

/// A cramped_room layout file whose orders are `orders` (overcooked_ai's format).
fn cramped_with_orders(dir: &std::path::Path, name: &str, orders: &str) -> std::path::PathBuf {
    let path = dir.join(format!("{name}.layout"));
    let text = format!(
        "{{\n    \"grid\":  \"\"\"XXPXX\n                O  2O\n                X1  X\n                XDXSX\"\"\",\n    \
         \"start_all_orders\" : [{orders}]\n}}\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn tomato_only_orders_are_refused_and_mixed_orders_play() {
    let dir = tempfile::tempdir().unwrap();
    let tomato =
        r#"{ "ingredients" : ["tomato", "tomato", "onion"]}, { "ingredients" : ["tomato", "tomato", "tomato"]}"#;
    let path = cramped_with_orders(dir.path(), "tomato_room", tomato);
    for args in [
        vec!["play", "--layout", path.to_str().unwrap(), "--horizon", "20", "--json"],
        vec![
            "eval",
            "--layouts",
            path.to_str().unwrap(),
            "--agents",
            "proagent",
            "--partners",
            "greedy",
            "--episodes",
            "1",
        ],
    ] {
        let mut cmd = bin();
        cmd.args(&args);
        if args[0] == "eval" {
            cmd.arg("--out").arg(dir.path().join("sweep"));
        }
        let out = cmd.output().unwrap();
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} ran on a tomato-only layout");
        assert!(
            e.contains("cannot play tomato_room") && e.contains("needs tomatoes") && e.contains("onion soup only"),
            "{e}"
        );
        assert!(!e.contains("panicked"), "{e}");
    }
    // Other seats still play it (greedy cooks whatever the layout holds).
    let out = bin()
        .args(["play", "--layout"])
        .arg(&path)
        .args(["--agent", "greedy", "--horizon", "20", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    // An onion order beside a tomato one: the agent plays and scores with onion soup.
    let mixed = r#"{ "ingredients" : ["tomato", "tomato", "tomato"]}, { "ingredients" : ["onion", "onion", "onion"]}"#;
    let path = cramped_with_orders(dir.path(), "mixed_room", mixed);
    let out = bin().args(["play", "--layout"]).arg(&path).args(["--horizon", "150", "--json"]).output().unwrap();
    let v = json_lines(&out);
    assert!(v[0]["score"].as_f64().unwrap() > 0.0, "{}", v[0]);
}
