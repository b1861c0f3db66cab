//! `proagent analyze`: interdependence analysis of recorded trajectories.

use anyhow::{Context, Result};
use proagent::analysis::v2::{Handovers, TeamworkV2, V2LayoutSummary};
use proagent::analysis::{self, Distribution, LayoutSummary, Report};
use proagent::games::Playable;
use proagent::games::overcooked::analysis_trajectory;
use proagent::runner::files::{AnyEpisode, read_episode_text, read_text_maybe_gz};
use serde_json::json;
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

fn pct(x: Option<f64>) -> String {
    x.map_or("-".into(), |v| format!("{:.1}%", v * 100.0))
}

fn text_line(r: &Report) -> String {
    let links: Vec<String> =
        r.links.iter().map(|(k, c)| format!("{k} {}/{}", c.constructive, c.non_constructive)).collect();
    let players: Vec<String> = r
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| format!("p{i} triggered {} accepted {} ({})", p.triggered, p.accepted, pct(p.accepted_share())))
        .collect();
    format!(
        "{}: {} steps, {} soups, constructive {}, non-constructive {} [{}]; {}; shared-pot links {}/{}",
        r.trajectory,
        r.steps,
        r.deliveries,
        r.constructive,
        r.non_constructive,
        links.join(", "),
        players.join("; "),
        r.pot_links.constructive,
        r.pot_links.non_constructive
    )
}

fn dist_text(d: &Option<Distribution>, share: bool) -> String {
    match d {
        None => "-".into(),
        Some(d) if share => {
            format!(
                "{:.1}% (median {:.1}%, {:.1}%..{:.1}%)",
                d.mean * 100.0,
                d.median * 100.0,
                d.min * 100.0,
                d.max * 100.0
            )
        }
        Some(d) => format!("{:.2} (median {:.2}, {:.2}..{:.2})", d.mean, d.median, d.min, d.max),
    }
}

fn summary_text(s: &LayoutSummary) -> String {
    format!(
        "{}: {} trajectories ({} without a soup), {} soups, {} constructive, {} non-constructive\n  \
         constructive per soup: mean {}\n  non-constructive per soup: mean {}\n  accepted share of triggers: mean {}\n  \
         shared-pot links per soup (indirect): mean {}",
        s.layout,
        s.trajectories,
        s.without_delivery,
        s.deliveries,
        s.constructive,
        s.non_constructive,
        dist_text(&s.constructive_per_soup, false),
        dist_text(&s.non_constructive_per_soup, false),
        dist_text(&s.accepted_share, true),
        dist_text(&s.pot_links_per_soup, false),
    )
}

/// One analysed OvercookedV2 episode.
struct V2Episode {
    /// Where it was read: `FILE:LINE` for a trajectory, the file for a transcript.
    at: String,
    layout: String,
    seed: serde_json::Value,
    steps: usize,
    teamwork: TeamworkV2,
}

/// An OvercookedV2 episode's teamwork, from the interact events of its re-played steps.
fn v2_episode(
    source: &str,
    e: &proagent::runner::files::SavedEpisode<proagent::overcooked_v2::game::OvercookedV2>,
) -> V2Episode {
    let n = e.game.layout.num_agents();
    let events: Vec<Vec<Option<proagent::env_v2::Event>>> = e
        .steps
        .iter()
        .map(|s| {
            s.outcome.as_ref().map(|o| o.events[..n.min(o.events.len())].to_vec()).unwrap_or_else(|| vec![None; n])
        })
        .collect();
    V2Episode {
        at: e.line.map_or_else(|| source.to_string(), |l| format!("{source}:{l}")),
        layout: e.game.report_name(),
        seed: json!(e.seed),
        steps: events.len(),
        teamwork: proagent::analysis::v2::teamwork(&e.game.layout, &events),
    }
}

fn handovers_text(h: &Handovers) -> String {
    format!("{}/{}", h.constructive, h.total)
}

