//! `proagent show`: a layout's start board, or a saved episode — a `play
//! --trajectory` file or a `play` transcript — rendered board by board (or at one
//! step), with the legend and each player's skill beside the board.

use super::board::{self, SeatLine};
use super::common::load_layout;
use anyhow::{Context, Result, bail};
use proagent::env::render::render;
use proagent::env::trace::{parse_trace_file, player_from_json, state_from_json};
use proagent::env::{Action, Layout, State};
use proagent::policy::SeatStatus;
use proagent::runner::record::RunConfig;
use proagent::transcript::Transcript;
use serde_json::Value;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// Layout name (cramped_room, asymmetric_advantages, coordination_ring,
    /// forced_coordination, counter_circuit, or an old alias) or a path to a layout file.
    #[arg(long, default_value = "cramped_room")]
    layout: String,
    /// Render a saved episode: a file written by `play --trajectory` (JSON Lines, one
    /// episode per line; pick one with --episode).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["transcript", "layout"])]
    trajectory: Option<PathBuf>,
    /// Render a saved episode from a `play` (or `eval`) transcript, replaying its recorded actions.
    #[arg(long, value_name = "FILE", conflicts_with = "layout")]
    transcript: Option<PathBuf>,
    /// With --trajectory: which episode of the file (1 = the first line).
    #[arg(long, default_value_t = 1, requires = "trajectory")]
    episode: usize,
    /// Only the board at this timestep (0 = the start; N = after N steps); default: every step.
    #[arg(long, value_name = "N")]
    step: Option<u32>,
    /// Wait this many milliseconds after each board (to watch a saved episode play).
    #[arg(long, value_name = "MS")]
    render_delay_ms: Option<u64>,
}

/// A saved episode: layout, the players' names, and per step the actions, reward,
/// state after it and skill events.
struct Saved {
    layout: Layout,
    seed: Option<u64>,
    names: [String; 2],
    start: State,
    steps: Vec<SavedStep>,
}

struct SavedStep {
    joint: [String; 2],
    reward: u32,
    state: State,
    /// `(player, skill, outcome)` of this step's skill events.
    events: Vec<(usize, String, String)>,
}

