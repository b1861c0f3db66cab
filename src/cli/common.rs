//! Helpers shared by the subcommands: loading layouts and files.

use anyhow::{Context, Result, bail};
use proagent::env::{Layout, layout};
use std::path::Path;

/// A layout by built-in name or alias, or a path to a `.layout` / plain grid file.
pub fn load_layout(spec: &str) -> Result<Layout> {
    if let Some(l) = Layout::builtin(spec) {
        return Ok(l);
    }
    let path = Path::new(spec);
    if !path.exists() {
        let names: Vec<&str> = layout::BUILTIN.iter().map(|(n, _)| *n).collect();
        bail!("unknown layout {spec:?}: not a built-in name ({}) nor an existing file", names.join(", "));
    }
    let text = std::fs::read_to_string(path).with_context(|| format!("reading layout file {}", path.display()))?;
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("custom").to_string();
    Ok(Layout::parse(&name, &text, &path.display().to_string())?)
}

pub fn read_text(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))
}

/// Longest episode a command accepts: far beyond any published setting (400), and
/// small enough that an episode's recorded states fit in memory.
pub const MAX_HORIZON: u32 = 100_000;

/// Most episodes one command plays.
pub const MAX_EPISODES: u32 = 1_000_000;

/// The episode flags shared by every command that plays episodes: how many, from which
/// seed, how long. `DEFAULT` is the command's default episode count.
#[derive(clap::Args, Debug, Clone)]
pub struct EpisodeArgs<const DEFAULT: u32> {
    /// Episodes to play; episode i uses seed + i.
    #[arg(long, default_value_t = DEFAULT, value_parser = clap::value_parser!(u32).range(1..=MAX_EPISODES as i64))]
    pub episodes: u32,
    /// Seed of the first episode.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Steps per episode.
    #[arg(long, default_value_t = proagent::env::DEFAULT_HORIZON,
          value_parser = clap::value_parser!(u32).range(1..=MAX_HORIZON as i64))]
    pub horizon: u32,
}

impl<const DEFAULT: u32> EpisodeArgs<DEFAULT> {
    /// The seed of episode `i`.
    pub fn seed_of(&self, i: u32) -> u64 {
        self.seed.wrapping_add(i as u64)
    }
}

/// `--json`: machine-readable output on stdout instead of text.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct JsonArg {
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}
