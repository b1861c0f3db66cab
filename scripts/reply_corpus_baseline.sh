#!/bin/sh
# Runs the reply corpora (tests/fixtures/replies/) against the reply readers of an older
# commit, for a before/after comparison with `cargo test --test it reply_corpus -- --nocapture`.
# Only APIs that commit already had are used: `parse_reply` for planner replies, and
# `extract_failed_condition` for double-check replies (whose returned line is given a
# condition name the way the current reader names one: a known precondition name in it,
# else the snake_case name it leads with).
# Usage: scripts/reply_corpus_baseline.sh [commit] (default: 3f0a64a, the parser's parent)
# Set CARGO_TARGET_DIR to reuse a warm target directory: the old crate is built under another
# package name (as a library unit test), so it never stands in for the current build there.
set -eu
COMMIT=${1:-3f0a64a}
REPO=$(git rev-parse --show-toplevel)
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
git -C "$REPO" archive "$COMMIT" | tar -x -C "$DIR"
mkdir -p "$DIR/tests/fixtures/replies"
cp "$REPO"/tests/fixtures/replies/*.jsonl "$DIR/tests/fixtures/replies/"
sed -i -e 's/^name = "proagent"$/name = "proagent-reply-baseline"/' -e '/^default-run/d' "$DIR/Cargo.toml"
printf '\n#[cfg(test)]\nmod reply_corpus_baseline;\n' >> "$DIR/src/lib.rs"
cat > "$DIR/src/reply_corpus_baseline.rs" <<'EOF'
use crate::agent::planner::parse_reply;
use crate::agent::verificator::extract_failed_condition;
use serde_json::Value;

const NAMES: [&str; 13] = [
    "hand_empty", "onion_reachable", "dish_reachable", "holding_onion", "pot_reachable", "pot_not_full",
    "holding_object", "empty_counter", "holding_dish", "soup_cooking_or_ready", "holding_soup",
    "serving_reachable", "wait_range",
];

fn rows(name: &str) -> Vec<Value> {
    let path = format!("{}/tests/fixtures/replies/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(path).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

fn name_of(line: &str) -> Option<String> {
    let norm: String = line.to_ascii_lowercase().chars().map(|c| if c == ' ' || c == '-' { '_' } else { c }).collect();
    let b = norm.as_bytes();
    for i in 0..b.len() {
        if i > 0 && b[i - 1].is_ascii_alphanumeric() {
            continue;
        }
        let hit = NAMES
            .iter()
            .filter(|n| norm[i..].starts_with(*n) && b.get(i + n.len()).is_none_or(|c| !c.is_ascii_alphanumeric()))
            .max_by_key(|n| n.len());
        if let Some(n) = hit {
            return Some(n.to_string());
        }
    }
    let lead = line.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
    let lead = lead.strip_prefix("Condition ").unwrap_or(lead);
    let id: String = lead.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    (id.contains('_') && !id.starts_with('_') && !id.ends_with('_')).then(|| id.to_ascii_lowercase())
}

#[test]
fn baseline() {
    let cases = rows("corpus.jsonl");
    let (mut plan_ok, mut both_ok) = (0, 0);
    for c in &cases {
        let seat = c["seat"].as_u64().unwrap() as usize;
        let r = parse_reply(c["reply"].as_str().unwrap(), seat);
        let plan = r.as_ref().ok().map(|r| r.plan.to_string());
        let intention = r.as_ref().ok().and_then(|r| r.intention.map(|s| s.to_string()));
        let want_plan = c["plan"].as_str().map(String::from);
        let want_intention = c["intention"].as_str().map(String::from);
        let p = plan == want_plan;
        plan_ok += usize::from(p);
        both_ok += usize::from(p && (want_plan.is_none() || intention == want_intention));
    }
    println!("planner reply corpus at this commit: {} replies; plan read correctly {plan_ok}; plan and intention {both_ok}", cases.len());
    let cases = rows("failed_conditions.jsonl");
    let mut ok = 0;
    for c in &cases {
        let got = extract_failed_condition(c["reply"].as_str().unwrap());
        let failed = got.is_some();
        let name = got.as_deref().and_then(name_of);
        ok += usize::from(failed == c["failed"].as_bool().unwrap() && name.as_deref() == c["condition"].as_str());
    }
    println!("verificator reply corpus at this commit: {} replies; read correctly {ok}", cases.len());
}
EOF
cd "$DIR" && cargo test --quiet --lib reply_corpus_baseline -- --nocapture 2>/dev/null | grep 'reply corpus'
