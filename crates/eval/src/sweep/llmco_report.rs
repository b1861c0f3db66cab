//! The LLM-Coordination games in a sweep report ([`LlmcoTables`]): Hanabi's cards played and
//! the maze games' success rate and turns to success, each beside the published rows of
//! the LLM-Coordination paper (Agashe et al.: Table 3 for Hanabi, Table 2 for CollabCapture
//! and CollabEscape), model and trials named on both sides. Pure: records in, tables out.
//!
//! Score rules, named wherever a figure is shown: Hanabi **cards played** is the number of
//! cards on the fireworks at the end, kept when the last life is lost (the paper's measure);
//! HLE's score (0 once all three lives are lost) is shown beside it. A maze game's
//! **success** is a capture or an escape; **turns** is the mean over successful episodes
//! (the paper's "N.A." for a baseline that never succeeds says so).
//!
//! A seat whose model is the built-in `scripted` one is labelled "rule-based stand-in, not
//! an LLM" in every row.

use super::store::EpisodeRecord;
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One published Hanabi row of Table 3: (agent, model, cards played mean, ± as published).
pub const PAPER_TABLE3: [(&str, &str, f64, f64); 9] = [
    ("Bayesian Action Decoder (RL)", "—", 23.92, 0.01),
    ("Simplified Action Decoder (RL)", "—", 24.01, 0.01),
    ("Off-Belief Learning (RL)", "—", 24.10, 0.01),
    ("LLM-Co agent", "GPT-4-turbo", 13.33, 0.88),
    ("LLM-Co agent, without ToM", "GPT-4-turbo", 10.33, 0.88),
    ("LLM-Co agent, without ToM and verification", "GPT-4-turbo", 4.33, 0.88),
    ("LLM-Co agent", "GPT-4o", 8.33, 1.20),
    ("LLM-Co agent", "GPT-3.5-turbo", 1.33, 0.72),
    ("LLM-Co agent", "Mixtral-8x7b", 0.33, 0.27),
];

/// A published Table 2 row: (agent, model, capture success, capture turns, escape success,
/// escape turns).
pub type PaperCollabRow = (&'static str, &'static str, f64, Option<f64>, f64, Option<f64>);

/// One published row of Table 2: (agent, model, capture success, capture turns, escape
/// success, escape turns); `None`: "N.A.". Read with the first pair of columns as
/// CollabEscape and the second as CollabCapture (docs/collab.md, "Reading the published
/// Table 2").
pub const PAPER_TABLE2: [PaperCollabRow; 6] = [
    ("LLM-Co agent", "GPT-4-turbo", 1.00, Some(3.5), 0.83, Some(4.60)),
    ("LLM-Co agent, without ToM", "GPT-4-turbo", 1.00, Some(4.75), 0.50, Some(2.00)),
    ("LLM-Co agent", "GPT-4o", 1.00, Some(7.17), 0.67, Some(4.00)),
    ("LLM-Co agent", "GPT-3.5-turbo", 0.67, Some(8.38), 0.33, Some(2.50)),
    ("LLM-Co agent", "Mixtral-8x7b", 0.92, Some(7.55), 0.50, Some(7.67)),
    ("Greedy Baseline", "—", 0.50, Some(6.00), 0.00, None),
];

/// The model a seat's label names (`llmco[gpt-4o,tom=false]` → `gpt-4o`), in words: the
/// built-in `rule-based` model (alias `scripted`) is a rule-based stand-in; a seat with no
/// model is rule-based.
pub fn model_words(label: &str) -> String {
    let inner = label.split_once('[').and_then(|(_, r)| r.strip_suffix(']'));
    match inner.map(|i| i.split(',').next().unwrap_or("").trim()) {
        Some(m) if proagent_llm::is_stand_in(m) => format!("{m}: rule-based stand-in, not an LLM"),
        Some(m) if !m.is_empty() && !m.contains('=') => m.to_string(),
        _ if label.starts_with("llmco") || label.starts_with("proagent") => {
            format!("{}: rule-based stand-in, not an LLM", proagent_llm::STAND_IN)
        }
        _ => "none (rule-based partner)".into(),
    }
}

