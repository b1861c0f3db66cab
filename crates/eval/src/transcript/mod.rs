//! Transcripts: everything a run said to and heard from its language model, and
//! what happened in the game, as JSON Lines — one record per line, appended and
//! flushed as it happens, so a crashed run still leaves a readable prefix.
//!
//! Records carry a `"type"` tag: one `header` (format version, proagent version,
//! the run config and the sha256 of each prompt template), then `exchange` and
//! `step` records as they happen, then one `footer`. A system prompt is written
//! in full the first time it is used and by its sha256 afterwards; the reader
//! puts the full text back, so a transcript alone is enough to replay a run.
//!
//! Wall-clock values (start time, latencies) live only in a `"wall"` object at
//! the end of a record: everything else is a pure function of the run's
//! command and seed, and [`without_wall_clock`] removes them for comparisons.

pub mod diff;
pub mod reader;
pub mod schema;
pub mod scrub;
pub mod writer;

pub use diff::{first_divergence, value_difference, without_wall_clock};
pub use proagent_llm::record::{Exchange, Outcome, RecordedError};
pub use reader::Transcript;
pub use schema::{
    ExchangeRecord, FORMAT_VERSION, Footer, Header, Record, StepRecord, StoredMessage, StoredRequest, TranscriptError,
    Wall,
};
pub use scrub::{REDACTED, Scrubber};
pub use writer::{MemoryBuffer, TranscriptWriter, WriterOptions, default_path};

#[cfg(test)]
mod tests {
    use super::*;
    use proagent_llm::{ChatRequest, ChatResponse, Fault, LlmError, Message, Sampling, Usage, sha256_hex};
    use serde_json::Value;
    use std::collections::BTreeMap;
    use std::time::Duration;

    type Buf = MemoryBuffer;

    fn request(sys: &str, user: &str) -> ChatRequest {
        ChatRequest::new(vec![Message::system(sys), Message::user(user)], Sampling::default())
    }

    fn write_sample(wall_clock: bool, scrubber: Scrubber) -> String {
        let buf = Buf::default();
        let mut w = TranscriptWriter::new(Box::new(buf.clone()), "mem", WriterOptions { scrubber, wall_clock });
        let mut hashes = BTreeMap::new();
        hashes.insert("planner".to_string(), sha256_hex(b"template"));
        w.write_header(&Header::new(serde_json::json!({"layout": "cramped_room", "seed": 7}), hashes)).unwrap();
        let ok: Result<ChatResponse, LlmError> = Ok(ChatResponse::simple("Plan: a", Usage::default()));
        w.write_exchange(
            &Exchange::new(0, "plan", request("SYS", "state 0"), &ok, Duration::from_millis(12))
                .with_parsed(serde_json::json!({"skill": "pickup(onion)"})),
        )
        .unwrap();
        w.write_step(0, serde_json::json!({"joint_action": ["N", "S"], "reward": 0})).unwrap();
        let err: Result<ChatResponse, LlmError> = Err(LlmError::Unreachable {
            faults: vec![Fault { attempt: 1, kind: "status_500".into(), detail: "HTTP 500".into() }],
        });
        w.write_exchange(&Exchange::new(1, "plan", request("SYS", "state 1"), &err, Duration::from_millis(30)))
            .unwrap();
        let bad: Result<ChatResponse, LlmError> =
            Err(LlmError::BadReply { reason: "no content".into(), raw: "{}".into(), faults: vec![] });
        w.write_exchange(
            &Exchange::new(1, "verify", request("OTHER", "check"), &bad, Duration::ZERO).with_parse_error("nothing"),
        )
        .unwrap();
        w.write_step(1, serde_json::json!({"joint_action": ["E", "W"], "reward": 20})).unwrap();
        w.write_footer(serde_json::json!({"score": 20})).unwrap();
        buf.text()
    }

