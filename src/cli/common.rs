//! Helpers shared by the subcommands: loading layouts and files (every read is
//! bounded by a limit of `proagent::limits`), and the argument groups several
//! subcommands flatten.

use anyhow::{Context, Result, bail};
use proagent::env::layout::MAX_LAYOUT_TEXT_BYTES;
use proagent::env::{Layout, layout};
use proagent::limits::{MAX_TRAJECTORY_BYTES, read_file_text};
use std::path::Path;

/// A layout by built-in name or alias, or a path to a `.layout` / plain grid file.
pub fn load_layout(spec: &str) -> Result<Layout> {
    Ok(load_layout_with_text(spec)?.0)
}

/// Like [`load_layout`], also returning a layout file's text as it was read (`None`
/// for a built-in layout), so callers that record or hash it read the file once.
pub fn load_layout_with_text(spec: &str) -> Result<(Layout, Option<String>)> {
    if let Some(l) = Layout::builtin(spec) {
        return Ok((l, None));
    }
    let path = Path::new(spec);
    if !path.exists() {
        let names: Vec<&str> = layout::BUILTIN.iter().map(|(n, _)| *n).collect();
        bail!("unknown layout {spec:?}: not a built-in name ({}) nor an existing file", names.join(", "));
    }
    let text = read_file_text(path, MAX_LAYOUT_TEXT_BYTES as u64, "layout files")
        .with_context(|| format!("reading layout file {}", path.display()))?;
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("custom").to_string();
    let l = Layout::parse(&name, &text, &path.display().to_string())?;
    Ok((l, Some(text)))
}

/// A trajectory file's text (bounded by [`MAX_TRAJECTORY_BYTES`]).
pub fn read_text(path: &Path) -> Result<String> {
    read_file_text(path, MAX_TRAJECTORY_BYTES, "trajectory files")
        .with_context(|| format!("reading {}", path.display()))
}

pub use proagent::limits::{MAX_EPISODES, MAX_HORIZON};

/// The episode flags shared by every command that plays episodes: how many, from which
/// seed, how long. `DEFAULT` is the command's default episode count.
#[derive(clap::Args, Debug, Clone)]
pub struct EpisodeArgs<const DEFAULT: u32> {
    /// Episodes to play; episode i uses seed + i.
    // Not `default_value_t = DEFAULT`: clap caches that default's text in a static inside a
    // generic function, which every `DEFAULT` shares, so all commands showed and used the
    // first one built.
    #[arg(long, default_value = default_episodes(DEFAULT), value_parser = clap::value_parser!(u32).range(1..=MAX_EPISODES as i64))]
    pub episodes: u32,
    /// Seed of the first episode.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Steps per episode.
    #[arg(long, default_value_t = proagent::env::DEFAULT_HORIZON,
          value_parser = clap::value_parser!(u32).range(1..=MAX_HORIZON as i64))]
    pub horizon: u32,
}

/// The text of an `EpisodeArgs` default episode count.
fn default_episodes(n: u32) -> &'static str {
    match n {
        1 => "1",
        10 => "10",
        20 => "20",
        100 => "100",
        // A new default: its text lives as long as the command line does.
        other => Box::leak(other.to_string().into_boxed_str()),
    }
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

/// The switches of a game's own settings, as flags every command that loads a game takes
/// (today OvercookedV2's: `--layout v2:NAME`; JaxMARL's defaults when absent). They are
/// handed to the game as settings by name ([`GameSwitches::settings`]); the game the
/// layout names parses them (the catalog), and a switch its game does not take is refused
/// ([`GameSwitches::check`]).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct GameSwitches {
    /// OvercookedV2: how many cells each agent sees in every direction (default: everything).
    #[arg(long, value_parser = clap::value_parser!(u8).range(0..=30))]
    pub view_radius: Option<u8>,
    /// OvercookedV2: pots start only when an empty-handed player interacts with them.
    #[arg(long)]
    pub start_cooking_on_interact: bool,
    /// OvercookedV2: a wrong dish costs 20 points.
    #[arg(long)]
    pub negative_rewards: bool,
    /// OvercookedV2: draw a new recipe after every correct delivery.
    #[arg(long)]
    pub resample_recipe: bool,
    /// OvercookedV2: start every agent on a random cell of its room, facing a random way.
    #[arg(long)]
    pub random_starts: bool,
    /// OvercookedV2: add the delivery-indicator layer to the observation tensor.
    #[arg(long)]
    pub indicate_delivery: bool,
}

