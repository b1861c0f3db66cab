//! `proagent show`: a layout's start board, or a saved episode — a `play
//! --trajectory` file or a `play` transcript — rendered board by board (or at one
//! step), with the legend and each player's skill beside the board.

use super::board::{self, SeatLine};
use super::common::{load_layout, load_v2_layout};
use anyhow::{Context, Result, bail};
use proagent::env::render::render;
use proagent::env::trace::{parse_trace_file, player_from_json, state_from_json};
use proagent::env::{Action, Layout, State};
use proagent::runner::record::RunConfig;
use proagent::seat::SeatStatus;
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
    /// OvercookedV2 layouts: print the layout's facts (size, players, ingredients, recipes)
    /// as one JSON object instead of the board.
    #[arg(long)]
    json: bool,
    /// Print the names of the built-in OvercookedV2 layouts, one per line.
    #[arg(long)]
    v2_list: bool,
}

/// `show --layout v2:NAME`: the layout's start board and recipes, or its facts as JSON.
fn show_v2(spec: &str, json: bool) -> Result<ExitCode> {
    let (layout, _) = load_v2_layout(spec)?;
    if json {
        let names = &layout.ingredient_names;
        println!(
            "{}",
            serde_json::json!({
                "layout": format!("v2:{}", layout.name),
                "width": layout.width,
                "height": layout.height,
                "players": layout.num_agents(),
                "ingredients": names,
                "recipes": layout.recipes.iter().map(|r| r.describe(names)).collect::<Vec<_>>(),
                "grid": layout.grid,
            })
        );
        return Ok(ExitCode::SUCCESS);
    }
    let settings = proagent::env_v2::Settings::default();
    // Show the first recipe of the list; episodes draw theirs.
    struct First;
    impl proagent::env_v2::Chance for First {
        fn pick(&mut self, _n: usize) -> usize {
            0
        }
    }
    let state = layout.start_state(&settings, &mut First);
    println!("v2:{} ({}x{})", layout.name, layout.width, layout.height);
    print!("{}", proagent::env_v2::render::render(&layout, &state));
    let recipes: Vec<String> = layout.recipes.iter().map(|r| r.describe(&layout.ingredient_names)).collect();
    println!("possible recipes: {}", recipes.join("; "));
    Ok(ExitCode::SUCCESS)
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

/// A saved OvercookedV2 episode: re-played from its seed and recorded actions (the
/// simulator draws recipes and starts from the seed as `play` did), each recorded reward
/// checked against the re-play.
struct SavedV2 {
    layout: proagent::env_v2::Layout,
    settings: proagent::env_v2::Settings,
    seed: u64,
    names: Vec<String>,
    /// Per step: every player's action letter, the recorded reward, the skill events.
    steps: Vec<(Vec<Action>, i64, Vec<SkillLine>)>,
}

/// `(player, skill, outcome)` of a skill event.
type SkillLine = (usize, String, String);

fn letters_of(v: Option<&Value>, at: &dyn Fn(String) -> anyhow::Error) -> Result<Vec<Action>> {
    let list = v.and_then(Value::as_array).ok_or_else(|| at("no list of action letters".into()))?;
    list.iter()
        .map(|l| {
            let s = l.as_str().unwrap_or("");
            let mut c = s.chars();
            match (c.next(), c.next()) {
                (Some(ch), None) => Action::from_letter(ch),
                _ => Action::parse(s),
            }
            .ok_or_else(|| at(format!("unknown action {l}")))
        })
        .collect()
}

fn v2_from_trajectory(path: &std::path::Path, text: &str, episode: usize) -> Result<SavedV2> {
    let shown = path.display();
    let lines: Vec<(usize, &str)> =
        text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).map(|(i, l)| (i + 1, l)).collect();
    if episode == 0 || episode > lines.len() {
        bail!("--episode {episode}: {shown} holds {} episode(s), numbered from 1", lines.len());
    }
    let (line, raw) = lines[episode - 1];
    let v: Value = serde_json::from_str(raw).with_context(|| format!("{shown}:{line}: not JSON"))?;
    let layout_text = v.get("layout_text").and_then(Value::as_str).unwrap_or("");
    let layout = proagent::env_v2::Layout::parse(layout_text, &format!("{shown}:{line} layout_text"))?;
    let settings: proagent::env_v2::Settings = serde_json::from_value(v.get("settings").cloned().unwrap_or_default())
        .with_context(|| format!("{shown}:{line}: `settings`"))?;
    let seed = v.get("seed").and_then(Value::as_u64).with_context(|| format!("{shown}:{line}: no `seed`"))?;
    let names = v["agents"].as_array().map(|a| a.iter().map(|n| n.as_str().unwrap_or("?").to_string()).collect());
    let events = events_of(v.get("skill_events"));
    let raw_events: Vec<&Value> = v["skill_events"].as_array().map(|a| a.iter().collect()).unwrap_or_default();
    let mut steps = Vec::new();
    for (k, s) in v["steps"].as_array().map(Vec::as_slice).unwrap_or_default().iter().enumerate() {
        let at = |m: String| anyhow::anyhow!("{shown}:{line}: step {k}: {m}");
        let actions = letters_of(s.get("actions"), &at)?;
        let reward = s.get("reward").and_then(Value::as_i64).ok_or_else(|| at("no `reward`".into()))?;
        let evs = raw_events
            .iter()
            .zip(&events)
            .filter(|(r, _)| r.get("t").and_then(Value::as_u64) == Some(k as u64))
            .map(|(_, e)| e.clone())
            .collect();
        steps.push((actions, reward, evs));
    }
    Ok(SavedV2 { names: names.unwrap_or_default(), layout, settings, seed, steps })
}

