//! Comparing a re-run with its recording: the first place they depart
//! (wall-clock fields aside, and a recorded `[REDACTED]` span agreeing with any text
//! of one or more characters), and the wall-clock-free canonical text.

use super::reader::Transcript;
use super::schema::TranscriptError;
use serde_json::Value;

/// Where a re-run first departs from its recording, ignoring wall-clock fields:
/// prompt templates, then exchanges and steps in order, then the footer. `None`
/// when they agree.
pub fn first_divergence(recorded: &Transcript, rerun: &Transcript) -> Option<String> {
    for (name, hash) in &recorded.header.prompt_hashes {
        match rerun.header.prompt_hashes.get(name) {
            Some(h) if h == hash => {}
            Some(h) => return Some(format!("prompt template {name:?} changed (sha256 {hash} recorded, {h} now)")),
            None => return Some(format!("prompt template {name:?} is recorded but not used now")),
        }
    }
    if recorded.header.config != rerun.header.config {
        return Some(format!(
            "run config differs: {}",
            value_difference(&recorded.header.config, &rerun.header.config, "config")
        ));
    }
    for (a, b) in recorded.exchanges.iter().zip(&rerun.exchanges) {
        let at = format!("exchange #{} (t={}, {})", a.seq, a.t, a.kind);
        if (a.t, &a.kind) != (b.t, &b.kind) {
            return Some(format!("{at}: the re-run made exchange #{} at t={} ({}) instead", b.seq, b.t, b.kind));
        }
        // A re-run on a machine that does not know a recorded secret has the text where
        // the recording has `[REDACTED]`: a scrubbed span agrees with any text.
        if a.request != b.request && !proagent_llm::replay::matches_scrubbed(&a.request, &b.request) {
            return Some(format!("{at}: {}", proagent_llm::replay::first_difference(&a.request, &b.request)));
        }
        if a.outcome != b.outcome {
            let (x, y) = (serde_json::to_value(&a.outcome), serde_json::to_value(&b.outcome));
            let diff = match (x, y) {
                (Ok(x), Ok(y)) => value_difference(&x, &y, "outcome"),
                _ => "the outcome differs".into(),
            };
            return Some(format!("{at}: {diff}"));
        }
        if a.parsed != b.parsed || a.parse_error != b.parse_error {
            return Some(format!(
                "{at}: the reply was parsed differently: recorded {:?} / {:?}, now {:?} / {:?}",
                a.parsed, a.parse_error, b.parsed, b.parse_error
            ));
        }
    }
    if recorded.exchanges.len() != rerun.exchanges.len() {
        let n = recorded.exchanges.len().min(rerun.exchanges.len());
        let first_extra = recorded.exchanges.get(n).or(rerun.exchanges.get(n)).map(|e| e.t).unwrap_or(0);
        return Some(format!(
            "the recording has {} exchanges, the re-run {} (first unmatched at t={first_extra})",
            recorded.exchanges.len(),
            rerun.exchanges.len()
        ));
    }
    for (a, b) in recorded.steps.iter().zip(&rerun.steps) {
        if a.t != b.t || a.data != b.data {
            let diff = if a.t != b.t { format!("t={} now", b.t) } else { value_difference(&a.data, &b.data, "step") };
            return Some(format!("step t={}: {diff}", a.t));
        }
    }
    if recorded.steps.len() != rerun.steps.len() {
        return Some(format!("the recording has {} steps, the re-run {}", recorded.steps.len(), rerun.steps.len()));
    }
    match (&recorded.footer, &rerun.footer) {
        (Some(a), Some(b)) if a.data != b.data => {
            Some(format!("footer: {}", value_difference(&a.data, &b.data, "footer")))
        }
        (Some(_), None) => Some("the re-run wrote no footer".into()),
        (None, Some(_)) => Some("the recording has no footer".into()),
        _ => None,
    }
}

/// The path and values of the first difference between two JSON values.
pub fn value_difference(a: &Value, b: &Value, path: &str) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) if p == q => {}
                    (Some(p), Some(q)) => return value_difference(p, q, &format!("{path}.{k}")),
                    (Some(p), None) => return format!("{path}.{k}: recorded {}, missing now", short(p)),
                    (None, Some(q)) => return format!("{path}.{k}: not recorded, now {}", short(q)),
                    (None, None) => {}
                }
            }
            format!("{path}: equal")
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                if p != q {
                    return value_difference(p, q, &format!("{path}[{i}]"));
                }
            }
            if x.len() != y.len() {
                return format!("{path}: {} items recorded, {} now", x.len(), y.len());
            }
            format!("{path}: equal")
        }
        _ => format!("{path}: recorded {}, now {}", short(a), short(b)),
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 120 { format!("{}…", s.chars().take(120).collect::<String>()) } else { s }
}

/// The transcript text with every `"wall"` object removed, one canonical JSON
/// record per line: two runs of the same command and seed give equal results.
pub fn without_wall_clock(text: &str, name: &str) -> Result<String, TranscriptError> {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let mut v: Value = serde_json::from_str(line).map_err(|e| TranscriptError::Bad {
            path: name.to_string(),
            line: i + 1,
            message: format!("malformed record: {e}"),
        })?;
        if let Some(obj) = v.as_object_mut() {
            obj.remove("wall");
        }
        out.push_str(&v.to_string());
        out.push('\n');
    }
    Ok(out)
}
