//! `proagent show`: a layout's start board, or a saved episode of any game — a `play
//! --trajectory` file, a `play` transcript, a game played in `proagent serve` — rendered
//! board by board (or at one step), with the legend and each player's skill beside the
//! board. Episodes are read by the one episode reader (`runner::files`): transcripts and
//! OvercookedV2 trajectories are re-played and checked, step by step.

use super::board::{self, SeatLine};
use anyhow::{Result, bail};
use proagent::games::Playable;
use proagent::runner::files::{EpisodeKind, SavedEpisode, read_episode_file};
use proagent::seat::SeatStatus;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// A saved episode of any kind, recognised by its content: a `play` or `eval`
    /// transcript, a `play --trajectory` file (pick an episode with --episode), a game
    /// played in `proagent serve`, or a human-game file. As `replay` and `render` take it.
    #[arg(value_name = "FILE", conflicts_with_all = ["trajectory", "transcript", "layout"])]
    file: Option<PathBuf>,
    /// The game to show the start of, as `play --layout` names it.
    #[arg(long, default_value = "cramped_room", long_help = proagent::games::catalog::layout_help())]
    layout: String,
    /// The same as FILE, for a file written by `play --trajectory` or a human-game file
    /// (kept for older scripts).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["transcript", "layout"])]
    trajectory: Option<PathBuf>,
    /// The same as FILE, for a `play` (or `eval`) transcript (kept for older scripts).
    #[arg(long, value_name = "FILE", conflicts_with = "layout")]
    transcript: Option<PathBuf>,
    /// With --layout: the start of the episode with this seed, as `play --seed` plays it
    /// (the recipe drawn, the cards dealt, ...).
    #[arg(long, default_value_t = 0, conflicts_with_all = ["file", "trajectory", "transcript"])]
    seed: u64,
    /// Which episode of a trajectory file (1 = the first line).
    #[arg(long, default_value_t = 1)]
    episode: usize,
    /// Only the board at this timestep (0 = the start; N = after N steps); default: every step.
    #[arg(long, value_name = "N")]
    step: Option<u32>,
    /// Wait this many milliseconds after each board (to watch a saved episode play).
    #[arg(long, value_name = "MS")]
    render_delay_ms: Option<u64>,
    /// OvercookedV2 layouts: print the layout's facts (size, players, ingredients, recipes)
    /// as one JSON object instead of the board.
    #[arg(long)]
    json: bool,
    /// Print the names of the built-in OvercookedV2 layouts, one per line.
    #[arg(long)]
    v2_list: bool,
    /// For a transcript: instead of the boards, print per seat the share of prompt tokens
    /// that repeat the beginning of one of the seat's last 16 requests (what prompt-prefix
    /// caching bills at its cached price, counted as --dry-run counts it) and the cached
    /// tokens the server reported.
    #[arg(long)]
    prompt_cache: bool,
}

/// `show FILE --prompt-cache`: the prompt-cache table of a transcript.
fn print_prompt_cache(path: &std::path::Path) -> Result<ExitCode> {
    use proagent::eval::cost::{cache_table, transcript_cache};
    let t = proagent::transcript::Transcript::read(path)?;
    let config = &t.header.config;
    let model_of = |seat: Option<u8>| {
        let by_seat = seat.and_then(|i| config["seats"].get(i as usize)).and_then(|s| s["model"]["model"].as_str());
        by_seat.or_else(|| config["model"]["model"].as_str()).unwrap_or("").to_string()
    };
    print!("{}", cache_table(&transcript_cache(&t.exchanges, model_of)));
    Ok(ExitCode::SUCCESS)
}

