//! `llmco[preset=paper]`, the LLM-Coordination agent as released, checked on what a seat
//! sends: a recording loopback server ([`CannedServer`]) answers every request and keeps
//! its body, and the tests read the sampling, the action lists and the prompt sections
//! from there. Also: the paper preset's committed transcripts (one per game, played with
//! the offline stand-in) replay and re-play byte for byte, and CollabCapture's
//! Theory-of-Mind step is a real extra call. The paper preset's Hanabi and maze state
//! descriptions carry the paper's elements in its order; it sends no token cap, and its dry
//! run states the reply length it assumes; `play` served by the built-in mock server says
//! its replies are stand-in output.

use super::fake_server::{Canned, CannedServer};
use super::support::bin;
use crate::support::ok;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A reply every request kind can read: the action lists' first option, and an okay.
const AGREEABLE: &str = "Explanation: the first action is fine.\nAction: A\nVerification: Okay";

/// Plays `layout` with `agent` (served by `server`) beside `partner`, off the test's
/// runtime threads so the server keeps answering.
async fn play(server: &CannedServer, layout: &str, agent: &str, partner: &str, extra: &[&str]) -> String {
    let mut cmd = bin();
    cmd.args(["play", "--layout", layout, "--agent", agent, "--partner", partner, "--model", "recorded"])
        .args(["--base-url", &server.base_url(), "--no-transcript", "--json"])
        .args(extra);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    ok(&out)
}

/// The text of every message of a request, joined.
fn messages(body: &Value) -> Vec<String> {
    body["messages"].as_array().unwrap().iter().map(|m| m["content"].as_str().unwrap_or("").to_string()).collect()
}

fn last_user(body: &Value) -> String {
    messages(body).last().cloned().unwrap_or_default()
}

fn close(v: &Value, want: f64) -> bool {
    v.as_f64().is_some_and(|x| (x - want).abs() < 1e-6)
}