impl GameSwitches {
    /// The switches given: each flag, the setting it sets and its value.
    fn given(&self) -> Vec<(&'static str, &'static str, serde_json::Value)> {
        let on = |flag, key, given: bool| given.then_some((flag, key, serde_json::Value::Bool(true)));
        [
            self.view_radius.map(|r| ("--view-radius", "view_radius", serde_json::json!(r))),
            on("--start-cooking-on-interact", "start_cooking_interaction", self.start_cooking_on_interact),
            on("--negative-rewards", "negative_rewards", self.negative_rewards),
            on("--resample-recipe", "sample_recipe_on_delivery", self.resample_recipe),
            on("--random-starts", "random_agent_positions", self.random_starts),
            on("--indicate-delivery", "indicate_successful_delivery", self.indicate_delivery),
        ]
        .into_iter()
        .flatten()
        .collect()
    }

    /// The given switches as settings by name, for [`proagent_eval::games::GameOptions`].
    pub fn settings(&self) -> proagent_eval::games::GameSettings {
        self.given().into_iter().map(|(_, key, v)| (key.to_string(), v)).collect()
    }

    /// Fails when a switch is given that the game `layout` names does not take; `what` is
    /// how the message names the layout.
    pub fn check(&self, layout: &str, what: &str) -> Result<()> {
        self.refuse(proagent_eval::games::catalog::entry_for(layout).map_or(&[][..], |e| e.settings), what)
    }

    /// Fails when a switch is given whose setting is not among `takes`; `what` is how the
    /// message names the layouts.
    pub fn refuse(&self, takes: &[&str], what: &str) -> Result<()> {
        for (flag, key, _) in self.given() {
            if !takes.contains(&key) {
                let owner = proagent_eval::games::catalog::entry_of_setting(key);
                let (title, spec) = owner.map_or(("other", "..."), |e| (e.title, e.spec));
                bail!("{flag} applies to {title} layouts (--layout {spec}), not to {what}");
            }
        }
        Ok(())
    }

    /// The flags given, as a command line writes them (` --view-radius 2 --negative-rewards`).
    pub fn flags(&self) -> String {
        self.given()
            .into_iter()
            .map(|(flag, _, v)| match v {
                serde_json::Value::Bool(_) => format!(" {flag}"),
                v => format!(" {flag} {v}"),
            })
            .collect()
    }
}

/// How model-file seats (`bc:PATH`, `rl:PATH`) may be used.
#[derive(clap::Args, Debug, Clone, Copy, Default)]
pub struct ModelFileArgs {
    /// Let a BC or RL model file play a layout (or OvercookedV2 switches) other than the
    /// one it was trained on; without it such a seat is refused with an error naming both.
    #[arg(long)]
    pub allow_model_mismatch: bool,
}

impl ModelFileArgs {
    /// The seat factory's partner options.
    pub fn options(&self) -> proagent_eval::games::PartnerOptions {
        proagent_eval::games::PartnerOptions { allow_model_mismatch: self.allow_model_mismatch }
    }
}

