//! What a run would cost before it starts (`--dry-run` of `eval` and `play`): model calls
//! and prompt/completion tokens per model, and a price when one is given.
//!
//! How the figures are made, and what they guarantee: each cell (layout × agent × partner
//! × seat) with a ProAgent or LLM-Coordination seat is played once, offline, with the
//! rule-based stand-in in every such seat's model's place
//! ([`crate::runner::seats::SeatFactory::with_stand_in_models`]): nothing is sent and no
//! connection is opened. Its calls, prompt tokens, cacheable prompt tokens and each
//! agent's calls by kind are multiplied by the cell's episodes. Prompt tokens are counted with the
//! model's own tokenizer when it is known (OpenAI BPE encodings, compiled in), else
//! estimated at four characters a token ([`TokenCounter::describe`] says which). They are
//! *measured with the stand-in's plans*: a real model may plan more or less often, and its
//! replies (which later prompts quote) differ, so calls and prompt tokens are an estimate
//! of the same order, not a bill. Completion tokens are given twice: as counted on the
//! stand-in's replies (short), and as the bound `calls × max_tokens`; a price uses the bound.
//! Nothing is sent to any server; the same inputs give the same figures.

use crate::games::{Playable, counted};
use crate::run::Run;
use crate::runner::seats::is_llmco;
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
    /// `--price-per-mtok` is not two or three non-negative numbers.
    #[error(
        "--price-per-mtok takes IN,OUT or IN,OUT,CACHED (USD per million prompt, completion and cached prompt tokens, each from 0 to 100000), got {0:?}"
    )]
    Price(String),
}

/// One language-model seat's use of its model in one measured episode.
#[derive(Clone, Debug, PartialEq)]
pub struct SeatUse {
    /// The model's name (`gpt-4o`, `scripted`, `replay:FILE`).
    pub model: String,
    /// Its `max_tokens` per reply: the cap it sends, or for a seat that sends none
    /// (`uncapped`) the reply length assumed instead.
    pub max_tokens: u32,
    /// The seat sends no token cap (`llmco[preset=paper]`, as the released agent):
    /// `max_tokens` is then an assumption, which the report states.
    pub uncapped: bool,
    /// What the episode used.
    pub usage: LlmUsage,
    /// The agent: `proagent` or `llmco`.
    pub agent: &'static str,
    /// The calls by kind (the seat's `llm_calls_by_kind`: `planner` and `verificator`
    /// for a ProAgent; `action`, `tom` and `verify` for an LLM-Coordination seat).
    pub calls_by_kind: BTreeMap<String, u64>,
}

/// Plays one episode of `run` with the stand-in in every language-model seat's model's
/// place (ProAgent and LLM-Coordination) and returns each such seat's use; nothing is sent
/// to any server. `run`'s factory is made a
/// [`crate::runner::seats::SeatFactory::with_stand_in_models`] one here.
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
        let Some(model) = run.factory.model_of(spec) else { continue };
        let usage = played.result.llm.get(i).copied().unwrap_or_default();
        let calls_by_kind = played
            .result
            .metrics
            .get(i)
            .and_then(|m| m.get("llm_calls_by_kind"))
            .and_then(|k| k.as_object())
            .map(|k| k.iter().filter_map(|(kind, n)| Some((kind.clone(), n.as_u64()?))).collect())
            .unwrap_or_default();
        let agent = if is_llmco(spec) { "llmco" } else { "proagent" };
        let uncapped = run.factory.uncapped_reply_tokens(spec);
        out.push(SeatUse {
            model: model.model.clone(),
            max_tokens: uncapped.unwrap_or(model.max_tokens),
            uncapped: uncapped.is_some(),
            usage,
            agent,
            calls_by_kind,
        });
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
    /// Of the prompt tokens, those that repeat the previous call's prefix (what a
    /// server's prompt-prefix cache can bill at its cached-input price).
    pub cached_tokens: u64,
    /// Completion tokens counted on the stand-in's replies.
    pub completion_tokens_stand_in: u64,
    /// The completion bound: every call's `max_tokens` (for a seat that sends no cap, the
    /// reply length assumed).
    pub completion_tokens_max: u64,
    /// Calls of seats that send no token cap, and the reply length assumed for each.
    pub uncapped: Option<(u64, u32)>,
    /// By agent (`proagent`, `llmco`): its decisions and its calls by kind.
    pub agents: BTreeMap<&'static str, CallPattern>,
}

