//! What a run would cost before it starts (`--dry-run` of `eval` and `play`): model calls
//! and prompt/completion tokens per model, and a price when one is given.
//!
//! How the figures are made, and what they guarantee: each cell (layout × agent × partner
//! × seat) with a ProAgent seat is played once, offline, with the rule-based stand-in in
//! every ProAgent's model's place ([`crate::runner::seats::SeatFactory::with_stand_in_models`]); its calls and
//! prompt tokens are multiplied by the cell's episodes. Prompt tokens are counted with the
//! model's own tokenizer when it is known (OpenAI BPE encodings, compiled in), else
//! estimated at four characters a token ([`TokenCounter::describe`] says which). They are
//! *measured with the stand-in's plans*: a real model may plan more or less often, and its
//! replies (which later prompts quote) differ, so calls and prompt tokens are an estimate
//! of the same order, not a bill. Completion tokens are given twice: as counted on the
//! stand-in's replies (short), and as the bound `calls × max_tokens`; a price uses the bound.
//! Nothing is sent to any server; the same inputs give the same figures.

use crate::games::Playable;
use crate::run::Run;
use proagent_core::episode::EpisodeOptions;
use proagent_core::seat::LlmUsage;
use proagent_llm::spec::{ModelChoice, classify_model};
use proagent_llm::tokens::TokenCounter;
use std::collections::BTreeMap;

/// Why a cost could not be measured, or a price not read.
#[derive(Debug, thiserror::Error)]
pub enum CostError {
    /// The offline episode failed.
    #[error("{0}")]
    Episode(String),
    /// `--price-per-mtok` is not two non-negative numbers.
    #[error("--price-per-mtok takes IN,OUT (USD per million prompt and completion tokens), got {0:?}")]
    Price(String),
}

/// One ProAgent seat's use of its model in one measured episode.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatUse {
    /// The model's name (`gpt-4o`, `scripted`, `replay:FILE`).
    pub model: String,
    /// Its `max_tokens` per reply.
    pub max_tokens: u32,
    /// What the episode used.
    pub usage: LlmUsage,
}

/// Plays one episode of `run` with the stand-in in every ProAgent's model's place and
/// returns each ProAgent seat's use. `run`'s factory must have been made with
/// [`crate::runner::seats::SeatFactory::with_stand_in_models`] (this function sets it if not).
pub async fn measure<G: Playable>(run: &Run<G>, seed: u64) -> Result<Vec<SeatUse>, CostError> {
    let run = Run {
        game: std::sync::Arc::clone(&run.game),
        layout_spec: run.layout_spec.clone(),
        layout_file: run.layout_file.clone(),
        specs: run.specs.clone(),
        seat: run.seat,
        factory: run.factory.clone().with_stand_in_models().with_max_llm_failures(None),
    };
    let played =
        run.play(seed, None, EpisodeOptions::default()).await.map_err(|e| CostError::Episode(e.to_string()))?;
    let mut out = Vec::new();
    for (i, spec) in run.specs.iter().enumerate() {
        let Some(seat) = run.factory.seat_of(spec) else { continue };
        let usage = played.result.llm.get(i).copied().unwrap_or_default();
        out.push(SeatUse { model: seat.model.model.clone(), max_tokens: seat.model.max_tokens, usage });
    }
    Ok(out)
}

/// The expected use of one model over a whole run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelCost {
    /// Episodes in which the model has a seat (an episode with two of its seats counts once).
    pub episodes: u64,
    /// Model calls.
    pub calls: u64,
    /// Prompt tokens.
    pub prompt_tokens: u64,
    /// Completion tokens counted on the stand-in's replies.
    pub completion_tokens_stand_in: u64,
    /// The completion bound: every call's `max_tokens`.
    pub completion_tokens_max: u64,
}

/// Per model, what a run is expected to use.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CostEstimate {
    /// Episodes of the run.
    pub episodes: u64,
    /// Episodes with at least one ProAgent seat.
    pub model_episodes: u64,
    /// By model name.
    pub models: BTreeMap<String, ModelCost>,
}

impl CostEstimate {
    /// Adds `episodes` episodes of a cell whose measured episode used `seats`.
    pub fn add_cell(&mut self, episodes: u64, seats: &[SeatUse]) {
        self.episodes = self.episodes.saturating_add(episodes);
        if !seats.is_empty() {
            self.model_episodes = self.model_episodes.saturating_add(episodes);
        }
        let mut seen: Vec<&str> = Vec::new();
        for s in seats {
            let m = self.models.entry(s.model.clone()).or_default();
            if !seen.contains(&s.model.as_str()) {
                m.episodes = m.episodes.saturating_add(episodes);
                seen.push(&s.model);
            }
            let times = |x: u64| x.saturating_mul(episodes);
            m.calls = m.calls.saturating_add(times(s.usage.calls));
            m.prompt_tokens = m.prompt_tokens.saturating_add(times(s.usage.prompt_tokens));
            m.completion_tokens_stand_in =
                m.completion_tokens_stand_in.saturating_add(times(s.usage.completion_tokens));
            m.completion_tokens_max =
                m.completion_tokens_max.saturating_add(times(s.usage.calls.saturating_mul(s.max_tokens as u64)));
        }
    }

