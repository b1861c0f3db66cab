//! The LLM-Coordination paper's tables, one command each (issue 40, item 4):
//! `eval --protocol llmco-table1|llmco-table2|llmco-table3`. A dry run sends nothing; a run
//! prints the published rows beside ours with model, preset and trials; a pilot says it is
//! one; replies from the rule-based stand-in or the built-in mock server are labelled as
//! stand-in output (and a real server's are not); every episode is scored, as the paper's
//! were, even when no reply could be read.

use crate::fake_server::{Canned, CannedServer};
use crate::support::{run, text};
use proagent::agent::grounding::overcooked::scripted::ScriptedModel;
use proagent::agent::llmco::router::LlmcoStandIns;
use proagent_mock::{MockConfig, MockFault, MockServer};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;

fn protocol(table: &str, out: &Path, extra: &[&str]) -> Command {
    let mut c = crate::support::bin();
    c.args(["eval", "--protocol", table, "--quiet", "--concurrency", "2"]).args(extra).arg("--out").arg(out);
    c
}

fn records(dir: &Path) -> Vec<Value> {
    match std::fs::read_to_string(dir.join("results.jsonl")) {
        Ok(t) => t.lines().map(|l| serde_json::from_str(l).unwrap()).collect(),
        Err(_) => Vec::new(),
    }
}