/// Prints a saved episode board by board (or the board at `only`): the legend, then per
/// step its actions, reward and skill events above the board, with the score and each
/// player's name and current skill beside it.
/// `notes` holds, per timestep, lines printed under that step's header: a transcript's
/// model reasoning ([`reasoning_notes`]).
fn print_episode<G: Playable>(
    e: &SavedEpisode<G>,
    only: Option<u32>,
    delay: Option<Duration>,
    notes: &BTreeMap<u32, Vec<String>>,
) -> Result<ExitCode> {
    if let Some(n) = only
        && n as usize > e.steps.len()
    {
        bail!("--step {n}: the episode has {} steps (0 is the start)", e.steps.len());
    }
    let game = &*e.game;
    let n = game.num_players();
    board::print_legend(game.legend());
    let names: Vec<String> =
        (0..n).map(|i| e.agents.get(i).cloned().unwrap_or_else(|| format!("player {i}"))).collect();
    let mut skills: Vec<Option<String>> = vec![None; n];
    let seats = |skills: &[Option<String>]| -> Vec<SeatLine<'_>> {
        names
            .iter()
            .zip(skills)
            .map(|(name, skill)| SeatLine { name, status: SeatStatus { skill: skill.clone(), ..Default::default() } })
            .collect()
    };
    if only.is_none_or(|n| n == 0) {
        let seed = e.seed.map(|s| format!(" seed {s}")).unwrap_or_default();
        let header = format!("{}{seed}, t=0 (start)\n", game.report_name());
        board::print_frame(&game.render_text(&e.start), &header, &board::panel(0, None, &seats(&skills)), delay);
    }
    let mut score = 0i64;
    for (k, s) in e.steps.iter().enumerate() {
        score += s.reward;
        let tokens: Vec<String> =
            s.actions.iter().map(|a| a.map_or_else(|| "-".to_string(), |a| game.action_token(a))).collect();
        // The actions chosen at t=k lead to the board at t=k+1, which is drawn below them.
        let mut header = format!("t={k} actions=[{}] reward={} -> board at t={}\n", tokens.join(", "), s.reward, k + 1);
        for note in notes.get(&(k as u32)).into_iter().flatten() {
            header.push_str(note);
            header.push('\n');
        }
        for ev in &s.skill_events {
            let outcome = match &ev.outcome {
                proagent::seat::SkillOutcome::Started => "started",
                proagent::seat::SkillOutcome::Succeeded => "succeeded",
                proagent::seat::SkillOutcome::Failed { .. } => "failed",
            };
            header.push_str(&format!("  player {} {}: {outcome}\n", ev.player, ev.skill));
            let slot = &mut skills[ev.player.min(n.saturating_sub(1))];
            match outcome {
                "started" => *slot = Some(ev.skill.clone()),
                _ if slot.as_deref() == Some(ev.skill.as_str()) => *slot = None,
                _ => {}
            }
        }
        if only.is_none_or(|n| n as usize == k + 1) {
            board::print_frame(
                &game.render_text(&s.state),
                &header,
                &board::panel(score, None, &seats(&skills)),
                delay,
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run(a: ShowArgs) -> Result<ExitCode> {
    if a.v2_list {
        for n in proagent::env_v2::Layout::builtin_names() {
            println!("{n}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    if a.episode != 1 && a.file.is_none() && a.trajectory.is_none() {
        bail!("--episode picks an episode of a saved file: give the FILE");
    }
    if a.json && (a.file.is_some() || a.trajectory.is_some() || a.transcript.is_some()) {
        bail!("--json applies to OvercookedV2 layouts (--layout v2:NAME), not to saved episodes");
    }
    let (path, index) = match (a.file.as_ref().or(a.trajectory.as_ref()), &a.transcript) {
        (Some(p), _) => (p, a.episode),
        (None, Some(p)) => (p, 1),
        (None, None) => {
            if a.prompt_cache {
                bail!("--prompt-cache reads a transcript: proagent show FILE --prompt-cache");
            }
            if a.step.is_some() || a.render_delay_ms.is_some() {
                bail!("--step and --render-delay-ms need a saved episode: proagent show FILE");
            }
            // The start as the game prints it (the catalog names the game).
            let (game, _) = proagent::games::AnyGame::load(&a.layout, &Default::default())?;
            let facts = proagent::on_game!(&game, |g| g.start_json());
            match (a.json, facts) {
                (true, Some(v)) => println!("{v}"),
                (true, None) => bail!("--json applies to OvercookedV2 layouts (--layout v2:NAME)"),
                (false, _) => print!("{}", proagent::on_game!(&game, |g| g.start_text(a.seed))),
            }
            return Ok(ExitCode::SUCCESS);
        }
    };
    if a.prompt_cache {
        return print_prompt_cache(path);
    }
    let shown = path.display();
    let file = read_episode_file(path)?;
    match (file.kind, a.transcript.is_some()) {
        (EpisodeKind::Transcript, false) if a.trajectory.is_some() => {
            bail!("{shown} is a transcript: show it with `proagent show {shown}`")
        }
        (kind, true) if kind != EpisodeKind::Transcript => {
            bail!("{shown} is a {} file, not a transcript: show it with `proagent show {shown}`", kind.name())
        }
        _ => {}
    }
    if index == 0 || index > file.episodes.len() {
        bail!(
            "--episode {index}: {shown} holds {}, numbered from 1",
            proagent::games::counted(file.episodes.len() as u64, "episode", "episodes")
        );
    }
    let delay = board::delay(a.render_delay_ms)?;
    let notes = match file.kind {
        EpisodeKind::Transcript => {
            proagent::transcript::reader::reasoning_notes(&proagent::transcript::Transcript::read(path)?.exchanges)
        }
        _ => BTreeMap::new(),
    };
    proagent::on_episode!(&file.episodes[index - 1], |e| print_episode(e, a.step, delay, &notes))
}