    #[test]
    fn roundtrip_with_system_prompt_dedup() {
        let text = write_sample(true, Scrubber::new());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 7);
        assert!(lines[0].starts_with(r#"{"type":"header","format_version":1,"#), "{}", lines[0]);
        assert!(lines[1].ends_with(r#""wall":{"unix_ms":"#) || lines[1].contains(r#","wall":{"unix_ms":"#));
        // First use: full text; second use: hash only.
        assert!(lines[1].contains(r#""content":"SYS""#));
        assert!(!lines[3].contains(r#""content":"SYS""#), "{}", lines[3]);
        assert!(lines[3].contains(&sha256_hex(b"SYS")));
        let t = Transcript::parse(&text, "mem").unwrap();
        assert_eq!(t.header.config["layout"], "cramped_room");
        assert_eq!(t.exchanges.len(), 3);
        assert_eq!(t.steps.len(), 2);
        assert_eq!(t.exchanges[1].request, request("SYS", "state 1"));
        assert_eq!(t.exchanges[1].seq, 1);
        assert_eq!(t.exchanges[0].latency, Some(Duration::from_millis(12)));
        assert_eq!(t.exchanges[0].parsed, Some(serde_json::json!({"skill": "pickup(onion)"})));
        assert!(
            matches!(t.exchanges[1].outcome.to_result(), Err(LlmError::Unreachable { faults }) if faults.len() == 1)
        );
        assert!(matches!(t.exchanges[2].outcome.to_result(), Err(LlmError::BadReply { raw, .. }) if raw == "{}"));
        assert_eq!(t.exchanges[2].parse_error.as_deref(), Some("nothing"));
        assert_eq!(t.require_complete().unwrap().data["score"], 20);
    }

    #[test]
    fn outcome_roundtrips_every_error() {
        let faults = vec![Fault { attempt: 1, kind: "timeout".into(), detail: "d".into() }];
        for e in [
            LlmError::Unreachable { faults: faults.clone() },
            LlmError::BadReply { reason: "r".into(), raw: "raw".into(), faults: faults.clone() },
            LlmError::Refused {
                status: 401,
                url: "http://127.0.0.1:9/v1/chat/completions".into(),
                message: "Incorrect API key provided.".into(),
                faults: faults.clone(),
            },
            LlmError::ReplayMiss("m".into()),
            LlmError::Config("c".into()),
        ] {
            let r = Err(e.clone());
            let o = Outcome::from_result(&r);
            let back: Outcome = serde_json::from_str(&serde_json::to_string(&o).unwrap()).unwrap();
            assert_eq!(back.to_result(), r);
        }
    }

    #[test]
    fn same_run_same_bytes() {
        let a = write_sample(false, Scrubber::new());
        let b = write_sample(false, Scrubber::new());
        assert_eq!(a, b);
        assert!(!a.contains("wall"));
        let c = write_sample(true, Scrubber::new());
        assert_ne!(a, c);
        assert_eq!(without_wall_clock(&a, "a").unwrap(), without_wall_clock(&c, "c").unwrap());
    }

    #[test]
    fn torn_last_line_names_the_line() {
        let text = write_sample(true, Scrubber::new());
        let cut = &text[..text.len() - 25];
        let e = Transcript::parse(cut, "x.jsonl").unwrap_err().to_string();
        assert!(e.starts_with("x.jsonl:7: truncated record"), "{e}");
        // Cut exactly at a line end: parses, but is incomplete.
        let upto_step: String = text.lines().take(5).map(|l| format!("{l}\n")).collect();
        let t = Transcript::parse(&upto_step, "x.jsonl").unwrap();
        assert_eq!(t.exchanges.len(), 3);
        let e = t.require_complete().unwrap_err().to_string();
        assert!(e.contains("no footer after line 5"), "{e}");
    }

    #[test]
    fn malformed_records_name_the_line() {
        let text = write_sample(true, Scrubber::new());
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines[2] = "{not json".into();
        let e = Transcript::parse(&lines.join("\n"), "x").unwrap_err().to_string();
        assert!(e.starts_with("x:3: malformed record"), "{e}");

        let no_header: String = text.lines().skip(1).map(|l| format!("{l}\n")).collect();
        let e = Transcript::parse(&no_header, "x").unwrap_err().to_string();
        assert!(e.contains("x:1: an exchange record before the header"), "{e}");

        // The later exchange refers to a system prompt whose full text was removed.
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines.remove(1);
        let e = Transcript::parse(&lines.join("\n"), "x").unwrap_err().to_string();
        assert!(e.contains("exchange seq 1 where 0 was expected"), "{e}");

        let edited = text.replace("state 1", "state 9");
        let e = Transcript::parse(&edited, "x").unwrap_err().to_string();
        assert!(e.contains("x:4: the request does not match its request_hash"), "{e}");

        let future = text.replacen(r#""format_version":1"#, r#""format_version":99"#, 1);
        let e = Transcript::parse(&future, "x").unwrap_err().to_string();
        assert!(e.contains("x:1: transcript format version 99 is not supported"), "{e}");

        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines.push(lines[2].clone());
        let e = Transcript::parse(&lines.join("\n"), "x").unwrap_err().to_string();
        assert!(e.contains("x:8: record after the footer"), "{e}");

        let e = Transcript::parse("", "x").unwrap_err().to_string();
        assert!(e.contains("no header"), "{e}");
    }

    #[test]
    fn unknown_system_hash_is_an_error() {
        let text = write_sample(false, Scrubber::new());
        let fake = sha256_hex(b"never seen");
        let edited = text.replacen(&sha256_hex(b"SYS"), &fake, 2);
        // The first occurrence now fails the content check.
        let e = Transcript::parse(&edited, "x").unwrap_err().to_string();
        assert!(e.contains("x:2: message 0: content does not match its sha256"), "{e}");
    }

    #[test]
    fn secrets_never_written() {
        let canary = "sk-canary-7f3a9c1e";
        let buf = Buf::default();
        let opts = WriterOptions { scrubber: Scrubber::new().with(canary), wall_clock: false };
        let mut w = TranscriptWriter::new(Box::new(buf.clone()), "mem", opts);
        let config = serde_json::json!({
            "model": "gpt", "api_key": "whatever-it-is", "note": format!("key={canary}"),
            "headers": {"Authorization": "Bearer abc.def-123"}, "log": "sent Authorization: Bearer xyz987"
        });
        w.write_header(&Header::new(config, BTreeMap::new())).unwrap();
        let err: Result<ChatResponse, LlmError> = Err(LlmError::BadReply {
            reason: "echo".into(),
            raw: format!("{{\"echo\":\"{canary}\"}}"),
            faults: vec![],
        });
        w.write_exchange(&Exchange::new(0, "plan", request("s", "u"), &err, Duration::ZERO)).unwrap();
        let text = buf.text();
        for leak in [canary, "whatever-it-is", "abc.def-123", "xyz987"] {
            assert!(!text.contains(leak), "{leak} leaked: {text}");
        }
        assert!(text.contains("Bearer [REDACTED]"));
        assert!(text.contains(r#""api_key":"[REDACTED]""#));
        assert_eq!(Scrubber::new().with("short").scrub("short"), "short", "short values are not secrets");
    }

    #[test]
    fn secrets_in_prompts_are_scrubbed_before_hashing() {
        let canary = "hf-canary-9e1d77aa";
        let opts = WriterOptions { scrubber: Scrubber::new().with(canary), wall_clock: false };
        let (mut w, buf) = TranscriptWriter::in_memory("mem", opts);
        w.write_header(&Header::new(serde_json::json!({"note": canary}), BTreeMap::new())).unwrap();
        let sys = format!("You hold the token {canary}.");
        let ok: Result<ChatResponse, LlmError> = Ok(ChatResponse::simple(format!("echo {canary}"), Usage::default()));
        for t in 0..2 {
            let req = request(&sys, &format!("state {t}: {canary} {canary}"));
            w.write_exchange(&Exchange::new(t, "plan", req, &ok, Duration::ZERO)).unwrap();
        }
        w.write_step(0, serde_json::json!({"k": canary})).unwrap();
        w.write_footer(serde_json::json!({"score": 0})).unwrap();
        let text = buf.text();
        assert!(!text.contains(canary), "{text}");
        // The file passes its own hash checks: every hash is that of the scrubbed text.
        let t = Transcript::parse(&text, "mem").unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].contains(r#""scrubbed":1"#), "{}", lines[0]);
        // system + 2 in the user message + 1 in the reply
        assert!(lines[1].contains(r#""scrubbed":4"#), "{}", lines[1]);
        assert_eq!(t.exchanges[0].scrubbed, 4);
        // The system prompt is deduplicated by the hash of its scrubbed text.
        assert!(!lines[2].contains("You hold the token"), "{}", lines[2]);
        assert!(lines[2].contains(&sha256_hex(b"You hold the token [REDACTED].")), "{}", lines[2]);
        assert_eq!(t.exchanges[1].request.messages[0].content, "You hold the token [REDACTED].");
        assert_eq!(t.exchanges[1].request.messages[1].content, "state 1: [REDACTED] [REDACTED]");
        assert_eq!(t.exchanges[1].reply_text(), Some("echo [REDACTED]"));
        assert!(lines[3].contains(r#""scrubbed":1"#), "{}", lines[3]);
        assert!(!lines[4].contains("scrubbed"), "nothing to scrub, no count: {}", lines[4]);
        // Replaying with the secret known matches the live (secret-holding) request.
        let replayer = t.replayer(Scrubber::new().with(canary));
        let live = request(&sys, &format!("state 1: {canary} {canary}"));
        let reply = block_on(proagent_llm::LanguageModel::chat(&replayer, &live));
        assert_eq!(reply.unwrap().text, "echo [REDACTED]");
    }

    /// A transcript holding a scrubbed secret replays, and its re-run compares equal, on a
    /// machine that does not know the secret.
    #[test]
    fn scrubbed_transcripts_replay_and_compare_where_the_secret_is_unknown() {
        let canary = "hf-canary-portable-31337";
        let write = |scrubber: Scrubber, user: &str| {
            let (mut w, buf) = TranscriptWriter::in_memory("mem", WriterOptions { scrubber, wall_clock: false });
            w.write_header(&Header::new(serde_json::json!({"seed": 1}), BTreeMap::new())).unwrap();
            let ok: Result<ChatResponse, LlmError> = Ok(ChatResponse::simple("wait(1)", Usage::default()));
            let req = request(&format!("System with {canary}."), user);
            w.write_exchange(&Exchange::new(0, "plan", req, &ok, Duration::ZERO)).unwrap();
            w.write_footer(serde_json::json!({"score": 0})).unwrap();
            Transcript::parse(&buf.text(), "mem").unwrap()
        };
        let recorded = write(Scrubber::new().with(canary), "state 0");
        assert_eq!(recorded.exchanges[0].request.messages[0].content, "System with [REDACTED].");
        // Served without the secret known...
        let replayer = recorded.replayer(Scrubber::new());
        let live = request(&format!("System with {canary}."), "state 0");
        assert_eq!(block_on(proagent_llm::LanguageModel::chat(&replayer, &live)).unwrap().text, "wait(1)");
        assert_eq!(replayer.wildcard_matches(), 1);
        // ...and the re-run, which holds the secret as text, agrees with the recording.
        assert_eq!(first_divergence(&recorded, &write(Scrubber::new(), "state 0")), None);
        let other = first_divergence(&recorded, &write(Scrubber::new(), "state 9")).unwrap();
        assert!(other.contains("message 1 (user) differs at character 6"), "{other}");
    }

    /// Runs a future to completion on a fresh single-threaded runtime.
    fn block_on<F: std::future::Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
    }

    #[test]
    fn divergences_are_located() {
        let a = Transcript::parse(&write_sample(true, Scrubber::new()), "a").unwrap();
        let b = Transcript::parse(&write_sample(false, Scrubber::new()), "b").unwrap();
        assert_eq!(first_divergence(&a, &b), None, "wall-clock fields are ignored");
        let text = write_sample(false, Scrubber::new());
        let c = Transcript::parse(&text.replace(r#""reward":20"#, r#""reward":0"#), "c").unwrap();
        assert_eq!(first_divergence(&a, &c).unwrap(), "step t=1: step.reward: recorded 20, now 0");
        let mut d = b.clone();
        d.exchanges[0].outcome = Outcome::Reply(ChatResponse::simple("Plan: b", Usage::default()));
        let msg = first_divergence(&a, &d).unwrap();
        assert!(msg.starts_with("exchange #0 (t=0, plan): outcome.text: recorded \"Plan: a\""), "{msg}");
        let mut e = b.clone();
        e.exchanges[1].request.messages[1].content = "state 2".into();
        let msg = first_divergence(&a, &e).unwrap();
        assert!(msg.contains("exchange #1 (t=1, plan): message 1 (user) differs at character 6"), "{msg}");
        let mut f = b.clone();
        f.steps.pop();
        assert!(first_divergence(&a, &f).unwrap().contains("2 steps, the re-run 1"));
        let mut g = b.clone();
        g.header.prompt_hashes.insert("planner".into(), "0".repeat(64));
        assert!(first_divergence(&a, &g).unwrap().starts_with("prompt template \"planner\" changed"));
    }

    #[test]
    fn in_memory_writer_reads_back() {
        let (mut w, buf) =
            TranscriptWriter::in_memory("rerun", WriterOptions { scrubber: Scrubber::new(), wall_clock: false });
        w.write_header(&Header::new(Value::Null, BTreeMap::new())).unwrap();
        w.write_footer(serde_json::json!({"score": 0})).unwrap();
        let t = Transcript::parse(&buf.text(), "rerun").unwrap();
        assert_eq!(t.require_complete().unwrap().data["score"], 0);
    }

    #[test]
    fn writer_enforces_record_order() {
        let mut w = TranscriptWriter::new(Box::new(Buf::default()), "mem", WriterOptions::default());
        assert!(w.write_step(0, Value::Null).is_err());
        w.write_header(&Header::new(Value::Null, BTreeMap::new())).unwrap();
        assert!(w.write_header(&Header::new(Value::Null, BTreeMap::new())).is_err());
        w.write_footer(Value::Null).unwrap();
        assert!(w.write_step(0, Value::Null).is_err());
    }

    #[test]
    fn default_path_is_unique_and_safe() {
        let dir = tempfile::tempdir().unwrap();
        let p = default_path(dir.path(), "cramped_room", "proagent[gpt-4o]", "greedy", 0, 42);
        let name = p.file_name().unwrap().to_str().unwrap().to_string();
        assert!(name.starts_with("cramped_room-proagent_gpt-4o_-greedy-seat0-seed42-"), "{name}");
        std::fs::write(&p, "").unwrap();
        let q = default_path(dir.path(), "cramped_room", "proagent[gpt-4o]", "greedy", 0, 42);
        assert_ne!(p, q);
    }

    #[test]
    fn file_writer_creates_dirs_and_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a/b/run.jsonl");
        let mut w = TranscriptWriter::create(&path, WriterOptions::default()).unwrap();
        w.write_header(&Header::new(serde_json::json!({"k": 1}), BTreeMap::new())).unwrap();
        // Flushed as written: readable before the writer is dropped.
        let t = Transcript::read(&path).unwrap();
        assert_eq!(t.header.config["k"], 1);
        assert!(t.footer.is_none());
        let e = Transcript::read(&dir.path().join("missing.jsonl")).unwrap_err().to_string();
        assert!(e.contains("missing.jsonl"), "{e}");
    }
}
