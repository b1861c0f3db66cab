//! The replay backend (`--model replay:FILE`): serves the replies of a recorded
//! transcript, keyed by the sha256 of the canonical request, and never calls a
//! live model. A request that is not in the recording is a loud error that says
//! where the run left the recorded path and how the request differs.
//!
//! Recordings are scrubbed before they are hashed: a prompt that held a secret
//! (an API key, a `*_TOKEN` value) is stored, and hashed, with `[REDACTED]` in its
//! place. A re-run builds the same prompt with the secret in it again. A live request
//! is looked up three ways, in this order:
//! 1. scrubbed with the replayer's [`Scrubber`] (set with [`ReplayModel::with_scrubber`]):
//!    with the same secrets known, it scrubs to exactly the recorded text;
//! 2. as it is (the recording machine did not know a secret this one knows);
//! 3. against the recorded requests that hold `[REDACTED]`, each scrubbed span a
//!    wildcard for one or more characters ([`matches_scrubbed`]), the rest equal. This
//!    is what makes transcripts portable: they replay on a machine that does not know
//!    the secret (the variable unset, or a value this build no longer treats as a
//!    secret). The replayer says so: a warning the first time, and
//!    [`ReplayModel::wildcard_matches`] counts them.
//!
//! Among equal candidates the first unserved one in recording order is served. After
//! the first miss nothing more is looked up: every later request gets a one-line error
//! pointing back to it, and [`ReplayModel::first_miss`] lets a runner stop.

use super::record::Exchange;
use super::scrub::{REDACTED, Scrubber};
use super::{ChatRequest, ChatResponse, LanguageModel, LlmError, Message};
use async_trait::async_trait;
use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

/// How much text each side of a difference shows.
const CONTEXT_CHARS: usize = 60;

/// Serves recorded replies by request content; see the module doc.
pub struct ReplayModel {
    source: String,
    /// The name the model reports (the recorded model's, so an agent names itself as in the recording).
    name: String,
    /// Applied to every live request before lookup, as the recorder did before hashing.
    scrubber: Scrubber,
    state: Mutex<ReplayState>,
}

struct ReplayState {
    exchanges: Vec<Exchange>,
    /// Request hash → indices of the exchanges with that request, in recording order.
    by_hash: HashMap<String, VecDeque<usize>>,
    /// The exchanges whose request holds a scrubbed span, in recording order.
    scrubbed: Vec<usize>,
    served: Vec<bool>,
    /// Requests served by matching scrubbed spans as wildcards.
    wildcard_matches: usize,
    /// The first exchange not served yet: what a faithful re-run asks next.
    next: usize,
    /// The error of the first request that was not in the recording.
    first_miss: Option<String>,
}

impl ReplayModel {
    /// A replayer over recorded exchanges; `source` names them in messages (usually the file).
    pub fn new(source: impl Into<String>, exchanges: Vec<Exchange>) -> Self {
        let mut by_hash: HashMap<String, VecDeque<usize>> = HashMap::new();
        for (i, ex) in exchanges.iter().enumerate() {
            by_hash.entry(ex.request_hash()).or_default().push_back(i);
        }
        let served = vec![false; exchanges.len()];
        let scrubbed = (0..exchanges.len()).filter(|&i| holds_scrubbed_span(&exchanges[i].request)).collect();
        ReplayModel {
            source: source.into(),
            name: "replay".into(),
            scrubber: Scrubber::new(),
            state: Mutex::new(ReplayState {
                exchanges,
                by_hash,
                scrubbed,
                served,
                wildcard_matches: 0,
                next: 0,
                first_miss: None,
            }),
        }
    }

    /// The same replayer reporting `name` as its model name (default "replay").
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The same replayer scrubbing live requests with `scrubber` before looking them up
    /// (see the module doc); give it the secrets the recorder knew.
    pub fn with_scrubber(mut self, scrubber: Scrubber) -> Self {
        self.scrubber = scrubber;
        self
    }

    /// How many exchanges the recording holds.
    pub fn total(&self) -> usize {
        self.lock().exchanges.len()
    }

    /// How many recorded exchanges were served so far.
    pub fn served(&self) -> usize {
        self.lock().served.iter().filter(|s| **s).count()
    }

    /// The recorded exchanges no request has asked for yet, as (seq, t, kind).
    pub fn unserved(&self) -> Vec<(u64, u32, String)> {
        let st = self.lock();
        st.exchanges.iter().zip(&st.served).filter(|(_, s)| !**s).map(|(e, _)| (e.seq, e.t, e.kind.clone())).collect()
    }

