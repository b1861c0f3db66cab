//! `proagent render`: pictures of an episode of any game with the viewer's drawing — one
//! frame as SVG or PNG, or the whole episode (or a range) as an animated GIF.

use anyhow::{Context, Result, bail};
use proagent::runner::files::read_episode_file;
use proagent_view::board::{CELL_RANGE, DEFAULT_CELL, Format};
use proagent_web::view::EpisodeView;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct RenderArgs {
    /// A transcript, trajectory file or human-game file (classic or OvercookedV2).
    file: PathBuf,
    /// Output file; its extension picks the format: .svg or .png (one frame), .gif (animation).
    #[arg(long)]
    out: PathBuf,
    /// The frame of an .svg/.png (0 = start state; default: the last frame), or the first
    /// frame of a .gif (default 0).
    #[arg(long)]
    step: Option<usize>,
    /// Last frame of a .gif (default: the last frame of the episode).
    #[arg(long)]
    to: Option<usize>,
    /// Frames per second of a .gif.
    #[arg(long, default_value_t = 8.0)]
    fps: f64,
    /// Which episode of a file that holds several (1 = the first, as in `show --episode`).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    episode: Option<u64>,
    /// Deprecated: the episode counted from 0; use --episode (counted from 1).
    #[arg(long, hide = true, conflicts_with = "episode")]
    index: Option<usize>,
    /// Pixels per grid cell.
    #[arg(long, default_value_t = DEFAULT_CELL)]
    cell: u32,
    /// Leave out the status line (timestep and score; for OvercookedV2 also the recipe)
    /// above the grid.
    #[arg(long)]
    no_status: bool,
    /// Draw the board as player P sees it: in OvercookedV2 episodes played with a view
    /// radius what P does not see is shaded; in the card game P's own cards are drawn face down
    /// (with what P was hinted); the other games show P everything, so they are drawn whole.
    #[arg(long, value_name = "P")]
    view: Option<usize>,
}

pub fn run(a: RenderArgs) -> Result<ExitCode> {
    let Some(format) = Format::of(&a.out) else {
        bail!("--out {}: the extension must be .svg, .png or .gif", a.out.display());
    };
    if !(CELL_RANGE.0..=CELL_RANGE.1).contains(&a.cell) {
        bail!("--cell must be {}..={}, got {}", CELL_RANGE.0, CELL_RANGE.1, a.cell);
    }
    if !(a.fps.is_finite() && (0.1..=100.0).contains(&a.fps)) {
        bail!("--fps must be between 0.1 and 100, got {}", a.fps);
    }
    let file = read_episode_file(&a.file)?;
    let index = match (a.episode, a.index) {
        (Some(n), _) => (n - 1) as usize,
        (None, Some(i)) => {
            eprintln!("warning: --index is deprecated (it counts from 0); use --episode {} (counts from 1)", i + 1);
            i
        }
        (None, None) => 0,
    };
    if index >= file.episodes.len() {
        bail!(
            "--episode {}: {} holds {}, numbered from 1",
            index + 1,
            a.file.display(),
            proagent::games::counted(file.episodes.len() as u64, "episode", "episodes")
        );
    }
    let view = EpisodeView::new(String::new(), file, index)?;
    let last = view.frames() - 1;
    let status = !a.no_status;
    let check = |flag: &str, f: usize| -> Result<usize> {
        if f > last {
            bail!("{flag} {f}: the episode has frames 0..={last}");
        }
        Ok(f)
    };
    if let Some(p) = a.view
        && p >= view.players()
    {
        bail!("--view {p}: the episode has players 0..={}", view.players() - 1);
    }
    match format {
        Format::Svg | Format::Png => {
            if a.to.is_some() {
                bail!("--to is for .gif output");
            }
            let f = check("--step", a.step.unwrap_or(last))?;
            if let Format::Svg = format {
                let svg = view.svg(f, status, a.view, a.cell)?;
                std::fs::write(&a.out, svg).with_context(|| format!("writing {}", a.out.display()))?;
            } else {
                view.write_png(&a.out, f, status, a.view, a.cell)?;
            }
            println!("{}: frame {f} of {}", a.out.display(), a.file.display());
        }
        Format::Gif => {
            let from = check("--step", a.step.unwrap_or(0))?;
            let to = check("--to", a.to.unwrap_or(last))?;
            if to < from {
                bail!("--to {to} is before --step {from}");
            }
            let delay = (1000.0 / a.fps).round() as u32;
            let n = view.write_gif(&a.out, from, to, status, a.view, a.cell, delay)?;
            println!("{}: {n} frames ({from}..={to}) of {} at {} fps", a.out.display(), a.file.display(), a.fps);
        }
    }
    Ok(ExitCode::SUCCESS)
}
