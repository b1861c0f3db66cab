//! A sweep whose episodes talk to the OpenAI-compatible mock server over
//! loopback HTTP, many at once: LLM waits overlap, usage and LLM time are
//! accounted per episode, and a failing episode is retried by the next run.
//! These use the `ChatRunner` stand-in to measure the scheduler; the real ProAgent
//! episode runner against dead, refusing and failing servers is in `tests/it/outage.rs`.

use proagent::eval::plan::{LayoutRef, SweepSpec, cross_product};
use proagent::eval::scheduler::run_episodes;
use proagent::eval::store::{RESULTS_FILE, ResultSet, ResultWriter};
use proagent::eval::{ChatRunner, SchedulerOptions};
use proagent::llm::http::{HttpConfig, OpenAiModel};
use proagent_mock::{EchoPlanner, MockConfig, MockFault, MockServer};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn plan(episodes: u32) -> Vec<proagent::eval::PlannedEpisode> {
    cross_product(&SweepSpec {
        layouts: vec![LayoutRef { name: "cramped_room".into(), sha256: "x".into() }],
        agents: vec!["proagent".into()],
        partners: vec!["greedy".into(), "stay".into()],
        seats: vec![0, 1],
        episodes,
        seed: 0,
        horizon: 400,
        runner: ChatRunner::NAME.into(),
        spec_configs: Default::default(),
    })
}