/// How one agent's seats call their model: decisions, and calls by kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallPattern {
    /// Decisions (calls whose reply chooses an action).
    pub decisions: u64,
    /// Calls by kind (`planner`, `verificator`; `action`, `tom`, `verify`).
    pub calls_by_kind: BTreeMap<String, u64>,
}

/// A price: USD per million prompt tokens, completion tokens and (when the provider
/// bills them apart) cached prompt tokens (`--price-per-mtok IN,OUT[,CACHED]`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Price {
    /// USD per million prompt tokens not read from the cache.
    pub input: f64,
    /// USD per million completion tokens (reasoning tokens included).
    pub output: f64,
    /// USD per million cached prompt tokens; `None`: the input price.
    pub cached: Option<f64>,
}

impl Price {
    /// The price of `prompt` prompt tokens of which `cached` are cached, and `completion`
    /// completion tokens, in USD.
    pub fn of(&self, prompt: u64, cached: u64, completion: u64) -> f64 {
        let cached = cached.min(prompt);
        let fresh = (prompt - cached) as f64 * self.input;
        let hit = cached as f64 * self.cached.unwrap_or(self.input);
        (fresh + hit + completion as f64 * self.output) / 1_000_000.0
    }

    /// The price in words, for the report's last line.
    pub fn describe(&self) -> String {
        let cached = match self.cached {
            Some(c) => format!(", {c} per million cached prompt tokens"),
            None => " (cached prompt tokens at the input price: give --price-per-mtok IN,OUT,CACHED)".into(),
        };
        format!("{} USD per million prompt tokens, {} per million completion tokens{cached}", self.input, self.output)
    }
}

/// The share `part / whole` as a whole percentage (`—` when `whole` is 0).
pub fn percent(part: u64, whole: u64) -> String {
    if whole == 0 { "—".into() } else { format!("{:.0} %", part as f64 * 100.0 / whole as f64) }
}

/// Per model, what a run is expected to use.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CostEstimate {
    /// Episodes of the run.
    pub episodes: u64,
    /// Episodes with at least one language-model seat (ProAgent or LLM-Coordination).
    pub model_episodes: u64,
    /// By model name.
    pub models: BTreeMap<String, ModelCost>,
    /// Reasoning tokens assumed per call (`--reasoning-tokens-per-call`), billed as
    /// completion tokens; 0 for chat models.
    pub reasoning_tokens_per_call: u64,
}