    /// Model calls of every served model (the ones that cost money).
    pub fn served_calls(&self) -> u64 {
        self.models.iter().filter(|(m, _)| is_served(m)).map(|(_, c)| c.calls).sum()
    }

    /// The report, a plain-text table. `price` is (USD per million prompt tokens, per
    /// million completion tokens), applied to served models (the stand-in and replays
    /// cost nothing).
    pub fn render(&self, price: Option<(f64, f64)>) -> String {
        let mut s = format!(
            "dry run: {} episodes, {} with a ProAgent seat; nothing was sent to any model\n",
            self.episodes, self.model_episodes
        );
        if self.models.is_empty() {
            s.push_str("no model calls: no seat of this run uses a language model\n");
            return s;
        }
        s.push_str(
            "| model | episodes | calls | prompt tokens | completion tokens (stand-in / at most) | tokens counted with | price (USD) |\n",
        );
        s.push_str("|---|---|---|---|---|---|---|\n");
        let mut total = 0.0;
        for (model, c) in &self.models {
            let counter = TokenCounter::for_model(model);
            let (how, cost) = if is_served(model) {
                let cost =
                    price.map(|(i, o)| (c.prompt_tokens as f64 * i + c.completion_tokens_max as f64 * o) / 1_000_000.0);
                (counter.describe(), cost)
            } else {
                ("offline, no charge".to_string(), Some(0.0))
            };
            total += cost.unwrap_or(0.0);
            let cost = match (cost, price) {
                (Some(v), Some(_)) => format!("{v:.2}"),
                (Some(_), None) if !is_served(model) => "0".into(),
                _ => "— (give --price-per-mtok IN,OUT)".into(),
            };
            let name =
                if is_served(model) { model.clone() } else { format!("{model} (rule-based stand-in, not an LLM)") };
            let name = if model.starts_with("replay:") { format!("{model} (recorded replies)") } else { name };
            s.push_str(&format!(
                "| {name} | {} | {} | {} | {} / {} | {how} | {cost} |\n",
                c.episodes, c.calls, c.prompt_tokens, c.completion_tokens_stand_in, c.completion_tokens_max
            ));
        }
        if let Some((i, o)) = price {
            s.push_str(&format!("total price: {total:.2} USD at {i} USD per million prompt tokens, {o} per million completion tokens (completion at the max_tokens bound)\n"));
        }
        s.push_str(
            "calls and prompt tokens: one episode per cell played offline with the rule-based stand-in in each \
             model's place, times the cell's episodes (an estimate: a real model plans at its own pace)\n",
        );
        s
    }
}

/// Whether a model name is a served model (billed), not the stand-in or a replay.
pub fn is_served(model: &str) -> bool {
    matches!(classify_model(model), ModelChoice::Http(_))
}

/// `--price-per-mtok IN,OUT`: two non-negative finite numbers.
pub fn parse_price(s: &str) -> Result<(f64, f64), CostError> {
    let bad = || CostError::Price(s.to_string());
    let (i, o) = s.split_once(',').ok_or_else(bad)?;
    let num = |x: &str| x.trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0).ok_or_else(bad);
    Ok((num(i)?, num(o)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn used(model: &str, calls: u64, prompt: u64) -> SeatUse {
        let usage = LlmUsage { calls, prompt_tokens: prompt, completion_tokens: calls * 10, ..LlmUsage::default() };
        SeatUse { model: model.into(), max_tokens: 256, usage }
    }

    #[test]
    fn cells_multiply_and_models_add_up() {
        let mut e = CostEstimate::default();
        e.add_cell(10, &[used("gpt-4o", 30, 60_000)]);
        e.add_cell(10, &[used("gpt-4o", 20, 40_000), used("gpt-4o", 20, 40_000)]);
        e.add_cell(5, &[]);
        let c = &e.models["gpt-4o"];
        assert_eq!((e.episodes, e.model_episodes, c.episodes), (25, 20, 20));
        assert_eq!((c.calls, c.prompt_tokens, c.completion_tokens_max), (700, 1_400_000, 700 * 256));
        assert_eq!(e.served_calls(), 700);
        let t = e.render(Some((2.5, 10.0)));
        // 1.4 M prompt tokens at 2.5 + 179,200 completion tokens at 10 per million.
        assert!(t.contains("| 5.29 |") && t.contains("o200k_base"), "{t}");
        let t = e.render(None);
        assert!(t.contains("--price-per-mtok"), "{t}");
    }

    #[test]
    fn the_stand_in_is_free_and_labelled() {
        let mut e = CostEstimate::default();
        e.add_cell(2, &[used("scripted", 5, 100), used("llama3.1:8b", 5, 100)]);
        let t = e.render(Some((1.0, 1.0)));
        assert!(t.contains("scripted (rule-based stand-in, not an LLM)"), "{t}");
        assert!(t.contains("estimate (4 characters a token)"), "{t}");
        assert_eq!(e.served_calls(), 10);
    }

    #[test]
    fn prices_parse() {
        assert_eq!(parse_price("2.5,10").unwrap(), (2.5, 10.0));
        for bad in ["2.5", "a,b", "-1,2", "1,inf"] {
            assert!(parse_price(bad).unwrap_err().to_string().contains("IN,OUT"), "{bad}");
        }
    }
}