/// The model of a record's agent in words ([`model_words`]), and when the built-in mock
/// server served it (its identity in the agent's settings says so) with that label:
/// its replies came from the rule-based stand-ins, not from a language model.
pub fn record_model_words(r: &EpisodeRecord) -> String {
    let words = model_words(&label_of(r));
    let mock = r.agent_settings.get("server").is_some_and(proagent_llm::is_mock_server);
    if mock && !words.contains("not an LLM") {
        format!("{words}: {}", crate::runner::models::MOCK_SERVED_MARK)
    } else {
        words
    }
}

/// Mean and standard error (sample standard deviation / √n; `None` for one value).
fn mean_se(xs: &[f64]) -> (f64, Option<f64>) {
    let n = xs.len() as f64;
    if xs.is_empty() {
        return (0.0, None);
    }
    let mean = xs.iter().sum::<f64>() / n;
    if xs.len() < 2 {
        return (mean, None);
    }
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, Some((var / n).sqrt()))
}

fn show(mean: f64, se: Option<f64>) -> String {
    match se {
        Some(se) => format!("{mean:.2} ± {se:.2}"),
        None => format!("{mean:.2} ± –"),
    }
}

/// Our Hanabi figures of one agent × partner on one game (`hanabi`, `hanabi:3p`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HanabiRow {
    /// The game.
    pub layout: String,
    /// The agent's name in the results.
    pub agent: String,
    /// The partner's name.
    pub partner: String,
    /// The agent's model in words.
    pub model: String,
    /// Episodes.
    pub n: usize,
    /// Cards played: mean and standard error.
    pub cards_played: (f64, Option<f64>),
    /// HLE's score (0 once all lives are lost): mean and standard error.
    pub hle_score: (f64, Option<f64>),
    /// Share of episodes that lost all three lives.
    pub bombed: f64,
}

/// Our figures of one agent × partner on one maze game (all its scenarios pooled).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CollabRow {
    /// `collab_capture` or `collab_escape`.
    pub game: String,
    /// The agent's name in the results.
    pub agent: String,
    /// The partner's name.
    pub partner: String,
    /// The agent's model in words.
    pub model: String,
    /// Episodes (all scenarios and seats).
    pub n: usize,
    /// Scenarios played.
    pub scenarios: Vec<String>,
    /// Share of episodes that succeeded.
    pub success: f64,
    /// Mean turns of the successful episodes (`None`: none succeeded).
    pub turns: Option<f64>,
    /// Per scenario: (scenario, episodes, success rate, mean turns of the successful ones).
    pub per_scenario: Vec<(String, usize, f64, Option<f64>)>,
}

/// The LLM-Coordination games of a sweep.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LlmcoTables {
    /// Hanabi rows.
    pub hanabi: Vec<HanabiRow>,
    /// CollabCapture and CollabEscape rows.
    pub collab: Vec<CollabRow>,
}

fn game_of(r: &EpisodeRecord) -> &str {
    r.metrics.get("game").and_then(Value::as_str).unwrap_or("")
}

fn label_of(r: &EpisodeRecord) -> String {
    r.metrics.get("agent").and_then(Value::as_str).map_or_else(|| r.agent.clone(), str::to_string)
}