/// A loopback server answering the LLM-Co prompts with the games' rule-based stand-ins.
async fn mock(cfg: MockConfig) -> MockServer {
    MockServer::start_local(Arc::new(LlmcoStandIns::new(Arc::new(ScriptedModel::new()))), cfg).await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_table_dry_runs_for_a_named_model_and_sends_nothing() {
    let counting = CannedServer::start(vec![Canned::reply("Action: A")]).await;
    let dir = tempfile::tempdir().unwrap();
    for (table, episodes) in [("llmco-table1", 15), ("llmco-table2", 36), ("llmco-table3", 3)] {
        let out_dir = dir.path().join(table);
        let out = run(protocol(
            table,
            &out_dir,
            &["--dry-run", "--model", "gpt-4o", "--base-url", &counting.base_url(), "--price-per-mtok", "2.5,10"],
        ))
        .await;
        let (o, e) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{table}: {o}\n{e}");
        assert!(
            o.contains(&format!("{table} protocol, dry run:")) && o.contains("model gpt-4o, preset paper"),
            "{table}: {o}"
        );
        assert!(o.contains(&format!("; {episodes} episodes\n")), "{table}: the protocol's plan: {o}");
        assert!(o.contains("dry run:"), "{table}: the dry run's table: {o}");
        assert!(!out_dir.exists(), "{table}: a dry run wrote {}", out_dir.display());
    }
    assert_eq!(counting.hits(), 0, "a dry run sends nothing, not even the server identity request");
    // A pilot plans fewer trials and says so.
    let out = run(protocol("llmco-table3", &dir.path().join("pilot"), &["--dry-run", "--episodes", "2"])).await;
    let o = text(&out.stdout);
    assert!(out.status.success(), "{o}\n{}", text(&out.stderr));
    assert!(o.contains("; 2 episodes (pilot: 2 of 3 trials)"), "{o}");
}

#[test]
fn the_protocols_fix_their_seats_layouts_and_trials() {
    let dir = tempfile::tempdir().unwrap();
    for (extra, flag) in [
        (&["--agents", "llmco"][..], "--agents"),
        (&["--partners", "llmco"][..], "--agents/--partners"),
        (&["--layouts", "hanabi"][..], "--layouts"),
        (&["--episodes", "4"][..], "--episodes"),
        (&["--horizon", "100"][..], "--horizon"),
        (&["--seats", "1"][..], "--seats"),
    ] {
        let out = protocol("llmco-table3", &dir.path().join("x"), extra).arg("--dry-run").output().unwrap();
        let e = text(&out.stderr);
        assert!(!out.status.success(), "{extra:?} accepted");
        assert!(e.contains(flag) && e.contains("llmco-table3"), "{extra:?}: {e}");
    }
    // table1 still needs its agents named.
    let out = crate::support::bin()
        .args(["eval", "--protocol", "table1", "--dry-run", "--out"])
        .arg(dir.path().join("t1"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("--agents"), "{}", text(&out.stderr));
}

/// A pilot of each table with the built-in stand-in: the published rows (model names as
/// published) beside ours, model, preset, trials, the pilot and stand-in labels, and the
/// table written next to the results.
#[test]
fn each_table_prints_the_published_rows_beside_a_labelled_stand_in_pilot() {
    let dir = tempfile::tempdir().unwrap();
    for (table, published, episodes) in [
        ("llmco-table1", ["| paper, Table 1 | LLM-Co agent | GPT-4-turbo |", "| paper, Table 1 | RL | PBT |"], 5),
        ("llmco-table2", ["| paper, Table 2 | LLM-Co agent, without ToM | GPT-4-turbo |", "Greedy Baseline"], 12),
        ("llmco-table3", ["| paper, Table 3 | LLM-Co agent | Mixtral-8x7b |", "Off-Belief Learning"], 1),
    ] {
        let out_dir = dir.path().join(table);
        let out = protocol(table, &out_dir, &["--episodes", "1"]).output().unwrap();
        let (o, e) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{table}: {o}\n{e}");
        let md = std::fs::read_to_string(out_dir.join(format!("{table}.md"))).unwrap();
        assert!(o.contains(&md), "{table}: the table printed is the table written");
        assert!(md.contains(&format!("# LLM-Coordination protocol {table}")), "{md}");
        for row in published {
            assert!(md.contains(row), "{table}: {row}: {md}");
        }
        let seat = format!("Seat: `{}` (preset paper)", proagent::eval::llmco_protocol::PAPER_SEAT);
        assert!(md.contains(&seat), "{table}: {md}");
        assert!(md.contains("**Pilot:** 1 of the protocol's 3 trials"), "{table}: {md}");
        assert!(md.contains("**Stand-in output:**") && md.contains("rule-based stand-in, not an LLM"), "{md}");
        assert!(md.contains("Every episode is scored"), "{md}");
        let ours: Vec<&str> = md.lines().filter(|l| l.starts_with("| ours |")).collect();
        assert!(!ours.is_empty() && ours.iter().all(|l| l.contains("not an LLM")), "{table}: {md}");
        let recs = records(&out_dir);
        assert_eq!(recs.len(), episodes, "{table}: {e}");
        assert!(recs.iter().all(|r| r["agent"] == r["partner"] && r["seat"] == 0), "{table}: self-play only");
        if table == "llmco-table3" {
            assert_eq!(recs[0]["seed"], 321, "the release's first self-play seed");
            assert!(md.contains("| 1 (321) |"), "{md}");
        }
        if table == "llmco-table2" {
            // With and without ToM, each on every scenario of both games.
            assert_eq!(ours.len(), 2, "{md}");
            assert!(ours.iter().any(|l| l.contains("tom=")), "{md}");
        }
    }
}

/// Served by the built-in mock server: every report says the replies are the stand-ins'
/// (results records, the sweep report, the protocol table), and replies a prose-only mock
/// sends (none readable) still give a scored episode, as the paper scored every run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mock_served_run_is_labelled_stand_in_and_every_episode_is_scored() {
    let working = mock(MockConfig::default()).await;
    let prose =
        mock(MockConfig { fault_rate: 1.0, fault_kinds: vec![MockFault::Prose], ..MockConfig::default() }).await;
    let dir = tempfile::tempdir().unwrap();
    for (server, name) in [(&working, "working"), (&prose, "prose")] {
        let out_dir = dir.path().join(name);
        let out = run(protocol(
            "llmco-table3",
            &out_dir,
            &["--episodes", "1", "--model", "m", "--base-url", &server.base_url(), "--retries", "0"],
        ))
        .await;
        let (o, e) = (text(&out.stdout), text(&out.stderr));
        assert!(out.status.success(), "{name}: every episode is scored: {o}\n{e}");
        let recs = records(&out_dir);
        assert_eq!(recs.len(), 1, "{name}: {e}");
        let server_id = &recs[0]["agent_settings"]["server"];
        assert_eq!(server_id["owned_by"], proagent::llm::MOCK_SERVER_OWNER, "{name}: {}", recs[0]);
        assert!(server_id["stand_in"].as_str().is_some_and(|s| s.contains("not an LLM")), "{name}: {server_id}");
        let md = std::fs::read_to_string(out_dir.join("llmco-table3.md")).unwrap();
        let ours = md.lines().find(|l| l.starts_with("| ours |")).unwrap_or_else(|| panic!("{md}"));
        assert!(ours.contains("m: served by the built-in mock server") && ours.contains("not an LLM"), "{ours}");
        let report = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
        assert!(report.contains("**Stand-in output:**") && report.contains("built-in mock server"), "{report}");
        let unread = ours.trim_end_matches(" |").rsplit("| ").next().unwrap_or("");
        if name == "prose" {
            assert_ne!(unread, "0.0%", "no decision was read, and the episode still counts: {ours}");
        } else {
            assert_eq!(unread, "0.0%", "{ours}");
        }
    }
}

/// A server that is not the mock is never labelled stand-in, whatever its model is called.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_server_is_not_labelled_stand_in() {
    let models = r#"{"object":"list","data":[{"id":"proagent-mock","object":"model","created":0,"owned_by":"vllm"}]}"#;
    let server = CannedServer::start(vec![Canned::json(200, models), Canned::reply("Action: A")]).await;
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("real");
    let out = run(protocol(
        "llmco-table3",
        &out_dir,
        &["--episodes", "1", "--model", "proagent-mock", "--base-url", &server.base_url()],
    ))
    .await;
    let (o, e) = (text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{o}\n{e}");
    assert!(server.hits() > 1, "the game was played over HTTP");
    let md = std::fs::read_to_string(out_dir.join("llmco-table3.md")).unwrap();
    assert!(!md.contains("Stand-in output") && !md.contains("not an LLM"), "{md}");
    let report = std::fs::read_to_string(out_dir.join("report.md")).unwrap();
    assert!(!report.contains("Stand-in output"), "{report}");
    let recs = records(&out_dir);
    assert_eq!(recs[0]["agent_settings"]["server"]["owned_by"], "vllm");
    assert!(recs[0]["agent_settings"]["server"].get("stand_in").is_none(), "{}", recs[0]);
}
