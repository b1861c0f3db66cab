//! The cost flags of `eval` and `play`: `--dry-run` (print what the run would use and
//! stop; it opens no connection, whatever the seats), `--price-per-mtok IN,OUT[,CACHED]`,
//! `--reasoning-tokens-per-call`, and the confirmation a large run with a served model
//! (any seat that calls one: ProAgent or LLM-Coordination) asks for (`--confirm-above`,
//! `--yes`).
//!
//! The confirmation never blocks a batch job: when stdin is not a terminal, a run above the
//! threshold stops with exit 2 and a message unless `--yes` is given.

use anyhow::{Result, bail};
pub use proagent::eval::cost::Price;
use std::io::{BufRead, IsTerminal, Write};

/// The flags.
#[derive(clap::Args, Debug, Clone)]
pub struct CostArgs {
    /// Play nothing for real and open no connection: print the episodes, the expected
    /// model calls and the prompt and completion tokens per model (counted with the model's
    /// tokenizer when known), the share of prompt tokens a prefix cache can serve, each
    /// agent's calls per decision, and a price with --price-per-mtok; then stop. Each cell
    /// is played once offline with the rule-based stand-in in the place of every ProAgent's
    /// and LLM-Co seat's model (docs/eval.md#cost-before-a-run).
    #[arg(long)]
    pub dry_run: bool,
    /// USD per million prompt tokens, per million completion tokens and, optionally, per
    /// million cached prompt tokens (the provider's prompt-caching price), e.g. `2.5,10,1.25`,
    /// for the dry run's price.
    #[arg(long, value_name = "IN,OUT[,CACHED]", value_parser = parse_price, allow_hyphen_values = true)]
    pub price_per_mtok: Option<Price>,
    /// With --dry-run: reasoning tokens a reasoning model (o-series, gpt-5, R1-style) is
    /// assumed to spend per call, billed as completion tokens; 0 (the default) for chat models.
    #[arg(long, value_name = "N", default_value_t = 0, requires = "dry_run", allow_hyphen_values = true,
          value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    pub reasoning_tokens_per_call: u64,
    /// Episodes with a served model above which a run asks before it starts (on a
    /// terminal) or needs --yes (stdin not a terminal).
    #[arg(long, value_name = "EPISODES", default_value_t = 100, allow_hyphen_values = true)]
    pub confirm_above: u64,
    /// Start a run above --confirm-above without asking.
    #[arg(long)]
    pub yes: bool,
}

/// `--price-per-mtok IN,OUT[,CACHED]`, read.
pub fn parse_price(s: &str) -> Result<Price, String> {
    proagent::eval::cost::parse_price(s).map_err(|e| e.to_string())
}

impl CostArgs {
    /// Asks before a run with `served` episodes that use a served model (`models` names
    /// them), when that is above `--confirm-above`; refuses without a terminal unless
    /// `--yes`. Returns `false` when the person said no.
    pub fn confirm(&self, served: u64, models: &[String]) -> Result<bool> {
        if self.yes || served <= self.confirm_above {
            return Ok(true);
        }
        let what = format!(
            "this run plays {served} episodes with a served model ({}), more than --confirm-above {}; \
             `--dry-run --price-per-mtok IN,OUT[,CACHED]` shows its calls, tokens and price",
            models.join(", "),
            self.confirm_above
        );
        if !std::io::stdin().is_terminal() {
            bail!("{what}. stdin is not a terminal, so nothing was started: pass --yes to run it");
        }
        eprint!("{what}.\nStart it? [y/N] ");
        std::io::stderr().flush()?;
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line)?;
        Ok(matches!(line.trim(), "y" | "Y" | "yes" | "YES" | "Yes"))
    }
}