impl CostEstimate {
    /// An empty estimate that assumes `n` reasoning tokens per call.
    pub fn with_reasoning_tokens_per_call(n: u64) -> Self {
        CostEstimate { reasoning_tokens_per_call: n, ..CostEstimate::default() }
    }

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
            m.cached_tokens = m.cached_tokens.saturating_add(times(s.usage.cached_tokens));
            m.completion_tokens_stand_in =
                m.completion_tokens_stand_in.saturating_add(times(s.usage.completion_tokens));
            m.completion_tokens_max =
                m.completion_tokens_max.saturating_add(times(s.usage.calls.saturating_mul(s.max_tokens as u64)));
            if s.uncapped {
                let (calls, assumed) = m.uncapped.unwrap_or((0, 0));
                m.uncapped = Some((calls.saturating_add(times(s.usage.calls)), assumed.max(s.max_tokens)));
            }
            let pattern = m.agents.entry(s.agent).or_default();
            pattern.decisions = pattern.decisions.saturating_add(times(s.usage.decisions));
            for (kind, n) in &s.calls_by_kind {
                let c = pattern.calls_by_kind.entry(kind.clone()).or_default();
                *c = c.saturating_add(times(*n));
            }
        }
    }

    /// Model calls of every served model (the ones that cost money).
    pub fn served_calls(&self) -> u64 {
        self.models.iter().filter(|(m, _)| is_served(m)).map(|(_, c)| c.calls).sum()
    }

    /// The completion tokens a price counts for `c`: the `max_tokens` bound plus the
    /// assumed reasoning tokens.
    fn priced_completion(&self, c: &ModelCost) -> u64 {
        c.completion_tokens_max.saturating_add(c.calls.saturating_mul(self.reasoning_tokens_per_call))
    }

    /// The report, a plain-text table. `price` applies to served models (the stand-in and
    /// replays cost nothing); cached prompt tokens are priced at its cached price.
    pub fn render(&self, price: Option<Price>) -> String {
        let mut s = format!(
            "dry run: {} episodes, {} with a language-model seat (ProAgent or LLM-Co); nothing was sent to any model\n",
            self.episodes, self.model_episodes
        );
        if self.models.is_empty() {
            s.push_str("no model calls: no seat of this run uses a language model\n");
            return s;
        }
        s.push_str(
            "| model | episodes | calls | prompt tokens | completion tokens (stand-in / at most) | tokens counted with | price (USD) | cacheable prompt tokens |\n",
        );
        s.push_str("|---|---|---|---|---|---|---|---|\n");
        let mut total = 0.0;
        for (model, c) in &self.models {
            let counter = TokenCounter::for_model(model);
            let (how, cost) = if is_served(model) {
                let cost = price.map(|p| p.of(c.prompt_tokens, c.cached_tokens, self.priced_completion(c)));
                (counter.describe(), cost)
            } else {
                ("offline, no charge".to_string(), Some(0.0))
            };
            total += cost.unwrap_or(0.0);
            let cost = match (cost, price) {
                (Some(v), Some(_)) => format!("{v:.2}"),
                (Some(_), None) if !is_served(model) => "0".into(),
                _ => "— (give --price-per-mtok IN,OUT[,CACHED])".into(),
            };
            let name =
                if is_served(model) { model.clone() } else { format!("{model} (rule-based stand-in, not an LLM)") };
            let name = if model.starts_with("replay:") { format!("{model} (recorded replies)") } else { name };
            s.push_str(&format!(
                "| {name} | {} | {} | {} | {} / {} | {how} | {cost} | {} ({}) |\n",
                c.episodes,
                c.calls,
                c.prompt_tokens,
                c.completion_tokens_stand_in,
                c.completion_tokens_max,
                c.cached_tokens,
                percent(c.cached_tokens, c.prompt_tokens)
            ));
        }
        if let Some(p) = price {
            s.push_str(&format!(
                "total price: {total:.2} USD at {} (completion at the max_tokens bound{})\n",
                p.describe(),
                if self.reasoning_tokens_per_call > 0 { ", plus the reasoning tokens" } else { "" }
            ));
        }
        // The assumed reasoning tokens, apart from the completion bound they are added to.
        if self.reasoning_tokens_per_call > 0 {
            for (model, c) in self.models.iter().filter(|(m, _)| is_served(m)) {
                let reasoning = c.calls.saturating_mul(self.reasoning_tokens_per_call);
                let cost = price.map_or(String::new(), |p| format!(": {:.2} USD", p.of(0, 0, reasoning)));
                s.push_str(&format!(
                    "{model}: {reasoning} reasoning tokens ({} per call × {} calls), priced as completion tokens{cost}\n",
                    self.reasoning_tokens_per_call, c.calls
                ));
            }
        }
        for (model, c) in &self.models {
            for (agent, p) in &c.agents {
                s.push_str(&pattern_line(model, agent, p));
            }
            if let Some((calls, assumed)) = c.uncapped {
                s.push_str(&format!(
                    "completion bound with {model}: {} of llmco[preset=paper] seats send no token cap (as the \
                     released agent); each reply is assumed to be at most {assumed} tokens, the output limit of the \
                     paper's models (GPT-4-turbo, GPT-3.5-turbo); a model with a longer limit may reply more, and \
                     max_tokens=N on the seat sends a cap of N and bounds at N\n",
                    counted(calls, "call", "calls")
                ));
            }
        }
        s.push_str(&format!(
            "reasoning tokens: {} per call assumed (--reasoning-tokens-per-call; default 0, right for chat models; \
             a reasoning model bills its hidden reasoning as completion tokens), added to the priced completion tokens\n",
            self.reasoning_tokens_per_call
        ));
        s.push_str(
            "cacheable prompt tokens: those that repeat the beginning of one of the same seat's last 16 requests \
             (whole messages, then the common words), which prompt-prefix caching (OpenAI, DeepSeek, vLLM) bills at \
             the cached-input price; OpenAI caches only prompts of 1,024 tokens or more\n",
        );
        s.push_str(
            "calls and prompt tokens: one episode per cell played offline with the rule-based stand-in in each \
             model's place, times the cell's episodes (an estimate: a real model plans at its own pace)\n",
        );
        s
    }
}