fn v2_from_transcript(file: &str, rec: &Transcript, cfg: &RunConfig) -> Result<SavedV2> {
    let settings = cfg.v2.clone().unwrap_or_default();
    let layout = match &cfg.layout_file {
        Some(text) => proagent::env_v2::Layout::parse(text, &format!("{file} (recorded layout)"))?,
        None => {
            let spec = proagent::env_v2::layout::strip_v2_prefix(&cfg.layout_spec).unwrap_or(&cfg.layout_spec);
            load_v2_layout(spec)?.0
        }
    };
    let n = layout.num_agents();
    let names = (0..n).map(|i| if i == cfg.seat { cfg.agent.clone() } else { cfg.partner.clone() }).collect();
    let mut steps = Vec::new();
    for s in &rec.steps {
        let at = |m: String| anyhow::anyhow!("{file}: step t={}: {m}", s.t);
        let actions = letters_of(s.data.get("joint"), &at)?;
        let reward = s.data.get("reward").and_then(Value::as_i64).ok_or_else(|| at("no `reward`".into()))?;
        steps.push((actions, reward, events_of(s.data.get("skill_events"))));
    }
    Ok(SavedV2 { layout, settings, seed: cfg.seed, names, steps })
}

/// Prints a saved V2 episode board by board (or the board at `only`).
fn print_v2(file: &str, saved: &SavedV2, only: Option<u32>, delay: Option<std::time::Duration>) -> Result<ExitCode> {
    use proagent::env_v2::render::render as render_v2;
    if let Some(n) = only
        && n as usize > saved.steps.len()
    {
        bail!("--step {n}: the episode has {} steps (0 is the start)", saved.steps.len());
    }
    let mut chance = proagent::runner::env_chance(saved.seed);
    let mut state = saved.layout.start_state(&saved.settings, &mut chance);
    let frame = |text: String| {
        print!("{text}");
        if let Some(d) = delay {
            std::thread::sleep(d);
        }
    };
    if only.is_none_or(|n| n == 0) {
        let who: Vec<String> = saved.names.iter().enumerate().map(|(i, n)| format!("player {i}: {n}")).collect();
        frame(format!(
            "v2:{} seed {}, t=0 (start); {}; recipe: {}\n{}\n",
            saved.layout.name,
            saved.seed,
            who.join(", "),
            state.recipe.describe(&saved.layout.ingredient_names),
            render_v2(&saved.layout, &state)
        ));
    }
    let mut score = 0i64;
    for (k, (actions, recorded, events)) in saved.steps.iter().enumerate() {
        let out = saved.layout.step(&saved.settings, &mut state, actions, &mut chance);
        if i64::from(out.reward) != *recorded {
            bail!(
                "{file}: step {k}: the recorded reward is {recorded}, the simulator gives {} (not an episode of this layout, seed and settings)",
                out.reward
            );
        }
        score += i64::from(out.reward);
        if only.is_none_or(|n| n as usize == k + 1) {
            let letters: String = actions.iter().map(|a| a.letter()).collect();
            let mut header = format!("t={k} actions={letters} reward={} score={score}\n", out.reward);
            for (player, skill, outcome) in events {
                header.push_str(&format!("  player {player} {skill}: {outcome}\n"));
            }
            frame(format!("{header}{}\n", render_v2(&saved.layout, &state)));
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
    if a.json && (a.trajectory.is_some() || a.transcript.is_some()) {
        bail!("--json applies to OvercookedV2 layouts (--layout v2:NAME), not to saved episodes");
    }
    // OvercookedV2 episodes: boards as text, re-played from the seed and the actions.
    if let Some(p) = &a.trajectory {
        let text = super::common::read_text(p)?;
        if proagent::runner::files::looks_like_v2_trajectory(&text) {
            let saved = v2_from_trajectory(p, &text, a.episode)?;
            return print_v2(&p.display().to_string(), &saved, a.step, board::delay(a.render_delay_ms)?);
        }
    }
    if let Some(p) = &a.transcript {
        let file = p.display().to_string();
        let rec = Transcript::read(p)?;
        let cfg = RunConfig::from_header(&rec.header, &file, rec.header_line)?;
        if cfg.v2.is_some() {
            let saved = v2_from_transcript(&file, &rec, &cfg)?;
            return print_v2(&file, &saved, a.step, board::delay(a.render_delay_ms)?);
        }
    }
    let saved = match (&a.trajectory, &a.transcript) {
        (Some(p), _) => from_trajectory(p, a.episode)?,
        (None, Some(p)) => from_transcript(p)?,
        (None, None) => {
            if a.step.is_some() || a.render_delay_ms.is_some() {
                bail!("--step and --render-delay-ms need a saved episode (--trajectory or --transcript)");
            }
            if let Some(spec) = proagent::env_v2::layout::strip_v2_prefix(&a.layout) {
                return show_v2(spec, a.json);
            }
            if a.json {
                bail!("--json applies to OvercookedV2 layouts (--layout v2:NAME)");
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
    board::print_legend(proagent::env::render::LEGEND);
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
        let text = proagent::env::render::render(&saved.layout, &saved.start);
        board::print_frame(&text, &header, &board::panel(0, None, &seats(&skills)), delay);
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
            let text = proagent::env::render::render(&saved.layout, &s.state);
            board::print_frame(&text, &header, &board::panel(i64::from(score), None, &seats(&skills)), delay);
        }
    }
    Ok(ExitCode::SUCCESS)
}