fn client(server: &MockServer, retries: u32) -> Arc<OpenAiModel> {
    let mut cfg = HttpConfig::new();
    cfg.base_url = server.base_url();
    cfg.connect_timeout = Duration::from_secs(5);
    cfg.request_timeout = Duration::from_secs(10);
    cfg.max_retries = retries;
    cfg.backoff_base = Duration::from_millis(5);
    cfg.backoff_max = Duration::from_millis(20);
    Arc::new(OpenAiModel::new("mock", cfg).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_sweep_through_the_http_backend() {
    let latency = Duration::from_millis(300);
    // The first request is rate-limited once: retried inside the episode, not a failure.
    let cfg = MockConfig {
        latency,
        fault_plan: vec![Some(MockFault::RateLimited)],
        retry_after_secs: 0,
        ..MockConfig::default()
    };
    let server = MockServer::start_local(Arc::new(EchoPlanner), cfg).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(RESULTS_FILE);
    let (w, _) = ResultWriter::open(&path).unwrap();
    let todo = plan(4); // 16 episodes × 3 calls × 300 ms = 14.4 s one at a time
    let runner = Arc::new(ChatRunner { model: client(&server, 3), calls: 3 });
    let opts = SchedulerOptions::quiet(16, dir.path().to_path_buf());
    let t0 = Instant::now();
    let s = run_episodes(todo, runner, w.spawn(), &opts, std::future::pending()).await.unwrap();
    let wall = t0.elapsed();
    assert!(s.failures.is_empty(), "{:?}", s.failures);
    assert_eq!(s.completed, 16);
    // All 16 episodes wait together: about 3 × 300 ms, far from the 14.4 s of a serial run.
    assert!(wall < Duration::from_secs(5), "16 concurrent LLM episodes took {wall:?}");
    let stats = server.stats();
    assert_eq!(stats.requests, 16 * 3 + 1, "48 calls and one retried 429");
    let mut set = ResultSet::new();
    assert!(set.load_file(&path).unwrap().is_none());
    assert_eq!(set.len(), 16);
    for r in set.records() {
        assert_eq!(r.llm_calls, 3);
        assert!(r.prompt_tokens > 0 && r.completion_tokens > 0, "{r:?}");
        assert!(r.llm_wall_s >= 3.0 * latency.as_secs_f64() * 0.95, "{r:?}");
        assert!(r.episode_wall_s >= r.llm_wall_s * 0.99, "{r:?}");
    }
    server.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_episode_whose_model_fails_is_not_recorded_and_a_rerun_plays_it() {
    // Three server errors in a row with no retries allowed: those episodes fail.
    let cfg = MockConfig { fault_plan: vec![Some(MockFault::ServerError); 3], ..MockConfig::default() };
    let server = MockServer::start_local(Arc::new(EchoPlanner), cfg).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(RESULTS_FILE);
    let opts = SchedulerOptions::quiet(1, dir.path().to_path_buf());
    let runner = Arc::new(ChatRunner { model: client(&server, 0), calls: 1 });
    let (w, _) = ResultWriter::open(&path).unwrap();
    let s = run_episodes(plan(2), runner.clone(), w.spawn(), &opts, std::future::pending()).await.unwrap();
    assert_eq!(s.failures.len(), 3);
    assert!(s.failures[0].error.contains("LLM call 0"), "{}", s.failures[0].error);
    assert_eq!(s.completed, 5);
    // The rerun skips the 5 recorded keys and plays the 3 failed ones.
    let (w, _) = ResultWriter::open(&path).unwrap();
    let mut done = ResultSet::new();
    done.load_file(&path).unwrap();
    let todo: Vec<_> = plan(2).into_iter().filter(|p| !done.contains(&p.config_hash)).collect();
    assert_eq!(todo.len(), 3);
    let s = run_episodes(todo, runner, w.spawn(), &opts, std::future::pending()).await.unwrap();
    assert!(s.failures.is_empty());
    let mut all = ResultSet::new();
    all.load_file(&path).unwrap();
    assert_eq!(all.len(), 8);
    assert_eq!(all.duplicates, 0);
    server.shutdown().await;
}

/// Runs `proagent eval` (one layout, a ProAgent against greedy and a BC weight file) against
/// a model server; returns its stderr and the results.
async fn keyed_sweep(base_url: &str, bc: &std::path::Path, out: &std::path::Path) -> (String, Vec<serde_json::Value>) {
    let mut cmd = crate::support::bin();
    cmd.args(["eval", "--layouts", "cramped_room", "--agents", "proagent", "--partners"])
        .arg(format!("greedy,bc:{}", bc.display()))
        .args(["--seats", "0", "--horizon", "30", "--model", "served-name", "--base-url", base_url])
        .args(["--backoff-ms", "5", "--quiet", "--no-report", "--out"])
        .arg(out);
    let o = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    let text = std::fs::read_to_string(out.join(RESULTS_FILE)).unwrap();
    (err, text.lines().map(|l| serde_json::from_str(l).unwrap()).collect())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn episode_keys_follow_the_model_server_and_the_bc_weight_file() {
    use proagent::agent::grounding::overcooked::scripted::ScriptedModel;
    let serve = |id: &str| {
        let cfg = MockConfig { model_id: id.into(), ..MockConfig::default() };
        MockServer::start_local(Arc::new(ScriptedModel::new()), cfg)
    };
    let (a, a_again, b) =
        (serve("weights-a").await.unwrap(), serve("weights-a").await.unwrap(), serve("weights-b").await.unwrap());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("keys");
    let bc = dir.path().join("partner.safetensors");
    let shipped = |split: &str| format!("{}/data/bc/cramped_room_{split}.safetensors", env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(shipped("train"), &bc).unwrap();

    let (err, recs) = keyed_sweep(&a.base_url(), &bc, &out).await;
    assert!(err.contains("already finished: 0; to play: 2"), "{err}");
    assert!(recs.iter().all(|r| r["agent"] == "proagent[served-name]"), "named by the model");
    assert!(recs.iter().all(|r| r["agent_settings"]["server"]["id"] == "weights-a"), "{recs:?}");
    let bc_rec = recs.iter().find(|r| r["partner"].as_str().unwrap().starts_with("bc:")).unwrap();
    assert_eq!(bc_rec["partner_settings"]["sha256"].as_str().unwrap().len(), 64);
    // Another server process that says it serves the same model: results are reused.
    let (err, _) = keyed_sweep(&a_again.base_url(), &bc, &out).await;
    assert!(err.contains("already finished: 2; to play: 0"), "{err}");
    // A server that serves other weights: every ProAgent episode is played again.
    let (err, _) = keyed_sweep(&b.base_url(), &bc, &out).await;
    assert!(err.contains("already finished: 0; to play: 2"), "{err}");
    // Other weights in the BC file: only the episode with that partner is played again.
    std::fs::copy(shipped("test"), &bc).unwrap();
    let (err, recs) = keyed_sweep(&a.base_url(), &bc, &out).await;
    assert!(err.contains("already finished: 1; to play: 1"), "{err}");
    assert_eq!(recs.len(), 5, "2 with server a, 2 with server b, 1 with the new weights");
    for s in [a, a_again, b] {
        s.shutdown().await;
    }
}