impl LlmcoTables {
    /// The tables of the records of Hanabi and maze-game episodes (empty when there are none).
    pub fn build(records: &[EpisodeRecord]) -> LlmcoTables {
        let mut hanabi: BTreeMap<(String, String, String), Vec<&EpisodeRecord>> = BTreeMap::new();
        let mut collab: BTreeMap<(String, String, String), Vec<&EpisodeRecord>> = BTreeMap::new();
        for r in records {
            match game_of(r) {
                "hanabi" => hanabi.entry((r.layout.clone(), r.agent.clone(), r.partner.clone())).or_default().push(r),
                g @ ("collab_capture" | "collab_escape") => {
                    collab.entry((g.to_string(), r.agent.clone(), r.partner.clone())).or_default().push(r)
                }
                _ => {}
            }
        }
        let num = |r: &EpisodeRecord, k: &str| r.metrics.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        let hanabi = hanabi
            .into_iter()
            .map(|((layout, agent, partner), rs)| {
                let cards: Vec<f64> = rs.iter().map(|r| num(r, "cards_played")).collect();
                let hle: Vec<f64> = rs.iter().map(|r| num(r, "hle_score")).collect();
                let bombed = rs
                    .iter()
                    .filter(|r| r.metrics.get("end").and_then(Value::as_str) == Some("out_of_life_tokens"))
                    .count();
                HanabiRow {
                    model: record_model_words(rs[0]),
                    layout,
                    agent,
                    partner,
                    n: rs.len(),
                    cards_played: mean_se(&cards),
                    hle_score: mean_se(&hle),
                    bombed: bombed as f64 / rs.len() as f64,
                }
            })
            .collect();
        let success = |r: &EpisodeRecord| r.metrics.get("success").and_then(Value::as_bool).unwrap_or(false);
        let rate = |rs: &[&EpisodeRecord]| -> (f64, Option<f64>) {
            let won: Vec<f64> = rs.iter().filter(|r| success(r)).map(|r| num(r, "turns_to_success")).collect();
            let turns = (!won.is_empty()).then(|| won.iter().sum::<f64>() / won.len() as f64);
            (won.len() as f64 / rs.len().max(1) as f64, turns)
        };
        let collab = collab
            .into_iter()
            .map(|((game, agent, partner), rs)| {
                let mut by: BTreeMap<String, Vec<&EpisodeRecord>> = BTreeMap::new();
                for r in &rs {
                    by.entry(r.layout.clone()).or_default().push(r);
                }
                let per_scenario: Vec<_> = by
                    .iter()
                    .map(|(s, v)| {
                        let (ok, t) = rate(v);
                        (s.clone(), v.len(), ok, t)
                    })
                    .collect();
                let (ok, turns) = rate(&rs);
                CollabRow {
                    model: record_model_words(rs[0]),
                    game,
                    agent,
                    partner,
                    n: rs.len(),
                    scenarios: by.keys().cloned().collect(),
                    success: ok,
                    turns,
                    per_scenario,
                }
            })
            .collect();
        LlmcoTables { hanabi, collab }
    }

    /// Whether the sweep played any of these games.
    pub fn is_empty(&self) -> bool {
        self.hanabi.is_empty() && self.collab.is_empty()
    }