fn v2_line(e: &V2Episode) -> String {
    let t = &e.teamwork;
    let kinds: Vec<String> = t.ingredient_kinds.iter().map(|(k, h)| format!("{k} {}", handovers_text(h))).collect();
    let dishes: Vec<String> = t
        .dishes_by_recipe
        .iter()
        .map(|(k, d)| format!("[{k}] {} correct, {} wrong, {} handed over", d.correct, d.wrong, d.handed_over))
        .collect();
    format!(
        "{} {} seed {}: {} steps, {} correct / {} wrong dishes, hand-overs {} ({} constructive; ingredients {} [{}], plates {}, dishes {}), shared-pot soups {}, button presses {} ({} constructive signals); dishes: {}",
        e.at,
        e.layout,
        e.seed,
        e.steps,
        t.correct_dishes,
        t.wrong_dishes,
        t.handovers,
        t.constructive,
        handovers_text(&t.ingredients),
        kinds.join(", "),
        handovers_text(&t.plates),
        handovers_text(&t.dishes),
        t.shared_pot_soups,
        t.button_presses,
        t.signals.constructive,
        if dishes.is_empty() { "none".to_string() } else { dishes.join("; ") }
    )
}

fn v2_summary_text(s: &V2LayoutSummary) -> String {
    let t = &s.totals;
    format!(
        "{}: {} episodes ({} without a correct dish), {} correct / {} wrong dishes, {} hand-overs ({} constructive), {} button presses ({} constructive signals)\n  \
         constructive hand-overs per correct dish: mean {}\n  shared-pot share of correct dishes: mean {}\n  \
         constructive share of button presses: mean {}",
        s.layout,
        s.episodes,
        s.without_correct_dish,
        t.correct_dishes,
        t.wrong_dishes,
        t.handovers,
        t.constructive,
        t.button_presses,
        t.signals.constructive,
        dist_text(&s.constructive_per_dish, false),
        dist_text(&s.shared_pot_share, true),
        dist_text(&s.constructive_signal_share, true),
    )
}

pub fn run(a: AnalyzeArgs) -> Result<ExitCode> {
    let mut reports = Vec::new();
    let mut v2_episodes: Vec<V2Episode> = Vec::new();
    for path in &a.files {
        let source = path.display().to_string();
        let text = read_text_maybe_gz(path)?;
        let file = read_episode_text(&source, &text)?;
        tracing::info!(file = %source, kind = file.kind.name(), episodes = file.episodes.len(), "read");
        for ep in &file.episodes {
            match ep {
                AnyEpisode::V2(e) => {
                    let e = v2_episode(&source, e);
                    if !a.summary {
                        if a.json {
                            println!(
                                "{}",
                                json!({"file": source, "at": e.at, "kind": "overcooked_v2", "layout": e.layout, "seed": e.seed, "steps": e.steps, "teamwork": e.teamwork})
                            );
                        } else {
                            println!("{}", v2_line(&e));
                        }
                    }
                    v2_episodes.push(e);
                }
                AnyEpisode::Overcooked(e) => {
                    let r = analysis::analyze(&analysis_trajectory(e)).with_context(|| source.clone())?;
                    if r.trace.repairs > 0 {
                        tracing::warn!(trajectory = %r.trajectory, repairs = r.trace.repairs, "objects appeared or vanished without an explaining action");
                    }
                    if !a.summary {
                        if a.json {
                            let mut v = analysis::report_json(&r, a.detail);
                            v["file"] = json!(source);
                            v["kind"] = json!(file.kind.name());
                            println!("{v}");
                        } else {
                            println!("{}", text_line(&r));
                        }
                    }
                    reports.push(r);
                }
            }
        }
    }
    if a.summary {
        for s in analysis::summarize(&reports) {
            if a.json {
                println!("{}", json!(s));
            } else {
                println!("{}", summary_text(&s));
            }
        }
        let v2: Vec<(String, TeamworkV2)> = v2_episodes.into_iter().map(|e| (e.layout, e.teamwork)).collect();
        for s in proagent::analysis::v2::summarize(&v2) {
            if a.json {
                let mut v = json!(s);
                v["kind"] = json!("overcooked_v2");
                println!("{v}");
            } else {
                println!("{}", v2_summary_text(&s));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