/// One line of the measured call pattern of an agent's seats with `model`: calls per
/// decision, by kind, and what that assumes.
fn pattern_line(model: &str, agent: &str, p: &CallPattern) -> String {
    let calls: u64 = p.calls_by_kind.values().sum();
    let per =
        |n: u64| if p.decisions == 0 { "—".to_string() } else { format!("{:.2}", n as f64 / p.decisions as f64) };
    let kinds: Vec<String> = p.calls_by_kind.iter().map(|(k, n)| format!("{k} {}", per(*n))).collect();
    let (name, assumption) = match agent {
        "llmco" => (
            "LLM-Co",
            "Theory-of-Mind and verification calls as often as the stand-in's replies led to them: a real \
             model whose proposals the verifier rejects is re-prompted more (up to the seat's cap)",
        ),
        _ => ("ProAgent", "re-plans and explanations as often as the stand-in's plans led to them"),
    };
    format!(
        "{name} seats with {model}: {} decisions, {} calls per decision ({}); assumed: {assumption}\n",
        p.decisions,
        per(calls),
        kinds.join(", ")
    )
}

/// Whether a model name is a served model (billed), not the stand-in or a replay.
pub fn is_served(model: &str) -> bool {
    matches!(classify_model(model), ModelChoice::Http(_))
}

/// The highest price `--price-per-mtok` takes, in USD per million tokens: far above any
/// provider's, low enough that no run's price overflows into nonsense.
pub const MAX_PRICE_PER_MTOK: f64 = 100_000.0;

/// `--price-per-mtok IN,OUT[,CACHED]`: two or three numbers from 0 to [`MAX_PRICE_PER_MTOK`].
pub fn parse_price(s: &str) -> Result<Price, CostError> {
    let bad = || CostError::Price(s.to_string());
    let parts: Vec<&str> = s.split(',').collect();
    let num = |x: &str| {
        x.trim().parse::<f64>().ok().filter(|v| v.is_finite() && (0.0..=MAX_PRICE_PER_MTOK).contains(v)).ok_or_else(bad)
    };
    match parts.as_slice() {
        [i, o] => Ok(Price { input: num(i)?, output: num(o)?, cached: None }),
        [i, o, c] => Ok(Price { input: num(i)?, output: num(o)?, cached: Some(num(c)?) }),
        _ => Err(bad()),
    }
}

/// The prompt-cache figures of one seat of a transcript.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SeatCache {
    /// The player (`None`: the only seat that asks a model).
    pub seat: Option<u8>,
    /// The seat's model name.
    pub model: String,
    /// Requests.
    pub calls: u64,
    /// Prompt tokens of every request, counted with the model's tokenizer (or estimated).
    pub prompt_tokens: u64,
    /// Of them, those that repeat a recent request's beginning
    /// ([`proagent_llm::tokens::RecentPrompts`]).
    pub cacheable_tokens: u64,
    /// Cached prompt tokens as the server reported them (0 when it reports none).
    pub server_cached_tokens: u64,
    /// Prompt tokens as the server reported them.
    pub server_prompt_tokens: u64,
}

/// Per seat, the share of a transcript's prompt tokens that repeat the beginning of one of
/// the seat's recent requests (what prefix caching can serve), counted as the dry run
/// counts them, and the cached tokens its server reported.
/// `model_of(seat)` names each seat's model (for its tokenizer).
pub fn transcript_cache(
    exchanges: &[proagent_llm::record::Exchange],
    model_of: impl Fn(Option<u8>) -> String,
) -> Vec<SeatCache> {
    let mut seats: Vec<(SeatCache, proagent_llm::tokens::RecentPrompts)> = Vec::new();
    for x in exchanges {
        let i = match seats.iter().position(|(c, _)| c.seat == x.seat) {
            Some(i) => i,
            None => {
                let c = SeatCache { seat: x.seat, model: model_of(x.seat), ..SeatCache::default() };
                seats.push((c, Default::default()));
                seats.len() - 1
            }
        };
        let (c, recent) = &mut seats[i];
        let counter = TokenCounter::for_model(&c.model);
        c.calls += 1;
        c.prompt_tokens = c.prompt_tokens.saturating_add(counter.prompt(&x.request.messages));
        c.cacheable_tokens = c.cacheable_tokens.saturating_add(recent.cached(&counter, &x.request.messages));
        let u = x.usage();
        c.server_cached_tokens = c.server_cached_tokens.saturating_add(u.cached_tokens);
        c.server_prompt_tokens = c.server_prompt_tokens.saturating_add(u.prompt_tokens);
    }
    let mut out: Vec<SeatCache> = seats.into_iter().map(|(c, _)| c).collect();
    out.sort_by_key(|c| c.seat);
    out
}

