//! The LLM-Coordination reply corpus: replies written in the styles of several models
//! (GPT-4, terse GPT-3.5, chatty Llama-3 and Mixtral, reasoning models with think blocks,
//! answers in other languages) for every LLM-Co game, each with the action (or verdict) a
//! careful reader takes from it, and the same answer as a server gives it when the
//! request carries a JSON schema (`structured`). They are written in these styles, not
//! recorded from the models. `action: null` marks a reply that names no offered action,
//! which must be a parse failure, never a guess.
//!
//! Every row must be read as expected, by the text parser and by the strict structured
//! reader. The parse rates (replies read as an action out of all) are printed:
//! `cargo test --test it llmco_reply_corpus -- --nocapture` makes the table of
//! docs/results.md.

use proagent::agent::llmco::reply::{action_text, match_option, structured_action, structured_verdict, verdict};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Deserialize)]
struct Row {
    id: String,
    kind: String,
    game: String,
    style: String,
    #[serde(default)]
    options: Vec<String>,
    reply: String,
    #[serde(default)]
    action: Option<String>,
    #[serde(default)]
    verdict: Option<bool>,
    structured: String,
    #[serde(default)]
    structured_action: Option<String>,
    #[serde(default)]
    structured_verdict: Option<bool>,
    #[allow(dead_code)]
    note: String,
}

fn rows() -> Vec<Row> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replies/llmco_corpus.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).unwrap_or_else(|e| panic!("{}:{}: {e}", path.display(), i + 1)))
        .collect()
}

/// The text parser's reading of an action reply: the option it names.
fn text_action(r: &Row) -> Option<String> {
    action_text(&r.reply).and_then(|t| match_option(&t, &r.options)).map(|i| r.options[i].clone())
}

/// The strict reader's reading of the structured form.
fn strict_action(r: &Row) -> Option<String> {
    let opts: Vec<&str> = r.options.iter().map(String::as_str).collect();
    structured_action(&r.structured, &opts).ok().map(|(i, _)| r.options[i].clone())
}

#[derive(Default)]
struct Rate {
    rows: usize,
    text: usize,
    structured: usize,
}

#[test]
fn llmco_reply_corpus_is_read_as_expected_with_and_without_structured_answers() {
    let rows = rows();
    let mut ids = std::collections::HashSet::new();
    for r in &rows {
        assert!(ids.insert(r.id.as_str()), "duplicate id {}", r.id);
    }
    let games: std::collections::BTreeSet<&str> = rows.iter().map(|r| r.game.as_str()).collect();
    assert_eq!(games.into_iter().collect::<Vec<_>>(), ["capture", "escape", "hanabi", "lever", "overcooked"]);
    let actions = rows.iter().filter(|r| r.kind == "action").count();
    let negatives = rows.iter().filter(|r| r.kind == "action" && r.action.is_none()).count();
    assert!(actions >= 60 && negatives >= 5, "corpus too small: {actions} action rows, {negatives} negative");

    let mut misses = Vec::new();
    let mut by_game: BTreeMap<String, Rate> = BTreeMap::new();
    let mut by_style: BTreeMap<String, Rate> = BTreeMap::new();
    for r in &rows {
        let (text_got, strict_got, text_want, strict_want) = match r.kind.as_str() {
            "action" => {
                let show = |a: &Option<String>| a.clone().unwrap_or_else(|| "<none>".into());
                (show(&text_action(r)), show(&strict_action(r)), show(&r.action), show(&r.structured_action))
            }
            "verify" => {
                let show = |v: Option<bool>| format!("{v:?}");
                let strict = structured_verdict(&r.structured).ok().map(|(ok, _)| ok);
                (show(verdict(&r.reply)), show(strict), show(r.verdict), show(r.structured_verdict))
            }
            other => panic!("{}: unknown kind {other}", r.id),
        };
        if text_got != text_want {
            misses.push(format!("{} (text): want {text_want}, got {text_got}\n    {:?}", r.id, r.reply));
        }
        if strict_got != strict_want {
            misses.push(format!("{} (structured): want {strict_want}, got {strict_got}\n    {:?}", r.id, r.structured));
        }
        let read = |s: &str| usize::from(s != "<none>" && s != "None");
        for rate in [by_game.entry(r.game.clone()).or_default(), by_style.entry(r.style.clone()).or_default()] {
            rate.rows += 1;
            rate.text += read(&text_got);
            rate.structured += read(&strict_got);
        }
    }
    let pct = |n: usize, d: usize| 100.0 * n as f64 / d.max(1) as f64;
    println!("| group | replies | read (text) | read (structured) |");
    println!("|---|---:|---:|---:|");
    let mut total = Rate::default();
    for (name, r) in by_game.iter().chain(by_style.iter()) {
        println!("| {name} | {} | {:.0} % | {:.0} % |", r.rows, pct(r.text, r.rows), pct(r.structured, r.rows));
    }
    for r in by_game.values() {
        total.rows += r.rows;
        total.text += r.text;
        total.structured += r.structured;
    }
    println!(
        "| all | {} | {:.0} % | {:.0} % |",
        total.rows,
        pct(total.text, total.rows),
        pct(total.structured, total.rows)
    );
    assert!(misses.is_empty(), "{} of {} rows misread:\n{}", misses.len(), rows.len(), misses.join("\n"));
}