fn events_of(v: Option<&Value>) -> Vec<(usize, String, String)> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|e| {
                    Some((
                        e.get("player")?.as_u64()? as usize,
                        e.get("skill")?.as_str()?.to_string(),
                        e.get("outcome")?.as_str()?.to_string(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default()
}

fn from_trajectory(path: &std::path::Path, episode: usize) -> Result<Saved> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).with_context(|| format!("reading {shown}"))?;
    let all = parse_trace_file(&text).with_context(|| shown.to_string())?;
    if episode == 0 || episode > all.len() {
        bail!("--episode {episode}: {shown} holds {} episode(s), numbered from 1", all.len());
    }
    let (line, traj) = &all[episode - 1];
    let at = |what: String| format!("{shown}:{line}: {what}");
    let raw: Value = serde_json::from_str(text.lines().nth(line - 1).unwrap_or("{}")).unwrap_or(Value::Null);
    let rows: Vec<&str> = traj.grid.iter().map(String::as_str).collect();
    let layout = Layout::from_grid(&traj.layout, &rows).map_err(|e| anyhow::anyhow!(at(format!("bad grid: {e}"))))?;
    let mut start = layout.start_state();
    for (i, p) in traj.start.players.iter().enumerate() {
        start.players[i] = player_from_json(&layout, p).map_err(|e| anyhow::anyhow!(at(format!("start: {e}"))))?;
    }
    let names: [String; 2] = std::array::from_fn(|i| {
        raw["agents"].get(i).and_then(Value::as_str).unwrap_or(if i == 0 { "player 0" } else { "player 1" }).to_string()
    });
    let all_events = events_of(raw.get("skill_events"));
    let raw_events: Vec<&Value> = raw["skill_events"].as_array().map(|a| a.iter().collect()).unwrap_or_default();
    let mut steps = Vec::with_capacity(traj.steps.len());
    for (k, s) in traj.steps.iter().enumerate() {
        let state = state_from_json(&layout, &s.state).map_err(|e| anyhow::anyhow!(at(format!("step {k}: {e}"))))?;
        let events = raw_events
            .iter()
            .zip(&all_events)
            .filter(|(r, _)| r.get("t").and_then(Value::as_u64) == Some(k as u64))
            .map(|(_, e)| e.clone())
            .collect();
        let joint = [s.actions.first().cloned().unwrap_or_default(), s.actions.get(1).cloned().unwrap_or_default()];
        steps.push(SavedStep { joint, reward: s.reward, state, events });
    }
    Ok(Saved { layout, seed: raw["seed"].as_u64(), names, start, steps })
}

fn from_transcript(path: &std::path::Path) -> Result<Saved> {
    let file = path.display().to_string();
    let rec = Transcript::read(path)?;
    let cfg = RunConfig::from_header(&rec.header, &file, rec.header_line)?;
    let layout = match &cfg.layout_file {
        Some(text) => Layout::parse(&cfg.layout, text, &format!("{file} (recorded layout)"))?,
        None => load_layout(&cfg.layout_spec)?,
    };
    let seat = cfg.seat.min(1);
    let seed = Some(cfg.seed);
    let names: [String; 2] = if seat == 0 { [cfg.agent, cfg.partner] } else { [cfg.partner, cfg.agent] };
    let start = layout.start_state();
    let mut state = start.clone();
    let mut steps = Vec::with_capacity(rec.steps.len());
    for s in &rec.steps {
        let letters: Vec<&str> =
            s.data["joint"].as_array().map(|a| a.iter().filter_map(Value::as_str).collect()).unwrap_or_default();
        let mut joint = [Action::Stay; 2];
        if letters.len() != 2 {
            bail!("{file}: step t={} has no two-action `joint`", s.t);
        }
        for (i, l) in letters.iter().enumerate() {
            joint[i] = Action::parse(l).with_context(|| format!("{file}: step t={}: unknown action {l:?}", s.t))?;
        }
        let out = layout.step(&mut state, joint);
        steps.push(SavedStep {
            joint: [letters[0].to_string(), letters[1].to_string()],
            reward: out.reward,
            state: state.clone(),
            events: events_of(s.data.get("skill_events")),
        });
    }
    Ok(Saved { layout, seed, names, start, steps })
}

pub fn run(a: ShowArgs) -> Result<ExitCode> {
    let saved = match (&a.trajectory, &a.transcript) {
        (Some(p), _) => from_trajectory(p, a.episode)?,
        (None, Some(p)) => from_transcript(p)?,
        (None, None) => {
            if a.step.is_some() || a.render_delay_ms.is_some() {
                bail!("--step and --render-delay-ms need a saved episode (--trajectory or --transcript)");
            }
            let layout = load_layout(&a.layout)?;
            let state = layout.start_state();
            println!("{} ({}x{})", layout.name, layout.width, layout.height);
            print!("{}", render(&layout, &state));
            return Ok(ExitCode::SUCCESS);
        }
    };
    if let Some(n) = a.step
        && n as usize > saved.steps.len()
    {
        bail!("--step {n}: the episode has {} steps (0 is the start)", saved.steps.len());
    }
    let delay = board::delay(a.render_delay_ms)?;
    board::print_legend();
    let mut skills: [Option<String>; 2] = [None, None];
    let mut score = 0;
    let seats = |skills: &[Option<String>; 2]| -> [SeatLine<'_>; 2] {
        std::array::from_fn(|i| SeatLine {
            name: &saved.names[i],
            status: SeatStatus { skill: skills[i].clone(), ..Default::default() },
        })
    };
    if a.step.is_none_or(|n| n == 0) {
        let seed = saved.seed.map(|s| format!(" seed {s}")).unwrap_or_default();
        let header = format!("{}{seed}, t=0 (start)\n", saved.layout.name);
        board::print_frame(&saved.layout, &saved.start, &header, &board::panel(0, None, &seats(&skills)), delay);
    }
    for (k, s) in saved.steps.iter().enumerate() {
        score += s.reward;
        let mut header = format!("t={k} actions=[{}, {}] reward={}\n", s.joint[0], s.joint[1], s.reward);
        for (player, skill, outcome) in &s.events {
            header.push_str(&format!("  player {player} {skill}: {outcome}\n"));
            let slot = &mut skills[(*player).min(1)];
            match outcome.as_str() {
                "started" => *slot = Some(skill.clone()),
                _ if slot.as_deref() == Some(skill) => *slot = None,
                _ => {}
            }
        }
        if a.step.is_none_or(|n| n as usize == k + 1) {
            board::print_frame(&saved.layout, &s.state, &header, &board::panel(score, None, &seats(&skills)), delay);
        }
    }
    Ok(ExitCode::SUCCESS)
}
