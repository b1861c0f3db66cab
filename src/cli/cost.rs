//! The cost flags of `eval` and `play`: `--dry-run` (print what the run would use and
//! stop), `--price-per-mtok IN,OUT`, and the confirmation a large run with a served model
//! asks for (`--confirm-above`, `--yes`).
//!
//! The confirmation never blocks a batch job: when stdin is not a terminal, a run above the
//! threshold stops with exit 2 and a message unless `--yes` is given.

use anyhow::{Result, bail};
use std::io::{BufRead, IsTerminal, Write};

/// The flags.
#[derive(clap::Args, Debug, Clone)]
pub struct CostArgs {
    /// Play nothing for real: print the episodes, the expected model calls and the prompt
    /// and completion tokens per model (counted with the model's tokenizer when known),
    /// and a price with --price-per-mtok; then stop. Each cell is played once offline with
    /// the rule-based stand-in in the model's place (docs/eval.md#cost-before-a-run).
    #[arg(long)]
    pub dry_run: bool,
    /// USD per million prompt tokens and per million completion tokens, e.g. `2.5,10`,
    /// for the dry run's price.
    #[arg(long, value_name = "IN,OUT", value_parser = parse_price)]
    pub price_per_mtok: Option<(f64, f64)>,
    /// Episodes with a served model above which a run asks before it starts (on a
    /// terminal) or needs --yes (stdin not a terminal).
    #[arg(long, value_name = "EPISODES", default_value_t = 100)]
    pub confirm_above: u64,
    /// Start a run above --confirm-above without asking.
    #[arg(long)]
    pub yes: bool,
}

pub fn parse_price(s: &str) -> Result<(f64, f64), String> {
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
             `--dry-run --price-per-mtok IN,OUT` shows its calls, tokens and price",
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
