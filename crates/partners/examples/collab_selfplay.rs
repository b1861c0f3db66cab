//! Self-play of two seats on the CollabCapture / CollabEscape scenarios: success rate and
//! mean turns per scenario and per game, as in the LLM-Coordination paper's Table 2.
//!
//! ```text
//! cargo run --release -p proagent-partners --example collab_selfplay -- \
//!     [--game capture|escape|all] [--scenarios capture:1,escape:2,FILE] \
//!     [--seats greedy_baseline,greedy_baseline] [--episodes 3] [--seed 0] \
//!     [--catch same_room|same_room_or_swap] [--json]
//! ```
//!
//! Seats: CollabCapture random, chaser, door_operator, greedy_baseline; CollabEscape
//! random, runner, fixer, greedy_baseline.

use proagent_collab::{CatchRule, CollabGame, Maze, load};
use proagent_partners::collab::selfplay::{Summary, run};
use proagent_partners::collab::{CAPTURE_SEATS, ESCAPE_SEATS, capture_seat, escape_seat};
use std::process::ExitCode;

struct Args {
    scenarios: Vec<String>,
    seats: [String; 2],
    episodes: usize,
    seed: u64,
    catch: Option<CatchRule>,
    json: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        scenarios: Maze::builtin_names().map(str::to_string).collect(),
        seats: ["greedy_baseline".to_string(), "greedy_baseline".to_string()],
        episodes: 3,
        seed: 0,
        catch: None,
        json: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--game" => {
                let g = value()?;
                a.scenarios = match g.as_str() {
                    "all" => Maze::builtin_names().map(str::to_string).collect(),
                    "capture" | "escape" => {
                        Maze::builtin_names().filter(|n| n.starts_with(g.as_str())).map(str::to_string).collect()
                    }
                    _ => return Err(format!("--game {g}: expected capture, escape or all")),
                };
            }
            "--scenarios" => a.scenarios = value()?.split(',').map(str::to_string).collect(),
            "--seats" => {
                let v = value()?;
                let parts: Vec<&str> = v.split(',').collect();
                let [p0, p1] = parts[..] else { return Err(format!("--seats {v}: expected two names, A,B")) };
                a.seats = [p0.to_string(), p1.to_string()];
            }
            "--episodes" => {
                let v = value()?;
                a.episodes = match v.parse() {
                    Ok(n) if (1..=1_000_000).contains(&n) => n,
                    _ => return Err(format!("--episodes {v}: expected a whole number from 1 to 1000000")),
                };
            }
            "--seed" => {
                let v = value()?;
                a.seed = v.parse().map_err(|_| format!("--seed {v}: expected a whole number"))?;
            }
            "--catch" => {
                let v = value()?;
                a.catch = Some(match v.as_str() {
                    "same_room" => CatchRule::SameRoom,
                    "same_room_or_swap" => CatchRule::SameRoomOrSwap,
                    _ => return Err(format!("--catch {v}: expected same_room or same_room_or_swap")),
                });
            }
            "--json" => a.json = true,
            "-h" | "--help" => {
                return Err(concat!(
                    "usage: collab_selfplay [--game capture|escape|all] [--scenarios LIST] [--seats A,B] ",
                    "[--episodes N] [--seed S] [--catch same_room|same_room_or_swap] [--json]"
                )
                .to_string());
            }
            _ => return Err(format!("unknown argument {flag} (see --help)")),
        }
    }
    Ok(a)
}

fn play(a: &Args, spec: &str) -> Result<Summary, String> {
    let unknown = |name: &str, known: &[&str]| format!("{spec}: no seat {name:?} (known: {})", known.join(", "));
    match load(spec).map_err(|e| e.to_string())? {
        CollabGame::Capture(g) => {
            let g = match a.catch {
                Some(c) => g.with_catch(c),
                None => g,
            };
            let mut seats = [
                capture_seat(&a.seats[0]).ok_or_else(|| unknown(&a.seats[0], CAPTURE_SEATS))?,
                capture_seat(&a.seats[1]).ok_or_else(|| unknown(&a.seats[1], CAPTURE_SEATS))?,
            ];
            run(&g, &mut seats, a.episodes, a.seed).map_err(|e| e.to_string())
        }
        CollabGame::Escape(g) => {
            let mut seats = [
                escape_seat(&a.seats[0]).ok_or_else(|| unknown(&a.seats[0], ESCAPE_SEATS))?,
                escape_seat(&a.seats[1]).ok_or_else(|| unknown(&a.seats[1], ESCAPE_SEATS))?,
            ];
            run(&g, &mut seats, a.episodes, a.seed).map_err(|e| e.to_string())
        }
    }
}

fn fmt(v: Option<f64>) -> String {
    v.map_or("N.A.".to_string(), |v| format!("{v:.2}"))
}

fn main() -> ExitCode {
    let a = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(2);
        }
    };
    let mut summaries = Vec::new();
    for spec in &a.scenarios {
        match play(&a, spec) {
            Ok(s) => summaries.push(s),
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(1);
            }
        }
    }
    // Per game, over its scenarios: all episodes pooled, as the paper's Table 2.
    let mut totals = Vec::new();
    for (game, kind) in [("CollabCapture", "collab_capture"), ("CollabEscape", "collab_escape")] {
        let runs: Vec<_> = summaries.iter().filter(|s| s.game == kind).flat_map(|s| s.runs.iter()).collect();
        if runs.is_empty() {
            continue;
        }
        let won: Vec<_> = runs.iter().filter(|r| r.success).collect();
        let mean = (!won.is_empty()).then(|| won.iter().map(|r| f64::from(r.turns)).sum::<f64>() / won.len() as f64);
        totals.push((game, runs.len(), won.len() as f64 / runs.len() as f64, mean));
    }
    if a.json {
        let totals: Vec<_> = totals
            .iter()
            .map(|(g, n, rate, mean)| serde_json::json!({"game": g, "episodes": n, "success_rate": rate, "mean_turns_success": mean}))
            .collect();
        println!("{}", serde_json::json!({"seed": a.seed, "scenarios": summaries, "games": totals}));
        return ExitCode::SUCCESS;
    }
    println!("seats {} + {}, {} episode(s) per scenario from seed {}", a.seats[0], a.seats[1], a.episodes, a.seed);
    println!("{:<28} {:>8} {:>8} {:>14} {:>14}", "scenario", "episodes", "success", "turns (won)", "turns (all)");
    for s in &summaries {
        println!(
            "{:<28} {:>8} {:>8.2} {:>14} {:>14.2}",
            s.spec,
            s.episodes,
            s.success_rate,
            fmt(s.mean_turns_success),
            s.mean_turns_all
        );
    }
    for (g, n, rate, mean) in &totals {
        println!("{:<28} {:>8} {:>8.2} {:>14}", format!("{g} (all scenarios)"), n, rate, fmt(*mean));
    }
    ExitCode::SUCCESS
}
