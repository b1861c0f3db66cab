//! Seeded structured fuzzing of every reader of untrusted input: the layout parser,
//! the transcript reader (and the run configuration read from its header), the eval
//! results reader, the trajectory readers of `analyze`, the planner's reply parser and
//! the skill parser, and the HTTP backend's reply reader (through a loopback server).
//!
//! Each target starts from valid inputs and applies random edits — truncation, byte
//! flips, inserted and deleted ranges, duplicated ranges, swapped lines, numbers
//! replaced by huge or odd ones, deep bracket nesting, very long strings — with a
//! fixed seed and a fixed number of cases, so a run is reproducible and bounded
//! (a few seconds per target in a debug build). Every case must end without a panic
//! and, when it fails, with an error that says where (file and line, or the raw text
//! kept). The number of inputs tried is printed (`cargo test --test it fuzz -- --nocapture`).

use proagent::agent::grounding::overcooked::parse_reply;
use proagent::controller::Kitchen;
use proagent::env::{Dir, Layout, layout};
use proagent::eval::store::{EpisodeOutcome, EpisodeRecord, ResultSet, StoreError};
use proagent::eval::{LayoutRef, SweepSpec, cross_product};
use proagent::llm::http::{HttpConfig, OpenAiModel};
use proagent::llm::{ChatRequest, LanguageModel, LlmError, Message, Sampling};
use proagent::runner::record::RunConfig;
use proagent::skills::Skill;
use proagent::transcript::{Transcript, TranscriptError};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Numbers that break naive code: limits of every integer width, overflowing and
/// non-finite floats, negatives where counts are expected.
const ODD_NUMBERS: &[&str] = &[
    "18446744073709551615",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "4294967295",
    "4294967296",
    "65536",
    "-1",
    "-0",
    "0",
    "1e308",
    "1e999",
    "-1e999",
    "0.5",
    "NaN",
    "999999999999999999999999999999999",
];

/// Bytes worth inserting: structure characters of JSON, Python literals and the
/// reply format, escapes, and broken UTF-8.
const ODD_BYTES: &[u8] = b"{}[]()\"'\\:,\n\r\t #<>*`0123456789-+.eE_XPSOD12 \xff\xc3\xe2\x80";

/// Applies 1 to 3 random structured edits to a copy of `seed`.
struct Mutator {
    rng: ChaCha8Rng,
}

impl Mutator {
    fn new(seed: u64) -> Self {
        Mutator { rng: ChaCha8Rng::seed_from_u64(seed) }
    }

    fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.rng.random_range(0..xs.len())]
    }

    fn at(&mut self, v: &[u8]) -> usize {
        self.rng.random_range(0..=v.len())
    }

    fn edit(&mut self, v: &mut Vec<u8>) {
        match self.rng.random_range(0..11) {
            0 => {
                let cut = self.at(v);
                v.truncate(cut);
            }
            1 if !v.is_empty() => {
                let i = self.rng.random_range(0..v.len());
                v[i] ^= 1 << self.rng.random_range(0..8);
            }
            2 => {
                let at = self.at(v);
                let n = self.rng.random_range(1..8);
                let bytes: Vec<u8> = (0..n).map(|_| *self.pick(ODD_BYTES)).collect();
                v.splice(at..at, bytes);
            }
            3 => {
                let a = self.at(v);
                let b = (a + self.rng.random_range(0..200)).min(v.len());
                v.drain(a..b);
            }
            4 => {
                let a = self.at(v);
                let b = (a + self.rng.random_range(0..400)).min(v.len());
                let copy = v[a..b].to_vec();
                let at = self.at(v);
                v.splice(at..at, copy);
            }
            5 | 6 => {
                // Replace one run of digits (most numbers of the format) by an odd number.
                let runs: Vec<(usize, usize)> = digit_runs(v);
                if !runs.is_empty() {
                    let (a, b) = *self.pick(&runs);
                    let n = self.pick(ODD_NUMBERS).as_bytes().to_vec();
                    v.splice(a..b, n);
                }
            }
            7 => {
                let depth = *self.pick(&[40usize, 200, 5_000, 50_000]);
                let open = *self.pick(b"[{(");
                let at = self.at(v);
                let mut nest = vec![open; depth];
                if self.rng.random_bool(0.5) {
                    let close = match open {
                        b'[' => b']',
                        b'{' => b'}',
                        _ => b')',
                    };
                    nest.extend(std::iter::repeat_n(close, depth));
                }
                v.splice(at..at, nest);
            }
            8 => {
                let mut lines: Vec<Vec<u8>> = v.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
                if lines.len() > 1 {
                    let (i, j) = (self.rng.random_range(0..lines.len()), self.rng.random_range(0..lines.len()));
                    lines.swap(i, j);
                    if self.rng.random_bool(0.3) {
                        let k = self.rng.random_range(0..lines.len());
                        let dup = lines[k].clone();
                        lines.insert(k, dup);
                    }
                    *v = lines.join(&b'\n');
                }
            }
            9 => {
                let at = self.at(v);
                let long = vec![*self.pick(b"a \"9[X"); *self.pick(&[1_000usize, 30_000])];
                v.splice(at..at, long);
            }
            _ => {
                let at = self.at(v);
                let n = self.rng.random_range(1..64);
                let bytes: Vec<u8> = (0..n).map(|_| self.rng.random()).collect();
                v.splice(at..at, bytes);
            }
        }
    }

    /// A mutated copy of `seed`: 1 to 3 edits, applied to one line only half of the
    /// time (so most of a line-based file stays valid and the reader gets deep).
    fn mutate(&mut self, seed: &[u8]) -> Vec<u8> {
        let edits = self.rng.random_range(1..=3);
        if self.rng.random_bool(0.5) {
            let mut lines: Vec<Vec<u8>> = seed.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
            let k = self.rng.random_range(0..lines.len());
            for _ in 0..edits {
                self.edit(&mut lines[k]);
            }
            return lines.join(&b'\n');
        }
        let mut v = seed.to_vec();
        for _ in 0..edits {
            self.edit(&mut v);
        }
        v
    }
}

impl Mutator {
    /// A mutation of one of `seeds`, picked at random.
    fn next(&mut self, seeds: &[Vec<u8>]) -> Vec<u8> {
        let i = self.rng.random_range(0..seeds.len());
        self.mutate(&seeds[i])
    }
}

fn digit_runs(v: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < v.len() {
        if v[i].is_ascii_digit() {
            let a = i;
            while i < v.len() && (v[i].is_ascii_digit() || v[i] == b'.') {
                i += 1;
            }
            out.push((a, i));
        } else {
            i += 1;
        }
    }
    out
}

fn lossy(v: &[u8]) -> String {
    String::from_utf8_lossy(v).into_owned()
}

fn short(s: &str) -> String {
    s.chars().take(300).collect()
}

/// Runs `check` on `cases` mutations of the seeds (and on every seed as it is); a panic
/// is recorded with the case number and the input's start. `check` says whether the
/// reader accepted the input, so the printout shows how deep the cases got.
fn fuzz(target: &str, seeds: &[Vec<u8>], cases: usize, seed: u64, mut check: impl FnMut(&[u8]) -> bool) {
    assert!(!seeds.is_empty(), "{target}: no seed inputs");
    let mut m = Mutator::new(seed);
    let mut failures = Vec::new();
    let (mut tried, mut accepted) = (0, 0);
    for k in 0..seeds.len() + cases {
        let input = if k < seeds.len() { seeds[k].clone() } else { m.next(seeds) };
        tried += 1;
        match catch_unwind(AssertUnwindSafe(|| check(&input))) {
            Ok(ok) => accepted += usize::from(ok),
            Err(_) => failures.push(format!("case {k}: {:?}", short(&lossy(&input)))),
        }
    }
    println!(
        "fuzz {target}: {tried} inputs tried ({accepted} accepted, the rest refused with an error), {} panics",
        failures.len()
    );
    assert!(failures.is_empty(), "{target}: {} of {tried} inputs panicked:\n{}", failures.len(), failures.join("\n"));
}

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn committed_transcripts() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(repo("transcripts/committed")).unwrap() {
        let p = entry.unwrap().path();
        if p.extension().is_some_and(|e| e == "jsonl") {
            out.push((p.display().to_string(), std::fs::read_to_string(&p).unwrap()));
        }
    }
    out.sort();
    assert!(!out.is_empty());
    out
}

