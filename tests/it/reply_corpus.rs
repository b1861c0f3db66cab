//! Reply corpora: what real models write, and what a careful human reads from it.
//!
//! `tests/fixtures/replies/corpus.jsonl` holds planner replies in the styles of
//! GPT-3.5, GPT-4, Llama-3, Qwen, DeepSeek-R1, Mistral and others (plus the nine
//! GPT-3.5 replies printed in the ProAgent paper), each with the seat it answers
//! for and the plan and intention a careful reader takes from it; `plan: null`
//! marks a reply that names no skill for that seat, which must be a parse
//! failure, never a guess. `failed_conditions.jsonl` does the same for the
//! verificator's double-check replies. Every row must be read correctly; a miss
//! fails the test and is listed with its id and raw text.

use proagent::agent::grounding::overcooked::parse_reply;
use proagent::agent::verificator::read_failed_condition;
use serde::Deserialize;
use std::path::Path;

#[derive(Deserialize)]
struct ReplyCase {
    id: String,
    style: String,
    seat: usize,
    reply: String,
    plan: Option<String>,
    intention: Option<String>,
    #[allow(dead_code)]
    note: String,
}

#[derive(Deserialize)]
struct ConditionCase {
    id: String,
    reply: String,
    /// Whether the reply reports a failed condition at all.
    failed: bool,
    /// The condition's name, when the reply names one.
    condition: Option<String>,
    #[allow(dead_code)]
    note: String,
}

fn load<T: for<'de> Deserialize<'de>>(name: &str) -> Vec<T> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replies").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1)))
        .collect()
}

fn shown(s: &Option<String>) -> &str {
    s.as_deref().unwrap_or("<none>")
}

#[test]
fn planner_reply_corpus_is_read_correctly() {
    let cases: Vec<ReplyCase> = load("corpus.jsonl");
    let mut ids = std::collections::HashSet::new();
    for c in &cases {
        assert!(ids.insert(c.id.as_str()), "duplicate id {}", c.id);
        assert!(c.seat < 2, "{}: seat {}", c.id, c.seat);
    }
    let negatives = cases.iter().filter(|c| c.plan.is_none()).count();
    assert!(cases.len() >= 200 && negatives >= 20, "corpus too small: {} rows, {negatives} negative", cases.len());

    let mut misses = Vec::new();
    let mut plan_ok = 0;
    for c in &cases {
        let (plan, intention, reason) = match parse_reply(&c.reply, c.seat) {
            Ok(r) => (Some(r.plan.to_string()), r.intention.map(|s| s.to_string()), None),
            Err(e) => {
                assert_eq!(e.raw, c.reply, "{}: the parse error keeps the raw reply", c.id);
                (None, None, Some(e.reason))
            }
        };
        let plan_right = plan == c.plan;
        plan_ok += usize::from(plan_right);
        // The intention only counts when the reply was read at all.
        let intention_right = c.plan.is_none() || intention == c.intention;
        if !(plan_right && intention_right) {
            misses.push(format!(
                "- {} [{}] seat {}: plan {} (want {}), intention {} (want {}){}\n  raw: {:?}",
                c.id,
                c.style,
                c.seat,
                shown(&plan),
                shown(&c.plan),
                shown(&intention),
                shown(&c.intention),
                reason.map(|r| format!(", error: {r}")).unwrap_or_default(),
                c.reply
            ));
        }
    }
    let n = cases.len();
    let ok = n - misses.len();
    println!(
        "planner reply corpus: {n} replies ({negatives} negative); plan read correctly {plan_ok}/{n}; \
         plan and intention read correctly {ok}/{n} ({:.1} %)",
        100.0 * ok as f64 / n as f64
    );
    assert!(misses.is_empty(), "{} of {n} replies misread:\n{}", misses.len(), misses.join("\n"));
}

#[test]
fn verificator_reply_corpus_is_read_correctly() {
    let cases: Vec<ConditionCase> = load("failed_conditions.jsonl");
    assert!(cases.len() >= 30, "corpus too small: {} rows", cases.len());
    let mut misses = Vec::new();
    for c in &cases {
        let got = read_failed_condition(&c.reply);
        let failed = got.is_some();
        let name = got.as_ref().and_then(|f| f.condition.clone());
        if failed != c.failed || name != c.condition {
            misses.push(format!(
                "- {}: failed {failed} (want {}), condition {} (want {})\n  raw: {:?}",
                c.id,
                c.failed,
                shown(&name),
                shown(&c.condition),
                c.reply
            ));
        }
        if let Some(f) = got {
            assert!(!f.text.trim().is_empty(), "{}: an empty reason", c.id);
        }
    }
    let n = cases.len();
    let ok = n - misses.len();
    println!("verificator reply corpus: {n} replies; read correctly {ok}/{n} ({:.1} %)", 100.0 * ok as f64 / n as f64);
    assert!(misses.is_empty(), "{} of {n} replies misread:\n{}", misses.len(), misses.join("\n"));
}

/// Every prefix of every corpus reply (a reply cut off anywhere) is read without a panic,
/// and a failure keeps the text it was given.
#[test]
fn cut_off_replies_never_panic() {
    let cases: Vec<ReplyCase> = load("corpus.jsonl");
    let mut prefixes = 0;
    for c in &cases {
        for (i, _) in c.reply.char_indices().step_by(3) {
            let cut = &c.reply[..i];
            if let Err(e) = parse_reply(cut, c.seat) {
                assert_eq!(e.raw, cut, "{}", c.id);
            }
            prefixes += 1;
        }
    }
    let conditions: Vec<ConditionCase> = load("failed_conditions.jsonl");
    for c in &conditions {
        for (i, _) in c.reply.char_indices() {
            let _ = read_failed_condition(&c.reply[..i]);
            prefixes += 1;
        }
    }
    println!("cut-off replies read: {prefixes}");
}