    /// The tables as Markdown, our rows beside the published ones ("" when empty).
    pub fn markdown(&self) -> String {
        let mut s = String::new();
        if self.is_empty() {
            return s;
        }
        let _ = writeln!(s, "\n## LLM-Coordination games beside the published rows\n");
        let _ = writeln!(
            s,
            "Published rows: Agashe et al., LLM-Coordination, Table 3 (Hanabi) and Table 2 (CollabCapture, \
             CollabEscape); their agents played with a partner of the same kind. A model named `rule-based` \
             (alias `scripted`) is the built-in rule-based stand-in, not an LLM: its rows check the pipeline, they are no \
             measurement of a language model.\n"
        );
        if !self.hanabi.is_empty() {
            let _ = writeln!(
                s,
                "### Hanabi\n\nCards played = cards on the fireworks at the end, kept when the last life is lost \
                 (the paper's measure); HLE score = 0 once all three lives are lost. Mean ± standard error.\n"
            );
            let _ =
                writeln!(s, "| source | game | agent | partner | model | trials | cards played | HLE score | bombed |");
            let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
            for (agent, model, mean, pm) in PAPER_TABLE3 {
                let _ = writeln!(
                    s,
                    "| paper, Table 3 | hanabi (2p) | {agent} | same kind (self-play) | {model} | not stated (Table 5: 3 games) | {mean:.2} ± {pm:.2} | — | — |"
                );
            }
            for r in &self.hanabi {
                let _ = writeln!(
                    s,
                    "| ours | {} | {} | {} | {} | {} | {} | {} | {:.2} |",
                    r.layout,
                    r.agent,
                    r.partner,
                    r.model,
                    r.n,
                    show(r.cards_played.0, r.cards_played.1),
                    show(r.hle_score.0, r.hle_score.1),
                    r.bombed
                );
            }
        }
        if !self.collab.is_empty() {
            let _ = writeln!(
                s,
                "\n### CollabCapture and CollabEscape\n\nSuccess = a capture or an escape, over every episode of the \
                 game's scenarios; turns = mean turns of the successful episodes (N.A.: none succeeded). The paper: \
                 3 trials per scenario, 4 capture and 2 escape scenarios; Table 2 read with its first pair of \
                 columns as CollabEscape (docs/collab.md).\n"
            );
            let _ = writeln!(
                s,
                "| source | agent | partner | model | trials | capture success | capture turns | escape success | escape turns |"
            );
            let _ = writeln!(s, "|---|---|---|---|---|---|---|---|---|");
            let t = |x: Option<f64>| x.map_or("N.A.".to_string(), |v| format!("{v:.2}"));
            for (agent, model, cs, ct, es, et) in PAPER_TABLE2 {
                let _ = writeln!(
                    s,
                    "| paper, Table 2 | {agent} | same kind (self-play) | {model} | 3 per scenario | {cs:.2} | {} | {es:.2} | {} |",
                    t(ct),
                    t(et)
                );
            }
            for r in &self.collab {
                let (cap, esc) = if r.game == "collab_capture" {
                    ((format!("{:.2}", r.success), t(r.turns)), ("—".to_string(), "—".to_string()))
                } else {
                    (("—".to_string(), "—".to_string()), (format!("{:.2}", r.success), t(r.turns)))
                };
                let _ = writeln!(
                    s,
                    "| ours ({}) | {} | {} | {} | {} | {} | {} | {} | {} |",
                    r.scenarios.join(", "),
                    r.agent,
                    r.partner,
                    r.model,
                    r.n,
                    cap.0,
                    cap.1,
                    esc.0,
                    esc.1
                );
            }
            let _ = writeln!(s, "\nPer scenario (ours):\n\n| scenario | agent | partner | trials | success | turns |");
            let _ = writeln!(s, "|---|---|---|---|---|---|");
            for r in &self.collab {
                for (sc, n, ok, turns) in &r.per_scenario {
                    let _ = writeln!(s, "| {sc} | {} | {} | {n} | {ok:.2} | {} |", r.agent, r.partner, t(*turns));
                }
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_are_named_and_the_stand_in_is_never_an_llm() {
        assert_eq!(model_words("llmco[gpt-4o,tom=false]"), "gpt-4o");
        assert!(model_words("llmco[scripted]").contains("not an LLM"));
        assert!(model_words("llmco[rule-based,tom=false]").starts_with("rule-based: rule-based stand-in"));
        assert!(model_words("llmco").contains("not an LLM"));
        assert!(model_words("llmco[tom=false]").contains("not an LLM"));
        assert_eq!(model_words("simple"), "none (rule-based partner)");
    }

    #[test]
    fn means_and_standard_errors() {
        assert_eq!(mean_se(&[2.0]), (2.0, None));
        let (m, se) = mean_se(&[1.0, 3.0]);
        assert_eq!(m, 2.0);
        assert!((se.unwrap() - 1.0).abs() < 1e-12);
    }
}