#[test]
fn fuzz_layout_parser() {
    let mut seeds: Vec<Vec<u8>> = layout::BUILTIN.iter().map(|(_, t)| t.as_bytes().to_vec()).collect();
    // The same kitchens as plain grids, and the largest grid allowed.
    for (n, _) in layout::BUILTIN {
        seeds.push(Layout::builtin(n).unwrap().grid.join("\n").into_bytes());
    }
    let side = layout::MAX_LAYOUT_SIDE;
    let mut big = vec![format!("XPSOD{}", "X".repeat(side - 5)), format!("X12{}X", " ".repeat(side - 4))];
    big.extend((2..side - 1).map(|_| format!("X{}X", " ".repeat(side - 2))));
    big.push("X".repeat(side));
    seeds.push(big.join("\n").into_bytes());
    fuzz("layout parser", &seeds, 3_000, 1, |input| {
        let text = lossy(input);
        match Layout::parse("fuzz", &text, "fuzz.layout") {
            Ok(l) => {
                assert!(l.width <= side && l.height <= side && l.tiles.len() == l.width * l.height);
                assert!(l.starts.iter().all(|&p| l.is_walkable(p)), "starts on floor");
                // What a seat builds from a layout: the kitchen, and a few motion costs.
                let k = Kitchen::new(Arc::new(l));
                let from = (k.layout.starts[0], Dir::North);
                for &t in k.layout.pots.iter().chain(&k.layout.serving) {
                    let _ = k.motion.cost_to_interact(&k.layout, from, t);
                }
                true
            }
            Err(e) => {
                assert!(e.line >= 1 && e.column >= 1 && !e.message.is_empty(), "{e:?}");
                assert!(e.line <= text.lines().count() + 1, "line {} of {}: {e}", e.line, text.lines().count());
                assert!(e.to_string().starts_with("fuzz.layout:"), "{e}");
                false
            }
        }
    });
}

#[test]
fn fuzz_transcript_reader() {
    let files = committed_transcripts();
    let seeds: Vec<Vec<u8>> = files.iter().map(|(_, t)| t.clone().into_bytes()).collect();
    fuzz("transcript reader", &seeds, 600, 2, |input| {
        let text = lossy(input);
        let lines = text.lines().count();
        match Transcript::parse(&text, "fuzz.jsonl") {
            Ok(t) => {
                // The header's numbers feed `replay`: they are range-checked or refused.
                let _ = t.require_complete();
                let _ = t.replayer(proagent::transcript::Scrubber::new());
                match RunConfig::from_header(&t.header, "fuzz.jsonl", t.header_line) {
                    Ok(cfg) => {
                        assert!(cfg.check().is_ok());
                        if let Some(text) = &cfg.layout_file {
                            let _ = Layout::parse(&cfg.layout, text, "recorded");
                        }
                        true
                    }
                    Err(e) => {
                        assert!(e.to_string().starts_with("fuzz.jsonl:"), "{e}");
                        false
                    }
                }
            }
            Err(TranscriptError::Bad { path, line, message }) => {
                assert_eq!(path, "fuzz.jsonl");
                assert!(line >= 1 && line <= lines.max(1) && !message.is_empty(), "line {line} of {lines}: {message}");
                false
            }
            Err(TranscriptError::Incomplete { message, .. }) => {
                assert!(!message.is_empty());
                false
            }
            Err(e) => panic!("unexpected error kind: {e}"),
        }
    });
}