/// The offered actions of a request's last message (letters removed).
fn offered(text: &str) -> Vec<String> {
    let Some(at) = text.rfind("Available actions") else { return Vec::new() };
    text[at..]
        .lines()
        .skip(1)
        .filter_map(|l| l.trim().split_once(". ").map(|(_, rest)| rest.to_string()))
        .filter(|o| !o.is_empty())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_paper_preset_sends_the_released_sampling_per_game() {
    // (layout, partner, the released top_p)
    let games = [("hanabi", "simple", 1.0), ("capture:1", "greedy_baseline", 0.9), ("escape:1", "fixer", 0.9)];
    for (layout, partner, top_p) in games {
        let server = CannedServer::start(vec![Canned::reply(AGREEABLE)]).await;
        play(&server, layout, "llmco[recorded,preset=paper]", partner, &[]).await;
        let bodies = server.request_bodies();
        assert!(!bodies.is_empty(), "{layout}");
        for b in &bodies {
            assert!(close(&b["temperature"], 0.6), "{layout}: {b}");
            assert!(close(&b["top_p"], top_p), "{layout}: {b}");
            // No token cap, as the released agent sends none.
            assert!(b.get("max_tokens").is_none() && b.get("max_completion_tokens").is_none(), "{layout}: {b}");
        }
        // The default preset keeps ours: greedy, with our cap.
        let server = CannedServer::start(vec![Canned::reply(AGREEABLE)]).await;
        play(&server, layout, "llmco[recorded]", partner, &[]).await;
        for b in &server.request_bodies() {
            assert!(close(&b["temperature"], 0.0) && close(&b["top_p"], 1.0), "{layout}: {b}");
            assert_eq!(b["max_tokens"], 256, "{layout}");
        }
    }
    // Overcooked (a short run), and a number set on purpose is kept.
    let server = CannedServer::start(vec![Canned::reply(AGREEABLE)]).await;
    play(&server, "cramped_room", "llmco[recorded,preset=paper,temperature=0.2]", "greedy", &["--horizon", "20"]).await;
    for b in &server.request_bodies() {
        assert!(close(&b["temperature"], 0.2) && close(&b["top_p"], 0.9), "{b}");
    }
    // A cap set on purpose is sent.
    let server = CannedServer::start(vec![Canned::reply(AGREEABLE)]).await;
    play(&server, "capture:1", "llmco[recorded,preset=paper,max_tokens=300]", "greedy_baseline", &[]).await;
    for b in &server.request_bodies() {
        assert_eq!(b["max_tokens"], 300, "{b}");
    }
}

/// The first position of each of `parts` in `text`, in order; panics naming the first
/// part missing or out of order.
fn in_order(text: &str, parts: &[&str]) {
    let mut at = 0;
    for p in parts {
        match text[at..].find(p) {
            Some(i) => at += i + p.len(),
            None => panic!("{p:?} missing, or not after {:?}:\n{text}", &text[..at.min(text.len())]),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_paper_preset_states_hanabi_in_the_released_order_without_clue_marks() {
    // Each kind of request (action, Theory of Mind, verification) once the history is not empty.
    let paper = CannedServer::start(vec![Canned::reply(AGREEABLE)]).await;
    play(&paper, "hanabi", "llmco[recorded,preset=paper]", "simple", &["--horizon", "40"]).await;
    let texts: Vec<String> = paper.request_bodies().iter().map(last_user).collect();
    let with_history: Vec<&String> = texts.iter().filter(|t| t.contains("My action history:")).collect();
    let paper_order = [
        "It is my (Alice's) turn.",
        "Current stacks (cards on each): Red ",
        "My Card 0 could be: [",
        "I can see Bob's cards: Card 0: ",
        "Bob thinks their Card 0 could be: [",
        "Remaining reveal tokens: ",
        "Remaining lives: ",
        "Deck size: ",
        "The discard pile: ",
        "My action history: ",
        "Next playable cards: ",
    ];
    for kind in ["Available actions:", "Available actions for me:", "My selected action:"] {
        let t = with_history.iter().find(|t| t.contains(kind)).unwrap_or_else(|| panic!("no {kind:?} request"));
        in_order(t, &paper_order);
        assert_eq!(t.matches("My action history:").count(), 1, "{t}");
    }
    // The released agent marks no clued card: only the narrowed colours and ranks.
    assert!(texts.iter().all(|t| !t.contains("(clued")), "a clue mark in the paper preset");
    let narrowed = |t: &String| {
        t.lines()
            .any(|l| l.contains(" could be: [") && !l.ends_with("[Red, Yellow, Green, White, Blue] [1, 2, 3, 4, 5]"))
    };
    assert!(texts.iter().any(narrowed), "a clue narrows a card's colours or ranks");

    // The default preset keeps ours: history first, the next playable cards beside the
    // stacks, the clued cards marked.
    let ours = CannedServer::start(vec![Canned::reply(AGREEABLE)]).await;
    play(&ours, "hanabi", "llmco[recorded]", "simple", &["--horizon", "40"]).await;
    let texts: Vec<String> = ours.request_bodies().iter().map(last_user).collect();
    let t = texts.iter().find(|t| t.contains("My action history:") && t.contains("Available actions:")).unwrap();
    in_order(
        t,
        &["My action history: ", "It is my (Alice's) turn.", "Current stacks", "Next playable cards: ", "My Card 0"],
    );
    assert!(texts.iter().any(|t| t.contains("(clued")), "the default preset marks clued cards");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_paper_preset_states_the_maze_games_as_the_paper_does() {
    // CollabCapture (Appendix D.3): my room, the partner's, the thief's, then every door.
    let server = CannedServer::start(vec![Canned::reply(AGREEABLE)]).await;
    play(&server, "capture:1", "llmco[recorded,preset=paper]", "greedy_baseline", &["--horizon", "3"]).await;
    let t = last_user(&server.request_bodies()[1]);
    in_order(
        &t,
        &["I (Alice) am in room ", "Bob is in room ", "The thief is in room ", "The door between room ", " is "],
    );
    assert!(!t.contains("Turn "), "{t}");
    // CollabEscape (Appendix D.1 and the released agent): my room (and my repair), the
    // partner's (and theirs), the killer and where it goes, each generator, the gate.
    let server = CannedServer::start(vec![Canned::reply(AGREEABLE)]).await;
    play(&server, "escape:1", "llmco[recorded,preset=paper]", "fixer", &["--horizon", "3"]).await;
    let t = last_user(&server.request_bodies()[1]);
    in_order(
        &t,
        &[
            "I (Alice) am in room ",
            "Bob is in room ",
            "The killer is in room ",
            "The killer ",
            "The generator in room ",
            "The generator in room ",
            "The exit gate in room ",
        ],
    );
    assert!(!t.contains("Turn "), "{t}");
}

/// The dry run prices a paper-preset seat, which sends no cap, at a stated reply length.
#[test]
fn the_paper_preset_dry_run_states_and_uses_its_assumed_reply_length() {
    let dry = |agent: &str| -> String {
        ok(&bin()
            .args(["play", "--layout", "capture:1", "--agent", agent, "--partner", "greedy_baseline"])
            .args(["--model", "gpt-4o", "--dry-run", "--price-per-mtok", "2.5,10"])
            .output()
            .unwrap())
    };
    // | gpt-4o | episodes | calls | prompt | stand-in / at most | ...
    let bound = |out: &str| -> (u64, u64) {
        let row = out.lines().find(|l| l.starts_with("| gpt-4o |")).unwrap_or_else(|| panic!("{out}"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let most = cells[5].rsplit(" / ").next().unwrap().parse().unwrap();
        (cells[3].parse().unwrap(), most)
    };
    let out = dry("llmco[gpt-4o,preset=paper]");
    let (calls, most) = bound(&out);
    assert!(calls > 0 && most == calls * 4096, "{out}");
    assert!(
        out.contains("send no token cap")
            && out.contains("assumed to be at most 4096 tokens")
            && out.contains("GPT-4-turbo"),
        "{out}"
    );
    let out = dry("llmco[gpt-4o,preset=paper,max_tokens=300]");
    let (calls, most) = bound(&out);
    assert!(most == calls * 300 && !out.contains("send no token cap"), "{out}");
    let out = dry("llmco[gpt-4o]");
    let (calls, most) = bound(&out);
    assert!(most == calls * 256 && !out.contains("send no token cap"), "{out}");
}

/// `play` served by the built-in mock server labels its output stand-in (text and JSON);
/// served by another server it prints what it always did.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_labels_a_mock_served_run_as_stand_in_output_and_no_other() {
    use proagent::agent::grounding::overcooked::scripted::ScriptedModel;
    use proagent::agent::llmco::router::LlmcoStandIns;
    let mock = proagent_mock::MockServer::start_local(
        std::sync::Arc::new(LlmcoStandIns::new(std::sync::Arc::new(ScriptedModel::new()))),
        proagent_mock::MockConfig::default(),
    )
    .await
    .unwrap();
    let run = |base: String, json: bool| async move {
        let mut cmd = bin();
        cmd.args(["play", "--layout", "capture:1", "--agent", "llmco[m]", "--partner", "greedy_baseline"]).args([
            "--base-url",
            &base,
            "--no-transcript",
        ]);
        if json {
            cmd.arg("--json");
        }
        let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
        ok(&out)
    };
    let mark = "served by the built-in mock server: rule-based stand-in replies, not an LLM";
    let text = run(mock.base_url(), false).await;
    assert!(text.lines().next().unwrap().ends_with(&format!("({mark})")), "{text}");
    let json = run(mock.base_url(), true).await;
    let line: Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert_eq!(line["stand_in"], mark, "{json}");
    let other = CannedServer::start(vec![Canned::reply(AGREEABLE)]).await;
    let text = run(other.base_url(), false).await;
    assert!(!text.contains("stand-in") && !text.contains("not an LLM"), "{text}");
    let json = run(other.base_url(), true).await;
    let line: Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    assert!(line.get("stand_in").is_none(), "{json}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn counter_circuit_offers_the_island_counters_in_both_presets() {
    for agent in ["llmco[recorded]", "llmco[recorded,preset=paper]"] {
        // Always the first action: fetch an onion, then it is offered the cookers and the island.
        let server = CannedServer::start(vec![Canned::reply(AGREEABLE)]).await;
        play(&server, "counter_circuit", agent, "greedy", &["--horizon", "30"]).await;
        let bodies = server.request_bodies();
        let game = messages(&bodies[0])[1].clone();
        assert!(game.contains("shared counters (s0, s1, s2, s3) on the island"), "{agent}: {game}");
        let lists: Vec<Vec<String>> = bodies.iter().map(|b| offered(&last_user(b))).collect();
        let holding_onion = lists.iter().find(|l| l.iter().any(|o| o == "place onion in c0"));
        let l = holding_onion.unwrap_or_else(|| panic!("{agent}: never held an onion: {lists:?}"));
        for s in ["s0", "s1", "s2", "s3"] {
            assert!(l.contains(&format!("place onion in {s}")), "{agent}: {l:?}");
        }
        assert!(lists[0].contains(&"pick up onion from o0".to_string()), "{agent}: {:?}", lists[0]);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_paper_preset_leaves_out_our_hints() {
    let cases = [
        ("hanabi", "simple", vec!["a clue also tells what the giver wants"]),
        ("capture:1", "greedy_baseline", vec!["Chasing alone rarely works", "Turn 1 of "]),
        ("escape:1", "fixer", vec!["Turn 1 of "]),
        ("cramped_room", "greedy", vec!["Timesteps left: "]),
    ];
    for (layout, partner, hints) in cases {
        for (agent, present) in [("llmco[recorded]", true), ("llmco[recorded,preset=paper]", false)] {
            let server = CannedServer::start(vec![Canned::reply(AGREEABLE)]).await;
            play(&server, layout, agent, partner, &["--horizon", "10"]).await;
            let text: String = server.request_bodies().iter().flat_map(messages).collect::<Vec<_>>().join("\n");
            for h in &hints {
                assert_eq!(text.contains(h), present, "{layout} {agent}: {h:?}");
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_paper_preset_verifies_until_okay_and_removes_only_the_latest_rejection() {
    // Hanabi: Theory of Mind, proposal, then a rejection, an unreadable verdict (a rejection
    // too in the paper preset) and an okay; every later request gets the agreeable reply.
    let script = vec![
        Canned::reply("Partner's Move Means: nothing yet.\nClue To Give: none."),
        Canned::reply("Explanation: first.\nAction: A"),
        Canned::reply("It wastes a life.\nVerification: Not Okay"),
        Canned::reply("Explanation: second.\nAction: A"),
        Canned::reply("I cannot tell."),
        Canned::reply("Explanation: third.\nAction: A"),
        Canned::reply("Verification: Okay"),
        Canned::reply(AGREEABLE),
    ];
    let server = CannedServer::start(script).await;
    let out = play(&server, "hanabi", "llmco[recorded,preset=paper]", "simple", &[]).await;
    assert!(out.contains("llmco[recorded,preset=paper]"), "the label names the preset: {out}");
    let b = server.request_bodies();
    let all = offered(&last_user(&b[1]));
    let (first, second) = (offered(&last_user(&b[3])), offered(&last_user(&b[5])));
    // The first re-prompt offers everything but the rejected first action ...
    assert_eq!(first, all[1..].to_vec());
    // ... and the second everything but the latest rejection (the first action is back).
    let mut want = all.clone();
    want.remove(1);
    assert_eq!(second, want);
    // The verifier's whole answer is passed on, and the loop went on past the unreadable verdict.
    assert!(last_user(&b[3]).contains("It wastes a life.\nVerification: Not Okay"), "{}", last_user(&b[3]));
    assert!(last_user(&b[4]).contains("My selected action:"));
    assert!(last_user(&b[6]).contains(&format!("My selected action: {}", all[0])), "{}", last_user(&b[6]));

    // The default preset takes the unreadable verdict as an okay: one re-prompt only.
    let script = vec![
        Canned::reply("Partner's Move Means: nothing yet.\nClue To Give: none."),
        Canned::reply("Explanation: first.\nAction: A"),
        Canned::reply("It wastes a life.\nVerification: Not Okay"),
        Canned::reply("Explanation: second.\nAction: A"),
        Canned::reply("I cannot tell."),
        Canned::reply("Partner's Move Means: nothing.\nClue To Give: none."),
        Canned::reply(AGREEABLE),
    ];
    let server = CannedServer::start(script).await;
    play(&server, "hanabi", "llmco[recorded]", "simple", &[]).await;
    let b = server.request_bodies();
    assert!(!last_user(&b[5]).contains("is not appropriate"), "no second re-prompt: {}", last_user(&b[5]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreadable_proposal_is_replaced_and_still_verified_in_the_paper_preset() {
    let script = vec![
        Canned::reply("Partner's Move Means: nothing yet.\nClue To Give: none."),
        Canned::reply("I would rather not say."),
        Canned::reply(AGREEABLE),
    ];
    let server = CannedServer::start(script.clone()).await;
    play(&server, "hanabi", "llmco[recorded,preset=paper]", "simple", &[]).await;
    let b = server.request_bodies();
    assert!(last_user(&b[2]).contains("My selected action:"), "the fallback is verified: {}", last_user(&b[2]));
    // The default preset plays the fallback unverified: the next request is a new turn's.
    let server = CannedServer::start(script).await;
    play(&server, "hanabi", "llmco[recorded]", "simple", &[]).await;
    let b = server.request_bodies();
    assert!(!last_user(&b[2]).contains("My selected action:"), "{}", last_user(&b[2]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_paper_preset_scores_an_episode_whatever_share_went_unread() {
    // Nothing the model says names an action: every decision is unread.
    let server = CannedServer::start(vec![Canned::reply("No idea.\nVerification: Okay")]).await;
    let mut cmd = bin();
    cmd.args(["play", "--layout", "capture:1", "--agent", "llmco[recorded]", "--partner", "greedy_baseline"]).args([
        "--model",
        "recorded",
        "--base-url",
        &server.base_url(),
        "--no-transcript",
        "--json",
    ]);
    let out = tokio::task::spawn_blocking(move || cmd.output().unwrap()).await.unwrap();
    assert!(!out.status.success(), "the default preset fails the episode");
    let out = play(&server, "capture:1", "llmco[recorded,preset=paper]", "greedy_baseline", &[]).await;
    let line: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert!(line.get("score").is_some(), "{out}");
}

#[test]
fn capture_runs_a_theory_of_mind_call_that_tom_off_leaves_out() {
    let calls = |agent: &str| -> u64 {
        let out = ok(&bin()
            .args(["play", "--layout", "capture:2", "--agent", agent, "--partner", "greedy_baseline"])
            .args(["--no-transcript", "--json"])
            .output()
            .unwrap());
        let v: Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
        v["llm_calls"].as_u64().unwrap_or_else(|| panic!("{out}"))
    };
    let (with, without) = (calls("llmco"), calls("llmco[tom=off]"));
    assert!(with > without, "llmco {with} calls, llmco[tom=off] {without}");
    assert_eq!(calls("llmco[preset=paper]"), with, "the paper preset runs the step too");
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/llmco_paper").join(name)
}

/// The committed paper-preset transcripts: (file, the `play` arguments that wrote it).
const PAPER_TRANSCRIPTS: [(&str, &[&str]); 4] = [
    ("counter_circuit.jsonl", &["--layout", "counter_circuit", "--partner", "llmco[preset=paper]", "--horizon", "60"]),
    ("hanabi.jsonl", &["--layout", "hanabi", "--partner", "llmco[preset=paper]"]),
    ("capture.jsonl", &["--layout", "capture:1", "--partner", "llmco[preset=paper]"]),
    ("escape.jsonl", &["--layout", "escape:1", "--partner", "llmco[preset=paper]"]),
];

#[test]
fn the_paper_preset_transcripts_replay_and_replay_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    for (name, args) in PAPER_TRANSCRIPTS {
        let committed = fixture(name);
        let replay = ok(&bin().arg("replay").arg(&committed).output().unwrap());
        assert!(replay.contains("re-runs exactly") || replay.starts_with("identical"), "{name}: {replay}");
        let again = dir.path().join(name);
        ok(&bin()
            .arg("play")
            .args(args)
            .args(["--agent", "llmco[preset=paper]", "--no-wall-clock", "--json", "--transcript"])
            .arg(&again)
            .output()
            .unwrap());
        let (now, then) = (std::fs::read(&again).unwrap(), std::fs::read(&committed).unwrap());
        assert!(now == then, "{name}: the same command writes different bytes");
        assert!(String::from_utf8_lossy(&then).contains("llmco[rule-based,preset=paper]"), "{name}");
    }
}
