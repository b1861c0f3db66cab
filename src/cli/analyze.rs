//! `proagent analyze`: interdependence analysis of recorded trajectories.

use anyhow::{Context, Result};
use proagent::games::Playable;
use proagent::games::interdependence::{EpisodeSource, Interdependence};
use proagent::runner::files::{read_episode_text, read_text_maybe_gz};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct AnalyzeArgs {
    /// Episode files: reference traces and our episodes (JSON Lines, one trajectory per
    /// line), human-game files (JSON Lines, one timestep per line), `play`/`eval`
    /// transcripts (the states are rebuilt from the recorded joint actions) or
    /// OvercookedV2 episodes (`play --layout v2:... --trajectory` and transcripts: re-played
    /// from their seed and checked); gzipped or not.
    /// The kind is detected from the content.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// One JSON object per trajectory (JSON Lines) instead of text.
    #[arg(long)]
    json: bool,
    /// Per-layout distributions over the trajectories (constructive interdependencies per
    /// soup, accepted share; for OvercookedV2: constructive hand-overs per correct dish,
    /// shared-pot share, constructive button signals) instead of one line per trajectory.
    #[arg(long)]
    summary: bool,
    /// With --json: list every interdependence (giver, receiver, times, object, kind).
    #[arg(long, requires = "json")]
    detail: bool,
}

pub fn run(a: AnalyzeArgs) -> Result<ExitCode> {
    let mut kept = Interdependence::default();
    for path in &a.files {
        let source = path.display().to_string();
        let text = read_text_maybe_gz(path)?;
        let file = read_episode_text(&source, &text)?;
        tracing::info!(file = %source, kind = file.kind.name(), episodes = file.episodes.len(), "read");
        let from = EpisodeSource { file: &source, file_kind: file.kind.name(), detail: a.detail };
        for ep in &file.episodes {
            let line = proagent::on_episode!(ep, |e| e.game.interdependence(e, from, &mut kept));
            let Some(line) = line else {
                anyhow::bail!(
                    "{source}: {}: the interdependence analysis is for Overcooked episodes (this is {})",
                    ep.name(),
                    ep.game().kind()
                );
            };
            let line = line.with_context(|| source.clone())?;
            if !a.summary {
                if a.json {
                    println!("{}", line.json);
                } else {
                    println!("{}", line.text);
                }
            }
        }
    }
    if a.summary {
        for line in kept.summary(a.json) {
            println!("{line}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