fn results_seed() -> Vec<u8> {
    let spec = SweepSpec {
        layouts: ["cramped_room", "counter_circuit"]
            .map(|n| LayoutRef { name: n.to_string(), sha256: "0".repeat(64) })
            .to_vec(),
        agents: vec!["scripted".into(), "greedy".into()],
        partners: vec!["greedy".into()],
        seats: vec![0, 1],
        episodes: 3,
        seed: 7,
        horizon: 400,
        runner: "play".into(),
        spec_configs: Default::default(),
    };
    let mut text = String::new();
    for (i, p) in cross_product(&spec).iter().enumerate() {
        let outcome = EpisodeOutcome {
            score: (i * 20) as f64,
            deliveries: i as u32,
            steps: 400,
            llm_calls: 3,
            parse_failures: 0,
            prompt_tokens: 1200,
            completion_tokens: 80,
            reasoning_tokens: 0,
            cached_tokens: 0,
            llm_wall_s: 0.25,
            metrics: serde_json::json!({"score": i * 20, "teamwork": {"constructive": 2}}),
            teamwork: Some(proagent::analysis::TeamworkTotals { deliveries: i, constructive: 2, non_constructive: 0 }),
            transcript: None,
            held_wait_max: None,
        };
        text.push_str(&EpisodeRecord::new(&p.spec, p.config_hash.clone(), outcome, 1.5, None).to_line());
    }
    text.into_bytes()
}

#[test]
fn fuzz_eval_results_reader() {
    let seed = results_seed();
    let mut originals = ResultSet::new();
    assert!(originals.load_bytes(Path::new("seed.jsonl"), &seed).unwrap().is_none());
    let originals = originals.into_records();
    fuzz("eval results reader", &[seed], 3_000, 3, |input| {
        let lines = input.split(|&b| b == b'\n').count();
        let mut set = ResultSet::new();
        match set.load_bytes(Path::new("results.jsonl"), input) {
            Ok(torn) => {
                assert!(set.len() <= lines);
                if let Some(t) = torn {
                    assert!(t.offset as usize <= input.len() && t.line >= 1 && t.line <= lines, "{t}");
                }
                for (i, r) in set.records().iter().enumerate() {
                    assert!(r.seat <= 1 && r.score.is_finite() && (1..=100_000).contains(&r.horizon), "{r:?}");
                    // Checksums: no changed record is ever counted (one whose checksum was cut
                    // loads unchecked, and means leave it out).
                    assert!(!set.is_checked(i) || originals.contains(r), "a mutated record was read: {r:?}");
                }
                let (averaged, _) = set.for_means(false, |_| true);
                assert!(averaged.iter().all(|r| originals.contains(r)), "a mutated record would be averaged");
                true
            }
            Err(StoreError::Malformed { path, line, message, .. }) => {
                assert_eq!(path, "results.jsonl");
                assert!(line >= 1 && line <= lines && !message.is_empty(), "line {line} of {lines}: {message}");
                false
            }
            Err(StoreError::Conflict { first, second, .. }) => {
                assert!(first.starts_with("results.jsonl:") && second.starts_with("results.jsonl:"));
                false
            }
            Err(e) => panic!("unexpected error kind: {e}"),
        }
    });
}

/// Two short recorded episodes in the reference trace schema (what `play --trajectory`
/// writes and `analyze` reads).
fn trajectory_seed() -> Vec<u8> {
    use proagent::games::Playable;
    use proagent::overcooked_game::Overcooked;
    use proagent::runner::seats::SeatFactory;
    use proagent::runner::{EpisodeOptions, play_seated};
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    let mut text = String::new();
    for (layout, seed) in [("cramped_room", 1), ("forced_coordination", 2)] {
        let g = Arc::new(Overcooked::new(Arc::new(Layout::builtin(layout).unwrap()), 60));
        let f = SeatFactory::default();
        let r =
            rt.block_on(play_seated(&g, &f, &["scripted", "greedy"], seed, None, EpisodeOptions::default())).unwrap();
        text.push_str(&g.trajectory_json(&r).to_string());
        text.push('\n');
    }
    text.into_bytes()
}

