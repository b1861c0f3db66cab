//! The cost guard, for every agent and every game: `--dry-run` of `play`, `eval` and `qa`
//! opens no connection to the model server (a loopback listener counts them), prices
//! LLM-Coordination seats from their measured call pattern and reports the cacheable
//! prompt share; a large LLM-Co sweep asks first; LLM-Co episode keys follow the server.

use crate::support::{bin, ok};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A loopback listener that accepts and drops every connection, counting them.
struct CountingListener {
    url: String,
    accepted: Arc<AtomicUsize>,
}

impl CountingListener {
    fn start() -> CountingListener {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/v1", listener.local_addr().unwrap());
        let accepted = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&accepted);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                count.fetch_add(1, Ordering::SeqCst);
                drop(stream);
            }
        });
        CountingListener { url, accepted }
    }

    fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }
}

/// The calls in the `| gpt-4o |` row of a dry run's table.
fn gpt_calls(s: &str) -> u64 {
    let row = s.lines().find(|l| l.starts_with("| gpt-4o |")).unwrap_or_else(|| panic!("no gpt-4o row: {s}"));
    row.split('|').nth(3).unwrap().trim().parse().unwrap()
}

#[test]
fn dry_runs_of_every_agent_on_every_game_open_no_connection() {
    let server = CountingListener::start();
    let flags = |c: &mut std::process::Command| {
        c.args(["--model", "gpt-4o", "--base-url", &server.url, "--dry-run", "--horizon", "12"]);
        c.args(["--price-per-mtok", "2.5,10,1.25"]);
    };
    // (game, agent, partner): both agents, every game they play.
    let cells = [
        ("cramped_room", "proagent", "greedy"),
        ("cramped_room", "llmco", "llmco"),
        ("v2:cramped_room", "proagent", "scripted"),
        ("hanabi", "llmco", "llmco"),
        ("capture:1", "llmco", "llmco"),
        ("escape:1", "llmco", "llmco"),
        ("lever", "llmco", "llmco"),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (layout, agent, partner) in cells {
        let mut play = bin();
        play.args(["play", "--layout", layout, "--agent", agent, "--partner", partner]);
        flags(&mut play);
        let s = ok(&play.output().unwrap());
        assert!(gpt_calls(&s) > 0 && s.contains("total price:") && s.contains("cacheable"), "{layout} {agent}: {s}");
        let who = if agent == "llmco" { "LLM-Co" } else { "ProAgent" };
        assert!(s.contains(&format!("{who} seats with gpt-4o:")) && s.contains("calls per decision"), "{s}");

        let mut eval = bin();
        eval.args(["eval", "--layouts", layout, "--agents", agent, "--partners", partner, "--seats", "0"]);
        eval.args(["--episodes", "2", "--out"]).arg(dir.path().join(layout.replace(':', "-")));
        flags(&mut eval);
        let s = ok(&eval.output().unwrap());
        assert!(s.contains("dry run: 2 episodes, 2 with a language-model seat"), "{layout} {agent}: {s}");
        assert!(gpt_calls(&s) > 0, "{s}");
        assert_eq!(server.accepted(), 0, "{layout} {agent}: a dry run opened a connection");
    }
    let mut qa = bin();
    qa.args(["qa", "--model", "gpt-4o", "--base-url", &server.url, "--dry-run", "--trials", "1"]);
    qa.args(["--filter", "game=Overcooked", "--price-per-mtok", "2.5,10,1.25"]);
    let s = ok(&qa.output().unwrap());
    assert!(s.contains("cacheable prompt tokens: ") && s.contains("1.25 per million cached"), "{s}");
    assert_eq!(server.accepted(), 0, "qa --dry-run opened a connection");
}

#[test]
fn llmco_seats_are_priced_with_their_tom_and_verification_calls() {
    // Hanabi's LLM-Co asks a ToM, an action and a verification call per decision.
    let s = ok(&bin()
        .args(["play", "--layout", "hanabi", "--agent", "llmco[model=gpt-4o]", "--partner", "convention"])
        .args(["--horizon", "10", "--dry-run", "--reasoning-tokens-per-call", "1000"])
        .args(["--price-per-mtok", "2,8,0.5"])
        .output()
        .unwrap());
    let line = s.lines().find(|l| l.starts_with("LLM-Co seats with gpt-4o:")).unwrap_or_else(|| panic!("{s}"));
    assert!(line.contains("action 1.00") && line.contains("tom 1.00") && line.contains("verify 1.00"), "{line}");
    assert!(s.contains("reasoning tokens: 1000 per call"), "{s}");
    // The price: fresh prompt tokens at 2, cached at 0.5, (bound + reasoning) completions at 8.
    let row = s.lines().find(|l| l.starts_with("| gpt-4o |")).unwrap();
    let cols: Vec<&str> = row.split('|').map(str::trim).collect();
    let calls: f64 = cols[3].parse().unwrap();
    let prompt: f64 = cols[4].parse().unwrap();
    let bound: f64 = cols[5].split('/').nth(1).unwrap().trim().parse().unwrap();
    let cached: f64 = cols[8].split_whitespace().next().unwrap().parse().unwrap();
    assert!(cached > 0.0 && cached < prompt, "{row}");
    let want = ((prompt - cached) * 2.0 + cached * 0.5 + (bound + calls * 1000.0) * 8.0) / 1e6;
    let price: f64 = cols[7].parse().unwrap();
    assert!((price - want).abs() < 0.006, "{price} vs {want}: {row}");
}

#[test]
fn a_150_episode_llmco_sweep_without_a_terminal_needs_yes() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("sweep");
    let dead = format!("http://127.0.0.1:{}/v1", crate::fake_server::dead_port());
    let out = bin()
        .args(["eval", "--layouts", "hanabi", "--agents", "llmco[model=gpt-4o]", "--partners", "convention"])
        .args(["--seats", "0", "--episodes", "150", "--base-url", &dead, "--retries", "0", "--out"])
        .arg(&out_dir)
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{e}");
    assert!(e.contains("150 episodes with a served model (gpt-4o)") && e.contains("pass --yes"), "{e}");
    assert!(!out_dir.exists());
    // play asks the same for an LLM-Co seat.
    let out = bin()
        .args(["play", "--layout", "hanabi", "--agent", "llmco[model=gpt-4o]", "--partner", "convention"])
        .args(["--episodes", "2", "--confirm-above", "1", "--base-url", &dead])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && e.contains("pass --yes"), "{e}");
}