/// An OvercookedV2 layout from the part after `v2:`: a built-in name or a `.layout` file;
/// returns the layout and, for a file, its text (recorded in transcripts).
pub fn load_v2_layout(spec: &str) -> Result<(proagent::env_v2::Layout, Option<String>)> {
    use proagent::env_v2::Layout as V2Layout;
    if let Some(l) = V2Layout::builtin(spec) {
        return Ok((l, None));
    }
    let path = Path::new(spec);
    if !path.exists() {
        let names: Vec<&str> = V2Layout::builtin_names().collect();
        bail!("unknown OvercookedV2 layout {spec:?}: not a built-in name ({}) nor an existing file", names.join(", "));
    }
    let text = read_file_text(path, MAX_LAYOUT_TEXT_BYTES as u64, "layout files")
        .with_context(|| format!("reading layout file {}", path.display()))?;
    let layout = V2Layout::parse(&text, &path.display().to_string())?;
    Ok((layout, Some(text)))
}

/// A clap parser for a `usize` flag within `range` (a value outside it is a usage
/// error naming the flag, exit 2).
pub fn usize_in(range: std::ops::RangeInclusive<u64>) -> clap::builder::RangedU64ValueParser<usize> {
    clap::builder::RangedU64ValueParser::new().range(range)
}

fn number(s: &str) -> Result<f64, String> {
    let v: f64 = s.trim().parse().map_err(|_| format!("{s:?} is not a number"))?;
    if !v.is_finite() { Err(format!("{s} is not a finite number")) } else { Ok(v) }
}

/// `--*-timeout` seconds: a number in (0, 86400].
pub fn seconds(s: &str) -> Result<f64, String> {
    let v = number(s)?;
    if v > 0.0 && v <= 86_400.0 { Ok(v) } else { Err(format!("{v} is not a number of seconds in (0, 86400]")) }
}

/// `--temperature`: a number in [0, 2].
pub fn temperature(s: &str) -> Result<f32, String> {
    let v = number(s)?;
    if (0.0..=2.0).contains(&v) { Ok(v as f32) } else { Err(format!("{v} is not in [0, 2]")) }
}

/// `--top-p`: a number in (0, 1].
pub fn top_p(s: &str) -> Result<f32, String> {
    let v = number(s)?;
    if v > 0.0 && v <= 1.0 { Ok(v as f32) } else { Err(format!("{v} is not in (0, 1]")) }
}

/// A share such as `--fault-rate`: a number in [0, 1].
pub fn fraction(s: &str) -> Result<f64, String> {
    let v = number(s)?;
    if (0.0..=1.0).contains(&v) { Ok(v) } else { Err(format!("{v} is not in [0, 1]")) }
}

/// Refuses to replace the existing file `path` (given by `flag`) unless `--force` was
/// given: an output a run made is never lost to the next run by accident.
pub fn refuse_overwrite(path: &std::path::Path, flag: &str, force: bool) -> anyhow::Result<()> {
    if path.exists() && !force {
        anyhow::bail!("{flag} {} already exists; pass --force to overwrite it", path.display());
    }
    Ok(())
}

/// [`refuse_overwrite`] for a model file and its `.json` metadata, called before any
/// training starts, so a refused run has not spent minutes first.
pub fn refuse_to_replace_model(out: &std::path::Path, force: bool) -> anyhow::Result<()> {
    refuse_overwrite(out, "--out", force)?;
    refuse_overwrite(&out.with_extension("json"), "--out's metadata", force)
}

/// The policy file flag of `bc` and `rl eval`: `--policy`, or the deprecated `--model` (it
/// means a language model everywhere else), with a warning; `default` when neither is given.
pub fn policy_flag(policy: &Option<String>, model: &Option<String>, default: Option<&str>) -> Result<String> {
    match (policy, model) {
        (Some(p), None) => Ok(p.clone()),
        (None, Some(m)) => {
            eprintln!("warning: --model is deprecated here (it names a language model elsewhere); use --policy {m}");
            Ok(m.clone())
        }
        (Some(_), Some(_)) => bail!("give --policy only (--model is its deprecated old name)"),
        (None, None) => default.map(str::to_string).context("--policy is required"),
    }
}