#[test]
fn fuzz_trajectory_readers() {
    use proagent::analysis::{self, readers};
    let seed = trajectory_seed();
    fuzz("trajectory readers (analyze)", &[seed], 800, 7, |input| {
        let text = lossy(input);
        match readers::read("fuzz.jsonl", &text) {
            Ok((_, trajs)) => {
                for t in &trajs {
                    let _ = analysis::analyze(t);
                }
                true
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                false
            }
        }
    });
}

/// Planner replies: hand-written formats and every reply the committed transcripts hold.
fn reply_seeds() -> Vec<Vec<u8>> {
    let mut seeds: Vec<String> = [
        "Analysis: The pot is empty.\nIntention for Player 1: pickup(onion)\nPlan for Player 0: pickup(onion)",
        "**Analysis**: both hold nothing\n**Intention for <Player 1>**: \"put_onion_in_pot()\"\n**Plan for <Player 0>**: `fill_dish_with_soup()`",
        "<think>the teammate... plan: wait(3)</think>\nPlan for Player 1: deliver_soup()",
        "```\nAnalysis: x\nPlan: wait(5)\n```",
        "Plan for Player 0: wait(0)\nPlan for Player 0: pickup(dish)",
        "Intention for Player 0: place_obj_on_counter()\nPlan for Player 1: pick up the onion",
        "I will put the onion in the pot.",
        "",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for (_, text) in committed_transcripts() {
        if let Ok(t) = Transcript::parse(&text, "seed") {
            seeds.extend(t.exchanges.iter().filter_map(|e| e.outcome.to_result().ok()).map(|r| r.text).take(20));
        }
    }
    seeds.into_iter().map(String::into_bytes).collect()
}

#[test]
fn fuzz_reply_parser() {
    let seeds = reply_seeds();
    fuzz("planner reply parser", &seeds, 6_000, 4, |input| {
        let raw = lossy(input);
        let mut ok = false;
        for me in 0..2 {
            match parse_reply(&raw, me) {
                Ok(r) => {
                    assert_eq!(Skill::parse(&r.plan.to_string()), Ok(r.plan), "a parsed plan prints back");
                    ok = true;
                }
                Err(e) => {
                    assert_eq!(e.raw, raw, "the raw reply is kept");
                    assert!(!e.reason.is_empty());
                }
            }
        }
        ok
    });
}

#[test]
fn fuzz_skill_parser() {
    let mut seeds: Vec<Vec<u8>> = [
        "pickup(onion)",
        "pickup_dish",
        "pick up a dish",
        "put_onion_in_pot()",
        "place_obj_on_counter()",
        "fill_dish_with_soup()",
        "deliver_soup()",
        "wait(3)",
        "wait 12 steps",
        "\"Pickup(Onion).\"",
        "I think I should deliver_soup() now",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .collect();
    seeds.extend(reply_seeds());
    fuzz("skill parser", &seeds, 6_000, 5, |input| {
        let text = lossy(input);
        let mut ok = false;
        for res in [Skill::parse(&text), Skill::find_first(&text)] {
            match res {
                Ok(s) => {
                    assert_eq!(Skill::parse(&s.to_string()), Ok(s));
                    ok = true;
                }
                Err(e) => assert!(e.raw == text && !e.reason.is_empty()),
            }
        }
        ok
    });
}

/// Chat completion bodies as OpenAI and local servers send them.
fn reply_bodies() -> Vec<Vec<u8>> {
    let full = serde_json::json!({
        "id": "chatcmpl-1", "object": "chat.completion", "created": 1_700_000_000u64, "model": "m",
        "system_fingerprint": "fp", "service_tier": "default",
        "choices": [{"index": 0, "finish_reason": "stop", "logprobs": null,
                     "message": {"role": "assistant", "content": "Analysis: ok\nPlan for Player 0: pickup(onion)", "refusal": null}}],
        "usage": {"prompt_tokens": 812, "completion_tokens": 23, "total_tokens": 835}
    });
    let mut seeds = vec![full.to_string()];
    let mut v = full.clone();
    v["choices"][0]["finish_reason"] = "length".into();
    v.as_object_mut().unwrap().remove("usage");
    seeds.push(v.to_string());
    let mut v = full.clone();
    v["choices"][0]["message"]["content"] = serde_json::Value::Null;
    v["choices"][0]["message"]["refusal"] = "I can't help with that.".into();
    seeds.push(v.to_string());
    let mut v = full.clone();
    v["choices"][0]["message"]["tool_calls"] =
        serde_json::json!([{"id": "t", "type": "function", "function": {"name": "f", "arguments": "{}"}}]);
    v["choices"][0]["finish_reason"] = "tool_calls".into();
    seeds.push(v.to_string());
    // A minimal local server: no id, no created, content only.
    seeds.push(r#"{"choices":[{"message":{"content":"Plan: wait(2)"}}]}"#.to_string());
    seeds.push(r#"{"choices":[]}"#.to_string());
    seeds.into_iter().map(String::into_bytes).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fuzz_http_reply_reader() {
    // A loopback server that answers every request with 200 and the current body.
    let body: Arc<Mutex<Vec<u8>>> = Arc::new(Mutex::new(Vec::new()));
    let served = Arc::clone(&body);
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        axum::routing::post(move || {
            let b = served.lock().unwrap().clone();
            async move { ([(axum::http::header::CONTENT_TYPE, "application/json")], b) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move { axum::serve(listener, app).await });
    let mut cfg = HttpConfig::new();
    cfg.base_url = format!("http://{addr}/v1");
    cfg.max_retries = 0;
    cfg.request_timeout = std::time::Duration::from_secs(20);
    let model = OpenAiModel::new("fuzz-model", cfg).unwrap();
    let req = ChatRequest::new(vec![Message::system("s"), Message::user("u")], Sampling::default());

    let seeds = reply_bodies();
    let mut m = Mutator::new(6);
    let cases = 1_500;
    let mut failures = Vec::new();
    let mut accepted = 0;
    for k in 0..seeds.len() + cases {
        let input = if k < seeds.len() { seeds[k].clone() } else { m.next(&seeds) };
        *body.lock().unwrap() = input.clone();
        // The reply reader runs inside the model's own task; a panic there is a failed join.
        let outcome = {
            let (model, req) = (&model, &req);
            AssertUnwindSafe(async move { model.chat(req).await })
        };
        let res = futures_catch(outcome).await;
        let ok = match res {
            None => false,
            Some(Ok(r)) => {
                accepted += 1;
                !r.text.trim().is_empty() && r.attempts == 1
            }
            Some(Err(LlmError::BadReply { reason, .. })) => !reason.is_empty(),
            Some(Err(LlmError::Unreachable { faults })) => faults.len() == 1 && !faults[0].detail.is_empty(),
            Some(Err(e)) => {
                eprintln!("unexpected error kind: {e}");
                false
            }
        };
        if !ok {
            failures.push(format!("case {k}: {:?}", short(&lossy(&input))));
        }
    }
    server.abort();
    let tried = seeds.len() + cases;
    println!(
        "fuzz http reply reader: {tried} inputs tried ({accepted} accepted, the rest refused with an error), {} panics or odd errors",
        failures.len()
    );
    assert!(failures.is_empty(), "{} of {tried} replies failed:\n{}", failures.len(), failures.join("\n"));
}

/// Awaits `f`, turning a panic into `None`.
async fn futures_catch<F: std::future::Future>(f: AssertUnwindSafe<F>) -> Option<F::Output> {
    let mut f = std::pin::pin!(f.0);
    std::future::poll_fn(move |cx| match catch_unwind(AssertUnwindSafe(|| f.as_mut().poll(cx))) {
        Ok(std::task::Poll::Ready(v)) => std::task::Poll::Ready(Some(v)),
        Ok(std::task::Poll::Pending) => std::task::Poll::Pending,
        Err(_) => std::task::Poll::Ready(None),
    })
    .await
}

/// A small RL model file (a narrow network, so the header is a large part of it).
fn small_rl_model(encoder: &str, inputs: usize, info: serde_json::Value) -> Vec<u8> {
    use proagent::rl::model::RlModel;
    use proagent::rl::net::Net;
    RlModel {
        net: Net::new(inputs, &[3], 1),
        encoder: encoder.into(),
        source: "seed".into(),
        info,
        checkpoints: vec![("early".into(), Net::new(inputs, &[3], 2))],
    }
    .to_safetensors()
}

/// `bytes` with its safetensors header replaced by `header` (the length prefix fixed).
fn with_header(bytes: &[u8], header: &[u8]) -> Vec<u8> {
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header);
    out.extend_from_slice(&bytes[8 + n..]);
    out
}

fn header_of(bytes: &[u8]) -> Vec<u8> {
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    bytes[8..8 + n].to_vec()
}

/// Model files: RL (`rl:PATH`) and BC (`bc:PATH`) weights, as whole files mutated byte by
/// byte, as headers mutated as text (length prefix kept right), and hand-made hostile
/// files (truncated, a huge header length, wrong dtypes, wrong shapes, NaN weights, one
/// checkpoint listed many times). A file either loads — and then seats on every game it
/// names or is refused there with an error naming the file — or is refused naming the file.
#[test]
fn fuzz_model_files() {
    use proagent::overcooked_game::Overcooked;
    use proagent::overcooked_v2::game::OvercookedV2;
    use proagent::partners::bc::model::BcModel;
    use proagent::rl::RlAgent;
    use proagent::rl::model::RlModel;
    let classic = Overcooked::new(Arc::new(Layout::builtin("cramped_room").unwrap()), 400);
    let other = Overcooked::new(Arc::new(Layout::builtin("counter_circuit").unwrap()), 400);
    let v2 = OvercookedV2::new(
        Arc::new(proagent::env_v2::Layout::builtin("cramped_room_v2").unwrap()),
        proagent::env_v2::Settings::default(),
    );
    let v2_dim = {
        use proagent::rl::RlGame;
        v2.encoder(proagent::rl::obs_v2::V2_VIEW).unwrap().dim()
    };
    let mut v2_info = serde_json::json!({"layout": "cramped_room_v2", "algo": "sp", "game": "overcooked_v2"});
    v2_info["settings"] = serde_json::json!({"view_radius": null, "random_agent_positions": false,
        "start_cooking_interaction": false, "negative_rewards": false, "sample_recipe_on_delivery": false,
        "indicate_successful_delivery": false});
    let rl_small = small_rl_model("carroll2019-62", 62, serde_json::json!({"layout": "cramped_room", "algo": "sp"}));
    let rl_v2 = small_rl_model(proagent::rl::obs_v2::V2_VIEW, v2_dim, v2_info);
    let shipped = std::fs::read(repo("data/rl/cramped_room_sp.safetensors")).unwrap();
    let bc = std::fs::read(repo("data/bc/cramped_room_test.safetensors")).unwrap();
    let mut seeds = vec![rl_small.clone(), rl_v2.clone(), shipped, bc.clone()];
    // Hand-made hostile files.
    let mut huge = rl_small.clone();
    huge[..8].copy_from_slice(&u64::MAX.to_le_bytes());
    seeds.push(huge);
    let mut long = rl_small.clone();
    long[..8].copy_from_slice(&((100u64 << 20) + 1).to_le_bytes());
    seeds.push(long);
    seeds.push(rl_small[..rl_small.len() - 7].to_vec());
    seeds.push(rl_small[..5].to_vec());
    let h = String::from_utf8(header_of(&rl_small)).unwrap();
    for (from, to) in [("F32", "F16"), ("F32", "I64"), ("F32", "BF16"), ("[3,62]", "[3,61]"), ("[3,62]", "[62,3]")] {
        seeds.push(with_header(&rl_small, h.replacen(from, to, 1).as_bytes()));
    }
    let many = h.replace(
        "\\\"checkpoints\\\":[\\\"early\\\"]",
        &format!("\\\"checkpoints\\\":[{}]", vec!["\\\"early\\\""; 5000].join(",")),
    );
    assert_ne!(many, h, "the checkpoint list was found");
    seeds.push(with_header(&rl_small, many.as_bytes()));
    let mut nan = rl_small.clone();
    let at = 8 + header_of(&rl_small).len();
    nan[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
    seeds.push(nan);
    let headers: Vec<(Vec<u8>, Vec<u8>)> =
        [&rl_small, &rl_v2, &bc].iter().map(|b| (b.to_vec(), header_of(b))).collect();
    let mut hm = Mutator::new(11);
    let mut k = 0usize;
    fuzz("model files", &seeds, 4_000, 10, |input| {
        k += 1;
        // Every other case: mutate a header as text instead of the whole file.
        let owned;
        let input = if k.is_multiple_of(2) {
            let (file, header) = &headers[k / 2 % headers.len()];
            owned = with_header(file, &hm.mutate(header));
            &owned[..]
        } else {
            input
        };
        let mut ok = false;
        match RlModel::from_safetensors(input, "fuzz.safetensors") {
            Ok(m) => {
                assert!(m.checkpoints.len() <= proagent::rl::model::MAX_CHECKPOINTS);
                let m = Arc::new(m);
                let mut seated = 0;
                for mismatch in [false, true] {
                    for r in [
                        RlAgent::for_game(Arc::clone(&m), "f", &classic, mismatch).map(|mut a| {
                            let s = classic.layout.start_state();
                            a.probabilities(&s, 1)
                        }),
                        RlAgent::for_game(Arc::clone(&m), "f", &other, mismatch).map(|mut a| {
                            let s = other.layout.start_state();
                            a.probabilities(&s, 0)
                        }),
                        RlAgent::for_game(Arc::clone(&m), "f", &v2, mismatch).map(|mut a| {
                            use proagent::game::Game;
                            let s = v2.initial_state(&mut proagent::game::NoChance);
                            a.probabilities(&s, 1)
                        }),
                    ] {
                        match r {
                            Ok(p) => {
                                seated += 1;
                                assert!(p.iter().all(|x| x.is_finite()), "{p:?}");
                            }
                            Err(e) => assert!(e.to_string().starts_with("fuzz.safetensors: "), "{e}"),
                        }
                    }
                }
                ok = seated > 0;
            }
            Err(e) => assert!(e.to_string().starts_with("fuzz.safetensors: "), "{e}"),
        }
        match BcModel::from_safetensors(input, "fuzz.safetensors") {
            Ok(m) => {
                let p = m.probabilities(&[0.5; 62]);
                assert!(p.iter().all(|x| x.is_finite()), "{p:?}");
                ok = true;
            }
            Err(e) => assert!(e.to_string().starts_with("fuzz.safetensors: "), "{e}"),
        }
        ok
    });
    // Files on disk go through the bounded reader: a device is refused before it is read,
    // a file past the cap from its size.
    #[cfg(unix)]
    {
        let e = proagent::rl::model::load_file(Path::new("/dev/zero")).unwrap_err().to_string();
        assert!(e.contains("/dev/zero") && e.contains("is a character device"), "{e}");
    }
    let big = tempfile::tempdir().unwrap();
    let path = big.path().join("big.safetensors");
    std::fs::File::create(&path).unwrap().set_len((64 << 20) + 1).unwrap();
    let e = proagent::rl::model::load_file(&path).unwrap_err().to_string();
    assert!(e.contains("big.safetensors") && e.contains("larger than 64 MiB"), "{e}");
}