/// Runs a small LLM-Co sweep on Hanabi against a model server; returns stderr and results.
async fn llmco_sweep(base_url: &str, out: &std::path::Path) -> (String, Vec<serde_json::Value>) {
    let mut cmd = bin();
    cmd.args(["eval", "--layouts", "hanabi", "--agents", "llmco", "--partners", "convention", "--seats", "0"])
        .args(["--horizon", "4", "--model", "served-name", "--base-url", base_url, "--backoff-ms", "5"])
        .args(["--max-parse-failure-share", "1", "--quiet", "--no-report", "--out"])
        .arg(out);
    let o = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    let text = std::fs::read_to_string(out.join(proagent::eval::store::RESULTS_FILE)).unwrap();
    (err, text.lines().map(|l| serde_json::from_str(l).unwrap()).collect())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn llmco_episode_keys_follow_the_model_server() {
    use proagent_mock::{EchoPlanner, MockConfig, MockServer};
    let serve = |id: &str| {
        let cfg = MockConfig { model_id: id.into(), ..MockConfig::default() };
        MockServer::start_local(Arc::new(EchoPlanner), cfg)
    };
    let (a, a_again, b) =
        (serve("weights-a").await.unwrap(), serve("weights-a").await.unwrap(), serve("weights-b").await.unwrap());
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("keys");
    let (err, recs) = llmco_sweep(&a.base_url(), &out).await;
    assert!(err.contains("already finished: 0; to play: 1"), "{err}");
    assert!(recs.iter().all(|r| r["agent_settings"]["server"]["id"] == "weights-a"), "{recs:?}");
    // The same model from another process: reused. Other weights under the same name: played again.
    let (err, _) = llmco_sweep(&a_again.base_url(), &out).await;
    assert!(err.contains("already finished: 1; to play: 0"), "{err}");
    let (err, _) = llmco_sweep(&b.base_url(), &out).await;
    assert!(err.contains("already finished: 0; to play: 1"), "{err}");
    for s in [a, a_again, b] {
        s.shutdown().await;
    }
}

#[test]
fn a_transcript_shows_the_same_cacheable_share_as_the_dry_run() {
    let dir = tempfile::tempdir().unwrap();
    let t = dir.path().join("t.jsonl");
    let run = ["play", "--layout", "hanabi", "--agent", "llmco", "--partner", "convention", "--horizon", "10"];
    ok(&bin().args(run).arg("--transcript").arg(&t).output().unwrap());
    let dry = ok(&bin().args(run).arg("--dry-run").output().unwrap());
    let row = dry.lines().find(|l| l.starts_with("| rule-based")).unwrap_or_else(|| panic!("{dry}"));
    let cols: Vec<&str> = row.split('|').map(str::trim).collect();
    let shown = ok(&bin().arg("show").arg(&t).arg("--prompt-cache").output().unwrap());
    let line = shown.lines().find(|l| l.starts_with("| the model's seat |")).unwrap_or_else(|| panic!("{shown}"));
    let got: Vec<&str> = line.split('|').map(str::trim).collect();
    // calls, prompt tokens, cacheable tokens (share): the same requests, counted the same way.
    assert_eq!((got[3], got[4], got[5]), (cols[3], cols[4], cols[8]), "{shown}\n{dry}");
    assert!(!cols[8].starts_with("0 "), "{row}");
    // Nothing reported by a server: the stand-in reports no cache.
    assert!(got[6].starts_with("0 "), "{line}");
    let e = bin().args(["show", "--prompt-cache"]).output().unwrap();
    assert_eq!(e.status.code(), Some(2), "{}", String::from_utf8_lossy(&e.stderr));
}