    /// How many requests were served by matching the recording's scrubbed spans as
    /// wildcards (the secrets they held are not known here; see the module doc).
    pub fn wildcard_matches(&self) -> usize {
        self.lock().wildcard_matches
    }

    /// The message of the first request that was not in the recording, if any: once
    /// a run has left the recorded path, nothing after it can match.
    pub fn first_miss(&self) -> Option<String> {
        self.lock().first_miss.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ReplayState> {
        // A panic elsewhere while holding the lock leaves the state consistent (every
        // update is a single assignment), so a poisoned lock is still usable.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[async_trait]
impl LanguageModel for ReplayModel {
    fn name(&self) -> String {
        self.name.clone()
    }

    async fn chat(&self, live: &ChatRequest) -> Result<ChatResponse, LlmError> {
        let mut request = live.clone();
        self.scrubber.scrub_request(&mut request);
        let request = &request;
        let hash = request.canonical_hash();
        let mut st = self.lock();
        if st.first_miss.is_some() {
            return Err(LlmError::ReplayMiss(format!(
                "not looked up: an earlier request already left the recording {}",
                self.source
            )));
        }
        let exact = st.take_by_hash(&hash).or_else(|| st.take_by_hash(&live.canonical_hash()));
        let hit = exact.or_else(|| {
            let i = st.take_by_wildcards(live)?;
            st.wildcard_matches += 1;
            if st.wildcard_matches == 1 {
                tracing::warn!(
                    source = %self.source,
                    "a request matched the recording only with its scrubbed spans ([REDACTED]) read as wildcards: \
                     the secrets they held are not known here, so they are not compared"
                );
            }
            Some(i)
        });
        let Some(i) = hit else {
            let expected = st.exchanges.get(st.next);
            let message = describe_miss(&self.source, expected, st.exchanges.len(), request, &hash);
            st.first_miss = Some(message.clone());
            return Err(LlmError::ReplayMiss(message));
        };
        st.served[i] = true;
        while st.next < st.served.len() && st.served[st.next] {
            st.next += 1;
        }
        tracing::debug!(seq = st.exchanges[i].seq, t = st.exchanges[i].t, "replayed exchange");
        st.exchanges[i].outcome.to_result()
    }
}

impl ReplayState {
    /// The first unserved exchange recorded with this request hash.
    fn take_by_hash(&mut self, hash: &str) -> Option<usize> {
        let queue = self.by_hash.get_mut(hash)?;
        // An exchange served through its wildcards is still queued under its own hash.
        while let Some(i) = queue.pop_front() {
            if !self.served[i] {
                return Some(i);
            }
        }
        None
    }

    /// The first unserved exchange with scrubbed spans that `live` matches (see
    /// [`matches_scrubbed`]), in recording order.
    fn take_by_wildcards(&self, live: &ChatRequest) -> Option<usize> {
        self.scrubbed.iter().copied().find(|&i| !self.served[i] && matches_scrubbed(&self.exchanges[i].request, live))
    }
}

/// Whether any text of a request holds [`REDACTED`].
fn holds_scrubbed_span(r: &ChatRequest) -> bool {
    r.messages.iter().any(|m| m.content.contains(REDACTED)) || r.sampling.stop.iter().any(|s| s.contains(REDACTED))
}

/// Whether `live` is the `recorded` request with its scrubbed spans filled in: the same
/// roles and sampling, and every text equal to the recorded one where each
/// [`REDACTED`] stands for one or more characters of any kind.
pub fn matches_scrubbed(recorded: &ChatRequest, live: &ChatRequest) -> bool {
    let (r, l) = (&recorded.sampling, &live.sampling);
    let same_numbers =
        (r.temperature, r.top_p, r.max_tokens, r.no_cap) == (l.temperature, l.top_p, l.max_tokens, l.no_cap);
    same_numbers
        && recorded.messages.len() == live.messages.len()
        && r.stop.len() == l.stop.len()
        && recorded
            .messages
            .iter()
            .zip(&live.messages)
            .all(|(a, b)| a.role == b.role && text_fits(&a.content, &b.content))
        && r.stop.iter().zip(&l.stop).all(|(a, b)| text_fits(a, b))
}

/// Whether `text` fits `pattern`, in which every [`REDACTED`] stands for one or more
/// characters. The literal pieces are found leftmost-first, which is exact for
/// wildcards that only have a lower bound on their length.
fn text_fits(pattern: &str, text: &str) -> bool {
    if pattern == text {
        return true;
    }
    let mut pieces = pattern.split(REDACTED);
    let Some(first) = pieces.next() else { return false };
    let Some(mut rest) = text.strip_prefix(first) else { return false };
    let pieces: Vec<&str> = pieces.collect();
    let Some((last, middle)) = pieces.split_last() else { return false };
    for piece in middle {
        // The wildcard before this piece takes at least one character.
        let Some(c) = rest.chars().next() else { return false };
        let after = &rest[c.len_utf8()..];
        let Some(at) = after.find(piece) else { return false };
        rest = &after[at + piece.len()..];
    }
    // The last wildcard takes at least one character, then the last piece ends the text.
    rest.len() > last.len() && rest.ends_with(last)
}

/// "request not in FILE: ... expected exchange #7 (t=42, plan): message 2 (user) differs at char 120: ..."
fn describe_miss(source: &str, expected: Option<&Exchange>, total: usize, actual: &ChatRequest, hash: &str) -> String {
    let short = &hash[..hash.len().min(12)];
    let Some(exp) = expected else {
        return format!(
            "request {short}… is not in {source}: all {total} recorded exchanges were already served \
             (the run made more LLM requests than the recording)"
        );
    };
    let diff = first_difference(&exp.request, actual);
    format!(
        "request {short}… is not in {source}; the next recorded exchange is #{} at t={} ({}): {diff}",
        exp.seq, exp.t, exp.kind
    )
}

/// Where two requests first differ, in words.
pub fn first_difference(expected: &ChatRequest, actual: &ChatRequest) -> String {
    for (i, (e, a)) in expected.messages.iter().zip(&actual.messages).enumerate() {
        if e.role != a.role {
            return format!("message {i} is {} in the recording but {} now", role_name(e), role_name(a));
        }
        if !text_fits(&e.content, &a.content) {
            return describe_text_diff(i, e, a);
        }
    }
    let (ne, na) = (expected.messages.len(), actual.messages.len());
    if ne != na {
        return format!("the recording has {ne} messages, the request has {na}");
    }
    let stops_fit = expected.sampling.stop.len() == actual.sampling.stop.len()
        && expected.sampling.stop.iter().zip(&actual.sampling.stop).all(|(e, a)| text_fits(e, a));
    let (e, a) = (&expected.sampling, &actual.sampling);
    if (e.temperature, e.top_p, e.max_tokens, e.no_cap) != (a.temperature, a.top_p, a.max_tokens, a.no_cap)
        || !stops_fit
    {
        let s = |r: &ChatRequest| {
            format!(
                "temperature {} top_p {} max_tokens {}{} stop {:?}",
                r.sampling.temperature,
                r.sampling.top_p,
                r.sampling.max_tokens,
                if r.sampling.no_cap { " (not sent)" } else { "" },
                r.sampling.stop
            )
        };
        return format!("the sampling differs: recorded {}, now {}", s(expected), s(actual));
    }
    "the requests are identical (this exchange was already served more often than recorded)".into()
}

fn role_name(m: &Message) -> &'static str {
    match m.role {
        super::Role::System => "system",
        super::Role::User => "user",
        super::Role::Assistant => "assistant",
    }
}

fn describe_text_diff(i: usize, e: &Message, a: &Message) -> String {
    let ec: Vec<char> = e.content.chars().collect();
    let ac: Vec<char> = a.content.chars().collect();
    let at = ec.iter().zip(&ac).take_while(|(x, y)| x == y).count();
    let line = ec[..at].iter().filter(|c| **c == '\n').count() + 1;
    let window = |cs: &[char]| {
        let from = at.saturating_sub(CONTEXT_CHARS / 3);
        let to = (at + CONTEXT_CHARS).min(cs.len());
        let mut s = String::new();
        if from > 0 {
            s.push('…');
        }
        s.extend(cs[from..to].iter().map(|c| if *c == '\n' { '⏎' } else { *c }));
        if to < cs.len() {
            s.push('…');
        }
        s
    };
    let redacted: Vec<char> = REDACTED.chars().collect();
    let scrubbed_here = ec[at..].starts_with(&redacted);
    let hint = if scrubbed_here {
        " (the recording holds a scrubbed secret here, which matches any text: the difference that \
         counts comes later in this message)"
    } else {
        ""
    };
    format!(
        "message {i} ({}) differs at character {at} (line {line}): recorded {:?}, now {:?}{hint}",
        role_name(e),
        window(&ec),
        window(&ac)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Fault, Sampling, Usage};
    use std::time::Duration;

    fn req(user: &str) -> ChatRequest {
        ChatRequest::new(vec![Message::system("You are a chef."), Message::user(user)], Sampling::default())
    }

    fn ex(seq: u64, t: u32, user: &str, reply: Result<ChatResponse, LlmError>) -> Exchange {
        let mut e = Exchange::new(t, "plan", req(user), &reply, Duration::ZERO);
        e.seq = seq;
        e
    }

    fn ok(text: &str) -> Result<ChatResponse, LlmError> {
        Ok(ChatResponse::simple(text, Usage::new(3, 1)))
    }

    #[tokio::test]
    async fn serves_by_hash_and_repeats_in_order() {
        let m = ReplayModel::new(
            "rec.jsonl",
            vec![
                ex(0, 0, "pot empty", ok("A")),
                ex(1, 5, "pot full", ok("B")),
                ex(2, 9, "pot empty", ok("C")),
                ex(3, 12, "gone", Err(LlmError::Unreachable { faults: vec![] })),
            ],
        );
        // Out of order is fine: lookups are by content.
        assert_eq!(m.chat(&req("pot full")).await.unwrap().text, "B");
        assert_eq!(m.chat(&req("pot empty")).await.unwrap().text, "A");
        assert_eq!(m.chat(&req("pot empty")).await.unwrap().text, "C");
        assert_eq!(m.unserved(), vec![(3, 12, "plan".to_string())]);
        // A recorded failure replays as the same failure.
        assert!(matches!(m.chat(&req("gone")).await, Err(LlmError::Unreachable { .. })));
        assert_eq!(m.served(), 4);
        let e = m.chat(&req("pot empty")).await.unwrap_err().to_string();
        assert!(e.contains("all 4 recorded exchanges were already served"), "{e}");
    }

    #[tokio::test]
    async fn a_miss_names_the_timestep_and_the_difference() {
        let faults = vec![Fault { attempt: 1, kind: "status_429".into(), detail: "x".into() }];
        let mut reply = ChatResponse::simple("A", Usage::default());
        reply.faults = faults;
        reply.attempts = 2;
        let m = ReplayModel::new(
            "rec.jsonl",
            vec![ex(0, 0, "Player 0 holds nothing.\nThe pot has 1 onion.", Ok(reply.clone())), ex(1, 42, "x", ok("B"))],
        );
        assert_eq!(m.chat(&req("Player 0 holds nothing.\nThe pot has 1 onion.")).await, Ok(reply));
        let e = m.chat(&req("y")).await.unwrap_err();
        let LlmError::ReplayMiss(msg) = &e else { panic!("{e:?}") };
        assert!(msg.contains("not in rec.jsonl"), "{msg}");
        assert!(msg.contains("#1 at t=42 (plan)"), "{msg}");
        assert!(msg.contains("message 1 (user) differs at character 0"), "{msg}");
        assert!(msg.contains(r#"recorded "x", now "y""#), "{msg}");
    }

    #[tokio::test]
    async fn live_requests_are_scrubbed_like_the_recording() {
        let canary = "hf-canary-replay-5150";
        // What a recorder wrote: the request scrubbed before hashing.
        let mut recorded = ex(0, 3, &format!("my token is {canary}"), ok("A"));
        assert_eq!(recorded.scrub(&Scrubber::new().with(canary)), 1);
        assert_eq!(recorded.request.messages[1].content, "my token is [REDACTED]");
        let live = req(&format!("my token is {canary}"));
        let m = ReplayModel::new("rec.jsonl", vec![recorded.clone()]).with_scrubber(Scrubber::new().with(canary));
        assert_eq!(m.chat(&live).await.unwrap().text, "A");
        assert_eq!(m.wildcard_matches(), 0, "an exact match");
        // Without the secret known, the scrubbed span is a wildcard, and the replayer says so.
        let m = ReplayModel::new("rec.jsonl", vec![recorded.clone()]);
        assert_eq!(m.chat(&live).await.unwrap().text, "A");
        assert_eq!(m.wildcard_matches(), 1);
        // A request that differs elsewhere still misses, and the miss points past the secret.
        let m = ReplayModel::new("rec.jsonl", vec![recorded]);
        let e = m.chat(&req(&format!("my token was {canary}"))).await.unwrap_err().to_string();
        assert!(e.contains("differs at character 9"), "{e}");
        assert_eq!(m.wildcard_matches(), 0);
    }

    /// Issue 25: a transcript recorded with FOO_TOKEN=cooperative (a word of the prompt)
    /// by a build that scrubbed it, replayed on a machine without the variable — or with
    /// it, now that a plain word is no secret.
    #[tokio::test]
    async fn a_recording_that_scrubbed_a_word_replays_anywhere() {
        let mut old_rules = Scrubber::new();
        old_rules.add_unchecked("cooperative");
        let prompt = |n: u32| format!("You are a cooperative chef. Step {n}: be cooperative.");
        let mut exchanges: Vec<Exchange> = (0..3).map(|n| ex(n.into(), n, &prompt(n), ok(&format!("R{n}")))).collect();
        for e in &mut exchanges {
            assert_eq!(e.scrub(&old_rules), 2);
        }
        assert_eq!(exchanges[1].request.messages[1].content, "You are a [REDACTED] chef. Step 1: be [REDACTED].");
        for here in [Scrubber::new(), Scrubber::from_env(), Scrubber::new().with("cooperative")] {
            let m = ReplayModel::new("old.jsonl", exchanges.clone()).with_scrubber(here);
            for n in [0, 2, 1] {
                assert_eq!(m.chat(&req(&prompt(n))).await.unwrap().text, format!("R{n}"));
            }
            assert_eq!((m.served(), m.wildcard_matches()), (3, 3));
        }
    }

    #[tokio::test]
    async fn a_secret_only_this_machine_knows_is_looked_up_as_sent() {
        // Recorded where the variable was unset: the value is in the recording as text.
        let canary = "zz-canary-local-7781";
        let recorded = ex(0, 0, &format!("key {canary}"), ok("A"));
        let m = ReplayModel::new("rec.jsonl", vec![recorded]).with_scrubber(Scrubber::new().with(canary));
        assert_eq!(m.chat(&req(&format!("key {canary}"))).await.unwrap().text, "A");
        assert_eq!(m.wildcard_matches(), 0);
    }

    #[test]
    fn scrubbed_spans_match_one_or_more_characters() {
        assert!(text_fits("a [REDACTED] b", "a xyz b"));
        assert!(text_fits("a [REDACTED] b", "a [REDACTED] b"));
        assert!(!text_fits("a [REDACTED] b", "a  b"), "a span is never empty");
        assert!(text_fits("[REDACTED]", "x"));
        assert!(!text_fits("[REDACTED]", ""));
        assert!(text_fits("[REDACTED][REDACTED]", "xy") && !text_fits("[REDACTED][REDACTED]", "x"));
        assert!(text_fits("k=[REDACTED]; k=[REDACTED].", "k=ab; k=ab; k=cd."), "leftmost pieces, any fill");
        assert!(!text_fits("k=[REDACTED]; x", "k=ab; y"));
        assert!(text_fits("é[REDACTED]ü", "éßü") && !text_fits("é[REDACTED]ü", "éü"));
        assert!(!text_fits("plain", "plain!") && text_fits("plain", "plain"));
        let mut a = req("t [REDACTED]");
        let b = req("t secret-value");
        assert!(matches_scrubbed(&a, &b));
        a.sampling.max_tokens += 1;
        assert!(!matches_scrubbed(&a, &b), "sampling must agree");
    }

    #[tokio::test]
    async fn after_the_first_miss_nothing_is_looked_up() {
        let m = ReplayModel::new("rec.jsonl", vec![ex(0, 0, "a", ok("A")), ex(1, 1, "b", ok("B"))]);
        assert_eq!(m.first_miss(), None);
        let first = m.chat(&req("zzz")).await.unwrap_err().to_string();
        assert!(first.contains("#0 at t=0"), "{first}");
        assert_eq!(m.first_miss().map(|s| format!("replay miss: {s}")), Some(first));
        // Even a recorded request is not served any more: the run is off the recorded path.
        let later = m.chat(&req("a")).await.unwrap_err().to_string();
        assert!(later.contains("an earlier request already left the recording rec.jsonl"), "{later}");
        assert_eq!(m.served(), 0);
    }

    #[test]
    fn differences_in_words() {
        let a = req("The pot has 1 onion and the dish is on the counter.");
        let b = req("The pot has 2 onion and the dish is on the counter.");
        let d = first_difference(&a, &b);
        assert!(d.contains("differs at character 12 (line 1)"), "{d}");
        let mut c = a.clone();
        c.messages.push(Message::assistant("more"));
        assert_eq!(first_difference(&a, &c), "the recording has 2 messages, the request has 3");
        let mut s = a.clone();
        s.sampling.temperature = 0.7;
        assert!(first_difference(&a, &s).contains("the sampling differs"));
        let mut r = a.clone();
        r.messages[0].role = crate::Role::User;
        assert_eq!(first_difference(&a, &r), "message 0 is system in the recording but user now");
    }
}