/// [`transcript_cache`]'s figures as a markdown table, one row per seat (what
/// `show FILE --prompt-cache` prints).
pub fn cache_table(seats: &[SeatCache]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| seat | model | calls | prompt tokens | cacheable (repeat a recent request's beginning) | cached as the server reported |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for c in seats {
        let seat = c.seat.map_or_else(|| "the model's seat".to_string(), |s| format!("player {s}"));
        let _ = writeln!(
            out,
            "| {seat} | {} | {} | {} | {} ({}) | {} ({} of {} reported prompt tokens) |",
            c.model,
            c.calls,
            c.prompt_tokens,
            c.cacheable_tokens,
            percent(c.cacheable_tokens, c.prompt_tokens),
            c.server_cached_tokens,
            percent(c.server_cached_tokens, c.server_prompt_tokens),
            c.server_prompt_tokens
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn used(model: &str, calls: u64, prompt: u64) -> SeatUse {
        let usage = LlmUsage { calls, prompt_tokens: prompt, completion_tokens: calls * 10, ..LlmUsage::default() };
        SeatUse {
            model: model.into(),
            max_tokens: 256,
            uncapped: false,
            usage,
            agent: "proagent",
            calls_by_kind: BTreeMap::new(),
        }
    }

    const PRICE: Price = Price { input: 2.5, output: 10.0, cached: None };

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
        let t = e.render(Some(PRICE));
        // 1.4 M prompt tokens at 2.5 + 179,200 completion tokens at 10 per million.
        assert!(t.contains("| 5.29 |") && t.contains("o200k_base"), "{t}");
        let t = e.render(None);
        assert!(t.contains("--price-per-mtok"), "{t}");
    }

    #[test]
    fn cached_tokens_get_the_cached_price_and_reasoning_the_output_price() {
        let mut u = used("gpt-4o", 10, 1_000_000);
        u.usage.cached_tokens = 800_000;
        u.usage.decisions = 4;
        u.agent = "llmco";
        u.calls_by_kind = [("action".to_string(), 4), ("tom".to_string(), 4), ("verify".to_string(), 2)].into();
        let mut e = CostEstimate::with_reasoning_tokens_per_call(1000);
        e.add_cell(1, &[u]);
        // 200k fresh at 2 + 800k cached at 0.5 + (10 x 256 + 10 x 1000) completion at 8.
        let p = Price { input: 2.0, output: 8.0, cached: Some(0.5) };
        let t = e.render(Some(p));
        assert!(t.contains("| 0.90 |"), "{t}");
        assert!(t.contains("| 800000 (80 %) |"), "{t}");
        assert!(
            t.contains(
                "LLM-Co seats with gpt-4o: 4 decisions, 2.50 calls per decision (action 1.00, tom 1.00, verify 0.50)"
            ),
            "{t}"
        );
        assert!(t.contains("reasoning tokens: 1000 per call"), "{t}");
        // Shown apart from the completion bound: 10 calls x 1000, at 8 per million.
        assert!(
            t.contains(
                "gpt-4o: 10000 reasoning tokens (1000 per call × 10 calls), priced as completion tokens: 0.08 USD"
            ),
            "{t}"
        );
        // Without a cached price, cached tokens cost the input price.
        let t = e.render(Some(Price { cached: None, ..p }));
        assert!(t.contains("| 2.10 |") && t.contains("IN,OUT,CACHED"), "{t}");
    }

    #[test]
    fn the_stand_in_is_free_and_labelled() {
        let mut e = CostEstimate::default();
        e.add_cell(2, &[used("scripted", 5, 100), used("llama3.1:8b", 5, 100)]);
        let t = e.render(Some(Price { input: 1.0, output: 1.0, cached: None }));
        assert!(t.contains("scripted (rule-based stand-in, not an LLM)"), "{t}");
        assert!(t.contains("estimate (4 characters a token)"), "{t}");
        assert_eq!(e.served_calls(), 10);
    }

    #[test]
    fn prices_parse() {
        assert_eq!(parse_price("2.5,10").unwrap(), Price { input: 2.5, output: 10.0, cached: None });
        assert_eq!(parse_price("2.5,10,1.25").unwrap(), Price { input: 2.5, output: 10.0, cached: Some(1.25) });
        for bad in ["2.5", "a,b", "-1,2", "1,inf", "1,2,3,4", "1,2,-1", "1e300,2", "1,100001", ""] {
            assert!(parse_price(bad).unwrap_err().to_string().contains("IN,OUT"), "{bad}");
        }
    }
}
